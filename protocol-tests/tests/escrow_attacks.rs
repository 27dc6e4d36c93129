//! Escrow mode (DESIGN 3.6) under attack: a server that departs from the
//! owner's escrow, a player that sends an escrow the agent cannot run, a
//! client talked into escrowing in a Live game, and every path by which an
//! escrow could reach anyone but the server before the log closes.

mod common;

use common::{Game, Table, GAME, PAD_LEN, SEALED_B};
use hexveil_asl::content;
use hexveil_asl::model::sealed::DaisyNote;
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::standing_orders::{self, DaisyOrder};
use hexveil_asl::{Content, Layer, Side};
use hexveil_protocol::encoding::{Digest, Party};
use hexveil_protocol::message::{
    encode, encode_padded, Body, LayerReveal, Mode, OpenedFact, Prompt, SetupBody, ToClient, Update,
};
use hexveil_protocol::note::{NoteBook, NoteContent, NotesSeed, NOTE_LEN};
use hexveil_protocol::pad::PadSeed;
use hexveil_protocol::player::{Player, Secrets};
use hexveil_protocol::session::{GameParams, Output, Session};
use hexveil_protocol::verifier::{verify, Blame, Verdict};

/// B's notes seed in the common test games (fill 40 + 10).
const NOTES_B: [u8; 32] = [50; 32];
/// B's `ap` layout seed in the common test games (fill 40).
const AP_SEED_B: [u8; 32] = [40; 32];
/// B's pad seed in the common test games (fill 40 + 11).
const PAD_SEED_B: [u8; 32] = [51; 32];

/// An Escrow game in which A stepped into B's minefield; the index of the
/// first server-written openings that answer a Daisy Chain opportunity.
fn escrow_game_with_a_note() -> (Game, usize) {
    let mut t = Table::with_mode(5, SEALED_B, Mode::Escrow);
    t.step_into_the_minefield();
    let g = t.game();
    let i = g
        .find(|p, b| {
            p == Party::Server
                && matches!(b, Body::Open(f) if f.iter().any(|o| matches!(o, OpenedFact::Note { .. })))
        })
        .expect("A's step is an opportunity for B's Daisy Chain (B28.531)");
    (g, i)
}

/// The server's openings at entry `i` with B's null Daisy Chain note
/// replaced by a placement in 3E5, sealed with B's notes seed (which the
/// server holds in an Escrow game).
fn with_a_placed_note(g: &Game, i: usize) -> Vec<OpenedFact> {
    let Body::Open(mut facts) = g.body(i) else {
        unreachable!()
    };
    let book = NoteBook::new(GAME, Party::B, NotesSeed(NOTES_B)).unwrap();
    for f in &mut facts {
        if let OpenedFact::Note { opening, .. } = f {
            let placed = Content::Daisy(DaisyNote::Placed {
                holder: UnitId(4),
                hex: "3E5".parse().unwrap(),
            });
            let mut bytes = [0u8; NOTE_LEN];
            bytes[..content::CONTENT_LEN].copy_from_slice(&content::encode(&placed));
            assert_ne!(opening.content.0, bytes, "the honest note is a null one");
            let (commitment, opening) = book.seal(opening.seq, NoteContent(bytes));
            *f = OpenedFact::Note {
                commitment,
                opening,
            };
        }
    }
    facts
}

#[test]
fn g1_g5_design_3_6_a_server_note_that_departs_from_the_standing_orders_is_the_servers_fault() {
    // The server holds B's notes seed, so it can seal any note. B's
    // standing orders say nothing for an infantry step (a Daisy Chain is
    // pulled across a vehicle, B28.531); a server that places B's chain
    // anyway (or, colluding with A, suppresses a placement B ordered)
    // changes a sealed fact (G1). The escrow is in the transcript, so the
    // verifier re-runs the escrow agent and must name the server (G5).
    let (g, i) = escrow_game_with_a_note();
    let facts = with_a_placed_note(&g, i);
    let mut forged = g.truncate(i);
    forged.push(Party::Server, &Body::Open(facts));
    match verify(&forged.bytes(), &hexveil_fixtures::rulesets()) {
        Verdict::Fault(f) => {
            assert_eq!(f.blame, Blame::Server, "{f}");
            assert_eq!(f.entry, Some(i as u64), "{f}");
        }
        Verdict::Clean(s) => panic!("a forged escrow answer passed: {s}"),
    }
    // The honest log verifies clean up to the same point.
    assert!(
        verify(&g.truncate(i + 1).bytes(), &hexveil_fixtures::rulesets())
            .fault()
            .is_none()
    );
    // A server restored from the forged log refuses it too (G6).
    let restored = common::restore(&forged.entries);
    assert!(restored.is_err());
}

