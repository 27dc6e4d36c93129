//! A [`GameStore`] in PostgreSQL (issue 13): the one shared store of a
//! league that runs several server nodes (`--store postgres://...`);
//! SQLite ([`crate::sqlite`]) stays the default for one machine.
//!
//! Same promises as SQLite. Every write is a transaction that returns after
//! PostgreSQL's commit (with the server's default `synchronous_commit = on`,
//! after its WAL is flushed), so nothing is acknowledged before it is
//! durable (G6). Appends queued together are one transaction
//! ([`GameStore::append_batch`], group commit). Entries arrive sealed
//! ([`crate::at_rest`]): this store, like whoever can read the database, its
//! backups and replicas, sees no hidden fact before the game ends.
//!
//! Each append is one statement, `INSERT ... SELECT ... WHERE` the game is
//! open and the seq is the next one, `ON CONFLICT DO NOTHING`: a refused
//! append inserts nothing and raises no error, so it fails alone without a
//! savepoint, and the transaction holding the others goes on; only when no
//! row went in does a second query say why (unknown game, finished,
//! expired, duplicate, gap). No next seq is cached: another node may have
//! written the game since (after a takeover), and the primary key
//! `(game_id, seq)` settles two writers racing for one seq.
//!
//! The schema is created and migrated by the server itself: numbered
//! migrations ([`MIGRATIONS`]) recorded in `hexveil_migrations`, applied in
//! one transaction under an advisory lock, so nodes starting together
//! migrate once. A database migrated by a newer build is refused.
//!
//! The connection is plain TCP without TLS: run PostgreSQL on the node's
//! machine or a private network (entries are sealed anyway; finished games'
//! transcripts are public).

use std::cell::RefCell;

use postgres::{Client, NoTls, Row, Statement};

use crate::store::{Append, GameStore, NewGameRecord, StoreError, StoredEvent, StoredGame};
use crate::wire::{GameId, PublicKey};

/// The schema's migrations, in order: version, name, SQL. Applied ones are
/// never edited; a change is a new migration at the end.
pub const MIGRATIONS: &[(i32, &str, &str)] = &[(
    1,
    "games and their logs",
    "CREATE TABLE games (
        game_id    bytea PRIMARY KEY CHECK (length(game_id) = 16),
        created    bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        metadata   bytea NOT NULL,
        result     bytea,
        transcript bytea,
        creator    bytea,
        created_ms bigint NOT NULL DEFAULT 0,
        started    boolean NOT NULL DEFAULT false,
        expired_ms bigint
    );
    CREATE TABLE events (
        game_id bytea NOT NULL REFERENCES games(game_id),
        seq     bigint NOT NULL CHECK (seq >= 0),
        bytes   bytea NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE INDEX games_open_by_creator ON games(creator)
        WHERE result IS NULL AND expired_ms IS NULL;",
)];

/// Advisory lock keys (arbitrary, fixed): schema migration, game creation
/// (the caps' count and the insert must not interleave across nodes).
const MIGRATION_LOCK: i64 = 0x6865_7876_0001;
const CREATE_LOCK: i64 = 0x6865_7876_0002;

/// The append: inserts only if the game is open and `seq` is its next one.
const INSERT_EVENT: &str = "INSERT INTO events (game_id, seq, bytes)
    SELECT $1, $2, $3 FROM games
    WHERE game_id = $1 AND result IS NULL AND expired_ms IS NULL
      AND $2 = (SELECT coalesce(max(seq), -1) + 1 FROM events WHERE game_id = $1)
    ON CONFLICT DO NOTHING";

/// Why an append or a finish changed nothing.
const GAME_STATE: &str = "SELECT result IS NOT NULL, expired_ms IS NOT NULL,
    (SELECT coalesce(max(seq), -1) + 1 FROM events WHERE game_id = $1)
    FROM games WHERE game_id = $1";

