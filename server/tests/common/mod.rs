//! Shared helpers for the server's network tests: a server on 127.0.0.1:0 in
//! a temporary data directory, and a raw client that can misbehave.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hexveil_net::endpoint::client_config;
use hexveil_net::frame::{read_frame, write_frame, FrameLimits};
use hexveil_net::login::{exporter, Challenge, LoginKey};
use hexveil_net::tls::{Fingerprint, ServerTrust};
use hexveil_net::wire::{
    ClientMessage, ErrorCode, GameId, Role, ServerMessage, Side, PROTOCOL_VERSION,
};
use hexveil_server::config::ServerSettings;
use hexveil_server::relay::RelayFactory;
use hexveil_server::Server;
use ring::rand::SystemRandom;
use ring::signature::Ed25519KeyPair;

/// Upper bound on any single wait in these tests, so a bug fails instead of
/// hanging.
pub const WAIT: Duration = Duration::from_secs(20);

pub fn settings(dir: &std::path::Path) -> ServerSettings {
    ServerSettings::new(dir.to_owned(), "127.0.0.1:0".parse().unwrap())
}

pub async fn start(settings: ServerSettings) -> Server {
    Server::start(settings, Arc::new(RelayFactory))
        .await
        .expect("server starts")
}

pub fn new_key() -> LoginKey {
    let doc = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
    LoginKey::from_pkcs8(doc.as_ref()).unwrap()
}

/// The error code of an error message.
pub fn error_code(m: &ServerMessage) -> Option<ErrorCode> {
    match m {
        ServerMessage::Error { code, .. } => Some(*code),
        _ => None,
    }
}

pub struct RawClient {
    pub endpoint: quinn::Endpoint,
    pub conn: quinn::Connection,
    pub send: quinn::SendStream,
    pub recv: quinn::RecvStream,
    pub limits: FrameLimits,
}

impl RawClient {
    pub async fn connect_with_trust(addr: SocketAddr, trust: &ServerTrust) -> Result<Self, String> {
        Self::connect_from("127.0.0.1".parse().unwrap(), addr, trust).await
    }

    /// Connects from the local address `source` (any of 127.0.0.0/8 on
    /// loopback: another client address as the server sees it).
    pub async fn connect_from(
        source: std::net::IpAddr,
        addr: SocketAddr,
        trust: &ServerTrust,
    ) -> Result<Self, String> {
        let endpoint = quinn::Endpoint::client(SocketAddr::new(source, 0)).unwrap();
        let conn = endpoint
            .connect_with(client_config(trust).unwrap(), addr, "localhost")
            .map_err(|e| e.to_string())?
            .await
            .map_err(|e| e.to_string())?;
        let (send, recv) = conn.open_bi().await.map_err(|e| e.to_string())?;
        Ok(RawClient {
            endpoint,
            conn,
            send,
            recv,
            limits: FrameLimits::default(),
        })
    }

    pub async fn connect(addr: SocketAddr, fp: Fingerprint) -> Self {
        Self::connect_with_trust(addr, &ServerTrust::Pinned(fp))
            .await
            .expect("connects")
    }

    pub async fn send(&mut self, msg: &ClientMessage) {
        write_frame(&mut self.send, &msg.encode().unwrap(), &self.limits)
            .await
            .expect("frame written");
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.send.write_all(bytes).await.expect("raw bytes written");
    }

    /// The next message; panics on timeout or a closed stream.
    pub async fn recv(&mut self) -> ServerMessage {
        self.try_recv().await.expect("a message")
    }

    /// The next message, or `None` if the stream ended or failed.
    pub async fn try_recv(&mut self) -> Option<ServerMessage> {
        let frame = tokio::time::timeout(WAIT, read_frame(&mut self.recv, &self.limits))
            .await
            .expect("no answer within the test bound")
            .ok()??;
        Some(ServerMessage::decode(&frame).expect("server sends valid messages"))
    }

    /// Send Hello, return the challenge.
    pub async fn hello(&mut self) -> Challenge {
        self.send(&ClientMessage::Hello {
            protocol_version: PROTOCOL_VERSION,
        })
        .await;
        match self.recv().await {
            ServerMessage::Challenge { challenge, .. } => Challenge(challenge),
            other => panic!("expected a challenge, got {other:?}"),
        }
    }

