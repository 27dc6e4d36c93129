//! Bounded cost per key, per host and per connection (G6; issue 10 items
//! 8-11): real QUIC on 127.0.0.1, real SQLite in a temporary directory, the
//! relay session as the game. Each test names the limit it checks and the
//! setting that sets it.

mod common;

use std::time::Duration;

use common::*;
use hexveil_net::tls::ServerTrust;
use hexveil_net::wire::{ClientMessage, ErrorCode, GameId, Role, ServerMessage, Side};
use hexveil_server::connection::close;

/// Polls `cond` every 25 ms until it holds (at most [`WAIT`]).
async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    let waited = tokio::time::timeout(WAIT, async {
        while !cond() {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "never: {what}");
}

fn error_text(m: &ServerMessage) -> String {
    match m {
        ServerMessage::Error { message, .. } => message.clone(),
        other => panic!("expected an error, got {other:?}"),
    }
}

async fn try_create(c: &mut RawClient) -> ServerMessage {
    c.send(&ClientMessage::CreateGame {
        scenario: b"test scenario".to_vec(),
    })
    .await;
    c.recv().await
}

// G6 (item 8, issue 31): a key may hold at most
// `max_unfinished_games_per_key` unfinished games and the server
// `max_pending_games` games not under way yet; the refusal names the
// setting, and a finished game frees its place.
#[tokio::test]
async fn g6_unfinished_games_are_capped_per_key_and_in_all() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.games.caps.per_key = 2;
    s.games.caps.pending = 3;
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let mut one = RawClient::logged_in(addr, fp, &new_key()).await;
    let first = one.create_game().await;
    one.create_game().await;
    let refused = try_create(&mut one).await;
    assert_eq!(error_code(&refused), Some(ErrorCode::Rejected));
    assert!(
        error_text(&refused).contains("max_unfinished_games_per_key = 2"),
        "{refused:?}"
    );
    let mut two = RawClient::logged_in(addr, fp, &new_key()).await;
    two.create_game().await;
    let refused = try_create(&mut two).await;
    assert!(
        error_text(&refused).contains("max_pending_games = 3"),
        "{refused:?}"
    );
    // Finishing a game frees a place.
    one.join(first, Role::Player(Side::A)).await;
    one.send_game(first, b"finish").await;
    until("the game is finished", || {
        server
            .lobby()
            .list()
            .iter()
            .any(|g| g.game_id == first && g.finished)
    })
    .await;
    assert!(matches!(
        try_create(&mut two).await,
        ServerMessage::GameCreated { .. }
    ));
    server.shutdown().await;
}

// G6 (item 8): a game whose two seats are never both taken expires after
// `unstarted_expiry_secs`: it can no longer be joined and no longer counts
// against the caps; a game both players joined does not expire.
#[tokio::test]
async fn g6_games_that_never_start_expire_and_free_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.games.unstarted_expiry = Duration::from_secs(1);
    s.games.caps.per_key = 2;
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let key = new_key();
    let mut host = RawClient::logged_in(addr, fp, &key).await;
    let started = host.create_game().await;
    host.join(started, Role::Player(Side::A)).await;
    let _b = RawClient::opponent(addr, fp, started).await;
    let mut other = RawClient::logged_in(addr, fp, &new_key()).await;
    let lonely = other.create_game().await;
    other.join(lonely, Role::Player(Side::A)).await;
    // Told when it expires, then it is gone.
    let told = other.recv().await;
    assert_eq!(error_code(&told), Some(ErrorCode::UnknownGame), "{told:?}");
    assert!(error_text(&told).contains("expired"), "{told:?}");
    until("the expired game leaves the list", || {
        !server.lobby().list().iter().any(|g| g.game_id == lonely)
    })
    .await;
    let mut late = RawClient::logged_in(addr, fp, &new_key()).await;
    assert_eq!(
        late.join_refusal(lonely, Role::Player(Side::B)).await,
        Some(ErrorCode::UnknownGame)
    );
    // The started game is still there, and its creator may create again.
    host.assert_alive(1).await;
    host.send_game(started, b"still here").await;
    assert!(matches!(host.recv().await, ServerMessage::Game { .. }));
    assert!(matches!(
        try_create(&mut host).await,
        ServerMessage::GameCreated { .. }
    ));
    server.shutdown().await;
}

