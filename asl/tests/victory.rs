//! Victory conditions (`[victory]`, docs/SCENARIO.md): hex control (R53),
//! Casualty Victory Points (R54, R55), their combination and the judgement
//! at the end of the last Game Turn (A2.9, R56), the result in the kernel
//! engine's outcome, refusals at load naming the field, and the oracle's
//! `final` output.

mod scenario_support;
use hexveil_asl::model::action::encode_action;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::DaisyNote;
use hexveil_asl::model::state::{GameResult, GameState};
use hexveil_asl::model::unit::{InfantrySize, UnitId, UnitKind};
use hexveil_asl::ruleset::AslEngine;
use hexveil_asl::turn::TurnEvent;
use hexveil_asl::victory::{controller, cvp_inflicted};
use hexveil_asl::{Action, Content, Engine, EventKind, Side};
use hexveil_core::Engine as _;
use scenario_support::*;

/// The example scenario without its own victory conditions.
fn base() -> String {
    let start = SCENARIO
        .find("# Victory conditions")
        .expect("the example's [victory]");
    let end = SCENARIO.find("# League data").expect("the block after it");
    format!("{}{}", &SCENARIO[..start], &SCENARIO[end..])
}

/// The example scenario cut to one Game Turn, with `victory` (TOML) added
/// in place of its own.
fn with_victory(victory: &str) -> Scenario {
    let text = base().replacen("turns = 5", "turns = 1", 1);
    Scenario::from_toml(&format!("{text}\n{victory}")).expect("scenario loads")
}

/// The load error of the example with `victory` added in place of its own.
fn refused(victory: &str) -> String {
    Scenario::from_toml(&format!("{}\n{victory}", base()))
        .expect_err("the scenario is refused")
        .to_string()
}

const CONTROL_C5_D5: &str = r#"
[victory]
otherwise = "B"
[[victory.conditions]]
side = "A"
control = ["3C5", "3D5"]
"#;

/// A unit id of the example by name.
fn id(sc: &Scenario, name: &str) -> UnitId {
    sc.unit_named(name).expect("unit")
}

/// The state at the start of play, changed by `f`.
fn start(sc: &Scenario, f: impl FnOnce(&mut GameState)) -> Engine {
    let mut st = state(sc);
    f(&mut st);
    Engine::with_state(sc.clone(), st)
}

/// Ends the current phase, answering Daisy Chain opportunities with Nothing.
fn end_phase(e: &mut Engine) -> Vec<hexveil_asl::Event> {
    let side = hexveil_asl::turn::who_ends_phase(e.state());
    let nothing = &mut |_: &_| Content::Daisy(DaisyNote::Nothing);
    drive_engine_rolls(e, side, Action::EndPhase, nothing, &[])
        .events()
        .to_vec()
}

/// Ends phases until the game is over; the result and the GameOver event.
fn play_to_end(e: &mut Engine) -> GameResult {
    let mut over = None;
    for _ in 0..40 {
        for ev in end_phase(e) {
            if let EventKind::Turn(TurnEvent::GameOver { winner, reason }) = ev.kind {
                assert!(ev.cite.iter().any(|c| c == "R56"), "{:?}", ev.cite);
                over = Some(GameResult { winner, reason });
            }
        }
        if let Some(r) = &e.state().result {
            assert_eq!(
                over.as_ref(),
                Some(r),
                "the GameOver event tells the result"
            );
            return r.clone();
        }
    }
    panic!("the game did not end");
}

/// Moves a unit (by name) to a hex in the state, outside the rules.
fn put(sc: &Scenario, st: &mut GameState, name: &str, at: &str) {
    st.units.get_mut(&id(sc, name)).unwrap().hex = Some(hex(at));
}

#[test]
fn r53_r56_control_wins_when_a_holds_every_named_hex() {
    let sc = with_victory(CONTROL_C5_D5);
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        put(&sc, st, "ger-leader", "3D5");
    });
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, Some(Side::A));
    assert_eq!(
        r.reason,
        "side A controls 3C5 and 3D5 at the end of Game Turn 1 (victory conditions)"
    );
}

#[test]
fn r53_r56_a_missing_hex_loses_and_otherwise_names_the_winner() {
    // 3D5 lies in B's setup area only: B's until a Good Order unit enters.
    let sc = with_victory(CONTROL_C5_D5);
    let mut e = start(&sc, |st| put(&sc, st, "ger-squad-1", "3C5"));
    assert_eq!(controller(&sc, e.state(), hex("3D5")), Some(Side::B));
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, Some(Side::B));
    assert_eq!(
        r.reason,
        "no victory condition holds at the end of Game Turn 1 (side A does not control 3C5 and 3D5 \
         (3D5 is side B's)), so side B wins (victory conditions)"
    );
}

