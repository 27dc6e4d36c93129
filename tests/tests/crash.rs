//! Crashes and lost connections (G6): nothing acknowledged is lost when the
//! server process is killed in the middle of an adjudication, and a player
//! whose connection drops in the middle of the reveals resumes where it
//! was. Both games finish with a transcript that verifies clean (G5).

use std::collections::BTreeMap;
use std::sync::Arc;

use hexveil::driver::GameEvent;
use hexveil_asl::turn::Phase;
use hexveil_asl::Side;
use hexveil_net::wire::{GameId, PublicKey};
use hexveil_protocol::message::{Body, Prompt};
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_server::config::ServerSettings;
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::shares::Party;
use hexveil_server::sqlite::SqliteStore;
use hexveil_server::store::{
    GameCounts, GameStore, NewGameRecord, StoreError, StoredEvent, StoredGame,
};
use hexveil_server::Server;
use hexveil_tests::{
    move_into, secrets_a, secrets_b, start_server, units, Endpoint, ServerProcess, Table, Who,
    PAD_LEN, WAIT,
};

fn fail((w, e): (Who, hexveil::driver::DriverError)) {
    panic!("{w:?}: {e}")
}

/// How B's pad entries for the roll (its window, PROTOCOL.md 7.1) stand
/// when the server is killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InFlight {
    /// Still held by B: sent only after the restart.
    Held,
    /// Sent just before the kill: durable or not, by luck of the race.
    Racing,
}

/// A moves `mover` into 3E4 (hidden A-P 12, B28.41); B holds its answer
/// that carries its pad entries for the attack roll (its openings with its
/// window); the server is
/// SIGKILLed with that entry held or in flight; a new server process is
/// started on the same data directory and address; both players reconnect
/// and resume; the roll and the ruling complete. Returns the new server and
/// every (seq, entry hash) receipted before the kill.
async fn kill_mid_roll(
    t: &mut Table,
    mut server: ServerProcess,
    data_dir: &std::path::Path,
    mover: hexveil_asl::model::unit::UnitId,
    entry: InFlight,
) -> (
    ServerProcess,
    BTreeMap<u64, hexveil_protocol::encoding::Digest>,
) {
    let ep = server.endpoint.clone();
    t.b.set_auto_answer(false);
    let action = t.a.act(move_into(&[mover], "3E4")).unwrap();
    loop {
        t.pump(|t| t.b.withheld().is_some())
            .await
            .unwrap_or_else(fail);
        match &t.b.last_update().unwrap().prompt {
            Prompt::Open(_) => {
                t.b.release_withheld().unwrap();
            }
            // B's pad entries for the attack's roll: with its openings or
            // alone (PROTOCOL.md 7.1).
            Prompt::OpenAhead { .. } | Prompt::Window { .. } | Prompt::Entry { .. } => break,
            other => panic!("B was asked {other:?} before the roll"),
        }
    }
    // Both seats have seen the log up to what B holds back; every entry of
    // theirs in it is receipted (a receipt comes before the update).
    let seq = t.seq();
    t.pump(|t| t.a.last_seq() == Some(seq) && t.b.last_seq() == Some(seq))
        .await
        .unwrap_or_else(fail);
    assert!(
        t.a.receipts()
            .iter()
            .any(|r| r.entry_hash == action.entry_hash()),
        "the mover's action is receipted"
    );
    let receipted =
        t.a.receipts()
            .iter()
            .chain(t.b.receipts())
            .map(|r| (r.seq, r.entry_hash))
            .collect();

    t.b.set_auto_answer(true);
    if entry == InFlight::Racing {
        t.b.release_withheld().unwrap();
    }
    server.kill();

    let server = ServerProcess::spawn(data_dir, &ep.addr.to_string(), 60);
    assert_eq!(
        server.endpoint.fingerprint, ep.fingerprint,
        "same certificate"
    );
    t.a.reconnect().await.unwrap();
    t.b.reconnect().await.unwrap();
    if entry == InFlight::Held {
        assert!(t.b.release_withheld().unwrap(), "B still held its entry");
    }
    // The roll completes, the ruling comes, A may act again.
    t.settle().await.unwrap_or_else(fail);
    assert!(t.a.may_act(), "{:?}", t.a.last_update().map(|u| &u.prompt));
    let ruling = t
        .events_of(Who::A)
        .find_map(|e| match e {
            GameEvent::Update(u) if u.entry == "ruling" && u.seq > seq => Some(u.clone()),
            _ => None,
        })
        .expect("the move's ruling after the restart");
    assert!(format!("{:?}", hexveil_fixtures::asl_events(&ruling.events)).contains("ApAttack"));
    (server, receipted)
}

