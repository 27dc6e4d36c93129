//! The web view's HTML: the list of games and a game's live page. Each page
//! is whole in itself (inline CSS and script, no font, no CDN): it works on
//! a machine with no network but the server's.
//!
//! Stable hooks for scripts and browser tests on the live page: `#board`
//! holds the SVG picture, `#log` the narrative (one `li` per line, with
//! `data-seq` = its log entry), `#status` the turn, phase and whose move,
//! `#who` who plays each side (`#players` inside it, as on the replay
//! page: the names their keys signed, issue 27 item 8),
//! `#waiting` who the game waits for now and until when (the server's
//! presence, live: issue 27),
//! `#result` how the game ended, `#links` the replay and transcript once it
//! has, `#error` why the view stopped.

use hexveil_view::svg::escape;
use hexveil_view::viewer::{legend_for, legend_html, viewer_html, VIEWER_SCRIPT, VIEWER_STYLE};

use super::games::{GameList, Named};
use super::live::Picture;
use crate::wire::GameId;

const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; background: #fafaf7; }
h1 { font-size: 1.4em; margin: 0 0 0.4em; overflow-wrap: anywhere; }
@media (max-width: 600px) { body { margin: 0.6em; } h1 { font-size: 1.15em; } }
h2 { font-size: 1.15em; margin: 1.2em 0 0.4em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #eee; }
.key { font-family: ui-monospace, monospace; font-size: 0.85em; }
.muted { color: #777; }
#status { font-weight: 600; margin: 0.4em 0; }
#waiting { margin: 0.2em 0 0.4em; color: #444; }
#result { font-weight: 600; color: #7a1c1c; }
#error { color: #b00; }
#log { font-family: ui-monospace, monospace; font-size: 0.85em; max-height: 28em; overflow-y: auto;
       border: 1px solid #ccc; background: #fff; padding: 0.5em; list-style: none; margin: 0;
       overflow-wrap: anywhere; }
#log li { padding-left: 1.2em; }
#log li.move-head { padding-left: 0; font-weight: bold; font-family: system-ui, sans-serif;
       border-top: 1px solid #eee; margin-top: 0.2em; }
.layout { display: flex; flex-wrap: wrap; gap: 1em; }
.layout > div { flex: 1 1 30em; min-width: 0; }
.layout > .hv-viewer { flex: 2 1 30em; }
table { display: block; overflow-x: auto; max-width: 100%; }
"#;

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}{VIEWER_STYLE}</style></head><body>{body}</body></html>\n",
        escape(title)
    )
}

fn key(k: &str) -> String {
    if k.is_empty() {
        "<span class=\"muted\">?</span>".into()
    } else {
        format!(
            "<span class=\"key\" title=\"{}\">{}&hellip;</span>",
            escape(k),
            escape(&k[..k.len().min(12)])
        )
    }
}

fn side(name: &str, k: &str) -> String {
    if name.is_empty() {
        key(k)
    } else {
        format!("{} {}", escape(name), key(k))
    }
}

/// A side with its player's names first: the league's roster's and the
/// one the player's key signed, when given (each marked whose it is,
/// issue 27 item 8).
fn player(named: [Option<&Named>; 2], nationality: &str, k: &str) -> String {
    let mut out = String::new();
    for n in named.into_iter().flatten() {
        out.push_str(&format!(
            "<b>{}</b> <span class=\"muted\">({}'s name)</span> ",
            escape(&n.name),
            n.by
        ));
    }
    out + &side(nationality, k)
}

fn seat(taken: bool) -> &'static str {
    if taken {
        "seated"
    } else {
        "<span class=\"muted\">empty</span>"
    }
}

