//! A-P minefields (B28.1-B28.44): who is attacked when a unit enters or
//! leaves a minefield hex, the attack on the IFT, what is revealed and to
//! whom (B28.41, R13), and the end-of-MPh removal of A-T mines in full view
//! (B28.53).
//!
//! Traffic shape (G3): every fact this module asks for depends only on
//! public facts (unit type, movement mode, terrain, markers) and on results
//! already made public. A-T layers are asked by [`crate::b28::at_mine`] only for
//! vehicles that trigger A-T mines (B28.5).

use crate::a::ift::IftResult;
use crate::b28::at_mine;
use crate::b28::known;
use crate::b28::prc;
use crate::board::hex::Hex;
use crate::board::terrain::Terrain;
use crate::model::action::MoveMode;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{refuse, Ctx, Res};
use crate::model::sealed::{Content, FactRequest, Layer, Location};
use crate::model::unit::{Unit, UnitId, UnitKind};
use crate::side::Side;
use serde::{Deserialize, Serialize};

/// Whether a minefield attack happens as the unit leaves or enters the hex
/// (B28.41, B28.412).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Crossing {
    /// Leaving the minefield hex (attacked while still in it, B28.412).
    Exit,
    /// Entering the minefield hex.
    Entry,
}

/// How a minefield attack ended for a vehicle (B28.42, B28.52).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VehicleOutcome {
    /// Unaffected.
    NoEffect,
    /// Immobilized.
    Immobilized,
    /// Eliminated.
    Eliminated,
    /// Eliminated and left as a Burning Wreck.
    BurningWreck,
}

impl From<crate::a::ift::VehicleLineResult> for VehicleOutcome {
    /// What a Vehicle line result (A7.308) does to the vehicle.
    fn from(r: crate::a::ift::VehicleLineResult) -> VehicleOutcome {
        use crate::a::ift::VehicleLineResult as L;
        match r {
            L::BurningWreck => VehicleOutcome::BurningWreck,
            L::Eliminated => VehicleOutcome::Eliminated,
            L::Immobilized => VehicleOutcome::Immobilized,
            L::NoEffect => VehicleOutcome::NoEffect,
        }
    }
}

/// How a Dummy or an unmined hex was found (B28.47).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FoundBy {
    /// A ground unit entered or left the Location.
    Entry,
    /// An MMC Searched it (A12.152).
    Search,
    /// An FFE/bomb removed every minefield whose strength its counters
    /// showed, and the owner has no other leaf there (B28.45, R42).
    Ffe,
}

