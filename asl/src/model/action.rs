//! Actions a player declares. Each is signed by its author in the protocol
//! and adjudicated by the [`crate::engine::Engine`].

use crate::board::hex::{Hex, Spine};
use crate::model::unit::{Ammo, UnitId};
use serde::{Deserialize, Serialize};

/// How a unit moves into the next hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MoveMode {
    /// Ordinary movement.
    #[default]
    Normal,
    /// Bypass Movement along the hexsides of an obstacle hex (B28.44).
    Bypass,
    /// Trench movement (B28.44: no minefield attack).
    Trench,
    /// Using a Tower's stairwell (B28.44: no minefield attack).
    TowerStairwell,
    /// Entering through a Trail Break at twice the normal cost (B28.61).
    TrailBreak,
    /// Vehicular Bypass Movement: creates no Trail Break (B28.61).
    VehicularBypass,
    /// A Flail Tank's Mine Clearance entry (B28.7).
    FlailClearance,
}

/// Which kind of HE attack an FFE is (B28.62).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FfeKind {
    /// An HE Concentration Fire For Effect.
    HeConcentration,
    /// An HE aerial bomb attack.
    AerialBomb,
}

/// The Target Type of an ordnance shot (C3.31-C3.33).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TargetType {
    /// At this one vehicle (C3.31).
    Vehicle(UnitId),
    /// At the unarmored targets of one Location (C3.32).
    Infantry,
    /// At everything in the hex (C3.33).
    Area,
}

impl TargetType {
    /// `Vehicle`, `Infantry` or `Area`.
    pub fn name(self) -> &'static str {
        match self {
            TargetType::Vehicle(_) => "Vehicle",
            TargetType::Infantry => "Infantry",
            TargetType::Area => "Area",
        }
    }
}

/// A declared action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Move a stack one hex (MPh).
    Move {
        /// The moving units (a stack).
        units: Vec<UnitId>,
        /// The ADJACENT hex entered.
        to: Hex,
        /// How they move.
        mode: MoveMode,
    },
    /// Rout one broken unit one hex (RtPh, B28.413).
    Rout {
        /// The routing unit.
        unit: UnitId,
        /// The ADJACENT hex entered.
        to: Hex,
    },
    /// Advance units one hex (APh).
    Advance {
        /// The advancing units.
        units: Vec<UnitId>,
        /// The ADJACENT hex entered.
        to: Hex,
    },
    /// Infantry fire with Inherent FP on the IFT (A7; A19.131, A19.33).
    Fire {
        /// The firing units (one Fire Group).
        firers: Vec<UnitId>,
        /// The target hex.
        target: Hex,
        /// Other DRM the players agree on (Hindrance, ...): the engine adds
        /// TEM and leadership itself.
        extra_drm: i8,
    },
    /// An HE Concentration FFE or aerial bomb resolved in a hex (B28.62).
    Ffe {
        /// Hex attacked.
        hex: Hex,
        /// The attack's FP (IFT column).
        fp: u8,
        /// Which kind.
        kind: FfeKind,
    },
    /// An MMC Searches its own and ADJACENT hexes (A12.152 as far as B28
    /// needs it: reveals minefield presence, B28.1, B28.47, B28.48).
    Search {
        /// The searching MMC.
        unit: UnitId,
    },
    /// Infantry spends an extra MF to remove A-T mines in full view in its
    /// hex at the end of the MPh (B28.53).
    ClearFullViewMines {
        /// The Infantry unit.
        unit: UnitId,
    },
    /// Infantry attempts Minefield Clearance (B28.6, B24.74; data per R12).
    InfantryClearance {
        /// The clearing units.
        units: Vec<UnitId>,
    },
    /// PRC disembark or Bail Out from a vehicle into its hex (B28.43).
    Disembark {
        /// The vehicle.
        vehicle: UnitId,
        /// The units leaving it.
        units: Vec<UnitId>,
    },
    /// The phasing player ends the current phase.
    EndPhase,
    /// During setup, a side that has at least one Dummy Minefield counter
    /// makes its Secret dr for extra Dummies (B28.47).
    DummyDr,
    /// The actor concedes the game.
    Concede,
    /// A Gun or vehicle fires its ordnance on the To Hit Table (C3).
    OrdnanceFire {
        /// The Gun or vehicle.
        gun: UnitId,
        /// The target hex.
        target: Hex,
        /// The Target Type.
        target_type: TargetType,
        /// The ammunition fired.
        ammo: Ammo,
        /// Turn to this hexspine first, to bring the target into the CA
        /// (C3.21, Case A DRM).
        change_ca: Option<Spine>,
        /// Other To Hit DRM the players agree on (Hindrance, Case R, and
        /// the cases the engine does not derive); the engine adds Cases A,
        /// B, D, E, K, L, N, Q and vehicles' Target Size itself.
        extra_drm: i8,
    },
    /// A Gun or vehicle changes its CA without firing, at the end of a
    /// friendly fire phase (C3.22).
    ChangeCa {
        /// The Gun or vehicle.
        unit: UnitId,
        /// The new hexspine.
        ca: Spine,
    },
    /// The opponent picks the hexspine of an enemy Gun or vehicle whose
    /// facing is ambiguous (C3.2).
    ChooseCa {
        /// The enemy Gun or vehicle.
        unit: UnitId,
        /// One of the two hexspines of the hexside it faces.
        ca: Spine,
    },
}

