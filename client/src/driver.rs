//! The game driver: one seat of a hexveil game (or a spectator) over a
//! logged-in QUIC connection (DESIGN 2.1, 5).
//!
//! This file holds the connection's reader and writer tasks (`Link`), the
//! following of a game to the node that serves it, the logged-in [`Client`]
//! (lobby requests, create, join, watch), the seat ([`RemotePlayer`]) and
//! the [`Spectator`].
//!
//! A [`RemotePlayer`] joins a seat with a protocol [`Player`], which keeps
//! the side's secrets. Every padded [`ToClient`] message the server sends is
//! decoded ([`decode_padded`]); every machine prompt (pad statement, setup,
//! openings, pad entries, transitions, reveal) is answered by the `Player`
//! at once, so neither the timing nor the size of an answer depends on what
//! the side hides (G3). What remains for the caller is to choose actions
//! ([`RemotePlayer::act`], [`RemotePlayer::concede`]) and to read what
//! happened ([`RemotePlayer::next_event`]).
//!
//! Reading and writing run in two background tasks per connection, so
//! [`RemotePlayer::next_event`] only waits on a channel: it may be raced
//! against another player's in `tokio::select!` without losing half a
//! frame. Every wait has a timeout ([`DEFAULT_WAIT`] unless set).
//!
//! Resuming ([`RemotePlayer::reconnect`]): the server re-sends every view
//! when a seat is re-admitted. Updates already seen are surfaced as
//! [`GameEvent::Replayed`] and not answered again (the `Player`'s state
//! moved on when it answered them); an entry that was sent but never
//! receipted is sent again if the log has not moved past it (G6).

use hexveil_net::rate::{RateLimit, TokenBucket};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use hexveil_core::Side;
use hexveil_net::frame::{read_frame, write_frame, FrameError};
use hexveil_net::new_game::NewGame;
use hexveil_net::tls::ServerTrust;
use hexveil_net::wire::{
    split_game_message, ClientMessage, ErrorCode, FinishedGame, GameAssembler, GameId, GameOwner,
    GameSummary, NamedGame, Role, ServerMessage, WireError, MAX_GAME_MESSAGE_LEN,
};
use hexveil_protocol::end_check::{PublicWitness, Unwatched};
use hexveil_protocol::envelope::{Receipt, SignedEnvelope};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::identity::PublicKey;
use hexveil_protocol::message::{
    decode_padded, encode, MessageError, Prompt, ToClient, ToServer, Update,
};
use hexveil_protocol::message::{EndRecord, Mode};
use hexveil_protocol::player::{Player, PlayerError, RefusedPrompt, Secrets};
use hexveil_protocol::reading::LogReading;
use hexveil_protocol::witness::{Breach, Checked, Seen, Witness};
use hexveil_view::names::visible;
use thiserror::Error;
use tokio::sync::mpsc;

use crate::net::{NetError, ServerConnection};

/// Largest transcript the driver fetches.
pub const MAX_TRANSCRIPT_LEN: u64 = 256 * 1024 * 1024;

/// How long any single wait of the driver lasts unless set otherwise.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(20);

/// The server name clients present (the self-signed certificate's name).
pub const SERVER_NAME: &str = "localhost";

/// Why the driver failed.
#[derive(Debug, Error)]
pub enum DriverError {
    /// Connecting or logging in failed.
    #[error(transparent)]
    Net(#[from] NetError),
    /// A transport message could not be encoded or decoded.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// A game message from the server does not decode.
    #[error("game message: {0}")]
    Message(#[from] MessageError),
    /// The protocol player could not be made or could not answer a prompt.
    #[error("player: {0}")]
    Player(#[from] PlayerError),
    /// The PKCS#8 key is not a valid Ed25519 key.
    #[error("key: {0}")]
    Key(String),
    /// Nothing arrived within the wait.
    #[error("nothing received from the server within {} s while waiting for {}", .0.as_secs(), .1)]
    Timeout(Duration, &'static str),
    /// The connection is closed (or its stream failed).
    #[error("connection lost: {0}")]
    Disconnected(String),
    /// The server refused a lobby request (its words shown only as
    /// `names::visible` lets them reach a terminal).
    #[error("the server refused: {}", visible(message))]
    Server {
        /// Its code.
        code: ErrorCode,
        /// Its message.
        message: String,
    },
    /// The server sent something out of place.
    #[error("unexpected message from the server: {0}")]
    Unexpected(String),
    /// The node stopped serving the game (issue 25): another node took it
    /// over, this one is shutting down, or its storage failed. `to` is
    /// where it said the game goes, if it knows; else any node of the
    /// league says where it is now ([`Client::locate`]).
    #[error("{}", match .to {
        Some(to) => format!("the node handed the game over to {}", visible(to)),
        None => format!("the node stopped serving the game ({})", visible(why)),
    })]
    Moved {
        /// The node it sent us to.
        to: Option<String>,
        /// What it said.
        why: String,
    },
    /// The log holds a commitment of this seat (its pad statement or its
    /// setup) that this player's secrets do not give: they are not the
    /// secrets the seat committed to. Nothing was sent.
    #[error("these secrets are not the ones side {side} committed to in this game: the {what} in the log (entry #{seq}) is not the one they give; nothing was sent")]
    NotTheseSecrets {
        /// The seat.
        side: Side,
        /// What the entry is, in words (`pad statement`, `setup`).
        what: String,
        /// The log entry.
        seq: u64,
    },
    /// The server sent what cannot be bound to the game's log: it showed
    /// two histories (a fork, with its proof), signed a view the log does
    /// not give, or sent an update without the signatures that bind it
    /// (issue 24). Nothing of it was shown or answered.
    #[error("{breach}")]
    Breach {
        /// What the server did.
        breach: Breach,
    },
    /// A spectator of a game whose ruleset or scenario this build cannot
    /// play: it cannot check the game's end against the log, so it shows
    /// nothing past the genesis (G5).
    #[error("{0}")]
    Unwatched(String),
}

impl From<Unwatched> for DriverError {
    fn from(e: Unwatched) -> DriverError {
        match e {
            Unwatched::Breach(breach) => DriverError::Breach { breach },
            e @ Unwatched::Ruleset(_) => DriverError::Unwatched(e.to_string()),
        }
    }
}

/// What the writer task sends.
enum Outgoing {
    /// One frame (the task adds the length prefix).
    Frame(Vec<u8>),
    /// Bytes as they are, unframed (tests use this to misbehave).
    Raw(Vec<u8>),
}

/// How fast the driver sends frames: 40 a second, bursts of 80, below the
/// server's default limit (`RateLimit::default()`: 50, bursts of 100), so a
/// fast bot never has a frame dropped. A server configured lower than this
/// drops frames beyond its own limit and says so.
pub const CLIENT_PACE: RateLimit = RateLimit {
    frames_per_second: NonZeroU32::new(40).expect("non-zero"),
    burst: NonZeroU32::new(80).expect("non-zero"),
};

/// How long the writer waits before trying again when it is ahead of
/// [`CLIENT_PACE`] (one frame's worth).
const CLIENT_PACE_STEP: Duration = Duration::from_millis(25);

/// How often a connection says it is alive with a `Ping` when it has sent
/// nothing else: well under the server's idle limit (`idle_timeout_secs`,
/// 600 s by default), after which a silent connection is closed to free
/// its slot (G6).
pub const PING_INTERVAL: Duration = Duration::from_secs(30);

/// How long a seat waits without a word from the server before it asks
/// again for the views after the last one it checked (`ToServer::Sync`):
/// an update lost on the way comes again. A server that withholds a
/// prompt every time can still time the player out, which no message
/// can disprove (PROTOCOL.md, "What a client must check").
pub const SILENCE_RESYNC: Duration = Duration::from_secs(60);

/// The nonce of the driver's own keep-alive pings; their pongs are not
/// surfaced.
const KEEPALIVE_NONCE: u64 = u64::MAX;

/// A logged-in connection split into a reader and a writer task.
struct Link {
    endpoint: quinn::Endpoint,
    conn: quinn::Connection,
    incoming: mpsc::UnboundedReceiver<Result<Vec<u8>, String>>,
    outgoing: mpsc::UnboundedSender<Outgoing>,
    assembler: GameAssembler,
    /// Length of every frame received, in order, since last taken.
    traffic: Vec<usize>,
}

impl Link {
    fn start(conn: ServerConnection, pace: RateLimit) -> Link {
        let ServerConnection {
            endpoint,
            conn,
            mut send,
            mut recv,
            limits,
            ..
        } = conn;
        let (in_tx, incoming) = mpsc::unbounded_channel();
        let (outgoing, mut out_rx) = mpsc::unbounded_channel::<Outgoing>();
        tokio::spawn(async move {
            loop {
                match read_frame(&mut recv, &limits).await {
                    Ok(Some(frame)) => {
                        if in_tx.send(Ok(frame)).is_err() {
                            return;
                        }
                    }
                    Ok(None) => {
                        let _ = in_tx.send(Err("the server finished the stream".into()));
                        return;
                    }
                    // Idle only means a quiet server; the stream is usable.
                    Err(FrameError::Idle(_)) => {}
                    Err(e) => {
                        let _ = in_tx.send(Err(e.to_string()));
                        return;
                    }
                }
            }
        });
        tokio::spawn(async move {
            let mut pace = TokenBucket::new(pace, std::time::Instant::now());
            let keepalive = ClientMessage::Ping {
                nonce: KEEPALIVE_NONCE,
            }
            .encode()
            .expect("a ping encodes");
            loop {
                let out = match tokio::time::timeout(PING_INTERVAL, out_rx.recv()).await {
                    Ok(Some(out)) => out,
                    Ok(None) => break,
                    // Nothing sent for a while: say we are alive.
                    Err(_) => Outgoing::Frame(keepalive.clone()),
                };
                let ok = match out {
                    Outgoing::Frame(bytes) => {
                        // Below the server's limit: a frame waits for its
                        // turn instead of being dropped (a dropped machine
                        // answer would cost the game by timeout, G2).
                        while pace.try_take(std::time::Instant::now()).is_err() {
                            tokio::time::sleep(CLIENT_PACE_STEP).await;
                        }
                        write_frame(&mut send, &bytes, &limits).await.is_ok()
                    }
                    Outgoing::Raw(bytes) => send.write_all(&bytes).await.is_ok(),
                };
                if !ok {
                    return;
                }
            }
            let _ = send.finish();
        });
        Link {
            endpoint,
            conn,
            incoming,
            outgoing,
            assembler: GameAssembler::default(),
            traffic: Vec::new(),
        }
    }

