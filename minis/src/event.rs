//! The ruleset's own events (in [`hexveil_core::EventKind::Rules`]), how
//! they are encoded, and how they read in words.

use crate::action::MineKind;
use crate::geom::{Cell, Point};
use crate::scenario::MinisScenario;
use hexveil_core::Side;
use serde::{Deserialize, Serialize};

/// What a mine did to a vehicle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VehicleResult {
    /// Destroyed.
    Destroyed,
    /// Tracks damaged: immobilized.
    Immobilized,
    /// No damage.
    NoDamage,
}

/// An event of the miniatures rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MinisEvent {
    /// A figure moved (or cleared its way) from `from` to `to`.
    Moved {
        /// Figure name.
        figure: String,
        /// Where it started.
        from: Point,
        /// Where it stopped.
        to: Point,
    },
    /// The detonation roll of a move set nothing off (said the same way
    /// whether or not mines were crossed, G3).
    NoDetonation {
        /// Figure name.
        figure: String,
    },
    /// A mine went off under a figure, which stops there.
    Detonation {
        /// Figure name.
        figure: String,
        /// The mine's type.
        mine: MineKind,
        /// The cell it was in.
        cell: Cell,
        /// The detonation point.
        at: Point,
    },
    /// What the mine did to the vehicle that set it off.
    VehicleHit {
        /// Figure name.
        figure: String,
        /// The result.
        result: VehicleResult,
    },
    /// Whether a destroyed soft vehicle's trailer or towed weapon survived.
    TowedWeapon {
        /// The vehicle's name.
        figure: String,
        /// The towed weapon's name.
        towed: String,
        /// Whether it survived.
        survived: bool,
    },
    /// An Infantry figure's save against a blast (R10) or S-mine (R8).
    BlastSave {
        /// Figure name.
        figure: String,
        /// Distance from the detonation, in tenths of an inch (rounded).
        distance_tenths: u32,
        /// A D6 of at least this saves.
        needs: u8,
        /// The D6.
        roll: u8,
        /// Saved; else removed.
        saved: bool,
    },
    /// An Infantry figure began laying a mine.
    LayingBegun {
        /// Figure name.
        figure: String,
        /// Where.
        cell: Cell,
        /// What.
        kind: MineKind,
    },
    /// A mine was laid in the open (density of the cell up by one).
    MineLaid {
        /// Figure name.
        figure: String,
        /// Where.
        cell: Cell,
        /// What.
        kind: MineKind,
        /// The cell's open density of that type now.
        density: u16,
    },
    /// A figure cleared a 1-inch-wide path: these cells hold no mines now.
    Cleared {
        /// Figure name.
        figure: String,
        /// Every cell the strip touched.
        cells: Vec<Cell>,
        /// Of those, the cells whose open mines were lifted.
        open_removed: Vec<Cell>,
    },
    /// A side ended its turn.
    TurnEnded {
        /// Who.
        side: Side,
        /// The turn now.
        turn: u16,
        /// Who acts now.
        next: Side,
    },
    /// A side conceded.
    Conceded {
        /// Who.
        side: Side,
    },
    /// The game is over.
    GameOver {
        /// The winner, if any.
        winner: Option<Side>,
        /// Why.
        reason: String,
    },
    /// A figure's action, refused after its dice, is consumed (ruleset
    /// version 2, R78): its rolls are spent and it has acted this turn.
    /// Public; the refusal's words are in [`MinisEvent::ConsumedWhy`].
    Consumed {
        /// Whose action.
        side: Side,
        /// The figure.
        figure: String,
    },
    /// Why an action was consumed (referee only until the end: the words
    /// may depend on a hidden density, G3).
    ConsumedWhy {
        /// The refusal.
        reason: String,
    },
}

/// The event's bytes.
pub fn encode_event(e: &MinisEvent) -> Vec<u8> {
    postcard::to_stdvec(e).expect("events always encode")
}

/// Reads an event's bytes.
pub fn decode_event(bytes: &[u8]) -> Result<MinisEvent, postcard::Error> {
    postcard::from_bytes(bytes)
}

