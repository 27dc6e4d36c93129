//! Server settings: command-line flags (clap) over an optional TOML file
//! (flags win), and the log setup (tracing with `RUST_LOG`-style filters).
//!
//! TOML keys (all optional): `listen = "127.0.0.1:4433"`, `data_dir = "..."`,
//! `cert_names = ["game.example.org"]`, `max_frame = 262144`,
//! `rate_per_second = 50`, `rate_burst = 100`, `answer_timeout_secs = 600`,
//! `spectator_delay_secs = 0`, `login_timeout_secs = 10`,
//! `max_connections = 4096`, `max_connections_per_address = 64`,
//! `max_connections_per_key = 8`, `max_connections_per_network = 256`,
//! `idle_timeout_secs = 600`,
//! `max_unfinished_games_per_key = 16`, `max_unfinished_games = 1024`,
//! `max_unfinished_games_per_address = 32`,
//! `max_unfinished_games_per_network = 64`, `max_pending_games = 1024`,
//! `ipv4_network_prefix = 24`, `ipv6_address_prefix = 64`,
//! `ipv6_network_prefix = 48`, `roster = "league.toml"`,
//! `max_pad_len = 4096`, `unstarted_expiry_secs = 900`,
//! `finished_linger_secs = 30`, `rebuilds_per_second = 1`,
//! `rebuild_burst = 6`, `partial_message_timeout_secs = 30`,
//! `max_partial_bytes_per_connection = 8388608`,
//! `max_partial_bytes = 67108864`, `http = "127.0.0.1:8080"` (the web
//! view, off without it), `http_max_streams = 256`,
//! `http_max_connections = 1024`, `http_max_connections_per_address = 32`,
//! `http_max_connections_per_network = 128`, `log_format = "json"`,
//! `store = "postgres://..."` (SQLite in the data directory without it),
//! `store_file = "/etc/hexveil/store-url"` (the URL read from a file, so
//! that no password is on a command line), `node_id = "..."`,
//! `lease_secs = 10`, `advertise = "host:port"`.
//!
//! Every value that is out of range is refused with an error naming the
//! setting and the value.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;

use crate::roster::{Roster, RosterError};
use crate::shares::{Grouping, GroupingError};
use serde::Deserialize;
use thiserror::Error;

use crate::frame::{FrameLimits, MAX_FRAME_LEN};
use crate::lobby::GameSettings;
use crate::rate::RateLimit;
use crate::wire::MAX_GAME_MESSAGE_LEN;
use hexveil_net::new_game::MAX_PAD_LEN;

/// Default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:4433";
/// Default data directory.
pub const DEFAULT_DATA_DIR: &str = "hexveil-data";
/// Default per-game answer timeout: 10 minutes.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(600);
/// Default limit on simultaneous connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// Default time allowed from connection to completed login.
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(10);
/// Default limit on simultaneous connections from one IP address.
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 64;
/// Default cap on simultaneous connections from one network (an IPv4
/// /24, an IPv6 /48): filling the 4,096 takes 16 networks (issue 31).
pub const DEFAULT_MAX_CONNECTIONS_PER_NETWORK: usize = 256;
/// Default limit on simultaneous logged-in connections of one key.
pub const DEFAULT_MAX_CONNECTIONS_PER_KEY: usize = 8;
/// Default wait for the next frame of a logged-in connection before it is
/// closed and its slot freed: 10 minutes (clients ping every
/// `hexveil::driver::PING_INTERVAL`).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// Default time a game message sent in parts has to be complete.
pub const DEFAULT_PARTIAL_MESSAGE_TIMEOUT: Duration = Duration::from_secs(30);
/// Default bytes of incomplete game messages all connections may hold.
pub const DEFAULT_MAX_PARTIAL_BYTES: usize = 64 * 1024 * 1024;

