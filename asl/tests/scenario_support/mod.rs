//! Shared helpers for the tests over the example scenario: its files, its
//! setups and its starting state (the drivers are in `common`).
#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;
#[allow(unused_imports)]
pub use common::*;

use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::state::GameState;
use hexveil_asl::setup::{initial_state, PublicSetup, SealedSetup};

/// The example scenario (examples/scenario.toml).
pub const SCENARIO: &str = include_str!("../../../examples/scenario.toml");
/// Side A's public setup of the example.
pub const SETUP_A: &str = include_str!("../../../examples/setup-a.toml");
/// Side B's public setup of the example.
pub const SETUP_B: &str = include_str!("../../../examples/setup-b.toml");
/// Side B's sealed setup (its hidden mines) of the example.
pub const SEALED_B: &str = include_str!("../../../examples/sealed-b.toml");

/// The example scenario, loaded.
pub fn scenario() -> Scenario {
    Scenario::from_toml(SCENARIO).expect("example scenario loads")
}

/// Both sides' public setups of the example.
pub fn setups(s: &Scenario) -> (PublicSetup, PublicSetup) {
    (
        PublicSetup::from_toml(s, SETUP_A).unwrap(),
        PublicSetup::from_toml(s, SETUP_B).unwrap(),
    )
}

/// Side B's sealed setup, loaded.
pub fn sealed_b() -> SealedSetup {
    SealedSetup::from_toml(SEALED_B).unwrap()
}

/// The state at the start of the example, both public setups placed.
pub fn state(s: &Scenario) -> GameState {
    let (a, b) = setups(s);
    initial_state(s, &[a, b]).unwrap()
}
