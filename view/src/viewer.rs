//! The board viewer both web pages share (issue 27): the replay page
//! ([`crate::replay`]) and the server's live page draw their SVG picture
//! ([`crate::svg`]) in a frame a person can read on a phone and on a wide
//! screen.
//!
//! - At first sight the picture is drawn at [`DEFAULT_ZOOM`], so the
//!   counters' text (5 SVG units) is 11 CSS pixels (never under 10: a
//!   group of units may be fitted down to zoom 2.0), not the whole map
//!   shrunk to fit. A player's page (the picture's `data-reader` is his
//!   side) opens on his own units, as many as the frame holds; any other
//!   on every unit if they fit, else on the last action's units, else on
//!   those of the side to act (`data-to-act`): never on the empty ground
//!   between two sides' bounding box (issue 29).
//! - Zoom with the mouse wheel, a two-finger pinch or the `+` / `-`
//!   buttons; pan by dragging, by one finger, or with the scroll bars;
//!   `units` and `whole map` buttons go back to the units or show
//!   everything. The zoom and the place stay when the picture changes.
//! - A stack's counters are fanned out in the picture (each one's name
//!   shows, [`crate::svg`]); pointing at one (or tapping it) lists every
//!   unit of its hex, with its state, in `#stack` beside the board. A
//!   click keeps the list while the pointer moves to it; a unit clicked
//!   in the list is clicked on the board (the page's own listener selects
//!   it), so a unit under others is picked in one click (issue 29).
//! - [`legend_html`] explains every mark the pictures draw.
//!
//! Stable hooks: `#board` (the frame, `data-zoom` the zoom now),
//! `#zoom-in`, `#zoom-out`, `#zoom-units`, `#zoom-all`, `#stack` (one
//! `li` per unit of the hex pointed at, `data-unit` its name), `#legend`.
//!
//! Nothing here knows more than the picture it is handed: the script
//! reads the SVG's own elements and titles, so it shows no more than the
//! picture draws (G3).

use std::fmt::Write as _;

/// The zoom a picture is first drawn at: counter text (5 SVG units) at
/// 11 CSS pixels, above the 10 the issue asks for.
pub const DEFAULT_ZOOM: f64 = 2.2;

/// The viewer's style (the frame, its buttons, the stack list, the
/// legend), for a page's `<style>`.
pub const VIEWER_STYLE: &str = r#"
.hv-viewer { display: flex; flex-direction: column; min-width: 0; }
.hv-zoom { display: flex; flex-wrap: wrap; gap: 0.3em; align-items: center; margin: 0 0 0.3em 0; }
.hv-zoom button { font-size: 1em; min-width: 2.4em; min-height: 2.2em; }
#board { position: relative; overflow: auto; height: 70vh; min-height: 18em; max-height: 60em;
         border: 1px solid #ccc; background: #fff; touch-action: pan-x pan-y; cursor: grab;
         overscroll-behavior: contain; }
@media (min-width: 900px) { #board { height: 80vh; } }
#board.dragging { cursor: grabbing; }
#board svg { display: block; }
#board .counter { cursor: pointer; }
#stack { font-size: 0.9em; margin: 0.3em 0; padding: 0.3em 0.5em 0.3em 1.6em; background: #fff;
         border: 1px solid #ccc; min-height: 1.5em; overflow-wrap: anywhere; }
#stack li { cursor: pointer; }
#stack li:hover, #stack li:focus { background: #eef; }
#stack:empty::before { content: "point at a counter to list every unit in its hex; click one here to pick it";
         color: #777; margin-left: -1.1em; }
.hv-viewer:has(g.table) #stack:empty::before { content: "point at a figure for its name and state"; }
#legend { font-size: 0.85em; margin: 0.3em 0; }
#legend ul { list-style: none; padding: 0; margin: 0.3em 0; display: grid;
         grid-template-columns: repeat(auto-fill, minmax(15em, 1fr)); gap: 0.2em 0.8em; }
#legend li { display: flex; align-items: center; gap: 0.4em; }
#legend svg { flex: none; }
"#;

