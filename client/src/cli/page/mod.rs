//! The player's own page (issue 29): `hexveil join --ui` and `hexveil
//! resume DIR --ui` serve it from the player's client process on
//! 127.0.0.1 ([`serve`]). The client keeps its keys and secrets and talks
//! QUIC to the server exactly as without a page, with every check it
//! makes (PROTOCOL.md, the client's duties); the page is only a view of
//! what this client holds and a way to give it commands.
//!
//! # What the page is told (G3)
//!
//! A [`Snapshot`] is made by the seat loop from the seat's own picture of
//! the game ([`Board`] with `viewer` set, folded from the updates this
//! side was sent: public events and its own), its narrative (the
//! narrator for `Reader::Player(side)`), the seat's notes and the seat's
//! OWN sealed facts, read from its own secrets ([`own_sealed_facts`]).
//! Nothing of the opponent's secrets is in this process to be shown: the
//! opponent's minefields and Daisy Chain reach the page only when the
//! server's public events reveal them, as they reach the terminal.
//!
//! # Commands
//!
//! A command given on the page is handed to the seat on the channel
//! typed lines take ([`super::typed::from_page`]) and goes through the
//! same parser and checks as a typed one; the seat's answer (a refusal in
//! words, `queued`, `not sent`) comes back in the snapshot's notes.

use super::typed;
use hexveil_core::Side;
use hexveil_view::board::{Board, View};
use hexveil_view::svg::{board_svg, SealedFact, SvgView};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::watch;

#[cfg(feature = "ui")]
pub mod html;
#[cfg(feature = "ui")]
pub mod serve;

/// How many of the seat's notes a snapshot keeps (the newest).
const NOTES_KEPT: usize = 40;
/// How long a session that ended waits for its page to show the end.
const LAST_LOOK: std::time::Duration = std::time::Duration::from_secs(30);

/// Every legal one-hex move of one of the player's units, computed by the
/// ruleset's own code (A4.1 costs, the phase and ownership checks of the
/// engine's declaration check) from the seat's picture.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct UnitMoves {
    /// The unit's name (as the command language takes it).
    pub unit: String,
    /// Its hex.
    pub hex: String,
    /// Its MF (MP) left in this MPh, as the rules write them (`1½`).
    pub mf_left: String,
    /// The adjacent hexes it may enter now, each with its cost.
    pub to: Vec<(String, String)>,
}

/// What the page shows at one moment.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// One more at every change: the page asks for the next one.
    pub version: u64,
    /// The player's side, once seated.
    pub side: Option<Side>,
    /// `asl` or `minis`.
    pub ruleset: &'static str,
    /// The board, drawn for this side with its own sealed facts marked.
    pub svg: String,
    /// Turn, phase and whose move, in words.
    pub status: String,
    /// Who the game waits for, presence and the forfeit time (issue 27).
    pub waiting: Option<String>,
    /// Whether the seat is asking for the player's command now.
    pub your_move: bool,
    /// The narrative, with rule citations, as the terminal prints it.
    pub lines: Arc<Vec<String>>,
    /// The seat's own notes: refusals in words, queued commands, lost
    /// connections (the newest [`NOTES_KEPT`]).
    pub notes: Vec<String>,
    /// How the game ended, once it has.
    pub result: Option<String>,
    /// The transcript's verdict, once checked at the end.
    pub verdict: Option<String>,
    /// The legal moves of the player's units (ASL, in its MPh, at its
    /// move).
    pub moves: Vec<UnitMoves>,
    /// The commands of the game's ruleset: usage and what each does.
    pub commands: &'static [(&'static str, &'static str)],
}

