//! Line of Sight between two hexes of the map (B28.2, B28.531), the
//! project's simplified, documented model of ASL LOS.
//!
//! # The model
//!
//! * LOS runs straight from the centre of one hex to the centre of the
//!   other, in real geometry (flat-topped regular hexes). The computation is
//!   exact: it works in integer coordinates `u = 3 * x`, `v = y` (an affine
//!   image of the real plane, so straight lines and "which hexes does it
//!   cross" are kept), in which a hex centred at `(U, V)` is the hexagon
//!   `|v - V| <= 1 && |u - U| + |v - V| <= 2`. Crossing points are exact
//!   fractions.
//! * Every hex whose interior the line passes through, other than the two
//!   end hexes, is an intermediate hex. The end hexes never block.
//! * The height of the LOS line varies linearly from `a_level` at the
//!   centre of `a` to `b_level` at the centre of `b` (levels are absolute:
//!   ground level plus the level inside a building). It is read at the
//!   middle of the stretch of line inside the intermediate hex.
//! * An intermediate hex with an obstacle (woods: 1 level, a building: its
//!   height, see [`HexInfo::obstacle_height`]) blocks when the obstacle's
//!   top (ground level + height) is at or above the line there: an obstacle
//!   as high as both ends blocks. A hex without an obstacle blocks only when
//!   its ground (a hill) is strictly above the line.
//! * Ruling R23: where the line runs exactly along a hexside (an alternate
//!   hex grain runs along hexspines and the hexsides between them), that
//!   stretch is blocked only if the hexes on both sides would block; a side
//!   off the map never blocks. A line that merely passes through a vertex
//!   touches the third hex there in a single point, which never blocks.
//! * Hexes off the map (holes in the board layout) never block. Hexside
//!   terrain (walls, hedges), hindrances, blind hexes and crest lines are not
//!   modelled.
//! * Minefields are no obstacle and no hindrance (B28.2): nothing in this
//!   computation looks at mines, so a mined hex sees and is seen as if it
//!   were not mined.

use crate::board::hex::{Hex, MapPos};
use crate::board::map::Map;
use crate::board::terrain::HexInfo;
use std::cmp::Ordering;

/// An exact fraction `n / d` with `d > 0`.
#[derive(Clone, Copy, Debug)]
struct Frac {
    n: i64,
    d: i64,
}

impl Frac {
    fn new(n: i64, d: i64) -> Frac {
        if d < 0 {
            Frac { n: -n, d: -d }
        } else {
            Frac { n, d }
        }
    }

    fn cmp(self, o: Frac) -> Ordering {
        (self.n as i128 * o.d as i128).cmp(&(o.n as i128 * self.d as i128))
    }

    fn mid(self, o: Frac) -> Frac {
        Frac::new(self.n * o.d + o.n * self.d, 2 * self.d * o.d)
    }

    fn eq(self, o: Frac) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

/// The six half-planes `nu * (u - U) + nv * (v - V) <= k` whose
/// intersection is a hex.
const HEX_SIDES: [(i64, i64, i64); 6] = [
    (0, 1, 1),
    (0, -1, 1),
    (1, 1, 2),
    (1, -1, 2),
    (-1, 1, 2),
    (-1, -1, 2),
];

/// How the LOS segment meets one hex.
#[derive(Clone, Copy, Debug)]
enum Meet {
    /// Through its interior; the line's middle point inside is at `mid`.
    Crosses { mid: Frac },
    /// Exactly along one of its hexsides, from `t0` to `t1`.
    Along { t0: Frac, t1: Frac },
}

/// The segment from `a` to `b` in `(u, v)` coordinates.
struct Segment {
    ua: i64,
    va: i64,
    du: i64,
    dv: i64,
}

impl Segment {
    fn new(a: MapPos, b: MapPos) -> Segment {
        let (ua, va) = (3 * a.x as i64, a.y as i64);
        Segment {
            ua,
            va,
            du: 3 * b.x as i64 - ua,
            dv: b.y as i64 - va,
        }
    }

