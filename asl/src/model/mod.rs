//! The game model every chapter shares: units, the state, sealed facts,
//! actions, the event record, errors, the scenario and the resolution
//! context ([`resolve::Ctx`]) through which rules ask for facts and dice.
//! Depends on [`crate::board`] and the kernel (`hexveil_core`) only, with
//! the back edges listed in the crate doc.

pub mod action;
pub mod error;
pub mod event;
pub mod phase;
pub mod resolve;
pub mod scenario;
pub mod sealed;
pub mod state;
pub mod unit;
pub mod victory;
