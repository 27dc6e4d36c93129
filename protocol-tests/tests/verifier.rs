//! The offline verifier over whole transcript files (DESIGN 3.5): honest
//! games played by the live session and two protocol players, damaged and
//! forged files, a misbehaving server and cheating players (G1, G2, G3, G5,
//! G6).

mod common;

use common::{honest_game, set_up_game, Game, Table};
use hexveil_asl::Side;
use hexveil_protocol::encoding::Party;
use hexveil_protocol::envelope::{
    next_head, Appended, Envelope, EnvelopeError, Receipt, SignedEnvelope,
};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{self, Body, EndRecord, OpenedFact, RevealBody};
use hexveil_protocol::referee::RefereeError;
use hexveil_protocol::transcript::{EntryProblem, FormatError, HEADER_LEN};
use hexveil_protocol::verifier::{verify, Blame, Fault, FaultKind, RevealFault, Status, Verdict};
use proptest::prelude::*;

fn last(g: &Game) -> u64 {
    g.entries.len() as u64 - 1
}

fn fault(v: Verdict) -> Fault {
    match v {
        Verdict::Fault(f) => f,
        Verdict::Clean(s) => panic!("expected a fault, got {s}"),
    }
}

/// Where each entry of a file starts.
fn entry_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = vec![];
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        starts.push(at);
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 4 + len;
    }
    starts
}

fn is_reveal(_: Party, b: &Body) -> bool {
    matches!(b, Body::Reveal(_))
}

#[test]
fn an_honest_game_is_clean_every_ruling_rederived_both_sides_audited_g5() {
    let g = honest_game(4);
    let v = verify(&g.bytes(), &hexveil_fixtures::rulesets());
    let Verdict::Clean(s) = &v else {
        panic!("honest game: {v}")
    };
    assert_eq!(s.entries, g.entries.len() as u64);
    assert_eq!(s.head, g.log.head());
    assert!(s.rulings >= 5, "{s}");
    assert!(s.rolls >= 1, "the step into the minefield rolls: {s}");
    assert_eq!(s.audited, vec![Side::A, Side::B]);
    assert!(s.unaudited.is_empty());
    assert_eq!(s.end.as_ref().unwrap().winner, Some(Side::B));
    assert!(v.to_string().starts_with("CLEAN"), "{v}");
}

#[test]
fn the_stream_verifier_agrees_with_the_in_memory_one_g5() {
    let g = honest_game(1);
    let bytes = g.bytes();
    let from_reader =
        hexveil_protocol::verifier::verify_reader(bytes.as_slice(), &hexveil_fixtures::rulesets())
            .unwrap();
    assert_eq!(from_reader, verify(&bytes, &hexveil_fixtures::rulesets()));
    assert!(matches!(from_reader, Verdict::Clean(_)));
    for cut in [3, HEADER_LEN, HEADER_LEN + 7, bytes.len() - 5] {
        assert_eq!(
            hexveil_protocol::verifier::verify_reader(&bytes[..cut], &hexveil_fixtures::rulesets())
                .unwrap(),
            verify(&bytes[..cut], &hexveil_fixtures::rulesets()),
            "cut at {cut}"
        );
    }
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 4;
    assert_eq!(
        hexveil_protocol::verifier::verify_reader(
            flipped.as_slice(),
            &hexveil_fixtures::rulesets()
        )
        .unwrap(),
        verify(&flipped, &hexveil_fixtures::rulesets())
    );
}

/// G5 (issue 10 item 2): a transcript cut before the end and the reveals
/// is clean only so far: the end-of-game audits (layout budgets, illegal
/// placements) have not run, and the verdict says so; only a closed log is
/// complete.
#[test]
fn an_unfinished_game_is_incomplete_not_clean_and_says_what_was_not_audited_g5() {
    let g = set_up_game();
    let v = verify(&g.bytes(), &hexveil_fixtures::rulesets());
    assert_eq!(v.status(), Status::Incomplete);
    let Verdict::Clean(s) = v else {
        panic!("unfinished game")
    };
    assert!(!s.complete);
    assert_eq!(s.end, None);
    assert_eq!(s.unaudited, vec![Side::A, Side::B]);
    assert!(s.to_string().starts_with("INCOMPLETE"), "{s}");
    assert!(!s.to_string().starts_with("CLEAN"), "{s}");
    assert!(s.to_string().contains("NOT revealed"));
    assert!(s.next.contains("action"), "{}", s.next);
    // Ended, but a reveal still missing: still incomplete.
    let honest = honest_game(0);
    let last_reveal = honest.entries.len() - 1;
    let v = verify(
        &honest.truncate(last_reveal).bytes(),
        &hexveil_fixtures::rulesets(),
    );
    assert_eq!(v.status(), Status::Incomplete, "{v}");
    // Closed: complete and clean.
    let v = verify(&honest.bytes(), &hexveil_fixtures::rulesets());
    assert_eq!(v.status(), Status::Clean, "{v}");
    assert!(v.to_string().starts_with("CLEAN:"), "{v}");
}

