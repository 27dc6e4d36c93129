//! `hexveil demo`: a short scripted game between two bots, on the embedded
//! demo scenario (examples/demo/), showing hidden and Known A-P mines, a
//! Dummy, A-T mines hidden on a dirt road and in full view, a Daisy Chain
//! pulled across as a tank enters (B28.531, B28.51) and the Booby Traps
//! that every Task Check's Original DR 11/12 is checked against (B28.9).
//! The narrative is printed as each side sees it; then the transcript is
//! written and verified (G5). Dice are real: each run differs.

use super::command::Parser;
use super::narrate::{Narrator, Reader};
use super::script::{Next, Script};
use super::transcript::judge;
use hexveil_core::{Action, Side};
use hexveil_protocol::message::Update;
use hexveil_protocol::player::{DaisyOrder, Secrets};
use std::collections::BTreeMap;

/// The demo scenario.
pub const SCENARIO: &str = include_str!("../../../examples/demo/scenario.toml");
/// Side A's public setup.
pub const SETUP_A: &str = include_str!("../../../examples/demo/setup-a.toml");
/// Side A's sealed setup (nothing hidden).
pub const SEALED_A: &str = include_str!("../../../examples/demo/sealed-a.toml");
/// Side B's public setup.
pub const SETUP_B: &str = include_str!("../../../examples/demo/setup-b.toml");
/// Side B's sealed setup.
pub const SEALED_B: &str = include_str!("../../../examples/demo/sealed-b.toml");
/// Side A's commands.
pub const SCRIPT_A: &str = include_str!("../../../examples/demo/script-a.txt");
/// Side B's commands.
pub const SCRIPT_B: &str = include_str!("../../../examples/demo/script-b.txt");
/// B's standing Daisy Chain order: `brit-squad-1` pulls its chain across
/// 3E5 when an enemy vehicle enters it (B28.531).
pub const DAISY_B: &str = "brit-squad-1@3E5";

/// Parses `HOLDER@HEX` against the scenario.
pub fn daisy_order(parser: &Parser<'_>, text: &str) -> Result<DaisyOrder, String> {
    let (holder, hex) = text
        .split_once('@')
        .ok_or_else(|| format!("`{text}` is not HOLDER@HEX (e.g. brit-squad-1@3E5)"))?;
    Ok(DaisyOrder {
        holder: parser.unit(holder).map_err(|e| e.to_string())?,
        hex: parser.hex(hex).map_err(|e| e.to_string())?,
    })
}

/// Both sides' fresh secrets for the demo (seeds from the system RNG).
pub fn demo_secrets(parser: &Parser<'_>) -> Result<[Secrets; 2], String> {
    let a = Secrets::generate(Side::A, SETUP_A.into(), SEALED_A.into(), vec![])
        .map_err(|e| e.to_string())?;
    let b = Secrets::generate(
        Side::B,
        SETUP_B.into(),
        SEALED_B.into(),
        vec![daisy_order(parser, DAISY_B)?],
    )
    .map_err(|e| e.to_string())?;
    Ok([a, b])
}

/// Prints what both sides see of each log entry, merged: lines both see
/// once (`A+B`), the others with the side that sees them.
#[derive(Debug, Default)]
pub struct TwoViews {
    pending: BTreeMap<u64, [Option<Vec<String>>; 2]>,
}

