//! A-P minefields vs vehicles and their PRC (B28.42, B28.43, R12).

mod mines_common;
use hexveil_asl::a::ift::IftResult;
use hexveil_asl::b28::minefield::{MinefieldEvent, VehicleOutcome};
use hexveil_asl::model::unit::{HullArmor, UnitId};
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
    let mut e = engine_with_data(&[truck(1, Side::A, "4E4")]);
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::Immobilized));
    assert_eq!(run.requests.len(), 3, "A-T not asked after immobilization");
    let mut e = engine_with_data(&[truck(1, Side::A, "4E4")]);
    let run = vehicle_step(&mut e, &lay, &[dr(1, 2)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::BurningWreck));
    assert!(!unit(&e, 1).in_play());
    assert!(e.state().mines.burning_wrecks.contains_key(&UnitId(1)));
}

/// R12, R72 (ruleset version 3): an unarmored vehicle that A-P mines may
/// attack needs the Vehicle line's Kill Number of every strength they may
/// have (6, 8, 12), since the strength is sealed; the shipped data lacks
/// the 6 and 12 FP columns, so the step is refused before any fact or die,
/// naming the table and the column, and the refusal is the same whatever
/// the hex holds (G3). Version 2 asked, rolled and then refused naming the
/// column of the strength found: a void ruling that told the strength.
#[test]
fn r12_r72_missing_vehicle_line_cell_refuses_before_anything() {
    for strength in [6, 8, 12] {
        let lay = layout(&[(ap_b("4E5"), ap(strength))]);
        let mut e = engine_with(&[truck(1, Side::A, "4E4")]);
        let before = e.state().clone();
        let run = vehicle_step(&mut e, &lay, &[dr(3, 4)]);
        run.assert_refused_asking_nothing();
        assert!(run.dice.is_empty());
        match run.result {
            Err(ActionError::Refused(err)) => {
                assert!(err.reason.contains("ift_vehicle_line.csv"), "{err}");
                assert!(
                    err.reason.contains("row 6"),
                    "the first missing column: {err}"
                );
                assert!(err.cite.iter().any(|c| c == "R12"));
            }
            other => panic!("expected an R12 refusal, got {other:?}"),
        }
        assert_eq!(e.state(), &before);
    }
    // Version 2: the refusal came after the leaf and the DR.
    let lay = layout(&[(ap_b("4E5"), ap(6))]);
    let mut sc = scenario(&[truck(1, Side::A, "4E4")], &[], false);
    sc.version = hexveil_asl::model::scenario::Version(2);
    let mut e = engine(sc);
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4)]);
    assert!(!run.requests.is_empty() && !run.dice.is_empty());
    assert!(matches!(run.result, Err(ActionError::Refused(ref e)) if e.reason.contains("row 6")));
}

/// B28.42: an AFV whose side and rear are unarmored counts as unarmored:
/// attacked on the Vehicle line, where 12 FP at DR 7 (under the example
/// Kill Number 8) eliminates it, while an armored AFV takes no effect
/// from anything but a KIA. Without a Vehicle line for 12 FP it is
/// refused before anything is asked (R12, R72).
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
    let mut e = engine_with_data(&[vehicle(1, Side::A, "4E4", v.clone())]);
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::Eliminated));
    let mut e = engine_with_data(&[afv(1, Side::A, "4E4", Some(0))]);
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4), d(6)]);
    assert_eq!(hit(&run), None, "an armored AFV: no KIA, no effect");
    let mut e = engine_with(&[vehicle(1, Side::A, "4E4", v)]);
    let run = vehicle_step(&mut e, &lay, &[dr(3, 4)]);
    run.assert_refused_asking_nothing();
}

/// B28.5: a motorcycle never asks the A-T layer; a wagon does.
#[test]
fn b28_5_motorcycle_never_triggers_wagon_does() {
    let mut m = vehicle_data();
    m.motorcycle = true;
    let mut e = engine_with_data(&[vehicle(1, Side::A, "4E4", m)]);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &quiet_step());
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
    let mut w = vehicle_data();
    w.wagon = true;
    let mut e = engine_with_data(&[vehicle(1, Side::A, "4E4", w)]);
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
    let mut e = engine_with_data(&units);
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
    let mut e = engine_with_data(&units);
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

