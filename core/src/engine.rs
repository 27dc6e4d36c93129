//! The sans-IO engine interface every ruleset implements.
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

use crate::dice::{DiceSpec, Roll};
use crate::error::ActionError;
use crate::event::Event;
use crate::fact::{Fact, FactRequest};
use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt::Debug;

/// What an engine answers.
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

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner, if any.
    pub winner: Option<Side>,
    /// Why, in words.
    pub reason: String,
}

/// One game's rules engine, as the referee drives it. Actions are in the
/// ruleset's own encoding; a refusal changes nothing.
pub trait Engine: Send + Sync + Debug {
    /// Declares an action. Refused with a reason, changing nothing, if the
    /// bytes are not an action or the rules forbid it; otherwise the first
    /// [`Step`].
    fn apply(&mut self, actor: Side, action: &[u8]) -> Result<Step, ActionError>;

    /// Gives the facts the last [`Step::NeedFacts`] asked for, in order.
    fn provide_facts(&mut self, facts: Vec<Fact>) -> Result<Step, ActionError>;

    /// Gives the rolls the last [`Step::NeedDice`] asked for, in order.
    fn provide_dice(&mut self, rolls: Vec<Roll>) -> Result<Step, ActionError>;

    /// The side whose move it is when nothing is pending (who ends the
    /// current phase); the engine decides whether an action of either side
    /// is legal now.
    fn to_act(&self) -> Side;

    /// How the game ended, once it has.
    fn outcome(&self) -> Option<Outcome>;

    /// A copy that shares nothing mutable (the referee works on copies, G6).
    fn clone_box(&self) -> Box<dyn Engine>;

    /// The ruleset's own engine, for drivers that know the ruleset (its
    /// tests, its narrator) to read its state.
    fn as_any(&self) -> &dyn Any;
}

impl Clone for Box<dyn Engine> {
    fn clone(&self) -> Box<dyn Engine> {
        self.clone_box()
    }
}
