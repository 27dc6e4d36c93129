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
use hexveil_protocol::end_check::{PublicWitness, Unwatched};
use hexveil_protocol::evidence::{self, Evidence, Finding};
use hexveil_protocol::message::{Body, Declared, Logged, Mode, Prompt, ToClient, Update};
use hexveil_protocol::player::{PlayerError, RefusedPrompt};
use hexveil_protocol::session::Output;
use hexveil_protocol::witness::{Breach, Seen};

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
                        // Held until the next update places it (message
                        // version 6): shown with it.
                        Ok(None) => {}
                        Ok(Some(heard)) => {
                            let seen = t.seen.entry(side).or_default();
                            seen.extend(heard.placed);
                            seen.push(heard.update);
                            v.refused.extend(heard.refused);
                            if let Some(env) = heard.answer {
                                v.released.push(Body::decode(&env.envelope().body).unwrap());
                                t.send(side, env);
                            }
                        }
                        Err(PlayerError::Breach(Breach::Gap { from, .. })) => {
                            // The client asks again from the first entry it
                            // lacks (ToServer::Sync); the server resends.
                            let again = t.session.resync(side, from);
                            for m in again.into_iter().rev() {
                                if let ToClient::Update(u) = m {
                                    t.queue
                                        .push_front(Output::ToPlayer(side, ToClient::Update(u)));
                                }
                            }
                            break;
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
                t.players
                    .get_mut(&side)
                    .unwrap()
                    .on_refusal(&r)
                    .expect("the server's refusal checks");
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
/// The example game with B's sealed setup, at A's Movement Phase.
fn in_movement() -> Table {
    let mut t = Table::new(5, SEALED_B);
    t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    t
}

/// A's squad steps into B's minefield; `victim`'s view is tampered with.
fn a_steps_into_the_mines(
    t: &mut Table,
    victim: Side,
    v: &mut Victim,
    tamper: &mut dyn FnMut(&Update, &hexveil_protocol::player::Player) -> Vec<Update>,
) {
    act_with(
        t,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
        victim,
        v,
        tamper,
    );
}

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

/// Whether a signed view proves the server wrong against the game's log
/// so far (its transcript).
fn view_proven(t: &Table, proof: &evidence::ViewProof) -> bool {
    matches!(
        evidence::check(
            &Evidence::View(Box::new(proof.clone())),
            None,
            Some(&t.game().bytes()),
            &hexveil_fixtures::rulesets()
        ),
        Ok(Finding::Server(_))
    )
}

/// B is shown an entry the server made up at its next seq, asking
/// `prompt`: it must release nothing; why it refused.
fn refused_on_an_invented_entry(t: &mut Table, prompt: &Prompt) -> String {
    let b = t.players.get_mut(&Side::B).unwrap();
    let heard = b
        .hear(&forge::invent(
            b.witness().next_seq(),
            b.witness().head(),
            Some(Side::B),
            "openings",
            prompt.clone(),
        ))
        .unwrap()
        .expect("an invented entry is the server's: not held");
    assert!(heard.answer.is_none(), "{prompt:?}");
    heard.refused.expect("refused").reason
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
    let mut t = in_movement();
    let k = rolls_so_far(&t);
    let b = t.players.get_mut(&Side::B).unwrap();
    let fake = forge::invent(
        b.witness().next_seq(),
        b.witness().head(),
        Some(Side::B),
        "openings",
        Prompt::Window { k, count: 4 },
    );
    let heard = b.hear(&fake).unwrap().expect("not held");
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
    a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| vec![u.clone()]);
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
        let mut t = in_movement();
        let mut v = Victim::default();
        a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| match &u.prompt {
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
        });
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
    let mut t = in_movement();
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
        .unwrap()
        .expect("not held");
    assert!(heard.answer.is_none());
    let reason = heard.refused.unwrap().reason;
    assert!(reason.contains("no action"), "{reason}");
    // A fact of the other side is never this side's to open.
    let mut t = in_movement();
    let mut v = Victim::default();
    a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| match &u.prompt {
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
    });
    assert!(v.released.is_empty());
    assert!(
        v.refused[0].reason.contains("a fact of the other side"),
        "{:?}",
        v.refused
    );
}

#[test]
fn g4_b28_412_during_a_real_step_only_the_two_hexes_it_crosses_may_be_opened() {
    // Item 2 of issue 24 with an action really pending: A's squad steps
    // 3E3 -> 3E4 (B28.412 asks B's A-P leaves of the exit and entry hexes,
    // nothing else). The server swaps B's prompt for one listing every
    // eligible A-P leaf of B's, or one leaf of a hex the step does not
    // reach: the observer's bound (asks.rs, from the public log) refuses
    // both, and nothing of B's layout is released.
    let ap = Layer::named("ap").unwrap();
    let far = Location::key_of("3E8").unwrap();
    for swap in ["every eligible leaf", "a hex the step does not reach"] {
        let mut t = in_movement();
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
        assert!(every.iter().any(|r| r.location == far), "3E8 is eligible");
        let mut v = Victim::default();
        let mut swapped = 0;
        a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| {
            let requests = match swap {
                "every eligible leaf" => every.clone(),
                _ => vec![FactRequest {
                    owner: Side::B,
                    layer: ap,
                    location: far,
                }],
            };
            match &u.prompt {
                Prompt::OpenAhead { k, count, .. } => {
                    swapped += 1;
                    vec![forge::alter(u, Some(Side::B), |u| {
                        u.prompt = Prompt::OpenAhead {
                            requests: requests.clone(),
                            k: *k,
                            count: *count,
                        }
                    })]
                }
                Prompt::Open(_) => {
                    swapped += 1;
                    vec![forge::alter(u, Some(Side::B), |u| {
                        u.prompt = Prompt::Open(requests.clone())
                    })]
                }
                _ => vec![u.clone()],
            }
        });
        assert!(swapped > 0, "{swap}: the step asked B nothing");
        assert!(
            !v.released.iter().any(|b| matches!(b, Body::Open(_))),
            "{swap}: B opened something: {:?}",
            v.released
        );
        let refused = v.refused.first().expect("refused");
        assert!(
            refused
                .reason
                .contains("which the rules cannot ask of side B"),
            "{swap}: {}",
            refused.reason
        );
        // The refused prompt is signed by the server: evidence of a
        // request the log's rules never made.
        assert!(refused.evidence.is_some(), "{swap}");
    }
}

