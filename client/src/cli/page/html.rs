//! The player's page: the board as the spectators' pages draw it
//! ([`hexveil_view::viewer`]: zoom, pan, stacks, legend), the status, who
//! the game waits for, the seat's notes (refusals in words), the
//! narrative, the verdict, and the ways to give commands: click a unit
//! then a highlighted hex to move (the legal hexes and the MF left come
//! from the client, computed by the ruleset: [`super::legal_moves`]), a
//! form per command of the ruleset, `end` and `concede` as buttons, and a
//! free command line. Every command goes to the client, which parses and
//! checks it as a typed one.
//!
//! Stable hooks (tests): `#board`, `#status`, `#turn` (`data-your-move`),
//! `#waiting`, `body.over` at the end (the commands hidden), `#notes` (one `li` per note), `#narrative` (one `li` per
//! line), `#verdict`, `#selected`, `.hv-legal` on the hexes a selected
//! unit may enter, `form.cmd[data-verb]`, `#end`, `#concede`,
//! `#concede-yes`, `#line` / `#send` (the command line), `#sent`.

use super::Snapshot;
use hexveil_view::svg::escape;
use hexveil_view::viewer::{legend_html, viewer_html, LegendFor, VIEWER_SCRIPT, VIEWER_STYLE};
use std::fmt::Write as _;

/// The commands that only show something at a terminal (the page shows
/// it all the time) or are buttons of their own.
const NOT_A_FORM: &[&str] = &[
    "board", "status", "units", "figures", "help", "end", "concede",
];

/// The page's own style.
const STYLE: &str = r#"
body { font-family: sans-serif; margin: 0.5em; background: #f4f4ef; color: #222; }
h1 { font-size: 1.2em; margin: 0.2em 0; overflow-wrap: anywhere; }
.muted { color: #666; font-size: 0.9em; }
.layout { display: flex; flex-wrap: wrap; gap: 0.8em; align-items: flex-start; }
.layout > .hv-viewer { flex: 2 1 28em; min-width: 0; max-width: 100%; }
.side { flex: 1 1 18em; min-width: 0; max-width: 100%; }
#turn { font-weight: bold; padding: 0.3em 0.5em; border-radius: 4px; background: #e8e8e0; }
#turn[data-your-move="true"] { background: #cfe8c4; }
#waiting { margin: 0.3em 0; }
#notes { background: #fff; border: 1px solid #c99; padding: 0.3em 0.5em 0.3em 1.6em; margin: 0.3em 0;
         max-height: 12em; overflow: auto; overflow-wrap: anywhere; font-size: 0.9em; }
#notes:empty { display: none; }
#narrative { background: #fff; border: 1px solid #ccc; padding: 0.3em 0.5em 0.3em 2em; max-height: 24em;
             overflow: auto; font-size: 0.85em; overflow-wrap: anywhere; }