#[test]
fn r53_control_stays_with_the_side_that_last_held_the_hex() {
    let sc = with_victory(CONTROL_C5_D5);
    // A's units hold both hexes after an action ...
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        put(&sc, st, "ger-leader", "3D5");
    });
    end_phase(&mut e);
    assert_eq!(controller(&sc, e.state(), hex("3D5")), Some(Side::A));
    // ... then leave them: A still controls both.
    let mut st = e.state().clone();
    put(&sc, &mut st, "ger-squad-1", "4E5");
    put(&sc, &mut st, "ger-leader", "4E5");
    let mut e = Engine::with_state(sc.clone(), st);
    assert_eq!(play_to_end(&mut e).winner, Some(Side::A));
}

#[test]
fn r53_an_enemy_unit_alone_in_the_hex_takes_control() {
    let sc = with_victory(CONTROL_C5_D5);
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        put(&sc, st, "ger-leader", "3D5");
    });
    end_phase(&mut e);
    let mut st = e.state().clone();
    put(&sc, &mut st, "ger-leader", "4E5");
    put(&sc, &mut st, "brit-squad-2", "3D5");
    let mut e = Engine::with_state(sc.clone(), st);
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, Some(Side::B));
    assert!(r.reason.contains("3D5 is side B's"), "{}", r.reason);
}

#[test]
fn r53_both_sides_in_the_hex_or_a_broken_unit_change_nothing() {
    let sc = with_victory(CONTROL_C5_D5);
    // Melee: both sides' Good Order units in 3D5, which stays B's.
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        put(&sc, st, "ger-leader", "3D5");
        put(&sc, st, "brit-squad-2", "3D5");
    });
    end_phase(&mut e);
    assert_eq!(controller(&sc, e.state(), hex("3D5")), Some(Side::B));
    // A broken unit alone controls nothing: 3C5 stays B's.
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        st.units
            .get_mut(&id(&sc, "ger-squad-1"))
            .unwrap()
            .status
            .broken = true;
    });
    end_phase(&mut e);
    assert_eq!(controller(&sc, e.state(), hex("3C5")), Some(Side::B));
    assert_eq!(play_to_end(&mut e).winner, Some(Side::B));
}

#[test]
fn r53_start_of_play_setup_area_and_occupants() {
    let sc = with_victory(CONTROL_C5_D5);
    let st = state(&sc);
    // Board 3 is B's setup area, board 4 A's (examples/scenario.toml).
    assert_eq!(controller(&sc, &st, hex("3C5")), Some(Side::B));
    assert_eq!(controller(&sc, &st, hex("4C5")), Some(Side::A));
    // Both sides' setup areas: the side that does not move first (B).
    let both = Scenario::from_toml(
        &SCENARIO
            .replacen(
                "setup_area = { boards = [4] }",
                "setup_area = { boards = [3, 4] }",
                1,
            )
            .replacen("turns = 5", "turns = 1", 1),
    )
    .unwrap();
    assert_eq!(controller(&both, &state(&both), hex("3C5")), Some(Side::B));
    // A victory hex occupied at the start is its occupant's (3F4: brit-squad-1).
    let sc = with_victory(
        "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"B\"\ncontrol = [\"3F4\"]\n",
    );
    assert_eq!(state(&sc).control.get(&hex("3F4")), Some(&Side::B));
}

const CVP_A_2: &str = r#"
[victory]
otherwise = "B"
[[victory.conditions]]
side = "A"
cvp = 2
"#;

#[test]
fn r54_cvp_an_eliminated_squad_is_worth_two() {
    let sc = with_victory(CVP_A_2);
    let brit = id(&sc, "brit-squad-1");
    let mut e = start(&sc, |st| {
        st.units.get_mut(&brit).unwrap().status.eliminated = true
    });
    assert_eq!(cvp_inflicted(&sc, e.state(), Side::A), 2);
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, Some(Side::A));
    assert_eq!(
        r.reason,
        "side A has inflicted 2 CVP (2 needed) at the end of Game Turn 1 (victory conditions)"
    );
}

#[test]
fn r54_cvp_too_few_loses() {
    let sc = with_victory(CVP_A_2);
    // A squad Reduced to a half-squad has cost 1 CVP (R54).
    let brit = id(&sc, "brit-squad-1");
    let mut e = start(&sc, |st| {
        if let UnitKind::Infantry(i) = &mut st.units.get_mut(&brit).unwrap().kind {
            i.size = InfantrySize::HalfSquad;
        }
    });
    assert_eq!(cvp_inflicted(&sc, e.state(), Side::A), 1);
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, Some(Side::B));
    assert!(
        r.reason
            .contains("side A has inflicted 1 CVP of the 2 needed"),
        "{}",
        r.reason
    );
}

