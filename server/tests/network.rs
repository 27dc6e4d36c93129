//! Real QUIC on 127.0.0.1 (port 0) against an in-process server: login,
//! replayed logins, oversized frames, garbage, rate limit, restart (G6).

mod common;

use std::num::NonZeroU32;
use std::time::Duration;

use common::*;
use hexveil_fixtures::noise;
use hexveil_net::login::exporter;
use hexveil_net::tls::ServerTrust;
use hexveil_net::wire::{ClientMessage, ErrorCode, Role, ServerMessage, Side};
use hexveil_server::connection::close;

#[tokio::test]
async fn login_works() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let key = new_key();
    let mut c = RawClient::connect(server.local_addr(), server.fingerprint()).await;
    assert_eq!(
        c.login(&key).await,
        ServerMessage::LoginOk {
            public_key: key.public_key()
        }
    );
    c.assert_alive(42).await;
    server.shutdown().await;
}

// G6 / DESIGN 5: a login is bound to its TLS session, so neither replaying a
// signature nor relaying a challenge to another session works.
#[tokio::test]
async fn login_replayed_on_another_connection_fails() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let key = new_key();

    // Connection A: an honest login; the attacker captures the signature.
    let mut a = RawClient::connect(server.local_addr(), server.fingerprint()).await;
    let ca = a.hello().await;
    let xa = exporter(&a.conn, &ca).unwrap();
    let captured = key.sign(&xa, &ca);
    a.send(&ClientMessage::Login {
        public_key: key.public_key(),
        signature: captured.clone(),
    })
    .await;
    assert!(matches!(a.recv().await, ServerMessage::LoginOk { .. }));

    // Connection B: the captured signature replayed.
    let mut b = RawClient::connect(server.local_addr(), server.fingerprint()).await;
    b.hello().await;
    b.send(&ClientMessage::Login {
        public_key: key.public_key(),
        signature: captured,
    })
    .await;
    let answer = b.recv().await;
    assert_eq!(
        error_code(&answer),
        Some(ErrorCode::LoginFailed),
        "{answer:?}"
    );
    assert_eq!(b.closed_code().await, Some(close::LOGIN_FAILED as u64));

    // Connection C: the attacker relays C's challenge to the victim, who signs
    // it in *his* session A. Right challenge, wrong session: refused.
    let mut c = RawClient::connect(server.local_addr(), server.fingerprint()).await;
    let cc = c.hello().await;
    let relayed = key.sign(&exporter(&a.conn, &cc).unwrap(), &cc);
    c.send(&ClientMessage::Login {
        public_key: key.public_key(),
        signature: relayed,
    })
    .await;
    assert_eq!(error_code(&c.recv().await), Some(ErrorCode::LoginFailed));
    assert_eq!(c.closed_code().await, Some(close::LOGIN_FAILED as u64));

    // A is unaffected.
    a.assert_alive(1).await;
    server.shutdown().await;
}

