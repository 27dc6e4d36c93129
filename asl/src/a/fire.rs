//! Infantry fire on the IFT with Inherent FP (A7; Cowering A7.9, A19.33;
//! Ammunition Shortage A19.131).
//!
//! A Fire Group is one or more Good Order Infantry units of the actor, in
//! one hex or a contiguous group of hexes (A7.5), plus any leaders among
//! them. Every firing hex needs LOS to the target (the board's LOS model,
//! ground level to ground level) and every MMC must be within its normal
//! range. The FP is the sum of the Inherent FP of the MMC, doubled for an
//! MMC ADJACENT to the target (Point Blank Fire, A7.21). Stated
//! simplifications: Long Range Fire (beyond normal range, A7.22) is refused
//! rather than halved, and so is fire by pinned MMC (A7.8: halved FP);
//! no concealed-target or Area Fire halving; no
//! SW; fire into the firers' own Location is refused. The TEM is the
//! target hex's ([`crate::board::terrain::HexInfo::tem`]); Hindrances and other
//! DRM come in as the action's `extra_drm`. Vehicles in the target hex are
//! not attacked (their Vehicle line / TK resolution is not part of this
//! action).

use crate::a::ammunition;
use crate::a::ift::{self, IftResult};
use crate::a::inexperience;
use crate::a::morale::{self, AttackInfo};
use crate::board::hex::Hex;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{refuse, Ctx, Res};
use crate::model::unit::{Class, Trait, Unit, UnitId, UnitKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Events of Infantry fire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FireEvent {
    /// A Fire Group attacked a hex on the IFT.
    Attack {
        /// The firing units.
        firers: Vec<UnitId>,
        /// The target hex.
        target: Hex,
        /// Total FP.
        fp: u8,
        /// The FP column used (after any Cowering shift).
        column: u8,
        /// The Original DR.
        original: u8,
        /// TEM of the target hex.
        tem: i8,
        /// Leadership DRM of the directing leader.
        leadership: i8,
        /// Other DRM declared with the action.
        extra_drm: i8,
        /// Final DR.
        final_dr: i16,
        /// Columns shifted by Cowering (0, -1 or -2).
        cowering_shift: i8,
        /// The IFT result.
        result: IftResult,
    },
    /// The Fire Group cowered (A7.9; two columns with Inexperienced
    /// Personnel, A19.33).
    Cowered {
        /// Columns shifted (negative = left).
        shift: i8,
    },
    /// Ammunition Shortage strikes an MMC of the Fire Group (A19.131).
    AmmunitionShortage {
        /// The selected MMC.
        unit: UnitId,
    },
}

/// Whether a firer never cowers (A7.9 as read here): Heroes, berserk
/// units, Finnish and Japanese units, British Elite units.
pub fn never_cowers(unit: &Unit) -> bool {
    unit.has(Trait::Hero)
        || unit.has(Trait::Berserk)
        || unit.nationality == "Finnish"
        || unit.nationality == "Japanese"
        || (unit.nationality == "British"
            && unit.infantry().is_some_and(|i| i.class == Class::Elite))
}

/// Whether the hexes form one contiguous group (A7.5).
fn contiguous(map: &crate::board::map::Map, hexes: &BTreeSet<Hex>) -> bool {
    let all: Vec<Hex> = hexes.iter().copied().collect();
    let Some(&first) = all.first() else {
        return true;
    };
    let mut seen = vec![first];
    let mut i = 0;
    while i < seen.len() {
        let h = seen[i];
        for &o in &all {
            if !seen.contains(&o) && map.adjacent(h, o) {
                seen.push(o);
            }
        }
        i += 1;
    }
    seen.len() == all.len()
}

/// Resolves `Action::Fire`: checks the Fire Group, rolls the IFT DR, applies
/// the result to every enemy Personnel unit in the target hex, then any
/// Ammunition Shortage (A19.131). A refusal changes nothing.
pub fn resolve_fire(ctx: &mut Ctx<'_>, firers: &[UnitId], target: Hex, extra_drm: i8) -> Res<()> {
    if firers.is_empty() {
        return refuse("a Fire Group needs at least one firing unit", "A7.5");
    }
    let mut fg: Vec<Unit> = Vec::new();
    for f in firers {
        let Some(u) = ctx.state.unit(*f) else {
            return refuse(format!("unit {f} is not in this game"), "A7");
        };
        if fg.iter().any(|x| x.id == *f) {
            return refuse(
                format!("unit {f} is listed twice in the Fire Group"),
                "A7.5",
            );
        }
        if u.side != ctx.actor {
            return refuse(
                format!(
                    "unit {f} belongs to side {}, not to side {}",
                    u.side, ctx.actor
                ),
                "A7",
            );
        }
        if !u.in_play() || u.hex.is_none() {
            return refuse(format!("unit {f} is not on the map"), "A7");
        }
        if u.status.broken {
            return refuse(format!("unit {f} is broken and may not fire"), "A10.5");
        }
        if u.status.pinned && u.is_mmc() {
            return refuse(
                format!("unit {f} is pinned: the halved FP of pinned units is not adjudicated"),
                "A7.8",
            );
        }
        if u.status.aboard.is_some() {
            return refuse(
                format!("unit {f} is aboard a vehicle: fire from vehicles is not adjudicated"),
                "A7",
            );
        }
        match &u.kind {
            UnitKind::Vehicle(_) => {
                return refuse(
                    format!("unit {f} is a vehicle: only Infantry fire with Inherent FP here"),
                    "A7",
                )
            }
            UnitKind::Infantry(_) if u.has(Trait::Unarmed) => {
                return refuse(format!("unit {f} is unarmed and has no Inherent FP"), "A7")
            }
            _ => {}
        }
        fg.push(u.clone());
    }
    let mmc: Vec<UnitId> = fg.iter().filter(|u| u.is_mmc()).map(|u| u.id).collect();
    if mmc.is_empty() {
        return refuse(
            "a Fire Group needs Infantry with Inherent FP (a leader alone has none)",
            "A7",
        );
    }
    let hexes: BTreeSet<Hex> = fg.iter().filter_map(|u| u.hex).collect();
    if !contiguous(&ctx.scenario.map, &hexes) {
        return refuse("the Fire Group's hexes are not contiguous", "A7.5");
    }
    if hexes.contains(&target) {
        return refuse(
            "fire into the firers' own Location is not adjudicated (Close Combat)",
            "A7",
        );
    }
    if !ctx.scenario.map.boards.is_empty() && !ctx.scenario.map.contains(target) {
        return refuse(format!("target hex {target} is not on the map"), "A7");
    }
    // R76 (ruleset version 3): fire at a Location holding friendly units
    // (a Melee, A11) would attack them too; not adjudicated, so refused
    // rather than resolved against the enemy alone.
    if ctx.scenario.since(3) {
        let actor = ctx.actor;
        if let Some(f) = ctx.state.units_in(target).find(|u| u.side == actor) {
            return refuse(
                format!(
                    "{target} holds friendly unit {} ({}): fire into a Location with friendly units (Melee) is not adjudicated (R76)",
                    f.id, f.name
                ),
                "A7",
            );
        }
    }
    let map = &ctx.scenario.map;
    let target_level = map.info(target).level;
    let mut fp_sum: u32 = 0;
    for u in &fg {
        let hex = u.hex.expect("checked above");
        if !map.has_los(hex, map.info(hex).level, target, target_level) {
            return refuse(
                format!("unit {} in {hex} has no LOS to {target}", u.id),
                "A6",
            );
        }
        let Some(inf) = u.infantry() else { continue };
        let d = map.distance(hex, target);
        if d > u32::from(inf.strength.range) {
            return refuse(
                format!(
                    "unit {} is {d} hexes from {target}, beyond its normal range {}: Long Range Fire is not adjudicated",
                    u.id, inf.strength.range
                ),
                "A7.22",
            );
        }
        // A7.21 Point Blank Fire: doubled against an ADJACENT Location.
        let pbf = if d == 1 { 2 } else { 1 };
        fp_sum += u32::from(inf.strength.fp) * pbf;
    }
    let fp = u8::try_from(fp_sum).unwrap_or(u8::MAX);
    // A7.53-ish: one leader directs a single-Location Fire Group.
    let leader = if hexes.len() == 1 {
        let hex = *hexes.iter().next().expect("one hex");
        ctx.state
            .units_in(hex)
            .filter(|l| l.side == ctx.actor && l.good_order() && l.status.aboard.is_none())
            .filter_map(|l| l.leader().map(|x| x.leadership))
            .min()
    } else {
        None
    };
    let leadership = leader.map_or(0, |d| d.min(0));
    let tem_drm = ctx.scenario.map.info(target).tem();
    let roll = ctx.roll_dr2(format!("IFT DR: {fp} FP at {target}"), "A7.3")?;
    let original = roll.total();
    let final_dr =
        i16::from(original) + i16::from(tem_drm) + i16::from(leadership) + i16::from(extra_drm);
    let cowers = roll.is_doubles()
        && leader.is_none()
        && !fg.iter().filter(|u| u.is_mmc()).all(never_cowers);
    let shift = if cowers {
        inexperience::cowering_shift(&ctx.state, &mmc)
    } else {
        0
    };
    if cowers {
        let cite: &[&str] = if shift == -2 {
            &["A7.9", "A19.33"]
        } else {
            &["A7.9"]
        };
        ctx.emit(
            Visibility::Public,
            EventKind::Fire(FireEvent::Cowered { shift }),
            cite,
        );
    }
    let result = ift::lookup(fp, final_dr, shift);
    let column = ift::shifted_column(fp, shift).map_or(0, |c| crate::a::tables::IFT_COLUMNS[c]);
    ctx.emit(
        Visibility::Public,
        EventKind::Fire(FireEvent::Attack {
            firers: firers.to_vec(),
            target,
            fp,
            column,
            original,
            tem: tem_drm,
            leadership,
            extra_drm,
            final_dr,
            cowering_shift: shift,
            result,
        }),
        &["A7.3"],
    );
    let actor = ctx.actor;
    let targets: Vec<UnitId> = ctx
        .state
        .units_in(target)
        .filter(|u| u.side != actor && u.is_personnel())
        .map(|u| u.id)
        .collect();
    morale::apply_ift_result(ctx, &targets, result, &AttackInfo::fire(target))?;
    ammunition::after_attack(ctx, actor, &mmc, original)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a7_5_contiguity() {
        let map = crate::board::map::Map::new([4]);
        let h = |s: &str| s.parse::<Hex>().unwrap();
        let set = |v: &[&str]| v.iter().map(|s| h(s)).collect::<BTreeSet<Hex>>();
        assert!(contiguous(&map, &set(&["4E2"])));
        assert!(contiguous(&map, &set(&["4E2", "4E3", "4E4"])));
        assert!(!contiguous(&map, &set(&["4E2", "4E4"])));
    }
}
