//! Evidence a client keeps against a dishonest server, and how anyone
//! checks it offline (issue 24; `hexveil verify --proof FILE`).
//!
//! Two kinds:
//!
//! - a [`ForkProof`]: two statements the server signed that give two heads
//!   for one position of a game's log. It proves itself.
//! - a [`ViewProof`]: a view the server signed ([`ViewReceipt`]): what one
//!   audience was shown of one entry, prompt included. It proves the
//!   server at fault when the view is not the log's: against the entry
//!   itself, when the party holds it whole (other events, dice or action
//!   than the signed entry gives), or, once the game's transcript is
//!   public, against the referee re-run over the log up to that entry (a
//!   prompt the referee did not make, a hidden event shown, an event left
//!   out). A client keeps every view receipt it was sent and every prompt
//!   it refused; after the game it checks them all against the transcript
//!   ([`check_views`]).
//!
//! The file: the 8 bytes `HXPROOF\0`, a `u16` big-endian version (1), then
//! the postcard encoding of one [`Evidence`] (PROTOCOL.md 6).

use crate::attestation::Attestation;
use crate::envelope::{ForkProof, Receipt, Refusal, SignedEnvelope};
use crate::identity::PublicKey;
use crate::message::{
    decode_limited, encode, Body, Declared, EndRecord, Genesis, LoggedEntry, Prompt, Update,
    MAX_MESSAGE_LEN,
};
use crate::transcript::EntryReader;
use crate::verifier::Replay;
use crate::view_receipt::{audience_name, Audience, ViewReceipt};
use hexveil_core::{Event, Registry, Roll};
use serde::{Deserialize, Serialize};

/// The magic of an evidence file.
pub const MAGIC: &[u8; 8] = b"HXPROOF\0";
/// The evidence file version.
pub const VERSION: u16 = 1;

/// What an update showed its party: every field a view receipt signs
/// ([`Update::shown_digest`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    /// What the entry was, in words.
    pub entry: String,
    /// The declared action, if any.
    pub action: Option<Declared>,
    /// The genesis, on entry 0.
    pub genesis: Option<Box<Genesis>>,
    /// A setup's public part.
    pub public_setup: Option<String>,
    /// The events shown.
    pub events: Vec<Event>,
    /// The dice shown.
    pub dice: Vec<Roll>,
    /// What the party was asked.
    pub prompt: Prompt,
    /// The end record, if any.
    pub end: Option<EndRecord>,
    /// Whether the log was said to be closed.
    pub closed: bool,
}

impl Shown {
    /// What `u` shows.
    pub fn of(u: &Update) -> Shown {
        Shown {
            entry: u.entry.clone(),
            action: u.action.clone(),
            genesis: u.genesis.clone(),
            public_setup: u.public_setup.clone(),
            events: u.events.clone(),
            dice: u.dice.clone(),
            prompt: u.prompt.clone(),
            end: u.end.clone(),
            closed: u.closed,
        }
    }

    /// An update showing this (its place and entry left blank): its
    /// [`Update::shown_digest`] is this view's digest.
    pub fn to_update(&self, seq: u64) -> Update {
        Update {
            seq,
            head: crate::encoding::Digest::ZERO,
            entry: self.entry.clone(),
            action: self.action.clone(),
            genesis: self.genesis.clone(),
            public_setup: self.public_setup.clone(),
            events: self.events.clone(),
            dice: self.dice.clone(),
            prompt: self.prompt.clone(),
            end: self.end.clone(),
            closed: self.closed,
            logged: crate::message::Logged::Sealed {
                entry_hash: crate::encoding::Digest::ZERO,
            },
            attest: None,
        }
    }
}

/// A view the server signed for one audience, as that audience received
/// it, with the entry when the audience held it whole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewProof {
    /// The server's view receipt.
    pub receipt: ViewReceipt,
    /// Who was shown the view.
    pub audience: Audience,
    /// What it was shown, when kept (the receipt's digest of it proves
    /// as much; this says it in words).
    pub shown: Option<Shown>,
    /// The entry, when the audience held it whole (the envelope and the
    /// server's receipt, if it has one).
    pub entry: Option<LoggedEntry>,
}

