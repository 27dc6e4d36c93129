//! A player's client restarted from scratch mid-game, as `hexveil join`
//! run again with the same secrets directory does: a new process, a new
//! `Player` built from the secrets file, the seat taken again from seq 0.
//! Its machine must rebuild its sealed layouts from the re-sent views, so
//! that its later answers build on what it committed before the restart
//! (G1, G6).

use hexveil::driver::{GameEvent, SeatSetup};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, Side};
use hexveil_protocol::message::Mode;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_server::connection::OUTBOX_CAPACITY;
use hexveil_tests::{
    new_key, scenario_toml, secrets_a, secrets_b, start_server, Table, Who, PAD_LEN, WAIT,
};

/// B28.62: A fires FFE (HE concentration, 36 FP) at 3E4, where B hid A-P
/// 12: B's machine commits the leaf's new content (a transition, real or
/// null), on top of the version it committed before.
fn ffe_on_3e4() -> Action {
    Action::Ffe {
        hex: "3E4".parse().unwrap(),
        fp: 36,
        kind: hexveil_asl::model::action::FfeKind::HeConcentration,
    }
}

/// The seq of the last transitions entry B has been shown.
fn last_commit(t: &Table) -> Option<u64> {
    t.events_of(Who::B)
        .filter_map(|e| match e {
            GameEvent::Update(u) if u.entry == "transitions" => Some(u.seq),
            _ => None,
        })
        .max()
}

/// A fires FFE at 3E4 until transitions are committed again (at most 20
/// times; an attack that can change the mines does so on most DRs).
async fn fire_until_b_commits(t: &mut Table) {
    let before = last_commit(t);
    for _ in 0..20 {
        t.act(Side::A, ffe_on_3e4()).await;
        if last_commit(t) > before {
            return;
        }
    }
    panic!("20 FFE attacks on 3E4 and no transition was committed (B28.62)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_b28_62_a_client_restarted_from_its_secrets_builds_on_what_it_committed() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let key_b = new_key();
    let mut t = Table::open_with_keys(
        &ep,
        &new_key(),
        &key_b,
        secrets_a(),
        secrets_b(),
        PAD_LEN,
        Mode::Live,
        true,
    )
    .await;
    t.end_phase_until(Side::A, Phase::PrepFire).await;
    // The dice are real (the server's pad is fresh each run): fire until
    // an attack changes what 3E4 may hold and B commits its leaves, and
    // until the log is longer than a connection's outbox, so B's resync
    // goes through the server's catch-up path.
    fire_until_b_commits(&mut t).await;
    while t.seq() <= 2 * OUTBOX_CAPACITY as u64 {
        // As fast as A's machine goes: the driver paces its frames below
        // the server's rate limit, so none is dropped.
        t.act(Side::A, ffe_on_3e4()).await;
    }

    // B's client process dies; a new one starts from the secrets file.
    let game = t.game_id;
    let old = std::mem::replace(
        &mut t.b,
        ep.client_with(&key_b)
            .await
            .join(
                game,
                SeatSetup {
                    ruleset: hexveil_fixtures::ruleset(),
                    scenario_toml: scenario_toml(),
                    secrets: secrets_b(),
                    pad_len: PAD_LEN,
                    mode: Mode::Live,
                },
            )
            .await
            .expect("B takes its seat again"),
    );
    old.close().await;

    // The same leaves change again: the new machine's transitions must
    // follow the versions the old one committed, or the referee refuses
    // them and B loses by timeout.
    fire_until_b_commits(&mut t).await;
    t.a.concede().unwrap();
    t.pump(|t| t.over())
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    // The restarted machine answered only what was current: the server's
    // `Joined` says how long the resync is, so no prompt of the past was
    // answered again (PROTOCOL 10.4, G6).
    assert_eq!(t.rejections(Who::B), Vec::<String>::new());
    let file = t.transcript().await;
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => {
            assert_eq!(s.audited, vec![Side::A, Side::B], "{s}");
            assert_eq!(s.end.unwrap().winner, Some(Side::B), "A conceded");
        }
        Verdict::Fault(f) => panic!("fault after B's restart: {f}"),
    }
    server.shutdown().await;
}
