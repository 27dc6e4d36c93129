//! Terrain of a hex and of its hexsides, as far as these rules look at it:
//! minefield placement (B28.1, B28.44, B28.53), LOS obstacles (B28.2 says
//! minefields are none) and the Terrain Effects Modifier the fire rules add.
//!
//! Serde names are snake_case and stable: a scenario writes a hex as
//! `{ terrain = "woods", level = 1, features = { paved_road = true } }`.
//! Unknown terrain names and unknown fields are errors naming the bad value.
//!
//! TEM values ([`HexInfo::tem`]) are the standard ASL Terrain Effects Chart
//! numbers (public game knowledge): Open Ground, Grain, Orchard, Marsh and
//! Water 0; Brush, Woods and Crag +1; wooden building and wooden rubble +2;
//! stone building and stone rubble +3. Hindrances (Grain, Orchard) are not
//! TEM and are not modelled here. Minefields add no TEM (B28.3).

use serde::{Deserialize, Serialize};
use std::fmt;

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
    /// Woods (a one-level LOS obstacle, B28.72).
    Woods,
    /// A wooden building (a LOS obstacle; height in
    /// [`HexInfo::building_levels`]).
    WoodenBuilding,
    /// A stone building (a LOS obstacle; height in
    /// [`HexInfo::building_levels`]).
    StoneBuilding,
    /// Rubble of a wooden building (no minefields, B28.1).
    Rubble,
    /// Rubble of a stone building (no minefields, B28.1).
    StoneRubble,
    /// Marsh (no minefields, B28.1).
    Marsh,
    /// Crag (no minefields, B28.1).
    Crag,
    /// A Water Obstacle: stream, river, pond (no minefields, B28.1).
    Water,
}

impl Terrain {
    /// A building hex of either kind (B28.44).
    pub fn is_building(self) -> bool {
        matches!(self, Terrain::WoodenBuilding | Terrain::StoneBuilding)
    }

    /// Rubble of either kind (no minefields, B28.1).
    pub fn is_rubble(self) -> bool {
        matches!(self, Terrain::Rubble | Terrain::StoneRubble)
    }

    /// The terrain's name as a scenario writes it (`"stone_building"`).
    pub fn name(self) -> &'static str {
        match self {
            Terrain::Open => "open",
            Terrain::Grain => "grain",
            Terrain::Brush => "brush",
            Terrain::Orchard => "orchard",
            Terrain::Woods => "woods",
            Terrain::WoodenBuilding => "wooden_building",
            Terrain::StoneBuilding => "stone_building",
            Terrain::Rubble => "rubble",
            Terrain::StoneRubble => "stone_rubble",
            Terrain::Marsh => "marsh",
            Terrain::Crag => "crag",
            Terrain::Water => "water",
        }
    }

    /// Terrain Effects Modifier of the terrain (standard ASL TEM; see the
    /// module documentation for the numbers).
    pub fn tem(self) -> i8 {
        match self {
            Terrain::Open | Terrain::Grain | Terrain::Orchard => 0,
            Terrain::Marsh | Terrain::Water => 0,
            Terrain::Brush | Terrain::Woods | Terrain::Crag => 1,
            Terrain::WoodenBuilding | Terrain::Rubble => 2,
            Terrain::StoneBuilding | Terrain::StoneRubble => 3,
        }
    }
}

/// The terrain in a player's words (`stone building`; issue 27 item 7):
/// [`Terrain::name`] is the key a scenario file writes.
impl fmt::Display for Terrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name().replace('_', " "))
    }
}

/// Features a hex may have besides its main terrain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Features {
    /// A paved road runs through the hex (no hidden minefields, B28.1).
    pub paved_road: bool,
    /// A dirt (unpaved) road runs through the hex.
    pub dirt_road: bool,
    /// A bridge (no hidden minefields, B28.1).
    pub bridge: bool,
    /// A runway (no hidden minefields, B28.1).
    pub runway: bool,
    /// The hex stands for a sewer Location (no minefields, B28.1).
    pub sewer: bool,
    /// Ice (no hidden minefields, B28.53 and ruling R22).
    pub ice: bool,
    /// A trench (B28.44: Trench movement is never attacked by mines).
    pub trench: bool,
    /// A tower (with a stairwell; B28.44).
    pub tower: bool,
}

impl Features {
    /// The hard surfaces on which only A-T mines in full view may lie
    /// (B28.53): bridge, paved road, ice, runway.
    pub fn hard_surface(&self) -> bool {
        self.bridge || self.paved_road || self.ice || self.runway
    }
}

