//! Durable storage of games and their event logs (DESIGN section 5, G6:
//! nothing acknowledged is lost when the server is killed).
//!
//! [`GameStore`] is a small synchronous trait. Implementations: [`crate::sqlite`]
//! (the default) and [`crate::postgres`] (a league's nodes sharing one
//! PostgreSQL); both pass the same tests (`store_conformance`).
//!
//! Threading: the trait is synchronous because both SQLite and a synchronous
//! PostgreSQL client block on I/O (an `fsync`, a network round trip). The
//! server never calls it from an async task directly: [`StoreHandle`] owns the
//! store on one dedicated OS thread and async callers send it closures and
//! await the answer. One writer thread fits SQLite, which serialises writers
//! anyway; a PostgreSQL backend can run several such threads (one connection
//! each) behind the same handle type without changing callers.
//!
//! Group commit (issue 16, G6): appends are typed jobs, not closures. When
//! the thread takes an append it also takes every append queued behind it
//! (those that arrived while the last commit ran) and hands them all to
//! [`GameStore::append_batch`], which a backend commits in one transaction
//! with one `fsync` ([`crate::sqlite`] does; the default implementation
//! commits them one by one). Each caller is answered only once the
//! transaction holding its append is durable, so nothing that depends on an
//! entry (its receipt, the updates) goes out before the entry is on disk.
//! One append that fails (a sequence gap, a finished game) fails alone: the
//! others of its batch are still committed. Per game the order is kept: a
//! game's task awaits each append before it sends the next, and a batch is
//! applied in queue order; a closure job queued behind appends runs after
//! their batch is committed.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

use crate::metrics::Metrics;
use crate::shares::Party;
use crate::wire::{GameId, PublicKey};

/// Why a storage operation failed. Each variant says exactly what.
#[derive(Clone, Debug, Error)]
pub enum StoreError {
    /// `create_game` with an id that already exists.
    #[error("game {0} already exists")]
    DuplicateGame(GameId),
    /// The game id is not in the store.
    #[error("unknown game {0}")]
    UnknownGame(GameId),
    /// An event with this sequence number is already stored.
    #[error("game {game}: event seq {seq} is already stored")]
    DuplicateSeq {
        /// The game.
        game: GameId,
        /// The sequence number.
        seq: u64,
    },
    /// Events must be appended in order without gaps, from 0.
    #[error("game {game}: event seq {got} appended, the next one must be {expected}")]
    SeqGap {
        /// The game.
        game: GameId,
        /// The next free sequence number.
        expected: u64,
        /// The one given.
        got: u64,
    },
    /// The game is finished; its log is closed.
    #[error("game {0} is finished; no more events or results can be stored")]
    GameFinished(GameId),
    /// A sequence number beyond what the backend can store.
    #[error("event seq {0} is out of the storable range")]
    SeqOutOfRange(u64),
    /// The database reported an error.
    #[error("storage failed while trying to {operation}: {detail}")]
    Backend {
        /// What was being done.
        operation: &'static str,
        /// The backend's message.
        detail: String,
    },
    /// The storage thread is gone (the server is shutting down or it panicked).
    #[error("the storage thread has stopped")]
    Closed,
    /// A new game would pass a cap on unfinished games (G6: bounded cost
    /// per key).
    #[error("{holder} already has {count} {what} games, the most this server allows ({setting} = {limit}); finish or abandon one first")]
    TooManyGames {
        /// Whose games were counted: `key <hex>` or `this server`.
        holder: String,
        /// How many it has.
        count: u64,
        /// The cap.
        limit: u64,
        /// The server setting that sets the cap.
        setting: &'static str,
        /// Which games were counted (`unfinished`, `under-way`, ...).
        what: &'static str,
    },
    /// The game expired before it started (both seats never taken); its
    /// log is closed.
    #[error("game {0} expired: it never started")]
    Expired(GameId),
    /// Another node serves the game: its lease there has not expired
    /// (issue 13). Clients are sent to `address`.
    #[error("game {game} is served by node {node} at {address}")]
    NotOwner {
        /// The game.
        game: GameId,
        /// The owning node's id.
        node: String,
        /// The address its clients connect to.
        address: String,
    },
    /// This node's lease on the game was taken over by another node: the
    /// write was refused by the fencing token it carried (issue 13), and
    /// this node must stop serving the game.
    #[error("game {0} moved to another node: this node's lease on it was taken over")]
    Fenced(GameId),
    /// The database could not be reached (a restart, a reset or cut
    /// connection, a timeout) for as long as the store kept trying
    /// (issue 25); nothing of the operation is known to have happened
    /// beyond what the store reports when it is back.
    #[error("storage unavailable while trying to {operation} (tried for {:.1} s): {detail}", .tried.as_secs_f64())]
    Unavailable {
        /// What was being done.
        operation: &'static str,
        /// The last error seen.
        detail: String,
        /// How long the store kept trying.
        tried: Duration,
    },
    /// Another live node uses this node's id (issue 25): its row in the
    /// league's node table was renewed while this node waited for it to
    /// expire, or this node's own row was taken over.
    #[error("node id {node} is in use by a live node at {address}; give this node another --node-id (or stop the other one)")]
    NodeIdInUse {
        /// The node id.
        node: String,
        /// The address the other node advertises.
        address: String,
    },
    /// This node's transcript key and pad master secret are not the
    /// league's (issue 25): it could not open the games the other nodes
    /// sealed, nor countersign with the league's key.
    #[error("this node's secrets are not the league's: the league's transcript key is {league} (first recorded by node {recorded_by}), this node's is {ours}; copy transcript-key.pk8 and pad-master.key from another node's data directory into this node's and start it again")]
    ForeignSecrets {
        /// The league's transcript key (hex).
        league: String,
        /// This node's (hex).
        ours: String,
        /// The node that recorded the league's.
        recorded_by: String,
    },
    /// This node is shutting down (a drain): it takes no more games.
    #[error("this node is shutting down; it takes no more games")]
    Draining,
}

