//! Cheating and bad input over the wire (G6): each is refused with a clear
//! error and changes nothing, and the game goes on to a clean transcript.
//! Stalling is attributed: a withheld opening or pad entry loses the game
//! after the answer timeout (G2).
//!
//! A login replayed on another connection, random bytes before login and
//! frames over the limit on a bare connection are covered by the server's
//! own network tests (`server/tests/network.rs`); here they are sent while
//! a real hexveil game goes on.

use std::time::Duration;

use hexveil::driver::GameEvent;
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, Side};
use hexveil_net::wire::{ErrorCode, ServerMessage};
use hexveil_protocol::encoding::Digest;
use hexveil_protocol::envelope::{Envelope, SignedEnvelope, ENVELOPE_VERSION};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{encode, Body, Mode, OpenedFact, Prompt, ToServer};
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_tests::{
    move_into, new_key, noise, secrets_a, secrets_b, start_server, step_into_the_minefield, units,
    Endpoint, Table, Who, PAD_LEN, WAIT,
};

/// Pumps until `who` gets a refusal from now on; returns it.
async fn refusal(t: &mut Table, who: Who) -> (Option<ErrorCode>, String) {
    let from = t.log.len();
    t.pump(|t| {
        t.log[from..].iter().any(|(w, e)| {
            *w == who && matches!(e, GameEvent::Rejected(_) | GameEvent::ServerError { .. })
        })
    })
    .await
    .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    t.log[from..]
        .iter()
        .find_map(|(w, e)| match (w, e) {
            (w, GameEvent::Rejected(r)) if *w == who => Some((None, r.reason.clone())),
            (w, GameEvent::ServerError { code, message }) if *w == who => {
                Some((Some(*code), message.clone()))
            }
            _ => None,
        })
        .expect("found")
}

/// Opens a game on `ep` (with a spectator if `watch`), brings side A to its
/// Movement Phase, holds back `staller`'s machine answers and declares A's
/// `action` (a move into B's minefields); pumps until `staller` has an
/// answer held back, and takes it (it is not sent).
async fn stall_a_move(
    ep: &Endpoint,
    watch: bool,
    action: Action,
    staller: Side,
) -> (Table, SignedEnvelope) {
    stall_an_action(ep, watch, Phase::Movement, action, staller).await
}

/// [`stall_a_move`] with A's `action` declared in its `phase`.
async fn stall_an_action(
    ep: &Endpoint,
    watch: bool,
    phase: Phase,
    action: Action,
    staller: Side,
) -> (Table, SignedEnvelope) {
    let mut t = Table::open(ep, secrets_a(), secrets_b(), PAD_LEN, watch).await;
    t.end_phase_until(Side::A, phase).await;
    t.seat(staller).set_auto_answer(false);
    t.a.act(action).unwrap();
    t.pump(|t| t.seat_ref(staller).withheld().is_some())
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    let held = t
        .seat(staller)
        .take_withheld()
        .expect("an answer held back");
    (t, held)
}

/// An envelope as `signer` would sign it, claiming `author`.
fn envelope(
    game: hexveil_net::wire::GameId,
    author: &Identity,
    signer: &Identity,
    seq: u64,
    head: Digest,
    body: &Body,
) -> SignedEnvelope {
    Envelope {
        version: ENVELOPE_VERSION,
        game_id: game,
        author: author.public_key(),
        seq,
        prev_head: head,
        body: encode(body),
    }
    .sign(signer)
}

/// Concedes for A, plays the game out, verifies the transcript clean and
/// checks that none of `refused` is in it.
async fn finish_clean(
    t: &mut Table,
    refused: &[SignedEnvelope],
) -> hexveil_protocol::verifier::Summary {
    if !t.over() {
        t.a.concede().unwrap();
        t.pump(|t| t.over())
            .await
            .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    }
    let file = t.transcript().await;
    let parsed = Transcript::parse(&file).unwrap();
    for bad in refused {
        assert!(
            parsed
                .entries
                .iter()
                .all(|e| e.envelope.bytes() != bad.bytes()
                    || e.envelope.signature() != bad.signature()),
            "a refused entry is in the log"
        );
    }
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => s,
        Verdict::Fault(f) => panic!("fault: {f}"),
    }
}

