//! hexveil-core: the kernel every ruleset and the protocol share. Pure and
//! deterministic: no IO, no clock, no randomness, no crypto.
//!
//! It holds what is game-independent: [`Side`]s, dice as requests and
//! values ([`DiceSpec`], [`Roll`]), sealed facts as the protocol sees them
//! ([`Layer`], [`Location`], fixed-width [`Content`], [`FactRequest`]),
//! [`Event`]s with their [`Visibility`], resolution by replay
//! ([`resolve`]), the sans-IO [`Engine`] interface and the [`Ruleset`]
//! plug-in traits. A ruleset crate (`hexveil-asl`, `hexveil-minis`)
//! implements them; `hexveil-protocol` drives them and knows no ruleset.
//! See `docs/ARCHITECTURE.md`.

pub mod canonical;
pub mod dice;
pub mod engine;
pub mod error;
pub mod event;
pub mod fact;
pub mod observer;
pub mod pmap;
pub mod resolve;
pub mod ruleset;
pub mod shared;
pub mod side;
pub mod tables;
pub mod victory;

pub use dice::{DiceKind, DiceSpec, Roll};
pub use engine::{Engine, Outcome, Step};
pub use error::{ActionError, ProvideError, RuleError};
pub use event::{Event, EventKind, Visibility};
pub use fact::{
    Content, ContentError, Fact, FactRequest, Key, KeyError, Layer, Location, CONTENT_LEN,
};
pub use observer::{Asks, Observer};
pub use pmap::PersistentMap;
pub use resolve::{Answers, Asked, Interrupt, Mismatch, Pending};
pub use ruleset::{
    NoOrders, Orders, PublicSetup, Registry, Ruleset, Scenario, SealedContents, UnknownRuleset,
};
pub use shared::Shared;
pub use side::Side;
pub use tables::{SuppliedTable, SuppliedTables, TableError};
