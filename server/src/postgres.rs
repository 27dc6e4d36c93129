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
//! Storage faults are not game faults (issue 25). A lost, reset or
//! timed-out connection (a database restart, `pg_terminate_backend`, a
//! network cut: [`transient`]) is opened again and the operation tried
//! again, with a growing pause, for up to [`PgStore::set_retry_for`]
//! ([`DEFAULT_RETRY_FOR`]); only then does it fail, as
//! [`StoreError::Unavailable`]. Trying again is safe: reads change nothing,
//! and a write whose commit may have landed before its answer was lost is
//! found, on the next try, where it should be (an append at its seq with
//! its bytes, a finish with its result and transcript, a new game with its
//! creator and scenario) and then counts as done: nothing is written twice,
//! nothing acknowledged is lost (G6). Every connection has timeouts
//! ([`connection_config`]): to connect, per statement, and on the TCP
//! link (keep-alives, unacknowledged data), so that a black-holed link is
//! noticed within seconds and reported, never a silent stall.
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
//! The league's nodes (issue 25): each node registers in `nodes` when it
//! starts ([`GameStore::register_node`]) and renews its row with its
//! leases; an id whose row another live node keeps renewing is refused,
//! and a node's secrets must be the league's (`league`: the transcript key
//! and a digest of both secrets, recorded by the first node). Clients ask
//! any node where a game is ([`GameStore::locate`]) and which nodes are
//! live ([`GameStore::live_nodes`]). A drained node releases its leases and
//! its row ([`GameStore::leave`]).
//!
//! The connection is plain TCP without TLS: run PostgreSQL on the node's
//! machine or a private network (entries are sealed anyway; finished games'
//! transcripts are public).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres::{Client, Config, NoTls, Row, Statement};
use tracing::{info, warn};

use crate::shares::Party;
use crate::store::{
    known_ms, Append, CreateStep, FaultHook, GameCounts, GameLocation, GameStore, LiveNode,
    NewGameRecord, NodeRegistration, StoreError, StoredEvent, StoredGame,
};
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
    (
        3,
        "the league's nodes and secrets",
        "CREATE TABLE nodes (
        node       text PRIMARY KEY,
        address    text NOT NULL,
        dir        bytea NOT NULL,
        instance   bytea NOT NULL,
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL
    );
    CREATE TABLE league (
        id             integer PRIMARY KEY CHECK (id = 1),
        secrets_check  bytea NOT NULL,
        transcript_key bytea NOT NULL,
        recorded_by    text NOT NULL,
        recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp()
    );",
    ),
    (
        4,
        "the address and network each game was created from",
        "ALTER TABLE games ADD COLUMN creator_address text;
    ALTER TABLE games ADD COLUMN creator_network text;",
    ),
];

/// Advisory lock keys (arbitrary, fixed): schema migration, game creation
/// (the caps' count and the insert must not interleave across nodes).
const MIGRATION_LOCK: i64 = 0x6865_7876_0001;
const CREATE_LOCK: i64 = 0x6865_7876_0002;

/// How long connecting may take, unless the URL says (`connect_timeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one statement may run, unless the URL's `options` set
/// `statement_timeout`.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long sent data may stay unacknowledged on the TCP link before the
/// connection counts as lost, unless the URL says (`tcp_user_timeout`).
pub const TCP_USER_TIMEOUT: Duration = Duration::from_secs(10);
/// TCP keep-alive: first probe after this much silence, unless the URL
/// says (`keepalives_idle`)...
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(5);
/// ...then one every this (`keepalives_interval`)...
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(2);
/// ...and the link is dead after this many unanswered (`keepalives_retries`).
pub const KEEPALIVE_RETRIES: u32 = 3;
/// How long an operation keeps trying through a lost connection before it
/// fails ([`StoreError::Unavailable`]).
pub const DEFAULT_RETRY_FOR: Duration = Duration::from_secs(30);
/// The first pause before trying again; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(50);
/// The longest pause between two tries.
const MAX_PAUSE: Duration = Duration::from_secs(1);

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

/// Renews this process's row of its node id.
const RENEW_NODE: &str = "UPDATE nodes
    SET expires_at = clock_timestamp() + $3::float8 * interval '1 millisecond', address = $4
    WHERE node = $1 AND instance = $2";

/// Registers a node: a new row, or one whose holder is gone (its row
/// expired, or a process of the same data directory, whose lock this
/// process holds).
const REGISTER_NODE: &str = "INSERT INTO nodes (node, address, dir, instance, expires_at)
    VALUES ($1, $2, $3, $4, clock_timestamp() + $5::float8 * interval '1 millisecond')
    ON CONFLICT (node) DO UPDATE
    SET address = excluded.address, dir = excluded.dir, instance = excluded.instance,
        started_at = clock_timestamp(), expires_at = excluded.expires_at
    WHERE nodes.expires_at < clock_timestamp() OR (nodes.dir = excluded.dir AND $6)
    RETURNING 1";

