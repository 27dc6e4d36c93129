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
//! Several nodes (issue 13): a store opened with [`PgStore::connect_node`]
//! leases the games it serves. Each unfinished game has at most one lease
//! row (node, address, fencing token, expiry, by the database's clock). A
//! node takes a lease when it creates a game or rebuilds one from its log
//! ([`GameStore::acquire_lease`]): a new row, or a row whose lease expired,
//! taken over with the token plus one. Every appending write of the node
//! (an append, a finish) carries the token it holds and checks it in the
//! same statement (`EXISTS (... FOR SHARE)`): a node paused or cut off
//! whose lease was taken over meanwhile writes nothing
//! ([`StoreError::Fenced`]). The share lock orders a takeover after any
//! write in flight, so the new owner's read of the log, after its takeover,
//! holds every entry the old owner acknowledged. Leases of live games are
//! renewed ([`GameStore::renew_leases`]); the others are released, so a
//! node that drains frees its games at once.
//!
//! The connection is plain TCP without TLS: run PostgreSQL on the node's
//! machine or a private network (entries are sealed anyway; finished games'
//! transcripts are public).

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

use postgres::{Client, NoTls, Row, Statement};

use crate::store::{Append, GameStore, NewGameRecord, StoreError, StoredEvent, StoredGame};
use crate::wire::{GameId, PublicKey};

/// The schema's migrations, in order: version, name, SQL. Applied ones are
/// never edited; a change is a new migration at the end.
pub const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
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
    ),
    (
        2,
        "leases of games to nodes",
        "CREATE TABLE leases (
        game_id    bytea PRIMARY KEY REFERENCES games(game_id),
        node       text NOT NULL,
        address    text NOT NULL,
        token      bigint NOT NULL,
        expires_at timestamptz NOT NULL
    );
    CREATE INDEX leases_by_node ON leases(node);",
    ),
];

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

/// The append of a node: as [`INSERT_EVENT`], and only while the node
/// holds the game's lease with this token (share-locked until commit).
const INSERT_EVENT_FENCED: &str = "INSERT INTO events (game_id, seq, bytes)
    SELECT $1, $2, $3 FROM games
    WHERE game_id = $1 AND result IS NULL AND expired_ms IS NULL
      AND $2 = (SELECT coalesce(max(seq), -1) + 1 FROM events WHERE game_id = $1)
      AND EXISTS (SELECT 1 FROM leases
                  WHERE game_id = $1 AND node = $4 AND token = $5 FOR SHARE)
    ON CONFLICT DO NOTHING";

/// The finish of a node, fenced as [`INSERT_EVENT_FENCED`].
const STORE_RESULT_FENCED: &str = "UPDATE games SET result = $2, transcript = $3
    WHERE game_id = $1 AND result IS NULL AND expired_ms IS NULL
      AND EXISTS (SELECT 1 FROM leases
                  WHERE game_id = $1 AND node = $4 AND token = $5 FOR SHARE)";

/// A new lease, or the takeover of an expired one (token plus one); no
/// row while another node's lease runs or the game is unknown.
const ACQUIRE_LEASE: &str = "INSERT INTO leases (game_id, node, address, token, expires_at)
    SELECT $1, $2, $3, 1, clock_timestamp() + $4::float8 * interval '1 millisecond'
    FROM games WHERE game_id = $1
    ON CONFLICT (game_id) DO UPDATE
    SET node = excluded.node, address = excluded.address,
        token = leases.token + 1, expires_at = excluded.expires_at
    WHERE leases.expires_at < clock_timestamp() OR leases.node = excluded.node
    RETURNING token";

/// Renews the leases this node still holds with these tokens.
const RENEW_LEASES: &str = "UPDATE leases
    SET expires_at = clock_timestamp() + $2::float8 * interval '1 millisecond'
    FROM unnest($3::bytea[], $4::int8[]) AS held(game_id, token)
    WHERE leases.game_id = held.game_id AND leases.token = held.token AND leases.node = $1
    RETURNING leases.game_id";

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
    insert_fenced: Statement,
    state: Statement,
    result: Statement,
    result_fenced: Statement,
}

/// This node's part in a league of several nodes ([`PgStore::connect_node`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeConfig {
    /// The node's id, unique among the nodes sharing the database.
    pub id: String,
    /// How long a lease lasts without renewal: a node that dies loses its
    /// games to the others after this.
    pub lease: Duration,
}