#[test]
fn wrong_magic_version_and_short_files_are_unreadable_g6() {
    let bytes = set_up_game().bytes();
    let mut magic = bytes.clone();
    magic[0] = b'X';
    let f = fault(verify(&magic, &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Undetermined, None));
    assert!(matches!(
        f.what,
        FaultKind::Unreadable(FormatError::BadMagic { .. })
    ));
    // Issue 27: a text file given by mistake is named as text, not as a
    // byte array.
    let text = b"# hexveil scenario\nname = 'x'\n".to_vec();
    let f = fault(verify(&text, &hexveil_fixtures::rulesets()));
    let said = f.to_string();
    assert!(
        said.contains("the text \"# hexvei\" (a text file?)"),
        "{said}"
    );
    let mut version = bytes.clone();
    version[9] = 3;
    assert_eq!(
        fault(verify(&version, &hexveil_fixtures::rulesets())).what,
        FaultKind::Unreadable(FormatError::UnsupportedVersion { got: 3 })
    );
    // PROTOCOL.md 15: a version-1 file holds only receipted entries, and
    // the genesis of message version 5 has none.
    version[9] = 1;
    assert_eq!(
        fault(verify(&version, &hexveil_fixtures::rulesets())).what,
        FaultKind::Unreadable(FormatError::Entry {
            index: 0,
            problem: EntryProblem::ReceiptlessInVersion1
        })
    );
    assert_eq!(
        fault(verify(&bytes[..5], &hexveil_fixtures::rulesets())).what,
        FaultKind::Unreadable(FormatError::TooShort { len: 5 })
    );
    assert_eq!(
        fault(verify(&bytes[..HEADER_LEN], &hexveil_fixtures::rulesets())).what,
        FaultKind::Empty
    );
}

#[test]
fn a_truncated_file_names_the_cut_entry_g6() {
    let g = honest_game(0);
    let bytes = g.bytes();
    let starts = entry_starts(&bytes);
    for (i, s) in starts.iter().enumerate() {
        // Cut inside the length prefix, and inside the entry.
        for cut in [s + 2, s + 40] {
            let f = fault(verify(&bytes[..cut], &hexveil_fixtures::rulesets()));
            assert_eq!(f.entry, Some(i as u64), "cut at {cut}");
            assert!(matches!(
                f.what,
                FaultKind::Unreadable(FormatError::Entry {
                    problem: EntryProblem::TruncatedLength { .. } | EntryProblem::Truncated { .. },
                    ..
                })
            ));
        }
    }
    // Cut at an entry boundary, before the second reveal: a valid log.
    let cut = *starts.last().unwrap();
    let Verdict::Clean(s) = verify(&bytes[..cut], &hexveil_fixtures::rulesets()) else {
        panic!("a prefix of a log is a log")
    };
    assert_eq!(s.audited.len(), 1);
    assert_eq!(s.unaudited.len(), 1);
}

#[test]
fn a_hostile_length_prefix_is_refused_before_allocation_g6() {
    let mut bytes = set_up_game().bytes();
    let at = entry_starts(&bytes)[2];
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    let f = fault(verify(&bytes, &hexveil_fixtures::rulesets()));
    assert_eq!(f.entry, Some(2));
    assert!(matches!(
        f.what,
        FaultKind::Unreadable(FormatError::Entry {
            problem: EntryProblem::TooLong { .. },
            ..
        })
    ));
}

#[test]
fn a_forged_receipt_names_its_entry_g5() {
    let mut g = set_up_game();
    // Side A "receipts" a player's entry itself.
    let [i, _] = receipted(&g);
    let prev = g.entries[i - 1].appended().new_head;
    let e = &mut g.entries[i];
    let hash = e.envelope.entry_hash();
    let app = Appended {
        seq: i as u64,
        entry_hash: hash,
        new_head: next_head(&prev, &hash),
    };
    e.receipt = Some(Receipt::issue(
        &Identity::from_seed(&[1; 32]).unwrap(),
        g.game,
        &app,
    ));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry, f.what),
        (
            Blame::Undetermined,
            Some(i as u64),
            FaultKind::ForgedReceipt
        )
    );
}

/// The first two entries of `g` that carry a receipt (players' entries).
fn receipted(g: &Game) -> [usize; 2] {
    let mut with = (1..g.entries.len()).filter(|i| g.entries[*i].receipt.is_some());
    [with.next().unwrap(), with.next().unwrap()]
}

