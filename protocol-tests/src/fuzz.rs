//! What each cargo-fuzz target in `fuzz/` does with one input, as plain
//! functions: the targets call them (`fuzz/fuzz_targets/<name>.rs`), and
//! the seed corpus (`fuzz/seeds/<name>/`) is replayed through the very same
//! functions by an ordinary test on stable (`tests/fuzz_corpus.rs`). Each
//! panics only on a real defect: a decoder that panics, or an invariant of
//! G5/G6 broken (a refused entry that changed something, an encoding that
//! does not round-trip).

use std::sync::OnceLock;

use hexveil_protocol::encoding::{tag, TupleDecoder};
use hexveil_protocol::envelope::{Envelope, SignedEnvelope, ENVELOPE_VERSION};
use hexveil_protocol::message::{self, decode_padded, decode_to_server, Body, ToClient, ToServer};
use hexveil_protocol::referee::Referee;
use hexveil_protocol::transcript::{StreamReader, Transcript};

// The honest game the referee target plays from (a real game of the
// example, pads to concession and reveals).
// (It allows its own dead code: not every helper is used here.)
#[path = "../tests/common/mod.rs"]
mod common;

/// What a target does with one input.
pub type Check = fn(&[u8]);

/// Every target by name, as `fuzz/Cargo.toml` names its binaries.
pub const TARGETS: [(&str, Check); 8] = [
    ("body", body),
    ("content", content),
    ("envelope", envelope),
    ("padded", padded),
    ("referee", referee),
    ("to_server", to_server),
    ("transcript", transcript),
    ("tuple", tuple),
];

/// `message::Body::decode`: a log entry's body (G6). Whatever decodes
/// round-trips through its own encoding.
pub fn body(data: &[u8]) {
    if let Ok(body) = Body::decode(data) {
        assert_eq!(
            Body::decode(&message::encode(&body)).expect("own encoding decodes"),
            body
        );
    }
}

/// `content::decode`: a leaf's fixed-width content; only canonical
/// encodings decode.
pub fn content(data: &[u8]) {
    use hexveil_asl::content::{decode, encode, CONTENT_LEN};
    let Ok(bytes) = <[u8; CONTENT_LEN]>::try_from(data) else {
        return;
    };
    if let Ok(c) = decode(&bytes) {
        assert_eq!(encode(&c), bytes);
    }
}

/// `envelope::Envelope::decode` (the signed tuple, canonical) and a
/// `SignedEnvelope` through postcard (what arrives on the wire).
pub fn envelope(data: &[u8]) {
    if let Ok(env) = Envelope::decode(data) {
        assert_eq!(env.signing_bytes(), data);
    }
    if let Ok((s, _rest)) = postcard::take_from_bytes::<SignedEnvelope>(data) {
        assert_eq!(s.envelope().signing_bytes(), s.bytes());
        let _ = s.verify_signature();
    }
}

/// `message::decode_padded`: a padded server message, as a client reads
/// it; re-padding gives a message that decodes to the same value.
pub fn padded(data: &[u8]) {
    if let Ok(msg) = decode_padded(data) {
        let again = message::encode_padded(&msg);
        assert_eq!(again.len() % message::PAD_BUCKET, 0);
        let back = decode_padded(&again).expect("own encoding decodes");
        assert_eq!(format!("{back:?}"), format!("{msg:?}"));
    }
}

/// `message::decode_to_server`: a client's live message (G6).
pub fn to_server(data: &[u8]) {
    if let Ok(msg) = decode_to_server(data) {
        let back = decode_to_server(&message::encode(&msg)).expect("own encoding decodes");
        assert_eq!(format!("{back:?}"), format!("{msg:?}"));
    }
}

/// The transcript reader and the whole verifier over arbitrary files: a
/// verdict for every input, never a panic (G5, G6); the streaming reader
/// agrees with the in-memory one.
pub fn transcript(data: &[u8]) {
    let parsed = Transcript::parse(data);
    let mut streamed = Vec::new();
    let stream_ok = match StreamReader::new(data) {
        Ok(mut r) => loop {
            match r.next_entry() {
                Ok(Some(e)) => streamed.push(e),
                Ok(None) => break true,
                Err(_) => break false,
            }
        },
        Err(_) => false,
    };
    assert_eq!(parsed.is_ok(), stream_ok);
    if let Ok(t) = &parsed {
        assert_eq!(t.entries.len(), streamed.len());
        assert_eq!(t.to_bytes().expect("re-encodes"), data);
    }
    let _ = hexveil_protocol::verifier::verify(data, &hexveil_rulesets::all());
}

/// `encoding::TupleDecoder`: reads up to 8 fields, in an order chosen by
/// the input's first byte, from the rest of the input.
pub fn tuple(data: &[u8]) {
    let Some((&ops, rest)) = data.split_first() else {
        return;
    };
    let domain = tag::ALL[ops as usize % tag::ALL.len()];
    let Ok(mut d) = TupleDecoder::new(rest, domain) else {
        return;
    };
    let mut plan = u32::from(ops).wrapping_mul(0x9e37_79b9);
    for _ in 0..8 {
        let ok = match plan & 7 {
            0 => d.u8().is_ok(),
            1 => d.u16().is_ok(),
            2 => d.u32().is_ok(),
            3 => d.u64().is_ok(),
            4 => d.digest().is_ok(),
            5 => d.party().is_ok(),
            6 => d.var_bytes().is_ok(),
            _ => d.str().is_ok(),
        };
        if !ok {
            return;
        }
        plan >>= 3;
    }
    let _ = d.finish();
}

