//! Issue 29: two players play the example scenario in a real browser,
//! each through the `--ui` page its own `hexveil` client serves on
//! 127.0.0.1 (headless Chromium, tests/src/browser.rs; SKIPPED where the
//! browser is missing, a failure under CI), against the `hexveil-server`
//! binary over QUIC on loopback.
//!
//! - Side A clicks its squad and then a highlighted hex to move it into
//!   side B's hidden A-P minefield (B28.41), fires ordnance from a form
//!   (C3), gives other commands on the command line, and drives its tank
//!   onto the hidden A-T mines of 3E5 that side B's Daisy Chain watches
//!   (B28.51, B28.531); side B ends its phases with the page's button;
//!   side A concedes with the page's two-step button. Both pages show the
//!   result and the transcript's verdict: CLEAN.
//! - Everything each page receives from its client is recorded: the page
//!   itself and every snapshot (`/api/state`, fetched by the page's own
//!   origin with its cookie, as the page's script fetches it). Side B's
//!   hidden facts, taken from B's own secrets file (its hidden minefields'
//!   hexes and its Daisy Chain's), never reach A's page before the public
//!   events reveal them, and the hidden 12-factor A-P minefield of 3E4,
//!   which nothing attacks, never (G3). B's page marks B's own.
//! - The page works at 400 px and 1,400 px wide: no sideways overflow and
//!   the board drawn; screenshots are kept in cargo's test temp dir
//!   (`target/tmp/side-A-s-page-400.png`, ...).

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::Locator;
use hexveil_tests::browser::Browser;
use hexveil_tests::picture::{attr, tags};
use hexveil_tests::{built_binary, key_file, ServerProcess};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const CLIENT_BIN: &str = "hexveil-e2e";
/// The longest one wait lasts.
const BOUND: Duration = Duration::from_secs(120);
/// Once a page's client has left, what the page shows is all it will
/// ever show: only an answer already on its way may still arrive, well
/// within this.
const AFTER_LEAVING: Duration = Duration::from_secs(30);

