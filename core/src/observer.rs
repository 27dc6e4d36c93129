//! What one party knows of a game in play, and what the rules may ask of
//! it (issue 24: a client that trusts nothing).
//!
//! The server prompts an owner to open its sealed facts, and nothing in a
//! prompt proves that the rules asked for them. So the owner's client
//! keeps its own picture of the game, an [`Observer`] folded from what it
//! was shown and checked against the signed log (the public setups, the
//! declared actions, the events of every ruling it may see: public ones
//! and its own side's, never the other side's sealed facts, G3), and
//! before it opens anything it asks the ruleset which facts the rules can
//! ask of it while the current action is resolved ([`Observer::asks`]).
//! It answers those and nothing else (G4).
//!
//! The bound is an over-approximation: it must hold every request the
//! engine can make in that state, whatever the other side's sealed facts
//! and the dice still to come, or an honest owner would refuse a true
//! request and lose on time. Each ruleset proves that by its random-game
//! tests (every request the engine makes is inside the bound its observer
//! gave). It should be as tight as public facts allow: what it holds
//! beyond the engine's requests is what a dishonest server could still
//! read, and the server's signed prompt then proves that it asked
//! (PROTOCOL.md, "What a client must check").

use crate::engine::Outcome;
use crate::event::Event;
use crate::fact::{Layer, Location};
use crate::ruleset::PublicSetup;
use crate::side::Side;
use std::collections::BTreeSet;
use std::fmt::Debug;

/// What the rules may ask of one owner while one action is resolved:
/// the owner's client opens these and nothing else.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Asks {
    /// Leaves of the owner's sealed layouts, by layer and location. A
    /// location the owner's layout has no leaf for is never asked anyway
    /// (the referee answers it as empty, PROTOCOL.md 13).
    pub leaves: BTreeSet<(Layer, Location)>,
    /// How many note opportunities of the owner (the note layer, ASL's
    /// Daisy Chains) the action may open at most: each is the owner's next
    /// one, in order.
    pub notes: u32,
    /// Whether the action may roll a Secret dr (whoever rolls it).
    pub secret_roll: bool,
}

impl Asks {
    /// Nothing may be asked.
    pub fn none() -> Asks {
        Asks::default()
    }

    /// Whether a leaf of `layer` at `location` may be asked.
    pub fn leaf(&self, layer: Layer, location: &Location) -> bool {
        self.leaves.contains(&(layer, *location))
    }

    /// Adds a leaf.
    pub fn add(&mut self, layer: Layer, location: Location) {
        self.leaves.insert((layer, location));
    }
}

/// One side's picture of a game in play, folded from what that side was
/// shown (G3), in log order; and the bound of what the rules may ask of an
/// owner from that picture ([`Asks`]).
pub trait Observer: Send + Sync + Debug {
    /// Takes a side's public setup, as its logged Setup entry holds it
    /// (both come before play starts).
    fn setup(&mut self, public: &dyn PublicSetup);

    /// Takes an action declared in the log by `actor` (the ruleset's
    /// bytes), before the events of its ruling.
    fn declared(&mut self, actor: Side, action: &[u8]);

    /// Takes one event of a ruling this side was shown (public, or its
    /// own side's), in the ruling's order.
    fn event(&mut self, event: &Event);

    /// What the rules may ask of `owner` while `action` (the ruleset's
    /// bytes), declared by `actor`, is resolved from this state: never
    /// less than the engine asks, whatever the sealed facts this side
    /// does not know and the dice to come. Bytes that are no action of
    /// the ruleset ask nothing (the engine refuses them before any
    /// request).
    fn asks(&self, actor: Side, action: &[u8], owner: Side) -> Asks;

    /// How the game ended, once an event this side was shown ended it (the
    /// ruleset's public game-over event, which the engine emits with the
    /// outcome the referee records); `None` while it goes on. A client
    /// grounds the server's end record in it before it reveals anything
    /// (G3, G5).
    fn outcome(&self) -> Option<Outcome>;

    /// A copy.
    fn clone_box(&self) -> Box<dyn Observer>;
}

impl Clone for Box<dyn Observer> {
    fn clone(&self) -> Box<dyn Observer> {
        self.clone_box()
    }
}
