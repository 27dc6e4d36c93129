//! Whether a To Hit DR hits one target, and how: Improbable Hits (C3.6),
//! Critical Hits (C3.7), Multiple Hits (C3.8) and the location of a hit on
//! a vehicle (C3.9). Pure functions of the dice and the numbers.

use crate::model::action::TargetType;
use crate::model::unit::Ordnance;
use serde::{Deserialize, Serialize};

/// Where a hit strikes a vehicle (C3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Aspect {
    /// Turret or upper superstructure.
    Turret,
    /// Hull.
    Hull,
}

/// What one To Hit DR did to one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HitOutcome {
    /// A miss (or a hull hit on a Hull Down vehicle, C3.9).
    Miss,
    /// A hit.
    Hit {
        /// A Critical Hit (C3.7).
        critical: bool,
        /// Where it struck, against a vehicle (C3.9).
        aspect: Option<Aspect>,
        /// Obtained as an Improbable Hit (C3.6).
        improbable: bool,
    },
}

impl HitOutcome {
    /// Whether it hit.
    pub fn is_hit(self) -> bool {
        matches!(self, HitOutcome::Hit { .. })
    }

    /// Whether it is a Critical Hit.
    pub fn is_critical(self) -> bool {
        matches!(self, HitOutcome::Hit { critical: true, .. })
    }
}

/// The numbers of one target for one shot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judge {
    /// The Target Type used.
    pub target_type: TargetType,
    /// The coloured die of the Original TH DR.
    pub coloured: u8,
    /// The white die.
    pub white: u8,
    /// The total TH DRM that applies to this target.
    pub drm: i16,
    /// The Modified TH# (C3.3).
    pub modified_th: i16,
    /// The target is a vehicle (C3.9 applies).
    pub vehicle: bool,
    /// The vehicle is Hull Down to the firer.
    pub hull_down: bool,
}

impl Judge {
    /// The Original TH DR.
    pub fn original(&self) -> i16 {
        i16::from(self.coloured) + i16::from(self.white)
    }

    /// The Final TH DR.
    pub fn final_dr(&self) -> i16 {
        self.original() + self.drm
    }

    /// The lowest Final TH DR possible for this shot (an Original 2).
    pub fn lowest(&self) -> i16 {
        2 + self.drm
    }

    /// Even the lowest Final DR would miss: only an Improbable Hit (C3.6).
    pub fn improbable(&self) -> bool {
        self.lowest() > self.modified_th
    }

    /// Whether this target's result needs the shot's subsequent dr: an
    /// Original 2 that is an Improbable Hit (C3.6), that hits only as the
    /// lowest Final DR possible on the Vehicle or Area Target Type, or that
    /// is not by itself a CH on the Infantry Target Type (C3.7).
    pub fn needs_subsequent_dr(&self) -> bool {
        if self.original() != 2 {
            return false;
        }
        if self.improbable() {
            return true;
        }
        match self.target_type {
            TargetType::Infantry => 2 * self.final_dr() >= self.modified_th,
            _ => self.lowest() == self.modified_th,
        }
    }

    /// The outcome, given the shot's subsequent dr when
    /// [`Judge::needs_subsequent_dr`] says it is needed (`None` otherwise).
    pub fn outcome(&self, subsequent: Option<u8>) -> HitOutcome {
        let original = self.original();
        let sub = subsequent.unwrap_or(6);
        if self.improbable() {
            // C3.6: an Original 2, then dr 1 CH, 2 turret, 3 hull (not vs
            // HD); 4-6 miss. Hull and turret are both normal hits vs a
            // non-vehicle.
            if original != 2 {
                return HitOutcome::Miss;
            }
            let (critical, aspect) = match sub {
                1 => (true, self.aspect(true, None)),
                2 => (false, self.vehicle.then_some(Aspect::Turret)),
                3 if !(self.vehicle && self.hull_down) => {
                    (false, self.vehicle.then_some(Aspect::Hull))
                }
                _ => return HitOutcome::Miss,
            };
            return HitOutcome::Hit {
                critical,
                aspect,
                improbable: true,
            };
        }
        let fin = self.final_dr();
        if fin > self.modified_th {
            return HitOutcome::Miss;
        }
        let (critical, forced) = match self.target_type {
            // C3.7: Final < half the Modified TH#; or an Original 2 and a
            // subsequent dr of 1 or <= half the Modified TH#.
            TargetType::Infantry => {
                if 2 * fin < self.modified_th {
                    (true, None)
                } else if original == 2 {
                    let sub = i16::from(sub);
                    (sub == 1 || 2 * sub <= self.modified_th, None)
                } else {
                    (false, None)
                }
            }
            // C3.7: an Original 2, even vs HD; when only the lowest Final
            // DR possible hits, a subsequent dr 1 (else a normal hull hit,
            // or turret vs HD).
            _ => {
                if original != 2 {
                    (false, None)
                } else if self.lowest() == self.modified_th {
                    if sub == 1 {
                        (true, None)
                    } else {
                        let a = if self.hull_down {
                            Aspect::Turret
                        } else {
                            Aspect::Hull
                        };
                        (false, Some(a))
                    }
                } else {
                    (true, None)
                }
            }
        };
        let aspect = self.aspect(critical, forced);
        // C3.9: a hull hit on a Hull Down vehicle is no hit.
        if self.hull_down && aspect == Some(Aspect::Hull) {
            return HitOutcome::Miss;
        }
        HitOutcome::Hit {
            critical,
            aspect,
            improbable: false,
        }
    }

