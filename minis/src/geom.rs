//! Table geometry in exact integers: points in tenths of an inch, 1-inch
//! cells, which cells a straight path crosses, and distances.
//!
//! A point is written `"12.5,30"` (decimal inches, at most one decimal).
//! Cell (x, y) is the square [x, x+1) x [y, y+1) inches; its key is
//! `c{x}x{y}`. A path crosses a cell when it passes through the cell's
//! interior with positive length: a path running along a cell edge or
//! through a corner does not cross the cells that only meet it there.
//! Which cells are crossed, and in which order, is computed with exact
//! rational arithmetic; lengths are square roots and are summed in `f64`,
//! compared with a tolerance of [`LENGTH_EPSILON`] inches (so that a path
//! of exactly 3 inches is 3 inches, not 3.0000000001).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Tenths of an inch per inch.
pub const TENTHS: i32 = 10;

/// Tolerance, in inches, when a sum of lengths is compared with a whole
/// number (an allowance, the table's last row, rounding up).
pub const LENGTH_EPSILON: f64 = 1e-6;

/// A point on the table, in tenths of an inch from the lower-left corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point {
    /// Tenths of an inch along the table's width.
    pub x: i32,
    /// Tenths of an inch along the table's depth.
    pub y: i32,
}

impl Point {
    /// A point from tenths of an inch.
    pub const fn tenths(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    /// Squared distance to `other`, in square tenths (exact).
    pub fn dist2(self, other: Point) -> i64 {
        let dx = i64::from(self.x - other.x);
        let dy = i64::from(self.y - other.y);
        dx * dx + dy * dy
    }

    /// Distance to `other`, in inches.
    pub fn distance_in(self, other: Point) -> f64 {
        (self.dist2(other) as f64).sqrt() / f64::from(TENTHS)
    }
}

/// Writes tenths as decimal inches: `125` -> `12.5`, `300` -> `30`.
pub fn fmt_tenths(v: i64) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    let (whole, frac) = (a / 10, a % 10);
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac}")
    }
}

/// Reads decimal inches with at most one decimal (`12`, `12.5`) as tenths.
pub fn parse_tenths(s: &str) -> Result<i32, String> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let (whole, frac) = match body.split_once('.') {
        Some((w, f)) => (w, f),
        None => (body, ""),
    };
    let ok_digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    if !ok_digits(whole) || !(frac.is_empty() || (frac.len() == 1 && ok_digits(frac))) {
        return Err(format!(
            "{s:?} is not inches with at most one decimal (e.g. 12.5)"
        ));
    }
    let w: i32 = whole
        .parse()
        .ok()
        .filter(|w: &i32| *w <= 100_000)
        .ok_or_else(|| format!("{s:?}: too large"))?;
    let f: i32 = if frac.is_empty() {
        0
    } else {
        frac.parse().expect("one digit")
    };
    let v = w * TENTHS + f;
    Ok(if neg { -v } else { v })
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},{}",
            fmt_tenths(i64::from(self.x)),
            fmt_tenths(i64::from(self.y))
        )
    }
}

impl std::str::FromStr for Point {
    type Err = String;
    fn from_str(s: &str) -> Result<Point, String> {
        let (x, y) = s
            .split_once(',')
            .ok_or_else(|| format!("point {s:?}: expected \"x,y\" in inches, e.g. \"12.5,30\""))?;
        Ok(Point {
            x: parse_tenths(x).map_err(|e| format!("point {s:?}: {e}"))?,
            y: parse_tenths(y).map_err(|e| format!("point {s:?}: {e}"))?,
        })
    }
}

impl Serialize for Point {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Point {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Point, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A 1-inch cell of the table: the square [x, x+1) x [y, y+1) inches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    /// Whole inches along the width.
    pub x: u16,
    /// Whole inches along the depth.
    pub y: u16,
}

impl Cell {
    /// The cell at whole inches (x, y).
    pub const fn new(x: u16, y: u16) -> Cell {
        Cell { x, y }
    }

    /// The location key, `c{x}x{y}`.
    pub fn key(self) -> String {
        format!("c{}x{}", self.x, self.y)
    }

    /// The cell a location key names, if it is one (canonical decimals).
    pub fn from_key(key: &str) -> Option<Cell> {
        let rest = key.strip_prefix('c')?;
        let (x, y) = rest.split_once('x')?;
        let num = |d: &str| -> Option<u16> {
            if d.is_empty() || (d.len() > 1 && d.starts_with('0')) {
                return None;
            }
            if !d.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            d.parse().ok()
        };
        Some(Cell::new(num(x)?, num(y)?))
    }

