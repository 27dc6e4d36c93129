//! Setup: what each side shows (its [`PublicSetup`]) and what it seals (its
//! [`SealedSetup`]), which locations could hold a sealed layer
//! ([`eligible_locations`], DESIGN 3.1), the legality of a sealed layout
//! ([`check_layout`]: B28.1, B28.45-47, B28.5, B28.53, B28.9) and the
//! state at the start of play ([`initial_state`]).
//!
//! File forms (TOML; JSON with the same structure in the rules oracle) are
//! documented in `docs/SCENARIO.md`, with examples `examples/setup-a.toml`,
//! `examples/setup-b.toml` and `examples/sealed-b.toml`.

use crate::board::hex::Hex;
use crate::board::map::Map;
use crate::board::terrain::MinePlacement;
use crate::dice::DiceKind;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{spec, Ctx, Res};
use crate::model::scenario::{parse_hex, parse_side, Scenario, ScenarioError};
use crate::model::sealed::{ApStrength, AtFactors, BoobyLevel, Content, Layer, Location};
use crate::model::state::GameState;
use crate::model::unit::UnitId;
use crate::side::Side;
use crate::turn::{Phase, TurnEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What one side shows at setup: every hex here is public.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicSetup {
    /// The side.
    pub side: Side,
    /// Where its units set up (units not listed keep the scenario's hex,
    /// or stay off board).
    pub positions: BTreeMap<UnitId, Hex>,
    /// Single Known Minefield counters (B28.45).
    pub known: Vec<Hex>,
    /// Pairs of arrowed Known Minefield counters: every hex of the (alternate)
    /// hex grain between them, inclusive, is Known (B28.46).
    pub known_lines: Vec<(Hex, Hex)>,
    /// A-T mines set up in full view (B28.53): presence public, factors
    /// sealed (R5).
    pub at_in_view: Vec<Hex>,
}

/// What one side seals at setup: the content of every sealed layer.
/// Entries are kept as written, so [`check_layout`] can name every
/// violation (a strength of 10, a hex given twice ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedSetup {
    /// The side.
    pub side: Side,
    /// A-P minefields: hex and strength (B28.1: 6, 8 or 12).
    pub ap: Vec<(Hex, u8)>,
    /// A-T mines: hex and factors (B28.5: 1..=5).
    pub at: Vec<(Hex, u8)>,
    /// Known Minefield counters that are Dummies (B28.47).
    pub dummies: Vec<Hex>,
    /// Booby Trap capability bought per board (B28.9).
    pub booby: Vec<(u16, BoobyLevel)>,
}

/// A rule a sealed or public setup breaks, with where and which rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupViolation {
    /// Where: a hex name, `board4`, or `budget`.
    pub location: String,
    /// What is wrong.
    pub what: String,
    /// The rule (and ruling) broken.
    pub rule: String,
}

impl fmt::Display for SetupViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.location, self.what, self.rule)
    }
}

fn violation(location: impl ToString, what: impl Into<String>, rule: &str) -> SetupViolation {
    SetupViolation {
        location: location.to_string(),
        what: what.into(),
        rule: rule.to_string(),
    }
}

/// Whether a minefield may be placed this way in `hex` (B28.1, B28.44,
/// B28.53): the board helper's [`Map::mine_placement_allowed`]; `Err` says
/// what forbids it.
pub fn placement_allowed(map: &Map, hex: Hex, how: MinePlacement) -> Result<(), String> {
    map.mine_placement_allowed(hex, how)
        .map_err(|e| e.to_string())
}

impl PublicSetup {
    /// Every hex under a Known Minefield counter, lines expanded (B28.45,
    /// B28.46), by canonical name. Lines off a grain are left out (see
    /// [`check_public`]).
    pub fn known_hexes(&self, map: &Map) -> BTreeSet<Hex> {
        let mut out: BTreeSet<Hex> = self.known.iter().map(|h| map.canonical(*h)).collect();
        for (a, b) in &self.known_lines {
            if let Some(line) = map.grain_line(*a, *b) {
                out.extend(line);
            }
        }
        out
    }