/// Events of the minefield rules (B28).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MinefieldEvent {
    /// A-P mines of `owner` are present in `hex` (presence and type only;
    /// the hex is now marked Known-mined, B28.41, B28.48, R13).
    ApPresent {
        /// The hex.
        hex: Hex,
        /// Whose mines.
        owner: Side,
    },
    /// An A-P minefield attack (B28.41). `strength` and `result` are given
    /// only when the result is not "no effect" (B28.1, R13); otherwise they
    /// stay sealed and appear only in [`MinefieldEvent::ApAttackSealed`].
    ApAttack {
        /// The minefield hex.
        hex: Hex,
        /// Exit or entry attack.
        crossing: Crossing,
        /// The units attacked.
        targets: Vec<UnitId>,
        /// The Final DR (Deep Snow +1 included, B28.3).
        final_dr: i16,
        /// The minefield strength, when revealed.
        strength: Option<u8>,
        /// The IFT result, when not "no effect".
        result: Option<IftResult>,
    },
    /// What a no-effect A-P attack was made with (referee only, R13).
    ApAttackSealed {
        /// The minefield hex.
        hex: Hex,
        /// The strength.
        strength: u8,
        /// The FP column used (half in Deep Snow, B28.3).
        fp: u8,
    },
    /// A minefield attack's effect on one vehicle (B28.42, B28.52).
    VehicleHit {
        /// The vehicle.
        unit: UnitId,
        /// The minefield hex.
        hex: Hex,
        /// What happened.
        outcome: VehicleOutcome,
    },
    /// A Known Minefield counter turned out to be a Dummy and is removed, or
    /// (on a multi-hex Known line) its unmined hex gets a Dummy marker
    /// (B28.47).
    DummyFound {
        /// The hex.
        hex: Hex,
        /// Whose counter.
        owner: Side,
        /// How it was found.
        by: FoundBy,
        /// Whether a Dummy marker now marks the hex (B28.47 EXC).
        marked: bool,
    },
    /// A Search found mines (presence and type only, B28.1, B28.48).
    SearchFound {
        /// The hex.
        hex: Hex,
        /// Whose mines.
        owner: Side,
        /// Which layer.
        layer: Layer,
    },
    /// A-T mines in `hex` attacked a vehicle (B28.51): presence and factors
    /// are now public.
    AtAttack {
        /// The minefield hex.
        hex: Hex,
        /// The vehicle.
        unit: UnitId,
        /// The A-T factors (for a Daisy Chain, its factors).
        factors: u8,
        /// The trigger dr.
        trigger_dr: u8,
        /// The Final DR of the attack on the 36+ column (Deep Snow +1; the
        /// Aerial AF DRM is shown apart).
        final_dr: i16,
        /// Aerial AF DRM used for the KIA test (R4), AFV only.
        aerial_af: Option<u8>,
        /// What happened to the vehicle.
        outcome: VehicleOutcome,
    },
    /// The trigger dr did not set off A-T mines (referee only: whether any
    /// mines were there stays sealed, B28.51, G3).
    AtNotTriggered {
        /// The hex.
        hex: Hex,
        /// The vehicle.
        unit: UnitId,
        /// The A-T factors there (0 if none).
        factors: u8,
    },
    /// A concealed unit lost its "?" to a minefield attack (B28.411, B28.51).
    ConcealmentLost {
        /// The unit.
        unit: UnitId,
    },
    /// Infantry declared the extra MF to remove A-T mines in full view
    /// (B28.53); resolved at the end of the MPh.
    FullViewClearanceDeclared {
        /// The Infantry unit.
        unit: UnitId,
        /// The hex.
        hex: Hex,
    },
    /// A-T mines in full view removed at the end of the MPh (B28.53).
    FullViewMinesRemoved {
        /// The hex.
        hex: Hex,
        /// The Infantry that removed them.
        unit: UnitId,
    },
    /// A declared full-view clearance failed: the unit was pinned, broken,
    /// eliminated or gone by the end of the MPh (B28.53).
    FullViewClearanceFailed {
        /// The hex.
        hex: Hex,
        /// The unit.
        unit: UnitId,
    },
    /// An FFE/bomb attack changed a minefield (referee only: the FFE player
    /// is not told, B28.62).
    FfeChanged {
        /// The hex.
        hex: Hex,
        /// The fact changed.
        request: FactRequest,
        /// The content before.
        before: Content,
        /// The content after.
        after: Content,
    },
    /// A Flail Tank's Mine Clearance at the end of its CCPh (B28.7-B28.72).
    Flail(crate::b28::flail::FlailEvent),
    /// An Infantry Minefield Clearance DR (B28.6, B28.8).
    Clearance {
        /// The hex.
        hex: Hex,
        /// The clearing units.
        units: Vec<UnitId>,
        /// The Final DR (Sapper DRM included).
        final_dr: i16,
        /// The Sapper DRM applied (B28.8).
        sapper_drm: i16,
        /// Whether a TB was created.
        cleared: bool,
    },
    /// The Original result of an FFE/bomb vs mines (public: it is the
    /// attack's own result, R6); what it did to mines is referee-only.
    FfeAttack {
        /// The hex.
        hex: Hex,
        /// FP column.
        fp: u8,
        /// The Original result.
        original: IftResult,
    },
    /// An FFE/bomb changed a minefield whose strength the public counters
    /// showed: the counter now shows `now` (`Content::Empty`: none of that
    /// type left). Public, because the new strength follows from the shown
    /// one and the FFE's public Original result (B28.45, B28.48, R42).
    ShownStrengthChanged {
        /// The hex.
        hex: Hex,
        /// Whose minefield.
        owner: Side,
        /// A-P or A-T.
        layer: Layer,
        /// What the counter shows now.
        now: Content,
    },
    /// A Passenger or Rider of an eliminated vehicle rolled for survival
    /// (B28.43, B28.52, D5.6/D6.9 numbers a league supplies, R71).
    PrcSurvival {
        /// The vehicle eliminated.
        vehicle: UnitId,
        /// The PRC unit.
        unit: UnitId,
        /// How it rode.
        role: crate::b28::prc::Role,
        /// Its survival dr.
        dr: u8,
        /// The dr at or below which it survives.
        needed: u8,
        /// Whether it survived (and Bailed Out into the hex).
        survived: bool,
    },
}

