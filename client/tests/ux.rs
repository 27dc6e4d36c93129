//! A person's trips, played through the `hexveil` binary against a real
//! server in this process (issue 14): an illegal sealed setup refused
//! before anything is committed; nobody hangs when a side stops answering;
//! one seat, one machine; a wrong fingerprint in words; invites, host
//! names, environment variables and the config file.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hexveil_server::config::ServerSettings;
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::Server;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_hexveil");

fn examples(name: &str) -> String {
    format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn p(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

/// A command with no config file or connection variables from the
/// environment of the test run.
fn cmd(args: &[String]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env_remove("HEXVEIL_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent-hexveil-test-config")
        .env_remove("HEXVEIL_SERVER")
        .env_remove("HEXVEIL_FINGERPRINT")
        .env_remove("HEXVEIL_KEY")
        .kill_on_drop(true);
    c
}

async fn run_cmd(mut c: Command) -> (bool, String) {
    let out = c
        .stdin(Stdio::null())
        .output()
        .await
        .expect("the hexveil binary runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

async fn run(args: &[String]) -> (bool, String) {
    run_cmd(cmd(args)).await
}

/// [`run`] in the working directory `dir`.
async fn run_in(dir: &Path, args: &[String]) -> (bool, String) {
    let mut c = cmd(args);
    c.current_dir(dir);
    run_cmd(c).await
}

fn s(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

struct Lab {
    server: Server,
    port: u16,
    fingerprint: String,
    dir: PathBuf,
}

impl Lab {
    async fn start(dir: &Path, answer_timeout: Duration) -> Lab {
        let data = dir.join("server");
        let (secrets, _) = ServerSecrets::load_or_create(&data).unwrap();
        let mut settings = ServerSettings::new(data.clone(), "127.0.0.1:0".parse().unwrap());
        settings.answer_timeout = answer_timeout;
        let server = Server::start(settings, Arc::new(LiveGameFactory::new(Arc::new(secrets))))
            .await
            .unwrap();
        Lab {
            port: server.local_addr().port(),
            fingerprint: server.fingerprint().to_string(),
            server,
            dir: dir.to_owned(),
        }
    }

    fn conn(&self, key: &Path) -> Vec<String> {
        s(&[
            "--server",
            &format!("127.0.0.1:{}", self.port),
            "--fingerprint",
            &self.fingerprint,
            "--key",
            &p(key),
        ])
    }

    async fn key(&self, name: &str) -> (PathBuf, String) {
        let key = self.dir.join(format!("{name}.pk8"));
        assert!(run(&s(&["keygen", "--out", &p(&key)])).await.0);
        let (_, public) = run(&s(&["whoami", "--key", &p(&key)])).await;
        (key, public.trim().to_string())
    }

    /// Creates a game of the example scenario, Alice side A; returns
    /// (game id, invite).
    async fn create(&self, alice: &Path, bob_public: &str) -> (String, String) {
        let mut args = s(&["create"]);
        args.extend(self.conn(alice));
        args.extend(s(&[
            "--scenario",
            &examples("scenario.toml"),
            "--opponent",
            bob_public,
        ]));
        let (ok, out) = run(&args).await;
        assert!(ok, "{out}");
        let game = out.lines().last().unwrap().trim().to_string();
        let invite = out
            .lines()
            .find_map(|l| l.strip_prefix("invite: "))
            .expect("create prints an invite")
            .to_string();
        (game, invite)
    }

    fn join(
        &self,
        key: &Path,
        game: &str,
        side: &str,
        sealed: &str,
        secrets: &Path,
    ) -> Vec<String> {
        let mut v = s(&["join"]);
        v.extend(self.conn(key));
        let lower = side.to_lowercase();
        v.extend(s(&[
            "--game",
            game,
            "--side",
            side,
            "--scenario",
            &examples("scenario.toml"),
            "--setup",
            &examples(&format!("setup-{lower}.toml")),
            "--sealed",
            sealed,
            "--secrets",
            &p(secrets),
        ]));
        v
    }
}

/// A running client whose stdout is read line by line and whose stdin
/// stays open until written to or dropped.
struct Running {
    child: Child,
    lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn spawn(args: &[String]) -> Running {
        Running::spawn_cmd(cmd(args))
    }

    /// [`Running::spawn`] in the working directory `dir`.
    fn spawn_in(dir: &Path, args: &[String]) -> Running {
        let mut c = cmd(args);
        c.current_dir(dir);
        Running::spawn_cmd(c)
    }

    fn spawn_cmd(mut c: Command) -> Running {
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = tokio::sync::mpsc::unbounded_channel();
        for pipe in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut r = BufReader::new(pipe).lines();
                while let Ok(Some(l)) = r.next_line().await {
                    let _ = tx.send(l);
                }
            });
        }
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads lines until one contains `what` (panics after `within`).
    async fn until(&mut self, what: &str, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        while !self.seen.iter().any(|l| l.contains(what)) {
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(l)) => self.seen.push(l),
                _ => panic!("no `{what}` within {within:?}:\n{}", self.text()),
            }
        }
    }

    /// Reads lines until one contains every one of `all` (panics after
    /// `within`); that line.
    async fn until_line(&mut self, all: &[&str], within: Duration) -> String {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(l) = self.seen.iter().find(|l| all.iter().all(|w| l.contains(w))) {
                return l.clone();
            }
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(l)) => self.seen.push(l),
                _ => panic!(
                    "no line with all of {all:?} within {within:?}:\n{}",
                    self.text()
                ),
            }
        }
    }

    /// How many lines read so far contain `what`.
    fn count(&self, what: &str) -> usize {
        self.seen.iter().filter(|l| l.contains(what)).count()
    }

    /// Reads lines until `n` of them contain `what` (panics after
    /// `within`).
    async fn until_nth(&mut self, what: &str, n: usize, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        while self.seen.iter().filter(|l| l.contains(what)).count() < n {
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(l)) => self.seen.push(l),
                _ => panic!("not {n} `{what}` within {within:?}:\n{}", self.text()),
            }
        }
    }

    async fn say(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// Waits for the exit (panics after `within`); its success and output.
    async fn exit(&mut self, within: Duration) -> (bool, String) {
        let status = tokio::time::timeout(within, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("still running after {within:?}:\n{}", self.text()))
            .unwrap();
        // The rest of the output.
        while let Ok(Some(l)) =
            tokio::time::timeout(Duration::from_millis(500), self.lines.recv()).await
        {
            self.seen.push(l);
        }
        (status.success(), self.text())
    }

    fn text(&self) -> String {
        self.seen.join("\n")
    }
}

