//! The state of a miniatures game after its last completed action: the
//! figures, the open mines and the mines laid in play. The [`rules`](crate::rules)
//! change it and the [`engine`](crate::engine) keeps it.

use crate::action::MineKind;
use crate::geom::{Cell, Point};
use crate::scenario::Budget;
use hexveil_core::{Outcome, Side};
use std::collections::BTreeMap;

/// What a figure is now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// On the table and able to act.
    Active,
    /// A vehicle with damaged tracks: it cannot move.
    Immobilized,
    /// A destroyed vehicle.
    Destroyed,
    /// An Infantry figure removed after a failed save.
    Removed,
}

/// A figure laying a mine (seed 004 laying: two consecutive turns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Laying {
    /// Where.
    pub cell: Cell,
    /// What.
    pub kind: MineKind,
    /// The turn the first move was spent.
    pub turn: u16,
}

/// A figure in play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FigureState {
    /// Where it is.
    pub pos: Point,
    /// What it is now.
    pub status: Status,
    /// Whether it has acted this turn.
    pub moved: bool,
    /// A mine it is laying.
    pub laying: Option<Laying>,
    /// A towed weapon lost with its vehicle.
    pub towed_lost: bool,
}

/// Open mines of a cell (everyone knows them), per type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenMines {
    /// Plain A-P density.
    pub ap: u16,
    /// S-mine density.
    pub s: u16,
    /// A-T density.
    pub at: u16,
}

impl OpenMines {
    /// Whether none.
    pub fn is_empty(&self) -> bool {
        self.ap == 0 && self.s == 0 && self.at == 0
    }
}

/// The game state after the last completed action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameState {
    /// The turn, from 1.
    pub turn: u16,
    /// Whose turn it is.
    pub active: Side,
    /// Figures, by scenario id.
    pub figures: Vec<FigureState>,
    /// Open mines by cell (both sides').
    pub open: BTreeMap<Cell, OpenMines>,
    /// Mines each side laid in play, `[A, B]`.
    pub laid: [Budget; 2],
    /// Mines laid in play per cell, every type and side together (their
    /// density adds to what the cell could hold from setup, R78).
    pub laid_cells: BTreeMap<Cell, u16>,
    /// How the game ended.
    pub outcome: Option<Outcome>,
}
