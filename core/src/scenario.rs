//! A scenario: map, both sides' OBs and the SSRs these rules name.
//! (Its TOML form and validation live here too; see [`Scenario`].)

use crate::map::Map;
use crate::side::Side;
use crate::unit::Unit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Special Scenario Rules the engine applies.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ssr {
    /// Deep Snow (B28.3, B28.51).
    pub deep_snow: bool,
    /// Daisy Chains allowed (B28.531).
    pub daisy_chains: bool,
}

/// One side's Order of Battle, as far as these rules look at it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SideOb {
    /// Nationality (`German`, `Russian`, ...).
    pub nationality: String,
    /// ELR of the OB (A19.1), 0..=5.
    pub elr: u8,
    /// Whether the ELR was assigned by SSR (A19.132).
    pub elr_by_ssr: bool,
    /// Ammunition Shortage by SSR (A19.131).
    pub ammunition_shortage: bool,
    /// Hidden minefield factors (B28.1), spent on A-P, A-T (3 for 1, B28.5)
    /// and Booby Traps (B28.9).
    pub minefield_factors: u32,
    /// Known minefield factors (B28.45).
    pub known_factors: u32,
}

/// A scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    /// Its name.
    pub name: String,
    /// The map.
    pub map: Map,
    /// Special Scenario Rules.
    pub ssr: Ssr,
    /// Each side's OB.
    pub sides: BTreeMap<Side, SideOb>,
    /// Every unit, indexed by [`crate::unit::UnitId`].
    pub units: Vec<Unit>,
    /// The side that moves first.
    pub first_phasing: Option<Side>,
}