const LONG: Duration = Duration::from_secs(60);

// Issue 14 item 2: a sealed setup over the minefield budget is refused by
// `check --sealed` offline and by `join` before it stores or sends
// anything (no secrets written, the seat stays open); the legal one
// passes, checked with the highest Secret dr (B28.47), said so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_sealed_setup_is_refused_before_anything_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    let over = dir.path().join("sealed-b-over.toml");
    let text = std::fs::read_to_string(examples("sealed-b.toml")).unwrap();
    // A-P 12 + 3 x A-T 5 + Booby Traps A 30 = 57 factors, over the OB's 48.
    let text = text
        .replace(
            "{ hex = \"3E5\", factors = 2 }",
            "{ hex = \"3E5\", factors = 5 }",
        )
        .replace("level = \"C\"", "level = \"A\"");
    assert!(text.contains("factors = 5") && text.contains("level = \"A\""));
    std::fs::write(&over, text).unwrap();
    let check = |sealed: &str| {
        s(&[
            "check",
            "--scenario",
            &examples("scenario.toml"),
            "--sealed",
            sealed,
            "--setup",
            &examples("setup-b.toml"),
            "--side",
            "b",
        ])
    };
    let (ok, out) = run(&check(&p(&over))).await;
    assert!(!ok, "{out}");
    assert!(out.contains("breaks the scenario's setup rules"), "{out}");
    assert!(
        out.contains("budget: hidden minefield factors spent"),
        "{out}"
    );
    assert!(out.contains("the highest Secret dr"), "{out}");
    let (ok, out) = run(&check(&examples("sealed-b.toml"))).await;
    assert!(ok, "{out}");
    assert!(out.contains("a legal sealed setup for side B"), "{out}");

    let lab = Lab::start(dir.path(), Duration::from_secs(600)).await;
    let (alice, _) = lab.key("alice").await;
    let (bob, bob_public) = lab.key("bob").await;
    let (game, _) = lab.create(&alice, &bob_public).await;
    let secrets = dir.path().join("b-secrets");
    let (ok, out) = run(&lab.join(&bob, &game, "B", &p(&over), &secrets)).await;
    assert!(!ok, "{out}");
    assert!(out.contains("nothing was committed or sent"), "{out}");
    assert!(
        out.contains("budget: hidden minefield factors spent"),
        "{out}"
    );
    assert!(!secrets.join("secrets.json").exists());
    let mut list = s(&["list"]);
    list.extend(lab.conn(&bob));
    let (_, listed) = run(&list).await;
    // Issue 27 item 8: the list names each side's seat as connected or not.
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("  side B") && l.ends_with(", NOT connected")),
        "{listed}"
    );
    lab.server.shutdown().await;
}

