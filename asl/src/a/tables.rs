//! Rules-data tables of the fire and ELR rules, read from `core/data/*.csv`.
//!
//! Each CSV is compiled in with `include_str!` and parsed once (`OnceLock`).
//! Lines starting with `#` carry the sources and confidence of the data and
//! are skipped. A cell the rules need but the data leaves empty is a
//! [`RuleError`] that names the table, the row and the column (R12): the
//! engine never guesses or interpolates a value.

use crate::a::ift::IftResult;
use crate::model::error::RuleError;
use crate::model::unit::{Class, InfantrySize, Strength};
use std::sync::OnceLock;

/// File name of the Infantry Fire Table data.
pub const IFT_CSV: &str = "ift.csv";
/// File name of the IFT Vehicle line data.
pub const VEHICLE_LINE_CSV: &str = "ift_vehicle_line.csv";
/// File name of the ELR Replacement / Casualty Reduction data.
pub const ELR_CSV: &str = "elr_replacement.csv";

const IFT_SRC: &str = include_str!("../../data/ift.csv");
const VEHICLE_LINE_SRC: &str = include_str!("../../data/ift_vehicle_line.csv");
const ELR_SRC: &str = include_str!("../../data/elr_replacement.csv");

/// The FP columns of the IFT (A7.3), left to right; the last one is 36+.
pub const IFT_COLUMNS: [u8; 11] = [1, 2, 4, 6, 8, 12, 16, 20, 24, 30, 36];

/// Number of result rows of the IFT: `<=0`, 1..=15 and `>=16`.
pub const IFT_ROWS: usize = 17;

/// The IFT: `cells[row][column]`, row 0 is Final DR <= 0, row 16 is Final
/// DR >= 16, columns as in [`IFT_COLUMNS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IftTable {
    /// The results, by row then column.
    pub cells: [[IftResult; 11]; IFT_ROWS],
}

impl IftTable {
    /// The row index of a Final DR: <= 0 uses the `<=0` row, >= 16 the
    /// `>=16` row (no effect).
    pub fn row_of(final_dr: i16) -> usize {
        final_dr.clamp(0, 16) as usize
    }
}

/// The Vehicle line (A7.308): the Kill Number of each FP column, `None`
/// where the data was not found (R12).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VehicleLine {
    /// Kill Number per column of [`IFT_COLUMNS`].
    pub kill: [Option<u8>; 11],
}

/// What replaces a unit that fails a MC beyond its ELR (A19.13).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplacedBy {
    /// One broken unit of this Strength Factor, same size.
    One(Strength),
    /// A squad with an underscored Morale Factor: two broken HS of this
    /// Strength Factor (the `2x` prefix).
    TwoHalfSquads(Strength),
    /// No lower unit: broken and Disrupted unless exempt (`DIS`, A19.12).
    Disrupted,
}

/// What Casualty Reduction turns a unit into (A7.302).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReducedTo {
    /// A half-squad of this Strength Factor.
    HalfSquad(Strength),
    /// Eliminated (`ELM`).
    Eliminated,
}

/// One row of `elr_replacement.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElrRow {
    /// 1-based data row number in the file (comment lines not counted), for
    /// error messages.
    pub row: usize,
    /// Nationality, e.g. `German`.
    pub nationality: String,
    /// The unit's Strength Factor.
    pub unit: Strength,
    /// Squad or half-squad.
    pub size: InfantrySize,
    /// Troop class; `None` for classes the engine has no [`Class`] for
    /// (Partisan).
    pub class: Option<Class>,
    /// Whether the Morale Factor is underscored.
    pub underscored: bool,
    /// The ELR Replacement (`replaced_by`).
    pub replaced_by: ReplacedBy,
    /// The Casualty Reduction result (`red_to`).
    pub red_to: ReducedTo,
    /// Replacement under an SSR ELR <= 4 for underscored units (A19.132).
    pub ssr_elr_le4_replaced_by: Option<Strength>,
}

/// The ELR Replacement table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElrTable {
    /// Every row, in file order.
    pub rows: Vec<ElrRow>,
}

impl ElrTable {
    /// The row of a unit: matched on nationality, Strength Factor and size;
    /// when the table has several such rows (it does for a few Japanese and
    /// Chinese units) the one of the unit's class wins, else the first.
    pub fn find(
        &self,
        nationality: &str,
        unit: Strength,
        size: InfantrySize,
        class: Option<Class>,
    ) -> Option<&ElrRow> {
        let mut matching = self
            .rows
            .iter()
            .filter(|r| r.nationality == nationality && r.unit == unit && r.size == size);
        let first = matching.next()?;
        if first.class == class || class.is_none() {
            return Some(first);
        }
        Some(matching.find(|r| r.class == class).unwrap_or(first))
    }
}

