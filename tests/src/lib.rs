//! End-to-end test harness for hexveil: a real server (in process through
//! its library, or the `hexveil-server` binary as a child process), real
//! clients ([`hexveil::driver`]) over QUIC on loopback, and a [`Table`] that
//! pumps two seats and a spectator until a condition holds.
//!
//! [`browser`] drives headless Chromium for the web view's tests;
//! [`picture`] reads the board pictures.
//!
//! Every wait is bounded (the driver's wait, [`WAIT`]); nothing here looks
//! at the wall clock to decide a test.

pub mod browser;
pub mod kept;
pub mod picture;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use hexveil::driver::{Client, DriverError, GameEvent, RemotePlayer, SeatSetup, Spectator};
use hexveil_asl::turn::{phase_allows, Phase, TurnEvent, Who as WhoActs};
use hexveil_asl::{Action, EventKind, Side};
use hexveil_net::new_game::NewGame;
use hexveil_net::tls::{Fingerprint, ServerTrust};
use hexveil_net::wire::GameId;
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{Mode, Update};
use hexveil_protocol::player::Secrets;
use hexveil_server::config::ServerSettings;
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::Server;

/// The longest any single wait lasts in these tests.
pub const WAIT: Duration = Duration::from_secs(20);

// The example game (scenario, setups, fixed-seed secrets, unit ids) is the
// one every test suite shares.
pub use hexveil_fixtures::{
    move_into, noise, scenario_toml, secrets, secrets_a, secrets_b, step_into_the_minefield, units,
    PAD_LEN, SEALED_A, SEALED_B, SETUP_A, SETUP_B,
};

/// A game to open: its ruleset and scenario text.
#[derive(Clone, Debug)]
pub struct Game {
    /// The ruleset.
    pub ruleset: Arc<dyn hexveil_core::Ruleset>,
    /// The scenario text.
    pub scenario: String,
}

/// A fresh Ed25519 key, PKCS#8.
pub fn new_key() -> Vec<u8> {
    Identity::generate_pkcs8().expect("system randomness")
}

/// A fresh player key written to `DIR/NAME.pk8`: its path and its public
/// key as text (for `create --opponent`).
pub fn key_file(dir: &Path, name: &str) -> (PathBuf, String) {
    let pkcs8 = new_key();
    let public = Identity::from_pkcs8(&pkcs8)
        .expect("a key just made")
        .public_key()
        .to_string();
    let path = dir.join(format!("{name}.pk8"));
    std::fs::write(&path, pkcs8).expect("the key file written");
    (path, public)
}

/// Where a server listens and how clients trust it.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The UDP address.
    pub addr: SocketAddr,
    /// The certificate fingerprint to pin.
    pub fingerprint: Fingerprint,
}

impl Endpoint {
    /// The pinned trust.
    pub fn trust(&self) -> ServerTrust {
        ServerTrust::Pinned(self.fingerprint)
    }

    /// A logged-in client with a fresh key.
    pub async fn client(&self) -> Client {
        self.client_with(&new_key()).await
    }

    /// A logged-in client with `key`.
    pub async fn client_with(&self, key: &[u8]) -> Client {
        Client::connect(self.addr, self.trust(), key)
            .await
            .expect("connect and log in")
    }
}

/// Starts the server in process on 127.0.0.1:0 with the live hexveil game
/// and the given answer timeout.
pub async fn start_server(dir: &Path, answer_timeout: Duration) -> (Server, Endpoint) {
    let mut settings = ServerSettings::new(dir.to_owned(), "127.0.0.1:0".parse().expect("addr"));
    settings.answer_timeout = answer_timeout;
    let (secrets, _) = ServerSecrets::load_or_create(dir).expect("server secrets");
    let factory = LiveGameFactory::new(Arc::new(secrets));
    let server = Server::start(settings, Arc::new(factory))
        .await
        .expect("server starts");
    let ep = Endpoint {
        addr: server.local_addr(),
        fingerprint: server.fingerprint(),
    };
    (server, ep)
}

/// Name of this package's copy of the `hexveil-server` binary (its `main`
/// is `server/src/main.rs`, see `tests/Cargo.toml`).
pub const SERVER_BIN: &str = "hexveil-server-e2e";

/// Name of this package's copy of the `hexveil-load` binary (its `main` is
/// `load/src/main.rs`, see `tests/Cargo.toml`).
pub const LOAD_BIN: &str = "hexveil-load-e2e";

