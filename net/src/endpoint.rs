//! quinn endpoint configuration (DESIGN section 5): idle timeout 5 minutes
//! on the server, 5 seconds on clients, which send a keep-alive every 1.5
//! seconds: a player thinking for hours stays connected, and a dead server
//! is noticed within about 6.5 seconds (a keep-alive sent after the last
//! packet received restarts the idle timer, RFC 9000 10.1), even by a seat
//! idle at its prompt (issue 25). 0-RTT off, and one bidirectional stream
//! per connection: the session's long-lived stream. The server sends
//! without segmentation offload (GSO): quinn keeps, for every connection, a
//! send buffer as large as its biggest batch, 10 datagrams (about 14 KiB)
//! with GSO, one datagram without; a game message of play is one datagram
//! (a 1 KiB bucket, G3; two with the 2 KiB bucket before issue 30), so
//! batching saves the server little and the
//! buffer was a fifth of an idle game's memory (issue 16).

use std::sync::Arc;
use std::time::Duration;

use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn::{IdleTimeout, TransportConfig, VarInt};
use thiserror::Error;

use crate::tls::{client_crypto, server_crypto, ServerIdentity, ServerTrust, TlsError};

/// A connection with no traffic at all (keep-alives included) for this long
/// is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// Clients send a QUIC keep-alive this often.
pub const KEEP_ALIVE_INTERVAL: Duration = Duration::from_millis(1500);

/// A client's connection with no packet from the server for this long is
/// closed: a client notices within seconds that its server is gone (killed,
/// restarted, cut off) and can reconnect (the idle timeout in force is the
/// smaller of the two peers', so the server's connections of such a client
/// idle out after it too; its keep-alives keep them open).
pub const CLIENT_IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// Bidirectional streams a client may have open at once: the one session
/// stream.
pub const MAX_BIDI_STREAMS: u32 = 1;

/// Why an endpoint configuration could not be built.
#[derive(Debug, Error)]
pub enum EndpointError {
    /// The TLS part failed.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// quinn refused the rustls configuration.
    #[error("rustls configuration unusable for QUIC: {0}")]
    Quic(String),
}

fn transport(
    idle: Duration,
    keep_alive: Option<Duration>,
    peer_bidi_streams: u32,
) -> TransportConfig {
    let mut t = TransportConfig::default();
    t.max_idle_timeout(Some(
        IdleTimeout::try_from(idle).expect("minutes fit a QUIC idle timeout"),
    ));
    t.keep_alive_interval(keep_alive);
    t.max_concurrent_bidi_streams(VarInt::from_u32(peer_bidi_streams));
    t.max_concurrent_uni_streams(VarInt::from_u32(0));
    t
}

/// The server endpoint's quinn configuration: its stateless resets keyed
/// by [`ServerIdentity::reset_key`], and connection ids any node takes for
/// possibly its own ([`LeagueCids`]), so that a node restarted on its
/// address answers its former clients' packets with a reset they accept,
/// and they look for their game at once (issue 25).
pub fn endpoint_config(identity: &ServerIdentity) -> quinn::EndpointConfig {
    let mut config = quinn::EndpointConfig::new(Arc::new(identity.reset_key()));
    config.cid_generator(|| Box::new(LeagueCids::default()));
    config
}

/// Random 8-byte connection ids, none refused as another endpoint's:
/// quinn's default generator keys its ids with a key of its own, new at
/// every start, so a restarted node dropped its former connections'
/// packets without a word and their clients waited for their idle
/// timeout.
#[derive(Debug, Default)]
pub struct LeagueCids {
    /// Ids made so far (mixed in should the system generator fail).
    made: u64,
}

