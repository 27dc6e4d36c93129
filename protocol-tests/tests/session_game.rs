//! A whole game through the live session and two protocol players, in
//! memory: genesis, pads, the Secret dr for Dummies (B28.47), setups with
//! sealed layouts, moves into mined hexes answered by openings and beacon
//! rolls, a concession, reveals, and a clean close (G1, G2, G5).

mod common;

use common::{ids, params, secrets, Setup, Table, GAME, SEALED_A, SEALED_B, SERVER_PAD, SETUP_A};
use hexveil_asl::{Action, Side};
use hexveil_fixtures::{move_into, scenario_toml, step_into_the_minefield, units};
use hexveil_protocol::encoding::{GameId, Party};
use hexveil_protocol::message::{Body, Logged, Prompt, ToClient, Update, PAD_BUCKET};
use hexveil_protocol::player::Player;
use hexveil_protocol::referee::Awaiting;
use hexveil_protocol::session::{Output, Session};

/// The example game, B sealing the example's minefields.
fn example() -> Setup {
    Setup::example(5, SEALED_B)
}

#[test]
fn g5_a_whole_game_replays_and_closes_clean() {
    let mut t = Table::open(example());
    // Pads, the Secret dr for B's extra Dummies (B28.47) and both setups are
    // answered by the players' machines.
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
    // A's squad and leader walk from 3E3 (not mined) into 3E4 (hidden A-P 12).
    t.step_into_the_minefield();
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
    let log_len = t.session.log().len();
    assert!(
        log_len > 10,
        "the move produced openings, rolls and a ruling"
    );
    // A concedes; the server ends the game; both players reveal.
    t.concede();
    assert_eq!(t.rejections, vec![], "honest reveals are accepted");
    assert_eq!(t.session.faults(), &[], "honest reveals prove no fault");
    assert_eq!(t.session.referee().result().unwrap().winner, Some(Side::B));
    assert_eq!(t.last(Side::A).prompt, Prompt::Wait);
    // G6: restoring from the durable log gives the same referee state.
    let [_, _, server] = ids();
    let (restored, owed) = Session::restore(
        t.session.log().to_vec(),
        &hexveil_fixtures::rulesets(),
        server,
        SERVER_PAD,
        0,
    )
    .unwrap();
    assert!(owed.is_empty(), "a closed log owes nothing");
    assert!(restored.is_closed());
    assert_eq!(
        restored.referee().log().head(),
        t.session.referee().log().head()
    );
}

#[test]
fn g6_an_entry_out_of_turn_is_refused_and_changes_nothing() {
    let mut t = Table::open(example());
    let head = t.session.referee().log().head();
    // B is not phasing: its action is refused by the engine.
    let out = t.declare(Side::B, Action::EndPhase);
    assert!(matches!(
        out.as_slice(),
        [Output::ToPlayer(Side::B, ToClient::Rejected(_))]
    ));
    assert_eq!(t.session.referee().log().head(), head);
    // A replayed entry is refused as a replay.
    let env = t
        .players
        .get_mut(&Side::A)
        .unwrap()
        .act(Action::EndPhase)
        .expect("the system random generator");
    t.send(Side::A, env.clone());
    t.run();
    assert_eq!(t.rejections, vec![], "the first time it is accepted");
    let out = t.session.submit(Side::A, env, 0);
    assert!(
        matches!(out.as_slice(), [Output::ToPlayer(Side::A, ToClient::Rejected(r))] if r.reason.contains("replay") || r.reason.contains("seq")),
        "{out:?}"
    );
}