#[test]
fn g4_b28_531_a_move_the_log_does_not_hold_is_no_move_for_the_standing_orders() {
    // Item 2 of issue 24: "the tank moved into 3E5", in the server's words
    // only. A declaration is an entry every party reads whole, signed by
    // its author: a sealed entry that shows one is refused as unbound, and
    // the owner's orders never see it.
    let mut t = in_movement();
    let b = t.players.get_mut(&Side::B).unwrap();
    let (seq, head) = (b.witness().next_seq(), b.witness().head());
    // Words a sealed entry may have (its name alone is checked too:
    // g5_g2_a_sealed_entry_named_as_one_every_party_reads_whole_is_a_proof).
    let fake = forge::invent(seq, head, Some(Side::B), "openings", Prompt::Wait);
    let tank_into_3e5 = hexveil_asl::model::action::encode_action(&hexveil_fixtures::move_into(
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
        // Signed by the server: a view the transcript will prove false
        // (no entry shown sealed is a declaration).
        Err(PlayerError::Breach(Breach::FalseView { what, proof, .. })) => {
            assert!(what.contains("cannot show an action"), "{what}");
            assert_eq!(
                evidence::check(
                    &Evidence::View(proof),
                    None,
                    None,
                    &hexveil_fixtures::rulesets()
                ),
                Err(evidence::ProofError::Transcript(
                    "a view proof needs the server's key or the game's transcript".into()
                ))
            );
        }
        other => panic!("a sealed entry showing an action is refused: {other:?}"),
    }
}

#[test]
fn g5_an_honest_answer_to_a_false_request_is_never_recorded_against_its_owner() {
    // Item 3 of issue 24: shown a request for another location than the
    // referee's, B opens that location honestly. The referee refuses the
    // answer (it answers another request), the server records no
    // BadAnswer, and a server that records one anyway is at fault.
    let mut t = in_movement();
    let mut v = Victim::default();
    let mut shown_once = false;
    a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| match &u.prompt {
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
    });
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
                kind: hexveil_asl::model::action::FfeKind::HeConcentration,
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
    let heard = b.hear(&true_prompt).unwrap().expect("not held");
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
    // Item 4 of issue 24: B's answer is placed at seq N by the server's
    // signed word (its view receipt: A sees the answer sealed); the server
    // then shows B a branch whose entry N is its own Timeout of B. The
    // branch alone verifies clean; B's machine holds the view receipt and
    // the branch's entry: two heads the server signed for one position.
    let mut t = in_movement();
    let mut v = Victim::default();
    let mut branched = false;
    a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| match &u.logged {
        Logged::Own(_) | Logged::OwnPlacedByNext { .. } if !branched => {
            branched = true;
            let prev = u
                .attest
                .as_deref()
                .map(|a| a.prev_head)
                .unwrap_or_else(|| panic!("B's answer comes with a view receipt: {u:?}"));
            vec![
                u.clone(),
                forge::server_entry(
                    common::GAME,
                    u.seq,
                    prev,
                    &Body::Timeout {
                        party: Party::B,
                        request: "openings".into(),
                    },
                    Some(Side::B),
                    Prompt::Wait,
                ),
            ]
        }
        _ => vec![u.clone()],
    });
    assert!(branched, "B's answer was placed and shown as its own");
    let Some(Breach::Fork { proof, what }) = v.breach else {
        panic!("B catches the fork: {:?}", v.breach)
    };
    assert!(what.contains("receipt"), "{what}");
    names_the_server(proof);
}

#[test]
fn g5_dice_or_events_the_signed_entry_does_not_give_are_never_shown() {
    // Item 4 of issue 24: a roll shown with dice (1,1) where the log has
    // others, and a public ruling shown without its events. B reads both
    // from the signed entries it holds: unsigned, the words are refused as
    // unbound; signed again by the server, they are a proof against it.
    for signed in [false, true] {
        for what in ["dice", "events"] {
            let mut t = in_movement();
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
                (Some(Breach::FalseView { proof, .. }), true) => {
                    assert!(view_proven(&t, proof), "{what}")
                }
                other => panic!("{what} signed={signed}: {other:?}"),
            }
        }
    }
}

// G5 (PROTOCOL.md 16.1 item 5), G2: a sealed entry can show only the words
// of an entry a party may be shown sealed. B's openings on A's step into
// its mines come to A sealed, bound by the server's view receipt only. A
// dishonest server names one of them as an entry every party reads whole,
// and signs that: a concession (A's narrative would say "side B
// concedes"), the end, a reveal, a timeout, a roll (A's count of the roll
// the log is at, which decides which pad entries A releases, would move
// on by one), a genesis or a declaration; or a ruling written by B (a
// ruling is the server's); or words that are no entry at all, with an
// escape sequence. Each is refused before anything is shown or counted,
// and the signed view proves the server wrong against the transcript.
#[test]
fn g5_g2_a_sealed_entry_named_as_one_every_party_reads_whole_is_a_proof() {
    for words in [
        "concession",
        "end",
        "reveal",
        "timeout",
        "roll",
        "genesis",
        "action",
        "pad statement",
        "ruling",
        "side B concedes\u{1b}[2J",
    ] {
        let mut t = in_movement();
        let mut v = Victim::default();
        let mut done = false;
        a_steps_into_the_mines(&mut t, Side::A, &mut v, &mut |u, _| {
            let sealed = matches!(u.logged, hexveil_protocol::message::Logged::Sealed { .. });
            if done || !sealed || u.entry != "openings" {
                return vec![u.clone()];
            }
            done = true;
            vec![forge::alter(u, Some(Side::A), |u| u.entry = words.into())]
        });
        assert!(done, "A was shown B's openings sealed");
        match &v.breach {
            Some(Breach::FalseView { what, proof, .. }) => {
                println!("{words:?}: {what}");
                assert!(!what.contains('\u{1b}'), "{what}");
                assert!(view_proven(&t, proof), "{words}");
            }
            other => panic!("{words}: {other:?}"),
        }
    }
}

