//! The public picture of an ASL game: the engine's own [`GameState`],
//! folded from what one reader was shown, in log order (G3).
//!
//! One fold serves every reader: a player's client bounding what the
//! referee may ask of it ([`crate::asks`], issue 24), a player's or a
//! spectator's board and a replay (hexveil-view's `Board`, which adds only
//! its presentation: names, the hexes the last action touched, the words
//! of the result). No engine is re-run (an engine would need the sealed
//! facts): the start of play is built from the scenario and the public
//! setups ([`crate::setup::initial_state`]), and every event the reader
//! may see is applied as the engine applied it (units moved, broken,
//! pinned, eliminated, Replaced; markers revealed, reduced or removed;
//! Trail Breaks, flail and full-view clearances; the phase). A player sees
//! the public events and its own side's, so nothing of the other side's
//! sealed facts reaches its picture: its own Daisy Chains are placed in
//! it, the enemy's only once revealed (B28.531). A replay after the game
//! folds every event, referee-only ones included.
//!
//! What the fold cannot know it leaves as it was and says so here: a
//! Casualty Reduced or Replaced unit keeps its counter's kind (the events
//! give only the new label, hexveil-view names it); the referee's opened
//! facts (`referee_knows`), the Daisy Chain opportunity count and the
//! bookkeeping that only refusals read (when each unit last moved or
//! Searched; Rate of Fire, CA changes and Acquisition of ordnance; hex
//! control) are not kept. [`public_part`] is what a reader
//! may know of an engine's state, for a game that starts from a state
//! rather than from setups (the soak tests, the rules oracle).

use crate::b28::daisy_chain::DaisyEvent;
use crate::b28::minefield::{MinefieldEvent, VehicleOutcome};
use crate::b28::movement::{MoveEvent, MoveKind};
use crate::board::hex::Hex;
use crate::model::action::Action;
use crate::model::event::{Event, EventKind};
use crate::model::scenario::Scenario;
use crate::model::sealed::{ApStrength, AtFactors, Content, Layer};
use crate::model::state::{FlailClearance, GameResult, GameState, PlacedDaisy};
use crate::model::unit::{UnitId, UnitKind};
use crate::setup::PublicSetup;
use crate::side::Side;
use crate::turn::{Phase, TurnEvent};
use std::sync::Arc;

/// The holder recorded for an enemy Daisy Chain whose placement the
/// reader never saw (B28.531: the note is sealed from the enemy; its
/// reveal and its attack name its hex and owner, not its holder).
pub const UNSEEN_HOLDER: UnitId = UnitId(u16::MAX);

/// One reader's picture of an ASL game in play.
#[derive(Clone, Debug)]
pub struct PublicState {
    scenario: Arc<Scenario>,
    setups: Vec<PublicSetup>,
    /// The state as the reader knows it: read it; only the fold changes
    /// it.
    pub state: GameState,
    /// Whether a phase was announced (else: Setup).
    started: bool,
    /// The hex of a Daisy Chain attack just told: its A-T attack event
    /// follows, and marks no minefield there (B28.531).
    daisy_attack: Option<Hex>,
    /// A unit whose Ammunition Shortage was just told: its Replacement
    /// does not break it (A19.131).
    ammo_shortage: Option<UnitId>,
    /// The Movement Factors of the action declared last (A4.1, R57).
    charge: Charge,
}

/// The Movement Factors a declared Move spends, charged when its ruling
/// comes (a void ruling charges nothing).
#[derive(Clone, Debug, Default)]
enum Charge {
    /// No Move declared since the last ruling.
    #[default]
    None,
    /// A Move declared: each unit's MF spent after it (half MF).
    Declared(Vec<(UnitId, u8)>),
    /// Charged by its ruling: the ruling's `Moved` charges nothing more.
    Applied,
}

impl PublicState {
    /// The picture before any setup is known: the scenario's units where
    /// the scenario puts them.
    pub fn new(scenario: Arc<Scenario>) -> PublicState {
        let state =
            crate::setup::initial_state(&scenario, &[]).expect("no setup has nothing to refuse");
        PublicState::starting_at(scenario, state)
    }

    /// The picture of a game that starts from `state`, which holds only
    /// what its reader may know ([`public_part`]).
    pub fn starting_at(scenario: Arc<Scenario>, mut state: GameState) -> PublicState {
        canonical_positions(&scenario, &mut state);
        PublicState {
            scenario,
            setups: Vec::new(),
            state,
            started: false,
            daisy_attack: None,
            ammo_shortage: None,
            charge: Charge::None,
        }
    }

