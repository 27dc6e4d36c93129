//! The seam between the network shell and the game: a sans-IO
//! [`GameSession`] (DESIGN section 2.1, 5).
//!
//! The shell owns sockets, timers and storage; a session owns the game's
//! state and rules. The shell calls the session with what happened (someone
//! joined, sent a payload, left, did not answer in time) and carries out the
//! [`Effect`]s it returns, strictly in order:
//!
//! - [`Effect::Append`] stores an event durably before anything after it is
//!   done; events are numbered 0, 1, 2, ... in the order emitted, and a
//!   restart hands them back to [`SessionFactory::restore`] in that order. So
//!   a session acknowledges an action by emitting its `Append` *before* the
//!   `Send` that acknowledges it (G6: nothing acknowledged is lost).
//! - [`Effect::Send`] delivers a payload to a recipient.
//! - [`Effect::Publish`] says the session's next public message is due to
//!   spectators; the shell holds it back by the configured spectator delay
//!   (until the game finishes: then the transcript is public and nothing
//!   is held back any more), then asks [`GameSession::public_message`] for
//!   its bytes only if a spectator is there to receive them. A spectator
//!   who joins late is sent the public messages the other spectators
//!   already have, from the same method.
//! - [`Effect::Resync`] sends a reconnecting player what it was shown
//!   ([`GameSession::resync`]).
//! - [`Effect::Finish`] stores the result and the transcript
//!   ([`GameSession::transcript`]) and marks the game finished.
//!
//! Once it has carried out a call's effects the shell calls
//! [`GameSession::settled`]: a session may then drop its log, which the
//! store holds, and the shell gives the stored events back to the methods
//! that read the game's past when the session answers `None` without them
//! (issue 16: no game's log in memory).
//!
//! Time: every call gets `now_ms`, the server's clock in milliseconds since
//! the Unix epoch. A session that needs to act on its own (a player who did
//! not answer within the answer timeout, G2) says when through
//! [`GameSession::next_deadline`]; the shell calls [`GameSession::tick`] at
//! that time (or later).
//!
//! If storing fails, the shell stops the game (its in-memory state may be
//! ahead of the log) and tells its connections; a restart rebuilds it from
//! the durable log.

use std::time::Duration;

use crate::wire::{GameId, PublicKey, Role, Side};

/// Identifies one client connection for the lifetime of the server process.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ConnectionId(pub u64);

/// Someone taking part in a game: a logged-in key on a connection, in a role.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Participant {
    /// The connection.
    pub connection: ConnectionId,
    /// The Ed25519 key the connection logged in with.
    pub key: PublicKey,
    /// The role asked for (join) or granted (later calls).
    pub role: Role,
}

/// Who receives a [`Effect::Send`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recipient {
    /// One connection (e.g. the one that just joined).
    Connection(ConnectionId),
    /// Whichever connection currently holds a side's seat (dropped if none).
    Player(Side),
    /// Both seated players.
    Players,
}

/// Something the shell must do for the session.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Effect {
    /// Store an event durably (next sequence number) before going on:
    /// nothing after it is carried out before it is durable (the shell
    /// commits appends in a row together).
    Append(Vec<u8>),
    /// Deliver a payload.
    Send {
        /// To whom.
        to: Recipient,
        /// Opaque bytes (at most [`crate::wire::MAX_GAME_MESSAGE_LEN`]; the
        /// shell splits long ones into frame-sized parts).
        payload: Vec<u8>,
    },
    /// The session's next public message is due to every spectator, after
    /// the spectator delay: message number `n`, where `n` counts the
    /// public messages before it ([`GameSession::public_len`] when the game
    /// task started, then one per `Publish`). Its bytes are asked of
    /// [`GameSession::public_message`] only when a spectator is there to
    /// receive them (issue 16: nothing is built while no one watches).
    Publish,
    /// Send `side`'s player on connection `to` what it was shown of every
    /// event from `from_seq` on ([`GameSession::resync`]), before anything
    /// after this effect (a reconnecting player's resync).
    Resync {
        /// The side whose view.
        side: Side,
        /// The first event wanted.
        from_seq: u64,
        /// The connection.
        to: ConnectionId,
    },
    /// The game ended: store the result and the transcript
    /// ([`GameSession::transcript`]), mark it finished.
    Finish {
        /// The result record.
        result: Vec<u8>,
    },
    /// Something for the operator's metrics ([`crate::metrics`]); no
    /// message, no storage, no change.
    Observe(Observation),
}

