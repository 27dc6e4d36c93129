//! The turn sequence: Setup, then for each Game Turn two Player Turns of
//! eight phases each (A3: RPh, PFPh, MPh, DFPh, AFPh, RtPh, APh, CCPh); the
//! end-of-phase hooks the minefield rules need; which actions may be
//! declared in which phase (see [`phase_allows`]); concession and the end
//! of the game after the last turn.

use crate::model::action::Action;
use crate::model::resolve::{Ctx, Res};
use crate::model::state::{GameResult, GameState};
use crate::model::unit::UnitId;
use crate::side::Side;
use crate::Visibility;
use serde::{Deserialize, Serialize};

pub use crate::model::phase::Phase;

/// Turn-sequence events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnEvent {
    /// A new phase began.
    PhaseBegins {
        /// Game turn.
        turn: u16,
        /// Whose Player Turn.
        phasing: Side,
        /// The phase.
        phase: Phase,
    },
    /// A Disrupted unit surrendered to the enemy (A19.12).
    Surrendered {
        /// The unit, now captured.
        unit: UnitId,
        /// The side it surrendered to.
        to: Side,
    },
    /// A side made its Secret dr for extra Dummy Minefields (B28.47); the
    /// number is in [`TurnEvent::ExtraDummies`], shown to that side only.
    DummyDrMade {
        /// The side.
        side: Side,
    },
    /// The extra Dummy Minefield counters a side received (B28.47: the
    /// Secret dr halved, fractions rounded down).
    ExtraDummies {
        /// The side.
        side: Side,
        /// How many extra Dummies.
        count: u8,
    },
    /// A side conceded.
    Conceded {
        /// Who conceded.
        side: Side,
    },
    /// The game ended.
    GameOver {
        /// The winner: by concession, or by the scenario's victory
        /// conditions at the end of the last Game Turn (R56); `None` for a
        /// draw or a scenario without victory conditions.
        winner: Option<Side>,
        /// Why.
        reason: String,
    },
    /// An action refused after facts were opened or dice rolled for it is
    /// consumed (ruleset version 3, R73): it has no effect, its rolls are
    /// spent, and its units act no more this phase, so the same question
    /// is never rolled twice (G2). Public; it says only what is public
    /// (the rules its refusal cites, in the event's citations), the words
    /// of the refusal go to the referee's record
    /// ([`TurnEvent::ConsumedWhy`], G3).
    Consumed {
        /// The side whose action it was.
        side: Side,
        /// Its units, which may not act again this phase.
        units: Vec<UnitId>,
    },
    /// Why an action was consumed, in words (referee only until the end:
    /// the words may depend on a sealed fact, R73).
    ConsumedWhy {
        /// The refusal.
        reason: String,
    },
}

/// Who may declare `action` in `phase` when `phasing` is the phasing side,
/// with the rule that says so. `Ok(true)`: the phasing side; `Ok(false)`:
/// the non-phasing side; a pair: either side. `Err(cite)` if the phase
/// allows it to nobody.
///
/// | action | phase | by |
/// |---|---|---|
/// | `DummyDr` | Setup | either side, once (B28.47) |
/// | `EndPhase` | DFPh | non-phasing side: the defender fires, so it says when it is done (A3.5) |
/// | `EndPhase` | any other | phasing side (Setup: the side moving first) |
/// | `Move`, `Search`, `ClearFullViewMines`, `InfantryClearance`, `Disembark` | MPh | phasing |
/// | `Fire` | PFPh, AFPh | phasing |
/// | `Fire` | DFPh | non-phasing |
/// | `Ffe` | PFPh | phasing |
/// | `Rout` | RtPh | either side, own units |
/// | `Advance` | APh | phasing |
/// | `Search` | APh | phasing |
/// | `Concede` | any | either side |
/// | `OrdnanceFire`, `ChangeCa` | PFPh, AFPh | phasing (C3, C3.22) |
/// | `OrdnanceFire`, `ChangeCa` | DFPh | non-phasing |
/// | `ChooseCa` | any | the opponent of the unit's owner (C3.2) |
///
/// Daisy Chain placements are not actions: they answer the placement
/// opportunities the engine opens (B28.531, DESIGN 3.2).
pub fn phase_allows(action: &Action, phase: Phase) -> Result<Who, &'static str> {
    use Phase::*;
    let who = match (action, phase) {
        (Action::Concede, _) => Who::Either,
        (Action::EndPhase, DefensiveFire) => Who::NonPhasing,
        (Action::EndPhase, _) => Who::Phasing,
        (Action::DummyDr, Setup) => Who::Either,
        (Action::DummyDr, _) => return Err("B28.47"),
        (_, Setup) => return Err("A2.9"),
        (
            Action::Move { .. }
            | Action::ClearFullViewMines { .. }
            | Action::InfantryClearance { .. }
            | Action::Disembark { .. },
            Movement,
        ) => Who::Phasing,
        (Action::Move { .. }, _) => return Err("A3.4"),
        (Action::ClearFullViewMines { .. }, _) => return Err("B28.53"),
        (Action::InfantryClearance { .. }, _) => return Err("B28.6"),
        (Action::Disembark { .. }, _) => return Err("A3.4"),
        (Action::Search { .. }, Movement | Advance) => Who::Phasing,
        (Action::Search { .. }, _) => return Err("A12.152"),
        (Action::Fire { .. }, PrepFire | AdvancingFire) => Who::Phasing,
        (Action::Fire { .. }, DefensiveFire) => Who::NonPhasing,
        (Action::Fire { .. }, _) => return Err("A3.3"),
        (Action::Ffe { .. }, PrepFire) => Who::Phasing,
        (Action::Ffe { .. }, _) => return Err("A3.3"),
        (Action::Rout { .. }, Rout) => Who::Either,
        (Action::Rout { .. }, _) => return Err("A3.7"),
        (Action::OrdnanceFire { .. } | Action::ChangeCa { .. }, PrepFire | AdvancingFire) => {
            Who::Phasing
        }
        (Action::OrdnanceFire { .. } | Action::ChangeCa { .. }, DefensiveFire) => Who::NonPhasing,
        (Action::OrdnanceFire { .. } | Action::ChangeCa { .. }, _) => return Err("C3.22"),
        (Action::ChooseCa { .. }, _) => Who::Either,
        (Action::Advance { .. }, Advance) => Who::Phasing,
        (Action::Advance { .. }, _) => return Err("A3.8"),
    };
    Ok(who)
}

