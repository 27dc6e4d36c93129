//! A side's own setup checked against the scenario with the ruleset's own
//! legality check (`Scenario::layout_problems`, the one the referee runs
//! on the reveal at the end and on an escrow at setup) before its owner
//! commits to anything: a typo in a sealed file must not make its owner a
//! cheater at the end of the game.

use hexveil_core::{DiceKind, DiceSpec, Roll, Scenario, Side};

/// The most permissive value of a setup roll: the highest the dice can
/// give. A setup roll is made after the pads are committed (ASL: the
/// Secret dr for extra Dummy minefield counters, B28.47), so when a side
/// checks its setup before joining it is not known yet; checking with the
/// highest value never refuses a layout that some roll would make legal.
pub fn highest_roll(spec: &DiceSpec) -> Roll {
    match spec.kind {
        DiceKind::Dr | DiceKind::SecretDr { .. } => Roll::Dr(6),
        DiceKind::DR => Roll::DR {
            coloured: 6,
            white: 6,
        },
        DiceKind::Percentile => Roll::Percentile { tens: 9, units: 9 },
    }
}

/// What the check found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetupCheck {
    /// Every setup rule the sealed setup breaks, in the ruleset's words
    /// (empty: legal).
    pub problems: Vec<String>,
    /// The setup rolls assumed, in words (empty when the side makes none).
    pub assumed: Vec<String>,
}

impl SetupCheck {
    /// The problems as one message, with the rolls assumed.
    /// `joining`: said by `join`, which then commits to nothing.
    pub fn message(&self, sealed: &str, joining: bool) -> String {
        let mut m = format!(
            "{sealed}: this sealed setup breaks the scenario's setup rules{} (the referee checks them when you reveal at the end, and would record your side as at fault):",
            if joining {
                "; nothing was committed or sent"
            } else {
                ""
            }
        );
        for p in &self.problems {
            m.push_str(&format!("\n  - {p}"));
        }
        for a in &self.assumed {
            m.push_str(&format!("\n  (checked assuming {a})"));
        }
        m
    }
}

/// Checks `side`'s public and sealed setup texts against `scenario`: both
/// must parse, and the sealed contents must pass the ruleset's layout
/// check with the most permissive setup rolls ([`highest_roll`]). `Err` is
/// a text that does not parse (which file, what is wrong); `Ok` holds the
/// layout problems, if any.
pub fn check(
    scenario: &dyn Scenario,
    side: Side,
    public_text: &str,
    sealed_text: &str,
) -> Result<SetupCheck, (Which, String)> {
    let public = scenario
        .public_setup(side, public_text)
        .map_err(|e| (Which::Public, e))?;
    let sealed = scenario
        .sealed_contents(public.as_ref(), sealed_text)
        .map_err(|e| (Which::Sealed, e))?;
    let contents: Vec<_> = sealed
        .iter()
        .flat_map(|(layer, leaves)| leaves.iter().map(move |(loc, c)| (*layer, *loc, *c)))
        .collect();
    let specs = scenario.setup_rolls(side);
    let rolls: Vec<Roll> = specs.iter().map(highest_roll).collect();
    let assumed = specs
        .iter()
        .zip(&rolls)
        .map(|(s, r)| {
            format!(
                "the highest {} ({}): {r}, the most permissive value, since it is rolled only after you join",
                s.purpose, s.cite
            )
        })
        .collect();
    Ok(SetupCheck {
        problems: scenario.layout_problems(public.as_ref(), &contents, &rolls),
        assumed,
    })
}

/// Which setup file a parse error is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The public setup.
    Public,
    /// The sealed setup.
    Sealed,
}
