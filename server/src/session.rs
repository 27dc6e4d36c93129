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
//! - [`Effect::Send`] delivers a payload to a recipient; messages to
//!   [`Recipient::Spectators`] are held back by the configured spectator delay.
//! - [`Effect::Finish`] stores the result and transcript and marks the game
//!   finished.
//!
//! If storing fails, the shell stops the game (its in-memory state may be
//! ahead of the log) and tells its connections; a restart rebuilds it from
//! the durable log.

use crate::wire::{GameId, PlayerKey, Role, Side};

/// Identifies one client connection for the lifetime of the server process.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ConnectionId(pub u64);

/// Someone taking part in a game: a logged-in key on a connection, in a role.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Participant {
    /// The connection.
    pub connection: ConnectionId,
    /// The Ed25519 key the connection logged in with.
    pub key: PlayerKey,
    /// The role asked for (join) or granted (later calls).
    pub role: Role,
}

/// Who receives a [`Effect::Send`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recipient {
    /// One connection (e.g. the one that just joined).
    Connection(ConnectionId),
    /// Whichever connection currently holds a seat (dropped if none).
    Player(Side),
    /// Both seated players.
    Players,
    /// Every spectator, after the spectator delay.
    Spectators,
}

/// Something the shell must do for the session.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Effect {
    /// Store an event durably (next sequence number) before going on.
    Append(Vec<u8>),
    /// Deliver a payload.
    Send {
        /// To whom.
        to: Recipient,
        /// Opaque bytes (at most [`crate::wire::MAX_PAYLOAD_LEN`]).
        payload: Vec<u8>,
    },
    /// The game ended: store result and transcript, mark it finished.
    Finish {
        /// The result record.
        result: Vec<u8>,
        /// The complete transcript (everything revealed).
        transcript: Vec<u8>,
    },
}

/// A session's refusal: the request changed nothing; the message is sent to
/// the requester as a [`crate::wire::ErrorCode::Rejected`] error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Rejection(pub String);

/// A game's state machine, owned by one task of the shell. Calls never block
/// and do no I/O.
pub trait GameSession: Send + 'static {
    /// A newly created game starts (not called on restore); e.g. to append
    /// its genesis record.
    fn start(&mut self) -> Vec<Effect> {
        Vec::new()
    }

    /// A connection asks to join in `who.role`. On success the shell routes
    /// [`Recipient::Player`] for that seat (or spectator messages) to it,
    /// replacing any earlier connection in the seat. Deciding who may take a
    /// seat (e.g. only the key the scenario names, or the same key again to
    /// resume) is the session's business.
    fn admit(&mut self, who: &Participant) -> Result<Vec<Effect>, Rejection>;

    /// A seated player sent a payload. The shell itself refuses payloads
    /// from spectators and from connections that did not join.
    fn handle(&mut self, from: &Participant, payload: &[u8]) -> Result<Vec<Effect>, Rejection>;

    /// A participant left or its connection closed.
    fn departed(&mut self, _who: &Participant) -> Vec<Effect> {
        Vec::new()
    }

    /// The seat whose answer the game is waiting for, if any. The shell times
    /// it with the per-game answer timeout (G2: refusal is attributed).
    fn awaiting(&self) -> Option<Side> {
        None
    }

    /// The awaited seat did not answer within the answer timeout.
    fn answer_timed_out(&mut self, _side: Side) -> Vec<Effect> {
        Vec::new()
    }
}

/// Makes sessions: new games from scenario bytes, and games rebuilt from
/// their stored log at restart.
pub trait SessionFactory: Send + Sync + 'static {
    /// A new game; the scenario is stored as the game's metadata.
    fn create(&self, game_id: GameId, scenario: &[u8]) -> Result<Box<dyn GameSession>, Rejection>;

    /// Rebuild an unfinished game from its scenario and its events in order
    /// (replaying them through the engine).
    fn restore(
        &self,
        game_id: GameId,
        scenario: &[u8],
        events: &[Vec<u8>],
    ) -> Result<Box<dyn GameSession>, Rejection>;
}
