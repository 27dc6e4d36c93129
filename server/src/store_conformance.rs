//! The storage tests every [`GameStore`] backend must pass (issue 13):
//! each test below runs once on SQLite and once on PostgreSQL (a fresh
//! database on the test process's throwaway cluster,
//! `hexveil_fixtures::postgres`). Without PostgreSQL installed the
//! PostgreSQL half prints `SKIPPED ... (no PostgreSQL)`, except under CI,
//! where it fails.

use std::time::Duration;

use crate::postgres::PgStore;
use crate::shares::Grouping;
use crate::sqlite::SqliteStore;
use crate::store::{
    Append, GameCaps, GameStore, NewGameRecord, StoreError, StoreHandle, StoredEvent,
};
use crate::wire::{GameId, PublicKey};

const G1: GameId = GameId([1; 16]);
const G2: GameId = GameId([2; 16]);

fn own() -> NewGameRecord {
    NewGameRecord::uncapped(PublicKey([7; 32]), 1)
}

/// A store that can be opened again (a restart of the server).
pub(crate) trait Backend {
    /// A new store on the same data.
    fn open(&self) -> Box<dyn GameStore>;
}

/// SQLite in a temporary directory.
pub(crate) struct Sqlite(tempfile::TempDir);

impl Backend for Sqlite {
    fn open(&self) -> Box<dyn GameStore> {
        Box::new(SqliteStore::open(self.0.path()).unwrap())
    }
}

/// A fresh PostgreSQL database.
pub(crate) struct Postgres(pub(crate) String);

impl Backend for Postgres {
    fn open(&self) -> Box<dyn GameStore> {
        Box::new(PgStore::connect(&self.0).unwrap())
    }
}

pub(crate) fn sqlite() -> Option<Sqlite> {
    Some(Sqlite(tempfile::tempdir().unwrap()))
}

pub(crate) fn postgres(test: &str) -> Option<Postgres> {
    hexveil_fixtures::postgres::fresh_database(test).map(Postgres)
}

/// Each named test, on each backend: `sqlite::NAME` and `postgres::NAME`.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&super::sqlite().unwrap());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    if let Some(b) = super::postgres(concat!("postgres::", stringify!($name))) {
                        super::$name(&b);
                    }
                }
            )*
        }
    };
}

on_both_backends!(
    appends_survive_reopen,
    duplicate_seq_and_gaps_rejected,
    concurrent_games_are_independent,
    finish_stores_result_and_transcript,
    g6_last_entry_and_result_commit_together,
    g6_unfinished_games_are_capped_per_key_and_in_all,
    g6_a_game_is_created_with_its_genesis,
    g6_a_refused_append_fails_alone_in_its_batch,
    g6_queued_appends_are_one_commit_and_a_bad_one_fails_alone,
    g6_a_run_of_appends_is_one_commit_answered_each,
    handle_runs_on_its_thread,
    events_are_read_from_a_seq,
    a_game_keeps_its_creation_time,
);

// Issue 27 item 8: `hexveil list` and the web view say when a game was
// created; the time survives a restart.
fn a_game_keeps_its_creation_time(b: &dyn Backend) {
    {
        let mut s = b.open();
        let rec = NewGameRecord::uncapped(PublicKey([7; 32]), 1_795_000_000_000);
        s.create_game(G1, b"scenario", &rec, &[]).unwrap();
        s.create_game(G2, b"scenario", &own(), &[]).unwrap();
    }
    let s = b.open();
    assert_eq!(s.load_game(G1).unwrap().created_ms, Some(1_795_000_000_000));
    assert_eq!(s.load_game(G2).unwrap().created_ms, Some(1));
}

// Issue 16: a resync near the end of a long log reads only its end.
fn events_are_read_from_a_seq(b: &dyn Backend) {
    let mut s = b.open();
    s.create_game(G1, b"scenario", &own(), &[]).unwrap();
    for seq in 0..5u64 {
        s.append_event(G1, seq, &[seq as u8]).unwrap();
    }
    let seqs = |from| -> Vec<(u64, Vec<u8>)> {
        s.load_events_from(G1, from)
            .unwrap()
            .into_iter()
            .map(|e| (e.seq, e.bytes))
            .collect()
    };
    assert_eq!(seqs(3), vec![(3, vec![3]), (4, vec![4])]);
    assert_eq!(seqs(0).len(), 5);
    assert!(seqs(5).is_empty());
    assert!(seqs(u64::MAX).is_empty());
    assert!(matches!(
        s.load_events_from(G2, 0),
        Err(StoreError::UnknownGame(_))
    ));
}

