//! What a player can see of the game, as text: the `board`, `status` and
//! `units` commands at the prompt (docs/PLAYING.md), `hexveil board`
//! offline and `hexveil replay --board`.
//!
//! # Where the picture comes from (G3)
//!
//! The client keeps its own copy of the public game state by folding what
//! it legitimately received, in log order, with its ruleset's public fold
//! (`hexveil_asl::public_state`, `hexveil_minis::public_state`): the same
//! fold a player's client bounds the referee's requests with (issue 24),
//! so there is one. The start of play is built from the scenario and the
//! public setups (each Setup entry's update carries its author's public
//! setup, `Update.public_setup`, public to every audience), and every
//! declared action and every event of every update after it is applied. A
//! player's updates hold only public events and its own side's private
//! ones (`session::view`), so nothing of the other side's sealed facts can
//! reach this view: it is never told them. No engine is re-run (an engine
//! would need the sealed facts); the fold mirrors what the engine's public
//! events say happened (units moved, broken, pinned, eliminated, markers
//! revealed or removed, the phase). A replay after the game folds every
//! event, referee-only ones included: everything is revealed then. This
//! module adds only what a picture needs besides: names, the hexes the
//! last action touched, the Booby Traps and mines that went off, the
//! result in words.

use hexveil_asl::a::morale::MoraleEvent;
use hexveil_asl::b28::daisy_chain::DaisyEvent;
use hexveil_asl::b28::minefield::MinefieldEvent;
/// How a game ended, in the words every view uses: `side B wins (side A
/// conceded)`, or `no winner (...)` (the end record's, or the engine's
/// game-over event's, winner and reason).
pub fn result_words(winner: Option<impl std::fmt::Display>, reason: &str) -> String {
    match winner {
        Some(w) => format!("side {w} wins ({reason})"),
        None => format!("no winner ({reason})"),
    }
}

#[cfg(test)]
use hexveil_asl::b28::minefield::VehicleOutcome;
use hexveil_asl::b28::movement::MoveEvent;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::unit::{Unit, UnitId};
use hexveil_asl::public_state::PublicState;
use hexveil_asl::turn::TurnEvent;
use hexveil_asl::{EventKind, Hex, Side};
use hexveil_core as kernel;
use hexveil_minis::public_state::PublicState as MinisPublic;
use hexveil_minis::{Cell, MinisEvent, MinisScenario, Point};
use hexveil_protocol::message::Update;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The three views a player may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The map around the units, with the status on top.
    Board,
    /// Turn, phase, whose move, the last action.
    Status,
    /// Every unit (figure) and its state.
    Units,
}

impl View {
    /// The view a command word asks for (`board`, `status`, `units`,
    /// `figures` for the miniatures rules).
    pub fn from_word(word: &str) -> Option<View> {
        match word.to_ascii_lowercase().as_str() {
            "board" | "map" => Some(View::Board),
            "status" => Some(View::Status),
            "units" | "figures" => Some(View::Units),
            _ => None,
        }
    }

    /// The command word of the view.
    pub fn word(self) -> &'static str {
        match self {
            View::Board => "board",
            View::Status => "status",
            View::Units => "units",
        }
    }
}

/// A player's (or a replay's) picture of one game.
#[derive(Clone, Debug)]
pub struct Board {
    game: Game,
    /// The reader: a player's side, `None` offline or in a replay.
    pub viewer: Option<Side>,
    /// Who the game waits for, on what and until when, as the server last
    /// said (issue 27; a live game only): the last line of `status`.
    pub waiting: Option<String>,
    /// What the last action did, in the narrator's words.
    last: Vec<String>,
    /// How the game ended, in words.
    result: Option<String>,
}

#[derive(Clone, Debug)]
enum Game {
    Asl(Box<AslBoard>),
    Minis(Box<MinisBoard>),
    Unknown(String),
}

impl Board {
    /// The picture of a game of `scenario` before any setup is known.
    pub fn for_game(scenario: &dyn kernel::Scenario) -> Board {
        let any = scenario.as_any();
        let game = if let Some(asl) = any.downcast_ref::<hexveil_asl::ruleset::AslScenario>() {
            Game::Asl(Box::new(AslBoard::new(Arc::clone(&asl.scenario))))
        } else if let Some(minis) = any.downcast_ref::<MinisScenario>() {
            Game::Minis(Box::new(MinisBoard::new(minis.clone())))
        } else {
            Game::Unknown(scenario.name().to_string())
        };
        Board {
            game,
            viewer: None,
            waiting: None,
            last: Vec::new(),
            result: None,
        }
    }

    /// Takes a side's public setup (TOML text, as its Setup entry carries
    /// it); the side is the one the file names.
    pub fn setup(&mut self, text: &str) -> Result<(), String> {
        let side = side_named(text)?;
        match &mut self.game {
            Game::Asl(b) => b.setup(side, text),
            Game::Minis(b) => b.setup(side, text),
            Game::Unknown(_) => Ok(()),
        }
    }

