//! The default [`GameStore`]: SQLite (bundled) in the data directory, WAL
//! journal, `synchronous=FULL` (DESIGN section 5). Appends queued together
//! are one transaction with one `fsync` ([`GameStore::append_batch`], group
//! commit), each in a savepoint so that one refused append is rolled back
//! alone; the log's last entry and the game's result and transcript are one
//! transaction ([`GameStore::append_and_finish`], G6).
//!
//! The append path reads nothing the game already knows (issue 16): the
//! store keeps, for each open game it has appended to, the next sequence
//! number in memory, filled from the database on the game's first append
//! (so it is right after a restart) and dropped when the game finishes or
//! expires or a transaction holding its append is rolled back. A sequence
//! number already stored is also refused by the table's primary key
//! `(game_id, seq)` and an unknown game by its foreign key; those
//! constraint errors map back to [`StoreError::DuplicateSeq`] and
//! [`StoreError::UnknownGame`]. Statements on the append path are prepared
//! once and cached (`prepare_cached`).
//!
//! Schema 2 adds to each game its creator key, creation time, whether it
//! started (both seats taken) and when it expired; a schema-1 database is
//! migrated in place on open (its games count as started, so none expires).
//! Schema 3 (issue 31) adds the address and network the game was created
//! from (its creator's share of the caps); games stored before count for
//! no address.
//!
//! A game is created with its first log entries (its genesis) in the
//! creating transaction ([`GameStore::create_game`]): a crash leaves a
//! game that can be joined, or none.

use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::shares::Party;
use crate::store::{
    known_ms, Append, CreateStep, FaultHook, GameCounts, GameStore, NewGameRecord, StoreError,
    StoredEvent, StoredGame,
};
use crate::wire::{GameId, PublicKey};

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "hexveil.sqlite3";

/// Schema version stored in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 3;

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

/// Schema 1 to 2: creator, creation time, started, expired (G6: caps per
/// key, expiry of games that never start). Games already stored count as
/// started: nothing is known of them, so none is expired.
const MIGRATE_1_TO_2: &str = "
ALTER TABLE games ADD COLUMN creator BLOB;
ALTER TABLE games ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN started INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN expired_ms INTEGER;
UPDATE games SET started = 1;
CREATE INDEX IF NOT EXISTS games_open_by_creator ON games(creator) WHERE result IS NULL AND expired_ms IS NULL;
PRAGMA user_version = 2;
";

/// Schema 2 to 3 (issue 31): the address and network a game was created
/// from, counted for the caps per address and per network.
const MIGRATE_2_TO_3: &str = "
ALTER TABLE games ADD COLUMN creator_address TEXT;
ALTER TABLE games ADD COLUMN creator_network TEXT;
PRAGMA user_version = 3;
";

/// SQLite-backed [`GameStore`].
pub struct SqliteStore {
    conn: Connection,
    /// The thread that checkpoints the WAL beside this connection (held
    /// to be stopped after `conn` closes).
    _checkpoints: Checkpoints,
    /// The next sequence number of each open game appended to since the
    /// store opened: what the append path would otherwise read before
    /// every insert. Only this connection writes the database, so it stays
    /// right; it holds committed state only (see [`SqliteStore::forget`]).
    next_seq: HashMap<GameId, u64>,
    /// Fault injection (tests only): called at each step of a creation.
    fault: Option<FaultHook>,
    /// When the writer next tries, if no job waits, to finish a
    /// checkpoint so that the WAL starts over (after [`WAL_RESTART_IDLE`]
    /// of growth, or [`WAL_RETRY`] after a try that could not finish);
    /// [`WAL_RESTART_FORCED`] - [`WAL_RESTART_IDLE`] later it tries
    /// between two jobs anyway. See `housekeep` below.
    wal_due: Instant,
}

/// How often the checkpoint thread copies the WAL's committed pages into
/// the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// How long the WAL grows before the writer, at a moment no job waits,
/// checkpoints what the checkpoint thread left so that the next commit
/// starts the WAL over (its blocks written again, not new ones allocated).
const WAL_RESTART_IDLE: Duration = Duration::from_secs(1);

