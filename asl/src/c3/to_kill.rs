//! To Kill (C7, which the seeds do not contain): what a hit on the Vehicle
//! Target Type does to its vehicle, from data a league supplies (R12,
//! R77). C3 sends such hits to the TK tables (C3.3), doubles the Basic
//! TK# of a Critical Hit (C3.71, C3.72) and gives a Multiple Hit two TK DR
//! of which the firer uses one, the first also locating the second hit
//! (C3.8, C3.9).
//!
//! The data: `[tables.to_kill]` gives the Basic TK# by ammunition, calibre,
//! barrel suffix and range band (`data/to_kill.csv` ships the header only:
//! not found); the target's Armour Factors are vehicle data, `hull` and
//! `turret`, each `{ front, side, rear }` (an aspect without a value is
//! unarmored there: AF 0). The reading of C7, ruling R77: Final TK# =
//! Basic TK# (doubled for a CH) - the AF the hit struck; the TK DR is two
//! dice without DRM; a TK DR below the Final TK# eliminates the vehicle,
//! equal to it immobilizes it (Shock, C7.7, is not modelled), above it has
//! no effect. The aspect struck is the hull or turret of C3.9, seen from
//! the firer: front when the firer's hex is in the target's CA (C3.2),
//! rear when it is in the CA of the opposite hexspine, side otherwise.
//!
//! A shot that could need a number the data lacks (a Basic TK# row, a
//! turret AF, a facing to tell front from rear) is refused before its To
//! Hit DR ([`needs`], R72).

use crate::a::tables::{missing_cell, records};
use crate::board::hex::{Hex, Spine};
use crate::board::map::Map;
use crate::c3::covered_arc;
use crate::c3::hit::Aspect;
use crate::model::error::RuleError;
use crate::model::scenario::Scenario;
use crate::model::unit::{Ammo, HullArmor, Ordnance, Suffix, Unit};
use serde::{Deserialize, Serialize};

/// The name a scenario supplies the table under (`[tables.to_kill]`).
pub const NAME: &str = "to_kill";
/// Its file name, as refusals cite it.
pub const CSV: &str = "to_kill.csv";
const SRC: &str = include_str!("../../data/to_kill.csv");

/// One row: the Basic TK# of one gun and ammunition over a range band.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    ammo: Ammo,
    calibre_mm: u16,
    suffix: Suffix,
    range_min: u32,
    range_max: u32,
    basic_tk: u8,
}

/// The Basic TK# table a league supplies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToKillTable {
    rows: Vec<Row>,
}

fn ammo_of(s: &str) -> Option<Ammo> {
    [Ammo::He, Ammo::Ap, Ammo::Heat, Ammo::Apcr, Ammo::Apds]
        .into_iter()
        .find(|a| a.name() == s)
}

fn suffix_of(s: &str) -> Option<Suffix> {
    [Suffix::None, Suffix::Star, Suffix::L, Suffix::Ll]
        .into_iter()
        .find(|x| x.name() == s)
}

/// Reads a `to_kill.csv` text (`ammo,calibre_mm,suffix,range_min,
/// range_max,basic_tk`; ammo `AP`, `HE`, `HEAT`, `APCR`, `APDS`; suffix
/// empty, `*`, `L` or `LL`). Every cell of a row must be valid; an error
/// names the row and the column (R12). A table without rows is the data
/// not found.
pub fn parse(text: &str) -> Result<ToKillTable, RuleError> {
    let recs = records(CSV, text)?;
    let want = [
        "ammo",
        "calibre_mm",
        "suffix",
        "range_min",
        "range_max",
        "basic_tk",
    ];
    crate::a::tables::expect_header(CSV, &recs, &want)?;
    let mut rows = Vec::new();
    for (i, rec) in recs[1..].iter().enumerate() {
        let row = format!("{}", i + 1);
        let cell = |c: usize| rec.get(c).map(str::trim).unwrap_or("");
        let bad = |c: usize| crate::a::tables::bad_cell(CSV, &row, want[c], cell(c));
        let num = |c: usize| cell(c).parse::<u32>().map_err(|_| bad(c));
        let r = Row {
            ammo: ammo_of(cell(0)).ok_or_else(|| bad(0))?,
            calibre_mm: u16::try_from(num(1)?).map_err(|_| bad(1))?,
            suffix: suffix_of(cell(2)).ok_or_else(|| bad(2))?,
            range_min: num(3)?,
            range_max: num(4)?,
            basic_tk: u8::try_from(num(5)?).map_err(|_| bad(5))?,
        };
        if r.range_min > r.range_max {
            return Err(bad(4));
        }
        rows.push(r);
    }
    if rows.is_empty() {
        return Err(RuleError {
            reason: format!(
                "table {CSV} has no rows: the C7 To Kill numbers are not in the rules data; a league supplies them as [tables.{NAME}]"
            ),
            cite: vec!["C3.3".into(), "R12".into(), "R77".into()],
        });
    }
    Ok(ToKillTable { rows })
}

