//! Flail Tanks (B28.7-B28.72).
//!
//! The clearance entry is declared with
//! [`crate::model::action::MoveMode::FlailClearance`] before the tank moves in its
//! MPh and spends all its MP (checked in [`crate::b28::movement`]); the tank is
//! immune to the mines of the hex it entered. At the end of its CCPh
//! ([`end_of_close_combat`]) one Mine Clearance DR: Original 12 destroys it
//! if A-T mines are there (the A-T layer is asked only then), else
//! immobilizes it (B28.71); Original 11 breaks the flail (B28.72); a Final
//! DR <= 10 creates a TB (B28.7). No DRM applies to a flail's DR in these
//! rules, so Final = Original.
//!
//! Readings (R35): the TB runs from the hexside the tank crossed to the opposite
//! hexside (the VCA is not tracked; straight ahead is always within it).
//! Vehicle fire is not adjudicated by this engine, so "did not fire" always
//! holds here.

use crate::b28::minefield::{emit, leaf_exists, request, MinefieldEvent, VehicleOutcome};
use crate::b28::prc::{self, Collateral};
use crate::b28::trail_break;
use crate::board::hex::Hex;
use crate::model::event::Visibility;
use crate::model::resolve::{Ctx, Res};
use crate::model::sealed::{Content, Layer};
use crate::model::unit::{UnitId, UnitKind};
use serde::{Deserialize, Serialize};

/// What a Mine Clearance DR did (B28.7-B28.72).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FlailOutcome {
    /// A TB was created (Final DR <= 10).
    TrailBreak,
    /// Original 11: the flail is destroyed.
    FlailBroken,
    /// Original 12 with A-T mines present: the tank is destroyed.
    Destroyed,
    /// Original 12 without A-T mines: the tank is immobilized.
    Immobilized,
    /// No clearance was attempted: the tank left, was immobilized or
    /// eliminated, lost its flail, or own Infantry/Cavalry/Vulnerable PRC
    /// occupy the hex.
    NotAttempted,
}

/// Events of Flail Tank clearance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlailEvent {
    /// The tank.
    pub unit: UnitId,
    /// The hex.
    pub hex: Hex,
    /// The Original DR, if one was rolled.
    pub original_dr: Option<u8>,
    /// What happened.
    pub outcome: FlailOutcome,
}

/// End of the phasing side's CCPh: resolve every Flail Tank clearance
/// declared this Player Turn (B28.7). Called by the turn code.
pub fn end_of_close_combat(ctx: &mut Ctx<'_>) -> Res<()> {
    let turn = ctx.state.turn;
    let phasing = ctx.state.phasing;
    let list: Vec<(UnitId, crate::model::state::FlailClearance)> = ctx
        .state
        .mines
        .flail_clearances
        .iter()
        .filter(|(id, f)| f.turn == turn && ctx.state.unit(**id).is_some_and(|u| u.side == phasing))
        .map(|(id, f)| (*id, *f))
        .collect();
    for (id, fc) in list {
        ctx.state.mines.flail_clearances.remove(&id);
        let Some(u) = ctx.state.unit(id).cloned() else {
            continue;
        };
        let able = u.in_play()
            && u.hex == Some(fc.hex)
            && u.vehicle().is_some_and(|v| v.flail && !v.immobilized);
        // B28.7: not where own Infantry/Cavalry/Vulnerable PRC are.
        let own_personnel = ctx
            .state
            .units_in(fc.hex)
            .any(|o| o.side == u.side && o.is_personnel());
        let own_vulnerable = ctx
            .state
            .units
            .values()
            .filter(|o| o.side == u.side && o.hex == Some(fc.hex) && o.in_play())
            .any(|o| !prc::vulnerable(ctx, o.id).is_empty());
        if !able || own_personnel || own_vulnerable {
            flail_event(ctx, id, fc.hex, None, FlailOutcome::NotAttempted);
            continue;
        }
        let roll = ctx.roll_dr2(
            format!("Flail Mine Clearance by {id} in {}", fc.hex),
            "B28.7",
        )?;
        let original = roll.total();
        let owner = u.side.opponent();
        let outcome = match original {
            12 => {
                let at = leaf_exists(ctx, owner, Layer::AntiTank, fc.hex)
                    && matches!(
                        ctx.open_one(request(owner, Layer::AntiTank, fc.hex))?,
                        Content::AtMines(_)
                    );
                if at {
                    FlailOutcome::Destroyed
                } else {
                    FlailOutcome::Immobilized
                }
            }
            11 => FlailOutcome::FlailBroken,
            _ => FlailOutcome::TrailBreak,
        };
        flail_event(ctx, id, fc.hex, Some(original), outcome);
        match outcome {
            FlailOutcome::Destroyed => prc::vehicle_hit(
                ctx,
                id,
                fc.hex,
                VehicleOutcome::Eliminated,
                Collateral::Column16(original as i16),
            )?,
            FlailOutcome::Immobilized => prc::vehicle_hit(
                ctx,
                id,
                fc.hex,
                VehicleOutcome::Immobilized,
                Collateral::SameAttack(crate::a::ift::IftResult::NoEffect),
            )?,
            FlailOutcome::FlailBroken => {
                if let Some(UnitKind::Vehicle(v)) =
                    ctx.state.units.get_mut(&id).map(|u| &mut u.kind)
                {
                    v.flail = false;
                }
            }
            FlailOutcome::TrailBreak => {
                if let Some(to) = trail_break::opposite(fc.hex, fc.from) {
                    if ctx.scenario.map.contains(to) {
                        trail_break::place(&mut ctx.state, fc.hex, fc.from, to);
                    }
                }
            }
            FlailOutcome::NotAttempted => {}
        }
    }
    Ok(())
}

fn flail_event(
    ctx: &mut Ctx<'_>,
    unit: UnitId,
    hex: Hex,
    original_dr: Option<u8>,
    outcome: FlailOutcome,
) {
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::Flail(FlailEvent {
            unit,
            hex,
            original_dr,
            outcome,
        }),
        &["B28.7", "B28.71", "B28.72"],
    );
}