    /// Reads a public setup from its TOML form (docs/SCENARIO.md).
    pub fn from_toml(scenario: &Scenario, text: &str) -> Result<PublicSetup, ScenarioError> {
        let v: Value = toml::from_str(text).map_err(|e| ScenarioError::Syntax(e.to_string()))?;
        PublicSetup::from_value(scenario, v)
    }

    /// Reads a public setup from its file structure as a JSON value.
    pub fn from_value(scenario: &Scenario, v: Value) -> Result<PublicSetup, ScenarioError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            side: String,
            #[serde(default)]
            positions: BTreeMap<String, String>,
            #[serde(default)]
            known: Vec<String>,
            #[serde(default)]
            known_lines: Vec<[String; 2]>,
            #[serde(default)]
            at_in_view: Vec<String>,
            /// The player's display name (issue 27 item 8): read past,
            /// never a ruling's business (hexveil-view's `names`).
            #[serde(default, rename = "name")]
            _name: Option<serde::de::IgnoredAny>,
        }
        let f: File =
            serde_json::from_value(v).map_err(|e| ScenarioError::Syntax(format!("setup: {e}")))?;
        let side = parse_side("setup.side", &f.side)?;
        let mut positions = BTreeMap::new();
        for (name, hex) in &f.positions {
            let field = format!("setup.positions.{name}");
            let id = scenario
                .unit_named(name)
                .ok_or_else(|| ScenarioError::Invalid {
                    field: field.clone(),
                    value: format!("{name:?}"),
                    why: "no unit has this name".into(),
                })?;
            positions.insert(id, parse_hex(&field, hex)?);
        }
        let hexes = |field: &str, list: &[String]| -> Result<Vec<Hex>, ScenarioError> {
            list.iter()
                .enumerate()
                .map(|(i, h)| parse_hex(&format!("setup.{field}[{i}]"), h))
                .collect()
        };
        let mut known_lines = Vec::new();
        for (i, [a, b]) in f.known_lines.iter().enumerate() {
            known_lines.push((
                parse_hex(&format!("setup.known_lines[{i}][0]"), a)?,
                parse_hex(&format!("setup.known_lines[{i}][1]"), b)?,
            ));
        }
        Ok(PublicSetup {
            side,
            positions,
            known: hexes("known", &f.known)?,
            known_lines,
            at_in_view: hexes("at_in_view", &f.at_in_view)?,
        })
    }
}

impl SealedSetup {
    /// Reads a sealed setup from its TOML form (docs/SCENARIO.md).
    pub fn from_toml(text: &str) -> Result<SealedSetup, ScenarioError> {
        let v: Value = toml::from_str(text).map_err(|e| ScenarioError::Syntax(e.to_string()))?;
        SealedSetup::from_value(v)
    }

