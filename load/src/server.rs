//! The server under load: a `hexveil-server` child process on loopback
//! with a temporary data directory (or one already running), and what
//! `/proc` says about it (Linux).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use hexveil_net::tls::Fingerprint;
use tempfile::TempDir;
use thiserror::Error;

/// How long the server has to print where it listens.
pub const START_WAIT: Duration = Duration::from_secs(30);

/// Clock ticks per second of `/proc/<pid>/stat` times: Linux reports them
/// in `USER_HZ`, which its ABI fixes at 100.
pub const USER_HZ: f64 = 100.0;

/// Why the server could not be started or read.
#[derive(Debug, Error)]
pub enum ServerError {
    /// No server binary where it was looked for.
    #[error("no hexveil-server at {0}: build it (cargo build --release -p hexveil-server) or pass --server-bin PATH")]
    NoBinary(PathBuf),
    /// The temporary data directory could not be made.
    #[error("cannot make a data directory under {dir}: {source}")]
    DataDir {
        /// The parent directory.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The process could not be started.
    #[error("cannot start {bin}: {source}")]
    Spawn {
        /// The binary.
        bin: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The process did not say where it listens.
    #[error("{bin} did not start: {detail} (its log: {log})")]
    Start {
        /// The binary.
        bin: PathBuf,
        /// What went wrong.
        detail: String,
        /// Its stderr, kept in the data directory.
        log: PathBuf,
    },
    /// A `/proc` file could not be read or parsed.
    #[error("cannot read {path}: {detail}")]
    Proc {
        /// The file.
        path: String,
        /// What went wrong.
        detail: String,
    },
}

/// Settings the load needs of a server it starts.
#[derive(Clone, Debug)]
pub struct Spawn {
    /// The binary.
    pub bin: PathBuf,
    /// Where the temporary data directory goes.
    pub data_parent: PathBuf,
    /// Concurrent games (sizes the connection and game caps).
    pub games: usize,
    /// Frames per second (and burst) each connection may send.
    pub rate: u32,
    /// The pad length the games ask for (raises `--max-pad-len` if needed).
    pub pad_len: u32,
    /// Serve `/metrics` too (on a free loopback port, with a token of its
    /// own), for the heap figure ([`MetricsProbe`]).
    pub metrics: bool,
}

/// How long a read of `/metrics` may take.
const METRICS_WAIT: Duration = Duration::from_secs(10);

/// Where a server's `/metrics` is, and its token.
#[derive(Clone, Debug)]
pub struct MetricsProbe {
    /// The server's HTTP address.
    pub addr: SocketAddr,
    /// The bearer token `/metrics` asks for.
    pub token: String,
}

impl MetricsProbe {
    /// The server's `/metrics` text.
    fn scrape(&self) -> Result<String, ServerError> {
        let bad = |detail: String| ServerError::Proc {
            path: format!("http://{}/metrics", self.addr),
            detail,
        };
        let mut s =
            TcpStream::connect_timeout(&self.addr, METRICS_WAIT).map_err(|e| bad(e.to_string()))?;
        s.set_read_timeout(Some(METRICS_WAIT))
            .map_err(|e| bad(e.to_string()))?;
        write!(
            s,
            "GET /metrics HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
            self.addr, self.token
        )
        .map_err(|e| bad(e.to_string()))?;
        let mut text = String::new();
        s.read_to_string(&mut text)
            .map_err(|e| bad(e.to_string()))?;
        if !text.starts_with("HTTP/1.1 200") {
            return Err(bad(format!(
                "answered {:?}",
                text.lines().next().unwrap_or("nothing")
            )));
        }
        Ok(text)
    }

    /// The server's heap in use in KiB (its `hexveil_heap_allocated_bytes`,
    /// jemalloc's `stats.allocated`), or `None` if its metrics do not have
    /// it (a build without the gauge, or without jemalloc).
    pub fn heap_kib(&self) -> Result<Option<f64>, ServerError> {
        Ok(self
            .scrape()?
            .lines()
            .find_map(|l| l.strip_prefix("hexveil_heap_allocated_bytes "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|b| b / 1024.0))
    }

    /// The server's histogram `name` (e.g. `hexveil_adjudication_seconds`)
    /// as it stands, or `None` if its metrics do not have it.
    pub fn histogram(&self, name: &str) -> Result<Option<Buckets>, ServerError> {
        let prefix = format!("{name}_bucket{{le=\"");
        let buckets: Vec<(f64, u64)> = self
            .scrape()?
            .lines()
            .filter_map(|l| {
                let (le, count) = l.strip_prefix(&prefix)?.split_once("\"} ")?;
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().ok()?
                };
                Some((le, count.trim().parse().ok()?))
            })
            .collect();
        Ok((!buckets.is_empty()).then_some(Buckets(buckets)))
    }
}

/// A Prometheus histogram's cumulative buckets: (upper bound, count at or
/// below it), in increasing order.
#[derive(Clone, Debug, PartialEq)]
pub struct Buckets(pub Vec<(f64, u64)>);

impl Buckets {
    /// What was counted after `before` (an earlier reading of the same
    /// histogram).
    pub fn since(&self, before: &Buckets) -> Buckets {
        Buckets(
            self.0
                .iter()
                .map(|&(le, n)| {
                    let was = before.0.iter().find(|(l, _)| *l == le).map_or(0, |b| b.1);
                    (le, n.saturating_sub(was))
                })
                .collect(),
        )
    }

    /// Observations counted.
    pub fn count(&self) -> u64 {
        self.0.last().map_or(0, |b| b.1)
    }

    /// The upper bound of the bucket that holds quantile `q` (0 to 1):
    /// the quantile is at most this; `None` if nothing was counted.
    pub fn quantile_at_most(&self, q: f64) -> Option<f64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let wanted = (q * total as f64).ceil().max(1.0) as u64;
        self.0.iter().find(|b| b.1 >= wanted).map(|b| b.0)
    }
}

/// The `hexveil-server` binary beside this executable (a release build of
/// the workspace puts both in `target/release/`).
pub fn beside_me() -> Result<PathBuf, ServerError> {
    let exe = std::env::current_exe().map_err(|e| ServerError::Proc {
        path: "the current executable".into(),
        detail: e.to_string(),
    })?;
    let bin = exe
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!("hexveil-server{}", std::env::consts::EXE_SUFFIX));
    if bin.exists() {
        Ok(bin)
    } else {
        Err(ServerError::NoBinary(bin))
    }
}

