//! Board pictures: the board of a game at one step drawn as SVG text
//! (`hexveil replay FILE --svg STEP`, docs/PLAYING.md), for the ASL
//! geomorphic map and the miniatures table.
//!
//! # What a picture may show (G3)
//!
//! The renderer draws only the state it is handed: the public state the
//! client folds for [`super::board`] (the same fold `hexveil board` and
//! `replay --board` use), folded for one reader, so a view holds nothing
//! its reader was not told. The only other input is `sealed`: the
//! contents the sides revealed after the end, which the caller passes for
//! `all` (a complete game) and, for a side's view, that side's own
//! contents only (its own secrets, which it always knew). Nothing else
//! sealed reaches this module, so it cannot draw it.
//!
//! # Geometry
//!
//! Flat-topped hexes of size [`HEX_SIZE`] (centre to corner), the centre
//! of a hex at `(1.5 * s * x, sqrt(3)/2 * s * y)` in the map's global
//! doubled coordinates (`hexveil_asl` `MapPos`, `Map::pos`). A miniatures
//! table is drawn at [`PX_PER_INCH`] pixels per inch, (0, 0) in the top
//! left corner.

use crate::board::{AslBoard, Board, MinisBoard};
use crate::narrate::Reader;
use hexveil_asl::board::terrain::Terrain;
use hexveil_asl::content::from_kernel;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::{Content, DaisyNote};
use hexveil_asl::{Hex, Side};
use hexveil_minis::{Cell, CellMines};
use std::fmt::Write as _;

/// Hex size in pixels: centre to corner (half the flat-to-flat width's
/// 2/sqrt(3)).
pub const HEX_SIZE: f64 = 28.0;

/// A counter's name as its counter shows it (issue 29): at most
/// [`Fitted::MAX_CHARS`] characters, a longer one cut with `…` and squeezed
/// to the counter's width, so it never runs over a neighbour hex (the
/// counter's `<title>` and the viewer's stack list have it whole).
struct Fitted {
    /// The text drawn.
    text: String,
    /// The attributes that hold it to the counter's width (empty when it
    /// fits as it is).
    squeeze: &'static str,
}

impl Fitted {
    /// The most characters a counter's name line shows.
    const MAX_CHARS: usize = 12;
    /// Names this long or longer are held to the counter's width.
    const SQUEEZE_FROM: usize = 10;

    fn new(name: &str) -> Fitted {
        let chars = name.chars().count();
        let text = if chars > Self::MAX_CHARS {
            let mut cut: String = name.chars().take(Self::MAX_CHARS - 1).collect();
            cut.push('\u{2026}');
            cut
        } else {
            name.to_string()
        };
        let squeeze = if chars >= Self::SQUEEZE_FROM {
            " textLength=\"27\" lengthAdjust=\"spacingAndGlyphs\""
        } else {
            ""
        };
        Fitted { text, squeeze }
    }
}

/// Miniatures table scale.
pub const PX_PER_INCH: f64 = 12.0;

/// Room around the map and below it (caption, units off the map).
const MARGIN: f64 = 20.0;

/// Which view a picture is drawn for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvgView {
    /// What a spectator sees: public events only.
    Public,
    /// What one side sees: public events and its own.
    Side(Side),
    /// Everything, the sides' revealed secrets included (only after the
    /// end of a complete game).
    All,
}

impl SvgView {
    /// `public`, `A`, `B` or `all`.
    pub fn parse(word: &str) -> Option<SvgView> {
        match word.to_ascii_lowercase().as_str() {
            "public" => Some(SvgView::Public),
            "a" => Some(SvgView::Side(Side::A)),
            "b" => Some(SvgView::Side(Side::B)),
            "all" => Some(SvgView::All),
            _ => None,
        }
    }

    /// The narrator's reader for this view (the fold's filter).
    pub fn reader(self) -> Reader {
        match self {
            SvgView::Public => Reader::Spectator,
            SvgView::Side(s) => Reader::Player(s),
            SvgView::All => Reader::Everything,
        }
    }

    /// Whether this view may see the secrets `owner` sealed (G3): its own
    /// side's, or everything after the end.
    pub fn sees_sealed_of(self, owner: Side) -> bool {
        match self {
            SvgView::Public => false,
            SvgView::Side(s) => s == owner,
            SvgView::All => true,
        }
    }

    /// The view in words (`public view`, `side A's view`, ...).
    pub fn words(self) -> String {
        match self {
            SvgView::Public => "public view".into(),
            SvgView::Side(s) => format!("side {s}'s view"),
            SvgView::All => "everything revealed".into(),
        }
    }
}

/// A sealed content a side revealed after the end: its owner, the
/// location named and the content bytes (`RevealBody` layers).
#[derive(Clone, Debug)]
pub struct SealedFact {
    /// The side that sealed it.
    pub owner: Side,
    /// The location name (a hex, a cell key, a board).
    pub location: String,
    /// The content.
    pub content: hexveil_core::Content,
}

/// Escapes text for SVG character data and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The centre of `hex` in picture coordinates (before the map's offset),
/// `None` for a hex on no board of the map.
pub fn hex_centre(scenario: &Scenario, hex: Hex) -> Option<(f64, f64)> {
    let p = scenario.map.pos(hex)?;
    Some((
        1.5 * HEX_SIZE * f64::from(p.x),
        3f64.sqrt() / 2.0 * HEX_SIZE * f64::from(p.y),
    ))
}

/// A picture in three pieces: `head` (the `<svg>` element opened, its
/// title, the map's group opened), `ground` (what every step of a game
/// draws alike: the hexes with their terrain and coordinates, or the
/// table and its inch marks) and `tail` (the rest: the last action's
/// hexes, markers, counters, captions, and the elements closed).
/// `head + ground + tail` is the picture [`board_svg`] gives; the replay
/// page ([`crate::replay`]) keeps one `ground` for all its steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgParts {
    /// Up to the ground.
    pub head: String,
    /// The same at every step of a game (no reader's knowledge in it: the
    /// scenario's map or table only).
    pub ground: String,
    /// After the ground.
    pub tail: String,
}

impl SvgParts {
    /// The whole picture.
    pub fn joined(&self) -> String {
        let mut out = String::with_capacity(self.head.len() + self.ground.len() + self.tail.len());
        out.push_str(&self.head);
        out.push_str(&self.ground);
        out.push_str(&self.tail);
        out
    }
}

/// The picture of `board` (an ASL map or a miniatures table) for `view`.
/// `step` is the log entry drawn after; `sealed` what the view may see
/// of the sides' revealed secrets (the caller filters by
/// [`SvgView::sees_sealed_of`], e.g. with [`sealed_facts`]; this function
/// filters again).
pub fn board_svg(board: &Board, view: SvgView, step: u64, sealed: &[SealedFact]) -> String {
    board_svg_parts(board, view, step, sealed).joined()
}

