//! The scenario map: boards placed in a grid, the hexes on them, their
//! terrain and hexsides.
//!
//! # Board layout
//!
//! Each board sits at a (board column, board row) position of a grid
//! ([`BoardPlacement`]); without an explicit `layout` the boards of `boards`
//! lie left to right in one row. A board spans 32 columns of offset, not
//! 33: column GG of one board and column A of the board to its right are the
//! same (half) hexes. It spans 20 doubled rows: row 10 of the odd-index
//! columns (B, D, ...) of one board is row 0 of the board below. A board may
//! be `inverted` (turned 180 degrees): its hex `cR` then lies where
//! `(GG - c, 10 - R)` of an upright board would (11 - R in even-index
//! columns).
//!
//! Hex centres get global doubled coordinates ([`MapPos`]). A hex on a seam
//! has two names (`1GG5` and `2A5`); [`Map::canonical`] picks the name on
//! the board that comes first in reading order (upper board row first, then
//! left board column), so every method returns canonical names and
//! `map.canonical(a) == map.canonical(b)` tells whether two names are the
//! same hex. Sealed locations must use canonical names.

use crate::board::hex::{Direction, Hex, MapPos, Spine, COLUMNS, MAX_ROW};
use crate::board::terrain::{minefield_allowed, HexInfo, HexsideInfo, MinePlacement, Terrain};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Columns of offset from one board to the next one to its right.
pub const BOARD_WIDTH: i32 = COLUMNS as i32 - 1;
/// Doubled rows of offset from one board to the next one below it.
pub const BOARD_HEIGHT: i32 = 2 * MAX_ROW as i32;

/// Where one board lies in the board grid of a [`Map`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardPlacement {
    /// The board number.
    pub board: u16,
    /// Board column in the grid, 0 = leftmost.
    pub column: u8,
    /// Board row in the grid, 0 = topmost.
    #[serde(default)]
    pub row: u8,
    /// Turned 180 degrees.
    #[serde(default)]
    pub inverted: bool,
}

/// Terrain along one hexside, as a scenario lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideEntry {
    /// The two adjacent hexes the hexside lies between.
    pub between: [Hex; 2],
    /// What lies along it.
    #[serde(default)]
    pub side: HexsideInfo,
}

/// Why a map is inconsistent ([`Map::validate`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// The map has no board.
    #[error("the map has no board")]
    NoBoards,
    /// A board is listed twice.
    #[error("board {0} is listed twice")]
    DuplicateBoard(u16),
    /// A layout is given but does not place this board.
    #[error("board {0} is in play but the layout does not place it")]
    UnplacedBoard(u16),
    /// The layout places a board that is not in play, or places one twice.
    #[error("the layout places board {0}, which is not in play or is placed twice")]
    StrayPlacement(u16),
    /// Two boards at the same grid position.
    #[error("boards {first} and {second} are both placed at board column {column}, row {row}")]
    SamePosition {
        /// The first board.
        first: u16,
        /// The second board.
        second: u16,
        /// Grid column.
        column: u8,
        /// Grid row.
        row: u8,
    },
    /// Terrain given for a hex that is not on the map.
    #[error("terrain is given for hex {0}, which is not on the map")]
    HexOffMap(Hex),
    /// A seam hex is given twice, under each of its names, with different
    /// terrain.
    #[error("hexes {first} and {second} are the same hex but are given different terrain")]
    ConflictingSeamHex {
        /// One name.
        first: Hex,
        /// The other name.
        second: Hex,
    },
    /// Building fields on a hex that is not a building.
    #[error("hex {hex} is {terrain}, not a building, but has building_levels or building_id")]
    BuildingFieldsOffBuilding {
        /// The hex.
        hex: Hex,
        /// Its terrain.
        terrain: Terrain,
    },
    /// A hexside between two hexes that are not adjacent on the map.
    #[error("hexside {a}-{b}: the two hexes are not adjacent on the map")]
    HexsideNotAdjacent {
        /// One hex.
        a: Hex,
        /// The other.
        b: Hex,
    },
    /// The same hexside is given twice.
    #[error("hexside {a}-{b} is given twice")]
    DuplicateHexside {
        /// One hex.
        a: Hex,
        /// The other.
        b: Hex,
    },
}

/// Why a minefield may not be placed in a hex ([`Map::mine_placement_allowed`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// The hex is not on the map.
    #[error("hex {0} is not on the map")]
    OffMap(Hex),
    /// The hex's terrain forbids it (B28.1, B28.53).
    #[error("{placement} may not be placed in hex {hex}: {terrain} (B28.1, B28.53)")]
    Terrain {
        /// The (canonical) hex.
        hex: Hex,
        /// What was to be placed.
        placement: MinePlacement,
        /// The terrain or feature that forbids it.
        terrain: &'static str,
    },
    /// The hex is an Interior Building Hex (B28.1, B28.44).
    #[error("{placement} may not be placed in hex {hex}: Interior Building Hex (B28.1, B28.44)")]
    InteriorBuilding {
        /// The (canonical) hex.
        hex: Hex,
        /// What was to be placed.
        placement: MinePlacement,
    },
}

