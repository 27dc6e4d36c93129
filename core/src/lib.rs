//! hexveil-core: the rules engine. Pure and deterministic: no IO, no clock,
//! no randomness of its own, no crypto. Dice come in as values.
//!
//! The [`engine::Engine`] is driven like quinn-proto or rustls: feed it an
//! action, and it answers with what it needs next (sealed facts, dice) or
//! with what happened. See `docs/ARCHITECTURE.md`.

pub mod action;
pub mod adjudicate;
pub mod ammunition;
pub mod at_mine;
pub mod booby_trap;
pub mod clearance;
pub mod daisy_chain;
pub mod dice;
pub mod elr;
pub mod engine;
pub mod error;
pub mod event;
pub mod ffe;
pub mod fire;
pub mod flail;
pub mod grain;
pub mod hex;
pub mod ift;
pub mod inexperience;
pub mod known;
pub mod los;
pub mod map;
pub mod minefield;
pub mod morale;
pub mod movement;
pub mod oracle;
pub mod prc;
pub mod random_selection;
pub mod resolve;
pub mod scenario;
pub mod sealed;
pub mod search;
pub mod setup;
pub mod side;
pub mod state;
pub mod tables;
pub mod terrain;
pub mod trail_break;
pub mod turn;
pub mod unit;

pub use action::{Action, MoveMode};
pub use dice::{DiceKind, DiceSpec, Roll};
pub use engine::{Engine, Step};
pub use error::{ActionError, ProvideError, RuleError};
pub use event::{Event, EventKind, Visibility};
pub use hex::Hex;
pub use sealed::{Content, Fact, FactRequest, Layer, Location};
pub use side::Side;
