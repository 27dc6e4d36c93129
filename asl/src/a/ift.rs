//! The Infantry Fire Table (A7.3) and its Vehicle line (A7.308).
//!
//! Data: `core/data/ift.csv` and `core/data/ift_vehicle_line.csv`, loaded by
//! [`crate::a::tables`]. The column is the highest FP column not above the
//! attack's FP (36+ for 36 and more); Cowering (A7.9) shifts it left, by two
//! columns when Inexperienced Personnel take part (A19.33).

use crate::a::tables::{self, IftTable, IFT_COLUMNS, VEHICLE_LINE_CSV};
use crate::model::error::RuleError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A result read on the IFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IftResult {
    /// nKIA (A7.301).
    Kia(u8),
    /// K/n (A7.302).
    K(u8),
    /// nMC (A7.303).
    Mc(u8),
    /// NMC (A7.304).
    Nmc,
    /// PTC (A7.305).
    Ptc,
    /// No effect.
    NoEffect,
}

impl IftResult {
    /// Whether the result does anything to Personnel.
    pub fn has_effect(self) -> bool {
        self != IftResult::NoEffect
    }

    /// Whether the result is a KIA of any number (B28.42: any KIA
    /// immobilizes an AFV in an A-P minefield).
    pub fn is_kia(self) -> bool {
        matches!(self, IftResult::Kia(_))
    }
}

impl fmt::Display for IftResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IftResult::Kia(n) => write!(f, "{n}KIA"),
            IftResult::K(n) => write!(f, "K/{n}"),
            IftResult::Mc(n) => write!(f, "{n}MC"),
            IftResult::Nmc => f.write_str("NMC"),
            IftResult::Ptc => f.write_str("PTC"),
            IftResult::NoEffect => f.write_str("-"),
        }
    }
}

/// A string that is not an IFT result code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an IFT result code (nKIA, K/n, nMC, NMC, PTC or -)")]
pub struct BadIftCode(pub String);

impl std::str::FromStr for IftResult {
    type Err = BadIftCode;
    fn from_str(s: &str) -> Result<IftResult, BadIftCode> {
        let bad = || BadIftCode(s.to_string());
        let num = |d: &str| {
            d.parse::<u8>()
                .ok()
                .filter(|n| (1..=9).contains(n))
                .ok_or_else(bad)
        };
        let s = s.trim();
        match s {
            "-" => Ok(IftResult::NoEffect),
            "NMC" => Ok(IftResult::Nmc),
            "PTC" => Ok(IftResult::Ptc),
            _ => {
                if let Some(n) = s.strip_prefix("K/") {
                    Ok(IftResult::K(num(n)?))
                } else if let Some(n) = s.strip_suffix("KIA") {
                    Ok(IftResult::Kia(num(n)?))
                } else if let Some(n) = s.strip_suffix("MC") {
                    Ok(IftResult::Mc(num(n)?))
                } else {
                    Err(bad())
                }
            }
        }
    }
}

/// The index in [`IFT_COLUMNS`] of the column an attack of `fp` uses before
/// any shift: the highest column <= FP (A7.3). `None` for 0 FP (no attack).
pub fn column_index(fp: u8) -> Option<usize> {
    IFT_COLUMNS.iter().rposition(|&c| c <= fp)
}

/// The column actually used after a shift (negative = left, Cowering A7.9 /
/// A19.33). A shift past the 1 FP column stays on the 1 FP column, one
/// past 36+ stays on 36+. `None` for 0 FP.
pub fn shifted_column(fp: u8, column_shift: i8) -> Option<usize> {
    let base = column_index(fp)? as i16;
    Some((base + i16::from(column_shift)).clamp(0, IFT_COLUMNS.len() as i16 - 1) as usize)
}

/// The IFT result of an attack of `fp` at `final_dr`, with `column_shift`
/// columns of shift (negative = left: Cowering shifts -1, -2 with
/// Inexperienced Personnel, A7.9, A19.33). A Final DR <= 0 uses the `<=0`
/// row; >= 16 has no effect; 0 FP has no effect.
pub fn lookup(fp: u8, final_dr: i16, column_shift: i8) -> IftResult {
    lookup_in(tables::ift(), fp, final_dr, column_shift)
}