// G6: a frame claiming 1 GiB gets an error frame and a closed connection; a
// game on another connection goes on.
#[tokio::test]
async fn gigabyte_frame_rejected_other_game_undisturbed() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());

    let (mut x, _g1) = RawClient::hosting(addr, fp).await;

    let (mut y, g2) = RawClient::hosting(addr, fp).await;
    let mut z = RawClient::opponent(addr, fp, g2).await;

    x.send_raw(&(1u32 << 30).to_be_bytes()).await;
    let answer = x.recv().await;
    match &answer {
        ServerMessage::Error { code, message } => {
            assert_eq!(*code, ErrorCode::FrameTooLarge);
            assert!(message.contains("1073741824"), "{message}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    assert_eq!(x.closed_code().await, Some(close::FRAME_TOO_LARGE as u64));

    for i in 0..5u8 {
        let payload = vec![b'm', i];
        y.send_game(g2, &payload).await;
        assert_eq!(
            z.recv().await,
            ServerMessage::Game {
                game_id: g2,
                payload,
                more: false,
            }
        );
        assert!(matches!(y.recv().await, ServerMessage::Game { .. }));
    }
    server.shutdown().await;
}

// G6: random bytes in place of a frame get a clear error.
#[tokio::test]
async fn random_bytes_get_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());

    // Garbage inside a well-formed frame: Malformed, and the connection
    // stays usable.
    let mut c = RawClient::logged_in(addr, fp, &new_key()).await;
    let body = noise(7, 40);
    let mut framed = (body.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&body);
    c.send_raw(&framed).await;
    let answer = c.recv().await;
    assert_eq!(
        error_code(&answer),
        Some(ErrorCode::Malformed),
        "{answer:?}"
    );
    c.assert_alive(9).await;

    // Raw noise instead of a frame, before login: an error naming the problem.
    for seed in [1u64, 2, 3] {
        let mut r = RawClient::connect(addr, fp).await;
        r.send_raw(&noise(seed, 64)).await;
        let answer = r.recv().await;
        match answer {
            ServerMessage::Error { code, message } => {
                assert!(
                    matches!(code, ErrorCode::FrameTooLarge | ErrorCode::Malformed),
                    "{code:?}: {message}"
                );
                assert!(!message.is_empty());
            }
            other => panic!("expected an error, got {other:?}"),
        }
    }
    server.shutdown().await;
}

// G6: the per-connection token bucket refuses floods with a clear error and
// drops the extra frames.
#[tokio::test]
async fn rate_limit_triggers() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.rate_limit.frames_per_second = NonZeroU32::new(1).unwrap();
    s.rate_limit.burst = NonZeroU32::new(4).unwrap();
    let server = start(s).await;
    // Hello and Login take two tokens.
    let mut c = RawClient::logged_in(server.local_addr(), server.fingerprint(), &new_key()).await;
    for nonce in 0..20 {
        c.send(&ClientMessage::Ping { nonce }).await;
    }
    let mut pongs = 0;
    let mut limited = 0;
    for _ in 0..20 {
        match c.recv().await {
            ServerMessage::Pong { .. } => pongs += 1,
            ServerMessage::Error { code, message } => {
                assert_eq!(code, ErrorCode::RateLimited);
                assert!(message.contains("rate limit exceeded"), "{message}");
                limited += 1;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(limited > 0, "20 pings at once must hit a 1/s limit");
    assert!(pongs >= 2, "the burst allowance is honoured");
    server.shutdown().await;
}

// G6: a silent client is timed out with an error instead of holding a slot.
#[tokio::test]
async fn silent_client_times_out_at_login() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.login_timeout = Duration::from_secs(1);
    let server = start(s).await;
    let mut c = RawClient::connect(server.local_addr(), server.fingerprint()).await;
    // Open the stream with half a header, then go silent.
    c.send_raw(&[0, 0]).await;
    let answer = c.recv().await;
    assert_eq!(error_code(&answer), Some(ErrorCode::Timeout), "{answer:?}");
    assert_eq!(c.closed_code().await, Some(close::TIMEOUT as u64));
    server.shutdown().await;
}

// G6: out-of-place requests change nothing and say why.
#[tokio::test]
async fn lobby_rejections_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());

    let mut early = RawClient::connect(addr, fp).await;
    early.send(&ClientMessage::ListGames).await;
    assert_eq!(
        error_code(&early.recv().await),
        Some(ErrorCode::UnexpectedMessage)
    );

    let mut c = RawClient::logged_in(addr, fp, &new_key()).await;
    let g = c.create_game().await;
    c.send_game(g, b"x").await;
    assert_eq!(error_code(&c.recv().await), Some(ErrorCode::NotJoined));
    c.join(g, Role::Spectator).await;
    c.send_game(g, b"x").await;
    assert_eq!(
        error_code(&c.recv().await),
        Some(ErrorCode::SpectatorCannotAct)
    );
    assert_eq!(
        c.join_refusal(hexveil_net::wire::GameId([0; 16]), Role::Spectator)
            .await,
        Some(ErrorCode::UnknownGame)
    );

    // A seat held by another key is refused by the session.
    let mut p1 = RawClient::logged_in(addr, fp, &new_key()).await;
    p1.join(g, Role::Player(Side::A)).await;
    let mut p2 = RawClient::logged_in(addr, fp, &new_key()).await;
    assert_eq!(
        p2.join_refusal(g, Role::Player(Side::A)).await,
        Some(ErrorCode::Rejected)
    );

    c.send(&ClientMessage::ListGames).await;
    match c.recv().await {
        ServerMessage::Games { games } => {
            let s = games.iter().find(|s| s.game_id == g).expect("listed");
            assert!(s.side_a_seated && !s.side_b_seated);
            assert_eq!(s.spectators, 1);
        }
        other => panic!("expected Games, got {other:?}"),
    }
    // Issue 27 item 8: the described list, beside the old one (which an
    // old client, above, still gets): its seats, its creation time, and
    // the fields a test session cannot describe left empty.
    c.send(&ClientMessage::ListOpenGames).await;
    match c.recv().await {
        ServerMessage::OpenGames { games } => {
            let l = games
                .iter()
                .find(|l| l.summary.game_id == g)
                .expect("listed");
            assert!(l.summary.side_a_seated && !l.summary.side_b_seated);
            assert_eq!(l.summary.spectators, 1);
            assert!(l.created_ms.unwrap() > 1_700_000_000_000, "{l:?}");
            assert_eq!(l.scenario, "");
        }
        other => panic!("expected OpenGames, got {other:?}"),
    }
    server.shutdown().await;
}

