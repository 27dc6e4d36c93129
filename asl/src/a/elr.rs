//! Experience Level Rating: Replacement, Disruption and their immunities
//! (A19.1, A19.11, A19.12, A19.13, A19.132; rulings R11, R12).
//!
//! Data: `core/data/elr_replacement.csv` via [`crate::a::tables::elr`].
//! Replacing a unit takes it out of play (`status.eliminated`, no hex) and
//! puts new units with fresh ids (highest id + 1, so deterministic) in its
//! hex, with its side, nationality and traits; a [`MoraleEvent::Replaced`]
//! names the old and the new units.

use crate::a::morale::MoraleEvent;
use crate::a::tables::{self, ElrRow, ReplacedBy, ELR_CSV};
use crate::board::map::Map;
use crate::board::terrain::Terrain;
use crate::model::error::RuleError;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{Ctx, Res};
use crate::model::scenario::Scenario;
use crate::model::state::GameState;
use crate::model::unit::{
    Class, Infantry, InfantrySize, Leader, Strength, Trait, Unit, UnitId, UnitKind,
};
use crate::side::Side;

/// The leader quality ladder used for Replacement (A19.13): each leader is
/// Replaced by the next one. A 6+1 has no lower leader (A19.12).
pub const LEADER_LADDER: [(u8, i8); 6] = [(9, -2), (9, -1), (8, -1), (8, 0), (7, 0), (6, 1)];

/// Why a unit is Replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplacementCause {
    /// It failed a MC by more than its ELR (A19.13): the new units are
    /// broken.
    ElrFailure,
    /// Ammunition Shortage after an Original 12 on the IFT (A19.131): the
    /// new units keep the old unit's broken / unbroken status; a unit with
    /// no lower quality breaks unless berserk.
    AmmunitionShortage,
}

/// The current ELR of a side's OB (A19.1): the game state's value, or the
/// scenario's when the state has none.
pub fn current_elr(scenario: &Scenario, state: &GameState, side: Side) -> u8 {
    state
        .elr
        .get(&side)
        .copied()
        .or_else(|| scenario.sides.get(&side).map(|ob| ob.elr))
        .unwrap_or(0)
}

/// Whether a unit can never be Replaced for an ELR failure (A19.11):
/// crews, Commissars, Heroes, unarmed units, already broken units (and
/// vehicles, which take no MC).
pub fn immune_to_replacement(unit: &Unit) -> bool {
    !unit.is_personnel()
        || unit.is_crew()
        || unit.has(Trait::Commissar)
        || unit.has(Trait::Hero)
        || unit.has(Trait::Unarmed)
        || unit.status.broken
}

/// Whether a unit that would be Disrupted is only broken instead (A19.12
/// EXC): Partisans, Commissars, Gurkhas, U.S. Marines, Japanese, SS when the
/// opposing OB is Russian, Fanatic units and PRC (units aboard a vehicle).
pub fn exempt_from_disruption(scenario: &Scenario, unit: &Unit) -> bool {
    let opponent_russian = scenario
        .sides
        .get(&unit.side.opponent())
        .is_some_and(|ob| ob.nationality == "Russian");
    unit.has(Trait::Partisan)
        || unit.has(Trait::Commissar)
        || unit.has(Trait::Gurkha)
        || unit.has(Trait::UsMarine)
        || unit.has(Trait::Fanatic)
        || unit.nationality == "Japanese"
        || (unit.has(Trait::Ss) && opponent_russian)
        || unit.status.aboard.is_some()
}

/// A Disrupted unit may not Self-Rally (A19.12).
pub fn may_self_rally(unit: &Unit) -> bool {
    !unit.status.disrupted
}

/// Whether a Disrupted unit must surrender now (A19.12): it is ADJACENT to
/// or in the same Location as a Good Order, Known (not concealed) enemy
/// Personnel unit that is not in Melee. The caller applies the timing: an
/// ADJACENT enemy counts at the start of the RtPh, one in the same Location
/// in any phase (see [`disrupted_must_surrender_in_location`]). Units that
/// are not Disrupted never must. No Quarter (A20.3) is not modelled.
pub fn disrupted_must_surrender(state: &GameState, map: &Map, unit: UnitId) -> bool {
    surrender_check(state, unit, |u, e| u == e || map.adjacent(u, e))
}