    /// How the segment meets the hex centred at `c`, if it does in more than
    /// a point.
    fn meet(&self, c: MapPos) -> Option<Meet> {
        let (ou, ov) = (self.ua - 3 * c.x as i64, self.va - c.y as i64);
        let mut t0 = Frac::new(0, 1);
        let mut t1 = Frac::new(1, 1);
        for (nu, nv, k) in HEX_SIDES {
            let p = nu * self.du + nv * self.dv;
            let q = k - nu * ou - nv * ov;
            match p.cmp(&0) {
                Ordering::Equal if q < 0 => return None,
                Ordering::Equal => {}
                Ordering::Greater => {
                    let t = Frac::new(q, p);
                    if t.cmp(t1) == Ordering::Less {
                        t1 = t;
                    }
                }
                Ordering::Less => {
                    let t = Frac::new(q, p);
                    if t.cmp(t0) == Ordering::Greater {
                        t0 = t;
                    }
                }
            }
        }
        if t0.cmp(t1) != Ordering::Less {
            // Empty, or a single point (a vertex or an end touching).
            return None;
        }
        let mid = t0.mid(t1);
        let inside = HEX_SIDES.iter().all(|&(nu, nv, k)| {
            nu * (ou * mid.d + mid.n * self.du) + nv * (ov * mid.d + mid.n * self.dv) < k * mid.d
        });
        Some(if inside {
            Meet::Crosses { mid }
        } else {
            Meet::Along { t0, t1 }
        })
    }

    /// Hex centres near the segment: every hex it can meet is among them.
    fn candidates(&self) -> Vec<MapPos> {
        let (xa, xb) = (self.ua / 3, (self.ua + self.du) / 3);
        let mut out = Vec::new();
        for x in xa.min(xb) - 1..=xa.max(xb) + 1 {
            // The part of the segment within u in [3x - 2, 3x + 2].
            let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
            if self.du == 0 {
                if (self.ua - 3 * x).abs() > 2 {
                    continue;
                }
            } else {
                let ta = (3 * x - 2 - self.ua) as f64 / self.du as f64;
                let tb = (3 * x + 2 - self.ua) as f64 / self.du as f64;
                lo = lo.max(ta.min(tb));
                hi = hi.min(ta.max(tb));
                if lo > hi + 1e-9 {
                    continue;
                }
            }
            let va = self.va as f64 + lo * self.dv as f64;
            let vb = self.va as f64 + hi * self.dv as f64;
            let (vmin, vmax) = (va.min(vb).floor() as i64 - 2, va.max(vb).ceil() as i64 + 2);
            for y in vmin..=vmax {
                let pos = MapPos {
                    x: x as i32,
                    y: y as i32,
                };
                if pos.is_hex_centre() {
                    out.push(pos);
                }
            }
        }
        out
    }
}

/// Whether a hex blocks a line passing at height `a + (b - a) * t`.
fn blocks(info: &HexInfo, a_level: i8, b_level: i8, t: Frac) -> bool {
    // Compare top with the line's height, all times t.d.
    let line = a_level as i64 * t.d + (b_level as i64 - a_level as i64) * t.n;
    if info.obstacle_height() > 0 {
        info.obstacle_top() as i64 * t.d >= line
    } else {
        info.level as i64 * t.d > line
    }
}

impl Map {
    /// Whether a unit at absolute level `a_level` in hex `a` has LOS to
    /// level `b_level` in hex `b` under the model of this module (B28.2: no
    /// minefield ever blocks; used for B28.531 Daisy Chain reveals and
    /// B28.51). A hex sees itself; a hex off the map sees nothing.
    pub fn has_los(&self, a: Hex, a_level: i8, b: Hex, b_level: i8) -> bool {
        let (Some(pa), Some(pb)) = (self.pos(a), self.pos(b)) else {
            return false;
        };
        if pa == pb {
            return true;
        }
        let seg = Segment::new(pa, pb);
        // Hexside stretches: (t0, t1, does this side block).
        let mut along: Vec<(Frac, Frac, bool)> = Vec::new();
        for c in seg.candidates() {
            if c == pa || c == pb {
                continue;
            }
            let Some(meet) = seg.meet(c) else { continue };
            let Some(hex) = self.hex_at(c) else { continue };
            let info = self.info(hex);
            match meet {
                Meet::Crosses { mid } => {
                    if blocks(&info, a_level, b_level, mid) {
                        return false;
                    }
                }
                Meet::Along { t0, t1 } => {
                    along.push((t0, t1, blocks(&info, a_level, b_level, t0.mid(t1))));
                }
            }
        }
        // R23: a hexside stretch blocks only if both sides block.
        for (i, &(t0, t1, blocked)) in along.iter().enumerate() {
            if !blocked {
                continue;
            }
            let other_side_blocks = along
                .iter()
                .enumerate()
                .any(|(j, &(s0, s1, b))| j != i && b && s0.eq(t0) && s1.eq(t1));
            if other_side_blocks {
                return false;
            }
        }
        true
    }

