//! Shared fixtures of the fire/A19 integration tests: a tiny scenario, unit
//! builders, and a driver that answers the Engine's dice requests from a
//! literal list (no facts are ever needed by fire).
#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;
pub use common::*;

use hexveil_asl::board::terrain::{HexInfo, Terrain};
use hexveil_asl::dice::Roll;
use hexveil_asl::model::event::Event;
use hexveil_asl::model::scenario::{Scenario, SideOb};
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::{
    Class, Infantry, InfantrySize, Leader, Trait, Unit, UnitId, UnitKind,
};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, ActionError, Content, Engine, EventKind, Side};
use std::collections::BTreeMap;

/// Where the fire tests' firers stand.
pub const FIRERS: &str = "4E2";
/// Where the fire tests' targets stand: two hexes from [`FIRERS`], in
/// Open Ground.
pub const TARGET: &str = "4E4";

/// An Infantry unit (not underscored: see [`underscored`]).
pub fn inf(
    id: u16,
    side: Side,
    nat: &str,
    strength: &str,
    size: InfantrySize,
    class: Class,
    at: &str,
) -> Unit {
    let strength = strength.parse().expect("strength");
    let kind = UnitKind::Infantry(Infantry {
        size,
        strength,
        underscored: false,
        class,
    });
    new_unit(id, side, nat, at, kind)
}

/// A squad.
pub fn squad(id: u16, side: Side, nat: &str, strength: &str, class: Class, at: &str) -> Unit {
    inf(id, side, nat, strength, InfantrySize::Squad, class, at)
}

/// A crew.
pub fn crew(id: u16, side: Side, nat: &str, strength: &str, class: Class, at: &str) -> Unit {
    inf(id, side, nat, strength, InfantrySize::Crew, class, at)
}

/// The same Infantry with an underscored strength (SS and the like: A19.13).
pub fn underscored(mut u: Unit) -> Unit {
    if let UnitKind::Infantry(i) = &mut u.kind {
        i.underscored = true;
    }
    u
}

/// A leader.
pub fn leader(id: u16, side: Side, nat: &str, morale: u8, leadership: i8, at: &str) -> Unit {
    let kind = UnitKind::Leader(Leader { morale, leadership });
    Unit {
        name: format!("l{id}"),
        ..new_unit(id, side, nat, at, kind)
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
    Scenario {
        name: "fire test".into(),
        map: board_4(terrain.iter().map(|&(h, t)| (h, HexInfo::of(t)))),
        sides,
        units: units.to_vec(),
        first_phasing: Some(Side::A),
        ..Scenario::default()
    }
}

/// The state at the start of the scenario in A's Prep Fire Phase.
pub fn state(sc: &Scenario) -> GameState {
    state_in(sc, Phase::PrepFire)
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
    run_with_facts(e, side, action, dice, &[])
}

/// Like [`run`], also answering every facts request from `facts`, in order
/// (panics if asked more, or if some are left over).
pub fn run_with_facts(
    e: &mut Engine,
    side: Side,
    action: Action,
    dice: &[Roll],
    facts: &[Content],
) -> Result<Vec<Event>, ActionError> {
    let mut given = facts.iter();
    let run = drive_engine_rolls(
        e,
        side,
        action,
        &mut |r| {
            *given
                .next()
                .unwrap_or_else(|| panic!("fire asked for facts {r:?}"))
        },
        dice,
    );
    if run.result.is_ok() {
        assert_eq!(given.len(), 0, "facts left over");
    }
    run.result
}

/// The fire action, with an extra DRM (a stand-in for modifiers the
/// scenario does not model).
pub fn fire_drm(firers: &[u16], target: &str, extra_drm: i8) -> Action {
    Action::Fire {
        firers: firers.iter().map(|&i| UnitId(i)).collect(),
        target: hex(target),
        extra_drm,
    }
}

/// The fire action.
pub fn fire(firers: &[u16], target: &str) -> Action {
    fire_drm(firers, target, 0)
}

/// The Russian Fire Group of the fire tests: two 4-4-7 (ids 0 and 1, 8 FP
/// together) in [`FIRERS`].
pub fn russian_group() -> Vec<Unit> {
    vec![
        squad(0, Side::A, "Russian", "4-4-7", Class::FirstLine, FIRERS),
        squad(1, Side::A, "Russian", "4-4-7", Class::FirstLine, FIRERS),
    ]
}

/// An engine in A's PFPh: the [`russian_group`] (side A, Russian, ELR 3)
/// facing `germans` (side B, German, ELR `elr`) on open ground.
pub fn russians_vs(germans: Vec<Unit>, elr: u8) -> Engine {
    let mut units = russian_group();
    units.extend(germans);
    engine(scenario(sides("Russian", 3, "German", elr), &units, &[]))
}

/// A German 4-6-7 1st Line squad (ELR-replaced to a 4-4-7) in [`TARGET`].
pub fn german(id: u16) -> Unit {
    squad(id, Side::B, "German", "4-6-7", Class::FirstLine, TARGET)
}

/// The [`russian_group`] fires at [`TARGET`], the rules using `dice`.
pub fn group_fires(e: &mut Engine, dice: &[Roll]) -> Result<Vec<Event>, ActionError> {
    run(e, Side::A, fire(&[0, 1], TARGET), dice)
}

/// Morale events among `events`.
pub fn morale_events(events: &[Event]) -> Vec<hexveil_asl::a::morale::MoraleEvent> {
    picked(events, |ev| match &ev.kind {
        EventKind::Morale(m) => Some(m.clone()),
        _ => None,
    })
}

/// Fire events among `events`.
pub fn fire_events(events: &[Event]) -> Vec<hexveil_asl::a::fire::FireEvent> {
    picked(events, |ev| match &ev.kind {
        EventKind::Fire(f) => Some(f.clone()),
        _ => None,
    })
}