// G6: appends survive a reopen (the durable log is what restart replays).
fn appends_survive_reopen(b: &dyn Backend) {
    {
        let mut s = b.open();
        s.create_game(G1, b"scenario", &own(), &[]).unwrap();
        s.append_event(G1, 0, b"e0").unwrap();
        s.append_event(G1, 1, b"e1").unwrap();
    }
    let s = b.open();
    let ev = s.load_events(G1).unwrap();
    assert_eq!(
        ev,
        vec![
            StoredEvent {
                seq: 0,
                bytes: b"e0".to_vec()
            },
            StoredEvent {
                seq: 1,
                bytes: b"e1".to_vec()
            }
        ]
    );
    assert_eq!(s.load_game(G1).unwrap().metadata, b"scenario");
    assert_eq!(s.list_unfinished().unwrap(), vec![G1]);
}

// G6: a replayed (duplicate) event changes nothing.
fn duplicate_seq_and_gaps_rejected(b: &dyn Backend) {
    let mut s = b.open();
    s.create_game(G1, b"", &own(), &[]).unwrap();
    s.append_event(G1, 0, b"first").unwrap();
    assert!(matches!(
        s.append_event(G1, 0, b"second"),
        Err(StoreError::DuplicateSeq { game: G1, seq: 0 })
    ));
    assert!(matches!(
        s.append_event(G1, 5, b"x"),
        Err(StoreError::SeqGap {
            expected: 1,
            got: 5,
            ..
        })
    ));
    assert_eq!(s.load_events(G1).unwrap()[0].bytes, b"first");
    assert_eq!(s.load_events(G1).unwrap().len(), 1);
    assert!(matches!(
        s.create_game(G1, b"", &own(), &[]),
        Err(StoreError::DuplicateGame(G1))
    ));
    assert!(matches!(
        s.append_event(G2, 0, b""),
        Err(StoreError::UnknownGame(G2))
    ));
    assert!(matches!(
        s.append_event(G1, u64::MAX, b""),
        Err(StoreError::SeqOutOfRange(u64::MAX))
    ));
}

fn concurrent_games_are_independent(b: &dyn Backend) {
    let mut s = b.open();
    s.create_game(G1, b"a", &own(), &[]).unwrap();
    s.create_game(G2, b"b", &own(), &[]).unwrap();
    for i in 0..3u64 {
        s.append_event(G1, i, &[1, i as u8]).unwrap();
        s.append_event(G2, i, &[2, i as u8]).unwrap();
    }
    s.append_event(G2, 3, b"extra").unwrap();
    assert_eq!(s.load_events(G1).unwrap().len(), 3);
    assert_eq!(s.load_events(G2).unwrap().len(), 4);
    assert!(s.load_events(G1).unwrap().iter().all(|e| e.bytes[0] == 1));
    s.finish_game(G1, b"first wins", b"transcript").unwrap();
    assert_eq!(s.list_unfinished().unwrap(), vec![G2]);
    assert!(matches!(
        s.append_event(G1, 3, b""),
        Err(StoreError::GameFinished(G1))
    ));
    s.append_event(G2, 4, b"still open").unwrap();
}

fn finish_stores_result_and_transcript(b: &dyn Backend) {
    {
        let mut s = b.open();
        s.create_game(G1, b"", &own(), &[]).unwrap();
        assert_eq!(s.load_transcript(G1).unwrap(), None);
        s.finish_game(G1, b"draw", b"TRANSCRIPT").unwrap();
        assert!(matches!(
            s.finish_game(G1, b"again", b""),
            Err(StoreError::GameFinished(G1))
        ));
    }
    let s = b.open();
    assert_eq!(
        s.load_game(G1).unwrap().result.as_deref(),
        Some(&b"draw"[..])
    );
    assert_eq!(
        s.load_transcript(G1).unwrap().as_deref(),
        Some(&b"TRANSCRIPT"[..])
    );
    assert!(s.list_unfinished().unwrap().is_empty());
}

