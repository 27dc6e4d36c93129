//! One client connection (DESIGN section 5, G6): TLS handshake with ALPN
//! `hexveil/1`, the session stream, hello and Ed25519 login, then a
//! request/response loop over frames.
//!
//! Failure policy: anything that breaks the framing (an oversized length,
//! a truncated or stalled frame, silence past the idle timeout) gets an error
//! frame and closes the connection, because the stream can no longer be
//! trusted to be in step. A well-framed but invalid message (undecodable,
//! out of place, over the rate limit) gets an error frame and is otherwise
//! ignored: it changes nothing. A failed login closes the connection.
//!
//! Bounded cost per connection, key and host (G6): connections per IP
//! address are capped at the accept loop ([`AddressSlots`]), logged-in
//! connections per key at login; a logged-in connection silent past the
//! idle timeout is closed and frees its slots. A game message sent in parts
//! must be complete within the partial-message deadline and fit both this
//! connection's budget and the budget all connections share; otherwise it is
//! dropped with an error and the connection goes on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::queue;
use quinn::VarInt;
use ring::rand::SystemRandom;
use tokio::sync::oneshot;
use tokio::time::timeout;
use tracing::{debug, info, warn};

use crate::config::ServerSettings;
use crate::frame::{read_frame, write_frame, FrameError, FrameLimits};
use crate::http::games::Games;
use crate::league::League;
use crate::lobby::{ConnectionLink, GameCommand, Lobby, LobbyError, GAME_SEND_TIMEOUT};
use crate::login::{exporter, verify_login, Challenge};
use crate::rate::TokenBucket;
use crate::session::{ConnectionId, Participant};
use crate::shares::Party;
use crate::store::{GameLocation, StoreError};
use crate::tls::ALPN;
use crate::wire::{
    ClientMessage, ErrorCode, GameAssembler, GameId, GameOwner, PublicKey, Role, ServerMessage,
    MAX_ADDRESS_LEN, MAX_LISTED_NODES, MAX_NODE_ID_LEN, MAX_PAYLOAD_LEN, PROTOCOL_VERSION,
};

/// Messages a connection's outbox holds before the client counts as too slow.
pub const OUTBOX_CAPACITY: usize = 256;

/// QUIC close codes used by the server.
pub mod close {
    /// Normal end.
    pub const OK: u32 = 0;
    /// The peer broke the protocol (ALPN, framing, hello).
    pub const PROTOCOL_ERROR: u32 = 1;
    /// A frame claimed more than the maximum length.
    pub const FRAME_TOO_LARGE: u32 = 2;
    /// The peer was silent or stalled past a timeout.
    pub const TIMEOUT: u32 = 3;
    /// The peer read too slowly (see [`crate::lobby::CLOSE_TOO_SLOW`]).
    pub const TOO_SLOW: u32 = crate::lobby::CLOSE_TOO_SLOW;
    /// The login failed.
    pub const LOGIN_FAILED: u32 = 5;
    /// The server is shutting down.
    pub const SHUTDOWN: u32 = 6;
}

/// What every connection shares.
#[derive(Debug)]
pub struct ConnectionContext {
    /// The games.
    pub lobby: Arc<Lobby>,
    /// The finished games' league rows.
    pub league: Arc<League>,
    /// What each game is (from its creation request), shared by
    /// `hexveil list` and the web view's list.
    pub games: Arc<Games>,
    /// The server's settings.
    pub settings: ServerSettings,
    rng: SystemRandom,
    next_id: AtomicU64,
    /// Logged-in connections per key.
    keys: Mutex<HashMap<PublicKey, usize>>,
    /// Bytes of incomplete game messages held by all connections.
    partial_bytes: AtomicUsize,
}

impl ConnectionContext {
    /// A context for a lobby and settings.
    pub fn new(lobby: Arc<Lobby>, settings: ServerSettings) -> Self {
        let league = Arc::new(League::new(lobby.store().clone()));
        ConnectionContext {
            games: Arc::new(Games::new(
                lobby.clone(),
                league.clone(),
                settings.roster.clone(),
            )),
            league,
            lobby,
            settings,
            rng: SystemRandom::new(),
            next_id: AtomicU64::new(1),
            keys: Mutex::new(HashMap::new()),
            partial_bytes: AtomicUsize::new(0),
        }
    }

