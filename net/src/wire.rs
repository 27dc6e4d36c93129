//! Transport-level messages of the hexveil connection (protocol version
//! [`PROTOCOL_VERSION`]), encoded with postcard inside one frame each (see
//! [`crate::frame`]).
//!
//! These messages cover what the shell itself understands: the hello, the
//! Ed25519 login bound to the TLS session (G6, DESIGN section 5), keep-alive
//! pings, and the lobby (create, list, join as a side or as a spectator). The
//! game's own messages travel opaquely inside [`ClientMessage::Game`] and
//! [`ServerMessage::Game`]; the game session plugged into the server
//! (`hexveil_server::session::GameSession`) gives them meaning.
//!
//! Decoding is strict: a frame must hold exactly one message (trailing bytes
//! are an error) and every variable-length field is checked against the hard
//! limits below after decoding, so nothing outside them reaches the lobby or a
//! game.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::frame::MAX_FRAME_LEN;

/// Version of this transport protocol; sent in [`ClientMessage::Hello`] and
/// echoed in [`ServerMessage::Challenge`]. A server refuses any other version.
/// Version 2 (issue 24): every game update carries its log entry and, where
/// due, the server's view receipt (PROTOCOL.md 14.2).
pub const PROTOCOL_VERSION: u32 = 2;

/// Bytes a frame needs around a game payload (enum tag, game id, length
/// prefix); payloads are limited so that a full message always fits a frame.
const PAYLOAD_OVERHEAD: usize = 64;

/// Largest part of a game message carried by one [`ClientMessage::Game`] or
/// [`ServerMessage::Game`] (one frame).
pub const MAX_PAYLOAD_LEN: usize = MAX_FRAME_LEN as usize - PAYLOAD_OVERHEAD;

/// Largest game message after its parts are joined: 8 MiB, the protocol's
/// largest live message. Parts arrive one frame at a time, so the receiver
/// only holds what the peer actually sent (and the rate limit allows).
pub const MAX_GAME_MESSAGE_LEN: usize = 8 * 1024 * 1024;

/// Largest scenario accepted by [`ClientMessage::CreateGame`].
pub const MAX_SCENARIO_LEN: usize = MAX_PAYLOAD_LEN;

/// Largest human-readable message in [`ServerMessage::Error`], in bytes.
pub const MAX_ERROR_MESSAGE_LEN: usize = 1024;

/// Most games listed in one [`ServerMessage::Games`].
pub const MAX_LISTED_GAMES: usize = 1000;

/// Most games listed in one [`ServerMessage::FinishedGames`].
pub const MAX_LISTED_FINISHED: usize = 100;

/// Length of an Ed25519 signature.
pub const SIGNATURE_LEN: usize = 64;

/// The random 16-byte id of a game (DESIGN section 3.0), and a player's
/// Ed25519 public key (32 bytes): the protocol crate's types, so the wire and
/// the signed records name games and players the same way. postcard encodes
/// them as their raw bytes.
pub use hexveil_protocol::{GameId, PublicKey};

/// One of the two sides (seats) of a game: `hexveil_core::Side` (`A` is the
/// first side of the scenario, `B` the second). Encoded as 0 and 1.
pub use hexveil_core::Side;

/// How a connection takes part in a game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Role {
    /// Plays the given seat.
    Player(Side),
    /// Watches the public view (optionally delayed); cannot act.
    Spectator,
}

/// What went wrong, in a form a program can act on; every
/// [`ServerMessage::Error`] also carries a human-readable message.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum ErrorCode {
    /// The client's protocol version is not [`PROTOCOL_VERSION`].
    UnsupportedVersion,
    /// A frame's length prefix exceeds the maximum; the connection is closed.
    FrameTooLarge,
    /// A frame did not hold exactly one valid message.
    Malformed,
    /// The message is valid but not allowed at this point (e.g. a lobby
    /// request before login, a second hello).
    UnexpectedMessage,
    /// The login signature did not verify; the connection is closed.
    LoginFailed,
    /// The peer was too slow or silent; the connection is closed.
    Timeout,
    /// The per-connection rate limit was exceeded; the frame was dropped.
    RateLimited,
    /// No game with that id on this server.
    UnknownGame,
    /// The request needs the connection to have joined that game first.
    NotJoined,
    /// Spectators cannot send game messages.
    SpectatorCannotAct,
    /// The game session refused the request (its message says why).
    Rejected,
    /// The game is too busy to take the request now; nothing changed.
    Busy,
    /// The server failed internally (storage); nothing was acknowledged.
    Internal,
    /// The game has not finished, so its transcript is not available.
    NotFinished,
    /// A transcript offset beyond its end.
    BadOffset,
    /// A game message's parts exceed [`MAX_GAME_MESSAGE_LEN`] or are
    /// interleaved between games; the partial message was dropped.
    BadGameMessage,
}

/// Summary of one game in a lobby listing.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameSummary {
    /// The game.
    pub game_id: GameId,
    /// Whether a player currently holds side A's seat.
    pub side_a_seated: bool,
    /// Whether a player currently holds side B's seat.
    pub side_b_seated: bool,
    /// Number of spectators connected.
    pub spectators: u32,
    /// Whether the game has ended.
    pub finished: bool,
}

