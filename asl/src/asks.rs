//! What the rules may ask of an owner during an action, from the public
//! state one side knows (issue 24, [`hexveil_core::Observer`]).
//!
//! An [`AslObserver`] is one side's [`PublicState`], folded from what that
//! side was shown (both public setups, every declared action, the public
//! events and its own side's, G3), and [`AslObserver::bound`] reads from it
//! every sealed fact the engine can ask while one action is resolved,
//! whatever the other side's secrets and whatever dice come. Each case
//! follows the engine's code, which it names:
//!
//! | action | what may be asked |
//! |---|---|
//! | `Move`, `Rout`, `Advance` (a step from F to T) | of each side whose mines may attack the movers (the enemy; from version 3 also their own side where [`minefield::may_attack`] allows, R74): the A-P leaf of F and of T where a mover is not exempt from that crossing (B28.41, B28.412, B28.44, B28.61, B28.7) and the enemy has one; the A-T leaf where a vehicle that sets off A-T mines is not exempt (B28.5, B28.51); both where the hex is on the enemy's arrowed Known line (B28.46, B28.47); the enemy's Booby Trap board of F or T where exposed Personnel may take the PTC of an A-P attack there (B28.9); from version 3, where a mover carries Passengers or Riders, what their Bail Out into F or T may ask (B28.43, R71); after a Move step, one Daisy Chain opportunity of the non-phasing side if it holds a chain not publicly used (B28.531, R19) |
//! | `Disembark` | the A-P leaf (and on a Known line the A-T leaf) of the vehicle's hex, the Booby Trap board there (B28.43, B28.9) |
//! | `Search` | the enemy's A-P and A-T leaves of the searcher's hex and every ADJACENT hex (A12.152, R30, B28.1, B28.47, B28.48) |
//! | `Ffe` | both sides' A-P and A-T leaves of the hex (B28.62, on an Original K or KIA) |
//! | `Fire` | the actor's Booby Trap board of the target hex, if enemy Personnel there may take a PTC (A7.305, B28.9) |
//! | `OrdnanceFire` | as `Fire` on the Infantry Target Type (C3.32); on the Area Target Type also the enemy's board, for the actor's own Personnel there (C3.33); nothing on the Vehicle Target Type or with WP, whose hits take no Task Check (C3.31, R65, A24.31) |
//! | `EndPhase` | ending the MPh: the A-T leaf of every hex where a full-view clearance was declared (B28.53); ending the PFPh or AFPh: one Daisy Chain opportunity of the phasing side if it holds a chain (B28.531); ending the CCPh: the A-T leaf under every Flail Tank clearing mines this Player Turn (B28.71) |
//! | `DummyDr` | a Secret dr (B28.47) |
//! | `ClearFullViewMines`, `InfantryClearance`, `ChangeCa`, `ChooseCa`, `Concede` | nothing |
//!
//! Where a leaf's existence is the question the bound asks the engine's
//! own public test ([`crate::b28::minefield::leaf_exists`]: setup area,
//! terrain, the owner's Known counters and A-T mines in full view), on the
//! state before the action: markers only lose counters during play, so
//! the leaves that exist then are all the action can ask. A leaf the
//! referee already holds is not asked again (`Ctx::open`) but stays in
//! the bound: the owner's client may refuse nothing the engine asks.
//!
//! What the other side's secrets decide, the bound takes in whole: which
//! units still enter T after the exit attack (the mines of F and the
//! dice), whether an enemy Daisy Chain the viewer never saw lies in T (it
//! asks no fact of the viewer: the Passengers and Riders it may attack are
//! aboard, and a unit aboard takes no Booby Trap check, B28.9), which
//! holder placed an enemy chain that was revealed (its holder is sealed,
//! so a side bounding the other side's notes counts every holder as still
//! holding one). No rule of this ruleset makes what is asked of an owner
//! depend on a fact that owner does not know, other than the dice and
//! the other side's sealed facts, over which the bound is the union.

