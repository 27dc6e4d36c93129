//! Movement one hex at a time: Move (MPh), Rout (RtPh), Advance (APh) and
//! Disembark/Bail Out (B28.43), with the minefield attacks a step causes.
//!
//! A step (B28.412): the exit attack(s) of the hex left; only units still
//! able to move (not broken, pinned, eliminated or immobilized by it) leave
//! and enter the new hex; then its entry attack(s). Entry-hex facts are
//! asked only if a unit really enters (G4). After a step in the MPh the
//! enemy gets a Daisy Chain placement opportunity.
//!
//! A Move in the MPh spends Movement Factors (A4,
//! [`crate::a::movement_factors`], R57): a step costing more than the MF
//! left is refused before anything is asked. The TB double cost (B28.61)
//! is the declared [`MoveMode::TrailBreak`], and the Flail Tank's whole-MP
//! entry is [`MoveMode::FlailClearance`] (one clearance hex per MPh,
//! declared before the tank moved). Rout, Advance and Disembark spend no MF
//! here.

use crate::a::movement_factors as mf;
use crate::b28::at_mine;
use crate::b28::minefield::{self, Crossing};
use crate::b28::trail_break;
use crate::board::hex::Hex;
use crate::model::action::MoveMode;
use crate::model::event::{EventKind, Visibility};
use crate::model::phase::Phase;
use crate::model::resolve::{each_unit_once, refuse, Ctx, Res};
use crate::model::state::{FlailClearance, MovedAt};
use crate::model::unit::{Unit, UnitId, UnitKind};
use serde::{Deserialize, Serialize};

/// Which kind of movement a step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MoveKind {
    /// Movement in the MPh.
    Move,
    /// Rout in the RtPh (B28.413).
    Rout,
    /// Advance in the APh.
    Advance,
    /// PRC leaving a vehicle into its hex (B28.43).
    Disembark,
}

/// Why units did not leave their hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StayReason {
    /// Broken, pinned, immobilized or eliminated by the exit attack
    /// (B28.412).
    ExitAttack,
}

/// Movement events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveEvent {
    /// Units entered `to` from `from`.
    Moved {
        /// Movement kind.
        kind: MoveKind,
        /// The units that entered.
        units: Vec<UnitId>,
        /// The hex left.
        from: Hex,
        /// The hex entered.
        to: Hex,
        /// How they moved.
        mode: MoveMode,
    },
    /// Units meant to move did not leave their hex (B28.412).
    Stayed {
        /// The units.
        units: Vec<UnitId>,
        /// Where they stay.
        hex: Hex,
        /// Why.
        reason: StayReason,
    },
    /// PRC left a vehicle into its hex (B28.43).
    Disembarked {
        /// The vehicle.
        vehicle: UnitId,
        /// The units that left it.
        units: Vec<UnitId>,
        /// The hex.
        hex: Hex,
    },
    /// A fully-tracked AFV's path through a minefield hex is marked with a
    /// Trail Break (B28.61).
    TrailBreakPlaced {
        /// The minefield hex.
        hex: Hex,
        /// The hexes across the two hexsides the TB joins.
        ends: [Hex; 2],
    },
    /// A Flail Tank declared Mine Clearance and entered a hex (B28.7).
    FlailEntered {
        /// The tank.
        unit: UnitId,
        /// The hex.
        hex: Hex,
    },
    /// A Flail Tank's flail was destroyed by entering a building/woods
    /// obstacle without a road or TB (B28.72).
    FlailBroken {
        /// The tank.
        unit: UnitId,
        /// The hex.
        hex: Hex,
    },
}

fn emit(ctx: &mut Ctx<'_>, e: MoveEvent, cite: &[&str]) {
    ctx.emit(Visibility::Public, EventKind::Move(e), cite);
}

