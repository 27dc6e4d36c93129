//! Which rules resolve which action: the one dispatch point of the engine.

use crate::action::Action;
use crate::error::ActionError;
use crate::resolve::{refuse, Ctx, Res};
use crate::scenario::Scenario;
use crate::side::Side;
use crate::state::GameState;

/// Checks, before anything is asked, that `actor` may declare `action` now
/// (turn, phase, ownership). Refusals here reveal nothing sealed.
pub fn check(
    scenario: &Scenario,
    state: &GameState,
    actor: Side,
    action: &Action,
) -> Result<(), ActionError> {
    let _ = (scenario, state, actor, action);
    Ok(())
}

/// Resolves an action over the context.
pub fn resolve(ctx: &mut Ctx<'_>, action: &Action) -> Res<()> {
    match action {
        Action::Move { units, to, mode } => crate::movement::resolve_move(ctx, units, *to, *mode),
        Action::Rout { unit, to } => crate::movement::resolve_rout(ctx, *unit, *to),
        Action::Advance { units, to } => crate::movement::resolve_advance(ctx, units, *to),
        Action::Disembark { vehicle, units } => {
            crate::movement::resolve_disembark(ctx, *vehicle, units)
        }
        Action::Search { unit } => crate::search::resolve(ctx, *unit),
        Action::Ffe { hex, fp, kind } => crate::ffe::resolve(ctx, *hex, *fp, *kind),
        Action::ClearFullViewMines { unit } => {
            crate::minefield::declare_full_view_clearance(ctx, *unit)
        }
        Action::InfantryClearance { units } => crate::clearance::resolve(ctx, units),
        Action::Fire {
            firers,
            target,
            extra_drm,
        } => crate::fire::resolve_fire(ctx, firers, *target, *extra_drm),
        _ => refuse(format!("{action:?} is not adjudicated yet"), "hexveil"),
    }
}