// G6 (item 8): after a restart the server listens at once: unfinished
// games are listed but rebuilt from their logs only when first joined.
#[tokio::test]
async fn g6_restart_restores_games_lazily() {
    let dir = tempfile::tempdir().unwrap();
    let games: Vec<GameId> = {
        let server = start(settings(dir.path())).await;
        let mut c =
            RawClient::logged_in(server.local_addr(), server.fingerprint(), &new_key()).await;
        let mut games = Vec::new();
        for _ in 0..5 {
            let g = c.create_game().await;
            c.join(g, Role::Player(Side::A)).await;
            c.send_game(g, b"move").await;
            c.recv().await;
            games.push(g);
        }
        server.shutdown().await;
        games
    };
    let server = start(settings(dir.path())).await;
    assert_eq!(server.restored_games(), 5);
    assert_eq!(server.lobby().live_games(), 0, "nothing rebuilt at start");
    assert_eq!(server.lobby().rebuilds(), 0);
    let listed: Vec<GameId> = server.lobby().list().iter().map(|g| g.game_id).collect();
    for g in &games {
        assert!(listed.contains(g), "{g} listed before it is rebuilt");
    }
    let mut b = RawClient::logged_in(server.local_addr(), server.fingerprint(), &new_key()).await;
    b.join(games[2], Role::Player(Side::B)).await;
    assert_eq!(server.lobby().live_games(), 1);
    assert_eq!(server.lobby().rebuilds(), 1);
    server.shutdown().await;
}