/// A finished game's league data, as [`ServerMessage::FinishedGames`]
/// lists it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct FinishedGame {
    /// The game.
    pub game_id: GameId,
    /// Its row, or why its transcript is not one.
    pub row: FinishedRow,
}

/// The row of a finished game: the fields of `hexveil results`
/// ([`hexveil_view::league::Row`]), computed by the server from the
/// transcript it stores, verified as `hexveil verify` does (G5).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum FinishedRow {
    /// The transcript is complete and clean.
    Verified(Box<hexveil_view::league::Row>),
    /// It is not (a fault, or this server lacks the ruleset): why.
    Refused {
        /// Why, in words.
        why: String,
    },
}

/// A message from a client to the server.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum ClientMessage {
    /// First message of every connection.
    Hello {
        /// Must equal [`PROTOCOL_VERSION`].
        protocol_version: u32,
    },
    /// Answer to [`ServerMessage::Challenge`]: an Ed25519 signature over the
    /// login tuple (see [`crate::login`]).
    Login {
        /// The player's public key.
        public_key: PublicKey,
        /// The signature, exactly [`SIGNATURE_LEN`] bytes.
        #[serde(with = "serde_bytes")]
        signature: Vec<u8>,
    },
    /// Liveness check; answered with [`ServerMessage::Pong`].
    Ping {
        /// Echoed back.
        nonce: u64,
    },
    /// Create a game from a scenario (opaque to the shell, at most
    /// [`MAX_SCENARIO_LEN`] bytes).
    CreateGame {
        /// The scenario bytes handed to the session factory.
        #[serde(with = "serde_bytes")]
        scenario: Vec<u8>,
    },
    /// List the games of this server.
    ListGames,
    /// Join a game as a player of a side or as a spectator.
    Join {
        /// The game.
        game_id: GameId,
        /// The role asked for.
        role: Role,
        /// First event sequence number not yet seen (0: everything); lets a
        /// reconnecting client resume.
        resume_from: u64,
    },
    /// Leave a game joined earlier.
    Leave {
        /// The game.
        game_id: GameId,
    },
    /// A part of a message for the game session. A message longer than
    /// [`MAX_PAYLOAD_LEN`] is sent as consecutive parts with `more = true`
    /// on all but the last (see [`split_game_message`], [`GameAssembler`]).
    Game {
        /// The game.
        game_id: GameId,
        /// Opaque session bytes (at most [`MAX_PAYLOAD_LEN`]).
        #[serde(with = "serde_bytes")]
        payload: Vec<u8>,
        /// Whether the message continues in the next `Game` part.
        more: bool,
    },
    /// Ask for part of a finished game's transcript (DESIGN 5: after the end
    /// anyone may fetch the full transcript). Answered with
    /// [`ServerMessage::TranscriptChunk`].
    FetchTranscript {
        /// The game.
        game_id: GameId,
        /// Byte offset to start at.
        offset: u64,
    },
    /// List the finished games of this server with their league data,
    /// the most recently created first. Answered with
    /// [`ServerMessage::FinishedGames`]. Added after version 1 was
    /// published, at the end so that no other message changes: a server
    /// that predates it answers `Error{Malformed}`.
    ListFinished {
        /// How many at most (the server lists at most
        /// [`MAX_LISTED_FINISHED`]).
        limit: u32,
    },
    /// Ask where a game is served and which nodes the league has (issue
    /// 25). Answered with [`ServerMessage::Located`] (or an error:
    /// `UnknownGame`). Added after version 1 was published, as the last
    /// variant: a server that predates it answers `Error{Malformed}`, and
    /// a client then joins without asking.
    Locate {
        /// The game.
        game_id: GameId,
    },
    /// Ask to be told who is connected to a joined game and who it waits
    /// for ([`ServerMessage::Presence`], now and whenever it changes;
    /// issue 27). Added after version 1 was published, as the last
    /// variant: a server that predates it answers `Error{Malformed}`, and
    /// the client goes on without presence.
    WatchPresence {
        /// The game, joined on this connection.
        game_id: GameId,
    },
    /// List the open games with what each is, who holds its seats, when it
    /// was created and who it waits for ([`ServerMessage::OpenGames`];
    /// issue 27 item 8). Added after version 1 was published, as the last
    /// variant: a server that predates it answers `Error{Malformed}`, and
    /// the client asks [`ClientMessage::ListGames`] instead.
    ListOpenGames,
    /// [`ClientMessage::ListOpenGames`] with the names the players' keys
    /// signed in their setups ([`ServerMessage::OpenGamesNamed`]; issue 27
    /// item 8). Added after version 1 was published, as the last variant:
    /// a server that predates it answers `Error{Malformed}`, and the
    /// client asks [`ClientMessage::ListOpenGames`] instead.
    ListOpenGamesNamed,
}

