//! What every rules test needs, whatever the rule: naming hexes and dice,
//! looking up units, and the two drivers that answer the rules' requests
//! the way a referee would — one over the real [`Engine`] (apply, then
//! provide facts and dice until Done), one over a bare [`Ctx`] (replay from
//! the start with the answers so far, as the Engine does inside).
//!
//! The domain fixtures (`fire_common`, `mines_common`, `scenario_support`)
//! include this module and re-export it, so a test names only its own
//! fixture module.
#![allow(dead_code)]

use hexveil_asl::board::map::Map;
use hexveil_asl::board::terrain::HexInfo;
use hexveil_asl::dice::{DiceKind, DiceSpec, Roll};
use hexveil_asl::model::resolve::{Ctx, Interrupt, Res};
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::{Status, Unit, UnitId, UnitKind};
use hexveil_asl::turn::Phase;
use hexveil_asl::{
    Action, ActionError, Content, Engine, Event, Fact, FactRequest, Hex, RuleError, Side, Step,
};
use std::collections::BTreeSet;

/// A hex by name ("4E4").
pub fn hex(name: &str) -> Hex {
    name.parse().expect("hex name")
}

/// A two-dice roll (DR): coloured and white die.
pub fn dr(coloured: u8, white: u8) -> Roll {
    Roll::DR { coloured, white }
}

/// A one-die roll (dr).
pub fn d(v: u8) -> Roll {
    Roll::Dr(v)
}

/// A unit named "u{id}" of `side` and `nationality` in hex `at`, Good
/// Order, without traits: what every fixture's unit builders start from.
pub fn new_unit(id: u16, side: Side, nationality: &str, at: &str, kind: UnitKind) -> Unit {
    Unit {
        id: UnitId(id),
        name: format!("u{id}"),
        side,
        nationality: nationality.to_string(),
        kind,
        traits: BTreeSet::new(),
        hex: Some(hex(at)),
        status: Status::default(),
        daisy_chain: None,
    }
}

/// Board 4 alone, Open Ground but for the hexes listed.
pub fn board_4<'a>(terrain: impl IntoIterator<Item = (&'a str, HexInfo)>) -> Map {
    terrain
        .into_iter()
        .fold(Map::new([4]), |map, (h, info)| map.with_hex(hex(h), info))
}

/// The state at the start of `sc` without setup files
/// (`setup::initial_state`: every unit where the scenario puts it), moved to
/// side A's `phase` of turn 1.
pub fn state_in(sc: &Scenario, phase: Phase) -> GameState {
    let mut st = hexveil_asl::setup::initial_state(sc, &[]).expect("scenario sets up");
    st.phasing = Side::A;
    st.phase = phase;
    st
}

/// The unit with this id in the Engine's state.
pub fn unit(e: &Engine, id: u16) -> &Unit {
    e.state().unit(UnitId(id)).expect("unit")
}

/// What `pick` takes from each of `events` it selects, in order (the
/// events of one kind, say, with or without their visibility).
pub fn picked<T>(events: &[Event], pick: impl Fn(&Event) -> Option<T>) -> Vec<T> {
    events.iter().filter_map(pick).collect()
}

/// What an action driven through the Engine did.
#[derive(Debug)]
pub struct Run {
    /// The events, or the refusal.
    pub result: Result<Vec<Event>, ActionError>,
    /// Every fact request, in order.
    pub requests: Vec<FactRequest>,
    /// Every dice request, in order.
    pub dice: Vec<DiceSpec>,
    /// Every step the engine returned before Done, in order: what the
    /// opponent's client sees of the traffic (G3).
    pub steps: Vec<Traffic>,
}

/// One request step of the engine, as far as its shape goes: which facts, or
/// how many dice of which kind (G3 compares these).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Traffic {
    /// A NeedFacts step.
    Facts(Vec<FactRequest>),
    /// A NeedDice step: the kinds of the dice asked.
    Dice(Vec<DiceKind>),
}

impl Run {
    /// The events (panics on refusal).
    pub fn events(&self) -> &[Event] {
        match &self.result {
            Ok(e) => e,
            Err(e) => panic!("refused: {e}"),
        }
    }
}

