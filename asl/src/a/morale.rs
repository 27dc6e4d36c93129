//! Morale Checks, Task Checks, Casualty Reduction and how IFT results are
//! applied to the units of a Location (A7.3, A10, A19; rulings R7, R11).
//!
//! Simplifications, stated once: Leader Loss MC/TC (A10.2), Heat of Battle
//! (A15) and wounds (A17) are not modelled; a leader (or Hero) that suffers
//! Casualty Reduction is eliminated. Leadership modifies the MC/TC of the
//! other, non-leader friendly units in its Location only.

use crate::a::elr::{self, ReplacementCause};
use crate::a::ift::IftResult;
use crate::a::random_selection;
use crate::a::tables::{self, ReducedTo, ELR_CSV};
use crate::board::hex::Hex;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{Ctx, Res};
use crate::model::state::GameState;
use crate::model::unit::{InfantrySize, Trait, Unit, UnitId, UnitKind};
use serde::{Deserialize, Serialize};

/// Events of Morale, Task Checks, ELR, Replacement, Disruption and Casualty
/// Reduction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoraleEvent {
    /// An IFT result is applied to the units of a Location.
    IftResult {
        /// The result.
        result: IftResult,
        /// The attacked Location, if known.
        hex: Option<Hex>,
        /// What caused the attack.
        cause: AttackCause,
        /// The Personnel units it applies to.
        targets: Vec<UnitId>,
    },
    /// A Morale Check (A10).
    MoraleCheck {
        /// The unit.
        unit: UnitId,
        /// Why it was taken.
        why: String,
        /// Its Morale Level.
        morale_level: u8,
        /// The Original DR.
        original: u8,
        /// DRM from the attack and the caller (e.g. +2 for a 2MC).
        drm: i8,
        /// Leadership DRM of a leader in the Location.
        leadership: i8,
        /// Final DR.
        final_dr: i16,
        /// Whether it passed.
        passed: bool,
        /// An Original 12: a Casualty MC (A10.31).
        casualty_mc: bool,
        /// Failed by more than the OB's ELR (A19.1).
        beyond_elr: bool,
    },
    /// A Task Check (PTC or other TC).
    TaskCheck {
        /// The unit.
        unit: UnitId,
        /// Why it was taken.
        why: String,
        /// Its Morale Level.
        morale_level: u8,
        /// The Original DR.
        original: u8,
        /// DRM from the attack and the caller.
        drm: i8,
        /// Leadership DRM of a leader in the Location.
        leadership: i8,
        /// Final DR.
        final_dr: i16,
        /// Whether it passed.
        passed: bool,
        /// Taken only for Booby Trap purposes: the unit is immune to PTC
        /// (B28.9).
        booby_trap_only: bool,
    },
    /// A unit broke (A10).
    Broken {
        /// The unit.
        unit: UnitId,
    },
    /// A unit was pinned (A7.8).
    Pinned {
        /// The unit.
        unit: UnitId,
    },
    /// A unit was Disrupted (A19.12).
    Disrupted {
        /// The unit.
        unit: UnitId,
    },
    /// Casualty Reduction of a squad to a HS (A7.302).
    CasualtyReduced {
        /// The unit (it keeps its id).
        unit: UnitId,
        /// What it was.
        from: String,
        /// What it is now.
        to: String,
    },
    /// A unit was eliminated.
    Eliminated {
        /// The unit.
        unit: UnitId,
        /// What it was.
        what: String,
        /// Why.
        why: String,
    },
    /// Unit Replacement (A19.13, A19.131, A19.132): `old` leaves play and
    /// `new` take its place.
    Replaced {
        /// The Replaced unit.
        old: UnitId,
        /// What it was.
        from: String,
        /// The new units.
        new: Vec<UnitId>,
        /// What they are.
        to: Vec<String>,
    },
    /// A concealed unit lost its concealment (A12.14, B28.411).
    ConcealmentLost {
        /// The unit.
        unit: UnitId,
    },
    /// Random Selection (A.9, R7).
    RandomSelection {
        /// What it was for.
        why: String,
        /// The candidates, in the order rolled.
        candidates: Vec<UnitId>,
        /// One dr per candidate.
        rolls: Vec<u8>,
        /// Who was selected.
        selected: Vec<UnitId>,
    },
}

