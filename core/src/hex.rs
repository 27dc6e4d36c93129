//! Hex names on ASL geomorphic boards (`4E6`: board 4, column E, row 6).
//!
//! A board has 33 columns `A`..`Z`, `AA`..`GG` and rows 0..=10. Columns with
//! an even index (A, C, E, ...) hold rows 1..=10; columns with an odd index
//! (B, D, ...) hold rows 0..=10, the first and last being half hexes. Where
//! two boards meet, the edge half hexes of both boards are one hex: the
//! [`crate::map::Map`] canonicalises such names.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Number of hex columns on one board (A..GG).
pub const COLUMNS: u8 = 33;
/// Highest row number on a board.
pub const MAX_ROW: u8 = 10;

/// A hex named by board, column and row, e.g. `4E6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hex {
    /// Board number (1..=999 or any scenario board id).
    pub board: u16,
    /// Column index: 0 = A, 25 = Z, 26 = AA ... 32 = GG.
    pub col: u8,
    /// Row number, 0..=10.
    pub row: u8,
}

/// Why a hex name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexNameError {
    /// The name does not start with a board number.
    #[error("hex name {0:?} must start with a board number, as in 4E6")]
    NoBoard(String),
    /// The column letters are missing or not A..Z / AA..GG.
    #[error("hex name {0:?} has no valid column (A..Z, AA..GG)")]
    BadColumn(String),
    /// The row is missing, not a number, or outside 0..=10.
    #[error("hex name {0:?} has no valid row (0..=10)")]
    BadRow(String),
    /// Row 0 exists only in columns with an odd index (B, D, ...).
    #[error("hex {0:?} does not exist: row 0 exists only in columns B, D, F, ...")]
    NoSuchHex(String),
}

impl Hex {
    /// Builds a hex, checking that it exists on a board.
    pub fn new(board: u16, col: u8, row: u8) -> Result<Hex, HexNameError> {
        let hex = Hex { board, col, row };
        if col >= COLUMNS {
            return Err(HexNameError::BadColumn(hex.to_string()));
        }
        if row > MAX_ROW {
            return Err(HexNameError::BadRow(hex.to_string()));
        }
        if row == 0 && col.is_multiple_of(2) {
            return Err(HexNameError::NoSuchHex(hex.to_string()));
        }
        Ok(hex)
    }

    /// Column letters: A..Z, then AA..GG.
    pub fn column_name(&self) -> String {
        let letter = (b'A' + self.col % 26) as char;
        if self.col < 26 {
            letter.to_string()
        } else {
            format!("{letter}{letter}")
        }
    }

    /// Position in board-local doubled coordinates: x = column index,
    /// y = 2*row for odd-index columns and 2*row - 1 for even-index ones, so
    /// that the six neighbours are (x, y +- 2) and (x +- 1, y +- 1).
    pub fn local_xy(&self) -> (i32, i32) {
        let x = self.col as i32;
        let y = 2 * self.row as i32 - if self.col.is_multiple_of(2) { 1 } else { 0 };
        (x, y)
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.board, self.column_name(), self.row)
    }
}

impl FromStr for Hex {
    type Err = HexNameError;

    fn from_str(s: &str) -> Result<Hex, HexNameError> {
        let name = s.trim();
        let digits = name.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err(HexNameError::NoBoard(s.to_string()));
        }
        let board: u16 = name[..digits]
            .parse()
            .map_err(|_| HexNameError::NoBoard(s.to_string()))?;
        let rest = &name[digits..];
        let letters = rest.chars().take_while(|c| c.is_ascii_alphabetic()).count();
        let col_str = rest[..letters].to_ascii_uppercase();
        let col = match col_str.as_bytes() {
            [c] if c.is_ascii_uppercase() => c - b'A',
            [a, b] if a == b && (b'A'..=b'G').contains(a) => 26 + (a - b'A'),
            _ => return Err(HexNameError::BadColumn(s.to_string())),
        };
        let row_str = &rest[letters..];
        if row_str.is_empty() || !row_str.chars().all(|c| c.is_ascii_digit()) {
            return Err(HexNameError::BadRow(s.to_string()));
        }
        let row: u8 = row_str
            .parse()
            .map_err(|_| HexNameError::BadRow(s.to_string()))?;
        Hex::new(board, col, row).map_err(|e| match e {
            HexNameError::BadRow(_) => HexNameError::BadRow(s.to_string()),
            HexNameError::NoSuchHex(_) => HexNameError::NoSuchHex(s.to_string()),
            other => other,
        })
    }
}

impl Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hex, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["4E6", "12AA3", "1GG10", "3B0", "43A1"] {
            let h: Hex = name.parse().unwrap();
            assert_eq!(h.to_string(), name);
        }
    }

    #[test]
    fn bad_names_are_named() {
        assert!(matches!("E6".parse::<Hex>(), Err(HexNameError::NoBoard(_))));
        assert!(matches!(
            "4HH6".parse::<Hex>(),
            Err(HexNameError::BadColumn(_))
        ));
        assert!(matches!(
            "4AB6".parse::<Hex>(),
            Err(HexNameError::BadColumn(_))
        ));
        assert!(matches!(
            "4E11".parse::<Hex>(),
            Err(HexNameError::BadRow(_))
        ));
        assert!(matches!("4E".parse::<Hex>(), Err(HexNameError::BadRow(_))));
        assert!(matches!(
            "4A0".parse::<Hex>(),
            Err(HexNameError::NoSuchHex(_))
        ));
    }
}
