//! A dishonest server against honest clients (issue 24): the real
//! [`Session`] and real [`Player`]s, with the server's messages to one
//! player (the victim) altered, dropped, invented or forked on the way, and
//! the server's own key to sign what it invents (it has it). Each attack
//! class ends with the victim refusing (nothing released) or stopping with
//! a proof that names the server; no honest party is blamed; no fork goes
//! unproven (G2, G4, G5).

mod common;

use common::forge;
use common::{Table, SEALED_B};
use hexveil_asl::{Action, Side};
use hexveil_core::{FactRequest, Layer, Location};
use hexveil_protocol::encoding::Party;
use hexveil_protocol::evidence::{self, Evidence, Finding};
use hexveil_protocol::message::{Body, Declared, Mode, Prompt, ToClient, Update};
use hexveil_protocol::player::{PlayerError, RefusedPrompt};
use hexveil_protocol::session::Output;
use hexveil_protocol::witness::Breach;

/// What the victim's machine did with what the server showed it.
#[derive(Debug, Default)]
struct Victim {
    /// Prompts it refused, with the evidence.
    refused: Vec<RefusedPrompt>,
    /// What stopped it, if anything.
    breach: Option<Breach>,
    /// Every answer it signed and sent.
    released: Vec<Body>,
}

/// The server's outputs delivered like [`Table::run`], except that every
/// update to `victim` first goes through `tamper`, which gives what the
/// dishonest server shows instead (nothing, the same, or several).
fn run_with(
    t: &mut Table,
    victim: Side,
    v: &mut Victim,
    tamper: &mut dyn FnMut(&Update, &hexveil_protocol::player::Player) -> Vec<Update>,
) {
    while let Some(o) = t.queue.pop_front() {
        match o {
            Output::ToPlayer(side, ToClient::Update(u)) if side == victim => {
                if v.breach.is_some() {
                    continue;
                }
                let shown = tamper(&u, &t.players[&side]);
                for s in shown {
                    let player = t.players.get_mut(&side).unwrap();
                    match player.hear(&s) {
                        Ok(heard) => {
                            t.seen.entry(side).or_default().push(heard.update);
                            v.refused.extend(heard.refused);
                            if let Some(env) = heard.answer {
                                v.released.push(Body::decode(&env.envelope().body).unwrap());
                                t.send(side, env);
                            }
                        }
                        Err(PlayerError::Breach(b)) => {
                            v.breach = Some(b);
                            break;
                        }
                        Err(e) => panic!("the victim failed: {e}"),
                    }
                }
            }
            Output::ToPlayer(side, ToClient::Receipt(r)) if side == victim => {
                if let Err(PlayerError::Breach(b)) =
                    t.players.get_mut(&side).unwrap().on_receipt(&r)
                {
                    v.breach.get_or_insert(b);
                }
            }
            Output::ToPlayer(side, ToClient::Rejected(r)) => {
                t.players.get_mut(&side).unwrap().on_refusal(&r);
                t.rejections.push((side, r.reason));
            }
            Output::ToPlayer(side, ToClient::Update(u)) => {
                let answer = t.players.get_mut(&side).unwrap().on_update(&u).unwrap();
                t.seen.entry(side).or_default().push(u);
                if let Some(env) = answer {
                    t.send(side, env);
                }
            }
            _ => {}
        }
    }
}

/// `side` declares `action`; everything it causes is delivered through
/// `tamper`.
fn act_with(
    t: &mut Table,
    side: Side,
    action: Action,
    victim: Side,
    v: &mut Victim,
    tamper: &mut dyn FnMut(&Update, &hexveil_protocol::player::Player) -> Vec<Update>,
) {
    let out = t.declare(side, action);
    t.queue.extend(out);
    run_with(t, victim, v, tamper);
}

