//! Hex names on ASL geomorphic boards (`4E6`: board 4, column E, row 6).
//!
//! A board has 33 columns `A`..`Z`, `AA`..`GG` and rows 0..=10. Columns with
//! an even index (A, C, E, ...) hold rows 1..=10; columns with an odd index
//! (B, D, ...) hold rows 0..=10, the first and last being half hexes. Where
//! two boards meet, the edge half hexes of both boards are one hex: the
//! [`crate::board::map::Map`] canonicalises such names.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Number of hex columns on one board (A..GG).
pub const COLUMNS: u8 = 33;
/// Highest row number on a board.
pub const MAX_ROW: u8 = 10;

/// A hex named by board, column and row, e.g. `4E6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hex {
    /// Board number (1..=999 or any scenario board id).
    pub board: u16,
    /// Column index: 0 = A, 25 = Z, 26 = AA ... 32 = GG.
    pub col: u8,
    /// Row number, 0..=10.
    pub row: u8,
}

/// Why a hex name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexNameError {
    /// The name does not start with a board number.
    #[error("hex name {0:?} must start with a board number, as in 4E6")]
    NoBoard(String),
    /// The column letters are missing or not A..Z / AA..GG.
    #[error("hex name {0:?} has no valid column (A..Z, AA..GG)")]
    BadColumn(String),
    /// The row is missing, not a number, or outside 0..=10.
    #[error("hex name {0:?} has no valid row: rows are numbered 0 to 10, as in 4E6")]
    BadRow(String),
    /// Row 0 exists only in columns with an odd index (B, D, ...).
    #[error("hex {0:?} does not exist: row 0 exists only in columns B, D, F, ...")]
    NoSuchHex(String),
}

impl Hex {
    /// Builds a hex, checking that it exists on a board.
    pub fn new(board: u16, col: u8, row: u8) -> Result<Hex, HexNameError> {
        let hex = Hex { board, col, row };
        if col >= COLUMNS {
            return Err(HexNameError::BadColumn(hex.to_string()));
        }
        if row > MAX_ROW {
            return Err(HexNameError::BadRow(hex.to_string()));
        }
        if row == 0 && col.is_multiple_of(2) {
            return Err(HexNameError::NoSuchHex(hex.to_string()));
        }
        Ok(hex)
    }

    /// Column letters: A..Z, then AA..GG.
    pub fn column_name(&self) -> String {
        let letter = (b'A' + self.col % 26) as char;
        if self.col < 26 {
            letter.to_string()
        } else {
            format!("{letter}{letter}")
        }
    }

    /// Position in board-local doubled coordinates: x = column index,
    /// y = 2*row for odd-index columns and 2*row - 1 for even-index ones, so
    /// that the six neighbours are (x, y +- 2) and (x +- 1, y +- 1).
    pub fn local_xy(&self) -> (i32, i32) {
        let x = self.col as i32;
        let y = 2 * self.row as i32 - if self.col.is_multiple_of(2) { 1 } else { 0 };
        (x, y)
    }
}

/// A hex centre in the map's global doubled coordinates.
///
/// `x` is the global column (board column index plus 32 per board placed to
/// the left), `y` the global doubled row (the board-local `y` of
/// [`Hex::local_xy`] plus 20 per board placed above). Every hex centre has
/// `x + y` odd. Neighbours differ by one of the six [`Direction`] steps;
/// real geometry (flat-topped hexes of size `s`): centre at
/// `(1.5 * s * x, sqrt(3)/2 * s * y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct MapPos {
    /// Global column.
    pub x: i32,
    /// Global doubled row.
    pub y: i32,
}

impl MapPos {
    /// The position `dx` columns and `dy` doubled rows away.
    pub fn offset(self, dx: i32, dy: i32) -> MapPos {
        MapPos {
            x: self.x + dx,
            y: self.y + dy,
        }
    }

    /// The neighbouring position across hexside `d`.
    pub fn step(self, d: Direction) -> MapPos {
        let (dx, dy) = d.delta();
        self.offset(dx, dy)
    }

    /// Whether this is the centre of a hex of the grid (`x + y` odd).
    pub fn is_hex_centre(self) -> bool {
        (self.x + self.y).rem_euclid(2) == 1
    }

    /// Distance in hexes between two hex centres: a column step also moves
    /// one doubled row for free.
    pub fn distance(self, other: MapPos) -> u32 {
        let dx = (self.x - other.x).unsigned_abs();
        let dy = (self.y - other.y).unsigned_abs();
        dx + dy.saturating_sub(dx) / 2
    }
}

