//! Getting a seat or a spectator back to its game when its node goes
//! away (issue 25): the connection and reconnection loop of `join` and
//! `watch`, over [`hexveil::follow`].
//!
//! A lost connection (the node died, was paused, cut off; QUIC's
//! keep-alive notices within seconds, even at a prompt), a node that says
//! the game moved (another node took it over, it is shutting down) or that
//! it stopped serving it (its storage failed): each is said in words, the
//! game's node is looked for across the league's nodes, and the seat is
//! taken again where it was. What the player typed meanwhile is kept and
//! sent once the seat is back; an entry sent but never receipted is sent
//! again (G6). A record file (`--record`) keeps every head shown and every
//! receipt, to hold against the transcript (G5, G6).

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;

use hexveil::driver::{Client, DriverError, GameEvent, RemotePlayer, Spectator};
use hexveil::follow::{retryable, Backoff, Follower};
use hexveil_net::wire::GameId;

use super::play::{Output, PlayError, PATIENCE};

/// Whether a driver error means the seat or spectator must find its game
/// again: the connection is gone, or the node stopped serving the game.
pub fn following(e: &DriverError) -> bool {
    matches!(
        e,
        DriverError::Disconnected(_) | DriverError::Net(_) | DriverError::Moved { .. }
    )
}

/// A driver failure while playing or watching, in words: a lost
/// connection says who is cut off and what to do.
pub fn lost(e: DriverError, who: &str) -> PlayError {
    if following(&e) || matches!(e, DriverError::Timeout(..)) {
        PlayError::Lost {
            who: who.to_string(),
            why: e.to_string(),
            what: if who == "the spectator" {
                "Run the same `hexveil watch` again to catch up."
            } else {
                "The seat stays yours and the game waits for you: run the same `hexveil join` (same --secrets) again to resume; your client's automatic answers are due within the game's answer timeout, or your side loses on time."
            },
        }
    } else {
        PlayError::Driver(e)
    }
}

/// Appends what a seat or spectator was shown, one JSON object a line:
/// `{"at_ms", "seq", "head", "replayed"}` for each log entry's head and,
/// for a seat, `{"at_ms", "receipt", "entry_hash", "new_head", "sig"}` for
/// each receipt (hex digests; `at_ms` Unix milliseconds). A receipt is the
/// server's signed word that the entry is stored (G5): the transcript must
/// hold every receipted entry at its seq, and the head shown for each seq.
#[derive(Debug)]
pub struct Record {
    file: std::fs::File,
    failed: bool,
}

impl Record {
    /// Opens `path` to append to (made if missing).
    pub fn open(path: &Path) -> Result<Record, PlayError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                PlayError::Input(format!("--record {}: cannot open it: {e}", path.display()))
            })?;
        Ok(Record {
            file,
            failed: false,
        })
    }

    /// Writes what `event` shows, if anything.
    fn write(&mut self, event: &GameEvent) {
        // Milliseconds since the Unix epoch (0 for a clock before it).
        let at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let line = match event {
            GameEvent::Update(u) | GameEvent::Replayed(u) => serde_json::json!({
                "at_ms": at_ms,
                "seq": u.seq,
                "head": u.head.to_string(),
                "replayed": matches!(event, GameEvent::Replayed(_)),
            }),
            GameEvent::Receipt(r) => serde_json::json!({
                "at_ms": at_ms,
                "receipt": r.seq,
                "entry_hash": r.entry_hash.to_string(),
                "new_head": r.new_head.to_string(),
                "sig": r.sig.to_string(),
            }),
            _ => return,
        };
        if self.failed {
            return;
        }
        if let Err(e) = writeln!(self.file, "{line}") {
            eprintln!("hexveil: --record: cannot write ({e}); nothing more is recorded");
            self.failed = true;
        }
    }
}

/// How a seat or a spectator gets back to its game: the league's nodes,
/// and where what it is shown is recorded.
#[derive(Debug)]
pub struct Lifeline {
    follower: Follower,
    record: Option<Record>,
}

impl Lifeline {
    /// Over `follower`'s nodes, recording into `record` if given.
    pub fn new(follower: Follower, record: Option<Record>) -> Lifeline {
        Lifeline { follower, record }
    }

    /// Notes what `event` showed (the record file).
    pub fn seen(&mut self, event: &GameEvent) {
        if let Some(r) = &mut self.record {
            r.write(event);
        }
    }

