//! The Covered Arc (C3.2-C3.22).
//!
//! A vehicle or Gun faces one hexspine of its hex. Its CA is the wedge
//! between the two hexrows that leave its hex across the two hexsides
//! meeting at that hexspine, both rows included: every hex reached by `a`
//! steps across the first hexside and `b` across the second (`a, b >= 0`,
//! `a + b` the range). A barrel drawn at a hexside is ambiguous: the
//! opponent picks one of the two hexspines of that hexside (C3.2).

use crate::board::hex::{Direction, Hex, MapPos, Spine};
use crate::board::map::Map;
use crate::model::error::RuleError;
use crate::model::event::{EventKind, Visibility};
use crate::model::phase::Phase;
use crate::model::resolve::{refuse, Ctx, Res};
use crate::model::state::GameState;
use crate::model::unit::{Facing, UnitId};

/// The two hexsides that bound the CA of `spine` (C3.2).
fn bounds(spine: Spine) -> [(i32, i32); 2] {
    let [a, b] = spine.hexsides();
    [a.delta(), b.delta()]
}

/// `(a, b)` with `delta = a * d1 + b * d2`, if integral.
fn solve(delta: (i32, i32), d1: (i32, i32), d2: (i32, i32)) -> Option<(i32, i32)> {
    let det = d1.0 * d2.1 - d1.1 * d2.0;
    let a = delta.0 * d2.1 - delta.1 * d2.0;
    let b = d1.0 * delta.1 - d1.1 * delta.0;
    (a % det == 0 && b % det == 0).then(|| (a / det, b / det))
}

/// Whether `target` lies in the CA of a unit in `from` facing `spine`
/// (C3.2). The unit's own hex is in no CA (range 0 needs no facing).
pub fn in_ca(map: &Map, from: Hex, spine: Spine, target: Hex) -> bool {
    let (Some(p), Some(q)) = (map.pos(from), map.pos(target)) else {
        return false;
    };
    in_ca_pos(p, spine, q)
}

fn in_ca_pos(p: MapPos, spine: Spine, q: MapPos) -> bool {
    let [d1, d2] = bounds(spine);
    match solve((q.x - p.x, q.y - p.y), d1, d2) {
        Some((a, b)) => a >= 0 && b >= 0 && a + b > 0,
        None => false,
    }
}

/// Every hex of the map in the CA of a unit in `from` facing `spine`, up
/// to `range` hexes, nearest first (C3.2).
pub fn ca_hexes(map: &Map, from: Hex, spine: Spine, range: u32) -> Vec<Hex> {
    let Some(p) = map.pos(from) else {
        return Vec::new();
    };
    let [d1, d2] = bounds(spine);
    let mut out = Vec::new();
    for r in 1..=range as i32 {
        for b in 0..=r {
            let a = r - b;
            let q = p.offset(a * d1.0 + b * d2.0, a * d1.1 + b * d2.1);
            if let Some(h) = map.hex_at(q) {
                out.push(h);
            }
        }
    }
    out
}

/// How many hexspines a turn from `from` to `to` passes, the shorter way
/// round (0..=3): the Case A count (C3.21, C5.1).
pub fn spines_turned(from: Spine, to: Spine) -> u8 {
    let i = |s: Spine| Spine::ALL.iter().position(|x| *x == s).unwrap_or(0) as i32;
    let d = (i(to) - i(from)).rem_euclid(6);
    d.min(6 - d) as u8
}

/// The two hexspines at the ends of a hexside: the candidates when a
/// barrel points at that hexside (C3.2).
pub fn spines_of_hexside(d: Direction) -> [Spine; 2] {
    let mut found = Spine::ALL.into_iter().filter(|s| s.hexsides().contains(&d));
    let a = found.next().unwrap_or(Spine::E);
    let b = found.next().unwrap_or(Spine::E);
    [a, b]
}

