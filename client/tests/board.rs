//! `board`, `status` and `units` (issue 14 item 5) through the real
//! `hexveil` binary: offline (`hexveil board`, `hexveil replay --board`)
//! and at the prompt of a game against the real server, where a script
//! line `board` prints the board and sends nothing. The board a player sees
//! is built from what it received: the other side's public setup (its
//! units, its Known minefield counters), never its hidden mines (G3).

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

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
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

/// The line of `text` that starts (after spaces) with `hex`.
fn hex_line<'t>(text: &'t str, hex: &str) -> &'t str {
    text.lines()
        .find(|l| l.trim_start().starts_with(&format!("{hex} ")))
        .unwrap_or_else(|| panic!("no line for {hex} in:\n{text}"))
}

#[tokio::test]
async fn offline_board_shows_both_public_setups_and_no_hidden_mine() {
    let (ok, out, err) = run(&[
        "board",
        "--scenario",
        &examples("demo/scenario.toml"),
        "--setup-a",
        &examples("demo/setup-a.toml"),
        "--setup-b",
        &examples("demo/setup-b.toml"),
    ])
    .await;
    assert!(ok, "{out}{err}");
    assert!(out.contains("Setup"), "{out}");
    assert!(hex_line(&out, "3E4").contains("brit-squad-1 (B)"), "{out}");
    assert!(hex_line(&out, "3E2").contains("ger-squad-1 (A)"), "{out}");
    assert!(hex_line(&out, "3E2").contains("ger-leader (A)"), "{out}");
    assert!(
        hex_line(&out, "3C3").contains("Known minefield counter (side B)"),
        "{out}"
    );
    assert!(
        hex_line(&out, "3E6").contains("A-T mines in full view (side B)"),
        "{out}"
    );
    assert!(hex_line(&out, "3E5").contains("dirt road"), "{out}");
    // The hidden A-P mines in 3E3 and 3E4 are in no public setup.
    assert!(!out.contains("A-P mines"), "{out}");
    // The units view: every unit with its side, hex and state.
    let squad = out
        .lines()
        .find(|l| l.trim_start().starts_with("ger-squad-3 "))
        .expect("a units line");
    assert!(
        squad.contains("3H6") && squad.contains("Good Order"),
        "{squad}"
    );

    // Without setups the map is empty and says why.
    let (ok, out, _) = run(&["board", "--scenario", &examples("demo/scenario.toml")]).await;
    assert!(ok && out.contains("the setups are not known"), "{out}");

    // A setup given for the wrong side is refused.
    let (ok, _, err) = run(&[
        "board",
        "--scenario",
        &examples("demo/scenario.toml"),
        "--setup-a",
        &examples("demo/setup-b.toml"),
    ])
    .await;
    assert!(!ok && err.contains("side B, given for side A"), "{err}");
}