#[test]
fn g2_g6_a_server_timeout_naming_the_server_is_refused_by_the_verifier_without_panic() {
    // While the referee awaits the escrow agent's openings, the server is
    // the party that owes the answer; a Timeout naming the server would
    // end the game against no side. The verifier must refuse it (the
    // server's fault), never panic (it reads untrusted files).
    let (g, i) = escrow_game_with_a_note();
    let mut forged = g.truncate(i);
    forged.push(
        Party::Server,
        &Body::Timeout {
            party: Party::Server,
            request: "the escrow agent".into(),
        },
    );
    let verdict =
        std::panic::catch_unwind(|| verify(&forged.bytes(), &hexveil_fixtures::rulesets()))
            .expect("the verifier never panics on any input");
    let f = verdict.fault().expect("a timeout of the server is refused");
    assert_eq!(f.blame, Blame::Server, "{f}");
    assert_eq!(f.entry, Some(i as u64), "{f}");
}

#[test]
fn g2_g3_design_3_6_no_view_or_resync_carries_an_escrow_and_no_escrow_carries_a_pad_seed() {
    // The escrow rides in B's Setup entry; until the log closes only the
    // server may see it (a refusal goes to its sender only, and the
    // transcript is stored only when the log closes). Every view a player
    // or a spectator can get, replayed from the log, must be free of B's
    // seeds.
    let mut t = Table::with_mode(5, SEALED_B, Mode::Escrow);
    t.step_into_the_minefield();
    let has = |bytes: &[u8], secret: &[u8; 32]| bytes.windows(32).any(|w| w == secret);
    let mut views: Vec<ToClient> = t.session.public_resync();
    views.extend(t.session.resync(Side::A, 0));
    views.extend(t.session.resync(Side::B, 0));
    assert!(views.len() > 10, "the whole game is replayed");
    for v in &views {
        let bytes = encode_padded(v);
        assert!(!has(&bytes, &AP_SEED_B), "{v:?}");
        assert!(!has(&bytes, &NOTES_B), "{v:?}");
    }
    // The escrow is really there, in the server's log; B's pad seed is
    // not (G2: the server never holds a player's dice).
    let g = t.game();
    let setup = g.find(|p, b| p == Party::B && b.name() == "setup").unwrap();
    let body = &g.entries[setup].envelope.envelope().body;
    assert!(has(body, &AP_SEED_B));
    assert!(!has(body, &PAD_SEED_B));
    assert!(!t.session.is_closed(), "no transcript exists yet");
}

/// The session restored up to `side`'s setup in an Escrow game, with that
/// setup's body.
fn before_setup(side: Side) -> (Session, Game, SetupBody) {
    let t = Table::with_mode(5, SEALED_B, Mode::Escrow);
    let g = t.game();
    let party = if side == Side::A { Party::A } else { Party::B };
    let i = g
        .find(|p, b| p == party && b.name() == "setup")
        .expect("the side set up");
    let Body::Setup(body) = g.body(i) else {
        unreachable!()
    };
    let prefix = g.truncate(i);
    let (session, _) = common::restore(&prefix.entries).unwrap();
    (session, prefix, body)
}

/// `side`'s honest Escrow setup changed by `edit`: the session's refusal
/// (and a check that nothing changed).
fn refused(side: Side, edit: impl FnOnce(&mut SetupBody)) -> String {
    let (mut session, prefix, mut setup) = before_setup(side);
    edit(&mut setup);
    let party = if side == Side::A { Party::A } else { Party::B };
    let env = prefix.envelope(party, encode(&Body::Setup(setup)));
    let head = session.referee().log().head();
    let out = session.submit(side, env, 0);
    assert_eq!(session.referee().log().head(), head, "nothing changed (G6)");
    match out.as_slice() {
        [Output::ToPlayer(s, ToClient::Rejected(r))] if *s == side => r.reason.clone(),
        other => panic!("expected one refusal to side {side}, got {other:?}"),
    }
}