/// The evidence of a refused prompt checked against the game's log so far
/// (its transcript): what it proves.
fn proven(t: &Table, refused: &RefusedPrompt) -> Finding {
    let e = refused
        .evidence
        .as_ref()
        .expect("a prompt that releases a secret is signed");
    evidence::check(
        e,
        None,
        Some(&t.game().bytes()),
        &hexveil_fixtures::rulesets(),
    )
    .expect("the evidence is consistent")
}

/// The pad roll the log of `t` is at.
fn rolls_so_far(t: &Table) -> u64 {
    let g = t.game();
    (0..g.entries.len())
        .filter(|i| matches!(g.body(*i), Body::Roll(_)))
        .count() as u64
}

#[test]
fn g2_a_window_asked_between_two_actions_is_refused_and_its_fork_proven() {
    // Item 1 of issue 24: between two actions the server asks B for the
    // window of the roll the log is at. Released, it would let the server
    // and a colluding A try nonces offline until the beacon gives the
    // dice they want. B's machine sees no declaration pending: nothing is
    // released, and the server's signed prompt is kept.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let k = rolls_so_far(&t);
    let b = t.players.get_mut(&Side::B).unwrap();
    let fake = forge::invent(
        b.witness().next_seq(),
        b.witness().head(),
        Some(Side::B),
        "openings",
        Prompt::Window { k, count: 4 },
    );
    let heard = b.hear(&fake).unwrap();
    assert!(heard.answer.is_none(), "nothing released (G2)");
    let refused = heard.refused.expect("refused");
    assert!(
        refused.reason.contains("no action") && refused.reason.contains("G2"),
        "{}",
        refused.reason
    );
    // The real game goes on at that seq: B's machine holds the server's
    // two statements about it, a fork proof.
    let mut v = Victim::default();
    act_with(
        &mut t,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
        Side::B,
        &mut v,
        &mut |u, _| vec![u.clone()],
    );
    // The entry the server showed is not in its log: against the log, the
    // signed prompt proves it (G5).
    assert!(
        matches!(proven(&t, &refused), Finding::Server(ref w) if w.contains("another log")),
        "{:?}",
        proven(&t, &refused)
    );
    let Some(Breach::Fork { proof, .. }) = v.breach else {
        panic!("B catches the fork: {:?}", v.breach)
    };
    assert_eq!(proof.verify(), Ok(()), "the proof names the server");
    let file = Evidence::Fork(proof).to_file();
    let back = Evidence::from_file(&file).unwrap();
    assert_eq!(
        evidence::check(&back, None, None, &hexveil_fixtures::rulesets()),
        Ok(Finding::Server(
            "the server signed two heads for one position of the game's log: it showed two histories (G5)".into()
        ))
    );
}

#[test]
fn g2_pad_entries_asked_for_rolls_no_declaration_reached_are_refused() {
    // During A's real step, the server changes B's window to start past the
    // roll the log is at, or asks B's single pad entry of a roll the
    // action rolls with A's nonce: both would hand the server (and A) the
    // values of rolls to come.
    for change in 0..3 {
        let mut t = Table::new(5, SEALED_B);
        t.end_phase_until(hexveil_asl::turn::Phase::Movement);
        let mut v = Victim::default();
        act_with(
            &mut t,
            Side::A,
            hexveil_fixtures::step_into_the_minefield(),
            Side::B,
            &mut v,
            &mut |u, _| match &u.prompt {
                Prompt::OpenAhead { requests, k, count } => {
                    let prompt = match change {
                        0 => Prompt::OpenAhead {
                            requests: requests.clone(),
                            k: k + 3,
                            count: *count,
                        },
                        1 => Prompt::Window {
                            k: k + 1,
                            count: *count,
                        },
                        _ => Prompt::Entry { k: *k },
                    };
                    vec![forge::alter(u, Some(Side::B), |u| u.prompt = prompt)]
                }
                _ => vec![u.clone()],
            },
        );
        assert!(v.released.is_empty(), "change {change}: {:?}", v.released);
        let r = v.refused.first().expect("refused");
        assert!(r.reason.contains("G2"), "change {change}: {}", r.reason);
        assert!(
            matches!(proven(&t, r), Finding::Server(_)),
            "change {change}"
        );
    }
}