    /// The scenario played.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The scenario, shared.
    pub fn scenario_arc(&self) -> &Arc<Scenario> {
        &self.scenario
    }

    /// The state as the reader knows it.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// Whether play has started (a phase was announced).
    pub fn started(&self) -> bool {
        self.started
    }

    /// Takes a side's checked public setup (its Setup entry): the start of
    /// play is rebuilt from the setups known so far, which come before
    /// play. Refused, changing nothing, if the setups together are not
    /// legal (two of one side).
    pub fn setup(&mut self, public: PublicSetup) -> Result<(), String> {
        let side = public.side;
        let mut setups = self.setups.clone();
        setups.retain(|s| s.side != side);
        setups.push(public);
        let mut state = crate::setup::initial_state(&self.scenario, &setups).map_err(|v| {
            v.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        })?;
        canonical_positions(&self.scenario, &mut state);
        state.turn = self.state.turn;
        state.phasing = self.state.phasing;
        state.phase = self.state.phase;
        state.extra_dummies = std::mem::take(&mut self.state.extra_dummies);
        self.setups = setups;
        self.state = state;
        Ok(())
    }

    /// Takes an action declared in the log by `actor`, before the events
    /// of its ruling: a Move's Movement Factors are charged when the
    /// ruling comes, as the engine charges them from the state before the
    /// step (A4.1, R57), units that stay in their hex included. Anything
    /// else a declaration does reaches the picture through its events.
    pub fn declared(&mut self, actor: Side, action: &Action) {
        self.charge = Charge::None;
        let Action::Move { units, to, mode } = action else {
            return;
        };
        let to = self.scenario.map.canonical(*to);
        let mut spent = Vec::new();
        for id in units {
            let Some(u) = self.state.unit(*id).filter(|u| u.side == actor) else {
                continue;
            };
            let Some(from) = u.hex else { continue };
            let c = crate::a::movement_factors::cost(&self.scenario.map, u, from, to, *mode);
            if let Ok(total) = crate::a::movement_factors::pay(&self.state, u, c) {
                spent.push((*id, total.0));
            }
        }
        self.charge = Charge::Declared(spent);
    }

    /// Folds one event of a ruling the reader was shown, in order; the
    /// kernel's kinds (dice, openings, transitions) change nothing public.
    pub fn event(&mut self, e: &Event) {
        if let Charge::Declared(spent) = &self.charge {
            if matches!(e.kind, EventKind::Void { .. }) {
                self.charge = Charge::None;
            } else {
                self.state.mf_spent.extend(spent.iter().copied());
                self.charge = Charge::Applied;
            }
        }
        match &e.kind {
            EventKind::Turn(t) => self.turn(t),
            EventKind::Move(m) => self.movement(m),
            EventKind::Minefield(m) => self.minefield(m),
            EventKind::Morale(m) => self.morale(m),
            EventKind::DaisyChain(d) => self.daisy(d),
            EventKind::Ordnance(o) => self.ordnance(o),
            EventKind::Fire(crate::a::fire::FireEvent::AmmunitionShortage { unit }) => {
                self.ammo_shortage = Some(*unit);
            }
            _ => {}
        }
    }

    /// Decodes a kernel event and folds it; the ASL event, or `None` for
    /// bytes that are no ASL event (a newer version's: left out).
    pub fn kernel_event(&mut self, e: &hexveil_core::Event) -> Option<Event> {
        let event = crate::ruleset::event_from_kernel(e).ok()?;
        self.event(&event);
        Some(event)
    }

    fn unit_mut(&mut self, id: UnitId) -> Option<&mut crate::model::unit::Unit> {
        self.state.units.get_mut(&id)
    }

    /// Moves a unit, and what it carries, into `hex`.
    fn put(&mut self, id: UnitId, hex: Option<Hex>) {
        let carried: Vec<UnitId> = self
            .state
            .units
            .get(&id)
            .and_then(|u| u.vehicle())
            .map(|v| v.passengers.iter().chain(&v.riders).copied().collect())
            .unwrap_or_default();
        if let Some(u) = self.unit_mut(id) {
            u.hex = hex;
        }
        for c in carried {
            if let Some(u) = self.unit_mut(c) {
                if u.status.aboard == Some(id) && u.in_play() {
                    u.hex = hex;
                }
            }
        }
    }

