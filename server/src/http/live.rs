//! A game's live public view for browsers: one watcher per game, a
//! spectator of the game in the lobby exactly as a QUIC spectator is, and
//! the picture it folds from what it is sent, pushed to every page that
//! watches as server-sent events.
//!
//! # Why this shows nothing a spectator may not see (G3, DESIGN 5)
//!
//! The watcher joins the game through the game task's own `Join` command,
//! as [`Role::Spectator`], with an outbox like a connection's. So it is
//! sent what every spectator is sent and nothing else: the public update of
//! each log entry (`session::view` with no side, padded like every
//! message), held back by the spectator delay until it matures, and on
//! joining late the public history the other spectators already have. It
//! reads no log entry, no store row and no session state of a running
//! game. It takes the padded `ToClient` messages apart as a client does
//! ([`GameAssembler`], [`decode_padded`]), then folds them with the same
//! code as `hexveil watch`: the [`Narrator`] for [`Reader::Spectator`] and
//! the public [`Board`], drawn as [`SvgView::Public`] with no sealed fact.
//!
//! # Cost (G6)
//!
//! However many browsers watch a game, it has one watcher (one lobby
//! member); the number of watched games is capped (`http_max_streams`). A
//! watcher nobody has looked at for [`LINGER`] leaves the game. One that
//! reads too slowly is dropped by the game like any spectator, and its
//! pages are told to reload.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::queue;
use futures_util::Stream;
use hexveil_protocol::message::{decode_padded, ToClient, Update};
use hexveil_view::board::{Board, View};
use hexveil_view::narrate::{Narrator, Reader};
use hexveil_view::svg::{board_svg, SvgView};
use serde::Serialize;
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;
use tracing::{debug, warn};

use super::{HttpError, Visitor};
use crate::connection::{ConnectionContext, OUTBOX_CAPACITY};
use crate::lobby::{ConnectionLink, GameCommand, Lobby, GAME_SEND_TIMEOUT};
use crate::session::{ConnectionId, Participant};
use crate::wire::{GameAssembler, GameId, Presence, Role, ServerMessage};

/// How long a watcher stays after its last page went away (a page that
/// was just served opens its stream right after).
pub const LINGER: Duration = Duration::from_secs(30);
/// How often a watcher checks whether anyone still looks.
const IDLE_CHECK: Duration = Duration::from_secs(1);
/// How long a page waits for the history sent on joining to be folded
/// before it is drawn with what there is.
pub const READY_WAIT: Duration = Duration::from_secs(5);
/// Narrative lines a picture keeps at most; later ones are not kept (the
/// replay of the finished game has them all).
pub const MAX_LINES: usize = 20_000;

/// One narrative line, with the log entry it tells.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    /// The log entry's seq.
    pub seq: u64,
    /// The words.
    pub text: String,
    /// The move it belongs to (issue 27): 0 before the first action, then
    /// one more at each action declared and at the end.
    pub r#move: u64,
}

/// The public view of a game at one moment, as pages show it.
#[derive(Clone, Debug, Default)]
pub struct Picture {
    /// The scenario's name (once the genesis is seen).
    pub scenario: String,
    /// The last log entry folded.
    pub seq: Option<u64>,
    /// The board, SVG, public view (empty before the genesis).
    pub svg: String,
    /// Turn, phase and whose move, in words.
    pub status: String,
    /// The narrative so far.
    pub lines: Arc<Vec<Line>>,
    /// How the game ended, once it has.
    pub result: Option<String>,
    /// Whether the log is closed: the transcript and replay are served.
    pub finished: bool,
    /// Whether the history sent on joining is folded.
    pub ready: bool,
    /// Why the view stopped, if it did (reload the page).
    pub error: Option<String>,
    /// Who the game waits for now, on what, and whether that side's
    /// client is connected, in words (issue 27): the server's presence,
    /// live, not late by the spectator delay (both players are told it
    /// live; it names no hidden fact, G3).
    pub waiting: Option<String>,
    /// When the answer timeout forfeits the game for the awaited side
    /// (Unix milliseconds), if one runs: the page says how long is left.
    pub forfeits_at_ms: Option<u64>,
    /// Who plays each side, as the header says it (issue 27 item 8,
    /// [`hexveil_view::names::players`]): the names the players' keys
    /// signed in the setups this spectator has been sent (late by the
    /// spectator delay, as the narrative); empty before the genesis.
    pub players: Vec<String>,
}

