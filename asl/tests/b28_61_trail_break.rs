//! Trail Breaks (B28.61): made by fully-tracked AFV (not VBM), entered free
//! of attack only at the doubled cost (the TrailBreak mode), left free of
//! attack.

mod mines_common;
use hexveil_asl::b28::movement::MoveEvent;
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::Unit;
use hexveil_asl::turn::Phase;
use hexveil_asl::{b28::trail_break, Engine, MoveMode, Side};
use mines_common::*;

/// A's MPh with `units` on board 4, where 4E4 is marked as holding A-P
/// mines (B28.48).
fn mined_4e4(units: &[Unit]) -> Engine {
    engine_where(scenario(units, &[], false), Phase::Movement, mark_4e4)
}

/// [`mined_4e4`] with a TB through 4E4 from 4E3 to 4E5 (B28.61).
fn mined_4e4_with_tb(units: &[Unit]) -> Engine {
    engine_where(scenario(units, &[], false), Phase::Movement, |st| {
        mark_4e4(st);
        trail_break::place(st, hex("4E4"), hex("4E3"), hex("4E5"));
    })
}

fn mark_4e4(st: &mut GameState) {
    st.markers.entry(hex("4E4")).or_default().ap_revealed = Some(None);
}

/// B28.61: a fully-tracked AFV driving through a marked minefield hex
/// leaves a TB between the hexsides it crossed; with VBM it does not.
#[test]
fn b28_61_fully_tracked_afv_leaves_a_tb() {
    let mut e = mined_4e4(&[afv(1, Side::A, "4E3", Some(1))]);
    let lay = Layout::new();
    step(&mut e, &[1], "4E4", &lay, &quiet_vehicle_step());
    let run = step(&mut e, &[1], "4E5", &lay, &quiet_vehicle_step());
    assert!(run.moves().contains(&MoveEvent::TrailBreakPlaced {
        hex: hex("4E4"),
        ends: [hex("4E3"), hex("4E5")]
    }));
    assert!(trail_break::crosses(e.state(), hex("4E4"), hex("4E3")));
    let mut e = mined_4e4(&[afv(1, Side::A, "4E3", Some(1))]);
    step_by(
        &mut e,
        &[1],
        "4E4",
        MoveMode::VehicularBypass,
        &lay,
        &quiet_vehicle_step(),
    );
    step_by(
        &mut e,
        &[1],
        "4E5",
        MoveMode::VehicularBypass,
        &lay,
        &quiet_vehicle_step(),
    );
    assert!(e.state().mines.trail_breaks.is_empty());
}

/// B28.61 EX: entering via the TB at the doubled cost is free of attack (the
/// hex's leaf is not even asked); entering across the same hexside at the
/// normal cost is attacked.
#[test]
fn b28_61_ex_doubled_cost_entry_is_free_of_attack() {
    let lay = layout(&[(ap_b("4E4"), ap(8))]);
    let mut e = mined_4e4_with_tb(&[squad(1, Side::A, "4E3")]);
    let run = step_by(
        &mut e,
        &[1],
        "4E4",
        MoveMode::TrailBreak,
        &lay,
        &[unused_dr()],
    );
    assert_eq!(run.requests, vec![ap_b("4E3")]);
    let mut e = mined_4e4_with_tb(&[squad(1, Side::A, "4E3")]);
    let run = step(&mut e, &[1], "4E4", &lay, &[unused_dr(), dr(6, 6)]);
    assert_eq!(run.requests, vec![ap_b("4E3"), ap_b("4E4")]);
}

/// B28.61: leaving across a TB hexside is never attacked; leaving across
/// another hexside is.
#[test]
fn b28_61_exit_via_tb_is_not_attacked() {
    let lay = layout(&[(ap_b("4E4"), ap(8))]);
    let mut e = mined_4e4_with_tb(&[squad(1, Side::A, "4E4")]);
    let run = step(&mut e, &[1], "4E5", &lay, &[unused_dr()]);
    assert_eq!(run.requests, vec![ap_b("4E5")]);
    let mut e = mined_4e4_with_tb(&[squad(1, Side::A, "4E4")]);
    let run = step(&mut e, &[1], "4D4", &lay, &[dr(6, 6), unused_dr()]);
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4D4")]);
}

/// B28.61: the TrailBreak mode needs a TB across that hexside: refused
/// before anything is asked.
#[test]
fn b28_61_trail_break_mode_needs_a_tb() {
    let mut e = mined_4e4(&[squad(1, Side::A, "4E3")]);
    let run = step_by(
        &mut e,
        &[1],
        "4E4",
        MoveMode::TrailBreak,
        &Layout::new(),
        &[],
    );
    run.assert_refused_asking_nothing();
}