/// The first entry after the genesis that the server wrote.
fn servers(g: &Game) -> usize {
    let server = g.ids[2].public_key();
    (1..g.entries.len())
        .find(|i| g.entries[*i].envelope.envelope().author == server)
        .unwrap()
}

#[test]
fn a_genuine_receipt_moved_to_another_entry_is_caught_g5() {
    let mut g = set_up_game();
    let [i, j] = receipted(&g);
    g.entries[i].receipt = g.entries[j].receipt;
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.entry, f.what),
        (Some(i as u64), FaultKind::ReceiptForOtherEntry)
    );
}

#[test]
fn g5_a_players_entry_stripped_of_its_receipt_is_caught() {
    // PROTOCOL.md 6: a player's entry carries the server's receipt unless
    // the server's own entry follows it (message version 6). One that
    // another player's entry follows, stripped of it, is placed by
    // nothing: the file was altered, and nobody is blamed.
    let mut g = set_up_game();
    let [i, _] = receipted(&g);
    let server = g.ids[2].public_key();
    assert_ne!(g.entries[i + 1].envelope.envelope().author, server);
    g.entries[i].receipt = None;
    blames_nobody(&g, i, FaultKind::UnplacedEntry);
    // In a game of message version 5 every player's entry is receipted.
    let (_, t, _) = common::seed_games()
        .into_iter()
        .find(|(g, t, _)| g.message_version == 5 && t.entries.len() > 20)
        .expect("a whole game of version 5 among the fuzz seeds");
    let mut g = common::Game::from_log(t.entries);
    let i = (1..g.entries.len())
        .find(|i| g.entries[*i].envelope.envelope().author != server)
        .unwrap();
    g.entries[i].receipt = None;
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry, f.what),
        (
            Blame::Undetermined,
            Some(i as u64),
            FaultKind::MissingReceipt
        )
    );
}

#[test]
fn g5_a_server_entry_of_message_version_5_carries_no_receipt() {
    // The server's own signature stands for its receipt (PROTOCOL.md 6):
    // the genesis and every later server entry are written without one,
    // and one added (even a genuine one) is not the form the protocol
    // writes.
    let mut g = set_up_game();
    assert!(g.entries[0].receipt.is_none(), "the genesis");
    let i = servers(&g);
    assert!(g.entries[i].receipt.is_none());
    let appended = g.entries[i].appended();
    g.entries[i].receipt = Some(Receipt::issue(&g.ids[2], g.game, &appended));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry, f.what),
        (
            Blame::Undetermined,
            Some(i as u64),
            FaultKind::UnexpectedReceipt
        )
    );
}

#[test]
fn g5_a_server_entry_repeated_at_the_next_seq_blames_nobody() {
    // Without a receipt, a server entry is bound to its seq by its own
    // signature: a copy one place later was put there by whoever edited
    // the file, not by the server (found in review).
    let mut g = set_up_game();
    let i = servers(&g);
    g.entries.truncate(i + 1);
    let copy = g.entries[i].clone();
    g.entries.push(copy);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry, f.what),
        (
            Blame::Undetermined,
            Some(i as u64 + 1),
            FaultKind::MisplacedEntry {
                game: g.game,
                seq: i as u64
            }
        )
    );
}

#[test]
fn g5_a_players_entry_cut_out_before_a_server_entry_blames_nobody() {
    let mut g = set_up_game();
    let server = g.ids[2].public_key();
    let i = (1..g.entries.len() - 1)
        .find(|i| {
            g.entries[*i].envelope.envelope().author != server
                && g.entries[*i + 1].envelope.envelope().author == server
        })
        .unwrap();
    g.entries.truncate(i + 2);
    g.entries.remove(i);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry),
        (Blame::Undetermined, Some(i as u64)),
        "{f}"
    );
    assert!(matches!(f.what, FaultKind::MisplacedEntry { .. }), "{f}");
}

#[test]
fn g5_a_server_entry_of_another_game_blames_nobody() {
    let mut g = set_up_game();
    let i = servers(&g);
    let env = g.entries[i].envelope.envelope().clone();
    let other = hexveil_protocol::encoding::GameId([9; 16]);
    g.entries[i].envelope = Envelope {
        game_id: other,
        ..env
    }
    .sign(&g.ids[2]);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry, f.what),
        (
            Blame::Undetermined,
            Some(i as u64),
            FaultKind::MisplacedEntry {
                game: other,
                seq: i as u64
            }
        )
    );
}