/// The list of games (`GET /`).
pub fn index(list: &GameList) -> String {
    let mut body = String::from(
        "<h1>hexveil: games on this server</h1>\
         <p class=\"muted\">Live pages show the public view only, late by the server's \
         spectator delay; a finished game's transcript and replay show everything.</p>",
    );
    body.push_str("<h2>Open games</h2>");
    if list.open.is_empty() {
        body.push_str("<p class=\"muted\">none</p>");
    } else {
        body.push_str(
            "<table id=\"open\"><tr><th>game</th><th>scenario</th><th>ruleset</th>\
             <th>side A</th><th>side B</th><th>created</th><th>seats</th><th>spectators</th>\
             <th>waiting for (the server's word)</th></tr>",
        );
        for g in &list.open {
            let d = &g.description;
            body.push_str(&format!(
                "<tr><td><a class=\"key\" href=\"{live}\">{id}</a></td><td>{scenario}</td>\
                 <td>{ruleset} v{version} ({mode})</td><td>{a}</td><td>{b}</td>\
                 <td>{created}</td><td>A {sa}, B {sb}</td><td>{spect}</td><td class=\"waiting\">{waiting}</td></tr>",
                live = escape(&g.live),
                id = escape(&g.game),
                scenario = escape(&d.scenario),
                ruleset = escape(&d.ruleset),
                version = d.ruleset_version,
                mode = escape(&d.mode),
                a = player([g.name_a.as_ref(), g.signed_a.as_ref()], &d.side_a, &d.key_a),
                b = player([g.name_b.as_ref(), g.signed_b.as_ref()], &d.side_b, &d.key_b),
                created = match d.created_ms {
                    Some(ms) => crate::wire::date_words(ms),
                    None => "<span class=\"muted\">unknown</span>".to_string(),
                },
                sa = seat(g.side_a_seated),
                sb = seat(g.side_b_seated),
                spect = g.spectators,
                waiting = match &g.waiting {
                    Some(w) => escape(&w.words),
                    None => "<span class=\"muted\">nobody</span>".to_string(),
                },
            ));
        }
        body.push_str("</table>");
    }
    body.push_str("<h2>Finished games</h2>");
    if list.finished.is_empty() {
        body.push_str("<p class=\"muted\">none</p>");
    } else {
        body.push_str(
            "<table id=\"finished\"><tr><th>game</th><th>scenario</th><th>ruleset</th>\
             <th>side A</th><th>side B</th><th>result</th><th>actions</th><th>verdict</th>\
             <th></th></tr>",
        );
        for g in &list.finished {
            let links = format!(
                "<a href=\"{}\">replay</a> <a href=\"{}\">transcript</a>",
                escape(&g.replay),
                escape(&g.transcript)
            );
            let row = match (&g.row, &g.refused) {
                (Some(r), _) => format!(
                    "<td>{}</td><td>{} v{} ({})</td><td>{}</td><td>{}</td>\
                     <td>{}: {}</td><td>{}</td><td>{}</td>",
                    escape(&r.scenario),
                    escape(&r.ruleset),
                    r.ruleset_version,
                    escape(&r.mode),
                    player(
                        [g.name_a.as_ref(), g.signed_a.as_ref()],
                        &r.side_a,
                        &r.key_a
                    ),
                    player(
                        [g.name_b.as_ref(), g.signed_b.as_ref()],
                        &r.side_b,
                        &r.key_b
                    ),
                    escape(&r.result),
                    escape(&r.reason),
                    r.actions,
                    escape(&r.verdict),
                ),
                (None, why) => format!(
                    "<td colspan=\"7\">not a result: {}</td>",
                    escape(why.as_deref().unwrap_or(""))
                ),
            };
            body.push_str(&format!(
                "<tr><td><a class=\"key\" href=\"{}\">{}</a></td>{row}<td>{links}</td></tr>",
                escape(&g.live),
                escape(&g.game),
            ));
        }
        body.push_str("</table>");
    }
    body.push_str(
        "<p class=\"muted\">The same as JSON: <a href=\"/api/games\">/api/games</a>. \
         Operators: <a href=\"/metrics\">/metrics</a> (with the operator's token).</p>",
    );
    page("hexveil games", &body)
}

