//! Placeholder until its owner fills it in.

use crate::resolve::{Ctx, Res};
use crate::unit::UnitId;
use serde::{Deserialize, Serialize};

/// Events of this rules area.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoobyTrapEvent {}

/// Called after every Task Check with its Original DR (B28.9).
pub fn after_task_check(ctx: &mut Ctx<'_>, unit: UnitId, original_dr: u8) -> Res<()> {
    let _ = (ctx, unit, original_dr);
    Ok(())
}
