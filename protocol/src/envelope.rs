//! Signed envelopes, the head hash chain, server receipts and fork proofs
//! (DESIGN 3.5, G5, G6).
//!
//! Every message that changes a game is an [`Envelope`] signed by its author
//! over the tuple
//! `("hexveil/v1/action-sig", version, game_id, author, seq, prev_head, body)`.
//! A [`SignedEnvelope`] keeps exactly those bytes; nothing is re-serialized
//! to verify, and its entry hash is SHA-256 of those bytes.
//!
//! The log is a hash chain: `head_(n+1) = SHA-256(tuple("hexveil/v1/head",
//! head_n, entry_hash))`, starting at [`genesis_head`]. The server
//! countersigns every appended entry with a [`Receipt`]; two receipts (or
//! two envelopes) with the same game and seq but different heads are a
//! [`ForkProof`].

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::encoding::{tag, DecodeError, Digest, GameId, TupleDecoder, TupleEncoder};
use crate::identity::{Identity, PublicKey, Signature};

/// The envelope format version this crate writes and accepts.
pub const ENVELOPE_VERSION: u16 = 1;

/// The head of a game's log before its first entry:
/// SHA-256(tuple("hexveil/v1/genesis", game_id)).
pub fn genesis_head(game_id: &GameId) -> Digest {
    TupleEncoder::new(tag::GENESIS).game_id(game_id).sha256()
}

/// One link of the head chain: SHA-256(tuple("hexveil/v1/head", prev, entry)).
pub fn next_head(prev_head: &Digest, entry_hash: &Digest) -> Digest {
    TupleEncoder::new(tag::HEAD)
        .digest(prev_head)
        .digest(entry_hash)
        .sha256()
}

/// The fields of an envelope (everything before the signature).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// Envelope format version ([`ENVELOPE_VERSION`]).
    pub version: u16,
    /// The game.
    pub game_id: GameId,
    /// The author's public key.
    pub author: PublicKey,
    /// The log position this entry takes (0 for the first entry).
    pub seq: u64,
    /// The head the author saw before this entry.
    pub prev_head: Digest,
    /// The message body (a wire message, encoded by the message layer).
    #[serde(with = "serde_bytes")]
    pub body: Vec<u8>,
}

impl Envelope {
    /// The exact bytes that are signed.
    pub fn signing_bytes(&self) -> Vec<u8> {
        TupleEncoder::new(tag::ACTION_SIG)
            .u16(self.version)
            .game_id(&self.game_id)
            .array(&self.author.0)
            .u64(self.seq)
            .digest(&self.prev_head)
            .var_bytes(&self.body)
            .finish()
    }

    /// Parses signed bytes back into fields.
    pub fn decode(bytes: &[u8]) -> Result<Envelope, DecodeError> {
        let mut d = TupleDecoder::new(bytes, tag::ACTION_SIG)?;
        let env = Envelope {
            version: d.u16()?,
            game_id: d.game_id()?,
            author: PublicKey(d.array()?),
            seq: d.u64()?,
            prev_head: d.digest()?,
            body: d.var_bytes()?.to_vec(),
        };
        d.finish()?;
        Ok(env)
    }

    /// Signs the envelope. The caller's key should be `self.author`;
    /// otherwise the result fails [`SignedEnvelope::verify_signature`].
    pub fn sign(&self, author: &Identity) -> SignedEnvelope {
        let bytes = self.signing_bytes();
        let sig = author.sign(&bytes);
        SignedEnvelope {
            bytes,
            sig,
            env: self.clone(),
        }
    }

    /// Signs the envelope as [`Envelope::sign`] does, keeping the fact that
    /// this process made the signature just now ([`SignedHere`]).
    pub(crate) fn sign_here(&self, author: &Identity) -> SignedHere {
        SignedHere(self.sign(author))
    }
}

/// An envelope this process signed itself and has held in memory since:
/// its signature is known good without checking it again (issue 16: the
/// live session's own entries, [`LogState::append_signed_here`]). Only
/// [`Envelope::sign_here`] makes one and it is neither deserializable nor
/// public, so nothing read from a player, the store or a transcript can be
/// one: those always pass [`SignedEnvelope::verify_signature`].
#[derive(Debug, Clone)]
pub(crate) struct SignedHere(SignedEnvelope);

