//! Which rules resolve which action: the one dispatch point of the engine.

use crate::model::action::Action;
use crate::model::error::ActionError;
use crate::model::resolve::{Ctx, Res};
use crate::model::scenario::Scenario;
use crate::model::state::GameState;
use crate::model::unit::UnitId;
use crate::side::Side;
use crate::turn::{self, Who};

/// The units an action names as its actor's own.
pub(crate) fn own_units(action: &Action) -> Vec<UnitId> {
    match action {
        Action::Move { units, .. }
        | Action::Advance { units, .. }
        | Action::InfantryClearance { units } => units.clone(),
        Action::Fire { firers, .. } => firers.clone(),
        Action::Rout { unit, .. }
        | Action::Search { unit }
        | Action::ClearFullViewMines { unit } => vec![*unit],
        Action::Disembark { vehicle, units } => {
            let mut v = vec![*vehicle];
            v.extend(units);
            v
        }
        Action::OrdnanceFire { gun, .. } => vec![*gun],
        Action::ChangeCa { unit, .. } => vec![*unit],
        Action::Ffe { .. }
        | Action::EndPhase
        | Action::Concede
        | Action::DummyDr
        | Action::ChooseCa { .. } => Vec::new(),
    }
}

/// Checks, before anything is asked, that `actor` may declare `action` now
/// (turn, phase, ownership). Refusals here reveal nothing sealed: they look
/// at public state only. Which action is allowed in which phase, and to
/// whom, is [`turn::phase_allows`].
pub fn check(
    scenario: &Scenario,
    state: &GameState,
    actor: Side,
    action: &Action,
) -> Result<(), ActionError> {
    let phase = state.phase;
    let who = turn::phase_allows(action, phase).map_err(|cite| ActionError::WrongPhase {
        action: turn::action_name(action).to_string(),
        phase,
        cite: cite.to_string(),
    })?;
    let allowed = match who {
        Who::Either => true,
        Who::Phasing => actor == state.phasing,
        Who::NonPhasing => actor != state.phasing,
    };
    if !allowed {
        return Err(ActionError::NotYourTurn {
            actor,
            phasing: state.phasing,
            phase,
        });
    }
    for id in own_units(action) {
        let unit = state.unit(id).ok_or(ActionError::UnknownUnit(id))?;
        if unit.side != actor {
            return Err(ActionError::NotYourUnit {
                unit: id,
                owner: unit.side,
                actor,
            });
        }
    }
    // R73: a unit whose action a late refusal consumed acts no more this
    // phase.
    let now = state.now();
    if let Some(id) = own_units(action)
        .into_iter()
        .find(|id| state.consumed.get(id) == Some(&now))
    {
        return Err(ActionError::Refused(crate::model::error::RuleError::new(
            format!(
                "unit {id}'s action was consumed this phase by a refusal after its dice (the same question is not rolled twice)"
            ),
            "R73",
        )));
    }
    if let Action::DummyDr = action {
        crate::setup::check_dummy_dr(scenario, state, actor)?;
    }
    if let Action::Move { units, .. } | Action::Advance { units, .. } = action {
        crate::c3::covered_arc::check_may_move(state, units)?;
    }
    Ok(())
}

/// Resolves an action over the context, then applies what holds after
/// any action: a Disrupted unit sharing its Location with a Good Order
/// Known enemy surrenders (A19.12).
pub fn resolve(ctx: &mut Ctx<'_>, action: &Action) -> Res<()> {
    resolve_action(ctx, action)?;
    if ctx.state.result.is_none() {
        turn::surrender_in_location(ctx);
    }
    // Hex control follows the Good Order units after every action (R53).
    crate::victory::update_control(ctx.scenario, &mut ctx.state);
    Ok(())
}

