//! Victory conditions of a miniatures scenario (`[victory]`, docs/
//! SCENARIO.md; ruleset version 2, ruling R79). Seed 004 gives none, so
//! the scenario states them, in the shape ASL's `[victory]` has (the
//! kernel's [`hexveil_core::victory`]): conditions tried in file order at
//! the end of the last turn, the first that holds naming the winner,
//! `otherwise` when none does. A condition asks any of:
//!
//! - `hold`: named objectives (closed rectangles in inches) the side holds
//!   at the end: one of its figures still in action (active or immobilized)
//!   inside, and no enemy figure in action inside;
//! - `removed`: at least this many enemy figures out of action (a
//!   destroyed vehicle, an Infantry figure removed after a failed save);
//! - `points`: at least this many points for the enemy figures out of
//!   action, by kind, as `victory.points` values them.
//!
//! A condition with several parts needs them all. The verdict is the
//! engine's outcome, so the referee writes it in the end record and
//! `hexveil verify` re-derives it (G5).

use crate::geom::TENTHS;
use crate::scenario::{FigureKind, MinisScenario, Rect};
use crate::state::{GameState, Status};
use hexveil_core::{Outcome, Side};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Points for an enemy figure out of action, by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointValues {
    /// An Infantry figure.
    pub infantry: u32,
    /// A soft vehicle.
    pub soft: u32,
    /// An AFV.
    pub afv: u32,
}

impl PointValues {
    fn of(&self, kind: FigureKind) -> u32 {
        match kind {
            FigureKind::Infantry => self.infantry,
            FigureKind::Soft => self.soft,
            FigureKind::Afv => self.afv,
        }
    }
}

/// One condition as the file gives it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionFile {
    /// The side that wins by it.
    pub side: Side,
    /// Objectives (names of `victory.objectives`) it must hold.
    #[serde(default)]
    pub hold: Vec<String>,
    /// Enemy figures out of action, at least.
    #[serde(default)]
    pub removed: Option<u32>,
    /// Points for enemy figures out of action, at least.
    #[serde(default)]
    pub points: Option<u32>,
}

/// The `[victory]` table as the file gives it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VictoryFile {
    /// `"A"`, `"B"` or `"draw"`: who wins when no condition holds.
    #[serde(default)]
    pub otherwise: Option<String>,
    /// Points per enemy figure out of action, by kind.
    #[serde(default)]
    pub points: Option<PointValues>,
    /// Named objectives: closed rectangles `[x0, y0, x1, y1]` in inches.
    #[serde(default)]
    pub objectives: BTreeMap<String, Rect>,
    /// The conditions, in order.
    #[serde(default)]
    pub conditions: Vec<ConditionFile>,
}

/// One condition, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The side that wins by it.
    pub side: Side,
    /// Objectives to hold, by name.
    pub hold: Vec<String>,
    /// Enemy figures out of action, at least.
    pub removed: Option<u32>,
    /// Points, at least.
    pub points: Option<u32>,
}

/// A scenario's victory conditions, checked at load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Victory {
    /// The winner when no condition holds; `None`: a draw.
    pub otherwise: Option<Side>,
    /// Points per kind (required when a condition counts points).
    pub points: Option<PointValues>,
    /// Named objectives.
    pub objectives: BTreeMap<String, Rect>,
    /// The conditions, in file order.
    pub conditions: Vec<Condition>,
}

/// Checks the `[victory]` table on a `width` x `depth` in table; each error
/// names its field (`victory.conditions[1].hold[0]`, ...).
pub fn parse(f: VictoryFile, width: u16, depth: u16) -> Result<Victory, String> {
    let otherwise = hexveil_core::victory::parse_otherwise(f.otherwise.as_deref())
        .map_err(|e| format!("scenario: victory.otherwise: {e}"))?;
    for (name, r) in &f.objectives {
        if name.is_empty() || r[0] > r[2] || r[1] > r[3] || r[2] > width || r[3] > depth {
            return Err(format!(
                "scenario: victory.objectives.{name} = {r:?}: not a named rectangle [x0, y0, x1, y1] on the {width} x {depth} in table"
            ));
        }
    }
    if f.conditions.is_empty() {
        return Err(
            "scenario: victory.conditions: give at least one condition ([[victory.conditions]])"
                .into(),
        );
    }
    let mut conditions = Vec::new();
    for (i, c) in f.conditions.into_iter().enumerate() {
        let field = format!("scenario: victory.conditions[{i}]");
        if c.hold.is_empty() && c.removed.is_none() && c.points.is_none() {
            return Err(format!(
                "{field}: a condition needs hold = [objectives], removed = N or points = N"
            ));
        }
        for (j, name) in c.hold.iter().enumerate() {
            if !f.objectives.contains_key(name) {
                return Err(format!(
                    "{field}.hold[{j}] = {name:?}: no objective of that name in victory.objectives"
                ));
            }
            if c.hold[..j].contains(name) {
                return Err(format!("{field}.hold[{j}] = {name:?}: named twice"));
            }
        }
        if c.removed == Some(0) || c.points == Some(0) {
            return Err(format!("{field}: a threshold is at least 1"));
        }
        if c.points.is_some() && f.points.is_none() {
            return Err(format!(
                "{field}.points: give victory.points = {{ infantry, soft, afv }}, what each enemy figure out of action is worth"
            ));
        }
        conditions.push(Condition {
            side: c.side,
            hold: c.hold,
            removed: c.removed,
            points: c.points,
        });
    }
    Ok(Victory {
        otherwise,
        points: f.points,
        objectives: f.objectives,
        conditions,
    })
}

