//! The detonation table of seed 004 ("detonation roll"), loaded from
//! `data/minis_mine_detonation.csv`: the percentile needed, by whole
//! inches moved into the field (rows) and density (columns). The numbers
//! live in the data file only.

use hexveil_core::RuleError;
use std::sync::OnceLock;

/// The data file's name, as refusals cite it.
pub const TABLE_FILE: &str = "minis_mine_detonation.csv";
/// The name a scenario supplies it under (`[tables.minis_mine_detonation]`).
pub const SUPPLIED_NAME: &str = "minis_mine_detonation";

const TABLE_CSV: &str = include_str!("../data/minis_mine_detonation.csv");

/// The detonation table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetonationTable {
    /// Densities of the columns, in order.
    densities: Vec<u32>,
    /// Distances of the rows, in order.
    distances: Vec<u32>,
    /// `cells[row][column]`: the percentage, or blank.
    cells: Vec<Vec<Option<u8>>>,
}

/// What the table says for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needed {
    /// A percentile roll of at most this detonates.
    AtMost(u8),
    /// A blank past the column's last listed value: detonation is certain
    /// (R9).
    Certain,
}

impl Needed {
    /// Whether a percentile total (1..=100) detonates.
    pub fn detonates(self, total: u8) -> bool {
        match self {
            Needed::AtMost(v) => total <= v,
            Needed::Certain => true,
        }
    }
}

impl DetonationTable {
    /// The table shipped in `data/`, parsed once.
    pub fn shipped() -> &'static DetonationTable {
        static T: OnceLock<DetonationTable> = OnceLock::new();
        T.get_or_init(|| DetonationTable::parse(TABLE_CSV).expect("the shipped table parses"))
    }

    /// Parses the CSV (comment lines start with `#`).
    pub fn parse(text: &str) -> Result<DetonationTable, String> {
        let mut rdr = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .from_reader(text.as_bytes());
        let headers = rdr.headers().map_err(|e| e.to_string())?.clone();
        let mut densities = Vec::new();
        for h in headers.iter().skip(1) {
            let d = h
                .strip_prefix("density_")
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| format!("{TABLE_FILE}: column {h:?} is not density_N"))?;
            densities.push(d);
        }
        let mut distances = Vec::new();
        let mut cells = Vec::new();
        for rec in rdr.records() {
            let rec = rec.map_err(|e| e.to_string())?;
            let dist: u32 = rec
                .get(0)
                .and_then(|d| d.trim().parse().ok())
                .ok_or_else(|| format!("{TABLE_FILE}: row {rec:?} has no distance"))?;
            let mut row = Vec::new();
            for i in 0..densities.len() {
                let v = rec.get(i + 1).unwrap_or("").trim();
                row.push(if v.is_empty() {
                    None
                } else {
                    Some(
                        v.parse::<u8>()
                            .ok()
                            .filter(|v| (1..=100).contains(v))
                            .ok_or_else(|| format!("{TABLE_FILE}: {v:?} is not a percentage"))?,
                    )
                });
            }
            distances.push(dist);
            cells.push(row);
        }
        Ok(DetonationTable {
            densities,
            distances,
            cells,
        })
    }

    /// The longest distance (inches) the table has a row for.
    pub fn max_distance(&self) -> u32 {
        self.distances.iter().copied().max().unwrap_or(0)
    }

    fn column(&self, density: u32) -> Option<usize> {
        self.densities.iter().position(|d| *d == density)
    }

    /// Whether a density has a column with at least one value: the
    /// densities a minefield may have (R12).
    pub fn density_usable(&self, density: u32) -> Result<(), RuleError> {
        let col = self.column(density).ok_or_else(|| {
            RuleError::new(
                format!(
                    "density {density} is beyond the detonation table ({TABLE_FILE} has columns density_{} to density_{})",
                    self.densities.first().unwrap_or(&0),
                    self.densities.last().unwrap_or(&0)
                ),
                "R12",
            )
        })?;
        if self.cells.iter().all(|r| r[col].is_none()) {
            return Err(RuleError::new(
                format!(
                    "the detonation table ({TABLE_FILE}) has no value at all in column density_{density}"
                ),
                "R12",
            ));
        }
        Ok(())
    }

    /// The percentile needed after `distance` whole inches in a field of
    /// `density` (R9: a blank past the last listed value is certain; R12: a
    /// column or row the table lacks is refused, never guessed).
    pub fn needed(&self, distance: u32, density: u32) -> Result<Needed, RuleError> {
        self.density_usable(density)?;
        let col = self.column(density).expect("checked");
        let row = self.distances.iter().position(|d| *d == distance).ok_or_else(|| {
            RuleError::new(
                format!(
                    "the detonation table ({TABLE_FILE}) has no row for {distance} in (it goes to {} in)",
                    self.max_distance()
                ),
                "R12",
            )
        })?;
        if let Some(v) = self.cells[row][col] {
            return Ok(Needed::AtMost(v));
        }
        if self.cells[..row].iter().any(|r| r[col].is_some()) {
            Ok(Needed::Certain)
        } else {
            Err(RuleError::new(
                format!(
                    "the detonation table ({TABLE_FILE}) has no value at row {distance} in, column density_{density}"
                ),
                "R12",
            ))
        }
    }
}

