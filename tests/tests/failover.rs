//! Failover between server nodes sharing one PostgreSQL (issue 13, G6).
//!
//! Three real `hexveil-server` processes on loopback share one database
//! (a throwaway cluster, `hexveil_fixtures::postgres`) and one certificate
//! and secrets (copied from the first node's data directory, as
//! docs/DEPLOYMENT.md says), with a lease of [`LEASE_SECS`]. Two games are
//! played, one created on node 1, one on node 2. While they are in
//! progress:
//!
//! - a spectator joins game 1 through node 3, which does not serve it: the
//!   lobby answers `ServedElsewhere` and the client follows it to node 1
//!   (the one pinned fingerprint holds there);
//! - node 1 is SIGKILLed and node 2 SIGSTOPped;
//! - after the lease time both games' players reconnect to node 3, which
//!   takes both games over and resumes them from the log;
//! - node 2 is SIGCONTed: its lease was taken over (the lease row names
//!   node 3 with a new token), so it can append nothing (fencing; the
//!   store's tests in `server/src/postgres.rs` show the refusal itself);
//! - both games finish on node 3. Every entry a player had receipted is in
//!   the log at its seq, once; every update a player was shown is the
//!   log's; no entry twice; the transcript verifies clean.
//!
//! Printed: games moved, time from the kill/stop to both seats resumed on
//! node 3 (the lease time included), entries checked.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, Side};
use hexveil_protocol::message::Mode;
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_tests::kept::assert_acknowledged_kept;
use hexveil_tests::ServerProcess as Proc;
use hexveil_tests::Table;

/// The lease of a game to a node, in seconds.
const LEASE_SECS: u64 = 2;

/// The files every node of a league shares (docs/DEPLOYMENT.md).
const SHARED_FILES: &[&str] = &[
    "tls-cert.der",
    "tls-key.pk8",
    "transcript-key.pk8",
    "pad-master.key",
];

fn node(dir: &Path, url: &str, id: &str) -> Proc {
    let lease = LEASE_SECS.to_string();
    Proc::spawn_with(
        dir,
        "127.0.0.1:0",
        &[
            "--answer-timeout-secs",
            "120",
            "--store",
            url,
            "--node-id",
            id,
            "--lease-secs",
            &lease,
        ],
    )
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

/// One game as its players drive it: end phases until A's Movement, step
/// into the minefield, then concede (crash_random.rs's script).
struct Play {
    t: Table,
    moved: bool,
    acted_at: Option<u64>,
}

impl Play {
    /// Plays until the log reaches `seq` or the game is over.
    async fn until(&mut self, seq: u64) {
        let mut steps = 0;
        while !self.t.over() && self.t.seq() < seq {
            steps += 1;
            assert!(steps < 20_000, "the game does not progress");
            let now = self.t.seq();
            if self.acted_at.is_none_or(|s| now > s) && self.t.quiet_after(now) {
                let side = self.t.ender();
                let in_a_movement = matches!(self.t.phase, Some((_, Side::A, Phase::Movement)));
                let sent = if !in_a_movement && !self.moved {
                    self.t.seat(side).act(Action::EndPhase)
                } else if !self.moved {
                    self.moved = true;
                    self.t.a.act(hexveil_tests::step_into_the_minefield())
                } else {
                    self.t.a.concede()
                };
                sent.unwrap();
                self.acted_at = Some(now);
            }
            if let Err((who, e)) = self.t.pump_one().await {
                panic!("{who:?}: {e}");
            }
        }
    }

    /// Reconnects both seats to `addr` (another node).
    async fn move_to(&mut self, addr: std::net::SocketAddr) {
        for side in [Side::A, Side::B] {
            self.t
                .seat(side)
                .reconnect_to(addr)
                .await
                .unwrap_or_else(|e| panic!("side {side} resumes on the new node: {e}"));
        }
    }
}

/// Checks a finished game as crash_random.rs does; returns the number of
/// entries checked.
async fn check(p: &mut Play) -> usize {
    let t = &mut p.t;
    let file = t.transcript().await;
    let log = Transcript::parse(&file).unwrap();
    let kept = assert_acknowledged_kept(t, &log);
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => assert_eq!(s.end.unwrap().winner, Some(Side::B)),
        Verdict::Fault(f) => panic!("the moved game's transcript: {f}"),
    }
    kept.entries
}

