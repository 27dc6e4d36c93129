//! A player's own count of the game's roll numbers, from the public updates
//! alone (PROTOCOL.md 7.1, G2): its client releases pad entries only for the
//! roll the referee is at, so a server cannot learn a player's entries for
//! rolls to come by asking for them out of turn (an answer the referee
//! refuses is not logged, but the server has read it). In a game of message
//! version 4 an actor who knew the other two parts of a roll before
//! choosing its nonce could choose the dice; in version 3 it could still
//! choose among equivalent actions.
//!
//! The referee's roll number moves in two ways, both public:
//!
//! - every roll, Secret dr or public, has the server's `roll` entry: one
//!   more (a Secret dr's roll entry shows no dice, and its roller's own pad
//!   entry for it comes after, PROTOCOL.md 13.1);
//! - a ruling burns what is left of the window the opponent released in
//!   that action: at least the window's end.
//!
//! A window starts at the roll number of the moment it is released and holds
//! `min(max(1, rolls_ahead(action)), 16, pad_len - k mod pad_len)` entries,
//! all public; and it is asked only in an epoch every party committed before
//! the action was declared (pad statements are public entries too).

use crate::message::{Prompt, Update};
use crate::referee::window_count;
use hexveil_core::Scenario;
// The names of the entries the count follows, as an [`Update`] says them.
use crate::message::entry_name as entry;

/// The roll numbers as the updates tell them.
#[derive(Clone, Debug, Default)]
pub(crate) struct RollCount {
    /// The next roll number.
    next: u64,
    /// The end of the window released in the current action.
    window_end: Option<u64>,
    /// The current action, in the ruleset's encoding.
    action: Vec<u8>,
    /// Pad statements logged so far (A's and B's of epoch 0, then three at
    /// each renewal; the server's epoch 0 is in the genesis).
    pad_statements: u64,
    /// The epochs every party had committed when the current action was
    /// declared.
    epochs_at_declare: u64,
    /// A Secret dr whose server entry is in and whose roller's is not.
    secret: Option<u64>,
    /// The last update counted (updates may come again on a resume).
    seen: Option<u64>,
}

impl RollCount {
    /// Counts `update`, once.
    pub(crate) fn observe(&mut self, update: &Update, scenario: &dyn Scenario, pad_len: u32) {
        if self.seen.is_some_and(|s| update.seq <= s) {
            return;
        }
        self.seen = Some(update.seq);
        if let Some(declared) = &update.action {
            self.action = declared.action.clone();
            self.window_end = None;
            self.epochs_at_declare = self.committed_epochs();
        }
        match update.entry.as_str() {
            entry::ROLL => {
                if update.dice.is_empty() {
                    self.secret = Some(self.next);
                }
                self.next += 1;
            }
            entry::PAD_ENTRY | entry::SECRET_PAD_ENTRY => self.secret = None,
            entry::RULING => {
                if let Some(end) = self.window_end.take() {
                    self.next = self.next.max(end);
                }
            }
            entry::PAD => self.pad_statements += 1,
            entry::WINDOW | entry::OPEN_WINDOW => {
                let count = self.window_count(self.next, scenario, pad_len);
                self.window_end = Some(self.next + u64::from(count));
            }
            _ => {}
        }
    }

    /// Pad epochs every party has committed: A's and B's statements of
    /// epoch 0 (the server's is in the genesis), then three a renewal.
    fn committed_epochs(&self) -> u64 {
        match self.pad_statements {
            0 | 1 => 0,
            n => 1 + (n - 2) / 3,
        }
    }

    /// The length of a window from roll `k` for the current action.
    fn window_count(&self, k: u64, scenario: &dyn Scenario, pad_len: u32) -> u32 {
        window_count(scenario.rolls_ahead(&self.action), k, pad_len)
    }

    /// Whether roll `k` may take a window in the current action: its pad
    /// epoch was committed by every party before the action was declared
    /// (PROTOCOL.md 7.1 item 5). Such a roll needs no single pad entry from
    /// this party, unless it is a Secret dr.
    pub(crate) fn windowed(&self, k: u64, pad_len: u32) -> bool {
        k / u64::from(pad_len.max(1)) < self.epochs_at_declare
    }

    /// Why this player must not release what `prompt` asks, if it asks pad
    /// entries of other rolls than the ones the referee is at.
    pub(crate) fn refuse(
        &self,
        prompt: &Prompt,
        scenario: &dyn Scenario,
        pad_len: u32,
    ) -> Option<String> {
        let (k, count) = match prompt {
            Prompt::Entry { k } => {
                return (*k != self.next && Some(*k) != self.secret).then(|| {
                    format!(
                        "asked for the pad entry of roll {k}, but the log is at roll {}",
                        self.next
                    )
                })
            }
            Prompt::Window { k, count } | Prompt::OpenAhead { k, count, .. } => (*k, *count),
            _ => return None,
        };
        let n = u64::from(pad_len.max(1));
        let expected = self.window_count(k, scenario, pad_len);
        if k != self.next {
            Some(format!(
                "asked for a window of pad entries from roll {k}, but the log is at roll {}",
                self.next
            ))
        } else if self.window_end.is_some_and(|end| end > k) {
            Some(format!(
                "asked for a window from roll {k}, which the window released in this action covers"
            ))
        } else if k / n >= self.epochs_at_declare {
            Some(format!(
                "asked for a window in pad epoch {}, committed after the action was declared",
                k / n
            ))
        } else if count != expected {
            Some(format!(
                "asked for a window of {count} pad entries, where this action's is {expected}"
            ))
        } else {
            None
        }
    }
}
