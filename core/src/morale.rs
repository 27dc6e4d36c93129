//! Placeholder until its owner fills it in.

use crate::ift::IftResult;
use crate::resolve::{refuse, Ctx, Res};
use crate::unit::UnitId;
use serde::{Deserialize, Serialize};

/// Events of this rules area.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoraleEvent {}

/// Applies an IFT result to the target units of one Location.
pub fn apply_ift_result(ctx: &mut Ctx<'_>, targets: &[UnitId], result: IftResult) -> Res<()> {
    let _ = (ctx, targets, result);
    refuse("IFT results are not applied yet", "A7.3")
}
