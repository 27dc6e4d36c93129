//! Soak test: random games through the real [`Engine`] on the example
//! scenario (examples/scenario.toml, "Mine Alley"), with the example's
//! public setups, side B's sealed layout or a random legal one, random
//! starting positions, statuses, phase, terrain and German vehicle, either
//! ruleset version's order of a step (1: the exit's roll first; 2: R70), random
//! actions of every kind the engine adjudicates (moves in every mode, fire,
//! FFE, Search, clearance, disembarking, routs, advances, end of phase,
//! Secret dr for Dummies, concession; usually by the side the engine lets
//! act, sometimes by the wrong one, sometimes out of phase or off the map),
//! facts answered from the layout (Daisy Chain notes at random, B28.531)
//! and dice from the proptest input.
//!
//! After every action it checks what any game must keep, whatever the dice:
//!
//! 1. no panic, and no error but a rules refusal (`NotYourTurn`,
//!    `WrongPhase`, `NotYourUnit`, `UnknownUnit`, `GameOver`, `Refused`):
//!    `Busy` or a bad-answer error to answers that are correct is an engine
//!    bug (asl/src/model/error.rs);
//! 2. no refusal comes after facts were opened or dice rolled, and no
//!    action is consumed (ruleset version 3, R72, R73): an action whose
//!    resolution could need data the game lacks is refused before anything
//!    is asked, so no ruling is voided or consumed after its dice and no
//!    side rolls the same question twice (G2);
//! 3. a refusal changes nothing (asl/src/model/error.rs: "an error never changes
//!    the game state");
//! 4. determinism (G5): a second engine fed the same inputs asks the same
//!    requests and dice, rules the same events and ends in the same state;
//! 5. sanity: in-play units stand on the map under canonical names,
//!    eliminated units are off it (`Unit::hex`), Disrupted implies broken
//!    (A19.12), aboard units and their vehicle agree (B28.43); no unit comes
//!    back into play, only the units an action moves change hex, only
//!    EndPhase changes the phase (A3); no event names as actor or target a
//!    unit that was out of play before it (the B28.531 bug: a Daisy Chain
//!    attacking a tank the hex's own A-T mines had just eliminated); the
//!    referee's opened facts are the owners' leaves as transitions left
//!    them (DESIGN 3.1), public minefield markers never lie (B28.41,
//!    B28.45, B28.47, B28.48, R13), secrets are never public (G4);
//! 6. G3: the same action against another legal layout of side B's
//!    unopened leaves opens the same facts and makes the same rolls until a
//!    public event tells the two worlds apart;
//! 7. issue 24, G4: each side's client, an `asks::AslObserver` fed what
//!    that side is shown (what it may know of the start, the declared
//!    actions, the public events and its own side's), bounded before the
//!    action every fact the engine then asked of either owner (leaves,
//!    Daisy Chain opportunities by count, a Secret dr), within the hexes
//!    the action reaches; and its fold is what it may know of the
//!    engine's state (`public_state::public_part`).
//!
//! `PROPTEST_CASES=20000 cargo test -p hexveil-core --test random_games`
//! hunts harder than the CI default; `SOAK_TRACE=1 ... -- --nocapture`
//! prints one line per action (what the soak reaches).

mod scenario_support;
use hexveil_asl::asks::AslObserver;
use hexveil_asl::board::map::Map;
use hexveil_asl::dice::{DiceKind, DiceSpec, Roll};
use hexveil_asl::model::action::encode_action;
use hexveil_asl::model::action::FfeKind;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::{Content, DaisyNote, FactRequest, Layer, Location};
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::{UnitId, UnitKind};
use hexveil_asl::public_state::public_part;
use hexveil_asl::ruleset::event_to_kernel;
use hexveil_asl::setup::{check_layout, eligible_locations, SealedSetup};
use hexveil_asl::turn::{phase_allows, Phase, Who};
use hexveil_asl::{Action, ActionError, Engine, Event, EventKind, Hex, MoveMode, Side};
use hexveil_core::Observer as _;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use scenario_support::*;
use std::collections::{BTreeMap, BTreeSet};

/// Actions per game at most (CI); SOAK_ACTIONS overrides it for longer
/// games (up to the game's end after the last turn).
const MAX_ACTIONS: usize = 60;

fn max_actions() -> usize {
    std::env::var("SOAK_ACTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MAX_ACTIONS)
}

/// Every movement mode (B28.44, B28.61, B28.7).
const MODES: [MoveMode; 7] = [
    MoveMode::Normal,
    MoveMode::Bypass,
    MoveMode::Trench,
    MoveMode::TowerStairwell,
    MoveMode::TrailBreak,
    MoveMode::VehicularBypass,
    MoveMode::FlailClearance,
];

/// FFE/bomb FP columns, including ones the IFT does not have (a refusal).
const FFE_FP: [u8; 12] = [1, 2, 4, 6, 8, 12, 16, 20, 24, 30, 36, 3];

/// The kinds of action the soak declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Move,
    Rout,
    Advance,
    Fire,
    Ffe,
    Search,
    ClearFullView,
    InfantryClearance,
    Disembark,
    EndPhase,
    DummyDr,
}

const ALL_KINDS: [Kind; 11] = [
    Kind::Move,
    Kind::Rout,
    Kind::Advance,
    Kind::Fire,
    Kind::Ffe,
    Kind::Search,
    Kind::ClearFullView,
    Kind::InfantryClearance,
    Kind::Disembark,
    Kind::EndPhase,
    Kind::DummyDr,
];

/// What is usually declared in each phase (A3): mostly the phase's own
/// actions, and an end of phase now and then so the game moves on.
fn menu(phase: Phase) -> &'static [Kind] {
    use Kind::*;
    match phase {
        Phase::Setup => &[DummyDr, EndPhase],
        Phase::Rally | Phase::CloseCombat => &[EndPhase],
        Phase::PrepFire => &[Fire, Fire, Ffe, Ffe, EndPhase],
        Phase::Movement => &[
            Move,
            Move,
            Move,
            Move,
            Move,
            Move,
            Search,
            ClearFullView,
            InfantryClearance,
            InfantryClearance,
            Disembark,
            EndPhase,
        ],
        Phase::DefensiveFire => &[Fire, Fire, Fire, EndPhase],
        Phase::AdvancingFire => &[Fire, Fire, EndPhase],
        Phase::Rout => &[Rout, Rout, EndPhase],
        Phase::Advance => &[Advance, Advance, Search, EndPhase],
    }
}

/// The random choices behind one action; turned into an action against the
/// state it is declared in (so that it names units and hexes that matter).
#[derive(Clone, Debug)]
struct Seed {
    kind: u8,
    off_menu: u8,
    wrong_side: u8,
    a: u8,
    b: u8,
    c: u8,
    mask: u8,
}

fn seed() -> impl Strategy<Value = Seed> {
    (
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
    )
        .prop_map(|(kind, off_menu, wrong_side, a, b, c, mask)| Seed {
            kind,
            off_menu,
            wrong_side,
            a,
            b,
            c,
            mask,
        })
}

/// Where and how a game starts.
#[derive(Clone, Debug)]
struct Start {
    /// None: the example's positions in the Setup phase; else the phase
    /// (index into [`phases`]) and phasing side of Game Turn 1.
    phase: Option<(usize, bool)>,
    /// Per unit of the scenario: keep its place, or a hex of [`area`].
    positions: Vec<Option<usize>>,
    /// Per unit: 0..=8 nothing, 9 holds a Daisy Chain (Infantry), 10
    /// concealed, 11 broken, 12 broken and Disrupted, 13 pinned.
    statuses: Vec<u8>,
    /// Side B's layout: None is the example's sealed-b.toml, else codes.
    layout: Option<LayoutCodes>,
    /// What the German vehicle is (see [`vehicle_variant`]).
    vehicle: u8,
    /// Terrain put in hexes of the [`area`] (see [`terrain_variant`]).
    terrain: Vec<(usize, u8)>,
    /// Another layout for side B with the same public setup, for the G3
    /// shadow (see [`g3_same_traffic`]); None is the example's.
    alt: Option<LayoutCodes>,
    /// Side A's hidden mines on board 4, if any (see [`with_side_a_mines`]).
    layout_a: Option<LayoutCodes>,
    /// Deep Snow by SSR (B28.3, B28.51).
    deep_snow: bool,
    /// Each side's ELR (A19.1), 0..=5.
    elr: (u8, u8),
    /// Ruleset version 1's order of a step (the exit's roll first, before
    /// R70; `ruleset::AslV1`), for the games made with it.
    v1: bool,
}