#[test]
fn g6_design_3_6_an_escrow_the_agent_cannot_run_is_refused_at_setup() {
    // Side A may not set Booby Traps here (B28.9: only B, the defender),
    // so it seals no `booby` layer. An escrow giving that layer with no
    // location at all passes the layer checks (its locations are exactly
    // the zero eligible ones) but no agent can be sealed from it: accepted,
    // the server would have no agent for A and the game would wait for it
    // forever with no one to blame (G2). It must be refused when sent.
    let (_, _, setup) = before_setup(Side::A);
    assert!(
        !setup.roots.iter().any(|r| r.layer == "booby"),
        "A seals no booby layer"
    );
    let reason = refused(Side::A, |s| {
        s.escrow.as_mut().unwrap().layers.push(LayerReveal {
            layer: "booby".into(),
            seed: [1; 32],
            contents: Vec::new(),
        })
    });
    assert!(reason.contains("escrow is refused"), "{reason}");
    assert!(reason.contains("booby"), "{reason}");
}

#[test]
fn b28_531_design_3_6_standing_orders_for_units_or_hexes_not_the_owners_are_refused() {
    // A standing order must name one of the owner's own Daisy Chain
    // holders (B28.531) and a hex of the map, once; anything else is
    // refused at setup, naming every problem, and changes nothing.
    let reason = refused(Side::B, |s| {
        s.escrow.as_mut().unwrap().orders = standing_orders::encode(&[
            // ger-squad-1 is A's.
            DaisyOrder {
                holder: UnitId(0),
                hex: "3E5".parse().unwrap(),
            },
            // brit-squad-2 holds no Daisy Chain.
            DaisyOrder {
                holder: UnitId(5),
                hex: "3E5".parse().unwrap(),
            },
            // No unit 900.
            DaisyOrder {
                holder: UnitId(900),
                hex: "3E5".parse().unwrap(),
            },
            // Off the map.
            DaisyOrder {
                holder: UnitId(4),
                hex: "9Z9".parse().unwrap(),
            },
        ])
    });
    assert!(reason.contains("ger-squad-1"), "{reason}");
    assert!(reason.contains("brit-squad-2"), "{reason}");
    assert!(reason.contains("900"), "{reason}");
    assert!(reason.contains("9Z9"), "{reason}");
    let twice = refused(Side::B, |s| {
        let order = DaisyOrder {
            holder: UnitId(4),
            hex: "3E5".parse().unwrap(),
        };
        s.escrow.as_mut().unwrap().orders = standing_orders::encode(&[order, order]);
    });
    assert!(twice.contains("twice"), "{twice}");
}

#[test]
fn design_3_6_daisy_chain_layer_is_never_a_sealed_layout() {
    // The escrow's layers are the sealed layouts only; a "daisy" layer is
    // unknown there (Daisy Chains are notes, DESIGN 3.2).
    let reason = refused(Side::B, |s| {
        s.escrow.as_mut().unwrap().layers.push(LayerReveal {
            layer: Layer::DaisyChain.name().into(),
            seed: [1; 32],
            contents: Vec::new(),
        })
    });
    assert!(reason.contains("daisy"), "{reason}");
}

fn escrow_player() -> (Player, String) {
    let [_, b, _] = common::ids();
    let toml = common::scenario_toml_lasting(5);
    let secrets = Secrets {
        side: Side::B,
        public_setup_toml: common::SETUP_B.into(),
        sealed_setup_toml: SEALED_B.into(),
        layout_seeds: ["ap", "at", "booby"]
            .iter()
            .map(|l| (l.to_string(), [7; 32]))
            .collect(),
        notes_seed: [8; 32],
        pad_seed: [9; 32],
        orders: Vec::new(),
    };
    let p = Player::new(
        b,
        GAME,
        hexveil_fixtures::ruleset().as_ref(),
        &toml,
        PAD_LEN,
        Mode::Escrow,
        secrets,
    )
    .unwrap();
    (p, toml)
}

fn setup_prompt(seq: u64) -> Update {
    Update {
        seq,
        head: Digest::ZERO,
        entry: "setup".into(),
        action: None,
        genesis: None,
        public_setup: None,
        events: Vec::new(),
        dice: Vec::new(),
        prompt: Prompt::Setup,
        end: None,
        closed: false,
        logged: hexveil_protocol::message::Logged::Sealed {
            entry_hash: Digest::ZERO,
        },
        attest: None,
    }
}

