//! A short load run (issue 16): `hexveil-load` (this package's copy,
//! built with the tests) drives four games of bot players against the
//! server binary the process tests run, half of side A's moves steps among
//! hexes side B may have mined (openings and beacon dice), for two seconds,
//! floor included. It asserts what holds on any machine: no error, no
//! refusal, some actions ruled, and a summary with every figure; never a
//! time or a rate.

use std::process::Command;

use hexveil_tests::{built_binary, process_binary, LOAD_BIN};

#[test]
fn a_short_load_run_has_no_error_and_rules_actions() {
    let out = Command::new(built_binary(LOAD_BIN))
        .args(["--games", "4", "--secs", "2", "--json", "--quiet"])
        .args(["--mix", "50"])
        .arg("--server-bin")
        .arg(process_binary())
        .output()
        .expect("run hexveil-load");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("a JSON summary on stdout ({e}); stderr: {stderr}"));
    assert_eq!(summary["errors"], 0, "{summary:#}");
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    assert_eq!(
        summary["refusals"], 0,
        "the bots' plan fits the game: {summary:#}"
    );
    let actions = summary["actions"].as_u64().expect("an action count");
    assert!(actions > 0, "{summary:#}");
    let by_kind = &summary["actions_by_kind"];
    let sum: u64 = ["move", "mine_step", "end_phase"]
        .iter()
        .map(|k| by_kind[k].as_u64().expect("a count per kind"))
        .sum();
    assert_eq!(sum, actions, "{summary:#}");
    assert_eq!(summary["idle_games"], 4, "{summary:#}");
    // Every figure is there (the values depend on the machine).
    for key in [
        "actions_per_sec",
        "server_cpu_us_per_action",
        "server_rss_kib_per_idle_game",
    ] {
        assert!(summary[key].is_number(), "{key}: {summary:#}");
    }
    for key in ["p50", "p99", "max"] {
        assert!(summary["latency_us"][key].is_u64(), "{key}: {summary:#}");
    }
    let floor = &summary["floor"];
    assert!(floor["crypto"]["per_action_us"].is_number(), "{summary:#}");
    assert!(floor["echo"]["round_trips"].as_u64() >= Some(actions.min(1000)));
    assert!(floor["sqlite"]["commits"].as_u64() > Some(0), "{summary:#}");
    assert!(summary["ratios"]["server_cpu_per_action_over_crypto_floor"].is_number());
}