#[test]
fn g5_a_server_entry_signed_on_another_head_at_its_own_place_is_the_servers_fork() {
    // The head before it is the server's word already (the receipt or
    // the signature of the entry before): two heads signed for one seq.
    let mut g = honest_game(4);
    let server = g.ids[2].public_key();
    let i = (1..g.entries.len())
        .find(|i| {
            g.entries[*i].envelope.envelope().author == server
                && (g.entries[*i - 1].receipt.is_some()
                    || g.entries[*i - 1].envelope.envelope().author == server)
        })
        .unwrap();
    let env = g.entries[i].envelope.envelope().clone();
    g.entries[i].envelope = Envelope {
        prev_head: hexveil_protocol::encoding::Digest([7; 32]),
        ..env
    }
    .sign(&g.ids[2]);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(i as u64)), "{f}");
}

#[test]
fn g5_a_server_entry_with_a_forged_signature_blames_nobody_and_is_caught() {
    // Without a receipt, the server's entry rests on its own signature:
    // one flipped bit of it is caught, and proves nothing against anyone.
    let mut g = set_up_game();
    let i = servers(&g);
    let env = &g.entries[i].envelope;
    let mut sig = *env.signature();
    sig.0[0] ^= 1;
    g.entries[i].envelope = SignedEnvelope::from_parts(env.bytes().to_vec(), sig).unwrap();
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Undetermined, Some(i as u64)));
}

/// A's entry the referee refuses (an end record of its own, out of turn),
/// as the last entry of `set_up_game`, and its seq.
fn a_refused_entry(g: &mut Game) -> usize {
    g.push(
        Party::A,
        &Body::End(EndRecord {
            winner: Some(Side::A),
            reason: "I say so".into(),
        }),
    );
    last(g) as usize
}

/// The server's own entry (a timeout of B's) on the current head.
fn a_server_entry(g: &mut Game) {
    g.push(
        Party::Server,
        &Body::Timeout {
            party: Party::B,
            request: "an opening".into(),
        },
    );
}

#[test]
fn g5_a_players_entry_the_servers_next_entry_places_is_the_servers_if_refused() {
    // Message version 6 (PROTOCOL.md 6): the server's own entry, signed on
    // the head after a player's entry, places it in place of a receipt. A
    // refused entry placed so is the server's fault, as a receipted one
    // is; the signer is not framed.
    let mut g = set_up_game();
    let i = a_refused_entry(&mut g);
    a_server_entry(&mut g);
    assert!(g.entries[i].receipt.is_none(), "placed by the next entry");
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(i as u64)), "{f}");
    assert!(matches!(
        f.what,
        FaultKind::Refused(RefereeError::OutOfTurn { .. })
    ));
}

#[test]
fn g5_a_players_entry_nothing_places_blames_nobody_and_is_not_counted() {
    // The same refused entry without a receipt, and nothing of the
    // server's after it: anyone holding A's signed entry can append it to
    // a cut transcript. It proves nothing against the server, nor A: the
    // transcript is cut before the entry that would place it, clean so
    // far, and the entry is not counted.
    let mut g = set_up_game();
    let before = verify(&g.bytes(), &hexveil_fixtures::rulesets());
    let i = a_refused_entry(&mut g);
    g.entries[i].receipt = None;
    let after = verify(&g.bytes(), &hexveil_fixtures::rulesets());
    assert_eq!(after.status(), Status::Incomplete, "{after}");
    let (Verdict::Clean(before), Verdict::Clean(after)) = (before, after) else {
        panic!("clean so far")
    };
    assert_eq!((after.entries, after.head), (before.entries, before.head));
    assert_eq!(after.entries, i as u64);
    assert!(after.next.contains("not counted"), "{}", after.next);
    // An entry the referee accepts, left last without a receipt: the same.
    let mut g = set_up_game();
    g.push(Party::A, &Body::Concede);
    let i = last(&g) as usize;
    g.entries[i].receipt = None;
    let verdict = verify(&g.bytes(), &hexveil_fixtures::rulesets());
    assert_eq!(verdict.status(), Status::Incomplete, "{verdict}");
    let Verdict::Clean(after) = verdict else {
        unreachable!()
    };
    assert_eq!(after.entries, i as u64);
}

#[test]
fn g5_a_server_entry_on_another_head_after_an_unreceipted_entry_blames_nobody() {
    // A player's entry without a receipt is placed only by the server's
    // next entry. If that entry is on another head, the file may hold a
    // swapped player's entry (one it signed for the same seq and refused
    // live): no fork of the server's is proven, and nobody is blamed.
    let mut g = set_up_game();
    // A's other signed entry for the same seq, on the same head.
    let other = g.envelope(
        Party::A,
        message::encode(&Body::End(EndRecord {
            winner: Some(Side::A),
            reason: "I say so".into(),
        })),
    );
    g.push(Party::A, &Body::Concede);
    let i = last(&g) as usize;
    a_server_entry(&mut g);
    g.entries[i].envelope = other;
    blames_nobody(&g, i, FaultKind::UnplacedEntry);
}

