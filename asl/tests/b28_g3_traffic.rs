//! G3 traffic shape: the fact requests and the dice requests of a movement
//! step depend only on public facts and public results, never on hidden
//! content (B28.1, B28.5, B28.41, B28.42, B28.51).

mod mines_common;
use hexveil_asl::b28::minefield::MinefieldEvent;
use hexveil_asl::dice::{DiceKind, Roll};
use hexveil_asl::model::event::{Event, Visibility};
use hexveil_asl::model::sealed::FactRequest;
use hexveil_asl::model::sealed::{Content, Layer};
use hexveil_asl::model::unit::{Unit, UnitId};
use hexveil_asl::turn::Phase;
use hexveil_asl::EventKind;
use hexveil_asl::{Action, MoveMode, Side};
use mines_common::*;
use proptest::prelude::*;

fn mover(kind: u8) -> Unit {
    match kind {
        0 => squad(1, Side::A, "4E4"),
        1 => truck(1, Side::A, "4E4"),
        _ => afv(1, Side::A, "4E4", Some(kind % 3)),
    }
}

/// Whether a run made an attack result public (which may end the step or
/// cancel a later A-T check: B28.412, B28.42).
fn public_result(run: &Run) -> bool {
    match &run.result {
        Ok(_) => run.public_mines().iter().any(|m| {
            matches!(
                m,
                MinefieldEvent::ApAttack {
                    result: Some(_),
                    ..
                } | MinefieldEvent::VehicleHit { .. }
                    | MinefieldEvent::AtAttack { .. }
            )
        }),
        Err(_) => false,
    }
}

/// One item of the traffic as the log orders it: a fact opened, or a roll
/// (compared by kind only: the values are the same faces in both runs).
#[derive(Debug, PartialEq, Eq)]
enum Item {
    Fact(FactRequest),
    Roll(std::mem::Discriminant<Roll>),
}

/// The traffic of a run, in log order, up to (not including) its first
/// public attack result (which may end the step or cancel a later A-T check:
/// B28.412, B28.42), without the roll that produced that result (an A-T
/// attack DR follows a successful trigger dr, B28.51); and whether the run
/// was cut there.
fn traffic_before_public_result(events: &[Event]) -> (Vec<Item>, bool) {
    let mut out = Vec::new();
    for e in events {
        match &e.kind {
            EventKind::Minefield(
                MinefieldEvent::ApAttack {
                    result: Some(_), ..
                }
                | MinefieldEvent::VehicleHit { .. }
                | MinefieldEvent::AtAttack { .. },
            ) if e.to == Visibility::Public => {
                if matches!(out.last(), Some(Item::Roll(_))) {
                    out.pop();
                }
                return (out, true);
            }
            EventKind::FactOpened { request, .. } => out.push(Item::Fact(*request)),
            EventKind::Dice { roll, .. } => out.push(Item::Roll(std::mem::discriminant(roll))),
            _ => {}
        }
    }
    (out, false)
}

/// G3, B28.41: Infantry stepping into an eligible hex sees the same steps
/// (which facts, how many dice of which kind, in which order) whether the
/// hex is Empty or holds A-P mines whose attack has no effect.
#[test]
fn g3_infantry_step_traffic_same_for_empty_and_no_effect_ap() {
    let run_with = |lay: &Layout| {
        let mut e = engine_with(&[squad(1, Side::A, "4E4")]);
        // Exit DR for 4E4 (unused), entry DR for 4E5: 12 vs 6 FP, no effect.
        step(&mut e, &[1], "4E5", lay, &[unused_dr(), dr(6, 6)])
    };
    let empty = run_with(&Layout::new());
    let mined = run_with(&layout(&[(ap_b("4E5"), ap(6))]));
    assert!(empty.mine_events().is_empty());
    assert!(mined
        .public_mines()
        .iter()
        .any(|m| matches!(m, MinefieldEvent::ApAttack { result: None, .. })));
    assert_eq!(mined.steps, empty.steps);
    assert_eq!(
        mined.steps,
        vec![
            Traffic::Facts(vec![ap_b("4E4")]),
            Traffic::Dice(vec![DiceKind::DR]),
            Traffic::Facts(vec![ap_b("4E5")]),
            Traffic::Dice(vec![DiceKind::DR]),
        ]
    );
}

