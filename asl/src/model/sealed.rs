//! Sealed facts: what a side hid at setup or during play, as the engine sees
//! it once the owner opens it.
//!
//! The protocol seals one leaf per (side, layer, location) for every location
//! that could legally hold that layer (see [`crate::setup`]); the engine asks
//! for openings by [`FactRequest`] and receives [`Fact`]s. Layers are kept
//! apart so that a reveal is minimal: Infantry entering a hex opens its A-P
//! leaf only, never its A-T leaf (B28.5, DESIGN G3/G4).

use crate::board::hex::Hex;
use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A layer of sealed facts. Each layer is an independent sealed layout (or,
/// for [`Layer::DaisyChain`], a stream of sealed notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Layer {
    /// Anti-personnel mines in a hex: none, a strength 6/8/12, or, in a hex
    /// under a Known Minefield counter, a Dummy (B28.1, B28.45, B28.47).
    AntiPersonnel,
    /// Anti-tank mine factors in a hex, 1..=5 or none (B28.5).
    AntiTank,
    /// Booby Trap capability bought for one board (B28.9): one leaf per board.
    BoobyTrap,
    /// Daisy Chain placements and attacks: one sealed note per placement
    /// opportunity (B28.531, DESIGN 3.2).
    DaisyChain,
}

impl Layer {
    /// Every layer, sealed layouts first, in commit order, then the notes.
    pub const ALL: [Layer; 4] = [
        Layer::AntiPersonnel,
        Layer::AntiTank,
        Layer::BoobyTrap,
        Layer::DaisyChain,
    ];

    /// The layers sealed as layouts at setup, in commit order.
    pub const SEALED: [Layer; 3] = [Layer::AntiPersonnel, Layer::AntiTank, Layer::BoobyTrap];

    /// The layer of this name.
    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The kernel's form of the layer.
    pub fn to_kernel(self) -> hexveil_core::Layer {
        hexveil_core::Layer::named(self.name()).expect("ASL layer names are keys")
    }

    /// The protocol's name of the layer (a fixed ASCII string).
    pub fn name(self) -> &'static str {
        match self {
            Layer::AntiPersonnel => "ap",
            Layer::AntiTank => "at",
            Layer::BoobyTrap => "booby",
            Layer::DaisyChain => "daisy",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a sealed fact sits. The protocol treats it as an opaque key
/// ([`Location::key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Location {
    /// A hex of the map.
    Hex(Hex),
    /// A whole board (Booby Trap capability is bought per board, B28.9).
    Board(u16),
    /// The n-th Daisy Chain placement opportunity of the game (B28.531).
    Opportunity(u32),
}

impl Location {
    /// The protocol key of this location: `4E6`, `board4`, `opp17`.
    pub fn key(&self) -> String {
        match self {
            Location::Hex(h) => h.to_string(),
            Location::Board(b) => format!("board{b}"),
            Location::Opportunity(n) => format!("opp{n}"),
        }
    }
}

impl Location {
    /// Reads a location key (`4E6`, `board4`, `opp3`).
    pub fn from_key(key: &str) -> Option<Location> {
        if let Some(n) = key.strip_prefix("board") {
            return n.parse().ok().map(Location::Board);
        }
        if let Some(n) = key.strip_prefix("opp") {
            return n.parse().ok().map(Location::Opportunity);
        }
        key.parse::<Hex>().ok().map(Location::Hex)
    }

    /// The kernel's form of the location (its key).
    pub fn to_kernel(self) -> hexveil_core::Location {
        hexveil_core::Location::key_of(&self.key()).expect("ASL location keys are keys")
    }
}

impl FactRequest {
    /// The kernel's form of the request.
    pub fn to_kernel(self) -> hexveil_core::FactRequest {
        hexveil_core::FactRequest {
            owner: self.owner,
            layer: self.layer.to_kernel(),
            location: self.location.to_kernel(),
        }
    }

    /// An ASL request from the kernel's form, if it names an ASL layer and
    /// location.
    pub fn from_kernel(r: &hexveil_core::FactRequest) -> Option<FactRequest> {
        Some(FactRequest {
            owner: r.owner,
            layer: Layer::from_name(r.layer.name())?,
            location: Location::from_key(r.location.key())?,
        })
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// A legal A-P minefield strength: 6, 8 or 12 factors (B28.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ApStrength {
    /// 6 factors.
    Six,
    /// 8 factors.
    Eight,
    /// 12 factors.
    Twelve,
}

impl ApStrength {
    /// The factors as a number.
    pub fn factors(self) -> u8 {
        match self {
            ApStrength::Six => 6,
            ApStrength::Eight => 8,
            ApStrength::Twelve => 12,
        }
    }

    /// Reads 6, 8 or 12; anything else is not a legal A-P strength (B28.1).
    pub fn from_factors(f: u8) -> Option<ApStrength> {
        match f {
            6 => Some(ApStrength::Six),
            8 => Some(ApStrength::Eight),
            12 => Some(ApStrength::Twelve),
            _ => None,
        }
    }

    /// One IFT column lower, as an Original K from FFE does (B28.62):
    /// 12 -> 8 -> 6 -> gone.
    pub fn lowered(self) -> Option<ApStrength> {
        match self {
            ApStrength::Twelve => Some(ApStrength::Eight),
            ApStrength::Eight => Some(ApStrength::Six),
            ApStrength::Six => None,
        }
    }
}

/// A legal number of A-T mine factors in one hex: 1..=5 (B28.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct AtFactors(u8);

impl AtFactors {
    /// 1..=5 factors, or `None` (B28.5).
    pub fn new(f: u8) -> Option<AtFactors> {
        (1..=5).contains(&f).then_some(AtFactors(f))
    }