/// Marks an open game finished.
const STORE_RESULT: &str = "UPDATE games SET result = $2, transcript = $3
    WHERE game_id = $1 AND result IS NULL AND expired_ms IS NULL";

/// Statements prepared once per connection.
struct Prepared {
    insert: Statement,
    state: Statement,
    result: Statement,
}

/// One open connection and its prepared statements.
struct Conn {
    client: Client,
    prepared: Prepared,
}

/// PostgreSQL-backed [`GameStore`]. One connection, on the store thread;
/// it reconnects when the connection was lost.
pub struct PgStore {
    url: String,
    conn: RefCell<Option<Conn>>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the URL: it may hold a password.
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

fn backend(operation: &'static str) -> impl FnOnce(postgres::Error) -> StoreError {
    move |e| StoreError::Backend {
        operation,
        detail: match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        },
    }
}

fn seq_sql(seq: u64) -> Result<i64, StoreError> {
    i64::try_from(seq).map_err(|_| StoreError::SeqOutOfRange(seq))
}

fn ms_sql(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

fn game_id_of(bytes: Vec<u8>) -> Result<GameId, StoreError> {
    let id: [u8; 16] = bytes.try_into().map_err(|b: Vec<u8>| StoreError::Backend {
        operation: "read a game id",
        detail: format!("stored id has {} bytes, not 16", b.len()),
    })?;
    Ok(GameId(id))
}

fn ids_of(rows: Vec<Row>) -> Result<Vec<GameId>, StoreError> {
    rows.into_iter().map(|r| game_id_of(r.get(0))).collect()
}

/// Applies the migrations this database lacks, in one transaction under
/// an advisory lock.
fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let mut tx = client
        .transaction()
        .map_err(backend("begin the schema migration"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(backend("lock the schema migration"))?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS hexveil_migrations (
            version    integer PRIMARY KEY,
            name       text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )",
    )
    .map_err(backend("create the migrations table"))?;
    let have: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM hexveil_migrations",
            &[],
        )
        .map_err(backend("read the schema version"))?
        .get(0);
    let known = MIGRATIONS.last().map_or(0, |m| m.0);
    if have > known {
        return Err(StoreError::Backend {
            operation: "check the schema version",
            detail: format!("database has schema {have}, this build knows {known}"),
        });
    }
    for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > have) {
        tx.batch_execute(sql)
            .map_err(backend("apply a schema migration"))?;
        tx.execute(
            "INSERT INTO hexveil_migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .map_err(backend("record a schema migration"))?;
    }
    tx.commit().map_err(backend("commit the schema migration"))
}

impl Conn {
    fn open(url: &str) -> Result<Conn, StoreError> {
        let mut client = Client::connect(url, NoTls).map_err(backend("connect to PostgreSQL"))?;
        migrate(&mut client)?;
        let prepared = Prepared {
            insert: client
                .prepare(INSERT_EVENT)
                .map_err(backend("prepare the append"))?,
            state: client
                .prepare(GAME_STATE)
                .map_err(backend("prepare a game look-up"))?,
            result: client
                .prepare(STORE_RESULT)
                .map_err(backend("prepare storing the result"))?,
        };
        Ok(Conn { client, prepared })
    }
}

/// Appends inside an open transaction (see the module); on refusal
/// nothing was inserted and the error says why.
fn insert_event(
    tx: &mut postgres::Transaction<'_>,
    p: &Prepared,
    game_id: GameId,
    seq: u64,
    bytes: &[u8],
) -> Result<(), StoreError> {
    let seq_i = seq_sql(seq)?;
    let n = tx
        .execute(&p.insert, &[&&game_id.0[..], &seq_i, &bytes])
        .map_err(backend("insert the event"))?;
    if n == 1 {
        return Ok(());
    }
    Err(refusal(tx, p, game_id, Some(seq))?)
}