/// The hexspine a unit's CA runs from, or why it has none yet.
pub fn ca_of(state: &GameState, unit: UnitId) -> Result<Spine, RuleError> {
    let u = state
        .unit(unit)
        .ok_or_else(|| RuleError::new(format!("unit {unit} is not in this game"), "C3.2"))?;
    match u.status.facing {
        Some(Facing::Spine(s)) => Ok(s),
        Some(Facing::Hexside(d)) => {
            let [a, b] = spines_of_hexside(d);
            Err(RuleError::new(
                format!(
                    "{} faces hexside {d}: its CA is ambiguous until side {} picks hexspine {a} or {b} (ChooseCa)",
                    u.name,
                    u.side.opponent()
                ),
                "C3.2",
            ))
        }
        None => Err(RuleError::new(
            format!("{} has no facing (scenario field ca)", u.name),
            "C3.2",
        )),
    }
}

/// C3.22: units that changed CA in their PFPh may not move this Player
/// Turn. Checked when a move is declared (public state only).
pub fn check_may_move(state: &GameState, units: &[UnitId]) -> Result<(), RuleError> {
    for id in units {
        let Some(u) = state.unit(*id) else { continue };
        if u.gun().is_some() {
            return Err(RuleError::new(
                format!(
                    "{} is a Gun: it moves only by Pushing or limbering (C10), which is not adjudicated",
                    u.name
                ),
                "C3.22",
            ));
        }
        if state.ordnance.no_move.get(id) == Some(&(state.turn, state.phasing)) {
            return Err(RuleError::new(
                format!(
                    "{} changed CA without firing in the PFPh: it may not move this Player Turn",
                    u.name
                ),
                "C3.22",
            ));
        }
    }
    Ok(())
}

/// Events of Covered Arcs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CaEvent {
    /// A unit turned to a new hexspine (C3.21 to fire, C3.22 without).
    Changed {
        /// The Gun or vehicle.
        unit: UnitId,
        /// Its facing before.
        from: Option<Facing>,
        /// The new hexspine.
        to: Spine,
        /// Hexspines turned (Case A).
        spines: u8,
        /// Turned to fire (C3.21) rather than without fire (C3.22).
        to_fire: bool,
    },
    /// The opponent picked the hexspine of an ambiguous facing (C3.2).
    Chosen {
        /// The Gun or vehicle.
        unit: UnitId,
        /// The hexspine picked.
        ca: Spine,
    },
}

fn emit(ctx: &mut Ctx<'_>, e: CaEvent, cite: &[&str]) {
    ctx.emit(
        Visibility::Public,
        EventKind::Ordnance(crate::c3::ordnance::OrdnanceEvent::Ca(e)),
        cite,
    );
}

/// Resolves `Action::ChangeCa` (C3.22): at the end of a friendly fire
/// phase, by a Gun that could still fire (it has not fired this phase:
/// Rate of Fire is not adjudicated, so a Gun that fired could fire again
/// only by Intensive Fire). It may not fire again this phase; in the PFPh
/// the Gun (even a vehicle's) and the Infantry manning it may not move
/// this Player Turn.
pub fn resolve_change(ctx: &mut Ctx<'_>, unit: UnitId, ca: Spine) -> Res<()> {
    let Some(u) = ctx.state.unit(unit).cloned() else {
        return refuse(format!("unit {unit} is not in this game"), "C3.22");
    };
    if u.ordnance().is_none() {
        return refuse(
            format!("{} fires no ordnance and has no CA", u.name),
            "C3.2",
        );
    }
    if !u.in_play() || u.hex.is_none() {
        return refuse(format!("{} is not on the map", u.name), "C3.22");
    }
    let now = ctx.state.now();
    if ctx.state.ordnance.fired_at.get(&unit) == Some(&now) {
        return refuse(
            format!(
                "{} fired this phase: only a crew still able to fire without Intensive Fire changes CA without firing",
                u.name
            ),
            "C3.22",
        );
    }
    let crew = crate::c3::ordnance::manning(&ctx.state, &u);
    if u.gun().is_some() && crew.is_none() {
        return refuse(
            format!("{} has no Good Order crew to turn it", u.name),
            "C3.22",
        );
    }
    let from = u.status.facing;
    let spines = match from {
        Some(Facing::Spine(s)) => spines_turned(s, ca),
        _ => 1,
    };
    if from == Some(Facing::Spine(ca)) {
        return refuse(format!("{} already faces {ca}", u.name), "C3.22");
    }
    if let Some(m) = ctx.state.units.get_mut(&unit) {
        m.status.facing = Some(Facing::Spine(ca));
    }
    ctx.state.ordnance.ca_changed_at.insert(unit, now);
    ctx.state.ordnance.acquisition.remove(&unit);
    if now.phase == Phase::PrepFire {
        let key = (now.turn, now.phasing);
        ctx.state.ordnance.no_move.insert(unit, key);
        if let Some(c) = crew {
            ctx.state.ordnance.no_move.insert(c, key);
        }
    }
    emit(
        ctx,
        CaEvent::Changed {
            unit,
            from,
            to: ca,
            spines,
            to_fire: false,
        },
        &["C3.22"],
    );
    Ok(())
}

