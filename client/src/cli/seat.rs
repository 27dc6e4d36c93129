//! One seat of a game over QUIC: a logged-in [`ServerConnection`] and the
//! side's protocol [`Player`], which answers every machine prompt (pad,
//! setup, openings, pad entries, transitions, Daisy Chain notes, the final
//! reveal) as soon as it arrives, so neither the timing nor the count of
//! answers depends on what the side hides (G3). Only actions are the
//! caller's.

use crate::net::{NetError, ServerConnection};
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

/// What happened at the seat.
#[derive(Debug)]
pub enum SeatEvent {
    /// A log entry as this side sees it (any machine answer is sent).
    Update(Update),
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
    /// Takes `player`'s seat in `game_id`; the server then sends every
    /// view from the start (a resume replays them into the player).
    pub async fn join(
        mut conn: ServerConnection,
        game_id: GameId,
        player: Player,
    ) -> Result<Seat, SeatError> {
        conn.join(game_id, Role::Player(player.side()), 0).await?;
        Ok(Seat {
            conn,
            game_id,
            player,
            ended: false,
            reveals: 0,
        })
    }

    /// The seat's side.
    pub fn side(&self) -> Side {
        self.player.side()
    }

    /// The next event; machine prompts are answered before it returns.
    pub async fn next(&mut self) -> Result<SeatEvent, SeatError> {
        if self.ended && self.reveals >= 2 {
            return Ok(SeatEvent::Closed);
        }
        let msg = self.conn.recv().await?;
        let payload = match msg {
            ServerMessage::Game { payload, .. } => payload,
            ServerMessage::Error { message, .. } => return Ok(SeatEvent::Other(message)),
            other => return Ok(SeatEvent::Other(format!("{other:?}"))),
        };
        match decode_padded(&payload).map_err(|e| SeatError::Message(e.to_string()))? {
            ToClient::Update(u) => {
                match u.entry.as_str() {
                    "end" => self.ended = true,
                    "reveal" => self.reveals += 1,
                    _ => {}
                }
                if let Some(env) = self.player.on_update(&u)? {
                    self.submit(env).await?;
                }
                Ok(SeatEvent::Update(u))
            }
            ToClient::Rejected { reason } => Ok(SeatEvent::Rejected(reason)),
            ToClient::Receipt(_) => Ok(SeatEvent::Other("receipt".into())),
            ToClient::Transcript(_) | ToClient::Padding(_) => {
                Ok(SeatEvent::Other("transcript".into()))
            }
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