/// Splits a CSV text into its data records (header first), skipping `#`
/// lines.
pub fn records(table: &str, src: &str) -> Result<Vec<csv::StringRecord>, RuleError> {
    let body: String = src
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(false)
        .from_reader(body.as_bytes());
    reader
        .records()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| RuleError::new(format!("table {table} is not valid CSV: {e}"), "R12"))
}

/// Checks that the first record of `recs` (a table's header) is exactly
/// `want`, or the error naming the header the table must have (R12).
pub fn expect_header(
    table: &str,
    recs: &[csv::StringRecord],
    want: &[&str],
) -> Result<(), RuleError> {
    let header: Vec<&str> = recs
        .first()
        .map(|h| h.iter().map(str::trim).collect())
        .unwrap_or_default();
    if header != want {
        return Err(missing_cell(table, "header", &want.join(",")));
    }
    Ok(())
}

/// The error for an empty or unreadable cell (R12).
pub fn missing_cell(table: &str, row: &str, column: &str) -> RuleError {
    RuleError::new(
        format!("table {table}: row {row}, column {column} has no value (the data was not found; a league may supply it)"),
        "R12",
    )
}

/// The error for a cell whose value is not valid (R12).
pub fn bad_cell(table: &str, row: &str, column: &str, value: &str) -> RuleError {
    RuleError::new(
        format!(
            "table {table}: row {row}, column {column} holds {value:?}, which is not a valid value"
        ),
        "R12",
    )
}

/// Parses the IFT text (exposed for tests of the R12 errors).
pub fn parse_ift(src: &str) -> Result<IftTable, RuleError> {
    let recs = records(IFT_CSV, src)?;
    let (header, rows) = recs
        .split_first()
        .ok_or_else(|| missing_cell(IFT_CSV, "header", "final_dr"))?;
    for (i, fp) in IFT_COLUMNS.iter().enumerate() {
        let want = format!("fp_{fp}");
        if header.get(i + 1) != Some(want.as_str()) {
            return Err(missing_cell(IFT_CSV, "header", &want));
        }
    }
    let row_names: Vec<String> = std::iter::once("<=0".to_string())
        .chain((1..=15).map(|n| n.to_string()))
        .chain(std::iter::once(">=16".to_string()))
        .collect();
    let mut cells = [[IftResult::NoEffect; 11]; IFT_ROWS];
    for (r, name) in row_names.iter().enumerate() {
        let rec = rows
            .iter()
            .find(|rec| rec.get(0).map(str::trim) == Some(name.as_str()))
            .ok_or_else(|| missing_cell(IFT_CSV, name, "final_dr"))?;
        for (c, fp) in IFT_COLUMNS.iter().enumerate() {
            let column = format!("fp_{fp}");
            let raw = rec.get(c + 1).map(str::trim).unwrap_or("");
            if raw.is_empty() {
                return Err(missing_cell(IFT_CSV, name, &column));
            }
            cells[r][c] = raw
                .parse::<IftResult>()
                .map_err(|_| bad_cell(IFT_CSV, name, &column, raw))?;
        }
    }
    Ok(IftTable { cells })
}

/// Parses the Vehicle line text.
pub fn parse_vehicle_line(src: &str) -> Result<VehicleLine, RuleError> {
    let recs = records(VEHICLE_LINE_CSV, src)?;
    let mut kill = [None; 11];
    for (c, fp) in IFT_COLUMNS.iter().enumerate() {
        let name = fp.to_string();
        let rec = recs
            .iter()
            .skip(1)
            .find(|rec| rec.get(0).map(str::trim) == Some(name.as_str()))
            .ok_or_else(|| missing_cell(VEHICLE_LINE_CSV, &name, "fp_column"))?;
        let raw = rec.get(1).map(str::trim).unwrap_or("");
        kill[c] = if raw.is_empty() {
            None
        } else {
            Some(
                raw.parse::<u8>()
                    .map_err(|_| bad_cell(VEHICLE_LINE_CSV, &name, "kill_number", raw))?,
            )
        };
    }
    Ok(VehicleLine { kill })
}

/// Reads a class label of `elr_replacement.csv`.
fn class_of(label: &str) -> Option<Class> {
    let l = label.trim();
    if l.starts_with("Elite") {
        Some(Class::Elite)
    } else if l == "1st Line" {
        Some(Class::FirstLine)
    } else if l == "2nd Line" {
        Some(Class::SecondLine)
    } else if l == "Green" {
        Some(Class::Green)
    } else if l == "Conscript" {
        Some(Class::Conscript)
    } else {
        None
    }
}

