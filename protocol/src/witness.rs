//! What one party has seen of a game's log, checked against the head chain
//! before anything is shown or answered (issue 24: a client that trusts
//! nothing; PROTOCOL.md, "What a client must check").
//!
//! Every [`Update`] carries its log entry ([`Logged`]): whole, the party's
//! own, or sealed with the server's view receipt. The [`Witness`] checks
//! each one in log order:
//!
//! - its place: the next seq, on top of the head the party holds (a gap
//!   asks the server again; an update seen before must say the same);
//! - its signatures: the author's on a whole entry, the server's receipt
//!   on a player's, the server's view receipt on a sealed entry and on
//!   every prompt that releases a secret, which must sign exactly what the
//!   party was shown;
//! - what it shows: for an entry the party holds whole, the action, the
//!   setup, the events, the dice and the end are read from the signed
//!   entry itself, never from the server's unsigned words;
//! - that the server never signed two heads for one position: any two of
//!   its statements that disagree (a receipt of the party's own entry and
//!   another entry at that seq, a view receipt on another head) are a
//!   [`ForkProof`], which names the server.
//!
//! It is sans-IO: the player and the spectator of the client library, the
//! demo's bots and the tests feed it, and it answers with the checked
//! update or with the [`Breach`] it found.

use crate::attestation::{Attestation, HeadClaim, Placer};
use crate::encoding::{Digest, GameId, Party};
use crate::envelope::{
    genesis_head, next_head, Appended, ForkProof, Receipt, Refusal, SignedEnvelope,
};
use crate::identity::PublicKey;
use crate::message::{side_of, Body, Genesis, Logged, LoggedEntry, Update};
use crate::session::view_of;
use crate::view_receipt::{audience_name, Audience, ViewReceipt};
use std::collections::BTreeMap;

/// Whether the signature of a statement was verified by the caller just
/// before it is held.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Signed {
    /// Verified just now, the very bytes.
    Checked,
    /// Not yet.
    Unchecked,
}

/// An update's entry: its hash, author, body and the whole entry (when the
/// party holds it), the server's statement that places it (none for a
/// player's entry without a receipt: a view receipt or the next entry
/// places it) and whether that statement's signature is checked yet.
struct Carried {
    entry_hash: Digest,
    author: Party,
    body: Option<Body>,
    whole: Option<LoggedEntry>,
    statement: Option<Attestation>,
    signed: Signed,
}

/// A player's entry without a receipt, checked but for its place, which
/// the server's next entry gives (message version 6).
#[derive(Clone, Debug)]
struct Held {
    seq: u64,
    checked: Checked,
    /// The head after it.
    new_head: Digest,
    /// The entry.
    envelope: SignedEnvelope,
}

/// The keys a game's genesis names.
#[derive(Clone, Debug)]
struct Keys {
    players: [PublicKey; 2],
    server: PublicKey,
    /// Whether the server receipts its own entries (message versions 3
    /// and 4).
    receipts_server_entries: bool,
    /// Whether a player's entry the server's own follows goes without a
    /// receipt (message version 6).
    places_by_next: bool,
}

impl Keys {
    fn party(&self, key: &PublicKey) -> Option<Party> {
        if *key == self.server {
            Some(Party::Server)
        } else if *key == self.players[0] {
            Some(Party::A)
        } else if *key == self.players[1] {
            Some(Party::B)
        } else {
            None
        }
    }
}

/// An update checked against the log.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The update as the party may show it: for an entry it holds whole,
    /// what it shows was read from the signed entry.
    pub update: Update,
    /// The entry's body, when the party holds the entry (whole or its
    /// own).
    pub body: Option<Body>,
    /// Who signed the entry.
    pub author: Party,
    /// The entry's hash.
    pub entry_hash: Digest,
}

/// What an update was, once checked.
#[derive(Clone, Debug)]
pub enum Seen {
    /// The next entries of the log, in order: this update's entry, after
    /// the entry it placed if one was held ([`Seen::Held`]).
    New(Vec<Checked>),
    /// A player's entry without a receipt (message version 6), checked but
    /// for its place, which the server's next entry gives: nothing of it
    /// may be shown or acted on yet. The witness holds it; the next
    /// update's [`Seen::New`] gives it first.
    Held {
        /// Its seq.
        seq: u64,
    },
    /// An entry seen before (a resync sends some again), the same as it
    /// was: checked again, nothing new to act on.
    Again(Box<Checked>),
}