/// Who serves a game, as a node answers [`ClientMessage::Locate`].
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum GameOwner {
    /// This node: it serves the game, or takes it when it is joined here
    /// (no other node's lease runs; or the game is finished, which any
    /// node serves).
    ThisNode,
    /// Another node holds the game's lease.
    OtherNode {
        /// Its id (at most [`MAX_NODE_ID_LEN`] bytes).
        node: String,
        /// The address its clients connect to (at most
        /// [`MAX_ADDRESS_LEN`] bytes).
        address: String,
        /// How long its lease runs unless it renews it, in milliseconds: a
        /// node that died gives its games up after this.
        lease_left_ms: u64,
    },
    /// This node is shutting down and serves no game: ask another.
    Leaving,
}

/// A message from the server to a client.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum ServerMessage {
    /// Answer to [`ClientMessage::Hello`]: the login challenge.
    Challenge {
        /// The server's protocol version.
        protocol_version: u32,
        /// 32 random bytes, fresh per connection.
        challenge: [u8; 32],
    },
    /// The login verified; the connection now acts for this key.
    LoginOk {
        /// The key that logged in.
        public_key: PublicKey,
    },
    /// A request failed; see the code.
    Error {
        /// What kind of failure.
        code: ErrorCode,
        /// Human-readable details (at most [`MAX_ERROR_MESSAGE_LEN`] bytes).
        message: String,
    },
    /// Answer to [`ClientMessage::Ping`].
    Pong {
        /// The ping's nonce.
        nonce: u64,
    },
    /// A game was created and stored durably.
    GameCreated {
        /// Its new id.
        game_id: GameId,
    },
    /// Answer to [`ClientMessage::ListGames`].
    Games {
        /// At most [`MAX_LISTED_GAMES`] games.
        games: Vec<GameSummary>,
    },
    /// The connection joined a game.
    Joined {
        /// The game.
        game_id: GameId,
        /// The role granted.
        role: Role,
        /// How many game messages follow as this connection's resync (its
        /// views of entries already in the log, a spectator's public
        /// history) before any live traffic: the client knows where the
        /// past ends and may answer only what is current.
        resync: u32,
    },
    /// The connection left a game.
    Left {
        /// The game.
        game_id: GameId,
    },
    /// A part of a message from the game session (parts as in
    /// [`ClientMessage::Game`]).
    Game {
        /// The game.
        game_id: GameId,
        /// Opaque session bytes (at most [`MAX_PAYLOAD_LEN`]).
        #[serde(with = "serde_bytes")]
        payload: Vec<u8>,
        /// Whether the message continues in the next `Game` part.
        more: bool,
    },
    /// Part of a finished game's transcript.
    TranscriptChunk {
        /// The game.
        game_id: GameId,
        /// Offset of `bytes` in the transcript.
        offset: u64,
        /// Length of the whole transcript.
        total_len: u64,
        /// At most [`MAX_PAYLOAD_LEN`] bytes; empty at the end.
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// Answer to [`ClientMessage::ListFinished`].
    FinishedGames {
        /// At most [`MAX_LISTED_FINISHED`] games, the most recently
        /// created first.
        games: Vec<FinishedGame>,
    },
    /// Answer to [`ClientMessage::Join`] on a node that does not serve the
    /// game: another node of the league does (issue 13); join it there.
    /// Added after version 1 was published, as the last variant.
    ServedElsewhere {
        /// The game.
        game_id: GameId,
        /// The owning node's address, `host:port` (at most
        /// [`MAX_ADDRESS_LEN`] bytes).
        address: String,
    },
    /// Answer to [`ClientMessage::Locate`] (issue 25). Added after version
    /// 1 was published, as the last variant.
    Located {
        /// The game.
        game_id: GameId,
        /// Who serves it.
        owner: GameOwner,
        /// The addresses of the league's live nodes (at most
        /// [`MAX_LISTED_NODES`], each at most [`MAX_ADDRESS_LEN`] bytes):
        /// where a client looks for its game when its node goes away.
        nodes: Vec<String>,
    },
    /// Who is connected to a joined game and who it waits for, until when
    /// (issue 27): sent after [`ClientMessage::WatchPresence`] and then
    /// whenever it changes. Added after version 1 was published, as the
    /// last variant: only a client that asked for it is sent it.
    Presence {
        /// The game.
        game_id: GameId,
        /// Its presence.
        presence: Presence,
    },
    /// Answer to [`ClientMessage::ListOpenGames`]: the open games, at
    /// most [`MAX_LISTED_DESCRIBED`], the oldest first. Added after
    /// version 1 was published, as the last variant.
    OpenGames {
        /// The games.
        games: Vec<ListedGame>,
    },
    /// Answer to [`ClientMessage::ListOpenGamesNamed`]: the open games
    /// as [`ServerMessage::OpenGames`] lists them, each with the names its
    /// players' keys signed. Added after version 1 was published, as the
    /// last variant.
    OpenGamesNamed {
        /// The games.
        games: Vec<NamedGame>,
    },
}

