//! The summary of a run: JSON (`--json`) or text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::floor::{CryptoFloor, EchoFloor, SqliteFloor};
use crate::server::Buckets;

/// Latency percentiles, in microseconds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Latency {
    /// Actions measured.
    pub count: u64,
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Slowest.
    pub max: u64,
}

impl Latency {
    /// The percentiles of a histogram of microseconds.
    pub fn of(h: &Histogram<u64>) -> Latency {
        Latency {
            count: h.len(),
            p50: h.value_at_quantile(0.5),
            p99: h.value_at_quantile(0.99),
            max: h.max(),
        }
    }
}

/// The floor measured in the same run.
#[derive(Clone, Debug, Serialize)]
pub struct Floor {
    /// Ed25519 and SHA-256 of an action's signed bytes.
    pub crypto: CryptoFloor,
    /// A bare quinn echo.
    pub echo: EchoFloor,
    /// A bare durable SQLite commit.
    pub sqlite: SqliteFloor,
}

/// The load against the floor.
#[derive(Clone, Debug, Serialize)]
pub struct Ratios {
    /// Server CPU per action over one verify + one sign + one SHA-256
    /// (issue 16's goal: at most 1.5).
    pub server_cpu_per_action_over_crypto_floor: Option<f64>,
    /// Actions per second over bare echo round trips per second.
    pub actions_per_sec_over_echo_round_trips_per_sec: f64,
    /// Log entries of the actions (action to ruling) appended per second
    /// over bare durable commits per second: above 1, entries share
    /// commits; near 1 with one commit per entry, the store bounds the run.
    pub entries_per_sec_over_sqlite_commits_per_sec: f64,
}

/// Everything a run measured. Times in microseconds unless named
/// otherwise; memory in KiB; `null` where it could not be measured (a
/// server reached by `--connect` without `--server-pid`).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Concurrent games.
    pub games: usize,
    /// Seconds asked for.
    pub secs: f64,
    /// The mix of moves.
    pub mix: String,
    /// Entries per pad epoch.
    pub pad_len: u32,
    /// Whether side B held a Daisy Chain.
    pub daisy_chains: bool,
    /// `--rate`: actions a second asked for at most (`null`: as fast as
    /// the bots go).
    pub rate: Option<f64>,
    /// The server binary started, or the address reached.
    pub server: String,
    /// Actions ruled while driving (refused ones not counted).
    pub actions: u64,
    /// Actions ruled, by kind (`move`, `mine_step`, `end_phase`).
    pub actions_by_kind: BTreeMap<String, u64>,
    /// Seconds from the first action to the last ruling.
    pub drive_secs: f64,
    /// Adjudicated actions per second.
    pub actions_per_sec: f64,
    /// From the signed action out to its ruling back at the actor.
    pub latency_us: Latency,
    /// The same, by kind.
    pub latency_us_by_kind: BTreeMap<String, Latency>,
    /// Log entries per action (the action, openings, pad entries, rolls,
    /// the ruling), by kind.
    pub entries_per_action: BTreeMap<String, f64>,
    /// Length of an action's signed bytes (the crypto floor's message).
    pub action_signed_len: usize,
    /// Server CPU seconds (user + system) while driving.
    pub server_cpu_secs: Option<f64>,
    /// Server CPU per ruled action.
    pub server_cpu_us_per_action: Option<f64>,
    /// This tool's own CPU (the bots' signing, checking and decoding) per
    /// ruled action: it shares the machine with the server.
    pub load_tool_cpu_us_per_action: Option<f64>,
    /// The server's own time on each player's payload during the drive
    /// (its ruling and every effect, the durable commit included), from
    /// its `hexveil_adjudication_seconds`: the latency without the bots'
    /// part (their signing, checking, and waiting for their core) or the
    /// network's. `None` for `--connect`.
    pub server_adjudication: Option<ServerLatency>,
    /// The started server's SQLite WAL at the end of the drive, KiB: it
    /// starts over about every second under load; a WAL that never does
    /// grows with every commit (issue 30). `None` for `--connect`.
    pub server_wal_kib_end: Option<f64>,
    /// Server resident memory with no game open.
    pub server_rss_kib_none: Option<u64>,
    /// Server resident memory with the games open and idle.
    pub server_rss_kib_idle: Option<u64>,
    /// Games open while idle.
    pub idle_games: usize,
    /// (idle - none) / idle games.
    pub server_rss_kib_per_idle_game: Option<f64>,
    /// With `--memory-split`: KiB a bare logged-in connection adds.
    pub server_rss_kib_per_connection: Option<f64>,
    /// With `--memory-split`: KiB a game adds once its connections are
    /// closed (the game left open on the server).
    pub server_rss_kib_per_game_without_connections: Option<f64>,
    /// With `--memory-split`, from the server's heap in use (its
    /// `hexveil_heap_allocated_bytes`; `None` if it does not report it):
    /// KiB an idle game with its two connections adds.
    pub server_heap_kib_per_idle_game: Option<f64>,
    /// The same: KiB a bare logged-in connection adds.
    pub server_heap_kib_per_connection: Option<f64>,
    /// The same: KiB a game adds once its connections are closed.
    pub server_heap_kib_per_game_without_connections: Option<f64>,
    /// With `--games-per-connection` G > 1: G.
    pub games_per_connection: Option<usize>,
    /// The same: KiB an idle game adds when each of its players holds G
    /// games on one connection.
    pub server_heap_kib_per_idle_game_shared: Option<f64>,
    /// Errors: every driver error, server error or game given up (must be
    /// 0).
    pub errors: u64,
    /// The first few errors.
    pub error_samples: Vec<String>,
    /// Actions the server refused, or ruled void after their dice.
    pub refusals: u64,
    /// The first few refusals.
    pub refusal_samples: Vec<String>,
    /// Games opened (seats taken, set up) during the run.
    pub games_opened: u64,
    /// Games played to their end (and the log closed).
    pub games_finished: u64,
    /// The floor, unless `--no-floor`.
    pub floor: Option<Floor>,
    /// The load over the floor.
    pub ratios: Option<Ratios>,
    /// `/proc/loadavg` when the run started.
    pub loadavg_start: Option<String>,
    /// `/proc/loadavg` when it ended.
    pub loadavg_end: Option<String>,
}

