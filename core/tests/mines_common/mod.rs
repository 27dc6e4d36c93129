//! Shared fixtures of the B28 minefield tests: a board-4 scenario, unit
//! builders, a sealed layout given as literal facts, and a driver that
//! answers the Engine's requests from the layout and a literal dice list.
#![allow(dead_code)]

use hexveil_core::dice::{DiceKind, DiceSpec, Roll};
use hexveil_core::event::{Event, Visibility};
use hexveil_core::map::Map;
use hexveil_core::minefield::MinefieldEvent;
use hexveil_core::movement::MoveEvent;
use hexveil_core::scenario::{Scenario, SetupArea, SideOb, Ssr};
use hexveil_core::sealed::{ApStrength, AtFactors, Content, Fact, FactRequest, Layer, Location};
use hexveil_core::state::GameState;
use hexveil_core::terrain::{HexInfo, Terrain};
use hexveil_core::turn::Phase;
use hexveil_core::unit::{
    Class, HullArmor, Infantry, InfantrySize, Status, Unit, UnitId, UnitKind, Vehicle,
};
use hexveil_core::{Action, ActionError, Engine, EventKind, Hex, MoveMode, Side, Step};
use std::collections::{BTreeMap, BTreeSet};

/// A hex by name.
pub fn hex(name: &str) -> Hex {
    name.parse().expect("hex name")
}

/// A two-dice roll.
pub fn dr(coloured: u8, white: u8) -> Roll {
    Roll::DR { coloured, white }
}

/// The DR of a potential A-P attack in a hex that holds no A-P mines: the
/// rules roll it all the same so that the dice traffic never depends on
/// hidden content, and leave it unused (G3). Snake eyes, so that a test
/// would see a drastic result if the engine ever used it.
pub fn unused_dr() -> Roll {
    dr(1, 1)
}

/// A one-die roll.
pub fn d(v: u8) -> Roll {
    Roll::Dr(v)
}

