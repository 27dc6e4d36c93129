//! The command language of the miniatures rules (seed 004) at the prompt:
//! `move`, `lay`, `clear`, `end`, `concede`, `help`. Distances and points
//! are in inches (`12.5,30`); a cell is `c12x30`. A line that does not
//! parse is refused with what is wrong, and nothing is sent.

use hexveil_minis::{Action, Cell, MineKind, MinisScenario, Point};

/// The commands, their usage and what they do.
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "move FIGURE X,Y [X,Y ...]",
        "move a figure along straight segments through these points (inches)",
    ),
    (
        "lay FIGURE CELL ap|at|s",
        "an Infantry figure lays a mine in CELL (c12x30), 2 turns in a row",
    ),
    (
        "clear FIGURE X,Y",
        "an Infantry figure clears a 1 in wide path, moving at most 1 in",
    ),
    ("end", "end your turn"),
    ("concede", "concede the game"),
    (
        "board",
        "show the table: figures, open mines, turn (nothing sent)",
    ),
    ("status", "show the turn, the side to act, the last action"),
    ("figures", "show every figure and its state (`units` too)"),
    ("help", "this list"),
];

/// The help text.
pub fn help_text() -> String {
    let mut s = String::from("commands (miniatures rules, seed 004):\n");
    for (usage, what) in COMMANDS {
        s.push_str(&format!("  {usage:<30} {what}\n"));
    }
    s
}

/// What a line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Declare this action.
    Act(Action),
    /// Print the command list.
    Help,
}

/// Parses command lines against one scenario's figures.
#[derive(Clone, Copy, Debug)]
pub struct Parser<'a> {
    scenario: &'a MinisScenario,
}

impl<'a> Parser<'a> {
    /// A parser for `scenario`.
    pub fn new(scenario: &'a MinisScenario) -> Parser<'a> {
        Parser { scenario }
    }

    /// Parses one line (a `#` starts a comment).
    pub fn parse(&self, line: &str) -> Result<Command, String> {
        let line = line.split('#').next().unwrap_or("");
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((verb, args)) = words.split_first() else {
            return Err("empty command: type `help` for the list of commands".into());
        };
        let usage = |v: &str| {
            COMMANDS
                .iter()
                .find(|(u, _)| u.split_whitespace().next() == Some(v))
                .map_or("", |(u, _)| u)
        };
        let need = |n: usize, v: &str| {
            if args.len() < n {
                Err(format!("`{v}` needs more: usage `{}`", usage(v)))
            } else {
                Ok(())
            }
        };
        let action = match verb.to_ascii_lowercase().as_str() {
            "help" | "?" => return Ok(Command::Help),
            "move" => {
                need(2, "move")?;
                let figure = self.figure(args[0])?;
                let path = args[1..]
                    .iter()
                    .map(|p| point(p))
                    .collect::<Result<Vec<_>, _>>()?;
                Action::Move { figure, path }
            }
            "lay" => {
                need(3, "lay")?;
                if args.len() > 3 {
                    return Err(format!("`lay` takes 3 words: usage `{}`", usage("lay")));
                }
                Action::Lay {
                    figure: self.figure(args[0])?,
                    cell: cell(args[1])?,
                    kind: match args[2].to_ascii_lowercase().as_str() {
                        "ap" => MineKind::AntiPersonnel,
                        "at" => MineKind::AntiTank,
                        "s" => MineKind::SMine,
                        other => {
                            return Err(format!(
                                "`{other}` is no mine type: ap, at or s (German S-mine)"
                            ))
                        }
                    },
                }
            }
            "clear" => {
                need(2, "clear")?;
                if args.len() > 2 {
                    return Err(format!("`clear` takes 2 words: usage `{}`", usage("clear")));
                }
                Action::Clear {
                    figure: self.figure(args[0])?,
                    to: point(args[1])?,
                }
            }
            "end" if args.is_empty() => Action::EndTurn,
            "concede" if args.is_empty() => Action::Concede,
            "end" | "concede" => return Err(format!("`{verb}` takes no argument")),
            other => {
                return Err(format!(
                    "unknown command `{other}`: type `help` for the list of commands"
                ))
            }
        };
        Ok(Command::Act(action))
    }

    fn figure(&self, name: &str) -> Result<String, String> {
        match self.scenario.figure_named(name) {
            Some(_) => Ok(name.to_string()),
            None => Err(format!("no figure named `{name}` in this scenario")),
        }
    }
}

fn point(text: &str) -> Result<Point, String> {
    text.parse::<Point>()
        .map_err(|e| format!("`{text}` is not a point in inches like 12.5,30: {e}"))
}

fn cell(text: &str) -> Result<Cell, String> {
    Cell::from_key(text).ok_or_else(|| format!("`{text}` is not a cell like c12x30"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> MinisScenario {
        MinisScenario::from_toml(include_str!("../../../examples/minis/scenario.toml")).unwrap()
    }

    #[test]
    fn seed004_commands_parse_into_actions() {
        let s = scenario();
        let p = Parser::new(&s);
        assert_eq!(
            p.parse("move ger-pz-iv 12,10 14.5,16").unwrap(),
            Command::Act(Action::Move {
                figure: "ger-pz-iv".into(),
                path: vec!["12,10".parse().unwrap(), "14.5,16".parse().unwrap()],
            })
        );
        assert_eq!(
            p.parse("lay ger-rifle-1 c11x6 s").unwrap(),
            Command::Act(Action::Lay {
                figure: "ger-rifle-1".into(),
                cell: Cell::from_key("c11x6").unwrap(),
                kind: MineKind::SMine,
            })
        );
        assert_eq!(p.parse("end").unwrap(), Command::Act(Action::EndTurn));
        assert_eq!(p.parse("help").unwrap(), Command::Help);
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let s = scenario();
        let p = Parser::new(&s);
        assert!(p.parse("move nobody 1,1").unwrap_err().contains("nobody"));
        assert!(p
            .parse("move ger-mg one,two")
            .unwrap_err()
            .contains("one,two"));
        assert!(p.parse("lay ger-mg c1x1 xx").unwrap_err().contains("xx"));
        assert!(p.parse("lay ger-mg 1x1 ap").unwrap_err().contains("1x1"));
        assert!(p.parse("fly ger-mg").unwrap_err().contains("fly"));
        assert!(p.parse("move ger-mg").unwrap_err().contains("usage"));
    }
}