/// Command-line flags of `hexveil-server`.
#[derive(Debug, Parser, Default)]
#[command(
    name = "hexveil-server",
    about = "hexveil authoritative game server",
    version,
    after_help = defaults_help()
)]
pub struct Cli {
    /// TOML configuration file; flags override its values.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// UDP address to listen on (port 0 picks a free one).
    #[arg(long)]
    pub listen: Option<SocketAddr>,
    /// Directory for the database and the TLS certificate.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Extra DNS name or IP for a newly generated certificate (repeatable).
    #[arg(long = "cert-name")]
    pub cert_names: Vec<String>,
    /// Largest accepted frame in bytes (at most 262144).
    #[arg(long)]
    pub max_frame: Option<u32>,
    /// Frames per second each connection may send, sustained.
    #[arg(long)]
    pub rate_per_second: Option<u32>,
    /// Frames a connection may send in a burst.
    #[arg(long)]
    pub rate_burst: Option<u32>,
    /// Seconds a player has to answer when the game waits for him.
    #[arg(long)]
    pub answer_timeout_secs: Option<u64>,
    /// Seconds by which spectators see the game late.
    #[arg(long)]
    pub spectator_delay_secs: Option<u64>,
    /// Seconds allowed from connecting to a completed login.
    #[arg(long)]
    pub login_timeout_secs: Option<u64>,
    /// Most simultaneous connections; more are refused at the handshake.
    #[arg(long)]
    pub max_connections: Option<usize>,
    /// Most simultaneous connections from one IP address.
    #[arg(long)]
    pub max_connections_per_address: Option<usize>,
    /// Most simultaneous logged-in connections of one key.
    #[arg(long)]
    pub max_connections_per_key: Option<usize>,
    /// Most simultaneous connections from one network (an IPv4 /24, an
    /// IPv6 /48 by default: `--ipv4-network-prefix`, ...).
    #[arg(long)]
    pub max_connections_per_network: Option<usize>,
    /// Most unfinished games created from one address (an IPv4 address,
    /// an IPv6 /64 by default), whatever the keys.
    #[arg(long)]
    pub max_unfinished_games_per_address: Option<u64>,
    /// Most unfinished games created from one network.
    #[arg(long)]
    pub max_unfinished_games_per_network: Option<u64>,
    /// Most pending games (seats not both taken yet) on the server.
    #[arg(long)]
    pub max_pending_games: Option<u64>,
    /// Bits of an IPv4 client's network (24: a /24; 32: each address is
    /// its own network).
    #[arg(long)]
    pub ipv4_network_prefix: Option<u8>,
    /// Bits of an IPv6 client's address (64: the /64 every host gets).
    #[arg(long)]
    pub ipv6_address_prefix: Option<u8>,
    /// Bits of an IPv6 client's network (48: a site).
    #[arg(long)]
    pub ipv6_network_prefix: Option<u8>,
    /// A league's roster (TOML, `[[player]]` tables of `key` and `name`):
    /// only its keys may create games.
    #[arg(long)]
    pub roster: Option<PathBuf>,
    /// Seconds a logged-in connection may send no frame before it is closed
    /// and its slot freed.
    #[arg(long)]
    pub idle_timeout_secs: Option<u64>,
    /// Most unfinished games one key may have created.
    #[arg(long)]
    pub max_unfinished_games_per_key: Option<u64>,
    /// Most unfinished games on the server.
    #[arg(long)]
    pub max_unfinished_games: Option<u64>,
    /// Longest pad a new game may ask for (entries; at most 65536).
    #[arg(long)]
    pub max_pad_len: Option<u32>,
    /// Seconds after its creation a game whose seats were never both taken
    /// expires.
    #[arg(long)]
    pub unstarted_expiry_secs: Option<u64>,
    /// Seconds a finished game stays in memory after its last viewer left.
    #[arg(long)]
    pub finished_linger_secs: Option<u64>,
    /// Finished games one key may have rebuilt from their logs per second,
    /// sustained.
    #[arg(long)]
    pub rebuilds_per_second: Option<u32>,
    /// Finished games one key may have rebuilt in a burst.
    #[arg(long)]
    pub rebuild_burst: Option<u32>,
    /// Seconds a game message sent in parts has to be complete.
    #[arg(long)]
    pub partial_message_timeout_secs: Option<u64>,
    /// Bytes of an incomplete game message one connection may hold.
    #[arg(long)]
    pub max_partial_bytes_per_connection: Option<usize>,
    /// Bytes of incomplete game messages all connections may hold together.
    #[arg(long)]
    pub max_partial_bytes: Option<usize>,
    /// TCP address of the web view (game list, live pages, transcripts,
    /// replays, `/metrics`); off unless given (port 0 picks a free one).
    #[arg(long)]
    pub http: Option<SocketAddr>,
    /// Most simultaneous live-page event streams of the web view; more are
    /// refused with 503.
    #[arg(long)]
    pub http_max_streams: Option<usize>,
    /// Most simultaneous TCP connections of the web view; more are
    /// answered 503 and closed.
    #[arg(long)]
    pub http_max_connections: Option<usize>,
    /// Most simultaneous web view connections from one address (an IPv4
    /// address, an IPv6 /64); more are answered 503 and closed.
    #[arg(long)]
    pub http_max_connections_per_address: Option<usize>,
    /// Most simultaneous web view connections from one network (an IPv4
    /// /24, an IPv6 /48); more are answered 503 and closed.
    #[arg(long)]
    pub http_max_connections_per_network: Option<usize>,
    /// A file holding the token `/metrics` asks for (`Authorization:
    /// Bearer TOKEN`). Without one, the web view does not serve `/metrics`:
    /// its counters move within seconds of a move, before the spectator
    /// delay lets anyone see it (issue 24).
    #[arg(long, env = "HEXVEIL_METRICS_TOKEN_FILE")]
    pub metrics_token_file: Option<PathBuf>,
    /// Log lines as `text` (default) or `json` (one object a line).
    #[arg(long, value_enum)]
    pub log_format: Option<LogFormat>,
    /// Where games are stored: `sqlite` (the default: a file in the data
    /// directory) or a PostgreSQL URL `postgres://user@host:port/db` that
    /// the nodes of a league share (docs/DEPLOYMENT.md).
    #[arg(long, env = "HEXVEIL_STORE", hide_env_values = true)]
    pub store: Option<String>,
    /// A file holding the `--store` URL (its first line), so that a
    /// password in it is on no command line; or give the URL without a
    /// password and keep it in PostgreSQL's password file (`PGPASSFILE`,
    /// else `~/.pgpass`) or `PGPASSWORD`.
    #[arg(long, conflicts_with = "store")]
    pub store_file: Option<PathBuf>,
    /// This node's id among the nodes sharing a PostgreSQL store: letters,
    /// digits, `.`, `_`, `-` (default: the id kept in the data directory's
    /// `node-id` file, made on the first start). A node refuses to start
    /// while another live node has its id.
    #[arg(long)]
    pub node_id: Option<String>,
    /// Seconds a node's lease on a game lasts without renewal: a node that
    /// dies loses its games to the other nodes after this (PostgreSQL
    /// store only; default 10).
    #[arg(long)]
    pub lease_secs: Option<u64>,
    /// The address clients of this node connect to, which the other nodes'
    /// lobbies give for the games it serves (default: the bound address).
    #[arg(long)]
    pub advertise: Option<String>,
}

