//! The operator's dials: Prometheus metrics (OpenMetrics text, served at
//! `GET /metrics` on the HTTP address, [`crate::http`]).
//!
//! One [`Metrics`] per server, shared (`Arc`) by the lobby and its game
//! tasks, the connections, the store and the web view. Every metric is a
//! counter, gauge or histogram updated where the thing happens; gauges that
//! are a count of something held elsewhere (live games) are read when the
//! metrics are encoded, that is only when someone scrapes them.
//!
//! | metric | type | what |
//! |---|---|---|
//! | `hexveil_live_games` | gauge | games with a task in memory |
//! | `hexveil_connections` | gauge | open QUIC connections |
//! | `hexveil_web_streams` | gauge | open server-sent event streams of the web view |
//! | `hexveil_heap_allocated_bytes` | gauge | heap the server holds (jemalloc's `stats.allocated`, read at each scrape); absent when jemalloc is not the allocator |
//! | `hexveil_actions_total{kind}` | counter | entries players submitted that the referee logged, by kind (`act` is a game action, declared with or without a nonce; `pad`, `setup`, `open`, `entry`, `entries` and `open_ahead` (a window of pad entries, alone or with openings, PROTOCOL.md 7.1), `transitions`, `concede`, `reveal`) |
//! | `hexveil_refusals_total{kind}` | counter | entries the referee refused (signed refusals), by the kind submitted; `payload`: a game payload the session could not take at all |
//! | `hexveil_adjudication_seconds` | histogram | time a game task spends on one player's payload: the ruling and every effect, storage included |
//! | `hexveil_store_commit_seconds` | histogram | time of one durable write to the store (a group commit of appends, a finish, a creation); its count is the number of transactions |
//! | `hexveil_store_appends_per_commit` | histogram | appends committed together by one group commit (one transaction, one `fsync`) |
//! | `hexveil_answer_timeouts_total` | counter | parties that did not answer in time and lost (G2) |
//! | `hexveil_games_created_total`, `hexveil_games_finished_total` | counter | games created, games finished |
//! | `hexveil_errors_total{kind}` | counter | errors sent to clients, by their code (`rate_limited`, `malformed`, ...); `storage`: a game stopped by a storage failure; `http_*`: web requests refused |

use std::f64::consts::SQRT_2;
use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::session::Observation;
use crate::wire::ErrorCode;

/// The content type of [`Metrics::encode`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The one label of the `{kind}` families.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Kind {
    /// The kind counted.
    pub kind: &'static str,
}

/// Every metric of one server (see the module's table).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    live_games: Gauge<i64, AtomicI64>,
    connections: Gauge<i64, AtomicI64>,
    web_streams: Gauge<i64, AtomicI64>,
    heap_allocated: Gauge<i64, AtomicI64>,
    actions: Family<Kind, Counter>,
    refusals: Family<Kind, Counter>,
    adjudication: Histogram,
    store_commit: Histogram,
    appends_per_commit: Histogram,
    answer_timeouts: Counter,
    games_created: Counter,
    games_finished: Counter,
    errors: Family<Kind, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut m = Metrics {
            registry: Registry::with_prefix("hexveil"),
            live_games: Gauge::default(),
            connections: Gauge::default(),
            web_streams: Gauge::default(),
            heap_allocated: Gauge::default(),
            actions: Family::default(),
            refusals: Family::default(),
            // 0.125 ms to about 6 s, a factor of 1.41 apart: fine
            // enough to read a p99 of a few milliseconds (issue 30).
            adjudication: Histogram::new(exponential_buckets(0.000_125, SQRT_2, 32)),
            // 0.05 ms to about 2 s, likewise.
            store_commit: Histogram::new(exponential_buckets(0.000_05, SQRT_2, 32)),
            // 1 to 2,048 appends.
            appends_per_commit: Histogram::new(exponential_buckets(1.0, 2.0, 12)),
            answer_timeouts: Counter::default(),
            games_created: Counter::default(),
            games_finished: Counter::default(),
            errors: Family::default(),
        };
        let r = &mut m.registry;
        r.register(
            "live_games",
            "Games with a task in memory",
            m.live_games.clone(),
        );
        r.register(
            "connections",
            "Open QUIC connections",
            m.connections.clone(),
        );
        r.register(
            "web_streams",
            "Open server-sent event streams of the web view",
            m.web_streams.clone(),
        );
        if crate::allocator::heap_allocated().is_some() {
            r.register(
                "heap_allocated_bytes",
                "Heap the server holds (jemalloc's stats.allocated)",
                m.heap_allocated.clone(),
            );
        }
        r.register(
            "actions",
            "Entries players submitted that the referee logged, by kind",
            m.actions.clone(),
        );
        r.register(
            "refusals",
            "Entries the referee refused, by the kind submitted (payload: not a protocol message)",
            m.refusals.clone(),
        );
        r.register(
            "adjudication_seconds",
            "Time a game task spends on one player's payload, storage included",
            m.adjudication.clone(),
        );
        r.register(
            "store_commit_seconds",
            "Time of one durable write to the store",
            m.store_commit.clone(),
        );
        r.register(
            "store_appends_per_commit",
            "Appends committed together by one group commit (one transaction, one fsync)",
            m.appends_per_commit.clone(),
        );
        r.register(
            "answer_timeouts",
            "Parties that did not answer in time and lost (G2)",
            m.answer_timeouts.clone(),
        );
        r.register("games_created", "Games created", m.games_created.clone());
        r.register("games_finished", "Games finished", m.games_finished.clone());
        r.register(
            "errors",
            "Errors sent to clients by code, storage failures, refused web requests",
            m.errors.clone(),
        );
        m
    }
}