/// What a session tells the operator's metrics. Kinds are short words
/// (`act`, `open`, `entry`, ...) chosen by the session.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Observation {
    /// A player's entry of this kind was logged.
    Accepted {
        /// The entry's kind.
        kind: &'static str,
    },
    /// A player's entry of this kind was refused (nothing changed).
    Refused {
        /// The kind of entry submitted.
        kind: &'static str,
    },
    /// A party did not answer within the answer timeout and lost (G2).
    AnswerTimeout,
}

/// A session's refusal: the request changed nothing; the message is sent to
/// the requester as a [`crate::wire::ErrorCode::Rejected`] error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Rejection(pub String);

/// What the shell tells a factory about the game it makes or restores.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SessionContext {
    /// The game's id (random, 16 bytes).
    pub game_id: GameId,
    /// The server's clock, milliseconds since the Unix epoch.
    pub now_ms: u64,
    /// The per-game answer timeout configured on the server (G2).
    pub answer_timeout: Duration,
    /// The longest pad a new game may ask for (the server's `max_pad_len`;
    /// building a pad costs an HMAC and a hash per entry, G6).
    pub max_pad_len: u32,
}

/// A game's stored events from one seq on, each as appended: what a
/// session reads the past it released from ([`GameSession::settled`]).
/// The shell reads only the seqs a call can need, so nothing is held for
/// the events before.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredEvents {
    from: u64,
    events: Vec<Vec<u8>>,
}

impl StoredEvents {
    /// Events `from`, `from + 1`, ... in that order.
    pub fn new(from: u64, events: Vec<Vec<u8>>) -> StoredEvents {
        StoredEvents { from, events }
    }

    /// Event `seq`, if it was read.
    pub fn get(&self, seq: u64) -> Option<&[u8]> {
        let i = usize::try_from(seq.checked_sub(self.from)?).ok()?;
        self.events.get(i).map(Vec::as_slice)
    }
}

