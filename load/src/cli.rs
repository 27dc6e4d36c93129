//! The command line.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use hexveil_server::tls::Fingerprint;
use thiserror::Error;

use crate::game::Mix;
use crate::run::{Options, Target};
use crate::server::{self, ServerError};

/// Longest pad a game may ask for (`hexveil_server::live_game::MAX_PAD_LEN`).
pub const MAX_PAD_LEN: u32 = hexveil_server::live_game::MAX_PAD_LEN;

/// `hexveil-load`'s flags.
#[derive(Debug, Parser)]
#[command(
    name = "hexveil-load",
    about = "Drive N concurrent games of bot players against a real hexveil-server over QUIC and measure it against the hardware's floor",
    after_help = "Example: cargo build --release -p hexveil-server -p hexveil-load && target/release/hexveil-load --games 20 --secs 5 --json"
)]
pub struct Cli {
    /// Concurrent games (two bot seats, two connections each).
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Seconds to drive them.
    #[arg(long, default_value_t = 5.0)]
    pub secs: f64,
    /// Print the summary as JSON on stdout (text otherwise).
    #[arg(long)]
    pub json: bool,
    /// The hexveil-server binary to start (default: the one beside this
    /// executable).
    #[arg(long, conflicts_with = "connect")]
    pub server_bin: Option<PathBuf>,
    /// A server already running, instead of starting one; it must allow
    /// 2 x GAMES connections from this address and --pace frames a second
    /// per connection.
    #[arg(long, requires = "fingerprint")]
    pub connect: Option<SocketAddr>,
    /// The --connect server's certificate fingerprint (hex), as it prints.
    #[arg(long, requires = "connect")]
    pub fingerprint: Option<String>,
    /// The --connect server's process id on this machine, for its CPU and
    /// memory (without it they are not measured).
    #[arg(long, requires = "connect")]
    pub server_pid: Option<u32>,
    /// Side A's moves: `untriggered` (nothing to open or roll), `mined`
    /// (every move a step among hexes side B may have mined: openings and
    /// beacon dice), or the percentage of moves that are such steps.
    #[arg(long, default_value = "untriggered")]
    pub mix: String,
    /// Entries per pad epoch in each game (1 to 65536).
    #[arg(long, default_value_t = hexveil_protocol::pad::DEFAULT_PAD_LEN)]
    pub pad_len: u32,
    /// Side B holds its Daisy Chain: every movement step also opens B's
    /// note for the opportunity (B28.531).
    #[arg(long)]
    pub daisy_chains: bool,
    /// Skip the floor (crypto, echo, SQLite) and the ratios.
    #[arg(long)]
    pub no_floor: bool,
    /// Frames a second each bot connection may send (and the started
    /// server's per-connection limit): high, so that the server, not the
    /// pace, is measured.
    #[arg(long, default_value_t = 100_000)]
    pub pace: u32,
    /// Directory for the server's temporary data directory and the SQLite
    /// floor (default: the system's temporary directory; use a disk, not
    /// tmpfs, to measure durable commits).
    #[arg(long)]
    pub data_parent: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// Flags that parse but make no run.
#[derive(Debug, Error)]
pub enum CliError {
    /// A value out of range.
    #[error("--{flag} {value}: {why}")]
    Range {
        /// The flag.
        flag: &'static str,
        /// The value given.
        value: String,
        /// The allowed range.
        why: &'static str,
    },
    /// `--mix` is not one of its forms.
    #[error("--mix: {0}")]
    Mix(String),
    /// `--fingerprint` is not a fingerprint.
    #[error("--fingerprint: {0}")]
    Fingerprint(String),
    /// No server binary to start.
    #[error(transparent)]
    Server(#[from] ServerError),
}

impl Cli {
    /// The run these flags ask for.
    pub fn options(&self) -> Result<Options, CliError> {
        if self.games == 0 {
            return Err(CliError::Range {
                flag: "games",
                value: "0".into(),
                why: "at least one game",
            });
        }
        if !(self.secs.is_finite() && self.secs > 0.0 && self.secs <= 86_400.0) {
            return Err(CliError::Range {
                flag: "secs",
                value: self.secs.to_string(),
                why: "more than 0 and at most 86400",
            });
        }
        if self.pad_len == 0 || self.pad_len > MAX_PAD_LEN {
            return Err(CliError::Range {
                flag: "pad-len",
                value: self.pad_len.to_string(),
                why: "from 1 to 65536",
            });
        }
        if self.pace == 0 {
            return Err(CliError::Range {
                flag: "pace",
                value: "0".into(),
                why: "at least 1 frame a second",
            });
        }
        let mix: Mix = self.mix.parse().map_err(CliError::Mix)?;
        let data_parent = self.data_parent.clone().unwrap_or_else(std::env::temp_dir);
        let target = match (&self.connect, &self.fingerprint) {
            (Some(addr), Some(fp)) => Target::Connect {
                addr: *addr,
                fingerprint: fp
                    .parse::<Fingerprint>()
                    .map_err(|e| CliError::Fingerprint(e.to_string()))?,
                pid: self.server_pid,
                data_parent,
            },
            _ => Target::Spawn {
                bin: match &self.server_bin {
                    Some(p) => p.clone(),
                    None => server::beside_me()?,
                },
                data_parent,
            },
        };
        Ok(Options {
            games: self.games,
            secs: self.secs,
            target,
            mix,
            pad_len: self.pad_len,
            daisy_chains: self.daisy_chains,
            floor: !self.no_floor,
            pace: self.pace,
            progress: !self.quiet,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let mut all = vec!["hexveil-load", "--server-bin", "/bin/true"];
        all.extend_from_slice(args);
        let cli = Cli::try_parse_from(all).map_err(|e| e.to_string())?;
        cli.options().map_err(|e| e.to_string())
    }

    #[test]
    fn bad_input_is_named() {
        assert!(parse(&["--games", "0"]).unwrap_err().contains("--games 0"));
        assert!(parse(&["--secs", "0"]).unwrap_err().contains("--secs 0"));
        assert!(parse(&["--secs=-1"]).unwrap_err().contains("--secs -1"));
        assert!(parse(&["--pad-len", "70000"])
            .unwrap_err()
            .contains("--pad-len 70000"));
        assert!(parse(&["--mix", "lots"]).unwrap_err().contains("`lots`"));
        assert!(parse(&["--pace", "0"]).unwrap_err().contains("--pace"));
        assert!(
            parse(&["--connect", "127.0.0.1:1"]).is_err(),
            "needs a fingerprint"
        );
        let fp = "ab".repeat(32);
        let err = Cli::try_parse_from([
            "hexveil-load",
            "--server-bin",
            "x",
            "--connect",
            "127.0.0.1:1",
            "--fingerprint",
            &fp,
        ]);
        assert!(err.is_err(), "--server-bin and --connect conflict");
        let cli = Cli::try_parse_from([
            "hexveil-load",
            "--connect",
            "127.0.0.1:1",
            "--fingerprint",
            "zz",
        ])
        .unwrap();
        assert!(cli
            .options()
            .unwrap_err()
            .to_string()
            .contains("--fingerprint"));
    }

    #[test]
    fn defaults() {
        let o = parse(&[]).unwrap();
        assert_eq!((o.games, o.secs, o.mix), (20, 5.0, Mix::Untriggered));
        assert_eq!(o.pad_len, hexveil_protocol::pad::DEFAULT_PAD_LEN);
        assert!(o.floor);
        let o = parse(&["--mix", "mined", "--no-floor", "--games", "3"]).unwrap();
        assert_eq!((o.games, o.mix, o.floor), (3, Mix::Mined, false));
    }
}