#[test]
fn g2_a_party_that_does_not_answer_loses() {
    let mut t = Table::open(example());
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    // A declares a move; B's machine is "offline": we drop what B would send.
    let out = t.declare(Side::A, move_into(&[units::GER_SQUAD], "3E4"));
    // Deliver only to A.
    for o in out {
        if let Output::ToPlayer(Side::A, ToClient::Update(u)) = o {
            if let Some(e) = t.players.get_mut(&Side::A).unwrap().on_update(&u).unwrap() {
                let more = t.session.submit(Side::A, e, 0);
                t.queue.extend(
                    more.into_iter()
                        .filter(|o| matches!(o, Output::ToPlayer(Side::A, _))),
                );
            }
        }
    }
    t.queue.clear();
    let owed = t.session.referee().awaiting().party();
    assert_eq!(
        owed,
        Some(Party::B),
        "B owes an answer: {:?}",
        t.session.referee().awaiting()
    );
    assert!(t.session.tick(29_999).is_empty(), "not yet late");
    let out = t.session.tick(30_000);
    assert!(!out.is_empty());
    match t.session.referee().awaiting() {
        Awaiting::Reveals { .. } => {}
        other => panic!("expected reveals after the timeout's end, got {other:?}"),
    }
    let result = t.session.referee().result().cloned();
    assert_eq!(result.map(|r| r.winner), Some(Some(Side::A)));
}

