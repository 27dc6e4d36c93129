//! A whole game through the live session and two protocol players, in
//! memory: genesis, pads, the Secret dr for Dummies (B28.47), setups with
//! sealed layouts, moves into mined hexes answered by openings and beacon
//! rolls, a concession, reveals, and a clean close (G1, G2, G5).

use hexveil_core::{Action, MoveMode, Side};
use hexveil_protocol::encoding::{GameId, Party};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::keeper::DaisyOrder;
use hexveil_protocol::message::{Mode, Prompt, ToClient, Update};
use hexveil_protocol::pad::PadSeed;
use hexveil_protocol::player::{Player, Secrets};
use hexveil_protocol::referee::Awaiting;
use hexveil_protocol::session::{GameParams, Output, Session};
use std::collections::{BTreeMap, VecDeque};

const PAD_LEN: u32 = 256;

fn scenario_toml() -> String {
    // The example scenario, with side A allowed to set up on board 3 too so
    // that its first step is into B's minefields.
    include_str!("../../examples/scenario.toml").replace(
        "setup_area = { boards = [4] }",
        "setup_area = { boards = [3, 4] }",
    )
}

const SETUP_A: &str = r#"
side = "A"
[positions]
ger-squad-1 = "3E3"
ger-leader = "3E3"
ger-pz = "4E6"
"#;

const SEALED_A: &str = "side = \"A\"\n";

fn secrets(side: Side, public: &str, sealed: &str, fill: u8) -> Secrets {
    Secrets {
        side,
        public_setup_toml: public.to_string(),
        sealed_setup_toml: sealed.to_string(),
        layout_seeds: ["ap", "at", "booby"]
            .iter()
            .enumerate()
            .map(|(i, l)| (l.to_string(), [fill + i as u8; 32]))
            .collect(),
        notes_seed: [fill + 10; 32],
        pad_seed: [fill + 11; 32],
        daisy_orders: vec![DaisyOrder {
            holder: hexveil_core::unit::UnitId(4),
            hex: "3E5".parse().unwrap(),
        }],
    }
}

/// Drives the session and both players until nothing is pending.
struct Table {
    session: Session,
    players: BTreeMap<Side, Player>,
    last: BTreeMap<Side, Update>,
    seen: BTreeMap<Side, Vec<Update>>,
    queue: VecDeque<Output>,
}

impl Table {
    fn new() -> Table {
        Table::with_scenario(scenario_toml(), SETUP_A)
    }

    fn with_scenario(toml: String, setup_a: &str) -> Table {
        Table::custom(
            toml,
            setup_a,
            include_str!("../../examples/sealed-b.toml"),
            20,
        )
    }

    fn custom(toml: String, setup_a: &str, sealed_b: &str, a_fill: u8) -> Table {
        Table::with_pads(toml, setup_a, sealed_b, a_fill, PAD_LEN)
    }

    fn with_pads(toml: String, setup_a: &str, sealed_b: &str, a_fill: u8, pad_len: u32) -> Table {
        let game_id = GameId([7; 16]);
        let a = Identity::from_seed(&[1; 32]).unwrap();
        let b = Identity::from_seed(&[2; 32]).unwrap();
        let server = Identity::from_seed(&[3; 32]).unwrap();
        let params = GameParams {
            scenario_toml: toml.clone(),
            players: [a.public_key(), b.public_key()],
            mode: Mode::Live,
            pad_len,
            answer_timeout_ms: 30_000,
        };
        let (session, out) = Session::create(game_id, params, server, PadSeed([9; 32]), 0).unwrap();
        let pa = Player::new(
            a,
            game_id,
            &toml,
            pad_len,
            Mode::Live,
            secrets(Side::A, setup_a, SEALED_A, a_fill),
        )
        .unwrap();
        let pb = Player::new(
            b,
            game_id,
            &toml,
            pad_len,
            Mode::Live,
            secrets(
                Side::B,
                include_str!("../../examples/setup-b.toml"),
                sealed_b,
                40,
            ),
        )
        .unwrap();
        let mut t = Table {
            session,
            players: [(Side::A, pa), (Side::B, pb)].into_iter().collect(),
            last: BTreeMap::new(),
            seen: BTreeMap::new(),
            queue: out.into(),
        };
        t.run();
        t
    }