/// Emits a minefield event.
pub(crate) fn emit(ctx: &mut Ctx<'_>, to: Visibility, e: MinefieldEvent, cite: &[&str]) {
    ctx.emit(to, EventKind::Minefield(e), cite);
}

/// The request for one layer of `owner` in `hex`.
/// Callers pass canonical hex names (movement, Search and FFE canonicalize
/// the hexes they are given).
pub fn request(owner: Side, layer: Layer, hex: Hex) -> FactRequest {
    FactRequest {
        owner,
        layer,
        location: Location::Hex(hex),
    }
}

/// Whether `owner` has a sealed leaf of `layer` in `hex`: decided from
/// public scenario data and markers only (G3, DESIGN 3.1) by
/// [`crate::setup::has_leaf`], the very test `setup::eligible_locations`
/// uses, so the leaves asked are the leaves sealed: hexes of the owner's setup area where hidden
/// mines of that layer may lie (B28.1: not in a bridge, paved road, runway,
/// sewer, marsh, crag, Interior Building Hex, rubble or Water Obstacle),
/// plus hexes under the owner's Known counters (B28.45, B28.46), plus for
/// A-T the owner's A-T mines in full view (B28.53, R5). A Known counter
/// removed as a Dummy (B28.47) leaves a leaf the referee already holds with
/// no mines in it, so it need not be asked again.
pub fn leaf_exists(ctx: &Ctx<'_>, owner: Side, layer: Layer, hex: Hex) -> bool {
    let m = ctx.state.markers(ctx.scenario.map.canonical(hex));
    let marks = crate::setup::LeafMarks {
        known_counter: m.known_counter == Some(owner),
        at_in_view: m.at_in_view == Some(owner),
    };
    crate::setup::has_leaf(ctx.scenario, owner, layer, hex, marks)
}

/// Whether a unit is Infantry or Cavalry (never attacked by A-T mines,
/// B28.41, B28.5): every Personnel unit is.
pub fn is_personnel(u: &Unit) -> bool {
    u.is_personnel()
}

/// Why a moving unit is not attacked by the minefield of `mine_hex` when
/// crossing into/out of it from/to `other`, or `None` if it is.
pub fn exemption(
    ctx: &Ctx<'_>,
    unit: &Unit,
    mine_hex: Hex,
    other: Hex,
    mode: MoveMode,
    crossing: Crossing,
) -> Option<&'static str> {
    // B28.44: no attack on Trench movement or a Tower's stairwell.
    if matches!(mode, MoveMode::Trench | MoveMode::TowerStairwell) {
        return Some("B28.44");
    }
    // B28.44: mines in a (non-Interior) building hex do not attack a unit
    // crossing a building hexside (staying inside the building, as the map
    // marks it) unless it is Bypassing.
    let building_side = ctx
        .scenario
        .map
        .hexside(mine_hex, other)
        .is_some_and(|h| h.building);
    if building_side && mode != MoveMode::Bypass {
        return Some("B28.44");
    }
    // B28.61: a TB in the hex lets a unit leave it free of attack, and enter
    // it free of attack at twice the cost (the TrailBreak mode).
    let tb = crate::b28::trail_break::crosses(&ctx.state, mine_hex, other);
    match crossing {
        Crossing::Exit if tb => return Some("B28.61"),
        Crossing::Entry if tb && mode == MoveMode::TrailBreak => return Some("B28.61"),
        _ => {}
    }
    // B28.7: a Flail Tank clearing mines is immune in the hex it entered.
    if crossing == Crossing::Entry && mode == MoveMode::FlailClearance {
        return Some("B28.7");
    }
    if crossing == Crossing::Exit {
        if let Some(f) = ctx.state.mines.flail_clearances.get(&unit.id) {
            if f.hex == mine_hex && f.turn == ctx.state.turn {
                return Some("B28.7");
            }
        }
    }
    None
}

