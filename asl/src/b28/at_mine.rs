//! A-T mines (B28.5-B28.53): who triggers them, the trigger dr, the attack
//! on the 36+ column and its effect on AFV and unarmored vehicles (R2-R4).
//!
//! The trigger dr is rolled for every vehicle that enters or leaves a hex
//! holding an A-T leaf, mined or not, so the dice traffic does not tell
//! (G3); only a triggered attack reveals presence and factors (B28.51).

use crate::a::ift::IftResult;
use crate::b28::minefield::{agreed, emit, leaf_exists, request, MinefieldEvent, VehicleOutcome};
use crate::b28::prc::{self, Collateral};
use crate::board::hex::Hex;
use crate::model::event::Visibility;
use crate::model::resolve::{refuse, Ctx, Res};
use crate::model::sealed::{Content, Layer};
use crate::model::unit::{Unit, UnitId};
use crate::side::Side;

/// Only wagons and vehicles other than motorcycles trigger A-T mines;
/// Infantry/Cavalry never do (B28.5, B28.41).
pub fn triggers_at_mines(u: &Unit) -> bool {
    u.vehicle().is_some_and(|v| v.wagon || !v.motorcycle)
}

/// Whether the vehicle is attacked by A-T mines as an AFV (Aerial AF DRM,
/// R2-R4) rather than as an unarmored vehicle (B28.42, B28.52).
fn is_armored(u: &Unit) -> bool {
    u.vehicle().is_some_and(|v| !v.counts_as_unarmored())
}

/// R4: an AFV without Aerial AF may not enter or leave a hex that can hold
/// enemy A-T mines; checked before any fact is asked, so the refusal reveals
/// nothing (G3).
pub fn check_aerial_af(ctx: &Ctx<'_>, unit: &Unit, hexes: &[Hex]) -> Res<()> {
    if !triggers_at_mines(unit) || !is_armored(unit) {
        return Ok(());
    }
    if unit.vehicle().is_some_and(|v| v.aerial_af.is_some()) {
        return Ok(());
    }
    let owner = unit.side.opponent();
    if let Some(h) = hexes
        .iter()
        .find(|h| leaf_exists(ctx, owner, Layer::AntiTank, **h))
    {
        return refuse(
            format!(
                "AFV {} ({}) has no Aerial AF (vehicle field aerial_af) and {h} may hold A-T mines",
                unit.id, unit.name
            ),
            "R4",
        );
    }
    Ok(())
}

/// A-T factors after Deep Snow (B28.51: one less).
fn effective_factors(ctx: &Ctx<'_>, factors: u8) -> u8 {
    if ctx.scenario.ssr.deep_snow {
        factors.saturating_sub(1)
    } else {
        factors
    }
}

/// The B28.51 check of a vehicle entering/leaving a hex that holds an A-T
/// leaf of `owner`: open the leaf, roll one die, attack if the die is <= the
/// factors.
pub fn hidden_check(ctx: &mut Ctx<'_>, owner: Side, hex: Hex, vehicle: UnitId) -> Res<()> {
    let content = ctx.open_one(request(owner, Layer::AntiTank, hex))?;
    let factors = match content {
        Content::AtMines(f) => f.get(),
        _ => 0,
    };
    let dr = ctx.roll_dr1(format!("A-T mine check for {vehicle} in {hex}"), "B28.51")?;
    let eff = effective_factors(ctx, factors);
    if eff == 0 || dr > eff {
        emit(
            ctx,
            Visibility::Referee,
            MinefieldEvent::AtNotTriggered {
                hex,
                unit: vehicle,
                factors,
            },
            &["B28.51", "G3"],
        );
        return Ok(());
    }
    if let Content::AtMines(f) = content {
        ctx.state.markers.entry(hex).or_default().at_revealed = Some(Some(f));
    }
    attack(ctx, vehicle, hex, factors, dr)
}

/// A Daisy Chain's A-T attack roll (B28.531 uses B28.51): one die <= the
/// factors (Deep Snow one less) attacks the vehicle.
pub fn daisy_attack(ctx: &mut Ctx<'_>, vehicle: UnitId, hex: Hex, factors: u8) -> Res<()> {
    let dr = ctx.roll_dr1(
        format!("Daisy Chain A-T check for {vehicle} in {hex}"),
        "B28.531",
    )?;
    let eff = effective_factors(ctx, factors);
    if eff == 0 || dr > eff {
        return Ok(());
    }
    attack(ctx, vehicle, hex, factors, dr)
}

/// One A-T mine attack vs a vehicle on the 36+ column, no TEM (B28.52).
fn attack(ctx: &mut Ctx<'_>, vehicle: UnitId, hex: Hex, factors: u8, trigger_dr: u8) -> Res<()> {
    let Some(u) = ctx.state.unit(vehicle).cloned() else {
        return Ok(());
    };
    let Some(v) = u.vehicle() else {
        return Ok(());
    };
    let armored = is_armored(&u);
    let aerial = if armored {
        match v.aerial_af {
            Some(a) => Some(a),
            None => {
                return refuse(
                    format!(
                        "AFV {vehicle} ({}) has no Aerial AF (vehicle field aerial_af)",
                        u.name
                    ),
                    "R4",
                )
            }
        }
    } else {
        None
    };
    let roll = ctx.roll_dr2(format!("A-T mine attack vs {vehicle} in {hex}"), "B28.52")?;
    let snow = if ctx.scenario.ssr.deep_snow { 1 } else { 0 };
    let final_dr = roll.total() as i16 + snow;
    let outcome = match aerial {
        // B28.52, R2, R3, R4: Aerial AF as +DRM for the KIA test only.
        Some(a) => match agreed::ift_lookup(36, final_dr + a as i16)? {
            IftResult::Kia(n) if n >= 4 => VehicleOutcome::BurningWreck,
            IftResult::Kia(_) => VehicleOutcome::Eliminated,
            _ => VehicleOutcome::Immobilized,
        },
        // B28.52: unarmored always eliminated; Burning Wreck on Final DR <= 6.
        None if final_dr <= 6 => VehicleOutcome::BurningWreck,
        None => VehicleOutcome::Eliminated,
    };
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::AtAttack {
            hex,
            unit: vehicle,
            factors,
            trigger_dr,
            final_dr,
            aerial_af: aerial,
            outcome,
        },
        &["B28.51", "B28.52", "R2", "R3", "R4"],
    );
    // B28.51: "?" lost if a Good Order enemy ground unit sees the hex.
    if u.status.concealed && agreed::seen_by_good_order_enemy(ctx, u.side.opponent(), hex) {
        if let Some(m) = ctx.state.units.get_mut(&vehicle) {
            m.status.concealed = false;
        }
        emit(
            ctx,
            Visibility::Public,
            MinefieldEvent::ConcealmentLost { unit: vehicle },
            &["B28.51"],
        );
    }
    // B28.52: A-T factors never drop; PRC per B28.43/B28.52.
    prc::vehicle_hit(ctx, vehicle, hex, outcome, Collateral::Column16(final_dr))
}
