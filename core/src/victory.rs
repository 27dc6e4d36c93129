//! The shape every ruleset's victory conditions share (a scenario's
//! `[victory]`, docs/SCENARIO.md): conditions tried in file order, the
//! first that holds at the end naming the winner, and an `otherwise`
//! (`"A"`, `"B"` or `"draw"`) when none holds. What a condition asks
//! (hex control and CVP in ASL, objectives held and figures removed in
//! the miniatures rules) is the ruleset's; the order, the fallback and
//! the words of the verdict are here, so both rulesets judge alike and
//! `hexveil verify` re-derives the same reason (G5).

use crate::engine::Outcome;
use crate::side::Side;

/// Reads `otherwise`: `"A"` or `"B"` wins, `"draw"` is no winner. `None`
/// (the key is missing) is an error: a scenario with conditions must say
/// who wins when none holds, so every game ends with a winner or a stated
/// draw.
pub fn parse_otherwise(value: Option<&str>) -> Result<Option<Side>, OtherwiseError> {
    match value.map(str::trim) {
        None => Err(OtherwiseError::Missing),
        Some("draw") => Ok(None),
        Some("A" | "a") => Ok(Some(Side::A)),
        Some("B" | "b") => Ok(Some(Side::B)),
        Some(other) => Err(OtherwiseError::NotASide(other.to_string())),
    }
}

/// What is wrong with a scenario's `otherwise`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OtherwiseError {
    /// No `otherwise` was given.
    #[error("say who wins when no condition holds: \"A\", \"B\" or \"draw\"")]
    Missing,
    /// The value is neither side nor `draw`.
    #[error("otherwise is \"A\", \"B\" or \"draw\", not {0:?}")]
    NotASide(String),
}

/// Judges conditions in order at the end of play (`when`: `Game Turn 5`,
/// `turn 6`). `check` says for one condition the side it makes win and
/// whether it holds: `Ok(what holds)` or `Err(what fails)`, in words. The
/// first that holds names the winner; if none holds, `otherwise` wins (or
/// the game is a draw) and the reason lists what failed.
pub fn judge<C>(
    conditions: &[C],
    otherwise: Option<Side>,
    when: &str,
    check: impl Fn(&C) -> (Side, Result<String, String>),
) -> Outcome {
    let mut failed = Vec::new();
    for c in conditions {
        match check(c) {
            (side, Ok(holds)) => {
                return Outcome {
                    winner: Some(side),
                    reason: format!("{holds} at the end of {when} (victory conditions)"),
                }
            }
            (_, Err(fails)) => failed.push(fails),
        }
    }
    let then = match otherwise {
        Some(side) => format!("side {side} wins"),
        None => "the game is a draw".to_string(),
    };
    Outcome {
        winner: otherwise,
        reason: format!(
            "no victory condition holds at the end of {when} ({}), so {then} (victory conditions)",
            failed.join("; ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_condition_that_holds_wins_else_otherwise() {
        let conds = [(Side::A, false), (Side::B, true), (Side::A, true)];
        let check = |c: &(Side, bool)| {
            let words = format!("side {} cond", c.0);
            (c.0, if c.1 { Ok(words) } else { Err(words) })
        };
        let o = judge(&conds, None, "turn 3", check);
        assert_eq!(o.winner, Some(Side::B));
        assert_eq!(
            o.reason,
            "side B cond at the end of turn 3 (victory conditions)"
        );
        let o = judge(&conds[..1], Some(Side::B), "Game Turn 2", check);
        assert_eq!(o.winner, Some(Side::B));
        assert_eq!(
            o.reason,
            "no victory condition holds at the end of Game Turn 2 (side A cond), so side B wins (victory conditions)"
        );
        let o = judge(&conds[..1], None, "turn 1", check);
        assert_eq!(o.winner, None);
        assert!(o
            .reason
            .ends_with("so the game is a draw (victory conditions)"));
    }

    #[test]
    fn otherwise_is_a_side_or_a_draw_and_must_be_given() {
        assert_eq!(parse_otherwise(Some("A")), Ok(Some(Side::A)));
        assert_eq!(parse_otherwise(Some("draw")), Ok(None));
        assert_eq!(parse_otherwise(None), Err(OtherwiseError::Missing));
        assert!(matches!(
            parse_otherwise(Some("C")),
            Err(OtherwiseError::NotASide(_))
        ));
    }
}
