//! What happened: events with who may see them and the rules they apply.

use crate::dice::Roll;
use crate::model::sealed::{Content, FactRequest};

use serde::{Deserialize, Serialize};

pub use hexveil_core::Visibility;

/// One ruling or happening, with its audience and rule citations: the
/// kernel's event envelope around ASL's own kinds.
pub type Event = hexveil_core::event::Event<EventKind>;

/// What happened. Each rules area has its own event type in its module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventKind {
    /// A roll the engine was given, and what it was used for.
    Dice {
        /// What the roll was for.
        purpose: String,
        /// The value.
        roll: Roll,
    },
    /// A sealed fact the referee opened (published at game end).
    FactOpened {
        /// Which fact.
        request: FactRequest,
        /// Its content.
        content: Content,
    },
    /// The owner must commit a new content for a sealed fact (DESIGN 3.1
    /// transitions: B28.62 FFE, clearance). Issued for every affected
    /// location, changed or not, so the traffic does not tell.
    Transition {
        /// Which fact.
        request: FactRequest,
        /// The content it must hold from now on.
        new_content: Content,
    },
    /// The action was refused after sealed facts or dice had been used for
    /// it (e.g. a rules-data cell missing, R12): it has no effect on the
    /// game, and its rolls are spent, so declaring it again cannot re-roll
    /// them (G2).
    Void {
        /// Why, in words, with the rule.
        reason: String,
    },
    /// Unit movement.
    Move(crate::b28::movement::MoveEvent),
    /// Minefield attacks, reveals, clearance and FFE (B28).
    Minefield(crate::b28::minefield::MinefieldEvent),
    /// Infantry fire on the IFT (A7, A19.131, A19.33).
    Fire(crate::a::fire::FireEvent),
    /// Morale, ELR, Replacement, Disruption, Casualty Reduction (A10, A19).
    Morale(crate::a::morale::MoraleEvent),
    /// Booby traps (B28.9).
    BoobyTrap(crate::b28::booby_trap::BoobyTrapEvent),
    /// Daisy Chains (B28.531).
    DaisyChain(crate::b28::daisy_chain::DaisyEvent),
    /// Turn and phase changes, surrender, the end of the game.
    Turn(crate::turn::TurnEvent),
    /// Ordnance: Covered Arcs, To Hit, hits and their effects (C3).
    Ordnance(crate::c3::ordnance::OrdnanceEvent),
}
