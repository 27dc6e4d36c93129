//! The default [`GameStore`]: SQLite (bundled) in the data directory, WAL
//! journal, `synchronous=FULL`, one transaction per append (DESIGN section 5).

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::store::{GameStore, StoreError, StoredEvent, StoredGame};
use crate::wire::GameId;

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "hexveil.sqlite3";

/// Schema version stored in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    game_id    BLOB PRIMARY KEY CHECK (length(game_id) = 16),
    created    INTEGER NOT NULL,
    metadata   BLOB NOT NULL,
    result     BLOB,
    transcript BLOB
);
CREATE TABLE IF NOT EXISTS events (
    game_id BLOB NOT NULL REFERENCES games(game_id),
    seq     INTEGER NOT NULL CHECK (seq >= 0),
    bytes   BLOB NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// SQLite-backed [`GameStore`].
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
}

fn backend(operation: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |e| StoreError::Backend {
        operation,
        detail: e.to_string(),
    }
}

impl SqliteStore {
    /// Open (creating if needed) `DB_FILE` in `data_dir`, set WAL and
    /// `synchronous=FULL`, and create the schema.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|e| StoreError::Backend {
            operation: "create the data directory",
            detail: format!("{}: {e}", data_dir.display()),
        })?;
        let conn =
            Connection::open(data_dir.join(DB_FILE)).map_err(backend("open the database"))?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(backend("switch to WAL"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Backend {
                operation: "switch to WAL",
                detail: format!("journal mode stayed {mode}"),
            });
        }
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            .map_err(backend("set synchronous=FULL"))?;
        conn.execute_batch(SCHEMA)
            .map_err(backend("create the schema"))?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(backend("read the schema version"))?;
        match version {
            0 => conn
                .execute_batch(&format!("PRAGMA user_version={SCHEMA_VERSION}"))
                .map_err(backend("write the schema version"))?,
            SCHEMA_VERSION => {}
            other => {
                return Err(StoreError::Backend {
                    operation: "check the schema version",
                    detail: format!(
                        "database has schema {other}, this build knows {SCHEMA_VERSION}"
                    ),
                })
            }
        }
        Ok(SqliteStore { conn })
    }

    fn seq_sql(seq: u64) -> Result<i64, StoreError> {
        i64::try_from(seq).map_err(|_| StoreError::SeqOutOfRange(seq))
    }
}

/// Whether the game exists and whether it is finished.
fn game_state(conn: &Connection, game_id: GameId) -> Result<Option<bool>, StoreError> {
    conn.query_row(
        "SELECT result IS NOT NULL FROM games WHERE game_id = ?1",
        params![&game_id.0[..]],
        |r| r.get::<_, bool>(0),
    )
    .optional()
    .map_err(backend("look up the game"))
}