impl StoreError {
    /// Whether the operation may succeed if tried again later (the
    /// database was unreachable), as opposed to a refusal.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable { .. } | StoreError::Closed)
    }
}

/// Where a game is served, as one node's store sees it (issue 25).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameLocation {
    /// This node serves it, or takes it when it is joined here (no other
    /// node's lease runs; a finished game, which any node serves).
    ThisNode,
    /// Another node's lease runs.
    OtherNode {
        /// Its id.
        node: String,
        /// The address its clients connect to.
        address: String,
        /// How long its lease runs unless renewed.
        lease_left: Duration,
    },
}

/// One live node of a league (issue 25).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveNode {
    /// Its id.
    pub node: String,
    /// The address its clients connect to.
    pub address: String,
}

/// What a node registers under when it starts (issue 25): its data
/// directory and the league's secrets it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRegistration {
    /// A random tag of the node's data directory (the same across
    /// restarts from that directory).
    pub dir: Vec<u8>,
    /// Whether this process holds the data directory's lock: a row of the
    /// node id left by a process of the same directory is then a dead
    /// one's, taken over at once.
    pub dir_locked: bool,
    /// The node's secrets as the league checks them, if its games have
    /// any ([`crate::session::SessionFactory::league_secrets`]).
    pub secrets: Option<LeagueSecrets>,
}

/// A node's secrets as the league compares them (issue 25): every node
/// of a league must hold the same transcript key and pad master secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeagueSecrets {
    /// The transcript key's public half.
    pub transcript_key: PublicKey,
    /// A digest of both secrets (never the secrets themselves).
    pub check: [u8; 32],
}

/// Caps on unfinished games checked when a game is created (G6, issue
/// 31). Every unfinished game is charged to its creator's key, address
/// and network ([`crate::shares::Party`]) for as long as it is
/// unfinished. A game is *pending* until both seats have committed (each
/// player's first entry is logged: [`GameStore::mark_started`]) and counts
/// against `pending`; then it is *under way* and counts against `total`.
/// So games no one plays cost their creators' shares and expire, and never
/// fill the server for the games being played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameCaps {
    /// Unfinished games one creator key may have.
    pub per_key: u64,
    /// Unfinished games created from one address may be.
    pub per_address: u64,
    /// Unfinished games created from one network may be.
    pub per_network: u64,
    /// Games under way (both seats committed) the server holds in all;
    /// checked when a game is created, so that a pending game that starts
    /// is never refused (the server then holds at most `total + pending`).
    pub total: u64,
    /// Pending games (not under way yet) the server holds in all.
    pub pending: u64,
}