/// What made an IFT attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AttackCause {
    /// Infantry fire (A7).
    Fire,
    /// A minefield attack (B28.41).
    Minefield,
    /// A Fire For Effect or aerial bomb attack (B28.62).
    Ffe,
    /// A Collateral attack on Vulnerable PRC (B28.43).
    Collateral,
    /// A Booby Trap (B28.9).
    BoobyTrap,
    /// Anything else.
    Other,
    /// An ordnance hit (C3.32, C3.33).
    Ordnance,
}

/// How an IFT attack is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttackInfo {
    /// What made the attack.
    pub cause: AttackCause,
    /// The attacked Location, if any.
    pub hex: Option<Hex>,
    /// Rules to cite on the events.
    pub cite: Vec<&'static str>,
    /// A concealed unit loses concealment only if it breaks or suffers
    /// Casualty Reduction (B28.411); otherwise whenever the attack affects
    /// it (broken, pinned, reduced, eliminated; A12.14 as read here).
    pub concealment_only_on_break_or_cr: bool,
}

impl AttackInfo {
    /// Infantry fire at a hex (A7).
    pub fn fire(hex: Hex) -> AttackInfo {
        AttackInfo {
            cause: AttackCause::Fire,
            hex: Some(hex),
            cite: vec!["A7.3"],
            concealment_only_on_break_or_cr: false,
        }
    }

    /// An HE Concentration FFE or aerial bomb attack in a hex (B28.62).
    pub fn ffe(hex: Hex) -> AttackInfo {
        AttackInfo {
            cause: AttackCause::Ffe,
            hex: Some(hex),
            cite: vec!["B28.62", "A7.3"],
            concealment_only_on_break_or_cr: false,
        }
    }

    /// An ordnance hit on the IFT (C3.32, C3.33, C3.71).
    pub fn ordnance(hex: Hex) -> AttackInfo {
        AttackInfo {
            cause: AttackCause::Ordnance,
            hex: Some(hex),
            cite: vec!["C3.3", "A7.3"],
            concealment_only_on_break_or_cr: false,
        }
    }

    /// A Collateral attack on Vulnerable PRC (B28.43).
    pub fn collateral(hex: Hex) -> AttackInfo {
        AttackInfo {
            cause: AttackCause::Collateral,
            hex: Some(hex),
            cite: vec!["B28.43", "A7.3"],
            concealment_only_on_break_or_cr: false,
        }
    }

    /// A minefield attack in a hex (B28.41, B28.411).
    pub fn minefield(hex: Hex) -> AttackInfo {
        AttackInfo {
            cause: AttackCause::Minefield,
            hex: Some(hex),
            cite: vec!["B28.41", "B28.411"],
            concealment_only_on_break_or_cr: true,
        }
    }
}

/// What a Morale Check did to the unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McEffect {
    /// Passed: nothing.
    None,
    /// Broken.
    Broken,
    /// Broken and Disrupted (A19.12).
    Disrupted,
    /// Replaced by these broken units (A19.13).
    Replaced(Vec<UnitId>),
    /// Casualty Reduced (and broken) (A10.31, A10.3).
    CasualtyReduced,
    /// Eliminated (Casualty Reduction of a HS/crew/leader).
    Eliminated,
}

/// The outcome of a Morale Check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McOutcome {
    /// Passed.
    pub passed: bool,
    /// Original DR.
    pub original: u8,
    /// Final DR.
    pub final_dr: i16,
    /// What it did.
    pub effect: McEffect,
}

/// The outcome of a Task Check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcOutcome {
    /// Passed.
    pub passed: bool,
    /// Original DR (B28.9 Booby Traps look at it).
    pub original: u8,
    /// Final DR.
    pub final_dr: i16,
}