#[test]
fn g4_design_3_6_a_player_that_refused_a_live_genesis_never_sends_its_escrow() {
    // The player agreed to Escrow; the game is Live. It refuses the
    // genesis; if its driver carries on (a reconnect resumes after the
    // genesis), a later Setup prompt must not get the escrow out of it:
    // in a Live game the server must never see the owner's secrets (G4).
    let (mut p, toml) = escrow_player();
    let [a, b, server] = common::ids();
    let (_, out) = Session::create(
        GAME,
        GameParams {
            ruleset: hexveil_asl::ruleset::ID.into(),
            ruleset_version: hexveil_asl::ruleset::VERSION,
            scenario_toml: toml,
            players: [a.public_key(), b.public_key()],
            mode: Mode::Live,
            pad_len: PAD_LEN,
            answer_timeout_ms: 1000,
        },
        &hexveil_fixtures::rulesets(),
        server,
        PadSeed([9; 32]),
        0,
    )
    .unwrap();
    let genesis = out
        .iter()
        .find_map(|o| match o {
            Output::ToPlayer(Side::B, ToClient::Update(u)) => Some(u.clone()),
            _ => None,
        })
        .unwrap();
    assert!(p.on_update(&genesis).is_err(), "a Live genesis is refused");
    assert!(
        p.on_update(&setup_prompt(3)).is_err(),
        "nothing is answered in a game whose terms were refused"
    );
}

#[test]
fn g4_design_3_6_a_player_commits_no_setup_before_it_checked_the_genesis() {
    // A player that never saw the genesis (resumed past it) cannot know
    // the game's mode: it must not send a setup, least of all its escrow.
    let (mut p, _) = escrow_player();
    assert!(p.on_update(&setup_prompt(3)).is_err());
}

/// A small table for games the common one cannot set up: A's tank starts
/// next to the road in 3E5 where B's standing order waits (B28.531).
struct Run {
    session: Session,
    players: std::collections::BTreeMap<Side, Player>,
}

impl Run {
    fn escrow_with_tank_at(tank: &str) -> Run {
        Run::escrow_with_a_at("3E3", tank)
    }

    /// An Escrow game with A's squad and leader in `infantry` and its tank
    /// in `tank`.
    fn escrow_with_a_at(infantry: &str, tank: &str) -> Run {
        Run::escrow_with_order(infantry, tank, "3E5".parse().unwrap())
    }

    /// As [`Run::escrow_with_a_at`], with B's standing order on `watch`.
    fn escrow_with_order(infantry: &str, tank: &str, watch: hexveil_asl::board::hex::Hex) -> Run {
        let [a, b, server] = common::ids();
        let toml = common::scenario_toml_lasting(5);
        let setup_a = format!(
            "side = \"A\"\n[positions]\nger-squad-1 = \"{infantry}\"\nger-leader = \"{infantry}\"\nger-pz = \"{tank}\"\n"
        );
        let (session, out) = Session::create(
            GAME,
            GameParams {
                ruleset: hexveil_asl::ruleset::ID.into(),
                ruleset_version: hexveil_asl::ruleset::VERSION,
                scenario_toml: toml.clone(),
                players: [a.public_key(), b.public_key()],
                mode: Mode::Escrow,
                pad_len: PAD_LEN,
                answer_timeout_ms: 30_000,
            },
            &hexveil_fixtures::rulesets(),
            server,
            PadSeed([9; 32]),
            0,
        )
        .unwrap();
        let pa = Player::new(
            a,
            GAME,
            hexveil_fixtures::ruleset().as_ref(),
            &toml,
            PAD_LEN,
            Mode::Escrow,
            hexveil_fixtures::secrets(Side::A, &setup_a, "side = \"A\"\n", 20),
        )
        .unwrap();
        let pb = Player::new(
            b,
            GAME,
            hexveil_fixtures::ruleset().as_ref(),
            &toml,
            PAD_LEN,
            Mode::Escrow,
            Secrets {
                orders: standing_orders::encode(&[DaisyOrder {
                    holder: UnitId(4),
                    hex: watch,
                }]),
                ..hexveil_fixtures::secrets(Side::B, common::SETUP_B, SEALED_B, 40)
            },
        )
        .unwrap();
        let mut run = Run {
            session,
            players: [(Side::A, pa), (Side::B, pb)].into_iter().collect(),
        };
        run.pump(out);
        run
    }

