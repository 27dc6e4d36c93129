//! This file holds the network subcommands with what they share (server
//! address and invite, client config, scenario loading, the seat loop
//! [`play_seat`] and its input and output, setup checks).
//!
//! The network subcommands: `create`, `list`, `join` (play one seat,
//! interactively or from a script) and `watch` (spectate), over QUIC with
//! the server pinned by its certificate fingerprint (DESIGN 5). Machine
//! prompts are answered by the protocol player inside the driver; only
//! `Prompt::Act` asks the human (or the script).

use super::command::{Language, Parsed, Parser};
use super::evidence::Proofs;
use super::prompt::{confirmed, Completions, CONCEDE_QUESTION};
use super::reconnect::{following, lost, Lifeline, Record};
use super::script::{Next, Script};
use super::secrets::{self, Origin};
use super::setup_check::{self, SetupCheck, Which};
use super::{files, keys, typed};
use hexveil::driver::{Client, DriverError, GameEvent, RemotePlayer, SeatSetup};
use hexveil::ending::Ending;
use hexveil::follow::{retryable, Follower};
use hexveil::presence::{unix_now_ms, wait_line};
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::standing_orders::{self, DaisyOrder};
use hexveil_asl::Side;
use hexveil_core::Ruleset;
use hexveil_net::new_game::NewGame;
use hexveil_net::tls::{Fingerprint, ServerTrust};
use hexveil_net::wire::GameId;
use hexveil_protocol::encoding::Digest;
use hexveil_protocol::evidence::Evidence;
use hexveil_protocol::identity::{Identity, PublicKey};
use hexveil_protocol::message::{Body, Genesis, Mode, Prompt};
use hexveil_protocol::player::Secrets;
use hexveil_protocol::witness::{Breach, Checked};
use hexveil_view::board::Board;
use hexveil_view::narrate::{Narrator, Reader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;
use tokio::sync::mpsc;

/// Why a network subcommand failed.
#[derive(Debug, Error)]
pub enum PlayError {
    /// The key file.
    #[error(transparent)]
    Key(#[from] keys::KeyError),
    /// A file.
    #[error(transparent)]
    File(#[from] files::FileError),
    /// The secrets directory.
    #[error(transparent)]
    Secrets(#[from] secrets::SecretsError),
    /// The connection, the seat or the spectator.
    #[error(transparent)]
    Driver(#[from] DriverError),
    /// Not a public key.
    #[error("--opponent {0}: not a public key (64 hex digits, as `hexveil whoami` prints it)")]
    PublicKey(String),
    /// Not a fingerprint.
    #[error("--fingerprint {0}: not 64 hex digits (the server prints its fingerprint at start)")]
    Fingerprint(String),
    /// Not a game id.
    #[error("--game {0}: not a game id (32 hex digits, as `create` and `list` print them)")]
    GameId(String),
    /// The scenario or a setup does not parse, or a Daisy order is wrong.
    #[error("{0}")]
    Input(String),
    /// Another connection with the same key took this seat, the server
    /// says (`Left`, unsigned: said as its word).
    #[error("the server says another client took this seat (side {0} of this game, the same key joined from elsewhere; its word, unsigned); this client stops here and sends nothing more. If that was not you, your key file is in someone else's hands, or the server is not playing fair")]
    Displaced(Side),
    /// Connecting or logging in failed.
    #[error("cannot connect to the server {server}: {why}")]
    Connect {
        /// The server as named.
        server: String,
        /// Why.
        why: String,
    },
    /// The connection to the server was lost while playing or watching.
    #[error("lost the connection to the server while {who} was waiting for it ({why}); this client stops. {what}")]
    Lost {
        /// Who was waiting.
        who: String,
        /// What the driver saw.
        why: String,
        /// What to do now.
        what: &'static str,
    },
    /// The server did what the client caught and could not play on with
    /// (issue 24): it showed two histories, signed a view the log does not
    /// give, or sent what no signature binds to the log.
    #[error("side {side} stops: {what}. {kept}")]
    Cheated {
        /// The seat.
        side: Side,
        /// What the server did, in words.
        what: String,
        /// Where its proof is kept.
        kept: String,
    },
    /// After a reconnection, the server sent a log entry the spectator had
    /// already shown with another head: the log it showed is not the log
    /// the server holds now (a fork, G5).
    #[error("the server's log changed under this spectator: entry #{seq} was shown with head {shown}, and is now sent with head {now}; the log shown and the log held differ (G5), keep this output as evidence")]
    Forked {
        /// The entry.
        seq: u64,
        /// Its head when it was shown.
        shown: Digest,
        /// Its head as sent after the reconnection.
        now: Digest,
    },
}

/// Where the server is and who we are. Each may also come from the
/// environment (`HEXVEIL_SERVER`, `HEXVEIL_FINGERPRINT`, `HEXVEIL_KEY`) or
/// the client config file (`HEXVEIL_CONFIG`, else
/// `~/.config/hexveil/config.toml`: `server` or `servers`, `fingerprint`,
/// `key`); an invite gives the server and its fingerprint (and the game).
/// A league of several nodes is named by all of them (a list) or by a
/// name with an address for each: a seat or spectator whose node goes
/// away finds its game on the others (issue 25).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Connect {
    /// The server, HOST:PORT: a host name or an address (e.g.
    /// games.example.org:4433 or 127.0.0.1:4433; port 4433 when none).
    /// The nodes of a league: repeat it, or separate them with commas.
    #[arg(long, env = "HEXVEIL_SERVER", value_delimiter = ',')]
    pub server: Vec<String>,
    /// The server's certificate fingerprint (hex), as it prints it at start.
    #[arg(long, env = "HEXVEIL_FINGERPRINT")]
    pub fingerprint: Option<String>,
    /// Your key file (`hexveil keygen`).
    #[arg(long, env = "HEXVEIL_KEY")]
    pub key: Option<PathBuf>,
    /// An invite, as `hexveil create` prints it
    /// (hexveil://HOST:PORT/GAME#FINGERPRINT): the server, its fingerprint
    /// and the game in one, instead of --server, --fingerprint and --game.
    #[arg(long)]
    pub invite: Option<String>,
}

/// The port a server listens on when an address names none.
pub const DEFAULT_PORT: u16 = 4433;

/// The scheme of an invite.
pub const INVITE_SCHEME: &str = "hexveil://";

/// An invite: where the game is and how to trust its server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invite {
    /// HOST:PORT, or the nodes of a league separated by commas.
    pub server: String,
    /// The game.
    pub game: GameId,
    /// The server's certificate fingerprint.
    pub fingerprint: Fingerprint,
}

impl Invite {
    /// `hexveil://HOST:PORT/GAME#FINGERPRINT`.
    pub fn parse(text: &str) -> Result<Invite, PlayError> {
        let bad = |why: &str| {
            PlayError::Input(format!(
                "--invite {text}: {why} (an invite reads {INVITE_SCHEME}HOST:PORT/GAME#FINGERPRINT, as `hexveil create` prints it)"
            ))
        };
        let rest = text
            .trim()
            .strip_prefix(INVITE_SCHEME)
            .ok_or_else(|| bad("it does not start with hexveil://"))?;
        let (place, fp) = rest
            .split_once('#')
            .ok_or_else(|| bad("it has no #FINGERPRINT"))?;
        let (server, game) = place
            .split_once('/')
            .ok_or_else(|| bad("it has no /GAME"))?;
        if server.is_empty() {
            return Err(bad("it names no server"));
        }
        Ok(Invite {
            server: server.to_string(),
            game: game
                .parse()
                .map_err(|_| bad("the game id is not 32 hex digits"))?,
            fingerprint: fp
                .parse()
                .map_err(|_| bad("the fingerprint is not 64 hex digits"))?,
        })
    }
}

impl std::fmt::Display for Invite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{INVITE_SCHEME}{}/{}#{}",
            self.server, self.game, self.fingerprint
        )
    }
}

/// The client config file: defaults for the connection options.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientConfig {
    /// HOST:PORT (the nodes of a league separated by commas).
    pub server: Option<String>,
    /// The nodes of a league, HOST:PORT each (with `server`, or instead).
    pub servers: Option<Vec<String>>,
    /// The server's fingerprint.
    pub fingerprint: Option<String>,
    /// The key file (a relative path is relative to the config file).
    pub key: Option<PathBuf>,
}

/// Where the client config file is: `HEXVEIL_CONFIG`, else
/// `$XDG_CONFIG_HOME/hexveil/config.toml`, else
/// `~/.config/hexveil/config.toml`.
pub fn config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HEXVEIL_CONFIG") {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("hexveil").join("config.toml"))
}

/// Reads the client config file, if there is one (a file named by
/// `HEXVEIL_CONFIG` must exist).
pub fn load_config() -> Result<ClientConfig, PlayError> {
    let Some(path) = config_path() else {
        return Ok(ClientConfig::default());
    };
    if !path.exists() && std::env::var_os("HEXVEIL_CONFIG").is_none() {
        return Ok(ClientConfig::default());
    }
    let text = files::read_text(&path)?;
    let mut config: ClientConfig = toml::from_str(&text).map_err(|e| {
        PlayError::Input(format!(
            "{}: not a hexveil client config (keys: server, servers, fingerprint, key): {e}",
            path.display()
        ))
    })?;
    if let (Some(key), Some(dir)) = (&config.key, path.parent()) {
        if key.is_relative() {
            config.key = Some(dir.join(key));
        }
    }
    Ok(config)
}

/// Everything needed to reach a server and log in, resolved.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The server as the user named it (HOST:PORT; a league's nodes
    /// separated by commas).
    pub server: String,
    /// The nodes named, HOST:PORT each (at least one resolves).
    pub nodes: Vec<String>,
    /// Its pinned fingerprint.
    pub fingerprint: Fingerprint,
    /// The key file.
    pub key: PathBuf,
    /// The game the invite names, if one was given.
    pub game: Option<GameId>,
}