impl Snapshot {
    /// The snapshot as the page's JSON, with the narrative from line
    /// `from` on (the page has the lines before).
    pub fn json(&self, from: usize) -> String {
        let lines = self.lines.get(from..).unwrap_or_default();
        serde_json::json!({
            "version": self.version,
            "side": self.side.map(|s| s.to_string()),
            "ruleset": self.ruleset,
            "svg": self.svg,
            "status": self.status,
            "waiting": self.waiting,
            "your_move": self.your_move,
            "lines_from": from.min(self.lines.len()),
            "lines": lines,
            "notes": self.notes,
            "result": self.result,
            "verdict": self.verdict,
            "moves": self.moves,
        })
        .to_string()
    }
}

/// The page's state, and the seat's own sealed facts it draws.
struct Page {
    state: watch::Sender<Arc<Snapshot>>,
    sealed: Mutex<Vec<SealedFact>>,
    /// Whether a page was ever served (a session's page or snapshot).
    opened: AtomicBool,
    /// The newest snapshot version a page says it has drawn: a snapshot
    /// handed to the HTTP server is not yet on the page (the response
    /// may still be unwritten when the process leaves), nor is one that
    /// something other than the page's script fetched.
    drawn: watch::Sender<u64>,
}

static PAGE: OnceLock<Page> = OnceLock::new();

/// Starts the page's state (once per process; before the page server):
/// from now on the seat loop publishes to it.
pub fn open() -> watch::Receiver<Arc<Snapshot>> {
    let page = PAGE.get_or_init(|| Page {
        state: watch::channel(Arc::new(Snapshot::default())).0,
        sealed: Mutex::new(Vec::new()),
        opened: AtomicBool::new(false),
        drawn: watch::channel(0).0,
    });
    typed::page_gives_commands();
    page.state.subscribe()
}

/// Changes the snapshot (when a page runs) and wakes the pages.
fn change(f: impl FnOnce(&mut Snapshot)) {
    if let Some(page) = PAGE.get() {
        page.state.send_modify(|s| {
            let s = Arc::make_mut(s);
            f(s);
            s.version += 1;
        });
    }
}

/// A page (or a snapshot) was served to a session.
pub fn opened() {
    if let Some(page) = PAGE.get() {
        page.opened.store(true, Ordering::SeqCst);
    }
}

/// The page's script says it has drawn the snapshot `version` (it asks
/// for the one after it, or says so at the end).
pub fn drawn(version: u64) {
    if let Some(page) = PAGE.get() {
        page.drawn.send_if_modified(|v| {
            let newer = version > *v;
            *v = (*v).max(version);
            newer
        });
    }
}

/// At the end of a session with a page: waits (at most [`LAST_LOOK`])
/// until the page says it has drawn the last snapshot (the result and
/// the verdict), so the process does not leave before the page shows
/// them: a snapshot merely handed to the HTTP server may never be
/// written if the process leaves at once.
/// A player at a terminal keeps the page of a game that is `over`
/// (issue 29: the verdict stays readable, a reload still answers) until
/// Enter or Ctrl-C; a client without a terminal (a script, a test), or
/// one leaving a game still under way, leaves after the last look.
pub async fn last_look(over: bool) {
    let Some(page) = PAGE.get() else {
        return;
    };
    let last = page.state.borrow().version;
    // No page was ever opened: nobody to wait for.
    if !page.opened.load(Ordering::SeqCst) {
        return;
    }
    let mut drawn = page.drawn.subscribe();
    let _ = tokio::time::timeout(LAST_LOOK, drawn.wait_for(|v| *v >= last)).await;
    if over && super::prompt::interactive() {
        println!(
            "the game is over; your page stays up with the result and the verdict: press Enter or Ctrl-C to close it and leave"
        );
        // The line reader may hold the terminal in raw mode (Ctrl-C then
        // arrives as a line): either ends the wait.
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = super::typed::next() => {}
        }
    }
}

/// The seat is taken: its side, its ruleset's commands and its own
/// sealed facts (from its own secrets: [`own_sealed_facts`]).
pub fn seated(
    side: Side,
    asl: bool,
    commands: &'static [(&'static str, &'static str)],
    sealed: Vec<SealedFact>,
) {
    if let Some(page) = PAGE.get() {
        *page.sealed.lock().unwrap_or_else(|e| e.into_inner()) = sealed;
    }
    change(|s| {
        s.side = Some(side);
        s.ruleset = if asl { "asl" } else { "minis" };
        s.commands = commands;
    });
}