/// Quantiles of a server histogram of seconds, as the upper bounds of the
/// buckets (a factor of 1.41 apart) that hold them, in microseconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ServerLatency {
    /// Observations.
    pub count: u64,
    /// The median is at most this.
    pub p50_at_most_us: Option<f64>,
    /// The 99th percentile is at most this.
    pub p99_at_most_us: Option<f64>,
}

impl ServerLatency {
    /// From a histogram's buckets (seconds).
    pub fn of(b: &Buckets) -> ServerLatency {
        let us = |q| b.quantile_at_most(q).map(|s| s * 1e6);
        ServerLatency {
            count: b.count(),
            p50_at_most_us: us(0.5),
            p99_at_most_us: us(0.99),
        }
    }
}

fn opt(v: Option<f64>, unit: &str) -> String {
    v.map_or("n/a".to_string(), |v| format!("{v:.1} {unit}"))
}

fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

impl Summary {
    /// The summary as text.
    pub fn text(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "hexveil-load: {} games, mix {}, pad {}{}, {:.1} s against {}",
            self.games,
            self.mix,
            self.pad_len,
            if self.daisy_chains {
                ", B holds a Daisy Chain"
            } else {
                ""
            },
            self.drive_secs,
            self.server
        );
        let kinds: Vec<String> = self
            .actions_by_kind
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(
            t,
            "actions     {} ({}): {:.0} a second",
            self.actions,
            kinds.join(", "),
            self.actions_per_sec
        );
        let l = &self.latency_us;
        let _ = writeln!(
            t,
            "latency     p50 {} p99 {} max {}",
            ms(l.p50),
            ms(l.p99),
            ms(l.max)
        );
        for (k, l) in &self.latency_us_by_kind {
            let entries = self.entries_per_action.get(k).copied().unwrap_or(0.0);
            let _ = writeln!(
                t,
                "  {k:<10} p50 {} p99 {} max {} ({:.1} log entries each)",
                ms(l.p50),
                ms(l.p99),
                ms(l.max),
                entries
            );
        }
        let _ = writeln!(
            t,
            "server CPU  {} an action (this tool: {})",
            opt(self.server_cpu_us_per_action, "us"),
            opt(self.load_tool_cpu_us_per_action, "us")
        );
        if let Some(a) = &self.server_adjudication {
            let at_most =
                |v: Option<f64>| v.map_or("n/a".into(), |us| format!("<= {}", ms(us as u64)));
            let _ = writeln!(
                t,
                "server      its own time on a payload (ruling and commit): p50 {} p99 {} ({} payloads)",
                at_most(a.p50_at_most_us),
                at_most(a.p99_at_most_us),
                a.count
            );
        }
        if let Some(wal) = self.server_wal_kib_end {
            let _ = writeln!(t, "store       the WAL {wal:.0} KiB at the end");
        }
        if let (Some(c), Some(g)) = (
            self.server_rss_kib_per_connection,
            self.server_rss_kib_per_game_without_connections,
        ) {
            let _ = writeln!(
                t,
                "server RSS  {c:.1} KiB a bare connection, {g:.1} KiB a game without its connections"
            );
        }
        if let (Some(i), Some(c), Some(g)) = (
            self.server_heap_kib_per_idle_game,
            self.server_heap_kib_per_connection,
            self.server_heap_kib_per_game_without_connections,
        ) {
            let _ = writeln!(
                t,
                "server heap {i:.1} KiB an idle game, {c:.1} KiB a bare connection, {g:.1} KiB a game without its connections"
            );
        }
        if let (Some(n), Some(s)) = (
            self.games_per_connection,
            self.server_heap_kib_per_idle_game_shared,
        ) {
            let _ = writeln!(
                t,
                "server heap {s:.1} KiB an idle game, {n} games on each player's one connection"
            );
        }
        let _ = writeln!(
            t,
            "server RSS  {} a live game ({} idle games: {} KiB, none: {} KiB)",
            opt(self.server_rss_kib_per_idle_game, "KiB"),
            self.idle_games,
            self.server_rss_kib_idle
                .map_or("n/a".into(), |v| v.to_string()),
            self.server_rss_kib_none
                .map_or("n/a".into(), |v| v.to_string()),
        );
        let _ = writeln!(
            t,
            "games       {} opened, {} finished",
            self.games_opened, self.games_finished
        );
        let _ = writeln!(
            t,
            "errors      {}   refusals {}",
            self.errors, self.refusals
        );
        for e in &self.error_samples {
            let _ = writeln!(t, "  error: {e}");
        }
        for r in &self.refusal_samples {
            let _ = writeln!(t, "  refused: {r}");
        }
        if let Some(f) = &self.floor {
            let c = &f.crypto;
            let _ = writeln!(
                t,
                "floor       Ed25519 verify {:.1} us + sign {:.1} us + SHA-256 {:.2} us of {} B = {:.1} us an action",
                c.ed25519_verify_us, c.ed25519_sign_us, c.sha256_us, c.message_len, c.per_action_us
            );
            let e = &f.echo;
            let _ = writeln!(
                t,
                "            quinn echo {:.0} round trips a second ({} round trips over {} connections, {} B out, {} B back)",
                e.round_trips_per_sec, e.round_trips, e.connections, e.request_len, e.reply_len
            );
            let s = &f.sqlite;
            let _ = writeln!(
                t,
                "            SQLite {:.0} durable commits a second ({} B rows), one commit p50 {} p99 {}",
                s.commits_per_sec,
                s.row_len,
                ms(s.commit_p50_us),
                ms(s.commit_p99_us)
            );
        }
        if let Some(r) = &self.ratios {
            let _ = writeln!(
                t,
                "ratios      server CPU an action / crypto floor {}; actions/s / echo round trips/s {:.3}; action entries/s / SQLite commits/s {:.2}",
                r.server_cpu_per_action_over_crypto_floor
                    .map_or("n/a".into(), |v| format!("{v:.1}x")),
                r.actions_per_sec_over_echo_round_trips_per_sec,
                r.entries_per_sec_over_sqlite_commits_per_sec
            );
        }
        let _ = writeln!(
            t,
            "loadavg     {} at the start, {} at the end",
            self.loadavg_start.as_deref().unwrap_or("n/a"),
            self.loadavg_end.as_deref().unwrap_or("n/a")
        );
        t
    }
}