// G6 / DESIGN 5: acknowledged events survive a restart; the game is rebuilt
// from its log and its seat goes back to the same key.
#[tokio::test]
async fn storage_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let key = new_key();
    let game;
    {
        let server = start(settings(dir.path())).await;
        let mut c = RawClient::logged_in(server.local_addr(), server.fingerprint(), &key).await;
        game = c.create_game().await;
        c.join(game, Role::Player(Side::A)).await;
        c.send_game(game, b"move 1").await;
        // The relay acknowledges after the event is durable.
        assert_eq!(
            c.recv().await,
            ServerMessage::Game {
                game_id: game,
                payload: b"ack 1".to_vec(),
                more: false,
            }
        );
        server.shutdown().await;
    }
    let server = start(settings(dir.path())).await;
    assert_eq!(server.restored_games(), 1);
    let mut c = RawClient::logged_in(server.local_addr(), server.fingerprint(), &key).await;
    // Seat event + one move = 2 events replayed.
    assert_eq!(
        c.join(game, Role::Player(Side::A)).await,
        ServerMessage::Game {
            game_id: game,
            payload: b"welcome 2".to_vec(),
            more: false,
        }
    );
    let mut other =
        RawClient::logged_in(server.local_addr(), server.fingerprint(), &new_key()).await;
    assert_eq!(
        other.join_refusal(game, Role::Player(Side::A)).await,
        Some(ErrorCode::Rejected)
    );
    server.shutdown().await;
}

// A CA-signed certificate is accepted through WebPKI with the CA file; an
// unrelated CA is refused.
#[tokio::test]
async fn ca_file_trust() {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, rcgen::KeyPair::generate().unwrap())
        .unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tls-cert.der"), leaf.der()).unwrap();
    std::fs::write(dir.path().join("tls-key.pk8"), leaf_key.serialize_der()).unwrap();
    let server = start(settings(dir.path())).await;
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    let trust = ServerTrust::from_ca_file(&ca_file).unwrap();
    let mut c = RawClient::connect_with_trust(server.local_addr(), &trust)
        .await
        .unwrap();
    assert!(matches!(
        c.login(&new_key()).await,
        ServerMessage::LoginOk { .. }
    ));

    let stranger = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let wrong = ServerTrust::CertificateAuthorities(vec![stranger.cert.der().clone()]);
    assert!(RawClient::connect_with_trust(server.local_addr(), &wrong)
        .await
        .is_err());
    server.shutdown().await;
}