    /// Eliminates a unit (A10, B28.52, C3.71): off the map, its Daisy
    /// Chain counter gone with it.
    fn eliminate(&mut self, id: UnitId) {
        self.put(id, None);
        if let Some(u) = self.unit_mut(id) {
            u.status.eliminated = true;
            u.daisy_chain = None;
        }
    }

    /// Eliminates a vehicle without what it carries (B28.52, as
    /// `b28::prc::apply_outcome`).
    fn eliminate_alone(&mut self, id: UnitId) {
        if let Some(u) = self.unit_mut(id) {
            u.hex = None;
            u.status.eliminated = true;
            u.daisy_chain = None;
        }
    }

    /// B28.43, R71: one Passenger or Rider of an eliminated vehicle rolled
    /// its survival; a survivor Bails Out into the vehicle's hex (one that
    /// did not is told eliminated next). The vehicle carries nobody after.
    fn prc_survival(&mut self, vehicle: UnitId, unit: UnitId, survived: bool) {
        if let Some(UnitKind::Vehicle(v)) = self.unit_mut(vehicle).map(|u| &mut u.kind) {
            v.passengers.clear();
            v.riders.clear();
        }
        if survived {
            if let Some(u) = self.unit_mut(unit) {
                u.status.aboard = None;
            }
        }
    }

    fn turn(&mut self, t: &TurnEvent) {
        match t {
            TurnEvent::PhaseBegins {
                turn,
                phasing,
                phase,
            } => {
                self.started = true;
                self.state.turn = *turn;
                self.state.phasing = *phasing;
                self.state.phase = *phase;
                // A4.1: Movement Factors are spent afresh in each MPh.
                if *phase == Phase::Movement {
                    self.state.mf_spent.clear();
                }
                // B28.53: declared full-view clearances are resolved when
                // the MPh ends, the only phase they are declared in.
                self.state.mines.full_view_clearances.clear();
            }
            TurnEvent::Surrendered { unit, .. } => {
                self.put(*unit, None);
                if let Some(u) = self.unit_mut(*unit) {
                    u.status.captured = true;
                }
            }
            TurnEvent::ExtraDummies { side, count } => {
                self.state.extra_dummies.insert(*side, *count);
            }
            TurnEvent::Consumed { units, .. } => {
                // R73: these units act no more this phase.
                let now = self.state.now();
                for id in units {
                    self.state.consumed.insert(*id, now);
                }
            }
            TurnEvent::Conceded { .. } | TurnEvent::ConsumedWhy { .. } => {}
            TurnEvent::GameOver { winner, reason } => {
                self.state.result = Some(GameResult {
                    winner: *winner,
                    reason: reason.clone(),
                });
            }
            TurnEvent::DummyDrMade { .. } => {}
        }
    }

    fn movement(&mut self, m: &MoveEvent) {
        match m {
            MoveEvent::Moved {
                kind,
                units,
                from,
                to,
                mode,
            } => {
                // Charged as the engine charges a move (b28::movement),
                // unless its declaration was folded and charged already.
                if *kind == MoveKind::Move && !matches!(self.charge, Charge::Applied) {
                    use crate::a::movement_factors::{cost, pay};
                    for id in units {
                        let Some(u) = self.state.unit(*id).cloned() else {
                            continue;
                        };
                        let c = cost(&self.scenario.map, &u, *from, *to, *mode);
                        if let Ok(total) = pay(&self.state, &u, c) {
                            self.state.mf_spent.insert(*id, total.0);
                        }
                    }
                }
                for id in units {
                    self.put(*id, Some(*to));
                    self.state.mines.entered_from.insert(*id, *from);
                }
            }
            MoveEvent::Disembarked {
                vehicle,
                units,
                hex,
            } => {
                for id in units {
                    if let Some(u) = self.unit_mut(*id) {
                        u.status.aboard = None;
                        u.hex = Some(*hex);
                    }
                }
                if let Some(UnitKind::Vehicle(v)) = self.unit_mut(*vehicle).map(|u| &mut u.kind) {
                    v.passengers.retain(|p| !units.contains(p));
                    v.riders.retain(|p| !units.contains(p));
                }
            }
            MoveEvent::TrailBreakPlaced { hex, ends } => {
                crate::b28::trail_break::place(&mut self.state, *hex, ends[0], ends[1]);
            }
            MoveEvent::FlailEntered { unit, hex } => {
                let from = self.state.mines.entered_from.get(unit).copied();
                if let Some(from) = from {
                    self.state.mines.flail_clearances.insert(
                        *unit,
                        FlailClearance {
                            turn: self.state.turn,
                            hex: *hex,
                            from,
                        },
                    );
                }
            }
            MoveEvent::FlailBroken { unit, .. } => self.flail_lost(*unit),
            MoveEvent::Stayed { .. } => {}
        }
    }

