//! What a side declares, in the ruleset's own encoding (postcard bytes at
//! the [`hexveil_core::Engine::apply`] boundary).

use crate::geom::{Cell, Point};
use serde::{Deserialize, Serialize};

/// The type of a mine, as laid or as detonated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MineKind {
    /// An anti-personnel mine.
    AntiPersonnel,
    /// An anti-tank mine.
    AntiTank,
    /// A German S-mine (anti-personnel, seed 004 S-mines).
    SMine,
}

impl MineKind {
    /// In words.
    pub fn words(self) -> &'static str {
        match self {
            MineKind::AntiPersonnel => "A-P mine",
            MineKind::AntiTank => "A-T mine",
            MineKind::SMine => "S-mine",
        }
    }
}

/// An action of the miniatures rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Moves a figure along straight segments through `path` (the first
    /// point is where the figure is; it may be left out).
    Move {
        /// The figure's name.
        figure: String,
        /// Waypoints, decimal inches.
        path: Vec<Point>,
    },
    /// An Infantry figure spends its move laying one mine in `cell` (seed
    /// 004 laying: twice, in two consecutive turns of its side).
    Lay {
        /// The figure's name.
        figure: String,
        /// The cell (where it stands or one of the eight around).
        cell: Cell,
        /// The mine's type.
        kind: MineKind,
    },
    /// An Infantry figure spends its move clearing a path at most 1 in long
    /// in a straight line to `to` (seed 004 clearing).
    Clear {
        /// The figure's name.
        figure: String,
        /// Where it ends.
        to: Point,
    },
    /// Ends the side's turn.
    EndTurn,
    /// Gives up the game.
    Concede,
}

/// The action's bytes.
pub fn encode_action(a: &Action) -> Vec<u8> {
    postcard::to_stdvec(a).expect("actions always encode")
}

/// Reads an action's bytes.
pub fn decode_action(bytes: &[u8]) -> Result<Action, String> {
    // Canonical only: one action, one byte string (PROTOCOL.md 11, G5).
    hexveil_core::canonical::decode::<Action>(bytes).map_err(|e| match e {
        hexveil_core::canonical::CanonicalError::Trailing(n) => {
            format!("{n} bytes after the action")
        }
        e => format!("not a miniatures action: {e}"),
    })
}