/// A random layout for side B, as codes (see [`random_layout`]).
#[derive(Clone, Debug)]
struct LayoutCodes {
    ap: Vec<(usize, u8)>,
    at: Vec<(usize, u8)>,
    known: Vec<u8>,
    dummy: Option<usize>,
    in_view: u8,
    booby: u8,
}

/// The phases a random start may be in (A3).
fn phases() -> &'static [Phase] {
    Phase::of_a_player_turn()
}

/// Side B's random layout codes.
fn layout_codes() -> impl Strategy<Value = LayoutCodes> {
    (
        proptest::collection::vec((any::<usize>(), 0u8..4), 0..5),
        proptest::collection::vec((any::<usize>(), 1u8..=5), 0..3),
        proptest::collection::vec(0u8..4, 5),
        proptest::option::of(any::<usize>()),
        1u8..=5,
        0u8..4,
    )
        .prop_map(|(ap, at, known, dummy, in_view, booby)| LayoutCodes {
            ap,
            at,
            known,
            dummy,
            in_view,
            booby,
        })
}

fn start() -> impl Strategy<Value = Start> {
    (
        proptest::option::weighted(0.85, (0usize..phases().len(), any::<bool>())),
        proptest::collection::vec(proptest::option::weighted(0.7, any::<usize>()), 6),
        proptest::collection::vec(0u8..14, 6),
        proptest::option::weighted(0.6, layout_codes()),
        0u8..10,
        proptest::collection::vec((any::<usize>(), 0u8..10), 0..6),
        proptest::option::weighted(0.8, layout_codes()),
        proptest::option::weighted(0.3, layout_codes()),
        proptest::bool::weighted(0.2),
        (0u8..=5, 0u8..=5),
        proptest::bool::weighted(0.3),
    )
        .prop_map(
            |(
                phase,
                positions,
                statuses,
                layout,
                vehicle,
                terrain,
                alt,
                layout_a,
                deep_snow,
                elr,
                v1,
            )| Start {
                phase,
                positions,
                statuses,
                layout,
                vehicle,
                terrain,
                alt,
                layout_a,
                deep_snow,
                elr,
                v1,
            },
        )
}

/// The hexes the soak plays in: up to five hexes from the mined woods in
/// 3E4, across the seam of boards 4 and 3 (the example's mines, road and
/// Daisy Chain hex are all here).
fn area(map: &Map) -> Vec<Hex> {
    around(map, 5)
}

/// The hexes up to `radius` hexes from 3E4.
fn around(map: &Map, radius: u32) -> Vec<Hex> {
    let centre = hex("3E4");
    map.all_hexes()
        .into_iter()
        .filter(|h| map.distance(*h, centre) <= radius)
        .collect()
}

/// The hexes whose terrain the example's setups depend on (mines, Known
/// counters, the paved road under A-T mines in full view, B28.1, B28.53).
const SET_TERRAIN: [&str; 10] = [
    "3E4", "3E5", "3E6", "3F5", "3G5", "3C3", "3H2", "3H3", "3H4", "3H5",
];

/// Terrain for a hex by code: woods, grain, brush, a stone building, a
/// trench, a tower, a paved road, a dirt road, marsh, or a wooden building.
fn terrain_variant(code: u8) -> hexveil_asl::board::terrain::HexInfo {
    use hexveil_asl::board::terrain::{HexInfo, Terrain};
    let mut info = HexInfo::of(match code {
        0 => Terrain::Woods,
        1 => Terrain::Grain,
        2 => Terrain::Brush,
        3 => Terrain::StoneBuilding,
        8 => Terrain::Marsh,
        9 => Terrain::WoodenBuilding,
        _ => Terrain::Open,
    });
    match code {
        4 => info.features.trench = true,
        5 => info.features.tower = true,
        6 => info.features.paved_road = true,
        7 => info.features.dirt_road = true,
        _ => {}
    }
    if matches!(code, 3 | 9) {
        info.building_levels = 1;
    }
    info
}

/// The example scenario with terrain put in some hexes of the [`area`] the
/// setups do not depend on.
fn scenario_variant(start: &Start) -> Scenario {
    let mut sc = scenario();
    let area = area(&sc.map);
    let fixed: Vec<Hex> = SET_TERRAIN.iter().map(|h| hex(h)).collect();
    for (i, code) in &start.terrain {
        let h = area[i % area.len()];
        if !fixed.contains(&h) {
            sc.map = sc.map.clone().with_hex(h, terrain_variant(*code));
        }
    }
    sc
}

/// What the German vehicle (ger-pz, with its Rider ger-hs-1) is, by code:
/// 0-1 as in the example; 2 without its Rider (ger-hs-1 beside it); 3 an
/// open-topped AFV carrying ger-hs-1 as Passenger; 4 a Flail Tank (B28.7);
/// 5 an unarmored vehicle (B28.42); 6 without its Aerial AF (R4); 7 a
/// motorcycle; 8 a wagon (B28.5); 9 with a 0 side AF (B28.42).
fn vehicle_variant(st: &mut GameState, code: u8) {
    let Some(pz) = st
        .units
        .values()
        .find(|u| u.vehicle().is_some())
        .map(|u| u.id)
    else {
        return;
    };
    let rider = match &st.units[&pz].kind {
        UnitKind::Vehicle(v) => v.riders.first().copied(),
        _ => None,
    };
    let at = st.units[&pz].hex;
    let UnitKind::Vehicle(v) = &mut st.units.get_mut(&pz).unwrap().kind else {
        return;
    };
    match code {
        2 => v.riders.clear(),
        3 => {
            v.open_topped = true;
            v.passengers = std::mem::take(&mut v.riders);
        }
        4 => v.flail = true,
        5 => v.hull = None,
        6 => v.aerial_af = None,
        7 => {
            v.motorcycle = true;
            v.fully_tracked = false;
        }
        8 => {
            v.wagon = true;
            v.hull = None;
            v.fully_tracked = false;
        }
        9 => {
            if let Some(h) = &mut v.hull {
                h.side = Some(0);
            }
        }
        _ => {}
    }
    if code == 2 {
        if let Some(r) = rider.and_then(|r| st.units.get_mut(&r)) {
            r.status.aboard = None;
            r.hex = at;
        }
    }
}

/// Side B's sealed layout from codes: A-P mines (6, 8, 12) and A-T mines
/// in some eligible hexes, each Known hex mined or a Dummy, A-T factors
/// under the mines in full view, Booby Trap capability on board 3. `None`
/// when the budget or another setup rule rejects it (B28.1, B28.45,
/// B28.47, B28.5, B28.9): the example's layout is used instead.
fn random_layout(sc: &Scenario, codes: &LayoutCodes) -> Option<SealedSetup> {
    random_layout_of(sc, Side::B, codes)
}

/// Side A's hidden mines on board 4, for B's units to walk into: the
/// scenario gives A minefield factors for it (A hides nothing in the
/// example).
fn with_side_a_mines(sc: &mut Scenario) {
    if let Some(ob) = sc.sides.get_mut(&Side::A) {
        ob.minefield_factors = 36;
    }
}

