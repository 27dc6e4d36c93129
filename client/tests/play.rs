//! Two terminals play a game: a real server (in this test's process) on
//! loopback, and the `hexveil` binary run as each player would run it
//! (`keygen`, `whoami`, `create`, `list`, `join --script`). A bad command
//! line is refused before anything is sent; a player leaves and resumes
//! with the secrets on disk; an action the rules refuse comes back refused
//! and changes nothing (G6); both players end with the same clean
//! transcript (G5).

use std::path::Path;
use std::sync::Arc;

use hexveil_server::config::ServerSettings;
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::Server;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_hexveil");

fn examples(name: &str) -> String {
    format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

async fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("the hexveil binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A server in this process on loopback, and the connection options a
/// player passes to the binary.
struct Lab {
    server: Server,
    addr: String,
    fingerprint: String,
}

impl Lab {
    async fn start(dir: &Path) -> Lab {
        let data = dir.join("server");
        let (secrets, _) = ServerSecrets::load_or_create(&data).unwrap();
        let server = Server::start(
            ServerSettings::new(data.clone(), "127.0.0.1:0".parse().unwrap()),
            Arc::new(LiveGameFactory::new(Arc::new(secrets))),
        )
        .await
        .unwrap();
        Lab {
            addr: server.local_addr().to_string(),
            fingerprint: server.fingerprint().to_string(),
            server,
        }
    }

    /// `--server ADDR --fingerprint FP --key KEY`.
    fn conn(&self, key: &Path) -> Vec<String> {
        [
            "--server",
            &self.addr,
            "--fingerprint",
            &self.fingerprint,
            "--key",
            p(key),
        ]
        .map(String::from)
        .to_vec()
    }
}

/// Alice's and Bob's new key files in `dir`, and Bob's public key.
async fn two_players(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let (alice, bob) = (dir.join("alice.pk8"), dir.join("bob.pk8"));
    assert!(run(&["keygen", "--out", p(&alice)]).await.0);
    assert!(run(&["keygen", "--out", p(&bob)]).await.0);
    let (_, bob_key, _) = run(&["whoami", "--key", p(&bob)]).await;
    (alice, bob, bob_key.trim().to_string())
}

/// `args` as the `&str`s `run` takes.
fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g5_two_players_join_from_the_cli_and_end_with_a_clean_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path()).await;
    let conn = |key: &Path| lab.conn(key);
    let (alice, bob, bob_key) = two_players(dir.path()).await;

    let mut create = vec!["create".to_string()];
    create.extend(conn(&alice));
    create.extend(
        [
            "--scenario",
            &examples("scenario.toml"),
            "--side",
            "a",
            "--opponent",
            &bob_key,
        ]
        .map(String::from),
    );
    let create: Vec<&str> = create.iter().map(String::as_str).collect();
    let (ok, out, err) = run(&create).await;
    assert!(ok, "create failed: {out}{err}");
    let game = out.lines().last().unwrap().trim().to_string();
    assert_eq!(game.len(), 32, "{out}");

    let mut list = vec!["list".to_string()];
    list.extend(conn(&bob));
    let list: Vec<&str> = list.iter().map(String::as_str).collect();
    let (ok, out, _) = run(&list).await;
    assert!(ok && out.contains(&game), "{out}");
    // Issue 27 item 8: what the game is, who holds it and since when.
    println!("{out}");
    let head = out.lines().find(|l| l.starts_with(&game)).unwrap();
    assert!(head.contains(" (asl v"), "{out}");
    assert!(
        head.contains(", created 20") && head.contains(" UTC, 0 spectators"),
        "{out}"
    );
    assert!(out.contains("  side A"), "{out}");
    assert!(out.contains(": key "), "{out}");
    // issue 12: `list --json` says the same as one JSON array.
    let mut list_json = list.clone();
    list_json.push("--json");
    let (ok, out, err) = run(&list_json).await;
    assert!(ok, "{out}{err}");
    let games: serde_json::Value = serde_json::from_str(&out).unwrap();
    let listed = games
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game"] == game.as_str())
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(listed["finished"], false, "{out}");
    assert_eq!(listed["side_a_seated"], false, "{out}");
    assert_eq!(listed["ruleset"], "asl", "{out}");
    assert!(
        listed["created_ms"].as_u64().unwrap() > 1_700_000_000_000,
        "{out}"
    );
    assert!(listed["key_a"].as_str().unwrap().len() == 64, "{out}");

    // A plays part of its turn and leaves at a prompt (its input ends),
    // then joins again with the same secrets and finishes.
    let script = dir.path().join("a.txt");
    std::fs::write(
        &script,
        "end\nend\nend\n\
         move ger-squad-1,ger-leader 4E4\n\
         move nobody 4E4            # refused here: no such unit\n",
    )
    .unwrap();
    let script2 = dir.path().join("a2.txt");
    std::fs::write(
        &script2,
        "fire ger-squad-1 4E3       # refused by the referee: no Fire in the MPh (A3.3)\n\
         concede\n",
    )
    .unwrap();
    let join = |key: &Path, side: &str, setup: &str, sealed: &str, secrets: &Path| {
        let mut v = vec!["join".to_string()];
        v.extend(conn(key));
        v.extend(
            [
                "--game",
                &game,
                "--side",
                side,
                "--scenario",
                &examples("scenario.toml"),
                "--setup",
                &examples(setup),
                "--sealed",
                &examples(sealed),
                "--secrets",
                p(secrets),
            ]
            .map(String::from),
        );
        v
    };
    let (sa, sb) = (dir.path().join("a-secrets"), dir.path().join("b-secrets"));
    let mut ja = join(&alice, "A", "setup-a.toml", "sealed-a.toml", &sa);
    let mut ja2 = ja.clone();
    // On resume A passes an edited copy of its public setup: the stored one
    // (what A committed to) is used, and the client says so.
    let edited = dir.path().join("setup-a-edited.toml");
    let text = std::fs::read_to_string(examples("setup-a.toml")).unwrap();
    std::fs::write(&edited, format!("{text}\n# edited after joining\n")).unwrap();
    let setup_at = ja2.iter().position(|a| a == "--setup").unwrap() + 1;
    ja2[setup_at] = p(&edited).to_string();
    ja.extend(["--script".to_string(), p(&script).to_string()]);
    ja2.extend(["--script".to_string(), p(&script2).to_string()]);
    let mut jb = join(&bob, "b", "setup-b.toml", "sealed-b.toml", &sb);
    jb.extend(["--daisy".to_string(), "brit-squad-1@3E5".to_string()]);
    let ja: Vec<&str> = ja.iter().map(String::as_str).collect();
    let ja2: Vec<&str> = ja2.iter().map(String::as_str).collect();
    let jb: Vec<&str> = jb.iter().map(String::as_str).collect();
    let mut list_a = vec!["list".to_string()];
    list_a.extend(conn(&alice));
    let list_a = strs(&list_a);
    let a_runs = async {
        let first = run(&ja).await;
        // A's client has exited: its seat is open at once (its close
        // reached the server before it exited), not after the idle timeout.
        let (_, listed, _) = run(&list_a).await;
        assert!(
            listed
                .lines()
                .any(|l| l.starts_with("  side A") && l.ends_with(", NOT connected")),
            "{listed}"
        );
        let second = run(&ja2).await;
        (first, second)
    };
    let (((a1_ok, a1_out, a1_err), (a_ok, a_out, a_err)), (b_ok, b_out, b_err)) =
        tokio::time::timeout(std::time::Duration::from_secs(60), async {
            tokio::join!(a_runs, run(&jb))
        })
        .await
        .expect("the game ends");
    assert!(a1_ok, "A: {a1_out}{a1_err}");
    assert!(a1_out.contains("no more commands; leaving"), "{a1_out}");
    assert!(
        a1_out.contains("refused, nothing sent: no unit named `nobody`"),
        "{a1_out}"
    );
    assert!(
        a1_out.contains("moves ger-squad-1, ger-leader into 4E4"),
        "{a1_out}"
    );
    // G6: the second run reloads the same secrets and answers no old prompt.
    assert!(a_ok, "A: {a_out}{a_err}");
    assert!(a_out.contains("resuming with the secrets"), "{a_out}");
    assert!(
        a_out.contains("note: --setup differs from the file given at the first join"),
        "{a_out}"
    );
    assert!(b_ok, "B: {b_out}{b_err}");
    assert!(a_out.contains("refused, nothing changed:"), "{a_out}");
    assert_eq!(
        a_out.matches("refused, nothing changed").count(),
        1,
        "only the Fire is refused: {a_out}"
    );
    for (out, secrets) in [(&a_out, &sa), (&b_out, &sb)] {
        assert!(out.contains("CLEAN: game"), "{out}");
        assert!(out.contains("side B wins (side A conceded)"), "{out}");
        assert!(secrets.join("secrets.json").exists());
        let t = secrets.join("transcript.hexveil");
        let (ok, verdict, _) = run(&["verify", p(&t)]).await;
        assert!(ok, "{verdict}");
    }
    assert_eq!(
        std::fs::read(sa.join("transcript.hexveil")).unwrap(),
        std::fs::read(sb.join("transcript.hexveil")).unwrap(),
        "both players hold the same log"
    );
    lab.server.shutdown().await;
}

