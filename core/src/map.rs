//! The scenario map: boards, the hexes on them and their terrain.

use crate::hex::Hex;
use crate::terrain::HexInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The map of a scenario: which boards are in play and the terrain of every
/// hex that is not plain Open Ground.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Map {
    /// Boards in play.
    pub boards: Vec<u16>,
    /// Terrain of listed hexes; any other hex of a listed board is Open
    /// Ground at level 0.
    pub hexes: BTreeMap<Hex, HexInfo>,
}

impl Map {
    /// Whether the hex is on a board of this map.
    pub fn contains(&self, hex: Hex) -> bool {
        self.boards.contains(&hex.board)
    }

    /// The terrain of a hex on the map.
    pub fn info(&self, hex: Hex) -> HexInfo {
        self.hexes.get(&hex).copied().unwrap_or_default()
    }

    /// Whether two hexes share a hexside (same board only in this version).
    pub fn adjacent(&self, a: Hex, b: Hex) -> bool {
        if a.board != b.board {
            return false;
        }
        let (ax, ay) = a.local_xy();
        let (bx, by) = b.local_xy();
        let (dx, dy) = (bx - ax, by - ay);
        (dx == 0 && dy.abs() == 2) || (dx.abs() == 1 && dy.abs() == 1)
    }
}