#[tokio::test]
async fn offline_board_of_a_miniatures_game_shows_figures_in_inches() {
    let (ok, out, err) = run(&[
        "board",
        "--scenario",
        &examples("minis/scenario.toml"),
        "--setup-a",
        &examples("minis/setup-a.toml"),
        "--setup-b",
        &examples("minis/setup-b.toml"),
    ])
    .await;
    assert!(ok, "{out}{err}");
    assert!(out.contains("turn 1 of"), "{out}");
    assert!(out.contains("side A to act"), "{out}");
    let pz = out
        .lines()
        .find(|l| l.trim_start().starts_with("ger-pz-iv "))
        .expect("the tank's line");
    assert!(pz.contains("12,4") && pz.contains("c12x4"), "{pz}");
    assert!(out.contains("open mines"), "{out}");
}

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

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A game of the demo scenario between two players at the CLI: A's
/// `--script` holds `board`, `status` and `units` between its moves. They
/// print what A may see and send nothing (the script's moves after them
/// are played as before, none refused); after the game `replay --board`
/// shows the board at any step, everything revealed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g3_board_status_units_at_the_prompt_show_public_facts_and_send_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path()).await;
    let (alice, bob) = (dir.path().join("alice.pk8"), dir.path().join("bob.pk8"));
    assert!(run(&["keygen", "--out", p(&alice)]).await.0);
    assert!(run(&["keygen", "--out", p(&bob)]).await.0);
    let bob_key = run(&["whoami", "--key", p(&bob)])
        .await
        .1
        .trim()
        .to_string();
    let scenario = examples("demo/scenario.toml");
    let mut create = vec!["create".to_string()];
    create.extend(lab.conn(&alice));
    create.extend(["--scenario", &scenario, "--opponent", &bob_key].map(String::from));
    let (ok, out, err) = run(&strs(&create)).await;
    assert!(ok, "{out}{err}");
    let game = out.lines().last().unwrap().trim().to_string();

    let (script_a, script_b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(
        &script_a,
        "board\n\
         end\nend\nend\n\
         status\n\
         move ger-squad-2 3C3   # into B's Known minefield\n\
         units\n\
         board\n\
         concede\n",
    )
    .unwrap();
    std::fs::write(&script_b, "").unwrap();
    let join = |key: &Path, side: &str, script: &Path| {
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
                &examples(&format!("demo/setup-{side}.toml")),
                "--sealed",
                &examples(&format!("demo/sealed-{side}.toml")),
                "--secrets",
                p(&dir.path().join(format!("{side}-secrets"))),
                "--script",
                p(script),
            ]
            .map(String::from),
        );
        v
    };
    let (ja, jb) = (join(&alice, "a", &script_a), join(&bob, "b", &script_b));
    let (ja, jb) = (strs(&ja), strs(&jb));
    let ((a_ok, a_out, a_err), (b_ok, b_out, b_err)) =
        tokio::time::timeout(std::time::Duration::from_secs(90), async {
            tokio::join!(run(&ja), run(&jb))
        })
        .await
        .expect("the game ends");
    assert!(a_ok, "A: {a_out}{a_err}");
    assert!(b_ok, "B: {b_out}{b_err}");
    // Nothing of the views was sent: every action of the script was
    // played, none refused, and the game ended with A's concession.
    assert!(!a_out.contains("refused"), "{a_out}");
    assert!(a_out.contains("side B wins (side A conceded)"), "{a_out}");
    assert!(a_out.contains("CLEAN: game"), "{a_out}");

    // The board at the Setup prompt: B's public setup is known to A (its
    // units and Known counters), B's hidden mines are not (G3).
    let first = a_out
        .split("side A> board (shown here, nothing sent)")
        .nth(1)
        .expect("the first board was shown");
    let first = first.split("side A> end").next().unwrap();
    assert!(first.contains("Setup"), "{first}");
    assert!(
        hex_line(first, "3E4").contains("brit-squad-1 (B)"),
        "{first}"
    );
    assert!(
        hex_line(first, "3D4").contains("brit-squad-2 (B)"),
        "{first}"
    );
    assert!(
        hex_line(first, "3C3").contains("Known minefield counter (side B)"),
        "{first}"
    );
    assert!(
        !first.contains("A-P mines"),
        "hidden mines are never shown: {first}"
    );
    assert!(first.contains("last action: none yet"), "{first}");

    // `status` in A's Movement Phase, after the three `end`s.
    let status = a_out
        .split("side A> status (shown here, nothing sent)")
        .nth(1)
        .expect("the status was shown");
    let status = status.split("side A> move").next().unwrap();
    assert!(status.contains("Game Turn 1 of"), "{status}");
    assert!(status.contains("side A's MPh"), "{status}");
    assert!(status.contains("you are side A"), "{status}");
    assert!(status.contains("side A: ends the phase"), "{status}");

    // `units` after the move: the squad is in 3C3 or eliminated, whatever
    // the dice; the last board tells the move as the last action.
    let units = a_out
        .split("side A> units (shown here, nothing sent)")
        .nth(1)
        .expect("the units were shown");
    let squad = units
        .lines()
        .find(|l| l.trim_start().starts_with("ger-squad-2 "))
        .expect("the squad's line");
    assert!(
        squad.contains("3C3") || squad.contains("eliminated"),
        "{squad}"
    );
    let last = a_out
        .split("side A> board (shown here, nothing sent)")
        .nth(2)
        .expect("the second board was shown");
    assert!(last.contains("moves ger-squad-2 into 3C3"), "{last}");
    // Entering the Known minefield revealed its A-P mines (B28.45).
    assert!(hex_line(last, "3C3").contains("A-P mines"), "{last}");

    // After the game: the board at any step, everything revealed.
    let t = dir.path().join("a-secrets").join("transcript.hexveil");
    let (ok, out, err) = run(&["replay", p(&t), "--board"]).await;
    assert!(ok, "{out}{err}");
    assert!(out.contains("everything revealed"), "{out}");
    assert!(out.contains("side B wins"), "{out}");
    let (ok, early, _) = run(&["replay", p(&t), "--board", "--step", "2"]).await;
    assert!(ok, "{early}");
    assert!(early.contains("after log entry #2"), "{early}");
    assert!(early.contains("last action: none yet"), "{early}");
    lab.server.shutdown().await;
}

