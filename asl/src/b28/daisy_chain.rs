//! Daisy Chains (B28.531, DESIGN 3.2).
//!
//! When the SSR allows them, a side holding a Daisy Chain counter that is
//! not publicly used gets a placement opportunity after every enemy
//! movement step in the enemy MPh ([`opportunity`]) and at the end of each
//! of its own friendly fire phases (PFPh, AFPh; [`fire_phase_opportunity`]).
//! Each opportunity opens one sealed note (layer
//! [`crate::model::sealed::Layer::DaisyChain`], location `Opportunity(n)`), whose
//! content is a [`DaisyNote`]: `Nothing` or `Placed { holder, hex }`. Every
//! opportunity is answered, real or null, so the traffic does not tell.
//!
//! Simplification, documented in docs/RULES-ORACLE.md: the referee learns
//! each note at its opportunity (the opponent does not: the placement is a
//! Referee event). DESIGN 3.2 wants lazier reveal (the note opened only
//! when the chain attacks or is seen); the protocol layer keeps the note
//! sealed from the opponent either way.
//!
//! A placed chain is revealed publicly when a Good Order enemy unit has LOS
//! to its hex ([`exposed`], [`reveal_exposed`]); it attacks the first
//! vehicle that enters its hex ([`vehicle_entered`]), or at once if placed
//! in the hex a vehicle just entered, and then ceases to exist.

use crate::board::hex::Hex;
use crate::board::map::Map;
use crate::model::event::{EventKind, Visibility};
use crate::model::phase::Phase;
use crate::model::resolve::{Ctx, Res};
use crate::model::sealed::{Content, DaisyNote, FactRequest, Layer, Location};
use crate::model::state::GameState;
use crate::model::unit::UnitId;
use crate::side::Side;
use serde::{Deserialize, Serialize};

pub use crate::model::state::PlacedDaisy;

/// Events of this rules area.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DaisyEvent {
    /// A Daisy Chain was placed (referee only: "noted on paper", B28.531).
    /// Placement costs no concealment.
    Placed {
        /// Who placed it.
        owner: Side,
        /// The unit that held it.
        holder: UnitId,
        /// Where.
        hex: Hex,
        /// Its A-T factors.
        factors: u8,
        /// The opportunity number.
        opportunity: u32,
    },
    /// A note placed a chain illegally; it is ignored (referee only; the
    /// transcript proves it, G5).
    IllegalPlacement {
        /// The opportunity number.
        opportunity: u32,
        /// Why it is illegal.
        reason: String,
    },
    /// A placed Daisy Chain is revealed: a Good Order enemy unit has LOS to
    /// its hex (B28.531). Presence only; the factors stay sealed until an
    /// attack needs them (R5, R13).
    Revealed {
        /// Whose chain.
        owner: Side,
        /// Where.
        hex: Hex,
        /// The enemy unit that sees it, if the reveal is due to LOS.
        seen_by: Option<UnitId>,
    },
    /// The chain attacks a vehicle that entered its hex (B28.531, B28.51);
    /// the roll and its results follow as minefield events.
    Attacks {
        /// Whose chain.
        owner: Side,
        /// Where.
        hex: Hex,
        /// The vehicle attacked.
        vehicle: UnitId,
        /// The chain's A-T factors.
        factors: u8,
        /// Whether the placement was announced as the vehicle entered.
        immediate: bool,
    },
}

/// Whether the holder's Daisy Chain is publicly known to be gone from it
/// (revealed on the map or expended).
fn publicly_used(state: &GameState, holder: UnitId) -> bool {
    state
        .daisy_chains
        .iter()
        .any(|d| d.holder == holder && (d.revealed || d.attacked))
}

/// Whether `owner` holds a Daisy Chain counter that is not publicly used,
/// on a unit in play: the public condition for an opportunity.
pub fn holds_chain(state: &GameState, owner: Side) -> bool {
    state.units.values().any(|u| {
        u.side == owner && u.in_play() && u.daisy_chain.is_some() && !publicly_used(state, u.id)
    })
}

/// Whether a Daisy Chain of the enemy of `mover` may attack a vehicle of
/// `mover` entering `hex` in the MPh, from public data only (G3, R72): the
/// SSR allows chains, `hex` has a road or bridge to pull one across, and
/// the enemy either has a chain whose use is not public yet (one placed in
/// secret, or still held, even by a unit since eliminated) or a revealed
/// chain lies in `hex` unused.
pub fn may_attack_entering(ctx: &Ctx<'_>, mover: Side, hex: Hex) -> bool {
    if !ctx.scenario.ssr.daisy_chains || ctx.state.phase != Phase::Movement {
        return false;
    }
    let f = ctx.scenario.map.info(hex).features;
    if !(f.paved_road || f.dirt_road || f.bridge) {
        return false;
    }
    let enemy = mover.opponent();
    let unused =
        ctx.scenario.units.iter().any(|u| {
            u.side == enemy && u.daisy_chain.is_some() && !publicly_used(&ctx.state, u.id)
        });
    unused
        || ctx
            .state
            .daisy_chains
            .iter()
            .any(|d| d.owner == enemy && d.hex == hex && d.revealed && !d.attacked)
}

