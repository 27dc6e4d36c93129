//! hexveil-asl: the Advanced Squad Leader ruleset of hexveil. Pure and
//! deterministic: no IO, no clock, no randomness of its own, no crypto.
//! Dice come in as values.
//!
//! The [`engine::Engine`] is driven like quinn-proto or rustls: feed it an
//! action, and it answers with what it needs next (sealed facts, dice) or
//! with what happened. See `docs/ARCHITECTURE.md`.
//!
//! # Layout: the rulebook's chapters, imports pointing down
//!
//! | folder | what | may import |
//! |---|---|---|
//! | [`board`] | hex, map, grain, los, terrain | nothing else of ASL |
//! | [`model`] | unit, state, sealed, action, event, error, phase, scenario, resolve ([`resolve::Ctx`]) | board |
//! | [`a`] | A4/A7/A10/A19: ift, tables, morale, elr, random_selection, ammunition, inexperience, fire, movement_factors | board, model |
//! | [`b28`] | B28 minefields: movement, minefield, at_mine, prc, known, search, trail_break, ffe, flail, clearance, booby_trap, daisy_chain | a, board, model |
//! | [`c3`] | C3 ordnance: covered_arc, to_hit_table, target_type, hit (Improbable, Critical and Multiple Hits, hit location), effects, ordnance | a, b28, board, model |
//! | root (top) | setup, turn, victory, adjudicate, engine, oracle, ruleset, content, standing_orders, public_state (the public fold of a game), asks (what the rules may ask of an owner, issue 24) | anything |
//!
//! `dice` and `side` are the kernel's (`hexveil_core`), usable everywhere.
//! Every module has one path, under its folder (`hexveil_asl::board::hex`,
//! `hexveil_asl::b28::movement`, ...); the most used types are also at the
//! root (below). Files in one folder may import each other (e.g. morale
//! and elr, ift and tables).
//!
//! `tests/layering.rs` fails on an import of a higher folder other than
//! these back edges, which the rules or the record need:
//!
//! - `model/event.rs` -> `a::fire`, `a::morale`, `b28::booby_trap`,
//!   `b28::daisy_chain`, `b28::minefield`, `b28::movement`,
//!   `c3::ordnance`, `turn`: the
//!   game record ([`event::EventKind`]) is one closed, serialized enum of
//!   every chapter's events, and the resolution context (model) that every
//!   chapter emits into owns it. Each chapter's own event enum stays in the
//!   chapter; moving them down would drag their payload types (IFT
//!   results, crossings, vehicle outcomes, ...) into the model.
//! - `model/scenario.rs` -> `a::elr`: a scenario is refused at load when a
//!   unit has no ELR Replacement row (A19.1, R12), checked with the ELR
//!   table's own lookup.
//! - `a/morale.rs` -> `b28::booby_trap`: a Task Check in a booby-trapped
//!   hex can set the trap off (B28.9).
//! - `b28/minefield.rs` -> `setup`: a found Dummy marks its hex only where
//!   setup could have put that layer (B28.47 EXC), with setup's own test
//!   (`setup::has_leaf`) so the two cannot drift.

pub use hexveil_core::{dice, side};

pub mod a;
pub mod b28;
pub mod board;
pub mod c3;
pub mod model;

pub mod adjudicate;
pub mod asks;
pub mod content;
pub mod engine;
pub mod oracle;
pub mod public_state;
pub mod ruleset;
pub mod setup;
pub mod standing_orders;
pub mod supplied;
pub mod turn;
pub mod victory;

// The most used types, at the root.
pub use a::movement_factors::mf_left;
pub use board::hex::Hex;
pub use dice::{DiceKind, DiceSpec, Roll};
pub use engine::{Engine, Step};
pub use model::action::{Action, MoveMode};
pub use model::error::{ActionError, ProvideError, RuleError};
pub use model::event::{Event, EventKind, Visibility};
pub use model::sealed::{Content, Fact, FactRequest, Layer, Location};
pub use side::Side;
