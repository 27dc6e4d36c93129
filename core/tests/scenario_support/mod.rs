//! Shared helpers for the scenario helper's tests: the example scenario and
//! setups, and a driver that runs rules code over a `Ctx` answering its
//! requests from literals, as the engine does (replay from the start).
#![allow(dead_code)]

use hexveil_core::resolve::{Ctx, Interrupt, Res};
use hexveil_core::scenario::Scenario;
use hexveil_core::setup::{initial_state, PublicSetup, SealedSetup};
use hexveil_core::state::GameState;
use hexveil_core::{Content, Event, Fact, FactRequest, Roll, Side};

pub const SCENARIO: &str = include_str!("../../../examples/scenario.toml");
pub const SETUP_A: &str = include_str!("../../../examples/setup-a.toml");
pub const SETUP_B: &str = include_str!("../../../examples/setup-b.toml");
pub const SEALED_B: &str = include_str!("../../../examples/sealed-b.toml");

pub fn scenario() -> Scenario {
    Scenario::from_toml(SCENARIO).expect("example scenario loads")
}

pub fn setups(s: &Scenario) -> (PublicSetup, PublicSetup) {
    (
        PublicSetup::from_toml(s, SETUP_A).unwrap(),
        PublicSetup::from_toml(s, SETUP_B).unwrap(),
    )
}

pub fn sealed_b() -> SealedSetup {
    SealedSetup::from_toml(SEALED_B).unwrap()
}

pub fn state(s: &Scenario) -> GameState {
    let (a, b) = setups(s);
    initial_state(s, &[a, b]).unwrap()
}

/// What a driven resolution did.
#[derive(Debug)]
pub struct Run {
    pub result: Result<(), hexveil_core::RuleError>,
    pub state: GameState,
    pub events: Vec<Event>,
    /// Every fact request, in the order asked.
    pub asked: Vec<FactRequest>,
    /// How many rolls were used.
    pub rolls_used: usize,
}

/// Runs `f` over a context, answering fact requests with `facts` (a
/// missing fact panics: the test did not expect the request) and dice from
/// `dice` in order.
pub fn drive(
    scenario: &Scenario,
    state: &GameState,
    actor: Side,
    facts: &dyn Fn(FactRequest) -> Content,
    dice: &[Roll],
    f: &dyn Fn(&mut Ctx<'_>) -> Res<()>,
) -> Run {
    let mut given_facts: Vec<Fact> = Vec::new();
    let mut given_dice: Vec<Roll> = Vec::new();
    let mut asked = Vec::new();
    loop {
        let mut ctx = Ctx::new(scenario, state.clone(), actor, &given_facts, &given_dice);
        match f(&mut ctx) {
            Ok(()) => {
                let (state, events) = ctx.finish();
                return Run {
                    result: Ok(()),
                    state,
                    events,
                    asked,
                    rolls_used: given_dice.len(),
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
                for _ in specs {
                    let i = given_dice.len();
                    let roll = *dice
                        .get(i)
                        .unwrap_or_else(|| panic!("test gave too few dice: needed roll {i}"));
                    given_dice.push(roll);
                }
            }
            Err(Interrupt::Refuse(e)) => {
                return Run {
                    result: Err(e),
                    state: state.clone(),
                    events: Vec::new(),
                    asked,
                    rolls_used: given_dice.len(),
                }
            }
        }
    }
}

pub fn dr(coloured: u8, white: u8) -> Roll {
    Roll::DR { coloured, white }
}