#[test]
fn r54_r55_captured_units_and_scenario_values_count() {
    let sc = with_victory(
        r#"
[victory]
otherwise = "draw"
cvp_values = { vehicle = 5, leader = 3 }
[[victory.conditions]]
side = "B"
cvp = 8
"#,
    );
    let (pz, leader) = (id(&sc, "ger-pz"), id(&sc, "ger-leader"));
    let mut e = start(&sc, |st| {
        st.units.get_mut(&pz).unwrap().status.eliminated = true;
        st.units.get_mut(&leader).unwrap().status.captured = true;
    });
    assert_eq!(cvp_inflicted(&sc, e.state(), Side::B), 8);
    assert_eq!(cvp_inflicted(&sc, e.state(), Side::A), 0);
    assert_eq!(play_to_end(&mut e).winner, Some(Side::B));
    // Defaults (R55): vehicle 2, leader 1.
    let sc = with_victory(CVP_A_2);
    let mut st = state(&sc);
    st.units.get_mut(&pz).unwrap().status.eliminated = true;
    st.units.get_mut(&leader).unwrap().status.captured = true;
    assert_eq!(cvp_inflicted(&sc, &st, Side::B), 3);
}

const COMBINED: &str = r#"
[victory]
otherwise = "draw"
[[victory.conditions]]
side = "A"
control = ["3C5"]
cvp = 2
[[victory.conditions]]
side = "B"
cvp = 1
"#;

#[test]
fn r56_a_combined_condition_needs_both_parts() {
    let sc = with_victory(COMBINED);
    let brit = id(&sc, "brit-squad-1");
    // Both parts: A wins.
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        st.units.get_mut(&brit).unwrap().status.eliminated = true;
    });
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, Some(Side::A));
    assert_eq!(
        r.reason,
        "side A controls 3C5 and has inflicted 2 CVP (2 needed) at the end of Game Turn 1 \
         (victory conditions)"
    );
    // Control alone: no condition holds, a draw as the scenario says.
    let mut e = start(&sc, |st| put(&sc, st, "ger-squad-1", "3C5"));
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, None);
    assert!(
        r.reason
            .ends_with("so the game is a draw (victory conditions)"),
        "{}",
        r.reason
    );
}

#[test]
fn r56_alternatives_or_and_the_first_that_holds_decides() {
    let sc = with_victory(COMBINED);
    let (brit, ger) = (id(&sc, "brit-squad-1"), id(&sc, "ger-hs-1"));
    // B's alternative alone holds.
    let mut e = start(&sc, |st| {
        st.units.get_mut(&ger).unwrap().status.eliminated = true
    });
    let r = play_to_end(&mut e);
    assert_eq!(r.winner, Some(Side::B));
    assert!(
        r.reason.starts_with("side B has inflicted 1 CVP"),
        "{}",
        r.reason
    );
    // Both hold: A's comes first in the file.
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        st.units.get_mut(&brit).unwrap().status.eliminated = true;
        st.units.get_mut(&ger).unwrap().status.eliminated = true;
    });
    assert_eq!(play_to_end(&mut e).winner, Some(Side::A));
}

#[test]
fn a2_9_r56_the_result_is_the_kernel_engines_outcome_at_the_end_of_the_last_turn() {
    let sc = with_victory(CONTROL_C5_D5);
    let mut e = start(&sc, |st| {
        put(&sc, st, "ger-squad-1", "3C5");
        put(&sc, st, "ger-leader", "3D5");
    });
    // Up to B's Close Combat Phase of Game Turn 1, the last phase.
    while !(e.state().phasing == Side::B
        && e.state().phase == hexveil_asl::turn::Phase::CloseCombat)
    {
        end_phase(&mut e);
    }
    let mut k = AslEngine(e);
    assert_eq!(k.outcome(), None, "not over before the last phase ends");
    let step = k
        .apply(Side::B, &encode_action(&Action::EndPhase))
        .expect("B ends its CCPh");
    assert!(matches!(step, hexveil_core::Step::Done(_)));
    let out = k.outcome().expect("the game is over");
    assert_eq!(out.winner, Some(Side::A));
    assert_eq!(
        out.reason,
        "side A controls 3C5 and 3D5 at the end of Game Turn 1 (victory conditions)"
    );
}

#[test]
fn a2_9_without_victory_conditions_the_game_ends_without_a_winner() {
    let sc = Scenario::from_toml(&base()).unwrap();
    let mut st = state(&sc);
    st.turn = sc.turns;
    let mut e = Engine::with_state(sc.clone(), st);
    let mut last = None;
    while e.state().result.is_none() {
        last = Some(end_phase(&mut e));
    }
    let r = e.state().result.clone().unwrap();
    assert_eq!(r.winner, None);
    assert!(
        r.reason.contains("states no victory conditions"),
        "{}",
        r.reason
    );
    assert!(last.unwrap().iter().any(|ev| matches!(
        ev.kind,
        EventKind::Turn(TurnEvent::GameOver { winner: None, .. })
    )));
}