/// Where a game is: its state and its lease, if any.
const LOCATE: &str = "SELECT g.result IS NOT NULL, g.expired_ms IS NOT NULL, l.node, l.address,
    greatest(0, extract(epoch FROM (l.expires_at - clock_timestamp())) * 1000)::float8
    FROM games g LEFT JOIN leases l ON l.game_id = g.game_id
    WHERE g.game_id = $1";

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
    /// This process's random id in the node table, once registered.
    instance: Option<Vec<u8>>,
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
/// it is opened again when it was lost, and the operation tried again
/// (see the module).
pub struct PgStore {
    config: Config,
    conn: RefCell<Option<Conn>>,
    node: Option<Node>,
    retry_for: Duration,
    /// Since when the database has been unreachable, for the log.
    outage: Cell<Option<Instant>>,
    /// Fault injection (tests only): called at each step of a creation.
    fault: Option<FaultHook>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the URL: it may hold a password.
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

/// Whether a PostgreSQL error is of the link, not of the request: the
/// connection was lost, reset, refused or timed out, or the server is
/// restarting, shutting down, out of connections, or cancelled the
/// statement (`statement_timeout`). Such an operation may succeed when
/// tried again on a new connection.
pub fn transient(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        // 08: connection exception; 57P01-03: admin/crash shutdown,
        // cannot connect now; 57014: statement timeout; 40001, 40P01:
        // serialization failure, deadlock; 53: insufficient resources;
        // 58: system error.
        return code.starts_with("08")
            || code.starts_with("53")
            || code.starts_with("58")
            || matches!(
                code,
                "57P01" | "57P02" | "57P03" | "57014" | "40001" | "40P01"
            );
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    // tokio-postgres's own words for a link that failed without an I/O
    // error underneath (a timeout, an early end of the stream).
    let text = e.to_string();
    [
        "error connecting",
        "timeout",
        "connection closed",
        "communicating",
    ]
    .iter()
    .any(|w| text.contains(w))
}

fn backend(operation: &'static str) -> impl Fn(postgres::Error) -> StoreError {
    move |e| {
        let detail = match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        };
        if transient(&e) {
            StoreError::Unavailable {
                operation,
                detail,
                tried: Duration::ZERO,
            }
        } else {
            StoreError::Backend { operation, detail }
        }
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

/// The connection settings of `url` (`postgres://user:password@host:port/db`,
/// or the key=value form), with this store's timeouts where the URL sets
/// none (see the module) and, when it has no password, the password
/// PostgreSQL's own clients would use: `PGPASSWORD`, else the matching
/// line of the password file (`PGPASSFILE`, else `~/.pgpass`), so that no
/// password needs to be on a command line.
pub fn connection_config(url: &str) -> Result<Config, StoreError> {
    let mut config: Config = url
        .parse()
        .map_err(|e: postgres::Error| StoreError::Backend {
            operation: "read the PostgreSQL URL",
            detail: e.to_string(),
        })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(TCP_USER_TIMEOUT);
    }
    if !url.contains("keepalives_idle") {
        config.keepalives_idle(KEEPALIVE_IDLE);
    }
    if config.get_keepalives_interval().is_none() {
        config.keepalives_interval(KEEPALIVE_INTERVAL);
    }
    if config.get_keepalives_retries().is_none() {
        config.keepalives_retries(KEEPALIVE_RETRIES);
    }
    let options = config.get_options().unwrap_or_default().to_owned();
    if !options.contains("statement_timeout") {
        let timeout = format!("-c statement_timeout={}", STATEMENT_TIMEOUT.as_millis());
        config.options(&if options.is_empty() {
            timeout
        } else {
            format!("{options} {timeout}")
        });
    }
    if config.get_application_name().is_none() {
        config.application_name("hexveil-server");
    }
    if config.get_password().is_none() {
        if let Some(password) = password_from_environment(&config) {
            config.password(password);
        }
    }
    Ok(config)
}

/// `PGPASSWORD`, else the first line of the password file that matches the
/// connection (libpq's rules: `host:port:database:user:password`, `*`
/// matches anything, `\` escapes `:` and `\`; a file group or others may
/// read is ignored, as libpq ignores it).
fn password_from_environment(config: &Config) -> Option<String> {
    if let Some(p) = std::env::var_os("PGPASSWORD") {
        return Some(p.to_string_lossy().into_owned());
    }
    let file = std::env::var_os("PGPASSFILE")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".pgpass")))?;
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            warn!(file = %file.display(), "password file ignored: group or others may read it (chmod 600)");
            return None;
        }
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_owned(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default().to_owned();
    let db = config
        .get_dbname()
        .map_or_else(|| user.clone(), str::to_owned);
    pgpass_lookup(&text, [&host, &port, &db, &user])
}

