//! Board pictures (issue 12): `hexveil replay FILE --svg STEP --view V`
//! through the real binary on the demo's transcript. The SVG is checked
//! against the game state `replay --board --step N` prints (each unit's
//! counter drawn at its hex's position on the geomorphic grid), the
//! revealed minefields are drawn (B28.41, B28.45), and no sealed mine is
//! drawn in a view that may not see it (G3), read off the SVG text itself.

mod common;
use common::*;

use hexveil_asl::Hex;
use hexveil_core::Ruleset;
use std::path::Path;

fn demo_scenario() -> std::sync::Arc<hexveil_asl::model::scenario::Scenario> {
    let text = std::fs::read_to_string(examples("demo/scenario.toml")).unwrap();
    let loaded = hexveil_asl::ruleset::Asl.load(&text).unwrap();
    let asl = loaded
        .as_any()
        .downcast_ref::<hexveil_asl::ruleset::AslScenario>()
        .expect("the demo is an ASL scenario");
    std::sync::Arc::clone(&asl.scenario)
}

/// The opening tags of elements whose class list holds `class`.
fn tags<'s>(svg: &'s str, class: &str) -> Vec<&'s str> {
    svg.split('<')
        .filter(|t| attr(t, "class").is_some_and(|c| c.split(' ').any(|w| w == class)))
        .map(|t| t.split('>').next().unwrap_or(t))
        .collect()
}