    /// Whether `p` lies in the closed square of the cell.
    pub fn touches(self, p: Point) -> bool {
        let (x0, y0) = (i32::from(self.x) * TENTHS, i32::from(self.y) * TENTHS);
        (x0..=x0 + TENTHS).contains(&p.x) && (y0..=y0 + TENTHS).contains(&p.y)
    }

    /// The cell's centre.
    pub fn centre(self) -> Point {
        Point::tenths(
            i32::from(self.x) * TENTHS + TENTHS / 2,
            i32::from(self.y) * TENTHS + TENTHS / 2,
        )
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c{}x{}", self.x, self.y)
    }
}

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

impl<'de> Deserialize<'de> for Cell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cell, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Cell::from_key(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("{s:?} is not a cell key like c12x30")))
    }
}

/// One stretch of a path inside one cell. A stretch that runs along a
/// grid line lies in both cells beside the line: it gives one piece for
/// each, with the same `stretch` number, so its length is counted once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// The cell crossed.
    pub cell: Cell,
    /// Which stretch of the path this is (pieces of one stretch along a
    /// grid line share it), in path order.
    pub stretch: usize,
    /// Length inside the cell, in inches.
    pub length_in: f64,
    /// Where the stretch leaves the cell (or the path ends), rounded to the
    /// nearest tenth of an inch.
    pub exit: Point,
}

fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_round(a: i128, b: i128) -> i128 {
    // Nearest, halves away from zero; b > 0.
    if a >= 0 {
        (2 * a + b) / (2 * b)
    } else {
        -((-2 * a + b) / (2 * b))
    }
}

/// The stretches of the straight segment `a` -> `b` inside cells, in path
/// order (a cell may appear twice only on different segments). Exact: the
/// breakpoints are where the segment meets grid lines, as fractions.
pub fn segment_pieces(a: Point, b: Point) -> Vec<Piece> {
    let dx = i128::from(b.x - a.x);
    let dy = i128::from(b.y - a.y);
    if dx == 0 && dy == 0 {
        return Vec::new();
    }
    let t10 = i128::from(TENTHS);
    // Along a grid line the path is on the edge of the cells on both sides:
    // it is in both (a mine a square inch beside the line is as near).
    let along_x = dx == 0 && i128::from(a.x) % t10 == 0;
    let along_y = dy == 0 && i128::from(a.y) % t10 == 0;
    // Parameter t in units of 1/den along the segment.
    let den: i128 = match (dx, dy) {
        (0, y) => y.abs(),
        (x, 0) => x.abs(),
        (x, y) => x.abs() * y.abs(),
    };
    let mut ts: Vec<i128> = vec![0, den];
    let mut crossings = |p0: i128, d: i128| {
        if d == 0 {
            return;
        }
        let (lo, hi) = if d > 0 { (p0, p0 + d) } else { (p0 + d, p0) };
        let mut k = div_floor(lo, t10) + 1;
        while k * t10 < hi {
            // t = (k*10 - p0) / d, scaled by den (den is a multiple of |d|).
            ts.push((k * t10 - p0) * (den / d.abs()) * d.signum());
            k += 1;
        }
    };
    crossings(i128::from(a.x), dx);
    crossings(i128::from(a.y), dy);
    ts.sort_unstable();
    ts.dedup();
    let seg_len = ((dx * dx + dy * dy) as f64).sqrt() / f64::from(TENTHS);
    let mut out = Vec::new();
    for (stretch, w) in ts.windows(2).enumerate() {
        let (ta, tb) = (w[0], w[1]);
        // Midpoint, scaled by 2*den.
        let mx = i128::from(a.x) * 2 * den + dx * (ta + tb);
        let my = i128::from(a.y) * 2 * den + dy * (ta + tb);
        let cx = div_floor(mx, 2 * den * t10);
        let cy = div_floor(my, 2 * den * t10);
        let exit = Point::tenths(
            (i128::from(a.x) + div_round(dx * tb, den)) as i32,
            (i128::from(a.y) + div_round(dy * tb, den)) as i32,
        );
        // On a grid line the midpoint's floor is the cell on the high
        // side; the cell on the low side shares the stretch.
        let cells: &[(i128, i128)] = if along_x {
            &[(cx - 1, cy), (cx, cy)]
        } else if along_y {
            &[(cx, cy - 1), (cx, cy)]
        } else {
            &[(cx, cy)]
        };
        for &(x, y) in cells {
            if x < 0 || y < 0 || x > i128::from(u16::MAX) || y > i128::from(u16::MAX) {
                continue;
            }
            out.push(Piece {
                cell: Cell::new(x as u16, y as u16),
                stretch,
                length_in: seg_len * (tb - ta) as f64 / den as f64,
                exit,
            });
        }
    }
    out
}