// G6 (item 9): one address may hold at most `max_connections_per_address`
// connections; more are refused at the handshake, and a closed one frees
// its slot.
#[tokio::test]
async fn g6_connections_are_capped_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.max_connections_per_address = 2;
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let first = RawClient::logged_in(addr, fp, &new_key()).await;
    let _second = RawClient::logged_in(addr, fp, &new_key()).await;
    assert!(
        RawClient::connect_with_trust(addr, &ServerTrust::Pinned(fp))
            .await
            .is_err(),
        "a third connection from 127.0.0.1 is refused"
    );
    first.conn.close(0u32.into(), b"bye");
    let mut again = None;
    for _ in 0..200 {
        if let Ok(c) = RawClient::connect_with_trust(addr, &ServerTrust::Pinned(fp)).await {
            again = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let mut again = again.expect("the closed connection's slot is free again");
    assert!(matches!(
        again.login(&new_key()).await,
        ServerMessage::LoginOk { .. }
    ));
    server.shutdown().await;
}

// G6 (item 9): one key may be logged in on at most
// `max_connections_per_key` connections; the login beyond is refused with
// an error that names the setting.
#[tokio::test]
async fn g6_connections_are_capped_per_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.max_connections_per_key = 1;
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let key = new_key();
    let first = RawClient::logged_in(addr, fp, &key).await;
    let mut second = RawClient::connect(addr, fp).await;
    let answer = second.login(&key).await;
    assert_eq!(error_code(&answer), Some(ErrorCode::LoginFailed));
    assert!(
        error_text(&answer).contains("max_connections_per_key = 1"),
        "{answer:?}"
    );
    assert_eq!(second.closed_code().await, Some(close::LOGIN_FAILED as u64));
    // Another key is not affected; the key's slot is freed when it closes.
    let _other = RawClient::logged_in(addr, fp, &new_key()).await;
    first.conn.close(0u32.into(), b"bye");
    let mut freed = false;
    for _ in 0..200 {
        let mut c = RawClient::connect(addr, fp).await;
        if matches!(c.login(&key).await, ServerMessage::LoginOk { .. }) {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(freed, "the key's slot is free again");
    server.shutdown().await;
}

// G6 (item 9): a logged-in connection silent past `idle_timeout_secs` is
// closed and its slots are freed: with room for one connection, a second
// client gets in once the first has idled out.
#[tokio::test]
async fn g6_an_idle_connection_frees_its_slot() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.max_connections = 1;
    s.frame.idle_timeout = Duration::from_secs(1);
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let key = new_key();
    let mut idle = RawClient::logged_in(addr, fp, &key).await;
    assert_eq!(error_code(&idle.recv().await), Some(ErrorCode::Timeout));
    assert_eq!(idle.closed_code().await, Some(close::TIMEOUT as u64));
    let mut next = None;
    for _ in 0..200 {
        if let Ok(c) = RawClient::connect_with_trust(addr, &ServerTrust::Pinned(fp)).await {
            next = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let mut next = next.expect("the idle connection's slot is free");
    assert!(matches!(
        next.login(&key).await,
        ServerMessage::LoginOk { .. }
    ));
    server.shutdown().await;
}

/// A finished relay game: created, played and finished by a host who then
/// closes its connection.
async fn finished_game(server: &hexveil_server::Server) -> GameId {
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let (mut host, g) = RawClient::hosting(addr, fp).await;
    host.send_game(g, b"a move").await;
    host.recv().await;
    host.send_game(g, b"finish").await;
    host.send(&ClientMessage::Leave { game_id: g }).await;
    loop {
        if let ServerMessage::Left { .. } = host.recv().await {
            break;
        }
    }
    g
}

// G6 (item 10): joining and leaving a finished game again and again
// rebuilds it from its log once: it is kept ready for
// `finished_linger_secs` after its last viewer leaves.
#[tokio::test]
async fn g6_a_finished_game_is_rebuilt_once_for_many_joins() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(settings(dir.path())).await;
    let g = finished_game(&server).await;
    let before = server.lobby().rebuilds();
    let mut viewer =
        RawClient::logged_in(server.local_addr(), server.fingerprint(), &new_key()).await;
    for _ in 0..20 {
        viewer.join(g, Role::Spectator).await;
        viewer.send(&ClientMessage::Leave { game_id: g }).await;
        loop {
            if let ServerMessage::Left { .. } = viewer.recv().await {
                break;
            }
        }
    }
    assert_eq!(
        server.lobby().rebuilds() - before,
        0,
        "the finished game stayed ready: no rebuild for 20 joins"
    );
    server.shutdown().await;
}

/// A server that keeps no finished game ready (`finished_linger_secs`
/// 0: every join rebuilds it) with a rebuild burst of 2, and a finished
/// game on it.
async fn rebuilt_on_every_join() -> (tempfile::TempDir, hexveil_server::Server, GameId) {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.games.finished_linger = Duration::ZERO;
    s.games.rebuild_rate.burst = std::num::NonZeroU32::new(2).unwrap();
    let server = start(s).await;
    let g = finished_game(&server).await;
    (dir, server, g)
}

// G6 (item 10): rebuilds of finished games from their logs are
// rate-limited per key (`rebuilds_per_second`, `rebuild_burst`); another
// key is not affected, and the transcript is still served from storage.
#[tokio::test]
async fn g6_rebuilds_of_finished_games_are_rate_limited_per_key() {
    let (_dir, server, g) = rebuilt_on_every_join().await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let key = new_key();
    let mut viewer = RawClient::logged_in(addr, fp, &key).await;
    let mut refused = None;
    for _ in 0..10 {
        if let Some(r) = rebuild_once(&mut viewer, g, &server).await {
            refused = Some(r);
            break;
        }
    }
    let refused = refused.expect("the key's rebuilds are limited");
    assert_eq!(
        error_code(&refused),
        Some(ErrorCode::RateLimited),
        "{refused:?}"
    );
    assert!(
        server.lobby().rebuilds() <= 3,
        "{}",
        server.lobby().rebuilds()
    );
    // Issue 31: a fresh key from the same address is refused too (the
    // address pays as well); another address may still watch it, and
    // anyone may fetch its transcript.
    let mut fresh = RawClient::logged_in(addr, fp, &new_key()).await;
    assert_eq!(
        fresh.join_refusal(g, Role::Spectator).await,
        Some(ErrorCode::RateLimited)
    );
    let trust = ServerTrust::Pinned(fp);
    let mut other = RawClient::connect_from("127.0.0.2".parse().unwrap(), addr, &trust)
        .await
        .unwrap();
    assert!(matches!(
        other.login(&new_key()).await,
        ServerMessage::LoginOk { .. }
    ));
    other.join(g, Role::Spectator).await;
    assert!(matches!(
        viewer.fetch_chunk(g, 0).await,
        ServerMessage::TranscriptChunk { .. }
    ));
    server.shutdown().await;
}

/// Sends one part of a game message (`more` = true).
async fn send_part(c: &mut RawClient, g: GameId, len: usize) {
    c.send(&ClientMessage::Game {
        game_id: g,
        payload: vec![7; len],
        more: true,
    })
    .await;
}

// G6 (item 11): an incomplete game message must be complete within
// `partial_message_timeout_secs`; after it, it is dropped with an error,
// its bytes are no longer held, and the connection goes on.
#[tokio::test]
async fn g6_an_incomplete_game_message_has_a_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.partial_message_timeout = Duration::from_secs(1);
    let server = start(s).await;
    let (mut p, g) = RawClient::hosting(server.local_addr(), server.fingerprint()).await;
    send_part(&mut p, g, 100_000).await;
    until("the part is held", || {
        server.connections().partial_bytes() == 100_000
    })
    .await;
    let answer = p.recv().await;
    assert_eq!(error_code(&answer), Some(ErrorCode::BadGameMessage));
    assert!(
        error_text(&answer).contains("partial_message_timeout_secs = 1"),
        "{answer:?}"
    );
    assert_eq!(server.connections().partial_bytes(), 0, "nothing held");
    p.assert_alive(1).await;
    // A whole message afterwards is relayed as usual.
    p.send_game(g, b"whole").await;
    assert!(matches!(p.recv().await, ServerMessage::Game { .. }));
    server.shutdown().await;
}

// G6 (item 11): an incomplete game message may hold at most
// `max_partial_bytes_per_connection`, and all connections together at most
// `max_partial_bytes`; beyond either the message is dropped with an error
// naming the setting, and the budget is given back when a connection closes.
#[tokio::test]
async fn g6_incomplete_game_messages_have_a_byte_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.max_partial_bytes_per_connection = 300_000;
    s.max_partial_bytes = 500_000;
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let (mut p, g) = RawClient::hosting(addr, fp).await;
    let mut q = RawClient::opponent(addr, fp, g).await;
    send_part(&mut p, g, 200_000).await;
    send_part(&mut p, g, 200_000).await;
    let answer = p.recv().await;
    assert!(
        error_text(&answer).contains("max_partial_bytes_per_connection = 300000"),
        "{answer:?}"
    );
    assert_eq!(server.connections().partial_bytes(), 0);
    // Two connections: 250 KB and 260 KB are each within a connection's
    // budget, not together within the server's.
    send_part(&mut p, g, 250_000).await;
    until("p's part is held", || {
        server.connections().partial_bytes() == 250_000
    })
    .await;
    send_part(&mut q, g, 260_000).await;
    let answer = q.recv().await;
    assert!(
        error_text(&answer).contains("max_partial_bytes = 500000"),
        "{answer:?}"
    );
    assert_eq!(server.connections().partial_bytes(), 250_000);
    // p goes away: its bytes are given back.
    p.conn.close(0u32.into(), b"bye");
    until("p's bytes are given back", || {
        server.connections().partial_bytes() == 0
    })
    .await;
    send_part(&mut q, g, 250_000).await;
    q.send(&ClientMessage::Game {
        game_id: g,
        payload: b"end".to_vec(),
        more: false,
    })
    .await;
    // Relayed whole to the opponent's seat (empty now) and acknowledged.
    assert!(
        matches!(q.recv().await, ServerMessage::Game { payload, .. } if payload.starts_with(b"ack")),
    );
    server.shutdown().await;
}

