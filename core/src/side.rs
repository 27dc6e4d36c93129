//! The two sides of a game.

use serde::{Deserialize, Serialize};

/// One of the two players' sides. Scenario data says which nationality and
/// OB each side has; the engine only needs to tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Side {
    /// The first side listed in the scenario.
    A,
    /// The second side listed in the scenario.
    B,
}

impl Side {
    /// The other side.
    pub fn opponent(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    /// Stable one-byte code used by the protocol's tuple encoding.
    pub fn code(self) -> u8 {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::A => "A",
            Side::B => "B",
        })
    }
}
