//! Ruleset version 2 of the miniatures rules: densities that could pass
//! the detonation table are refused from public data, at load and at
//! laying, so no ruling is refused after its dice; a refusal that still
//! comes after them consumes the move and says nothing hidden in public
//! (R78, G2, G3); and the scenario's victory conditions decide the game
//! at the end of the last turn, as the engine's outcome (R79).

mod common;
use common::*;
use hexveil_core::{ActionError, Engine as _, EventKind, Side, Visibility};
use hexveil_minis::{Action, MineKind, MinisEvent, MinisScenario, Status};

/// Two sides whose mine areas both cover cells y 0..6, with `budgets`.
fn overlapping(budget_a: &str, budget_b: &str) -> String {
    format!(
        r#"
name = "Overlap"
table = [48, 36]
turns = 3
{SAVES}
[sides.A]
nationality = "German"
budget = {budget_a}
mine_area = [[0, 0, 48, 6]]
deployment = [[0, 0, 48, 12]]

[sides.B]
nationality = "Soviet"
budget = {budget_b}
mine_area = [[0, 0, 48, 6], [0, 14, 48, 24]]
deployment = [[0, 24, 48, 36]]

[[figures]]
name = "inf"
side = "A"
kind = "infantry"
move = 6
at = "5.5,1.5"
"#
    )
}

/// R78, G3: where both mine areas cover a cell, both sides' hidden mines
/// add up, and a density the table does not answer would be refused only
/// once crossed, in words telling one side the other's density. Version 2
/// refuses such a scenario at load, from public data (areas, budgets, the
/// table): here 9 + 9 could reach 18, past densities 1 to 9. Budgets that
/// cannot pass (4 + 5) load; version 1 loaded both.
#[test]
fn g3_r78_overlapping_mine_areas_that_could_pass_the_table_are_refused_at_load() {
    let text = overlapping("{ ap = 20 }", "{ ap = 20 }");
    let e = MinisScenario::from_toml(&text).unwrap_err();
    assert!(
        e.contains("overlap in 288 cells") && e.contains("18") && e.contains("1 to 9"),
        "{e}"
    );
    assert!(e.contains("R78"), "{e}");
    assert!(MinisScenario::from_toml_at(&text, 1).is_ok());
    let text = overlapping("{ ap = 4 }", "{ ap = 5 }");
    MinisScenario::from_toml(&text).unwrap();
}

/// R78, G2, G3: a ruling refused after its dice (here forced: a scenario
/// of version 1 layout played at version 2) consumes the move. Its public
/// record is the same whatever the hidden densities were (the roll, then
/// which figure's move is consumed); the words naming the density go to
/// the referee's record only; the figure has acted and may not roll again
/// this turn. Version 1 refused it with the density in the words, which
/// the referee made public (the leak this fixes).
#[test]
fn g3_r78_a_late_refusal_consumes_the_move_and_its_public_words_name_nothing_hidden() {
    let text = overlapping("{ ap = 20 }", "{ ap = 20 }");
    let world = |b_density: u8, version: u32| {
        let mut sc = MinisScenario::from_toml_at(&text, 1).unwrap();
        sc.version = version;
        let mut g = Game::new(sc);
        g.hide(Side::A, &["c5x3"], mines(5, 0, false));
        g.hide(Side::B, &["c5x3"], mines(b_density, 0, false));
        let r = g.mv(Side::A, "inf", &["5.5,4.5"], &[40]);
        (g, r)
    };
    let (mut g10, r10) = world(5, 2);
    let (_, r11) = world(6, 2);
    let (r10, r11) = (r10.unwrap(), r11.unwrap());
    assert_eq!(r10.public(), r11.public(), "G3: the same public record");
    assert!(r10
        .public()
        .iter()
        .any(|e| matches!(e.kind, EventKind::Dice { .. })));
    assert!(r10.rules().contains(&MinisEvent::Consumed {
        side: Side::A,
        figure: "inf".into()
    }));
    let why = |r: &Run| {
        r.events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Rules(b) => match hexveil_minis::decode_event(b) {
                    Ok(MinisEvent::ConsumedWhy { reason }) => Some((e.to, reason)),
                    _ => None,
                },
                _ => None,
            })
            .expect("the referee's record")
    };
    assert_eq!(why(&r10).0, Visibility::Referee);
    assert!(why(&r10).1.contains("density_10") && why(&r11).1.contains("density_11"));
    assert_eq!(g10.pos("inf"), p("5.5,1.5"), "nothing of the move stands");
    let e = g10.mv(Side::A, "inf", &["5.5,4.5"], &[]).unwrap_err();
    assert!(e.to_string().contains("already acted"), "{e}");
    // Version 1: a refusal whose words tell the combined density.
    let (_, r) = world(5, 1);
    match r {
        Err(ActionError::Refused(e)) => assert!(e.reason.contains("density_10"), "{e}"),
        other => panic!("version 1 refused: {other:?}"),
    }
}

