//! Shared fixtures of the fire/A19 integration tests: a tiny scenario, unit
//! builders, and a driver that answers the Engine's dice requests from a
//! literal list (no facts are ever needed by fire).
#![allow(dead_code, clippy::too_many_arguments)]

use hexveil_core::dice::Roll;
use hexveil_core::event::Event;
use hexveil_core::map::Map;
use hexveil_core::scenario::{Scenario, SideOb};
use hexveil_core::state::GameState;
use hexveil_core::terrain::{HexInfo, Terrain};
use hexveil_core::turn::Phase;
use hexveil_core::unit::{
    Class, Infantry, InfantrySize, Leader, Status, Trait, Unit, UnitId, UnitKind,
};
use hexveil_core::{Action, ActionError, Engine, EventKind, Hex, Side, Step};
use std::collections::{BTreeMap, BTreeSet};

/// A hex by name.
pub fn hex(name: &str) -> Hex {
    name.parse().expect("hex name")
}

/// A two-dice roll.
pub fn dr(coloured: u8, white: u8) -> Roll {
    Roll::DR { coloured, white }
}

/// A one-die roll.
pub fn d(v: u8) -> Roll {
    Roll::Dr(v)
}

/// An Infantry unit.
pub fn inf(
    id: u16,
    side: Side,
    nat: &str,
    strength: &str,
    size: InfantrySize,
    class: Class,
    underscored: bool,
    at: &str,
) -> Unit {
    Unit {
        id: UnitId(id),
        name: format!("u{id}"),
        side,
        nationality: nat.to_string(),
        kind: UnitKind::Infantry(Infantry {
            size,
            strength: strength.parse().expect("strength"),
            underscored,
            class,
        }),
        traits: BTreeSet::new(),
        hex: Some(hex(at)),
        status: Status::default(),
        daisy_chain: None,
    }
}

/// A squad.
pub fn squad(id: u16, side: Side, nat: &str, strength: &str, class: Class, at: &str) -> Unit {
    inf(
        id,
        side,
        nat,
        strength,
        InfantrySize::Squad,
        class,
        false,
        at,
    )
}

/// A leader.
pub fn leader(id: u16, side: Side, nat: &str, morale: u8, leadership: i8, at: &str) -> Unit {
    Unit {
        id: UnitId(id),
        name: format!("l{id}"),
        side,
        nationality: nat.to_string(),
        kind: UnitKind::Leader(Leader { morale, leadership }),
        traits: BTreeSet::new(),
        hex: Some(hex(at)),
        status: Status::default(),
        daisy_chain: None,
    }
}

/// Adds a trait.
pub fn with(mut u: Unit, t: Trait) -> Unit {
    u.traits.insert(t);
    u
}

/// Side OBs: A is `nat_a` with ELR `elr_a`, B is `nat_b` with `elr_b`.
pub fn sides(nat_a: &str, elr_a: u8, nat_b: &str, elr_b: u8) -> BTreeMap<Side, SideOb> {
    let mut m = BTreeMap::new();
    m.insert(
        Side::A,
        SideOb {
            nationality: nat_a.into(),
            elr: elr_a,
            ..SideOb::default()
        },
    );
    m.insert(
        Side::B,
        SideOb {
            nationality: nat_b.into(),
            elr: elr_b,
            ..SideOb::default()
        },
    );
    m
}

/// A scenario on board 4 with the given terrain.
pub fn scenario(
    sides: BTreeMap<Side, SideOb>,
    units: &[Unit],
    terrain: &[(&str, Terrain)],
) -> Scenario {
    let mut hexes = BTreeMap::new();
    for (h, t) in terrain {
        hexes.insert(
            hex(h),
            HexInfo {
                terrain: *t,
                ..HexInfo::default()
            },
        );
    }
    Scenario {
        name: "fire test".into(),
        map: Map {
            boards: vec![4],
            hexes,
            ..Map::default()
        },
        sides,
        units: units.to_vec(),
        first_phasing: Some(Side::A),
        ..Scenario::default()
    }
}

/// The state at the start of the scenario (the scenario helper's
/// `setup::initial_state`, no setup files), moved to A's Prep Fire Phase.
pub fn state(sc: &Scenario) -> GameState {
    let mut st = hexveil_core::setup::initial_state(sc, &[]).expect("scenario sets up");
    st.phasing = Side::A;
    st.phase = Phase::PrepFire;
    st
}

/// An engine over the scenario.
pub fn engine(sc: Scenario) -> Engine {
    let st = state(&sc);
    Engine::with_state(sc, st)
}

/// Applies an action and answers every dice request from `dice`, in order.
/// Panics if the engine asks for facts or more dice than given, or if dice
/// are left over. Returns the events.
pub fn run(
    e: &mut Engine,
    side: Side,
    action: Action,
    dice: &[Roll],
) -> Result<Vec<Event>, ActionError> {
    let mut pos = 0;
    let mut step = e.apply(side, action)?;
    loop {
        match step {
            Step::Done(events) => {
                assert_eq!(pos, dice.len(), "dice left over: the rules asked for fewer");
                return Ok(events);
            }
            Step::NeedFacts(r) => panic!("fire asked for facts {r:?}"),
            Step::NeedDice(specs) => {
                let n = specs.len();
                assert!(
                    pos + n <= dice.len(),
                    "rules asked for more dice: {specs:?}"
                );
                step = e.provide_dice(dice[pos..pos + n].to_vec())?;
                pos += n;
            }
        }
    }
}

/// The fire action.
pub fn fire(firers: &[u16], target: &str) -> Action {
    Action::Fire {
        firers: firers.iter().map(|&i| UnitId(i)).collect(),
        target: hex(target),
        extra_drm: 0,
    }
}

/// The unit with this id.
pub fn unit(e: &Engine, id: u16) -> &Unit {
    e.state().unit(UnitId(id)).expect("unit")
}

/// Morale events among `events`.
pub fn morale_events(events: &[Event]) -> Vec<hexveil_core::morale::MoraleEvent> {
    events
        .iter()
        .filter_map(|ev| match &ev.kind {
            EventKind::Morale(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// Fire events among `events`.
pub fn fire_events(events: &[Event]) -> Vec<hexveil_core::fire::FireEvent> {
    events
        .iter()
        .filter_map(|ev| match &ev.kind {
            EventKind::Fire(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

/// Like [`run`], also answering every facts request from `facts`, in order.
pub fn run_with_facts(
    e: &mut Engine,
    side: Side,
    action: Action,
    dice: &[Roll],
    facts: &[hexveil_core::Content],
) -> Result<Vec<Event>, ActionError> {
    let (mut pos, mut fpos) = (0, 0);
    let mut step = e.apply(side, action)?;
    loop {
        match step {
            Step::Done(events) => {
                assert_eq!(pos, dice.len(), "dice left over");
                assert_eq!(fpos, facts.len(), "facts left over");
                return Ok(events);
            }
            Step::NeedFacts(reqs) => {
                let answers: Vec<hexveil_core::Fact> = reqs
                    .iter()
                    .map(|r| {
                        let content = facts[fpos];
                        fpos += 1;
                        hexveil_core::Fact {
                            request: *r,
                            content,
                        }
                    })
                    .collect();
                step = e.provide_facts(answers)?;
            }
            Step::NeedDice(specs) => {
                let n = specs.len();
                assert!(
                    pos + n <= dice.len(),
                    "rules asked for more dice: {specs:?}"
                );
                step = e.provide_dice(dice[pos..pos + n].to_vec())?;
                pos += n;
            }
        }
    }
}
