//! Rules-data tables a scenario supplies (R12): the one way, for every
//! ruleset, to give the engine a table the shipped data lacks or a league
//! prefers.
//!
//! A ruleset ships its tables (CSV, `#` comment lines first, then a header
//! row); a cell the data lacks is a refusal naming the table, the row and
//! the column. A scenario file replaces a whole shipped table with a
//! `[tables.<name>]` entry:
//!
//! ```toml
//! [tables.to_hit]
//! file = "league/to_hit.csv"   # read by hexveil when it loads the file
//! sha256 = "9f2c..."           # optional pin; filled in when absent
//! csv = """..."""              # the text itself, once read
//! ```
//!
//! The engine is pure and reads no files: the client reads `file` (relative
//! to the scenario file) when it loads the scenario and writes its text
//! into `csv` and its SHA-256 into `sha256`, so the scenario text that the
//! genesis carries holds the whole table and its hash (G5: the verifier
//! re-runs the same data). The referee checks every `sha256` against its
//! `csv` at genesis. `hexveil rules` reads the same entries inline
//! (`"tables": {"to_hit": {"csv": "..."}}`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One supplied table: where it came from, its pinned hash and its text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuppliedTable {
    /// The file it was read from, as the scenario names it (for people:
    /// the engine never reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// SHA-256 of `csv` in lower-case hex, if pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The table's CSV text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
}

/// Every table a scenario supplies, by name (the shipped file's stem:
/// `to_hit` for `to_hit.csv`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SuppliedTables(pub BTreeMap<String, SuppliedTable>);

/// What is wrong with a `[tables]` entry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The ruleset has no table of that name.
    #[error("tables.{name}: this ruleset has no table {name:?} (it has: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// The names the ruleset has.
        known: String,
    },
    /// The entry names a file whose text was never read in.
    #[error("tables.{name}: file {file:?} was not read in (hexveil reads it when it loads the scenario file; elsewhere give the text as `csv`)")]
    NotRead {
        /// The table.
        name: String,
        /// The file named.
        file: String,
    },
    /// The entry has neither `csv` nor `file`.
    #[error("tables.{name}: give the table as `file = \"...\"` or `csv = \"...\"`")]
    Empty {
        /// The table.
        name: String,
    },
    /// `sha256` is not 64 lower-case hex digits.
    #[error("tables.{name}.sha256 = {value:?}: not 64 lower-case hex digits")]
    BadHash {
        /// The table.
        name: String,
        /// The value given.
        value: String,
    },
    /// The text does not hash to the pinned `sha256`.
    #[error("tables.{name}: its text hashes to {actual}, not to the pinned sha256 {pinned}")]
    HashMismatch {
        /// The table.
        name: String,
        /// The pinned hash.
        pinned: String,
        /// The text's hash.
        actual: String,
    },
    /// The ruleset could not read the table's text.
    #[error("tables.{name}: {why}")]
    Unreadable {
        /// The table.
        name: String,
        /// What its parser said (naming row and column).
        why: String,
    },
}

impl SuppliedTables {
    /// No table supplied.
    pub fn none() -> &'static SuppliedTables {
        static NONE: SuppliedTables = SuppliedTables(BTreeMap::new());
        &NONE
    }

    /// Whether no table is supplied.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The supplied text of table `name`, if any.
    pub fn csv(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(|t| t.csv.as_deref())
    }

    /// Checks every entry's shape: a name the ruleset knows (`known`),
    /// its text present, a well-formed pin. The ruleset then parses each
    /// text with its own table reader, and the referee checks each pin.
    pub fn check(&self, known: &[&str]) -> Result<(), TableError> {
        for (name, t) in &self.0 {
            if !known.contains(&name.as_str()) {
                return Err(TableError::Unknown {
                    name: name.clone(),
                    known: known.join(", "),
                });
            }
            match (&t.csv, &t.file) {
                (Some(_), _) => {}
                (None, Some(file)) => {
                    return Err(TableError::NotRead {
                        name: name.clone(),
                        file: file.clone(),
                    })
                }
                (None, None) => return Err(TableError::Empty { name: name.clone() }),
            }
            if let Some(h) = &t.sha256 {
                let ok = h.len() == 64
                    && h.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
                if !ok {
                    return Err(TableError::BadHash {
                        name: name.clone(),
                        value: h.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Each table with a pin whose text does not hash to it, given a
    /// SHA-256 function (the kernel has no crypto; the referee and the
    /// client pass theirs).
    pub fn check_pins(&self, sha256_hex: impl Fn(&[u8]) -> String) -> Result<(), TableError> {
        for (name, t) in &self.0 {
            if let (Some(pinned), Some(csv)) = (&t.sha256, &t.csv) {
                let actual = sha256_hex(csv.as_bytes());
                if &actual != pinned {
                    return Err(TableError::HashMismatch {
                        name: name.clone(),
                        pinned: pinned.clone(),
                        actual,
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, t: SuppliedTable) -> SuppliedTables {
        SuppliedTables([(name.to_string(), t)].into_iter().collect())
    }

    #[test]
    fn r12_unknown_names_and_unread_files_are_refused_by_name() {
        let t = one(
            "to_hitt",
            SuppliedTable {
                csv: Some("a\n".into()),
                ..Default::default()
            },
        );
        let e = t.check(&["to_hit"]).unwrap_err();
        assert!(e.to_string().contains("to_hitt") && e.to_string().contains("to_hit"));
        let t = one(
            "to_hit",
            SuppliedTable {
                file: Some("x.csv".into()),
                ..Default::default()
            },
        );
        assert!(matches!(
            t.check(&["to_hit"]),
            Err(TableError::NotRead { .. })
        ));
        let t = one("to_hit", SuppliedTable::default());
        assert!(matches!(
            t.check(&["to_hit"]),
            Err(TableError::Empty { .. })
        ));
    }

    #[test]
    fn r12_pins_are_checked_with_the_given_hash() {
        let mut t = one(
            "to_hit",
            SuppliedTable {
                csv: Some("abc".into()),
                sha256: Some("A".repeat(64)),
                ..Default::default()
            },
        );
        assert!(matches!(
            t.check(&["to_hit"]),
            Err(TableError::BadHash { .. })
        ));
        t.0.get_mut("to_hit").unwrap().sha256 = Some("0".repeat(64));
        t.check(&["to_hit"]).unwrap();
        let e = t.check_pins(|_| "1".repeat(64)).unwrap_err();
        assert!(matches!(e, TableError::HashMismatch { .. }));
        t.check_pins(|_| "0".repeat(64)).unwrap();
    }
}