/// An open game of [`ServerMessage::OpenGamesNamed`]: as
/// [`ServerMessage::OpenGames`] describes it, and the display names its
/// players' keys signed in their public setups (issue 27 item 8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedGame {
    /// The game.
    pub listed: ListedGame,
    /// The name side A's key signed in its setup, then side B's; `None`
    /// for a setup not accepted yet or one that names no one. The server's
    /// word until the client reads the setup itself (it joins or verifies).
    pub signed_names: [Option<String>; 2],
}

/// Open games in one [`ServerMessage::OpenGames`] at most.
pub const MAX_LISTED_DESCRIBED: usize = 100;

/// One open game as [`ServerMessage::OpenGames`] describes it: the
/// server's word, from the request that created the game (public from the
/// start, as the genesis holds the same) and its live state.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ListedGame {
    /// Its seats and spectators now.
    pub summary: GameSummary,
    /// The scenario's name (empty if the server cannot read it).
    pub scenario: String,
    /// The ruleset's id.
    pub ruleset: String,
    /// The ruleset's version.
    pub ruleset_version: u32,
    /// `live` or `escrow`.
    pub mode: String,
    /// The sides as the scenario names them, A first (empty if it does not).
    pub sides: [String; 2],
    /// The players' keys (hex), A first (empty for a game of another kind).
    pub keys: [String; 2],
    /// The names the league's roster pins to the keys, A first.
    pub roster_names: [Option<String>; 2],
    /// When it was created (Unix milliseconds, the server's clock); `None`
    /// for a game stored before its store recorded it.
    pub created_ms: Option<u64>,
    /// Who it waits for now, on what and until when; `None` for nobody, or
    /// withheld from everyone but its players under a spectator delay (the
    /// list is public: PROTOCOL.md 16.5).
    pub awaited: Option<Awaited>,
}

impl ListedGame {
    /// Every text field, for the length limits.
    fn texts(&self) -> impl Iterator<Item = &str> {
        [&self.scenario, &self.ruleset, &self.mode]
            .into_iter()
            .chain(&self.sides)
            .chain(&self.keys)
            .chain(self.roster_names.iter().flatten())
            .chain(self.awaited.iter().map(|a| &a.what))
            .map(String::as_str)
    }
}

/// Who a game waits for, on what, and until when, as the server says
/// (issue 27). Unsigned: the server's word, like the connection itself
/// (PROTOCOL.md 16); a client derives what it can from the signed log.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Awaited {
    /// The side whose answer or move the game waits for; `None`: the
    /// server itself.
    pub side: Option<Side>,
    /// What, in words, to follow "waiting for" (`side B's machine to
    /// answer its Daisy Chain opportunity 1`; at most
    /// [`MAX_ERROR_MESSAGE_LEN`] bytes).
    pub what: String,
    /// When the answer timeout forfeits the game for `side` (Unix
    /// milliseconds, the server's clock), if one runs (G2: machine answers
    /// only; a move has none).
    pub forfeits_at_ms: Option<u64>,
}

/// Who is connected to a game and who it waits for: sent to every member
/// of the game when either changes, and on joining.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Presence {
    /// Whether a client holds side A's seat now.
    pub side_a_connected: bool,
    /// Whether a client holds side B's seat now.
    pub side_b_connected: bool,
    /// Spectators connected.
    pub spectators: u32,
    /// Who the game waits for, if anyone (none once it is over).
    pub awaited: Option<Awaited>,
}

impl Presence {
    /// Whether `side`'s seat is held by a connected client.
    pub fn connected(&self, side: Side) -> bool {
        match side {
            Side::A => self.side_a_connected,
            Side::B => self.side_b_connected,
        }
    }
}

/// When an answer timeout forfeits, in words for both ends (issue 27):
/// `forfeits at 14:32 UTC, in 9 min` (or `in 40 s`, `now`); `at_ms` and
/// `now_ms` are Unix milliseconds.
pub fn forfeit_words(at_ms: u64, now_ms: u64) -> String {
    let secs_of_day = (at_ms / 1000) % 86_400;
    let clock = format!("{:02}:{:02} UTC", secs_of_day / 3600, secs_of_day / 60 % 60);
    let left = at_ms.saturating_sub(now_ms) / 1000;
    let when = match left {
        0 => "now".to_string(),
        1..=89 => format!("in {left} s"),
        _ => format!("in {} min", (left + 30) / 60),
    };
    format!("forfeits at {clock}, {when}")
}

/// A Unix time in milliseconds as a UTC date and time in words for both
/// ends (issue 27 item 8: when a game was created): `2026-11-28 14:32 UTC`.
pub fn date_words(at_ms: u64) -> String {
    let secs = i64::try_from(at_ms / 1000).unwrap_or(i64::MAX);
    match time::OffsetDateTime::from_unix_timestamp(secs) {
        Ok(t) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02} UTC",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute()
        ),
        Err(_) => format!("{at_ms} ms after 1970 (beyond the calendar)"),
    }
}

/// Longest address in [`ServerMessage::ServedElsewhere`] and
/// [`ServerMessage::Located`].
pub const MAX_ADDRESS_LEN: usize = 256;

