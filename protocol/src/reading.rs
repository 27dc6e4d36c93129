//! What a client reads from the signed log it checked about who the game
//! waits for (issue 27 item 1, G2, G5): not the server's word.
//!
//! The server says who it waits for in its presence messages (hexveil-net's
//! `wire::Presence`), unsigned. A client follows the entries it checked
//! ([`crate::witness::Checked`]) and knows from them alone, whatever the
//! server says: which sides still owe a dice pad or a setup, which action
//! is being resolved (declared, no ruling yet), and whether the game's end
//! is logged and whose secrets are still to be published. Who answers
//! inside an action's resolution (an owner's machine, the server's roll)
//! and whose move is next are decided from hidden state or by the engine
//! the server runs: the log does not pin them, so a client shows them as
//! the server's word.

use crate::message::{entry_name, side_of};
use crate::referee::{machines, sides};
use crate::witness::Checked;
use hexveil_core::Side;
use std::collections::BTreeSet;

/// The log's stage, as far as the checked entries show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Not even the genesis is in.
    Empty,
    /// These sides have not sent their first pad statement.
    Pads {
        /// The sides still missing.
        missing: Vec<Side>,
    },
    /// These sides have not sent their setup.
    Setups {
        /// The sides still missing.
        missing: Vec<Side>,
    },
    /// Play: no action is being resolved (the next move, or a setup roll
    /// before the first one).
    Play,
    /// An action is being resolved: declared, its ruling not logged.
    Resolving {
        /// Who declared it.
        actor: Side,
        /// Its seq.
        seq: u64,
    },
    /// The end is logged; these sides have not published their secrets.
    Reveals {
        /// The sides still missing.
        missing: Vec<Side>,
    },
}

/// A client's own reading of the log it checked: who is awaited.
#[derive(Clone, Debug, Default)]
pub struct LogReading {
    genesis: bool,
    pads: BTreeSet<Side>,
    setups: BTreeSet<Side>,
    resolving: Option<(Side, u64)>,
    ended: bool,
    reveals: BTreeSet<Side>,
}

const BOTH: [Side; 2] = [Side::A, Side::B];

impl LogReading {
    /// A reading of an empty log.
    pub fn new() -> LogReading {
        LogReading::default()
    }

    /// Follows one checked entry (each once, in order). Reads only what a
    /// spectator sees too: what the entry shows and its signer. The
    /// genesis, a setup, a declaration and the end are read from the parts
    /// that show them, which a sealed entry cannot show (the witness's
    /// `sealed_view`); pad statements, rulings and reveals by their names.
    pub fn follow(&mut self, c: &Checked) {
        let u = &c.update;
        let side = side_of(c.author);
        // A declaration is shown with its action (`Update::action`), under
        // words of its own (`side A declares an action`).
        if let Some(declared) = &u.action {
            self.resolving = Some((declared.by, u.seq));
            return;
        }
        if u.genesis.is_some() {
            self.genesis = true;
        }
        if u.end.is_some() {
            self.ended = true;
            self.resolving = None;
        }
        match (side, u.public_setup.is_some(), u.entry.as_str()) {
            (Some(s), true, _) => {
                self.setups.insert(s);
            }
            // A side's first pad statement is its epoch 0 one; later ones
            // renew during play.
            (Some(s), _, entry_name::PAD) => {
                self.pads.insert(s);
            }
            (Some(s), _, entry_name::REVEAL) => {
                self.reveals.insert(s);
            }
            (_, _, entry_name::RULING) => self.resolving = None,
            _ => {}
        }
    }

    /// The stage the log is at.
    pub fn stage(&self) -> Stage {
        let missing = |have: &BTreeSet<Side>| -> Vec<Side> {
            BOTH.into_iter().filter(|s| !have.contains(s)).collect()
        };
        if !self.genesis {
            Stage::Empty
        } else if self.ended {
            Stage::Reveals {
                missing: missing(&self.reveals),
            }
        } else if self.pads.len() < 2 {
            Stage::Pads {
                missing: missing(&self.pads),
            }
        } else if self.setups.len() < 2 {
            Stage::Setups {
                missing: missing(&self.setups),
            }
        } else if let Some((actor, seq)) = self.resolving {
            Stage::Resolving { actor, seq }
        } else {
            Stage::Play
        }
    }

    /// What the log says is awaited, to follow "waiting for": `side B to
    /// send a setup`, `the resolution of side A's action (entry 12)`.
    /// `None` when the log does not say (before the genesis; after every
    /// reveal).
    pub fn in_words(&self) -> Option<String> {
        Some(match self.stage() {
            Stage::Empty => return None,
            Stage::Pads { missing } => format!("{} to send a dice pad", sides(&missing)),
            Stage::Setups { missing } => format!("{} to send a setup", sides(&missing)),
            Stage::Play => "the next move".into(),
            Stage::Resolving { actor, seq } => {
                format!("the resolution of side {actor}'s action (entry {seq})")
            }
            Stage::Reveals { missing } if missing.is_empty() => return None,
            Stage::Reveals { missing } => format!(
                "{} to publish the secrets of the finished game",
                machines(&missing)
            ),
        })
    }

    /// The sides the log pins as awaited, if it pins any: a missing pad,
    /// setup or reveal. `None`: the log does not say who (play, an
    /// action's resolution), and any side, or the server, may be.
    pub fn pinned(&self) -> Option<Vec<Side>> {
        match self.stage() {
            Stage::Pads { missing } | Stage::Setups { missing } => Some(missing),
            Stage::Reveals { missing } => Some(missing),
            Stage::Empty | Stage::Play | Stage::Resolving { .. } => None,
        }
    }

    /// Whether the server's claim that it waits for `side` (`None`: for
    /// itself; `awaited` false: for nobody) contradicts the log.
    pub fn contradicts(&self, awaited: bool, side: Option<Side>) -> bool {
        match (self.stage(), awaited) {
            (Stage::Empty, _) => false,
            // The game is over and every secret is published: nothing is
            // awaited.
            (Stage::Reveals { missing }, true) if missing.is_empty() => true,
            // A finished game waits for nobody in the server's sense (no
            // deadline runs against a missing reveal).
            (Stage::Reveals { .. }, false) => false,
            // The log is open: someone is awaited.
            (_, false) => true,
            (_, true) => match (self.pinned(), side) {
                (Some(pinned), Some(s)) => !pinned.contains(&s),
                // Pads, setups and reveals are the players' to send.
                (Some(_), None) => true,
                (None, _) => false,
            },
        }
    }
}