use crate::b28::daisy_chain::holds_chain;
use crate::b28::minefield::{self, Crossing};
use crate::board::hex::Hex;
use crate::model::action::{Action, MoveMode, TargetType};
use crate::model::resolve::Ctx;
use crate::model::scenario::Scenario;
use crate::model::sealed::{FactRequest, Layer, Location};
use crate::model::state::GameState;
use crate::model::unit::{Ammo, Unit, UnitId};
use crate::public_state::PublicState;
use crate::side::Side;
use crate::turn::Phase;
use hexveil_core as kernel;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One side's picture of an ASL game: what it was shown, folded
/// ([`PublicState`]), and the bound of what the rules may ask of an owner
/// from it.
#[derive(Clone, Debug)]
pub struct AslObserver {
    viewer: Side,
    public: PublicState,
}

/// A fresh observer of a game of `scenario` for `viewer`, before any
/// setup ([`kernel::Scenario::observer`]).
pub fn observer(scenario: &crate::ruleset::AslScenario, viewer: Side) -> Box<dyn kernel::Observer> {
    Box::new(AslObserver::new(Arc::clone(&scenario.scenario), viewer))
}

/// What the rules may ask of either owner while one action is resolved
/// (ASL's typed form of [`kernel::Asks`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    /// Leaves of the sealed layouts (A-P, A-T, Booby Traps), by owner.
    pub leaves: BTreeSet<FactRequest>,
    /// At most how many Daisy Chain opportunities of each side (B28.531).
    pub notes: BTreeMap<Side, u32>,
    /// Whether a Secret dr may be rolled (B28.47).
    pub secret_roll: bool,
}

impl Bound {
    fn leaf(&mut self, owner: Side, layer: Layer, hex: Hex) {
        self.leaves.insert(minefield::request(owner, layer, hex));
    }

    /// The Booby Trap leaf of `owner`'s board of `hex`, if the owner could
    /// buy Booby Traps on that board (B28.9: only those boards have one).
    fn booby(&mut self, scenario: &Scenario, owner: Side, hex: Hex) {
        if scenario.side(owner).booby_boards().contains(&hex.board) {
            self.leaves.insert(FactRequest {
                owner,
                layer: Layer::BoobyTrap,
                location: Location::Board(hex.board),
            });
        }
    }

    fn note(&mut self, owner: Side) {
        *self.notes.entry(owner).or_default() += 1;
    }

    /// The kernel's form, for one owner.
    pub fn of(&self, owner: Side) -> kernel::Asks {
        let mut asks = kernel::Asks::none();
        for r in self.leaves.iter().filter(|r| r.owner == owner) {
            asks.add(r.layer.to_kernel(), r.location.to_kernel());
        }
        asks.notes = self.notes.get(&owner).copied().unwrap_or(0);
        asks.secret_roll = self.secret_roll;
        asks
    }
}

impl AslObserver {
    /// An observer for `viewer`, before any setup.
    pub fn new(scenario: Arc<Scenario>, viewer: Side) -> AslObserver {
        AslObserver {
            viewer,
            public: PublicState::new(scenario),
        }
    }

    /// An observer for `viewer` of a game that starts from the engine state
    /// `state` (the soak tests, the rules oracle): it knows what `viewer`
    /// may know of it ([`crate::public_state::public_part`]).
    pub fn starting_at(scenario: Arc<Scenario>, viewer: Side, state: &GameState) -> AslObserver {
        let known = crate::public_state::public_part(state, Some(viewer));
        AslObserver {
            viewer,
            public: PublicState::starting_at(scenario, known),
        }
    }

    /// The side whose picture it is.
    pub fn viewer(&self) -> Side {
        self.viewer
    }

    /// The picture folded so far.
    pub fn public(&self) -> &PublicState {
        &self.public
    }