/// The any-phase half of [`disrupted_must_surrender`]: a Good Order Known
/// enemy Personnel unit not in Melee is in the same Location (A19.12).
pub fn disrupted_must_surrender_in_location(state: &GameState, unit: UnitId) -> bool {
    surrender_check(state, unit, |u, e| u == e)
}

fn surrender_check(
    state: &GameState,
    unit: UnitId,
    near: impl Fn(crate::board::hex::Hex, crate::board::hex::Hex) -> bool,
) -> bool {
    let Some(u) = state.unit(unit) else {
        return false;
    };
    let Some(hex) = u.hex else { return false };
    if !u.status.disrupted || !u.in_play() {
        return false;
    }
    state.units.values().any(|e| {
        e.side != u.side
            && e.is_personnel()
            && e.good_order()
            && !e.status.concealed
            && !e.status.in_melee
            && e.status.aboard.is_none()
            && e.hex.is_some_and(|eh| near(hex, eh))
    })
}

/// Whether a Disrupted unit may rout (A19.12): only from an Open Ground or
/// Water Obstacle hex, or when every armed enemy unit ADJACENT is in Melee,
/// berserk or a vehicle. Units that are not Disrupted are not restricted by
/// this rule (true). Simplification: "Open Ground as per A10.531" is read
/// as the hex's main terrain being Open Ground.
pub fn disrupted_may_rout(state: &GameState, map: &Map, unit: UnitId) -> bool {
    let Some(u) = state.unit(unit) else {
        return false;
    };
    if !u.status.disrupted {
        return true;
    }
    let Some(hex) = u.hex else { return false };
    if matches!(map.info(hex).terrain, Terrain::Open | Terrain::Water) {
        return true;
    }
    state
        .units
        .values()
        .filter(|e| {
            e.side != u.side
                && e.in_play()
                && !e.has(Trait::Unarmed)
                && e.hex.is_some_and(|eh| map.adjacent(hex, eh))
        })
        .all(|e| e.status.in_melee || e.has(Trait::Berserk) || !e.is_personnel())
}

/// Disrupted infantry may not use Low Crawl, except at Night (A19.12).
pub fn may_low_crawl(unit: &Unit, night: bool) -> bool {
    !unit.status.disrupted || night
}

/// Whether a unit hinders enemy movement into or through its hex (A4.14):
/// a Disrupted unit does not (A19.12).
pub fn blocks_enemy_movement(unit: &Unit) -> bool {
    unit.in_play() && !unit.status.disrupted
}

/// A Disrupted unit still prevents enemy rout toward or through it
/// (A19.12, A10.51): true for every enemy unit in play.
pub fn blocks_enemy_rout(unit: &Unit) -> bool {
    unit.in_play()
}

/// A Disrupted unit in Melee may not Withdraw (A19.12).
pub fn may_withdraw_from_melee(unit: &Unit) -> bool {
    !unit.status.disrupted
}

/// A Disrupted unit still in Melee at the end of the CCPh is eliminated
/// unless captured (A19.12). The turn code calls this at that moment.
pub fn eliminated_at_end_of_close_combat(unit: &Unit) -> bool {
    unit.in_play() && unit.status.disrupted && unit.status.in_melee
}

/// The next lower leader of the ladder (A19.13), `None` for a 6+1 (and
/// an error for a leader not on the ladder: R12, no guessing).
pub fn lower_leader(l: Leader) -> Result<Option<Leader>, RuleError> {
    let pos = LEADER_LADDER
        .iter()
        .position(|&(m, d)| m == l.morale && d == l.leadership)
        .ok_or_else(|| {
            RuleError::new(
                format!("leader {l} is not on the Replacement ladder 9-2 > 9-1 > 8-1 > 8-0 > 7-0 > 6+1; its lower quality is not in the rules data"),
                "R12",
            )
        })?;
    Ok(LEADER_LADDER
        .get(pos + 1)
        .map(|&(morale, leadership)| Leader { morale, leadership }))
}