#verdict { overflow-wrap: anywhere; font-size: 0.85em; white-space: pre-line; }
#verdict:empty { display: none; }
#turn[data-over="true"] { background: #d8dcf0; font-size: 1.1em; }
body.over .buttons, body.over #line-form, body.over #commands, body.over #selected { display: none; }
#board .hv-legal polygon { fill: #8fd08f !important; cursor: pointer; }
#board .hv-selected rect { stroke: #0a0 !important; stroke-width: 2.5 !important; }
form.cmd { display: flex; flex-wrap: wrap; gap: 0.3em; align-items: center; margin: 0.2em 0; }
form.cmd input { flex: 1 1 10em; min-width: 0; font-size: 1em; }
form.cmd button, .buttons button { font-size: 1em; min-height: 2em; }
form.cmd label { flex: 1 1 100%; font-size: 0.8em; color: #555; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.4em; margin: 0.4em 0; }
#concede-yes { background: #f0c0c0; }
#sent { font-size: 0.85em; color: #555; overflow-wrap: anywhere; }
"#;

/// The page's script: asks the client for each new snapshot (long
/// polling), draws it, and sends commands.
const SCRIPT: &str = r#"
(function () {
  'use strict';
  var board = document.getElementById('board');
  var viewer = hvBoard(board);
  var version = -1, lines = 0, moves = [], selected = null;
  function el(id) { return document.getElementById(id); }
  function send(line) {
    el('sent').textContent = 'sending `' + line + '` ...';
    fetch('/api/command', { method: 'POST', credentials: 'same-origin',
                            headers: { 'Content-Type': 'text/plain' }, body: line })
      .then(function (r) { return r.ok ? r.json() : r.text().then(function (t) { return { words: t }; }); })
      .then(function (a) { el('sent').textContent = a.words; })
      .catch(function (e) { el('sent').textContent = 'not sent: ' + e; });
  }
  function unselect() {
    selected = null;
    board.querySelectorAll('.hv-legal').forEach(function (h) { h.classList.remove('hv-legal'); });
    board.querySelectorAll('.hv-selected').forEach(function (h) { h.classList.remove('hv-selected'); });
    el('selected').textContent = '';
  }
  function select(name) {
    unselect();
    var m = moves.find(function (u) { return u.unit === name; });
    if (!m) { return false; }
    selected = m;
    board.querySelectorAll('.counter').forEach(function (c) {
      if (c.getAttribute('data-unit') === name) { c.classList.add('hv-selected'); }
    });
    m.to.forEach(function (t) {
      var h = board.querySelector('.hex[data-hex="' + t[0] + '"]');
      if (h) { h.classList.add('hv-legal'); }
    });
    el('selected').textContent = name + ' in ' + m.hex + ', ' + m.mf_left + ' MF left: ' +
      (m.to.length ? 'click a green hex to move (' + m.to.map(function (t) { return t[0] + ' costs ' + t[1]; }).join(', ') + ')'
                   : 'no adjacent hex it can enter now');
    return true;
  }
  board.addEventListener('click', function (e) {
    var t = e.target.closest ? e.target : null;
    if (!t) { return; }
    var c = t.closest('.counter');
    var hex = c ? c.getAttribute('data-hex') : (t.closest('.hex') ? t.closest('.hex').getAttribute('data-hex') : null);
    if (selected && hex && selected.to.some(function (x) { return x[0] === hex; })) {
      var line = 'move ' + selected.unit + ' ' + hex;
      unselect();
      send(line);
      return;
    }
    if (c && select(c.getAttribute('data-unit'))) { return; }
    unselect();
  });
  function draw(s) {
    version = s.version;
    if (s.svg) {
      board.innerHTML = s.svg;
      viewer.shown();
    }
    moves = s.moves || [];
    var keep = selected && selected.unit;
    unselect();
    if (keep) { select(keep); }
    el('status').textContent = s.status || 'waiting for the game to start';
    var turn = el('turn');
    turn.dataset.yourMove = s.your_move ? 'true' : 'false';
    turn.dataset.over = s.result ? 'true' : 'false';
    // The end (issue 29): the result as the headline; nothing left to
    // command, so the commands go.
    document.body.classList.toggle('over', !!s.result);
    if (s.result) { unselect(); }
    turn.textContent = s.result ? 'the game is over: ' + s.result :
      (s.your_move ? 'your move, side ' + s.side + ': click a unit, or give a command' : 'not your move: commands you give are queued');
    el('waiting').textContent = s.waiting ? 'now: ' + s.waiting : '';
    var notes = el('notes');
    notes.replaceChildren.apply(notes, (s.notes || []).map(function (n) {
      var li = document.createElement('li'); li.textContent = n; return li;
    }));
    notes.scrollTop = notes.scrollHeight;
    var narrative = el('narrative');
    if (s.lines_from < lines) { lines = s.lines_from; }
    (s.lines || []).forEach(function (l) {
      var li = document.createElement('li'); li.textContent = l; narrative.appendChild(li);
    });
    lines = s.lines_from + (s.lines || []).length;
    narrative.scrollTop = narrative.scrollHeight;
    el('verdict').textContent = [s.result, s.verdict && 'your client checked the transcript: ' + s.verdict]
      .filter(Boolean).join(' — ');
  }
  function poll() {
    fetch('/api/state?after=' + version + '&lines=' + lines, { credentials: 'same-origin' })
      .then(function (r) {
        if (!r.ok) { return r.text().then(function (t) { throw new Error(t); }); }
        return r.json();
      })
      .then(function (s) {
        if (s.version !== version) { draw(s); }
        // The end: the client writes the transcript and leaves once the
        // page says it has drawn it (a later poll says so otherwise).
        if (s.verdict) {
          el('sent').textContent = 'the game is over and your client has checked the transcript: nothing more will change on this page';
          fetch('/api/drawn', { method: 'POST', credentials: 'same-origin',
                                headers: { 'Content-Type': 'text/plain' }, body: String(version) })
            .catch(function () {});
          return;
        }
        setTimeout(poll, 50);
      })
      .catch(function (e) { el('sent').textContent = 'the client does not answer: ' + e.message; setTimeout(poll, 2000); });
  }
  document.querySelectorAll('form.cmd[data-verb]').forEach(function (f) {
    f.addEventListener('submit', function (e) {
      e.preventDefault();
      var args = f.querySelector('input');
      send((f.dataset.verb + ' ' + (args ? args.value : '')).trim());
    });
  });
  el('line-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var v = el('line').value.trim();
    if (v) { send(v); el('line').value = ''; }
  });
  el('end').addEventListener('click', function () { send('end'); });
  el('concede').addEventListener('click', function () { el('concede-yes').hidden = false; });
  el('concede-yes').addEventListener('click', function () { el('concede-yes').hidden = true; send('concede'); });
  poll();
})();
"#;