/// Whose minefields attack a unit of side `mover` that enters or leaves a
/// hex: the enemy's, then, from ruleset version 3, its own side's (B28.41
/// speaks of "a unit", and B28.9 exempts the placer's units from Booby
/// Traps only: R74).
pub fn attacking_owners(ctx: &Ctx<'_>, mover: Side) -> Vec<Side> {
    if ctx.scenario.since(3) {
        vec![mover.opponent(), mover]
    } else {
        vec![mover.opponent()]
    }
}

/// Whether mines of `owner` of `layer` in `hex` may attack a unit of side
/// `mover`, from public data only (G3): the enemy's wherever it has a
/// leaf ([`leaf_exists`]); the mover's own (R74) where it has a leaf and
/// could have mines of that layer there: under its Known counter, A-T
/// mines in full view, or anywhere in its area when its OB has hidden
/// minefield factors (B28.1, B28.45, B28.5). A side with no hidden factors
/// has none of its own hidden leaves asked.
pub fn may_attack(ctx: &Ctx<'_>, owner: Side, layer: Layer, hex: Hex, mover: Side) -> bool {
    if !leaf_exists(ctx, owner, layer, hex) {
        return false;
    }
    if owner != mover {
        return true;
    }
    let m = ctx.state.markers(ctx.scenario.map.canonical(hex));
    m.known_counter == Some(owner)
        || (layer == Layer::AntiTank && m.at_in_view == Some(owner))
        || ctx.scenario.side(owner).minefield_factors > 0
}

/// Resolves the minefield attacks of one crossing for a group of moving
/// units (all of one side): the enemy's minefield, then (ruleset version
/// 3) the side's own ([`attacking_owners`], R74); each one A-P attack vs
/// the Personnel (B28.41, B28.411), then, vehicle by vehicle, A-P then A-T
/// (B28.42). `other` is the hex on the other side of the hexside crossed.
pub fn crossing_attacks(
    ctx: &mut Ctx<'_>,
    movers: &[UnitId],
    mine_hex: Hex,
    other: Hex,
    mode: MoveMode,
    crossing: Crossing,
) -> Res<()> {
    let Some(mover) = in_play(ctx, movers).next().map(|u| u.side) else {
        return Ok(());
    };
    for owner in attacking_owners(ctx, mover) {
        crossing_attacks_by(ctx, owner, mover, movers, mine_hex, other, mode, crossing)?;
    }
    Ok(())
}

/// The attacks of one owner's minefield in one crossing.
#[allow(clippy::too_many_arguments)]
fn crossing_attacks_by(
    ctx: &mut Ctx<'_>,
    owner: Side,
    mover: Side,
    movers: &[UnitId],
    mine_hex: Hex,
    other: Hex,
    mode: MoveMode,
    crossing: Crossing,
) -> Res<()> {
    let mut personnel = Vec::new();
    let mut vehicles = Vec::new();
    for u in in_play(ctx, movers) {
        if exemption(ctx, u, mine_hex, other, mode, crossing).is_some() {
            continue;
        }
        if is_personnel(u) {
            personnel.push(u.id);
        } else {
            vehicles.push(u.id);
        }
    }
    // B28.46, B28.47 EXC: decided before anything is opened, from public
    // markers only, so the leaves asked never depend on what they hold (G3).
    let on_line = (!personnel.is_empty() || !vehicles.is_empty())
        && known::on_known_line(ctx, owner, mine_hex);
    if !personnel.is_empty() {
        ap_attack_personnel(ctx, owner, mover, mine_hex, &personnel, crossing)?;
    }
    for v in vehicles {
        vehicle_attacks(ctx, owner, mover, mine_hex, v, crossing)?;
    }
    if on_line {
        known::line_hex_crossed(ctx, owner, mine_hex)?;
    }
    Ok(())
}

/// The movers still in play, in the order given.
fn in_play<'c>(ctx: &'c Ctx<'_>, movers: &'c [UnitId]) -> impl Iterator<Item = &'c Unit> + 'c {
    movers
        .iter()
        .filter_map(|id| ctx.state.unit(*id))
        .filter(|u| u.in_play())
}

