//! Windowed public rolls, message version 4 (PROTOCOL.md 7.1): the actor's
//! nonce, the opponent's window of pad entries released with its openings,
//! unused entries burned, and the refusals that keep G2.

mod common;

use common::{Table, SEALED_B};
use hexveil_asl::Side;
use hexveil_protocol::encoding::Party;
use hexveil_protocol::message::{Body, Prompt, ToClient, MAX_WINDOW};
use hexveil_protocol::session::Output;
use hexveil_protocol::verifier::verify;

/// A concedes, both reveal, and the transcript verifies clean (G5).
fn concede_and_verify_clean(t: &mut Table) {
    t.concede();
    let verdict = verify(&t.game().bytes(), &hexveil_fixtures::rulesets());
    assert!(verdict.fault().is_none(), "{verdict:?}");
}

/// Every log entry's body, in order.
fn bodies(t: &Table) -> Vec<(Party, Body)> {
    let g = t.game();
    (0..g.entries.len())
        .map(|i| {
            let env = g.entries[i].envelope.envelope();
            let party = t.session.referee().party_of_key(&env.author).unwrap();
            (party, g.body(i))
        })
        .collect()
}

#[test]
fn g2_g4_7_1_a_step_into_a_hidden_minefield_asks_its_owner_only_what_the_rules_need_then() {
    // A's squad steps from 3E3 into 3E4 (hidden A-P 12). B answers three
    // times, each when the rules first need it and not before (G4): the
    // exit hex with its window of pad entries (B28.412: the exit attack
    // first), the entry hex once a unit is still able to enter, and the
    // Daisy Chain opportunity after the step (B28.531). No roll asks B for
    // anything: the server rolls from the window (PROTOCOL.md 7.1).
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let before_b = t.seen[&Side::B].len();
    let before_log = t.session.referee().log().next_seq() as usize;
    t.act(Side::A, hexveil_fixtures::step_into_the_minefield());
    let prompts: Vec<&Prompt> = t.seen[&Side::B][before_b..]
        .iter()
        .map(|u| &u.prompt)
        .filter(|p| !matches!(p, Prompt::Wait | Prompt::Act))
        .collect();
    let all = bodies(&t);
    let action = &all[before_log..];
    let rolls = action
        .iter()
        .filter(|(_, b)| matches!(b, Body::Roll(_)))
        .count();
    assert!(rolls >= 2, "the step rolls its attacks: {rolls}");
    assert!(
        matches!(prompts.first(), Some(Prompt::OpenAhead { .. })),
        "B's first prompt asks openings and its window: {prompts:?}"
    );
    assert!(
        !prompts.iter().any(|p| matches!(p, Prompt::Entry { .. })),
        "no roll asks B for a single entry: {prompts:?}"
    );
    assert!(
        !action
            .iter()
            .any(|(p, b)| *p == Party::A && !matches!(b, Body::Declare(_))),
        "A writes nothing but its declaration: no pad entry of the mover"
    );
    // The attack's rolls fit in the window: B was asked for it once.
    let asked: Vec<String> = prompts
        .iter()
        .map(|p| match p {
            Prompt::OpenAhead { requests, .. } => format!("window + {}", requests[0]),
            Prompt::Open(requests) => requests[0].to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        asked,
        [
            "window + side B ap at 3E3",
            "side B ap at 3E4",
            "side B daisy at opp1"
        ],
        "{prompts:?}"
    );
    let windows = prompts
        .iter()
        .filter(|p| matches!(p, Prompt::OpenAhead { .. } | Prompt::Window { .. }))
        .count();
    assert_eq!(windows, 1, "{prompts:?}");
    concede_and_verify_clean(&mut t);
}

#[test]
fn g2_7_1_no_pad_position_is_released_twice_and_no_roll_uses_an_entry_of_an_earlier_action() {
    // Two steps and a concession: every window's positions are new, and
    // each roll of the second step is past the end of the first step's
    // window (unused entries are burned, PROTOCOL.md 7.1 item 4). The
    // steps go through hexes B may have mined and has not (3E2, then
    // 3F2), so no attack's dice can stop the second one.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let stack = [
        hexveil_fixtures::units::GER_SQUAD,
        hexveil_fixtures::units::GER_LEADER,
    ];
    t.act(Side::A, hexveil_fixtures::move_into(&stack, "3E2"));
    t.act(Side::A, hexveil_fixtures::move_into(&stack, "3F2"));
    t.concede();
    let mut released: Vec<(u32, u32)> = Vec::new();
    let mut window_end_of_earlier_actions = 0u64;
    let mut window_end = 0u64;
    let mut later_rolls = 0;
    let pad_len = u64::from(t.session.referee().genesis().pad_len);
    for (_, body) in bodies(&t) {
        match body {
            Body::Declare(_) => window_end_of_earlier_actions = window_end,
            Body::Entries(es) => {
                released.extend(es.iter().map(|e| (e.position.epoch, e.position.index)));
                let last = es.last().unwrap().position;
                window_end = u64::from(last.epoch) * pad_len + u64::from(last.index) + 1;
            }
            Body::OpenAhead(a) => {
                released.extend(
                    a.entries
                        .iter()
                        .map(|e| (e.position.epoch, e.position.index)),
                );
                let last = a.entries.last().unwrap().position;
                window_end = u64::from(last.epoch) * pad_len + u64::from(last.index) + 1;
            }
            Body::Roll(r) => {
                assert!(
                    r.k >= window_end_of_earlier_actions,
                    "roll {} uses a position released in an earlier action (burned up to {window_end_of_earlier_actions})",
                    r.k
                );
                later_rolls += usize::from(window_end_of_earlier_actions > 0);
            }
            _ => {}
        }
    }
    assert!(!released.is_empty(), "windows were released");
    assert!(later_rolls > 0, "the second step rolled after a window");
    let mut unique = released.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), released.len(), "a position released twice");
    assert!(verify(&t.game().bytes(), &hexveil_fixtures::rulesets())
        .fault()
        .is_none());
}

