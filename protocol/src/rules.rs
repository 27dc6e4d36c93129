//! The protocol's view of the rules engine's setup functions: parsing the
//! scenario and public setups, the public eligible sets that sealed layouts
//! must cover, the initial state, and setup legality of revealed contents.

use hexveil_core::hex::Hex;
use hexveil_core::scenario::Scenario;
use hexveil_core::sealed::Content;
pub use hexveil_core::setup::PublicSetup;
use hexveil_core::setup::{self, SealedSetup};
use hexveil_core::state::GameState;
use hexveil_core::{Layer, Location, Side};
use std::collections::BTreeMap;

/// Parses the scenario TOML of a genesis.
pub fn parse_scenario(toml: &str) -> Result<Scenario, String> {
    Scenario::from_toml(toml).map_err(|e| e.to_string())
}

/// Parses a side's public setup and checks it is that side's and legal.
pub fn parse_public_setup(
    scenario: &Scenario,
    side: Side,
    toml: &str,
) -> Result<PublicSetup, String> {
    let public = PublicSetup::from_toml(scenario, toml).map_err(|e| e.to_string())?;
    if public.side != side {
        return Err(format!("it is side {}'s public setup", public.side));
    }
    let violations = setup::check_public(scenario, &public);
    if !violations.is_empty() {
        let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
        return Err(list.join("; "));
    }
    Ok(public)
}

/// Every location that could legally hold `layer` for `side`, sorted: the
/// sealed layout of that layer has exactly one leaf for each (DESIGN 3.1).
pub fn eligible_locations(
    scenario: &Scenario,
    public: &PublicSetup,
    side: Side,
    layer: Layer,
) -> Vec<Location> {
    let mut v = setup::eligible_locations(scenario, public, side, layer);
    v.sort();
    v.dedup();
    v
}

/// The state at the start of play from both public setups.
pub fn initial_state(
    scenario: &Scenario,
    publics: &BTreeMap<Side, PublicSetup>,
) -> Result<GameState, String> {
    let setups: Vec<PublicSetup> = publics.values().cloned().collect();
    setup::initial_state(scenario, &setups).map_err(|violations| {
        violations
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Reads a location key (`4E6`, `board4`, `opp3`).
pub fn parse_location(key: &str) -> Option<Location> {
    if let Some(n) = key.strip_prefix("board") {
        return n.parse().ok().map(Location::Board);
    }
    if let Some(n) = key.strip_prefix("opp") {
        return n.parse().ok().map(Location::Opportunity);
    }
    key.parse::<Hex>().ok().map(Location::Hex)
}

/// Every setup rule the revealed contents of a side break (B28.1, B28.45,
/// B28.47, B28.5, B28.9), in words.
pub fn check_layout(
    scenario: &Scenario,
    public: &PublicSetup,
    side: Side,
    contents: &[(Layer, Location, Content)],
    extra_dummies: u8,
) -> Vec<String> {
    let sealed = SealedSetup::from_contents(side, contents);
    match setup::check_layout(scenario, public, &sealed, extra_dummies) {
        Ok(()) => Vec::new(),
        Err(violations) => violations.iter().map(|v| v.to_string()).collect(),
    }
}
