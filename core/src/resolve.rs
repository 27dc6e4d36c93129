//! Resolution by replay: how rules code asks for sealed facts and dice.
//!
//! Rules are written as plain, linear functions. When a rule needs a fact
//! or a roll that has not been given yet, the call returns an
//! [`Interrupt`] and the engine answers its caller with `NeedFacts` /
//! `NeedDice`. When the answers arrive, the engine runs the whole
//! resolution again from the state before the action, now with more
//! answers buffered ([`Answers`]): the rules are deterministic, so the
//! replay reaches the same point and goes on. A resolution needs a handful
//! of answers, so replaying costs nothing worth measuring, and rules code
//! never has to be written as a hand-made state machine.
//!
//! Generic over a ruleset's own request and fact types, so each ruleset
//! keeps its typed facts and shares this one mechanism.

use crate::dice::{DiceSpec, Roll};
use crate::error::RuleError;

/// Why a resolution stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interrupt<R> {
    /// These sealed facts must be opened to go on.
    Facts(Vec<R>),
    /// These rolls must be made to go on.
    Dice(Vec<DiceSpec>),
    /// A rule forbids the action; nothing changes.
    Refuse(RuleError),
}

impl<R> From<RuleError> for Interrupt<R> {
    fn from(e: RuleError) -> Interrupt<R> {
        Interrupt::Refuse(e)
    }
}

/// The answers given so far to one resolution, read in order as the
/// replay asks again.
#[derive(Debug)]
pub struct Answers<'a, F> {
    facts: &'a [F],
    fact_pos: usize,
    dice: &'a [Roll],
    dice_pos: usize,
}

impl<'a, F> Answers<'a, F> {
    /// The answers given so far.
    pub fn new(facts: &'a [F], dice: &'a [Roll]) -> Answers<'a, F> {
        Answers {
            facts,
            fact_pos: 0,
            dice,
            dice_pos: 0,
        }
    }

    /// The next `wanted.len()` facts, or an interrupt asking for `wanted`.
    pub fn facts<R>(&mut self, wanted: Vec<R>) -> Result<&'a [F], Interrupt<R>> {
        let available = &self.facts[self.fact_pos..];
        if available.len() < wanted.len() {
            return Err(Interrupt::Facts(wanted));
        }
        self.fact_pos += wanted.len();
        Ok(&available[..wanted.len()])
    }

    /// The next `specs.len()` rolls, or an interrupt asking for `specs`.
    pub fn dice<R>(&mut self, specs: &[DiceSpec]) -> Result<&'a [Roll], Interrupt<R>> {
        let available = &self.dice[self.dice_pos..];
        if available.len() < specs.len() {
            return Err(Interrupt::Dice(specs.to_vec()));
        }
        self.dice_pos += specs.len();
        Ok(&available[..specs.len()])
    }

    /// Whether every given answer was used (a complete resolution must use
    /// them all, or the driver gave more than was asked).
    pub fn all_used(&self) -> bool {
        self.fact_pos == self.facts.len() && self.dice_pos == self.dice.len()
    }
}

/// Why answers given to an engine do not fit what its pending action waits
/// for. Each engine reports it in its own error type (its facts are its
/// own types); nothing changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch<R> {
    /// Nothing is being adjudicated.
    NothingPending,
    /// Facts were given while dice are awaited.
    NotWaitingForFacts,
    /// Dice were given while facts are awaited.
    NotWaitingForDice,
    /// The facts do not answer the requests, in order.
    WrongFacts {
        /// What was asked.
        expected: Vec<R>,
        /// What was given.
        got: Vec<R>,
    },
    /// Too few or too many rolls.
    WrongDiceCount {
        /// How many were asked.
        expected: usize,
        /// How many were given.
        got: usize,
    },
    /// A roll that does not answer its request (wrong kind or face).
    BadRoll {
        /// Position in the batch.
        index: usize,
        /// What was asked.
        spec: DiceSpec,
        /// What was given.
        roll: Roll,
    },
}

/// What a pending action asks for next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Asked<R> {
    /// These facts, in order.
    Facts(Vec<R>),
    /// These rolls, in order.
    Dice(Vec<DiceSpec>),
}