    fn flail_lost(&mut self, unit: UnitId) {
        if let Some(UnitKind::Vehicle(v)) = self.unit_mut(unit).map(|u| &mut u.kind) {
            v.flail = false;
        }
    }

    fn minefield(&mut self, m: &MinefieldEvent) {
        match m {
            MinefieldEvent::ApPresent { hex, .. } => {
                let mk = self.state.markers.entry(*hex).or_default();
                if mk.ap_revealed.is_none() {
                    mk.ap_revealed = Some(None);
                }
            }
            MinefieldEvent::ApAttack { hex, strength, .. } => {
                let mk = self.state.markers.entry(*hex).or_default();
                match strength.and_then(ApStrength::from_factors) {
                    Some(s) => mk.ap_revealed = Some(Some(s)),
                    None if mk.ap_revealed.is_none() => mk.ap_revealed = Some(None),
                    None => {}
                }
            }
            MinefieldEvent::SearchFound { hex, layer, .. } => {
                let mk = self.state.markers.entry(*hex).or_default();
                match layer {
                    Layer::AntiTank => {
                        mk.at_revealed.get_or_insert(None);
                    }
                    Layer::AntiPersonnel => {
                        mk.ap_revealed.get_or_insert(None);
                    }
                    _ => {}
                }
            }
            MinefieldEvent::AtAttack {
                hex,
                unit,
                factors,
                outcome,
                ..
            } => {
                // A Daisy Chain's attack (told just before) is no minefield.
                if self.daisy_attack.take() != Some(*hex) {
                    self.state.markers.entry(*hex).or_default().at_revealed =
                        Some(AtFactors::new(*factors));
                }
                self.vehicle(*unit, *hex, *outcome);
            }
            MinefieldEvent::VehicleHit { unit, hex, outcome } => {
                self.vehicle(*unit, *hex, *outcome)
            }
            MinefieldEvent::DummyFound { hex, owner, .. } => {
                // As crate::b28::known::dummy_found: only a counter still
                // standing is found.
                let mk = self.state.markers.entry(*hex).or_default();
                if mk.known_counter == Some(*owner) {
                    mk.known_counter = None;
                    mk.ap_revealed = None;
                    mk.dummy_marker = mk.known_line;
                }
            }
            MinefieldEvent::ConcealmentLost { unit } => {
                if let Some(u) = self.unit_mut(*unit) {
                    u.status.concealed = false;
                }
            }
            MinefieldEvent::FullViewClearanceDeclared { unit, hex } => {
                self.state.mines.full_view_clearances.insert(*unit, *hex);
            }
            MinefieldEvent::FullViewMinesRemoved { hex, .. } => {
                if let Some(mk) = self.state.markers.get_mut(hex) {
                    mk.at_in_view = None;
                    mk.at_revealed = None;
                }
            }
            MinefieldEvent::ShownStrengthChanged {
                hex, layer, now, ..
            } => {
                let mk = self.state.markers.entry(*hex).or_default();
                match (layer, now) {
                    (Layer::AntiPersonnel, Content::ApMines(s)) => mk.ap_revealed = Some(Some(*s)),
                    (Layer::AntiTank, Content::AtMines(f)) => mk.at_revealed = Some(Some(*f)),
                    (Layer::AntiPersonnel, _) => mk.ap_revealed = None,
                    (Layer::AntiTank, _) => mk.at_revealed = None,
                    _ => {}
                }
            }
            MinefieldEvent::Flail(f) => self.flail(f),
            MinefieldEvent::PrcSurvival {
                vehicle,
                unit,
                survived,
                ..
            } => self.prc_survival(*vehicle, *unit, *survived),
            MinefieldEvent::Clearance {
                hex,
                units,
                cleared: true,
                ..
            } => {
                // B28.6: the TB runs from the hexside the first clearing
                // unit came in by to the opposite one.
                let from = units
                    .first()
                    .and_then(|u| self.state.mines.entered_from.get(u))
                    .copied()
                    .filter(|f| self.scenario.map.adjacent(*f, *hex));
                if let Some(to) = from.and_then(|f| crate::b28::trail_break::opposite(*hex, f)) {
                    let from = from.expect("checked");
                    crate::b28::trail_break::place(&mut self.state, *hex, from, to);
                }
            }
            _ => {}
        }
    }

