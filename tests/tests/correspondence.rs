//! Play by correspondence in Escrow mode (DESIGN 3.6) over QUIC with the
//! real server: each owner escrows its hidden setup at setup; the owner of
//! the minefields is offline while the enemy walks into them, and the
//! server's escrow agent opens the hexes for it. The owner's machine still
//! releases its own pad entries when it comes back (G2: no pad seed is
//! escrowed); the transcript verifies clean (G1, G5).

use hexveil::driver::GameEvent;
use hexveil_asl::turn::Phase;
use hexveil_asl::Side;
use hexveil_protocol::encoding::Party;
use hexveil_protocol::message::{Body, Mode, Prompt};
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_tests::{secrets_b, start_server, step_into_the_minefield, Table, Who, WAIT};

/// Every file below `dir`.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn fail<T>((who, e): (Who, hexveil::driver::DriverError)) -> T {
    panic!("{who:?}: {e}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn design_3_6_the_server_answers_for_an_offline_owner_and_the_game_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let mut t = Table::open_in(&ep, Mode::Escrow, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;

    // B goes offline; A walks into 3E4, where B hid A-P 12 (B28.41).
    t.b.disconnect();
    t.a.act(step_into_the_minefield()).unwrap();
    // The server opens B's exit and entry hexes by itself; the move then
    // waits for B's window of pad entries, which only B's machine can give
    // (G2, PROTOCOL.md 7.1).
    let mut openings = 0;
    while openings == 0 {
        let e = t.a.next_event().await.unwrap();
        if let GameEvent::Update(u) = &e {
            if u.entry == "openings" {
                openings += 1;
            }
        }
    }
    assert!(openings >= 1, "the escrow agent opened while B was away");

    // B comes back: its machine releases its entries, the move is ruled.
    t.b.reconnect().await.unwrap();
    t.settle().await.unwrap_or_else(fail);
    assert!(t.a.may_act(), "A's move was ruled and A may act again");

    // DESIGN 3.6, the escrow "encrypted to the server": mid-game, nothing in
    // the data directory (database, WAL, anything) holds B's escrowed seeds
    // in the clear; the log entries are sealed at rest (server/src/at_rest.rs).
    let b_secrets = secrets_b();
    let mut secrets: Vec<[u8; 32]> = b_secrets.layout_seeds.values().copied().collect();
    secrets.push(b_secrets.notes_seed);
    for file in files_under(dir.path()) {
        let bytes = std::fs::read(&file).unwrap();
        for seed in &secrets {
            assert!(
                !bytes.windows(32).any(|w| w == seed),
                "{} holds an escrowed seed in the clear",
                file.display()
            );
        }
    }

    // A concedes; both reveal; the log closes.
    t.a.concede().unwrap();
    t.pump(|t| t.over()).await.unwrap_or_else(fail);
    // B's machine was never asked to open or commit anything.
    let asked: Vec<_> = t
        .events_of(Who::B)
        .filter(|e| {
            matches!(e, GameEvent::Update(u)
                if matches!(u.prompt, Prompt::Open(_) | Prompt::OpenAhead { .. } | Prompt::Transitions(_)))
        })
        .collect();
    assert!(asked.is_empty(), "{asked:?}");

    let file = t.transcript().await;
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => assert_eq!(s.end.unwrap().winner, Some(Side::B)),
        Verdict::Fault(f) => panic!("fault: {f}"),
    }
    // Every opening in the log is the server's (DESIGN 3.6).
    let transcript = Transcript::parse(&file).unwrap();
    let genesis = &transcript.entries[0];
    let server_key = genesis.envelope.envelope().author;
    let mut open_authors = Vec::new();
    for e in &transcript.entries {
        let env = e.envelope.envelope();
        if matches!(Body::decode(&env.body), Ok(Body::Open(_))) {
            open_authors.push(if env.author == server_key {
                Party::Server
            } else {
                Party::B
            });
        }
    }
    assert!(!open_authors.is_empty());
    assert!(open_authors.iter().all(|p| *p == Party::Server));
    server.shutdown().await;
}