impl Serialize for LoggedEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.envelope, &self.receipt).serialize(s)
    }
}

impl<'de> Deserialize<'de> for LoggedEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LoggedEntry, D::Error> {
        let (envelope, receipt) = <(SignedEnvelope, Option<Receipt>)>::deserialize(d)?;
        Ok(LoggedEntry { envelope, receipt })
    }
}

/// Evidence against a server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Evidence {
    /// Two heads for one position of the log.
    Fork(Box<ForkProof>),
    /// A view the server signed.
    View(Box<ViewProof>),
    /// The server's signed refusal of one of the player's entries (issue
    /// 27: kept in a file rather than printed): the server said that entry
    /// was not logged, so a transcript that holds it at that seq is a lie
    /// (G5).
    Refusal(Box<Refusal>),
}

/// Why bytes are no evidence file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceFileError {
    /// Not an evidence file.
    #[error("not a hexveil evidence file (its first 8 bytes are not HXPROOF\\0)")]
    Magic,
    /// Another version.
    #[error("evidence file version {0}, this build reads version {VERSION}")]
    Version(u16),
    /// The contents do not decode.
    #[error("the evidence does not decode: {0}")]
    Malformed(String),
}

impl Evidence {
    /// The evidence file of this evidence.
    pub fn to_file(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&VERSION.to_be_bytes());
        out.extend_from_slice(&encode(self));
        out
    }

    /// Reads an evidence file.
    pub fn from_file(bytes: &[u8]) -> Result<Evidence, EvidenceFileError> {
        if bytes.len() < 10 || &bytes[..8] != MAGIC {
            return Err(EvidenceFileError::Magic);
        }
        let version = u16::from_be_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(EvidenceFileError::Version(version));
        }
        decode_limited(&bytes[10..], MAX_MESSAGE_LEN, "evidence")
            .map_err(|e| EvidenceFileError::Malformed(e.to_string()))
    }

    /// The word a client names its file with (`proofs/<seq>-<word>.hxproof`).
    pub fn word(&self) -> &'static str {
        match self {
            Evidence::Fork(_) => "fork",
            Evidence::View(_) => "false-view",
            Evidence::Refusal(_) => "refusal",
        }
    }

    /// What it is, in words.
    pub fn describe(&self) -> String {
        match self {
            Evidence::Fork(_) => "a fork proof (two heads for one position of the log)".into(),
            Evidence::View(v) => format!(
                "the view of entry {} the server signed for {}",
                v.receipt.seq,
                audience_name(v.audience)
            ),
            Evidence::Refusal(r) => format!("the server's signed refusal of entry {}", r.seq),
        }
    }
}

/// What a piece of evidence proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The server is at fault: what it did, in words.
    Server(String),
    /// Nothing against anyone: why (a view that is the log's, say).
    Nothing(String),
    /// A view that its own entry does not contradict: only the game's
    /// transcript can tell.
    NeedsTranscript,
}

/// Why evidence could not be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// A signature in it does not verify: it proves nothing.
    #[error("a signature of the evidence does not verify: {0}")]
    BadSignature(String),
    /// It is not self-consistent (a view that is not what the receipt
    /// signs, an entry that is not the one signed for).
    #[error("the evidence is not consistent: {0}")]
    Inconsistent(String),
    /// The transcript given does not verify up to the entry, or is of
    /// another game.
    #[error("the transcript cannot be used: {0}")]
    Transcript(String),
}

