//! The phases of a Player Turn (A3). The sequence itself, and which action
//! each phase allows, is in [`crate::turn`]; the phase is here because the
//! state and errors every chapter shares name it.

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

impl Phase {
    /// Every phase in order: Setup, then the eight of a Player Turn (A3).
    pub const ALL: [Phase; 9] = [
        Phase::Setup,
        Phase::Rally,
        Phase::PrepFire,
        Phase::Movement,
        Phase::DefensiveFire,
        Phase::AdvancingFire,
        Phase::Rout,
        Phase::Advance,
        Phase::CloseCombat,
    ];

    /// The eight phases of a Player Turn, in order (A3).
    pub fn of_a_player_turn() -> &'static [Phase] {
        &Phase::ALL[1..]
    }

    /// The phase after this one within a Player Turn; `None` after the CCPh
    /// (the next Player Turn begins with its RPh).
    pub fn next(self) -> Option<Phase> {
        Some(match self {
            Phase::Setup => Phase::Rally,
            Phase::Rally => Phase::PrepFire,
            Phase::PrepFire => Phase::Movement,
            Phase::Movement => Phase::DefensiveFire,
            Phase::DefensiveFire => Phase::AdvancingFire,
            Phase::AdvancingFire => Phase::Rout,
            Phase::Rout => Phase::Advance,
            Phase::Advance => Phase::CloseCombat,
            Phase::CloseCombat => return None,
        })
    }

    /// The usual abbreviation (`MPh`).
    pub fn abbrev(self) -> &'static str {
        match self {
            Phase::Setup => "Setup",
            Phase::Rally => "RPh",
            Phase::PrepFire => "PFPh",
            Phase::Movement => "MPh",
            Phase::DefensiveFire => "DFPh",
            Phase::AdvancingFire => "AFPh",
            Phase::Rout => "RtPh",
            Phase::Advance => "APh",
            Phase::CloseCombat => "CCPh",
        }
    }

    /// The rule of the sequence of play that describes the phase.
    pub fn cite(self) -> &'static str {
        match self {
            Phase::Setup => "A2.9",
            Phase::Rally => "A3.2",
            Phase::PrepFire => "A3.3",
            Phase::Movement => "A3.4",
            Phase::DefensiveFire => "A3.5",
            Phase::AdvancingFire => "A3.6",
            Phase::Rout => "A3.7",
            Phase::Advance => "A3.8",
            Phase::CloseCombat => "A3.9",
        }
    }
}