/// Whether a figure is in action (on the table and a figure still): not
/// destroyed nor removed.
fn in_action(s: Status) -> bool {
    matches!(s, Status::Active | Status::Immobilized)
}

/// The sides with a figure in action inside `r` (closed, inches).
fn inside(sc: &MinisScenario, st: &GameState, r: &Rect) -> (bool, bool) {
    let mut sides = (false, false);
    for (f, fs) in sc.figures.iter().zip(&st.figures) {
        let t = |v: u16| i32::from(v) * TENTHS;
        let is_in =
            (t(r[0])..=t(r[2])).contains(&fs.pos.x) && (t(r[1])..=t(r[3])).contains(&fs.pos.y);
        if is_in && in_action(fs.status) {
            match f.side {
                Side::A => sides.0 = true,
                Side::B => sides.1 = true,
            }
        }
    }
    sides
}

/// Who holds objective `r` now: the side alone with a figure in action in
/// it.
pub fn holder(sc: &MinisScenario, st: &GameState, r: &Rect) -> Option<Side> {
    match inside(sc, st, r) {
        (true, false) => Some(Side::A),
        (false, true) => Some(Side::B),
        _ => None,
    }
}

/// The enemy figures of `side` out of action, and their points.
pub fn removed_by(
    sc: &MinisScenario,
    st: &GameState,
    side: Side,
    points: Option<PointValues>,
) -> (u32, u32) {
    let mut n = 0;
    let mut p = 0;
    for (f, fs) in sc.figures.iter().zip(&st.figures) {
        if f.side != side && !in_action(fs.status) {
            n += 1;
            p += points.map_or(0, |v| v.of(f.kind));
        }
    }
    (n, p)
}

fn check(sc: &MinisScenario, st: &GameState, v: &Victory, c: &Condition) -> Result<String, String> {
    let side = c.side;
    let mut holds = Vec::new();
    let mut fails = Vec::new();
    if !c.hold.is_empty() {
        let lost: Vec<String> = c
            .hold
            .iter()
            .filter_map(|name| match holder(sc, st, &v.objectives[name]) {
                Some(s) if s == side => None,
                Some(s) => Some(format!("{name} is side {s}'s")),
                None => Some(format!("{name} is held by nobody")),
            })
            .collect();
        if lost.is_empty() {
            holds.push(format!("holds {}", c.hold.join(" and ")));
        } else {
            fails.push(format!(
                "side {side} does not hold {} ({})",
                c.hold.join(" and "),
                lost.join(", ")
            ));
        }
    }
    let (n, p) = removed_by(sc, st, side, v.points);
    if let Some(need) = c.removed {
        if n >= need {
            holds.push(format!(
                "has put {n} enemy figures out of action ({need} needed)"
            ));
        } else {
            fails.push(format!(
                "side {side} has put {n} enemy figures out of action of the {need} needed"
            ));
        }
    }
    if let Some(need) = c.points {
        if p >= need {
            holds.push(format!("has {p} points ({need} needed)"));
        } else {
            fails.push(format!("side {side} has {p} points of the {need} needed"));
        }
    }
    if fails.is_empty() {
        Ok(format!("side {side} {}", holds.join(" and ")))
    } else {
        Err(fails.join(" and "))
    }
}

/// The verdict at the end of the last turn (R79, the kernel's judge).
pub fn judge(sc: &MinisScenario, st: &GameState, v: &Victory) -> Outcome {
    let when = format!("turn {}", sc.turns);
    hexveil_core::victory::judge(&v.conditions, v.otherwise, &when, |c| {
        (c.side, check(sc, st, v, c))
    })
}