/// A node's leases.
#[derive(Debug)]
struct Node {
    config: NodeConfig,
    /// The address its clients connect to ([`GameStore::set_node_address`]).
    address: String,
    /// The fencing token of each lease it holds.
    held: HashMap<GameId, i64>,
}

impl Node {
    fn lease_ms(&self) -> f64 {
        self.config.lease.as_secs_f64() * 1000.0
    }
}

/// The fence an appending write carries: this node and its token.
type Fence<'a> = Option<(&'a str, i64)>;

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
    node: Option<Node>,
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
            insert_fenced: client
                .prepare(INSERT_EVENT_FENCED)
                .map_err(backend("prepare the fenced append"))?,
            result_fenced: client
                .prepare(STORE_RESULT_FENCED)
                .map_err(backend("prepare the fenced finish"))?,
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
    fence: Fence<'_>,
    game_id: GameId,
    seq: u64,
    bytes: &[u8],
) -> Result<(), StoreError> {
    let seq_i = seq_sql(seq)?;
    let n = match fence {
        None => tx.execute(&p.insert, &[&&game_id.0[..], &seq_i, &bytes]),
        Some((node, token)) => tx.execute(
            &p.insert_fenced,
            &[&&game_id.0[..], &seq_i, &bytes, &node, &token],
        ),
    }
    .map_err(backend("insert the event"))?;
    if n == 1 {
        return Ok(());
    }
    Err(refusal(tx, p, fence, game_id, Some(seq))?)
}

/// Why a write to `game_id` (an append at `seq`, or a finish) changed
/// nothing.
fn refusal(
    tx: &mut postgres::Transaction<'_>,
    p: &Prepared,
    fence: Fence<'_>,
    game_id: GameId,
    seq: Option<u64>,
) -> Result<StoreError, StoreError> {
    if let Some((node, token)) = fence {
        let lease = tx
            .query_opt(
                "SELECT node, token FROM leases WHERE game_id = $1",
                &[&&game_id.0[..]],
            )
            .map_err(backend("look up the lease"))?;
        let ours =
            lease.is_some_and(|r| r.get::<_, &str>(0) == node && r.get::<_, i64>(1) == token);
        if !ours {
            return Ok(StoreError::Fenced(game_id));
        }
    }
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
    fence: Fence<'_>,
    game_id: GameId,
    result: &[u8],
    transcript: &[u8],
) -> Result<(), StoreError> {
    let n = match fence {
        None => tx.execute(&p.result, &[&&game_id.0[..], &result, &transcript]),
        Some((node, token)) => tx.execute(
            &p.result_fenced,
            &[&&game_id.0[..], &result, &transcript, &node, &token],
        ),
    }
    .map_err(backend("store the result"))?;
    if n == 1 {
        return Ok(());
    }
    Err(refusal(tx, p, fence, game_id, None)?)
}

impl PgStore {
    /// Connects to `url` (`postgres://user:password@host:port/db`, or the
    /// key=value form) and creates or migrates the schema.
    pub fn connect(url: &str) -> Result<PgStore, StoreError> {
        let conn = Conn::open(url)?;
        Ok(PgStore {
            url: url.to_owned(),
            conn: RefCell::new(Some(conn)),
            node: None,
        })
    }

    /// [`PgStore::connect`] for one node of several sharing the database:
    /// games are leased, and every append is fenced (see the module).
    pub fn connect_node(url: &str, config: NodeConfig) -> Result<PgStore, StoreError> {
        let mut store = Self::connect(url)?;
        store.node = Some(Node {
            address: String::new(),
            config,
            held: HashMap::new(),
        });
        Ok(store)
    }

    /// The fence of this node's writes to `game_id`: none for a store
    /// without leases; [`StoreError::Fenced`] for a node without the
    /// game's lease.
    fn fence(&self, game_id: GameId) -> Result<Option<(String, i64)>, StoreError> {
        match &self.node {
            None => Ok(None),
            Some(node) => match node.held.get(&game_id) {
                Some(token) => Ok(Some((node.config.id.clone(), *token))),
                None => Err(StoreError::Fenced(game_id)),
            },
        }
    }