/// A concession signed by a key the genesis does not name, logged next
/// with the server's receipt (a misbehaving server): the stranger's key.
fn a_strangers_entry(g: &mut Game) -> Identity {
    let stranger = Identity::from_seed(&[9; 32]).unwrap();
    let env = Envelope {
        author: stranger.public_key(),
        ..g.envelope(Party::A, message::encode(&Body::Concede))
            .envelope()
            .clone()
    }
    .sign(&stranger);
    g.push_unchecked(env);
    stranger
}

/// The verdict on `g` is a fault of `what` at entry `i`, blaming nobody.
fn blames_nobody(g: &Game, i: usize, what: FaultKind) {
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry, f.what),
        (Blame::Undetermined, Some(i as u64), what)
    );
}

#[test]
fn g5_an_entry_by_a_key_not_in_the_genesis_without_a_receipt_blames_nobody() {
    // Only a player's entry may go without a receipt (message version 6,
    // placed by the server's next entry): a stranger's without one is no
    // statement of the server's, and proves nothing against anyone.
    let mut g = set_up_game();
    a_strangers_entry(&mut g);
    let i = last(&g) as usize;
    g.entries[i].receipt = None;
    blames_nobody(&g, i, FaultKind::MissingReceipt);
}

#[test]
fn an_entry_by_a_key_not_in_the_genesis_is_the_servers_fault_g6() {
    let mut g = set_up_game();
    let stranger = a_strangers_entry(&mut g);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
    assert_eq!(
        f.what,
        FaultKind::AcceptedBadEnvelope(EnvelopeError::UnknownAuthor(stranger.public_key()))
    );
}

#[test]
fn a_replayed_entry_receipted_again_is_the_servers_fault_g6() {
    let mut g = set_up_game();
    let replay = g.entries[1].envelope.clone();
    g.push_unchecked(replay);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
    assert_eq!(
        f.what,
        FaultKind::AcceptedBadEnvelope(EnvelopeError::Replay { seq: 1 })
    );
}

/// G5 (issue 10 item 1): a player's entry the referee refuses is refused
/// live ("refused, nothing changed"); a server that receipts it anyway
/// cannot frame the player who signed it: the receipted refusal is the
/// server's fault.
#[test]
fn a_refused_entry_the_server_receipted_is_the_servers_fault_not_the_signers_g5() {
    let mut g = set_up_game();
    g.push(
        Party::A,
        &Body::End(EndRecord {
            winner: Some(Side::A),
            reason: "I say so".into(),
        }),
    );
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
    assert!(matches!(
        f.what,
        FaultKind::Refused(RefereeError::OutOfTurn { .. })
    ));
    assert!(f.to_string().contains("the server receipted"), "{f}");

    let honest = honest_game(0);
    let reveal = honest.body(honest.find(is_reveal).unwrap());
    let mut g = set_up_game();
    g.push(Party::Server, &reveal);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
    // A reveal before the end of the game (G3: secrets stay hidden in play).
    let mut g = set_up_game();
    g.push(Party::B, &reveal);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
    // An honest player's illegal action, refused live, then receipted by a
    // dishonest server: the server's fault, never the player's.
    let mut g = set_up_game();
    let act = honest.body(
        honest
            .find(|p, b| p == Party::A && b.declared_action().is_some())
            .unwrap(),
    );
    g.push(Party::B, &act);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))), "{f}");
}

/// G5, G6: a body that does not decode is refused live; receipted, it is
/// the server's fault (PROTOCOL.md 15), not its signer's.
#[test]
fn a_signed_body_that_does_not_decode_is_the_receipting_servers_fault_g5() {
    let mut g = set_up_game();
    let env = g.envelope(Party::A, vec![0xff, 0xff, 0xff]);
    g.push_signed(env);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
    assert!(matches!(f.what, FaultKind::Refused(RefereeError::Body(_))));
}

#[test]
fn a_ruling_that_is_not_the_engines_is_the_servers_fault_g5() {
    let honest = honest_game(2);
    let i = honest
        .find(|p, b| p == Party::Server && matches!(b, Body::Ruling(r) if !r.events.is_empty()))
        .unwrap();
    let Body::Ruling(mut r) = honest.body(i) else {
        unreachable!()
    };
    r.events.pop();
    let mut g = honest.truncate(i);
    g.push(Party::Server, &Body::Ruling(r));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(i as u64)));
    assert!(matches!(
        f.what,
        FaultKind::Refused(RefereeError::BadRuling { .. })
    ));
}

