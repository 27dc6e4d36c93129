//! A creation flood against the real server binary (G6; issue 10 item 8):
//! many keys create real games as fast as they can. The caps on unfinished
//! games (per key and in all) and on the pad length hold, the server's
//! resident memory is measured before and after, and after a restart the
//! flood's games cost nothing until joined (lazy restore).
//!
//! Figures: `cargo test -p hexveil-tests --test flood -- --nocapture`
//! prints them. By default the server's total cap is 32 (4 per key);
//! `HEXVEIL_FLOOD_GAMES=1024` floods up to the default total cap (1024
//! games; 16 per key); `HEXVEIL_FLOOD_UNCAPPED=1` lifts the caps
//! and asks for the largest pad (65536), for comparison with the server
//! before the caps. `HEXVEIL_SERVER_BIN` picks the binary (e.g. a release
//! build).

use hexveil_net::new_game::NewGame;
use hexveil_protocol::message::Mode;
use hexveil_tests::ServerProcess as Proc;
use hexveil_tests::{new_key, scenario_toml};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_a_creation_flood_is_capped_and_its_memory_measured() {
    let total = env_num("HEXVEIL_FLOOD_GAMES", 32);
    let uncapped = std::env::var_os("HEXVEIL_FLOOD_UNCAPPED").is_some();
    // 16 per key (the default) at the default total of 1024; fewer keys'
    // worth of games in the short run.
    let per_key: u64 = if uncapped {
        total
    } else {
        (total / 8).clamp(1, 16)
    };
    let pad_len: u32 = if uncapped { 65536 } else { 4096 };
    let dir = tempfile::tempdir().unwrap();
    let (total_s, per_key_s) = (total.to_string(), per_key.to_string());
    let flags: Vec<&str> = if uncapped {
        vec![
            "--max-unfinished-games",
            "1000000",
            "--max-pending-games",
            "1000000",
            "--max-unfinished-games-per-key",
            "1000000",
            "--max-unfinished-games-per-address",
            "1000000",
            "--max-unfinished-games-per-network",
            "1000000",
            "--max-pad-len",
            "65536",
        ]
    } else {
        // Issue 31: the flood's games are pending (never joined), so the
        // pending total is the one they fill; one address's and network's
        // shares are lifted here, to measure a full server's memory.
        vec![
            "--max-pending-games",
            &total_s,
            "--max-unfinished-games-per-key",
            &per_key_s,
            "--max-unfinished-games-per-address",
            "1000000",
            "--max-unfinished-games-per-network",
            "1000000",
        ]
    };
    let mut server = Proc::spawn_with(dir.path(), "127.0.0.1:0", &flags);
    let ep = server.endpoint.clone();
    let rss_start = server.rss_kib().unwrap_or(0);

    let ruleset = hexveil_fixtures::ruleset();
    let request = |players, pad_len| NewGame {
        ruleset: ruleset.id().into(),
        ruleset_version: ruleset.version(),
        scenario_toml: scenario_toml(),
        players,
        mode: Mode::Live,
        pad_len,
        answer_timeout_secs: None,
    };
    // Every key tries two games more than its cap, and one pad over the
    // server's limit; keys keep coming until the total cap is reached.
    let (mut created, mut refused_key, mut refused_total, mut refused_pad) = (0u64, 0, 0, 0);
    let mut keys = 0;
    let started = std::time::Instant::now();
    // Two keys more than fill the server: they meet the total cap.
    while keys < total.div_ceil(per_key) + 2 && !(uncapped && created >= total) {
        keys += 1;
        let mut c = ep.client_with(&new_key()).await;
        let me = c.public_key().unwrap();
        let other = hexveil_protocol::identity::Identity::from_pkcs8(&new_key())
            .unwrap()
            .public_key();
        let players = [me, other];
        if !uncapped {
            match c.create_game(&request(players, 65536)).await {
                Err(e) if e.to_string().contains("max_pad_len = 4096") => refused_pad += 1,
                // The caps are checked first, before any pad is made.
                Err(e) if e.to_string().contains("max_pending_games =") => refused_total += 1,
                other => panic!("a pad of 65536 entries: {other:?}"),
            }
        }
        for _ in 0..per_key + 2 {
            if uncapped && created >= total {
                break;
            }
            match c.create_game(&request(players, pad_len)).await {
                Ok(_) => created += 1,
                Err(e) if e.to_string().contains("max_unfinished_games_per_key") => {
                    refused_key += 1
                }
                Err(e) if e.to_string().contains("max_pending_games =") => refused_total += 1,
                Err(e) => panic!("unexpected refusal: {e}"),
            }
        }
        c.close().await;
    }
    let rss_flood = server.rss_kib().unwrap_or(0);
    let flood_time = started.elapsed();
    assert_eq!(created, total, "the total cap is reached, never passed");
    if !uncapped {
        assert!(refused_key > 0 && refused_total > 0 && refused_pad > 0);
    }

    // Restart: the games are listed, none is rebuilt until joined.
    server.kill();
    let server = Proc::spawn_with(dir.path(), "127.0.0.1:0", &flags);
    let rss_restart = server.rss_kib().unwrap_or(0);
    let mut c = server.endpoint.client().await;
    let listed = c.list_games().await.unwrap().len() as u64;
    assert_eq!(
        listed,
        total.min(hexveil_net::wire::MAX_LISTED_GAMES as u64)
    );
    eprintln!(
        "flood: {keys} keys, {created} games created (pad {pad_len}), refused: {refused_key} over the per-key cap, \
         {refused_total} over the total cap, {refused_pad} over max_pad_len; server RSS {rss_start} KiB at start, \
         {rss_flood} KiB after the flood ({} KiB per game), {rss_restart} KiB after a restart holding them all; \
         the flood took {flood_time:?}",
        rss_flood.saturating_sub(rss_start) / created.max(1)
    );
    // Generous bound: 1 MiB per game at the capped pad length (the pads
    // of 4096 entries take about 256 KiB).
    if !uncapped && rss_start > 0 {
        assert!(
            rss_flood - rss_start < total * 1024 + 64 * 1024,
            "{rss_flood} KiB after {total} games"
        );
        assert!(rss_restart < rss_flood, "nothing rebuilt at start");
    }
}