    /// Reads a sealed setup from its file structure as a JSON value.
    pub fn from_value(v: Value) -> Result<SealedSetup, ScenarioError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Ap {
            hex: String,
            strength: u8,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct At {
            hex: String,
            factors: u8,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Booby {
            board: u16,
            level: BoobyLevel,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            side: String,
            #[serde(default)]
            ap: Vec<Ap>,
            #[serde(default)]
            at: Vec<At>,
            #[serde(default)]
            dummies: Vec<String>,
            #[serde(default)]
            booby: Vec<Booby>,
        }
        let f: File =
            serde_json::from_value(v).map_err(|e| ScenarioError::Syntax(format!("sealed: {e}")))?;
        let mut s = SealedSetup {
            side: parse_side("sealed.side", &f.side)?,
            ap: Vec::new(),
            at: Vec::new(),
            dummies: Vec::new(),
            booby: Vec::new(),
        };
        for (i, a) in f.ap.iter().enumerate() {
            s.ap.push((
                parse_hex(&format!("sealed.ap[{i}].hex"), &a.hex)?,
                a.strength,
            ));
        }
        for (i, a) in f.at.iter().enumerate() {
            s.at.push((
                parse_hex(&format!("sealed.at[{i}].hex"), &a.hex)?,
                a.factors,
            ));
        }
        for (i, d) in f.dummies.iter().enumerate() {
            s.dummies
                .push(parse_hex(&format!("sealed.dummies[{i}]"), d)?);
        }
        s.booby = f.booby.iter().map(|b| (b.board, b.level)).collect();
        Ok(s)
    }

    /// The layout whose leaves hold `contents` (opened leaves, e.g. at the
    /// end of a game); `Empty` leaves and contents that do not fit their
    /// layer are left out (a content that does not fit is refused when the
    /// leaf is opened).
    pub fn from_contents(side: Side, contents: &[(Layer, Location, Content)]) -> SealedSetup {
        let mut s = SealedSetup {
            side,
            ap: Vec::new(),
            at: Vec::new(),
            dummies: Vec::new(),
            booby: Vec::new(),
        };
        for (layer, location, content) in contents {
            match (layer, location, content) {
                (Layer::AntiPersonnel, Location::Hex(h), Content::ApMines(st)) => {
                    s.ap.push((*h, st.factors()))
                }
                (Layer::AntiPersonnel, Location::Hex(h), Content::Dummy) => s.dummies.push(*h),
                (Layer::AntiTank, Location::Hex(h), Content::AtMines(f)) => {
                    s.at.push((*h, f.get()))
                }
                (Layer::BoobyTrap, Location::Board(b), Content::BoobyTraps(l)) => {
                    s.booby.push((*b, *l))
                }
                _ => {}
            }
        }
        s
    }

    /// The content of the leaf for `layer` at `location` (what the owner
    /// opens when asked). Meaningful for a layout [`check_layout`] accepted.
    pub fn content(&self, map: &Map, layer: Layer, location: Location) -> Content {
        let location = match location {
            Location::Hex(h) => Location::Hex(map.canonical(h)),
            other => other,
        };
        let c = self.canonical(map);
        c.content_as_written(layer, location)
    }

    /// The same layout with every hex under its canonical name on `map`
    /// (a seam hex has two names).
    pub fn canonical(&self, map: &Map) -> SealedSetup {
        SealedSetup {
            side: self.side,
            ap: self
                .ap
                .iter()
                .map(|(h, s)| (map.canonical(*h), *s))
                .collect(),
            at: self
                .at
                .iter()
                .map(|(h, f)| (map.canonical(*h), *f))
                .collect(),
            dummies: self.dummies.iter().map(|h| map.canonical(*h)).collect(),
            booby: self.booby.clone(),
        }
    }

    fn content_as_written(&self, layer: Layer, location: Location) -> Content {
        match (layer, location) {
            (Layer::AntiPersonnel, Location::Hex(h)) => {
                if self.dummies.contains(&h) {
                    Content::Dummy
                } else {
                    self.ap
                        .iter()
                        .find(|(x, _)| *x == h)
                        .and_then(|(_, s)| ApStrength::from_factors(*s))
                        .map_or(Content::Empty, Content::ApMines)
                }
            }
            (Layer::AntiTank, Location::Hex(h)) => self
                .at
                .iter()
                .find(|(x, _)| *x == h)
                .and_then(|(_, f)| AtFactors::new(*f))
                .map_or(Content::Empty, Content::AtMines),
            (Layer::BoobyTrap, Location::Board(b)) => self
                .booby
                .iter()
                .find(|(x, _)| *x == b)
                .map_or(Content::Empty, |(_, l)| Content::BoobyTraps(*l)),
            _ => Content::Empty,
        }
    }
}

/// Every location that could legally hold `layer` for `side`, computed from
/// public data only, sorted (DESIGN 3.1: the owner seals one leaf for each,
/// mined or not, so the leaf count says nothing about the mines).
///
/// - A-P: setup-area hexes where hidden A-P mines may lie (B28.1), plus every
///   Known hex (B28.45, B28.46).
/// - A-T: setup-area hexes where hidden A-T mines may lie (B28.1, B28.5),
///   plus Known hexes, plus A-T-in-full-view hexes (B28.53).
/// - Booby Traps: one per board the side may buy capability on (B28.9).
/// - Daisy Chains: none (they are sealed notes per opportunity, DESIGN 3.2).
pub fn eligible_locations(
    scenario: &Scenario,
    public: &PublicSetup,
    side: Side,
    layer: Layer,
) -> Vec<Location> {
    match layer {
        Layer::AntiPersonnel | Layer::AntiTank => {
            let map = &scenario.map;
            let known = if public.side == side {
                public.known_hexes(map)
            } else {
                BTreeSet::new()
            };
            let at_in_view: BTreeSet<Hex> = if public.side == side {
                public
                    .at_in_view
                    .iter()
                    .map(|h| map.canonical(*h))
                    .collect()
            } else {
                BTreeSet::new()
            };
            map.all_hexes()
                .into_iter()
                .filter(|h| {
                    let marks = LeafMarks {
                        known_counter: known.contains(h),
                        at_in_view: at_in_view.contains(h),
                    };
                    has_leaf(scenario, side, layer, *h, marks)
                })
                .map(Location::Hex)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        }
        Layer::BoobyTrap => scenario
            .side(side)
            .booby_boards()
            .into_iter()
            .map(Location::Board)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        Layer::DaisyChain => Vec::new(),
    }
}

/// Whether `location` is one of [`eligible_locations`]'s, without building
/// the list: the referee asks it of every fact request and keeps no list
/// per game (issue 16). `asl/tests/setup.rs` checks it against the list
/// for every hex of the map and its aliases.
pub fn is_eligible_location(
    scenario: &Scenario,
    public: &PublicSetup,
    side: Side,
    layer: Layer,
    location: Location,
) -> bool {
    match (layer, location) {
        (Layer::AntiPersonnel | Layer::AntiTank, Location::Hex(h)) => {
            let map = &scenario.map;
            if !map.contains(h) || map.canonical(h) != h {
                return false;
            }
            let ours = public.side == side;
            let marks = LeafMarks {
                known_counter: ours && public.known_hexes(map).contains(&h),
                at_in_view: ours && public.at_in_view.iter().any(|v| map.canonical(*v) == h),
            };
            has_leaf(scenario, side, layer, h, marks)
        }
        (Layer::BoobyTrap, Location::Board(b)) => scenario.side(side).booby_boards().contains(&b),
        _ => false,
    }
}

/// What the public record shows in one hex for one side's minefield leaves:
/// its Known Minefield counter (B28.45), its A-T mines in full view (B28.53).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafMarks {
    /// The side has a Known Minefield counter in the hex.
    pub known_counter: bool,
    /// The side has A-T mines in full view in the hex.
    pub at_in_view: bool,
}