/// A random legal layout of `side` (see [`random_layout`]); side A's mines
/// lie near 4E9, on its side of the seam.
fn random_layout_of(sc: &Scenario, side: Side, codes: &LayoutCodes) -> Option<SealedSetup> {
    let (public_a, public_b) = setups(sc);
    let public_b = if side == Side::A { public_a } else { public_b };
    let centre = hex(if side == Side::A { "4E9" } else { "3E4" });
    let hexes = |layer| -> Vec<Hex> {
        eligible_locations(sc, &public_b, side, layer)
            .into_iter()
            .filter_map(|l| match l {
                Location::Hex(h) => Some(h),
                _ => None,
            })
            .collect()
    };
    let known = public_b.known_hexes(&sc.map);
    let in_view: BTreeSet<Hex> = public_b.at_in_view.iter().copied().collect();
    let ap_hexes: Vec<Hex> = hexes(Layer::AntiPersonnel)
        .into_iter()
        .filter(|h| !known.contains(h) && sc.map.distance(*h, centre) <= 3)
        .collect();
    let at_hexes: Vec<Hex> = hexes(Layer::AntiTank)
        .into_iter()
        .filter(|h| !known.contains(h) && !in_view.contains(h))
        .filter(|h| sc.map.distance(*h, centre) <= 2)
        .collect();
    let mut contents = Vec::new();
    let strength = |k: u8| match k {
        0 => Content::Empty,
        1 => Content::ApMines(hexveil_asl::model::sealed::ApStrength::Six),
        2 => Content::ApMines(hexveil_asl::model::sealed::ApStrength::Eight),
        _ => Content::ApMines(hexveil_asl::model::sealed::ApStrength::Twelve),
    };
    let mut used = BTreeSet::new();
    for (i, k) in codes.ap.iter().filter(|_| !ap_hexes.is_empty()) {
        let h = ap_hexes[i % ap_hexes.len()];
        if used.insert(h) {
            contents.push((Layer::AntiPersonnel, Location::Hex(h), strength(*k)));
        }
    }
    let mut used = BTreeSet::new();
    for (i, f) in codes.at.iter().filter(|_| !at_hexes.is_empty()) {
        let h = at_hexes[i % at_hexes.len()];
        if used.insert(h) {
            let c = Content::AtMines(hexveil_asl::model::sealed::AtFactors::new(*f)?);
            contents.push((Layer::AntiTank, Location::Hex(h), c));
        }
    }
    let mut hidden = contents.len();
    // Known hexes: mined within the Known factors, one Dummy at most, the
    // rest unmined (B28.45, B28.47).
    // A single Known counter is never over an unmined hex; those of a
    // multi-hex line may be (B28.46), so the single ones come first.
    let single: BTreeSet<Hex> = public_b.known.iter().copied().collect();
    let mut known: Vec<Hex> = known.into_iter().collect();
    known.sort_by_key(|h| !single.contains(h));
    let dummy = codes.dummy.map(|i| i % known.len().max(1));
    let mut known_factors = 0;
    for (i, (h, k)) in known.iter().zip(codes.known.iter().cycle()).enumerate() {
        let k = if single.contains(h) { (*k).max(1) } else { *k };
        let mut c = if dummy == Some(i) {
            Content::Dummy
        } else {
            strength(k)
        };
        if let Content::ApMines(st) = c {
            known_factors += u32::from(st.factors());
            if known_factors > sc.side(side).known_factors {
                known_factors -= u32::from(st.factors());
                c = Content::Empty;
            }
        }
        contents.push((Layer::AntiPersonnel, Location::Hex(*h), c));
    }
    for h in &in_view {
        let c = Content::AtMines(hexveil_asl::model::sealed::AtFactors::new(codes.in_view)?);
        contents.push((Layer::AntiTank, Location::Hex(*h), c));
    }
    let level = match codes.booby {
        1 => Some(hexveil_asl::model::sealed::BoobyLevel::C),
        2 => Some(hexveil_asl::model::sealed::BoobyLevel::B),
        3 => Some(hexveil_asl::model::sealed::BoobyLevel::A),
        _ => None,
    };
    if let Some(l) = level.filter(|_| sc.side(side).booby_traps_as_defender) {
        let board = centre.board;
        contents.push((
            Layer::BoobyTrap,
            Location::Board(board),
            Content::BoobyTraps(l),
        ));
    }
    // Over the hidden factors (B28.1, B28.5, B28.9)? Drop hidden mines,
    // A-P first, until it fits.
    loop {
        let sealed = SealedSetup::from_contents(side, &contents);
        match check_layout(sc, &public_b, &sealed, 0) {
            Ok(()) => return Some(sealed),
            Err(_) if hidden > 0 => {
                contents.remove(0);
                hidden -= 1;
            }
            Err(v) => {
                if std::env::var_os("SOAK_TRACE").is_some() {
                    eprintln!("SOAK-LAYOUT rejected: {v:?}");
                }
                return None;
            }
        }
    }
}

/// The starting state of a game: the example's, with units moved and
/// statuses set as `start` says, in its phase.
fn start_state(sc: &Scenario, start: &Start) -> GameState {
    let mut st = state(sc);
    vehicle_variant(&mut st, start.vehicle);
    let area = around(&sc.map, 3);
    let ids: Vec<UnitId> = st.units.keys().copied().collect();
    if let Some((p, b_phasing)) = start.phase {
        st.turn = 1;
        st.phase = phases()[p];
        st.phasing = if b_phasing { Side::B } else { Side::A };
        for (id, pos) in ids.iter().zip(&start.positions) {
            let Some(i) = pos else { continue };
            let to = area[i % area.len()];
            let u = st.units.get_mut(id).unwrap();
            if u.status.aboard.is_some() {
                continue; // it goes where its vehicle goes
            }
            u.hex = Some(to);
            let carried: Vec<UnitId> = match &u.kind {
                UnitKind::Vehicle(v) => v.passengers.iter().chain(&v.riders).copied().collect(),
                _ => Vec::new(),
            };
            for c in carried {
                st.units.get_mut(&c).unwrap().hex = Some(to);
            }
        }
        for (id, s) in ids.iter().zip(&start.statuses) {
            let u = st.units.get_mut(id).unwrap();
            if !u.is_personnel() {
                continue;
            }
            match s {
                10 => u.status.concealed = true,
                11 => u.status.broken = true,
                12 => {
                    u.status.broken = true;
                    u.status.disrupted = true;
                }
                13 => u.status.pinned = true,
                // A Daisy Chain of its own (B28.531), A's units too.
                9 if u.infantry().is_some() && u.daisy_chain.is_none() => u.daisy_chain = Some(3),
                _ => {}
            }
        }
    }
    st
}

/// Dice from the proptest faces, cycling: a dr or Secret dr takes one face,
/// a DR two, a percentile two faces read as two D10 digits.
#[derive(Clone)]
struct Dice {
    faces: Vec<u8>,
    next: usize,
}

impl Dice {
    fn roll(&mut self, spec: &DiceSpec) -> Roll {
        let mut face = || {
            let f = self.faces[self.next % self.faces.len()];
            self.next += 1;
            f
        };
        match spec.kind {
            DiceKind::Dr | DiceKind::SecretDr { .. } => Roll::Dr(face()),
            DiceKind::DR => Roll::DR {
                coloured: face(),
                white: face(),
            },
            DiceKind::Percentile => {
                let (x, y) = (face(), face());
                Roll::Percentile {
                    tens: (x * y) % 10,
                    units: (x + y) % 10,
                }
            }
        }
    }
}

/// What the owners open: the sealed layouts, as changed by the transitions
/// the engine has ruled (B28.62 FFE, B28.6 clearance), and a random Daisy
/// Chain note per opportunity (B28.531): mostly Nothing, else a placement by
/// a random unit in a hex ADJACENT to it (legal or not: an illegal note is
/// ignored, G5).
#[derive(Clone)]
struct Owners {
    layouts: BTreeMap<Side, SealedSetup>,
    changed: BTreeMap<FactRequest, Content>,
    notes: Vec<u8>,
    next_note: usize,
}

impl Owners {
    fn open(&mut self, map: &Map, st: &GameState, q: &FactRequest) -> Content {
        if let Some(c) = self.changed.get(q) {
            return *c;
        }
        if q.layer == Layer::DaisyChain {
            let n = self.notes[self.next_note % self.notes.len()];
            self.next_note += 1;
            if n.is_multiple_of(3) {
                return Content::Daisy(DaisyNote::Nothing);
            }
            let own: Vec<_> = st.units.values().filter(|u| u.side == q.owner).collect();
            let holder = own
                .iter()
                .find(|u| u.daisy_chain.is_some() && n % 7 != 1)
                .or_else(|| own.get(usize::from(n) % own.len().max(1)))
                .map(|u| (u.id, u.hex));
            let Some((holder, Some(at))) = holder else {
                return Content::Daisy(DaisyNote::Nothing);
            };
            let ns = map.neighbors(at);
            let hex = if n % 11 == 5 || ns.is_empty() {
                at
            } else {
                ns[usize::from(n / 3) % ns.len()]
            };
            return Content::Daisy(DaisyNote::Placed { holder, hex });
        }
        self.layouts[&q.owner].content(map, q.layer, q.location)
    }

    /// What the owner's sealed leaf `q` holds now (not for Daisy notes).
    fn current(&self, map: &Map, q: &FactRequest) -> Content {
        self.changed
            .get(q)
            .copied()
            .unwrap_or_else(|| self.layouts[&q.owner].content(map, q.layer, q.location))
    }

    fn note_transitions(&mut self, events: &[Event]) {
        for e in events {
            if let EventKind::Transition {
                request,
                new_content,
            } = &e.kind
            {
                self.changed.insert(*request, *new_content);
            }
        }
    }
}

/// One engine and the answers it is given.
#[derive(Clone)]
struct Table {
    engine: Engine,
    owners: Owners,
    dice: Dice,
}

impl Table {
    fn play(&mut self, side: Side, action: Action) -> Run {
        let map = self.engine.scenario().map.clone();
        let st = self.engine.state().clone();
        let owners = &mut self.owners;
        let run = drive_engine(
            &mut self.engine,
            side,
            action,
            &mut |q| owners.open(&map, &st, q),
            &mut |spec| self.dice.roll(spec),
        );
        if let Ok(events) = &run.result {
            self.owners.note_transitions(events);
        }
        run
    }
}