/// [`lookup`] over a given table.
pub fn lookup_in(table: &IftTable, fp: u8, final_dr: i16, column_shift: i8) -> IftResult {
    match shifted_column(fp, column_shift) {
        None => IftResult::NoEffect,
        Some(c) => table.cells[IftTable::row_of(final_dr)][c],
    }
}

/// What the Vehicle line does to an unarmored vehicle (A7.308).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VehicleLineResult {
    /// Final DR <= half the Kill Number: a Burning Wreck.
    BurningWreck,
    /// Final DR < Kill Number: eliminated.
    Eliminated,
    /// Final DR == Kill Number: immobilized.
    Immobilized,
    /// Final DR > Kill Number: no effect.
    NoEffect,
}

impl fmt::Display for VehicleLineResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VehicleLineResult::BurningWreck => "Burning Wreck",
            VehicleLineResult::Eliminated => "eliminated",
            VehicleLineResult::Immobilized => "immobilized",
            VehicleLineResult::NoEffect => "-",
        })
    }
}

/// The Vehicle line result of an attack of `fp` at `final_dr` (A7.308;
/// semantics per the header of `ift_vehicle_line.csv`). A column whose Kill
/// Number was not found is a [`RuleError`] naming the table, row and column
/// (R12); 0 FP is no effect.
pub fn vehicle_line(fp: u8, final_dr: i16) -> Result<VehicleLineResult, RuleError> {
    vehicle_line_in(tables::vehicle_line(), fp, final_dr)
}