// DESIGN 5: ALPN is hexveil/1 or nothing.
#[tokio::test]
async fn wrong_alpn_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let mut crypto =
        hexveil_net::tls::client_crypto(&ServerTrust::Pinned(server.fingerprint())).unwrap();
    crypto.alpn_protocols = vec![b"h3".to_vec()];
    let cfg = quinn::ClientConfig::new(std::sync::Arc::new(
        quinn::crypto::rustls::QuicClientConfig::try_from(crypto).unwrap(),
    ));
    let endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    let result = endpoint
        .connect_with(cfg, server.local_addr(), "localhost")
        .unwrap()
        .await;
    assert!(result.is_err(), "a handshake without hexveil/1 must fail");
    server.shutdown().await;
}

// DESIGN 5: after the end, anyone can fetch the full transcript, in chunks.
#[tokio::test]
async fn finished_transcript_can_be_fetched() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let (mut p, g) = RawClient::hosting(addr, fp).await;
    let mut viewer = RawClient::logged_in(addr, fp, &new_key()).await;
    assert_eq!(
        error_code(&viewer.fetch_chunk(g, 0).await),
        Some(ErrorCode::NotFinished)
    );
    p.send_game(g, b"hello").await;
    assert!(matches!(p.recv().await, ServerMessage::Game { .. }));
    p.send_game(g, b"finish").await;
    // The finish is stored by the game task; poll until it is visible.
    let chunk = loop {
        match viewer.fetch_chunk(g, 0).await {
            ServerMessage::Error {
                code: ErrorCode::NotFinished,
                ..
            } => tokio::time::sleep(Duration::from_millis(20)).await,
            other => break other,
        }
    };
    let ServerMessage::TranscriptChunk {
        game_id,
        offset,
        total_len,
        bytes,
    } = chunk
    else {
        panic!("expected a chunk, got {chunk:?}")
    };
    assert_eq!((game_id, offset), (g, 0));
    assert_eq!(total_len, bytes.len() as u64);
    assert!(bytes.ends_with(b"hello"));
    assert_eq!(
        error_code(&viewer.fetch_chunk(g, total_len + 1).await),
        Some(ErrorCode::BadOffset)
    );
    server.shutdown().await;
}

// G6: connections beyond the limit are refused at the handshake.
#[tokio::test]
async fn connection_limit_refuses_extra_connections() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.max_connections = 1;
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let _first = RawClient::logged_in(addr, fp, &new_key()).await;
    assert!(
        RawClient::connect_with_trust(addr, &ServerTrust::Pinned(fp))
            .await
            .is_err()
    );
    server.shutdown().await;
}

// DESIGN 5: a client that stops reading is dropped; its game and other games
// go on.
#[tokio::test]
async fn client_that_stops_reading_is_dropped_games_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.rate_limit.frames_per_second = NonZeroU32::new(100_000).unwrap();
    s.rate_limit.burst = NonZeroU32::new(100_000).unwrap();
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let (mut p, g) = RawClient::hosting(addr, fp).await;
    let sleeper = RawClient::opponent(addr, fp, g).await;
    // From here on the sleeper reads nothing.
    let chunk = vec![0x5a; 32 * 1024];
    let mut sent = 0u32;
    // Keep relaying to the sleeper until the server gives up on it; every
    // message is still acknowledged to the sender without delay.
    while sent < 2000 {
        p.send_game(g, &chunk).await;
        sent += 1;
        let ack = p.recv().await;
        assert!(
            matches!(&ack, ServerMessage::Game { payload, .. } if payload.starts_with(b"ack")),
            "{ack:?}"
        );
        if sleeper.conn.close_reason().is_some() {
            break;
        }
    }
    let code = sleeper.closed_code().await;
    assert!(
        code == Some(close::TOO_SLOW as u64) || code == Some(close::TIMEOUT as u64),
        "{code:?} after {sent} messages"
    );
    // Another game on other connections is unaffected.
    let (mut y, _g2) = RawClient::hosting(addr, fp).await;
    y.assert_alive(5).await;
    server.shutdown().await;
}

