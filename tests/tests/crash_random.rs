//! SIGKILL at random points of whole games (G6; issue 10 item 6).
//!
//! The real `hexveil-server` binary plays whole games (a Live one and an
//! Escrow one, alternately): pads, setups (the escrow handed over), phases,
//! a move into a hidden minefield with its openings and rolls, a
//! concession, both reveals and the closed log. The process is SIGKILLed at
//! random moments of every game (the first kill may land in the middle of
//! the setups, escrow included) and once more just after the end is
//! announced, while the reveals and the result are being stored (the
//! window of item 5); each time a new process is started on the same data
//! directory and address and both players reconnect and resume. At the end:
//!
//! - every entry a player had receipted is in the log at its seq, once;
//! - every update a player was shown (server-written entries among them:
//!   rolls, rulings, the end) is the log's: the same head after that seq,
//!   so nothing a player saw was rewritten or rolled again;
//! - no entry is in the log twice and no roll number twice;
//! - the game finished: its transcript is fetched and verifies clean.
//!
//! Cost: `HEXVEIL_CRASH_GAMES` games (default 4) with
//! `HEXVEIL_CRASH_KILLS` random kills each (default 4) plus the kill at the
//! end (a few seconds in all); `HEXVEIL_CRASH_SEED` replays a run (the seed is printed). A longer
//! run: `HEXVEIL_CRASH_GAMES=20 HEXVEIL_CRASH_KILLS=6 cargo test -p
//! hexveil-tests --test crash_random -- --nocapture`, with
//! `HEXVEIL_SERVER_BIN` pointing at a release build to kill the binary
//! operators run.

use std::time::Duration;

use hexveil::driver::{GameEvent, SeatSetup};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, Side};
use hexveil_net::new_game::NewGame;
use hexveil_protocol::message::Mode;
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_tests::kept::assert_acknowledged_kept;
use hexveil_tests::ServerProcess as Proc;
use hexveil_tests::{new_key, scenario_toml, secrets_a, secrets_b, Table, PAD_LEN};
use tokio::time::{sleep_until, Instant};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: reproducible from the printed seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

const FLAGS: &[&str] = &["--answer-timeout-secs", "120"];

/// Kills the server, starts a new one on the same directory and address,
/// and has both players reconnect and resume.
async fn kill_and_resume(server: &mut Proc, dir: &std::path::Path, t: &mut Table) {
    let addr = server.endpoint.addr.to_string();
    server.kill();
    *server = Proc::spawn_with(dir, &addr, FLAGS);
    for side in [Side::A, Side::B] {
        t.seat(side)
            .reconnect()
            .await
            .unwrap_or_else(|e| panic!("side {side} reconnects: {e}"));
    }
    // A reconnect acts on the views re-sent at once (the seats' logs move
    // on) and queues them: the table reads them now, so that its phase is
    // the log's before it decides anything (it once moved in the Defensive
    // Fire Phase on a phase it had not read yet, and waited for ever).
    while t.a.pending_events() + t.b.pending_events() > 0 {
        t.pump_one()
            .await
            .unwrap_or_else(|(who, e)| panic!("{who:?} after the reconnect: {e}"));
    }
}