/// Whether every lease of these nodes has expired (by the database's
/// clock).
fn leases_expired(url: &str, nodes: &[&str]) -> bool {
    let url = url.to_owned();
    let nodes: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        c.query_one(
            "SELECT coalesce(bool_and(expires_at < clock_timestamp()), true)
             FROM leases WHERE node = ANY($1)",
            &[&nodes],
        )
        .unwrap()
        .get(0)
    })
    .join()
    .unwrap()
}

/// The lease row of a game: (node, token). On a thread of its own: the
/// blocking client must not run on the test's runtime.
fn lease_of(url: &str, game: hexveil_protocol::GameId) -> (String, i64) {
    let url = url.to_owned();
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let row = c
            .query_one(
                "SELECT node, token FROM leases WHERE game_id = $1",
                &[&&game.0[..]],
            )
            .unwrap();
        (row.get(0), row.get(1))
    })
    .join()
    .unwrap()
}

// Issue 13 (G6): see the module documentation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_games_move_to_another_node_and_nothing_acknowledged_is_lost() {
    let Some(cluster) = hexveil_fixtures::postgres::shared("failover") else {
        return;
    };
    let url = cluster.fresh_database().unwrap();
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let n1 = node(dirs[0].path(), &url, "n1");
    for d in &dirs[1..] {
        for f in SHARED_FILES {
            std::fs::copy(dirs[0].path().join(f), d.path().join(f)).unwrap();
        }
    }
    let n2 = node(dirs[1].path(), &url, "n2");
    let n3 = node(dirs[2].path(), &url, "n3");
    assert_eq!(
        n1.endpoint.fingerprint, n3.endpoint.fingerprint,
        "one league certificate"
    );

    let open = |ep| async move {
        Play {
            t: Table::open_in(ep, Mode::Live, false).await,
            moved: false,
            acted_at: None,
        }
    };
    let mut g1 = open(&n1.endpoint).await;
    let mut g2 = open(&n2.endpoint).await;
    let s1 = g1.t.seq();
    let s2 = g2.t.seq();
    g1.until(s1 + 4).await;
    g2.until(s2 + 4).await;
    assert!(!g1.t.over() && !g2.t.over(), "both games in progress");

    // Any node's lobby names the owner; the client follows it.
    let watcher = n3.endpoint.client().await.watch(g1.t.game_id).await;
    assert!(watcher.is_ok(), "followed to node 1: {:?}", watcher.err());
    drop(watcher);

    // Node 1 dies, node 2 is paused.
    let mut n1 = n1;
    n1.kill();
    signal(n2.pid(), "-STOP");
    let stopped = Instant::now();
    // Reconnected as soon as the dead and the paused node's leases ran out
    // (before, node 3 would send the players back to them).
    while !leases_expired(&url, &["n1", "n2"]) {
        assert!(
            stopped.elapsed() < Duration::from_secs(LEASE_SECS * 5),
            "leases never expired"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let expired = stopped.elapsed();
    g1.move_to(n3.endpoint.addr).await;
    g2.move_to(n3.endpoint.addr).await;
    let taken_over = stopped.elapsed();
    assert_eq!(lease_of(&url, g1.t.game_id).0, "n3");
    let (owner, token) = lease_of(&url, g2.t.game_id);
    assert_eq!(owner, "n3");
    assert!(
        token >= 2,
        "the takeover raised the fencing token ({token})"
    );

    // The paused node comes back: its lease was taken over; it must write
    // nothing while both games go on and finish on node 3.
    signal(n2.pid(), "-CONT");
    g1.until(u64::MAX).await;
    g2.until(u64::MAX).await;
    let checked = check(&mut g1).await + check(&mut g2).await;
    let (owner, after) = lease_of(&url, g2.t.game_id);
    assert_eq!(
        (owner.as_str(), after),
        ("n3", token),
        "node 2 took nothing back"
    );
    eprintln!(
        "failover: 2 games moved (one from a SIGKILLed node, one from a SIGSTOPped one) to node 3, both seats of both games resumed {:.2} s after the kill (lease {LEASE_SECS} s; leases ran out after {:.2} s); {checked} entries checked; fencing token of the stopped node's game {token}",
        taken_over.as_secs_f64(),
        expired.as_secs_f64()
    );
    drop(n2);
}