impl GameCaps {
    /// No cap (tests and tools).
    pub const NONE: GameCaps = GameCaps {
        per_key: u64::MAX,
        per_address: u64::MAX,
        per_network: u64::MAX,
        total: u64::MAX,
        pending: u64::MAX,
    };
}

/// The unfinished, unexpired games counted for a new game's caps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameCounts {
    /// Created by the key.
    pub key: u64,
    /// Created from the address.
    pub address: u64,
    /// Created from the network.
    pub network: u64,
    /// Under way, in all.
    pub under_way: u64,
    /// Pending, in all.
    pub pending: u64,
}

/// A stored creation time: 0 is the default a migrated row got when the
/// column was added (SQLite schema 2), so unknown.
pub fn known_ms(stored: i64) -> Option<u64> {
    u64::try_from(stored).ok().filter(|ms| *ms > 0)
}

/// Who creates a game, when, and under which caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewGameRecord {
    /// The key that created it (counted by [`GameCaps::per_key`]).
    pub creator: PublicKey,
    /// Where it was created from (counted by [`GameCaps::per_address`]
    /// and [`GameCaps::per_network`]); `None` for a game made inside the
    /// server (tests and tools), which no address pays for.
    pub party: Option<Party>,
    /// Unix milliseconds at creation (for the expiry of games that never
    /// start).
    pub created_ms: u64,
    /// The caps to check, in the same transaction as the insert.
    pub caps: GameCaps,
}

impl NewGameRecord {
    /// Refuses a game past its caps, given the games counted in the
    /// inserting transaction (G6: bounded cost; every backend applies the
    /// same rule).
    pub fn check_caps(&self, n: &GameCounts) -> Result<(), StoreError> {
        let over = |holder: String, count, limit, setting, what| StoreError::TooManyGames {
            holder,
            count,
            limit,
            setting,
            what,
        };
        let c = &self.caps;
        if n.key >= c.per_key {
            return Err(over(
                format!("key {}", self.creator),
                n.key,
                c.per_key,
                "max_unfinished_games_per_key",
                "unfinished",
            ));
        }
        if let Some(party) = &self.party {
            if n.address >= c.per_address {
                return Err(over(
                    format!("address {}", party.address),
                    n.address,
                    c.per_address,
                    "max_unfinished_games_per_address",
                    "unfinished",
                ));
            }
            if n.network >= c.per_network {
                return Err(over(
                    format!("network {}", party.network),
                    n.network,
                    c.per_network,
                    "max_unfinished_games_per_network",
                    "unfinished",
                ));
            }
        }
        if n.pending >= c.pending {
            return Err(over(
                "this server".into(),
                n.pending,
                c.pending,
                "max_pending_games",
                "pending (seats not both committed)",
            ));
        }
        if n.under_way >= c.total {
            return Err(over(
                "this server".into(),
                n.under_way,
                c.total,
                "max_unfinished_games",
                "under-way",
            ));
        }
        Ok(())
    }

    /// A record with no caps and no address (tests and tools).
    pub fn uncapped(creator: PublicKey, created_ms: u64) -> Self {
        NewGameRecord {
            creator,
            party: None,
            created_ms,
            caps: GameCaps::NONE,
        }
    }
}

/// A step of a game's creation in the store, where a test may stop the
/// process ([`FaultHook`]): the transaction begun, the game's row
/// written, its first log entries written, the transaction committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreateStep {
    /// The creating transaction is open; nothing is written yet.
    Begun,
    /// The game's row is written (not committed).
    Row,
    /// Its first log entries (the genesis) are written (not committed).
    Log,
    /// The transaction is committed: the game exists, with its genesis.
    Committed,
}

impl CreateStep {
    /// Every step, in order.
    pub const ALL: [CreateStep; 4] = [
        CreateStep::Begun,
        CreateStep::Row,
        CreateStep::Log,
        CreateStep::Committed,
    ];
}

/// Fault injection for tests only: called at each [`CreateStep`] of a
/// game's creation (a test kills the process there). A store has none
/// unless a test sets one.
pub type FaultHook = std::sync::Arc<dyn Fn(CreateStep) + Send + Sync>;