/// The map of a scenario: which boards are in play, where they lie, and the
/// terrain of every hex that is not plain Open Ground.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Map {
    /// Boards in play.
    pub boards: Vec<u16>,
    /// Where each board lies; empty: the boards of `boards` left to right
    /// in one row, upright.
    #[serde(default)]
    pub layout: Vec<BoardPlacement>,
    /// Terrain of listed hexes (a seam hex under either name); any other
    /// hex of the map is Open Ground at level 0.
    #[serde(default)]
    pub hexes: BTreeMap<Hex, HexInfo>,
    /// Hexsides with something along them.
    #[serde(default)]
    pub hexsides: Vec<HexsideEntry>,
}

impl Map {
    /// A map of these boards, left to right, all Open Ground.
    pub fn new(boards: impl IntoIterator<Item = u16>) -> Map {
        Map {
            boards: boards.into_iter().collect(),
            ..Map::default()
        }
    }

    /// A map of upright boards in rows: `rows[r][c]` is the board at board
    /// row `r`, board column `c`.
    pub fn from_rows(rows: &[&[u16]]) -> Map {
        let mut map = Map::default();
        for (r, row) in rows.iter().enumerate() {
            for (c, &board) in row.iter().enumerate() {
                map.boards.push(board);
                map.layout.push(BoardPlacement {
                    board,
                    column: c as u8,
                    row: r as u8,
                    inverted: false,
                });
            }
        }
        map
    }

    /// Sets the terrain of a hex (builder style).
    pub fn with_hex(mut self, hex: Hex, info: HexInfo) -> Map {
        self.hexes.insert(hex, info);
        self
    }

    /// Adds a hexside entry (builder style).
    pub fn with_hexside(mut self, a: Hex, b: Hex, side: HexsideInfo) -> Map {
        self.hexsides.push(HexsideEntry {
            between: [a, b],
            side,
        });
        self
    }

    /// Checks the map for inconsistencies: duplicate or unplaced boards,
    /// overlapping placements, terrain off the map, a seam hex given two
    /// different terrains, building fields off a building, hexsides between
    /// hexes that are not adjacent.
    pub fn validate(&self) -> Result<(), MapError> {
        if self.boards.is_empty() {
            return Err(MapError::NoBoards);
        }
        for (i, b) in self.boards.iter().enumerate() {
            if self.boards[..i].contains(b) {
                return Err(MapError::DuplicateBoard(*b));
            }
        }
        if !self.layout.is_empty() {
            for (i, p) in self.layout.iter().enumerate() {
                if !self.boards.contains(&p.board)
                    || self.layout[..i].iter().any(|q| q.board == p.board)
                {
                    return Err(MapError::StrayPlacement(p.board));
                }
                if let Some(q) = self.layout[..i]
                    .iter()
                    .find(|q| (q.column, q.row) == (p.column, p.row))
                {
                    return Err(MapError::SamePosition {
                        first: q.board,
                        second: p.board,
                        column: p.column,
                        row: p.row,
                    });
                }
            }
            if let Some(b) = self
                .boards
                .iter()
                .find(|b| !self.layout.iter().any(|p| p.board == **b))
            {
                return Err(MapError::UnplacedBoard(*b));
            }
        }
        for (&hex, info) in &self.hexes {
            if !self.contains(hex) {
                return Err(MapError::HexOffMap(hex));
            }
            if !info.terrain.is_building()
                && (info.building_levels > 0 || info.building_id.is_some())
            {
                return Err(MapError::BuildingFieldsOffBuilding {
                    hex,
                    terrain: info.terrain,
                });
            }
            for other in self.names(hex) {
                if other != hex {
                    if let Some(o) = self.hexes.get(&other) {
                        if o != info {
                            return Err(MapError::ConflictingSeamHex {
                                first: hex.min(other),
                                second: hex.max(other),
                            });
                        }
                    }
                }
            }
        }
        let mut seen: Vec<(Hex, Hex)> = Vec::new();
        for e in &self.hexsides {
            let [a, b] = e.between;
            if !self.adjacent(a, b) {
                return Err(MapError::HexsideNotAdjacent { a, b });
            }
            let key = self.hexside_key(a, b);
            if seen.contains(&key) {
                return Err(MapError::DuplicateHexside { a, b });
            }
            seen.push(key);
        }
        Ok(())
    }

    /// Where a board lies, if it is on the map.
    pub fn placement(&self, board: u16) -> Option<BoardPlacement> {
        if self.layout.is_empty() {
            let i = self.boards.iter().position(|&b| b == board)?;
            return Some(BoardPlacement {
                board,
                column: u8::try_from(i).ok()?,
                row: 0,
                inverted: false,
            });
        }
        if !self.boards.contains(&board) {
            return None;
        }
        self.layout.iter().copied().find(|p| p.board == board)
    }

    /// Whether the hex is on a board of this map (and names a hex of a
    /// board at all: `Hex`'s fields are public, so a value `Hex::new`
    /// refuses can be built in code).
    pub fn contains(&self, hex: Hex) -> bool {
        Hex::new(hex.board, hex.col, hex.row).is_ok() && self.placement(hex.board).is_some()
    }