/// The live page's words for a presence: `waiting for side B's machine
/// to answer ...; side B's client is NOT connected` (the forfeit time is
/// [`Picture::forfeits_at_ms`], counted down by the page); `None` when
/// the game waits for nobody.
pub fn waiting_words(p: &Presence) -> Option<String> {
    let a = p.awaited.as_ref()?;
    let mut words = format!("waiting for {}", a.what);
    if let Some(side) = a.side {
        let state = if p.connected(side) {
            "connected"
        } else {
            "NOT connected"
        };
        words.push_str(&format!("; side {side}'s client is {state}"));
    }
    Some(words)
}

impl Picture {
    /// The picture as one event's JSON: `reset` for the first event of a
    /// stream (the page replaces its narrative), and the lines from index
    /// `from` on.
    pub fn json(&self, game: GameId, from: usize, reset: bool) -> String {
        let lines = self.lines.get(from..).unwrap_or_default();
        serde_json::json!({
            "game": game.to_string(),
            "scenario": self.scenario,
            "seq": self.seq,
            "svg": self.svg,
            "status": self.status,
            "result": self.result,
            "finished": self.finished,
            "error": self.error,
            "waiting": self.waiting,
            "forfeits_at_ms": self.forfeits_at_ms,
            "players_html": hexveil_view::names::players_html(&self.players),
            "reset": reset,
            "lines": lines,
            "replay": self.finished.then(|| format!("/game/{game}/replay")),
            "transcript": self.finished.then(|| format!("/game/{game}/transcript")),
        })
        .to_string()
    }
}

type Published = Arc<watch::Sender<Arc<Picture>>>;

/// The watched games.
#[derive(Debug)]
pub struct Watchers {
    lobby: Arc<Lobby>,
    connections: Arc<ConnectionContext>,
    max: usize,
    games: Arc<Mutex<HashMap<GameId, Published>>>,
}