/// How long the WAL grows at most under a load that leaves the writer no
/// idle moment: the writer then checkpoints between two jobs anyway.
const WAL_RESTART_FORCED: Duration = Duration::from_secs(4);

/// How long the writer waits to try again after a checkpoint that could
/// not finish (the checkpoint thread was in one, or another connection
/// reads an old snapshot: an operator's `sqlite3` shell, a backup), so
/// that a reader that stays never costs a checkpoint after every job.
const WAL_RETRY: Duration = Duration::from_millis(100);

/// The WAL's checkpoints, on a thread of their own (issue 30). SQLite's
/// default checkpoints from the commit that takes the WAL past 1,000 pages:
/// that commit also writes those pages into the database file and syncs
/// it, milliseconds during which every game's appends wait behind it (one
/// of the slowest 1 % of actions). Here the writing connection never
/// checkpoints (`wal_autocheckpoint=0`) and a second connection runs a
/// passive checkpoint every [`CHECKPOINT_EVERY`], which takes no lock a
/// commit waits for. The WAL starts over at the first commit after a
/// complete checkpoint, which one running beside a steady stream of
/// commits never is: the writer completes one itself when it is idle
/// ([`SqliteStore`]'s `housekeep`: only the frames committed since this
/// thread's last pass are left to copy). Durability is the WAL's
/// (`synchronous=FULL`) either way.
struct Checkpoints {
    /// Dropped to stop the thread.
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpoints {
    /// Opens the checkpoint connection to `path`, starts its thread and
    /// turns `writer`'s own checkpoints off.
    fn start(writer: &Connection, path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(backend("open the checkpoint connection"))?;
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("hexveil-checkpoint".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
                    if let Err(error) =
                        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        tracing::warn!(%error, "a WAL checkpoint failed; the next one retries");
                    }
                }
            })
            .map_err(|e| StoreError::Backend {
                operation: "start the checkpoint thread",
                detail: e.to_string(),
            })?;
        writer
            .execute_batch("PRAGMA wal_autocheckpoint=0;")
            .map_err(backend("turn the writer's checkpoints off"))?;
        Ok(Checkpoints {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpoints {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("conn", &self.conn)
            .finish_non_exhaustive()
    }
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
            0 | 1 => conn
                .execute_batch(&format!(
                    "BEGIN IMMEDIATE; {MIGRATE_1_TO_2} {MIGRATE_2_TO_3} COMMIT;"
                ))
                .map_err(backend("migrate the schema to version 3"))?,
            2 => conn
                .execute_batch(&format!("BEGIN IMMEDIATE; {MIGRATE_2_TO_3} COMMIT;"))
                .map_err(backend("migrate the schema to version 3"))?,
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
        let checkpoints = Checkpoints::start(&conn, &data_dir.join(DB_FILE))?;
        Ok(SqliteStore {
            conn,
            _checkpoints: checkpoints,
            next_seq: HashMap::new(),
            fault: None,
            wal_due: Instant::now() + WAL_RESTART_IDLE,
        })
    }

    /// Fault injection, for tests only: `hook` is called at each step of
    /// every game's creation ([`CreateStep`]; a test kills the process
    /// there).
    pub fn set_fault_hook(&mut self, hook: FaultHook) {
        self.fault = Some(hook);
    }

    fn step(&self, step: CreateStep) {
        if let Some(hook) = &self.fault {
            hook(step);
        }
    }

    /// Drops what the store knows of a game's log (it finished or expired,
    /// or a transaction holding its append was rolled back): its next
    /// append reads it again from the database.
    fn forget(&mut self, game_id: GameId) {
        self.next_seq.remove(&game_id);
    }

    fn seq_sql(seq: u64) -> Result<i64, StoreError> {
        i64::try_from(seq).map_err(|_| StoreError::SeqOutOfRange(seq))
    }
}

