//! The games the web view lists, what each is (from the request that
//! created it, public from the start: ruleset, scenario, the two keys), and
//! finished games' transcripts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hexveil_view::league::{mode_word, side_names, Row};
use serde::Serialize;

use super::{HttpError, Visitor};
use crate::league::League;
use crate::lobby::Lobby;
use crate::roster::Roster;
use crate::store::StoreError;
use crate::wire::{
    forfeit_words, Awaited, FinishedRow, GameId, GameSummary, ListedGame, NamedGame, PublicKey,
};
use hexveil_net::new_game::NewGame;

/// Open games, and finished games, listed at most.
pub const MAX_LISTED: usize = 100;
/// Game descriptions kept in memory at most (then the cache starts again).
const MAX_DESCRIPTIONS: usize = 4096;
/// Replay pages kept in memory at most (then the cache starts again).
const MAX_REPLAYS: usize = 32;

/// What a game is, as its creation request says (public: the genesis
/// holds the same).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Description {
    /// The scenario's name (empty if this server cannot read it).
    pub scenario: String,
    /// The ruleset's id.
    pub ruleset: String,
    /// The ruleset's version.
    pub ruleset_version: u32,
    /// `live` or `escrow`.
    pub mode: String,
    /// Side A as the scenario names it (empty if it does not).
    pub side_a: String,
    /// Side B likewise.
    pub side_b: String,
    /// Side A's player key (hex).
    pub key_a: String,
    /// Side B's player key.
    pub key_b: String,
    /// When the game was created (Unix milliseconds, the server's clock;
    /// issue 27 item 8); `None` if its store does not know.
    pub created_ms: Option<u64>,
}

impl Description {
    /// The description of a game created with `metadata` (the postcard
    /// `NewGame`) at `created_ms`; empty fields for anything else (a test
    /// session).
    pub fn of(metadata: &[u8], created_ms: Option<u64>) -> Description {
        let Ok(g) = NewGame::decode(metadata) else {
            return Description {
                scenario: String::new(),
                ruleset: String::new(),
                ruleset_version: 0,
                mode: String::new(),
                side_a: String::new(),
                side_b: String::new(),
                key_a: String::new(),
                key_b: String::new(),
                created_ms,
            };
        };
        let scenario = hexveil_rulesets::all()
            .find(&g.ruleset, g.ruleset_version)
            .map_err(|e| e.to_string())
            .and_then(|r| r.load(&g.scenario_toml))
            .map(|s| s.name().to_string())
            .unwrap_or_default();
        let [side_a, side_b] = side_names(&g.scenario_toml);
        Description {
            scenario,
            ruleset: g.ruleset,
            ruleset_version: g.ruleset_version,
            mode: mode_word(g.mode).into(),
            side_a,
            side_b,
            key_a: g.players[0].to_string(),
            key_b: g.players[1].to_string(),
            created_ms,
        }
    }
}

/// A player's name as the web view shows it (issue 27 item 8): the name
/// the league's roster (`--roster`) pins to the player's key, marked as
/// the league's, or the name the player's key signed in its setup, marked
/// as the player's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Named {
    /// The name.
    pub name: String,
    /// Who gave it: `league` (the roster) or `player` (its key signed it
    /// in its public setup).
    pub by: &'static str,
}

impl Named {
    /// A name the player's own key signed in its public setup (issue 27
    /// item 8), marked `by: "player"`.
    pub fn signed(name: &Option<String>) -> Option<Named> {
        name.as_ref().map(|name| Named {
            name: name.clone(),
            by: "player",
        })
    }
}

/// The names the roster gives the two keys (hex) of a game, side A first.
pub fn names_of(roster: Option<&Roster>, keys: [&str; 2]) -> [Option<Named>; 2] {
    keys.map(|k| {
        let key: PublicKey = k.parse().ok()?;
        roster?.name(&key).map(|name| Named {
            name: name.to_string(),
            by: "league",
        })
    })
}