    /// Delivers outputs to the players' machines until nothing is owed.
    fn pump(&mut self, out: Vec<Output>) -> Vec<Update> {
        let mut queue: std::collections::VecDeque<Output> = out.into();
        let mut seen_by_b = Vec::new();
        while let Some(o) = queue.pop_front() {
            match o {
                Output::ToPlayer(side, ToClient::Update(u)) => {
                    if side == Side::B {
                        seen_by_b.push(u.clone());
                    }
                    let p = self.players.get_mut(&side).unwrap();
                    if let Some(env) = p.on_update(&u).unwrap() {
                        queue.extend(self.session.submit(side, env, 0));
                    }
                }
                Output::ToPlayer(side, ToClient::Rejected(r)) => {
                    panic!("side {side}'s honest entry refused: {}", r.reason)
                }
                _ => {}
            }
        }
        seen_by_b
    }

    /// Ends phases until `phase` of Game Turn `turn`.
    fn until(&mut self, turn: u16, phase: hexveil_asl::turn::Phase) {
        for _ in 0..80 {
            let engine = self.session.referee().engine().unwrap();
            if hexveil_fixtures::asl_state(engine).phase == phase
                && hexveil_fixtures::asl_state(engine).turn == turn
            {
                return;
            }
            let side = hexveil_asl::turn::who_ends_phase(hexveil_fixtures::asl_state(engine));
            self.act(side, hexveil_asl::Action::EndPhase);
        }
        panic!("never reached turn {turn} {phase:?}");
    }

    fn act(&mut self, side: Side, action: hexveil_asl::Action) -> Vec<Update> {
        let env = common::declare(&self.session, self.players.get_mut(&side).unwrap(), action);
        let out = self.session.submit(side, env, 0);
        self.pump(out)
    }
}

#[test]
fn g6_b28_531_a_restore_cut_anywhere_around_a_daisy_placement_continues_identically() {
    // A's tank drives into 3E5: B's escrow agent places B's Daisy Chain
    // by its standing order, the chain attacks at once, and B's hidden
    // A-T mine in 3E5 is opened too. Cut the log after every entry from
    // the move on, restore, and hand the restored server the players'
    // later entries: it must write exactly the entries the live server
    // wrote (its agents, orders carried out and leaves changed, are in the
    // same state), and the log must verify clean.
    let (log, before) = escrowed_daisy_chain_placed_on_a_tank();
    assert!(verify(
        &hexveil_protocol::transcript::Transcript::new(log.clone())
            .to_bytes()
            .unwrap(),
        &hexveil_fixtures::rulesets()
    )
    .fault()
    .is_none());
    restores_identically(&log, before);
}

/// Cuts `log` after every entry from `from` on, restores the server from
/// the cut and hands it the players' later entries: it must write exactly
/// the rest of the log (G6).
fn restores_identically(log: &[hexveil_protocol::transcript::LoggedEntry], from: usize) {
    let [a, _, server] = common::ids();
    for cut in from..log.len() {
        let (mut restored, _) =
            common::restore(&log[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        for entry in &log[restored.log().len()..] {
            let env = entry.envelope.envelope();
            if env.author == server.public_key() {
                continue;
            }
            let side = if env.author == a.public_key() {
                Side::A
            } else {
                Side::B
            };
            let out = restored.submit(side, entry.envelope.clone(), 0);
            assert!(
                !out.iter()
                    .any(|o| matches!(o, Output::ToPlayer(_, ToClient::Rejected(_)))),
                "cut at {cut}: {out:?}"
            );
        }
        assert_eq!(restored.log(), log, "cut at {cut}");
    }
}

/// The index of the first openings entry after A's step into B's minefield
/// in a game of `mode`, and the log.
fn first_openings(mode: Mode) -> (Game, usize) {
    let mut t = Table::with_mode(5, SEALED_B, mode);
    t.step_into_the_minefield();
    let g = t.game();
    let i = g.find(|_, b| b.name() == "openings").unwrap();
    (g, i)
}

#[test]
fn g4_g5_design_3_6_a_server_opening_in_a_live_game_is_the_servers_fault() {
    // In a Live game only the owner opens (lazy reveal, G4): the same
    // openings written by the server are out of turn, and the verifier
    // blames the server that wrote and receipted them.
    let (g, i) = first_openings(Mode::Live);
    let body = g.body(i);
    let mut forged = g.truncate(i);
    forged.push(Party::Server, &body);
    let f = verify(&forged.bytes(), &hexveil_fixtures::rulesets())
        .fault()
        .cloned()
        .expect("refused");
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(i as u64)), "{f}");
    assert!(f.to_string().contains("may not send"), "{f}");
}