    fn send(&self, msg: &ClientMessage) -> Result<(), DriverError> {
        self.push(Outgoing::Frame(msg.encode()?))
    }

    /// Sends a game message, split into parts that fit a frame.
    fn send_game(&self, game_id: GameId, message: &[u8]) -> Result<(), DriverError> {
        if message.len() > MAX_GAME_MESSAGE_LEN {
            return Err(DriverError::Wire(WireError::GameMessageTooLong {
                len: message.len(),
                max: MAX_GAME_MESSAGE_LEN,
            }));
        }
        for (part, more) in split_game_message(message) {
            self.send(&ClientMessage::Game {
                game_id,
                payload: part.to_vec(),
                more,
            })?;
        }
        Ok(())
    }

    fn push(&self, out: Outgoing) -> Result<(), DriverError> {
        self.outgoing
            .send(out)
            .map_err(|_| DriverError::Disconnected("the writer stopped".into()))
    }

    async fn recv_frame(
        &mut self,
        wait: Duration,
        what: &'static str,
    ) -> Result<Vec<u8>, DriverError> {
        match tokio::time::timeout(wait, self.incoming.recv()).await {
            Err(_) => Err(DriverError::Timeout(wait, what)),
            Ok(None) => Err(DriverError::Disconnected("the reader stopped".into())),
            Ok(Some(Err(e))) => Err(DriverError::Disconnected(e)),
            Ok(Some(Ok(frame))) => Ok(frame),
        }
    }

    /// The next whole message: game messages split over several frames
    /// are put together. Each frame waits at most `wait`.
    async fn recv(
        &mut self,
        wait: Duration,
        what: &'static str,
    ) -> Result<ServerMessage, DriverError> {
        loop {
            let frame = self.recv_frame(wait, what).await?;
            let message = ServerMessage::decode(&frame)?;
            if message
                == (ServerMessage::Pong {
                    nonce: KEEPALIVE_NONCE,
                })
            {
                continue;
            }
            // G3 tests compare the game's own frames; presence (issue 27)
            // is the server's word on connections and deadlines, sent when
            // they change, at times a connection sets, not the game.
            if !matches!(message, ServerMessage::Presence { .. }) {
                self.traffic.push(frame.len());
            }
            match message {
                ServerMessage::Game {
                    game_id,
                    payload,
                    more,
                } => {
                    if let Some((game_id, payload)) = self.assembler.push(game_id, payload, more)? {
                        return Ok(ServerMessage::Game {
                            game_id,
                            payload,
                            more: false,
                        });
                    }
                }
                other => return Ok(other),
            }
        }
    }