    /// Every sealed fact of either side, Daisy Chain opportunity and
    /// Secret dr the engine can ask while resolving `action` declared by
    /// `actor` from this state (see the module doc).
    pub fn bound(&self, actor: Side, action: &Action) -> Bound {
        let scenario = self.public.scenario();
        let action = action.clone().canonical(&scenario.map);
        let ctx = Ctx::new(scenario, self.public.state().clone(), actor, &[], &[]);
        let mut b = Bound::default();
        match &action {
            Action::Move { units, to, mode } => step(&ctx, &mut b, units, *to, *mode, true),
            Action::Rout { unit, to } => step(&ctx, &mut b, &[*unit], *to, MoveMode::Normal, false),
            Action::Advance { units, to } => {
                step(&ctx, &mut b, units, *to, MoveMode::Normal, false)
            }
            Action::Disembark { vehicle, units } => disembark(&ctx, &mut b, *vehicle, units),
            Action::Search { unit } => search(&ctx, &mut b, *unit),
            Action::Ffe { hex, .. } => {
                for owner in [Side::A, Side::B] {
                    for layer in [Layer::AntiPersonnel, Layer::AntiTank] {
                        if minefield::leaf_exists(&ctx, owner, layer, *hex) {
                            b.leaf(owner, layer, *hex);
                        }
                    }
                }
            }
            Action::Fire { target, .. } => {
                if personnel_of(&ctx.state, *target, |s| s != actor) {
                    b.booby(scenario, actor, *target);
                }
            }
            Action::OrdnanceFire {
                target,
                target_type,
                ammo,
                ..
            } => ordnance(&ctx, &mut b, *target, *target_type, *ammo),
            Action::EndPhase => end_phase(&ctx, &mut b),
            Action::DummyDr => b.secret_roll = true,
            Action::ClearFullViewMines { .. }
            | Action::InfantryClearance { .. }
            | Action::ChangeCa { .. }
            | Action::ChooseCa { .. }
            | Action::Concede => {}
        }
        b
    }
}

/// Whether Personnel of a side `side_ok` accepts are in play in `hex`, not
/// aboard: the units an attack on the Location hits (A7.3, C3.32).
fn personnel_of(state: &GameState, hex: Hex, side_ok: impl Fn(Side) -> bool) -> bool {
    state
        .units_in(hex)
        .any(|u| side_ok(u.side) && u.is_personnel())
}

/// A step of `units` into `to` (b28::movement::step): the exit crossing of
/// each mover's hex and the entry crossing of `to`, then after a Move the
/// non-phasing side's Daisy Chain opportunity.
fn step(ctx: &Ctx<'_>, b: &mut Bound, units: &[UnitId], to: Hex, mode: MoveMode, is_move: bool) {
    // The engine refuses a stack spread over several hexes before asking
    // anything; grouping by hex keeps the bound whole whatever it names.
    let mut groups: BTreeMap<(Hex, Side), Vec<&Unit>> = BTreeMap::new();
    for id in units {
        let Some(u) = ctx.state.unit(*id) else {
            continue;
        };
        if !u.in_play() || u.status.aboard.is_some() {
            continue;
        }
        if let Some(h) = u.hex {
            groups
                .entry((ctx.scenario.map.canonical(h), u.side))
                .or_default()
                .push(u);
        }
    }
    for ((from, side), movers) in &groups {
        crossing(ctx, b, movers, *from, to, mode, Crossing::Exit, *side);
        crossing(ctx, b, movers, to, *from, mode, Crossing::Entry, *side);
        // R71 (version 3): the Passengers and Riders of a vehicle the
        // exit's or the entry's mines (or a Daisy Chain there) eliminate
        // Bail Out and are attacked as entering its hex, whatever the
        // vehicle's own exemptions.
        for v in movers.iter().filter(|u| u.vehicle().is_some()) {
            if ctx.scenario.since(3) && !crate::b28::prc::aboard(ctx, v.id).is_empty() {
                bail_out(ctx, b, *from, *side);
                bail_out(ctx, b, to, *side);
            }
        }
    }
    // B28.531: the enemy of the phasing side may place a chain after any
    // step of the MPh (b28::daisy_chain::opportunity).
    let owner = ctx.state.phasing.opponent();
    if is_move
        && ctx.scenario.ssr.daisy_chains
        && ctx.state.phase == Phase::Movement
        && holds_chain(&ctx.state, owner)
    {
        b.note(owner);
    }
}