#[test]
fn g4_openings_asked_between_actions_or_of_the_other_side_are_refused() {
    // Item 2 of issue 24: a false prompt naming every eligible leaf of B
    // between two actions, or a fact of A's asked of B.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let ap = Layer::named("ap").unwrap();
    let every: Vec<FactRequest> = t
        .session
        .referee()
        .eligible(Side::B, ap)
        .into_iter()
        .map(|location| FactRequest {
            owner: Side::B,
            layer: ap,
            location,
        })
        .collect();
    assert!(every.len() > 300, "B has {} A-P leaves", every.len());
    let b = t.players.get_mut(&Side::B).unwrap();
    let (seq, head) = (b.witness().next_seq(), b.witness().head());
    let heard = b
        .hear(&forge::invent(
            seq,
            head,
            Some(Side::B),
            "openings",
            Prompt::Open(every),
        ))
        .unwrap();
    assert!(heard.answer.is_none());
    let reason = heard.refused.unwrap().reason;
    assert!(reason.contains("no action"), "{reason}");
    // A fact of the other side is never this side's to open.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let mut v = Victim::default();
    act_with(
        &mut t,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
        Side::B,
        &mut v,
        &mut |u, _| match &u.prompt {
            Prompt::OpenAhead { k, count, .. } => vec![forge::alter(u, Some(Side::B), |u| {
                u.prompt = Prompt::OpenAhead {
                    requests: vec![FactRequest {
                        owner: Side::A,
                        layer: ap,
                        location: Location::key_of("3E3").unwrap(),
                    }],
                    k: *k,
                    count: *count,
                }
            })],
            _ => vec![u.clone()],
        },
    );
    assert!(v.released.is_empty());
    assert!(
        v.refused[0].reason.contains("a fact of the other side"),
        "{:?}",
        v.refused
    );
}

#[test]
fn g4_b28_531_a_move_the_log_does_not_hold_is_no_move_for_the_standing_orders() {
    // Item 2 of issue 24: "the tank moved into 3E5", in the server's words
    // only. A declaration is an entry every party reads whole, signed by
    // its author: a sealed entry that shows one is refused as unbound, and
    // the owner's orders never see it.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let b = t.players.get_mut(&Side::B).unwrap();
    let (seq, head) = (b.witness().next_seq(), b.witness().head());
    let fake = forge::invent(seq, head, Some(Side::B), "action", Prompt::Wait);
    let tank_into_3e5 = hexveil_asl::ruleset::encode_action(&hexveil_fixtures::move_into(
        &[hexveil_fixtures::units::GER_PZ],
        "3E5",
    ));
    let fake = forge::alter(&fake, Some(Side::B), |u| {
        u.action = Some(Declared {
            by: Side::A,
            action: tank_into_3e5,
        })
    });
    match b.hear(&fake) {
        Err(PlayerError::Breach(Breach::Unbound { reason, .. })) => {
            assert!(reason.contains("cannot show an action"), "{reason}")
        }
        other => panic!("a sealed entry showing an action is unbound: {other:?}"),
    }
}