impl SignedHere {
    /// The signed envelope.
    pub(crate) fn signed(&self) -> &SignedEnvelope {
        &self.0
    }

    /// The signed envelope, to log and send.
    pub(crate) fn into_signed(self) -> SignedEnvelope {
        self.0
    }
}

/// What goes on the wire and into the log: the exact signed bytes and the
/// signature. Deserializing parses the bytes (and fails on malformed ones).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawSignedEnvelope")]
pub struct SignedEnvelope {
    bytes: Vec<u8>,
    sig: Signature,
    env: Envelope,
}

/// The serialized form of a [`SignedEnvelope`]: its signed bytes (a byte
/// string) and the signature.
#[derive(Serialize, Deserialize)]
struct RawSignedEnvelope {
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    sig: Signature,
}

/// [`RawSignedEnvelope`] borrowed, so serializing copies nothing.
#[derive(Serialize)]
#[serde(rename = "RawSignedEnvelope")]
struct RawSignedEnvelopeRef<'a> {
    #[serde(with = "serde_bytes")]
    bytes: &'a [u8],
    sig: &'a Signature,
}

impl Serialize for SignedEnvelope {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawSignedEnvelopeRef {
            bytes: &self.bytes,
            sig: &self.sig,
        }
        .serialize(s)
    }
}

impl TryFrom<RawSignedEnvelope> for SignedEnvelope {
    type Error = DecodeError;
    fn try_from(r: RawSignedEnvelope) -> Result<Self, DecodeError> {
        SignedEnvelope::from_parts(r.bytes, r.sig)
    }
}

impl SignedEnvelope {
    /// Rebuilds an envelope from stored bytes and signature (e.g. from the
    /// transcript). The signature is not checked here.
    pub fn from_parts(bytes: Vec<u8>, sig: Signature) -> Result<SignedEnvelope, DecodeError> {
        let env = Envelope::decode(&bytes)?;
        Ok(SignedEnvelope { bytes, sig, env })
    }

    /// The exact signed bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The signature.
    pub fn signature(&self) -> &Signature {
        &self.sig
    }

    /// The parsed fields.
    pub fn envelope(&self) -> &Envelope {
        &self.env
    }

    /// SHA-256 over the exact signed bytes.
    pub fn entry_hash(&self) -> Digest {
        Digest::sha256(&self.bytes)
    }

    /// Checks the author's signature over the exact bytes.
    pub fn verify_signature(&self) -> Result<(), EnvelopeError> {
        self.env
            .author
            .verify(&self.bytes, &self.sig)
            .map_err(|_| EnvelopeError::BadSignature {
                author: self.env.author,
            })
    }
}

/// Why an envelope was refused (G5, G6). Refusal changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EnvelopeError {
    /// The bytes do not parse as an envelope.
    #[error("malformed envelope: {0}")]
    Malformed(#[from] DecodeError),
    /// The envelope's version is not [`ENVELOPE_VERSION`].
    #[error("unsupported envelope version {got}")]
    UnsupportedVersion {
        /// The version in the envelope.
        got: u16,
    },
    /// The envelope belongs to another game.
    #[error("envelope is for game {got}, this is game {expected}")]
    WrongGame {
        /// This game.
        expected: GameId,
        /// The envelope's game.
        got: GameId,
    },
    /// The author is not a participant of this game.
    #[error("author {0} is not a participant of this game")]
    UnknownAuthor(PublicKey),
    /// The signature does not verify.
    #[error("signature does not verify under the author's key {author}")]
    BadSignature {
        /// The claimed author.
        author: PublicKey,
    },
    /// The seq was already accepted: a replay.
    #[error("seq {seq} was already accepted (replay)")]
    Replay {
        /// The replayed seq.
        seq: u64,
    },
    /// The seq skips ahead of the log.
    #[error("expected seq {expected}, got {got}")]
    WrongSequence {
        /// The next free seq.
        expected: u64,
        /// The envelope's seq.
        got: u64,
    },
    /// The author saw another head than the current one.
    #[error("envelope was made on head {got}, the log head is {expected}")]
    StaleHead {
        /// The current head.
        expected: Digest,
        /// The head in the envelope.
        got: Digest,
    },
}