    /// A connection id no other connection (nor internal participant,
    /// such as the web view's spectator) of this server has.
    pub fn next_id(&self) -> ConnectionId {
        ConnectionId(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Bytes of incomplete game messages all connections hold now.
    pub fn partial_bytes(&self) -> usize {
        self.partial_bytes.load(Ordering::Relaxed)
    }

    /// Takes one of `key`'s connection slots, if it has one left.
    fn take_key_slot(self: &Arc<Self>, key: PublicKey) -> Option<KeySlot> {
        let mut keys = self.keys.lock().expect("key table poisoned");
        let n = keys.entry(key).or_insert(0);
        if *n >= self.settings.max_connections_per_key {
            return None;
        }
        *n += 1;
        Some(KeySlot {
            ctx: self.clone(),
            key,
        })
    }
}

/// One logged-in connection of a key; freed when dropped.
struct KeySlot {
    ctx: Arc<ConnectionContext>,
    key: PublicKey,
}

impl Drop for KeySlot {
    fn drop(&mut self) {
        let mut keys = self.ctx.keys.lock().expect("key table poisoned");
        if let Some(n) = keys.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                keys.remove(&self.key);
            }
        }
    }
}

/// How a connection ended (for the close frame and the log).
struct Ending {
    code: u32,
    reason: String,
    error: Option<ServerMessage>,
    /// No frame started within the wait (the connection is still in step).
    idle: bool,
}

impl Ending {
    fn quiet(reason: &str) -> Self {
        Ending {
            code: close::OK,
            reason: reason.into(),
            error: None,
            idle: false,
        }
    }

    fn with_error(close_code: u32, code: ErrorCode, message: String) -> Self {
        Ending {
            code: close_code,
            reason: message.clone(),
            error: Some(ServerMessage::error(code, message)),
            idle: false,
        }
    }

    fn from_frame_error(e: FrameError) -> Self {
        let idle = matches!(e, FrameError::Idle(_));
        let mut ending = Self::from_frame_error_inner(e);
        ending.idle = idle;
        ending
    }

    fn from_frame_error_inner(e: FrameError) -> Self {
        match e {
            FrameError::TooLarge { .. } => Ending::with_error(
                close::FRAME_TOO_LARGE,
                ErrorCode::FrameTooLarge,
                e.to_string(),
            ),
            FrameError::Idle(_) | FrameError::Stalled { .. } | FrameError::WriteTimeout(_) => {
                Ending::with_error(close::TIMEOUT, ErrorCode::Timeout, e.to_string())
            }
            FrameError::Truncated { .. } | FrameError::OutgoingTooLarge { .. } => {
                Ending::with_error(close::PROTOCOL_ERROR, ErrorCode::Malformed, e.to_string())
            }
            FrameError::Io(_) => Ending::quiet("stream failed"),
        }
    }
}

/// Serve one incoming QUIC connection until it ends.
pub async fn serve_connection(incoming: quinn::Incoming, ctx: Arc<ConnectionContext>) {
    let id = ctx.next_id();
    let party = ctx.settings.grouping.party(incoming.remote_address().ip());
    // One login timeout from the first packet to a completed login, not
    // one for each of the handshake, the stream and the login (issue 31:
    // a slot held before login is held for one timeout).
    let login_deadline = tokio::time::Instant::now() + ctx.settings.login_timeout;
    let conn = match tokio::time::timeout_at(login_deadline, incoming).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            debug!(connection = id.0, error = %e, "handshake failed");
            return;
        }
        Err(_) => {
            debug!(connection = id.0, "handshake timed out");
            return;
        }
    };
    let alpn = conn
        .handshake_data()
        .and_then(|d| d.downcast::<quinn::crypto::rustls::HandshakeData>().ok())
        .and_then(|d| d.protocol);
    if alpn.as_deref() != Some(ALPN) {
        conn.close(
            VarInt::from_u32(close::PROTOCOL_ERROR),
            b"application protocol must be hexveil/1",
        );
        return;
    }
    let (send, recv) = match tokio::time::timeout_at(login_deadline, conn.accept_bi()).await {
        Ok(Ok(s)) => s,
        _ => {
            conn.close(
                VarInt::from_u32(close::TIMEOUT),
                b"no session stream opened",
            );
            return;
        }
    };
    debug!(connection = id.0, remote = %conn.remote_address(), "connected");
    let metrics = ctx.lobby.metrics().clone();
    let _counted = metrics.connection();
    let limits = ctx.settings.frame;
    let (outbox, outbox_rx) = queue::channel(OUTBOX_CAPACITY);
    let writer = tokio::spawn(write_loop(send, outbox_rx, limits, conn.clone(), metrics));
    let mut session = Session {
        id,
        ctx: ctx.clone(),
        conn: conn.clone(),
        recv,
        outbox,
        bucket: TokenBucket::new(ctx.settings.rate_limit, std::time::Instant::now()),
        joined: HashMap::new(),
        assembler: GameAssembler::default(),
        partial_since: None,
        partial_held: 0,
        key_slot: None,
        party,
        login_deadline,
    };
    let ending = session.run().await;
    session.finish(ending, writer).await;
}