/// Whether `side` has a sealed `layer` leaf for `hex`: the one test both
/// [`eligible_locations`] (at setup) and `minefield::leaf_exists` (in play)
/// use, so the leaves sealed and the leaves asked cannot drift apart.
/// Public data only (G3).
///
/// - A-P: a Known counter, or a setup-area hex where hidden A-P mines may lie
///   (B28.1, B28.44, B28.45).
/// - A-T: the same for hidden A-T mines (B28.1, B28.5), or A-T mines in full
///   view (B28.53).
/// - Booby Traps and Daisy Chains have no hex leaves (B28.9, DESIGN 3.2).
pub fn has_leaf(scenario: &Scenario, side: Side, layer: Layer, hex: Hex, marks: LeafMarks) -> bool {
    let map = &scenario.map;
    if !map.contains(hex) {
        return false;
    }
    let hex = map.canonical(hex);
    let area = &scenario.side(side).setup_area;
    let in_area = || {
        map.names(hex)
            .iter()
            .any(|n| area.boards.contains(&n.board))
            || area.hexes.iter().any(|h| map.same_hex(*h, hex))
    };
    let hidden = |how: MinePlacement| in_area() && placement_allowed(map, hex, how).is_ok();
    match layer {
        Layer::AntiPersonnel => marks.known_counter || hidden(MinePlacement::HiddenAp),
        Layer::AntiTank => {
            marks.known_counter || marks.at_in_view || hidden(MinePlacement::HiddenAt)
        }
        Layer::BoobyTrap | Layer::DaisyChain => false,
    }
}