/// R78: laying an open mine where the hidden mines a mine area allows,
/// the mines laid there in play and this one could pass the densities the
/// table answers is refused before anything is asked; outside every mine
/// area the same lay goes on.
#[test]
fn r78_laying_where_the_cell_could_pass_the_table_is_refused() {
    let sc = scenario_with(SAVES, &fig("sap", "A", "infantry", "20.5,6.5", ""));
    let mut g = Game::new(sc);
    let lay = |cell: &str| Action::Lay {
        figure: "sap".into(),
        cell: c(cell),
        kind: MineKind::AntiPersonnel,
    };
    let before = g.engine.state().clone();
    let e = g.play(Side::A, lay("c20x5"), &[]).unwrap_err();
    assert!(
        e.to_string().contains("R78") && e.to_string().contains("c20x5"),
        "{e}"
    );
    assert_eq!(g.engine.state(), &before);
    let r = g.play(Side::A, lay("c20x6"), &[]).unwrap();
    assert!(r.requests.is_empty() && r.specs.is_empty());
}

const VICTORY: &str = r#"
[victory]
otherwise = "B"
points = { infantry = 1, soft = 2, afv = 4 }
objectives = { hill = [10, 10, 14, 14] }

[[victory.conditions]]
side = "A"
hold = ["hill"]

[[victory.conditions]]
side = "A"
removed = 2

[[victory.conditions]]
side = "B"
points = 4
"#;

fn play_out(mut g: Game) -> hexveil_core::Outcome {
    for _ in 0..3 {
        g.end_turn(Side::A);
        g.end_turn(Side::B);
    }
    g.engine.outcome().expect("the game is over")
}

/// R79: the conditions are tried in file order at the end of the last
/// turn; the first that holds names the winner (holding an objective: a
/// figure of the side in action inside and no enemy one; figures out of
/// action; their points); none holding, `otherwise` wins. The verdict is
/// the engine's outcome, and its words say what held.
#[test]
fn r79_victory_conditions_decide_the_game_at_the_end_of_the_last_turn() {
    let figs = [
        fig("a1", "A", "infantry", "12,12", ""),
        fig("a2", "A", "afv", "30,8", ""),
        fig("b1", "B", "infantry", "30,30", ""),
        fig("b2", "B", "infantry", "31,30", ""),
    ]
    .concat();
    let extra = format!("{SAVES}{VICTORY}");
    // a1 alone on the hill: A holds it.
    let o = play_out(Game::new(scenario_with(&extra, &figs)));
    assert_eq!(o.winner, Some(Side::A));
    assert_eq!(
        o.reason,
        "side A holds hill at the end of turn 3 (victory conditions)"
    );
    // A Soviet figure on the hill too: nobody holds it; none of the rest.
    let crowded = figs.replace("at = \"30,30\"", "at = \"13,13\"");
    let o = play_out(Game::new(scenario_with(&extra, &crowded)));
    assert_eq!(o.winner, Some(Side::B));
    assert!(
        o.reason.starts_with("no victory condition holds at the end of turn 3 (side A does not hold hill (hill is held by nobody)"),
        "{}",
        o.reason
    );
    // a1 off the hill, both Soviet figures out of action: A has removed 2.
    let away = figs.replace("at = \"12,12\"", "at = \"2,2\"");
    let mut g = Game::new(scenario_with(&extra, &away));
    let mut st = g.engine.state().clone();
    st.figures[2].status = Status::Removed;
    st.figures[3].status = Status::Removed;
    g.engine.set_state(st);
    let o = play_out(g);
    assert_eq!(o.winner, Some(Side::A));
    assert!(
        o.reason
            .contains("has put 2 enemy figures out of action (2 needed)"),
        "{}",
        o.reason
    );
    // The German AFV destroyed and nothing of A's holds: B's 4 points.
    let mut g = Game::new(scenario_with(&extra, &away));
    let mut st = g.engine.state().clone();
    st.figures[1].status = Status::Destroyed;
    g.engine.set_state(st);
    let o = play_out(g);
    assert_eq!(o.winner, Some(Side::B));
    assert!(
        o.reason.contains("side B has 4 points (4 needed)"),
        "{}",
        o.reason
    );
}

/// R79: a malformed `[victory]` is refused at load naming its field, and
/// ruleset version 1 has no victory conditions at all.
#[test]
fn r79_victory_conditions_are_checked_at_load() {
    let figs = fig("a1", "A", "infantry", "12,12", "");
    let load = |v: &str| {
        let text = common::scenario_text(&format!("{SAVES}{v}"), &figs);
        MinisScenario::from_toml(&text)
    };
    let e = load("[victory]\n[[victory.conditions]]\nside = \"A\"\nremoved = 1\n").unwrap_err();
    assert!(e.contains("victory.otherwise"), "{e}");
    let e = load(
        "[victory]\notherwise = \"B\"\n[[victory.conditions]]\nside = \"A\"\nhold = [\"x\"]\n",
    )
    .unwrap_err();
    assert!(e.contains("victory.conditions[0].hold[0]"), "{e}");
    let e =
        load("[victory]\notherwise = \"B\"\n[[victory.conditions]]\nside = \"A\"\npoints = 2\n")
            .unwrap_err();
    assert!(e.contains("victory.points"), "{e}");
    let ok = common::scenario_text(&format!("{SAVES}{VICTORY}"), &figs);
    MinisScenario::from_toml(&ok).unwrap();
    let e = MinisScenario::from_toml_at(&ok, 1).unwrap_err();
    assert!(e.contains("version 1 have no victory"), "{e}");
}