/// Parses the ELR Replacement text.
pub fn parse_elr(src: &str) -> Result<ElrTable, RuleError> {
    let recs = records(ELR_CSV, src)?;
    let (header, data) = recs
        .split_first()
        .ok_or_else(|| missing_cell(ELR_CSV, "header", "nationality"))?;
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| missing_cell(ELR_CSV, "header", name))
    };
    let (nat, unit, size, class, under, repl, red, ssr) = (
        col("nationality")?,
        col("unit")?,
        col("size")?,
        col("class")?,
        col("underscored_ml")?,
        col("replaced_by")?,
        col("red_to")?,
        col("ssr_elr_le4_replaced_by")?,
    );
    let mut rows = Vec::with_capacity(data.len());
    for (i, rec) in data.iter().enumerate() {
        let get = |c: usize| rec.get(c).map(str::trim).unwrap_or("");
        let row_name = format!("{} ({} {})", i + 1, get(nat), get(unit));
        let need = |c: usize, name: &str| {
            let v = get(c);
            if v.is_empty() {
                Err(missing_cell(ELR_CSV, &row_name, name))
            } else {
                Ok(v)
            }
        };
        let strength = |v: &str, name: &str| {
            v.parse::<Strength>()
                .map_err(|_| bad_cell(ELR_CSV, &row_name, name, v))
        };
        let u = strength(need(unit, "unit")?, "unit")?;
        let sz = match need(size, "size")? {
            "squad" => InfantrySize::Squad,
            "HS" => InfantrySize::HalfSquad,
            other => return Err(bad_cell(ELR_CSV, &row_name, "size", other)),
        };
        let underscored = match need(under, "underscored_ml")? {
            "yes" => true,
            "no" => false,
            other => return Err(bad_cell(ELR_CSV, &row_name, "underscored_ml", other)),
        };
        let r = need(repl, "replaced_by")?;
        let replaced_by = if r == "DIS" {
            ReplacedBy::Disrupted
        } else if let Some(hs) = r.strip_prefix("2x ") {
            ReplacedBy::TwoHalfSquads(strength(hs, "replaced_by")?)
        } else {
            ReplacedBy::One(strength(r, "replaced_by")?)
        };
        let d = need(red, "red_to")?;
        let red_to = if d == "ELM" {
            ReducedTo::Eliminated
        } else {
            ReducedTo::HalfSquad(strength(d, "red_to")?)
        };
        let s = get(ssr);
        let ssr_elr_le4_replaced_by = if s.is_empty() {
            None
        } else {
            Some(strength(s, "ssr_elr_le4_replaced_by")?)
        };
        rows.push(ElrRow {
            row: i + 1,
            nationality: need(nat, "nationality")?.to_string(),
            unit: u,
            size: sz,
            class: class_of(get(class)),
            underscored,
            replaced_by,
            red_to,
            ssr_elr_le4_replaced_by,
        });
    }
    Ok(ElrTable { rows })
}

/// The IFT, parsed once. The shipped data is complete (a unit test checks
/// every cell), so this cannot fail at run time.
pub fn ift() -> &'static IftTable {
    static T: OnceLock<IftTable> = OnceLock::new();
    T.get_or_init(|| parse_ift(IFT_SRC).expect("core/data/ift.csv is complete (tested)"))
}

/// The Vehicle line, parsed once (empty cells stay `None`, R12).
pub fn vehicle_line() -> &'static VehicleLine {
    static T: OnceLock<VehicleLine> = OnceLock::new();
    T.get_or_init(|| {
        parse_vehicle_line(VEHICLE_LINE_SRC)
            .expect("core/data/ift_vehicle_line.csv parses (tested)")
    })
}

/// The Vehicle line a scenario uses: its supplied `ift_vehicle_line`
/// table (R12, [`hexveil_core::tables`]) or the shipped one.
pub fn vehicle_line_of(
    scenario: &crate::model::scenario::Scenario,
) -> Result<VehicleLine, RuleError> {
    match scenario.tables.csv(VEHICLE_LINE_NAME) {
        Some(text) => parse_vehicle_line(text),
        None => Ok(vehicle_line().clone()),
    }
}

/// The name a scenario supplies the Vehicle line under.
pub const VEHICLE_LINE_NAME: &str = "ift_vehicle_line";