/// One crossing of `mine_hex` by movers of side `mover`
/// (b28::minefield::crossing_attacks): what the movers not exempt from it
/// may open of each attacking owner's there (the enemy's, and from version
/// 3 the movers' own side's, R74: [`minefield::attacking_owners`],
/// [`minefield::may_attack`]), and the enemy's Booby Trap board where an
/// A-P attack may give Personnel a PTC (B28.9: the placer's own units are
/// exempt, so the board asked is always the enemy's).
#[allow(clippy::too_many_arguments)]
fn crossing(
    ctx: &Ctx<'_>,
    b: &mut Bound,
    movers: &[&Unit],
    mine_hex: Hex,
    other: Hex,
    mode: MoveMode,
    crossing: Crossing,
    mover: Side,
) {
    let exposed: Vec<&&Unit> = movers
        .iter()
        .filter(|u| minefield::exemption(ctx, u, mine_hex, other, mode, crossing).is_none())
        .collect();
    if exposed.is_empty() {
        return;
    }
    let personnel = exposed.iter().any(|u| u.is_personnel());
    let sets_off_at = exposed.iter().any(|u| {
        crate::b28::at_mine::triggers_at_mines(u) && u.vehicle().is_some_and(|v| !v.immobilized)
    });
    for owner in minefield::attacking_owners(ctx, mover) {
        if minefield::may_attack(ctx, owner, Layer::AntiPersonnel, mine_hex, mover) {
            // B28.41 (Personnel), B28.42 (vehicles: A-P before A-T).
            b.leaf(owner, Layer::AntiPersonnel, mine_hex);
            // B28.9: the IFT result of the attack may be a PTC.
            if personnel {
                b.booby(ctx.scenario, mover.opponent(), mine_hex);
            }
        }
        if sets_off_at && minefield::may_attack(ctx, owner, Layer::AntiTank, mine_hex, mover) {
            b.leaf(owner, Layer::AntiTank, mine_hex);
        }
        known_line(ctx, b, owner, mine_hex);
    }
}

/// B28.46, B28.47 EXC: a hex of `owner`'s arrowed Known line opens both
/// layers when crossed.
fn known_line(ctx: &Ctx<'_>, b: &mut Bound, owner: Side, hex: Hex) {
    if crate::b28::known::on_known_line(ctx, owner, hex) {
        b.leaf(owner, Layer::AntiPersonnel, hex);
        b.leaf(owner, Layer::AntiTank, hex);
    }
}

/// B28.43, R71 (version 3, b28::prc::survival): Passengers and Riders of
/// side `side` who survive their vehicle's elimination in `hex` are
/// attacked as Personnel entering it: each attacking owner's A-P leaf
/// there, its Known line, and the enemy's Booby Trap board (B28.9).
fn bail_out(ctx: &Ctx<'_>, b: &mut Bound, hex: Hex, side: Side) {
    for owner in minefield::attacking_owners(ctx, side) {
        if minefield::may_attack(ctx, owner, Layer::AntiPersonnel, hex, side) {
            b.leaf(owner, Layer::AntiPersonnel, hex);
            b.booby(ctx.scenario, side.opponent(), hex);
        }
        known_line(ctx, b, owner, hex);
    }
}

/// B28.43: Passengers and Riders leaving a vehicle are attacked as if
/// entering its hex (b28::movement::resolve_disembark).
fn disembark(ctx: &Ctx<'_>, b: &mut Bound, vehicle: UnitId, units: &[UnitId]) {
    let Some(hex) = ctx
        .state
        .unit(vehicle)
        .and_then(|v| v.hex)
        .map(|h| ctx.scenario.map.canonical(h))
    else {
        return;
    };
    let leaving: Vec<&Unit> = units
        .iter()
        .filter_map(|id| ctx.state.unit(*id))
        .filter(|u| u.in_play() && u.status.aboard == Some(vehicle))
        .collect();
    let Some(side) = leaving.first().map(|u| u.side) else {
        return;
    };
    crossing(
        ctx,
        b,
        &leaving,
        hex,
        hex,
        MoveMode::Normal,
        Crossing::Entry,
        side,
    );
}

/// A12.152, R30: the searcher's hex and every ADJACENT hex, both layers
/// of the enemy where it has a leaf (b28::search::resolve).
fn search(ctx: &Ctx<'_>, b: &mut Bound, unit: UnitId) {
    let Some(u) = ctx.state.unit(unit) else {
        return;
    };
    let Some(here) = u.hex.map(|h| ctx.scenario.map.canonical(h)) else {
        return;
    };
    let owner = u.side.opponent();
    let mut hexes = ctx.scenario.map.neighbors(here);
    hexes.push(here);
    for hex in hexes {
        for layer in [Layer::AntiPersonnel, Layer::AntiTank] {
            if minefield::leaf_exists(ctx, owner, layer, hex) {
                b.leaf(owner, layer, hex);
            }
        }
    }
}

