//! Ammunition Shortage (A19.131): a side's OB afflicted by SSR.
//!
//! An MMC of that side rolling an Original 12 on the IFT with its Inherent
//! FP suffers Unit Replacement after the attack (one MMC of a Fire Group,
//! by Random Selection; R7 ties all suffer it). Rulings (R34): the new unit keeps
//! the old one's broken / unbroken status (the shortage is not a failed MC);
//! a MMC with no lower quality (a crew, a `DIS` row, an underscored HS)
//! breaks unless berserk.

use crate::a::elr::{self, ReplacementCause};
use crate::a::fire::FireEvent;
use crate::a::random_selection;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{Ctx, Res};
use crate::model::scenario::Scenario;
use crate::model::unit::{Trait, UnitId};
use crate::side::Side;

/// Whether a side's OB has Ammunition Shortage by SSR.
pub fn has_shortage(scenario: &Scenario, side: Side) -> bool {
    scenario
        .sides
        .get(&side)
        .is_some_and(|ob| ob.ammunition_shortage)
}

/// Modifier to every Original B#/X# of a SW of the side [EXC: DC] and to
/// its Ammunition Depletion Numbers: -1 during a shortage (A19.131).
pub fn sw_breakdown_modifier(scenario: &Scenario, side: Side, is_demolition_charge: bool) -> i8 {
    if has_shortage(scenario, side) && !is_demolition_charge {
        -1
    } else {
        0
    }
}

/// Modifier to Ammunition Depletion Numbers: -1 during a shortage
/// (A19.131).
pub fn depletion_modifier(scenario: &Scenario, side: Side) -> i8 {
    if has_shortage(scenario, side) {
        -1
    } else {
        0
    }
}

/// The circled B# of a vehicle or Gun during a shortage (A19.131, D3.71).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CircledBreakdown {
    /// The circled B# in force.
    pub number: u8,
    /// It already had a circled B#: it starts play Low Ammo.
    pub starts_low_ammo: bool,
}

/// A vehicle's or Gun's circled B# (A19.131): one lower than its inherent
/// B# during a shortage; one that already has a circled B# starts with Low
/// Ammo. `None` when the side has no shortage and no circled B# applies.
pub fn circled_breakdown(
    scenario: &Scenario,
    side: Side,
    inherent_b: u8,
    already_circled: bool,
) -> Option<CircledBreakdown> {
    if has_shortage(scenario, side) {
        Some(CircledBreakdown {
            number: inherent_b.saturating_sub(1),
            starts_low_ammo: already_circled,
        })
    } else if already_circled {
        Some(CircledBreakdown {
            number: inherent_b,
            starts_low_ammo: false,
        })
    } else {
        None
    }
}

/// Fire Lanes may not be placed during a shortage (A19.131).
pub fn fire_lanes_allowed(scenario: &Scenario, side: Side) -> bool {
    !has_shortage(scenario, side)
}

/// Kinds of attack, for whether a shortage applies to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttackKind {
    /// IFT attack with Inherent FP.
    InherentFp,
    /// A To Hit DR (no Unit Replacement on a 12, A19.131).
    ToHit,
    /// Close Combat.
    CloseCombat,
    /// Sniper.
    Sniper,
    /// Residual FP.
    Residual,
}

/// Whether an Original 12 of this kind of attack causes Unit Replacement
/// (A19.131): only IFT attacks with Inherent FP.
pub fn original_12_replaces(scenario: &Scenario, side: Side, kind: AttackKind) -> bool {
    has_shortage(scenario, side) && kind == AttackKind::InherentFp
}

/// Resolves the shortage after an IFT attack with Inherent FP whose
/// Original DR was `original_dr`, made by the MMC `firers` of `side`
/// (A19.131). Nothing happens without a shortage or a 12. Returns the
/// selected MMC.
pub fn after_attack(
    ctx: &mut Ctx<'_>,
    side: Side,
    firers: &[UnitId],
    original_dr: u8,
) -> Res<Vec<UnitId>> {
    if original_dr != 12 || !original_12_replaces(ctx.scenario, side, AttackKind::InherentFp) {
        return Ok(Vec::new());
    }
    let mmc: Vec<UnitId> = firers
        .iter()
        .copied()
        .filter(|f| {
            ctx.state
                .unit(*f)
                .is_some_and(|u| u.is_mmc() && u.in_play())
        })
        .collect();
    let hit = random_selection::select(ctx, &mmc, 1, "Ammunition Shortage")?;
    for u in &hit {
        ctx.emit(
            Visibility::Public,
            EventKind::Fire(FireEvent::AmmunitionShortage { unit: *u }),
            &["A19.131"],
        );
        let unit = ctx.state.unit(*u).cloned();
        let Some(unit) = unit else { continue };
        // A crew has no lower quality; any other MMC missing from the data
        // is an R12 error raised by the Replacement itself.
        if !unit.is_crew() && !unit.has(Trait::Unarmed) {
            elr::replace(ctx, *u, ReplacementCause::AmmunitionShortage)?;
        } else if !unit.has(Trait::Berserk) {
            crate::a::morale::break_unit(ctx, *u, &["A19.131"]);
        }
    }
    Ok(hit)
}