    /// The global position of a hex, if its board is on the map.
    pub fn pos(&self, hex: Hex) -> Option<MapPos> {
        let p = self.placement(hex.board)?;
        let (mut x, mut y) = hex.local_xy();
        if p.inverted {
            x = BOARD_WIDTH - x;
            y = BOARD_HEIGHT - y;
        }
        Some(MapPos {
            x: p.column as i32 * BOARD_WIDTH + x,
            y: p.row as i32 * BOARD_HEIGHT + y,
        })
    }

    /// The name of `pos` on board placement `p`, if the board covers it.
    fn name_on(p: &BoardPlacement, pos: MapPos) -> Option<Hex> {
        let mut x = pos.x - p.column as i32 * BOARD_WIDTH;
        let mut y = pos.y - p.row as i32 * BOARD_HEIGHT;
        if p.inverted {
            x = BOARD_WIDTH - x;
            y = BOARD_HEIGHT - y;
        }
        if !(0..=BOARD_WIDTH).contains(&x) || !(0..=BOARD_HEIGHT).contains(&y) {
            return None;
        }
        let col = x as u8;
        let row = if col.is_multiple_of(2) {
            if y % 2 != 1 {
                return None;
            }
            (y + 1) / 2
        } else {
            if y % 2 != 0 {
                return None;
            }
            y / 2
        };
        Hex::new(p.board, col, row as u8).ok()
    }

    /// The board placed at grid position (`column`, `row`), if any.
    fn board_at(&self, column: i32, row: i32) -> Option<BoardPlacement> {
        let (c, r) = (u8::try_from(column).ok()?, u8::try_from(row).ok()?);
        if self.layout.is_empty() {
            let board = *self.boards.get(c as usize).filter(|_| r == 0)?;
            return Some(BoardPlacement {
                board,
                column: c,
                row: r,
                inverted: false,
            });
        }
        self.layout
            .iter()
            .copied()
            .find(|p| (p.column, p.row) == (c, r) && self.boards.contains(&p.board))
    }

    /// The names of a global position on the boards that cover it, in
    /// reading order of the boards (upper row first, then left column):
    /// the first is the canonical one. At most two.
    fn names_at(&self, pos: MapPos) -> Vec<Hex> {
        let spans = |v: i32, size: i32| {
            let i = v.div_euclid(size);
            if v.rem_euclid(size) == 0 {
                [Some(i - 1), Some(i)]
            } else {
                [Some(i), None]
            }
        };
        let cols = spans(pos.x, BOARD_WIDTH);
        let rows = spans(pos.y, BOARD_HEIGHT);
        let mut out = Vec::with_capacity(2);
        for r in rows.into_iter().flatten() {
            for c in cols.into_iter().flatten() {
                if let Some(hex) = self.board_at(c, r).and_then(|p| Map::name_on(&p, pos)) {
                    out.push(hex);
                }
            }
        }
        out
    }

    /// The canonical hex at a global position, if a board covers it.
    pub fn hex_at(&self, pos: MapPos) -> Option<Hex> {
        self.names_at(pos).into_iter().next()
    }

    /// Every name of the hex on the map (two for a seam hex, one
    /// otherwise), canonical first; empty if the hex is off the map.
    pub fn names(&self, hex: Hex) -> Vec<Hex> {
        match self.pos(hex) {
            Some(pos) => self.names_at(pos),
            None => Vec::new(),
        }
    }

    /// Every hex of the map once, by canonical name: board by board in
    /// reading order of the layout, then column by column, row by row.
    pub fn all_hexes(&self) -> Vec<Hex> {
        let mut placements: Vec<BoardPlacement> = self
            .boards
            .iter()
            .filter_map(|&b| self.placement(b))
            .collect();
        placements.sort_by_key(|p| (p.row, p.column));
        let mut out = Vec::new();
        for p in placements {
            for col in 0..COLUMNS {
                for row in 0..=MAX_ROW {
                    if let Ok(hex) = Hex::new(p.board, col, row) {
                        if self.canonical(hex) == hex {
                            out.push(hex);
                        }
                    }
                }
            }
        }
        out
    }

    /// The canonical name of a hex: the same for both names of a seam hex
    /// (`1GG5` and `2A5` with board 2 right of board 1 both give `1GG5`).
    /// A hex off the map is returned unchanged.
    pub fn canonical(&self, hex: Hex) -> Hex {
        self.pos(hex).and_then(|p| self.hex_at(p)).unwrap_or(hex)
    }

    /// Whether two names denote the same hex of the map.
    pub fn same_hex(&self, a: Hex, b: Hex) -> bool {
        self.canonical(a) == self.canonical(b)
    }

    /// The terrain of a hex on the map (under whichever name it is listed);
    /// Open Ground at level 0 for a hex not listed or off the map.
    pub fn info(&self, hex: Hex) -> HexInfo {
        if let Some(info) = self.hexes.get(&hex) {
            return *info;
        }
        self.names(hex)
            .into_iter()
            .find_map(|h| self.hexes.get(&h).copied())
            .unwrap_or_default()
    }

    /// The terrain at a global position (Open Ground off the map).
    pub fn info_at(&self, pos: MapPos) -> HexInfo {
        self.hex_at(pos).map(|h| self.info(h)).unwrap_or_default()
    }

