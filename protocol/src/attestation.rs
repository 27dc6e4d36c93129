//! The server's signed statements about the head chain (DESIGN 3.5, issue
//! 24): each of them says, under the server's transcript key, what the
//! log's head was before some entry of a game. Two that give two heads
//! for one position of one game prove that the server showed two histories
//! ([`crate::envelope::ForkProof::Attested`]), whichever forms they take:
//! a receipt against a receipt-less server entry, a view receipt against
//! a receipt, a server entry against the next server entry.

use crate::encoding::{Digest, GameId};
use crate::envelope::{next_head, Receipt, SignedEnvelope};
use crate::identity::PublicKey;
use crate::view_receipt::ViewReceipt;
use serde::{Deserialize, Serialize};

/// One statement of the server's about the head chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Attestation {
    /// A receipt: the head after entry `seq` (a player's entry, or a
    /// server entry of message versions 3 and 4).
    Receipt(Receipt),
    /// A receipt with the entry it is for: the receipt signs the entry's
    /// hash, which covers the head the entry was signed on, so it also
    /// says what the head before the entry was.
    Entry {
        /// The entry.
        envelope: SignedEnvelope,
        /// The server's receipt for it.
        receipt: Receipt,
    },
    /// A view receipt: the head before entry `seq` and, with the entry's
    /// hash, the head after it.
    View(ViewReceipt),
    /// An entry the server signed itself (message version 5 on: its own
    /// signature stands for a receipt): the head before it and, with its
    /// hash, the head after it.
    ServerEntry(SignedEnvelope),
    /// A player's entry without a receipt, with the server's statement on
    /// the head after it (message version 6: the server's own next entry,
    /// or its view receipt of it): that head is the entry's hash over the
    /// head it was signed on, so the statement also says what the head
    /// before the entry was.
    Placed {
        /// The entry.
        envelope: SignedEnvelope,
        /// The server's statement on the head after it.
        by: Box<Placer>,
    },
}

/// The server's statement that places a player's entry without a receipt
/// ([`Attestation::Placed`]): any [`Attestation`] but another `Placed`, so
/// a statement nests one level at most and a decoder meets no deep
/// nesting. Its variants and their postcard indices are `Attestation`'s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placer {
    /// [`Attestation::Receipt`].
    Receipt(Receipt),
    /// [`Attestation::Entry`].
    Entry {
        /// The entry.
        envelope: SignedEnvelope,
        /// The server's receipt for it.
        receipt: Receipt,
    },
    /// [`Attestation::View`].
    View(ViewReceipt),
    /// [`Attestation::ServerEntry`].
    ServerEntry(SignedEnvelope),
}

impl Placer {
    /// The statement `a` as a placer: `None` for a `Placed`.
    pub fn of(a: Attestation) -> Option<Placer> {
        Some(match a {
            Attestation::Receipt(r) => Placer::Receipt(r),
            Attestation::Entry { envelope, receipt } => Placer::Entry { envelope, receipt },
            Attestation::View(v) => Placer::View(v),
            Attestation::ServerEntry(e) => Placer::ServerEntry(e),
            Attestation::Placed { .. } => return None,
        })
    }

    /// The same statement, as an [`Attestation`].
    pub fn attestation(&self) -> Attestation {
        match self.clone() {
            Placer::Receipt(r) => Attestation::Receipt(r),
            Placer::Entry { envelope, receipt } => Attestation::Entry { envelope, receipt },
            Placer::View(v) => Attestation::View(v),
            Placer::ServerEntry(e) => Attestation::ServerEntry(e),
        }
    }
}

/// "The head of game `game_id` before entry `before` is `head`" (the head
/// before entry 0 is the genesis head; before entry n + 1, the head after
/// entry n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadClaim {
    /// The game.
    pub game_id: GameId,
    /// The entry the head comes before.
    pub before: u64,
    /// The head.
    pub head: Digest,
}

/// Why an attestation proves nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AttestationError {
    /// Its signature does not verify under the server key.
    #[error("its signature does not verify under the server key")]
    BadSignature,
    /// A server entry not signed by the server key.
    #[error("the entry is not the server's")]
    NotTheServers,
    /// A receipt that is not for the entry it comes with (another hash,
    /// game or seq, or a head that does not follow from the entry's); a
    /// statement that does not place the entry it comes with.
    #[error("the receipt is not for the entry it comes with")]
    NotItsEntry,
}

impl Attestation {
    /// What it says of the head chain, once its signature is checked
    /// under `server`: one or two claims.
    pub fn claims(&self, server: &PublicKey) -> Result<Vec<HeadClaim>, AttestationError> {
        self.verify(server)?;
        self.claims_of_checked(server)
    }

