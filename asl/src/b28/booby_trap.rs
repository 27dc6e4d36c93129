//! Booby Traps (B28.9, R1): capability bought per board with hidden
//! minefield factors, sealed as one leaf per eligible board (layer
//! [`crate::model::sealed::Layer::BoobyTrap`]). Every Task Check calls
//! [`after_task_check`] with its Original DR; the owner's board leaf is
//! opened only when that DR could set off some level (11 or 12), so the
//! referee learns a level only when a rule needs it (G4).

use crate::board::hex::Hex;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{Ctx, Res};
use crate::model::sealed::{BoobyLevel, Content, FactRequest, Layer, Location};
use crate::model::unit::UnitId;
use crate::side::Side;
use serde::{Deserialize, Serialize};

/// Events of this rules area.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoobyTrapEvent {
    /// An Original TC DR of 11 or 12 did not set off a Booby Trap: either
    /// the owner bought none on the board or its level does not trigger on
    /// that DR. Referee only (the level stays sealed from the opponent).
    NotTriggered {
        /// The unit that took the TC.
        unit: UnitId,
        /// Its hex.
        hex: Hex,
        /// The Original TC DR.
        original_dr: u8,
        /// The owner's level on the board, if any.
        level: Option<BoobyLevel>,
    },
    /// A Booby Trap went off in a Location (B28.9).
    Triggered {
        /// The side that placed the Booby Traps.
        owner: Side,
        /// The unit whose TC set it off.
        unit: UnitId,
        /// The Location.
        hex: Hex,
        /// The Original TC DR.
        original_dr: u8,
        /// The level bought on that board.
        level: BoobyLevel,
    },
    /// A unit chosen by Random Selection suffers Casualty Reduction
    /// (B28.9): it may belong to either side.
    Casualty {
        /// The unit Reduced.
        unit: UnitId,
    },
}

/// The lowest Original TC DR any Booby Trap level triggers on (B28.9, R1).
pub const LOWEST_TRIGGER: u8 = 11;

/// Called after every Task Check (not a Sighting TC, E7.3) with its
/// Original DR (B28.9, R1). For a Personnel unit on board N, if the DR is 11
/// or 12 and the other side could have bought Booby Traps on board N, that
/// side's board leaf is opened; if its level triggers on the DR, at least
/// one Personnel unit in the Location (of either side, chosen by Random
/// Selection) is Casualty Reduced. No Sniper is activated by it.
pub fn after_task_check(ctx: &mut Ctx<'_>, unit: UnitId, original_dr: u8) -> Res<()> {
    if original_dr < LOWEST_TRIGGER {
        return Ok(());
    }
    let Some(u) = ctx.state.unit(unit) else {
        return Ok(());
    };
    if !u.is_personnel() || u.status.aboard.is_some() || !u.in_play() {
        return Ok(());
    }
    let Some(hex) = u.hex else { return Ok(()) };
    let owner = u.side.opponent();
    // Only boards where the owner could have bought capability have a leaf
    // (public data, so asking reveals nothing).
    if !ctx.scenario.side(owner).booby_boards().contains(&hex.board) {
        return Ok(());
    }
    let content = ctx.open_one(FactRequest {
        owner,
        layer: Layer::BoobyTrap,
        location: Location::Board(hex.board),
    })?;
    let level = match content {
        Content::BoobyTraps(level) => Some(level),
        _ => None,
    };
    let Some(level) = level.filter(|l| l.triggers_on(original_dr)) else {
        ctx.emit(
            Visibility::Referee,
            EventKind::BoobyTrap(BoobyTrapEvent::NotTriggered {
                unit,
                hex,
                original_dr,
                level,
            }),
            &["B28.9", "R1"],
        );
        return Ok(());
    };
    ctx.emit(
        Visibility::Public,
        EventKind::BoobyTrap(BoobyTrapEvent::Triggered {
            owner,
            unit,
            hex,
            original_dr,
            level,
        }),
        &["B28.9", "R1"],
    );
    // B28.9: Random Selection among all Personnel in the Location, the
    // owner's own units included.
    let candidates: Vec<UnitId> = ctx
        .state
        .units_in(hex)
        .filter(|p| p.is_personnel())
        .map(|p| p.id)
        .collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let chosen = crate::a::random_selection::select(
        ctx,
        &candidates,
        1,
        &format!("Booby Trap Casualty Reduction in {hex}"),
    )?;
    for id in chosen {
        ctx.emit(
            Visibility::Public,
            EventKind::BoobyTrap(BoobyTrapEvent::Casualty { unit: id }),
            &["B28.9"],
        );
        crate::a::morale::casualty_reduce(ctx, id)?;
    }
    Ok(())
}
