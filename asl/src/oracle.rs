//! The rules oracle (`hexveil rules`, DESIGN 6): reads a situation as JSON
//! (scenario, public setups, sealed facts, dice in order, actions), runs the
//! real [`Engine`] over it and returns the rulings as JSON: every event with
//! its audience and rule citations, every fact opened and roll used, and
//! what each side is told. The format is documented in
//! `docs/RULES-ORACLE.md`, with examples in `examples/rules/`.
//!
//! Input errors (an unknown terrain, an A-P strength of 10, a missing
//! fact, too few dice ...) are [`OracleError`]s with a clear message;
//! nothing panics on bad input.

use crate::board::hex::Hex;
use crate::dice::{DiceKind, DiceSpec, Roll};
use crate::engine::{Engine, Step};
use crate::model::action::Action;
use crate::model::error::ActionError;
use crate::model::event::{Event, Visibility};
use crate::model::phase::Phase;
use crate::model::scenario::{parse_hex, parse_side, Scenario, ScenarioError};
use crate::model::sealed::{
    ApStrength, AtFactors, BoobyLevel, Content, DaisyNote, Fact, FactRequest, Layer, Location,
};
use crate::model::unit::UnitId;
use crate::setup::{check_layout, initial_state, PublicSetup, SealedSetup, SetupViolation};
use crate::side::Side;
use serde::Deserialize;
use serde_json::{json, Map as JsonMap, Value};
use std::collections::BTreeMap;