// G6: the server process is SIGKILLed twice while a move into a minefield
// is being adjudicated: the mover's action is receipted, and B's answer
// with its pad entries for the attack roll is first held (sent after the
// restart), then in flight at the kill (durable or not). After
// each restart on the same data directory both players reconnect and
// resume; every receipted entry is in the log at its seq, each
// adjudication completes, and the transcript verifies clean.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_sigkill_mid_adjudication_keeps_every_receipted_entry() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), "127.0.0.1:0", 60);
    let ep = server.endpoint.clone();
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, false).await;
    t.end_phase_until(Side::A, Phase::Movement).await;
    let (server, mut receipted) =
        kill_mid_roll(&mut t, server, dir.path(), units::GER_SQUAD, InFlight::Held).await;
    let (mut server, more) = kill_mid_roll(
        &mut t,
        server,
        dir.path(),
        units::GER_LEADER,
        InFlight::Racing,
    )
    .await;
    receipted.extend(more);

    t.a.concede().unwrap();
    t.pump(|t| t.over()).await.unwrap_or_else(fail);
    let file = t.transcript().await;
    let log = Transcript::parse(&file).unwrap();
    for (seq, hash) in &receipted {
        let entry = &log.entries[*seq as usize];
        assert_eq!(entry.envelope.envelope().seq, *seq);
        assert_eq!(
            &entry.envelope.entry_hash(),
            hash,
            "receipted entry {seq} kept"
        );
    }
    // B's pad entry is in the log exactly once.
    let b_entries = log
        .entries
        .iter()
        .filter(|e| {
            matches!(
                Body::decode(&e.envelope.envelope().body),
                Ok(Body::Entry(_))
            )
        })
        .count();
    assert!(b_entries >= 2, "A's and B's pad entries for the roll");
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => assert_eq!(s.end.unwrap().winner, Some(Side::B)),
        Verdict::Fault(f) => panic!("fault after the crash: {f}"),
    }
    server.kill();
}

// G6: B's connection drops after the end of the game, while A reveals; B
// reconnects, is shown A's reveal with its own prompt, reveals, and the
// log closes clean.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_a_player_disconnected_mid_reveal_resumes_and_reveals() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;
    t.a.concede().unwrap();
    t.pump(|t| t.b.last_update().is_some_and(|u| u.entry == "end"))
        .await
        .unwrap_or_else(fail);
    t.b.disconnect();
    // A reveals while B is away.
    let a_reveal =
        t.a.wait_for(|e| matches!(e, GameEvent::Update(u) if u.entry == "reveal"))
            .await
            .unwrap();
    let GameEvent::Update(a_reveal) = a_reveal else {
        unreachable!()
    };
    // B's reveal is awaited next, not the server: A's is receipted.
    assert!(t.a.receipts().iter().any(|r| r.seq == a_reveal.seq));
    assert!(!t.b.is_closed());

    t.b.reconnect().await.unwrap();
    t.pump(|t| t.over()).await.unwrap_or_else(fail);
    // B saw A's reveal after resuming, with its own reveal prompt.
    assert!(t.events_of(Who::B).any(
        |e| matches!(e, GameEvent::Update(u) if u.seq == a_reveal.seq && u.prompt == Prompt::Reveal)
    ));
    let file = t.transcript().await;
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => {
            assert_eq!(s.audited, vec![Side::A, Side::B], "{s}");
            assert_eq!(s.end.unwrap().winner, Some(Side::B));
        }
        Verdict::Fault(f) => panic!("fault: {f}"),
    }
    server.shutdown().await;
}

/// SQLite as a store written in two steps would leave it when killed
/// between them: the log's last entry is stored, the result and transcript
/// are not (how servers before issue 10 item 5 stored the end of a game).
struct CutBeforeTheResult(SqliteStore);

