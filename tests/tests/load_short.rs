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

fn load_json(args: &[&str]) -> (std::process::Output, serde_json::Value) {
    let out = Command::new(built_binary(LOAD_BIN))
        .args(args)
        .args(["--json", "--quiet", "--no-floor"])
        .arg("--server-bin")
        .arg(process_binary())
        .output()
        .expect("run hexveil-load");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("a JSON summary on stdout ({e}); stderr: {stderr}"));
    (out, summary)
}

// Issue 16, G3, B28.41, B28.5: the probe through the delay relay. Every
// timed step is ruled in every game and timed at the actor and at the
// spectator; with 5 ms each way, no action comes back in
// less than one round trip (2 x 5 ms: the relay delays, it never speeds
// up), and a mine attack takes no fewer log entries than a step with
// nothing in the hex. The KS test's figures are there; their values depend on the
// machine, so none is asserted.
#[test]
fn the_probe_times_each_step_at_the_actor_and_a_spectator_through_the_relay() {
    let (out, s) = load_json(&["--probe", "2", "--delay-ms", "5"]);
    assert_eq!(s["errors"], 0, "{s:#}");
    assert_eq!(s["refusals"], 0, "{s:#}");
    assert!(out.status.success(), "{s:#}");
    assert_eq!(s["delay_ms"], 5.0);
    for step in ["move", "step_empty", "step_hidden_at", "attack"] {
        let f = &s["steps"][step];
        assert_eq!(f["actor_us"]["count"], 2, "{step}: {s:#}");
        assert_eq!(f["spectator_us"]["count"], 2, "{step}: {s:#}");
        // One round trip at least: out through the relay and back.
        assert!(
            f["actor_us"]["p50"].as_u64() >= Some(10_000),
            "{step}: {s:#}"
        );
        assert!(f["round_trips_p50"].as_f64() >= Some(1.0), "{step}: {s:#}");
    }
    let entries = |step: &str| s["steps"][step]["entries_per_action"].as_f64().unwrap();
    // A move: the action and its ruling (G3: nothing sealed asked).
    assert_eq!(entries("move"), 2.0, "{s:#}");
    // R28, G3: a step into a hidden minefield that has no effect logs as
    // many entries as the same step into an empty hex.
    assert_eq!(entries("step_hidden_at"), entries("step_empty"), "{s:#}");
    // B28.41: the attack logs at least as many: more when its IFT result
    // calls for checks, the same when the DR has no effect in both games
    // (the dice decide: one run in sixteen here).
    assert!(entries("attack") >= entries("step_empty"), "{s:#}");
    for who in ["ks_actor", "ks_spectator"] {
        assert_eq!(s[who]["n"], 2, "{s:#}");
        assert!(s[who]["p_value"].is_number(), "{s:#}");
    }
}

// Issue 16, G5: the soak plays every game to its end and verifies every
// transcript clean; the memory figures are there (their values depend on
// the machine and the allocator, so none is asserted here).
#[test]
fn the_soak_finishes_and_verifies_every_game() {
    let (out, s) = load_json(&["--soak", "3", "--games", "2", "--settle-secs", "0"]);
    assert_eq!(s["errors"], 0, "{s:#}");
    assert_eq!(s["games_finished"], 3, "{s:#}");
    assert_eq!(s["transcripts_clean"], 3, "{s:#}");
    assert_eq!(s["transcripts_not_clean"], 0, "{s:#}");
    assert!(s["entries_verified"].as_u64() > Some(3 * 10), "{s:#}");
    assert!(out.status.success(), "{s:#}");
    assert!(s["server_rss_kib_before"].is_u64(), "{s:#}");
    assert!(s["server_rss_after_over_before"].is_number(), "{s:#}");
}

// Issue 30: the memory split read from the server's heap (its
// `hexveil_heap_allocated_bytes`), and with players that hold two games
// each on one connection (PROTOCOL.md 10.4: a connection joins several
// games): every seat taken again on the shared connections without an
// error, and every heap figure there (their values depend on the
// machine, so none is asserted).
#[test]
fn the_memory_split_reads_the_heap_with_two_games_on_a_connection() {
    let (out, s) = load_json(&[
        "--games",
        "4",
        "--secs",
        "1",
        "--memory-split",
        "--games-per-connection",
        "2",
    ]);
    assert_eq!(s["errors"], 0, "{s:#}");
    assert!(out.status.success(), "{s:#}");
    assert_eq!(s["idle_games"], 4, "{s:#}");
    assert_eq!(s["games_per_connection"], 2, "{s:#}");
    for key in [
        "server_heap_kib_per_idle_game",
        "server_heap_kib_per_connection",
        "server_heap_kib_per_game_without_connections",
        "server_heap_kib_per_idle_game_shared",
        "server_rss_kib_per_connection",
    ] {
        assert!(s[key].is_number(), "{key}: {s:#}");
    }
}
