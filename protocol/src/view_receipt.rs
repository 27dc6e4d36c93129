//! The server's signed word on what each audience was shown of one log
//! entry: a view receipt (issue 24, PROTOCOL.md 6 and 14.2).
//!
//! An [`Update`](crate::message::Update) carries its log entry in a form
//! the party can check against the head chain ([`Logged`](crate::message::Logged)).
//! Where the party may not read the whole entry (the opponent's openings,
//! a ruling with events for the referee only), and wherever the update asks
//! the party for something that releases a secret (openings, pad entries,
//! transitions, the reveal), the server adds a view receipt: it signs the
//! entry's place in the log (seq, the head before it, its hash, its author)
//! and a digest of what each of the three audiences (side A, side B, the
//! spectators) was shown of it, prompt included
//! ([`Update::shown_digest`](crate::message::Update::shown_digest)). So a
//! party checks, before it shows or answers anything, that the update is
//! the server's word on this very entry of the chain it holds; and once the
//! transcript is public, anyone can re-derive each view from the log and
//! prove a view the server signed that the log does not give (a false
//! prompt, a hidden event left out, other dice) against the server
//! ([`crate::evidence`]).

use crate::encoding::{tag, Digest, GameId, Party, TupleEncoder};
use crate::envelope::next_head;
use crate::identity::{Identity, PublicKey, Signature};
use hexveil_core::Side;
use serde::{Deserialize, Serialize};

/// Who is shown a view: a side, or the spectators (`None`).
pub type Audience = Option<Side>;

/// The index of an audience in [`ViewReceipt::views`]: side A 0, side B 1,
/// the spectators 2.
pub fn audience_index(audience: Audience) -> usize {
    match audience {
        Some(Side::A) => 0,
        Some(Side::B) => 1,
        None => 2,
    }
}

/// An audience in words (`side A`, `spectators`).
pub fn audience_name(audience: Audience) -> String {
    match audience {
        Some(side) => format!("side {side}"),
        None => "the spectators".into(),
    }
}

/// The server's signature on one log entry's place and on what each
/// audience was shown of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewReceipt {
    /// The game.
    pub game_id: GameId,
    /// The entry's seq.
    pub seq: u64,
    /// The head before the entry.
    pub prev_head: Digest,
    /// SHA-256 of the entry's signed bytes.
    pub entry_hash: Digest,
    /// Who signed the entry.
    pub author: Party,
    /// What side A, side B and the spectators were shown of it, in that
    /// order ([`crate::message::Update::shown_digest`]).
    pub views: [Digest; 3],
    /// The server's transcript-key signature.
    pub sig: Signature,
}

/// Why a view receipt does not bind an update.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewReceiptError {
    /// The signature does not verify under the server's transcript key.
    #[error("the view receipt's signature does not verify under the server key")]
    BadSignature,
    /// It is for another game, seq, entry or author than the update's.
    #[error("the view receipt is for another entry: {0}")]
    OtherEntry(String),
    /// It does not follow the head the party holds.
    #[error(
        "the view receipt says the head before entry {seq} was {said}, the party holds {held}"
    )]
    OtherHead {
        /// The entry's seq.
        seq: u64,
        /// The head it names.
        said: Digest,
        /// The head the party holds.
        held: Digest,
    },
    /// What the party was shown is not what the server signed it was shown.
    #[error("what {audience} was shown of entry {seq} is not what the server signed")]
    OtherView {
        /// The entry's seq.
        seq: u64,
        /// Who was shown it, in words.
        audience: String,
    },
}

impl ViewReceipt {
    /// The bytes the server signs: tuple("hexveil/v1/view", game_id, u64
    /// seq, prev_head, entry_hash, party author, views[0], views[1],
    /// views[2]).
    pub fn signing_bytes(
        game_id: &GameId,
        seq: u64,
        prev_head: &Digest,
        entry_hash: &Digest,
        author: Party,
        views: &[Digest; 3],
    ) -> Vec<u8> {
        TupleEncoder::new(tag::VIEW)
            .game_id(game_id)
            .u64(seq)
            .digest(prev_head)
            .digest(entry_hash)
            .party(author)
            .digest(&views[0])
            .digest(&views[1])
            .digest(&views[2])
            .finish()
    }

    /// Signs the views of one entry with the server's transcript key.
    pub fn issue(
        server: &Identity,
        game_id: GameId,
        seq: u64,
        prev_head: Digest,
        entry_hash: Digest,
        author: Party,
        views: [Digest; 3],
    ) -> ViewReceipt {
        let sig = server.sign(&Self::signing_bytes(
            &game_id,
            seq,
            &prev_head,
            &entry_hash,
            author,
            &views,
        ));
        ViewReceipt {
            game_id,
            seq,
            prev_head,
            entry_hash,
            author,
            views,
            sig,
        }
    }

    /// Checks the server's signature.
    pub fn verify(&self, server: &PublicKey) -> Result<(), ViewReceiptError> {
        let bytes = Self::signing_bytes(
            &self.game_id,
            self.seq,
            &self.prev_head,
            &self.entry_hash,
            self.author,
            &self.views,
        );
        server
            .verify(&bytes, &self.sig)
            .map_err(|_| ViewReceiptError::BadSignature)
    }

    /// The head after the entry.
    pub fn new_head(&self) -> Digest {
        next_head(&self.prev_head, &self.entry_hash)
    }

    /// The digest of what `audience` was shown.
    pub fn view_of(&self, audience: Audience) -> Digest {
        self.views[audience_index(audience)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g5_a_view_receipt_verifies_and_binds_every_field() {
        let server = Identity::from_seed(&[3; 32]).unwrap();
        let game = GameId([7; 16]);
        let views = [Digest([1; 32]), Digest([2; 32]), Digest([3; 32])];
        let r = ViewReceipt::issue(
            &server,
            game,
            5,
            Digest([4; 32]),
            Digest([5; 32]),
            Party::B,
            views,
        );
        assert_eq!(r.verify(&server.public_key()), Ok(()));
        assert_eq!(r.view_of(Some(Side::B)), Digest([2; 32]));
        assert_eq!(r.view_of(None), Digest([3; 32]));
        let changed = [
            ViewReceipt { seq: 6, ..r },
            ViewReceipt {
                prev_head: Digest([0; 32]),
                ..r
            },
            ViewReceipt {
                entry_hash: Digest([0; 32]),
                ..r
            },
            ViewReceipt {
                author: Party::A,
                ..r
            },
            ViewReceipt {
                views: [views[0], views[0], views[2]],
                ..r
            },
        ];
        for c in changed {
            assert_eq!(
                c.verify(&server.public_key()),
                Err(ViewReceiptError::BadSignature)
            );
        }
        let other = Identity::from_seed(&[4; 32]).unwrap();
        assert_eq!(
            r.verify(&other.public_key()),
            Err(ViewReceiptError::BadSignature)
        );
    }
}