// G6 (issue 10 item 5): the log's last entry and the result are one
// transaction: refused together (here: a seq gap), stored together.
fn g6_last_entry_and_result_commit_together(b: &dyn Backend) {
    let mut s = b.open();
    s.create_game(G1, b"", &own(), &[]).unwrap();
    s.append_event(G1, 0, b"e0").unwrap();
    assert!(matches!(
        s.append_and_finish(G1, 2, b"last", b"r", b"T"),
        Err(StoreError::SeqGap { .. })
    ));
    assert_eq!(s.load_events(G1).unwrap().len(), 1);
    assert_eq!(s.load_transcript(G1).unwrap(), None, "nothing half-done");
    s.append_and_finish(G1, 1, b"last", b"r", b"T").unwrap();
    drop(s);
    let s = b.open();
    assert_eq!(s.load_events(G1).unwrap()[1].bytes, b"last");
    assert_eq!(s.load_transcript(G1).unwrap().as_deref(), Some(&b"T"[..]));
    assert!(s.list_unfinished().unwrap().is_empty());
}

// G6 (issue 10 item 8, issue 31): unfinished games are capped per
// creator key, per address and per network; a game counts against the
// server's pending total until it is under way (both seats), then
// against its under-way total; finished and expired games do not count.
fn g6_unfinished_games_are_capped_per_key_and_in_all(b: &dyn Backend) {
    let mut s = b.open();
    let caps = GameCaps {
        per_key: 2,
        per_address: 3,
        per_network: 4,
        total: 2,
        pending: 5,
    };
    let grouping = Grouping::default();
    let rec = |k: u8, ip: &str| NewGameRecord {
        creator: PublicKey([k; 32]),
        party: Some(grouping.party(ip.parse().unwrap())),
        created_ms: 1000,
        caps,
    };
    let g = |n: u8| GameId([n; 16]);
    let a = "10.0.0.1";
    s.create_game(g(1), b"", &rec(1, a), &[]).unwrap();
    s.create_game(g(2), b"", &rec(1, a), &[]).unwrap();
    let err = s.create_game(g(3), b"", &rec(1, a), &[]).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::TooManyGames {
                count: 2,
                limit: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("max_unfinished_games_per_key = 2"),
        "{err}"
    );
    // A fresh key from the same address: the address's share.
    s.create_game(g(3), b"", &rec(2, a), &[]).unwrap();
    let err = s.create_game(g(4), b"", &rec(3, a), &[]).unwrap_err();
    assert!(
        err.to_string()
            .contains("address 10.0.0.1/32 already has 3 unfinished games"),
        "{err}"
    );
    // Another address of the /24: the network's share.
    s.create_game(g(4), b"", &rec(3, "10.0.0.2"), &[]).unwrap();
    let err = s
        .create_game(g(5), b"", &rec(4, "10.0.0.3"), &[])
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("max_unfinished_games_per_network = 4"),
        "{err}"
    );
    // Another network: the pending total (5).
    s.create_game(g(5), b"", &rec(4, "10.9.0.1"), &[]).unwrap();
    let err = s
        .create_game(g(6), b"", &rec(5, "10.8.0.1"), &[])
        .unwrap_err();
    assert!(err.to_string().contains("max_pending_games = 5"), "{err}");
    // Games under way leave the pending total for their own.
    s.mark_started(g(1)).unwrap();
    s.create_game(g(6), b"", &rec(5, "10.8.0.1"), &[]).unwrap();
    s.mark_started(g(2)).unwrap();
    let err = s
        .create_game(g(7), b"", &rec(6, "10.7.0.1"), &[])
        .unwrap_err();
    assert!(
        err.to_string().contains("max_unfinished_games = 2"),
        "{err}"
    );
    let n = s
        .count_unfinished(
            &PublicKey([1; 32]),
            Some(&grouping.party(a.parse().unwrap())),
        )
        .unwrap();
    assert_eq!(
        (n.key, n.address, n.network, n.under_way, n.pending),
        (2, 3, 4, 2, 4)
    );
    // A finished game frees its place, and is listed among results.
    s.finish_game(g(1), b"r", b"t").unwrap();
    assert_eq!(s.list_finished(10).unwrap(), vec![g(1)]);
    assert!(s.list_finished(0).unwrap().is_empty());
    s.create_game(g(7), b"", &rec(6, "10.7.0.1"), &[]).unwrap();
    // Games that never started expire, free their places, and their
    // entries go.
    s.append_event(g(3), 0, b"genesis").unwrap();
    let expired = s.expire_unstarted(1001).unwrap();
    assert_eq!(expired.len(), 5, "{expired:?}");
    let n = s.count_unfinished(&PublicKey([1; 32]), None).unwrap();
    assert_eq!((n.key, n.under_way, n.pending), (1, 1, 0));
    assert_eq!(s.list_unfinished().unwrap(), vec![g(2)]);
    assert!(s.load_game(g(3)).unwrap().expired);
    assert!(s.load_events(g(3)).unwrap().is_empty());
    assert!(matches!(
        s.append_event(g(3), 1, b"late"),
        Err(StoreError::Expired(_))
    ));
    assert!(s.expire_unstarted(1001).unwrap().is_empty());
}