/// Opens the entry hex's A-P leaf of a step *before* the exit's potential
/// attack rolls, when nothing the exit crossing does can keep a unit from
/// entering (B28.412), so the entry crossing is sure to ask exactly this
/// leaf: the owner then answers it with the window of pad entries the
/// exit's roll takes, one round trip where it was two (issue 16, PROTOCOL.md
/// 7.1). Only then, and only in the plainest case, which the checks below
/// spell out:
///
/// - every mover in play is Personnel and moves normally (no Bypass,
///   Trench, Trail Break or Flail mode, no vehicle: their exemptions and
///   A-T leaves depend on what the step itself changes), and at least one
///   can move (`some_able`);
/// - the exit hex cannot attack: the owner has no A-P leaf there, or the
///   referee already holds it and it holds no A-P mines. Whether it holds
///   them was public before this step or becomes public in it (an A-P
///   minefield attacks every such mover leaving it and is revealed, B28.41),
///   so choosing this order says nothing the step does not (G3); and it
///   is on no Known line (B28.46);
/// - the entry hex has an A-P leaf of the owner that the referee does not
///   hold yet, and the hexside is no building hexside (B28.44): the one
///   entry exemption a Personnel mover in normal mode may have, which does
///   not depend on the step.
///
/// So no leaf is opened that the rules would not open in this step (G4);
/// only the order of one opening and one roll changes, never a roll's
/// value or use. Games of ruleset version 1 keep the old order
/// ([`crate::model::scenario::Scenario::exit_roll_first`]). A Trail Break
/// that exempts the exit (B28.61) keeps its content unannounced, but then
/// the exit neither opens nor rolls, in either order.
pub fn open_entry_first(
    ctx: &mut Ctx<'_>,
    movers: &[UnitId],
    from: Hex,
    to: Hex,
    mode: MoveMode,
    some_able: bool,
) -> Res<()> {
    if mode != MoveMode::Normal || !some_able || ctx.scenario.exit_roll_first() {
        return Ok(());
    }
    let mut owner = None;
    for u in in_play(ctx, movers) {
        if !is_personnel(u) {
            return Ok(());
        }
        owner = Some(u.side.opponent());
    }
    let Some(owner) = owner else {
        return Ok(());
    };
    // R74: the mover's own minefield may attack the exit too, and could
    // keep every unit from entering.
    let mover = owner.opponent();
    if ctx.scenario.since(3) && may_attack(ctx, mover, Layer::AntiPersonnel, from, mover) {
        return Ok(());
    }
    let exit_quiet = !leaf_exists(ctx, owner, Layer::AntiPersonnel, from)
        || ctx
            .state
            .referee_knows
            .get(&request(owner, Layer::AntiPersonnel, from))
            .is_some_and(|c| !matches!(c, Content::ApMines(_)));
    let building_side = ctx
        .scenario
        .map
        .hexside(to, from)
        .is_some_and(|h| h.building);
    let entry = request(owner, Layer::AntiPersonnel, to);
    if exit_quiet
        && !known::on_known_line(ctx, owner, from)
        && !building_side
        && leaf_exists(ctx, owner, Layer::AntiPersonnel, to)
        && !ctx.state.referee_knows.contains_key(&entry)
    {
        ctx.open_one(entry)?;
    }
    Ok(())
}

