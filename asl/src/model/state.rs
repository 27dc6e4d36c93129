//! The public and referee state of a game in progress.

use crate::board::hex::Hex;
use crate::model::phase::Phase;
use crate::model::sealed::{ApStrength, AtFactors, Content, FactRequest};
use crate::model::unit::{Unit, UnitId};
use crate::side::Side;
use hexveil_core::PersistentMap;
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
    /// The hex lies on a multi-hex Known minefield laid along a (alternate)
    /// hex grain with arrowed counters (B28.46); an unmined hex of such a
    /// line gets a Dummy marker when found (B28.47 EXC).
    #[serde(default)]
    pub known_line: bool,
}

impl HexMarkers {
    /// Whether the hex is publicly marked as (possibly) mined: a Known
    /// counter, revealed A-P/A-T mines or A-T mines in full view (B28.45,
    /// B28.48, B28.53). A Dummy marker does not count.
    pub fn shows_mines(&self) -> bool {
        self.known_counter.is_some()
            || self.ap_revealed.is_some()
            || self.at_revealed.is_some()
            || self.at_in_view.is_some()
    }
}

/// A Trail Break through a minefield hex (B28.61): a path between two of
/// the hex's hexsides, each named by the ADJACENT hex across it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TrailBreak {
    /// The hexes across the two hexsides the path joins.
    pub ends: [Hex; 2],
}

impl TrailBreak {
    /// Whether the path crosses the hexside shared with `neighbour`.
    pub fn crosses(&self, neighbour: Hex) -> bool {
        self.ends.contains(&neighbour)
    }
}

/// A Flail Tank's declared Mine Clearance this Player Turn (B28.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlailClearance {
    /// Game turn of the clearance move.
    pub turn: u16,
    /// The hex it entered for the clearance.
    pub hex: Hex,
    /// The hex it came from (the hexside crossed).
    pub from: Hex,
}

/// When a unit last moved: game turn, phasing side and phase. Lets rules
/// ask "has it moved in this phase" without a reset at phase change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedAt {
    /// Game turn.
    pub turn: u16,
    /// The phasing side then.
    pub phasing: Side,
    /// The phase.
    pub phase: Phase,
}

/// Minefield-related public state besides the per-hex markers (B28.53,
/// B28.61, B28.7).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MineState {
    /// Trail Breaks per hex (B28.61, B28.7).
    pub trail_breaks: BTreeMap<Hex, Vec<TrailBreak>>,
    /// Flail Tanks clearing mines this Player Turn (B28.7).
    pub flail_clearances: BTreeMap<UnitId, FlailClearance>,
    /// Infantry that spent the extra MF to remove A-T mines in full view,
    /// resolved at the end of the MPh (B28.53).
    pub full_view_clearances: BTreeMap<UnitId, Hex>,
    /// Where each moving unit last came from (for the hexside a Trail Break
    /// starts at, B28.61).
    pub entered_from: BTreeMap<UnitId, Hex>,
    /// When each unit last moved (B28.7: flail clearance declared at the
    /// start of the MPh).
    pub moved_at: BTreeMap<UnitId, MovedAt>,
    /// Burning Wrecks left by minefield attacks (B28.52).
    pub burning_wrecks: BTreeMap<UnitId, Hex>,
}

/// A Gun's Acquisition of a target hex (C6.5 Case N as C3.7 EX uses it):
/// consecutive shots at the same hex from the same hex and facing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acquisition {
    /// The hex acquired.
    pub target: Hex,
    /// Shots at it so far (1: the next shot gets -1, 2 or more: -2).
    pub shots: u8,
    /// Where the firer was.
    pub from: Hex,
    /// How the firer faced.
    pub facing: Option<crate::model::unit::Facing>,
}

/// Ordnance bookkeeping (C3).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrdnanceState {
    /// When each Gun/vehicle last fired ordnance: it fires once per
    /// phase (Rate of Fire, C2.24, is not adjudicated).
    pub fired_at: BTreeMap<UnitId, MovedAt>,
    /// When each changed its CA without firing (C3.22): it may not fire
    /// again in that phase.
    pub ca_changed_at: BTreeMap<UnitId, MovedAt>,
    /// Units that may not move for the rest of this Player Turn (turn,
    /// phasing side): a CA change in the PFPh (C3.22) freezes the Gun and
    /// its crew.
    pub no_move: BTreeMap<UnitId, (u16, Side)>,
    /// Each firer's Acquisition (Case N).
    pub acquisition: BTreeMap<UnitId, Acquisition>,
}

/// A Daisy Chain placed on the map, as the referee knows it (B28.531;
/// the rules that place and fire it are in [`crate::b28::daisy_chain`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacedDaisy {
    /// The side that placed it.
    pub owner: Side,
    /// The Infantry unit that held the counter.
    pub holder: UnitId,
    /// The hex the chain lies across.
    pub hex: Hex,
    /// Its A-T mine factors (B28.51).
    pub factors: u8,
    /// The opportunity whose note placed it.
    pub opportunity: u32,
    /// Publicly revealed (a Good Order enemy unit saw its hex, or it
    /// attacked).
    pub revealed: bool,
    /// It has attacked and ceased to exist (B28.531).
    pub attacked: bool,
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
    /// content (updated by transitions). It gains a key for every Daisy
    /// Chain opportunity, so it is a [`PersistentMap`]: the referee copies
    /// the state for every log entry, and this copy costs the same however
    /// long the game (issue 16).
    pub referee_knows: PersistentMap<FactRequest, Content>,
    /// Trail Breaks, flail clearances and other minefield bookkeeping.
    #[serde(default)]
    pub mines: MineState,
    /// Daisy Chain placement opportunities so far (B28.531, DESIGN 3.2).
    pub opportunities: u32,
    /// Set when the game is over.
    pub result: Option<GameResult>,
    /// Extra Dummy Minefield counters each side got from its Secret dr
    /// (B28.47); referee-side: the value is shown only to the roller.
    pub extra_dummies: BTreeMap<Side, u8>,
    /// Daisy Chains placed so far (B28.531), as the referee learnt them from
    /// the opened notes; their public reveal is tracked per chain.
    pub daisy_chains: Vec<PlacedDaisy>,
    /// The side controlling each hex a victory condition names, once a
    /// Good Order unit has been in it (R53); a hex not listed is
    /// controlled as at the start ([`crate::model::victory`]).
    #[serde(default)]
    pub control: BTreeMap<Hex, Side>,
    /// Movement Factors (in half MF) each unit has spent in the current
    /// MPh (A4.1, R57); emptied when an MPh begins.
    #[serde(default)]
    pub mf_spent: BTreeMap<UnitId, u8>,
    /// Ordnance bookkeeping (C3).
    #[serde(default)]
    pub ordnance: OrdnanceState,
    /// Units whose action was consumed by a late refusal, with when (R73):
    /// they act no more in that phase.
    #[serde(default)]
    pub consumed: BTreeMap<UnitId, MovedAt>,
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

    /// Now, as a [`MovedAt`] stamp.
    pub fn now(&self) -> MovedAt {
        MovedAt {
            turn: self.turn,
            phasing: self.phasing,
            phase: self.phase,
        }
    }

    /// The markers of a hex (default when none).
    pub fn markers(&self, hex: Hex) -> HexMarkers {
        self.markers.get(&hex).copied().unwrap_or_default()
    }
}