/// Checks evidence: a fork proof by itself; a view proof with the server
/// key (`server`, or the transcript's), against its entry or the
/// transcript.
pub fn check(
    evidence: &Evidence,
    server: Option<&PublicKey>,
    transcript: Option<&[u8]>,
    registry: &Registry,
) -> Result<Finding, ProofError> {
    match evidence {
        Evidence::Fork(proof) => proof
            .verify()
            .map(|()| {
                Finding::Server(
                    "the server signed two heads for one position of the game's log: it showed two histories (G5)".into(),
                )
            })
            .map_err(|e| ProofError::Inconsistent(e.to_string())),
        Evidence::Refusal(r) => check_refusal(r, server, transcript),
        Evidence::View(v) => {
            let server = match (server, transcript) {
                (Some(k), _) => *k,
                (None, Some(t)) => transcript_server(t)?,
                (None, None) => {
                    return Err(ProofError::Transcript(
                        "a view proof needs the server's key or the game's transcript".into(),
                    ))
                }
            };
            check_view(v, &server)?;
            if let Some(found) = against_entry(v)? {
                return Ok(found);
            }
            match transcript {
                None => Ok(Finding::NeedsTranscript),
                Some(t) => {
                    let mut found = check_views(t, registry, std::slice::from_ref(v))?;
                    Ok(found.pop().map_or(Finding::NeedsTranscript, |(_, f)| f))
                }
            }
        }
    }
}

/// A refusal: the server's signature (with its key, or the one the
/// transcript's genesis names), then, with the transcript, whether the
/// log holds at that seq the very entry the server said it refused.
fn check_refusal(
    r: &Refusal,
    server: Option<&PublicKey>,
    transcript: Option<&[u8]>,
) -> Result<Finding, ProofError> {
    let key = match (server, transcript) {
        (Some(k), _) => *k,
        (None, Some(t)) => transcript_server(t)?,
        (None, None) => {
            return Err(ProofError::Transcript(
                "a refusal needs the server's key or the game's transcript".into(),
            ))
        }
    };
    r.verify(&key, None)
        .map_err(|e| ProofError::BadSignature(e.to_string()))?;
    let said = format!(
        "the server refused entry {} at seq {}: {}",
        r.entry_hash, r.seq, r.reason
    );
    let Some(t) = transcript else {
        return Ok(Finding::Nothing(format!(
            "{said} (signed; give the transcript to check the log does not hold it)"
        )));
    };
    let mut reader = EntryReader::new(t)
        .map_err(|e| ProofError::Transcript(e.to_string()))?
        .peekable();
    while let Some(entry) = reader.next() {
        let entry = entry.map_err(|e| ProofError::Transcript(e.to_string()))?;
        let env = entry.envelope.envelope();
        if env.game_id != r.game_id {
            return Err(ProofError::Transcript(format!(
                "it is the transcript of game {}, the refusal is of game {}",
                env.game_id, r.game_id
            )));
        }
        if env.seq == r.seq {
            if entry.envelope.entry_hash() != r.entry_hash {
                break;
            }
            // Only the server's own word puts the entry in its log: its
            // receipt, or its next entry on the head after it (message
            // version 6). Anyone holding the refused envelope can write it
            // into a file.
            let next = match reader.peek() {
                Some(Ok(next)) => Some(next),
                _ => None,
            };
            if !logged_by_server(&entry, next, &key) {
                return Ok(Finding::Nothing(format!(
                    "{said}; the file holds that entry at seq {}, but nothing of the server's places it there (no receipt of the server's, no entry of the server's on the head after it): anyone holding the refused entry can write it into a file, so this proves nothing",
                    r.seq
                )));
            }
            return Ok(Finding::Server(format!(
                "{said}; yet the log holds that very entry at seq {}, placed there by the server's signature (G5)",
                r.seq
            )));
        }
    }
    Ok(Finding::Nothing(format!(
        "{said}; the log does not hold it, as the server said"
    )))
}

