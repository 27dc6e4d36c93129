//! The `hexveil` binary as a user runs it: the demo over real QUIC with a
//! clean verdict (G5), `verify` on tampered and foreign files, `keygen`
//! that never overwrites a key, and command lines refused with a clear
//! message and nothing sent.

mod common;
use common::*;

use std::process::Command;

// DESIGN 3.6: the same scripted game in Escrow mode. The server's escrow
// agent opens B's hexes and carries out its Daisy Chain standing order
// (B28.531), so B's client is never asked to open anything; the transcript
// verifies clean (G1, G5).
#[test]
fn design_3_6_demo_in_escrow_mode_verifies_clean_with_the_server_answering_for_b() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("escrow.transcript");
    let out = hexveil(&["demo", "--escrow", "--out", file.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "demo failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Escrow mode (docs/DESIGN.md"), "{text}");
    assert!(text.contains("CLEAN: game"), "{text}");
    assert!(
        text.contains("secretly pulls its 2-factor Daisy Chain across 3E5"),
        "the escrow agent carried out the standing order: {text}"
    );
    assert!(
        !text.contains("[G4] the referee asks your client to open"),
        "no client was asked to open: {text}"
    );
    let ok = hexveil(&["verify", file.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
}

#[test]
fn g5_demo_plays_over_quic_and_verifies_clean_then_tampering_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.transcript");
    let out = hexveil(&["demo", "--out", file.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "demo failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("CLEAN: game"), "{text}");
    assert!(text.contains("side B revealed and audited"), "{text}");
    // Issue 24: each bot checked what it was shown against the transcript.
    for side in ["A", "B"] {
        assert!(
            text.contains(&format!(
                "side {side}: what this client was shown matches the transcript"
            )),
            "{text}"
        );
    }
    // B28.531: the standing order placed the chain as the tank entered 3E5
    // (noted for the referee only; the demo tells it after the game).
    assert!(
        text.contains("secretly pulls its 2-factor Daisy Chain across 3E5"),
        "{text}"
    );
    // G4: B sees what the referee asks its own client to open; A never
    // does. The line says what is asked: a request the rules cannot make
    // is refused (G5), and the line must not say it was opened.
    assert!(
        text.contains("  B | [G4] the referee asks your client to open, to it only: ap 3E3"),
        "{text}"
    );
    assert!(!text.contains("A   | [G4]"), "{text}");
    // B28.47: the Known counter in 3H5 is a Dummy.
    assert!(text.contains("in 3H5 is a Dummy"), "{text}");
    // R56: the demo's victory conditions name a winner either way the dice
    // fall (A holds 3E5 and 3E6, or B wins otherwise).
    assert!(
        text.contains(
            "GAME OVER: side A wins (side A controls 3E5 and 3E6 at the end of Game Turn 1 (victory conditions))"
        ) || text.contains("GAME OVER: side B wins (no victory condition holds at the end of Game Turn 1"),
        "{text}"
    );

    // The file on disk verifies clean: exit 0.
    let ok = hexveil(&["verify", file.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    assert!(stdout(&ok).starts_with("CLEAN"));

    // One byte changed in the middle of the file is never clean: where it
    // breaks a signature, exit 1 with the entry named; where it breaks an
    // entry's encoding, the file is unreadable (exit 2). The demo's dice
    // move the bytes around, so walk from the middle to the first flip
    // that is a signature fault.
    let original = std::fs::read(&file).unwrap();
    let tampered = dir.path().join("tampered.transcript");
    let mid = original.len() / 2;
    let bad = (0..256)
        .find_map(|off| {
            let mut bytes = original.clone();
            bytes[mid + off] ^= 0x01;
            std::fs::write(&tampered, &bytes).unwrap();
            let out = hexveil(&["verify", tampered.to_str().unwrap()]);
            let code = out.status.code();
            assert!(matches!(code, Some(1) | Some(2)), "never clean: {code:?}");
            (code == Some(1)).then_some(out)
        })
        .expect("a flipped byte in some signature within 256 bytes of the middle");
    let verdict = stdout(&bad);
    assert_eq!(bad.status.code(), Some(1), "{verdict}");
    assert!(verdict.starts_with("FAULT:"), "{verdict}");
    assert!(
        verdict.contains(", entry "),
        "the entry is named: {verdict}"
    );

    // Not a transcript at all: exit 2.
    let junk = dir.path().join("junk");
    std::fs::write(&junk, b"hello").unwrap();
    assert_eq!(
        hexveil(&["verify", junk.to_str().unwrap()]).status.code(),
        Some(2)
    );
    assert_eq!(
        hexveil(&["verify", dir.path().join("missing").to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );

    // Replay shows what was referee-only during play.
    let replay = hexveil(&["replay", file.to_str().unwrap()]);
    let story = stdout(&replay);
    assert!(replay.status.success(), "{story}");
    assert!(story.contains("secretly pulls its 2-factor Daisy Chain across 3E5"));
    assert!(story.contains("(referee only)"));
}

#[test]
fn keygen_refuses_to_overwrite_and_whoami_reads_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("me.pk8");
    let k = key.to_str().unwrap();
    let first = hexveil(&["keygen", "--out", k]);
    assert!(first.status.success());
    let before = std::fs::read(&key).unwrap();
    let who = stdout(&hexveil(&["whoami", "--key", k]));
    assert_eq!(who.trim().len(), 64, "{who}");
    assert!(stdout(&first).contains(who.trim()));

    let second = hexveil(&["keygen", "--out", k]);
    assert!(!second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("refusing to overwrite"));
    assert_eq!(std::fs::read(&key).unwrap(), before, "the old key is kept");
}

#[test]
fn bad_command_lines_are_refused_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.txt");
    std::fs::write(
        &script,
        "end\nmove ger-squad-1 3E4\nmove ger-squadd-1 3E4\nmove ger-pz\nfire ger-squad-1 3E4 lots\nfly ger-pz 3E5\nmove ger-pz 3E5 sideways\n",
    )
    .unwrap();
    let scenario = examples_dir().join("scenario.toml");
    let out = hexveil(&[
        "check",
        "--scenario",
        scenario.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("line 1: ok: ends the phase"), "{text}");
    assert!(
        text.contains("line 2: ok: moves ger-squad-1 into 3E4"),
        "{text}"
    );
    assert!(text.contains("no unit named `ger-squadd-1`"), "{text}");
    assert!(text.contains("`move` needs a hex"), "{text}");
    assert!(text.contains("`lots` is not a valid DRM"), "{text}");
    assert!(text.contains("unknown command `fly`"), "{text}");
    assert!(text.contains("`sideways` is not a movement mode"), "{text}");
}

// A reader that goes away (`hexveil replay FILE | true`) ends the output
// quietly with the shell's SIGPIPE status, not a panic.
#[test]
fn replay_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.transcript");
    let out = hexveil(&["demo", "--out", file.to_str().unwrap()]);
    assert!(out.status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexveil"))
        .args(["replay", file.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away at once, before the replay (which verifies the
    // whole file first) prints its first line.
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(141), "{err}");
}

// seed 004, G5: the miniatures demo plays over real QUIC with the second
// ruleset plugged into the same referee, and its transcript verifies and
// replays with the miniatures narrator.
#[test]
fn seed004_demo_ruleset_minis_plays_over_quic_and_verifies_clean() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("minis.transcript");
    let out = hexveil(&[
        "demo",
        "--ruleset",
        "minis",
        "--out",
        file.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "demo failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("WWII miniatures minefields"), "{text}");
    assert!(text.contains("CLEAN: game"), "{text}");
    assert!(text.contains("side A revealed and audited"), "{text}");
    assert!(text.contains("side B revealed and audited"), "{text}");
    // A crossing of ground that may be mined rolls its percentile (R9).
    assert!(text.contains("detonation roll for ger-rifle-1"), "{text}");
    let ok = hexveil(&["verify", file.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    let replay = hexveil(&["replay", file.to_str().unwrap()]);
    let r = stdout(&replay);
    assert!(r.contains("(ruleset minis v2)"), "{r}");
    assert!(r.contains("moves ger-pz-iv through"), "{r}");
    let bad = hexveil(&["demo", "--ruleset", "chess"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("\"chess\""));
}

// seed 004: `hexveil check` reads a miniatures script with the miniatures
// command language (the scenario names its ruleset), and names what is
// wrong with a bad line.
#[test]
fn seed004_check_reads_miniatures_commands() {
    let scenario = examples_dir().join("minis/scenario.toml");
    let script = examples_dir().join("minis/script-a.txt");
    let ok = hexveil(&[
        "check",
        "--scenario",
        scenario.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]);
    let text = stdout(&ok);
    assert_eq!(ok.status.code(), Some(0), "{text}");
    assert!(text.contains("ok: moves ger-pz-iv through 12,14"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(
        &bad,
        "move ger-pz-iv 12,14\nmove nobody 1,1\nlay ger-mg c1x1 xx\n",
    )
    .unwrap();
    let out = hexveil(&[
        "check",
        "--scenario",
        scenario.to_str().unwrap(),
        "--script",
        bad.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("no figure named `nobody`"), "{text}");
    assert!(text.contains("`xx` is no mine type"), "{text}");
}

/// G5 (issue 10 items 2 and 3): `verify` says which server key it checked
/// and can be told which one to trust; an unfinished transcript is
/// INCOMPLETE with its own exit code (3), never CLEAN; an entry that does
/// not decode is unreadable (2), as the help says; `--json` says the same.
#[test]
fn g5_verify_pins_the_server_key_tells_incomplete_from_clean_and_exits_as_its_help_says() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.transcript");
    let out = hexveil(&["demo", "--out", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stdout(&out));
    let f = file.to_str().unwrap();
    let help = stdout(&hexveil(&["verify", "--help"]));
    for said in [
        "0 complete and clean",
        "1 a fault",
        "2 unreadable",
        "3 clean so far",
    ] {
        assert!(help.contains(said), "{help}");
    }

    // The key checked is printed; the JSON says clean and names it.
    let ok = hexveil(&["verify", "--json", f]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    let json: serde_json::Value = serde_json::from_str(&stdout(&ok)).unwrap();
    assert_eq!(json["status"], "clean");
    assert_eq!(json["complete"], true);
    let key = json["server_key"].as_str().unwrap().to_string();
    assert_eq!(key.len(), 64);
    let text = stdout(&hexveil(&["verify", f]));
    assert!(text.contains(&format!("server key {key}")), "{text}");
    assert!(text.contains("pass --server-key"), "{text}");

    // Pinned to the right key: clean; to another: a fault naming both.
    let pinned = hexveil(&["verify", "--server-key", &key, f]);
    assert_eq!(pinned.status.code(), Some(0), "{}", stdout(&pinned));
    assert!(stdout(&pinned).contains("(trusted: given with --server-key)"));
    let other = "4fd099ccd47d7893dfe9ec24414ecb0d9b5420232aad30d91c465be33cbe65c4";
    let wrong = hexveil(&["verify", "--server-key", other, f]);
    assert_eq!(wrong.status.code(), Some(1), "{}", stdout(&wrong));
    assert!(
        stdout(&wrong).contains(&format!("not by the trusted key {other}")),
        "{}",
        stdout(&wrong)
    );
    // Issue 27: another server's game is not called damaged or forged.
    assert!(
        stdout(&wrong).contains("NOT VERIFIED against the server key given")
            && !stdout(&wrong).contains("damaged or forged"),
        "{}",
        stdout(&wrong)
    );
    let junk_key = hexveil(&["verify", "--server-key", "xyz", f]);
    assert_eq!(junk_key.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&junk_key.stderr).contains("--server-key"));

    // Cut before the end and the reveals: INCOMPLETE, exit 3, never CLEAN.
    let bytes = std::fs::read(&file).unwrap();
    let starts = entry_starts(&bytes);
    let cut = dir.path().join("cut.transcript");
    std::fs::write(&cut, &bytes[..starts[starts.len() / 2]]).unwrap();
    let c = cut.to_str().unwrap();
    let inc = hexveil(&["verify", c]);
    assert_eq!(inc.status.code(), Some(3), "{}", stdout(&inc));
    assert!(stdout(&inc).starts_with("INCOMPLETE"), "{}", stdout(&inc));
    assert!(!stdout(&inc).contains("CLEAN:"), "{}", stdout(&inc));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&hexveil(&["verify", "--json", c]))).unwrap();
    assert_eq!(json["status"], "incomplete");
    assert_eq!(json["exit_code"], 3);

    // An entry whose body does not decode (its envelope length prefix
    // claims 4 GiB): unreadable, exit 2, as the help says.
    let mut broken = bytes.clone();
    let second = starts[1] + 4;
    broken[second..second + 5].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    let b = dir.path().join("broken.transcript");
    std::fs::write(&b, &broken).unwrap();
    let unreadable = hexveil(&["verify", b.to_str().unwrap()]);
    assert_eq!(unreadable.status.code(), Some(2), "{}", stdout(&unreadable));
    assert!(
        stdout(&unreadable).contains("unreadable"),
        "{}",
        stdout(&unreadable)
    );
}

// Issue 24, G5: `hexveil verify --proof` checks a piece of evidence a
// client kept against a server: a fork proof by itself (exit 1, the
// server named), a file that proves nothing or is no evidence (exit 2).
#[test]
fn g5_issue24_verify_proof_names_the_server_for_a_fork_and_refuses_what_proves_nothing() {
    use hexveil_protocol::attestation::Attestation;
    use hexveil_protocol::encoding::{Digest, GameId};
    use hexveil_protocol::envelope::{
        genesis_head, next_head, Appended, Envelope, ForkProof, Receipt, ENVELOPE_VERSION,
    };
    use hexveil_protocol::evidence::Evidence;
    use hexveil_protocol::identity::Identity;
    let dir = tempfile::tempdir().unwrap();
    let server = Identity::from_seed(&[3; 32]).unwrap();
    let player = Identity::from_seed(&[1; 32]).unwrap();
    let game = GameId([7; 16]);
    let head = genesis_head(&game);
    let entry = |author: &Identity, body: &[u8]| {
        Envelope {
            version: ENVELOPE_VERSION,
            game_id: game,
            author: author.public_key(),
            seq: 0,
            prev_head: head,
            body: body.to_vec(),
        }
        .sign(author)
    };
    let answer = entry(&player, b"an answer");
    let receipt = |e: &hexveil_protocol::envelope::SignedEnvelope| {
        Receipt::issue(
            &server,
            game,
            &Appended {
                seq: 0,
                entry_hash: e.entry_hash(),
                new_head: next_head(&head, &e.entry_hash()),
            },
        )
    };
    let proof = |first: Attestation, second: Attestation| {
        Evidence::Fork(Box::new(ForkProof::Attested {
            server: server.public_key(),
            first: Box::new(first),
            second: Box::new(second),
        }))
    };
    // The player's receipt at seq 0 and the server's own entry at seq 0.
    let fork = dir.path().join("000000-fork.hxproof");
    std::fs::write(
        &fork,
        proof(
            Attestation::Receipt(receipt(&answer)),
            Attestation::ServerEntry(entry(&server, b"a timeout")),
        )
        .to_file(),
    )
    .unwrap();
    let out = hexveil(&["verify", "--proof", fork.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAULT: server"), "{text}");
    assert!(text.contains("two histories"), "{text}");
    let json = hexveil(&["verify", "--json", "--proof", fork.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["status"], "fault");
    // The same statement twice is no fork: not a proof.
    let same = dir.path().join("same.hxproof");
    let r = Attestation::Receipt(receipt(&answer));
    std::fs::write(&same, proof(r.clone(), r).to_file()).unwrap();
    let out = hexveil(&["verify", "--proof", same.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stdout(&out).contains("not a proof"), "{}", stdout(&out));
    // Bytes that are no evidence at all.
    let junk = dir.path().join("junk.hxproof");
    std::fs::write(&junk, b"not evidence").unwrap();
    let out = hexveil(&["verify", "--proof", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a hexveil evidence file"), "{err}");
    let _ = Digest::ZERO;
}

// Issue 27: `demo --pace` paces the bots so a game can be watched live;
// the game still plays to a clean transcript, and a pace that is no number
// of seconds is refused with a message naming the flag, nothing played.
#[test]
fn issue27_demo_pace_waits_before_each_action_and_refuses_a_bad_pace() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("paced.transcript");
    let out = hexveil(&["demo", "--pace", "0.02", "--out", file.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("each bot waits 0.02 s before each action"),
        "{text}"
    );
    assert!(text.contains("CLEAN: game"), "{text}");
    let bad = hexveil(&["demo", "--pace", "100"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--pace 100 is not a number of seconds from 0 to 60"),
        "{err}"
    );
    assert!(stdout(&bad).is_empty() || !stdout(&bad).contains("CLEAN"));
}