/// An event in words, for the command line.
pub fn describe_event(scenario: &MinisScenario, e: &MinisEvent) -> String {
    let who = |name: &str| match scenario.figure_named(name) {
        Some((_, f)) => format!("{name} (side {})", f.side),
        None => name.to_string(),
    };
    let inches = |t: u32| crate::geom::fmt_tenths(i64::from(t));
    match e {
        MinisEvent::Moved { figure, from, to } => {
            format!("{} moves from {from} to {to}", who(figure))
        }
        MinisEvent::NoDetonation { figure } => format!("no mine detonated under {}", who(figure)),
        MinisEvent::Detonation {
            figure,
            mine,
            cell,
            at,
        } => format!(
            "{} sets off an {} in {cell}: it stops at {at}",
            who(figure),
            mine.words()
        ),
        MinisEvent::VehicleHit { figure, result } => match result {
            VehicleResult::Destroyed => format!("{} is destroyed", who(figure)),
            VehicleResult::Immobilized => {
                format!("{} has its tracks damaged: immobilized", who(figure))
            }
            VehicleResult::NoDamage => format!("{} is undamaged", who(figure)),
        },
        MinisEvent::TowedWeapon {
            figure,
            towed,
            survived,
        } => format!(
            "{towed}, towed by {}, {}",
            who(figure),
            if *survived { "survives" } else { "is lost" }
        ),
        MinisEvent::BlastSave {
            figure,
            distance_tenths,
            needs,
            roll,
            saved,
        } => format!(
            "{} at {} in from the blast needs {needs}+ and rolls {roll}: {}",
            who(figure),
            inches(*distance_tenths),
            if *saved { "saved" } else { "removed" }
        ),
        MinisEvent::LayingBegun { figure, cell, kind } => {
            format!(
                "{} begins laying an {} in {cell}",
                who(figure),
                kind.words()
            )
        }
        MinisEvent::MineLaid {
            figure,
            cell,
            kind,
            density,
        } => format!(
            "{} lays an {} in {cell} (open; density there now {density})",
            who(figure),
            kind.words()
        ),
        MinisEvent::Cleared {
            figure,
            cells,
            open_removed,
        } => {
            let list = |v: &[Cell]| {
                v.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut s = format!("{} clears a path through {}", who(figure), list(cells));
            if !open_removed.is_empty() {
                s.push_str(&format!(" (open mines lifted in {})", list(open_removed)));
            }
            s
        }
        // Issue 27 item 9: past the scenario's last turn no side acts
        // (R79 judges the end); never "turn 7, side A to act".
        MinisEvent::TurnEnded { side, turn, .. } if *turn > scenario.turns => format!(
            "side {side} ends its turn; turn {} of {} was the last",
            scenario.turns, scenario.turns
        ),
        MinisEvent::TurnEnded { side, turn, next } => {
            format!("side {side} ends its turn; turn {turn}, side {next} to act")
        }
        MinisEvent::Conceded { side } => format!("side {side} concedes"),
        MinisEvent::GameOver { winner, reason } => match winner {
            Some(w) => format!("game over: side {w} wins ({reason})"),
            None => format!("game over ({reason})"),
        },
        MinisEvent::Consumed { side, figure } => format!(
            "side {side}'s action with {} is consumed: its ruling needs rules data the game lacks; its dice stand and it has acted this turn",
            who(figure)
        ),
        MinisEvent::ConsumedWhy { reason } => {
            format!("the action was consumed because {reason}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 27 item 9, R79: the turn that ends the scenario's last turn
    // names no side to act.
    #[test]
    fn issue27_item9_the_last_turn_ended_names_no_side_to_act() {
        let sc =
            MinisScenario::from_toml(include_str!("../../examples/minis/scenario.toml")).unwrap();
        let last = describe_event(
            &sc,
            &MinisEvent::TurnEnded {
                side: Side::B,
                turn: sc.turns + 1,
                next: Side::A,
            },
        );
        println!("{last}");
        assert_eq!(last, "side B ends its turn; turn 6 of 6 was the last");
        let before = describe_event(
            &sc,
            &MinisEvent::TurnEnded {
                side: Side::B,
                turn: sc.turns,
                next: Side::A,
            },
        );
        assert_eq!(before, "side B ends its turn; turn 6, side A to act");
    }
}