/// The zoom buttons, the frame (`#board`, with the extra attributes
/// `attrs`, e.g. ` data-pic="0"`) around `picture`, and the stack list:
/// the viewer's HTML.
pub fn viewer_html(attrs: &str, picture: &str) -> String {
    format!(
        "<div class=\"hv-viewer\">\
         <div class=\"hv-zoom\" role=\"toolbar\" aria-label=\"zoom\">\
         <button id=\"zoom-out\" type=\"button\" title=\"zoom out (mouse wheel, pinch)\">&minus;</button>\
         <button id=\"zoom-in\" type=\"button\" title=\"zoom in (mouse wheel, pinch)\">+</button>\
         <button id=\"zoom-units\" type=\"button\" title=\"back to the units at counter size\">units</button>\
         <button id=\"zoom-all\" type=\"button\" title=\"the whole map in the frame\">whole map</button>\
         <span class=\"muted\">drag to pan</span></div>\
         <div id=\"board\" data-zoom=\"{DEFAULT_ZOOM}\"{attrs}>{picture}</div>\
         <ul id=\"stack\" aria-live=\"polite\"></ul></div>"
    )
}

/// The legend a picture needs: the map's or the table's, from the
/// picture's own groups (`<g class="map"` or `<g class="table"`).
pub fn legend_for(svg: &str) -> LegendFor {
    if svg.contains("<g class=\"map\"") {
        LegendFor::Asl
    } else if svg.contains("<g class=\"table\"") {
        LegendFor::Minis
    } else {
        LegendFor::Both
    }
}

/// Which marks a legend explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegendFor {
    /// The ASL map.
    Asl,
    /// The miniatures table.
    Minis,
    /// Both (a page that does not know yet which it will show).
    Both,
}

/// A small swatch: `body` drawn in a 28 x 22 box.
fn swatch(body: &str) -> String {
    format!(
        "<svg width=\"28\" height=\"22\" viewBox=\"0 0 28 22\" aria-hidden=\"true\">{body}</svg>"
    )
}

