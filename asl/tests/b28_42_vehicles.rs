//! A-P minefields vs vehicles and their PRC (B28.42, B28.43, R12).

mod mines_common;
use hexveil_asl::ift::IftResult;
use hexveil_asl::minefield::{MinefieldEvent, VehicleOutcome};
use hexveil_asl::unit::{HullArmor, UnitId};
use hexveil_asl::{Action, ActionError, Side};
use mines_common::*;

fn hit(run: &Run) -> Option<VehicleOutcome> {
    run.public_mines().into_iter().find_map(|m| match m {
        MinefieldEvent::VehicleHit { outcome, .. } => Some(outcome),
        _ => None,
    })
}

/// B28.42: an AFV is unaffected by an A-P result other than KIA (strength
/// stays sealed, R13), and then the A-T layer is asked (A-P before A-T).
#[test]
fn b28_42_afv_ignores_non_kia_and_a_t_comes_after_a_p() {
    let mut e = engine_with(&[afv(1, Side::A, "4E4", Some(2))]);
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    // Exit: A-T trigger dr of 4E4 (empty). Entry: A-P DR 3 (K/2: nothing to
    // an AFV), then the A-T trigger dr.
    let run = vehicle_step(&mut e, &lay, &[dr(1, 2), d(6)]);
    assert_eq!(
        run.requests,
        vec![ap_b("4E4"), at_b("4E4"), ap_b("4E5"), at_b("4E5")]
    );
    assert_eq!(hit(&run), None);
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack {
            strength: None,
            result: None,
            ..
        }
    )));
    assert!(!unit(&e, 1).vehicle().unwrap().immobilized);
}

/// B28.42: a KIA immobilizes an AFV, and that cancels the A-T attack: the
/// A-T leaf of the hex is never asked.
#[test]
fn b28_42_kia_immobilizes_afv_and_cancels_a_t() {
    let mut e = engine_with(&[afv(1, Side::A, "4E4", Some(2))]);
    let lay = layout(&[(ap_b("4E5"), ap(8)), (at_b("4E5"), at(5))]);
    let run = vehicle_step(&mut e, &lay, &[dr(1, 1)]);
    assert_eq!(run.requests, vec![ap_b("4E4"), at_b("4E4"), ap_b("4E5")]);
    assert_eq!(hit(&run), Some(VehicleOutcome::Immobilized));
    assert!(unit(&e, 1).vehicle().unwrap().immobilized);
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack {
            strength: Some(8),
            result: Some(IftResult::Kia(1)),
            ..
        }
    )));
}

/// B28.42: an unarmored vehicle uses the Vehicle line (8 FP Kill Number 7:
/// DR 7 immobilizes, DR 3 <= 7/2 is a Burning Wreck).
#[test]
fn b28_42_unarmored_uses_vehicle_line() {
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let mut e = engine_with(&[truck(1, Side::A, "4E4")]);
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::Immobilized));
    assert_eq!(run.requests.len(), 3, "A-T not asked after immobilization");
    let mut e = engine_with(&[truck(1, Side::A, "4E4")]);
    let run = vehicle_step(&mut e, &lay, &[dr(1, 2)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::BurningWreck));
    assert!(!unit(&e, 1).in_play());
    assert!(e.state().mines.burning_wrecks.contains_key(&UnitId(1)));
}

/// R12: a Vehicle line cell that is not in the data (6 FP column) is a
/// refusal naming the table; nothing changes.
#[test]
fn r12_missing_vehicle_line_cell_refuses() {
    let lay = layout(&[(ap_b("4E5"), ap(6))]);
    let mut e = engine_with(&[truck(1, Side::A, "4E4")]);
    let before = e.state().clone();
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4)]);
    match run.result {
        Err(ActionError::Refused(err)) => {
            assert!(err.reason.contains("ift_vehicle_line.csv"), "{err}");
            assert!(err.cite.iter().any(|c| c == "R12"));
        }
        other => panic!("expected an R12 refusal, got {other:?}"),
    }
    assert_eq!(e.state(), &before);
}

/// B28.42: an AFV whose side and rear are unarmored counts as unarmored
/// (Vehicle line; at 12 FP that cell is missing: R12).
#[test]
fn b28_42_afv_with_unarmored_side_and_rear_counts_as_unarmored() {
    let mut v = vehicle_data();
    v.hull = Some(HullArmor {
        front: 2,
        side: None,
        rear: None,
    });
    v.aerial_af = Some(0);
    let lay = layout(&[(ap_b("4E5"), ap(12))]);
    let mut e = engine_with(&[vehicle(1, Side::A, "4E4", v)]);
    let run = vehicle_step(&mut e, &lay, &[dr(6, 6)]);
    // An armored AFV would take "no effect" at DR 12; the unarmored reading
    // needs the 12 FP Kill Number.
    assert!(
        matches!(run.result, Err(ActionError::Refused(ref e)) if e.reason.contains("ift_vehicle_line.csv"))
    );
}