/// The result of appending an entry: what the server countersigns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appended {
    /// The entry's seq.
    pub seq: u64,
    /// SHA-256 of the entry's signed bytes.
    pub entry_hash: Digest,
    /// The head after the entry.
    pub new_head: Digest,
}

/// The acceptance state of one game's log: checks envelopes in order and
/// advances the head chain. Used by the server and by the offline verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogState {
    game_id: GameId,
    authors: Vec<PublicKey>,
    next_seq: u64,
    head: Digest,
}

impl LogState {
    /// A log for `game_id` whose entries may be signed by `authors`
    /// (the players and the server), starting at [`genesis_head`].
    pub fn new(game_id: GameId, authors: Vec<PublicKey>) -> LogState {
        Self::resume(game_id, authors, 0, genesis_head(&game_id))
    }

    /// A log that already holds `next_seq` entries ending at `head`.
    pub fn resume(
        game_id: GameId,
        authors: Vec<PublicKey>,
        next_seq: u64,
        head: Digest,
    ) -> LogState {
        LogState {
            game_id,
            authors,
            next_seq,
            head,
        }
    }

    /// The current head.
    pub fn head(&self) -> Digest {
        self.head
    }

    /// The seq the next entry takes.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The game.
    pub fn game_id(&self) -> GameId {
        self.game_id
    }

    /// Checks an envelope without appending it.
    pub fn check(&self, s: &SignedEnvelope) -> Result<(), EnvelopeError> {
        self.check_with(s, true)
    }

    /// [`LogState::check`], the signature verified only if `verify`.
    fn check_with(&self, s: &SignedEnvelope, verify: bool) -> Result<(), EnvelopeError> {
        let e = s.envelope();
        if e.version != ENVELOPE_VERSION {
            return Err(EnvelopeError::UnsupportedVersion { got: e.version });
        }
        if e.game_id != self.game_id {
            return Err(EnvelopeError::WrongGame {
                expected: self.game_id,
                got: e.game_id,
            });
        }
        if !self.authors.contains(&e.author) {
            return Err(EnvelopeError::UnknownAuthor(e.author));
        }
        if verify {
            s.verify_signature()?;
        }
        if e.seq < self.next_seq {
            return Err(EnvelopeError::Replay { seq: e.seq });
        }
        if e.seq > self.next_seq {
            return Err(EnvelopeError::WrongSequence {
                expected: self.next_seq,
                got: e.seq,
            });
        }
        if e.prev_head != self.head {
            return Err(EnvelopeError::StaleHead {
                expected: self.head,
                got: e.prev_head,
            });
        }
        Ok(())
    }

    /// Checks and appends an envelope; on error nothing changes.
    pub fn append(&mut self, s: &SignedEnvelope) -> Result<Appended, EnvelopeError> {
        self.append_with(s, true)
    }

    /// [`LogState::append`] of an envelope this process just signed: every
    /// check but the signature's, which it made itself (issue 16). Debug
    /// builds verify it anyway.
    pub(crate) fn append_signed_here(&mut self, s: &SignedHere) -> Result<Appended, EnvelopeError> {
        debug_assert_eq!(s.0.verify_signature(), Ok(()));
        self.append_with(&s.0, false)
    }

    /// [`LogState::append`] of an envelope whose signature the offline
    /// verifier has just verified (its parallel pass, issue 16). Debug
    /// builds verify it anyway.
    pub(crate) fn append_verified(
        &mut self,
        s: &SignedEnvelope,
    ) -> Result<Appended, EnvelopeError> {
        debug_assert_eq!(s.verify_signature(), Ok(()));
        self.append_with(s, false)
    }

    fn append_with(&mut self, s: &SignedEnvelope, verify: bool) -> Result<Appended, EnvelopeError> {
        self.check_with(s, verify)?;
        let entry_hash = s.entry_hash();
        let new_head = next_head(&self.head, &entry_hash);
        let out = Appended {
            seq: self.next_seq,
            entry_hash,
            new_head,
        };
        self.next_seq += 1;
        self.head = new_head;
        Ok(out)
    }
}