impl Action {
    /// The same action with every hex under its canonical name on `map`
    /// (a seam hex has two names, one location): the engine works on
    /// canonical names only, so input is canonicalized where it enters.
    pub fn canonical(self, map: &crate::board::map::Map) -> Action {
        match self {
            Action::Move { units, to, mode } => Action::Move {
                units,
                to: map.canonical(to),
                mode,
            },
            Action::Rout { unit, to } => Action::Rout {
                unit,
                to: map.canonical(to),
            },
            Action::Advance { units, to } => Action::Advance {
                units,
                to: map.canonical(to),
            },
            Action::Fire {
                firers,
                target,
                extra_drm,
            } => Action::Fire {
                firers,
                target: map.canonical(target),
                extra_drm,
            },
            Action::Ffe { hex, fp, kind } => Action::Ffe {
                hex: map.canonical(hex),
                fp,
                kind,
            },
            Action::OrdnanceFire {
                gun,
                target,
                target_type,
                ammo,
                change_ca,
                extra_drm,
            } => Action::OrdnanceFire {
                gun,
                target: map.canonical(target),
                target_type,
                ammo,
                change_ca,
                extra_drm,
            },
            other => other,
        }
    }
}

/// Largest action accepted, in bytes.
pub const MAX_ACTION_LEN: usize = 64 * 1024;

/// The bytes of an action, as signed into the log.
pub fn encode_action(action: &Action) -> Vec<u8> {
    postcard::to_stdvec(action).expect("postcard into a Vec cannot fail")
}

impl From<Action> for Vec<u8> {
    /// The bytes of an action, as signed into the log ([`encode_action`]).
    fn from(action: Action) -> Vec<u8> {
        encode_action(&action)
    }
}

/// An action from its bytes: exactly one, nothing after it.
pub fn decode_action(bytes: &[u8]) -> Result<Action, String> {
    if bytes.len() > MAX_ACTION_LEN {
        return Err(format!(
            "an action of {} bytes is longer than {MAX_ACTION_LEN}",
            bytes.len()
        ));
    }
    // Canonical only: one action, one byte string (PROTOCOL.md 11, G5).
    hexveil_core::canonical::decode::<Action>(bytes).map_err(|e| match e {
        hexveil_core::canonical::CanonicalError::Trailing(n) => {
            format!("{n} bytes after the action")
        }
        e => format!("not an ASL action: {e}"),
    })
}