/// The `hexveil-server` binary `cargo test` built for these tests: cargo
/// builds every binary of a package before running its integration tests,
/// and puts it beside their `deps/` directory (where
/// `CARGO_BIN_EXE_hexveil-server-e2e` points when a test is compiled). No
/// second `cargo build`: it is compiled once, with the tests.
pub fn server_binary() -> PathBuf {
    built_binary(SERVER_BIN)
}

/// A binary of this package (`SERVER_BIN`, `LOAD_BIN`) that `cargo test`
/// built beside the test binaries' `deps/` directory.
pub fn built_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in <target>/<profile>/deps");
    let bin = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "no {name} binary at {} (run these tests with `cargo test`, which builds it)",
        bin.display()
    );
    bin
}

/// The server binary the process tests run: `HEXVEIL_SERVER_BIN` if set
/// (e.g. a release build: `cargo build --release -p hexveil-server`, then
/// `HEXVEIL_SERVER_BIN=target/release/hexveil-server`), else the one
/// `cargo test` built ([`server_binary`]).
pub fn process_binary() -> PathBuf {
    match std::env::var_os("HEXVEIL_SERVER_BIN") {
        Some(p) => PathBuf::from(p),
        None => server_binary(),
    }
}

/// The `hexveil-server` binary as a child process; killed with SIGKILL
/// when dropped.
pub struct ServerProcess {
    child: Child,
    /// Where it listens.
    pub endpoint: Endpoint,
    /// Its transcript key (hex), as it printed it.
    pub transcript_key: String,
    /// Where its web view listens, when started with `--http`.
    pub http: Option<SocketAddr>,
}

impl ServerProcess {
    /// Starts the binary on `listen` (e.g. 127.0.0.1:0) with `data_dir` and
    /// an answer timeout in seconds.
    pub fn spawn(data_dir: &Path, listen: &str, answer_timeout_secs: u64) -> ServerProcess {
        let t = answer_timeout_secs.to_string();
        ServerProcess::spawn_with(data_dir, listen, &["--answer-timeout-secs", &t])
    }

    /// Starts [`process_binary`] on `listen` with `data_dir` and any other
    /// `flags`; returns once it printed its fingerprint, address and
    /// transcript key (and, with `--http`, its web view's address).
    pub fn spawn_with(data_dir: &Path, listen: &str, flags: &[&str]) -> ServerProcess {
        Self::spawn_inner(data_dir, listen, flags, Stdio::null(), "error")
    }

    /// As [`ServerProcess::spawn_with`], its log (`RUST_LOG=info`)
    /// appended to the file `log`.
    pub fn spawn_logged(
        data_dir: &Path,
        listen: &str,
        flags: &[&str],
        log: &Path,
    ) -> ServerProcess {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open the server's log file");
        Self::spawn_inner(data_dir, listen, flags, Stdio::from(log), "info")
    }

    fn spawn_inner(
        data_dir: &Path,
        listen: &str,
        flags: &[&str],
        stderr: Stdio,
        log_level: &str,
    ) -> ServerProcess {
        let mut child = Command::new(process_binary())
            .arg("--listen")
            .arg(listen)
            .arg("--data-dir")
            .arg(data_dir)
            .args(flags)
            .env("RUST_LOG", log_level)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn hexveil-server");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut next = |prefix: &str| -> String {
            let line = lines
                .next()
                .expect("the server prints its first lines")
                .expect("readable stdout");
            line.strip_prefix(prefix)
                .unwrap_or_else(|| panic!("expected `{prefix}...`, got `{line}`"))
                .trim()
                .to_string()
        };
        let fingerprint: Fingerprint = next("fingerprint ").parse().expect("a fingerprint");
        let addr: SocketAddr = next("listening ").parse().expect("an address");
        let transcript_key = next("transcript-key ");
        let http = flags
            .contains(&"--http")
            .then(|| next("http ").parse().expect("the web view's address"));
        ServerProcess {
            child,
            endpoint: Endpoint { addr, fingerprint },
            transcript_key,
            http,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory (VmRSS) in KiB, from /proc (Linux).
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// Sends the process a signal (`kill -SIG`: `-TERM`, `-STOP`, ...).
    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.pid().to_string()])
            .status()
            .expect("run kill")
            .success();
        assert!(ok, "kill {sig} {}", self.pid());
    }

    /// Waits for the process to end; its exit status.
    pub fn wait(&mut self) -> std::process::ExitStatus {
        self.child.wait().expect("wait for hexveil-server")
    }

    /// SIGKILL: no shutdown, no flush beyond what is already durable.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Who received an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Who {
    /// Side A's seat.
    A,
    /// Side B's seat.
    B,
    /// The spectator.
    Spectator,
}