/// The referee after each prefix of an honest game.
fn referee_states() -> &'static Vec<Referee> {
    static STATES: OnceLock<Vec<Referee>> = OnceLock::new();
    STATES.get_or_init(|| {
        let g = common::honest_game(2);
        let (mut r, _) = Referee::new(&g.entries[0].envelope, &hexveil_fixtures::rulesets())
            .expect("the honest game's genesis");
        let mut out = vec![r.clone()];
        for e in &g.entries[1..] {
            r.accept(&e.envelope).expect("the honest game's entries");
            out.push(r.clone());
        }
        out
    })
}

/// How many positions of the honest game [`referee`] can start from.
pub fn referee_positions() -> usize {
    referee_states().len()
}

/// The referee over any body a key of the game signs, at every point of a
/// real game (G6): whatever a player (or the server) signs gets an answer,
/// never a panic, and a refused entry changes nothing. The first byte picks
/// the log prefix (high 6 bits) and the author (low 2 bits: A, B, server);
/// the rest is the body, signed here.
pub fn referee(data: &[u8]) {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let states = referee_states();
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
        assert_eq!((r.log().clone(), r.awaiting().clone()), before);
    }
}

/// The seed corpus: inputs made from the entries of a real (honest) game,
/// by target, as `tests/fuzz_corpus.rs` writes them to `fuzz/seeds/`.
/// Small on purpose: a few of each kind, so libFuzzer starts from inputs
/// that get past the first length and tag checks.
pub fn seed_corpus() -> Vec<(&'static str, Vec<u8>)> {
    let g = common::honest_game(2);
    let mut out: Vec<(&'static str, Vec<u8>)> = Vec::new();
    // One entry of each distinct body kind (by its first bytes), in order.
    let mut kinds = std::collections::BTreeSet::new();
    let mut bodies = Vec::new();
    for (i, e) in g.entries.iter().enumerate() {
        let env = e.envelope.envelope();
        let kind = env.body.iter().take(2).copied().collect::<Vec<u8>>();
        if kinds.insert(kind) {
            bodies.push((i, env.body.clone()));
        }
    }
    for (_, b) in &bodies {
        out.push(("body", b.clone()));
    }
    // What a client sends: a few of its real entries, and a resume.
    for (i, _) in bodies.iter().take(4) {
        let m = ToServer::Submit(g.entries[*i].envelope.clone());
        out.push(("to_server", message::encode(&m)));
    }
    out.push((
        "to_server",
        message::encode(&ToServer::Sync { from_seq: 3 }),
    ));
    // What the server sends, padded: receipts, a refusal, a transcript.
    for receipt in g.entries.iter().filter_map(|e| e.receipt).take(2) {
        let m = ToClient::Receipt(receipt);
        out.push(("padded", message::encode_padded(&m)));
    }
    let refusal = ToClient::Rejected(hexveil_protocol::envelope::Refusal::issue(
        &common::ids()[0],
        &g.entries[1].envelope,
        "refused, nothing changed".into(),
    ));
    out.push(("padded", message::encode_padded(&refusal)));
    let cut = ToClient::Transcript(g.truncate(2).bytes());
    out.push(("padded", message::encode_padded(&cut)));
    // The referee: each distinct body (but the genesis) again at the
    // position it was logged at, signed by its real author.
    let ids = common::ids();
    for (i, b) in bodies.iter().filter(|(i, _)| *i > 0) {
        let author = g.entries[*i].envelope.envelope().author;
        let who = ids
            .iter()
            .position(|id| id.public_key() == author)
            .unwrap_or(0) as u8;
        // The referee as it was just before entry i was logged.
        let pos = (*i - 1).min(63) as u8;
        let mut input = vec![(pos << 2) | who];
        input.extend_from_slice(b);
        out.push(("referee", input));
    }
    for e in g.entries.iter().take(4) {
        out.push(("envelope", e.envelope.envelope().signing_bytes()));
        out.push((
            "envelope",
            postcard::to_allocvec(&e.envelope).expect("encodes"),
        ));
    }
    // Whole and cut transcripts.
    let file = g.bytes();
    out.push(("transcript", file.clone()));
    out.push(("transcript", g.truncate(3).bytes()));
    // Tuples: a real envelope's signed bytes under each domain tag the
    // first byte can pick (one of them is the envelope's own).
    let signed = g.entries[1].envelope.envelope().signing_bytes();
    for ops in 0..tag::ALL.len() as u8 {
        let mut t = vec![ops];
        t.extend_from_slice(&signed);
        out.push(("tuple", t));
    }
    for c in [
        hexveil_asl::model::sealed::Content::Empty,
        hexveil_asl::model::sealed::Content::Dummy,
    ] {
        out.push(("content", hexveil_asl::content::encode(&c).to_vec()));
    }
    out
}