    fn run(&mut self) {
        while let Some(o) = self.queue.pop_front() {
            match o {
                Output::Persist(_) | Output::ToSpectators(_) => {}
                Output::ToPlayer(side, ToClient::Update(u)) => {
                    self.last.insert(side, u.clone());
                    self.seen.entry(side).or_default().push(u.clone());
                    let answer = self.players.get_mut(&side).unwrap().on_update(&u).unwrap();
                    if let Some(env) = answer {
                        let out = self.session.submit(side, env, 0);
                        self.queue.extend(out);
                    }
                }
                Output::ToPlayer(side, ToClient::Rejected { reason }) => {
                    panic!("side {side}'s entry was refused: {reason}")
                }
                Output::ToPlayer(_, _) => {}
            }
        }
    }

    fn act(&mut self, side: Side, action: Action) {
        let env = self.players.get_mut(&side).unwrap().act(action);
        let out = self.session.submit(side, env, 0);
        self.queue.extend(out);
        self.run();
    }

    fn end_phase_until(&mut self, phase: hexveil_core::turn::Phase) {
        for _ in 0..20 {
            let engine = self.session.referee().engine().unwrap();
            if engine.state().phase == phase {
                return;
            }
            // A3.5: the defender ends the DFPh, the phasing side the others.
            let side = hexveil_core::turn::who_ends_phase(engine.state());
            self.act(side, Action::EndPhase);
        }
        panic!("never reached {phase:?}");
    }
}

