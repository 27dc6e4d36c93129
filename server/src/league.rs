//! The server's finished games as league data: each finished game's stored
//! transcript verified once and made into the row `hexveil results` prints
//! ([`hexveil_view::league::row_of`], G5), listed over QUIC
//! (`ListFinished`) and HTTP (`/`, `/api/games`).
//!
//! Verifying re-runs the whole game, so rows are cached (a finished
//! transcript never changes) and computed one at a time on a blocking
//! thread: however many listings are asked for at once, the server spends
//! at most one core on them (G6).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

use crate::store::{StoreError, StoreHandle};
use crate::wire::{FinishedGame, FinishedRow, GameId, MAX_LISTED_FINISHED};

/// Rows kept in memory at most; beyond it the cache starts again (the
/// latest games are listed, and recomputed, first).
pub const MAX_CACHED_ROWS: usize = 4096;

/// The names two players' keys signed in their setups, side A first.
pub type SignedNames = [Option<String>; 2];

/// Finished games' rows, verified once each.
#[derive(Debug)]
pub struct League {
    store: StoreHandle,
    /// Each game's row, with the names its players' keys signed in their
    /// setups (issue 27 item 8), side A first.
    rows: Mutex<HashMap<GameId, (FinishedRow, SignedNames)>>,
    /// One verification at a time (shared with the web view's replays).
    verifying: Arc<Semaphore>,
}

impl League {
    /// The league of the games in `store`.
    pub fn new(store: StoreHandle) -> Self {
        League {
            store,
            rows: Mutex::new(HashMap::new()),
            verifying: Arc::new(Semaphore::new(1)),
        }
    }

    /// The permit every whole-game verification of the server takes, so
    /// that only one runs at a time.
    pub fn verifying(&self) -> &Arc<Semaphore> {
        &self.verifying
    }

    /// At most `limit` (capped at [`MAX_LISTED_FINISHED`]) finished games,
    /// the most recently created first, each with its row or why its
    /// transcript is not one.
    pub async fn finished(&self, limit: usize) -> Result<Vec<FinishedGame>, StoreError> {
        let ids = self
            .store
            .list_finished(limit.min(MAX_LISTED_FINISHED))
            .await?;
        let mut out = Vec::with_capacity(ids.len());
        for game_id in ids {
            let row = self.row(game_id).await?;
            out.push(FinishedGame { game_id, row });
        }
        Ok(out)
    }

    /// The row of one finished game (`None` if it is not finished).
    pub async fn row_of(&self, game_id: GameId) -> Result<Option<FinishedRow>, StoreError> {
        if let Some(row) = self.cached(game_id) {
            return Ok(Some(row));
        }
        match self.store.load_transcript(game_id).await? {
            None => Ok(None),
            Some(_) => self.row(game_id).await.map(Some),
        }
    }

    fn cached(&self, game_id: GameId) -> Option<FinishedRow> {
        self.rows
            .lock()
            .expect("league lock poisoned")
            .get(&game_id)
            .map(|(row, _)| row.clone())
    }

    /// The names the players of the finished game `game_id` signed in
    /// their setups, side A first, once its row is made (`None` before).
    pub fn signed_names(&self, game_id: GameId) -> Option<SignedNames> {
        self.rows
            .lock()
            .expect("league lock poisoned")
            .get(&game_id)
            .map(|(_, names)| names.clone())
    }

    async fn row(&self, game_id: GameId) -> Result<FinishedRow, StoreError> {
        if let Some(row) = self.cached(game_id) {
            return Ok(row);
        }
        let _one_at_a_time = self
            .verifying
            .acquire()
            .await
            .map_err(|_| StoreError::Closed)?;
        // Another request may have computed it while this one waited.
        if let Some(row) = self.cached(game_id) {
            return Ok(row);
        }
        let mut names = [None, None];
        let row = match self.store.load_transcript(game_id).await? {
            None => FinishedRow::Refused {
                why: format!("game {game_id} has no transcript"),
            },
            Some(bytes) => {
                let verified = tokio::task::spawn_blocking(move || {
                    hexveil_view::league::row_and_names(&bytes, None)
                })
                .await;
                match verified {
                    Ok(Ok((row, signed))) => {
                        names = signed;
                        FinishedRow::Verified(Box::new(row))
                    }
                    Ok(Err(refused)) => FinishedRow::Refused { why: refused.why },
                    Err(e) => FinishedRow::Refused {
                        why: format!("the verification stopped: {e}"),
                    },
                }
            }
        };
        let mut rows = self.rows.lock().expect("league lock poisoned");
        if rows.len() >= MAX_CACHED_ROWS {
            rows.clear();
        }
        rows.insert(game_id, (row.clone(), names));
        Ok(row)
    }
}