/// Where games are stored ([`Cli::store`]).
#[derive(Clone, Default, PartialEq, Eq)]
pub enum StoreChoice {
    /// SQLite in the data directory.
    #[default]
    Sqlite,
    /// PostgreSQL at this URL.
    Postgres(String),
}

impl std::fmt::Debug for StoreChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreChoice::Sqlite => f.write_str("Sqlite"),
            // Never print the URL: it may hold a password.
            StoreChoice::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}

impl StoreChoice {
    /// `sqlite`, or a `postgres://` / `postgresql://` URL.
    pub fn parse(value: &str) -> Result<StoreChoice, ConfigError> {
        if value == "sqlite" {
            Ok(StoreChoice::Sqlite)
        } else if value.starts_with("postgres://") || value.starts_with("postgresql://") {
            Ok(StoreChoice::Postgres(value.to_owned()))
        } else {
            Err(ConfigError::BadStore)
        }
    }
}

/// How log lines are written to stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object a line (tracing-subscriber's JSON format), for log
    /// collectors.
    Json,
}

/// The TOML configuration file.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// See [`Cli::listen`].
    pub listen: Option<SocketAddr>,
    /// See [`Cli::data_dir`].
    pub data_dir: Option<PathBuf>,
    /// See [`Cli::cert_names`].
    #[serde(default)]
    pub cert_names: Vec<String>,
    /// See [`Cli::metrics_token_file`].
    pub metrics_token_file: Option<PathBuf>,
    /// See [`Cli::max_frame`].
    pub max_frame: Option<u32>,
    /// See [`Cli::rate_per_second`].
    pub rate_per_second: Option<u32>,
    /// See [`Cli::rate_burst`].
    pub rate_burst: Option<u32>,
    /// See [`Cli::answer_timeout_secs`].
    pub answer_timeout_secs: Option<u64>,
    /// See [`Cli::spectator_delay_secs`].
    pub spectator_delay_secs: Option<u64>,
    /// See [`Cli::login_timeout_secs`].
    pub login_timeout_secs: Option<u64>,
    /// See [`Cli::max_connections`].
    pub max_connections: Option<usize>,
    /// See [`Cli::max_connections_per_address`].
    pub max_connections_per_address: Option<usize>,
    /// See [`Cli::max_connections_per_key`].
    pub max_connections_per_key: Option<usize>,
    /// See [`Cli::max_connections_per_network`].
    pub max_connections_per_network: Option<usize>,
    /// See [`Cli::max_unfinished_games_per_address`].
    pub max_unfinished_games_per_address: Option<u64>,
    /// See [`Cli::max_unfinished_games_per_network`].
    pub max_unfinished_games_per_network: Option<u64>,
    /// See [`Cli::max_pending_games`].
    pub max_pending_games: Option<u64>,
    /// See [`Cli::ipv4_network_prefix`].
    pub ipv4_network_prefix: Option<u8>,
    /// See [`Cli::ipv6_address_prefix`].
    pub ipv6_address_prefix: Option<u8>,
    /// See [`Cli::ipv6_network_prefix`].
    pub ipv6_network_prefix: Option<u8>,
    /// See [`Cli::roster`].
    pub roster: Option<PathBuf>,
    /// See [`Cli::idle_timeout_secs`].
    pub idle_timeout_secs: Option<u64>,
    /// See [`Cli::max_unfinished_games_per_key`].
    pub max_unfinished_games_per_key: Option<u64>,
    /// See [`Cli::max_unfinished_games`].
    pub max_unfinished_games: Option<u64>,
    /// See [`Cli::max_pad_len`].
    pub max_pad_len: Option<u32>,
    /// See [`Cli::unstarted_expiry_secs`].
    pub unstarted_expiry_secs: Option<u64>,
    /// See [`Cli::finished_linger_secs`].
    pub finished_linger_secs: Option<u64>,
    /// See [`Cli::rebuilds_per_second`].
    pub rebuilds_per_second: Option<u32>,
    /// See [`Cli::rebuild_burst`].
    pub rebuild_burst: Option<u32>,
    /// See [`Cli::partial_message_timeout_secs`].
    pub partial_message_timeout_secs: Option<u64>,
    /// See [`Cli::max_partial_bytes_per_connection`].
    pub max_partial_bytes_per_connection: Option<usize>,
    /// See [`Cli::max_partial_bytes`].
    pub max_partial_bytes: Option<usize>,
    /// See [`Cli::http`].
    pub http: Option<SocketAddr>,
    /// See [`Cli::http_max_streams`].
    pub http_max_streams: Option<usize>,
    /// See [`Cli::http_max_connections`].
    pub http_max_connections: Option<usize>,
    /// See [`Cli::http_max_connections_per_address`].
    pub http_max_connections_per_address: Option<usize>,
    /// See [`Cli::http_max_connections_per_network`].
    pub http_max_connections_per_network: Option<usize>,
    /// See [`Cli::log_format`].
    pub log_format: Option<LogFormat>,
    /// See [`Cli::store`].
    pub store: Option<String>,
    /// See [`Cli::store_file`].
    pub store_file: Option<PathBuf>,
    /// See [`Cli::node_id`].
    pub node_id: Option<String>,
    /// See [`Cli::lease_secs`].
    pub lease_secs: Option<u64>,
    /// See [`Cli::advertise`].
    pub advertise: Option<String>,
}

