//! The client side of the hexveil connection (DESIGN section 5): QUIC to a
//! server that is trusted by a pinned certificate fingerprint or through a CA
//! file, the Ed25519 login bound to the TLS session, and framed messages on
//! the one session stream. QUIC keep-alives every 1.5 seconds keep the
//! connection open while a player thinks, and a server gone silent is
//! noticed after 5 more (`endpoint::CLIENT_IDLE_TIMEOUT`).
//!
//! This is the one way a client connects and logs in; everything said on
//! the connection afterwards goes through the game driver
//! ([`crate::driver::Client`]).

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use hexveil_net::endpoint::{client_config, EndpointError};
use hexveil_net::frame::{read_frame, write_frame, FrameError, FrameLimits};
use hexveil_net::login::{exporter, Challenge, LoginError, LoginKey};
use hexveil_net::tls::{ServerTrust, FINGERPRINT_MISMATCH};
use hexveil_net::wire::{
    ClientMessage, ErrorCode, PublicKey, ServerMessage, WireError, PROTOCOL_VERSION,
};
use thiserror::Error;

/// Time allowed to connect and log in.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Why connecting to the server or logging in failed.
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
    /// The connection failed or was closed.
    #[error("connection failed: {0}")]
    Connection(#[from] quinn::ConnectionError),
    /// The server's certificate is not the pinned one.
    #[error("{0}")]
    WrongFingerprint(String),
    /// Connecting and logging in took too long.
    #[error("no answer from the server within {} s (is it running, and is the address right?)", .0.as_secs())]
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
    /// The server answered with an error (its words shown only as
    /// `names::visible` lets them reach a terminal).
    #[error("the server refused: {}", hexveil_view::names::visible(message))]
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

/// A logged-in connection to a hexveil server: its session stream, ready to
/// be read and written from separate tasks (the game driver does, so that
/// waiting for a message can be cancelled without losing half a frame).
#[derive(Debug)]
pub struct ServerConnection {
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
        Self::connect_within(addr, server_name, trust, key_pkcs8, CONNECT_TIMEOUT).await
    }

    /// As [`ServerConnection::connect`], giving up after `within` instead
    /// of [`CONNECT_TIMEOUT`] (a league's client looking for the node that
    /// serves its game tries the next one sooner: issue 25).
    pub async fn connect_within(
        addr: SocketAddr,
        server_name: &str,
        trust: &ServerTrust,
        key_pkcs8: &[u8],
        within: Duration,
    ) -> Result<Self, NetError> {
        let key = LoginKey::from_pkcs8(key_pkcs8)?;
        tokio::time::timeout(within, Self::connect_inner(addr, server_name, trust, key))
            .await
            .map_err(|_| NetError::Timeout(within))?
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
            .await
            .map_err(in_words)?;
        let (send, recv) = conn.open_bi().await?;
        let mut this = ServerConnection {
            endpoint,
            conn,
            send,
            recv,
            limits: FrameLimits::default(),
            key: key.public_key(),
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

    /// Sends one login message.
    async fn send(&mut self, msg: &ClientMessage) -> Result<(), NetError> {
        write_frame(&mut self.send, &msg.encode()?, &self.limits).await?;
        Ok(())
    }

    /// Receives one login message (the server sends no game message before
    /// the login is done).
    async fn recv(&mut self) -> Result<ServerMessage, NetError> {
        let frame = read_frame(&mut self.recv, &self.limits)
            .await?
            .ok_or(NetError::Closed)?;
        Ok(ServerMessage::decode(&frame)?)
    }
}

/// A failed handshake in words: a wrong pinned fingerprint says so.
fn in_words(e: quinn::ConnectionError) -> NetError {
    if let quinn::ConnectionError::TransportError(te) = &e {
        if let Some(at) = te.reason.find(FINGERPRINT_MISMATCH) {
            // The TLS stack wraps the words: `...: Other(OtherError(WORDS))`.
            let words = te.reason[at..].trim_end_matches(')');
            return NetError::WrongFingerprint(words.to_string());
        }
    }
    NetError::Connection(e)
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

    use hexveil_net::tls::Fingerprint;
    use hexveil_server::config::ServerSettings;
    use hexveil_server::relay::RelayFactory;
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
    async fn pinned_login_is_under_our_key() {
        let dir = tempfile::tempdir().unwrap();
        let server = start(dir.path()).await;
        let trust = ServerTrust::Pinned(server.fingerprint());
        let key = new_key();
        let conn = ServerConnection::connect(server.local_addr(), "localhost", &trust, &key)
            .await
            .unwrap();
        assert_eq!(conn.key, LoginKey::from_pkcs8(&key).unwrap().public_key());
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
        assert!(matches!(err, NetError::WrongFingerprint(_)), "{err}");
        assert!(
            err.to_string().starts_with(
                "this server's certificate does not match the fingerprint you gave (0000"
            ),
            "{err}"
        );
        server.shutdown().await;
    }
}