/// Checks a public setup: units in the setup area, Known counters and A-T
/// mines in full view on allowed terrain, arrowed lines on a grain
/// (B28.1, B28.45, B28.46, B28.53). Returns every violation.
pub fn check_public(scenario: &Scenario, public: &PublicSetup) -> Vec<SetupViolation> {
    let side = public.side;
    let ob = scenario.side(side);
    let mut out = Vec::new();
    for (id, hex) in &public.positions {
        match scenario.units.get(id.0 as usize) {
            Some(u) if u.side == side => {
                if !ob.setup_area.contains(&scenario.map, *hex) {
                    out.push(violation(
                        hex,
                        format!("{} sets up outside side {side}'s setup area", u.name),
                        "scenario setup",
                    ));
                }
            }
            _ => out.push(violation(
                hex,
                format!("unit {id} is not a unit of side {side}"),
                "scenario setup",
            )),
        }
    }
    for (a, b) in &public.known_lines {
        if scenario.map.grain_line(*a, *b).is_none() {
            out.push(violation(
                a,
                format!("arrowed Known counters {a} and {b} are not on one hex grain or alternate hex grain"),
                "B28.46",
            ));
        }
    }
    for h in public.known_hexes(&scenario.map) {
        if !ob.setup_area.contains(&scenario.map, h) {
            out.push(violation(
                h,
                "Known Minefield counter outside the setup area",
                "B28.45",
            ));
        } else if let Err(t) = placement_allowed(&scenario.map, h, MinePlacement::HiddenAp) {
            if placement_allowed(&scenario.map, h, MinePlacement::HiddenAt).is_err() {
                out.push(violation(h, t, "B28.1"));
            }
        }
    }
    for h in &public.at_in_view {
        if !ob.setup_area.contains(&scenario.map, *h) {
            out.push(violation(
                h,
                "A-T mines in full view outside the setup area",
                "B28.53",
            ));
        } else if let Err(t) = placement_allowed(&scenario.map, *h, MinePlacement::AtInFullView) {
            out.push(violation(h, t, "B28.53"));
        }
    }
    out
}

/// How many Dummy Minefield counters a side may use (B28.47): the printed
/// allotment, or else one per 24 Known factors set up, plus the Secret dr
/// (halved, FRD) result `extra`.
pub fn dummy_budget(scenario: &Scenario, side: Side, known_set_up: u32, extra: u8) -> u32 {
    let base = match scenario.side(side).dummy_allotment {
        Some(n) => n as u32,
        None => known_set_up / 24,
    };
    base + extra as u32
}

