//! The floor, measured in the same run as the load: what the hardware does
//! with the least work one action must cost (issue 16). Ratios to it mean
//! something on any machine; absolute figures do not.
//!
//! - [`crypto`]: one Ed25519 verify (the server checks the player's signed
//!   action, G5) and one sign (its ruling) of the action's signed bytes,
//!   and one SHA-256 of them (the entry hash that chains the log), with
//!   ring, as the protocol does.
//! - [`echo`]: a bare quinn echo over connections made as the game's are
//!   (the server's and client's configurations of `hexveil_net::endpoint`:
//!   TLS 1.3 with ring, the pinned certificate, one bidirectional stream),
//!   the same number of round trips as the load's actions, each a request
//!   the length of a submitted action and a reply of one padded bucket
//!   (`message::PAD_BUCKET`, G3).
//! - [`sqlite`]: a bare durable commit, one row per transaction, with the
//!   store's settings (`server/src/sqlite.rs`: WAL, `synchronous=FULL`,
//!   the events table) and a prepared statement, in the directory where the
//!   server keeps its data.

use std::hint::black_box;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use hexveil_net::endpoint::{client_config, server_config, EndpointError};
use hexveil_net::tls::{ServerIdentity, ServerTrust, TlsError};
use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};
use serde::Serialize;
use thiserror::Error;

/// Why a floor could not be measured.
#[derive(Debug, Error)]
pub enum FloorError {
    /// ring refused to make a key.
    #[error("Ed25519 key: {0}")]
    Key(String),
    /// The TLS identity could not be made.
    #[error("echo: TLS identity: {0}")]
    Tls(#[from] TlsError),
    /// A quinn configuration could not be built.
    #[error("echo: endpoint configuration: {0}")]
    Endpoint(#[from] EndpointError),
    /// The echo's sockets or connections failed.
    #[error("echo: {what}: {detail}")]
    Echo {
        /// The step that failed.
        what: &'static str,
        /// The error.
        detail: String,
    },
    /// SQLite failed.
    #[error("SQLite floor: {what}: {source}")]
    Sqlite {
        /// The step that failed.
        what: &'static str,
        /// The error.
        source: rusqlite::Error,
    },
    /// The SQLite floor's directory could not be made.
    #[error("SQLite floor: directory under {dir}: {source}")]
    Dir {
        /// The parent.
        dir: String,
        /// The error.
        source: std::io::Error,
    },
}

/// The crypto one action needs at least, per operation.
#[derive(Clone, Debug, Serialize)]
pub struct CryptoFloor {
    /// Length of the signed message (an action's signed bytes).
    pub message_len: usize,
    /// One Ed25519 verify, in microseconds (median of batches).
    pub ed25519_verify_us: f64,
    /// One Ed25519 sign, in microseconds.
    pub ed25519_sign_us: f64,
    /// One SHA-256 of the message, in microseconds.
    pub sha256_us: f64,
    /// Verify + sign + SHA-256: the floor of one action's server CPU.
    pub per_action_us: f64,
}

/// Batches per crypto measurement (the median is kept).
const BATCHES: usize = 7;
/// Operations per batch.
const BATCH: u32 = 300;

fn median_us(mut op: impl FnMut()) -> f64 {
    let mut per_op: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..BATCH {
                op();
            }
            t.elapsed().as_secs_f64() * 1e6 / f64::from(BATCH)
        })
        .collect();
    per_op.sort_by(f64::total_cmp);
    per_op[BATCHES / 2]
}

/// Times ring's Ed25519 verify and sign and SHA-256 of `message_len` bytes.
pub fn crypto(message_len: usize) -> Result<CryptoFloor, FloorError> {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).map_err(|e| FloorError::Key(e.to_string()))?;
    let pair =
        Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).map_err(|e| FloorError::Key(e.to_string()))?;
    let msg: Vec<u8> = (0..message_len).map(|i| (i * 31 % 251) as u8).collect();
    let sig = pair.sign(&msg);
    let public = UnparsedPublicKey::new(&ED25519, pair.public_key().as_ref().to_vec());
    let verify = median_us(|| {
        public
            .verify(black_box(&msg), black_box(sig.as_ref()))
            .expect("a signature just made verifies");
    });
    let sign = median_us(|| {
        black_box(pair.sign(black_box(&msg)));
    });
    let sha = median_us(|| {
        black_box(ring::digest::digest(&ring::digest::SHA256, black_box(&msg)));
    });
    Ok(CryptoFloor {
        message_len,
        ed25519_verify_us: verify,
        ed25519_sign_us: sign,
        sha256_us: sha,
        per_action_us: verify + sign + sha,
    })
}