/// Plays one whole game with kills; returns how many kills it took.
async fn one_game(rng: &mut Rng, mode: Mode, kills: u64) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Proc::spawn_with(dir.path(), "127.0.0.1:0", FLAGS);
    let ep = server.endpoint.clone();
    let ruleset = hexveil_fixtures::ruleset();
    let (key_a, key_b) = (new_key(), new_key());
    let mut ca = ep.client_with(&key_a).await;
    let cb = ep.client_with(&key_b).await;
    let players = [ca.public_key().unwrap(), cb.public_key().unwrap()];
    let game_id = ca
        .create_game(&NewGame {
            ruleset: ruleset.id().into(),
            ruleset_version: ruleset.version(),
            scenario_toml: scenario_toml(),
            players,
            mode,
            pad_len: PAD_LEN,
            answer_timeout_secs: None,
        })
        .await
        .unwrap();
    let seat = |secrets| SeatSetup {
        ruleset: ruleset.clone(),
        scenario_toml: scenario_toml(),
        secrets,
        pad_len: PAD_LEN,
        mode,
    };
    let a = ca.join(game_id, seat(secrets_a())).await.unwrap();
    let b = cb.join(game_id, seat(secrets_b())).await.unwrap();
    let mut t = Table {
        game_id,
        a,
        b,
        spectator: None,
        log: Vec::new(),
        phase: None,
    };

    // A whole game takes a few hundred milliseconds on loopback: the first
    // kill comes within the setups (escrow included), the later ones
    // within 150 ms of each restart.
    let mut kills_left = kills;
    let mut killed = 0;
    let mut killed_at = Vec::new();
    let mut next_kill = (kills_left > 0).then(|| Instant::now() + ms(rng.below(100)));
    let mut end_kill_done = false;
    let mut moved = false;
    let mut acted_at: Option<u64> = None;
    let mut steps = 0;
    while !t.over() {
        steps += 1;
        assert!(steps < 20_000, "the game does not progress");
        if !end_kill_done
            && t.log
                .iter()
                .any(|(_, e)| matches!(e, GameEvent::Update(u) if u.entry == "end"))
        {
            // The end is announced: the reveals and the result are being
            // stored now (item 5's window).
            end_kill_done = true;
            next_kill = Some(Instant::now() + ms(rng.below(40)));
        }
        let seq = t.seq();
        if acted_at.is_none_or(|s| seq > s) && t.quiet_after(seq) {
            let side = t.ender();
            let in_a_movement = matches!(t.phase, Some((_, Side::A, Phase::Movement)));
            let sent = if !in_a_movement && !moved {
                t.seat(side).act(Action::EndPhase)
            } else if !moved {
                moved = true;
                t.a.act(hexveil_tests::step_into_the_minefield())
            } else {
                t.a.concede()
            };
            sent.unwrap();
            acted_at = Some(seq);
        }
        let kill_at = next_kill;
        tokio::select! {
            r = t.pump_one() => {
                if let Err((who, e)) = r {
                    let last: Vec<String> = t
                        .log
                        .iter()
                        .rev()
                        .take(40)
                        .map(|(w, e)| format!("{w:?} {}", describe(e)))
                        .collect();
                    panic!(
                        "{who:?}: {e} (after {killed} kills, at seen entries {killed_at:?}; phase {:?}); the last events, newest first:\n{}",
                        t.phase,
                        last.join("\n")
                    );
                }
            }
            _ = sleep_until(kill_at.unwrap_or_else(Instant::now)), if kill_at.is_some() => {
                killed_at.push(t.seq());
                kill_and_resume(&mut server, dir.path(), &mut t).await;
                killed += 1;
                kills_left = kills_left.saturating_sub(1);
                next_kill = (kills_left > 0).then(|| Instant::now() + ms(rng.below(150)));
            }
        }
    }

    let file = t.transcript().await;
    let log = Transcript::parse(&file).unwrap();
    let kept = assert_acknowledged_kept(&t, &log);
    assert!(kept.rolls > 0, "the move into the minefield rolled");
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => assert_eq!(s.end.unwrap().winner, Some(Side::B)),
        Verdict::Fault(f) => panic!("fault after {killed} kills: {f}"),
    }
    eprintln!(
        "{mode:?} game: {killed} SIGKILLs (players had seen entry {killed_at:?}), {} entries, {} receipts, {} updates checked, {} rolls",
        kept.entries, kept.receipts, kept.heads, kept.rolls
    );
    killed
}

/// One event in a line, for a failure's story.
fn describe(e: &GameEvent) -> String {
    match e {
        GameEvent::Update(u) | GameEvent::Replayed(u) => format!(
            "update seq {} {} prompt {:?}{} events {:?}",
            u.seq,
            u.entry,
            u.prompt,
            if matches!(e, GameEvent::Replayed(_)) {
                " (replayed)"
            } else {
                ""
            },
            u.events
                .iter()
                .filter_map(|e| hexveil_asl::ruleset::event_from_kernel(e).ok())
                .map(|e| format!("{:?}", e.kind).chars().take(60).collect::<String>())
                .collect::<Vec<_>>()
        ),
        GameEvent::Receipt(r) => format!("receipt seq {}", r.seq),
        GameEvent::Rejected(r) => format!("rejected seq {}: {}", r.seq, r.reason),
        GameEvent::PromptRefused(r) => format!("prompt refused: {}", r.reason),
        other => format!("{other:?}").chars().take(120).collect(),
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

// G6 (issue 10 item 6): see the module documentation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_sigkill_at_random_points_of_whole_games_loses_nothing() {
    let games = env_num("HEXVEIL_CRASH_GAMES", 4);
    let kills = env_num("HEXVEIL_CRASH_KILLS", 4);
    let seed = env_num(
        "HEXVEIL_CRASH_SEED",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1,
    );
    eprintln!("crash_random: seed {seed} (HEXVEIL_CRASH_SEED={seed} replays the kill times)");
    let mut rng = Rng(seed);
    let mut total = 0;
    for g in 0..games {
        let mode = if g % 2 == 0 { Mode::Live } else { Mode::Escrow };
        total += one_game(&mut rng, mode, kills).await;
    }
    eprintln!("crash_random: {games} games, {total} SIGKILLs, every game finished and verified");
}
