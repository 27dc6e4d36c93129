//! Passengers, Riders and Crew of a vehicle hit by mines (B28.43, B28.52).
//!
//! PRC are immune to minefield attacks unless their vehicle is eliminated
//! (they roll for survival) or immobilized (Vulnerable PRC are attacked
//! Collaterally). Riders are always Vulnerable; Passengers are Vulnerable in
//! an open-topped vehicle or one that counts as unarmored (B28.43). The
//! vehicle's own crew is not a unit in this engine.
//!
//! Project readings (docs/RULINGS.md R31-R33):
//! - Collateral attack after an A-P attack immobilizes the vehicle: the
//!   Vulnerable PRC take the same IFT result that attack produced (same
//!   column, same Final DR), as Collateral Attacks use the attack's DR (R31).
//! - After an A-T immobilization: the Vulnerable Passengers/Riders are
//!   attacked on the 16 FP column with the A-T attack's Final DR (B28.52;
//!   B28.43 limits the Collateral attack to Vulnerable PRC; R32).
//! - Survival of PRC of an eliminated vehicle (B28.43, B28.52 "roll for
//!   survival normally"): the survival numbers (D5.6/D6.9) are not in the
//!   seeds nor in the rules data, so per R12 such a ruling is refused with
//!   an error naming the missing data; a vehicle with no Passengers or
//!   Riders aboard is eliminated normally (R33).

use crate::a::ift::IftResult;
use crate::b28::minefield::{agreed, emit, MinefieldEvent, VehicleOutcome};
use crate::board::hex::Hex;
use crate::model::error::RuleError;
use crate::model::event::Visibility;
use crate::model::resolve::{Ctx, Interrupt, Res};
use crate::model::unit::{UnitId, UnitKind};

/// What the Vulnerable PRC of an immobilized vehicle are attacked with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collateral {
    /// The A-P attack's own IFT result (B28.43).
    SameAttack(IftResult),
    /// The 16 FP column at this Final DR (A-T mines, B28.52).
    Column16(i16),
}

/// Passengers and Riders aboard `vehicle` that are in play.
pub fn aboard(ctx: &Ctx<'_>, vehicle: UnitId) -> Vec<UnitId> {
    match ctx.state.unit(vehicle).map(|u| &u.kind) {
        Some(UnitKind::Vehicle(v)) => v
            .passengers
            .iter()
            .chain(&v.riders)
            .copied()
            .filter(|id| ctx.state.unit(*id).is_some_and(|u| u.in_play()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Vulnerable PRC of `vehicle` (B28.43): Riders always; Passengers of an
/// open-topped vehicle or one counting as unarmored (B28.42).
pub fn vulnerable(ctx: &Ctx<'_>, vehicle: UnitId) -> Vec<UnitId> {
    let Some(UnitKind::Vehicle(v)) = ctx.state.unit(vehicle).map(|u| &u.kind) else {
        return Vec::new();
    };
    let passengers_too = v.open_topped || v.counts_as_unarmored();
    let mut out: Vec<UnitId> = v.riders.clone();
    if passengers_too {
        out.extend(v.passengers.iter().copied());
    }
    out.retain(|id| ctx.state.unit(*id).is_some_and(|u| u.in_play()));
    out.sort();
    out
}

/// Applies an attack's outcome to a vehicle itself (B28.42, B28.52, and
/// an ordnance hit on the Vehicle line, C3.32): eliminated units leave the
/// map, a Burning Wreck keeps its hex, an immobilized vehicle stays. Refused
/// (R12) when an eliminated vehicle carries PRC: their survival needs data
/// not given.
pub fn apply_outcome(
    ctx: &mut Ctx<'_>,
    vehicle: UnitId,
    hex: Hex,
    outcome: VehicleOutcome,
) -> Res<()> {
    match outcome {
        VehicleOutcome::NoEffect => {}
        VehicleOutcome::Eliminated | VehicleOutcome::BurningWreck => {
            let prc = aboard(ctx, vehicle);
            if !prc.is_empty() {
                // B28.43, B28.52, R12: survival numbers not in the data.
                return Err(Interrupt::Refuse(RuleError {
                    reason: format!(
                        "vehicle {vehicle} is eliminated with PRC {prc:?} aboard: their survival roll needs rules data prc_survival (D5.6/D6.9 survival numbers), which is not given"
                    ),
                    cite: vec!["B28.43".into(), "B28.52".into(), "R12".into()],
                }));
            }
            // Eliminated units leave the map (`Unit::hex`, as A10/A19 casualties
            // do in morale.rs); a Burning Wreck's hex is kept (B28.52).
            if let Some(u) = ctx.state.units.get_mut(&vehicle) {
                u.status.eliminated = true;
                u.hex = None;
            }
            if outcome == VehicleOutcome::BurningWreck {
                ctx.state.mines.burning_wrecks.insert(vehicle, hex);
            }
        }
        VehicleOutcome::Immobilized => {
            if let Some(UnitKind::Vehicle(v)) =
                ctx.state.units.get_mut(&vehicle).map(|u| &mut u.kind)
            {
                v.immobilized = true;
            }
        }
    }
    Ok(())
}

/// Applies a minefield attack's outcome to a vehicle and its PRC.
pub fn vehicle_hit(
    ctx: &mut Ctx<'_>,
    vehicle: UnitId,
    hex: Hex,
    outcome: VehicleOutcome,
    collateral: Collateral,
) -> Res<()> {
    if outcome == VehicleOutcome::NoEffect {
        return Ok(());
    }
    apply_outcome(ctx, vehicle, hex, outcome)?;
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::VehicleHit {
            unit: vehicle,
            hex,
            outcome,
        },
        &["B28.42", "B28.52"],
    );
    if outcome == VehicleOutcome::Immobilized {
        let targets = vulnerable(ctx, vehicle);
        if !targets.is_empty() {
            let result = match collateral {
                Collateral::SameAttack(r) => r,
                Collateral::Column16(dr) => agreed::ift_lookup(16, dr)?,
            };
            if result != IftResult::NoEffect {
                agreed::apply_personnel(ctx, hex, &targets, result, true)?;
            }
        }
    }
    Ok(())
}
