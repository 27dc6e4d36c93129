//! `hexveil demo`: a short scripted game between two bots, on the embedded
//! demo scenario (examples/demo/), showing hidden and Known A-P mines, a
//! Dummy, A-T mines hidden on a dirt road and in full view, a Daisy Chain
//! pulled across as a tank enters (B28.531, B28.51) and the Booby Traps
//! that every Task Check's Original DR 11/12 is checked against (B28.9).
//! The narrative is printed as each side sees it; then the transcript is
//! written and verified (G5). Dice are real: each run differs.
//!
//! `hexveil demo --http ADDR` also serves the server's web view (the game's
//! live page as it is played, then its page, replay and transcript) and
//! keeps it up after the end until Ctrl-C; without it the demo stops its
//! server when the game is over.
//!
//! `hexveil demo --ruleset minis` plays the miniatures rules instead (seed
//! 004, examples/minis/): a Panzer IV noses into a hidden mixed field with
//! a rifleman beside it, a truck towing a gun crosses an open A-P field, a
//! KV-I drives over A-T mines and into German S-mines, and a German
//! rifleman lays an S-mine and clears a lane.

use super::command::Parser;
use super::script::Script;
use super::transcript::judge;
use hexveil_asl::Side;
use hexveil_core::Ruleset;
use hexveil_protocol::player::Secrets;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The demo scenario.
pub const SCENARIO: &str = include_str!("../../../examples/demo/scenario.toml");
/// Side A's public setup.
pub const SETUP_A: &str = include_str!("../../../examples/demo/setup-a.toml");
/// Side A's sealed setup (nothing hidden).
pub const SEALED_A: &str = include_str!("../../../examples/demo/sealed-a.toml");
/// Side B's public setup.
pub const SETUP_B: &str = include_str!("../../../examples/demo/setup-b.toml");
/// Side B's sealed setup.
pub const SEALED_B: &str = include_str!("../../../examples/demo/sealed-b.toml");
/// Side A's commands.
pub const SCRIPT_A: &str = include_str!("../../../examples/demo/script-a.txt");
/// Side B's commands.
pub const SCRIPT_B: &str = include_str!("../../../examples/demo/script-b.txt");
/// B's standing Daisy Chain order: `brit-squad-1` pulls its chain across
/// 3E5 when an enemy vehicle enters it (B28.531).
pub const DAISY_B: &str = "brit-squad-1@3E5";

