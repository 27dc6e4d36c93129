//! Durable storage of games and their event logs (DESIGN section 5, G6:
//! nothing acknowledged is lost when the server is killed).
//!
//! [`GameStore`] is a small synchronous trait. Implementations: [`crate::sqlite`]
//! (the default). A PostgreSQL backend is meant to be a second module
//! implementing the same trait with a synchronous client.
//!
//! Threading: the trait is synchronous because both SQLite and a synchronous
//! PostgreSQL client block on I/O (an `fsync`, a network round trip). The
//! server never calls it from an async task directly: [`StoreHandle`] owns the
//! store on one dedicated OS thread and async callers send it closures and
//! await the answer. One writer thread fits SQLite, which serialises writers
//! anyway; a PostgreSQL backend can run several such threads (one connection
//! each) behind the same handle type without changing callers.

use std::sync::Arc;
use std::thread;
use std::time::Instant;

use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

use crate::metrics::Metrics;
use crate::wire::{GameId, PublicKey};

/// Why a storage operation failed. Each variant says exactly what.
#[derive(Debug, Error)]
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
    #[error("{holder} already has {count} unfinished games, the most this server allows ({setting} = {limit}); finish or abandon one first")]
    TooManyGames {
        /// Whose games were counted: `key <hex>` or `this server`.
        holder: String,
        /// How many it has.
        count: u64,
        /// The cap.
        limit: u64,
        /// The server setting that sets the cap.
        setting: &'static str,
    },
    /// The game expired before it started (both seats never taken); its
    /// log is closed.
    #[error("game {0} expired: it never started")]
    Expired(GameId),
}

/// Caps on unfinished games checked when a game is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameCaps {
    /// Unfinished games one creator key may have.
    pub per_key: u64,
    /// Unfinished games the server holds in all.
    pub total: u64,
}

impl GameCaps {
    /// No cap (tests and tools).
    pub const NONE: GameCaps = GameCaps {
        per_key: u64::MAX,
        total: u64::MAX,
    };
}

/// Who creates a game, when, and under which caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewGameRecord {
    /// The key that created it (counted by [`GameCaps::per_key`]).
    pub creator: PublicKey,
    /// Unix milliseconds at creation (for the expiry of games that never
    /// start).
    pub created_ms: u64,
    /// The caps to check, in the same transaction as the insert.
    pub caps: GameCaps,
}

impl NewGameRecord {
    /// A record with no caps (tests and tools).
    pub fn uncapped(creator: PublicKey, created_ms: u64) -> Self {
        NewGameRecord {
            creator,
            created_ms,
            caps: GameCaps::NONE,
        }
    }
}

/// A stored game's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// The game.
    pub game_id: GameId,
    /// The metadata given at creation (the scenario bytes).
    pub metadata: Vec<u8>,
    /// The result, once finished.
    pub result: Option<Vec<u8>>,
    /// Whether both seats have been taken at least once.
    pub started: bool,
    /// Whether it expired before it started ([`GameStore::expire_unstarted`]).
    pub expired: bool,
}

/// One stored event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its sequence number (0, 1, 2, ...).
    pub seq: u64,
    /// The exact bytes appended.
    pub bytes: Vec<u8>,
}

/// Durable game storage. Every method that writes returns only once the
/// write is durable.
pub trait GameStore: Send {
    /// Record a new game with its metadata, unless the creator's or the
    /// server's unfinished games (not expired) already reach `new.caps`
    /// ([`StoreError::TooManyGames`]); the count and the insert are one
    /// transaction.
    fn create_game(
        &mut self,
        game_id: GameId,
        metadata: &[u8],
        new: &NewGameRecord,
    ) -> Result<(), StoreError>;

    /// Unfinished, unexpired games: of `creator`, and in all.
    fn count_unfinished(&self, creator: &PublicKey) -> Result<(u64, u64), StoreError>;

    /// Append an event. `seq` must be the next free sequence number (the
    /// number of events stored so far); returns after it is durable.
    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError>;

    /// A game's header.
    fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError>;

    /// A game's events in sequence order.
    fn load_events(&self, game_id: GameId) -> Result<Vec<StoredEvent>, StoreError>;

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

    /// Record that both seats have been taken (the game started); games
    /// that never start expire ([`GameStore::expire_unstarted`]).
    fn mark_started(&mut self, game_id: GameId) -> Result<(), StoreError>;

    /// Expire every unfinished game that never started and was created
    /// before `created_before_ms`: its log is closed (appends are refused
    /// with [`StoreError::Expired`]), it no longer counts against the caps
    /// and is no longer listed. Returns their ids.
    fn expire_unstarted(&mut self, created_before_ms: u64) -> Result<Vec<GameId>, StoreError>;
}

type Job = Box<dyn FnOnce(&mut dyn GameStore) + Send>;

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
        let (jobs, mut rx) = mpsc::channel::<Job>(1024);
        thread::Builder::new()
            .name("hexveil-store".into())
            .spawn(move || {
                let mut store = store;
                while let Some(job) = rx.blocking_recv() {
                    job(store.as_mut());
                }
            })?;
        Ok(StoreHandle { jobs, metrics })
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
        let job: Job = Box::new(move |s| {
            let _ = tx.send(f(s));
        });
        self.jobs.send(job).await.map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// See [`GameStore::create_game`].
    pub async fn create_game(
        &self,
        game_id: GameId,
        metadata: Vec<u8>,
        new: NewGameRecord,
    ) -> Result<(), StoreError> {
        self.write(move |s| s.create_game(game_id, &metadata, &new))
            .await
    }

    /// See [`GameStore::count_unfinished`].
    pub async fn count_unfinished(&self, creator: PublicKey) -> Result<(u64, u64), StoreError> {
        self.run(move |s| s.count_unfinished(&creator)).await
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

    /// See [`GameStore::append_event`].
    pub async fn append_event(
        &self,
        game_id: GameId,
        seq: u64,
        bytes: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.write(move |s| s.append_event(game_id, seq, &bytes))
            .await
    }

    /// See [`GameStore::load_game`].
    pub async fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError> {
        self.run(move |s| s.load_game(game_id)).await
    }

    /// See [`GameStore::load_events`].
    pub async fn load_events(&self, game_id: GameId) -> Result<Vec<StoredEvent>, StoreError> {
        self.run(move |s| s.load_events(game_id)).await
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