    /// Forgets a lease the database no longer grants (or the game ended).
    fn drop_lease(&mut self, game_id: GameId) {
        if let Some(node) = &mut self.node {
            node.held.remove(&game_id);
        }
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
        let node = self.node.as_ref();
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
            new.check_caps(mine, all)?;
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
            if let Some(node) = node {
                tx.execute(
                    "INSERT INTO leases (game_id, node, address, token, expires_at)
                     VALUES ($1, $2, $3, 1,
                             clock_timestamp() + $4::float8 * interval '1 millisecond')",
                    &[
                        &&game_id.0[..],
                        &node.config.id,
                        &node.address,
                        &node.lease_ms(),
                    ],
                )
                .map_err(backend("lease the new game"))?;
            }
            Ok(())
        })?;
        if let Some(node) = &mut self.node {
            node.held.insert(game_id, 1);
        }
        Ok(())
    }

    fn count_unfinished(&self, creator: &PublicKey) -> Result<(u64, u64), StoreError> {
        self.with(|c| count_open(&mut c.client, creator))
    }

    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let fence = self.fence(game_id)?;
        let done = self.transaction("append an event", |tx, p| {
            insert_event(tx, p, as_fence(&fence), game_id, seq, bytes)
        });
        if matches!(done, Err(StoreError::Fenced(_))) {
            self.drop_lease(game_id);
        }
        done
    }

    fn append_batch(&mut self, appends: &[Append]) -> Vec<Result<(), StoreError>> {
        let fences: Vec<_> = appends.iter().map(|a| self.fence(a.game_id)).collect();
        let done = self.transaction("commit a group of appends", |tx, p| {
            let mut results = Vec::with_capacity(appends.len());
            for (a, fence) in appends.iter().zip(&fences) {
                let fence = match fence {
                    Ok(fence) => as_fence(fence),
                    Err(e) => {
                        results.push(Err(e.clone()));
                        continue;
                    }
                };
                match insert_event(tx, p, fence, a.game_id, a.seq, &a.bytes) {
                    // The database failed: the transaction is lost.
                    Err(e @ StoreError::Backend { .. }) => return Err(e),
                    // Refused: nothing inserted, the others go on (G6).
                    other => results.push(other),
                }
            }
            Ok(results)
        });
        match done {
            Ok(results) => {
                for (a, r) in appends.iter().zip(&results) {
                    if matches!(r, Err(StoreError::Fenced(_))) {
                        self.drop_lease(a.game_id);
                    }
                }
                results
            }
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

    fn load_events_from(
        &self,
        game_id: GameId,
        from_seq: u64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let from = i64::try_from(from_seq).unwrap_or(i64::MAX);
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
                    "SELECT seq, bytes FROM events WHERE game_id = $1 AND seq >= $2 ORDER BY seq",
                    &[&&game_id.0[..], &from],
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
        let fence = self.fence(game_id)?;
        let done = self.transaction("finish the game", |tx, p| {
            store_result(tx, p, as_fence(&fence), game_id, result, transcript)
        });
        // Finished (no more writes) or fenced: the lease is of no more use.
        if done.is_ok() || matches!(done, Err(StoreError::Fenced(_))) {
            self.drop_lease(game_id);
        }
        done
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
        let fence = self.fence(game_id)?;
        let done = self.transaction("append the last event and finish", |tx, p| {
            insert_event(tx, p, as_fence(&fence), game_id, seq, bytes)?;
            store_result(tx, p, as_fence(&fence), game_id, result, transcript)
        });
        if done.is_ok() || matches!(done, Err(StoreError::Fenced(_))) {
            self.drop_lease(game_id);
        }
        done
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

    fn lease_period(&self) -> Option<Duration> {
        self.node.as_ref().map(|n| n.config.lease)
    }

    fn set_node_address(&mut self, address: &str) {
        if let Some(node) = &mut self.node {
            node.address = address.to_owned();
        }
    }

    fn acquire_lease(&mut self, game_id: GameId) -> Result<(), StoreError> {
        let Some(node) = &self.node else {
            return Ok(());
        };
        let (id, address, lease_ms) = (
            node.config.id.clone(),
            node.address.clone(),
            node.lease_ms(),
        );
        let token = self.with(|c| {
            let row = c
                .client
                .query_opt(ACQUIRE_LEASE, &[&&game_id.0[..], &id, &address, &lease_ms])
                .map_err(backend("take the game's lease"))?;
            if let Some(row) = row {
                return Ok(row.get::<_, i64>(0));
            }
            let owner = c
                .client
                .query_opt(
                    "SELECT node, address FROM leases WHERE game_id = $1",
                    &[&&game_id.0[..]],
                )
                .map_err(backend("look up the lease"))?;
            Err(match owner {
                Some(r) => StoreError::NotOwner {
                    game: game_id,
                    node: r.get(0),
                    address: r.get(1),
                },
                None => StoreError::UnknownGame(game_id),
            })
        })?;
        if let Some(node) = &mut self.node {
            node.held.insert(game_id, token);
        }
        Ok(())
    }

    fn renew_leases(&mut self, live: &[GameId]) -> Result<Vec<GameId>, StoreError> {
        let Some(node) = &self.node else {
            return Ok(Vec::new());
        };
        let (mut games, mut tokens, mut idle) = (Vec::new(), Vec::new(), Vec::new());
        for (game, token) in &node.held {
            if live.contains(game) {
                games.push(game.0.to_vec());
                tokens.push(*token);
            } else {
                idle.push(game.0.to_vec());
            }
        }
        let (id, lease_ms) = (node.config.id.clone(), node.lease_ms());
        let renewed = self.with(|c| {
            // Leases of games with no task here are given up: another node
            // may take them at once (a drained node frees its games).
            if !idle.is_empty() {
                c.client
                    .execute(
                        "DELETE FROM leases WHERE node = $1 AND game_id = ANY($2)",
                        &[&id, &idle],
                    )
                    .map_err(backend("release leases"))?;
            }
            let rows = c
                .client
                .query(RENEW_LEASES, &[&id, &lease_ms, &games, &tokens])
                .map_err(backend("renew leases"))?;
            ids_of(rows)
        })?;
        let node = self.node.as_mut().expect("checked above");
        node.held.retain(|g, _| renewed.contains(g));
        Ok(games
            .into_iter()
            .filter_map(|g| game_id_of(g).ok())
            .filter(|g| !renewed.contains(g))
            .collect())
    }
}

/// The fence as the statements take it.
fn as_fence(fence: &Option<(String, i64)>) -> Fence<'_> {
    fence.as_ref().map(|(node, token)| (node.as_str(), *token))
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

    fn node(url: &str, id: &str, lease_ms: u64) -> PgStore {
        let mut s = PgStore::connect_node(
            url,
            NodeConfig {
                id: id.into(),
                lease: Duration::from_millis(lease_ms),
            },
        )
        .unwrap();
        s.set_node_address(&format!("{id}.example:4433"));
        s
    }

    const G: GameId = GameId([9; 16]);

    fn record() -> NewGameRecord {
        NewGameRecord::uncapped(PublicKey([7; 32]), 1)
    }

    // Issue 13 (G6, fencing): while node A's lease runs, node B is told
    // the owner; once it expired (A paused: no renewal), B takes the game
    // over with a new token and reads every entry A acknowledged; A, back,
    // can append nothing (one append, a batch, the finish), learns at its
    // renewal that the lease is lost, and B's log goes on from A's last
    // entry with nothing lost or duplicated.
    #[test]
    fn fencing_a_paused_node_cannot_append_after_a_takeover() {
        let Some(url) = database("postgres::fencing_a_paused_node_cannot_append_after_a_takeover")
        else {
            return;
        };
        let mut a = node(&url, "a", 400);
        let mut b = node(&url, "b", 400);
        a.create_game(G, b"m", &record()).unwrap();
        a.append_event(G, 0, b"a0").unwrap();
        a.append_event(G, 1, b"a1").unwrap();
        match b.acquire_lease(G) {
            Err(StoreError::NotOwner { node, address, .. }) => {
                assert_eq!((node.as_str(), address.as_str()), ("a", "a.example:4433"));
            }
            other => panic!("B took a running lease: {other:?}"),
        }
        assert!(matches!(
            b.append_event(G, 2, b"b2"),
            Err(StoreError::Fenced(_))
        ));
        std::thread::sleep(Duration::from_millis(600));
        b.acquire_lease(G).unwrap();
        let log: Vec<Vec<u8>> = b
            .load_events(G)
            .unwrap()
            .into_iter()
            .map(|e| e.bytes)
            .collect();
        assert_eq!(log, vec![b"a0".to_vec(), b"a1".to_vec()]);
        assert!(matches!(
            a.append_event(G, 2, b"a2"),
            Err(StoreError::Fenced(_))
        ));
        // Its lease forgotten, A refuses without asking the database; a
        // fresh token-less write is refused all the same.
        a.node.as_mut().unwrap().held.insert(G, 1);
        let batch = a.append_batch(&[Append {
            game_id: G,
            seq: 2,
            bytes: b"a2".to_vec(),
        }]);
        assert!(matches!(batch[0], Err(StoreError::Fenced(_))), "{batch:?}");
        a.node.as_mut().unwrap().held.insert(G, 1);
        assert!(matches!(
            a.append_and_finish(G, 2, b"a2", b"r", b"t"),
            Err(StoreError::Fenced(_))
        ));
        a.node.as_mut().unwrap().held.insert(G, 1);
        assert!(matches!(
            a.finish_game(G, b"r", b"t"),
            Err(StoreError::Fenced(_))
        ));
        a.node.as_mut().unwrap().held.insert(G, 1);
        assert_eq!(a.renew_leases(&[G]).unwrap(), vec![G]);
        b.append_event(G, 2, b"b2").unwrap();
        b.append_and_finish(G, 3, b"b3", b"r", b"t").unwrap();
        let log: Vec<Vec<u8>> = a
            .load_events(G)
            .unwrap()
            .into_iter()
            .map(|e| e.bytes)
            .collect();
        assert_eq!(
            log,
            vec![
                b"a0".to_vec(),
                b"a1".to_vec(),
                b"b2".to_vec(),
                b"b3".to_vec()
            ]
        );
        assert_eq!(a.load_transcript(G).unwrap().as_deref(), Some(&b"t"[..]));
    }

    // Issue 13: renewal keeps a live game's lease past its period; a game
    // with no task on its node is released at the next renewal, and another
    // node takes it at once (how a node is drained).
    #[test]
    fn renewal_keeps_live_leases_and_releases_the_others() {
        let Some(url) = database("postgres::renewal_keeps_live_leases_and_releases_the_others")
        else {
            return;
        };
        let mut a = node(&url, "a", 300);
        let mut b = node(&url, "b", 300);
        let g2 = GameId([10; 16]);
        a.create_game(G, b"", &record()).unwrap();
        a.create_game(g2, b"", &record()).unwrap();
        for _ in 0..6 {
            std::thread::sleep(Duration::from_millis(100));
            assert!(a.renew_leases(&[G, g2]).unwrap().is_empty());
        }
        assert!(matches!(
            b.acquire_lease(G),
            Err(StoreError::NotOwner { .. })
        ));
        assert!(a.renew_leases(&[G]).unwrap().is_empty());
        b.acquire_lease(g2).unwrap();
        b.append_event(g2, 0, b"b0").unwrap();
        assert!(matches!(
            b.acquire_lease(G),
            Err(StoreError::NotOwner { .. })
        ));
        a.append_event(G, 0, b"a0").unwrap();
        assert!(matches!(
            a.append_event(g2, 0, b"a0"),
            Err(StoreError::Fenced(_))
        ));
    }

    // Issue 13 (G6): an append in flight when the lease expires holds the
    // lease row share-locked, so the takeover waits for its commit, and the
    // new owner's read of the log (after the takeover) has the entry the
    // old owner is about to acknowledge: nothing acknowledged is lost.
    #[test]
    fn fencing_a_takeover_waits_for_the_append_in_flight() {
        let Some(url) = database("postgres::fencing_a_takeover_waits_for_the_append_in_flight")
        else {
            return;
        };
        let mut a = node(&url, "a", 200);
        a.create_game(G, b"", &record()).unwrap();
        let mut raw = Client::connect(&url, NoTls).unwrap();
        let mut tx = raw.transaction().unwrap();
        let n = tx
            .execute(
                INSERT_EVENT_FENCED,
                &[&&G.0[..], &0i64, &&b"a0"[..], &"a", &1i64],
            )
            .unwrap();
        assert_eq!(n, 1);
        std::thread::sleep(Duration::from_millis(300));
        let taker = std::thread::spawn({
            let url = url.clone();
            move || {
                let mut b = node(&url, "b", 200);
                b.acquire_lease(G).unwrap();
                b.load_events(G).unwrap()
            }
        });
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            !taker.is_finished(),
            "the takeover did not wait for the append in flight"
        );
        tx.commit().unwrap();
        let log = taker.join().unwrap();
        assert_eq!(
            log.len(),
            1,
            "the acknowledged entry is in the new owner's log"
        );
        assert_eq!(log[0].bytes, b"a0");
    }
}
