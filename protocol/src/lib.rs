//! hexveil-protocol: messages, commitments, the dice beacon, the signed
//! transcript and its offline verifier. Pure: no sockets, no tokio.
//!
//! The cryptographic primitives (DESIGN 3.0-3.5, byte layouts in
//! `PROTOCOL.md`):
//!
//! - [`encoding`]: the domain-tagged tuple encoding of everything hashed or signed;
//! - [`merkle`]: RFC 6962 trees and padded audit paths;
//! - [`layout`]: sealed layouts, openings and transitions (3.1);
//! - [`note`]: sealed notes (3.2);
//! - [`identity`]: Ed25519 keys;
//! - [`envelope`]: signed envelopes, receipts, the head chain, fork proofs (3.5);
//! - [`pad`], [`beacon`], [`dice`]: the dice beacon (3.4);
//! - [`transcript`], [`verifier`]: the transcript file of a game and the
//!   offline verifier that replays it through the [`referee`] (3.5, G5).

pub mod attestation;
pub mod beacon;
pub mod dice;
pub mod encoding;
pub mod end_check;
pub mod envelope;
pub mod escrow_agents;
pub mod evidence;
mod guard;
pub mod identity;
pub mod keeper;
pub mod layout;
pub mod merkle;
pub mod message;
pub mod note;
pub mod pad;
pub mod player;
pub mod reading;
pub mod referee;
mod roll_count;
pub mod session;
pub mod transcript;
pub mod verifier;
pub mod view_receipt;
pub mod witness;

pub use beacon::{BeaconRound, RollKind, RollRequest, RollSeed, RoundStatus};
pub use dice::{DiceRoll, DiceStream, DieKind, Percentile};
pub use encoding::{Digest, GameId, Party, TupleDecoder, TupleEncoder};
pub use envelope::{Envelope, ForkProof, LogState, Receipt, SignedEnvelope};
pub use identity::{Identity, PublicKey, Signature};
pub use layout::{
    verify_opening, verify_transition, Content, LayoutEntry, LayoutSeed, Opening, OpeningError,
    RootStatement, Salt, SealedLayout, Transition,
};
pub use merkle::{AuditPath, MerkleTree};
pub use note::{NoteBook, NoteCommitment, NoteContent, NoteOpening, NotesSeed};
pub use pad::{Pad, PadEntry, PadPosition, PadSchedule, PadSeed, PadStatement, PadValue};