/// The ELR Replacement table, parsed once.
pub fn elr() -> &'static ElrTable {
    static T: OnceLock<ElrTable> = OnceLock::new();
    T.get_or_init(|| parse_elr(ELR_SRC).expect("core/data/elr_replacement.csv parses (tested)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Strength {
        x.parse().unwrap()
    }

    #[test]
    fn a7_3_every_ift_cell_parses() {
        let t = parse_ift(IFT_SRC).expect("complete");
        // 17 rows x 11 columns, every one read from the file.
        let data_lines = IFT_SRC
            .lines()
            .filter(|l| !l.starts_with('#'))
            .skip(1)
            .count();
        assert_eq!(data_lines, IFT_ROWS);
        assert_eq!(t.cells.len() * t.cells[0].len(), 187);
    }

    #[test]
    fn a7_3_ift_spot_checks_against_the_csv() {
        let t = ift();
        // 8 FP column (index 4), DR 4 = 2MC.
        assert_eq!(t.cells[4][4], IftResult::Mc(2));
        // 36+ column, DR <= 0 = 7KIA.
        assert_eq!(t.cells[0][10], IftResult::Kia(7));
        // 1 FP column DR 1 = K/1; 4 FP DR 2 = K/2; 2 FP DR 5 = NMC.
        assert_eq!(t.cells[1][0], IftResult::K(1));
        assert_eq!(t.cells[2][2], IftResult::K(2));
        assert_eq!(t.cells[5][1], IftResult::Nmc);
        // 30 FP DR 14 = PTC; >= 16 row all no effect.
        assert_eq!(t.cells[14][9], IftResult::Ptc);
        assert!(t.cells[16].iter().all(|c| *c == IftResult::NoEffect));
    }

    #[test]
    fn r12_empty_ift_cell_names_table_row_and_column() {
        let broken = IFT_SRC.replacen("4,NMC,1MC,1MC,2MC,2MC", "4,NMC,,1MC,2MC,2MC", 1);
        let e = parse_ift(&broken).unwrap_err();
        assert!(e.reason.contains("ift.csv"), "{e}");
        assert!(e.reason.contains("row 4"), "{e}");
        assert!(e.reason.contains("fp_2"), "{e}");
        assert_eq!(e.cite, vec!["R12".to_string()]);
    }

    #[test]
    fn r12_vehicle_line_keeps_missing_kill_numbers_empty() {
        let v = vehicle_line();
        assert_eq!(v.kill[2], Some(5)); // 4 FP column
        assert_eq!(v.kill[4], Some(7)); // 8 FP column
        assert_eq!(v.kill[0], None);
        assert_eq!(v.kill[10], None);
    }

    #[test]
    fn a19_13_elr_table_rows_parse() {
        let t = elr();
        assert!(t.rows.len() > 100);
        let r = t
            .find(
                "German",
                s("4-6-7"),
                InfantrySize::Squad,
                Some(Class::FirstLine),
            )
            .unwrap();
        assert_eq!(r.replaced_by, ReplacedBy::One(s("4-4-7")));
        assert_eq!(r.red_to, ReducedTo::HalfSquad(s("2-4-7")));
        let ss = t
            .find(
                "German",
                s("6-5-8"),
                InfantrySize::Squad,
                Some(Class::Elite),
            )
            .unwrap();
        assert!(ss.underscored);
        assert_eq!(ss.replaced_by, ReplacedBy::TwoHalfSquads(s("3-4-8")));
        assert_eq!(ss.ssr_elr_le4_replaced_by, Some(s("4-4-7")));
        let c = t
            .find(
                "German",
                s("4-3-6"),
                InfantrySize::Squad,
                Some(Class::Conscript),
            )
            .unwrap();
        assert_eq!(c.replaced_by, ReplacedBy::Disrupted);
    }

    #[test]
    fn a19_13_duplicate_rows_pick_the_units_class() {
        let t = elr();
        let first = t
            .find(
                "Japanese",
                s("3-4-7"),
                InfantrySize::Squad,
                Some(Class::FirstLine),
            )
            .unwrap();
        let second = t
            .find(
                "Japanese",
                s("3-4-7"),
                InfantrySize::Squad,
                Some(Class::SecondLine),
            )
            .unwrap();
        assert_ne!(first.row, second.row);
        assert_eq!(second.class, Some(Class::SecondLine));
    }

    #[test]
    fn r12_empty_elr_cell_names_table_row_and_column() {
        let broken = ELR_SRC.replacen(
            "German,4-6-7,squad,1st Line,2201,no,4-4-7,",
            "German,4-6-7,squad,1st Line,2201,no,,",
            1,
        );
        let e = parse_elr(&broken).unwrap_err();
        assert!(e.reason.contains("elr_replacement.csv"), "{e}");
        assert!(e.reason.contains("German 4-6-7"), "{e}");
        assert!(e.reason.contains("replaced_by"), "{e}");
    }
}
