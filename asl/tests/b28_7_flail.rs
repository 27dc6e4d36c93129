//! Flail Tanks (B28.7, B28.71, B28.72).

mod mines_common;
use hexveil_asl::b28::flail::{self, FlailEvent, FlailOutcome};
use hexveil_asl::b28::minefield::MinefieldEvent;
use hexveil_asl::board::terrain::{HexInfo, Terrain};
use hexveil_asl::dice::Roll;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::{Unit, UnitId};
use hexveil_asl::turn::Phase;
use hexveil_asl::{b28::trail_break, ActionError, Engine, EventKind, MoveMode, Side};
use mines_common::*;

fn flail_tank(at: &str) -> Unit {
    let mut u = afv(1, Side::A, at, Some(1));
    if let hexveil_asl::model::unit::UnitKind::Vehicle(v) = &mut u.kind {
        v.flail = true;
    }
    u
}

/// Side A's tank after a clearance entry 4E3 -> 4E4, and the scenario.
fn after_clearance_entry(extra: &[Unit]) -> (Scenario, GameState) {
    let mut units = vec![flail_tank("4E3")];
    units.extend_from_slice(extra);
    let sc = scenario(&units, &[], false);
    let mut e = engine(sc.clone());
    let lay = layout(&[(ap_b("4E4"), ap(12)), (at_b("4E4"), at(4))]);
    let run = step_by(
        &mut e,
        &[1],
        "4E4",
        MoveMode::FlailClearance,
        &lay,
        // G3: the exit from the empty 4E3 rolls as usual; the hex entered
        // rolls nothing (immune, below).
        &quiet_exit_then(&[]),
    );
    // B28.7: immune in the hex entered: its leaves are never asked.
    assert_eq!(run.requests, vec![ap_b("4E3"), at_b("4E3")]);
    let mut st = e.state().clone();
    st.phase = Phase::CloseCombat;
    (sc, st)
}

/// The end of A's CCPh (where a clearance attempt is resolved, B28.7) over
/// `st`, facts from `lay`, dice `rolls`.
fn end_of_ccph(sc: &Scenario, st: &GameState, lay: &Layout, rolls: &[Roll]) -> CtxRun {
    run_ctx(sc, st, Side::A, lay, rolls, flail::end_of_close_combat)
}

fn outcome(events: &[hexveil_asl::Event]) -> Option<FlailOutcome> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::Minefield(MinefieldEvent::Flail(FlailEvent { outcome, .. })) => Some(*outcome),
        _ => None,
    })
}

/// B28.7: Final DR <= 10 at the end of the CCPh creates a TB from the
/// hexside crossed (straight through).
#[test]
fn b28_7_clearance_dr_ten_or_less_creates_tb() {
    let (sc, st) = after_clearance_entry(&[]);
    let done = end_of_ccph(&sc, &st, &Layout::new(), &[dr(4, 6)]);
    assert!(done.asked.is_empty());
    let (st2, ev) = done.finished();
    assert_eq!(outcome(&ev), Some(FlailOutcome::TrailBreak));
    assert!(trail_break::crosses(&st2, hex("4E4"), hex("4E3")));
    assert!(trail_break::crosses(&st2, hex("4E4"), hex("4E5")));
}

/// B28.72: an Original 11 destroys the flail; no TB.
#[test]
fn b28_72_original_eleven_breaks_the_flail() {
    let (sc, st) = after_clearance_entry(&[]);
    let done = end_of_ccph(&sc, &st, &Layout::new(), &[dr(5, 6)]);
    let (st2, ev) = done.finished();
    assert_eq!(outcome(&ev), Some(FlailOutcome::FlailBroken));
    assert!(!st2.unit(UnitId(1)).unwrap().vehicle().unwrap().flail);
    assert!(st2.mines.trail_breaks.is_empty());
}

/// B28.71: an Original 12 destroys the tank if A-T mines are there (the A-T
/// leaf asked only now), else immobilizes it.
#[test]
fn b28_71_original_twelve_destroys_on_a_t_else_immobilizes() {
    let (sc, st) = after_clearance_entry(&[]);
    let lay = layout(&[(at_b("4E4"), at(4))]);
    let done = end_of_ccph(&sc, &st, &lay, &[dr(6, 6)]);
    assert_eq!(done.asked, vec![at_b("4E4")]);
    let (st2, ev) = done.finished();
    assert_eq!(outcome(&ev), Some(FlailOutcome::Destroyed));
    assert!(!st2.unit(UnitId(1)).unwrap().in_play());
    let done = end_of_ccph(&sc, &st, &Layout::new(), &[dr(6, 6)]);
    let (st3, ev) = done.finished();
    assert_eq!(outcome(&ev), Some(FlailOutcome::Immobilized));
    assert!(st3.unit(UnitId(1)).unwrap().vehicle().unwrap().immobilized);
}

/// B28.7: no clearance where own Infantry is.
#[test]
fn b28_7_no_clearance_with_own_infantry_in_the_hex() {
    let (sc, mut st) = after_clearance_entry(&[squad(2, Side::A, "4E1")]);
    st.units.get_mut(&UnitId(2)).unwrap().hex = Some(hex("4E4"));
    let done = end_of_ccph(&sc, &st, &Layout::new(), &[]);
    let (_, ev) = done.finished();
    assert_eq!(outcome(&ev), Some(FlailOutcome::NotAttempted));
}

/// B28.7: declared at the start of its MPh (before moving), and the whole
/// MP is spent: no further move this turn.
#[test]
fn b28_7_declared_before_moving_and_spends_all_mp() {
    let mut e = engine_with(&[flail_tank("4E3")]);
    step_by(
        &mut e,
        &[1],
        "4E4",
        MoveMode::FlailClearance,
        &Layout::new(),
        &quiet_exit_then(&[]),
    );
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &[]);
    assert!(matches!(run.result, Err(ActionError::Refused(_))));
    let mut e = engine_with(&[flail_tank("4E2")]);
    step(&mut e, &[1], "4E3", &Layout::new(), &quiet_vehicle_step());
    let run = step_by(
        &mut e,
        &[1],
        "4E4",
        MoveMode::FlailClearance,
        &Layout::new(),
        &[],
    );
    run.assert_refused_asking_nothing();
}

/// B28.72: entering a woods obstacle without a road or TB destroys the
/// flail; with a road it does not.
#[test]
fn b28_72_woods_without_road_breaks_the_flail() {
    let woods = HexInfo::of(Terrain::Woods);
    let mut e = engine(scenario(&[flail_tank("4E3")], &[("4E4", woods)], false));
    step(&mut e, &[1], "4E4", &Layout::new(), &quiet_vehicle_step());
    assert!(!unit(&e, 1).vehicle().unwrap().flail);
    let mut road = woods;
    road.features.dirt_road = true;
    let mut e = engine(scenario(&[flail_tank("4E3")], &[("4E4", road)], false));
    step(&mut e, &[1], "4E4", &Layout::new(), &quiet_vehicle_step());
    assert!(unit(&e, 1).vehicle().unwrap().flail);
    let _ = Engine::state;
}
