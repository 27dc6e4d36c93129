//! The To Hit Table's numbers (C3.3, C4, C5-C6): Basic TH# by Target Type,
//! colour and range band, the Gun and Ammo modifications, and the values
//! of the TH DRM cases.
//!
//! Read from `to_hit.csv`, `to_hit_modifications.csv` and `to_hit_drm.csv`:
//! the shipped ones (`asl/data/`, partial), or the ones a scenario
//! supplies (`[tables.to_hit]` ..., [`hexveil_core::tables`]), which
//! replace the shipped table whole. A cell a shot needs and the table lacks
//! is a refusal naming the table, the row and the column (R12), raised
//! before any die is rolled. Nothing is interpolated.
//!
//! A supplied table keeps the shipped header. Rows are found as follows:
//! `to_hit.csv` by `target_type` (`vehicle`, `infantry`, `area`), `colour`
//! (`red`, `black`) and `range_band` (one of [`RANGE_BANDS`], or `all`);
//! `to_hit_modifications.csv` by `modification` (`L`, `LL`, `star(*)`,
//! `<=57mm`, `<=40mm`, `APCR/APDS`) and `range_band` (a band, `all`, or
//! `other` for every band without its own row); `to_hit_drm.csv` by `case`
//! and a phrase of its `condition` ([`Case`]).

use crate::a::tables::{bad_cell, missing_cell, records};
use crate::model::error::RuleError;
use crate::model::scenario::Scenario;
use crate::model::unit::{Ammo, Ordnance, Suffix, ThColour};
use std::borrow::Cow;

/// File name of the Basic TH# table.
pub const TO_HIT_CSV: &str = "to_hit.csv";
/// File name of the Gun and Ammo modifications.
pub const MODIFICATIONS_CSV: &str = "to_hit_modifications.csv";
/// File name of the TH DRM cases.
pub const DRM_CSV: &str = "to_hit_drm.csv";

/// The names a scenario supplies these tables under (`[tables.<name>]`).
pub const SUPPLIED_NAMES: [&str; 3] = ["to_hit", "to_hit_modifications", "to_hit_drm"];

const TO_HIT_SRC: &str = include_str!("../../data/to_hit.csv");
const MODIFICATIONS_SRC: &str = include_str!("../../data/to_hit_modifications.csv");
const DRM_SRC: &str = include_str!("../../data/to_hit_drm.csv");

/// The range bands of the printed table, nearest first (C3.3 chart).
pub const RANGE_BANDS: [&str; 10] = [
    "0", "1", "2", "3-6", "7-12", "13-18", "19-24", "25-30", "31-36", "37+",
];

/// The band a range in hexes falls in.
pub fn range_band(range: u32) -> &'static str {
    match range {
        0 => "0",
        1 => "1",
        2 => "2",
        3..=6 => "3-6",
        7..=12 => "7-12",
        13..=18 => "13-18",
        19..=24 => "19-24",
        25..=30 => "25-30",
        31..=36 => "31-36",
        _ => "37+",
    }
}

/// A TH DRM case the engine derives itself, with the row it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// A: first hexspine of a CA change to fire (non-turreted).
    CaFirst,
    /// A: each further hexspine.
    CaEach,
    /// A: multiplier when the firer is in woods or a building.
    CaWoodsBuilding,
    /// A: a turreted weapon's CA change.
    CaTurreted,
    /// B: firing in the AFPh.
    AdvancingFire,
    /// D: the firer (its manning Infantry) is pinned.
    Pinned,
    /// E: target in the firer's own hex.
    RangeZero,
    /// K: target concealed.
    Concealed,
    /// L: Point Blank at range 1.
    PointBlank1,
    /// L: Point Blank at range 2.
    PointBlank2,
    /// N: Acquisition (first / further consecutive shot).
    Acquisition,
}