/// The password of the first line of a password file whose four fields
/// match `want` (host, port, database, user).
pub fn pgpass_lookup(text: &str, want: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => field.extend(chars.next()),
                ':' if fields.len() < 4 => fields.push(std::mem::take(&mut field)),
                c => field.push(c),
            }
        }
        fields.push(field);
        if fields.len() == 5
            && fields[..4]
                .iter()
                .zip(want)
                .all(|(f, w)| f == "*" || f == w)
        {
            return fields.pop();
        }
    }
    None
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
    fn open(config: &Config) -> Result<Conn, StoreError> {
        let mut client = config
            .connect(NoTls)
            .map_err(backend("connect to PostgreSQL"))?;
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

/// A write whose refusal [`refusal`] explains.
#[derive(Clone, Copy)]
enum Write<'a> {
    /// An append at `seq` of `bytes`.
    Append { seq: u64, bytes: &'a [u8] },
    /// A finish with this result and transcript.
    Finish {
        result: &'a [u8],
        transcript: &'a [u8],
    },
}

/// Appends inside an open transaction (see the module); on refusal
/// nothing was inserted and the error says why. `retrying`: an earlier
/// try may have landed, and an append found where it should be counts as
/// done.
fn insert_event(
    tx: &mut postgres::Transaction<'_>,
    p: &Prepared,
    fence: Fence<'_>,
    game_id: GameId,
    seq: u64,
    bytes: &[u8],
    retrying: bool,
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
    let write = Write::Append { seq, bytes };
    match refusal(tx, p, fence, game_id, write, retrying)? {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

/// Whether `write` is already in the database, exactly: a try before
/// this one landed, its answer lost with the connection.
fn landed(
    tx: &mut postgres::Transaction<'_>,
    game_id: GameId,
    write: Write<'_>,
) -> Result<bool, StoreError> {
    let row = match write {
        Write::Append { seq, bytes } => tx.query_opt(
            "SELECT bytes = $3 FROM events WHERE game_id = $1 AND seq = $2",
            &[&&game_id.0[..], &seq_sql(seq)?, &bytes],
        ),
        Write::Finish { result, transcript } => tx.query_opt(
            "SELECT coalesce(result = $2 AND transcript = $3, false) FROM games WHERE game_id = $1",
            &[&&game_id.0[..], &result, &transcript],
        ),
    }
    .map_err(backend("look for an earlier try"))?;
    Ok(row.is_some_and(|r| r.get::<_, bool>(0)))
}

/// Why a write to `game_id` changed nothing; `None` when, `retrying`, it
/// is found already done.
fn refusal(
    tx: &mut postgres::Transaction<'_>,
    p: &Prepared,
    fence: Fence<'_>,
    game_id: GameId,
    write: Write<'_>,
    retrying: bool,
) -> Result<Option<StoreError>, StoreError> {
    if retrying && landed(tx, game_id, write)? {
        return Ok(None);
    }
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
            return Ok(Some(StoreError::Fenced(game_id)));
        }
    }
    let row = tx
        .query_opt(&p.state, &[&&game_id.0[..]])
        .map_err(backend("look up the game"))?;
    let Some(row) = row else {
        return Ok(Some(StoreError::UnknownGame(game_id)));
    };
    let (finished, expired, next): (bool, bool, i64) = (row.get(0), row.get(1), row.get(2));
    if finished {
        return Ok(Some(StoreError::GameFinished(game_id)));
    }
    if expired {
        return Ok(Some(StoreError::Expired(game_id)));
    }
    let next = next as u64;
    Ok(Some(match write {
        Write::Append { seq, .. } if seq > next => StoreError::SeqGap {
            game: game_id,
            expected: next,
            got: seq,
        },
        // Below the next, or the next one taken by another writer between
        // the insert and this look-up.
        Write::Append { seq, .. } => StoreError::DuplicateSeq { game: game_id, seq },
        Write::Finish { .. } => StoreError::Backend {
            operation: "store the result",
            detail: "the game is open but its row did not change".into(),
        },
    }))
}

/// Marks a game finished inside an open transaction.
fn store_result(
    tx: &mut postgres::Transaction<'_>,
    p: &Prepared,
    fence: Fence<'_>,
    game_id: GameId,
    result: &[u8],
    transcript: &[u8],
    retrying: bool,
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
    let write = Write::Finish { result, transcript };
    match refusal(tx, p, fence, game_id, write, retrying)? {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

impl PgStore {
    /// Connects to `url` (`postgres://user:password@host:port/db`, or the
    /// key=value form; see [`connection_config`]) and creates or migrates
    /// the schema, trying for up to [`DEFAULT_RETRY_FOR`] while the
    /// database cannot be reached.
    pub fn connect(url: &str) -> Result<PgStore, StoreError> {
        let store = PgStore {
            config: connection_config(url)?,
            conn: RefCell::new(None),
            node: None,
            retry_for: DEFAULT_RETRY_FOR,
            outage: Cell::new(None),
            fault: None,
        };
        store.attempt("connect to PostgreSQL", |_, _| Ok(()))?;
        Ok(store)
    }

    /// [`PgStore::connect`] for one node of several sharing the database:
    /// games are leased, and every append is fenced (see the module).
    pub fn connect_node(url: &str, config: NodeConfig) -> Result<PgStore, StoreError> {
        let mut store = Self::connect(url)?;
        store.node = Some(Node {
            address: String::new(),
            config,
            held: HashMap::new(),
            instance: None,
        });
        Ok(store)
    }

    /// Fault injection, for tests only: `hook` is called at each step of
    /// every game's creation ([`CreateStep`]; a test kills the process
    /// there).
    pub fn set_fault_hook(&mut self, hook: FaultHook) {
        self.fault = Some(hook);
    }

    /// How long an operation keeps trying through a lost connection
    /// ([`DEFAULT_RETRY_FOR`] unless set).
    pub fn set_retry_for(&mut self, retry_for: Duration) {
        self.retry_for = retry_for;
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

    /// Runs `f` on the connection (opened again first if it was lost),
    /// trying again on a new connection while the failure is of the link
    /// ([`transient`]), for up to the retry time. `f` is told whether an
    /// earlier try of it may have landed.
    fn attempt<T>(
        &self,
        operation: &'static str,
        mut f: impl FnMut(&mut Conn, bool) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let started = Instant::now();
        let mut pause = FIRST_PAUSE;
        let mut retrying = false;
        loop {
            match self.once(&mut f, retrying) {
                Err(StoreError::Unavailable { detail, .. }) => {
                    // The connection may be half dead: a new one next time.
                    *self.conn.borrow_mut() = None;
                    if self.outage.get().is_none() {
                        self.outage.set(Some(Instant::now()));
                        warn!(operation, error = %detail, "PostgreSQL unreachable; connecting again and trying again");
                    }
                    let tried = started.elapsed();
                    if tried + pause > self.retry_for {
                        return Err(StoreError::Unavailable {
                            operation,
                            detail,
                            tried,
                        });
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(MAX_PAUSE);
                    retrying = true;
                }
                other => {
                    if let Some(since) = self.outage.take() {
                        info!(
                            operation,
                            unreachable_ms = since.elapsed().as_millis() as u64,
                            "PostgreSQL reachable again"
                        );
                    }
                    return other;
                }
            }
        }
    }

    /// One try of [`PgStore::attempt`].
    fn once<T>(
        &self,
        f: &mut impl FnMut(&mut Conn, bool) -> Result<T, StoreError>,
        retrying: bool,
    ) -> Result<T, StoreError> {
        let mut slot = self.conn.borrow_mut();
        if slot.as_ref().is_none_or(|c| c.client.is_closed()) {
            *slot = None;
            *slot = Some(Conn::open(&self.config)?);
        }
        let conn = slot.as_mut().expect("opened above");
        match f(conn, retrying) {
            // A failure that closed the connection was of the link,
            // whatever it said.
            Err(StoreError::Backend { operation, detail }) if conn.client.is_closed() => {
                Err(StoreError::Unavailable {
                    operation,
                    detail,
                    tried: Duration::ZERO,
                })
            }
            other => other,
        }
    }

    /// Runs `f` in a transaction and commits it; an error rolls back. The
    /// whole transaction is tried again on a lost connection.
    fn transaction<T>(
        &self,
        operation: &'static str,
        mut f: impl FnMut(&mut postgres::Transaction<'_>, &Prepared, bool) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.attempt(operation, |c, retrying| {
            let mut tx = c.client.transaction().map_err(backend(operation))?;
            let out = f(&mut tx, &c.prepared, retrying)?;
            tx.commit().map_err(backend(operation))?;
            Ok(out)
        })
    }

    /// Runs `f` once, not tried again, and not at all while the database
    /// is known to be unreachable (an outage under way): a lease given up
    /// by a node that stops runs out by itself anyway, and its drain must
    /// not wait a retry time for each of its games (issue 25).
    fn at_most_once<T>(
        &self,
        operation: &'static str,
        mut f: impl FnMut(&mut Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.outage.get().is_some() {
            return Err(StoreError::Unavailable {
                operation,
                detail: "the database is unreachable".into(),
                tried: Duration::ZERO,
            });
        }
        let done = self.once(&mut |c: &mut Conn, _| f(&mut c.client), false);
        if matches!(done, Err(StoreError::Unavailable { .. })) {
            *self.conn.borrow_mut() = None;
            self.outage.set(Some(Instant::now()));
        }
        done
    }

    /// Reads in `f` (tried again on a lost connection).
    fn read<T>(
        &self,
        operation: &'static str,
        mut f: impl FnMut(&mut Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.attempt(operation, |c, _| f(&mut c.client))
    }
}

impl GameStore for PgStore {
    fn create_game(
        &mut self,
        game_id: GameId,
        metadata: &[u8],
        new: &NewGameRecord,
        log: &[Vec<u8>],
    ) -> Result<(), StoreError> {
        let node = self.node.as_ref();
        let fault = self.fault.as_ref();
        let step = |s| {
            if let Some(hook) = fault {
                hook(s);
            }
        };
        let (address, network) = match &new.party {
            Some(p) => (Some(p.address.to_string()), Some(p.network.to_string())),
            None => (None, None),
        };
        self.transaction("create a game", |tx, _, retrying| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&CREATE_LOCK])
                .map_err(backend("lock game creation"))?;
            step(CreateStep::Begun);
            let exists = tx
                .query_opt(
                    "SELECT metadata = $2 AND creator = $3 FROM games WHERE game_id = $1",
                    &[&&game_id.0[..], &metadata, &&new.creator.0[..]],
                )
                .map_err(backend("look up the game"))?;
            if let Some(row) = exists {
                // An earlier try that landed (its answer lost) is this
                // creation, its genesis with it; anything else is another
                // game.
                if retrying && row.get::<_, Option<bool>>(0) == Some(true) {
                    return Ok(());
                }
                return Err(StoreError::DuplicateGame(game_id));
            }
            new.check_caps(&count_open(tx, &new.creator, new.party.as_ref())?)?;
            tx.execute(
                "INSERT INTO games (game_id, metadata, creator, created_ms,
                                    creator_address, creator_network)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &&game_id.0[..],
                    &metadata,
                    &&new.creator.0[..],
                    &ms_sql(new.created_ms),
                    &address,
                    &network,
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
            step(CreateStep::Row);
            for (seq, bytes) in (0i64..).zip(log) {
                tx.execute(
                    "INSERT INTO events (game_id, seq, bytes) VALUES ($1, $2, $3)",
                    &[&&game_id.0[..], &seq, bytes],
                )
                .map_err(backend("insert the game's first entries"))?;
            }
            step(CreateStep::Log);
            Ok(())
        })?;
        step(CreateStep::Committed);
        if let Some(node) = &mut self.node {
            node.held.insert(game_id, 1);
        }
        Ok(())
    }

    fn count_unfinished(
        &self,
        creator: &PublicKey,
        party: Option<&Party>,
    ) -> Result<GameCounts, StoreError> {
        self.read("count unfinished games", |c| count_open(c, creator, party))
    }

    fn append_event(&mut self, game_id: GameId, seq: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let fence = self.fence(game_id)?;
        let done = self.transaction("append an event", |tx, p, retrying| {
            insert_event(tx, p, as_fence(&fence), game_id, seq, bytes, retrying)
        });
        if matches!(done, Err(StoreError::Fenced(_))) {
            self.drop_lease(game_id);
        }
        done
    }

    fn append_batch(&mut self, appends: &[Append]) -> Vec<Result<(), StoreError>> {
        let fences: Vec<_> = appends.iter().map(|a| self.fence(a.game_id)).collect();
        let done = self.transaction("commit a group of appends", |tx, p, retrying| {
            let mut results = Vec::with_capacity(appends.len());
            for (a, fence) in appends.iter().zip(&fences) {
                let fence = match fence {
                    Ok(fence) => as_fence(fence),
                    Err(e) => {
                        results.push(Err(e.clone()));
                        continue;
                    }
                };
                match insert_event(tx, p, fence, a.game_id, a.seq, &a.bytes, retrying) {
                    // The database failed: the transaction is lost.
                    Err(e @ (StoreError::Backend { .. } | StoreError::Unavailable { .. })) => {
                        return Err(e)
                    }
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
        self.read("load the game", |c| {
            c.query_opt(
                "SELECT metadata, result, started, expired_ms IS NOT NULL, created_ms
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
                created_ms: known_ms(r.get(4)),
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
        self.read("load the events", |c| {
            // One snapshot for the existence check and the rows.
            let mut tx = c
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
        self.read("list unfinished games", |c| {
            let rows = c
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
        self.read("list finished games", |c| {
            let rows = c
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
        let done = self.transaction("finish the game", |tx, p, retrying| {
            store_result(
                tx,
                p,
                as_fence(&fence),
                game_id,
                result,
                transcript,
                retrying,
            )
        });
        // Finished (no more writes) or fenced: the lease is of no more use.
        if done.is_ok() || matches!(done, Err(StoreError::Fenced(_))) {
            self.drop_lease(game_id);
        }
        done
    }

    fn load_transcript(&self, game_id: GameId) -> Result<Option<Vec<u8>>, StoreError> {
        self.read("load the transcript", |c| {
            c.query_opt(
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
        let done = self.transaction("append the last event and finish", |tx, p, retrying| {
            let fence = as_fence(&fence);
            insert_event(tx, p, fence, game_id, seq, bytes, retrying)?;
            store_result(tx, p, fence, game_id, result, transcript, retrying)
        });
        if done.is_ok() || matches!(done, Err(StoreError::Fenced(_))) {
            self.drop_lease(game_id);
        }
        done
    }

    fn mark_started(&mut self, game_id: GameId) -> Result<(), StoreError> {
        self.read("mark the game started", |c| {
            let n = c
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
        // Tried again, a landed expiry lists no game twice and may list
        // fewer: those games' tasks learn it at their next write.
        // Nothing of them was played: their scenarios and entries go.
        self.transaction("expire games that never started", |tx, _, _| {
            let rows = tx
                .query(
                    "WITH expired AS (
                        UPDATE games SET expired_ms = $1, metadata = ''::bytea
                        WHERE result IS NULL AND expired_ms IS NULL AND NOT started
                          AND created_ms < $1
                        RETURNING game_id, created)
                     SELECT game_id FROM expired ORDER BY created",
                    &[&ms_sql(created_before_ms)],
                )
                .map_err(backend("expire games that never started"))?;
            let ids: Vec<Vec<u8>> = rows.iter().map(|r| r.get(0)).collect();
            tx.execute("DELETE FROM events WHERE game_id = ANY($1)", &[&ids])
                .map_err(backend("delete expired games' entries"))?;
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
        let token = self.read("take the game's lease", |c| {
            let row = c
                .query_opt(ACQUIRE_LEASE, &[&&game_id.0[..], &id, &address, &lease_ms])
                .map_err(backend("take the game's lease"))?;
            if let Some(row) = row {
                return Ok(row.get::<_, i64>(0));
            }
            let owner = c
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
        let (instance, address) = (node.instance.clone(), node.address.clone());
        let renewed = self.read("renew leases", |c| {
            if let Some(instance) = &instance {
                let n = c
                    .execute(RENEW_NODE, &[&id, instance, &lease_ms, &address])
                    .map_err(backend("renew this node's row"))?;
                if n == 0 {
                    // Another process took this node id over (this one
                    // was paused past its row's expiry).
                    let other = c
                        .query_opt("SELECT address FROM nodes WHERE node = $1", &[&id])
                        .map_err(backend("look up the node"))?;
                    return Err(StoreError::NodeIdInUse {
                        node: id.clone(),
                        address: other.map_or_else(|| "(gone)".into(), |r| r.get(0)),
                    });
                }
            }
            // Leases of games with no task here are given up: another node
            // may take them at once (a drained node frees its games).
            if !idle.is_empty() {
                c.execute(
                    "DELETE FROM leases WHERE node = $1 AND game_id = ANY($2)",
                    &[&id, &idle],
                )
                .map_err(backend("release leases"))?;
            }
            let rows = c
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

    fn register_node(&mut self, reg: &NodeRegistration) -> Result<(), StoreError> {
        let Some(node) = &self.node else {
            return Ok(());
        };
        let (id, address, lease) = (
            node.config.id.clone(),
            node.address.clone(),
            node.config.lease,
        );
        let lease_ms = node.lease_ms();
        if let Some(ours) = &reg.secrets {
            self.transaction("check the league's secrets", |tx, _, _| {
                tx.execute(
                    "INSERT INTO league (id, secrets_check, transcript_key, recorded_by)
                     VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING",
                    &[&&ours.check[..], &&ours.transcript_key.0[..], &id],
                )
                .map_err(backend("record the league's secrets"))?;
                let row = tx
                    .query_one(
                        "SELECT secrets_check, transcript_key, recorded_by FROM league WHERE id = 1",
                        &[],
                    )
                    .map_err(backend("read the league's secrets"))?;
                if row.get::<_, &[u8]>(0) != ours.check {
                    return Err(StoreError::ForeignSecrets {
                        league: hex::encode(row.get::<_, &[u8]>(1)),
                        ours: ours.transcript_key.to_string(),
                        recorded_by: row.get(2),
                    });
                }
                Ok(())
            })?;
        }
        let mut instance = [0u8; 16];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut instance).map_err(
            |_| StoreError::Backend {
                operation: "register the node",
                detail: "the system random generator failed".into(),
            },
        )?;
        let instance = instance.to_vec();
        // A holder that does not renew its row within a lease (and a
        // little) is gone; one that does is alive, and this node refused.
        let deadline = Instant::now() + lease + lease / 2 + Duration::from_secs(1);
        let mut seen: Option<f64> = None;
        loop {
            let taken = self.read("register the node", |c| {
                let row = c
                    .query_opt(
                        REGISTER_NODE,
                        &[&id, &address, &reg.dir, &instance, &lease_ms, &reg.dir_locked],
                    )
                    .map_err(backend("register the node"))?;
                if row.is_some() {
                    return Ok(None);
                }
                let holder = c
                    .query_one(
                        "SELECT address, extract(epoch FROM expires_at)::float8 FROM nodes WHERE node = $1",
                        &[&id],
                    )
                    .map_err(backend("look up the node"))?;
                Ok(Some((holder.get::<_, String>(0), holder.get::<_, f64>(1))))
            })?;
            let Some((holder, expires)) = taken else {
                break;
            };
            let renewed = seen.is_some_and(|before| expires > before);
            if renewed || Instant::now() > deadline {
                return Err(StoreError::NodeIdInUse {
                    node: id,
                    address: holder,
                });
            }
            if seen.is_none() {
                info!(node = %id, holder = %holder, "this node id's row is held; waiting to see whether its holder is alive");
            }
            seen = Some(expires);
            std::thread::sleep(Duration::from_millis(100));
        }
        if let Some(node) = &mut self.node {
            node.instance = Some(instance);
        }
        Ok(())
    }

    fn locate(&self, game_id: GameId) -> Result<GameLocation, StoreError> {
        let row = self.read("locate the game", |c| {
            c.query_opt(LOCATE, &[&&game_id.0[..]])
                .map_err(backend("locate the game"))
        })?;
        let Some(row) = row else {
            return Err(StoreError::UnknownGame(game_id));
        };
        let (finished, expired): (bool, bool) = (row.get(0), row.get(1));
        if expired {
            return Err(StoreError::UnknownGame(game_id));
        }
        let holder: Option<String> = row.get(2);
        let left = Duration::from_secs_f64(row.get::<_, Option<f64>>(4).unwrap_or(0.0) / 1000.0);
        let here = self.node.as_ref().map(|n| n.config.id.as_str());
        Ok(match holder {
            // A finished game is served by any node; a lease that ran out
            // is taken by the node where the game is joined next.
            Some(node) if !finished && !left.is_zero() && Some(node.as_str()) != here => {
                GameLocation::OtherNode {
                    node,
                    address: row.get(3),
                    lease_left: left,
                }
            }
            _ => GameLocation::ThisNode,
        })
    }

    fn live_nodes(&self) -> Result<Vec<LiveNode>, StoreError> {
        if self.node.is_none() {
            return Ok(Vec::new());
        }
        self.read("list the live nodes", |c| {
            let rows = c
                .query(
                    "SELECT node, address FROM nodes WHERE expires_at > clock_timestamp() ORDER BY node",
                    &[],
                )
                .map_err(backend("list the live nodes"))?;
            Ok(rows
                .into_iter()
                .map(|r| LiveNode {
                    node: r.get(0),
                    address: r.get(1),
                })
                .collect())
        })
    }

    fn confirm_lease(&mut self, game_id: GameId) -> Result<(), StoreError> {
        let Some((id, token)) = self.fence(game_id)? else {
            return Ok(());
        };
        let row = self.read("check the game's lease", |c| {
            c.query_opt(
                "SELECT node, token, address, expires_at > clock_timestamp() FROM leases WHERE game_id = $1",
                &[&&game_id.0[..]],
            )
            .map_err(backend("check the game's lease"))
        })?;
        match row {
            Some(r) if r.get::<_, &str>(0) == id && r.get::<_, i64>(1) == token => Ok(()),
            other => {
                self.drop_lease(game_id);
                Err(match other {
                    Some(r) if r.get::<_, bool>(3) => StoreError::NotOwner {
                        game: game_id,
                        node: r.get(0),
                        address: r.get(2),
                    },
                    _ => StoreError::Fenced(game_id),
                })
            }
        }
    }

    fn release_lease(&mut self, game_id: GameId) -> Result<(), StoreError> {
        let Some((id, token)) = self.fence(game_id).ok().flatten() else {
            return Ok(());
        };
        self.at_most_once("release the game's lease", |c| {
            c.execute(
                "DELETE FROM leases WHERE game_id = $1 AND node = $2 AND token = $3",
                &[&&game_id.0[..], &id, &token],
            )
            .map_err(backend("release the game's lease"))
        })?;
        self.drop_lease(game_id);
        Ok(())
    }

    fn leave(&mut self) -> Result<(), StoreError> {
        let Some(node) = &self.node else {
            return Ok(());
        };
        let (id, instance) = (node.config.id.clone(), node.instance.clone());
        let held: Vec<(Vec<u8>, i64)> = node.held.iter().map(|(g, t)| (g.0.to_vec(), *t)).collect();
        let (games, tokens): (Vec<_>, Vec<_>) = held.into_iter().unzip();
        self.at_most_once("leave the league", |c| {
            let mut tx = c.transaction().map_err(backend("leave the league"))?;
            tx.execute(
                "DELETE FROM leases USING unnest($2::bytea[], $3::int8[]) AS held(game_id, token)
                 WHERE leases.node = $1 AND leases.game_id = held.game_id AND leases.token = held.token",
                &[&id, &games, &tokens],
            )
            .map_err(backend("release the leases"))?;
            if let Some(instance) = &instance {
                tx.execute(
                    "DELETE FROM nodes WHERE node = $1 AND instance = $2",
                    &[&id, instance],
                )
                .map_err(backend("remove the node's row"))?;
            }
            tx.commit().map_err(backend("leave the league"))
        })?;
        if let Some(node) = &mut self.node {
            node.held.clear();
            node.instance = None;
        }
        Ok(())
    }
}

/// The fence as the statements take it.
fn as_fence(fence: &Option<(String, i64)>) -> Fence<'_> {
    fence.as_ref().map(|(node, token)| (node.as_str(), *token))
}

/// Unfinished, unexpired games counted for a new game of `creator` from
/// `party`.
fn count_open(
    client: &mut impl postgres::GenericClient,
    creator: &PublicKey,
    party: Option<&Party>,
) -> Result<GameCounts, StoreError> {
    let (address, network) = match party {
        Some(p) => (Some(p.address.to_string()), Some(p.network.to_string())),
        None => (None, None),
    };
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE creator = $1),
                    count(*) FILTER (WHERE creator_address = $2),
                    count(*) FILTER (WHERE creator_network = $3),
                    count(*) FILTER (WHERE started),
                    count(*) FILTER (WHERE NOT started)
             FROM games WHERE result IS NULL AND expired_ms IS NULL",
            &[&&creator.0[..], &address, &network],
        )
        .map_err(backend("count unfinished games"))?;
    let n = |i| row.get::<_, i64>(i) as u64;
    Ok(GameCounts {
        key: n(0),
        address: n(1),
        network: n(2),
        under_way: n(3),
        pending: n(4),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::LeagueSecrets;
    use hexveil_fixtures::postgres::terminate_connections;

    /// A fresh database on the test cluster, or `None` when skipped.
    fn database(test: &str) -> Option<String> {
        hexveil_fixtures::postgres::fresh_database(test)
    }

    /// Issue 27: on a machine without PostgreSQL, each of these tests says
    /// SKIPPED where a person running `cargo test` sees it (an `eprintln!`
    /// was swallowed by the harness's capture): this test runs this very
    /// test binary again, capture on, with PostgreSQL pointed at nothing
    /// and without `CI`, and looks for the line in what it printed.
    #[test]
    fn a_skipped_postgres_test_says_so_through_the_capture() {
        if std::env::var_os(hexveil_fixtures::postgres::PG_BIN_ENV).is_some() {
            return; // the child run below, or a machine that moved PostgreSQL
        }
        let printed = hexveil_fixtures::rerun_capturing(
            "postgres::tests::schema_is_migrated_once_and_a_newer_one_is_refused",
            hexveil_fixtures::postgres::PG_BIN_ENV,
            "/nonexistent/postgresql/bin",
        );
        assert!(
            printed.contains("SKIPPED postgres::schema_is_migrated_once_and_a_newer_one_is_refused (no PostgreSQL"),
            "the skip notice was hidden: {printed}"
        );
        assert!(printed.contains("1 passed"), "{printed}");
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
        a.create_game(G, b"m", &record(), &[]).unwrap();
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
        a.create_game(G, b"", &record(), &[]).unwrap();
        a.create_game(g2, b"", &record(), &[]).unwrap();
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
        a.create_game(G, b"", &record(), &[]).unwrap();
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

    /// Node `a` (a long lease) on a fresh database, with game `G` and its
    /// first entry `a0`; the database's URL. `None` when skipped.
    fn node_with_a_game(test: &str) -> Option<(String, PgStore)> {
        let url = database(test)?;
        let mut a = node(&url, "a", 10_000);
        a.create_game(G, b"m", &record(), &[]).unwrap();
        a.append_event(G, 0, b"a0").unwrap();
        Some((url, a))
    }

    // Issue 25 (G6): a node's connection reset under it is opened again
    // and the write goes through, once; every read and write kind
    // survives it.
    #[test]
    fn issue25_a_reset_connection_is_opened_again_and_the_write_goes_through() {
        let Some((url, mut a)) = node_with_a_game("postgres::issue25_a_reset_connection") else {
            return;
        };
        assert_eq!(terminate_connections(&url), 1);
        a.append_event(G, 1, b"a1").unwrap();
        assert_eq!(terminate_connections(&url), 1);
        let batch = a.append_batch(&[Append {
            game_id: G,
            seq: 2,
            bytes: b"a2".to_vec(),
        }]);
        assert!(batch[0].is_ok(), "{batch:?}");
        terminate_connections(&url);
        assert_eq!(a.load_events(G).unwrap().len(), 3);
        terminate_connections(&url);
        assert!(a.renew_leases(&[G]).unwrap().is_empty());
        terminate_connections(&url);
        a.append_and_finish(G, 3, b"a3", b"r", b"t").unwrap();
        let log: Vec<Vec<u8>> = a
            .load_events(G)
            .unwrap()
            .into_iter()
            .map(|e| e.bytes)
            .collect();
        assert_eq!(log, [&b"a0"[..], b"a1", b"a2", b"a3"]);
    }

    // Issue 25 (G6): a write tried again after its commit landed (its
    // answer lost with the connection) is found done, not refused and not
    // written twice; a different entry at that seq is still a duplicate.
    #[test]
    fn issue25_a_write_tried_again_after_it_landed_is_done_once() {
        let Some((_, mut a)) = node_with_a_game("postgres::issue25_a_write_tried_again") else {
            return;
        };
        let fence = a.fence(G).unwrap();
        let again = |bytes: &'static [u8], retrying| {
            a.transaction("append again", |tx, p, _| {
                insert_event(tx, p, as_fence(&fence), G, 0, bytes, retrying)
            })
        };
        assert!(again(b"a0", true).is_ok());
        assert!(matches!(
            again(b"a0", false),
            Err(StoreError::DuplicateSeq { seq: 0, .. })
        ));
        assert!(matches!(
            again(b"other", true),
            Err(StoreError::DuplicateSeq { seq: 0, .. })
        ));
        a.append_and_finish(G, 1, b"a1", b"r", b"t").unwrap();
        let finish_again = |result: &'static [u8]| {
            a.transaction("finish again", |tx, p, _| {
                insert_event(tx, p, None, G, 1, b"a1", true)?;
                store_result(tx, p, None, G, result, b"t", true)
            })
        };
        assert!(finish_again(b"r").is_ok());
        assert!(matches!(
            finish_again(b"another"),
            Err(StoreError::GameFinished(_))
        ));
        assert_eq!(a.load_events(G).unwrap().len(), 2);
    }

    // Issue 25: a database that cannot be reached is tried for the retry
    // time, then reported with what was being done; never a stall.
    #[test]
    fn issue25_an_unreachable_database_is_reported_after_the_retry_time() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("postgres://postgres@127.0.0.1:{port}/none");
        let mut store = PgStore {
            config: connection_config(&url).unwrap(),
            conn: RefCell::new(None),
            node: None,
            retry_for: Duration::from_millis(300),
            outage: Cell::new(None),
            fault: None,
        };
        store.set_retry_for(Duration::from_millis(300));
        let e = store.load_game(G).unwrap_err();
        assert!(e.is_transient(), "{e}");
        let text = e.to_string();
        assert!(
            text.starts_with("storage unavailable while trying to load the game")
                && text.contains("error connecting to server"),
            "{text}"
        );
        // A drain gives leases up at most once each, and not at all during
        // an outage: its games do not wait a retry time each.
        store.node = Some(Node {
            config: NodeConfig {
                id: "a".into(),
                lease: Duration::from_secs(1),
            },
            address: "a:1".into(),
            held: HashMap::from([(G, 1)]),
            instance: None,
        });
        for _ in 0..2 {
            match store.release_lease(G) {
                Err(StoreError::Unavailable { tried, .. }) => assert!(tried.is_zero()),
                other => panic!("{other:?}"),
            }
        }
        assert!(store.leave().is_err());
    }

    // Issue 25: the URL gets timeouts where it sets none and keeps its
    // own; a password comes from a password file line that matches.
    #[test]
    fn issue25_connections_have_timeouts_and_passwords_stay_off_the_command_line() {
        let c = connection_config("postgres://u@db.internal:6543/league").unwrap();
        assert_eq!(c.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert_eq!(c.get_tcp_user_timeout(), Some(&TCP_USER_TIMEOUT));
        assert_eq!(c.get_keepalives_idle(), KEEPALIVE_IDLE);
        assert_eq!(c.get_keepalives_retries(), Some(KEEPALIVE_RETRIES));
        assert!(c.get_options().unwrap().contains("statement_timeout=15000"));
        let own = connection_config(
            "postgres://u@db/league?connect_timeout=2&options=-c%20statement_timeout%3D100",
        )
        .unwrap();
        assert_eq!(own.get_connect_timeout(), Some(&Duration::from_secs(2)));
        assert_eq!(own.get_options(), Some("-c statement_timeout=100"));
        let file = "# league\n\
                    other:5432:*:u:wrong\n\
                    db.internal:6543:league:u:right\\:colon\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            pgpass_lookup(file, ["db.internal", "6543", "league", "u"]).as_deref(),
            Some("right:colon")
        );
        assert_eq!(
            pgpass_lookup(file, ["elsewhere", "1", "x", "y"]).as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup("a:b:c:d:e\n", ["a", "b", "c", "x"]), None);
    }

    fn registration(dir: &[u8], locked: bool) -> NodeRegistration {
        NodeRegistration {
            dir: dir.to_vec(),
            dir_locked: locked,
            secrets: None,
        }
    }

    // Issue 25: a node id is refused while another live node renews it;
    // a dead holder's row is taken after it expires, and at once by a
    // process of the same (locked) data directory.
    #[test]
    fn issue25_a_node_id_is_refused_while_its_holder_lives() {
        let Some(url) = database("postgres::issue25_a_node_id_is_refused_while_its_holder_lives")
        else {
            return;
        };
        let mut first = node(&url, "n1", 600);
        first.register_node(&registration(b"dir1", true)).unwrap();
        let renewing = std::thread::spawn(move || {
            for _ in 0..10 {
                std::thread::sleep(Duration::from_millis(150));
                first.renew_leases(&[]).unwrap();
            }
            first
        });
        // Its own lease long: a row of it is taken only by the rules.
        let mut second = node(&url, "n1", 60_000);
        match second.register_node(&registration(b"dir2", true)) {
            Err(StoreError::NodeIdInUse { node, address }) => {
                assert_eq!((node.as_str(), address.as_str()), ("n1", "n1.example:4433"));
            }
            other => panic!("a live node's id was taken: {other:?}"),
        }
        let mut first = renewing.join().unwrap();
        // The holder stops renewing (it died): its row is taken once it
        // expired, and the old holder learns it at its next renewal.
        second.register_node(&registration(b"dir2", true)).unwrap();
        assert!(matches!(
            first.renew_leases(&[]),
            Err(StoreError::NodeIdInUse { .. })
        ));
        // A restart from the same directory takes its row at once (the
        // row runs for a minute: waiting for it would refuse).
        let mut third = node(&url, "n1", 60_000);
        third.register_node(&registration(b"dir2", true)).unwrap();
        // Leaving removes the row: another takes the id at once.
        third.leave().unwrap();
        let mut fourth = node(&url, "n1", 60_000);
        fourth.register_node(&registration(b"dir4", false)).unwrap();
        assert_eq!(fourth.live_nodes().unwrap().len(), 1);
    }

    // Issue 25: a node whose secrets are not the league's is refused.
    #[test]
    fn issue25_a_node_without_the_leagues_secrets_is_refused() {
        let Some(url) = database("postgres::issue25_a_node_without_the_leagues_secrets_is_refused")
        else {
            return;
        };
        let secrets = |k: u8, c: u8| LeagueSecrets {
            transcript_key: PublicKey([k; 32]),
            check: [c; 32],
        };
        let mut a = node(&url, "a", 10_000);
        let reg = |s| NodeRegistration {
            secrets: Some(s),
            ..registration(b"d", true)
        };
        a.register_node(&reg(secrets(1, 1))).unwrap();
        let mut b = node(&url, "b", 10_000);
        b.register_node(&reg(secrets(1, 1))).unwrap();
        let mut c = node(&url, "c", 10_000);
        match c.register_node(&reg(secrets(2, 2))) {
            Err(e @ StoreError::ForeignSecrets { .. }) => {
                let text = e.to_string();
                assert!(
                    text.contains(&"01".repeat(32)) && text.contains("node a"),
                    "{text}"
                );
            }
            other => panic!("a foreign node was let in: {other:?}"),
        }
    }

    // Issue 25: any node says where a game is: here (its own lease, an
    // expired one, none, or a finished game), or another live node's
    // address and how long its lease runs; the live nodes are listed.
    #[test]
    fn issue25_any_node_locates_a_game() {
        let Some(url) = database("postgres::issue25_any_node_locates_a_game") else {
            return;
        };
        let mut a = node(&url, "a", 300);
        let mut b = node(&url, "b", 300);
        for (n, d) in [(&mut a, b"da"), (&mut b, b"db")] {
            n.register_node(&registration(d, true)).unwrap();
        }
        a.create_game(G, b"m", &record(), &[]).unwrap();
        assert_eq!(a.locate(G).unwrap(), GameLocation::ThisNode);
        match b.locate(G).unwrap() {
            GameLocation::OtherNode {
                node,
                address,
                lease_left,
            } => {
                assert_eq!((node.as_str(), address.as_str()), ("a", "a.example:4433"));
                assert!(lease_left <= Duration::from_millis(300), "{lease_left:?}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            b.locate(GameId([3; 16])),
            Err(StoreError::UnknownGame(_))
        ));
        let nodes: Vec<String> = b
            .live_nodes()
            .unwrap()
            .into_iter()
            .map(|n| n.node)
            .collect();
        assert_eq!(nodes, ["a", "b"]);
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(b.locate(G).unwrap(), GameLocation::ThisNode);
        // A released lease (a drain) is free at once.
        let g2 = GameId([4; 16]);
        a.create_game(g2, b"m", &record(), &[]).unwrap();
        a.release_lease(g2).unwrap();
        assert_eq!(b.locate(g2).unwrap(), GameLocation::ThisNode);
        b.acquire_lease(g2).unwrap();
    }
}
