//! Movement Factors (A4) and a vehicle's Movement Points, tracked per unit
//! through its MPh: the allowance, the cost of entering a hex, what is
//! left. Counted in half MF ([`Mf`]), since B28.61's own example costs
//! 1½ MF. The costs are the project's reading of the Terrain Effects Chart
//! (not in the seeds): ruling R57 in `docs/RULINGS.md`.

use crate::board::hex::Hex;
use crate::board::map::Map;
use crate::board::terrain::Terrain;
use crate::model::action::MoveMode;
use crate::model::phase::Phase;
use crate::model::state::GameState;
use crate::model::unit::{Unit, UnitId, UnitKind};
use serde::{Deserialize, Serialize};
use std::fmt;

/// An amount of MF (or MP), in half MF: `Mf(3)` is 1½ MF.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Mf(pub u8);

impl Mf {
    /// Whole MF.
    pub const fn whole(n: u8) -> Mf {
        Mf(n.saturating_mul(2))
    }
}

impl fmt::Display for Mf {
    /// `4`, `1½`, `½`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0 / 2, self.0 % 2) {
            (0, 1) => f.write_str("½"),
            (n, 1) => write!(f, "{n}½"),
            (n, _) => write!(f, "{n}"),
        }
    }
}

/// A vehicle's MP when the scenario gives no `printed_mp` (R57).
pub const DEFAULT_VEHICLE_MP: u8 = 12;

/// The MF (MP) a unit has for its MPh (A4.1, A19.31, R57): Personnel per
/// [`crate::a::inexperience::mf_allowance`] (4, 6 with a leader, leaders 6,
/// Inexperienced 3/5, berserk 8); a vehicle its printed MP, or
/// [`DEFAULT_VEHICLE_MP`].
pub fn allowance(state: &GameState, unit: &Unit) -> Mf {
    match &unit.kind {
        UnitKind::Vehicle(v) if v.printed_mp > 0 => Mf::whole(v.printed_mp),
        UnitKind::Vehicle(_) => Mf::whole(DEFAULT_VEHICLE_MP),
        _ => Mf::whole(crate::a::inexperience::mf_allowance(state, unit.id)),
    }
}

/// What entering a hex costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// This many (half) MF.
    Mf(Mf),
    /// Every MF the unit has: only as its first move of the MPh (A4.134 as
    /// R57 reads it).
    All,
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cost::Mf(m) => write!(f, "{m} MF"),
            Cost::All => f.write_str("all its MF"),
        }
    }
}

/// The cost for `unit` to enter `to` from `from` moving in `mode` (R57).
///
/// | terrain of `to` | Infantry, leaders (MF) | vehicles (MP) |
/// |---|---|---|
/// | Open Ground, Orchard | 1 | 1 |
/// | Grain | 1½ | 1 |
/// | Brush, Woods, Marsh | 2 | Brush 2, Woods 4, Marsh 4 |
/// | building | 2 | 4 |
/// | rubble, Crag | 3 | 4 |
/// | Water | all its MF | all its MP |
/// | road (paved or dirt) | as the terrain | ½ |
///
/// Bypass (A4.3) costs as Open Ground; Vehicular Bypass 2 MP; trench
/// movement 1 MF; a Trail Break twice the normal cost (B28.61); a Flail
/// Tank's Mine Clearance all its MP (B28.7).
pub fn cost(map: &Map, unit: &Unit, from: Hex, to: Hex, mode: MoveMode) -> Cost {
    let _ = from;
    let info = map.info(to);
    let vehicle = unit.vehicle().is_some();
    let half = |n: u8| Cost::Mf(Mf(n));
    let normal = if vehicle {
        if info.features.paved_road || info.features.dirt_road {
            half(1)
        } else {
            match info.terrain {
                Terrain::Open | Terrain::Orchard | Terrain::Grain => half(2),
                Terrain::Brush => half(4),
                Terrain::Water => Cost::All,
                _ => half(8),
            }
        }
    } else {
        match info.terrain {
            Terrain::Open | Terrain::Orchard => half(2),
            Terrain::Grain => half(3),
            Terrain::Brush | Terrain::Woods | Terrain::Marsh => half(4),
            Terrain::WoodenBuilding | Terrain::StoneBuilding => half(4),
            Terrain::Rubble | Terrain::StoneRubble | Terrain::Crag => half(6),
            Terrain::Water => Cost::All,
        }
    };
    match mode {
        MoveMode::Normal | MoveMode::TowerStairwell => normal,
        MoveMode::Bypass => half(2),
        MoveMode::VehicularBypass => half(4),
        MoveMode::Trench => half(2),
        MoveMode::TrailBreak => match normal {
            Cost::Mf(m) => Cost::Mf(Mf(m.0.saturating_mul(2))),
            Cost::All => Cost::All,
        },
        MoveMode::FlailClearance => Cost::All,
    }
}

/// MF the unit has spent in the current MPh.
pub fn spent(state: &GameState, unit: UnitId) -> Mf {
    Mf(state.mf_spent.get(&unit).copied().unwrap_or(0))
}

/// The MF (MP) `unit` has left in its side's current MPh, for a client to
/// show; `None` outside its own MPh, or for a unit not in play.
pub fn mf_left(state: &GameState, unit: UnitId) -> Option<Mf> {
    let u = state.unit(unit)?;
    if state.phase != Phase::Movement || state.phasing != u.side || !u.in_play() {
        return None;
    }
    Some(Mf(allowance(state, u)
        .0
        .saturating_sub(spent(state, unit).0)))
}

/// Whether `unit` may pay `cost` now, and what it has spent after: a cost
/// within the MF left, or any cost (even all its MF) as its first move of
/// the MPh (A4.134: a unit may always move one hex). `Err(MF left)`.
pub fn pay(state: &GameState, unit: &Unit, cost: Cost) -> Result<Mf, Mf> {
    let total = allowance(state, unit);
    let used = spent(state, unit.id);
    let left = Mf(total.0.saturating_sub(used.0));
    match cost {
        Cost::Mf(c) if c <= left => Ok(Mf(used.0 + c.0)),
        _ if used.0 == 0 => Ok(total.max(used)),
        _ => Err(left),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_mf_print() {
        assert_eq!(Mf(3).to_string(), "1½");
        assert_eq!(Mf(1).to_string(), "½");
        assert_eq!(Mf::whole(4).to_string(), "4");
    }
}