/// Drain the outbox onto the stream (counting each error sent, by code, in
/// the metrics); on a write failure close the connection. When every
/// sender is gone, finish the stream and wait (bounded) until the peer has
/// everything.
async fn write_loop(
    mut send: quinn::SendStream,
    mut outbox: queue::Receiver<ServerMessage>,
    limits: FrameLimits,
    conn: quinn::Connection,
    metrics: std::sync::Arc<crate::metrics::Metrics>,
) {
    while let Some(msg) = outbox.recv().await {
        if let ServerMessage::Error { code, .. } = &msg {
            metrics.error_sent(*code);
        }
        let bytes = match msg.encode() {
            Ok(b) => b,
            Err(e) => {
                warn!(error = %e, "could not encode a server message; dropped");
                continue;
            }
        };
        if let Err(e) = write_frame(&mut send, &bytes, &limits).await {
            debug!(error = %e, "write failed; closing");
            conn.close(VarInt::from_u32(close::TIMEOUT), b"peer does not read");
            return;
        }
    }
    let _ = send.finish();
    let _ = timeout(limits.transfer_timeout, send.stopped()).await;
}

struct Session {
    /// The client's address and network (issue 31: what it creates and
    /// rebuilds is charged to them too).
    party: Party,
    /// When the login must be complete, counted from the first packet.
    login_deadline: tokio::time::Instant,
    id: ConnectionId,
    ctx: Arc<ConnectionContext>,
    conn: quinn::Connection,
    recv: quinn::RecvStream,
    outbox: queue::Sender<ServerMessage>,
    bucket: TokenBucket,
    joined: HashMap<GameId, (Role, queue::Sender<GameCommand>)>,
    assembler: GameAssembler,
    /// When the incomplete game message being put together began.
    partial_since: Option<tokio::time::Instant>,
    /// Its bytes, as counted in the shared budget.
    partial_held: usize,
    /// This connection's slot among its key's connections.
    key_slot: Option<KeySlot>,
}

impl Session {
    /// Counts the assembler's open bytes in the shared budget.
    fn recount_partial(&mut self) {
        let now = self.assembler.open_len();
        let budget = &self.ctx.partial_bytes;
        if now > self.partial_held {
            budget.fetch_add(now - self.partial_held, Ordering::Relaxed);
        } else {
            budget.fetch_sub(self.partial_held - now, Ordering::Relaxed);
        }
        self.partial_held = now;
        if now == 0 {
            self.partial_since = None;
        } else if self.partial_since.is_none() {
            self.partial_since = Some(tokio::time::Instant::now());
        }
    }

    /// Drops the incomplete game message and tells the client why.
    async fn drop_partial(&mut self, why: String) -> Result<(), Ending> {
        self.assembler.clear();
        self.recount_partial();
        self.reply(ServerMessage::error(ErrorCode::BadGameMessage, why))
            .await
    }

    /// Whether a part of `len` bytes that continues the open message
    /// would pass a budget; the error names the setting.
    fn over_budget(&self, len: usize) -> Option<String> {
        let s = &self.ctx.settings;
        let mine = self.assembler.open_len() + len;
        if mine > s.max_partial_bytes_per_connection {
            return Some(format!(
                "incomplete game message of {mine} bytes is over max_partial_bytes_per_connection = {}; dropped",
                s.max_partial_bytes_per_connection
            ));
        }
        let all = self.ctx.partial_bytes() + len;
        if all > s.max_partial_bytes {
            return Some(format!(
                "the server holds {} bytes of incomplete game messages, its max_partial_bytes = {}; message dropped, send it again later",
                self.ctx.partial_bytes(),
                s.max_partial_bytes
            ));
        }
        None
    }