fn pick<T: Copy>(xs: &[T], i: u8) -> Option<T> {
    (!xs.is_empty()).then(|| xs[usize::from(i) % xs.len()])
}

/// Turns a seed into an action and the side declaring it, against `st`:
/// usually an action of the phase, by the side the engine lets act
/// (`turn::phase_allows`), with units that are in play; sometimes an action
/// of another phase, by the wrong side, naming any unit or a far hex.
fn declare(sc: &Scenario, st: &GameState, hot: &[Hex], s: &Seed) -> (Side, Action) {
    let map = &sc.map;
    let area = area(map);
    let kind = if s.off_menu < 16 {
        ALL_KINDS[usize::from(s.kind) % ALL_KINDS.len()]
    } else {
        pick(menu(st.phase), s.kind).unwrap()
    };
    // Who may declare it (a placeholder action of the kind asks the table).
    let probe = match kind {
        Kind::Move => Action::Move {
            units: vec![],
            to: area[0],
            mode: MoveMode::Normal,
        },
        Kind::Rout => Action::Rout {
            unit: UnitId(0),
            to: area[0],
        },
        Kind::Advance => Action::Advance {
            units: vec![],
            to: area[0],
        },
        Kind::Fire => Action::Fire {
            firers: vec![],
            target: area[0],
            extra_drm: 0,
        },
        Kind::Ffe => Action::Ffe {
            hex: area[0],
            fp: 1,
            kind: FfeKind::HeConcentration,
        },
        Kind::Search => Action::Search { unit: UnitId(0) },
        Kind::ClearFullView => Action::ClearFullViewMines { unit: UnitId(0) },
        Kind::InfantryClearance => Action::InfantryClearance { units: vec![] },
        Kind::Disembark => Action::Disembark {
            vehicle: UnitId(0),
            units: vec![],
        },
        Kind::EndPhase => Action::EndPhase,
        Kind::DummyDr => Action::DummyDr,
    };
    let right = match phase_allows(&probe, st.phase) {
        Ok(Who::NonPhasing) => st.phasing.opponent(),
        Ok(Who::Either) if s.a % 2 == 1 => st.phasing.opponent(),
        _ => st.phasing,
    };
    let side = if s.wrong_side < 20 {
        right.opponent()
    } else {
        right
    };
    // The units it names: usually the side's own in play, sometimes any.
    let pool: Vec<UnitId> = st
        .units
        .values()
        .filter(|u| s.c < 12 || (u.side == side && u.in_play()))
        .map(|u| u.id)
        .collect();
    let first = pick(&pool, s.a).unwrap_or(UnitId(0));
    let here = st.unit(first).and_then(|u| u.hex);
    // Its stack: the units of its side in its hex (aboard ones too), chosen
    // by the mask, itself always first.
    // Now and then a unit named twice, or one from elsewhere.
    let mangle = |v: &mut Vec<UnitId>| match s.wrong_side % 13 {
        0 => v.extend(v.first().copied()),
        1 => v.extend(pick(&pool, s.b)),
        _ => {}
    };
    let stack: Vec<UnitId> = {
        let mut v = vec![first];
        let mates = st
            .units
            .values()
            .filter(|u| u.id != first && u.hex.is_some() && u.hex == here && u.side == side);
        for (i, u) in mates.enumerate() {
            if s.mask & (1 << (i % 8)) != 0 {
                v.push(u.id);
            }
        }
        mangle(&mut v);
        v
    };
    // Half the time a step heads for a mined hex (`hot`), so that mines
    // attack more often than a random walk would let them.
    let near = |i: u8| -> Hex {
        // Now and then a hex that is not on the map at all (board 9), or an
        // edge hex of board 4 far from the fight.
        // (Or a value that names no hex at all: `Hex`'s fields are public.)
        if s.c >= 250 {
            let (board, col, row) = match s.c % 3 {
                0 => (9, 1, 1),
                1 => (4, 0, 1),
                _ => (3, 200, 99),
            };
            return Hex { board, col, row };
        }
        if let (Some(h), Some(t)) = (here, pick(hot, s.mask)) {
            if s.c.is_multiple_of(2) && h != t {
                let ns = map.neighbors(h);
                if let Some(n) = ns.iter().min_by_key(|n| map.distance(**n, t)) {
                    return *n;
                }
            }
        }
        match here {
            Some(h) if s.c >= 8 => {
                let ns = map.neighbors(h);
                pick(&ns, i).unwrap_or(h)
            }
            _ => pick(&area, i).unwrap(),
        }
    };
    let enemy_hexes: Vec<Hex> = st
        .units
        .values()
        .filter(|u| u.side != side && u.in_play())
        .filter_map(|u| u.hex)
        .collect();
    let action = match kind {
        Kind::Move => Action::Move {
            units: stack,
            to: near(s.b),
            mode: if s.mask.is_multiple_of(3) {
                MODES[usize::from(s.b) % MODES.len()]
            } else {
                MoveMode::Normal
            },
        },
        Kind::Rout => Action::Rout {
            unit: first,
            to: near(s.b),
        },
        Kind::Advance => Action::Advance {
            units: stack,
            to: near(s.b),
        },
        Kind::Fire => Action::Fire {
            firers: stack,
            target: if s.c >= 250 {
                near(s.b)
            } else if s.b.is_multiple_of(4) {
                pick(&area, s.mask).unwrap()
            } else {
                pick(&enemy_hexes, s.b).unwrap_or(area[0])
            },
            extra_drm: (s.c % 5) as i8 - 2,
        },
        Kind::Ffe => {
            let targets: Vec<Hex> = st.units.values().filter_map(|u| u.hex).collect();
            let t = pick(&targets, s.b).unwrap_or(area[0]);
            let ns = map.neighbors(t);
            Action::Ffe {
                hex: if s.c >= 250 {
                    near(s.b)
                } else if s.mask.is_multiple_of(2) {
                    t
                } else {
                    pick(&ns, s.mask).unwrap_or(t)
                },
                fp: FFE_FP[usize::from(s.c) % FFE_FP.len()],
                kind: if s.a.is_multiple_of(3) {
                    FfeKind::AerialBomb
                } else {
                    FfeKind::HeConcentration
                },
            }
        }
        Kind::Search => Action::Search { unit: first },
        Kind::ClearFullView => Action::ClearFullViewMines { unit: first },
        Kind::InfantryClearance => Action::InfantryClearance { units: stack },
        Kind::Disembark => {
            let vehicles: Vec<UnitId> = pool
                .iter()
                .copied()
                .filter(|id| st.unit(*id).is_some_and(|u| u.vehicle().is_some()))
                .collect();
            let vehicle = pick(&vehicles, s.a).unwrap_or(first);
            let aboard: Vec<UnitId> = st
                .units
                .values()
                .filter(|u| u.status.aboard == Some(vehicle) || s.mask < 16)
                .map(|u| u.id)
                .collect();
            let mut units: Vec<UnitId> = aboard
                .iter()
                .enumerate()
                .filter(|(i, _)| s.mask & (1 << (i % 4)) != 0 || aboard.len() == 1)
                .map(|(_, id)| *id)
                .collect();
            mangle(&mut units);
            Action::Disembark { vehicle, units }
        }
        Kind::EndPhase if s.mask == 0 && s.a == 0 => Action::Concede,
        Kind::EndPhase => Action::EndPhase,
        Kind::DummyDr => Action::DummyDr,
    };
    (side, action)
}