impl DetonationTable {
    /// Whether every distance a move may count (1 in up to the last row)
    /// has an answer for `density`: a value, or certain after one (R9).
    /// Checked at load from ruleset version 2, so no ruling ever lacks one
    /// (R12, R78).
    pub fn answers_every_distance(&self, density: u32) -> Result<(), RuleError> {
        for distance in 1..=self.max_distance() {
            self.needed(distance, density)?;
        }
        Ok(())
    }

    /// The largest density `d` such that every density from 1 to `d` has
    /// a usable column answering every distance: how dense a cell may
    /// become where several sources (both sides' hidden mines, open mines
    /// laid in play) could add up (R78).
    pub fn safe_limit(&self) -> u32 {
        (1..)
            .take_while(|d| self.answers_every_distance(*d).is_ok())
            .last()
            .unwrap_or(0)
    }

    /// The largest density with a usable column: the most one side may put
    /// in one cell (the setup checks refuse any other).
    pub fn max_usable(&self) -> u32 {
        self.densities
            .iter()
            .copied()
            .filter(|d| self.density_usable(*d).is_ok())
            .max()
            .unwrap_or(0)
    }

    /// Every usable column answers every distance (ruleset version 2): a
    /// supplied table whose column starts blank, or whose rows skip an
    /// inch, is refused at load naming the cell, not mid-game (R12, R78).
    pub fn check_answerable(&self) -> Result<(), RuleError> {
        for d in &self.densities {
            if self.density_usable(*d).is_ok() {
                self.answers_every_distance(*d)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed004_detonation_roll_reads_the_table_by_distance_and_density() {
        let t = DetonationTable::shipped();
        assert_eq!(t.needed(1, 1), Ok(Needed::AtMost(26)));
        assert_eq!(t.needed(12, 6), Ok(Needed::AtMost(98)));
        assert_eq!(t.max_distance(), 12);
    }

    #[test]
    fn seed004_detonation_roll_blank_past_the_last_value_is_certain_r9() {
        let t = DetonationTable::shipped();
        assert_eq!(t.needed(2, 9), Ok(Needed::Certain));
        assert_eq!(t.needed(9, 7), Ok(Needed::Certain));
        assert!(Needed::Certain.detonates(100));
    }

    #[test]
    fn columns_without_values_are_refused_r12() {
        let t = DetonationTable::shipped();
        for d in [10, 11, 12, 0] {
            let e = t.density_usable(d).unwrap_err();
            assert_eq!(e.cite, ["R12"]);
            assert!(e.reason.contains(TABLE_FILE), "{e}");
        }
        assert!(t
            .needed(13, 1)
            .unwrap_err()
            .reason
            .contains("no row for 13"));
    }
}
