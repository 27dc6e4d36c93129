//! Shared fixtures of the B28 minefield tests: a board-4 scenario, unit
//! builders, a sealed layout given as literal facts, and a driver that
//! answers the Engine's requests from the layout and a literal dice list.
#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;
pub use common::*;

use hexveil_asl::b28::minefield::MinefieldEvent;
use hexveil_asl::b28::movement::MoveEvent;
use hexveil_asl::board::map::Map;
use hexveil_asl::board::terrain::{HexInfo, Terrain};
use hexveil_asl::dice::{DiceKind, DiceSpec, Roll};
use hexveil_asl::model::event::Visibility;
use hexveil_asl::model::scenario::{Scenario, SetupArea, SideOb, Ssr};
use hexveil_asl::model::sealed::{ApStrength, AtFactors, Content, FactRequest, Layer, Location};
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::{
    Class, HullArmor, Infantry, InfantrySize, Unit, UnitId, UnitKind, Vehicle,
};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, ActionError, Engine, EventKind, MoveMode, Side};
use std::collections::BTreeMap;

/// The DR of a potential A-P attack in a hex that holds no A-P mines: the
/// rules roll it all the same so that the dice traffic never depends on
/// hidden content, and leave it unused (G3). Snake eyes, so that a test
/// would see a drastic result if the engine ever used it.
pub fn unused_dr() -> Roll {
    dr(1, 1)
}

/// A German unit of the minefield tests.
fn base(id: u16, side: Side, at: &str, kind: UnitKind) -> Unit {
    new_unit(id, side, "German", at, kind)
}

/// A 4-6-7 1st Line squad.
pub fn squad(id: u16, side: Side, at: &str) -> Unit {
    base(
        id,
        side,
        at,
        UnitKind::Infantry(Infantry {
            size: InfantrySize::Squad,
            strength: "4-6-7".parse().unwrap(),
            underscored: false,
            class: Class::FirstLine,
        }),
    )
}

/// A 2-4-7 half-squad.
pub fn half_squad(id: u16, side: Side, at: &str) -> Unit {
    base(
        id,
        side,
        at,
        UnitKind::Infantry(Infantry {
            size: InfantrySize::HalfSquad,
            strength: "2-4-7".parse().unwrap(),
            underscored: false,
            class: Class::FirstLine,
        }),
    )
}

/// A plain vehicle record.
pub fn vehicle_data() -> Vehicle {
    Vehicle {
        printed_mp: 12,
        ..Vehicle::default()
    }
}

/// A fully-tracked AFV with hull AF 8/5/3 and the given Aerial AF.
pub fn afv(id: u16, side: Side, at: &str, aerial_af: Option<u8>) -> Unit {
    base(
        id,
        side,
        at,
        UnitKind::Vehicle(Vehicle {
            hull: Some(HullArmor {
                front: 8,
                side: Some(5),
                rear: Some(3),
            }),
            aerial_af,
            fully_tracked: true,
            ..vehicle_data()
        }),
    )
}

/// An unarmored truck.
pub fn truck(id: u16, side: Side, at: &str) -> Unit {
    base(id, side, at, UnitKind::Vehicle(vehicle_data()))
}

/// A vehicle with custom data.
pub fn vehicle(id: u16, side: Side, at: &str, v: Vehicle) -> Unit {
    base(id, side, at, UnitKind::Vehicle(v))
}

/// Puts `prc` aboard `veh` as a Passenger (or a Rider).
pub fn board(units: &mut [Unit], veh: u16, prc: u16, rider: bool) {
    let at = units.iter().find(|u| u.id == UnitId(veh)).unwrap().hex;
    for u in units.iter_mut() {
        if u.id == UnitId(prc) {
            u.status.aboard = Some(UnitId(veh));
            u.hex = at;
        }
    }
    for u in units.iter_mut() {
        if u.id == UnitId(veh) {
            if let UnitKind::Vehicle(v) = &mut u.kind {
                if rider {
                    v.riders.push(UnitId(prc));
                } else {
                    v.passengers.push(UnitId(prc));
                }
            }
        }
    }
}

/// Open ground with a paved road: a hex where hidden mines may not lie
/// (B28.1).
pub fn paved_road() -> HexInfo {
    let mut road = HexInfo::of(Terrain::Open);
    road.features.paved_road = true;
    road
}

