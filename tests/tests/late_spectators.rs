//! DESIGN 5 over QUIC: a spectator who joins late (mid-game, after the end,
//! or after the game's task has ended) is sent the public history and then
//! follows the game like a spectator present from the start: the same
//! updates, in order, none twice, none missing; public view only and padded
//! like every other message (G3, by equality with the early spectator's
//! view, which `no_leaks.rs` checks); after the end, the transcript; and it
//! still cannot act (G6).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hexveil::driver::{GameEvent, Spectator};
use hexveil_asl::turn::Phase;
use hexveil_asl::Side;
use hexveil_net::wire::{ClientMessage, ErrorCode, ServerMessage};
use hexveil_protocol::message::{Mode, Update};
use hexveil_server::config::ServerSettings;
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::Server;
use hexveil_tests::{
    secrets_a, secrets_b, start_server, step_into_the_minefield, Endpoint, Table, Who, PAD_LEN,
    WAIT,
};

fn fail((w, e): (Who, hexveil::driver::DriverError)) -> ! {
    panic!("{w:?}: {e}")
}

/// The early spectator's (the table's) public updates, in order.
fn early_updates(t: &Table) -> Vec<Update> {
    t.events_of(Who::Spectator)
        .filter_map(|e| match e {
            GameEvent::Update(u) => Some(u.clone()),
            _ => None,
        })
        .collect()
}

/// Every public update `s` receives until the one with seq `last`.
async fn updates_until(s: &mut Spectator, last: u64) -> Vec<Update> {
    let mut out = Vec::new();
    loop {
        match s.next_event().await.expect("a public update") {
            GameEvent::Update(u) => {
                let done = u.seq == last;
                out.push(u);
                if done {
                    return out;
                }
            }
            GameEvent::ServerError { code, message } => panic!("{code:?}: {message}"),
            _ => {}
        }
    }
}

/// The seqs of `updates` are exactly 0..=last: nothing twice, no gap.
fn assert_whole(updates: &[Update], last: u64) {
    let seqs: Vec<u64> = updates.iter().map(|u| u.seq).collect();
    assert_eq!(seqs, (0..=last).collect::<Vec<_>>());
}

/// Side A concedes; pumps until both players and the early spectator have
/// seen the log close.
async fn concede_and_finish(t: &mut Table) {
    t.a.concede().unwrap();
    t.pump(|t| t.over()).await.unwrap_or_else(|e| fail(e));
}

/// Whether `ep` still lists `game` among its live games.
async fn listed(ep: &Endpoint, game: hexveil_net::wire::GameId) -> bool {
    let mut c = ep.client().await;
    c.send(&ClientMessage::ListGames).unwrap();
    loop {
        if let ServerMessage::Games { games } = c.recv().await.unwrap() {
            c.close().await;
            return games.iter().any(|g| g.game_id == game);
        }
    }
}

