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

use std::thread;

use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

use crate::wire::GameId;

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
    /// Record a new game with its metadata.
    fn create_game(&mut self, game_id: GameId, metadata: &[u8]) -> Result<(), StoreError>;

    /// Append an event. `seq` must be the next free sequence number (the
    /// number of events stored so far); returns after it is durable.
    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError>;

    /// A game's header.
    fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError>;

    /// A game's events in sequence order.
    fn load_events(&self, game_id: GameId) -> Result<Vec<StoredEvent>, StoreError>;

    /// Ids of all games not yet finished, in creation order.
    fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError>;

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
}

type Job = Box<dyn FnOnce(&mut dyn GameStore) + Send>;

/// Async access to a [`GameStore`] living on its own thread. Cloning shares
/// the thread; it stops when the last handle is dropped.
#[derive(Clone, Debug)]
pub struct StoreHandle {
    jobs: mpsc::Sender<Job>,
}

impl StoreHandle {
    /// Move `store` onto a new thread named `hexveil-store`.
    pub fn spawn(store: Box<dyn GameStore>) -> std::io::Result<Self> {
        let (jobs, mut rx) = mpsc::channel::<Job>(1024);
        thread::Builder::new()
            .name("hexveil-store".into())
            .spawn(move || {
                let mut store = store;
                while let Some(job) = rx.blocking_recv() {
                    job(store.as_mut());
                }
            })?;
        Ok(StoreHandle { jobs })
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
    pub async fn create_game(&self, game_id: GameId, metadata: Vec<u8>) -> Result<(), StoreError> {
        self.run(move |s| s.create_game(game_id, &metadata)).await
    }

    /// See [`GameStore::append_event`].
    pub async fn append_event(
        &self,
        game_id: GameId,
        seq: u64,
        bytes: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.run(move |s| s.append_event(game_id, seq, &bytes))
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

    /// See [`GameStore::finish_game`].
    pub async fn finish_game(
        &self,
        game_id: GameId,
        result: Vec<u8>,
        transcript: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.run(move |s| s.finish_game(game_id, &result, &transcript))
            .await
    }

    /// See [`GameStore::load_transcript`].
    pub async fn load_transcript(&self, game_id: GameId) -> Result<Option<Vec<u8>>, StoreError> {
        self.run(move |s| s.load_transcript(game_id)).await
    }
}
