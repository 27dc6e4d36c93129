//! Sealed notes: Daisy Chains and other mid-turn secrets (DESIGN 3.2).
//!
//! A Daisy Chain is placed during the enemy's MPh and noted on paper
//! (B28.531). The owner answers every placement opportunity with a note, real
//! or null; both have the same fixed width, so neither the size nor the count
//! of notes tells them apart (G3). A note cannot be changed once sent (G1).
//!
//! ```text
//! salt = HMAC-SHA256(notes_seed, tuple("hexveil/v1/note-salt", game_id, side, seq))
//! note = SHA-256(tuple("hexveil/v1/note", game_id, side, seq, content, salt))
//! ```

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::encoding::{byte_newtype, tag, Digest, GameId, Party, TupleEncoder};
use crate::layout::{LayoutError, Salt};

/// Width of a note's content in bytes.
pub const NOTE_LEN: usize = 16;

/// The fixed-width content of a note; the caller encodes its meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NoteContent(pub [u8; NOTE_LEN]);

impl NoteContent {
    /// The content of a null note (nothing placed): all zero bytes.
    pub const NULL: NoteContent = NoteContent([0; NOTE_LEN]);

    /// True for a null note.
    pub fn is_null(&self) -> bool {
        *self == Self::NULL
    }

    /// A note holding a ruleset's content: its 8 bytes, then 8 zero bytes
    /// (PROTOCOL.md 12.4).
    pub fn from_content(content: &hexveil_core::Content) -> NoteContent {
        let mut bytes = [0u8; NOTE_LEN];
        bytes[..hexveil_core::CONTENT_LEN].copy_from_slice(&content.0);
        NoteContent(bytes)
    }
}

/// The ruleset content an opened note holds: its first 8 bytes, the rest
/// zero (a note with non-zero padding is refused).
pub fn note_content(opening: &NoteOpening) -> Result<hexveil_core::Content, NoteError> {
    let bytes = &opening.content.0;
    if bytes[hexveil_core::CONTENT_LEN..].iter().any(|b| *b != 0) {
        return Err(NoteError::NonZeroPadding);
    }
    let mut fixed = [0u8; hexveil_core::CONTENT_LEN];
    fixed.copy_from_slice(&bytes[..hexveil_core::CONTENT_LEN]);
    Ok(hexveil_core::Content(fixed))
}

byte_newtype!(secret
    /// The owner's durable secret for all its notes in one game: every note
    /// salt derives from it. Published at game end.
    NotesSeed,
    32
);

/// Derives the salt of note `seq`.
pub fn note_salt(seed: &NotesSeed, game_id: &GameId, side: Party, seq: u64) -> Salt {
    Salt(
        TupleEncoder::new(tag::NOTE_SALT)
            .game_id(game_id)
            .party(side)
            .u64(seq)
            .hmac(&seed.0),
    )
}

/// The note hash.
pub fn note_hash(
    game_id: &GameId,
    side: Party,
    seq: u64,
    content: &NoteContent,
    salt: &Salt,
) -> Digest {
    TupleEncoder::new(tag::NOTE)
        .game_id(game_id)
        .party(side)
        .u64(seq)
        .array(&content.0)
        .array(&salt.0)
        .sha256()
}

/// The public commitment to one note, sent at the placement opportunity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NoteCommitment {
    /// The game.
    pub game_id: GameId,
    /// The owner.
    pub side: Party,
    /// The owner's note counter (one per placement opportunity).
    pub seq: u64,
    /// The note hash.
    pub note: Digest,
}

/// The opening of one note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NoteOpening {
    /// The note counter this opening is for.
    pub seq: u64,
    /// The content.
    pub content: NoteContent,
    /// The salt.
    pub salt: Salt,
}

/// Why a note opening was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum NoteError {
    /// The opening is for another note.
    #[error("opening is for note {got}, expected note {expected}")]
    WrongSequence {
        /// The note's seq.
        expected: u64,
        /// The opening's seq.
        got: u64,
    },
    /// Content and salt do not hash to the committed note (G1).
    #[error("content and salt do not match note {seq}")]
    Mismatch {
        /// The note's seq.
        seq: u64,
    },
    /// The bytes after a ruleset content are not zero.
    #[error("note padding is not zero")]
    NonZeroPadding,
}

