//! Escrow mode (DESIGN 3.6): the owner gives the referee its secrets at
//! setup; the server's escrow agent answers openings, transitions and Daisy
//! Chain notes for it, the setup's legality is checked at once, and G1, G2
//! and G5 still hold (the transcript verifies clean).

mod common;

use common::{Game, Table, SEALED_B};
use hexveil_asl::Side;
use hexveil_protocol::encoding::Party;
use hexveil_protocol::message::{encode, Body, EscrowBody, Mode, SetupBody, ToClient};
use hexveil_protocol::referee::Awaiting;
use hexveil_protocol::session::{Output, Session};
use hexveil_protocol::verifier::verify;

fn authors_of(g: &Game, name: &str) -> Vec<Party> {
    (0..g.entries.len())
        .filter(|i| g.body(*i).name() == name)
        .map(|i| {
            let author = g.entries[i].envelope.envelope().author;
            Party::ALL[g
                .ids
                .iter()
                .position(|id| id.public_key() == author)
                .unwrap()]
        })
        .collect()
}

/// The entries' kinds and authors, in order.
/// The kinds of a game's entries, in order. An owner's openings with its
/// window of pad entries (message version 4, PROTOCOL.md 7.1) count as the
/// two things they carry: in Escrow mode the server writes the openings and
/// the owner still releases its own window (no pad seed is escrowed, G2).
fn shape(g: &Game) -> Vec<&'static str> {
    (0..g.entries.len())
        .flat_map(|i| match g.body(i) {
            Body::OpenAhead(_) => vec!["openings", "pad entries"],
            body => vec![body.name()],
        })
        .collect()
}

#[test]
fn design_3_6_the_server_opens_and_commits_for_the_escrowed_owner_g5() {
    let mut t = Table::with_mode(5, SEALED_B, Mode::Escrow);
    t.step_into_the_minefield();
    t.concede();
    let g = t.game();
    let opens = authors_of(&g, "openings");
    assert!(!opens.is_empty(), "the move asked B's minefields");
    assert!(
        opens.iter().all(|p| *p == Party::Server),
        "the owner is never asked to open in Escrow mode: {opens:?}"
    );
    let transitions = authors_of(&g, "transitions");
    assert!(transitions.iter().all(|p| *p == Party::Server));
    // Pad entries still come from the players (G2): no pad seed is escrowed.
    let entries = authors_of(&g, "pad entry");
    assert!(entries.contains(&Party::A) && entries.contains(&Party::B));
    assert_eq!(t.session.faults(), &[]);
    let verdict = verify(&g.bytes(), &hexveil_fixtures::rulesets());
    assert!(verdict.fault().is_none(), "{verdict:?}");
}

#[test]
fn g3_an_escrow_game_has_the_same_entries_as_a_live_game() {
    // The mode is public; within it, nothing about the hidden facts shows
    // in the number or kinds of entries: the same move writes the same
    // kinds of entries in the same order whoever answers for the owner.
    let mut live = Table::with_mode(5, SEALED_B, Mode::Live);
    let mut escrow = Table::with_mode(5, SEALED_B, Mode::Escrow);
    live.step_into_the_minefield();
    escrow.step_into_the_minefield();
    // Each roll is bound to the hash of the action it serves (beacon.rs), so
    // the two logs roll different dice once their histories differ (the
    // escrowed setups are other bytes), and what follows a roll may differ
    // by the dice alone. Up to the first roll of the move nothing does.
    let (live, escrow) = (shape(&live.game()), shape(&escrow.game()));
    let first_roll_of_the_move = |s: &[&str]| {
        let opened = s.iter().position(|e| *e == "openings").expect("an opening");
        opened
            + s[opened..]
                .iter()
                .position(|e| *e == "roll")
                .expect("a roll")
    };
    let cut = first_roll_of_the_move(&live);
    assert_eq!(cut, first_roll_of_the_move(&escrow), "{live:?}\n{escrow:?}");
    assert_eq!(live[..=cut], escrow[..=cut]);
}