const LIVE_SCRIPT: &str = r#"
(function () {
  var board = document.getElementById('board');
  var viewer = hvBoard(board);
  var log = document.getElementById('log');
  var heads = log.querySelectorAll('li.move-head');
  var lastMove = heads.length ? heads[heads.length - 1].dataset.move : null;
  var statusLine = document.getElementById('status');
  var waiting = document.getElementById('waiting');
  var wait = { words: waiting.dataset.words || '', at: Number(waiting.dataset.forfeits) || 0 };
  function showWait() {
    if (!wait.words) { waiting.textContent = ''; return; }
    var text = 'now: ' + wait.words;
    if (wait.at) {
      var d = new Date(wait.at);
      var hm = ('0' + d.getUTCHours()).slice(-2) + ':' + ('0' + d.getUTCMinutes()).slice(-2);
      var left = Math.max(0, Math.floor((wait.at - Date.now()) / 1000));
      text += '; forfeits at ' + hm + ' UTC, ' +
        (left === 0 ? 'now' : left < 90 ? 'in ' + left + ' s' : 'in ' + Math.round(left / 60) + ' min');
    }
    waiting.textContent = text + " (the server's word, live)";
  }
  showWait();
  setInterval(showWait, 15000);
  var players = document.getElementById('who');
  var result = document.getElementById('result');
  var links = document.getElementById('links');
  var error = document.getElementById('error');
  var source = new EventSource(location.pathname.replace(/\/+$/, '') + '/events');
  source.addEventListener('picture', function (e) {
    var p = JSON.parse(e.data);
    if (p.svg) { board.innerHTML = p.svg; viewer.shown(); }
    players.innerHTML = p.players_html;
    statusLine.textContent = p.status || 'waiting for the game to start';
    wait = { words: p.waiting || '', at: p.forfeits_at_ms || 0 };
    showWait();
    if (p.reset) { log.replaceChildren(); lastMove = null; }
    var bottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    p.lines.forEach(function (l) {
      if (String(l.move) !== lastMove) {
        lastMove = String(l.move);
        var h = document.createElement('li');
        h.className = 'move-head';
        h.dataset.move = lastMove;
        h.textContent = l.move === 0 ? 'setup' : 'move ' + l.move;
        log.appendChild(h);
      }
      var li = document.createElement('li');
      li.dataset.seq = l.seq;
      li.textContent = l.text;
      log.appendChild(li);
    });
    if (bottom) { log.scrollTop = log.scrollHeight; }
    result.textContent = p.result ? 'Result: ' + p.result : '';
    if (p.finished) {
      links.innerHTML = '<a href="' + p.replay + '">replay with everything revealed</a> · ' +
        '<a href="' + p.transcript + '">transcript</a>';
    }
    if (p.error) { error.textContent = p.error; }
    if (p.finished || p.error) { source.close(); }
  });
})();
"#;

/// The heading line of move `m` in the live narrative (`setup` for 0).
fn move_head(m: u64) -> String {
    if m == 0 {
        "<li class=\"move-head\" data-move=\"0\">setup</li>".into()
    } else {
        format!("<li class=\"move-head\" data-move=\"{m}\">move {m}</li>")
    }
}

