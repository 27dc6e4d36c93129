//! Booby Traps (B28.9, R1): which Original TC DRs open the board leaf,
//! which levels trigger, Random Selection that may hit the placer's units.

mod scenario_support;
use hexveil_asl::b28::booby_trap::{after_task_check, BoobyTrapEvent};
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::BoobyLevel;
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::{Content, EventKind, Layer, Location, Roll, Side, Visibility};
use scenario_support::*;

/// The German squad in 3E3 on B's board 3, where B may have Booby Traps.
fn setting(sc: &Scenario) -> (GameState, UnitId) {
    let mut st = state(sc);
    let ger = sc.unit_named("ger-squad-1").unwrap();
    st.units.get_mut(&ger).unwrap().hex = Some(hex("3E3"));
    (st, ger)
}

fn run(level: Option<BoobyLevel>, dr: u8, dice: &[Roll]) -> CtxRun {
    let sc = scenario();
    let (st, ger) = setting(&sc);
    let content = level.map_or(Content::Empty, Content::BoobyTraps);
    drive_ctx(&sc, &st, Side::A, &|_| content, dice, &move |ctx| {
        after_task_check(ctx, ger, dr)
    })
}

fn triggered(r: &CtxRun) -> bool {
    r.events.iter().any(|e| {
        matches!(
            e.kind,
            EventKind::BoobyTrap(BoobyTrapEvent::Triggered { .. })
        )
    })
}

#[test]
fn b28_9_original_dr_below_11_opens_nothing() {
    for dr in 2..=10 {
        let r = run(Some(BoobyLevel::A), dr, &[]);
        assert!(r.asked.is_empty(), "DR {dr}");
        assert!(!triggered(&r));
    }
}

#[test]
fn b28_9_dr_11_or_12_opens_the_owners_board_leaf() {
    let r = run(None, 11, &[]);
    assert_eq!(r.asked.len(), 1);
    assert_eq!(r.asked[0].owner, Side::B);
    assert_eq!(r.asked[0].layer, Layer::BoobyTrap);
    assert_eq!(r.asked[0].location, Location::Board(3));
    assert!(!triggered(&r));
    // Not triggered: the level is a Referee event only.
    assert!(r
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::BoobyTrap(_)))
        .all(|e| e.to == Visibility::Referee));
}

#[test]
fn b28_9_r1_level_c_triggers_on_12_only() {
    assert!(triggered(&run(Some(BoobyLevel::C), 12, &[])));
    assert!(!triggered(&run(Some(BoobyLevel::C), 11, &[])));
}

#[test]
fn b28_9_r1_level_b_triggers_on_11_only() {
    assert!(triggered(&run(Some(BoobyLevel::B), 11, &[])));
    assert!(!triggered(&run(Some(BoobyLevel::B), 12, &[])));
}

#[test]
fn b28_9_r1_level_a_triggers_on_11_and_12() {
    assert!(triggered(&run(Some(BoobyLevel::A), 11, &[])));
    assert!(triggered(&run(Some(BoobyLevel::A), 12, &[])));
}

#[test]
fn b28_9_trigger_casualty_reduces_the_only_unit_there() {
    let sc = scenario();
    let (st, ger) = setting(&sc);
    let r = run(Some(BoobyLevel::C), 12, &[]);
    assert!(r.result.is_ok(), "{:?}", r.result);
    let before = st.units[&ger].clone();
    let after = &r.state.units[&ger];
    assert_ne!(
        before.kind, after.kind,
        "4-6-7 squad is Reduced to a HS (A7.302)"
    );
    assert!(r.events.iter().any(|e| matches!(
        e.kind,
        EventKind::BoobyTrap(BoobyTrapEvent::Casualty { unit }) if unit == ger
    )));
}

#[test]
fn b28_9_no_leaf_on_a_board_without_permission() {
    // Side A may buy no Booby Traps: a British TC on board 4 asks nothing.
    let sc = scenario();
    let mut st = state(&sc);
    let brit = sc.unit_named("brit-squad-1").unwrap();
    st.units.get_mut(&brit).unwrap().hex = Some(hex("4E2"));
    let r = drive_ctx(&sc, &st, Side::A, &|_| Content::Empty, &[], &move |ctx| {
        after_task_check(ctx, brit, 12)
    });
    assert!(r.asked.is_empty());
}

#[test]
fn b28_9_random_selection_may_hit_the_placers_own_unit() {
    let sc = scenario();
    let (mut st, ger) = setting(&sc);
    let brit = sc.unit_named("brit-squad-2").unwrap();
    st.units.get_mut(&brit).unwrap().hex = Some(hex("3E3"));
    // One dr per candidate in unit order: German 1, British 6 -> British.
    let r = drive_ctx(
        &sc,
        &st,
        Side::A,
        &|_| Content::BoobyTraps(BoobyLevel::C),
        &[Roll::Dr(1), Roll::Dr(6)],
        &move |ctx| after_task_check(ctx, ger, 12),
    );
    assert!(r.result.is_ok(), "{:?}", r.result);
    assert_eq!(r.rolls_used, 2);
    assert!(r.events.iter().any(|e| matches!(
        e.kind,
        EventKind::BoobyTrap(BoobyTrapEvent::Casualty { unit }) if unit == brit
    )));
    assert_eq!(
        r.state.units[&ger].kind, st.units[&ger].kind,
        "the German squad is untouched"
    );
}

#[test]
fn b28_9_ptc_immune_infantry_takes_the_ptc_for_booby_traps_only() {
    use hexveil_asl::a::morale::pin_task_check;
    let sc = scenario();
    let (mut st, ger) = setting(&sc);
    st.units
        .get_mut(&ger)
        .unwrap()
        .traits
        .insert(hexveil_asl::model::unit::Trait::Berserk);
    let r = drive_ctx(
        &sc,
        &st,
        Side::A,
        &|_| Content::BoobyTraps(BoobyLevel::C),
        &[dr(6, 6)],
        &move |ctx| pin_task_check(ctx, ger, 0, "test PTC").map(|_| ()),
    );
    assert!(r.result.is_ok(), "{:?}", r.result);
    assert_eq!(r.asked.len(), 1, "the Booby Trap leaf is opened");
    assert!(triggered(&r));
    assert!(!r.state.units[&ger].status.pinned, "immune: never pinned");
}