/// The statement of the server's that places a logged `entry`, the entry
/// `next` after it in the log (PROTOCOL.md 6): its receipt; its own
/// signature, if it is the server's (`server`, when known); else the
/// server's next entry on the head after it (message version 6).
fn placing_statement(
    entry: &LoggedEntry,
    next: Option<&LoggedEntry>,
    server: Option<&PublicKey>,
) -> Attestation {
    let by_server = Some(&entry.envelope.envelope().author) == server;
    match (entry.receipt, next) {
        (Some(receipt), _) => Attestation::Entry {
            envelope: entry.envelope.clone(),
            receipt,
        },
        (None, Some(next)) if !by_server => Attestation::Placed {
            envelope: entry.envelope.clone(),
            by: Box::new(crate::attestation::Placer::ServerEntry(
                next.envelope.clone(),
            )),
        },
        (None, _) => Attestation::ServerEntry(entry.envelope.clone()),
    }
}

/// Whether the server's key `server` put `entry` at its place: the
/// statement that places it ([`placing_statement`]) is the server's and
/// is for that entry at that place.
fn logged_by_server(entry: &LoggedEntry, next: Option<&LoggedEntry>, server: &PublicKey) -> bool {
    placing_statement(entry, next, Some(server))
        .claims(server)
        .is_ok()
}

/// The server key a transcript's genesis names.
fn transcript_server(transcript: &[u8]) -> Result<PublicKey, ProofError> {
    let mut reader =
        EntryReader::new(transcript).map_err(|e| ProofError::Transcript(e.to_string()))?;
    let first = reader
        .next()
        .ok_or_else(|| ProofError::Transcript("it holds no entry".into()))?
        .map_err(|e| ProofError::Transcript(e.to_string()))?;
    crate::verifier::genesis_server_key(&first)
        .ok_or_else(|| ProofError::Transcript("its first entry is no genesis".into()))
}

/// The receipt verifies and signs the view the proof says was shown.
fn check_view(v: &ViewProof, server: &PublicKey) -> Result<(), ProofError> {
    v.receipt
        .verify(server)
        .map_err(|e| ProofError::BadSignature(e.to_string()))?;
    let Some(shown) = &v.shown else {
        return Ok(());
    };
    if shown.to_update(v.receipt.seq).shown_digest() != v.receipt.view_of(v.audience) {
        return Err(ProofError::Inconsistent(format!(
            "the view given is not the one the receipt signs for {}",
            audience_name(v.audience)
        )));
    }
    Ok(())
}

/// A view checked against the entry it comes with (one its audience may
/// read whole): what the entry gives (the action, setup, events, dice, end
/// and words) must be what was shown; if it is, only the referee can tell
/// the rest (the prompt), so nothing is found here.
fn against_entry(v: &ViewProof) -> Result<Option<Finding>, ProofError> {
    let (Some(entry), Some(shown)) = (&v.entry, &v.shown) else {
        return Ok(None);
    };
    let hash = entry.envelope.entry_hash();
    let e = entry.envelope.envelope();
    if hash != v.receipt.entry_hash || e.seq != v.receipt.seq || e.prev_head != v.receipt.prev_head
    {
        return Err(ProofError::Inconsistent(
            "the entry is not the one the receipt is for".into(),
        ));
    }
    let body = Body::decode(&e.body).map_err(|err| ProofError::Inconsistent(err.to_string()))?;
    let own = v.audience.is_some() && v.audience == crate::message::side_of(v.receipt.author);
    // A Secret dr's dice, shown to its roller on its own entry, are drawn
    // from seeds the entry does not hold: the transcript tells.
    let secret_dice = matches!(body, Body::Entry(_)) && !shown.dice.is_empty();
    if secret_dice || (!own && !crate::session::readable(&body, v.audience)) {
        return Ok(None);
    }
    let derived = crate::session::view_of_entry(
        &body,
        v.receipt.author,
        &entry.appended(),
        v.audience,
        shown.prompt.clone(),
        shown.closed,
    );
    // The prompt and whether the log is closed are the referee's: an
    // entry that gives the rest proves nothing yet.
    Ok((Shown::of(&derived) != *shown).then(|| {
        Finding::Server(format!(
            "the server signed a view of entry {} for {} that the entry itself does not give (G5)",
            v.receipt.seq,
            audience_name(v.audience)
        ))
    }))
}