/// `server` as HOST:PORT (a host name or an address; the default port
/// when none is given).
pub fn with_port(server: &str) -> String {
    let server = server.trim();
    if server.parse::<SocketAddr>().is_ok() {
        return server.to_string();
    }
    if server.parse::<std::net::IpAddr>().is_ok() || !server.contains(':') {
        if server.contains(':') {
            format!("[{server}]:{DEFAULT_PORT}")
        } else {
            format!("{server}:{DEFAULT_PORT}")
        }
    } else {
        server.to_string()
    }
}

/// The nodes of `servers` (each HOST:PORT, a host name or an address, a
/// list separated by commas), with the default port where none is given;
/// refused when none of them has an address.
pub async fn resolve_servers(servers: &str) -> Result<Vec<String>, PlayError> {
    let nodes: Vec<String> = servers
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(with_port)
        .collect();
    for n in &nodes {
        if !hexveil::follow::addresses(n).await.is_empty() {
            return Ok(nodes);
        }
    }
    Err(PlayError::Input(format!(
        "--server {servers}: cannot find this server (no address for {}); give HOST:PORT, a host name or an address",
        nodes.join(", ")
    )))
}

impl Connect {
    /// The server, its fingerprint, the key and the invite's game: from
    /// the options (or their environment variables), the invite, then the
    /// config file.
    pub async fn resolve(&self) -> Result<Resolved, PlayError> {
        let invite = self.invite.as_deref().map(Invite::parse).transpose()?;
        let config = load_config()?;
        let missing = |what: &str, flag: &str, env: &str| {
            PlayError::Input(format!(
                "no {what}: give {flag}, or --invite, or set {env} or `{}` in the client config file ({})",
                flag.trim_start_matches("--"),
                config_path().map_or("HEXVEIL_CONFIG".into(), |p| p.display().to_string())
            ))
        };
        // An invite names its server and fingerprint: they go together.
        let (server, fingerprint) = match &invite {
            Some(i) => (i.server.clone(), i.fingerprint),
            None => {
                let from_config = config
                    .server
                    .iter()
                    .cloned()
                    .chain(config.servers.iter().flatten().cloned())
                    .collect::<Vec<_>>()
                    .join(",");
                let server = Some(self.server.join(","))
                    .filter(|s| !s.trim().is_empty())
                    .or(Some(from_config).filter(|s| !s.trim().is_empty()))
                    .ok_or_else(|| missing("server", "--server", "HEXVEIL_SERVER"))?;
                let text = self
                    .fingerprint
                    .clone()
                    .or(config.fingerprint.clone())
                    .ok_or_else(|| {
                        missing("fingerprint", "--fingerprint", "HEXVEIL_FINGERPRINT")
                    })?;
                let fp = text
                    .parse()
                    .map_err(|_| PlayError::Fingerprint(text.clone()))?;
                (server, fp)
            }
        };
        let key = self
            .key
            .clone()
            .or(config.key)
            .ok_or_else(|| missing("key file", "--key", "HEXVEIL_KEY"))?;
        Ok(Resolved {
            nodes: resolve_servers(&server).await?,
            server,
            fingerprint,
            key,
            game: invite.map(|i| i.game),
        })
    }

    /// As [`Connect::resolve`], falling back on what a secrets directory
    /// remembers of its game (the invite of its first join, its key
    /// file) for what the options, the environment and the config file do
    /// not give: `hexveil resume DIR` needs nothing else (issue 27 item 3).
    pub async fn resolve_remembered(
        &self,
        stored: Option<&secrets::Stored>,
    ) -> Result<Resolved, PlayError> {
        let Some(stored) = stored else {
            return self.resolve().await;
        };
        let config = load_config()?;
        let mut c = self.clone();
        let named = c.invite.is_some()
            || c.server.iter().any(|s| !s.trim().is_empty())
            || config.server.is_some()
            || config.servers.is_some();
        if !named {
            c.invite = stored.invite.clone();
        }
        if c.key.is_none() && config.key.is_none() {
            c.key = stored.key.clone();
        }
        c.resolve().await
    }

    async fn client(&self) -> Result<(Client, Resolved), PlayError> {
        let r = self.resolve().await?;
        let (pkcs8, _) = keys::load(&r.key)?;
        let client = connect_to(&r, &pkcs8)
            .await
            .map_err(|e| cannot_connect(&r, e))?;
        Ok((client, r))
    }
}

/// A failure to reach the server named in `r`, in words.
fn cannot_connect(r: &Resolved, e: DriverError) -> PlayError {
    match e {
        DriverError::Net(e) => PlayError::Connect {
            server: r.server.clone(),
            why: e.to_string(),
        },
        other => PlayError::Driver(other),
    }
}

/// The way to `r`'s nodes with the key `pkcs8` (issue 25).
fn follower(r: &Resolved, pkcs8: &[u8]) -> Follower {
    Follower::new(r.nodes.clone(), ServerTrust::Pinned(r.fingerprint), pkcs8)
}

/// A logged-in client of the first of `r`'s nodes that answers, patient
/// ([`PATIENCE`]).
async fn connect_to(r: &Resolved, pkcs8: &[u8]) -> Result<Client, DriverError> {
    let mut client = follower(r, pkcs8).connect_any().await?;
    client.set_wait(PATIENCE);
    Ok(client)
}

/// The game: `--game`, else the invite's.
fn the_game(game: Option<&str>, r: &Resolved) -> Result<GameId, PlayError> {
    match (game, r.game) {
        (Some(g), _) => parse_game_id(g),
        (None, Some(g)) => Ok(g),
        (None, None) => Err(PlayError::Input(
            "no game: give --game ID or --invite (`hexveil create` prints both)".into(),
        )),
    }
}

/// How long the CLI waits for the server: a player may think as long as
/// they like (a dead server is noticed by the QUIC idle timeout).
pub const PATIENCE: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a finished game's transcript may take to be stored.
pub const TRANSCRIPT_WAIT: Duration = Duration::from_secs(5);

/// Parses a game id (32 hex digits).
pub fn parse_game_id(text: &str) -> Result<GameId, PlayError> {
    text.parse().map_err(|_| PlayError::GameId(text.into()))
}

fn game_hex(id: &GameId) -> String {
    id.to_string()
}

/// A scenario file as its ruleset reads it.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The file's text (what the genesis binds).
    pub text: String,
    /// The ruleset the file names (`ruleset = "..."`; ASL when it names
    /// none).
    pub ruleset: std::sync::Arc<dyn Ruleset>,
    /// The scenario, loaded by that ruleset.
    pub scenario: std::sync::Arc<dyn hexveil_core::Scenario>,
}

impl Loaded {
    /// The ASL scenario, if the file is one.
    pub fn asl(&self) -> Option<&Scenario> {
        self.scenario
            .as_any()
            .downcast_ref::<hexveil_asl::ruleset::AslScenario>()
            .map(|s| s.scenario.as_ref())
    }

    /// The ASL scenario, or an error naming the ruleset `what` needs.
    pub fn require_asl(&self, what: &str) -> Result<&Scenario, PlayError> {
        self.asl().ok_or_else(|| {
            PlayError::Input(format!(
                "{what} is for ASL scenarios; this one is for ruleset {}",
                self.ruleset.id()
            ))
        })
    }
}

/// The ruleset a scenario text names: its top-level `ruleset = "..."`
/// key, or ASL when it names none.
pub fn ruleset_of(text: &str) -> Result<String, String> {
    let value: toml::Table = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    match value.get("ruleset") {
        None => Ok(hexveil_rulesets::DEFAULT.to_string()),
        Some(toml::Value::String(id)) => Ok(id.clone()),
        Some(other) => Err(format!(
            "`ruleset` must be a string naming a ruleset, not {other}"
        )),
    }
}

/// Reads a scenario file and loads it with the ruleset it names.
pub fn load_scenario(path: &Path) -> Result<Loaded, PlayError> {
    let text = files::read_text(path)?;
    let bad = |e: String| PlayError::Input(format!("{}: {e}", path.display()));
    let text = with_tables_inlined(text, path).map_err(bad)?;
    let id = ruleset_of(&text).map_err(bad)?;
    let ruleset = hexveil_rulesets::all()
        .latest(&id)
        .map_err(|e| bad(e.to_string()))?;
    let scenario = ruleset.load(&text).map_err(bad)?;
    Ok(Loaded {
        text,
        ruleset,
        scenario,
    })
}

/// The scenario text with every `[tables.<name>] file = "..."` read in
/// (beside the scenario file) as `csv`, with its `sha256` (R12,
/// `hexveil_core::tables`): the text the genesis carries then holds the
/// whole table and its hash. A text that names no table file is returned
/// as it is.
pub fn with_tables_inlined(text: String, path: &Path) -> Result<String, String> {
    let mut table: toml::Table = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    if !table.contains_key("tables") {
        return Ok(text);
    }
    let before = table.clone();
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    hexveil::tables::inline_table_files_toml(&mut table, dir)?;
    if table == before {
        return Ok(text);
    }
    toml::to_string(&table).map_err(|e| format!("cannot write the scenario back: {e}"))
}

/// The mode a player asks for or agrees to.
fn mode(escrow: bool) -> Mode {
    if escrow {
        Mode::Escrow
    } else {
        Mode::Live
    }
}

/// How a new game is to be played: `hexveil create`'s options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Terms {
    /// An Escrow game (DESIGN 3.6): each owner gives the server its secrets
    /// at setup, so nobody has to be online to answer for hidden things.
    pub escrow: bool,
    /// The answer timeout in seconds (`None`: the server's).
    pub answer_timeout_secs: Option<u64>,
}

