//! The lobby and the game tasks (DESIGN section 5).
//!
//! This file holds, in order: the settings and limits, the [`Lobby`] (games
//! by id: create, list, join, restore, expire, per key and address
//! budgets), then the game task (`GameTask`: one per game, its members, its
//! spectator queue and catch-up backlog), then their tests.
//!
//! Each game is owned by one tokio task holding its [`GameSession`];
//! connections talk to it through a bounded channel of [`GameCommand`]s and
//! it answers through each connection's bounded outbox with `try_send`. A game
//! never waits on a connection: a connection whose outbox is full is too slow,
//! and is dropped from the game and closed. A connection waits on a game only
//! with a timeout ([`GAME_SEND_TIMEOUT`]), so a stuck game delays only its own
//! players. Slow or silent clients therefore never stall another game.
//!
//! Spectators (DESIGN 5) get the public view late by the spectator delay: a
//! game task holds each [`Effect::Publish`] in a queue until it matures,
//! and counts those that have left it. A spectator who joins is sent that
//! many public messages from the first ([`GameSession::public_message`]:
//! what the spectators already present have seen), then the queue's rest
//! as it matures, like everyone else: no message twice, none missing, in
//! order. A message's bytes are asked of the session only when a spectator
//! is there to receive them, so a game no one watches builds no public view
//! (issue 16).
//! Once the game has finished its transcript is public (anyone may fetch
//! it), so the queue is flushed and nothing is held back any more; a
//! finished game whose task has ended is brought back from its log when
//! someone joins it ([`Lobby::open_game`]); its task then stays for the
//! finished-game linger after its last member leaves, so joining and leaving
//! again does not rebuild it, and rebuilds are rate-limited per key (G6).
//!
//! Bounded cost (G6): unfinished games are capped per creator key and in
//! all ([`GameSettings::caps`], counted by the store in the creating
//! transaction), games whose seats were never both taken expire
//! ([`Lobby::expire_unstarted`]), and unfinished games are restored from
//! their logs lazily, when first joined, so the server listens at once after
//! a restart however many games it holds ([`Lobby::restore_unfinished`]).

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::queue;
use quinn::VarInt;
use ring::rand::{SecureRandom, SystemRandom};
use thiserror::Error;
use tokio::sync::oneshot;
use tokio::time::{sleep_until, Instant};
use tracing::{debug, error, info, warn};

use crate::metrics::Metrics;
use crate::rate::RateLimit;
use crate::session::{
    unix_millis, ConnectionId, Effect, GameSession, Participant, Recipient, SessionContext,
    SessionFactory, StoredEvents,
};
use crate::shares::{Budget, BudgetRates, Party};
use crate::store::{GameCaps, GameLocation, NewGameRecord, StoreError, StoreHandle};
use crate::wire::{
    split_game_message, Awaited, ErrorCode, GameId, GameSummary, Presence, PublicKey, Role,
    ServerMessage, Side, MAX_GAME_MESSAGE_LEN, MAX_LISTED_GAMES,
};

/// Commands a game task's channel holds at most.
pub const GAME_QUEUE: usize = 64;

/// How long a connection waits for room in a game's channel or for its
/// answer to a join before reporting the game busy.
pub const GAME_SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// QUIC close code for a connection dropped because it read too slowly.
pub const CLOSE_TOO_SLOW: u32 = 4;

/// Per-game timing settings and the lobby's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSettings {
    /// How long an awaited side may take to answer; handed to the session
    /// factory in [`SessionContext`] (the session keeps the clock, G2).
    pub answer_timeout: Duration,
    /// How late spectators see the public messages ([`Effect::Publish`]).
    pub spectator_delay: Duration,
    /// Caps on unfinished games, per creator key and in all.
    pub caps: GameCaps,
    /// Longest pad a new game may ask for; handed to the factory.
    pub max_pad_len: u32,
    /// A game whose two seats were never both taken expires this long after
    /// its creation.
    pub unstarted_expiry: Duration,
    /// How long a finished game's task stays after its last member left,
    /// so that joining it again costs no rebuild.
    pub finished_linger: Duration,
    /// How often one key may have a finished game rebuilt from its log.
    pub rebuild_rate: RateLimit,
}

/// Default cap on one key's unfinished games.
pub const DEFAULT_MAX_UNFINISHED_PER_KEY: u64 = 16;
/// Default cap on the unfinished games created from one address (an
/// IPv4 address, an IPv6 /64): two keys' worth, so fresh keys buy nothing
/// (issue 31).
pub const DEFAULT_MAX_UNFINISHED_PER_ADDRESS: u64 = 32;
/// Default cap on the unfinished games created from one network (an IPv4
/// /24, an IPv6 /48): a club behind one network, not the server.
pub const DEFAULT_MAX_UNFINISHED_PER_NETWORK: u64 = 64;
/// Default cap on the server's games under way (both seats committed).
pub const DEFAULT_MAX_UNFINISHED: u64 = 1024;
/// Default cap on the server's pending games (seats not both committed):
/// filling it takes 16 networks' shares, and they expire in minutes.
pub const DEFAULT_MAX_PENDING: u64 = 1024;
/// Default longest pad a new game may ask for (the client's default).
pub const DEFAULT_MAX_PAD_LEN: u32 = 4096;
/// Default expiry of a game whose seats were never both committed: 15
/// minutes (issue 31: a game no one plays holds its creator's share and
/// the pending total for minutes, not days).
pub const DEFAULT_UNSTARTED_EXPIRY: Duration = Duration::from_secs(15 * 60);
/// Default linger of a finished game's task: 30 seconds, long enough for
/// its players and spectators to come back for the result without a
/// rebuild, short enough that a league's finished games do not pile up in
/// memory (the soak: issue 16).
pub const DEFAULT_FINISHED_LINGER: Duration = Duration::from_secs(30);
/// Default rebuilds of finished games per key: one a second,
/// bursts of 6.
pub const DEFAULT_REBUILD_RATE: RateLimit = RateLimit {
    frames_per_second: std::num::NonZeroU32::MIN,
    burst: std::num::NonZeroU32::new(6).expect("non-zero"),
};
/// The rebuild budget's rates: one address has one key's budget (fresh
/// keys buy nothing, issue 31), one network four.
fn rebuild_rates(per_key: RateLimit) -> BudgetRates {
    let times4 =
        |n: std::num::NonZeroU32| n.saturating_mul(std::num::NonZeroU32::new(4).expect("non-zero"));
    BudgetRates {
        per_key,
        per_address: per_key,
        per_network: RateLimit {
            frames_per_second: times4(per_key.frames_per_second),
            burst: times4(per_key.burst),
        },
    }
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            answer_timeout: Duration::from_secs(600),
            spectator_delay: Duration::ZERO,
            caps: GameCaps {
                per_key: DEFAULT_MAX_UNFINISHED_PER_KEY,
                per_address: DEFAULT_MAX_UNFINISHED_PER_ADDRESS,
                per_network: DEFAULT_MAX_UNFINISHED_PER_NETWORK,
                total: DEFAULT_MAX_UNFINISHED,
                pending: DEFAULT_MAX_PENDING,
            },
            max_pad_len: DEFAULT_MAX_PAD_LEN,
            unstarted_expiry: DEFAULT_UNSTARTED_EXPIRY,
            finished_linger: DEFAULT_FINISHED_LINGER,
            rebuild_rate: DEFAULT_REBUILD_RATE,
        }
    }
}

/// Why a lobby operation failed.
#[derive(Debug, Error)]
pub enum LobbyError {
    /// The session factory refused the scenario.
    #[error("the game was refused: {0}")]
    Rejected(String),
    /// Storing the new game failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The random generator failed.
    #[error("system random generator failed")]
    Random,
    /// The key asked for too many rebuilds of finished games (G6).
    #[error("{0}")]
    RateLimited(String),
}

impl LobbyError {
    /// The error code a client is sent.
    pub fn code(&self) -> ErrorCode {
        match self {
            LobbyError::Rejected(_) => ErrorCode::Rejected,
            LobbyError::RateLimited(_) => ErrorCode::RateLimited,
            LobbyError::Store(StoreError::TooManyGames { .. }) => ErrorCode::Rejected,
            LobbyError::Store(StoreError::Draining) => ErrorCode::Busy,
            LobbyError::Store(_) | LobbyError::Random => ErrorCode::Internal,
        }
    }
}

/// The way back from a game to one connection.
#[derive(Clone, Debug)]
pub struct ConnectionLink {
    /// The connection's id.
    pub id: ConnectionId,
    /// Its bounded outbox (the connection's writer drains it).
    pub outbox: queue::Sender<ServerMessage>,
    /// The QUIC connection, closed if the outbox overflows.
    pub quic: Option<quinn::Connection>,
}

/// A request from a connection to a game task.
#[derive(Debug)]
pub enum GameCommand {
    /// Join in `participant.role`. The game sends `Joined` or an error to the
    /// outbox itself, and answers `true` on `reply` if the join succeeded.
    Join {
        /// Who asks (boxed: a game's queue keeps the buffer its busiest
        /// moment needed, and this was the largest variant).
        participant: Box<Participant>,
        /// First event sequence number the client has not seen.
        resume_from: u64,
        /// Where to answer.
        link: ConnectionLink,
        /// Whether it worked.
        reply: oneshot::Sender<bool>,
    },
    /// A game payload from a seated player.
    Payload {
        /// The sender's connection.
        from: ConnectionId,
        /// The bytes.
        payload: Vec<u8>,
        /// Where to report that the sender is no longer a member (e.g. its
        /// seat was taken over by a newer connection of the same key).
        outbox: queue::Sender<ServerMessage>,
    },
    /// The connection leaves (or closed).
    Leave {
        /// The connection.
        from: ConnectionId,
    },
    /// The connection asks to be told the game's presence, now and when it
    /// changes ([`ServerMessage::Presence`], issue 27).
    WatchPresence {
        /// The connection.
        from: ConnectionId,
    },
    /// The game expired in the store (it never started): tell the members
    /// and end the task.
    Expire,
    /// This node lost the game's lease to another node (issue 13): tell
    /// the members to connect again and end the task.
    Moved,
    /// This node is shutting down (issue 25): finish what is in flight,
    /// release the game's lease, send the members to `to` (another live
    /// node, if one is known) and end the task; `done` is told when the
    /// lease is released and the members told.
    Drain {
        /// Where the members go next.
        to: Option<String>,
        /// Told when done.
        done: oneshot::Sender<()>,
    },
}

/// Seats and counts of a live game, updated by its task, read by listings.
#[derive(Debug, Default)]
struct GameStatus {
    first: AtomicBool,
    second: AtomicBool,
    spectators: AtomicU32,
    finished: AtomicBool,
    /// Who the game waits for now, as its last presence said (issue 27):
    /// for the web view's list.
    awaited: Mutex<Option<Awaited>>,
    /// The names the players' keys signed in their setups, side A first
    /// (issue 27 item 8): for the lists.
    signed: Mutex<[Option<String>; 2]>,
}

#[derive(Debug)]
struct GameEntry {
    commands: queue::Sender<GameCommand>,
    status: Arc<GameStatus>,
}

type Registry = Arc<Mutex<HashMap<GameId, GameEntry>>>;

/// All live games of this server. A game's task ends, and the game leaves
/// the lobby, when it has finished and its last participant has left, or when
/// its storage failed; a finished game's transcript stays in the store.
pub struct Lobby {
    games: Registry,
    /// Unfinished games in the store not brought back yet (lazy restore).
    dormant: Mutex<BTreeSet<GameId>>,
    /// Games being rebuilt now: their leases are kept like live games'.
    opening: Mutex<BTreeSet<GameId>>,
    factory: Arc<dyn SessionFactory>,
    store: StoreHandle,
    settings: GameSettings,
    rng: SystemRandom,
    /// How many times a game was rebuilt from its log (restored or
    /// reopened), for measurement.
    rebuilds: AtomicU64,
    /// Per-key budget of rebuilds of finished games.
    /// Rebuilds of finished games, paid per key, address and network.
    rebuilds_budget: Budget,
    /// The operator's metrics, shared with every game task.
    metrics: Arc<Metrics>,
    /// Whether games are leased to this node (a store shared by several
    /// nodes): a join of a live game then checks the lease first.
    leased: AtomicBool,
    /// Whether this node is shutting down (issue 25): it opens and
    /// creates no game, and its lease renewal has stopped.
    draining: AtomicBool,
    /// The address this node's clients connect to (`--advertise`, else the
    /// bound address).
    address: Mutex<String>,
}

impl std::fmt::Debug for Lobby {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lobby")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Lobby {
    /// An empty lobby; its games report to the store's metrics
    /// ([`StoreHandle::metrics`]).
    pub fn new(
        factory: Arc<dyn SessionFactory>,
        store: StoreHandle,
        settings: GameSettings,
    ) -> Self {
        Lobby {
            metrics: store.metrics().clone(),
            games: Arc::new(Mutex::new(HashMap::new())),
            dormant: Mutex::new(BTreeSet::new()),
            opening: Mutex::new(BTreeSet::new()),
            factory,
            store,
            settings,
            rng: SystemRandom::new(),
            rebuilds: AtomicU64::new(0),
            rebuilds_budget: Budget::new(rebuild_rates(settings.rebuild_rate)),
            leased: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            address: Mutex::new(String::new()),
        }
    }

    /// Sets the address this node's clients connect to.
    pub fn set_address(&self, address: String) {
        *self.address.lock().expect("lobby lock poisoned") = address;
    }

    /// The address this node's clients connect to.
    pub fn address(&self) -> String {
        self.address.lock().expect("lobby lock poisoned").clone()
    }

