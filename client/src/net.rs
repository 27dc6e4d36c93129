//! The client side of the hexveil connection (DESIGN section 5): QUIC to a
//! server that is trusted by a pinned certificate fingerprint or through a CA
//! file, the Ed25519 login bound to the TLS session, and framed messages on
//! the one session stream. QUIC keep-alives every 20 seconds keep the
//! connection open while a player thinks.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use hexveil_server::endpoint::{client_config, EndpointError};
use hexveil_server::frame::{read_frame, write_frame, FrameError, FrameLimits};
use hexveil_server::login::{exporter, Challenge, LoginError, LoginKey};
use hexveil_server::tls::ServerTrust;
use hexveil_server::wire::{
    split_game_message, ClientMessage, ErrorCode, GameAssembler, GameId, GameSummary, PublicKey,
    Role, ServerMessage, WireError, MAX_GAME_MESSAGE_LEN, PROTOCOL_VERSION,
};
use thiserror::Error;

/// Largest transcript [`ServerConnection::fetch_transcript`] accepts.
pub const MAX_TRANSCRIPT_LEN: u64 = 256 * 1024 * 1024;

/// Time allowed to connect and log in.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Why talking to the server failed.
#[derive(Debug, Error)]
pub enum NetError {
    /// The TLS/QUIC configuration could not be built.
    #[error(transparent)]
    Config(#[from] EndpointError),
    /// The local UDP socket could not be opened.
    #[error("cannot open a local UDP socket: {0}")]
    Socket(std::io::Error),
    /// quinn refused to start the connection (e.g. a bad server name).
    #[error("cannot start connecting: {0}")]
    Connect(#[from] quinn::ConnectError),
    /// The connection failed or was closed (a wrong pinned fingerprint shows
    /// up here as a TLS failure).
    #[error("connection failed: {0}")]
    Connection(#[from] quinn::ConnectionError),
    /// Connecting and logging in took too long.
    #[error("no login within {0:?}")]
    Timeout(Duration),
    /// Framing failed (also: nothing received within the idle timeout).
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// A message could not be encoded or decoded.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// The login key or exporter failed.
    #[error(transparent)]
    Login(#[from] LoginError),
    /// The server answered with an error.
    #[error("server error {code:?}: {message}")]
    Server {
        /// Its code.
        code: ErrorCode,
        /// Its message.
        message: String,
    },
    /// The server sent something out of place.
    #[error("unexpected message from server: {0}")]
    Unexpected(String),
    /// The server finished the stream.
    #[error("server closed the session stream")]
    Closed,
}

/// A logged-in connection to a hexveil server.
#[derive(Debug)]
pub struct ServerConnection {
    endpoint: quinn::Endpoint,
    conn: quinn::Connection,
    send: quinn::SendStream,
    recv: quinn::RecvStream,
    limits: FrameLimits,
    key: PublicKey,
    assembler: GameAssembler,
    pending: VecDeque<ServerMessage>,
}

impl ServerConnection {
    /// Connect to `addr`, check the server by `trust` (`server_name` must be
    /// in its certificate when a CA is used), open the session stream and log
    /// in with the Ed25519 PKCS#8 key.
    pub async fn connect(
        addr: SocketAddr,
        server_name: &str,
        trust: &ServerTrust,
        key_pkcs8: &[u8],
    ) -> Result<Self, NetError> {
        let key = LoginKey::from_pkcs8(key_pkcs8)?;
        tokio::time::timeout(
            CONNECT_TIMEOUT,
            Self::connect_inner(addr, server_name, trust, key),
        )
        .await
        .map_err(|_| NetError::Timeout(CONNECT_TIMEOUT))?
    }

    async fn connect_inner(
        addr: SocketAddr,
        server_name: &str,
        trust: &ServerTrust,
        key: LoginKey,
    ) -> Result<Self, NetError> {
        let local: SocketAddr = if addr.is_ipv4() {
            (Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let endpoint = quinn::Endpoint::client(local).map_err(NetError::Socket)?;
        let conn = endpoint
            .connect_with(client_config(trust)?, addr, server_name)?
            .await?;
        let (send, recv) = conn.open_bi().await?;
        let mut this = ServerConnection {
            endpoint,
            conn,
            send,
            recv,
            limits: FrameLimits::default(),
            key: key.public_key(),
            assembler: GameAssembler::default(),
            pending: VecDeque::new(),
        };
        this.send(&ClientMessage::Hello {
            protocol_version: PROTOCOL_VERSION,
        })
        .await?;
        let challenge = match this.recv().await? {
            ServerMessage::Challenge { challenge, .. } => Challenge(challenge),
            other => return Err(unexpected(other)),
        };
        let exported = exporter(&this.conn, &challenge)?;
        this.send(&ClientMessage::Login {
            public_key: key.public_key(),
            signature: key.sign(&exported, &challenge),
        })
        .await?;
        match this.recv().await? {
            ServerMessage::LoginOk { public_key } if public_key == key.public_key() => Ok(this),
            other => Err(unexpected(other)),
        }
    }

    /// The key this connection logged in with.
    pub fn public_key(&self) -> PublicKey {
        self.key
    }

    /// Send one message.
    pub async fn send(&mut self, msg: &ClientMessage) -> Result<(), NetError> {
        let bytes = msg.encode()?;
        self.send_frame(&bytes).await
    }

    /// Receive the next message. Game messages come back whole: their parts
    /// are joined here (`more` is always false and the payload may exceed
    /// one frame). Waits as long as the connection lives: a dead server is
    /// detected by the QUIC idle timeout (5 minutes; our keep-alives keep a
    /// live one open).
    pub async fn recv(&mut self) -> Result<ServerMessage, NetError> {
        if let Some(m) = self.pending.pop_front() {
            return Ok(m);
        }
        self.recv_direct().await
    }

    async fn recv_direct(&mut self) -> Result<ServerMessage, NetError> {
        loop {
            let frame = self.recv_frame().await?;
            if let Some(msg) = self.assemble(&frame)? {
                return Ok(msg);
            }
        }
    }

    /// Decode a frame; `None` while a game message is incomplete.
    fn assemble(&mut self, frame: &[u8]) -> Result<Option<ServerMessage>, NetError> {
        match ServerMessage::decode(frame)? {
            ServerMessage::Game {
                game_id,
                payload,
                more,
            } => Ok(self
                .assembler
                .push(game_id, payload, more)?
                .map(|(game_id, payload)| ServerMessage::Game {
                    game_id,
                    payload,
                    more: false,
                })),
            other => Ok(Some(other)),
        }
    }

    /// Send a whole game message (up to 8 MiB), in frame-sized parts.
    pub async fn send_game(&mut self, game_id: GameId, message: &[u8]) -> Result<(), NetError> {
        if message.len() > MAX_GAME_MESSAGE_LEN {
            return Err(NetError::Wire(WireError::GameMessageTooLong {
                len: message.len(),
                max: MAX_GAME_MESSAGE_LEN,
            }));
        }
        for (part, more) in split_game_message(message) {
            self.send(&ClientMessage::Game {
                game_id,
                payload: part.to_vec(),
                more,
            })
            .await?;
        }
        Ok(())
    }

    /// Receive the next message if one starts within `wait`; `Ok(None)` if
    /// none did (the stream stays usable).
    pub async fn recv_within(&mut self, wait: Duration) -> Result<Option<ServerMessage>, NetError> {
        if let Some(m) = self.pending.pop_front() {
            return Ok(Some(m));
        }
        let limits = FrameLimits::new(self.limits.max_len(), wait, self.limits.transfer_timeout)
            .expect("limits copied from valid ones");
        match read_frame(&mut self.recv, &limits).await {
            Ok(Some(frame)) => match self.assemble(&frame)? {
                Some(msg) => Ok(Some(msg)),
                // A long game message started: take the rest.
                None => Ok(Some(self.recv_direct().await?)),
            },
            Ok(None) => Err(NetError::Closed),
            Err(FrameError::Idle(_)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Send one raw frame payload.
    pub async fn send_frame(&mut self, payload: &[u8]) -> Result<(), NetError> {
        write_frame(&mut self.send, payload, &self.limits).await?;
        Ok(())
    }

    /// Receive one raw frame payload.
    pub async fn recv_frame(&mut self) -> Result<Vec<u8>, NetError> {
        read_frame(&mut self.recv, &self.limits)
            .await?
            .ok_or(NetError::Closed)
    }

    /// Round-trip a ping; returns the time it took. Game messages that
    /// arrive meanwhile are kept for [`ServerConnection::recv`].
    pub async fn ping(&mut self, nonce: u64) -> Result<Duration, NetError> {
        let start = std::time::Instant::now();
        self.send(&ClientMessage::Ping { nonce }).await?;
        match self.next_reply().await? {
            ServerMessage::Pong { nonce: n } if n == nonce => Ok(start.elapsed()),
            other => Err(unexpected(other)),
        }
    }

    /// The next message that is not a game message; game messages that
    /// arrive first are kept for [`ServerConnection::recv`]. Requests are
    /// answered in order, so call this right after sending one (with no
    /// game payload of yours still unanswered, whose refusal would come
    /// first).
    async fn next_reply(&mut self) -> Result<ServerMessage, NetError> {
        loop {
            match self.recv_direct().await? {
                m @ ServerMessage::Game { .. } => self.pending.push_back(m),
                other => return Ok(other),
            }
        }
    }

    /// Create a game from scenario bytes; returns its id.
    pub async fn create_game(&mut self, scenario: Vec<u8>) -> Result<GameId, NetError> {
        self.send(&ClientMessage::CreateGame { scenario }).await?;
        match self.next_reply().await? {
            ServerMessage::GameCreated { game_id } => Ok(game_id),
            other => Err(unexpected(other)),
        }
    }

    /// The server's games.
    pub async fn list_games(&mut self) -> Result<Vec<GameSummary>, NetError> {
        self.send(&ClientMessage::ListGames).await?;
        match self.next_reply().await? {
            ServerMessage::Games { games } => Ok(games),
            other => Err(unexpected(other)),
        }
    }

    /// Join a game in a role, resuming from event `resume_from` (0: all).
    pub async fn join(
        &mut self,
        game_id: GameId,
        role: Role,
        resume_from: u64,
    ) -> Result<(), NetError> {
        self.send(&ClientMessage::Join {
            game_id,
            role,
            resume_from,
        })
        .await?;
        match self.next_reply().await? {
            ServerMessage::Joined { game_id: g, .. } if g == game_id => Ok(()),
            other => Err(unexpected(other)),
        }
    }

    /// Leave a game.
    pub async fn leave(&mut self, game_id: GameId) -> Result<(), NetError> {
        self.send(&ClientMessage::Leave { game_id }).await?;
        match self.next_reply().await? {
            ServerMessage::Left { game_id: g } if g == game_id => Ok(()),
            other => Err(unexpected(other)),
        }
    }

    /// Fetch a finished game's whole transcript, chunk by chunk.
    pub async fn fetch_transcript(&mut self, game_id: GameId) -> Result<Vec<u8>, NetError> {
        let mut out = Vec::new();
        loop {
            self.send(&ClientMessage::FetchTranscript {
                game_id,
                offset: out.len() as u64,
            })
            .await?;
            match self.next_reply().await? {
                ServerMessage::TranscriptChunk {
                    offset,
                    total_len,
                    bytes,
                    ..
                } if offset == out.len() as u64 => {
                    if total_len > MAX_TRANSCRIPT_LEN {
                        return Err(NetError::Unexpected(format!(
                            "transcript of {total_len} bytes is over the client's limit"
                        )));
                    }
                    out.extend_from_slice(&bytes);
                    if out.len() as u64 >= total_len {
                        return Ok(out);
                    }
                    if bytes.is_empty() {
                        return Err(NetError::Unexpected("empty chunk before the end".into()));
                    }
                }
                other => return Err(unexpected(other)),
            }
        }
    }

    /// Take the connection apart, to read and write from separate tasks
    /// (the game driver does, so that waiting for a message can be
    /// cancelled without losing half a frame).
    pub fn into_parts(self) -> ConnectionParts {
        ConnectionParts {
            endpoint: self.endpoint,
            conn: self.conn,
            send: self.send,
            recv: self.recv,
            limits: self.limits,
            key: self.key,
        }
    }

    /// Finish the stream and close the connection politely.
    pub async fn close(mut self) {
        let _ = self.send.finish();
        self.conn.close(0u32.into(), b"bye");
        let _ = tokio::time::timeout(Duration::from_secs(2), self.endpoint.wait_idle()).await;
    }
}

/// The pieces of a logged-in [`ServerConnection`].
#[derive(Debug)]
pub struct ConnectionParts {
    /// The local QUIC endpoint (keep it alive while the connection is used).
    pub endpoint: quinn::Endpoint,
    /// The QUIC connection.
    pub conn: quinn::Connection,
    /// The sending half of the session stream.
    pub send: quinn::SendStream,
    /// The receiving half of the session stream.
    pub recv: quinn::RecvStream,
    /// The frame limits used on the stream.
    pub limits: FrameLimits,
    /// The key the connection logged in with.
    pub key: PublicKey,
}

fn unexpected(msg: ServerMessage) -> NetError {
    match msg {
        ServerMessage::Error { code, message } => NetError::Server { code, message },
        other => NetError::Unexpected(format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use hexveil_server::config::ServerSettings;
    use hexveil_server::relay::RelayFactory;
    use hexveil_server::tls::Fingerprint;
    use hexveil_server::wire::{Role, Side};
    use hexveil_server::Server;
    use ring::rand::SystemRandom;
    use ring::signature::Ed25519KeyPair;

    fn new_key() -> Vec<u8> {
        Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
            .unwrap()
            .as_ref()
            .to_vec()
    }

    async fn start(dir: &std::path::Path) -> Server {
        let settings = ServerSettings::new(dir.to_owned(), "127.0.0.1:0".parse().unwrap());
        Server::start(settings, Arc::new(RelayFactory))
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn pinned_login_lobby_and_relay() {
        let dir = tempfile::tempdir().unwrap();
        let server = start(dir.path()).await;
        let trust = ServerTrust::Pinned(server.fingerprint());
        let mut a = ServerConnection::connect(server.local_addr(), "localhost", &trust, &new_key())
            .await
            .unwrap();
        let mut b = ServerConnection::connect(server.local_addr(), "localhost", &trust, &new_key())
            .await
            .unwrap();
        a.ping(7).await.unwrap();
        assert!(a
            .recv_within(Duration::from_millis(50))
            .await
            .unwrap()
            .is_none());
        let game_id = a.create_game(b"s".to_vec()).await.unwrap();
        for (c, side) in [(&mut a, Side::A), (&mut b, Side::B)] {
            c.join(game_id, Role::Player(side), 0).await.unwrap();
            // The relay's welcome.
            assert!(matches!(
                c.recv().await.unwrap(),
                ServerMessage::Game { .. }
            ));
        }
        let games = b.list_games().await.unwrap();
        assert!(games
            .iter()
            .any(|g| g.game_id == game_id && g.side_a_seated && g.side_b_seated));
        // A seat held by another key: the server's refusal surfaces as an error.
        let mut c = ServerConnection::connect(server.local_addr(), "localhost", &trust, &new_key())
            .await
            .unwrap();
        assert!(matches!(
            c.join(game_id, Role::Player(Side::A), 0).await,
            Err(NetError::Server {
                code: ErrorCode::Rejected,
                ..
            })
        ));
        // A message longer than one frame travels in parts and arrives whole.
        let long: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        a.send_game(game_id, &long).await.unwrap();
        assert_eq!(
            b.recv().await.unwrap(),
            ServerMessage::Game {
                game_id,
                payload: long,
                more: false,
            }
        );
        assert_eq!(
            a.recv().await.unwrap(),
            ServerMessage::Game {
                game_id,
                payload: b"ack 2".to_vec(),
                more: false,
            }
        );
        // Game messages that arrive during a request are kept for recv.
        b.send_game(game_id, b"to a").await.unwrap();
        a.ping(8).await.unwrap();
        let ack = b.recv().await.unwrap();
        assert!(
            matches!(ack, ServerMessage::Game { ref payload, .. } if payload.starts_with(b"ack"))
        );
        assert_eq!(
            a.recv().await.unwrap(),
            ServerMessage::Game {
                game_id,
                payload: b"to a".to_vec(),
                more: false,
            }
        );
        // After the end, anyone fetches the transcript.
        a.send_game(game_id, b"finish").await.unwrap();
        let transcript = loop {
            match c.fetch_transcript(game_id).await {
                Ok(t) => break t,
                Err(NetError::Server {
                    code: ErrorCode::NotFinished,
                    ..
                }) => tokio::time::sleep(Duration::from_millis(20)).await,
                Err(e) => panic!("{e}"),
            }
        };
        assert!(transcript.ends_with(b"to a"));
        a.close().await;
        b.close().await;
        c.close().await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn wrong_pin_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let server = start(dir.path()).await;
        let trust = ServerTrust::Pinned(Fingerprint([0; 32]));
        let err = ServerConnection::connect(server.local_addr(), "localhost", &trust, &new_key())
            .await
            .unwrap_err();
        assert!(matches!(err, NetError::Connection(_)), "{err}");
        server.shutdown().await;
    }
}