// G6, G5: forged (another key, or A's name signed by another key),
// replayed, out-of-turn and spectator entries, and garbage game payloads are
// refused with a clear reason and change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_forged_replayed_out_of_turn_spectator_and_garbage_entries_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let key_a = new_key();
    let mut t = Table::open_with_keys(
        &ep,
        &key_a,
        &new_key(),
        secrets_a(),
        secrets_b(),
        PAD_LEN,
        Mode::Live,
        true,
    )
    .await;
    let game = t.game_id;
    let me = Identity::from_pkcs8(&key_a).unwrap();
    let mallory = Identity::from_pkcs8(&new_key()).unwrap();
    let last = t.a.last_update().unwrap().clone();
    assert_eq!(last.prompt, Prompt::Act);
    let seq0 = t.seq();
    let mut refused = Vec::new();

    // A well-formed action signed by a key that is not a player's.
    let forged = envelope(
        game,
        &mallory,
        &mallory,
        last.seq + 1,
        last.head,
        &Body::Act(Action::EndPhase.into()),
    );
    t.a.submit(forged.clone()).unwrap();
    let (_, why) = refusal(&mut t, Who::A).await;
    assert!(why.contains("not signed with your key"), "{why}");
    refused.push(forged);

    // A's name, Mallory's signature (the same signed bytes as A's honest
    // action below: only the signature tells them apart).
    let forged = envelope(
        game,
        &me,
        &mallory,
        last.seq + 1,
        last.head,
        &Body::Act(Action::EndPhase.into()),
    );
    t.a.submit(forged.clone()).unwrap();
    let (_, why) = refusal(&mut t, Who::A).await;
    assert!(why.contains("signature"), "{why}");
    refused.push(forged);

    // B is not phasing: its action is out of turn.
    let out_of_turn = t.b.player_mut().act(Action::EndPhase).unwrap();
    t.b.submit(out_of_turn.clone()).unwrap();
    let (_, why) = refusal(&mut t, Who::B).await;
    assert!(
        why.contains("may not") || why.contains("phasing") || why.contains("turn"),
        "{why}"
    );
    refused.push(out_of_turn);

    // A spectator submits A's honest action: the shell refuses it.
    let honest = t.a.player_mut().act(Action::EndPhase).unwrap();
    let spectator = t.spectator.as_ref().unwrap();
    spectator
        .send_game(encode(&ToServer::Submit(honest.clone())))
        .unwrap();
    let (code, why) = refusal(&mut t, Who::Spectator).await;
    assert_eq!(code, Some(ErrorCode::SpectatorCannotAct), "{why}");

    // Garbage as a game payload from a seated player.
    t.a.send_game(vec![0xff; 40]).unwrap();
    let (code, why) = refusal(&mut t, Who::A).await;
    assert_eq!(code, Some(ErrorCode::Rejected), "{why}");
    assert!(why.contains("decode"), "{why}");

    // Nothing changed: the log is where it was, and A's honest action,
    // signed on that head, is the next entry.
    assert_eq!(t.seq(), seq0);
    t.a.submit(honest.clone()).unwrap();
    t.settle_after_next()
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    // Logged at seq0 + 1: its ruling places it (no receipt of its own,
    // message version 6), and A was shown it there.
    assert!(t
        .a
        .player()
        .witness()
        .entries()
        .any(|(seq, hash)| seq == seq0 + 1 && hash == honest.entry_hash()));

    // The same envelope again is a replay.
    let seq1 = t.seq();
    t.a.submit(honest.clone()).unwrap();
    let (_, why) = refusal(&mut t, Who::A).await;
    assert!(
        why.contains("seq") || why.contains("replay") || why.contains("head"),
        "{why}"
    );
    assert_eq!(t.seq(), seq1);

    let summary = finish_clean(&mut t, &refused).await;
    assert_eq!(summary.end.unwrap().winner, Some(Side::B));
    server.shutdown().await;
}

