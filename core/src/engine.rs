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

use crate::action::Action;
use crate::adjudicate;
use crate::dice::{DiceSpec, Roll};
use crate::error::{ActionError, ProvideError};
use crate::event::Event;
use crate::resolve::{Ctx, Interrupt};
use crate::scenario::Scenario;
use crate::sealed::{Fact, FactRequest};
use crate::side::Side;
use crate::state::GameState;
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

/// What a pending resolution waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Waiting {
    Facts(Vec<FactRequest>),
    Dice(Vec<DiceSpec>),
}

#[derive(Clone, Debug)]
struct Pending {
    actor: Side,
    action: Action,
    facts: Vec<Fact>,
    dice: Vec<Roll>,
    waiting: Waiting,
}

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
        self.pending = Some(Pending {
            actor,
            action,
            facts: Vec::new(),
            dice: Vec::new(),
            waiting: Waiting::Facts(Vec::new()),
        });
        self.run()
    }

    /// Gives the facts the last [`Step::NeedFacts`] asked for, in order.
    pub fn provide_facts(&mut self, facts: Vec<Fact>) -> Result<Step, ActionError> {
        let pending = self.pending.as_mut().ok_or(ProvideError::NothingPending)?;
        let Waiting::Facts(expected) = &pending.waiting else {
            return Err(ProvideError::NotWaitingForFacts.into());
        };
        let got: Vec<FactRequest> = facts.iter().map(|f| f.request).collect();
        if &got != expected {
            return Err(ProvideError::WrongFacts {
                expected: expected.clone(),
                got,
            }
            .into());
        }
        if let Some(f) = facts.iter().find(|f| !f.content.fits(f.request.layer)) {
            return Err(ProvideError::ContentDoesNotFit {
                request: f.request,
                content: f.content,
            }
            .into());
        }
        pending.facts.extend(facts);
        self.run()
    }

    /// Gives the rolls the last [`Step::NeedDice`] asked for, in order.
    pub fn provide_dice(&mut self, rolls: Vec<Roll>) -> Result<Step, ActionError> {
        let pending = self.pending.as_mut().ok_or(ProvideError::NothingPending)?;
        let Waiting::Dice(expected) = &pending.waiting else {
            return Err(ProvideError::NotWaitingForDice.into());
        };
        if rolls.len() != expected.len() {
            return Err(ProvideError::WrongDiceCount {
                expected: expected.len(),
                got: rolls.len(),
            }
            .into());
        }
        if let Some((index, (spec, roll))) = expected
            .iter()
            .zip(&rolls)
            .enumerate()
            .find(|(_, (s, r))| !r.answers(s.kind))
        {
            return Err(ProvideError::BadRoll {
                index,
                spec: spec.clone(),
                roll: *roll,
            }
            .into());
        }
        pending.dice.extend(rolls);
        self.run()
    }

    /// Runs the pending resolution as far as the answers given allow.
    fn run(&mut self) -> Result<Step, ActionError> {
        let pending = self
            .pending
            .as_mut()
            .expect("run is called with a pending action");
        let mut ctx = Ctx::new(
            &self.scenario,
            self.state.clone(),
            pending.actor,
            &pending.facts,
            &pending.dice,
        );
        match adjudicate::resolve(&mut ctx, &pending.action) {
            Ok(()) => {
                debug_assert!(
                    ctx.all_answers_used(),
                    "rules used fewer answers than asked"
                );
                let (state, events) = ctx.finish();
                self.state = state;
                self.pending = None;
                Ok(Step::Done(events))
            }
            Err(Interrupt::Facts(requests)) => {
                pending.waiting = Waiting::Facts(requests.clone());
                Ok(Step::NeedFacts(requests))
            }
            Err(Interrupt::Dice(specs)) => {
                pending.waiting = Waiting::Dice(specs.clone());
                Ok(Step::NeedDice(specs))
            }
            Err(Interrupt::Refuse(e)) => {
                self.pending = None;
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