// DESIGN 3.6 from the command line: `create --escrow` makes an Escrow game
// with its own answer timeout; a player who joins without `--escrow` is
// refused before anything is committed (its hidden setup never leaves
// its machine unless it agrees); with `--escrow` both play, the server
// answers for B's minefields, and both end with the same clean transcript.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn design_3_6_an_escrow_game_from_the_cli_needs_each_players_consent() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path()).await;
    let (alice, bob, bob_key) = two_players(dir.path()).await;
    let scenario = examples("scenario.toml");
    let mut create = vec!["create".to_string()];
    create.extend(lab.conn(&alice));
    create.extend(
        [
            "--scenario",
            &scenario,
            "--opponent",
            &bob_key,
            "--escrow",
            "--answer-timeout-secs",
            "86400",
        ]
        .map(String::from),
    );
    let (ok, out, err) = run(&strs(&create)).await;
    assert!(ok, "create failed: {out}{err}");
    assert!(out.contains("Escrow mode"), "{out}");
    let game = out.lines().last().unwrap().trim().to_string();

    let join = |key: &Path, side: &str, setup: &str, sealed: &str, script: &Path, escrow: bool| {
        let mut v = vec!["join".to_string()];
        v.extend(lab.conn(key));
        v.extend(
            [
                "--game",
                &game,
                "--side",
                side,
                "--scenario",
                &scenario,
                "--setup",
                &examples(setup),
                "--sealed",
                &examples(sealed),
                "--secrets",
                p(&dir.path().join(format!("{side}-secrets"))),
                "--script",
                p(script),
            ]
            .map(String::from),
        );
        if escrow {
            v.push("--escrow".into());
        }
        v
    };
    let (script_a, script_b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    // In its Prep Fire Phase A fires FFE at 3E4, where B hid A-P 12
    // (B28.62): B's leaves there are opened and committed anew, by the
    // server for B. Then A concedes; B only waits.
    std::fs::write(&script_a, "end\nend\nffe 3E4 36 he\nconcede\n").unwrap();
    std::fs::write(&script_b, "").unwrap();
    let setup_a = "setup-a.toml";

    // Without --escrow, B's client refuses the game and commits nothing
    // (issue 27 item 3: said from the genesis, before any secret is
    // written).
    let (ok, out, err) = run(&strs(&join(
        &bob,
        "B",
        "setup-b.toml",
        "sealed-b.toml",
        &script_b,
        false,
    )))
    .await;
    assert!(!ok, "{out}");
    let said = format!("{out}{err}");
    assert!(
        said.contains("is an Escrow game") && said.contains("join with --escrow to agree"),
        "{said}"
    );
    assert!(
        !dir.path().join("B-secrets/secrets.json").exists(),
        "{said}"
    );

    let ja = join(&alice, "A", setup_a, "sealed-a.toml", &script_a, true);
    let jb = join(&bob, "B", "setup-b.toml", "sealed-b.toml", &script_b, true);
    let (ja, jb) = (strs(&ja), strs(&jb));
    let ((a_ok, a_out, a_err), (b_ok, b_out, b_err)) =
        tokio::time::timeout(std::time::Duration::from_secs(60), async {
            tokio::join!(run(&ja), run(&jb))
        })
        .await
        .expect("the game ends");
    assert!(a_ok, "A: {a_out}{a_err}");
    assert!(b_ok, "B: {b_out}{b_err}");
    assert!(
        !a_out.contains("refused"),
        "A's commands were all accepted: {a_out}"
    );
    assert!(
        a_out.contains("FFE") || a_out.contains("B28.62"),
        "the FFE was adjudicated: {a_out}"
    );
    assert!(
        !b_out.contains("[G4] the referee asks your client to open"),
        "B's client is never asked to open: {b_out}"
    );
    for out in [&a_out, &b_out] {
        assert!(out.contains("CLEAN: game"), "{out}");
    }
    lab.server.shutdown().await;
}