    /// A logged-in client of the node that serves `game` (or any node, on
    /// an old server), looked for as the module says: how a seat or a
    /// spectator first reaches its game.
    pub async fn reach(
        &mut self,
        game: GameId,
        say: &mut dyn FnMut(&str),
    ) -> Result<Client, DriverError> {
        // No node answers at all: said at once, as any first connection
        // that fails (a game whose node is down while others answer is
        // waited for).
        self.follower.connect_any().await?.close().await;
        let mut client = self.follower.find(game, None, say).await?;
        client.set_wait(PATIENCE);
        Ok(client)
    }

    /// Says why `from` was left and finds `game`'s node: the client there.
    async fn find_again(
        &mut self,
        game: GameId,
        from: SocketAddr,
        why: &DriverError,
        say: &mut dyn FnMut(&str),
    ) -> Result<Client, DriverError> {
        let hint = match why {
            DriverError::Moved { to: Some(to), .. } => {
                say(&format!(
                    "node {from} handed the game over to node {}; following it",
                    hexveil_view::names::visible(to)
                ));
                Some(to.clone())
            }
            DriverError::Moved { to: None, why } => {
                say(&format!(
                    "node {from} stopped serving the game ({}); looking for the node that serves it now",
                    hexveil_view::names::visible(why)
                ));
                None
            }
            other => {
                say(&format!(
                    "node {from} is gone ({other}); looking for the node that serves the game now"
                ));
                None
            }
        };
        let mut client = self.follower.find(game, hint, say).await?;
        client.set_wait(PATIENCE);
        Ok(client)
    }

    /// The seat lost its node (`why`): the game is found again and the
    /// seat taken there, resuming after the last view it saw (the server
    /// re-sends what it missed; the driver sends again its last entry if
    /// it was never receipted). The other side sees only a delay.
    pub async fn resume(
        &mut self,
        seat: &mut RemotePlayer,
        out: &Output,
        why: DriverError,
    ) -> Result<(), PlayError> {
        let side = seat.side();
        let who = format!("side {side}");
        let from = seat.server_addr();
        let mut say = |text: &str| out.note(side, text);
        let mut backoff = Backoff::new();
        let mut why = why;
        loop {
            let client = self
                .find_again(seat.game_id(), from, &why, &mut say)
                .await
                .map_err(|e| lost(e, &who))?;
            match seat.resume_with(client).await {
                Ok(()) => {
                    say(&format!(
                        "reconnected; resuming where the game was, on node {} ({:.1} s after leaving node {from})",
                        seat.server_addr(),
                        backoff.elapsed().as_secs_f64()
                    ));
                    return Ok(());
                }
                Err(e) if retryable(&e) && backoff.time_left() => {
                    say(&format!("not yet ({e}); trying again"));
                    backoff.pause().await;
                    why = e;
                }
                Err(e) => return Err(lost(e, &who)),
            }
        }
    }

    /// The spectator lost its node (`why`): the game is found again and
    /// watched there (from its start: the caller skips what it showed).
    pub async fn rewatch(
        &mut self,
        game: GameId,
        from: SocketAddr,
        why: DriverError,
    ) -> Result<Spectator, PlayError> {
        let mut say = |text: &str| println!("{text}");
        let mut backoff = Backoff::new();
        let mut why = why;
        loop {
            let client = self
                .find_again(game, from, &why, &mut say)
                .await
                .map_err(|e| lost(e, "the spectator"))?;
            match client.watch(game).await {
                Ok(spectator) => {
                    say(&format!(
                        "reconnected; going on after the last update shown, on node {} ({:.1} s after leaving node {from})",
                        spectator.server_addr(),
                        backoff.elapsed().as_secs_f64()
                    ));
                    return Ok(spectator);
                }
                Err(e) if retryable(&e) && backoff.time_left() => {
                    say(&format!("not yet ({e}); trying again"));
                    backoff.pause().await;
                    why = e;
                }
                Err(e) => return Err(lost(e, "the spectator")),
            }
        }
    }

    /// A finished game's transcript from any node (every node serves a
    /// finished game's), trying the nodes again while none answers.
    pub async fn transcript_anywhere(
        &mut self,
        game: GameId,
        wait: std::time::Duration,
    ) -> Result<Vec<u8>, PlayError> {
        let mut backoff = Backoff::new();
        loop {
            let fetched = match self.follower.connect_any().await {
                Ok(mut client) => {
                    client.set_wait(wait);
                    let t = client.fetch_transcript(game).await;
                    client.close().await;
                    t
                }
                Err(e) => Err(e),
            };
            match fetched {
                Ok(t) => return Ok(t),
                Err(e) if retryable(&e) && backoff.time_left() => {
                    println!("not yet ({e}); trying again");
                    backoff.pause().await;
                }
                Err(e) => return Err(lost(e, "the spectator")),
            }
        }
    }
}