/// B28.5: a motorcycle never asks the A-T layer; a wagon does.
#[test]
fn b28_5_motorcycle_never_triggers_wagon_does() {
    let mut m = vehicle_data();
    m.motorcycle = true;
    let mut e = engine_with(&[vehicle(1, Side::A, "4E4", m)]);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &quiet_step());
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
    let mut w = vehicle_data();
    w.wagon = true;
    let mut e = engine_with(&[vehicle(1, Side::A, "4E4", w)]);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &quiet_vehicle_step());
    assert_eq!(
        run.requests,
        vec![ap_b("4E4"), at_b("4E4"), ap_b("4E5"), at_b("4E5")]
    );
}

/// B28.43: a Rider of an immobilized unarmored vehicle is attacked
/// Collaterally (same IFT result: 8 FP DR 7 = 1MC); it moved with the
/// vehicle and stays aboard.
#[test]
fn b28_43_vulnerable_rider_attacked_collaterally_on_immobilization() {
    let mut units = vec![truck(1, Side::A, "4E4"), squad(2, Side::A, "4E4")];
    board(&mut units, 1, 2, true);
    let mut e = engine_with(&units);
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4), dr(4, 4)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::Immobilized));
    let rider = unit(&e, 2);
    assert!(rider.status.broken, "1MC DR 9 > 7");
    assert_eq!(rider.hex, Some(hex("4E5")));
    assert_eq!(rider.status.aboard, Some(UnitId(1)));
}

/// B28.43: Passengers of a closed, armored AFV are not Vulnerable: no
/// Collateral attack when it is immobilized; they are immune otherwise.
#[test]
fn b28_43_passengers_of_closed_afv_are_immune() {
    let mut units = vec![afv(1, Side::A, "4E4", Some(2)), squad(2, Side::A, "4E4")];
    board(&mut units, 1, 2, false);
    let mut e = engine_with(&units);
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let run = vehicle_step(&mut e, &lay, &[dr(1, 1)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::Immobilized));
    let p = unit(&e, 2);
    assert!(p.in_play() && !p.status.broken);
}

/// B28.43: PRC that disembark into an A-P hex are attacked as if entering.
#[test]
fn b28_43_disembarking_prc_attacked_as_entering() {
    let mut units = vec![truck(1, Side::A, "4E5"), squad(2, Side::A, "4E5")];
    board(&mut units, 1, 2, false);
    let mut e = engine_with(&units);
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let run = drive(
        &mut e,
        Side::A,
        Action::Disembark {
            vehicle: UnitId(1),
            units: vec![UnitId(2)],
        },
        &lay,
        &[dr(6, 6)],
    );
    assert_eq!(run.requests, vec![ap_b("4E5")]);
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack { targets, .. } if targets == &vec![UnitId(2)]
    )));
    assert_eq!(unit(&e, 2).status.aboard, None);
}

/// B28.43 (found by the random-games soak): a unit named twice in one
/// Disembark is refused before anything is asked, as in a Move (A4);
/// before, it was accepted and listed twice as disembarking and as an A-P
/// target.
#[test]
fn b28_43_disembark_naming_a_unit_twice_is_refused() {
    let mut units = vec![truck(1, Side::A, "4E5"), squad(2, Side::A, "4E5")];
    board(&mut units, 1, 2, false);
    let mut e = engine_with(&units);
    let before = e.state().clone();
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let run = drive(
        &mut e,
        Side::A,
        Action::Disembark {
            vehicle: UnitId(1),
            units: vec![UnitId(2), UnitId(2)],
        },
        &lay,
        &[],
    );
    run.assert_refused_asking_nothing();
    assert!(run.dice.is_empty());
    assert_eq!(e.state(), &before);
}

/// B28.43, R12: PRC of an eliminated vehicle roll for survival; the
/// survival numbers are not in the data, so the ruling is refused.
#[test]
fn b28_43_prc_survival_needs_missing_data() {
    let mut units = vec![truck(1, Side::A, "4E4"), squad(2, Side::A, "4E4")];
    board(&mut units, 1, 2, false);
    let mut e = engine_with(&units);
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let run = vehicle_step(&mut e, &lay, &[dr(1, 2)]);
    assert!(
        matches!(run.result, Err(ActionError::Refused(ref e)) if e.reason.contains("prc_survival"))
    );
    assert_eq!(unit(&e, 1).hex, Some(hex("4E4")));
}