    /// Fetches a finished game's transcript, waiting (at most `wait`) for
    /// the server to store it: the last update of a game can reach a seat
    /// just before the server has written the file ([`ErrorCode::NotFinished`]).
    /// Other messages that arrive meanwhile are returned, in order.
    async fn fetch_finished_transcript(
        &mut self,
        game_id: GameId,
        wait: Duration,
    ) -> Result<(Vec<u8>, Vec<ServerMessage>), DriverError> {
        const RETRY: Duration = Duration::from_millis(50);
        let mut others = Vec::new();
        let mut waited = Duration::ZERO;
        loop {
            match self.fetch_transcript(game_id, wait, &mut others).await {
                Ok(file) => return Ok((file, others)),
                Err(DriverError::Server {
                    code: ErrorCode::NotFinished,
                    ..
                }) if waited < wait => {
                    tokio::time::sleep(RETRY).await;
                    waited += RETRY;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Fetches a finished game's transcript in chunks; other messages that
    /// arrive meanwhile go to `others`, in order.
    async fn fetch_transcript(
        &mut self,
        game_id: GameId,
        wait: Duration,
        others: &mut Vec<ServerMessage>,
    ) -> Result<Vec<u8>, DriverError> {
        let mut file = Vec::new();
        loop {
            self.send(&ClientMessage::FetchTranscript {
                game_id,
                offset: file.len() as u64,
            })?;
            loop {
                match self.recv(wait, "a transcript chunk").await? {
                    ServerMessage::TranscriptChunk {
                        game_id: g,
                        offset,
                        total_len,
                        bytes,
                    } if g == game_id && offset == file.len() as u64 => {
                        if total_len > MAX_TRANSCRIPT_LEN {
                            return Err(DriverError::Unexpected(format!(
                                "a transcript of {total_len} bytes is over the limit"
                            )));
                        }
                        let done = bytes.is_empty();
                        file.extend_from_slice(&bytes);
                        if file.len() as u64 >= total_len {
                            return Ok(file);
                        }
                        if done {
                            return Err(DriverError::Unexpected(
                                "an empty transcript chunk before the end".into(),
                            ));
                        }
                        break;
                    }
                    e @ ServerMessage::Error { .. } => return Err(refused(e)),
                    other => others.push(other),
                }
            }
        }
    }

    fn close(&self) {
        self.conn.close(0u32.into(), b"bye");
        self.endpoint.close(0u32.into(), b"bye");
    }

    /// Closes the connection and waits (briefly) until the server has been
    /// told, so it frees the seat at once rather than at its idle timeout.
    async fn close_and_wait(self) {
        self.close();
        let _ = tokio::time::timeout(CLOSE_WAIT, self.endpoint.wait_idle()).await;
    }
}

/// How long closing waits for the close to reach the server.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

impl Drop for Link {
    fn drop(&mut self) {
        self.close();
    }
}

/// How to reach a server and log in (kept to reconnect).
#[derive(Clone, Debug)]
struct Access {
    addr: SocketAddr,
    trust: ServerTrust,
    key_pkcs8: Vec<u8>,
    /// How fast the writer sends frames ([`CLIENT_PACE`] unless set).
    pace: RateLimit,
}

/// Most nodes one join follows ([`ServerMessage::ServedElsewhere`]) before
/// it gives up: the lease moves at most once a lease period, so more hops
/// mean the nodes disagree.
const MAX_HOPS: u32 = 4;

/// How long connecting to a node the server sent us to may take: a node
/// that does not answer within this is looked for elsewhere.
pub const FOLLOW_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

impl Access {
    /// Follows a [`ServerMessage::ServedElsewhere`] to `address`: the node
    /// serving the game, checked by the same trust (one league certificate,
    /// or one of its listed fingerprints), then logs in there. Counts the
    /// hop in `hops`.
    async fn follow(&mut self, address: &str, hops: &mut u32) -> Result<Link, DriverError> {
        *hops += 1;
        if *hops > MAX_HOPS {
            return Err(DriverError::Unexpected(format!(
                "sent from node to node more than {MAX_HOPS} times (last to {address})"
            )));
        }
        let addr = tokio::net::lookup_host(address)
            .await
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| {
                DriverError::Unexpected(format!(
                    "the server sent us to {address}, which does not resolve"
                ))
            })?;
        self.addr = addr;
        self.login_within(FOLLOW_CONNECT_TIMEOUT).await
    }

    async fn login(&self) -> Result<Link, DriverError> {
        self.login_within(crate::net::CONNECT_TIMEOUT).await
    }

    async fn login_within(&self, within: Duration) -> Result<Link, DriverError> {
        let conn = ServerConnection::connect_within(
            self.addr,
            SERVER_NAME,
            &self.trust,
            &self.key_pkcs8,
            within,
        )
        .await?;
        Ok(Link::start(conn, self.pace))
    }
}

/// Where a game is served, as a node answers [`Client::locate`] (issue 25).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Who serves it.
    pub owner: GameOwner,
    /// The league's live nodes' addresses.
    pub nodes: Vec<String>,
}

/// The error of a message that says a seat's or spectator's node stopped
/// serving `game` (issue 25): a `ServedElsewhere` for it, sent while it is
/// played, or an `Internal` error (the game stopped there).
fn moved_off(msg: &ServerMessage, game: GameId) -> Option<DriverError> {
    match msg {
        ServerMessage::ServedElsewhere { game_id, address } if *game_id == game => {
            Some(DriverError::Moved {
                to: Some(address.clone()),
                why: "it is served elsewhere now".into(),
            })
        }
        ServerMessage::Error {
            code: ErrorCode::Internal,
            message,
        } => Some(DriverError::Moved {
            to: None,
            why: message.clone(),
        }),
        _ => None,
    }
}

/// A logged-in connection in the lobby: create games, then join one as a
/// player ([`Client::join`]) or as a spectator ([`Client::watch`]).
pub struct Client {
    link: Link,
    access: Access,
    wait: Duration,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("addr", &self.access.addr)
            .finish_non_exhaustive()
    }
}

/// What a player needs to take a seat: the scenario text, its secrets (the
/// side is theirs) and the pad length of the server's games.
#[derive(Clone, Debug)]
pub struct SeatSetup {
    /// The ruleset the player set up for; a game under another is refused
    /// before anything is committed.
    pub ruleset: std::sync::Arc<dyn hexveil_core::Ruleset>,
    /// The scenario TOML the game was created from.
    pub scenario_toml: String,
    /// The player's secrets (setups, seeds, standing orders).
    pub secrets: Secrets,
    /// Entries per pad epoch, as the server's genesis names it
    /// (`hexveil_protocol::pad::DEFAULT_PAD_LEN` for the stock server).
    pub pad_len: u32,
    /// The mode the player agrees to: Escrow gives the server its secrets
    /// (DESIGN 3.6); a game of the other mode is refused before anything
    /// is committed.
    pub mode: Mode,
}

impl Client {
    /// Connects to `addr`, checks the server by `trust` and logs in with the
    /// Ed25519 PKCS#8 key.
    pub async fn connect(
        addr: SocketAddr,
        trust: ServerTrust,
        key_pkcs8: &[u8],
    ) -> Result<Client, DriverError> {
        Client::connect_paced(addr, trust, key_pkcs8, CLIENT_PACE).await
    }

    /// As [`Client::connect`], giving up after `within` (a node that does
    /// not answer is looked for elsewhere: issue 25).
    pub async fn connect_within(
        addr: SocketAddr,
        trust: ServerTrust,
        key_pkcs8: &[u8],
        within: Duration,
    ) -> Result<Client, DriverError> {
        let access = Access {
            addr,
            trust,
            key_pkcs8: key_pkcs8.to_vec(),
            pace: CLIENT_PACE,
        };
        let link = access.login_within(within).await?;
        Ok(Client {
            link,
            access,
            wait: DEFAULT_WAIT,
        })
    }

    /// The address this client is connected to.
    pub fn addr(&self) -> SocketAddr {
        self.access.addr
    }

    /// Asks this node where `game_id` is served and which nodes the league
    /// has (issue 25), waiting at most `wait`. A server that predates the
    /// question says `Malformed` ([`DriverError::Server`]).
    pub async fn locate(
        &mut self,
        game_id: GameId,
        wait: Duration,
    ) -> Result<Location, DriverError> {
        self.send(&ClientMessage::Locate { game_id })?;
        loop {
            match self.link.recv(wait, "where the game is").await? {
                ServerMessage::Located {
                    game_id: g,
                    owner,
                    nodes,
                } if g == game_id => return Ok(Location { owner, nodes }),
                e @ ServerMessage::Error { .. } => return Err(refused(e)),
                // A pong of the keep-alive, or anything late: not the answer.
                _ => {}
            }
        }
    }

    /// As [`Client::connect`], sending frames at most as fast as `pace`
    /// instead of [`CLIENT_PACE`] (kept by every seat or spectator made
    /// from this client, and on a reconnect). A load tool raises it
    /// together with the server's `--rate-per-second` so that the bots,
    /// not the pace, are what it measures; a server whose limit is below
    /// `pace` drops the frames beyond it and says so.
    pub async fn connect_paced(
        addr: SocketAddr,
        trust: ServerTrust,
        key_pkcs8: &[u8],
        pace: RateLimit,
    ) -> Result<Client, DriverError> {
        let access = Access {
            addr,
            trust,
            key_pkcs8: key_pkcs8.to_vec(),
            pace,
        };
        let link = access.login().await?;
        Ok(Client {
            link,
            access,
            wait: DEFAULT_WAIT,
        })
    }

    /// Sets how long each wait lasts.
    pub fn set_wait(&mut self, wait: Duration) {
        self.wait = wait;
    }

    /// Sends any transport message.
    pub fn send(&self, msg: &ClientMessage) -> Result<(), DriverError> {
        self.link.send(msg)
    }

    /// Sends bytes as they are, outside any frame (to misbehave in tests).
    pub fn send_raw_bytes(&self, bytes: Vec<u8>) -> Result<(), DriverError> {
        self.link.push(Outgoing::Raw(bytes))
    }

    /// Sends a whole game message to `game_id` (up to 8 MiB), in parts
    /// that fit a frame.
    pub fn send_game(&self, game_id: GameId, message: &[u8]) -> Result<(), DriverError> {
        self.link.send_game(game_id, message)
    }

    /// Fetches a finished game's transcript file (anyone may, DESIGN 5),
    /// waiting for the server to store it; other messages that arrive
    /// meanwhile are dropped.
    pub async fn fetch_transcript(&mut self, game_id: GameId) -> Result<Vec<u8>, DriverError> {
        let (file, _) = self
            .link
            .fetch_finished_transcript(game_id, self.wait)
            .await?;
        Ok(file)
    }

    /// Receives the next transport message.
    pub async fn recv(&mut self) -> Result<ServerMessage, DriverError> {
        self.link.recv(self.wait, "a server message").await
    }