    /// The (canonical) neighbour of a hex across one of its hexsides, if
    /// that hex is on the map.
    pub fn neighbor(&self, hex: Hex, d: Direction) -> Option<Hex> {
        self.hex_at(self.pos(hex)?.step(d))
    }

    /// The hexes sharing a hexside with this one, across boards, in
    /// [`Direction::ALL`] order (N, NE, SE, S, SW, NW), canonical names;
    /// fewer than six at a map edge.
    pub fn neighbors(&self, hex: Hex) -> Vec<Hex> {
        Direction::ALL
            .into_iter()
            .filter_map(|d| self.neighbor(hex, d))
            .collect()
    }

    /// The hexes meeting at one vertex of a hex (the end of one of its
    /// hexspines, C3.2, B28.46): the hex itself, then its neighbours across
    /// the two hexsides at that vertex, those on the map only.
    pub fn spine_hexes(&self, hex: Hex, spine: Spine) -> Vec<Hex> {
        if !self.contains(hex) {
            return Vec::new();
        }
        let [d1, d2] = spine.hexsides();
        std::iter::once(Some(self.canonical(hex)))
            .chain([self.neighbor(hex, d1), self.neighbor(hex, d2)])
            .flatten()
            .collect()
    }

    /// The hexside of `a` that `b` lies across, if they are adjacent.
    pub fn direction(&self, a: Hex, b: Hex) -> Option<Direction> {
        let (pa, pb) = (self.pos(a)?, self.pos(b)?);
        Direction::from_delta(pb.x - pa.x, pb.y - pa.y)
    }

    /// Whether two hexes of the map share a hexside (across boards too).
    pub fn adjacent(&self, a: Hex, b: Hex) -> bool {
        self.direction(a, b).is_some()
    }

    /// Distance in hexes between two hexes of the map; a hex is at distance
    /// 0 from itself (under either name). `u32::MAX` if either is off the
    /// map.
    pub fn distance(&self, a: Hex, b: Hex) -> u32 {
        match (self.pos(a), self.pos(b)) {
            (Some(pa), Some(pb)) => pa.distance(pb),
            _ => u32::MAX,
        }
    }

    fn hexside_key(&self, a: Hex, b: Hex) -> (Hex, Hex) {
        let (a, b) = (self.canonical(a), self.canonical(b));
        (a.min(b), b.max(a))
    }

    /// What lies along the hexside between two adjacent hexes; `None` if
    /// they are not adjacent. The hexside is a building hexside (B28.44)
    /// when the scenario marks it so or when both hexes are of the same
    /// building ([`HexInfo::same_building`]).
    pub fn hexside(&self, a: Hex, b: Hex) -> Option<HexsideInfo> {
        if !self.adjacent(a, b) {
            return None;
        }
        let key = self.hexside_key(a, b);
        let mut side = self
            .hexsides
            .iter()
            .find(|e| self.hexside_key(e.between[0], e.between[1]) == key)
            .map(|e| e.side)
            .unwrap_or_default();
        if self.info(a).same_building(&self.info(b)) {
            side.building = true;
        }
        Some(side)
    }

    /// Whether the hex is an Interior Building Hex (B28.1, B28.44): a
    /// building hex all six of whose neighbours are on the map and are
    /// building hexes of the same building. A building hex at a map edge is
    /// never interior.
    pub fn is_interior_building(&self, hex: Hex) -> bool {
        let info = self.info(hex);
        if !info.terrain.is_building() {
            return false;
        }
        let around = self.neighbors(hex);
        around.len() == 6 && around.iter().all(|&n| info.same_building(&self.info(n)))
    }