/// A scenario on board 4 with these units and terrain: side B lays the
/// mines (48 hidden and 24 Known factors), side A, the mover of most tests,
/// has none of its own, so its own leaves are never asked (R74). (The
/// struct update keeps it building when the scenario gains fields.)
#[allow(clippy::needless_update)]
pub fn scenario(units: &[Unit], terrain: &[(&str, HexInfo)], deep_snow: bool) -> Scenario {
    let mut sides = BTreeMap::new();
    for s in [Side::A, Side::B] {
        let (minefield_factors, known_factors) = if s == Side::B { (48, 24) } else { (0, 0) };
        sides.insert(
            s,
            SideOb {
                nationality: "German".into(),
                elr: 3,
                minefield_factors,
                known_factors,
                setup_area: SetupArea {
                    boards: vec![4],
                    hexes: Vec::new(),
                },
                ..SideOb::default()
            },
        );
    }
    Scenario {
        name: "mines test".into(),
        map: board_4(terrain.iter().copied()),
        ssr: Ssr {
            deep_snow,
            ..Ssr::default()
        },
        sides,
        units: units.to_vec(),
        first_phasing: Some(Side::A),
        ..Scenario::default()
    }
}

/// An engine in side A's MPh.
pub fn engine(sc: Scenario) -> Engine {
    engine_in(sc, Phase::Movement)
}

/// An engine in side A's `phase`.
pub fn engine_in(sc: Scenario, phase: Phase) -> Engine {
    engine_where(sc, phase, |_| {})
}

/// An engine in side A's MPh with these units on open ground (board 4, no
/// terrain, no Deep Snow): the usual place of a minefield test.
pub fn engine_with(units: &[Unit]) -> Engine {
    engine(scenario(units, &[], false))
}

/// EXAMPLE DATA for tests, not A7.308's numbers: a whole Vehicle line, the
/// shipped Kill Numbers (4 FP: 5, 8 FP: 7) and made-up ones where the data
/// was not found, as a league would supply it (R12).
pub const EXAMPLE_VEHICLE_LINE: &str =
    "# EXAMPLE DATA for hexveil's tests, not the printed Vehicle line\n\
fp_column,kill_number,status\n1,3,example\n2,4,example\n4,5,shipped\n6,6,example\n8,7,shipped\n\
12,8,example\n16,9,example\n20,10,example\n24,11,example\n30,12,example\n36,13,example\n";

/// EXAMPLE DATA for tests, not D5.6/D6.9's numbers: PRC survival as a
/// league would supply it (R71): a Passenger survives on a dr <= 3 (<= 2
/// from a Burning Wreck), a Rider on <= 4 (<= 3).
pub const EXAMPLE_PRC_SURVIVAL: &str =
    "# EXAMPLE DATA for hexveil's tests, not the printed survival numbers\n\
outcome,role,survival_dr_max\neliminated,passenger,3\neliminated,rider,4\n\
burning_wreck,passenger,2\nburning_wreck,rider,3\n";

/// Supplies rules-data tables to a scenario, as its `[tables]` would (R12).
pub fn supply(sc: &mut Scenario, tables: &[(&str, &str)]) {
    for (name, csv) in tables {
        sc.tables.0.insert(
            name.to_string(),
            hexveil_core::SuppliedTable {
                csv: Some(csv.to_string()),
                ..Default::default()
            },
        );
    }
    hexveil_asl::supplied::check(sc).expect("the example tables are read whole");
}

/// [`engine_with`], the scenario supplying [`EXAMPLE_VEHICLE_LINE`] and
/// [`EXAMPLE_PRC_SURVIVAL`]: for the rules that need them, not for their
/// absence.
pub fn engine_with_data(units: &[Unit]) -> Engine {
    let mut sc = scenario(units, &[], false);
    supply(
        &mut sc,
        &[
            ("ift_vehicle_line", EXAMPLE_VEHICLE_LINE),
            ("prc_survival", EXAMPLE_PRC_SURVIVAL),
        ],
    );
    engine(sc)
}

/// An engine in side A's `phase` whose starting state `edit` has changed
/// (markers placed, a unit moved): the situation of the test.
pub fn engine_where(sc: Scenario, phase: Phase, edit: impl FnOnce(&mut GameState)) -> Engine {
    let mut st = state_in(&sc, phase);
    edit(&mut st);
    Engine::with_state(sc, st)
}

/// A request for side `owner`'s `layer` in `h`.
pub fn req(owner: Side, layer: Layer, h: &str) -> FactRequest {
    FactRequest {
        owner,
        layer,
        location: Location::Hex(hex(h)),
    }
}

