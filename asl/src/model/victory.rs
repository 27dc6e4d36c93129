//! A scenario's victory conditions (the `[victory]` table of the scenario
//! file, `docs/SCENARIO.md`), as data. Judging them at the end of the last
//! Game Turn, hex control and Casualty Victory Points are in
//! [`crate::victory`]; the readings are rulings R53-R56 in
//! `docs/RULINGS.md`.

use crate::board::hex::Hex;
use crate::board::map::Map;
use crate::model::scenario::{parse_hex, parse_side, ScenarioError};
use crate::model::unit::{InfantrySize, Unit, UnitKind};
use crate::side::Side;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Casualty Victory Points of a unit eliminated or captured, by kind
/// (A26 as these rules read it, R55): squad 2, half-squad 1, crew 1;
/// leader 1, vehicle 2 and Gun 2 unless the scenario says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CvpValues {
    /// A squad.
    pub squad: u32,
    /// A half-squad.
    pub half_squad: u32,
    /// A crew.
    pub crew: u32,
    /// A leader.
    pub leader: u32,
    /// A vehicle.
    pub vehicle: u32,
    /// A Gun (R58: 2, as a vehicle, unless the scenario says otherwise).
    pub gun: u32,
}

impl Default for CvpValues {
    fn default() -> CvpValues {
        CvpValues {
            squad: 2,
            half_squad: 1,
            crew: 1,
            leader: 1,
            vehicle: 2,
            gun: 2,
        }
    }
}

impl CvpValues {
    /// The CVP a unit of this shape is worth.
    pub fn of(&self, unit: &Unit) -> u32 {
        match &unit.kind {
            UnitKind::Infantry(i) => match i.size {
                InfantrySize::Squad => self.squad,
                InfantrySize::HalfSquad => self.half_squad,
                InfantrySize::Crew => self.crew,
            },
            UnitKind::Leader(_) => self.leader,
            UnitKind::Vehicle(_) => self.vehicle,
            UnitKind::Gun(_) => self.gun,
        }
    }
}

/// One way a side wins: every part given must hold at the end of the last
/// Game Turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VictoryCondition {
    /// The side that wins by it.
    pub side: Side,
    /// Hexes the side must control, every one (canonical names).
    pub control: Vec<Hex>,
    /// CVP the side must have inflicted, at least.
    pub cvp: Option<u32>,
}

/// A scenario's victory conditions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Victory {
    /// The conditions, in file order: the first that holds decides (R56).
    pub conditions: Vec<VictoryCondition>,
    /// The winner when none holds; `None`: the game is a draw.
    pub otherwise: Option<Side>,
    /// CVP per unit kind.
    pub cvp_values: CvpValues,
}

impl Victory {
    /// Every hex some condition names, in order, each once.
    pub fn hexes(&self) -> Vec<Hex> {
        let mut out: Vec<Hex> = Vec::new();
        for h in self.conditions.iter().flat_map(|c| c.control.iter()) {
            if !out.contains(h) {
                out.push(*h);
            }
        }
        out
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VictoryFile {
    #[serde(default)]
    conditions: Vec<Value>,
    otherwise: Option<String>,
    #[serde(default)]
    cvp_values: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConditionFile {
    side: String,
    #[serde(default)]
    control: Vec<String>,
    #[serde(default)]
    cvp: Option<i64>,
    /// Refused with a reason: no unit leaves the map in this engine.
    #[serde(default)]
    exit: Option<Value>,
}

fn invalid(
    field: impl Into<String>,
    value: impl ToString,
    why: impl Into<String>,
) -> ScenarioError {
    ScenarioError::Invalid {
        field: field.into(),
        value: value.to_string(),
        why: why.into(),
    }
}

fn syntax(field: &str, e: serde_json::Error) -> ScenarioError {
    ScenarioError::Syntax(format!("{field}: {e}"))
}

/// Reads the `[victory]` table, checking every hex against `map`. Each
/// error names its field (`victory.conditions[1].control[0]`, ...).
pub fn parse(map: &Map, value: Value) -> Result<Victory, ScenarioError> {
    let file: VictoryFile = serde_json::from_value(value).map_err(|e| syntax("victory", e))?;
    let otherwise =
        hexveil_core::victory::parse_otherwise(file.otherwise.as_deref()).map_err(|e| {
            let value = match &file.otherwise {
                None => "nothing".to_string(),
                Some(s) => format!("{s:?}"),
            };
            invalid("victory.otherwise", value, e.to_string())
        })?;
    let cvp_values = match file.cvp_values {
        None => CvpValues::default(),
        Some(v) => serde_json::from_value(v).map_err(|e| syntax("victory.cvp_values", e))?,
    };
    if file.conditions.is_empty() {
        return Err(invalid(
            "victory.conditions",
            "nothing",
            "give at least one condition ([[victory.conditions]])",
        ));
    }
    let mut conditions = Vec::new();
    for (i, raw) in file.conditions.into_iter().enumerate() {
        let field = format!("victory.conditions[{i}]");
        let cf: ConditionFile = serde_json::from_value(raw).map_err(|e| syntax(&field, e))?;
        let side = parse_side(&format!("{field}.side"), &cf.side)?;
        if let Some(v) = cf.exit {
            return Err(invalid(
                format!("{field}.exit"),
                v,
                "exiting units off a board edge is not modelled: no unit leaves the map in this engine (A4, R56)",
            ));
        }
        let mut control = Vec::new();
        for (j, name) in cf.control.iter().enumerate() {
            let f = format!("{field}.control[{j}]");
            let hex = parse_hex(&f, name)?;
            if !map.contains(hex) {
                return Err(invalid(f, format!("{name:?}"), "the hex is not on the map"));
            }
            let hex = map.canonical(hex);
            if control.contains(&hex) {
                return Err(invalid(f, format!("{name:?}"), "the hex is named twice"));
            }
            control.push(hex);
        }
        let cvp = match cf.cvp {
            None => None,
            Some(n) if (1..=i64::from(u16::MAX)).contains(&n) => Some(n as u32),
            Some(n) => {
                return Err(invalid(
                    format!("{field}.cvp"),
                    n,
                    "a CVP threshold is a whole number of at least 1",
                ))
            }
        };
        if control.is_empty() && cvp.is_none() {
            return Err(invalid(
                field,
                "a condition without parts",
                "a condition needs control = [hexes], cvp = N, or both",
            ));
        }
        conditions.push(VictoryCondition { side, control, cvp });
    }
    Ok(Victory {
        conditions,
        otherwise,
        cvp_values,
    })
}