/// Checks a sealed layout against the scenario and the side's public setup.
/// `extra_dummies` is the result of the side's Secret dr (B28.47), 0 if none
/// was made. Returns every violation, each naming the hex (or board) and
/// the rule.
pub fn check_layout(
    scenario: &Scenario,
    public: &PublicSetup,
    sealed: &SealedSetup,
    extra_dummies: u8,
) -> Result<(), Vec<SetupViolation>> {
    let side = sealed.side;
    let ob = scenario.side(side);
    let sealed = &sealed.canonical(&scenario.map);
    let mut out = Vec::new();
    if public.side != side {
        out.push(violation(
            "setup",
            format!(
                "sealed setup of side {side} checked against side {}'s public setup",
                public.side
            ),
            "scenario setup",
        ));
        return Err(out);
    }
    let known = public.known_hexes(&scenario.map);
    let canon = |h: &Hex| scenario.map.canonical(*h);
    let single_known: BTreeSet<Hex> = public.known.iter().map(canon).collect();
    let in_view: BTreeSet<Hex> = public.at_in_view.iter().map(canon).collect();
    let ap_ok: BTreeSet<Location> =
        eligible_locations(scenario, public, side, Layer::AntiPersonnel)
            .into_iter()
            .collect();
    let at_ok: BTreeSet<Location> = eligible_locations(scenario, public, side, Layer::AntiTank)
        .into_iter()
        .collect();
    let where_not = |h: Hex, how: MinePlacement, rule: &str| -> SetupViolation {
        if !ob.setup_area.contains(&scenario.map, h) {
            violation(h, "outside the side's setup area", rule)
        } else {
            match placement_allowed(&scenario.map, h, how) {
                Err(t) => violation(h, t, rule),
                Ok(()) => violation(h, "not an eligible location", rule),
            }
        }
    };

    let (mut hidden_ap, mut hidden_at, mut known_ap, mut known_at) = (0u32, 0u32, 0u32, 0u32);
    let mut seen_ap = BTreeSet::new();
    for (h, s) in &sealed.ap {
        if ApStrength::from_factors(*s).is_none() {
            out.push(violation(
                h,
                format!("A-P minefield strength {s}: must be 6, 8 or 12"),
                "B28.1",
            ));
        }
        if !seen_ap.insert(*h) {
            let rule = if known.contains(h) { "B28.46" } else { "B28.1" };
            out.push(violation(h, "more than one A-P minefield in the hex", rule));
        }
        if !ap_ok.contains(&Location::Hex(*h)) {
            out.push(where_not(*h, MinePlacement::HiddenAp, "B28.1"));
        } else if let Err(t) = placement_allowed(&scenario.map, *h, MinePlacement::HiddenAp) {
            // A Known hex is eligible as a location, but its terrain must
            // still take A-P mines (B28.1).
            out.push(violation(h, t, "B28.1"));
        }
        if known.contains(h) {
            known_ap += *s as u32;
        } else {
            hidden_ap += *s as u32;
        }
    }
    let mut seen_at = BTreeSet::new();
    for (h, f) in &sealed.at {
        if AtFactors::new(*f).is_none() {
            out.push(violation(
                h,
                format!("{f} A-T mine factors: must be 1..=5"),
                "B28.5",
            ));
        }
        if !seen_at.insert(*h) {
            let rule = if known.contains(h) { "B28.46" } else { "B28.5" };
            out.push(violation(h, "more than one A-T minefield in the hex", rule));
        }
        if !at_ok.contains(&Location::Hex(*h)) {
            out.push(where_not(*h, MinePlacement::HiddenAt, "B28.53"));
        } else if !in_view.contains(h)
            && !known.contains(h)
            && placement_allowed(&scenario.map, *h, MinePlacement::HiddenAt).is_err()
        {
            out.push(violation(
                h,
                "A-T mines here must be in full view",
                "B28.53",
            ));
        }
        if known.contains(h) {
            known_at += *f as u32;
        } else {
            hidden_at += *f as u32;
        }
    }
    for h in &in_view {
        if !seen_at.contains(h) {
            out.push(violation(
                h,
                "marked as A-T mines in full view but no A-T factors are sealed there",
                "B28.53",
            ));
        }
    }

    // Booby Traps (B28.9).
    let booby_boards = ob.booby_boards();
    let mut booby_cost = 0u32;
    let mut seen_boards = BTreeSet::new();
    for (b, level) in &sealed.booby {
        if !booby_boards.contains(b) {
            out.push(violation(
                Location::Board(*b),
                "Booby Trap capability on a board this side may not buy it for (needs an SSR, or setting up anywhere on the board without having to capture terrain or exit)",
                "B28.9",
            ));
        }
        if !seen_boards.insert(*b) {
            out.push(violation(
                Location::Board(*b),
                "Booby Trap level bought twice",
                "B28.9",
            ));
        }
        booby_cost += level.cost();
    }

    // Budgets: B28.5 (3 A-P factors per A-T factor), B28.9, B28.45.
    let spent = hidden_ap + 3 * hidden_at + booby_cost;
    if spent > ob.minefield_factors {
        out.push(violation(
            "budget",
            format!(
                "hidden minefield factors spent {spent} (A-P {hidden_ap} + 3 x A-T {hidden_at} + Booby Traps {booby_cost}) exceed the OB's {}",
                ob.minefield_factors
            ),
            "B28.5, B28.9",
        ));
    }
    if known_ap > ob.known_factors {
        out.push(violation(
            "budget",
            format!(
                "Known A-P factors set up {known_ap} exceed the OB's {} (hidden factors may not become Known mines)",
                ob.known_factors
            ),
            "B28.45, B28.48",
        ));
    }
    if known_at > ob.known_at_factors {
        out.push(violation(
            "budget",
            format!(
                "Known A-T factors set up {known_at} exceed the OB's {} (Known A-P factors may not be exchanged for A-T mines)",
                ob.known_at_factors
            ),
            "B28.45",
        ));
    }

    // Dummies (B28.47).
    let mut seen_dummy = BTreeSet::new();
    for h in &sealed.dummies {
        if !known.contains(h) {
            out.push(violation(
                h,
                "a Dummy Minefield must be under a Known Minefield counter",
                "B28.47",
            ));
        }
        if !seen_dummy.insert(*h) {
            out.push(violation(h, "Dummy given twice", "B28.47"));
        }
        if seen_ap.contains(h) || seen_at.contains(h) {
            out.push(violation(
                h,
                "a Dummy Minefield hex cannot also hold mines",
                "B28.46, B28.47",
            ));
        }
    }
    let budget = dummy_budget(scenario, side, known_ap + known_at, extra_dummies);
    if seen_dummy.len() as u32 > budget {
        out.push(violation(
            "budget",
            format!(
                "{} Dummy Minefields used, {budget} allowed",
                seen_dummy.len()
            ),
            "B28.47",
        ));
    }
    // A single Known counter must stand for something (B28.45, B28.47); an
    // unmined hex inside an arrowed line is allowed (B28.47 EXC).
    for h in &single_known {
        if !seen_ap.contains(h) && !seen_at.contains(h) && !seen_dummy.contains(h) {
            out.push(violation(
                h,
                "Known Minefield counter with neither mines nor a Dummy under it",
                "B28.45, B28.47",
            ));
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out)
    }
}