/// [`vehicle_line`] on a given table (a scenario's supplied one, R12).
pub fn vehicle_line_in(
    table: &tables::VehicleLine,
    fp: u8,
    final_dr: i16,
) -> Result<VehicleLineResult, RuleError> {
    let Some(c) = column_index(fp) else {
        return Ok(VehicleLineResult::NoEffect);
    };
    let kill = table.kill[c].ok_or_else(|| {
        tables::missing_cell(VEHICLE_LINE_CSV, &IFT_COLUMNS[c].to_string(), "kill_number")
    })?;
    let k = i16::from(kill);
    Ok(if 2 * final_dr <= k {
        VehicleLineResult::BurningWreck
    } else if final_dr < k {
        VehicleLineResult::Eliminated
    } else if final_dr == k {
        VehicleLineResult::Immobilized
    } else {
        VehicleLineResult::NoEffect
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a7_3_column_is_highest_not_above_fp() {
        assert_eq!(column_index(0), None);
        assert_eq!(column_index(1), Some(0));
        assert_eq!(column_index(3), Some(1));
        assert_eq!(column_index(11), Some(4));
        assert_eq!(column_index(35), Some(9));
        assert_eq!(column_index(36), Some(10));
        assert_eq!(column_index(200), Some(10));
    }

    #[test]
    fn a7_3_lookup_spot_checks() {
        assert_eq!(lookup(8, 4, 0), IftResult::Mc(2));
        assert_eq!(lookup(11, 4, 0), IftResult::Mc(2));
        assert_eq!(lookup(36, 0, 0), IftResult::Kia(7));
        assert_eq!(lookup(40, -5, 0), IftResult::Kia(7));
        assert_eq!(lookup(4, 3, 0), IftResult::Mc(2));
        assert_eq!(lookup(0, 0, 0), IftResult::NoEffect);
    }

    #[test]
    fn a7_3_final_dr_at_or_below_zero_uses_the_le0_row() {
        for dr in [-7, -1, 0] {
            assert_eq!(lookup(1, dr, 0), IftResult::Kia(1));
            assert_eq!(lookup(12, dr, 0), IftResult::Kia(3));
        }
        assert_eq!(lookup(1, 1, 0), IftResult::K(1));
    }

    #[test]
    fn a7_3_final_dr_16_or_more_has_no_effect() {
        for fp in [1, 8, 30, 36, 99] {
            for dr in [16, 17, 25] {
                assert_eq!(lookup(fp, dr, 0), IftResult::NoEffect);
            }
        }
        // ... while 15 on 36+ still pins.
        assert_eq!(lookup(36, 15, 0), IftResult::Ptc);
    }

    #[test]
    fn a7_9_cowering_shifts_one_column_left() {
        // 8 FP DR 6 = 1MC; one left (6 FP) DR 6 = 1MC; 12 FP DR 5 = 2MC,
        // one left (8 FP) = 2MC, two left (6 FP) = 1MC.
        assert_eq!(lookup(12, 5, 0), IftResult::Mc(2));
        assert_eq!(lookup(12, 4, -1), IftResult::Mc(2));
        assert_eq!(lookup(12, 3, 0), IftResult::K(3));
        assert_eq!(lookup(12, 3, -1), IftResult::K(2));
    }

    #[test]
    fn a19_33_inexperienced_cowering_shifts_two_columns_left() {
        // 12 FP DR 3: K/3; -1 -> 8 FP K/2; -2 -> 6 FP K/2; DR 2: 1KIA, -2 -> 6FP 1KIA,
        // 16 FP DR 3: 1KIA; -2 -> 8 FP: K/2.
        assert_eq!(lookup(16, 3, 0), IftResult::Kia(1));
        assert_eq!(lookup(16, 3, -1), IftResult::K(3));
        assert_eq!(lookup(16, 3, -2), IftResult::K(2));
        assert_eq!(shifted_column(16, -2), Some(4));
    }

    #[test]
    fn a7_9_shift_never_leaves_the_table() {
        assert_eq!(shifted_column(1, -2), Some(0));
        assert_eq!(lookup(1, 4, -2), IftResult::Nmc);
    }

    fn severity(r: IftResult) -> u16 {
        match r {
            IftResult::Kia(n) => 100 + u16::from(n),
            IftResult::K(n) => 50 + u16::from(n),
            IftResult::Mc(n) => 10 + u16::from(n),
            IftResult::Nmc => 10,
            IftResult::Ptc => 5,
            IftResult::NoEffect => 0,
        }
    }

    /// A7.3 data sanity: a higher Final DR is never worse for the target,
    /// more FP never better.
    #[test]
    fn a7_3_table_is_monotonic() {
        let t = tables::ift();
        for r in 0..tables::IFT_ROWS {
            for c in 0..IFT_COLUMNS.len() {
                if r + 1 < tables::IFT_ROWS {
                    assert!(
                        severity(t.cells[r][c]) >= severity(t.cells[r + 1][c]),
                        "row {r} col {c}"
                    );
                }
                if c + 1 < IFT_COLUMNS.len() {
                    assert!(
                        severity(t.cells[r][c]) <= severity(t.cells[r][c + 1]),
                        "row {r} col {c}"
                    );
                }
            }
        }
    }

    #[test]
    fn display_and_parse_round_trip() {
        let all = [
            (IftResult::Kia(2), "2KIA"),
            (IftResult::K(1), "K/1"),
            (IftResult::Mc(1), "1MC"),
            (IftResult::Nmc, "NMC"),
            (IftResult::Ptc, "PTC"),
            (IftResult::NoEffect, "-"),
        ];
        for (r, s) in all {
            assert_eq!(r.to_string(), s);
            assert_eq!(s.parse::<IftResult>().unwrap(), r);
        }
        assert!("3XX".parse::<IftResult>().is_err());
        assert!("0KIA".parse::<IftResult>().is_err());
    }

    #[test]
    fn a7_308_vehicle_line_known_columns() {
        // 8 FP column Kill Number 7: <= 3 Burning Wreck, 4..6 eliminated,
        // 7 immobilized, 8 no effect.
        assert_eq!(vehicle_line(8, 3).unwrap(), VehicleLineResult::BurningWreck);
        assert_eq!(vehicle_line(9, 4).unwrap(), VehicleLineResult::Eliminated);
        assert_eq!(vehicle_line(8, 6).unwrap(), VehicleLineResult::Eliminated);
        assert_eq!(vehicle_line(8, 7).unwrap(), VehicleLineResult::Immobilized);
        assert_eq!(vehicle_line(8, 8).unwrap(), VehicleLineResult::NoEffect);
        // 4 FP column Kill Number 5.
        assert_eq!(vehicle_line(5, 2).unwrap(), VehicleLineResult::BurningWreck);
        assert_eq!(vehicle_line(4, 5).unwrap(), VehicleLineResult::Immobilized);
    }

    #[test]
    fn r12_vehicle_line_missing_kill_number_is_an_error() {
        let e = vehicle_line(36, 3).unwrap_err();
        assert!(e.reason.contains("ift_vehicle_line.csv"), "{e}");
        assert!(e.reason.contains("row 36"), "{e}");
        assert!(e.reason.contains("kill_number"), "{e}");
        assert!(vehicle_line(12, 3).is_err());
    }
}