// Issue 14 item 3: B's client dies in the middle of the game. The server
// ends the game on time against B; A and the spectator are told the
// result and its reason at once, and once B's reveal has timed out too
// (the log closes) both fetch the transcript and exit with the verdict:
// within the answer timeout plus a bound after the end, and nobody waits
// for a second reveal that never comes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn g2_nobody_hangs_when_a_side_stops_answering() {
    let dir = tempfile::tempdir().unwrap();
    let timeout = Duration::from_secs(3);
    let lab = Lab::start(dir.path(), timeout).await;
    let (alice, _) = lab.key("alice").await;
    let (bob, bob_public) = lab.key("bob").await;
    let (carol, _) = lab.key("carol").await;
    let (game, invite) = lab.create(&alice, &bob_public).await;

    let mut watch = s(&["watch", "--invite", &invite, "--key", &p(&carol)]);
    watch.extend(s(&["--out", &p(&dir.path().join("watched.hexveil"))]));
    let mut spectator = Running::spawn(&watch);
    spectator.until("watching game", LONG).await;
    let script = dir.path().join("a.txt");
    std::fs::write(&script, "end\nend\nend\n").unwrap();
    let mut ja = lab.join(
        &alice,
        &game,
        "A",
        &examples("sealed-a.toml"),
        &dir.path().join("a-secrets"),
    );
    ja.extend(s(&["--script", &p(&script)]));
    let mut a = Running::spawn(&ja);
    let mut b = Running::spawn(&lab.join(
        &bob,
        &game,
        "B",
        &examples("sealed-b.toml"),
        &dir.path().join("b-secrets"),
    ));
    a.until("side A's MPh", LONG).await;
    // B's machine goes away without a word: no more answers.
    b.child.start_kill().unwrap();
    let _ = b.child.wait().await;
    // Into B's hidden A-P minefield in 4E4: the referee needs B's opening.
    a.say("move ger-squad-1,ger-leader 4E4").await;
    a.until(
        "RESULT: side A wins (side B did not answer in time",
        timeout * 2 + LONG / 4,
    )
    .await;
    spectator
        .until(
            "RESULT: side A wins (side B did not answer in time",
            LONG / 4,
        )
        .await;
    let ended = Instant::now();
    let bound = timeout + Duration::from_secs(15);
    let (a_ok, a_out) = a.exit(bound).await;
    let (w_ok, w_out) = spectator.exit(bound).await;
    assert!(ended.elapsed() <= bound, "{:?}", ended.elapsed());
    for (ok, out) in [(a_ok, &a_out), (w_ok, &w_out)] {
        assert!(ok, "{out}");
        assert!(out.contains("the log is closed"), "{out}");
        // B's missing reveal is recorded against B (G5); the verdict names it.
        assert!(out.contains("side B"), "{out}");
        assert!(out.contains("FAULT") || out.contains("CLEAN"), "{out}");
    }
    assert!(dir.path().join("a-secrets/transcript.hexveil").exists());
    assert!(dir.path().join("watched.hexveil").exists());
    lab.server.shutdown().await;
}