/// A declared action waiting for its answers: the bookkeeping of
/// resolution by replay that every ruleset's engine shares. `A` is the
/// ruleset's action, `R` its fact request and `F` its fact.
#[derive(Clone, Debug)]
pub struct Pending<A, R, F> {
    /// Who declared it.
    pub actor: crate::side::Side,
    /// The action.
    pub action: A,
    facts: Vec<F>,
    dice: Vec<Roll>,
    waiting: Asked<R>,
}

impl<A, R: Clone + PartialEq, F> Pending<A, R, F> {
    /// An action just declared: nothing asked, nothing given yet.
    pub fn new(actor: crate::side::Side, action: A) -> Pending<A, R, F> {
        Pending {
            actor,
            action,
            facts: Vec::new(),
            dice: Vec::new(),
            waiting: Asked::Facts(Vec::new()),
        }
    }

    /// The answers given so far, for the next replay.
    pub fn answers(&self) -> Answers<'_, F> {
        Answers::new(&self.facts, &self.dice)
    }

    /// Whether a fact was opened or a roll made for this action: a refusal
    /// now comes after something was asked for it (a ruleset's late
    /// refusal, which the referee would log as a void ruling).
    pub fn answered(&self) -> bool {
        !self.facts.is_empty() || !self.dice.is_empty()
    }

    /// Records what a replay stopped for: what to ask next, or the rule
    /// that refuses the action.
    pub fn interrupted(&mut self, interrupt: Interrupt<R>) -> Result<Asked<R>, RuleError> {
        let asked = match interrupt {
            Interrupt::Facts(requests) => Asked::Facts(requests),
            Interrupt::Dice(specs) => Asked::Dice(specs),
            Interrupt::Refuse(e) => return Err(e),
        };
        self.waiting = asked.clone();
        Ok(asked)
    }

    /// Takes the facts the last ask wanted, checked to answer it in order
    /// (`request` reads a fact's request).
    pub fn give_facts(
        &mut self,
        facts: Vec<F>,
        request: impl Fn(&F) -> R,
    ) -> Result<(), Mismatch<R>> {
        let Asked::Facts(expected) = &self.waiting else {
            return Err(Mismatch::NotWaitingForFacts);
        };
        let got: Vec<R> = facts.iter().map(request).collect();
        if &got != expected {
            return Err(Mismatch::WrongFacts {
                expected: expected.clone(),
                got,
            });
        }
        self.facts.extend(facts);
        Ok(())
    }

    /// Takes the rolls the last ask wanted, checked in count and faces.
    pub fn give_dice(&mut self, rolls: Vec<Roll>) -> Result<(), Mismatch<R>> {
        let Asked::Dice(expected) = &self.waiting else {
            return Err(Mismatch::NotWaitingForDice);
        };
        check_rolls(expected, &rolls)?;
        self.dice.extend(rolls);
        Ok(())
    }
}

/// Checks rolls against what was asked: the count, and each value a legal
/// answer to its kind.
pub fn check_rolls<R>(expected: &[DiceSpec], rolls: &[Roll]) -> Result<(), Mismatch<R>> {
    if rolls.len() != expected.len() {
        return Err(Mismatch::WrongDiceCount {
            expected: expected.len(),
            got: rolls.len(),
        });
    }
    match expected
        .iter()
        .zip(rolls)
        .enumerate()
        .find(|(_, (s, r))| !r.answers(s.kind))
    {
        Some((index, (spec, roll))) => Err(Mismatch::BadRoll {
            index,
            spec: spec.clone(),
            roll: *roll,
        }),
        None => Ok(()),
    }
}

impl From<Mismatch<crate::fact::FactRequest>> for crate::error::ProvideError {
    fn from(m: Mismatch<crate::fact::FactRequest>) -> crate::error::ProvideError {
        use crate::error::ProvideError as P;
        match m {
            Mismatch::NothingPending => P::NothingPending,
            Mismatch::NotWaitingForFacts => P::NotWaitingForFacts,
            Mismatch::NotWaitingForDice => P::NotWaitingForDice,
            Mismatch::WrongFacts { expected, got } => P::WrongFacts { expected, got },
            Mismatch::WrongDiceCount { expected, got } => P::WrongDiceCount { expected, got },
            Mismatch::BadRoll { index, spec, roll } => P::BadRoll { index, spec, roll },
        }
    }
}