impl GameStore for SqliteStore {
    fn create_game(&mut self, game_id: GameId, metadata: &[u8]) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("begin create_game"))?;
        if game_state(&tx, game_id)?.is_some() {
            return Err(StoreError::DuplicateGame(game_id));
        }
        let created: i64 = tx
            .query_row("SELECT coalesce(max(created), 0) + 1 FROM games", [], |r| {
                r.get(0)
            })
            .map_err(backend("number the game"))?;
        tx.execute(
            "INSERT INTO games (game_id, created, metadata) VALUES (?1, ?2, ?3)",
            params![&game_id.0[..], created, metadata],
        )
        .map_err(backend("insert the game"))?;
        tx.commit().map_err(backend("commit create_game"))
    }

    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let seq_i = Self::seq_sql(seq)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("begin append_event"))?;
        match game_state(&tx, game_id)? {
            None => return Err(StoreError::UnknownGame(game_id)),
            Some(true) => return Err(StoreError::GameFinished(game_id)),
            Some(false) => {}
        }
        let next: i64 = tx
            .query_row(
                "SELECT coalesce(max(seq), -1) + 1 FROM events WHERE game_id = ?1",
                params![&game_id.0[..]],
                |r| r.get(0),
            )
            .map_err(backend("find the next seq"))?;
        if seq_i < next {
            return Err(StoreError::DuplicateSeq { game: game_id, seq });
        }
        if seq_i > next {
            return Err(StoreError::SeqGap {
                game: game_id,
                expected: next as u64,
                got: seq,
            });
        }
        tx.execute(
            "INSERT INTO events (game_id, seq, bytes) VALUES (?1, ?2, ?3)",
            params![&game_id.0[..], seq_i, bytes],
        )
        .map_err(backend("insert the event"))?;
        // With WAL and synchronous=FULL the commit returns after fsync.
        tx.commit().map_err(backend("commit append_event"))
    }

    fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError> {
        self.conn
            .query_row(
                "SELECT metadata, result FROM games WHERE game_id = ?1",
                params![&game_id.0[..]],
                |r| {
                    Ok(StoredGame {
                        game_id,
                        metadata: r.get(0)?,
                        result: r.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(backend("load the game"))?
            .ok_or(StoreError::UnknownGame(game_id))
    }

    fn load_events(&self, game_id: GameId) -> Result<Vec<StoredEvent>, StoreError> {
        if game_state(&self.conn, game_id)?.is_none() {
            return Err(StoreError::UnknownGame(game_id));
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT seq, bytes FROM events WHERE game_id = ?1 ORDER BY seq")
            .map_err(backend("prepare load_events"))?;
        let rows = stmt
            .query_map(params![&game_id.0[..]], |r| {
                Ok(StoredEvent {
                    seq: r.get::<_, i64>(0)? as u64,
                    bytes: r.get(1)?,
                })
            })
            .map_err(backend("load the events"))?;
        rows.collect::<Result<_, _>>()
            .map_err(backend("read an event"))
    }

    fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT game_id FROM games WHERE result IS NULL ORDER BY created")
            .map_err(backend("prepare list_unfinished"))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, Vec<u8>>(0))
            .map_err(backend("list unfinished games"))?;
        let mut out = Vec::new();
        for row in rows {
            let bytes = row.map_err(backend("read a game id"))?;
            let id: [u8; 16] = bytes.try_into().map_err(|b: Vec<u8>| StoreError::Backend {
                operation: "read a game id",
                detail: format!("stored id has {} bytes, not 16", b.len()),
            })?;
            out.push(GameId(id));
        }
        Ok(out)
    }

    fn finish_game(
        &mut self,
        game_id: GameId,
        result: &[u8],
        transcript: &[u8],
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("begin finish_game"))?;
        match game_state(&tx, game_id)? {
            None => return Err(StoreError::UnknownGame(game_id)),
            Some(true) => return Err(StoreError::GameFinished(game_id)),
            Some(false) => {}
        }
        tx.execute(
            "UPDATE games SET result = ?2, transcript = ?3 WHERE game_id = ?1",
            params![&game_id.0[..], result, transcript],
        )
        .map_err(backend("store the result"))?;
        tx.commit().map_err(backend("commit finish_game"))
    }

    fn load_transcript(&self, game_id: GameId) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn
            .query_row(
                "SELECT transcript FROM games WHERE game_id = ?1",
                params![&game_id.0[..]],
                |r| r.get::<_, Option<Vec<u8>>>(0),
            )
            .optional()
            .map_err(backend("load the transcript"))?
            .ok_or(StoreError::UnknownGame(game_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G1: GameId = GameId([1; 16]);
    const G2: GameId = GameId([2; 16]);

    #[test]
    fn pragmas_are_set() {
        let dir = tempfile::tempdir().unwrap();
        let s = SqliteStore::open(dir.path()).unwrap();
        let sync: i64 = s
            .conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "synchronous=FULL");
        let mode: String = s
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    // G6: appends survive a reopen (the durable log is what restart replays).
    #[test]
    fn appends_survive_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut s = SqliteStore::open(dir.path()).unwrap();
            s.create_game(G1, b"scenario").unwrap();
            s.append_event(G1, 0, b"e0").unwrap();
            s.append_event(G1, 1, b"e1").unwrap();
        }
        let s = SqliteStore::open(dir.path()).unwrap();
        let ev = s.load_events(G1).unwrap();
        assert_eq!(
            ev,
            vec![
                StoredEvent {
                    seq: 0,
                    bytes: b"e0".to_vec()
                },
                StoredEvent {
                    seq: 1,
                    bytes: b"e1".to_vec()
                }
            ]
        );
        assert_eq!(s.load_game(G1).unwrap().metadata, b"scenario");
        assert_eq!(s.list_unfinished().unwrap(), vec![G1]);
    }

    // G6: a replayed (duplicate) event changes nothing.
    #[test]
    fn duplicate_seq_and_gaps_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(dir.path()).unwrap();
        s.create_game(G1, b"").unwrap();
        s.append_event(G1, 0, b"first").unwrap();
        assert!(matches!(
            s.append_event(G1, 0, b"second"),
            Err(StoreError::DuplicateSeq { game: G1, seq: 0 })
        ));
        assert!(matches!(
            s.append_event(G1, 5, b"x"),
            Err(StoreError::SeqGap {
                expected: 1,
                got: 5,
                ..
            })
        ));
        assert_eq!(s.load_events(G1).unwrap()[0].bytes, b"first");
        assert_eq!(s.load_events(G1).unwrap().len(), 1);
        assert!(matches!(
            s.create_game(G1, b""),
            Err(StoreError::DuplicateGame(G1))
        ));
        assert!(matches!(
            s.append_event(G2, 0, b""),
            Err(StoreError::UnknownGame(G2))
        ));
        assert!(matches!(
            s.append_event(G1, u64::MAX, b""),
            Err(StoreError::SeqOutOfRange(u64::MAX))
        ));
    }

    #[test]
    fn concurrent_games_are_independent() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(dir.path()).unwrap();
        s.create_game(G1, b"a").unwrap();
        s.create_game(G2, b"b").unwrap();
        for i in 0..3u64 {
            s.append_event(G1, i, &[1, i as u8]).unwrap();
            s.append_event(G2, i, &[2, i as u8]).unwrap();
        }
        s.append_event(G2, 3, b"extra").unwrap();
        assert_eq!(s.load_events(G1).unwrap().len(), 3);
        assert_eq!(s.load_events(G2).unwrap().len(), 4);
        assert!(s.load_events(G1).unwrap().iter().all(|e| e.bytes[0] == 1));
        s.finish_game(G1, b"first wins", b"transcript").unwrap();
        assert_eq!(s.list_unfinished().unwrap(), vec![G2]);
        assert!(matches!(
            s.append_event(G1, 3, b""),
            Err(StoreError::GameFinished(G1))
        ));
        s.append_event(G2, 4, b"still open").unwrap();
    }

    #[test]
    fn finish_stores_result_and_transcript() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut s = SqliteStore::open(dir.path()).unwrap();
            s.create_game(G1, b"").unwrap();
            assert_eq!(s.load_transcript(G1).unwrap(), None);
            s.finish_game(G1, b"draw", b"TRANSCRIPT").unwrap();
            assert!(matches!(
                s.finish_game(G1, b"again", b""),
                Err(StoreError::GameFinished(G1))
            ));
        }
        let s = SqliteStore::open(dir.path()).unwrap();
        assert_eq!(
            s.load_game(G1).unwrap().result.as_deref(),
            Some(&b"draw"[..])
        );
        assert_eq!(
            s.load_transcript(G1).unwrap().as_deref(),
            Some(&b"TRANSCRIPT"[..])
        );
        assert!(s.list_unfinished().unwrap().is_empty());
    }

    #[tokio::test]
    async fn handle_runs_on_its_thread() {
        let dir = tempfile::tempdir().unwrap();
        let h = crate::store::StoreHandle::spawn(Box::new(SqliteStore::open(dir.path()).unwrap()))
            .unwrap();
        h.create_game(G1, b"m".to_vec()).await.unwrap();
        h.append_event(G1, 0, b"e".to_vec()).await.unwrap();
        assert!(matches!(
            h.append_event(G1, 0, b"e".to_vec()).await,
            Err(StoreError::DuplicateSeq { .. })
        ));
        assert_eq!(h.load_events(G1).await.unwrap().len(), 1);
    }
}