/// A stored game's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// The game.
    pub game_id: GameId,
    /// The metadata given at creation (the scenario bytes).
    pub metadata: Vec<u8>,
    /// The result, once finished.
    pub result: Option<Vec<u8>>,
    /// Whether the game is under way: both seats committed (for a
    /// session without commitments, both seats taken at least once).
    pub started: bool,
    /// Whether it expired before it started ([`GameStore::expire_unstarted`]).
    pub expired: bool,
    /// When it was created (Unix milliseconds, [`NewGameRecord::created_ms`]);
    /// `None` for a game stored before the store recorded it (a SQLite
    /// schema 1 row, migrated with 0).
    pub created_ms: Option<u64>,
}

/// One stored event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its sequence number (0, 1, 2, ...).
    pub seq: u64,
    /// The exact bytes appended.
    pub bytes: Vec<u8>,
}

/// One log entry to append ([`GameStore::append_batch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Append {
    /// The game.
    pub game_id: GameId,
    /// Its sequence number: the next free one of the game.
    pub seq: u64,
    /// The bytes to store.
    pub bytes: Vec<u8>,
}

/// Durable game storage. Every method that writes returns only once the
/// write is durable.
pub trait GameStore: Send {
    /// Record a new game with its metadata and the first entries of its
    /// log (`log`, numbered 0, 1, ...: its genesis), unless the games
    /// counted for `new.caps` already reach them
    /// ([`StoreError::TooManyGames`]); the count, the game and its entries
    /// are one transaction, so a crash leaves either a game with its
    /// genesis or nothing (G6, issue 31: a game without a genesis could
    /// never be joined).
    fn create_game(
        &mut self,
        game_id: GameId,
        metadata: &[u8],
        new: &NewGameRecord,
        log: &[Vec<u8>],
    ) -> Result<(), StoreError>;

    /// Unfinished, unexpired games counted for a new game of `creator`
    /// from `party` (no address counted without one).
    fn count_unfinished(
        &self,
        creator: &PublicKey,
        party: Option<&Party>,
    ) -> Result<GameCounts, StoreError>;

    /// Housekeeping the storage thread runs after each job: `idle` when
    /// no job waits behind it. What a backend does here must be short
    /// when not idle (a commit may be waiting); the default does nothing.
    /// SQLite starts its WAL over here (issue 30: under steady load it
    /// never did, and grew by megabytes a second).
    fn housekeep(&mut self, _idle: bool) {}

    /// Append an event. `seq` must be the next free sequence number (the
    /// number of events stored so far); returns after it is durable.
    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError>;

    /// Append several events, in order, and return one result per append
    /// (same order, same length), after every successful one is durable.
    /// Each append is checked as [`GameStore::append_event`] checks it, after
    /// those before it in the slice, and a failing one changes nothing and
    /// fails alone. A backend that can should make them durable together
    /// (one transaction, one `fsync`: group commit); this default appends
    /// them one by one.
    fn append_batch(&mut self, appends: &[Append]) -> Vec<Result<(), StoreError>> {
        appends
            .iter()
            .map(|a| self.append_event(a.game_id, a.seq, &a.bytes))
            .collect()
    }

    /// A game's header.
    fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError>;

    /// A game's events in sequence order.
    fn load_events(&self, game_id: GameId) -> Result<Vec<StoredEvent>, StoreError> {
        self.load_events_from(game_id, 0)
    }

    /// A game's events from `from_seq` on, in sequence order (a resync
    /// near the end of a long log reads only its end; the backends read
    /// only those rows).
    fn load_events_from(
        &self,
        game_id: GameId,
        from_seq: u64,
    ) -> Result<Vec<StoredEvent>, StoreError>;

    /// Ids of all games not yet finished, in creation order.
    fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError>;

    /// Ids of at most `limit` finished games, the most recently created
    /// first (a listing of results). A backend that keeps no such index
    /// lists none.
    fn list_finished(&self, _limit: usize) -> Result<Vec<GameId>, StoreError> {
        Ok(Vec::new())
    }

    /// Mark a game finished with its result and its final transcript, in one
    /// durable transaction.
    fn finish_game(
        &mut self,
        game_id: GameId,
        result: &[u8],
        transcript: &[u8],
    ) -> Result<(), StoreError>;

    /// The transcript of a finished game; `None` while it is unfinished.
    fn load_transcript(&self, game_id: GameId) -> Result<Option<Vec<u8>>, StoreError>;