/// The server's countersignature of an appended entry: "durable" (DESIGN 3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// The game.
    pub game_id: GameId,
    /// The entry's seq.
    pub seq: u64,
    /// SHA-256 of the entry's signed bytes.
    pub entry_hash: Digest,
    /// The head after the entry.
    pub new_head: Digest,
    /// The server's transcript-key signature.
    pub sig: Signature,
}

/// The server's signed refusal of a player's entry (PROTOCOL.md 6, 14.2):
/// "this entry, which you signed for this seq, was refused, for this
/// reason; nothing changed". The player keeps it: with the entry it proves
/// what the server answered live, e.g. that the server refused an entry
/// the referee accepts, or that an entry it later receipted anyway was
/// refused (G5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The game.
    pub game_id: GameId,
    /// The seq the refused entry was signed for.
    pub seq: u64,
    /// SHA-256 of the refused entry's signed bytes (its entry hash).
    pub entry_hash: Digest,
    /// Why, in words.
    pub reason: String,
    /// The server's transcript-key signature.
    pub sig: Signature,
}

impl Refusal {
    /// The bytes the server signs:
    /// tuple("hexveil/v1/refusal", game_id, u64 seq, entry_hash, str reason).
    pub fn signing_bytes(game_id: &GameId, seq: u64, entry_hash: &Digest, reason: &str) -> Vec<u8> {
        TupleEncoder::new(tag::REFUSAL)
            .game_id(game_id)
            .u64(seq)
            .digest(entry_hash)
            .str(reason)
            .finish()
    }

    /// The server's refusal of `entry`.
    pub fn issue(server: &Identity, entry: &SignedEnvelope, reason: String) -> Refusal {
        let e = entry.envelope();
        let entry_hash = entry.entry_hash();
        let sig = server.sign(&Self::signing_bytes(
            &e.game_id,
            e.seq,
            &entry_hash,
            &reason,
        ));
        Refusal {
            game_id: e.game_id,
            seq: e.seq,
            entry_hash,
            reason,
            sig,
        }
    }

    /// Checks the server's signature, and that the refusal is for `entry`
    /// if one is given.
    pub fn verify(
        &self,
        server: &PublicKey,
        entry: Option<&SignedEnvelope>,
    ) -> Result<(), ReceiptError> {
        let bytes = Self::signing_bytes(&self.game_id, self.seq, &self.entry_hash, &self.reason);
        server
            .verify(&bytes, &self.sig)
            .map_err(|_| ReceiptError::BadSignature)?;
        if let Some(entry) = entry {
            let e = entry.envelope();
            if self.game_id != e.game_id
                || self.seq != e.seq
                || self.entry_hash != entry.entry_hash()
            {
                return Err(ReceiptError::WrongEntry);
            }
        }
        Ok(())
    }
}

/// Why a receipt was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ReceiptError {
    /// The signature does not verify under the server's transcript key.
    #[error("receipt signature does not verify under the server key")]
    BadSignature,
    /// The receipt is for another game, seq or entry than the one checked.
    #[error("receipt does not cover this entry (game, seq or entry hash differ)")]
    WrongEntry,
    /// `new_head` is not the link from the given previous head.
    #[error("receipt head {got} does not follow from the previous head (expected {expected})")]
    BrokenChain {
        /// `next_head(prev, entry_hash)`.
        expected: Digest,
        /// The receipt's head.
        got: Digest,
    },
}

impl Receipt {
    /// The bytes the server signs:
    /// tuple("hexveil/v1/server-sig", game_id, seq, entry_hash, new_head).
    pub fn signing_bytes(
        game_id: &GameId,
        seq: u64,
        entry_hash: &Digest,
        new_head: &Digest,
    ) -> Vec<u8> {
        TupleEncoder::new(tag::SERVER_SIG)
            .game_id(game_id)
            .u64(seq)
            .digest(entry_hash)
            .digest(new_head)
            .finish()
    }

    /// Issues a receipt with the server's transcript key.
    pub fn issue(server: &Identity, game_id: GameId, appended: &Appended) -> Receipt {
        let bytes = Self::signing_bytes(
            &game_id,
            appended.seq,
            &appended.entry_hash,
            &appended.new_head,
        );
        Receipt {
            game_id,
            seq: appended.seq,
            entry_hash: appended.entry_hash,
            new_head: appended.new_head,
            sig: server.sign(&bytes),
        }
    }