/// One match arm per action, calling the module that owns it.
fn resolve_action(ctx: &mut Ctx<'_>, action: &Action) -> Res<()> {
    match action {
        Action::Move { units, to, mode } => {
            crate::b28::movement::resolve_move(ctx, units, *to, *mode)
        }
        Action::Rout { unit, to } => crate::b28::movement::resolve_rout(ctx, *unit, *to),
        Action::Advance { units, to } => crate::b28::movement::resolve_advance(ctx, units, *to),
        Action::Disembark { vehicle, units } => {
            crate::b28::movement::resolve_disembark(ctx, *vehicle, units)
        }
        Action::Search { unit } => crate::b28::search::resolve(ctx, *unit),
        Action::Ffe { hex, fp, kind } => crate::b28::ffe::resolve(ctx, *hex, *fp, *kind),
        Action::ClearFullViewMines { unit } => {
            crate::b28::minefield::declare_full_view_clearance(ctx, *unit)
        }
        Action::InfantryClearance { units } => crate::b28::clearance::resolve(ctx, units),
        Action::Fire {
            firers,
            target,
            extra_drm,
        } => crate::a::fire::resolve_fire(ctx, firers, *target, *extra_drm),
        Action::EndPhase => turn::end_phase(ctx),
        Action::Concede => turn::concede(ctx),
        Action::DummyDr => crate::setup::dummy_dr(ctx),
        Action::OrdnanceFire {
            gun,
            target,
            target_type,
            ammo,
            change_ca,
            extra_drm,
        } => crate::c3::ordnance::resolve(
            ctx,
            &crate::c3::ordnance::Shot {
                gun: *gun,
                target: *target,
                target_type: *target_type,
                ammo: *ammo,
                change_ca: *change_ca,
                extra_drm: *extra_drm,
            },
        ),
        Action::ChangeCa { unit, ca } => crate::c3::covered_arc::resolve_change(ctx, *unit, *ca),
        Action::ChooseCa { unit, ca } => crate::c3::covered_arc::resolve_choose(ctx, *unit, *ca),
    }
}

/// R73 (ruleset version 3): an action refused after facts were opened or
/// dice rolled for it (`partial`: the events its resolution made before
/// the refusal) is consumed rather than voided. Nothing of its resolution
/// stands but what was asked: the rolls (public, as rolled) and the facts
/// opened to the referee; its units act no more this phase
/// ([`GameState::consumed`], checked by [`check`]), so declaring it again
/// cannot roll the same question twice (G2). The public event says only
/// who and which units; the refusal's words go to the referee's record,
/// since they may name a sealed fact (G3). `None` for an action without
/// units of its own (an `EndPhase` must end its phase): those are voided
/// as before, and no rule of theirs refuses after a die (R72).
pub fn consumed(
    before: &GameState,
    actor: Side,
    action: &Action,
    refusal: &crate::model::error::RuleError,
    partial: Vec<crate::model::event::Event>,
    partial_state: &GameState,
) -> Option<(GameState, Vec<crate::model::event::Event>)> {
    use crate::model::event::{EventKind, Visibility};
    let units = own_units(action);
    if units.is_empty() {
        return None;
    }
    let mut state = before.clone();
    let now = state.now();
    let mut events = Vec::new();
    for e in partial {
        match &e.kind {
            EventKind::FactOpened { request, content } => {
                state.referee_knows.insert(*request, *content);
                events.push(e);
            }
            EventKind::Dice { .. } => events.push(e),
            _ => {}
        }
    }
    // Notes opened for Daisy Chain opportunities keep their numbers.
    state.opportunities = state.opportunities.max(partial_state.opportunities);
    for id in &units {
        state.consumed.insert(*id, now);
    }
    let mut cite = vec!["R73".to_string()];
    cite.extend(refusal.cite.iter().cloned());
    events.push(crate::model::event::Event {
        to: Visibility::Public,
        kind: EventKind::Turn(turn::TurnEvent::Consumed { side: actor, units }),
        cite: cite.clone(),
    });
    events.push(crate::model::event::Event {
        to: Visibility::Referee,
        kind: EventKind::Turn(turn::TurnEvent::ConsumedWhy {
            reason: refusal.reason.clone(),
        }),
        cite,
    });
    Some((state, events))
}