/// G3, B28.42, B28.51: a vehicle stepping into a hex eligible for A-T mines
/// sees the same steps whether the hex is Empty or holds A-T mines whose
/// trigger dr fails (dr 6 above 3 factors).
#[test]
fn g3_vehicle_step_traffic_same_for_empty_and_untriggered_at() {
    let run_with = |lay: &Layout| {
        let mut e = engine_with_data(&[truck(1, Side::A, "4E4")]);
        // Per hex: the potential A-P DR (unused), then the A-T trigger dr.
        step(&mut e, &[1], "4E5", lay, &quiet_vehicle_step())
    };
    let empty = run_with(&Layout::new());
    let mined = run_with(&layout(&[(at_b("4E5"), at(3))]));
    assert!(empty.public_mines().is_empty());
    assert!(mined.public_mines().is_empty());
    assert!(mined.mine_events().contains(&(
        Visibility::Referee,
        MinefieldEvent::AtNotTriggered {
            hex: hex("4E5"),
            unit: UnitId(1),
            factors: 3
        }
    )));
    assert_eq!(mined.steps, empty.steps);
    assert_eq!(mined.steps.len(), 8, "{:?}", mined.steps);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// G3, B28.41, B28.42: a step into 4E5 asks the same facts, in the same
    /// order, whether 4E5 is mined or empty, up to the point where an
    /// attack result is public.
    #[test]
    fn g3_step_requests_do_not_depend_on_entry_hex_content(
        kind in 0u8..5,
        exit_ap in 0u8..4,
        exit_at in 0u8..6,
        entry_ap in 1u8..4,
        entry_at in 0u8..6,
        faces in proptest::collection::vec(1u8..=6, 4..24),
    ) {
        let unit = mover(kind);
        // The Vehicle line has only the 8 FP Kill Number (R12): keep
        // unarmored movers to 8-factor fields.
        let unarmored = kind == 1;
        let fix = |c: Content| if unarmored && matches!(c, Content::ApMines(_)) { ap(8) } else { c };
        let exit = [(ap_b("4E4"), fix(ap_content(exit_ap))), (at_b("4E4"), at_content(exit_at))];
        let mined = layout(&[exit[0], exit[1], (ap_b("4E5"), fix(ap_content(entry_ap))), (at_b("4E5"), at_content(entry_at))]);
        let empty = layout(&exit);
        let mut sc = scenario(&[unit], &[], false);
        supply(&mut sc, &[("ift_vehicle_line", EXAMPLE_VEHICLE_LINE)]);
        let mut e1 = engine(sc.clone());
        let r_mined = drive_with(&mut e1, Side::A, mv(&[1], "4E5", MoveMode::Normal), &mined, &mut dice_from(faces.clone()));
        let mut e2 = engine(sc);
        let r_empty = drive_with(&mut e2, Side::A, mv(&[1], "4E5", MoveMode::Normal), &empty, &mut dice_from(faces));
        prop_assert!(r_empty.result.is_ok(), "{:?}", r_empty.result);
        // G3: facts and dice, in log order, are the same until the mined
        // run makes something public about the hex.
        let (t_mined, cut) = traffic_before_public_result(r_mined.events());
        let (t_empty, _) = traffic_before_public_result(r_empty.events());
        if cut {
            prop_assert!(t_empty.starts_with(&t_mined), "{:?} vs {:?}", t_mined, t_empty);
        } else {
            prop_assert_eq!(&t_mined, &t_empty);
        }
        if r_mined.requests != r_empty.requests {
            prop_assert!(public_result(&r_mined), "requests differ without a public result: {:?} vs {:?}", r_mined.requests, r_empty.requests);
            prop_assert!(r_empty.requests.starts_with(&r_mined.requests));
        }
    }

    /// B28.5, B28.41, G3: Infantry movement (Move, Advance, Rout) never asks
    /// an A-T leaf, whatever the layout.
    #[test]
    fn b28_5_infantry_never_causes_an_anti_tank_request(
        dirs in proptest::collection::vec(0usize..6, 1..6),
        contents in proptest::collection::vec((0u8..4, 0u8..6), 19),
        faces in proptest::collection::vec(1u8..=6, 4..24),
        phase in 0u8..3,
    ) {
        let sc0 = scenario(&[squad(1, Side::A, "4E5")], &[], false);
        let lay = layout_around(&sc0.map, "4E5", &contents);
        let mut s = squad(1, Side::A, "4E5");
        let ph = match phase {
            0 => Phase::Movement,
            1 => Phase::Advance,
            _ => {
                s.status.broken = true;
                Phase::Rout
            }
        };
        let sc = scenario(&[s], &[], false);
        let mut e = engine_in(sc.clone(), ph);
        let mut dice = dice_from(faces);
        for d in dirs {
            let here = unit(&e, 1).hex.unwrap();
            let ns = sc.map.neighbors(here);
            let to = ns[d % ns.len()];
            let action = match ph {
                Phase::Movement => Action::Move { units: vec![UnitId(1)], to, mode: MoveMode::Normal },
                Phase::Advance => Action::Advance { units: vec![UnitId(1)], to },
                _ => Action::Rout { unit: UnitId(1), to },
            };
            let run = drive_with(&mut e, Side::A, action, &lay, &mut dice);
            prop_assert!(run.requests.iter().all(|r| r.layer != Layer::AntiTank), "{:?}", run.requests);
            if !unit(&e, 1).in_play() {
                break;
            }
        }
    }
}