    /// Folds one update the reader received; `lines` is what the narrator
    /// told of it (kept as "what the last action did").
    pub fn update(&mut self, u: &Update, lines: &[String]) {
        if let Some(text) = &u.public_setup {
            // A setup the referee accepted parses; a client of another
            // version may not read it, and then draws without it.
            let _ = self.setup(text);
        }
        if let Some(d) = &u.action {
            self.declared(d.by, &d.action);
        }
        self.events(&u.events);
        let told = lines
            .iter()
            .filter(|l| !l.starts_with(">>") && !l.starts_with("[G4]"))
            .filter(|l| !l.starts_with("[DESIGN") && !l.starts_with("log #"))
            .cloned();
        if u.action.is_some() {
            self.set_last(told.collect());
        } else if !u.events.is_empty() {
            self.last.extend(told);
        }
        // The end record says how the game ended whatever ended it (a
        // concession or a timeout has no engine event to fold): the result
        // a page and `status` show (issue 29, a new user's trial).
        if let Some(end) = &u.end {
            self.result = Some(result_words(end.winner, &end.reason));
        }
        if u.closed {
            // Issue 27 item 9: the log is closed, so the game waits for
            // nobody; a wait said before (the reveal) is over.
            self.waiting = None;
        }
    }

    /// Takes an action declared in the log by `actor` (the ruleset's
    /// bytes), before its ruling's events.
    pub fn declared(&mut self, actor: Side, action: &[u8]) {
        if let Game::Asl(b) = &mut self.game {
            b.declared(actor, action);
        }
    }

    /// Folds events (a ruling's, in order).
    pub fn events(&mut self, events: &[kernel::Event]) {
        for e in events {
            let ended = match &mut self.game {
                Game::Asl(b) => b.event(e),
                Game::Minis(b) => b.event(e),
                Game::Unknown(_) => None,
            };
            if ended.is_some() {
                self.result = ended;
            }
        }
    }

    /// Sets what the last action did (a replay tells it its own way).
    pub fn set_last(&mut self, lines: Vec<String>) {
        self.last = lines;
        if let Game::Asl(b) = &mut self.game {
            b.last_hexes.clear();
        }
    }

    /// The ASL picture, if the game is one.
    pub fn asl(&self) -> Option<&AslBoard> {
        match &self.game {
            Game::Asl(b) => Some(b),
            _ => None,
        }
    }

    /// The miniatures picture, if the game is one.
    pub fn minis(&self) -> Option<&MinisBoard> {
        match &self.game {
            Game::Minis(b) => Some(b),
            _ => None,
        }
    }

    /// What the last action did, in words.
    pub fn last_lines(&self) -> &[String] {
        &self.last
    }

    /// How the game ended, in words (once it has).
    pub fn result(&self) -> Option<&str> {
        self.result.as_deref()
    }

    /// Adds a line to what the last action did.
    pub fn push_last(&mut self, line: String) {
        self.last.push(line);
    }

    /// The text of a view.
    pub fn show(&self, view: View) -> String {
        let mut out = Vec::new();
        match view {
            View::Status => self.status(&mut out),
            View::Board => {
                self.status(&mut out);
                match &self.game {
                    Game::Asl(b) => b.map(&mut out),
                    Game::Minis(b) => b.table(&mut out),
                    Game::Unknown(_) => {}
                }
            }
            View::Units => match &self.game {
                Game::Asl(b) => b.units(&mut out),
                Game::Minis(b) => b.figures(&mut out),
                Game::Unknown(_) => {}
            },
        }
        let mut s = out.join("\n");
        s.push('\n');
        s
    }

    fn status(&self, out: &mut Vec<String>) {
        let you = match self.viewer {
            Some(s) => format!("; you are side {s}"),
            None => String::new(),
        };
        match &self.game {
            Game::Asl(b) => out.push(format!("{}{you}", b.when())),
            Game::Minis(b) => out.push(format!("{}{you}", b.when())),
            Game::Unknown(name) => out.push(format!(
                "\"{name}\": this client cannot draw this ruleset's board{you}"
            )),
        }
        if let Some(r) = &self.result {
            out.push(format!("the game is over: {r}"));
        }
        if self.last.is_empty() {
            out.push("last action: none yet".into());
        } else {
            out.push("last action:".into());
            out.extend(self.last.iter().map(|l| format!("  {l}")));
        }
        if let Some(w) = &self.waiting {
            out.push(format!("now: {w}"));
        }
    }

    /// The units view, unless the board view already lists them (a
    /// miniatures table lists its figures): empty then.
    pub fn units_apart(&self) -> String {
        if matches!(self.game, Game::Minis(_)) {
            String::new()
        } else {
            self.show(View::Units)
        }
    }

    /// Names the completion offers: units or figures.
    pub fn names(&self) -> Vec<String> {
        match &self.game {
            Game::Asl(b) => b.state.units.values().map(|u| b.name(u.id)).collect(),
            Game::Minis(b) => b
                .scenario()
                .figures
                .iter()
                .map(|f| f.name.clone())
                .collect(),
            Game::Unknown(_) => Vec::new(),
        }
    }