// G6 (issue 10 item 7): `hexveil join` survives a server restart. Both
// players' clients lose the server in the middle of A's turn; A types its
// move and its concession while the server is away; a new server process
// on the same data directory and address comes back; both clients notice,
// reconnect with backoff and resume from their last entry, A's commands
// are carried out, and both end with the same clean transcript: the other
// side saw nothing but a delay. A spectator's `hexveil watch` reconnects
// too, and shows every update once: what it showed before the restart is
// not shown again (DESIGN 5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_join_survives_a_server_restart_and_keeps_what_was_typed_meanwhile() {
    use std::process::Stdio;
    use std::sync::Mutex;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path()).await;
    let data = dir.path().join("server");
    let (alice, bob, bob_key) = two_players(dir.path()).await;
    let mut create = vec!["create".to_string()];
    create.extend(lab.conn(&alice));
    create.extend(
        [
            "--scenario",
            &examples("scenario.toml"),
            "--side",
            "a",
            "--opponent",
            &bob_key,
        ]
        .map(String::from),
    );
    let (ok, out, err) = run(&strs(&create)).await;
    assert!(ok, "create failed: {out}{err}");
    let game = out.lines().last().unwrap().trim().to_string();
    let join = |key: &Path, side: &str, secrets: &str| {
        let mut v = vec!["join".to_string()];
        v.extend(lab.conn(key));
        v.extend(
            [
                "--game",
                &game,
                "--side",
                side,
                "--scenario",
                &examples("scenario.toml"),
                "--setup",
                &examples(&format!("setup-{side}.toml")),
                "--sealed",
                &examples(&format!("sealed-{side}.toml")),
                "--secrets",
                p(&dir.path().join(secrets)),
            ]
            .map(String::from),
        );
        v
    };
    let spawn = |args: Vec<String>| {
        Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the hexveil binary runs")
    };
    let mut a = spawn(join(&alice, "a", "a-secrets"));
    let b = spawn(join(&bob, "b", "b-secrets"));
    let carol = dir.path().join("carol.pk8");
    assert!(run(&["keygen", "--out", p(&carol)]).await.0);
    let mut watch = vec!["watch".to_string()];
    watch.extend(lab.conn(&carol));
    watch.extend(["--game".to_string(), game.clone()]);
    let mut watcher = spawn(watch);
    // What a process prints, as it prints it.
    let collect = |stdout| {
        let text = std::sync::Arc::new(Mutex::new(String::new()));
        let mut lines = BufReader::new(stdout).lines();
        let sink = text.clone();
        let reader = tokio::spawn(async move {
            while let Ok(Some(l)) = lines.next_line().await {
                let mut o = sink.lock().unwrap();
                o.push_str(&l);
                o.push('\n');
            }
        });
        (text, reader)
    };
    let (a_out, _) = collect(a.stdout.take().unwrap());
    let (w_out, w_reader) = collect(watcher.stdout.take().unwrap());
    let mut a_in = a.stdin.take().unwrap();
    a_in.write_all(b"end\nend\nend\n").await.unwrap();
    // A and the spectator have both seen A's MPh begin before the server
    // goes: what the spectator shows again after it is the test.
    const MPH: &str = "side A's Movement Phase (MPh) begins";
    let waited = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while !a_out.lock().unwrap().contains("side A's MPh")
            || !w_out.lock().unwrap().contains(MPH)
        {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "A and the spectator reach A's MPh: {}\n---\n{}",
        a_out.lock().unwrap(),
        w_out.lock().unwrap()
    );

    // The server goes away; A types meanwhile; a new server comes back.
    let addr = lab.server.local_addr();
    lab.server.shutdown().await;
    a_in.write_all(b"move ger-squad-1,ger-leader 4E4\nconcede\n")
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let (secrets, _) = ServerSecrets::load_or_create(&data).unwrap();
    let server = Server::start(
        ServerSettings::new(data.clone(), addr),
        Arc::new(LiveGameFactory::new(Arc::new(secrets))),
    )
    .await
    .unwrap();

    let ended = tokio::time::timeout(std::time::Duration::from_secs(90), async {
        let b = b.wait_with_output().await.unwrap();
        let a = a.wait().await.unwrap();
        (a, b)
    })
    .await
    .expect("both clients finish the game");
    drop(a_in);
    let (a_status, b) = ended;
    let a_text = a_out.lock().unwrap().clone();
    let b_text = String::from_utf8_lossy(&b.stdout).into_owned();
    assert!(a_status.success(), "A: {a_text}");
    assert!(
        b.status.success(),
        "B: {b_text}{}",
        String::from_utf8_lossy(&b.stderr)
    );
    for text in [&a_text, &b_text] {
        assert!(text.contains("reconnected; resuming"), "{text}");
        assert!(text.contains("CLEAN: game"), "{text}");
        assert!(text.contains("side B wins (side A conceded)"), "{text}");
    }
    // What A typed while the server was away was carried out, once.
    assert_eq!(
        a_text
            .matches("moves ger-squad-1, ger-leader into 4E4")
            .count(),
        1,
        "{a_text}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("a-secrets/transcript.hexveil")).unwrap(),
        std::fs::read(dir.path().join("b-secrets/transcript.hexveil")).unwrap(),
    );
    let watched = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        watcher.wait_with_output(),
    )
    .await
    .expect("the spectator sees the end")
    .unwrap();
    // Every line is read once the pipe is closed.
    w_reader.await.unwrap();
    let w_text = w_out.lock().unwrap().clone();
    assert!(
        watched.status.success(),
        "watch: {w_text}{}",
        String::from_utf8_lossy(&watched.stderr)
    );
    assert!(w_text.contains("reconnected; going on after"), "{w_text}");
    assert!(w_text.contains("CLEAN: game"), "{w_text}");
    assert!(!w_text.contains("were not sent"), "{w_text}");
    // Before the restart (shown, then sent again and skipped) and after
    // it (A's move): each once.
    for line in [MPH, "moves ger-squad-1, ger-leader into 4E4"] {
        assert_eq!(w_text.matches(line).count(), 1, "{line}: {w_text}");
    }
    server.shutdown().await;
}

