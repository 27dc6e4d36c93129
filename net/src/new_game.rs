//! The request for a real game: what a client sends, postcard-encoded, as
//! the scenario bytes of [`ClientMessage::CreateGame`](crate::wire::ClientMessage::CreateGame),
//! and the limits the server checks it against before anything else.

use hexveil_protocol::message::{encode, Mode};
use hexveil_protocol::PublicKey;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest pad a new game may ask for (entries per pad epoch) on any
/// server; a server's `max_pad_len` setting may lower it (building a pad
/// costs an HMAC and a hash per entry, each release about sqrt(n) of them;
/// a pad keeps only the upper levels of its tree, 16 KiB at this length,
/// G6).
pub const MAX_PAD_LEN: u32 = 1 << 16;

/// Longest answer timeout a new game may ask for: 30 days, for play by
/// correspondence (DESIGN 3.6).
pub const MAX_ANSWER_TIMEOUT_SECS: u64 = 30 * 24 * 3600;

/// What a client sends, postcard-encoded, as the scenario bytes of
/// `CreateGame` to start a real game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewGame {
    /// The ruleset the game is played under (`asl`, `minis`).
    pub ruleset: String,
    /// The ruleset's version.
    pub ruleset_version: u32,
    /// The scenario text (TOML).
    pub scenario_toml: String,
    /// Side A's and side B's public keys (the only keys that may take those
    /// seats).
    pub players: [PublicKey; 2],
    /// Live or escrow (DESIGN 3.6).
    pub mode: Mode,
    /// Entries per pad (at most [`MAX_PAD_LEN`]).
    pub pad_len: u32,
    /// How long a party may take to answer a machine request, in seconds
    /// (1 to [`MAX_ANSWER_TIMEOUT_SECS`]); `None` takes the server's
    /// configured `answer_timeout_secs`. A correspondence game asks for
    /// days.
    pub answer_timeout_secs: Option<u64>,
}

impl NewGame {
    /// Encode for `CreateGame`.
    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// Decode from `CreateGame`'s scenario bytes; trailing bytes and an
    /// over-limit pad are refused.
    pub fn decode(bytes: &[u8]) -> Result<NewGame, NewGameError> {
        let (g, rest) = postcard::take_from_bytes::<NewGame>(bytes)
            .map_err(|e| NewGameError::Malformed(e.to_string()))?;
        if !rest.is_empty() {
            return Err(NewGameError::Trailing(rest.len()));
        }
        if g.pad_len == 0 || g.pad_len > MAX_PAD_LEN {
            return Err(NewGameError::PadLen(g.pad_len));
        }
        if let Some(t) = g.answer_timeout_secs {
            if t == 0 || t > MAX_ANSWER_TIMEOUT_SECS {
                return Err(NewGameError::AnswerTimeout(t));
            }
        }
        Ok(g)
    }
}

/// Why scenario bytes are not a new-game request the server takes.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NewGameError {
    /// The bytes do not decode as a [`NewGame`].
    #[error("not a new-game request: {0}")]
    Malformed(String),
    /// Bytes are left after the request.
    #[error("new-game request has {0} trailing bytes")]
    Trailing(usize),
    /// The pad length is 0 or over [`MAX_PAD_LEN`].
    #[error("pad_len {0} must be between 1 and {MAX_PAD_LEN}")]
    PadLen(u32),
    /// The answer timeout is 0 or over [`MAX_ANSWER_TIMEOUT_SECS`].
    #[error("answer_timeout_secs {0} must be between 1 and {MAX_ANSWER_TIMEOUT_SECS}")]
    AnswerTimeout(u64),
}
