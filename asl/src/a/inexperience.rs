//! Green and Conscript troops: Inexperienced Personnel (A19.2-A19.36).
//!
//! Each restriction is a small function the engine calls where it computes
//! that value (movement, SW breakdown, Cowering, PAATC, CC, capture, Lax).

use crate::model::state::GameState;
use crate::model::unit::{Class, Trait, Unit, UnitId, UnitKind};

/// Whether a unit is Green or Conscript at all (A19.2): an MMC that is not
/// a crew, of class Green or Conscript, or unarmed (A19.3). SMC (leaders)
/// and crews never are.
pub fn is_green_or_conscript(unit: &Unit) -> bool {
    match &unit.kind {
        UnitKind::Infantry(i) => {
            !unit.is_crew() && (i.class.inexperienced() || unit.has(Trait::Unarmed))
        }
        _ => false,
    }
}

/// A Good Order friendly leader shares the unit's Location (same hex, not
/// aboard a vehicle).
pub fn stacked_with_unbroken_leader(state: &GameState, unit: &Unit) -> bool {
    let Some(hex) = unit.hex else { return false };
    unit.status.aboard.is_none()
        && state.units_in(hex).any(|l| {
            l.id != unit.id && l.side == unit.side && l.good_order() && l.leader().is_some()
        })
}

/// Whether the rules of Inexperienced Personnel apply to a unit now
/// (A19.2, A19.3): Green or Conscript, except a Green MMC stacked with an
/// unbroken leader; Conscripts and unarmed units always.
pub fn is_inexperienced_now(state: &GameState, unit: UnitId) -> bool {
    let Some(u) = state.unit(unit) else {
        return false;
    };
    if !is_green_or_conscript(u) {
        return false;
    }
    let always = u.has(Trait::Unarmed) || u.infantry().is_some_and(|i| i.class == Class::Conscript);
    always || !stacked_with_unbroken_leader(state, u)
}

/// Green and Conscript units never use Stealth, even with a leader (A19.2).
pub fn may_use_stealth(unit: &Unit) -> bool {
    !is_green_or_conscript(unit)
}

/// Basic MF of an Infantry unit this MPh (A4.1, A19.31): 4, or 6 with a
/// leader; Inexperienced 3, or 5 with a leader (a Green unit with a leader
/// is not Inexperienced, so keeps 6); berserk 8; a leader 6. Conveyance
/// turns are excepted by the caller. Vehicles: 0 (they use MP).
pub fn mf_allowance(state: &GameState, unit: UnitId) -> u8 {
    let Some(u) = state.unit(unit) else { return 0 };
    match &u.kind {
        UnitKind::Vehicle(_) | UnitKind::Gun(_) => 0,
        _ if u.has(Trait::Berserk) => 8,
        UnitKind::Leader(_) => 6,
        UnitKind::Infantry(_) => {
            let bonus = if stacked_with_unbroken_leader(state, u) {
                2
            } else {
                0
            };
            let base = if is_inexperienced_now(state, unit) {
                3
            } else {
                4
            };
            base + bonus
        }
    }
}

/// Modifier to the Breakdown Number (B#/X#, inherent ones too) of a SW used
/// by this unit: -1 when Inexperienced (A19.32).
pub fn sw_breakdown_modifier(state: &GameState, unit: UnitId) -> i8 {
    if is_inexperienced_now(state, unit) {
        -1
    } else {
        0
    }
}

/// The IFT column shift of a Fire Group that cowers (A7.9, A19.33): two
/// columns left when any firer is Inexperienced, else one.
pub fn cowering_shift(state: &GameState, fire_group: &[UnitId]) -> i8 {
    if fire_group.iter().any(|u| is_inexperienced_now(state, *u)) {
        -2
    } else {
        -1
    }
}

/// The kind of check a PAATC is for this unit (A19.34): a 1TC (+1 DRM)
/// for Inexperienced Infantry, a NTC (+0) otherwise. Returns the DRM.
pub fn paatc_drm(state: &GameState, unit: UnitId) -> i8 {
    if is_inexperienced_now(state, unit) {
        1
    } else {
        0
    }
}

/// Modifier to the Close Combat Value of the unit: -1 when Inexperienced
/// (A19.34).
pub fn ccv_modifier(state: &GameState, unit: UnitId) -> i8 {
    if is_inexperienced_now(state, unit) {
        -1
    } else {
        0
    }
}

/// DRM of a capture attempt in CC against `target` (A19.35): -1 against
/// Inexperienced Personnel instead of the normal +1.
pub fn capture_drm(state: &GameState, target: UnitId) -> i8 {
    if is_inexperienced_now(state, target) {
        -1
    } else {
        1
    }
}

/// Whether the unit is Lax (A19.36): Inexperienced Personnel always are.
/// (Other causes of Lax, A11.18, are the caller's.)
pub fn is_lax(state: &GameState, unit: UnitId) -> bool {
    is_inexperienced_now(state, unit)
}