/// Why an update cannot be shown: what the server did.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Breach {
    /// The server signed two heads for one position of the log: it showed
    /// this party (or this party and another) two histories (G5). The
    /// proof names the server; keep it (`hexveil verify --proof`).
    #[error("the server showed two histories of this game: {what}")]
    Fork {
        /// The proof.
        proof: Box<ForkProof>,
        /// What disagrees, in words.
        what: String,
    },
    /// An update the party cannot bind to the log: a missing or bad
    /// signature, another game, a view the server's signature does not
    /// cover, words that contradict the signed entry. Nothing of it is
    /// shown or answered.
    #[error("the server sent an update for entry {seq} that is not bound to the log: {reason}")]
    Unbound {
        /// The seq it claims.
        seq: u64,
        /// What is wrong.
        reason: String,
    },
    /// The server signed a view of an entry that the entry itself does
    /// not give (other events, dice, an action or a setup it does not
    /// hold): proven by the view receipt and the entry.
    #[error("the server signed a view of entry {seq} that the entry does not give: {what}")]
    FalseView {
        /// The entry.
        seq: u64,
        /// What differs.
        what: String,
        /// The proof.
        proof: Box<crate::evidence::ViewProof>,
    },
    /// The log holds an entry of this party's that it did not sign here:
    /// its secrets are not the ones the seat committed to (another pad,
    /// another setup), or it lost what it signed. Nothing more is sent.
    #[error("the log holds this party's {entry} at entry {seq}, which these secrets do not give")]
    NotOurs {
        /// The entry.
        seq: u64,
        /// What it is, in words.
        entry: String,
    },
    /// The server logged the end of the game where nothing in the log
    /// before it ends the game (no concession, no timeout, no game-over
    /// event), or with another result than the one that does. Nothing of
    /// it is shown, and nothing is revealed (G3, G5): the entry is the
    /// server's own signed one, which the transcript holds (its verifier
    /// refuses the end record, `RefereeError::BadEnd`).
    #[error("the server logged an end of the game that the log does not give: {what}; nothing of it was shown, and nothing was revealed (G5)")]
    FalseEnd {
        /// The entry.
        seq: u64,
        /// What is wrong, in words.
        what: String,
    },
    /// An update past an entry this party has not seen: ask the server for
    /// the views from `from` again.
    #[error("update {got} came before entry {from}: asking again from {from}")]
    Gap {
        /// The first seq missing.
        from: u64,
        /// The seq that came.
        got: u64,
    },
}

/// One party's checked view of a game's log.
#[derive(Clone, Debug)]
pub struct Witness {
    game_id: GameId,
    audience: Audience,
    keys: Option<Keys>,
    next_seq: u64,
    head: Digest,
    /// Every entry seen, by seq: its hash and what attests its place.
    seen: Vec<(Digest, Attestation)>,
    /// Every head position the server's statements speak of, with the
    /// head they give and the statement (in `seen` by seq, or a receipt
    /// of the party's own entry not yet seen in an update).
    claims: BTreeMap<u64, (Digest, Attestation)>,
    /// The party's own entries sent and not yet seen in the log.
    sent: Vec<SignedEnvelope>,
    /// A player's entry without a receipt, until the next update places it.
    held: Option<Held>,
    /// Every view receipt of a new entry, in seq order.
    views: Vec<ViewReceipt>,
}

impl Witness {
    /// A party's witness of game `game_id`: a side's, or the spectators'
    /// (`None`).
    pub fn new(game_id: GameId, audience: Audience) -> Witness {
        Witness {
            game_id,
            audience,
            keys: None,
            next_seq: 0,
            head: genesis_head(&game_id),
            seen: Vec::new(),
            claims: BTreeMap::new(),
            sent: Vec::new(),
            held: None,
            views: Vec::new(),
        }
    }

    /// The seq of the next entry expected.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The head of the log as checked so far: sign the next entry on it.
    pub fn head(&self) -> Digest {
        self.head
    }

    /// The seq of an entry held until the next update places it
    /// ([`Seen::Held`]), and the head after it: the next update must be
    /// the server's entry on that head.
    pub fn held(&self) -> Option<(u64, Digest)> {
        self.held.as_ref().map(|h| (h.seq, h.new_head))
    }