/// Opens the A-P leaf of `owner` in `hex` if it exists, handling a Dummy
/// found there (B28.47). Returns the A-P strength if mines are there.
fn open_ap(
    ctx: &mut Ctx<'_>,
    owner: Side,
    hex: Hex,
) -> Res<Option<crate::model::sealed::ApStrength>> {
    if !leaf_exists(ctx, owner, Layer::AntiPersonnel, hex) {
        return Ok(None);
    }
    match ctx.open_one(request(owner, Layer::AntiPersonnel, hex))? {
        Content::ApMines(s) => Ok(Some(s)),
        Content::Dummy => {
            known::dummy_found(ctx, owner, hex, FoundBy::Entry);
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// The DR of a potential A-P attack, rolled after the owner opened the leaf
/// and whether or not it holds mines: the number of rolls of a step then
/// depends only on public facts (eligible locations, who moves), never on
/// what the hex holds (G3, ruling R28 in docs/RULINGS.md). An unmined hex
/// leaves the roll unused.
fn potential_attack_roll(ctx: &mut Ctx<'_>, purpose: String, cite: &str) -> Res<crate::dice::Roll> {
    ctx.roll_dr2(purpose, cite)
}

/// FP and DRM of an A-P attack: half FP and +1 DRM in Deep Snow (B28.3).
fn ap_fp_drm(ctx: &Ctx<'_>, strength: u8) -> (u8, i16) {
    if ctx.scenario.ssr.deep_snow {
        (strength / 2, 1)
    } else {
        (strength, 0)
    }
}

/// Marks A-P presence publicly (B28.41, B28.48, R13).
fn reveal_ap_presence(ctx: &mut Ctx<'_>, owner: Side, hex: Hex) {
    let m = ctx.state.markers.entry(hex).or_default();
    if m.ap_revealed.is_none() {
        m.ap_revealed = Some(None);
    }
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::ApPresent { hex, owner },
        &["B28.41", "B28.48", "R13"],
    );
}

/// Marks the A-P strength publicly (B28.41: the counter shows it now;
/// B28.45: a Known counter is flipped).
fn reveal_ap_strength(ctx: &mut Ctx<'_>, hex: Hex, s: crate::model::sealed::ApStrength) {
    ctx.state.markers.entry(hex).or_default().ap_revealed = Some(Some(s));
}

/// One A-P attack vs moving Personnel (B28.41, B28.411, B28.3, R13).
fn ap_attack_personnel(
    ctx: &mut Ctx<'_>,
    owner: Side,
    mover: Side,
    hex: Hex,
    targets: &[UnitId],
    crossing: Crossing,
) -> Res<()> {
    if !may_attack(ctx, owner, Layer::AntiPersonnel, hex, mover) {
        return Ok(());
    }
    let strength = open_ap(ctx, owner, hex)?;
    let roll = potential_attack_roll(ctx, format!("A-P minefield attack in {hex}"), "B28.41")?;
    let Some(strength) = strength else {
        return Ok(());
    };
    reveal_ap_presence(ctx, owner, hex);
    let (fp, drm) = ap_fp_drm(ctx, strength.factors());
    let final_dr = roll.total() as i16 + drm;
    // B28.3: no TEM, FFMO/FFNAM or other FP modifier.
    let result = agreed::ift_lookup(fp, final_dr)?;
    if result == IftResult::NoEffect {
        emit(
            ctx,
            Visibility::Public,
            MinefieldEvent::ApAttack {
                hex,
                crossing,
                targets: targets.to_vec(),
                final_dr,
                strength: None,
                result: None,
            },
            &["B28.41", "B28.1", "R13"],
        );
        emit(
            ctx,
            Visibility::Referee,
            MinefieldEvent::ApAttackSealed {
                hex,
                strength: strength.factors(),
                fp,
            },
            &["B28.1", "R13"],
        );
        return Ok(());
    }
    reveal_ap_strength(ctx, hex, strength);
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::ApAttack {
            hex,
            crossing,
            targets: targets.to_vec(),
            final_dr,
            strength: Some(strength.factors()),
            result: Some(result),
        },
        &["B28.41", "B28.411", "B28.3", "R13"],
    );
    agreed::apply_personnel(ctx, hex, targets, result, false)
}

/// A-P then A-T attacks vs one vehicle crossing a minefield hexside
/// (B28.42): the A-T layer is asked only if the A-P attack left the vehicle
/// mobile and in play, and only for vehicles that trigger A-T mines (B28.5).
fn vehicle_attacks(
    ctx: &mut Ctx<'_>,
    owner: Side,
    mover: Side,
    hex: Hex,
    vehicle: UnitId,
    crossing: Crossing,
) -> Res<()> {
    if may_attack(ctx, owner, Layer::AntiPersonnel, hex, mover) {
        let strength = open_ap(ctx, owner, hex)?;
        let roll = potential_attack_roll(
            ctx,
            format!("A-P minefield attack vs vehicle {vehicle} in {hex}"),
            "B28.42",
        )?;
        if let Some(strength) = strength {
            reveal_ap_presence(ctx, owner, hex);
            ap_attack_vehicle(ctx, hex, vehicle, strength.factors(), roll, crossing)?;
        }
    }
    let Some(u) = ctx.state.unit(vehicle) else {
        return Ok(());
    };
    let Some(v) = u.vehicle() else {
        return Ok(());
    };
    if !u.in_play() || v.immobilized || !at_mine::triggers_at_mines(u) {
        return Ok(());
    }
    if may_attack(ctx, owner, Layer::AntiTank, hex, mover) {
        at_mine::hidden_check(ctx, owner, hex, vehicle)?;
    }
    Ok(())
}

/// An A-P attack vs one vehicle (B28.42): unarmored vehicles (and AFV
/// counting as unarmored) on the Vehicle line (R12 if its cell is missing);
/// other AFV are immobilized by a KIA and unaffected by anything else.
fn ap_attack_vehicle(
    ctx: &mut Ctx<'_>,
    hex: Hex,
    vehicle: UnitId,
    strength: u8,
    roll: crate::dice::Roll,
    crossing: Crossing,
) -> Res<()> {
    let unarmored = match ctx.state.unit(vehicle).map(|u| &u.kind) {
        Some(UnitKind::Vehicle(v)) => v.counts_as_unarmored(),
        _ => return Ok(()),
    };
    let (fp, drm) = ap_fp_drm(ctx, strength);
    let final_dr = roll.total() as i16 + drm;
    let ift = agreed::ift_lookup(fp, final_dr)?;
    let outcome = if unarmored {
        agreed::vehicle_line(ctx, fp, final_dr)?
    } else if matches!(ift, IftResult::Kia(_)) {
        VehicleOutcome::Immobilized
    } else {
        VehicleOutcome::NoEffect
    };
    if outcome == VehicleOutcome::NoEffect {
        emit(
            ctx,
            Visibility::Public,
            MinefieldEvent::ApAttack {
                hex,
                crossing,
                targets: vec![vehicle],
                final_dr,
                strength: None,
                result: None,
            },
            &["B28.42", "R13"],
        );
        emit(
            ctx,
            Visibility::Referee,
            MinefieldEvent::ApAttackSealed { hex, strength, fp },
            &["B28.42", "R13"],
        );
        return Ok(());
    }
    if let Some(s) = crate::model::sealed::ApStrength::from_factors(strength) {
        reveal_ap_strength(ctx, hex, s);
    }
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::ApAttack {
            hex,
            crossing,
            targets: vec![vehicle],
            final_dr,
            strength: Some(strength),
            result: Some(ift),
        },
        &["B28.42", "R13"],
    );
    prc::vehicle_hit(ctx, vehicle, hex, outcome, prc::Collateral::SameAttack(ift))
}

