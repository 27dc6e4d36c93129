//! What happened, as the protocol carries it: each event with its audience
//! and rule citations. The protocol reads only the audience and the four
//! kinds every ruleset shares (dice, openings, transitions, void rulings);
//! the rest is the ruleset's own event, encoded by the ruleset
//! ([`EventKind::Rules`]), which clients decode with the ruleset.

use crate::dice::Roll;
use crate::fact::{Content, FactRequest};
use crate::side::Side;
use serde::{Deserialize, Serialize};

/// Who may see an event (DESIGN G3/G4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Visibility {
    /// Both players and spectators.
    Public,
    /// One side only (and the referee).
    Side(Side),
    /// The referee only (published at game end).
    Referee,
}

impl Visibility {
    /// Whether `side` may see an event with this visibility.
    pub fn shown_to(self, side: Side) -> bool {
        match self {
            Visibility::Public => true,
            Visibility::Side(s) => s == side,
            Visibility::Referee => false,
        }
    }
}

/// One ruling or happening, with its audience and rule citations. The
/// protocol carries `Event<EventKind>`; a ruleset may use the same envelope
/// around its own typed kinds inside its engine (ASL does).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event<K = EventKind> {
    /// Who may see it.
    pub to: Visibility,
    /// What happened.
    pub kind: K,
    /// Rules (and rulings) applied, e.g. `B28.412`, `R13`.
    pub cite: Vec<String>,
}

/// What happened.
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
    /// transitions). Issued for every affected location, changed or not,
    /// so the traffic does not tell.
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
    /// An event of the ruleset's own, in the ruleset's encoding.
    Rules(#[serde(with = "serde_bytes")] Vec<u8>),
}
