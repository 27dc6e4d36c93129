//! Units: Infantry (squads, half-squads, crews), leaders and vehicles.

use crate::board::hex::Hex;
use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// A unit's id in a game: the index the scenario gave it, in OB order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct UnitId(pub u16);

impl fmt::Display for UnitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A squad's or half-squad's Strength Factor: firepower, normal range,
/// morale (e.g. 4-6-7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Strength {
    /// Inherent firepower.
    pub fp: u8,
    /// Normal range in hexes.
    pub range: u8,
    /// Morale Level.
    pub morale: u8,
}

impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.fp, self.range, self.morale)
    }
}

impl std::str::FromStr for Strength {
    type Err = String;
    fn from_str(s: &str) -> Result<Strength, String> {
        let parts: Vec<&str> = s.trim().split('-').collect();
        let bad = || format!("strength factor {s:?} must look like 4-6-7");
        if parts.len() != 3 {
            return Err(bad());
        }
        let n = |p: &str| p.parse::<u8>().map_err(|_| bad());
        Ok(Strength {
            fp: n(parts[0])?,
            range: n(parts[1])?,
            morale: n(parts[2])?,
        })
    }
}

/// Troop quality (A19.1, A19.13: Replacement must drop the class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Class {
    /// Conscript (Inexperienced, A19.2).
    Conscript,
    /// Green (Inexperienced, A19.2).
    Green,
    /// 2nd Line.
    SecondLine,
    /// 1st Line.
    FirstLine,
    /// Elite.
    Elite,
}

impl Class {
    /// Green and Conscript troops are Inexperienced (A19.2).
    pub fn inexperienced(self) -> bool {
        matches!(self, Class::Green | Class::Conscript)
    }
}

/// Special standing of a unit that rules look at (A19.11, A19.12, B28.8 ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Trait {
    /// SS (never Disrupted when opposed by Russians, A19.12).
    Ss,
    /// Gurkha (never Disrupted, A19.12).
    Gurkha,
    /// U.S. Marine (never Disrupted, A19.12).
    UsMarine,
    /// Partisan (never Disrupted, A19.12).
    Partisan,
    /// Commissar (never Replaced, A19.11; never Disrupted, A19.12).
    Commissar,
    /// Hero (never Replaced, A19.11).
    Hero,
    /// Fanatic (never Disrupted, A19.12).
    Fanatic,
    /// Unarmed (never Replaced, A19.11; always Inexperienced, A19.3).
    Unarmed,
    /// Sapper (B28.8: -2 squad / -1 HS on the Clearance DR).
    Sapper,
    /// Cavalry (treated like Infantry by minefields, B28.41).
    Cavalry,
    /// Berserk (A19.131 Ammunition Shortage exception, A19.31 MF).
    Berserk,
}

/// The size of an Infantry Multi-Man Counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum InfantrySize {
    /// A squad.
    Squad,
    /// A half-squad.
    HalfSquad,
    /// A crew (never Replaced, A19.11; never Green/Conscript, A19.2).
    Crew,
}

/// Infantry data (squads, half-squads, crews).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Infantry {
    /// Squad, half-squad or crew.
    pub size: InfantrySize,
    /// Strength Factor, e.g. 4-6-7.
    pub strength: Strength,
    /// Whether the Morale Factor is underscored (A19.13).
    pub underscored: bool,
    /// Troop quality.
    pub class: Class,
}

/// A leader (SMC), e.g. 9-2: morale 9, leadership DRM -2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leader {
    /// Morale Level.
    pub morale: u8,
    /// Leadership DRM (negative helps), e.g. -2 for a 9-2.
    pub leadership: i8,
}

impl fmt::Display for Leader {
    /// `9-2`, `8-0`, `6+1`: morale, then the leadership DRM with its sign
    /// (0 printed as `-0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.leadership > 0 {
            write!(f, "{}+{}", self.morale, self.leadership)
        } else {
            write!(f, "{}-{}", self.morale, -self.leadership)
        }
    }
}

/// Hull armor factors of a vehicle (front, side, rear); `None` side/rear
/// means unarmored there (B28.42).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HullArmor {
    /// Front hull AF.
    pub front: u8,
    /// Side hull AF, `None` if unarmored.
    pub side: Option<u8>,
    /// Rear hull AF, `None` if unarmored.
    pub rear: Option<u8>,
}

/// Vehicle data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vehicle {
    /// Hull armor; `None` for an unarmored vehicle (truck, halftrack ...).
    pub hull: Option<HullArmor>,
    /// Aerial AF for the lowest hull AF (C7.12), scenario data per R4.
    pub aerial_af: Option<u8>,
    /// Fully tracked (may create a Trail Break, B28.61).
    pub fully_tracked: bool,
    /// A motorcycle never triggers A-T mines (B28.5).
    pub motorcycle: bool,
    /// A wagon triggers A-T mines (B28.5).
    pub wagon: bool,
    /// Open-topped: its Passengers are Vulnerable PRC (B28.43).
    pub open_topped: bool,
    /// A Flail Tank (B28.7); `false` once its flail is broken (B28.72).
    pub flail: bool,
    /// Printed Movement Points: the vehicle's MP for its MPh (A4, R57);
    /// 0 when the scenario gives none (then
    /// [`crate::a::movement_factors::DEFAULT_VEHICLE_MP`]).
    pub printed_mp: u8,
    /// Immobilized (B28.42, B28.52).
    pub immobilized: bool,
    /// Passengers carried inside (B28.43).
    pub passengers: Vec<UnitId>,
    /// Riders on the outside (B28.43): always Vulnerable PRC.
    pub riders: Vec<UnitId>,
}