    /// Whether a minefield may be placed in the hex (B28.1, B28.44,
    /// B28.53): its terrain ([`minefield_allowed`]) and, for any placement,
    /// not an Interior Building Hex. The error names the hex (canonical)
    /// and what forbids it.
    pub fn mine_placement_allowed(
        &self,
        hex: Hex,
        placement: MinePlacement,
    ) -> Result<(), PlacementError> {
        if !self.contains(hex) {
            return Err(PlacementError::OffMap(hex));
        }
        let canon = self.canonical(hex);
        minefield_allowed(&self.info(hex), placement).map_err(|terrain| {
            PlacementError::Terrain {
                hex: canon,
                placement,
                terrain,
            }
        })?;
        if self.is_interior_building(hex) {
            return Err(PlacementError::InteriorBuilding {
                hex: canon,
                placement,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(name: &str) -> Hex {
        name.parse().unwrap()
    }

    fn building(id: Option<u32>) -> HexInfo {
        HexInfo {
            building_id: id,
            ..HexInfo::of(Terrain::StoneBuilding)
        }
    }

    #[test]
    fn neighbours_on_one_board() {
        let map = Map::new([4]);
        // Even-index column E: row 6's neighbours are E5, E7 and the D/F
        // hexes of rows 5 and 6 (A-type columns sit half a hex higher).
        assert_eq!(
            map.neighbors(h("4E6")),
            ["4E5", "4F5", "4F6", "4E7", "4D6", "4D5"].map(h).to_vec()
        );
        // Odd-index column F: F6 touches E5/E6 and G5/G6.
        assert_eq!(
            map.neighbors(h("4F6")),
            ["4F5", "4G6", "4G7", "4F7", "4E7", "4E6"].map(h).to_vec()
        );
        assert!(map.adjacent(h("4E6"), h("4F5")));
        assert!(!map.adjacent(h("4E6"), h("4F7")));
        assert_eq!(map.direction(h("4E6"), h("4E5")), Some(Direction::N));
        assert_eq!(map.direction(h("4E6"), h("4D6")), Some(Direction::SW));
        assert_eq!(map.direction(h("4E6"), h("4D5")), Some(Direction::NW));
        assert_eq!(map.direction(h("4E6"), h("4E8")), None);
        // Corner hex A1 has three neighbours on a lone board.
        assert_eq!(
            map.neighbors(h("4A1")),
            ["4B0", "4B1", "4A2"].map(h).to_vec()
        );
        // Half hex B0 on the top edge.
        assert_eq!(map.neighbors(h("4B0")).len(), 3);
        assert_eq!(map.neighbors(h("4B10")).len(), 3);
    }

    #[test]
    fn distances_on_one_board() {
        let map = Map::new([4]);
        assert_eq!(map.distance(h("4E6"), h("4E6")), 0);
        assert_eq!(map.distance(h("4E6"), h("4E10")), 4);
        assert_eq!(map.distance(h("4E6"), h("4I6")), 4);
        assert_eq!(map.distance(h("4E6"), h("4I8")), 4);
        assert_eq!(map.distance(h("4E6"), h("4I9")), 5);
        assert_eq!(map.distance(h("4A1"), h("4GG10")), 32);
        assert_eq!(map.distance(h("4E6"), h("5E6")), u32::MAX);
    }

    #[test]
    fn seam_hexes_side_by_side_share_a_canonical_name() {
        let map = Map::new([1, 2]);
        for r in 1..=10 {
            let left = Hex::new(1, 32, r).unwrap();
            let right = Hex::new(2, 0, r).unwrap();
            assert_eq!(map.canonical(right), left);
            assert_eq!(map.canonical(left), left);
            assert!(map.same_hex(left, right));
            assert_eq!(map.names(right), vec![left, right]);
            assert_eq!(map.distance(left, right), 0);
        }
        // Across the seam: 1FF5 and 2B5 are two hexes apart (GG/A between).
        assert_eq!(map.distance(h("1FF5"), h("2B5")), 2);
        assert!(map.adjacent(h("2A5"), h("1FF5")));
        assert_eq!(map.neighbors(h("2A5")).len(), 6);
        assert!(map.neighbors(h("2A5")).contains(&h("1FF5")));
        assert!(map.neighbors(h("1FF5")).contains(&h("1GG5")));
        // 2B5 sees its west neighbours under board 1's names.
        assert!(map.neighbors(h("2B5")).contains(&h("1GG5")));
        assert!(map.neighbors(h("2B5")).contains(&h("1GG6")));
        assert!(!map.same_hex(h("1GG5"), h("2A6")));
    }

    #[test]
    fn seam_hexes_stacked_share_a_canonical_name() {
        let map = Map::from_rows(&[&[1], &[2]]);
        assert_eq!(map.canonical(h("2B0")), h("1B10"));
        assert_eq!(map.canonical(h("2FF0")), h("1FF10"));
        assert!(map.same_hex(h("1B10"), h("2B0")));
        // 1A10 (y 19) touches 1B10 = 2B0 and, across the seam, 2A1 (y 21).
        assert!(map.adjacent(h("1A10"), h("2B0")));
        assert!(map.adjacent(h("2A1"), h("1B10")));
        assert_eq!(map.distance(h("1A10"), h("2A1")), 1);
        assert_eq!(map.neighbor(h("1A10"), Direction::S), Some(h("2A1")));
        assert_eq!(map.neighbor(h("2B1"), Direction::N), Some(h("1B10")));
    }

    #[test]
    fn two_by_two_layout_and_holes() {
        let map = Map::from_rows(&[&[1, 2], &[3, 4]]);
        map.validate().unwrap();
        assert_eq!(map.pos(h("4A1")), Some(MapPos { x: 32, y: 21 }));
        assert_eq!(map.canonical(h("4A1")), h("3GG1"));
        assert_eq!(map.canonical(h("4B0")), h("2B10"));
        assert_eq!(map.canonical(h("3GG1")), h("3GG1"));
        assert_eq!(map.distance(h("1A1"), h("4GG10")), 64);
        // An L-shaped map: no board at (1, 1).
        let l = Map::from_rows(&[&[1, 2], &[3]]);
        l.validate().unwrap();
        assert_eq!(l.neighbor(h("3GG5"), Direction::NE), None);
        assert_eq!(l.neighbors(h("3GG5")).len(), 4);
        assert_eq!(l.hex_at(MapPos { x: 40, y: 30 }), None);
    }

    #[test]
    fn inverted_board_turns_names_around() {
        let map = Map {
            boards: vec![1, 2],
            layout: vec![
                BoardPlacement {
                    board: 1,
                    column: 0,
                    row: 0,
                    inverted: false,
                },
                BoardPlacement {
                    board: 2,
                    column: 1,
                    row: 0,
                    inverted: true,
                },
            ],
            ..Map::default()
        };
        map.validate().unwrap();
        // Inverted board 2's GG column is now its west edge: 2GG6 = 1GG5.
        assert_eq!(map.canonical(h("2GG6")), h("1GG5"));
        assert_eq!(map.pos(h("2A1")), Some(MapPos { x: 64, y: 19 }));
        // Neighbours are turned too: on an inverted board, "row - 1" is south.
        assert_eq!(map.neighbor(h("2E5"), Direction::S), Some(h("2E4")));
    }

    #[test]
    fn validate_names_what_is_wrong() {
        assert_eq!(Map::default().validate(), Err(MapError::NoBoards));
        assert_eq!(
            Map::new([1, 1]).validate(),
            Err(MapError::DuplicateBoard(1))
        );
        let mut m = Map::from_rows(&[&[1, 2]]);
        m.layout[1].column = 0;
        assert_eq!(
            m.validate(),
            Err(MapError::SamePosition {
                first: 1,
                second: 2,
                column: 0,
                row: 0
            })
        );
        let mut m = Map::from_rows(&[&[1, 2]]);
        m.boards.push(3);
        assert_eq!(m.validate(), Err(MapError::UnplacedBoard(3)));
        let mut m = Map::from_rows(&[&[1, 2]]);
        m.boards.pop();
        assert_eq!(m.validate(), Err(MapError::StrayPlacement(2)));
        let m = Map::new([1]).with_hex(h("2E5"), HexInfo::of(Terrain::Woods));
        assert_eq!(m.validate(), Err(MapError::HexOffMap(h("2E5"))));
        let m = Map::new([1, 2])
            .with_hex(h("1GG5"), HexInfo::of(Terrain::Woods))
            .with_hex(h("2A5"), HexInfo::of(Terrain::Open));
        assert_eq!(
            m.validate(),
            Err(MapError::ConflictingSeamHex {
                first: h("1GG5"),
                second: h("2A5")
            })
        );
        let m = Map::new([1]).with_hex(
            h("1E5"),
            HexInfo {
                building_levels: 2,
                ..HexInfo::of(Terrain::Woods)
            },
        );
        assert!(matches!(
            m.validate(),
            Err(MapError::BuildingFieldsOffBuilding { .. })
        ));
        let m = Map::new([1]).with_hexside(h("1E5"), h("1E7"), HexsideInfo::default());
        assert!(matches!(
            m.validate(),
            Err(MapError::HexsideNotAdjacent { .. })
        ));
        let m = Map::new([1, 2])
            .with_hexside(h("1FF5"), h("1GG5"), HexsideInfo::default())
            .with_hexside(h("2A5"), h("1FF5"), HexsideInfo::default());
        assert!(matches!(
            m.validate(),
            Err(MapError::DuplicateHexside { .. })
        ));
    }

    #[test]
    fn seam_hex_terrain_is_found_under_either_name() {
        let map = Map::new([1, 2]).with_hex(h("2A5"), HexInfo::of(Terrain::Woods));
        map.validate().unwrap();
        assert_eq!(map.info(h("1GG5")).terrain, Terrain::Woods);
        assert_eq!(map.info(h("2A5")).terrain, Terrain::Woods);
        assert_eq!(map.info(h("2A6")).terrain, Terrain::Open);
    }

    /// A 3x3 block of stone building hexes around 4F6 (plus one more).
    fn block() -> Map {
        let mut map = Map::new([4]);
        for n in ["4F6", "4F5", "4G6", "4G7", "4F7", "4E7", "4E6", "4H6"] {
            map.hexes.insert(h(n), building(None));
        }
        map
    }

    #[test]
    fn b28_44_interior_building_hex_needs_six_same_building_neighbours() {
        let map = block();
        assert!(map.is_interior_building(h("4F6")));
        assert!(
            !map.is_interior_building(h("4G6")),
            "G6 has open neighbours"
        );
        assert!(!map.is_interior_building(h("4F8")), "not a building");
        // A different building id next door breaks the interior.
        let mut split = block();
        for n in ["4F6", "4F5", "4G6", "4G7", "4F7", "4E7"] {
            split.hexes.insert(h(n), building(Some(1)));
        }
        split.hexes.insert(h("4E6"), building(Some(2)));
        assert!(!split.is_interior_building(h("4F6")));
        // A building hex at the map edge is never interior.
        let mut edge = Map::new([4]);
        for n in ["4A1", "4B0", "4B1", "4A2"] {
            edge.hexes.insert(h(n), building(None));
        }
        assert!(!edge.is_interior_building(h("4A1")));
    }

    #[test]
    fn b28_1_mine_placement_on_the_map_names_hex_and_terrain() {
        let map = block()
            .with_hex(
                h("4K3"),
                HexInfo {
                    features: crate::board::terrain::Features {
                        paved_road: true,
                        ..Default::default()
                    },
                    ..HexInfo::default()
                },
            )
            .with_hex(h("4K5"), HexInfo::of(Terrain::Marsh));
        // B28.44: non-interior building hexes may be mined.
        assert_eq!(
            map.mine_placement_allowed(h("4G6"), MinePlacement::HiddenAp),
            Ok(())
        );
        // B28.1: no minefield in an Interior Building Hex.
        let e = map
            .mine_placement_allowed(h("4F6"), MinePlacement::HiddenAt)
            .unwrap_err();
        assert_eq!(
            e,
            PlacementError::InteriorBuilding {
                hex: h("4F6"),
                placement: MinePlacement::HiddenAt
            }
        );
        assert!(e.to_string().contains("4F6"));
        assert!(e.to_string().contains("Interior Building Hex"));
        let e = map
            .mine_placement_allowed(h("4K3"), MinePlacement::HiddenAp)
            .unwrap_err();
        assert!(
            e.to_string().contains("4K3") && e.to_string().contains("paved road"),
            "{e}"
        );
        // B28.53: A-T in full view on the paved road is fine.
        assert_eq!(
            map.mine_placement_allowed(h("4K3"), MinePlacement::AtInFullView),
            Ok(())
        );
        assert!(matches!(
            map.mine_placement_allowed(h("4K5"), MinePlacement::HiddenAp),
            Err(PlacementError::Terrain {
                terrain: "marsh",
                ..
            })
        ));
        assert_eq!(
            map.mine_placement_allowed(h("9K5"), MinePlacement::HiddenAp),
            Err(PlacementError::OffMap(h("9K5")))
        );
    }

    #[test]
    fn b28_44_building_hexsides() {
        let map = block().with_hexside(
            h("4F8"),
            h("4F7"),
            HexsideInfo {
                wall: true,
                ..HexsideInfo::default()
            },
        );
        assert_eq!(
            map.hexside(h("4F6"), h("4G6")).map(|s| s.building),
            Some(true)
        );
        assert_eq!(
            map.hexside(h("4G6"), h("4H6")).map(|s| s.building),
            Some(true)
        );
        assert_eq!(
            map.hexside(h("4G6"), h("4H5")).map(|s| s.building),
            Some(false)
        );
        let wall = map.hexside(h("4F7"), h("4F8")).unwrap();
        assert!(wall.wall && !wall.building);
        assert_eq!(map.hexside(h("4F6"), h("4F8")), None);
    }

    #[test]
    fn all_hexes_lists_each_hex_once() {
        // 17 columns of 10 hexes (A, C, ..., GG) and 16 of 11 (B, ..., FF).
        assert_eq!(Map::new([1]).all_hexes().len(), 346);
        // Side by side, the seam column GG/A (10 hexes) is shared.
        let wide = Map::new([1, 2]);
        assert_eq!(wide.all_hexes().len(), 2 * 346 - 10);
        assert!(wide.all_hexes().contains(&h("1GG5")));
        assert!(!wide.all_hexes().contains(&h("2A5")));
        // Stacked, rows 10/0 of the 16 odd-index columns are shared.
        assert_eq!(
            Map::from_rows(&[&[1], &[2]]).all_hexes().len(),
            2 * 346 - 16
        );
        let four = Map::from_rows(&[&[1, 2], &[3, 4]]);
        let all = four.all_hexes();
        assert_eq!(all.len(), 4 * 346 - 2 * 10 - 2 * 16);
        let mut positions: Vec<MapPos> = all.iter().map(|&x| four.pos(x).unwrap()).collect();
        positions.sort();
        positions.dedup();
        assert_eq!(positions.len(), all.len());
    }

    #[test]
    fn spine_hexes_meet_at_a_vertex() {
        let map = Map::new([4]);
        // E6's east vertex is shared with F5 and F6.
        assert_eq!(
            map.spine_hexes(h("4E6"), Spine::E),
            ["4E6", "4F5", "4F6"].map(h).to_vec()
        );
        assert_eq!(
            map.spine_hexes(h("4E6"), Spine::NNW),
            ["4E6", "4D5", "4E5"].map(h).to_vec()
        );
        // At the map edge only the hexes on the map.
        assert_eq!(map.spine_hexes(h("4A1"), Spine::W), vec![h("4A1")]);
        // All three hexes at a vertex are mutually adjacent.
        for s in Spine::ALL {
            let v = map.spine_hexes(h("4K5"), s);
            assert_eq!(v.len(), 3);
            assert!(
                map.adjacent(v[0], v[1]) && map.adjacent(v[1], v[2]) && map.adjacent(v[0], v[2])
            );
        }
    }

    #[test]
    fn hexsides_across_a_seam_under_either_name() {
        // Board 2 right of board 1: 2B5's west hexside faces 1GG5 = 2A5.
        let map = Map::new([1, 2])
            .with_hexside(
                h("2A5"),
                h("2B5"),
                HexsideInfo {
                    bridge: true,
                    ..HexsideInfo::default()
                },
            )
            .with_hex(h("1GG6"), building(Some(3)))
            .with_hex(h("2B6"), building(Some(3)))
            .with_hex(h("2B7"), building(Some(4)));
        map.validate().unwrap();
        assert!(map.hexside(h("1GG5"), h("2B5")).unwrap().bridge);
        assert!(map.hexside(h("2B5"), h("2A5")).unwrap().bridge);
        assert!(!map.hexside(h("2A5"), h("2A6")).unwrap().bridge);
        // B28.44: same building across the seam, different building beside.
        assert!(map.hexside(h("2A6"), h("2B6")).unwrap().building);
        assert!(!map.hexside(h("2B6"), h("2B7")).unwrap().building);
        // An explicit building hexside (e.g. a covered passage) is kept.
        let marked = map.clone().with_hexside(
            h("2B6"),
            h("2B7"),
            HexsideInfo {
                building: true,
                ..HexsideInfo::default()
            },
        );
        assert!(marked.hexside(h("2B7"), h("2B6")).unwrap().building);
    }

    #[test]
    fn map_reads_from_toml() {
        #[derive(Deserialize)]
        struct Doc {
            map: Map,
        }
        let doc: Doc = toml::from_str(
            r#"
            [map]
            boards = [1, 2]
            layout = [ { board = 1, column = 0 }, { board = 2, column = 0, row = 1, inverted = true } ]
            hexsides = [ { between = ["1E5", "1E6"], side = { wall = true } } ]
            [map.hexes]
            1E5 = { terrain = "woods", level = 1, features = { paved_road = true } }
            2GG5 = { terrain = "stone_building", building_levels = 2 }
            "#,
        )
        .unwrap();
        let map = doc.map;
        map.validate().unwrap();
        assert_eq!(map.info(h("1E5")).terrain, Terrain::Woods);
        assert!(map.info(h("1E5")).features.paved_road);
        assert!(map.hexside(h("1E6"), h("1E5")).unwrap().wall);
        assert_eq!(map.placement(2).map(|p| p.inverted), Some(true));
        let e = toml::from_str::<Doc>(
            "[map]\nboards = [1]\n[map.hexes]\n1E5 = { terrain = \"jungle\" }\n",
        )
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("jungle"), "{e}");
        let e = toml::from_str::<Doc>("[map]\nboards = [1]\n[map.hexes]\n1E11 = {}\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("1E11"), "{e}");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// A 2x2 grid of boards 1..=4 with random inversions, and maybe a
        /// hole where board 4 would be.
        fn arb_map() -> impl Strategy<Value = Map> {
            (prop::array::uniform4(any::<bool>()), any::<bool>()).prop_map(|(inv, hole)| {
                let mut map = Map::from_rows(&[&[1, 2], &[3, 4]]);
                for (p, i) in map.layout.iter_mut().zip(inv) {
                    p.inverted = i;
                }
                if hole {
                    map.boards.pop();
                    map.layout.pop();
                }
                map
            })
        }

        fn arb_hex() -> impl Strategy<Value = Hex> {
            (1u16..=4, 0u8..33, 0u8..=10).prop_map(|(b, c, r)| {
                Hex::new(b, c, r).unwrap_or(Hex {
                    board: b,
                    col: c,
                    row: r.max(1),
                })
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]

            #[test]
            fn neighbours_are_mutual_and_at_distance_one(map in arb_map(), a in arb_hex()) {
                prop_assume!(map.contains(a));
                let ca = map.canonical(a);
                prop_assert_eq!(map.canonical(ca), ca);
                for d in Direction::ALL {
                    if let Some(n) = map.neighbor(a, d) {
                        prop_assert_eq!(map.canonical(n), n);
                        prop_assert_eq!(map.neighbor(n, d.opposite()), Some(ca));
                        prop_assert_eq!(map.distance(a, n), 1);
                        prop_assert_eq!(map.direction(a, n), Some(d));
                        prop_assert!(map.adjacent(n, a));
                    }
                }
                for name in map.names(a) {
                    prop_assert_eq!(map.pos(name), map.pos(a));
                    prop_assert_eq!(map.canonical(name), ca);
                }
            }

            #[test]
            fn distance_is_a_metric_matching_adjacency(map in arb_map(), a in arb_hex(), b in arb_hex(), c in arb_hex()) {
                prop_assume!(map.contains(a) && map.contains(b) && map.contains(c));
                let (ab, ba) = (map.distance(a, b), map.distance(b, a));
                prop_assert_eq!(ab, ba);
                prop_assert_eq!(ab == 0, map.same_hex(a, b));
                prop_assert_eq!(ab == 1, map.adjacent(a, b));
                prop_assert!(map.distance(a, c) <= ab + map.distance(b, c));
            }

            #[test]
            fn grain_lines_are_chains(map in arb_map(), a in arb_hex(), b in arb_hex()) {
                prop_assume!(map.contains(a) && map.contains(b));
                if let Some(line) = map.grain_line(a, b) {
                    prop_assert_eq!(line[0], map.canonical(a));
                    prop_assert_eq!(*line.last().unwrap(), map.canonical(b));
                    let hex_grain = matches!(map.grain(a, b), Some(crate::board::grain::Grain::Hex(_)));
                    let step = if hex_grain { 1 } else { 2 };
                    for w in line.windows(2) {
                        prop_assert_eq!(map.distance(w[0], w[1]), step);
                    }
                    let d = map.distance(a, b);
                    prop_assert_eq!(line.len() as u32, if hex_grain { d + 1 } else { d / 2 + 1 });
                    // The reverse line is the same hexes backwards.
                    let mut back = map.grain_line(b, a).unwrap();
                    back.reverse();
                    prop_assert_eq!(back, line);
                }
            }
        }
    }
}