/// A client from `ip` logged in with a fresh key, or why not.
async fn fresh_from(ip: &str, server: &hexveil_server::Server) -> Result<RawClient, String> {
    let trust = ServerTrust::Pinned(server.fingerprint());
    let mut c = RawClient::connect_from(ip.parse().unwrap(), server.local_addr(), &trust).await?;
    match c.login(&new_key()).await {
        ServerMessage::LoginOk { .. } => Ok(c),
        other => Err(format!("{other:?}")),
    }
}

/// This process's resident memory, from /proc (Linux), for the log.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

// G6 (issue 31): a hostile client with any number of fresh keys, from one
// address and then from a few addresses of one network, fills what it
// can of the games and the connections; each share holds (the address's,
// then the network's), and a real client from another network still
// creates, joins and watches a game. Loopback addresses 127.0.x.y stand
// for the clients' addresses (a /24 each x). Memory is printed, not
// asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_issue31_fresh_keys_and_addresses_cannot_fill_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(dir.path());
    s.games.caps.per_key = 2;
    s.games.caps.per_address = 4;
    s.games.caps.per_network = 6;
    s.games.caps.pending = 8;
    s.max_connections_per_address = 5;
    s.max_connections_per_network = 7;
    let server = start(s).await;
    println!("resident before: {:?} KiB", resident_kib());
    // Games: fresh keys from one address, until refused.
    let mut held = Vec::new();
    let mut created = 0;
    let refusal = 'fill: loop {
        let mut c = fresh_from("127.0.1.1", &server).await.unwrap();
        loop {
            match try_create(&mut c).await {
                ServerMessage::GameCreated { .. } => created += 1,
                // This key is full: the next one is fresh.
                other if error_text(&other).contains("_per_key") => break,
                other => break 'fill other,
            }
        }
        held.push(c);
        assert!(held.len() <= 4, "fresh keys bought more games");
    };
    assert_eq!(created, 4, "one address holds its share of games");
    assert!(
        error_text(&refusal).contains("address 127.0.1.1/32 already has 4"),
        "{refusal:?}"
    );
    // More addresses of the same /24: the network's share (6).
    for host in 2..6 {
        let ip = format!("127.0.1.{host}");
        let mut c = fresh_from(&ip, &server).await.unwrap();
        while let ServerMessage::GameCreated { .. } = try_create(&mut c).await {
            created += 1;
        }
        held.push(c);
    }
    assert_eq!(created, 6, "one network holds its share of games");
    // Connections: one address, then its network.
    let trust = ServerTrust::Pinned(server.fingerprint());
    let addr = server.local_addr();
    let mut conns = Vec::new();
    for host in 1..4 {
        let ip = format!("127.0.2.{host}").parse().unwrap();
        while let Ok(c) = RawClient::connect_from(ip, addr, &trust).await {
            conns.push(c);
            assert!(conns.len() <= 7, "a network holds more than its share");
        }
    }
    assert_eq!(conns.len(), 7, "one network holds its share of connections");
    println!(
        "resident with the attacker's {} games and {} connections: {:?} KiB",
        created,
        conns.len() + held.len(),
        resident_kib()
    );
    // A real client elsewhere creates, its opponent joins, a third watches.
    let mut host = fresh_from("127.0.9.1", &server).await.unwrap();
    let game = host.create_game().await;
    host.join(game, Role::Player(Side::A)).await;
    let mut opponent = fresh_from("127.0.9.2", &server).await.unwrap();
    opponent.join(game, Role::Player(Side::B)).await;
    let mut watcher = fresh_from("127.0.8.1", &server).await.unwrap();
    watcher.join(game, Role::Spectator).await;
    host.send_game(game, b"move").await;
    assert!(matches!(host.recv().await, ServerMessage::Game { .. }));
    println!("resident after: {:?} KiB", resident_kib());
    server.shutdown().await;
}