/// The `elr_replacement.csv` row of an Infantry unit, or an R12 error.
pub fn row_of(unit: &Unit, inf: &Infantry) -> Result<&'static ElrRow, RuleError> {
    let size = match inf.size {
        InfantrySize::Crew => {
            return Err(RuleError::new(
                format!("unit {} is a crew: crews are never Replaced", unit.id),
                "A19.11",
            ))
        }
        s => s,
    };
    tables::elr()
        .find(&unit.nationality, inf.strength, size, Some(inf.class))
        .ok_or_else(|| {
            tables::missing_cell(
                ELR_CSV,
                &format!("{} {} {:?}", unit.nationality, inf.strength, size),
                "unit (no such row)",
            )
        })
}

/// The Infantry data of a new unit of Strength `s` and `size` that replaces
/// `old` (A19.13: its class must drop). From the table row of that unit of
/// the same nationality, preferring one of a lower class; an R12 error if
/// the table has none.
fn new_infantry(
    unit: &Unit,
    old: &Infantry,
    s: Strength,
    size: InfantrySize,
) -> Result<Infantry, RuleError> {
    let rows: Vec<&ElrRow> = tables::elr()
        .rows
        .iter()
        .filter(|r| r.nationality == unit.nationality && r.unit == s && r.size == size)
        .collect();
    let row = rows
        .iter()
        .find(|r| r.class.is_some_and(|c| c < old.class))
        .or_else(|| rows.first())
        .ok_or_else(|| {
            tables::missing_cell(
                ELR_CSV,
                &format!("{} {} {:?}", unit.nationality, s, size),
                "unit (no such row)",
            )
        })?;
    Ok(Infantry {
        size,
        strength: s,
        underscored: row.underscored,
        class: row.class.unwrap_or(old.class),
    })
}

/// The next free unit id (highest + 1), or an error when the ids are
/// exhausted.
fn next_id(state: &GameState) -> Result<UnitId, RuleError> {
    match state.units.keys().next_back() {
        None => Ok(UnitId(0)),
        Some(u) => {
            u.0.checked_add(1).map(UnitId).ok_or_else(|| {
                RuleError::new("no unit id is left for a Replacement unit", "A19.13")
            })
        }
    }
}

/// Puts new units of `kinds` in place of `old` and takes `old` out of play.
/// The new units are broken for an ELR failure, keep the old unit's
/// broken status otherwise; they are never concealed.
fn put_in_place(
    ctx: &mut Ctx<'_>,
    old: UnitId,
    kinds: Vec<UnitKind>,
    cause: ReplacementCause,
    cite: &[&str],
) -> Res<Vec<UnitId>> {
    let Some(o) = ctx.state.unit(old).cloned() else {
        return Err(RuleError::new(format!("unit {old} is not in this game"), "A19.13").into());
    };
    let mut new_ids = Vec::new();
    let n = kinds.len();
    for (i, kind) in kinds.into_iter().enumerate() {
        let id = next_id(&ctx.state)?;
        let mut u = o.clone();
        u.id = id;
        u.kind = kind;
        let suffix = if n > 1 {
            ["a", "b", "c"].get(i).copied().unwrap_or("x")
        } else {
            ""
        };
        u.name = format!(
            "{}>{}{}",
            o.name,
            u.label().split(' ').next().unwrap_or(""),
            suffix
        );
        u.status.concealed = false;
        u.status.disrupted = false;
        if cause == ReplacementCause::ElrFailure {
            u.status.broken = true;
        }
        if i > 0 {
            u.daisy_chain = None;
        }
        ctx.state.units.insert(id, u);
        new_ids.push(id);
    }
    // A Passenger/Rider's vehicle now carries the new units.
    if let Some(v) = o.status.aboard {
        if let Some(UnitKind::Vehicle(veh)) = ctx.state.units.get_mut(&v).map(|u| &mut u.kind) {
            for list in [&mut veh.passengers, &mut veh.riders] {
                if let Some(p) = list.iter().position(|x| *x == old) {
                    list.splice(p..=p, new_ids.iter().copied());
                }
            }
        }
    }
    if let Some(u) = ctx.state.units.get_mut(&old) {
        u.status.eliminated = true;
        u.hex = None;
        u.daisy_chain = None;
    }
    let to: Vec<String> = new_ids
        .iter()
        .filter_map(|id| ctx.state.unit(*id).map(Unit::label))
        .collect();
    ctx.emit(
        Visibility::Public,
        EventKind::Morale(MoraleEvent::Replaced {
            old,
            from: o.label(),
            new: new_ids.clone(),
            to,
        }),
        cite,
    );
    Ok(new_ids)
}