/// Whether the game exists and whether it is finished.
fn game_state(conn: &Connection, game_id: GameId) -> Result<Option<bool>, StoreError> {
    conn.prepare_cached("SELECT result IS NOT NULL FROM games WHERE game_id = ?1")
        .map_err(backend("prepare a game look-up"))?
        .query_row(params![&game_id.0[..]], |r| r.get::<_, bool>(0))
        .optional()
        .map_err(backend("look up the game"))
}

/// Fails unless the game exists, is not finished and has not expired.
fn check_open(conn: &Connection, game_id: GameId) -> Result<(), StoreError> {
    let state = conn
        .prepare_cached(
            "SELECT result IS NOT NULL, expired_ms IS NOT NULL FROM games WHERE game_id = ?1",
        )
        .map_err(backend("prepare a game look-up"))?
        .query_row(params![&game_id.0[..]], |r| {
            Ok((r.get::<_, bool>(0)?, r.get::<_, bool>(1)?))
        })
        .optional()
        .map_err(backend("look up the game"))?;
    match state {
        None => Err(StoreError::UnknownGame(game_id)),
        Some((true, _)) => Err(StoreError::GameFinished(game_id)),
        Some((_, true)) => Err(StoreError::Expired(game_id)),
        Some((false, false)) => Ok(()),
    }
}

/// The next sequence number of an open game: from `known` if there, else
/// read from the database (the game must exist, be unfinished and not
/// expired) and remembered.
fn next_seq_of(
    conn: &Connection,
    known: &mut HashMap<GameId, u64>,
    game_id: GameId,
) -> Result<u64, StoreError> {
    if let Some(next) = known.get(&game_id) {
        return Ok(*next);
    }
    check_open(conn, game_id)?;
    let next: i64 = conn
        .prepare_cached("SELECT coalesce(max(seq), -1) + 1 FROM events WHERE game_id = ?1")
        .map_err(backend("prepare the next seq"))?
        .query_row(params![&game_id.0[..]], |r| r.get(0))
        .map_err(backend("find the next seq"))?;
    let next = next as u64;
    known.insert(game_id, next);
    Ok(next)
}

/// Appends inside an open transaction after checking the sequence number
/// against `known` (no read when the game is known; see the module), and
/// advances it. On error nothing is inserted; the caller forgets the game
/// if the transaction is then rolled back.
fn insert_event(
    tx: &Connection,
    known: &mut HashMap<GameId, u64>,
    game_id: GameId,
    seq: u64,
    bytes: &[u8],
) -> Result<(), StoreError> {
    let seq_i = SqliteStore::seq_sql(seq)?;
    let next = next_seq_of(tx, known, game_id)?;
    if seq < next {
        return Err(StoreError::DuplicateSeq { game: game_id, seq });
    }
    if seq > next {
        return Err(StoreError::SeqGap {
            game: game_id,
            expected: next,
            got: seq,
        });
    }
    let inserted = tx
        .prepare_cached("INSERT INTO events (game_id, seq, bytes) VALUES (?1, ?2, ?3)")
        .map_err(backend("prepare the insert"))?
        .execute(params![&game_id.0[..], seq_i, bytes]);
    if let Err(e) = inserted {
        // What the constraints caught means `known` was wrong: read the
        // game again next time.
        known.remove(&game_id);
        return Err(match constraint_of(&e) {
            Some(rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY) => {
                StoreError::DuplicateSeq { game: game_id, seq }
            }
            Some(rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY) => StoreError::UnknownGame(game_id),
            _ => backend("insert the event")(e),
        });
    }
    known.insert(game_id, next + 1);
    Ok(())
}

/// The extended result code of a constraint violation, if `e` is one.
fn constraint_of(e: &rusqlite::Error) -> Option<std::ffi::c_int> {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            Some(f.extended_code)
        }
        _ => None,
    }
}