/// The state at the start of play, in phase [`Phase::Setup`] of turn 1 with
/// the first side phasing: units placed, Known Minefield counters (the
/// hexes of arrowed lines marked as such, B28.46) and A-T mines in full
/// view marked, each side's ELR set. The Setup phase is where
/// the Secret dr for extra Dummies (B28.47) is made; the first side's
/// `EndPhase` starts its Rally Phase (docs/SCENARIO.md).
pub fn initial_state(
    scenario: &Scenario,
    setups: &[PublicSetup],
) -> Result<GameState, Vec<SetupViolation>> {
    let mut violations = Vec::new();
    let mut seen = BTreeSet::new();
    for s in setups {
        if !seen.insert(s.side) {
            violations.push(violation(
                "setup",
                format!("two public setups for side {}", s.side),
                "scenario setup",
            ));
        }
        violations.extend(check_public(scenario, s));
    }
    if !violations.is_empty() {
        return Err(violations);
    }
    let mut units: BTreeMap<UnitId, crate::model::unit::Unit> =
        scenario.units.iter().map(|u| (u.id, u.clone())).collect();
    let mut markers: BTreeMap<Hex, crate::model::state::HexMarkers> = BTreeMap::new();
    for s in setups {
        for (id, hex) in &s.positions {
            if let Some(u) = units.get_mut(id) {
                u.hex = Some(scenario.map.canonical(*hex));
            }
        }
        for h in s.known_hexes(&scenario.map) {
            markers.entry(h).or_default().known_counter = Some(s.side);
        }
        // B28.46: every hex of an arrowed line is part of the line, so an
        // unmined one found later is marked, not cleared (B28.47 EXC).
        for (a, b) in &s.known_lines {
            for h in scenario.map.grain_line(*a, *b).unwrap_or_default() {
                markers.entry(h).or_default().known_line = true;
            }
        }
        for h in &s.at_in_view {
            markers
                .entry(scenario.map.canonical(*h))
                .or_default()
                .at_in_view = Some(s.side);
        }
    }
    // Passengers and Riders are where their vehicle is.
    let carried: Vec<(UnitId, Option<Hex>)> = units
        .values()
        .filter_map(|u| u.status.aboard.map(|v| (u.id, v)))
        .map(|(id, v)| (id, units.get(&v).and_then(|v| v.hex)))
        .collect();
    for (id, hex) in carried {
        if let Some(u) = units.get_mut(&id) {
            u.hex = hex;
        }
    }
    let elr = scenario
        .sides
        .iter()
        .map(|(side, ob)| (*side, ob.elr))
        .collect();
    let mut state = GameState {
        turn: 1,
        phasing: scenario.first_side(),
        phase: Phase::Setup,
        units,
        elr,
        markers,
        referee_knows: Default::default(),
        opportunities: 0,
        result: None,
        mines: Default::default(),
        extra_dummies: BTreeMap::new(),
        daisy_chains: Vec::new(),
        control: BTreeMap::new(),
        mf_spent: BTreeMap::new(),
        ordnance: Default::default(),
        consumed: BTreeMap::new(),
    };
    // Units on a victory hex at the start control it (R53).
    crate::victory::update_control(scenario, &mut state);
    Ok(state)
}