/// Breaks a unit and, unless exempt (A19.12 EXC), Disrupts it: what
/// happens when no lower unit exists (`DIS`, 6+1 leader) or an underscored
/// HS fails beyond its ELR (A19.13, R11).
fn break_and_disrupt(ctx: &mut Ctx<'_>, unit: UnitId, cite: &[&str]) -> Res<()> {
    let exempt = ctx
        .state
        .unit(unit)
        .is_some_and(|u| exempt_from_disruption(ctx.scenario, u));
    crate::a::morale::break_unit(ctx, unit, cite);
    if !exempt {
        if let Some(u) = ctx.state.units.get_mut(&unit) {
            u.status.disrupted = true;
        }
        ctx.emit(
            Visibility::Public,
            EventKind::Morale(MoraleEvent::Disrupted { unit }),
            cite,
        );
    }
    Ok(())
}

/// Replaces an unbroken unit that failed a MC by more than its ELR
/// (A19.13), or after an Ammunition Shortage Original 12 (A19.131).
/// Returns the units now in play in its place (the unit itself when it was
/// broken/Disrupted instead). The caller checks the ELR immunities of
/// A19.11 ([`immune_to_replacement`]).
pub fn replace(ctx: &mut Ctx<'_>, unit: UnitId, cause: ReplacementCause) -> Res<Vec<UnitId>> {
    let Some(u) = ctx.state.unit(unit).cloned() else {
        return Err(RuleError::new(format!("unit {unit} is not in this game"), "A19.13").into());
    };
    let cite_main: &[&str] = match cause {
        ReplacementCause::ElrFailure => &["A19.13"],
        ReplacementCause::AmmunitionShortage => &["A19.131", "A19.13"],
    };
    // What to do when there is no lower unit.
    let no_lower = |ctx: &mut Ctx<'_>, cite: &[&str]| -> Res<Vec<UnitId>> {
        match cause {
            ReplacementCause::ElrFailure => break_and_disrupt(ctx, unit, cite)?,
            ReplacementCause::AmmunitionShortage => {
                if !u.has(Trait::Berserk) {
                    crate::a::morale::break_unit(ctx, unit, &["A19.131"]);
                }
            }
        }
        Ok(vec![unit])
    };
    match &u.kind {
        UnitKind::Vehicle(_) | UnitKind::Gun(_) => Err(RuleError::new(
            format!("unit {unit} is a vehicle or Gun: only Personnel are Replaced"),
            "A19.13",
        )
        .into()),
        UnitKind::Leader(l) => match lower_leader(*l)? {
            Some(lower) => put_in_place(ctx, unit, vec![UnitKind::Leader(lower)], cause, cite_main),
            None => no_lower(ctx, &["A19.12", "A19.13"]),
        },
        UnitKind::Infantry(inf) => {
            let row = row_of(&u, inf)?;
            let ob = ctx.scenario.sides.get(&u.side);
            let elr = current_elr(ctx.scenario, &ctx.state, u.side);
            let ssr_low = inf.underscored && ob.is_some_and(|o| o.elr_by_ssr) && elr <= 4;
            let size = inf.size;
            if ssr_low {
                // A19.132: normal Replacement whatever the drop.
                let target = match (row.ssr_elr_le4_replaced_by, &row.replaced_by) {
                    (Some(s), _) => Some(s),
                    (None, ReplacedBy::One(s)) => Some(*s),
                    (None, ReplacedBy::Disrupted) => None,
                    (None, ReplacedBy::TwoHalfSquads(_)) => {
                        return Err(tables::missing_cell(
                            ELR_CSV,
                            &format!("{} ({} {})", row.row, row.nationality, row.unit),
                            "ssr_elr_le4_replaced_by",
                        )
                        .into())
                    }
                };
                return match target {
                    Some(s) => {
                        let k = new_infantry(&u, inf, s, size)?;
                        put_in_place(
                            ctx,
                            unit,
                            vec![UnitKind::Infantry(k)],
                            cause,
                            &["A19.132", "A19.13"],
                        )
                    }
                    None => no_lower(ctx, &["A19.132", "A19.12"]),
                };
            }
            if inf.underscored && size == InfantrySize::HalfSquad {
                // A19.13 EXC, R11: Disrupted instead (unless exempt).
                return no_lower(ctx, &["A19.13", "R11", "A19.12"]);
            }
            match row.replaced_by {
                ReplacedBy::One(s) => {
                    let k = new_infantry(&u, inf, s, size)?;
                    put_in_place(ctx, unit, vec![UnitKind::Infantry(k)], cause, cite_main)
                }
                ReplacedBy::TwoHalfSquads(s) => {
                    let k = new_infantry(&u, inf, s, InfantrySize::HalfSquad)?;
                    put_in_place(
                        ctx,
                        unit,
                        vec![UnitKind::Infantry(k.clone()), UnitKind::Infantry(k)],
                        cause,
                        cite_main,
                    )
                }
                ReplacedBy::Disrupted => no_lower(ctx, &["A19.12", "A19.13"]),
            }
        }
    }
}