/// The legend: one entry per mark the pictures draw (issue 27), in a
/// `<details id="legend">` open by default.
pub fn legend_html(what: LegendFor) -> String {
    let counter = |fill: &str, stroke: &str| {
        swatch(&format!(
            "<rect x=\"2\" y=\"2\" width=\"24\" height=\"18\" rx=\"2\" fill=\"{fill}\" stroke=\"{stroke}\"/>"
        ))
    };
    let marker = |text: &str| {
        swatch(&format!(
            "<rect x=\"0\" y=\"7\" width=\"28\" height=\"8\" fill=\"#fff3b0\" stroke=\"#a00\" stroke-width=\"0.5\"/>\
             <text x=\"14\" y=\"13.5\" font-size=\"6\" text-anchor=\"middle\" fill=\"#a00\">{text}</text>"
        ))
    };
    let sealed = |text: &str| {
        swatch(&format!(
            "<rect x=\"0\" y=\"6\" width=\"28\" height=\"10\" rx=\"2\" fill=\"#4a1260\"/>\
             <text x=\"14\" y=\"13.5\" font-size=\"7\" text-anchor=\"middle\" fill=\"#fff\">{text}</text>"
        ))
    };
    let mut asl: Vec<(String, &str)> = vec![
        (counter("#5a6fa8", "#222"), "a unit of side A (its name, its type, its state codes)"),
        (counter("#a85a5a", "#222"), "a unit of side B"),
        (counter("#888", "#f00"), "red outline: broken (BRK)"),
        (swatch("<text x=\"14\" y=\"15\" font-size=\"9\" text-anchor=\"middle\" fill=\"#a80\">PIN</text>"),
         "state codes: BRK broken, PIN pinned, DIS disrupted, ? concealed, IMM immobilized, aboard a vehicle"),
        (swatch("<rect x=\"2\" y=\"1\" width=\"20\" height=\"14\" fill=\"#5a6fa8\" stroke=\"#222\"/>\
                 <rect x=\"6\" y=\"7\" width=\"20\" height=\"14\" fill=\"#5a6fa8\" stroke=\"#222\"/>"),
         "a stack, fanned out: point at it to list every unit in the hex"),
        (swatch("<polygon points=\"4,11 9,2 19,2 24,11 19,20 9,20\" fill=\"none\" stroke=\"#e0a000\" stroke-width=\"2.5\"/>"),
         "orange outline: a hex of the last action"),
        (marker("Known"), "Known minefield counter, with the side that placed it (B28.45)"),
        (marker("A-P 6"), "A-P minefield revealed, with its strength (B28.41)"),
        (marker("A-T 2"), "A-T mines revealed, with their factors (B28.5)"),
        (marker("A-T view"), "A-T mines in full view (B28.53)"),
        (marker("Dummy"), "a Known counter shown to be a Dummy (B28.47)"),
        (marker("TB"), "Trail Break between two hexsides (B28.61)"),
        (swatch("<polygon points=\"8,4 2,18 14,18\" fill=\"#d33\" stroke=\"#600\"/>"),
         "BT: a Booby Trap went off here (B28.9)"),
        (swatch("<line x1=\"1\" y1=\"11\" x2=\"27\" y2=\"11\" stroke=\"#c00\" stroke-width=\"2\" stroke-dasharray=\"3,2\"/>"),
         "Daisy Chain (placed, revealed or attacked; B28.53)"),
        (sealed("A-P 6"), "your own sealed A-P minefield and its factors (B28.1); shown to its owner, or to all after the end"),
        (sealed("A-T 2"), "your own sealed A-T mines and their factors (B28.5)"),
        (sealed("Dummy"), "your own Known counter that is a Dummy (B28.47)"),
        (sealed("DC"), "your own Daisy Chain, noted (B28.531)"),
        (sealed("BT C"), "your own Booby Trap level, at its board's corner (B28.9)"),
        (swatch("<circle cx=\"14\" cy=\"11\" r=\"4\" fill=\"#555\"/>"), "paved road (grey dot); dirt road: brown dot"),
    ];
    let terrain: [(&str, &str); 6] = [
        ("#e8e6c8", "open ground"),
        ("#e9d98a", "grain; brush and orchard greener"),
        ("#6f9a55", "woods"),
        ("#b08a5a", "wooden building; stone building grey"),
        ("#9ec3b8", "marsh; water blue"),
        ("#c0b0a0", "rubble; crag darker"),
    ];
    for (fill, words) in terrain {
        asl.push((
            swatch(&format!(
                "<polygon points=\"4,11 9,2 19,2 24,11 19,20 9,20\" fill=\"{fill}\" stroke=\"#777\"/>"
            )),
            words,
        ));
    }
    let minis: Vec<(String, &str)> = vec![
        (
            swatch("<circle cx=\"14\" cy=\"11\" r=\"5\" fill=\"#5a6fa8\"/>"),
            "a figure of side A (side B: red), its name above",
        ),
        (
            swatch(
                "<circle cx=\"14\" cy=\"11\" r=\"5\" fill=\"#bbb\" stroke=\"#555\"/>\
                 <path d=\"M9,6 L19,16 M9,16 L19,6\" stroke=\"#222\" stroke-width=\"1.5\"/>",
            ),
            "a figure removed from play (grey, crossed)",
        ),
        (
            swatch("<rect x=\"7\" y=\"4\" width=\"14\" height=\"14\" fill=\"#f0b0a0\" stroke=\"#900\"/>"),
            "an open minefield cell",
        ),
        (
            swatch("<rect x=\"7\" y=\"4\" width=\"14\" height=\"14\" fill=\"#e07050\" stroke=\"#900\"/>\
                    <path d=\"M11,8 L17,14 M11,14 L17,8\" stroke=\"#c00\" stroke-width=\"1.5\"/>"),
            "a mine that went off, the cross where the figure stopped",
        ),
        (
            swatch("<rect x=\"7\" y=\"4\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"#900\"/>"),
            "a sealed minefield cell, shown after the end or to its owner",
        ),
    ];
    let mut out = String::from(
        "<details id=\"legend\" open><summary>Legend: what each mark means</summary><ul>",
    );
    let mut add = |rows: &[(String, &str)]| {
        for (sw, words) in rows {
            let _ = write!(out, "<li>{sw}<span>{words}</span></li>");
        }
    };
    match what {
        LegendFor::Asl => add(&asl),
        LegendFor::Minis => add(&minis),
        LegendFor::Both => {
            add(&asl);
            add(&minis);
        }
    }
    out.push_str("</ul></details>");
    out
}

/// The viewer's script: `hvBoard(frame)` gives the frame's viewer, whose
/// `shown()` a page calls after it put a new picture in the frame. It
/// defines `keepInSight(frame)` too (the last action, else the units, in
/// sight).
pub const VIEWER_SCRIPT: &str = r#"
// The units a picture opens on (issue 29): a player's own
// (`data-reader` A or B on the picture), else every unit. A removed
// figure is no unit.
function hvUnits(board, side) {
  var sel = side ? '[data-side="' + side + '"]' : '';
  return Array.prototype.slice.call(board.querySelectorAll('.counter' + sel + ', .figure' + sel))
    .filter(function (el) { return !el.classList.contains('removed'); });
}
function hvReader(board) {
  var s = board.querySelector('svg');
  var r = s ? s.getAttribute('data-reader') : null;
  return r === 'A' || r === 'B' ? r : null;
}
// The counters in the last action's hexes, else the hexes themselves.
function hvLastAction(board) {
  var hexes = Array.prototype.slice.call(board.querySelectorAll('.last-action'));
  var units = [];
  hexes.forEach(function (h) {
    board.querySelectorAll('.counter[data-hex="' + h.getAttribute('data-hex') + '"]')
      .forEach(function (c) { units.push(c); });
  });
  return units.length ? units : hexes;
}
function hvBox(els) {
  var q = { top: Infinity, left: Infinity, bottom: -Infinity, right: -Infinity };
  els.forEach(function (el) {
    var r = el.getBoundingClientRect();
    q.top = Math.min(q.top, r.top); q.left = Math.min(q.left, r.left);
    q.bottom = Math.max(q.bottom, r.bottom); q.right = Math.max(q.right, r.right);
  });
  return q;
}
// Scrolls the frame so the box q (client coordinates) is in the middle
// of what it shows (its client area, scroll bars excluded).
function hvCentre(board, q) {
  var b = board.getBoundingClientRect();
  board.scrollLeft += (q.left + q.right) / 2 - (b.left + board.clientLeft + board.clientWidth / 2);
  board.scrollTop += (q.top + q.bottom) / 2 - (b.top + board.clientTop + board.clientHeight / 2);
}
// The most of `els` a window of the frame's size holds, around one of
// them: a player's units spread wider than a phone's frame open on the
// largest group of them, not on the empty ground between.
function hvBestWindow(board, els) {
  var c = els.map(function (el) {
    var r = el.getBoundingClientRect();
    return { el: el, x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2, w: r.width, h: r.height };
  });
  var best = [];
  c.forEach(function (a) {
    var near = c.filter(function (o) {
      return Math.abs(o.x - a.x) + o.w / 2 <= board.clientWidth / 2 &&
             Math.abs(o.y - a.y) + o.h / 2 <= board.clientHeight / 2;
    });
    if (near.length > best.length) { best = near; }
  });
  return best.map(function (o) { return o.el; });
}
function keepInSight(board) {
  var els = Array.prototype.slice.call(board.querySelectorAll('.last-action'));
  if (els.length === 0) { els = hvUnits(board, hvReader(board)); }
  if (els.length === 0) { els = hvUnits(board, null); }
  if (els.length === 0) { return; }
  var q = hvBox(els);
  var b = board.getBoundingClientRect();
  var top = b.top + board.clientTop, left = b.left + board.clientLeft;
  if (q.top < top || q.bottom > top + board.clientHeight) {
    board.scrollTop += (q.top + q.bottom) / 2 - (top + board.clientHeight / 2);
  }
  if (q.left < left || q.right > left + board.clientWidth) {
    board.scrollLeft += (q.left + q.right) / 2 - (left + board.clientWidth / 2);
  }
}
function hvBoard(frame) {
  'use strict';
  var DEFAULT = Number(frame.dataset.zoom) || 2.2;
  // The least zoom that keeps counter text (5 SVG units) at 10 CSS px.
  var READABLE = 2.0;
  var zoom = DEFAULT;
  var placed = false;
  var stack = document.getElementById('stack');
  function picture() { return frame.querySelector('svg'); }
  function size(s) {
    var vb = s.viewBox && s.viewBox.baseVal;
    if (vb && vb.width) { return { w: vb.width, h: vb.height }; }
    return { w: Number(s.getAttribute('width')) || 400, h: Number(s.getAttribute('height')) || 300 };
  }
  function apply(s) {
    var n = size(s);
    s.setAttribute('width', (n.w * zoom).toFixed(1));
    s.setAttribute('height', (n.h * zoom).toFixed(1));
    frame.dataset.zoom = zoom.toFixed(3);
  }
  // Zooms to z, keeping the picture's point under (x, y) (client
  // coordinates; the frame's centre by default) where it is.
  function zoomTo(z, x, y) {
    var s = picture();
    if (!s) { return; }
    z = Math.max(0.2, Math.min(10, z));
    var r = frame.getBoundingClientRect();
    var ox = (x === undefined ? r.left + frame.clientLeft + frame.clientWidth / 2 : x) - r.left - frame.clientLeft;
    var oy = (y === undefined ? r.top + frame.clientTop + frame.clientHeight / 2 : y) - r.top - frame.clientTop;
    var px = (frame.scrollLeft + ox) / zoom, py = (frame.scrollTop + oy) / zoom;
    zoom = z;
    apply(s);
    frame.scrollLeft = px * zoom - ox;
    frame.scrollTop = py * zoom - oy;
  }
  // Fits `els` in the frame at a zoom from READABLE to the default and
  // centres them; false (nothing moved) when they need a smaller zoom,
  // unless `anyway` (then centred at the default zoom).
  function fit(els, anyway) {
    var s = picture();
    zoom = DEFAULT;
    apply(s);
    var q = hvBox(els);
    var w = (q.right - q.left) / zoom, h = (q.bottom - q.top) / zoom;
    var z = Math.min(DEFAULT, (frame.clientWidth - 4) / Math.max(w, 1), (frame.clientHeight - 4) / Math.max(h, 1));
    if (z < READABLE && !anyway) { return false; }
    if (z >= READABLE) { zoom = z; apply(s); }
    hvCentre(frame, hvBox(els));
    return true;
  }
  // At first sight and on `units` (issue 29): a player's page opens on
  // his own units, as many as the frame holds at counter size; any other
  // page on every unit if they fit at counter size, else on the last
  // action's units, else on the side to act's.
  function toUnits() {
    var s = picture();
    if (!s) { return; }
    zoom = DEFAULT;
    apply(s);
    var own = hvUnits(frame, hvReader(frame));
    if (hvReader(frame) && own.length) {
      if (!fit(own, false)) { fit(hvBestWindow(frame, own), true); }
      return;
    }
    var all = hvUnits(frame, null);
    if (all.length && fit(all, false)) { return; }
    var last = hvLastAction(frame);
    if (last.length) { fit(last, true); return; }
    var toAct = hvUnits(frame, s.getAttribute('data-to-act'));
    if (s.getAttribute('data-to-act') && toAct.length) {
      if (!fit(toAct, false)) { fit(hvBestWindow(frame, toAct), true); }
      return;
    }
    if (all.length) { fit(hvBestWindow(frame, all), true); }
  }
  function toAll() {
    var s = picture();
    if (!s) { return; }
    var n = size(s);
    zoom = Math.min(frame.clientWidth / n.w, frame.clientHeight / n.h);
    apply(s);
    frame.scrollLeft = 0; frame.scrollTop = 0;
  }
  // Every unit in the hex of `counter`, listed beside the board.
  function list(counter) {
    if (!stack) { return; }
    var hex = counter.getAttribute('data-hex');
    var items = [];
    frame.querySelectorAll('.counter').forEach(function (c) {
      if (c.getAttribute('data-hex') !== hex) { return; }
      var li = document.createElement('li');
      li.dataset.unit = c.getAttribute('data-unit');
      var t = c.querySelector('title');
      li.textContent = t ? t.textContent : c.getAttribute('data-unit');
      // Issue 29: each unit of the stack is clicked here as on the board
      // (the page's own click listener sees a click on its counter).
      li.tabIndex = 0;
      li.addEventListener('click', function () {
        c.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      });
      li.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); li.click(); }
      });
      items.push(li);
    });
    stack.replaceChildren.apply(stack, items);
    stack.dataset.hex = hex;
  }
  function shown() {
    var s = picture();
    if (!s) { return; }
    if (!placed) { placed = true; toUnits(); return; }
    var left = frame.scrollLeft, top = frame.scrollTop;
    apply(s);
    frame.scrollLeft = left; frame.scrollTop = top;
    keepInSight(frame);
    if (stack && stack.dataset.hex) {
      var c = frame.querySelector('.counter[data-hex="' + stack.dataset.hex + '"]');
      if (c) { list(c); } else { stack.replaceChildren(); delete stack.dataset.hex; }
    }
  }
  function on(id, f) { var b = document.getElementById(id); if (b) { b.addEventListener('click', f); } }
  on('zoom-in', function () { zoomTo(zoom * 1.25); });
  on('zoom-out', function () { zoomTo(zoom / 1.25); });
  on('zoom-units', toUnits);
  on('zoom-all', toAll);
  frame.addEventListener('wheel', function (e) {
    if (!picture()) { return; }
    e.preventDefault();
    zoomTo(zoom * Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)), e.clientX, e.clientY);
  }, { passive: false });
  // Pinch: two fingers zoom about their midpoint; one finger pans natively.
  var pinch = null;
  function spread(t) { return Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY); }
  frame.addEventListener('touchstart', function (e) {
    if (e.touches.length === 2) { pinch = { d: spread(e.touches), z: zoom }; }
  }, { passive: true });
  frame.addEventListener('touchmove', function (e) {
    if (!pinch || e.touches.length !== 2) { return; }
    e.preventDefault();
    var t = e.touches;
    zoomTo(pinch.z * spread(t) / pinch.d, (t[0].clientX + t[1].clientX) / 2, (t[0].clientY + t[1].clientY) / 2);
  }, { passive: false });
  frame.addEventListener('touchend', function (e) { if (e.touches.length < 2) { pinch = null; } });
  // Mouse drag pans; a click without a drag lists a counter's stack. The
  // click a browser fires at the end of a drag is swallowed before any
  // page's own listener sees it (issue 29: a pan selects no unit, picks
  // no hex), by a listener on the window in the capture phase.
  var drag = null;
  var dragged = false;
  frame.addEventListener('mousedown', function (e) {
    dragged = false;
    if (e.button !== 0) { return; }
    drag = { x: e.clientX, y: e.clientY, l: frame.scrollLeft, t: frame.scrollTop, moved: false };
  });
  window.addEventListener('click', function (e) {
    if (!dragged) { return; }
    dragged = false;
    if (frame.contains(e.target)) { e.stopPropagation(); e.preventDefault(); }
  }, true);
  window.addEventListener('mousemove', function (e) {
    if (!drag) { return; }
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) { return; }
    drag.moved = true;
    frame.classList.add('dragging');
    frame.scrollLeft = drag.l - dx; frame.scrollTop = drag.t - dy;
    e.preventDefault();
  });
  window.addEventListener('mouseup', function () {
    dragged = !!(drag && drag.moved);
    drag = null;
    frame.classList.remove('dragging');
  });
  // Pointing lists a hex's stack; a click (a tap) keeps it listed while
  // the pointer moves on to the list, until a click elsewhere.
  var pinned = false;
  frame.addEventListener('mouseover', function (e) {
    var c = e.target.closest && e.target.closest('.counter');
    if (c && !pinned) { list(c); }
  });
  frame.addEventListener('click', function (e) {
    var c = e.target.closest && e.target.closest('.counter');
    pinned = !!c;
    if (c) { list(c); }
  });
  shown();
  return { shown: shown, zoomTo: zoomTo, toUnits: toUnits, toAll: toAll, zoom: function () { return zoom; } };
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 27: the legend names every mark class the ASL picture draws.
    #[test]
    fn the_legend_explains_the_marks_and_the_viewer_has_its_hooks() {
        let l = legend_html(LegendFor::Both);
        for words in [
            "side A",
            "side B",
            "broken",
            "stack",
            "last action",
            "Known",
            "A-P",
            "A-T",
            "Dummy",
            "Trail Break",
            "Booby Trap",
            "Daisy Chain",
            "sealed",
            "road",
            "removed",
            "went off",
        ] {
            assert!(l.contains(words), "{words}");
        }
        let v = viewer_html(" data-pic=\"0\"", "<svg></svg>");
        for hook in [
            "id=\"board\"",
            "id=\"zoom-in\"",
            "id=\"zoom-out\"",
            "id=\"zoom-units\"",
            "id=\"zoom-all\"",
            "id=\"stack\"",
        ] {
            assert!(v.contains(hook), "{hook}");
        }
    }
}