    /// Full honest login; returns the server's answer.
    pub async fn login(&mut self, key: &LoginKey) -> ServerMessage {
        let c = self.hello().await;
        let x = exporter(&self.conn, &c).unwrap();
        self.send(&ClientMessage::Login {
            public_key: key.public_key(),
            signature: key.sign(&x, &c),
        })
        .await;
        self.recv().await
    }

    pub async fn logged_in(addr: SocketAddr, fp: Fingerprint, key: &LoginKey) -> Self {
        let mut c = Self::connect(addr, fp).await;
        let answer = c.login(key).await;
        assert!(
            matches!(answer, ServerMessage::LoginOk { .. }),
            "{answer:?}"
        );
        c
    }

    /// A client with a fresh key that created a relay game and took its
    /// side A.
    pub async fn hosting(addr: SocketAddr, fp: Fingerprint) -> (Self, GameId) {
        let mut c = Self::logged_in(addr, fp, &new_key()).await;
        let game = c.create_game().await;
        c.join(game, Role::Player(Side::A)).await;
        (c, game)
    }

    /// A client with a fresh key in `game`'s side B.
    pub async fn opponent(addr: SocketAddr, fp: Fingerprint, game: GameId) -> Self {
        let mut c = Self::logged_in(addr, fp, &new_key()).await;
        c.join(game, Role::Player(Side::B)).await;
        c
    }

    pub async fn create_game(&mut self) -> GameId {
        self.send(&ClientMessage::CreateGame {
            scenario: b"test scenario".to_vec(),
        })
        .await;
        match self.recv().await {
            ServerMessage::GameCreated { game_id } => game_id,
            other => panic!("expected GameCreated, got {other:?}"),
        }
    }

    /// Join and consume the `Joined` answer; returns the relay's welcome.
    pub async fn join(&mut self, game_id: GameId, role: Role) -> ServerMessage {
        self.send(&ClientMessage::Join {
            game_id,
            role,
            resume_from: 0,
        })
        .await;
        match self.recv().await {
            // The relay's welcome is part of the resync (PROTOCOL 10.4).
            ServerMessage::Joined {
                game_id: g,
                role: r,
                resync,
            } if g == game_id && r == role && resync >= 1 => {}
            other => panic!("expected Joined, got {other:?}"),
        }
        self.recv().await
    }

    /// Sends `payload` as one whole game message of `game_id`.
    pub async fn send_game(&mut self, game_id: GameId, payload: &[u8]) {
        self.send(&ClientMessage::Game {
            game_id,
            payload: payload.to_vec(),
            more: false,
        })
        .await;
    }

    /// A ping is answered with its pong: the connection is usable.
    pub async fn assert_alive(&mut self, nonce: u64) {
        self.send(&ClientMessage::Ping { nonce }).await;
        assert_eq!(self.recv().await, ServerMessage::Pong { nonce });
    }

    /// Asks for a seat or a spectator's place from the start; the code of
    /// the error that refuses it (`None` if the answer is not an error).
    pub async fn join_refusal(&mut self, game_id: GameId, role: Role) -> Option<ErrorCode> {
        self.send(&ClientMessage::Join {
            game_id,
            role,
            resume_from: 0,
        })
        .await;
        error_code(&self.recv().await)
    }

    /// Asks for the chunk of a finished game's transcript from `offset`.
    pub async fn fetch_chunk(&mut self, game_id: GameId, offset: u64) -> ServerMessage {
        self.send(&ClientMessage::FetchTranscript { game_id, offset })
            .await;
        self.recv().await
    }

    /// Wait until the connection is closed; returns the application close
    /// code, if it was one.
    pub async fn closed_code(&self) -> Option<u64> {
        let err = tokio::time::timeout(WAIT, self.conn.closed())
            .await
            .expect("connection closed within the test bound");
        match err {
            quinn::ConnectionError::ApplicationClosed(c) => Some(c.error_code.into_inner()),
            _ => None,
        }
    }
}