#[test]
fn b28_412_owner_opens_exit_then_entry_hex_and_mover_sees_presence_only_g4() {
    let mut t = Table::open(example());
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let before = t.seen[&Side::B].len();
    t.act(Side::A, step_into_the_minefield());
    let asked: Vec<String> = t.seen[&Side::B][before..]
        .iter()
        .filter_map(|u| match &u.prompt {
            Prompt::Open(reqs) | Prompt::OpenAhead { requests: reqs, .. } => Some(
                reqs.iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            _ => None,
        })
        .collect();
    // Exit hex, then entry hex (B28.412), then the Daisy Chain opportunity
    // every enemy step gives its holder (B28.531, DESIGN 3.2).
    assert_eq!(
        asked,
        vec![
            "side B ap at 3E3".to_string(),
            "side B ap at 3E4".to_string(),
            "side B daisy at opp1".to_string()
        ]
    );
    let ruling = t.seen[&Side::A].last().unwrap();
    let text = format!("{:?}", hexveil_fixtures::asl_events(&ruling.events));
    assert!(
        text.contains("ApPresent"),
        "the mover learns presence (B28.41): {text}"
    );
    assert!(
        !text.contains("FactOpened"),
        "openings are for the referee only (G3)"
    );
    assert!(
        !text.contains("ApAttackSealed"),
        "sealed strength events are for the referee only (R13)"
    );
}

#[test]
fn r12_a_refusal_after_dice_is_a_void_ruling_and_the_game_goes_on_g2() {
    // A truck (unarmored: the Vehicle line, B28.42) drives into B's hidden
    // A-P 12 in 3E4; the Vehicle line has no Kill Number on the 12 column
    // (R12). In a game of ASL version 2 the engine refused after the leaf
    // was opened and the DR rolled: the action ends as a logged void
    // ruling, rolls spent, nothing moved, and nobody left waiting (R36).
    // From version 3 the same move is refused before anything is asked
    // (R72): rejected, nothing logged, the game goes on.
    let truck_setup = |version: u32| {
        let scenario = scenario_toml()
            + "\n[[units]]\nname = \"ger-truck\"\nside = \"A\"\nkind = \"vehicle\"\n[units.vehicle]\nprinted_mp = 10\n";
        // Version 2 knows no PRC survival table (R71): the example's goes.
        let scenario = match (version, scenario.find("[tables.prc_survival]")) {
            (2, Some(start)) => {
                let end = start + scenario[start..].find("\"\"\"\n\n").unwrap() + 5;
                format!("{}{}", &scenario[..start], &scenario[end..])
            }
            _ => scenario,
        };
        Setup {
            scenario_toml: scenario,
            setup_a: SETUP_A.replace("ger-pz = \"4E6\"", "ger-pz = \"4E6\"\nger-truck = \"3E3\""),
            ruleset_version: version,
            ..example()
        }
    };
    let truck = hexveil_asl::model::unit::UnitId(6);
    let mut t = Table::open(truck_setup(2));
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    t.act(Side::A, move_into(&[truck], "3E4"));
    let ruling = t.seen[&Side::A].last().unwrap();
    assert!(
        matches!(ruling.events.as_slice(), [hexveil_core::Event { kind: hexveil_core::EventKind::Void { reason }, .. }] if reason.contains("Vehicle line") || reason.contains("R12")),
        "{:?}",
        ruling.events
    );
    let engine = t.session.referee().engine().unwrap();
    assert_eq!(
        hexveil_fixtures::asl_state(engine).unit(truck).unwrap().hex,
        Some("3E3".parse().unwrap()),
        "a void action changes nothing"
    );
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
    // Version 3: refused up front.
    let mut t = Table::open(truck_setup(3));
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let logged = t.session.log_len();
    let out = t.declare(Side::A, move_into(&[truck], "3E4"));
    t.queue.extend(out);
    t.run();
    assert_eq!(t.rejections.len(), 1, "{:?}", t.rejections);
    assert!(t.rejections[0].1.contains("R72"), "{:?}", t.rejections);
    assert_eq!(t.session.log_len(), logged, "nothing logged");
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
}

#[test]
fn g5_a_reveal_with_an_illegal_strength_is_a_proven_fault_of_its_side_b28_1() {
    let mut t = Table::open(example());
    let env = t.players.get_mut(&Side::A).unwrap().concede();
    let out = t.session.submit(Side::A, env, 0);
    // Deliver everything, but intercept B's reveal and forge one content.
    t.queue.extend(out);
    while let Some(o) = t.queue.pop_front() {
        let Output::ToPlayer(side, ToClient::Update(u)) = o else {
            continue;
        };
        let Some(env) = t.players.get_mut(&side).unwrap().on_update(&u).unwrap() else {
            continue;
        };
        let env = match hexveil_protocol::message::Body::decode(&env.envelope().body).unwrap() {
            hexveil_protocol::message::Body::Reveal(mut reveal) if side == Side::B => {
                let ap = reveal.layers.iter_mut().find(|l| l.layer == "ap").unwrap();
                ap.contents[0].1 = [1, 10, 0, 0, 0, 0, 0, 0]; // an A-P strength of 10
                t.players
                    .get_mut(&Side::B)
                    .unwrap()
                    .sign(&hexveil_protocol::message::Body::Reveal(reveal))
            }
            _ => env,
        };
        let more = t.session.submit(side, env, 0);
        t.queue.extend(more);
    }
    assert!(t.session.is_closed());
    let faults = t.session.faults();
    assert!(!faults.is_empty(), "the forged reveal must be a fault");
    assert!(faults.iter().all(|f| f.side == Side::B), "{faults:?}");
}

/// The messages each audience receives, from A's move into 3E4 to its
/// ruling: their lengths before padding (`encode`), in order.
#[derive(Debug, PartialEq, Eq)]
struct Traffic {
    /// To the mover, A.
    a: Vec<usize>,
    /// To the minefield's owner, B.
    b: Vec<usize>,
    /// To the spectators.
    spectators: Vec<usize>,
}

impl Traffic {
    /// The lengths padded to the bucket (G3, PROTOCOL.md 14.2).
    fn padded(v: &[usize]) -> Vec<usize> {
        v.iter()
            .map(|n| (n + 4).div_ceil(PAD_BUCKET).max(1) * PAD_BUCKET)
            .collect()
    }
}

/// What each audience receives (see [`Traffic`]) during A's move into
/// 3E4, and whether the mined run's attack had an effect.
fn received_during_move(sealed_b: &str, a_fill: u8) -> (Traffic, bool) {
    let mut t = Table::open(Setup {
        sealed_b: sealed_b.to_string(),
        a_fill,
        ..example()
    });
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let out = t.declare(Side::A, move_into(&[units::GER_SQUAD], "3E4"));
    t.queue.extend(out);
    let mut seen = Traffic {
        a: Vec::new(),
        b: Vec::new(),
        spectators: Vec::new(),
    };
    let mut effect = false;
    while let Some(o) = t.queue.pop_front() {
        match o {
            Output::ToPlayer(side, msg) => {
                let padded = hexveil_protocol::message::encode_padded(&msg);
                let len = hexveil_protocol::message::encode(&msg).len();
                assert_eq!(padded.len(), Traffic::padded(&[len])[0]);
                match side {
                    Side::A => seen.a.push(len),
                    Side::B => seen.b.push(len),
                }
                if let ToClient::Update(u) = &msg {
                    if side == Side::A {
                        effect |= format!("{:?}", hexveil_fixtures::asl_events(&u.events))
                            .contains("result: Some");
                    }
                    if let Some(e) = t.players.get_mut(&side).unwrap().on_update(u).unwrap() {
                        let more = t.session.submit(side, e, 0);
                        t.queue.extend(more);
                    }
                }
            }
            Output::ToSpectators { seq } => {
                let msg = t
                    .session
                    .public_view(seq, &|_| None)
                    .expect("a logged entry");
                seen.spectators
                    .push(hexveil_protocol::message::encode(&msg).len())
            }
            _ => {}
        }
    }
    (seen, effect)
}

#[test]
fn g3_mover_and_spectators_receive_the_same_traffic_for_a_mined_hex_without_effect_and_an_empty_hex(
) {
    let mined_6 = SEALED_B.replace(
        "{ hex = \"3E4\", strength = 12 }",
        "{ hex = \"3E4\", strength = 6 }",
    );
    let mined_12 = SEALED_B.to_string();
    let empty = SEALED_B.replace("  { hex = \"3E4\", strength = 12 },  # hidden\n", "");
    assert_ne!(mined_6, empty);
    assert_ne!(mined_6, mined_12);
    // The dice follow from every party's pad, so look for A's pad seeds
    // under which the A-P attack in 3E4 has no effect at strength 6 and at
    // 12 (DR 9+ on the 6 column, 11+ on the 12); the search is
    // deterministic.
    let fill = (0u8..=255)
        .find(|f| !received_during_move(&mined_6, *f).1 && !received_during_move(&mined_12, *f).1)
        .expect("some pad gives a no-effect attack at both strengths");
    let (mined, _) = received_during_move(&mined_6, fill);
    let (stronger, _) = received_during_move(&mined_12, fill);
    let (empty, _) = received_during_move(&empty, fill);
    // G3 (B28.1, R13): the strength of a field whose attack has no effect
    // stays hidden: every audience, the owner included, is sent messages of
    // the same lengths before padding, so under any bucket.
    assert_eq!(
        mined, stronger,
        "the strength shows in no message's length (G3)"
    );
    // G3 (B28.41): the rules reveal the field's presence in the ruling, the
    // mover's and the spectators' messages are otherwise of the same
    // lengths, and padded (PROTOCOL.md 14.2) every message of the mined
    // step has the size of the empty step's.
    for (who, m, e) in [
        ("the mover", &mined.a, &empty.a),
        ("the owner", &mined.b, &empty.b),
        ("the spectators", &mined.spectators, &empty.spectators),
    ] {
        assert_eq!(m.len(), e.len(), "{who}: as many messages (G3)");
        assert_eq!(
            m[..m.len() - 1],
            e[..e.len() - 1],
            "{who}: the same lengths up to the ruling (G3)"
        );
        assert_eq!(
            Traffic::padded(m),
            Traffic::padded(e),
            "{who}: the same padded sizes, message by message (G3)"
        );
    }
    assert!(
        mined.a.len() >= 8,
        "the move produced openings, rolls and a ruling"
    );
}

#[test]
fn g1_a_player_commits_nothing_to_a_game_on_another_scenario() {
    // The genesis update carries the scenario hash; a player who set up for
    // another text refuses before sending anything.
    let setup = example();
    let [a, _, _] = ids();
    let (_session, out) = common::create(GAME, params(&setup));
    let other_text = setup.scenario_toml.replace("turns = 5", "turns = 4");
    let mut pa = Player::new(
        a,
        GAME,
        hexveil_fixtures::ruleset().as_ref(),
        &other_text,
        setup.pad_len,
        setup.mode,
        secrets(Side::A, SETUP_A, SEALED_A, 20),
    )
    .unwrap();
    let update = out
        .iter()
        .find_map(|o| match o {
            Output::ToPlayer(Side::A, ToClient::Update(u)) => Some(u.clone()),
            _ => None,
        })
        .unwrap();
    assert!(update.genesis.is_some());
    assert!(pa.on_update(&update).is_err());
}

#[test]
fn g2_pads_are_renewed_when_they_run_out_mid_action() {
    // Pads of 2 entries: the Secret dr for Dummies takes roll 0, the move's
    // rolls cross into epoch 1 and 2; every party commits its next pad
    // before any entry of that epoch is released (DESIGN 3.4).
    let mut t = Table::open(Setup {
        pad_len: 2,
        ..example()
    });
    t.step_into_the_minefield();
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
    let renewals = t
        .session
        .log()
        .iter()
        .filter(|e| {
            matches!(
                hexveil_protocol::message::Body::decode(&e.envelope.envelope().body),
                Ok(hexveil_protocol::message::Body::Pad(p)) if p.epoch > 0
            )
        })
        .count();
    assert!(
        renewals >= 3,
        "A, B and the server renewed at least once: {renewals}"
    );
    t.concede();
    assert_eq!(t.rejections, vec![], "honest reveals are accepted");
    assert_eq!(t.session.faults(), &[], "reveals prove every epoch's pad");
    let file = hexveil_protocol::transcript::Transcript::new(t.session.log().to_vec())
        .to_bytes()
        .unwrap();
    let verdict = hexveil_protocol::verifier::verify(&file, &hexveil_fixtures::rulesets());
    assert!(verdict.fault().is_none(), "{verdict:?}");
    let [_, _, server] = ids();
    let (restored, owed) = Session::restore(
        t.session.log().to_vec(),
        &hexveil_fixtures::rulesets(),
        server,
        SERVER_PAD,
        0,
    )
    .unwrap();
    assert!(owed.is_empty(), "a closed log owes nothing");
    assert!(restored.is_closed());
}

#[test]
fn g5_a_side_that_does_not_reveal_in_time_is_a_proven_fault_and_the_log_closes() {
    // A concedes; A's machine reveals, B's is "offline" after the end. Past
    // the answer timeout the server writes B's timeout: the log closes
    // without B's secrets, the result stands, and the transcript proves the
    // omission against B (its setup cannot be audited).
    let mut t = Table::open(example());
    let env = t.players.get_mut(&Side::A).unwrap().concede();
    let mut queue: std::collections::VecDeque<Output> = t.session.submit(Side::A, env, 0).into();
    while let Some(o) = queue.pop_front() {
        if let Output::ToPlayer(Side::A, ToClient::Update(u)) = o {
            if let Some(e) = t.players.get_mut(&Side::A).unwrap().on_update(&u).unwrap() {
                queue.extend(t.session.submit(Side::A, e, 0));
            }
        }
    }
    assert_eq!(
        t.session.referee().awaiting(),
        &Awaiting::Reveals {
            missing: vec![Side::B]
        }
    );
    assert!(t.session.tick(29_999).is_empty(), "not yet late");
    assert!(!t.session.tick(30_000).is_empty());
    assert!(t.session.is_closed());
    assert_eq!(
        t.session.referee().result().map(|r| r.winner),
        Some(Some(Side::B)),
        "the result stands"
    );
    let [fault] = t.session.faults() else {
        panic!("one fault expected: {:?}", t.session.faults())
    };
    assert_eq!(fault.side, Side::B);
    assert!(fault.what.contains("did not reveal"), "{}", fault.what);
    let verdict =
        hexveil_protocol::verifier::verify(&t.game().bytes(), &hexveil_fixtures::rulesets());
    let f = verdict.fault().expect("the omission is proven");
    assert_eq!(f.blame, hexveil_protocol::verifier::Blame::Side(Side::B));
}

#[test]
fn g6_a_resync_shows_each_side_exactly_what_it_was_shown_live_also_after_a_restore() {
    let side_index = |s: Side| if s == Side::A { 0 } else { 1 };
    // A resuming player is re-sent its own views, with the prompts they
    // carried then (its machine rebuilds its state from them); a restored
    // server gives the same resync as the live one.
    let mut t = Table::open(example());
    t.step_into_the_minefield();
    let (restored, _) = common::restore(&t.session.log()).unwrap();
    for side in [Side::A, Side::B] {
        let live: Vec<Update> = t.seen[&side].clone();
        let updates = |msgs: Vec<ToClient>| -> Vec<Update> {
            msgs.into_iter()
                .map(|m| match m {
                    ToClient::Update(u) => u,
                    other => panic!("a resync holds updates only: {other:?}"),
                })
                .collect()
        };
        // The same views; only a player's own action comes whole in a
        // resync, where it came as its own (a resumed client may no longer
        // hold its declarations: issue 24).
        let carried = |us: Vec<Update>| -> Vec<Update> {
            us.into_iter()
                .map(|mut u| {
                    if let Logged::Full { envelope, receipt } = &u.logged {
                        if matches!(Body::decode(&envelope.envelope().body), Ok(b) if b.declared_action().is_some())
                            && envelope.envelope().author == common::ids()[side_index(side)].public_key()
                        {
                            u.logged = match receipt {
                                Some(receipt) => Logged::Own(receipt.clone()),
                                // The server's next entry placed it
                                // (message version 6).
                                None => Logged::OwnPlacedByNext {
                                    entry_hash: envelope.entry_hash(),
                                },
                            };
                        }
                    }
                    u
                })
                .collect()
        };
        assert_eq!(
            carried(updates(t.session.resync(side, 0))),
            live,
            "side {side}"
        );
        assert_eq!(
            carried(updates(restored.resync(side, 0))),
            live,
            "side {side}"
        );
        let from = 7;
        assert_eq!(
            carried(updates(t.session.resync(side, from))),
            live[from as usize..].to_vec()
        );
    }
    // Spectators too: the public resync is what they were sent live, one
    // update per entry (G3: the public view only). The session keeps no
    // view but rebuilds each from the log (issue 16), so this also checks
    // the rebuild.
    let public = |msgs: Vec<ToClient>| -> Vec<Update> {
        msgs.into_iter()
            .map(|m| match m {
                ToClient::Update(u) => u,
                other => panic!("a resync holds updates only: {other:?}"),
            })
            .collect()
    };
    assert_eq!(public(t.session.public_resync()), t.spectated);
    assert_eq!(public(restored.public_resync()), t.spectated);
    assert_eq!(
        t.spectated.len(),
        t.session.log_len(),
        "one public update per entry"
    );
}

/// G5 (issue 10 items 1 and 4): live, a lying opening gets a refusal
/// signed by the server's transcript key and bound to the entry's hash
/// (the player's proof), and the server records the signed lie against its
/// author; the same openings are still awaited, the honest retry goes on,
/// and the transcript blames the liar.
#[test]
fn g5_a_lying_opening_is_refused_with_a_signed_refusal_and_recorded_against_its_author() {
    use hexveil_protocol::layout::Opening;
    use hexveil_protocol::message::{encode, Body, OpenedFact};
    use hexveil_protocol::verifier::{verify, Blame, FaultKind};
    let honest = common::honest_game(0);
    let i = honest
        .find(|p, b| {
            p == Party::B
                && matches!(b, Body::Open(v)
                    if matches!(v.first(), Some(OpenedFact::Leaf(o)) if o.content != [0; 8]))
        })
        .unwrap();
    let prefix = honest.truncate(i);
    let (mut session, _) = common::restore(&prefix.entries).unwrap();
    let truth = honest.body(i);
    let Body::Open(mut v) = truth.clone() else {
        unreachable!()
    };
    if let OpenedFact::Leaf(Opening { content, .. }) = &mut v[0] {
        *content = [0; 8]; // "no mine here"
    }
    let lie = prefix.envelope(Party::B, encode(&Body::Open(v)));
    let awaiting = session.referee().awaiting().clone();
    let out = session.submit(Side::B, lie.clone(), 0);
    let server_key = ids()[2].public_key();
    let refusal = out
        .iter()
        .find_map(|o| match o {
            Output::ToPlayer(Side::B, ToClient::Rejected(r)) => Some(r.clone()),
            _ => None,
        })
        .expect("B is told its entry was refused");
    refusal.verify(&server_key, Some(&lie)).unwrap();
    assert_eq!(refusal.entry_hash, lie.entry_hash());
    assert!(refusal.reason.contains("opening"), "{}", refusal.reason);
    assert!(
        out.iter().any(|o| matches!(o, Output::Persist(_))),
        "the lie is recorded: {out:?}"
    );
    assert_eq!(session.log().len(), i + 1);
    assert_eq!(session.referee().awaiting(), &awaiting, "still awaited");
    let [fault] = session.faults() else {
        panic!("one fault: {:?}", session.faults())
    };
    assert_eq!((fault.side, fault.seq), (Side::B, i as u64));
    // The honest answer, on top of the record, is accepted.
    let g = common::Game::from_log(session.log().to_vec());
    let retry = g.envelope(Party::B, encode(&truth));
    let out = session.submit(Side::B, retry, 0);
    assert!(
        !out.iter()
            .any(|o| matches!(o, Output::ToPlayer(_, ToClient::Rejected(_)))),
        "{out:?}"
    );
    let f = verify(
        &common::Game::from_log(session.log().to_vec()).bytes(),
        &hexveil_fixtures::rulesets(),
    )
    .fault()
    .cloned()
    .expect("the lie is proven");
    assert_eq!((f.blame, f.entry), (Blame::Side(Side::B), Some(i as u64)));
    assert!(matches!(f.what, FaultKind::BadAnswer(_)), "{f}");
}

#[test]
fn g6_the_genesis_the_session_no_longer_holds_is_rebuilt_byte_for_byte() {
    // Issue 16: the session keeps the genesis (which carries the scenario's
    // text) only as the referee's parse and rebuilds the entry when a
    // resync or the transcript needs it. What it rebuilds must be exactly
    // the entry written and made durable (G6), after a restore as well,
    // or the transcript would not verify (G5).
    let (session, out) = common::create(GAME, params(&example()));
    let written = common::persisted(&out);
    assert_eq!(written.len(), 1, "the genesis alone");
    assert_eq!(session.log(), written);
    let encoded = hexveil_protocol::transcript::encode_entry(&written[0]).len();
    assert!(encoded > 1_000, "the genesis holds the scenario's text");
    assert_eq!(session.log_bytes(), 0, "and the session does not hold it");
    let (restored, _) = common::restore(&written).unwrap();
    assert_eq!(restored.log(), written);
    assert_eq!(restored.log_bytes(), 0);
}

#[test]
fn games_of_one_scenario_text_share_the_referees_copy_of_it() {
    // Issue 16: a league's games of one scenario hold its text once (the
    // genesis's `scenario_toml`), and the text is the same bytes, so the
    // genesis still encodes, hashes and verifies the same (G5).
    let make = |game: u8| common::create(GameId([game; 16]), params(&example())).0;
    let (one, two) = (make(1), make(2));
    let text = |s: &Session| s.referee().genesis().scenario_toml.clone();
    assert!(std::sync::Arc::ptr_eq(&text(&one), &text(&two)));
    let mut other = params(&example());
    other.scenario_toml.push_str("\n# another text\n");
    let (three, _) = common::create(GameId([3; 16]), other);
    assert!(!std::sync::Arc::ptr_eq(&text(&one), &text(&three)));
    assert!(text(&three).ends_with("# another text\n"));
}

#[test]
fn g6_a_session_that_released_its_log_answers_from_the_stored_entries_alike() {
    // Issue 16: the server lets the session drop its log once the store
    // holds it (`release_log`), and gives the entries back when a resync,
    // a late spectator or the transcript needs them. What the session
    // answers must be what it answered holding them (G6: a resync is what
    // the side was sent; G5: the transcript verifies).
    let bytes = |v: &[ToClient]| -> Vec<Vec<u8>> {
        v.iter()
            .map(hexveil_protocol::message::encode_padded)
            .collect()
    };
    let mut t = Table::open(example());
    t.step_into_the_minefield();
    let stored = t.session.log();
    let before_a = t.session.resync(Side::A, 0);
    let public: Vec<_> = (0..stored.len() as u64)
        .map(|seq| t.session.public_view(seq, &|_| None).unwrap())
        .collect();
    // Released in part (what the spectator delay still holds stays): the
    // entries from there on need no store.
    let keep = stored.len() - 2;
    t.session.release_log_before(keep);
    assert!(t.session.log_bytes() > 0);
    assert!(t.session.public_view(keep as u64, &|_| None).is_some());
    assert!(t.session.public_view(keep as u64 - 1, &|_| None).is_none());
    t.session.release_log();
    assert_eq!(t.session.log_bytes(), 0, "nothing held");
    assert_eq!(t.session.log_len(), stored.len());
    let none: hexveil_protocol::session::Stored = &|_| None;
    assert!(t.session.resync_with(Side::A, 0, none).is_none());
    assert!(t.session.log_with(none).is_none());
    let from_store = |i: usize| stored.get(i).cloned();
    assert_eq!(
        bytes(&t.session.resync_with(Side::A, 0, &from_store).unwrap()),
        bytes(&before_a)
    );
    for (seq, view) in public.iter().enumerate() {
        let again = t.session.public_view(seq as u64, &from_store).unwrap();
        assert_eq!(bytes(&[again]), bytes(std::slice::from_ref(view)));
    }
    // Play on: new entries are held until released again, the old ones
    // come from the store, and together they are what each side was sent.
    t.act(
        Side::A,
        hexveil_fixtures::move_into(&[hexveil_fixtures::units::GER_PZ], "4E7"),
    );
    let resync = t.session.resync_with(Side::B, 0, &from_store).unwrap();
    let seen: Vec<ToClient> = t.seen[&Side::B]
        .iter()
        .cloned()
        .map(ToClient::Update)
        .collect();
    assert_eq!(bytes(&resync), bytes(&seen));
    assert_eq!(
        bytes(
            &t.session
                .resync_with(Side::B, stored.len() as u64, none)
                .unwrap()
        ),
        bytes(&seen[stored.len()..]),
        "entries since the release need no store"
    );
    t.concede();
    let log = t.session.log_with(&from_store).unwrap();
    let file = hexveil_protocol::transcript::Transcript::new(log)
        .to_bytes()
        .unwrap();
    let verdict = hexveil_protocol::verifier::verify(&file, &hexveil_fixtures::rulesets());
    assert!(verdict.fault().is_none(), "{verdict:?}");
}