// G6: a logged-in connection that sends nothing past the idle timeout is
// closed with a timeout error.
#[tokio::test]
async fn idle_connection_closed_after_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.frame.idle_timeout = Duration::from_secs(1);
    let server = start(s).await;
    let mut c = RawClient::logged_in(server.local_addr(), server.fingerprint(), &new_key()).await;
    let answer = c.recv().await;
    assert_eq!(error_code(&answer), Some(ErrorCode::Timeout), "{answer:?}");
    assert_eq!(c.closed_code().await, Some(close::TIMEOUT as u64));
    server.shutdown().await;
}

// Long game messages travel in frame-sized parts and arrive whole; more than
// 8 MiB is refused with a clear error and nothing reaches the game (G6).
#[tokio::test]
async fn long_game_messages_travel_in_parts() {
    use hexveil_net::wire::{
        split_game_message, GameAssembler, MAX_GAME_MESSAGE_LEN, MAX_PAYLOAD_LEN,
    };
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let (mut p, g) = RawClient::hosting(addr, fp).await;
    let mut q = RawClient::opponent(addr, fp, g).await;

    let long: Vec<u8> = noise(11, 600_000);
    for (part, more) in split_game_message(&long) {
        p.send(&ClientMessage::Game {
            game_id: g,
            payload: part.to_vec(),
            more,
        })
        .await;
    }
    let mut assembler = GameAssembler::default();
    let whole = loop {
        match q.recv().await {
            ServerMessage::Game {
                game_id,
                payload,
                more,
            } => {
                if let Some(w) = assembler.push(game_id, payload, more).unwrap() {
                    break w;
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(whole, (g, long));
    let ack = p.recv().await;
    assert!(
        matches!(&ack, ServerMessage::Game { payload, .. } if payload == b"ack 2"),
        "{ack:?}"
    );

    // Over the limit: an error once the parts pass 8 MiB.
    let part = vec![7u8; MAX_PAYLOAD_LEN];
    let parts = MAX_GAME_MESSAGE_LEN / MAX_PAYLOAD_LEN + 1;
    for _ in 0..parts {
        p.send(&ClientMessage::Game {
            game_id: g,
            payload: part.clone(),
            more: true,
        })
        .await;
    }
    let answer = p.recv().await;
    assert_eq!(
        error_code(&answer),
        Some(ErrorCode::BadGameMessage),
        "{answer:?}"
    );
    // Nothing was relayed; the connection still works.
    p.assert_alive(3).await;
    q.assert_alive(4).await;
    server.shutdown().await;
}

// A closed connection leaves its games: its seat is free again.
#[tokio::test]
async fn closed_connection_leaves_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let (p, g) = RawClient::hosting(addr, fp).await;
    let mut watcher = RawClient::logged_in(addr, fp, &new_key()).await;
    let seated = |m: ServerMessage| match m {
        ServerMessage::Games { games } => games.iter().any(|s| s.game_id == g && s.side_a_seated),
        other => panic!("expected Games, got {other:?}"),
    };
    watcher.send(&ClientMessage::ListGames).await;
    assert!(seated(watcher.recv().await));
    p.conn.close(0u32.into(), b"bye");
    let mut freed = false;
    for _ in 0..200 {
        watcher.send(&ClientMessage::ListGames).await;
        if !seated(watcher.recv().await) {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(freed, "seat A still taken after the connection closed");
    server.shutdown().await;
}