/// Checks the units of a step and returns the hex they are in (all the
/// same). Refusals here come before any fact is asked (G3).
fn check_units(ctx: &Ctx<'_>, units: &[UnitId], cite: &str) -> Res<(Hex, Vec<Unit>)> {
    if units.is_empty() {
        return refuse("no units given", cite);
    }
    each_unit_once(units, cite)?;
    let mut out = Vec::new();
    let mut hex = None;
    for id in units {
        let Some(u) = ctx.state.unit(*id) else {
            return refuse(format!("unit {id} is not in this game"), cite);
        };
        if u.side != ctx.actor {
            return refuse(
                format!("unit {id} belongs to side {}, not {}", u.side, ctx.actor),
                cite,
            );
        }
        if !u.in_play() {
            return refuse(format!("unit {id} is not in play"), cite);
        }
        if u.status.aboard.is_some() {
            return refuse(format!("unit {id} is aboard a vehicle"), cite);
        }
        let Some(h) = u.hex else {
            return refuse(format!("unit {id} is not on the map"), cite);
        };
        if *hex.get_or_insert(h) != h {
            return refuse(
                format!("unit {id} is not in the same hex as the others"),
                cite,
            );
        }
        out.push(u.clone());
    }
    let hex = ctx.scenario.map.canonical(hex.expect("units is not empty"));
    Ok((hex, out))
}

/// Checks the hex entered and returns its canonical name.
fn check_to(ctx: &Ctx<'_>, from: Hex, to: Hex, cite: &str) -> Res<Hex> {
    if !ctx.scenario.map.contains(to) {
        return refuse(format!("{to} is not on the map"), cite);
    }
    if !ctx.scenario.map.adjacent(from, to) {
        let around: Vec<String> = ctx
            .scenario
            .map
            .neighbors(from)
            .iter()
            .map(|h| h.to_string())
            .collect();
        return refuse(
            format!(
                "{to} is not ADJACENT to {from}; a unit moves one hex at a time, to one of {}",
                around.join(", ")
            ),
            cite,
        );
    }
    Ok(ctx.scenario.map.canonical(to))
}

/// R75 (ruleset version 3): no unit moves, advances or routs into a hex
/// holding an enemy unit. Entering an enemy Location leads to Close Combat
/// (A11), Overrun (D7) or is forbidden to a router (A10.5); none of these
/// is in the seeds nor modelled here, so it is refused rather than allowed
/// without its rules. Public data only: unit positions are public.
fn check_enemy_free(ctx: &Ctx<'_>, to: Hex, cite: &str) -> Res<()> {
    if !ctx.scenario.since(3) {
        return Ok(());
    }
    let actor = ctx.actor;
    if let Some(e) = ctx.state.units_in(to).find(|u| u.side != actor) {
        return refuse(
            format!(
                "{to} holds enemy unit {} ({}): entering an enemy-occupied Location (Close Combat, Overrun) is not adjudicated (R75)",
                e.id, e.name
            ),
            cite,
        );
    }
    Ok(())
}

fn moved_this_phase(ctx: &Ctx<'_>, id: UnitId) -> bool {
    ctx.state.mines.moved_at.get(&id)
        == Some(&MovedAt {
            turn: ctx.state.turn,
            phasing: ctx.state.phasing,
            phase: ctx.state.phase,
        })
}

/// Checks the declared movement mode against public facts (B28.44, B28.61,
/// B28.7).
fn check_mode(ctx: &Ctx<'_>, units: &[Unit], from: Hex, to: Hex, mode: MoveMode) -> Res<()> {
    let map = &ctx.scenario.map;
    match mode {
        MoveMode::Normal | MoveMode::Bypass => Ok(()),
        MoveMode::Trench => {
            if map.info(from).features.trench && map.info(to).features.trench {
                Ok(())
            } else {
                refuse(
                    format!("Trench movement needs a trench in both {from} and {to}"),
                    "B28.44",
                )
            }
        }
        MoveMode::TowerStairwell => {
            if map.info(from).features.tower || map.info(to).features.tower {
                Ok(())
            } else {
                refuse(
                    format!("no Tower in {from} or {to} to use its stairwell"),
                    "B28.44",
                )
            }
        }
        MoveMode::TrailBreak => {
            if trail_break::crosses(&ctx.state, to, from) {
                Ok(())
            } else {
                refuse(
                    format!("no Trail Break in {to} crosses the hexside from {from}"),
                    "B28.61",
                )
            }
        }
        MoveMode::VehicularBypass => {
            if units.iter().all(|u| u.vehicle().is_some()) {
                Ok(())
            } else {
                refuse("only vehicles use Vehicular Bypass Movement", "B28.61")
            }
        }
        MoveMode::FlailClearance => {
            let [u] = units else {
                return refuse("a Flail Tank clears mines alone", "B28.7");
            };
            let Some(v) = u.vehicle() else {
                return refuse(format!("{} is not a vehicle", u.id), "B28.7");
            };
            if !v.flail {
                return refuse(format!("{} has no working flail (B28.72)", u.id), "B28.7");
            }
            if moved_this_phase(ctx, u.id) {
                return refuse(
                    format!(
                        "{} must declare Mine Clearance at the start of its MPh, before moving",
                        u.id
                    ),
                    "B28.7",
                );
            }
            Ok(())
        }
    }
}

