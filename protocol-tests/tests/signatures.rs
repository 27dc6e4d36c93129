//! Issue 30: the Ed25519 signatures each party makes and verifies for one
//! untriggered action (the actor's Act and the server's Ruling, nothing
//! opened, no dice), counted with [`SignatureCounts`] while the session and
//! both players run in this one thread, as hexveil's client takes them.
//! Each signature that remains is one a guarantee needs (PROTOCOL.md 6,
//! "Signatures per untriggered action"): the Act's author signature (G5:
//! it binds the actor) and the Ruling's signature (G5: the server's ruling
//! binds it; signed on the head after the Act, it also places the Act, so
//! the Act has no receipt of its own from message version 6); each checked
//! once by each party that reads it.

mod common;

use common::{declare, Table, SEALED_B};
use hexveil_asl::Action;
use hexveil_protocol::identity::SignatureCounts;
use hexveil_protocol::message::{Logged, ToClient};
use hexveil_protocol::session::Output;

/// What one party made and verified.
fn counted<T>(f: impl FnOnce() -> T) -> (T, SignatureCounts) {
    let before = SignatureCounts::now();
    let out = f();
    (out, SignatureCounts::since(before))
}

fn add(total: &mut SignatureCounts, c: SignatureCounts) {
    total.made += c.made;
    total.verified += c.verified;
}

#[test]
fn g5_g6_an_untriggered_action_costs_each_party_only_the_signatures_a_guarantee_needs() {
    let mut t = Table::new(5, SEALED_B);
    assert!(t.playing(), "the game waits for an action");
    let engine = t.session.referee().engine().unwrap();
    let actor = hexveil_asl::turn::who_ends_phase(hexveil_fixtures::asl_state(engine));
    let other = actor.opponent();
    let first = t.session.log().len();

    let mut party = [SignatureCounts::default(); 3]; // actor, other, server
    let (env, c) = counted(|| {
        declare(
            &t.session,
            t.players.get_mut(&actor).unwrap(),
            Action::EndPhase,
        )
    });
    add(&mut party[0], c);
    let (out, c) = counted(|| t.session.submit(actor, env, 0));
    add(&mut party[2], c);
    assert_eq!(
        t.session.log().len(),
        first + 2,
        "an untriggered action logs its Act and its Ruling only"
    );
    for o in out {
        let (side, msg) = match o {
            Output::ToPlayer(side, msg) => (side, msg),
            Output::Persist(_) | Output::ToSpectators { .. } => continue,
        };
        let player = t.players.get_mut(&side).unwrap();
        let (answer, c) = counted(|| match &msg {
            // As hexveil's client does (client/src/driver.rs): the receipt
            // is checked when it comes, then the update that repeats it.
            ToClient::Receipt(r) => {
                player.on_receipt(r).unwrap();
                None
            }
            ToClient::Update(u) => {
                assert!(u.attest.is_none(), "no view receipt: nothing is sealed");
                if side == other {
                    assert!(matches!(u.logged, Logged::Full { .. }));
                }
                player.on_update(u).unwrap()
            }
            other => panic!("an honest untriggered action sends no {other:?}"),
        });
        assert_eq!(answer, None, "nothing is asked of a machine");
        add(&mut party[if side == actor { 0 } else { 1 }], c);
    }
    println!(
        "signatures per untriggered action (made/verified): actor {}/{}, opponent {}/{}, server {}/{}",
        party[0].made,
        party[0].verified,
        party[1].made,
        party[1].verified,
        party[2].made,
        party[2].verified
    );
    // The actor signs its Act and checks the Ruling, which places it.
    assert_eq!(
        party[0],
        SignatureCounts {
            made: 1,
            verified: 1
        }
    );
    // The opponent checks the Act and the Ruling.
    assert_eq!(
        party[1],
        SignatureCounts {
            made: 0,
            verified: 2
        }
    );
    // The server checks the Act and signs the Ruling (a debug build also
    // checks the signature it just made on the Ruling, PROTOCOL.md 6): the
    // crypto floor.
    let debug_check = u64::from(cfg!(debug_assertions));
    assert_eq!(
        party[2],
        SignatureCounts {
            made: 1,
            verified: 1 + debug_check
        }
    );
}

/// G5: a witness skips the second check only of a statement identical,
/// byte for byte, to one it verified; the Ruling shown to the actor again
/// with its signature altered is verified and refused.
#[test]
fn g5_a_statement_shown_again_with_other_bytes_is_verified_again_and_refused() {
    let mut t = Table::new(5, SEALED_B);
    let engine = t.session.referee().engine().unwrap();
    let actor = hexveil_asl::turn::who_ends_phase(hexveil_fixtures::asl_state(engine));
    let env = declare(
        &t.session,
        t.players.get_mut(&actor).unwrap(),
        Action::EndPhase,
    );
    let out = t.session.submit(actor, env, 0);
    let mut own = None;
    for o in out {
        let Output::ToPlayer(side, msg) = o else {
            continue;
        };
        let player = t.players.get_mut(&side).unwrap();
        match msg {
            ToClient::Receipt(r) => player.on_receipt(&r).unwrap(),
            ToClient::Update(u) => {
                player.on_update(&u).unwrap();
                if side == actor && u.entry == "ruling" {
                    own = Some(u);
                }
            }
            other => panic!("an honest untriggered action sends no {other:?}"),
        }
    }
    let mut forged = own.expect("the actor's update of the Ruling");
    let Logged::Full { envelope, .. } = &mut forged.logged else {
        panic!("the Ruling is read whole: {:?}", forged.logged)
    };
    let mut sig = *envelope.signature();
    sig.0[0] ^= 1;
    **envelope =
        hexveil_protocol::envelope::SignedEnvelope::from_parts(envelope.bytes().to_vec(), sig)
            .unwrap();
    let player = t.players.get_mut(&actor).unwrap();
    let before = SignatureCounts::now();
    let refused = player.on_update(&forged);
    println!("the altered Ruling: {refused:?}");
    assert!(refused.is_err(), "an altered signature is refused");
    assert_eq!(
        SignatureCounts::since(before).verified,
        1,
        "its signature was checked, not taken as the one held"
    );
}
