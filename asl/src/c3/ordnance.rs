//! `Action::OrdnanceFire`: one shot on the To Hit Table, from declaration
//! to the effects of its hits (C3.1-C3.9).
//!
//! Order of work, so that a refusal comes before any die (R12) and the
//! dice are drawn in one fixed order (G2):
//!
//! 1. the firer: on the map, fires ordnance, manned (a Gun: see
//!    [`manning`], R69), has not fired nor changed CA
//!    without fire this phase (Rate of Fire, C2.24, is not adjudicated:
//!    one shot per weapon per phase);
//! 2. range (C3.52), LOS, the Target Type for the weapon and ammunition
//!    (C3.31-C3.33), the CA or the CA change to fire (C3.21, Case A);
//! 3. every number from the tables: Basic TH#, modifications, DRM cases,
//!    and the Vehicle line cells a hit could need;
//! 4. the To Hit DR, coloured and white (C3.3, C3.9), then the subsequent
//!    dr if any target needs it (C3.6, C3.7), then Random Selection of the
//!    CH target when several (C3.74), then the Effects DR (two for a
//!    Multiple Hit, C3.8).
//!
//! Hits vs Personnel go to the IFT and [`crate::a::morale`]; vs unarmored
//! vehicles on the Infantry/Area Target Type to the IFT's Vehicle line
//! (C3.32 EX); a Critical Hit on a Gun destroys it and its crew (C3.71). A
//! hit on the Vehicle Target Type is located (C3.9) and recorded: its To
//! Kill resolution (C7) is not part of these rules, and the vehicle is
//! left as it was. An Area hit on an AFV needs C1.55, which is not in the
//! rules: such a shot is refused before any die.

use crate::a::ift::{self, IftResult};
use crate::a::morale::{self, AttackInfo};
use crate::a::random_selection;
use crate::a::tables::{missing_cell, vehicle_line_of, VEHICLE_LINE_CSV};
use crate::b28::minefield::VehicleOutcome;
use crate::b28::prc;
use crate::board::hex::{Hex, Spine};
use crate::board::terrain::Terrain;
use crate::c3::covered_arc::{self, CaEvent};
use crate::c3::effects;
use crate::c3::hit::{self, Aspect, HitOutcome, Judge};
use crate::c3::target_type::{self, TargetKind};
use crate::c3::to_hit_table::{Case, ToHitTables};
use crate::dice::Roll;
use crate::model::action::TargetType;
use crate::model::event::{EventKind, Visibility};
use crate::model::phase::Phase;
use crate::model::resolve::{refuse, Ctx, Interrupt, Res};
use crate::model::state::{Acquisition, GameState};
use crate::model::unit::{Ammo, Facing, Unit, UnitId};
use serde::{Deserialize, Serialize};

/// One declared shot (the fields of `Action::OrdnanceFire`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shot {
    /// The Gun or vehicle.
    pub gun: UnitId,
    /// The target hex.
    pub target: Hex,
    /// The Target Type.
    pub target_type: TargetType,
    /// The ammunition.
    pub ammo: Ammo,
    /// A CA change to fire (C3.21).
    pub change_ca: Option<Spine>,
    /// DRM the players agree on.
    pub extra_drm: i8,
}

/// A DRM with what it is for (`L: Point Blank`).
pub type Drm = (String, i8);