    /// Whether this node is shutting down.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// How many times a game has been rebuilt from its log (an unfinished
    /// game restored, a finished one reopened) since the lobby started.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds.load(Ordering::Relaxed)
    }

    /// How many games have a task (are in memory) now.
    pub fn live_games(&self) -> usize {
        let games = self.games.lock().expect("lobby lock poisoned");
        games.values().filter(|e| !e.commands.is_closed()).count()
    }

    /// The lobby's settings.
    pub fn settings(&self) -> &GameSettings {
        &self.settings
    }

    /// The store games write to.
    pub fn store(&self) -> &StoreHandle {
        &self.store
    }

    /// The operator's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Note every unfinished game of the store; each is rebuilt from its
    /// stored log (DESIGN section 5: restart replays the log through the
    /// engine) when someone first joins it ([`Lobby::open_game`]), so the
    /// server listens at once however many games it holds (G6). Returns how
    /// many there are.
    pub async fn restore_unfinished(&self) -> Result<usize, StoreError> {
        let ids = self.store.list_unfinished().await?;
        let n = ids.len();
        self.dormant
            .lock()
            .expect("lobby lock poisoned")
            .extend(ids);
        Ok(n)
    }

    /// Create a game for `creator` from scenario bytes, made inside the
    /// server (tests and tools): no address pays for it
    /// ([`Lobby::create_game_from`]).
    pub async fn create_game(
        &self,
        creator: PublicKey,
        scenario: Vec<u8>,
    ) -> Result<GameId, LobbyError> {
        self.create_game_from(creator, None, scenario).await
    }

    /// Create a game for `creator`, a client of `party`, from scenario
    /// bytes: the caps are checked, the factory makes its session, the
    /// store records it durably with its first log entries (its genesis),
    /// checking the caps again in the same transaction, then its task
    /// starts. Returns only once the game and its genesis are durable, so
    /// a `GameCreated` never names a game a crash could leave without one
    /// (G6, issue 31).
    pub async fn create_game_from(
        &self,
        creator: PublicKey,
        party: Option<Party>,
        scenario: Vec<u8>,
    ) -> Result<GameId, LobbyError> {
        if self.is_draining() {
            return Err(StoreError::Draining.into());
        }
        let record = NewGameRecord {
            creator,
            party,
            created_ms: unix_millis(),
            caps: self.settings.caps,
        };
        // Checked before the session is made, so a key over its cap costs
        // no pad generation; checked again when the game is stored.
        record.check_caps(&self.store.count_unfinished(creator, party).await?)?;
        let mut id = [0u8; 16];
        self.rng.fill(&mut id).map_err(|_| LobbyError::Random)?;
        let game_id = GameId(id);
        let mut session = self
            .factory
            .create(&self.context(game_id), &scenario)
            .map_err(|r| LobbyError::Rejected(r.0))?;
        // The entries the session writes first (its genesis) are stored
        // with the game, in one transaction; the rest of what it returned
        // at its start is its task's to carry out.
        let mut begun = session.start(unix_millis());
        let genesis = begun
            .iter()
            .take_while(|e| matches!(e, Effect::Append(_)))
            .count();
        let log: Vec<Vec<u8>> = begun
            .drain(..genesis)
            .map(|e| match e {
                Effect::Append(bytes) => bytes,
                _ => unreachable!("only appends were counted"),
            })
            .collect();
        let next_seq = log.len() as u64;
        // Counted live from before its lease exists until its task does:
        // a renewal never gives up the lease of a game being created
        // (issue 25: one that did stopped the new game at its first write).
        self.opening
            .lock()
            .expect("lobby lock poisoned")
            .insert(game_id);
        let stored = self.store.create_game(game_id, scenario, record, log).await;
        if stored.is_ok() {
            self.spawn_game(
                game_id,
                session,
                next_seq,
                Origin::Created,
                false,
                Some(begun),
            );
        }
        self.opening
            .lock()
            .expect("lobby lock poisoned")
            .remove(&game_id);
        stored?;
        self.metrics.game_created();
        info!(%game_id, "game created");
        Ok(game_id)
    }

    /// Expire the games created more than the expiry ago whose seats were
    /// never both taken (G6): marked in the store, their tasks told to end.
    /// Returns how many.
    pub async fn expire_unstarted(&self) -> Result<usize, StoreError> {
        let cutoff =
            unix_millis().saturating_sub(self.settings.unstarted_expiry.as_millis() as u64);
        let ids = self.store.expire_unstarted(cutoff).await?;
        for id in &ids {
            self.dormant.lock().expect("lobby lock poisoned").remove(id);
            if let Some(game) = self.commands(*id) {
                let _ = game.try_send(GameCommand::Expire);
            }
            info!(game_id = %id, "game expired: never started");
        }
        Ok(ids.len())
    }

    /// Expires games that never started, now and then, for as long as the
    /// lobby lives.
    pub fn spawn_expiry(self: &Arc<Self>) {
        let every = (self.settings.unstarted_expiry / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(60));
        let lobby = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(lobby) = lobby.upgrade() else { return };
                if let Err(e) = lobby.expire_unstarted().await {
                    warn!(error = %e, "could not expire games that never started");
                }
            }
        });
    }

    fn context(&self, game_id: GameId) -> SessionContext {
        SessionContext {
            game_id,
            now_ms: unix_millis(),
            answer_timeout: self.settings.answer_timeout,
            max_pad_len: self.settings.max_pad_len,
        }
    }

    /// Summaries of at most [`MAX_LISTED_GAMES`] live games.
    pub fn list(&self) -> Vec<GameSummary> {
        let games = self.games.lock().expect("lobby lock poisoned");
        let mut out: Vec<GameSummary> = games
            .iter()
            .filter(|(_, e)| !e.commands.is_closed())
            .map(|(id, e)| GameSummary {
                game_id: *id,
                side_a_seated: e.status.first.load(Ordering::Relaxed),
                side_b_seated: e.status.second.load(Ordering::Relaxed),
                spectators: e.status.spectators.load(Ordering::Relaxed),
                finished: e.status.finished.load(Ordering::Relaxed),
            })
            .collect();
        drop(games);
        // Restored lazily: listed, nobody seated yet.
        let dormant = self.dormant.lock().expect("lobby lock poisoned");
        out.extend(dormant.iter().take(MAX_LISTED_GAMES).map(|id| GameSummary {
            game_id: *id,
            side_a_seated: false,
            side_b_seated: false,
            spectators: 0,
            finished: false,
        }));
        out.sort_by_key(|g| g.game_id);
        out.dedup_by_key(|g| g.game_id);
        out.truncate(MAX_LISTED_GAMES);
        out
    }

    /// Who the live game `game_id` waits for, on what and until when, as
    /// its last presence said (issue 27; the server's word); `None` for a
    /// game not live here or waiting for nobody.
    pub fn awaited(&self, game_id: GameId) -> Option<Awaited> {
        let games = self.games.lock().expect("lobby lock poisoned");
        let status = games.get(&game_id)?.status.clone();
        drop(games);
        let awaited = status.awaited.lock().expect("status lock poisoned");
        awaited.clone()
    }

    /// The names the players of the live game `game_id` signed in their
    /// setups, side A first (issue 27 item 8; a setup is public); `None`
    /// for a game not live here.
    pub fn signed_names(&self, game_id: GameId) -> Option<[Option<String>; 2]> {
        let games = self.games.lock().expect("lobby lock poisoned");
        let status = games.get(&game_id)?.status.clone();
        drop(games);
        let names = status.signed.lock().expect("status lock poisoned");
        Some(names.clone())
    }

    /// Whether the live game `game_id` has finished.
    fn finished_here(&self, game_id: GameId) -> bool {
        let games = self.games.lock().expect("lobby lock poisoned");
        games
            .get(&game_id)
            .is_some_and(|e| e.status.finished.load(Ordering::Relaxed))
    }

    /// The command channel of a live game.
    pub fn commands(&self, game_id: GameId) -> Option<queue::Sender<GameCommand>> {
        let games = self.games.lock().expect("lobby lock poisoned");
        games
            .get(&game_id)
            .filter(|e| !e.commands.is_closed())
            .map(|e| e.commands.clone())
    }

    /// The command channel of a game `key` asks to join: a live game's,
    /// or a new task's with the game rebuilt from its stored log: an
    /// unfinished game not restored yet (lazy restore), or a finished game
    /// no task holds any more (so a late spectator still gets the whole
    /// public history, DESIGN 5; the transcript is fetched with
    /// `FetchTranscript`). Rebuilding a finished game is rate-limited per
    /// key (G6). `None` if no such game is stored or it expired.
    pub async fn open_game(
        &self,
        game_id: GameId,
        key: PublicKey,
    ) -> Result<Option<queue::Sender<GameCommand>>, LobbyError> {
        self.open_game_from(game_id, key, None).await
    }

    /// [`Lobby::open_game`] for a client of `party`: a rebuild of a
    /// finished game is paid by the key, its address and its network
    /// (issue 31: fresh keys do not get around the budget).
    pub async fn open_game_from(
        &self,
        game_id: GameId,
        key: PublicKey,
        party: Option<Party>,
    ) -> Result<Option<queue::Sender<GameCommand>>, LobbyError> {
        if self.is_draining() {
            return Err(StoreError::Draining.into());
        }
        if let Some(commands) = self.commands(game_id) {
            // A finished game has no lease: any node serves it.
            if !self.leased.load(Ordering::Relaxed) || self.finished_here(game_id) {
                return Ok(Some(commands));
            }
            // Issue 25: a node paused past its lease and resumed may still
            // have the game's task; nobody is let into it before the lease
            // is checked.
            match self.store.confirm_lease(game_id).await {
                Ok(()) => return Ok(Some(commands)),
                Err(e @ (StoreError::NotOwner { .. } | StoreError::Fenced(_))) => {
                    warn!(%game_id, "lease lost to another node; game stops here");
                    self.forget_task(game_id, &commands);
                    let _ = commands.try_send(GameCommand::Moved);
                    if let StoreError::NotOwner { .. } = e {
                        return Err(e.into());
                    }
                    // Nobody holds it now: rebuilt here, from the log.
                }
                Err(e) => return Err(e.into()),
            }
        }
        let game = match self.store.load_game(game_id).await {
            Ok(game) => game,
            Err(StoreError::UnknownGame(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        if game.expired {
            return Ok(None);
        }
        let origin = if game.result.is_some() {
            self.take_rebuild(key, party)?;
            Origin::Finished
        } else {
            Origin::Restored
        };
        self.opening
            .lock()
            .expect("lobby lock poisoned")
            .insert(game_id);
        let opened = self.rebuild(game_id, game, origin).await;
        self.opening
            .lock()
            .expect("lobby lock poisoned")
            .remove(&game_id);
        opened.map(Some)
    }

    /// Rebuilds a stored game from its log and starts its task; an
    /// unfinished game's lease is taken first (issue 13: on a store shared
    /// by several nodes, after a takeover the log read holds every entry the
    /// old owner acknowledged).
    async fn rebuild(
        &self,
        game_id: GameId,
        game: crate::store::StoredGame,
        origin: Origin,
    ) -> Result<queue::Sender<GameCommand>, LobbyError> {
        if origin == Origin::Restored {
            self.store.acquire_lease(game_id).await?;
        }
        let events: Vec<Vec<u8>> = self
            .store
            .load_events(game_id)
            .await?
            .into_iter()
            .map(|e| e.bytes)
            .collect();
        let next_seq = events.len() as u64;
        // A game whose lease was lost before its first entry was written
        // (issue 25) is offered again as new: nothing of it was ever
        // acknowledged, so it starts as it would have.
        let (origin, made) = if events.is_empty() && origin == Origin::Restored {
            info!(%game_id, "game has no entry yet; starting it afresh");
            (
                Origin::Created,
                self.factory.create(&self.context(game_id), &game.metadata),
            )
        } else {
            (
                origin,
                self.factory
                    .restore(&self.context(game_id), &game.metadata, &events),
            )
        };
        let session = match made {
            Ok(s) => s,
            Err(r) => {
                error!(%game_id, reason = %r.0, "could not restore game");
                return Err(LobbyError::Rejected(r.0));
            }
        };
        self.rebuilds.fetch_add(1, Ordering::Relaxed);
        let (commands, ready) =
            self.spawn_game(game_id, session, next_seq, origin, game.started, None);
        self.dormant
            .lock()
            .expect("lobby lock poisoned")
            .remove(&game_id);
        if let Some(ready) = ready {
            // What the restored session owed at its start (a closed log's
            // result and transcript among it) is stored before anyone is
            // answered.
            let _ = tokio::time::timeout(GAME_SEND_TIMEOUT, ready).await;
        }
        Ok(commands)
    }

    /// Games whose leases this node keeps: those with a task, and those
    /// being rebuilt.
    fn leased_here(&self) -> Vec<GameId> {
        let mut ids: Vec<GameId> = {
            let games = self.games.lock().expect("lobby lock poisoned");
            games
                .iter()
                .filter(|(_, e)| !e.commands.is_closed())
                .map(|(id, _)| *id)
                .collect()
        };
        ids.extend(self.opening.lock().expect("lobby lock poisoned").iter());
        ids
    }

    /// Renews this node's leases (a store shared by several nodes, issue
    /// 13) every third of the lease period, for as long as the lobby
    /// lives; a game whose lease was lost (taken over by another node after
    /// it expired: this node was paused or cut off) is told to stop here.
    /// Nothing to do for a store without leases.
    ///
    /// The games live here are listed on the storage thread right before
    /// the renewal ([`StoreHandle::renew_leases`]), and a game counts live
    /// from before its lease is taken (`opening`): a lease taken by a job
    /// queued before the renewal is never given up as idle (issue 25).
    pub async fn spawn_lease_renewal(self: &Arc<Self>) -> Result<(), StoreError> {
        let Some(period) = self.store.lease_period().await? else {
            return Ok(());
        };
        self.leased.store(true, Ordering::Relaxed);
        let every = (period / 3).max(Duration::from_millis(50));
        let lobby = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(lobby) = lobby.upgrade() else { return };
                if lobby.is_draining() {
                    return;
                }
                let here = Arc::downgrade(&lobby);
                let live = move || here.upgrade().map(|l| l.leased_here()).unwrap_or_default();
                match lobby.store.renew_leases(live).await {
                    Ok(lost) => {
                        for id in lost {
                            warn!(game_id = %id, "lease lost to another node; game stops here");
                            if let Some(game) = lobby.commands(id) {
                                let _ = game.try_send(GameCommand::Moved);
                            }
                        }
                    }
                    Err(e @ StoreError::NodeIdInUse { .. }) => {
                        // Another process took this node's id over while
                        // this one was paused: every game here is stale.
                        error!(error = %e, "this node's id was taken over; its games stop here");
                        for id in lobby.leased_here() {
                            if let Some(game) = lobby.commands(id) {
                                let _ = game.try_send(GameCommand::Moved);
                            }
                        }
                    }
                    Err(e) => warn!(error = %e, "could not renew leases"),
                }
            }
        });
        Ok(())
    }

    /// Drops a live game's task from the registry (a newer one may then
    /// start); the task itself is told separately.
    fn forget_task(&self, game_id: GameId, commands: &queue::Sender<GameCommand>) {
        let mut games = self.games.lock().expect("lobby lock poisoned");
        if games
            .get(&game_id)
            .is_some_and(|e| e.commands.same_channel(commands))
        {
            games.remove(&game_id);
        }
    }

    /// Where `game_id` is served, for a client that asks (issue 25):
    /// here if it has a task here or no other node's lease runs.
    pub async fn locate(&self, game_id: GameId) -> Result<GameLocation, StoreError> {
        if self.is_draining() {
            return Err(StoreError::Draining);
        }
        // With leases the store says (a task here may be stale: this node
        // was paused past its lease).
        if !self.leased.load(Ordering::Relaxed) && self.commands(game_id).is_some() {
            return Ok(GameLocation::ThisNode);
        }
        self.store.locate(game_id).await
    }

    /// The addresses of the league's live nodes (this one's alone for a
    /// store only it uses).
    pub async fn node_addresses(&self) -> Vec<String> {
        let mut nodes: Vec<String> = match self.store.live_nodes().await {
            Ok(nodes) => nodes.into_iter().map(|n| n.address).collect(),
            Err(e) => {
                warn!(error = %e, "could not list the league's nodes");
                Vec::new()
            }
        };
        let own = self.address();
        if !own.is_empty() && !nodes.contains(&own) && !self.is_draining() {
            nodes.push(own);
        }
        nodes
    }

    /// Another live node than this one for `game_id`, spread over the
    /// nodes by the game (the same node for every member of a game).
    pub async fn another_node(&self, game_id: GameId) -> Option<String> {
        pick_for(game_id, &self.other_nodes().await).cloned()
    }

    /// The addresses of the league's other live nodes.
    async fn other_nodes(&self) -> Vec<String> {
        let own = self.address();
        match self.store.live_nodes().await {
            Ok(nodes) => nodes
                .into_iter()
                .map(|n| n.address)
                .filter(|a| *a != own)
                .collect(),
            Err(e) => {
                warn!(error = %e, "could not list the league's nodes");
                Vec::new()
            }
        }
    }

    /// Shuts this node's games down (issue 25): no game is opened or
    /// created from now on, lease renewal stops, and each live game
    /// finishes what it was doing, releases its lease and sends its members
    /// to another live node. Waits (at most `within`) for every game task
    /// to end; returns how many games were handed over.
    pub async fn drain(&self, within: Duration) -> usize {
        self.draining.store(true, Ordering::Relaxed);
        let live: Vec<(GameId, queue::Sender<GameCommand>)> = {
            let games = self.games.lock().expect("lobby lock poisoned");
            games
                .iter()
                .filter(|(_, e)| !e.commands.is_closed())
                .map(|(id, e)| (*id, e.commands.clone()))
                .collect()
        };
        let deadline = Instant::now() + within;
        let others = self.other_nodes().await;
        let mut waiting = Vec::new();
        for (game_id, commands) in &live {
            let (done, finished) = oneshot::channel();
            let to = pick_for(*game_id, &others).cloned();
            let cmd = GameCommand::Drain { to, done };
            if tokio::time::timeout_at(deadline, commands.send(cmd))
                .await
                .is_ok_and(|sent| sent.is_ok())
            {
                waiting.push(finished);
            }
        }
        let mut handed = 0;
        for finished in waiting {
            if tokio::time::timeout_at(deadline, finished)
                .await
                .is_ok_and(|r| r.is_ok())
            {
                handed += 1;
            }
        }
        handed
    }

    /// Leaves the league after a drain: every lease still held is
    /// released and this node's row removed.
    pub async fn leave(&self) -> Result<(), StoreError> {
        self.store.leave().await
    }

    /// Takes one rebuild of a finished game from `key`'s budget, its
    /// address's and its network's.
    fn take_rebuild(&self, key: PublicKey, party: Option<Party>) -> Result<(), LobbyError> {
        self.rebuilds_budget
            .take(Some(key), party.as_ref(), std::time::Instant::now())
            .map_err(|e| {
                LobbyError::RateLimited(format!(
                    "too many finished games reopened: {e}; try again later, or fetch the transcript"
                ))
            })
    }

    /// Starts the task of a game, unless one is already live (a finished
    /// game two connections reopened at once): then `session` is dropped
    /// and the live task's channel returned.
    fn spawn_game(
        &self,
        game_id: GameId,
        session: Box<dyn GameSession>,
        next_seq: u64,
        origin: Origin,
        started: bool,
        begun: Option<Vec<Effect>>,
    ) -> (queue::Sender<GameCommand>, Option<oneshot::Receiver<()>>) {
        let mut games = self.games.lock().expect("lobby lock poisoned");
        if let Some(live) = games.get(&game_id).filter(|e| !e.commands.is_closed()) {
            return (live.commands.clone(), None);
        }
        let (ready_tx, ready_rx) = oneshot::channel();
        let (tx, rx) = queue::channel(GAME_QUEUE);
        let status = Arc::new(GameStatus::default());
        status
            .finished
            .store(origin == Origin::Finished, Ordering::Relaxed);
        let task = GameTask {
            names_known: false,
            game_id,
            session,
            store: self.store.clone(),
            next_seq,
            members: HashMap::new(),
            seats: [None, None],
            delayed: VecDeque::new(),
            public_sent: 0,
            settings: self.settings,
            status: status.clone(),
            deadline: None,
            departures: Vec::new(),
            registry: self.games.clone(),
            started,
            linger_until: None,
            ready: Some(ready_tx),
            metrics: self.metrics.clone(),
            begun,
            presence: None,
        };
        games.insert(
            game_id,
            GameEntry {
                commands: tx.clone(),
                status,
            },
        );
        tokio::spawn(task.run(rx, origin));
        (tx, Some(ready_rx))
    }
}

