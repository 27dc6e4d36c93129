//! The command language a player types at `Prompt::Act` (docs/PLAYING.md):
//! one line, one action. Units are named as in the scenario file (a unit's
//! id is its place in the file's unit list), hexes as on the map (`3E4`).
//! A line that does not parse is refused with a message that names what is
//! wrong, and nothing is sent.

use hexveil_asl::board::hex::Spine;
use hexveil_asl::model::action::{FfeKind, TargetType};
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::unit::Ammo;
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::{Action, Hex, MoveMode};
use thiserror::Error;

/// What a command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Declare this action.
    Act(Action),
    /// Print the command list.
    Help,
}

/// Why a command line was refused (nothing was sent).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The line holds no command.
    #[error("empty command: type `help` for the list of commands")]
    Empty,
    /// The first word is no command.
    #[error("unknown command `{0}`: type `help` for the list of commands")]
    UnknownVerb(String),
    /// An argument is missing.
    #[error("`{verb}` needs {what}: usage `{usage}`")]
    Missing {
        /// The command.
        verb: &'static str,
        /// What is missing.
        what: &'static str,
        /// Its usage line.
        usage: &'static str,
    },
    /// Words left over after a complete command.
    #[error("`{verb}` takes no more arguments, but `{extra}` follows: usage `{usage}`")]
    Extra {
        /// The command.
        verb: &'static str,
        /// The first extra word.
        extra: String,
        /// Its usage line.
        usage: &'static str,
    },
    /// No unit of the scenario has this name.
    #[error("no unit named `{0}` in this scenario (units: {1})")]
    UnknownUnit(String, String),
    /// The same unit is named twice.
    #[error("unit `{0}` is named twice")]
    DuplicateUnit(String),
    /// Not a hex name.
    #[error("`{text}` is not a hex name ({reason}); hexes are named like 3E4")]
    BadHex {
        /// The text.
        text: String,
        /// Why.
        reason: String,
    },
    /// A hex that is not on this scenario's map.
    #[error("hex {0} is not on this scenario's map")]
    OffMap(Hex),
    /// Not a movement mode.
    #[error("`{0}` is not a movement mode: normal, bypass, trench, stairs, tb, vbm or flail")]
    BadMode(String),
    /// Not a number in range.
    #[error("`{text}` is not a valid {what}")]
    BadNumber {
        /// What the number is.
        what: &'static str,
        /// The text.
        text: String,
    },
    /// Not an FFE kind.
    #[error("`{0}` is not an FFE kind: he or bomb")]
    BadFfeKind(String),
    /// Not ammunition.
    #[error("`{0}` is not ammunition: he, ap, heat, apcr, apds, smoke or wp")]
    BadAmmo(String),
    /// Not a hexspine.
    #[error("`{0}` is not a hexspine: e, sse, ssw, w, nnw or nne (C3.2)")]
    BadSpine(String),
}

/// A hexspine by its name (`sse`).
fn spine(s: &str) -> Option<Spine> {
    Spine::parse(s)
}

/// The commands, their usage and what they do (the `help` text).
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "move UNIT[,UNIT] HEX [normal|bypass|trench|stairs|tb|vbm|flail]",
        "move a stack one hex in your MPh (B28.41-B28.44, B28.61, B28.7)",
    ),
    (
        "rout UNIT HEX",
        "rout a broken unit one hex (RtPh, B28.413)",
    ),
    ("advance UNIT[,UNIT] HEX", "advance one hex (APh)"),
    (
        "fire UNIT[,UNIT] HEX [DRM]",
        "Infantry fire on the IFT; DRM is any extra DRM you agreed (A7)",
    ),
    (
        "ffe HEX FP [he|bomb]",
        "HE Concentration FFE or aerial bomb (B28.62)",
    ),
    (
        "search UNIT",
        "Search the unit's hex and ADJACENT hexes (A12.152)",
    ),
    (
        "clear UNIT",
        "spend an extra MF to remove A-T mines in full view in the unit's hex (B28.53)",
    ),
    (
        "clearance UNIT[,UNIT]",
        "Infantry Minefield Clearance (B28.6)",
    ),
    (
        "disembark VEHICLE UNIT[,UNIT]",
        "PRC leave a vehicle into its hex (B28.43)",
    ),
    (
        "dummy-dr",
        "at setup: the Secret dr for extra Dummy minefields (B28.47)",
    ),
    ("end", "end the current phase"),
    ("concede", "concede the game"),
    (
        "shoot GUN HEX infantry|area|VEHICLE AMMO [SPINE] [DRM]",
        "ordnance fire: Infantry or Area Target Type, or a vehicle's name for the Vehicle Target Type; AMMO is he, ap, heat, apcr, apds, wp; SPINE (e, sse, ssw, w, nnw, nne) turns the CA to fire (C3.21); DRM as agreed (C3)",
    ),
    (
        "turn GUN SPINE",
        "change a Gun's or vehicle's CA without firing, at the end of your fire phase (C3.22)",
    ),
    (
        "pick-ca UNIT SPINE",
        "pick the hexspine of an enemy Gun or vehicle whose facing is ambiguous (C3.2)",
    ),
    (
        "board",
        "show the map around the units and the status (nothing sent)",
    ),
    (
        "status",
        "show the turn, the phase and the last action (nothing sent)",
    ),
    ("units", "show every unit and its state (nothing sent)"),
    ("help", "this list"),
];