/// `hexveil create`: a game of `scenario` between our key (on `side`) and
/// the opponent's; prints the new game's id (the last line is the id
/// alone, for scripts), or with `json` one JSON object: `game`, `invite`,
/// `server`, `fingerprint`, `scenario`, `ruleset`, `ruleset_version`,
/// `side` (ours), `side_a`, `side_b` (the players' keys), `mode` (`live`
/// or `escrow`) and `answer_timeout_secs` (`null`: the server's).
pub async fn create(
    c: &Connect,
    scenario: &Path,
    side: Side,
    opponent: &str,
    terms: Terms,
    json: bool,
) -> Result<(), PlayError> {
    let loaded = load_scenario(scenario)?;
    let other: PublicKey = opponent
        .parse()
        .map_err(|_| PlayError::PublicKey(opponent.into()))?;
    let (mut client, resolved) = c.client().await?;
    let ours = client.public_key()?;
    let players = match side {
        Side::A => [ours, other],
        Side::B => [other, ours],
    };
    let game = client
        .create_game(&NewGame {
            ruleset: loaded.ruleset.id().to_string(),
            ruleset_version: loaded.ruleset.version(),
            scenario_toml: loaded.text.clone(),
            players,
            mode: mode(terms.escrow),
            pad_len: hexveil_protocol::pad::DEFAULT_PAD_LEN,
            answer_timeout_secs: terms.answer_timeout_secs,
        })
        .await?;
    let invite = Invite {
        server: resolved.server.clone(),
        game,
        fingerprint: resolved.fingerprint,
    };
    if json {
        println!(
            "{}",
            serde_json::json!({
                "game": game_hex(&game),
                "invite": invite.to_string(),
                "server": resolved.server,
                "fingerprint": resolved.fingerprint.to_string(),
                "scenario": loaded.scenario.name(),
                "ruleset": loaded.ruleset.id(),
                "ruleset_version": loaded.ruleset.version(),
                "side": side.to_string(),
                "side_a": players[0].to_string(),
                "side_b": players[1].to_string(),
                "mode": if terms.escrow { "escrow" } else { "live" },
                "answer_timeout_secs": terms.answer_timeout_secs,
            })
        );
        client.close().await;
        return Ok(());
    }
    println!(
        "created game \"{}\" ({}): side A {}, side B {}",
        loaded.scenario.name(),
        loaded.ruleset.title(),
        players[0],
        players[1]
    );
    if terms.escrow {
        println!(
            "Escrow mode: each side gives the server its hidden setup when it sets up, and the server answers for it (both join with --escrow)"
        );
    }
    println!("invite: {invite}");
    println!("  (give it to your opponent and spectators: `hexveil join --invite ...` and `hexveil watch --invite ...` need no --server, --fingerprint or --game)");
    println!("{}", game_hex(&game));
    client.close().await;
    Ok(())
}

/// `hexveil list [--json]`: one line per game, or (`--json`) one JSON
/// array of objects with the same fields.
pub async fn list(c: &Connect, json: bool) -> Result<(), PlayError> {
    let (mut client, _) = c.client().await?;
    let listed = client.list_open_games().await?;
    let Some(listed) = listed else {
        // A server that predates ListOpenGames (issue 27 item 8): its
        // bare list, which holds the finished games it keeps live too.
        let games = client.list_games().await?;
        client.close().await;
        return list_bare(games, json);
    };
    client.close().await;
    if json {
        println!(
            "{}",
            serde_json::to_string(&listed.iter().map(listed_json).collect::<Vec<_>>())
                .expect("JSON of strings and numbers")
        );
        return Ok(());
    }
    if listed.is_empty() {
        println!("no open games (`hexveil list --finished` lists the finished ones)");
    }
    let now = unix_now_ms();
    for g in &listed {
        for line in hexveil::listing::listed_lines(g, now) {
            println!("{line}");
        }
    }
    Ok(())
}

/// One open game of `hexveil list --json` (issue 27 item 8).
fn listed_json(named: &hexveil_net::wire::NamedGame) -> serde_json::Value {
    let g = &named.listed;
    let s = &g.summary;
    let signed = |n: &Option<String>| {
        n.as_ref()
            .map(|n| serde_json::json!({"name": n, "by": "player"}))
    };
    serde_json::json!({
        "game": game_hex(&s.game_id),
        "scenario": g.scenario,
        "ruleset": g.ruleset,
        "ruleset_version": g.ruleset_version,
        "mode": g.mode,
        "side_a": g.sides[0],
        "side_b": g.sides[1],
        "key_a": g.keys[0],
        "key_b": g.keys[1],
        "name_a": g.roster_names[0].as_ref().map(|n| serde_json::json!({"name": n, "by": "league"})),
        "name_b": g.roster_names[1].as_ref().map(|n| serde_json::json!({"name": n, "by": "league"})),
        "signed_a": signed(&named.signed_names[0]),
        "signed_b": signed(&named.signed_names[1]),
        "created_ms": g.created_ms,
        "side_a_seated": s.side_a_seated,
        "side_b_seated": s.side_b_seated,
        "spectators": s.spectators,
        "finished": s.finished,
        "waiting": g.awaited.as_ref().map(|a| serde_json::json!({
            "side": a.side.map(|s| s.to_string()),
            "what": a.what,
            "forfeits_at_ms": a.forfeits_at_ms,
        })),
    })
}

/// The bare list of a server that predates ListOpenGames.
fn list_bare(games: Vec<hexveil_net::wire::GameSummary>, json: bool) -> Result<(), PlayError> {
    if json {
        let v: Vec<serde_json::Value> = games
            .iter()
            .map(|g| {
                serde_json::json!({
                    "game": game_hex(&g.game_id),
                    "side_a_seated": g.side_a_seated,
                    "side_b_seated": g.side_b_seated,
                    "spectators": g.spectators,
                    "finished": g.finished,
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(v));
        return Ok(());
    }
    if games.is_empty() {
        println!("no games");
    }
    for g in games {
        println!(
            "{}  side A {}  side B {}  {} spectators{}",
            game_hex(&g.game_id),
            if g.side_a_seated { "seated" } else { "open" },
            if g.side_b_seated { "seated" } else { "open" },
            g.spectators,
            if g.finished { "  (finished)" } else { "" }
        );
    }
    Ok(())
}

/// `hexveil list --finished [--json]`: the server's finished games with
/// the fields of `hexveil results` (verified by the server from the
/// transcripts it stores; fetch a transcript and run `hexveil results` on
/// it to check for yourself).
pub async fn list_finished(c: &Connect, json: bool) -> Result<(), PlayError> {
    use hexveil_net::wire::FinishedRow;
    let (mut client, _) = c.client().await?;
    let games = client
        .list_finished(hexveil_net::wire::MAX_LISTED_FINISHED as u32)
        .await?;
    client.close().await;
    if json {
        let v: Vec<serde_json::Value> = games
            .iter()
            .map(|g| match &g.row {
                FinishedRow::Verified(row) => serde_json::to_value(row)
                    .unwrap_or_else(|e| serde_json::json!({ "game": game_hex(&g.game_id), "refused": e.to_string() })),
                FinishedRow::Refused { why } => serde_json::json!({
                    "game": game_hex(&g.game_id),
                    "refused": why,
                }),
            })
            .collect();
        println!("{}", serde_json::Value::Array(v));
        return Ok(());
    }
    if games.is_empty() {
        println!("no finished games");
        return Ok(());
    }
    println!("{}", hexveil::listing::FINISHED_HEADER);
    for g in &games {
        println!("{}", hexveil::listing::finished_line(g));
    }
    Ok(())
}

/// Where a seat's commands come from.
#[derive(Debug)]
pub enum Input {
    /// Typed on stdin.
    Stdin,
    /// A script; when it is used up, `then`.
    Script {
        /// The remaining lines.
        script: Script,
        /// What follows the script.
        then: AfterScript,
    },
}

/// What a seat does when its script is used up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterScript {
    /// Read further commands from stdin.
    Stdin,
    /// Concede (the demo's bots).
    #[cfg_attr(not(feature = "demo"), allow(dead_code))]
    Concede,
}

/// Where a seat's narrative goes.
#[derive(Debug)]
pub enum Output {
    /// Printed, each line as it comes.
    Print,
    /// Sent with the side and seq (the demo merges both sides' views).
    #[cfg_attr(not(feature = "demo"), allow(dead_code))]
    Channel(mpsc::UnboundedSender<(Side, u64, Vec<String>)>),
}

impl Output {
    fn lines(&self, side: Side, seq: u64, lines: Vec<String>) {
        super::page::narrative(&lines);
        match self {
            Output::Print => {
                for l in lines {
                    println!("{l}");
                }
            }
            Output::Channel(tx) => {
                let _ = tx.send((side, seq, lines));
            }
        }
    }

    /// A line of the seat's own, not of the game (a refusal, a lost
    /// connection).
    pub fn note(&self, side: Side, text: &str) {
        super::page::note(text);
        match self {
            Output::Print => println!("{text}"),
            Output::Channel(_) => println!("side {side}: {text}"),
        }
    }
}

/// What the tab key completes at a seat's prompt.
fn completions(language: &Language<'_>, board: &Board) -> Completions {
    let keywords: &[&str] = match language {
        Language::Asl(_) => &[
            "normal", "bypass", "trench", "stairs", "tb", "vbm", "flail", "he", "bomb",
        ],
        Language::Minis(_) => &["ap", "at", "s"],
    };
    Completions {
        verbs: language.verbs().into_iter().map(String::from).collect(),
        names: board.names(),
        places: board.places(),
        keywords: keywords.iter().map(|k| k.to_string()).collect(),
    }
}

/// What the seat decided at a `Prompt::Act`.
enum Decision {
    /// Declare this action (the ruleset's bytes).
    Act(Vec<u8>),
    /// Give up the game.
    Concede,
    /// Leave (the seat stays ours).
    Leave,
}

fn decision(bytes: Vec<u8>, concede: bool) -> Decision {
    if concede {
        Decision::Concede
    } else {
        Decision::Act(bytes)
    }
}

/// The decision at a prompt, made from `input` (given back with it), on
/// the seat's picture of the board as it was then: it is made while the
/// seat goes on receiving (issue 25: a lost connection is noticed and the
/// game found again while the player types).
/// `queued`: a command typed while the seat waited, tried first.
async fn decide(
    mut input: Input,
    queued: Option<typed::Line>,
    language: &Language<'_>,
    side: Side,
    out: &Output,
    board: Board,
) -> (Decision, Input) {
    let decision = decide_in(&mut input, queued, language, side, out, &board).await;
    (decision, input)
}

async fn decide_in(
    input: &mut Input,
    mut queued: Option<typed::Line>,
    language: &Language<'_>,
    side: Side,
    out: &Output,
    board: &Board,
) -> Decision {
    loop {
        match input {
            Input::Script { script, then } => match script.next(language) {
                Next::Act(line, bytes, concede) => {
                    if matches!(out, Output::Print) {
                        println!("side {side}> {line}");
                    }
                    return decision(bytes, concede);
                }
                Next::Bad(line, e) => out.note(
                    side,
                    &format!("script line `{line}` refused, nothing sent: {e}"),
                ),
                Next::Help => out.note(side, &language.help()),
                Next::Show(view) => {
                    if matches!(out, Output::Print) {
                        println!("side {side}> {} (shown here, nothing sent)", view.word());
                    }
                    out.note(side, board.show(view).trim_end());
                }
                Next::Done => match then {
                    AfterScript::Concede => return Decision::Concede,
                    AfterScript::Stdin => *input = Input::Stdin,
                },
            },
            Input::Stdin => {
                typed::start(
                    format!("side {side}> "),
                    std::sync::Arc::new(completions(language, board)),
                );
                let line = match queued.take() {
                    Some(line) => {
                        out.note(side, &format!("trying the queued `{}`", line.text));
                        line
                    }
                    None => {
                        typed::prompt(&format!("side {side}> "));
                        match typed::next().await {
                            Some(line) => line,
                            None => return Decision::Leave,
                        }
                    }
                };
                if line.text.trim().is_empty() {
                    continue;
                }
                if line.from == typed::From::Page {
                    out.note(side, &format!("from your page: `{}`", line.text.trim()));
                }
                match language.parse(&line.text) {
                    // Typed at a terminal, `concede` asks first (the page
                    // asks on the page before it sends one).
                    Ok(Parsed::Act { concede: true, .. })
                        if super::prompt::interactive() && line.from == typed::From::Stdin =>
                    {
                        println!("{}", CONCEDE_QUESTION.trim_end());
                        let answer = typed::next().await;
                        if answer.is_some_and(|a| confirmed(&a.text)) {
                            return Decision::Concede;
                        }
                        println!("not conceded, nothing sent");
                    }
                    Ok(Parsed::Act { bytes, concede }) => return decision(bytes, concede),
                    Ok(Parsed::Help) => print!("{}", language.help()),
                    Ok(Parsed::Show(view)) => print!("{}", board.show(view)),
                    Err(e) => out.note(side, &format!("not sent: {e}")),
                }
            }
        }
    }
}

/// Commands typed while the seat waited (issue 27 item 1), tried in
/// order, one at each of the seat's next prompts. When the session ends
/// (dropped), whatever was never tried is named to the player.
struct Queue<'a> {
    /// Parsed and waiting for the seat's move.
    lines: std::collections::VecDeque<typed::Line>,
    /// The input ended (the seat leaves at its next prompt, once the
    /// queue is used up).
    ended: bool,
    /// Where the leftovers are named, and whose they are.
    out: &'a Output,
    side: Side,
}

impl Drop for Queue<'_> {
    fn drop(&mut self) {
        let lines = self.lines.drain(..).map(|l| l.text);
        for left in lines.chain(typed::finish()) {
            self.out.note(
                self.side,
                &format!("not sent: `{left}` (this session ended before you were to act)"),
            );
        }
    }
}

