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

use common::g6_check_every_position as check_every_position;
use hexveil_protocol::message::Mode;
use hexveil_protocol::referee::Awaiting;

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
    let (r, kinds) = check_every_position(&g);
    assert_eq!(r.awaiting(), &Awaiting::Closed);
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
    let (r, kinds) = check_every_position(&t.game());
    assert_eq!(r.awaiting(), &Awaiting::Closed);
    assert_deep_refusals(&kinds, &["BadEscrow", "BadOpening", "BadRuling"]);
}