impl Watchers {
    /// No game watched yet; at most `max` at once.
    pub fn new(lobby: Arc<Lobby>, connections: Arc<ConnectionContext>, max: usize) -> Self {
        Watchers {
            lobby,
            connections,
            max,
            games: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// How many games are watched now.
    pub fn count(&self) -> usize {
        self.games.lock().expect("watchers lock poisoned").len()
    }

    /// The live picture of `game`: its watcher's, started (joining the
    /// game as a spectator, asking the lobby as `who`: a finished game's
    /// rebuild is paid by its key, address and network, issue 31) if it
    /// has none.
    pub async fn watch(
        &self,
        game: GameId,
        who: Visitor,
    ) -> Result<watch::Receiver<Arc<Picture>>, HttpError> {
        {
            let games = self.games.lock().expect("watchers lock poisoned");
            if let Some(published) = games.get(&game) {
                return Ok(published.subscribe());
            }
            if games.len() >= self.max {
                return Err(HttpError::TooManyWatched(self.max));
            }
        }
        let commands = self
            .lobby
            .open_game_from(game, who.key, Some(who.party))
            .await
            .map_err(|e| HttpError::opening(game, e))?
            .ok_or(HttpError::UnknownGame(game))?;
        let id = self.connections.next_id();
        let (outbox, mut inbox) = queue::channel(OUTBOX_CAPACITY);
        let (reply, joined) = oneshot::channel();
        let join = GameCommand::Join {
            participant: Box::new(Participant {
                connection: id,
                key: who.key,
                role: Role::Spectator,
            }),
            resume_from: 0,
            // The game holds the only sender: when it drops this member,
            // the watcher's inbox ends and it knows.
            link: ConnectionLink {
                id,
                outbox,
                quic: None,
            },
            reply,
        };
        let asked = async {
            commands.send(join).await.ok()?;
            joined.await.ok()
        };
        match tokio::time::timeout(GAME_SEND_TIMEOUT, asked).await {
            Ok(Some(true)) => {}
            Ok(Some(false)) => {
                let why = match inbox.try_recv() {
                    Ok(ServerMessage::Error { message, .. }) => message,
                    _ => "the game refused a spectator".into(),
                };
                return Err(HttpError::Unavailable { game, why });
            }
            _ => {
                return Err(HttpError::Unavailable {
                    game,
                    why: "the game is busy; try again".into(),
                })
            }
        }
        let (published, view) = watch::channel(Arc::new(Picture::default()));
        let published = Arc::new(published);
        let started_meanwhile = {
            let mut games = self.games.lock().expect("watchers lock poisoned");
            match games.get(&game) {
                Some(other) => Some(other.subscribe()),
                None => {
                    games.insert(game, published.clone());
                    None
                }
            }
        };
        if let Some(view) = started_meanwhile {
            // Another request started one meanwhile: ours leaves.
            leave(&commands, game, id).await;
            return Ok(view);
        }
        // Who the game waits for, now and at every change (issue 27).
        let presence = commands.send(GameCommand::WatchPresence { from: id });
        let _ = tokio::time::timeout(GAME_SEND_TIMEOUT, presence).await;
        let watcher = Watcher {
            game,
            id,
            commands,
            published,
            games: self.games.clone(),
            assembler: GameAssembler::default(),
            fold: Fold::default(),
            history: None,
        };
        tokio::spawn(watcher.run(inbox));
        Ok(view)
    }
}

/// Sends the game that `id` leaves (bounded: a stuck game learns it when
/// it finds the outbox closed).
async fn leave(commands: &queue::Sender<GameCommand>, game: GameId, id: ConnectionId) {
    let sent = tokio::time::timeout(
        GAME_SEND_TIMEOUT,
        commands.send(GameCommand::Leave { from: id }),
    )
    .await;
    if !matches!(sent, Ok(Ok(()))) {
        debug!(%game, "web view: leave not delivered");
    }
}

/// Waits (at most [`READY_WAIT`]) until the picture holds the history sent
/// on joining, or the view stopped.
pub async fn ready(view: &mut watch::Receiver<Arc<Picture>>) {
    let wait = async {
        loop {
            let done = {
                let p = view.borrow_and_update();
                p.ready || p.error.is_some()
            };
            if done || view.changed().await.is_err() {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(READY_WAIT, wait).await;
}

/// The event stream of one page: the whole picture first (`reset`), then
/// each change with the new lines only, until the watcher stops or the
/// server shuts down. `held` (a stream slot, a gauge) is kept as long as
/// the stream.
pub fn events<H: Send + 'static>(
    game: GameId,
    view: watch::Receiver<Arc<Picture>>,
    stop: watch::Receiver<bool>,
    held: H,
) -> impl Stream<Item = Result<axum::response::sse::Event, Infallible>> + Send {
    struct Stream<H> {
        view: watch::Receiver<Arc<Picture>>,
        stop: watch::Receiver<bool>,
        sent: Option<usize>,
        _held: H,
    }
    let start = Stream {
        view,
        stop,
        sent: None,
        _held: held,
    };
    futures_util::stream::unfold(start, move |mut s| async move {
        if s.sent.is_some() {
            tokio::select! {
                changed = s.view.changed() => changed.ok()?,
                _ = s.stop.changed() => return None,
            }
        }
        let picture = s.view.borrow_and_update().clone();
        let json = picture.json(game, s.sent.unwrap_or(0), s.sent.is_none());
        s.sent = Some(picture.lines.len());
        Some((Ok(super::event(json)), s))
    })
}

/// What the watcher folds: the spectator's own picture of the game.
#[derive(Default)]
struct Fold {
    board: Option<Board>,
    narrator: Option<Narrator>,
    picture: Picture,
    lines: Vec<Line>,
    changed: bool,
    /// The move under way (see [`Line::move`]).
    moves: u64,
    /// The sides as the scenario names them (from the genesis).
    sides: [String; 2],
    /// What each side's setup, once seen, says its player's name is:
    /// `Some(None)` for a setup without a usable one.
    names: [Option<Option<String>>; 2],
}

impl Fold {
    fn update(&mut self, u: &Update) {
        if let Some(g) = &u.genesis {
            match hexveil_rulesets::all()
                .find(&g.ruleset, g.ruleset_version)
                .map_err(|e| e.to_string())
                .and_then(|r| r.load(&g.scenario_toml))
            {
                Ok(scenario) => {
                    self.board = Some(Board::for_game(scenario.as_ref()));
                    self.narrator = Some(Narrator::for_game(scenario.as_ref()));
                    self.picture.scenario = scenario.name().to_string();
                    self.sides = hexveil_view::league::side_names(&g.scenario_toml);
                }
                Err(e) => self.push(u.seq, format!("this server cannot draw the game: {e}")),
            }
        }
        if u.action.is_some() || u.end.is_some() {
            self.moves += 1;
        }
        if let Some(setup) = &u.public_setup {
            let side = hexveil_view::names::side_in_setup(setup);
            let i = match side.as_deref() {
                Some("A") => Some(0),
                Some("B") => Some(1),
                _ => None,
            };
            if let Some(i) = i {
                // A name out of bounds is no name (the narrative says why).
                self.names[i] = Some(hexveil_view::names::name_in_setup(setup).ok().flatten());
            }
        }
        let told = match self.narrator.as_mut() {
            Some(n) => n.update(u, Reader::Spectator),
            None => vec![format!("log #{}: {}", u.seq, u.entry)],
        };
        if let Some(board) = self.board.as_mut() {
            board.update(u, &told);
        }
        for l in told {
            self.push(u.seq, l);
        }
        if let Some(end) = &u.end {
            self.picture.result = Some(match end.winner {
                Some(w) => format!("side {w} wins ({})", end.reason),
                None => format!("no winner ({})", end.reason),
            });
        }
        self.picture.finished |= u.closed;
        self.picture.seq = Some(u.seq);
        self.changed = true;
    }

    fn push(&mut self, seq: u64, text: String) {
        if self.lines.len() < MAX_LINES {
            self.lines.push(Line {
                seq,
                text,
                r#move: self.moves,
            });
        } else if self.lines.len() == MAX_LINES {
            self.lines.push(Line {
                seq,
                r#move: self.moves,
                text: format!(
                    "(the live view keeps {MAX_LINES} lines; the replay of the finished game has the rest)"
                ),
            });
        }
    }

    /// The picture now (the SVG drawn once per batch of messages).
    fn picture(&mut self) -> Picture {
        if let Some(board) = &self.board {
            self.picture.svg =
                board_svg(board, SvgView::Public, self.picture.seq.unwrap_or(0), &[]);
            self.picture.status = board
                .show(View::Status)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string();
        }
        if self.narrator.is_some() {
            let words = self.names.each_ref().map(|n| match n {
                None => "no setup yet",
                Some(None) => hexveil_view::names::NO_NAME,
                Some(Some(name)) => name.as_str(),
            });
            self.picture.players = hexveil_view::names::players(&self.sides, words);
        }
        self.picture.lines = Arc::new(self.lines.clone());
        self.changed = false;
        self.picture.clone()
    }
}

struct Watcher {
    game: GameId,
    id: ConnectionId,
    commands: queue::Sender<GameCommand>,
    published: Published,
    games: Arc<Mutex<HashMap<GameId, Published>>>,
    assembler: GameAssembler,
    fold: Fold,
    /// Game messages of the history still to come (from `Joined`).
    history: Option<u32>,
}

impl Watcher {
    async fn run(mut self, mut inbox: queue::Receiver<ServerMessage>) {
        let mut idle_since: Option<Instant> = None;
        loop {
            tokio::select! {
                message = inbox.recv() => {
                    let Some(message) = message else {
                        self.stop("the game stopped sending this view (it may have been too slow, or the game ended); reload the page");
                        self.publish();
                        break;
                    };
                    let mut going = self.take(message);
                    while going {
                        match inbox.try_recv() {
                            Ok(m) => going = self.take(m),
                            Err(_) => break,
                        }
                    }
                    if self.fold.changed || !going {
                        self.publish();
                    }
                    if !going {
                        break;
                    }
                }
                _ = tokio::time::sleep(IDLE_CHECK) => {
                    let mut games = self.games.lock().expect("watchers lock poisoned");
                    if self.published.receiver_count() > 0 {
                        idle_since = None;
                    } else if idle_since.get_or_insert_with(Instant::now).elapsed() >= LINGER {
                        remove(&mut games, self.game, &self.published);
                        break;
                    }
                }
            }
        }
        {
            let mut games = self.games.lock().expect("watchers lock poisoned");
            remove(&mut games, self.game, &self.published);
        }
        leave(&self.commands, self.game, self.id).await;
    }

    /// Takes one message; `false` when the view has stopped.
    fn take(&mut self, message: ServerMessage) -> bool {
        match message {
            ServerMessage::Joined { resync, .. } => {
                self.history = Some(resync);
                if resync == 0 {
                    self.fold.picture.ready = true;
                    self.fold.changed = true;
                }
                true
            }
            ServerMessage::Game {
                game_id,
                payload,
                more,
            } => {
                let whole = match self.assembler.push(game_id, payload, more) {
                    Ok(Some((_, whole))) => whole,
                    Ok(None) => return true,
                    Err(e) => {
                        self.stop(&format!(
                            "a message of the game could not be put together: {e}"
                        ));
                        return false;
                    }
                };
                match decode_padded(&whole) {
                    Ok(ToClient::Update(u)) => self.fold.update(&u),
                    Ok(_) => {}
                    Err(e) => {
                        warn!(game = %self.game, error = %e, "web view: undecodable public update");
                        self.stop(&format!("a public update does not decode: {e}"));
                        return false;
                    }
                }
                if let Some(left) = self.history.as_mut() {
                    if *left > 0 {
                        *left -= 1;
                        if *left == 0 {
                            self.fold.picture.ready = true;
                        }
                    }
                }
                true
            }
            ServerMessage::Presence { presence, .. } => {
                let picture = &mut self.fold.picture;
                picture.waiting = waiting_words(&presence);
                picture.forfeits_at_ms = presence.awaited.and_then(|a| a.forfeits_at_ms);
                self.fold.changed = true;
                true
            }
            ServerMessage::Error { message, .. } => {
                self.stop(&message);
                false
            }
            ServerMessage::Left { .. } => {
                self.stop("the game ended this view; reload the page");
                false
            }
            _ => true,
        }
    }

    fn stop(&mut self, why: &str) {
        self.fold.picture.error = Some(why.to_string());
        self.fold.changed = true;
    }

    fn publish(&mut self) {
        let picture = self.fold.picture();
        self.published.send_replace(Arc::new(picture));
    }
}

/// Removes `game`'s entry if it is this watcher's.
fn remove(games: &mut HashMap<GameId, Published>, game: GameId, mine: &Published) {
    if games.get(&game).is_some_and(|p| Arc::ptr_eq(p, mine)) {
        games.remove(&game);
    }
}