/// Plays one seat until the log is closed (`true`) or the input ends
/// (`false`: the seat stays ours on the server). The driver answers every
/// machine prompt; only a current `Prompt::Act` asks the input. While the
/// player decides, the seat keeps receiving: a lost node is noticed at
/// once and the game followed to its node (`line`, issue 25), and the
/// command typed meanwhile is sent there. Typed input comes from one
/// source at any time ([`typed`]): a command typed while the game waits
/// for the opponent or a machine is queued with a note and tried at the
/// seat's next prompt, a line that is no command is refused with a note
/// at once, and whatever was never tried is named when the session ends
/// (issue 27 item 1: nothing dropped silently).
pub async fn play_seat(
    seat: &mut RemotePlayer,
    scenario: &dyn hexveil_core::Scenario,
    input: Input,
    out: &Output,
    line: &mut Lifeline,
    proofs: &Proofs,
) -> Result<bool, PlayError> {
    let side = seat.side();
    let mut queue = Queue {
        lines: Default::default(),
        ended: false,
        out,
        side,
    };
    let queue = &mut queue;
    let language = Language::for_game(scenario).map_err(PlayError::Input)?;
    let mut narrator = Narrator::for_game(scenario);
    // The seat's own picture of the game, from what it receives (G3).
    let mut board = Board::for_game(scenario);
    board.viewer = Some(side);
    let interactive = matches!(out, Output::Print);
    let mut acting = false;
    // Where commands come from while no decision is being made, and the
    // decision being made.
    if matches!(input, Input::Stdin) {
        typed::start(
            format!("side {side}> "),
            std::sync::Arc::new(completions(&language, &board)),
        );
    }
    let mut input = Some(input);
    let mut deciding = None;
    loop {
        if seat.is_closed() && seat.pending_events() == 0 {
            return Ok(true);
        }
        let note = |text: String| {
            out.note(side, &format!("server: {text}"));
            false
        };
        // The next event, or the decision if it comes first (both are
        // cancel-safe: the other is polled again next time round).
        let next = match deciding.as_mut() {
            Some(decision) => tokio::select! {
                made = decision => Err(made),
                event = seat.next_event() => Ok(event),
            },
            // Typed lines are taken as they come while the game waits.
            None if matches!(input, Some(Input::Stdin)) && !queue.ended => tokio::select! {
                event = seat.next_event() => Ok(event),
                typed = typed::next() => {
                    take_typed(typed, queue, &language, side, out, &board);
                    continue;
                }
            },
            None => Ok(seat.next_event().await),
        };
        let event = match next {
            Ok(Ok(event)) => event,
            Ok(Err(e)) if following(&e) => {
                line.resume(seat, out, e).await?;
                continue;
            }
            Ok(Err(DriverError::Breach { breach })) => return Err(cheated(breach, proofs, seat)),
            Ok(Err(e)) => return Err(lost(e, &format!("side {side}"))),
            Err((decision, given_back)) => {
                deciding = None;
                input = Some(given_back);
                let sent = match decision {
                    Decision::Leave => return Ok(false),
                    // The game moved on while the player decided (it
                    // ended, or the prompt is no longer ours).
                    _ if !acting => {
                        out.note(side, "not sent: it is no longer your move");
                        continue;
                    }
                    Decision::Concede => seat.concede(),
                    Decision::Act(bytes) => seat.act(bytes),
                };
                match sent {
                    Ok(_) => {}
                    // Kept by the driver until receipted: sent again on resume.
                    Err(e) if following(&e) => line.resume(seat, out, e).await?,
                    Err(e) => return Err(e.into()),
                }
                continue;
            }
        };
        line.seen(&event);
        let ask = match event {
            GameEvent::PromptRefused(r) => {
                out.note(side, &r.reason);
                if let Some(e) = &r.evidence {
                    out.note(side, &proofs.line(r.seq, "refused-prompt", e));
                }
                acting
            }
            GameEvent::Update(u) | GameEvent::Replayed(u) => {
                // Of the views re-sent when the seat is taken, only the
                // last is current: the others' prompts are history.
                let live = seat.last_seq() == Some(u.seq);
                narrator.prompts = interactive && live;
                let lines = narrator.update(&u, Reader::Player(side));
                board.update(&u, &lines);
                out.lines(side, u.seq, lines);
                acting = live && u.prompt == Prompt::Act;
                // The game waits for this player now: an earlier wait
                // (a machine's answer, the opponent) is over, and `status`
                // must not show it (a new user's trial, issue 27).
                if acting {
                    board.waiting = None;
                }
                acting
            }
            GameEvent::Rejected(r) => {
                // The server's signed refusal, the player's proof (G5),
                // goes to a file; one short line says where (issue 27).
                let seq = r.seq;
                let kept =
                    match proofs.keep(seq, "refusal", &Evidence::Refusal(Box::new(r.clone()))) {
                        Ok(Some(path)) => {
                            format!(" (the server's signed refusal: {})", path.display())
                        }
                        Ok(None) | Err(_) => String::new(),
                    };
                out.note(side, &refusal_line(&r.reason, &kept));
                acting
            }
            GameEvent::Receipt(_) | GameEvent::Held { .. } => false,
            GameEvent::Presence(p) => {
                // Said once per change (issue 27): who the game waits for.
                // Who and on what: this client's reading of the log it
                // checked; connection and deadline: the server's word.
                let now = wait_line(&p, Some(side), unix_now_ms(), seat.player().reading());
                if now.is_some() && now != board.waiting {
                    out.note(side, now.as_deref().unwrap_or_default());
                }
                board.waiting = now;
                false
            }
            GameEvent::Transcript(_) => note("the server sent the transcript".into()),
            GameEvent::ServerError { message, .. } => note(hexveil_view::names::visible(&message)),
            GameEvent::Left => return Err(PlayError::Displaced(side)),
            GameEvent::Pong(_) => false,
            GameEvent::Other(text) => note(text),
        };
        super::page::board(&board, seat.last_seq().unwrap_or(0), acting);
        // `acting` stays set until the next update: a refused action
        // (nothing changed) asks again.
        if ask && deciding.is_none() {
            if let Some(from) = input.take() {
                let queued = match from {
                    Input::Stdin => queue.lines.pop_front(),
                    Input::Script { .. } => None,
                };
                deciding = Some(Box::pin(decide(
                    from,
                    queued,
                    &language,
                    side,
                    out,
                    board.clone(),
                )));
            }
        }
    }
}

