//! Terrain of a hex and of its hexsides, as far as these rules look at it.

use serde::{Deserialize, Serialize};

/// The main terrain of a hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Terrain {
    /// Open Ground.
    #[default]
    Open,
    /// Grain.
    Grain,
    /// Brush.
    Brush,
    /// Orchard.
    Orchard,
    /// Woods (an obstacle, B28.72).
    Woods,
    /// A wooden building.
    WoodenBuilding,
    /// A stone building.
    StoneBuilding,
    /// Rubble (no minefields, B28.1).
    Rubble,
    /// Marsh (no minefields, B28.1).
    Marsh,
    /// Crag (no minefields, B28.1).
    Crag,
    /// A Water Obstacle: stream, river, pond (no minefields, B28.1).
    Water,
}

impl Terrain {
    /// A building hex of either kind.
    pub fn is_building(self) -> bool {
        matches!(self, Terrain::WoodenBuilding | Terrain::StoneBuilding)
    }
}

/// Features a hex may have besides its main terrain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Features {
    /// A paved road runs through the hex.
    pub paved_road: bool,
    /// A dirt (unpaved) road runs through the hex.
    pub dirt_road: bool,
    /// A bridge.
    pub bridge: bool,
    /// A runway.
    pub runway: bool,
    /// A sewer Location.
    pub sewer: bool,
    /// Ice.
    pub ice: bool,
    /// A trench.
    pub trench: bool,
    /// A tower (with a stairwell).
    pub tower: bool,
}

/// Everything the engine knows about one hex of the map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct HexInfo {
    /// Main terrain.
    pub terrain: Terrain,
    /// Ground level (hills), 0 on the plain.
    pub level: i8,
    /// Other features.
    pub features: Features,
}