/// The leadership DRM that applies to a unit's MC/TC: that of the best
/// Good Order friendly leader in its Location (same hex, not aboard), for a
/// non-leader unit; 0 otherwise.
pub fn leadership_drm(state: &GameState, unit: &Unit) -> i8 {
    if unit.leader().is_some() || unit.status.aboard.is_some() {
        return 0;
    }
    let Some(hex) = unit.hex else { return 0 };
    state
        .units_in(hex)
        .filter(|l| l.id != unit.id && l.side == unit.side && l.good_order())
        .filter_map(|l| l.leader().map(|x| x.leadership))
        .min()
        .map_or(0, |d| d.min(0))
}

fn personnel(ctx: &Ctx<'_>, unit: UnitId, rule: &str) -> Res<Unit> {
    match ctx.state.unit(unit) {
        Some(u) if u.is_personnel() && u.in_play() => Ok(u.clone()),
        Some(u) if !u.is_personnel() => Err(crate::model::error::RuleError::new(
            format!("unit {unit} is a vehicle and takes no MC/TC"),
            rule,
        )
        .into()),
        Some(_) => Err(crate::model::error::RuleError::new(
            format!("unit {unit} is no longer in play"),
            rule,
        )
        .into()),
        None => Err(crate::model::error::RuleError::new(
            format!("unit {unit} is not in this game"),
            rule,
        )
        .into()),
    }
}

/// Breaks a unit (A10) and says so publicly. Already broken: nothing.
pub fn break_unit(ctx: &mut Ctx<'_>, unit: UnitId, cite: &[&str]) {
    let Some(u) = ctx.state.units.get_mut(&unit) else {
        return;
    };
    if u.status.broken || !u.in_play() {
        return;
    }
    u.status.broken = true;
    ctx.emit(
        Visibility::Public,
        EventKind::Morale(MoraleEvent::Broken { unit }),
        cite,
    );
}

/// Eliminates a unit and says so publicly.
pub fn eliminate(ctx: &mut Ctx<'_>, unit: UnitId, why: &str, cite: &[&str]) {
    let Some(u) = ctx.state.units.get_mut(&unit) else {
        return;
    };
    if !u.in_play() {
        return;
    }
    let what = u.label();
    u.status.eliminated = true;
    u.hex = None;
    u.daisy_chain = None;
    ctx.emit(
        Visibility::Public,
        EventKind::Morale(MoraleEvent::Eliminated {
            unit,
            what,
            why: why.to_string(),
        }),
        cite,
    );
}

/// A Morale Check (A10): Original DR + `drm` + leadership (an unbroken
/// leader in the Location, for other units) against the Morale Level.
/// On failure: an already broken unit is Casualty Reduced (A10.3); an
/// Original 12 is a Casualty MC (A10.31): Casualty Reduction and the unit
/// breaks, and a squad that also fails beyond its ELR is Reduced to a
/// broken HS of lesser quality (A19.13 EXC); otherwise failing by more than
/// the OB's current ELR Replaces the unit (A19.13; immunities A19.11;
/// Disruption A19.12) and any other failure breaks it.
pub fn morale_check(ctx: &mut Ctx<'_>, unit: UnitId, drm: i8, why: &str) -> Res<McOutcome> {
    let u = personnel(ctx, unit, "A10")?;
    let ml = u.morale().unwrap_or(0);
    let lead = leadership_drm(&ctx.state, &u);
    let roll = ctx.roll_dr2(format!("MC of {} {unit} ({why})", u.label()), "A10")?;
    let original = roll.total();
    let final_dr = i16::from(original) + i16::from(drm) + i16::from(lead);
    let casualty_mc = original == 12; // A10.31
    let passed = !casualty_mc && final_dr <= i16::from(ml);
    let failed_by = final_dr - i16::from(ml);
    let elr = elr::current_elr(ctx.scenario, &ctx.state, u.side);
    let beyond_elr = !passed && failed_by > i16::from(elr) && !elr::immune_to_replacement(&u);
    let mut cites = vec!["A10"];
    if casualty_mc {
        cites.push("A10.31");
    }
    if beyond_elr {
        cites.push("A19.1");
    }
    ctx.emit(
        Visibility::Public,
        EventKind::Morale(MoraleEvent::MoraleCheck {
            unit,
            why: why.to_string(),
            morale_level: ml,
            original,
            drm,
            leadership: lead,
            final_dr,
            passed,
            casualty_mc,
            beyond_elr,
        }),
        &cites,
    );
    let effect = if passed {
        McEffect::None
    } else if u.status.broken {
        // A10.3: a broken unit failing a MC is Casualty Reduced.
        reduce_effect(ctx, unit, &["A10.3", "A7.302"])?
    } else if casualty_mc {
        let is_squad = u.infantry().is_some_and(|i| i.size == InfantrySize::Squad);
        if beyond_elr && is_squad {
            // A19.13 EXC.
            let new = elr::casualty_replace(ctx, unit)?;
            if new.as_slice() == [unit] {
                disrupted_or_broken(ctx, unit)
            } else {
                McEffect::Replaced(new)
            }
        } else {
            let e = reduce_effect(ctx, unit, &["A10.31", "A7.302"])?;
            break_unit(ctx, unit, &["A10.31"]);
            e
        }
    } else if beyond_elr {
        let new = elr::replace(ctx, unit, ReplacementCause::ElrFailure)?;
        if new.as_slice() == [unit] {
            disrupted_or_broken(ctx, unit)
        } else {
            McEffect::Replaced(new)
        }
    } else {
        break_unit(ctx, unit, &["A10"]);
        McEffect::Broken
    };
    Ok(McOutcome {
        passed,
        original,
        final_dr,
        effect,
    })
}