    /// The public key this client logs in (and signs) with.
    pub fn public_key(&self) -> Result<PublicKey, DriverError> {
        Identity::from_pkcs8(&self.access.key_pkcs8)
            .map(|i| i.public_key())
            .map_err(|e| DriverError::Key(e.to_string()))
    }

    /// Creates the game `request` describes (scenario, both players' keys,
    /// Live or Escrow mode, pad length, answer timeout); returns its id once
    /// it is stored.
    pub async fn create_game(&mut self, request: &NewGame) -> Result<GameId, DriverError> {
        self.send(&ClientMessage::CreateGame {
            scenario: request.encode(),
        })?;
        match self.recv().await? {
            ServerMessage::GameCreated { game_id } => Ok(game_id),
            other => Err(refused(other)),
        }
    }

    /// Takes the seat of `setup.secrets.side` in `game_id` and catches up
    /// with the game so far: the server re-sends every view, each is fed to
    /// the new [`Player`] (so its layouts and notes follow the log) and
    /// queued for [`RemotePlayer::next_event`], but only the last view's
    /// prompt is current, so only its machine answer is sent (a seat taken
    /// again with the same secrets answers no old prompt, G6).
    pub async fn join(
        self,
        game_id: GameId,
        setup: SeatSetup,
    ) -> Result<RemotePlayer, DriverError> {
        let identity = Identity::from_pkcs8(&self.access.key_pkcs8)
            .map_err(|e| DriverError::Key(e.to_string()))?;
        let player = Player::new(
            identity,
            game_id,
            setup.ruleset.as_ref(),
            &setup.scenario_toml,
            setup.pad_len,
            setup.mode,
            setup.secrets,
        )?;
        let mut seat = RemotePlayer {
            link: self.link,
            access: self.access,
            wait: self.wait,
            game_id,
            player,
            auto: true,
            last_seq: None,
            last_update: None,
            unacked: None,
            withheld: None,
            catch_up: None,
            queue: VecDeque::new(),
            receipts: Vec::new(),
            transcript: None,
            closed: false,
            end: None,
        };
        if let Err(e) = seat.take_seat().await {
            // Leave the seat free at once, not at the server's idle
            // timeout (e.g. secrets that are not this seat's).
            seat.link.close_and_wait().await;
            return Err(e);
        }
        Ok(seat)
    }

    /// The games on the server.
    pub async fn list_games(&mut self) -> Result<Vec<GameSummary>, DriverError> {
        self.send(&ClientMessage::ListGames)?;
        match self.recv().await? {
            ServerMessage::Games { games } => Ok(games),
            other => Err(refused(other)),
        }
    }

    /// The open games with what each is, who holds it, when it was created
    /// and who it waits for (issue 27 item 8); `None` from a server that
    /// predates [`ClientMessage::ListOpenGames`] (it answers `Malformed`):
    /// ask [`Client::list_games`] then.
    /// With the names the players' keys signed, from a server that has
    /// [`ClientMessage::ListOpenGamesNamed`]; an older server's list has
    /// none (`signed_names` `None`).
    pub async fn list_open_games(&mut self) -> Result<Option<Vec<NamedGame>>, DriverError> {
        self.send(&ClientMessage::ListOpenGamesNamed)?;
        match self.recv().await? {
            ServerMessage::OpenGamesNamed { games } => return Ok(Some(games)),
            ServerMessage::Error {
                code: ErrorCode::Malformed,
                ..
            } => {}
            other => return Err(refused(other)),
        }
        self.send(&ClientMessage::ListOpenGames)?;
        match self.recv().await? {
            ServerMessage::OpenGames { games } => Ok(Some(
                games
                    .into_iter()
                    .map(|listed| NamedGame {
                        listed,
                        signed_names: [None, None],
                    })
                    .collect(),
            )),
            ServerMessage::Error {
                code: ErrorCode::Malformed,
                ..
            } => Ok(None),
            other => Err(refused(other)),
        }
    }

    /// The server's finished games with their league rows (at most
    /// `limit`, the server caps it at 100), the most recently created
    /// first. A server too old to list them says `Malformed`: that is
    /// reported as [`DriverError::Server`] with words saying so.
    pub async fn list_finished(&mut self, limit: u32) -> Result<Vec<FinishedGame>, DriverError> {
        self.send(&ClientMessage::ListFinished { limit })?;
        match self.recv().await? {
            ServerMessage::FinishedGames { games } => Ok(games),
            ServerMessage::Error {
                code: ErrorCode::Malformed,
                message,
            } => Err(DriverError::Server {
                code: ErrorCode::Malformed,
                message: format!(
                    "this server does not list finished games (it predates ListFinished): {message}"
                ),
            }),
            other => Err(refused(other)),
        }
    }

    /// Joins `game_id` as a spectator (public view only).
    pub async fn watch(mut self, game_id: GameId) -> Result<Spectator, DriverError> {
        self.join_as_spectator(game_id).await?;
        // Who the game waits for (issue 27); a server that predates it
        // answers Malformed, shown and ignored.
        self.send(&ClientMessage::WatchPresence { game_id })?;
        Ok(Spectator {
            addr: self.access.addr,
            link: self.link,
            wait: self.wait,
            game_id,
            public: PublicWitness::new(game_id, hexveil_rulesets::all()),
            reading: LogReading::new(),
            transcript: None,
            last_seq: None,
            closed: false,
            queue: VecDeque::new(),
        })
    }

    /// Joins `game_id` as a spectator, following the node that serves it;
    /// returns how many game messages re-send the past (`Joined.resync`).
    async fn join_as_spectator(&mut self, game_id: GameId) -> Result<u32, DriverError> {
        let mut hops = 0;
        loop {
            self.send(&ClientMessage::Join {
                game_id,
                role: Role::Spectator,
                resume_from: 0,
            })?;
            match self.recv().await? {
                ServerMessage::Joined { resync, .. } => return Ok(resync),
                // Another node of the league serves the game (issue 13).
                ServerMessage::ServedElsewhere {
                    game_id: g,
                    address,
                } if g == game_id => {
                    self.link = self.access.follow(&address, &mut hops).await?;
                }
                other => return Err(refused(other)),
            }
        }
    }

    /// The public history of `game_id` as a spectator reads it, each entry
    /// checked against the head chain (issue 24), then leaves the game:
    /// the connection stays logged in and may take a seat next. What a
    /// client reads here before it joins: the genesis (the scenario, the
    /// keys of the seats, the mode) and each seat's commitments (issue 27
    /// items 3 and 6). Entries the server holds back for the spectator
    /// delay are not in it.
    pub async fn history(&mut self, game_id: GameId) -> Result<Vec<Checked>, DriverError> {
        let resync = self.join_as_spectator(game_id).await?;
        let mut public = PublicWitness::new(game_id, hexveil_rulesets::all());
        let mut history = Vec::new();
        let mut past = 0;
        while past < resync {
            let m = self.link.recv(self.wait, "the game's history").await?;
            let ServerMessage::Game {
                game_id: g,
                payload,
                ..
            } = m
            else {
                continue;
            };
            if g != game_id {
                continue;
            }
            past += 1;
            if let ToClient::Update(raw) = decode_padded(&payload)? {
                match public.check(&raw)? {
                    Seen::New(new) => history.extend(new),
                    Seen::Held { .. } | Seen::Again(_) => {}
                }
            }
        }
        // Leave, and drop what the game sent meanwhile.
        self.send(&ClientMessage::Leave { game_id })?;
        loop {
            match self.link.recv(self.wait, "the game's leave").await? {
                ServerMessage::Left { game_id: g } if g == game_id => break,
                e @ ServerMessage::Error { .. } => return Err(refused(e)),
                _ => {}
            }
        }
        Ok(history)
    }