/// Longest node id in [`GameOwner::OtherNode`].
pub const MAX_NODE_ID_LEN: usize = 128;

/// Most node addresses in one [`ServerMessage::Located`].
pub const MAX_LISTED_NODES: usize = 64;

/// Why a frame could not be decoded into a message, or a message could not be
/// encoded.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum WireError {
    /// postcard could not decode the frame.
    #[error("frame is not a valid message: {0}")]
    Decode(String),
    /// The frame held a message followed by extra bytes.
    #[error("frame has {0} trailing bytes after the message")]
    TrailingBytes(usize),
    /// A field is longer than its hard limit.
    #[error("field `{field}` is {len} bytes, the limit is {max}")]
    FieldTooLong {
        /// Which field.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A login signature is not 64 bytes.
    #[error("signature is {0} bytes, an Ed25519 signature is 64")]
    BadSignatureLength(usize),
    /// postcard could not encode the message.
    #[error("message could not be encoded: {0}")]
    Encode(String),
    /// A game message's parts add up to more than [`MAX_GAME_MESSAGE_LEN`].
    #[error("game message of at least {len} bytes exceeds the limit of {max}")]
    GameMessageTooLong {
        /// Bytes so far.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A part for one game arrived while another game's message was open.
    #[error("part for game {got} arrived while a message for game {open} was incomplete")]
    Interleaved {
        /// The game whose message was open.
        open: GameId,
        /// The game of the new part.
        got: GameId,
    },
    /// The encoded message is larger than a frame may be.
    #[error("encoded message is {len} bytes, a frame holds at most {max}")]
    MessageTooLarge {
        /// Encoded length.
        len: usize,
        /// Frame limit.
        max: usize,
    },
}

/// Split a game message into parts of at most [`MAX_PAYLOAD_LEN`] bytes,
/// each with its `more` flag. An empty message is one empty part.
pub fn split_game_message(message: &[u8]) -> Vec<(&[u8], bool)> {
    if message.is_empty() {
        return vec![(message, false)];
    }
    let n = message.len().div_ceil(MAX_PAYLOAD_LEN);
    message
        .chunks(MAX_PAYLOAD_LEN)
        .enumerate()
        .map(|(i, part)| (part, i + 1 < n))
        .collect()
}

/// Joins the parts of game messages as they arrive, one message at a time.
#[derive(Debug, Default)]
pub struct GameAssembler {
    open: Option<(GameId, Vec<u8>)>,
}

impl GameAssembler {
    /// Bytes of the message being put together (0 if none is open).
    pub fn open_len(&self) -> usize {
        self.open.as_ref().map_or(0, |(_, b)| b.len())
    }

    /// Drops the message being put together, if any.
    pub fn clear(&mut self) {
        self.open = None;
    }

    /// Add a part; returns the whole message when `more` is false. On an
    /// error the open message is dropped.
    pub fn push(
        &mut self,
        game_id: GameId,
        part: Vec<u8>,
        more: bool,
    ) -> Result<Option<(GameId, Vec<u8>)>, WireError> {
        let mut buf = match self.open.take() {
            None => part,
            Some((open, _)) if open != game_id => {
                return Err(WireError::Interleaved { open, got: game_id })
            }
            Some((_, mut buf)) => {
                buf.extend_from_slice(&part);
                buf
            }
        };
        if buf.len() > MAX_GAME_MESSAGE_LEN {
            let len = buf.len();
            buf.clear();
            return Err(WireError::GameMessageTooLong {
                len,
                max: MAX_GAME_MESSAGE_LEN,
            });
        }
        if more {
            self.open = Some((game_id, buf));
            Ok(None)
        } else {
            Ok(Some((game_id, buf)))
        }
    }
}

fn check_len(field: &'static str, len: usize, max: usize) -> Result<(), WireError> {
    if len > max {
        Err(WireError::FieldTooLong { field, len, max })
    } else {
        Ok(())
    }
}

fn decode_exact<'a, T: Deserialize<'a>>(frame: &'a [u8]) -> Result<T, WireError> {
    let (msg, rest) =
        postcard::take_from_bytes::<T>(frame).map_err(|e| WireError::Decode(e.to_string()))?;
    if !rest.is_empty() {
        return Err(WireError::TrailingBytes(rest.len()));
    }
    Ok(msg)
}

fn encode_checked<T: Serialize>(msg: &T) -> Result<Vec<u8>, WireError> {
    let bytes = postcard::to_allocvec(msg).map_err(|e| WireError::Encode(e.to_string()))?;
    if bytes.len() > MAX_FRAME_LEN as usize {
        return Err(WireError::MessageTooLarge {
            len: bytes.len(),
            max: MAX_FRAME_LEN as usize,
        });
    }
    Ok(bytes)
}

impl ClientMessage {
    /// Decode one frame; rejects trailing bytes and over-limit fields.
    pub fn decode(frame: &[u8]) -> Result<Self, WireError> {
        let msg: ClientMessage = decode_exact(frame)?;
        msg.check_limits()?;
        Ok(msg)
    }

    /// Encode into a frame payload.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        self.check_limits()?;
        encode_checked(self)
    }

    fn check_limits(&self) -> Result<(), WireError> {
        match self {
            ClientMessage::Login { signature, .. } if signature.len() != SIGNATURE_LEN => {
                Err(WireError::BadSignatureLength(signature.len()))
            }
            ClientMessage::CreateGame { scenario } => {
                check_len("scenario", scenario.len(), MAX_SCENARIO_LEN)
            }
            ClientMessage::Game { payload, .. } => {
                check_len("payload", payload.len(), MAX_PAYLOAD_LEN)
            }
            _ => Ok(()),
        }
    }
}