// Issue 27 item 1 (G2): B's client goes away while the game waits for its
// machine. A is told who the game waits for, on what, in words, that B's
// client is not connected (the server notices within the client idle
// timeout) and when the answer timeout forfeits; when B comes back, A is
// told B is connected again. Commands typed during the wait are queued
// with a note naming the wait (or refused with a note when they are no
// command), tried in order at A's next prompt, and what is never tried is
// named at exit: none is dropped silently. Real QUIC on loopback, real
// processes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn g2_the_wait_shows_who_on_what_the_connection_and_the_forfeit_time() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path(), Duration::from_secs(600)).await;
    let (alice, _) = lab.key("alice").await;
    let (bob, bob_public) = lab.key("bob").await;
    let (game, _) = lab.create(&alice, &bob_public).await;
    let script = dir.path().join("a.txt");
    std::fs::write(&script, "end\nend\nend\n").unwrap();
    let mut ja = lab.join(
        &alice,
        &game,
        "A",
        &examples("sealed-a.toml"),
        &dir.path().join("a-secrets"),
    );
    ja.extend(s(&["--script", &p(&script)]));
    let mut a = Running::spawn(&ja);
    let b_secrets = dir.path().join("b-secrets");
    let b_join = lab.join(&bob, &game, "B", &examples("sealed-b.toml"), &b_secrets);
    let mut b = Running::spawn(&b_join);
    a.until("side A's MPh", LONG).await;
    // Who and on what: the log says a move is next; that it is A's is the
    // server's word (the engine decides it).
    a.until(
        "waiting for the next move (the signed log); side A to move (you) (the server's word)",
        LONG,
    )
    .await;
    // B's machine goes away without a word.
    b.child.start_kill().unwrap();
    let _ = b.child.wait().await;
    // Into 4E4: the referee needs B's machine to answer its Daisy Chain
    // opportunity (B28.531) first.
    a.say("move ger-squad-1,ger-leader 4E4").await;
    // The wait line that names both what is awaited and the lost client (an
    // earlier one may say B was not connected yet, before it joined).
    let wait = a
        .until_line(
            &["; side B's machine", "side B's client is NOT connected"],
            LONG,
        )
        .await;
    println!("{wait}");
    // The log says which action is being resolved (its own reading,
    // issue 27 item 1); who answers on what inside it is the server's word.
    assert!(
        wait.starts_with("waiting for the resolution of side A's action (entry "),
        "{wait}"
    );
    assert!(
        wait.contains("(the signed log); side B's machine to answer its Daisy Chain opportunity 1"),
        "{wait}"
    );
    assert!(
        wait.contains("; side B's client is NOT connected; forfeits at "),
        "{wait}"
    );
    assert!(wait.contains("; forfeits at "), "{wait}");
    assert!(wait.contains(" UTC, in 10 min"), "{wait}");
    assert!(wait.ends_with("(the server's word)"), "{wait}");
    // Typed during the wait: a line that is no command is refused at once
    // with a note; a command is queued with a note saying what the game
    // waits for; a second one queues behind it.
    a.say("fly 4E4").await;
    let refused = a.until_line(&["not queued:"], LONG).await;
    println!("{refused}");
    assert!(refused.contains("fly"), "{refused}");
    a.say("concede").await;
    let queued = a.until_line(&["queued: `concede`"], LONG).await;
    println!("{queued}");
    assert!(
        queued.contains("(waiting for the resolution of side A's action (entry "),
        "{queued}"
    );
    assert!(
        queued.contains("; side B's machine to answer its Daisy Chain opportunity 1"),
        "{queued}"
    );
    assert!(
        queued.ends_with("it will be tried when you are to act"),
        "{queued}"
    );
    a.say("end").await;
    a.until("queued: `end`", LONG).await;
    // B comes back with its secrets: connected again, the game goes on.
    // (Only what A is told from now on counts.)
    a.seen.clear();
    let mut b2 = Running::spawn(&b_join);
    b2.until("resuming with the secrets", LONG).await;
    a.until("side B's client is connected", LONG).await;
    let back = a
        .seen
        .iter()
        .find(|l| l.contains("side B's client is connected"))
        .unwrap()
        .clone();
    println!("{back}");
    assert!(back.contains("; side B's machine"), "{back}");
    // The queued concession is tried at A's next prompt; the `end` queued
    // behind it is never tried, and said so at exit.
    a.until("trying the queued `concede`", LONG).await;
    let (a_ok, a_out) = a.exit(LONG).await;
    assert!(
        a_out.contains("not sent: `end` (this session ended before you were to act)"),
        "{a_out}"
    );
    let (b_ok, b_out) = b2.exit(LONG).await;
    for (ok, out) in [(a_ok, &a_out), (b_ok, &b_out)] {
        assert!(ok, "{out}");
        assert!(out.contains("side B wins (side A conceded)"), "{out}");
    }
    lab.server.shutdown().await;
}