/// Why the oracle could not answer. Each names what in the input is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    /// The input is not JSON of the oracle's shape.
    #[error("input is not a rules question: {0}")]
    Input(String),
    /// The scenario (or a setup file) is wrong.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// A public setup breaks the rules.
    #[error("setup is illegal: {}", list(.0))]
    Setup(Vec<SetupViolation>),
    /// A fact the engine asked for is not in `facts`.
    #[error("no fact given for {0}")]
    MissingFact(FactRequest),
    /// A fact's text is wrong.
    #[error("facts[{index}]: {why}")]
    BadFact {
        /// Position in `facts`.
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// The engine needs a roll and `dice` is used up.
    #[error("too few dice given: needed a {kind} for {purpose}")]
    TooFewDice {
        /// dr, DR, Secret dr or percentile.
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
        /// What the roll is for.
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
    /// A `state` override is wrong.
    #[error("state: {0}")]
    BadState(String),
    /// The engine rejected an answer (a bug in the oracle if it happens).
    #[error("engine rejected an answer: {0}")]
    Engine(ActionError),
}

fn list(v: &[SetupViolation]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("; ")
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
    facts: Vec<Value>,
    #[serde(default)]
    dice: Vec<Value>,
    #[serde(default)]
    state: Option<StateOverride>,
    #[serde(default)]
    actions: Vec<ActionEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateOverride {
    #[serde(default)]
    turn: Option<u16>,
    #[serde(default)]
    phase: Option<String>,
    #[serde(default)]
    phasing: Option<String>,
    #[serde(default)]
    units: BTreeMap<String, UnitOverride>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitOverride {
    #[serde(default)]
    hex: Option<String>,
    #[serde(default)]
    broken: Option<bool>,
    #[serde(default)]
    disrupted: Option<bool>,
    #[serde(default)]
    pinned: Option<bool>,
    #[serde(default)]
    concealed: Option<bool>,
    #[serde(default)]
    in_melee: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionEntry {
    side: String,
    action: Value,
}

/// Reads a phase by abbreviation (`MPh`) or name (`Movement`).
pub fn parse_phase(s: &str) -> Option<Phase> {
    Phase::ALL
        .into_iter()
        .find(|p| p.abbrev().eq_ignore_ascii_case(s) || format!("{p:?}").eq_ignore_ascii_case(s))
}

/// Reads a layer name: `ap`, `at`, `booby`, `daisy`.
pub fn parse_layer(s: &str) -> Option<Layer> {
    [
        Layer::AntiPersonnel,
        Layer::AntiTank,
        Layer::BoobyTrap,
        Layer::DaisyChain,
    ]
    .into_iter()
    .find(|l| l.name() == s)
}

/// Reads a location key: a hex (`4E6`), `board4` or `opp17`.
pub fn parse_location(s: &str) -> Result<Location, String> {
    if let Some(b) = s.strip_prefix("board") {
        return b
            .parse()
            .map(Location::Board)
            .map_err(|_| format!("location {s:?}: board number expected after \"board\""));
    }
    if let Some(n) = s.strip_prefix("opp") {
        return n
            .parse()
            .map(Location::Opportunity)
            .map_err(|_| format!("location {s:?}: number expected after \"opp\""));
    }
    s.parse::<Hex>()
        .map(Location::Hex)
        .map_err(|e| format!("location {s:?}: {e}"))
}

/// Reads a fact content (docs/RULES-ORACLE.md): `"empty"`, `"dummy"`,
/// `{"ap": 8}`, `{"at": 3}`, `{"booby": "B"}`, `{"daisy": "nothing"}`,
/// `{"daisy": {"placed": {"holder": "name", "hex": "3E5"}}}`.
fn parse_content(scenario: &Scenario, v: &Value) -> Result<Content, String> {
    match v {
        Value::String(s) if s == "empty" => return Ok(Content::Empty),
        Value::String(s) if s == "dummy" => return Ok(Content::Dummy),
        Value::Object(o) if o.len() == 1 => {
            let (k, x) = o.iter().next().expect("one entry");
            let num = || x.as_u64().map(|n| n.min(255) as u8);
            match k.as_str() {
                "ap" => {
                    let n = num().ok_or("ap strength must be a number")?;
                    return ApStrength::from_factors(n)
                        .map(Content::ApMines)
                        .ok_or_else(|| {
                            format!("A-P minefield strength {n}: must be 6, 8 or 12 (B28.1)")
                        });
                }
                "at" => {
                    let n = num().ok_or("at factors must be a number")?;
                    return AtFactors::new(n)
                        .map(Content::AtMines)
                        .ok_or_else(|| format!("{n} A-T mine factors: must be 1..=5 (B28.5)"));
                }
                "booby" => {
                    let level: BoobyLevel = serde_json::from_value(x.clone()).map_err(|_| {
                        format!("booby level {x}: must be \"A\", \"B\" or \"C\" (B28.9)")
                    })?;
                    return Ok(Content::BoobyTraps(level));
                }
                "daisy" => {
                    if x == "nothing" {
                        return Ok(Content::Daisy(DaisyNote::Nothing));
                    }
                    let p = x.get("placed").ok_or(
                        "daisy note is \"nothing\" or {\"placed\": {\"holder\", \"hex\"}}",
                    )?;
                    let holder = p
                        .get("holder")
                        .and_then(Value::as_str)
                        .ok_or("daisy placed needs a holder unit name")?;
                    let holder = scenario
                        .unit_named(holder)
                        .ok_or_else(|| format!("daisy holder {holder:?}: no unit has this name"))?;
                    let hex = p
                        .get("hex")
                        .and_then(Value::as_str)
                        .ok_or("daisy placed needs a hex")?;
                    let hex: Hex = hex.parse().map_err(|e| format!("daisy hex: {e}"))?;
                    return Ok(Content::Daisy(DaisyNote::Placed { holder, hex }));
                }
                _ => {}
            }
        }
        _ => {}
    }
    Err(format!(
        "content {v} is not one of \"empty\", \"dummy\", {{\"ap\": n}}, {{\"at\": n}}, {{\"booby\": level}}, {{\"daisy\": ...}}"
    ))
}

fn content_json(scenario: &Scenario, c: Content) -> Value {
    match c {
        Content::Empty => json!("empty"),
        Content::Dummy => json!("dummy"),
        Content::ApMines(s) => json!({ "ap": s.factors() }),
        Content::AtMines(f) => json!({ "at": f.get() }),
        Content::BoobyTraps(l) => json!({ "booby": l }),
        Content::Daisy(DaisyNote::Nothing) => json!({ "daisy": "nothing" }),
        Content::Daisy(DaisyNote::Placed { holder, hex }) => json!({
            "daisy": { "placed": { "holder": unit_name(scenario, holder), "hex": hex.to_string() } }
        }),
    }
}

fn unit_name(scenario: &Scenario, id: UnitId) -> String {
    scenario
        .units
        .get(id.0 as usize)
        .map_or_else(|| id.to_string(), |u| u.name.clone())
}

fn request_json(r: &FactRequest) -> Value {
    json!({ "owner": r.owner.to_string(), "layer": r.layer.name(), "location": r.location.key() })
}

fn kind_name(k: DiceKind) -> &'static str {
    match k {
        DiceKind::Dr => "dr",
        DiceKind::DR => "DR",
        DiceKind::SecretDr { .. } => "Secret dr",
        DiceKind::Percentile => "percentile",
    }
}

/// Reads one `dice` entry as an answer to `spec`.
fn parse_die(index: usize, v: &Value, spec: &DiceSpec) -> Result<Roll, OracleError> {
    let bad = || OracleError::BadDie {
        index,
        given: v.to_string(),
        kind: kind_name(spec.kind).to_string(),
        purpose: spec.purpose.clone(),
    };
    let small = |x: &Value| x.as_u64().filter(|n| *n <= 100).map(|n| n as u8);
    let roll = match (spec.kind, v) {
        (DiceKind::Dr | DiceKind::SecretDr { .. }, Value::Number(_)) => {
            Roll::Dr(small(v).ok_or_else(bad)?)
        }
        (DiceKind::DR, Value::Array(a)) if a.len() == 2 => Roll::DR {
            coloured: small(&a[0]).ok_or_else(bad)?,
            white: small(&a[1]).ok_or_else(bad)?,
        },
        (DiceKind::Percentile, Value::Array(a)) if a.len() == 2 => Roll::Percentile {
            tens: small(&a[0]).ok_or_else(bad)?,
            units: small(&a[1]).ok_or_else(bad)?,
        },
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

/// Replaces unit names by ids in an action's JSON (`units`, `firers`:
/// lists; `unit`, `vehicle`, `gun`: single; the vehicle of an ordnance
/// shot's `target_type`, `{"Vehicle": name}`, C3.31).
fn resolve_names(scenario: &Scenario, v: &mut Value) -> Result<(), String> {
    let id = |x: &Value| -> Result<Value, String> {
        match x {
            Value::String(name) => scenario
                .unit_named(name)
                .map(|id| json!(id.0))
                .ok_or_else(|| format!("no unit is named {name:?}")),
            other => Ok(other.clone()),
        }
    };
    if let Value::Object(o) = v {
        for (k, x) in o.iter_mut() {
            match k.as_str() {
                "units" | "firers" => {
                    if let Value::Array(a) = x {
                        for e in a.iter_mut() {
                            *e = id(e)?;
                        }
                    }
                }
                "unit" | "vehicle" | "gun" => *x = id(x)?,
                "target_type" => {
                    if let Some(v) = x.get_mut("Vehicle") {
                        *v = id(v)?;
                    }
                }
                _ => resolve_names(scenario, x)?,
            }
        }
    }
    Ok(())
}

/// The supplied tables the rulings used in place of the shipped ones
/// (R12): each one's file and pinned hash, as given, and its data rows.
fn tables_json(scenario: &Scenario) -> Value {
    let mut out = JsonMap::new();
    for (name, t) in &scenario.tables.0 {
        let mut e = JsonMap::new();
        if let Some(f) = &t.file {
            e.insert("file".into(), json!(f));
        }
        if let Some(h) = &t.sha256 {
            e.insert("sha256".into(), json!(h));
        }
        // Data rows: neither `#` comments nor the header row.
        let rows = t.csv.as_deref().map_or(0, |c| {
            c.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .count()
                .saturating_sub(1)
        });
        e.insert("rows".into(), json!(rows));
        out.insert(name.clone(), Value::Object(e));
    }
    Value::Object(out)
}

fn visibility_json(v: Visibility) -> Value {
    match v {
        Visibility::Public => json!("public"),
        Visibility::Side(s) => json!(s.to_string()),
        Visibility::Referee => json!("referee"),
    }
}

fn event_json(e: &Event) -> Result<Value, OracleError> {
    let kind = serde_json::to_value(&e.kind).map_err(|x| OracleError::Input(x.to_string()))?;
    Ok(json!({ "to": visibility_json(e.to), "kind": kind, "cite": e.cite }))
}

/// Answers a rules question given as JSON (docs/RULES-ORACLE.md) with the
/// rulings as pretty-printed JSON.
pub fn run(input: &str) -> Result<String, OracleError> {
    let q: Question = serde_json::from_str(input).map_err(|e| OracleError::Input(e.to_string()))?;
    if let Some(id) = q.ruleset.as_deref().filter(|id| *id != "asl") {
        return Err(OracleError::Input(format!(
            "this question is for ruleset {id:?}; this oracle answers ASL (\"asl\")"
        )));
    }
    let scenario = Scenario::from_value(q.scenario)?;
    crate::supplied::check(&scenario).map_err(|e| OracleError::Input(e.to_string()))?;
    crate::model::scenario::check_for_version(&scenario)?;

    // Public setups.
    let mut setups = Vec::new();
    for (key, mut v) in q.setup {
        let side = parse_side(&format!("setup.{key}"), &key)?;
        if let Value::Object(o) = &mut v {
            o.entry("side").or_insert_with(|| json!(side.to_string()));
        }
        let s = PublicSetup::from_value(&scenario, v)?;
        if s.side != side {
            return Err(OracleError::Input(format!(
                "setup.{key} says side {}",
                s.side
            )));
        }
        setups.push(s);
    }
    let mut state = initial_state(&scenario, &setups).map_err(OracleError::Setup)?;
    let mut sealed: BTreeMap<Side, SealedSetup> = BTreeMap::new();
    for (key, mut v) in q.sealed {
        let side = parse_side(&format!("sealed.{key}"), &key)?;
        if let Value::Object(o) = &mut v {
            o.entry("side").or_insert_with(|| json!(side.to_string()));
        }
        sealed.insert(side, SealedSetup::from_value(v)?);
    }

    // State overrides.
    if let Some(o) = q.state {
        if let Some(t) = o.turn {
            state.turn = t;
        }
        if let Some(p) = &o.phase {
            state.phase = parse_phase(p)
                .ok_or_else(|| OracleError::BadState(format!("phase {p:?} is not a phase (RPh, PFPh, MPh, DFPh, AFPh, RtPh, APh, CCPh, Setup)")))?;
        }
        if let Some(s) = &o.phasing {
            state.phasing = parse_side("state.phasing", s)?;
        }
        for (name, u) in o.units {
            let id = scenario.unit_named(&name).ok_or_else(|| {
                OracleError::BadState(format!("units.{name}: no unit has this name"))
            })?;
            let unit = state
                .units
                .get_mut(&id)
                .ok_or_else(|| OracleError::BadState(format!("units.{name}: not in the game")))?;
            if let Some(h) = &u.hex {
                let hex = parse_hex(&format!("state.units.{name}.hex"), h)?;
                if !scenario.map.contains(hex) {
                    return Err(OracleError::BadState(format!(
                        "units.{name}.hex {h}: not on the map"
                    )));
                }
                unit.hex = Some(scenario.map.canonical(hex));
            }
            let st = &mut unit.status;
            for (flag, val) in [
                (&mut st.broken, u.broken),
                (&mut st.disrupted, u.disrupted),
                (&mut st.pinned, u.pinned),
                (&mut st.concealed, u.concealed),
                (&mut st.in_melee, u.in_melee),
            ] {
                if let Some(v) = val {
                    *flag = v;
                }
            }
            if st.disrupted {
                st.broken = true;
            }
        }
    }

    // Facts, keyed by request (hexes by canonical name).
    let mut facts: BTreeMap<FactRequest, (usize, Content)> = BTreeMap::new();
    for (index, v) in q.facts.iter().enumerate() {
        let bad = |why: String| OracleError::BadFact { index, why };
        let get = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .ok_or_else(|| bad(format!("needs a string field {k:?}")))
        };
        let owner = parse_side("owner", get("owner")?).map_err(|e| bad(e.to_string()))?;
        let layer_s = get("layer")?;
        let layer = parse_layer(layer_s)
            .ok_or_else(|| bad(format!("layer {layer_s:?} is not ap, at, booby or daisy")))?;
        let location = match parse_location(get("location")?).map_err(bad)? {
            Location::Hex(h) => Location::Hex(scenario.map.canonical(h)),
            other => other,
        };
        let content = v
            .get("content")
            .ok_or_else(|| bad("needs a content".into()))
            .and_then(|c| parse_content(&scenario, c).map_err(bad))?;
        if !content.fits(layer) {
            return Err(bad(format!(
                "content {content:?} cannot be in layer {layer}"
            )));
        }
        let req = FactRequest {
            owner,
            layer,
            location,
        };
        if facts.insert(req, (index, content)).is_some() {
            return Err(bad(format!("a second fact for {req}")));
        }
    }

    let mut engine = Engine::with_state(scenario.clone(), state);
    let mut dice_pos = 0usize;
    let mut used_facts = std::collections::BTreeSet::new();
    let mut rulings = Vec::new();
    // Refusals for data the situation lacks (a vehicle's Aerial AF, R4; a
    // rules-data cell, R12) are input errors: reported at the top level so
    // the command exits non-zero.
    let mut input_errors: Vec<String> = Vec::new();
    for (index, entry) in q.actions.into_iter().enumerate() {
        let bad = |why: String| OracleError::BadAction { index, why };
        let side = parse_side("side", &entry.side).map_err(|e| bad(e.to_string()))?;
        let mut av = entry.action.clone();
        resolve_names(&scenario, &mut av).map_err(bad)?;
        let action: Action = serde_json::from_value(av).map_err(|e| bad(e.to_string()))?;
        let mut asked = Vec::new();
        let mut step = engine.apply(side, action);
        let outcome = loop {
            match step {
                Err(e) => break Err(e),
                Ok(Step::Done(events)) => break Ok(events),
                Ok(Step::NeedFacts(reqs)) => {
                    let mut given = Vec::new();
                    for r in &reqs {
                        let content = match facts.get(r) {
                            Some((i, c)) => {
                                used_facts.insert(*i);
                                *c
                            }
                            None => match (sealed.get(&r.owner), r.layer) {
                                (
                                    Some(s),
                                    Layer::AntiPersonnel | Layer::AntiTank | Layer::BoobyTrap,
                                ) => s.content(&scenario.map, r.layer, r.location),
                                _ => return Err(OracleError::MissingFact(*r)),
                            },
                        };
                        asked.push(json!({
                            "fact": request_json(r),
                            "content": content_json(&scenario, content),
                        }));
                        given.push(Fact {
                            request: *r,
                            content,
                        });
                    }
                    step = engine.provide_facts(given);
                }
                Ok(Step::NeedDice(specs)) => {
                    let mut rolls = Vec::new();
                    for spec in &specs {
                        let v = q
                            .dice
                            .get(dice_pos)
                            .ok_or_else(|| OracleError::TooFewDice {
                                kind: kind_name(spec.kind).to_string(),
                                purpose: spec.purpose.clone(),
                            })?;
                        let roll = parse_die(dice_pos, v, spec)?;
                        dice_pos += 1;
                        asked.push(json!({
                            "roll": kind_name(spec.kind),
                            "for": spec.purpose,
                            "cite": spec.cite,
                            "value": roll_json(&roll),
                        }));
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
                return Err(OracleError::Engine(ActionError::Provide(p)));
            }
            Err(e) => {
                if let ActionError::Refused(r) = &e {
                    if r.cite.iter().any(|c| c == "R4" || c == "R12") {
                        input_errors.push(e.to_string());
                    }
                }
                ruling.insert("refused".into(), json!(e.to_string()));
            }
            Ok(events) => {
                ruling.insert("asked".into(), Value::Array(asked));
                let evs = events
                    .iter()
                    .map(event_json)
                    .collect::<Result<Vec<_>, _>>()?;
                ruling.insert("events".into(), Value::Array(evs));
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
    out.insert("scenario".into(), json!(scenario.name));
    out.insert(
        "units".into(),
        Value::Array(
            scenario
                .units
                .iter()
                .map(|u| json!({ "id": u.id.0, "name": u.name, "side": u.side.to_string() }))
                .collect(),
        ),
    );
    if !sealed.is_empty() {
        let mut layouts = JsonMap::new();
        for (side, s) in &sealed {
            let public = setups
                .iter()
                .find(|p| p.side == *side)
                .cloned()
                .unwrap_or(PublicSetup {
                    side: *side,
                    positions: BTreeMap::new(),
                    known: Vec::new(),
                    known_lines: Vec::new(),
                    at_in_view: Vec::new(),
                });
            let extra = st.extra_dummies.get(side).copied().unwrap_or(0);
            let verdict = match check_layout(&scenario, &public, s, extra) {
                Ok(()) => json!("legal"),
                Err(v) => json!(v.iter().map(|x| x.to_string()).collect::<Vec<_>>()),
            };
            layouts.insert(side.to_string(), verdict);
        }
        out.insert("layouts".into(), Value::Object(layouts));
    }
    if !scenario.tables.is_empty() {
        out.insert("tables".into(), tables_json(&scenario));
    }
    out.insert("rulings".into(), Value::Array(rulings));
    if !input_errors.is_empty() {
        out.insert("input_errors".into(), json!(input_errors));
    }
    let unused: Vec<usize> = (0..q.facts.len())
        .filter(|i| !used_facts.contains(i))
        .collect();
    if !unused.is_empty() {
        out.insert("unused_facts".into(), json!(unused));
    }
    if dice_pos < q.dice.len() {
        out.insert("unused_dice".into(), json!(q.dice.len() - dice_pos));
    }
    out.insert(
        "final".into(),
        json!({
            "turn": st.turn,
            "phasing": st.phasing.to_string(),
            "phase": st.phase.abbrev(),
            "result": st.result.as_ref().map(|r| json!({
                "winner": r.winner.map(|w| w.to_string()),
                "reason": r.reason,
            })),
        }),
    );
    serde_json::to_string_pretty(&Value::Object(out)).map_err(|e| OracleError::Input(e.to_string()))
}