// G3, G4, G5: at the end of the game a player publishes every secret (its
// pad seed, its sealed setups), so the end must be the log's. A dishonest
// server colluding with B signs an end record of its own, with a Reveal
// prompt: in the middle of play (nothing ends the game), and right after
// B's concession naming B the winner. A checks the end against the log
// before anything is shown or answered: nothing is revealed. The honest
// ends (a concession, a timeout, a rules end) are what every other test
// of this crate plays.
#[test]
fn g3_g5_an_end_the_log_does_not_give_reveals_nothing() {
    let end = |winner: Side, reason: &str| {
        Body::End(hexveil_protocol::message::EndRecord {
            winner: Some(winner),
            reason: reason.into(),
        })
    };
    let forged = |a: &hexveil_protocol::player::Player, body: &Body| {
        forge::server_entry(
            common::GAME,
            a.witness().next_seq(),
            a.witness().head(),
            body,
            Some(Side::A),
            Prompt::Reveal,
        )
    };
    // In the middle of play.
    let mut t = in_movement();
    let a = t.players.get_mut(&Side::A).unwrap();
    let fake = forged(a, &end(Side::B, "side A's units were all eliminated"));
    match a.hear(&fake) {
        Err(PlayerError::Breach(Breach::FalseEnd { what, .. })) => {
            println!("{what}");
            assert!(
                what.contains("no concession, timeout or game-over event in the log ends the game"),
                "{what}"
            );
        }
        other => panic!("an end in the middle of play: {other:?}"),
    }
    // Right after B's concession, naming B the winner.
    let mut t = Table::new(5, SEALED_B);
    let env = t.players.get_mut(&Side::B).unwrap().concede();
    let out = t.session.submit(Side::B, env, 0);
    let conceded = out
        .into_iter()
        .find_map(|o| match o {
            Output::ToPlayer(Side::A, ToClient::Update(u)) if u.entry == "concession" => Some(u),
            _ => None,
        })
        .expect("A is shown B's concession");
    let a = t.players.get_mut(&Side::A).unwrap();
    let heard = a.hear(&conceded).unwrap();
    // B's concession: the server's end follows it, so it has no receipt
    // (message version 6) and is held until the end places it.
    assert!(heard.is_none(), "a concession without a receipt is held");
    // The server's false end, on the head after the concession.
    let fake = forge::server_entry(
        common::GAME,
        conceded.seq + 1,
        conceded.head,
        &end(Side::B, "side A conceded"),
        Some(Side::A),
        Prompt::Reveal,
    );
    match a.hear(&fake) {
        Err(PlayerError::Breach(Breach::FalseEnd { what, .. })) => {
            println!("{what}");
            assert!(
                what.contains("the entry before it ends the game against side B"),
                "{what}"
            );
        }
        other => panic!("an end naming the side that conceded the winner: {other:?}"),
    }
}

/// A spectator (`hexveil watch`) that has checked every public update of
/// `t` up to and including the first whose words are `until` (all of
/// them when `None`), the way the client's `Spectator` checks them.
fn spectator_of(t: &Table, until: Option<&str>) -> PublicWitness {
    let mut w = PublicWitness::new(common::GAME, hexveil_rulesets::all());
    for u in &t.spectated {
        assert!(
            matches!(w.check(u), Ok(Seen::New(_) | Seen::Held { .. })),
            "entry {}",
            u.seq
        );
        if until == Some(u.entry.as_str()) {
            return w;
        }
    }
    assert!(until.is_none(), "the spectator saw no {until:?}");
    w
}

/// The server's own signed end of the game, `winner` winning, placed next
/// in the log `w` holds, as shown to the spectators.
fn forged_end(w: &PublicWitness, winner: Side, reason: &str) -> Update {
    let body = Body::End(hexveil_protocol::message::EndRecord {
        winner: Some(winner),
        reason: reason.into(),
    });
    let (seq, head) = tip(w);
    forge::server_entry(common::GAME, seq, head, &body, None, Prompt::Wait)
}

/// Where the next entry of the log `w` holds goes: after an entry held
/// until the server's next one places it (message version 6), if any.
fn tip(w: &PublicWitness) -> (u64, hexveil_protocol::encoding::Digest) {
    let w = w.witness();
    w.held()
        .map_or((w.next_seq(), w.head()), |(seq, head)| (seq + 1, head))
}

/// An end of the game signed by side B (colluding with the server, which
/// receipts it), `winner` winning, placed next in the log `w` holds, as
/// shown to the spectators.
fn end_signed_by_b(w: &PublicWitness, winner: Side, reason: &str) -> Update {
    use hexveil_protocol::envelope::{next_head, Appended, Envelope, Receipt, ENVELOPE_VERSION};
    let body = Body::End(hexveil_protocol::message::EndRecord {
        winner: Some(winner),
        reason: reason.into(),
    });
    let [_, b, server] = common::ids();
    let (seq, head) = tip(w);
    let env = Envelope {
        version: ENVELOPE_VERSION,
        game_id: common::GAME,
        author: b.public_key(),
        seq,
        prev_head: head,
        body: hexveil_protocol::message::encode(&body),
    }
    .sign(&b);
    let appended = Appended {
        seq,
        entry_hash: env.entry_hash(),
        new_head: next_head(&head, &env.entry_hash()),
    };
    let mut u = hexveil_protocol::session::view_of_entry(
        &body,
        Party::B,
        &appended,
        None,
        Prompt::Wait,
        false,
    );
    u.logged = hexveil_protocol::message::Logged::Full {
        envelope: Box::new(env),
        receipt: Some(Box::new(Receipt::issue(&server, common::GAME, &appended))),
    };
    u
}

/// What a spectator did with an end the log does not give: it stopped
/// with `Breach::FalseEnd` naming the server, in words that say `says`,
/// stated no result, and holds the signed entry (its witness took it,
/// with the server's statement).
fn refused_end(mut w: PublicWitness, fake: &Update, says: &str) {
    let (next, _) = tip(&w);
    match w.check(fake) {
        Err(Unwatched::Breach(Breach::FalseEnd { seq, what })) => {
            assert_eq!(seq, fake.seq);
            assert!(w.end().is_none(), "a result was stated: {:?}", w.end());
            assert_eq!(w.witness().next_seq(), next + 1, "the signed entry is kept");
            assert_eq!(fake.seq, next);
            let hexveil_protocol::message::Logged::Full { envelope, .. } = &fake.logged else {
                panic!("an end is read whole");
            };
            assert_eq!(
                w.witness().entries().last(),
                Some((fake.seq, envelope.entry_hash()))
            );
            println!("{what}");
            assert!(what.contains(says), "{what}");
        }
        other => panic!("the spectator went on: {other:?}"),
    }
}

