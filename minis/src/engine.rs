//! The miniatures engine: a sans-IO state machine driven by the kernel's
//! [`Engine`] trait, resolving each action by replay.
//!
//! `apply` checks the action on public data only (a refusal there asks
//! nothing and changes nothing), then runs the resolution over the facts
//! and dice buffered so far: it stops at the first answer it lacks
//! (`NeedFacts` / `NeedDice`) and is run again from the start when it comes.
//! The state is kept only when a resolution completes, so a refusal at any
//! point changes nothing.

use crate::action::{decode_action, Action};
use crate::geom::Cell;
use crate::rules;
use crate::scenario::{Budget, MinisPublicSetup, MinisScenario};
use crate::state::{FigureState, GameState, OpenMines, Status};
use hexveil_core::{
    ActionError, Asked, Engine, Event, Fact, FactRequest, Outcome, ProvideError, Roll,
    Scenario as _, Side, Step,
};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The action being adjudicated, with the answers given so far.
type Pending = hexveil_core::Pending<Action, FactRequest, Fact>;

/// The engine of one miniatures game.
#[derive(Clone, Debug)]
pub struct MinisEngine {
    scenario: Arc<MinisScenario>,
    state: GameState,
    pending: Option<Pending>,
}

impl MinisEngine {
    /// The engine at the start of play, from both public setups (A, B).
    pub fn start(
        scenario: Arc<MinisScenario>,
        publics: [&MinisPublicSetup; 2],
    ) -> Result<MinisEngine, String> {
        for (i, p) in publics.iter().enumerate() {
            let want = [Side::A, Side::B][i];
            if p.side != want {
                return Err(format!(
                    "public setup {i} is side {}, expected {want}",
                    p.side
                ));
            }
        }
        let mut figures = Vec::new();
        for f in &scenario.figures {
            let pos = publics[crate::scenario::si(f.side)]
                .positions
                .get(&f.name)
                .copied()
                .or(f.start)
                .ok_or_else(|| format!("{} has no position (scenario or public setup)", f.name))?;
            figures.push(FigureState {
                pos,
                status: Status::Active,
                moved: false,
                laying: None,
                towed_lost: false,
            });
        }
        let mut open: BTreeMap<Cell, OpenMines> = BTreeMap::new();
        for p in publics {
            for (c, m) in &p.open {
                let o = open.entry(*c).or_default();
                if m.s {
                    o.s += u16::from(m.ap);
                } else {
                    o.ap += u16::from(m.ap);
                }
                o.at += u16::from(m.at);
            }
        }
        Ok(MinisEngine {
            scenario,
            state: GameState {
                turn: 1,
                active: Side::A,
                figures,
                open,
                laid: [Budget::default(); 2],
                laid_cells: BTreeMap::new(),
                outcome: None,
            },
            pending: None,
        })
    }

    /// The scenario.
    pub fn scenario(&self) -> &MinisScenario {
        &self.scenario
    }

    /// The state after the last completed action.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// Replaces the state (tests and the oracle set up situations).
    pub fn set_state(&mut self, state: GameState) {
        self.state = state;
    }

    /// Whether an action waits for facts or dice.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Declares a decoded action.
    pub fn apply_action(&mut self, actor: Side, action: Action) -> Result<Step, ActionError> {
        if self.pending.is_some() {
            return Err(ActionError::Illegal(
                "an action is still waiting for facts or dice".into(),
            ));
        }
        if self.state.outcome.is_some() {
            return Err(ActionError::Illegal("the game is over".into()));
        }
        rules::check(&self.scenario, &self.state, actor, &action)?;
        self.pending = Some(Pending::new(actor, action));
        self.run()
    }

    /// Runs the pending resolution as far as the answers allow. From
    /// ruleset version 2 a refusal after something was asked consumes the
    /// figure's action ([`rules::consumed`], R78); before, the referee
    /// voided it.
    fn run(&mut self) -> Result<Step, ActionError> {
        let pending = self.pending.as_mut().expect("run with a pending action");
        let mut ctx = rules::Ctx::new(
            &self.scenario,
            self.state.clone(),
            pending.actor,
            pending.answers(),
        );
        let result = rules::resolve(&mut ctx, &pending.action);
        let all_used = ctx.all_used();
        let (state, events) = ctx.finish();
        let interrupt = match result {
            Ok(()) => {
                debug_assert!(all_used, "rules used fewer answers than given");
                self.state = state;
                self.pending = None;
                return Ok(Step::Done(events));
            }
            Err(interrupt) => interrupt,
        };
        let answered = pending.answered();
        match pending.interrupted(interrupt) {
            Ok(Asked::Facts(requests)) => Ok(Step::NeedFacts(requests)),
            Ok(Asked::Dice(specs)) => Ok(Step::NeedDice(specs)),
            Err(e) => {
                let pending = self.pending.take().expect("pending above");
                if answered && self.scenario.version >= 2 {
                    if let Some((state, events)) = rules::consumed(
                        &self.scenario,
                        &self.state,
                        pending.actor,
                        &pending.action,
                        &e,
                        events,
                    ) {
                        self.state = state;
                        return Ok(Step::Done(events));
                    }
                }
                Err(ActionError::Refused(e))
            }
        }
    }
}

impl Engine for MinisEngine {
    fn apply(&mut self, actor: Side, action: &[u8]) -> Result<Step, ActionError> {
        let action = decode_action(action).map_err(ActionError::Malformed)?;
        self.apply_action(actor, action)
    }

    fn provide_facts(&mut self, facts: Vec<Fact>) -> Result<Step, ActionError> {
        let pending = self.pending.as_mut().ok_or(ProvideError::NothingPending)?;
        for f in &facts {
            if let Err(reason) = self.scenario.check_content(f.request.layer, &f.content) {
                return Err(ProvideError::ContentDoesNotFit {
                    request: f.request,
                    content: f.content,
                    reason: reason.to_string(),
                }
                .into());
            }
        }
        pending
            .give_facts(facts, |f| f.request)
            .map_err(ProvideError::from)?;
        self.run()
    }

    fn provide_dice(&mut self, rolls: Vec<Roll>) -> Result<Step, ActionError> {
        let pending = self.pending.as_mut().ok_or(ProvideError::NothingPending)?;
        pending.give_dice(rolls).map_err(ProvideError::from)?;
        self.run()
    }

    fn to_act(&self) -> Side {
        self.state.active
    }

    fn outcome(&self) -> Option<Outcome> {
        self.state.outcome.clone()
    }

    fn clone_box(&self) -> Box<dyn Engine> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The cited events of a resolution, for tests and narrators.
pub fn rules_events(events: &[Event]) -> Vec<crate::event::MinisEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            hexveil_core::EventKind::Rules(b) => crate::event::decode_event(b).ok(),
            _ => None,
        })
        .collect()
}