    async fn reply(&self, msg: ServerMessage) -> Result<(), Ending> {
        match timeout(
            self.ctx.settings.frame.transfer_timeout,
            self.outbox.send(msg),
        )
        .await
        {
            Ok(Ok(())) => Ok(()),
            _ => Err(Ending::quiet("writer gone")),
        }
    }

    /// Read one frame and decode it; `Ok(None)` for a well-framed message
    /// that was refused (already answered with an error).
    async fn next_message(
        &mut self,
        limits: &FrameLimits,
    ) -> Result<Option<ClientMessage>, Ending> {
        let frame = match read_frame(&mut self.recv, limits).await {
            Ok(Some(f)) => f,
            Ok(None) => return Err(Ending::quiet("client finished the stream")),
            Err(e) => return Err(Ending::from_frame_error(e)),
        };
        if let Err(e) = self.bucket.try_take(std::time::Instant::now()) {
            self.reply(ServerMessage::error(ErrorCode::RateLimited, e.to_string()))
                .await?;
            return Ok(None);
        }
        match ClientMessage::decode(&frame) {
            Ok(m) => Ok(Some(m)),
            Err(e) => {
                self.reply(ServerMessage::error(ErrorCode::Malformed, e.to_string()))
                    .await?;
                Ok(None)
            }
        }
    }

    async fn run(&mut self) -> Ending {
        // The login, the lobby's messages and joins are boxed while they
        // run: inline, their futures would size this connection's task for
        // its whole life, idle or not (issue 16: about 2.9 KiB a
        // connection, 0.9 KiB with them boxed). A game message, the hot
        // path, stays inline.
        let key = match Box::pin(self.login()).await {
            Ok(k) => k,
            Err(e) => return e,
        };
        info!(connection = self.id.0, key = %key, "logged in");
        let partial_timeout = self.ctx.settings.partial_message_timeout;
        loop {
            let mut limits = self.ctx.settings.frame;
            if let Some(since) = self.partial_since {
                let due = since + partial_timeout;
                let now = tokio::time::Instant::now();
                if now >= due {
                    let why = format!(
                        "incomplete game message not completed within partial_message_timeout_secs = {}; dropped",
                        partial_timeout.as_secs()
                    );
                    if let Err(e) = self.drop_partial(why).await {
                        return e;
                    }
                    continue;
                }
                limits.idle_timeout = limits.idle_timeout.min(due - now);
            }
            let msg = match self.next_message(&limits).await {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                // The wait was cut short by the partial message's deadline.
                Err(e) if e.idle && self.partial_since.is_some() => continue,
                Err(e) => return e,
            };
            let done = match msg {
                ClientMessage::Game {
                    game_id,
                    payload,
                    more,
                } => self.game_message(game_id, payload, more).await,
                other => Box::pin(self.dispatch(key, other)).await,
            };
            if let Err(e) = done {
                return e;
            }
        }
    }

