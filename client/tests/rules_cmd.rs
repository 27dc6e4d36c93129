//! `hexveil rules` as a process: JSON in, JSON out; bad input gives a
//! message on stderr and a non-zero exit, never a panic.

use std::io::Write;
use std::process::{Command, Stdio};

fn rules(input: &str) -> (i32, String, String) {
    rules_with(&[], input)
}

/// `hexveil rules ARGS...` with `input` on stdin.
fn rules_with(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexveil"))
        .arg("rules")
        .args(args)
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

/// Every example of `examples/rules/`, ASL and miniatures, run by the
/// command from its file (so supplied tables named by `file` are read
/// beside it and their pins checked) gives exactly its expected output;
/// an expected `{"error": ...}` is that message on stderr and exit code 1.
#[test]
fn every_example_through_the_command_gives_its_expected_output() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rules");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".json") || name.ends_with(".expected.json") {
            continue;
        }
        n += 1;
        let expected: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).unwrap(),
        )
        .unwrap();
        let (code, out, err) = rules_with(&[path.to_str().unwrap()], "");
        assert!(!err.contains("panicked"), "{name}: {err}");
        if let Some(msg) = expected.get("error").and_then(|m| m.as_str()) {
            assert_eq!(code, 1, "{name}");
            assert!(out.is_empty(), "{name}: {out}");
            assert!(err.contains(msg), "{name}: {err}");
            continue;
        }
        let got: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {out} {err}"));
        assert_eq!(got, expected, "{name}");
        let has_input_errors = expected.get("input_errors").is_some();
        assert_eq!(code, i32::from(has_input_errors), "{name}: {err}");
    }
    assert!(n >= 20, "only {n} examples");
}

/// R12: a question's scenario names a supplied table by `file`, read
/// relative to the question file; its `sha256` is filled in when absent and
/// a wrong one is refused naming the table and both hashes. The same
/// question on stdin reads the file relative to the current directory.
#[test]
fn r12_supplied_tables_by_file_are_read_beside_the_question_and_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let ex: serde_json::Value =
        serde_json::from_str(&example("b28-6-clearance-league-data")).unwrap();
    let csv = std::fs::read_to_string(format!(
        "{}/../examples/rules/data/example-b24-74-clearance.csv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let pinned = ex["scenario"]["tables"]["b24_74_clearance"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::create_dir(dir.path().join("league")).unwrap();
    std::fs::write(dir.path().join("league/clear.csv"), &csv).unwrap();
    let write = |q: &serde_json::Value| {
        let p = dir.path().join("q.json");
        std::fs::write(&p, q.to_string()).unwrap();
        p
    };
    // No pin: the command computes it (the output shows the one it used).
    let mut q = ex.clone();
    q["scenario"]["tables"]["b24_74_clearance"] = serde_json::json!({ "file": "league/clear.csv" });
    let p = write(&q);
    let (code, out, err) = rules_with(&[p.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tables"]["b24_74_clearance"]["sha256"], pinned.as_str());
    assert_eq!(
        v["rulings"][0]["events"][1]["kind"]["Minefield"]["Clearance"]["cleared"],
        true
    );
    // On stdin, relative to the current directory.
    let (code, _, err) = Command::new(env!("CARGO_BIN_EXE_hexveil"))
        .arg("rules")
        .current_dir(dir.path())
        .stdin(std::fs::File::open(&p).unwrap())
        .output()
        .map(|o| {
            (
                o.status.code(),
                o.stdout,
                String::from_utf8_lossy(&o.stderr).to_string(),
            )
        })
        .unwrap();
    assert_eq!(code, Some(0), "{err}");
    // A wrong pin: refused, naming the table and both hashes.
    let wrong = "0".repeat(64);
    q["scenario"]["tables"]["b24_74_clearance"]["sha256"] = serde_json::json!(wrong);
    let p = write(&q);
    let (code, out, err) = rules_with(&[p.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("tables.b24_74_clearance") && err.contains(&wrong) && err.contains(&pinned),
        "{err}"
    );
    // A file that is not there: named.
    q["scenario"]["tables"]["b24_74_clearance"] = serde_json::json!({ "file": "league/nope.csv" });
    let p = write(&q);
    let (code, _, err) = rules_with(&[p.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert!(
        err.contains("nope.csv") && err.contains("b24_74_clearance"),
        "{err}"
    );
    // Without the league's table the same clearance is refused (R12).
    q["scenario"].as_object_mut().unwrap().remove("tables");
    let (code, _, err) = rules(&q.to_string());
    assert_eq!(code, 1);
    assert!(
        err.contains("b24_74_clearance") && err.contains("R12"),
        "{err}"
    );
}
