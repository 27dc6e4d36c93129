//! Turn sequence, out-of-turn/out-of-phase refusals, A19.12 surrender at
//! the start of the RtPh, game end and concession.

mod scenario_support;
use hexveil_asl::adjudicate;
use hexveil_asl::model::error::ActionError;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::DaisyNote;
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::turn::{Phase, TurnEvent};
use hexveil_asl::{Action, Content, Engine, EventKind, MoveMode, Side, Step};
use scenario_support::*;

fn done(step: Step) -> Vec<hexveil_asl::Event> {
    match step {
        Step::Done(e) => e,
        other => panic!("expected Done, got {other:?}"),
    }
}

/// Ends the phase, answering Daisy Chain opportunities with Nothing.
fn end_phase(e: &mut Engine) -> Vec<hexveil_asl::Event> {
    let side = hexveil_asl::turn::who_ends_phase(e.state());
    let nothing = &mut |_: &_| Content::Daisy(DaisyNote::Nothing);
    let run = drive_engine_rolls(e, side, Action::EndPhase, nothing, &[]);
    run.events().to_vec()
}

/// Puts unit `id` in `at`, broken and Disrupted (A19.12).
fn disrupted_at(st: &mut GameState, id: UnitId, at: &str) {
    let u = st.units.get_mut(&id).unwrap();
    u.hex = Some(hex(at));
    u.status.broken = true;
    u.status.disrupted = true;
}

fn engine(sc: &Scenario) -> Engine {
    Engine::with_state(sc.clone(), state(sc))
}

#[test]
fn setup_ends_into_the_first_sides_rally_phase() {
    let sc = scenario();
    let mut e = engine(&sc);
    assert!(matches!(
        e.apply(Side::B, Action::EndPhase),
        Err(ActionError::NotYourTurn {
            actor: Side::B,
            phasing: Side::A,
            phase: Phase::Setup
        })
    ));
    let ev = done(e.apply(Side::A, Action::EndPhase).unwrap());
    assert_eq!(e.state().phase, Phase::Rally);
    assert_eq!(e.state().turn, 1);
    assert!(ev.iter().any(|x| matches!(
        x.kind,
        EventKind::Turn(TurnEvent::PhaseBegins {
            turn: 1,
            phasing: Side::A,
            phase: Phase::Rally
        })
    )));
}

#[test]
fn a3_phases_in_order_then_the_other_player_turn_then_the_next_game_turn() {
    let sc = scenario();
    let mut e = engine(&sc);
    let mut seen = Vec::new();
    let mut opportunities = 0;
    for _ in 0..17 {
        let before = e.state().opportunities;
        end_phase(&mut e);
        seen.push((e.state().turn, e.state().phasing, e.state().phase.abbrev()));
        opportunities += e.state().opportunities - before;
    }
    // B28.531: B (holding a Daisy Chain) gets an opportunity at the end of
    // its own PFPh and AFPh, and none in A's Player Turn without movement.
    assert_eq!(opportunities, 2);
    let phases = ["RPh", "PFPh", "MPh", "DFPh", "AFPh", "RtPh", "APh", "CCPh"];
    let mut expected = Vec::new();
    for p in phases {
        expected.push((1, Side::A, p));
    }
    for p in phases {
        expected.push((1, Side::B, p));
    }
    expected.push((2, Side::A, "RPh"));
    assert_eq!(seen, expected);
}

fn to_phase(e: &mut Engine, turn: u16, side: Side, phase: Phase) {
    while !(e.state().turn == turn && e.state().phasing == side && e.state().phase == phase) {
        end_phase(e);
    }
}