    /// Append the log's last event and mark the game finished with its
    /// result and transcript, all in one durable transaction: a crash
    /// leaves either neither or both (G6; without it a kill between the two
    /// left a closed log in a game listed as open).
    fn append_and_finish(
        &mut self,
        game_id: GameId,
        seq: u64,
        bytes: &[u8],
        result: &[u8],
        transcript: &[u8],
    ) -> Result<(), StoreError>;

    /// Record that the game is under way (both seats committed); games
    /// that never get there expire ([`GameStore::expire_unstarted`]).
    fn mark_started(&mut self, game_id: GameId) -> Result<(), StoreError>;

    /// Expire every unfinished game that never started and was created
    /// before `created_before_ms`: its log is closed (appends are refused
    /// with [`StoreError::Expired`]), it no longer counts against the caps
    /// and is no longer listed, and its scenario and entries are deleted
    /// (nothing was played: a flood of games no one plays fills no disk).
    /// Returns their ids.
    fn expire_unstarted(&mut self, created_before_ms: u64) -> Result<Vec<GameId>, StoreError>;

    /// How long a lease of this node lasts without renewal, when games are
    /// leased to nodes (several nodes share the store, issue 13); `None`
    /// for a store only one server uses (the default).
    fn lease_period(&self) -> Option<Duration> {
        None
    }

    /// The address this node's clients connect to, given to the other
    /// nodes' clients of the games it leases (default: unused).
    fn set_node_address(&mut self, _address: &str) {}

    /// Take the lease of an unfinished game for this node before its task
    /// starts: a new lease, or one taken over because it expired, with a
    /// new fencing token every appending write of this node then carries.
    /// [`StoreError::NotOwner`] while another node's lease runs. A store
    /// without leases grants every game (the default).
    fn acquire_lease(&mut self, _game_id: GameId) -> Result<(), StoreError> {
        Ok(())
    }

    /// Renew this node's leases of the games in `live` (those with a task
    /// here) and give up its others; returns the games of `live` whose
    /// lease was lost (taken over after it expired: their tasks must stop).
    fn renew_leases(&mut self, _live: &[GameId]) -> Result<Vec<GameId>, StoreError> {
        Ok(Vec::new())
    }

    /// Registers this node among the league's nodes as it starts (issue
    /// 25): refused while another live node holds its id
    /// ([`StoreError::NodeIdInUse`]) or when its secrets are not the
    /// league's ([`StoreError::ForeignSecrets`]). A store only one server
    /// uses registers nothing (the default).
    fn register_node(&mut self, _node: &NodeRegistration) -> Result<(), StoreError> {
        Ok(())
    }

    /// Where `game_id` is served ([`GameLocation`]); [`StoreError::UnknownGame`]
    /// for a game not stored or expired. The default (one server): here.
    fn locate(&self, game_id: GameId) -> Result<GameLocation, StoreError> {
        match self.load_game(game_id)? {
            game if game.expired => Err(StoreError::UnknownGame(game_id)),
            _ => Ok(GameLocation::ThisNode),
        }
    }

    /// The league's live nodes, this one included (default: none known).
    fn live_nodes(&self) -> Result<Vec<LiveNode>, StoreError> {
        Ok(Vec::new())
    }

    /// Checks, before someone is let into the live game `game_id`, that
    /// this node still holds its lease (a node paused past its lease and
    /// resumed may not have noticed yet): [`StoreError::NotOwner`] or
    /// [`StoreError::Fenced`] if not. The default: always.
    fn confirm_lease(&mut self, _game_id: GameId) -> Result<(), StoreError> {
        Ok(())
    }

    /// Gives up this node's lease on `game_id` (a drain: another node may
    /// take it at once). The default: nothing to give up.
    fn release_lease(&mut self, _game_id: GameId) -> Result<(), StoreError> {
        Ok(())
    }