/// The line for the server's signed refusal of one of this seat's
/// entries (checked: its signature, and that it is for an entry this seat
/// sent). Its reason is the server's words, said to be, and unable to
/// write to the terminal or the page (no controls, escape sequences, line
/// breaks or bidi overrides: `names::visible`), so it cannot add lines
/// that read as the game's (G5).
fn refusal_line(reason: &str, kept: &str) -> String {
    // "refused, nothing changed: refused: ..." said it twice.
    let why = reason.strip_prefix("refused: ").unwrap_or(reason);
    format!(
        "refused, nothing changed: {} (the server's words){kept}",
        hexveil_view::names::visible(why)
    )
}

/// A line typed while the seat was not deciding: a command is queued with
/// a note saying what the game waits for; `help` and `show` are answered
/// at once (they send nothing); anything else is refused with a note, at
/// once, rather than when it would have been tried.
fn take_typed(
    typed: Option<typed::Line>,
    queue: &mut Queue,
    language: &Language<'_>,
    side: Side,
    out: &Output,
    board: &Board,
) {
    let Some(typed) = typed else {
        queue.ended = true;
        return;
    };
    let text = typed.text.trim();
    if text.is_empty() {
        return;
    }
    match language.parse(text) {
        Ok(Parsed::Act { .. }) => {
            let waiting = board
                .waiting
                .clone()
                .unwrap_or_else(|| "it is not your move".into());
            out.note(
                side,
                &format!("queued: `{text}` ({waiting}); it will be tried when you are to act"),
            );
            queue.lines.push_back(typed::Line {
                text: text.to_string(),
                from: typed.from,
            });
        }
        Ok(Parsed::Help) => print!("{}", language.help()),
        Ok(Parsed::Show(view)) => print!("{}", board.show(view)),
        Err(e) => out.note(side, &format!("not queued: {e}")),
    }
}

/// What the server did that the seat caught (issue 24), in words, with
/// its proof kept: the seat stops, nothing more is sent.
fn cheated(breach: Breach, proofs: &Proofs, seat: &RemotePlayer) -> PlayError {
    let side = seat.side();
    let kept = match &breach {
        Breach::Fork { proof, .. } => {
            let seq = seat.player().witness().next_seq();
            Some(proofs.line(seq, "fork", &Evidence::Fork(proof.clone())))
        }
        Breach::FalseView { seq, proof, .. } => {
            Some(proofs.line(*seq, "false-view", &Evidence::View(proof.clone())))
        }
        _ => None,
    };
    let witness = proofs.keep_witness(seat.player().witness());
    // An end the log does not give is the server's own signed entry: the
    // statements this client holds keep it, and the game's transcript
    // proves it (the verifier refuses it), or holds another entry there,
    // which is a fork of what this client was shown.
    let kept = match (&breach, witness) {
        (Breach::FalseEnd { seq, .. }, Ok(Some(path))) => Some(format!(
            "the server's signed entry #{seq} is kept in {} with what this client was shown: `hexveil verify` of the game's transcript refuses it, and a transcript without it is a fork of what this client was shown",
            path.display()
        )),
        _ => kept,
    };
    PlayError::Cheated {
        side,
        what: breach.to_string(),
        kept: kept.unwrap_or_else(|| {
            "no proof could be made of it (an unsigned message proves nothing)".into()
        }),
    }
}

/// The finished game's transcript, once the server has stored it.
pub async fn fetch_transcript(seat: &mut RemotePlayer) -> Result<Vec<u8>, PlayError> {
    seat.set_wait(TRANSCRIPT_WAIT);
    Ok(seat.fetch_transcript().await?)
}

/// Everything `join` (and `resume`) needs. Only the connection is
/// required: the side follows from the key's seat in the game's genesis,
/// the scenario from the genesis, and on a resume the setups from the
/// secrets directory (issue 27 item 3); each flag only overrides, and an
/// override the game contradicts is refused naming both.
#[derive(Clone, Debug, Default)]
pub struct JoinArgs {
    /// The game (else the invite's, else the secrets directory's).
    pub game: Option<String>,
    /// Take the seat even when another client holds it (that client is
    /// told and stops), once these secrets are checked against the seat's
    /// commitments in the log.
    pub take_over: bool,
    /// The side (else the one the key holds in the genesis).
    pub side: Option<Side>,
    /// The scenario file (else the genesis's).
    pub scenario: Option<PathBuf>,
    /// The public setup file (a first join; a resume uses the stored one).
    pub setup: Option<PathBuf>,
    /// The sealed setup file (a first join; a resume uses the stored one).
    pub sealed: Option<PathBuf>,
    /// Daisy Chain standing orders, `HOLDER@HEX`.
    pub daisy: Vec<String>,
    /// The secrets directory (default [`default_secrets_dir`]).
    pub secrets: Option<PathBuf>,
    /// A command file.
    pub script: Option<PathBuf>,
    /// Where to write the transcript (default DIR/transcript.hexveil).
    pub out: Option<PathBuf>,
    /// Whether the player agrees to an Escrow game (DESIGN 3.6).
    pub escrow: bool,
    /// Where to record every head shown and every receipt ([`Record`]).
    pub record: Option<PathBuf>,
    /// `hexveil resume DIR`: the secrets directory must hold secrets.
    pub resume: bool,
    /// The player's display name, put in its public setup (signed with
    /// it, issue 27 item 8; `hexveil_view::names`).
    pub name: Option<String>,
    /// `--ui`: serve the player's page on 127.0.0.1 (at this port, else
    /// one the system picks; issue 29, [`super::page`]).
    pub ui: Option<Option<u16>>,
}

/// The secrets directory of a join that names none: `hexveil-GAME-SIDE`
/// in the working directory (joining again the same way resumes).
pub fn default_secrets_dir(game: &GameId, side: Side) -> PathBuf {
    PathBuf::from(format!(
        "hexveil-{game}-{}",
        side.to_string().to_lowercase()
    ))
}

/// Parses `HOLDER@HEX` against the scenario.
pub fn daisy_order(parser: &Parser<'_>, text: &str) -> Result<DaisyOrder, String> {
    let (holder, hex) = text
        .split_once('@')
        .ok_or_else(|| format!("--daisy `{text}` is not HOLDER@HEX (e.g. brit-squad-1@3E5)"))?;
    Ok(DaisyOrder {
        holder: parser
            .unit(holder)
            .map_err(|e| format!("--daisy {text}: {e}"))?,
        hex: parser
            .hex(hex)
            .map_err(|e| format!("--daisy {text}: {e}"))?,
    })
}

/// Checks a side's public and sealed setup files against the scenario:
/// both parse, and the sealed setup passes the ruleset's setup rules
/// (with the most permissive setup rolls, `setup_check::highest_roll`).
/// Returns the check (its assumed rolls) when they are legal.
pub fn check_setups(
    joining: bool,
    loaded: &Loaded,
    side: Side,
    setup_path: &Path,
    public: &str,
    sealed_path: &Path,
    sealed: &str,
) -> Result<SetupCheck, PlayError> {
    match setup_check::check(loaded.scenario.as_ref(), side, public, sealed) {
        Err((Which::Public, e)) => Err(PlayError::Input(format!("{}: {e}", setup_path.display()))),
        Err((Which::Sealed, e)) => Err(PlayError::Input(format!("{}: {e}", sealed_path.display()))),
        Ok(c) if !c.problems.is_empty() => Err(PlayError::Input(
            c.message(&sealed_path.display().to_string(), joining),
        )),
        Ok(c) => Ok(c),
    }
}

/// The game a seat joins: `--game`, else the invite's, else the one the
/// secrets directory holds; a game named that is not the directory's is
/// refused naming both.
fn seat_game(
    game: Option<&str>,
    r: &Resolved,
    stored: Option<&secrets::Stored>,
    dir: Option<&Path>,
) -> Result<GameId, PlayError> {
    let named = match (game, r.game) {
        (Some(g), _) => Some(parse_game_id(g)?),
        (None, g) => g,
    };
    match (named, stored) {
        (Some(g), Some(s)) if !game_hex(&g).eq_ignore_ascii_case(&s.game_id) => {
            Err(PlayError::Input(format!(
                "the game named is {g}, but the secrets in {} are side {}'s of game {}; nothing was sent. Name that game (or none: the directory says which), or use another --secrets directory",
                dir.map_or_else(String::new, |d| d.display().to_string()),
                s.secrets.side,
                s.game_id
            )))
        }
        (Some(g), _) => Ok(g),
        (None, Some(s)) => parse_game_id(&s.game_id),
        (None, None) => Err(PlayError::Input(
            "no game: give --invite URL or --game ID (`hexveil create` prints both), or resume with `hexveil resume DIR`".into(),
        )),
    }
}

/// The game's genesis as a spectator reads it (the first entry of the
/// history), if the server showed it.
fn genesis_of(history: &[Checked]) -> Option<&Genesis> {
    match history.first().and_then(|c| c.body.as_ref()) {
        Some(Body::Genesis(g)) => Some(g),
        _ => None,
    }
}