/// An attribute's value in an opening tag.
fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(
        tag[start..end]
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

/// The hexes of the elements of both classes (`mine` and `revealed`, say).
fn hexes_of(svg: &str, class: &str, and: &str) -> Vec<String> {
    tags(svg, class)
        .into_iter()
        .filter(|t| attr(t, "class").is_some_and(|c| c.split(' ').any(|w| w == and)))
        .filter_map(|t| attr(t, "data-hex"))
        .collect()
}

fn svg_at(file: &Path, step: u64, view: &str) -> String {
    let out = hexveil(&[
        "replay",
        file.to_str().unwrap(),
        "--svg",
        &step.to_string(),
        "--view",
        view,
    ]);
    assert!(
        out.status.success(),
        "--svg {step} --view {view}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = stdout(&out);
    assert!(svg.starts_with("<svg "), "stdout is the SVG alone: {svg}");
    assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
    svg
}

/// Every counter in `svg` stands at the hex the board text gives its unit,
/// its `translate` the hex's centre on the grid (MapPos: `1.5 * s * x`,
/// `sqrt(3)/2 * s * y`); every unit in play has one.
fn counters_match_the_state(
    svg: &str,
    board: &str,
    scenario: &hexveil_asl::model::scenario::Scenario,
    what: &str,
) {
    let root = svg.split('>').next().unwrap();
    let size: f64 = attr(root, "data-hex-size").unwrap().parse().unwrap();
    let units = board
        .split("\nunits (")
        .nth(1)
        .unwrap_or_else(|| panic!("{what}: no units list in {board}"));
    let mut in_play = 0;
    for line in units.lines().skip(1) {
        let at = line
            .split_whitespace()
            .skip(1)
            .find(|w| *w == "-" || w.parse::<Hex>().is_ok());
        if at.is_some_and(|a| a != "-") {
            in_play += 1;
        }
    }
    let counters = tags(svg, "counter");
    assert_eq!(
        counters.len(),
        in_play,
        "{what}: one counter per unit in play\n{units}"
    );
    for c in counters {
        let name = attr(c, "data-unit").unwrap();
        let hex = attr(c, "data-hex").unwrap();
        let line = units
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{what}: {name} is not in {units}"));
        assert!(
            line.split_whitespace().any(|w| w == hex),
            "{what}: {name}'s counter is in {hex}, the state says {line}"
        );
        let p = scenario.map.pos(hex.parse().unwrap()).unwrap();
        let want = format!(
            "translate({:.1},{:.1})",
            1.5 * size * f64::from(p.x),
            3f64.sqrt() / 2.0 * size * f64::from(p.y)
        );
        assert_eq!(
            attr(c, "transform").as_deref(),
            Some(want.as_str()),
            "{what}: {name} drawn at its hex {hex}"
        );
    }
}

// Issue 12, G3, B28.41, B28.45: the demo's board drawn at several steps in
// the public view, side A's and everything's; each checked against the
// state; the hidden A-P minefield of side B in 3E4 (never entered) is
// never drawn where the view may not see it, and 3E3's is drawn only once
// the attack revealed it.
#[test]
fn g3_issue_12_svg_of_the_demo_matches_the_state_and_draws_no_sealed_mine() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.transcript");
    let out = hexveil(&["demo", "--out", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stdout(&out));
    let scenario = demo_scenario();

    // The steps: the setups, then every few rulings, and the last entry.
    let story = stdout(&hexveil(&["replay", file.to_str().unwrap()]));
    let rulings: Vec<u64> = story
        .lines()
        .filter(|l| l.contains(" server: ruling on action"))
        .filter_map(|l| l.strip_prefix('#')?.split(' ').next()?.parse().ok())
        .collect();
    assert!(rulings.len() > 5, "{story}");
    let last: u64 = story
        .lines()
        .filter_map(|l| l.strip_prefix('#')?.split(' ').next()?.parse().ok())
        .max()
        .unwrap();
    let mut steps = vec![8];
    steps.extend(rulings.iter().step_by(4).copied());
    steps.push(last);

    let mut e3_seen_at = None;
    for &step in &steps {
        let board = stdout(&hexveil(&[
            "replay",
            file.to_str().unwrap(),
            "--board",
            "--step",
            &step.to_string(),
        ]));
        assert!(
            board.contains(&format!("after log entry #{step}")),
            "{board}"
        );
        let public = svg_at(&file, step, "public");
        let a = svg_at(&file, step, "A");
        let all = svg_at(&file, step, "all");
        for (view, svg) in [("public", &public), ("A", &a), ("all", &all)] {
            let what = format!("step {step}, view {view}");
            // The units are public in the demo: every view draws them all.
            counters_match_the_state(svg, &board, &scenario, &what);
            assert!(svg.contains("class=\"coord\""), "{what}: coordinates");
        }
        for (view, svg) in [("public", &public), ("A", &a)] {
            // G3: nothing side B sealed, in any form, in a view that may
            // not see it.
            assert!(
                tags(svg, "sealed").is_empty(),
                "step {step}, view {view}: a sealed content drawn"
            );
            assert!(
                !hexes_of(svg, "mine", "ap").contains(&"3E4".to_string()),
                "step {step}, view {view}: B's hidden A-P minefield in 3E4 drawn"
            );
            // B28.531: a Daisy Chain is secret until it attacks or is
            // revealed; nothing told only to the referee or to B is drawn.
            assert!(
                !tags(svg, "daisy-chain")
                    .iter()
                    .any(|t| attr(t, "class").is_some_and(|c| c.split(' ').any(|w| w == "placed"))),
                "step {step}, view {view}: B's secret Daisy Chain drawn"
            );
            assert!(
                !svg.contains("referee only") && !svg.contains("side B only"),
                "step {step}, view {view}: a sealed event told"
            );
            // A revealed minefield is drawn where the state shows it.
            let revealed = hexes_of(svg, "mine", "revealed");
            for hex in ["3E3", "3C3"] {
                let in_state = board.lines().any(|l| {
                    l.trim_start().starts_with(&format!("{hex} ")) && l.contains("A-P mines")
                });
                assert_eq!(
                    revealed.contains(&hex.to_string()),
                    in_state,
                    "step {step}, view {view}: A-P mines in {hex} (B28.41, B28.45)"
                );
            }
        }
        if hexes_of(&public, "mine", "revealed").contains(&"3E3".to_string()) {
            e3_seen_at.get_or_insert(step);
        }
        // After the end, everything: B's sealed minefields, 3E4 included.
        assert!(
            hexes_of(&all, "sealed", "ap").contains(&"3E4".to_string()),
            "step {step}: --view all draws the revealed secrets"
        );
    }
    // The hidden minefield in 3E3 is drawn once A's squad entered it, not
    // before (B28.41); the first step shows none.
    let seen = e3_seen_at.expect("3E3's A-P mines are revealed in the demo");
    assert!(seen > steps[0], "{seen}");

    // Side B's own view shows its own sealed minefields (its own secrets).
    let b = svg_at(&file, last, "B");
    assert!(hexes_of(&b, "sealed", "ap").contains(&"3E4".to_string()));
    // The last action is highlighted: A's move into 3E3 and the ruling on
    // it mark 3E3.
    let moved = story
        .lines()
        .find(|l| l.contains("side A: moves ger-squad-1, ger-leader into 3E3"))
        .and_then(|l| l.strip_prefix('#')?.split(' ').next())
        .expect("the demo's move into 3E3");
    let ruled: u64 = story
        .lines()
        .find(|l| l.ends_with(&format!("server: ruling on action #{moved}")))
        .and_then(|l| l.strip_prefix('#')?.split(' ').next()?.parse().ok())
        .expect("its ruling");
    let lit: Vec<String> = tags(&svg_at(&file, ruled, "public"), "last-action")
        .iter()
        .filter_map(|t| attr(t, "data-hex"))
        .collect();
    assert!(lit.contains(&"3E3".to_string()), "{lit:?}");
    // R56: the demo's dice decide the winner (A holds 3E5 and 3E6 about
    // nine games in ten); the last picture names the one the log names.
    let over = story
        .lines()
        .find_map(|l| l.split_once("server: the game is over: ").map(|(_, r)| r))
        .expect("the demo's game-over entry");
    assert!(
        over.starts_with("side A wins") || over.starts_with("side B wins"),
        "{over}"
    );
    assert!(
        svg_at(&file, last, "public").contains(&format!(
            "the game is over: {}",
            over.replace('&', "&amp;").replace('\'', "&apos;")
        )),
        "the last picture names the log's result: {over}"
    );
}

// --out writes the file and says so; a view that is no view is refused
// with exit 2 and nothing drawn; `all` needs a complete game (G3).
#[test]
fn svg_goes_to_a_file_and_a_bad_view_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.transcript");
    assert!(hexveil(&["demo", "--out", file.to_str().unwrap()])
        .status
        .success());
    let pic = dir.path().join("board.svg");
    let out = hexveil(&[
        "replay",
        file.to_str().unwrap(),
        "--svg",
        "20",
        "--out",
        pic.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("wrote the board after log entry #20 (public view)"));
    let svg = std::fs::read_to_string(&pic).unwrap();
    assert!(svg.starts_with("<svg ") && svg.contains("data-view=\"public view\""));
    let bad = hexveil(&[
        "replay",
        file.to_str().unwrap(),
        "--svg",
        "20",
        "--view",
        "C",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stdout(&bad).is_empty());

    // G3: everything is revealed only after the end. A transcript cut
    // before the end and the reveals is drawn for the public (exit 3,
    // INCOMPLETE, as `verify`), never with --view all.
    let bytes = std::fs::read(&file).unwrap();
    let mut starts = vec![];
    let mut at = 10;
    while at + 4 <= bytes.len() {
        starts.push(at);
        at += 4 + u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    }
    let cut = dir.path().join("cut.transcript");
    std::fs::write(&cut, &bytes[..starts[starts.len() / 2]]).unwrap();
    let c = cut.to_str().unwrap();
    let public = hexveil(&["replay", c, "--svg", "30"]);
    assert_eq!(public.status.code(), Some(3));
    assert!(stdout(&public).starts_with("<svg "));
    let all = hexveil(&["replay", c, "--svg", "30", "--view", "all"]);
    assert_eq!(all.status.code(), Some(2));
    assert!(stdout(&all).is_empty());
    assert!(String::from_utf8_lossy(&all.stderr).contains("complete, clean game"));
}

// Issue 12, G3: the miniatures demo's table drawn in inches: each figure
// at the position the state gives it (12 px to the inch), and no side's
// sealed mined cells in the public view, only A's own in A's.
#[test]
fn g3_issue_12_svg_of_the_miniatures_demo_draws_figures_in_inches() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("minis.transcript");
    let out = hexveil(&[
        "demo",
        "--ruleset",
        "minis",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stdout(&out));
    let board = stdout(&hexveil(&["replay", file.to_str().unwrap(), "--board"]));
    let public = svg_at(&file, 10_000, "public");
    let a = svg_at(&file, 10_000, "A");
    let all = svg_at(&file, 10_000, "all");
    let figures = tags(&public, "figure");
    assert!(!figures.is_empty(), "{public}");
    for f in figures {
        let name = attr(f, "data-figure").unwrap();
        let at = attr(f, "data-at").unwrap();
        let line = board
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in {board}"));
        assert!(
            line.contains(&format!(" at {at} ")),
            "{name} at {at}: {line}"
        );
        let (x, y) = at.split_once(',').unwrap();
        let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
        let circle = &public[public.find(&format!("data-figure=\"{name}\"")).unwrap()..];
        let circle = &circle[circle.find("<circle").unwrap()..];
        assert!(
            circle.starts_with(&format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\"",
                x * 12.0,
                y * 12.0
            )),
            "{name}: {}",
            &circle[..60]
        );
    }
    assert!(tags(&public, "sealed").is_empty(), "G3: public view");
    for t in tags(&a, "sealed") {
        assert!(
            attr(t, "data-owner").as_deref() == Some("A"),
            "G3: A's view draws only A's own sealed cells: {t}"
        );
    }
    assert!(tags(&all, "sealed").len() > tags(&a, "sealed").len());
}

// Issue 12: `--svg STEP --png FILE` renders the same picture as PNG: the
// file decodes, is the SVG's size times --scale, is not blank (its pixels
// vary, and the labels are drawn: the counters' white text on their side's
// colour), and says what it wrote. `--out x.png` (SVG text in a .png
// file) and a scale out of range are refused with exit 2 and nothing
// written; --view all still needs a complete game (G3).
#[test]
fn issue_12_png_of_the_demo_board_decodes_and_is_not_blank() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo(dir.path(), "asl");
    let svg = svg_at(Path::new(&file), 40, "public");
    let root = svg.split('>').next().unwrap();
    let (w, h): (u32, u32) = (
        attr(root, "width").unwrap().parse().unwrap(),
        attr(root, "height").unwrap().parse().unwrap(),
    );
    let png = dir.path().join("board.png");
    let out = hexveil(&[
        "replay",
        &file,
        "--svg",
        "40",
        "--png",
        png.to_str().unwrap(),
        "--scale",
        "1.5",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("wrote the board after log entry #40 (public view) to")
            && stdout(&out).ends_with("(PNG)\n"),
        "{}",
        stdout(&out)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG signature");
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&bytes).unwrap();
    assert_eq!(
        (pixmap.width(), pixmap.height()),
        (
            (w as f32 * 1.5).ceil() as u32,
            (h as f32 * 1.5).ceil() as u32
        )
    );
    let colours: std::collections::BTreeSet<[u8; 4]> = pixmap
        .pixels()
        .iter()
        .map(|p| [p.red(), p.green(), p.blue(), p.alpha()])
        .collect();
    assert!(colours.len() > 50, "{} colours: blank", colours.len());
    // The labels are drawn: the caption under the map (black text on the
    // background, nothing else is drawn there) has dark pixels.
    let caption = tags(&svg, "caption")[0];
    let top: f32 = attr(caption, "y").unwrap().parse::<f32>().unwrap() - 12.0;
    let first_row = (top * 1.5) as usize * pixmap.width() as usize;
    let dark = pixmap.pixels()[first_row..]
        .iter()
        .filter(|p| p.red() < 80 && p.green() < 80 && p.blue() < 80)
        .count();
    assert!(dark > 200, "the caption's text: {dark} dark pixels");

    let wrong = dir.path().join("wrong.png");
    let refused = hexveil(&[
        "replay",
        &file,
        "--svg",
        "40",
        "--out",
        wrong.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("use --png"),
        "{}",
        stderr(&refused)
    );
    assert!(!wrong.exists());
    let scale = hexveil(&[
        "replay",
        &file,
        "--svg",
        "40",
        "--png",
        wrong.to_str().unwrap(),
        "--scale",
        "0",
    ]);
    assert_eq!(scale.status.code(), Some(2));
    assert!(!wrong.exists());
}