impl Case {
    /// The `case` column and a phrase of the `condition` column that find
    /// its row.
    pub fn row(self) -> (&'static str, &'static str) {
        match self {
            Case::CaFirst => ("A", "first hexspine"),
            Case::CaEach => ("A", "each additional hexspine"),
            Case::CaWoodsBuilding => ("A", "woods or building"),
            Case::CaTurreted => ("A", "turreted weapon"),
            Case::AdvancingFire => ("B", "AFPh"),
            Case::Pinned => ("D", "pinned"),
            Case::RangeZero => ("E", "range 0"),
            Case::Concealed => ("K", "concealed"),
            Case::PointBlank1 => ("L", "range 1"),
            Case::PointBlank2 => ("L", "range 2"),
            Case::Acquisition => ("N", "Acquisition"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct BasicRow {
    target_type: String,
    colour: String,
    band: String,
    value: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ModRow {
    modification: String,
    band: String,
    value: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct DrmRow {
    case: String,
    condition: String,
    value: String,
}

/// The three To Hit tables of one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToHitTables {
    basic: Vec<BasicRow>,
    mods: Vec<ModRow>,
    drm: Vec<DrmRow>,
}

/// The cells of a header row, trimmed.
fn header(table: &str, rec: Option<&csv::StringRecord>, want: &[&str]) -> Result<(), RuleError> {
    let got: Vec<String> = rec
        .map(|r| r.iter().map(|c| c.trim().to_string()).collect())
        .unwrap_or_default();
    for (i, w) in want.iter().enumerate() {
        if got.get(i).map(String::as_str) != Some(*w) {
            return Err(RuleError::new(
                format!(
                    "table {table}: column {} must be {w:?} (header {:?})",
                    i + 1,
                    got
                ),
                "R12",
            ));
        }
    }
    Ok(())
}

fn cell(r: &csv::StringRecord, i: usize) -> String {
    r.get(i).unwrap_or("").trim().to_string()
}

/// Parses a signed whole number (`+1`, `-2`, `8`, `0`) at the start of a
/// cell (`+2 (x2 = +4 in woods)` reads +2).
fn leading_number(raw: &str) -> Option<i8> {
    let t = raw.trim();
    let end = t
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || (*i == 0 && (*c == '+' || *c == '-'))))
        .map_or(t.len(), |(i, _)| i);
    t[..end].trim_start_matches('+').parse().ok()
}

impl ToHitTables {
    /// Parses the three tables' texts.
    pub fn parse(basic: &str, mods: &str, drm: &str) -> Result<ToHitTables, RuleError> {
        let recs = records(TO_HIT_CSV, basic)?;
        header(
            TO_HIT_CSV,
            recs.first(),
            &["target_type", "colour", "range_band", "basic_th"],
        )?;
        let basic = recs
            .iter()
            .skip(1)
            .map(|r| BasicRow {
                target_type: cell(r, 0),
                colour: cell(r, 1),
                band: cell(r, 2),
                value: cell(r, 3),
            })
            .collect();
        let recs = records(MODIFICATIONS_CSV, mods)?;
        header(
            MODIFICATIONS_CSV,
            recs.first(),
            &["modification", "range_band", "value"],
        )?;
        let mods = recs
            .iter()
            .skip(1)
            .map(|r| ModRow {
                modification: cell(r, 0),
                band: cell(r, 1),
                value: cell(r, 2),
            })
            .collect();
        let recs = records(DRM_CSV, drm)?;
        header(DRM_CSV, recs.first(), &["case", "condition", "value"])?;
        let drm = recs
            .iter()
            .skip(1)
            .map(|r| DrmRow {
                case: cell(r, 0),
                condition: cell(r, 1),
                value: cell(r, 2),
            })
            .collect();
        let t = ToHitTables { basic, mods, drm };
        t.check_values()?;
        Ok(t)
    }

    /// Every non-empty Basic TH# and modification is a number.
    fn check_values(&self) -> Result<(), RuleError> {
        for r in &self.basic {
            if !r.value.is_empty() && leading_number(&r.value).is_none() {
                let row = format!("{} {} {}", r.target_type, r.colour, r.band);
                return Err(bad_cell(TO_HIT_CSV, &row, "basic_th", &r.value));
            }
        }
        for r in &self.mods {
            if !r.value.is_empty() && leading_number(&r.value).is_none() {
                let row = format!("{} {}", r.modification, r.band);
                return Err(bad_cell(MODIFICATIONS_CSV, &row, "value", &r.value));
            }
        }
        Ok(())
    }

    /// The shipped tables (partial: many cells not found).
    pub fn shipped() -> &'static ToHitTables {
        static T: std::sync::OnceLock<ToHitTables> = std::sync::OnceLock::new();
        T.get_or_init(|| {
            ToHitTables::parse(TO_HIT_SRC, MODIFICATIONS_SRC, DRM_SRC)
                .expect("asl/data/to_hit*.csv parse (tested)")
        })
    }

    /// The tables of a scenario: each supplied one in place of the shipped
    /// one.
    pub fn of(scenario: &Scenario) -> Result<Cow<'static, ToHitTables>, RuleError> {
        let t = &scenario.tables;
        if SUPPLIED_NAMES.iter().all(|n| t.csv(n).is_none()) {
            return Ok(Cow::Borrowed(ToHitTables::shipped()));
        }
        ToHitTables::parse(
            t.csv("to_hit").unwrap_or(TO_HIT_SRC),
            t.csv("to_hit_modifications").unwrap_or(MODIFICATIONS_SRC),
            t.csv("to_hit_drm").unwrap_or(DRM_SRC),
        )
        .map(Cow::Owned)
    }

    /// The Basic TH# (C3.3): Area is red for everyone.
    pub fn basic_th(
        &self,
        target_type: &str,
        colour: ThColour,
        range: u32,
    ) -> Result<i8, RuleError> {
        let colour = if target_type == "area" {
            ThColour::Red
        } else {
            colour
        };
        let band = range_band(range);
        let row = format!(
            "target_type {target_type}, colour {}, range_band {band}",
            colour.name()
        );
        let found = self
            .basic
            .iter()
            .filter(|r| r.target_type == target_type && r.colour == colour.name())
            .find(|r| r.band == band)
            .or_else(|| {
                self.basic.iter().find(|r| {
                    r.target_type == target_type && r.colour == colour.name() && r.band == "all"
                })
            });
        match found {
            Some(r) if !r.value.is_empty() => leading_number(&r.value)
                .ok_or_else(|| bad_cell(TO_HIT_CSV, &row, "basic_th", &r.value)),
            _ => Err(missing_cell(TO_HIT_CSV, &row, "basic_th")),
        }
    }

    /// One Gun or Ammo modification at a range (C4).
    pub fn modification(&self, name: &str, range: u32) -> Result<i8, RuleError> {
        let band = range_band(range);
        let rows: Vec<&ModRow> = self
            .mods
            .iter()
            .filter(|r| r.modification == name)
            .collect();
        let found = rows
            .iter()
            .find(|r| r.band == band)
            .or_else(|| rows.iter().find(|r| r.band == "all"))
            .or_else(|| rows.iter().find(|r| r.band == "other"));
        let row = format!("modification {name}, range_band {band}");
        match found {
            Some(r) if !r.value.is_empty() => leading_number(&r.value)
                .ok_or_else(|| bad_cell(MODIFICATIONS_CSV, &row, "value", &r.value)),
            _ => Err(missing_cell(MODIFICATIONS_CSV, &row, "value")),
        }
    }

    /// Which modifications apply to a weapon firing `ammo` (C4.1-C4.5).
    pub fn modifications_of(ordnance: &Ordnance, ammo: Ammo) -> Vec<&'static str> {
        let mut out = Vec::new();
        match ordnance.suffix {
            Suffix::None => {}
            Suffix::Star => out.push("star(*)"),
            Suffix::L => out.push("L"),
            Suffix::Ll => out.push("LL"),
        }
        if ordnance.calibre_mm <= 57 {
            out.push("<=57mm");
        }
        if ordnance.calibre_mm <= 40 {
            out.push("<=40mm");
        }
        if matches!(ammo, Ammo::Apcr | Ammo::Apds) {
            out.push("APCR/APDS");
        }
        out
    }