// G1, G5, G6: an opening with tampered content, or of another location, is
// refused with a signed refusal; the server records the lie against B
// (issue 10 item 4: a broken commitment is visible in the transcript), not
// the opening of another location (issue 24: it proves nothing against B);
// the honest opening afterwards is accepted and the move resolves; the
// verdict blames B for the lie.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_wrong_openings_are_refused_and_the_honest_one_then_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let (mut t, honest) = stall_a_move(&ep, false, step_into_the_minefield(), Side::B).await;
    let Ok(Body::OpenAhead(ahead)) = Body::decode(&honest.envelope().body) else {
        panic!("B's first answer to a move is an opening, with its window (PROTOCOL.md 7.1)")
    };
    let facts = &ahead.openings;
    // A lie in the opening, with B's own window of pad entries.
    let with_window = |opening: OpenedFact| {
        Body::OpenAhead(hexveil_protocol::message::OpenAhead {
            openings: vec![opening],
            entries: ahead.entries.clone(),
        })
    };
    let OpenedFact::Leaf(opening) = &facts[0] else {
        panic!("a leaf first (the exit hex, B28.412)")
    };
    let seq0 = t.seq();
    let mut refused = Vec::new();

    // The content changed (G1: the leaf no longer matches B's root).
    let mut tampered = opening.clone();
    tampered.content[0] ^= 0x5a;
    let env =
        t.b.player_mut()
            .sign(&with_window(OpenedFact::Leaf(tampered)));
    t.b.submit(env.clone()).unwrap();
    let (_, why) = refusal(&mut t, Who::B).await;
    assert!(why.contains("opening"), "{why}");
    refused.push(env);
    t.pump(|t| t.b.last_seq() == Some(seq0 + 1))
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));

    // Another location's key in place of the one asked: refused, but not
    // recorded against B (issue 24): an opening that answers another
    // request is what an honest owner sends when a dishonest server shows
    // it a false prompt, so it proves nothing against B.
    let mut elsewhere = opening.clone();
    elsewhere.location = "3E4".into();
    let env =
        t.b.player_mut()
            .sign(&with_window(OpenedFact::Leaf(elsewhere)));
    t.b.submit(env.clone()).unwrap();
    let (_, why) = refusal(&mut t, Who::B).await;
    assert!(why.contains("answers another request"), "{why}");
    t.pump(|t| t.a.last_seq() == Some(seq0 + 1))
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    let recorded = t
        .events_of(Who::A)
        .filter(|e| matches!(e, GameEvent::Update(u) if u.entry == "refused answer recorded"))
        .count();
    assert_eq!(
        recorded, 1,
        "the lie is in the log, seen by all; the other answer is not"
    );
    assert_eq!(refused.len(), 1);

    // The honest opening, on top of the records, goes through; B answers
    // by itself again.
    t.b.set_auto_answer(true);
    let honest = t.b.player_mut().sign(&Body::OpenAhead(ahead.clone()));
    t.b.submit(honest).unwrap();
    t.settle()
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    assert!(t.a.may_act(), "the move resolved and A may act again");
    let a_saw: String = t
        .events_of(Who::A)
        .filter_map(|e| match e {
            GameEvent::Update(u) => Some(hexveil_tests::events_text(u)),
            _ => None,
        })
        .collect();
    assert!(a_saw.contains("ApPresent"), "{a_saw}");
    t.a.concede().unwrap();
    t.pump(|t| t.over())
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    let file = t.transcript().await;
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Fault(f) => {
            assert_eq!(
                (f.blame, f.entry),
                (
                    hexveil_protocol::verifier::Blame::Side(Side::B),
                    Some(seq0 + 1)
                ),
                "{f}"
            );
            assert!(
                matches!(f.what, hexveil_protocol::verifier::FaultKind::BadAnswer(_)),
                "{f}"
            );
        }
        Verdict::Clean(s) => panic!("B's lies are proven, not clean: {s}"),
    }
    server.shutdown().await;
}