    /// Hello, challenge, login; all within the login timeout.
    async fn login(&mut self) -> Result<PublicKey, Ending> {
        let mut limits = self.ctx.settings.frame;
        limits.idle_timeout = self.ctx.settings.login_timeout;
        let deadline = self.login_deadline;
        let login_timeout = self.ctx.settings.login_timeout;
        let timed_out = move || {
            Ending::with_error(
                close::TIMEOUT,
                ErrorCode::Timeout,
                format!("login not completed within {login_timeout:?}"),
            )
        };
        let mut challenge: Option<Challenge> = None;
        loop {
            let msg = match tokio::time::timeout_at(deadline, self.next_message(&limits)).await {
                Err(_) => return Err(timed_out()),
                Ok(r) => match r? {
                    Some(m) => m,
                    None => continue,
                },
            };
            match (msg, challenge) {
                (ClientMessage::Hello { protocol_version }, None) => {
                    if protocol_version != PROTOCOL_VERSION {
                        return Err(Ending::with_error(
                            close::PROTOCOL_ERROR,
                            ErrorCode::UnsupportedVersion,
                            format!(
                                "protocol version {protocol_version} not supported; this server speaks {PROTOCOL_VERSION}"
                            ),
                        ));
                    }
                    let c = Challenge::random(&self.ctx.rng).map_err(|e| {
                        Ending::with_error(
                            close::PROTOCOL_ERROR,
                            ErrorCode::Internal,
                            e.to_string(),
                        )
                    })?;
                    challenge = Some(c);
                    self.reply(ServerMessage::Challenge {
                        protocol_version: PROTOCOL_VERSION,
                        challenge: c.0,
                    })
                    .await?;
                }
                (
                    ClientMessage::Login {
                        public_key,
                        signature,
                    },
                    Some(c),
                ) => {
                    let checked = exporter(&self.conn, &c)
                        .and_then(|x| verify_login(&public_key, &x, &c, &signature));
                    return match checked {
                        Ok(()) => {
                            let Some(slot) = self.ctx.take_key_slot(public_key) else {
                                let max = self.ctx.settings.max_connections_per_key;
                                warn!(connection = self.id.0, key = %public_key, "too many connections of one key");
                                return Err(Ending::with_error(
                                    close::LOGIN_FAILED,
                                    ErrorCode::LoginFailed,
                                    format!("key {public_key} already has {max} connections, this server's max_connections_per_key = {max}; close one first"),
                                ));
                            };
                            self.key_slot = Some(slot);
                            self.reply(ServerMessage::LoginOk { public_key }).await?;
                            Ok(public_key)
                        }
                        Err(e) => {
                            warn!(connection = self.id.0, error = %e, "login failed");
                            Err(Ending::with_error(
                                close::LOGIN_FAILED,
                                ErrorCode::LoginFailed,
                                e.to_string(),
                            ))
                        }
                    };
                }
                (other, _) => {
                    let expected = if challenge.is_none() {
                        "Hello"
                    } else {
                        "Login"
                    };
                    self.reply(ServerMessage::error(
                        ErrorCode::UnexpectedMessage,
                        format!(
                            "expected {expected} before anything else, got {}",
                            variant_name(&other)
                        ),
                    ))
                    .await?;
                }
            }
        }
    }