    /// Checks the server's signature.
    pub fn verify(&self, server: &PublicKey) -> Result<(), ReceiptError> {
        let bytes = Self::signing_bytes(&self.game_id, self.seq, &self.entry_hash, &self.new_head);
        server
            .verify(&bytes, &self.sig)
            .map_err(|_| ReceiptError::BadSignature)
    }

    /// Checks that this receipt is the server's signature for `entry`
    /// appended after `prev_head`.
    pub fn verify_for(
        &self,
        server: &PublicKey,
        entry: &SignedEnvelope,
        prev_head: &Digest,
    ) -> Result<(), ReceiptError> {
        self.verify(server)?;
        let e = entry.envelope();
        if self.game_id != e.game_id || self.seq != e.seq || self.entry_hash != entry.entry_hash() {
            return Err(ReceiptError::WrongEntry);
        }
        let expected = next_head(prev_head, &self.entry_hash);
        if self.new_head != expected {
            return Err(ReceiptError::BrokenChain {
                expected,
                got: self.new_head,
            });
        }
        Ok(())
    }
}

/// Evidence that two histories were shown for one game position (DESIGN 3.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ForkProof {
    /// Two receipts signed by the server's transcript key with the same game
    /// and seq but different heads: the server forked its log.
    Receipts {
        /// The server's transcript key.
        server: PublicKey,
        /// One receipt.
        first: Receipt,
        /// The other.
        second: Receipt,
    },
    /// Two author-signed envelopes with the same game and seq built on
    /// different heads: the two authors were working on different histories.
    /// On its own this proves divergence, not who caused it (an author can
    /// sign any head); it blames the server when each echoed head is the
    /// `new_head` of a receipt the server signed, which the verifier checks
    /// against the receipts it holds.
    Envelopes {
        /// One envelope.
        first: SignedEnvelope,
        /// The other.
        second: SignedEnvelope,
    },
    /// Two statements of the server's transcript key, of any form
    /// ([`crate::attestation::Attestation`]: a receipt, a view receipt,
    /// an entry the server signed itself), that give two heads for one
    /// position of one game's chain: e.g. a player's receipt for its
    /// entry at seq 15 and the server's own `Timeout` at seq 15 (issue
    /// 24). The server signed both: it showed two histories.
    Attested {
        /// The server's transcript key.
        server: PublicKey,
        /// One statement.
        first: Box<crate::attestation::Attestation>,
        /// The other.
        second: Box<crate::attestation::Attestation>,
    },
}

/// Why a fork proof does not prove a fork.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ForkProofError {
    /// One of the two signatures does not verify (0 = first, 1 = second).
    #[error("signature {0} of the fork proof does not verify")]
    BadSignature(u8),
    /// The two items are for different games.
    #[error("the two items are for different games")]
    DifferentGames,
    /// The two items are for different seqs (an attested proof: for no
    /// position both speak of).
    #[error("the two items are for different seqs")]
    DifferentSeqs,
    /// The two items carry the same head: no fork.
    #[error("the two items carry the same head: no fork")]
    SameHead,
}