impl ServerMessage {
    /// Decode one frame; rejects trailing bytes and over-limit fields.
    pub fn decode(frame: &[u8]) -> Result<Self, WireError> {
        let msg: ServerMessage = decode_exact(frame)?;
        msg.check_limits()?;
        Ok(msg)
    }

    /// Encode into a frame payload.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        self.check_limits()?;
        encode_checked(self)
    }

    /// An error message, its text cut to [`MAX_ERROR_MESSAGE_LEN`] bytes (at a
    /// character boundary) so that it always encodes.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        let mut message = message.into();
        if message.len() > MAX_ERROR_MESSAGE_LEN {
            let mut cut = MAX_ERROR_MESSAGE_LEN;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
        }
        ServerMessage::Error { code, message }
    }

    fn check_limits(&self) -> Result<(), WireError> {
        match self {
            ServerMessage::Error { message, .. } => {
                check_len("message", message.len(), MAX_ERROR_MESSAGE_LEN)
            }
            ServerMessage::Games { games } => check_len("games", games.len(), MAX_LISTED_GAMES),
            ServerMessage::OpenGames { games } => {
                check_len("games", games.len(), MAX_LISTED_DESCRIBED)?;
                for g in games {
                    for text in g.texts() {
                        check_len("listed text", text.len(), MAX_ERROR_MESSAGE_LEN)?;
                    }
                }
                Ok(())
            }
            ServerMessage::OpenGamesNamed { games } => {
                check_len("games", games.len(), MAX_LISTED_DESCRIBED)?;
                for g in games {
                    let names = g.signed_names.iter().flatten().map(String::as_str);
                    for text in g.listed.texts().chain(names) {
                        check_len("listed text", text.len(), MAX_ERROR_MESSAGE_LEN)?;
                    }
                }
                Ok(())
            }
            ServerMessage::FinishedGames { games } => {
                check_len("games", games.len(), MAX_LISTED_FINISHED)
            }
            ServerMessage::Game { payload, .. } => {
                check_len("payload", payload.len(), MAX_PAYLOAD_LEN)
            }
            ServerMessage::TranscriptChunk { bytes, .. } => {
                check_len("bytes", bytes.len(), MAX_PAYLOAD_LEN)
            }
            ServerMessage::ServedElsewhere { address, .. } => {
                check_len("address", address.len(), MAX_ADDRESS_LEN)
            }
            ServerMessage::Presence { presence, .. } => match &presence.awaited {
                Some(a) => check_len("what", a.what.len(), MAX_ERROR_MESSAGE_LEN),
                None => Ok(()),
            },
            ServerMessage::Located { owner, nodes, .. } => {
                check_len("nodes", nodes.len(), MAX_LISTED_NODES)?;
                for n in nodes {
                    check_len("nodes", n.len(), MAX_ADDRESS_LEN)?;
                }
                if let GameOwner::OtherNode { node, address, .. } = owner {
                    check_len("node", node.len(), MAX_NODE_ID_LEN)?;
                    check_len("address", address.len(), MAX_ADDRESS_LEN)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_client_messages() {
        let msgs = [
            ClientMessage::Hello {
                protocol_version: PROTOCOL_VERSION,
            },
            ClientMessage::Login {
                public_key: PublicKey([7; 32]),
                signature: vec![1; 64],
            },
            ClientMessage::Join {
                game_id: GameId([3; 16]),
                role: Role::Player(Side::B),
                resume_from: 7,
            },
            ClientMessage::Game {
                game_id: GameId([3; 16]),
                payload: b"hi".to_vec(),
                more: true,
            },
        ];
        for m in msgs {
            let bytes = m.encode().unwrap();
            assert_eq!(ClientMessage::decode(&bytes).unwrap(), m);
        }
    }

    // G6: a frame must hold exactly one message.
    #[test]
    fn trailing_bytes_rejected() {
        let mut bytes = ClientMessage::ListGames.encode().unwrap();
        bytes.push(0);
        assert_eq!(
            ClientMessage::decode(&bytes),
            Err(WireError::TrailingBytes(1))
        );
    }

    // G6: hard limits are enforced while decoding.
    #[test]
    fn wrong_signature_length_rejected() {
        let m = ClientMessage::Login {
            public_key: PublicKey([7; 32]),
            signature: vec![1; 63],
        };
        let bytes = postcard::to_allocvec(&m).unwrap();
        assert_eq!(
            ClientMessage::decode(&bytes),
            Err(WireError::BadSignatureLength(63))
        );
    }

    #[test]
    fn garbage_and_empty_frames_rejected() {
        assert!(matches!(
            ClientMessage::decode(&[]),
            Err(WireError::Decode(_))
        ));
        assert!(matches!(
            ClientMessage::decode(&[0xff, 0xff, 0xff]),
            Err(WireError::Decode(_))
        ));
    }

    /// Test vectors for the transport protocol (PROTOCOL.md section 10.6): a
    /// change here is a protocol change and needs a new PROTOCOL_VERSION.
    #[test]
    fn encoding_test_vectors() {
        let hex = |m: &ClientMessage| hex::encode(m.encode().unwrap());
        assert_eq!(
            hex(&ClientMessage::Hello {
                protocol_version: 1
            }),
            "0001"
        );
        assert_eq!(
            hex(&ClientMessage::Login {
                public_key: PublicKey([0x11; 32]),
                signature: vec![0x22; 64],
            }),
            format!("01{}40{}", "11".repeat(32), "22".repeat(64))
        );
        assert_eq!(hex(&ClientMessage::Ping { nonce: 300 }), "02ac02");
        assert_eq!(
            hex(&ClientMessage::CreateGame {
                scenario: b"ab".to_vec()
            }),
            "03026162"
        );
        assert_eq!(hex(&ClientMessage::ListGames), "04");
        // Added after version 1 (PROTOCOL.md 10.4): index 9, a varint limit.
        assert_eq!(hex(&ClientMessage::ListFinished { limit: 300 }), "09ac02");
        let refused = ServerMessage::FinishedGames {
            games: vec![FinishedGame {
                game_id: GameId([1; 16]),
                row: FinishedRow::Refused { why: "x".into() },
            }],
        };
        assert_eq!(
            hex::encode(refused.encode().unwrap()),
            format!("0a01{}010178", "01".repeat(16))
        );
        // Added after version 1 (issue 13): index 11, the id, a string.
        let elsewhere = ServerMessage::ServedElsewhere {
            game_id: GameId([2; 16]),
            address: "a:1".into(),
        };
        assert_eq!(
            hex::encode(elsewhere.encode().unwrap()),
            format!("0b{}03613a31", "02".repeat(16))
        );
        assert!(ServerMessage::ServedElsewhere {
            game_id: GameId([2; 16]),
            address: "a".repeat(MAX_ADDRESS_LEN + 1),
        }
        .encode()
        .is_err());
        // Added after version 1 (issue 25): Locate is index 10, Located
        // index 12 (the owner an enum: 1 OtherNode, strings, a varint).
        assert_eq!(
            hex(&ClientMessage::Locate {
                game_id: GameId([4; 16])
            }),
            format!("0a{}", "04".repeat(16))
        );
        let located = ServerMessage::Located {
            game_id: GameId([5; 16]),
            owner: GameOwner::OtherNode {
                node: "n".into(),
                address: "a:1".into(),
                lease_left_ms: 300,
            },
            nodes: vec!["b:2".into()],
        };
        assert_eq!(
            hex::encode(located.encode().unwrap()),
            format!("0c{}01016e03613a31ac020103623a32", "05".repeat(16))
        );
        assert_eq!(
            ServerMessage::decode(&located.encode().unwrap()).unwrap(),
            located
        );
        let too_many = ServerMessage::Located {
            game_id: GameId([5; 16]),
            owner: GameOwner::ThisNode,
            nodes: vec!["x".into(); MAX_LISTED_NODES + 1],
        };
        assert!(too_many.encode().is_err());
        assert_eq!(
            hex(&ClientMessage::Join {
                game_id: GameId([0xab; 16]),
                role: Role::Player(Side::B),
                resume_from: 0,
            }),
            format!("05{}000100", "ab".repeat(16))
        );
        assert_eq!(
            hex(&ClientMessage::Join {
                game_id: GameId([0xab; 16]),
                role: Role::Spectator,
                resume_from: 300,
            }),
            format!("05{}01ac02", "ab".repeat(16))
        );
        assert_eq!(
            hex(&ClientMessage::Game {
                game_id: GameId([0; 16]),
                payload: vec![9],
                more: false,
            }),
            format!("07{}010900", "00".repeat(16))
        );
        let shex = |m: &ServerMessage| hex::encode(m.encode().unwrap());
        assert_eq!(
            shex(&ServerMessage::Challenge {
                protocol_version: 1,
                challenge: [0x33; 32],
            }),
            format!("0001{}", "33".repeat(32))
        );
        assert_eq!(
            shex(&ServerMessage::error(ErrorCode::RateLimited, "x")),
            "02060178"
        );
        assert_eq!(
            shex(&ServerMessage::Games {
                games: vec![GameSummary {
                    game_id: GameId([1; 16]),
                    side_a_seated: true,
                    side_b_seated: false,
                    spectators: 2,
                    finished: false,
                }]
            }),
            format!("0501{}01000200", "01".repeat(16))
        );
        // Added after version 1 (issue 27 item 8): ListOpenGames is index
        // 12, OpenGames index 14; an old ListGames keeps its own answer.
        assert_eq!(hex(&ClientMessage::ListOpenGames), "0c");
        let listed = ServerMessage::OpenGames {
            games: vec![ListedGame {
                summary: GameSummary {
                    game_id: GameId([1; 16]),
                    side_a_seated: true,
                    side_b_seated: false,
                    spectators: 0,
                    finished: false,
                },
                scenario: "s".into(),
                ruleset: "r".into(),
                ruleset_version: 1,
                mode: "live".into(),
                sides: ["A".into(), "B".into()],
                keys: ["k".into(), String::new()],
                roster_names: [Some("n".into()), None],
                created_ms: Some(300),
                awaited: None,
            }],
        };
        assert_eq!(
            shex(&listed),
            format!(
                "0e01{}{}",
                "01".repeat(16),
                "010000000173017201046c69766501410142016b0001016e0001ac0200"
            )
        );
        assert_eq!(
            ServerMessage::decode(&listed.encode().unwrap()).unwrap(),
            listed
        );
        let ServerMessage::OpenGames { games } = &listed else {
            unreachable!()
        };
        let mut long = games[0].clone();
        long.scenario = "x".repeat(MAX_ERROR_MESSAGE_LEN + 1);
        assert!(ServerMessage::OpenGames { games: vec![long] }
            .encode()
            .is_err());
        // Added after those: ListOpenGamesNamed is index 13, OpenGamesNamed
        // index 15, a ListedGame followed by the two signed names; the two
        // older requests keep their answers.
        assert_eq!(hex(&ClientMessage::ListOpenGamesNamed), "0d");
        let named = ServerMessage::OpenGamesNamed {
            games: vec![NamedGame {
                listed: games[0].clone(),
                signed_names: [None, Some("Bob".into())],
            }],
        };
        assert_eq!(
            shex(&named),
            format!(
                "0f01{}{}{}",
                "01".repeat(16),
                "010000000173017201046c69766501410142016b0001016e0001ac0200",
                "000103426f62"
            )
        );
        assert_eq!(
            ServerMessage::decode(&named.encode().unwrap()).unwrap(),
            named
        );
        let long_name = ServerMessage::OpenGamesNamed {
            games: vec![NamedGame {
                listed: games[0].clone(),
                signed_names: [Some("x".repeat(MAX_ERROR_MESSAGE_LEN + 1)), None],
            }],
        };
        assert!(long_name.encode().is_err());
    }

    // Issue 27 item 8: a creation date in words, the same at both ends.
    #[test]
    fn issue27_item8_dates_are_utc_words() {
        assert_eq!(date_words(0), "1970-01-01 00:00 UTC");
        assert_eq!(date_words(1_795_000_000_000), "2026-11-18 11:06 UTC");
        assert_eq!(
            date_words(u64::MAX),
            "18446744073709551615 ms after 1970 (beyond the calendar)"
        );
    }

    #[test]
    fn game_messages_split_and_join() {
        let big: Vec<u8> = (0..(2 * MAX_PAYLOAD_LEN + 5)).map(|i| i as u8).collect();
        let parts = split_game_message(&big);
        assert_eq!(parts.len(), 3);
        assert_eq!(
            parts.iter().map(|(_, m)| *m).collect::<Vec<_>>(),
            [true, true, false]
        );
        let g = GameId([4; 16]);
        let mut a = GameAssembler::default();
        let mut whole = None;
        for (p, more) in parts {
            whole = a.push(g, p.to_vec(), more).unwrap();
        }
        assert_eq!(whole, Some((g, big)));
        assert_eq!(split_game_message(&[]), vec![(&[][..], false)]);
    }

    // G6: parts cannot be interleaved between games nor exceed the limit.
    #[test]
    fn game_message_parts_are_checked() {
        let mut a = GameAssembler::default();
        a.push(GameId([1; 16]), vec![1], true).unwrap();
        assert!(matches!(
            a.push(GameId([2; 16]), vec![2], false),
            Err(WireError::Interleaved { .. })
        ));
        // The open message was dropped; a new one starts clean.
        assert_eq!(
            a.push(GameId([2; 16]), vec![2], false).unwrap(),
            Some((GameId([2; 16]), vec![2]))
        );
        let part = vec![0u8; MAX_PAYLOAD_LEN];
        let mut result = Ok(None);
        for _ in 0..(MAX_GAME_MESSAGE_LEN / MAX_PAYLOAD_LEN + 1) {
            result = a.push(GameId([1; 16]), part.clone(), true);
            if result.is_err() {
                break;
            }
        }
        assert!(matches!(result, Err(WireError::GameMessageTooLong { .. })));
    }

    #[test]
    fn error_text_is_cut_to_limit() {
        let m = ServerMessage::error(ErrorCode::Internal, "é".repeat(MAX_ERROR_MESSAGE_LEN));
        let ServerMessage::Error { message, .. } = &m else {
            panic!("not an error")
        };
        assert!(message.len() <= MAX_ERROR_MESSAGE_LEN);
        assert!(m.encode().is_ok());
    }
}