/// The node of `nodes` a game goes to: the one whose hash with the game
/// is the highest (rendezvous hashing), so every member of a game picks
/// the same node and games spread over the nodes.
pub fn pick_for(game_id: GameId, nodes: &[String]) -> Option<&String> {
    nodes.iter().max_by_key(|n| {
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        ctx.update(&game_id.0);
        ctx.update(n.as_bytes());
        let d = ctx.finish();
        let mut b = [0u8; 8];
        b.copy_from_slice(&d.as_ref()[..8]);
        u64::from_be_bytes(b)
    })
}

/// How a game task's session came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Just created: [`GameSession::start`] is called first.
    Created,
    /// An unfinished game rebuilt from its log at server start.
    Restored,
    /// A finished game rebuilt from its log for someone who joined it.
    Finished,
}

struct Member {
    participant: Participant,
    link: ConnectionLink,
    /// Whether it asked for the game's presence (issue 27).
    presence: bool,
}

struct GameTask {
    game_id: GameId,
    session: Box<dyn GameSession>,
    /// Whether the players' signed names were read ([`GameStatus::signed`]).
    names_known: bool,
    store: StoreHandle,
    next_seq: u64,
    members: HashMap<ConnectionId, Member>,
    seats: [Option<ConnectionId>; 2],
    /// Public messages not yet released to spectators: the time each may
    /// go, in order (the first is message number `public_sent`).
    delayed: VecDeque<Instant>,
    /// How many public messages have left `delayed` (sent to the
    /// spectators present then). Always `public_sent + delayed.len()` =
    /// the number the session has published.
    public_sent: usize,
    settings: GameSettings,
    status: Arc<GameStatus>,
    deadline: Option<Instant>,
    departures: Vec<Participant>,
    registry: Registry,
    /// Whether both seats have been taken at least once (stored).
    started: bool,
    /// When a finished game with no members ends its task.
    linger_until: Option<Instant>,
    /// Told once what the session owed at its start is stored.
    ready: Option<oneshot::Sender<()>>,
    /// The operator's metrics.
    metrics: Arc<Metrics>,
    /// What [`GameSession::start`] returned, if the lobby called it (a
    /// new game, whose genesis was stored with it): the rest is carried
    /// out instead of calling it again.
    begun: Option<Vec<Effect>>,
    /// The presence last sent to the members who watch it (issue 27).
    presence: Option<Presence>,
}

/// Messages a late spectator's catch-up queue holds at most while its
/// history is still being written (see [`GameTask::catch_up`]).
pub const CATCH_UP_QUEUE: usize = 256;

/// Writes a late spectator's history into its connection's outbox, waiting
/// for room (this task only waits on that one connection), then forwards
/// what the game sent it meanwhile and afterwards, in order, until the game
/// drops the queue or the connection closes.
async fn forward_backlog(
    history: Vec<ServerMessage>,
    mut live: queue::Receiver<ServerMessage>,
    outbox: queue::Sender<ServerMessage>,
) {
    for message in history {
        if outbox.send(message).await.is_err() {
            return;
        }
    }
    while let Some(message) = live.recv().await {
        if outbox.send(message).await.is_err() {
            return;
        }
    }
}