/// Side B's A-P leaf in `h`.
pub fn ap_b(h: &str) -> FactRequest {
    req(Side::B, Layer::AntiPersonnel, h)
}

/// Side B's A-T leaf in `h`.
pub fn at_b(h: &str) -> FactRequest {
    req(Side::B, Layer::AntiTank, h)
}

/// A-P content.
pub fn ap(f: u8) -> Content {
    Content::ApMines(ApStrength::from_factors(f).unwrap())
}

/// A-T content.
pub fn at(f: u8) -> Content {
    Content::AtMines(AtFactors::new(f).unwrap())
}

/// A sealed layout: every leaf not listed is Empty.
pub type Layout = BTreeMap<FactRequest, Content>;

/// A layout from pairs.
pub fn layout(pairs: &[(FactRequest, Content)]) -> Layout {
    pairs.iter().copied().collect()
}

/// A-P content by code (property tests): 0 none, 1, 2, 3+ for 6, 8, 12
/// factors.
pub fn ap_content(k: u8) -> Content {
    match k {
        0 => Content::Empty,
        1 => ap(6),
        2 => ap(8),
        _ => ap(12),
    }
}

/// A-T content by code (property tests): 0 none, else that many factors.
pub fn at_content(k: u8) -> Content {
    if k == 0 {
        Content::Empty
    } else {
        at(k)
    }
}

/// Side B's layout over `center` and every hex up to two hexes from it,
/// in hex order: each hex takes its A-P and A-T codes (see [`ap_content`],
/// [`at_content`]) from the next pair of `codes`, cycling (property tests).
pub fn layout_around(map: &Map, center: &str, codes: &[(u8, u8)]) -> Layout {
    let c = hex(center);
    let mut area = map.neighbors(c);
    area.push(c);
    for n in map.neighbors(c) {
        area.extend(map.neighbors(n));
    }
    area.sort();
    area.dedup();
    let mut lay = Layout::new();
    for (h, (a, t)) in area.iter().zip(codes.iter().cycle()) {
        let name = h.to_string();
        lay.insert(ap_b(&name), ap_content(*a));
        lay.insert(at_b(&name), at_content(*t));
    }
    lay
}

/// What the owner's sealed setup says for `q`: the layout's content, else
/// Empty.
pub fn sealed(layout: &Layout, q: &FactRequest) -> Content {
    layout.get(q).copied().unwrap_or(Content::Empty)
}

/// The minefield views of a driven action's events.
impl Run {
    /// Minefield events with their visibility.
    pub fn mine_events(&self) -> Vec<(Visibility, MinefieldEvent)> {
        picked(self.events(), |e| match &e.kind {
            EventKind::Minefield(m) => Some((e.to, m.clone())),
            _ => None,
        })
    }

    /// Asserts the action was refused ([`ActionError::Refused`]) before any
    /// hidden fact was asked (G3).
    pub fn assert_refused_asking_nothing(&self) {
        assert!(
            matches!(self.result, Err(ActionError::Refused(_))),
            "expected a refusal, got {:?}",
            self.result
        );
        assert!(self.requests.is_empty(), "asked {:?}", self.requests);
    }

    /// Public minefield events.
    pub fn public_mines(&self) -> Vec<MinefieldEvent> {
        self.mine_events()
            .into_iter()
            .filter(|(v, _)| *v == Visibility::Public)
            .map(|(_, m)| m)
            .collect()
    }

    /// Movement events.
    pub fn moves(&self) -> Vec<MoveEvent> {
        picked(self.events(), |e| match &e.kind {
            EventKind::Move(m) => Some(m.clone()),
            _ => None,
        })
    }
}

/// Drives `action` to the end, answering facts from `layout` and dice from
/// `dice` via `next_die`. Stops with the refusal if any.
pub fn drive_with(
    e: &mut Engine,
    side: Side,
    action: Action,
    layout: &Layout,
    next_die: &mut dyn FnMut(&DiceSpec) -> Roll,
) -> Run {
    drive_engine(e, side, action, &mut |q| sealed(layout, q), next_die)
}

/// Drives `action` with literal dice; panics if the rules ask for more dice
/// than given or leave some unused.
pub fn drive(e: &mut Engine, side: Side, action: Action, layout: &Layout, rolls: &[Roll]) -> Run {
    drive_engine_rolls(e, side, action, &mut |q| sealed(layout, q), rolls)
}