#[test]
fn g5_an_honest_answer_to_a_false_request_is_never_recorded_against_its_owner() {
    // Item 3 of issue 24: shown a request for another location than the
    // referee's, B opens that location honestly. The referee refuses the
    // answer (it answers another request), the server records no
    // BadAnswer, and a server that records one anyway is at fault.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let mut v = Victim::default();
    let mut shown_once = false;
    act_with(
        &mut t,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
        Side::B,
        &mut v,
        &mut |u, _| match &u.prompt {
            Prompt::OpenAhead { requests, k, count } if !shown_once => {
                shown_once = true;
                let mut other = requests.clone();
                // The exit hex 3E3 asked; 3E4 shown (both in the step's
                // bound).
                other[0].location = Location::key_of("3E4").unwrap();
                vec![forge::alter(u, Some(Side::B), |u| {
                    u.prompt = Prompt::OpenAhead {
                        requests: other,
                        k: *k,
                        count: *count,
                    }
                })]
            }
            _ => vec![u.clone()],
        },
    );
    assert_eq!(v.released.len(), 1, "B answered the false prompt");
    assert!(
        t.rejections
            .iter()
            .any(|(s, r)| *s == Side::B && r.contains("answers another request")),
        "{:?}",
        t.rejections
    );
    let g = t.game();
    assert!(
        g.find(|p, b| p == Party::Server && matches!(b, Body::BadAnswer(_)))
            .is_none(),
        "no refused answer recorded against B"
    );
    // A server that records it anyway is at fault, not B.
    let Body::OpenAhead(answer) = &v.released[0] else {
        panic!("an opening with its window")
    };
    let mut forged = g.truncate(g.entries.len());
    let env = forged.envelope(
        Party::B,
        hexveil_protocol::message::encode(&Body::OpenAhead(answer.clone())),
    );
    forged.push(Party::Server, &Body::BadAnswer(env));
    let verdict =
        hexveil_protocol::verifier::verify(&forged.bytes(), &hexveil_fixtures::rulesets());
    let f = verdict.fault().expect("the record is refused");
    assert_eq!(f.blame, hexveil_protocol::verifier::Blame::Server, "{f}");
}

#[test]
fn g1_g5_a_transition_is_committed_only_once_the_log_accepts_it() {
    // Item 3 of issue 24: a Transitions prompt with another new content.
    // B answers it (its own fact, opened in this action), the referee
    // refuses the answer (another request), and B's keeper commits
    // nothing: shown the true prompt again, B answers it from the
    // unchanged layout, it is accepted, and the game verifies clean.
    // An FFE on B's mines changes them only on a K or KIA (B28.62); the
    // dice follow the declaration's bytes, so try FPs until one does.
    let mut found = None;
    for fp in [36u8, 30, 24, 20, 16, 12, 8, 6, 4, 2] {
        let mut t = Table::new(5, SEALED_B);
        t.end_phase_until(hexveil_asl::turn::Phase::PrepFire);
        let mut v = Victim::default();
        let mut true_prompt = None;
        act_with(
            &mut t,
            Side::A,
            Action::Ffe {
                hex: "3E4".parse().unwrap(),
                fp,
                kind: hexveil_asl::action::FfeKind::HeConcentration,
            },
            Side::B,
            &mut v,
            &mut |u, _| match &u.prompt {
                Prompt::Transitions(list) if true_prompt.is_none() => {
                    true_prompt = Some(u.clone());
                    let mut other = list.clone();
                    other[0].1 = hexveil_core::Content([0x55; 8]);
                    vec![forge::alter(u, Some(Side::B), |u| {
                        u.prompt = Prompt::Transitions(other)
                    })]
                }
                _ => vec![u.clone()],
            },
        );
        if let Some(p) = true_prompt {
            found = Some((t, p));
            break;
        }
    }
    let (mut t, true_prompt) = found.expect("some FFE asks B for transitions (B28.62)");
    assert!(
        t.rejections
            .iter()
            .any(|(s, r)| *s == Side::B && r.contains("answers another request")),
        "{:?}",
        t.rejections
    );
    t.rejections.clear();
    // The server shows the true prompt again: B answers it, from a layout
    // the false one did not change.
    let b = t.players.get_mut(&Side::B).unwrap();
    let heard = b.hear(&true_prompt).unwrap();
    assert!(heard.again);
    let env = heard.answer.expect("the true prompt is answered");
    t.send(Side::B, env);
    t.run();
    assert_eq!(t.rejections, vec![], "the true transitions are accepted");
    assert!(t.playing(), "the game goes on");
    t.concede();
    let verdict =
        hexveil_protocol::verifier::verify(&t.game().bytes(), &hexveil_fixtures::rulesets());
    assert!(verdict.fault().is_none(), "{verdict}");
}