/// Narrative lines, as printed.
pub fn narrative(lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    change(|s| Arc::make_mut(&mut s.lines).extend(lines.iter().cloned()));
}

/// One of the seat's notes (a refusal, a queued command, ...).
pub fn note(text: &str) {
    change(|s| {
        s.notes.push(text.to_string());
        let over = s.notes.len().saturating_sub(NOTES_KEPT);
        s.notes.drain(..over);
    });
}

/// The transcript's verdict at the end, as the client may state it
/// ([`hexveil::ending::Ending::verdict_words`]), and what the client was
/// shown checked against it.
pub fn verdict(text: &str) {
    change(|s| s.verdict = Some(text.to_string()));
}

/// The seat's picture changed (an update, a presence): the board drawn
/// for this side, the status, the wait and the legal moves.
pub fn board(board: &Board, seq: u64, your_move: bool) {
    let Some(page) = PAGE.get() else {
        return;
    };
    let Some(side) = board.viewer else {
        return;
    };
    let sealed = page
        .sealed
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let svg = board_svg(board, SvgView::Side(side), seq, &sealed);
    let status = board.show(View::Status).trim().to_string();
    let moves = if your_move {
        legal_moves(board, side)
    } else {
        Vec::new()
    };
    let waiting = board.waiting.clone();
    let result = board.result().map(String::from);
    // Events that change nothing shown (a receipt, a pong) wake no page.
    let same = {
        let now = page.state.borrow();
        now.svg == svg
            && now.status == status
            && now.waiting == waiting
            && now.your_move == your_move
            && now.result == result
            && now.moves == moves
    };
    if same {
        return;
    }
    change(|s| {
        s.svg = svg;
        s.status = status;
        s.waiting = waiting;
        s.your_move = your_move;
        s.result = result;
        s.moves = moves;
    });
}

/// The seat's own sealed facts, from its own secrets: each content its
/// sealed setup puts at a location (its minefields, Dummies and Booby
/// Traps; the miniatures rules' mines), as the ruleset reads the setup
/// for sealing, and (ASL) the Daisy Chain of each of its standing orders
/// (B28.531). Only the player's own (G3): the client holds no other.
pub fn own_sealed_facts(
    scenario: &dyn hexveil_core::Scenario,
    asl: bool,
    secrets: &hexveil_protocol::player::Secrets,
) -> Result<Vec<SealedFact>, String> {
    use hexveil_asl::model::sealed::{Content, DaisyNote};
    let public = scenario.public_setup(secrets.side, &secrets.public_setup_toml)?;
    let sealed = scenario.sealed_contents(public.as_ref(), &secrets.sealed_setup_toml)?;
    let mut facts: Vec<SealedFact> = sealed
        .into_iter()
        .flat_map(|(_, contents)| contents)
        .map(|(loc, content)| SealedFact {
            owner: secrets.side,
            location: loc.key().to_string(),
            content,
        })
        .collect();
    if asl && !secrets.orders.is_empty() {
        for order in hexveil_asl::standing_orders::decode(&secrets.orders)? {
            facts.push(SealedFact {
                owner: secrets.side,
                location: order.hex.to_string(),
                content: hexveil_asl::content::to_kernel(&Content::Daisy(DaisyNote::Placed {
                    holder: order.holder,
                    hex: order.hex,
                })),
            });
        }
    }
    Ok(facts)
}