// Issue 14 item 4, issue 27 item 6: one seat, one machine. While B's
// client plays, a second client with B's key is refused before it sends
// anything; with --take-over but other secrets it is refused by what the
// log holds (B's pad statement is not the one its secrets give) BEFORE
// anyone is displaced: B's client is still seated and answers the referee
// (A's move into B's hidden minefield needs B's opening). With B's own
// secrets --take-over takes the seat: the first client is told in words
// that another client took it, and stops; the game finishes (G5: CLEAN).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_seat_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path(), Duration::from_secs(600)).await;
    let (alice, _) = lab.key("alice").await;
    let (bob, bob_public) = lab.key("bob").await;
    let (game, _) = lab.create(&alice, &bob_public).await;
    let (sa, sb, other) = (
        dir.path().join("a-secrets"),
        dir.path().join("b-secrets"),
        dir.path().join("b-other-secrets"),
    );
    let sealed = |side: &str| examples(&format!("sealed-{side}.toml"));
    let script = dir.path().join("a.txt");
    std::fs::write(&script, "end\nend\nend\n").unwrap();
    let mut ja = lab.join(&alice, &game, "A", &sealed("a"), &sa);
    ja.extend(s(&["--script", &p(&script)]));
    let mut a = Running::spawn(&ja);
    let mut b = Running::spawn(&lab.join(&bob, &game, "B", &sealed("b"), &sb));
    a.until("side A's MPh", LONG).await;
    b.until("joined game", LONG).await;

    let (ok, out) = run(&lab.join(&bob, &game, "B", &sealed("b"), &other)).await;
    assert!(!ok, "{out}");
    assert!(out.contains("is held by another connected client"), "{out}");
    assert!(out.contains("--take-over"), "{out}");
    // Issue 27: no secrets are written for a seat that is refused.
    assert!(!other.join("secrets.json").exists(), "{out}");

    // Issue 27 item 6: the wrong secrets, with --take-over, are refused
    // before the seat is taken; nothing written, nobody displaced.
    let mut take = lab.join(&bob, &game, "B", &sealed("b"), &other);
    take.push("--take-over".into());
    let (ok, out) = run(&take).await;
    assert!(!ok, "{out}");
    assert!(
        out.contains("side B of game") && out.contains("has already committed to its secrets"),
        "{out}"
    );
    assert!(out.contains("pad statement of epoch 0"), "{out}");
    assert!(out.contains("Nothing was written or sent"), "{out}");
    assert!(
        out.contains("the client holding the seat plays on"),
        "{out}"
    );
    assert!(!other.join("secrets.json").exists(), "{out}");
    // B's client plays on: A's move into B's hidden A-P minefield in 4E4
    // needs B's machine to open it, and the ruling comes.
    let prompts = a.count(">> your move");
    a.say("move ger-squad-1,ger-leader 4E4").await;
    a.until_nth(">> your move", prompts + 1, LONG).await;
    assert!(
        !b.text().contains("another client took this seat"),
        "{}",
        b.text()
    );
    let mut list = s(&["list"]);
    list.extend(lab.conn(&bob));
    let (ok, out) = run(&list).await;
    assert!(
        ok && out
            .lines()
            .any(|l| l.starts_with("  side B") && l.ends_with("), connected")
                || l.starts_with("  side B") && l.ends_with(", connected")),
        "{out}"
    );

    // The right secrets take the seat over: B's first client is told and
    // stops; the new one plays on.
    let mut take = lab.join(&bob, &game, "B", &sealed("b"), &sb);
    take.push("--take-over".into());
    let mut b2 = Running::spawn(&take);
    b2.until("resuming with the secrets", LONG).await;
    b2.until("joined game", LONG).await;
    let (ok, b_out) = b.exit(LONG).await;
    assert!(!ok, "{b_out}");
    // G5: the displacement is the server's unsigned word, said as such.
    assert!(
        b_out.contains("the server says another client took this seat"),
        "{b_out}"
    );

    // A concedes; both end with the verdict.
    a.say("concede").await;
    let (a_ok, a_out) = a.exit(LONG).await;
    let (b_ok, b_out) = b2.exit(LONG).await;
    for (ok, out) in [(a_ok, &a_out), (b_ok, &b_out)] {
        assert!(ok, "{out}");
        assert!(out.contains("CLEAN: game"), "{out}");
        assert!(out.contains("side B wins (side A conceded)"), "{out}");
    }
    lab.server.shutdown().await;
}

