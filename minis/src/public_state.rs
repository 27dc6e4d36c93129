//! The public picture of a miniatures game: the engine's state folded from
//! what one reader was shown, in log order (G3).
//!
//! One fold serves every reader: a player's client bounding what the
//! referee may ask of it ([`crate::asks`], issue 24), and the boards of
//! players, spectators and replays (hexveil-view's `Board`, which adds its
//! words: each figure's state told as it happened, the mines that went
//! off, the result). Everything in the engine's [`GameState`] is public
//! (positions, open mines, who acted, who is laying what, the mines laid)
//! and every change of it is told by a public event, so once both setups
//! are known the fold is the engine's state exactly
//! ([`PublicState::engine_state`]). The hidden mines are never in it: the
//! openings are the referee's.

use crate::action::MineKind;
use crate::event::{MinisEvent, VehicleResult};
use crate::geom::{Cell, Point};
use crate::scenario::{si, Budget, MinisPublicSetup, MinisScenario};
use crate::state::{GameState, Laying, OpenMines, Status};
use hexveil_core::{Outcome, Side};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One figure as a reader knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicFigure {
    /// Where it is; `None` until a setup or the scenario places it.
    pub pos: Option<Point>,
    /// What it is now.
    pub status: Status,
    /// Whether it has acted this turn.
    pub moved: bool,
    /// A mine it is laying (seed 004 laying, R48).
    pub laying: Option<Laying>,
    /// Whether its towed weapon was lost with it (seed 004 soft vehicles).
    pub towed_lost: bool,
}

/// One reader's picture of a miniatures game in play.
#[derive(Clone, Debug)]
pub struct PublicState {
    scenario: Arc<MinisScenario>,
    setups: [Option<MinisPublicSetup>; 2],
    turn: u16,
    active: Side,
    figures: Vec<PublicFigure>,
    open: BTreeMap<Cell, OpenMines>,
    laid: [Budget; 2],
    laid_cells: BTreeMap<Cell, u16>,
    outcome: Option<Outcome>,
}

impl PublicState {
    /// The picture before any setup: figures where the scenario puts them.
    pub fn new(scenario: Arc<MinisScenario>) -> PublicState {
        let figures = scenario
            .figures
            .iter()
            .map(|f| PublicFigure {
                pos: f.start,
                status: Status::Active,
                moved: false,
                laying: None,
                towed_lost: false,
            })
            .collect();
        PublicState {
            scenario,
            setups: [None, None],
            turn: 1,
            active: Side::A,
            figures,
            open: BTreeMap::new(),
            laid: [Budget::default(); 2],
            laid_cells: BTreeMap::new(),
            outcome: None,
        }
    }

    /// The scenario played.
    pub fn scenario(&self) -> &MinisScenario {
        &self.scenario
    }

    /// The turn, from 1.
    pub fn turn(&self) -> u16 {
        self.turn
    }

    /// Whose turn it is.
    pub fn active(&self) -> Side {
        self.active
    }

    /// The figures, by scenario id.
    pub fn figures(&self) -> &[PublicFigure] {
        &self.figures
    }

