//! hexveil-net: what both ends of a hexveil connection share, and nothing
//! else (DESIGN section 5, G6). The server (`hexveil-server`) and the
//! player's client (`hexveil`) both depend on it; it holds no storage, no
//! HTTP and no game logic, so a player auditing what runs on his machine,
//! or someone writing a second client, reads this crate and not the
//! server.
//!
//! - [`tls`], [`endpoint`]: rustls (ring only, TLS 1.3, ALPN `hexveil/1`)
//!   and quinn configuration of both ends; the server's self-signed
//!   certificate and the client's fingerprint pinning.
//! - [`frame`], [`rate`], [`wire`]: length-prefixed frames with a hard
//!   maximum and timeouts, a token bucket, and the transport-level postcard
//!   messages with their limits.
//! - [`login`]: the Ed25519 login challenge bound to the TLS session.
//! - [`new_game`]: the request for a real game and its limits.
//! - [`durable_file`]: crash-safe writes of small files (keys, secrets,
//!   certificates, transcripts).

pub mod durable_file;
pub mod endpoint;
pub mod frame;
pub mod login;
pub mod new_game;
pub mod rate;
pub mod tls;
pub mod wire;