/// Applies `action` for `side` and drives it to the end: every fact request
/// is answered by `fact`, every die by `next_die`. Stops with the refusal,
/// if any.
pub fn drive_engine(
    e: &mut Engine,
    side: Side,
    action: Action,
    fact: &mut dyn FnMut(&FactRequest) -> Content,
    next_die: &mut dyn FnMut(&DiceSpec) -> Roll,
) -> Run {
    let mut run = Run {
        result: Ok(Vec::new()),
        requests: Vec::new(),
        dice: Vec::new(),
        steps: Vec::new(),
    };
    let mut step = e.apply(side, action);
    loop {
        match step {
            Err(err) => {
                run.result = Err(err);
                return run;
            }
            Ok(Step::Done(events)) => {
                run.result = Ok(events);
                return run;
            }
            Ok(Step::NeedFacts(r)) => {
                run.requests.extend(r.iter().copied());
                run.steps.push(Traffic::Facts(r.clone()));
                let facts = r
                    .iter()
                    .map(|q| Fact {
                        request: *q,
                        content: fact(q),
                    })
                    .collect();
                step = e.provide_facts(facts);
            }
            Ok(Step::NeedDice(specs)) => {
                let rolls = specs.iter().map(&mut *next_die).collect();
                run.steps
                    .push(Traffic::Dice(specs.iter().map(|s| s.kind).collect()));
                run.dice.extend(specs);
                step = e.provide_dice(rolls);
            }
        }
    }
}

/// [`drive_engine`] with the dice given as a literal list, used in order:
/// panics if the rules ask for more dice than given, or (when the action is
/// not refused) leave some unused.
pub fn drive_engine_rolls(
    e: &mut Engine,
    side: Side,
    action: Action,
    fact: &mut dyn FnMut(&FactRequest) -> Content,
    rolls: &[Roll],
) -> Run {
    let mut pos = 0;
    let run = drive_engine(e, side, action, fact, &mut |spec| {
        let r = *rolls
            .get(pos)
            .unwrap_or_else(|| panic!("rules asked for more dice than given: {spec:?}"));
        pos += 1;
        r
    });
    if run.result.is_ok() {
        assert_eq!(
            pos,
            rolls.len(),
            "dice left over: the rules asked for fewer"
        );
    }
    run
}

/// What a rules function driven over a [`Ctx`] did.
#[derive(Debug)]
pub struct CtxRun {
    /// Ok, or the refusal.
    pub result: Result<(), RuleError>,
    /// The final state (the starting state on refusal).
    pub state: GameState,
    /// The events (none on refusal).
    pub events: Vec<Event>,
    /// Every fact request, in the order asked.
    pub asked: Vec<FactRequest>,
    /// How many rolls were used.
    pub rolls_used: usize,
}

impl CtxRun {
    /// The final state and events (panics on refusal).
    pub fn finished(self) -> (GameState, Vec<Event>) {
        if let Err(e) = self.result {
            panic!("refused: {e}");
        }
        (self.state, self.events)
    }
}

/// Runs `f` over a context the way the Engine does: replaying from `state`
/// with the answers so far until it completes, answering fact requests with
/// `facts` (which may panic on a request the test did not expect) and dice
/// from `dice` in order (too few panics; unused ones are counted in
/// [`CtxRun::rolls_used`]).
pub fn drive_ctx(
    scenario: &Scenario,
    state: &GameState,
    actor: Side,
    facts: &dyn Fn(FactRequest) -> Content,
    dice: &[Roll],
    f: &dyn Fn(&mut Ctx<'_>) -> Res<()>,
) -> CtxRun {
    let mut given_facts: Vec<Fact> = Vec::new();
    let mut used = 0usize;
    let mut asked = Vec::new();
    loop {
        let mut ctx = Ctx::new(scenario, state.clone(), actor, &given_facts, &dice[..used]);
        match f(&mut ctx) {
            Ok(()) => {
                let (state, events) = ctx.finish();
                return CtxRun {
                    result: Ok(()),
                    state,
                    events,
                    asked,
                    rolls_used: used,
                };
            }
            Err(Interrupt::Facts(reqs)) => {
                for r in reqs {
                    asked.push(r);
                    given_facts.push(Fact {
                        request: r,
                        content: facts(r),
                    });
                }
            }
            Err(Interrupt::Dice(specs)) => {
                used += specs.len();
                assert!(
                    used <= dice.len(),
                    "test gave too few dice: needed {used}, {specs:?}"
                );
            }
            Err(Interrupt::Refuse(e)) => {
                return CtxRun {
                    result: Err(e),
                    state: state.clone(),
                    events: Vec::new(),
                    asked,
                    rolls_used: used,
                }
            }
        }
    }
}