/// A game's live page (`GET /game/{id}`), drawn with the picture at the
/// time of the request; the script keeps it up to date.
pub fn live(game: GameId, p: &Picture) -> String {
    let title = if p.scenario.is_empty() {
        format!("game {game}")
    } else {
        format!("{} (game {game})", p.scenario)
    };
    // Numbered by move, not 1..N beside `log #200` (issue 27).
    let mut lines = String::new();
    let mut last_move = None;
    for l in p.lines.iter() {
        if last_move != Some(l.r#move) {
            last_move = Some(l.r#move);
            lines.push_str(&move_head(l.r#move));
        }
        lines.push_str(&format!(
            "<li data-seq=\"{}\" data-move=\"{}\">{}</li>",
            l.seq,
            l.r#move,
            escape(&l.text)
        ));
    }
    let status = if p.status.is_empty() {
        "waiting for the game to start".to_string()
    } else {
        p.status.clone()
    };
    let result = p
        .result
        .as_ref()
        .map(|r| format!("Result: {}", escape(r)))
        .unwrap_or_default();
    let links = if p.finished {
        format!(
            "<a href=\"/game/{game}/replay\">replay with everything revealed</a> · \
             <a href=\"/game/{game}/transcript\">transcript</a>"
        )
    } else {
        String::new()
    };
    let body = format!(
        "<h1>{title}</h1>\
         <p class=\"muted\">The public view, as every spectator sees it, late by this \
         server's spectator delay. <a href=\"/\">All games</a></p>\
         <div id=\"who\">{players}</div>\
         <div id=\"status\">{status}</div>\
         <div id=\"waiting\" data-words=\"{waiting}\" data-forfeits=\"{forfeits}\">{waiting_now}</div>\
         <div id=\"result\">{result}</div>\
         <div id=\"links\">{links}</div><div id=\"error\">{error}</div>\
         <div class=\"layout\">{viewer}\
         <div><ul id=\"log\">{lines}</ul>{legend}</div></div>\
         <script>{VIEWER_SCRIPT}{LIVE_SCRIPT}</script>",
        title = escape(&title),
        players = hexveil_view::names::players_html(&p.players),
        status = escape(&status),
        waiting = escape(p.waiting.as_deref().unwrap_or("")),
        forfeits = p.forfeits_at_ms.unwrap_or(0),
        waiting_now = p
            .waiting
            .as_ref()
            .map(|w| escape(&format!("now: {w} (the server's word, live)")))
            .unwrap_or_default(),
        error = escape(p.error.as_deref().unwrap_or("")),
        viewer = viewer_html("", &p.svg),
        legend = legend_html(legend_for(&p.svg)),
    );
    page(&title, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::live::Line;
    use std::sync::Arc;

    /// The list's description of a Mine Alley game between `key_a` and
    /// `key_b`.
    fn mine_alley(key_a: &str, key_b: &str) -> super::super::games::Description {
        super::super::games::Description {
            scenario: "Mine Alley".into(),
            ruleset: "asl".into(),
            ruleset_version: 3,
            mode: "live".into(),
            side_a: "German".into(),
            side_b: "British".into(),
            key_a: key_a.into(),
            key_b: key_b.into(),
            created_ms: Some(1_795_000_000_000),
        }
    }

    // Issue 27 item 8: the league's roster names a game's players on the
    // list of games, marked as the league's and escaped; a key the roster
    // does not name is shown as a key.
    #[test]
    fn issue27_item8_roster_names_are_shown_on_the_list_as_the_leagues() {
        use super::super::games::{names_of, OpenGame};
        let alice = hexveil_protocol::identity::Identity::from_seed(&[1; 32])
            .unwrap()
            .public_key();
        let bob = hexveil_protocol::identity::Identity::from_seed(&[2; 32])
            .unwrap()
            .public_key();
        let roster = crate::roster::Roster::parse(
            &format!("[[player]]\nkey = \"{alice}\"\nname = \"Alice <b>\"\n"),
            std::path::Path::new("league.toml"),
        )
        .unwrap();
        let (key_a, key_b) = (alice.to_string(), bob.to_string());
        let [name_a, name_b] = names_of(Some(&roster), [&key_a, &key_b]);
        assert_eq!(
            name_a.as_ref().map(|n| (n.name.as_str(), n.by)),
            Some(("Alice <b>", "league"))
        );
        assert_eq!(name_b, None);
        assert_eq!(names_of(None, [&key_a, &key_b]), [None, None]);
        let list = GameList {
            open: vec![OpenGame {
                game: "00".into(),
                description: mine_alley(&key_a, &key_b),
                name_a,
                name_b,
                signed_a: None,
                signed_b: Named::signed(&Some("Bob <i>".into())),
                side_a_seated: true,
                side_b_seated: false,
                spectators: 0,
                waiting: None,
                live: "/game/00".into(),
            }],
            finished: vec![],
        };
        let html = index(&list);
        assert!(
            html.contains("<span class=\"muted\">nobody</span>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<b>Alice &lt;b&gt;</b> <span class=\"muted\">(league's name)</span> German"
            ),
            "{html}"
        );
        assert!(!html.contains("Alice <b>"), "{html}");
        // Issue 27 item 8: its creation date, in words and in the JSON.
        assert!(html.contains("<td>2026-11-18 11:06 UTC</td>"), "{html}");
        let json = serde_json::to_value(&list.open[0]).unwrap();
        assert_eq!(json["created_ms"], 1_795_000_000_000u64);
        assert_eq!(json["name_a"]["name"], "Alice <b>");
        assert_eq!(json["name_a"]["by"], "league");
        assert!(json["name_b"].is_null());
        // The name side B's key signed, beside the roster's, marked as
        // the player's own and escaped.
        let words = "<b>Bob &lt;i&gt;</b> <span class=\"muted\">(player's name)</span>";
        println!("{words}");
        assert!(html.contains(words), "{html}");
        assert_eq!(json["signed_b"]["name"], "Bob <i>");
        assert_eq!(json["signed_b"]["by"], "player");
        assert!(json["signed_a"].is_null());
    }

    // Issue 27 item 1: the list says who each open game waits for, on what
    // and when the answer timeout forfeits, in words (escaped: the words
    // are the ruleset's), in the page and in `/api/games`.
    #[test]
    fn issue27_item1_the_list_says_who_a_game_waits_for_and_until_when() {
        use super::super::games::{OpenGame, Waiting};
        use crate::wire::{Awaited, Side};
        // 14:24:00 UTC, ten minutes after now.
        let at =
            1_800_000_000_000 - (1_800_000_000_000 % 86_400_000) + (14 * 3600 + 24 * 60) * 1000;
        let waiting = Waiting::new(
            Awaited {
                side: Some(Side::B),
                what: "side B's machine to answer its <Daisy Chain> opportunity 1".into(),
                forfeits_at_ms: Some(at),
            },
            at - 600_000,
        );
        let open = OpenGame {
            game: "00".into(),
            description: mine_alley("a", "b"),
            name_a: None,
            name_b: None,
            signed_a: None,
            signed_b: None,
            side_a_seated: true,
            side_b_seated: false,
            spectators: 0,
            waiting: Some(waiting),
            live: "/game/00".into(),
        };
        let list = GameList {
            open: vec![open],
            finished: vec![],
        };
        let html = index(&list);
        let words = "side B&apos;s machine to answer its &lt;Daisy Chain&gt; opportunity 1; \
                     forfeits at 14:24 UTC, in 10 min";
        println!("{words}");
        assert!(
            html.contains(&format!("<td class=\"waiting\">{words}</td>")),
            "{html}"
        );
        assert!(html.contains("waiting for (the server's word)"), "{html}");
        let json = serde_json::to_value(&list.open[0]).unwrap();
        assert_eq!(json["waiting"]["side"], "B");
        assert_eq!(json["waiting"]["forfeits_at_ms"], at);
        assert_eq!(
            json["waiting"]["words"],
            "side B's machine to answer its <Daisy Chain> opportunity 1; forfeits at 14:24 UTC, in 10 min"
        );
    }

    // Issue 27 item 1: the live page says who the game waits for, whether
    // that side's client is connected, and until when (counted down by the
    // page from `data-forfeits`), escaped, as the server's word.
    #[test]
    fn issue27_item1_the_live_page_says_who_the_game_waits_for() {
        use crate::http::live::waiting_words;
        use crate::wire::{Awaited, Presence, Side};
        let presence = Presence {
            side_a_connected: true,
            side_b_connected: false,
            spectators: 1,
            awaited: Some(Awaited {
                side: Some(Side::B),
                what: "side B's machine to answer its <Daisy Chain> opportunity 1".into(),
                forfeits_at_ms: Some(1_800_000_000_000),
            }),
        };
        let words = waiting_words(&presence).unwrap();
        println!("{words}");
        assert_eq!(
            words,
            "waiting for side B's machine to answer its <Daisy Chain> opportunity 1; \
             side B's client is NOT connected"
        );
        let idle = Presence {
            awaited: None,
            ..presence.clone()
        };
        assert_eq!(waiting_words(&idle), None);
        let p = Picture {
            waiting: Some(words),
            forfeits_at_ms: Some(1_800_000_000_000),
            ..Picture::default()
        };
        let html = live(GameId([1; 16]), &p);
        assert!(
            html.contains("data-forfeits=\"1800000000000\">now: waiting for side B&apos;s machine to answer its &lt;Daisy Chain&gt; opportunity 1; side B&apos;s client is NOT connected (the server&apos;s word, live)</div>"),
            "{html}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&p.json(GameId([1; 16]), 0, true)).unwrap();
        assert_eq!(json["forfeits_at_ms"], 1_800_000_000_000u64);
        assert!(json["waiting"].as_str().unwrap().ends_with("NOT connected"));
    }

    #[test]
    fn live_page_escapes_the_narrative_and_has_its_hooks() {
        let p = Picture {
            scenario: "Mine <Alley>".into(),
            seq: Some(4),
            svg: "<svg></svg>".into(),
            status: "Game Turn 1".into(),
            lines: Arc::new(vec![Line {
                seq: 4,
                text: "<script>alert(1)</script>".into(),
                r#move: 3,
            }]),
            ..Picture::default()
        };
        let html = live(GameId([1; 16]), &p);
        assert!(html.contains("<div id=\"waiting\" data-words=\"\" data-forfeits=\"0\"></div>"));
        for hook in [
            "id=\"board\"",
            "id=\"log\"",
            "id=\"status\"",
            "id=\"result\"",
        ] {
            assert!(html.contains(hook), "{hook}");
        }
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        // Issue 27: the narrative is numbered by move.
        assert!(html.contains("<li class=\"move-head\" data-move=\"3\">move 3</li>"));
        assert!(!html.contains("<ol id=\"log\""));
        assert!(html.contains("Mine &lt;Alley&gt;"));
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "no network"
        );
    }
}
