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
    let _ = ctx;
    refuse(format!("{action:?} is not adjudicated yet"), "hexveil")
}
