//! What the rules may ask of an owner during an action, from the public
//! state one side knows (issue 24, [`hexveil_core::Observer`]).
//!
//! A [`MinisObserver`] is one side's [`PublicState`], folded from what that
//! side was shown; the bound it reads from it is exactly what the engine
//! asks, because every request of this ruleset follows from public data:
//!
//! - a `Move` asks, for every cell its path crosses (the figure's position,
//!   then the waypoints, `geom::path_cells`), each side's leaf where that
//!   side may hide mines, the mover's own side included (R50, R51); it
//!   asks them only if some crossed cell may be mined, so the bound, which
//!   holds them all, is the engine's request or more;
//! - a `Clear` asks the same of every cell of the cleared strip (R47);
//! - `Lay`, `EndTurn` and `Concede` ask nothing; no action opens a note or
//!   rolls a Secret dr.
//!
//! Nothing asked depends on the other side's sealed facts or on dice: the
//! referee's requests are decided before any opening (`rules::resolve`).

use crate::action::{decode_action, Action};
use crate::geom::{path_cells, Cell};
use crate::public_state::PublicState;
use crate::rules::{cleared_cells, full_path, requests_for};
use crate::scenario::{MinisPublicSetup, MinisScenario};
use hexveil_core as kernel;
use hexveil_core::{FactRequest, Side};
use std::sync::Arc;

/// One side's picture of a miniatures game, and the bound of what the
/// rules may ask of an owner from it.
#[derive(Clone, Debug)]
pub struct MinisObserver {
    viewer: Side,
    public: PublicState,
}

/// A fresh observer of a game of `scenario` for `viewer`, before any
/// setup ([`kernel::Scenario::observer`]).
pub fn observer(scenario: &MinisScenario, viewer: Side) -> Box<dyn kernel::Observer> {
    Box::new(MinisObserver::new(Arc::new(scenario.clone()), viewer))
}

impl MinisObserver {
    /// An observer for `viewer`, before any setup.
    pub fn new(scenario: Arc<MinisScenario>, viewer: Side) -> MinisObserver {
        MinisObserver {
            viewer,
            public: PublicState::new(scenario),
        }
    }

    /// The side whose picture it is.
    pub fn viewer(&self) -> Side {
        self.viewer
    }

    /// The picture folded so far.
    pub fn public(&self) -> &PublicState {
        &self.public
    }

    /// The cells `action` may ask, whoever owns them: those its path or
    /// strip touches, from the figure's position as the picture holds it.
    pub fn cells(&self, action: &Action) -> Vec<Cell> {
        let sc = self.public.scenario();
        let pos = |name: &str| {
            sc.figure_named(name)
                .and_then(|(i, _)| self.public.figures()[i].pos)
        };
        match action {
            Action::Move { figure, path } => match pos(figure) {
                Some(from) => path_cells(&full_path(from, path)),
                None => Vec::new(),
            },
            Action::Clear { figure, to } => match pos(figure) {
                Some(from) => cleared_cells(sc, from, *to),
                None => Vec::new(),
            },
            Action::Lay { .. } | Action::EndTurn | Action::Concede => Vec::new(),
        }
    }

    /// Every leaf of either side the engine can ask while resolving
    /// `action` from this state (see the module doc).
    pub fn bound(&self, action: &Action) -> Vec<FactRequest> {
        requests_for(self.public.scenario(), &self.cells(action))
    }
}

impl kernel::Observer for MinisObserver {
    fn setup(&mut self, public: &dyn kernel::PublicSetup) {
        if let Some(p) = public.as_any().downcast_ref::<MinisPublicSetup>() {
            self.public.setup(p.clone());
        }
    }

    /// The state changes of an action reach the picture through its
    /// events; a declaration alone changes nothing.
    fn declared(&mut self, _actor: Side, _action: &[u8]) {}

    fn event(&mut self, event: &kernel::Event) {
        self.public.kernel_event(event);
    }

    fn asks(&self, _actor: Side, action: &[u8], owner: Side) -> kernel::Asks {
        let mut asks = kernel::Asks::none();
        if let Ok(action) = decode_action(action) {
            for r in self.bound(&action).into_iter().filter(|r| r.owner == owner) {
                asks.add(r.layer, r.location);
            }
        }
        asks
    }

    /// Set by the public `GameOver` event, as the engine's own outcome is.
    fn outcome(&self) -> Option<kernel::Outcome> {
        self.public.outcome().cloned()
    }

    fn clone_box(&self) -> Box<dyn kernel::Observer> {
        Box::new(self.clone())
    }
}
