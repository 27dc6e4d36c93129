//! Errors the engine returns. Each says exactly what was wrong; an error
//! never changes the game state.

use crate::dice::DiceSpec;
use crate::model::phase::Phase;
use crate::model::sealed::{Content, FactRequest};
use crate::model::unit::UnitId;
use crate::side::Side;

pub use hexveil_core::RuleError;

/// Why an action was refused. The game state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// Another action is still being adjudicated.
    #[error("another action is still waiting for facts or dice")]
    Busy,
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// Not the actor's turn for this action.
    #[error("side {actor} may not act now: it is side {phasing}'s {phase:?} phase")]
    NotYourTurn {
        /// Who tried.
        actor: Side,
        /// Whose Player Turn it is.
        phasing: Side,
        /// The current phase.
        phase: Phase,
    },
    /// The action is not allowed in this phase.
    #[error("{action} is not allowed in the {phase:?} phase ({cite})")]
    WrongPhase {
        /// What was tried.
        action: String,
        /// The current phase.
        phase: Phase,
        /// The rule that fixes when it may happen.
        cite: String,
    },
    /// A unit id that is not in the game.
    #[error("unit {0} is not in this game")]
    UnknownUnit(UnitId),
    /// A unit of the other side.
    #[error("unit {unit} belongs to side {owner}, not to side {actor}")]
    NotYourUnit {
        /// The unit.
        unit: UnitId,
        /// Its owner.
        owner: Side,
        /// Who tried to use it.
        actor: Side,
    },
    /// A rule forbids it.
    #[error("refused: {0}")]
    Refused(#[from] RuleError),
    /// Facts or dice given to the engine were not what it asked for.
    #[error("bad answer: {0}")]
    Provide(ProvideError),
}

/// Why facts or dice given to the engine were rejected. Nothing changes.
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
    #[error("{content:?} cannot be in layer {}", request.layer)]
    ContentDoesNotFit {
        /// The request.
        request: FactRequest,
        /// The content given.
        content: Content,
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
        /// The request.
        spec: DiceSpec,
        /// The value given.
        roll: crate::dice::Roll,
    },
}