/// Two seats and (optionally) a spectator of one game.
pub struct Table {
    /// The game.
    pub game_id: GameId,
    /// Side A.
    pub a: RemotePlayer,
    /// Side B.
    pub b: RemotePlayer,
    /// The spectator, if one watches.
    pub spectator: Option<Spectator>,
    /// Every event, in the order pumped.
    pub log: Vec<(Who, GameEvent)>,
    /// The current (turn, phasing, phase), from public phase events.
    pub phase: Option<(u16, Side, Phase)>,
}

impl Table {
    /// Creates a game on `ep`, seats a spectator (if asked), A and B with
    /// fresh keys, and plays the machine answers (pads, setups) until side
    /// A may act.
    pub async fn open(ep: &Endpoint, a: Secrets, b: Secrets, pad_len: u32, watch: bool) -> Table {
        Table::open_with_keys(ep, &new_key(), &new_key(), a, b, pad_len, Mode::Live, watch).await
    }

    /// As [`Table::open`] with the example secrets and pads of [`PAD_LEN`],
    /// in a game of `mode` (both players agree to it).
    pub async fn open_in(ep: &Endpoint, mode: Mode, watch: bool) -> Table {
        let (a, b) = (secrets_a(), secrets_b());
        Table::open_with_keys(ep, &new_key(), &new_key(), a, b, PAD_LEN, mode, watch).await
    }

    /// As [`Table::open`] with given keys, in a game of `mode` (both
    /// players agree to it).
    #[allow(clippy::too_many_arguments)]
    pub async fn open_with_keys(
        ep: &Endpoint,
        key_a: &[u8],
        key_b: &[u8],
        a: Secrets,
        b: Secrets,
        pad_len: u32,
        mode: Mode,
        watch: bool,
    ) -> Table {
        let game = Game {
            ruleset: hexveil_fixtures::ruleset(),
            scenario: scenario_toml(),
        };
        Table::open_game(ep, &game, key_a, key_b, [a, b], pad_len, mode, watch).await
    }

    /// A game of `game` (any ruleset) between two fresh keys with these
    /// secrets (A, B), in Live mode, with a spectator if `watch`.
    pub async fn open_for(
        ep: &Endpoint,
        game: &Game,
        secrets: [Secrets; 2],
        pad_len: u32,
        watch: bool,
    ) -> Table {
        Table::open_game(
            ep,
            game,
            &new_key(),
            &new_key(),
            secrets,
            pad_len,
            Mode::Live,
            watch,
        )
        .await
    }

    /// The general form: a game of `game` between `key_a` and `key_b`.
    #[allow(clippy::too_many_arguments)]
    pub async fn open_game(
        ep: &Endpoint,
        game: &Game,
        key_a: &[u8],
        key_b: &[u8],
        secrets: [Secrets; 2],
        pad_len: u32,
        mode: Mode,
        watch: bool,
    ) -> Table {
        let [a, b] = secrets;
        let scenario = game.scenario.clone();
        let mut ca = ep.client_with(key_a).await;
        let cb = ep.client_with(key_b).await;
        let players = [
            ca.public_key().expect("A's key"),
            cb.public_key().expect("B's key"),
        ];
        let game_id = ca
            .create_game(&NewGame {
                ruleset: game.ruleset.id().into(),
                ruleset_version: game.ruleset.version(),
                scenario_toml: scenario.clone(),
                players,
                mode,
                pad_len,
                answer_timeout_secs: None,
            })
            .await
            .expect("create the game");
        let spectator = if watch {
            Some(ep.client().await.watch(game_id).await.expect("watch"))
        } else {
            None
        };
        let seat = |secrets: Secrets| SeatSetup {
            ruleset: game.ruleset.clone(),
            scenario_toml: scenario.clone(),
            secrets,
            pad_len,
            mode,
        };
        let pa = ca.join(game_id, seat(a)).await.expect("A joins");
        let pb = cb.join(game_id, seat(b)).await.expect("B joins");
        let mut t = Table {
            game_id,
            a: pa,
            b: pb,
            spectator,
            log: Vec::new(),
            phase: None,
        };
        t.settle().await.expect("pads and setups");
        t
    }