// Issue 12 (a CLI that feels native): `create --json` prints the created
// game as one JSON object, and nothing else on stdout: its id, the invite
// that holds server, fingerprint and game, the scenario and ruleset, each
// side's key and the terms asked for; `list --json` then lists that game.
// A malformed opponent key is refused before anything is created (exit 2,
// nothing on stdout, G6).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue12_create_json_names_the_game_its_invite_and_its_terms() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path()).await;
    let (alice, bob, bob_key) = two_players(dir.path()).await;
    let (_, alice_key, _) = run(&["whoami", "--key", p(&alice)]).await;
    let mut create = vec!["create".to_string()];
    create.extend(lab.conn(&alice));
    create.extend(
        [
            "--scenario",
            &examples("scenario.toml"),
            "--side",
            "b",
            "--opponent",
            &bob_key,
            "--escrow",
            "--answer-timeout-secs",
            "3600",
            "--json",
        ]
        .map(String::from),
    );
    let (ok, out, err) = run(&strs(&create)).await;
    assert!(ok, "{out}{err}");
    assert_eq!(out.lines().count(), 1, "one JSON value: {out}");
    let made: serde_json::Value = serde_json::from_str(&out).unwrap();
    let game = made["game"].as_str().unwrap().to_string();
    assert_eq!(game.len(), 32, "{out}");
    assert_eq!(
        made["invite"].as_str().unwrap(),
        format!("hexveil://{}/{game}#{}", lab.addr, lab.fingerprint)
    );
    assert_eq!(made["server"], lab.addr.as_str());
    assert_eq!(made["fingerprint"], lab.fingerprint.as_str());
    assert_eq!(made["scenario"], "Mine Alley");
    assert_eq!(made["ruleset"], "asl");
    assert_eq!(made["ruleset_version"], hexveil_asl::ruleset::VERSION);
    assert_eq!(made["side"], "B");
    assert_eq!(made["side_a"], bob_key.as_str());
    assert_eq!(made["side_b"], alice_key.trim());
    assert_eq!(made["mode"], "escrow");
    assert_eq!(made["answer_timeout_secs"], 3600);

    let mut list = vec!["list".to_string()];
    list.extend(lab.conn(&bob));
    list.push("--json".into());
    let (ok, out, err) = run(&strs(&list)).await;
    assert!(ok, "{out}{err}");
    let games: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        games
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["game"] == game.as_str()),
        "{out}"
    );

    let bad = create
        .iter()
        .map(|a| {
            if *a == bob_key {
                "xyz".to_string()
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>();
    let out = Command::new(BIN)
        .args(&bad)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let (_, listed, _) = run(&strs(&list)).await;
    let games: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(
        games.as_array().unwrap().len(),
        1,
        "nothing created: {listed}"
    );
    lab.server.shutdown().await;
}
