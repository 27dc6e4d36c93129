//! hexveil-server: the QUIC shell around the sans-IO game session (DESIGN
//! section 5, G6).
//!
//! - [`allocator`]: jemalloc's settings (the binary's allocator).
//! - [`tls`], [`endpoint`]: rustls (ring only, TLS 1.3, ALPN `hexveil/1`) and
//!   quinn configuration; self-signed certificate and fingerprint pinning.
//! - [`frame`], [`rate`], [`wire`]: length-prefixed frames with a hard
//!   maximum and timeouts, a per-connection token bucket, and the
//!   transport-level postcard messages.
//! - [`login`]: Ed25519 login bound to the TLS session.
//! - [`store`], [`sqlite`], [`postgres`]: durable storage behind the
//!   [`store::GameStore`] trait (SQLite on one machine, PostgreSQL shared by
//!   the nodes of a league).
//! - [`session`]: the [`session::GameSession`] trait a game plugs in through.
//! - [`lobby`], [`connection`], [`server`]: games as tasks, connections, the
//!   accept loop.
//! - [`live_game`]: the protocol's live game session plugged in (glue).
//! - [`relay`]: a chat relay session for tests; not the game.
//! - [`secrets`]: the transcript key and pad master secret in the data
//!   directory; [`durable_file`]: crash-safe writes of such files.
//! - [`config`]: flags, TOML file, logging.
//! - [`shares`]: fair shares of the server's totals per address and
//!   network (issue 31); [`roster`]: a league's roster of keys.
//! - [`node_id`]: a node's stable id and its data directory's lock.
//! - [`metrics`]: the operator's Prometheus metrics.
//! - [`league`]: finished games as league rows (verified transcripts).
//! - [`http`]: the web view (axum): game lists, live public pages over
//!   server-sent events, transcripts, replays, `/metrics`.

pub mod allocator;
pub mod at_rest;
pub mod config;
pub mod connection;
pub mod durable_file;
pub mod endpoint;
pub mod frame;
pub mod http;
pub mod league;
pub mod live_game;
pub mod lobby;
pub mod login;
pub mod metrics;
pub mod node_id;
pub mod postgres;
pub mod queue;
pub mod rate;
pub mod relay;
pub mod roster;
pub mod secrets;
pub mod server;
pub mod session;
pub mod shares;
pub mod sqlite;
pub mod store;
#[cfg(test)]
mod store_conformance;
pub mod tls;
pub mod wire;

pub use server::{Server, ServerError};