/// A game's state machine, owned by one task of the shell. Calls never block
/// and do no I/O.
pub trait GameSession: Send + 'static {
    /// A game's task starts: a newly created game, e.g. to append its
    /// genesis record, or an unfinished game restored at server start, e.g.
    /// to write what it still owed when the server stopped. Not called for
    /// a finished game reopened for a late joiner.
    fn start(&mut self, _now_ms: u64) -> Vec<Effect> {
        Vec::new()
    }

    /// A connection asks to join in `who.role`; `resume_from` is the first
    /// event sequence number it has not seen (0 for everything), so a
    /// reconnecting player can be sent what it missed. (A spectator's
    /// `resume_from` is the first public message it does not hold: the
    /// shell sends it only the public history from there, issue 31.) On
    /// success the shell routes [`Recipient::Player`] for that side (or
    /// spectator messages) to it, replacing any earlier connection in the
    /// seat. Deciding who may take a seat (e.g. only the key the scenario
    /// names) is the session's business.
    fn admit(
        &mut self,
        who: &Participant,
        resume_from: u64,
        now_ms: u64,
    ) -> Result<Vec<Effect>, Rejection>;

    /// How many public messages this session has published so far
    /// ([`Effect::Publish`]), including those published before a restart (a
    /// restored session counts them from its log), but not those whose
    /// `Publish` waits in the effects [`GameSession::start`] will return.
    fn public_len(&self) -> usize;

    /// The methods that read the game's past ([`GameSession::public_message`],
    /// [`GameSession::resync`], [`GameSession::transcript`]) take `stored`:
    /// stored events, each as appended ([`StoredEvents`]). The shell asks
    /// with none first and reads the store only if the session answers
    /// `None` (it no longer holds what it needs). It reads only what the
    /// call can need: from `from_seq` for a resync, from seq `index` for
    /// public message `index` (so that message must not need an event
    /// before it), from 0 for the transcript and a late spectator's
    /// history.
    ///
    /// Public message `index`, byte for byte as spectators are sent it
    /// (public view only, padded like every other message, G3): any index
    /// below [`GameSession::public_len`] or published in the effects the
    /// session has returned (the shell never asks for more; a session may
    /// answer `None` past that).
    ///
    /// This is the one way spectators get the game (DESIGN 5): the shell
    /// counts the public messages that have left its delay queue, sends
    /// the spectators present each one as it leaves, and sends a spectator
    /// who joins late every one that has left before, so nothing is sent
    /// twice or skipped. A message therefore never changes once published.
    fn public_message(&self, index: usize, stored: &StoredEvents) -> Option<Vec<u8>>;

    /// What `side` was shown of every event from `from_seq` on, for
    /// [`Effect::Resync`].
    fn resync(&self, side: Side, from_seq: u64, stored: &StoredEvents) -> Option<Vec<Vec<u8>>>;

    /// The game's transcript, for [`Effect::Finish`] (everything revealed).
    fn transcript(&self, stored: &StoredEvents) -> Option<Vec<u8>>;

    /// Everything the session has returned so far has been carried out
    /// (stored, sent), but the public messages from number `public_from`
    /// on, which still wait out the spectator delay: it may drop what it
    /// kept only to answer for the rest, and read it back from `stored`
    /// when asked again (issue 16: no game's log in memory; what the delay
    /// holds stays, so a spectator message never costs a store read).
    fn settled(&mut self, _public_from: usize) {}

    /// A seated player sent a payload. The shell itself refuses payloads
    /// from spectators and from connections that did not join.
    fn handle(
        &mut self,
        from: &Participant,
        payload: &[u8],
        now_ms: u64,
    ) -> Result<Vec<Effect>, Rejection>;

    /// A participant left or its connection closed.
    fn departed(&mut self, _who: &Participant, _now_ms: u64) -> Vec<Effect> {
        Vec::new()
    }

    /// When (Unix milliseconds) the session next needs [`GameSession::tick`],
    /// e.g. the answer deadline of the side it waits for (G2). Asked after
    /// every call.
    fn next_deadline(&self) -> Option<u64> {
        None
    }

    /// Who the game waits for now (`None` in the pair: the server
    /// itself) and on what, in words to follow "waiting for" (issue 27);
    /// `None` if the session does not say. Asked after every call.
    fn awaited(&self) -> Option<(Option<Side>, String)> {
        None
    }

    /// The display names the players' keys signed in their public setups,
    /// side A first (issue 27 item 8; `None` for a setup that names no
    /// one), once both setups are accepted; `None` before. Public (a setup
    /// is public); asked after every call until it answers.
    fn signed_names(&self) -> Option<[Option<String>; 2]> {
        None
    }

    /// Called at or after [`GameSession::next_deadline`].
    fn tick(&mut self, _now_ms: u64) -> Vec<Effect> {
        Vec::new()
    }
}

/// Makes sessions: new games from scenario bytes, and games rebuilt from
/// their stored log at restart.
pub trait SessionFactory: Send + Sync + 'static {
    /// A new game; the scenario is stored as the game's metadata.
    fn create(
        &self,
        ctx: &SessionContext,
        scenario: &[u8],
    ) -> Result<Box<dyn GameSession>, Rejection>;

    /// Rebuild an unfinished game from its scenario and its events in order
    /// (replaying them through the engine).
    fn restore(
        &self,
        ctx: &SessionContext,
        scenario: &[u8],
        events: &[Vec<u8>],
    ) -> Result<Box<dyn GameSession>, Rejection>;

    /// The secrets its games are sealed and signed with, as a league
    /// compares them across nodes (issue 25: a node without the league's
    /// secrets could open none of the others' games); `None` for sessions
    /// that have none (the default).
    fn league_secrets(&self) -> Option<crate::store::LeagueSecrets> {
        None
    }
}

/// The server's clock in milliseconds since the Unix epoch (0 if the clock
/// is before 1970).
pub fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
