//! The `hexveil` subcommands: keys, secrets on disk, the command language,
//! narration, scripted and interactive play over QUIC, verify, replay and
//! the demo.

pub mod board;
pub mod command;
#[cfg(feature = "demo")]
pub mod demo;
pub mod evidence;
pub mod keys;
pub mod minis_command;
pub mod page;
pub mod play;
pub mod prompt;
pub mod reconnect;
pub mod replay_page;
pub mod results;
pub mod script;
pub mod secrets;
pub mod setup_check;
pub mod svg;
pub mod transcript;
pub mod typed;

// Durable, owner-only file writes: the one implementation, which the
// server uses too.
use hexveil_net::durable_file as files;
