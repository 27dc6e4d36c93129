//! The resolution context: how rules code asks for sealed facts and dice.
//!
//! Rules are written as plain, linear functions over a [`Ctx`]. When a rule
//! needs a fact or a roll that has not been given yet, the call returns
//! [`Interrupt`] and the engine (`crate::engine::Engine`) answers its caller
//! with `NeedFacts`/`NeedDice`. When the answers arrive, the engine runs the
//! whole resolution again from the state before the action, now with more
//! answers buffered: the rules are deterministic, so the replay reaches the
//! same point and goes on. The replay itself (the buffered answers, the
//! interrupt) is the kernel's [`hexveil_core::resolve`]; this context adds
//! ASL's state, events and the facts the referee already holds.

use crate::dice::{DiceKind, DiceSpec, Roll};
use crate::model::error::RuleError;
use crate::model::event::{Event, EventKind, Visibility};
use crate::model::scenario::Scenario;
use crate::model::sealed::{Content, Fact, FactRequest};
use crate::model::state::GameState;
use crate::side::Side;
use hexveil_core::resolve::Answers;

/// Why a resolution stopped before its end: the kernel's interrupt over
/// ASL's typed fact requests.
pub type Interrupt = hexveil_core::Interrupt<FactRequest>;

/// The result type of rules code.
pub type Res<T> = Result<T, Interrupt>;

/// A refusal as an [`Interrupt`], for `return refuse(...)` in rules code.
pub fn refuse<T>(reason: impl Into<String>, cite: &str) -> Res<T> {
    Err(Interrupt::Refuse(RuleError::new(reason, cite)))
}

/// Refuses a list of units that names a unit twice (each unit acts once in
/// an action: a step, a Disembark, a clearance).
pub fn each_unit_once(units: &[crate::model::unit::UnitId], cite: &str) -> Res<()> {
    let mut seen = std::collections::BTreeSet::new();
    match units.iter().find(|id| !seen.insert(**id)) {
        Some(id) => refuse(format!("unit {id} is listed twice"), cite),
        None => Ok(()),
    }
}

/// The working context of one resolution.
pub struct Ctx<'a> {
    /// The scenario (map, OBs, SSRs, rules data).
    pub scenario: &'a Scenario,
    /// A working copy of the state; kept only if the resolution completes.
    pub state: GameState,
    /// Who declared the action.
    pub actor: Side,
    answers: Answers<'a, Fact>,
    events: Vec<Event>,
}

impl<'a> Ctx<'a> {
    /// A context over `state` with the answers given so far.
    pub fn new(
        scenario: &'a Scenario,
        state: GameState,
        actor: Side,
        facts: &'a [Fact],
        dice: &'a [Roll],
    ) -> Ctx<'a> {
        Ctx::with_answers(scenario, state, actor, Answers::new(facts, dice))
    }

    /// A context over `state` reading these answers (a pending action's,
    /// [`hexveil_core::Pending::answers`]).
    pub fn with_answers(
        scenario: &'a Scenario,
        state: GameState,
        actor: Side,
        answers: Answers<'a, Fact>,
    ) -> Ctx<'a> {
        Ctx {
            scenario,
            state,
            actor,
            answers,
            events: Vec::new(),
        }
    }

    /// Opens sealed facts, in this order. Facts the referee already holds
    /// (opened earlier in the game) are not asked again.
    pub fn open(&mut self, requests: &[FactRequest]) -> Res<Vec<Content>> {
        let missing: Vec<FactRequest> = requests
            .iter()
            .filter(|r| !self.state.referee_knows.contains_key(r))
            .copied()
            .collect();
        if !missing.is_empty() {
            let given = self.answers.facts(missing.clone())?;
            for (fact, request) in given.iter().zip(&missing) {
                debug_assert_eq!(fact.request, *request, "engine checks answers on provide");
                self.state.referee_knows.insert(*request, fact.content);
                self.events.push(Event {
                    to: Visibility::Referee,
                    kind: EventKind::FactOpened {
                        request: *request,
                        content: fact.content,
                    },
                    cite: vec!["G4".into()],
                });
            }
        }
        Ok(requests
            .iter()
            .map(|r| self.state.referee_knows[r])
            .collect())
    }

    /// Opens one sealed fact.
    pub fn open_one(&mut self, request: FactRequest) -> Res<Content> {
        Ok(self.open(&[request])?[0])
    }

    /// Records a new content for a fact the referee holds, and tells its
    /// owner to commit it (DESIGN 3.1 transitions).
    pub fn transition(&mut self, request: FactRequest, new_content: Content, cite: &[&str]) {
        self.state.referee_knows.insert(request, new_content);
        self.emit(
            Visibility::Referee,
            EventKind::Transition {
                request,
                new_content,
            },
            cite,
        );
    }

    /// Makes these rolls, in this order. Each roll is also an event: public,
    /// or for a Secret dr only the roller's (B28.47).
    pub fn roll(&mut self, specs: Vec<DiceSpec>) -> Res<Vec<Roll>> {
        let rolls: Vec<Roll> = self.answers.dice(&specs)?.to_vec();
        for (spec, roll) in specs.into_iter().zip(&rolls) {
            let to = match spec.kind {
                DiceKind::SecretDr { roller } => Visibility::Side(roller),
                _ => Visibility::Public,
            };
            self.events.push(Event {
                to,
                kind: EventKind::Dice {
                    purpose: spec.purpose,
                    roll: *roll,
                },
                cite: vec![spec.cite],
            });
        }
        Ok(rolls)
    }

    /// One DR (two dice, coloured and white).
    pub fn roll_dr2(&mut self, purpose: impl Into<String>, cite: &str) -> Res<Roll> {
        Ok(self.roll(vec![spec(DiceKind::DR, purpose, cite)])?[0])
    }

    /// One dr (one die), returned as its face.
    pub fn roll_dr1(&mut self, purpose: impl Into<String>, cite: &str) -> Res<u8> {
        Ok(self.roll(vec![spec(DiceKind::Dr, purpose, cite)])?[0].total())
    }

    /// Records an event.
    pub fn emit(&mut self, to: Visibility, kind: EventKind, cite: &[&str]) {
        self.events.push(Event {
            to,
            kind,
            cite: cite.iter().map(|c| c.to_string()).collect(),
        });
    }

    /// Whether every given answer was used (a complete resolution must use
    /// them all, or the driver gave more than was asked).
    pub fn all_answers_used(&self) -> bool {
        self.answers.all_used()
    }

    /// The events so far, and the final state.
    pub fn finish(self) -> (GameState, Vec<Event>) {
        (self.state, self.events)
    }
}

/// A [`DiceSpec`] from its parts.
pub fn spec(kind: DiceKind, purpose: impl Into<String>, cite: &str) -> DiceSpec {
    DiceSpec {
        kind,
        purpose: purpose.into(),
        cite: cite.to_string(),
    }
}