#[test]
fn concession_still_names_the_winner_under_victory_conditions() {
    let sc = with_victory(CONTROL_C5_D5);
    let mut e = start(&sc, |_| {});
    let none = &mut |_: &_| Content::Empty;
    drive_engine_rolls(&mut e, Side::B, Action::Concede, none, &[]).events();
    let r = e.state().result.clone().unwrap();
    assert_eq!(r.winner, Some(Side::A));
    assert_eq!(r.reason, "side B conceded");
}

#[test]
fn r56_malformed_victory_conditions_are_refused_at_load_naming_the_field() {
    let cases: &[(&str, &str)] = &[
        (
            "[victory]\n[[victory.conditions]]\nside = \"A\"\ncvp = 2\n",
            "victory.otherwise",
        ),
        (
            "[victory]\notherwise = \"C\"\n[[victory.conditions]]\nside = \"A\"\ncvp = 2\n",
            "victory.otherwise",
        ),
        ("[victory]\notherwise = \"A\"\n", "victory.conditions"),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"X\"\ncvp = 2\n",
            "victory.conditions[0].side",
        ),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"A\"\ncvp = 2\n\
             [[victory.conditions]]\nside = \"B\"\ncontrol = [\"3E4\", \"9Z9\"]\n",
            "victory.conditions[1].control[1]",
        ),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"B\"\ncontrol = [\"3E4\", \"3E4\"]\n",
            "victory.conditions[0].control[1]",
        ),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"B\"\ncontrol = [\"east\"]\n",
            "victory.conditions[0].control[0]",
        ),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"B\"\ncvp = 0\n",
            "victory.conditions[0].cvp",
        ),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"B\"\n",
            "victory.conditions[0]",
        ),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"A\"\nexit = 3\n",
            "victory.conditions[0].exit",
        ),
        (
            "[victory]\notherwise = \"A\"\n[[victory.conditions]]\nside = \"A\"\nhold = [\"3E4\"]\n",
            "victory.conditions[0]",
        ),
        (
            "[victory]\notherwise = \"A\"\ncvp_values = { tank = 3 }\n[[victory.conditions]]\nside = \"A\"\ncvp = 1\n",
            "victory.cvp_values",
        ),
    ];
    for (victory, field) in cases {
        let msg = refused(victory);
        assert!(msg.contains(field), "{victory:?}: {msg}");
    }
    assert!(refused(cases[9].0).contains("R56"));
}

#[test]
fn oracle_final_output_shows_the_result() {
    // The example question's scenario with victory conditions and one Game
    // Turn; every phase ended, nothing else done.
    let sc: toml::Value = toml::from_str(&SCENARIO.replacen("turns = 5", "turns = 1", 1)).unwrap();
    let mut scenario = serde_json::to_value(sc).unwrap();
    scenario["victory"] = serde_json::json!({
        "otherwise": "B",
        "conditions": [{ "side": "A", "control": ["4E5"] }],
    });
    let setup = |text: &str| {
        let mut v = serde_json::to_value(toml::from_str::<toml::Value>(text).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("side");
        v
    };
    let mut actions = Vec::new();
    for _ in 0..8 * 2 + 1 {
        actions.push(serde_json::json!({ "side": "X", "action": "EndPhase" }));
    }
    // Who ends each phase: A in Setup and its Player Turn but the DFPh (B);
    // B in its Player Turn but the DFPh (A).
    let enders = [
        "A", "A", "A", "A", "B", "A", "A", "A", "A", "B", "B", "B", "A", "B", "B", "B", "B",
    ];
    for (a, side) in actions.iter_mut().zip(enders) {
        a["side"] = serde_json::json!(side);
    }
    let question = serde_json::json!({
        "scenario": scenario,
        "setup": {
            "A": setup(SETUP_A),
            "B": setup(SETUP_B),
        },
        "facts": (1..=4)
            .map(|n| serde_json::json!({
                "owner": "B", "layer": "daisy", "location": format!("opp{n}"),
                "content": { "daisy": "nothing" },
            }))
            .collect::<Vec<_>>(),
        "actions": actions,
    });
    let out = hexveil_asl::oracle::run(&question.to_string()).expect("the oracle answers");
    let out: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        out["final"]["result"],
        serde_json::json!({
            "winner": "A",
            "reason": "side A controls 4E5 at the end of Game Turn 1 (victory conditions)",
        }),
        "{out:#}"
    );
}