    /// Places the completion offers: every hex of the ASL map (cells are
    /// not offered: a table has too many).
    pub fn places(&self) -> Vec<String> {
        match &self.game {
            Game::Asl(b) => b
                .scenario()
                .map
                .all_hexes()
                .iter()
                .map(|h| h.to_string())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The `side = "A"` key of a public setup file.
pub fn side_named(text: &str) -> Result<Side, String> {
    let t: toml::Table = text
        .parse()
        .map_err(|e| format!("a public setup that is not TOML: {e}"))?;
    match t.get("side").and_then(|v| v.as_str()) {
        Some("A") | Some("a") => Ok(Side::A),
        Some("B") | Some("b") => Ok(Side::B),
        _ => Err("a public setup without `side = \"A\"` or `\"B\"`".into()),
    }
}

/// The ASL picture: the ruleset's public fold
/// ([`hexveil_asl::public_state::PublicState`], the engine's own
/// [`hexveil_asl::model::state::GameState`] holding only what was public, or the reader's own, when
/// folded; the board derefs to it: `board.state`), and what a picture adds
/// to it: names, the hexes the last action touched, the Booby Traps that
/// went off.
#[derive(Clone, Debug)]
pub struct AslBoard {
    public: PublicState,
    /// Names of units that entered play later (Replacements, A19.13).
    extra_names: BTreeMap<UnitId, String>,
    /// The hexes the last action's events named (moved from and into,
    /// attacked, searched): what a picture highlights.
    pub last_hexes: BTreeSet<Hex>,
    /// The Booby Traps that went off (B28.9), in the order told: a
    /// public event, so every view folds it.
    pub booby_traps: Vec<BoobyAttack>,
}

impl std::ops::Deref for AslBoard {
    type Target = PublicState;

    /// The fold the picture draws.
    fn deref(&self) -> &PublicState {
        &self.public
    }
}

/// A Booby Trap that went off (B28.9): where, whose, the unit whose Task
/// Check's Original DR set it off, and the level bought on that board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoobyAttack {
    /// The Location.
    pub hex: Hex,
    /// The side that bought the Booby Traps.
    pub owner: Side,
    /// The unit whose Task Check set it off.
    pub unit: UnitId,
    /// The Original TC DR.
    pub original_dr: u8,
    /// The level on that board.
    pub level: hexveil_asl::model::sealed::BoobyLevel,
}

impl AslBoard {
    fn new(scenario: Arc<Scenario>) -> AslBoard {
        AslBoard {
            public: PublicState::new(scenario),
            extra_names: BTreeMap::new(),
            last_hexes: BTreeSet::new(),
            booby_traps: Vec::new(),
        }
    }

    fn setup(&mut self, side: Side, text: &str) -> Result<(), String> {
        let parsed = hexveil_asl::ruleset::AslScenario {
            scenario: Arc::clone(self.public.scenario_arc()),
        };
        let public = kernel::Scenario::public_setup(&parsed, side, text)?;
        let public = public
            .as_any()
            .downcast_ref::<hexveil_asl::ruleset::AslPublic>()
            .ok_or("not an ASL public setup")?
            .0
            .clone();
        self.public.setup(public)
    }

    /// The scenario played.
    pub fn scenario(&self) -> &Scenario {
        self.public.scenario()
    }

    /// A unit's name (`id:N` for one the scenario does not name).
    pub fn name(&self, id: UnitId) -> String {
        if let Some(n) = self.extra_names.get(&id) {
            return n.clone();
        }
        self.scenario()
            .units
            .get(usize::from(id.0))
            .map(|u| u.name.clone())
            .unwrap_or_else(|| format!("id:{}", id.0))
    }

    /// Movement Factors left to `unit` in its side's MPh (A4.1, R57), as
    /// the engine counts them: every cost is public (the terrain entered,
    /// the mode, the stack), so the fold charges each move it is shown.
    pub fn mf_left(&self, unit: UnitId) -> Option<hexveil_asl::a::movement_factors::Mf> {
        hexveil_asl::mf_left(&self.state, unit)
    }

    /// Turn, phase and side, in words.
    pub fn when(&self) -> String {
        let s = &self.state;
        let head = format!("\"{}\" (ASL)", self.scenario().name);
        if !self.started() {
            return format!(
                "{head}: Setup (side {} sets up first; its `end` starts Game Turn 1)",
                self.scenario().first_side()
            );
        }
        format!(
            "{head}: Game Turn {} of {}, side {}'s {} (side {} phasing)",
            s.turn,
            self.scenario().turns,
            s.phasing,
            s.phase.abbrev(),
            s.phasing
        )
    }

    /// Takes an action declared in the log (a Move's MF are charged as its
    /// ruling comes, [`PublicState::declared`]).
    fn declared(&mut self, actor: Side, action: &[u8]) {
        if let Ok(action) = hexveil_asl::model::action::decode_action(action) {
            self.public.declared(actor, &action);
        }
    }

    /// Folds one event; `Some(words)` when it ends the game.
    fn event(&mut self, e: &kernel::Event) -> Option<String> {
        let event = self.public.kernel_event(e)?;
        match event.kind {
            EventKind::Turn(TurnEvent::Conceded { side }) => {
                return Some(format!("side {side} concedes"))
            }
            EventKind::Turn(TurnEvent::GameOver { winner, reason }) => {
                return Some(result_words(winner, &reason))
            }
            EventKind::Move(MoveEvent::Moved { from, to, .. }) => {
                self.last_hexes.extend([from, to]);
            }
            EventKind::Minefield(
                MinefieldEvent::ApPresent { hex, .. }
                | MinefieldEvent::ApAttack { hex, .. }
                | MinefieldEvent::SearchFound { hex, .. }
                | MinefieldEvent::AtAttack { hex, .. }
                | MinefieldEvent::VehicleHit { hex, .. }
                | MinefieldEvent::DummyFound { hex, .. },
            )
            | EventKind::DaisyChain(
                DaisyEvent::Attacks { hex, .. } | DaisyEvent::Revealed { hex, .. },
            ) => {
                self.last_hexes.insert(hex);
            }
            EventKind::Morale(m) => self.morale_names(m),
            EventKind::BoobyTrap(b) => self.booby(b),
            _ => {}
        }
        None
    }

    /// Booby Traps (B28.9): one that went off is marked where it did; one
    /// that did not (told to the referee only) marks nothing, and its
    /// level stays sealed.
    fn booby(&mut self, b: hexveil_asl::b28::booby_trap::BoobyTrapEvent) {
        use hexveil_asl::b28::booby_trap::BoobyTrapEvent;
        if let BoobyTrapEvent::Triggered {
            owner,
            unit,
            hex,
            original_dr,
            level,
        } = b
        {
            self.last_hexes.insert(hex);
            self.booby_traps.push(BoobyAttack {
                hex,
                owner,
                unit,
                original_dr,
                level,
            });
        }
    }

    /// The names of Casualty Reduced and Replaced units (A7.302, A19.13):
    /// their counters' new labels, which the fold does not keep.
    fn morale_names(&mut self, m: MoraleEvent) {
        match m {
            MoraleEvent::CasualtyReduced { unit, to, .. } => {
                let name = format!("{} (now {to})", self.name(unit));
                self.extra_names.insert(unit, name);
            }
            MoraleEvent::Replaced { old, new, to, .. } => {
                for (i, id) in new.iter().enumerate() {
                    let what = to.get(i).cloned().unwrap_or_default();
                    let name = format!("id:{} ({what}, replaced {})", id.0, self.name(old));
                    self.extra_names.insert(*id, name);
                }
            }
            _ => {}
        }
    }
    /// The hexes worth drawing: those holding a unit, their ADJACENT hexes,
    /// and every hex with a public marker.
    fn around(&self) -> BTreeSet<Hex> {
        let map = &self.scenario().map;
        let mut hexes = BTreeSet::new();
        for u in self.state.units.values().filter(|u| u.in_play()) {
            if let Some(h) = u.hex {
                hexes.insert(h);
                hexes.extend(map.neighbors(h));
            }
        }
        hexes.extend(self.state.markers.keys().copied());
        hexes.extend(self.state.mines.trail_breaks.keys().copied());
        hexes.extend(self.state.daisy_chains.iter().map(|d| d.hex));
        hexes.extend(self.booby_traps.iter().map(|b| b.hex));
        hexes.into_iter().map(|h| map.canonical(h)).collect()
    }

    fn terrain(&self, hex: Hex) -> String {
        let info = self.scenario().map.info(hex);
        let mut words = vec![info.terrain.to_string()];
        if info.level != 0 {
            words.push(format!("level {}", info.level));
        }
        let f = info.features;
        for (on, w) in [
            (f.paved_road, "paved road"),
            (f.dirt_road, "dirt road"),
            (f.bridge, "bridge"),
            (f.runway, "runway"),
            (f.ice, "ice"),
            (f.trench, "trench"),
            (f.tower, "tower"),
            (f.sewer, "sewer"),
        ] {
            if on {
                words.push(w.into());
            }
        }
        words.join(", ")
    }

    fn markers(&self, hex: Hex) -> Vec<String> {
        let mk = self.state.markers(hex);
        let mut out = Vec::new();
        if let Some(s) = mk.known_counter {
            out.push(format!("Known minefield counter (side {s})"));
        }
        match mk.ap_revealed {
            Some(Some(s)) => out.push(format!("A-P mines, {}-factor", s.factors())),
            Some(None) => out.push("A-P mines".into()),
            None => {}
        }
        match mk.at_revealed {
            Some(Some(f)) => out.push(format!("A-T mines, {} factors", f.get())),
            Some(None) => out.push("A-T mines".into()),
            None => {}
        }
        if let Some(s) = mk.at_in_view {
            out.push(format!("A-T mines in full view (side {s})"));
        }
        if mk.dummy_marker {
            out.push("Dummy marker (no mines)".into());
        }
        if let Some(tbs) = self.state.mines.trail_breaks.get(&hex) {
            for tb in tbs {
                out.push(format!("Trail Break {}-{}", tb.ends[0], tb.ends[1]));
            }
        }
        for d in self.state.daisy_chains.iter().filter(|d| d.hex == hex) {
            let how = match (d.attacked, d.revealed) {
                (true, _) => "attacked, gone",
                (false, true) => "revealed",
                (false, false) => "placed, secret (only its owner sees it)",
            };
            out.push(format!("Daisy Chain of side {} ({how})", d.owner));
        }
        for (u, h) in &self.state.mines.burning_wrecks {
            if *h == hex {
                out.push(format!("Burning Wreck ({})", self.name(*u)));
            }
        }
        for b in self.booby_traps.iter().filter(|b| b.hex == hex) {
            out.push(format!(
                "Booby Trap of side {} went off (level {:?}, set off by {})",
                b.owner,
                b.level,
                self.name(b.unit)
            ));
        }
        out
    }

    fn stack(&self, hex: Hex) -> Vec<String> {
        self.state
            .units_in(hex)
            .map(|u| {
                let mut s = format!("{} ({}", self.name(u.id), u.side);
                let st = self.states(u);
                if !st.is_empty() {
                    s.push_str(&format!(", {st}"));
                }
                s.push(')');
                if let Some(v) = u.vehicle() {
                    let aboard: Vec<String> = v
                        .passengers
                        .iter()
                        .chain(&v.riders)
                        .filter(|id| self.state.unit(**id).is_some_and(|u| u.in_play()))
                        .map(|id| self.name(*id))
                        .collect();
                    if !aboard.is_empty() {
                        s.push_str(&format!(" carrying {}", aboard.join(", ")));
                    }
                }
                s
            })
            .collect()
    }

    /// A unit's state in words (empty: Good Order, nothing to say).
    pub fn states(&self, u: &Unit) -> String {
        let st = &u.status;
        let mut w = Vec::new();
        if st.captured {
            w.push("captured".to_string());
        } else if st.eliminated {
            w.push("eliminated".to_string());
        }
        if st.broken {
            w.push("broken".into());
        }
        if st.disrupted {
            w.push("Disrupted".into());
        }
        if st.pinned {
            w.push("pinned".into());
        }
        if st.concealed {
            w.push("concealed".into());
        }
        if let Some(v) = st.aboard {
            w.push(format!("aboard {}", self.name(v)));
        }
        if let Some(v) = u.vehicle() {
            if v.immobilized {
                w.push("immobilized".into());
            }
        }
        match st.facing {
            Some(hexveil_asl::model::unit::Facing::Spine(s)) => w.push(format!("CA {s}")),
            Some(hexveil_asl::model::unit::Facing::Hexside(d)) => {
                w.push(format!("CA ambiguous (faces hexside {d})"))
            }
            None => {}
        }
        w.join(", ")
    }

    fn map(&self, out: &mut Vec<String>) {
        out.push(format!(
            "map around the units (boards {}; hexes with units, their ADJACENT hexes, public markers):",
            self.scenario()
                .map
                .boards
                .iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let hexes = self.around();
        if hexes.is_empty() {
            out.push("  (no unit on the map yet: the setups are not known)".into());
        }
        for hex in hexes {
            let mut line = format!("  {:<6} {:<22}", hex.to_string(), self.terrain(hex));
            let stack = self.stack(hex);
            let marks = self.markers(hex);
            if !stack.is_empty() {
                line.push_str(&format!(" units: {}", stack.join("; ")));
            }
            if !marks.is_empty() {
                line.push_str(&format!(" | {}", marks.join("; ")));
            }
            out.push(line.trim_end().to_string());
        }
    }

    fn units(&self, out: &mut Vec<String>) {
        out.push(format!("units ({}):", self.when()));
        for side in [Side::A, Side::B] {
            for u in self.state.units.values().filter(|u| u.side == side) {
                let at = match (u.hex, u.in_play()) {
                    (Some(h), true) => h.to_string(),
                    (_, false) => "-".into(),
                    (None, true) => "off board".into(),
                };
                let st = self.states(u);
                let mf = match self.mf_left(u.id) {
                    Some(mf) => format!("  {mf} MF left"),
                    None => String::new(),
                };
                out.push(format!(
                    "  {:<18} side {}  {:<14} {:<9} {}{mf}",
                    self.name(u.id),
                    u.side,
                    u.label(),
                    at,
                    if st.is_empty() { "Good Order" } else { &st }
                ));
            }
        }
    }
}

/// The miniatures picture (seed 004): the ruleset's public fold
/// ([`hexveil_minis::public_state::PublicState`]: figures by position, open
/// mines, turn), and what a picture adds to it: each figure's state in
/// words, the mines that went off.
#[derive(Clone, Debug)]
pub struct MinisBoard {
    public: MinisPublic,
    /// Status by figure, in words (empty: active).
    pub status: Vec<Vec<String>>,
    /// The mines that went off, in the order told: each reveals a mine
    /// of its type in its cell (a public event).
    pub detonations: Vec<Detonated>,
    /// Whether the game is over (its `GameOver` event was told): no side
    /// is to act then (issue 27).
    pub over: bool,
}

impl MinisBoard {
    fn new(scenario: MinisScenario) -> MinisBoard {
        let status = vec![Vec::new(); scenario.figures.len()];
        MinisBoard {
            public: MinisPublic::new(Arc::new(scenario)),
            status,
            detonations: Vec::new(),
            over: false,
        }
    }

    fn setup(&mut self, side: Side, text: &str) -> Result<(), String> {
        let public = kernel::Scenario::public_setup(self.public.scenario(), side, text)?;
        let public = public
            .as_any()
            .downcast_ref::<hexveil_minis::MinisPublicSetup>()
            .ok_or("not a miniatures public setup")?;
        self.public.setup(public.clone());
        Ok(())
    }

    /// The scenario played.
    pub fn scenario(&self) -> &MinisScenario {
        self.public.scenario()
    }

    /// The fold the picture draws.
    pub fn public(&self) -> &MinisPublic {
        &self.public
    }

    /// Positions by figure (scenario order); `None` until a setup or the
    /// scenario places it.
    pub fn pos(&self) -> Vec<Option<Point>> {
        self.public.figures().iter().map(|f| f.pos).collect()
    }

    /// Open mines by cell (both sides').
    pub fn open(&self) -> &BTreeMap<Cell, hexveil_minis::state::OpenMines> {
        self.public.open()
    }

    fn figure(&self, name: &str) -> Option<usize> {
        self.scenario().figure_named(name).map(|(i, _)| i)
    }

    fn mark(&mut self, name: &str, word: &str) {
        if let Some(i) = self.figure(name) {
            if !self.status[i].iter().any(|w| w == word) {
                self.status[i].push(word.to_string());
            }
        }
    }

    fn event(&mut self, e: &kernel::Event) -> Option<String> {
        let m = self.public.kernel_event(e)?;
        match m {
            MinisEvent::Detonation {
                figure,
                mine,
                cell,
                at,
            } => self.detonations.push(Detonated {
                cell,
                mine,
                figure,
                at,
            }),
            MinisEvent::VehicleHit { figure, result } => match result {
                hexveil_minis::VehicleResult::Destroyed => self.mark(&figure, "destroyed"),
                hexveil_minis::VehicleResult::Immobilized => self.mark(&figure, "immobilized"),
                hexveil_minis::VehicleResult::NoDamage => {}
            },
            MinisEvent::TowedWeapon {
                figure,
                towed,
                survived: false,
            } => self.mark(&figure, &format!("lost its {towed}")),
            MinisEvent::BlastSave {
                figure,
                saved: false,
                ..
            } => self.mark(&figure, "removed"),
            MinisEvent::LayingBegun { figure, cell, .. } => {
                self.mark(&figure, &format!("laying a mine in {cell}"))
            }
            MinisEvent::MineLaid { figure, .. } => {
                if let Some(i) = self.figure(&figure) {
                    self.status[i].retain(|w| !w.starts_with("laying"));
                }
            }
            MinisEvent::Conceded { side } => return Some(format!("side {side} concedes")),
            MinisEvent::GameOver { winner, reason } => {
                self.over = true;
                return Some(result_words(winner, &reason));
            }
            _ => {}
        }
        None
    }

    /// Whether figure `i` (scenario order) is out of play: removed by a
    /// failed save (R8, R10) or a destroyed vehicle.
    pub fn out_of_play(&self, i: usize) -> bool {
        self.status
            .get(i)
            .is_some_and(|st| st.iter().any(|w| w == "removed" || w == "destroyed"))
    }

    /// Turn and side to act, in words; once the game is over, the last
    /// turn played and no side to act (issue 27: never "turn 7 of 6").
    pub fn when(&self) -> String {
        if self.over {
            return format!(
                "\"{}\" (miniatures, seed 004): the game is over, after turn {} of {}",
                self.scenario().name,
                self.public.turn().min(self.scenario().turns),
                self.scenario().turns
            );
        }
        format!(
            "\"{}\" (miniatures, seed 004): turn {} of {}, side {} to act",
            self.scenario().name,
            self.public.turn(),
            self.scenario().turns,
            self.public.active()
        )
    }

    fn table(&self, out: &mut Vec<String>) {
        out.push(format!(
            "table {} x {} in; figures (position in inches, its 1-inch cell):",
            self.scenario().width,
            self.scenario().depth
        ));
        self.figures_lines(out);
        if self.open().is_empty() {
            out.push("open mines: none".into());
        } else {
            out.push("open mines by cell:".into());
            for (c, o) in self.open() {
                let mut w = Vec::new();
                for (n, what) in [(o.ap, "A-P"), (o.s, "S-mine"), (o.at, "A-T")] {
                    if n > 0 {
                        w.push(format!("{what} density {n}"));
                    }
                }
                out.push(format!("  {c:<8} {}", w.join(", ")));
            }
        }
        for d in &self.detonations {
            out.push(format!(
                "mine gone off: an {} in {} under {} (at {})",
                d.mine.words(),
                d.cell,
                d.figure,
                d.at
            ));
        }
    }

    fn figures(&self, out: &mut Vec<String>) {
        out.push(format!("figures ({}):", self.when()));
        self.figures_lines(out);
    }

    fn figures_lines(&self, out: &mut Vec<String>) {
        for side in [Side::A, Side::B] {
            for (i, f) in self.scenario().figures.iter().enumerate() {
                if f.side != side {
                    continue;
                }
                let at = match self.public.figures()[i].pos {
                    Some(p) => format!("{p} ({})", cell_of(p)),
                    None => "not placed yet".into(),
                };
                let st = if self.status[i].is_empty() {
                    "active".to_string()
                } else {
                    self.status[i].join(", ")
                };
                out.push(format!(
                    "  {:<14} side {}  {:<9} at {:<22} {st}",
                    f.name,
                    f.side,
                    format!("{:?}", f.kind).to_ascii_lowercase(),
                    at
                ));
            }
        }
    }
}

/// A mine that went off under a figure (miniatures rules, seed 004
/// detonation roll): the public event reveals its type and its cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detonated {
    /// The 1-inch cell the mine was in.
    pub cell: Cell,
    /// Its type.
    pub mine: hexveil_minis::MineKind,
    /// The figure that set it off.
    pub figure: String,
    /// The detonation point (where the figure stopped).
    pub at: Point,
}

/// The 1-inch cell a point lies in (a point on a grid line: the cell
/// above and to the right of it).
fn cell_of(p: Point) -> Cell {
    let whole = |t: i32| u16::try_from(t.max(0) / 10).unwrap_or(u16::MAX);
    Cell::new(whole(p.x), whole(p.y))
}

/// A finished game's board after log entry `step` (default: the last),
/// folded from a verified transcript for one reader (G3): `Everything`
/// folds every event, referee-only ones included; a player folds the
/// public events and its own side's; a spectator the public ones only.
/// The secrets the sides revealed after the end come with it, by side,
/// for a reader that may see them.
pub struct Folded {
    /// The picture.
    pub board: Board,
    /// The last log entry folded.
    pub at: u64,
    /// Things to tell on the way (a setup this client cannot read, an
    /// entry the referee refuses).
    pub notes: Vec<String>,
    /// The sides' end-of-game reveals (every one, whatever the step).
    pub reveals: Vec<(Side, hexveil_protocol::message::RevealBody)>,
}

/// Folds accepted log entries, one at a time and in log order, into the
/// board of one reader (G3: only the events `reader` may see). What
/// [`fold_transcript`] folds a transcript with, and the replay page
/// ([`crate::replay`]) draws each step of.
#[derive(Clone, Debug)]
pub struct Folder {
    board: Board,
    narrator: crate::narrate::Narrator,
    reader: crate::narrate::Reader,
}

impl Folder {
    /// A folder for a game of `scenario` before any setup, for `reader`.
    pub fn new(scenario: &dyn kernel::Scenario, reader: crate::narrate::Reader) -> Folder {
        let mut board = Board::for_game(scenario);
        if let crate::narrate::Reader::Player(side) = reader {
            board.viewer = Some(side);
        }
        Folder {
            board,
            narrator: crate::narrate::Narrator::for_game(scenario),
            reader,
        }
    }

    /// Folds one entry the referee accepted. `Ok(true)` when the picture
    /// may have changed (a setup, an action, a concession, a ruling),
    /// `Ok(false)` when the entry cannot change it (pads, openings, pad
    /// entries, rolls, transitions, the end, reveals); `Err` says what
    /// could not be folded (a public setup this build cannot read), and
    /// the board goes on without it.
    pub fn fold(&mut self, accepted: &hexveil_protocol::referee::Accepted) -> Result<bool, String> {
        use hexveil_protocol::message::{side_of, Body};
        let who = side_of(accepted.author)
            .map(|s| s.to_string())
            .unwrap_or_default();
        match &accepted.body {
            Body::Setup(s) => self.board.setup(&s.public_setup_toml).map_err(|e| {
                format!(
                    "entry {}: a public setup this client cannot read: {e}",
                    accepted.appended.seq
                )
            })?,
            Body::Act(_) | Body::Declare(_) => {
                let action = accepted.body.declared_action().expect("an action");
                if let Some(side) = side_of(accepted.author) {
                    self.board.declared(side, action);
                }
                self.board.set_last(vec![format!(
                    "side {who}: {}",
                    self.narrator.action_bytes(action)
                )])
            }
            Body::Concede => self.board.set_last(vec![format!("side {who} concedes")]),
            Body::Ruling(r) => {
                let events: Vec<kernel::Event> = r
                    .events
                    .iter()
                    .filter(|e| crate::narrate::shown_to(self.reader, e.to))
                    .cloned()
                    .collect();
                self.board.events(&events);
                for e in &events {
                    for l in self.narrator.event(e, self.reader) {
                        self.board.push_last(l);
                    }
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The board as folded so far.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board, folding done.
    pub fn into_board(self) -> Board {
        self.board
    }
}

/// Folds `t` up to log entry `step` for `reader` (see [`Folded`]); `None`
/// for a transcript without entries, `Err` for a genesis the referee
/// refuses.
pub fn fold_transcript(
    t: &hexveil_protocol::transcript::Transcript,
    step: Option<u64>,
    reader: crate::narrate::Reader,
) -> Option<Result<Folded, String>> {
    use hexveil_protocol::message::{side_of, Body};
    let (mut referee, rest) = match crate::transcript::referee_of(t)? {
        Ok(r) => r,
        Err(e) => return Some(Err(e)),
    };
    let scenario = Arc::clone(referee.scenario());
    let mut folder = Folder::new(scenario.as_ref(), reader);
    let mut folded = Folded {
        board: Board::for_game(scenario.as_ref()),
        at: 0,
        notes: Vec::new(),
        reveals: Vec::new(),
    };
    let mut folding = true;
    for entry in rest {
        let seq = entry.envelope.envelope().seq;
        if step.is_some_and(|n| seq > n) {
            folding = false;
        }
        let Ok(accepted) = referee.accept(&entry.envelope) else {
            if folding {
                folded.notes.push(format!(
                    "entry {seq} is refused by the referee: the board stops before it"
                ));
            }
            break;
        };
        if let (Body::Reveal(r), Some(side)) = (&accepted.body, side_of(accepted.author)) {
            folded.reveals.push((side, r.clone()));
        }
        if !folding {
            continue;
        }
        folded.at = seq;
        if let Err(note) = folder.fold(&accepted) {
            folded.notes.push(note);
        }
    }
    folded.board = folder.into_board();
    Some(Ok(folded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexveil_asl::b28::movement::MoveKind;
    use hexveil_asl::{Event, MoveMode, Visibility};
    use hexveil_core::Ruleset;

    fn demo() -> Board {
        let text = include_str!("../../examples/demo/scenario.toml");
        let scenario = hexveil_asl::ruleset::Asl.load(text).unwrap();
        let mut b = Board::for_game(scenario.as_ref());
        b.setup(include_str!("../../examples/demo/setup-a.toml"))
            .unwrap();
        b.setup(include_str!("../../examples/demo/setup-b.toml"))
            .unwrap();
        b
    }

    fn ev(kind: EventKind) -> kernel::Event {
        hexveil_asl::ruleset::event_to_kernel(&Event {
            to: Visibility::Public,
            kind,
            cite: Vec::new(),
        })
    }

    fn hex(s: &str) -> Hex {
        s.parse().unwrap()
    }

    #[test]
    fn public_events_move_break_and_mark() {
        let mut b = demo();
        let pz = UnitId(2);
        b.events(&[
            ev(EventKind::Turn(TurnEvent::PhaseBegins {
                turn: 1,
                phasing: Side::A,
                phase: hexveil_asl::turn::Phase::Movement,
            })),
            ev(EventKind::Move(MoveEvent::Moved {
                kind: MoveKind::Move,
                units: vec![pz],
                from: hex("3D5"),
                to: hex("3E5"),
                mode: MoveMode::Normal,
            })),
            // A Daisy Chain attacks the tank: no A-T minefield is marked.
            ev(EventKind::DaisyChain(DaisyEvent::Attacks {
                owner: Side::B,
                hex: hex("3E5"),
                vehicle: pz,
                factors: 2,
                immediate: true,
            })),
            ev(EventKind::Minefield(MinefieldEvent::AtAttack {
                hex: hex("3E5"),
                unit: pz,
                factors: 2,
                trigger_dr: 1,
                final_dr: 9,
                aerial_af: Some(2),
                outcome: VehicleOutcome::Immobilized,
            })),
            ev(EventKind::Morale(MoraleEvent::Broken { unit: UnitId(0) })),
            ev(EventKind::Minefield(MinefieldEvent::ApPresent {
                hex: hex("3E3"),
                owner: Side::B,
            })),
        ]);
        let board = b.show(View::Board);
        assert!(board.contains("side A's MPh"), "{board}");
        let line = |h: &str| {
            board
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{h} ")))
                .unwrap_or_else(|| panic!("{h} in {board}"))
                .to_string()
        };
        let e5 = line("3E5");
        assert!(
            e5.contains("ger-pz (A, immobilized) carrying ger-hs-1"),
            "{e5}"
        );
        assert!(
            e5.contains("Daisy Chain of side B (attacked, gone)"),
            "{e5}"
        );
        assert!(!e5.contains("A-T mines"), "{e5}");
        assert!(line("3E3").contains("A-P mines"), "{board}");
        assert!(line("3E2").contains("ger-squad-1 (A, broken)"), "{board}");
        let units = b.show(View::Units);
        let hs = units
            .lines()
            .find(|l| l.trim_start().starts_with("ger-hs-1 "))
            .unwrap();
        assert!(hs.contains("3E5") && hs.contains("aboard ger-pz"), "{hs}");
    }

    #[test]
    fn a_setup_names_its_side() {
        assert_eq!(side_named("side = \"B\"\n"), Ok(Side::B));
        assert!(side_named("[positions]\n").is_err());
        assert_eq!(View::from_word("FIGURES"), Some(View::Units));
        assert_eq!(View::from_word("boards"), None);
    }
}