/// The stretches of a path of straight segments through `points`,
/// numbered along the whole path.
pub fn path_pieces(points: &[Point]) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for w in points.windows(2) {
        let base = out.last().map_or(0, |p| p.stretch + 1);
        out.extend(segment_pieces(w[0], w[1]).into_iter().map(|mut p| {
            p.stretch += base;
            p
        }));
    }
    out
}

/// The length of the stretches of `pieces` (each stretch once, however
/// many cells beside a grid line share it).
pub fn stretch_length_in<'a>(pieces: impl IntoIterator<Item = &'a Piece>) -> f64 {
    let mut by_stretch = std::collections::BTreeMap::new();
    for p in pieces {
        by_stretch.insert(p.stretch, p.length_in);
    }
    by_stretch.values().sum()
}

/// The cells a path crosses, in path order, each once.
pub fn path_cells(points: &[Point]) -> Vec<Cell> {
    let mut seen = std::collections::BTreeSet::new();
    path_pieces(points)
        .into_iter()
        .map(|p| p.cell)
        .filter(|c| seen.insert(*c))
        .collect()
}

/// A path's length in inches.
pub fn path_length_in(points: &[Point]) -> f64 {
    points
        .windows(2)
        .map(|w| (w[0].dist2(w[1]) as f64).sqrt() / f64::from(TENTHS))
        .sum()
}

/// Whether a length (inches, a sum of square roots) is at most `limit_in`.
pub fn at_most(length_in: f64, limit_in: f64) -> bool {
    length_in <= limit_in + LENGTH_EPSILON
}

/// Whole inches, rounded up (a length within [`LENGTH_EPSILON`] of a whole
/// number counts as that number).
pub fn whole_inches_up(length_in: f64) -> u32 {
    if length_in <= LENGTH_EPSILON {
        0
    } else {
        (length_in - LENGTH_EPSILON).ceil() as u32
    }
}