/// A `hexveil-server` child process; killed when dropped.
pub struct ServerProcess {
    child: Child,
    /// Kept open so the server never writes to a closed pipe.
    _stdout: Option<BufReader<ChildStdout>>,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its certificate's fingerprint.
    pub fingerprint: Fingerprint,
    /// The data directory (removed when dropped).
    pub data_dir: TempDir,
    /// Its `/metrics`, if [`Spawn::metrics`] asked for it.
    pub metrics: Option<MetricsProbe>,
}

impl ServerProcess {
    /// The size of its SQLite WAL now, KiB (`None` if there is none): it
    /// starts over about every second under load; one that never does
    /// grows with every commit (issue 30).
    pub fn wal_kib(&self) -> Option<f64> {
        let wal = format!("{}-wal", hexveil_server::sqlite::DB_FILE);
        let len = std::fs::metadata(self.data_dir.path().join(wal))
            .ok()?
            .len();
        Some(len as f64 / 1024.0)
    }

    /// Starts the server on 127.0.0.1 (a free port) with a fresh data
    /// directory, its limits raised for the load: `games` games of two
    /// connections each from one address and `rate` frames a second per
    /// connection (a bot plays far faster than a person; the league's load
    /// is many slow games, and the limiter's cost does not depend on its
    /// setting). Returns once it printed its fingerprint and address.
    pub fn spawn(s: &Spawn) -> Result<ServerProcess, ServerError> {
        if !s.bin.exists() {
            return Err(ServerError::NoBinary(s.bin.clone()));
        }
        let data_dir = tempfile::Builder::new()
            .prefix("hexveil-load-")
            .tempdir_in(&s.data_parent)
            .map_err(|source| ServerError::DataDir {
                dir: s.data_parent.clone(),
                source,
            })?;
        let log = data_dir.path().join("server.log");
        let log_file = std::fs::File::create(&log).map_err(|source| ServerError::DataDir {
            dir: data_dir.path().to_owned(),
            source,
        })?;
        let conns = (2 * s.games + 64).max(4096);
        let games = (2 * s.games as u64 + 64).max(1024);
        let rate = s.rate.to_string();
        let mut cmd = Command::new(&s.bin);
        let token = if s.metrics {
            let token = metrics_token().map_err(|e| fail_early(&s.bin, &log, e))?;
            let file = data_dir.path().join("metrics-token");
            std::fs::write(&file, &token).map_err(|source| ServerError::DataDir {
                dir: data_dir.path().to_owned(),
                source,
            })?;
            cmd.args(["--http", "127.0.0.1:0"])
                .arg("--metrics-token-file")
                .arg(&file);
            Some(token)
        } else {
            None
        };
        cmd.arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(data_dir.path())
            .args(["--rate-per-second", &rate, "--rate-burst", &rate])
            .args(["--max-connections", &conns.to_string()])
            .args(["--max-connections-per-address", &conns.to_string()])
            // Every bot connects from 127.0.0.1: one address and network
            // (issue 31's shares) may take the whole server here.
            .args(["--max-connections-per-network", &conns.to_string()])
            .args(["--max-unfinished-games", &games.to_string()])
            .args(["--max-pending-games", &games.to_string()])
            .args(["--max-unfinished-games-per-address", &games.to_string()])
            .args(["--max-unfinished-games-per-network", &games.to_string()])
            // A player of several games (`--games-per-connection`) holds
            // them, and their connections while they open, with one key.
            .args(["--max-unfinished-games-per-key", &games.to_string()])
            .args(["--max-connections-per-key", &conns.to_string()])
            .args(["--max-pad-len", &s.pad_len.max(4096).to_string()])
            .env("RUST_LOG", "error")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file));
        let mut child = cmd.spawn().map_err(|source| ServerError::Spawn {
            bin: s.bin.clone(),
            source,
        })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let fail = |detail: String| ServerError::Start {
            bin: s.bin.clone(),
            detail,
            log: log.clone(),
        };
        // Read its first lines on a thread, so a server that hangs cannot.
        let (tx, rx) = mpsc::channel();
        let metrics = s.metrics;
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut lines = Vec::new();
            // fingerprint, listening, transcript-key, http.
            for _ in 0..if metrics { 4 } else { 2 } {
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => lines.push(line.trim().to_string()),
                }
            }
            let _ = tx.send((lines, r));
        });
        let (lines, reader) = match rx.recv_timeout(START_WAIT) {
            Ok(x) => x,
            Err(_) => {
                let _ = child.kill();
                return Err(fail(format!(
                    "it printed nothing within {} s",
                    START_WAIT.as_secs()
                )));
            }
        };
        let field = |i: usize, prefix: &str| -> Result<String, ServerError> {
            lines
                .get(i)
                .and_then(|l| l.strip_prefix(prefix))
                .map(|v| v.trim().to_string())
                .ok_or_else(|| fail(format!("expected `{prefix}...` on stdout, got {lines:?}")))
        };
        let parsed = (|| {
            let fingerprint: Fingerprint = field(0, "fingerprint ")?
                .parse()
                .map_err(|e| fail(format!("its fingerprint: {e}")))?;
            let addr: SocketAddr = field(1, "listening ")?
                .parse()
                .map_err(|e| fail(format!("its address: {e}")))?;
            let metrics = match token {
                Some(token) => Some(MetricsProbe {
                    addr: field(3, "http ")?
                        .parse()
                        .map_err(|e| fail(format!("its HTTP address: {e}")))?,
                    token,
                }),
                None => None,
            };
            Ok((fingerprint, addr, metrics))
        })();
        let (fingerprint, addr, metrics) = match parsed {
            Ok(x) => x,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        Ok(ServerProcess {
            child,
            _stdout: Some(reader),
            addr,
            fingerprint,
            data_dir,
            metrics,
        })
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh token for the server's `/metrics` (32 hex digits).
fn metrics_token() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| "no random bytes for the metrics token".to_string())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A start that failed before the process ran.
fn fail_early(bin: &Path, log: &Path, detail: String) -> ServerError {
    ServerError::Start {
        bin: bin.to_owned(),
        detail,
        log: log.to_owned(),
    }
}

