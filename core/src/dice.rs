//! Dice as the engine sees them: requests it makes and values it is given.
//!
//! The engine never rolls. It asks with [`DiceSpec`]s and is answered with
//! [`Roll`]s, in the same order. Where the values come from (a test literal,
//! the beacon of DESIGN 3.4, a transcript) is the driver's business.

use crate::side::Side;
use serde::{Deserialize, Serialize};

/// What kind of roll the engine needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiceKind {
    /// One die (dr), 1..=6.
    Dr,
    /// Two distinguishable dice (DR), coloured and white (C3.9).
    DR,
    /// A dr known to the roller and the referee only until a rule reveals it
    /// (B28.47 extra Dummies).
    SecretDr {
        /// The side that rolls and may see it.
        roller: Side,
    },
    /// Two D10 read as a percentile (seed 004): tens and units, 00 = 100.
    Percentile,
}

/// One roll the engine needs, with what it is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DiceSpec {
    /// The kind of roll.
    pub kind: DiceKind,
    /// What the roll is for, in words (`A-P minefield attack in 4E6`).
    pub purpose: String,
    /// The rule that calls for the roll.
    pub cite: String,
}

/// A value given to the engine for one [`DiceSpec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Roll {
    /// One die, for [`DiceKind::Dr`] and [`DiceKind::SecretDr`].
    Dr(u8),
    /// Two dice, for [`DiceKind::DR`].
    DR {
        /// The coloured die.
        coloured: u8,
        /// The white die.
        white: u8,
    },
    /// Two D10 digits, for [`DiceKind::Percentile`].
    Percentile {
        /// Tens digit 0..=9.
        tens: u8,
        /// Units digit 0..=9.
        units: u8,
    },
}

impl Roll {
    /// Whether this value is a legal answer to `kind` (faces in range).
    pub fn answers(&self, kind: DiceKind) -> bool {
        let d6 = |v: u8| (1..=6).contains(&v);
        match (kind, self) {
            (DiceKind::Dr | DiceKind::SecretDr { .. }, Roll::Dr(v)) => d6(*v),
            (DiceKind::DR, Roll::DR { coloured, white }) => d6(*coloured) && d6(*white),
            (DiceKind::Percentile, Roll::Percentile { tens, units }) => *tens <= 9 && *units <= 9,
            _ => false,
        }
    }

    /// The total: the die for a dr, the sum for a DR, 1..=100 for a
    /// percentile (00 reads as 100).
    pub fn total(&self) -> u8 {
        match *self {
            Roll::Dr(v) => v,
            Roll::DR { coloured, white } => coloured + white,
            Roll::Percentile { tens, units } => match tens * 10 + units {
                0 => 100,
                v => v,
            },
        }
    }

    /// Whether a DR shows doubles (both dice equal); false for other kinds.
    pub fn is_doubles(&self) -> bool {
        matches!(*self, Roll::DR { coloured, white } if coloured == white)
    }
}

impl std::fmt::Display for Roll {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Roll::Dr(v) => write!(f, "dr {v}"),
            Roll::DR { coloured, white } => {
                write!(f, "DR {} ({coloured},{white})", coloured + white)
            }
            // A percentile roll, not a probability: "19%" read as one
            // (issue 27).
            Roll::Percentile { tens, units } => {
                write!(f, "percentile roll {} ({tens},{units})", self.total())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Roll;

    #[test]
    fn rolls_read_as_rolls() {
        // Issue 27: a percentile roll printed "19%", which reads as a
        // probability.
        let p = Roll::Percentile { tens: 1, units: 9 };
        assert_eq!(p.to_string(), "percentile roll 19 (1,9)");
        assert_eq!(Roll::Dr(4).to_string(), "dr 4");
        assert_eq!(
            Roll::DR {
                coloured: 2,
                white: 5
            }
            .to_string(),
            "DR 7 (2,5)"
        );
    }
}