/// G1, G5 (issue 10 items 1 and 4): a lying opening receipted as if
/// accepted is the server's fault; recorded by the server as a refused
/// answer ([`Body::BadAnswer`]) it is the owner's, and a record of an
/// opening that is not a lie is the server's.
#[test]
fn an_opening_that_lies_about_a_mine_is_the_owners_fault_once_recorded_g1_g5() {
    let honest = honest_game(0);
    // B's opening of a mined leaf (3E4, A-P 12).
    let i = honest
        .find(|p, b| {
            p == Party::B
                && matches!(b, Body::Open(v)
                    if matches!(v.first(), Some(OpenedFact::Leaf(o)) if o.content != [0; 8]))
        })
        .unwrap();
    let Body::Open(mut v) = honest.body(i) else {
        unreachable!()
    };
    let OpenedFact::Leaf(o) = &mut v[0] else {
        unreachable!()
    };
    // "No mine here."
    o.content = [0; 8];
    let mut g = honest.truncate(i);
    g.push(Party::B, &Body::Open(v.clone()));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(i as u64)));
    assert!(matches!(
        f.what,
        FaultKind::Refused(RefereeError::BadOpening { .. })
    ));
    // Recorded as the server must: the owner's fault.
    let mut g = honest.truncate(i);
    let lie = g.envelope(Party::B, message::encode(&Body::Open(v)));
    g.push(Party::Server, &Body::BadAnswer(lie));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Side(Side::B), Some(i as u64)));
    assert!(matches!(f.what, FaultKind::BadAnswer(_)), "{f}");
    assert!(
        f.to_string().contains("does not match its own commitment"),
        "{f}"
    );
    // A record of B's true opening frames nobody: the server's fault.
    let mut g = honest.truncate(i);
    let truth = g.envelope(Party::B, message::encode(&honest.body(i)));
    g.push(Party::Server, &Body::BadAnswer(truth));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(i as u64)));
    assert!(
        matches!(f.what, FaultKind::Refused(RefereeError::BadRecord(_))),
        "{f}"
    );
    // Nor does a record of an answer B signed for another seq.
    let mut g = honest.truncate(i);
    let other = honest.truncate(i - 1);
    let stale = other.envelope(Party::B, message::encode(&honest.body(i)));
    g.push(Party::Server, &Body::BadAnswer(stale));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(f.blame, Blame::Server, "{f}");
}

#[test]
fn a_genesis_not_signed_by_its_server_key_is_refused_g5() {
    let g = set_up_game();
    let [a, _, _] = common::ids();
    let mut bad = g.truncate(1);
    bad.entries[0].envelope = Envelope {
        author: a.public_key(),
        ..g.entries[0].envelope.envelope().clone()
    }
    .sign(&a);
    let f = fault(verify(&bad.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(f.entry, Some(0));
    assert!(matches!(f.what, FaultKind::GenesisNotByServer { .. }));
    // An entry 0 that is not a genesis at all.
    let mut g2 = g.truncate(1);
    g2.entries.clear();
    g2.log = hexveil_protocol::envelope::LogState::new(
        g2.game,
        g2.ids.iter().map(|i| i.public_key()).collect(),
    );
    g2.push(Party::Server, &Body::Concede);
    let f = fault(verify(&g2.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(f.entry, Some(0));
    assert!(matches!(f.what, FaultKind::NoGenesis(_)));
}

/// The honest game with side `side`'s reveal edited (and re-signed).
fn with_reveal(side: Side, mut edit: impl FnMut(&mut RevealBody)) -> Game {
    let honest = honest_game(0);
    let first = honest.find(is_reveal).unwrap();
    let mut g = honest.truncate(first);
    for i in first..honest.entries.len() {
        let author = if honest.entries[i].envelope.envelope().author == g.ids[0].public_key() {
            Side::A
        } else {
            Side::B
        };
        let Body::Reveal(mut r) = honest.body(i) else {
            unreachable!()
        };
        if author == side {
            edit(&mut r);
        }
        g.push(message::party_of(author), &Body::Reveal(r));
    }
    g
}

fn reveal_seq(g: &Game, side: Side) -> u64 {
    let party = message::party_of(side);
    g.find(|p, b| p == party && is_reveal(p, b)).unwrap() as u64
}

#[test]
fn a_mine_moved_after_setup_is_proven_by_the_reveal_g1_g5() {
    let g = with_reveal(Side::B, |r| {
        // B's 12-factor minefield in 3E4 "was always" in the empty hex 3E3.
        let ap = r.layers.iter_mut().find(|l| l.layer == "ap").unwrap();
        let c = &mut ap.contents;
        let mine = c.iter().position(|(k, _)| k == "3E4").unwrap();
        let empty = c.iter().position(|(k, _)| k == "3E3").unwrap();
        assert_ne!(c[mine].1, c[empty].1);
        let (m, e) = (c[mine].1, c[empty].1);
        c[mine].1 = e;
        c[empty].1 = m;
    });
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry),
        (Blame::Side(Side::B), Some(reveal_seq(&g, Side::B)))
    );
    assert!(matches!(
        f.what,
        FaultKind::Reveal(RevealFault::LayoutMismatch { ref layer, .. }) if layer == "ap"
    ));
}

#[test]
fn a_false_pad_seed_is_proven_by_the_reveal_g2_g5() {
    let g = with_reveal(Side::A, |r| r.pad_seed.0[0] ^= 1);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry),
        (Blame::Side(Side::A), Some(reveal_seq(&g, Side::A)))
    );
    assert!(matches!(
        f.what,
        FaultKind::Reveal(RevealFault::PadMismatch { epoch: 0, .. })
    ));
}

