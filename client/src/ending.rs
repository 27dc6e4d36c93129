//! The end of a game as a client states it (G5): the verdict of the
//! transcript the server sent, said to be this game's verdict only when
//! the transcript is the log this client was shown.
//!
//! The verifier judges a transcript by itself: a dishonest server can
//! publish a clean log other than the one it showed live (another seat's
//! timeout where the client saw the opponent concede, say), and that
//! log's verdict is clean. What ties a transcript to this game is the
//! client's own check of what it was shown against it
//! ([`hexveil_protocol::evidence::audit`]), so the verdict a seat prints,
//! puts on its page and a spectator prints is [`Ending::verdict_words`],
//! which says when the two disagree.

use hexveil_protocol::evidence::{self, Audit, ProofError};
use hexveil_protocol::verifier::Verdict;
use hexveil_protocol::witness::Witness;

/// A finished game's transcript, judged and checked against what this
/// client was shown.
#[derive(Debug)]
pub struct Ending {
    /// The verifier's verdict of the transcript, trusting only the server
    /// key this client's log names (its genesis), once it holds one.
    pub verdict: Verdict,
    /// The verdict's exit code (`hexveil verify`'s).
    pub code: u8,
    /// Every entry and view this client was shown, checked against the
    /// transcript; or why they could not be.
    pub audit: Result<Audit, ProofError>,
}

impl Ending {
    /// Judges `transcript` and checks what `witness` holds against it.
    pub fn check(transcript: &[u8], witness: &Witness) -> Ending {
        let server = witness.server_key();
        let (verdict, code) = hexveil_view::transcript::judge_trusting(transcript, server.as_ref());
        let audit = evidence::audit(transcript, &hexveil_rulesets::all(), witness);
        Ending {
            verdict,
            code,
            audit,
        }
    }

    /// Whether the transcript holds every entry this client was shown, at
    /// its place, and gives every view the server signed for it.
    pub fn is_the_log_shown(&self) -> bool {
        self.audit.as_ref().is_ok_and(|a| a.found.is_empty())
    }

    /// The verdict as this client may state it: the transcript's verdict
    /// when the transcript is the log it was shown; else that it is not,
    /// and the verdict named as that other log's (the audit's line says
    /// where they part, with its proof).
    pub fn verdict_words(&self) -> String {
        if self.is_the_log_shown() {
            return self.verdict.to_string();
        }
        match &self.audit {
            Ok(_) => format!(
                "NOT THIS GAME'S VERDICT: the transcript the server sent is not the log this client was shown (G5; its audit says where they part); its verdict is that other log's: {}",
                self.verdict
            ),
            Err(e) => format!(
                "NOT CHECKED against what this client was shown ({e}); the transcript's own verdict: {}",
                self.verdict
            ),
        }
    }
}