// G5: a spectator shows only what it has checked against the log, so an
// end record the server invents is no result: (a) in the middle of play,
// (b) right after A's concession, naming A, the side that conceded, the
// winner, (c) one signed by a player (B, the server's accomplice), (d) one
// with the concession's winner but another reason, (e) a second end. The
// spectator stops with the breach and states no winner, by the same check
// as a player's (`EndCheck`).
#[test]
fn g5_a_spectator_shows_no_end_the_log_does_not_give() {
    // (a) In the middle of play.
    let t = in_movement();
    let w = spectator_of(&t, None);
    let fake = forged_end(&w, Side::B, "side A's units were all eliminated");
    refused_end(
        w,
        &fake,
        "no concession, timeout or game-over event in the log ends the game",
    );
    // (b) Right after A's concession, naming A the winner.
    let mut t = Table::new(5, SEALED_B);
    t.concede();
    let w = spectator_of(&t, Some("concession"));
    let fake = forged_end(&w, Side::A, "side B conceded");
    refused_end(w, &fake, "the entry before it ends the game against side A");
    // (c) Right after A's concession, with the result the log gives, but
    // signed by B: only the server writes an end. The concession has no
    // receipt (message version 6): only the server's own next entry
    // places it, so B's end is not even taken into the log.
    let mut w = spectator_of(&t, Some("concession"));
    let fake = end_signed_by_b(&w, Side::B, "side A conceded");
    match w.check(&fake) {
        Err(Unwatched::Breach(Breach::Unbound { reason, .. })) => {
            assert!(reason.contains("not the server's own"), "{reason}")
        }
        other => panic!("the spectator took B's end: {other:?}"),
    }
    assert!(w.end().is_none(), "no result was stated");
    // After an entry the server placed, B's end is read, and refused by
    // the end check: only the server writes an end.
    let mut played = Table::new(5, SEALED_B);
    played.end_phase();
    let w = spectator_of(&played, None);
    assert!(w.witness().held().is_none());
    let fake = end_signed_by_b(&w, Side::B, "side A conceded");
    refused_end(
        w,
        &fake,
        "it is signed by side B; only the server writes one",
    );
    // (d) Right after A's concession, B the winner as the log gives, but
    // another reason than the concession's: the result shown is the
    // referee's words, not the server's.
    let w = spectator_of(&t, Some("concession"));
    let fake = forged_end(&w, Side::B, "side A's mines were over budget");
    refused_end(w, &fake, "ends the game against side A (its concession)");
    // (e) A second end after the honest one (B wins), naming A: refused,
    // and the result shown stays the log's.
    let mut w = spectator_of(&t, None);
    let fake = forged_end(&w, Side::A, "side B conceded");
    match w.check(&fake) {
        Err(Unwatched::Breach(Breach::FalseEnd { what, .. })) => {
            assert!(what.contains("the game had already ended"), "{what}")
        }
        other => panic!("the spectator took a second end: {other:?}"),
    }
    assert_eq!(w.end().map(|e| e.winner), Some(Some(Side::B)));
}

// G5, the positive control: the honest end of a conceded game is shown to
// the spectator, with the result the log gives (B wins). A game played to
// its game-over event is shown its end over QUIC: tests/tests/whole_game.rs
// (ASL) and minis_game.rs (the miniatures).
#[test]
fn g5_a_spectator_shows_the_end_of_a_conceded_game() {
    let mut t = Table::new(5, SEALED_B);
    t.concede();
    let w = spectator_of(&t, None);
    let end = w.end().expect("the spectator shows the end");
    assert_eq!(end.winner, Some(Side::B));
}

#[test]
fn g5_a_sealed_ruling_shown_without_its_events_is_proven_against_the_transcript() {
    // A's view of the ruling on its step into B's mines is sealed (it
    // holds events for the referee): A cannot check it live. The server
    // drops the public events from it and signs that; once the game is
    // over and its transcript public, A's audit finds the view the log does
    // not give, and the view receipt proves it.
    let mut t = in_movement();
    let mut v = Victim::default();
    let mut dropped = false;
    a_steps_into_the_mines(&mut t, Side::A, &mut v, &mut |u, _| match &u.logged {
        hexveil_protocol::message::Logged::Sealed { .. } if u.entry == "ruling" && !dropped => {
            dropped = true;
            vec![forge::alter(u, Some(Side::A), |u| u.events.clear())]
        }
        _ => vec![u.clone()],
    });
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
        refused_on_an_invented_entry(&mut t, &prompt);
        // The invented entry is a fork of the real log: start again.
        t = Table::with_mode(5, SEALED_B, Mode::Escrow);
        t.end_phase_until(hexveil_asl::turn::Phase::Movement);
    }
    // During a real step the escrow answers; B is asked only its window.
    let mut v = Victim::default();
    let mut asked_to_open = false;
    a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| {
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
    });
    assert!(asked_to_open, "B's window is asked during the step");
    assert!(v.released.is_empty(), "{:?}", v.released);
    assert!(v.refused[0].reason.contains("Escrow"), "{:?}", v.refused);
}

/// The miniatures example (seed 004, examples/minis/) at the start of
/// play: the same session and players, another ruleset.
fn minis_table() -> Table {
    use hexveil_core::Ruleset;
    use hexveil_protocol::player::{Player, Secrets};
    use std::collections::{BTreeMap, VecDeque};
    let [a, b, _] = common::ids();
    let scenario = include_str!("../../examples/minis/scenario.toml").to_string();
    let minis = hexveil_minis::Minis;
    let (session, out) = common::create(
        common::GAME,
        hexveil_protocol::session::GameParams {
            ruleset: minis.id().into(),
            ruleset_version: minis.version(),
            scenario_toml: scenario.clone(),
            players: [a.public_key(), b.public_key()],
            mode: Mode::Live,
            pad_len: common::PAD_LEN,
            answer_timeout_ms: 30_000,
        },
    );
    let player = |id, side, public: &str, sealed: &str, fill: u8| {
        Player::new(
            id,
            common::GAME,
            &minis,
            &scenario,
            common::PAD_LEN,
            Mode::Live,
            Secrets {
                side,
                public_setup_toml: public.into(),
                sealed_setup_toml: sealed.into(),
                layout_seeds: [("mines".to_string(), [fill; 32])].into_iter().collect(),
                notes_seed: [fill + 1; 32],
                pad_seed: [fill + 2; 32],
                orders: Vec::new(),
            },
        )
        .unwrap()
    };
    let pa = player(
        a,
        Side::A,
        include_str!("../../examples/minis/setup-a.toml"),
        include_str!("../../examples/minis/sealed-a.toml"),
        50,
    );
    let pb = player(
        b,
        Side::B,
        include_str!("../../examples/minis/setup-b.toml"),
        include_str!("../../examples/minis/sealed-b.toml"),
        60,
    );
    let mut t = Table {
        session,
        players: [(Side::A, pa), (Side::B, pb)].into_iter().collect(),
        queue: VecDeque::from(out),
        rejections: Vec::new(),
        seen: BTreeMap::new(),
        spectated: Vec::new(),
    };
    t.run();
    assert_eq!(t.rejections, vec![], "both setups are accepted");
    assert!(t.playing(), "play starts");
    t
}