/// A19.13 EXC: a squad whose Casualty MC failure also exceeds its ELR is
/// Reduced to a broken HS of lesser quality: Casualty Reduction to its HS,
/// then that HS is Replaced (an underscored HS is Disrupted instead, R11;
/// no lower HS: Disrupted unless exempt). Returns the units in its place.
pub fn casualty_replace(ctx: &mut Ctx<'_>, squad: UnitId) -> Res<Vec<UnitId>> {
    crate::a::morale::casualty_reduce_citing(ctx, squad, &["A10.31", "A19.13", "A7.302"])?;
    match ctx.state.unit(squad) {
        Some(u) if u.in_play() => replace(ctx, squad, ReplacementCause::ElrFailure),
        _ => Ok(Vec::new()),
    }
}

/// The class of a unit for the Replacement rules, if Infantry.
pub fn class_of(unit: &Unit) -> Option<Class> {
    unit.infantry().map(|i| i.class)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::unit::Status;
    use std::collections::BTreeSet;

    fn unit(kind: UnitKind, nationality: &str) -> Unit {
        Unit {
            id: UnitId(0),
            name: "u".into(),
            side: Side::B,
            nationality: nationality.into(),
            kind,
            traits: BTreeSet::new(),
            hex: None,
            status: Status::default(),
            daisy_chain: None,
        }
    }

    fn squad(s: &str, class: Class) -> Unit {
        unit(
            UnitKind::Infantry(Infantry {
                size: InfantrySize::Squad,
                strength: s.parse().unwrap(),
                underscored: false,
                class,
            }),
            "German",
        )
    }

    #[test]
    fn a19_13_leader_ladder() {
        let l = |m, d| Leader {
            morale: m,
            leadership: d,
        };
        assert_eq!(lower_leader(l(9, -2)).unwrap(), Some(l(9, -1)));
        assert_eq!(lower_leader(l(9, -1)).unwrap(), Some(l(8, -1)));
        assert_eq!(lower_leader(l(8, -1)).unwrap(), Some(l(8, 0)));
        assert_eq!(lower_leader(l(8, 0)).unwrap(), Some(l(7, 0)));
        assert_eq!(lower_leader(l(7, 0)).unwrap(), Some(l(6, 1)));
        assert_eq!(lower_leader(l(6, 1)).unwrap(), None);
        let e = lower_leader(l(10, -2)).unwrap_err();
        assert!(e.reason.contains("10-2") && e.cite == vec!["R12".to_string()]);
    }

    #[test]
    fn a19_11_immunities() {
        let mut s = squad("4-6-7", Class::FirstLine);
        assert!(!immune_to_replacement(&s));
        for t in [Trait::Commissar, Trait::Hero, Trait::Unarmed] {
            let mut u = s.clone();
            u.traits.insert(t);
            assert!(immune_to_replacement(&u), "{t:?}");
        }
        s.status.broken = true;
        assert!(immune_to_replacement(&s));
        let crew = unit(
            UnitKind::Infantry(Infantry {
                size: InfantrySize::Crew,
                strength: "2-2-8".parse().unwrap(),
                underscored: false,
                class: Class::Elite,
            }),
            "German",
        );
        assert!(immune_to_replacement(&crew));
        let leader = unit(
            UnitKind::Leader(Leader {
                morale: 8,
                leadership: -1,
            }),
            "German",
        );
        assert!(
            !immune_to_replacement(&leader),
            "leaders are subject (A19.1)"
        );
    }

    #[test]
    fn a19_12_disruption_exemptions() {
        use crate::model::scenario::SideOb;
        let mut sc = Scenario::default();
        sc.sides.insert(
            Side::A,
            SideOb {
                nationality: "American".into(),
                ..SideOb::default()
            },
        );
        let plain = squad("4-3-6", Class::Conscript);
        assert!(!exempt_from_disruption(&sc, &plain));
        let mut ss = plain.clone();
        ss.traits.insert(Trait::Ss);
        assert!(!exempt_from_disruption(&sc, &ss), "SS only vs Russians");
        sc.sides.get_mut(&Side::A).unwrap().nationality = "Russian".into();
        assert!(exempt_from_disruption(&sc, &ss));
        for t in [
            Trait::Partisan,
            Trait::Commissar,
            Trait::Gurkha,
            Trait::UsMarine,
            Trait::Fanatic,
        ] {
            let mut u = plain.clone();
            u.traits.insert(t);
            assert!(exempt_from_disruption(&sc, &u), "{t:?}");
        }
        let mut jap = plain.clone();
        jap.nationality = "Japanese".into();
        assert!(exempt_from_disruption(&sc, &jap));
        let mut prc = plain.clone();
        prc.status.aboard = Some(UnitId(7));
        assert!(exempt_from_disruption(&sc, &prc), "PRC");
    }

    #[test]
    fn a19_12_disrupted_melee_and_movement_queries() {
        let mut d = squad("4-3-6", Class::Conscript);
        assert!(blocks_enemy_movement(&d) && may_withdraw_from_melee(&d));
        d.status.broken = true;
        d.status.disrupted = true;
        assert!(!blocks_enemy_movement(&d));
        assert!(blocks_enemy_rout(&d));
        assert!(!may_withdraw_from_melee(&d));
        assert!(!eliminated_at_end_of_close_combat(&d));
        d.status.in_melee = true;
        assert!(eliminated_at_end_of_close_combat(&d));
    }

    /// A19.13: no factor rises, at least one drops, the class drops, for
    /// every single-unit Replacement of the nationalities whose rows the
    /// data file reports as checked.
    #[test]
    fn a19_13_replacements_in_the_data_only_lower_quality() {
        let checked = [
            "German",
            "American",
            "Russian",
            "British",
            "French",
            "Allied Minor",
            "Finnish",
            "Axis Minor",
        ];
        let mut n = 0;
        for row in tables::elr()
            .rows
            .iter()
            .filter(|r| checked.contains(&r.nationality.as_str()))
        {
            let (ReplacedBy::One(s) | ReplacedBy::TwoHalfSquads(s)) = row.replaced_by else {
                continue;
            };
            if row.underscored {
                continue; // A19.13 EXC / A19.132 rows
            }
            let old = unit(
                UnitKind::Infantry(Infantry {
                    size: row.size,
                    strength: row.unit,
                    underscored: row.underscored,
                    class: row.class.unwrap(),
                }),
                &row.nationality,
            );
            let new = new_infantry(&old, old.infantry().unwrap(), s, row.size).unwrap();
            let (a, b) = (row.unit, new.strength);
            assert!(
                b.fp <= a.fp && b.range <= a.range && b.morale <= a.morale,
                "row {}",
                row.row
            );
            assert!(b != a, "row {}", row.row);
            assert!(
                new.class < row.class.unwrap(),
                "row {}: class must drop",
                row.row
            );
            n += 1;
        }
        assert!(n > 30);
    }
}
