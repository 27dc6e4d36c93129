//! The web view in a real browser (issue 12; DESIGN 5; G3): headless
//! Chromium (tests/src/browser.rs) against the `hexveil-server` binary with
//! `--http` and a spectator delay, while two bots play the example game
//! over QUIC on loopback.
//!
//! - The live page shows the board, and a move appears on it only after
//!   the spectator delay (DESIGN 5: spectators are late by the delay).
//! - Nothing sealed is ever on the live page: the hidden A-T mines in 3E5
//!   and the Dummy in 3H5 are never drawn as such, and the hidden A-P
//!   minefield in 3E4 only once a squad entered it and it attacked
//!   (B28.41: revealed by its attack) (G3).
//! - After the end, the replay viewer steps forward and back with the
//!   arrow keys; screenshots of both pages are kept as test artefacts in
//!   cargo's test temp dir (`target/tmp/web-*.png`).

use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Locator;
use hexveil_asl::turn::Phase;
use hexveil_asl::Side;
use hexveil_tests::browser::Browser;
use hexveil_tests::picture::{attr, tags};
use hexveil_tests::{
    secrets_a, secrets_b, step_into_the_minefield, ServerProcess, Table, PAD_LEN, WAIT,
};

/// The spectator delay: long enough that the page is looked at well
/// within it, short enough for a test.
const DELAY_SECS: u64 = 4;

/// Whether the page draws a mine marker of any kind in `hex` (the SVG's
/// `class="mine ..." data-hex="..."` markers, view/src/svg.rs).
fn mine_drawn(html: &str, hex: &str) -> bool {
    tags(html, "mine")
        .iter()
        .any(|t| attr(t, "data-hex").as_deref() == Some(hex))
}

/// Where the German squad is drawn on the page, if it is.
fn squad_at(html: &str) -> Option<String> {
    html.split('<')
        .find(|t| attr(t, "data-unit").as_deref() == Some("ger-squad-1"))
        .and_then(|t| attr(t, "data-hex"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g3_a_browser_sees_the_live_game_late_and_never_a_sealed_mine_then_steps_the_replay() {
    let Some(browser) = Browser::start("web_browser").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let delay = DELAY_SECS.to_string();
    let server = ServerProcess::spawn_with(
        dir.path(),
        "127.0.0.1:0",
        &["--http", "127.0.0.1:0", "--spectator-delay-secs", &delay],
    );
    let http = server.http.expect("the server prints its http address");
    let mut t = Table::open(&server.endpoint, secrets_a(), secrets_b(), PAD_LEN, false).await;
    let game = t.game_id.to_string();

    // The list links to the game.
    browser
        .client
        .goto(&format!("http://{http}/"))
        .await
        .unwrap();
    browser
        .wait_for_html(WAIT, |h| h.contains(&game))
        .await
        .expect("the game is listed");

    browser
        .client
        .goto(&format!("http://{http}/game/{game}"))
        .await
        .unwrap();
    let html = browser
        .wait_for_html(WAIT, |h| squad_at(h).is_some())
        .await
        .expect("the board with its counters, after the delay");
    let start = squad_at(&html).unwrap();
    assert_ne!(start, "3E4");

    t.end_phase_until(Side::A, Phase::Movement).await;
    t.act(Side::A, step_into_the_minefield()).await;
    // Both players have the ruling now; the page is late by the delay.
    let now = browser.html().await;
    assert_eq!(
        squad_at(&now).as_deref(),
        Some(start.as_str()),
        "the move showed before the spectator delay"
    );
    assert!(
        !mine_drawn(&now, "3E4"),
        "a hidden minefield drawn before the delay"
    );
    // B28.41: the minefield's attack reveals it, after the delay; the
    // squad is drawn in 3E4 then, unless the attack's beacon dice
    // eliminated it (the dice are fresh in every run).
    let after = browser
        .wait_for_html(WAIT + Duration::from_secs(DELAY_SECS), |h| {
            mine_drawn(h, "3E4")
        })
        .await
        .expect("the move and the attacking minefield appear after the delay");
    assert!(
        matches!(squad_at(&after).as_deref(), Some("3E4") | None),
        "the squad entered 3E4 (or died there): {:?}",
        squad_at(&after)
    );
    // B28.5: the hidden A-T mines in 3E5 were never crossed.
    assert!(
        !mine_drawn(&after, "3E5"),
        "sealed A-T mines in 3E5 drawn on the live page"
    );
    // B28.47: the Known counter in 3H5 is a Dummy, which nobody entered.
    assert!(
        !after.to_lowercase().contains("dummy"),
        "a Dummy told to the public"
    );
    browser
        .screenshot(&std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-live.png"))
        .await;

    // The end: the transcript is public; the replay steps.
    t.a.concede().unwrap();
    t.pump(|t| t.over())
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    browser
        .client
        .goto(&format!("http://{http}/game/{game}/replay"))
        .await
        .unwrap();
    browser
        .wait_for_html(WAIT, |h| h.contains("id=\"verdict\""))
        .await
        .expect("the replay page");
    let first = browser.text("#step").await;
    browser.key(Key::Right).await;
    let second = browser.text("#step").await;
    assert_ne!(first, second, "Right steps forward");
    browser.key(Key::Left).await;
    assert_eq!(browser.text("#step").await, first, "Left steps back");
    browser
        .client
        .find(Locator::Css("#next"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(
        browser.text("#step").await,
        second,
        "the button steps forward"
    );
    assert!(browser
        .text("#verdict")
        .await
        .to_lowercase()
        .contains("clean"));
    browser
        .screenshot(&std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-replay.png"))
        .await;
    browser.close().await;
}
