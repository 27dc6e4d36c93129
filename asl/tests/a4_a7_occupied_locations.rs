//! What the engine does not model it refuses, before anything is asked
//! (ruleset version 3): a unit entering a hex that holds an enemy unit
//! (Close Combat A11, Overrun D7, a router's A10.5: R75) and Infantry
//! firing at a Location that holds a friendly unit (a Melee, A7/A11: R76).
//! Version 2 let both happen without their rules.

mod mines_common;
use hexveil_asl::model::scenario::Version;
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, ActionError, Side};
use mines_common::*;

fn refused_asking_nothing(run: &Run, words: &str) {
    run.assert_refused_asking_nothing();
    assert!(run.dice.is_empty());
    match &run.result {
        Err(ActionError::Refused(e)) => assert!(e.reason.contains(words), "{e}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// A4, A4.7, A10.5, R75: no Move (MPh), Advance (APh) or Rout (RtPh) into
/// the hex of an enemy unit; a Move elsewhere is unchanged.
#[test]
fn a4_r75_no_unit_enters_an_enemy_occupied_hex() {
    let units = [squad(1, Side::A, "4E4"), squad(2, Side::B, "4E5")];
    let sc = scenario(&units, &[], false);
    let mut e = engine(sc.clone());
    let before = e.state().clone();
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &[]);
    refused_asking_nothing(&run, "enemy unit #2");
    assert_eq!(e.state(), &before);
    let mut e = engine_in(sc.clone(), Phase::Advance);
    let advance = Action::Advance {
        units: vec![UnitId(1)],
        to: hex("4E5"),
    };
    let run = drive(&mut e, Side::A, advance, &Layout::new(), &[]);
    refused_asking_nothing(&run, "enemy unit #2");
    let mut e = engine_where(sc.clone(), Phase::Rout, |st| {
        st.units.get_mut(&UnitId(1)).unwrap().status.broken = true;
    });
    let rout = Action::Rout {
        unit: UnitId(1),
        to: hex("4E5"),
    };
    let run = drive(&mut e, Side::A, rout, &Layout::new(), &[]);
    refused_asking_nothing(&run, "enemy unit #2");
    // An empty hex next door: the step goes on as before (B's leaves).
    let mut e = engine(sc.clone());
    let run = step(&mut e, &[1], "4D4", &Layout::new(), &quiet_step());
    assert!(run.result.is_ok(), "{:?}", run.result);
    // Version 2 let the Move in (and asked B's leaves for it).
    let mut old = sc;
    old.version = Version(2);
    let mut e = engine(old);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &quiet_step());
    assert!(run.result.is_ok(), "{:?}", run.result);
    assert_eq!(unit(&e, 1).hex, Some(hex("4E5")));
}

/// A7, R76: Infantry fire at a hex holding a friendly unit is refused
/// before the IFT DR; the enemy alone in a hex is fired at as before.
#[test]
fn a7_r76_no_infantry_fire_into_a_hex_holding_a_friendly_unit() {
    let units = [
        squad(1, Side::A, "4E2"),
        squad(2, Side::B, "4E4"),
        squad(3, Side::A, "4E4"),
        squad(4, Side::B, "4E5"),
    ];
    let sc = scenario(&units, &[], false);
    let fire = |target: &str| Action::Fire {
        firers: vec![UnitId(1)],
        target: hex(target),
        extra_drm: 0,
    };
    let mut e = engine_in(sc.clone(), Phase::PrepFire);
    let run = drive(&mut e, Side::A, fire("4E4"), &Layout::new(), &[]);
    refused_asking_nothing(&run, "friendly unit #3");
    let run = drive(&mut e, Side::A, fire("4E5"), &Layout::new(), &[dr(6, 6)]);
    assert!(run.result.is_ok(), "{:?}", run.result);
    // Version 2 fired at the enemy alone and ignored the friend.
    let mut old = sc;
    old.version = Version(2);
    let mut e = engine_in(old, Phase::PrepFire);
    let run = drive(&mut e, Side::A, fire("4E4"), &Layout::new(), &[dr(6, 6)]);
    assert!(run.result.is_ok(), "{:?}", run.result);
}