/// Everything the engine knows about one hex of the map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HexInfo {
    /// Main terrain.
    pub terrain: Terrain,
    /// Ground level (hills), 0 on the plain.
    pub level: i8,
    /// Other features.
    pub features: Features,
    /// Height of a building in levels: 0 or 1 is a single-story building (a
    /// one-level obstacle, Locations at ground level only), 2 a building
    /// with a level 1 above its ground level, and so on. Ignored for other
    /// terrain ([`crate::board::map::Map::validate`] refuses it there).
    pub building_levels: u8,
    /// Which building the hex belongs to. Two adjacent building hexes are the
    /// same building when their ids are equal, or when either has no id
    /// (contiguous building hexes without ids form one building).
    pub building_id: Option<u32>,
}

impl HexInfo {
    /// A hex of this terrain at level 0 with no features.
    pub fn of(terrain: Terrain) -> HexInfo {
        HexInfo {
            terrain,
            ..HexInfo::default()
        }
    }

    /// Height in levels of the obstacle in the hex above its ground level:
    /// woods 1, a building its [`HexInfo::building_levels`] (at least 1),
    /// anything else 0. Minefields are no obstacle (B28.2).
    pub fn obstacle_height(&self) -> i8 {
        match self.terrain {
            Terrain::Woods => 1,
            t if t.is_building() => self.building_levels.clamp(1, i8::MAX as u8) as i8,
            _ => 0,
        }
    }

    /// The level of the top of the hex's obstacle (ground level plus
    /// obstacle height); the ground level if it has none.
    pub fn obstacle_top(&self) -> i16 {
        self.level as i16 + self.obstacle_height() as i16
    }

    /// Terrain Effects Modifier of the hex ([`Terrain::tem`]).
    pub fn tem(&self) -> i8 {
        self.terrain.tem()
    }

    /// Whether two building hexes belong to the same building (see
    /// [`HexInfo::building_id`]); false unless both are buildings.
    pub fn same_building(&self, other: &HexInfo) -> bool {
        if !self.terrain.is_building() || !other.terrain.is_building() {
            return false;
        }
        match (self.building_id, other.building_id) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
    }
}

/// What lies along one hexside, as far as these rules look at it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HexsideInfo {
    /// A building hexside: moving across it stays inside a building, so a
    /// minefield in the building hex does not attack (B28.44) unless the unit
    /// uses Bypass. Two adjacent hexes of the same building always share a
    /// building hexside; a scenario may mark others.
    pub building: bool,
    /// A wall along the hexside (no LOS effect in this version).
    pub wall: bool,
    /// A hedge along the hexside (no LOS effect in this version).
    pub hedge: bool,
    /// A bridge carries movement across this hexside (e.g. over a stream).
    pub bridge: bool,
}

/// How a minefield would be placed (B28.1, B28.53).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MinePlacement {
    /// A hidden A-P minefield (B28.1).
    HiddenAp,
    /// A hidden A-T minefield (B28.1, B28.5).
    HiddenAt,
    /// A-T mines in full view, on a hard surface only (B28.53).
    AtInFullView,
}

impl fmt::Display for MinePlacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MinePlacement::HiddenAp => "a hidden A-P minefield",
            MinePlacement::HiddenAt => "a hidden A-T minefield",
            MinePlacement::AtInFullView => "A-T mines in full view",
        })
    }
}