#[test]
fn design_3_6_in_an_escrow_game_only_the_server_opens_for_the_owner() {
    // The escrowed owner's own openings (the very ones the agent wrote,
    // signed by the owner) are out of turn: the referee awaits the server,
    // which had to refuse them; having receipted them, it is at fault (G5:
    // a refused entry proves nothing against its signer).
    let (g, i) = first_openings(Mode::Escrow);
    let body = g.body(i);
    let mut forged = g.truncate(i);
    forged.push(Party::B, &body);
    let f = verify(&forged.bytes(), &hexveil_fixtures::rulesets())
        .fault()
        .cloned()
        .expect("refused");
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(i as u64)), "{f}");
}

#[test]
fn g5_a_departed_escrow_answer_with_a_bad_signature_proves_nothing() {
    // An entry whose signature does not verify proves nothing about its
    // claimed author, even where the escrow agent would answer otherwise:
    // the signature is judged first.
    let (g, i) = escrow_game_with_a_note();
    let facts = with_a_placed_note(&g, i);
    let mut forged = g.truncate(i);
    let env = hexveil_protocol::envelope::Envelope {
        version: hexveil_protocol::envelope::ENVELOPE_VERSION,
        game_id: GAME,
        author: forged.ids[2].public_key(),
        seq: forged.log.next_seq(),
        prev_head: forged.log.head(),
        body: encode(&Body::Open(facts)),
    }
    .sign(&forged.ids[0]);
    forged.push_unchecked(env);
    let f = verify(&forged.bytes(), &hexveil_fixtures::rulesets())
        .fault()
        .cloned()
        .expect("refused");
    assert_eq!(
        (f.blame, f.entry),
        (Blame::Undetermined, Some(i as u64)),
        "{f}"
    );
}

#[test]
fn g6_design_3_6_a_huge_bad_escrow_gets_a_short_clear_refusal() {
    // Thousands of bogus locations (and one absurdly long name) each make
    // a problem; the refusal names the first ones and counts the rest, so
    // it always fits one message to its sender, and nothing changes.
    let reason = refused(Side::B, |s| {
        let ap = &mut s.escrow.as_mut().unwrap().layers[0];
        ap.contents
            .extend((0..5000).map(|i| (format!("nowhere-{i}"), [0u8; 8])));
        ap.contents.push(("x".repeat(100_000), [0u8; 8]));
    });
    assert!(reason.len() < 8 * 1024, "{} bytes", reason.len());
    assert!(reason.contains("escrow is refused"), "{reason}");
    assert!(reason.contains("nowhere-0"), "{reason}");
    assert!(reason.contains("more problem"), "{reason}");
}

#[test]
fn b28_531_design_3_6_a_player_with_meaningless_standing_orders_is_not_made() {
    // The referee refuses an escrow whose orders name no unit or no hex;
    // the player's own machine says so before anything is committed.
    let [_, b, _] = common::ids();
    let toml = common::scenario_toml_lasting(5);
    let (p, _) = escrow_player();
    let mut secrets = p.secrets().clone();
    secrets.orders = standing_orders::encode(&[DaisyOrder {
        holder: UnitId(4),
        hex: "9Z9".parse().unwrap(),
    }]);
    let e = Player::new(
        b,
        GAME,
        hexveil_fixtures::ruleset().as_ref(),
        &toml,
        PAD_LEN,
        Mode::Escrow,
        secrets,
    )
    .unwrap_err();
    assert!(e.to_string().contains("9Z9"), "{e}");
}

#[test]
fn g6_b28_62_a_restore_cut_anywhere_between_escrowed_transitions_continues_identically() {
    // A fires FFE at 3E4, where B hid A-P 12, again and again (B28.62):
    // every attack that can change mines makes B's escrow agent commit
    // the leaf's new content, real or null, so each transition builds on
    // the one before (the leaf's version moves on). A server restored from
    // a cut anywhere between them must be in the same state and write
    // exactly what the live one wrote.
    let (log, before) = escrowed_ffe_at_3e4();
    let g = Game::from_log(log.clone());
    let versions = versions_of_3e4(&g, before);
    // Four leaves of 3E4 (A-P and A-T, each side's), each committed once
    // per attack that could change mines, on top of the one before.
    assert!(
        versions.contains(&0) && versions.contains(&1),
        "the agent committed 3E4 again and again: {versions:?}"
    );
    assert!(verify(&g.bytes(), &hexveil_fixtures::rulesets())
        .fault()
        .is_none());
    restores_identically(&log, before);
}