    /// Closes the connection; returns once the server has been told (or
    /// after a short wait), so it frees the seat at once.
    pub async fn close(self) {
        self.link.close_and_wait().await;
    }
}

/// A transport message as a seat or a spectator of one game takes it.
enum Incoming {
    /// One of the game's own messages, decoded.
    Game(ToClient),
    /// Anything else, as an event by itself.
    Event(GameEvent),
}

impl Incoming {
    fn of(msg: ServerMessage, game: GameId) -> Result<Incoming, DriverError> {
        Ok(match msg {
            ServerMessage::Game {
                game_id, payload, ..
            } if game_id == game => Incoming::Game(decode_padded(&payload)?),
            ServerMessage::Error { code, message } => {
                Incoming::Event(GameEvent::ServerError { code, message })
            }
            ServerMessage::Left { game_id } if game_id == game => Incoming::Event(GameEvent::Left),
            ServerMessage::Pong { nonce } => Incoming::Event(GameEvent::Pong(nonce)),
            ServerMessage::Presence { game_id, presence } if game_id == game => {
                Incoming::Event(GameEvent::Presence(presence))
            }
            other => Incoming::Event(GameEvent::Other(format!("{other:?}"))),
        })
    }
}

fn refused(msg: ServerMessage) -> DriverError {
    match msg {
        ServerMessage::Error { code, message } => DriverError::Server { code, message },
        other => DriverError::Unexpected(format!("{other:?}")),
    }
}

/// Something that happened in a game, as one seat sees it.
#[derive(Clone, Debug)]
pub enum GameEvent {
    /// A new log entry (its machine prompt, if any, is already answered
    /// unless answering is held: [`RemotePlayer::set_auto_answer`]). Of the
    /// views re-sent when a seat is taken only the last is current: it is
    /// the one whose seq is [`RemotePlayer::last_seq`] once they are queued.
    Update(Update),
    /// An entry seen before, sent again on a resume; not answered again.
    Replayed(Update),
    /// One of our entries is durable.
    Receipt(Receipt),
    /// A player's entry without a receipt (message version 6), checked
    /// but for its place: nothing of it is shown until the next update,
    /// the server's entry on the head after it, places it; both come then
    /// as [`GameEvent::Update`]s, in order.
    Held {
        /// Its seq.
        seq: u64,
    },
    /// One of our entries was refused; nothing changed. The refusal is
    /// signed by the server and bound to the entry's hash: the player's
    /// proof of what the server answered (G5).
    Rejected(hexveil_protocol::envelope::Refusal),
    /// The server asked this seat for something the rules cannot ask now
    /// (openings of facts no rule needs, pad entries for a roll no action
    /// reached, a reveal before the end): nothing was released, and the
    /// server's signed prompt is the evidence (issue 24). Follows the
    /// [`GameEvent::Update`] that carried the prompt.
    PromptRefused(RefusedPrompt),
    /// The game is over: the full transcript file.
    Transcript(Vec<u8>),
    /// The transport refused a request (e.g. a spectator acting, a rate
    /// limit, a session rejection of a malformed payload).
    ServerError {
        /// Its code.
        code: ErrorCode,
        /// Its message.
        message: String,
    },
    /// The server removed this connection from the game (e.g. the seat was
    /// taken over by a newer connection of the same key).
    Left,
    /// The answer to a ping.
    Pong(u64),
    /// Who is connected and who the game waits for, until when: the
    /// server's word, unsigned (issue 27; [`crate::presence::wait_line`]).
    Presence(hexveil_net::wire::Presence),
    /// Any other message, in words (e.g. a message of another game).
    Other(String),
}

/// One seat of a game over QUIC: a logged-in connection and the side's
/// protocol [`Player`].
pub struct RemotePlayer {
    link: Link,
    access: Access,
    wait: Duration,
    game_id: GameId,
    player: Player,
    auto: bool,
    last_seq: Option<u64>,
    last_update: Option<Update>,
    /// Our last entry sent and not yet receipted (sent again on a resume).
    unacked: Option<SignedEnvelope>,
    /// An answer computed but held back (answering held).
    withheld: Option<SignedEnvelope>,
    /// While the views re-sent on taking the seat are replayed: the answer
    /// to the latest one (only the last view's prompt is current).
    catch_up: Option<Option<SignedEnvelope>>,
    queue: VecDeque<GameEvent>,
    receipts: Vec<Receipt>,
    transcript: Option<Vec<u8>>,
    /// Whether an update said the log is closed (the server has the
    /// transcript).
    closed: bool,
    /// The game's result, once the end entry is seen.
    end: Option<EndRecord>,
}

impl std::fmt::Debug for RemotePlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemotePlayer")
            .field("game_id", &self.game_id)
            .field("side", &self.player.side())
            .field("last_seq", &self.last_seq)
            .finish_non_exhaustive()
    }
}

impl RemotePlayer {
    /// The side played.
    pub fn side(&self) -> Side {
        self.player.side()
    }

    /// The game.
    pub fn game_id(&self) -> GameId {
        self.game_id
    }

    /// The protocol player (e.g. [`Player::sign`] to misbehave on purpose).
    pub fn player_mut(&mut self) -> &mut Player {
        &mut self.player
    }

    /// The protocol player: its checked log ([`Player::witness`]).
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// The last new update seen.
    pub fn last_update(&self) -> Option<&Update> {
        self.last_update.as_ref()
    }