/// Resolves `Action::Move` (MPh).
pub fn resolve_move(ctx: &mut Ctx<'_>, units: &[UnitId], to: Hex, mode: MoveMode) -> Res<()> {
    if ctx.state.phase != Phase::Movement || ctx.state.phasing != ctx.actor {
        return refuse("units move only in their own MPh", "A4");
    }
    let (from, list) = check_units(ctx, units, "A4")?;
    let to = check_to(ctx, from, to, "A4")?;
    check_enemy_free(ctx, to, "A4")?;
    for u in &list {
        if u.status.broken || u.status.pinned {
            return refuse(format!("unit {} is broken or pinned", u.id), "A4");
        }
        if u.vehicle().is_some_and(|v| v.immobilized) {
            return refuse(format!("vehicle {} is immobilized", u.id), "B28.42");
        }
        if let Some(f) = ctx.state.mines.flail_clearances.get(&u.id) {
            if f.turn == ctx.state.turn {
                return refuse(
                    format!("Flail Tank {} spent its whole MP on Mine Clearance", u.id),
                    "B28.7",
                );
            }
        }
    }
    check_mode(ctx, &list, from, to, mode)?;
    spend_mf(ctx, &list, from, to, mode)?;
    step(ctx, MoveKind::Move, units, from, to, mode)
}

/// Every moving unit pays the MF (MP) of the step (A4.1, R57), or the move
/// is refused naming the unit, the cost and its MF left.
fn spend_mf(ctx: &mut Ctx<'_>, units: &[Unit], from: Hex, to: Hex, mode: MoveMode) -> Res<()> {
    let mut spent = Vec::new();
    for u in units {
        let cost = mf::cost(&ctx.scenario.map, u, from, to, mode);
        match mf::pay(&ctx.state, u, cost) {
            Ok(total) => spent.push((u.id, total)),
            Err(left) => {
                let terrain = ctx.scenario.map.info(to).terrain;
                let pts = if u.vehicle().is_some() { "MP" } else { "MF" };
                let cost = cost.to_string().replace("MF", pts);
                return refuse(
                    format!(
                        "{} cannot enter {to} ({terrain}): it costs {cost} and it has {left} {pts} left",
                        u.name
                    ),
                    "A4.1, R57",
                );
            }
        }
    }
    for (id, total) in spent {
        ctx.state.mf_spent.insert(id, total.0);
    }
    Ok(())
}

/// Resolves `Action::Rout` (RtPh, B28.413).
pub fn resolve_rout(ctx: &mut Ctx<'_>, unit: UnitId, to: Hex) -> Res<()> {
    if ctx.state.phase != Phase::Rout {
        return refuse("units rout only in the RtPh", "A10.5");
    }
    let (from, list) = check_units(ctx, &[unit], "A10.5")?;
    let to = check_to(ctx, from, to, "A10.5")?;
    check_enemy_free(ctx, to, "A10.5")?;
    if !list[0].status.broken || !list[0].is_personnel() {
        return refuse(
            format!("unit {unit} is not a broken Personnel unit"),
            "A10.5",
        );
    }
    step(ctx, MoveKind::Rout, &[unit], from, to, MoveMode::Normal)
}

/// Resolves `Action::Advance` (APh).
pub fn resolve_advance(ctx: &mut Ctx<'_>, units: &[UnitId], to: Hex) -> Res<()> {
    if ctx.state.phase != Phase::Advance || ctx.state.phasing != ctx.actor {
        return refuse("units advance only in their own APh", "A4.7");
    }
    let (from, list) = check_units(ctx, units, "A4.7")?;
    let to = check_to(ctx, from, to, "A4.7")?;
    check_enemy_free(ctx, to, "A4.7")?;
    for u in &list {
        if !u.is_personnel() || u.status.broken || u.status.pinned {
            return refuse(
                format!("unit {} is not unbroken, unpinned Personnel", u.id),
                "A4.7",
            );
        }
    }
    step(ctx, MoveKind::Advance, units, from, to, MoveMode::Normal)
}