    /// The server's transcript key, once the genesis is seen.
    pub fn server_key(&self) -> Option<PublicKey> {
        self.keys.as_ref().map(|k| k.server)
    }

    /// The statement of the server's that placed each entry seen, in seq
    /// order (a receipt, a view receipt or its own signed entry).
    pub fn attestations(&self) -> impl Iterator<Item = &Attestation> {
        self.seen.iter().map(|(_, a)| a)
    }

    /// Every view receipt the server sent this party, in seq order: what
    /// it signed this party was shown, checked against the transcript
    /// after the game ([`crate::evidence::audit`]).
    pub fn view_receipts(&self) -> &[ViewReceipt] {
        &self.views
    }

    /// The hash of every entry seen, by seq.
    pub fn entries(&self) -> impl Iterator<Item = (u64, Digest)> + '_ {
        self.seen
            .iter()
            .enumerate()
            .map(|(i, (h, _))| (i as u64, *h))
    }

    /// Whose witness this is: a side's, or the spectators' (`None`).
    pub fn audience(&self) -> Audience {
        self.audience
    }

    /// The game.
    pub fn game_id(&self) -> GameId {
        self.game_id
    }

    /// Takes note of an entry the party sent (its receipt and its update
    /// refer to it).
    pub fn sent(&mut self, env: &SignedEnvelope) {
        let seq = env.envelope().seq;
        self.sent.retain(|e| e.envelope().seq != seq);
        self.sent.push(env.clone());
    }

    /// Takes the server's receipt of one of the party's own entries: it
    /// must be for an entry the party sent, and agree with every statement
    /// the server made before.
    pub fn receipt(&mut self, receipt: &Receipt) -> Result<(), Breach> {
        let unbound = |reason: String| Breach::Unbound {
            seq: receipt.seq,
            reason,
        };
        let keys = self
            .keys
            .clone()
            .ok_or_else(|| unbound("a receipt before the genesis".into()))?;
        receipt
            .verify(&keys.server)
            .map_err(|e| unbound(format!("the receipt: {e}")))?;
        let env = self
            .sent
            .iter()
            .find(|e| e.entry_hash() == receipt.entry_hash)
            .cloned()
            .ok_or_else(|| unbound("a receipt for an entry this party did not send".to_string()))?;
        let attestation = Attestation::Entry {
            envelope: env,
            receipt: *receipt,
        };
        // Its signature was checked above: not again (issue 30).
        self.hold(&keys.server, attestation, Signed::Checked)
    }

    /// Checks the server's refusal of an entry before it is shown or acted
    /// on: signed by the game's server, for this game, and (for an entry
    /// the party sent and has not seen in the log) for that very entry. A
    /// refusal the client keeps as evidence must prove what it says
    /// (issue 27).
    pub fn refusal(&self, refusal: &Refusal) -> Result<(), Breach> {
        let unbound = |reason: String| Breach::Unbound {
            seq: refusal.seq,
            reason,
        };
        let keys = self
            .keys
            .as_ref()
            .ok_or_else(|| unbound("a refusal before the genesis".into()))?;
        if refusal.game_id != self.game_id {
            return Err(unbound("a refusal of another game's entry".into()));
        }
        let sent = self
            .sent
            .iter()
            .find(|e| e.entry_hash() == refusal.entry_hash);
        refusal
            .verify(&keys.server, sent)
            .map_err(|e| unbound(format!("the refusal: {e}")))
    }

    /// Checks an update; on success the party may show it and, if it is
    /// [`Seen::New`], act on it.
    ///
    /// A player's entry that comes without a receipt and without a view
    /// receipt (message version 6: the server's entry that follows places
    /// it) is [`Seen::Held`]: nothing of it is shown or acted on until the
    /// next update, which must be on the head after it, signed by the
    /// server; that update's [`Seen::New`] gives both entries, in order.
    pub fn check(&mut self, u: &Update) -> Result<Seen, Breach> {
        // A held entry is placed by the next update; any other update
        // drops it (a resync sends it again).
        let placing = self.held.take().filter(|h| u.seq == h.seq + 1);
        let next_seq = self.next_seq + u64::from(placing.is_some());
        if u.seq > next_seq {
            return Err(Breach::Gap {
                from: self.next_seq,
                got: u.seq,
            });
        }
        let unbound = |reason: String| Breach::Unbound { seq: u.seq, reason };
        let again = u.seq < self.next_seq;
        let carried = self.entry(u)?;
        let Some(keys) = self.keys.clone() else {
            return Err(unbound(
                "the first update is not the server's genesis".into(),
            ));
        };
        let (entry_hash, author) = (carried.entry_hash, carried.author);
        // A sealed entry is bound by the view receipt; a whole one by its
        // own signatures, and any view receipt that comes with it must be
        // for it and sign exactly what this party was shown.
        if let Some(attest) = u.attest.as_deref() {
            self.check_attest(&keys, attest, u, entry_hash, author)?;
        } else if u.prompt.releases() {
            return Err(unbound(format!(
                "it asks for a secret ({:?}) without the server's signature on the prompt",
                u.prompt
            )));
        }
        // What places the entry: its own statement (a receipt, the
        // server's signature), else the view receipt that came with it
        // (with the entry, when the party holds it), else (a player's
        // entry of version 6) the next entry.
        let statement = carried.statement.clone().or_else(|| {
            let view = *u.attest.as_deref()?;
            Some(match &carried.whole {
                Some(whole) => Attestation::Placed {
                    envelope: whole.envelope.clone(),
                    by: Box::new(Placer::View(view)),
                },
                None => Attestation::View(view),
            })
        });
        if let Some(statement) = &statement {
            self.hold(&keys.server, statement.clone(), carried.signed)?;
        }
        if let Some(attest) = u.attest.as_deref() {
            // `check_attest` verified it.
            self.hold(&keys.server, Attestation::View(*attest), Signed::Checked)?;
        }
        // Seen before: the same entry at the same place (else `hold` found
        // another head), checked again like a new one. An entry nothing
        // places yet stands on the head its author signed it on: the
        // server's entry that places it must say the same (a fork else).
        let prev_head = match (again, &placing, &statement, &carried.whole) {
            (true, ..) => self.claims.get(&u.seq).map_or(self.head, |(h, _)| *h),
            (false, _, None, Some(whole)) => whole.envelope.envelope().prev_head,
            (false, Some(held), ..) => held.new_head,
            (false, None, ..) => self.head,
        };
        let new_head = next_head(&prev_head, &entry_hash);
        if u.head != new_head {
            return Err(unbound(format!(
                "it names head {}, the entry gives {new_head}",
                u.head
            )));
        }
        let update = match (&carried.body, &carried.whole) {
            (Some(body), Some(whole)) => self.shown(u, body, author, whole, new_head)?,
            _ => sealed_view(u, author, self.audience)?,
        };
        let checked = Checked {
            update,
            body: carried.body,
            author,
            entry_hash,
        };
        let Some(statement) = statement else {
            return self.unplaced(&keys, u, checked, carried.whole, new_head, again);
        };
        if again {
            return Ok(Seen::Again(Box::new(checked)));
        }
        let mut new = Vec::with_capacity(2);
        if let Some(held) = placing {
            // The server's own entry (or its view receipt of it), signed on
            // the head after the held one, places it: with the held entry,
            // it says what the head before that entry was, which must be
            // what every statement held says (a fork else). Another head
            // there is no fork the party can prove (the held entry bears
            // no statement of the server's), but nothing of it is shown.
            if author != Party::Server {
                return Err(unbound(format!(
                    "entry {} came without a receipt, and this entry is not the server's own",
                    held.seq
                )));
            }
            let by = Placer::of(statement.clone()).ok_or_else(|| {
                unbound("the server's own entry is placed by another entry".into())
            })?;
            let placed = Attestation::Placed {
                envelope: held.envelope,
                by: Box::new(by),
            };
            // The statement's signature was checked when it was held above.
            self.hold(&keys.server, placed.clone(), Signed::Checked)?;
            self.seen.push((held.checked.entry_hash, placed));
            self.head = held.new_head;
            self.next_seq += 1;
            new.push(held.checked);
        }
        self.seen.push((entry_hash, statement));
        self.views.extend(u.attest.as_deref().copied());
        self.head = new_head;
        self.next_seq += 1;
        self.sent.retain(|e| e.envelope().seq >= self.next_seq);
        new.push(checked);
        Ok(Seen::New(new))
    }

    /// An update whose entry no statement of the server's places yet: a
    /// player's entry of message version 6 without a receipt, held until
    /// the server's next entry places it ([`Seen::Held`]); seen before,
    /// the entry placed then.
    fn unplaced(
        &mut self,
        keys: &Keys,
        u: &Update,
        checked: Checked,
        whole: Option<LoggedEntry>,
        new_head: Digest,
        again: bool,
    ) -> Result<Seen, Breach> {
        let unbound = |reason: String| Breach::Unbound { seq: u.seq, reason };
        if again {
            // Placed when it was first seen: the same entry, or nothing.
            let seen = usize::try_from(u.seq).ok().and_then(|i| self.seen.get(i));
            return match seen {
                Some((hash, _)) if *hash == checked.entry_hash => {
                    Ok(Seen::Again(Box::new(checked)))
                }
                _ => Err(unbound(
                    "another entry than the one the server placed here before, without a receipt"
                        .into(),
                )),
            };
        }
        // Only a player's entry the server's own follows at once goes
        // without a receipt: the rules then await the server, so the
        // update asks nothing and ends nothing.
        if !keys.places_by_next || !checked.author.is_player() {
            return Err(unbound("the entry's receipt is missing".into()));
        }
        if u.prompt != crate::message::Prompt::Wait || u.closed || u.end.is_some() {
            return Err(unbound(
                "an entry without a receipt that asks for something or ends the log: the server's entry must follow it".into(),
            ));
        }
        let Some(entry) = whole else {
            return Err(unbound(
                "a sealed entry without the server's view receipt".into(),
            ));
        };
        self.held = Some(Held {
            seq: u.seq,
            checked,
            new_head,
            envelope: entry.envelope,
        });
        Ok(Seen::Held { seq: u.seq })
    }

    /// The entry an update carries: its hash, author, body (when the party
    /// holds it) and the server's statement that places it.
    fn entry(&mut self, u: &Update) -> Result<Carried, Breach> {
        let unbound = |reason: String| Breach::Unbound { seq: u.seq, reason };
        match &u.logged {
            Logged::Full { envelope, receipt } => {
                let e = envelope.envelope();
                if e.game_id != self.game_id {
                    return Err(unbound("the entry is for another game".into()));
                }
                if e.seq != u.seq {
                    return Err(unbound(format!("the entry is signed for seq {}", e.seq)));
                }
                envelope
                    .verify_signature()
                    .map_err(|err| unbound(format!("the entry's signature: {err}")))?;
                let body = Body::decode(&e.body)
                    .map_err(|err| unbound(format!("the entry's body: {err}")))?;
                if u.seq == 0 {
                    self.genesis(envelope, &body)
                        .map_err(|reason| unbound(format!("the genesis: {reason}")))?;
                }
                let keys = self.keys.as_ref().expect("the genesis came first");
                let author = keys
                    .party(&e.author)
                    .ok_or_else(|| unbound("the entry's author is no party of the game".into()))?;
                let receipted = author.is_player() || keys.receipts_server_entries;
                let (statement, signed) = match (receipted, receipt) {
                    (true, Some(r)) => (
                        Some(Attestation::Entry {
                            envelope: (**envelope).clone(),
                            receipt: **r,
                        }),
                        Signed::Unchecked,
                    ),
                    // The envelope's signature, checked above, is the
                    // statement.
                    (false, None) => (
                        Some(Attestation::ServerEntry((**envelope).clone())),
                        Signed::Checked,
                    ),
                    // A player's entry without a receipt: placed by the
                    // view receipt or the next entry, else refused
                    // ([`Witness::unplaced`]).
                    (true, None) => (None, Signed::Checked),
                    (false, Some(_)) => {
                        return Err(unbound("a receipt where the server writes none".into()))
                    }
                };
                Ok(Carried {
                    entry_hash: envelope.entry_hash(),
                    author,
                    body: Some(body),
                    whole: Some(LoggedEntry {
                        envelope: (**envelope).clone(),
                        receipt: receipt.as_deref().copied(),
                    }),
                    statement,
                    signed,
                })
            }
            Logged::Own(receipt) => {
                let (own, author, body) = self.own(u, receipt.entry_hash)?;
                Ok(Carried {
                    entry_hash: receipt.entry_hash,
                    author,
                    body: Some(body),
                    whole: Some(LoggedEntry {
                        envelope: own.clone(),
                        receipt: Some(**receipt),
                    }),
                    statement: Some(Attestation::Entry {
                        envelope: own,
                        receipt: **receipt,
                    }),
                    signed: Signed::Unchecked,
                })
            }
            Logged::OwnPlacedByNext { entry_hash } => {
                let (own, author, body) = self.own(u, *entry_hash)?;
                Ok(Carried {
                    entry_hash: *entry_hash,
                    author,
                    body: Some(body),
                    whole: Some(LoggedEntry {
                        envelope: own,
                        receipt: None,
                    }),
                    statement: None,
                    signed: Signed::Checked,
                })
            }
            Logged::Sealed { entry_hash } => {
                let attest = *u.attest.as_deref().ok_or_else(|| {
                    unbound("a sealed entry without the server's view receipt".into())
                })?;
                Ok(Carried {
                    entry_hash: *entry_hash,
                    author: attest.author,
                    body: None,
                    whole: None,
                    statement: Some(Attestation::View(attest)),
                    signed: Signed::Unchecked,
                })
            }
        }
    }

    /// The party's own entry of hash `entry_hash`, which it sent or saw
    /// logged at the update's seq: the envelope, its author and its body.
    fn own(&self, u: &Update, entry_hash: Digest) -> Result<(SignedEnvelope, Party, Body), Breach> {
        let unbound = |reason: String| Breach::Unbound { seq: u.seq, reason };
        let own = self
            .sent
            .iter()
            .chain(self.seen_own(u.seq))
            .find(|e| e.entry_hash() == entry_hash)
            .cloned()
            .ok_or(Breach::NotOurs {
                seq: u.seq,
                entry: u.entry.clone(),
            })?;
        let keys = self
            .keys
            .as_ref()
            .ok_or_else(|| unbound("an entry before the genesis".into()))?;
        let author = keys
            .party(&own.envelope().author)
            .ok_or_else(|| unbound("the entry's author is no party of the game".into()))?;
        let body = Body::decode(&own.envelope().body)
            .map_err(|err| unbound(format!("the entry's body: {err}")))?;
        Ok((own, author, body))
    }

    /// The party's own entry logged at `seq`, if this witness saw it there
    /// (a resync sends its updates again).
    fn seen_own(&self, seq: u64) -> Option<&SignedEnvelope> {
        match self.seen.get(usize::try_from(seq).ok()?) {
            Some((
                _,
                Attestation::Entry { envelope, .. } | Attestation::Placed { envelope, .. },
            )) => Some(envelope),
            _ => None,
        }
    }

    /// Takes the genesis: the keys every later entry is checked with.
    fn genesis(&mut self, envelope: &SignedEnvelope, body: &Body) -> Result<(), String> {
        let Body::Genesis(g) = body else {
            return Err(format!("entry 0 is a {}, not the genesis", body.name()));
        };
        let e = envelope.envelope();
        if e.author != g.server {
            return Err("it is not signed by the server key it names".into());
        }
        if e.prev_head != genesis_head(&self.game_id) {
            return Err("it is not on the game's first head".into());
        }
        let keys = Keys {
            players: g.players,
            server: g.server,
            receipts_server_entries: g.receipts_server_entries(),
            places_by_next: g.places_by_next(),
        };
        match &self.keys {
            Some(held) if held.server != keys.server || held.players != keys.players => {
                Err("it names other keys than the genesis seen before".into())
            }
            _ => {
                self.keys = Some(keys);
                Ok(())
            }
        }
    }

    /// Checks a view receipt against the update it came with.
    fn check_attest(
        &self,
        keys: &Keys,
        attest: &ViewReceipt,
        u: &Update,
        entry_hash: Digest,
        author: Party,
    ) -> Result<(), Breach> {
        let unbound = |reason: String| Breach::Unbound { seq: u.seq, reason };
        attest
            .verify(&keys.server)
            .map_err(|e| unbound(e.to_string()))?;
        if attest.game_id != self.game_id || attest.seq != u.seq {
            return Err(unbound(
                "the view receipt is for another game or entry".into(),
            ));
        }
        if attest.entry_hash != entry_hash || attest.author != author {
            return Err(unbound(
                "the view receipt is for another entry or author than the update carries".into(),
            ));
        }
        if attest.view_of(self.audience) != u.shown_digest() {
            return Err(unbound(format!(
                "what {} was shown is not what the server's view receipt signs",
                audience_name(self.audience)
            )));
        }
        Ok(())
    }

    /// Holds a statement of the server's after checking that it gives no
    /// other head than every statement held before, and the head the
    /// party holds: else the two are a fork proof.
    fn hold(
        &mut self,
        server: &PublicKey,
        attestation: Attestation,
        signed: Signed,
    ) -> Result<(), Breach> {
        // A statement identical, byte for byte, to one held was verified
        // when it was taken (the receipt of the party's own entry comes
        // alone, then again in its update): its signature is not checked
        // twice (issue 30).
        let (_, seq) = attestation.position();
        let held = [seq, seq.saturating_add(1)]
            .iter()
            .any(|p| self.claims.get(p).is_some_and(|(_, a)| *a == attestation));
        let claims = match (signed, held) {
            (Signed::Unchecked, false) => attestation.claims(server),
            (Signed::Checked, _) | (_, true) => attestation.claims_of_checked(server),
        }
        .map_err(|e| Breach::Unbound {
            seq: attestation.position().1,
            reason: format!("{}: {e}", attestation.describe()),
        })?;
        for claim in &claims {
            if claim.game_id != self.game_id {
                return Err(Breach::Unbound {
                    seq: attestation.position().1,
                    reason: format!("{} is for another game", attestation.describe()),
                });
            }
            if claim.before == 0 && claim.head != genesis_head(&self.game_id) {
                return Err(Breach::Unbound {
                    seq: 0,
                    reason: "the first entry is not on the game's first head".into(),
                });
            }
            if let Some((head, held)) = self.claims.get(&claim.before) {
                if *head != claim.head {
                    return Err(fork(server, held.clone(), attestation, *claim, *head));
                }
            }
        }
        for claim in claims {
            self.claims
                .entry(claim.before)
                .or_insert((claim.head, attestation.clone()));
        }
        Ok(())
    }

    /// What an update of an entry the party holds shows, read from the
    /// entry: the server's words must agree (a view receipt that signs
    /// other words is a proof against it).
    fn shown(
        &self,
        u: &Update,
        body: &Body,
        author: Party,
        entry: &LoggedEntry,
        new_head: Digest,
    ) -> Result<Update, Breach> {
        // The entry itself, whole: the party's own, or one it reads.
        let entry_hash = entry.envelope.entry_hash();
        // The dice an entry completes are in it (a roll), but for a Secret
        // dr, which only its roller sees, completed by the roller's own
        // entry: signed by the server's view receipt, checked by the
        // verifier once the log is public (the roll's seeds are).
        let secret = matches!(body, Body::Entry(_))
            && !u.dice.is_empty()
            && self.audience.is_some()
            && self.audience == side_of(author)
            && u.attest.is_some();
        let dice = match body {
            Body::Roll(r) => r.dice.clone(),
            _ if secret => u.dice.clone(),
            _ => Vec::new(),
        };
        let appended = Appended {
            seq: u.seq,
            entry_hash,
            new_head,
        };
        let mut derived = view_of(
            body,
            author,
            &appended,
            &dice,
            secret,
            u.prompt.clone(),
            u.closed,
            self.audience,
        );
        derived.logged = u.logged.clone();
        derived.attest = u.attest.clone();
        if derived.shown_digest() == u.shown_digest() {
            return Ok(derived);
        }
        let what = differences(u, &derived);
        match u.attest.as_deref() {
            Some(attest) => Err(Breach::FalseView {
                seq: u.seq,
                what,
                proof: Box::new(crate::evidence::ViewProof {
                    receipt: *attest,
                    audience: self.audience,
                    shown: Some(crate::evidence::Shown::of(u)),
                    entry: Some(entry.clone()),
                }),
            }),
            None => Err(Breach::Unbound {
                seq: u.seq,
                reason: format!("its words contradict the signed entry ({what})"),
            }),
        }
    }
}