fn examples(name: &str) -> String {
    format!("{}/../examples/demo/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A `hexveil join --ui` process and the lines it printed.
struct Player {
    child: Child,
    out: Arc<Mutex<Vec<String>>>,
}

impl Player {
    fn spawn(args: Vec<String>) -> Player {
        let mut child = Command::new(built_binary(CLIENT_BIN))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the hexveil binary runs");
        let out = Arc::new(Mutex::new(Vec::new()));
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let sink = out.clone();
            let mut lines = BufReader::new(stream).lines();
            tokio::spawn(async move {
                while let Ok(Some(l)) = lines.next_line().await {
                    sink.lock().unwrap().push(l);
                }
            });
        }
        Player { child, out }
    }

    fn text(&self) -> String {
        self.out.lock().unwrap().join("\n")
    }

    /// Whether the client process is still running, for a failure's
    /// message.
    fn running(&mut self) -> String {
        match self.child.try_wait() {
            Ok(None) => "the client is still running".into(),
            Ok(Some(status)) => format!("the client has left ({status})"),
            Err(e) => format!("the client's state is unknown: {e}"),
        }
    }

    /// Waits for the client to end after the game, and checks that it
    /// ended well and found the transcript CLEAN (G5).
    async fn ends_clean(&mut self) {
        let status = tokio::time::timeout(BOUND, self.child.wait())
            .await
            .expect("the client ends after the game")
            .unwrap();
        assert!(status.success(), "{}", self.text());
        assert!(self.text().contains("CLEAN"), "{}", self.text());
    }

    /// The page's address, once printed.
    async fn page_url(&self) -> String {
        let until = tokio::time::Instant::now() + BOUND;
        loop {
            if let Some(url) = self
                .out
                .lock()
                .unwrap()
                .iter()
                .find_map(|l| l.strip_prefix("your page: "))
                .and_then(|l| l.split_whitespace().next())
            {
                return url.to_string();
            }
            assert!(
                tokio::time::Instant::now() < until,
                "no page address: {}",
                self.text()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A game created on a server by Alice (side A) against Bob with the
/// `hexveil create` command, and where each side's key and secrets are.
struct Created {
    work: tempfile::TempDir,
    /// Alice's and Bob's key files.
    keys: [std::path::PathBuf; 2],
    addr: String,
    fingerprint: String,
    game: String,
}

impl Created {
    async fn new(server: &ServerProcess, scenario: &str) -> Created {
        let work = tempfile::tempdir().unwrap();
        let addr = server.endpoint.addr.to_string();
        let fingerprint = server.endpoint.fingerprint.to_string();
        let (alice, _) = key_file(work.path(), "alice");
        let (bob, bob_public) = key_file(work.path(), "bob");
        let create = Command::new(built_binary(CLIENT_BIN))
            .args(["create", "--server", &addr, "--fingerprint", &fingerprint])
            .arg("--key")
            .arg(&alice)
            .args(["--scenario", scenario, "--side", "a"])
            .args(["--opponent", &bob_public])
            .stdin(Stdio::null())
            .output()
            .await
            .unwrap();
        let out = String::from_utf8_lossy(&create.stdout).to_string();
        assert!(create.status.success(), "create: {out}");
        let game = out.lines().last().unwrap().trim().to_string();
        Created {
            work,
            keys: [alice, bob],
            addr,
            fingerprint,
            game,
        }
    }

    /// Side `side`'s secrets directory.
    fn secrets(&self, side: &str) -> std::path::PathBuf {
        self.work.path().join(format!("{side}-secrets"))
    }

    /// `hexveil join ... --ui` for side `side` (`a`: Alice, `b`: Bob) with
    /// the setups `files` names, and `extra` flags.
    fn join(&self, side: &str, files: fn(&str) -> String, extra: &[&str]) -> Vec<String> {
        let key = &self.keys[usize::from(side != "a")];
        let mut v: Vec<String> = vec!["join".into(), "--server".into(), self.addr.clone()];
        v.extend(["--fingerprint".into(), self.fingerprint.clone()]);
        v.extend(["--key".into(), key.display().to_string()]);
        v.extend([
            "--game".into(),
            self.game.clone(),
            "--side".into(),
            side.into(),
        ]);
        v.extend(["--setup".into(), files(&format!("setup-{side}.toml"))]);
        v.extend(["--sealed".into(), files(&format!("sealed-{side}.toml"))]);
        v.extend(["--secrets".into(), self.secrets(side).display().to_string()]);
        v.push("--ui".into());
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    }
}

/// Two headless browsers, one per player's page (`None` after the
/// SKIPPED line where there is no browser).
async fn two_browsers(test: &str) -> Option<[Browser; 2]> {
    let a = Browser::start(&format!("{test} (side A)")).await?;
    let b = Browser::start(&format!("{test} (side B)"))
        .await
        .expect("a second browser");
    Some([a, b])
}

/// One page in its own browser, and everything it was sent.
struct Seat {
    name: &'static str,
    browser: Browser,
    /// Every response of the page's client recorded, in order: the page,
    /// then snapshots.
    received: Vec<String>,
    /// Narrative lines when this side last acted.
    lines_at_act: Option<usize>,
}

/// The snapshot now, fetched by the page's own origin as its script does.
const FETCH_STATE: &str = r#"
var done = arguments[arguments.length - 1];
fetch('/api/state?lines=0', { credentials: 'same-origin' })
  .then(function (r) { return r.text(); })
  .then(done, function (e) { done('ERROR ' + e); });
"#;

/// The page itself, as its client serves it.
const FETCH_PAGE: &str = r#"
var done = arguments[arguments.length - 1];
fetch('/', { credentials: 'same-origin' })
  .then(function (r) { return r.text(); })
  .then(done, function (e) { done('ERROR ' + e); });
"#;

impl Seat {
    async fn record(&mut self, script: &str) -> String {
        let v = self
            .browser
            .client
            .execute_async(script, vec![])
            .await
            .expect("the page answers");
        let text = v.as_str().unwrap_or_default().to_string();
        assert!(!text.starts_with("ERROR"), "{}: {text}", self.name);
        self.received.push(text.clone());
        text
    }

    /// The snapshot now; `None` once the client has left (after the
    /// page said it drew the end). A fetch of the test's own is not the
    /// page's: it does not let the client leave.
    async fn state(&mut self) -> Option<serde_json::Value> {
        let v = self
            .browser
            .client
            .execute_async(FETCH_STATE, vec![])
            .await
            .expect("the page answers");
        let text = v.as_str().unwrap_or_default().to_string();
        if text.starts_with("ERROR") {
            return None;
        }
        self.received.push(text.clone());
        Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}: {text}", self.name)))
    }

    /// What the page shows now and the last snapshot the test fetched,
    /// for a failure's message: its address, its headline, its verdict,
    /// its notes and its client's last words (`#sent`: "the client does
    /// not answer" once the client has left).
    async fn shows(&self) -> String {
        let url = match self.browser.client.current_url().await {
            Ok(u) => u.to_string(),
            Err(e) => format!("? ({e})"),
        };
        let shown = self
            .browser
            .client
            .execute(
                "function t(id) { var e = document.getElementById(id); return e ? e.textContent : null; } \
                 return { turn: t('turn'), verdict: t('verdict'), notes: t('notes'), sent: t('sent'), \
                          over: document.body.classList.contains('over') };",
                vec![],
            )
            .await
            .map_or_else(|e| format!("? ({e})"), |v| v.to_string());
        let fetched = self
            .received
            .iter()
            .rev()
            .find_map(|t| serde_json::from_str::<serde_json::Value>(t).ok())
            .map_or_else(
                || "none".to_string(),
                |s| {
                    format!(
                        "version {}, result {}, verdict {}",
                        s["version"], s["result"], s["verdict"]
                    )
                },
            );
        format!(
            "{} at {url} shows {shown}; the last snapshot the test fetched: {fetched}",
            self.name
        )
    }

    /// The page's verdict line, as the page shows it.
    async fn verdict(&self) -> String {
        self.browser.text("#verdict").await
    }

    async fn click(&self, css: &str) {
        self.browser
            .client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{}: no {css}: {e}", self.name))
            .click()
            .await
            .unwrap_or_else(|e| panic!("{}: cannot click {css}: {e}", self.name));
    }

    async fn fill(&self, css: &str, text: &str) {
        let el = self
            .browser
            .client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{}: no {css}: {e}", self.name));
        el.clear().await.unwrap();
        el.send_keys(text).await.unwrap();
    }

    /// Clicks on the element `css` of the board by script (the board
    /// scrolls: the element may be out of the frame's view).
    async fn click_board(&self, css: &str) {
        let js = format!(
            "var e = document.querySelector('#board {css}'); if (!e) {{ return false; }} \
             e.dispatchEvent(new MouseEvent('click', {{ bubbles: true }})); return true;"
        );
        let hit = self.browser.client.execute(&js, vec![]).await.unwrap();
        assert_eq!(
            hit,
            serde_json::json!(true),
            "{}: nothing at {css}",
            self.name
        );
    }
}

impl Seat {
    /// A real mouse drag (WebDriver actions: button down, a move of `dx`
    /// px, button up) that starts at the middle of the board's `css`,
    /// which is first scrolled into the board's view.
    async fn drag_board(&self, css: &str, dx: f64) {
        let js = format!(
            "var e = document.querySelector('#board {css}'); if (!e) {{ return null; }} \
             e.scrollIntoView({{ block: 'center', inline: 'center' }}); \
             var r = e.getBoundingClientRect(); \
             return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];"
        );
        let at = self.browser.client.execute(&js, vec![]).await.unwrap();
        let (x, y) = match (at[0].as_f64(), at[1].as_f64()) {
            (Some(x), Some(y)) => (x, y),
            _ => panic!("{}: nothing at {css} to drag", self.name),
        };
        let mouse = MouseActions::new("drag".into())
            .then(PointerAction::MoveTo {
                duration: None,
                x,
                y,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::MoveBy {
                duration: Some(Duration::from_millis(150)),
                x: dx,
                y: 0.0,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.browser
            .client
            .perform_actions(mouse)
            .await
            .unwrap_or_else(|e| panic!("{}: the drag at {css}: {e}", self.name));
        self.browser.client.release_actions().await.unwrap();
    }

    /// How many units the page shows selected, and its selection line.
    async fn selection(&self) -> (u64, String) {
        let n = self
            .browser
            .client
            .execute(
                "return document.querySelectorAll('#board .counter.hv-selected').length;",
                vec![],
            )
            .await
            .unwrap();
        (
            n.as_u64().unwrap_or(0),
            self.browser.text("#selected").await,
        )
    }
}

/// Issue 29: every counter's name line, as the page lays it out, stays
/// within its hex (left and right); returns how many were measured and
/// the longest name drawn.
async fn labels_within_hexes(browser: &Browser, who: &str, width: u32) -> (usize, String) {
    let m = browser
        .client
        .execute(
            "var out = []; \
             document.querySelectorAll('#board .counter').forEach(function (c) { \
               var t = c.querySelector('text.name'); \
               var h = document.querySelector('#board .hex[data-hex=\"' + c.getAttribute('data-hex') + '\"] polygon'); \
               if (!t || !h) { return; } \
               var a = t.getBoundingClientRect(), b = h.getBoundingClientRect(); \
               out.push({ unit: c.getAttribute('data-unit'), text: t.textContent, \
                          left: a.left - b.left, right: b.right - a.right, width: a.width, hex: b.width }); \
             }); return out;",
            vec![],
        )
        .await
        .unwrap();
    let labels = m.as_array().cloned().unwrap_or_default();
    let mut longest = String::new();
    let mut longest_chars = 0;
    for l in &labels {
        let (left, right) = (l["left"].as_f64().unwrap(), l["right"].as_f64().unwrap());
        assert!(
            left >= -0.5 && right >= -0.5,
            "{} at {width} px: the name line of {} runs out of its hex: {l}",
            who,
            l["unit"]
        );
        let unit = l["unit"].as_str().unwrap_or_default();
        if unit.chars().count() > longest_chars {
            longest_chars = unit.chars().count();
            longest = format!(
                "{unit} (drawn {:?}, {l})",
                l["text"].as_str().unwrap_or_default()
            );
        }
    }
    (labels.len(), longest)
}

/// What side A does at its moves, in order (the example's script-a.txt,
/// given through the page in each of its ways).
#[derive(Debug)]
enum Do {
    Button(&'static str),
    Line(&'static str),
    Form(&'static str, &'static str),
    ClickMove(&'static str, &'static str),
    Concede,
}

/// Whether any element of `class` (a word of its class) is drawn at `hex`.
fn drawn_at(text: &str, class: &str, hex: &str) -> bool {
    tags(text, class)
        .iter()
        .any(|t| attr(t, "data-hex").as_deref() == Some(hex))
}

/// The hidden facts of side B's secrets file: the hexes of its hidden
/// minefields (neither Known nor in full view) and of its Daisy Chains.
fn hidden_of_b(secrets_dir: &Path) -> (Vec<String>, Vec<String>) {
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(secrets_dir.join("secrets.json")).expect("B's secrets file"),
    )
    .unwrap();
    let s = &stored["secrets"];
    let public: toml::Table = toml::from_str(s["public_setup_toml"].as_str().unwrap()).unwrap();
    let sealed: toml::Table = toml::from_str(s["sealed_setup_toml"].as_str().unwrap()).unwrap();
    let mut shown: Vec<String> = Vec::new();
    for key in ["known", "at_in_view"] {
        for h in public
            .get(key)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            shown.push(h.as_str().unwrap().to_string());
        }
    }
    // An arrowed Known line (B28.46) shows every hex from one end to the
    // other: here, lines along one hex column of one board ("3H2".."3H5").
    for line in public
        .get("known_lines")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let ends: Vec<&str> = line
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap())
            .collect();
        let split = |h: &str| {
            let at = h.find(|c: char| c.is_ascii_alphabetic()).unwrap();
            (h[..=at].to_string(), h[at + 1..].parse::<u32>().unwrap())
        };
        let (col, from) = split(ends[0]);
        let (col_to, to) = split(ends[1]);
        assert_eq!(col, col_to, "a Known line along one column");
        for row in from.min(to)..=from.max(to) {
            shown.push(format!("{col}{row}"));
        }
    }
    let mut mines = Vec::new();
    for key in ["ap", "at"] {
        for m in sealed
            .get(key)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let hex = m["hex"].as_str().unwrap().to_string();
            if !shown.contains(&hex) {
                mines.push(hex);
            }
        }
    }
    let orders: Vec<u8> = serde_json::from_value(s["orders"].clone()).unwrap();
    let chains = hexveil_asl::standing_orders::decode(&orders)
        .unwrap()
        .into_iter()
        .map(|o| o.hex.to_string())
        .collect();
    (mines, chains)
}

/// Issue 29 friction 1: the page (re)loaded at this width opens on its
/// player's own units: each of them wholly inside the frame at 1,400 px;
/// at 400 px, where they cannot all fit at counter size, as many as the
/// frame holds (at least 2), and never the empty ground between the
/// sides. Returns (own units inside, own units).
async fn own_units_in_sight(seat: &Seat, width: u32) -> (u64, u64) {
    let side = if seat.name.contains("side A") {
        "A"
    } else {
        "B"
    };
    seat.browser
        .client
        .execute("location.assign(location.origin + '/');", vec![])
        .await
        .unwrap();
    let until = tokio::time::Instant::now() + BOUND;
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let ready = seat
            .browser
            .client
            .execute(
                "return !!document.querySelector('#board svg .counter');",
                vec![],
            )
            .await
            .unwrap_or_default();
        if ready == serde_json::json!(true) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "{}: no board after a reload",
            seat.name
        );
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let m = seat
        .browser
        .client
        .execute(
            &format!(
                "var f = document.querySelector('#board'), b = f.getBoundingClientRect(); \
                 var l = b.left + f.clientLeft, t = b.top + f.clientTop, r = l + f.clientWidth, d = t + f.clientHeight; \
                 var own = f.querySelectorAll('.counter[data-side=\"{side}\"]'), inside = 0, out = []; \
                 own.forEach(function (c) {{ var q = c.getBoundingClientRect(); \
                   if (q.left >= l - 0.5 && q.right <= r + 0.5 && q.top >= t - 0.5 && q.bottom <= d + 0.5) {{ inside++; }} \
                   else {{ out.push(c.getAttribute('data-unit')); }} }}); \
                 var name = f.querySelector('.counter text.name'); \
                 return {{ inside: inside, own: own.length, out: out, zoom: Number(f.dataset.zoom), \
                   text: name ? name.getBoundingClientRect().height : 0, frame: [f.clientWidth, f.clientHeight] }};"
            ),
            vec![],
        )
        .await
        .unwrap();
    println!("{} at {width} px, at load: {m}", seat.name);
    let inside = m["inside"].as_u64().unwrap();
    let own = m["own"].as_u64().unwrap();
    assert!(own > 0, "{}: no unit of its own drawn: {m}", seat.name);
    // Counter text (5 SVG units) at 10 CSS px or more (issue 27).
    assert!(
        m["zoom"].as_f64().unwrap() * 5.0 >= 10.0 - 1e-6,
        "{}: {m}",
        seat.name
    );
    if width >= 1400 {
        assert_eq!(
            inside, own,
            "{} at {width} px: own units out of sight: {m}",
            seat.name
        );
    } else {
        assert!(
            inside >= own.min(2),
            "{} at {width} px: own units out of sight: {m}",
            seat.name
        );
    }
    (inside, own)
}

/// Issue 29 friction 2 (G3: a page marks its own side's secrets only):
/// each kind of the seat's own sealed facts drawn is a tag with words of
/// its own, and no tag covers its hex's coordinate or a marker label of
/// its hex, as the browser lays them out.
async fn own_tags_clear(seat: &Seat, width: u32) {
    let m = seat
        .browser
        .client
        .execute(
            "function hit(a, b) { return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; } \
             var out = { tags: [], covered: [] }; \
             document.querySelectorAll('#board g[class^=\"sealed\"]').forEach(function (g) { \
               out.tags.push(g.getAttribute('data-tag')); \
               var hex = g.getAttribute('data-hex'); if (!hex) { return; } \
               var q = g.querySelector('rect').getBoundingClientRect(); \
               var near = Array.prototype.slice.call(document.querySelectorAll('#board .hex[data-hex=\"' + hex + '\"] .coord')) \
                 .concat(Array.prototype.slice.call(document.querySelectorAll('#board g[class^=\"marker\"][data-hex=\"' + hex + '\"] rect'))); \
               near.forEach(function (n) { if (hit(q, n.getBoundingClientRect())) { out.covered.push(hex + ' ' + g.getAttribute('data-tag')); } }); \
             }); return out;",
            vec![],
        )
        .await
        .unwrap();
    println!("{} at {width} px: its own sealed tags {m}", seat.name);
    let tags: Vec<String> = m["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        m["covered"].as_array().unwrap().is_empty(),
        "{}: {m}",
        seat.name
    );
    if seat.name.contains("side B") {
        // B28.1, B28.5, B28.47, B28.531, B28.9: side B's sealed setup has
        // each kind; each kind's words differ from every other's.
        for kind in ["A-P ", "A-T ", "Dummy", "DC", "BT "] {
            assert!(
                tags.iter().any(|t| t.starts_with(kind)),
                "{}: no {kind:?} tag among {tags:?}",
                seat.name
            );
        }
    } else {
        assert!(tags.is_empty(), "side A hides nothing: {tags:?}");
    }
}

/// Issue 29 friction 3: each unit of each stack of the side's own,
/// clicked (a real mouse click) at the centre of the part of its counter
/// that shows, is the unit the page selects (`#selected` names it) when
/// it may move, and the unit the stack list beside the board lists; each
/// unit picked in the list is selected too.
async fn stacks_clickable(seat: &Seat, moves: &[serde_json::Value]) -> usize {
    let units = seat
        .browser
        .client
        .execute(
            "var by = {}; document.querySelectorAll('#board .counter').forEach(function (c) { \
               var h = c.getAttribute('data-hex'); (by[h] = by[h] || []).push(c.getAttribute('data-unit')); }); \
             var out = []; Object.keys(by).forEach(function (h) { if (by[h].length > 1) { out = out.concat(by[h]); } }); \
             return out;",
            vec![],
        )
        .await
        .unwrap();
    let units: Vec<String> = units
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    assert!(units.len() >= 2, "{}: no stack to click", seat.name);
    let may_move = |u: &str| moves.iter().any(|m| m["unit"] == u);
    for unit in &units {
        // Nothing selected first (a click on a stack in a hex the unit
        // selected may enter would move it there).
        seat.click_board(".hex[data-hex=\"3A1\"]").await;
        // The centroid of the counter's points where it is on top.
        let js = format!(
            "var c = document.querySelector('#board .counter[data-unit=\"{unit}\"]'); \
             c.scrollIntoView({{ block: 'center', inline: 'center' }}); \
             var r = c.getBoundingClientRect(), n = 0, x = 0, y = 0; \
             for (var i = 1; i < 20; i++) {{ for (var j = 1; j < 20; j++) {{ \
               var px = r.left + r.width * i / 20, py = r.top + r.height * j / 20; \
               var e = document.elementFromPoint(px, py); \
               if (e && e.closest('.counter') === c) {{ n++; x += px; y += py; }} }} }} \
             return n ? [x / n, y / n, n / 361, r.height] : null;"
        );
        let at = seat.browser.client.execute(&js, vec![]).await.unwrap();
        println!("{}: {unit} shows at {at}", seat.name);
        let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        // At least a quarter of a lower counter shows (a strip as tall as
        // a line of its text is not "easily clickable").
        assert!(
            at[2].as_f64().unwrap() >= 0.25,
            "{}: {unit}: {at}",
            seat.name
        );
        let mouse = MouseActions::new("click".into())
            .then(PointerAction::MoveTo {
                duration: None,
                x: x.round(),
                y: y.round(),
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        seat.browser.client.perform_actions(mouse).await.unwrap();
        seat.browser.client.release_actions().await.unwrap();
        let listed = seat.browser.text("#stack").await;
        assert!(
            listed.contains(unit.as_str()),
            "{}: {unit} not listed: {listed}",
            seat.name
        );
        let selected_by = |how: &str, selected: String| {
            if may_move(unit) {
                assert!(
                    selected.starts_with(&format!("{unit} in ")),
                    "{}: {unit} {how} selected: {selected:?}",
                    seat.name
                );
            }
        };
        selected_by("clicked", seat.browser.text("#selected").await);
        // The same unit picked from the list beside the board.
        seat.click_board(".hex[data-hex=\"3A1\"]").await;
        seat.click(&format!("#stack li[data-unit=\"{unit}\"]"))
            .await;
        selected_by("picked in the list", seat.browser.text("#selected").await);
    }
    // Nothing selected when the test goes on.
    seat.click_board(".hex[data-hex=\"3A1\"]").await;
    units.len()
}

/// The page at `width` CSS px (1,000 high, as the new user's trial):
/// no sideways overflow, the board drawn.
async fn check_width(seat: &Seat, width: u32) {
    seat.browser
        .client
        .set_window_size(width, 1000)
        .await
        .expect("window resized");
    tokio::time::sleep(Duration::from_millis(300)).await;
    own_units_in_sight(seat, width).await;
    own_tags_clear(seat, width).await;
    let m = seat
        .browser
        .client
        .execute(
            "return { inner: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth, \
             board: document.querySelector('#board svg') ? document.querySelector('#board').getBoundingClientRect().width : 0 };",
            vec![],
        )
        .await
        .unwrap();
    let inner = m["inner"].as_f64().unwrap();
    let scroll = m["scroll"].as_f64().unwrap();
    let board = m["board"].as_f64().unwrap();
    assert!(
        scroll <= inner + 1.0,
        "{} at {width} px: the page overflows sideways: {m}",
        seat.name
    );
    assert!(
        board > 100.0 && board <= inner,
        "{} at {width} px: the board: {m}",
        seat.name
    );
    let (measured, longest) = labels_within_hexes(&seat.browser, seat.name, width).await;
    println!(
        "{} at {width} px: {measured} name lines within their hexes; the longest name: {longest}",
        seat.name
    );
    assert!(measured > 0, "{}: no counter measured", seat.name);
    let file = seat.name.replace(['\'', ' '], "-");
    seat.browser
        .screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{file}-{width}.png")))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue29_g3_two_players_play_through_their_own_pages_and_see_only_their_own_secrets() {
    let Some([browser_a, browser_b]) = two_browsers("page_browser").await else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(data.path(), "127.0.0.1:0", 120);
    let created = Created::new(&server, &examples("scenario.toml")).await;
    let secrets = |side: &str| created.secrets(side);
    let join = |side: &str, extra: &[&str]| created.join(side, examples, extra);
    let mut a = Player::spawn(join("a", &[]));
    let mut b = Player::spawn(join("b", &["--daisy", "brit-squad-1@3E5"]));
    let url_a = a.page_url().await;
    let url_b = b.page_url().await;
    assert!(url_a.starts_with("http://127.0.0.1:"), "{url_a}");
    let mut sa = Seat {
        name: "side A's page",
        browser: browser_a,
        received: Vec::new(),
        lines_at_act: None,
    };
    let mut sb = Seat {
        name: "side B's page",
        browser: browser_b,
        received: Vec::new(),
        lines_at_act: None,
    };
    sa.browser.client.goto(&url_a).await.unwrap();
    sb.browser.client.goto(&url_b).await.unwrap();
    sa.record(FETCH_PAGE).await;
    sb.record(FETCH_PAGE).await;
    // The address's token is spent: it opens nothing a second time.
    sb.browser.client.goto(&url_a).await.unwrap();
    let reused = sb.browser.html().await;
    assert!(reused.contains("used already"), "{reused}");
    sb.browser
        .client
        .goto(url_b.split('?').next().unwrap())
        .await
        .unwrap();

    let (hidden_mines, chains) = hidden_of_b(&secrets("b"));
    assert!(
        hidden_mines.contains(&"3E4".to_string()),
        "{hidden_mines:?}"
    );
    assert_eq!(chains, vec!["3E5".to_string()]);

    let mut plan = vec![
        Do::Button("#end"),
        Do::Button("#end"),
        Do::Form("shoot", "ger-gun 3D4 infantry he"),
        Do::Button("#end"),
        Do::ClickMove("ger-squad-1", "3E3"),
        Do::Line("move ger-squad-2 3C3"),
        Do::Line("move ger-squad-3 3H5"),
        Do::Line("disembark ger-pz ger-hs-1"),
        Do::Line("move ger-hs-1 3E6"),
        Do::Line("clear ger-hs-1"),
        Do::Form("move", "ger-pz 3E5"),
        Do::Button("#end"),
        Do::Concede,
    ]
    .into_iter();
    // Which hexes A's page may show as mined (or chained) so far: a
    // hidden fact of B's is revealed only by the attack of a unit that
    // entered it.
    let mut entered: Vec<&str> = Vec::new();
    let mut widths_checked = [false, false];
    let until = tokio::time::Instant::now() + Duration::from_secs(300);
    let mut finished = [false, false];
    // When each page's client was first found gone.
    let mut left: [Option<tokio::time::Instant>; 2] = [None, None];
    while !(finished[0] && finished[1]) {
        if tokio::time::Instant::now() >= until {
            panic!(
                "the game did not end on both pages:\n{}\n{}\nA ({}): {}\nB ({}): {}",
                sa.shows().await,
                sb.shows().await,
                a.running(),
                a.text(),
                b.running(),
                b.text()
            );
        }
        for (i, seat) in [&mut sa, &mut sb].into_iter().enumerate() {
            if seat.verdict().await.contains("CLEAN") {
                finished[i] = true;
                continue;
            }
            let Some(s) = seat.state().await else {
                // The client has left: it must not leave before its page
                // has shown the end (the result and the CLEAN verdict).
                let since = *left[i].get_or_insert_with(tokio::time::Instant::now);
                assert!(
                    since.elapsed() < AFTER_LEAVING,
                    "a client left before its page showed the verdict:\n{}",
                    seat.shows().await
                );
                continue;
            };
            if i == 0 {
                let svg = s["svg"].as_str().unwrap_or_default();
                for hex in hidden_mines.iter().chain(&chains) {
                    if !entered.contains(&hex.as_str()) {
                        assert!(
                            !drawn_at(svg, "mine", hex) && !drawn_at(svg, "daisy-chain", hex),
                            "side B's hidden fact in {hex} reached A's page before it was revealed: {svg}"
                        );
                    }
                }
            }
            let lines = s["lines"].as_array().map_or(0, Vec::len);
            if s["your_move"] != serde_json::json!(true)
                || seat.lines_at_act.is_some_and(|l| lines <= l)
            {
                continue;
            }
            let notes = s["notes"].to_string();
            assert!(
                !notes.contains("refused") && !notes.contains("not sent"),
                "{}: {notes}",
                seat.name
            );
            if !widths_checked[i] && s["svg"].as_str().is_some_and(|v| v.contains("counter")) {
                check_width(seat, 400).await;
                check_width(seat, 1400).await;
                widths_checked[i] = true;
            }
            seat.lines_at_act = Some(lines);
            if i == 1 {
                eprintln!("side B's page: end");
                seat.click("#end").await;
                continue;
            }
            let next = plan.next();
            if let Some(d) = &next {
                eprintln!("side A's page: {d:?}");
            }
            match next {
                Some(Do::Button(css)) => seat.click(css).await,
                Some(Do::Line(line)) => {
                    if let Some(hex) = line.split_whitespace().last() {
                        entered.push(hex);
                    }
                    seat.fill("#line", line).await;
                    seat.click("#send").await;
                }
                Some(Do::Form(verb, args)) => {
                    if verb == "move" {
                        entered.push(args.split_whitespace().last().unwrap());
                    }
                    let form = format!("form.cmd[data-verb=\"{verb}\"]");
                    seat.fill(&format!("{form} input"), args).await;
                    seat.click(&format!("{form} button")).await;
                }
                Some(Do::ClickMove(unit, hex)) => {
                    // The unit's legal hexes, from the client: the target
                    // is one, with its cost and the MF left.
                    let moves = s["moves"].as_array().unwrap();
                    let m = moves
                        .iter()
                        .find(|m| m["unit"] == unit)
                        .unwrap_or_else(|| panic!("no moves for {unit}: {moves:?}"));
                    assert!(
                        m["to"].as_array().unwrap().iter().any(|t| t[0] == hex),
                        "{unit} may not enter {hex}: {m}"
                    );
                    let n = stacks_clickable(seat, moves).await;
                    println!("{}: {n} stacked units each selected by a click", seat.name);
                    // Issue 29: a pan that starts and ends on the unit is
                    // no click: nothing is selected.
                    let counter = format!(".counter[data-unit=\"{unit}\"]");
                    seat.drag_board(&counter, 12.0).await;
                    let (n, line) = seat.selection().await;
                    println!("after a drag on {unit}: {n} selected, selection line {line:?}");
                    assert_eq!(n, 0, "a drag selected {unit}: {line}");
                    assert!(!line.contains("MF left"), "{line}");
                    seat.click_board(&counter).await;
                    let selected = seat.browser.text("#selected").await;
                    assert!(selected.contains("MF left"), "{selected}");
                    let legal = seat
                        .browser
                        .client
                        .execute(
                            "return document.querySelectorAll('#board .hv-legal').length;",
                            vec![],
                        )
                        .await
                        .unwrap();
                    assert!(legal.as_u64().unwrap_or(0) >= 1, "{legal}");
                    entered.push(hex);
                    // Issue 29: a pan that ends on a green hex picks no
                    // hex: the unit stays selected and does not move.
                    let target = format!(".hex.hv-legal[data-hex=\"{hex}\"]");
                    seat.drag_board(&target, 12.0).await;
                    let (n, line) = seat.selection().await;
                    println!("after a drag on {hex}: {n} selected, selection line {line:?}");
                    assert_eq!(n, 1, "a drag on {hex} picked it: {line}");
                    assert!(line.contains("MF left"), "{line}");
                    seat.click_board(&target).await;
                }
                Some(Do::Concede) => {
                    seat.click("#concede").await;
                    seat.click("#concede-yes").await;
                }
                None => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    assert_eq!(
        widths_checked,
        [true, true],
        "the widths were checked on both pages"
    );
    assert!(plan.next().is_none(), "side A's plan was played to its end");
    // Both pages show the result and the CLEAN verdict.
    for seat in [&mut sa, &mut sb] {
        let verdict = seat.verdict().await;
        assert!(verdict.contains("concede"), "{}: {verdict}", seat.name);
        // Issue 29 (a new user's trial): the result is the page's headline
        // and nothing is left to command (the buttons and forms go).
        let turn = seat.browser.text("#turn").await;
        println!("{}: headline at the end {turn:?}", seat.name);
        assert!(
            turn.starts_with("the game is over: side ") && turn.contains("conceded"),
            "{}: {turn}",
            seat.name
        );
        assert_eq!(
            seat.browser.text("#end").await,
            "",
            "{}: the end button is hidden",
            seat.name
        );
        let shown = seat.browser.html().await;
        seat.received.push(shown);
    }
    // Issue 29: at the end too (a unit Casualty Reduced or Replaced has a
    // longer name), every name line stays within its hex at 1,400 px.
    for seat in [&sa, &sb] {
        seat.browser
            .client
            .set_window_size(1400, 900)
            .await
            .expect("window resized");
        let (measured, longest) = labels_within_hexes(&seat.browser, seat.name, 1400).await;
        println!(
            "{} at the end: {measured} name lines within their hexes; the longest name: {longest}",
            seat.name
        );
    }
    // Side B's page marks B's own hidden facts (for B alone).
    let b_all = sb.received.join("\n");
    assert!(
        b_all.contains("sealed mine ap\\\" data-hex=\\\"3E4\\\" data-owner=\\\"B\\\"")
            || b_all.contains("sealed mine ap\" data-hex=\"3E4\" data-owner=\"B\""),
        "B's page marks its own hidden minefield in 3E4"
    );
    assert!(
        b_all.contains("sealed daisy-chain"),
        "B's page marks its own Daisy Chain"
    );
    // Never on A's page, in anything it received: B's unattacked 3E4.
    let a_all = sa.received.join("\n");
    assert!(
        !a_all.contains("sealed mine"),
        "a sealed mark of B's reached A's page"
    );
    assert!(
        !a_all.contains("A-P 12"),
        "B's 12-factor minefield reached A's page"
    );
    for text in &sa.received {
        assert!(!drawn_at(text, "mine", "3E4"), "3E4 mined on A's page");
    }
    for p in [&mut a, &mut b] {
        p.ends_clean().await;
    }
    sa.browser.close().await;
    sb.browser.close().await;
    drop(server);
}

// Issue 29: a long counter name (as a Replaced unit's: "id:7 (2-3-7 HS,
// replaced brit-squad-2)") is drawn within its hex at 1,400 px: the
// example's board with side A's squad given a long name, drawn by the
// spectators' viewer (the same SVG and script as the pages), measured in
// headless Chromium; the counter's title keeps the whole name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue29_a_long_counter_name_stays_within_its_hex_at_1400_px() {
    let Some(browser) = Browser::start("page_browser (a long name)").await else {
        return;
    };
    let long = "ger-squad-1 (2-3-7 HS, replaced brit-squad-2)";
    let read = |f: &str| std::fs::read_to_string(examples(f)).unwrap();
    let scenario_toml = read("scenario.toml").replace("\"ger-squad-1\"", &format!("\"{long}\""));
    let setup = read("setup-a.toml").replace("ger-squad-1 =", &format!("\"{long}\" ="));
    let scenario = hexveil_rulesets::all()
        .latest("asl")
        .unwrap()
        .load(&scenario_toml)
        .unwrap();
    let mut board = hexveil_view::board::Board::for_game(scenario.as_ref());
    board.setup(&setup).unwrap();
    let svg = hexveil_view::svg::board_svg(&board, hexveil_view::svg::SvgView::Public, 0, &[]);
    assert!(
        svg.contains(&format!("<title>{long}")),
        "the title has the whole name"
    );
    let page = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>{}</style></head><body>{}\
         <script>{}hvBoard(document.getElementById('board'));</script></body></html>",
        hexveil_view::viewer::VIEWER_STYLE,
        hexveil_view::viewer::viewer_html("", &svg),
        hexveil_view::viewer::VIEWER_SCRIPT,
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long-name.html");
    std::fs::write(&file, page).unwrap();
    browser
        .client
        .set_window_size(1400, 900)
        .await
        .expect("window resized");
    browser
        .client
        .goto(&format!("file://{}", file.display()))
        .await
        .unwrap();
    let (measured, longest) = labels_within_hexes(&browser, "the long name's board", 1400).await;
    println!("at 1400 px: {measured} name lines within their hexes; the longest: {longest}");
    assert!(longest.starts_with(long), "{longest}");
    assert!(longest.contains('\u{2026}'), "drawn cut: {longest}");
    browser
        .screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("long-name-1400.png"))
        .await;
    browser.close().await;
}

/// The example's miniatures files (`$EX/minis/` in the README).
fn minis_example(name: &str) -> String {
    format!("{}/../examples/minis/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The cells a side hid mines in (seed 004: `[[hidden]]` `rect` or
/// `cells` of its sealed setup), read from its own secrets file.
fn hidden_cells(secrets_dir: &Path) -> Vec<String> {
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(secrets_dir.join("secrets.json")).expect("a secrets file"),
    )
    .unwrap();
    let sealed: toml::Table = toml::from_str(
        stored["secrets"]["sealed_setup_toml"]
            .as_str()
            .expect("a sealed setup"),
    )
    .unwrap();
    let mut cells = Vec::new();
    for h in sealed
        .get("hidden")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        if let Some(r) = h.get("rect").and_then(|v| v.as_array()) {
            let n: Vec<i64> = r.iter().map(|v| v.as_integer().unwrap()).collect();
            for x in n[0]..n[2] {
                for y in n[1]..n[3] {
                    cells.push(format!("c{x}x{y}"));
                }
            }
        }
        for c in h
            .get("cells")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            cells.push(c.as_str().unwrap().to_string());
        }
    }
    cells
}

/// A side's script (`$EX/minis/script-*.txt`): its commands, in order.
fn script(file: &str) -> Vec<String> {
    std::fs::read_to_string(minis_example(file))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// G3: in `svg`, drawn on `page`'s side's page, no cell the other side
/// hid is drawn except as a mine that went off (a public event), and no
/// sealed mark of the other side's is drawn at all.
fn assert_no_hidden_cell(svg: &str, other: &str, hidden: &[String], page: &str) {
    for t in svg.split('<') {
        let Some(cell) = attr(t, "data-cell") else {
            continue;
        };
        if hidden.contains(&cell) {
            let class = attr(t, "class").unwrap_or_default();
            assert!(
                class.split(' ').any(|w| w == "detonated"),
                "{page}: side {other}'s hidden cell {cell} drawn ({class}) though no mine went off there"
            );
        }
    }
    let owner = format!("data-owner=\"{other}\"");
    let owner_json = format!("data-owner=\\\"{other}\\\"");
    assert!(
        !svg.contains(&owner) && !svg.contains(&owner_json),
        "{page}: a sealed mark of side {other}'s"
    );
}

// Issue 29, G3, G5, seed 004: both players play the miniatures example
// through their own `--ui` pages' command forms (`move`, `lay`, `clear`)
// and `end` buttons, each side's script ($EX/minis/script-*.txt) line by
// line, to the end of turn 6. Everything each page receives from its
// client (the page, every snapshot) is recorded: no cell the other side
// hid (read from that side's own secrets file) is drawn on it except
// where a mine went off (a public event), and no sealed mark of the other
// side's is. Both clients' transcripts verify CLEAN. Issue 27 item 9: at
// the end neither the players' pages nor the spectators' live page says
// "turn 7 of 6" or names a side to act, and every figure the narrative
// says was removed is drawn removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue29_g3_a_miniatures_game_is_played_through_both_pages_to_its_result() {
    let Some([browser_a, browser_b]) = two_browsers("page_browser (minis)").await else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn_with(
        data.path(),
        "127.0.0.1:0",
        &["--answer-timeout-secs", "120", "--http", "127.0.0.1:0"],
    );
    let http = server.http.expect("the web view's address");
    let created = Created::new(&server, &minis_example("scenario.toml")).await;
    let game = created.game.clone();
    let secrets = |side: &str| created.secrets(side);
    let join = |side: &str| created.join(side, minis_example, &[]);
    let mut a = Player::spawn(join("a"));
    let mut b = Player::spawn(join("b"));
    let url_a = a.page_url().await;
    let url_b = b.page_url().await;
    let mut seats = [
        Seat {
            name: "side A's page",
            browser: browser_a,
            received: Vec::new(),
            lines_at_act: None,
        },
        Seat {
            name: "side B's page",
            browser: browser_b,
            received: Vec::new(),
            lines_at_act: None,
        },
    ];
    seats[0].browser.client.goto(&url_a).await.unwrap();
    seats[1].browser.client.goto(&url_b).await.unwrap();
    for seat in seats.iter_mut() {
        seat.record(FETCH_PAGE).await;
    }
    // Each side's hidden cells, from its own secrets file, once written.
    let until = tokio::time::Instant::now() + BOUND;
    while !(secrets("a").join("secrets.json").exists()
        && secrets("b").join("secrets.json").exists())
    {
        assert!(tokio::time::Instant::now() < until, "no secrets files");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let hidden = [hidden_cells(&secrets("a")), hidden_cells(&secrets("b"))];
    assert!(hidden[0].contains(&"c20x3".to_string()), "{:?}", hidden[0]);
    assert!(hidden[1].contains(&"c20x15".to_string()), "{:?}", hidden[1]);
    let mut plans = [
        script("script-a.txt").into_iter(),
        script("script-b.txt").into_iter(),
    ];
    // What each page showed when its side last acted: the narrative's
    // length and the notes (a refused command changes only the notes).
    let mut acted: [Option<(usize, String)>; 2] = [None, None];
    let mut used = [Vec::new(), Vec::new()];
    let mut finished = [false, false];
    // When each page's client was first found gone.
    let mut left: [Option<tokio::time::Instant>; 2] = [None, None];
    let until = tokio::time::Instant::now() + Duration::from_secs(600);
    while !(finished[0] && finished[1]) {
        if tokio::time::Instant::now() >= until {
            panic!(
                "the game did not end on both pages:\n{}\n{}\nA ({}): {}\nB ({}): {}",
                seats[0].shows().await,
                seats[1].shows().await,
                a.running(),
                a.text(),
                b.running(),
                b.text()
            );
        }
        for (i, seat) in seats.iter_mut().enumerate() {
            if finished[i] {
                continue;
            }
            if seat.verdict().await.contains("CLEAN") {
                finished[i] = true;
                continue;
            }
            let Some(s) = seat.state().await else {
                // The client has left: it must not leave before its page
                // has shown the end (the result and the CLEAN verdict).
                let since = *left[i].get_or_insert_with(tokio::time::Instant::now);
                assert!(
                    since.elapsed() < AFTER_LEAVING,
                    "a client left before its page showed the verdict:\n{}",
                    seat.shows().await
                );
                continue;
            };
            let other = if i == 0 { "B" } else { "A" };
            assert_no_hidden_cell(
                s["svg"].as_str().unwrap_or_default(),
                other,
                &hidden[1 - i],
                seat.name,
            );
            let mark = (
                s["lines"].as_array().map_or(0, Vec::len),
                s["notes"].to_string(),
            );
            if s["your_move"] != serde_json::json!(true) || acted[i].as_ref() == Some(&mark) {
                continue;
            }
            acted[i] = Some(mark);
            let line = plans[i].next().unwrap_or_else(|| "end".to_string());
            eprintln!("{}: {line}", seat.name);
            let (verb, args) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            if verb == "end" {
                seat.click("#end").await;
            } else {
                let form = format!("form.cmd[data-verb=\"{verb}\"]");
                seat.fill(&format!("{form} input"), args).await;
                seat.click(&format!("{form} button")).await;
            }
            used[i].push(verb.to_string());
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    for verb in ["move", "lay", "clear", "end"] {
        assert!(
            used[0].iter().any(|v| v == verb),
            "side A used {verb}: {:?}",
            used[0]
        );
    }
    assert!(used[1].iter().any(|v| v == "move"), "{:?}", used[1]);
    // The end, on both pages: the verdict, and no side to act.
    for (i, seat) in seats.iter_mut().enumerate() {
        let verdict = seat.verdict().await;
        println!("{}: verdict {verdict:?}", seat.name);
        assert!(verdict.contains("CLEAN"), "{}: {verdict}", seat.name);
        let shown = seat.browser.html().await;
        let status = seat.browser.text("#status").await;
        println!("{}: status at the end {status:?}", seat.name);
        assert!(!status.contains("turn 7 of 6"), "{}: {status}", seat.name);
        assert!(!status.contains("to act"), "{}: {status}", seat.name);
        assert!(
            status.contains("the game is over"),
            "{}: {status}",
            seat.name
        );
        assert_no_hidden_cell(
            &shown,
            if i == 0 { "B" } else { "A" },
            &hidden[1 - i],
            seat.name,
        );
        let waiting = seat.browser.text("#waiting").await;
        println!("{}: wait line at the end {waiting:?}", seat.name);
        for text in [&status, &waiting] {
            assert!(!text.contains("waiting for"), "{}: {text}", seat.name);
        }
        removed_are_drawn_removed(&shown, &seat.browser.text("#narrative").await, seat.name);
        seat.received.push(shown);
    }
    // G3 on everything each page received, the page itself first.
    for (i, seat) in seats.iter().enumerate() {
        for text in &seat.received {
            let svg = serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v["svg"].as_str().map(str::to_string))
                .unwrap_or_else(|| text.clone());
            let other = if i == 0 { "B" } else { "A" };
            assert_no_hidden_cell(&svg, other, &hidden[1 - i], seat.name);
            // The words too (notes, narrative): no sealed mark of the
            // other side's, however escaped.
            assert_no_hidden_cell(text, other, &hidden[1 - i], seat.name);
        }
        let last = seat.received.last().unwrap();
        let went_off: Vec<String> = tags(last, "detonated")
            .iter()
            .filter_map(|t| attr(t, "data-cell"))
            .filter(|c| hidden[1 - i].contains(c))
            .collect();
        println!(
            "{}: {} snapshots checked; the other side's hidden cells drawn, all where a mine went off: {went_off:?}",
            seat.name,
            seat.received.len()
        );
    }
    for p in [&mut a, &mut b] {
        p.ends_clean().await;
    }
    // Issue 27 item 9: the spectators' live page of the finished game.
    let live = reqwest::get(format!("http://{http}/game/{game}"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let status = live
        .split("<div id=\"status\">")
        .nth(1)
        .and_then(|s| s.split("</div>").next())
        .unwrap_or_else(|| panic!("a status line in {live}"));
    println!("the live page's status at the end: {status:?}");
    assert!(
        !status.contains("turn 7 of 6") && !status.contains("to act"),
        "{status}"
    );
    assert!(status.contains("the game is over"), "{status}");
    let narrative = live
        .split("<ul id=\"log\">")
        .nth(1)
        .and_then(|s| s.split("</ul>").next())
        .unwrap_or_default()
        .to_string();
    removed_are_drawn_removed(&live, &narrative, "the live page");
    for seat in seats {
        seat.browser.close().await;
    }
    drop(server);
}

/// Issue 27 item 9, R8, R10: every figure the narrative `told` says was
/// removed by a blast (`... rolls N: removed`) is drawn removed on `page`.
fn removed_are_drawn_removed(page: &str, told: &str, who: &str) {
    let drawn: Vec<String> = tags(page, "removed")
        .iter()
        .filter(|t| t.starts_with("g class=\"figure removed\""))
        .filter_map(|t| attr(t, "data-figure"))
        .collect();
    // One line a line of text, or a `<li>` of the live page's narrative.
    let said: Vec<&str> = told
        .split(['\n', '<'])
        .map(|l| l.rsplit('>').next().unwrap_or(l))
        .filter(|l| l.contains(" rolls ") && l.trim_end().ends_with(": removed"))
        .collect();
    println!(
        "{who}: {} removal(s) told, drawn removed: {drawn:?}",
        said.len()
    );
    for l in &said {
        assert!(
            drawn.iter().any(|f| l.contains(f.as_str())),
            "{who}: {l:?} but no such figure drawn removed ({drawn:?})"
        );
    }
}
