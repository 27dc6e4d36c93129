//! `hexveil-load`: drives N concurrent games of bot players against a real
//! `hexveil-server` over QUIC on loopback and measures it against the
//! hardware's floor, in the same run (issue 16; `BENCHMARKS.md` has the
//! commands and the figures).
//!
//! A run ([`run::run`]):
//!
//! 1. starts the release `hexveil-server` beside this executable (or
//!    `--server-bin`) with a temporary data directory on disk, or reaches
//!    one already running (`--connect`);
//! 2. reads the server's resident memory with no game, opens N games (two
//!    bot seats each, fresh keys and secrets, pads, the Secret dr and both
//!    setups answered by the players' machines), leaves them idle and reads
//!    it again: memory per live game;
//! 3. drives every game for S seconds as a stream of actions
//!    ([`game::Bot`]): side A's moves ([`game::Mix`]: untriggered moves,
//!    or steps among hexes side B may have mined, which need B's openings
//!    and beacon dice) and the ends of phases, turn after turn; a game that
//!    ends is replaced by a new one. Each action is timed from the signed
//!    action out to its ruling back at the actor; the server's CPU
//!    (`/proc/<pid>/stat`) is read before and after;
//! 4. measures the floor ([`floor`]): Ed25519 and SHA-256 of an action's
//!    bytes, a bare quinn echo with the game's TLS configuration, a bare
//!    durable SQLite commit; and prints the ratios.
//!
//! Every driver error, server error or game given up counts as an error;
//! the tool exits non-zero when there is any. The bots play through the
//! client's own driver ([`hexveil::driver`]), so each seat checks what it is
//! sent as a player would (signatures, heads, its own commitments: G1, G5).

pub mod cli;
pub mod floor;
pub mod game;
pub mod ks;
pub mod probe;
pub mod relay;
pub mod report;
pub mod run;
pub mod server;
pub mod soak;