#[test]
fn g2_7_1_an_action_without_a_nonce_rolls_as_in_version_3() {
    // A client of version 3 declares with a plain Act: the referee of a
    // version-4 game takes it and rolls it as section 7 says, the actor's
    // pad entry in each roll, the opponent's one entry at a time, no window
    // (PROTOCOL.md 7.1 item 1); the game verifies.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let before = t.session.referee().log().next_seq() as usize;
    let env = t.players.get_mut(&Side::A).unwrap().sign(&Body::Act(
        hexveil_fixtures::step_into_the_minefield().into(),
    ));
    t.send(Side::A, env);
    t.run();
    assert_eq!(t.rejections, vec![]);
    let all = bodies(&t);
    let action = &all[before..];
    assert!(matches!(action[0], (Party::A, Body::Act(_))));
    let entries = |who: Party| {
        action
            .iter()
            .filter(|(p, b)| *p == who && matches!(b, Body::Entry(_)))
            .count()
    };
    let rolls = action
        .iter()
        .filter(|(_, b)| matches!(b, Body::Roll(_)))
        .count();
    assert!(rolls >= 2, "the step rolls");
    assert_eq!((entries(Party::A), entries(Party::B)), (rolls, rolls));
    assert!(!action
        .iter()
        .any(|(_, b)| matches!(b, Body::Entries(_) | Body::OpenAhead(_))));
    concede_and_verify_clean(&mut t);
}

