//! The web view shared fairly (issue 31, G6): real QUIC and real HTTP on
//! loopback, real SQLite, real games. Loopback addresses 127.0.x.y stand
//! for clients' addresses (a /24 for each x).

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use hexveil_net::new_game::NewGame;
use hexveil_net::tls::ServerTrust;
use hexveil_net::wire::{ClientMessage, GameId, Role, ServerMessage, Side};
use hexveil_protocol::message::Mode;
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// This process's resident memory, from /proc (Linux), for the log.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A TCP connection to `to` from the loopback address `ip`.
async fn tcp_from(ip: &str, to: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(ip.parse().unwrap(), 0))
        .unwrap();
    socket.connect(to).await.expect("the web view accepts TCP")
}

/// An answer's status and what was read of it: the head, and for an
/// event stream its first event.
struct Answer {
    status: u16,
    text: String,
    stream: TcpStream,
}

/// Sends `GET path` (kept alive) from `ip` and reads the answer's head, or
/// a refusal's whole text; for an event stream (`until_event`), reads on
/// to its first event. The connection is kept in the answer.
async fn get(ip: &str, to: SocketAddr, path: &str, until_event: bool) -> Answer {
    let mut stream = tcp_from(ip, to).await;
    let request = format!("GET {path} HTTP/1.1\r\nhost: hexveil\r\n\r\n");
    // A refused connection may be closed before the request is written.
    let _ = stream.write_all(request.as_bytes()).await;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(WAIT, async {
        loop {
            let text = String::from_utf8_lossy(&got).to_string();
            let head_done = text.contains("\r\n\r\n");
            let status_ok = text.starts_with("HTTP/1.1 200");
            if head_done && !status_ok && body_complete(&text) {
                return;
            }
            if head_done && status_ok && (!until_event || text.contains("event: picture")) {
                return;
            }
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no answer to GET {path} from {ip}");
    let text = String::from_utf8_lossy(&got).to_string();
    let status = text
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("GET {path} from {ip}: not an HTTP answer: {text:?}"));
    Answer {
        status,
        text,
        stream,
    }
}

/// Whether an answer's body is all there, by its `content-length`.
fn body_complete(text: &str) -> bool {
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok());
    length.is_some_and(|n| body.len() >= n)
}

/// A real game between two fresh keys, created by `host` over QUIC from
/// `ip`; returns the game and the keys.
async fn real_game(server: &Server, ip: &str) -> (GameId, RawClient, hexveil_net::login::LoginKey) {
    let trust = ServerTrust::Pinned(server.fingerprint());
    let (a, b) = (new_key(), new_key());
    let mut host = RawClient::connect_from(ip.parse().unwrap(), server.local_addr(), &trust)
        .await
        .unwrap();
    assert!(matches!(
        host.login(&a).await,
        ServerMessage::LoginOk { .. }
    ));
    let ruleset = hexveil_fixtures::ruleset();
    let scenario = NewGame {
        ruleset: ruleset.id().into(),
        ruleset_version: ruleset.version(),
        scenario_toml: hexveil_fixtures::scenario_toml(),
        players: [a.public_key(), b.public_key()],
        mode: Mode::Live,
        pad_len: hexveil_fixtures::PAD_LEN,
        answer_timeout_secs: None,
    }
    .encode();
    host.send(&ClientMessage::CreateGame { scenario }).await;
    let game = match host.recv().await {
        ServerMessage::GameCreated { game_id } => game_id,
        other => panic!("a real game is created: {other:?}"),
    };
    (game, host, b)
}

/// Takes all it can of what `GET path` holds (a connection, an event
/// stream) from the addresses 127.0.`net`.1, .2, ... in turn, each until
/// the server refuses it for its address's share (a refusal naming the
/// address's setting or prefix), and stops at the first other refusal: the
/// places held, how many the first address held, that refusal. Never more
/// than `most` places.
async fn fill(
    net: u8,
    web: SocketAddr,
    path: &str,
    until_event: bool,
    most: usize,
) -> (Vec<TcpStream>, usize, Answer) {
    let mut held = Vec::new();
    let mut first = None;
    for host in 1..=250 {
        let ip = format!("127.0.{net}.{host}");
        let refusal = loop {
            let a = get(&ip, web, path, until_event).await;
            if a.status != 200 {
                break a;
            }
            held.push(a.stream);
            assert!(
                held.len() <= most,
                "{path}: one network holds more than its share"
            );
        };
        first.get_or_insert(held.len());
        let own = format!("address {ip}/32");
        if !refusal.text.contains(&own) && !refusal.text.contains("_per_address") {
            return (held, first.unwrap_or(0), refusal);
        }
    }
    panic!("{path}: 250 addresses of one network were never refused as a network");
}

/// Waits until `ip` is served again (its connections closed have given
/// their places back).
async fn served_again(ip: &str, to: SocketAddr) {
    let waited = tokio::time::timeout(WAIT, async {
        loop {
            if get(ip, to, "/api/games", false).await.status == 200 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{ip} is never served again");
}

// G6 (issue 31): the web view's connections and event streams driven to
// their ends from one address, then from more addresses of its network:
// each share holds (`http_max_connections_per_address`, then
// `..._per_network`; event streams 1/64 and 1/16 of `http_max_streams`),
// the refusal is a 503 that names the setting, and a real client of
// another network still creates a game, both players join it, and it is
// watched over QUIC and through the web view's event stream. Memory is
// printed, not asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_issue31_one_network_cannot_fill_the_web_view() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.http = Some("127.0.0.1:0".parse().unwrap());
    s.http_max_connections = 40;
    s.http_max_connections_per_address = 6;
    s.http_max_connections_per_network = 20;
    let (secrets, _) = ServerSecrets::load_or_create(dir.path()).unwrap();
    let server = Server::start(s, Arc::new(LiveGameFactory::new(Arc::new(secrets))))
        .await
        .unwrap();
    let web = server.http_addr().unwrap();
    println!("resident before: {:?} KiB", resident_kib());

    // Connections: one address, then its network.
    let (held, one, refusal) = fill(4, web, "/api/games", false, 20).await;
    assert_eq!(one, 6, "one address holds its share of connections");
    assert_eq!(held.len(), 20, "one network holds its share of connections");
    assert_eq!(refusal.status, 503, "{}", refusal.text);
    assert!(
        refusal
            .text
            .contains("http_max_connections_per_network = 20"),
        "{}",
        refusal.text
    );
    println!(
        "resident with one network's {} web connections: {:?} KiB",
        held.len(),
        resident_kib()
    );
    drop(held);
    served_again("127.0.4.1", web).await;

    // Event streams of a real game: one address, then its network.
    let (attacked, _attacker, _) = real_game(&server, "127.0.6.1").await;
    let events = format!("/game/{attacked}/events");
    let (streams, one, refusal) = fill(5, web, &events, true, 16).await;
    assert_eq!(one, 4, "one address holds its share of streams");
    assert_eq!(streams.len(), 16, "one network holds its share of streams");
    assert_eq!(refusal.status, 503, "{}", refusal.text);
    assert!(
        refusal.text.contains("network 127.0.5.0/24"),
        "{}",
        refusal.text
    );
    println!(
        "resident with one network's {} event streams: {:?} KiB",
        streams.len(),
        resident_kib()
    );

    // A real client elsewhere: creates, both seats are taken, it is
    // watched over QUIC and in a browser's event stream.
    let (game, mut host_a, key_b) = real_game(&server, "127.0.9.1").await;
    host_a
        .send(&ClientMessage::Join {
            game_id: game,
            role: Role::Player(Side::A),
            resume_from: 0,
        })
        .await;
    assert!(matches!(host_a.recv().await, ServerMessage::Joined { .. }));
    let trust = ServerTrust::Pinned(server.fingerprint());
    let mut b = RawClient::connect_from("127.0.9.2".parse().unwrap(), server.local_addr(), &trust)
        .await
        .unwrap();
    assert!(matches!(
        b.login(&key_b).await,
        ServerMessage::LoginOk { .. }
    ));
    b.send(&ClientMessage::Join {
        game_id: game,
        role: Role::Player(Side::B),
        resume_from: 0,
    })
    .await;
    assert!(matches!(b.recv().await, ServerMessage::Joined { .. }));
    let mut quic_watcher =
        RawClient::connect_from("127.0.8.1".parse().unwrap(), server.local_addr(), &trust)
            .await
            .unwrap();
    assert!(matches!(
        quic_watcher.login(&new_key()).await,
        ServerMessage::LoginOk { .. }
    ));
    quic_watcher
        .send(&ClientMessage::Join {
            game_id: game,
            role: Role::Spectator,
            resume_from: 0,
        })
        .await;
    assert!(matches!(
        quic_watcher.recv().await,
        ServerMessage::Joined { .. }
    ));
    let browser = get("127.0.7.1", web, &format!("/game/{game}/events"), true).await;
    assert_eq!(browser.status, 200, "{}", browser.text);
    assert!(browser.text.contains("event: picture"), "{}", browser.text);
    println!("resident after: {:?} KiB", resident_kib());
    drop(streams);
    server.shutdown().await;
}