/// Why the configuration is unusable.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The address prefixes are not a grouping (issue 31).
    #[error(transparent)]
    Grouping(GroupingError),
    /// The roster file is refused.
    #[error(transparent)]
    Roster(RosterError),
    /// The file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid TOML for this schema.
    #[error("config file {path} is invalid: {detail}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        detail: String,
    },
    /// `store` is neither `sqlite` nor a PostgreSQL URL.
    #[error("store must be `sqlite` or a URL starting with postgres:// or postgresql://")]
    BadStore,
    /// The metrics token file holds no usable token.
    #[error("metrics token file {path}: it must hold one token of at least 16 printable characters, no spaces")]
    BadToken {
        /// The file.
        path: PathBuf,
    },
    /// Both `store` and `store_file` are given.
    #[error("give store or store_file, not both")]
    TwoStores,
    /// `node_id` is not a valid node id.
    #[error("node_id {id:?}: {why}")]
    BadNodeId {
        /// The id given.
        id: String,
        /// What is wrong.
        why: String,
    },
    /// A value is out of range.
    #[error("{setting} = {value} is out of range: {why}")]
    OutOfRange {
        /// The setting.
        setting: &'static str,
        /// The value given.
        value: u64,
        /// The allowed range.
        why: &'static str,
    },
}

/// Everything the server needs to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSettings {
    /// UDP listen address.
    pub listen: SocketAddr,
    /// Data directory (database, certificate).
    pub data_dir: PathBuf,
    /// Extra names for a newly generated certificate.
    pub cert_names: Vec<String>,
    /// Frame limits per connection.
    pub frame: FrameLimits,
    /// Per-connection rate limit.
    pub rate_limit: RateLimit,
    /// Per-game answer timeout.
    pub answer_timeout: Duration,
    /// Spectator delay.
    pub spectator_delay: Duration,
    /// Time from connection to completed login.
    pub login_timeout: Duration,
    /// Most simultaneous connections.
    pub max_connections: usize,
    /// Most simultaneous connections from one IP address.
    pub max_connections_per_address: usize,
    /// Most simultaneous logged-in connections of one key.
    pub max_connections_per_key: usize,
    /// Most simultaneous connections from one network.
    pub max_connections_per_network: usize,
    /// How client addresses are grouped into addresses and networks for
    /// the fair shares (issue 31).
    pub grouping: Grouping,
    /// Only these keys may create games, if set.
    pub roster: Option<Roster>,
    /// Game caps, pad length, expiry, linger and rebuild rate (the answer
    /// timeout and spectator delay are taken from the fields above).
    pub games: GameSettings,
    /// Time a game message sent in parts has to be complete.
    pub partial_message_timeout: Duration,
    /// Bytes of an incomplete game message one connection may hold.
    pub max_partial_bytes_per_connection: usize,
    /// Bytes of incomplete game messages all connections may hold.
    pub max_partial_bytes: usize,
    /// The web view's TCP address, if it is on.
    pub http: Option<SocketAddr>,
    /// Most simultaneous event streams of the web view.
    pub http_max_streams: usize,
    /// Most simultaneous web view connections.
    pub http_max_connections: usize,
    /// Most simultaneous web view connections of one address.
    pub http_max_connections_per_address: usize,
    /// Most simultaneous web view connections of one network.
    pub http_max_connections_per_network: usize,
    /// The token `/metrics` asks for; `None`: not served.
    pub metrics_token: Option<String>,
    /// How log lines are written.
    pub log_format: LogFormat,
    /// Where games are stored.
    pub store: StoreChoice,
    /// This node's id (a PostgreSQL store shared by several nodes).
    pub node_id: Option<String>,
    /// How long a lease lasts without renewal.
    pub lease: Duration,
    /// The address this node's clients connect to, if not the bound one.
    pub advertise: Option<String>,
}

/// Default lease of a game to a node: 10 seconds.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// The defaults of every setting a flag or the configuration file can
/// change, read from [`ServerSettings::new`] (the one place they are set),
/// for `--help` (issue 27).
pub fn defaults_help() -> String {
    let s = ServerSettings::new(
        PathBuf::from(DEFAULT_DATA_DIR),
        DEFAULT_LISTEN.parse().expect("valid default address"),
    );
    let g = &s.games;
    let secs = |d: Duration| format!("{} s", d.as_secs());
    let rows: Vec<(&str, String)> = vec![
        ("--listen", s.listen.to_string()),
        ("--data-dir", s.data_dir.display().to_string()),
        ("--max-frame", format!("{} bytes", s.frame.max_len())),
        (
            "--rate-per-second",
            s.rate_limit.frames_per_second.to_string(),
        ),
        ("--rate-burst", s.rate_limit.burst.to_string()),
        ("--answer-timeout-secs", secs(s.answer_timeout)),
        ("--spectator-delay-secs", secs(s.spectator_delay)),
        ("--login-timeout-secs", secs(s.login_timeout)),
        ("--max-connections", s.max_connections.to_string()),
        (
            "--max-connections-per-address",
            s.max_connections_per_address.to_string(),
        ),
        (
            "--max-connections-per-key",
            s.max_connections_per_key.to_string(),
        ),
        (
            "--max-connections-per-network",
            s.max_connections_per_network.to_string(),
        ),
        ("--idle-timeout-secs", secs(s.frame.idle_timeout)),
        ("--max-unfinished-games-per-key", g.caps.per_key.to_string()),
        (
            "--max-unfinished-games-per-address",
            g.caps.per_address.to_string(),
        ),
        (
            "--max-unfinished-games-per-network",
            g.caps.per_network.to_string(),
        ),
        ("--max-unfinished-games", g.caps.total.to_string()),
        ("--max-pending-games", g.caps.pending.to_string()),
        (
            "--ipv4-network-prefix",
            crate::shares::DEFAULT_IPV4_NETWORK.to_string(),
        ),
        (
            "--ipv6-address-prefix",
            crate::shares::DEFAULT_IPV6_ADDRESS.to_string(),
        ),
        (
            "--ipv6-network-prefix",
            crate::shares::DEFAULT_IPV6_NETWORK.to_string(),
        ),
        ("--roster", "none: any key may create games".into()),
        ("--max-pad-len", g.max_pad_len.to_string()),
        ("--unstarted-expiry-secs", secs(g.unstarted_expiry)),
        ("--finished-linger-secs", secs(g.finished_linger)),
        (
            "--rebuilds-per-second",
            g.rebuild_rate.frames_per_second.to_string(),
        ),
        ("--rebuild-burst", g.rebuild_rate.burst.to_string()),
        (
            "--partial-message-timeout-secs",
            secs(s.partial_message_timeout),
        ),
        (
            "--max-partial-bytes-per-connection",
            s.max_partial_bytes_per_connection.to_string(),
        ),
        ("--max-partial-bytes", s.max_partial_bytes.to_string()),
        ("--http", "off".into()),
        ("--http-max-streams", s.http_max_streams.to_string()),
        ("--http-max-connections", s.http_max_connections.to_string()),
        (
            "--http-max-connections-per-address",
            s.http_max_connections_per_address.to_string(),
        ),
        (
            "--http-max-connections-per-network",
            s.http_max_connections_per_network.to_string(),
        ),
        (
            "--metrics-token-file",
            "none: /metrics is not served".into(),
        ),
        ("--log-format", "text".into()),
        ("--store", "sqlite (a file in the data directory)".into()),
        ("--node-id", "the data directory's node-id file".into()),
        ("--lease-secs", secs(s.lease)),
        ("--advertise", "the bound address".into()),
    ];
    let width = rows.iter().map(|(f, _)| f.len()).max().unwrap_or(0);
    let mut out =
        String::from("Defaults (a flag overrides the --config file, which overrides these):\n");
    for (flag, value) in rows {
        out.push_str(&format!("  {flag:width$}  {value}\n"));
    }
    out
}