/// The unit ids an event names as acting or acted upon (not `new`: the
/// units an A19.13 Replacement creates).
fn named_units(e: &Event) -> BTreeSet<u16> {
    const KEYS: [&str; 10] = [
        "unit",
        "units",
        "targets",
        "firers",
        "vehicle",
        "old",
        "holder",
        "seen_by",
        "candidates",
        "selected",
    ];
    fn walk(v: &serde_json::Value, out: &mut BTreeSet<u16>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    if KEYS.contains(&k.as_str()) {
                        collect(x, out);
                    } else {
                        walk(x, out);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    fn collect(v: &serde_json::Value, out: &mut BTreeSet<u16>) {
        match v {
            serde_json::Value::Number(n) => {
                out.extend(n.as_u64().and_then(|n| u16::try_from(n).ok()));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    match e.kind {
        // The owner's input (a Daisy note may name anything).
        EventKind::FactOpened { .. } => return out,
        // The end-of-MPh report that a declared B28.53 clearance came to
        // nothing, its Infantry gone meanwhile: not an act of that unit.
        EventKind::Minefield(
            hexveil_asl::b28::minefield::MinefieldEvent::FullViewClearanceFailed { .. },
        ) => return out,
        // The survival roll of a Passenger or Rider names the vehicle just
        // eliminated (B28.43, R71): the unit that rolls is the one acted on.
        EventKind::Minefield(hexveil_asl::b28::minefield::MinefieldEvent::PrcSurvival {
            unit,
            ..
        }) => {
            out.insert(unit.0);
            return out;
        }
        _ => {}
    }
    walk(&serde_json::to_value(&e.kind).unwrap(), &mut out);
    out
}

/// A unit an event lists twice in one list of units (movers, targets,
/// firers): each unit moves, fires and is attacked once (A4, A7, B28.41).
fn listed_twice(e: &Event) -> Option<u64> {
    fn walk(v: &serde_json::Value) -> Option<u64> {
        match v {
            serde_json::Value::Object(m) => m.iter().find_map(|(k, x)| {
                let list = ["units", "targets", "firers", "selected"].contains(&k.as_str());
                match x {
                    serde_json::Value::Array(a) if list => {
                        let ids: Vec<u64> = a.iter().filter_map(|i| i.as_u64()).collect();
                        let set: BTreeSet<u64> = ids.iter().copied().collect();
                        (set.len() < ids.len()).then(|| ids[0])
                    }
                    _ => walk(x),
                }
            }),
            serde_json::Value::Array(a) => a.iter().find_map(walk),
            _ => None,
        }
    }
    walk(&serde_json::to_value(&e.kind).unwrap())
}

/// A hex an event names (where something happens: `hex`, `to`, `from`,
/// `target`) that is not a hex of the map: rules act on map hexes only.
fn off_map_hex(map: &Map, e: &Event) -> Option<String> {
    fn walk(map: &Map, v: &serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::Object(m) => m.iter().find_map(|(k, x)| match x {
                serde_json::Value::String(name)
                    if ["hex", "to", "from", "target"].contains(&k.as_str()) =>
                {
                    match name.parse::<Hex>() {
                        Ok(h) => (!map.contains(h)).then(|| name.clone()),
                        // `to` and `from` may name a side or a counter (a
                        // surrender, a Replacement); `hex` and `target`
                        // name hexes only.
                        Err(_) => ["hex", "target"]
                            .contains(&k.as_str())
                            .then(|| name.clone()),
                    }
                }
                _ => walk(map, x),
            }),
            serde_json::Value::Array(a) => a.iter().find_map(|x| walk(map, x)),
            _ => None,
        }
    }
    walk(map, &serde_json::to_value(&e.kind).unwrap())
}

/// The units an event takes out of play: eliminated (A10, B28.52),
/// surrendered (A19.12) or replaced (A19.13).
fn removed_by(e: &Event) -> Vec<UnitId> {
    use hexveil_asl::a::morale::MoraleEvent;
    use hexveil_asl::b28::minefield::{MinefieldEvent, VehicleOutcome};
    use hexveil_asl::turn::TurnEvent;
    let gone =
        |o: &VehicleOutcome| matches!(o, VehicleOutcome::Eliminated | VehicleOutcome::BurningWreck);
    match &e.kind {
        EventKind::Morale(MoraleEvent::Eliminated { unit, .. }) => vec![*unit],
        EventKind::Morale(MoraleEvent::Replaced { old, .. }) => vec![*old],
        EventKind::Turn(TurnEvent::Surrendered { unit, .. }) => vec![*unit],
        // (An A-T attack's own event states its outcome; the VehicleHit
        // that follows applies it.)
        EventKind::Minefield(MinefieldEvent::VehicleHit { unit, outcome, .. }) if gone(outcome) => {
            vec![*unit]
        }
        _ => Vec::new(),
    }
}

/// Invariant 5 on a state (see the module doc).
fn state_sanity(map: &Map, st: &GameState) -> Result<(), String> {
    for u in st.units.values() {
        if u.in_play() {
            if let Some(h) = u.hex {
                if !map.contains(h) || map.canonical(h) != h {
                    return Err(format!(
                        "{} in play at {h}, not a canonical map hex",
                        u.name
                    ));
                }
            }
        }
        if u.status.eliminated && u.hex.is_some() {
            return Err(format!("{} is eliminated but still on the map", u.name));
        }
        if u.status.disrupted && !u.status.broken {
            return Err(format!("{} is Disrupted but not broken (A19.12)", u.name));
        }
        // (An out-of-play unit may keep the id of the vehicle it was on.)
        if let Some(v) = u.status.aboard.filter(|_| u.in_play()) {
            let Some(veh) = st.unit(v) else {
                return Err(format!("{} aboard unknown unit {v}", u.name));
            };
            let Some(vd) = veh.vehicle() else {
                return Err(format!("{} aboard {}, not a vehicle", u.name, veh.name));
            };
            if !vd.passengers.contains(&u.id) && !vd.riders.contains(&u.id) {
                return Err(format!("{} aboard {}, not in its PRC", u.name, veh.name));
            }
            if !veh.in_play() {
                return Err(format!(
                    "{} in play aboard {}, out of play (B28.43)",
                    u.name, veh.name
                ));
            }
            if u.hex != veh.hex {
                return Err(format!(
                    "{} aboard {} in {:?}, but in {:?}",
                    u.name, veh.name, veh.hex, u.hex
                ));
            }
        }
        if let Some(vd) = u.vehicle() {
            for p in vd.passengers.iter().chain(&vd.riders) {
                if st.unit(*p).and_then(|x| x.status.aboard) != Some(u.id) {
                    return Err(format!("{} lists PRC {p} that is not aboard it", u.name));
                }
            }
        }
    }
    Ok(())
}

/// Invariant 5 on what the referee and the players know of the mines:
/// every fact the referee holds is the owner's leaf as it stands now
/// (opened, then changed only by ruled transitions: DESIGN 3.1, G4), and
/// the public markers never lie about the mines (B28.41, B28.47,
/// B28.48, B28.51, R13): a revealed A-P or A-T strength is the one there
/// (B28.45: an FFE reduction shows the new one), revealed presence is real
/// unless an FFE changed the hex unseen, and a Dummy marker marks an
/// unmined hex.
fn knowledge_sanity(map: &Map, st: &GameState, owners: &Owners) -> Result<(), String> {
    for (q, c) in &st.referee_knows {
        if q.layer == Layer::DaisyChain {
            continue;
        }
        let now = owners.current(map, q);
        if *c != now {
            return Err(format!(
                "the referee holds {c:?} for {q}, the owner's leaf holds {now:?}"
            ));
        }
    }
    for (h, m) in &st.markers {
        // Each side's mines lie in its own setup area: A's on board 4,
        // B's on board 3.
        let owner = if h.board == 4 { Side::A } else { Side::B };
        let q = |layer| FactRequest {
            owner,
            layer,
            location: Location::Hex(*h),
        };
        let leaf = |layer| owners.current(map, &q(layer));
        // A presence-only marker may stand over mines an FFE took away
        // unseen (B28.45: an unshown strength stays unshown; B28.62).
        let changed = |layer| owners.changed.contains_key(&q(layer));
        let ap = leaf(Layer::AntiPersonnel);
        let at = leaf(Layer::AntiTank);
        match m.ap_revealed {
            Some(Some(s)) if ap != Content::ApMines(s) => {
                return Err(format!("{h} shows {s:?} A-P mines, it holds {ap:?}"));
            }
            Some(None) if !matches!(ap, Content::ApMines(_)) && !changed(Layer::AntiPersonnel) => {
                return Err(format!("{h} shows A-P mines, it holds {ap:?}"));
            }
            _ => {}
        }
        match m.at_revealed {
            Some(Some(f)) if at != Content::AtMines(f) => {
                return Err(format!("{h} shows {f:?} A-T mines, it holds {at:?}"));
            }
            Some(None) if !matches!(at, Content::AtMines(_)) && !changed(Layer::AntiTank) => {
                return Err(format!("{h} shows A-T mines, it holds {at:?}"));
            }
            _ => {}
        }
        if m.dummy_marker && matches!(ap, Content::ApMines(_)) {
            return Err(format!("{h} has a Dummy marker over {ap:?}"));
        }
    }
    Ok(())
}

/// Invariant 5 on a ruling: no event names a unit that was out of play
/// before the action or that an earlier event of the action took out of
/// play (B28.531: a chain does not attack a tank already eliminated).
fn events_sanity(map: &Map, before: &GameState, events: &[Event]) -> Result<(), String> {
    let mut gone: BTreeSet<u16> = before
        .units
        .values()
        .filter(|u| !u.in_play())
        .map(|u| u.id.0)
        .collect();
    for (i, e) in events.iter().enumerate() {
        if let Some(h) = off_map_hex(map, e) {
            return Err(format!(
                "event {i} happens in {h}, not a hex of the map: {e:?}"
            ));
        }
        if let Some(x) = listed_twice(e) {
            return Err(format!("event {i} lists a unit ({x}...) twice: {e:?}"));
        }
        if let Some(x) = named_units(e).intersection(&gone).next() {
            return Err(format!(
                "event {i} names unit {x}, already out of play: {e:?}\nall events: {events:#?}"
            ));
        }
        gone.extend(removed_by(e).into_iter().map(|u| u.0));
    }
    Ok(())
}

/// Invariant 5 across a ruled action: no unit comes back into play (A10,
/// A19.12, A19.13); only units the action moves change hex (a Move,
/// Advance or Rout moves the units it names and what they carry; a
/// Disembark puts its units in the vehicle's hex, B28.43); only the end of
/// a phase changes the turn, phase or phasing side (A3).
fn transition_sanity(before: &GameState, after: &GameState, action: &Action) -> Result<(), String> {
    for (id, b) in &before.units {
        let Some(a) = after.units.get(id) else {
            return Err(format!("{} vanished from the state", b.name));
        };
        if !b.in_play() && a.in_play() {
            return Err(format!("{} came back into play", b.name));
        }
    }
    let movers: Vec<UnitId> = match action {
        Action::Move { units, .. } | Action::Advance { units, .. } => units.clone(),
        Action::Rout { unit, .. } => vec![*unit],
        Action::Disembark { units, .. } => units.clone(),
        _ => Vec::new(),
    };
    let carried = |id: &UnitId| {
        before
            .unit(*id)
            .and_then(|u| u.status.aboard)
            .is_some_and(|v| movers.contains(&v))
    };
    for (id, b) in &before.units {
        let a = &after.units[id];
        if a.in_play() && a.hex != b.hex && !movers.contains(id) && !carried(id) {
            return Err(format!(
                "{} moved from {:?} to {:?}, not named by {action:?}",
                b.name, b.hex, a.hex
            ));
        }
    }
    let when = |s: &GameState| (s.turn, s.phasing, s.phase);
    if *action != Action::EndPhase && after.result.is_none() && when(before) != when(after) {
        return Err(format!(
            "{action:?} changed the turn/phase from {:?} to {:?}",
            when(before),
            when(after)
        ));
    }
    Ok(())
}

/// Invariant 5 on who sees what (G4, B28.47, B28.531): an opened fact, a
/// transition of a sealed leaf and a Daisy Chain placement are never
/// public, and a Secret dr is shown to its roller only.
fn visibility_sanity(events: &[Event]) -> Result<(), String> {
    use hexveil_asl::b28::daisy_chain::DaisyEvent;
    use hexveil_asl::model::event::Visibility;
    for e in events {
        let secret = matches!(
            e.kind,
            EventKind::FactOpened { .. }
                | EventKind::Transition { .. }
                | EventKind::DaisyChain(DaisyEvent::Placed { .. })
        );
        if secret && e.to == Visibility::Public {
            return Err(format!("public secret: {e:?}"));
        }
        if let EventKind::Turn(hexveil_asl::turn::TurnEvent::ExtraDummies { side, .. }) = e.kind {
            if e.to != Visibility::Side(side) {
                return Err(format!("Secret dr result shown to {:?}: {e:?}", e.to));
            }
        }
    }
    Ok(())
}

/// One item of what an action shows, in log order, for G3: a fact opened
/// (which one, not its content), a roll (public), or another public event.
#[derive(Debug, PartialEq)]
enum Shown {
    Fact(FactRequest),
    Roll(EventKind),
    Public(EventKind),
}

fn shown(events: &[Event]) -> Vec<Shown> {
    use hexveil_asl::model::event::Visibility;
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::FactOpened { request, .. } => Some(Shown::Fact(*request)),
            EventKind::Dice { .. } => Some(Shown::Roll(e.kind.clone())),
            k if e.to == Visibility::Public => Some(Shown::Public(k.clone())),
            _ => None,
        })
        .collect()
}

/// G3 (DESIGN 1): the same action in the same public state, against two
/// hidden layouts of side B that differ only in leaves not yet opened, opens
/// the same facts and makes the same rolls, in the same order, until a
/// public event tells the two worlds apart (an attack, a Dummy found...).
fn g3_same_traffic(real: &[Event], shadow: &[Event]) -> Result<(), String> {
    let (a, b) = (shown(real), shown(shadow));
    // The first item at or after `p` that is not a roll: the rolls that
    // decide a public result (an A-T attack DR after a successful trigger
    // dr, B28.51) come just before it.
    fn after_rolls(v: &[Shown], p: usize) -> Option<&Shown> {
        v[p.min(v.len())..]
            .iter()
            .find(|x| !matches!(x, Shown::Roll(_)))
    }
    for p in 0..a.len().max(b.len()) {
        match (a.get(p), b.get(p)) {
            (Some(x), Some(y)) if x == y => continue,
            _ => {}
        }
        let (x, y) = (after_rolls(&a, p), after_rolls(&b, p));
        match (x, y) {
            (Some(Shown::Public(_)), _) | (_, Some(Shown::Public(_))) if x != y => return Ok(()),
            _ => {
                return Err(format!(
                    "G3: traffic depends on hidden content at item {p}: {:?} vs {:?}\nreal: {a:#?}\nshadow: {b:#?}",
                    a.get(p),
                    b.get(p)
                ))
            }
        }
    }
    Ok(())
}

/// Whether an error is a rules refusal (invariant 1).
fn is_refusal(e: &ActionError) -> bool {
    matches!(
        e,
        ActionError::NotYourTurn { .. }
            | ActionError::WrongPhase { .. }
            | ActionError::NotYourUnit { .. }
            | ActionError::UnknownUnit(_)
            | ActionError::GameOver
            | ActionError::Refused(_)
    )
}

/// Each side's client's picture of the game and its bound of what the
/// referee may ask (issue 24): an [`AslObserver`] fed exactly what that
/// side is shown: the start (what it may know of it), the declared
/// actions, and of each ruling the public events and its own side's.
#[derive(Clone)]
struct Watchers {
    sides: [AslObserver; 2],
}

impl Watchers {
    fn new(sc: &Scenario, st0: &GameState) -> Watchers {
        let sc = std::sync::Arc::new(sc.clone());
        Watchers {
            sides: [Side::A, Side::B]
                .map(|v| AslObserver::starting_at(std::sync::Arc::clone(&sc), v, st0)),
        }
    }

    /// What each side's client is shown of a declared action: nothing of a
    /// refusal the referee does not log; a void ruling for a refusal after
    /// facts or dice (R12); else the ruling's events it may see (G3).
    fn follow(&mut self, actor: Side, action: &Action, run: &Run) {
        let events: Vec<Event> = match &run.result {
            Ok(events) => events.clone(),
            Err(_) if run.requests.is_empty() && run.dice.is_empty() => return,
            Err(e) => vec![Event {
                to: hexveil_asl::Visibility::Public,
                kind: EventKind::Void {
                    reason: e.to_string(),
                },
                cite: vec!["R12".into()],
            }],
        };
        let bytes = encode_action(action);
        for o in &mut self.sides {
            o.declared(actor, &bytes);
            let viewer = o.viewer();
            for e in events.iter().filter(|e| e.to.shown_to(viewer)) {
                o.event(&event_to_kernel(e));
            }
        }
    }
}

/// G4 (issue 24): every fact the engine asked while resolving `action` is
/// inside the bound each side's observer gave for its owner from the
/// state before it, through the kernel's `Observer::asks` as the client
/// calls it: leaves by layer and location (B28.41-B28.53, B28.62, B28.9),
/// Daisy Chain opportunities by count (B28.531, R19), a Secret dr
/// (B28.47). And the bound is no blanket: its leaves lie where the action
/// reaches ([`reach`]), e.g. the two hexes of a step. Returns how many
/// requests it checked.
fn g4_requests_within_the_bound(
    watchers: &Watchers,
    before: &GameState,
    map: &Map,
    actor: Side,
    action: &Action,
    run: &Run,
) -> Result<usize, String> {
    let bytes = encode_action(action);
    let secret = run
        .dice
        .iter()
        .any(|d| matches!(d.kind, DiceKind::SecretDr { .. }));
    for o in &watchers.sides {
        let v = o.viewer();
        for owner in [Side::A, Side::B] {
            let asks = o.asks(actor, &bytes, owner);
            let notes = run
                .requests
                .iter()
                .filter(|r| r.owner == owner && r.layer == Layer::DaisyChain)
                .count();
            if notes > asks.notes as usize {
                return Err(format!(
                    "G4, B28.531: side {v}'s bound gives side {owner} {} note opportunities, the engine opened {notes}: {:?}",
                    asks.notes, run.requests
                ));
            }
            if asks.notes > 1 {
                return Err(format!(
                    "B28.531: {} opportunities in one action",
                    asks.notes
                ));
            }
            for r in run
                .requests
                .iter()
                .filter(|r| r.owner == owner && r.layer != Layer::DaisyChain)
            {
                if !asks.leaf(r.layer.to_kernel(), &r.location.to_kernel()) {
                    return Err(format!(
                        "G4: the engine asked {r}, outside side {v}'s bound for side {owner}: {:?}",
                        asks.leaves
                    ));
                }
            }
            if secret && !asks.secret_roll {
                return Err(format!("B28.47: a Secret dr outside side {v}'s bound"));
            }
        }
        let bound = o.bound(actor, action);
        let reach = reach(before, map, action);
        let boards: BTreeSet<u16> = reach.iter().map(|h| h.board).collect();
        if let Some(r) = bound.leaves.iter().find(|r| match r.location {
            Location::Hex(h) => !reach.contains(&h),
            Location::Board(b) => !boards.contains(&b),
            Location::Opportunity(_) => true,
        }) {
            return Err(format!(
                "G4: side {v}'s bound holds {r}, out of the reach of {action:?} ({reach:?})"
            ));
        }
    }
    Ok(run.requests.len())
}

/// The hexes an action can reach with a request (their boards for Booby
/// Traps): a step's hex left and hex entered (B28.412), a Disembark's
/// vehicle hex (B28.43), a Search's hex and its ADJACENT ones (A12.152),
/// an FFE's or a fire attack's target (B28.62, B28.9), the hexes of the
/// clearances an end of phase resolves (B28.53, B28.7).
fn reach(before: &GameState, map: &Map, action: &Action) -> BTreeSet<Hex> {
    let at = |id: &UnitId| {
        before
            .unit(*id)
            .and_then(|u| u.hex)
            .map(|h| map.canonical(h))
    };
    let mut out = BTreeSet::new();
    match action.clone().canonical(map) {
        Action::Move { units, to, .. } | Action::Advance { units, to } => {
            out.extend(units.iter().filter_map(at));
            out.insert(to);
        }
        Action::Rout { unit, to } => {
            out.extend(at(&unit));
            out.insert(to);
        }
        Action::Disembark { vehicle, .. } => out.extend(at(&vehicle)),
        Action::Search { unit } => {
            if let Some(h) = at(&unit) {
                out.insert(h);
                out.extend(map.neighbors(h));
            }
        }
        Action::Ffe { hex, .. } => {
            out.insert(hex);
        }
        Action::Fire { target, .. } | Action::OrdnanceFire { target, .. } => {
            out.insert(target);
        }
        Action::EndPhase => {
            out.extend(before.mines.full_view_clearances.values().copied());
            out.extend(before.mines.flail_clearances.values().map(|f| f.hex));
        }
        _ => {}
    }
    out
}

/// What the fold must agree on with the engine: every public thing the
/// bound reads and the view draws (units' places, states and loads,
/// markers, Trail Breaks, clearances, Daisy Chains, the phase, the MF
/// spent, the result). Not compared: counters' kinds after a Reduction or
/// Replacement (the events give only labels), and the bookkeeping only
/// refusals read.
#[derive(Debug, PartialEq)]
struct Digest {
    when: (u16, Side, Phase),
    result: Option<hexveil_asl::model::state::GameResult>,
    units: Vec<String>,
    markers: BTreeMap<Hex, hexveil_asl::model::state::HexMarkers>,
    trail_breaks: BTreeMap<Hex, BTreeSet<hexveil_asl::model::state::TrailBreak>>,
    flail_clearances: String,
    full_view_clearances: BTreeMap<UnitId, Hex>,
    entered_from: BTreeMap<UnitId, Hex>,
    burning_wrecks: BTreeMap<UnitId, Hex>,
    daisy_chains: Vec<String>,
    extra_dummies: BTreeMap<Side, u8>,
    mf_spent: BTreeMap<UnitId, u8>,
}

fn digest(st: &GameState) -> Digest {
    let units = st
        .units
        .values()
        .map(|u| {
            let v = u.vehicle().map(|v| {
                (
                    v.immobilized,
                    v.flail,
                    v.passengers.clone(),
                    v.riders.clone(),
                )
            });
            let s = &u.status;
            format!(
                "{} in_play={} hex={:?} broken={} pinned={} disrupted={} concealed={} aboard={:?} facing={:?} chain={:?} vehicle={v:?}",
                u.id.0,
                u.in_play(),
                u.hex.filter(|_| u.in_play()),
                s.broken,
                s.pinned,
                s.disrupted,
                s.concealed,
                s.aboard,
                s.facing,
                u.daisy_chain.is_some() && u.in_play(),
            )
        })
        .collect();
    let mut chains: Vec<String> = st.daisy_chains.iter().map(|d| format!("{d:?}")).collect();
    chains.sort();
    Digest {
        when: (st.turn, st.phasing, st.phase),
        result: st.result.clone(),
        units,
        markers: st
            .markers
            .iter()
            .filter(|(_, m)| **m != Default::default())
            .map(|(h, m)| (*h, *m))
            .collect(),
        trail_breaks: st
            .mines
            .trail_breaks
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(h, v)| (*h, v.iter().copied().collect()))
            .collect(),
        flail_clearances: format!("{:?}", st.mines.flail_clearances),
        full_view_clearances: st.mines.full_view_clearances.clone(),
        entered_from: st.mines.entered_from.clone(),
        burning_wrecks: st.mines.burning_wrecks.clone(),
        daisy_chains: chains,
        extra_dummies: st.extra_dummies.clone(),
        mf_spent: st.mf_spent.clone(),
    }
}

/// G3, issue 24: each side's fold of what it was shown is what it may
/// know of the engine's state (`public_state::public_part`): one fold,
/// right, for the bound and the view alike.
fn g3_fold_is_the_public_state(watchers: &Watchers, engine: &GameState) -> Result<(), String> {
    for o in &watchers.sides {
        let want = digest(&public_part(engine, Some(o.viewer())));
        let got = digest(&o.public().state);
        if want != got {
            return Err(format!(
                "side {}'s fold differs from the engine's public state:\nengine: {want:#?}\nfold:   {got:#?}",
                o.viewer()
            ));
        }
    }
    Ok(())
}

/// What a game played: actions ruled, and fact requests checked against
/// the sides' bounds (invariant 7).
#[derive(Clone, Copy, Debug, Default)]
struct Played {
    ruled: usize,
    requests: usize,
}

/// Plays one random game on two engines (and a G3 shadow) and checks
/// invariants 1-7 after every action.
fn play_game(
    start: &Start,
    seeds: &[Seed],
    faces: &[u8],
    notes: &[u8],
) -> Result<Played, TestCaseError> {
    let sealed_a = SealedSetup::from_toml(include_str!("../../examples/sealed-a.toml")).unwrap();
    // The terrain variant, if the example's setups stay legal on it.
    let plain = scenario();
    let varied = scenario_variant(start);
    let (_, public_b) = setups(&plain);
    let mut sc = if check_layout(&varied, &public_b, &sealed_b(), 0).is_ok() {
        varied
    } else {
        plain
    };
    sc.ssr.deep_snow = start.deep_snow;
    // Version 1 asks a step's exit roll first (before R70) and voids a
    // late refusal (R36) instead of refusing before any die (R72).
    if start.v1 {
        sc.version = hexveil_asl::model::scenario::Version(1);
    }
    if start.layout_a.is_some() {
        with_side_a_mines(&mut sc);
    }
    let sealed_a = start
        .layout_a
        .as_ref()
        .and_then(|c| random_layout_of(&sc, Side::A, c))
        .unwrap_or(sealed_a);
    if std::env::var_os("SOAK_TRACE").is_some() {
        eprintln!(
            "SOAK-A-MINES {} A-P, {} A-T",
            sealed_a.ap.len(),
            sealed_a.at.len()
        );
    }
    for (side, elr) in [(Side::A, start.elr.0), (Side::B, start.elr.1)] {
        if let Some(ob) = sc.sides.get_mut(&side) {
            ob.elr = elr;
        }
    }
    let sealed_b = start
        .layout
        .as_ref()
        .and_then(|c| random_layout(&sc, c))
        .unwrap_or_else(sealed_b);
    let alt_b = start
        .alt
        .as_ref()
        .and_then(|c| random_layout(&sc, c))
        .unwrap_or_else(scenario_support::sealed_b);
    let alt_notes: Vec<u8> = notes
        .iter()
        .map(|n| n.wrapping_mul(7).wrapping_add(1))
        .collect();
    let st0 = start_state(&sc, start);
    let hot: Vec<Hex> = [&sealed_a, &sealed_b]
        .iter()
        .flat_map(|l| {
            let l = l.canonical(&sc.map);
            l.ap.iter()
                .chain(&l.at)
                .map(|(h, _)| *h)
                .collect::<Vec<_>>()
        })
        .collect();
    let table = || Table {
        engine: Engine::with_state(sc.clone(), st0.clone()),
        owners: Owners {
            layouts: [(Side::A, sealed_a.clone()), (Side::B, sealed_b.clone())].into(),
            changed: BTreeMap::new(),
            notes: notes.to_vec(),
            next_note: 0,
        },
        dice: Dice {
            faces: faces.to_vec(),
            next: 0,
        },
    };
    let mut tables = [table(), table()];
    prop_assert_eq!(state_sanity(&sc.map, &st0), Ok(()), "starting state");
    let mut watchers = Watchers::new(&sc, &st0);
    prop_assert_eq!(
        g3_fold_is_the_public_state(&watchers, tables[0].engine.state()),
        Ok(()),
        "starting state"
    );
    let mut played = Played::default();
    let mut log = Vec::new();
    for (n, s) in seeds.iter().enumerate() {
        let before = tables[0].engine.state().clone();
        if before.result.is_some() {
            break;
        }
        let (side, action) = declare(&sc, &before, &hot, s);
        // The G3 shadow: the same table but side B's unopened leaves from
        // another layout...
        let mut shadow = tables[0].clone();
        shadow.owners.layouts.insert(Side::B, alt_b.clone());
        // ... and other Daisy Chain notes (B28.531: placements are hidden).
        shadow.owners.notes = alt_notes.clone();
        let shadow_run = shadow.play(side, action.clone());
        let runs = [
            tables[0].play(side, action.clone()),
            tables[1].play(side, action.clone()),
        ];
        let [run, twin] = &runs;
        let ctx = format!(
            "action {n}: side {side} {action:?} in {:?}\ngame so far:\n{}",
            before.phase,
            log.join("\n")
        );
        log.push(format!(
            "{n}: {side} {action:?} in {:?}: {}",
            before.phase,
            outcome(run)
        ));
        // G5: same inputs, same requests, rulings and state.
        prop_assert_eq!(&run.requests, &twin.requests, "G5 requests, {}", ctx);
        prop_assert_eq!(&run.steps, &twin.steps, "G5 traffic, {}", ctx);
        prop_assert_eq!(&run.result, &twin.result, "G5 ruling, {}", ctx);
        prop_assert_eq!(
            tables[0].engine.state(),
            tables[1].engine.state(),
            "G5 state, {}",
            ctx
        );
        prop_assert!(!tables[0].engine.is_pending(), "left pending, {}", ctx);
        if std::env::var_os("SOAK_TRACE").is_some() {
            let what = format!("{action:?}");
            let what = what.split([' ', '{']).next().unwrap_or_default();
            eprintln!("SOAK {:?} {what}: {}", before.phase, outcome(run));
        }
        match &run.result {
            Err(e) => {
                prop_assert!(is_refusal(e), "not a rules refusal: {e:?}, {}", ctx);
                if let (ActionError::Refused(_), true) = (e, sc.since(3)) {
                    let late = !run.requests.is_empty() || !run.dice.is_empty();
                    prop_assert!(
                        !late,
                        "late refusal (R72: refuse before anything is asked): {e}; asked {:?}, dice {:?}, {}",
                        run.requests,
                        run.dice,
                        ctx
                    );
                }
                prop_assert_eq!(
                    tables[0].engine.state(),
                    &before,
                    "a refusal changed the state, {}",
                    ctx
                );
            }
            Ok(events) => {
                played.ruled += 1;
                let consumed = events.iter().any(|e| {
                    matches!(
                        e.kind,
                        hexveil_asl::model::event::EventKind::Turn(
                            hexveil_asl::turn::TurnEvent::Consumed { .. }
                        )
                    )
                });
                prop_assert!(
                    !consumed,
                    "an action was consumed (R72, R73): {events:?}, {}",
                    ctx
                );
                let g3 = match &shadow_run.result {
                    Ok(other) => g3_same_traffic(events, other),
                    Err(_) => Ok(()),
                };
                if let Err(m) = g3
                    .and_then(|()| events_sanity(&sc.map, &before, events))
                    .and_then(|()| visibility_sanity(events))
                    .and_then(|()| transition_sanity(&before, tables[0].engine.state(), &action))
                {
                    return Err(TestCaseError::fail(format!("{m}\n{ctx}")));
                }
            }
        }
        if let Err(m) = state_sanity(&sc.map, tables[0].engine.state())
            .and_then(|()| knowledge_sanity(&sc.map, tables[0].engine.state(), &tables[0].owners))
        {
            return Err(TestCaseError::fail(format!(
                "{m}\nafter {ctx}\nwhich ruled: {:?}",
                run.result
            )));
        }
        // Invariant 7 (issue 24, G4): the sides' bounds hold every request,
        // and their folds stay the public state.
        match g4_requests_within_the_bound(&watchers, &before, &sc.map, side, &action, run) {
            Ok(n) => played.requests += n,
            Err(m) => return Err(TestCaseError::fail(format!("{m}\n{ctx}"))),
        }
        watchers.follow(side, &action, run);
        if let Err(m) = g3_fold_is_the_public_state(&watchers, tables[0].engine.state()) {
            return Err(TestCaseError::fail(format!(
                "{m}\nafter {ctx}\nwhich ruled: {:?}",
                run.result
            )));
        }
    }
    Ok(played)
}

/// What came of an action, in one line: the kinds of its events, or the
/// refusal (for the game log of a failure and `SOAK_TRACE=1 ...
/// --nocapture`, which shows what the soak reaches).
fn outcome(run: &Run) -> String {
    match &run.result {
        Ok(events) => {
            let kinds: Vec<String> = events
                .iter()
                .map(|e| {
                    let k = serde_json::to_value(&e.kind).unwrap();
                    match k {
                        serde_json::Value::Object(m) => m
                            .iter()
                            .next()
                            .map(|(k, v)| match v {
                                serde_json::Value::Object(i) => {
                                    format!("{k}.{}", i.keys().next().cloned().unwrap_or_default())
                                }
                                _ => k.clone(),
                            })
                            .unwrap_or_default(),
                        other => other.to_string(),
                    }
                })
                .collect();
            format!("OK {}", kinds.join(" "))
        }
        Err(ActionError::Refused(r)) => format!("REFUSED {} [{}]", r.reason, r.cite.join(",")),
        Err(e) => format!("ERR {e}"),
    }
}

/// How many cases CI runs: PROPTEST_CASES overrides it for a hunt.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Invariants 1-7 of the module doc (no panic or non-rules error, late
    /// refusals cite R12, refusals change nothing, G5 determinism, state,
    /// event and knowledge sanity, G3 traffic, G4 bounds of what an owner
    /// may be asked) over random games of the example scenario.
    #[test]
    fn g3_g4_g5_r12_random_games_keep_the_engine_invariants(
        start in start(),
        seeds in proptest::collection::vec(seed(), 1..=max_actions()),
        faces in proptest::collection::vec(1u8..=6, 1..64),
        notes in proptest::collection::vec(any::<u8>(), 1..8),
    ) {
        play_game(&start, &seeds, &faces, &notes)?;
    }
}

/// The soak exercises the engine: over a fixed batch of games many actions
/// are ruled (not all refused), so the invariants above are not checked on
/// refusals alone.
#[test]
fn soak_rules_actions_not_only_refusals() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (
        start(),
        proptest::collection::vec(seed(), MAX_ACTIONS..=MAX_ACTIONS),
        proptest::collection::vec(1u8..=6, 8..64),
        proptest::collection::vec(any::<u8>(), 1..8),
    );
    let mut ruled = 0;
    let mut declared = 0;
    let mut requests = 0;
    for _ in 0..8 {
        let (start, seeds, faces, notes) = strategy.new_tree(&mut runner).unwrap().current();
        declared += seeds.len();
        let played = play_game(&start, &seeds, &faces, &notes).unwrap();
        ruled += played.ruled;
        requests += played.requests;
    }
    assert!(
        ruled * 4 >= declared,
        "only {ruled} of {declared} actions were ruled"
    );
    // Invariant 7 is checked on real traffic, not on empty requests.
    assert!(
        requests >= 20,
        "only {requests} fact requests checked against the sides' bounds"
    );
}