    /// The seq of the last new update seen.
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }

    /// Every receipt received, in order.
    pub fn receipts(&self) -> &[Receipt] {
        &self.receipts
    }

    /// The transcript, once the game is over.
    pub fn transcript(&self) -> Option<&[u8]> {
        self.transcript.as_deref()
    }

    /// Whether the log is closed: the game ended and every side revealed
    /// (or did not in time), so the server has the transcript
    /// ([`RemotePlayer::fetch_transcript`]). The server says so on the
    /// update of the closing entry (`Update.closed`).
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The game's result (winner and reason), once its end entry is seen.
    pub fn end(&self) -> Option<&EndRecord> {
        self.end.as_ref()
    }

    /// How many events are received and acted on but not yet handed out by
    /// [`RemotePlayer::next_event`] (e.g. the views re-sent on a join).
    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// Fetches the finished game's transcript file from the server (and
    /// keeps it: [`RemotePlayer::transcript`]). Game messages that arrive
    /// meanwhile are acted on and queued for [`RemotePlayer::next_event`].
    pub async fn fetch_transcript(&mut self) -> Result<Vec<u8>, DriverError> {
        let (file, others) = self
            .link
            .fetch_finished_transcript(self.game_id, self.wait)
            .await?;
        for m in others {
            self.on_message(m)?;
        }
        self.transcript = Some(file.clone());
        Ok(file)
    }

    /// Whether the referee's last prompt asks this side for an action. (In
    /// the Defensive Fire Phase the referee prompts the phasing side, but
    /// only the defender may end it, A3.5: ask `turn::phase_allows`.)
    pub fn may_act(&self) -> bool {
        self.last_update
            .as_ref()
            .is_some_and(|u| u.prompt == Prompt::Act)
    }

    /// Sets how long each wait lasts.
    pub fn set_wait(&mut self, wait: Duration) {
        self.wait = wait;
    }

    /// Answer machine prompts at once (the default), or hold each answer
    /// back ([`RemotePlayer::withheld`]) until released: tests use this to
    /// stall, to tamper, or to stop the world between two entries.
    pub fn set_auto_answer(&mut self, auto: bool) {
        self.auto = auto;
    }

    /// The answer held back, if any.
    pub fn withheld(&self) -> Option<&SignedEnvelope> {
        self.withheld.as_ref()
    }

    /// Takes the answer held back, without sending it.
    pub fn take_withheld(&mut self) -> Option<SignedEnvelope> {
        self.withheld.take()
    }

    /// Sends the answer held back, if any; true if one was sent.
    pub fn release_withheld(&mut self) -> Result<bool, DriverError> {
        match self.withheld.take() {
            Some(env) => {
                self.send_entry(env)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Declares an action (signed on top of the last head seen).
    pub fn act(&mut self, action: impl Into<Vec<u8>>) -> Result<SignedEnvelope, DriverError> {
        let env = self.player.act(action)?;
        self.send_entry(env.clone())?;
        Ok(env)
    }

    /// Concedes the game.
    pub fn concede(&mut self) -> Result<SignedEnvelope, DriverError> {
        let env = self.player.concede();
        self.send_entry(env.clone())?;
        Ok(env)
    }

    /// A machine answer: sent at once, or held back
    /// ([`RemotePlayer::set_auto_answer`]).
    fn answer(&mut self, env: SignedEnvelope) -> Result<(), DriverError> {
        if self.auto {
            self.send_entry(env)
        } else {
            self.withheld = Some(env);
            Ok(())
        }
    }

    /// Sends an entry the driver keeps for a resume until it is receipted.
    fn send_entry(&mut self, env: SignedEnvelope) -> Result<(), DriverError> {
        self.unacked = Some(env.clone());
        self.submit(env)
    }

    /// Sends any signed envelope as it is (the driver does not keep it).
    pub fn submit(&self, env: SignedEnvelope) -> Result<(), DriverError> {
        self.send_game(encode(&ToServer::Submit(env)))
    }

    /// Asks for every view from `from_seq` on.
    pub fn sync(&self, from_seq: u64) -> Result<(), DriverError> {
        self.send_game(encode(&ToServer::Sync { from_seq }))
    }

    /// Sends raw game payload bytes.
    pub fn send_game(&self, payload: Vec<u8>) -> Result<(), DriverError> {
        self.link.send_game(self.game_id, &payload)
    }

    /// Sends any transport message on this connection.
    pub fn send(&self, msg: &ClientMessage) -> Result<(), DriverError> {
        self.link.send(msg)
    }

    /// Sends bytes as they are, outside any frame (to misbehave in tests).
    pub fn send_raw_bytes(&self, bytes: Vec<u8>) -> Result<(), DriverError> {
        self.link.push(Outgoing::Raw(bytes))
    }

    /// The length of every frame received since the last
    /// [`RemotePlayer::take_traffic`], in order (G3 tests compare them).
    pub fn take_traffic(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.link.traffic)
    }

    /// The next event: a message from the server, acted on (a machine
    /// prompt answered). Waits at most the driver's wait; after each
    /// [`SILENCE_RESYNC`] without a word it asks the server again for
    /// every view after the last one it checked (a lost update comes
    /// again; issue 24).
    pub async fn next_event(&mut self) -> Result<GameEvent, DriverError> {
        if let Some(e) = self.queue.pop_front() {
            return Ok(e);
        }
        let deadline = tokio::time::Instant::now() + self.wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self
                .link
                .recv(left.min(SILENCE_RESYNC), "a game event")
                .await
            {
                Err(DriverError::Timeout(..)) if left > SILENCE_RESYNC => {
                    self.sync(self.player.witness().next_seq())?;
                }
                Err(DriverError::Timeout(_, what)) => {
                    return Err(DriverError::Timeout(self.wait, what))
                }
                other => {
                    let msg = other?;
                    if let Some(moved) = moved_off(&msg, self.game_id) {
                        return Err(moved);
                    }
                    self.on_message(msg)?;
                    return Ok(self
                        .queue
                        .pop_front()
                        .expect("a message gives at least one event"));
                }
            }
        }
    }

    /// Events until one satisfies `stop`, which is returned. Every event
    /// before it is acted on and dropped.
    pub async fn wait_for(
        &mut self,
        mut stop: impl FnMut(&GameEvent) -> bool,
    ) -> Result<GameEvent, DriverError> {
        loop {
            let e = self.next_event().await?;
            if stop(&e) {
                return Ok(e);
            }
        }
    }

    /// Acts on a message from the server; queues the events it gives, in
    /// order, for [`RemotePlayer::next_event`].
    fn on_message(&mut self, msg: ServerMessage) -> Result<(), DriverError> {
        let event = match Incoming::of(msg, self.game_id)? {
            Incoming::Game(m) => self.on_game(m)?,
            Incoming::Event(e) => Some(e),
        };
        self.queue.extend(event);
        Ok(())
    }

    /// Acts on a game message; answers its event, or queues them itself
    /// (a new update: the entry it placed first, a prompt refused after).
    fn on_game(&mut self, msg: ToClient) -> Result<Option<GameEvent>, DriverError> {
        Ok(Some(match msg {
            ToClient::Receipt(r) => {
                if self
                    .unacked
                    .as_ref()
                    .is_some_and(|e| e.envelope().seq == r.seq)
                {
                    self.unacked = None;
                }
                // A receipt must agree with every head the server gave
                // before (else it proves a fork, issue 24).
                self.player.on_receipt(&r).map_err(|e| self.failed(e))?;
                self.receipts.push(r);
                GameEvent::Receipt(r)
            }
            ToClient::Update(raw) => {
                // Nothing is shown or answered before it is checked against
                // the log this seat holds (issue 24).
                let heard = match self.player.hear(&raw) {
                    Ok(Some(h)) => h,
                    Ok(None) => return Ok(Some(GameEvent::Held { seq: raw.seq })),
                    Err(PlayerError::Breach(Breach::Gap { from, got })) => {
                        // An update was lost (or the server skipped one):
                        // ask again from the first missing entry.
                        self.sync(from)?;
                        return Ok(Some(GameEvent::Other(format!(
                            "update {got} came before entry {from}: asked the server for the views from {from} again"
                        ))));
                    }
                    Err(e) => return Err(self.failed(e)),
                };
                if let Some(placed) = heard.placed {
                    // Held until this update placed it: shown first.
                    self.new_update(&placed);
                    self.queue.push_back(GameEvent::Update(placed));
                }
                let u = heard.update;
                self.closed |= u.closed;
                if let Some(end) = &u.end {
                    self.end = Some(end.clone());
                }
                if heard.again || self.last_seq.is_some_and(|s| u.seq <= s) {
                    // Answered again only when shown again as the latest
                    // with nothing of ours pending (the player decides).
                    if let Some(env) = heard.answer {
                        match &mut self.catch_up {
                            Some(latest) => *latest = Some(env),
                            None => self.answer(env)?,
                        }
                    }
                    return Ok(Some(GameEvent::Replayed(u)));
                }
                self.new_update(&u);
                match (&mut self.catch_up, heard.answer) {
                    (Some(latest), answer) => *latest = answer,
                    (None, Some(env)) => self.answer(env)?,
                    (None, None) => {}
                }
                self.queue.push_back(GameEvent::Update(u));
                if let Some(refused) = heard.refused {
                    self.queue.push_back(GameEvent::PromptRefused(refused));
                }
                return Ok(None);
            }
            ToClient::Rejected(r) => {
                // Shown (and kept as proof) only once checked (issue 27).
                self.player.on_refusal(&r).map_err(|e| self.failed(e))?;
                GameEvent::Rejected(r)
            }
            ToClient::Transcript(t) => {
                self.transcript = Some(t.clone());
                GameEvent::Transcript(t)
            }
            ToClient::Padding(_) => GameEvent::Other("a bare padding message".into()),
        }))
    }

    /// Takes note of a new update of the log, shown to this seat: its
    /// seq, our entry it settles (the end and the close it says are
    /// noted of every update).
    fn new_update(&mut self, u: &Update) {
        self.last_seq = Some(u.seq);
        if self
            .unacked
            .as_ref()
            .is_some_and(|e| e.envelope().seq <= u.seq)
        {
            // In the log now (ours) or overtaken (refused or stale).
            self.unacked = None;
        }
        self.last_update = Some(u.clone());
    }

    /// The driver's error for a player's: what the server did, in words.
    fn failed(&self, e: PlayerError) -> DriverError {
        match e {
            PlayerError::Breach(Breach::NotOurs { seq, entry }) => DriverError::NotTheseSecrets {
                side: self.player.side(),
                what: entry,
                seq,
            },
            PlayerError::Breach(breach) => DriverError::Breach { breach },
            other => DriverError::Player(other),
        }
    }

    /// Closes the connection abruptly (the seat stays ours on the server).
    pub fn disconnect(&self) {
        self.link.close();
    }

    /// Connects again, logs in, takes the seat back and resumes: the
    /// server re-sends every view after the last one seen (earlier ones
    /// come back as [`GameEvent::Replayed`]); new ones are fed to the player
    /// and the last one's prompt is answered, and our last entry is sent
    /// again if it was never receipted and the log has not moved past it
    /// (G6). The events are queued for [`RemotePlayer::next_event`].
    pub async fn reconnect(&mut self) -> Result<(), DriverError> {
        self.link.close();
        self.link = self.access.login().await?;
        self.take_seat().await
    }

    /// As [`RemotePlayer::reconnect`], to another server: another node of
    /// the league, when the one this seat played on is gone (issue 13).
    pub async fn reconnect_to(&mut self, addr: SocketAddr) -> Result<(), DriverError> {
        self.access.addr = addr;
        self.reconnect().await
    }

    /// As [`RemotePlayer::reconnect`], on `client`'s connection: a node
    /// found to serve the game (issue 25, [`crate::follow`]). The seat
    /// keeps its key and pace.
    pub async fn resume_with(&mut self, client: Client) -> Result<(), DriverError> {
        self.link.close();
        self.access.addr = client.access.addr;
        self.link = client.link;
        self.take_seat().await
    }

    /// The address of the node this seat plays on.
    pub fn server_addr(&self) -> SocketAddr {
        self.access.addr
    }

    /// Joins the game as this side, resuming after the last view seen, and
    /// catches up: the `Joined.resync` game messages that re-send the past
    /// are acted on and queued (rebuilding the player's layouts, notes and
    /// orders); of the machine answers only the last view's is sent (the
    /// log moved past every earlier prompt).
    async fn take_seat(&mut self) -> Result<(), DriverError> {
        let mut burst = Vec::new();
        let mut hops = 0;
        let resync = 'joined: loop {
            self.send(&ClientMessage::Join {
                game_id: self.game_id,
                role: Role::Player(self.side()),
                resume_from: self.last_seq.map_or(0, |s| s + 1),
            })?;
            loop {
                match self.link.recv(self.wait, "the join answer").await? {
                    ServerMessage::Joined { resync, .. } => {
                        // Who the game waits for (issue 27), after the resync.
                        self.send(&ClientMessage::WatchPresence {
                            game_id: self.game_id,
                        })?;
                        break 'joined resync;
                    }
                    ServerMessage::ServedElsewhere { game_id, address }
                        if game_id == self.game_id =>
                    {
                        // Another node of the league serves the game
                        // (issue 13): log in there and join again.
                        self.link = self.access.follow(&address, &mut hops).await?;
                        burst.clear();
                        continue 'joined;
                    }
                    e @ ServerMessage::Error { .. } => return Err(refused(e)),
                    other => burst.push(other),
                }
            }
        };
        // The server says how many game messages re-send the past: views
        // of entries already in the log, whose prompts were answered
        // before (or are answered now only if still current).
        let mut past = 0;
        while past < resync {
            let m = self.link.recv(self.wait, "the resync").await?;
            if matches!(&m, ServerMessage::Game { game_id, .. } if *game_id == self.game_id) {
                past += 1;
            }
            burst.push(m);
        }
        self.catch_up = Some(None);
        let replayed: Result<(), DriverError> =
            burst.into_iter().try_for_each(|m| self.on_message(m));
        let latest = self.catch_up.take().flatten();
        replayed?;
        if let Some(env) = self.unacked.clone() {
            let seq = env.envelope().seq;
            if self.last_seq.map_or(seq == 1, |s| seq == s + 1) {
                self.submit(env)?;
            } else {
                self.unacked = None;
            }
        }
        if let Some(env) = latest {
            self.answer(env)?;
        }
        Ok(())
    }

    /// Closes the connection; returns once the server has been told (or
    /// after a short wait), so it frees the seat at once.
    pub async fn close(self) {
        self.link.close_and_wait().await;
    }
}