fn index(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

impl TwoViews {
    /// Takes one side's lines for entry `seq`; prints every entry both
    /// sides have reported.
    pub fn add(&mut self, side: Side, seq: u64, lines: Vec<String>) {
        self.pending.entry(seq).or_default()[index(side)] = Some(lines);
        while let Some((&seq, views)) = self.pending.iter().next() {
            if views.iter().any(|v| v.is_none()) {
                break;
            }
            let [a, b] = self.pending.remove(&seq).unwrap_or_default();
            print_merged(&a.unwrap_or_default(), &b.unwrap_or_default());
        }
    }

    /// Prints whatever is left.
    pub fn flush(&mut self) {
        for (_, [a, b]) in std::mem::take(&mut self.pending) {
            print_merged(&a.unwrap_or_default(), &b.unwrap_or_default());
        }
    }
}

fn print_merged(a: &[String], b: &[String]) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                println!("A+B | {x}");
                i += 1;
                j += 1;
            }
            (Some(x), _) if !b[j..].contains(x) => {
                println!("A   | {x}");
                i += 1;
            }
            (_, Some(y)) if !a[i..].contains(y) => {
                println!("  B | {y}");
                j += 1;
            }
            (Some(x), _) => {
                println!("A   | {x}");
                i += 1;
            }
            (None, Some(y)) => {
                println!("  B | {y}");
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// One bot: its script, parser and narrator.
#[derive(Debug)]
pub struct Bot {
    /// Its side.
    pub side: Side,
    script: Script,
    narrator: Narrator,
}

impl Bot {
    /// A bot of `side` playing `script`.
    pub fn new(side: Side, script: &str, scenario: &hexveil_core::scenario::Scenario) -> Bot {
        let mut narrator = Narrator::new(scenario);
        narrator.prompts = false;
        Bot {
            side,
            script: Script::new(script),
            narrator,
        }
    }

    /// Narrates an update for the bot's side.
    pub fn narrate(&mut self, u: &Update) -> Vec<String> {
        self.narrator.update(u, Reader::Player(self.side))
    }

    /// The bot's next action (lines that do not parse are reported and
    /// skipped); `None` when the script is used up.
    pub fn next_action(&mut self, parser: &Parser<'_>) -> Option<Action> {
        loop {
            match self.script.next(parser) {
                Next::Act(_, a) => return Some(a),
                Next::Bad(line, e) => println!("side {}: script line `{line}`: {e}", self.side),
                Next::Help => {}
                Next::Done => return None,
            }
        }
    }
}

/// Prints the verdict on a transcript and whether it is clean.
pub fn report(bytes: &[u8], path: &std::path::Path) -> bool {
    let (verdict, code) = judge(bytes);
    println!();
    println!("transcript: {} ({} bytes)", path.display(), bytes.len());
    println!("hexveil verify {}:", path.display());
    println!("{verdict}");
    code == 0
}

/// Runs the demo in memory (the protocol session and two players, no
/// network); returns the transcript bytes.
pub fn run_in_memory() -> Result<Vec<u8>, String> {
    use hexveil_protocol::encoding::GameId;
    use hexveil_protocol::identity::Identity;
    use hexveil_protocol::message::{Mode, Prompt, ToClient};
    use hexveil_protocol::pad::PadSeed;
    use hexveil_protocol::player::{random32, Player};
    use hexveil_protocol::session::{GameParams, Output, Session};
    use std::collections::VecDeque;

    let scenario = hexveil_protocol::rules::parse_scenario(SCENARIO)?;
    let parser = Parser::new(&scenario);
    let [sa, sb] = demo_secrets(&parser)?;
    let rnd = || random32().map_err(|e| e.to_string());
    let game_id = GameId(rnd()?[..16].try_into().map_err(|_| "id")?);
    let ida = Identity::from_seed(&rnd()?).map_err(|e| e.to_string())?;
    let idb = Identity::from_seed(&rnd()?).map_err(|e| e.to_string())?;
    let server = Identity::from_seed(&rnd()?).map_err(|e| e.to_string())?;
    let params = GameParams {
        scenario_toml: SCENARIO.into(),
        players: [ida.public_key(), idb.public_key()],
        mode: Mode::Live,
        pad_len: 256,
        answer_timeout_ms: 60_000,
    };
    let (mut session, out) =
        Session::create(game_id, params, server, PadSeed(rnd()?), 0).map_err(|e| e.to_string())?;
    let mut players = [
        Player::new(ida, game_id, SCENARIO, 256, sa).map_err(|e| e.to_string())?,
        Player::new(idb, game_id, SCENARIO, 256, sb).map_err(|e| e.to_string())?,
    ];
    let mut bots = [
        Bot::new(Side::A, SCRIPT_A, &scenario),
        Bot::new(Side::B, SCRIPT_B, &scenario),
    ];
    let mut views = TwoViews::default();
    let mut queue: VecDeque<Output> = out.into();
    while let Some(o) = queue.pop_front() {
        let (side, msg) = match o {
            Output::ToPlayer(side, msg) => (side, msg),
            _ => continue,
        };
        let i = index(side);
        let env = match msg {
            ToClient::Update(u) => {
                views.add(side, u.seq, bots[i].narrate(&u));
                match players[i].on_update(&u).map_err(|e| e.to_string())? {
                    Some(env) => Some(env),
                    None if u.prompt == Prompt::Act => {
                        bots[i].next_action(&parser).map(|a| players[i].act(a))
                    }
                    None => None,
                }
            }
            ToClient::Rejected { reason } => {
                views.flush();
                println!("side {side}: refused, nothing changed: {reason}");
                bots[i].next_action(&parser).map(|a| players[i].act(a))
            }
            _ => None,
        };
        if let Some(env) = env {
            queue.extend(session.submit(side, env, 0));
        }
    }
    views.flush();
    if !session.is_closed() {
        // The scripts ran out before the game ended: A concedes.
        let env = players[0].act(Action::Concede);
        let mut q: VecDeque<Output> = session.submit(Side::A, env, 0).into();
        while let Some(o) = q.pop_front() {
            if let Output::ToPlayer(side, ToClient::Update(u)) = o {
                if let Some(env) = players[index(side)]
                    .on_update(&u)
                    .map_err(|e| e.to_string())?
                {
                    q.extend(session.submit(side, env, 0));
                }
            }
        }
    }
    hexveil_protocol::transcript::Transcript {
        entries: session.log().to_vec(),
    }
    .to_bytes()
    .map_err(|e| e.to_string())
}

/// `hexveil demo [--out FILE]`.
pub fn main(out: Option<std::path::PathBuf>) -> std::process::ExitCode {
    let bytes = match run_in_memory() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hexveil demo: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let path = out.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("hexveil-demo-{}.transcript", std::process::id()))
    });
    if let Err(e) = super::files::write_durably(&path, &bytes, true) {
        eprintln!("hexveil demo: {e}");
        return std::process::ExitCode::FAILURE;
    }
    if report(&bytes, &path) {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