impl Vehicle {
    /// An AFV whose lowest hull AF is 0, or whose side and rear are
    /// unarmored, counts as unarmored for every minefield attack (B28.42).
    pub fn counts_as_unarmored(&self) -> bool {
        match self.hull {
            None => true,
            Some(h) => {
                let lowest = [Some(h.front), h.side, h.rear]
                    .into_iter()
                    .flatten()
                    .min()
                    .unwrap_or(0);
                lowest == 0 || (h.side.is_none() && h.rear.is_none())
            }
        }
    }

    /// The lowest hull AF, if armored.
    pub fn lowest_hull_af(&self) -> Option<u8> {
        self.hull.map(|h| {
            [Some(h.front), h.side, h.rear]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(0)
        })
    }
}

/// What kind of unit it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnitKind {
    /// A squad, half-squad or crew.
    Infantry(Infantry),
    /// A leader.
    Leader(Leader),
    /// A vehicle.
    Vehicle(Vehicle),
}

/// Transient status of a unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Broken (A10).
    pub broken: bool,
    /// Disrupted (A19.12); implies broken.
    pub disrupted: bool,
    /// Pinned (A7.8).
    pub pinned: bool,
    /// Concealed ("?", A12).
    pub concealed: bool,
    /// In Melee (A11).
    pub in_melee: bool,
    /// Eliminated (removed from play).
    pub eliminated: bool,
    /// Captured by the enemy (A19.12 surrender).
    pub captured: bool,
    /// Aboard this vehicle as Passenger or Rider.
    pub aboard: Option<UnitId>,
}

/// A unit in play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// Its id.
    pub id: UnitId,
    /// The scenario's name for it (`ger-squad-1`).
    pub name: String,
    /// Whose it is.
    pub side: Side,
    /// Nationality as in `elr_replacement.csv` (`German`, `Russian` ...).
    pub nationality: String,
    /// What it is.
    pub kind: UnitKind,
    /// Special standing.
    pub traits: BTreeSet<Trait>,
    /// Where it is; `None` when off board or eliminated.
    pub hex: Option<Hex>,
    /// Transient status.
    pub status: Status,
    /// Holds a Daisy Chain counter of this many A-T factors (B28.531).
    pub daisy_chain: Option<u8>,
}

impl Unit {
    /// Infantry data, if Infantry.
    pub fn infantry(&self) -> Option<&Infantry> {
        match &self.kind {
            UnitKind::Infantry(i) => Some(i),
            _ => None,
        }
    }

    /// Vehicle data, if a vehicle.
    pub fn vehicle(&self) -> Option<&Vehicle> {
        match &self.kind {
            UnitKind::Vehicle(v) => Some(v),
            _ => None,
        }
    }

    /// Personnel (Infantry or leader), as opposed to vehicles.
    pub fn is_personnel(&self) -> bool {
        !matches!(self.kind, UnitKind::Vehicle(_))
    }

    /// In play: neither eliminated nor captured.
    pub fn in_play(&self) -> bool {
        !self.status.eliminated && !self.status.captured
    }

    /// Good Order: in play and not broken (A10).
    pub fn good_order(&self) -> bool {
        self.in_play() && !self.status.broken
    }

    /// Whether it has a trait.
    pub fn has(&self, t: Trait) -> bool {
        self.traits.contains(&t)
    }

    /// Leader data, if a leader.
    pub fn leader(&self) -> Option<&Leader> {
        match &self.kind {
            UnitKind::Leader(l) => Some(l),
            _ => None,
        }
    }

    /// A Multi-Man Counter: squad, half-squad or crew.
    pub fn is_mmc(&self) -> bool {
        matches!(self.kind, UnitKind::Infantry(_))
    }

    /// A crew (A19.11, A19.2).
    pub fn is_crew(&self) -> bool {
        matches!(&self.kind, UnitKind::Infantry(i) if i.size == InfantrySize::Crew)
    }

    /// What the counter is, for events: `4-6-7 squad`, `2-4-7 HS`,
    /// `2-2-8 crew`, `9-2 leader`, `vehicle`.
    pub fn label(&self) -> String {
        match &self.kind {
            UnitKind::Infantry(i) => {
                let size = match i.size {
                    InfantrySize::Squad => "squad",
                    InfantrySize::HalfSquad => "HS",
                    InfantrySize::Crew => "crew",
                };
                format!("{} {size}", i.strength)
            }
            UnitKind::Leader(l) => format!("{l} leader"),
            UnitKind::Vehicle(_) => "vehicle".to_string(),
        }
    }

    /// Morale Level now, for a Morale Check.
    pub fn morale(&self) -> Option<u8> {
        match &self.kind {
            UnitKind::Infantry(i) => Some(i.strength.morale),
            UnitKind::Leader(l) => Some(l.morale),
            UnitKind::Vehicle(_) => None,
        }
    }
}