/// Checks an opening against its commitment.
pub fn verify_note(commitment: &NoteCommitment, opening: &NoteOpening) -> Result<(), NoteError> {
    if opening.seq != commitment.seq {
        return Err(NoteError::WrongSequence {
            expected: commitment.seq,
            got: opening.seq,
        });
    }
    let h = note_hash(
        &commitment.game_id,
        commitment.side,
        opening.seq,
        &opening.content,
        &opening.salt,
    );
    if h == commitment.note {
        Ok(())
    } else {
        Err(NoteError::Mismatch {
            seq: commitment.seq,
        })
    }
}

/// The owner's note book: makes commitments and their openings from the seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteBook {
    game_id: GameId,
    side: Party,
    seed: NotesSeed,
}

impl NoteBook {
    /// A note book for one side of one game.
    pub fn new(game_id: GameId, side: Party, seed: NotesSeed) -> Result<NoteBook, LayoutError> {
        if !side.is_player() {
            return Err(LayoutError::ServerSide);
        }
        Ok(NoteBook {
            game_id,
            side,
            seed,
        })
    }

    /// The seed (published at game end).
    pub fn seed(&self) -> &NotesSeed {
        &self.seed
    }

    /// Seals note `seq` (real, or [`NoteContent::NULL`]): the commitment to
    /// send and the opening to keep.
    pub fn seal(&self, seq: u64, content: NoteContent) -> (NoteCommitment, NoteOpening) {
        let salt = note_salt(&self.seed, &self.game_id, self.side, seq);
        let note = note_hash(&self.game_id, self.side, seq, &content, &salt);
        (
            NoteCommitment {
                game_id: self.game_id,
                side: self.side,
                seq,
                note,
            },
            NoteOpening { seq, content, salt },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book() -> NoteBook {
        NoteBook::new(GameId([5; 16]), Party::B, NotesSeed([8; 32])).unwrap()
    }

    #[test]
    fn note_opens_and_cannot_be_changed_g1() {
        let dc = NoteContent(*b"DC:4E6:vehicle\0\0");
        let (c, o) = book().seal(3, dc);
        assert_eq!(verify_note(&c, &o), Ok(()));
        let mut forged = o;
        forged.content = NoteContent::NULL;
        assert_eq!(
            verify_note(&c, &forged),
            Err(NoteError::Mismatch { seq: 3 })
        );
        let mut salt = o;
        salt.salt.0[31] ^= 1;
        assert_eq!(verify_note(&c, &salt), Err(NoteError::Mismatch { seq: 3 }));
    }

    #[test]
    fn opening_of_another_note_is_wrong_sequence() {
        let b = book();
        let (c3, _) = b.seal(3, NoteContent::NULL);
        let (_, o4) = b.seal(4, NoteContent::NULL);
        assert_eq!(
            verify_note(&c3, &o4),
            Err(NoteError::WrongSequence {
                expected: 3,
                got: 4
            })
        );
    }

    #[test]
    fn real_and_null_notes_are_the_same_size_g3() {
        let b = book();
        let (cr, or) = b.seal(1, NoteContent([0xAA; NOTE_LEN]));
        let (cn, on) = b.seal(2, NoteContent::NULL);
        assert_eq!(wire_len(&cr), wire_len(&cn));
        assert_eq!(wire_len(&or), wire_len(&on));
        assert!(on.content.is_null() && !or.content.is_null());
    }

    fn wire_len<T: Serialize>(x: &T) -> usize {
        postcard::to_allocvec(x).unwrap().len()
    }

    #[test]
    fn server_has_no_note_book() {
        assert_eq!(
            NoteBook::new(GameId([0; 16]), Party::Server, NotesSeed([0; 32])).unwrap_err(),
            LayoutError::ServerSide
        );
    }
}