#[test]
fn g2_g4_seed004_the_miniatures_player_guards_its_pad_and_its_cells_alike() {
    // The same attacks on the second ruleset: a window and openings asked
    // between two actions are refused; a real move into the hidden mixed
    // field is answered and rules; a window past the roll the log is at
    // during it is refused.
    let mut t = minis_table();
    let k = rolls_so_far(&t);
    for prompt in [
        Prompt::Window { k, count: 2 },
        Prompt::Open(vec![FactRequest {
            owner: Side::B,
            layer: Layer::named("mines").unwrap(),
            location: Location::key_of("c12x17").unwrap(),
        }]),
    ] {
        let reason = refused_on_an_invented_entry(&mut t, &prompt);
        assert!(reason.contains("no action"), "{prompt:?}: {reason}");
        t = minis_table();
    }
    let tank_in = hexveil_minis::encode_action(&hexveil_minis::Action::Move {
        figure: "ger-pz-iv".into(),
        path: vec!["12,14".parse().unwrap()],
    });
    let mut v = Victim::default();
    let env = {
        let a = t.players.get_mut(&Side::A).unwrap();
        a.act_with_nonce(tank_in.clone(), [1; 32])
    };
    let out = t.session.submit(Side::A, env, 0);
    t.queue.extend(out);
    run_with(&mut t, Side::B, &mut v, &mut |u, _| vec![u.clone()]);
    assert!(v.breach.is_none() && v.refused.is_empty(), "{v:?}");
    assert_eq!(t.rejections, vec![]);
    assert!(t.playing(), "the move is ruled");
    // The next move, its window pushed past the log's roll.
    let on = hexveil_minis::encode_action(&hexveil_minis::Action::Move {
        figure: "ger-rifle-1".into(),
        path: vec!["11.5,10.8".parse().unwrap()],
    });
    let env = {
        let a = t.players.get_mut(&Side::A).unwrap();
        a.act_with_nonce(on, [2; 32])
    };
    let out = t.session.submit(Side::A, env, 0);
    t.queue.extend(out);
    let mut v = Victim::default();
    run_with(&mut t, Side::B, &mut v, &mut |u, _| match &u.prompt {
        Prompt::OpenAhead { requests, k, count } => vec![forge::alter(u, Some(Side::B), |u| {
            u.prompt = Prompt::OpenAhead {
                requests: requests.clone(),
                k: k + 1,
                count: *count,
            }
        })],
        Prompt::Window { k, count } => vec![forge::alter(u, Some(Side::B), |u| {
            u.prompt = Prompt::Window {
                k: k + 1,
                count: *count,
            }
        })],
        _ => vec![u.clone()],
    });
    assert!(v.released.is_empty(), "{:?}", v.released);
    assert!(v.refused[0].reason.contains("G2"), "{:?}", v.refused);
}

/// One mutation of what the server shows the victim (the property test).
#[derive(Clone, Copy, Debug)]
enum Tamper {
    /// The update is never sent (the next one is a gap: the client asks
    /// again).
    Drop,
    /// Its prompt replaced by another that releases something, signed.
    Prompt(u32),
    /// A sealed entry the server makes up, shown first.
    Invent(u32),
    /// Its events and dice changed, signed.
    Words,
    /// Replaced by the server's own Timeout of the victim at that seq.
    Branch,
    /// Sent twice.
    Twice,
}

fn tamper_strategy() -> impl proptest::strategy::Strategy<Value = Tamper> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Tamper::Drop),
        any::<u32>().prop_map(Tamper::Prompt),
        any::<u32>().prop_map(Tamper::Invent),
        Just(Tamper::Words),
        Just(Tamper::Branch),
        Just(Tamper::Twice),
    ]
}