/// Checks views the server signed against a game's transcript, re-running
/// the referee over it once: for each, whether the transcript's entry at
/// its seq is the entry it was signed for (else the server published
/// another log than it showed live), and whether the view is what the
/// referee gives that audience there, prompt included. Views are checked
/// in seq order; each answer is given with the view's seq.
pub fn check_views(
    transcript: &[u8],
    registry: &Registry,
    views: &[ViewProof],
) -> Result<Vec<(u64, Finding)>, ProofError> {
    let mut reader =
        EntryReader::new(transcript).map_err(|e| ProofError::Transcript(e.to_string()))?;
    let mut views: Vec<&ViewProof> = views.iter().collect();
    views.sort_by_key(|v| v.receipt.seq);
    let mut out = Vec::new();
    let mut replay: Option<Replay> = None;
    let mut wanted = views.into_iter().peekable();
    let mut seq = 0u64;
    while wanted.peek().is_some() {
        let Some(entry) = reader.next() else {
            for v in wanted {
                out.push((
                    v.receipt.seq,
                    Finding::Server(format!(
                        "the transcript ends before entry {}, which the server signed a view of live",
                        v.receipt.seq
                    )),
                ));
            }
            break;
        };
        let entry = entry.map_err(|e| ProofError::Transcript(e.to_string()))?;
        let prev_head = entry.envelope.envelope().prev_head;
        let accepted = match &mut replay {
            None => {
                let r = Replay::start(&entry, registry)
                    .map_err(|f| ProofError::Transcript(f.to_string()))?;
                let (_, accepted) = crate::referee::Referee::new(&entry.envelope, registry)
                    .map_err(|e| ProofError::Transcript(e.to_string()))?;
                replay = Some(r);
                accepted
            }
            Some(r) => r
                .step_accepted(&entry)
                .map_err(|f| ProofError::Transcript(f.to_string()))?,
        };
        let referee = replay.as_ref().expect("started").referee();
        while let Some(v) = wanted.next_if(|v| v.receipt.seq == seq) {
            let found = if entry.envelope.entry_hash() != v.receipt.entry_hash
                || prev_head != v.receipt.prev_head
            {
                Finding::Server(format!(
                    "entry {seq} of the transcript is not the entry the server signed a view of live: it published another log than it showed (G5)"
                ))
            } else {
                let true_view = crate::session::view(referee, &accepted, v.audience);
                if true_view.shown_digest() == v.receipt.view_of(v.audience) {
                    Finding::Nothing(format!(
                        "what {} was shown of entry {seq} is what the log gives",
                        audience_name(v.audience)
                    ))
                } else {
                    Finding::Server(what_differs(seq, v, &true_view))
                }
            };
            out.push((seq, found));
        }
        seq += 1;
    }
    Ok(out)
}

/// How a view the server signed differs from the log's, in words.
fn what_differs(seq: u64, v: &ViewProof, truth: &Update) -> String {
    let who = audience_name(v.audience);
    let mut diffs = Vec::new();
    let Some(s) = &v.shown else {
        return format!(
            "the server signed a view of entry {seq} for {who} that the log does not give (G5): the log gives {who} {} events, dice {:?} and the prompt {:?}",
            truth.events.len(),
            truth.dice,
            truth.prompt
        );
    };
    if s.prompt != truth.prompt {
        diffs.push(format!(
            "it asked {who} {:?} where the referee awaited {:?}",
            s.prompt, truth.prompt
        ));
    }
    if s.events != truth.events {
        diffs.push(format!(
            "it showed {} events where the log gives {who} {}",
            s.events.len(),
            truth.events.len()
        ));
    }
    if s.dice != truth.dice {
        diffs.push(format!(
            "it showed dice {:?} where the log gives {:?}",
            s.dice, truth.dice
        ));
    }
    if s.action != truth.action || s.public_setup != truth.public_setup || s.end != truth.end {
        diffs.push("it showed another action, setup or end".into());
    }
    if diffs.is_empty() {
        diffs.push("what it showed is not what the log gives".into());
    }
    format!(
        "the server signed a view of entry {seq} for {who} that the log does not give: {} (G5)",
        diffs.join("; ")
    )
}