/// The To Kill table a scenario uses: its supplied one, or the shipped
/// file (no rows: an error naming the table).
pub fn table_of(scenario: &Scenario) -> Result<ToKillTable, RuleError> {
    parse(scenario.tables.csv(NAME).unwrap_or(SRC))
}

impl ToKillTable {
    /// The Basic TK# of `ord` firing `ammo` at `range` hexes, or an error
    /// naming the row the table lacks (R12).
    pub fn basic_tk(&self, ord: &Ordnance, ammo: Ammo, range: u32) -> Result<u8, RuleError> {
        self.rows
            .iter()
            .find(|r| {
                r.ammo == ammo
                    && r.calibre_mm == ord.calibre_mm
                    && r.suffix == ord.suffix
                    && (r.range_min..=r.range_max).contains(&range)
            })
            .map(|r| r.basic_tk)
            .ok_or_else(|| {
                let mut e = missing_cell(
                    CSV,
                    &format!("{} {} at range {range}", ammo.name(), ord.label()),
                    "basic_tk",
                );
                e.cite.push("R77".into());
                e
            })
    }
}

/// Which way a hit struck the target, seen from the firer (R77).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HitFrom {
    /// The firer is in the target's CA.
    Front,
    /// Neither front nor rear.
    Side,
    /// The firer is in the CA of the target's opposite hexspine.
    Rear,
}

/// The hexspine opposite `s`.
pub fn opposite(s: Spine) -> Spine {
    let i = Spine::ALL.iter().position(|x| *x == s).expect("a spine");
    Spine::ALL[(i + 3) % 6]
}

/// Where a shot from `firer` strikes a target in `target` facing `facing`.
pub fn hit_from(map: &Map, target: Hex, facing: Spine, firer: Hex) -> HitFrom {
    if covered_arc::in_ca(map, target, facing, firer) {
        HitFrom::Front
    } else if covered_arc::in_ca(map, target, opposite(facing), firer) {
        HitFrom::Rear
    } else {
        HitFrom::Side
    }
}

/// The AF a hit on `aspect` from `from` meets: the vehicle's hull or
/// turret data (an unarmored aspect 0; an unarmored vehicle 0 everywhere),
/// or `None` when an armored vehicle has no turret AF.
pub fn armour(target: &Unit, aspect: Aspect, from: HitFrom) -> Option<u8> {
    let v = target.vehicle()?;
    let Some(hull) = v.hull else {
        return Some(0);
    };
    let plate: HullArmor = match aspect {
        Aspect::Hull => hull,
        Aspect::Turret => v.turret?,
    };
    Some(match from {
        HitFrom::Front => plate.front,
        HitFrom::Side => plate.side.unwrap_or(0),
        HitFrom::Rear => plate.rear.unwrap_or(0),
    })
}

/// What one hit needs, judged before the To Hit DR: the Basic TK#, where
/// it strikes from and the vehicle's AF on both aspects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// The Basic TK# (before a CH doubles it).
    pub basic_tk: u8,
    /// Front, side or rear.
    pub from: HitFrom,
    /// The AF of a hull hit.
    pub hull_af: u8,
    /// The AF of a turret hit.
    pub turret_af: u8,
}

