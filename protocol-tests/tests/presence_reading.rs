//! Issue 27 item 1 (G2, G5): who a game waits for is the client's own
//! reading of the signed log it checked; the server's presence message is
//! unsigned, and where it contradicts the log the wait line follows the
//! log and says the server claimed otherwise. Real games (the real
//! [`Session`](hexveil_protocol::session::Session) and real players).

mod common;

use common::{Table, GAME, SEALED_B};
use hexveil::presence::wait_line;
use hexveil_core::Side;
use hexveil_net::wire::{Awaited, Presence};
use hexveil_protocol::reading::{LogReading, Stage};
use hexveil_protocol::referee::Awaiting;
use hexveil_protocol::witness::{Seen, Witness};

/// The server's word: `what` awaited of `side`, both clients connected.
fn claim(side: Option<Side>, what: &str) -> Presence {
    Presence {
        side_a_connected: true,
        side_b_connected: false,
        spectators: 0,
        awaited: Some(Awaited {
            side,
            what: what.into(),
            forfeits_at_ms: None,
        }),
    }
}

/// A spectator's reading of the first `n` public updates.
fn reading_after(t: &Table, n: usize) -> LogReading {
    let mut witness = Witness::new(GAME, None);
    let mut reading = LogReading::new();
    for u in &t.spectated[..n] {
        if let Seen::New(new) = witness.check(u).unwrap() {
            new.iter().for_each(|c| reading.follow(c));
        }
    }
    reading
}

// G2/G5: at each stage of a real game, the player's own reading of the log
// agrees with the referee the server runs wherever the log pins who is
// awaited.
#[test]
fn g2_g5_the_log_reading_follows_the_game_stage_by_stage() {
    let mut t = Table::new(5, SEALED_B);
    let seen = t.spectated.len();
    let stages: Vec<Stage> = (1..=seen).map(|n| reading_after(&t, n).stage()).collect();
    println!("{stages:?}");
    assert!(stages.iter().any(|s| matches!(s, Stage::Pads { .. })));
    assert!(stages.contains(&Stage::Setups {
        missing: vec![Side::B]
    }));
    assert_eq!(t.players[&Side::A].reading().stage(), Stage::Play);
    let line = wait_line(
        &claim(Some(Side::A), "side A to move"),
        Some(Side::A),
        0,
        t.players[&Side::A].reading(),
    )
    .unwrap();
    println!("{line}");
    assert_eq!(
        line,
        "waiting for the next move (the signed log); side A to move (you) (the server's word)"
    );
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
    // Into the minefield: between the declaration and its ruling the log
    // shows A's action being resolved.
    let before = t.spectated.len();
    t.step_into_the_minefield();
    let resolving: Vec<Stage> = (before + 1..=t.spectated.len())
        .map(|n| reading_after(&t, n).stage())
        .collect();
    println!("{resolving:?}");
    // An action the server rules at once is shown with its ruling (the
    // ruling places it, message version 6): no stage between. The step
    // into the minefield asks B for openings and rolls: between it and
    // its ruling the log shows A's action being resolved.
    assert!(resolving
        .iter()
        .any(|s| matches!(s, Stage::Resolving { actor: Side::A, .. })));
    assert_eq!(resolving.last(), Some(&Stage::Play));
    t.concede();
    let reading = t.players[&Side::A].reading();
    println!("{:?} {:?}", reading.stage(), t.session.referee().awaiting());
    assert_eq!(reading.stage(), Stage::Reveals { missing: vec![] });
    assert!(matches!(t.session.referee().awaiting(), Awaiting::Closed));
    // A server that still says it waits for a move is contradicted.
    let line = wait_line(
        &claim(Some(Side::B), "side B to move"),
        Some(Side::A),
        0,
        reading,
    )
    .unwrap();
    println!("{line}");
    assert_eq!(
        line,
        "waiting for nobody (the log is complete) (the signed log; the server claimed to \
         wait for side B to move, which the log contradicts)"
    );
}

// G2/G5: a server that says it waits for side A's machine while the signed
// log shows side B's setup missing is contradicted: the line names side B's
// setup, from the log, and says what the server claimed.
#[test]
fn g2_g5_a_presence_that_contradicts_the_log_is_shown_as_the_servers_claim() {
    let t = Table::new(5, SEALED_B);
    let n = (1..=t.spectated.len())
        .find(|&n| {
            reading_after(&t, n).stage()
                == Stage::Setups {
                    missing: vec![Side::B],
                }
        })
        .expect("a point where only side B's setup is missing");
    let reading = reading_after(&t, n);
    let lie = claim(
        Some(Side::A),
        "side A's machine to answer its Daisy Chain opportunity 1",
    );
    let line = wait_line(&lie, Some(Side::A), 0, &reading).unwrap();
    println!("{line}");
    assert_eq!(
        line,
        "waiting for side B to send a setup (the signed log; the server claimed to wait \
         for side A's machine to answer its Daisy Chain opportunity 1, which the log \
         contradicts); side B's client is NOT connected (the server's word)"
    );
    // A spectator's log may be behind the server's word by the spectator
    // delay: the line says what the log shows and that it may be held back.
    let line = wait_line(&lie, None, 0, &reading).unwrap();
    println!("{line}");
    assert!(
        line.starts_with(
            "waiting for side B to send a setup (the signed log; the server claimed to wait \
             for side A's machine to answer its Daisy Chain opportunity 1, which the log \
             shown so far does not show: it may be held back by the spectator delay)"
        ),
        "{line}"
    );
    // The honest word agrees: the log alone names the wait.
    let honest = claim(Some(Side::B), "side B to send a setup");
    let line = wait_line(&honest, Some(Side::A), 0, &reading).unwrap();
    println!("{line}");
    assert_eq!(
        line,
        "waiting for side B to send a setup (the signed log); side B's client is NOT \
         connected (the server's word)"
    );
}

// G2/G5: in play the log does not pin who answers (the engine and hidden
// state decide), so the server's naming is shown as its word; a server
// that says it waits for nobody while the log is open is contradicted.
#[test]
fn g2_g5_in_play_the_server_names_the_answer_as_its_word_and_cannot_hide_the_wait() {
    let t = Table::new(5, SEALED_B);
    let reading = t.players[&Side::A].reading();
    let line = wait_line(&claim(Some(Side::B), "side B to move"), None, 0, reading).unwrap();
    println!("{line}");
    assert_eq!(
        line,
        "waiting for the next move (the signed log); side B to move; side B's client is \
         NOT connected (the server's word)"
    );
    let mut nobody = claim(None, "");
    nobody.awaited = None;
    let line = wait_line(&nobody, Some(Side::A), 0, reading).unwrap();
    println!("{line}");
    assert_eq!(
        line,
        "waiting for the next move (the signed log; the server claimed that it waits for \
         nobody, which the log contradicts)"
    );
    // DESIGN 5: under a spectator delay a spectator is told nobody (the wait
    // now would run ahead of its delayed log): withheld, not a claim, so
    // the line is the log's alone.
    let line = wait_line(&nobody, None, 0, reading).unwrap();
    println!("{line}");
    assert_eq!(line, "waiting for the next move (the signed log)");
}