// Issue 27 item 3: `join --invite URL` with the key and the setups is
// enough the first time (the side is the key's seat in the genesis, the
// scenario the genesis's, the secrets directory hexveil-GAME-SIDE), and
// `hexveil resume DIR` with nothing else takes the seat again (the
// directory remembers the game, the side, the setups, the invite and the
// key). An override the game contradicts is refused naming both.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_command_join_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path(), Duration::from_secs(600)).await;
    let (alice, alice_public) = lab.key("alice").await;
    let (bob, bob_public) = lab.key("bob").await;
    let (game, invite) = lab.create(&alice, &bob_public).await;
    let first = |key: &Path, side: &str| {
        s(&[
            "join",
            "--invite",
            &invite,
            "--key",
            &p(key),
            "--setup",
            &examples(&format!("setup-{side}.toml")),
            "--sealed",
            &examples(&format!("sealed-{side}.toml")),
        ])
    };
    // Overrides the game contradicts, named both ways; nothing written.
    let mut wrong_side = first(&bob, "b");
    wrong_side.extend(s(&["--side", "a"]));
    let (ok, out) = run_in(dir.path(), &wrong_side).await;
    assert!(!ok, "{out}");
    assert!(
        out.contains("--side A, but in game")
            && out.contains("holds side B's seat")
            && out.contains(&alice_public)
            && out.contains(&bob_public),
        "{out}"
    );
    let mut wrong_scenario = first(&bob, "b");
    wrong_scenario.extend(s(&["--scenario", &examples("minis/scenario.toml")]));
    let (ok, out) = run_in(dir.path(), &wrong_scenario).await;
    assert!(!ok, "{out}");
    assert!(
        out.contains("minis/scenario.toml is \"")
            && out.contains("but the game was created from \"Mine Alley\""),
        "{out}"
    );
    let (ok, out) = run_in(
        dir.path(),
        &first(&bob, "x").into_iter().take(5).collect::<Vec<_>>(),
    )
    .await;
    assert!(!ok, "{out}");
    assert!(out.contains("give --setup FILE and --sealed FILE"), "{out}");
    assert!(!dir
        .path()
        .join(format!("hexveil-{game}-b/secrets.json"))
        .exists());

    // Issue 27 item 8: a name out of bounds is refused, saying why.
    let mut bad_name = first(&bob, "b");
    bad_name.extend(s(&["--name", "Bob\u{202E}ecilA"]));
    let (ok, out) = run_in(dir.path(), &bad_name).await;
    assert!(!ok, "{out}");
    assert!(
        out.contains("--name") && out.contains("U+202E") && out.contains("bidirectional"),
        "{out}"
    );

    let mut a = Running::spawn_in(dir.path(), &first(&alice, "a"));
    let mut jb = first(&bob, "b");
    jb.extend(s(&["--name", "Bob the Sapper"]));
    let mut b = Running::spawn_in(dir.path(), &jb);
    a.until(">> your move", LONG).await;
    b.until("as side B (Bob the Sapper)", LONG).await;
    // The name Bob's key signed with its setup is shown to Alice.
    a.until(
        "side B is played by Bob the Sapper (the name its key signed in its setup)",
        LONG,
    )
    .await;
    // Issue 27 item 8: `hexveil list` says it too, marked as the name the
    // key signed, the server's word (like the rest of the list).
    let mut list = s(&["list"]);
    list.extend(lab.conn(&alice));
    let (ok, out) = run(&list).await;
    println!("{out}");
    assert!(
        ok && out.lines().any(|l| l.starts_with("  side B")
            && l.contains(
                ", \"Bob the Sapper\" (the name its key signed, the server says), connected"
            )),
        "{out}"
    );
    let b_dir = dir.path().join(format!("hexveil-{game}-b"));
    assert!(b_dir.join("secrets.json").exists(), "{}", b.text());
    b.child.start_kill().unwrap();
    let _ = b.child.wait().await;

    // Nothing but the directory: no key, server or fingerprint anywhere
    // (the killed client's connection may still hold the seat: taken over).
    let mut b2 = Running::spawn_in(dir.path(), &s(&["resume", &p(&b_dir), "--take-over"]));
    b2.until("resuming with the secrets", LONG).await;
    b2.until("as side B", LONG).await;
    a.say("concede").await;
    let (a_ok, a_out) = a.exit(LONG).await;
    let (b_ok, b_out) = b2.exit(LONG).await;
    for (ok, out) in [(a_ok, &a_out), (b_ok, &b_out)] {
        assert!(ok, "{out}");
        assert!(out.contains("CLEAN: game"), "{out}");
    }
    // Issue 27 item 8: the results name the players by the names their
    // keys signed (Alice gave none), after the row's columns.
    let transcript = b_out
        .lines()
        .find_map(|l| l.strip_prefix("transcript written to "))
        .unwrap_or_else(|| panic!("{b_out}"));
    let (ok, csv) = run_in(dir.path(), &s(&["results", "--csv", transcript.trim()])).await;
    println!("{csv}");
    assert!(ok, "{csv}");
    let mut lines = csv.lines();
    assert!(
        lines.next().unwrap().ends_with(",head,name_a,name_b"),
        "{csv}"
    );
    assert!(lines.next().unwrap().ends_with(",,Bob the Sapper"), "{csv}");
    // And the replay page says who played each side.
    let page = dir.path().join("replay.html");
    let (ok, out) = run_in(
        dir.path(),
        &s(&["replay", transcript.trim(), "--html", &p(&page)]),
    )
    .await;
    assert!(ok, "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains(
            "<p id=\"players\">side A (German): no name given &middot; \
             side B (British): Bob the Sapper"
        ),
        "{html}"
    );
    // A directory without secrets has nothing to resume.
    let (ok, out) = run_in(dir.path(), &s(&["resume", &p(&dir.path().join("nowhere"))])).await;
    assert!(!ok && out.contains("nothing to resume there"), "{out}");
    lab.server.shutdown().await;
}