    /// The seat of `side`.
    pub fn seat(&mut self, side: Side) -> &mut RemotePlayer {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// The seat of `side`, to look at.
    pub fn seat_ref(&self, side: Side) -> &RemotePlayer {
        match side {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    /// Whether both players have seen the log close (the end and both
    /// reveals), and the spectator (if any) has seen its last entry.
    pub fn over(&self) -> bool {
        self.a.is_closed()
            && self.b.is_closed()
            && self
                .spectator
                .as_ref()
                .is_none_or(|s| s.last_seq() == self.a.last_seq())
    }

    /// Fetches the transcript file through every connection once the game
    /// is over; checks they are the same bytes and returns them.
    pub async fn transcript(&mut self) -> Vec<u8> {
        assert!(self.over(), "the game is not over");
        let file = self.a.fetch_transcript().await.expect("A fetches");
        assert_eq!(self.b.fetch_transcript().await.expect("B fetches"), file);
        if let Some(s) = self.spectator.as_mut() {
            assert_eq!(
                s.fetch_transcript().await.expect("the spectator fetches"),
                file
            );
        }
        file
    }

    /// The highest seq any seat has seen.
    pub fn seq(&self) -> u64 {
        self.a
            .last_seq()
            .unwrap_or(0)
            .max(self.b.last_seq().unwrap_or(0))
    }

    /// Whether everyone has seen entry `seq` and a side may act now: every
    /// event received was handed out (an update that placed an entry held
    /// before it gives two events, message version 6).
    pub fn quiet_after(&self, seq: u64) -> bool {
        let a = self.a.last_seq();
        let same =
            a == self.b.last_seq() && self.spectator.as_ref().is_none_or(|s| s.last_seq() == a);
        let handed_out = self.a.pending_events() == 0
            && self.b.pending_events() == 0
            && self
                .spectator
                .as_ref()
                .is_none_or(|s| s.pending_events() == 0);
        same && handed_out && a.is_some_and(|s| s >= seq) && (self.a.may_act() || self.b.may_act())
    }

    /// Pumps until a side may act and everyone has seen the same entries
    /// (or the game is over).
    pub async fn settle(&mut self) -> Result<(), (Who, DriverError)> {
        let seq = self.seq();
        self.pump(|t| t.quiet_after(seq) || t.over()).await
    }

    /// Pumps until every entry after the current one is seen and a side
    /// may act again (or the game is over).
    pub async fn settle_after_next(&mut self) -> Result<(), (Who, DriverError)> {
        let seq = self.seq() + 1;
        self.pump(|t| t.quiet_after(seq) || t.over()).await
    }

    /// Reads events from every connection until `stop` holds.
    pub async fn pump(
        &mut self,
        mut stop: impl FnMut(&Table) -> bool,
    ) -> Result<(), (Who, DriverError)> {
        while !stop(self) {
            self.pump_one().await?;
        }
        Ok(())
    }

    /// Reads one event from whichever connection has one.
    pub async fn pump_one(&mut self) -> Result<(Who, GameEvent), (Who, DriverError)> {
        let Table {
            a, b, spectator, ..
        } = self;
        let watch = async {
            match spectator {
                Some(s) => s.next_event().await,
                None => std::future::pending().await,
            }
        };
        let (who, event) = tokio::select! {
            e = a.next_event() => (Who::A, e),
            e = b.next_event() => (Who::B, e),
            e = watch => (Who::Spectator, e),
        };
        let event = event.map_err(|e| (who, e))?;
        if let GameEvent::Update(u) = &event {
            self.note_phase(u);
        }
        self.log.push((who, event.clone()));
        Ok((who, event))
    }

    /// Keeps the ASL phase (from the public phase events); events of
    /// another ruleset do not decode as ASL's and are passed over.
    fn note_phase(&mut self, u: &Update) {
        for e in &u.events {
            let Ok(asl) = hexveil_asl::ruleset::event_from_kernel(e) else {
                continue;
            };
            if let EventKind::Turn(TurnEvent::PhaseBegins {
                turn,
                phasing,
                phase,
            }) = asl.kind
            {
                self.phase = Some((turn, phasing, phase));
            }
        }
    }

    /// The side whose `EndPhase` ends the current phase: the defender in
    /// the Defensive Fire Phase (A3.5), the phasing side otherwise
    /// (`turn::phase_allows`, from the public phase events).
    pub fn ender(&self) -> Side {
        let Some((_, phasing, phase)) = self.phase else {
            // Before the first phase event: the side the referee prompts.
            return if self.b.may_act() { Side::B } else { Side::A };
        };
        match phase_allows(&Action::EndPhase, phase) {
            Ok(WhoActs::NonPhasing) => phasing.opponent(),
            _ => phasing,
        }
    }

    /// `side` declares `action` (an ASL action, or any ruleset's bytes);
    /// pumps until the game is quiet again.
    pub async fn act(&mut self, side: Side, action: impl Into<Vec<u8>> + std::fmt::Debug) {
        let shown = format!("{action:?}");
        self.seat(side).act(action).expect("send the action");
        if let Err((w, e)) = self.settle_after_next().await {
            let tail: Vec<String> = self
                .log
                .iter()
                .rev()
                .take(8)
                .map(|(w, e)| format!("{w:?}: {}", brief(e)))
                .collect();
            panic!("{w:?}: {e} after side {side} declared {shown}; last events, newest first: {tail:#?}");
        }
    }

    /// The phasing side ends phases until `phase` of side `phasing` begins.
    pub async fn end_phase_until(&mut self, phasing: Side, phase: Phase) {
        for _ in 0..40 {
            if matches!(self.phase, Some((_, s, p)) if s == phasing && p == phase) {
                return;
            }
            let side = self.ender();
            self.act(side, Action::EndPhase).await;
        }
        panic!("never reached {phase:?} of side {phasing}");
    }

    /// Every event `who` received, in order.
    pub fn events_of(&self, who: Who) -> impl Iterator<Item = &GameEvent> {
        self.log
            .iter()
            .filter(move |(w, _)| *w == who)
            .map(|(_, e)| e)
    }

    /// Every rejection reason `who` received: refused entries, server
    /// errors, and actions the engine refused only after their facts or
    /// dice were used (a Void ruling, e.g. a rules-data cell missing, R12),
    /// which an honest game on complete data never has.
    pub fn rejections(&self, who: Who) -> Vec<String> {
        self.events_of(who)
            .flat_map(|e| match e {
                GameEvent::Rejected(r) => vec![r.reason.clone()],
                GameEvent::ServerError { message, .. } => vec![message.clone()],
                GameEvent::Update(u) => u
                    .events
                    .iter()
                    .filter_map(|e| match &e.kind {
                        hexveil_core::EventKind::Void { reason } => {
                            Some(format!("void ruling: {reason}"))
                        }
                        _ => None,
                    })
                    .collect(),
                _ => vec![],
            })
            .collect()
    }

    /// What `pick` takes from the ASL events `who` was shown after log
    /// position `from`, in order.
    pub fn asl_seen<T>(
        &self,
        from: usize,
        who: Who,
        pick: impl Fn(EventKind) -> Option<T>,
    ) -> Vec<T> {
        self.log[from..]
            .iter()
            .filter(|(w, _)| *w == who)
            .flat_map(|(_, e)| match e {
                GameEvent::Update(u) => u
                    .events
                    .iter()
                    .filter_map(|e| pick(hexveil_fixtures::asl(e).kind))
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    }
}

/// One line about an event, for failure messages.
pub fn brief(e: &GameEvent) -> String {
    match e {
        GameEvent::Update(u) | GameEvent::Replayed(u) => {
            format!("#{} {} -> {:?}; {:?}", u.seq, u.entry, u.prompt, u.events)
        }
        GameEvent::Receipt(r) => format!("receipt #{}", r.seq),
        other => format!("{other:?}"),
    }
}

/// Text of every event of an update (for assertions on what was shown).
pub fn events_text(u: &Update) -> String {
    // ASL events as ASL reads them (a test of another ruleset reads its own).
    match u
        .events
        .iter()
        .map(hexveil_asl::ruleset::event_from_kernel)
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(asl) => format!("{asl:?}"),
        Err(_) => format!("{:?}", u.events),
    }
}