fn disrupted_or_broken(ctx: &Ctx<'_>, unit: UnitId) -> McEffect {
    if ctx.state.unit(unit).is_some_and(|u| u.status.disrupted) {
        McEffect::Disrupted
    } else {
        McEffect::Broken
    }
}

fn reduce_effect(ctx: &mut Ctx<'_>, unit: UnitId, cite: &[&str]) -> Res<McEffect> {
    casualty_reduce_citing(ctx, unit, cite)?;
    Ok(if ctx.state.unit(unit).is_some_and(Unit::in_play) {
        McEffect::CasualtyReduced
    } else {
        McEffect::Eliminated
    })
}

/// Whether a unit is immune to PTC and takes one only for Booby Trap
/// purposes (B28.9): berserk units and Heroes (A7.8 as read here).
pub fn immune_to_ptc(unit: &Unit) -> bool {
    unit.has(Trait::Berserk) || unit.has(Trait::Hero)
}

fn tc_roll(
    ctx: &mut Ctx<'_>,
    unit: UnitId,
    drm: i8,
    why: &str,
    booby_trap_only: bool,
) -> Res<TcOutcome> {
    let u = personnel(ctx, unit, "A7.305")?;
    let ml = u.morale().unwrap_or(0);
    let lead = leadership_drm(&ctx.state, &u);
    let roll = ctx.roll_dr2(format!("TC of {} {unit} ({why})", u.label()), "A7.305")?;
    let original = roll.total();
    let final_dr = i16::from(original) + i16::from(drm) + i16::from(lead);
    let passed = final_dr <= i16::from(ml);
    ctx.emit(
        Visibility::Public,
        EventKind::Morale(MoraleEvent::TaskCheck {
            unit,
            why: why.to_string(),
            morale_level: ml,
            original,
            drm,
            leadership: lead,
            final_dr,
            passed,
            booby_trap_only,
        }),
        &["A7.305"],
    );
    Ok(TcOutcome {
        passed,
        original,
        final_dr,
    })
}

/// A Task Check: Original DR + `drm` + leadership against the Morale
/// Level; the caller decides what failure means. Every TC then calls the
/// Booby Trap hook with its Original DR (B28.9).
pub fn task_check(ctx: &mut Ctx<'_>, unit: UnitId, drm: i8, why: &str) -> Res<TcOutcome> {
    let out = tc_roll(ctx, unit, drm, why, false)?;
    crate::b28::booby_trap::after_task_check(ctx, unit, out.original)?;
    Ok(out)
}