/// Whether `side` has received at least one Dummy Minefield counter, and so
/// is entitled to the Secret dr for more (B28.47, R14): a printed allotment
/// of at least one, or without one at least 24 Known factors in its OB.
pub fn may_make_dummy_dr(scenario: &Scenario, side: Side) -> bool {
    let ob = scenario.side(side);
    match ob.dummy_allotment {
        Some(n) => n >= 1,
        None => ob.known_factors + ob.known_at_factors >= 24,
    }
}

/// Whether `side` may make the Secret dr for extra Dummies now (B28.47): it
/// must have received at least one Dummy Minefield counter (printed, or one
/// per 24 Known factors in its OB; ruling R14) and not have rolled yet.
pub fn check_dummy_dr(
    scenario: &Scenario,
    state: &GameState,
    side: Side,
) -> Result<(), crate::model::error::RuleError> {
    use crate::model::error::RuleError;
    if !may_make_dummy_dr(scenario, side) {
        return Err(RuleError::new(
            format!("side {side} has no Dummy Minefield counter, so no Secret dr for more"),
            "B28.47",
        ));
    }
    if state.extra_dummies.contains_key(&side) {
        return Err(RuleError::new(
            format!("side {side} has already made its Secret dr for extra Dummies"),
            "B28.47",
        ));
    }
    Ok(())
}

/// The Secret dr for extra Dummies (B28.47): halved, fractions rounded
/// down. The roll and the count are shown to the roller only; the opponent
/// learns only that the dr was made. [`check_layout`] takes the count.
pub fn dummy_dr(ctx: &mut Ctx<'_>) -> Res<()> {
    let side = ctx.actor;
    check_dummy_dr(ctx.scenario, &ctx.state, side)?;
    let dr = ctx.roll(vec![spec(
        DiceKind::SecretDr { roller: side },
        format!("Secret dr for side {side}'s extra Dummy Minefields"),
        "B28.47",
    )])?[0]
        .total();
    let count = dr / 2;
    ctx.state.extra_dummies.insert(side, count);
    ctx.emit(
        Visibility::Public,
        EventKind::Turn(TurnEvent::DummyDrMade { side }),
        &["B28.47"],
    );
    ctx.emit(
        Visibility::Side(side),
        EventKind::Turn(TurnEvent::ExtraDummies { side, count }),
        &["B28.47"],
    );
    Ok(())
}
