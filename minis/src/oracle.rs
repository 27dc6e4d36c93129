//! The rules oracle for miniatures situations (docs/RULES-ORACLE.md,
//! "Miniatures situations"): a JSON situation in (scenario, public setups,
//! sealed setups, dice in order, actions), the real [`MinisEngine`] run
//! over it, the rulings out as JSON: every event with its audience and
//! citations, every fact opened and roll used, what each side is told.
//!
//! Input errors are [`OracleError`]s naming what is wrong; nothing panics
//! on bad input.

use crate::action::Action;
use crate::content::CellMines;
use crate::engine::MinisEngine;
use crate::event::{decode_event, describe_event};
use crate::geom::Cell;
use crate::scenario::{si, MinisPublicSetup, MinisScenario, ScenarioFile};
use crate::state::Status;
use hexveil_core::{
    ActionError, Content, DiceKind, DiceSpec, Engine as _, Event, EventKind, Fact, FactRequest,
    Roll, Side, Step, Visibility,
};
use serde::Deserialize;
use serde_json::{json, Map as JsonMap, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why the oracle could not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    /// The input is not JSON of the oracle's shape.
    #[error("input is not a rules question: {0}")]
    Input(String),
    /// The scenario or a setup is wrong.
    #[error("{0}")]
    Setup(String),
    /// The engine needs a roll and `dice` is used up.
    #[error("too few dice given: needed a {kind} for {purpose}")]
    TooFewDice {
        /// D6 or percentile.
        kind: String,
        /// What the roll is for.
        purpose: String,
    },
    /// A die value that does not answer the roll needed.
    #[error("dice[{index}] = {given} does not answer the {kind} needed for {purpose}")]
    BadDie {
        /// Position in `dice`.
        index: usize,
        /// The value given.
        given: String,
        /// The kind of roll needed.
        kind: String,
        /// What it is for.
        purpose: String,
    },
    /// An action's text is wrong.
    #[error("actions[{index}]: {why}")]
    BadAction {
        /// Position in `actions`.
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// The engine rejected an answer (a bug in the oracle if it happens).
    #[error("engine rejected an answer: {0}")]
    Engine(ActionError),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Question {
    /// The ruleset the question is for, if it says; `hexveil rules` picks
    /// the oracle by it (ASL when absent).
    #[serde(default)]
    ruleset: Option<String>,
    scenario: Value,
    #[serde(default)]
    setup: BTreeMap<String, Value>,
    #[serde(default)]
    sealed: BTreeMap<String, Value>,
    #[serde(default)]
    dice: Vec<Value>,
    #[serde(default)]
    actions: Vec<ActionEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionEntry {
    side: String,
    action: Value,
}

/// A TOML text or the same structure inline as JSON.
fn structure(what: &str, v: Value) -> Result<Value, OracleError> {
    match v {
        Value::String(text) => {
            toml::from_str::<Value>(&text).map_err(|e| OracleError::Setup(format!("{what}: {e}")))
        }
        other => Ok(other),
    }
}

fn side_of(what: &str, s: &str) -> Result<Side, OracleError> {
    match s {
        "A" => Ok(Side::A),
        "B" => Ok(Side::B),
        _ => Err(OracleError::Input(format!("{what}: side {s:?} is A or B"))),
    }
}

fn kind_name(k: DiceKind) -> &'static str {
    match k {
        DiceKind::Percentile => "percentile",
        _ => "D6",
    }
}

/// Reads one `dice` entry: a D6 is a number, a percentile `[tens, units]`
/// (`[0, 0]` is 100).
fn parse_die(index: usize, v: &Value, spec: &DiceSpec) -> Result<Roll, OracleError> {
    let bad = || OracleError::BadDie {
        index,
        given: v.to_string(),
        kind: kind_name(spec.kind).into(),
        purpose: spec.purpose.clone(),
    };
    let small = |x: &Value| x.as_u64().filter(|n| *n <= 100).map(|n| n as u8);
    let roll = match (spec.kind, v) {
        (DiceKind::Percentile, Value::Array(a)) if a.len() == 2 => Roll::Percentile {
            tens: small(&a[0]).ok_or_else(bad)?,
            units: small(&a[1]).ok_or_else(bad)?,
        },
        (DiceKind::Dr, Value::Number(_)) => Roll::Dr(small(v).ok_or_else(bad)?),
        _ => return Err(bad()),
    };
    if roll.answers(spec.kind) {
        Ok(roll)
    } else {
        Err(bad())
    }
}

fn roll_json(r: &Roll) -> Value {
    match *r {
        Roll::Dr(v) => json!(v),
        Roll::DR { coloured, white } => json!([coloured, white]),
        Roll::Percentile { tens, units } => json!([tens, units]),
    }
}

fn content_json(c: &Content) -> Value {
    match CellMines::decode(c) {
        Ok(m) if m.is_empty() => json!("empty"),
        Ok(m) => json!({ "ap": m.ap, "at": m.at, "s": m.s }),
        Err(e) => json!({ "invalid": e }),
    }
}

fn request_json(r: &FactRequest) -> Value {
    json!({ "owner": r.owner.to_string(), "layer": r.layer.name(), "location": r.location.key() })
}

fn visibility_json(v: Visibility) -> Value {
    match v {
        Visibility::Public => json!("public"),
        Visibility::Side(s) => json!(s.to_string()),
        Visibility::Referee => json!("referee"),
    }
}

fn event_json(sc: &MinisScenario, e: &Event) -> Value {
    let mut o = JsonMap::new();
    o.insert("to".into(), visibility_json(e.to));
    let kind = match &e.kind {
        EventKind::Dice { purpose, roll } => {
            json!({ "Dice": { "purpose": purpose, "roll": roll_json(roll), "total": roll.total() } })
        }
        EventKind::FactOpened { request, content } => {
            json!({ "FactOpened": { "fact": request_json(request), "content": content_json(content) } })
        }
        EventKind::Transition {
            request,
            new_content,
        } => {
            json!({ "Transition": { "fact": request_json(request), "content": content_json(new_content) } })
        }
        EventKind::Void { reason } => json!({ "Void": reason }),
        EventKind::Rules(bytes) => match decode_event(bytes) {
            Ok(ev) => {
                o.insert("text".into(), json!(describe_event(sc, &ev)));
                json!({ "Rules": serde_json::to_value(&ev).unwrap_or(Value::Null) })
            }
            Err(e) => json!({ "Rules": { "undecodable": e.to_string() } }),
        },
    };
    o.insert("kind".into(), kind);
    o.insert("cite".into(), json!(e.cite));
    Value::Object(o)
}

/// Answers a miniatures situation given as JSON with the rulings as
/// pretty-printed JSON.
pub fn run(input: &str) -> Result<String, OracleError> {
    let q: Question = serde_json::from_str(input).map_err(|e| OracleError::Input(e.to_string()))?;
    if let Some(id) = q.ruleset.as_deref().filter(|id| *id != "minis") {
        return Err(OracleError::Input(format!(
            "this question is for ruleset {id:?}; this oracle answers the miniatures rules (\"minis\")"
        )));
    }
    let sv = structure("scenario", q.scenario)?;
    let file: ScenarioFile =
        serde_json::from_value(sv).map_err(|e| OracleError::Setup(format!("scenario: {e}")))?;
    let sc = Arc::new(MinisScenario::from_file(file).map_err(OracleError::Setup)?);

    let mut publics: [MinisPublicSetup; 2] = [Side::A, Side::B].map(|side| MinisPublicSetup {
        side,
        positions: BTreeMap::new(),
        open: BTreeMap::new(),
    });
    for (key, v) in q.setup {
        let side = side_of(&format!("setup.{key}"), &key)?;
        let v = structure(&format!("setup.{key}"), v)?;
        publics[si(side)] = sc
            .public_setup_value(side, v)
            .map_err(|e| OracleError::Setup(format!("setup.{key}: {e}")))?;
    }
    let mut hidden: [BTreeMap<Cell, CellMines>; 2] = [BTreeMap::new(), BTreeMap::new()];
    for (key, v) in q.sealed {
        let side = side_of(&format!("sealed.{key}"), &key)?;
        let v = structure(&format!("sealed.{key}"), v)?;
        hidden[si(side)] = sc
            .sealed_value(&publics[si(side)], v)
            .map_err(|e| OracleError::Setup(format!("sealed.{key}: {e}")))?;
    }
    let mut engine =
        MinisEngine::start(sc.clone(), [&publics[0], &publics[1]]).map_err(OracleError::Setup)?;

    let mut dice_pos = 0usize;
    let mut rulings = Vec::new();
    let mut input_errors: Vec<String> = Vec::new();
    for (index, entry) in q.actions.into_iter().enumerate() {
        let bad = |why: String| OracleError::BadAction { index, why };
        let side = side_of("side", &entry.side).map_err(|e| bad(e.to_string()))?;
        let action: Action =
            serde_json::from_value(entry.action.clone()).map_err(|e| bad(e.to_string()))?;
        let mut asked = Vec::new();
        let mut step = engine.apply_action(side, action);
        let outcome = loop {
            match step {
                Err(e) => break Err(e),
                Ok(Step::Done(events)) => break Ok(events),
                Ok(Step::NeedFacts(reqs)) => {
                    let facts: Vec<Fact> = reqs
                        .iter()
                        .map(|r| {
                            let m = Cell::from_key(r.location.key())
                                .and_then(|c| hidden[si(r.owner)].get(&c).copied())
                                .unwrap_or_default();
                            asked.push(json!({ "fact": request_json(r), "content": content_json(&m.encode()) }));
                            Fact {
                                request: *r,
                                content: m.encode(),
                            }
                        })
                        .collect();
                    step = engine.provide_facts(facts);
                }
                Ok(Step::NeedDice(specs)) => {
                    let mut rolls = Vec::new();
                    for s in &specs {
                        let v = q
                            .dice
                            .get(dice_pos)
                            .ok_or_else(|| OracleError::TooFewDice {
                                kind: kind_name(s.kind).into(),
                                purpose: s.purpose.clone(),
                            })?;
                        let roll = parse_die(dice_pos, v, s)?;
                        dice_pos += 1;
                        asked.push(json!({ "roll": kind_name(s.kind), "for": s.purpose, "cite": s.cite, "value": roll_json(&roll) }));
                        rolls.push(roll);
                    }
                    step = engine.provide_dice(rolls);
                }
            }
        };
        let mut ruling = JsonMap::new();
        ruling.insert("side".into(), json!(side.to_string()));
        ruling.insert("action".into(), entry.action);
        match outcome {
            Err(ActionError::Provide(p)) => {
                return Err(OracleError::Engine(ActionError::Provide(p)))
            }
            Err(e) => {
                if let ActionError::Refused(r) = &e {
                    if r.cite.iter().any(|c| c == "R10" || c == "R12") {
                        input_errors.push(e.to_string());
                    }
                }
                ruling.insert("refused".into(), json!(e.to_string()));
            }
            Ok(events) => {
                // Clearing: the owner commits the new contents.
                for e in &events {
                    if let EventKind::Transition {
                        request,
                        new_content,
                    } = &e.kind
                    {
                        if let (Some(c), Ok(m)) = (
                            Cell::from_key(request.location.key()),
                            CellMines::decode(new_content),
                        ) {
                            hidden[si(request.owner)].insert(c, m);
                        }
                    }
                }
                ruling.insert("asked".into(), Value::Array(asked));
                ruling.insert(
                    "events".into(),
                    Value::Array(events.iter().map(|e| event_json(&sc, e)).collect()),
                );
                let mut told = JsonMap::new();
                for s in [Side::A, Side::B] {
                    let seen: Vec<usize> = events
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| e.to.shown_to(s))
                        .map(|(i, _)| i)
                        .collect();
                    told.insert(s.to_string(), json!(seen));
                }
                ruling.insert("told".into(), Value::Object(told));
            }
        }
        rulings.push(Value::Object(ruling));
    }

    let st = engine.state();
    let mut out = JsonMap::new();
    out.insert("scenario".into(), json!(sc.name));
    out.insert("rulings".into(), Value::Array(rulings));
    if !input_errors.is_empty() {
        out.insert("input_errors".into(), json!(input_errors));
    }
    if dice_pos < q.dice.len() {
        out.insert("unused_dice".into(), json!(q.dice.len() - dice_pos));
    }
    let figures: Vec<Value> = sc
        .figures
        .iter()
        .zip(&st.figures)
        .map(|(f, s)| {
            let status = match s.status {
                Status::Active => "active",
                Status::Immobilized => "immobilized",
                Status::Destroyed => "destroyed",
                Status::Removed => "removed",
            };
            json!({ "name": f.name, "side": f.side.to_string(), "at": s.pos.to_string(), "status": status })
        })
        .collect();
    let open: JsonMap<String, Value> = st
        .open
        .iter()
        .filter(|(_, o)| !o.is_empty())
        .map(|(c, o)| (c.key(), json!({ "ap": o.ap, "s": o.s, "at": o.at })))
        .collect();
    out.insert(
        "final".into(),
        json!({
            "turn": st.turn,
            "to_act": st.active.to_string(),
            "result": st.outcome.as_ref().map(|r| json!({
                "winner": r.winner.map(|w| w.to_string()),
                "reason": r.reason,
            })),
            "figures": figures,
            "open_mines": open,
        }),
    );
    serde_json::to_string_pretty(&Value::Object(out)).map_err(|e| OracleError::Input(e.to_string()))
}
