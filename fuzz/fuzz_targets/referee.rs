//! The referee over any body a key of the game signs, at every point of a
//! real game (G6): a player can sign anything, so whatever it signs must get
//! an answer (accepted, or refused changing nothing), never a panic. The
//! first input byte picks the log prefix (high 6 bits) and the author (low
//! 2 bits); the rest is the body, signed by the harness.
#![no_main]

#[path = "../../protocol-tests/tests/common/mod.rs"]
mod common;

use std::sync::OnceLock;

use hexveil_protocol::envelope::{Envelope, ENVELOPE_VERSION};
use hexveil_protocol::referee::Referee;
use libfuzzer_sys::fuzz_target;

/// The referee after each prefix of an honest game.
fn states() -> &'static Vec<Referee> {
    static STATES: OnceLock<Vec<Referee>> = OnceLock::new();
    STATES.get_or_init(|| {
        let g = common::honest_game(2);
        let (mut r, _) = Referee::new(&g.entries[0].envelope, &hexveil_fixtures::rulesets()).unwrap();
        let mut out = vec![r.clone()];
        for e in &g.entries[1..] {
            r.accept(&e.envelope).unwrap();
            out.push(r.clone());
        }
        out
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let states = states();
    let mut r = states[(sel as usize >> 2) % states.len()].clone();
    let ids = common::ids();
    let id = &ids[(sel & 3) as usize % 3];
    let env = Envelope {
        version: ENVELOPE_VERSION,
        game_id: r.game_id(),
        author: id.public_key(),
        seq: r.log().next_seq(),
        prev_head: r.log().head(),
        body: body.to_vec(),
    }
    .sign(id);
    let before = (r.log().clone(), r.awaiting().clone());
    if r.accept(&env).is_err() {
        // G6: a refused entry changes nothing.
        assert_eq!((r.log().clone(), r.awaiting().clone()), before);
    }
});