impl ForkProof {
    /// Checks the proof.
    pub fn verify(&self) -> Result<(), ForkProofError> {
        let (g1, g2, s1, s2, h1, h2) = match self {
            ForkProof::Attested {
                server,
                first,
                second,
            } => {
                let (g1, s1) = first.position();
                let (g2, s2) = second.position();
                if g1 != g2 {
                    return Err(ForkProofError::DifferentGames);
                }
                return match crate::attestation::conflict(server, first, second) {
                    Err((i, _)) => Err(ForkProofError::BadSignature(i)),
                    Ok(Some(_)) => Ok(()),
                    Ok(None) if s1.abs_diff(s2) > 1 => Err(ForkProofError::DifferentSeqs),
                    Ok(None) => Err(ForkProofError::SameHead),
                };
            }
            ForkProof::Receipts {
                server,
                first,
                second,
            } => {
                first
                    .verify(server)
                    .map_err(|_| ForkProofError::BadSignature(0))?;
                second
                    .verify(server)
                    .map_err(|_| ForkProofError::BadSignature(1))?;
                (
                    first.game_id,
                    second.game_id,
                    first.seq,
                    second.seq,
                    first.new_head,
                    second.new_head,
                )
            }
            ForkProof::Envelopes { first, second } => {
                first
                    .verify_signature()
                    .map_err(|_| ForkProofError::BadSignature(0))?;
                second
                    .verify_signature()
                    .map_err(|_| ForkProofError::BadSignature(1))?;
                let (a, b) = (first.envelope(), second.envelope());
                (a.game_id, b.game_id, a.seq, b.seq, a.prev_head, b.prev_head)
            }
        };
        if g1 != g2 {
            return Err(ForkProofError::DifferentGames);
        }
        if s1 != s2 {
            return Err(ForkProofError::DifferentSeqs);
        }
        if h1 == h2 {
            return Err(ForkProofError::SameHead);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: GameId = GameId([0x11; 16]);

    fn ids() -> (Identity, Identity, Identity) {
        (
            Identity::from_seed(&[1; 32]).unwrap(),
            Identity::from_seed(&[2; 32]).unwrap(),
            Identity::from_seed(&[3; 32]).unwrap(),
        )
    }

    fn env(author: &Identity, seq: u64, prev: Digest, body: &[u8]) -> SignedEnvelope {
        Envelope {
            version: ENVELOPE_VERSION,
            game_id: GAME,
            author: author.public_key(),
            seq,
            prev_head: prev,
            body: body.to_vec(),
        }
        .sign(author)
    }

    fn log(a: &Identity, b: &Identity, s: &Identity) -> LogState {
        LogState::new(GAME, vec![a.public_key(), b.public_key(), s.public_key()])
    }

    // G5, G6 (issue 16): an envelope the session signed itself appends
    // exactly as the same envelope verified does; every check but the
    // signature's still runs on it (replay, gap, stale head, wrong game,
    // unknown author).
    #[test]
    fn g5_signed_here_skips_only_the_signature_check() {
        let (a, b, s) = ids();
        let mut verified = log(&a, &b, &s);
        let mut here = verified.clone();
        let unsigned = |author: &Identity, seq: u64, prev: Digest, game_id: GameId| Envelope {
            version: ENVELOPE_VERSION,
            game_id,
            author: author.public_key(),
            seq,
            prev_head: prev,
            body: b"ruling".to_vec(),
        };
        let e0 = unsigned(&s, 0, genesis_head(&GAME), GAME);
        assert_eq!(
            here.append_signed_here(&e0.sign_here(&s)),
            verified.append(&e0.sign(&s))
        );
        assert_eq!(here, verified);
        let head = here.head();
        assert!(matches!(
            here.append_signed_here(&e0.sign_here(&s)),
            Err(EnvelopeError::Replay { seq: 0 })
        ));
        assert!(matches!(
            here.append_signed_here(&unsigned(&s, 2, head, GAME).sign_here(&s)),
            Err(EnvelopeError::WrongSequence { .. })
        ));
        assert!(matches!(
            here.append_signed_here(&unsigned(&s, 1, genesis_head(&GAME), GAME).sign_here(&s)),
            Err(EnvelopeError::StaleHead { .. })
        ));
        assert!(matches!(
            here.append_signed_here(&unsigned(&s, 1, head, GameId([9; 16])).sign_here(&s)),
            Err(EnvelopeError::WrongGame { .. })
        ));
        let stranger = Identity::from_seed(&[9; 32]).unwrap();
        assert!(matches!(
            here.append_signed_here(&unsigned(&stranger, 1, head, GAME).sign_here(&stranger)),
            Err(EnvelopeError::UnknownAuthor(_))
        ));
        assert_eq!(here, verified, "refusals changed nothing");
    }

    #[test]
    fn signed_bytes_round_trip_and_survive_postcard_g5() {
        let (a, _, _) = ids();
        let e = env(&a, 0, genesis_head(&GAME), b"move 4E6");
        let wire = postcard::to_allocvec(&e).unwrap();
        let back: SignedEnvelope = postcard::from_bytes(&wire).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.bytes(), e.envelope().signing_bytes().as_slice());
        assert_eq!(back.entry_hash(), Digest::sha256(e.bytes()));
        assert!(back.verify_signature().is_ok());
    }

    #[test]
    fn malformed_bytes_are_refused_on_deserialize_g6() {
        let raw = RawSignedEnvelope {
            bytes: b"garbage".to_vec(),
            sig: Signature([0; 64]),
        };
        let wire = postcard::to_allocvec(&raw).unwrap();
        assert!(postcard::from_bytes::<SignedEnvelope>(&wire).is_err());
    }

    #[test]
    fn every_truncation_of_an_envelope_is_a_decode_error_g6() {
        let (a, _, _) = ids();
        let bytes = env(&a, 0, genesis_head(&GAME), b"move").bytes().to_vec();
        for cut in 0..bytes.len() {
            assert!(Envelope::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            Envelope::decode(&longer),
            Err(DecodeError::TrailingBytes(1))
        );
        assert!(Envelope::decode(&bytes).is_ok());
    }

    #[test]
    fn entries_append_in_order_and_chain_heads_g5() {
        let (a, b, s) = ids();
        let mut l = log(&a, &b, &s);
        let e0 = env(&a, 0, l.head(), b"one");
        let r0 = l.append(&e0).unwrap();
        assert_eq!(
            r0.new_head,
            next_head(&genesis_head(&GAME), &e0.entry_hash())
        );
        let e1 = env(&b, 1, l.head(), b"two");
        let r1 = l.append(&e1).unwrap();
        assert_eq!(r1.seq, 1);
        assert_eq!(l.head(), r1.new_head);
        assert_eq!(l.next_seq(), 2);
    }

    #[test]
    fn forged_signature_is_refused_and_changes_nothing_g5() {
        let (a, b, s) = ids();
        let mut l = log(&a, &b, &s);
        // B signs an envelope claiming A as author.
        let forged = Envelope {
            version: ENVELOPE_VERSION,
            game_id: GAME,
            author: a.public_key(),
            seq: 0,
            prev_head: l.head(),
            body: b"A resigns".to_vec(),
        }
        .sign(&b);
        let before = l.clone();
        assert_eq!(
            l.append(&forged),
            Err(EnvelopeError::BadSignature {
                author: a.public_key()
            })
        );
        assert_eq!(l, before);
        // A tampered body under a real signature.
        let real = env(&a, 0, l.head(), b"fire 4E6");
        let mut bytes = real.bytes().to_vec();
        let n = bytes.len();
        bytes[n - 1] ^= 1;
        let tampered = SignedEnvelope::from_parts(bytes, *real.signature()).unwrap();
        assert!(matches!(
            l.check(&tampered),
            Err(EnvelopeError::BadSignature { .. })
        ));
    }

    #[test]
    fn replayed_envelope_is_refused_g6() {
        let (a, b, s) = ids();
        let mut l = log(&a, &b, &s);
        let e0 = env(&a, 0, l.head(), b"one");
        l.append(&e0).unwrap();
        assert_eq!(l.append(&e0), Err(EnvelopeError::Replay { seq: 0 }));
    }

    #[test]
    fn envelope_from_another_game_is_refused_g5() {
        let (a, b, s) = ids();
        // The same valid envelope is accepted in its own game only.
        let other = LogState::new(GameId([0x22; 16]), vec![a.public_key()]);
        let e = Envelope {
            version: ENVELOPE_VERSION,
            game_id: GameId([0x22; 16]),
            author: a.public_key(),
            seq: 0,
            prev_head: genesis_head(&GameId([0x22; 16])),
            body: vec![],
        }
        .sign(&a);
        assert!(other.check(&e).is_ok());
        assert_eq!(
            log(&a, &b, &s).check(&e),
            Err(EnvelopeError::WrongGame {
                expected: GAME,
                got: GameId([0x22; 16])
            })
        );
    }

    #[test]
    fn gap_stale_head_unknown_author_and_version_are_distinct_g6() {
        let (a, b, s) = ids();
        let l = log(&a, &b, &s);
        assert_eq!(
            l.check(&env(&a, 5, l.head(), b"")),
            Err(EnvelopeError::WrongSequence {
                expected: 0,
                got: 5
            })
        );
        assert!(matches!(
            l.check(&env(&a, 0, Digest([9; 32]), b"")),
            Err(EnvelopeError::StaleHead { .. })
        ));
        let stranger = Identity::from_seed(&[7; 32]).unwrap();
        assert_eq!(
            l.check(&env(&stranger, 0, l.head(), b"")),
            Err(EnvelopeError::UnknownAuthor(stranger.public_key()))
        );
        let mut e = Envelope::decode(env(&a, 0, l.head(), b"").bytes()).unwrap();
        e.version = 2;
        assert_eq!(
            l.check(&e.sign(&a)),
            Err(EnvelopeError::UnsupportedVersion { got: 2 })
        );
    }

    #[test]
    fn receipt_verifies_and_forged_receipt_fails_g5() {
        let (a, b, s) = ids();
        let mut l = log(&a, &b, &s);
        let prev = l.head();
        let e0 = env(&a, 0, prev, b"one");
        let app = l.append(&e0).unwrap();
        let r = Receipt::issue(&s, GAME, &app);
        assert_eq!(r.verify_for(&s.public_key(), &e0, &prev), Ok(()));
        // Signed by a player instead of the server's transcript key.
        let forged = Receipt::issue(&a, GAME, &app);
        assert_eq!(
            forged.verify(&s.public_key()),
            Err(ReceiptError::BadSignature)
        );
        // Fields altered after signing.
        let mut altered = r;
        altered.seq = 1;
        assert_eq!(
            altered.verify(&s.public_key()),
            Err(ReceiptError::BadSignature)
        );
        // A genuine receipt shown for another entry.
        let e_other = env(&a, 0, prev, b"other");
        assert_eq!(
            r.verify_for(&s.public_key(), &e_other, &prev),
            Err(ReceiptError::WrongEntry)
        );
        assert!(matches!(
            r.verify_for(&s.public_key(), &e0, &Digest([0; 32])),
            Err(ReceiptError::BrokenChain { .. })
        ));
    }

    #[test]
    fn two_signed_heads_with_the_same_seq_are_a_fork_proof_g5() {
        let (a, b, s) = ids();
        // The server shows A and B different histories at seq 0.
        let mut la = log(&a, &b, &s);
        let mut lb = log(&a, &b, &s);
        let ea = env(&a, 0, la.head(), b"A's history");
        let eb = env(&b, 0, lb.head(), b"B's history");
        let ra = Receipt::issue(&s, GAME, &la.append(&ea).unwrap());
        let rb = Receipt::issue(&s, GAME, &lb.append(&eb).unwrap());
        let proof = ForkProof::Receipts {
            server: s.public_key(),
            first: ra,
            second: rb,
        };
        assert_eq!(proof.verify(), Ok(()));
        // The players then act on their diverging heads at seq 1.
        let fa = env(&a, 1, la.head(), b"next");
        let fb = env(&b, 1, lb.head(), b"next");
        let proof = ForkProof::Envelopes {
            first: fa.clone(),
            second: fb,
        };
        assert_eq!(proof.verify(), Ok(()));
        // Not a fork: same receipt twice; different seqs; forged receipt.
        let same = ForkProof::Receipts {
            server: s.public_key(),
            first: ra,
            second: ra,
        };
        assert_eq!(same.verify(), Err(ForkProofError::SameHead));
        let mut later = rb;
        later.seq = 1;
        let later = Receipt {
            sig: s.sign(&Receipt::signing_bytes(
                &GAME,
                1,
                &later.entry_hash,
                &later.new_head,
            )),
            ..later
        };
        let diff = ForkProof::Receipts {
            server: s.public_key(),
            first: ra,
            second: later,
        };
        assert_eq!(diff.verify(), Err(ForkProofError::DifferentSeqs));
        let forged = ForkProof::Receipts {
            server: s.public_key(),
            first: ra,
            second: Receipt::issue(
                &a,
                GAME,
                &Appended {
                    seq: 0,
                    entry_hash: eb.entry_hash(),
                    new_head: Digest([1; 32]),
                },
            ),
        };
        assert_eq!(forged.verify(), Err(ForkProofError::BadSignature(1)));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_the_decoder_g6(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        ) {
            let _ = Envelope::decode(&bytes);
            let raw = RawSignedEnvelope { bytes, sig: Signature([0; 64]) };
            let wire = postcard::to_allocvec(&raw).unwrap();
            let _ = postcard::from_bytes::<SignedEnvelope>(&wire);
        }
    }
}
