//! A dishonest server (issue 24): it holds the server's own keys, so it
//! can alter what it shows one player and sign the view again, invent
//! sealed entries, and show a branch of the log after a player's receipt.
//! What it cannot do is forge a player's signature or make its signed
//! words agree with a log it did not write. These helpers play it over the
//! real [`Session`]'s output, so every attack starts from what the real
//! server sends.

use hexveil_asl::Side;
use hexveil_protocol::encoding::{Digest, GameId, Party};
use hexveil_protocol::envelope::{next_head, Envelope, SignedEnvelope, ENVELOPE_VERSION};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{self, Body, Logged, Prompt, Update};
use hexveil_protocol::view_receipt::{audience_index, ViewReceipt};

/// The server's transcript key of the test games.
pub fn server() -> Identity {
    let [_, _, s] = super::ids();
    s
}

/// The place and author of the entry `u` carries: (seq, head before it,
/// entry hash, author); for the victim's own entry, whose update holds
/// only its receipt, the head before it is `prev` (the server knows it).
fn place(u: &Update, prev: Option<Digest>, audience: Option<Side>) -> (u64, Digest, Digest, Party) {
    if let Some(a) = &u.attest {
        return (a.seq, a.prev_head, a.entry_hash, a.author);
    }
    match &u.logged {
        Logged::Full { envelope, .. } => {
            let e = envelope.envelope();
            let author = if e.author == server().public_key() {
                Party::Server
            } else if e.author == super::ids()[0].public_key() {
                Party::A
            } else {
                Party::B
            };
            (e.seq, e.prev_head, envelope.entry_hash(), author)
        }
        Logged::Own(_) | Logged::OwnPlacedByNext { .. } => {
            let prev = prev.expect("an own entry is placed by the head before it");
            let author = match audience {
                Some(Side::B) => Party::B,
                _ => Party::A,
            };
            let entry_hash = match &u.logged {
                Logged::Own(r) => r.entry_hash,
                Logged::OwnPlacedByNext { entry_hash } => *entry_hash,
                _ => unreachable!("matched above"),
            };
            (u.seq, prev, entry_hash, author)
        }
        Logged::Sealed { .. } => panic!("a sealed entry always has a view receipt"),
    }
}

/// `u`, shown to `audience`, changed by `change` and signed again with the
/// server's key: the view receipt now signs the changed view (the other
/// audiences' digests as they were).
pub fn alter(u: &Update, audience: Option<Side>, change: impl FnOnce(&mut Update)) -> Update {
    alter_at(u, None, audience, change)
}

/// [`alter`], for any update: `prev` is the head before its entry (needed
/// for the victim's own entry, shown by its receipt).
pub fn alter_at(
    u: &Update,
    prev: Option<Digest>,
    audience: Option<Side>,
    change: impl FnOnce(&mut Update),
) -> Update {
    let (seq, prev_head, entry_hash, author) = place(u, prev, audience);
    let mut views = u.attest.as_deref().map_or([Digest::ZERO; 3], |a| a.views);
    let mut out = u.clone();
    change(&mut out);
    views[audience_index(audience)] = out.shown_digest();
    out.attest = Some(Box::new(ViewReceipt::issue(
        &server(),
        super::GAME,
        seq,
        prev_head,
        entry_hash,
        author,
        views,
    )));
    out
}

/// A sealed entry the server invents at `seq` on `head` (its own, with
/// `words`), asking `audience` for `prompt`, signed.
pub fn invent(
    seq: u64,
    head: Digest,
    audience: Option<Side>,
    words: &str,
    prompt: Prompt,
) -> Update {
    let entry_hash = Digest::sha256(format!("an entry the server made up at {seq}").as_bytes());
    let mut u = Update {
        seq,
        head: next_head(&head, &entry_hash),
        entry: words.into(),
        action: None,
        genesis: None,
        public_setup: None,
        events: Vec::new(),
        dice: Vec::new(),
        prompt,
        end: None,
        closed: false,
        logged: Logged::Sealed { entry_hash },
        attest: None,
    };
    let mut views = [Digest::ZERO; 3];
    views[audience_index(audience)] = u.shown_digest();
    u.attest = Some(Box::new(ViewReceipt::issue(
        &server(),
        super::GAME,
        seq,
        head,
        entry_hash,
        Party::Server,
        views,
    )));
    u
}

/// An entry the server signs itself at `seq` on `head` (a branch of the
/// log it did not write), shown whole to `audience` with `prompt`.
pub fn server_entry(
    game: GameId,
    seq: u64,
    head: Digest,
    body: &Body,
    audience: Option<Side>,
    prompt: Prompt,
) -> Update {
    let env: SignedEnvelope = Envelope {
        version: ENVELOPE_VERSION,
        game_id: game,
        author: server().public_key(),
        seq,
        prev_head: head,
        body: message::encode(body),
    }
    .sign(&server());
    let entry_hash = env.entry_hash();
    let appended = hexveil_protocol::envelope::Appended {
        seq,
        entry_hash,
        new_head: next_head(&head, &entry_hash),
    };
    let mut u = hexveil_protocol::session::view_of_entry(
        body,
        Party::Server,
        &appended,
        audience,
        prompt,
        false,
    );
    u.logged = Logged::Full {
        envelope: Box::new(env),
        receipt: None,
    };
    if u.prompt.releases() {
        let mut views = [Digest::ZERO; 3];
        views[audience_index(audience)] = u.shown_digest();
        u.attest = Some(Box::new(ViewReceipt::issue(
            &server(),
            game,
            seq,
            head,
            entry_hash,
            Party::Server,
            views,
        )));
    }
    u
}