/// A Pin Task Check (A7.305): failure pins the unit, it never breaks it.
/// A unit immune to PTC takes it only for Booby Trap purposes and is never
/// pinned (B28.9). Calls the Booby Trap hook.
pub fn pin_task_check(ctx: &mut Ctx<'_>, unit: UnitId, drm: i8, why: &str) -> Res<TcOutcome> {
    let immune = ctx.state.unit(unit).is_some_and(immune_to_ptc);
    let out = tc_roll(ctx, unit, drm, why, immune)?;
    if !out.passed && !immune {
        if let Some(u) = ctx.state.units.get_mut(&unit) {
            u.status.pinned = true;
        }
        ctx.emit(
            Visibility::Public,
            EventKind::Morale(MoraleEvent::Pinned { unit }),
            &["A7.305", "A7.8"],
        );
    }
    crate::b28::booby_trap::after_task_check(ctx, unit, out.original)?;
    Ok(out)
}

/// Casualty Reduction (A7.302): a squad becomes its HS (`red_to` of
/// `elr_replacement.csv`, same id, same status); a HS or crew is
/// eliminated; a leader is eliminated (wounds, A17, are not modelled).
/// A squad whose row is not in the table is an R12 error.
pub fn casualty_reduce(ctx: &mut Ctx<'_>, unit: UnitId) -> Res<()> {
    casualty_reduce_citing(ctx, unit, &["A7.302"])
}

/// [`casualty_reduce`] whose events cite `cite` (the rule that caused the
/// Reduction: A10.3, A10.31, B28.9 ...).
pub fn casualty_reduce_citing(ctx: &mut Ctx<'_>, unit: UnitId, cite: &[&str]) -> Res<()> {
    let u = personnel(ctx, unit, "A7.302")?;
    match &u.kind {
        UnitKind::Infantry(inf) if inf.size == InfantrySize::Squad => {
            let row = elr::row_of(&u, inf)?;
            match row.red_to {
                ReducedTo::Eliminated => {
                    eliminate(ctx, unit, "Casualty Reduction", cite);
                }
                ReducedTo::HalfSquad(hs) => {
                    let hs_row = tables::elr().find(
                        &u.nationality,
                        hs,
                        InfantrySize::HalfSquad,
                        Some(inf.class),
                    );
                    let from = u.label();
                    let underscored = match hs_row {
                        Some(r) => r.underscored,
                        None => {
                            return Err(tables::missing_cell(
                                ELR_CSV,
                                &format!("{} {} HalfSquad", u.nationality, hs),
                                "unit (no such row)",
                            )
                            .into())
                        }
                    };
                    let to = {
                        let m = ctx
                            .state
                            .units
                            .get_mut(&unit)
                            .expect("checked by personnel()");
                        if let UnitKind::Infantry(i) = &mut m.kind {
                            i.size = InfantrySize::HalfSquad;
                            i.strength = hs;
                            i.underscored = underscored;
                        }
                        m.label()
                    };
                    ctx.emit(
                        Visibility::Public,
                        EventKind::Morale(MoraleEvent::CasualtyReduced { unit, from, to }),
                        cite,
                    );
                }
            }
        }
        _ => eliminate(ctx, unit, "Casualty Reduction", cite),
    }
    Ok(())
}

/// Casualty Reduction of at least one of `candidates` chosen by Random
/// Selection (ties all, R7), e.g. for a Booby Trap (B28.9). Returns the
/// Reduced units.
pub fn random_casualty_reduction(
    ctx: &mut Ctx<'_>,
    candidates: &[UnitId],
    why: &str,
) -> Res<Vec<UnitId>> {
    let alive: Vec<UnitId> = candidates
        .iter()
        .copied()
        .filter(|c| {
            ctx.state
                .unit(*c)
                .is_some_and(|u| u.is_personnel() && u.in_play())
        })
        .collect();
    let picked = random_selection::select(ctx, &alive, 1, why)?;
    for p in &picked {
        casualty_reduce(ctx, *p)?;
    }
    Ok(picked)
}

/// Snapshot of what matters for concealment loss.
#[derive(Clone, Copy)]
struct Before {
    broken: bool,
    pinned: bool,
    size: Option<InfantrySize>,
}