    /// LOS between units at the ground level of their hexes (the hill
    /// level; ground floor of a building) (B28.531: may a Good Order unit
    /// in `a` see hex `b`).
    pub fn has_ground_los(&self, a: Hex, b: Hex) -> bool {
        self.has_los(a, self.info(a).level, b, self.info(b).level)
    }

    /// The hexes (canonical names) whose interior the LOS line from `a` to
    /// `b` crosses, ends excluded, in no particular order; and, in pairs,
    /// the hexes on both sides of each hexside the line runs along. A
    /// helper for explaining a LOS ruling.
    pub fn los_hexes(&self, a: Hex, b: Hex) -> (Vec<Hex>, Vec<[Hex; 2]>) {
        let (Some(pa), Some(pb)) = (self.pos(a), self.pos(b)) else {
            return (Vec::new(), Vec::new());
        };
        let seg = Segment::new(pa, pb);
        let mut crossed = Vec::new();
        let mut along: Vec<(Frac, Frac, MapPos)> = Vec::new();
        for c in seg.candidates() {
            if c == pa || c == pb {
                continue;
            }
            match seg.meet(c) {
                Some(Meet::Crosses { .. }) => crossed.extend(self.hex_at(c)),
                Some(Meet::Along { t0, t1 }) => along.push((t0, t1, c)),
                None => {}
            }
        }
        let mut pairs = Vec::new();
        for (i, &(t0, t1, c)) in along.iter().enumerate() {
            for &(s0, s1, d) in &along[i + 1..] {
                if s0.eq(t0) && s1.eq(t1) {
                    if let (Some(x), Some(y)) = (self.hex_at(c), self.hex_at(d)) {
                        pairs.push([x, y]);
                    }
                }
            }
        }
        crossed.sort();
        (crossed, pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::terrain::{minefield_allowed, MinePlacement, Terrain};
    use proptest::prelude::*;

    fn h(name: &str) -> Hex {
        name.parse().unwrap()
    }

    fn woods_at(names: &[&str]) -> Map {
        let mut map = Map::new([4]);
        for n in names {
            map.hexes.insert(h(n), HexInfo::of(Terrain::Woods));
        }
        map
    }

    fn names(v: &[Hex]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn crossed_hexes_along_a_grain_and_off_it() {
        let map = Map::new([4]);
        let (crossed, along) = map.los_hexes(h("4E6"), h("4E9"));
        assert_eq!(names(&crossed), ["4E7", "4E8"]);
        assert!(along.is_empty());
        // Alternate grain E6 -> I6: G6 on the line, F5|F6 and H5|H6 beside.
        let (crossed, along) = map.los_hexes(h("4E6"), h("4I6"));
        assert_eq!(names(&crossed), ["4G6"]);
        let mut pairs: Vec<Vec<String>> = along.iter().map(|p| names(p)).collect();
        pairs.iter_mut().for_each(|p| p.sort());
        pairs.sort();
        assert_eq!(pairs, [["4F5", "4F6"], ["4H5", "4H6"]]);
        // Off any grain: E6 -> H6 crosses F6 (or F5), G6.
        let (crossed, along) = map.los_hexes(h("4E6"), h("4H6"));
        assert!(along.is_empty());
        assert_eq!(crossed.len(), 2, "{crossed:?}");
        assert!(crossed.contains(&h("4G6")));
    }

    #[test]
    fn b28_531_woods_on_the_line_blocks_at_ground_level() {
        let map = woods_at(&["4E7"]);
        assert!(!map.has_los(h("4E6"), 0, h("4E9"), 0));
        assert!(!map.has_los(h("4E9"), 0, h("4E6"), 0));
        // Beside the line it does not.
        assert!(map.has_los(h("4D6"), 0, h("4D9"), 0));
        // End hexes never block: LOS into and out of the woods hex.
        assert!(map.has_los(h("4E7"), 0, h("4E9"), 0));
        assert!(map.has_los(h("4E4"), 0, h("4E7"), 0));
    }

    #[test]
    fn b28_531_obstacle_level_against_line_height() {
        let map = woods_at(&["4E7"]);
        // Both ends at level 1: the woods top (level 1) equals the line: blocks.
        assert!(!map.has_los(h("4E6"), 1, h("4E9"), 1));
        // Both at level 2: the line passes above the woods.
        assert!(map.has_los(h("4E6"), 2, h("4E9"), 2));
        // From level 2 down to level 0: over E7 (a third of the way) the
        // line is at 1 + 2/3 > 1: sees.
        assert!(map.has_los(h("4E6"), 2, h("4E9"), 0));
        // From level 2 down to level 0 with the woods next to the target:
        // line at 2/3 there: blocked.
        assert!(!woods_at(&["4E8"]).has_los(h("4E6"), 2, h("4E9"), 0));
    }

    #[test]
    fn b28_531_multi_level_buildings_and_hills() {
        let mut map = Map::new([4]);
        map.hexes.insert(
            h("4E7"),
            HexInfo {
                building_levels: 3,
                ..HexInfo::of(Terrain::StoneBuilding)
            },
        );
        assert!(!map.has_los(h("4E6"), 2, h("4E8"), 2));
        assert!(map.has_los(h("4E6"), 4, h("4E8"), 3));
        // A level-1 hill between two ground-level hexes blocks; between two
        // units on level-1 hill hexes it does not (no obstacle on it).
        let mut hill = Map::new([4]);
        hill.hexes.insert(
            h("4E7"),
            HexInfo {
                level: 1,
                ..HexInfo::default()
            },
        );
        assert!(!hill.has_los(h("4E6"), 0, h("4E8"), 0));
        assert!(hill.has_los(h("4E6"), 1, h("4E8"), 1));
        // Woods on the hill top out at level 2.
        hill.hexes.get_mut(&h("4E7")).unwrap().terrain = Terrain::Woods;
        assert!(!hill.has_los(h("4E6"), 2, h("4E8"), 2));
        assert!(hill.has_los(h("4E6"), 3, h("4E8"), 3));
    }

    #[test]
    fn rb2_line_along_a_hexside_blocked_only_if_both_sides_block() {
        // E6 -> G6 runs along the hexside between F5 and F6.
        assert!(woods_at(&["4F5"]).has_los(h("4E6"), 0, h("4G6"), 0));
        assert!(woods_at(&["4F6"]).has_los(h("4E6"), 0, h("4G6"), 0));
        assert!(!woods_at(&["4F5", "4F6"]).has_los(h("4E6"), 0, h("4G6"), 0));
        // Steep alternate grain E6 -> F7... G9: between E7 and F6 first.
        let (crossed, along) = Map::new([4]).los_hexes(h("4E6"), h("4F7"));
        assert!(crossed.is_empty());
        assert_eq!(along.len(), 1);
        let mut pair = names(&along[0]);
        pair.sort();
        assert_eq!(pair, ["4E7", "4F6"]);
        assert!(woods_at(&["4E7"]).has_los(h("4E6"), 0, h("4F7"), 0));
        assert!(!woods_at(&["4E7", "4F6"]).has_los(h("4E6"), 0, h("4F7"), 0));
    }

    #[test]
    fn rb2_vertex_touch_does_not_block() {
        // E6 -> I3 passes exactly through the vertex where F4, F5 and G5
        // meet (a third of the way) and the one where G4, H3 and H4 meet
        // (two thirds): it goes from F5 into G5 and from G4 into H3, so F4
        // and H4 are touched in a single point each, never entered.
        let map = Map::new([4]);
        let (crossed, along) = map.los_hexes(h("4E6"), h("4I3"));
        assert_eq!(names(&crossed), ["4F5", "4G4", "4G5", "4H3"]);
        assert!(along.is_empty());
        assert!(woods_at(&["4F4", "4H4"]).has_los(h("4E6"), 0, h("4I3"), 0));
        // A hex the line does enter blocks.
        assert!(!woods_at(&["4G4"]).has_los(h("4E6"), 0, h("4I3"), 0));
        assert!(!woods_at(&["4F5"]).has_los(h("4E6"), 0, h("4I3"), 0));
        // Alternate grain: G6, whose centre is on the line E6 -> I6, blocks.
        assert!(!woods_at(&["4G6"]).has_los(h("4E6"), 0, h("4I6"), 0));
        // One woods hex on each side of different hexside stretches does not.
        assert!(woods_at(&["4F5", "4H6"]).has_los(h("4E6"), 0, h("4I6"), 0));
    }

    #[test]
    fn b28_2_a_mined_hex_does_not_block_los() {
        // 4E7 may hold a minefield (open ground); mined or not, the map is
        // the only input to LOS, so it cannot block.
        let map = Map::new([4]);
        assert_eq!(
            minefield_allowed(&map.info(h("4E7")), MinePlacement::HiddenAp),
            Ok(())
        );
        assert!(map.has_los(h("4E6"), 0, h("4E9"), 0));
        // A mined woods hex blocks as woods would, no more: the same result
        // as the unmined woods.
        let woods = woods_at(&["4E7"]);
        assert!(minefield_allowed(&woods.info(h("4E7")), MinePlacement::HiddenAt).is_ok());
        assert!(!woods.has_los(h("4E6"), 0, h("4E9"), 0));
        assert!(woods.has_los(h("4E6"), 2, h("4E9"), 2));
    }

    #[test]
    fn los_across_board_seams() {
        let mut map = Map::new([1, 2]);
        map.hexes.insert(h("2A5"), HexInfo::of(Terrain::Woods));
        // The woods are 1GG5 too: 1EE5 -> 2C5 runs through its centre.
        assert!(!map.has_los(h("1EE5"), 0, h("2C5"), 0));
        assert!(map.has_los(h("1EE4"), 0, h("2C4"), 0));
        assert!(
            !map.has_los(h("1E5"), 0, h("3E5"), 0),
            "board 3 is not on the map"
        );
        assert!(map.has_los(h("1GG5"), 0, h("2A5"), 0), "the same hex");
    }

    fn arb_map() -> impl Strategy<Value = Map> {
        // A small two-board map with random terrain on 40 hexes.
        prop::collection::vec((0u8..33, 0u8..=10, 0u8..6, 0i8..3), 40).prop_map(|cells| {
            let mut map = Map::new([1, 2]);
            for (i, (col, row, kind, level)) in cells.into_iter().enumerate() {
                let board = if i % 2 == 0 { 1 } else { 2 };
                let Ok(hex) = Hex::new(board, col, row) else {
                    continue;
                };
                let terrain = match kind {
                    0 => Terrain::Woods,
                    1 => Terrain::StoneBuilding,
                    2 => Terrain::WoodenBuilding,
                    3 => Terrain::Grain,
                    _ => Terrain::Open,
                };
                let mut info = HexInfo {
                    level,
                    ..HexInfo::of(terrain)
                };
                if terrain.is_building() {
                    info.building_levels = level as u8;
                }
                map.hexes.insert(map.canonical(hex), info);
            }
            map
        })
    }

    fn arb_hex() -> impl Strategy<Value = Hex> {
        (1u16..=2, 0u8..33, 0u8..=10).prop_map(|(b, c, r)| {
            Hex::new(b, c, r).unwrap_or(Hex {
                board: b,
                col: c,
                row: r.max(1),
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn los_is_symmetric(map in arb_map(), a in arb_hex(), b in arb_hex(), la in 0i8..4, lb in 0i8..4) {
            prop_assert_eq!(map.has_los(a, la, b, lb), map.has_los(b, lb, a, la));
        }

        #[test]
        fn adjacent_hexes_always_see_each_other(map in arb_map(), a in arb_hex(), la in 0i8..4, lb in 0i8..4) {
            for n in map.neighbors(a) {
                prop_assert!(map.has_los(a, la, n, lb), "{} -> {}", a, n);
            }
        }

        #[test]
        fn raising_an_end_never_loses_los(map in arb_map(), a in arb_hex(), b in arb_hex(), la in 0i8..4, lb in 0i8..4) {
            // The line only rises everywhere between the ends.
            if map.has_los(a, la, b, lb) {
                prop_assert!(map.has_los(a, la + 1, b, lb));
                prop_assert!(map.has_los(a, la, b, lb + 1));
            }
        }

        #[test]
        fn adding_woods_never_creates_los(map in arb_map(), a in arb_hex(), b in arb_hex(), w in arb_hex(), la in 0i8..4, lb in 0i8..4) {
            let mut wooded = map.clone();
            let w = map.canonical(w);
            let level = map.info(w).level;
            wooded.hexes.insert(w, HexInfo { level, ..HexInfo::of(Terrain::Woods) });
            if wooded.has_los(a, la, b, lb) {
                prop_assert!(map.has_los(a, la, b, lb) || map.info(w).obstacle_height() > 1);
            }
            // The woods block a ground-level line through the interior of w
            // unless w is an end.
            let (crossed, _) = map.los_hexes(a, b);
            if crossed.contains(&w) && level >= la.max(lb) {
                prop_assert!(!wooded.has_los(a, la, b, lb));
            }
        }

        #[test]
        fn open_ground_never_blocks(a in arb_hex(), b in arb_hex(), la in 0i8..4, lb in 0i8..4) {
            let map = Map::new([1, 2]);
            prop_assert!(map.has_los(a, la, b, lb));
        }

        #[test]
        fn los_crosses_a_connected_chain(a in arb_hex(), b in arb_hex()) {
            // Every crossed hex is no farther from the ends than they are
            // from each other, and a hex-grain line crosses exactly the
            // grain hexes between the ends.
            let map = Map::new([1, 2]);
            let (crossed, _) = map.los_hexes(a, b);
            let d = map.distance(a, b);
            for c in &crossed {
                prop_assert!(map.distance(a, *c) < d && map.distance(*c, b) < d);
            }
            if let Some(line) = map.grain_line(a, b) {
                if matches!(map.grain(a, b), Some(crate::board::grain::Grain::Hex(_))) {
                    let mut inner: Vec<Hex> = line[1..line.len() - 1].to_vec();
                    inner.sort();
                    prop_assert_eq!(crossed, inner);
                }
            }
        }
    }
}
