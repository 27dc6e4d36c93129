//! What a sealed `mines` leaf holds, in its 8 bytes.
//!
//! Byte 0 = 1 for "mines here", byte 1 = A-P density (mines per square
//! inch), byte 2 = A-T density, byte 3 = 1 if the A-P mines are German
//! S-mines, bytes 4..8 zero. All zero is an empty cell. Anything else is
//! not a content of this ruleset.

use hexveil_core::Content;
use serde::{Deserialize, Serialize};

/// The mines of one sealed cell.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct CellMines {
    /// A-P mines per square inch.
    pub ap: u8,
    /// A-T mines per square inch.
    pub at: u8,
    /// Whether the A-P mines are German S-mines.
    #[serde(default)]
    pub s: bool,
}

impl CellMines {
    /// No mines.
    pub const NONE: CellMines = CellMines {
        ap: 0,
        at: 0,
        s: false,
    };

    /// Whether the cell holds no mine.
    pub fn is_empty(&self) -> bool {
        self.ap == 0 && self.at == 0
    }

    /// The sealed encoding.
    pub fn encode(&self) -> Content {
        if self.is_empty() {
            return Content::EMPTY;
        }
        let mut b = [0u8; hexveil_core::CONTENT_LEN];
        b[0] = 1;
        b[1] = self.ap;
        b[2] = self.at;
        b[3] = u8::from(self.s && self.ap > 0);
        Content(b)
    }

    /// Reads a sealed content, or says why it is not one.
    pub fn decode(c: &Content) -> Result<CellMines, String> {
        let b = c.0;
        if c.is_empty() {
            return Ok(CellMines::NONE);
        }
        if b[0] != 1 {
            return Err(format!(
                "byte 0 is {}, not 1 (mines) or all zero (empty)",
                b[0]
            ));
        }
        if b[4..].iter().any(|x| *x != 0) {
            return Err("bytes 4 to 7 must be zero".into());
        }
        if b[1] == 0 && b[2] == 0 {
            return Err("a mined cell needs an A-P or A-T density".into());
        }
        if b[3] > 1 || (b[3] == 1 && b[1] == 0) {
            return Err("byte 3 (S-mines) is 1 only with an A-P density, else 0".into());
        }
        Ok(CellMines {
            ap: b[1],
            at: b[2],
            s: b[3] == 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_round_trip_and_empty_is_all_zero() {
        let m = CellMines {
            ap: 2,
            at: 1,
            s: true,
        };
        assert_eq!(CellMines::decode(&m.encode()), Ok(m));
        assert_eq!(CellMines::NONE.encode(), Content::EMPTY);
    }

    #[test]
    fn decoder_rejects_other_bytes() {
        for b in [
            [2, 1, 0, 0, 0, 0, 0, 0],
            [1, 0, 0, 0, 0, 0, 0, 0],
            [1, 1, 0, 2, 0, 0, 0, 0],
            [1, 0, 1, 1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0, 0, 9],
            [0, 1, 0, 0, 0, 0, 0, 0],
        ] {
            assert!(CellMines::decode(&Content(b)).is_err(), "{b:?}");
        }
    }
}