// G6 (issue 31): a game is created with its genesis in one transaction:
// stored together, numbered from 0, and the next append follows them.
fn g6_a_game_is_created_with_its_genesis(b: &dyn Backend) {
    let mut s = b.open();
    s.create_game(G1, b"m", &own(), &[b"g0".to_vec(), b"g1".to_vec()])
        .unwrap();
    s.append_event(G1, 2, b"e2").unwrap();
    let s = b.open();
    let log: Vec<Vec<u8>> = s
        .load_events(G1)
        .unwrap()
        .into_iter()
        .map(|e| e.bytes)
        .collect();
    assert_eq!(log, vec![b"g0".to_vec(), b"g1".to_vec(), b"e2".to_vec()]);
}

// G6 (issue 16): in a group commit, a refused append (unknown game, seq
// gap, duplicate, finished game) stores nothing and fails alone; the
// others of the batch, before and after it, are stored.
fn g6_a_refused_append_fails_alone_in_its_batch(b: &dyn Backend) {
    let mut s = b.open();
    s.create_game(G1, b"", &own(), &[]).unwrap();
    s.create_game(GameId([3; 16]), b"", &own(), &[]).unwrap();
    s.finish_game(GameId([3; 16]), b"r", b"t").unwrap();
    let a = |game_id: GameId, seq: u64, bytes: &[u8]| Append {
        game_id,
        seq,
        bytes: bytes.to_vec(),
    };
    let batch = s.append_batch(&[
        a(G1, 0, b"e0"),
        a(G2, 0, b"nobody"),
        a(G1, 2, b"gap"),
        a(G1, 1, b"e1"),
        a(G1, 1, b"again"),
        a(GameId([3; 16]), 0, b"late"),
        a(G1, 2, b"e2"),
    ]);
    assert!(batch[0].is_ok(), "{batch:?}");
    assert!(matches!(batch[1], Err(StoreError::UnknownGame(G2))));
    assert!(matches!(
        batch[2],
        Err(StoreError::SeqGap {
            expected: 1,
            got: 2,
            ..
        })
    ));
    assert!(batch[3].is_ok(), "{batch:?}");
    assert!(matches!(
        batch[4],
        Err(StoreError::DuplicateSeq { seq: 1, .. })
    ));
    assert!(matches!(batch[5], Err(StoreError::GameFinished(_))));
    assert!(batch[6].is_ok(), "{batch:?}");
    drop(s);
    let s = b.open();
    let bytes: Vec<Vec<u8>> = s
        .load_events(G1)
        .unwrap()
        .into_iter()
        .map(|e| e.bytes)
        .collect();
    assert_eq!(bytes, vec![b"e0".to_vec(), b"e1".to_vec(), b"e2".to_vec()]);
}