/// Single-quotes `s` for `sh -c`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Issue 14 item 7 as a person meets it: side A's `join` runs in a
/// pseudo-terminal (util-linux `script`), and the test types into it. Tab
/// completes `bo` to `board`, which shows the board; Up recalls the last
/// line from the history; `concede` asks `[y/N]`: `n` keeps the game
/// going, `y` concedes. (Skipped where `script` is missing.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_7_a_terminal_prompt_completes_recalls_and_confirms_concede() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(dir.path()).await;
    let (alice, bob) = (dir.path().join("alice.pk8"), dir.path().join("bob.pk8"));
    assert!(run(&["keygen", "--out", p(&alice)]).await.0);
    assert!(run(&["keygen", "--out", p(&bob)]).await.0);
    let bob_key = run(&["whoami", "--key", p(&bob)])
        .await
        .1
        .trim()
        .to_string();
    let scenario = examples("demo/scenario.toml");
    let mut create = vec!["create".to_string()];
    create.extend(lab.conn(&alice));
    create.extend(["--scenario", &scenario, "--opponent", &bob_key].map(String::from));
    let (ok, out, err) = run(&strs(&create)).await;
    assert!(ok, "{out}{err}");
    let game = out.lines().last().unwrap().trim().to_string();
    let join = |key: &Path, side: &str| {
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
                &examples(&format!("demo/setup-{side}.toml")),
                "--sealed",
                &examples(&format!("demo/sealed-{side}.toml")),
                "--secrets",
                p(&dir.path().join(format!("{side}-secrets"))),
            ]
            .map(String::from),
        );
        v
    };
    // B plays from a pipe that never says anything (it is never to act).
    let jb = join(&bob, "b");
    let b = tokio::spawn(async move { run(&strs(&jb)).await });

    let line = std::iter::once(BIN.to_string())
        .chain(join(&alice, "a"))
        .map(|a| sh_quote(&a))
        .collect::<Vec<_>>()
        .join(" ");
    let mut a = Command::new("script")
        .args(["-qfec", &line, "/dev/null"])
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("script runs");
    let mut keys = a.stdin.take().unwrap();
    let mut screen = a.stdout.take().unwrap();
    let mut seen = String::new();
    // Waits until the screen shows `needle` `n` times in all.
    async fn wait_for(
        screen: &mut tokio::process::ChildStdout,
        seen: &mut String,
        needle: &str,
        n: usize,
    ) {
        let mut buf = [0u8; 4096];
        while seen.matches(needle).count() < n {
            let got =
                tokio::time::timeout(std::time::Duration::from_secs(30), screen.read(&mut buf))
                    .await
                    .unwrap_or_else(|_| panic!("no {needle:?} (x{n}) on the screen:\n{seen}"))
                    .unwrap();
            assert!(got > 0, "the screen closed before {needle:?}:\n{seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..got]));
        }
    }
    let prompt = "side A> ";
    let mut prompts = 1;
    wait_for(&mut screen, &mut seen, prompt, prompts).await;
    // Tab completes the command word.
    keys.write_all(b"bo\t\r").await.unwrap();
    wait_for(&mut screen, &mut seen, "map around the units", 1).await;
    prompts += 1;
    wait_for(&mut screen, &mut seen, prompt, prompts).await;
    keys.write_all(b"status\r").await.unwrap();
    wait_for(&mut screen, &mut seen, "last action:", 2).await;
    prompts += 1;
    wait_for(&mut screen, &mut seen, prompt, prompts).await;
    // Up recalls `status` from the history.
    keys.write_all(b"\x1b[A\r").await.unwrap();
    wait_for(&mut screen, &mut seen, "last action:", 3).await;
    prompts += 1;
    wait_for(&mut screen, &mut seen, prompt, prompts).await;
    // `concede`, then `n`: nothing is sent, the prompt asks again.
    keys.write_all(b"concede\r").await.unwrap();
    wait_for(&mut screen, &mut seen, "concede the game? [y/N]", 1).await;
    keys.write_all(b"n\r").await.unwrap();
    wait_for(&mut screen, &mut seen, "not conceded, nothing sent", 1).await;
    prompts += 1;
    wait_for(&mut screen, &mut seen, prompt, prompts).await;
    keys.write_all(b"concede\r").await.unwrap();
    wait_for(&mut screen, &mut seen, "concede the game? [y/N]", 2).await;
    keys.write_all(b"y\r").await.unwrap();
    wait_for(&mut screen, &mut seen, "CLEAN: game", 1).await;
    let status = tokio::time::timeout(std::time::Duration::from_secs(30), a.wait())
        .await
        .expect("A's client exits")
        .unwrap();
    let mut rest = String::new();
    let _ = screen.read_to_string(&mut rest).await;
    seen.push_str(&rest);
    assert!(status.success(), "{seen}");
    assert!(seen.contains("side B wins (side A conceded)"), "{seen}");
    let (b_ok, b_out, b_err) = b.await.unwrap();
    assert!(b_ok, "B: {b_out}{b_err}");
    assert!(b_out.contains("side B wins (side A conceded)"), "{b_out}");
    lab.server.shutdown().await;
}