/// Why a write to `game_id` (an append at `seq`, or a finish) changed
/// nothing.
fn refusal(
    tx: &mut postgres::Transaction<'_>,
    p: &Prepared,
    game_id: GameId,
    seq: Option<u64>,
) -> Result<StoreError, StoreError> {
    let row = tx
        .query_opt(&p.state, &[&&game_id.0[..]])
        .map_err(backend("look up the game"))?;
    let Some(row) = row else {
        return Ok(StoreError::UnknownGame(game_id));
    };
    let (finished, expired, next): (bool, bool, i64) = (row.get(0), row.get(1), row.get(2));
    if finished {
        return Ok(StoreError::GameFinished(game_id));
    }
    if expired {
        return Ok(StoreError::Expired(game_id));
    }
    let next = next as u64;
    Ok(match seq {
        Some(seq) if seq > next => StoreError::SeqGap {
            game: game_id,
            expected: next,
            got: seq,
        },
        // Below the next, or the next one taken by another writer between
        // the insert and this look-up.
        Some(seq) => StoreError::DuplicateSeq { game: game_id, seq },
        None => StoreError::Backend {
            operation: "store the result",
            detail: "the game is open but its row did not change".into(),
        },
    })
}

/// Marks a game finished inside an open transaction.
fn store_result(
    tx: &mut postgres::Transaction<'_>,
    p: &Prepared,
    game_id: GameId,
    result: &[u8],
    transcript: &[u8],
) -> Result<(), StoreError> {
    let n = tx
        .execute(&p.result, &[&&game_id.0[..], &result, &transcript])
        .map_err(backend("store the result"))?;
    if n == 1 {
        return Ok(());
    }
    Err(refusal(tx, p, game_id, None)?)
}

impl PgStore {
    /// Connects to `url` (`postgres://user:password@host:port/db`, or the
    /// key=value form) and creates or migrates the schema.
    pub fn connect(url: &str) -> Result<PgStore, StoreError> {
        let conn = Conn::open(url)?;
        Ok(PgStore {
            url: url.to_owned(),
            conn: RefCell::new(Some(conn)),
        })
    }

    /// Runs `f` on the connection, opening it again first if it was lost
    /// (the database restarted, the network dropped it).
    fn with<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut slot = self.conn.borrow_mut();
        if slot.as_ref().is_none_or(|c| c.client.is_closed()) {
            *slot = None;
            *slot = Some(Conn::open(&self.url)?);
        }
        let conn = slot.as_mut().expect("opened above");
        f(conn)
    }

    /// Runs `f` in a transaction and commits it; an error rolls back.
    fn transaction<T>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&mut postgres::Transaction<'_>, &Prepared) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with(|c| {
            let mut tx = c.client.transaction().map_err(backend(operation))?;
            let out = f(&mut tx, &c.prepared)?;
            tx.commit().map_err(backend(operation))?;
            Ok(out)
        })
    }
}