/// Events of ordnance fire (C3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrdnanceEvent {
    /// A CA changed or was picked (C3.2-C3.22).
    Ca(CaEvent),
    /// The To Hit DR of a shot, with every number behind it.
    ToHit {
        /// The Gun or vehicle.
        gun: UnitId,
        /// The target hex.
        target: Hex,
        /// The Target Type.
        target_type: TargetType,
        /// The ammunition.
        ammo: Ammo,
        /// Range in hexes.
        range: u32,
        /// Basic TH# (C3.3).
        basic_th: i8,
        /// Gun and Ammo modifications (C4).
        modifications: Vec<Drm>,
        /// Modified TH#.
        modified_th: i8,
        /// The DRM common to every target.
        drm: Vec<Drm>,
        /// The coloured die.
        coloured: u8,
        /// The white die.
        white: u8,
    },
    /// What the shot did to one target (C3.4: each its own).
    Target {
        /// The unit.
        unit: UnitId,
        /// Its own DRM (TEM, size, concealment).
        drm: Vec<Drm>,
        /// Its Final TH DR.
        final_dr: i16,
        /// Hit or miss, CH, Improbable, aspect.
        outcome: HitOutcome,
    },
    /// The shot's subsequent dr (C3.6, C3.7).
    SubsequentDr {
        /// Its value.
        dr: u8,
    },
    /// A Multiple Hit: two Effects DR, the firer's better one used (C3.8).
    MultipleHit {
        /// The Original of each Effects DR.
        originals: [u8; 2],
        /// The one used.
        used: u8,
    },
    /// An IFT attack by the hit(s) on Personnel.
    Effects {
        /// The units attacked.
        targets: Vec<UnitId>,
        /// The FP column's FP.
        fp: u8,
        /// A Critical Hit's attack (C3.71).
        critical: bool,
        /// The Original Effects DR.
        original: u8,
        /// Its DRM (TEM, or reversed TEM for a CH).
        drm: i8,
        /// Final Effects DR.
        final_dr: i16,
        /// The IFT result.
        result: IftResult,
    },
    /// An unarmored vehicle's hit on the IFT's Vehicle line (C3.32 EX).
    VehicleLine {
        /// The vehicle.
        unit: UnitId,
        /// FP.
        fp: u8,
        /// A Critical Hit.
        critical: bool,
        /// Final Effects DR.
        final_dr: i16,
        /// The outcome.
        outcome: VehicleOutcome,
    },
    /// A hit on the Vehicle Target Type, located (C3.9); its To Kill
    /// resolution (C7) is not adjudicated and the vehicle is unchanged.
    VehicleHit {
        /// The vehicle.
        unit: UnitId,
        /// Where it struck.
        aspect: Option<Aspect>,
        /// A Critical Hit: the Basic TK# is doubled (C3.72).
        critical: bool,
        /// Hits scored (2 for a Multiple Hit, C3.8).
        hits: u8,
    },
    /// The To Kill of a Vehicle Target Type hit (C7 data a league supplies,
    /// ruleset version 3, R77): one TK DR per hit (two for a Multiple Hit,
    /// C3.8), the firer's better one used.
    ToKill {
        /// The vehicle.
        unit: UnitId,
        /// Front, side or rear, as the firer sees the target.
        from: crate::c3::to_kill::HitFrom,
        /// The Basic TK#, doubled for a Critical Hit (C3.71, C3.72).
        basic_tk: u8,
        /// Each hit and its TK DR.
        hits: Vec<TkHit>,
        /// The hit whose TK DR the firer uses (index into `hits`).
        used: u8,
        /// What happened to the vehicle.
        outcome: VehicleOutcome,
    },
    /// A Critical Hit destroyed a Gun and its manning Infantry (C3.71).
    GunDestroyed {
        /// The Gun.
        gun: UnitId,
        /// Its crew.
        crew: Vec<UnitId>,
    },
    /// A non-critical hit on a Gun: no effect under C3 (Gun damage, C11,
    /// is not adjudicated).
    GunHit {
        /// The Gun.
        gun: UnitId,
    },
}

/// One hit's To Kill (R77).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TkHit {
    /// Where it struck (C3.9; the second hit of a Multiple Hit is located
    /// by the first TK DR, C3.8).
    pub aspect: Aspect,
    /// Whether it struck: a hull hit on a Hull Down vehicle is no hit (R62).
    pub struck: bool,
    /// The AF it met.
    pub af: u8,
    /// Final TK#: the Basic TK# less the AF.
    pub final_tk: i16,
    /// The TK DR's coloured die.
    pub coloured: u8,
    /// The TK DR's white die.
    pub white: u8,
    /// What it alone would do.
    pub outcome: VehicleOutcome,
}

fn emit(ctx: &mut Ctx<'_>, e: OrdnanceEvent, cite: &[&str]) {
    ctx.emit(Visibility::Public, EventKind::Ordnance(e), cite);
}