/// One of the six hexsides of a hex, i.e. the direction to a neighbour.
/// Hexes are flat-topped: the column runs north (row - 1) to south
/// (row + 1). The six directions are the hex grain (B28.46).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
// `lowercase`, not `snake_case`: serde's snake case of `NE` is `n_e`.
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Same column, one row up: step (0, -2).
    N,
    /// Next column, half a row up: step (+1, -1).
    NE,
    /// Next column, half a row down: step (+1, +1).
    SE,
    /// Same column, one row down: step (0, +2).
    S,
    /// Previous column, half a row down: step (-1, +1).
    SW,
    /// Previous column, half a row up: step (-1, -1).
    NW,
}

impl Direction {
    /// All six, clockwise from north.
    pub const ALL: [Direction; 6] = [
        Direction::N,
        Direction::NE,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::NW,
    ];

    /// The step to the neighbour in doubled coordinates.
    pub fn delta(self) -> (i32, i32) {
        match self {
            Direction::N => (0, -2),
            Direction::NE => (1, -1),
            Direction::SE => (1, 1),
            Direction::S => (0, 2),
            Direction::SW => (-1, 1),
            Direction::NW => (-1, -1),
        }
    }

    /// Its short name: `n`, `ne`, `se`, `s`, `sw`, `nw`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::N => "n",
            Direction::NE => "ne",
            Direction::SE => "se",
            Direction::S => "s",
            Direction::SW => "sw",
            Direction::NW => "nw",
        }
    }

    /// The direction of a short name, any case.
    pub fn parse(s: &str) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The direction whose step is `(dx, dy)`, if any.
    pub fn from_delta(dx: i32, dy: i32) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.delta() == (dx, dy))
    }

    /// The opposite hexside.
    pub fn opposite(self) -> Direction {
        match self {
            Direction::N => Direction::S,
            Direction::NE => Direction::SW,
            Direction::SE => Direction::NW,
            Direction::S => Direction::N,
            Direction::SW => Direction::NE,
            Direction::NW => Direction::SE,
        }
    }
}

/// One of the six hexspines of a hex: the line from its centre through one
/// of its vertices. Extended, a hexspine is an alternate hex grain (B28.46);
/// it runs along the hexside between the two hexes that meet at that vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
// `lowercase`, not `snake_case`: serde's snake case of `SSE` is `s_s_e`.
#[serde(rename_all = "lowercase")]
pub enum Spine {
    /// The vertex due east, between hexsides NE and SE: step (+2, 0).
    E,
    /// The upper right vertex, between hexsides N and NE: step (+1, -3).
    NNE,
    /// The upper left vertex, between hexsides NW and N: step (-1, -3).
    NNW,
    /// The vertex due west, between hexsides SW and NW: step (-2, 0).
    W,
    /// The lower left vertex, between hexsides S and SW: step (-1, +3).
    SSW,
    /// The lower right vertex, between hexsides SE and S: step (+1, +3).
    SSE,
}

impl Spine {
    /// All six, clockwise from east.
    pub const ALL: [Spine; 6] = [
        Spine::E,
        Spine::SSE,
        Spine::SSW,
        Spine::W,
        Spine::NNW,
        Spine::NNE,
    ];

    /// The alternate hex grain step: the centre of the next hex along this
    /// hexspine, two hexes away.
    pub fn delta(self) -> (i32, i32) {
        match self {
            Spine::E => (2, 0),
            Spine::NNE => (1, -3),
            Spine::NNW => (-1, -3),
            Spine::W => (-2, 0),
            Spine::SSW => (-1, 3),
            Spine::SSE => (1, 3),
        }
    }

    /// Its short name: `e`, `sse`, `ssw`, `w`, `nnw`, `nne`.
    pub fn name(self) -> &'static str {
        match self {
            Spine::E => "e",
            Spine::SSE => "sse",
            Spine::SSW => "ssw",
            Spine::W => "w",
            Spine::NNW => "nnw",
            Spine::NNE => "nne",
        }
    }

    /// The spine of a short name, any case.
    pub fn parse(s: &str) -> Option<Spine> {
        Spine::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The spine whose step is `(dx, dy)`, if any.
    pub fn from_delta(dx: i32, dy: i32) -> Option<Spine> {
        Spine::ALL.into_iter().find(|s| s.delta() == (dx, dy))
    }

    /// The two hexsides that meet at this vertex; the neighbours across
    /// them are the other two hexes touching the vertex.
    pub fn hexsides(self) -> [Direction; 2] {
        match self {
            Spine::E => [Direction::NE, Direction::SE],
            Spine::NNE => [Direction::N, Direction::NE],
            Spine::NNW => [Direction::NW, Direction::N],
            Spine::W => [Direction::SW, Direction::NW],
            Spine::SSW => [Direction::S, Direction::SW],
            Spine::SSE => [Direction::SE, Direction::S],
        }
    }
}

impl fmt::Display for Spine {
    /// Its short name (`sse`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Direction {
    /// Its short name (`ne`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.board, self.column_name(), self.row)
    }
}

impl FromStr for Hex {
    type Err = HexNameError;