/// The help text.
pub fn help_text() -> String {
    let mut s = String::from("commands:\n");
    for (usage, what) in COMMANDS {
        s.push_str(&format!("  {usage:<62} {what}\n"));
    }
    s
}

/// Parses command lines against one scenario's units and map.
#[derive(Clone, Debug)]
pub struct Parser<'a> {
    scenario: &'a Scenario,
}

impl<'a> Parser<'a> {
    /// A parser for `scenario`.
    pub fn new(scenario: &'a Scenario) -> Parser<'a> {
        Parser { scenario }
    }

    /// Parses one line (a `#` starts a comment).
    pub fn parse(&self, line: &str) -> Result<Command, CommandError> {
        let line = join_lists(line.split('#').next().unwrap_or(""));
        let mut words = line.split_whitespace();
        let verb = words.next().ok_or(CommandError::Empty)?;
        let mut args = Args {
            words,
            verb: "",
            usage: "",
        };
        let action = match verb.to_ascii_lowercase().as_str() {
            "help" | "?" => {
                args.start("help", "help");
                args.done()?;
                return Ok(Command::Help);
            }
            "move" => {
                args.start("move", COMMANDS[0].0);
                let units = self.units(args.need("units")?)?;
                let to = self.hex(args.need("a hex")?)?;
                let mode = match args.next() {
                    None => MoveMode::Normal,
                    Some(m) => mode(m)?,
                };
                args.done()?;
                Action::Move { units, to, mode }
            }
            "rout" => {
                args.start("rout", COMMANDS[1].0);
                let unit = self.unit(args.need("a unit")?)?;
                let to = self.hex(args.need("a hex")?)?;
                args.done()?;
                Action::Rout { unit, to }
            }
            "advance" => {
                args.start("advance", COMMANDS[2].0);
                let units = self.units(args.need("units")?)?;
                let to = self.hex(args.need("a hex")?)?;
                args.done()?;
                Action::Advance { units, to }
            }
            "fire" => {
                args.start("fire", COMMANDS[3].0);
                let firers = self.units(args.need("firing units")?)?;
                let target = self.hex(args.need("a target hex")?)?;
                let extra_drm = match args.next() {
                    None => 0,
                    Some(t) => t.parse::<i8>().map_err(|_| CommandError::BadNumber {
                        what: "DRM (a whole number like -1 or +2)",
                        text: t.into(),
                    })?,
                };
                args.done()?;
                Action::Fire {
                    firers,
                    target,
                    extra_drm,
                }
            }
            "ffe" => {
                args.start("ffe", COMMANDS[4].0);
                let hex = self.hex(args.need("a hex")?)?;
                let t = args.need("the FP")?;
                let fp = t.parse::<u8>().ok().filter(|f| *f > 0).ok_or_else(|| {
                    CommandError::BadNumber {
                        what: "FP (1 to 255)",
                        text: t.into(),
                    }
                })?;
                let kind = match args.next().map(|k| k.to_ascii_lowercase()) {
                    None => FfeKind::HeConcentration,
                    Some(k) if k == "he" => FfeKind::HeConcentration,
                    Some(k) if k == "bomb" => FfeKind::AerialBomb,
                    Some(k) => return Err(CommandError::BadFfeKind(k)),
                };
                args.done()?;
                Action::Ffe { hex, fp, kind }
            }
            "search" => {
                args.start("search", COMMANDS[5].0);
                let unit = self.unit(args.need("a unit")?)?;
                args.done()?;
                Action::Search { unit }
            }
            "clear" => {
                args.start("clear", COMMANDS[6].0);
                let unit = self.unit(args.need("a unit")?)?;
                args.done()?;
                Action::ClearFullViewMines { unit }
            }
            "clearance" => {
                args.start("clearance", COMMANDS[7].0);
                let units = self.units(args.need("units")?)?;
                args.done()?;
                Action::InfantryClearance { units }
            }
            "disembark" => {
                args.start("disembark", COMMANDS[8].0);
                let vehicle = self.unit(args.need("a vehicle")?)?;
                let units = self.units(args.need("the units leaving it")?)?;
                args.done()?;
                Action::Disembark { vehicle, units }
            }
            "dummy-dr" => {
                args.start("dummy-dr", COMMANDS[9].0);
                args.done()?;
                Action::DummyDr
            }
            "end" => {
                args.start("end", COMMANDS[10].0);
                args.done()?;
                Action::EndPhase
            }
            "concede" => {
                args.start("concede", COMMANDS[11].0);
                args.done()?;
                Action::Concede
            }
            "shoot" => {
                args.start("shoot", COMMANDS[12].0);
                let gun = self.unit(args.need("the firing Gun or vehicle")?)?;
                let target = self.hex(args.need("a target hex")?)?;
                let tt = args.need("the Target Type (infantry, area or a vehicle's name)")?;
                let target_type = match tt.to_ascii_lowercase().as_str() {
                    "infantry" => TargetType::Infantry,
                    "area" => TargetType::Area,
                    _ => TargetType::Vehicle(self.unit(tt)?),
                };
                let a = args.need("the ammunition")?;
                let ammo = Ammo::parse(a).ok_or_else(|| CommandError::BadAmmo(a.into()))?;
                let (mut change_ca, mut extra_drm) = (None, 0);
                while let Some(w) = args.next() {
                    if let Ok(n) = w.parse::<i8>() {
                        extra_drm = n;
                    } else if let Some(s) = spine(w) {
                        change_ca = Some(s);
                    } else {
                        return Err(CommandError::BadSpine(w.into()));
                    }
                }
                Action::OrdnanceFire {
                    gun,
                    target,
                    target_type,
                    ammo,
                    change_ca,
                    extra_drm,
                }
            }
            "turn" | "pick-ca" => {
                let turn = verb.eq_ignore_ascii_case("turn");
                let (name, usage) = if turn {
                    ("turn", COMMANDS[13].0)
                } else {
                    ("pick-ca", COMMANDS[14].0)
                };
                args.start(name, usage);
                let unit = self.unit(args.need("a Gun or vehicle")?)?;
                let s = args.need("a hexspine")?;
                let ca = spine(s).ok_or_else(|| CommandError::BadSpine(s.into()))?;
                args.done()?;
                if turn {
                    Action::ChangeCa { unit, ca }
                } else {
                    Action::ChooseCa { unit, ca }
                }
            }
            other => return Err(CommandError::UnknownVerb(other.into())),
        };
        Ok(Command::Act(action))
    }

    /// A unit by its scenario name, or `id:N` by id (a Replacement unit
    /// has an id past the scenario's units).
    pub fn unit(&self, name: &str) -> Result<UnitId, CommandError> {
        if let Some(n) = name.strip_prefix("id:") {
            if let Ok(id) = n.parse::<u16>() {
                return Ok(UnitId(id));
            }
        }
        self.scenario
            .units
            .iter()
            .position(|u| u.name.eq_ignore_ascii_case(name))
            .map(|i| UnitId(i as u16))
            .ok_or_else(|| {
                CommandError::UnknownUnit(
                    name.into(),
                    self.scenario
                        .units
                        .iter()
                        .map(|u| u.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            })
    }

    fn units(&self, list: &str) -> Result<Vec<UnitId>, CommandError> {
        let mut out: Vec<UnitId> = Vec::new();
        for name in list.split(',').filter(|n| !n.is_empty()) {
            let id = self.unit(name)?;
            if out.contains(&id) {
                return Err(CommandError::DuplicateUnit(name.into()));
            }
            out.push(id);
        }
        Ok(out)
    }

    /// A hex on this scenario's map.
    pub fn hex(&self, text: &str) -> Result<Hex, CommandError> {
        let hex: Hex = text.to_ascii_uppercase().parse().map_err(
            |e: hexveil_asl::board::hex::HexNameError| CommandError::BadHex {
                text: text.into(),
                reason: e.to_string(),
            },
        )?;
        if !self.scenario.map.contains(hex) {
            return Err(CommandError::OffMap(hex));
        }
        Ok(hex)
    }
}

fn mode(m: &str) -> Result<MoveMode, CommandError> {
    Ok(match m.to_ascii_lowercase().as_str() {
        "normal" => MoveMode::Normal,
        "bypass" => MoveMode::Bypass,
        "trench" => MoveMode::Trench,
        "stairs" => MoveMode::TowerStairwell,
        "tb" => MoveMode::TrailBreak,
        "vbm" => MoveMode::VehicularBypass,
        "flail" => MoveMode::FlailClearance,
        _ => return Err(CommandError::BadMode(m.into())),
    })
}

struct Args<'l> {
    words: std::str::SplitWhitespace<'l>,
    verb: &'static str,
    usage: &'static str,
}

impl<'l> Args<'l> {
    fn start(&mut self, verb: &'static str, usage: &'static str) {
        self.verb = verb;
        self.usage = usage;
    }

    fn next(&mut self) -> Option<&'l str> {
        self.words.next()
    }

    fn need(&mut self, what: &'static str) -> Result<&'l str, CommandError> {
        self.words.next().ok_or(CommandError::Missing {
            verb: self.verb,
            what,
            usage: self.usage,
        })
    }

    fn done(&mut self) -> Result<(), CommandError> {
        match self.words.next() {
            None => Ok(()),
            Some(extra) => Err(CommandError::Extra {
                verb: self.verb,
                extra: extra.into(),
                usage: self.usage,
            }),
        }
    }
}

/// A list of units written with spaces around its commas (`a, b`) is the
/// same list as `a,b`: a unit list is one word of a command (issue 27:
/// `move a, b 4E6` read `b` as the hex).
fn join_lists(line: &str) -> String {
    let parts: Vec<&str> = line.split(',').collect();
    let last = parts.len() - 1;
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let p = if i < last { p.trim_end() } else { p };
            if i > 0 {
                p.trim_start()
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        hexveil_asl::model::scenario::Scenario::from_toml(include_str!(
            "../../../examples/scenario.toml"
        ))
        .unwrap()
    }

    #[test]
    fn move_names_units_by_scenario_order() {
        let s = scenario();
        let p = Parser::new(&s);
        assert_eq!(
            p.parse("move ger-squad-1,ger-leader 3e4").unwrap(),
            Command::Act(Action::Move {
                units: vec![UnitId(0), UnitId(1)],
                to: "3E4".parse().unwrap(),
                mode: MoveMode::Normal
            })
        );
        // Issue 27: spaces around the commas of a unit list.
        for line in [
            "move ger-squad-1, ger-leader 3e4",
            "move ger-squad-1 , ger-leader 3e4",
            "move ger-squad-1 ,ger-leader 3e4",
        ] {
            assert_eq!(
                p.parse(line).unwrap(),
                p.parse("move ger-squad-1,ger-leader 3e4").unwrap(),
                "{line}"
            );
        }
        assert!(matches!(
            p.parse("move ger-pz 3E5 vbm").unwrap(),
            Command::Act(Action::Move {
                mode: MoveMode::VehicularBypass,
                ..
            })
        ));
    }

    #[test]
    fn bad_lines_name_what_is_wrong() {
        let s = scenario();
        let p = Parser::new(&s);
        assert!(matches!(
            p.parse("move nobody 3E4"),
            Err(CommandError::UnknownUnit(n, _)) if n == "nobody"
        ));
        assert!(matches!(
            p.parse("move ger-pz"),
            Err(CommandError::Missing { what: "a hex", .. })
        ));
        assert!(matches!(
            p.parse("move ger-pz 3Z99"),
            Err(CommandError::BadHex { .. } | CommandError::OffMap(_))
        ));
        assert!(matches!(
            p.parse("move ger-pz 9E5"),
            Err(CommandError::OffMap(_))
        ));
        assert!(matches!(
            p.parse("move ger-pz 3E5 fly"),
            Err(CommandError::BadMode(m)) if m == "fly"
        ));
        assert!(matches!(
            p.parse("end now"),
            Err(CommandError::Extra { .. })
        ));
        assert!(matches!(p.parse("jump"), Err(CommandError::UnknownVerb(_))));
        assert_eq!(p.parse("  # only a comment"), Err(CommandError::Empty));
    }

    #[test]
    fn b28_53_clear_and_ffe() {
        let s = scenario();
        let p = Parser::new(&s);
        assert_eq!(
            p.parse("clear ger-hs-1").unwrap(),
            Command::Act(Action::ClearFullViewMines { unit: UnitId(3) })
        );
        assert_eq!(
            p.parse("ffe 3E4 36 bomb").unwrap(),
            Command::Act(Action::Ffe {
                hex: "3E4".parse().unwrap(),
                fp: 36,
                kind: FfeKind::AerialBomb
            })
        );
    }
}

/// A command line read for the game's ruleset: an action in the ruleset's
/// bytes (and its words), or `help`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Declare this action.
    Act {
        /// The action, as signed into the log.
        bytes: Vec<u8>,
        /// Whether it gives up the game (sent as a concession).
        concede: bool,
    },
    /// Print the command list.
    Help,
    /// Show a view of the game (`board`, `status`, `units`): a local
    /// command, nothing is sent.
    Show(hexveil_view::board::View),
}

/// A view command (`board`, `status`, `units`, `figures`) alone on the
/// line, in any ruleset; `None` for any other line.
pub fn view_command(line: &str) -> Option<Result<hexveil_view::board::View, String>> {
    let body = line.split('#').next().unwrap_or("");
    let mut words = body.split_whitespace();
    let view = hexveil_view::board::View::from_word(words.next()?)?;
    Some(match words.next() {
        None => Ok(view),
        Some(extra) => Err(format!(
            "`{}` takes no argument, but `{extra}` follows",
            body.split_whitespace().next().unwrap_or("")
        )),
    })
}

/// The command language of a game, by its ruleset: each ruleset reads its
/// own commands; the seat loop knows only [`Parsed`].
#[derive(Clone, Debug)]
pub enum Language<'a> {
    /// ASL (docs/PLAYING.md).
    Asl(Parser<'a>),
    /// The miniatures rules (seed 004).
    Minis(super::minis_command::Parser<'a>),
}

impl<'a> Language<'a> {
    /// The language of a game of `scenario`, as its ruleset loaded it.
    pub fn for_game(scenario: &'a dyn hexveil_core::Scenario) -> Result<Language<'a>, String> {
        let any = scenario.as_any();
        if let Some(asl) = any.downcast_ref::<hexveil_asl::ruleset::AslScenario>() {
            return Ok(Language::Asl(Parser::new(&asl.scenario)));
        }
        if let Some(minis) = any.downcast_ref::<hexveil_minis::MinisScenario>() {
            return Ok(Language::Minis(super::minis_command::Parser::new(minis)));
        }
        Err(format!(
            "this client has no command language for the scenario {:?}",
            scenario.name()
        ))
    }

    /// Parses one line.
    pub fn parse(&self, line: &str) -> Result<Parsed, String> {
        if let Some(view) = view_command(line) {
            return view.map(Parsed::Show);
        }
        match self {
            Language::Asl(p) => match p.parse(line).map_err(|e| e.to_string())? {
                Command::Act(a) => Ok(Parsed::Act {
                    concede: a == Action::Concede,
                    bytes: a.into(),
                }),
                Command::Help => Ok(Parsed::Help),
            },
            Language::Minis(p) => match p.parse(line)? {
                super::minis_command::Command::Act(a) => Ok(Parsed::Act {
                    concede: a == hexveil_minis::Action::Concede,
                    bytes: hexveil_minis::encode_action(&a),
                }),
                super::minis_command::Command::Help => Ok(Parsed::Help),
            },
        }
    }

    /// The commands: usage and what each does (the `help` list; the
    /// page's forms).
    pub fn commands(&self) -> &'static [(&'static str, &'static str)] {
        match self {
            Language::Asl(_) => COMMANDS,
            Language::Minis(_) => super::minis_command::COMMANDS,
        }
    }

    /// The words a line may start with (for completion).
    pub fn verbs(&self) -> Vec<&'static str> {
        self.commands()
            .iter()
            .filter_map(|(usage, _)| usage.split_whitespace().next())
            .collect()
    }

    /// The command list.
    pub fn help(&self) -> String {
        match self {
            Language::Asl(_) => help_text(),
            Language::Minis(_) => super::minis_command::help_text(),
        }
    }
}
