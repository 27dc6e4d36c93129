//! A test driver: answers facts from each side's hidden mines and dice
//! from a list, recording what the engine asked.
#![allow(dead_code)]

use hexveil_core::{
    ActionError, DiceSpec, Engine, Event, EventKind, Fact, FactRequest, Roll, Scenario, Side, Step,
    Visibility,
};
use hexveil_minis::{
    encode_action, Action, Cell, CellMines, MinisEngine, MinisEvent, MinisPublicSetup,
    MinisScenario, Point,
};
use std::collections::BTreeMap;
use std::sync::Arc;

pub fn ex(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../examples/minis/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

pub fn p(s: &str) -> Point {
    s.parse().unwrap()
}

pub fn c(s: &str) -> Cell {
    Cell::from_key(s).unwrap()
}

/// A scenario on a 48 x 36 in table: A (German) may mine y 0..6, B
/// (Soviet) y 14..24; figures given as TOML `[[figures]]` blocks.
pub fn scenario_with(extra: &str, figures: &str) -> MinisScenario {
    MinisScenario::from_toml(&scenario_text(extra, figures)).unwrap()
}

/// The text of [`scenario_with`]'s scenario.
pub fn scenario_text(extra: &str, figures: &str) -> String {
    format!(
        r#"
name = "Test"
table = [48, 36]
turns = 3
{extra}

[sides.A]
nationality = "German"
budget = {{ ap = 99, at = 99, s = 99 }}
mine_area = [[0, 0, 48, 6]]
deployment = [[0, 0, 48, 12]]

[sides.B]
nationality = "Soviet"
budget = {{ ap = 99, at = 99 }}
mine_area = [[0, 14, 48, 24]]
deployment = [[0, 24, 48, 36]]

{figures}
"#
    )
}

pub const SAVES: &str = "[blast_saves]\nat = 4\nap = 5\n";

pub fn fig(name: &str, side: &str, kind: &str, at: &str, extra: &str) -> String {
    format!(
        "[[figures]]\nname = \"{name}\"\nside = \"{side}\"\nkind = \"{kind}\"\nmove = 12\nat = \"{at}\"\n{extra}\n"
    )
}

pub struct Game {
    pub sc: Arc<MinisScenario>,
    pub engine: MinisEngine,
    pub hidden: [BTreeMap<Cell, CellMines>; 2],
    /// Whether dice left over fail the test.
    pub strict_dice: bool,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Run {
    pub requests: Vec<FactRequest>,
    pub specs: Vec<DiceSpec>,
    pub events: Vec<Event>,
}

impl Run {
    pub fn rules(&self) -> Vec<MinisEvent> {
        hexveil_minis::engine::rules_events(&self.events)
    }
    pub fn public(&self) -> Vec<Event> {
        self.events
            .iter()
            .filter(|e| e.to == Visibility::Public)
            .cloned()
            .collect()
    }
}

impl Game {
    pub fn new(sc: MinisScenario) -> Game {
        Game::with_setups(sc, empty(Side::A), empty(Side::B))
    }

    pub fn with_setups(sc: MinisScenario, a: MinisPublicSetup, b: MinisPublicSetup) -> Game {
        let sc = Arc::new(sc);
        let engine = MinisEngine::start(sc.clone(), [&a, &b]).unwrap();
        Game {
            sc,
            engine,
            hidden: [BTreeMap::new(), BTreeMap::new()],
            strict_dice: true,
        }
    }

    pub fn hide(&mut self, side: Side, cells: &[&str], m: CellMines) {
        for k in cells {
            self.hidden[usize::from(side.code())].insert(c(k), m);
        }
    }

    /// Plays an action with these dice (totals: percentile as 1..=100, D6
    /// as 1..=6).
    pub fn play(&mut self, side: Side, action: Action, dice: &[u8]) -> Result<Run, ActionError> {
        let mut run = Run::default();
        let mut dice = dice.iter();
        self.play_with(
            side,
            action,
            &mut |s| {
                let v = *dice.next().unwrap_or_else(|| panic!("no die for {s:?}"));
                match s.kind {
                    hexveil_core::DiceKind::Percentile => Roll::Percentile {
                        tens: (v % 100) / 10,
                        units: v % 10,
                    },
                    _ => Roll::Dr(v),
                }
            },
            &mut run,
        )?;
        assert!(!self.strict_dice || dice.next().is_none(), "dice left over");
        Ok(run)
    }

    /// Plays an action, each roll from `roll`, recording in `run` what the
    /// engine asked (also when it ends in a refusal) and the events.
    pub fn play_with(
        &mut self,
        side: Side,
        action: Action,
        roll: &mut dyn FnMut(&DiceSpec) -> Roll,
        run: &mut Run,
    ) -> Result<(), ActionError> {
        let mut step = self.engine.apply(side, &encode_action(&action))?;
        loop {
            match step {
                Step::Done(events) => {
                    for e in &events {
                        if let EventKind::Transition {
                            request,
                            new_content,
                        } = &e.kind
                        {
                            let cell = Cell::from_key(request.location.key()).unwrap();
                            let m = CellMines::decode(new_content).unwrap();
                            self.hidden[usize::from(request.owner.code())].insert(cell, m);
                        }
                    }
                    run.events = events;
                    return Ok(());
                }
                Step::NeedFacts(reqs) => {
                    run.requests.extend(reqs.iter().copied());
                    let facts = reqs
                        .iter()
                        .map(|r| {
                            let cell = Cell::from_key(r.location.key()).unwrap();
                            let m = self.hidden[usize::from(r.owner.code())]
                                .get(&cell)
                                .copied()
                                .unwrap_or_default();
                            Fact {
                                request: *r,
                                content: m.encode(),
                            }
                        })
                        .collect();
                    step = self.engine.provide_facts(facts)?;
                }
                Step::NeedDice(specs) => {
                    run.specs.extend(specs.iter().cloned());
                    let rolls = specs.iter().map(&mut *roll).collect();
                    step = self.engine.provide_dice(rolls)?;
                }
            }
        }
    }

    pub fn mv(
        &mut self,
        side: Side,
        figure: &str,
        path: &[&str],
        dice: &[u8],
    ) -> Result<Run, ActionError> {
        self.play(
            side,
            Action::Move {
                figure: figure.into(),
                path: path.iter().map(|s| p(s)).collect(),
            },
            dice,
        )
    }

    pub fn end_turn(&mut self, side: Side) {
        self.play(side, Action::EndTurn, &[]).unwrap();
    }

    pub fn pos(&self, figure: &str) -> Point {
        let (id, _) = self.sc.figure_named(figure).unwrap();
        self.engine.state().figures[id].pos
    }

    pub fn status(&self, figure: &str) -> hexveil_minis::Status {
        let (id, _) = self.sc.figure_named(figure).unwrap();
        self.engine.state().figures[id].status
    }
}

pub fn empty(side: Side) -> MinisPublicSetup {
    MinisPublicSetup {
        side,
        positions: BTreeMap::new(),
        open: BTreeMap::new(),
    }
}

pub fn mines(ap: u8, at: u8, s: bool) -> CellMines {
    CellMines { ap, at, s }
}

pub fn public_setup(sc: &MinisScenario, side: Side, text: &str) -> MinisPublicSetup {
    let a = sc.public_setup(side, text).unwrap();
    a.as_any()
        .downcast_ref::<MinisPublicSetup>()
        .unwrap()
        .clone()
}