    async fn dispatch(&mut self, key: PublicKey, msg: ClientMessage) -> Result<(), Ending> {
        match msg {
            ClientMessage::Hello { .. } | ClientMessage::Login { .. } => {
                self.reply(ServerMessage::error(
                    ErrorCode::UnexpectedMessage,
                    "already logged in",
                ))
                .await?;
            }
            ClientMessage::Ping { nonce } => self.reply(ServerMessage::Pong { nonce }).await?,
            ClientMessage::CreateGame { scenario } => {
                let allowed = self
                    .ctx
                    .settings
                    .roster
                    .as_ref()
                    .is_none_or(|r| r.contains(&key));
                let msg = if !allowed {
                    ServerMessage::error(
                        ErrorCode::Rejected,
                        format!("key {key} is not on this league's roster; only its players may create games"),
                    )
                } else {
                    match self
                        .ctx
                        .lobby
                        .create_game_from(key, Some(self.party), scenario)
                        .await
                    {
                        // Sent only now: the game and its genesis are durable.
                        Ok(game_id) => ServerMessage::GameCreated { game_id },
                        Err(e) => ServerMessage::error(e.code(), e.to_string()),
                    }
                };
                self.reply(msg).await?;
            }
            ClientMessage::ListGames => {
                let games = self.ctx.lobby.list();
                self.reply(ServerMessage::Games { games }).await?;
            }
            ClientMessage::ListOpenGames => {
                let msg = match self.ctx.games.listed().await {
                    Ok(games) => ServerMessage::OpenGames {
                        games: games.into_iter().map(|g| g.listed).collect(),
                    },
                    Err(e) => ServerMessage::error(ErrorCode::Internal, e.to_string()),
                };
                self.reply(msg).await?;
            }
            ClientMessage::ListOpenGamesNamed => {
                let msg = match self.ctx.games.listed().await {
                    Ok(games) => ServerMessage::OpenGamesNamed { games },
                    Err(e) => ServerMessage::error(ErrorCode::Internal, e.to_string()),
                };
                self.reply(msg).await?;
            }
            ClientMessage::ListFinished { limit } => {
                let msg = match self.ctx.league.finished(limit as usize).await {
                    Ok(mut games) => {
                        // Rows with long reasons may not all fit one frame:
                        // the newest that do are sent.
                        loop {
                            let msg = ServerMessage::FinishedGames { games };
                            if msg.encode().is_ok() {
                                break msg;
                            }
                            let ServerMessage::FinishedGames { games: mut g } = msg else {
                                unreachable!("built above");
                            };
                            g.truncate(g.len() / 2);
                            games = g;
                        }
                    }
                    Err(e) => ServerMessage::error(ErrorCode::Internal, e.to_string()),
                };
                self.reply(msg).await?;
            }
            ClientMessage::Join {
                game_id,
                role,
                resume_from,
            } => self.join(key, game_id, role, resume_from).await?,
            ClientMessage::Locate { game_id } => {
                let msg = self.locate(game_id).await;
                self.reply(msg).await?;
            }
            ClientMessage::FetchTranscript { game_id, offset } => {
                let mut msg = self.transcript_chunk(game_id, offset).await;
                if matches!(
                    &msg,
                    ServerMessage::Error {
                        code: ErrorCode::NotFinished,
                        ..
                    }
                ) && self.ctx.lobby.commands(game_id).is_none()
                {
                    // Not rebuilt since a restart: rebuilding it finishes a
                    // log that was closed before the crash (G6).
                    if let Ok(Some(_)) = self
                        .ctx
                        .lobby
                        .open_game_from(game_id, key, Some(self.party))
                        .await
                    {
                        msg = self.transcript_chunk(game_id, offset).await;
                    }
                }
                self.reply(msg).await?;
            }
            ClientMessage::Leave { game_id } => match self.joined.remove(&game_id) {
                Some((_, game)) => {
                    let cmd = GameCommand::Leave { from: self.id };
                    if timeout(GAME_SEND_TIMEOUT, game.send(cmd)).await.is_err() {
                        // The game is stuck; it will notice the closed outbox later.
                        warn!(%game_id, "leave not delivered: game busy");
                    }
                }
                None => {
                    self.reply(not_joined(game_id)).await?;
                }
            },
            ClientMessage::Game {
                game_id,
                payload,
                more,
            } => self.game_message(game_id, payload, more).await?,
            ClientMessage::WatchPresence { game_id } => match self.joined.get(&game_id) {
                Some((_, game)) => {
                    let cmd = GameCommand::WatchPresence { from: self.id };
                    if timeout(GAME_SEND_TIMEOUT, game.send(cmd)).await.is_err() {
                        // Presence is a courtesy: the game goes on without.
                        warn!(%game_id, "presence request not delivered: game busy");
                    }
                }
                None => {
                    self.reply(not_joined(game_id)).await?;
                }
            },
        }
        Ok(())
    }

    /// A game message (or one part of it) from this connection: assembled,
    /// then handed to its game.
    async fn game_message(
        &mut self,
        game_id: GameId,
        payload: Vec<u8>,
        more: bool,
    ) -> Result<(), Ending> {
        let Some((role, game)) = self.joined.get(&game_id) else {
            self.reply(not_joined(game_id)).await?;
            return Ok(());
        };
        if *role == Role::Spectator {
            self.reply(ServerMessage::error(
                ErrorCode::SpectatorCannotAct,
                format!("spectators of game {game_id} cannot send game messages"),
            ))
            .await?;
            return Ok(());
        }
        let game = game.clone();
        if more {
            if let Some(why) = self.over_budget(payload.len()) {
                return self.drop_partial(why).await;
            }
        }
        let pushed = self.assembler.push(game_id, payload, more);
        self.recount_partial();
        let payload = match pushed {
            Ok(Some((_, whole))) => whole,
            Ok(None) => return Ok(()),
            Err(e) => {
                return self
                    .reply(ServerMessage::error(
                        ErrorCode::BadGameMessage,
                        e.to_string(),
                    ))
                    .await
            }
        };
        let cmd = GameCommand::Payload {
            from: self.id,
            payload,
            outbox: self.outbox.clone(),
        };
        let sent = timeout(GAME_SEND_TIMEOUT, game.send(cmd)).await;
        if !matches!(sent, Ok(Ok(()))) {
            self.reply(busy(game_id)).await?;
        }
        Ok(())
    }