/// A spectator of a game: the public view, and the transcript at the end.
pub struct Spectator {
    addr: SocketAddr,
    link: Link,
    wait: Duration,
    game_id: GameId,
    /// The public log as this spectator checked it (issue 24), and the
    /// game's end against it (G5).
    public: PublicWitness,
    /// Who the log it checked says is awaited (issue 27 item 1).
    reading: LogReading,
    transcript: Option<Vec<u8>>,
    last_seq: Option<u64>,
    closed: bool,
    /// Events of a message already taken, not yet returned (an update
    /// that placed a held entry gives two).
    queue: VecDeque<GameEvent>,
}

impl std::fmt::Debug for Spectator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spectator")
            .field("game_id", &self.game_id)
            .finish_non_exhaustive()
    }
}

impl Spectator {
    /// The address of the node this spectator watches on.
    pub fn server_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Sets how long each wait lasts.
    pub fn set_wait(&mut self, wait: Duration) {
        self.wait = wait;
    }

    /// The next event of the public view.
    pub async fn next_event(&mut self) -> Result<GameEvent, DriverError> {
        if let Some(e) = self.queue.pop_front() {
            return Ok(e);
        }
        let msg = self.link.recv(self.wait, "a public update").await?;
        if let Some(moved) = moved_off(&msg, self.game_id) {
            return Err(moved);
        }
        Ok(match Incoming::of(msg, self.game_id)? {
            Incoming::Game(m) => match m {
                // Shown only once checked against the public log (issue 24).
                // An end the log does not give stops the spectator, with
                // nothing of it shown (G5): the same check as a player's.
                ToClient::Update(raw) => match self.public.check(&raw) {
                    Ok(Seen::New(new)) => {
                        for c in new {
                            self.reading.follow(&c);
                            let u = c.update;
                            self.last_seq = Some(self.last_seq.map_or(u.seq, |s| s.max(u.seq)));
                            self.closed |= u.closed;
                            self.queue.push_back(GameEvent::Update(u));
                        }
                        self.queue
                            .pop_front()
                            .expect("a new update gives its entry")
                    }
                    Ok(Seen::Held { seq }) => GameEvent::Held { seq },
                    Ok(Seen::Again(c)) => GameEvent::Replayed(c.update),
                    Err(e) => return Err(e.into()),
                },
                ToClient::Transcript(t) => {
                    self.transcript = Some(t.clone());
                    GameEvent::Transcript(t)
                }
                ToClient::Receipt(r) => GameEvent::Receipt(r),
                // A spectator sends no entry: a refusal is none of its
                // business, and is not shown unchecked.
                ToClient::Rejected(r) => GameEvent::Other(format!(
                    "the server sent a spectator a refusal (of entry {}): ignored",
                    r.seq
                )),
                ToClient::Padding(_) => GameEvent::Other("a bare padding message".into()),
            },
            Incoming::Event(e) => e,
        })
    }

    /// Events until one satisfies `stop`, which is returned.
    pub async fn wait_for(
        &mut self,
        mut stop: impl FnMut(&GameEvent) -> bool,
    ) -> Result<GameEvent, DriverError> {
        loop {
            let e = self.next_event().await?;
            if stop(&e) {
                return Ok(e);
            }
        }
    }