#[test]
fn g5_a_branch_after_a_receipted_answer_is_a_fork_proof_that_names_the_server() {
    // Item 4 of issue 24: B's answer is receipted at seq N; the server then
    // shows both players a branch whose entry N is its own Timeout of B.
    // The branch alone verifies clean; B's machine holds the receipt and
    // the branch's entry: two heads the server signed for one position.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let mut v = Victim::default();
    let mut branched = false;
    act_with(
        &mut t,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
        Side::B,
        &mut v,
        &mut |u, _| match &u.logged {
            hexveil_protocol::message::Logged::Own(r) if !branched => {
                branched = true;
                let prev = u.attest.as_deref().map(|a| a.prev_head).unwrap_or_else(|| {
                    // The head before B's entry: the one its receipt follows.
                    panic!("B's answer comes with a view receipt: {r:?}")
                });
                vec![forge::server_entry(
                    common::GAME,
                    u.seq,
                    prev,
                    &Body::Timeout {
                        party: Party::B,
                        request: "openings".into(),
                    },
                    Some(Side::B),
                    Prompt::Wait,
                )]
            }
            _ => vec![u.clone()],
        },
    );
    assert!(branched, "B's answer was receipted and shown as its own");
    let Some(Breach::Fork { proof, what }) = v.breach else {
        panic!("B catches the fork: {:?}", v.breach)
    };
    assert!(what.contains("receipt"), "{what}");
    assert_eq!(proof.verify(), Ok(()));
    assert!(matches!(
        evidence::check(
            &Evidence::Fork(proof),
            None,
            None,
            &hexveil_fixtures::rulesets()
        ),
        Ok(Finding::Server(_))
    ));
}

#[test]
fn g5_dice_or_events_the_signed_entry_does_not_give_are_never_shown() {
    // Item 4 of issue 24: a roll shown with dice (1,1) where the log has
    // others, and a public ruling shown without its events. B reads both
    // from the signed entries it holds: unsigned, the words are refused as
    // unbound; signed again by the server, they are a proof against it.
    for signed in [false, true] {
        for what in ["dice", "events"] {
            let mut t = Table::new(5, SEALED_B);
            t.end_phase_until(hexveil_asl::turn::Phase::Movement);
            let mut v = Victim::default();
            let mut done = false;
            // A step into the minefield rolls; ending the phase rules with
            // public events only.
            let action = match what {
                "dice" => hexveil_fixtures::step_into_the_minefield(),
                _ => Action::EndPhase,
            };
            act_with(&mut t, Side::A, action, Side::B, &mut v, &mut |u, _| {
                let hit = match what {
                    "dice" => !u.dice.is_empty(),
                    _ => u.entry == "ruling" && !u.events.is_empty(),
                };
                if done
                    || !hit
                    || !matches!(u.logged, hexveil_protocol::message::Logged::Full { .. })
                {
                    return vec![u.clone()];
                }
                done = true;
                let change = |u: &mut Update| match what {
                    "dice" => {
                        u.dice = vec![hexveil_core::Roll::DR {
                            coloured: 1,
                            white: 1,
                        }]
                    }
                    _ => u.events.clear(),
                };
                if signed {
                    vec![forge::alter(u, Some(Side::B), change)]
                } else {
                    let mut u = u.clone();
                    change(&mut u);
                    vec![u]
                }
            });
            assert!(done, "{what}: B was shown a whole {what} entry");
            match (&v.breach, signed) {
                (Some(Breach::Unbound { reason, .. }), false) => assert!(
                    reason.contains("contradict")
                        || reason.contains("not what the server's view receipt signs"),
                    "{what}: {reason}"
                ),
                (Some(Breach::FalseView { proof, .. }), true) => assert!(
                    matches!(
                        evidence::check(
                            &Evidence::View(proof.clone()),
                            None,
                            Some(&t.game().bytes()),
                            &hexveil_fixtures::rulesets()
                        ),
                        Ok(Finding::Server(_))
                    ),
                    "{what}"
                ),
                other => panic!("{what} signed={signed}: {other:?}"),
            }
        }
    }
}

