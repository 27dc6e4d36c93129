//! Placeholder until its owner fills it in.

use serde::{Deserialize, Serialize};

/// Events of this rules area.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveEvent {}