/// Resolves `Action::Disembark` (B28.43): the PRC leave the vehicle into
/// its hex and are attacked by A-P mines there as if entering it.
pub fn resolve_disembark(ctx: &mut Ctx<'_>, vehicle: UnitId, units: &[UnitId]) -> Res<()> {
    let Some(v) = ctx.state.unit(vehicle).cloned() else {
        return refuse(format!("vehicle {vehicle} is not in this game"), "B28.43");
    };
    if v.side != ctx.actor {
        return refuse(format!("vehicle {vehicle} is not yours"), "B28.43");
    }
    let Some(hex) = v.hex.map(|h| ctx.scenario.map.canonical(h)) else {
        return refuse(format!("vehicle {vehicle} is not on the map"), "B28.43");
    };
    let UnitKind::Vehicle(data) = &v.kind else {
        return refuse(format!("{vehicle} is not a vehicle"), "B28.43");
    };
    if units.is_empty() {
        return refuse("no units given", "B28.43");
    }
    each_unit_once(units, "B28.43")?;
    for id in units {
        let aboard = data.passengers.contains(id) || data.riders.contains(id);
        let ok = ctx
            .state
            .unit(*id)
            .is_some_and(|u| u.in_play() && u.status.aboard == Some(vehicle));
        if !aboard || !ok {
            return refuse(format!("unit {id} is not aboard {vehicle}"), "B28.43");
        }
    }
    for id in units {
        if let Some(u) = ctx.state.units.get_mut(id) {
            u.status.aboard = None;
            u.hex = Some(hex);
        }
    }
    if let Some(UnitKind::Vehicle(d)) = ctx.state.units.get_mut(&vehicle).map(|u| &mut u.kind) {
        d.passengers.retain(|p| !units.contains(p));
        d.riders.retain(|p| !units.contains(p));
    }
    emit(
        ctx,
        MoveEvent::Disembarked {
            vehicle,
            units: units.to_vec(),
            hex,
        },
        &["B28.43"],
    );
    // B28.43: attacked as if entering the hex for the first time; A-P only,
    // they are Personnel.
    minefield::crossing_attacks(ctx, units, hex, hex, MoveMode::Normal, Crossing::Entry)
}

/// Whether a unit can still leave its hex after the exit attack (B28.412).
fn still_able(u: &Unit, kind: MoveKind) -> bool {
    if !u.in_play() {
        return false;
    }
    match &u.kind {
        UnitKind::Vehicle(v) => !v.immobilized,
        // B28.413, R29: a router is already broken; only elimination
        // stops it (a squad Reduced to a broken HS may go on).
        _ if kind == MoveKind::Rout => true,
        _ => !u.status.broken && !u.status.pinned,
    }
}