#[test]
fn g5_a_sealed_ruling_shown_without_its_events_is_proven_against_the_transcript() {
    // A's view of the ruling on its step into B's mines is sealed (it
    // holds events for the referee): A cannot check it live. The server
    // drops the public events from it and signs that; once the game is
    // over and its transcript public, A's audit finds the view the log does
    // not give, and the view receipt proves it.
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let mut v = Victim::default();
    let mut dropped = false;
    act_with(
        &mut t,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
        Side::A,
        &mut v,
        &mut |u, _| match &u.logged {
            hexveil_protocol::message::Logged::Sealed { .. } if u.entry == "ruling" && !dropped => {
                dropped = true;
                vec![forge::alter(u, Some(Side::A), |u| u.events.clear())]
            }
            _ => vec![u.clone()],
        },
    );
    assert!(dropped, "A's view of the ruling is sealed");
    assert!(v.breach.is_none(), "{:?}", v.breach);
    t.concede();
    let audit = evidence::audit(
        &t.game().bytes(),
        &hexveil_fixtures::rulesets(),
        t.players[&Side::A].witness(),
    )
    .unwrap();
    assert_eq!(audit.found.len(), 1, "{audit}");
    assert!(audit.found[0].1.contains("events"), "{audit}");
    // B, shown the truth, finds nothing.
    let b = evidence::audit(
        &t.game().bytes(),
        &hexveil_fixtures::rulesets(),
        t.players[&Side::B].witness(),
    )
    .unwrap();
    assert!(b.found.is_empty(), "{b}");
    assert!(b.views > 0 && b.entries > 0, "{b}");
}

#[test]
fn g2_g4_in_an_escrow_game_the_player_still_guards_its_pad_and_opens_nothing() {
    // Escrow mode (DESIGN 3.6): the server answers openings from the
    // escrow, but the pad seed stays with the player (G2). A window asked
    // between actions is refused as in a Live game, and so is any prompt
    // to open: the server answers those itself.
    let mut t = Table::with_mode(5, SEALED_B, Mode::Escrow);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    let k = rolls_so_far(&t);
    for prompt in [
        Prompt::Window { k, count: 4 },
        Prompt::Open(vec![FactRequest {
            owner: Side::B,
            layer: Layer::named("ap").unwrap(),
            location: Location::key_of("3E4").unwrap(),
        }]),
    ] {
        let b = t.players.get_mut(&Side::B).unwrap();
        let heard = b
            .hear(&forge::invent(
                b.witness().next_seq(),
                b.witness().head(),
                Some(Side::B),
                "openings",
                prompt.clone(),
            ))
            .unwrap();
        assert!(heard.answer.is_none(), "{prompt:?}");
        assert!(heard.refused.is_some(), "{prompt:?}");
        // The invented entry is a fork of the real log: start again.
        t = Table::with_mode(5, SEALED_B, Mode::Escrow);
        t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    }
    // During a real step the escrow answers; B is asked only its window.
    let mut v = Victim::default();
    let mut asked_to_open = false;
    act_with(
        &mut t,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
        Side::B,
        &mut v,
        &mut |u, _| {
            if let Prompt::Window { k, count } = &u.prompt {
                asked_to_open = true;
                return vec![forge::alter(u, Some(Side::B), |u| {
                    u.prompt = Prompt::OpenAhead {
                        requests: vec![FactRequest {
                            owner: Side::B,
                            layer: Layer::named("ap").unwrap(),
                            location: Location::key_of("3E4").unwrap(),
                        }],
                        k: *k,
                        count: *count,
                    }
                })];
            }
            vec![u.clone()]
        },
    );
    assert!(asked_to_open, "B's window is asked during the step");
    assert!(v.released.is_empty(), "{:?}", v.released);
    assert!(v.refused[0].reason.contains("Escrow"), "{:?}", v.refused);
}
