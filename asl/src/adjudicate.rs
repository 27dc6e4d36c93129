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
fn own_units(action: &Action) -> Vec<UnitId> {
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
