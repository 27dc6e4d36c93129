//! hexveil-server: the QUIC shell around the sans-IO game session (DESIGN
//! section 5, G6).
//!
//! - [`allocator`]: jemalloc's settings (the binary's allocator).
//! - `tls`, `endpoint`, `frame`, `rate`, `wire`, `login`, `durable_file`:
//!   what both ends of a connection share, in [`hexveil_net`] (TLS and
//!   QUIC settings, frames, the wire messages and their limits, the login
//!   challenge, crash-safe file writes); named here by those short paths.
//! - [`store`], [`sqlite`], [`postgres`]: durable storage behind the
//!   [`store::GameStore`] trait (SQLite on one machine, PostgreSQL shared by
//!   the nodes of a league).
//! - [`session`]: the [`session::GameSession`] trait a game plugs in through.
//! - [`lobby`], [`connection`], [`server`]: games as tasks, connections, the
//!   accept loop.
//! - [`live_game`]: the protocol's live game session plugged in (glue).
//! - [`relay`]: a chat relay session for tests; not the game.
//! - [`secrets`]: the transcript key and pad master secret in the data
//!   directory.
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
pub mod http;
pub mod league;
pub mod live_game;
pub mod lobby;
pub mod metrics;
pub mod node_id;
pub mod postgres;
pub mod queue;
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

pub use server::{Server, ServerError};

// What both ends of a connection share lives in hexveil-net; the server's
// modules name it by these short paths (crate-private, not re-exported).
use hexveil_net::{durable_file, endpoint, frame, login, rate, tls, wire};