/// One demo game: its ruleset, scenario, each side's setups, standing
/// orders and script.
#[derive(Clone, Debug)]
pub struct DemoGame {
    /// The ruleset.
    pub ruleset: Arc<dyn Ruleset>,
    /// The scenario text.
    pub scenario: &'static str,
    /// Each side's public setup (A, B).
    pub setups: [&'static str; 2],
    /// Each side's sealed setup.
    pub sealed: [&'static str; 2],
    /// Each side's standing orders, in the ruleset's encoding.
    pub orders: [Vec<u8>; 2],
    /// Each side's commands.
    pub scripts: [&'static str; 2],
}

impl DemoGame {
    /// The ASL demo (examples/demo/).
    pub fn asl() -> Result<DemoGame, String> {
        let scenario = hexveil_asl::model::scenario::Scenario::from_toml(SCENARIO)
            .map_err(|e| e.to_string())?;
        let parser = Parser::new(&scenario);
        Ok(DemoGame {
            ruleset: Arc::new(hexveil_asl::ruleset::Asl),
            scenario: SCENARIO,
            setups: [SETUP_A, SETUP_B],
            sealed: [SEALED_A, SEALED_B],
            orders: [
                Vec::new(),
                hexveil_asl::standing_orders::encode(&[super::play::daisy_order(
                    &parser, DAISY_B,
                )?]),
            ],
            scripts: [SCRIPT_A, SCRIPT_B],
        })
    }

    /// The miniatures demo (examples/minis/, seed 004).
    pub fn minis() -> DemoGame {
        DemoGame {
            ruleset: Arc::new(hexveil_minis::Minis),
            scenario: minis::SCENARIO,
            setups: [minis::SETUP_A, minis::SETUP_B],
            sealed: [minis::SEALED_A, minis::SEALED_B],
            orders: [Vec::new(), Vec::new()],
            scripts: [minis::SCRIPT_A, minis::SCRIPT_B],
        }
    }

    /// The demo of ruleset `id`.
    pub fn of(id: &str) -> Result<DemoGame, String> {
        match id {
            "asl" => DemoGame::asl(),
            "minis" => Ok(DemoGame::minis()),
            other => Err(format!(
                "there is no demo for ruleset {other:?}: try asl or minis"
            )),
        }
    }

    /// Both sides' fresh secrets (seeds from the system RNG).
    pub fn secrets(&self) -> Result<[Secrets; 2], String> {
        let scenario = self.ruleset.load(self.scenario)?;
        let layers = scenario.sealed_layers();
        let mut out = Vec::new();
        for (i, side) in [Side::A, Side::B].into_iter().enumerate() {
            out.push(
                Secrets::generate(
                    side,
                    &layers,
                    self.setups[i].into(),
                    self.sealed[i].into(),
                    self.orders[i].clone(),
                )
                .map_err(|e| e.to_string())?,
            );
        }
        let [a, b]: [Secrets; 2] = out.try_into().map_err(|_| "two sides".to_string())?;
        Ok([a, b])
    }
}

/// The miniatures demo's files (examples/minis/).
pub mod minis {
    /// The scenario.
    pub const SCENARIO: &str = include_str!("../../../examples/minis/scenario.toml");
    /// Side A's public setup.
    pub const SETUP_A: &str = include_str!("../../../examples/minis/setup-a.toml");
    /// Side A's sealed setup (S-mines across the road).
    pub const SEALED_A: &str = include_str!("../../../examples/minis/sealed-a.toml");
    /// Side B's public setup (with an open A-P field).
    pub const SETUP_B: &str = include_str!("../../../examples/minis/setup-b.toml");
    /// Side B's sealed setup (a hidden mixed field and A-T cells).
    pub const SEALED_B: &str = include_str!("../../../examples/minis/sealed-b.toml");
    /// Side A's commands.
    pub const SCRIPT_A: &str = include_str!("../../../examples/minis/script-a.txt");
    /// Side B's commands.
    pub const SCRIPT_B: &str = include_str!("../../../examples/minis/script-b.txt");
}

/// Prints what both sides see of each log entry, merged: lines both see
/// once (`A+B`), the others with the side that sees them.
#[derive(Debug, Default)]
pub struct TwoViews {
    pending: BTreeMap<u64, [Option<Vec<String>>; 2]>,
}

fn index(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

impl TwoViews {
    /// Takes one side's lines for entry `seq`; prints every entry both
    /// sides have reported.
    pub fn add(&mut self, side: Side, seq: u64, lines: Vec<String>) {
        self.pending.entry(seq).or_default()[index(side)] = Some(lines);
        while let Some((&seq, views)) = self.pending.iter().next() {
            if views.iter().any(|v| v.is_none()) {
                break;
            }
            let [a, b] = self.pending.remove(&seq).unwrap_or_default();
            print_merged(&a.unwrap_or_default(), &b.unwrap_or_default());
        }
    }

    /// Prints whatever is left.
    pub fn flush(&mut self) {
        for (_, [a, b]) in std::mem::take(&mut self.pending) {
            print_merged(&a.unwrap_or_default(), &b.unwrap_or_default());
        }
    }
}

fn print_merged(a: &[String], b: &[String]) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                println!("A+B | {x}");
                i += 1;
                j += 1;
            }
            (Some(x), _) if !b[j..].contains(x) => {
                println!("A   | {x}");
                i += 1;
            }
            (_, Some(y)) if !a[i..].contains(y) => {
                println!("  B | {y}");
                j += 1;
            }
            (Some(x), _) => {
                println!("A   | {x}");
                i += 1;
            }
            (None, Some(y)) => {
                println!("  B | {y}");
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// Prints the verdict on a transcript and whether it is clean.
pub fn report(bytes: &[u8], path: &std::path::Path) -> bool {
    let (verdict, code) = judge(bytes);
    println!();
    println!("transcript: {} ({} bytes)", path.display(), bytes.len());
    println!("hexveil verify {}:", path.display());
    println!("{verdict}");
    code == 0
}

/// Entries per pad in the demo's game (a short game needs few rolls).
pub const DEMO_PAD_LEN: u32 = 256;

/// The demo's server kept running after the game for its web view
/// (`--http`): dropped or [`KeptServer::stop`]ped, it stops.
#[derive(Debug)]
pub struct KeptServer {
    server: hexveil_server::Server,
    /// The data directory, removed when the server is gone.
    _dir: tempfile::TempDir,
    /// The web view's address.
    pub http: std::net::SocketAddr,
    /// The demo game.
    pub game_id: hexveil_net::wire::GameId,
}

impl KeptServer {
    /// The game's live page.
    pub fn live_url(&self) -> String {
        format!("http://{}/game/{}", self.http, self.game_id)
    }

    /// The game's replay page.
    pub fn replay_url(&self) -> String {
        format!("{}/replay", self.live_url())
    }

    /// Stops the server (its web view first).
    pub async fn stop(self) {
        self.server.shutdown().await;
    }
}

/// Runs the demo: a server in-process on 127.0.0.1:0 with a fresh data
/// directory, two bots over real QUIC, the scripted game in `mode` (Live,
/// or Escrow: the bots escrow their setups and the server answers for
/// them, DESIGN 3.6); returns the transcript the server stored. With
/// `http`, the server also serves its web view there, and is returned
/// running instead of stopped.
pub async fn run(
    game: &DemoGame,
    mode: hexveil_protocol::message::Mode,
    http: Option<std::net::SocketAddr>,
    pace: std::time::Duration,
) -> Result<(Vec<u8>, Option<KeptServer>), String> {
    use super::evidence::Proofs;
    use super::play::{fetch_transcript, play_seat, AfterScript, Input, Output, PATIENCE};
    use super::reconnect::Lifeline;
    use hexveil::driver::{Client, SeatSetup};
    use hexveil::follow::Follower;
    use hexveil_net::new_game::NewGame;
    use hexveil_net::tls::ServerTrust;
    use hexveil_protocol::identity::Identity;
    use hexveil_server::config::ServerSettings;
    use hexveil_server::live_game::LiveGameFactory;
    use hexveil_server::secrets::ServerSecrets;
    use hexveil_server::Server;

    let s = |e: &dyn std::fmt::Display| e.to_string();
    let scenario = game.ruleset.load(game.scenario)?;
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a data directory: {e}"))?;
    let (server_secrets, _) = ServerSecrets::load_or_create(dir.path()).map_err(|e| s(&e))?;
    let mut settings = ServerSettings::new(
        dir.path().to_owned(),
        "127.0.0.1:0".parse().map_err(|e| s(&e))?,
    );
    settings.http = http;
    let server = Server::start(
        settings,
        Arc::new(LiveGameFactory::new(Arc::new(server_secrets))),
    )
    .await
    .map_err(|e| format!("the server did not start: {e}"))?;
    println!(
        "server listening on {} (QUIC), certificate fingerprint {}",
        server.local_addr(),
        server.fingerprint()
    );
    if let Some(addr) = server.http_addr() {
        println!("web view on http://{addr}/ (every game of this server)");
    }
    let trust = ServerTrust::Pinned(server.fingerprint());
    let docs = [
        Identity::generate_pkcs8().map_err(|e| s(&e))?,
        Identity::generate_pkcs8().map_err(|e| s(&e))?,
    ];
    let mut clients = Vec::new();
    let mut players = Vec::new();
    for d in &docs {
        let mut client = Client::connect(server.local_addr(), trust.clone(), d)
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        client.set_wait(PATIENCE);
        players.push(client.public_key().map_err(|e| s(&e))?);
        clients.push(client);
    }
    let players = [players[0], players[1]];
    println!(
        "side A's bot key {}\nside B's bot key {}",
        players[0], players[1]
    );
    let game_id = clients[0]
        .create_game(&NewGame {
            ruleset: game.ruleset.id().into(),
            ruleset_version: game.ruleset.version(),
            scenario_toml: game.scenario.into(),
            players,
            mode,
            pad_len: DEMO_PAD_LEN,
            answer_timeout_secs: None,
        })
        .await
        .map_err(|e| format!("cannot create the game: {e}"))?;
    println!(
        "game {game_id} created: \"{}\" ({})",
        scenario.name(),
        game.ruleset.title()
    );
    if let Some(addr) = server.http_addr() {
        println!("watch it live in a browser: http://{addr}/game/{game_id}");
    }
    let [sa, sb] = game.secrets()?;
    let mut seats = Vec::new();
    for (client, secrets) in clients.into_iter().zip([sa, sb]) {
        let setup = SeatSetup {
            ruleset: game.ruleset.clone(),
            scenario_toml: game.scenario.into(),
            secrets,
            pad_len: DEMO_PAD_LEN,
            mode,
        };
        seats.push(
            client
                .join(game_id, setup)
                .await
                .map_err(|e| format!("cannot join: {e}"))?,
        );
    }
    let mut seat_b = seats.pop().ok_or("no seat B")?;
    let mut seat_a = seats.pop().ok_or("no seat A")?;
    println!();
    println!("A+B | what both sides see;  A   | side A only;  B | side B only");
    println!();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let tx_b = tx.clone();
    // One node: a seat that loses it waits for it (issue 25).
    let server_addr = server.local_addr().to_string();
    let play_a = async {
        let out = Output::Channel(tx);
        let input = Input::Script {
            script: Script::new(game.scripts[0]).paced(pace),
            then: AfterScript::Concede,
        };
        let mut line = Lifeline::new(
            Follower::new(vec![server_addr.clone()], trust.clone(), &docs[0]),
            None,
        );
        play_seat(
            &mut seat_a,
            scenario.as_ref(),
            input,
            &out,
            &mut line,
            &Proofs::nowhere(),
        )
        .await
    };
    let play_b = async {
        let out = Output::Channel(tx_b);
        let input = Input::Script {
            script: Script::new(game.scripts[1]).paced(pace),
            then: AfterScript::Concede,
        };
        let mut line = Lifeline::new(
            Follower::new(vec![server_addr.clone()], trust.clone(), &docs[1]),
            None,
        );
        play_seat(
            &mut seat_b,
            scenario.as_ref(),
            input,
            &out,
            &mut line,
            &Proofs::nowhere(),
        )
        .await
    };
    let printer = async {
        let mut views = TwoViews::default();
        while let Some((side, seq, lines)) = rx.recv().await {
            views.add(side, seq, lines);
        }
        views.flush();
    };
    // The first seat to fail ends the game at once, with its own error:
    // the other would otherwise wait for answers that never come.
    let plays = async {
        tokio::try_join!(
            async { play_a.await.map_err(|e| format!("side A: {e}")) },
            async { play_b.await.map_err(|e| format!("side B: {e}")) },
        )
    };
    let game_play = async {
        let (played, ()) = tokio::join!(plays, printer);
        played
    };
    // Two minutes, plus the pace of every scripted line.
    let lines = game
        .scripts
        .iter()
        .map(|s| s.lines().count())
        .sum::<usize>();
    let within = std::time::Duration::from_secs(120)
        + pace.saturating_mul(u32::try_from(lines).unwrap_or(u32::MAX));
    tokio::time::timeout(within, game_play)
        .await
        .map_err(|_| format!("the demo game did not finish within {} s", within.as_secs()))??;
    let transcript = fetch_transcript(&mut seat_a)
        .await
        .map_err(|e| format!("cannot fetch the transcript: {e}"))?;
    // Each bot checks what it was shown against the published log, as a
    // player's client does after a game (issue 24).
    for seat in [&seat_a, &seat_b] {
        println!(
            "side {}: {}",
            seat.side(),
            super::evidence::audit_line(&transcript, seat.player().witness(), &Proofs::nowhere())
        );
    }
    seat_a.close().await;
    seat_b.close().await;
    match server.http_addr() {
        Some(http) => Ok((
            transcript,
            Some(KeptServer {
                server,
                _dir: dir,
                http,
                game_id,
            }),
        )),
        None => {
            server.shutdown().await;
            Ok((transcript, None))
        }
    }
}

/// What only the referee saw during play, now revealed by the transcript:
/// the hidden events and the mines and traps nobody set off.
pub fn hidden_story(bytes: &[u8]) -> Vec<String> {
    let Ok(t) = hexveil_protocol::transcript::Transcript::parse(bytes) else {
        return Vec::new();
    };
    let lines = super::transcript::replay_lines(&t);
    let mut out: Vec<String> = lines
        .iter()
        .filter(|l| l.contains("(referee only)") || l.contains("(side "))
        .map(|l| l.trim().to_string())
        .collect();
    let asl = lines.first().is_some_and(|l| l.contains("(ruleset asl "));
    let task_checks = lines
        .iter()
        .filter(|l| l.contains("takes a Task Check"))
        .count();
    let booby = lines.iter().any(|l| l.contains("BOOBY TRAP:"));
    if asl && !booby {
        out.push(format!(
            "[B28.9] side B's Booby Traps (level C on board 3) stayed hidden: {} Task Check{} taken, none with an Original DR that sets them off (level C needs a 12)",
            task_checks,
            if task_checks == 1 { " was" } else { "s were" }
        ));
    }
    out.extend(
        lines
            .iter()
            .filter(|l| l.trim_start().starts_with("side ") && !l.ends_with("all empty"))
            .map(|l| format!("revealed at the end: {}", l.trim())),
    );
    out
}

/// The demo's pace by default: about a second per action when the game is
/// watched in a browser (`--http`), none otherwise (issue 27).
pub fn default_pace(http: bool) -> std::time::Duration {
    if http {
        std::time::Duration::from_secs(1)
    } else {
        std::time::Duration::ZERO
    }
}

/// `hexveil demo [--out FILE] [--escrow] [--ruleset asl|minis] [--http
/// ADDR] [--pace SECS]`.
pub fn main(
    out: Option<std::path::PathBuf>,
    escrow: bool,
    ruleset: &str,
    http: Option<std::net::SocketAddr>,
    pace: Option<f64>,
) -> std::process::ExitCode {
    use hexveil_protocol::message::Mode;
    use std::process::ExitCode;
    let game = match DemoGame::of(ruleset) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("hexveil demo: {e}");
            return ExitCode::from(2);
        }
    };
    if ruleset == "asl" {
        println!("hexveil demo: side A (German) attacks into side B's (British) mined ground.");
        println!("B hides (sealed, committed before play, never sent to A):");
        for l in SEALED_B.lines().filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && !t.starts_with("side")
        }) {
            println!("    {l}");
        }
        println!("    and a standing order: {DAISY_B} (pull the Daisy Chain across 3E5 when a vehicle enters)");
    } else {
        println!("hexveil demo --ruleset minis: the miniatures minefield rules (seed 004) on a 48 x 36 in table.");
        for (side, sealed) in [("A", minis::SEALED_A), ("B", minis::SEALED_B)] {
            println!("{side} hides (sealed, committed before play, never sent to the other side):");
            for l in sealed.lines().filter(|l| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with('#') && !t.starts_with("side")
            }) {
                println!("    {l}");
            }
        }
    }
    let pace = match pace {
        None => default_pace(http.is_some()),
        Some(p) => match std::time::Duration::try_from_secs_f64(p) {
            Ok(d) if d <= std::time::Duration::from_secs(60) => d,
            _ => {
                eprintln!(
                    "hexveil demo: --pace {p} is not a number of seconds from 0 to 60 (e.g. 1 or 0.5)"
                );
                return ExitCode::from(2);
            }
        },
    };
    if !pace.is_zero() {
        println!(
            "each bot waits {} s before each action, so the game can be watched (--pace)",
            pace.as_secs_f64()
        );
    }
    let mode = if escrow {
        println!("Escrow mode (docs/DESIGN.md, Escrow mode): each bot gives the server its hidden setup and standing orders when it sets up; the server checks them at once and answers for the hidden facts. The bots still release their own pad entries, so the dice stay out of the server's hands.");
        Mode::Escrow
    } else {
        Mode::Live
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hexveil demo: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (bytes, kept) = match runtime.block_on(run(&game, mode, http, pace)) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hexveil demo: {e}");
            return ExitCode::FAILURE;
        }
    };
    let path = out.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("hexveil-demo-{}.transcript", std::process::id()))
    });
    if let Err(e) = super::files::write_durably(&path, &bytes) {
        eprintln!("hexveil demo: {e}");
        return ExitCode::FAILURE;
    }
    println!();
    println!("What only the referee knew during play (the transcript reveals it now):");
    for l in hidden_story(&bytes) {
        println!("    {l}");
    }
    let clean = report(&bytes, &path);
    println!(
        "replay it with everything revealed: hexveil replay {}",
        path.display()
    );
    if let Some(kept) = kept {
        println!();
        println!("the web view stays up until Ctrl-C:");
        println!("    the game's page: {}", kept.live_url());
        println!("    its replay:      {}", kept.replay_url());
        println!("    every game:      http://{}/", kept.http);
        runtime.block_on(async {
            if let Err(e) = tokio::signal::ctrl_c().await {
                eprintln!("hexveil demo: cannot wait for Ctrl-C: {e}");
            }
            kept.stop().await;
        });
    }
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
