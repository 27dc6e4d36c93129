//! Target Types (C3.31-C3.33, C3.41) and which units a shot may hit
//! (C3.4).

use crate::board::hex::Hex;
use crate::model::action::TargetType;
use crate::model::error::RuleError;
use crate::model::state::GameState;
use crate::model::unit::{Ammo, Ordnance, Unit, UnitId};
use crate::side::Side;

/// What a unit is as a target of ordnance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// Infantry, Cavalry or a leader: the IFT.
    Personnel,
    /// A Gun (C3.41, C3.71).
    Gun,
    /// An unarmored vehicle: the IFT's Vehicle line (C3.32 EX, A7.308).
    Unarmored,
    /// An armored fighting vehicle.
    Afv,
}

/// The kind of a unit as a target.
pub fn kind_of(u: &Unit) -> TargetKind {
    if u.gun().is_some() {
        TargetKind::Gun
    } else if u.is_afv() {
        TargetKind::Afv
    } else if u.vehicle().is_some() {
        TargetKind::Unarmored
    } else {
        TargetKind::Personnel
    }
}

fn no(reason: impl Into<String>, cite: &str) -> Result<(), RuleError> {
    Err(RuleError::new(reason, cite))
}

/// Checks the Target Type against the weapon, its ammunition and the
/// range (C3.31-C3.33, C3.41), before anything is rolled.
pub fn check_declaration(
    ordnance: &Ordnance,
    target_type: TargetType,
    ammo: Ammo,
    range: u32,
) -> Result<(), RuleError> {
    if !ordnance.ammo.contains(&ammo) {
        return no(
            format!(
                "this {} does not carry {ammo} (it has {})",
                ordnance.label(),
                ordnance
                    .ammo
                    .iter()
                    .map(|a| a.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "C3.3",
        );
    }
    if ordnance.mortar && target_type != TargetType::Area {
        return no("a mortar always uses the Area Target Type", "C3.33");
    }
    if ammo.is_smoke() && target_type != TargetType::Area {
        return no("ordnance fires SMOKE/WP on the Area Target Type", "C3.33");
    }
    match target_type {
        TargetType::Area => {
            if range == 0 {
                return no("the Area Target Type is not used in the firer's own hex", "C3.33");
            }
            if !matches!(ammo, Ammo::He | Ammo::Smoke | Ammo::Wp) {
                return no(
                    format!("the Area Target Type fires HE or SMOKE, not {ammo}"),
                    "C3.33",
                );
            }
            if ammo == Ammo::Smoke {
                return no(
                    "SMOKE placement (A24) is not adjudicated: only HE and WP fire on the Area Target Type here",
                    "C3.33",
                );
            }
        }
        TargetType::Infantry => match ammo {
            Ammo::He => {}
            Ammo::Ap | Ammo::Heat => {
                return no(
                    "AP/HEAT on the Infantry Target Type attacks with its HE Equivalency (C8.31), which is not in the rules data",
                    "C3.32",
                )
            }
            other => {
                return no(
                    format!("the Infantry Target Type fires HE (AP/HEAT vs unarmored), not {other}"),
                    "C3.32",
                )
            }
        },
        TargetType::Vehicle(_) => {}
    }
    if ammo == Ammo::He && ordnance.he_fp.is_none() {
        return no(format!("this {} has no HE FP", ordnance.label()), "C3.32");
    }
    Ok(())
}

/// The units of `target` a shot of `target_type` by `actor` may hit
/// (C3.31-C3.33, C3.4): the named vehicle; on the Infantry Target Type
/// every enemy unit there but AFVs (immune, C3.32); on the Area Target
/// Type every unit there, friendly ones too (C3.33). Units aboard a
/// vehicle are not targets of their own (Collateral attacks, D.8, are not
/// adjudicated). Refuses a declaration the rules forbid: a Vehicle target
/// that is no enemy vehicle in the hex or a motorcycle (C3.31), an enemy
/// AFV alone on the Infantry Target Type (C3.41).
pub fn targets(
    state: &GameState,
    actor: Side,
    target: Hex,
    target_type: TargetType,
) -> Result<Vec<UnitId>, RuleError> {
    let here: Vec<&Unit> = state.units_in(target).collect();
    match target_type {
        TargetType::Vehicle(v) => {
            let Some(u) = here.iter().find(|u| u.id == v) else {
                return Err(RuleError::new(
                    format!("unit {v} is not a unit in play in {target}"),
                    "C3.31",
                ));
            };
            let Some(veh) = u.vehicle() else {
                return Err(RuleError::new(
                    format!(
                        "{} is not a vehicle: the Vehicle Target Type fires at a vehicle",
                        u.name
                    ),
                    "C3.31",
                ));
            };
            if u.side == actor {
                return Err(RuleError::new(
                    format!("{} is your own vehicle", u.name),
                    "C3.31",
                ));
            }
            if veh.motorcycle {
                return Err(RuleError::new(
                    format!(
                        "{} is a motorcycle: never a Vehicle Target Type target",
                        u.name
                    ),
                    "C3.31",
                ));
            }
            Ok(vec![v])
        }
        TargetType::Infantry => {
            let enemy: Vec<&&Unit> = here.iter().filter(|u| u.side != actor).collect();
            let hit: Vec<UnitId> = enemy
                .iter()
                .filter(|u| kind_of(u) != TargetKind::Afv)
                .map(|u| u.id)
                .collect();
            if hit.is_empty() && !enemy.is_empty() {
                return Err(RuleError::new(
                    format!(
                        "the Infantry Target Type never attacks an AFV, and only AFVs are in {target}: use the Vehicle Target Type"
                    ),
                    "C3.41",
                ));
            }
            Ok(hit)
        }
        TargetType::Area => Ok(here.iter().map(|u| u.id).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::unit::{Suffix, ThColour};

    fn gun(mortar: bool, ammo: &[Ammo]) -> Ordnance {
        Ordnance {
            calibre_mm: 75,
            suffix: Suffix::None,
            colour: ThColour::Black,
            he_fp: Some(8),
            ammo: ammo.iter().copied().collect(),
            mortar,
            turreted: false,
            max_range: 30,
            multi_tk: false,
        }
    }

    #[test]
    fn c3_33_mortars_and_smoke_use_area_and_area_not_at_range_0() {
        let m = gun(true, &[Ammo::He]);
        assert!(check_declaration(&m, TargetType::Infantry, Ammo::He, 3).is_err());
        assert!(check_declaration(&m, TargetType::Area, Ammo::He, 3).is_ok());
        let g = gun(false, &[Ammo::He, Ammo::Wp, Ammo::Ap]);
        assert!(check_declaration(&g, TargetType::Infantry, Ammo::Wp, 3).is_err());
        assert!(check_declaration(&g, TargetType::Area, Ammo::Wp, 3).is_ok());
        let e = check_declaration(&g, TargetType::Area, Ammo::He, 0).unwrap_err();
        assert!(e.cite.contains(&"C3.33".to_string()));
        assert!(check_declaration(&g, TargetType::Area, Ammo::Ap, 3).is_err());
    }

    #[test]
    fn c3_32_infantry_target_type_fires_he() {
        let g = gun(false, &[Ammo::He, Ammo::Apcr, Ammo::Ap]);
        assert!(check_declaration(&g, TargetType::Infantry, Ammo::He, 3).is_ok());
        assert!(check_declaration(&g, TargetType::Infantry, Ammo::Apcr, 3).is_err());
        let e = check_declaration(&g, TargetType::Infantry, Ammo::Ap, 3).unwrap_err();
        assert!(e.reason.contains("C8.31"));
        let e = check_declaration(&g, TargetType::Infantry, Ammo::Heat, 3).unwrap_err();
        assert!(e.reason.contains("does not carry HEAT"));
    }
}
