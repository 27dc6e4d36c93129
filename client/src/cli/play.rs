//! The network subcommands: `create`, `list`, `join` (play one seat,
//! interactively or from a script) and `watch` (spectate), over QUIC with
//! the server pinned by its certificate fingerprint (DESIGN 5). Machine
//! prompts are answered by the protocol player inside the driver; only
//! `Prompt::Act` asks the human (or the script).

use super::board::Board;
use super::command::{Language, Parsed, Parser};
use super::narrate::{Narrator, Reader};
use super::prompt::{confirmed, Completions, CONCEDE_QUESTION};
use super::script::{Next, Script};
use super::secrets::{self, Origin};
use super::{files, keys, transcript};
use hexveil::driver::{Client, DriverError, GameEvent, RemotePlayer, SeatSetup};
use hexveil_asl::scenario::Scenario;
use hexveil_asl::standing_orders::{self, DaisyOrder};
use hexveil_asl::Side;
use hexveil_core::Ruleset;
use hexveil_protocol::identity::PublicKey;
use hexveil_protocol::message::{Mode, Prompt};
use hexveil_protocol::player::Secrets;
use hexveil_server::live_game::NewGame;
use hexveil_server::tls::{Fingerprint, ServerTrust};
use hexveil_server::wire::GameId;
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
}

/// Where the server is and who we are.
#[derive(Clone, Debug, clap::Args)]
pub struct Connect {
    /// The server's address, e.g. 127.0.0.1:4433.
    #[arg(long)]
    pub server: SocketAddr,
    /// The server's certificate fingerprint (hex), as it prints it at start.
    #[arg(long)]
    pub fingerprint: String,
    /// Your key file (`hexveil keygen`).
    #[arg(long)]
    pub key: PathBuf,
}

/// How long the CLI waits for the server: a player may think as long as
/// they like (a dead server is noticed by the QUIC idle timeout).
pub const PATIENCE: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a finished game's transcript may take to be stored.
pub const TRANSCRIPT_WAIT: Duration = Duration::from_secs(5);

impl Connect {
    async fn client(&self) -> Result<Client, PlayError> {
        let fp: Fingerprint = self
            .fingerprint
            .parse()
            .map_err(|_| PlayError::Fingerprint(self.fingerprint.clone()))?;
        let (pkcs8, _) = keys::load(&self.key)?;
        let mut client = Client::connect(self.server, ServerTrust::Pinned(fp), &pkcs8).await?;
        client.set_wait(PATIENCE);
        Ok(client)
    }
}

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
/// alone, for scripts).
pub async fn create(
    c: &Connect,
    scenario: &Path,
    side: Side,
    opponent: &str,
    terms: Terms,
) -> Result<(), PlayError> {
    let loaded = load_scenario(scenario)?;
    let other: PublicKey = opponent
        .parse()
        .map_err(|_| PlayError::PublicKey(opponent.into()))?;
    let mut client = c.client().await?;
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
    println!("{}", game_hex(&game));
    client.close().await;
    Ok(())
}

/// `hexveil list`.
pub async fn list(c: &Connect) -> Result<(), PlayError> {
    let mut client = c.client().await?;
    let games = client.list_games().await?;
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
    client.close().await;
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
    Concede,
}

/// Where a seat's narrative goes.
#[derive(Debug)]
pub enum Output {
    /// Printed, each line as it comes.
    Print,
    /// Sent with the side and seq (the demo merges both sides' views).
    Channel(mpsc::UnboundedSender<(Side, u64, Vec<String>)>),
}

impl Output {
    fn lines(&self, side: Side, seq: u64, lines: Vec<String>) {
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

    fn note(&self, side: Side, text: &str) {
        match self {
            Output::Print => println!("{text}"),
            Output::Channel(_) => println!("side {side}: {text}"),
        }
    }
}

/// Reads one line from stdin without blocking the runtime; `None` at EOF.
/// On a terminal the line is edited with history and tab completion
/// (`prompt::read_line`); piped stdin is read one plain line at a time.
async fn read_stdin_line(
    prompt: String,
    completions: std::sync::Arc<Completions>,
    history: bool,
) -> Option<String> {
    tokio::task::spawn_blocking(move || super::prompt::read_line(&prompt, completions, history))
        .await
        .ok()
        .flatten()
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

async fn decide(
    input: &mut Input,
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
                let words = std::sync::Arc::new(completions(language, board));
                let Some(line) =
                    read_stdin_line(format!("side {side}> "), words.clone(), true).await
                else {
                    return Decision::Leave;
                };
                if line.trim().is_empty() {
                    continue;
                }
                match language.parse(&line) {
                    // Typed at a terminal, `concede` asks first.
                    Ok(Parsed::Act { concede: true, .. }) if super::prompt::interactive() => {
                        let answer = read_stdin_line(CONCEDE_QUESTION.into(), words, false).await;
                        if answer.as_deref().is_some_and(confirmed) {
                            return Decision::Concede;
                        }
                        println!("not conceded, nothing sent");
                    }
                    Ok(Parsed::Act { bytes, concede }) => return decision(bytes, concede),
                    Ok(Parsed::Help) => print!("{}", language.help()),
                    Ok(Parsed::Show(view)) => print!("{}", board.show(view)),
                    Err(e) => println!("not sent: {e}"),
                }
            }
        }
    }
}