/// B28.43, B28.52, R71 (ruleset version 3): without the survival numbers
/// a vehicle with PRC aboard may not make a step that could eliminate it:
/// refused before any fact or die, naming the vehicle, its PRC and the
/// table, so no ruling is voided after its dice and nobody rolls the same
/// question twice (G2). Version 2 refused after the dice (R33): a void
/// ruling, after which the same unit could declare the same move again
/// with new dice.
#[test]
fn b28_43_prc_survival_without_data_is_refused_before_any_die() {
    let mut units = vec![truck(1, Side::A, "4E4"), squad(2, Side::A, "4E4")];
    board(&mut units, 1, 2, false);
    let mut sc = scenario(&units, &[], false);
    supply(&mut sc, &[("ift_vehicle_line", EXAMPLE_VEHICLE_LINE)]);
    let mut e = engine(sc.clone());
    let before = e.state().clone();
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let run = vehicle_step(&mut e, &lay, &[dr(1, 2)]);
    run.assert_refused_asking_nothing();
    assert!(run.dice.is_empty(), "no die before the refusal");
    match &run.result {
        Err(ActionError::Refused(err)) => {
            assert!(err.reason.contains("prc_survival"), "{err}");
            assert!(err.reason.contains("#1"), "names the vehicle: {err}");
            assert!(err.cite.iter().any(|c| c == "R71"), "{err:?}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(e.state(), &before);
    // Version 2: the same step asked, rolled and refused (a void ruling),
    // and the same unit could try again, rolling anew.
    sc.version = hexveil_asl::model::scenario::Version(2);
    let mut e = engine(sc);
    for _ in 0..2 {
        let run = vehicle_step(&mut e, &lay, &[dr(1, 2)]);
        assert!(!run.dice.is_empty());
        assert!(
            matches!(run.result, Err(ActionError::Refused(ref e)) if e.reason.contains("prc_survival"))
        );
        assert_eq!(unit(&e, 1).hex, Some(hex("4E4")));
    }
}

/// B28.43, B28.52, R71: with a league's survival numbers the vehicle is
/// eliminated, each Passenger and Rider rolls its survival dr against its
/// number, the others die with the vehicle, and the survivors Bail Out into
/// the hex, where its A-P mines attack them as if entering (B28.43).
#[test]
fn b28_43_prc_of_an_eliminated_vehicle_roll_for_survival_with_supplied_data() {
    let mut units = vec![
        truck(1, Side::A, "4E4"),
        squad(2, Side::A, "4E4"),
        squad(3, Side::A, "4E4"),
    ];
    board(&mut units, 1, 2, false);
    board(&mut units, 1, 3, true);
    let mut e = engine_with_data(&units);
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    // 8 FP, DR 5 (2,3): under the example Kill Number 7, eliminated (not a
    // Burning Wreck: 2 x 5 > 7). Passenger #2 rolls 4 (> 3: lost), Rider
    // #3 rolls 4 (<= 4: survives); #3 Bails Out into 4E5 and its A-P mines
    // attack it as entering, DR 12: no effect.
    let run = vehicle_step(&mut e, &lay, &[dr(2, 3), d(4), d(4), dr(6, 6)]);
    assert_eq!(hit(&run), Some(VehicleOutcome::Eliminated));
    let rolls: Vec<(UnitId, u8, u8, bool)> = run
        .public_mines()
        .into_iter()
        .filter_map(|m| match m {
            MinefieldEvent::PrcSurvival {
                unit,
                dr,
                needed,
                survived,
                ..
            } => Some((unit, dr, needed, survived)),
            _ => None,
        })
        .collect();
    assert_eq!(
        rolls,
        vec![(UnitId(2), 4, 3, false), (UnitId(3), 4, 4, true)]
    );
    assert!(!unit(&e, 1).in_play());
    assert!(!unit(&e, 2).in_play(), "the Passenger did not survive");
    let rider = unit(&e, 3);
    assert!(rider.in_play());
    assert_eq!(rider.status.aboard, None, "Bailed Out");
    assert_eq!(rider.hex, Some(hex("4E5")));
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack { targets, crossing: hexveil_asl::b28::minefield::Crossing::Entry, .. }
            if targets == &vec![UnitId(3)]
    )));
}