/// Unfinished, unexpired games counted for a new game of `creator` from
/// `party`.
fn count_open(
    conn: &Connection,
    creator: &PublicKey,
    party: Option<&Party>,
) -> Result<GameCounts, StoreError> {
    let (address, network) = match party {
        Some(p) => (Some(p.address.to_string()), Some(p.network.to_string())),
        None => (None, None),
    };
    conn.prepare_cached(
        "SELECT count(*) FILTER (WHERE creator = ?1),
                count(*) FILTER (WHERE creator_address = ?2),
                count(*) FILTER (WHERE creator_network = ?3),
                count(*) FILTER (WHERE started),
                count(*) FILTER (WHERE NOT started)
         FROM games WHERE result IS NULL AND expired_ms IS NULL",
    )
    .map_err(backend("prepare counting unfinished games"))?
    .query_row(params![&creator.0[..], address, network], |r| {
        let n = |i| r.get::<_, i64>(i).map(|v| v as u64);
        Ok(GameCounts {
            key: n(0)?,
            address: n(1)?,
            network: n(2)?,
            under_way: n(3)?,
            pending: n(4)?,
        })
    })
    .map_err(backend("count unfinished games"))
}

fn ms_sql(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Marks a game finished inside an open transaction.
fn store_result(
    tx: &Connection,
    game_id: GameId,
    result: &[u8],
    transcript: &[u8],
) -> Result<(), StoreError> {
    check_open(tx, game_id)?;
    tx.prepare_cached("UPDATE games SET result = ?2, transcript = ?3 WHERE game_id = ?1")
        .map_err(backend("prepare storing the result"))?
        .execute(params![&game_id.0[..], result, transcript])
        .map_err(backend("store the result"))?;
    Ok(())
}

fn game_id_of(bytes: Vec<u8>) -> Result<GameId, StoreError> {
    let id: [u8; 16] = bytes.try_into().map_err(|b: Vec<u8>| StoreError::Backend {
        operation: "read a game id",
        detail: format!("stored id has {} bytes, not 16", b.len()),
    })?;
    Ok(GameId(id))
}

impl GameStore for SqliteStore {
    /// Starts the WAL over (issue 30). Under a steady stream of commits the
    /// checkpoint thread's passive checkpoints never finish the WAL (new
    /// frames arrive while they copy), so it never started over: it grew
    /// by about 15 MB a second at 1,000 actions a second, and every
    /// commit's `fsync` allocated new blocks. Here the writer itself, when
    /// no job waits (or after [`WAL_RESTART_FORCED`] without such a
    /// moment), copies what is left, at most the frames committed since the
    /// thread's last pass; once the checkpoint is complete, its next commit
    /// writes the WAL from its start again.
    fn housekeep(&mut self, idle: bool) {
        let now = Instant::now();
        let forced = self.wal_due + (WAL_RESTART_FORCED - WAL_RESTART_IDLE);
        if now < self.wal_due || (!idle && now < forced) {
            return;
        }
        let done = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            });
        if let Err(error) = &done {
            tracing::warn!(%error, "a WAL checkpoint failed; the next one retries");
        }
        // Finished: not blocked, and every frame in the database file.
        // Otherwise (the checkpoint thread held the checkpoint, a frame is
        // left, an error) it is tried again a little later.
        let finished = matches!(done, Ok((0, frames, copied)) if frames == copied);
        self.wal_due = Instant::now()
            + if finished {
                WAL_RESTART_IDLE
            } else {
                WAL_RETRY
            };
    }

    fn create_game(
        &mut self,
        game_id: GameId,
        metadata: &[u8],
        new: &NewGameRecord,
        log: &[Vec<u8>],
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("begin create_game"))?;
        if let Some(hook) = &self.fault {
            hook(CreateStep::Begun);
        }
        if game_state(&tx, game_id)?.is_some() {
            return Err(StoreError::DuplicateGame(game_id));
        }
        new.check_caps(&count_open(&tx, &new.creator, new.party.as_ref())?)?;
        let created: i64 = tx
            .query_row("SELECT coalesce(max(created), 0) + 1 FROM games", [], |r| {
                r.get(0)
            })
            .map_err(backend("number the game"))?;
        let (address, network) = match &new.party {
            Some(p) => (Some(p.address.to_string()), Some(p.network.to_string())),
            None => (None, None),
        };
        tx.execute(
            "INSERT INTO games (game_id, created, metadata, creator, created_ms,
                                creator_address, creator_network)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                &game_id.0[..],
                created,
                metadata,
                &new.creator.0[..],
                ms_sql(new.created_ms),
                address,
                network
            ],
        )
        .map_err(backend("insert the game"))?;
        if let Some(hook) = &self.fault {
            hook(CreateStep::Row);
        }
        let mut known = HashMap::new();
        for (seq, bytes) in (0u64..).zip(log) {
            insert_event(&tx, &mut known, game_id, seq, bytes)?;
        }
        if let Some(hook) = &self.fault {
            hook(CreateStep::Log);
        }
        // With WAL and synchronous=FULL the commit returns after fsync.
        tx.commit().map_err(backend("commit create_game"))?;
        self.step(CreateStep::Committed);
        Ok(())
    }

    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("begin append_event"))?;
        insert_event(&tx, &mut self.next_seq, game_id, seq, bytes)?;
        // With WAL and synchronous=FULL the commit returns after fsync.
        let committed = tx.commit().map_err(backend("commit append_event"));
        if committed.is_err() {
            self.forget(game_id);
        }
        committed
    }

    fn append_batch(&mut self, appends: &[Append]) -> Vec<Result<(), StoreError>> {
        let mut tx = match self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
        {
            Ok(tx) => tx,
            Err(e) => {
                let err = backend("begin a group commit")(e);
                return appends.iter().map(|_| Err(err.clone())).collect();
            }
        };
        let mut results: Vec<Result<(), StoreError>> = Vec::with_capacity(appends.len());
        for a in appends {
            // A savepoint per append: a refused one is rolled back alone
            // and the batch goes on (G6: bad input changes nothing).
            let result = tx
                .savepoint()
                .map_err(backend("open a savepoint"))
                .and_then(|sp| {
                    insert_event(&sp, &mut self.next_seq, a.game_id, a.seq, &a.bytes)?;
                    sp.commit().map_err(backend("release a savepoint"))
                });
            if result.is_err() {
                // Its savepoint was rolled back, or never released.
                self.next_seq.remove(&a.game_id);
            }
            results.push(result);
            if tx.is_autocommit() {
                // SQLite rolled the whole transaction back (an I/O error,
                // a full disk): nothing of this batch is durable.
                let err = StoreError::Backend {
                    operation: "append in a group commit",
                    detail: "the transaction was rolled back by the database".into(),
                };
                drop(tx);
                self.next_seq.clear();
                return appends.iter().map(|_| Err(err.clone())).collect();
            }
        }
        // With WAL and synchronous=FULL the commit returns after fsync;
        // only then is any append of the batch acknowledged.
        if let Err(e) = tx.commit() {
            let err = backend("commit a group of appends")(e);
            self.next_seq.clear();
            return results
                .into_iter()
                .map(|r| r.and(Err(err.clone())))
                .collect();
        }
        results
    }

    fn count_unfinished(
        &self,
        creator: &PublicKey,
        party: Option<&Party>,
    ) -> Result<GameCounts, StoreError> {
        count_open(&self.conn, creator, party)
    }

    fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError> {
        self.conn
            .query_row(
                "SELECT metadata, result, started, expired_ms IS NOT NULL, created_ms
                 FROM games WHERE game_id = ?1",
                params![&game_id.0[..]],
                |r| {
                    Ok(StoredGame {
                        game_id,
                        metadata: r.get(0)?,
                        result: r.get(1)?,
                        started: r.get(2)?,
                        expired: r.get(3)?,
                        created_ms: known_ms(r.get(4)?),
                    })
                },
            )
            .optional()
            .map_err(backend("load the game"))?
            .ok_or(StoreError::UnknownGame(game_id))
    }

    fn load_events_from(
        &self,
        game_id: GameId,
        from_seq: u64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        if game_state(&self.conn, game_id)?.is_none() {
            return Err(StoreError::UnknownGame(game_id));
        }
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, bytes FROM events WHERE game_id = ?1 AND seq >= ?2 ORDER BY seq",
            )
            .map_err(backend("prepare load_events"))?;
        let from = i64::try_from(from_seq).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![&game_id.0[..], from], |r| {
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
            .prepare_cached("SELECT game_id FROM games WHERE result IS NULL AND expired_ms IS NULL ORDER BY created")
            .map_err(backend("prepare list_unfinished"))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, Vec<u8>>(0))
            .map_err(backend("list unfinished games"))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(game_id_of(row.map_err(backend("read a game id"))?)?);
        }
        Ok(out)
    }

    fn list_finished(&self, limit: usize) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT game_id FROM games WHERE result IS NOT NULL ORDER BY created DESC LIMIT ?1",
            )
            .map_err(backend("prepare list_finished"))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![limit], |r| r.get::<_, Vec<u8>>(0))
            .map_err(backend("list finished games"))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(game_id_of(row.map_err(backend("read a game id"))?)?);
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
        store_result(&tx, game_id, result, transcript)?;
        let committed = tx.commit().map_err(backend("commit finish_game"));
        self.forget(game_id);
        committed
    }

    fn append_and_finish(
        &mut self,
        game_id: GameId,
        seq: u64,
        bytes: &[u8],
        result: &[u8],
        transcript: &[u8],
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("begin append_and_finish"))?;
        let done = insert_event(&tx, &mut self.next_seq, game_id, seq, bytes)
            .and_then(|()| store_result(&tx, game_id, result, transcript))
            .and_then(|()| tx.commit().map_err(backend("commit append_and_finish")));
        // Finished, or rolled back: either way read it again if needed.
        self.forget(game_id);
        done
    }

    fn mark_started(&mut self, game_id: GameId) -> Result<(), StoreError> {
        let n = self
            .conn
            .execute(
                "UPDATE games SET started = 1 WHERE game_id = ?1",
                params![&game_id.0[..]],
            )
            .map_err(backend("mark the game started"))?;
        if n == 0 {
            return Err(StoreError::UnknownGame(game_id));
        }
        Ok(())
    }

    fn expire_unstarted(&mut self, created_before_ms: u64) -> Result<Vec<GameId>, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend("begin expire_unstarted"))?;
        let ids: Vec<Vec<u8>> = {
            let mut stmt = tx
                .prepare(
                    "SELECT game_id FROM games WHERE result IS NULL AND expired_ms IS NULL
                     AND started = 0 AND created_ms < ?1 ORDER BY created",
                )
                .map_err(backend("prepare expire_unstarted"))?;
            let rows = stmt
                .query_map(params![ms_sql(created_before_ms)], |r| r.get(0))
                .map_err(backend("find games that never started"))?;
            rows.collect::<Result<_, _>>()
                .map_err(backend("read a game id"))?
        };
        for id in &ids {
            // Nothing was played: its scenario and entries go.
            tx.execute("DELETE FROM events WHERE game_id = ?1", params![id])
                .map_err(backend("delete an expired game's entries"))?;
            tx.execute(
                "UPDATE games SET expired_ms = ?2, metadata = x'' WHERE game_id = ?1",
                params![id, ms_sql(created_before_ms)],
            )
            .map_err(backend("expire games that never started"))?;
        }
        tx.commit().map_err(backend("commit expire_unstarted"))?;
        let ids: Vec<GameId> = ids.into_iter().map(game_id_of).collect::<Result<_, _>>()?;
        for id in &ids {
            self.forget(*id);
        }
        Ok(ids)
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

    fn own() -> NewGameRecord {
        NewGameRecord::uncapped(PublicKey([7; 32]), 1)
    }

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

    // G6 with issue 30's checkpoints: the writer never checkpoints, the
    // checkpoint thread copies committed pages into the database file
    // while the store stays open, and what was appended is there after a
    // reopen.
    #[test]
    fn g6_the_wal_is_checkpointed_beside_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(DB_FILE);
        {
            let mut s = SqliteStore::open(dir.path()).unwrap();
            let auto: i64 = s
                .conn
                .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
                .unwrap();
            assert_eq!(auto, 0, "the writer does not checkpoint");
            let before = std::fs::metadata(&db).unwrap().len();
            s.create_game(G1, b"", &own(), &[]).unwrap();
            for seq in 0..200 {
                s.append_event(G1, seq, &[seq as u8; 2000]).unwrap();
            }
            // Not a time limit: the checkpoint runs every 100 ms;
            // a minute without one is a checkpoint thread that stopped.
            let mut waited = 0;
            while std::fs::metadata(&db).unwrap().len() <= before {
                assert!(waited < 600, "no checkpoint in a minute");
                std::thread::sleep(Duration::from_millis(100));
                waited += 1;
            }
        }
        let s = SqliteStore::open(dir.path()).unwrap();
        assert_eq!(s.load_events(G1).unwrap().len(), 200);
    }

    // Issue 30: under a steady stream of commits the WAL starts over. The
    // writer completes a checkpoint when it is due (idle once
    // WAL_RESTART_IDLE has passed, or between two jobs after
    // WAL_RESTART_FORCED), not before, and the next commit writes the WAL
    // from its start, so the file stays as long as the commits between two
    // restarts.
    #[test]
    fn the_wal_starts_over_under_steady_commits() {
        let dir = tempfile::tempdir().unwrap();
        let wal = dir.path().join(format!("{DB_FILE}-wal"));
        let mut s = SqliteStore::open(dir.path()).unwrap();
        s.create_game(G1, b"", &own(), &[]).unwrap();
        let ago = |d: Duration| Instant::now().checked_sub(d).unwrap();
        let between = WAL_RESTART_FORCED - WAL_RESTART_IDLE;
        for seq in 0..400u64 {
            s.append_event(G1, seq, &[seq as u8; 2000]).unwrap();
            // Not due: nothing is done.
            let later = Instant::now() + Duration::from_secs(60);
            s.wal_due = later;
            s.housekeep(true);
            assert_eq!(s.wal_due, later, "idle but not due");
            let due = ago(Duration::from_millis(50));
            s.wal_due = due;
            s.housekeep(false);
            assert_eq!(s.wal_due, due, "due when idle, but not idle and not forced");
            // Due every 50 commits, idle and forced in turn.
            if seq % 50 == 49 {
                let idle = (seq / 50) % 2 == 0;
                let due = if idle { Duration::ZERO } else { between };
                assert!(
                    finishes(&mut s, idle, due),
                    "the checkpoint at commit {seq}"
                );
            }
        }
        // 400 commits of 2,000-byte entries are 1.6 MB of frames or more
        // in a WAL that never starts over.
        let len = std::fs::metadata(&wal).unwrap().len();
        assert!(len < 1_000_000, "the WAL grew to {len} bytes");
        drop(s);
        let s = SqliteStore::open(dir.path()).unwrap();
        assert_eq!(
            s.load_events(G1).unwrap().len(),
            400,
            "G6: every commit kept"
        );
    }

    // A checkpoint that cannot finish (a reader holds an old snapshot) is
    // tried again after WAL_RETRY, not after every job, and once the
    // reader is gone the WAL starts over (issue 30).
    #[test]
    fn a_reader_that_stays_costs_one_checkpoint_a_retry() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(dir.path()).unwrap();
        s.create_game(G1, b"", &own(), &[]).unwrap();
        s.append_event(G1, 0, b"first").unwrap();
        // An operator's shell reading inside a transaction.
        let reader = Connection::open(dir.path().join(DB_FILE)).unwrap();
        reader.execute_batch("BEGIN").unwrap();
        let n: i64 = reader
            .query_row("SELECT count(*) FROM events", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        s.append_event(G1, 1, b"second").unwrap();
        let now = Instant::now();
        s.wal_due = now;
        s.housekeep(true);
        assert!(
            s.wal_due > now && s.wal_due < now + WAL_RESTART_IDLE,
            "not finished while the reader stays: tried again after WAL_RETRY"
        );
        reader.execute_batch("COMMIT").unwrap();
        assert!(finishes(&mut s, true, Duration::ZERO), "the reader is gone");
    }

    /// Whether the writer's checkpoint, due `due` ago, completes: the WAL's
    /// next restart is then [`WAL_RESTART_IDLE`] away. The checkpoint
    /// thread may hold the checkpoint at that moment (the writer then
    /// tries again after [`WAL_RETRY`]), so it is tried again, due as
    /// before, for up to a minute: not a time limit, a thread that never
    /// lets go.
    fn finishes(s: &mut SqliteStore, idle: bool, due: Duration) -> bool {
        for _ in 0..6000 {
            s.wal_due = Instant::now().checked_sub(due).unwrap();
            s.housekeep(idle);
            if s.wal_due >= Instant::now() + WAL_RESTART_IDLE - Duration::from_millis(50) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    // A schema-1 database is migrated on open; its games count as started
    // (never expired), keep their events and have no creation time.
    #[test]
    fn schema_1_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        {
            let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
            conn.execute_batch(SCHEMA).unwrap();
            conn.execute_batch(
                "PRAGMA user_version=1;
                 INSERT INTO games (game_id, created, metadata) VALUES (x'01010101010101010101010101010101', 1, x'');
                 INSERT INTO events VALUES (x'01010101010101010101010101010101', 0, x'65');",
            )
            .unwrap();
        }
        let mut s = SqliteStore::open(dir.path()).unwrap();
        assert!(s.load_game(G1).unwrap().started);
        // Issue 27 item 8: its creation time was never recorded: unknown,
        // not 1970 (`hexveil list` says so).
        assert_eq!(s.load_game(G1).unwrap().created_ms, None);
        assert!(s.expire_unstarted(u64::MAX >> 2).unwrap().is_empty());
        assert_eq!(s.load_events(G1).unwrap().len(), 1);
        s.append_event(G1, 1, b"more").unwrap();
    }

    // G6 (issue 16): the append path trusts its in-memory next seq, which
    // is read again after a reopen; a row it did not know of is still
    // refused by the primary key, as the same DuplicateSeq, and the game is
    // read again; finished and expired games are refused as before.
    #[test]
    fn g6_known_next_seq_survives_reopen_and_constraints_back_it() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut s = SqliteStore::open(dir.path()).unwrap();
            s.create_game(G1, b"", &own(), &[]).unwrap();
            s.append_event(G1, 0, b"e0").unwrap();
            s.append_event(G1, 1, b"e1").unwrap();
        }
        let mut s = SqliteStore::open(dir.path()).unwrap();
        assert!(matches!(
            s.append_event(G1, 1, b"again"),
            Err(StoreError::DuplicateSeq { seq: 1, .. })
        ));
        assert!(matches!(
            s.append_event(G1, 3, b"gap"),
            Err(StoreError::SeqGap {
                expected: 2,
                got: 3,
                ..
            })
        ));
        s.append_event(G1, 2, b"e2").unwrap();
        // A row written behind the store's back: the constraint catches it.
        s.conn
            .execute(
                "INSERT INTO events (game_id, seq, bytes) VALUES (?1, 3, x'00')",
                params![&G1.0[..]],
            )
            .unwrap();
        assert!(matches!(
            s.append_event(G1, 3, b"e3"),
            Err(StoreError::DuplicateSeq { seq: 3, .. })
        ));
        let batch = s.append_batch(&[
            Append {
                game_id: G1,
                seq: 4,
                bytes: b"e4".to_vec(),
            },
            Append {
                game_id: G2,
                seq: 0,
                bytes: Vec::new(),
            },
        ]);
        assert!(batch[0].is_ok(), "{batch:?}");
        assert!(matches!(batch[1], Err(StoreError::UnknownGame(G2))));
        assert_eq!(s.load_events(G1).unwrap().len(), 5);
        s.finish_game(G1, b"r", b"t").unwrap();
        assert!(matches!(
            s.append_event(G1, 5, b"late"),
            Err(StoreError::GameFinished(G1))
        ));
    }
}
