//! G5: the verdict a client states at the end of a game (at the terminal,
//! on its `--ui` page, in `hexveil watch`) is this game's only when the
//! transcript the server sent is the log the client was shown. A dishonest
//! server can publish a clean log other than the one it showed live, and
//! the verifier, judging the file by itself, calls it clean. Real games:
//! the real [`Session`](hexveil_protocol::session::Session) and real
//! players ([`common::Table`]).

mod common;

use common::{Table, SEALED_B};
use hexveil::ending::Ending;
use hexveil_core::Side;
use hexveil_protocol::message::ToClient;
use hexveil_protocol::session::Output;
use hexveil_protocol::witness::{Seen, Witness};

/// The log shown live: A (the server's accomplice) concedes at once, so B
/// wins.
fn a_concedes() -> Table {
    let mut t = Table::new(5, SEALED_B);
    t.concede();
    t
}

/// The log published instead, from the same genesis: A steps into B's
/// minefield, and the server writes B's timeout on its opening, so A
/// wins. A clean log by itself: the timeout is the server's word.
fn b_times_out() -> Table {
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let out = t.declare(Side::A, hexveil_fixtures::step_into_the_minefield());
    t.queue.extend(out);
    // Every update delivered; B's answers never reach the session.
    while let Some(o) = t.queue.pop_front() {
        if let Output::ToPlayer(side, ToClient::Update(u)) = o {
            let answer = t.players.get_mut(&side).unwrap().on_update(&u).unwrap();
            if let (Some(env), Side::A) = (answer, side) {
                t.send(side, env);
            }
        }
    }
    let out = t.session.tick(1 << 40);
    assert!(!out.is_empty(), "the timeout is written");
    t.queue.extend(out);
    t.run();
    assert!(t.session.is_closed());
    t
}

/// A spectator's witness of every public update of `t`.
fn spectator(t: &Table) -> Witness {
    let mut w = Witness::new(common::GAME, None);
    for u in &t.spectated {
        assert!(matches!(w.check(u), Ok(Seen::New(_) | Seen::Held { .. })));
    }
    w
}

// G5: side B was shown A's concession; the server publishes the log where
// A stepped into B's minefield and B timed out instead. Its verdict is
// CLEAN (A wins), and a client that
// printed it as its game's verdict, and put it on its page as "your client
// checked the transcript", would state a result it was never shown. The
// client says the transcript is not the log it was shown, and names the
// verdict as that other log's. The same for a spectator. The honest
// transcript is still stated as the verdict (the control).
#[test]
fn g5_a_clean_transcript_of_another_log_is_not_stated_as_this_games_verdict() {
    let live = a_concedes();
    let published = b_times_out().game().bytes();
    let honest = live.game().bytes();
    for (who, witness) in [
        ("side A", live.players[&Side::A].witness().clone()),
        ("side B", live.players[&Side::B].witness().clone()),
        ("a spectator", spectator(&live)),
    ] {
        let other = Ending::check(&published, &witness);
        let words = other.verdict_words();
        println!("{who}, the other log: {words}");
        assert_eq!(other.code, 0, "the other log is clean by itself: {words}");
        assert!(other.verdict.to_string().starts_with("CLEAN"), "{words}");
        assert!(!other.is_the_log_shown(), "{who}: {:?}", other.audit);
        assert!(
            words.starts_with("NOT THIS GAME'S VERDICT: the transcript the server sent is not the log this client was shown"),
            "{who}: {words}"
        );
        let shown = Ending::check(&honest, &witness);
        let words = shown.verdict_words();
        println!("{who}, the log shown: {words}");
        assert!(shown.is_the_log_shown(), "{who}: {:?}", shown.audit);
        assert_eq!(words, shown.verdict.to_string());
        assert!(words.starts_with("CLEAN"), "{words}");
    }
}