/// [`board_svg`] in its three pieces (see [`SvgParts`]).
pub fn board_svg_parts(board: &Board, view: SvgView, step: u64, sealed: &[SealedFact]) -> SvgParts {
    let sealed: Vec<&SealedFact> = sealed
        .iter()
        .filter(|f| view.sees_sealed_of(f.owner))
        .collect();
    let mut caption = vec![format!("after log entry #{step}, {}", view.words())];
    if let Some(r) = board.result() {
        caption.push(format!("the game is over: {r}"));
    }
    if board.last_lines().is_empty() {
        caption.push("last action: none yet".into());
    } else {
        caption.push("last action:".into());
        caption.extend(board.last_lines().iter().map(|l| format!("  {l}")));
    }
    if let Some(b) = board.asl() {
        caption.insert(0, b.when());
        asl_svg(b, view, &caption, &sealed, board.result().is_some())
    } else if let Some(b) = board.minis() {
        caption.insert(0, b.when());
        minis_svg(b, view, &caption, &sealed, board.result().is_some())
    } else {
        let mut head = String::new();
        open_svg(&mut head, 400.0, 60.0, view, None, None);
        let _ = writeln!(
            head,
            "<text x=\"10\" y=\"30\">this client cannot draw this ruleset's board</text>"
        );
        SvgParts {
            head,
            ground: String::new(),
            tail: "</svg>\n".into(),
        }
    }
}

/// The sealed contents the sides revealed after the end that `view` may
/// see (G3): none unless the transcript is `complete_and_clean` (every
/// reveal audited against its commitments, G5); then both sides' for
/// [`SvgView::All`], a side's own for its view, none for the public.
/// `reveals` are the Reveal entries by side, as
/// [`crate::board::Folded::reveals`] holds them. What `hexveil replay
/// --svg` and the replay page both draw.
pub fn sealed_facts(
    view: SvgView,
    reveals: &[(Side, hexveil_protocol::message::RevealBody)],
    complete_and_clean: bool,
) -> Vec<SealedFact> {
    if !complete_and_clean {
        return Vec::new();
    }
    reveals
        .iter()
        .filter(|(owner, _)| view.sees_sealed_of(*owner))
        .flat_map(|(owner, r)| {
            r.layers.iter().flat_map(move |l| {
                l.contents.iter().map(move |(loc, c)| SealedFact {
                    owner: *owner,
                    location: loc.clone(),
                    content: hexveil_core::Content(*c),
                })
            })
        })
        .collect()
}

/// The `<svg>` element's opening tag, its background and, for a named
/// scenario, its `<title>` (the scenario's name and the view).
/// `data-reader` (`A`, `B`, `public`, `all`) and `data-to-act` (the side
/// to act, absent once the game is over) tell the viewer ([`crate::viewer`])
/// which units to open on (issue 29: a player's own, else the side to act's).
fn open_svg(
    out: &mut String,
    w: f64,
    h: f64,
    view: SvgView,
    name: Option<&str>,
    to_act: Option<Side>,
) {
    let reader = match view {
        SvgView::Public => "public".to_string(),
        SvgView::Side(s) => s.to_string(),
        SvgView::All => "all".to_string(),
    };
    let to_act = to_act
        .map(|s| format!(" data-to-act=\"{s}\""))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"sans-serif\" \
         data-view=\"{}\" data-reader=\"{reader}\"{to_act} data-hex-size=\"{HEX_SIZE}\">",
        escape(&view.words())
    );
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"#fafaf5\"/>"
    );
    if let Some(name) = name {
        let _ = writeln!(
            out,
            "<title>{}</title>",
            escape(&format!("{name} ({})", view.words()))
        );
    }
}

fn terrain_fill(t: Terrain) -> &'static str {
    match t {
        Terrain::Open => "#e8e6c8",
        Terrain::Grain => "#e9d98a",
        Terrain::Brush => "#b9c98a",
        Terrain::Orchard => "#a9cc8a",
        Terrain::Woods => "#6f9a55",
        Terrain::WoodenBuilding => "#b08a5a",
        Terrain::StoneBuilding => "#9a9a9a",
        Terrain::Rubble | Terrain::StoneRubble => "#c0b0a0",
        Terrain::Marsh => "#9ec3b8",
        Terrain::Crag => "#8a7f70",
        Terrain::Water => "#8ab4dc",
    }
}

fn side_fill(s: Side) -> &'static str {
    match s {
        Side::A => "#5a6fa8",
        Side::B => "#a85a5a",
    }
}

/// Writes caption lines from `y` on.
fn caption_lines(out: &mut String, x: f64, mut y: f64, lines: &[String]) {
    for l in lines {
        let _ = writeln!(
            out,
            "<text class=\"caption\" x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"11\">{}</text>",
            escape(l)
        );
        y += 14.0;
    }
}

