//! A CLI that feels native (issue 12): `--json` on the commands that
//! report something, shell completions, and exit codes that are the same
//! in the help, the README and what the binary does.

mod common;
use common::*;

#[test]
fn issue12_completions_name_every_subcommand_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = hexveil(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = stdout(&out);
        for sub in ["verify", "results", "completions", "whoami", "replay"] {
            assert!(text.contains(sub), "{shell} completions lack {sub}");
        }
    }
    let bad = hexveil(&["completions", "cmd.exe"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn issue12_keygen_and_whoami_json_give_the_same_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("me.pk8");
    let k = key.to_str().unwrap();
    let made = hexveil(&["keygen", "--json", "--out", k]);
    assert_eq!(made.status.code(), Some(0));
    let made: serde_json::Value = serde_json::from_str(&stdout(&made)).unwrap();
    assert_eq!(made["file"], k);
    let who = hexveil(&["whoami", "--json", "--key", k]);
    assert_eq!(who.status.code(), Some(0));
    let who: serde_json::Value = serde_json::from_str(&stdout(&who)).unwrap();
    assert_eq!(who["public_key"], made["public_key"]);
    assert_eq!(who["public_key"].as_str().unwrap().len(), 64);
    assert_eq!(
        who["public_key"].as_str().unwrap(),
        stdout(&hexveil(&["whoami", "--key", k])).trim()
    );
    // A key that cannot be read: the command could not start, exit 2;
    // a key that would be overwritten: a failure, exit 1.
    let missing = dir.path().join("none.pk8");
    let out = hexveil(&["whoami", "--json", "--key", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    assert_eq!(hexveil(&["keygen", "--out", k]).status.code(), Some(1));
}

#[test]
fn issue12_check_json_reports_each_line_and_the_setup() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.txt");
    std::fs::write(&script, "end\nmove ger-squadd-1 3E4\n").unwrap();
    let scenario = examples("scenario.toml");
    let out = hexveil(&[
        "check",
        "--json",
        "--scenario",
        &scenario,
        "--script",
        script.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["ok"], false);
    let lines = v["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["line"], 1);
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(lines[0]["action"], "ends the phase");
    assert_eq!(lines[1]["ok"], false);
    assert!(lines[1]["error"]
        .as_str()
        .unwrap()
        .contains("no unit named `ger-squadd-1`"));

    // The setup check: legal, with the rolls assumed.
    let out = hexveil(&[
        "check",
        "--json",
        "--scenario",
        &scenario,
        "--side",
        "b",
        "--setup",
        &examples("setup-b.toml"),
        "--sealed",
        &examples("sealed-b.toml"),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["ok"], true, "{text}");
    assert_eq!(v["setup"]["legal"], true, "{text}");
    assert_eq!(v["setup"]["side"], "B", "{text}");
    assert_eq!(v["lines"], serde_json::json!([]));

    // A scenario that cannot be read: exit 2, nothing on stdout.
    let out = hexveil(&["check", "--json", "--scenario", "/nonexistent.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
}

/// The exit codes the help gives are the ones README.md documents.
#[test]
fn issue12_exit_codes_are_documented_alike_in_the_help_and_the_readme() {
    let help = stdout(&hexveil(&["--help"]));
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let section = readme
        .split("### Exit codes")
        .nth(1)
        .expect("README.md has an Exit codes section");
    for code in ["0", "1", "2", "3", "141"] {
        assert!(
            help.contains(&format!(" {code} ")),
            "help lacks {code}: {help}"
        );
        assert!(
            section.contains(&format!("| {code} |")),
            "README lacks {code}"
        );
    }
    // Usage errors are clap's, exit 2 as documented.
    assert_eq!(hexveil(&["verify"]).status.code(), Some(2));
    assert_eq!(hexveil(&["no-such-command"]).status.code(), Some(2));
}