/// One step of a group of units from `from` into the ADJACENT `to`.
fn step(
    ctx: &mut Ctx<'_>,
    kind: MoveKind,
    units: &[UnitId],
    from: Hex,
    to: Hex,
    mode: MoveMode,
) -> Res<()> {
    // Before any fact is asked: what the step's attacks could need (R72,
    // ruleset version 3), or, before it, the Aerial AF of R4.
    if ctx.scenario.since(3) {
        crate::b28::data_needs::check_step(ctx, kind, units, from, to)?;
    } else {
        for id in units {
            if let Some(u) = ctx.state.unit(*id).cloned() {
                at_mine::check_aerial_af(ctx, &u, &[from, to])?;
            }
        }
    }
    let stamp = MovedAt {
        turn: ctx.state.turn,
        phasing: ctx.state.phasing,
        phase: ctx.state.phase,
    };
    for id in units {
        ctx.state.mines.moved_at.insert(*id, stamp);
    }
    // The entry's leaf asked with the exit's roll when the exit cannot
    // attack (one round trip less; the rules' order of effects is kept).
    let some_able = units
        .iter()
        .any(|id| ctx.state.unit(*id).is_some_and(|u| still_able(u, kind)));
    minefield::open_entry_first(ctx, units, from, to, mode, some_able)?;
    // B28.412: the exit attack first, while the units are still in `from`.
    minefield::crossing_attacks(ctx, units, from, to, mode, Crossing::Exit)?;
    let (going, staying): (Vec<UnitId>, Vec<UnitId>) = units
        .iter()
        .partition(|id| ctx.state.unit(**id).is_some_and(|u| still_able(u, kind)));
    let staying: Vec<UnitId> = staying
        .into_iter()
        .filter(|id| ctx.state.unit(*id).is_some_and(|u| u.in_play()))
        .collect();
    if !staying.is_empty() {
        emit(
            ctx,
            MoveEvent::Stayed {
                units: staying,
                hex: from,
                reason: StayReason::ExitAttack,
            },
            &["B28.412"],
        );
    }
    if going.is_empty() {
        return Ok(());
    }
    // B28.61: a fully-tracked AFV (not using VBM) leaving a hex marked as
    // mined shows its path there with a TB.
    for id in &going {
        place_tb_on_exit(ctx, *id, from, to, mode);
    }
    for id in &going {
        move_unit(ctx, *id, from, to);
    }
    emit(
        ctx,
        MoveEvent::Moved {
            kind,
            units: going.clone(),
            from,
            to,
            mode,
        },
        &["B28.412"],
    );
    if mode == MoveMode::FlailClearance {
        let id = going[0];
        ctx.state.mines.flail_clearances.insert(
            id,
            FlailClearance {
                turn: ctx.state.turn,
                hex: to,
                from,
            },
        );
        emit(
            ctx,
            MoveEvent::FlailEntered { unit: id, hex: to },
            &["B28.7"],
        );
    }
    check_flail_breakdown(ctx, &going, from, to, mode);
    minefield::crossing_attacks(ctx, &going, to, from, mode, Crossing::Entry)?;
    if kind == MoveKind::Move {
        // B28.531: a placed Daisy Chain in the hex attacks a vehicle that
        // entered it; then the enemy's placement opportunity.
        for id in &going {
            let vehicle_in_play = ctx
                .state
                .unit(*id)
                .is_some_and(|u| u.in_play() && u.vehicle().is_some());
            if vehicle_in_play {
                crate::b28::daisy_chain::vehicle_entered(ctx, *id, to)?;
            }
        }
        crate::b28::daisy_chain::opportunity(ctx, &going, to)?;
    }
    Ok(())
}

/// Moves a unit (and whoever is aboard it) into `to`.
fn move_unit(ctx: &mut Ctx<'_>, id: UnitId, from: Hex, to: Hex) {
    let aboard = crate::b28::prc::aboard(ctx, id);
    for a in aboard.iter().chain(std::iter::once(&id)) {
        if let Some(u) = ctx.state.units.get_mut(a) {
            u.hex = Some(to);
        }
    }
    ctx.state.mines.entered_from.insert(id, from);
}

fn place_tb_on_exit(ctx: &mut Ctx<'_>, id: UnitId, from: Hex, to: Hex, mode: MoveMode) {
    if mode == MoveMode::VehicularBypass || !ctx.state.markers(from).shows_mines() {
        return;
    }
    let fully_tracked_afv = ctx.state.unit(id).is_some_and(|u| {
        u.vehicle()
            .is_some_and(|v| v.fully_tracked && v.hull.is_some())
    });
    if !fully_tracked_afv {
        return;
    }
    let Some(came_from) = ctx.state.mines.entered_from.get(&id).copied() else {
        return;
    };
    if !ctx.scenario.map.adjacent(came_from, from) {
        return;
    }
    if trail_break::place(&mut ctx.state, from, came_from, to) {
        let mut ends = [came_from, to];
        ends.sort();
        emit(
            ctx,
            MoveEvent::TrailBreakPlaced { hex: from, ends },
            &["B28.61"],
        );
    }
}

/// B28.72: a Flail Tank entering a building/woods obstacle without a road
/// or TB loses its flail.
fn check_flail_breakdown(ctx: &mut Ctx<'_>, going: &[UnitId], from: Hex, to: Hex, mode: MoveMode) {
    let info = ctx.scenario.map.info(to);
    let road = info.features.paved_road || info.features.dirt_road;
    let via_tb = mode == MoveMode::TrailBreak && trail_break::crosses(&ctx.state, to, from);
    if !minefield::is_flail_obstacle(info.terrain) || road || via_tb {
        return;
    }
    for id in going {
        let broke = match ctx.state.units.get_mut(id).map(|u| &mut u.kind) {
            Some(UnitKind::Vehicle(v)) if v.flail => {
                v.flail = false;
                true
            }
            _ => false,
        };
        if broke {
            emit(
                ctx,
                MoveEvent::FlailBroken { unit: *id, hex: to },
                &["B28.72"],
            );
        }
    }
}