/// An open game in the list.
#[derive(Clone, Debug, Serialize)]
pub struct OpenGame {
    /// The game id.
    pub game: String,
    /// What it is.
    #[serde(flatten)]
    pub description: Description,
    /// Side A's player's name, if the league's roster names the key.
    pub name_a: Option<Named>,
    /// Side B's player's name likewise.
    pub name_b: Option<Named>,
    /// The name side A's key signed in its public setup (`by: "player"`),
    /// once the setup is accepted (a setup is public, and a name is no
    /// move: not held back by the spectator delay, like the roster's
    /// names); `null` before, for a setup that gives no usable name, or
    /// for a game not restored on this node yet.
    pub signed_a: Option<Named>,
    /// Side B's likewise.
    pub signed_b: Option<Named>,
    /// Whether a player holds side A's seat now.
    pub side_a_seated: bool,
    /// Whether a player holds side B's seat now.
    pub side_b_seated: bool,
    /// Spectators now (the web view's watcher counts as one).
    pub spectators: u32,
    /// Who the game waits for now, if anyone (issue 27).
    pub waiting: Option<Waiting>,
    /// Its live page.
    pub live: String,
}

/// Who an open game waits for, on what and until when: the server's own
/// presence (issue 27), which both players are told live, so the list
/// shows it live too (it tells a spectator nothing a player lacks, and
/// nothing hidden: G3, the referee asks in an order public facts fix).
#[derive(Clone, Debug, Serialize)]
pub struct Waiting {
    /// The side whose answer or move it waits for (`A`, `B`), or none:
    /// the server itself.
    pub side: Option<String>,
    /// On what, in words (`side B's machine to answer its Daisy Chain
    /// opportunity 1`).
    pub what: String,
    /// When the answer timeout forfeits the game for `side` (Unix
    /// milliseconds), if one runs (a move has none).
    pub forfeits_at_ms: Option<u64>,
    /// All of it in one line, as the list page shows it.
    pub words: String,
}

impl Waiting {
    /// The list's words for `awaited`, at `now_ms` (Unix milliseconds).
    pub fn new(awaited: Awaited, now_ms: u64) -> Waiting {
        let words = match awaited.forfeits_at_ms {
            Some(at) => format!("{}; {}", awaited.what, forfeit_words(at, now_ms)),
            None => awaited.what.clone(),
        };
        Waiting {
            side: awaited.side.map(|s| s.to_string()),
            what: awaited.what,
            forfeits_at_ms: awaited.forfeits_at_ms,
            words,
        }
    }
}

impl OpenGame {
    /// The game as [`ServerMessage::OpenGamesNamed`](crate::wire::ServerMessage)
    /// lists it to `hexveil list` (issue 27 item 8): the same facts as
    /// `/api/games`, the same presence (withheld under a spectator delay),
    /// the signed names with it (`OpenGames` sends the `listed` part).
    pub fn listed(&self, summary: GameSummary, awaited: Option<Awaited>) -> NamedGame {
        let d = &self.description;
        let name = |n: &Option<Named>| n.as_ref().map(|n| n.name.clone());
        let listed = ListedGame {
            summary,
            scenario: d.scenario.clone(),
            ruleset: d.ruleset.clone(),
            ruleset_version: d.ruleset_version,
            mode: d.mode.clone(),
            sides: [d.side_a.clone(), d.side_b.clone()],
            keys: [d.key_a.clone(), d.key_b.clone()],
            roster_names: [name(&self.name_a), name(&self.name_b)],
            created_ms: d.created_ms,
            awaited,
        };
        NamedGame {
            listed,
            signed_names: [name(&self.signed_a), name(&self.signed_b)],
        }
    }
}

/// A finished game in the list: the row `hexveil results` prints for its
/// transcript, or why the transcript is not one.
#[derive(Clone, Debug, Serialize)]
pub struct FinishedGame {
    /// The game id.
    pub game: String,
    /// Its league row (verified), if the transcript is one.
    pub row: Option<Row>,
    /// Side A's player's name, if the league's roster names the key.
    pub name_a: Option<Named>,
    /// Side B's player's name likewise.
    pub name_b: Option<Named>,
    /// The name side A's key signed in its setup (`by: "player"`), read
    /// from the verified transcript, if it gives one.
    pub signed_a: Option<Named>,
    /// Side B's likewise.
    pub signed_b: Option<Named>,
    /// Why it is not, if it is not.
    pub refused: Option<String>,
    /// Its live page (the public view, all of it now).
    pub live: String,
    /// Its replay page.
    pub replay: String,
    /// Its transcript file.
    pub transcript: String,
}

