//! The turn sequence as far as these rules need it.

use crate::side::Side;
use serde::{Deserialize, Serialize};

/// A phase of a Player Turn, or setup before play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Setup, before the first Player Turn.
    Setup,
    /// Rally Phase.
    Rally,
    /// Prep Fire Phase.
    PrepFire,
    /// Movement Phase.
    Movement,
    /// Defensive Fire Phase.
    DefensiveFire,
    /// Advancing Fire Phase.
    AdvancingFire,
    /// Rout Phase.
    Rout,
    /// Advance Phase.
    Advance,
    /// Close Combat Phase.
    CloseCombat,
}

/// Turn-sequence events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnEvent {
    /// A new phase began.
    PhaseBegins {
        /// Game turn.
        turn: u16,
        /// Whose Player Turn.
        phasing: Side,
        /// The phase.
        phase: Phase,
    },
}