/// The side whose `EndPhase` ends the current phase: the non-phasing side in
/// the Defensive Fire Phase (it is the one firing, A3.5), the phasing side
/// otherwise (A3). Drivers and clients ask this instead of assuming the
/// phasing side.
pub fn who_ends_phase(state: &GameState) -> Side {
    match phase_allows(&Action::EndPhase, state.phase) {
        Ok(Who::NonPhasing) => state.phasing.opponent(),
        _ => state.phasing,
    }
}

/// Who may declare an action in a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// The phasing side only.
    Phasing,
    /// The non-phasing side only.
    NonPhasing,
    /// Either side.
    Either,
}

/// The short name of an action, for refusals.
pub fn action_name(action: &Action) -> &'static str {
    match action {
        Action::Move { .. } => "Move",
        Action::Rout { .. } => "Rout",
        Action::Advance { .. } => "Advance",
        Action::Fire { .. } => "Fire",
        Action::Ffe { .. } => "Ffe",
        Action::Search { .. } => "Search",
        Action::ClearFullViewMines { .. } => "ClearFullViewMines",
        Action::InfantryClearance { .. } => "InfantryClearance",
        Action::Disembark { .. } => "Disembark",
        Action::EndPhase => "EndPhase",
        Action::Concede => "Concede",
        Action::DummyDr => "DummyDr",
        Action::OrdnanceFire { .. } => "OrdnanceFire",
        Action::ChangeCa { .. } => "ChangeCa",
        Action::ChooseCa { .. } => "ChooseCa",
    }
}

/// Ends the current phase (the phasing side's `EndPhase`): runs the hooks
/// of the phase that ends, moves to the next phase or Player Turn, runs the
/// hooks of the phase that begins, and ends the game after the last turn.
pub fn end_phase(ctx: &mut Ctx<'_>) -> Res<()> {
    let ending = ctx.state.phase;
    let phasing = ctx.state.phasing;
    // Hooks of the phase that ends.
    match ending {
        Phase::Movement => crate::b28::minefield::end_of_movement_phase(ctx)?, // B28.53
        Phase::PrepFire | Phase::AdvancingFire => {
            // B28.531: the owner's friendly fire phase is a placement
            // opportunity for his Daisy Chains.
            crate::b28::daisy_chain::fire_phase_opportunity(ctx, phasing)?;
        }
        Phase::CloseCombat => crate::b28::flail::end_of_close_combat(ctx)?, // B28.7
        _ => {}
    }
    match ending.next() {
        Some(next) => {
            if ending == Phase::Setup {
                ctx.state.turn = 1;
                ctx.state.phasing = ctx.scenario.first_side();
            }
            ctx.state.phase = next;
            if next == Phase::Movement {
                // A4.1: every unit starts its MPh with its full MF (R57).
                ctx.state.mf_spent.clear();
            }
        }
        None => {
            let next_side = phasing.opponent();
            if next_side == ctx.scenario.first_side() {
                if ctx.state.turn >= ctx.scenario.turns {
                    end_of_game(ctx);
                    return Ok(());
                }
                ctx.state.turn += 1;
            }
            ctx.state.phasing = next_side;
            ctx.state.phase = Phase::Rally;
        }
    }
    let (turn, phasing, phase) = (ctx.state.turn, ctx.state.phasing, ctx.state.phase);
    ctx.emit(
        Visibility::Public,
        crate::EventKind::Turn(TurnEvent::PhaseBegins {
            turn,
            phasing,
            phase,
        }),
        &[phase.cite()],
    );
    if phase == Phase::Rout {
        start_of_rout_phase(ctx);
    }
    // B28.531: a chain a Good Order enemy unit sees is revealed.
    crate::b28::daisy_chain::reveal_exposed(ctx);
    Ok(())
}