    /// A Flail Tank's Mine Clearance at the end of its CCPh (B28.7-B28.72):
    /// its declared clearance is done; a TB or a broken flail follows from
    /// the outcome (a destroyed or immobilized tank has its own event).
    fn flail(&mut self, f: &crate::b28::flail::FlailEvent) {
        use crate::b28::flail::FlailOutcome;
        let fc = self.state.mines.flail_clearances.remove(&f.unit);
        match f.outcome {
            FlailOutcome::FlailBroken => self.flail_lost(f.unit),
            FlailOutcome::TrailBreak => {
                let Some(fc) = fc else { return };
                if let Some(to) = crate::b28::trail_break::opposite(fc.hex, fc.from) {
                    if self.scenario.map.contains(to) {
                        crate::b28::trail_break::place(&mut self.state, fc.hex, fc.from, to);
                    }
                }
            }
            _ => {}
        }
    }

    fn vehicle(&mut self, unit: UnitId, hex: Hex, outcome: VehicleOutcome) {
        match outcome {
            VehicleOutcome::NoEffect => {}
            VehicleOutcome::Immobilized => {
                if let Some(UnitKind::Vehicle(v)) = self.unit_mut(unit).map(|u| &mut u.kind) {
                    v.immobilized = true;
                }
            }
            // The vehicle alone: its Passengers and Riders stay in its hex
            // until their survival is told (B28.43, R71, [`MinefieldEvent::PrcSurvival`]).
            VehicleOutcome::Eliminated => self.eliminate_alone(unit),
            VehicleOutcome::BurningWreck => {
                self.eliminate_alone(unit);
                self.state.mines.burning_wrecks.insert(unit, hex);
            }
        }
    }

    fn morale(&mut self, m: &crate::a::morale::MoraleEvent) {
        use crate::a::morale::MoraleEvent;
        match m {
            MoraleEvent::Broken { unit } => {
                if let Some(u) = self.unit_mut(*unit) {
                    u.status.broken = true;
                }
            }
            MoraleEvent::Pinned { unit } => {
                if let Some(u) = self.unit_mut(*unit) {
                    u.status.pinned = true;
                }
            }
            MoraleEvent::Disrupted { unit } => {
                if let Some(u) = self.unit_mut(*unit) {
                    u.status.disrupted = true;
                }
            }
            MoraleEvent::ConcealmentLost { unit } => {
                if let Some(u) = self.unit_mut(*unit) {
                    u.status.concealed = false;
                }
            }
            MoraleEvent::Eliminated { unit, .. } => self.eliminate(*unit),
            MoraleEvent::Replaced { old, new, .. } => self.replaced(*old, new),
            _ => {}
        }
    }

    /// A19.13, A19.131: the new units take the old one's place, status
    /// and vehicle (as crate::a::elr puts them in place): no "?", not
    /// Disrupted, broken unless Replaced for Ammunition Shortage, the
    /// Daisy Chain counter with the first only.
    fn replaced(&mut self, old: UnitId, new: &[UnitId]) {
        let ammo = self.ammo_shortage.take() == Some(old);
        let Some(before) = self.state.units.get(&old).cloned() else {
            return;
        };
        for (i, id) in new.iter().enumerate() {
            let mut u = before.clone();
            u.id = *id;
            u.status.concealed = false;
            u.status.disrupted = false;
            if !ammo {
                u.status.broken = true;
            }
            if i > 0 {
                u.daisy_chain = None;
            }
            self.state.units.insert(*id, u);
        }
        if let Some(v) = before.status.aboard {
            if let Some(UnitKind::Vehicle(veh)) = self.unit_mut(v).map(|u| &mut u.kind) {
                for list in [&mut veh.passengers, &mut veh.riders] {
                    if let Some(p) = list.iter().position(|x| *x == old) {
                        list.splice(p..=p, new.iter().copied());
                    }
                }
            }
        }
        if let Some(u) = self.unit_mut(old) {
            u.status.eliminated = true;
            u.hex = None;
            u.daisy_chain = None;
        }
    }

