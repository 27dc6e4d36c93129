//! `hexveil rules` as a process: JSON in, JSON out; bad input gives a
//! message on stderr and a non-zero exit, never a panic.

use std::io::Write;
use std::process::{Command, Stdio};

fn rules(input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexveil"))
        .arg("rules")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hexveil runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn example(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../examples/rules/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn a_question_gets_json_rulings() {
    let (code, out, _) = rules(&example("a19-12-surrender"));
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["final"]["phase"], "RtPh");
}

#[test]
fn bad_input_exits_non_zero_with_a_message() {
    for (name, needle) in [
        ("error-unknown-terrain", "swamp"),
        ("error-ap-strength-10", "strength 10"),
        ("error-too-few-dice", "too few dice"),
        ("error-missing-fact", "no fact given for side B ap at 3E4"),
    ] {
        let (code, out, err) = rules(&example(name));
        assert_eq!(code, 1, "{name}");
        assert!(out.is_empty(), "{name}");
        assert!(err.contains(needle), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let (code, _, err) = rules("{ not json");
    assert_eq!(code, 1);
    assert!(err.contains("not a rules question"), "{err}");
}

#[test]
fn missing_aerial_af_is_an_input_error_r4() {
    // R4: an AFV without Aerial AF is refused before any fact is asked; the
    // rulings are still printed, but the exit code says the input lacked data.
    let (code, out, err) = rules(&example("error-missing-aerial-af"));
    assert_eq!(code, 1);
    assert!(err.contains("Aerial AF") && err.contains("R4"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["input_errors"].as_array().map(|a| a.len()), Some(1));
    assert!(!err.contains("panicked"));
}

// seed 004: a question naming `"ruleset": "minis"` goes to the miniatures
// oracle; a ruleset the build lacks is refused naming it.
#[test]
fn seed004_a_miniatures_question_gets_miniatures_rulings() {
    let (code, out, err) = rules(&example("minis-seed004-tank-in-mixed-field"));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["rulings"].is_array(), "{out}");
    assert!(out.contains("ger-pz-iv"), "{out}");
    let (code, out, err) = rules(r#"{"ruleset": "chess", "scenario": ""}"#);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("\"chess\"") && err.contains("minis v1"),
        "{err}"
    );
}