/// An Escrow game in which A's tank drives into 3E5, where B's escrow
/// agent places B's Daisy Chain by its standing order (B28.531) and B's
/// A-T mine is opened too; the log and where the move begins.
fn escrowed_daisy_chain_placed_on_a_tank() -> (Vec<hexveil_protocol::transcript::LoggedEntry>, usize)
{
    let scenario =
        hexveil_asl::model::scenario::Scenario::from_toml(&common::scenario_toml_lasting(5))
            .unwrap();
    let road: hexveil_asl::board::hex::Hex = "3E5".parse().unwrap();
    let tank = ["3D5", "3D6", "3F6", "3E6"]
        .into_iter()
        .find(|h| scenario.map.adjacent(h.parse().unwrap(), road))
        .expect("a hex next to the road");
    let mut run = Run::escrow_with_tank_at(tank);
    for _ in 0..40 {
        let engine = run.session.referee().engine().unwrap();
        if hexveil_fixtures::asl_state(engine).phase == hexveil_asl::turn::Phase::Movement {
            break;
        }
        let side = hexveil_asl::turn::who_ends_phase(hexveil_fixtures::asl_state(engine));
        run.act(side, hexveil_asl::Action::EndPhase);
    }
    let before = run.session.log().len();
    let seen = run.act(
        Side::A,
        hexveil_asl::Action::Move {
            units: vec![UnitId(2)],
            to: road,
            mode: hexveil_asl::MoveMode::Normal,
        },
    );
    let placed = seen.iter().flat_map(|u| &u.events).any(|e| {
        matches!(
            hexveil_fixtures::asl(e).kind,
            hexveil_asl::EventKind::DaisyChain(
                hexveil_asl::b28::daisy_chain::DaisyEvent::Placed { .. }
            )
        )
    });
    assert!(placed, "B's standing order placed its chain: {seen:#?}");
    (run.session.log().to_vec(), before)
}

#[test]
fn g6_b28_531_a_refused_entry_changes_nothing_around_a_daisy_placement() {
    let (log, _) = escrowed_daisy_chain_placed_on_a_tank();
    let (_, kinds) = common::g6_check_every_position(&Game::from_log(log));
    for k in ["BadOpening", "BadRoll", "BadRuling"] {
        assert!(kinds.contains(k), "no {k} refusal was exercised: {kinds:?}");
    }
}

/// An Escrow game in which A fires FFE at 3E4 (B28.62), B's escrow agent
/// committing transitions of its leaves; the log and where the attacks
/// begin.
///
/// A attacks until a leaf of 3E4 has been committed twice. Only an
/// Original K or KIA can change mines (B28.62), so how many attacks that
/// takes is up to the dice: fixed for fixed inputs here, but any change to
/// the scenario or the log's bytes rolls others (each roll is bound to its
/// action's hash). 36 FP rolls one on a DR of 7 or less, 21/36; twenty
/// attacks with fewer than two happen about once in 1e6.
fn escrowed_ffe_at_3e4() -> (Vec<hexveil_protocol::transcript::LoggedEntry>, usize) {
    let mut run = Run::escrow_with_a_at("3E3", "4E6");
    run.until(1, hexveil_asl::turn::Phase::PrepFire);
    let before = run.session.log().len();
    for _ in 0..20 {
        run.act(
            Side::A,
            hexveil_asl::Action::Ffe {
                hex: "3E4".parse().unwrap(),
                fp: 36,
                kind: hexveil_asl::model::action::FfeKind::HeConcentration,
            },
        );
        let g = Game::from_log(run.session.log().to_vec());
        if versions_of_3e4(&g, before).contains(&1) {
            break;
        }
    }
    (run.session.log().to_vec(), before)
}

/// The versions of 3E4's leaves the server committed from entry `from` on.
fn versions_of_3e4(g: &Game, from: usize) -> Vec<u32> {
    (from..g.entries.len())
        .filter(|i| author(g, *i) == Party::Server)
        .filter_map(|i| match g.body(i) {
            Body::Transitions(ts) => Some(ts),
            _ => None,
        })
        .flatten()
        .filter(|t| t.old.location == "3E4")
        .map(|t| t.old.version)
        .collect()
}

