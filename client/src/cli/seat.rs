//! One seat of a game over QUIC: a logged-in [`ServerConnection`] and the
//! side's protocol [`Player`], which answers every machine prompt (pad,
//! setup, openings, pad entries, transitions, Daisy Chain notes, the final
//! reveal) as soon as it arrives, so neither the timing nor the count of
//! answers depends on what the side hides (G3). Only actions are the
//! caller's.

use hexveil::net::{NetError, ServerConnection};
use hexveil_core::{Action, Side};
use hexveil_protocol::envelope::SignedEnvelope;
use hexveil_protocol::message::{decode_padded, encode, ToClient, ToServer, Update};
use hexveil_protocol::player::{Player, PlayerError};
use hexveil_server::wire::{GameId, Role, ServerMessage};
use std::time::Duration;
use thiserror::Error;

/// Why a seat failed.
#[derive(Debug, Error)]
pub enum SeatError {
    /// The connection.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The player could not answer a prompt.
    #[error("cannot answer the referee: {0}")]
    Player(#[from] PlayerError),
    /// A message from the server that does not decode.
    #[error("bad game message from the server: {0}")]
    Message(String),
    /// The server said no.
    #[error("the server refused: {0}")]
    Server(String),
}

/// How long the server may pause inside the burst of views it re-sends
/// when a seat is taken (the history, up to the present).
pub const RESYNC_GAP: Duration = Duration::from_millis(300);

/// What happened at the seat.
#[derive(Debug)]
pub enum SeatEvent {
    /// A log entry as this side sees it. `live` is false for the views of
    /// the history re-sent when the seat is taken, except the last: only a
    /// live update's prompt is current (its machine answer is sent; an
    /// `Act` prompt is the caller's).
    Update {
        /// The view.
        update: Update,
        /// Whether its prompt is current.
        live: bool,
    },
    /// Our entry was refused; nothing changed.
    Rejected(String),
    /// The log is closed (the game ended and both sides revealed).
    Closed,
    /// Anything else, in words.
    Other(String),
}

/// A seat being played.
pub struct Seat {
    conn: ServerConnection,
    game_id: GameId,
    player: Player,
    ended: bool,
    reveals: usize,
    /// The re-sent history, to hand out before anything new.
    backlog: std::collections::VecDeque<SeatEvent>,
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seat")
            .field("game_id", &self.game_id)
            .field("side", &self.player.side())
            .finish_non_exhaustive()
    }
}

impl Seat {
    /// Takes `player`'s seat in `game_id`. The server re-sends every view
    /// from the start; the whole burst is replayed into the player (its
    /// layouts and notes follow the log again) but only the last view's
    /// machine answer is sent: the log moved past every earlier prompt, so
    /// a resumed seat never answers twice.
    pub async fn join(
        mut conn: ServerConnection,
        game_id: GameId,
        player: Player,
    ) -> Result<Seat, SeatError> {
        conn.join(game_id, Role::Player(player.side()), 0).await?;
        let mut seat = Seat {
            conn,
            game_id,
            player,
            ended: false,
            reveals: 0,
            backlog: Default::default(),
        };
        let mut burst = Vec::new();
        while let Some(msg) = seat.conn.recv_within(RESYNC_GAP).await? {
            burst.push(msg);
        }
        let last_update = burst
            .iter()
            .rposition(|m| matches!(Self::decode(m), Ok(Some(ToClient::Update(_)))));
        let mut held = None;
        for (i, msg) in burst.into_iter().enumerate() {
            let live = Some(i) == last_update;
            let event = match Self::decode(&msg)? {
                Some(ToClient::Update(u)) => {
                    held = seat.take_update(&u)?;
                    SeatEvent::Update { update: u, live }
                }
                Some(other) => Self::other(other),
                None => SeatEvent::Other(format!("{msg:?}")),
            };
            seat.backlog.push_back(event);
        }
        if let Some(env) = held {
            seat.submit(env).await?;
        }
        Ok(seat)
    }

    fn decode(msg: &ServerMessage) -> Result<Option<ToClient>, SeatError> {
        match msg {
            ServerMessage::Game { payload, .. } => decode_padded(payload)
                .map(Some)
                .map_err(|e| SeatError::Message(e.to_string())),
            _ => Ok(None),
        }
    }

    fn other(msg: ToClient) -> SeatEvent {
        match msg {
            ToClient::Rejected { reason } => SeatEvent::Rejected(reason),
            ToClient::Receipt(_) => SeatEvent::Other("receipt".into()),
            _ => SeatEvent::Other("transcript".into()),
        }
    }

    /// Feeds an update to the player; its machine answer, if any.
    fn take_update(&mut self, u: &Update) -> Result<Option<SignedEnvelope>, SeatError> {
        match u.entry.as_str() {
            "end" => self.ended = true,
            "reveal" => self.reveals += 1,
            _ => {}
        }
        Ok(self.player.on_update(u)?)
    }

    /// The seat's side.
    pub fn side(&self) -> Side {
        self.player.side()
    }

    /// The next event; machine prompts are answered before it returns.
    pub async fn next(&mut self) -> Result<SeatEvent, SeatError> {
        if let Some(e) = self.backlog.pop_front() {
            return Ok(e);
        }
        if self.ended && self.reveals >= 2 {
            return Ok(SeatEvent::Closed);
        }
        let msg = self.conn.recv().await?;
        if let ServerMessage::Error { message, .. } = &msg {
            return Ok(SeatEvent::Other(message.clone()));
        }
        match Self::decode(&msg)? {
            Some(ToClient::Update(u)) => {
                if let Some(env) = self.take_update(&u)? {
                    self.submit(env).await?;
                }
                Ok(SeatEvent::Update {
                    update: u,
                    live: true,
                })
            }
            Some(other) => Ok(Self::other(other)),
            None => Ok(SeatEvent::Other(format!("{msg:?}"))),
        }
    }

    async fn submit(&mut self, env: SignedEnvelope) -> Result<(), SeatError> {
        self.conn
            .send_game(self.game_id, &encode(&ToServer::Submit(env)))
            .await?;
        Ok(())
    }

    /// Declares an action (a concession too).
    pub async fn act(&mut self, action: Action) -> Result<(), SeatError> {
        let env = match action {
            Action::Concede => self.player.concede(),
            a => self.player.act(a),
        };
        self.submit(env).await
    }

    /// The finished game's transcript from the server (it is stored as
    /// the log closes: asked again for a moment if not there yet).
    pub async fn transcript(&mut self) -> Result<Vec<u8>, SeatError> {
        let mut last = None;
        for _ in 0..50 {
            match self.conn.fetch_transcript(self.game_id).await {
                Ok(t) => return Ok(t),
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(last.map_or_else(|| SeatError::Server("no transcript".into()), SeatError::Net))
    }

    /// Closes the connection.
    pub async fn close(self) {
        self.conn.close().await;
    }
}