#[test]
fn minefield_factors_over_the_ob_are_proven_by_the_reveal_b28_1_g5() {
    // 48 hidden factors in B's OB; the example spends 37; one more 12-factor
    // minefield is over budget. The commitment itself is honest.
    let sealed = common::SEALED_B.replace(
        "{ hex = \"3E4\", strength = 12 },",
        "{ hex = \"3E4\", strength = 12 },\n  { hex = \"3B2\", strength = 12 },",
    );
    let mut t = Table::new(5, &sealed);
    t.step_into_the_minefield();
    t.concede();
    let g = t.game();
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry),
        (Blame::Side(Side::B), Some(reveal_seq(&g, Side::B)))
    );
    let FaultKind::Reveal(RevealFault::IllegalSetup(v)) = &f.what else {
        panic!("{f}")
    };
    assert!(v.iter().any(|x| x.starts_with("budget: ")), "{v:?}");
}

#[test]
fn a_layout_that_dodges_an_eligible_hex_is_proven_by_the_reveal_g3_g5() {
    // B seals a leaf for a made-up location instead of eligible 3A1 (same
    // leaf count, so the setup passes); asked about 3A1 it could not be
    // made to open anything. A concedes at once; the reveal proves it.
    let honest = set_up_game();
    let i = honest
        .find(|p, b| p == Party::B && matches!(b, Body::Setup(_)))
        .unwrap();
    let Body::Setup(mut setup) = honest.body(i) else {
        unreachable!()
    };
    let after_setup: Vec<(Party, Body)> = (i + 1..honest.entries.len())
        .map(|j| {
            let author = honest.entries[j].envelope.envelope().author;
            let p = Party::ALL[honest
                .ids
                .iter()
                .position(|k| k.public_key() == author)
                .unwrap()];
            (p, honest.body(j))
        })
        .collect();
    let full = honest_game(0);
    let Body::Reveal(mut reveal_b) = full.body(reveal_seq(&full, Side::B) as usize) else {
        unreachable!()
    };
    let reveal_a = full.body(reveal_seq(&full, Side::A) as usize);
    let ap = reveal_b
        .layers
        .iter_mut()
        .find(|l| l.layer == "ap")
        .unwrap();
    let k = ap.contents.iter().position(|(k, _)| k == "3A1").unwrap();
    ap.contents[k].0 = "9Z99".into();
    let sealed = hexveil_protocol::layout::SealedLayout::seal(
        common::GAME,
        Party::B,
        "ap",
        ap.contents.clone(),
        hexveil_protocol::layout::LayoutSeed(ap.seed),
    )
    .unwrap();
    let root = setup.roots.iter_mut().find(|r| r.layer == "ap").unwrap();
    *root = sealed.statement();
    let mut g = honest.truncate(i);
    g.push(Party::B, &Body::Setup(setup));
    // Nothing after B's setup depends on its roots.
    for (p, b) in after_setup {
        g.push(p, &b);
    }
    g.push(Party::A, &Body::Concede);
    g.push(
        Party::Server,
        &Body::End(EndRecord {
            winner: Some(Side::B),
            reason: "side A conceded".into(),
        }),
    );
    g.push(Party::A, &reveal_a);
    g.push(Party::B, &Body::Reveal(reveal_b));
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!((f.blame, f.entry), (Blame::Side(Side::B), Some(last(&g))));
    assert!(
        matches!(&f.what, FaultKind::Reveal(RevealFault::LeafSet { missing: Some(m), extra: Some(x), .. }) if m == "3A1" && x == "9Z99"),
        "{f}"
    );
}