    /// Checks its signature under `server` (and that a server entry is
    /// the server's), nothing else.
    pub fn verify(&self, server: &PublicKey) -> Result<(), AttestationError> {
        let valid = match self {
            Attestation::Receipt(r) | Attestation::Entry { receipt: r, .. } => {
                r.verify(server).is_ok()
            }
            Attestation::View(v) => v.verify(server).is_ok(),
            Attestation::ServerEntry(env) => {
                if env.envelope().author != *server {
                    return Err(AttestationError::NotTheServers);
                }
                env.verify_signature().is_ok()
            }
            Attestation::Placed { by, .. } => return by.attestation().verify(server),
        };
        match valid {
            true => Ok(()),
            false => Err(AttestationError::BadSignature),
        }
    }

    /// What [`Attestation::claims`] gives, for an attestation whose
    /// signature the caller has already checked under `server` (the very
    /// bytes: issue 30, each signature verified once); every other check
    /// runs.
    pub(crate) fn claims_of_checked(
        &self,
        server: &PublicKey,
    ) -> Result<Vec<HeadClaim>, AttestationError> {
        Ok(match self {
            Attestation::Receipt(r) => vec![HeadClaim {
                game_id: r.game_id,
                before: r.seq.saturating_add(1),
                head: r.new_head,
            }],
            Attestation::Entry { envelope, receipt } => {
                let e = envelope.envelope();
                let hash = envelope.entry_hash();
                if receipt.entry_hash != hash
                    || receipt.game_id != e.game_id
                    || receipt.seq != e.seq
                    || receipt.new_head != next_head(&e.prev_head, &hash)
                {
                    return Err(AttestationError::NotItsEntry);
                }
                Self::both(e.game_id, e.seq, e.prev_head, receipt.new_head)
            }
            Attestation::View(v) => Self::both(v.game_id, v.seq, v.prev_head, v.new_head()),
            Attestation::ServerEntry(env) => {
                let e = env.envelope();
                if e.author != *server {
                    return Err(AttestationError::NotTheServers);
                }
                Self::both(
                    e.game_id,
                    e.seq,
                    e.prev_head,
                    next_head(&e.prev_head, &env.entry_hash()),
                )
            }
            Attestation::Placed { envelope, by } => {
                let e = envelope.envelope();
                let after = next_head(&e.prev_head, &envelope.entry_hash());
                let mut claims = by.attestation().claims_of_checked(server)?;
                let placed = claims.iter().any(|c| {
                    c.game_id == e.game_id && c.before == e.seq.saturating_add(1) && c.head == after
                });
                if !placed {
                    return Err(AttestationError::NotItsEntry);
                }
                claims.push(HeadClaim {
                    game_id: e.game_id,
                    before: e.seq,
                    head: e.prev_head,
                });
                claims
            }
        })
    }

    fn both(game_id: GameId, seq: u64, before: Digest, after: Digest) -> Vec<HeadClaim> {
        vec![
            HeadClaim {
                game_id,
                before: seq,
                head: before,
            },
            HeadClaim {
                game_id,
                before: seq.saturating_add(1),
                head: after,
            },
        ]
    }

    /// The game and seq of the entry it is about.
    pub fn position(&self) -> (GameId, u64) {
        match self {
            Attestation::Receipt(r) | Attestation::Entry { receipt: r, .. } => (r.game_id, r.seq),
            Attestation::View(v) => (v.game_id, v.seq),
            Attestation::ServerEntry(env) | Attestation::Placed { envelope: env, .. } => {
                (env.envelope().game_id, env.envelope().seq)
            }
        }
    }

    /// What it is, in words.
    pub fn describe(&self) -> String {
        let (_, seq) = self.position();
        match self {
            Attestation::Receipt(_) | Attestation::Entry { .. } => {
                format!("the server's receipt of entry {seq}")
            }
            Attestation::View(_) => format!("the server's view receipt of entry {seq}"),
            Attestation::ServerEntry(_) => format!("the server's own entry {seq}"),
            Attestation::Placed { by, .. } => {
                format!(
                    "entry {seq} with {}, which places it",
                    by.attestation().describe()
                )
            }
        }
    }
}

/// The first position of the chain on which two attestations, both
/// checked under `server`, give two heads: `None` if they agree wherever
/// both speak (or one does not verify).
pub fn conflict(
    server: &PublicKey,
    first: &Attestation,
    second: &Attestation,
) -> Result<Option<(HeadClaim, HeadClaim)>, (u8, AttestationError)> {
    let a = first.claims(server).map_err(|e| (0, e))?;
    let b = second.claims(server).map_err(|e| (1, e))?;
    Ok(a.iter().find_map(|x| {
        b.iter()
            .find(|y| x.game_id == y.game_id && x.before == y.before && x.head != y.head)
            .map(|y| (*x, *y))
    }))
}