// DESIGN 5, G3, G6, with the real server binary and no spectator delay: a
// spectator who joins mid-game, one who joins after the end, and one who
// joins after everyone left (the game's task ended; no linger, so it is
// rebuilt from its log) all get exactly the early spectator's updates, and
// the transcript.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn design5_g3_late_spectators_see_what_an_early_one_saw_binary_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = hexveil_tests::ServerProcess::spawn_with(
        dir.path(),
        "127.0.0.1:0",
        &[
            "--answer-timeout-secs",
            "600",
            "--finished-linger-secs",
            "0",
        ],
    );
    let ep = server.endpoint.clone();
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;

    // Mid-game.
    let mut mid = ep.client().await.watch(t.game_id).await.unwrap();
    t.act(Side::A, step_into_the_minefield()).await;
    concede_and_finish(&mut t).await;
    let file = t.transcript().await;
    let early = early_updates(&t);
    let last = t.a.last_seq().unwrap();
    assert_whole(&early, last);
    assert_eq!(updates_until(&mut mid, last).await, early);

    // After the end, the task still live: the whole history, the transcript.
    let mut after = ep.client().await.watch(t.game_id).await.unwrap();
    assert_eq!(updates_until(&mut after, last).await, early);
    assert_eq!(after.fetch_transcript().await.unwrap(), file);

    // Everyone leaves: the finished game's task ends...
    let game_id = t.game_id;
    let Table {
        a, b, spectator, ..
    } = t;
    a.close().await;
    b.close().await;
    spectator.unwrap().close().await;
    mid.close().await;
    after.close().await;
    tokio::time::timeout(WAIT, async {
        while listed(&ep, game_id).await {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the finished game leaves the lobby once everyone left");

    // ...and a spectator who comes later still gets it all.
    let mut late = ep.client().await.watch(game_id).await.unwrap();
    assert_eq!(updates_until(&mut late, last).await, early);
    assert_eq!(late.fetch_transcript().await.unwrap(), file);
    // G6: it still cannot act.
    late.send_game(b"anything".to_vec()).unwrap();
    let refused = late
        .wait_for(|e| matches!(e, GameEvent::ServerError { .. }))
        .await
        .unwrap();
    assert!(
        matches!(
            refused,
            GameEvent::ServerError {
                code: ErrorCode::SpectatorCannotAct,
                ..
            }
        ),
        "{refused:?}"
    );
    server.kill();
}

/// The in-process server with the live game and a spectator delay.
async fn start_delayed(dir: &Path, delay: Duration) -> (Server, Endpoint) {
    let mut settings = ServerSettings::new(dir.to_owned(), "127.0.0.1:0".parse().unwrap());
    settings.answer_timeout = WAIT;
    settings.spectator_delay = delay;
    let (secrets, _) = ServerSecrets::load_or_create(dir).unwrap();
    let server = Server::start(settings, Arc::new(LiveGameFactory::new(Arc::new(secrets))))
        .await
        .unwrap();
    let ep = Endpoint {
        addr: server.local_addr(),
        fingerprint: server.fingerprint(),
    };
    (server, ep)
}

// DESIGN 5 with a spectator delay: a spectator who joins while the move's
// entries are still held gets the matured history, then the held rest as it
// matures: the same updates as the early spectator, none twice, no gap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn design5_late_spectator_with_a_delay_gets_no_duplicate_and_no_gap() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_delayed(dir.path(), Duration::from_secs(1)).await;
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;
    // Joins right after the move is declared, while its entries are held.
    t.seat(Side::A).act(step_into_the_minefield()).unwrap();
    let mut late = ep.client().await.watch(t.game_id).await.unwrap();
    t.settle_after_next().await.unwrap_or_else(|e| fail(e));
    concede_and_finish(&mut t).await;
    let early = early_updates(&t);
    let last = t.a.last_seq().unwrap();
    assert_whole(&early, last);
    let late_saw = updates_until(&mut late, last).await;
    assert_whole(&late_saw, last);
    assert_eq!(late_saw, early);
    server.shutdown().await;
}

// DESIGN 5 and 3.6: in escrow mode, where the server writes the openings
// itself, a spectator who joins mid-game (and one after the end) still gets
// exactly the early spectator's public updates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn design5_escrow_game_late_spectator_sees_what_an_early_one_saw() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let mut t = Table::open_in(&ep, Mode::Escrow, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;
    t.act(Side::A, step_into_the_minefield()).await;
    let mut mid = ep.client().await.watch(t.game_id).await.unwrap();
    concede_and_finish(&mut t).await;
    let early = early_updates(&t);
    let last = t.a.last_seq().unwrap();
    assert_whole(&early, last);
    assert!(
        early.iter().any(|u| u.entry == "openings"),
        "the escrow agent's openings are in the history"
    );
    assert_eq!(updates_until(&mut mid, last).await, early);
    let mut after = ep.client().await.watch(t.game_id).await.unwrap();
    assert_eq!(updates_until(&mut after, last).await, early);
    server.shutdown().await;
}

// Issue 31 (G6), over QUIC with the real game: a spectator that leaves and
// joins again saying what its witness holds is resent nothing when nothing
// changed (not the whole public history), and mid-game only what follows:
// its updates stay whole (every seq once, none missing), each checked to
// chain onto the head it holds (PROTOCOL.md 16.1). The bytes a no-op rejoin
// costs, next to a fresh spectator's history, are printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_g6_a_rejoin_that_changes_nothing_resends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;
    let mut mid = ep.client().await.watch(t.game_id).await.unwrap();
    let so_far = t.a.last_seq().unwrap();
    let mut seen = updates_until(&mut mid, so_far).await;
    // Mid-game: rejoined, it is sent only what it lacks (what arrived
    // while it left) and then follows the game, nothing missing.
    mid.rejoin().await.unwrap();
    t.act(Side::A, step_into_the_minefield()).await;
    concede_and_finish(&mut t).await;
    let early = early_updates(&t);
    let last = t.a.last_seq().unwrap();
    seen.extend(updates_until(&mut mid, last).await);
    assert_whole(&seen, last);
    assert_eq!(seen, early);

    // After the end: a no-op rejoin, measured against a fresh spectator.
    mid.take_traffic();
    let resent = mid.rejoin().await.unwrap();
    let noop: usize = mid.take_traffic().iter().sum();
    assert_eq!(resent, 0, "a finished game's no-op rejoin resends nothing");
    let mut fresh = ep.client().await.watch(t.game_id).await.unwrap();
    assert_eq!(updates_until(&mut fresh, last).await, early);
    let whole: usize = fresh.take_traffic().iter().sum();
    println!(
        "issue 31: a no-op spectator rejoin received {noop} bytes; a fresh spectator's history {whole} bytes ({} updates)",
        last + 1
    );
    assert!(
        noop < whole,
        "the rejoin ({noop} bytes) cost less than the history ({whole} bytes)"
    );
    // Still watching: nothing more comes, and the transcript is there.
    assert_eq!(
        mid.fetch_transcript().await.unwrap(),
        fresh.fetch_transcript().await.unwrap()
    );
    server.shutdown().await;
}