/// The ASL picture: every hex of the scenario's boards with its terrain
/// and coordinate, the public markers, the units as counters, the
/// eliminated ones listed below the map, the last action's hexes
/// highlighted.
/// `over` once the game has ended (no side to act).
fn asl_svg(
    b: &AslBoard,
    view: SvgView,
    caption: &[String],
    sealed: &[&SealedFact],
    over: bool,
) -> SvgParts {
    let scenario = b.scenario();
    let state = &b.state;
    let hexes = scenario.map.all_hexes();
    let centres: Vec<(Hex, (f64, f64))> = hexes
        .iter()
        .filter_map(|h| Some((*h, hex_centre(scenario, *h)?)))
        .collect();
    let s = HEX_SIZE;
    let h2 = 3f64.sqrt() / 2.0 * s;
    let min_x = centres.iter().map(|c| c.1 .0).fold(f64::MAX, f64::min) - s;
    let max_x = centres.iter().map(|c| c.1 .0).fold(f64::MIN, f64::max) + s;
    let min_y = centres.iter().map(|c| c.1 .1).fold(f64::MAX, f64::min) - h2;
    let max_y = centres.iter().map(|c| c.1 .1).fold(f64::MIN, f64::max) + h2;
    let (min_x, max_x, min_y, max_y) = if centres.is_empty() {
        (0.0, 400.0, 0.0, 100.0)
    } else {
        (min_x, max_x, min_y, max_y)
    };
    let off: Vec<_> = state
        .units
        .values()
        .filter(|u| u.hex.is_none() && (u.status.eliminated || u.status.captured))
        .collect();
    let map_w = max_x - min_x;
    let map_h = max_y - min_y;
    // The Booby Trap levels the view may see (sealed per board, B28.9).
    let booby: Vec<(&SealedFact, hexveil_asl::model::sealed::BoobyLevel)> = sealed
        .iter()
        .filter_map(|f| match from_kernel(&f.content) {
            Ok(Content::BoobyTraps(level)) => Some((*f, level)),
            _ => None,
        })
        .collect();
    let below = 14.0 * (caption.len() + off.len() + booby.len() + 3) as f64;
    let width = (map_w + 2.0 * MARGIN).max(500.0);
    let height = map_h + 3.0 * MARGIN + below;
    let mut out = String::new();
    let to_act = match (over, b.started()) {
        (true, _) => None,
        (false, true) => Some(state.phasing),
        (false, false) => Some(scenario.first_side()),
    };
    open_svg(&mut out, width, height, view, Some(&scenario.name), to_act);
    let _ = writeln!(
        out,
        "<g class=\"map\" transform=\"translate({:.1},{:.1})\">",
        MARGIN - min_x,
        MARGIN - min_y
    );

    let head = std::mem::take(&mut out);

    // Hexes: terrain, coordinate (the ground: the same at every step).
    let corners = |cx: f64, cy: f64| -> String {
        (0..6)
            .map(|i| {
                let a = std::f64::consts::PI / 3.0 * f64::from(i);
                format!("{:.1},{:.1}", cx + s * a.cos(), cy + s * a.sin())
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (hex, (cx, cy)) in &centres {
        let info = scenario.map.info(*hex);
        let mut terrain = info.terrain.to_string();
        if info.level != 0 {
            terrain.push_str(&format!(", level {}", info.level));
        }
        let f = info.features;
        for (on, w) in [
            (f.paved_road, "paved road"),
            (f.dirt_road, "dirt road"),
            (f.bridge, "bridge"),
        ] {
            if on {
                terrain.push_str(", ");
                terrain.push_str(w);
            }
        }
        let _ = writeln!(
            out,
            "<g class=\"hex\" data-hex=\"{hex}\"><title>{}</title>\
             <polygon points=\"{}\" fill=\"{}\" stroke=\"#777\" stroke-width=\"1\"/>",
            escape(&format!("{hex}: {terrain}")),
            corners(*cx, *cy),
            terrain_fill(info.terrain),
        );
        if f.paved_road || f.dirt_road {
            let _ = writeln!(
                out,
                "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"4\" fill=\"{}\"/>",
                if f.paved_road { "#555" } else { "#a0804a" }
            );
        }
        let _ = writeln!(
            out,
            "<text class=\"coord\" x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"6\" \
             text-anchor=\"middle\" fill=\"#333\">{}</text></g>",
            cy - h2 + 7.0,
            escape(&hex.to_string())
        );
    }

    let ground = std::mem::take(&mut out);

    // The last action's hexes, outlined.
    for (hex, (cx, cy)) in centres.iter().filter(|(h, _)| b.last_hexes.contains(h)) {
        let _ = writeln!(
            out,
            "<g class=\"last-action\" data-hex=\"{hex}\"><title>{}</title>\
             <polygon points=\"{}\" fill=\"none\" stroke=\"#e0a000\" stroke-width=\"3\"/></g>",
            escape(&format!("{hex}: the last action")),
            corners(*cx, *cy)
        );
    }

    // Public markers, then what the view may see of the sealed contents.
    for (hex, mk) in &state.markers {
        let Some((cx, cy)) = hex_centre(scenario, *hex) else {
            continue;
        };
        let mut labels: Vec<(&str, String)> = Vec::new();
        if let Some(side) = mk.known_counter {
            labels.push(("marker known", format!("Known ({side})")));
        }
        match mk.ap_revealed {
            Some(Some(st)) => labels.push(("mine ap revealed", format!("A-P {}", st.factors()))),
            Some(None) => labels.push(("mine ap revealed", "A-P".into())),
            None => {}
        }
        match mk.at_revealed {
            Some(Some(f)) => labels.push(("mine at revealed", format!("A-T {}", f.get()))),
            Some(None) => labels.push(("mine at revealed", "A-T".into())),
            None => {}
        }
        if let Some(side) = mk.at_in_view {
            labels.push(("mine at in-view", format!("A-T in view ({side})")));
        }
        if mk.dummy_marker {
            labels.push(("marker dummy", "Dummy".into()));
        }
        marker_labels(&mut out, *hex, cx, cy, &labels);
    }
    for (hex, tbs) in &state.mines.trail_breaks {
        if let Some((cx, cy)) = hex_centre(scenario, *hex) {
            let labels: Vec<(&str, String)> = tbs
                .iter()
                .map(|tb| {
                    (
                        "marker trail-break",
                        format!("TB {}-{}", tb.ends[0], tb.ends[1]),
                    )
                })
                .collect();
            marker_labels(&mut out, *hex, cx, cy - 15.0, &labels);
        }
    }
    // B28.9: a Booby Trap that went off, where it did.
    for bt in &b.booby_traps {
        let Some((cx, cy)) = hex_centre(scenario, bt.hex) else {
            continue;
        };
        let (x, y) = (cx - s * 0.55, cy + h2 * 0.05);
        let _ = writeln!(
            out,
            "<g class=\"booby-trap attacked\" data-hex=\"{}\" data-owner=\"{}\"><title>{}</title>\
             <polygon points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#d33\" stroke=\"#600\" \
             stroke-width=\"0.8\"/><text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"4.5\" fill=\"#fff\" \
             text-anchor=\"middle\">BT</text></g>",
            bt.hex,
            bt.owner,
            escape(&format!(
                "Booby Trap of side {} (level {:?}) went off in {}: {}'s Task Check, Original DR {} (B28.9)",
                bt.owner,
                bt.level,
                bt.hex,
                b.name(bt.unit),
                bt.original_dr
            )),
            x,
            y - 6.0,
            x - 6.0,
            y + 5.0,
            x + 6.0,
            y + 5.0,
            y + 3.5
        );
    }
    for d in &state.daisy_chains {
        let Some((cx, cy)) = hex_centre(scenario, d.hex) else {
            continue;
        };
        let how = match (d.attacked, d.revealed) {
            (true, _) => "attacked",
            (false, true) => "revealed",
            (false, false) => "placed",
        };
        let _ = writeln!(
            out,
            "<g class=\"daisy-chain {how}\" data-hex=\"{}\" data-owner=\"{}\">\
             <title>{}</title><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" \
             stroke=\"#c00\" stroke-width=\"2\" stroke-dasharray=\"3,2\"/></g>",
            d.hex,
            d.owner,
            escape(&format!(
                "Daisy Chain of side {} ({how}) in {}",
                d.owner, d.hex
            )),
            cx - s * 0.8,
            cy + h2 * 0.55,
            cx + s * 0.8,
            cy + h2 * 0.55
        );
    }
    // What the view may see of the sealed contents (a player's own; all
    // after the end): one short tag per kind, in the band under the hex's
    // coordinate, clear of it, of the counters and of the Known labels
    // at the hex's foot (issue 29).
    let mut tags: std::collections::BTreeMap<Hex, Vec<SealedTag>> =
        std::collections::BTreeMap::new();
    for f in sealed {
        let Ok(content) = from_kernel(&f.content) else {
            continue;
        };
        let (hex, class, tag, words) = match content {
            Content::Empty | Content::Daisy(DaisyNote::Nothing) | Content::BoobyTraps(_) => {
                continue
            }
            Content::ApMines(st) => (
                f.location.parse::<Hex>().ok(),
                "sealed mine ap",
                format!("A-P {}", st.factors()),
                format!("A-P minefield of {} factors, B28.1", st.factors()),
            ),
            Content::AtMines(n) => (
                f.location.parse::<Hex>().ok(),
                "sealed mine at",
                format!("A-T {}", n.get()),
                format!("A-T mines of {} factors, B28.5", n.get()),
            ),
            Content::Dummy => (
                f.location.parse::<Hex>().ok(),
                "sealed dummy",
                "Dummy".into(),
                "a Known counter that is a Dummy, B28.47".into(),
            ),
            Content::Daisy(DaisyNote::Placed { hex, .. }) => (
                Some(hex),
                "sealed daisy-chain",
                "DC".into(),
                "a Daisy Chain noted, B28.531".into(),
            ),
        };
        let Some(hex) = hex else { continue };
        tags.entry(hex).or_default().push(SealedTag {
            class,
            title: format!("{tag} (sealed): {words}, side {}'s, in {hex}", f.owner),
            tag,
            owner: f.owner,
        });
    }
    for (hex, list) in &tags {
        if let Some((cx, cy)) = hex_centre(scenario, *hex) {
            sealed_tags(&mut out, Some(*hex), cx, cy - h2 + 8.9, list);
        }
    }
    // A sealed Booby Trap level (per board, B28.9): a tag at the board's
    // top left corner, outside its first hex's coordinate.
    for (f, level) in &booby {
        let board = f.location.trim_start_matches(|c: char| !c.is_ascii_digit());
        let corner = centres
            .iter()
            .filter(|(h, _)| h.board.to_string() == board)
            .map(|(_, c)| *c)
            .fold(None, |acc: Option<(f64, f64)>, (x, y)| {
                Some(acc.map_or((x, y), |(ax, ay)| (ax.min(x), ay.min(y))))
            });
        if let Some((x, y)) = corner {
            let list = [SealedTag {
                class: "sealed booby-trap-tag",
                tag: format!("BT {level:?}"),
                title: format!(
                    "side {}'s Booby Traps on board {board}: level {level:?} (sealed, B28.9)",
                    f.owner
                ),
                owner: f.owner,
            }];
            sealed_tags(&mut out, None, x - s + 10.0, y - h2 + 1.0, &list);
        }
    }

    // Units on the map, stacked per hex; a passenger shown in its vehicle's hex.
    let mut stacks: std::collections::BTreeMap<Hex, Vec<&hexveil_asl::model::unit::Unit>> =
        std::collections::BTreeMap::new();
    for u in state.units.values().filter(|u| u.in_play()) {
        if let Some(h) = u.hex {
            stacks.entry(scenario.map.canonical(h)).or_default().push(u);
        }
    }
    for (hex, units) in &stacks {
        let Some((cx, cy)) = hex_centre(scenario, *hex) else {
            continue;
        };
        for (i, u) in units.iter().enumerate() {
            let name = b.name(u.id);
            let mut st = Vec::new();
            if u.status.broken {
                st.push("BRK");
            }
            if u.status.pinned {
                st.push("PIN");
            }
            if u.status.disrupted {
                st.push("DIS");
            }
            if u.status.concealed {
                st.push("?");
            }
            if u.vehicle().is_some_and(|v| v.immobilized) {
                st.push("IMM");
            }
            if u.status.aboard.is_some() {
                st.push("aboard");
            }
            let said = b.states(u);
            let state_words = if said.is_empty() {
                "Good Order".to_string()
            } else {
                said
            };
            // A stack fanned out (issue 27): each counter below and right
            // of the one under it by a line of text, so every unit's name
            // shows; the viewer lists the whole stack beside the board.
            let dx = 3.0 * i as f64;
            let dy = 10.0 * i as f64;
            // Issue 29: a long name ("id:7 (2-3-7 HS, replaced ...)") is
            // cut to fit its counter; the counter's title has it whole.
            let fit = Fitted::new(&name);
            let _ = writeln!(
                out,
                "<g class=\"counter\" data-unit=\"{}\" data-side=\"{}\" data-hex=\"{hex}\" \
                 data-state=\"{}\" data-stack=\"{}/{}\" transform=\"translate({cx:.1},{cy:.1})\">\
                 <title>{}</title>\
                 <rect x=\"{:.1}\" y=\"{:.1}\" width=\"30\" height=\"22\" rx=\"2\" fill=\"{}\" \
                 stroke=\"{}\" stroke-width=\"1\"/>\
                 <text class=\"name\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"5\" fill=\"#fff\" text-anchor=\"middle\"{}>{}</text>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"5\" fill=\"#fff\" text-anchor=\"middle\">{}</text>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"5\" fill=\"#ff0\" text-anchor=\"middle\">{}</text></g>",
                escape(&name),
                u.side,
                escape(&state_words),
                i + 1,
                units.len(),
                escape(&format!(
                    "{name} (side {}, {}) in {hex}: {state_words}",
                    u.side,
                    u.label()
                )),
                dx - 15.0,
                dy - 9.0,
                side_fill(u.side),
                if u.status.broken { "#f00" } else { "#222" },
                dx,
                dy - 2.0,
                fit.squeeze,
                escape(&fit.text),
                dx,
                dy + 4.0,
                escape(&u.label()),
                dx,
                dy + 10.0,
                escape(&st.join(" "))
            );
        }
    }
    out.push_str("</g>\n");

    // Below the map: the caption, the sealed Booby Trap levels the view
    // may see, then the units off the map.
    let mut y = map_h + 2.0 * MARGIN + 4.0;
    caption_lines(&mut out, MARGIN, y, caption);
    y += 14.0 * caption.len() as f64 + 6.0;
    for (f, level) in &booby {
        let board = f.location.strip_prefix("board").unwrap_or(&f.location);
        let _ = writeln!(
            out,
            "<text class=\"sealed booby-trap\" data-board=\"{}\" data-owner=\"{}\" x=\"{MARGIN:.1}\" \
             y=\"{y:.1}\" font-size=\"11\" fill=\"#900\">{}</text>",
            escape(board),
            f.owner,
            escape(&format!(
                "side {}'s Booby Traps on board {board}: level {level:?} (sealed, B28.9)",
                f.owner
            ))
        );
        y += 14.0;
    }
    if !off.is_empty() {
        let _ = writeln!(
            out,
            "<text class=\"caption\" x=\"{MARGIN:.1}\" y=\"{y:.1}\" font-size=\"11\" \
             font-weight=\"bold\">off the map:</text>"
        );
        for u in off {
            y += 14.0;
            let how = if u.status.captured {
                "captured"
            } else {
                "eliminated"
            };
            let _ = writeln!(
                out,
                "<text class=\"off-map\" data-unit=\"{}\" data-side=\"{}\" x=\"{:.1}\" y=\"{y:.1}\" \
                 font-size=\"11\">{}</text>",
                escape(&b.name(u.id)),
                u.side,
                MARGIN + 10.0,
                escape(&format!("{} (side {}, {}): {how}", b.name(u.id), u.side, u.label()))
            );
        }
    }
    out.push_str("</svg>\n");
    SvgParts {
        head,
        ground,
        tail: out,
    }
}

/// One sealed content's tag: its class, its short text, its title.
struct SealedTag {
    class: &'static str,
    tag: String,
    title: String,
    owner: Side,
}

/// Sealed tags side by side (in `hex`, if any), centred on `cx`, their
/// top at `top`, on a dark ground (a side's own secret, unlike the public markers' yellow).
fn sealed_tags(out: &mut String, hex: Option<Hex>, cx: f64, top: f64, tags: &[SealedTag]) {
    const CHAR: f64 = 2.7;
    const GAP: f64 = 1.0;
    const ROOM: f64 = 34.0;
    let widths: Vec<f64> = tags
        .iter()
        .map(|t| CHAR * t.tag.chars().count() as f64 + 3.0)
        .collect();
    let total: f64 = widths.iter().sum::<f64>() + GAP * (tags.len().saturating_sub(1)) as f64;
    let k = if total > ROOM { ROOM / total } else { 1.0 };
    let mut x = cx - total * k / 2.0;
    for (t, w) in tags.iter().zip(widths) {
        let w = w * k;
        let at = hex
            .map(|h| format!(" data-hex=\"{h}\""))
            .unwrap_or_default();
        let squeeze = if k < 1.0 {
            format!(
                " textLength=\"{:.1}\" lengthAdjust=\"spacingAndGlyphs\"",
                w - 2.0
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "<g class=\"{}\"{at} data-owner=\"{}\" data-tag=\"{}\"><title>{}</title>\
             <rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{w:.1}\" height=\"6\" rx=\"1.2\" fill=\"#4a1260\"/>\
             <text class=\"tag\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"4.8\" fill=\"#fff\" \
             text-anchor=\"middle\"{squeeze}>{}</text></g>",
            t.class,
            t.owner,
            escape(&t.tag),
            escape(&t.title),
            x + w / 2.0,
            top + 4.7,
            escape(&t.tag)
        );
        x += w + GAP * k;
    }
}

/// Marker labels in a hex, stacked up from its bottom edge (`cy` the
/// hex's centre, moved up for a second kind of marker), clear of the hex's
/// coordinate at its top (issue 27).
fn marker_labels(out: &mut String, hex: Hex, cx: f64, cy: f64, labels: &[(&str, String)]) {
    for (i, (class, text)) in labels.iter().enumerate() {
        let y = cy + 20.5 - 7.5 * i as f64;
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-hex=\"{hex}\"><title>{}</title>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"36\" height=\"7\" fill=\"#fff3b0\" stroke=\"#a00\" \
             stroke-width=\"0.5\"/><text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"5\" \
             text-anchor=\"middle\" fill=\"#a00\">{}</text></g>",
            escape(&format!("{text} in {hex}")),
            cx - 18.0,
            y - 5.5,
            y,
            escape(text)
        );
    }
}

/// The miniatures picture: the table in inches, the open mines by cell,
/// the figures at their positions (what the view may see of the sealed
/// cells too).
fn minis_svg(
    b: &MinisBoard,
    view: SvgView,
    caption: &[String],
    sealed: &[&SealedFact],
    over: bool,
) -> SvgParts {
    let sc = b.scenario();
    let k = PX_PER_INCH;
    let tw = f64::from(sc.width) * k;
    let td = f64::from(sc.depth) * k;
    let below = 14.0 * (caption.len() + 1) as f64;
    let width = (tw + 2.0 * MARGIN).max(500.0);
    let height = td + 3.0 * MARGIN + below;
    let mut out = String::new();
    let to_act = (!(over || b.over)).then(|| b.public().active());
    open_svg(&mut out, width, height, view, Some(&sc.name), to_act);
    let _ = writeln!(
        out,
        "<g class=\"table\" transform=\"translate({MARGIN:.1},{MARGIN:.1})\">"
    );
    let head = std::mem::take(&mut out);
    let _ = writeln!(
        out,
        "<rect width=\"{tw:.1}\" height=\"{td:.1}\" fill=\"#d8e0c0\" stroke=\"#555\"/>"
    );
    // Inch ticks every 6 inches.
    let mut i = 0u16;
    while i <= sc.width {
        let x = f64::from(i) * k;
        let _ = writeln!(
            out,
            "<text class=\"coord\" x=\"{x:.1}\" y=\"-4\" font-size=\"7\" text-anchor=\"middle\">{i}\"</text>"
        );
        i = i.saturating_add(6);
        if i == u16::MAX {
            break;
        }
    }
    let ground = std::mem::take(&mut out);
    let cell_rect = |out: &mut String, c: Cell, class: &str, extra: &str, title: &str| {
        let fill = if class.starts_with("sealed") {
            "none"
        } else if class.ends_with("detonated") {
            "#e07050"
        } else {
            "#f0b0a0"
        };
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-cell=\"{c}\"{extra}><title>{}</title><rect x=\"{:.1}\" y=\"{:.1}\" \
             width=\"{k:.1}\" height=\"{k:.1}\" fill=\"{fill}\" stroke=\"#900\" stroke-width=\"0.5\"/></g>",
            escape(title),
            f64::from(c.x) * k,
            f64::from(c.y) * k
        );
    };
    for (c, o) in b.open() {
        cell_rect(
            &mut out,
            *c,
            "mine open",
            "",
            &format!(
                "{c}: open mines, A-P {}, S-mine {}, A-T {}",
                o.ap, o.s, o.at
            ),
        );
    }
    for f in sealed {
        let (Some(c), Ok(m)) = (Cell::from_key(&f.location), CellMines::decode(&f.content)) else {
            continue;
        };
        if m.is_empty() {
            continue;
        }
        cell_rect(
            &mut out,
            c,
            "sealed mine",
            &format!(" data-owner=\"{}\"", f.owner),
            &format!(
                "{c}: side {}'s sealed mines, A-P {}{}, A-T {}",
                f.owner,
                m.ap,
                if m.s { " (S-mines)" } else { "" },
                m.at
            ),
        );
    }
    // Seed 004 detonation roll: a mine that went off reveals its type in
    // its cell (a public event); the detonation point is crossed.
    for d in &b.detonations {
        let kind = match d.mine {
            hexveil_minis::MineKind::AntiPersonnel => "ap",
            hexveil_minis::MineKind::AntiTank => "at",
            hexveil_minis::MineKind::SMine => "s",
        };
        cell_rect(
            &mut out,
            d.cell,
            "mine detonated",
            &format!(" data-mine=\"{kind}\" data-at=\"{}\"", d.at),
            &format!(
                "{}: an {} went off under {} at {}",
                d.cell,
                d.mine.words(),
                d.figure,
                d.at
            ),
        );
        let (x, y) = (f64::from(d.at.x) / 10.0 * k, f64::from(d.at.y) / 10.0 * k);
        let _ = writeln!(
            out,
            "<path class=\"detonation-point\" d=\"M{:.1},{:.1} L{:.1},{:.1} M{:.1},{:.1} L{:.1},{:.1}\" \
             stroke=\"#c00\" stroke-width=\"1.5\"/>",
            x - 3.0,
            y - 3.0,
            x + 3.0,
            y + 3.0,
            x - 3.0,
            y + 3.0,
            x + 3.0,
            y - 3.0
        );
    }
    for (i, fig) in sc.figures.iter().enumerate() {
        let Some(p) = b.public().figures().get(i).and_then(|f| f.pos) else {
            continue;
        };
        let (x, y) = (f64::from(p.x) / 10.0 * k, f64::from(p.y) / 10.0 * k);
        let st = b.status.get(i).cloned().unwrap_or_default();
        let words = if st.is_empty() {
            "active".to_string()
        } else {
            st.join(", ")
        };
        // Issue 27: a figure out of play (removed by a blast, R8, R10, or
        // a destroyed vehicle) is drawn grey and crossed, its name struck.
        let out_of_play = b.out_of_play(i);
        let (class, fill, mark, deco) = if out_of_play {
            (
                "figure removed",
                "#bbb",
                format!(
                    "<path class=\"removed-mark\" d=\"M{:.1},{:.1} L{:.1},{:.1} M{:.1},{:.1} L{:.1},{:.1}\" \
                     stroke=\"#222\" stroke-width=\"1.2\"/>",
                    x - 4.0,
                    y - 4.0,
                    x + 4.0,
                    y + 4.0,
                    x - 4.0,
                    y + 4.0,
                    x + 4.0,
                    y - 4.0
                ),
                " fill=\"#666\" text-decoration=\"line-through\"",
            )
        } else {
            ("figure", side_fill(fig.side), String::new(), "")
        };
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-figure=\"{}\" data-side=\"{}\" data-at=\"{p}\" \
             data-state=\"{}\"><title>{}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" \
             fill=\"{fill}\"/>{mark}<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"7\" \
             text-anchor=\"middle\"{deco}>{}</text></g>",
            escape(&fig.name),
            fig.side,
            escape(&words),
            escape(&format!(
                "{} (side {}) at {p}: {words}{}",
                fig.name,
                fig.side,
                if out_of_play { " (out of play)" } else { "" }
            )),
            // Issue 29: a removed figure's struck name below its mark, so
            // it never runs over the name of a figure that took its place.
            if out_of_play { y + 11.0 } else { y - 6.0 },
            escape(&fig.name)
        );
    }
    out.push_str("</g>\n");
    caption_lines(&mut out, MARGIN, td + 2.0 * MARGIN + 4.0, caption);
    out.push_str("</svg>\n");
    SvgParts {
        head,
        ground,
        tail: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 29: a long counter name is cut to fit its counter (and held
    // to the counter's width); a short one is drawn as it is.
    #[test]
    fn issue29_a_long_counter_name_is_cut_to_its_counter() {
        let long = Fitted::new("id:7 (2-3-7 HS, replaced brit-squad-2)");
        println!("drawn: {:?}{}", long.text, long.squeeze);
        assert_eq!(long.text, "id:7 (2-3-7\u{2026}");
        assert!(long.squeeze.contains("textLength=\"27\""));
        let short = Fitted::new("ger-pz");
        assert_eq!((short.text.as_str(), short.squeeze), ("ger-pz", ""));
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(SvgView::parse("B"), Some(SvgView::Side(Side::B)));
        assert_eq!(SvgView::parse("everyone"), None);
    }

    fn demo() -> Board {
        use hexveil_core::Ruleset;
        let text = include_str!("../../examples/demo/scenario.toml");
        let scenario = hexveil_asl::ruleset::Asl.load(text).unwrap();
        let mut b = Board::for_game(scenario.as_ref());
        b.setup(include_str!("../../examples/demo/setup-a.toml"))
            .unwrap();
        b.setup(include_str!("../../examples/demo/setup-b.toml"))
            .unwrap();
        b
    }

    fn ev(to: hexveil_asl::Visibility, kind: hexveil_asl::EventKind) -> hexveil_core::Event {
        hexveil_asl::ruleset::event_to_kernel(&hexveil_asl::Event {
            to,
            kind,
            cite: Vec::new(),
        })
    }

    // G3, B28.531, B28.41: B's secret Daisy Chain (told to B alone) and a
    // referee-only A-P presence in 3E4 are folded only for a view that may
    // see them, so the public and A pictures never draw them; B's does
    // draw its own chain. A public A-P attack in 3E3 is drawn in every view.
    #[test]
    fn g3_a_sealed_event_is_drawn_only_in_a_view_that_may_see_it() {
        use hexveil_asl::b28::daisy_chain::DaisyEvent;
        use hexveil_asl::b28::minefield::MinefieldEvent;
        use hexveil_asl::model::unit::UnitId;
        use hexveil_asl::{EventKind, Visibility};
        let hex = |s: &str| s.parse::<Hex>().unwrap();
        let events = [
            ev(
                Visibility::Side(Side::B),
                EventKind::DaisyChain(DaisyEvent::Placed {
                    owner: Side::B,
                    holder: UnitId(5),
                    hex: hex("3E5"),
                    factors: 2,
                    opportunity: 1,
                }),
            ),
            ev(
                Visibility::Referee,
                EventKind::Minefield(MinefieldEvent::ApPresent {
                    hex: hex("3E4"),
                    owner: Side::B,
                }),
            ),
            ev(
                Visibility::Public,
                EventKind::Minefield(MinefieldEvent::ApPresent {
                    hex: hex("3E3"),
                    owner: Side::B,
                }),
            ),
        ];
        for view in [
            SvgView::Public,
            SvgView::Side(Side::A),
            SvgView::Side(Side::B),
            SvgView::All,
        ] {
            let mut b = demo();
            let seen: Vec<_> = events
                .iter()
                .filter(|e| crate::narrate::shown_to(view.reader(), e.to))
                .cloned()
                .collect();
            b.events(&seen);
            let svg = board_svg(&b, view, 9, &[]);
            let chain = svg.contains("class=\"daisy-chain placed\" data-hex=\"3E5\"");
            let e4 = svg.contains("class=\"mine ap revealed\" data-hex=\"3E4\"");
            assert_eq!(
                chain,
                matches!(view, SvgView::Side(Side::B) | SvgView::All),
                "{view:?}"
            );
            assert_eq!(e4, view == SvgView::All, "{view:?}");
            assert!(
                svg.contains("class=\"mine ap revealed\" data-hex=\"3E3\""),
                "{view:?}"
            );
            // Each counter at its hex's centre on the grid (MapPos).
            let ab = b.asl().unwrap();
            for u in ab.state.units.values().filter(|u| u.in_play()) {
                let h = u.hex.unwrap();
                let (x, y) = hex_centre(ab.scenario(), h).unwrap();
                let want = format!(
                    "data-unit=\"{}\" data-side=\"{}\" data-hex=\"{h}\"",
                    ab.name(u.id),
                    u.side
                );
                let at = svg.find(&want).unwrap_or_else(|| panic!("{want}"));
                let tag = &svg[at..at + svg[at..].find('>').unwrap()];
                assert!(tag.contains(&format!("translate({x:.1},{y:.1})")), "{tag}");
            }
        }
    }

    const VIEWS: [SvgView; 4] = [
        SvgView::Public,
        SvgView::Side(Side::A),
        SvgView::Side(Side::B),
        SvgView::All,
    ];

    /// The demo board after `events`, as `view` is told of them, drawn.
    fn drawn(view: SvgView, events: &[hexveil_core::Event], sealed: &[SealedFact]) -> String {
        let mut b = demo();
        let seen: Vec<_> = events
            .iter()
            .filter(|e| crate::narrate::shown_to(view.reader(), e.to))
            .cloned()
            .collect();
        b.events(&seen);
        board_svg(&b, view, 30, sealed)
    }

    // B28.9, G3: a Booby Trap that goes off (a public event) is marked in
    // its hex in every view; a Task Check that sets none off (told to the
    // referee only) marks nothing anywhere, and side B's sealed level on
    // board 3 is drawn only in B's own view and, after the end, in `all`.
    #[test]
    fn b28_9_g3_a_booby_trap_that_went_off_is_marked_in_every_view_told_of_it() {
        use hexveil_asl::b28::booby_trap::BoobyTrapEvent;
        use hexveil_asl::model::sealed::{BoobyLevel, Content};
        use hexveil_asl::model::unit::UnitId;
        use hexveil_asl::{EventKind, Visibility};
        let hex = |s: &str| s.parse::<Hex>().unwrap();
        let events = [
            ev(
                Visibility::Referee,
                EventKind::BoobyTrap(BoobyTrapEvent::NotTriggered {
                    unit: UnitId(3),
                    hex: hex("3C2"),
                    original_dr: 11,
                    level: Some(BoobyLevel::C),
                }),
            ),
            ev(
                Visibility::Public,
                EventKind::BoobyTrap(BoobyTrapEvent::Triggered {
                    owner: Side::B,
                    unit: UnitId(0),
                    hex: hex("3E2"),
                    original_dr: 12,
                    level: BoobyLevel::C,
                }),
            ),
        ];
        let sealed = [SealedFact {
            owner: Side::B,
            location: "board3".into(),
            content: hexveil_asl::content::to_kernel(&Content::BoobyTraps(BoobyLevel::C)),
        }];
        for view in VIEWS {
            let svg = drawn(view, &events, &sealed);
            let marks: Vec<&str> = svg
                .split('<')
                .filter(|t| t.starts_with("g class=\"booby-trap attacked\""))
                .collect();
            assert_eq!(marks.len(), 1, "{view:?}: {marks:?}");
            assert!(
                marks[0].contains("data-hex=\"3E2\" data-owner=\"B\""),
                "{view:?}: {}",
                marks[0]
            );
            assert!(svg.contains("Original DR 12 (B28.9)"), "{view:?}");
            assert!(!svg.contains("data-hex=\"3C2\" data-owner"), "{view:?}");
            // The last action's hexes include the one it went off in.
            assert!(
                svg.contains("class=\"last-action\" data-hex=\"3E2\""),
                "{view:?}"
            );
            let level = svg.contains("class=\"sealed booby-trap\" data-board=\"3\"");
            assert_eq!(
                level,
                matches!(view, SvgView::Side(Side::B) | SvgView::All),
                "{view:?}: B's sealed Booby Trap level"
            );
        }
    }

    // Seed 004 detonation roll, R46, G3: a mine that went off under a
    // figure (a public event) is drawn in its cell, with its type and the
    // point where the figure stopped, in the public view; the cell's
    // sealed contents are not (only the type the event told).
    #[test]
    fn seed004_g3_a_mine_that_went_off_is_drawn_in_its_cell_in_every_view() {
        use hexveil_minis::{encode_event, MineKind, MinisEvent, Point};
        let scenario = hexveil_minis::MinisScenario::from_toml(include_str!(
            "../../examples/minis/scenario.toml"
        ))
        .unwrap();
        let cell = Cell::new(20, 15);
        let at = Point { x: 205, y: 151 };
        let event = hexveil_core::Event {
            to: hexveil_core::Visibility::Public,
            kind: hexveil_core::EventKind::Rules(encode_event(&MinisEvent::Detonation {
                figure: "ger-pz-iv".into(),
                mine: MineKind::AntiTank,
                cell,
                at,
            })),
            cite: vec!["R46".into()],
        };
        for view in VIEWS {
            let mut b = Board::for_game(&scenario);
            b.events(std::slice::from_ref(&event));
            let svg = board_svg(&b, view, 12, &[]);
            let want = format!(
                "class=\"mine detonated\" data-cell=\"{cell}\" data-mine=\"at\" data-at=\"{at}\""
            );
            assert!(svg.contains(&want), "{view:?}: {want}");
            assert!(svg.contains("class=\"detonation-point\""), "{view:?}");
            assert!(!svg.contains("class=\"sealed"), "{view:?}");
            let text = b.show(crate::board::View::Board);
            assert!(
                text.contains(&format!("an A-T mine in {cell} under ger-pz-iv")),
                "{text}"
            );
        }
    }

    // Issue 27, R10: a figure removed by a blast is drawn grey and
    // crossed, in every view; once the game is over the status says so
    // and names no side to act (never "turn 7 of 6").
    #[test]
    fn issue27_r10_a_removed_figure_is_drawn_removed_and_the_end_names_no_side_to_act() {
        use hexveil_minis::{encode_event, MinisEvent};
        let scenario = hexveil_minis::MinisScenario::from_toml(include_str!(
            "../../examples/minis/scenario.toml"
        ))
        .unwrap();
        let public = |m: MinisEvent| hexveil_core::Event {
            to: hexveil_core::Visibility::Public,
            kind: hexveil_core::EventKind::Rules(encode_event(&m)),
            cite: vec!["R10".into()],
        };
        let events = [
            public(MinisEvent::BlastSave {
                figure: "ger-rifle-1".into(),
                distance_tenths: 12,
                needs: 4,
                roll: 2,
                saved: false,
            }),
            public(MinisEvent::TurnEnded {
                side: Side::B,
                turn: 7,
                next: Side::A,
            }),
            public(MinisEvent::GameOver {
                winner: Some(Side::A),
                reason: "the last turn was played".into(),
            }),
        ];
        for view in VIEWS {
            let mut b = Board::for_game(&scenario);
            b.setup(include_str!("../../examples/minis/setup-a.toml"))
                .unwrap();
            b.setup(include_str!("../../examples/minis/setup-b.toml"))
                .unwrap();
            let before = board_svg(&b, view, 3, &[]);
            assert!(!before.contains("class=\"figure removed\""), "{view:?}");
            b.events(&events);
            let svg = board_svg(&b, view, 40, &[]);
            let removed: Vec<&str> = svg
                .split('<')
                .filter(|t| t.starts_with("g class=\"figure removed\""))
                .collect();
            assert_eq!(removed.len(), 1, "{view:?}: {removed:?}");
            assert!(
                removed[0].contains("data-figure=\"ger-rifle-1\""),
                "{}",
                removed[0]
            );
            assert!(svg.contains("class=\"removed-mark\""), "{view:?}");
            // Its name below its mark (issue 29), not where a live
            // figure's name goes (above).
            let at = svg.find("g class=\"figure removed\"").unwrap();
            let g = &svg[at..at + svg[at..].find("</g>").unwrap()];
            let num = |from: &str, after: &str| -> f64 {
                let k = from.find(after).unwrap() + after.len();
                from[k..k + from[k..].find('"').unwrap()].parse().unwrap()
            };
            let cy = num(g, " cy=\"");
            let ty = num(&g[g.find("<text ").unwrap()..], " y=\"");
            assert!(ty > cy, "{g}");
            let status = b.show(crate::board::View::Status);
            println!("{status}");
            let first = status.lines().next().unwrap();
            assert!(
                first.ends_with("the game is over, after turn 6 of 6"),
                "{first}"
            );
            assert!(!status.contains("to act"), "{status}");
            assert!(!svg.contains("turn 7 of 6"), "{view:?}");
        }
    }

    // The ground of a picture (hexes, terrain, coordinates) is the same
    // whatever the state and the view: the replay page draws it once.
    #[test]
    fn the_ground_is_the_same_at_every_step_and_in_every_view() {
        use hexveil_asl::a::morale::MoraleEvent;
        use hexveil_asl::model::unit::UnitId;
        let before = board_svg_parts(&demo(), SvgView::Public, 8, &[]);
        let mut b = demo();
        b.events(&[ev(
            hexveil_asl::Visibility::Public,
            hexveil_asl::EventKind::Morale(MoraleEvent::Broken { unit: UnitId(0) }),
        )]);
        let after = board_svg_parts(&b, SvgView::All, 9, &[]);
        assert_eq!(before.ground, after.ground);
        assert_ne!(before.tail, after.tail);
        assert!(before.ground.contains("class=\"coord\""));
        assert!(!before.ground.contains("class=\"counter\""));
        assert_eq!(after.joined(), board_svg(&b, SvgView::All, 9, &[]));
    }

    // G3: the revealed contents reach a picture only from a complete,
    // clean transcript, and then only those the view may see.
    #[test]
    fn g3_sealed_facts_come_only_from_a_clean_game_and_only_for_a_view_that_may_see_them() {
        use hexveil_protocol::message::{LayerReveal, RevealBody};
        let reveal = |content: [u8; hexveil_core::CONTENT_LEN]| RevealBody {
            layers: vec![LayerReveal {
                layer: "ap".into(),
                seed: [7; 32],
                contents: vec![("3E4".into(), content)],
            }],
            notes_seed: [0; 32],
            pad_seed: hexveil_protocol::pad::PadSeed([1; 32]),
        };
        let mine = hexveil_asl::content::encode(&hexveil_asl::model::sealed::Content::ApMines(
            hexveil_asl::model::sealed::ApStrength::from_factors(6).unwrap(),
        ));
        let reveals = [(Side::A, reveal([0; 8])), (Side::B, reveal(mine))];
        for view in VIEWS {
            assert!(sealed_facts(view, &reveals, false).is_empty(), "{view:?}");
        }
        assert!(sealed_facts(SvgView::Public, &reveals, true).is_empty());
        let b = sealed_facts(SvgView::Side(Side::B), &reveals, true);
        assert!(b.iter().all(|f| f.owner == Side::B) && b.len() == 1);
        assert_eq!(sealed_facts(SvgView::All, &reveals, true).len(), 2);
        let svg = board_svg(&demo(), SvgView::Side(Side::A), 9, &b);
        assert!(!svg.contains("class=\"sealed"), "A never draws B's: {svg}");
    }

    // Issue 29, G3, B28.1, B28.5, B28.47, B28.531, B28.9: side B's own
    // sealed facts in its own view are each a tag of its own words (no
    // two kinds alike), in the band between the hex's coordinate and its
    // counters; side A's view draws none of them.
    #[test]
    fn issue29_each_own_sealed_kind_has_its_own_tag_clear_of_the_coordinate() {
        use hexveil_asl::content::to_kernel;
        use hexveil_asl::model::sealed::{ApStrength, AtFactors, BoobyLevel};
        let fact = |loc: &str, c: Content| SealedFact {
            owner: Side::B,
            location: loc.into(),
            content: to_kernel(&c),
        };
        let hex = |s: &str| s.parse::<Hex>().unwrap();
        let sealed = [
            fact(
                "3E3",
                Content::ApMines(ApStrength::from_factors(6).unwrap()),
            ),
            fact("3E5", Content::AtMines(AtFactors::new(2).unwrap())),
            fact("3H5", Content::Dummy),
            fact(
                "3E5",
                Content::Daisy(DaisyNote::Placed {
                    holder: hexveil_asl::model::unit::UnitId(5),
                    hex: hex("3E5"),
                }),
            ),
            fact("board3", Content::BoobyTraps(BoobyLevel::C)),
        ];
        let svg = board_svg(&demo(), SvgView::Side(Side::B), 4, &sealed);
        let tags: Vec<String> = svg
            .split('<')
            .filter(|t| t.starts_with("g class=\"sealed"))
            .map(|t| attr_of(t, "data-tag"))
            .collect();
        println!("{tags:?}");
        for want in ["A-P 6", "A-T 2", "Dummy", "DC", "BT C"] {
            assert_eq!(
                tags.iter().filter(|t| *t == want).count(),
                1,
                "{want}: {tags:?}"
            );
        }
        assert!(
            !svg.contains("stroke-dasharray=\"4,3\""),
            "no anonymous ring"
        );
        // In 3E3: the tag's rect lies below the coordinate's baseline and
        // above the top of a counter (centre y - 9).
        let (_, cy) = hex_centre(demo().asl().unwrap().scenario(), hex("3E3")).unwrap();
        let h2 = 3f64.sqrt() / 2.0 * HEX_SIZE;
        let at = svg
            .find("data-hex=\"3E3\" data-owner=\"B\" data-tag=")
            .unwrap();
        let y: f64 = attr_of(&svg[at..], "y").parse().unwrap();
        // (the coordinate's baseline at cy - h2 + 7, its descent 1.5 below)
        assert!(y > cy - h2 + 8.5 && y + 6.0 <= cy - 9.0, "{y} {cy}");
        let a = board_svg(&demo(), SvgView::Side(Side::A), 4, &sealed);
        assert!(!a.contains("class=\"sealed"), "G3: A never draws B's");
    }

    fn attr_of(tag: &str, name: &str) -> String {
        let key = format!(" {name}=\"");
        let at = tag.find(&key).unwrap() + key.len();
        tag[at..at + tag[at..].find('"').unwrap()].to_string()
    }

    // G3: a view sees the sealed contents of its own side only, and only
    // `all` sees both.
    #[test]
    fn g3_a_view_sees_only_its_own_sealed_facts() {
        assert!(!SvgView::Public.sees_sealed_of(Side::B));
        assert!(!SvgView::Side(Side::A).sees_sealed_of(Side::B));
        assert!(SvgView::Side(Side::B).sees_sealed_of(Side::B));
        assert!(SvgView::All.sees_sealed_of(Side::A));
    }
}