/// What an update of a sealed entry may show: only what such an entry can
/// hold for a party that may not read it (the words, a setup's public
/// part, a ruling's events it may see, its prompt). An action, a genesis,
/// dice or an end record are in entries every party reads whole, so a
/// sealed entry showing one is the server's invention (issue 24: a false
/// "the tank moved into 3E5").
///
/// Its words, too, must be those of an entry a party may be shown sealed
/// ([`crate::message::entry_name::SEALED`]), by an author who writes such
/// entries (a ruling is the server's): the words of a concession, an end,
/// a reveal or a roll on a sealed entry would be shown as the game's (a
/// false "side B concedes"), and counted (the roll the log is at decides
/// which pad entries this party releases, G2).
///
/// A sealed entry always comes with the server's view receipt, which signs
/// what it shows: such a view is a proof against the server (checked with
/// the transcript, which shows the entry and the view it gives).
fn sealed_view(
    u: &Update,
    author: Party,
    audience: crate::view_receipt::Audience,
) -> Result<Update, Breach> {
    use crate::message::entry_name::{SEALED, SERVERS};
    let false_view = |what: String| match u.attest.as_deref() {
        Some(receipt) => Breach::FalseView {
            seq: u.seq,
            what,
            proof: Box::new(crate::evidence::ViewProof {
                receipt: *receipt,
                audience,
                shown: Some(crate::evidence::Shown::of(u)),
                entry: None,
            }),
        },
        None => Breach::Unbound {
            seq: u.seq,
            reason: what,
        },
    };
    let unbound = |what: &str| {
        false_view(format!(
            "a sealed entry ({:?}) cannot show {what}: that is in entries every party reads whole",
            u.entry
        ))
    };
    if !SEALED.contains(&u.entry.as_str()) {
        return Err(false_view(format!(
            "a sealed entry cannot be called {:?}: only an entry of those every party reads whole has these words, or none has",
            u.entry
        )));
    }
    if SERVERS.contains(&u.entry.as_str()) && author != Party::Server {
        return Err(false_view(format!(
            "a sealed entry of {author:?}'s cannot be called {:?}: only the server writes one",
            u.entry
        )));
    }
    if u.action.is_some() {
        return Err(unbound("an action"));
    }
    if u.genesis.is_some() {
        return Err(unbound("a genesis"));
    }
    if !u.dice.is_empty() {
        return Err(unbound("dice"));
    }
    if u.end.is_some() {
        return Err(unbound("the end of the game"));
    }
    if u.public_setup.is_some() && u.entry != crate::message::entry_name::SETUP {
        return Err(unbound("a public setup"));
    }
    if !u.events.is_empty() && u.entry != crate::message::entry_name::RULING {
        return Err(unbound("events"));
    }
    Ok(u.clone())
}