#[test]
fn b28_1_design_3_6_an_illegal_escrowed_setup_is_refused_at_once() {
    // One 12-factor minefield over B's OB budget (48 hidden factors, the
    // example spends 37): in a Live game only the end reveal proves it; in
    // an Escrow game the setup is refused when sent, naming the violation,
    // and changes nothing.
    let sealed = SEALED_B.replace(
        "{ hex = \"3E4\", strength = 12 },",
        "{ hex = \"3E4\", strength = 12 },\n  { hex = \"3B2\", strength = 12 },",
    );
    let t = Table::start(5, &sealed, Mode::Escrow);
    let [(side, reason)] = t.rejections.as_slice() else {
        panic!("one refusal expected: {:?}", t.rejections)
    };
    assert_eq!(*side, Side::B);
    assert!(reason.contains("escrow is refused"), "{reason}");
    assert!(reason.contains("illegal setup"), "{reason}");
    assert!(reason.contains("budget"), "{reason}");
    assert_eq!(
        t.session.referee().awaiting(),
        &Awaiting::Setups {
            missing: vec![Side::B]
        }
    );
    assert!(t
        .game()
        .find(|p, b| p == Party::B && b.name() == "setup")
        .is_none());
}

/// The session restored from the log up to B's setup, and B's setup body.
fn before_b_setup(mode: Mode) -> (Session, Game, Body) {
    let t = Table::with_mode(5, SEALED_B, mode);
    let g = t.game();
    let i = g
        .find(|p, b| p == Party::B && b.name() == "setup")
        .expect("B set up");
    let body = g.body(i);
    let prefix = g.truncate(i);
    let (session, _) = common::restore(&prefix.entries).unwrap();
    (session, prefix, body)
}

fn refusal(out: &[Output]) -> &str {
    match out {
        [Output::ToPlayer(Side::B, ToClient::Rejected(r))] => &r.reason,
        other => panic!("expected one refusal to B, got {other:?}"),
    }
}

#[test]
fn g4_a_live_setup_carrying_an_escrow_is_refused() {
    // Secrets sent to the server in a Live game would weaken the owner's
    // own G4 without its game having agreed to it.
    let reason = refusal_of_setup(Mode::Live, |s| {
        s.escrow = Some(EscrowBody {
            layers: Vec::new(),
            notes_seed: [1; 32],
            orders: Vec::new(),
        })
    });
    assert!(reason.contains("this game is Live"), "{reason}");
}

/// B's honest setup of a `mode` game, changed by `edit`, sent in its
/// place: the session's refusal.
fn refusal_of_setup(mode: Mode, edit: impl FnOnce(&mut SetupBody)) -> String {
    let (mut session, prefix, body) = before_b_setup(mode);
    let Body::Setup(mut setup) = body else {
        unreachable!()
    };
    edit(&mut setup);
    let env = prefix.envelope(Party::B, encode(&Body::Setup(setup)));
    let head = session.referee().log().head();
    let out = session.submit(Side::B, env, 0);
    assert_eq!(session.referee().log().head(), head, "nothing changed");
    refusal(&out).to_string()
}

#[test]
fn design_3_6_an_escrow_game_setup_without_its_escrow_is_refused() {
    let reason = refusal_of_setup(Mode::Escrow, |s| s.escrow = None);
    assert!(reason.contains("must carry"), "{reason}");
}

#[test]
fn g1_an_escrow_that_does_not_match_the_roots_is_refused() {
    // The escrow must be the secrets behind the committed roots: a wrong
    // seed re-seals to another root, so the server could not answer.
    let reason = refusal_of_setup(Mode::Escrow, |s| {
        s.escrow.as_mut().unwrap().layers[0].seed[0] ^= 1
    });
    assert!(reason.contains("(G1)"), "{reason}");
}

#[test]
fn g6_an_escrow_game_restored_anywhere_writes_what_the_server_owed() {
    // Cut the log after every entry of the move, as a crash would, and
    // restore: the session writes exactly the entries the server wrote next
    // (Ed25519 signatures are deterministic, so byte for byte), including
    // the escrow agent's openings and transitions.
    let mut t = Table::with_mode(5, SEALED_B, Mode::Escrow);
    let before = t.session.log().len();
    t.step_into_the_minefield();
    let g = t.game();
    let mut checked = 0;
    for cut in before..g.entries.len() {
        let (_, owed) = common::restore(&g.entries[..cut]).unwrap();
        let written = common::persisted(&owed);
        assert_eq!(
            written.as_slice(),
            &g.entries[cut..cut + written.len()],
            "cut at {cut}"
        );
        let server_next = g.entries[cut].envelope.envelope().author == g.ids[2].public_key();
        assert_eq!(!written.is_empty(), server_next, "cut at {cut}");
        if written.iter().any(|e| {
            Body::decode(&e.envelope.envelope().body).is_ok_and(|b| b.name() == "openings")
        }) {
            checked += 1;
        }
    }
    assert!(checked > 0, "some cut fell before an escrowed opening");
}