#[test]
fn g2_g5_7_1_a_window_entry_that_does_not_open_is_recorded_against_its_signer() {
    // B answers the step's prompt with openings and a window in which one
    // pad value is not its pad's: the answer is refused, the server records
    // it as B's fault (BadAnswer), and B's honest answer is still taken.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let out = t.declare(Side::A, hexveil_fixtures::step_into_the_minefield());
    t.queue.extend(out);
    // Deliver until B is asked for its openings and window.
    let mut honest = None;
    while let Some(o) = t.queue.pop_front() {
        if let Output::ToPlayer(side, ToClient::Update(u)) = o {
            let answer = t.players.get_mut(&side).unwrap().on_update(&u).unwrap();
            if side == Side::B && matches!(u.prompt, Prompt::OpenAhead { .. }) {
                honest = answer;
                break;
            }
            if let Some(env) = answer {
                t.send(side, env);
            }
        }
    }
    let honest = honest.expect("B is asked for openings with its window");
    // (B's machine answers the prompt again by itself once the record is in.)
    let Ok(Body::OpenAhead(mut ahead)) = Body::decode(&honest.envelope().body) else {
        panic!("B's answer is an OpenAhead");
    };
    assert!(!ahead.entries.is_empty() && ahead.entries.len() <= MAX_WINDOW as usize);
    ahead.entries[0].value.0[0] ^= 1;
    let bad = t
        .players
        .get_mut(&Side::B)
        .unwrap()
        .sign(&Body::OpenAhead(ahead));
    let out = t.session.submit(Side::B, bad, 0);
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::ToPlayer(Side::B, ToClient::Rejected(_)))),
        "{out:?}"
    );
    t.queue.extend(out);
    t.run();
    let faults = t.session.faults();
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert_eq!(faults[0].side, Side::B);
    assert!(faults[0].what.contains("window"), "{}", faults[0].what);
    // The record prompts B again, and its machine's honest answer, on top
    // of the new head, goes through: the step is ruled.
    assert_eq!(t.rejections.len(), 1, "{:?}", t.rejections);
    let g = t.game();
    let recorded = g
        .find(|p, b| p == Party::Server && matches!(b, Body::BadAnswer(_)))
        .expect("the record");
    assert!(
        (recorded..g.entries.len()).any(|i| matches!(g.body(i), Body::Ruling(_))),
        "the step was ruled after the record"
    );
    t.concede();
    let verdict = verify(&t.game().bytes(), &hexveil_fixtures::rulesets());
    assert!(
        verdict
            .fault()
            .is_none_or(|f| f.blame == hexveil_protocol::verifier::Blame::Side(Side::B)),
        "{verdict:?}"
    );
}

#[test]
fn g5_7_1_transcripts_of_message_versions_3_4_and_5_still_verify() {
    // The fuzz seeds hold whole games written by the version-3 referee
    // (before windows), the version-4 one (before the server's own
    // entries went unreceipted, PROTOCOL.md 6) and the version-5 one
    // (before a player's entry the server's own follows went
    // unreceipted): the verifier still plays them to the end, every entry
    // receipted as it was written.
    let mut played = std::collections::BTreeSet::new();
    for (g, t, bytes) in common::seed_games() {
        if g.message_version >= 6 || t.entries.len() <= 20 {
            continue;
        }
        let server = g.server;
        assert!(t.entries.iter().all(|e| {
            let by_server = e.envelope.envelope().author == server;
            e.receipt.is_some() == (!by_server || g.receipts_server_entries())
        }));
        let verdict = verify(&bytes, &hexveil_fixtures::rulesets());
        assert!(verdict.fault().is_none(), "{verdict:?}");
        played.insert(g.message_version);
    }
    assert_eq!(
        played,
        [3, 4, 5].into(),
        "a whole game of each older version among the seeds"
    );
}

#[test]
fn g2_7_1_a_roll_in_pads_renewed_during_the_action_takes_no_nonce() {
    // Pads of 4 entries: the two setup rolls (B28.47) use rolls 0 and 1,
    // so the step's window holds rolls 2 and 3 and its later rolls need
    // epoch 1, committed during the action, after A's nonce was public.
    // Those rolls are made as in version 3: A's pad entry, B's, the
    // server's (PROTOCOL.md 7.1 item 5), and the game verifies.
    let mut t = Table::open(common::Setup {
        pad_len: 4,
        ..common::Setup::example(5, SEALED_B)
    });
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let before = t.session.referee().log().next_seq() as usize;
    t.act(Side::A, hexveil_fixtures::step_into_the_minefield());
    let all = bodies(&t);
    let action = &all[before..];
    let renewed = action
        .iter()
        .position(|(p, b)| *p == Party::Server && matches!(b, Body::Pad(s) if s.epoch == 1))
        .expect("the step renews the pads to epoch 1");
    let rolls_after: Vec<u64> = action[renewed..]
        .iter()
        .filter_map(|(_, b)| match b {
            Body::Roll(r) => Some(r.k),
            _ => None,
        })
        .collect();
    assert!(!rolls_after.is_empty(), "the step rolls in epoch 1");
    assert!(rolls_after.iter().all(|k| *k >= 4));
    assert!(
        action[renewed..]
            .iter()
            .any(|(p, b)| *p == Party::A && matches!(b, Body::Entry(_))),
        "A releases its pad entry for a roll of epoch 1"
    );
    assert!(
        !action[renewed..]
            .iter()
            .any(|(_, b)| matches!(b, Body::Entries(_) | Body::OpenAhead(_))),
        "no window in epoch 1 during this action"
    );
    concede_and_verify_clean(&mut t);
}