/// The side a key plays in a game (issue 27 item 3): `--side`, else the
/// secrets directory's, else the one seat the key holds in the genesis.
/// A side the genesis gives another key, or that contradicts the secrets
/// directory, is refused naming both.
fn seat_side(
    asked: Option<Side>,
    stored: Option<Side>,
    genesis: Option<&Genesis>,
    ours: &PublicKey,
    game: &GameId,
) -> Result<Side, PlayError> {
    if let (Some(a), Some(s)) = (asked, stored) {
        if a != s {
            return Err(PlayError::Input(format!(
                "--side {a}, but the secrets directory holds side {s}'s secrets of game {game}; nothing was sent"
            )));
        }
    }
    let wanted = asked.or(stored);
    let Some(g) = genesis else {
        return wanted.ok_or_else(|| {
            PlayError::Input(format!(
                "the server shows no genesis of game {game} yet (a spectator delay?), so the side cannot be read from it: give --side a or b"
            ))
        });
    };
    let seats: Vec<Side> = [Side::A, Side::B]
        .into_iter()
        .filter(|s| g.players[side_index(*s)] == *ours)
        .collect();
    let holders = format!(
        "side A is key {}, side B is key {}",
        g.players[0], g.players[1]
    );
    match (wanted, seats.as_slice()) {
        (_, []) => Err(PlayError::Input(format!(
            "your key {ours} holds no seat in game {game} ({holders}); nothing was sent. Join with the key the game was created for, or watch it with `hexveil watch`"
        ))),
        (Some(w), seats) if !seats.contains(&w) => Err(PlayError::Input(format!(
            "--side {w}, but in game {game} your key {ours} holds side {}'s seat ({holders}); nothing was sent",
            seats[0]
        ))),
        (Some(w), _) => Ok(w),
        (None, [one]) => Ok(*one),
        (None, _) => Err(PlayError::Input(format!(
            "your key {ours} holds both seats of game {game}: give --side a or b"
        ))),
    }
}