    fn drm_row(&self, case: Case) -> Result<&DrmRow, RuleError> {
        let (c, phrase) = case.row();
        let lower = phrase.to_lowercase();
        self.drm
            .iter()
            .find(|r| r.case == c && r.condition.to_lowercase().contains(&lower))
            .ok_or_else(|| missing_cell(DRM_CSV, &format!("case {c} ({phrase})"), "value"))
    }

    /// A case's DRM: the signed number its value starts with.
    pub fn drm(&self, case: Case) -> Result<i8, RuleError> {
        let r = self.drm_row(case)?;
        let (c, phrase) = case.row();
        leading_number(&r.value)
            .ok_or_else(|| missing_cell(DRM_CSV, &format!("case {c} ({phrase})"), "value"))
    }

    /// A multiplier case (`x2`).
    pub fn drm_multiplier(&self, case: Case) -> Result<i8, RuleError> {
        let r = self.drm_row(case)?;
        let (c, phrase) = case.row();
        r.value
            .trim()
            .strip_prefix('x')
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| missing_cell(DRM_CSV, &format!("case {c} ({phrase})"), "value"))
    }

    /// A case with a first and a further value (`-1 / -2`).
    pub fn drm_pair(&self, case: Case) -> Result<(i8, i8), RuleError> {
        let r = self.drm_row(case)?;
        let (c, phrase) = case.row();
        let mut parts = r.value.split('/').map(leading_number);
        match (parts.next().flatten(), parts.next().flatten()) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(missing_cell(
                DRM_CSV,
                &format!("case {c} ({phrase})"),
                "value",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c3_3_shipped_cells_found_and_missing_ones_named() {
        let t = ToHitTables::shipped();
        assert_eq!(t.basic_th("infantry", ThColour::Black, 4), Ok(8));
        assert_eq!(t.basic_th("infantry", ThColour::Red, 8), Ok(6));
        assert_eq!(t.basic_th("area", ThColour::Black, 4), Ok(7));
        let e = t.basic_th("vehicle", ThColour::Black, 4).unwrap_err();
        assert!(e.reason.contains("to_hit.csv"), "{e:?}");
        assert!(e
            .reason
            .contains("target_type vehicle, colour black, range_band 3-6"));
        assert!(e.reason.contains("basic_th"));
        assert_eq!(t.modification("L", 14), Ok(1));
        assert_eq!(t.modification("<=57mm", 28), Ok(-2));
        let e = t.modification("LL", 5).unwrap_err();
        assert!(
            e.reason.contains("modification LL, range_band 3-6"),
            "{e:?}"
        );
        assert_eq!(t.drm(Case::CaFirst), Ok(3));
        assert_eq!(t.drm(Case::CaEach), Ok(1));
        assert_eq!(t.drm_multiplier(Case::CaWoodsBuilding), Ok(2));
        assert_eq!(t.drm(Case::PointBlank1), Ok(-2));
        assert_eq!(t.drm(Case::PointBlank2), Ok(-1));
        assert_eq!(t.drm_pair(Case::Acquisition), Ok((-1, -2)));
        assert_eq!(t.drm(Case::RangeZero), Ok(2));
        assert_eq!(t.drm(Case::AdvancingFire), Ok(2));
        let e = t.drm(Case::CaTurreted).unwrap_err();
        assert!(
            e.reason.contains("to_hit_drm.csv") && e.reason.contains("case A (turreted weapon)")
        );
    }

    #[test]
    fn c3_3_range_bands() {
        let bands: Vec<&str> = [0, 1, 2, 3, 6, 7, 12, 13, 18, 19, 24, 25, 30, 31, 36, 37, 99]
            .into_iter()
            .map(range_band)
            .collect();
        assert_eq!(
            bands,
            [
                "0", "1", "2", "3-6", "3-6", "7-12", "7-12", "13-18", "13-18", "19-24", "19-24",
                "25-30", "25-30", "31-36", "31-36", "37+", "37+"
            ]
        );
    }

    #[test]
    fn r12_a_supplied_table_must_keep_the_header_and_hold_numbers() {
        let e = ToHitTables::parse("a,b,c,d\n", MODIFICATIONS_SRC, DRM_SRC).unwrap_err();
        assert!(e.reason.contains("to_hit.csv") && e.reason.contains("target_type"));
        let e = ToHitTables::parse(
            "target_type,colour,range_band,basic_th\ninfantry,black,1,eight\n",
            MODIFICATIONS_SRC,
            DRM_SRC,
        )
        .unwrap_err();
        assert!(e.reason.contains("infantry black 1") && e.reason.contains("eight"));
    }
}