impl GameStore for PgStore {
    fn create_game(
        &mut self,
        game_id: GameId,
        metadata: &[u8],
        new: &NewGameRecord,
    ) -> Result<(), StoreError> {
        self.transaction("create a game", |tx, _| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&CREATE_LOCK])
                .map_err(backend("lock game creation"))?;
            let exists = tx
                .query_opt("SELECT 1 FROM games WHERE game_id = $1", &[&&game_id.0[..]])
                .map_err(backend("look up the game"))?;
            if exists.is_some() {
                return Err(StoreError::DuplicateGame(game_id));
            }
            let (mine, all) = count_open(tx, &new.creator)?;
            if mine >= new.caps.per_key {
                return Err(StoreError::TooManyGames {
                    holder: format!("key {}", new.creator),
                    count: mine,
                    limit: new.caps.per_key,
                    setting: "max_unfinished_games_per_key",
                });
            }
            if all >= new.caps.total {
                return Err(StoreError::TooManyGames {
                    holder: "this server".into(),
                    count: all,
                    limit: new.caps.total,
                    setting: "max_unfinished_games",
                });
            }
            tx.execute(
                "INSERT INTO games (game_id, metadata, creator, created_ms)
                 VALUES ($1, $2, $3, $4)",
                &[
                    &&game_id.0[..],
                    &metadata,
                    &&new.creator.0[..],
                    &ms_sql(new.created_ms),
                ],
            )
            .map_err(backend("insert the game"))?;
            Ok(())
        })
    }

    fn count_unfinished(&self, creator: &PublicKey) -> Result<(u64, u64), StoreError> {
        self.with(|c| count_open(&mut c.client, creator))
    }

    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.transaction("append an event", |tx, p| {
            insert_event(tx, p, game_id, seq, bytes)
        })
    }

    fn append_batch(&mut self, appends: &[Append]) -> Vec<Result<(), StoreError>> {
        let done = self.transaction("commit a group of appends", |tx, p| {
            let mut results = Vec::with_capacity(appends.len());
            for a in appends {
                match insert_event(tx, p, a.game_id, a.seq, &a.bytes) {
                    // The database failed: the transaction is lost.
                    Err(e @ StoreError::Backend { .. }) => return Err(e),
                    // Refused: nothing inserted, the others go on (G6).
                    other => results.push(other),
                }
            }
            Ok(results)
        });
        match done {
            Ok(results) => results,
            // Nothing of the batch is durable: none is acknowledged.
            Err(e) => appends.iter().map(|_| Err(e.clone())).collect(),
        }
    }

    fn load_game(&self, game_id: GameId) -> Result<StoredGame, StoreError> {
        self.with(|c| {
            c.client
                .query_opt(
                    "SELECT metadata, result, started, expired_ms IS NOT NULL
                     FROM games WHERE game_id = $1",
                    &[&&game_id.0[..]],
                )
                .map_err(backend("load the game"))?
                .map(|r| StoredGame {
                    game_id,
                    metadata: r.get(0),
                    result: r.get(1),
                    started: r.get(2),
                    expired: r.get(3),
                })
                .ok_or(StoreError::UnknownGame(game_id))
        })
    }

    fn load_events(&self, game_id: GameId) -> Result<Vec<StoredEvent>, StoreError> {
        self.with(|c| {
            // One snapshot for the existence check and the rows.
            let mut tx = c
                .client
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .map_err(backend("begin load_events"))?;
            if tx
                .query_opt("SELECT 1 FROM games WHERE game_id = $1", &[&&game_id.0[..]])
                .map_err(backend("look up the game"))?
                .is_none()
            {
                return Err(StoreError::UnknownGame(game_id));
            }
            let rows = tx
                .query(
                    "SELECT seq, bytes FROM events WHERE game_id = $1 ORDER BY seq",
                    &[&&game_id.0[..]],
                )
                .map_err(backend("load the events"))?;
            tx.commit().map_err(backend("end load_events"))?;
            Ok(rows
                .into_iter()
                .map(|r| StoredEvent {
                    seq: r.get::<_, i64>(0) as u64,
                    bytes: r.get(1),
                })
                .collect())
        })
    }

    fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError> {
        self.with(|c| {
            let rows = c
                .client
                .query(
                    "SELECT game_id FROM games WHERE result IS NULL AND expired_ms IS NULL
                     ORDER BY created",
                    &[],
                )
                .map_err(backend("list unfinished games"))?;
            ids_of(rows)
        })
    }

    fn list_finished(&self, limit: usize) -> Result<Vec<GameId>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            let rows = c
                .client
                .query(
                    "SELECT game_id FROM games WHERE result IS NOT NULL
                     ORDER BY created DESC LIMIT $1",
                    &[&limit],
                )
                .map_err(backend("list finished games"))?;
            ids_of(rows)
        })
    }

    fn finish_game(
        &mut self,
        game_id: GameId,
        result: &[u8],
        transcript: &[u8],
    ) -> Result<(), StoreError> {
        self.transaction("finish the game", |tx, p| {
            store_result(tx, p, game_id, result, transcript)
        })
    }

    fn load_transcript(&self, game_id: GameId) -> Result<Option<Vec<u8>>, StoreError> {
        self.with(|c| {
            c.client
                .query_opt(
                    "SELECT transcript FROM games WHERE game_id = $1",
                    &[&&game_id.0[..]],
                )
                .map_err(backend("load the transcript"))?
                .map(|r| r.get::<_, Option<Vec<u8>>>(0))
                .ok_or(StoreError::UnknownGame(game_id))
        })
    }

    fn append_and_finish(
        &mut self,
        game_id: GameId,
        seq: u64,
        bytes: &[u8],
        result: &[u8],
        transcript: &[u8],
    ) -> Result<(), StoreError> {
        self.transaction("append the last event and finish", |tx, p| {
            insert_event(tx, p, game_id, seq, bytes)?;
            store_result(tx, p, game_id, result, transcript)
        })
    }

    fn mark_started(&mut self, game_id: GameId) -> Result<(), StoreError> {
        self.with(|c| {
            let n = c
                .client
                .execute(
                    "UPDATE games SET started = true WHERE game_id = $1",
                    &[&&game_id.0[..]],
                )
                .map_err(backend("mark the game started"))?;
            if n == 0 {
                return Err(StoreError::UnknownGame(game_id));
            }
            Ok(())
        })
    }

    fn expire_unstarted(&mut self, created_before_ms: u64) -> Result<Vec<GameId>, StoreError> {
        self.with(|c| {
            let rows = c
                .client
                .query(
                    "WITH expired AS (
                        UPDATE games SET expired_ms = $1
                        WHERE result IS NULL AND expired_ms IS NULL AND NOT started
                          AND created_ms < $1
                        RETURNING game_id, created)
                     SELECT game_id FROM expired ORDER BY created",
                    &[&ms_sql(created_before_ms)],
                )
                .map_err(backend("expire games that never started"))?;
            ids_of(rows)
        })
    }
}