/// The last Game Turn ended: the scenario's victory conditions decide
/// (R56, [`crate::victory::judge`]); a scenario without any ends without a
/// winner.
fn end_of_game(ctx: &mut Ctx<'_>) {
    // Control as the last action left it (R53).
    crate::victory::update_control(ctx.scenario, &mut ctx.state);
    let (result, cite): (GameResult, &[&str]) = match &ctx.scenario.victory {
        Some(victory) => (
            crate::victory::judge(ctx.scenario, &ctx.state, victory),
            &["A2.9", "A26", "R56"],
        ),
        None => (
            GameResult {
                winner: None,
                reason: format!(
                    "Game Turn {} ended, the last of the scenario, which states no victory conditions",
                    ctx.state.turn
                ),
            },
            &["A2.9"],
        ),
    };
    ctx.state.result = Some(result.clone());
    ctx.emit(
        Visibility::Public,
        crate::EventKind::Turn(TurnEvent::GameOver {
            winner: result.winner,
            reason: result.reason,
        }),
        cite,
    );
}

/// Start of the RtPh: every Disrupted unit ADJACENT to, or in the Location
/// of, a Good Order Known enemy Personnel unit not in Melee surrenders
/// (A19.12), in unit order.
pub fn start_of_rout_phase(ctx: &mut Ctx<'_>) {
    let map = &ctx.scenario.map;
    let surrendering = disrupted_where(ctx, |state, id| {
        crate::a::elr::disrupted_must_surrender(state, map, id)
    });
    surrender(ctx, surrendering);
}

/// The Disrupted units in play for which `must` holds, in unit order.
fn disrupted_where(ctx: &Ctx<'_>, must: impl Fn(&GameState, UnitId) -> bool) -> Vec<UnitId> {
    ctx.state
        .units
        .values()
        .filter(|u| u.in_play() && u.status.disrupted)
        .map(|u| u.id)
        .filter(|id| must(&ctx.state, *id))
        .collect()
}

/// In any phase: every Disrupted unit in the same Location as a Good Order
/// Known enemy Personnel unit not in Melee surrenders (A19.12). Run after
/// every action.
pub fn surrender_in_location(ctx: &mut Ctx<'_>) {
    let surrendering = disrupted_where(ctx, crate::a::elr::disrupted_must_surrender_in_location);
    surrender(ctx, surrendering);
}

/// The units surrender (are captured by the other side), with events.
fn surrender(ctx: &mut Ctx<'_>, surrendering: Vec<UnitId>) {
    for id in surrendering {
        let Some(u) = ctx.state.units.get_mut(&id) else {
            continue;
        };
        u.status.captured = true;
        let to = u.side.opponent();
        ctx.emit(
            Visibility::Public,
            crate::EventKind::Turn(TurnEvent::Surrendered { unit: id, to }),
            &["A19.12"],
        );
    }
}

/// The actor concedes: the game ends, the other side wins.
pub fn concede(ctx: &mut Ctx<'_>) -> Res<()> {
    let side = ctx.actor;
    let winner = side.opponent();
    let reason = format!("side {side} conceded");
    ctx.state.result = Some(GameResult {
        winner: Some(winner),
        reason: reason.clone(),
    });
    ctx.emit(
        Visibility::Public,
        crate::EventKind::Turn(TurnEvent::Conceded { side }),
        &["hexveil"],
    );
    ctx.emit(
        Visibility::Public,
        crate::EventKind::Turn(TurnEvent::GameOver {
            winner: Some(winner),
            reason,
        }),
        &["hexveil"],
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_follow_the_sequence_of_play() {
        let mut p = Phase::Setup;
        let mut seen = vec![p];
        while let Some(n) = p.next() {
            seen.push(n);
            p = n;
        }
        assert_eq!(
            seen.iter().map(|p| p.abbrev()).collect::<Vec<_>>(),
            ["Setup", "RPh", "PFPh", "MPh", "DFPh", "AFPh", "RtPh", "APh", "CCPh"]
        );
    }

    #[test]
    fn fire_in_dfph_is_the_non_phasing_sides() {
        let fire = Action::Fire {
            firers: vec![],
            target: "4E6".parse().unwrap(),
            extra_drm: 0,
        };
        assert_eq!(
            phase_allows(&fire, Phase::DefensiveFire),
            Ok(Who::NonPhasing)
        );
        assert_eq!(phase_allows(&fire, Phase::PrepFire), Ok(Who::Phasing));
        assert!(phase_allows(&fire, Phase::Movement).is_err());
    }
}