/// The value of a metric line of the handle's metrics (`name value`).
fn metric(h: &StoreHandle, name: &str) -> u64 {
    let text = h.metrics().encode(0);
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

// G6 (issue 16, group commit): appends queued while a commit runs are
// made durable by one transaction, each caller answered only after it;
// a bad append of the batch (a seq gap, a finished or unknown game)
// fails alone and stores nothing, the others are stored.
/// G6 (issue 30): a game task's entries in a row go to the store as one
/// job, one transaction: each is answered, a refused one (a gap) refuses
/// what follows it, and nothing of a refused run is stored.
fn g6_a_run_of_appends_is_one_commit_answered_each(b: &dyn Backend) {
    let store = b.open();
    runtime().block_on(async move {
        let h = StoreHandle::spawn(store).unwrap();
        let g = GameId([9; 16]);
        h.create_game(g, vec![], own(), vec![]).await.unwrap();
        let commits_before = metric(&h, "hexveil_store_commit_seconds_count");
        let run = vec![b"e0".to_vec(), b"e1".to_vec(), b"e2".to_vec()];
        let results = h.append_events(g, 0, run).await;
        assert_eq!(results.len(), 3);
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        let commits = metric(&h, "hexveil_store_commit_seconds_count") - commits_before;
        assert_eq!(commits, 1, "three appends, one transaction");
        assert!(h.append_events(g, 3, Vec::new()).await.is_empty());
        let results = h
            .append_events(g, 5, vec![b"x".to_vec(), b"y".to_vec()])
            .await;
        assert!(
            matches!(
                results[..],
                [
                    Err(StoreError::SeqGap {
                        expected: 3,
                        got: 5,
                        ..
                    }),
                    Err(_)
                ]
            ),
            "{results:?}"
        );
        let events = h.load_events(g).await.unwrap();
        let bytes: Vec<_> = events.iter().map(|e| e.bytes.clone()).collect();
        assert_eq!(bytes, [b"e0".to_vec(), b"e1".to_vec(), b"e2".to_vec()]);
        drop(h);
    });
}

fn g6_queued_appends_are_one_commit_and_a_bad_one_fails_alone(b: &dyn Backend) {
    // Opened outside the runtime: the PostgreSQL client blocks.
    let store = b.open();
    runtime().block_on(async move {
        let h = StoreHandle::spawn(store).unwrap();
        const GAMES: u8 = 40;
        let g = |n: u8| GameId([n; 16]);
        for n in 1..=GAMES + 1 {
            h.create_game(g(n), vec![], own(), vec![]).await.unwrap();
        }
        h.create_game(g(200), vec![], own(), vec![]).await.unwrap();
        h.finish_game(g(200), b"r".to_vec(), b"t".to_vec())
            .await
            .unwrap();
        let commits_before = metric(&h, "hexveil_store_commit_seconds_count");

        // Hold the storage thread so that every append below queues: the
        // held job must be running (taken off the queue, alone in its
        // batch) before they are sent, or a loaded machine may let the
        // thread take it together with them in one batch.
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (running, is_running) = tokio::sync::oneshot::channel::<()>();
        let held = {
            let h = h.clone();
            tokio::spawn(async move {
                h.run(move |_| {
                    let _ = running.send(());
                    wait.recv().ok();
                    Ok(())
                })
                .await
            })
        };
        is_running.await.expect("the held job runs");
        let mut good = Vec::new();
        for n in 1..=GAMES {
            let h = h.clone();
            good.push(tokio::spawn(async move {
                h.append_event(g(n), 0, vec![n]).await
            }));
        }
        let bad = [(g(GAMES + 1), 3), (g(200), 0), (g(201), 0)].map(|(id, seq)| {
            let h = h.clone();
            tokio::spawn(async move { h.append_event(id, seq, b"bad".to_vec()).await })
        });
        let queued = GAMES as usize + bad.len();
        for _ in 0..5000 {
            if h.queued() == queued {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(h.queued(), queued);
        release.send(()).unwrap();
        held.await.unwrap().unwrap();

        for t in good {
            t.await.unwrap().unwrap();
        }
        let [gap, finished, unknown] = bad;
        assert!(matches!(
            gap.await.unwrap(),
            Err(StoreError::SeqGap {
                expected: 0,
                got: 3,
                ..
            })
        ));
        assert!(matches!(
            finished.await.unwrap(),
            Err(StoreError::GameFinished(_))
        ));
        assert!(matches!(
            unknown.await.unwrap(),
            Err(StoreError::UnknownGame(_))
        ));
        let commits = metric(&h, "hexveil_store_commit_seconds_count") - commits_before;
        assert_eq!(commits, 1, "{queued} appends, one transaction");
        assert_eq!(metric(&h, "hexveil_store_appends_per_commit_count"), 1);
        for n in 1..=GAMES {
            let events = h.load_events(g(n)).await.unwrap();
            assert_eq!(events.len(), 1);
            assert_eq!(events[0].bytes, vec![n]);
        }
        assert!(h.load_events(g(GAMES + 1)).await.unwrap().is_empty());
        assert!(h.load_events(g(200)).await.unwrap().is_empty());
        drop(h);
    });
    // Durable: a reopened store has them all.
    let s = b.open();
    for n in 1..=40u8 {
        assert_eq!(s.load_events(GameId([n; 16])).unwrap().len(), 1);
    }
}

fn handle_runs_on_its_thread(b: &dyn Backend) {
    let store = b.open();
    runtime().block_on(async move {
        let h = StoreHandle::spawn(store).unwrap();
        h.create_game(G1, b"m".to_vec(), own(), vec![])
            .await
            .unwrap();
        h.append_event(G1, 0, b"e".to_vec()).await.unwrap();
        assert!(matches!(
            h.append_event(G1, 0, b"e".to_vec()).await,
            Err(StoreError::DuplicateSeq { .. })
        ));
        assert_eq!(h.load_events(G1).await.unwrap().len(), 1);
    });
}