#[test]
fn g2_7_1_a_client_releases_no_pad_entry_for_a_roll_the_log_is_not_at() {
    // A server that asks a player for pad entries of rolls to come (and
    // drops the answer) would learn them; with an actor's nonce chosen
    // after, it could choose the dice. The player counts the roll numbers
    // from the public updates and refuses: the roll asked is not the one
    // the log is at, or the window is not the one the action's bytes and
    // the pads give.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let rolls_so_far = t
        .game()
        .entries
        .iter()
        .enumerate()
        .filter(|(i, _)| matches!(t.game().body(*i), Body::Roll(_)))
        .count() as u64;
    let asks = [
        Prompt::Entry {
            k: rolls_so_far + 100,
        },
        Prompt::Window {
            k: rolls_so_far + 100,
            count: 2,
        },
        Prompt::Window {
            k: rolls_so_far,
            count: MAX_WINDOW,
        },
    ];
    // A dishonest server signs these prompts with its own key (issue 24):
    // the view receipt binds them, and B's own count still refuses.
    for prompt in asks {
        let player = t.players.get_mut(&Side::B).unwrap();
        let fake = common::forge::invent(
            player.witness().next_seq(),
            player.witness().head(),
            Some(Side::B),
            "openings",
            prompt.clone(),
        );
        let answer = player.on_update(&fake);
        assert!(
            matches!(&answer, Err(hexveil_protocol::player::PlayerError::CannotAnswer(why)) if why.contains("G2")),
            "{prompt:?}: {answer:?}"
        );
    }
}

#[test]
fn g3_g4_7_1_a_step_out_of_a_hex_already_opened_empty_asks_its_owner_once() {
    // A's squad and leader step from 3E3 into 3E2, then on into 3F2, all
    // hexes where B may have hidden A-P mines and has none. The first step
    // asks B twice: the exit hex with the window (B28.412: the exit attack
    // first), then the entry hex. The second step leaves a hex the referee
    // already holds as empty, so its exit cannot attack and the entry hex
    // is sure to be asked (B28.412, G4): it is asked with the window, once
    // (`minefield::open_entry_first`), and the exit's DR still rolls (R28).
    // Only the Daisy Chain opportunity after the step is asked again
    // (B28.531).
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let stack = [
        hexveil_fixtures::units::GER_SQUAD,
        hexveil_fixtures::units::GER_LEADER,
    ];
    let asked_in = |t: &mut Table, hex: &str| -> Vec<String> {
        let before = t.seen[&Side::B].len();
        t.act(Side::A, hexveil_fixtures::move_into(&stack, hex));
        t.seen[&Side::B][before..]
            .iter()
            .filter_map(|u| match &u.prompt {
                Prompt::OpenAhead { requests, .. } => Some(format!("window + {}", requests[0])),
                Prompt::Open(requests) => Some(requests[0].to_string()),
                Prompt::Wait | Prompt::Act => None,
                other => Some(format!("{other:?}")),
            })
            .collect()
    };
    assert_eq!(
        asked_in(&mut t, "3E2"),
        [
            "window + side B ap at 3E3",
            "side B ap at 3E2",
            "side B daisy at opp1"
        ]
    );
    assert_eq!(
        asked_in(&mut t, "3F2"),
        ["window + side B ap at 3F2", "side B daisy at opp2"]
    );
    // The exit's potential attack still rolled, after the opening (R28).
    let all = bodies(&t);
    let last_rolls = all
        .iter()
        .rev()
        .take_while(|(_, b)| !matches!(b, Body::Declare(_)))
        .filter(|(_, b)| matches!(b, Body::Roll(_)))
        .count();
    assert!(last_rolls >= 1, "{all:?}");
    concede_and_verify_clean(&mut t);
}
