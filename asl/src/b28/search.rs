//! Searching for mines (B28.1, B28.47, B28.48; A12.152 as far as B28
//! needs it).
//!
//! Project reading of A12.152 (R30; the rule itself is not in the seeds):
//! a Good Order, unpinned MMC of the phasing side Searches in its own MPh or APh
//! (as `turn::phase_allows` has it), once per phase; it searches its own hex
//! and every ADJACENT hex on the map; the search always succeeds as to
//! minefields (no casualty or success dr is modelled); it counts as the
//! unit's movement for the phase (no MF are tracked). In each searched hex
//! both enemy layers that have a leaf there are opened (A-P, then A-T; hexes
//! in ascending order), presence and type become public and the hex is
//! marked Known-mined, but strength/factors stay sealed (B28.1, B28.48). A
//! Dummy is announced and removed (B28.47); an unmined hex of a multi-hex
//! Known line gets a Dummy marker (B28.47 EXC).

use crate::b28::known;
use crate::b28::minefield::{agreed, emit, leaf_exists, request, FoundBy, MinefieldEvent};
use crate::board::hex::Hex;
use crate::model::event::Visibility;
use crate::model::phase::Phase;
use crate::model::resolve::{refuse, Ctx, Res};
use crate::model::sealed::{Content, Layer};
use crate::model::state::MovedAt;
use crate::model::unit::UnitId;

/// Resolves `Action::Search`.
pub fn resolve(ctx: &mut Ctx<'_>, unit: UnitId) -> Res<()> {
    let Some(u) = ctx.state.unit(unit).cloned() else {
        return refuse(format!("unit {unit} is not in this game"), "A12.152");
    };
    if u.side != ctx.actor {
        return refuse(format!("unit {unit} is not yours"), "A12.152");
    }
    if !matches!(ctx.state.phase, Phase::Movement | Phase::Advance)
        || ctx.state.phasing != ctx.actor
    {
        return refuse("Searching is done in your own MPh or APh", "A12.152");
    }
    if u.infantry().is_none() {
        return refuse(
            format!("only an MMC Searches (B28.1); {unit} is not one"),
            "B28.1",
        );
    }
    if !u.good_order() || u.status.pinned || u.status.aboard.is_some() {
        return refuse(
            format!("{unit} must be Good Order, unpinned and not aboard a vehicle"),
            "A12.152",
        );
    }
    let Some(here) = u.hex.map(|h| ctx.scenario.map.canonical(h)) else {
        return refuse(format!("{} is not on the map", u.name), "A12.152");
    };
    let stamp = MovedAt {
        turn: ctx.state.turn,
        phasing: ctx.state.phasing,
        phase: ctx.state.phase,
    };
    if ctx.state.mines.moved_at.get(&unit) == Some(&stamp) {
        return refuse(
            format!("{} already moved or Searched this phase", u.name),
            "A12.152",
        );
    }
    ctx.state.mines.moved_at.insert(unit, stamp);
    let owner = u.side.opponent();
    let mut hexes: Vec<Hex> = agreed::neighbors(ctx, here);
    hexes.push(here);
    hexes.sort();
    hexes.dedup();
    for hex in hexes {
        let ap = if leaf_exists(ctx, owner, Layer::AntiPersonnel, hex) {
            Some(ctx.open_one(request(owner, Layer::AntiPersonnel, hex))?)
        } else {
            None
        };
        let at = if leaf_exists(ctx, owner, Layer::AntiTank, hex) {
            Some(ctx.open_one(request(owner, Layer::AntiTank, hex))?)
        } else {
            None
        };
        let mut mined = false;
        match ap {
            Some(Content::ApMines(_)) => {
                mined = true;
                found(ctx, hex, owner, Layer::AntiPersonnel);
            }
            Some(Content::Dummy) => known::dummy_found(ctx, owner, hex, FoundBy::Search),
            _ => {}
        }
        if let Some(Content::AtMines(_)) = at {
            mined = true;
            found(ctx, hex, owner, Layer::AntiTank);
        }
        let m = ctx.state.markers(hex);
        if !mined && m.known_line && m.known_counter == Some(owner) {
            // B28.47 EXC: an unmined hex of a multi-hex Known line.
            known::dummy_found(ctx, owner, hex, FoundBy::Search);
        }
    }
    Ok(())
}

fn found(ctx: &mut Ctx<'_>, hex: Hex, owner: crate::side::Side, layer: Layer) {
    known::mark_found(ctx, hex, layer);
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::SearchFound { hex, owner, layer },
        &["B28.1", "B28.48", "A12.152"],
    );
}