/// C3.31-C3.33 (c3::ordnance::resolve, c3::target_type::targets): an HE
/// hit's IFT result may give each Personnel target a PTC (B28.9); the
/// Vehicle Target Type hits one vehicle and applies nothing to Personnel
/// (R65), and a WP hit gives an NMC, no Task Check (A24.31).
fn ordnance(ctx: &Ctx<'_>, b: &mut Bound, target: Hex, target_type: TargetType, ammo: Ammo) {
    if ammo == Ammo::Wp {
        return;
    }
    let actor = ctx.actor;
    match target_type {
        TargetType::Vehicle(_) => {}
        TargetType::Infantry => {
            if personnel_of(&ctx.state, target, |s| s != actor) {
                b.booby(ctx.scenario, actor, target);
            }
        }
        TargetType::Area => {
            for owner in [Side::A, Side::B] {
                // The Personnel of `owner`'s enemy set off `owner`'s traps.
                if personnel_of(&ctx.state, target, |s| s != owner) {
                    b.booby(ctx.scenario, owner, target);
                }
            }
        }
    }
}

/// The hooks of the phase that ends (turn::end_phase).
fn end_phase(ctx: &Ctx<'_>, b: &mut Bound) {
    let st = &ctx.state;
    match st.phase {
        // B28.53 (b28::minefield::end_of_movement_phase).
        Phase::Movement => {
            for hex in st.mines.full_view_clearances.values() {
                if let Some(owner) = st.markers(*hex).at_in_view {
                    b.leaf(owner, Layer::AntiTank, *hex);
                }
            }
        }
        // B28.531 (b28::daisy_chain::fire_phase_opportunity).
        Phase::PrepFire | Phase::AdvancingFire
            if ctx.scenario.ssr.daisy_chains && holds_chain(st, st.phasing) =>
        {
            b.note(st.phasing);
        }
        // B28.71 (b28::flail::end_of_close_combat).
        Phase::CloseCombat => {
            for (id, fc) in &st.mines.flail_clearances {
                let Some(u) = st.unit(*id) else { continue };
                if fc.turn != st.turn || u.side != st.phasing {
                    continue;
                }
                let owner = u.side.opponent();
                if minefield::leaf_exists(ctx, owner, Layer::AntiTank, fc.hex) {
                    b.leaf(owner, Layer::AntiTank, fc.hex);
                }
                // R71: a Flail Tank destroyed with PRC aboard.
                if ctx.scenario.since(3) && !crate::b28::prc::aboard(ctx, *id).is_empty() {
                    bail_out(ctx, b, fc.hex, u.side);
                }
            }
        }
        _ => {}
    }
}

impl kernel::Observer for AslObserver {
    fn setup(&mut self, public: &dyn kernel::PublicSetup) {
        // The referee accepted it, so it is ASL's and legal; a setup of
        // another ruleset has nothing to fold.
        if let Some(p) = public.as_any().downcast_ref::<crate::ruleset::AslPublic>() {
            let _ = self.public.setup(p.0.clone());
        }
    }

    fn declared(&mut self, actor: Side, action: &[u8]) {
        if let Ok(action) = crate::model::action::decode_action(action) {
            self.public.declared(actor, &action);
        }
    }

    fn event(&mut self, event: &kernel::Event) {
        self.public.kernel_event(event);
    }

    fn asks(&self, actor: Side, action: &[u8], owner: Side) -> kernel::Asks {
        match crate::model::action::decode_action(action) {
            Ok(action) => self.bound(actor, &action).of(owner),
            Err(_) => kernel::Asks::none(),
        }
    }

    /// Set by the public `GameOver` event (A2.9, a concession), as the
    /// engine's own result is.
    fn outcome(&self) -> Option<kernel::Outcome> {
        self.public
            .state()
            .result
            .as_ref()
            .map(|r| kernel::Outcome {
                winner: r.winner,
                reason: r.reason.clone(),
            })
    }

    fn clone_box(&self) -> Box<dyn kernel::Observer> {
        Box::new(self.clone())
    }
}
