//! Hex grain and alternate hex grain (B28.46 multi-hex Known minefields;
//! also C3.2 Covered Arc).
//!
//! A hex grain is a straight line of hexes through hexsides: the repeated
//! step of one [`Direction`]. An alternate hex grain runs through hexspines
//! (along the hexsides between the hexes beside it): the repeated step of
//! one [`Spine`], which reaches every second hex. In doubled coordinates the
//! hex grain steps are (0, +-2) and (+-1, +-1), the alternate ones (+-2, 0)
//! and (+-1, +-3).

use crate::board::hex::{Direction, Hex, Spine};
use crate::board::map::Map;
use serde::{Deserialize, Serialize};

/// Which kind of straight line joins two hexes (B28.46).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grain {
    /// The two hexes are the same hex.
    Same,
    /// Along a hex grain, through hexsides in this direction.
    Hex(Direction),
    /// Along an alternate hex grain, through hexspines in this direction.
    Alternate(Spine),
}

impl Grain {
    /// The step in doubled coordinates from one hex of the line to the next
    /// (`(0, 0)` for [`Grain::Same`]).
    pub fn step(self) -> (i32, i32) {
        match self {
            Grain::Same => (0, 0),
            Grain::Hex(d) => d.delta(),
            Grain::Alternate(s) => s.delta(),
        }
    }
}

/// The grain from a position to another `(dx, dy)` away, and the number of
/// steps, if they lie on one.
fn grain_of(dx: i32, dy: i32) -> Option<(Grain, u32)> {
    if (dx, dy) == (0, 0) {
        return Some((Grain::Same, 0));
    }
    let (ax, ay) = (dx.abs(), dy.abs());
    let (sx, sy) = (dx.signum(), dy.signum());
    if ax == 0 && ay % 2 == 0 {
        return Some((
            Grain::Hex(Direction::from_delta(0, 2 * sy)?),
            (ay / 2) as u32,
        ));
    }
    if ax == ay {
        return Some((Grain::Hex(Direction::from_delta(sx, sy)?), ax as u32));
    }
    if ay == 0 && ax % 2 == 0 {
        return Some((
            Grain::Alternate(Spine::from_delta(2 * sx, 0)?),
            (ax / 2) as u32,
        ));
    }
    if ay == 3 * ax {
        return Some((Grain::Alternate(Spine::from_delta(sx, 3 * sy)?), ax as u32));
    }
    None
}

impl Map {
    /// Which (alternate) hex grain joins two hexes of the map, if any
    /// (B28.46). `None` if they are not on one or either is off the map.
    pub fn grain(&self, a: Hex, b: Hex) -> Option<Grain> {
        let (pa, pb) = (self.pos(a)?, self.pos(b)?);
        grain_of(pb.x - pa.x, pb.y - pa.y).map(|(g, _)| g)
    }

    /// The hexes whose centres lie on the straight line from `a` to `b`,
    /// both included, in order from `a`, by canonical name, when that line
    /// is a hex grain or an alternate hex grain (B28.46); `None` otherwise,
    /// or if either end or a hex between is off the map. For `a == b` the
    /// line is that one hex.
    pub fn grain_line(&self, a: Hex, b: Hex) -> Option<Vec<Hex>> {
        let (pa, pb) = (self.pos(a)?, self.pos(b)?);
        let (grain, n) = grain_of(pb.x - pa.x, pb.y - pa.y)?;
        let (sx, sy) = grain.step();
        (0..=n as i32)
            .map(|i| self.hex_at(pa.offset(sx * i, sy * i)))
            .collect()
    }
}