/// Plays one seat until the log is closed (`true`) or the input ends
/// (`false`: the seat stays ours on the server). The driver answers every
/// machine prompt; only a current `Prompt::Act` asks the input.
pub async fn play_seat(
    seat: &mut RemotePlayer,
    scenario: &dyn hexveil_core::Scenario,
    mut input: Input,
    out: &Output,
) -> Result<bool, PlayError> {
    let side = seat.side();
    let language = Language::for_game(scenario).map_err(PlayError::Input)?;
    let mut narrator = Narrator::for_game(scenario);
    // The seat's own picture of the game, from what it receives (G3).
    let mut board = Board::for_game(scenario);
    board.viewer = Some(side);
    let interactive = matches!(out, Output::Print);
    let mut acting = false;
    loop {
        if seat.is_closed() && seat.pending_events() == 0 {
            return Ok(true);
        }
        let note = |text: String| {
            out.note(side, &format!("server: {text}"));
            false
        };
        let ask = match seat.next_event().await? {
            GameEvent::Update(u) | GameEvent::Replayed(u) => {
                // Of the views re-sent when the seat is taken, only the
                // last is current: the others' prompts are history.
                let live = seat.last_seq() == Some(u.seq);
                narrator.prompts = interactive && live;
                let lines = narrator.update(&u, Reader::Player(side));
                board.update(&u, &lines);
                out.lines(side, u.seq, lines);
                acting = live && u.prompt == Prompt::Act;
                acting
            }
            GameEvent::Rejected(reason) => {
                out.note(side, &format!("refused, nothing changed: {reason}"));
                acting
            }
            GameEvent::Receipt(_) => false,
            GameEvent::Transcript(_) => note("transcript".into()),
            GameEvent::ServerError { message, .. } => note(message),
            GameEvent::Left => note(format!("Left {{ game_id: {:?} }}", seat.game_id())),
            GameEvent::Pong(nonce) => note(format!("Pong {{ nonce: {nonce:?} }}")),
            GameEvent::Other(text) => note(text),
        };
        if ask {
            // `acting` stays set until the next update: a refused action
            // (nothing changed) asks again.
            match decide(&mut input, &language, side, out, &board).await {
                Decision::Concede => {
                    seat.concede()?;
                }
                Decision::Act(bytes) => {
                    seat.act(bytes)?;
                }
                Decision::Leave => return Ok(false),
            }
        }
    }
}

/// The finished game's transcript, once the server has stored it.
pub async fn fetch_transcript(seat: &mut RemotePlayer) -> Result<Vec<u8>, PlayError> {
    seat.set_wait(TRANSCRIPT_WAIT);
    Ok(seat.fetch_transcript().await?)
}