    /// The answer to [`ClientMessage::Locate`] (issue 25).
    async fn locate(&self, game_id: GameId) -> ServerMessage {
        let lobby = &self.ctx.lobby;
        let owner = match lobby.locate(game_id).await {
            Ok(GameLocation::ThisNode) => GameOwner::ThisNode,
            Ok(GameLocation::OtherNode {
                node,
                address,
                lease_left,
            }) if node.len() <= MAX_NODE_ID_LEN && address.len() <= MAX_ADDRESS_LEN => {
                GameOwner::OtherNode {
                    node,
                    address,
                    lease_left_ms: lease_left.as_millis() as u64,
                }
            }
            Ok(GameLocation::OtherNode { node, .. }) => {
                return ServerMessage::error(
                    ErrorCode::Internal,
                    format!("game {game_id} is served by node {node}, whose id or address is too long to send"),
                )
            }
            Err(StoreError::Draining) => GameOwner::Leaving,
            Err(StoreError::UnknownGame(_)) => {
                return ServerMessage::error(
                    ErrorCode::UnknownGame,
                    format!("no game {game_id} on this server"),
                )
            }
            Err(e) => return ServerMessage::error(ErrorCode::Internal, e.to_string()),
        };
        let mut nodes = lobby.node_addresses().await;
        nodes.retain(|n| n.len() <= MAX_ADDRESS_LEN);
        nodes.truncate(MAX_LISTED_NODES);
        ServerMessage::Located {
            game_id,
            owner,
            nodes,
        }
    }

    async fn transcript_chunk(&self, game_id: GameId, offset: u64) -> ServerMessage {
        let transcript = match self.ctx.lobby.store().load_transcript(game_id).await {
            Ok(Some(t)) => t,
            Ok(None) => {
                return ServerMessage::error(
                    ErrorCode::NotFinished,
                    format!("game {game_id} has not finished; no transcript yet"),
                )
            }
            Err(StoreError::UnknownGame(_)) => {
                return ServerMessage::error(
                    ErrorCode::UnknownGame,
                    format!("no game {game_id} on this server"),
                )
            }
            Err(e) => return ServerMessage::error(ErrorCode::Internal, e.to_string()),
        };
        let total_len = transcript.len() as u64;
        if offset > total_len {
            return ServerMessage::error(
                ErrorCode::BadOffset,
                format!("offset {offset} is past the transcript's end ({total_len} bytes)"),
            );
        }
        let start = offset as usize;
        let end = (start + MAX_PAYLOAD_LEN).min(transcript.len());
        ServerMessage::TranscriptChunk {
            game_id,
            offset,
            total_len,
            bytes: transcript[start..end].to_vec(),
        }
    }