#[test]
fn g6_b28_62_a_refused_entry_changes_nothing_between_escrowed_transitions() {
    // Wrong openings, rolls, rulings and transitions at every position of
    // a game of repeated transitions: each refusal leaves the referee as
    // it was, and the honest entry is then accepted.
    let (log, _) = escrowed_ffe_at_3e4();
    let (_, kinds) = common::g6_check_every_position(&Game::from_log(log));
    for k in ["BadOpening", "BadRoll", "BadRuling", "BadTransition"] {
        assert!(kinds.contains(k), "no {k} refusal was exercised: {kinds:?}");
    }
}

fn author(g: &Game, i: usize) -> Party {
    let a = g.entries[i].envelope.envelope().author;
    Party::ALL[g.ids.iter().position(|id| id.public_key() == a).unwrap()]
}

/// B's Daisy Chain notes the server wrote from entry `from` on, decoded.
fn notes_of_b(g: &Game, from: usize) -> Vec<DaisyNote> {
    (from..g.entries.len())
        .filter(|i| author(g, *i) == Party::Server)
        .filter_map(|i| match g.body(i) {
            Body::Open(f) => Some(f),
            _ => None,
        })
        .flatten()
        .filter_map(|f| match f {
            OpenedFact::Note {
                commitment,
                opening,
            } if commitment.side == Party::B => {
                let mut fixed = [0u8; content::CONTENT_LEN];
                fixed.copy_from_slice(&opening.content.0[..content::CONTENT_LEN]);
                match content::decode(&fixed).unwrap() {
                    Content::Daisy(n) => Some(n),
                    other => panic!("{other:?}"),
                }
            }
            _ => None,
        })
        .collect()
}

#[test]
fn b28_531_a_standing_order_on_a_seam_hex_fires_whichever_name_the_enemy_uses() {
    // A seam hex has a name on each board. B's order names it one way; A's
    // tank drives in naming it the other way. The order must fire (the
    // escrow agent and a Live owner's machine run the same keeper), or
    // any enemy could dodge every standing order on a board edge.
    let scenario =
        hexveil_asl::model::scenario::Scenario::from_toml(&common::scenario_toml_lasting(5))
            .unwrap();
    let map = &scenario.map;
    let (seam, tank) = map
        .all_hexes()
        .into_iter()
        .filter(|h| map.names(*h).len() == 2)
        .find_map(|seam| {
            let tank = map
                .all_hexes()
                .into_iter()
                .find(|t| t.board == 4 && map.names(*t).len() == 1 && map.adjacent(*t, seam))?;
            Some((seam, tank))
        })
        .expect("boards 4 and 3 share a seam");
    let names = map.names(seam);
    let (watched, driven) = (names[1], names[0]);
    assert_ne!(watched, driven);
    let mut run = Run::escrow_with_order("3E3", &tank.to_string(), watched);
    run.until(1, hexveil_asl::turn::Phase::Movement);
    let before = run.session.log().len();
    run.act(
        Side::A,
        hexveil_asl::Action::Move {
            units: vec![UnitId(2)],
            to: driven,
            mode: hexveil_asl::MoveMode::Normal,
        },
    );
    let g = Game::from_log(run.session.log().to_vec());
    let notes = notes_of_b(&g, before);
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, DaisyNote::Placed { hex, .. } if map.same_hex(*hex, seam))),
        "B's order on {watched} fired for a move into {driven}: {notes:?}"
    );
    assert!(verify(&g.bytes(), &hexveil_fixtures::rulesets())
        .fault()
        .is_none());
}

#[test]
fn g6_design_3_6_an_escrow_with_a_repeated_or_unknown_layer_is_refused() {
    let twice = refused(Side::B, |s| {
        let e = s.escrow.as_mut().unwrap();
        let first = e.layers[0].clone();
        e.layers.push(first);
    });
    assert!(twice.contains("given twice"), "{twice}");
    let unknown = refused(Side::B, |s| {
        s.escrow.as_mut().unwrap().layers.push(LayerReveal {
            layer: "mines".into(),
            seed: [1; 32],
            contents: vec![("3E4".into(), [0u8; 8])],
        })
    });
    assert!(unknown.contains("unknown layer"), "{unknown}");
}