/// [`Cli::lease_secs`] as a duration, if in range.
fn lease_of(v: u64) -> Result<Duration, ConfigError> {
    if v == 0 || v > 3600 {
        return Err(ConfigError::OutOfRange {
            setting: "lease_secs",
            value: v,
            why: "must be between 1 and 3600",
        });
    }
    Ok(Duration::from_secs(v))
}

/// Default limit on the web view's simultaneous event streams.
pub const DEFAULT_HTTP_MAX_STREAMS: usize = 256;
/// Default most simultaneous web view connections.
pub const DEFAULT_HTTP_MAX_CONNECTIONS: usize = 1024;
/// Default most simultaneous web view connections of one address (issue
/// 31): a browser opens about 6 per site, so a few browsers behind one
/// address fit, and 32 addresses are needed to fill the total.
pub const DEFAULT_HTTP_MAX_CONNECTIONS_PER_ADDRESS: usize = 32;
/// Default most simultaneous web view connections of one network (issue
/// 31): filling the total takes 8 networks.
pub const DEFAULT_HTTP_MAX_CONNECTIONS_PER_NETWORK: usize = 128;

impl ServerSettings {
    /// Defaults with the given data directory and listen address.
    pub fn new(data_dir: PathBuf, listen: SocketAddr) -> Self {
        ServerSettings {
            listen,
            data_dir,
            cert_names: Vec::new(),
            frame: {
                let mut frame = FrameLimits::default();
                frame.idle_timeout = DEFAULT_IDLE_TIMEOUT;
                frame
            },
            rate_limit: RateLimit::default(),
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            spectator_delay: Duration::ZERO,
            login_timeout: DEFAULT_LOGIN_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_address: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            max_connections_per_key: DEFAULT_MAX_CONNECTIONS_PER_KEY,
            max_connections_per_network: DEFAULT_MAX_CONNECTIONS_PER_NETWORK,
            grouping: Grouping::default(),
            roster: None,
            games: GameSettings::default(),
            partial_message_timeout: DEFAULT_PARTIAL_MESSAGE_TIMEOUT,
            max_partial_bytes_per_connection: MAX_GAME_MESSAGE_LEN,
            max_partial_bytes: DEFAULT_MAX_PARTIAL_BYTES,
            http: None,
            http_max_streams: DEFAULT_HTTP_MAX_STREAMS,
            http_max_connections: DEFAULT_HTTP_MAX_CONNECTIONS,
            http_max_connections_per_address: DEFAULT_HTTP_MAX_CONNECTIONS_PER_ADDRESS,
            http_max_connections_per_network: DEFAULT_HTTP_MAX_CONNECTIONS_PER_NETWORK,
            metrics_token: None,
            log_format: LogFormat::Text,
            store: StoreChoice::Sqlite,
            node_id: None,
            lease: DEFAULT_LEASE,
            advertise: None,
        }
    }

    /// The lobby's settings: [`ServerSettings::games`] with this answer
    /// timeout and spectator delay.
    pub fn game_settings(&self) -> GameSettings {
        GameSettings {
            answer_timeout: self.answer_timeout,
            spectator_delay: self.spectator_delay,
            ..self.games
        }
    }
}

impl FileConfig {
    /// Read and parse a TOML file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            detail: e.to_string(),
        })
    }
}

fn at_least_one(setting: &'static str, v: u64) -> Result<u64, ConfigError> {
    if v == 0 {
        return Err(ConfigError::OutOfRange {
            setting,
            value: 0,
            why: "must be at least 1",
        });
    }
    Ok(v)
}