impl Needs {
    /// The AF of a hit on `aspect`.
    pub fn af(&self, aspect: Aspect) -> u8 {
        match aspect {
            Aspect::Hull => self.hull_af,
            Aspect::Turret => self.turret_af,
        }
    }
}

/// Everything a Vehicle Target Type hit on `target` could need (R72,
/// R77), or the refusal naming what is missing: the table and its row,
/// the target's facing (to tell front from rear), its turret AF.
#[allow(clippy::too_many_arguments)]
pub fn needs(
    scenario: &Scenario,
    state: &crate::model::state::GameState,
    ord: &Ordnance,
    ammo: Ammo,
    firer: Hex,
    target: &Unit,
    target_hex: Hex,
    range: u32,
) -> Result<Needs, RuleError> {
    let table = table_of(scenario)?;
    let basic_tk = table.basic_tk(ord, ammo, range)?;
    let armored = target.vehicle().is_some_and(|v| v.hull.is_some());
    let from = if !armored {
        HitFrom::Front
    } else {
        if range == 0 {
            return Err(RuleError::new(
                format!(
                    "{} is in the firer's hex: which aspect a To Kill hit strikes there is not adjudicated",
                    target.name
                ),
                "R77",
            ));
        }
        let facing = covered_arc::ca_of(state, target.id).map_err(|mut e| {
            e.reason = format!("a To Kill hit needs the target's facing: {}", e.reason);
            e.cite.push("R77".into());
            e
        })?;
        hit_from(&scenario.map, target_hex, facing, firer)
    };
    let af = |aspect: Aspect| {
        armour(target, aspect, from).ok_or_else(|| {
            RuleError::new(
                format!(
                    "{} has no turret AF (vehicle field turret): a turret hit's To Kill needs it",
                    target.name
                ),
                "R77",
            )
        })
    };
    Ok(Needs {
        basic_tk,
        from,
        hull_af: af(Aspect::Hull)?,
        turret_af: af(Aspect::Turret)?,
    })
}

/// C7 as R77 reads it: a TK DR below the Final TK# eliminates, equal to it
/// immobilizes, above it does nothing.
pub fn outcome(final_tk: i16, tk_dr: i16) -> crate::b28::minefield::VehicleOutcome {
    use crate::b28::minefield::VehicleOutcome as O;
    match tk_dr.cmp(&final_tk) {
        std::cmp::Ordering::Less => O::Eliminated,
        std::cmp::Ordering::Equal => O::Immobilized,
        std::cmp::Ordering::Greater => O::NoEffect,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c3_72_r77_outcomes_and_the_table_reader() {
        use crate::b28::minefield::VehicleOutcome as O;
        assert_eq!(outcome(8, 7), O::Eliminated);
        assert_eq!(outcome(8, 8), O::Immobilized);
        assert_eq!(outcome(8, 9), O::NoEffect);
        assert!(parse(SRC).unwrap_err().reason.contains("no rows"));
        let t =
            parse("ammo,calibre_mm,suffix,range_min,range_max,basic_tk\nAP,75,L,0,6,13\n").unwrap();
        let ord = Ordnance {
            calibre_mm: 75,
            suffix: Suffix::L,
            colour: crate::model::unit::ThColour::Black,
            he_fp: None,
            ammo: [Ammo::Ap].into_iter().collect(),
            mortar: false,
            turreted: true,
            max_range: 40,
            multi_tk: false,
        };
        assert_eq!(t.basic_tk(&ord, Ammo::Ap, 6).unwrap(), 13);
        let e = t.basic_tk(&ord, Ammo::Ap, 7).unwrap_err();
        assert!(e.reason.contains("AP 75L at range 7"), "{e}");
        let e = parse("ammo,calibre_mm,suffix,range_min,range_max,basic_tk\nXX,75,L,0,6,13\n")
            .unwrap_err();
        assert!(e.reason.contains("column ammo"), "{e}");
        assert_eq!(opposite(Spine::E), Spine::W);
        assert_eq!(opposite(Spine::NNE), Spine::SSW);
    }
}