    fn daisy(&mut self, d: &DaisyEvent) {
        let chains = &mut self.state.daisy_chains;
        match d {
            DaisyEvent::Placed {
                owner,
                holder,
                hex,
                factors,
                opportunity,
            } => chains.push(PlacedDaisy {
                owner: *owner,
                holder: *holder,
                hex: *hex,
                factors: *factors,
                opportunity: *opportunity,
                revealed: false,
                attacked: false,
            }),
            DaisyEvent::Revealed { owner, hex, .. } => {
                match chains
                    .iter_mut()
                    .find(|c| c.owner == *owner && c.hex == *hex && !c.attacked)
                {
                    Some(c) => c.revealed = true,
                    None => chains.push(PlacedDaisy {
                        owner: *owner,
                        holder: UNSEEN_HOLDER,
                        hex: *hex,
                        factors: 0,
                        opportunity: 0,
                        revealed: true,
                        attacked: false,
                    }),
                }
            }
            DaisyEvent::Attacks {
                owner,
                hex,
                factors,
                ..
            } => {
                self.daisy_attack = Some(*hex);
                // The engine's chain in a hex is the first not attacked
                // (crate::b28::daisy_chain::attack).
                match chains.iter_mut().find(|c| c.hex == *hex && !c.attacked) {
                    Some(c) => {
                        c.attacked = true;
                        c.revealed = true;
                        c.factors = *factors;
                    }
                    // The opponent's chain, never seen placed: its attack
                    // tells it.
                    None => chains.push(PlacedDaisy {
                        owner: *owner,
                        holder: UNSEEN_HOLDER,
                        hex: *hex,
                        factors: *factors,
                        opportunity: 0,
                        revealed: true,
                        attacked: true,
                    }),
                }
            }
            DaisyEvent::IllegalPlacement { .. } => {}
        }
    }

    /// Ordnance (C3): facings, Guns destroyed, vehicles on the Vehicle line.
    fn ordnance(&mut self, o: &crate::c3::ordnance::OrdnanceEvent) {
        use crate::c3::covered_arc::CaEvent;
        use crate::c3::ordnance::OrdnanceEvent as O;
        use crate::model::unit::Facing;
        match o {
            O::Ca(CaEvent::Changed { unit, to, .. }) | O::Ca(CaEvent::Chosen { unit, ca: to }) => {
                if let Some(u) = self.unit_mut(*unit) {
                    u.status.facing = Some(Facing::Spine(*to));
                }
            }
            O::GunDestroyed { gun, crew } => {
                self.eliminate(*gun);
                for c in crew {
                    self.eliminate(*c);
                }
            }
            O::VehicleLine { unit, outcome, .. } => {
                let hex = self.state.unit(*unit).and_then(|u| u.hex);
                if let Some(hex) = hex {
                    self.vehicle(*unit, hex, *outcome);
                }
            }
            _ => {}
        }
    }
}

/// Units' positions under canonical names, as the engine keeps them (a
/// seam hex is one hex).
fn canonical_positions(scenario: &Scenario, state: &mut GameState) {
    for u in state.units.values_mut() {
        u.hex = u.hex.map(|h| scenario.map.canonical(h));
    }
}

/// What `reader` may know of an engine's state (a side, or `None` for a
/// spectator): everything but what the referee holds (`referee_knows`, the
/// Daisy Chain opportunity count), the other side's Secret dr (its extra
/// Dummies, B28.47) and the enemy's Daisy Chains not yet revealed
/// (B28.531), whose holder and placement stay sealed once revealed.
pub fn public_part(state: &GameState, reader: Option<Side>) -> GameState {
    let mut out = state.clone();
    out.referee_knows = Default::default();
    out.opportunities = 0;
    out.extra_dummies.retain(|side, _| Some(*side) == reader);
    out.daisy_chains = state
        .daisy_chains
        .iter()
        .filter(|d| Some(d.owner) == reader || d.revealed || d.attacked)
        .map(|d| {
            if Some(d.owner) == reader {
                *d
            } else {
                PlacedDaisy {
                    holder: UNSEEN_HOLDER,
                    opportunity: 0,
                    factors: if d.attacked { d.factors } else { 0 },
                    ..*d
                }
            }
        })
        .collect();
    out
}