/// Side A moves `units` one hex into `to` in Normal mode, facts from
/// `layout`, dice `rolls` (all of them used).
pub fn step(e: &mut Engine, units: &[u16], to: &str, layout: &Layout, rolls: &[Roll]) -> Run {
    step_by(e, units, to, MoveMode::Normal, layout, rolls)
}

/// Infantry unit 1 steps from 4E4 (no mines there) into 4E5 over side
/// B's A-P mines of `strength`: the exit rolls its potential attack's DR,
/// unused (G3), then the entry uses `entry`.
pub fn step_onto_ap(e: &mut Engine, strength: u8, entry: &[Roll]) -> Run {
    let lay = layout(&[(ap_b("4E5"), ap(strength))]);
    let mut rolls = vec![unused_dr()];
    rolls.extend_from_slice(entry);
    step(e, &[1], "4E5", &lay, &rolls)
}

/// Vehicle 1 steps from 4E4 (no mines there: a quiet exit, see
/// [`quiet_exit_then`]) into 4E5 with side B's sealed `layout`; the entry
/// uses `entry`.
pub fn vehicle_step(e: &mut Engine, layout: &Layout, entry: &[Roll]) -> Run {
    step(e, &[1], "4E5", layout, &quiet_exit_then(entry))
}

/// [`step`] in another movement `mode` (Bypass, Trench, TrailBreak...).
pub fn step_by(
    e: &mut Engine,
    units: &[u16],
    to: &str,
    mode: MoveMode,
    layout: &Layout,
    rolls: &[Roll],
) -> Run {
    drive(e, Side::A, mv(units, to, mode), layout, rolls)
}

/// The rolls of a vehicle's step out of an eligible hex without mines —
/// its exit's potential A-P attack DR, unused, and an A-T trigger dr of 6,
/// which triggers nothing (G3) — followed by `entry`, the rolls of the hex
/// entered.
pub fn quiet_exit_then(entry: &[Roll]) -> Vec<Roll> {
    let mut rolls = vec![unused_dr(), d(6)];
    rolls.extend_from_slice(entry);
    rolls
}

/// The rolls of a step between two eligible hexes without A-P mines by a
/// unit that never triggers A-T mines (Infantry, a motorcycle): each
/// crossing rolls its potential A-P attack's DR, unused (G3).
pub fn quiet_step() -> Vec<Roll> {
    vec![unused_dr(), unused_dr()]
}

/// The rolls of a vehicle's step between two eligible hexes without mines:
/// a quiet exit and a quiet entry (see [`quiet_exit_then`]).
pub fn quiet_vehicle_step() -> Vec<Roll> {
    quiet_exit_then(&[unused_dr(), d(6)])
}

/// A Search action of `unit` (B28.1).
pub fn search(unit: u16) -> Action {
    Action::Search { unit: UnitId(unit) }
}

/// A Move action.
pub fn mv(units: &[u16], to: &str, mode: MoveMode) -> Action {
    Action::Move {
        units: units.iter().map(|i| UnitId(*i)).collect(),
        to: hex(to),
        mode,
    }
}

/// Runs a rules function (an end-of-phase hook, say) over a context the way
/// the Engine does, answering facts from `layout` and dice from `rolls`;
/// panics if it completes with dice left over.
pub fn run_ctx(
    sc: &Scenario,
    state: &GameState,
    actor: Side,
    layout: &Layout,
    rolls: &[Roll],
    f: impl Fn(&mut hexveil_asl::model::resolve::Ctx<'_>) -> hexveil_asl::model::resolve::Res<()>,
) -> CtxRun {
    let run = drive_ctx(sc, state, actor, &|q| sealed(layout, &q), rolls, &f);
    if run.result.is_ok() {
        assert_eq!(run.rolls_used, rolls.len(), "dice left over");
    }
    run
}

/// Dice answered from a list of faces, cycling (property tests).
pub fn dice_from(faces: Vec<u8>) -> impl FnMut(&DiceSpec) -> Roll {
    let mut i = 0usize;
    move |spec: &DiceSpec| {
        let mut face = || {
            let f = faces[i % faces.len()];
            i += 1;
            f
        };
        match spec.kind {
            DiceKind::DR => Roll::DR {
                coloured: face(),
                white: face(),
            },
            DiceKind::Percentile => Roll::Percentile { tens: 0, units: 1 },
            _ => Roll::Dr(face()),
        }
    }
}