impl quinn::ConnectionIdGenerator for LeagueCids {
    fn generate_cid(&mut self) -> quinn::ConnectionId {
        let mut id = [0u8; 8];
        self.made += 1;
        if ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut id).is_err() {
            let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
            ctx.update(&self.made.to_be_bytes());
            ctx.update(&format!("{:?}", std::time::SystemTime::now()).into_bytes());
            id.copy_from_slice(&ctx.finish().as_ref()[..8]);
        }
        quinn::ConnectionId::new(&id)
    }

    fn cid_len(&self) -> usize {
        8
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// The server's quinn configuration.
pub fn server_config(identity: &ServerIdentity) -> Result<quinn::ServerConfig, EndpointError> {
    let crypto = QuicServerConfig::try_from(server_crypto(identity)?)
        .map_err(|e| EndpointError::Quic(e.to_string()))?;
    let mut cfg = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    let mut transport = transport(IDLE_TIMEOUT, None, MAX_BIDI_STREAMS);
    // One datagram a transmit: a send buffer of one datagram per
    // connection, not ten (see the module's documentation).
    transport.enable_segmentation_offload(false);
    // A congestion window that holds one action's burst to a player
    // ([`INITIAL_WINDOW`]).
    transport.congestion_controller_factory(congestion());
    cfg.transport_config(Arc::new(transport));
    Ok(cfg)
}

/// quinn's CUBIC controller starting at [`INITIAL_WINDOW`].
fn congestion() -> Arc<quinn::congestion::CubicConfig> {
    let mut cubic = quinn::congestion::CubicConfig::default();
    cubic.initial_window(INITIAL_WINDOW);
    Arc::new(cubic)
}

/// The server's initial congestion window, bytes: 64 KiB, where quinn's
/// default is 12,000 (RFC 9002's ten 1,200-byte datagrams). Every message
/// to a player is padded to a bucket (G3: 2 KiB until issue 30, 1 KiB
/// now), and a mine attack sends
/// each player one per log entry, about seven at once (the openings, the
/// rolls, the ruling): more than 12,000 bytes, so the last ones waited a
/// round trip for acknowledgements, and since play never fills the window
/// (it is application-limited) the window never grew past that (issue 16:
/// a mine attack took 3.3 round trips where its protocol needs 2). A burst
/// of 64 KiB is still far below what a path of any bandwidth takes in one
/// round trip, and the window shrinks as usual on the first loss.
pub const INITIAL_WINDOW: u64 = 64 * 1024;

/// A client's quinn configuration for a trust choice; keep-alive on.
pub fn client_config(trust: &ServerTrust) -> Result<quinn::ClientConfig, EndpointError> {
    let crypto = QuicClientConfig::try_from(client_crypto(trust)?)
        .map_err(|e| EndpointError::Quic(e.to_string()))?;
    let mut cfg = quinn::ClientConfig::new(Arc::new(crypto));
    // The server opens no streams towards the client.
    cfg.transport_config(Arc::new(transport(
        CLIENT_IDLE_TIMEOUT,
        Some(KEEP_ALIVE_INTERVAL),
        0,
    )));
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alive_well_under_idle_timeout() {
        assert!(KEEP_ALIVE_INTERVAL * 3 < CLIENT_IDLE_TIMEOUT);
        assert!(CLIENT_IDLE_TIMEOUT < IDLE_TIMEOUT);
    }

    #[test]
    fn server_sends_without_segmentation_offload() {
        // Issue 16: with GSO, quinn keeps a 10-datagram send buffer for
        // every connection; the server's connections keep one datagram's.
        let id = ServerIdentity::generate(&[]).unwrap();
        let server = format!("{:?}", server_config(&id).unwrap().transport);
        assert!(
            server.contains("enable_segmentation_offload: false"),
            "{server}"
        );
    }

    #[test]
    fn server_congestion_window_holds_an_action_burst() {
        // Issue 16: seven 2 KiB messages to a player (the bucket then; 1 KiB
        // since issue 30) must go out without waiting a round trip for
        // acknowledgements.
        let cubic = format!("{:?}", congestion());
        assert!(cubic.contains("initial_window: 65536"), "{cubic}");
        const { assert!(INITIAL_WINDOW >= 7 * 2048 + 7 * 200) };
    }

    #[test]
    fn configs_build() {
        let id = ServerIdentity::generate(&[]).unwrap();
        server_config(&id).unwrap();
        client_config(&ServerTrust::Pinned(id.fingerprint())).unwrap();
    }
}