fn side_index(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

/// The scenario of a game, from its genesis (issue 27 item 3). A
/// `--scenario` file is only checked against it: another scenario is
/// refused naming both.
fn seat_scenario(given: Option<&Path>, genesis: Option<&Genesis>) -> Result<Loaded, PlayError> {
    let Some(g) = genesis else {
        return match given {
            Some(p) => load_scenario(p),
            None => Err(PlayError::Input(
                "the server shows no genesis of this game yet (a spectator delay?), so its scenario cannot be read from it: give --scenario FILE".into(),
            )),
        };
    };
    let ruleset = hexveil_rulesets::all()
        .find(&g.ruleset, g.ruleset_version)
        .map_err(|e| PlayError::Input(format!("the game's ruleset: {e}")))?;
    let text = g.scenario_toml.to_string();
    let scenario = ruleset
        .load(&text)
        .map_err(|e| PlayError::Input(format!("the game's scenario does not load: {e}")))?;
    if let Some(p) = given {
        let file = load_scenario(p)?;
        let hash = Digest::sha256(file.text.as_bytes());
        if hash != g.scenario_hash {
            return Err(PlayError::Input(format!(
                "--scenario {} is \"{}\" ({}, SHA-256 {hash}), but the game was created from \"{}\" ({} v{}, SHA-256 {}); nothing was sent. Leave --scenario out: the game's own is read from its genesis",
                p.display(),
                file.scenario.name(),
                file.ruleset.id(),
                scenario.name(),
                g.ruleset,
                g.ruleset_version,
                g.scenario_hash
            )));
        }
    }
    Ok(Loaded {
        text,
        ruleset,
        scenario,
    })
}

/// The mode the seat plays in: the game's (its genesis). An Escrow game
/// needs the player's consent (`--escrow`) until its setup is in the log;
/// `--escrow` for a Live game is refused.
fn seat_mode(
    escrow: bool,
    genesis: Option<&Genesis>,
    setup_logged: bool,
    game: &GameId,
) -> Result<Mode, PlayError> {
    match genesis.map(|g| g.mode) {
        None => Ok(mode(escrow)),
        Some(Mode::Escrow) if !escrow && !setup_logged => Err(PlayError::Input(format!(
            "game {game} is an Escrow game (created with `create --escrow`): your hidden setup would go to the server at setup; join with --escrow to agree. Nothing was sent"
        ))),
        Some(Mode::Live) if escrow => Err(PlayError::Input(format!(
            "--escrow, but game {game} is a Live game: your hidden setup stays on this machine; leave --escrow out. Nothing was sent"
        ))),
        Some(m) => Ok(m),
    }
}

/// `hexveil join` and `hexveil resume`: plays one seat. Before anything
/// is written or sent, the game's public history is read as a spectator
/// (its genesis gives the scenario and the key's seat) and the secrets
/// are checked against the commitments the seat made in it, so a client
/// with the wrong secrets displaces nobody (issue 27 items 3 and 6); the
/// secrets are on disk before any commitment is sent.
pub async fn join(c: &Connect, j: &JoinArgs) -> Result<(), PlayError> {
    // A secrets directory named says which game, side, server and key.
    let mut stored = match &j.secrets {
        Some(dir) => secrets::read(dir)?,
        None => None,
    };
    if j.resume && stored.is_none() {
        return Err(PlayError::Input(format!(
            "{} holds no {}: nothing to resume there (the first time, `hexveil join --invite URL --setup FILE --sealed FILE` takes the seat)",
            j.secrets.as_deref().unwrap_or(Path::new(".")).display(),
            secrets::FILE
        )));
    }
    let resolved = c.resolve_remembered(stored.as_ref()).await?;
    let game_id = seat_game(
        j.game.as_deref(),
        &resolved,
        stored.as_ref(),
        j.secrets.as_deref(),
    )?;
    let game_text = game_hex(&game_id);
    let (pkcs8, _) = keys::load(&resolved.key)?;
    let identity = Identity::from_pkcs8(&pkcs8)
        .map_err(|e| PlayError::Input(format!("{}: {e}", resolved.key.display())))?;
    let ours = identity.public_key();
    let record = j.record.as_deref().map(Record::open).transpose()?;
    let mut line = Lifeline::new(follower(&resolved, &pkcs8), record);
    // The node that serves the game (issue 25: any node of the league
    // given may be down, or no longer serve it).
    let mut client = line
        .reach(game_id, &mut |text| println!("{text}"))
        .await
        .map_err(|e| cannot_connect(&resolved, e))?;
    // What anyone may read of the game: its genesis and the seats'
    // commitments.
    let history = client.history(game_id).await?;
    let genesis = genesis_of(&history);
    let side = seat_side(
        j.side,
        stored.as_ref().map(|s| s.secrets.side),
        genesis,
        &ours,
        &game_id,
    )?;
    let dir = match &j.secrets {
        Some(d) => d.clone(),
        None => {
            let d = default_secrets_dir(&game_id, side);
            stored = secrets::read(&d)?;
            d
        }
    };
    if let Some(proof) = super::evidence::fork_already_proven(&dir) {
        return Err(PlayError::Input(format!(
            "the server showed this seat two histories of game {game_text} (proof: {}); this client does not play on with it: check the proof with `hexveil verify --proof {}` and take it to the league",
            proof.display(),
            proof.display()
        )));
    }
    let loaded = seat_scenario(j.scenario.as_deref(), genesis)?;
    let party = hexveil_protocol::message::party_of(side);
    let setup_logged = history
        .iter()
        .any(|c| c.author == party && c.update.entry == "setup");
    let seat_mode = seat_mode(j.escrow, genesis, setup_logged, &game_id)?;
    let pad_len = genesis.map_or(hexveil_protocol::pad::DEFAULT_PAD_LEN, |g| g.pad_len);
    let orders = if j.daisy.is_empty() {
        Vec::new()
    } else {
        let scenario = loaded.require_asl("--daisy (Daisy Chain standing orders)")?;
        let parser = Parser::new(scenario);
        let orders = j
            .daisy
            .iter()
            .map(|d| daisy_order(&parser, d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(PlayError::Input)?;
        standing_orders::encode(&orders)
    };
    let given = |p: &Option<PathBuf>| p.as_deref().map(files::read_text).transpose();
    let (mut public, sealed) = (given(&j.setup)?, given(&j.sealed)?);
    if let (Some(name), Some(text)) = (&j.name, &public) {
        public = Some(
            hexveil_view::names::with_name(text, name)
                .map_err(|e| PlayError::Input(format!("--name: {e}; nothing was sent")))?,
        );
    } else if let Some(name) = &j.name {
        hexveil_view::names::check_name(name)
            .map_err(|e| PlayError::Input(format!("--name: {e}; nothing was sent")))?;
    }
    // The secrets: the stored ones (a resume), or new ones, not written
    // before the seat is known to be this client's to take.
    let (candidate, origin) = match &stored {
        Some(s) => {
            if s.game_id != game_text || s.secrets.side != side {
                return Err(secrets::SecretsError::OtherGame {
                    path: dir.join(secrets::FILE),
                    game: s.game_id.clone(),
                    side: s.secrets.side,
                }
                .into());
            }
            // What was committed cannot change: say so if the files given
            // now differ from the ones stored at the first join.
            for (what, given, stored) in [
                ("--setup", &public, &s.secrets.public_setup_toml),
                ("--sealed", &sealed, &s.secrets.sealed_setup_toml),
            ] {
                if given.as_ref().is_some_and(|g| g != stored) {
                    println!(
                        "note: {what} differs from the file given at the first join; the stored one is used (it is what you committed to)"
                    );
                }
            }
            let committed = hexveil_view::names::name_in_setup(&s.secrets.public_setup_toml)
                .ok()
                .flatten();
            if j.name.is_some() && j.name != committed {
                println!(
                    "note: --name differs from the name given at the first join ({}); the stored one is used (it is what you signed)",
                    committed.as_deref().unwrap_or("none")
                );
            }
            if !j.daisy.is_empty() && orders != s.secrets.orders {
                println!(
                    "note: --daisy differs from the standing orders given at the first join; the stored ones are used"
                );
            }
            (s.secrets.clone(), Origin::Reloaded)
        }
        None => {
            let (Some(public), Some(sealed), Some(setup_path), Some(sealed_path)) =
                (public, sealed, &j.setup, &j.sealed)
            else {
                return Err(PlayError::Input(format!(
                    "no setup for side {side} of game {game_text}: {} holds no secrets yet, so this is the seat's first join; give --setup FILE and --sealed FILE (your public and sealed setups). Nothing was sent",
                    dir.display()
                )));
            };
            // Both setups, and the sealed one against the setup rules,
            // before anything is stored or sent.
            check_setups(
                true,
                &loaded,
                side,
                setup_path,
                &public,
                sealed_path,
                &sealed,
            )?;
            let layers = loaded.scenario.sealed_layers();
            let fresh = Secrets::generate(side, &layers, public, sealed, orders)
                .map_err(|e| PlayError::Input(e.to_string()))?;
            (fresh, Origin::Created)
        }
    };
    // One seat, one machine: a seat another connection holds is taken
    // only when asked to.
    let held = client
        .list_games()
        .await?
        .into_iter()
        .find(|g| g.game_id == game_id)
        .is_some_and(|g| match side {
            Side::A => g.side_a_seated,
            Side::B => g.side_b_seated,
        });
    if held && !j.take_over {
        client.close().await;
        return Err(PlayError::Input(format!(
            "side {side} of game {game_text} is held by another connected client with your key (another terminal or machine?); nothing was sent. Stop that client, or join with --take-over to take the seat from it (it stops). A client that crashed or lost its connection frees the seat within the server's idle timeout."
        )));
    }
    // Issue 27 item 6: the secrets are checked against the seat's
    // commitments in the log before the seat is taken, so a take-over
    // with the wrong secrets displaces nobody.
    let mut check = hexveil_protocol::player::Player::new(
        Identity::from_pkcs8(&pkcs8).map_err(|e| PlayError::Input(e.to_string()))?,
        game_id,
        loaded.ruleset.as_ref(),
        &loaded.text,
        pad_len,
        seat_mode,
        candidate.clone(),
    )
    .map_err(|e| PlayError::Input(format!("side {side}'s secrets: {e}")))?;
    if let Err(m) = check.check_commitments(&history) {
        client.close().await;
        let holder = if held {
            "; the client holding the seat plays on"
        } else {
            ""
        };
        return Err(PlayError::Input(match origin {
            Origin::Created => format!(
                "side {side} of game {game_text} has already committed to its secrets ({m}), and {} holds none: use the --secrets directory you first joined with (on the machine that joined, or `hexveil resume DIR`). Nothing was written or sent{holder}",
                dir.display()
            ),
            Origin::Reloaded => format!(
                "these secrets are not the ones side {side} committed to in game {game_text}: the log's {m} is not what the secrets in {} give; nothing was sent{holder}. Use the --secrets directory you first joined with",
                dir.join(secrets::FILE).display()
            ),
        }));
    }
    let (secrets, origin) = secrets::load_or_create(
        &dir,
        &game_text,
        side,
        secrets::Remember {
            invite: Some(
                Invite {
                    server: resolved.server.clone(),
                    game: game_id,
                    fingerprint: resolved.fingerprint,
                }
                .to_string(),
            ),
            key: Some(resolved.key.clone()),
        },
        || Ok(candidate),
    )?;
    match origin {
        Origin::Created => println!(
            "secrets for side {side} written to {} (keep them: you reveal them at the end; `hexveil resume {}` takes the seat again)",
            dir.join(secrets::FILE).display(),
            dir.display()
        ),
        Origin::Reloaded => println!(
            "resuming with the secrets in {}",
            dir.join(secrets::FILE).display()
        ),
    }
    let mut seat = client
        .join(
            game_id,
            SeatSetup {
                ruleset: loaded.ruleset.clone(),
                scenario_toml: loaded.text.clone(),
                secrets,
                pad_len,
                mode: seat_mode,
            },
        )
        .await
        .map_err(|e| match e {
            DriverError::NotTheseSecrets { .. } => PlayError::Input(format!(
                "{e}. The secrets in {} are not what this seat committed to: use the --secrets directory you first joined with (on the machine that joined). The client leaves the seat empty; a client still playing it was told another client took it.",
                dir.join(secrets::FILE).display()
            )),
            other => lost(other, &format!("side {side}")),
        })?;
    let named = hexveil_view::names::name_in_setup(&seat.player().secrets().public_setup_toml)
        .ok()
        .flatten()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    println!(
        "joined game {game_text} (\"{}\") as side {side}{named}; type `help` for commands when it is your move",
        loaded.scenario.name()
    );
    if let Some(port) = j.ui {
        start_page(port, &seat, &loaded).await?;
    }
    let input = match &j.script {
        Some(p) => Input::Script {
            script: Script::new(&files::read_text(p)?),
            then: AfterScript::Stdin,
        },
        None => Input::Stdin,
    };
    let proofs = Proofs::in_dir(&dir);
    let playing = play_seat(
        &mut seat,
        loaded.scenario.as_ref(),
        input,
        &Output::Print,
        &mut line,
        &proofs,
    )
    .await;
    if let Err(e) = proofs.keep_witness(seat.player().witness()) {
        println!("what this client was shown could not be kept: {e}");
    }
    let over = playing?;
    if over {
        let t = match fetch_transcript(&mut seat).await {
            Ok(t) => t,
            // The game is over: any node hands its transcript out.
            Err(PlayError::Driver(e)) if retryable(&e) => {
                println!("no transcript from this node ({e}); asking the league's nodes");
                line.transcript_anywhere(game_id, TRANSCRIPT_WAIT).await?
            }
            Err(e) => return Err(e),
        };
        {
            let path = j
                .out
                .clone()
                .unwrap_or_else(|| dir.join("transcript.hexveil"));
            files::write_durably(&path, &t)?;
            // This game's verdict only if the transcript is the log this
            // seat was shown (G5), on the page as at the terminal.
            let ending = Ending::check(&t, seat.player().witness());
            println!("transcript written to {}", path.display());
            let audit = super::evidence::audit_words(&ending.audit, &proofs);
            println!("{}", ending.verdict_words());
            super::page::verdict(&format!("{}\n{audit}", ending.verdict_words()));
            println!("{audit}");
        }
    } else {
        println!("no more commands; leaving (the seat stays yours: join again to resume)");
    }
    seat.close().await;
    super::page::last_look(over).await;
    Ok(())
}

/// `--ui`: the player's page on 127.0.0.1 (issue 29), drawing this seat
/// with its own sealed facts; its address, with the one-time token, is
/// printed.
#[cfg(feature = "ui")]
async fn start_page(
    port: Option<u16>,
    seat: &RemotePlayer,
    loaded: &Loaded,
) -> Result<(), PlayError> {
    let state = super::page::open();
    let language = Language::for_game(loaded.scenario.as_ref()).map_err(PlayError::Input)?;
    let asl = loaded.asl().is_some();
    let own = super::page::own_sealed_facts(loaded.scenario.as_ref(), asl, seat.player().secrets())
        .map_err(PlayError::Input)?;
    super::page::seated(seat.side(), asl, language.commands(), own);
    let served = super::page::serve::start(port, state)
        .await
        .map_err(|e| PlayError::Input(format!("cannot serve the --ui page on 127.0.0.1: {e}")))?;
    println!(
        "your page: {} (open it in your browser: the address works once, for one browser, and the page answers on {} only; your keys and secrets stay in this client)",
        served.url, served.addr
    );
    Ok(())
}

/// Without the `ui` feature there is no page to serve.
#[cfg(not(feature = "ui"))]
async fn start_page(_: Option<u16>, _: &RemotePlayer, _: &Loaded) -> Result<(), PlayError> {
    Err(PlayError::Input(
        "this hexveil was built without the --ui page (cargo feature `ui`)".into(),
    ))
}

/// `hexveil watch`: the public narrative of a game. With the scenario
/// file, units are named; without it, by `id:N`. If its node goes away
/// (a restart, a network cut, a node of a league dying or draining), it
/// finds the game's node as a seat does ([`Lifeline::rewatch`], issue 25)
/// and goes on after the last update it printed. `record`: the heads
/// shown are appended to that file ([`Record`]).
pub async fn watch(
    c: &Connect,
    game: Option<&str>,
    scenario: Option<&Path>,
    out: Option<PathBuf>,
    record: Option<&Path>,
) -> Result<(), PlayError> {
    let resolved = c.resolve().await?;
    let (pkcs8, _) = keys::load(&resolved.key)?;
    let game_id = the_game(game, &resolved)?;
    let game = game_hex(&game_id);
    let mut narrator = match scenario {
        Some(p) => Narrator::for_game(load_scenario(p)?.scenario.as_ref()),
        None => Narrator::new(&Scenario::default()),
    };
    let record = record.map(Record::open).transpose()?;
    let mut line = Lifeline::new(follower(&resolved, &pkcs8), record);
    let client = line
        .reach(game_id, &mut |text| println!("{text}"))
        .await
        .map_err(|e| cannot_connect(&resolved, e))?;
    let mut spectator = client.watch(game_id).await?;
    println!("watching game {game} (public view: what happened so far, then as it happens)");
    // The last update shown, and the log head after it: a spectator joins
    // from the start, so after a reconnection what was shown comes again
    // and is skipped, and the head it had then must be the head it has now.
    let mut shown: Option<(u64, Digest)> = None;
    let mut waiting: Option<String> = None;
    while !spectator.is_closed() {
        let event = match spectator.next_event().await {
            Ok(event) => event,
            Err(e) if following(&e) => {
                let from = spectator.server_addr();
                let held = spectator.public().clone();
                let reading = spectator.reading().clone();
                spectator = line.rewatch(game_id, from, e).await?;
                // What was shown comes again and must be the same log.
                spectator.set_witness(held, reading);
                continue;
            }
            Err(e) => return Err(lost(e, "the spectator")),
        };
        line.seen(&event);
        match event {
            GameEvent::Update(u) => {
                if let Some((seq, head)) = shown {
                    if u.seq < seq {
                        continue;
                    }
                    if u.seq == seq {
                        if head != u.head {
                            return Err(PlayError::Forked {
                                seq,
                                shown: head,
                                now: u.head,
                            });
                        }
                        continue;
                    }
                    if u.seq > seq + 1 {
                        println!(
                            "(log entries #{} to #{} were not sent to this spectator)",
                            seq + 1,
                            u.seq - 1
                        );
                    }
                }
                shown = Some((u.seq, u.head));
                // Without a scenario file, the genesis (public) names the
                // ruleset and holds the scenario: units get their names.
                if let (None, Some(g)) = (scenario, &u.genesis) {
                    if let Ok(loaded) = hexveil_rulesets::all()
                        .find(&g.ruleset, g.ruleset_version)
                        .map_err(|e| e.to_string())
                        .and_then(|r| r.load(&g.scenario_toml))
                    {
                        narrator = Narrator::for_game(loaded.as_ref());
                    }
                }
                for l in narrator.update(&u, Reader::Spectator) {
                    println!("{l}");
                }
            }
            GameEvent::ServerError { message, .. } => {
                println!("server: {}", hexveil_view::names::visible(&message))
            }
            GameEvent::Presence(p) => {
                // Said once per change (issue 27): who the game waits for.
                let now = wait_line(&p, None, unix_now_ms(), spectator.reading());
                if now.is_some() && now != waiting {
                    println!("{}", now.as_deref().unwrap_or_default());
                }
                waiting = now;
            }
            _ => {}
        }
    }
    spectator.set_wait(TRANSCRIPT_WAIT);
    let t = match spectator.fetch_transcript().await {
        Ok(t) => t,
        // The game is over: its transcript is the server's to hand anyone,
        // no join needed.
        Err(e) if retryable(&e) => {
            println!("no transcript from this node ({e}); asking the league's nodes");
            line.transcript_anywhere(game_id, TRANSCRIPT_WAIT).await?
        }
        Err(e) => return Err(e.into()),
    };
    let ending = Ending::check(&t, spectator.witness());
    if let Some(path) = out {
        files::write_durably(&path, &t)?;
        println!("transcript written to {}", path.display());
    }
    println!("{}", ending.verdict_words());
    println!(
        "{}",
        super::evidence::audit_words(&ending.audit, &Proofs::nowhere())
    );
    spectator.close().await;
    Ok(())
}

impl PlayError {
    /// The exit code (README.md, "Exit codes"): 2 when the command could
    /// not start on what it was given (a key, file, setup, scenario or
    /// argument that cannot be read or is malformed), 1 when it failed
    /// after that (the connection, the server, the game).
    pub fn exit_code(&self) -> u8 {
        match self {
            PlayError::Key(_)
            | PlayError::File(_)
            | PlayError::PublicKey(_)
            | PlayError::Fingerprint(_)
            | PlayError::GameId(_)
            | PlayError::Input(_) => 2,
            _ => 1,
        }
    }
}

/// A side's setup files for `hexveil check --sealed`.
#[derive(Clone, Debug)]
pub struct SetupFiles {
    /// The side.
    pub side: Side,
    /// The public setup file.
    pub setup: PathBuf,
    /// The sealed setup file.
    pub sealed: PathBuf,
}

/// `hexveil check`: parses every command line of a script (or stdin)
/// against the scenario; prints each line's action in words or what is
/// wrong with it. Exit code 1 if any line is wrong, 2 if a file cannot be
/// read.
pub fn check(
    scenario: &Path,
    script: Option<&Path>,
    setups: Option<SetupFiles>,
    json: bool,
) -> std::process::ExitCode {
    use std::io::Read;
    use std::process::ExitCode;
    // What is printed: the lines, or (`--json`) one object at the end.
    let mut report = serde_json::json!({
        "scenario": scenario.display().to_string(),
        "ok": true,
        "setup": null,
        "lines": [],
    });
    let finish = |report: serde_json::Value, ok: bool| {
        if json {
            let mut report = report;
            report["ok"] = ok.into();
            println!("{report}");
        }
        if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    };
    let loaded = match load_scenario(scenario) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("hexveil check: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(s) = &setups {
        let read = |p: &Path| files::read_text(p);
        let (public, sealed) = match (read(&s.setup), read(&s.sealed)) {
            (Ok(p), Ok(q)) => (p, q),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("hexveil check: {e}");
                return ExitCode::from(2);
            }
        };
        let checked = check_setups(
            false, &loaded, s.side, &s.setup, &public, &s.sealed, &sealed,
        );
        report["setup"] = serde_json::json!({
            "side": s.side.to_string(),
            "setup": s.setup.display().to_string(),
            "sealed": s.sealed.display().to_string(),
            "legal": checked.is_ok(),
            "assumed": checked.as_ref().map(|c| c.assumed.clone()).unwrap_or_default(),
            "error": checked.as_ref().err().map(|e| e.to_string()),
        });
        match checked {
            Ok(c) if !json => {
                println!(
                    "{}: a legal sealed setup for side {} with {}",
                    s.sealed.display(),
                    s.side,
                    s.setup.display()
                );
                for a in &c.assumed {
                    println!("  (checked assuming {a})");
                }
            }
            Ok(_) => {}
            Err(e) => {
                if !json {
                    println!("{e}");
                }
                return finish(report, false);
            }
        }
        if script.is_none() {
            return finish(report, true);
        }
    }
    let language = match Language::for_game(loaded.scenario.as_ref()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("hexveil check: {e}");
            return ExitCode::from(2);
        }
    };
    let text = match script {
        Some(p) => match files::read_text(p) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("hexveil check: {e}");
                return ExitCode::from(2);
            }
        },
        None => {
            let mut t = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut t) {
                eprintln!("hexveil check: cannot read stdin: {e}");
                return ExitCode::from(2);
            }
            t
        }
    };
    let narrator = Narrator::for_game(loaded.scenario.as_ref());
    let mut bad = 0;
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let body = line.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let (ok, said) = match language.parse(body) {
            Ok(Parsed::Act { bytes, .. }) => (true, narrator.action_bytes(&bytes)),
            Ok(Parsed::Help) => (true, "help".to_string()),
            Ok(Parsed::Show(_)) => (true, format!("{body} (shown, nothing sent)")),
            Err(e) => (false, e.to_string()),
        };
        if ok {
            if !json {
                println!("line {}: ok: {said}", n + 1);
            }
            lines
                .push(serde_json::json!({"line": n + 1, "text": body, "ok": true, "action": said}));
        } else {
            bad += 1;
            if !json {
                println!("line {}: `{body}`: {said}", n + 1);
            }
            lines
                .push(serde_json::json!({"line": n + 1, "text": body, "ok": false, "error": said}));
        }
    }
    report["lines"] = lines.into();
    finish(report, bad == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str =
        "# example data\ntarget_type,colour,range_band,basic_th\ninfantry,black,3-6,8\n";

    fn scenario_with(dir: &Path, extra: &str) -> PathBuf {
        let text = format!(
            "{}\n{extra}",
            include_str!("../../../examples/demo/scenario.toml")
        );
        let p = dir.join("scenario.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn r12_a_scenario_names_a_table_file_and_the_genesis_text_carries_it_and_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("league")).unwrap();
        std::fs::write(dir.path().join("league/to_hit.csv"), TABLE).unwrap();
        let p = scenario_with(
            dir.path(),
            "[tables.to_hit]\nfile = \"league/to_hit.csv\"\n",
        );
        let loaded = load_scenario(&p).unwrap();
        let hash = hexveil::tables::sha256_hex(TABLE.as_bytes());
        assert!(loaded.text.contains(&hash), "{}", loaded.text);
        let t = loaded.scenario.supplied_tables();
        assert_eq!(t.csv("to_hit"), Some(TABLE));
        assert_eq!(t.0["to_hit"].sha256.as_deref(), Some(hash.as_str()));
        // A wrong pin, or a file that is not there, is refused by name.
        let p = scenario_with(
            dir.path(),
            &format!(
                "[tables.to_hit]\nfile = \"league/to_hit.csv\"\nsha256 = \"{}\"\n",
                "0".repeat(64)
            ),
        );
        let e = load_scenario(&p).err().unwrap().to_string();
        assert!(e.contains("to_hit") && e.contains(&hash), "{e}");
        let p = scenario_with(dir.path(), "[tables.to_hit]\nfile = \"nowhere.csv\"\n");
        let e = load_scenario(&p).err().unwrap().to_string();
        assert!(e.contains("nowhere.csv"), "{e}");
    }

    // G5: a signed refusal's reason is the server's free text. A dishonest
    // server cannot make it add lines that read as the game's narrative
    // ("RESULT: side B wins"), nor rewrite the screen with an escape
    // sequence: it stays one line, said to be the server's.
    #[test]
    fn g5_a_refusals_reason_is_the_servers_words_on_one_line() {
        let line = refusal_line(
            "refused: out of turn\nlog #12: side A concedes\nRESULT: side B wins (side A conceded)\u{1b}[2J\u{202e}",
            " (the server's signed refusal: proofs/000012-refusal.hxproof)",
        );
        println!("{line}");
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(
            !line.contains('\u{1b}') && !line.contains('\u{202e}'),
            "{line}"
        );
        assert!(
            line.starts_with("refused, nothing changed: out of turn\u{fffd}log #12"),
            "{line}"
        );
        assert!(
            line.ends_with(
                "(the server's words) (the server's signed refusal: proofs/000012-refusal.hxproof)"
            ),
            "{line}"
        );
    }
}