// Issue 14 items 6 and 8: a host name for --server; the invite `create`
// prints; the connection options from the environment and from the
// config file; a wrong fingerprint in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_is_easy_and_a_wrong_fingerprint_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path(), Duration::from_secs(600)).await;
    let (alice, _) = lab.key("alice").await;
    let (bob, bob_public) = lab.key("bob").await;
    let by_name = format!("localhost:{}", lab.port);
    let mut create = s(&[
        "create",
        "--server",
        &by_name,
        "--fingerprint",
        &lab.fingerprint,
        "--key",
        &p(&alice),
        "--scenario",
        &examples("scenario.toml"),
        "--opponent",
        &bob_public,
    ]);
    let (ok, out) = run(&create).await;
    assert!(ok, "{out}");
    let game = out.lines().last().unwrap().trim().to_string();
    let invite = format!("hexveil://{by_name}/{game}#{}", lab.fingerprint);
    assert!(out.contains(&format!("invite: {invite}")), "{out}");

    // The environment.
    let mut list = cmd(&s(&["list"]));
    list.env("HEXVEIL_SERVER", &by_name)
        .env("HEXVEIL_FINGERPRINT", &lab.fingerprint)
        .env("HEXVEIL_KEY", p(&bob));
    let (ok, out) = run_cmd(list).await;
    assert!(ok && out.contains(&game), "{out}");

    // The config file (a relative key path is beside it).
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "server = \"{by_name}\"\nfingerprint = \"{}\"\nkey = \"bob.pk8\"\n",
            lab.fingerprint
        ),
    )
    .unwrap();
    let mut list = cmd(&s(&["list"]));
    list.env("HEXVEIL_CONFIG", &config);
    let (ok, out) = run_cmd(list).await;
    assert!(ok && out.contains(&game), "{out}");

    // The invite names the server, its fingerprint and the game: a
    // spectator needs nothing else (it leaves when the game... is watched
    // until killed; here only that it connects and says what it watches).
    let mut w = Running::spawn(&s(&["watch", "--invite", &invite, "--key", &p(&bob)]));
    w.until(&format!("watching game {game}"), LONG).await;
    w.child.start_kill().unwrap();

    // A wrong fingerprint, in words.
    let wrong = "ab".repeat(32);
    create[4] = wrong.clone();
    let (ok, out) = run(&create).await;
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!(
            "this server's certificate does not match the fingerprint you gave ({wrong})"
        )),
        "{out}"
    );
    assert!(!out.contains("ApplicationVerificationFailure"), "{out}");
    // A bad invite, in words.
    let (ok, out) = run(&s(&[
        "watch",
        "--invite",
        "hexveil://x/y",
        "--key",
        &p(&bob),
    ]))
    .await;
    assert!(
        !ok && out.contains("an invite reads hexveil://HOST:PORT/GAME#FINGERPRINT"),
        "{out}"
    );
    lab.server.shutdown().await;
}