/// CPU seconds (user + system, all threads) a process has used, from
/// `/proc/<pid>/stat` (`"self"` for this one).
pub fn cpu_secs(pid: &str) -> Result<f64, ServerError> {
    let path = format!("/proc/{pid}/stat");
    let bad = |detail: &str| ServerError::Proc {
        path: path.clone(),
        detail: detail.to_string(),
    };
    let text = std::fs::read_to_string(&path).map_err(|e| bad(&e.to_string()))?;
    // The command name (field 2) is in parentheses and may hold spaces:
    // fields 3 on follow the last ')'. utime and stime are fields 14, 15.
    let rest = text
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| bad("no ')' after the command name"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| -> Result<u64, ServerError> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| bad("utime or stime missing"))
    };
    Ok((tick(11)? + tick(12)?) as f64 / USER_HZ)
}

/// Resident memory (VmRSS) of a process in KiB, from `/proc/<pid>/status`.
pub fn rss_kib(pid: &str) -> Result<u64, ServerError> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).map_err(|e| ServerError::Proc {
        path: path.clone(),
        detail: e.to_string(),
    })?;
    text.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or(ServerError::Proc {
            path,
            detail: "no VmRSS line".into(),
        })
}

/// The machine's load average line (`/proc/loadavg`), if readable.
pub fn loadavg() -> Option<String> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 30: the server's own p99, read from two readings of its
    // histogram: only what was counted between them, and the bound of the
    // bucket that holds the quantile.
    #[test]
    fn a_histogram_read_twice_gives_the_quantiles_between() {
        let inf = f64::INFINITY;
        let before = Buckets(vec![(0.001, 10), (0.002, 10), (0.004, 10), (inf, 10)]);
        let after = Buckets(vec![(0.001, 60), (0.002, 158), (0.004, 159), (inf, 160)]);
        let d = after.since(&before);
        assert_eq!(
            d,
            Buckets(vec![(0.001, 50), (0.002, 148), (0.004, 149), (inf, 150)])
        );
        assert_eq!(d.count(), 150);
        assert_eq!(d.quantile_at_most(0.5), Some(0.002));
        assert_eq!(d.quantile_at_most(0.99), Some(0.004));
        assert_eq!(d.quantile_at_most(1.0), Some(inf));
        assert_eq!(before.since(&before).quantile_at_most(0.99), None);
    }

    #[test]
    fn reads_this_process() {
        assert!(cpu_secs("self").unwrap() >= 0.0);
        assert!(rss_kib("self").unwrap() > 0);
        assert!(cpu_secs("0").is_err());
    }
}
