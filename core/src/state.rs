//! The public and referee state of a game in progress.

use crate::hex::Hex;
use crate::sealed::{ApStrength, AtFactors, Content, FactRequest};
use crate::side::Side;
use crate::turn::Phase;
use crate::unit::{Unit, UnitId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The winner, if any.
    pub winner: Option<Side>,
    /// Why, in words.
    pub reason: String,
}

/// What is publicly known about the minefield of one side in one hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HexMarkers {
    /// A Known Minefield counter of this owner stands here (B28.45).
    pub known_counter: Option<Side>,
    /// A-P mines revealed here: presence, and strength once an attack
    /// needed it (B28.41, R13).
    pub ap_revealed: Option<Option<ApStrength>>,
    /// A-T mines revealed here: presence, and factors once needed (R13).
    pub at_revealed: Option<Option<AtFactors>>,
    /// A-T mines in full view (B28.53, R5) of this owner.
    pub at_in_view: Option<Side>,
    /// A Dummy Minefield counter marks an unmined hex of a multi-hex Known
    /// minefield (B28.47 EXC).
    pub dummy_marker: bool,
}

/// The state of a game: the engine's single source of truth. The
/// `referee_knows` map holds what owners have opened to the referee (DESIGN
/// G4: only what a rule needed); everything else here is public.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// Game turn, from 1.
    pub turn: u16,
    /// Whose Player Turn it is.
    pub phasing: Side,
    /// The current phase.
    pub phase: Phase,
    /// Every unit of the scenario, eliminated ones included.
    pub units: BTreeMap<UnitId, Unit>,
    /// Current ELR of each side's OB (A19.1).
    pub elr: BTreeMap<Side, u8>,
    /// Minefield markers per hex and owner.
    pub markers: BTreeMap<Hex, HexMarkers>,
    /// Facts the owners have opened to the referee, with their current
    /// content (updated by transitions).
    pub referee_knows: BTreeMap<FactRequest, Content>,
    /// Daisy Chain placement opportunities so far (B28.531, DESIGN 3.2).
    pub opportunities: u32,
    /// Set when the game is over.
    pub result: Option<GameResult>,
}

impl GameState {
    /// The unit with this id, if any.
    pub fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.units.get(&id)
    }

    /// Units in play in a hex (not aboard a vehicle).
    pub fn units_in(&self, hex: Hex) -> impl Iterator<Item = &Unit> {
        self.units
            .values()
            .filter(move |u| u.hex == Some(hex) && u.in_play() && u.status.aboard.is_none())
    }

    /// The markers of a hex (default when none).
    pub fn markers(&self, hex: Hex) -> HexMarkers {
        self.markers.get(&hex).copied().unwrap_or_default()
    }
}
