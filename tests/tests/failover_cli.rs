//! Failover that players do not notice (issue 25, G6): three real
//! `hexveil-server` nodes on loopback share one real PostgreSQL (a
//! throwaway cluster, `hexveil_fixtures::postgres`), one certificate and
//! the league's secrets (copied from the first node's data directory, as
//! docs/DEPLOYMENT.md says), each with the node id its data directory
//! gives it, and a lease of [`LEASE_SECS`]. Two games are played by the
//! real `hexveil join` (each side) and `hexveil watch` binaries, started
//! once each with the league's three nodes (`--server A,B,C`) and never
//! started again: game 1 created on node 1, game 2 on node 2.
//!
//! Once both games are in side A's Movement Phase, one fault per case:
//! node 1 SIGKILLed; SIGTERMed (a drain: it exits 0); SIGSTOPped past its
//! lease, then SIGCONTed once its game resumed elsewhere; SIGKILLed and
//! restarted at once with its id (the one its data directory keeps);
//! PostgreSQL restarted `-m fast` and `-m immediate` (a cluster of the
//! case's own); every node's database connection terminated
//! (`pg_terminate_backend`). Side A then moves and concedes: when its node
//! was killed, only after it noticed, idle at its prompt, that the node is
//! gone; otherwise at once, while its node is away (what is typed meanwhile
//! is kept and sent once the seat is back).
//!
//! Each case asserts: every client process ends by itself with the
//! transcript CLEAN (nobody re-ran anything), both players hold the same
//! transcript, and nothing acknowledged was lost or written twice: every
//! receipt and every head the clients were shown (their `--record` files)
//! is the log's ([`assert_kept`]). Printed, measured and never asserted:
//! the time from the fault to the next ruling in each game, and the
//! machine's load average.
//!
//! Cases run one at a time (a lock), so that each measures one fault.
//! Without PostgreSQL each prints `SKIPPED` (under CI, where `.ci/run`
//! installs it, it fails instead).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hexveil_fixtures::postgres::Cluster;
use hexveil_protocol::encoding::Digest;
use hexveil_protocol::transcript::Transcript;
use hexveil_tests::kept::assert_kept;
use hexveil_tests::{built_binary, key_file, ServerProcess};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

/// The lease of a game to a node, in seconds (short, so that a dead
/// node's games move soon).
const LEASE_SECS: u64 = 2;

/// The `hexveil` client binary built with these tests.
const CLIENT_BIN: &str = "hexveil-e2e";

/// The longest any one wait of these tests lasts.
const BOUND: Duration = Duration::from_secs(120);

/// The files every node of a league shares (docs/DEPLOYMENT.md).
const SHARED_FILES: &[&str] = &[
    "tls-cert.der",
    "tls-key.pk8",
    "transcript-key.pk8",
    "pad-master.key",
];

/// One case at a time: each measures one fault on this machine.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn examples(name: &str) -> String {
    format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Three nodes on one database.
struct League {
    dirs: Vec<tempfile::TempDir>,
    nodes: Vec<ServerProcess>,
    addrs: Vec<SocketAddr>,
    fingerprint: String,
    url: String,
    work: PathBuf,
}

impl League {
    fn start(url: &str, work: &Path) -> League {
        let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
        let mut league = League {
            dirs,
            nodes: Vec::new(),
            addrs: Vec::new(),
            fingerprint: String::new(),
            url: url.to_owned(),
            work: work.to_owned(),
        };
        let first = league.spawn(0, "127.0.0.1:0");
        league.fingerprint = first.endpoint.fingerprint.to_string();
        league.addrs.push(first.endpoint.addr);
        league.nodes.push(first);
        for d in &league.dirs[1..] {
            for f in SHARED_FILES {
                std::fs::copy(league.dirs[0].path().join(f), d.path().join(f)).unwrap();
            }
        }
        for i in 1..3 {
            let n = league.spawn(i, "127.0.0.1:0");
            assert_eq!(
                n.endpoint.fingerprint.to_string(),
                league.fingerprint,
                "one league certificate"
            );
            league.addrs.push(n.endpoint.addr);
            league.nodes.push(n);
        }
        league
    }