/// What `/` and `/api/games` list.
#[derive(Clone, Debug, Serialize)]
pub struct GameList {
    /// Unfinished games (at most [`MAX_LISTED`]).
    pub open: Vec<OpenGame>,
    /// Finished games, the most recently created first (at most
    /// [`MAX_LISTED`]).
    pub finished: Vec<FinishedGame>,
}

/// The lists and files of the web view.
#[derive(Debug)]
pub struct Games {
    lobby: Arc<Lobby>,
    league: Arc<League>,
    roster: Option<Roster>,
    descriptions: Mutex<HashMap<GameId, Arc<Description>>>,
    replays: Mutex<HashMap<GameId, Arc<String>>>,
}

impl Games {
    /// Over a lobby and its league, with the league's roster (its
    /// players' names), if it has one.
    pub fn new(lobby: Arc<Lobby>, league: Arc<League>, roster: Option<Roster>) -> Self {
        Games {
            lobby,
            league,
            roster,
            descriptions: Mutex::new(HashMap::new()),
            replays: Mutex::new(HashMap::new()),
        }
    }

    /// The names the players of the live game `game` signed in their
    /// setups (issue 27 item 8), as its task read them from the accepted
    /// setups ([`Lobby::signed_names`]), side A first.
    fn signed_names(&self, game: GameId) -> [Option<Named>; 2] {
        self.lobby
            .signed_names(game)
            .map(|n| n.each_ref().map(Named::signed))
            .unwrap_or_default()
    }

    /// The description of `game` (cached: it never changes).
    pub async fn describe(&self, game: GameId) -> Result<Arc<Description>, StoreError> {
        if let Some(d) = self
            .descriptions
            .lock()
            .expect("descriptions lock poisoned")
            .get(&game)
        {
            return Ok(d.clone());
        }
        let stored = self.lobby.store().load_game(game).await?;
        let d = Arc::new(Description::of(&stored.metadata, stored.created_ms));
        let mut all = self
            .descriptions
            .lock()
            .expect("descriptions lock poisoned");
        if all.len() >= MAX_DESCRIPTIONS {
            all.clear();
        }
        all.insert(game, d.clone());
        Ok(d)
    }

    /// The open games (at most [`MAX_LISTED`], the lowest ids first), each
    /// with its seats and who it waits for now (withheld under a spectator
    /// delay: the lobby keeps what a spectator may be told).
    async fn open(&self) -> Result<Vec<(OpenGame, GameSummary, Option<Awaited>)>, StoreError> {
        let mut open = Vec::new();
        for s in self
            .lobby
            .list()
            .into_iter()
            .filter(|s| !s.finished)
            .take(MAX_LISTED)
        {
            let description = match self.describe(s.game_id).await {
                Ok(d) => d,
                // Expired or gone since it was listed.
                Err(StoreError::UnknownGame(_)) => continue,
                Err(e) => return Err(e),
            };
            let [name_a, name_b] = names_of(
                self.roster.as_ref(),
                [&description.key_a, &description.key_b],
            );
            let awaited = self.lobby.awaited(s.game_id);
            let [signed_a, signed_b] = self.signed_names(s.game_id);
            open.push((
                OpenGame {
                    game: s.game_id.to_string(),
                    description: (*description).clone(),
                    name_a,
                    name_b,
                    signed_a,
                    signed_b,
                    side_a_seated: s.side_a_seated,
                    side_b_seated: s.side_b_seated,
                    spectators: s.spectators,
                    waiting: awaited
                        .clone()
                        .map(|a| Waiting::new(a, crate::session::unix_millis())),
                    live: format!("/game/{}", s.game_id),
                },
                s,
                awaited,
            ));
        }
        Ok(open)
    }