/// The active (not yet attacked) chain in a hex, if the referee knows one:
/// for the mines helper's movement code.
pub fn placed_in(state: &GameState, hex: Hex) -> Option<&PlacedDaisy> {
    state
        .daisy_chains
        .iter()
        .find(|d| d.hex == hex && !d.attacked)
}

/// Opens the next placement opportunity of `owner` and applies its note.
/// `entered`: the hex and vehicles of the enemy step that made the
/// opportunity (for the immediate attack), if any.
fn open_opportunity(ctx: &mut Ctx<'_>, owner: Side, entered: Option<(Hex, &[UnitId])>) -> Res<()> {
    ctx.state.opportunities += 1;
    let n = ctx.state.opportunities;
    let content = ctx.open_one(FactRequest {
        owner,
        layer: Layer::DaisyChain,
        location: Location::Opportunity(n),
    })?;
    let Content::Daisy(DaisyNote::Placed { holder, hex }) = content else {
        return Ok(());
    };
    // The note is input: held under the hex's canonical name (seam hexes).
    let hex = ctx.scenario.map.canonical(hex);
    let factors = match placement_error(ctx, owner, holder, hex) {
        Ok(f) => f,
        Err(reason) => {
            // The owner is told its own note was illegal; never the enemy.
            ctx.emit(
                Visibility::Side(owner),
                EventKind::DaisyChain(DaisyEvent::IllegalPlacement {
                    opportunity: n,
                    reason,
                }),
                &["B28.531", "G5"],
            );
            return Ok(());
        }
    };
    ctx.state.daisy_chains.push(PlacedDaisy {
        owner,
        holder,
        hex,
        factors,
        opportunity: n,
        revealed: false,
        attacked: false,
    });
    // Secret from the enemy (B28.531); its owner sees its own placement.
    ctx.emit(
        Visibility::Side(owner),
        EventKind::DaisyChain(DaisyEvent::Placed {
            owner,
            holder,
            hex,
            factors,
            opportunity: n,
        }),
        &["B28.531"],
    );
    // Placed as a vehicle entered the hex: the roll is immediate (B28.531).
    if let Some((entered_hex, moved)) = entered {
        if entered_hex == hex {
            if let Some(vehicle) = first_trigger(&ctx.state, moved) {
                attack(ctx, hex, vehicle, true)?;
            }
        }
    }
    Ok(())
}

/// Why placing `holder`'s chain in `hex` now is illegal (B28.531), or its
/// factors.
fn placement_error(ctx: &Ctx<'_>, owner: Side, holder: UnitId, hex: Hex) -> Result<u8, String> {
    let state = &ctx.state;
    let Some(u) = state.unit(holder) else {
        return Err(format!("unit {holder} is not in the game"));
    };
    if u.side != owner {
        return Err(format!("{} is not side {owner}'s", u.name));
    }
    let Some(factors) = u.daisy_chain else {
        return Err(format!("{} holds no Daisy Chain", u.name));
    };
    if state.daisy_chains.iter().any(|d| d.holder == holder) {
        return Err(format!("{}'s Daisy Chain is already placed", u.name));
    }
    if u.infantry().is_none() || !u.good_order() || u.status.pinned || u.status.aboard.is_some() {
        return Err(format!(
            "{} is not an unpinned Good Order Infantry unit",
            u.name
        ));
    }
    let Some(at) = u.hex else {
        return Err(format!("{} is not on the map", u.name));
    };
    if !ctx.scenario.map.adjacent(at, hex) {
        return Err(format!("{hex} is not ADJACENT to {} in {at}", u.name));
    }
    // B28.531: the chain is pulled across a road (a bridge carries one).
    let f = ctx.scenario.map.info(hex).features;
    if !(f.paved_road || f.dirt_road || f.bridge) {
        return Err(format!("{hex} has no road to pull a Daisy Chain across"));
    }
    let enemy_mph = state.phase == Phase::Movement && state.phasing != owner;
    let own_fire =
        matches!(state.phase, Phase::PrepFire | Phase::AdvancingFire) && state.phasing == owner;
    if !enemy_mph && !own_fire {
        return Err(format!(
            "{} of side {}'s Player Turn is neither an enemy MPh nor a friendly fire phase",
            state.phase.abbrev(),
            state.phasing
        ));
    }
    Ok(factors)
}