/// Declares the extra MF an Infantry unit spends to remove A-T mines in
/// full view in its hex (B28.53); the removal happens at the end of the
/// MPh ([`end_of_movement_phase`]).
pub fn declare_full_view_clearance(ctx: &mut Ctx<'_>, unit: UnitId) -> Res<()> {
    let Some(u) = ctx.state.unit(unit).cloned() else {
        return refuse(format!("unit {unit} is not in this game"), "B28.53");
    };
    if u.side != ctx.actor {
        return refuse(format!("unit {unit} is not yours"), "B28.53");
    }
    if ctx.state.phase != crate::model::phase::Phase::Movement || ctx.state.phasing != ctx.actor {
        return refuse(
            "A-T mines in full view are removed in your own MPh",
            "B28.53",
        );
    }
    if u.infantry().is_none() {
        return refuse(
            format!("only Infantry may remove A-T mines in full view; {unit} is not"),
            "B28.53",
        );
    }
    if !u.in_play() || u.status.broken || u.status.pinned || u.status.aboard.is_some() {
        return refuse(
            format!("{unit} must be in play, unbroken, unpinned and not aboard a vehicle"),
            "B28.53",
        );
    }
    let Some(hex) = u.hex else {
        return refuse(format!("{unit} is not on the map"), "B28.53");
    };
    if ctx.state.markers(hex).at_in_view != Some(u.side.opponent()) {
        return refuse(
            format!("there are no enemy A-T mines in full view in {hex}"),
            "B28.53",
        );
    }
    ctx.state.mines.full_view_clearances.insert(unit, hex);
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::FullViewClearanceDeclared { unit, hex },
        &["B28.53"],
    );
    Ok(())
}