/// Unfinished, unexpired games of `creator` and in all.
fn count_open(
    client: &mut impl postgres::GenericClient,
    creator: &PublicKey,
) -> Result<(u64, u64), StoreError> {
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE creator = $1), count(*) FROM games
             WHERE result IS NULL AND expired_ms IS NULL",
            &[&&creator.0[..]],
        )
        .map_err(backend("count unfinished games"))?;
    Ok((row.get::<_, i64>(0) as u64, row.get::<_, i64>(1) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh database on the test cluster, or `None` when skipped.
    fn database(test: &str) -> Option<String> {
        hexveil_fixtures::postgres::fresh_database(test)
    }

    // Issue 13: the server creates and migrates the schema itself; every
    // migration is recorded once, a second node (or a restart) applies
    // none again, and a database migrated by a newer build is refused.
    #[test]
    fn schema_is_migrated_once_and_a_newer_one_is_refused() {
        let Some(url) = database("postgres::schema_is_migrated_once_and_a_newer_one_is_refused")
        else {
            return;
        };
        let first = PgStore::connect(&url).unwrap();
        let second = PgStore::connect(&url).unwrap();
        drop((first, second));
        let mut client = Client::connect(&url, NoTls).unwrap();
        let versions: Vec<i32> = client
            .query(
                "SELECT version FROM hexveil_migrations ORDER BY version",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let known: Vec<i32> = MIGRATIONS.iter().map(|m| m.0).collect();
        assert_eq!(versions, known);
        client
            .execute(
                "INSERT INTO hexveil_migrations (version, name) VALUES (9999, 'from the future')",
                &[],
            )
            .unwrap();
        let err = PgStore::connect(&url).unwrap_err();
        assert!(err.to_string().contains("schema 9999"), "{err}");
    }
}