/// The Infantry manning a Gun (R69): a Good Order crew of its side in its
/// hex, else a Good Order squad or half-squad of its side there, the lowest
/// id first; `None` for a vehicle (its crew is inherent) or an unmanned
/// Gun.
pub fn manning(state: &GameState, gun: &Unit) -> Option<UnitId> {
    let (Some(hex), Some(_)) = (gun.hex, gun.gun()) else {
        return None;
    };
    let mmc: Vec<&Unit> = state
        .units_in(hex)
        .filter(|u| u.side == gun.side && u.good_order() && u.is_mmc())
        .collect();
    mmc.iter()
        .find(|u| u.is_crew())
        .or_else(|| mmc.first())
        .map(|u| u.id)
}

fn r12(e: crate::model::error::RuleError) -> Interrupt {
    Interrupt::Refuse(e)
}

fn woods_or_building(t: Terrain) -> bool {
    t == Terrain::Woods || t.is_building()
}

/// Resolves `Action::OrdnanceFire`.
pub fn resolve(ctx: &mut Ctx<'_>, shot: &Shot) -> Res<()> {
    let Some(u) = ctx.state.unit(shot.gun).cloned() else {
        return refuse(format!("unit {} is not in this game", shot.gun), "C3");
    };
    let Some(ord) = u.ordnance().cloned() else {
        return refuse(format!("{} fires no ordnance", u.name), "C3");
    };
    let (true, Some(from)) = (u.in_play(), u.hex) else {
        return refuse(format!("{} is not on the map", u.name), "C3");
    };
    if u.status.aboard.is_some() {
        return refuse(format!("{} is aboard a vehicle", u.name), "C3");
    }
    let crew = manning(&ctx.state, &u);
    if u.gun().is_some() && crew.is_none() {
        return refuse(
            format!(
                "{} has no Good Order Infantry of its side manning it",
                u.name
            ),
            "C3",
        );
    }
    let now = ctx.state.now();
    if ctx.state.ordnance.fired_at.get(&shot.gun) == Some(&now) {
        return refuse(
            format!(
                "{} has fired this phase: Rate of Fire (C2.24) is not adjudicated, one shot per phase",
                u.name
            ),
            "C3",
        );
    }
    if ctx.state.ordnance.ca_changed_at.get(&shot.gun) == Some(&now) {
        return refuse(
            format!("{} changed CA without firing this phase", u.name),
            "C3.22",
        );
    }

    // 2. Range, LOS, Target Type, CA.
    let map = &ctx.scenario.map;
    if !map.contains(shot.target) {
        return refuse(
            format!("target hex {} is not on the map", shot.target),
            "C3",
        );
    }
    let target = map.canonical(shot.target);
    let range = map.distance(from, target);
    if range > u32::from(ord.max_range) {
        return refuse(
            format!(
                "{target} is {range} hexes away, beyond the {} listed range of {}: ordnance has no Long Range Fire",
                ord.max_range,
                ord.label()
            ),
            "C3.52",
        );
    }
    if !map.has_los(from, map.info(from).level, target, map.info(target).level) {
        return refuse(
            format!("{} in {from} has no LOS to {target}", u.name),
            "C3.4",
        );
    }
    target_type::check_declaration(&ord, shot.target_type, shot.ammo, range).map_err(r12)?;
    let tables = ToHitTables::of(ctx.scenario).map_err(r12)?;
    let firer_terrain = map.info(from).terrain;
    let mut common: Vec<Drm> = Vec::new();
    let facing_after: Option<Facing> = if range == 0 {
        if shot.change_ca.is_some() {
            return refuse(
                "a shot into the firer's own hex needs no CA change",
                "C3.21",
            );
        }
        u.status.facing
    } else {
        let current = covered_arc::ca_of(&ctx.state, shot.gun).map_err(r12)?;
        match shot.change_ca {
            Some(new) => {
                if new == current {
                    return refuse(format!("{} already faces {new}", u.name), "C3.21");
                }
                if !covered_arc::in_ca(map, from, new, target) {
                    return refuse(
                        format!("{target} is not in the CA of hexspine {new} either"),
                        "C3.21",
                    );
                }
                let n = covered_arc::spines_turned(current, new);
                // C5.1 as the data reads: the first hexspine (a turreted
                // weapon's own value), +each further one, x2 in woods or a
                // building (R64).
                let first = if ord.turreted {
                    Case::CaTurreted
                } else {
                    Case::CaFirst
                };
                let each = tables.drm(Case::CaEach).map_err(r12)?;
                let mut a = tables
                    .drm(first)
                    .map_err(r12)?
                    .saturating_add(each.saturating_mul(n as i8 - 1));
                if woods_or_building(firer_terrain) {
                    a = a
                        .saturating_mul(tables.drm_multiplier(Case::CaWoodsBuilding).map_err(r12)?);
                }
                common.push((format!("A: CA change of {n} hexspine(s)"), a));
                Some(Facing::Spine(new))
            }
            None => {
                if !covered_arc::in_ca(map, from, current, target) {
                    return refuse(
                        format!(
                            "{target} is outside the CA of {} (hexspine {current}): declare a CA change to fire",
                            u.name
                        ),
                        "C3.21",
                    );
                }
                u.status.facing
            }
        }
    };

    // 3. The numbers.
    if now.phase == Phase::AdvancingFire {
        common.push((
            "B: AFPh".into(),
            tables.drm(Case::AdvancingFire).map_err(r12)?,
        ));
    }
    let pinned = crew.is_some_and(|c| ctx.state.unit(c).is_some_and(|x| x.status.pinned));
    if pinned {
        common.push((
            "D: firer pinned".into(),
            tables.drm(Case::Pinned).map_err(r12)?,
        ));
    }
    let area = shot.target_type == TargetType::Area;
    if range == 0 {
        let mut e = tables.drm(Case::RangeZero).map_err(r12)?;
        if woods_or_building(firer_terrain) {
            e = e.saturating_mul(tables.drm_multiplier(Case::CaWoodsBuilding).map_err(r12)?);
        }
        common.push(("E: target in firer's hex".into(), e));
    }
    // C3.331: Case L does not apply to the Area Target Type.
    if !area && (range == 1 || range == 2) {
        let case = if range == 1 {
            Case::PointBlank1
        } else {
            Case::PointBlank2
        };
        common.push(("L: Point Blank".into(), tables.drm(case).map_err(r12)?));
    }
    if let Some(acq) = ctx.state.ordnance.acquisition.get(&shot.gun) {
        if acq.target == target && acq.from == from && acq.facing == facing_after {
            let (first, further) = tables.drm_pair(Case::Acquisition).map_err(r12)?;
            let v = if acq.shots >= 2 { further } else { first };
            common.push(("N: Acquisition".into(), v));
        }
    }
    if shot.extra_drm != 0 {
        common.push(("declared DRM".into(), shot.extra_drm));
    }
    let tt_name = match shot.target_type {
        TargetType::Vehicle(_) => "vehicle",
        TargetType::Infantry => "infantry",
        TargetType::Area => "area",
    };
    let basic = tables.basic_th(tt_name, ord.colour, range).map_err(r12)?;
    let mut modifications: Vec<Drm> = Vec::new();
    for m in ToHitTables::modifications_of(&ord, shot.ammo) {
        modifications.push((m.to_string(), tables.modification(m, range).map_err(r12)?));
    }
    let modified = modifications
        .iter()
        .fold(basic, |th, (_, v)| th.saturating_add(*v));
    let targets =
        target_type::targets(&ctx.state, ctx.actor, target, shot.target_type).map_err(r12)?;
    let tem = map.info(target).tem();
    let into_marsh = map.info(target).terrain == Terrain::Marsh;
    let mut own: Vec<(UnitId, TargetKind, Vec<Drm>, bool)> = Vec::new();
    for id in &targets {
        let t = ctx.state.unit(*id).expect("listed from the state").clone();
        let kind = target_type::kind_of(&t);
        let mut drm: Vec<Drm> = Vec::new();
        match kind {
            // Case Q: not on the Area Target Type (C3.331).
            TargetKind::Personnel | TargetKind::Gun if !area && tem != 0 => {
                drm.push(("Q: TEM".into(), tem));
            }
            TargetKind::Unarmored | TargetKind::Afv => {
                let size = t.vehicle().map_or(0, |v| v.size_drm);
                if size != 0 {
                    drm.push(("Target Size".into(), size));
                }
            }
            _ => {}
        }
        // Case K: concealed from the firer, so enemy units only.
        if t.status.concealed && t.side != ctx.actor {
            drm.push((
                "K: concealed".into(),
                tables.drm(Case::Concealed).map_err(r12)?,
            ));
        }
        let hd = t.vehicle().is_some_and(|v| v.hull_down);
        own.push((*id, kind, drm, hd));
    }
    // What the hits could need, before any die (R12): the Vehicle line is
    // read once, when an unarmored vehicle could be hit.
    let full_fp = ord.he_fp.unwrap_or(0);
    let line = if own.iter().any(|o| o.1 == TargetKind::Unarmored) {
        Some(vehicle_line_of(ctx.scenario).map_err(r12)?)
    } else {
        None
    };
    if shot.ammo == Ammo::He && !matches!(shot.target_type, TargetType::Vehicle(_)) {
        if let Some((id, ..)) = own.iter().find(|o| o.1 == TargetKind::Afv) {
            return refuse(
                format!(
                    "an Area Target Type hit on AFV {id} is resolved per C1.55, which is not in the rules (seeds or data)"
                ),
                "C3.332",
            );
        }
        let unarmored: Vec<UnitId> = own
            .iter()
            .filter(|o| o.1 == TargetKind::Unarmored)
            .map(|o| o.0)
            .collect();
        if let (false, Some(line)) = (unarmored.is_empty(), &line) {
            for critical in [false, true] {
                let fp = effects::he_fp(full_fp, shot.target_type, critical, into_marsh);
                if let Some(c) = ift::column_index(fp) {
                    if line.kill[c].is_none() {
                        let col = crate::a::tables::IFT_COLUMNS[c].to_string();
                        return Err(r12(missing_cell(VEHICLE_LINE_CSV, &col, "kill_number")));
                    }
                }
            }
        }
    }
    // Any vehicle a hit could reach, and every vehicle in the Location
    // (an AFV is immune on the Infantry Target Type, its Vulnerable PRC
    // are not, C3.32): PRC aboard would need Collateral attacks (D.8).
    let reachable: Vec<UnitId> = match shot.target_type {
        TargetType::Vehicle(v) => vec![v],
        _ => ctx
            .state
            .units_in(target)
            .filter(|u| u.vehicle().is_some())
            .map(|u| u.id)
            .collect(),
    };
    for v in reachable {
        let prc = prc::aboard(ctx, v);
        if !prc.is_empty() {
            return refuse(
                format!(
                    "vehicle {v} carries PRC {prc:?}: Collateral attacks on them (D.8) are not adjudicated"
                ),
                "C3.32",
            );
        }
    }
    // R77 (ruleset version 3): a Vehicle Target Type hit goes to the To
    // Kill tables (C3.3), which the seeds lack: everything its To Kill
    // could need is found before the To Hit DR, or the shot is refused,
    // naming it (R12, R72); version 2 recorded the hit and left the
    // vehicle as it was (R65).
    let tk_needs = match shot.target_type {
        TargetType::Vehicle(v) if ctx.scenario.since(3) => {
            let t = ctx.state.unit(v).cloned().expect("a listed target");
            Some(
                crate::c3::to_kill::needs(
                    ctx.scenario,
                    &ctx.state,
                    &ord,
                    shot.ammo,
                    from,
                    &t,
                    target,
                    range,
                )
                .map_err(r12)?,
            )
        }
        _ => None,
    };
    // The Infantry manning each Gun a hit could destroy (C3.71), as they
    // are before the shot's effects.
    let gun_crews: Vec<(UnitId, Option<UnitId>)> = own
        .iter()
        .filter(|o| o.1 == TargetKind::Gun)
        .filter_map(|o| ctx.state.unit(o.0).map(|g| (o.0, manning(&ctx.state, g))))
        .collect();

    // 4. The dice.
    if let (Some(new), Some(m)) = (shot.change_ca, ctx.state.units.get_mut(&shot.gun)) {
        let before = m.status.facing;
        m.status.facing = Some(Facing::Spine(new));
        let spines = match before {
            Some(Facing::Spine(s)) => covered_arc::spines_turned(s, new),
            _ => 1,
        };
        emit(
            ctx,
            OrdnanceEvent::Ca(CaEvent::Changed {
                unit: shot.gun,
                from: before,
                to: new,
                spines,
                to_fire: true,
            }),
            &["C3.21"],
        );
    }
    let roll = ctx.roll_dr2(
        format!(
            "To Hit DR: {} at {target}, {} Target Type",
            u.name,
            shot.target_type.name()
        ),
        "C3.3",
    )?;
    let Roll::DR { coloured, white } = roll else {
        return refuse("a To Hit DR is two dice", "C3.3");
    };
    let common_sum: i16 = common.iter().map(|(_, v)| i16::from(*v)).sum();
    emit(
        ctx,
        OrdnanceEvent::ToHit {
            gun: shot.gun,
            target,
            target_type: shot.target_type,
            ammo: shot.ammo,
            range,
            basic_th: basic,
            modifications,
            modified_th: modified,
            drm: common,
            coloured,
            white,
        },
        &["C3.3", "C3.9"],
    );
    let judges: Vec<Judge> = own
        .iter()
        .map(|(_, kind, drm, hd)| Judge {
            target_type: shot.target_type,
            coloured,
            white,
            drm: common_sum + drm.iter().map(|(_, v)| i16::from(*v)).sum::<i16>(),
            modified_th: i16::from(modified),
            vehicle: matches!(kind, TargetKind::Unarmored | TargetKind::Afv),
            hull_down: *hd,
        })
        .collect();
    let subsequent = if judges.iter().any(Judge::needs_subsequent_dr) {
        let dr = ctx.roll_dr1("subsequent dr after an Original 2 To Hit DR", "C3.7")?;
        emit(ctx, OrdnanceEvent::SubsequentDr { dr }, &["C3.6", "C3.7"]);
        Some(dr)
    } else {
        None
    };
    let mut hits: Vec<(UnitId, TargetKind, HitOutcome)> = Vec::new();
    for ((id, kind, drm, _), j) in own.iter().zip(&judges) {
        let outcome = j.outcome(subsequent.filter(|_| j.needs_subsequent_dr()));
        emit(
            ctx,
            OrdnanceEvent::Target {
                unit: *id,
                drm: drm.clone(),
                final_dr: j.final_dr(),
                outcome,
            },
            &["C3.4", "C3.6", "C3.7", "C3.9"],
        );
        if outcome.is_hit() {
            hits.push((*id, *kind, outcome));
        }
    }
    remember(ctx, shot.gun, target, from, facing_after);
    if hits.is_empty() {
        return Ok(());
    }
    let multiple = hits
        .iter()
        .any(|(_, _, o)| hit::multiple_hits(&ord, shot.target_type, coloured, white, *o));

    if let TargetType::Vehicle(v) = shot.target_type {
        let (_, _, o) = hits[0];
        let aspect = match o {
            HitOutcome::Hit { aspect, .. } => aspect,
            HitOutcome::Miss => None,
        };
        emit(
            ctx,
            OrdnanceEvent::VehicleHit {
                unit: v,
                aspect,
                critical: o.is_critical(),
                hits: if multiple { 2 } else { 1 },
            },
            &["C3.31", "C3.72", "C3.8", "C3.9"],
        );
        if let Some(needs) = tk_needs {
            let hull_down = ctx
                .state
                .unit(v)
                .and_then(Unit::vehicle)
                .is_some_and(|x| x.hull_down);
            to_kill(
                ctx,
                v,
                target,
                needs,
                aspect.unwrap_or(Aspect::Hull),
                o.is_critical(),
                multiple,
                hull_down,
            )?;
        }
        return Ok(());
    }
    if shot.ammo == Ammo::Wp {
        // C3.33: a WP hit places WP in the Location, and every vulnerable
        // unit there takes an A24.31 NMC, hit by it or not (the WP counter
        // itself is not kept, R65).
        let here: Vec<UnitId> = ctx
            .state
            .units_in(target)
            .filter(|u| u.is_personnel())
            .map(|u| u.id)
            .collect();
        for id in here {
            if ctx.state.unit(id).is_some_and(Unit::in_play) {
                morale::morale_check(ctx, id, 0, "WP (A24.31)")?;
            }
        }
        return Ok(());
    }

    // C3.74: the CH applies to the Random Selection target (a vehicle that
    // got one always keeps it).
    let crit: Vec<UnitId> = hits
        .iter()
        .filter(|(_, _, o)| o.is_critical())
        .map(|h| h.0)
        .collect();
    let crit_vehicles: Vec<UnitId> = hits
        .iter()
        .filter(|(_, k, o)| o.is_critical() && *k == TargetKind::Unarmored)
        .map(|h| h.0)
        .collect();
    let ch: Vec<UnitId> = if !crit_vehicles.is_empty() {
        crit_vehicles
    } else if crit.len() > 1 {
        random_selection::select(ctx, &crit, 1, "Critical Hit target (C3.74)")?
    } else {
        crit
    };

    // HE on the Infantry or Area Target Type: one Effects DR for all the
    // hit units, rolled only if a hit unit needs one (a Gun hit needs none:
    // no effect, or destroyed by a CH). A Multiple Hit (C3.8) adds a second
    // DR for the non-CH hits, the firer's better one used (R59).
    let needs_dr = hits
        .iter()
        .any(|(_, k, _)| matches!(k, TargetKind::Personnel | TargetKind::Unarmored));
    let (first_dr, normal_dr) = if needs_dr {
        let purpose = if multiple {
            "Effects DR, first of a Multiple Hit".to_string()
        } else {
            format!("Effects DR of the hit in {target}")
        };
        let a = ctx
            .roll_dr2(purpose, if multiple { "C3.8" } else { "C3.3" })?
            .total();
        if multiple {
            let b = ctx
                .roll_dr2("Effects DR, second of a Multiple Hit", "C3.8")?
                .total();
            let used = a.min(b);
            emit(
                ctx,
                OrdnanceEvent::MultipleHit {
                    originals: [a, b],
                    used,
                },
                &["C3.8", "R59"],
            );
            (a, used)
        } else {
            (a, a)
        }
    } else {
        (0, 0)
    };
    for critical in [false, true] {
        let group: Vec<UnitId> = hits
            .iter()
            .filter(|(id, k, _)| *k == TargetKind::Personnel && ch.contains(id) == critical)
            .map(|h| h.0)
            .collect();
        if group.is_empty() {
            continue;
        }
        let original = if critical { first_dr } else { normal_dr };
        let fp = effects::he_fp(full_fp, shot.target_type, critical, into_marsh);
        let drm = effects::effects_tem(tem, shot.target_type, critical);
        let final_dr = i16::from(original) + i16::from(drm);
        let result = ift::lookup(fp, final_dr, 0);
        let cite: &[&str] = if critical {
            &["C3.71", "C3.74", "A7.3"]
        } else {
            &["C3.32", "C3.33", "C3.5", "A7.3"]
        };
        emit(
            ctx,
            OrdnanceEvent::Effects {
                targets: group.clone(),
                fp,
                critical,
                original,
                drm,
                final_dr,
                result,
            },
            cite,
        );
        morale::apply_ift_result(ctx, &group, result, &AttackInfo::ordnance(target))?;
    }
    for (id, kind, _) in &hits {
        let critical = ch.contains(id);
        match kind {
            TargetKind::Gun if critical => {
                // C3.71: the Gun and the Infantry that manned it when the
                // shot was fired, whatever the shot's IFT attack did to them.
                let crew: Vec<UnitId> = gun_crews
                    .iter()
                    .find(|(g, _)| g == id)
                    .and_then(|(_, c)| *c)
                    .into_iter()
                    .collect();
                morale::eliminate(ctx, *id, "Critical Hit on a Gun", &["C3.71"]);
                for c in &crew {
                    if ctx.state.unit(*c).is_some_and(Unit::in_play) {
                        morale::eliminate(ctx, *c, "Critical Hit on its Gun", &["C3.71"]);
                    }
                }
                emit(
                    ctx,
                    OrdnanceEvent::GunDestroyed { gun: *id, crew },
                    &["C3.71"],
                );
            }
            TargetKind::Gun => emit(ctx, OrdnanceEvent::GunHit { gun: *id }, &["C3.41"]),
            TargetKind::Unarmored => {
                // The Vehicle line takes no hex TEM (R60).
                let original = if critical { first_dr } else { normal_dr };
                let fp = effects::he_fp(full_fp, shot.target_type, critical, into_marsh);
                let final_dr = i16::from(original);
                let Some(line) = &line else { continue };
                let outcome: VehicleOutcome = ift::vehicle_line_in(line, fp, final_dr)
                    .map_err(r12)?
                    .into();
                emit(
                    ctx,
                    OrdnanceEvent::VehicleLine {
                        unit: *id,
                        fp,
                        critical,
                        final_dr,
                        outcome,
                    },
                    &["C3.32", "A7.308"],
                );
                prc::apply_outcome(ctx, *id, target, outcome)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The To Kill of a Vehicle Target Type hit (R77): the first hit struck
/// `aspect`; a CH doubles the Basic TK# (C3.71, C3.72); a Multiple Hit
/// (C3.8) rolls a second TK DR, its hit located by the first TK DR's dice
/// (C3.9: coloured below white is the turret), and the firer uses the TK
/// DR with the better result (the first on a tie, as R59 for the IFT).
#[allow(clippy::too_many_arguments)]
fn to_kill(
    ctx: &mut Ctx<'_>,
    vehicle: UnitId,
    hex: Hex,
    needs: crate::c3::to_kill::Needs,
    aspect: Aspect,
    critical: bool,
    multiple: bool,
    hull_down: bool,
) -> Res<()> {
    let basic = if critical {
        needs.basic_tk.saturating_mul(2)
    } else {
        needs.basic_tk
    };
    let roll = |ctx: &mut Ctx<'_>, purpose: String, cite: &str| -> Res<(u8, u8)> {
        match ctx.roll_dr2(purpose, cite)? {
            Roll::DR { coloured, white } => Ok((coloured, white)),
            _ => refuse("a TK DR is two dice", "C3.3"),
        }
    };
    let first = roll(ctx, format!("To Kill DR vs {vehicle}"), "C3.3")?;
    let mut struck = vec![(aspect, true, first)];
    if multiple {
        let second = roll(
            ctx,
            format!("To Kill DR vs {vehicle}, second hit of a Multiple Hit"),
            "C3.8",
        )?;
        let at = if first.0 < first.1 {
            Aspect::Turret
        } else {
            Aspect::Hull
        };
        struck.push((at, !(hull_down && at == Aspect::Hull), second));
    }
    let hits: Vec<TkHit> = struck
        .into_iter()
        .map(|(aspect, struck, (coloured, white))| {
            let af = needs.af(aspect);
            let final_tk = i16::from(basic) - i16::from(af);
            let dr = i16::from(coloured) + i16::from(white);
            let outcome = if struck {
                crate::c3::to_kill::outcome(final_tk, dr)
            } else {
                VehicleOutcome::NoEffect
            };
            TkHit {
                aspect,
                struck,
                af,
                final_tk,
                coloured,
                white,
                outcome,
            }
        })
        .collect();
    let rank = |o: VehicleOutcome| match o {
        VehicleOutcome::NoEffect => 0,
        VehicleOutcome::Immobilized => 1,
        VehicleOutcome::Eliminated => 2,
        VehicleOutcome::BurningWreck => 3,
    };
    let used = (0..hits.len())
        .rev()
        .max_by_key(|i| rank(hits[*i].outcome))
        .unwrap_or(0);
    let outcome = hits[used].outcome;
    emit(
        ctx,
        OrdnanceEvent::ToKill {
            unit: vehicle,
            from: needs.from,
            basic_tk: basic,
            hits,
            used: used as u8,
            outcome,
        },
        &["C3.3", "C3.71", "C3.72", "C3.8", "C3.9", "R77"],
    );
    prc::apply_outcome(ctx, vehicle, hex, outcome)
}

/// Marks the shot fired this phase and updates the firer's Acquisition
/// (Case N: consecutive shots at one hex from one hex and facing).
fn remember(ctx: &mut Ctx<'_>, gun: UnitId, target: Hex, from: Hex, facing: Option<Facing>) {
    let now = ctx.state.now();
    ctx.state.ordnance.fired_at.insert(gun, now);
    let shots = match ctx.state.ordnance.acquisition.get(&gun) {
        Some(a) if a.target == target && a.from == from && a.facing == facing => {
            a.shots.saturating_add(1).min(2)
        }
        _ => 1,
    };
    ctx.state.ordnance.acquisition.insert(
        gun,
        Acquisition {
            target,
            shots,
            from,
            facing,
        },
    );
}
