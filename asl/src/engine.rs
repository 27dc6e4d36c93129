//! The adjudicator: a sans-IO state machine that asks for what it needs.
//!
//! ```text
//! engine.apply(side, action)    -> Step
//! Step::NeedFacts(requests)      // open these sealed facts
//! Step::NeedDice(specs)          // make these rolls
//! Step::Done(events)             // what happened, each event with its audience
//! engine.provide_facts(facts)    -> Step
//! engine.provide_dice(rolls)     -> Step
//! ```
//!
//! The server answers `NeedFacts` by asking the owner's client and
//! `NeedDice` by a beacon round; the offline verifier answers from the
//! transcript; tests answer from literals. One engine, three drivers.

use crate::adjudicate;
use crate::dice::{DiceSpec, Roll};
use crate::model::action::Action;
use crate::model::error::{ActionError, ProvideError};
use crate::model::event::Event;
use crate::model::resolve::Ctx;
use crate::model::scenario::Scenario;
use crate::model::sealed::{Fact, FactRequest};
use crate::model::state::GameState;
use crate::side::Side;
use hexveil_core::{Asked, Mismatch};
use std::sync::Arc;

/// What the engine answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Open these sealed facts (in this order) and call
    /// [`Engine::provide_facts`].
    NeedFacts(Vec<FactRequest>),
    /// Make these rolls (in this order) and call [`Engine::provide_dice`].
    NeedDice(Vec<DiceSpec>),
    /// The action is resolved: these events happened.
    Done(Vec<Event>),
}

/// The action being adjudicated, with the answers given so far.
type Pending = hexveil_core::Pending<Action, FactRequest, Fact>;

/// The rules engine for one game. Cloning it (a referee works on a copy
/// of itself for every entry) shares the immutable scenario.
#[derive(Clone, Debug)]
pub struct Engine {
    scenario: Arc<Scenario>,
    state: GameState,
    pending: Option<Pending>,
}

impl Engine {
    /// An engine at the start of `scenario`, from a state built for it
    /// (see [`crate::setup`]).
    pub fn with_state(scenario: impl Into<Arc<Scenario>>, mut state: GameState) -> Engine {
        let scenario = scenario.into();
        // Units' positions under canonical names (a seam hex is one hex).
        for u in state.units.values_mut() {
            u.hex = u.hex.map(|h| scenario.map.canonical(h));
        }
        Engine {
            scenario,
            state,
            pending: None,
        }
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The state after the last completed action.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// Whether an action is waiting for facts or dice.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Declares an action. Refused with a reason, changing nothing, if the
    /// rules forbid it; otherwise the first [`Step`].
    pub fn apply(&mut self, actor: Side, action: Action) -> Result<Step, ActionError> {
        if self.pending.is_some() {
            return Err(ActionError::Busy);
        }
        if self.state.result.is_some() {
            return Err(ActionError::GameOver);
        }
        let action = action.canonical(&self.scenario.map);
        adjudicate::check(&self.scenario, &self.state, actor, &action)?;
        self.pending = Some(Pending::new(actor, action));
        self.run()
    }

    /// Gives the facts the last [`Step::NeedFacts`] asked for, in order.
    pub fn provide_facts(&mut self, facts: Vec<Fact>) -> Result<Step, ActionError> {
        let pending = self.pending.as_mut().ok_or(ProvideError::NothingPending)?;
        if let Some(f) = facts.iter().find(|f| !f.content.fits(f.request.layer)) {
            return Err(ProvideError::ContentDoesNotFit {
                request: f.request,
                content: f.content,
            }
            .into());
        }
        pending
            .give_facts(facts, |f| f.request)
            .map_err(asl_error)?;
        self.run()
    }

    /// Gives the rolls the last [`Step::NeedDice`] asked for, in order.
    pub fn provide_dice(&mut self, rolls: Vec<Roll>) -> Result<Step, ActionError> {
        let pending = self.pending.as_mut().ok_or(ProvideError::NothingPending)?;
        pending.give_dice(rolls).map_err(asl_error)?;
        self.run()
    }

    /// Runs the pending resolution as far as the answers given allow. A
    /// refusal after something was asked consumes the action from ruleset
    /// version 3 ([`adjudicate::consumed`], R73); before, it was voided by
    /// the referee.
    fn run(&mut self) -> Result<Step, ActionError> {
        let pending = self
            .pending
            .as_mut()
            .expect("run is called with a pending action");
        let mut ctx = Ctx::with_answers(
            &self.scenario,
            self.state.clone(),
            pending.actor,
            pending.answers(),
        );
        let result = adjudicate::resolve(&mut ctx, &pending.action);
        let all_used = ctx.all_answers_used();
        let (state, events) = ctx.finish();
        let interrupt = match result {
            Ok(()) => {
                debug_assert!(all_used, "rules used fewer answers than asked");
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
                if answered && self.scenario.since(3) {
                    if let Some((consumed, events)) = adjudicate::consumed(
                        &self.state,
                        pending.actor,
                        &pending.action,
                        &e,
                        events,
                        &state,
                    ) {
                        self.state = consumed;
                        return Ok(Step::Done(events));
                    }
                }
                Err(ActionError::Refused(e))
            }
        }
    }
}

impl From<ProvideError> for ActionError {
    fn from(e: ProvideError) -> ActionError {
        ActionError::Provide(e)
    }
}

/// ASL's form of answers that do not fit the pending action (the kernel's
/// bookkeeping names ASL's own requests).
fn asl_error(m: Mismatch<FactRequest>) -> ActionError {
    ActionError::Provide(match m {
        Mismatch::NothingPending => ProvideError::NothingPending,
        Mismatch::NotWaitingForFacts => ProvideError::NotWaitingForFacts,
        Mismatch::NotWaitingForDice => ProvideError::NotWaitingForDice,
        Mismatch::WrongFacts { expected, got } => ProvideError::WrongFacts { expected, got },
        Mismatch::WrongDiceCount { expected, got } => {
            ProvideError::WrongDiceCount { expected, got }
        }
        Mismatch::BadRoll { index, spec, roll } => ProvideError::BadRoll { index, spec, roll },
    })
}