fn seat(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

/// A payload whose adjudication (the ruling and its effects) takes this
/// long or longer is logged at debug level, with the part of each: the
/// slowest payloads, for the latency's tail (issue 30).
const SLOW_PAYLOAD: std::time::Duration = std::time::Duration::from_millis(4);

/// Payloads this long or longer are ruled with
/// [`tokio::task::block_in_place`]: only the end-of-game reveals (about
/// 17 KB in the example scenario, where an action is a few hundred bytes)
/// are near it, and their checks take milliseconds.
const LONG_PAYLOAD: usize = 4096;

/// Whether this task runs on tokio's multi-threaded runtime, the only one
/// where [`tokio::task::block_in_place`] may be called.
fn multi_thread() -> bool {
    tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
}

/// A game task's entries not yet committed and the sends that wait for
/// them ([`GameTask::apply`]).
#[derive(Default)]
struct Pending {
    /// Entries to append, in order, from the task's next sequence number.
    appends: Vec<Vec<u8>>,
    /// What waits for those entries to be durable, in order.
    after: Vec<After>,
}

/// An effect that waits for the appends before it ([`Pending`]).
enum After {
    /// [`Effect::Send`].
    Send(Recipient, Vec<u8>),
    /// [`Effect::Publish`].
    Publish,
}

impl GameTask {
    async fn run(mut self, rx: queue::Receiver<GameCommand>, origin: Origin) {
        let outcome = self.serve(rx, origin).await;
        {
            // Only this task's own entry: a finished game may have been
            // reopened by a newer task in the meantime.
            let mut games = self.registry.lock().expect("lobby lock poisoned");
            if games
                .get(&self.game_id)
                .is_some_and(|e| Arc::ptr_eq(&e.status, &self.status))
            {
                games.remove(&self.game_id);
            }
        }
        match outcome {
            Ok(()) => info!(game_id = %self.game_id, "game task ended"),
            // Another node took the game over: its members go there.
            Err(StoreError::Fenced(_)) => {
                let to = self.owner_address().await;
                self.moved(to);
            }
            Err(e) => self.fail(e),
        }
    }

    async fn serve(
        &mut self,
        mut rx: queue::Receiver<GameCommand>,
        origin: Origin,
    ) -> Result<(), StoreError> {
        match origin {
            Origin::Created => {}
            // What spectators were sent before the restart is not known:
            // the whole public history is held for one delay (DESIGN 5), so
            // no entry reaches a spectator sooner than the delay after its
            // restart, however recent it was.
            Origin::Restored if !self.settings.spectator_delay.is_zero() => {
                let at = Instant::now() + self.settings.spectator_delay;
                self.delayed = std::iter::repeat_n(at, self.session.public_len()).collect();
            }
            Origin::Restored | Origin::Finished => {
                self.public_sent = self.session.public_len();
            }
        }
        if origin != Origin::Finished {
            let effects = match self.begun.take() {
                Some(effects) => effects,
                None => self.session.start(unix_millis()),
            };
            Box::pin(self.apply(effects)).await?;
        } else {
            // Rebuilt from its log for a late joiner: the store has it all.
            self.session.settled(self.public_sent);
        }
        if let Some(ready) = self.ready.take() {
            let _ = ready.send(());
        }
        self.refresh_deadline();
        loop {
            let next_delayed = self.delayed.front().copied();
            let deadline = self.deadline;
            let linger = self.linger_until;
            let result = tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(GameCommand::Expire) => {
                        self.expire();
                        return Ok(());
                    }
                    Some(GameCommand::Moved) => {
                        let to = self.owner_address().await;
                        self.moved(to);
                        return Ok(());
                    }
                    Some(GameCommand::Drain { to, done }) => {
                        self.drain(to).await;
                        let _ = done.send(());
                        return Ok(());
                    }
                    // Boxed while it runs (a store write, a join): inline,
                    // its future would size the game's task for its whole
                    // life, idle or not (issue 16); one allocation a
                    // command is nothing next to what a command costs.
                    Some(cmd) => Box::pin(self.on_command(cmd)).await,
                    None => return Ok(()),
                },
                // A finished game nobody joined again within the linger.
                _ = sleep_until(linger.unwrap_or_else(Instant::now)), if linger.is_some() => {
                    return Ok(());
                }
                _ = sleep_until(next_delayed.unwrap_or_else(Instant::now)), if next_delayed.is_some() => {
                    Box::pin(self.release_delayed(Some(Instant::now()))).await;
                    Ok(())
                }
                _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    Box::pin(self.on_tick()).await
                }
            };
            result?;
            self.refresh_deadline();
            self.update_status();
            self.share_presence();
            let idle = self.status.finished.load(Ordering::Relaxed) && self.members.is_empty();
            if !idle {
                self.linger_until = None;
            } else if self.linger_until.is_none() {
                if self.settings.finished_linger.is_zero() {
                    return Ok(());
                }
                // Kept ready for a while: joining it again costs no rebuild
                // from the log (G6).
                self.linger_until = Some(Instant::now() + self.settings.finished_linger);
            }
        }
    }

    /// The game expired (never started): its members are told, the task
    /// ends.
    fn expire(&mut self) {
        info!(game_id = %self.game_id, "game expired; task ends");
        for m in self.members.values() {
            let _ = m.link.outbox.try_send(ServerMessage::error(
                ErrorCode::UnknownGame,
                format!(
                    "game {} expired: its two seats were not both taken within {} s of its creation",
                    self.game_id,
                    self.settings.unstarted_expiry.as_secs()
                ),
            ));
        }
    }

    /// Another node took the game over (issue 13): its members are sent
    /// there (`ServedElsewhere`, issue 25) or, if it is not known, told to
    /// connect again (any node's lobby names the owner); the task ends.
    fn moved(&mut self, to: Option<String>) {
        info!(game_id = %self.game_id, to = ?to, "game moved to another node; task ends");
        self.send_members_to(
            to,
            format!(
                "game {} moved to another node; connect again to continue",
                self.game_id
            ),
        );
    }

    /// Each member is sent to `to` (`ServedElsewhere`), or told `words`
    /// (an `Internal` error: the game is no longer served here) when no
    /// other node is known.
    fn send_members_to(&self, to: Option<String>, words: String) {
        let game_id = self.game_id;
        for m in self.members.values() {
            let msg = match &to {
                Some(address) if address.len() <= crate::wire::MAX_ADDRESS_LEN => {
                    ServerMessage::ServedElsewhere {
                        game_id,
                        address: address.clone(),
                    }
                }
                _ => ServerMessage::error(ErrorCode::Internal, words.clone()),
            };
            let _ = m.link.outbox.try_send(msg);
        }
    }

    /// The address of the node that holds the game's lease now, if
    /// another node does.
    fn owner_address(&self) -> impl std::future::Future<Output = Option<String>> + Send {
        let (store, game_id) = (self.store.clone(), self.game_id);
        async move {
            match store.locate(game_id).await {
                Ok(GameLocation::OtherNode { address, .. }) => Some(address),
                _ => None,
            }
        }
    }

    /// This node is shutting down (issue 25): whatever was in flight is
    /// done (commands run one at a time), so the lease is released and the
    /// members sent on.
    async fn drain(&mut self, to: Option<String>) {
        let released = self.store.release_lease(self.game_id);
        if let Err(e) = released.await {
            warn!(game_id = %self.game_id, error = %e, "could not release the lease; it runs out by itself");
        }
        info!(game_id = %self.game_id, to = ?to, "node shutting down; game handed over");
        self.send_members_to(
            to,
            format!(
                "this node is shutting down; game {} goes on on another node: connect again",
                self.game_id
            ),
        );
    }

    async fn on_command(&mut self, cmd: GameCommand) -> Result<(), StoreError> {
        match cmd {
            GameCommand::Join {
                participant,
                resume_from,
                link,
                reply,
            } => {
                let joined = self.join(*participant, resume_from, link).await;
                // On a storage failure the client is told by `fail`.
                let _ = reply.send(matches!(joined, Ok(true)));
                joined?;
            }
            GameCommand::Payload {
                from,
                payload,
                outbox,
            } => {
                let Some(member) = self.members.get(&from) else {
                    let _ = outbox.try_send(ServerMessage::error(
                        ErrorCode::NotJoined,
                        format!("this connection is no longer in game {}", self.game_id),
                    ));
                    return Ok(());
                };
                let who = member.participant;
                let started = std::time::Instant::now();
                let len = payload.len();
                let mut ruled = None;
                let session = &mut self.session;
                let handled = if len >= LONG_PAYLOAD && multi_thread() {
                    // A long payload (an end-of-game reveal: the pads
                    // rebuilt from their seeds, every layer re-sealed, G1,
                    // G2) takes milliseconds of CPU: the runtime hands this
                    // worker's other tasks (other games' actions) to
                    // another thread meanwhile (issue 30: the slowest 1 %).
                    tokio::task::block_in_place(|| session.handle(&who, &payload, unix_millis()))
                } else {
                    session.handle(&who, &payload, unix_millis())
                };
                match handled {
                    Ok(effects) => {
                        ruled = Some((started.elapsed(), effects.len()));
                        self.apply(effects).await?;
                    }
                    Err(r) => {
                        self.metrics.payload_refused();
                        self.send_to(from, ServerMessage::error(ErrorCode::Rejected, r.0))
                    }
                }
                let took = started.elapsed();
                self.metrics.adjudicated(took);
                if took >= SLOW_PAYLOAD {
                    // The tail's instrument (issue 30): how long the
                    // ruling took and how long its effects (the store's
                    // commit, the sends) took after it.
                    let (ruling, effects) = ruled.unwrap_or((took, 0));
                    debug!(
                        game_id = %self.game_id,
                        len,
                        effects,
                        ruling_us = ruling.as_micros() as u64,
                        effects_us = (took - ruling).as_micros() as u64,
                        "slow payload"
                    );
                }
            }
            GameCommand::Expire | GameCommand::Moved => {}
            GameCommand::Drain { done, .. } => {
                let _ = done.send(());
            }
            GameCommand::WatchPresence { from } => {
                let now = self.presence_now();
                if let Some(m) = self.members.get_mut(&from) {
                    m.presence = true;
                    let spectator = m.participant.role == Role::Spectator;
                    let msg = ServerMessage::Presence {
                        game_id: self.game_id,
                        presence: self.shown_to(now, spectator),
                    };
                    self.send_to(from, msg);
                }
            }
            GameCommand::Leave { from } => {
                if let Some(m) = self.remove_member(from) {
                    let _ = m.link.outbox.try_send(ServerMessage::Left {
                        game_id: self.game_id,
                    });
                    self.departures.push(m.participant);
                }
            }
        }
        self.process_departures().await
    }

    async fn join(
        &mut self,
        participant: Participant,
        resume_from: u64,
        link: ConnectionLink,
    ) -> Result<bool, StoreError> {
        if self.members.contains_key(&participant.connection) {
            let _ = link.outbox.try_send(ServerMessage::error(
                ErrorCode::UnexpectedMessage,
                format!("already joined game {}", self.game_id),
            ));
            return Ok(false);
        }
        match self.session.admit(&participant, resume_from, unix_millis()) {
            Err(r) => {
                let _ = link
                    .outbox
                    .try_send(ServerMessage::error(ErrorCode::Rejected, r.0));
                Ok(false)
            }
            Ok(effects) => {
                info!(
                    game_id = %self.game_id,
                    connection = participant.connection.0,
                    key = %participant.key,
                    role = ?participant.role,
                    "joined"
                );
                if let Role::Player(side) = participant.role {
                    // A new connection for a seat (e.g. a resume) replaces the old one.
                    if let Some(old) = self.seats[seat(side)] {
                        info!(
                            game_id = %self.game_id,
                            side = ?side,
                            old = old.0,
                            new = participant.connection.0,
                            "seat taken over by a new connection"
                        );
                        if let Some(m) = self.remove_member(old) {
                            let _ = m.link.outbox.try_send(ServerMessage::Left {
                                game_id: self.game_id,
                            });
                        }
                    }
                    self.seats[seat(side)] = Some(participant.connection);
                    if !self.started && self.seats.iter().all(Option::is_some) {
                        // Both seats taken: the game started and no longer
                        // expires (G6).
                        self.store.mark_started(self.game_id).await?;
                        self.started = true;
                    }
                }
                let id = participant.connection;
                let history = match participant.role {
                    // Only what follows the public messages the spectator
                    // says it holds: a rejoin that changes nothing resends
                    // nothing (issue 31). Its witness checks that what
                    // comes chains onto the head it holds (PROTOCOL.md 16).
                    Role::Spectator => self.public_history(resume_from).await,
                    Role::Player(_) => Vec::new(),
                };
                // A resync the session asks for is read (from the store if
                // need be) now, as the messages it sends.
                let effects = self.resyncs_as_sends(effects).await;
                // What the session sends this connection alone after its
                // last durable write (a resuming player's resync) is its
                // backlog; everything else goes out as usual, in order, so
                // nothing is sent before what precedes it is durable (G6).
                let mut head = effects;
                let durable = head
                    .iter()
                    .rposition(|e| matches!(e, Effect::Append(_) | Effect::Finish { .. }))
                    .map_or(0, |i| i + 1);
                let tail = head.split_off(durable);
                let to_us = |e: &Effect| matches!(e, Effect::Send { to: Recipient::Connection(c), .. } if *c == id);
                let (backlog, rest): (Vec<_>, Vec<_>) = tail.into_iter().partition(to_us);
                let backlog: Vec<Vec<u8>> = backlog
                    .into_iter()
                    .filter_map(|e| match e {
                        Effect::Send { payload, .. } => Some(payload),
                        _ => None,
                    })
                    .collect();
                // Everything the admission sends this connection, before any
                // live traffic: the client knows where its resync ends.
                let resync =
                    history.len() + backlog.len() + head.iter().filter(|e| to_us(e)).count();
                let _ = link.outbox.try_send(ServerMessage::Joined {
                    game_id: self.game_id,
                    role: participant.role,
                    resync: u32::try_from(resync).unwrap_or(u32::MAX),
                });
                self.members.insert(
                    participant.connection,
                    Member {
                        participant,
                        link,
                        presence: false,
                    },
                );
                self.catch_up(id, history);
                self.apply(head).await?;
                self.catch_up(id, backlog);
                self.apply(rest).await?;
                Ok(true)
            }
        }
    }

    async fn on_tick(&mut self) -> Result<(), StoreError> {
        self.deadline = None;
        let effects = self.session.tick(unix_millis());
        self.apply(effects).await?;
        self.process_departures().await
    }

    /// Turn the session's next deadline (Unix ms) into a timer.
    fn refresh_deadline(&mut self) {
        self.deadline = self.session.next_deadline().map(|at_ms| {
            let wait = at_ms.saturating_sub(unix_millis());
            Instant::now() + Duration::from_millis(wait)
        });
    }

    async fn apply(&mut self, effects: Vec<Effect>) -> Result<(), StoreError> {
        let mut effects = effects.into_iter().peekable();
        // Entries appended in a row are committed together (one `fsync`),
        // and what is sent after any of them waits for that commit (G6:
        // nothing leaves before every entry before it is durable; issue
        // 30: each entry took its own commit, one after the other).
        let mut pending = Pending::default();
        while let Some(effect) = effects.next() {
            match effect {
                Effect::Append(bytes) if !matches!(effects.peek(), Some(Effect::Finish { .. })) => {
                    pending.appends.push(bytes);
                }
                Effect::Send { to, payload } if !pending.appends.is_empty() => {
                    pending.after.push(After::Send(to, payload));
                }
                Effect::Publish if !pending.appends.is_empty() => {
                    pending.after.push(After::Publish);
                }
                Effect::Observe(o) => self.metrics.observe(&o),
                effect => {
                    self.flush(&mut pending).await?;
                    Box::pin(self.apply_one(effect, &mut effects)).await?;
                }
            }
        }
        self.flush(&mut pending).await?;
        // Everything returned is stored and sent: the session may drop
        // what it kept for it, but what the spectator delay still holds
        // (issue 16).
        self.session.settled(self.public_sent);
        Ok(())
    }

    /// Commits the pending appends together, then makes the sends and
    /// publications that waited for them, in order.
    async fn flush(&mut self, pending: &mut Pending) -> Result<(), StoreError> {
        let appends = std::mem::take(&mut pending.appends);
        if !appends.is_empty() {
            let results = self
                .store
                .append_events(self.game_id, self.next_seq, appends)
                .await;
            for r in results {
                r?;
                self.next_seq += 1;
            }
        }
        for after in std::mem::take(&mut pending.after) {
            match after {
                After::Send(to, payload) => self.send(to, payload),
                After::Publish => Box::pin(self.publish()).await,
            }
        }
        Ok(())
    }

    /// Carries out one effect that no append waits before (every earlier
    /// one is durable and sent): an append the game's end follows, a send,
    /// a resync, a publication, the end.
    async fn apply_one(
        &mut self,
        effect: Effect,
        effects: &mut std::iter::Peekable<std::vec::IntoIter<Effect>>,
    ) -> Result<(), StoreError> {
        match effect {
            Effect::Append(bytes) => {
                let transcript = if matches!(effects.peek(), Some(Effect::Finish { .. }))
                    && !self.status.finished.load(Ordering::Relaxed)
                {
                    self.transcript().await
                } else {
                    None
                };
                if let Some(transcript) = transcript {
                    // The log's last entry and the result in one
                    // transaction: no crash can leave a closed log in
                    // a game listed as open (G6).
                    let Some(Effect::Finish { result }) = effects.next() else {
                        unreachable!("peeked");
                    };
                    self.store
                        .append_and_finish(self.game_id, self.next_seq, bytes, result, transcript)
                        .await?;
                    self.next_seq += 1;
                    Box::pin(self.finished()).await;
                } else {
                    self.store
                        .append_event(self.game_id, self.next_seq, bytes)
                        .await?;
                    self.next_seq += 1;
                }
            }
            Effect::Send { to, payload } => self.send(to, payload),
            Effect::Resync { side, from_seq, to } => {
                for message in self.resync(side, from_seq).await {
                    self.send_message(to, &message);
                }
            }
            Effect::Publish => Box::pin(self.publish()).await,
            Effect::Observe(o) => self.metrics.observe(&o),
            // Already finished (a finished game reopened): stored once.
            Effect::Finish { .. } if self.status.finished.load(Ordering::Relaxed) => {}
            Effect::Finish { result } => {
                // A restored game whose log was closed before a crash
                // (stored by an older version in two steps) is finished
                // here, at its start.
                if let Some(transcript) = self.transcript().await {
                    self.store
                        .finish_game(self.game_id, result, transcript)
                        .await?;
                    Box::pin(self.finished()).await;
                }
            }
        }
        Ok(())
    }

    /// The game's stored events from `from_seq` on: what a session reads
    /// its released past from. A read that fails stops nothing: it is
    /// logged and the session answers without (a resync or a spectator
    /// message is then missing, and said so in the log; play goes on).
    async fn stored_from(&mut self, from_seq: u64) -> StoredEvents {
        let events = match self.store.load_events_from(self.game_id, from_seq).await {
            Ok(events) => events,
            Err(error) => {
                error!(game_id = %self.game_id, %error, "could not read the stored log");
                return StoredEvents::default();
            }
        };
        if events.iter().zip(from_seq..).any(|(e, seq)| e.seq != seq) {
            error!(game_id = %self.game_id, "the stored log is not numbered 0, 1, 2, ...");
            return StoredEvents::default();
        }
        StoredEvents::new(from_seq, events.into_iter().map(|e| e.bytes).collect())
    }

    /// Asks the session with nothing stored first, then with the stored
    /// events from `from_seq` if it no longer holds what it needs; `None`
    /// (logged) if it cannot answer even then.
    async fn with_stored<T>(
        &mut self,
        what: &str,
        from_seq: u64,
        ask: impl Fn(&dyn GameSession, &StoredEvents) -> Option<T>,
    ) -> Option<T> {
        self.with_stored_in(&mut None, what, from_seq, ask).await
    }

    /// [`GameTask::with_stored`], the events read kept in `read` for the
    /// next call (which must not need an event before `from_seq`).
    async fn with_stored_in<T>(
        &mut self,
        read: &mut Option<StoredEvents>,
        what: &str,
        from_seq: u64,
        ask: impl Fn(&dyn GameSession, &StoredEvents) -> Option<T>,
    ) -> Option<T> {
        if let Some(answer) = ask(self.session.as_ref(), &StoredEvents::default()) {
            return Some(answer);
        }
        if read.is_none() {
            *read = Some(self.stored_from(from_seq).await);
        }
        let answer = ask(self.session.as_ref(), read.as_ref().expect("read above"));
        if answer.is_none() {
            error!(game_id = %self.game_id, what, "the session cannot answer from its stored log");
        }
        answer
    }

    /// What `side` was shown from `from_seq` on ([`Effect::Resync`]):
    /// only the stored events from `from_seq` are read.
    async fn resync(&mut self, side: Side, from_seq: u64) -> Vec<Vec<u8>> {
        self.with_stored("resync", from_seq, |s, stored| {
            s.resync(side, from_seq, stored)
        })
        .await
        .unwrap_or_default()
    }

    /// The transcript for [`Effect::Finish`]: the session holds what it
    /// has not released (the last entries, not yet stored), the store the
    /// rest.
    async fn transcript(&mut self) -> Option<Vec<u8>> {
        self.with_stored("transcript", 0, |s, stored| s.transcript(stored))
            .await
    }

    /// `effects` with each [`Effect::Resync`] replaced by the messages it
    /// sends, in place.
    async fn resyncs_as_sends(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        let mut out = Vec::with_capacity(effects.len());
        for effect in effects {
            match effect {
                Effect::Resync { side, from_seq, to } => out.extend(
                    self.resync(side, from_seq)
                        .await
                        .into_iter()
                        .map(|payload| Effect::Send {
                            to: Recipient::Connection(to),
                            payload,
                        }),
                ),
                other => out.push(other),
            }
        }
        out
    }

    async fn finished(&mut self) {
        self.status.finished.store(true, Ordering::Relaxed);
        self.metrics.game_finished();
        info!(game_id = %self.game_id, "game finished");
        // The transcript is public from now on: holding back the public
        // view would hide nothing (DESIGN 5).
        self.release_delayed(None).await;
    }

    fn send(&mut self, to: Recipient, payload: Vec<u8>) {
        let targets: Vec<ConnectionId> = match to {
            Recipient::Connection(c) => vec![c],
            Recipient::Player(side) => self.seats[seat(side)].into_iter().collect(),
            Recipient::Players => self.seats.iter().flatten().copied().collect(),
        };
        for t in targets {
            self.send_message(t, &payload);
        }
    }

    /// The session's next public message is due: it goes to the
    /// spectators after the delay, behind anything still queued.
    async fn publish(&mut self) {
        let held = !self.settings.spectator_delay.is_zero()
            && !self.status.finished.load(Ordering::Relaxed);
        if held {
            self.delayed
                .push_back(Instant::now() + self.settings.spectator_delay);
        } else {
            self.delayed.push_back(Instant::now());
            self.release_delayed(None).await;
        }
    }

    /// Send one game message to one connection, in parts if it is long.
    fn send_message(&mut self, id: ConnectionId, message: &[u8]) {
        if message.len() > MAX_GAME_MESSAGE_LEN {
            error!(game_id = %self.game_id, len = message.len(), "session produced an oversized message; dropped");
            return;
        }
        for (part, more) in split_game_message(message) {
            if !self.members.contains_key(&id) {
                // Dropped as too slow part-way: send nothing more.
                return;
            }
            self.send_to(
                id,
                ServerMessage::Game {
                    game_id: self.game_id,
                    payload: part.to_vec(),
                    more,
                },
            );
        }
    }

    fn spectator_ids(&self) -> Vec<ConnectionId> {
        self.members
            .values()
            .filter(|m| m.participant.role == Role::Spectator)
            .map(|m| m.participant.connection)
            .collect()
    }

    /// Sends the spectators the queued messages due by `until` (all of
    /// them if `None`), in order, counting them in `public_sent`. A
    /// message is built only if a spectator is there to receive it.
    async fn release_delayed(&mut self, until: Option<Instant>) {
        // Read from the store at most once for the messages released now,
        // from the first that needs it (they go in order).
        let mut read = None;
        while let Some(t) = self.delayed.front() {
            if until.is_some_and(|until| *t > until) {
                break;
            }
            self.delayed.pop_front();
            let index = self.public_sent;
            self.public_sent += 1;
            let spectators = self.spectator_ids();
            if spectators.is_empty() {
                continue;
            }
            let Some(payload) = self
                .with_stored_in(&mut read, "public message", index as u64, |s, stored| {
                    s.public_message(index, stored)
                })
                .await
            else {
                continue;
            };
            for id in spectators {
                self.send_message(id, &payload);
            }
        }
    }

    /// What a spectator who joins now is sent first: what the other
    /// spectators have already been sent, the history up to where the delay
    /// queue starts, from public message `from` on (the first one it does
    /// not hold; 0: everything). The queued rest reaches it as it matures
    /// (DESIGN 5).
    async fn public_history(&mut self, from: u64) -> Vec<Vec<u8>> {
        let sent = self.public_sent;
        let from = usize::try_from(from).unwrap_or(usize::MAX).min(sent);
        if from == sent {
            return Vec::new();
        }
        let history: Vec<Vec<u8>> = self
            .with_stored("public history", from as u64, |s, stored| {
                (from..sent).map(|i| s.public_message(i, stored)).collect()
            })
            .await
            .unwrap_or_default();
        if history.len() != sent - from {
            // A session breaking its contract; send what is safe to send.
            error!(
                game_id = %self.game_id,
                history = history.len(),
                expected = sent - from,
                "the session lacks public messages it published"
            );
        }
        history
    }

    /// Sends a connection that just joined its backlog (a late spectator's
    /// history, a resuming player's resync). What fits the connection's
    /// outbox is sent at once; a longer backlog goes through a catch-up
    /// task of its own ([`forward_backlog`]), since a game never waits on a
    /// connection: the member's outbox becomes a queue that the task
    /// forwards after the backlog, in order. A client that lets that queue
    /// fill up is too slow and dropped, like any other.
    fn catch_up(&mut self, id: ConnectionId, backlog: Vec<Vec<u8>>) {
        let mut parts = Vec::new();
        for message in &backlog {
            if message.len() > MAX_GAME_MESSAGE_LEN {
                error!(game_id = %self.game_id, len = message.len(), "session produced an oversized message; dropped");
                continue;
            }
            parts.extend(split_game_message(message).into_iter().map(|(part, more)| {
                ServerMessage::Game {
                    game_id: self.game_id,
                    payload: part.to_vec(),
                    more,
                }
            }));
        }
        let Some(member) = self.members.get_mut(&id) else {
            return;
        };
        if parts.len() <= member.link.outbox.capacity() {
            // It fits: sent at once, as any other message.
            for part in parts {
                self.send_to(id, part);
            }
            return;
        }
        let (queue, live) = queue::channel(CATCH_UP_QUEUE);
        let outbox = std::mem::replace(&mut member.link.outbox, queue);
        tokio::spawn(forward_backlog(parts, live, outbox));
    }

    /// Deliver without waiting; a full outbox means the client reads too
    /// slowly: it is dropped from the game and its connection closed.
    fn send_to(&mut self, id: ConnectionId, msg: ServerMessage) {
        let Some(m) = self.members.get(&id) else {
            return;
        };
        match m.link.outbox.try_send(msg) {
            Ok(()) => {}
            Err(queue::TrySendError::Full(_)) => {
                warn!(game_id = %self.game_id, connection = id.0, "client too slow; dropped");
                if let Some(m) = self.remove_member(id) {
                    if let Some(q) = &m.link.quic {
                        q.close(
                            VarInt::from_u32(CLOSE_TOO_SLOW),
                            b"too slow reading game messages",
                        );
                    }
                    self.departures.push(m.participant);
                }
            }
            Err(queue::TrySendError::Closed(_)) => {
                if let Some(m) = self.remove_member(id) {
                    self.departures.push(m.participant);
                }
            }
        }
    }

    fn remove_member(&mut self, id: ConnectionId) -> Option<Member> {
        let m = self.members.remove(&id)?;
        info!(
            game_id = %self.game_id,
            connection = id.0,
            role = ?m.participant.role,
            "left"
        );
        for s in self.seats.iter_mut() {
            if *s == Some(id) {
                *s = None;
            }
        }
        Some(m)
    }

    async fn process_departures(&mut self) -> Result<(), StoreError> {
        while let Some(who) = self.departures.pop() {
            let effects = self.session.departed(&who, unix_millis());
            self.apply(effects).await?;
        }
        Ok(())
    }

    fn update_status(&mut self) {
        // Asked until both setups are in (then never again: the names are
        // signed once).
        if !self.names_known {
            if let Some(names) = self.session.signed_names() {
                *self.status.signed.lock().expect("status lock poisoned") = names;
                self.names_known = true;
            }
        }
        self.status
            .first
            .store(self.seats[0].is_some(), Ordering::Relaxed);
        self.status
            .second
            .store(self.seats[1].is_some(), Ordering::Relaxed);
        self.status
            .spectators
            .store(self.spectator_ids().len() as u32, Ordering::Relaxed);
    }

    /// Who is connected and who the game waits for, until when (issue 27).
    fn presence_now(&self) -> Presence {
        let finished = self.status.finished.load(Ordering::Relaxed);
        Presence {
            side_a_connected: self.seats[0].is_some(),
            side_b_connected: self.seats[1].is_some(),
            spectators: self.spectator_ids().len() as u32,
            awaited: self
                .session
                .awaited()
                .filter(|_| !finished)
                .map(|(side, what)| Awaited {
                    side,
                    what,
                    forfeits_at_ms: self.session.next_deadline(),
                }),
        }
    }

    /// `presence` as a player (`spectator` false) or a spectator is told
    /// it: while a spectator delay holds the public view back (DESIGN 5),
    /// a spectator is not told what the game waits for now (it would show
    /// where a move goes before the delayed log does), only who is
    /// connected; players, and everyone once the game is over, are told
    /// all of it.
    fn shown_to(&self, mut presence: Presence, spectator: bool) -> Presence {
        let held = !self.settings.spectator_delay.is_zero()
            && !self.status.finished.load(Ordering::Relaxed);
        if spectator && held {
            presence.awaited = None;
        }
        presence
    }

    /// Tells the members who watch presence when it changed (issue 27).
    fn share_presence(&mut self) {
        let now = self.presence_now();
        if self.presence.as_ref() == Some(&now) {
            return;
        }
        // The web view's list is a spectator's.
        *self.status.awaited.lock().expect("status lock poisoned") =
            self.shown_to(now.clone(), true).awaited;
        let watching: Vec<(ConnectionId, bool)> = self
            .members
            .iter()
            .filter(|(_, m)| m.presence)
            .map(|(id, m)| (*id, m.participant.role == Role::Spectator))
            .collect();
        for (id, spectator) in watching {
            let msg = ServerMessage::Presence {
                game_id: self.game_id,
                presence: self.shown_to(now.clone(), spectator),
            };
            self.send_to(id, msg);
        }
        self.presence = Some(now);
    }

    /// Storage failed: the session may be ahead of the durable log, so the
    /// game stops here; a restart rebuilds it from what is durable.
    fn fail(&self, e: StoreError) {
        error!(game_id = %self.game_id, error = %e, "storage failed; game stopped");
        self.metrics.error("storage");
        for m in self.members.values() {
            let _ = m.link.outbox.try_send(ServerMessage::error(
                ErrorCode::Internal,
                format!(
                    "game {} stopped: {e}; nothing after the last acknowledgement was kept",
                    self.game_id
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relay::{RelayFactory, RelaySession};
    use crate::session::Rejection;
    use crate::sqlite::SqliteStore;
    use crate::store::{GameStore, StoredEvent, StoredGame};
    use crate::wire::PublicKey;

    const WAIT: Duration = Duration::from_secs(20);

    fn settings(answer: u64, spectator_delay: u64) -> GameSettings {
        GameSettings {
            answer_timeout: Duration::from_secs(answer),
            spectator_delay: Duration::from_secs(spectator_delay),
            finished_linger: Duration::ZERO,
            ..GameSettings::default()
        }
    }

    fn lobby_with(
        factory: Arc<dyn SessionFactory>,
        store: Box<dyn GameStore>,
        s: GameSettings,
    ) -> Lobby {
        Lobby::new(factory, StoreHandle::spawn(store).unwrap(), s)
    }

    /// A relay game on a fresh SQLite store with a spectator delay of
    /// `delay` seconds: the store's directory, the lobby, the game's id and
    /// its command channel.
    async fn relay_game(
        delay: u64,
    ) -> (tempfile::TempDir, Lobby, GameId, queue::Sender<GameCommand>) {
        game_of(Arc::new(RelayFactory), delay).await
    }

    /// [`relay_game`] for the sessions `factory` makes.
    async fn game_of(
        factory: Arc<dyn SessionFactory>,
        delay: u64,
    ) -> (tempfile::TempDir, Lobby, GameId, queue::Sender<GameCommand>) {
        let dir = tempfile::tempdir().unwrap();
        let lobby = lobby_with(factory, sqlite(&dir), settings(600, delay));
        let id = lobby
            .create_game(PublicKey([0; 32]), b"s".to_vec())
            .await
            .unwrap();
        let game = lobby.commands(id).unwrap();
        (dir, lobby, id, game)
    }

    fn sqlite(dir: &tempfile::TempDir) -> Box<dyn GameStore> {
        Box::new(SqliteStore::open(dir.path()).unwrap())
    }

    struct Client {
        id: ConnectionId,
        key: PublicKey,
        tx: queue::Sender<ServerMessage>,
        rx: queue::Receiver<ServerMessage>,
    }

    fn client(n: u64, capacity: usize) -> Client {
        let (tx, rx) = queue::channel(capacity);
        Client {
            id: ConnectionId(n),
            key: PublicKey([n as u8; 32]),
            tx,
            rx,
        }
    }

    impl Client {
        async fn join(&mut self, game: &queue::Sender<GameCommand>, role: Role) -> bool {
            self.join_from(game, role, 0).await
        }

        /// Joins saying it holds everything before `resume_from`.
        async fn join_from(
            &mut self,
            game: &queue::Sender<GameCommand>,
            role: Role,
            resume_from: u64,
        ) -> bool {
            let (reply, answer) = oneshot::channel();
            game.send(GameCommand::Join {
                participant: Box::new(Participant {
                    connection: self.id,
                    key: self.key,
                    role,
                }),
                resume_from,
                link: ConnectionLink {
                    id: self.id,
                    outbox: self.tx.clone(),
                    quic: None,
                },
                reply,
            })
            .await
            .unwrap();
            answer.await.unwrap()
        }

        async fn say(&self, game: &queue::Sender<GameCommand>, payload: &[u8]) {
            game.send(GameCommand::Payload {
                from: self.id,
                payload: payload.to_vec(),
                outbox: self.tx.clone(),
            })
            .await
            .unwrap();
        }

        async fn next(&mut self) -> ServerMessage {
            tokio::time::timeout(WAIT, self.rx.recv())
                .await
                .expect("message within the test bound")
                .expect("outbox open")
        }

        async fn next_payload(&mut self) -> Vec<u8> {
            loop {
                if let ServerMessage::Game { payload, .. } = self.next().await {
                    return payload;
                }
            }
        }
    }

    // DESIGN 5: one slow reader is dropped; its game and the other player go on.
    #[test]
    fn a_game_command_is_small_since_a_queue_keeps_its_largest_buffer() {
        // Issue 16: a game's queue holds its commands by value and keeps
        // the buffer its busiest moment needed, so each byte of a command
        // costs as many as were ever queued at once (the join's
        // participant, 48 bytes, is boxed: it was the largest variant).
        assert!(
            std::mem::size_of::<GameCommand>() <= 64,
            "{} bytes",
            std::mem::size_of::<GameCommand>()
        );
    }

    #[tokio::test]
    async fn slow_reader_is_dropped_game_goes_on() {
        let (_dir, lobby, _id, game) = relay_game(0).await;
        let mut fast = client(1, 64);
        // Room for Joined and the welcome only; it never reads afterwards.
        let mut slow = client(2, 2);
        assert!(fast.join(&game, Role::Player(Side::A)).await);
        assert_eq!(fast.next_payload().await, b"welcome 1");
        assert!(slow.join(&game, Role::Player(Side::B)).await);
        for i in 0..5 {
            fast.say(&game, format!("m{i}").as_bytes()).await;
            assert_eq!(
                fast.next_payload().await,
                format!("ack {}", i + 2).into_bytes()
            );
        }
        // The slow reader lost its seat.
        tokio::time::timeout(WAIT, async {
            while lobby.list()[0].side_b_seated {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("slow seat freed");
        assert!(lobby.list()[0].side_a_seated);
        assert!(matches!(
            slow.rx.recv().await,
            Some(ServerMessage::Joined { .. })
        ));
    }

    // DESIGN 5: spectators see the public view late by the configured delay.
    #[tokio::test]
    async fn spectators_get_messages_after_the_delay() {
        let (_dir, _lobby, _id, game) = relay_game(3).await;
        let mut p = client(1, 64);
        let mut s = client(2, 64);
        assert!(p.join(&game, Role::Player(Side::A)).await);
        assert_eq!(p.next_payload().await, b"welcome 1");
        assert!(s.join(&game, Role::Spectator).await);
        assert!(matches!(s.next().await, ServerMessage::Joined { .. }));
        assert_eq!(s.next_payload().await, b"welcome 1");
        p.say(&game, b"public move").await;
        assert_eq!(p.next_payload().await, b"ack 1");
        assert!(s.rx.try_recv().is_err(), "spectator must not see it yet");
        assert_eq!(s.next_payload().await, b"public move");
    }

    /// Waits until `cond` holds of the lobby (bounded by [`WAIT`]).
    async fn until(lobby: &Lobby, what: &str, cond: impl Fn(&Lobby) -> bool) {
        tokio::time::timeout(WAIT, async {
            while !cond(lobby) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{what} within the test bound"));
    }

    /// Player A on a new relay game says each of `moves`, waiting for each
    /// acknowledgement.
    async fn play(a: &mut Client, game: &queue::Sender<GameCommand>, moves: &[&str]) {
        for m in moves {
            a.say(game, m.as_bytes()).await;
            assert!(a.next_payload().await.starts_with(b"ack "));
        }
    }

    /// The next `n` game payloads of `c` (after its `Joined`, skipping the
    /// relay's `welcome`).
    async fn public(c: &mut Client, n: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while out.len() < n {
            let p = c.next_payload().await;
            if !p.starts_with(b"welcome ") {
                out.push(p);
            }
        }
        out
    }

    fn bytes(moves: &[&str]) -> Vec<Vec<u8>> {
        moves.iter().map(|m| m.as_bytes().to_vec()).collect()
    }

    // DESIGN 5: with no delay, a spectator who joins mid-game is sent the
    // public history and then follows live: the same sequence as a
    // spectator present from the start, nothing twice.
    #[tokio::test]
    async fn design5_late_spectator_gets_history_then_live_like_an_early_one() {
        let (_dir, _lobby, _id, game) = relay_game(0).await;
        let mut a = client(1, 64);
        let mut early = client(2, 64);
        let mut late = client(3, 64);
        assert!(early.join(&game, Role::Spectator).await);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 1");
        play(&mut a, &game, &["m1", "m2", "m3"]).await;
        assert!(late.join(&game, Role::Spectator).await);
        assert!(matches!(late.next().await, ServerMessage::Joined { .. }));
        play(&mut a, &game, &["m4", "m5"]).await;
        let all = bytes(&["m1", "m2", "m3", "m4", "m5"]);
        assert_eq!(public(&mut early, 5).await, all);
        assert_eq!(public(&mut late, 5).await, all);
        for c in [&mut early, &mut late] {
            let extra = c.rx.try_recv();
            assert!(extra.is_err(), "nothing after the last move: {extra:?}");
        }
    }

    // Issue 31: a spectator that joins again saying what it holds
    // (`resume_from`: the first public message it lacks) is sent only what
    // follows: nothing when it holds everything (a join/leave/rejoin that
    // changes nothing resends nothing); one that holds nothing still gets
    // everything; a claim past the end gets nothing, and changes nothing.
    #[tokio::test]
    async fn issue31_a_spectator_rejoin_is_sent_only_what_it_lacks() {
        let (_dir, _lobby, _id, game) = relay_game(0).await;
        let mut a = client(1, 64);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 1");
        play(&mut a, &game, &["m1", "m2", "m3"]).await;
        let mut s = client(2, 64);
        let cases: [(u64, &[&str]); 5] = [
            (0, &["m1", "m2", "m3"]),
            (3, &[]),
            (2, &["m3"]),
            (9, &[]),
            (0, &["m1", "m2", "m3"]),
        ];
        for (from, lacks) in cases {
            assert!(s.join_from(&game, Role::Spectator, from).await);
            let ServerMessage::Joined { resync, .. } = s.next().await else {
                panic!("from {from}: not joined");
            };
            // The history it lacks, then the relay's welcome.
            assert_eq!(resync as usize, lacks.len() + 1, "from {from}");
            assert_eq!(
                public(&mut s, lacks.len()).await,
                bytes(lacks),
                "from {from}"
            );
            assert!(s.next_payload().await.starts_with(b"welcome "));
            game.send(GameCommand::Leave { from: s.id }).await.unwrap();
            assert!(matches!(s.next().await, ServerMessage::Left { .. }));
            let extra = s.rx.try_recv();
            assert!(extra.is_err(), "from {from}: nothing more: {extra:?}");
        }
    }

    // DESIGN 5: with a delay, a late spectator is sent at once exactly what
    // the spectators present already have (the matured part), and the
    // still-delayed rest when it matures: no duplicate, no gap, in order.
    #[tokio::test]
    async fn design5_late_spectator_gets_matured_history_then_the_queued_rest() {
        let (_dir, _lobby, _id, game) = relay_game(4).await;
        let mut a = client(1, 64);
        let mut early = client(2, 64);
        let mut late = client(3, 64);
        assert!(early.join(&game, Role::Spectator).await);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 1");
        play(&mut a, &game, &["m1", "m2", "m3"]).await;
        // m1..m3 matured: the early spectator has them.
        assert_eq!(public(&mut early, 3).await, bytes(&["m1", "m2", "m3"]));
        // m4 and m5 are held for the delay when the late one joins.
        play(&mut a, &game, &["m4", "m5"]).await;
        assert!(late.join(&game, Role::Spectator).await);
        assert!(matches!(late.next().await, ServerMessage::Joined { .. }));
        assert_eq!(public(&mut late, 3).await, bytes(&["m1", "m2", "m3"]));
        assert!(
            early.rx.try_recv().is_err(),
            "m4 is still held: the history stopped where the queue starts"
        );
        assert_eq!(public(&mut early, 2).await, bytes(&["m4", "m5"]));
        assert_eq!(public(&mut late, 2).await, bytes(&["m4", "m5"]));
        // Nothing twice: after one more move, each gets exactly that move.
        play(&mut a, &game, &["m6"]).await;
        assert_eq!(public(&mut early, 1).await, bytes(&["m6"]));
        assert_eq!(public(&mut late, 1).await, bytes(&["m6"]));
        assert!(late.rx.try_recv().is_err());
    }

    // DESIGN 5 / G6: a long history does not fit a connection's outbox at
    // once; the late spectator still gets all of it, in order, without being
    // dropped as too slow, and then the live moves.
    #[tokio::test]
    async fn design5_long_history_reaches_a_small_outbox_in_order() {
        let (_dir, lobby, _id, game) = relay_game(0).await;
        let mut a = client(1, 64);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 1");
        let moves: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        play(&mut a, &game, &moves).await;
        // Room for 4 messages: Joined, then 3 of the 20.
        let mut late = client(3, 4);
        assert!(late.join(&game, Role::Spectator).await);
        assert!(matches!(late.next().await, ServerMessage::Joined { .. }));
        play(&mut a, &game, &["live"]).await;
        let mut all = moves.clone();
        all.push("live");
        assert_eq!(public(&mut late, 21).await, bytes(&all));
        assert_eq!(lobby.list()[0].spectators, 1, "still watching");
    }

    /// A session whose every admission resyncs `n` messages to the joining
    /// connection, like a player resuming a long game from seq 0.
    #[derive(Debug)]
    struct LongResync(usize);

    impl GameSession for LongResync {
        fn admit(&mut self, who: &Participant, _: u64, _: u64) -> Result<Vec<Effect>, Rejection> {
            Ok(vec![Effect::Resync {
                side: Side::A,
                from_seq: 0,
                to: who.connection,
            }])
        }

        fn resync(&self, _: Side, _: u64, _: &StoredEvents) -> Option<Vec<Vec<u8>>> {
            Some((0..self.0).map(|i| format!("r{i}").into_bytes()).collect())
        }

        fn transcript(&self, _: &StoredEvents) -> Option<Vec<u8>> {
            None
        }

        fn handle(&mut self, _: &Participant, _: &[u8], _: u64) -> Result<Vec<Effect>, Rejection> {
            Err(Rejection("nothing to handle".into()))
        }

        fn public_len(&self) -> usize {
            0
        }
        fn public_message(&self, _: usize, _: &StoredEvents) -> Option<Vec<u8>> {
            None
        }
    }

    struct LongResyncFactory;

    impl SessionFactory for LongResyncFactory {
        fn create(&self, _: &SessionContext, _: &[u8]) -> Result<Box<dyn GameSession>, Rejection> {
            Ok(Box::new(LongResync(3 * CATCH_UP_QUEUE)))
        }

        fn restore(
            &self,
            _: &SessionContext,
            _: &[u8],
            _: &[Vec<u8>],
        ) -> Result<Box<dyn GameSession>, Rejection> {
            Ok(Box::new(LongResync(3 * CATCH_UP_QUEUE)))
        }
    }

    // G6 / DESIGN 5: a player resuming a long game gets its whole resync,
    // longer than its connection's outbox, in order, and keeps its seat.
    #[tokio::test]
    async fn g6_a_resync_longer_than_the_outbox_arrives_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let lobby = lobby_with(Arc::new(LongResyncFactory), sqlite(&dir), settings(600, 0));
        let id = lobby
            .create_game(PublicKey([0; 32]), b"s".to_vec())
            .await
            .unwrap();
        let game = lobby.commands(id).unwrap();
        let mut a = client(1, 8);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        // PROTOCOL 10.4: Joined says how long the resync is.
        match a.next().await {
            ServerMessage::Joined { resync, .. } => {
                assert_eq!(resync as usize, 3 * CATCH_UP_QUEUE)
            }
            other => panic!("expected Joined, got {other:?}"),
        }
        for i in 0..3 * CATCH_UP_QUEUE {
            assert_eq!(a.next_payload().await, format!("r{i}").into_bytes());
        }
        assert!(lobby.list()[0].side_a_seated, "still seated");
    }

    // DESIGN 5: once the game has finished its transcript is public, so
    // the delay queue is flushed: the spectator gets every move at once.
    #[tokio::test]
    async fn design5_finish_releases_the_delayed_public_view() {
        let (_dir, lobby, id, game) = relay_game(600).await;
        let mut a = client(1, 64);
        let mut s = client(2, 64);
        assert!(s.join(&game, Role::Spectator).await);
        assert!(matches!(s.next().await, ServerMessage::Joined { .. }));
        assert_eq!(s.next_payload().await, b"welcome 0");
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 1");
        play(&mut a, &game, &["m1", "m2"]).await;
        assert!(s.rx.try_recv().is_err(), "held for the delay");
        a.say(&game, b"finish").await;
        // A ten-minute delay: only the finish can release them in time.
        assert_eq!(public(&mut s, 2).await, bytes(&["m1", "m2"]));
        assert!(lobby.store().load_transcript(id).await.unwrap().is_some());
    }

    // DESIGN 5: a spectator who joins a finished game, after its task has
    // ended, gets the whole public history at once (the game is brought
    // back from its log), and the transcript can be fetched; it still
    // cannot act (G6).
    #[tokio::test]
    async fn design5_spectator_of_a_finished_game_gets_history_and_transcript() {
        let (_dir, lobby, id, game) = relay_game(600).await;
        let mut a = client(1, 64);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 1");
        play(&mut a, &game, &["m1", "m2"]).await;
        a.say(&game, b"finish").await;
        game.send(GameCommand::Leave { from: a.id }).await.unwrap();
        until(&lobby, "the finished game's task ends", |l| {
            l.commands(id).is_none()
        })
        .await;
        let game = lobby
            .open_game(id, PublicKey([3; 32]))
            .await
            .unwrap()
            .expect("reopened");
        let mut late = client(3, 64);
        assert!(late.join(&game, Role::Spectator).await);
        assert!(matches!(late.next().await, ServerMessage::Joined { .. }));
        assert_eq!(public(&mut late, 2).await, bytes(&["m1", "m2"]));
        assert!(lobby.list()[0].finished);
        let t = lobby.store().load_transcript(id).await.unwrap().unwrap();
        assert!(t.ends_with(b"m2"));
        // G6: a spectator's payload changes nothing.
        late.say(&game, b"m3").await;
        loop {
            match late.next().await {
                ServerMessage::Game { payload, .. } if payload.starts_with(b"welcome ") => {}
                ServerMessage::Error { code, .. } => {
                    assert_eq!(code, ErrorCode::Rejected);
                    break;
                }
                other => panic!("expected a refusal, got {other:?}"),
            }
        }
        // Once it leaves, the reopened task ends again.
        game.send(GameCommand::Leave { from: late.id })
            .await
            .unwrap();
        until(&lobby, "the reopened task ends", |l| {
            l.commands(id).is_none()
        })
        .await;
        // An unknown game is not invented.
        assert!(lobby
            .open_game(GameId([9; 16]), PublicKey([3; 32]))
            .await
            .unwrap()
            .is_none());
    }

    // DESIGN 5: after a restart, a game rebuilt from its log still gives a
    // late spectator the whole public history (delay 0), then live moves.
    #[tokio::test]
    async fn design5_restored_game_gives_late_spectators_the_history() {
        let dir = tempfile::tempdir().unwrap();
        let id = {
            let lobby = lobby_with(Arc::new(RelayFactory), sqlite(&dir), settings(600, 0));
            let id = lobby
                .create_game(PublicKey([0; 32]), b"s".to_vec())
                .await
                .unwrap();
            let game = lobby.commands(id).unwrap();
            let mut a = client(1, 64);
            assert!(a.join(&game, Role::Player(Side::A)).await);
            assert_eq!(a.next_payload().await, b"welcome 1");
            play(&mut a, &game, &["m1", "m2"]).await;
            id
        };
        let lobby = lobby_with(Arc::new(RelayFactory), sqlite(&dir), settings(600, 0));
        assert_eq!(lobby.restore_unfinished().await.unwrap(), 1);
        assert!(lobby.commands(id).is_none(), "restored lazily");
        let game = lobby
            .open_game(id, PublicKey([1; 32]))
            .await
            .unwrap()
            .unwrap();
        let mut a = client(1, 64);
        let mut late = client(3, 64);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 3");
        assert!(late.join(&game, Role::Spectator).await);
        play(&mut a, &game, &["m3"]).await;
        assert_eq!(public(&mut late, 3).await, bytes(&["m1", "m2", "m3"]));
    }

    /// A restored session that still owes one public message, written at
    /// start (like a live game cut between a player's entry and the
    /// server's answer).
    struct Owing {
        sent: Vec<Vec<u8>>,
        owed: Option<Vec<u8>>,
    }

    impl GameSession for Owing {
        fn start(&mut self, _: u64) -> Vec<Effect> {
            let Some(owed) = self.owed.take() else {
                return Vec::new();
            };
            self.sent.push(owed.clone());
            vec![Effect::Append(owed), Effect::Publish]
        }
        fn admit(&mut self, _: &Participant, _: u64, _: u64) -> Result<Vec<Effect>, Rejection> {
            Ok(Vec::new())
        }
        fn public_len(&self) -> usize {
            self.sent.len()
        }
        fn public_message(&self, index: usize, _: &StoredEvents) -> Option<Vec<u8>> {
            self.sent.get(index).cloned()
        }
        fn resync(&self, _: Side, _: u64, _: &StoredEvents) -> Option<Vec<Vec<u8>>> {
            None
        }
        fn transcript(&self, _: &StoredEvents) -> Option<Vec<u8>> {
            None
        }
        fn handle(&mut self, _: &Participant, _: &[u8], _: u64) -> Result<Vec<Effect>, Rejection> {
            Err(Rejection("no moves".into()))
        }
    }

    struct OwingFactory;

    impl SessionFactory for OwingFactory {
        fn create(&self, _: &SessionContext, _: &[u8]) -> Result<Box<dyn GameSession>, Rejection> {
            Err(Rejection("restore only".into()))
        }
        fn restore(
            &self,
            _: &SessionContext,
            _: &[u8],
            events: &[Vec<u8>],
        ) -> Result<Box<dyn GameSession>, Rejection> {
            Ok(Box::new(Owing {
                sent: events
                    .iter()
                    .filter(|e| !e.starts_with(b"seat "))
                    .cloned()
                    .collect(),
                owed: Some(b"owed".to_vec()),
            }))
        }
    }

    // G6, DESIGN 5: a restored game writes what it still owed at start,
    // and a late spectator's history counts it exactly once.
    #[tokio::test]
    async fn design5_restored_game_writes_what_it_owed_and_counts_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let id = {
            let lobby = lobby_with(Arc::new(RelayFactory), sqlite(&dir), settings(600, 0));
            let id = lobby
                .create_game(PublicKey([0; 32]), b"s".to_vec())
                .await
                .unwrap();
            let game = lobby.commands(id).unwrap();
            let mut a = client(1, 64);
            assert!(a.join(&game, Role::Player(Side::A)).await);
            assert_eq!(a.next_payload().await, b"welcome 1");
            play(&mut a, &game, &["m1"]).await;
            id
        };
        let lobby = lobby_with(Arc::new(OwingFactory), sqlite(&dir), settings(600, 0));
        assert_eq!(lobby.restore_unfinished().await.unwrap(), 1);
        assert!(lobby.commands(id).is_none(), "restored lazily");
        let game = lobby
            .open_game(id, PublicKey([1; 32]))
            .await
            .unwrap()
            .unwrap();
        let mut late = client(3, 64);
        assert!(late.join(&game, Role::Spectator).await);
        assert!(matches!(late.next().await, ServerMessage::Joined { .. }));
        assert_eq!(public(&mut late, 2).await, bytes(&["m1", "owed"]));
        assert!(late.rx.try_recv().is_err(), "nothing twice");
        let stored = lobby.store().load_events(id).await.unwrap();
        assert_eq!(stored.last().unwrap().bytes, b"owed", "written durably");
    }

    /// A relay session that counts the public messages the shell asks it
    /// to build.
    struct Counted {
        relay: RelaySession,
        built: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl GameSession for Counted {
        fn admit(
            &mut self,
            who: &Participant,
            from: u64,
            now: u64,
        ) -> Result<Vec<Effect>, Rejection> {
            self.relay.admit(who, from, now)
        }
        fn public_len(&self) -> usize {
            self.relay.public_len()
        }
        fn public_message(&self, index: usize, stored: &StoredEvents) -> Option<Vec<u8>> {
            self.built.fetch_add(1, Ordering::Relaxed);
            self.relay.public_message(index, stored)
        }
        fn resync(&self, side: Side, from: u64, stored: &StoredEvents) -> Option<Vec<Vec<u8>>> {
            self.relay.resync(side, from, stored)
        }
        fn transcript(&self, stored: &StoredEvents) -> Option<Vec<u8>> {
            self.relay.transcript(stored)
        }
        fn handle(
            &mut self,
            from: &Participant,
            payload: &[u8],
            now: u64,
        ) -> Result<Vec<Effect>, Rejection> {
            self.relay.handle(from, payload, now)
        }
    }

    struct CountedFactory(Arc<std::sync::atomic::AtomicUsize>);

    impl SessionFactory for CountedFactory {
        fn create(
            &self,
            ctx: &SessionContext,
            scenario: &[u8],
        ) -> Result<Box<dyn GameSession>, Rejection> {
            RelayFactory.create(ctx, scenario)?;
            Ok(Box::new(Counted {
                relay: RelaySession::default(),
                built: self.0.clone(),
            }))
        }
        fn restore(
            &self,
            _: &SessionContext,
            _: &[u8],
            _: &[Vec<u8>],
        ) -> Result<Box<dyn GameSession>, Rejection> {
            Err(Rejection("create only".into()))
        }
    }

    // Issue 16: a game no one watches builds no public message; a
    // spectator who joins is sent the history, built then, and each later
    // message once, built once for all the spectators present.
    #[tokio::test]
    async fn issue16_public_messages_are_built_only_for_spectators_present() {
        let built = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (_dir, _lobby, _id, game) = game_of(Arc::new(CountedFactory(built.clone())), 0).await;
        let mut a = client(1, 64);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert!(a.next_payload().await.starts_with(b"welcome "));
        play(&mut a, &game, &["m1", "m2"]).await;
        assert_eq!(built.load(Ordering::Relaxed), 0, "no one watches");
        let mut s1 = client(2, 64);
        let mut s2 = client(3, 64);
        assert!(s1.join(&game, Role::Spectator).await);
        assert_eq!(built.load(Ordering::Relaxed), 2, "the history, for s1");
        assert!(s2.join(&game, Role::Spectator).await);
        assert_eq!(built.load(Ordering::Relaxed), 4, "the history, for s2");
        play(&mut a, &game, &["m3"]).await;
        assert_eq!(public(&mut s1, 3).await, bytes(&["m1", "m2", "m3"]));
        assert_eq!(public(&mut s2, 3).await, bytes(&["m1", "m2", "m3"]));
        assert_eq!(built.load(Ordering::Relaxed), 5, "m3 once for both");
    }

    /// A session that gives side B the answer timeout after side A moved.
    struct Turns {
        timeout_ms: u64,
        deadline: Option<u64>,
    }

    impl GameSession for Turns {
        fn admit(&mut self, _: &Participant, _: u64, _: u64) -> Result<Vec<Effect>, Rejection> {
            Ok(Vec::new())
        }
        fn public_len(&self) -> usize {
            0
        }
        fn public_message(&self, _: usize, _: &StoredEvents) -> Option<Vec<u8>> {
            None
        }
        fn resync(&self, _: Side, _: u64, _: &StoredEvents) -> Option<Vec<Vec<u8>>> {
            None
        }
        fn transcript(&self, _: &StoredEvents) -> Option<Vec<u8>> {
            None
        }
        fn handle(
            &mut self,
            from: &Participant,
            _: &[u8],
            now_ms: u64,
        ) -> Result<Vec<Effect>, Rejection> {
            if from.role == Role::Player(Side::A) {
                self.deadline = Some(now_ms + self.timeout_ms);
            }
            Ok(Vec::new())
        }
        fn next_deadline(&self) -> Option<u64> {
            self.deadline
        }
        fn tick(&mut self, now_ms: u64) -> Vec<Effect> {
            match self.deadline {
                Some(d) if now_ms >= d => {
                    self.deadline = None;
                    vec![Effect::Send {
                        to: Recipient::Players,
                        payload: b"B timed out".to_vec(),
                    }]
                }
                _ => Vec::new(),
            }
        }
    }

    struct TurnsFactory;

    impl SessionFactory for TurnsFactory {
        fn create(
            &self,
            ctx: &SessionContext,
            _: &[u8],
        ) -> Result<Box<dyn GameSession>, Rejection> {
            Ok(Box::new(Turns {
                timeout_ms: ctx.answer_timeout.as_millis() as u64,
                deadline: None,
            }))
        }
        fn restore(
            &self,
            ctx: &SessionContext,
            scenario: &[u8],
            _: &[Vec<u8>],
        ) -> Result<Box<dyn GameSession>, Rejection> {
            self.create(ctx, scenario)
        }
    }

    // G2: the shell calls the session back at its answer deadline, which
    // comes from the configured answer timeout.
    #[tokio::test]
    async fn answer_timeout_reaches_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let lobby = lobby_with(Arc::new(TurnsFactory), sqlite(&dir), settings(1, 0));
        let id = lobby
            .create_game(PublicKey([0; 32]), b"s".to_vec())
            .await
            .unwrap();
        let game = lobby.commands(id).unwrap();
        let mut a = client(1, 64);
        let mut b = client(2, 64);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert!(b.join(&game, Role::Player(Side::B)).await);
        a.say(&game, b"move").await;
        assert_eq!(a.next_payload().await, b"B timed out");
        assert_eq!(b.next_payload().await, b"B timed out");
    }

    // G5/G6: the finished game's result and transcript are stored.
    #[tokio::test]
    async fn finish_is_stored() {
        let (_dir, lobby, id, game) = relay_game(0).await;
        let mut a = client(1, 64);
        assert!(a.join(&game, Role::Player(Side::A)).await);
        assert_eq!(a.next_payload().await, b"welcome 1");
        a.say(&game, b"hello").await;
        assert_eq!(a.next_payload().await, b"ack 1");
        a.say(&game, b"finish").await;
        tokio::time::timeout(WAIT, async {
            while !lobby.list()[0].finished {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("finished");
        let t = lobby.store().load_transcript(id).await.unwrap().unwrap();
        assert!(t.ends_with(b"hello"));
        assert!(lobby.store().list_unfinished().await.unwrap().is_empty());
    }

    /// A store whose appends always fail.
    struct BrokenDisk;

    impl GameStore for BrokenDisk {
        fn create_game(
            &mut self,
            _: GameId,
            _: &[u8],
            _: &NewGameRecord,
            _: &[Vec<u8>],
        ) -> Result<(), StoreError> {
            Ok(())
        }
        fn count_unfinished(
            &self,
            _: &PublicKey,
            _: Option<&Party>,
        ) -> Result<crate::store::GameCounts, StoreError> {
            Ok(Default::default())
        }
        fn append_and_finish(
            &mut self,
            g: GameId,
            _: u64,
            _: &[u8],
            _: &[u8],
            _: &[u8],
        ) -> Result<(), StoreError> {
            Err(StoreError::UnknownGame(g))
        }
        fn mark_started(&mut self, _: GameId) -> Result<(), StoreError> {
            Ok(())
        }
        fn expire_unstarted(&mut self, _: u64) -> Result<Vec<GameId>, StoreError> {
            Ok(Vec::new())
        }
        fn append_event(&mut self, _: GameId, _: u64, _: &[u8]) -> Result<(), StoreError> {
            Err(StoreError::Backend {
                operation: "commit append_event",
                detail: "disk full".into(),
            })
        }
        fn load_game(&self, g: GameId) -> Result<StoredGame, StoreError> {
            Err(StoreError::UnknownGame(g))
        }
        fn load_events_from(&self, g: GameId, _: u64) -> Result<Vec<StoredEvent>, StoreError> {
            Err(StoreError::UnknownGame(g))
        }
        fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError> {
            Ok(Vec::new())
        }
        fn finish_game(&mut self, g: GameId, _: &[u8], _: &[u8]) -> Result<(), StoreError> {
            Err(StoreError::UnknownGame(g))
        }
        fn load_transcript(&self, g: GameId) -> Result<Option<Vec<u8>>, StoreError> {
            Err(StoreError::UnknownGame(g))
        }
    }

    // G6: nothing is acknowledged that is not durable; a storage failure
    // stops the game with a clear error instead.
    #[tokio::test]
    async fn storage_failure_stops_game_without_ack() {
        let lobby = lobby_with(
            Arc::new(RelayFactory),
            Box::new(BrokenDisk),
            settings(600, 0),
        );
        let id = lobby
            .create_game(PublicKey([0; 32]), b"s".to_vec())
            .await
            .unwrap();
        let game = lobby.commands(id).unwrap();
        let mut a = client(1, 64);
        // The seat event cannot be stored: Joined was sent, then the failure.
        assert!(!a.join(&game, Role::Player(Side::A)).await);
        assert!(matches!(a.next().await, ServerMessage::Joined { .. }));
        match a.next().await {
            ServerMessage::Error { code, message } => {
                assert_eq!(code, ErrorCode::Internal);
                assert!(message.contains("disk full"), "{message}");
            }
            other => panic!("expected the storage error, got {other:?}"),
        }
        assert!(
            a.rx.try_recv().is_err(),
            "no welcome/ack after a failed append"
        );
        assert!(lobby.commands(id).is_none(), "stopped game is gone");
    }

    /// A lobby on node `id` of a fresh PostgreSQL database (relay games)
    /// with a lease of `lease_ms`, its renewal running; `None` when
    /// PostgreSQL is missing (skipped, said so).
    async fn pg_node(test: &str, id: &str, lease_ms: u64) -> Option<(Arc<Lobby>, String)> {
        let url = hexveil_fixtures::postgres::fresh_database(test)?;
        let node = node_on(&url, id, lease_ms).await;
        Some((node, url))
    }

    /// Node `id` on the database at `url`, its renewal running.
    async fn node_on(url: &str, id: &str, lease_ms: u64) -> Arc<Lobby> {
        let (url, config) = (
            url.to_owned(),
            crate::postgres::NodeConfig {
                id: id.into(),
                lease: Duration::from_millis(lease_ms),
            },
        );
        let store = tokio::task::spawn_blocking(move || {
            crate::postgres::PgStore::connect_node(&url, config).unwrap()
        })
        .await
        .unwrap();
        let lobby = Arc::new(lobby_with(
            Arc::new(RelayFactory),
            Box::new(store),
            settings(600, 0),
        ));
        lobby
            .store()
            .set_node_address(format!("{id}:4433"))
            .await
            .unwrap();
        lobby.set_address(format!("{id}:4433"));
        lobby
            .store()
            .register_node(crate::store::NodeRegistration {
                dir: id.as_bytes().to_vec(),
                dir_locked: true,
                secrets: None,
            })
            .await
            .unwrap();
        lobby.spawn_lease_renewal().await.unwrap();
        lobby
    }

    // Issue 25: games created while their node renews its leases (every
    // 50 ms here, with games created 64 at a time) are never stopped by
    // that renewal: each one's first write goes through. A renewal that
    // listed the live games before a creation it was queued behind gave up
    // the new game's lease, and its first write was refused as "moved to
    // another node" (16 of 880 under hexveil-load).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn issue25_no_game_created_under_load_is_stopped_by_its_own_renewal() {
        let Some((lobby, _)) =
            pg_node("lobby::issue25_no_game_created_under_load", "n1", 150).await
        else {
            return;
        };
        const GAMES: u64 = 256;
        let mut created = Vec::new();
        for wave in 0..GAMES / 64 {
            let mut tasks = tokio::task::JoinSet::new();
            for n in 0..64 {
                let lobby = lobby.clone();
                let mut key = [0u8; 32];
                key[..8].copy_from_slice(&(wave * 64 + n).to_be_bytes());
                tasks.spawn(async move { lobby.create_game(PublicKey(key), b"s".to_vec()).await });
            }
            while let Some(made) = tasks.join_next().await {
                created.push(made.unwrap().unwrap());
            }
        }
        // Several renewals later, every game writes its first entry (a
        // seat) under the lease it was created with.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let mut stopped = Vec::new();
        for (n, id) in created.iter().enumerate() {
            let Some(game) = lobby.commands(*id) else {
                stopped.push(*id);
                continue;
            };
            let mut c = client(n as u64 + 1, 64);
            if !c.join(&game, Role::Player(Side::A)).await {
                stopped.push(*id);
            }
        }
        assert!(
            stopped.is_empty(),
            "{} of {GAMES} new games stopped by their own node's renewal",
            stopped.len()
        );
    }

    /// The scenario of a real (live) game between keys 1 and 2.
    fn live_scenario() -> Vec<u8> {
        let ruleset = hexveil_fixtures::ruleset();
        hexveil_net::new_game::NewGame {
            ruleset: ruleset.id().into(),
            ruleset_version: ruleset.version(),
            scenario_toml: hexveil_fixtures::scenario_toml(),
            players: [PublicKey([1; 32]), PublicKey([2; 32])],
            mode: hexveil_protocol::message::Mode::Live,
            pad_len: hexveil_fixtures::PAD_LEN,
            answer_timeout_secs: None,
        }
        .encode()
    }

    /// A lobby of real games on the SQLite store in `dir`, or on the
    /// PostgreSQL database at `url`, whose store calls `hook` at each step
    /// of a creation (the server's secrets are in `dir` either way).
    async fn live_lobby(
        dir: &std::path::Path,
        url: Option<String>,
        hook: Option<crate::store::FaultHook>,
    ) -> Lobby {
        let (secrets, _) = crate::secrets::ServerSecrets::load_or_create(dir).unwrap();
        let store: Box<dyn GameStore> = match url {
            None => {
                let mut store = SqliteStore::open(dir).unwrap();
                if let Some(hook) = hook {
                    store.set_fault_hook(hook);
                }
                Box::new(store)
            }
            // The PostgreSQL client blocks: connected off the runtime.
            Some(url) => tokio::task::spawn_blocking(move || {
                let mut store = crate::postgres::PgStore::connect(&url).unwrap();
                if let Some(hook) = hook {
                    store.set_fault_hook(hook);
                }
                Box::new(store) as Box<dyn GameStore>
            })
            .await
            .unwrap(),
        };
        lobby_with(
            Arc::new(crate::live_game::LiveGameFactory::new(Arc::new(secrets))),
            store,
            settings(600, 0),
        )
    }

    /// Set in the child process of the tests below: the data directory,
    /// the creation step at which the child kills itself and the
    /// PostgreSQL database's URL (empty: SQLite).
    const KILL_AT: &str = "HEXVEIL_TEST_KILL_CREATION_AT";

    // G6 (issue 31): a creation cut by a crash at any of its steps leaves
    // either a playable game (its genesis stored with it) or nothing, never
    // a game whose log is empty. The store's fault hook (tests only) aborts
    // a child process (this test run again, `KILL_AT` set) at each step in
    // turn: the transaction begun, the game's row written, its genesis
    // written, the commit done (before `GameCreated` could be sent); the
    // parent then opens the same data as a restarted server would.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn g6_a_creation_killed_at_any_step_leaves_a_playable_game_or_nothing() {
        creation_killed_at_every_step(
            "lobby::tests::g6_a_creation_killed_at_any_step_leaves_a_playable_game_or_nothing",
            false,
        )
        .await;
    }

    // G6 (issue 31): the same on PostgreSQL, whose creation is one
    // transaction too (the row, the genesis, the counts); skipped, saying
    // so, where PostgreSQL is not installed (`HEXVEIL_PG_BIN`).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn g6_a_creation_killed_at_any_step_leaves_a_playable_game_or_nothing_postgres() {
        let test = "lobby::tests::g6_a_creation_killed_at_any_step_leaves_a_playable_game_or_nothing_postgres";
        // The child is given its database by the parent.
        if std::env::var(KILL_AT).is_err()
            && hexveil_fixtures::postgres::fresh_database(test).is_none()
        {
            return;
        }
        creation_killed_at_every_step(test, true).await;
    }

    /// The body of the two tests above, on SQLite or (`postgres`) on a
    /// fresh PostgreSQL database for each step; `test` is the test's own
    /// name, run again as the child.
    async fn creation_killed_at_every_step(test: &str, postgres: bool) {
        use crate::store::CreateStep;
        if let Ok(at) = std::env::var(KILL_AT) {
            let mut parts = at.splitn(3, '|');
            let (dir, step, url) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap_or(""),
            );
            let step = CreateStep::ALL
                .into_iter()
                .find(|s| format!("{s:?}") == step)
                .unwrap();
            let hook: crate::store::FaultHook = Arc::new(move |s| {
                if s == step {
                    std::process::abort();
                }
            });
            let url = (!url.is_empty()).then(|| url.to_string());
            let lobby = live_lobby(std::path::Path::new(dir), url, Some(hook)).await;
            let made = lobby.create_game(PublicKey([1; 32]), live_scenario()).await;
            panic!("the creation was not killed at {step:?}: {made:?}");
        }
        for step in CreateStep::ALL {
            let dir = tempfile::tempdir().unwrap();
            let url = postgres.then(|| {
                hexveil_fixtures::postgres::fresh_database(test).expect("PostgreSQL is there")
            });
            let status = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", test, "--nocapture", "--test-threads=1"])
                .env(
                    KILL_AT,
                    format!(
                        "{}|{step:?}|{}",
                        dir.path().display(),
                        url.as_deref().unwrap_or("")
                    ),
                )
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(!status.success(), "{step:?}: the child was not killed");
            // Restarted on the same data.
            let lobby = live_lobby(dir.path(), url.clone(), None).await;
            let games = lobby.store().list_unfinished().await.unwrap();
            if step != CreateStep::Committed {
                assert!(
                    games.is_empty(),
                    "{step:?}: a game survived its rolled-back creation"
                );
                continue;
            }
            assert_eq!(games.len(), 1, "{step:?}: the committed game is there");
            let id = games[0];
            let log = lobby.store().load_events(id).await.unwrap();
            assert!(!log.is_empty(), "{step:?}: stored without its genesis");
            assert_eq!(lobby.restore_unfinished().await.unwrap(), 1);
            let game = lobby
                .open_game(id, PublicKey([1; 32]))
                .await
                .unwrap()
                .expect("the game opens");
            let (mut a, mut b, mut watcher) = (client(1, 64), client(2, 64), client(3, 64));
            assert!(
                a.join(&game, Role::Player(Side::A)).await,
                "{step:?}: side A joins"
            );
            assert!(
                b.join(&game, Role::Player(Side::B)).await,
                "{step:?}: side B joins"
            );
            assert!(
                watcher.join(&game, Role::Spectator).await,
                "{step:?}: a spectator joins"
            );
            // Each player is sent what it was shown of the genesis.
            for player in [&mut a, &mut b] {
                let joined = player.next().await;
                assert!(
                    matches!(joined, ServerMessage::Joined { resync: 1.., .. }),
                    "{step:?}: {joined:?}"
                );
                let shown = player.next().await;
                assert!(
                    matches!(shown, ServerMessage::Game { .. }),
                    "{step:?}: {shown:?}"
                );
            }
        }
    }

    // Issue 25: a game whose lease was lost before its first entry was
    // written (its log empty: its node stored it, then died or lost the
    // lease before the genesis) is started afresh where it is joined,
    // never left open with an empty log that no node can rebuild.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn issue25_a_game_lost_before_its_first_entry_is_offered_again() {
        use crate::live_game::LiveGameFactory;
        let Some(url) = hexveil_fixtures::postgres::fresh_database(
            "lobby::issue25_a_game_lost_before_its_first_entry",
        ) else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let (secrets, _) = crate::secrets::ServerSecrets::load_or_create(dir.path()).unwrap();
        let scenario = live_scenario();
        // Node a stores the game and its lease, then is gone before its
        // task writes anything.
        let id = GameId([7; 16]);
        let (u, m) = (url.clone(), scenario.clone());
        tokio::task::spawn_blocking(move || {
            let mut a = crate::postgres::PgStore::connect_node(
                &u,
                crate::postgres::NodeConfig {
                    id: "a".into(),
                    lease: Duration::from_millis(100),
                },
            )
            .unwrap();
            a.create_game(id, &m, &NewGameRecord::uncapped(PublicKey([1; 32]), 1), &[])
                .unwrap();
        })
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let store = tokio::task::spawn_blocking(move || {
            crate::postgres::PgStore::connect_node(
                &url,
                crate::postgres::NodeConfig {
                    id: "b".into(),
                    lease: Duration::from_secs(60),
                },
            )
            .unwrap()
        })
        .await
        .unwrap();
        let b = lobby_with(
            Arc::new(LiveGameFactory::new(Arc::new(secrets))),
            Box::new(store),
            settings(600, 0),
        );
        let game = b.open_game(id, PublicKey([1; 32])).await;
        assert!(
            matches!(game, Ok(Some(_))),
            "an empty game could not be opened: {:?}",
            game.err()
        );
        let log = b.store().load_events(id).await.unwrap();
        assert!(!log.is_empty(), "started afresh: its genesis is written");
    }

    // Issue 25: a drain tells each member of each live game where the
    // game goes (another live node), releases the leases, and leaves the
    // node table; the other node takes the games at once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn issue25_a_drain_hands_every_game_to_another_node_at_once() {
        let Some((a, url)) = pg_node("lobby::issue25_a_drain_hands_every_game", "a", 60_000).await
        else {
            return;
        };
        let b = node_on(&url, "b", 60_000).await;
        let mut clients = Vec::new();
        let mut ids = Vec::new();
        for n in 1..=3u64 {
            let id = a
                .create_game(PublicKey([n as u8; 32]), b"s".to_vec())
                .await
                .unwrap();
            let mut c = client(n, 64);
            assert!(
                c.join(&a.commands(id).unwrap(), Role::Player(Side::A))
                    .await
            );
            clients.push(c);
            ids.push(id);
        }
        assert_eq!(a.drain(Duration::from_secs(10)).await, 3);
        a.leave().await.unwrap();
        for (c, id) in clients.iter_mut().zip(&ids) {
            loop {
                match c.next().await {
                    ServerMessage::ServedElsewhere { game_id, address } => {
                        assert_eq!((game_id, address.as_str()), (*id, "b:4433"));
                        break;
                    }
                    ServerMessage::Game { .. } | ServerMessage::Joined { .. } => {}
                    other => panic!("{other:?}"),
                }
            }
        }
        assert!(matches!(
            a.open_game(ids[0], PublicKey([1; 32])).await,
            Err(LobbyError::Store(StoreError::Draining))
        ));
        // The leases are free: node b opens each game at once (a lease of
        // a minute would otherwise hold them).
        for id in &ids {
            assert!(b
                .open_game(*id, PublicKey([1; 32]))
                .await
                .unwrap()
                .is_some());
        }
        let nodes = b.node_addresses().await;
        assert_eq!(nodes, ["b:4433"]);
    }

    // Issue 25: a node paused past its lease, and resumed, lets nobody
    // into its stale game task: the join checks the lease, and the client
    // is sent to the node that took the game over.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn issue25_a_resumed_node_lets_nobody_into_a_game_it_lost() {
        let Some((a, url)) =
            pg_node("lobby::issue25_a_resumed_node_lets_nobody_in", "a", 300).await
        else {
            return;
        };
        let id = a
            .create_game(PublicKey([1; 32]), b"s".to_vec())
            .await
            .unwrap();
        // Node b takes the game over as if a had been paused (its lease
        // ran out; a's renewal, which would notice, is stopped first).
        a.draining.store(true, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let b = node_on(&url, "b", 60_000).await;
        assert!(b.open_game(id, PublicKey([1; 32])).await.unwrap().is_some());
        a.draining.store(false, Ordering::Relaxed);
        assert!(a.commands(id).is_some(), "a's stale task is still there");
        match a.open_game(id, PublicKey([1; 32])).await {
            Err(LobbyError::Store(StoreError::NotOwner { address, .. })) => {
                assert_eq!(address, "b:4433")
            }
            other => panic!("let into a stale game: {:?}", other.map(|g| g.is_some())),
        }
    }
}
