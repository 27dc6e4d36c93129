//! Errors every ruleset's engine shares. Each says exactly what was wrong;
//! an error never changes the game state.

use crate::dice::DiceSpec;
use crate::dice::Roll;
use crate::fact::{Content, FactRequest};

/// A rule forbids what was asked, or a needed rules-data cell is missing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason} ({})", cite.join(", "))]
pub struct RuleError {
    /// What is wrong, in words.
    pub reason: String,
    /// The rules (and rulings) that say so.
    pub cite: Vec<String>,
}

impl RuleError {
    /// A refusal with one citation.
    pub fn new(reason: impl Into<String>, cite: &str) -> RuleError {
        RuleError {
            reason: reason.into(),
            cite: vec![cite.to_string()],
        }
    }
}

/// Why an action was refused, as the protocol sees it. The game state is
/// unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// The action's bytes are not an action of this ruleset.
    #[error("not an action of this ruleset: {0}")]
    Malformed(String),
    /// Refused before anything was asked (out of turn, wrong phase, a unit
    /// that is not the actor's, ...): the ruleset's words.
    #[error("{0}")]
    Illegal(String),
    /// A rule forbids it, or a rules-data cell it needs is missing (R12).
    #[error("refused: {0}")]
    Refused(#[from] RuleError),
    /// Facts or dice given to the engine were not what it asked for.
    #[error("bad answer: {0}")]
    Provide(#[from] ProvideError),
}

/// Why facts or dice given to an engine were rejected. Nothing changes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProvideError {
    /// Nothing is being adjudicated.
    #[error("no action is waiting for facts or dice")]
    NothingPending,
    /// The engine waits for dice, not facts.
    #[error("the engine is waiting for dice, not facts")]
    NotWaitingForFacts,
    /// The engine waits for facts, not dice.
    #[error("the engine is waiting for facts, not dice")]
    NotWaitingForDice,
    /// The facts do not answer the requests, in order.
    #[error("facts do not answer the requests: expected {expected:?}, got {got:?}")]
    WrongFacts {
        /// What was asked.
        expected: Vec<FactRequest>,
        /// What was given.
        got: Vec<FactRequest>,
    },
    /// A content that cannot be in that layer.
    #[error("{content:?} cannot be in layer {} ({reason})", request.layer)]
    ContentDoesNotFit {
        /// The request.
        request: FactRequest,
        /// The content given.
        content: Content,
        /// The ruleset's reason.
        reason: String,
    },
    /// Too few or too many rolls.
    #[error("expected {expected} rolls, got {got}")]
    WrongDiceCount {
        /// How many were asked.
        expected: usize,
        /// How many were given.
        got: usize,
    },
    /// A roll that does not answer its request (wrong kind or face).
    #[error("roll {index} ({roll:?}) does not answer {spec:?}")]
    BadRoll {
        /// Position in the batch.
        index: usize,
        /// What was asked.
        spec: DiceSpec,
        /// What was given.
        roll: Roll,
    },
}