/// Whether the hex's own terrain allows this minefield placement (B28.1,
/// B28.53). On refusal, the terrain (or feature) that forbids it.
///
/// Hidden minefields (A-P or A-T) are forbidden in a bridge, paved road,
/// runway, ice (ruling R22: B28.53 counts ice among the places where A-P
/// mines may not lie), sewer, marsh, crag, rubble or Water Obstacle hex.
/// A-T mines in full view are allowed only on a bridge, paved road, ice or
/// runway (B28.53; elsewhere mines are hidden, B28.1), and still not in a
/// sewer, marsh, crag or rubble hex; on a Water Obstacle only on its bridge
/// or its ice.
///
/// Interior Building Hexes (B28.1, B28.44) need the neighbours: see
/// [`crate::board::map::Map::mine_placement_allowed`], which checks both.
pub fn minefield_allowed(info: &HexInfo, placement: MinePlacement) -> Result<(), &'static str> {
    let f = &info.features;
    // Bans that hold for every placement (B28.1).
    if f.sewer {
        return Err("sewer");
    }
    match info.terrain {
        Terrain::Marsh => return Err("marsh"),
        Terrain::Crag => return Err("crag"),
        Terrain::Rubble => return Err("rubble"),
        Terrain::StoneRubble => return Err("stone rubble"),
        _ => {}
    }
    match placement {
        MinePlacement::HiddenAp | MinePlacement::HiddenAt => {
            // B28.1 [EXC: non-hidden A-T mines, B28.53].
            if f.bridge {
                return Err("bridge");
            }
            if f.paved_road {
                return Err("paved road");
            }
            if f.runway {
                return Err("runway");
            }
            if f.ice {
                return Err("ice");
            }
            if info.terrain == Terrain::Water {
                return Err("Water Obstacle");
            }
            Ok(())
        }
        MinePlacement::AtInFullView => {
            // B28.53: only on a hard surface; a bridge spans its water and
            // ice covers it (ice is found on frozen Water Obstacles).
            if !f.hard_surface() {
                return Err("no bridge, paved road, ice or runway (A-T mines in full view only lie there, B28.53)");
            }
            if info.terrain == Terrain::Water && !f.bridge && !f.ice {
                return Err("Water Obstacle");
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut HexInfo)) -> HexInfo {
        let mut h = HexInfo::default();
        f(&mut h);
        h
    }

    const ALL_PLACEMENTS: [MinePlacement; 3] = [
        MinePlacement::HiddenAp,
        MinePlacement::HiddenAt,
        MinePlacement::AtInFullView,
    ];

    #[test]
    fn b28_1_hidden_minefields_allowed_in_open_woods_grain_buildings() {
        for t in [
            Terrain::Open,
            Terrain::Grain,
            Terrain::Brush,
            Terrain::Orchard,
            Terrain::Woods,
            Terrain::WoodenBuilding,
            Terrain::StoneBuilding,
        ] {
            let h = HexInfo::of(t);
            assert_eq!(
                minefield_allowed(&h, MinePlacement::HiddenAp),
                Ok(()),
                "{t}"
            );
            assert_eq!(
                minefield_allowed(&h, MinePlacement::HiddenAt),
                Ok(()),
                "{t}"
            );
        }
        // A dirt road is no hard surface.
        let dirt = with(|h| h.features.dirt_road = true);
        assert_eq!(minefield_allowed(&dirt, MinePlacement::HiddenAp), Ok(()));
    }

    #[test]
    fn b28_1_placement_bans_name_the_terrain() {
        let cases: [(HexInfo, &str); 10] = [
            (with(|h| h.features.bridge = true), "bridge"),
            (with(|h| h.features.paved_road = true), "paved road"),
            (with(|h| h.features.runway = true), "runway"),
            (with(|h| h.features.sewer = true), "sewer"),
            (HexInfo::of(Terrain::Marsh), "marsh"),
            (HexInfo::of(Terrain::Crag), "crag"),
            (HexInfo::of(Terrain::Rubble), "rubble"),
            (HexInfo::of(Terrain::StoneRubble), "stone rubble"),
            (HexInfo::of(Terrain::Water), "Water Obstacle"),
            // B28.53 x R22: ice is where A-P mines may not lie.
            (with(|h| h.features.ice = true), "ice"),
        ];
        for (info, name) in cases {
            assert_eq!(minefield_allowed(&info, MinePlacement::HiddenAp), Err(name));
            assert_eq!(minefield_allowed(&info, MinePlacement::HiddenAt), Err(name));
        }
    }

    #[test]
    fn b28_53_at_in_full_view_on_bridge_paved_road_ice_runway() {
        let hard = [
            with(|h| h.features.bridge = true),
            with(|h| h.features.paved_road = true),
            with(|h| h.features.ice = true),
            with(|h| h.features.runway = true),
            // A bridge over a Water Obstacle: the mines lie on the bridge.
            with(|h| {
                h.terrain = Terrain::Water;
                h.features.bridge = true
            }),
            // A frozen Water Obstacle: the mines lie on the ice.
            with(|h| {
                h.terrain = Terrain::Water;
                h.features.ice = true
            }),
        ];
        for info in hard {
            assert_eq!(
                minefield_allowed(&info, MinePlacement::AtInFullView),
                Ok(()),
                "{info:?}"
            );
            assert!(minefield_allowed(&info, MinePlacement::HiddenAp).is_err());
        }
    }

    #[test]
    fn b28_53_at_in_full_view_refused_off_hard_surface_and_in_banned_terrain() {
        for t in [Terrain::Open, Terrain::Woods, Terrain::StoneBuilding] {
            assert!(minefield_allowed(&HexInfo::of(t), MinePlacement::AtInFullView).is_err());
        }
        let sewer_road = with(|h| {
            h.features.paved_road = true;
            h.features.sewer = true
        });
        let rubble_road = with(|h| {
            h.terrain = Terrain::Rubble;
            h.features.paved_road = true
        });
        assert_eq!(
            minefield_allowed(&sewer_road, MinePlacement::AtInFullView),
            Err("sewer")
        );
        assert_eq!(
            minefield_allowed(&rubble_road, MinePlacement::AtInFullView),
            Err("rubble")
        );
        let road_in_water = with(|h| {
            h.terrain = Terrain::Water;
            h.features.paved_road = true
        });
        assert_eq!(
            minefield_allowed(&road_in_water, MinePlacement::AtInFullView),
            Err("Water Obstacle")
        );
        for p in ALL_PLACEMENTS {
            assert_eq!(
                minefield_allowed(&HexInfo::of(Terrain::Marsh), p),
                Err("marsh")
            );
        }
    }

    #[test]
    fn obstacle_heights_and_tem() {
        assert_eq!(HexInfo::of(Terrain::Open).obstacle_height(), 0);
        assert_eq!(HexInfo::of(Terrain::Grain).obstacle_height(), 0);
        assert_eq!(HexInfo::of(Terrain::Woods).obstacle_height(), 1);
        assert_eq!(HexInfo::of(Terrain::WoodenBuilding).obstacle_height(), 1);
        let tall = with(|h| {
            h.terrain = Terrain::StoneBuilding;
            h.building_levels = 3;
            h.level = 1
        });
        assert_eq!(tall.obstacle_height(), 3);
        assert_eq!(tall.obstacle_top(), 4);
        let hill = with(|h| h.level = 2);
        assert_eq!(hill.obstacle_top(), 2);
        assert_eq!(Terrain::Woods.tem(), 1);
        assert_eq!(Terrain::WoodenBuilding.tem(), 2);
        assert_eq!(Terrain::StoneBuilding.tem(), 3);
        assert_eq!(Terrain::Open.tem(), 0);
        assert_eq!(tall.tem(), 3);
    }

    #[test]
    fn same_building_by_id_or_contiguity() {
        let a = HexInfo::of(Terrain::StoneBuilding);
        let b = HexInfo::of(Terrain::WoodenBuilding);
        assert!(a.same_building(&b));
        let a1 = with(|h| {
            h.terrain = Terrain::StoneBuilding;
            h.building_id = Some(1)
        });
        let a2 = HexInfo {
            building_id: Some(2),
            ..a1
        };
        assert!(a1.same_building(&a1));
        assert!(!a1.same_building(&a2));
        assert!(a1.same_building(&a));
        assert!(!a.same_building(&HexInfo::of(Terrain::Woods)));
    }

    #[derive(Deserialize)]
    struct Doc {
        hex: HexInfo,
    }

    #[test]
    fn hex_info_reads_from_toml_and_json() {
        let doc: Doc = toml::from_str(
            r#"hex = { terrain = "woods", level = 1, features = { paved_road = true } }"#,
        )
        .unwrap();
        let want = with(|h| {
            h.terrain = Terrain::Woods;
            h.level = 1;
            h.features.paved_road = true
        });
        assert_eq!(doc.hex, want);
        let j: HexInfo =
            serde_json::from_str(r#"{"terrain":"woods","level":1,"features":{"paved_road":true}}"#)
                .unwrap();
        assert_eq!(j, want);
        let b: HexInfo = serde_json::from_str(
            r#"{"terrain":"stone_building","building_levels":2,"building_id":7}"#,
        )
        .unwrap();
        assert_eq!(b.terrain, Terrain::StoneBuilding);
        assert_eq!(b.building_levels, 2);
        assert_eq!(b.building_id, Some(7));
        // Round trip keeps the snake_case names.
        let s = serde_json::to_string(&b).unwrap();
        assert!(s.contains("\"stone_building\""), "{s}");
        // Issue 27 item 7: shown in words, written as the key.
        assert_eq!(Terrain::StoneBuilding.to_string(), "stone building");
        assert_eq!(Terrain::StoneBuilding.name(), "stone_building");
        assert_eq!(serde_json::from_str::<HexInfo>(&s).unwrap(), b);
    }

    #[test]
    fn unknown_terrain_is_a_clear_error_naming_the_value() {
        let e = toml::from_str::<Doc>(r#"hex = { terrain = "forest" }"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("forest"), "{e}");
        assert!(e.contains("woods"), "the error lists the known names: {e}");
        let e = serde_json::from_str::<HexInfo>(r#"{"terrain":"forest"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `forest`"), "{e}");
        // A misspelt field is refused rather than silently ignored.
        let e = serde_json::from_str::<HexInfo>(r#"{"terain":"woods"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("terain"), "{e}");
        let e = toml::from_str::<Doc>(r#"hex = { features = { paved = true } }"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("paved"), "{e}");
    }
}