#[test]
fn g5_a_whole_game_replays_and_closes_clean() {
    let mut t = Table::new();
    // Pads, the Secret dr for B's extra Dummies (B28.47) and both setups are
    // answered by the players' machines.
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
    t.end_phase_until(hexveil_core::turn::Phase::Movement);
    // A's squad and leader walk from 3E3 (not mined) into 3E4 (hidden A-P 12).
    let squad = hexveil_core::unit::UnitId(0);
    let leader = hexveil_core::unit::UnitId(1);
    t.act(
        Side::A,
        Action::Move {
            units: vec![squad, leader],
            to: "3E4".parse().unwrap(),
            mode: MoveMode::Normal,
        },
    );
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
    let env = t.players.get_mut(&Side::A).unwrap().concede();
    let out = t.session.submit(Side::A, env, 0);
    t.queue.extend(out);
    t.run();
    assert!(
        t.session.is_closed(),
        "awaiting {:?}",
        t.session.referee().awaiting()
    );
    assert_eq!(t.session.faults(), &[], "honest reveals prove no fault");
    assert_eq!(t.session.referee().result().unwrap().winner, Some(Side::B));
    assert_eq!(t.last[&Side::A].prompt, Prompt::Wait);
    // G6: restoring from the durable log gives the same referee state.
    let (restored, owed) = Session::restore(
        t.session.log().to_vec(),
        Identity::from_seed(&[3; 32]).unwrap(),
        PadSeed([9; 32]),
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
    let mut t = Table::new();
    let head = t.session.referee().log().head();
    // B is not phasing: its action is refused by the engine.
    let env = t.players.get_mut(&Side::B).unwrap().act(Action::EndPhase);
    let out = t.session.submit(Side::B, env, 0);
    assert!(matches!(
        out.as_slice(),
        [Output::ToPlayer(Side::B, ToClient::Rejected { .. })]
    ));
    assert_eq!(t.session.referee().log().head(), head);
    // A replayed entry is refused as a replay.
    let env = t.players.get_mut(&Side::A).unwrap().act(Action::EndPhase);
    let out = t.session.submit(Side::A, env.clone(), 0);
    t.queue.extend(out);
    t.run();
    let out = t.session.submit(Side::A, env, 0);
    assert!(
        matches!(out.as_slice(), [Output::ToPlayer(Side::A, ToClient::Rejected { reason })] if reason.contains("replay") || reason.contains("seq")),
        "{out:?}"
    );
}

#[test]
fn g2_a_party_that_does_not_answer_loses() {
    let mut t = Table::new();
    t.end_phase_until(hexveil_core::turn::Phase::Movement);
    // A declares a move; B's machine is "offline": we drop what B would send.
    let env = t.players.get_mut(&Side::A).unwrap().act(Action::Move {
        units: vec![hexveil_core::unit::UnitId(0)],
        to: "3E4".parse().unwrap(),
        mode: MoveMode::Normal,
    });
    let out = t.session.submit(Side::A, env, 0);
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
    let mut t = Table::new();
    t.end_phase_until(hexveil_core::turn::Phase::Movement);
    let before = t.seen[&Side::B].len();
    t.act(
        Side::A,
        Action::Move {
            units: vec![hexveil_core::unit::UnitId(0), hexveil_core::unit::UnitId(1)],
            to: "3E4".parse().unwrap(),
            mode: MoveMode::Normal,
        },
    );
    let asked: Vec<String> = t.seen[&Side::B][before..]
        .iter()
        .filter_map(|u| match &u.prompt {
            Prompt::Open(reqs) => Some(
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
    let text = format!("{:?}", ruling.events);
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
    // (R12), so the engine refuses after the leaf was opened and the DR
    // rolled. The action must end as a logged void ruling, rolls spent,
    // nothing moved, and nobody left waiting.
    let mut t = Table::with_scenario(
        scenario_toml()
            + "\n[[units]]\nname = \"ger-truck\"\nside = \"A\"\nkind = \"vehicle\"\n[units.vehicle]\nprinted_mp = 10\n",
        &SETUP_A.replace("ger-pz = \"4E6\"", "ger-pz = \"4E6\"\nger-truck = \"3E3\""),
    );
    t.end_phase_until(hexveil_core::turn::Phase::Movement);
    let truck = hexveil_core::unit::UnitId(6);
    t.act(
        Side::A,
        Action::Move {
            units: vec![truck],
            to: "3E4".parse().unwrap(),
            mode: MoveMode::Normal,
        },
    );
    let ruling = t.seen[&Side::A].last().unwrap();
    assert!(
        matches!(ruling.events.as_slice(), [hexveil_core::Event { kind: hexveil_core::EventKind::Void { reason }, .. }] if reason.contains("Vehicle line") || reason.contains("R12")),
        "{:?}",
        ruling.events
    );
    let engine = t.session.referee().engine().unwrap();
    assert_eq!(
        engine.state().unit(truck).unwrap().hex,
        Some("3E3".parse().unwrap()),
        "a void action changes nothing"
    );
    assert!(matches!(
        t.session.referee().awaiting(),
        Awaiting::Action { .. }
    ));
}

#[test]
fn g5_a_reveal_with_an_illegal_strength_is_a_proven_fault_of_its_side_b28_1() {
    let mut t = Table::new();
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

/// What the mover (A) and a spectator receive, as (count, padded sizes),
/// from A's move into 3E4 to its ruling, and whether the mined run's attack
/// had an effect.
fn received_during_move(sealed_b: &str, a_fill: u8) -> (Vec<usize>, Vec<usize>, bool) {
    let mut t = Table::custom(scenario_toml(), SETUP_A, sealed_b, a_fill);
    t.end_phase_until(hexveil_core::turn::Phase::Movement);
    let env = t.players.get_mut(&Side::A).unwrap().act(Action::Move {
        units: vec![hexveil_core::unit::UnitId(0)],
        to: "3E4".parse().unwrap(),
        mode: MoveMode::Normal,
    });
    let out = t.session.submit(Side::A, env, 0);
    t.queue.extend(out);
    let (mut to_a, mut to_spectators) = (Vec::new(), Vec::new());
    let mut effect = false;
    while let Some(o) = t.queue.pop_front() {
        match o {
            Output::ToPlayer(Side::A, msg) => {
                to_a.push(hexveil_protocol::message::encode_padded(&msg).len());
                if let ToClient::Update(u) = &msg {
                    effect |= format!("{:?}", u.events).contains("result: Some");
                    if let Some(e) = t.players.get_mut(&Side::A).unwrap().on_update(u).unwrap() {
                        let more = t.session.submit(Side::A, e, 0);
                        t.queue.extend(more);
                    }
                }
            }
            Output::ToPlayer(side, ToClient::Update(u)) => {
                if let Some(e) = t.players.get_mut(&side).unwrap().on_update(&u).unwrap() {
                    let more = t.session.submit(side, e, 0);
                    t.queue.extend(more);
                }
            }
            Output::ToSpectators(msg) => {
                to_spectators.push(hexveil_protocol::message::encode_padded(&msg).len())
            }
            _ => {}
        }
    }
    (to_a, to_spectators, effect)
}

#[test]
fn g3_mover_and_spectators_receive_the_same_traffic_for_a_mined_hex_without_effect_and_an_empty_hex(
) {
    let mined = include_str!("../../examples/sealed-b.toml").replace(
        "{ hex = \"3E4\", strength = 12 }",
        "{ hex = \"3E4\", strength = 6 }",
    );
    let empty = include_str!("../../examples/sealed-b.toml")
        .replace("  { hex = \"3E4\", strength = 12 },  # hidden\n", "");
    assert_ne!(mined, empty);
    // The dice follow from every party's pad, so look for A's pad seeds
    // under which the A-P 6 attack in 3E4 has no effect (DR 9+ on the 6
    // column); the search is deterministic.
    let fill = (0u8..60)
        .find(|f| !received_during_move(&mined, *f).2)
        .expect("some pad gives a no-effect attack");
    let (a_mined, s_mined, effect) = received_during_move(&mined, fill);
    assert!(!effect);
    let (a_empty, s_empty, _) = received_during_move(&empty, fill);
    assert_eq!(a_mined, a_empty, "the mover's message count and sizes (G3)");
    assert_eq!(
        s_mined, s_empty,
        "the spectators' message count and sizes (G3)"
    );
    assert!(
        a_mined.len() >= 8,
        "the move produced openings, rolls and a ruling"
    );
}

#[test]
fn g1_a_player_commits_nothing_to_a_game_on_another_scenario() {
    // The genesis update carries the scenario hash; a player who set up for
    // another text refuses before sending anything.
    let game_id = GameId([7; 16]);
    let server = Identity::from_seed(&[3; 32]).unwrap();
    let a = Identity::from_seed(&[1; 32]).unwrap();
    let b = Identity::from_seed(&[2; 32]).unwrap();
    let params = GameParams {
        scenario_toml: scenario_toml(),
        players: [a.public_key(), b.public_key()],
        mode: Mode::Live,
        pad_len: PAD_LEN,
        answer_timeout_ms: 30_000,
    };
    let (_session, out) = Session::create(game_id, params, server, PadSeed([9; 32]), 0).unwrap();
    let other_text = scenario_toml().replace("turns = 5", "turns = 4");
    let mut pa = Player::new(
        a,
        game_id,
        &other_text,
        PAD_LEN,
        Mode::Live,
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
    let mut t = Table::with_pads(
        scenario_toml(),
        SETUP_A,
        include_str!("../../examples/sealed-b.toml"),
        20,
        2,
    );
    t.end_phase_until(hexveil_core::turn::Phase::Movement);
    t.act(
        Side::A,
        Action::Move {
            units: vec![hexveil_core::unit::UnitId(0), hexveil_core::unit::UnitId(1)],
            to: "3E4".parse().unwrap(),
            mode: MoveMode::Normal,
        },
    );
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
    let env = t.players.get_mut(&Side::A).unwrap().concede();
    let out = t.session.submit(Side::A, env, 0);
    t.queue.extend(out);
    t.run();
    assert!(t.session.is_closed());
    assert_eq!(t.session.faults(), &[], "reveals prove every epoch's pad");
    let file = hexveil_protocol::transcript::Transcript {
        entries: t.session.log().to_vec(),
    }
    .to_bytes()
    .unwrap();
    let verdict = hexveil_protocol::verifier::verify(&file);
    assert!(verdict.fault().is_none(), "{verdict:?}");
    let (restored, owed) = Session::restore(
        t.session.log().to_vec(),
        Identity::from_seed(&[3; 32]).unwrap(),
        PadSeed([9; 32]),
        0,
    )
    .unwrap();
    assert!(owed.is_empty(), "a closed log owes nothing");
    assert!(restored.is_closed());
}
