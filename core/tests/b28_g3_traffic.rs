//! G3 traffic shape: the fact requests of a movement step depend only on
//! public facts and public results, never on hidden content (B28.1, B28.5,
//! B28.41, B28.42, B28.51).

mod mines_common;
use hexveil_core::dice::{DiceKind, DiceSpec, Roll};
use hexveil_core::minefield::MinefieldEvent;
use hexveil_core::sealed::{Content, Layer};
use hexveil_core::turn::Phase;
use hexveil_core::unit::{Unit, UnitId};
use hexveil_core::{Action, Engine, MoveMode, Side};
use mines_common::*;
use proptest::prelude::*;

/// Dice answered from a list of faces, cycling.
fn dice_from(faces: Vec<u8>) -> impl FnMut(&DiceSpec) -> Roll {
    let mut i = 0usize;
    move |spec: &DiceSpec| {
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

fn ap_content(k: u8) -> Content {
    match k {
        0 => Content::Empty,
        1 => ap(6),
        2 => ap(8),
        _ => ap(12),
    }
}

fn at_content(k: u8) -> Content {
    if k == 0 {
        Content::Empty
    } else {
        at(k)
    }
}

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
        let sc = scenario(&[unit], &[], false);
        let mut e1 = engine(sc.clone());
        let r_mined = drive_with(&mut e1, Side::A, mv(&[1], "4E5", MoveMode::Normal), &mined, &mut dice_from(faces.clone()));
        let mut e2 = engine(sc);
        let r_empty = drive_with(&mut e2, Side::A, mv(&[1], "4E5", MoveMode::Normal), &empty, &mut dice_from(faces));
        prop_assert!(r_empty.result.is_ok(), "{:?}", r_empty.result);
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
        let mut area: Vec<_> = sc0.map.neighbors(hex("4E5"));
        area.push(hex("4E5"));
        for n in sc0.map.neighbors(hex("4E5")) {
            area.extend(sc0.map.neighbors(n));
        }
        area.sort();
        area.dedup();
        let mut lay = Layout::new();
        for (h, (a, t)) in area.iter().zip(contents.iter().cycle()) {
            let name = h.to_string();
            lay.insert(ap_b(&name), ap_content(*a));
            lay.insert(at_b(&name), at_content(*t));
        }
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
        let st = state(&sc, ph);
        let mut e = Engine::with_state(sc.clone(), st);
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
