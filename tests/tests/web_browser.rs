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
//! - The board is legible (issue 27) at a phone's width (400 px) and a
//!   wide screen's (1,400 px): counter text at least 10 CSS px at the
//!   default zoom, every unit of a stack reachable (its name not hidden
//!   under another counter, and listed in `#stack` when pointed at), no
//!   sideways overflow of the page or its title.
//! - After the end, the replay steps by move (each action with its
//!   openings, dice and ruling as one step; the move list jumps to a move)
//!   and by log entry with `?entries`; it steps forward and back with the
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

/// The page without its legend (`<details id="legend">`, the same on
/// every page, issue 27).
fn without_legend(html: &str) -> String {
    match html.find("<details id=\"legend\"") {
        Some(at) => {
            let end = html[at..]
                .find("</details>")
                .map_or(html.len(), |e| at + e + "</details>".len());
            format!("{}{}", &html[..at], &html[end..])
        }
        None => html.to_string(),
    }
}

/// Where the German squad is drawn on the page, if it is.
fn squad_at(html: &str) -> Option<String> {
    html.split('<')
        .find(|t| attr(t, "data-unit").as_deref() == Some("ger-squad-1"))
        .and_then(|t| attr(t, "data-hex"))
}

/// Measures the board in the browser (issue 27): the rendered size of
/// the counters' text (its font size times the picture's scale), the
/// units of stacks that cannot be reached (a name hidden under another
/// counter, or missing from `#stack` when the stack is pointed at), the
/// page's and the title's sideways overflow.
const LEGIBILITY: &str = r#"
var out = { font: Infinity, counters: 0, stacks: 0, unreachable: [], page: 0, title: 0 };
var byHex = {};
document.querySelectorAll('#board .counter').forEach(function (c) {
  out.counters++;
  var t = c.querySelector('text');
  var m = t.getScreenCTM();
  out.font = Math.min(out.font, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b));
  (byHex[c.dataset.hex] = byHex[c.dataset.hex] || []).push(c);
});
Object.keys(byHex).forEach(function (h) {
  var cs = byHex[h];
  if (cs.length < 2) { return; }
  out.stacks++;
  cs.forEach(function (c) {
    var t = c.querySelector('text');
    t.scrollIntoView({ block: 'center', inline: 'center' });
    var r = t.getBoundingClientRect();
    var e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!e || !e.closest || e.closest('.counter') !== c) { out.unreachable.push('hidden ' + c.dataset.unit); }
  });
  cs[cs.length - 1].dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
  var listed = Array.prototype.map.call(document.querySelectorAll('#stack li'), function (li) { return li.dataset.unit; });
  cs.forEach(function (c) {
    if (listed.indexOf(c.dataset.unit) < 0) { out.unreachable.push('unlisted ' + c.dataset.unit); }
  });
});
out.page = document.documentElement.scrollWidth - window.innerWidth;
var h1 = document.querySelector('h1');
out.title = h1.scrollWidth - h1.clientWidth;
out.width = window.innerWidth;
return out;
"#;

/// Loads `url` at `width` CSS px and checks the board's legibility (issue
/// 27); prints what it measured.
async fn check_legible(browser: &Browser, url: &str, width: u32) {
    browser.client.set_window_size(width, 900).await.unwrap();
    browser.client.goto(url).await.unwrap();
    browser
        .wait_for_html(WAIT, |h| {
            squad_at(h).is_some() || h.contains("class=\"counter\"")
        })
        .await
        .expect("the board with its counters");
    let m = browser.client.execute(LEGIBILITY, vec![]).await.unwrap();
    println!("legibility of {url} at {width} px: {m}");
    let num = |k: &str| m[k].as_f64().unwrap_or(f64::NAN);
    // The window's width is the viewport's in headless Chromium, give or
    // take a scroll bar.
    assert!(
        (num("width") - f64::from(width)).abs() <= 20.0,
        "the viewport: {m}"
    );
    assert!(num("counters") > 0.0, "no counter drawn: {m}");
    assert!(num("font") >= 10.0, "counter text under 10 CSS px: {m}");
    assert!(num("stacks") >= 1.0, "the demo has stacks (3E1, 3E2): {m}");
    assert_eq!(m["unreachable"], serde_json::json!([]), "{m}");
    assert!(num("page") <= 0.0, "the page overflows sideways: {m}");
    assert!(num("title") <= 0.0, "the title overflows: {m}");
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
    // (The legend explains the Dummy mark for every page: it tells
    // nothing of this game, so it is left out of the look.)
    assert!(
        !without_legend(&after).to_lowercase().contains("dummy"),
        "a Dummy told to the public"
    );
    browser
        .screenshot(&std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-live.png"))
        .await;
    // Issue 27: legible from a phone to a wide screen.
    let live = format!("http://{http}/game/{game}");
    for width in [400, 1400] {
        check_legible(&browser, &live, width).await;
        browser
            .screenshot(
                &std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                    .join(format!("web-live-{width}.png")),
            )
            .await;
    }
    browser.client.set_window_size(1280, 1000).await.unwrap();

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
    // Issue 27: the replay steps by move: one step per action with its
    // openings, dice and ruling, far fewer steps than log entries.
    let entries = browser
        .client
        .execute(
            "return document.querySelectorAll('template.step').length;",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    let moves = browser
        .client
        .execute(
            "return document.querySelectorAll('#moves li').length;",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    println!("replay: {entries} log entries in {moves} moves");
    assert!(
        moves >= 3 && moves < entries,
        "{moves} moves, {entries} entries"
    );
    assert_eq!(
        second,
        format!("move 1 / {}", moves - 1),
        "Right steps a move"
    );
    // The move list jumps to a move; a move with a ruling shows its
    // entries together (the action, its entries, its ruling).
    let mut most = 0;
    for m in 1..moves {
        browser
            .client
            .find(Locator::Css(&format!("#moves button[data-move=\"{m}\"]")))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        assert_eq!(
            browser.text("#step").await,
            format!("move {m} / {}", moves - 1),
            "the move list jumps to move {m}"
        );
        let heads = browser
            .client
            .execute(
                "return document.querySelectorAll('#narrative p.head').length;",
                vec![],
            )
            .await
            .unwrap()
            .as_u64()
            .unwrap();
        most = most.max(heads);
    }
    assert!(
        most >= 3,
        "no move shows an action with its entries: {most}"
    );
    // The log-entry mode is kept for auditors.
    browser
        .client
        .goto(&format!("http://{http}/game/{game}/replay?entries"))
        .await
        .unwrap();
    browser
        .wait_for_html(WAIT, |h| h.contains("id=\"verdict\""))
        .await
        .expect("the replay page by log entry");
    assert_eq!(
        browser.text("#step").await,
        format!("step 0 / {}", entries - 1),
        "?entries steps by log entry"
    );
    browser.key(Key::Right).await;
    assert_eq!(
        browser.text("#step").await,
        format!("step 1 / {}", entries - 1)
    );
    // And the replay's board is legible too.
    for width in [400, 1400] {
        check_legible(
            &browser,
            &format!("http://{http}/game/{game}/replay"),
            width,
        )
        .await;
    }
    browser
        .screenshot(&std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-replay.png"))
        .await;
    browser.close().await;
}