#[test]
fn out_of_phase_move_is_refused_with_the_rule() {
    let sc = scenario();
    let mut e = engine(&sc);
    to_phase(&mut e, 1, Side::A, Phase::Rally);
    let squad = sc.unit_named("ger-squad-1").unwrap();
    let mv = Action::Move {
        units: vec![squad],
        to: hex("4E4"),
        mode: MoveMode::Normal,
    };
    let before = e.state().clone();
    match e.apply(Side::A, mv.clone()) {
        Err(ActionError::WrongPhase {
            action,
            phase: Phase::Rally,
            cite,
        }) => {
            assert_eq!(action, "Move");
            assert_eq!(cite, "A3.4");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.state(), &before, "a refusal changes nothing");
    // Out of turn: B in A's MPh.
    to_phase(&mut e, 1, Side::A, Phase::Movement);
    let brit = sc.unit_named("brit-squad-2").unwrap();
    let mv_b = Action::Move {
        units: vec![brit],
        to: hex("3D5"),
        mode: MoveMode::Normal,
    };
    assert!(matches!(
        e.apply(Side::B, mv_b.clone()),
        Err(ActionError::NotYourTurn { .. })
    ));
    // A moving B's unit.
    let mv_ab = Action::Move {
        units: vec![brit],
        to: hex("3D5"),
        mode: MoveMode::Normal,
    };
    assert!(matches!(
        e.apply(Side::A, mv_ab),
        Err(ActionError::NotYourUnit { .. })
    ));
}

#[test]
fn fire_in_the_dfph_belongs_to_the_non_phasing_side() {
    let sc = scenario();
    let mut st = state(&sc);
    st.phase = Phase::DefensiveFire;
    st.phasing = Side::A;
    let ger = sc.unit_named("ger-squad-1").unwrap();
    let brit = sc.unit_named("brit-squad-1").unwrap();
    let fire = |u| Action::Fire {
        firers: vec![u],
        target: hex("4E5"),
        extra_drm: 0,
    };
    assert!(matches!(
        adjudicate::check(&sc, &st, Side::A, &fire(ger)),
        Err(ActionError::NotYourTurn { .. })
    ));
    assert_eq!(adjudicate::check(&sc, &st, Side::B, &fire(brit)), Ok(()));
    st.phase = Phase::PrepFire;
    assert!(adjudicate::check(&sc, &st, Side::B, &fire(brit)).is_err());
    assert_eq!(adjudicate::check(&sc, &st, Side::A, &fire(ger)), Ok(()));
    // Rout is for the RtPh only; Advance for the APh only.
    let rout = Action::Rout {
        unit: ger,
        to: hex("4E4"),
    };
    assert!(matches!(
        adjudicate::check(&sc, &st, Side::A, &rout),
        Err(ActionError::WrongPhase { .. })
    ));
    st.phase = Phase::Rout;
    assert_eq!(adjudicate::check(&sc, &st, Side::A, &rout), Ok(()));
}

#[test]
fn a19_12_disrupted_unit_adjacent_to_good_order_enemy_surrenders_at_rtph() {
    let sc = scenario();
    let mut st = state(&sc);
    let near = sc.unit_named("brit-squad-2").unwrap();
    let far = sc.unit_named("brit-squad-1").unwrap();
    for (id, at) in [(near, "4E4"), (far, "4E1")] {
        disrupted_at(&mut st, id, at);
    }
    st.phase = Phase::AdvancingFire;
    let mut e = Engine::with_state(sc.clone(), st);
    let ev = done(e.apply(Side::A, Action::EndPhase).unwrap());
    assert_eq!(e.state().phase, Phase::Rout);
    assert!(
        e.state().units[&near].status.captured,
        "4E4 is ADJACENT to the German squad in 4E5"
    );
    assert!(
        !e.state().units[&far].status.captured,
        "4E1 is not ADJACENT"
    );
    assert!(ev.iter().any(|x| x.cite.contains(&"A19.12".to_string())
        && matches!(x.kind, EventKind::Turn(TurnEvent::Surrendered { unit, to: Side::A }) if unit == near)));
}

#[test]
fn a19_12_no_surrender_to_a_concealed_enemy() {
    let sc = scenario();
    let mut st = state(&sc);
    let near = sc.unit_named("brit-squad-2").unwrap();
    disrupted_at(&mut st, near, "4E4");
    for name in ["ger-squad-1", "ger-leader"] {
        let id = sc.unit_named(name).unwrap();
        st.units.get_mut(&id).unwrap().status.concealed = true;
    }
    st.phase = Phase::AdvancingFire;
    let mut e = Engine::with_state(sc.clone(), st);
    done(e.apply(Side::A, Action::EndPhase).unwrap());
    assert!(!e.state().units[&near].status.captured);
}

#[test]
fn game_ends_after_the_last_turn() {
    let text = SCENARIO.replace("turns = 5", "turns = 1");
    let sc = Scenario::from_toml(&text).unwrap();
    let mut e = engine(&sc);
    to_phase(&mut e, 1, Side::B, Phase::CloseCombat);
    let ev = end_phase(&mut e);
    assert!(e.state().result.is_some());
    assert!(ev
        .iter()
        .any(|x| matches!(x.kind, EventKind::Turn(TurnEvent::GameOver { .. }))));
    assert!(matches!(
        e.apply(Side::A, Action::EndPhase),
        Err(ActionError::GameOver)
    ));
}

#[test]
fn concede_ends_the_game_for_the_other_side() {
    let sc = scenario();
    let mut e = engine(&sc);
    done(e.apply(Side::B, Action::Concede).unwrap());
    let r = e.state().result.clone().unwrap();
    assert_eq!(r.winner, Some(Side::A));
    assert!(matches!(
        e.apply(Side::A, Action::EndPhase),
        Err(ActionError::GameOver)
    ));
}

#[test]
fn a19_12_disrupted_unit_surrenders_in_any_phase_when_an_enemy_shares_its_location() {
    // The German squad in 4E5 is Good Order and Known; a Disrupted British
    // squad stands in 4E5 too. Any action (here the end of the RPh) ends
    // with its surrender, not only the RtPh.
    let sc = scenario();
    let mut st = state(&sc);
    let brit = sc.unit_named("brit-squad-2").unwrap();
    disrupted_at(&mut st, brit, "4E5");
    st.phase = Phase::Rally;
    let mut e = Engine::with_state(sc.clone(), st.clone());
    let ev = done(e.apply(Side::A, Action::EndPhase).unwrap());
    assert_eq!(e.state().phase, Phase::PrepFire);
    assert!(e.state().units[&brit].status.captured);
    assert!(ev.iter().any(
        |x| matches!(x.kind, EventKind::Turn(TurnEvent::Surrendered { unit, .. }) if unit == brit)
    ));
    // Merely broken (not Disrupted): no surrender.
    st.units.get_mut(&brit).unwrap().status.disrupted = false;
    let mut e = Engine::with_state(sc.clone(), st);
    done(e.apply(Side::A, Action::EndPhase).unwrap());
    assert!(!e.state().units[&brit].status.captured);
}

/// A3, A3.5 (issue item 7): in the Defensive Fire Phase the defender fires,
/// so the DFPh ends on the NON-phasing side's `EndPhase`; the phasing side's
/// is refused and changes nothing. Every other phase is ended by the
/// phasing side.
#[test]
fn a3_5_the_defender_ends_the_defensive_fire_phase() {
    let sc = scenario();
    let mut e = engine(&sc);
    to_phase(&mut e, 1, Side::A, Phase::DefensiveFire);
    assert_eq!(hexveil_asl::turn::who_ends_phase(e.state()), Side::B);
    assert!(matches!(
        e.apply(Side::A, Action::EndPhase),
        Err(ActionError::NotYourTurn {
            actor: Side::A,
            phasing: Side::A,
            phase: Phase::DefensiveFire
        })
    ));
    assert_eq!(e.state().phase, Phase::DefensiveFire);
    done(e.apply(Side::B, Action::EndPhase).unwrap());
    assert_eq!(e.state().phase, Phase::AdvancingFire);
    assert_eq!(e.state().phasing, Side::A);
    assert_eq!(hexveil_asl::turn::who_ends_phase(e.state()), Side::A);
    assert!(matches!(
        e.apply(Side::B, Action::EndPhase),
        Err(ActionError::NotYourTurn { .. })
    ));
    // And in B's Player Turn, A (now the defender) ends B's DFPh.
    to_phase(&mut e, 1, Side::B, Phase::DefensiveFire);
    assert_eq!(hexveil_asl::turn::who_ends_phase(e.state()), Side::A);
    done(e.apply(Side::A, Action::EndPhase).unwrap());
    assert_eq!(e.state().phase, Phase::AdvancingFire);
}