/// What one party's checked log says against the game's transcript
/// ([`audit`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Entries the party saw, each found in the transcript at its seq.
    pub entries: u64,
    /// Views the server signed for the party, each found to be the log's.
    pub views: u64,
    /// What the server did, by entry: an entry the party saw that the
    /// transcript does not hold, a view the log does not give.
    pub found: Vec<(u64, String)>,
    /// The proof of each: the statement the party holds against the
    /// transcript's (a fork proof), or the view receipt.
    pub proofs: Vec<(u64, Evidence)>,
}

impl std::fmt::Display for Audit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.found.is_empty() {
            write!(
                f,
                "what this client was shown matches the transcript: {} entries, {} views the server signed",
                self.entries, self.views
            )
        } else {
            write!(f, "the transcript contradicts what this client was shown:")?;
            for (seq, what) in &self.found {
                write!(f, "\n  entry {seq}: {what}")?;
            }
            Ok(())
        }
    }
}

/// Checks what a party was shown (its [`Witness`]) against the game's
/// transcript once it is public (issue 24): every entry it saw must be
/// the transcript's at that seq, and every view the server signed for it
/// must be what the referee, re-run over the transcript, gives that
/// party there (prompt included).
pub fn audit(
    transcript: &[u8],
    registry: &Registry,
    witness: &crate::witness::Witness,
) -> Result<Audit, ProofError> {
    let reader = EntryReader::new(transcript).map_err(|e| ProofError::Transcript(e.to_string()))?;
    let mut logged = Vec::new();
    for entry in reader {
        logged.push(entry.map_err(|e| ProofError::Transcript(e.to_string()))?);
    }
    let mut out = Audit::default();
    let held: Vec<_> = witness.attestations().collect();
    for (seq, hash) in witness.entries() {
        match logged.get(seq as usize) {
            Some(e) if e.envelope.entry_hash() == hash => out.entries += 1,
            Some(e) => {
                out.found.push((
                    seq,
                    "the transcript holds another entry here than the server showed live: it published another log (G5)".into(),
                ));
                // What the party holds against what the transcript holds
                // there: two heads after one entry, both the server's word
                // (a player's entry without a receipt is placed by the
                // server's next entry, message version 6).
                let published = placing_statement(
                    e,
                    logged.get(seq as usize + 1),
                    witness.server_key().as_ref(),
                );
                if let (Some(server), Some(mine)) = (witness.server_key(), held.get(seq as usize)) {
                    let proof = ForkProof::Attested {
                        server,
                        first: Box::new((*mine).clone()),
                        second: Box::new(published),
                    };
                    if proof.verify().is_ok() {
                        out.proofs.push((seq, Evidence::Fork(Box::new(proof))));
                    }
                }
            }
            None => out.found.push((
                seq,
                "the transcript ends before this entry, which the server showed live (G5)".into(),
            )),
        }
    }
    let views: Vec<ViewProof> = witness
        .view_receipts()
        .iter()
        .map(|receipt| ViewProof {
            receipt: *receipt,
            audience: witness.audience(),
            shown: None,
            entry: None,
        })
        .collect();
    for (view, (seq, finding)) in views.iter().zip(check_views(transcript, registry, &views)?) {
        match finding {
            Finding::Server(what) => {
                out.found.push((seq, what));
                out.proofs
                    .push((seq, Evidence::View(Box::new(view.clone()))));
            }
            _ => out.views += 1,
        }
    }
    Ok(out)
}
