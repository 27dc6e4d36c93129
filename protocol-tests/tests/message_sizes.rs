//! Issue 30 (sends): the sizes of the messages the server sends, by kind,
//! before their padding (PROTOCOL.md 14.2: every message is padded to a
//! multiple of `PAD_BUCKET`, G3), measured on a real game played in this
//! thread: the setup, untriggered actions, a step into a hidden A-P
//! minefield (openings, beacon rolls, the attack), the concession and both
//! reveals. Run with `-- --nocapture` for the distribution; it is what a
//! choice of smaller buckets has to start from (BENCHMARKS.md).

mod common;

use std::collections::BTreeMap;

use common::{Table, SEALED_B};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, Side};
use hexveil_protocol::message::{encode, encode_padded, ToClient, PAD_BUCKET};
use hexveil_protocol::session::Output;

/// Unpadded sizes (the message's encoding) by who receives it and kind.
#[derive(Default)]
struct Sizes(BTreeMap<String, Vec<usize>>);

impl Sizes {
    fn note(&mut self, to: &str, msg: &ToClient) {
        let kind = match msg {
            ToClient::Receipt(_) => "receipt".to_string(),
            ToClient::Update(u) => format!("update: {}", u.entry),
            ToClient::Rejected(_) => "refusal".to_string(),
            ToClient::Transcript(_) => "transcript".to_string(),
            ToClient::Padding(_) => "padding".to_string(),
        };
        let len = encode(msg).len();
        // G3: the padded form is the smallest multiple of the bucket that
        // holds the length prefix and the message.
        assert_eq!(
            encode_padded(msg).len(),
            (len + 4).div_ceil(PAD_BUCKET) * PAD_BUCKET
        );
        self.0.entry(format!("{to} {kind}")).or_default().push(len);
    }
}

/// [`Table::run`], noting the size of every message on the way.
fn run(t: &mut Table, sizes: &mut Sizes) {
    while let Some(o) = t.queue.pop_front() {
        match o {
            Output::ToPlayer(side, msg) => {
                sizes.note("player", &msg);
                match msg {
                    ToClient::Update(u) => {
                        let answer = t.players.get_mut(&side).unwrap().on_update(&u).unwrap();
                        if let Some(env) = answer {
                            t.send(side, env);
                        }
                    }
                    ToClient::Rejected(r) => panic!("an honest entry was refused: {}", r.reason),
                    _ => {}
                }
            }
            Output::ToSpectators { seq } => {
                let msg = t
                    .session
                    .public_view(seq, &|_| None)
                    .expect("a public view");
                sizes.note("spectator", &msg);
            }
            Output::Persist(_) => {}
        }
    }
}

/// `side` declares `action` and the machines answer all it causes.
fn act(t: &mut Table, sizes: &mut Sizes, side: Side, action: Action) {
    let out = t.declare(side, action);
    t.queue.extend(out);
    run(t, sizes);
}

/// The side that may end the phase ends it (A3.5).
fn end_phase(t: &mut Table, sizes: &mut Sizes) {
    let engine = t.session.referee().engine().unwrap();
    let side = hexveil_asl::turn::who_ends_phase(hexveil_fixtures::asl_state(engine));
    act(t, sizes, side, Action::EndPhase);
}

#[test]
fn g3_message_sizes_by_kind_fit_their_buckets() {
    let mut t = Table::new(5, SEALED_B);
    let mut sizes = Sizes::default();
    // Two Game Turns of phases ended, then A's squad steps into the hidden
    // A-P minefield at 3E4 (B28.41: openings, beacon rolls, the attack).
    for _ in 0..16 {
        end_phase(&mut t, &mut sizes);
    }
    for _ in 0..40 {
        if hexveil_fixtures::asl_state(t.session.referee().engine().unwrap()).phase
            == Phase::Movement
        {
            break;
        }
        end_phase(&mut t, &mut sizes);
    }
    act(
        &mut t,
        &mut sizes,
        Side::A,
        hexveil_fixtures::step_into_the_minefield(),
    );
    end_phase(&mut t, &mut sizes);
    // A concedes; both sides reveal (G1, G2) and the transcript follows.
    let env = t.players.get_mut(&Side::A).unwrap().concede();
    t.send(Side::A, env);
    run(&mut t, &mut sizes);
    assert!(t.session.is_closed());

    println!("| to, kind | messages | unpadded bytes: min / median / max | padded |");
    println!("|---|---|---|---|");
    for (kind, mut v) in sizes.0 {
        v.sort_unstable();
        let padded = |n: usize| (n + 4).div_ceil(PAD_BUCKET) * PAD_BUCKET;
        println!(
            "| {kind} | {} | {} / {} / {} | {} |",
            v.len(),
            v[0],
            v[v.len() / 2],
            v[v.len() - 1],
            padded(v[v.len() - 1])
        );
    }
}