/// A prompt that releases something, chosen by `n`, for `victim`.
fn some_prompt(n: u32, victim: Side, k: u64, eligible: &[Location]) -> Prompt {
    let ap = Layer::named("ap").unwrap();
    let leaf = |i: u32| FactRequest {
        owner: victim,
        layer: ap,
        location: eligible
            .get(i as usize % eligible.len().max(1))
            .copied()
            .unwrap_or_else(|| Location::key_of("3E4").unwrap()),
    };
    match n % 6 {
        0 => Prompt::Window {
            k: k + u64::from(n % 3),
            count: 1 + n % 5,
        },
        1 => Prompt::Entry { k },
        2 => Prompt::Open((0..1 + n % 40).map(leaf).collect()),
        3 => Prompt::OpenAhead {
            requests: vec![leaf(n)],
            k,
            count: 2,
        },
        4 => Prompt::Transitions(vec![(leaf(n), hexveil_core::Content([0; 8]))]),
        _ => Prompt::Reveal,
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(24),
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// G2, G4, G5 (issue 24): a game where the server tampers at random
    /// with what it shows one player (live or escrow, either side),
    /// played to its end. Whatever it does: the log holds no refused
    /// answer of the victim's; a victim that lost on time holds a proof
    /// against the server, which the transcript confirms; every fork the
    /// victim caught comes with a proof that verifies; and the server's
    /// own log verifies without fault (the tampering was in what it
    /// showed, not in what it logged).
    #[test]
    fn g2_g4_g5_random_tampering_never_frames_the_honest_player_nor_goes_unproven(
        victim_b in proptest::prelude::any::<bool>(),
        escrow in proptest::prelude::any::<bool>(),
        plan in proptest::collection::vec((0usize..60, tamper_strategy()), 1..4),
        step_in in proptest::prelude::any::<bool>(),
        declarations in 6usize..16,
    ) {
        let victim = if victim_b { Side::B } else { Side::A };
        let mode = if escrow { Mode::Escrow } else { Mode::Live };
        let mut t = Table::with_mode(5, SEALED_B, mode);
        let eligible = t
            .session
            .referee()
            .eligible(victim, Layer::named("ap").unwrap());
        let mut v = Victim::default();
        let mut index = 0usize;
        let mut tamper = |u: &Update, p: &hexveil_protocol::player::Player| -> Vec<Update> {
            let i = index;
            index += 1;
            let Some((_, how)) = plan.iter().find(|(at, _)| *at == i) else {
                return vec![u.clone()];
            };
            let k = u.seq; // any roll number near the log's
            match *how {
                Tamper::Drop => vec![],
                Tamper::Prompt(n) => vec![forge::alter_at(u, Some(p.witness().head()), Some(victim), |u| {
                    u.prompt = some_prompt(n, victim, k % 8, &eligible)
                })],
                Tamper::Invent(n) => vec![
                    forge::invent(
                        p.witness().next_seq(),
                        p.witness().head(),
                        Some(victim),
                        "openings",
                        some_prompt(n, victim, k % 8, &eligible),
                    ),
                    u.clone(),
                ],
                Tamper::Words => vec![forge::alter_at(u, Some(p.witness().head()), Some(victim), |u| {
                    u.events.clear();
                    u.dice = vec![hexveil_core::Roll::Dr(6)];
                })],
                // On the head before u's entry: after an entry the client
                // holds until u places it (message version 6), if any.
                Tamper::Branch => vec![forge::server_entry(
                    common::GAME,
                    u.seq,
                    u.attest.as_deref().map_or_else(
                        || p.witness().held().map_or(p.witness().head(), |(_, head)| head),
                        |a| a.prev_head,
                    ),
                    &Body::Timeout {
                        party: if victim == Side::A { Party::A } else { Party::B },
                        request: "an answer".into(),
                    },
                    Some(victim),
                    Prompt::Wait,
                )],
                Tamper::Twice => vec![u.clone(), u.clone()],
            }
        };
        // The honest script: phases end one after the other; in A's first
        // Movement Phase, A's squad and leader may step into B's mines.
        let mut stepped = false;
        for _ in 0..declarations {
            if !t.playing() {
                break;
            }
            let engine = t.session.referee().engine().unwrap();
            let state = hexveil_fixtures::asl_state(engine);
            let step_now = step_in && !stepped && state.phase == hexveil_asl::turn::Phase::Movement;
            let (side, action) = if step_now {
                stepped = true;
                (Side::A, hexveil_fixtures::step_into_the_minefield())
            } else {
                (hexveil_asl::turn::who_ends_phase(state), Action::EndPhase)
            };
            let env = common::declare(&t.session, t.players.get_mut(&side).unwrap(), action);
            if side == victim && v.breach.is_some() {
                break;
            }
            let out = t.session.submit(side, env, 0);
            t.queue.extend(out);
            run_with(&mut t, victim, &mut v, &mut tamper);
        }
        // Whoever still owes an answer is timed out, and the log closes
        // (an unrevealed side times out on its reveal too).
        let mut now = 0;
        for _ in 0..8 {
            if t.session.is_closed() {
                break;
            }
            // A client that has heard nothing for a while asks the server
            // for what it may have missed (ToServer::Sync): a dropped
            // update comes again. (A server that withholds it every time
            // can time the player out: no message proves what was never
            // sent; PROTOCOL.md, "What a client must check".)
            if v.breach.is_none() {
                let from = t.players[&victim].witness().next_seq();
                for m in t.session.resync(victim, from).into_iter().rev() {
                    t.queue.push_front(Output::ToPlayer(victim, m));
                }
                run_with(&mut t, victim, &mut v, &mut tamper);
            }
            if t.playing() {
                let env = t.players.get_mut(&Side::A).unwrap().concede();
                let out = t.session.submit(Side::A, env, now);
                t.queue.extend(out);
            } else {
                now += 60_000;
                let out = t.session.tick(now);
                t.queue.extend(out);
            }
            run_with(&mut t, victim, &mut v, &mut |u, _| vec![u.clone()]);
        }
        let file = t.game().bytes();
        let verdict = hexveil_protocol::verifier::verify(&file, &hexveil_fixtures::rulesets());
        // The server logged nothing false; a victim that stopped may have
        // lost on time or left its reveal out: that blames it, and then
        // it must hold its proof (below).
        let blamed_by_log = match verdict.fault() {
            None => false,
            Some(f) => {
                proptest::prop_assert_eq!(
                    f.blame,
                    hexveil_protocol::verifier::Blame::Side(victim),
                    "only the victim's omissions can be in the log: {}",
                    f
                );
                proptest::prop_assert!(f.to_string().contains("did not reveal"), "{}", f);
                true
            }
        };
        let g = t.game();
        let victim_key = common::ids()[if victim == Side::A { 0 } else { 1 }].public_key();
        for i in 0..g.entries.len() {
            if let Body::BadAnswer(env) = g.body(i) {
                proptest::prop_assert!(env.envelope().author != victim_key, "entry {i} records the victim's answer as bad");
            }
        }
        let victim_party = if victim == Side::A { Party::A } else { Party::B };
        let timed_out = (0..g.entries.len())
            .any(|i| matches!(g.body(i), Body::Timeout { party, .. } if party == victim_party));
        if let Some(Breach::Fork { proof, .. }) = &v.breach {
            proptest::prop_assert_eq!(proof.verify(), Ok(()));
        }
        if timed_out || blamed_by_log {
            let mut proofs: Vec<Evidence> = v.refused.iter().filter_map(|r| r.evidence.clone()).collect();
            match &v.breach {
                Some(Breach::Fork { proof, .. }) => proofs.push(Evidence::Fork(proof.clone())),
                Some(Breach::FalseView { proof, .. }) => proofs.push(Evidence::View(proof.clone())),
                _ => {}
            }
            let proven = proofs.iter().any(|e| {
                matches!(
                    evidence::check(e, None, Some(&file), &hexveil_fixtures::rulesets()),
                    Ok(Finding::Server(_))
                )
            });
            proptest::prop_assert!(
                proven,
                "the victim lost on time with no proof against the server: refused {:?}, breach {:?}",
                v.refused.iter().map(|r| &r.reason).collect::<Vec<_>>(),
                v.breach
            );
        }
    }
}

#[test]
fn g2_g5_a_declaration_the_server_never_logs_gets_its_window_released_only_on_a_branch_it_cannot_log(
) {
    // With a colluding opponent: A signs a declaration the server shows B
    // but never logs, and B releases its window for it, as the rules ask.
    // Then A declares for real, knowing B's values; but the real log needs
    // B's window signed on its own chain, and the update of the real
    // declaration is a second head at that seq: B stops with a fork
    // proof, and its values, signed on the branch, are refused by the
    // real referee. (A client restarted on that game refuses to play on:
    // `hexveil join` finds the proof in its secrets directory.)
    let mut t = in_movement();
    let k = rolls_so_far(&t);
    let branch = t.players.get_mut(&Side::A).unwrap().act_with_nonce(
        hexveil_asl::model::action::encode_action(&hexveil_fixtures::step_into_the_minefield()),
        [0x42; 32],
    );
    let seq = branch.envelope().seq;
    let head = branch.envelope().prev_head;
    let receipt = hexveil_protocol::envelope::Receipt::issue(
        &forge::server(),
        common::GAME,
        &hexveil_protocol::envelope::Appended {
            seq,
            entry_hash: branch.entry_hash(),
            new_head: hexveil_protocol::envelope::next_head(&head, &branch.entry_hash()),
        },
    );
    let mut shown = hexveil_protocol::session::view_of_entry(
        &Body::decode(&branch.envelope().body).unwrap(),
        Party::A,
        &hexveil_protocol::envelope::Appended {
            seq,
            entry_hash: branch.entry_hash(),
            new_head: hexveil_protocol::envelope::next_head(&head, &branch.entry_hash()),
        },
        Some(Side::B),
        Prompt::Wait,
        false,
    );
    shown.logged = hexveil_protocol::message::Logged::Full {
        envelope: Box::new(branch.clone()),
        receipt: Some(Box::new(receipt)),
    };
    let count = hexveil_protocol::referee::window_count(
        hexveil_core::Scenario::rolls_ahead(
            t.session.referee().scenario().as_ref(),
            branch_action(&branch).as_slice(),
        ),
        k,
        common::PAD_LEN,
    );
    let shown = forge::alter(&shown, Some(Side::B), |u| {
        u.prompt = Prompt::Window { k, count }
    });
    let heard = t
        .players
        .get_mut(&Side::B)
        .unwrap()
        .hear(&shown)
        .unwrap()
        .expect("not held");
    let released = heard
        .answer
        .expect("B releases its window for a declaration it holds");
    // The real declaration, at the same seq.
    let mut v = Victim::default();
    a_steps_into_the_mines(&mut t, Side::B, &mut v, &mut |u, _| vec![u.clone()]);
    let Some(Breach::Fork { proof, .. }) = v.breach else {
        panic!("B catches the fork: {:?}", v.breach)
    };
    assert_eq!(proof.verify(), Ok(()));
    // B's values, signed on the branch, cannot enter the real log.
    t.rejections.clear();
    t.send(Side::B, released);
    t.run();
    assert!(
        t.rejections.iter().any(|(s, _)| *s == Side::B),
        "the real referee refuses B's window signed on the branch"
    );
}

/// The action bytes a declaration holds.
fn branch_action(env: &hexveil_protocol::envelope::SignedEnvelope) -> Vec<u8> {
    Body::decode(&env.envelope().body)
        .unwrap()
        .declared_action()
        .unwrap()
        .to_vec()
}

#[test]
fn g5_a_signed_refusal_kept_as_evidence_proves_the_server_wrong_if_the_log_holds_the_entry() {
    // Issue 27: a refusal goes to a file (`Evidence::Refusal`), not 600 hex
    // digits at the prompt. It proves nothing against anyone while the log
    // agrees that the entry was not logged; a server that refused an entry
    // and logged it all the same is proven at fault (G5).
    let mut t = in_movement();
    // B may not move in A's MPh: refused.
    let out = t.declare(Side::B, hexveil_fixtures::step_into_the_minefield());
    let refusal = out
        .into_iter()
        .find_map(|o| match o {
            Output::ToPlayer(Side::B, hexveil_protocol::message::ToClient::Rejected(r)) => Some(r),
            _ => None,
        })
        .expect("the server refused B's move");
    let file = Evidence::Refusal(Box::new(refusal.clone())).to_file();
    let kept = Evidence::from_file(&file).unwrap();
    let registry = hexveil_fixtures::rulesets();
    let log = t.game().bytes();
    match evidence::check(&kept, None, Some(&log), &registry).unwrap() {
        Finding::Nothing(why) => assert!(why.contains("does not hold it"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Without the transcript, the signature alone.
    assert!(matches!(
        evidence::check(&kept, None, None, &registry),
        Err(evidence::ProofError::Transcript(_))
    ));
    // The server's refusal of an entry its log holds: a lie it signed.
    let g = t.game();
    let logged = &g.entries[g.entries.len() - 1].envelope;
    let lie = hexveil_protocol::envelope::Refusal::issue(&forge::server(), logged, "no".into());
    match evidence::check(
        &Evidence::Refusal(Box::new(lie)),
        None,
        Some(&log),
        &registry,
    )
    .unwrap()
    {
        Finding::Server(why) => assert!(why.contains("yet the log holds that very entry"), "{why}"),
        other => panic!("{other:?}"),
    }
    // A refusal another key signed proves nothing.
    let mut forged = refusal;
    forged.reason.push('!');
    assert!(matches!(
        evidence::check(
            &Evidence::Refusal(Box::new(forged)),
            None,
            Some(&log),
            &registry
        ),
        Err(evidence::ProofError::BadSignature(_))
    ));
}

#[test]
fn g5_a_refusal_is_shown_and_kept_only_once_its_signature_checks() {
    // A refusal is shown and kept as proof only once the player checked it
    // against the game's server key and the entry it refuses; a changed one
    // is a breach and changes nothing.
    let mut t = in_movement();
    let out = t.declare(Side::B, hexveil_fixtures::step_into_the_minefield());
    let refusal = out
        .into_iter()
        .find_map(|o| match o {
            Output::ToPlayer(Side::B, hexveil_protocol::message::ToClient::Rejected(r)) => Some(r),
            _ => None,
        })
        .expect("the server refused B's move");
    let b = t.players.get_mut(&Side::B).unwrap();
    let mut forged = refusal.clone();
    forged.reason = "refused: you lose".into();
    assert!(matches!(
        b.on_refusal(&forged),
        Err(PlayerError::Breach(Breach::Unbound { .. }))
    ));
    b.on_refusal(&refusal).expect("the real refusal checks");
}

/// The next phase end, declared by whoever ends the phase: the updates the
/// session sends `to` (the Act without a receipt, then the Ruling); the
/// other side hears its own.
fn next_phase_end(t: &mut Table, to: Side) -> Vec<Update> {
    let engine = t.session.referee().engine().unwrap();
    let actor = hexveil_asl::turn::who_ends_phase(hexveil_fixtures::asl_state(engine));
    let env = common::declare(
        &t.session,
        t.players.get_mut(&actor).unwrap(),
        Action::EndPhase,
    );
    let mut shown = Vec::new();
    for o in t.session.submit(actor, env, 0) {
        match o {
            Output::ToPlayer(side, ToClient::Update(u)) if side == to => shown.push(u),
            Output::ToPlayer(side, ToClient::Update(u)) => {
                let answer = t.players.get_mut(&side).unwrap().on_update(&u).unwrap();
                assert!(answer.is_none(), "a phase end asks nothing");
            }
            _ => {}
        }
    }
    shown
}

// G5, message version 6 (PROTOCOL.md 6, 16.1): an action the server rules
// at once has no receipt; the ruling, signed on the head after it, places
// it. A client shows nothing of the action until that ruling comes, then
// both in order; a server entry in its place on another head stops the
// client with nothing of the action shown.
#[test]
fn g5_an_action_without_a_receipt_is_shown_only_with_the_entry_that_places_it() {
    for side in [Side::A, Side::B] {
        let mut t = Table::new(5, SEALED_B);
        let ups = next_phase_end(&mut t, side);
        assert_eq!(ups.len(), 2, "the Act and its Ruling");
        assert!(
            matches!(
                &ups[0].logged,
                Logged::Full { receipt: None, .. } | Logged::OwnPlacedByNext { .. }
            ),
            "{:?}",
            ups[0].logged
        );
        assert!(ups[0].attest.is_none());
        // The server's own entry at the next seq, on a head the action
        // does not give: the action is never shown.
        let p = t.players.get_mut(&side).unwrap();
        let mut q = p.witness().clone();
        assert!(matches!(q.check(&ups[0]), Ok(Seen::Held { .. })));
        let fake = forge::server_entry(
            common::GAME,
            ups[1].seq,
            p.witness().head(),
            &Body::Timeout {
                party: Party::B,
                request: "an action".into(),
            },
            Some(side),
            Prompt::Wait,
        );
        match q.check(&fake) {
            Err(Breach::Unbound { reason, .. }) => println!("{reason}"),
            other => panic!("side {side} took an entry that does not place the action: {other:?}"),
        }
        // Honestly: held, then shown with the ruling, in order.
        assert!(p.hear(&ups[0]).unwrap().is_none(), "held: nothing shown");
        let heard = p.hear(&ups[1]).unwrap().expect("the ruling is shown");
        let placed = heard.placed.expect("with the action it placed");
        assert_eq!((placed.seq, heard.update.seq), (ups[0].seq, ups[1].seq));
        assert!(
            placed.action.is_some(),
            "the action, read from the signed entry"
        );
        assert_eq!(p.witness().next_seq(), ups[1].seq + 1);
    }
}

// G5 (PROTOCOL.md 6, `Attestation::Placed`): the server shows B its own
// Timeout of B in place of A's ruling, then goes on with the real log. The
// next action has no receipt, but the ruling that places it says which
// head it was signed on (the action's envelope gives it): another head
// than the false Timeout gives there. Two statements of the server's, a
// fork proof that names it.
#[test]
fn g5_a_branch_before_an_unreceipted_action_is_a_fork_proof_with_its_ruling() {
    let mut t = Table::new(5, SEALED_B);
    let first = next_phase_end(&mut t, Side::B);
    let b = t.players.get_mut(&Side::B).unwrap();
    assert!(b.hear(&first[0]).unwrap().is_none());
    let (held, head) = b.witness().held().expect("the action is held");
    let fake = forge::server_entry(
        common::GAME,
        held + 1,
        head,
        &Body::Timeout {
            party: Party::B,
            request: "an opening".into(),
        },
        Some(Side::B),
        Prompt::Wait,
    );
    assert!(b.hear(&fake).unwrap().is_some(), "the branch is shown");
    let second = next_phase_end(&mut t, Side::B);
    let b = t.players.get_mut(&Side::B).unwrap();
    assert!(b.hear(&second[0]).unwrap().is_none(), "held");
    let Err(PlayerError::Breach(Breach::Fork { proof, what })) = b.hear(&second[1]) else {
        panic!("B catches the fork")
    };
    println!("{what}");
    assert!(what.contains("which places it"), "{what}");
    names_the_server(proof);
}

// G5 (review of message version 6): a dishonest player appends its own
// refused entry, without a receipt, to the honest log. The verifier calls
// the file clean so far (the trailing entry is not counted: anyone could
// have put it there), so the server's signed refusal must not turn it
// into a proof against the server: nothing of the server's places it.
#[test]
fn g5_a_refused_entry_appended_without_a_receipt_proves_nothing_against_the_server() {
    use hexveil_protocol::message::LoggedEntry;
    use hexveil_protocol::verifier::{self, Status};
    let mut t = in_movement();
    // B may not move in A's Movement Phase: refused.
    let env = common::declare(
        &t.session,
        t.players.get_mut(&Side::B).unwrap(),
        hexveil_fixtures::step_into_the_minefield(),
    );
    let refusal = t
        .session
        .submit(Side::B, env.clone(), 0)
        .into_iter()
        .find_map(|o| match o {
            Output::ToPlayer(Side::B, ToClient::Rejected(r)) => Some(r),
            _ => None,
        })
        .expect("the server refused B's move");
    let honest = t.game();
    let mut g = t.game();
    assert_eq!(g.entries.len() as u64, env.envelope().seq);
    g.entries.push(LoggedEntry {
        envelope: env.clone(),
        receipt: None,
    });
    let forged = g.bytes();
    let registry = hexveil_fixtures::rulesets();
    let verdict = verifier::verify(&forged, &registry);
    assert_eq!(verdict.status(), Status::Incomplete, "{verdict}");
    let proof = Evidence::Refusal(Box::new(refusal));
    match evidence::check(&proof, None, Some(&forged), &registry) {
        Ok(Finding::Nothing(why)) => assert!(why.contains("proves nothing"), "{why}"),
        other => panic!("an edited file framed the server: {other:?}"),
    }
    // With a receipt that is not the server's, the same.
    let mut g = honest;
    let mut receipt = hexveil_protocol::envelope::Receipt::issue(
        &common::ids()[1],
        common::GAME,
        &LoggedEntry {
            envelope: env.clone(),
            receipt: None,
        }
        .appended(),
    );
    receipt.sig.0[0] ^= 1;
    g.entries.push(LoggedEntry {
        envelope: env,
        receipt: Some(receipt),
    });
    assert!(matches!(
        evidence::check(&proof, None, Some(&g.bytes()), &registry),
        Ok(Finding::Nothing(_))
    ));
}

/// A fork proof verifies, and checked offline it proves the server at
/// fault (`hexveil verify --proof`).
fn names_the_server(proof: Box<hexveil_protocol::envelope::ForkProof>) {
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