    /// Node `i` (0-based) on `listen`, its id its data directory's.
    fn spawn(&self, i: usize, listen: &str) -> ServerProcess {
        let lease = LEASE_SECS.to_string();
        ServerProcess::spawn_logged(
            self.dirs[i].path(),
            listen,
            &[
                "--answer-timeout-secs",
                "120",
                "--store",
                &self.url,
                "--lease-secs",
                &lease,
            ],
            &self.work.join(format!("node{}.log", i + 1)),
        )
    }

    /// Restarts node `i` on its address, after it was killed.
    fn restart(&mut self, i: usize) {
        let listen = self.addrs[i].to_string();
        self.nodes[i] = self.spawn(i, &listen);
    }

    /// `--server A,B,C --fingerprint FP --key KEY`.
    fn conn(&self, key: &Path) -> Vec<String> {
        let all: Vec<String> = self.addrs.iter().map(|a| a.to_string()).collect();
        vec![
            "--server".into(),
            all.join(","),
            "--fingerprint".into(),
            self.fingerprint.clone(),
            "--key".into(),
            key.display().to_string(),
        ]
    }

    /// The servers' logs, for a failure's message.
    fn logs(&self) -> String {
        (1..=3)
            .map(|n| {
                let text = std::fs::read_to_string(self.work.join(format!("node{n}.log")))
                    .unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(40).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                format!("--- node {n} (last lines)\n{}", tail.join("\n"))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A client process and what it printed, each line with when.
struct Proc {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    out: Arc<Mutex<Vec<(Instant, String)>>>,
    err: Arc<Mutex<String>>,
}

impl Proc {
    fn spawn(name: &str, args: &[String]) -> Proc {
        let mut child = Command::new(built_binary(CLIENT_BIN))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the hexveil binary runs");
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = out.clone();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        tokio::spawn(async move {
            while let Ok(Some(l)) = lines.next_line().await {
                sink.lock().unwrap().push((Instant::now(), l));
            }
        });
        let err = Arc::new(Mutex::new(String::new()));
        let esink = err.clone();
        let mut elines = BufReader::new(child.stderr.take().unwrap()).lines();
        tokio::spawn(async move {
            while let Ok(Some(l)) = elines.next_line().await {
                let mut e = esink.lock().unwrap();
                e.push_str(&l);
                e.push('\n');
            }
        });
        Proc {
            name: name.into(),
            stdin: child.stdin.take(),
            child,
            out,
            err,
        }
    }

    fn text(&self) -> String {
        let out = self.out.lock().unwrap();
        let mut t: String = out.iter().map(|(_, l)| format!("{l}\n")).collect();
        t.push_str(&self.err.lock().unwrap());
        t
    }

    /// When a line holding `what` was first printed after `since`.
    fn printed_after(&self, what: &str, since: Instant) -> Option<Instant> {
        self.out
            .lock()
            .unwrap()
            .iter()
            .find(|(t, l)| *t >= since && l.contains(what))
            .map(|(t, _)| *t)
    }

    async fn type_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// Whether a line holding `what` was printed.
    fn printed(&self, what: &str) -> bool {
        self.out
            .lock()
            .unwrap()
            .iter()
            .any(|(_, l)| l.contains(what))
    }

    /// Waits for a line holding `what` (printed at any time).
    async fn wait_for(&self, what: &str, context: &dyn Fn() -> String) {
        let start = Instant::now();
        while !self.printed(what) {
            assert!(
                start.elapsed() < BOUND,
                "{}: no `{what}` within {} s:\n{}\n{}",
                self.name,
                BOUND.as_secs(),
                self.text(),
                context()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits for the process to end; its output.
    async fn finish(mut self, context: &dyn Fn() -> String) -> String {
        drop(self.stdin.take());
        let status = tokio::time::timeout(BOUND, self.child.wait())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "{}: did not end within {} s:\n{}\n{}",
                    self.name,
                    BOUND.as_secs(),
                    self.text(),
                    context()
                )
            })
            .unwrap();
        // The readers have everything once the pipes are closed.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let text = self.text();
        assert!(
            status.success(),
            "{}: exit {status}:\n{text}\n{}",
            self.name,
            context()
        );
        text
    }
}

/// A game being played: its two seats and its spectator.
struct Game {
    id: String,
    a: Proc,
    b: Proc,
    watch: Proc,
    dir: PathBuf,
}

impl Game {
    /// Game `n`, created on node `on` (0-based), and its three clients
    /// started with every node.
    async fn start(league: &League, n: usize, on: usize) -> Game {
        let dir = league.work.join(format!("game{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let (alice, _) = key_file(&dir, "alice");
        let (bob, bob_public) = key_file(&dir, "bob");
        let (carol, _) = key_file(&dir, "carol");
        let create = Command::new(built_binary(CLIENT_BIN))
            .arg("create")
            .args([
                "--server",
                &league.addrs[on].to_string(),
                "--fingerprint",
                &league.fingerprint,
                "--key",
                alice.to_str().unwrap(),
                "--scenario",
                &examples("scenario.toml"),
                "--side",
                "a",
                "--opponent",
                &bob_public,
            ])
            .stdin(Stdio::null())
            .output()
            .await
            .unwrap();
        let out = String::from_utf8_lossy(&create.stdout).to_string();
        assert!(
            create.status.success(),
            "create: {out}{}",
            String::from_utf8_lossy(&create.stderr)
        );
        let id = out.lines().last().unwrap().trim().to_string();
        let join = |key: &Path, side: &str| {
            let mut v = vec!["join".to_string()];
            v.extend(league.conn(key));
            for (flag, value) in [
                ("--game", id.clone()),
                ("--side", side.to_string()),
                ("--scenario", examples("scenario.toml")),
                ("--setup", examples(&format!("setup-{side}.toml"))),
                ("--sealed", examples(&format!("sealed-{side}.toml"))),
                (
                    "--secrets",
                    dir.join(format!("{side}-secrets")).display().to_string(),
                ),
                (
                    "--record",
                    dir.join(format!("{side}.jsonl")).display().to_string(),
                ),
            ] {
                v.push(flag.into());
                v.push(value);
            }
            v
        };
        let a = Proc::spawn(&format!("game {n} side A"), &join(&alice, "a"));
        let b = Proc::spawn(&format!("game {n} side B"), &join(&bob, "b"));
        let mut w = vec!["watch".to_string()];
        w.extend(league.conn(&carol));
        w.extend([
            "--game".into(),
            id.clone(),
            "--record".into(),
            dir.join("watch.jsonl").display().to_string(),
        ]);
        let watch = Proc::spawn(&format!("game {n} spectator"), &w);
        Game {
            id,
            a,
            b,
            watch,
            dir,
        }
    }

    /// Side A ends its phases until its Movement Phase; the spectator
    /// sees it begin.
    async fn play_until_a_moves(&mut self, context: &dyn Fn() -> String) {
        self.a.type_line("end\nend\nend").await;
        self.a.wait_for("side A's MPh", context).await;
        self.watch
            .wait_for("side A's Movement Phase (MPh) begins", context)
            .await;
    }
}

/// Log entries by seq, each with a digest (an entry's hash, a head).
type BySeq = Vec<(u64, Digest)>;

/// Reads a `--record` file: (receipts, heads shown).
fn record(path: &Path) -> (BySeq, BySeq) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (mut receipts, mut heads) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let digest = |k: &str| -> Digest { v[k].as_str().unwrap().parse().unwrap() };
        if let Some(seq) = v["receipt"].as_u64() {
            receipts.push((seq, digest("entry_hash")));
        } else {
            heads.push((v["seq"].as_u64().unwrap(), digest("head")));
        }
    }
    (receipts, heads)
}

/// One fault, as a case does it to the league.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Kill,
    Term,
    StopPastLease,
    RestartWithItsId,
    DatabaseRestartFast,
    DatabaseRestartImmediate,
    ConnectionsTerminated,
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// Plays the two games through `fault` and checks them (see the module).
async fn case(fault: Fault) {
    let _one = ONE_AT_A_TIME.lock().await;
    let name = format!("failover_cli::{fault:?}");
    // A restart of PostgreSQL gets a cluster of its own; the others a
    // fresh database on the process's shared one.
    let own;
    let url = match fault {
        Fault::DatabaseRestartFast | Fault::DatabaseRestartImmediate => {
            if hexveil_fixtures::postgres::shared(&name).is_none() {
                return;
            }
            own = Some(Arc::new(Cluster::start().unwrap()));
            own.as_ref().unwrap().fresh_database().unwrap()
        }
        _ => {
            own = None;
            match hexveil_fixtures::postgres::fresh_database(&name) {
                Some(url) => url,
                None => return,
            }
        }
    };
    let work = tempfile::tempdir().unwrap();
    let mut league = League::start(&url, work.path());
    let mut games = vec![
        Game::start(&league, 1, 0).await,
        Game::start(&league, 2, 1).await,
    ];
    {
        let context = || league.logs();
        for g in &mut games {
            g.play_until_a_moves(&context).await;
        }
    }

    let load_before = load_average();
    let fault_at = Instant::now();
    // A restart of PostgreSQL runs while side A moves: the move waits for
    // the database, not for the restart command.
    let mut restarting = None;
    match fault {
        Fault::Kill => league.nodes[0].kill(),
        Fault::Term => league.nodes[0].signal("-TERM"),
        Fault::StopPastLease => league.nodes[0].signal("-STOP"),
        Fault::RestartWithItsId => {
            league.nodes[0].kill();
            league.restart(0);
        }
        Fault::DatabaseRestartFast | Fault::DatabaseRestartImmediate => {
            let mode = if fault == Fault::DatabaseRestartFast {
                "fast"
            } else {
                "immediate"
            };
            let cluster = own.clone().unwrap();
            restarting = Some(tokio::task::spawn_blocking(move || cluster.restart(mode)));
        }
        Fault::ConnectionsTerminated => {
            let n = hexveil_fixtures::postgres::terminate_connections(&url);
            assert!(n >= 3, "every node's connection terminated ({n})");
        }
    }
    // A killed node's game: side A, idle at its prompt, notices by itself
    // that its node is gone (QUIC keep-alive) before it types anything.
    // Otherwise side A moves at once, while its node is away (what is
    // typed meanwhile is kept): the move is ruled once the game's node is
    // back or found.
    let mut noticed = None;
    if matches!(fault, Fault::Kill | Fault::RestartWithItsId) {
        let context = || league.logs();
        games[0].a.wait_for("is gone", &context).await;
        noticed = games[0].a.printed_after("is gone", fault_at);
    }
    const RULED: &str = "moves ger-squad-1, ger-leader into 4E4";
    let typed_at = Instant::now();
    for g in &mut games {
        g.a.type_line("move ger-squad-1,ger-leader 4E4").await;
    }
    if let Some(restart) = restarting {
        restart.await.unwrap().unwrap();
    }
    let mut resumed = Vec::new();
    {
        let context = || league.logs();
        for (n, g) in games.iter().enumerate() {
            g.a.wait_for(RULED, &context).await;
            let at = g.a.printed_after(RULED, fault_at).unwrap();
            // Game 1's from the fault; game 2's (whose node did not fail)
            // from the move, which may have waited for game 1's notice.
            let from = if n == 0 { fault_at } else { typed_at };
            resumed.push(at - from);
        }
    }
    if fault == Fault::StopPastLease {
        // Past its lease, its game resumed elsewhere: node 1 comes back,
        // and must neither write nor take anyone in.
        league.nodes[0].signal("-CONT");
    }
    if fault == Fault::Term {
        let status = league.nodes[0].wait();
        assert!(status.success(), "a drained node exits 0: {status}");
    }
    for g in &mut games {
        g.a.type_line("concede").await;
    }

    let mut checked = 0;
    let mut notes = Vec::new();
    for g in games {
        let context = || league.logs();
        let dir = g.dir.clone();
        let id = g.id.clone();
        let a = g.a.finish(&context).await;
        let b = g.b.finish(&context).await;
        let w = g.watch.finish(&context).await;
        for (who, text) in [("A", &a), ("B", &b), ("spectator", &w)] {
            assert!(text.contains("CLEAN: game"), "game {id} {who}:\n{text}");
            assert!(
                text.contains("side B wins (side A conceded)"),
                "game {id} {who}:\n{text}"
            );
            notes.extend(
                text.lines()
                    .filter(|l| l.contains("node 127.") || l.contains("reconnected"))
                    .map(|l| format!("  game {id} {who}: {l}")),
            );
        }
        assert_eq!(
            a.matches(RULED).count(),
            1,
            "game {id}: the move typed at the fault ruled once:\n{a}"
        );
        let file = std::fs::read(dir.join("a-secrets/transcript.hexveil")).unwrap();
        assert_eq!(
            file,
            std::fs::read(dir.join("b-secrets/transcript.hexveil")).unwrap(),
            "game {id}: both players hold one transcript"
        );
        let log = Transcript::parse(&file).unwrap();
        let (mut receipts, mut heads) = (Vec::new(), Vec::new());
        for who in ["a", "b", "watch"] {
            let (r, h) = record(&dir.join(format!("{who}.jsonl")));
            receipts.extend(r);
            heads.extend(h);
        }
        assert!(
            !receipts.is_empty() && !heads.is_empty(),
            "game {id}: records"
        );
        let kept = assert_kept(&receipts, &heads, &log);
        checked += kept.entries;
    }
    let times: Vec<String> = resumed
        .iter()
        .map(|d| format!("{:.2} s", d.as_secs_f64()))
        .collect();
    // Past cargo's capture: the figures are the point of running it.
    let noticed = noticed.map_or(String::new(), |at| {
        format!(
            " (side A of game 1, idle at its prompt, noticed its node gone after {:.2} s)",
            (at - fault_at).as_secs_f64()
        )
    });
    eprintln!(
        "failover_cli {fault:?}: lease {LEASE_SECS} s; fault to next ruling: game 1 (node 1) {}; move to ruling, game 2 (node 2) {}{noticed}; {checked} log entries checked against every receipt and head shown; load average {load_before} before, {} after\n{}",
        times[0],
        times[1],
        load_average(),
        notes.join("\n")
    );
    drop(league);
}

// Issue 25, G6: the node serving game 1 is SIGKILLed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_a_killed_nodes_games_finish_by_themselves() {
    case(Fault::Kill).await;
}

// Issue 25, G6: SIGTERM drains the node: its games go to the others at
// once, their leases released; it exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_a_drained_nodes_games_finish_by_themselves() {
    case(Fault::Term).await;
}

// Issue 25, G6: the node is paused past its lease (its game moves), then
// resumed: it takes nobody back and writes nothing (fencing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_a_paused_nodes_games_finish_by_themselves() {
    case(Fault::StopPastLease).await;
}

// Issue 25, G6: the node dies and is restarted at once with its id: it
// takes its games back without waiting for their leases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_a_node_restarted_with_its_id_takes_its_games_back() {
    case(Fault::RestartWithItsId).await;
}

// Issue 25, G6: PostgreSQL restarted `-m fast`: storage faults are not
// game faults.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_games_go_through_a_fast_database_restart() {
    case(Fault::DatabaseRestartFast).await;
}

// Issue 25, G6: PostgreSQL restarted `-m immediate` (recovered from its
// WAL): nothing acknowledged is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_games_go_through_an_immediate_database_restart() {
    case(Fault::DatabaseRestartImmediate).await;
}

// Issue 25, G6: every node's database connection is terminated
// (`pg_terminate_backend`): each is opened again, nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_games_go_through_terminated_database_connections() {
    case(Fault::ConnectionsTerminated).await;
}
