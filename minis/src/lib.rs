//! hexveil's second ruleset: the minefield rules of a WWII miniatures game
//! (seed 004), played on a table measured in inches.
//!
//! Each side seals one layer, `mines`: one leaf per 1-inch cell of its
//! mine area (row-major), holding that cell's hidden A-P / A-T densities
//! and whether the A-P mines are German S-mines ([`content`]). Figures
//! move along straight paths measured in tenths of an inch ([`geom`]); a
//! move that crosses any cell that may be mined asks for the crossed cells
//! of both sides' layers and rolls one percentile on the detonation table
//! ([`table`]), mined or not, so the traffic never tells a mined path from
//! an empty one (G3). The rules are in [`rules`]; the engine that drives
//! them through the kernel is [`engine`], over the game's [`state`], and
//! [`ruleset`] plugs a [`scenario`] into the kernel; [`oracle`] answers rules
//! questions as JSON; [`public_state`] folds what one reader was shown
//! into the public picture of a game (the boards' and a client's, issue
//! 24), and [`asks`] bounds from it what the rules may ask of an owner. The choices the seed leaves open are listed in this
//! crate's `README.md` (proposed rulings R45-R50).
//!
//! Pure: no IO, no clock, no randomness, no crypto.

pub mod action;
pub mod asks;
pub mod content;
pub mod engine;
pub mod event;
pub mod geom;
pub mod oracle;
pub mod public_state;
pub mod rules;
pub mod ruleset;
pub mod scenario;
pub mod state;
pub mod table;
pub mod victory;

pub use action::{decode_action, encode_action, Action, MineKind};
pub use content::CellMines;
pub use engine::MinisEngine;
pub use event::{decode_event, describe_event, encode_event, MinisEvent, VehicleResult};
pub use geom::{Cell, Point};
pub use scenario::{MinisPublicSetup, MinisScenario};
pub use state::{GameState, Status};

use std::sync::Arc;

/// The newest miniatures ruleset version: bumped whenever a ruling could
/// change. Version 2: victory conditions (R79), densities that could pass
/// the detonation table refused at load and at laying, a late refusal
/// consumes the move with public words that name no hidden fact (R78);
/// version 1 ([`MinisV1`]) is still played for its games' transcripts.
pub const VERSION: u32 = 2;

/// The miniatures ruleset, as the registry knows it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Minis;

impl hexveil_core::Ruleset for Minis {
    fn id(&self) -> &'static str {
        "minis"
    }

    fn version(&self) -> u32 {
        VERSION
    }

    fn title(&self) -> &'static str {
        "WWII miniatures minefields (seed 004)"
    }

    fn load(&self, scenario_text: &str) -> Result<Arc<dyn hexveil_core::Scenario>, String> {
        Ok(Arc::new(MinisScenario::from_toml_at(
            scenario_text,
            VERSION,
        )?))
    }
}

/// The miniatures ruleset at version 1 (before rulings R78 and R79), for
/// the games made with it (G5).
#[derive(Clone, Copy, Debug, Default)]
pub struct MinisV1;

impl hexveil_core::Ruleset for MinisV1 {
    fn id(&self) -> &'static str {
        "minis"
    }

    fn version(&self) -> u32 {
        1
    }

    fn title(&self) -> &'static str {
        "WWII miniatures minefields (seed 004), version 1 (before rulings R78, R79)"
    }

    fn load(&self, scenario_text: &str) -> Result<Arc<dyn hexveil_core::Scenario>, String> {
        Ok(Arc::new(MinisScenario::from_toml_at(scenario_text, 1)?))
    }
}