/// End of the MPh (B28.53): every declared full-view clearance whose
/// Infantry is still in the hex, in play, unpinned and unbroken removes the
/// A-T mines there (the owner commits the emptied leaf). Called by the turn
/// code when the MPh ends.
pub fn end_of_movement_phase(ctx: &mut Ctx<'_>) -> Res<()> {
    let declared: Vec<(UnitId, Hex)> = ctx
        .state
        .mines
        .full_view_clearances
        .iter()
        .map(|(u, h)| (*u, *h))
        .collect();
    for (unit, hex) in declared {
        let ok = ctx.state.unit(unit).is_some_and(|u| {
            u.in_play() && !u.status.broken && !u.status.pinned && u.hex == Some(hex)
        });
        let owner = ctx.state.markers(hex).at_in_view;
        match owner {
            Some(owner) if ok => {
                let req = request(owner, Layer::AntiTank, hex);
                ctx.open_one(req)?;
                ctx.transition(req, Content::Empty, &["B28.53", "DESIGN 3.1"]);
                let m = ctx.state.markers.entry(hex).or_default();
                m.at_in_view = None;
                m.at_revealed = None;
                emit(
                    ctx,
                    Visibility::Public,
                    MinefieldEvent::FullViewMinesRemoved { hex, unit },
                    &["B28.53"],
                );
            }
            Some(_) => emit(
                ctx,
                Visibility::Public,
                MinefieldEvent::FullViewClearanceFailed { hex, unit },
                &["B28.53"],
            ),
            // Already removed by another unit this phase.
            None => {}
        }
    }
    ctx.state.mines.full_view_clearances.clear();
    Ok(())
}

/// Whether the hex's main terrain is an obstacle for B28.72 (building or
/// woods).
pub fn is_flail_obstacle(t: Terrain) -> bool {
    t.is_building() || t == Terrain::Woods
}

/// Calls into APIs other helpers own (CORE.md agreed signatures), kept in
/// one place so a change of theirs touches one spot.
pub(crate) mod agreed {
    use super::VehicleOutcome;
    use crate::a::ift::{self, IftResult};
    use crate::a::morale::{self, AttackCause, AttackInfo};
    use crate::board::hex::Hex;
    use crate::model::resolve::{Ctx, Interrupt, Res};
    use crate::model::unit::UnitId;

    /// The IFT result for `fp` at `final_dr`, no column shift (B28.3).
    pub fn ift_lookup(fp: u8, final_dr: i16) -> Res<IftResult> {
        Ok(ift::lookup(fp, final_dr, 0))
    }

    /// The Vehicle line (A7.308); a missing Kill Number is an R12 refusal
    /// naming table, row and column.
    pub fn vehicle_line(ctx: &Ctx<'_>, fp: u8, final_dr: i16) -> Res<VehicleOutcome> {
        let table = crate::a::tables::vehicle_line_of(ctx.scenario).map_err(Interrupt::Refuse)?;
        let r = ift::vehicle_line_in(&table, fp, final_dr).map_err(|mut e| {
            e.cite.push("B28.42".into());
            Interrupt::Refuse(e)
        })?;
        Ok(r.into())
    }

    /// Applies an IFT result of a minefield attack to Personnel in `hex`:
    /// concealed units attacked at full FP and losing "?" only on break or
    /// Casualty Reduction (B28.411). `collateral` marks the Collateral
    /// attack on Vulnerable PRC (B28.43, B28.52).
    pub fn apply_personnel(
        ctx: &mut Ctx<'_>,
        hex: Hex,
        targets: &[UnitId],
        result: IftResult,
        collateral: bool,
    ) -> Res<()> {
        let mut info = AttackInfo::minefield(hex);
        if collateral {
            info.cause = AttackCause::Collateral;
            info.cite = vec!["B28.43", "B28.52", "B28.411"];
        }
        morale::apply_ift_result(ctx, targets, result, &info)
    }

    /// The hexes ADJACENT to `hex` on the map.
    pub fn neighbors(ctx: &Ctx<'_>, hex: Hex) -> Vec<Hex> {
        ctx.scenario.map.neighbors(hex)
    }

    /// Whether a Good Order ground unit of `viewer_side` has LOS to `hex`
    /// (B28.51), level to level.
    pub fn seen_by_good_order_enemy(
        ctx: &Ctx<'_>,
        viewer_side: crate::side::Side,
        hex: Hex,
    ) -> bool {
        let map = &ctx.scenario.map;
        let target_level = map.info(hex).level;
        ctx.state.units.values().any(|u| {
            u.side == viewer_side
                && u.good_order()
                && u.status.aboard.is_none()
                && u.hex
                    .is_some_and(|h| map.has_los(h, map.info(h).level, hex, target_level))
        })
    }
}