fn non_zero(setting: &'static str, v: u32) -> Result<NonZeroU32, ConfigError> {
    NonZeroU32::new(v).ok_or(ConfigError::OutOfRange {
        setting,
        value: 0,
        why: "must be at least 1",
    })
}

impl Cli {
    /// Merge the file (if any) and the flags into settings; flags win.
    pub fn settings(&self) -> Result<ServerSettings, ConfigError> {
        let file = match &self.config {
            Some(p) => FileConfig::load(p)?,
            None => FileConfig::default(),
        };
        merge(self, file)
    }
}

/// Merge flags over a parsed file.
pub fn merge(cli: &Cli, file: FileConfig) -> Result<ServerSettings, ConfigError> {
    let listen = match cli.listen.or(file.listen) {
        Some(a) => a,
        None => DEFAULT_LISTEN.parse().expect("valid default address"),
    };
    let data_dir = cli
        .data_dir
        .clone()
        .or(file.data_dir)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR));
    let mut s = ServerSettings::new(data_dir, listen);
    s.cert_names = file.cert_names;
    for n in &cli.cert_names {
        if !s.cert_names.contains(n) {
            s.cert_names.push(n.clone());
        }
    }
    if let Some(max) = cli.max_frame.or(file.max_frame) {
        s.frame = FrameLimits::new(max, s.frame.idle_timeout, s.frame.transfer_timeout).ok_or(
            ConfigError::OutOfRange {
                setting: "max_frame",
                value: u64::from(max),
                why: "must be between 1 and 262144",
            },
        )?;
    }
    debug_assert!(s.frame.max_len() <= MAX_FRAME_LEN);
    if let Some(v) = cli.idle_timeout_secs.or(file.idle_timeout_secs) {
        if v == 0 {
            return Err(ConfigError::OutOfRange {
                setting: "idle_timeout_secs",
                value: v,
                why: "must be at least 1",
            });
        }
        s.frame.idle_timeout = Duration::from_secs(v);
    }
    let store_file = cli.store_file.clone().or(file.store_file);
    match (cli.store.as_ref().or(file.store.as_ref()), store_file) {
        (Some(_), Some(_)) => return Err(ConfigError::TwoStores),
        (Some(v), None) => s.store = StoreChoice::parse(v)?,
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|source| ConfigError::Read { path, source })?;
            s.store = StoreChoice::parse(text.lines().next().unwrap_or_default().trim())?;
        }
        (None, None) => {}
    }
    s.node_id = cli.node_id.clone().or(file.node_id);
    if let Some(id) = &s.node_id {
        crate::node_id::check(id).map_err(|why| ConfigError::BadNodeId {
            id: id.clone(),
            why,
        })?;
    }
    s.advertise = cli.advertise.clone().or(file.advertise);
    if let Some(v) = cli.lease_secs.or(file.lease_secs) {
        s.lease = lease_of(v)?;
    }
    if let Some(v) = cli.rate_per_second.or(file.rate_per_second) {
        s.rate_limit.frames_per_second = non_zero("rate_per_second", v)?;
    }
    if let Some(v) = cli.rate_burst.or(file.rate_burst) {
        s.rate_limit.burst = non_zero("rate_burst", v)?;
    }
    if let Some(v) = cli.answer_timeout_secs.or(file.answer_timeout_secs) {
        if v == 0 {
            return Err(ConfigError::OutOfRange {
                setting: "answer_timeout_secs",
                value: v,
                why: "must be at least 1",
            });
        }
        s.answer_timeout = Duration::from_secs(v);
    }
    if let Some(v) = cli.spectator_delay_secs.or(file.spectator_delay_secs) {
        s.spectator_delay = Duration::from_secs(v);
    }
    if let Some(v) = cli.login_timeout_secs.or(file.login_timeout_secs) {
        if v == 0 {
            return Err(ConfigError::OutOfRange {
                setting: "login_timeout_secs",
                value: v,
                why: "must be at least 1",
            });
        }
        s.login_timeout = Duration::from_secs(v);
    }
    if let Some(v) = cli.max_connections.or(file.max_connections) {
        if v == 0 {
            return Err(ConfigError::OutOfRange {
                setting: "max_connections",
                value: 0,
                why: "must be at least 1",
            });
        }
        s.max_connections = v;
    }
    if let Some(v) = cli
        .max_connections_per_address
        .or(file.max_connections_per_address)
    {
        s.max_connections_per_address =
            at_least_one("max_connections_per_address", v as u64)? as usize;
    }
    if let Some(v) = cli.max_connections_per_key.or(file.max_connections_per_key) {
        s.max_connections_per_key = at_least_one("max_connections_per_key", v as u64)? as usize;
    }
    if let Some(v) = cli
        .max_unfinished_games_per_key
        .or(file.max_unfinished_games_per_key)
    {
        s.games.caps.per_key = at_least_one("max_unfinished_games_per_key", v)?;
    }
    if let Some(v) = cli.max_unfinished_games.or(file.max_unfinished_games) {
        s.games.caps.total = at_least_one("max_unfinished_games", v)?;
    }
    if let Some(v) = cli
        .max_connections_per_network
        .or(file.max_connections_per_network)
    {
        s.max_connections_per_network =
            at_least_one("max_connections_per_network", v as u64)? as usize;
    }
    if let Some(v) = cli
        .max_unfinished_games_per_address
        .or(file.max_unfinished_games_per_address)
    {
        s.games.caps.per_address = at_least_one("max_unfinished_games_per_address", v)?;
    }
    if let Some(v) = cli
        .max_unfinished_games_per_network
        .or(file.max_unfinished_games_per_network)
    {
        s.games.caps.per_network = at_least_one("max_unfinished_games_per_network", v)?;
    }
    if let Some(v) = cli.max_pending_games.or(file.max_pending_games) {
        s.games.caps.pending = at_least_one("max_pending_games", v)?;
    }
    let g = s.grouping;
    s.grouping = Grouping::new(
        cli.ipv4_network_prefix
            .or(file.ipv4_network_prefix)
            .unwrap_or(g.ipv4_network()),
        cli.ipv6_address_prefix
            .or(file.ipv6_address_prefix)
            .unwrap_or(g.ipv6_address()),
        cli.ipv6_network_prefix
            .or(file.ipv6_network_prefix)
            .unwrap_or(g.ipv6_network()),
    )
    .map_err(ConfigError::Grouping)?;
    if let Some(path) = cli.roster.as_ref().or(file.roster.as_ref()) {
        s.roster = Some(Roster::load(path).map_err(ConfigError::Roster)?);
    }
    if let Some(v) = cli.max_pad_len.or(file.max_pad_len) {
        if v == 0 || v > MAX_PAD_LEN {
            return Err(ConfigError::OutOfRange {
                setting: "max_pad_len",
                value: u64::from(v),
                why: "must be between 1 and 65536",
            });
        }
        s.games.max_pad_len = v;
    }
    if let Some(v) = cli.unstarted_expiry_secs.or(file.unstarted_expiry_secs) {
        s.games.unstarted_expiry = Duration::from_secs(at_least_one("unstarted_expiry_secs", v)?);
    }
    if let Some(v) = cli.finished_linger_secs.or(file.finished_linger_secs) {
        s.games.finished_linger = Duration::from_secs(v);
    }
    if let Some(v) = cli.rebuilds_per_second.or(file.rebuilds_per_second) {
        s.games.rebuild_rate.frames_per_second = non_zero("rebuilds_per_second", v)?;
    }
    if let Some(v) = cli.rebuild_burst.or(file.rebuild_burst) {
        s.games.rebuild_rate.burst = non_zero("rebuild_burst", v)?;
    }
    if let Some(v) = cli
        .partial_message_timeout_secs
        .or(file.partial_message_timeout_secs)
    {
        s.partial_message_timeout =
            Duration::from_secs(at_least_one("partial_message_timeout_secs", v)?);
    }
    if let Some(v) = cli
        .max_partial_bytes_per_connection
        .or(file.max_partial_bytes_per_connection)
    {
        if v == 0 || v > MAX_GAME_MESSAGE_LEN {
            return Err(ConfigError::OutOfRange {
                setting: "max_partial_bytes_per_connection",
                value: v as u64,
                why: "must be between 1 and 8388608",
            });
        }
        s.max_partial_bytes_per_connection = v;
    }
    if let Some(v) = cli.max_partial_bytes.or(file.max_partial_bytes) {
        s.max_partial_bytes = at_least_one("max_partial_bytes", v as u64)? as usize;
    }
    s.http = cli.http.or(file.http);
    if let Some(v) = cli.http_max_streams.or(file.http_max_streams) {
        s.http_max_streams = at_least_one("http_max_streams", v as u64)? as usize;
    }
    if let Some(v) = cli.http_max_connections.or(file.http_max_connections) {
        s.http_max_connections = at_least_one("http_max_connections", v as u64)? as usize;
    }
    if let Some(v) = cli
        .http_max_connections_per_address
        .or(file.http_max_connections_per_address)
    {
        s.http_max_connections_per_address =
            at_least_one("http_max_connections_per_address", v as u64)? as usize;
    }
    if let Some(v) = cli
        .http_max_connections_per_network
        .or(file.http_max_connections_per_network)
    {
        s.http_max_connections_per_network =
            at_least_one("http_max_connections_per_network", v as u64)? as usize;
    }
    if let Some(path) = cli.metrics_token_file.clone().or(file.metrics_token_file) {
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let token = text.trim();
        if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ConfigError::BadToken { path });
        }
        s.metrics_token = Some(token.to_string());
    }
    s.log_format = cli.log_format.or(file.log_format).unwrap_or_default();
    Ok(s)
}