/// Resolves `Action::ChooseCa` (C3.2): the opponent of a unit whose barrel
/// points at a hexside picks one of that hexside's two hexspines.
pub fn resolve_choose(ctx: &mut Ctx<'_>, unit: UnitId, ca: Spine) -> Res<()> {
    let Some(u) = ctx.state.unit(unit).cloned() else {
        return refuse(format!("unit {unit} is not in this game"), "C3.2");
    };
    if u.side == ctx.actor {
        return refuse(
            format!(
                "{} is side {}'s own: the opponent picks an ambiguous CA",
                u.name, u.side
            ),
            "C3.2",
        );
    }
    let Some(Facing::Hexside(d)) = u.status.facing else {
        return refuse(
            format!("{}'s CA is not ambiguous: there is nothing to pick", u.name),
            "C3.2",
        );
    };
    let options = spines_of_hexside(d);
    if !options.contains(&ca) {
        return refuse(
            format!(
                "{ca} is not a hexspine of hexside {d}: pick {} or {}",
                options[0], options[1]
            ),
            "C3.2",
        );
    }
    if let Some(m) = ctx.state.units.get_mut(&unit) {
        m.status.facing = Some(Facing::Spine(ca));
    }
    emit(ctx, CaEvent::Chosen { unit, ca }, &["C3.2"]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Hex {
        s.parse().unwrap()
    }

    #[test]
    fn c3_2_ca_is_the_wedge_between_the_two_hexrows() {
        let map = Map::new([4]);
        // Facing SSW from 4E5: the hexrows S (E6, E7 ...) and SW (D5, C6 ...).
        let ca = ca_hexes(&map, h("4E5"), Spine::SSW, 2);
        let want: Vec<Hex> = ["4E6", "4D5", "4E7", "4D6", "4C6"]
            .iter()
            .map(|s| h(s))
            .collect();
        assert_eq!(ca, want);
        assert!(in_ca(&map, h("4E5"), Spine::SSW, h("4C6")));
        assert!(!in_ca(&map, h("4E5"), Spine::SSW, h("4F6")));
        assert!(!in_ca(&map, h("4E5"), Spine::SSW, h("4E5")));
    }

    #[test]
    fn c3_21_turns_count_the_shorter_way() {
        assert_eq!(spines_turned(Spine::E, Spine::E), 0);
        assert_eq!(spines_turned(Spine::E, Spine::SSE), 1);
        assert_eq!(spines_turned(Spine::E, Spine::NNE), 1);
        assert_eq!(spines_turned(Spine::E, Spine::W), 3);
        assert_eq!(spines_turned(Spine::NNW, Spine::SSE), 3);
        assert_eq!(spines_turned(Spine::SSW, Spine::NNE), 3);
        assert_eq!(spines_turned(Spine::SSW, Spine::E), 2);
    }

    #[test]
    fn c3_2_a_hexside_has_two_candidate_spines() {
        let [a, b] = spines_of_hexside(Direction::S);
        assert!([a, b].contains(&Spine::SSE) && [a, b].contains(&Spine::SSW));
        for d in Direction::ALL {
            let [a, b] = spines_of_hexside(d);
            assert_ne!(a, b);
            assert!(a.hexsides().contains(&d) && b.hexsides().contains(&d));
        }
    }
}