/// The page, drawn with the snapshot it is served with (the script then
/// follows the client's snapshots).
pub fn page(s: &Snapshot) -> String {
    let side = s.side.map(|s| s.to_string()).unwrap_or_else(|| "?".into());
    let legend = match s.ruleset {
        "asl" => LegendFor::Asl,
        "minis" => LegendFor::Minis,
        _ => LegendFor::Both,
    };
    let mut forms = String::new();
    for (usage, what) in s.commands {
        let mut words = usage.split_whitespace();
        let Some(verb) = words.next() else { continue };
        if NOT_A_FORM.contains(&verb) {
            continue;
        }
        let args: Vec<&str> = words.collect();
        let input = if args.is_empty() {
            String::new()
        } else {
            format!(
                "<input name=\"args\" placeholder=\"{}\" aria-label=\"{}\">",
                escape(&args.join(" ")),
                escape(usage)
            )
        };
        let _ = write!(
            forms,
            "<form class=\"cmd\" data-verb=\"{v}\"><label>{u}: {w}</label>{input}<button type=\"submit\">{v}</button></form>",
            v = escape(verb),
            u = escape(usage),
            w = escape(what),
        );
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>hexveil: your seat, side {side}</title><style>{VIEWER_STYLE}{STYLE}</style></head><body>\
         <h1>hexveil: your seat, side {side}</h1>\
         <p class=\"muted\">Served by your own hexveil client on 127.0.0.1: your keys and secrets stay in it; \
         this page shows what your client holds (your own hidden setup marked for you alone) and hands it your commands, \
         which it checks as typed ones.</p>\
         <div id=\"turn\" data-your-move=\"false\">connecting to your client ...</div>\
         <div id=\"waiting\" aria-live=\"polite\"></div>\
         <div class=\"layout\">{viewer}\
         <div class=\"side\">\
         <div id=\"verdict\" aria-live=\"polite\"></div>\
         <pre id=\"status\" class=\"muted\" style=\"white-space: pre-wrap\"></pre>\
         <div id=\"selected\" aria-live=\"polite\"></div>\
         <ul id=\"notes\" aria-live=\"polite\"></ul>\
         <div class=\"buttons\"><button id=\"end\" type=\"button\">end (the phase)</button>\
         <button id=\"concede\" type=\"button\">concede ...</button>\
         <button id=\"concede-yes\" type=\"button\" hidden>yes, concede the game</button></div>\
         <form id=\"line-form\" class=\"cmd\"><label for=\"line\">any command, as at the prompt</label>\
         <input id=\"line\" autocomplete=\"off\"><button id=\"send\" type=\"submit\">send</button></form>\
         <div id=\"sent\" aria-live=\"polite\"></div>\
         <details id=\"commands\" open><summary>commands</summary>{forms}</details>\
         <h2 style=\"font-size:1em\">narrative</h2><ol id=\"narrative\"></ol>\
         {legend}</div></div>\
         <script>{VIEWER_SCRIPT}{SCRIPT}</script></body></html>",
        viewer = viewer_html("", &s.svg),
        legend = legend_html(legend),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::command::Language;

    fn forms_of(html: &str) -> Vec<String> {
        html.split("data-verb=\"")
            .skip(1)
            .filter_map(|t| t.split('"').next())
            .map(String::from)
            .collect()
    }

    // Issue 29: the page has a form for each command of the game's
    // ruleset that sends something (ASL: fire, search, clearance,
    // ordnance `shoot` and `turn`, C3; miniatures: move, lay, clear), the
    // buttons for `end` and `concede`, and no form for what only shows;
    // a form's line (verb and arguments) parses with the prompt's parser.
    #[test]
    fn issue29_the_page_has_the_commands_of_each_ruleset() {
        let example = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/demo/scenario.toml"
        );
        let minis = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/minis/scenario.toml"
        );
        for (path, want, line) in [
            (
                example,
                &[
                    "move",
                    "fire",
                    "search",
                    "clearance",
                    "shoot",
                    "turn",
                    "rout",
                ][..],
                "shoot ger-gun 3D4 infantry he",
            ),
            (
                minis,
                &["move", "lay", "clear"][..],
                "lay ger-rifle-1 c11x6 s",
            ),
        ] {
            let loaded = crate::cli::play::load_scenario(std::path::Path::new(path)).unwrap();
            let language = Language::for_game(loaded.scenario.as_ref()).unwrap();
            let snap = Snapshot {
                commands: language.commands(),
                ruleset: if loaded.asl().is_some() {
                    "asl"
                } else {
                    "minis"
                },
                ..Snapshot::default()
            };
            let html = page(&snap);
            let forms = forms_of(&html);
            for verb in want {
                assert!(
                    forms.iter().any(|f| f == verb),
                    "{path}: no form for {verb}: {forms:?}"
                );
            }
            for shown in NOT_A_FORM {
                assert!(
                    !forms.iter().any(|f| f == shown),
                    "{path}: a form for {shown}"
                );
            }
            assert!(html.contains("id=\"end\"") && html.contains("id=\"concede-yes\""));
            let verb = line.split_whitespace().next().unwrap();
            assert!(forms.iter().any(|f| f == verb));
            assert!(language.parse(line).is_ok(), "{path}: {line}");
            assert!(html.contains("id=\"legend\""), "the legend");
        }
    }
}