/// Joins `g` as a spectator and leaves, then waits until its task ended
/// (no linger: the next join rebuilds it); the refusal, if refused.
async fn rebuild_once(
    c: &mut RawClient,
    g: GameId,
    server: &hexveil_server::Server,
) -> Option<ServerMessage> {
    until("the finished game's task ended", || {
        server.lobby().live_games() == 0
    })
    .await;
    c.send(&ClientMessage::Join {
        game_id: g,
        role: Role::Spectator,
        resume_from: 0,
    })
    .await;
    match c.recv().await {
        ServerMessage::Joined { .. } => {
            c.send(&ClientMessage::Leave { game_id: g }).await;
            while !matches!(c.recv().await, ServerMessage::Left { .. }) {}
            None
        }
        other => Some(other),
    }
}

// G6 (issue 31): rebuilds of a finished game driven to their ends with
// fresh keys, from one address (its budget: `rebuild_burst`), then from
// more addresses of its network (the network's: four times as much); every
// fresh key and every further address of that network is then refused,
// while a client of another network still watches the game (a rebuild of
// its own) and anyone fetches the transcript, read from the store with no
// rebuild. Loopback 127.0.x.y stands for the addresses; memory printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_issue31_rebuilds_from_one_address_and_one_network_run_out() {
    let (_dir, server, g) = rebuilt_on_every_join().await;
    println!("resident before: {:?} KiB", resident_kib());
    // One address, a fresh key for every rebuild.
    let mut rebuilt = 0;
    let refusal = loop {
        let mut c = fresh_from("127.0.3.1", &server).await.unwrap();
        match rebuild_once(&mut c, g, &server).await {
            None => rebuilt += 1,
            Some(refused) => break refused,
        }
        assert!(rebuilt <= 4, "fresh keys bought more rebuilds: {rebuilt}");
    };
    assert_eq!(error_code(&refusal), Some(ErrorCode::RateLimited));
    assert!(
        error_text(&refusal).contains("address 127.0.3.1/32"),
        "{refusal:?}"
    );
    // More addresses of its /24, until the network's budget is spent.
    let mut host = 2;
    let refusal = 'network: loop {
        assert!(host < 60, "the network's budget never ran out");
        let ip = format!("127.0.3.{host}");
        loop {
            let mut c = fresh_from(&ip, &server).await.unwrap();
            match rebuild_once(&mut c, g, &server).await {
                None => rebuilt += 1,
                Some(r) if error_text(&r).contains("address ") => break,
                Some(r) => break 'network r,
            }
        }
        host += 1;
    };
    assert!(
        error_text(&refusal).contains("network 127.0.3.0/24"),
        "{refusal:?}"
    );
    let mut unused = fresh_from("127.0.3.250", &server).await.unwrap();
    assert_eq!(
        unused.join_refusal(g, Role::Spectator).await,
        Some(ErrorCode::RateLimited),
        "a new address of a spent network pays with it"
    );
    println!(
        "rebuilds by one network's attacker: {rebuilt} over {} addresses; resident: {:?} KiB",
        host,
        resident_kib()
    );
    // Another network still watches it, and the transcript is served.
    let mut watcher = fresh_from("127.0.9.1", &server).await.unwrap();
    assert!(rebuild_once(&mut watcher, g, &server).await.is_none());
    let before = server.lobby().rebuilds();
    assert!(matches!(
        unused.fetch_chunk(g, 0).await,
        ServerMessage::TranscriptChunk { .. }
    ));
    assert_eq!(
        server.lobby().rebuilds(),
        before,
        "no rebuild for a transcript"
    );
    println!("resident after: {:?} KiB", resident_kib());
    server.shutdown().await;
}

// Issue 31: with a roster only its keys may create games; another key is
// refused, naming the roster, and creates nothing; anyone may still join.
#[tokio::test]
async fn issue31_only_keys_on_the_roster_create_games() {
    let dir = tempfile::tempdir().unwrap();
    let member = new_key();
    let roster = format!(
        "[[player]]\nkey = \"{}\"\nname = \"Member\"\n",
        member.public_key()
    );
    let mut s = settings(dir.path());
    s.roster = Some(
        hexveil_server::roster::Roster::parse(&roster, std::path::Path::new("league.toml"))
            .unwrap(),
    );
    let server = start(s).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let mut stranger = RawClient::logged_in(addr, fp, &new_key()).await;
    let refused = try_create(&mut stranger).await;
    assert_eq!(error_code(&refused), Some(ErrorCode::Rejected));
    assert!(
        error_text(&refused).contains("not on this league's roster"),
        "{refused:?}"
    );
    assert!(server.lobby().list().is_empty(), "nothing was created");
    let mut on_it = RawClient::logged_in(addr, fp, &member).await;
    let game = on_it.create_game().await;
    stranger.join(game, Role::Spectator).await;
    server.shutdown().await;
}