/// Set up logging to stderr in `format`; the filter comes from `RUST_LOG`
/// (default `info`). Calling it twice is harmless.
pub fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only on a terminal: a log written to a file or a
    // journal gets none (issue 27).
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_names_every_flags_default_and_the_version() {
        // Issue 27: an operator reads the defaults in --help, from the same
        // settings the server starts with.
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        let cmd = Cli::command();
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if ["help", "version", "config", "cert-name", "store-file"].contains(&long) {
                continue;
            }
            let flag = format!("--{long}");
            assert!(
                help.lines()
                    .skip_while(|l| !l.starts_with("Defaults"))
                    .any(|l| l.trim_start().starts_with(&format!("{flag} "))),
                "no default for {flag} in:\n{help}"
            );
        }
        assert!(help.contains("--answer-timeout-secs"), "{help}");
        assert!(help.contains("600 s"), "{help}");
        assert_eq!(cmd.get_version(), Some(env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn flags_override_file() {
        let file: FileConfig = toml::from_str(
            r#"
            listen = "127.0.0.1:9000"
            data_dir = "/from/file"
            max_frame = 1000
            rate_per_second = 7
            spectator_delay_secs = 30
            "#,
        )
        .unwrap();
        let cli = Cli::try_parse_from([
            "hexveil-server",
            "--listen",
            "127.0.0.1:0",
            "--rate-per-second",
            "9",
        ])
        .unwrap();
        let s = merge(&cli, file).unwrap();
        assert_eq!(s.listen, "127.0.0.1:0".parse().unwrap());
        assert_eq!(s.data_dir, PathBuf::from("/from/file"));
        assert_eq!(s.frame.max_len(), 1000);
        assert_eq!(s.rate_limit.frames_per_second.get(), 9);
        assert_eq!(s.spectator_delay, Duration::from_secs(30));
    }

    // Issue 13: `--store` (or `store` in the file) picks PostgreSQL; SQLite
    // stays the default; anything else is refused; the URL (it may hold a
    // password) is never printed.
    #[test]
    fn store_is_sqlite_by_default_or_a_postgres_url() {
        let none = Cli::try_parse_from(["hexveil-server"]).unwrap();
        assert_eq!(
            merge(&none, FileConfig::default()).unwrap().store,
            StoreChoice::Sqlite
        );
        let file: FileConfig =
            toml::from_str(r#"store = "postgres://u:secret@db/league""#).unwrap();
        let s = merge(&none, file).unwrap();
        assert_eq!(
            s.store,
            StoreChoice::Postgres("postgres://u:secret@db/league".into())
        );
        assert!(!format!("{s:?}").contains("secret"));
        let cli = Cli::try_parse_from(["hexveil-server", "--store", "mysql://x"]).unwrap();
        assert!(matches!(
            merge(&cli, FileConfig::default()),
            Err(ConfigError::BadStore)
        ));
        // Issue 25: the URL from a file (no password on a command line),
        // never together with --store; node ids are checked.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store-url");
        std::fs::write(&path, "postgres://u:secret@db/league\n").unwrap();
        let cli = Cli::try_parse_from(["hexveil-server", "--store-file", path.to_str().unwrap()])
            .unwrap();
        assert_eq!(
            merge(&cli, FileConfig::default()).unwrap().store,
            StoreChoice::Postgres("postgres://u:secret@db/league".into())
        );
        let file: FileConfig = toml::from_str(r#"store = "sqlite""#).unwrap();
        assert!(matches!(merge(&cli, file), Err(ConfigError::TwoStores)));
        let cli = Cli::try_parse_from(["hexveil-server", "--node-id", "a b"]).unwrap();
        let e = merge(&cli, FileConfig::default()).unwrap_err().to_string();
        assert!(e.contains("node_id \"a b\""), "{e}");
    }

    #[test]
    fn bad_values_rejected() {
        let cli = Cli::try_parse_from(["hexveil-server", "--max-frame", "300000"]).unwrap();
        assert!(matches!(
            merge(&cli, FileConfig::default()),
            Err(ConfigError::OutOfRange {
                setting: "max_frame",
                ..
            })
        ));
        assert!(toml::from_str::<FileConfig>("bogus = 1").is_err());
    }

    // G6 (issue 10 items 8-11): the limits come from flags or the file,
    // and a bad value is refused with an error naming it.
    #[test]
    fn limits_are_settings_and_bad_ones_are_named() {
        let file: FileConfig = toml::from_str(
            r#"
            max_connections_per_address = 3
            max_connections_per_key = 2
            idle_timeout_secs = 60
            max_unfinished_games_per_key = 4
            max_unfinished_games = 40
            max_pad_len = 1024
            unstarted_expiry_secs = 3600
            finished_linger_secs = 0
            rebuilds_per_second = 2
            rebuild_burst = 3
            partial_message_timeout_secs = 5
            max_partial_bytes_per_connection = 100000
            max_partial_bytes = 1000000
            http = "127.0.0.1:8080"
            http_max_streams = 12
            log_format = "json"
            "#,
        )
        .unwrap();
        let s = merge(&Cli::default(), file).unwrap();
        assert_eq!(s.max_connections_per_address, 3);
        assert_eq!(s.max_connections_per_key, 2);
        assert_eq!(s.frame.idle_timeout, Duration::from_secs(60));
        let g = s.game_settings();
        assert_eq!((g.caps.per_key, g.caps.total), (4, 40));
        assert_eq!(g.max_pad_len, 1024);
        assert_eq!(g.unstarted_expiry, Duration::from_secs(3600));
        assert_eq!(g.finished_linger, Duration::ZERO);
        assert_eq!(g.rebuild_rate.frames_per_second.get(), 2);
        assert_eq!(g.rebuild_rate.burst.get(), 3);
        assert_eq!(s.partial_message_timeout, Duration::from_secs(5));
        assert_eq!(s.max_partial_bytes_per_connection, 100_000);
        assert_eq!(s.max_partial_bytes, 1_000_000);
        assert_eq!(s.http, Some("127.0.0.1:8080".parse().unwrap()));
        assert_eq!(s.http_max_streams, 12);
        assert_eq!(s.log_format, LogFormat::Json);
        assert_eq!(
            merge(&Cli::default(), FileConfig::default()).unwrap().http,
            None
        );
        for (flag, value, setting) in [
            ("--max-pad-len", "70000", "max_pad_len = 70000"),
            (
                "--max-connections-per-key",
                "0",
                "max_connections_per_key = 0",
            ),
            (
                "--max-partial-bytes-per-connection",
                "9000000",
                "max_partial_bytes_per_connection = 9000000",
            ),
            ("--max-unfinished-games", "0", "max_unfinished_games = 0"),
            ("--http-max-streams", "0", "http_max_streams = 0"),
            (
                "--http-max-connections-per-address",
                "0",
                "http_max_connections_per_address = 0",
            ),
        ] {
            let cli = Cli::try_parse_from(["hexveil-server", flag, value]).unwrap();
            let err = merge(&cli, FileConfig::default()).unwrap_err().to_string();
            assert!(err.starts_with(setting), "{err}");
        }
    }
}