/// A bare echo's round trips.
#[derive(Clone, Debug, Serialize)]
pub struct EchoFloor {
    /// Connections, each with its own client endpoint as the driver makes.
    pub connections: usize,
    /// Round trips made in all.
    pub round_trips: u64,
    /// Bytes sent per round trip.
    pub request_len: usize,
    /// Bytes answered per round trip.
    pub reply_len: usize,
    /// Seconds from the first request to the last reply.
    pub secs: f64,
    /// Round trips per second.
    pub round_trips_per_sec: f64,
}

fn echo_err(what: &'static str) -> impl Fn(String) -> FloorError {
    move |detail| FloorError::Echo { what, detail }
}

/// Runs `round_trips` request/reply round trips over `connections` QUIC
/// connections to an echo server in this process, all at once.
pub async fn echo(
    connections: usize,
    round_trips: u64,
    request_len: usize,
    reply_len: usize,
) -> Result<EchoFloor, FloorError> {
    let connections = connections.max(1);
    let identity = ServerIdentity::generate(&[])?;
    let server = quinn::Endpoint::server(
        server_config(&identity)?,
        SocketAddr::from(([127, 0, 0, 1], 0)),
    )
    .map_err(|e| echo_err("server socket")(e.to_string()))?;
    let addr = server
        .local_addr()
        .map_err(|e| echo_err("server address")(e.to_string()))?;
    let acceptor = server.clone();
    let serving = tokio::spawn(async move {
        while let Some(incoming) = acceptor.accept().await {
            tokio::spawn(async move {
                let Ok(conn) = incoming.await else { return };
                let Ok((mut send, mut recv)) = conn.accept_bi().await else {
                    return;
                };
                let mut request = vec![0u8; request_len];
                let reply = vec![0x42u8; reply_len];
                while recv.read_exact(&mut request).await.is_ok() {
                    if send.write_all(&reply).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    let trust = ServerTrust::Pinned(identity.fingerprint());
    let mut links = Vec::with_capacity(connections);
    for _ in 0..connections {
        let mut ep = quinn::Endpoint::client(SocketAddr::from(([127, 0, 0, 1], 0)))
            .map_err(|e| echo_err("client socket")(e.to_string()))?;
        ep.set_default_client_config(client_config(&trust)?);
        let conn = ep
            .connect(addr, hexveil::driver::SERVER_NAME)
            .map_err(|e| echo_err("connect")(e.to_string()))?
            .await
            .map_err(|e| echo_err("handshake")(e.to_string()))?;
        let (send, recv) = conn
            .open_bi()
            .await
            .map_err(|e| echo_err("open a stream")(e.to_string()))?;
        links.push((ep, conn, send, recv));
    }
    let share = round_trips / connections as u64;
    let extra = round_trips % connections as u64;
    let start = Instant::now();
    let tasks: Vec<_> = links
        .into_iter()
        .enumerate()
        .map(|(i, (ep, conn, mut send, mut recv))| {
            let n = share + u64::from((i as u64) < extra);
            tokio::spawn(async move {
                let request = vec![0x17u8; request_len];
                let mut reply = vec![0u8; reply_len];
                for _ in 0..n {
                    send.write_all(&request)
                        .await
                        .map_err(|e| echo_err("send")(e.to_string()))?;
                    recv.read_exact(&mut reply)
                        .await
                        .map_err(|e| echo_err("receive")(e.to_string()))?;
                }
                Ok::<_, FloorError>((ep, conn))
            })
        })
        .collect();
    let mut done = Vec::with_capacity(tasks.len());
    for t in tasks {
        done.push(
            t.await
                .map_err(|e| echo_err("a connection's task")(e.to_string()))??,
        );
    }
    let secs = start.elapsed().as_secs_f64();
    for (ep, conn) in done {
        conn.close(0u32.into(), b"done");
        ep.close(0u32.into(), b"done");
    }
    server.close(0u32.into(), b"done");
    serving.abort();
    Ok(EchoFloor {
        connections,
        round_trips,
        request_len,
        reply_len,
        secs,
        round_trips_per_sec: round_trips as f64 / secs.max(1e-9),
    })
}

/// Bare durable commits.
#[derive(Clone, Debug, Serialize)]
pub struct SqliteFloor {
    /// Bytes per row.
    pub row_len: usize,
    /// Commits made.
    pub commits: u64,
    /// Seconds they took.
    pub secs: f64,
    /// Commits per second.
    pub commits_per_sec: f64,
    /// The median commit, us.
    pub commit_p50_us: u64,
    /// The 99th percentile commit, us: the disk's own tail, which a
    /// server that answers only after a durable commit (G6) cannot beat.
    pub commit_p99_us: u64,
}

/// Commits one `row_len`-byte row per transaction for about `wanted` (at
/// least 20 commits) in a fresh database under `dir`.
pub fn sqlite(dir: &Path, row_len: usize, wanted: Duration) -> Result<SqliteFloor, FloorError> {
    let tmp = tempfile::Builder::new()
        .prefix("hexveil-load-sqlite-")
        .tempdir_in(dir)
        .map_err(|source| FloorError::Dir {
            dir: dir.display().to_string(),
            source,
        })?;
    let sql = |what: &'static str| move |source| FloorError::Sqlite { what, source };
    let mut conn =
        rusqlite::Connection::open(tmp.path().join("floor.sqlite3")).map_err(sql("open"))?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .map_err(sql("journal_mode=WAL"))?;
    debug_assert_eq!(mode.to_lowercase(), "wal");
    conn.execute_batch(
        "PRAGMA synchronous=FULL;
         CREATE TABLE events (
             game_id BLOB NOT NULL,
             seq     INTEGER NOT NULL,
             bytes   BLOB NOT NULL,
             PRIMARY KEY (game_id, seq)
         ) WITHOUT ROWID;",
    )
    .map_err(sql("schema"))?;
    let game = [7u8; 16];
    let row = vec![0x3cu8; row_len];
    let start = Instant::now();
    let mut commits = 0u64;
    let mut took = hdrhistogram::Histogram::<u64>::new(3).expect("3 significant figures");
    while commits < 20 || start.elapsed() < wanted {
        let began = Instant::now();
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sql("begin"))?;
        tx.prepare_cached("INSERT INTO events (game_id, seq, bytes) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(rusqlite::params![&game[..], commits as i64, &row]))
            .map_err(sql("insert"))?;
        tx.commit().map_err(sql("commit"))?;
        took.saturating_record(began.elapsed().as_micros() as u64);
        commits += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    Ok(SqliteFloor {
        row_len,
        commits,
        secs,
        commits_per_sec: commits as f64 / secs.max(1e-9),
        commit_p50_us: took.value_at_quantile(0.5),
        commit_p99_us: took.value_at_quantile(0.99),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crypto_floor_is_positive() {
        let c = crypto(200).unwrap();
        assert!(c.ed25519_verify_us > 0.0 && c.ed25519_sign_us > 0.0);
        assert!(c.per_action_us >= c.ed25519_verify_us);
    }

    #[test]
    fn sqlite_floor_commits() {
        let dir = tempfile::tempdir().unwrap();
        let s = sqlite(dir.path(), 300, Duration::ZERO).unwrap();
        assert_eq!(s.commits, 20);
        assert!(s.commit_p50_us > 0 && s.commit_p50_us <= s.commit_p99_us);
    }

    #[tokio::test]
    async fn echo_round_trips() {
        let e = echo(3, 10, 300, 2048).await.unwrap();
        assert_eq!(e.round_trips, 10);
        assert_eq!(e.connections, 3);
    }
}