/// An open connection or stream, counted in a gauge until dropped.
#[derive(Debug)]
pub struct Held(Gauge<i64, AtomicI64>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Metrics {
    /// A fresh set of metrics, all zero.
    pub fn new() -> Arc<Metrics> {
        Arc::new(Metrics::default())
    }

    /// Counts one open QUIC connection until the returned guard is dropped.
    pub fn connection(&self) -> Held {
        self.connections.inc();
        Held(self.connections.clone())
    }

    /// Counts one open web stream until the returned guard is dropped.
    pub fn web_stream(&self) -> Held {
        self.web_streams.inc();
        Held(self.web_streams.clone())
    }

    /// Records what a game session observed.
    pub fn observe(&self, o: &Observation) {
        match o {
            Observation::Accepted { kind } => {
                self.actions.get_or_create(&Kind { kind }).inc();
            }
            Observation::Refused { kind } => {
                self.refusals.get_or_create(&Kind { kind }).inc();
            }
            Observation::AnswerTimeout => {
                self.answer_timeouts.inc();
            }
        }
    }

    /// Counts a payload the session refused outright (not a protocol
    /// message it can take).
    pub fn payload_refused(&self) {
        self.refusals.get_or_create(&Kind { kind: "payload" }).inc();
    }

    /// Records how long a game task spent on one player's payload.
    pub fn adjudicated(&self, took: Duration) {
        self.adjudication.observe(took.as_secs_f64());
    }

    /// Records how long one durable write took.
    pub fn committed(&self, took: Duration) {
        self.store_commit.observe(took.as_secs_f64());
    }

    /// Records how many appends one group commit made durable together.
    pub fn group_committed(&self, appends: usize) {
        self.appends_per_commit.observe(appends as f64);
    }

    /// Counts a game created.
    pub fn game_created(&self) {
        self.games_created.inc();
    }

    /// Counts a game finished.
    pub fn game_finished(&self) {
        self.games_finished.inc();
    }

    /// Counts an error of `kind` (a word; see the module's table).
    pub fn error(&self, kind: &'static str) {
        self.errors.get_or_create(&Kind { kind }).inc();
    }

    /// Counts an error sent to a client, by its code.
    pub fn error_sent(&self, code: ErrorCode) {
        self.error(error_kind(code));
    }

    /// The metrics as OpenMetrics text ([`CONTENT_TYPE`]), with the live
    /// games gauge set to `live_games` and the heap gauge read first.
    pub fn encode(&self, live_games: usize) -> String {
        self.live_games
            .set(i64::try_from(live_games).unwrap_or(i64::MAX));
        if let Some(bytes) = crate::allocator::heap_allocated() {
            self.heap_allocated
                .set(i64::try_from(bytes).unwrap_or(i64::MAX));
        }
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// The label of an error code.
pub fn error_kind(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::UnsupportedVersion => "unsupported_version",
        ErrorCode::FrameTooLarge => "frame_too_large",
        ErrorCode::Malformed => "malformed",
        ErrorCode::UnexpectedMessage => "unexpected_message",
        ErrorCode::LoginFailed => "login_failed",
        ErrorCode::Timeout => "timeout",
        ErrorCode::RateLimited => "rate_limited",
        ErrorCode::UnknownGame => "unknown_game",
        ErrorCode::NotJoined => "not_joined",
        ErrorCode::SpectatorCannotAct => "spectator_cannot_act",
        ErrorCode::Rejected => "rejected",
        ErrorCode::Busy => "busy",
        ErrorCode::Internal => "internal",
        ErrorCode::NotFinished => "not_finished",
        ErrorCode::BadOffset => "bad_offset",
        ErrorCode::BadGameMessage => "bad_game_message",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_show_in_the_text() {
        let m = Metrics::new();
        let held = m.connection();
        m.observe(&Observation::Accepted { kind: "act" });
        m.observe(&Observation::Refused { kind: "act" });
        m.observe(&Observation::AnswerTimeout);
        m.error_sent(ErrorCode::RateLimited);
        m.adjudicated(Duration::from_millis(3));
        let text = m.encode(2);
        for line in [
            "hexveil_live_games 2",
            "hexveil_connections 1",
            "hexveil_actions_total{kind=\"act\"} 1",
            "hexveil_refusals_total{kind=\"act\"} 1",
            "hexveil_answer_timeouts_total 1",
            "hexveil_errors_total{kind=\"rate_limited\"} 1",
            "hexveil_adjudication_seconds_count 1",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
        drop(held);
        assert!(m.encode(0).lines().any(|l| l == "hexveil_connections 0"));
    }
}