/// The first unit of a moving stack that can set off A-T mines: a vehicle
/// still in play that is not a motorcycle (wagons included, B28.5). A
/// vehicle the hex's own mines just eliminated sets off nothing more
/// (R16, R43).
fn first_trigger(state: &GameState, moved: &[UnitId]) -> Option<UnitId> {
    moved.iter().copied().find(|id| {
        state
            .unit(*id)
            .filter(|u| u.in_play())
            .and_then(|u| u.vehicle())
            .is_some_and(|v| !v.motorcycle)
    })
}

/// The chain in `hex` attacks `vehicle` once, then ceases to exist
/// (B28.531, B28.51).
fn attack(ctx: &mut Ctx<'_>, hex: Hex, vehicle: UnitId, immediate: bool) -> Res<()> {
    let Some(i) = ctx
        .state
        .daisy_chains
        .iter()
        .position(|d| d.hex == hex && !d.attacked)
    else {
        return Ok(());
    };
    let d = ctx.state.daisy_chains[i];
    ctx.state.daisy_chains[i].attacked = true;
    ctx.state.daisy_chains[i].revealed = true;
    ctx.emit(
        Visibility::Public,
        EventKind::DaisyChain(DaisyEvent::Attacks {
            owner: d.owner,
            hex,
            vehicle,
            factors: d.factors,
            immediate,
        }),
        &["B28.531", "B28.51"],
    );
    crate::b28::at_mine::daisy_attack(ctx, vehicle, hex, d.factors)
}

/// Called after every movement step of `moved` into `hex` in the MPh
/// (B28.531): if the SSR allows Daisy Chains and the non-moving side holds
/// a chain not publicly used, that side gets an opportunity. Then any chain
/// a Good Order enemy unit now sees is revealed.
pub fn opportunity(ctx: &mut Ctx<'_>, moved: &[UnitId], hex: Hex) -> Res<()> {
    if !ctx.scenario.ssr.daisy_chains || ctx.state.phase != Phase::Movement {
        return Ok(());
    }
    let mover = ctx.state.phasing;
    let owner = mover.opponent();
    if holds_chain(&ctx.state, owner) {
        open_opportunity(ctx, owner, Some((hex, moved)))?;
    }
    reveal_exposed(ctx);
    Ok(())
}

/// At the end of a friendly fire phase (PFPh, AFPh) of `phasing`'s Player
/// Turn, `phasing` gets a placement opportunity if it holds a chain
/// (B28.531).
pub fn fire_phase_opportunity(ctx: &mut Ctx<'_>, phasing: Side) -> Res<()> {
    if !ctx.scenario.ssr.daisy_chains {
        return Ok(());
    }
    if holds_chain(&ctx.state, phasing) {
        open_opportunity(ctx, phasing, None)?;
    }
    reveal_exposed(ctx);
    Ok(())
}

/// A vehicle entered `hex`: a placed chain of the other side there attacks
/// it (B28.531: once, then it ceases to exist). For the mines helper's
/// movement code, after the entry's minefield attacks.
pub fn vehicle_entered(ctx: &mut Ctx<'_>, vehicle: UnitId, hex: Hex) -> Res<()> {
    let Some(side) = ctx.state.unit(vehicle).map(|u| u.side) else {
        return Ok(());
    };
    if first_trigger(&ctx.state, &[vehicle]).is_none() {
        return Ok(());
    }
    if placed_in(&ctx.state, hex).is_some_and(|d| d.owner != side) {
        attack(ctx, hex, vehicle, false)?;
    }
    Ok(())
}

/// Placed, unrevealed chains that a Good Order enemy unit has LOS to, with
/// the first such unit (B28.531): what the verifier audits ("a Daisy Chain
/// not opened when an enemy unit gained LOS").
pub fn exposed(state: &GameState, map: &Map) -> Vec<(PlacedDaisy, UnitId)> {
    let mut out = Vec::new();
    for d in state
        .daisy_chains
        .iter()
        .filter(|d| !d.revealed && !d.attacked)
    {
        let level = map.info(d.hex).level;
        let seer = state.units.values().find(|u| {
            u.side != d.owner
                && u.good_order()
                && u.status.aboard.is_none()
                && u.hex.is_some_and(|h| {
                    map.same_hex(h, d.hex) || map.has_los(h, map.info(h).level, d.hex, level)
                })
        });
        if let Some(seer) = seer {
            out.push((*d, seer.id));
        }
    }
    out
}

/// Reveals publicly every chain in [`exposed`].
pub fn reveal_exposed(ctx: &mut Ctx<'_>) {
    for (d, seer) in exposed(&ctx.state, &ctx.scenario.map) {
        if let Some(x) = ctx
            .state
            .daisy_chains
            .iter_mut()
            .find(|x| x.opportunity == d.opportunity)
        {
            x.revealed = true;
        }
        ctx.emit(
            Visibility::Public,
            EventKind::DaisyChain(DaisyEvent::Revealed {
                owner: d.owner,
                hex: d.hex,
                seen_by: Some(seer),
            }),
            &["B28.531", "B28.2"],
        );
    }
}
