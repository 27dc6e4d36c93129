//! The board viewer both web pages share (issue 27): the replay page
//! ([`crate::replay`]) and the server's live page draw their SVG picture
//! ([`crate::svg`]) in a frame a person can read on a phone and on a wide
//! screen.
//!
//! - At first sight the picture is drawn at [`DEFAULT_ZOOM`], so the
//!   counters' text (5 SVG units) is 11 CSS pixels, centred on the units
//!   (the last action's hexes once there is one), not the whole map
//!   shrunk to fit.
//! - Zoom with the mouse wheel, a two-finger pinch or the `+` / `-`
//!   buttons; pan by dragging, by one finger, or with the scroll bars;
//!   `units` and `whole map` buttons go back to the units or show
//!   everything. The zoom and the place stay when the picture changes.
//! - A stack's counters are fanned out in the picture (each one's name
//!   shows, [`crate::svg`]); pointing at one (or tapping it) lists every
//!   unit of its hex, with its state, in `#stack` beside the board.
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
#board.dragging { cursor: grabbing; }
#board svg { display: block; }
#board .counter { cursor: pointer; }
#stack { font-size: 0.9em; margin: 0.3em 0; padding: 0.3em 0.5em 0.3em 1.6em; background: #fff;
         border: 1px solid #ccc; min-height: 1.5em; overflow-wrap: anywhere; }
#stack:empty::before { content: "point at a counter to list every unit in its hex"; color: #777;
         margin-left: -1.1em; }
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
        (swatch("<circle cx=\"14\" cy=\"11\" r=\"9\" fill=\"none\" stroke=\"#900\" stroke-width=\"2\" stroke-dasharray=\"4,3\"/>"),
         "dashed red ring: a sealed content, shown after the end or to its owner"),
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
function keepInSight(board) {
  var els = board.querySelectorAll('.last-action');
  if (els.length === 0) { els = board.querySelectorAll('.counter, .figure'); }
  if (els.length === 0) { return; }
  var top = Infinity, left = Infinity, bottom = -Infinity, right = -Infinity;
  els.forEach(function (el) {
    var r = el.getBoundingClientRect();
    top = Math.min(top, r.top); left = Math.min(left, r.left);
    bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right);
  });
  var b = board.getBoundingClientRect();
  if (top < b.top || bottom > b.bottom) {
    board.scrollTop += (top + bottom) / 2 - (b.top + b.bottom) / 2;
  }
  if (left < b.left || right > b.right) {
    board.scrollLeft += (left + right) / 2 - (b.left + b.right) / 2;
  }
}
function hvBoard(frame) {
  'use strict';
  var DEFAULT = Number(frame.dataset.zoom) || 2.2;
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
  // The units (else the last action) centred, at the default zoom.
  function toUnits() {
    var s = picture();
    if (!s) { return; }
    zoom = DEFAULT;
    apply(s);
    var els = frame.querySelectorAll('.last-action');
    if (els.length === 0) { els = frame.querySelectorAll('.counter, .figure'); }
    if (els.length === 0) { return; }
    var top = Infinity, left = Infinity, bottom = -Infinity, right = -Infinity;
    els.forEach(function (el) {
      var q = el.getBoundingClientRect();
      top = Math.min(top, q.top); left = Math.min(left, q.left);
      bottom = Math.max(bottom, q.bottom); right = Math.max(right, q.right);
    });
    var b = frame.getBoundingClientRect();
    frame.scrollLeft += (left + right) / 2 - (b.left + b.right) / 2;
    frame.scrollTop += (top + bottom) / 2 - (b.top + b.bottom) / 2;
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
  frame.addEventListener('mouseover', function (e) {
    var c = e.target.closest && e.target.closest('.counter');
    if (c) { list(c); }
  });
  frame.addEventListener('click', function (e) {
    var c = e.target.closest && e.target.closest('.counter');
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