    async fn join(
        &mut self,
        key: PublicKey,
        game_id: GameId,
        role: Role,
        resume_from: u64,
    ) -> Result<(), Ending> {
        if self.joined.contains_key(&game_id) {
            return self
                .reply(ServerMessage::error(
                    ErrorCode::UnexpectedMessage,
                    format!("already joined game {game_id}; leave it first"),
                ))
                .await;
        }
        // A finished game is brought back from its log for a late
        // spectator (DESIGN 5).
        let game = match self.ctx.lobby.open_game_from(game_id, key, Some(self.party)).await {
            Ok(Some(game)) => game,
            Ok(None) => {
                return self
                    .reply(ServerMessage::error(
                        ErrorCode::UnknownGame,
                        format!("no game {game_id} on this server"),
                    ))
                    .await
            }
            // A node that had this node's address holds it (this node was
            // restarted under another id): following it would come back
            // here, so the client is told to try again once its lease ends.
            Err(LobbyError::Store(StoreError::NotOwner { address, node, .. }))
                if address == self.ctx.lobby.address() =>
            {
                return self
                    .reply(ServerMessage::error(
                        ErrorCode::Busy,
                        format!("game {game_id} is still leased to node {node}, which had this node's address {address}; try again when its lease ends"),
                    ))
                    .await
            }
            // Another node serves it (issue 13): the client goes there.
            Err(LobbyError::Store(StoreError::NotOwner { address, .. }))
                if address.len() <= MAX_ADDRESS_LEN =>
            {
                return self
                    .reply(ServerMessage::ServedElsewhere { game_id, address })
                    .await
            }
            // This node is shutting down (issue 25): another one takes it.
            Err(LobbyError::Store(StoreError::Draining)) => {
                let msg = match self.ctx.lobby.another_node(game_id).await {
                    Some(address) => ServerMessage::ServedElsewhere { game_id, address },
                    None => ServerMessage::error(
                        ErrorCode::Busy,
                        "this node is shutting down and knows no other; try again on another node",
                    ),
                };
                return self.reply(msg).await;
            }
            Err(e) => {
                return self
                    .reply(ServerMessage::error(
                        e.code(),
                        format!("game {game_id} could not be opened: {e}"),
                    ))
                    .await
            }
        };
        let (tx, rx) = oneshot::channel();
        let cmd = GameCommand::Join {
            participant: Box::new(Participant {
                connection: self.id,
                key,
                role,
            }),
            resume_from,
            link: ConnectionLink {
                id: self.id,
                outbox: self.outbox.clone(),
                quic: Some(self.conn.clone()),
            },
            reply: tx,
        };
        let joined = async {
            game.send(cmd).await.ok()?;
            rx.await.ok()
        };
        match timeout(GAME_SEND_TIMEOUT, joined).await {
            Ok(Some(true)) => {
                self.joined.insert(game_id, (role, game));
                Ok(())
            }
            // The game already told the client why.
            Ok(Some(false)) => Ok(()),
            _ => self.reply(busy(game_id)).await,
        }
    }

    /// Leave every game, flush the outbox (bounded), then close.
    async fn finish(self, ending: Ending, writer: tokio::task::JoinHandle<()>) {
        let Session {
            id,
            conn,
            outbox,
            joined,
            ctx,
            partial_held,
            key_slot,
            ..
        } = self;
        // Its incomplete message no longer counts; its key slot is free.
        ctx.partial_bytes.fetch_sub(partial_held, Ordering::Relaxed);
        drop(key_slot);
        if let Some(err) = ending.error {
            let _ = outbox.try_send(err);
        }
        for (game_id, (_, game)) in joined {
            // Bounded: a stuck game learns of the departure when it next
            // finds this connection's outbox closed.
            let sent = timeout(
                GAME_SEND_TIMEOUT,
                game.send(GameCommand::Leave { from: id }),
            )
            .await;
            if !matches!(sent, Ok(Ok(()))) {
                debug!(%game_id, connection = id.0, "leave not delivered");
            }
        }
        drop(outbox);
        let _ = timeout(ctx.settings.frame.transfer_timeout, writer).await;
        conn.close(VarInt::from_u32(ending.code), ending.reason.as_bytes());
        debug!(connection = id.0, reason = %ending.reason, "connection closed");
    }
}

fn not_joined(game_id: GameId) -> ServerMessage {
    ServerMessage::error(
        ErrorCode::NotJoined,
        format!("this connection has not joined game {game_id}"),
    )
}

fn busy(game_id: GameId) -> ServerMessage {
    ServerMessage::error(
        ErrorCode::Busy,
        format!("game {game_id} is busy; nothing was changed, try again"),
    )
}

fn variant_name(m: &ClientMessage) -> &'static str {
    match m {
        ClientMessage::Hello { .. } => "Hello",
        ClientMessage::Login { .. } => "Login",
        ClientMessage::Ping { .. } => "Ping",
        ClientMessage::CreateGame { .. } => "CreateGame",
        ClientMessage::ListGames => "ListGames",
        ClientMessage::Join { .. } => "Join",
        ClientMessage::Leave { .. } => "Leave",
        ClientMessage::Game { .. } => "Game",
        ClientMessage::FetchTranscript { .. } => "FetchTranscript",
        ClientMessage::ListFinished { .. } => "ListFinished",
        ClientMessage::Locate { .. } => "Locate",
        ClientMessage::WatchPresence { .. } => "WatchPresence",
        ClientMessage::ListOpenGames => "ListOpenGames",
        ClientMessage::ListOpenGamesNamed => "ListOpenGamesNamed",
    }
}