/// Every one-hex move the player's units may declare now (ASL; none for
/// the miniatures rules, whose moves are free paths in inches): in the
/// side's own MPh (A4.1), to a hex adjacent on the map, whose cost the
/// unit can pay from its MF left (A4.1 costs as the engine counts them;
/// all its MF only as its first move, A4.134 as R57 reads it), and that
/// the engine's own declaration check accepts (phase, turn, ownership,
/// R73, the covered arc, C3.2). What the opponent's hidden mines will do
/// is not a question of legality: the move is declared, then attacked.
pub fn legal_moves(board: &Board, side: Side) -> Vec<UnitMoves> {
    use hexveil_asl::a::movement_factors::{cost, spent, Cost};
    use hexveil_asl::model::action::{Action, MoveMode};
    let Some(asl) = board.asl() else {
        return Vec::new();
    };
    let scenario = asl.scenario();
    let state = asl.state();
    let mut out = Vec::new();
    for (id, unit) in &state.units {
        if unit.side != side || !unit.in_play() {
            continue;
        }
        let (Some(hex), Some(left)) = (unit.hex, asl.mf_left(*id)) else {
            continue;
        };
        let mut to = Vec::new();
        for next in scenario.map.neighbors(hex) {
            let payable = match cost(&scenario.map, unit, hex, next, MoveMode::Normal) {
                Cost::Mf(m) => (m.0 <= left.0).then(|| m.to_string()),
                Cost::All => (spent(state, *id).0 == 0 && left.0 > 0).then(|| "all".to_string()),
            };
            let Some(paid) = payable else {
                continue;
            };
            let action = Action::Move {
                units: vec![*id],
                to: next,
                mode: MoveMode::Normal,
            };
            if hexveil_asl::adjudicate::check(scenario, state, side, &action).is_ok() {
                to.push((next.to_string(), paid));
            }
        }
        out.push(UnitMoves {
            unit: asl.name(*id),
            hex: hex.to_string(),
            mf_left: left.to_string(),
            to,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 29, G3: the page marks the player's own sealed facts, read
    // from his own secrets: side B's hidden minefields and its Daisy
    // Chain order (B28.531) in the example; side A, who hides nothing,
    // has none, and a picture for A drawn with A's facts shows none of
    // B's.
    #[test]
    fn issue29_own_sealed_facts_come_from_the_players_own_secrets() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/demo");
        let loaded =
            crate::cli::play::load_scenario(std::path::Path::new(&format!("{dir}/scenario.toml")))
                .unwrap();
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
        let layers = loaded.scenario.sealed_layers();
        let asl = loaded.asl().unwrap();
        let parser = crate::cli::command::Parser::new(asl);
        let order = crate::cli::play::daisy_order(&parser, "brit-squad-1@3E5").unwrap();
        let b = hexveil_protocol::player::Secrets::generate(
            Side::B,
            &layers,
            read("setup-b.toml"),
            read("sealed-b.toml"),
            hexveil_asl::standing_orders::encode(&[order]),
        )
        .unwrap();
        let facts = own_sealed_facts(loaded.scenario.as_ref(), true, &b).unwrap();
        assert!(facts.iter().all(|f| f.owner == Side::B));
        let board = Board::for_game(loaded.scenario.as_ref());
        let svg = board_svg(&board, SvgView::Side(Side::B), 0, &facts);
        for mark in [
            "class=\"sealed mine ap\" data-hex=\"3E4\" data-owner=\"B\"",
            "class=\"sealed mine at\" data-hex=\"3E5\" data-owner=\"B\"",
            "class=\"sealed daisy-chain\" data-hex=\"3E5\" data-owner=\"B\"",
        ] {
            assert!(svg.contains(mark), "{mark}");
        }
        let a = hexveil_protocol::player::Secrets::generate(
            Side::A,
            &layers,
            read("setup-a.toml"),
            read("sealed-a.toml"),
            Vec::new(),
        )
        .unwrap();
        let facts = own_sealed_facts(loaded.scenario.as_ref(), true, &a).unwrap();
        let svg = board_svg(&board, SvgView::Side(Side::A), 0, &facts);
        assert!(!svg.contains("class=\"sealed"), "{facts:?}");
    }
}
