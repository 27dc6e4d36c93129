//! Ordnance (C3) in words: the actions and events of `hexveil_asl::c3`.

use super::Narrator;
use hexveil_asl::b28::minefield::VehicleOutcome;
use hexveil_asl::board::hex::Hex;
use hexveil_asl::c3::covered_arc::CaEvent;
use hexveil_asl::c3::hit::{Aspect, HitOutcome};
use hexveil_asl::c3::ordnance::{Drm, OrdnanceEvent};
use hexveil_asl::model::action::TargetType;
use hexveil_asl::model::unit::{Ammo, UnitId};
use hexveil_asl::Action;

fn drms(list: &[Drm]) -> String {
    if list.is_empty() {
        return "no DRM".into();
    }
    list.iter()
        .map(|(what, v)| format!("{v:+} {what}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn aspect(a: Option<Aspect>) -> &'static str {
    match a {
        Some(Aspect::Turret) => " on the turret",
        Some(Aspect::Hull) => " on the hull",
        None => "",
    }
}

impl Narrator {
    pub(super) fn target_type(&self, t: TargetType) -> String {
        match t {
            TargetType::Vehicle(v) => format!("Vehicle Target Type at {}", self.name(v)),
            TargetType::Infantry => "Infantry Target Type".into(),
            TargetType::Area => "Area Target Type".into(),
        }
    }

    /// An ordnance action in words, if `a` is one.
    pub(super) fn ordnance_action(&self, a: &Action) -> Option<String> {
        Some(match a {
            Action::OrdnanceFire {
                gun,
                target,
                target_type,
                ammo,
                change_ca,
                extra_drm,
            } => self.shot(*gun, *target, *target_type, *ammo, *change_ca, *extra_drm),
            Action::ChangeCa { unit, ca } => {
                format!("turns {} to hexspine {ca} without firing", self.name(*unit))
            }
            Action::ChooseCa { unit, ca } => {
                format!("picks hexspine {ca} as the CA of {}", self.name(*unit))
            }
            _ => return None,
        })
    }

    fn shot(
        &self,
        gun: UnitId,
        target: Hex,
        target_type: TargetType,
        ammo: Ammo,
        change_ca: Option<hexveil_asl::board::hex::Spine>,
        extra_drm: i8,
    ) -> String {
        format!(
            "{} fires {ammo} at {target} on the {}{}{}",
            self.name(gun),
            self.target_type(target_type),
            change_ca.map_or(String::new(), |s| format!(", turning to {s}")),
            if extra_drm != 0 {
                format!(" with {extra_drm:+} DRM")
            } else {
                String::new()
            }
        )
    }

    /// An ordnance event in words.
    pub(super) fn ordnance(&self, e: &OrdnanceEvent) -> String {
        match e {
            OrdnanceEvent::Ca(CaEvent::Changed {
                unit,
                to,
                spines,
                to_fire,
                ..
            }) => format!(
                "{} turns {spines} hexspine(s) to {to}{}",
                self.name(*unit),
                if *to_fire {
                    " to fire"
                } else {
                    " (no move this Player Turn if in the PFPh)"
                }
            ),
            OrdnanceEvent::Ca(CaEvent::Chosen { unit, ca }) => {
                format!("the CA of {} runs from hexspine {ca}", self.name(*unit))
            }
            OrdnanceEvent::ToHit {
                gun,
                target,
                target_type,
                ammo,
                range,
                basic_th,
                modifications,
                modified_th,
                drm,
                coloured,
                white,
            } => format!(
                "{} fires {ammo} at {target} ({range} hexes, {}): Basic TH# {basic_th}{}, Modified TH# {modified_th}; {}; To Hit DR coloured {coloured} + white {white} = {}",
                self.name(*gun),
                self.target_type(*target_type),
                if modifications.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", drms(modifications))
                },
                drms(drm),
                coloured + white
            ),
            OrdnanceEvent::Target {
                unit,
                drm,
                final_dr,
                outcome,
            } => {
                let what = match outcome {
                    HitOutcome::Miss => "a miss".to_string(),
                    HitOutcome::Hit {
                        critical,
                        aspect: a,
                        improbable,
                    } => format!(
                        "{}{}{}",
                        if *critical { "a Critical Hit" } else { "a hit" },
                        aspect(*a),
                        if *improbable { " (Improbable Hit)" } else { "" }
                    ),
                };
                format!(
                    "{}: Final TH DR {final_dr} ({}): {what}",
                    self.name(*unit),
                    drms(drm)
                )
            }
            OrdnanceEvent::SubsequentDr { dr } => format!("subsequent dr {dr}"),
            OrdnanceEvent::MultipleHit { originals, used } => format!(
                "Multiple Hit: Effects DR {} and {}, the firer uses {used}",
                originals[0], originals[1]
            ),
            OrdnanceEvent::Effects {
                targets,
                fp,
                critical,
                original,
                drm,
                final_dr,
                result,
            } => format!(
                "{}{fp} FP vs {}: Effects DR {original} {drm:+} = {final_dr}: {result}",
                if *critical { "Critical Hit, " } else { "" },
                self.names_of(targets)
            ),
            OrdnanceEvent::VehicleLine {
                unit,
                fp,
                critical,
                final_dr,
                outcome,
            } => format!(
                "{}{} on the Vehicle line, {fp} FP, Final DR {final_dr}: {outcome:?}",
                if *critical { "Critical Hit: " } else { "" },
                self.name(*unit)
            ),
            OrdnanceEvent::ToKill {
                unit,
                from,
                basic_tk,
                hits,
                used,
                outcome,
            } => {
                let each: Vec<String> = hits
                    .iter()
                    .map(|h| {
                        if h.struck {
                            format!(
                                "{:?} {from:?} AF {}, Final TK# {}, TK DR {} + {} = {}: {:?}",
                                h.aspect,
                                h.af,
                                h.final_tk,
                                h.coloured,
                                h.white,
                                h.coloured + h.white,
                                h.outcome
                            )
                        } else {
                            format!("{:?}: no hit (Hull Down)", h.aspect)
                        }
                    })
                    .collect();
                format!(
                    "To Kill vs {} (Basic TK# {basic_tk}): {}{}; {}",
                    self.name(*unit),
                    each.join("; "),
                    if hits.len() > 1 {
                        format!("; the firer uses hit {}", used + 1)
                    } else {
                        String::new()
                    },
                    match outcome {
                        VehicleOutcome::NoEffect => "no effect".to_string(),
                        o => format!("{o:?}"),
                    }
                )
            }
            OrdnanceEvent::VehicleHit {
                unit,
                aspect: a,
                critical,
                hits,
            } => format!(
                "{} is hit{}{}{}",
                self.name(*unit),
                aspect(*a),
                if *critical {
                    " by a Critical Hit (Basic TK# doubled)"
                } else {
                    ""
                },
                if *hits > 1 {
                    format!(" ({hits} hits)")
                } else {
                    String::new()
                }
            ),
            OrdnanceEvent::GunDestroyed { gun, crew } => format!(
                "Critical Hit: {} is destroyed with its crew {}",
                self.name(*gun),
                self.names_of(crew)
            ),
            OrdnanceEvent::GunHit { gun } => {
                format!("{} is hit: no effect on a Gun under C3", self.name(*gun))
            }
        }
    }
}