    /// The length of every frame received since the last call, in order.
    pub fn take_traffic(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.link.traffic)
    }

    /// The transcript, once the game is over.
    pub fn transcript(&self) -> Option<&[u8]> {
        self.transcript.as_deref()
    }

    /// Fetches the finished game's transcript file (anyone may, DESIGN 5).
    /// Public updates that arrive meanwhile are dropped.
    pub async fn fetch_transcript(&mut self) -> Result<Vec<u8>, DriverError> {
        let (file, _) = self
            .link
            .fetch_finished_transcript(self.game_id, self.wait)
            .await?;
        self.transcript = Some(file.clone());
        Ok(file)
    }

    /// The highest seq of a public update seen.
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }

    /// How many events are received and checked but not yet handed out by
    /// [`Spectator::next_event`] (an update that placed a held entry gives
    /// two).
    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// The public log as this spectator checked it.
    pub fn witness(&self) -> &Witness {
        self.public.witness()
    }

    /// The public log as this spectator checked it, with the game's end
    /// checked against it.
    pub fn public(&self) -> &PublicWitness {
        &self.public
    }

    /// Goes on from the log an earlier connection checked: what it showed
    /// comes again, and must be the same log (else a fork proof).
    /// and `reading`, that log's reading (issue 27 item 1).
    pub fn set_witness(&mut self, public: PublicWitness, reading: LogReading) {
        self.public = public;
        self.reading = reading;
    }

    /// Who the public log this spectator checked says is awaited (issue
    /// 27 item 1): its own reading, not the server's word.
    pub fn reading(&self) -> &LogReading {
        &self.reading
    }

    /// Leaves the game and joins it again on the same connection, saying
    /// what it holds: the first public update its witness lacks (issue 31:
    /// a rejoin that changes nothing is sent nothing, not the whole
    /// history). What comes next must chain onto the head the witness
    /// holds (PROTOCOL.md 16.1), so the server's word on where the log
    /// stands is checked, not trusted. Updates that arrive before the
    /// server confirms the leave are dropped: they come again. Returns how
    /// many game messages the server says it resends (`Joined.resync`).
    pub async fn rejoin(&mut self) -> Result<u32, DriverError> {
        self.link.send(&ClientMessage::Leave {
            game_id: self.game_id,
        })?;
        loop {
            match self.link.recv(self.wait, "the leave answer").await? {
                ServerMessage::Left { game_id } if game_id == self.game_id => break,
                e @ ServerMessage::Error { .. } => return Err(refused(e)),
                _ => {}
            }
        }
        self.link.send(&ClientMessage::Join {
            game_id: self.game_id,
            role: Role::Spectator,
            resume_from: self.public.witness().next_seq(),
        })?;
        loop {
            match self.link.recv(self.wait, "the join answer").await? {
                ServerMessage::Joined { resync, .. } => {
                    // A leave ended the presence the first join asked for
                    // (issue 27): ask again.
                    self.link.send(&ClientMessage::WatchPresence {
                        game_id: self.game_id,
                    })?;
                    return Ok(resync);
                }
                e @ ServerMessage::Error { .. } => return Err(refused(e)),
                _ => {}
            }
        }
    }

    /// Whether a public update said the log is closed (the server has the
    /// transcript, [`Spectator::fetch_transcript`]) and every event before
    /// it was handed out by [`Spectator::next_event`]: the update that
    /// closes the log may place an entry held before it, and both are
    /// shown first.
    pub fn is_closed(&self) -> bool {
        self.closed && self.queue.is_empty()
    }

    /// The game's result (winner and reason), once its end entry is seen
    /// and the log before it gives it (G5).
    pub fn end(&self) -> Option<&EndRecord> {
        self.public.end()
    }

    /// Sends raw game payload bytes (a spectator may not: the server says
    /// so with an error).
    pub fn send_game(&self, payload: Vec<u8>) -> Result<(), DriverError> {
        self.link.send_game(self.game_id, &payload)
    }

    /// Closes the connection; returns once the server has been told (or
    /// after a short wait), so it frees the seat at once.
    pub async fn close(self) {
        self.link.close_and_wait().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use hexveil_server::config::ServerSettings;
    use hexveil_server::relay::RelayFactory;
    use hexveil_server::Server;

    fn new_key() -> Vec<u8> {
        Identity::generate_pkcs8().unwrap()
    }

    async fn client(server: &Server) -> Client {
        let trust = ServerTrust::Pinned(server.fingerprint());
        Client::connect(server.local_addr(), trust, &new_key())
            .await
            .unwrap()
    }

    fn new_game(players: [PublicKey; 2]) -> NewGame {
        NewGame {
            ruleset: "asl".into(),
            ruleset_version: 1,
            scenario_toml: "s".into(),
            players,
            mode: Mode::Live,
            pad_len: 2,
            answer_timeout_secs: None,
        }
    }

    async fn join(c: &mut Client, game_id: GameId, side: Side) -> ServerMessage {
        c.send(&ClientMessage::Join {
            game_id,
            role: Role::Player(side),
            resume_from: 0,
        })
        .unwrap();
        c.recv().await.unwrap()
    }

    /// The lobby, seats and the relay through the driver's connection:
    /// ping, create, list, a seat held by another key, a game message
    /// longer than one frame (split and put together again), the
    /// transcript after the end.
    #[tokio::test]
    async fn pinned_login_lobby_and_relay() {
        let dir = tempfile::tempdir().unwrap();
        let settings = ServerSettings::new(dir.path().to_owned(), "127.0.0.1:0".parse().unwrap());
        let server = Server::start(settings, Arc::new(RelayFactory))
            .await
            .unwrap();
        let (mut a, mut b) = (client(&server).await, client(&server).await);
        a.send(&ClientMessage::Ping { nonce: 7 }).unwrap();
        assert_eq!(a.recv().await.unwrap(), ServerMessage::Pong { nonce: 7 });
        let players = [a.public_key().unwrap(), b.public_key().unwrap()];
        let game_id = a.create_game(&new_game(players)).await.unwrap();
        for (c, side) in [(&mut a, Side::A), (&mut b, Side::B)] {
            assert!(matches!(
                join(c, game_id, side).await,
                ServerMessage::Joined { .. }
            ));
            // The relay's welcome.
            assert!(matches!(
                c.recv().await.unwrap(),
                ServerMessage::Game { .. }
            ));
        }
        let games = b.list_games().await.unwrap();
        assert!(games
            .iter()
            .any(|g| g.game_id == game_id && g.side_a_seated && g.side_b_seated));
        // A seat held by another key: the server refuses.
        let mut c = client(&server).await;
        assert!(matches!(
            join(&mut c, game_id, Side::A).await,
            ServerMessage::Error {
                code: ErrorCode::Rejected,
                ..
            }
        ));
        // A message longer than one frame travels in parts and arrives whole.
        let long: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        a.send_game(game_id, &long).unwrap();
        assert_eq!(
            b.recv().await.unwrap(),
            ServerMessage::Game {
                game_id,
                payload: long,
                more: false,
            }
        );
        assert_eq!(
            a.recv().await.unwrap(),
            ServerMessage::Game {
                game_id,
                payload: b"ack 2".to_vec(),
                more: false,
            }
        );
        // After the end, anyone fetches the transcript.
        b.send_game(game_id, b"to a").unwrap();
        let ack = b.recv().await.unwrap();
        assert!(
            matches!(ack, ServerMessage::Game { ref payload, .. } if payload.starts_with(b"ack"))
        );
        assert_eq!(
            a.recv().await.unwrap(),
            ServerMessage::Game {
                game_id,
                payload: b"to a".to_vec(),
                more: false,
            }
        );
        a.send_game(game_id, b"finish").unwrap();
        let transcript = c.fetch_transcript(game_id).await.unwrap();
        assert!(transcript.ends_with(b"to a"), "{transcript:?}");
        // A closed client's seat is free at once, not at the server's idle
        // timeout: the close reaches the server before `close` returns.
        a.close().await;
        let games = c.list_games().await.unwrap();
        let game = games.iter().find(|g| g.game_id == game_id).unwrap();
        assert!(!game.side_a_seated, "{game:?}");
        b.close().await;
        c.close().await;
        server.shutdown().await;
    }

    // G5: a server's words in an error (a refusal, a node's handover or
    // stop) reach the terminal only as `names::visible` lets them: no line
    // break to add lines that read as the game's, no escape sequence to
    // rewrite the screen, no bidi override.
    #[test]
    fn g5_a_servers_words_in_an_error_cannot_write_to_the_terminal() {
        let hostile = "no\nRESULT: side B wins\u{1b}[2J\u{202e}";
        let errors = [
            DriverError::Server {
                code: ErrorCode::Malformed,
                message: hostile.into(),
            },
            DriverError::Net(NetError::Server {
                code: ErrorCode::Malformed,
                message: hostile.into(),
            }),
            DriverError::Moved {
                to: Some(hostile.into()),
                why: hostile.into(),
            },
            DriverError::Moved {
                to: None,
                why: hostile.into(),
            },
        ];
        for e in errors {
            let text = e.to_string();
            println!("{text}");
            assert!(text.contains("RESULT: side B wins"), "{text}");
            assert!(!text.contains(['\n', '\u{1b}', '\u{202e}']), "{text:?}");
        }
    }
}