/// The fork proof of two statements that give two heads before entry
/// `claim.before`.
fn fork(
    server: &PublicKey,
    held: Attestation,
    new: Attestation,
    claim: HeadClaim,
    held_head: Digest,
) -> Breach {
    let what = format!(
        "{} gives head {held_head} before entry {}, {} gives {}",
        held.describe(),
        claim.before,
        new.describe(),
        claim.head
    );
    Breach::Fork {
        proof: Box::new(ForkProof::Attested {
            server: *server,
            first: Box::new(held),
            second: Box::new(new),
        }),
        what,
    }
}

/// Which shown fields of two updates differ, in words.
fn differences(said: &Update, log: &Update) -> String {
    let mut out = Vec::new();
    if said.entry != log.entry {
        // The words shown are the server's: quoted as data (`{:?}`), so
        // they reach no terminal raw.
        out.push(format!(
            "the entry is {:?}, not {:?}",
            log.entry, said.entry
        ));
    }
    if said.action != log.action {
        out.push("another action".to_string());
    }
    if said.genesis != log.genesis {
        out.push("another genesis".to_string());
    }
    if said.public_setup != log.public_setup {
        out.push("another public setup".to_string());
    }
    if said.events != log.events {
        out.push(format!(
            "{} events where the entry gives {}",
            said.events.len(),
            log.events.len()
        ));
    }
    if said.dice != log.dice {
        out.push(format!(
            "dice {:?} where the entry gives {:?}",
            said.dice, log.dice
        ));
    }
    if said.end != log.end {
        out.push("another end".to_string());
    }
    if out.is_empty() {
        "the shown fields differ".into()
    } else {
        out.join("; ")
    }
}

impl Witness {
    /// The genesis seen, if any (from the checked entry 0).
    pub fn keys_known(&self) -> bool {
        self.keys.is_some()
    }
}

/// The genesis body of a checked update of entry 0.
pub fn genesis_of(checked: &Checked) -> Option<&Genesis> {
    match &checked.body {
        Some(Body::Genesis(g)) => Some(g),
        _ => None,
    }
}