    /// C3.9: coloured < white strikes the turret, else the hull; a CH vs
    /// a HD target strikes the turret.
    fn aspect(&self, critical: bool, forced: Option<Aspect>) -> Option<Aspect> {
        if !self.vehicle {
            return None;
        }
        if critical && self.hull_down {
            return Some(Aspect::Turret);
        }
        if let Some(a) = forced {
            return Some(a);
        }
        Some(location(self.coloured, self.white))
    }
}

/// C3.9: the aspect a hit strikes from the Original TH DR's dice.
pub fn location(coloured: u8, white: u8) -> Aspect {
    if coloured < white {
        Aspect::Turret
    } else {
        Aspect::Hull
    }
}

/// C3.8: a 15-40mm Gun scoring a non-CH hit with Original doubles on the
/// Vehicle or Infantry Target Type has two hits; not an Improbable Hit,
/// not a Gun granted two or more TK DR per hit.
pub fn multiple_hits(
    ordnance: &Ordnance,
    target_type: TargetType,
    coloured: u8,
    white: u8,
    outcome: HitOutcome,
) -> bool {
    let qualifying_gun = (15..=40).contains(&ordnance.calibre_mm) && !ordnance.multi_tk;
    let qualifying_type = matches!(target_type, TargetType::Vehicle(_) | TargetType::Infantry);
    let plain_hit = matches!(
        outcome,
        HitOutcome::Hit {
            critical: false,
            improbable: false,
            ..
        }
    );
    qualifying_gun && qualifying_type && coloured == white && plain_hit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn itt(c: u8, w: u8, drm: i16, th: i16) -> Judge {
        Judge {
            target_type: TargetType::Infantry,
            coloured: c,
            white: w,
            drm,
            modified_th: th,
            vehicle: false,
            hull_down: false,
        }
    }

    #[test]
    fn c3_7_ex_infantry_target_type_critical_hits() {
        // C3.7 EX: Modified TH# 8, DRM +1: a CH only on an Original 2.
        for (c, w) in [(1, 1), (1, 2)] {
            let j = itt(c, w, 1, 8);
            let crit = j.outcome(None).is_critical();
            assert_eq!(crit, c + w == 2, "{c}+{w}");
        }
        // DRM 0: CH on an Original <= 3; DRM -1: CH on an Original <= 4.
        for (drm, max) in [(0, 3), (-1, 4)] {
            for orig in 2..=12u8 {
                let (c, w) = (1, orig - 1);
                if w > 6 {
                    continue;
                }
                let j = itt(c, w, drm, 8);
                assert!(!j.needs_subsequent_dr() || orig == 2);
                assert_eq!(
                    j.outcome(None).is_critical(),
                    orig <= max,
                    "drm {drm} orig {orig}"
                );
            }
        }
        // DRM +2: an Original 2 is a Final 4, not < 4: the subsequent dr
        // decides (1, or <= 4).
        let j = itt(1, 1, 2, 8);
        assert!(j.needs_subsequent_dr());
        assert!(j.outcome(Some(4)).is_critical());
        assert!(!j.outcome(Some(5)).is_critical());
        assert!(j.outcome(Some(5)).is_hit());
    }

    #[test]
    fn c3_6_ex_improbable_hit_needs_original_2_and_a_dr_1_to_3() {
        // C3.6 EX: Modified TH# 3, DRM +2: even an Original 2 (Final 4)
        // would miss.
        let j = itt(1, 1, 2, 3);
        assert!(j.improbable() && j.needs_subsequent_dr());
        for dr in 1..=6 {
            assert_eq!(j.outcome(Some(dr)).is_hit(), dr <= 3, "dr {dr}");
        }
        assert!(j.outcome(Some(1)).is_critical());
        assert!(!itt(1, 2, 2, 3).outcome(None).is_hit());
        // Vs a HD vehicle a 3 (hull) misses.
        let v = Judge {
            target_type: TargetType::Vehicle(crate::model::unit::UnitId(0)),
            vehicle: true,
            hull_down: true,
            ..j
        };
        assert!(!v.outcome(Some(3)).is_hit());
        assert_eq!(
            v.outcome(Some(2)),
            HitOutcome::Hit {
                critical: false,
                aspect: Some(Aspect::Turret),
                improbable: true
            }
        );
    }

    #[test]
    fn c3_7_vehicle_and_area_ch_on_original_2_and_the_lowest_dr_case() {
        let area = |c, w, drm, th| Judge {
            target_type: TargetType::Area,
            ..itt(c, w, drm, th)
        };
        assert!(area(1, 1, 0, 7).outcome(None).is_critical());
        assert!(!area(1, 2, 0, 7).outcome(None).is_critical());
        // Only the lowest Final DR hits: a CH needs a further dr 1.
        let j = area(1, 1, 5, 7);
        assert!(j.needs_subsequent_dr());
        assert!(j.outcome(Some(1)).is_critical());
        let h = j.outcome(Some(2));
        assert!(h.is_hit() && !h.is_critical());
    }

    #[test]
    fn c3_9_location_and_hull_down() {
        assert_eq!(location(2, 5), Aspect::Turret);
        assert_eq!(location(5, 2), Aspect::Hull);
        assert_eq!(location(3, 3), Aspect::Hull);
        let v = |c, w, hd| Judge {
            target_type: TargetType::Area,
            coloured: c,
            white: w,
            drm: 0,
            modified_th: 7,
            vehicle: true,
            hull_down: hd,
        };
        // C3.332 EX: vs a HD tank, only coloured < white hits.
        assert!(v(2, 4, true).outcome(None).is_hit());
        assert!(!v(4, 2, true).outcome(None).is_hit());
        assert!(v(4, 2, false).outcome(None).is_hit());
        // A CH vs HD always strikes the turret.
        assert_eq!(
            v(1, 1, true).outcome(None),
            HitOutcome::Hit {
                critical: true,
                aspect: Some(Aspect::Turret),
                improbable: false
            }
        );
    }

    #[test]
    fn c3_8_multiple_hits_only_small_guns_doubles_plain_hits() {
        let ord = |mm, multi_tk| Ordnance {
            calibre_mm: mm,
            suffix: crate::model::unit::Suffix::None,
            colour: crate::model::unit::ThColour::Black,
            he_fp: Some(2),
            ammo: Default::default(),
            mortar: false,
            turreted: false,
            max_range: 20,
            multi_tk,
        };
        let hit = HitOutcome::Hit {
            critical: false,
            aspect: None,
            improbable: false,
        };
        let crit = HitOutcome::Hit {
            critical: true,
            aspect: None,
            improbable: false,
        };
        let improbable = HitOutcome::Hit {
            critical: false,
            aspect: None,
            improbable: true,
        };
        let t = TargetType::Infantry;
        assert!(multiple_hits(&ord(37, false), t, 3, 3, hit));
        assert!(!multiple_hits(&ord(37, false), t, 3, 4, hit));
        assert!(!multiple_hits(&ord(37, false), t, 3, 3, crit));
        assert!(!multiple_hits(&ord(37, false), t, 1, 1, improbable));
        assert!(!multiple_hits(&ord(45, false), t, 3, 3, hit));
        assert!(!multiple_hits(&ord(12, false), t, 3, 3, hit));
        assert!(!multiple_hits(&ord(20, true), t, 3, 3, hit));
        assert!(!multiple_hits(&ord(20, false), TargetType::Area, 3, 3, hit));
    }
}
