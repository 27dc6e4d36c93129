//! The command line.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use hexveil_net::tls::Fingerprint;
use thiserror::Error;

use crate::game::Mix;
use crate::probe::ProbeOptions;
use crate::run::{Options, Target};
use crate::server::{self, ServerError};
use crate::soak::SoakOptions;

/// Longest pad a game may ask for (`hexveil_net::new_game::MAX_PAD_LEN`).
pub const MAX_PAD_LEN: u32 = hexveil_net::new_game::MAX_PAD_LEN;

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
    /// Game Turns each game lasts (default: the example scenario's 5,
    /// about 190 actions). A long game (e.g. 60) lets a drive run with no
    /// game ending or starting in it: the CPU an action without the
    /// handshakes, pads and reveals of games (issue 30).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub turns: Option<u16>,
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
    /// Actions a second across all games at most (open loop: each action
    /// waits for its turn on one shared schedule), to measure latency
    /// below the peak rate; as fast as the bots go by default.
    #[arg(long, value_name = "ACTIONS_PER_SEC")]
    pub rate: Option<f64>,
    /// Before the drive, play game i of N through i x 180 / N actions
    /// (untimed), so that the games end one after another, not all at
    /// once as games opened together and driven at one rate do.
    #[arg(long)]
    pub stagger: bool,
    /// Instead of driving the games: split the memory of an idle game
    /// into its connections and the rest (2 x GAMES more connections that
    /// only log in, read and closed; then every game's connections closed,
    /// the games left open on the server, and read again).
    #[arg(long, conflicts_with_all = ["probe", "soak"])]
    pub memory_split: bool,
    /// With `--memory-split`: each pair of players holds this many games
    /// (one key a side for all of them); once every game's own
    /// connections are closed, each player logs in once and joins all its
    /// games on that one connection, and the memory an idle game costs
    /// that way is read (a player with several games shares one
    /// connection, PROTOCOL.md 10.4).
    #[arg(long, default_value_t = 1, requires = "memory_split", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub games_per_connection: u16,
    /// Instead of the load: this many games one after another, each
    /// timing one move with nothing to trigger, one step into an empty
    /// eligible hex, one into a hidden minefield that has no effect and one
    /// mine attack, at the actor and at a spectator; with `--delay-ms`, in
    /// round trips; the G3 timing test (Kolmogorov-Smirnov) on the two
    /// steps.
    #[arg(long, value_name = "GAMES", conflicts_with = "soak")]
    pub probe: Option<usize>,
    /// Instead of the load: play this many games to their end, --games at
    /// a time, verify every transcript, and compare the server's memory
    /// after with before.
    #[arg(long, value_name = "GAMES")]
    pub soak: Option<u64>,
    /// Seconds the soak leaves the server alone before reading its memory
    /// after (default: the server's default finished-game linger, and 3).
    #[arg(long, requires = "soak")]
    pub settle_secs: Option<f64>,
    /// Delay each datagram by this many milliseconds each way, through a
    /// user-space UDP relay between the bots and the server (a long
    /// network path on loopback).
    #[arg(long, default_value_t = 0.0)]
    pub delay_ms: f64,
    /// The --delay-ms is already on the path (`tc netem`, as
    /// `scripts/round-trips.sh` sets up): start no relay, only count round
    /// trips of it.
    #[arg(long, requires = "delay_ms")]
    pub delay_on_path: bool,
}

/// What a command line asks for.
#[derive(Debug)]
pub enum Mode {
    /// The load.
    Load(Options),
    /// The probe (`--probe`).
    Probe(ProbeOptions),
    /// The soak (`--soak`).
    Soak(SoakOptions),
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
    /// What these flags ask for: the load, the probe or the soak.
    pub fn mode(&self) -> Result<Mode, CliError> {
        let load = self.options()?;
        if let Some(trials) = self.probe {
            if trials == 0 {
                return Err(CliError::Range {
                    flag: "probe",
                    value: "0".into(),
                    why: "at least one game",
                });
            }
            return Ok(Mode::Probe(ProbeOptions {
                trials,
                delay: load.delay,
                relay: load.relay,
                target: load.target,
                pad_len: load.pad_len,
                pace: load.pace,
                progress: load.progress,
            }));
        }
        if let Some(total) = self.soak {
            if total == 0 {
                return Err(CliError::Range {
                    flag: "soak",
                    value: "0".into(),
                    why: "at least one game",
                });
            }
            return Ok(Mode::Soak(SoakOptions {
                games_total: total,
                concurrent: load.games.min(usize::try_from(total).unwrap_or(usize::MAX)),
                target: load.target,
                mix: load.mix,
                daisy_chains: load.daisy_chains,
                pad_len: load.pad_len,
                pace: load.pace,
                progress: load.progress,
                settle: match self.settle_secs {
                    None => crate::soak::SETTLE_AFTER,
                    Some(s) if s.is_finite() && (0.0..=3600.0).contains(&s) => {
                        std::time::Duration::from_secs_f64(s)
                    }
                    Some(s) => {
                        return Err(CliError::Range {
                            flag: "settle-secs",
                            value: s.to_string(),
                            why: "from 0 to 3600",
                        })
                    }
                },
            }));
        }
        Ok(Mode::Load(load))
    }

    /// The load these flags ask for.
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
        if let Some(r) = self.rate {
            if !(r.is_finite() && r > 0.0 && r <= 1e7) {
                return Err(CliError::Range {
                    flag: "rate",
                    value: r.to_string(),
                    why: "more than 0 and at most 10000000 actions a second",
                });
            }
        }
        if !(self.delay_ms.is_finite() && (0.0..=10_000.0).contains(&self.delay_ms)) {
            return Err(CliError::Range {
                flag: "delay-ms",
                value: self.delay_ms.to_string(),
                why: "from 0 to 10000",
            });
        }
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
            turns: self.turns,
            floor: !self.no_floor,
            pace: self.pace,
            progress: !self.quiet,
            delay: std::time::Duration::from_secs_f64(self.delay_ms / 1000.0),
            relay: self.delay_ms > 0.0 && !self.delay_on_path,
            rate: self.rate,
            memory_split: self.memory_split,
            games_per_connection: usize::from(self.games_per_connection),
            stagger: self.stagger,
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
        assert!(parse(&["--delay-ms=-1"])
            .unwrap_err()
            .contains("--delay-ms -1"));
        assert!(parse(&["--rate", "0"]).unwrap_err().contains("--rate 0"));
        assert_eq!(parse(&["--rate", "500"]).unwrap().rate, Some(500.0));
        let mode = |args: &[&str]| {
            let mut all = vec!["hexveil-load", "--server-bin", "/bin/true"];
            all.extend_from_slice(args);
            Cli::try_parse_from(all)
                .map_err(|e| e.to_string())
                .and_then(|c| c.mode().map_err(|e| e.to_string()))
        };
        assert!(mode(&["--probe", "0"]).unwrap_err().contains("--probe 0"));
        assert!(mode(&["--soak", "0"]).unwrap_err().contains("--soak 0"));
        assert!(mode(&["--probe", "3", "--soak", "3"]).is_err());
        assert!(matches!(
            mode(&["--probe", "3", "--delay-ms", "20"]),
            Ok(Mode::Probe(p)) if p.trials == 3 && p.delay.as_millis() == 20
        ));
        assert!(matches!(
            mode(&["--soak", "5", "--games", "20"]),
            Ok(Mode::Soak(s)) if s.games_total == 5 && s.concurrent == 5
        ));
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