impl Map {
    /// Whether `target` lies in the Covered Arc that a counter in `from`
    /// facing hexspine `spine` defines (C3.2): the two hexes at that spine,
    /// the two hex grains running outward through them (in the directions of
    /// the two hexsides meeting at the spine) and every hex between. The
    /// counter's own hex is not part of this geometry (false); callers decide
    /// what a same-hex target means. False if either hex is off the map.
    pub fn in_covered_arc(&self, from: Hex, spine: Spine, target: Hex) -> bool {
        let (Some(pf), Some(pt)) = (self.pos(from), self.pos(target)) else {
            return false;
        };
        let (px, py) = (pt.x - pf.x, pt.y - pf.y);
        if (px, py) == (0, 0) {
            return false;
        }
        // target - from = a * d1 + b * d2 with a, b >= 0: inside the wedge
        // between the two hex grains.
        let [d1, d2] = spine.hexsides();
        let ((x1, y1), (x2, y2)) = (d1.delta(), d2.delta());
        let det = x1 * y2 - x2 * y1;
        let a = px * y2 - x2 * py;
        let b = x1 * py - px * y1;
        a * det.signum() >= 0 && b * det.signum() >= 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(name: &str) -> Hex {
        name.parse().unwrap()
    }

    fn line(map: &Map, a: &str, b: &str) -> Option<Vec<String>> {
        map.grain_line(h(a), h(b))
            .map(|v| v.into_iter().map(|x| x.to_string()).collect())
    }

    #[test]
    fn b28_46_hex_grain_along_a_column() {
        let map = Map::new([4]);
        assert_eq!(
            line(&map, "4E6", "4E10").unwrap(),
            ["4E6", "4E7", "4E8", "4E9", "4E10"]
        );
        assert_eq!(line(&map, "4E10", "4E8").unwrap(), ["4E10", "4E9", "4E8"]);
        assert_eq!(
            map.grain(h("4E6"), h("4E2")),
            Some(Grain::Hex(Direction::N))
        );
    }

    #[test]
    fn b28_46_hex_grain_on_the_diagonals() {
        let map = Map::new([4]);
        // Up and right from E6: F5, G5, H4, I4.
        assert_eq!(
            line(&map, "4E6", "4I4").unwrap(),
            ["4E6", "4F5", "4G5", "4H4", "4I4"]
        );
        assert_eq!(
            map.grain(h("4E6"), h("4I4")),
            Some(Grain::Hex(Direction::NE))
        );
        // Down and right: F6, G7.
        assert_eq!(line(&map, "4E6", "4G7").unwrap(), ["4E6", "4F6", "4G7"]);
        // And back down-left from G7.
        assert_eq!(line(&map, "4G7", "4E6").unwrap(), ["4G7", "4F6", "4E6"]);
    }

    #[test]
    fn b28_46_alternate_hex_grain_through_hexspines() {
        let map = Map::new([4]);
        // Due east along the row: every second column.
        assert_eq!(line(&map, "4E6", "4I6").unwrap(), ["4E6", "4G6", "4I6"]);
        assert_eq!(
            map.grain(h("4E6"), h("4I6")),
            Some(Grain::Alternate(Spine::E))
        );
        // Steeply down-right: F7, G9, H10.
        assert_eq!(
            line(&map, "4E6", "4H10").unwrap(),
            ["4E6", "4F7", "4G9", "4H10"]
        );
        // Steeply up-left from H10 back to E6.
        assert_eq!(
            line(&map, "4H10", "4E6").unwrap(),
            ["4H10", "4G9", "4F7", "4E6"]
        );
        assert_eq!(
            map.grain(h("4H10"), h("4E6")),
            Some(Grain::Alternate(Spine::NNW))
        );
    }

    #[test]
    fn b28_46_not_on_a_grain_is_none() {
        let map = Map::new([4]);
        assert_eq!(line(&map, "4E6", "4H6"), None);
        assert_eq!(line(&map, "4E6", "4F8"), None);
        assert_eq!(line(&map, "4E6", "4G4"), None);
        // E6 -> G3 is on the steep alternate grain (F4 between).
        assert_eq!(line(&map, "4E6", "4G3").unwrap(), ["4E6", "4F4", "4G3"]);
        assert_eq!(map.grain(h("4E6"), h("4H6")), None);
        // Off the map.
        assert_eq!(line(&map, "4E6", "5E8"), None);
        // A single hex is its own line.
        assert_eq!(line(&map, "4E6", "4E6").unwrap(), ["4E6"]);
    }

    #[test]
    fn c3_2_covered_arc_between_two_hex_grains() {
        let map = Map::new([4]);
        let from = h("4E6");
        // Facing the east spine: the arc opens between the NE grain (F5,
        // G5, H4 ...) and the SE grain (F6, G7, H7 ...).
        for inside in [
            "4F5", "4F6", "4G5", "4G6", "4G7", "4H4", "4H5", "4H6", "4H7", "4I4", "4K6",
        ] {
            assert!(map.in_covered_arc(from, Spine::E, h(inside)), "{inside}");
        }
        for outside in [
            "4E5", "4E7", "4F4", "4F7", "4G4", "4G8", "4D6", "4A1", "4E6",
        ] {
            assert!(!map.in_covered_arc(from, Spine::E, h(outside)), "{outside}");
        }
        // Facing the upper right spine: between the N grain (E5, E4 ...)
        // and the NE grain (F5, G5 ...).
        for inside in [
            "4E5", "4E1", "4F5", "4F4", "4F1", "4G5", "4G4", "4G1", "4I4",
        ] {
            assert!(map.in_covered_arc(from, Spine::NNE, h(inside)), "{inside}");
        }
        for outside in ["4D5", "4D1", "4F6", "4G6", "4I5"] {
            assert!(
                !map.in_covered_arc(from, Spine::NNE, h(outside)),
                "{outside}"
            );
        }
        // Every hex other than the counter's own lies in one or two of the six
        // arcs (two when on a boundary grain).
        for t in map.all_hexes() {
            let n = Spine::ALL
                .into_iter()
                .filter(|&s| map.in_covered_arc(from, s, t))
                .count();
            if t == from {
                assert_eq!(n, 0);
            } else if map
                .grain(from, t)
                .is_some_and(|g| matches!(g, Grain::Hex(_)))
            {
                assert_eq!(n, 2, "{t}");
            } else {
                assert_eq!(n, 1, "{t}");
            }
        }
    }

    #[test]
    fn b28_46_grain_lines_cross_board_seams() {
        let map = Map::new([1, 2]);
        // Along the row through the seam hex 1GG5 = 2A5.
        assert_eq!(line(&map, "1EE5", "2C5").unwrap(), ["1EE5", "1GG5", "2C5"]);
        // The seam hex named on either board gives the same line.
        assert_eq!(line(&map, "2A5", "2C5").unwrap(), ["1GG5", "2C5"]);
        assert_eq!(line(&map, "1GG5", "2C5"), line(&map, "2A5", "2C5"));
        // Stacked boards: down column E of board 1 into board 2.
        let tall = Map::from_rows(&[&[1], &[2]]);
        assert_eq!(line(&tall, "1E9", "2E1").unwrap(), ["1E9", "1E10", "2E1"]);
        // A hole in an L-shaped layout cuts a line.
        let l = Map::from_rows(&[&[1, 2], &[3]]);
        assert_eq!(line(&l, "3EE5", "3GG5").unwrap().len(), 2);
        // 3GG5 to 2J10 is a hex grain (NE) but runs through the missing board.
        assert_eq!(
            l.grain(h("3GG5"), h("2J10")),
            Some(Grain::Hex(Direction::NE))
        );
        assert_eq!(l.grain_line(h("3GG5"), h("2J10")), None);
    }
}