thread_local! {
    static HONEST: Vec<u8> = honest_game(0).bytes();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// G5/G6: a bit flipped anywhere in the file gives a fault that names
    /// the entry holding the flipped bit (or no entry, in the header), and
    /// blames nobody: damage proves nothing against anyone.
    #[test]
    fn a_bit_flipped_anywhere_names_its_entry_g5_g6(pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let bytes = HONEST.with(|b| b.clone());
        let p = pos.index(bytes.len());
        let mut flipped = bytes.clone();
        flipped[p] ^= 1 << bit;
        let f = fault(verify(&flipped, &hexveil_fixtures::rulesets()));
        let starts = entry_starts(&bytes);
        let expected = starts.iter().rposition(|s| *s <= p).map(|i| i as u64);
        prop_assert_eq!(f.entry, expected, "flip at byte {} bit {}: {}", p, bit, f);
        prop_assert_eq!(f.blame, Blame::Undetermined, "flip at byte {} bit {}: {}", p, bit, f);
    }
}

#[test]
fn a_false_notes_seed_is_proven_by_the_reveal_b28_531_g5() {
    let honest = honest_game(0);
    let notes = honest
        .find(|p, b| {
            p == Party::B
                && match b {
                    Body::Open(v) => v.iter().any(|f| matches!(f, OpenedFact::Note { .. })),
                    Body::OpenAhead(a) => a
                        .openings
                        .iter()
                        .any(|f| matches!(f, OpenedFact::Note { .. })),
                    _ => false,
                }
        })
        .is_some();
    assert!(notes, "B answers Daisy Chain opportunities with notes");
    let g = with_reveal(Side::B, |r| r.notes_seed[0] ^= 1);
    let f = fault(verify(&g.bytes(), &hexveil_fixtures::rulesets()));
    assert_eq!(
        (f.blame, f.entry),
        (Blame::Side(Side::B), Some(reveal_seq(&g, Side::B)))
    );
    assert!(matches!(
        f.what,
        FaultKind::Reveal(RevealFault::NoteSaltMismatch { .. })
    ));
}

/// The verdict of checking `bytes` one entry at a time with
/// [`Replay::step`], no parallel signature pass.
fn sequential_verdict(bytes: &[u8]) -> String {
    use hexveil_protocol::transcript::Transcript;
    use hexveil_protocol::verifier::Replay;
    let Ok(t) = Transcript::parse(bytes) else {
        return "unreadable".into();
    };
    let mut replay = match Replay::start(&t.entries[0], &hexveil_fixtures::rulesets()) {
        Ok(r) => r,
        Err(f) => return format!("{f}"),
    };
    for e in &t.entries[1..] {
        if let Err(f) = replay.step(e) {
            return format!("{f}");
        }
    }
    format!("{}", Verdict::Clean(replay.finish()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// G5 (issue 16): `verify` checks the signatures of a batch of entries
    /// in parallel first; its verdict is the one-entry-at-a-time verdict,
    /// word for word, whichever byte of a signature or a receipt is
    /// flipped (the last 200 bytes of an entry hold its receipt and the
    /// end of its envelope's signature).
    #[test]
    fn g5_the_parallel_signature_pass_gives_the_sequential_verdict(pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let bytes = HONEST.with(|b| b.clone());
        let starts = entry_starts(&bytes);
        let entry = 1 + pos.index(starts.len() - 1);
        let end = starts.get(entry + 1).copied().unwrap_or(bytes.len());
        let p = end - 1 - pos.index(200.min(end - starts[entry]));
        let mut flipped = bytes.clone();
        flipped[p] ^= 1 << bit;
        let parallel = match verify(&flipped, &hexveil_fixtures::rulesets()) {
            Verdict::Fault(f) if matches!(f.what, FaultKind::Unreadable(_)) => "unreadable".to_string(),
            v => match v { Verdict::Fault(f) => format!("{f}"), clean => format!("{clean}") },
        };
        prop_assert_eq!(parallel, sequential_verdict(&flipped), "flip at byte {} bit {}", p, bit);
    }
}

#[test]
fn a_game_against_yourself_is_refused_in_words_g6() {
    // Issue 27: "players and server need three distinct keys" (behind
    // "scenario rejected") for a player who created a game against itself.
    let mut params = common::params(&common::Setup::example(1, common::SEALED_B));
    params.players[1] = params.players[0];
    let [_, _, server] = common::ids();
    let e = hexveil_protocol::session::Session::create(
        hexveil_protocol::encoding::GameId([7; 16]),
        params,
        &hexveil_fixtures::rulesets(),
        server,
        common::SERVER_PAD,
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("both sides have the same key"), "{e}");
    assert!(e.contains("hexveil keygen"), "{e}");
}