/// Whether the segment `a`-`b` comes closer than half an inch to the
/// closed square of `cell` (exact): the cells a 1-inch-wide strip along it
/// touches (seed 004 clearing).
pub fn strip_touches(a: Point, b: Point, cell: Cell) -> bool {
    let x0 = i64::from(cell.x) * i64::from(TENTHS);
    let y0 = i64::from(cell.y) * i64::from(TENTHS);
    let x1 = x0 + i64::from(TENTHS);
    let y1 = y0 + i64::from(TENTHS);
    let half = i64::from(TENTHS) / 2;
    let (ax, ay, bx, by) = (
        i64::from(a.x),
        i64::from(a.y),
        i64::from(b.x),
        i64::from(b.y),
    );
    // Intersection by separating axes (bounding boxes and the segment's
    // normal).
    let boxes_overlap =
        ax.max(bx) >= x0 && ax.min(bx) <= x1 && ay.max(by) >= y0 && ay.min(by) <= y1;
    if boxes_overlap {
        let side = |px: i64, py: i64| ((bx - ax) * (py - ay) - (by - ay) * (px - ax)).signum();
        let s: Vec<i64> = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
            .iter()
            .map(|&(x, y)| side(x, y))
            .collect();
        let all_pos = s.iter().all(|v| *v > 0);
        let all_neg = s.iter().all(|v| *v < 0);
        if !all_pos && !all_neg {
            return true;
        }
    }
    let r2 = half * half;
    // Segment ends to the square.
    let point_box = |px: i64, py: i64| {
        let ddx = (x0 - px).max(0).max(px - x1);
        let ddy = (y0 - py).max(0).max(py - y1);
        ddx * ddx + ddy * ddy
    };
    if point_box(ax, ay) < r2 || point_box(bx, by) < r2 {
        return true;
    }
    // Square corners to the segment.
    let (ux, uy) = (bx - ax, by - ay);
    let len2 = ux * ux + uy * uy;
    if len2 == 0 {
        return false;
    }
    [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
        .iter()
        .any(|&(px, py)| {
            let dot = (px - ax) * ux + (py - ay) * uy;
            if dot <= 0 || dot >= len2 {
                return false; // nearest is an end, checked above
            }
            let cross = ux * (py - ay) - uy * (px - ax);
            cross * cross < r2 * len2
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        s.parse().unwrap()
    }
    fn cells(path: &[&str]) -> Vec<String> {
        let pts: Vec<Point> = path.iter().map(|s| p(s)).collect();
        path_cells(&pts).iter().map(|c| c.key()).collect()
    }

    #[test]
    fn points_read_and_write_decimal_inches() {
        assert_eq!(p("12.5,30"), Point::tenths(125, 300));
        assert_eq!(p("12.5,30").to_string(), "12.5,30");
        assert!("12.55,3".parse::<Point>().is_err());
        assert!("12".parse::<Point>().is_err());
        assert!("a,3".parse::<Point>().is_err());
    }

    #[test]
    fn cell_keys_round_trip_and_fit_a_core_key() {
        let c = Cell::new(65535, 65535);
        assert_eq!(Cell::from_key(&c.key()), Some(c));
        assert!(hexveil_core::Location::key_of(&c.key()).is_ok());
        assert_eq!(Cell::from_key("c012x3"), None);
        assert_eq!(Cell::from_key("c12y3"), None);
    }

    #[test]
    fn axis_path_crosses_each_cell_once() {
        assert_eq!(
            cells(&["0.5,0.5", "3.5,0.5"]),
            ["c0x0", "c1x0", "c2x0", "c3x0"]
        );
        assert_eq!(cells(&["0.5,3.5", "0.5,1.2"]), ["c0x3", "c0x2", "c0x1"]);
    }

    #[test]
    fn seed004_a_path_along_a_grid_line_is_in_the_cells_on_both_sides() {
        // Found by the demo: a tank driven exactly along x = 12 crossed no
        // cell and so could never set off a mine. On the line, the path is
        // on the edge of both square inches beside it.
        assert_eq!(cells(&["1,0", "1,2"]), ["c0x0", "c1x0", "c0x1", "c1x1"]);
        assert_eq!(cells(&["0,2", "2,2"]), ["c0x1", "c0x2", "c1x1", "c1x2"]);
        // On the table's edge only the cell inside is.
        assert_eq!(cells(&["0,0", "0,1.5"]), ["c0x0", "c0x1"]);
        // Each stretch is counted once, however many cells share it.
        let pts: Vec<Point> = ["1,0", "1,2"].iter().map(|p| p.parse().unwrap()).collect();
        let pieces = path_pieces(&pts);
        assert_eq!(pieces.len(), 4);
        assert!((stretch_length_in(&pieces) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn diagonal_through_corners_skips_the_side_cells() {
        assert_eq!(cells(&["0,0", "3,3"]), ["c0x0", "c1x1", "c2x2"]);
        assert_eq!(cells(&["3,0", "0,3"]), ["c2x0", "c1x1", "c0x2"]);
    }

    #[test]
    fn shallow_diagonal_crosses_the_cells_between() {
        // From (0.5,0.5) to (2.5,1.5): crosses x=1 at y=0.75, y=1 at x=1.5, x=2 at y=1.25.
        assert_eq!(
            cells(&["0.5,0.5", "2.5,1.5"]),
            ["c0x0", "c1x0", "c1x1", "c2x1"]
        );
    }

    #[test]
    fn lengths_inside_cells_sum_to_the_path() {
        let pts = [p("0.5,0.5"), p("2.5,1.5"), p("2.5,4")];
        let sum: f64 = path_pieces(&pts).iter().map(|x| x.length_in).sum();
        assert!((sum - path_length_in(&pts)).abs() < 1e-9);
        assert_eq!(whole_inches_up(3.0000000001), 3);
        assert_eq!(whole_inches_up(3.01), 4);
        assert_eq!(whole_inches_up(0.2), 1);
    }

    #[test]
    fn strip_touches_neighbours_within_half_an_inch() {
        let (a, b) = (p("5.5,5.2"), p("5.5,6.2"));
        assert!(strip_touches(a, b, Cell::new(5, 5)));
        assert!(strip_touches(a, b, Cell::new(5, 6)));
        // The strip's edge runs along x = 5 and x = 6: the cells beside it
        // only meet it there.
        assert!(!strip_touches(a, b, Cell::new(4, 5)));
        assert!(!strip_touches(a, b, Cell::new(6, 6)));
        // Round ends: the cell behind the start is within half an inch.
        assert!(strip_touches(a, b, Cell::new(5, 4)));
        assert!(!strip_touches(a, b, Cell::new(5, 8)));
    }
}