    /// Open mines by cell (both sides').
    pub fn open(&self) -> &BTreeMap<Cell, OpenMines> {
        &self.open
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// The engine's form of the state, once every figure has a position
    /// (both setups are known): equal to the engine's own after the same
    /// log.
    pub fn engine_state(&self) -> Option<GameState> {
        let figures = self
            .figures
            .iter()
            .map(|f| {
                Some(crate::state::FigureState {
                    pos: f.pos?,
                    status: f.status,
                    moved: f.moved,
                    laying: f.laying,
                    towed_lost: f.towed_lost,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(GameState {
            turn: self.turn,
            active: self.active,
            figures,
            open: self.open.clone(),
            laid: self.laid,
            laid_cells: self.laid_cells.clone(),
            outcome: self.outcome.clone(),
        })
    }

    /// Takes a side's checked public setup (its Setup entry, before play):
    /// its figures' positions and open mines, as the engine starts from
    /// them.
    pub fn setup(&mut self, public: MinisPublicSetup) {
        let side = si(public.side);
        self.setups[side] = Some(public);
        for (i, f) in self.scenario.figures.iter().enumerate() {
            let given = self.setups[si(f.side)]
                .as_ref()
                .and_then(|s| s.positions.get(&f.name));
            self.figures[i].pos = given.copied().or(f.start);
        }
        self.open.clear();
        for p in self.setups.iter().flatten() {
            for (c, m) in &p.open {
                let o = self.open.entry(*c).or_default();
                if m.s {
                    o.s += u16::from(m.ap);
                } else {
                    o.ap += u16::from(m.ap);
                }
                o.at += u16::from(m.at);
            }
        }
    }

    fn figure(&mut self, name: &str) -> Option<&mut PublicFigure> {
        let (i, _) = self.scenario.figure_named(name)?;
        self.figures.get_mut(i)
    }

    /// Folds one event the reader was shown, as the engine's rules made
    /// the change it tells (crate::rules).
    pub fn event(&mut self, e: &MinisEvent) {
        match e {
            MinisEvent::Moved { figure, to, .. } => {
                if let Some(f) = self.figure(figure) {
                    f.pos = Some(*to);
                    f.moved = true;
                    f.laying = None;
                }
            }
            MinisEvent::VehicleHit { figure, result } => {
                if let Some(f) = self.figure(figure) {
                    match result {
                        VehicleResult::Destroyed => f.status = Status::Destroyed,
                        VehicleResult::Immobilized => f.status = Status::Immobilized,
                        VehicleResult::NoDamage => {}
                    }
                }
            }
            MinisEvent::TowedWeapon {
                figure, survived, ..
            } => {
                if let Some(f) = self.figure(figure) {
                    f.towed_lost = !survived;
                }
            }
            MinisEvent::BlastSave {
                figure,
                saved: false,
                ..
            } => {
                if let Some(f) = self.figure(figure) {
                    f.status = Status::Removed;
                    f.laying = None;
                }
            }
            MinisEvent::LayingBegun { figure, cell, kind } => {
                let turn = self.turn;
                if let Some(f) = self.figure(figure) {
                    f.moved = true;
                    f.laying = Some(Laying {
                        cell: *cell,
                        kind: *kind,
                        turn,
                    });
                }
            }
            MinisEvent::MineLaid {
                figure,
                cell,
                kind,
                density,
            } => {
                let Some((i, fig)) = self.scenario.figure_named(figure) else {
                    return;
                };
                let side = fig.side;
                self.figures[i].moved = true;
                self.figures[i].laying = None;
                *self.laid_cells.entry(*cell).or_default() += 1;
                let o = self.open.entry(*cell).or_default();
                let laid = &mut self.laid[si(side)];
                // The event tells the cell's new density of that type.
                match kind {
                    MineKind::AntiPersonnel => {
                        o.ap = *density;
                        laid.ap += 1;
                    }
                    MineKind::SMine => {
                        o.s = *density;
                        laid.s += 1;
                    }
                    MineKind::AntiTank => {
                        o.at = *density;
                        laid.at += 1;
                    }
                }
            }
            MinisEvent::Cleared { cells, .. } => {
                // R47: the open mines of every cell of the strip are lifted.
                for c in cells {
                    self.open.remove(c);
                    self.laid_cells.remove(c);
                }
            }
            MinisEvent::Consumed { figure, .. } => {
                // R78: the figure has acted this turn.
                if let Some(f) = self.figure(figure) {
                    f.moved = true;
                }
            }
            MinisEvent::TurnEnded { turn, next, .. } => {
                for f in &mut self.figures {
                    f.moved = false;
                }
                self.turn = *turn;
                self.active = *next;
            }
            MinisEvent::GameOver { winner, reason } => {
                self.outcome = Some(Outcome {
                    winner: *winner,
                    reason: reason.clone(),
                });
            }
            MinisEvent::NoDetonation { .. }
            | MinisEvent::Detonation { .. }
            | MinisEvent::Conceded { .. }
            | MinisEvent::ConsumedWhy { .. }
            | MinisEvent::BlastSave { .. } => {}
        }
    }

    /// Decodes a kernel event and folds it; the ruleset's event, or `None`
    /// for the kernel's own kinds and bytes that are no miniatures event.
    pub fn kernel_event(&mut self, e: &hexveil_core::Event) -> Option<MinisEvent> {
        let hexveil_core::EventKind::Rules(bytes) = &e.kind else {
            return None;
        };
        let m = crate::event::decode_event(bytes).ok()?;
        self.event(&m);
        Some(m)
    }
}