/// Pumps until `staller` sees the server's timeout entry (G2), then lets
/// its machine answer again (it still reveals at the end) and plays the
/// game out.
async fn play_out_after_timeout(t: &mut Table, staller: Side, who: Who) {
    t.pump(|t| {
        t.log
            .iter()
            .any(|(w, e)| *w == who && matches!(e, GameEvent::Update(u) if u.entry == "timeout"))
    })
    .await
    .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    t.seat(staller).set_auto_answer(true);
    t.pump(|t| t.over())
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
}

/// The answer timeout of the staller tests: every honest answer must beat
/// it too, so it leaves room for a loaded CI machine.
const STALL_TIMEOUT: Duration = Duration::from_secs(5);

// G2, G6: B withholds the opening a move needs; after the answer timeout
// the server records the timeout and the game is decided against B. The
// transcript still verifies clean.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g2_withheld_opening_loses_the_game_for_the_owner() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), STALL_TIMEOUT).await;
    let squad_steps = move_into(&[units::GER_SQUAD], "3E4");
    let (mut t, _never_sent) = stall_a_move(&ep, true, squad_steps, Side::B).await;
    assert!(matches!(
        t.b.last_update().unwrap().prompt,
        Prompt::Open(_) | Prompt::OpenAhead { .. }
    ));
    // B's machine still publishes its secrets at the end.
    play_out_after_timeout(&mut t, Side::B, Who::B).await;
    let summary = finish_clean(&mut t, &[]).await;
    let end = summary.end.expect("ended");
    assert_eq!(end.winner, Some(Side::A), "{}", end.reason);
    server.shutdown().await;
}

// G2, G6: B withholds its window of pad entries for the beacon round of
// A's FFE attack (B28.62: the DR comes before any opening, so B is asked
// for its window alone, PROTOCOL.md 7.1); after the answer timeout B loses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g2_withheld_pad_entries_lose_the_game_for_the_staller() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), STALL_TIMEOUT).await;
    let ffe = Action::Ffe {
        hex: "3E4".parse().unwrap(),
        fp: 36,
        kind: hexveil_asl::model::action::FfeKind::HeConcentration,
    };
    let (mut t, _never_sent) = stall_an_action(&ep, true, Phase::PrepFire, ffe, Side::B).await;
    assert!(
        matches!(t.b.last_update().unwrap().prompt, Prompt::Window { .. }),
        "{:?}",
        t.b.last_update().unwrap().prompt
    );
    play_out_after_timeout(&mut t, Side::B, Who::B).await;
    let summary = finish_clean(&mut t, &[]).await;
    assert_eq!(summary.end.expect("ended").winner, Some(Side::A));
    server.shutdown().await;
}

// G6: random bytes in a frame and a frame claiming 1 GiB, each on its own
// connection, get clear errors (the second closes its connection) while a
// real game on other connections goes on undisturbed to a clean transcript.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g6_noise_and_a_gigabyte_frame_elsewhere_leave_a_game_undisturbed() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;

    let mut x = ep.client().await;
    let body = noise(11, 64);
    let mut framed = (body.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&body);
    x.send_raw_bytes(framed).unwrap();
    match x.recv().await.unwrap() {
        ServerMessage::Error { code, message } => {
            assert_eq!(code, ErrorCode::Malformed, "{message}")
        }
        other => panic!("expected an error, got {other:?}"),
    }

    let mut y = ep.client().await;
    y.send_raw_bytes((1u32 << 30).to_be_bytes().to_vec())
        .unwrap();
    match y.recv().await.unwrap() {
        ServerMessage::Error { code, message } => {
            assert_eq!(code, ErrorCode::FrameTooLarge);
            assert!(message.contains("1073741824"), "{message}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    assert!(y.recv().await.is_err(), "the connection is closed");

    // The game goes on: A's move into the minefield resolves as usual.
    t.act(Side::A, step_into_the_minefield()).await;
    // The noisy connection still works for well-formed requests.
    x.send(&hexveil_net::wire::ClientMessage::Ping { nonce: 5 })
        .unwrap();
    assert_eq!(x.recv().await.unwrap(), ServerMessage::Pong { nonce: 5 });
    for who in [Who::A, Who::B, Who::Spectator] {
        assert_eq!(t.rejections(who), Vec::<String>::new());
    }
    finish_clean(&mut t, &[]).await;
    server.shutdown().await;
}