impl GameStore for CutBeforeTheResult {
    fn create_game(
        &mut self,
        g: GameId,
        m: &[u8],
        n: &NewGameRecord,
        log: &[Vec<u8>],
    ) -> Result<(), StoreError> {
        self.0.create_game(g, m, n, log)
    }
    fn count_unfinished(
        &self,
        k: &PublicKey,
        party: Option<&Party>,
    ) -> Result<GameCounts, StoreError> {
        self.0.count_unfinished(k, party)
    }
    fn append_event(&mut self, g: GameId, seq: u64, b: &[u8]) -> Result<(), StoreError> {
        self.0.append_event(g, seq, b)
    }
    fn load_game(&self, g: GameId) -> Result<StoredGame, StoreError> {
        self.0.load_game(g)
    }
    fn load_events_from(&self, g: GameId, from: u64) -> Result<Vec<StoredEvent>, StoreError> {
        self.0.load_events_from(g, from)
    }
    fn list_unfinished(&self) -> Result<Vec<GameId>, StoreError> {
        self.0.list_unfinished()
    }
    fn finish_game(&mut self, g: GameId, r: &[u8], t: &[u8]) -> Result<(), StoreError> {
        self.0.finish_game(g, r, t)
    }
    fn load_transcript(&self, g: GameId) -> Result<Option<Vec<u8>>, StoreError> {
        self.0.load_transcript(g)
    }
    fn append_and_finish(
        &mut self,
        g: GameId,
        seq: u64,
        bytes: &[u8],
        _: &[u8],
        _: &[u8],
    ) -> Result<(), StoreError> {
        self.0.append_event(g, seq, bytes)?;
        Err(StoreError::Backend {
            operation: "store the result",
            detail: "killed between the last entry and the result".into(),
        })
    }
    fn mark_started(&mut self, g: GameId) -> Result<(), StoreError> {
        self.0.mark_started(g)
    }
    fn expire_unstarted(&mut self, before: u64) -> Result<Vec<GameId>, StoreError> {
        self.0.expire_unstarted(before)
    }
}

// G6 (issue 10 item 5): a game whose log was closed (the end and both
// reveals stored) but whose result and transcript were not, when the
// server died, is finished when the server comes back: its transcript can
// be fetched at once, by anyone, and verifies clean; it is no longer open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_a_log_closed_before_a_crash_is_finished_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let settings = ServerSettings::new(dir.path().to_owned(), "127.0.0.1:0".parse().unwrap());
    let (secrets, _) = ServerSecrets::load_or_create(dir.path()).unwrap();
    let factory = Arc::new(LiveGameFactory::new(Arc::new(secrets)));
    let store = CutBeforeTheResult(SqliteStore::open(dir.path()).unwrap());
    let server = Server::start_with_store(settings, factory, Box::new(store))
        .await
        .unwrap();
    let ep = Endpoint {
        addr: server.local_addr(),
        fingerprint: server.fingerprint(),
    };
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, false).await;
    let game_id = t.game_id;
    t.a.concede().unwrap();
    // The last reveal is stored, the result is not: the game stops, and
    // its seats are told it is no longer served there (issue 25: a client
    // then looks for it again).
    match t.pump(|_| false).await {
        Err((_, hexveil::driver::DriverError::Moved { to: None, why })) => {
            assert!(why.contains("storage failed"), "{why}")
        }
        other => panic!("the seats were not told the game stopped: {other:?}"),
    }
    server.shutdown().await;

    let (server, ep) = start_server(dir.path(), WAIT).await;
    assert_eq!(server.restored_games(), 1, "left open by the crash");
    let file = ep.client().await.fetch_transcript(game_id).await.unwrap();
    let log = Transcript::parse(&file).unwrap();
    let reveals = log
        .entries
        .iter()
        .filter(|e| {
            matches!(
                Body::decode(&e.envelope.envelope().body),
                Ok(Body::Reveal(_))
            )
        })
        .count();
    assert_eq!(reveals, 2, "the log was closed before the crash");
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => assert_eq!(s.end.unwrap().winner, Some(Side::B)),
        Verdict::Fault(f) => panic!("fault: {f}"),
    }
    assert!(server
        .lobby()
        .store()
        .list_unfinished()
        .await
        .unwrap()
        .is_empty());
    server.shutdown().await;
}
