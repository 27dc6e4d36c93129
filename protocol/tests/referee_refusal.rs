//! G6: a refused entry changes nothing. At every position of a real game
//! log (pads, the Secret dr for Dummies, setups, actions with openings,
//! beacon rolls and rulings, the end, the reveals), several wrong entries
//! are offered to the referee first: a replayed one, one with a forged
//! signature, the honest body signed by the wrong party, the honest body
//! with a byte changed (re-signed, so the referee's own checks must catch
//! it, often half-way through applying it), and other entries of the same
//! log out of their turn. Each refusal must leave the referee exactly as it
//! was, and the honest entry must still be accepted after them.

mod common;

use std::collections::BTreeSet;

use common::Game;
use hexveil_protocol::encoding::Party;
use hexveil_protocol::envelope::{Envelope, SignedEnvelope, ENVELOPE_VERSION};
use hexveil_protocol::message::Mode;
use hexveil_protocol::referee::{Awaiting, Referee, RefereeError};

/// Everything the referee shows, and its whole state in `Debug` form (which
/// includes the private state: pending rounds, wanted facts, roots...).
#[derive(Debug, PartialEq)]
struct Observed {
    next_seq: u64,
    head: String,
    awaiting: Awaiting,
    faults: String,
    result: String,
    engine_state: String,
    current_seq: Option<u64>,
    round: String,
    whole: String,
}

fn observe(r: &Referee) -> Observed {
    Observed {
        next_seq: r.log().next_seq(),
        head: format!("{:?}", r.log().head()),
        awaiting: r.awaiting().clone(),
        faults: format!("{:?}", r.faults()),
        result: format!("{:?}", r.result()),
        engine_state: format!("{:?}", r.engine().map(|e| e.state())),
        current_seq: r.current_seq(),
        round: format!("{:?}", r.round_position()),
        whole: format!("{r:?}"),
    }
}

/// The referee after the first `n` entries of `g`.
fn replay(g: &Game, n: usize) -> Referee {
    let (mut r, _) = Referee::new(&g.entries[0].envelope).unwrap();
    for e in &g.entries[1..n] {
        r.accept(&e.envelope).unwrap();
    }
    r
}

/// The party that signed entry `i`.
fn author(g: &Game, i: usize) -> Party {
    let key = g.entries[i].envelope.envelope().author;
    Party::ALL[g.ids.iter().position(|id| id.public_key() == key).unwrap()]
}

/// `body` signed by `who` as the entry at the end of the first `i` entries.
fn sign_at(g: &Game, i: usize, who: Party, body: Vec<u8>) -> SignedEnvelope {
    let last = g.entries[i - 1].receipt.new_head;
    Envelope {
        version: ENVELOPE_VERSION,
        game_id: g.game,
        author: g.ids[who.index()].public_key(),
        seq: i as u64,
        prev_head: last,
        body,
    }
    .sign(&g.ids[who.index()])
}

/// Wrong entries to offer in place of entry `i`.
fn wrong_entries(g: &Game, i: usize) -> Vec<SignedEnvelope> {
    let honest = g.entries[i].envelope.envelope();
    let who = author(g, i);
    let body = honest.body.clone();
    let mut out = vec![
        // A replay of the entry before.
        g.entries[i - 1].envelope.clone(),
    ];
    // A forged signature: the honest envelope signed by another key.
    let forger = Party::ALL[(who.index() + 1) % 3];
    out.push(honest.clone().sign(&g.ids[forger.index()]));
    // The honest body from the other parties.
    for other in Party::ALL.into_iter().filter(|p| *p != who) {
        out.push(sign_at(g, i, other, body.clone()));
    }
    // The honest body with one byte changed, at several places.
    let mut places = vec![0, 1, body.len() / 2, body.len() * 3 / 4, body.len() - 1];
    places.retain(|at| *at < body.len());
    places.dedup();
    for at in places {
        let mut bad = body.clone();
        bad[at] ^= 0x01;
        out.push(sign_at(g, i, who, bad));
    }
    // Nearby entries of the log, out of their turn.
    for j in [i.saturating_sub(2), i - 1, i + 1, i + 2] {
        if j == 0 || j >= g.entries.len() {
            continue;
        }
        let (other_who, other_body) = (author(g, j), g.entries[j].envelope.envelope().body.clone());
        if other_who != who || other_body != body {
            out.push(sign_at(g, i, other_who, other_body));
        }
    }
    out
}

fn variant(e: &RefereeError) -> String {
    format!("{e:?}")
        .split(['(', ' ', '{'])
        .next()
        .unwrap()
        .to_string()
}

/// Runs the G6 check over the whole of `g`; returns the kinds of refusal
/// seen.
fn check_every_position(g: &Game) -> BTreeSet<String> {
    let mut kinds = BTreeSet::new();
    let mut r = replay(g, 1);
    for i in 1..g.entries.len() {
        let mut refused = 0;
        for wrong in wrong_entries(g, i) {
            let before = observe(&r);
            match r.accept(&wrong) {
                Err(e) => {
                    refused += 1;
                    let after = observe(&r);
                    assert!(
                        before == after,
                        "G6: refusing a wrong entry {i} ({e}) changed the referee:\nbefore {before:#?}\nafter {after:#?}"
                    );
                    kinds.insert(variant(&e));
                }
                // Some wrong entries are acceptable (a reveal with a
                // wrong byte is a proven fault, not a refusal): start over.
                Ok(_) => r = replay(g, i),
            }
        }
        assert!(
            refused >= 4,
            "entry {i}: only {refused} wrong entries were refused"
        );
        r.accept(&g.entries[i].envelope)
            .unwrap_or_else(|e| panic!("entry {i} is refused after the wrong ones were: {e}"));
    }
    assert_eq!(r.awaiting(), &Awaiting::Closed);
    assert_eq!(
        format!("{r:?}"),
        format!("{:?}", replay(g, g.entries.len())),
        "the referee that refused wrong entries ends where a plain replay does"
    );
    kinds
}

/// Refusals that happen inside the rules, after the referee began to apply
/// the entry, must all be seen, or the test would not test the rollback.
fn assert_deep_refusals(kinds: &BTreeSet<String>, expected: &[&str]) {
    for k in expected {
        assert!(
            kinds.contains(*k),
            "no {k} refusal was exercised: {kinds:?}"
        );
    }
}

#[test]
fn g6_a_refused_entry_changes_nothing_at_any_position_of_a_live_game() {
    let g = common::honest_game(12);
    let kinds = check_every_position(&g);
    assert_deep_refusals(
        &kinds,
        &[
            "Envelope",
            "Body",
            "OutOfTurn",
            "BadSetup",
            "BadOpening",
            "BadEntry",
            "BadRoll",
            "BadRuling",
            "BadEnd",
        ],
    );
}

#[test]
fn g6_a_refused_entry_changes_nothing_at_any_position_of_an_escrow_game() {
    let mut t = common::Table::with_mode(5, common::SEALED_B, Mode::Escrow);
    t.step_into_the_minefield();
    for _ in 0..4 {
        t.end_phase();
    }
    t.concede();
    let kinds = check_every_position(&t.game());
    assert_deep_refusals(&kinds, &["BadEscrow", "BadOpening", "BadRuling"]);
}