/// Applies an IFT result to the Personnel `targets` of one Location
/// (ift_result_semantics.csv): nKIA: Random Selection of `n` units (ties
/// all) eliminated, the rest break, no MC (A7.301); K/n: Random Selection
/// Casualty Reduces one unit (ties all), then every target still in play,
/// the Reduced one included, takes an nMC (A7.302, R7); nMC/NMC: each
/// target takes the MC; PTC: each takes a PTC; no effect: nothing.
/// Leaders take their checks first, then the others by id. Vehicles and
/// units out of play among `targets` are ignored. Concealment loss per
/// [`AttackInfo::concealment_only_on_break_or_cr`].
pub fn apply_ift_result(
    ctx: &mut Ctx<'_>,
    targets: &[UnitId],
    result: IftResult,
    attack: &AttackInfo,
) -> Res<()> {
    let mut tg: Vec<UnitId> = targets
        .iter()
        .copied()
        .filter(|t| {
            ctx.state
                .unit(*t)
                .is_some_and(|u| u.is_personnel() && u.in_play())
        })
        .collect();
    tg.sort_by_key(|t| (ctx.state.unit(*t).is_some_and(|u| u.leader().is_none()), *t));
    tg.dedup();
    let cite: Vec<&str> = attack.cite.clone();
    ctx.emit(
        Visibility::Public,
        EventKind::Morale(MoraleEvent::IftResult {
            result,
            hex: attack.hex,
            cause: attack.cause,
            targets: tg.clone(),
        }),
        &cite,
    );
    let before: Vec<(UnitId, Before)> = tg
        .iter()
        .filter_map(|t| {
            ctx.state.unit(*t).map(|u| {
                (
                    *t,
                    Before {
                        broken: u.status.broken,
                        pinned: u.status.pinned,
                        size: u.infantry().map(|i| i.size),
                    },
                )
            })
        })
        .collect();
    let why = format!("{result} {:?}", attack.cause);
    match result {
        IftResult::NoEffect => {}
        IftResult::Kia(n) => {
            let dead = random_selection::select(ctx, &tg, n, &format!("{result}"))?;
            for d in &dead {
                eliminate(ctx, *d, &format!("{result}"), &["A7.301"]);
            }
            for t in tg.iter().filter(|t| !dead.contains(t)) {
                break_unit(ctx, *t, &["A7.301"]);
            }
        }
        IftResult::K(n) => {
            let reduced = random_selection::select(ctx, &tg, 1, &format!("{result}"))?;
            for r in &reduced {
                casualty_reduce_citing(ctx, *r, &["A7.302", "R7"])?;
            }
            for t in &tg {
                if ctx.state.unit(*t).is_some_and(Unit::in_play) {
                    morale_check(ctx, *t, n as i8, &why)?;
                }
            }
        }
        IftResult::Mc(n) => {
            for t in &tg {
                if ctx.state.unit(*t).is_some_and(Unit::in_play) {
                    morale_check(ctx, *t, n as i8, &why)?;
                }
            }
        }
        IftResult::Nmc => {
            for t in &tg {
                if ctx.state.unit(*t).is_some_and(Unit::in_play) {
                    morale_check(ctx, *t, 0, &why)?;
                }
            }
        }
        IftResult::Ptc => {
            for t in &tg {
                if ctx.state.unit(*t).is_some_and(Unit::in_play) {
                    pin_task_check(ctx, *t, 0, &why)?;
                }
            }
        }
    }
    // Concealment (A12.14; B28.411).
    for (t, b) in before {
        let Some(u) = ctx.state.unit(t) else { continue };
        if !u.status.concealed || !u.in_play() {
            continue;
        }
        let broke = u.status.broken && !b.broken;
        let reduced = u.infantry().map(|i| i.size) != b.size;
        let pinned = u.status.pinned && !b.pinned;
        let lose = if attack.concealment_only_on_break_or_cr {
            broke || reduced
        } else {
            broke || reduced || pinned
        };
        if lose {
            if let Some(m) = ctx.state.units.get_mut(&t) {
                m.status.concealed = false;
            }
            let mut c = cite.clone();
            c.push("A12.14");
            ctx.emit(
                Visibility::Public,
                EventKind::Morale(MoraleEvent::ConcealmentLost { unit: t }),
                &c,
            );
        }
    }
    Ok(())
}