    /// The open games as `hexveil list` is told them
    /// ([`ClientMessage::ListOpenGames`](crate::wire::ClientMessage)).
    pub async fn listed(&self) -> Result<Vec<NamedGame>, StoreError> {
        Ok(self
            .open()
            .await?
            .into_iter()
            .map(|(game, summary, awaited)| game.listed(summary, awaited))
            .collect())
    }

    /// The open and the finished games.
    pub async fn list(&self) -> Result<GameList, HttpError> {
        let open = self.open().await?.into_iter().map(|(g, ..)| g).collect();
        let finished = self
            .league
            .finished(MAX_LISTED)
            .await?
            .into_iter()
            .map(|f| {
                let id = f.game_id;
                let (row, refused) = match f.row {
                    FinishedRow::Verified(row) => (Some(*row), None),
                    FinishedRow::Refused { why } => (None, Some(why)),
                };
                let [name_a, name_b] = match &row {
                    Some(r) => names_of(self.roster.as_ref(), [&r.key_a, &r.key_b]),
                    None => [None, None],
                };
                let [signed_a, signed_b] = self
                    .league
                    .signed_names(id)
                    .map(|n| n.each_ref().map(Named::signed))
                    .unwrap_or_default();
                FinishedGame {
                    game: id.to_string(),
                    row,
                    name_a,
                    name_b,
                    signed_a,
                    signed_b,
                    refused,
                    live: format!("/game/{id}"),
                    replay: format!("/game/{id}/replay"),
                    transcript: format!("/game/{id}/transcript"),
                }
            })
            .collect();
        Ok(GameList { open, finished })
    }

    fn cached_replay(&self, game: GameId) -> Option<Arc<String>> {
        self.replays
            .lock()
            .expect("replays lock poisoned")
            .get(&game)
            .cloned()
    }

    /// A finished game's replay page
    /// ([`hexveil_view::replay::replay_html`], which verifies the
    /// transcript itself and shows everything only for a complete, clean
    /// one, G3): made once, on a blocking thread, one whole-game
    /// verification at a time with the league's rows (G6), and kept.
    pub async fn replay(&self, game: GameId, who: Visitor) -> Result<Arc<String>, HttpError> {
        if let Some(page) = self.cached_replay(game) {
            return Ok(page);
        }
        let bytes = self.transcript(game, who).await?;
        let _one_at_a_time = self
            .league
            .verifying()
            .acquire()
            .await
            .map_err(|_| StoreError::Closed)?;
        if let Some(page) = self.cached_replay(game) {
            return Ok(page);
        }
        let page = tokio::task::spawn_blocking(move || hexveil_view::replay::replay_html(&bytes))
            .await
            .map_err(|e| HttpError::Unavailable {
                game,
                why: format!("the replay page could not be made: {e}"),
            })?;
        let page = Arc::new(page);
        let mut all = self.replays.lock().expect("replays lock poisoned");
        if all.len() >= MAX_REPLAYS {
            all.clear();
        }
        all.insert(game, page.clone());
        Ok(page)
    }

    /// A finished game's transcript file (never an unfinished game's: its
    /// log holds sealed facts until the end). A game not rebuilt since a
    /// restart is rebuilt first, under the budget of `who`'s key, address
    /// and network (G6, issue 31), so that a log closed just before a crash
    /// is finished; every other time it is read from the store as it is,
    /// with no game rebuilt.
    pub async fn transcript(&self, game: GameId, who: Visitor) -> Result<Vec<u8>, HttpError> {
        let store = self.lobby.store();
        match store.load_transcript(game).await {
            Ok(Some(bytes)) => return Ok(bytes),
            Ok(None) => {}
            Err(StoreError::UnknownGame(_)) => return Err(HttpError::UnknownGame(game)),
            Err(e) => return Err(e.into()),
        }
        if self.lobby.commands(game).is_none() {
            let opened = self
                .lobby
                .open_game_from(game, who.key, Some(who.party))
                .await;
            if let Ok(Some(_)) = opened {
                if let Ok(Some(bytes)) = store.load_transcript(game).await {
                    return Ok(bytes);
                }
            }
        }
        Err(HttpError::NotFinished(game))
    }
}
