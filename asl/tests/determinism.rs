//! The engine is deterministic (issue: "same inputs, same events"): two
//! fresh engines given the same scenario, layout, actions and dice ask the
//! same facts and dice, rule the same events and end in the same state. The
//! verifier's re-run of a game (G5) depends on it.

mod mines_common;
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::{MoveMode, Side};
use mines_common::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn g5_same_inputs_same_requests_events_and_state(
        with_afv in any::<bool>(),
        dirs in proptest::collection::vec(0usize..6, 1..5),
        contents in proptest::collection::vec((0u8..4, 0u8..6), 19),
        faces in proptest::collection::vec(1u8..=6, 4..32),
    ) {
        let mut units = vec![squad(1, Side::A, "4E5"), squad(2, Side::A, "4E5")];
        if with_afv {
            units.push(afv(3, Side::A, "4E5", Some(1)));
        }
        let sc = scenario(&units, &[], false);
        let lay = layout_around(&sc.map, "4E5", &contents);
        let ids: Vec<u16> = units.iter().map(|u| u.id.0).collect();
        let mut engines = [engine(sc.clone()), engine(sc.clone())];
        let mut dice = [dice_from(faces.clone()), dice_from(faces)];
        let mut ruled = 0;
        for d in dirs {
            let mut runs = Vec::new();
            for (e, roll) in engines.iter_mut().zip(dice.iter_mut()) {
                let movers: Vec<u16> = ids
                    .iter()
                    .copied()
                    .filter(|id| e.state().unit(UnitId(*id)).is_some_and(|u| u.good_order()))
                    .collect();
                let Some(first) = movers.first() else { break };
                let here = unit(e, *first).hex.unwrap();
                let ns = sc.map.neighbors(here);
                let to = ns[d % ns.len()].to_string();
                runs.push(drive_with(e, Side::A, mv(&movers, &to, MoveMode::Normal), &lay, roll));
            }
            if let [a, b] = runs.as_slice() {
                ruled += usize::from(a.result.is_ok());
                prop_assert_eq!(&a.requests, &b.requests);
                prop_assert_eq!(&a.dice, &b.dice);
                prop_assert_eq!(&a.result, &b.result);
            }
            prop_assert_eq!(engines[0].state(), engines[1].state());
        }
        // The first step of Good Order units in their MPh is always legal.
        prop_assert!(ruled > 0, "no step was ruled: the comparison would be empty");
    }
}

/// Issue 16, G5: games of one scenario share one parse (the referee's
/// `Ruleset::load`), and a shared parse is the parse of that text: the
/// same scenario and the same engine at the start as a parse of its own.
/// The share is weak: with its last holder gone, the next load parses anew.
#[test]
fn g5_games_of_one_scenario_share_one_parse_equal_to_a_fresh_one() {
    use hexveil_asl::ruleset::{shared_scenario, Asl};
    use hexveil_core::Ruleset as _;
    use std::sync::Arc;
    const TEXT: &str = include_str!("../../examples/scenario.toml");

    let first = shared_scenario(TEXT).unwrap();
    let second = shared_scenario(TEXT).unwrap();
    assert!(Arc::ptr_eq(&first, &second), "one parse for both games");
    {
        let loaded = Asl.load(TEXT).unwrap();
        let loaded = loaded
            .as_any()
            .downcast_ref::<hexveil_asl::ruleset::AslScenario>()
            .expect("an ASL scenario");
        assert!(Arc::ptr_eq(&first.scenario, &loaded.scenario));
    }

    let own = hexveil_asl::model::scenario::Scenario::from_toml(TEXT).unwrap();
    assert_eq!(*first.scenario, own, "the shared parse is the text's parse");

    // Another text is another scenario.
    let other_text = format!("{TEXT}\n# another league's copy\n");
    let other = shared_scenario(&other_text).unwrap();
    assert!(!Arc::ptr_eq(&first, &other));

    // Weak: once every game let go, the next one parses again.
    let weak = Arc::downgrade(&first);
    drop((first, second, other));
    assert!(weak.upgrade().is_none(), "nothing else keeps the parse");
    let again = shared_scenario(TEXT).unwrap();
    assert_eq!(*again.scenario, own);
}
