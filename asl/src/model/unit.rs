//! Units: Infantry (squads, half-squads, crews), leaders and vehicles.

use crate::board::hex::{Direction, Hex, Spine};
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

/// Armor factors of a vehicle's hull (or turret) (front, side, rear);
/// `None` side/rear means unarmored there (B28.42).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HullArmor {
    /// Front hull AF.
    pub front: u8,
    /// Side hull AF, `None` if unarmored.
    pub side: Option<u8>,
    /// Rear hull AF, `None` if unarmored.
    pub rear: Option<u8>,
}

/// Vehicle data (the default: an unarmored, wheeled vehicle with nothing
/// aboard and no ordnance).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Its Main Armament, if it fires ordnance (C3).
    #[serde(default)]
    pub ordnance: Option<Ordnance>,
    /// Its Target Size To Hit DRM as a target (C3.32 EX: -2..=+2; a
    /// Kuebelwagen is +2, an Opel Blitz 0).
    #[serde(default)]
    pub size_drm: i8,
    /// Hull Down to every firer (D4.2 as far as C3.6, C3.7 and C3.9 need
    /// it: a hull hit misses it, a CH strikes its turret). Scenario data.
    #[serde(default)]
    pub hull_down: bool,
    /// Turret (or upper superstructure, C3.9) armor factors, for the To
    /// Kill of a turret hit (C7 data a league supplies, R77); `None` when
    /// not given.
    #[serde(default)]
    pub turret: Option<HullArmor>,
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

/// Ammunition an ordnance shot fires (C3.31-C3.33, C4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Ammo {
    /// High Explosive.
    He,
    /// Armor Piercing.
    Ap,
    /// High Explosive Anti-Tank.
    Heat,
    /// Armor Piercing Composite Rigid.
    Apcr,
    /// Armor Piercing Discarding Sabot.
    Apds,
    /// Smoke.
    Smoke,
    /// White Phosphorus.
    Wp,
}

impl Ammo {
    /// Its usual name (`HE`, `AP`, `WP` ...).
    pub fn name(self) -> &'static str {
        match self {
            Ammo::He => "HE",
            Ammo::Ap => "AP",
            Ammo::Heat => "HEAT",
            Ammo::Apcr => "APCR",
            Ammo::Apds => "APDS",
            Ammo::Smoke => "SMOKE",
            Ammo::Wp => "WP",
        }
    }

    /// Parses `HE`, `ap`, `Smoke` ...
    pub fn parse(s: &str) -> Option<Ammo> {
        [
            Ammo::He,
            Ammo::Ap,
            Ammo::Heat,
            Ammo::Apcr,
            Ammo::Apds,
            Ammo::Smoke,
            Ammo::Wp,
        ]
        .into_iter()
        .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
    }

    /// SMOKE or WP: a smoke round (C3.33: Area Target Type).
    pub fn is_smoke(self) -> bool {
        matches!(self, Ammo::Smoke | Ammo::Wp)
    }
}

impl fmt::Display for Ammo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The colour of a nationality's Basic To Hit numbers (C3.3: the A25
/// National Capabilities Chart's "Ordnance TH#" column, scenario data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThColour {
    /// Red TH# (e.g. Russian).
    Red,
    /// Black TH# (e.g. German).
    Black,
}

impl ThColour {
    /// `red` or `black`, as in `to_hit.csv`.
    pub fn name(self) -> &'static str {
        match self {
            ThColour::Red => "red",
            ThColour::Black => "black",
        }
    }
}

/// The barrel-length suffix of a Gun (C4.11-C4.13): `*`, `L`, `LL`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Suffix {
    /// No suffix.
    #[default]
    None,
    /// `*` (short barrel, C4.11).
    Star,
    /// `L` (long barrel, C4.12).
    L,
    /// `LL` (very long barrel, C4.13).
    Ll,
}

impl Suffix {
    /// As printed: ``, `*`, `L`, `LL`.
    pub fn name(self) -> &'static str {
        match self {
            Suffix::None => "",
            Suffix::Star => "*",
            Suffix::L => "L",
            Suffix::Ll => "LL",
        }
    }
}

/// A weapon that fires on a To Hit table (C3): a Gun's, or a vehicle's
/// Main Armament. Scenario data, as printed on the counter and its note.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ordnance {
    /// Calibre in mm (C4.2: <= 57mm, <= 40mm; C3.8: 15-40mm).
    pub calibre_mm: u16,
    /// Barrel suffix (C4.1).
    pub suffix: Suffix,
    /// Its nationality's Basic TH# colour (C3.3, A25).
    pub colour: ThColour,
    /// The IFT FP of its HE (the calibre's HE Equivalency column); `None`
    /// if it has no HE.
    pub he_fp: Option<u8>,
    /// The ammunition it may fire.
    pub ammo: BTreeSet<Ammo>,
    /// A mortar (C3.33: Area Target Type only).
    pub mortar: bool,
    /// Turreted (C3.22, C5.1 Case A).
    pub turreted: bool,
    /// Listed range in hexes (C3.52: no hit beyond it).
    pub max_range: u16,
    /// Granted two or more TK DR per hit by its note (C3.8: no Multiple
    /// Hits).
    pub multi_tk: bool,
}

impl Ordnance {
    /// `75L`, `57LL`, `50*`.
    pub fn label(&self) -> String {
        format!("{}{}", self.calibre_mm, self.suffix.name())
    }
}

/// A Gun counter (C3: it fires only when manned by Good Order Infantry of
/// its side in its hex).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gun {
    /// What it fires.
    pub ordnance: Ordnance,
}

/// Where a vehicle's or Gun's barrel points (C3.2): at one of its
/// hexspines (a definite Covered Arc), or at a hexside, which is ambiguous
/// until the opponent picks one of its two hexspines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Facing {
    /// At this hexspine.
    Spine(Spine),
    /// At this hexside: the CA is ambiguous (C3.2).
    Hexside(Direction),
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
    /// A Gun (C3).
    Gun(Gun),
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
    /// A vehicle's or Gun's facing: its Covered Arc (C3.2).
    #[serde(default)]
    pub facing: Option<Facing>,
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

    /// Personnel (Infantry or leader), as opposed to vehicles and Guns.
    pub fn is_personnel(&self) -> bool {
        matches!(self.kind, UnitKind::Infantry(_) | UnitKind::Leader(_))
    }

    /// Gun data, if a Gun.
    pub fn gun(&self) -> Option<&Gun> {
        match &self.kind {
            UnitKind::Gun(g) => Some(g),
            _ => None,
        }
    }

    /// The ordnance it fires: a Gun's, or a vehicle's Main Armament.
    pub fn ordnance(&self) -> Option<&Ordnance> {
        match &self.kind {
            UnitKind::Gun(g) => Some(&g.ordnance),
            UnitKind::Vehicle(v) => v.ordnance.as_ref(),
            _ => None,
        }
    }

    /// An armored fighting vehicle: a vehicle that does not count as
    /// unarmored (C3.31, C3.32).
    pub fn is_afv(&self) -> bool {
        self.vehicle().is_some_and(|v| !v.counts_as_unarmored())
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
            UnitKind::Gun(g) => format!("{} Gun", g.ordnance.label()),
        }
    }

    /// Morale Level now, for a Morale Check.
    pub fn morale(&self) -> Option<u8> {
        match &self.kind {
            UnitKind::Infantry(i) => Some(i.strength.morale),
            UnitKind::Leader(l) => Some(l.morale),
            UnitKind::Vehicle(_) | UnitKind::Gun(_) => None,
        }
    }
}