    /// The factors as a number.
    pub fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for AtFactors {
    type Error = String;
    fn try_from(f: u8) -> Result<AtFactors, String> {
        AtFactors::new(f).ok_or_else(|| format!("A-T mine factors must be 1..=5 (B28.5), got {f}"))
    }
}

impl From<AtFactors> for u8 {
    fn from(f: AtFactors) -> u8 {
        f.0
    }
}

/// Booby Trap capability bought for a board (B28.9, R1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum BoobyLevel {
    /// 10 factors: triggers on an Original TC DR of 12.
    C,
    /// 20 factors: triggers on an Original TC DR of 11 (R1: 11 only).
    B,
    /// 30 factors: triggers on an Original TC DR of 11 or 12.
    A,
}

impl BoobyLevel {
    /// Minefield factors this level costs per board (B28.9).
    pub fn cost(self) -> u32 {
        match self {
            BoobyLevel::C => 10,
            BoobyLevel::B => 20,
            BoobyLevel::A => 30,
        }
    }

    /// Whether an Original TC DR sets off a trap of this level (B28.9, R1).
    pub fn triggers_on(self, original_dr: u8) -> bool {
        match self {
            BoobyLevel::C => original_dr == 12,
            BoobyLevel::B => original_dr == 11,
            BoobyLevel::A => original_dr >= 11,
        }
    }
}

/// What the owner did with Daisy Chains at one placement opportunity
/// (B28.531). Every opportunity is answered, with [`DaisyNote::Nothing`] when
/// nothing happened, so the traffic does not tell (DESIGN 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DaisyNote {
    /// No placement, attack or reveal at this opportunity.
    Nothing,
    /// A Daisy Chain was placed in `hex` by `holder` at this opportunity.
    Placed {
        /// The Infantry unit holding the Daisy Chain counter.
        holder: crate::model::unit::UnitId,
        /// The hex the chain is pulled across.
        hex: Hex,
    },
}

/// The content of one sealed fact once opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Content {
    /// Nothing sealed here (every eligible location has a leaf, mined or not).
    Empty,
    /// An A-P minefield of this strength (layer [`Layer::AntiPersonnel`]).
    ApMines(ApStrength),
    /// A Known Minefield counter that is a Dummy (B28.47); only in hexes under
    /// a Known counter, layer [`Layer::AntiPersonnel`].
    Dummy,
    /// A-T mines with these factors (layer [`Layer::AntiTank`]).
    AtMines(AtFactors),
    /// Booby Trap capability of this level on the board (layer [`Layer::BoobyTrap`]).
    BoobyTraps(BoobyLevel),
    /// A Daisy Chain note (layer [`Layer::DaisyChain`]).
    Daisy(DaisyNote),
}

impl Content {
    /// Whether this content may appear in a leaf of `layer`.
    pub fn fits(&self, layer: Layer) -> bool {
        matches!(
            (layer, self),
            (
                Layer::AntiPersonnel,
                Content::Empty | Content::ApMines(_) | Content::Dummy
            ) | (Layer::AntiTank, Content::Empty | Content::AtMines(_))
                | (Layer::BoobyTrap, Content::Empty | Content::BoobyTraps(_))
                | (Layer::DaisyChain, Content::Daisy(_))
        )
    }
}

/// The engine's request for one sealed fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FactRequest {
    /// Whose sealed layout holds it.
    pub owner: Side,
    /// Which layer.
    pub layer: Layer,
    /// Which location of that layer.
    pub location: Location,
}

impl FactRequest {
    /// The fact in words for players, without its owner (issue 27): `A-T
    /// mine record for 3E6`, `Daisy Chain opportunity 1` (B28.531).
    pub fn words(&self) -> String {
        let place = &self.location;
        match self.layer {
            Layer::AntiPersonnel => format!("A-P minefield record for {place}"),
            Layer::AntiTank => format!("A-T mine record for {place}"),
            Layer::BoobyTrap => match place {
                Location::Board(b) => format!("booby trap record for board {b}"),
                _ => format!("booby trap record for {place}"),
            },
            Layer::DaisyChain => match place {
                Location::Opportunity(n) => format!("Daisy Chain opportunity {n}"),
                _ => format!("Daisy Chain record for {place}"),
            },
        }
    }
}

impl fmt::Display for FactRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "side {} {} at {}", self.owner, self.layer, self.location)
    }
}

/// An opened fact, answering a [`FactRequest`]. The protocol has checked the
/// opening against the owner's signed root before the engine sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fact {
    /// The request it answers.
    pub request: FactRequest,
    /// What the leaf holds.
    pub content: Content,
}

#[cfg(test)]
mod words_tests {
    use super::*;

    // Issue 27: B28.5 A-T mines, B28.9 booby traps per board, B28.531
    // Daisy Chain opportunities, in words (not `side B at at 3E6`).
    #[test]
    fn b28_each_sealed_record_in_words() {
        let at = FactRequest {
            owner: Side::B,
            layer: Layer::AntiTank,
            location: Location::from_key("3E6").unwrap(),
        };
        let daisy = FactRequest {
            layer: Layer::DaisyChain,
            location: Location::Opportunity(2),
            ..at
        };
        let booby = FactRequest {
            layer: Layer::BoobyTrap,
            location: Location::Board(3),
            ..at
        };
        for (r, words) in [
            (at, "A-T mine record for 3E6"),
            (daisy, "Daisy Chain opportunity 2"),
            (booby, "booby trap record for board 3"),
        ] {
            println!("{}", r.words());
            assert_eq!(r.words(), words);
        }
    }
}