fn base(id: u16, side: Side, at: &str, kind: UnitKind) -> Unit {
    Unit {
        id: UnitId(id),
        name: format!("u{id}"),
        side,
        nationality: "German".into(),
        kind,
        traits: BTreeSet::new(),
        hex: Some(hex(at)),
        status: Status::default(),
        daisy_chain: None,
    }
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
        hull: None,
        aerial_af: None,
        fully_tracked: false,
        motorcycle: false,
        wagon: false,
        open_topped: false,
        flail: false,
        printed_mp: 12,
        immobilized: false,
        passengers: Vec::new(),
        riders: Vec::new(),
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

/// Terrain with features.
pub fn info(terrain: Terrain) -> HexInfo {
    HexInfo::of(terrain)
}

/// A scenario on board 4 with these units and terrain. (The struct update
/// keeps it building when the scenario gains fields.)
#[allow(clippy::needless_update)]
pub fn scenario(units: &[Unit], terrain: &[(&str, HexInfo)], deep_snow: bool) -> Scenario {
    let mut map = Map::new([4]);
    for (h, i) in terrain {
        map = map.with_hex(hex(h), *i);
    }
    let mut sides = BTreeMap::new();
    for s in [Side::A, Side::B] {
        sides.insert(
            s,
            SideOb {
                nationality: "German".into(),
                elr: 3,
                minefield_factors: 48,
                known_factors: 24,
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
        map,
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

/// The state: side A's `phase` of turn 1.
pub fn state(sc: &Scenario, phase: Phase) -> GameState {
    GameState {
        turn: 1,
        phasing: Side::A,
        phase,
        units: sc.units.iter().map(|u| (u.id, u.clone())).collect(),
        elr: sc.sides.iter().map(|(s, ob)| (*s, ob.elr)).collect(),
        markers: BTreeMap::new(),
        referee_knows: BTreeMap::new(),
        mines: Default::default(),
        extra_dummies: Default::default(),
        daisy_chains: Vec::new(),
        opportunities: 0,
        result: None,
    }
}

/// An engine in side A's MPh.
pub fn engine(sc: Scenario) -> Engine {
    let st = state(&sc, Phase::Movement);
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

/// What a driven action did.
#[derive(Debug)]
pub struct Run {
    /// The events, or the refusal.
    pub result: Result<Vec<Event>, ActionError>,
    /// Every fact request, in order.
    pub requests: Vec<FactRequest>,
    /// Every dice request, in order.
    pub dice: Vec<DiceSpec>,
    /// Every step the engine returned before Done, in order: what the
    /// opponent's client sees of the traffic (G3).
    pub steps: Vec<Traffic>,
}

/// One request step of the engine, as far as its shape goes: which facts, or
/// how many dice of which kind (G3 compares these).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Traffic {
    /// A NeedFacts step.
    Facts(Vec<FactRequest>),
    /// A NeedDice step: the kinds of the dice asked.
    Dice(Vec<DiceKind>),
}

impl Run {
    /// The events (panics on refusal).
    pub fn events(&self) -> &[Event] {
        match &self.result {
            Ok(e) => e,
            Err(e) => panic!("refused: {e}"),
        }
    }

    /// Minefield events with their visibility.
    pub fn mine_events(&self) -> Vec<(Visibility, MinefieldEvent)> {
        self.events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Minefield(m) => Some((e.to, m.clone())),
                _ => None,
            })
            .collect()
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
        self.events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Move(m) => Some(m.clone()),
                _ => None,
            })
            .collect()
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
    let mut requests = Vec::new();
    let mut dice = Vec::new();
    let mut steps = Vec::new();
    let mut step = e.apply(side, action);
    loop {
        match step {
            Err(err) => {
                return Run {
                    result: Err(err),
                    requests,
                    dice,
                    steps,
                }
            }
            Ok(Step::Done(events)) => {
                return Run {
                    result: Ok(events),
                    requests,
                    dice,
                    steps,
                }
            }
            Ok(Step::NeedFacts(r)) => {
                requests.extend(r.iter().copied());
                steps.push(Traffic::Facts(r.clone()));
                let facts = r
                    .iter()
                    .map(|q| Fact {
                        request: *q,
                        content: layout.get(q).copied().unwrap_or(Content::Empty),
                    })
                    .collect();
                step = e.provide_facts(facts);
            }
            Ok(Step::NeedDice(specs)) => {
                let rolls = specs.iter().map(&mut *next_die).collect();
                steps.push(Traffic::Dice(specs.iter().map(|s| s.kind).collect()));
                dice.extend(specs);
                step = e.provide_dice(rolls);
            }
        }
    }
}

/// Drives `action` with literal dice; panics if the rules ask for more dice
/// than given or leave some unused.
pub fn drive(e: &mut Engine, side: Side, action: Action, layout: &Layout, rolls: &[Roll]) -> Run {
    let mut pos = 0;
    let run = drive_with(e, side, action, layout, &mut |spec| {
        let r = *rolls
            .get(pos)
            .unwrap_or_else(|| panic!("rules asked for more dice than given: {spec:?}"));
        pos += 1;
        r
    });
    if run.result.is_ok() {
        assert_eq!(
            pos,
            rolls.len(),
            "dice left over: the rules asked for fewer"
        );
    }
    run
}

/// A Move action.
pub fn mv(units: &[u16], to: &str, mode: MoveMode) -> Action {
    Action::Move {
        units: units.iter().map(|i| UnitId(*i)).collect(),
        to: hex(to),
        mode,
    }
}

/// The unit with this id.
pub fn unit(e: &Engine, id: u16) -> &Unit {
    e.state().unit(UnitId(id)).expect("unit")
}

/// What a rules function run directly over a [`Ctx`] did.
pub struct CtxRun {
    /// Final state and events, or the refusal.
    pub result: Result<(GameState, Vec<Event>), hexveil_core::RuleError>,
    /// Every fact request, in order.
    pub requests: Vec<FactRequest>,
}

/// Runs a rules function (an end-of-phase hook, say) over a context the way
/// the Engine does: replaying from `state` with the answers so far until it
/// completes, answering facts from `layout` and dice from `rolls`.
pub fn run_ctx(
    sc: &Scenario,
    state: &GameState,
    actor: Side,
    layout: &Layout,
    rolls: &[Roll],
    f: impl Fn(&mut hexveil_core::resolve::Ctx<'_>) -> hexveil_core::resolve::Res<()>,
) -> CtxRun {
    use hexveil_core::resolve::{Ctx, Interrupt};
    let mut facts: Vec<Fact> = Vec::new();
    let mut dice_used = 0usize;
    let mut requests = Vec::new();
    loop {
        let mut ctx = Ctx::new(sc, state.clone(), actor, &facts, &rolls[..dice_used]);
        match f(&mut ctx) {
            Ok(()) => {
                assert_eq!(dice_used, rolls.len(), "dice left over");
                return CtxRun {
                    result: Ok(ctx.finish()),
                    requests,
                };
            }
            Err(Interrupt::Facts(r)) => {
                requests.extend(r.iter().copied());
                facts.extend(r.iter().map(|q| Fact {
                    request: *q,
                    content: layout.get(q).copied().unwrap_or(Content::Empty),
                }));
            }
            Err(Interrupt::Dice(specs)) => {
                dice_used += specs.len();
                assert!(
                    dice_used <= rolls.len(),
                    "rules asked for more dice: {specs:?}"
                );
            }
            Err(Interrupt::Refuse(e)) => {
                return CtxRun {
                    result: Err(e),
                    requests,
                }
            }
        }
    }
}

/// Dice answered from a list of faces, cycling (property tests).
pub fn dice_from(faces: Vec<u8>) -> impl FnMut(&hexveil_core::dice::DiceSpec) -> Roll {
    use hexveil_core::dice::DiceKind;
    let mut i = 0usize;
    move |spec: &hexveil_core::dice::DiceSpec| {
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