    /// Leaves the league (the end of a drain): every lease of this node is
    /// released and its node row removed. The default: nothing to do.
    fn leave(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Any operation on the store, as a closure that answers its caller itself.
type Task = Box<dyn FnOnce(&mut dyn GameStore) + Send>;

/// Work for the storage thread.
enum Job {
    /// Any operation ([`StoreHandle::run`]).
    Run(Task),
    /// Appends of one game in sequence order, answered (one result each)
    /// once they are durable; appends queued together are group-committed
    /// ([`GameStore::append_batch`]).
    Append(Vec<Append>, oneshot::Sender<Vec<Result<(), StoreError>>>),
}

/// The most appends one group commit takes (the job queue's length: a
/// batch never waits for more than what is already queued).
const MAX_BATCH: usize = 1024;

/// The storage thread's loop: runs jobs in queue order, group-committing
/// each run of queued appends.
fn serve(mut store: Box<dyn GameStore>, mut rx: mpsc::Receiver<Job>, metrics: Arc<Metrics>) {
    let mut held: Option<Job> = None;
    loop {
        let job = match held.take() {
            Some(job) => job,
            None => match rx.blocking_recv() {
                Some(job) => job,
                None => return,
            },
        };
        match job {
            Job::Run(f) => f(store.as_mut()),
            Job::Append(first, reply) => {
                let mut replies = vec![(first.len(), reply)];
                let mut appends = first;
                // Every append queued while the last commit ran; a closure
                // job behind them waits for their commit (queue order).
                while appends.len() < MAX_BATCH {
                    match rx.try_recv() {
                        Ok(Job::Append(a, r)) => {
                            replies.push((a.len(), r));
                            appends.extend(a);
                        }
                        Ok(other) => {
                            held = Some(other);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                let started = Instant::now();
                let mut results = store.append_batch(&appends).into_iter();
                metrics.committed(started.elapsed());
                metrics.group_committed(appends.len());
                for (n, reply) in replies {
                    // A backend that answered too few (a bug) leaves the
                    // rest unacknowledged, never acknowledged by mistake.
                    let answers = (0..n)
                        .map(|_| {
                            results.next().unwrap_or(Err(StoreError::Backend {
                                operation: "append in a group commit",
                                detail: "the backend gave no result for this append".into(),
                            }))
                        })
                        .collect();
                    let _ = reply.send(answers);
                }
            }
        }
        store.housekeep(held.is_none() && rx.is_empty());
    }
}

/// Async access to a [`GameStore`] living on its own thread. Cloning shares
/// the thread; it stops when the last handle is dropped. Each durable write
/// is timed into the metrics' `store_commit_seconds`.
#[derive(Clone, Debug)]
pub struct StoreHandle {
    jobs: mpsc::Sender<Job>,
    metrics: Arc<Metrics>,
}

impl StoreHandle {
    /// Move `store` onto a new thread named `hexveil-store`, with metrics
    /// of its own.
    pub fn spawn(store: Box<dyn GameStore>) -> std::io::Result<Self> {
        Self::spawn_measured(store, Metrics::new())
    }

    /// [`StoreHandle::spawn`], reporting to `metrics` (which the lobby
    /// built on this handle shares).
    pub fn spawn_measured(
        store: Box<dyn GameStore>,
        metrics: Arc<Metrics>,
    ) -> std::io::Result<Self> {
        let (jobs, rx) = mpsc::channel::<Job>(MAX_BATCH);
        let thread_metrics = metrics.clone();
        thread::Builder::new()
            .name("hexveil-store".into())
            .spawn(move || serve(store, rx, thread_metrics))?;
        Ok(StoreHandle { jobs, metrics })
    }

    /// Jobs queued and not yet taken by the storage thread (tests).
    #[cfg(test)]
    pub(crate) fn queued(&self) -> usize {
        self.jobs.max_capacity() - self.jobs.capacity()
    }

    /// The metrics this store reports to.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// [`StoreHandle::run`] for a durable write, timed on the storage
    /// thread.
    async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn GameStore) -> Result<T, StoreError> + Send + 'static,
    {
        let metrics = self.metrics.clone();
        self.run(move |s| {
            let started = Instant::now();
            let out = f(s);
            metrics.committed(started.elapsed());
            out
        })
        .await
    }

    /// Run `f` on the storage thread and await its result.
    pub async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn GameStore) -> Result<T, StoreError> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job = Job::Run(Box::new(move |s| {
            let _ = tx.send(f(s));
        }));
        self.jobs.send(job).await.map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// See [`GameStore::create_game`].
    pub async fn create_game(
        &self,
        game_id: GameId,
        metadata: Vec<u8>,
        new: NewGameRecord,
        log: Vec<Vec<u8>>,
    ) -> Result<(), StoreError> {
        self.write(move |s| s.create_game(game_id, &metadata, &new, &log))
            .await
    }

    /// See [`GameStore::count_unfinished`].
    pub async fn count_unfinished(
        &self,
        creator: PublicKey,
        party: Option<Party>,
    ) -> Result<GameCounts, StoreError> {
        self.run(move |s| s.count_unfinished(&creator, party.as_ref()))
            .await
    }

    /// See [`GameStore::append_and_finish`].
    pub async fn append_and_finish(
        &self,
        game_id: GameId,
        seq: u64,
        bytes: Vec<u8>,
        result: Vec<u8>,
        transcript: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.write(move |s| s.append_and_finish(game_id, seq, &bytes, &result, &transcript))
            .await
    }

    /// See [`GameStore::mark_started`].
    pub async fn mark_started(&self, game_id: GameId) -> Result<(), StoreError> {
        self.write(move |s| s.mark_started(game_id)).await
    }

    /// See [`GameStore::expire_unstarted`].
    pub async fn expire_unstarted(
        &self,
        created_before_ms: u64,
    ) -> Result<Vec<GameId>, StoreError> {
        self.write(move |s| s.expire_unstarted(created_before_ms))
            .await
    }

    /// See [`GameStore::append_event`]: answered once the append is
    /// durable, group-committed with every append queued beside it
    /// ([`GameStore::append_batch`]).
    pub async fn append_event(
        &self,
        game_id: GameId,
        seq: u64,
        bytes: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.append_events(game_id, seq, vec![bytes])
            .await
            .pop()
            .unwrap_or(Err(StoreError::Closed))
    }

    /// Appends `events` to `game_id`'s log from `first_seq` on, in one job
    /// of the storage thread, so that they are committed together (one
    /// transaction, one `fsync`, with whatever else is queued): one result
    /// an event, each answered once durable (issue 30: a ruling's entries
    /// took one commit each, one after the other).
    pub async fn append_events(
        &self,
        game_id: GameId,
        first_seq: u64,
        events: Vec<Vec<u8>>,
    ) -> Vec<Result<(), StoreError>> {
        let n = events.len();
        if n == 0 {
            return Vec::new();
        }
        let appends = (first_seq..)
            .zip(events)
            .map(|(seq, bytes)| Append {
                game_id,
                seq,
                bytes,
            })
            .collect();
        let (tx, rx) = oneshot::channel();
        if self.jobs.send(Job::Append(appends, tx)).await.is_err() {
            return (0..n).map(|_| Err(StoreError::Closed)).collect();
        }
        rx.await
            .unwrap_or_else(|_| (0..n).map(|_| Err(StoreError::Closed)).collect())
    }

    /// See [`GameStore::lease_period`].
    pub async fn lease_period(&self) -> Result<Option<Duration>, StoreError> {
        self.run(|s| Ok(s.lease_period())).await
    }

    /// See [`GameStore::set_node_address`].
    pub async fn set_node_address(&self, address: String) -> Result<(), StoreError> {
        self.run(move |s| {
            s.set_node_address(&address);
            Ok(())
        })
        .await
    }

    /// See [`GameStore::acquire_lease`].
    pub async fn acquire_lease(&self, game_id: GameId) -> Result<(), StoreError> {
        self.write(move |s| s.acquire_lease(game_id)).await
    }

    /// See [`GameStore::renew_leases`]: `live` is asked on the storage
    /// thread, right before the renewal, so that a lease taken by a job
    /// queued before this one (a game being created) is counted live
    /// (issue 25: a list taken earlier released new games' leases).
    pub async fn renew_leases(
        &self,
        live: impl FnOnce() -> Vec<GameId> + Send + 'static,
    ) -> Result<Vec<GameId>, StoreError> {
        self.write(move |s| s.renew_leases(&live())).await
    }

    /// See [`GameStore::register_node`].
    pub async fn register_node(&self, node: NodeRegistration) -> Result<(), StoreError> {
        self.write(move |s| s.register_node(&node)).await
    }

    /// See [`GameStore::locate`].
    pub async fn locate(&self, game_id: GameId) -> Result<GameLocation, StoreError> {
        self.run(move |s| s.locate(game_id)).await
    }

    /// See [`GameStore::live_nodes`].
    pub async fn live_nodes(&self) -> Result<Vec<LiveNode>, StoreError> {
        self.run(|s| s.live_nodes()).await
    }

    /// See [`GameStore::confirm_lease`].
    pub async fn confirm_lease(&self, game_id: GameId) -> Result<(), StoreError> {
        self.run(move |s| s.confirm_lease(game_id)).await
    }

    /// See [`GameStore::release_lease`].
    pub async fn release_lease(&self, game_id: GameId) -> Result<(), StoreError> {
        self.write(move |s| s.release_lease(game_id)).await
    }

    /// See [`GameStore::leave`].
    pub async fn leave(&self) -> Result<(), StoreError> {
        self.write(|s| s.leave()).await
    }

    /// See [`GameStore::load_game`].
    pub async fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError> {
        self.run(move |s| s.load_game(game_id)).await
    }

    /// See [`GameStore::load_events`].
    pub async fn load_events(&self, game_id: GameId) -> Result<Vec<StoredEvent>, StoreError> {
        self.run(move |s| s.load_events(game_id)).await
    }

    /// See [`GameStore::load_events_from`].
    pub async fn load_events_from(
        &self,
        game_id: GameId,
        from_seq: u64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.run(move |s| s.load_events_from(game_id, from_seq))
            .await
    }

    /// See [`GameStore::list_unfinished`].
    pub async fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError> {
        self.run(|s| s.list_unfinished()).await
    }

    /// See [`GameStore::list_finished`].
    pub async fn list_finished(&self, limit: usize) -> Result<Vec<GameId>, StoreError> {
        self.run(move |s| s.list_finished(limit)).await
    }

    /// See [`GameStore::finish_game`].
    pub async fn finish_game(
        &self,
        game_id: GameId,
        result: Vec<u8>,
        transcript: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.write(move |s| s.finish_game(game_id, &result, &transcript))
            .await
    }

    /// See [`GameStore::load_transcript`].
    pub async fn load_transcript(&self, game_id: GameId) -> Result<Option<Vec<u8>>, StoreError> {
        self.run(move |s| s.load_transcript(game_id)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store without group commit of its own (the trait's default).
    struct OneByOne(Vec<(GameId, u64)>);

    impl GameStore for OneByOne {
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
        ) -> Result<GameCounts, StoreError> {
            Ok(GameCounts::default())
        }
        fn append_event(&mut self, game_id: GameId, seq: u64, _: &[u8]) -> Result<(), StoreError> {
            let next = self.0.iter().filter(|(g, _)| *g == game_id).count() as u64;
            if seq != next {
                return Err(StoreError::SeqGap {
                    game: game_id,
                    expected: next,
                    got: seq,
                });
            }
            self.0.push((game_id, seq));
            Ok(())
        }
        fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError> {
            Err(StoreError::UnknownGame(game_id))
        }
        fn load_events_from(&self, _: GameId, _: u64) -> Result<Vec<StoredEvent>, StoreError> {
            Ok(Vec::new())
        }
        fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError> {
            Ok(Vec::new())
        }
        fn finish_game(&mut self, _: GameId, _: &[u8], _: &[u8]) -> Result<(), StoreError> {
            Ok(())
        }
        fn load_transcript(&self, _: GameId) -> Result<Option<Vec<u8>>, StoreError> {
            Ok(None)
        }
        fn append_and_finish(
            &mut self,
            _: GameId,
            _: u64,
            _: &[u8],
            _: &[u8],
            _: &[u8],
        ) -> Result<(), StoreError> {
            Ok(())
        }
        fn mark_started(&mut self, _: GameId) -> Result<(), StoreError> {
            Ok(())
        }
        fn expire_unstarted(&mut self, _: u64) -> Result<Vec<GameId>, StoreError> {
            Ok(Vec::new())
        }
    }

    // G6: the default `append_batch` (a backend without group commit)
    // answers each append in order, a bad one failing alone.
    #[test]
    fn default_append_batch_is_one_by_one_in_order() {
        let mut s = OneByOne(Vec::new());
        let a = |seq: u64| Append {
            game_id: GameId([1; 16]),
            seq,
            bytes: Vec::new(),
        };
        let results = s.append_batch(&[a(0), a(5), a(1)]);
        assert!(results[0].is_ok());
        assert!(matches!(results[1], Err(StoreError::SeqGap { .. })));
        assert!(results[2].is_ok());
        assert_eq!(s.0.len(), 2);
    }
}
