//! Victory conditions (A26 as these rules read it; the chapter is not in
//! the seeds, so every reading is a ruling in `docs/RULINGS.md`): hex
//! control (R53), Casualty Victory Points (R54, R55) and the judgement at
//! the end of the last Game Turn (R56). The conditions themselves are
//! scenario data ([`crate::model::victory`], `docs/SCENARIO.md`).

use crate::board::hex::Hex;
use crate::model::scenario::Scenario;
use crate::model::state::{GameResult, GameState};
use crate::model::victory::{Victory, VictoryCondition};
use crate::side::Side;

/// Who controls `hex` now (R53): the side that last had a Good Order unit
/// alone in it during play (tracked in [`GameState::control`] by
/// [`update_control`]); before that, the side whose setup area holds it
/// (both sides': the side that does not move first; neither: nobody).
pub fn controller(scenario: &Scenario, state: &GameState, hex: Hex) -> Option<Side> {
    let hex = scenario.map.canonical(hex);
    if let Some(side) = state.control.get(&hex) {
        return Some(*side);
    }
    let holds = |side: Side| {
        scenario
            .sides
            .get(&side)
            .is_some_and(|ob| ob.setup_area.contains(&scenario.map, hex))
    };
    match (holds(Side::A), holds(Side::B)) {
        (true, true) => Some(scenario.first_side().opponent()),
        (true, false) => Some(Side::A),
        (false, true) => Some(Side::B),
        (false, false) => None,
    }
}

/// The sides with a Good Order unit in `hex` (not aboard a vehicle).
fn occupants(state: &GameState, hex: Hex) -> (bool, bool) {
    let mut a = false;
    let mut b = false;
    for u in state.units_in(hex).filter(|u| u.good_order()) {
        match u.side {
            Side::A => a = true,
            Side::B => b = true,
        }
    }
    (a, b)
}

/// Records control of every hex a victory condition names (R53): a hex
/// holding Good Order units of one side only is that side's from now on; a
/// hex holding both sides' (Melee) or neither keeps its controller. Run at
/// the start of play and after every action.
pub fn update_control(scenario: &Scenario, state: &mut GameState) {
    let Some(victory) = &scenario.victory else {
        return;
    };
    for hex in victory.hexes() {
        match occupants(state, hex) {
            (true, false) => {
                state.control.insert(hex, Side::A);
            }
            (false, true) => {
                state.control.insert(hex, Side::B);
            }
            _ => {}
        }
    }
}

/// The Casualty Victory Points `side` has lost so far (R54): for each of
/// its units, its value at the start of the scenario less its value now
/// (nothing if eliminated or captured), so a squad Reduced to a half-squad
/// has cost 1. This is what the other side has inflicted.
pub fn cvp_lost(scenario: &Scenario, state: &GameState, side: Side) -> u32 {
    let values = scenario
        .victory
        .as_ref()
        .map(|v| v.cvp_values)
        .unwrap_or_default();
    scenario
        .units
        .iter()
        .filter(|u| u.side == side)
        .map(|start| {
            let now = state
                .unit(start.id)
                .filter(|u| u.in_play())
                .map_or(0, |u| values.of(u));
            values.of(start).saturating_sub(now)
        })
        .sum()
}

/// The CVP `side` has inflicted on the enemy so far (R54).
pub fn cvp_inflicted(scenario: &Scenario, state: &GameState, side: Side) -> u32 {
    cvp_lost(scenario, state, side.opponent())
}

fn hex_list(hexes: &[Hex]) -> String {
    let names: Vec<String> = hexes.iter().map(|h| h.to_string()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether a condition holds now: `Ok(what holds)` in words, or
/// `Err(what fails)` in words.
fn check(scenario: &Scenario, state: &GameState, c: &VictoryCondition) -> Result<String, String> {
    let side = c.side;
    let mut holds = Vec::new();
    let mut fails = Vec::new();
    if !c.control.is_empty() {
        let lost: Vec<String> = c
            .control
            .iter()
            .filter_map(|h| match controller(scenario, state, *h) {
                Some(s) if s == side => None,
                Some(s) => Some(format!("{h} is side {s}'s")),
                None => Some(format!("{h} is nobody's")),
            })
            .collect();
        if lost.is_empty() {
            holds.push(format!("controls {}", hex_list(&c.control)));
        } else {
            fails.push(format!(
                "side {side} does not control {} ({})",
                hex_list(&c.control),
                lost.join(", ")
            ));
        }
    }
    if let Some(need) = c.cvp {
        let got = cvp_inflicted(scenario, state, side);
        if got >= need {
            holds.push(format!("has inflicted {got} CVP ({need} needed)"));
        } else {
            fails.push(format!(
                "side {side} has inflicted {got} CVP of the {need} needed"
            ));
        }
    }
    if fails.is_empty() {
        Ok(format!("side {side} {}", holds.join(" and ")))
    } else {
        Err(fails.join(" and "))
    }
}

/// The result at the end of the last Game Turn under the scenario's
/// conditions (R56): the first condition, in file order, that holds names
/// the winner; if none holds, the `otherwise` side wins or the game is a
/// draw. The reason names the condition and the Game Turn (the kernel's
/// [`hexveil_core::victory::judge`], shared with the miniatures rules).
pub fn judge(scenario: &Scenario, state: &GameState, victory: &Victory) -> GameResult {
    let when = format!("Game Turn {}", state.turn);
    let o = hexveil_core::victory::judge(&victory.conditions, victory.otherwise, &when, |c| {
        (c.side, check(scenario, state, c))
    });
    GameResult {
        winner: o.winner,
        reason: o.reason,
    }
}