/// Everything `join` needs.
#[derive(Clone, Debug)]
pub struct JoinArgs {
    /// The game.
    pub game: String,
    /// The side.
    pub side: Side,
    /// The scenario file (the one the game was created from).
    pub scenario: PathBuf,
    /// The public setup file.
    pub setup: PathBuf,
    /// The sealed setup file.
    pub sealed: PathBuf,
    /// Daisy Chain standing orders, `HOLDER@HEX`.
    pub daisy: Vec<String>,
    /// The secrets directory.
    pub secrets: PathBuf,
    /// A command file.
    pub script: Option<PathBuf>,
    /// Where to write the transcript (default DIR/transcript.hexveil).
    pub out: Option<PathBuf>,
    /// Whether the player agrees to an Escrow game (DESIGN 3.6).
    pub escrow: bool,
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

/// `hexveil join`: plays one seat; the secrets are on disk before any
/// commitment is sent.
pub async fn join(c: &Connect, j: &JoinArgs) -> Result<(), PlayError> {
    let game_id = parse_game_id(&j.game)?;
    let loaded = load_scenario(&j.scenario)?;
    let public = files::read_text(&j.setup)?;
    let sealed = files::read_text(&j.sealed)?;
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
    // Check both setups before anything is stored or sent.
    let public_setup = loaded
        .scenario
        .public_setup(j.side, &public)
        .map_err(|e| PlayError::Input(format!("{}: {e}", j.setup.display())))?;
    loaded
        .scenario
        .sealed_contents(public_setup.as_ref(), &sealed)
        .map_err(|e| PlayError::Input(format!("{}: {e}", j.sealed.display())))?;
    let layers = loaded.scenario.sealed_layers();
    let (secrets, origin) = secrets::load_or_create(&j.secrets, &j.game, j.side, || {
        Secrets::generate(
            j.side,
            &layers,
            public.clone(),
            sealed.clone(),
            orders.clone(),
        )
        .map_err(|e| e.to_string())
    })?;
    match origin {
        Origin::Created => println!(
            "secrets for side {} written to {} (keep them: you reveal them at the end)",
            j.side,
            j.secrets.join(secrets::FILE).display()
        ),
        Origin::Reloaded => {
            println!(
                "resuming with the secrets in {}",
                j.secrets.join(secrets::FILE).display()
            );
            // What was committed cannot change: say so if the files given
            // now differ from the ones stored at the first join.
            for (what, given, stored) in [
                ("--setup", &public, &secrets.public_setup_toml),
                ("--sealed", &sealed, &secrets.sealed_setup_toml),
            ] {
                if given != stored {
                    println!(
                        "note: {what} differs from the file given at the first join; the stored one is used (it is what you committed to)"
                    );
                }
            }
            if orders != secrets.orders {
                println!(
                    "note: --daisy differs from the standing orders given at the first join; the stored ones are used"
                );
            }
        }
    }
    let client = c.client().await?;
    let mut seat = client
        .join(
            game_id,
            SeatSetup {
                ruleset: loaded.ruleset.clone(),
                scenario_toml: loaded.text.clone(),
                secrets,
                pad_len: hexveil_protocol::pad::DEFAULT_PAD_LEN,
                mode: mode(j.escrow),
            },
        )
        .await?;
    println!(
        "joined game {} as side {}; type `help` for commands when it is your move",
        j.game, j.side
    );
    let input = match &j.script {
        Some(p) => Input::Script {
            script: Script::new(&files::read_text(p)?),
            then: AfterScript::Stdin,
        },
        None => Input::Stdin,
    };
    if play_seat(&mut seat, loaded.scenario.as_ref(), input, &Output::Print).await? {
        let t = fetch_transcript(&mut seat).await?;
        {
            let path = j
                .out
                .clone()
                .unwrap_or_else(|| j.secrets.join("transcript.hexveil"));
            files::write_durably(&path, &t, true)?;
            let (verdict, _) = transcript::judge(&t);
            println!("transcript written to {}", path.display());
            println!("{verdict}");
        }
    } else {
        println!("no more commands; leaving (the seat stays yours: join again to resume)");
    }
    seat.close().await;
    Ok(())
}

/// `hexveil watch`: the public narrative of a game. With the scenario
/// file, units are named; without it, by `id:N`.
pub async fn watch(
    c: &Connect,
    game: &str,
    scenario: Option<&Path>,
    out: Option<PathBuf>,
) -> Result<(), PlayError> {
    let game_id = parse_game_id(game)?;
    let mut narrator = match scenario {
        Some(p) => Narrator::for_game(load_scenario(p)?.scenario.as_ref()),
        None => Narrator::new(&Scenario::default()),
    };
    let mut spectator = c.client().await?.watch(game_id).await?;
    println!("watching game {game} (public view: what happened so far, then as it happens)");
    let (mut ended, mut reveals) = (false, 0);
    while !(ended && reveals >= 2) {
        match spectator.next_event().await? {
            GameEvent::Update(u) => {
                match u.entry.as_str() {
                    "end" => ended = true,
                    "reveal" => reveals += 1,
                    _ => {}
                }
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
            GameEvent::ServerError { message, .. } => println!("server: {message}"),
            _ => {}
        }
    }
    spectator.set_wait(TRANSCRIPT_WAIT);
    let t = spectator.fetch_transcript().await?;
    let (verdict, _) = transcript::judge(&t);
    if let Some(path) = out {
        files::write_durably(&path, &t, true)?;
        println!("transcript written to {}", path.display());
    }
    println!("{verdict}");
    spectator.close().await;
    Ok(())
}

/// `hexveil check`: parses every command line of a script (or stdin)
/// against the scenario; prints each line's action in words or what is
/// wrong with it. Exit code 1 if any line is wrong, 2 if a file cannot be
/// read.
pub fn check(scenario: &Path, script: Option<&Path>) -> std::process::ExitCode {
    use std::io::Read;
    use std::process::ExitCode;
    let loaded = match load_scenario(scenario) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("hexveil check: {e}");
            return ExitCode::from(2);
        }
    };
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
    for (n, line) in text.lines().enumerate() {
        let body = line.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        match language.parse(body) {
            Ok(Parsed::Act { bytes, .. }) => {
                println!("line {}: ok: {}", n + 1, narrator.action_bytes(&bytes))
            }
            Ok(Parsed::Help) => println!("line {}: ok: help", n + 1),
            Ok(Parsed::Show(_)) => println!("line {}: ok: {body} (shown, nothing sent)", n + 1),
            Err(e) => {
                bad += 1;
                println!("line {}: `{body}`: {e}", n + 1);
            }
        }
    }
    if bad > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