    fn from_str(s: &str) -> Result<Hex, HexNameError> {
        let name = s.trim();
        let digits = name.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err(HexNameError::NoBoard(s.to_string()));
        }
        let board: u16 = name[..digits]
            .parse()
            .map_err(|_| HexNameError::NoBoard(s.to_string()))?;
        let rest = &name[digits..];
        let letters = rest.chars().take_while(|c| c.is_ascii_alphabetic()).count();
        let col_str = rest[..letters].to_ascii_uppercase();
        let col = match col_str.as_bytes() {
            [c] if c.is_ascii_uppercase() => c - b'A',
            [a, b] if a == b && (b'A'..=b'G').contains(a) => 26 + (a - b'A'),
            _ => return Err(HexNameError::BadColumn(s.to_string())),
        };
        let row_str = &rest[letters..];
        if row_str.is_empty() || !row_str.chars().all(|c| c.is_ascii_digit()) {
            return Err(HexNameError::BadRow(s.to_string()));
        }
        let row: u8 = row_str
            .parse()
            .map_err(|_| HexNameError::BadRow(s.to_string()))?;
        Hex::new(board, col, row).map_err(|e| match e {
            HexNameError::BadRow(_) => HexNameError::BadRow(s.to_string()),
            HexNameError::NoSuchHex(_) => HexNameError::NoSuchHex(s.to_string()),
            other => other,
        })
    }
}

impl Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hex, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_row_says_which_rows_exist() {
        // Issue 27: "has no valid row (0..=10)" was a Rust range.
        let said = "4E11".parse::<Hex>().unwrap_err().to_string();
        assert!(said.contains("rows are numbered 0 to 10"), "{said}");
        assert!(!said.contains("..="), "{said}");
    }

    #[test]
    fn names_round_trip() {
        for name in ["4E6", "12AA3", "1GG10", "3B0", "43A1"] {
            let h: Hex = name.parse().unwrap();
            assert_eq!(h.to_string(), name);
        }
    }

    #[test]
    fn bad_names_are_named() {
        assert!(matches!("E6".parse::<Hex>(), Err(HexNameError::NoBoard(_))));
        assert!(matches!(
            "4HH6".parse::<Hex>(),
            Err(HexNameError::BadColumn(_))
        ));
        assert!(matches!(
            "4AB6".parse::<Hex>(),
            Err(HexNameError::BadColumn(_))
        ));
        assert!(matches!(
            "4E11".parse::<Hex>(),
            Err(HexNameError::BadRow(_))
        ));
        assert!(matches!("4E".parse::<Hex>(), Err(HexNameError::BadRow(_))));
        assert!(matches!(
            "4A0".parse::<Hex>(),
            Err(HexNameError::NoSuchHex(_))
        ));
    }

    #[test]
    fn local_xy_follows_the_doubled_convention() {
        // Even-index column E: row 6 sits at y = 11; odd-index column F at 12.
        let e6: Hex = "4E6".parse().unwrap();
        let f6: Hex = "4F6".parse().unwrap();
        assert_eq!(e6.local_xy(), (4, 11));
        assert_eq!(f6.local_xy(), (5, 12));
        // E6 and F6 are neighbours: F6 lies SE of E6.
        let (ex, ey) = e6.local_xy();
        let (fx, fy) = f6.local_xy();
        assert_eq!(Direction::from_delta(fx - ex, fy - ey), Some(Direction::SE));
    }

    #[test]
    fn directions_and_spines_are_consistent() {
        for d in Direction::ALL {
            let (dx, dy) = d.delta();
            let (ox, oy) = d.opposite().delta();
            assert_eq!((dx + ox, dy + oy), (0, 0));
            assert_eq!(Direction::from_delta(dx, dy), Some(d));
        }
        for s in Spine::ALL {
            // A spine step is the sum of the two hexside steps at its vertex.
            let [a, b] = s.hexsides();
            let (ax, ay) = a.delta();
            let (bx, by) = b.delta();
            assert_eq!(s.delta(), (ax + bx, ay + by));
            assert_eq!(Spine::from_delta(ax + bx, ay + by), Some(s));
        }
    }

    #[test]
    fn distance_in_doubled_coordinates() {
        let o = MapPos { x: 5, y: 12 };
        for d in Direction::ALL {
            assert_eq!(o.distance(o.step(d)), 1);
        }
        for s in Spine::ALL {
            let (dx, dy) = s.delta();
            assert_eq!(o.distance(o.offset(dx, dy)), 2);
        }
        assert_eq!(o.distance(o.offset(0, 10)), 5);
        assert_eq!(o.distance(o.offset(4, 2)), 4);
        assert_eq!(o.distance(o.offset(-3, 9)), 6);
        assert!(o.is_hex_centre());
        assert!(!o.offset(1, 0).is_hex_centre());
    }
}
