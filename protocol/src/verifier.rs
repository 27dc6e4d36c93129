//! The offline verifier: `hexveil verify FILE` (DESIGN 3.5, G5).
//!
//! [`verify`] reads a transcript file and either says it is clean, with a
//! [`Summary`], or names the first fault: which party is to blame (a side,
//! the server, or nobody provably, for a file that is merely damaged or
//! forged), the entry, and what is wrong. [`Replay`] runs the stages entry
//! by entry, each a separate function:
//!
//! 1. [`check_receipt`]: the server's receipt (key from the genesis) covers
//!    this exact entry at this seq, and its head follows from the previous
//!    one (G5). A bit flipped anywhere in the file fails here, in the
//!    reader, or at the author's signature, at the entry it hit;
//! 2. the [`Referee`] (the same code the live server runs): the author's
//!    signature, seq and head, who may write what now, every opening against
//!    its root, every pad entry and roll, and every ruling re-derived by the
//!    rules engine (G1, G2, G5, G6);
//!    In an Escrow game (DESIGN 3.6) every opening and transition the
//!    server wrote for an owner is first checked against what the owner's
//!    escrow, re-run by the same [`EscrowAgents`] the server runs, gives:
//!    a server that departs from it is at fault (G1, G5);
//! 3. at each reveal, [`audit`]: the revealed seeds and contents rebuild
//!    every committed root and pad, the leaves are exactly the eligible
//!    locations, and the layout is a legal setup (G1, G2, G5); then the
//!    faults the referee's own reveal check proves.

pub mod audit;

use std::fmt;
use std::io::{self, Read};

use hexveil_core::{Registry, Side};
use thiserror::Error;

use crate::encoding::{Digest, GameId, Party};
use crate::envelope::{genesis_head, next_head, EnvelopeError};
use crate::escrow_agents::{EscrowAgents, EscrowError};
use crate::identity::PublicKey;
use crate::layout::{RootStatement, Salt};
use crate::message::{side_of, Body, EndRecord, OpenedFact, RevealBody};
use crate::note::NotesSeed;
use crate::pad::{PadEntry, PadStatement};
use crate::referee::{Awaiting, Referee, RefereeError};
use crate::transcript::{EntryReader, FormatError, LoggedEntry, StreamReader, TranscriptError};

pub use audit::RevealFault;

/// Who a fault is attributed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blame {
    /// A player: its signed entries or revealed secrets break the protocol
    /// or the rules (this decides the game, G5).
    Side(Side),
    /// The server: it countersigned something it had to refuse, or wrote a
    /// ruling the rules do not give.
    Server,
    /// Nobody provably: the file is damaged or forged (a signature or a
    /// receipt that does not verify proves nothing about its claimed signer).
    Undetermined,
}

impl fmt::Display for Blame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blame::Side(s) => write!(f, "side {s}"),
            Blame::Server => f.write_str("the server"),
            Blame::Undetermined => f.write_str("no provable party (damaged or forged file)"),
        }
    }
}

/// What is wrong, at the entry named by the [`Fault`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FaultKind {
    /// The file is not a readable transcript (header, a length prefix, an
    /// entry that does not decode).
    #[error("unreadable transcript: {0}")]
    Unreadable(FormatError),
    /// The file holds no entry at all.
    #[error("the transcript holds no entries (no genesis)")]
    Empty,
    /// The genesis names a ruleset this verifier does not have, so the
    /// rules cannot be re-run.
    #[error("cannot verify: {0}")]
    UnknownRuleset(hexveil_core::UnknownRuleset),
    /// Entry 0's body is not a decodable genesis, so no server key is known
    /// to check anything against.
    #[error("entry 0 is not a genesis: {0}")]
    NoGenesis(String),
    /// The genesis names another server key than the one the verifier was
    /// told to trust (`hexveil verify --server-key`): the transcript is not
    /// the trusted server's, whatever else it holds.
    #[error(
        "the transcript is countersigned by server key {named}, not by the trusted key {trusted}"
    )]
    UntrustedServerKey {
        /// The key the verifier was told to trust.
        trusted: PublicKey,
        /// The key the genesis names.
        named: PublicKey,
    },
    /// The genesis is not signed by the server key it names.
    #[error("the genesis is authored by {author}, not by the server key {server} it names")]
    GenesisNotByServer {
        /// The envelope's author.
        author: PublicKey,
        /// The server key in the body.
        server: PublicKey,
    },
    /// The receipt's signature does not verify under the genesis's server
    /// key: forged or damaged (G5).
    #[error("the receipt does not verify under the server's transcript key (forged or damaged)")]
    ForgedReceipt,
    /// A genuine receipt for another game, seq or entry than the one it is
    /// stored with: the entry was altered or swapped after it was receipted.
    #[error("the receipt is for another game, seq or entry than the one stored with it")]
    ReceiptForOtherEntry,
    /// An entry that must carry the server's receipt (a player's, or any
    /// entry of a game of message version 3 or 4) has none: the file was
    /// cut or altered (PROTOCOL.md 6).
    #[error("the entry has no receipt, and this entry of this game must have one")]
    MissingReceipt,
    /// A player's entry without a receipt (message version 6) that the
    /// next entry does not place: the next is not the server's own entry
    /// on the head after it. The server writes such an entry only with
    /// its own entry after it, in the same commit, so the file was
    /// altered (a refused entry put in, say): nobody is blamed
    /// (PROTOCOL.md 6). As the last entry it is not counted: the
    /// transcript is cut there ([`Replay::finish`]).
    #[error(
        "the entry has no receipt, and the next entry is not the server's own on the head after it"
    )]
    UnplacedEntry,
    /// A server entry of a game of message version 5 or later carries a
    /// receipt: not the form the protocol writes (PROTOCOL.md 6, 15).
    #[error("the server's own entry carries a receipt, which message version 5 does not write")]
    UnexpectedReceipt,
    /// An entry without a receipt stands where its own signature does not
    /// put it: signed for another game or another seq. The server signed
    /// it for its place, so finding it elsewhere proves only that the file
    /// was altered (entries moved, repeated, cut out or brought from
    /// another game): nobody is blamed (PROTOCOL.md 6, 15).
    #[error("the entry, which has no receipt, is signed for game {game} seq {seq}, not for where it stands")]
    MisplacedEntry {
        /// The game it is signed for.
        game: GameId,
        /// The seq it is signed for.
        seq: u64,
    },
    /// The server signed a head that does not follow from the previous one.
    #[error(
        "the receipt's head {got} does not follow from the previous head (expected {expected})"
    )]
    BrokenHeadChain {
        /// `next_head(previous head, entry hash)`.
        expected: Digest,
        /// The receipt's head.
        got: Digest,
    },
    /// The author's signature does not verify (forged or damaged, G5).
    #[error("the author's signature does not verify under {author}")]
    BadSignature {
        /// The claimed author.
        author: PublicKey,
    },
    /// The server receipted an envelope the log must refuse (unknown
    /// author, other game or version, replayed or skipped seq, stale head:
    /// G6).
    #[error("the server receipted an envelope it had to refuse: {0}")]
    AcceptedBadEnvelope(EnvelopeError),
    /// The referee refuses the entry: the rules or the protocol forbid it
    /// (a body that does not decode, an opening that does not open, an
    /// entry out of turn, a ruling that is not the engine's...). The server
    /// receipted it anyway: the server's fault, whoever signed it (an
    /// honest server refuses it live and nothing changes, G5, G6).
    #[error("the server receipted an entry the referee refuses: {0}")]
    Refused(RefereeError),
    /// A player's revealed secrets do not match its commitments or break
    /// the rules of setup (G1, G5).
    #[error("reveal audit: {0}")]
    Reveal(RevealFault),
    /// In an Escrow game, the server wrote an opening or transition for an
    /// owner that is not what the owner's escrow gives (DESIGN 3.6, G1).
    #[error("escrow: {0}")]
    Escrow(EscrowError),
    /// A fault the referee's reveal check proved (G5), in its words.
    #[error("proven by the reveal: {0}")]
    ProvenByReveal(String),
    /// The server recorded a player's signed answer (openings, a pad
    /// entry, transitions) that does not match the player's own commitment
    /// ([`Body::BadAnswer`]), and the referee confirms it (G1, G2, G5).
    #[error("a signed answer that does not match its commitment: {0}")]
    BadAnswer(String),
}

/// A fault: who is to blame, at which entry, for what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Who is at fault.
    pub blame: Blame,
    /// The entry (its index in the file, equal to its seq), if the fault is
    /// about one entry.
    pub entry: Option<u64>,
    /// What is wrong.
    pub what: FaultKind,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Another server's game is no damaged or forged file: it is not the
        // game of the server the reader trusts (issue 27).
        if let FaultKind::UntrustedServerKey { .. } = &self.what {
            return write!(
                f,
                "NOT VERIFIED against the server key given: {} (a game of another server, or one made up)",
                self.what
            );
        }
        write!(f, "FAULT: {}", self.blame)?;
        if let Some(e) = self.entry {
            write!(f, ", entry {e}")?;
        }
        write!(f, ": {}", self.what)
    }
}

/// What a clean transcript contains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The game.
    pub game_id: GameId,
    /// Entries checked.
    pub entries: u64,
    /// The log head after the last entry.
    pub head: Digest,
    /// Server rulings re-derived by the rules engine and found equal.
    pub rulings: u64,
    /// Beacon rolls re-derived and found equal.
    pub rolls: u64,
    /// The end record, if the game is over.
    pub end: Option<EndRecord>,
    /// Sides whose secrets were revealed and audited.
    pub audited: Vec<Side>,
    /// Sides whose secrets are not (yet) in the file: their hidden facts
    /// could not be audited.
    pub unaudited: Vec<Side>,
    /// What the log waits for next, in words.
    pub next: String,
    /// The server's transcript key every receipt was checked against (the
    /// genesis's, equal to the trusted key if one was given).
    pub server: PublicKey,
    /// Whether the log is complete: the game ended and every side revealed
    /// (or timed out on its reveal), so every end-of-game audit ran. A
    /// transcript cut before that is clean only so far: the audits of the
    /// hidden facts (layout budgets, illegal placements, G5) have not run.
    pub complete: bool,
    /// The rules-data tables the scenario supplied in place of the
    /// ruleset's own (R12), with the SHA-256 of each text.
    pub tables: Vec<(String, Digest)>,
}

/// The three answers of the verifier, for exit codes and machine-readable
/// output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// No fault, and the log is complete: every audit ran (G5).
    Clean,
    /// No fault so far, but the log is not complete: the end-of-game audits
    /// have not run, so nothing is proven about the hidden facts yet.
    Incomplete,
    /// A fault.
    Fault,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.complete {
            "CLEAN"
        } else {
            "INCOMPLETE (clean so far, the end-of-game audits have not run)"
        };
        write!(
            f,
            "{verdict}: game {}, {} entries, {} rulings and {} rolls re-derived, head {}",
            self.game_id, self.entries, self.rulings, self.rolls, self.head
        )?;
        match &self.end {
            Some(end) => match end.winner {
                Some(w) => write!(f, "; ended: side {w} wins ({})", end.reason)?,
                None => write!(f, "; ended without a winner ({})", end.reason)?,
            },
            None => f.write_str("; the game is not over")?,
        }
        for s in &self.audited {
            write!(f, "; side {s} revealed and audited")?;
        }
        for s in &self.unaudited {
            write!(f, "; side {s} NOT revealed (not audited)")?;
        }
        for (name, hash) in &self.tables {
            write!(f, "; supplied table {name} sha256 {hash}")?;
        }
        write!(f, "; next: {}", self.next)
    }
}

/// The verifier's answer. A `Clean` verdict on a log that is not complete
/// is clean only so far ([`Summary::complete`], [`Verdict::status`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No fault found.
    Clean(Summary),
    /// The first fault, in log order.
    Fault(Fault),
}

impl Verdict {
    /// Clean and complete, clean so far, or a fault.
    pub fn status(&self) -> Status {
        match self {
            Verdict::Clean(s) if s.complete => Status::Clean,
            Verdict::Clean(_) => Status::Incomplete,
            Verdict::Fault(_) => Status::Fault,
        }
    }

    /// The fault, if any.
    pub fn fault(&self) -> Option<&Fault> {
        match self {
            Verdict::Fault(f) => Some(f),
            Verdict::Clean(_) => None,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Clean(s) => s.fmt(f),
            Verdict::Fault(x) => x.fmt(f),
        }
    }
}

/// A stage's result: a value, or the first fault (boxed: faults are rare
/// and large).
pub type Checked<T> = Result<T, Box<Fault>>;

fn fault(blame: Blame, entry: u64, what: FaultKind) -> Box<Fault> {
    Box::new(Fault {
        blame,
        entry: Some(entry),
        what,
    })
}

fn blame_of(party: Party) -> Blame {
    match side_of(party) {
        Some(s) => Blame::Side(s),
        None => Blame::Server,
    }
}

/// Verifies a transcript file (G5) with the rulesets this build has. Never
/// panics on any input. The server key is the one the genesis names: see
/// [`verify_trusting`] to pin it.
pub fn verify(bytes: &[u8], rulesets: &Registry) -> Verdict {
    verify_trusting(bytes, rulesets, None)
}

/// [`verify`], trusting only the server key `trusted` if one is given: a
/// genesis naming another key is the fault
/// [`FaultKind::UntrustedServerKey`] (blame undetermined: anyone can make
/// a self-consistent log under a key of their own).
pub fn verify_trusting(bytes: &[u8], rulesets: &Registry, trusted: Option<&PublicKey>) -> Verdict {
    match verify_inner(bytes, rulesets, trusted) {
        Ok(s) => Verdict::Clean(s),
        Err(f) => Verdict::Fault(*f),
    }
}

/// Verifies a transcript read from `reader` (for example a file), one entry
/// in memory at a time. An I/O error is returned as such: it says nothing
/// about the game.
pub fn verify_reader<R: Read>(reader: R, rulesets: &Registry) -> io::Result<Verdict> {
    let step = |r: Result<Option<LoggedEntry>, TranscriptError>| match r {
        Ok(e) => Ok(Ok(e)),
        Err(TranscriptError::Io(e)) => Err(e),
        Err(TranscriptError::Format(f)) => Ok(Err(unreadable(f))),
    };
    let mut stream = match StreamReader::new(reader) {
        Ok(s) => s,
        Err(TranscriptError::Io(e)) => return Err(e),
        Err(TranscriptError::Format(f)) => return Ok(Verdict::Fault(*unreadable(f))),
    };
    let mut replay = match step(stream.next_entry())? {
        Ok(Some(first)) => match Replay::start(&first, rulesets) {
            Ok(r) => r,
            Err(f) => return Ok(Verdict::Fault(*f)),
        },
        Ok(None) => {
            return Ok(Verdict::Fault(Fault {
                blame: Blame::Undetermined,
                entry: None,
                what: FaultKind::Empty,
            }))
        }
        Err(f) => return Ok(Verdict::Fault(*f)),
    };
    // Entries are read BATCH at a time, their signatures verified in
    // parallel (Replay::step_batch); an unreadable entry is reported after
    // the entries before it are judged.
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        // None: go on; Some(None): the end of the file; Some(Some(f)): an
        // unreadable entry.
        let end = match step(stream.next_entry())? {
            Ok(Some(e)) => {
                batch.push(e);
                None
            }
            Ok(None) => Some(None),
            Err(f) => Some(Some(f)),
        };
        if end.is_some() || batch.len() == BATCH {
            if let Err(f) = replay.step_batch(&batch) {
                return Ok(Verdict::Fault(*f));
            }
            batch.clear();
        }
        match end {
            None => {}
            Some(None) => return Ok(Verdict::Clean(replay.finish())),
            Some(Some(f)) => return Ok(Verdict::Fault(*f)),
        }
    }
}

fn unreadable(e: FormatError) -> Box<Fault> {
    Box::new(Fault {
        blame: Blame::Undetermined,
        entry: e.entry_index(),
        what: FaultKind::Unreadable(e),
    })
}

fn verify_inner(
    bytes: &[u8],
    rulesets: &Registry,
    trusted: Option<&PublicKey>,
) -> Checked<Summary> {
    let mut reader = EntryReader::new(bytes).map_err(unreadable)?;
    let first = match reader.next() {
        None => {
            return Err(Box::new(Fault {
                blame: Blame::Undetermined,
                entry: None,
                what: FaultKind::Empty,
            }))
        }
        Some(r) => r.map_err(unreadable)?,
    };
    if let Some(trusted) = trusted {
        check_trusted(&first, trusted)?;
    }
    let mut replay = Replay::start(&first, rulesets)?;
    let mut batch = Vec::with_capacity(BATCH);
    for entry in reader {
        match entry {
            Ok(e) => batch.push(e),
            Err(e) => {
                // The entries before an unreadable one are judged first.
                replay.step_batch(&batch)?;
                return Err(unreadable(e));
            }
        }
        if batch.len() == BATCH {
            replay.step_batch(&batch)?;
            batch.clear();
        }
    }
    replay.step_batch(&batch)?;
    Ok(replay.finish())
}

/// Entries whose signatures are verified together, in parallel (issue 16).
const BATCH: usize = 512;

/// For each entry, whether both its signatures verify: its author's over
/// the envelope, and the server's receipt under `server`. Chunks of the
/// batch go to scoped threads, one per core (one thread: in this one).
fn signatures_verify(server: &PublicKey, entries: &[LoggedEntry]) -> Vec<bool> {
    let check = |e: &LoggedEntry| {
        e.envelope.verify_signature().is_ok() && e.receipt.is_none_or(|r| r.verify(server).is_ok())
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads <= 1 || entries.len() < 2 {
        return entries.iter().map(check).collect();
    }
    let chunk = entries.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                (
                    part.len(),
                    scope.spawn(move || part.iter().map(check).collect::<Vec<bool>>()),
                )
            })
            .collect();
        // A thread that failed vouches for nothing: its entries take
        // `step`'s own path, which verifies them.
        handles
            .into_iter()
            .flat_map(|(len, h)| h.join().unwrap_or_else(|_| vec![false; len]))
            .collect()
    })
}

/// The server key entry 0 names as its author, if entry 0 is a genesis.
pub fn genesis_server_key(first: &LoggedEntry) -> Option<PublicKey> {
    match Body::decode(&first.envelope.envelope().body) {
        Ok(Body::Genesis(g)) => Some(g.server),
        _ => None,
    }
}

fn check_trusted(first: &LoggedEntry, trusted: &PublicKey) -> Checked<()> {
    match genesis_server_key(first) {
        Some(named) if named != *trusted => Err(fault(
            Blame::Undetermined,
            0,
            FaultKind::UntrustedServerKey {
                trusted: *trusted,
                named,
            },
        )),
        // Not a genesis: [`Replay::start`] says so.
        _ => Ok(()),
    }
}

/// Which entries of a game carry the server's receipt (PROTOCOL.md 6),
/// from its genesis's message version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiptForm {
    /// The server's own entries are receipted (message versions 3 and 4).
    pub server_entries: bool,
    /// A player's entry may go without a receipt, placed by the server's
    /// statement in the next entry (message version 6 on).
    pub placed_by_next: bool,
}

impl ReceiptForm {
    /// The form of the game `genesis` opens.
    pub fn of(genesis: &crate::message::Genesis) -> ReceiptForm {
        ReceiptForm {
            server_entries: genesis.receipts_server_entries(),
            placed_by_next: genesis.places_by_next(),
        }
    }
}

/// Checks that `entry` carries a receipt exactly when the game's `form`
/// wants one (a player's entry, but one the next entry places in a game
/// of message version 6; the server's own only in message versions 3 and
/// 4: PROTOCOL.md 6), and that a receipt is the server's signature over
/// this game, this seq, this entry's exact bytes, and the head that follows
/// `prev_head` (G5). A receipt that does not verify, or verifies for other
/// bytes, and an entry in the wrong form, prove nothing against anyone; a
/// genuine receipt with a broken head is the server's fault. A server
/// entry without a receipt is bound to its place by its own signature over
/// its seq and the head before it, which the referee checks; a player's
/// entry without one by the next entry, which [`Replay`] checks.
pub fn check_receipt(
    server: &PublicKey,
    form: ReceiptForm,
    seq: u64,
    prev_head: &Digest,
    entry: &LoggedEntry,
) -> Checked<()> {
    let game_id = entry.envelope.envelope().game_id;
    check_receipt_with(server, form, game_id, seq, prev_head, entry, false)
}

/// [`check_receipt`] for `game_id`, the receipt's signature already
/// verified if `verified`.
fn check_receipt_with(
    server: &PublicKey,
    form: ReceiptForm,
    game_id: GameId,
    seq: u64,
    prev_head: &Digest,
    entry: &LoggedEntry,
    verified: bool,
) -> Checked<()> {
    let by_server = entry.envelope.envelope().author == *server;
    let wanted = form.server_entries || !by_server;
    let r = match (&entry.receipt, wanted) {
        (Some(r), true) => r,
        (None, false) => return Ok(()),
        (None, true) if !by_server && form.placed_by_next => return Ok(()),
        (None, true) => return Err(fault(Blame::Undetermined, seq, FaultKind::MissingReceipt)),
        (Some(_), false) => {
            return Err(fault(
                Blame::Undetermined,
                seq,
                FaultKind::UnexpectedReceipt,
            ))
        }
    };
    if !verified && r.verify(server).is_err() {
        return Err(fault(Blame::Undetermined, seq, FaultKind::ForgedReceipt));
    }
    if r.game_id != game_id || r.seq != seq || r.entry_hash != entry.envelope.entry_hash() {
        return Err(fault(
            Blame::Undetermined,
            seq,
            FaultKind::ReceiptForOtherEntry,
        ));
    }
    let expected = next_head(prev_head, &r.entry_hash);
    if r.new_head != expected {
        return Err(fault(
            Blame::Server,
            seq,
            FaultKind::BrokenHeadChain {
                expected,
                got: r.new_head,
            },
        ));
    }
    Ok(())
}

/// Maps a referee's refusal of a receipted entry to a fault: a bad
/// signature proves nothing; anything else the referee refuses (an envelope
/// error, a body that does not decode, an entry out of turn, an opening
/// that does not open, a ruling that is not the engine's) is the server's,
/// whoever signed it: the server runs the same referee live and had to
/// refuse it, which changes nothing (G5, G6). A player's signed entry
/// that was refused proves nothing against the player, who was told
/// "refused, nothing changed": blaming it would let a dishonest server
/// frame an honest player by receipting what it refused. A player's
/// provable misdeed (an answer that does not match its own commitment) is
/// proven by the server's [`Body::BadAnswer`] record instead, which the
/// referee checks.
pub fn refusal(seq: u64, e: RefereeError) -> Box<Fault> {
    match e {
        RefereeError::Envelope(EnvelopeError::BadSignature { author }) => {
            fault(Blame::Undetermined, seq, FaultKind::BadSignature { author })
        }
        RefereeError::Envelope(e) => fault(Blame::Server, seq, FaultKind::AcceptedBadEnvelope(e)),
        e => fault(Blame::Server, seq, FaultKind::Refused(e)),
    }
}

/// A transcript being verified, entry by entry.
#[derive(Debug)]
pub struct Replay {
    referee: Referee,
    escrows: EscrowAgents,
    server: PublicKey,
    ledger: Ledger,
    rulings: u64,
    rolls: u64,
    /// A player's entry without a receipt, until the next entry places it
    /// (message version 6).
    unplaced: Option<Unplaced>,
}

/// A player's entry without a receipt, checked but for its place: the
/// next entry must be the server's statement on the head after it. What
/// the referee found wrong with it blames only once it is placed.
#[derive(Debug)]
struct Unplaced {
    seq: u64,
    /// The head before it.
    prev_head: Digest,
    /// The head after it.
    new_head: Digest,
    /// The fault the checks found, if any.
    found: Option<Box<Fault>>,
    /// The side whose reveal it is, if it is one (audited already).
    reveals: Option<Side>,
}

impl Replay {
    /// Checks entry 0, the server's genesis: its receipt and signature under
    /// the server key the genesis names, then the referee's checks of the
    /// genesis itself (distinct keys, scenario and its hash, server pad).
    pub fn start(first: &LoggedEntry, rulesets: &Registry) -> Checked<Replay> {
        let env = first.envelope.envelope();
        let genesis = match Body::decode(&env.body) {
            Ok(Body::Genesis(g)) => g,
            Ok(other) => {
                return Err(fault(
                    Blame::Undetermined,
                    0,
                    FaultKind::NoGenesis(format!("it is a {}", other.name())),
                ))
            }
            Err(e) => {
                return Err(fault(
                    Blame::Undetermined,
                    0,
                    FaultKind::NoGenesis(e.to_string()),
                ))
            }
        };
        if env.author != genesis.server {
            return Err(fault(
                Blame::Undetermined,
                0,
                FaultKind::GenesisNotByServer {
                    author: env.author,
                    server: genesis.server,
                },
            ));
        }
        check_receipt(
            &genesis.server,
            ReceiptForm::of(&genesis),
            0,
            &genesis_head(&env.game_id),
            first,
        )?;
        let (referee, _) = Referee::new(&first.envelope, rulesets).map_err(|e| match e {
            // The verifier lacks the rules: nobody is at fault, and
            // nothing can be checked (G5 needs the same rules).
            RefereeError::UnknownRuleset(u) => {
                fault(Blame::Undetermined, 0, FaultKind::UnknownRuleset(u))
            }
            e => refusal(0, e),
        })?;
        Ok(Replay {
            referee,
            escrows: EscrowAgents::default(),
            server: genesis.server,
            ledger: Ledger::default(),
            rulings: 0,
            rolls: 0,
            unplaced: None,
        })
    }

    /// Checks the next entry: receipt, then the referee, then (at a reveal)
    /// the audit of the revealed secrets. A player's entry without a
    /// receipt (message version 6) is placed by the entry after it: what
    /// is wrong with it is reported at that entry's step, or at
    /// [`Replay::finish`].
    pub fn step(&mut self, entry: &LoggedEntry) -> Checked<()> {
        self.step_with(entry, false).map(|_| ())
    }

    /// What the transcript adds up to, once its last entry was checked. A
    /// last entry that is a player's without a receipt (message version 6)
    /// is not counted: the transcript ends before the server's entry that
    /// would place it, so it is cut there, and clean only so far (the
    /// server writes both in one commit; anyone holding the player's
    /// signed entry could have put it there).
    pub fn finish(&mut self) -> Summary {
        let mut summary = self.summary();
        if let Some(cut) = self.unplaced.take() {
            summary.entries = cut.seq;
            summary.head = cut.prev_head;
            summary.complete = false;
            if let Some(side) = cut.reveals {
                summary.audited.retain(|s| *s != side);
                summary.unaudited.push(side);
            }
            summary.next = format!(
                "the server's entry that places entry {} (the transcript ends before it, so entry {} is not counted)",
                cut.seq, cut.seq
            );
        }
        summary
    }

    /// [`Replay::step`], answering with what the referee accepted: with
    /// [`Replay::referee`] after it, what each audience was shown of the
    /// entry live ([`crate::session::view`]), for the checks of a view
    /// the server signed ([`crate::evidence`]).
    pub fn step_accepted(&mut self, entry: &LoggedEntry) -> Checked<crate::referee::Accepted> {
        let accepted = self.step_with(entry, false)?;
        match (accepted, &self.unplaced) {
            (Some(accepted), _) => Ok(accepted),
            (None, Some(Unplaced { found: Some(f), .. })) => Err(f.clone()),
            (None, _) => Err(fault(Blame::Undetermined, 0, FaultKind::UnplacedEntry)),
        }
    }

    /// [`Replay::step`] over a batch of entries, in order: first both
    /// signatures of every entry (its author's and the server's receipt)
    /// are verified in parallel, on as many threads as the machine has
    /// cores, then the entries are checked one after another as by `step`,
    /// without verifying a second time a signature found valid (issue 16).
    /// An entry whose signature does not verify goes through `step`'s own
    /// path, so the verdict is exactly `step`'s, entry for entry.
    pub fn step_batch(&mut self, entries: &[LoggedEntry]) -> Checked<()> {
        let verified = signatures_verify(&self.server, entries);
        for (entry, verified) in entries.iter().zip(verified) {
            self.step_with(entry, verified)?;
        }
        Ok(())
    }

    /// [`Replay::step`], the entry's two signatures already verified if
    /// `verified`: what the referee accepted, but nothing for a player's
    /// entry without a receipt that the referee refused (the fault is
    /// reported once the next entry shows whether the server placed it).
    fn step_with(
        &mut self,
        entry: &LoggedEntry,
        verified: bool,
    ) -> Checked<Option<crate::referee::Accepted>> {
        // Only a player's entry may be placed by the next one: an entry
        // under any other key than the game's needs a receipt, else it
        // blames nobody (`MissingReceipt`).
        let player = self
            .referee
            .party_of_key(&entry.envelope.envelope().author)
            .is_some_and(|p| p.is_player());
        let genesis = ReceiptForm::of(self.referee.genesis());
        let form = ReceiptForm {
            placed_by_next: genesis.placed_by_next && player,
            ..genesis
        };
        if let Some(held) = self.unplaced.take() {
            self.placement(&held, entry, verified)?;
            // The server placed it: what is wrong with it is the server's
            // (it ran the same referee), or its author's as proven.
            if let Some(found) = held.found {
                return Err(found);
            }
        }
        let unplaced = form.placed_by_next && entry.receipt.is_none();
        let (seq, head) = (self.referee.log().next_seq(), self.referee.log().head());
        match (self.check_entry(entry, verified, form), unplaced) {
            (checked, false) => checked.map(Some),
            (Ok(accepted), true) => {
                self.unplaced = Some(Unplaced {
                    seq,
                    prev_head: head,
                    new_head: accepted.appended.new_head,
                    found: None,
                    reveals: match accepted.body {
                        Body::Reveal(_) => side_of(accepted.author),
                        _ => None,
                    },
                });
                Ok(Some(accepted))
            }
            // Nothing binds it, its place or its signature: nobody is to
            // blame, placed or not.
            (Err(f), true) if f.blame == Blame::Undetermined => Err(f),
            (Err(f), true) => {
                self.unplaced = Some(Unplaced {
                    seq,
                    prev_head: head,
                    new_head: next_head(&head, &entry.envelope.entry_hash()),
                    found: Some(f),
                    reveals: None,
                });
                Ok(None)
            }
        }
    }

    /// Checks that `next` is the server's own entry on the head after
    /// `held`, which places it. What binds `next` itself (its signature
    /// and any receipt, its game and seq) is checked first and named at
    /// `next`, as its own step would; anything else there (a player's
    /// entry, another head) leaves `held` unplaced.
    fn placement(&self, held: &Unplaced, next: &LoggedEntry, verified: bool) -> Checked<()> {
        let seq = held.seq + 1;
        let env = next.envelope.envelope();
        self.signed_for(seq, next, verified)?;
        if !verified
            && next
                .receipt
                .is_some_and(|r| r.verify(&self.server).is_err())
        {
            return Err(fault(Blame::Undetermined, seq, FaultKind::ForgedReceipt));
        }
        if env.author != self.server || env.prev_head != held.new_head {
            return Err(fault(
                Blame::Undetermined,
                held.seq,
                FaultKind::UnplacedEntry,
            ));
        }
        Ok(())
    }

    /// That `entry`'s author signed it (unless `verified`) for this game
    /// and seq `seq`: a bad signature proves nothing about its signer, and
    /// an entry signed for another place was moved there; nobody is
    /// blamed either way.
    fn signed_for(&self, seq: u64, entry: &LoggedEntry, verified: bool) -> Checked<()> {
        if !verified {
            entry
                .envelope
                .verify_signature()
                .map_err(|e| refusal(seq, e.into()))?;
        }
        let signed = entry.envelope.envelope();
        if signed.game_id != self.referee.game_id() || signed.seq != seq {
            return Err(fault(
                Blame::Undetermined,
                seq,
                FaultKind::MisplacedEntry {
                    game: signed.game_id,
                    seq: signed.seq,
                },
            ));
        }
        Ok(())
    }

    /// [`Replay::step_with`] for one entry on its own: its receipt (in the
    /// `form` its author's entries take), the referee, the escrow agents
    /// and the audit.
    fn check_entry(
        &mut self,
        entry: &LoggedEntry,
        verified: bool,
        form: ReceiptForm,
    ) -> Checked<crate::referee::Accepted> {
        let seq = self.referee.log().next_seq();
        check_receipt_with(
            &self.server,
            form,
            self.referee.game_id(),
            seq,
            &self.referee.log().head(),
            entry,
            verified,
        )?;
        // An entry without a receipt (the server's own, message version 5;
        // a player's the next entry places, version 6) is bound only by its
        // author's signature: checked before anything the envelope says is
        // believed, so damage to it blames nobody.
        // Its signature puts it at a game and a seq; anywhere else it was
        // moved there. A wrong head at its own place is the server's (two
        // heads signed for one seq: a fork).
        if entry.receipt.is_none() {
            self.signed_for(seq, entry, verified)?;
        }
        let verified = verified || entry.receipt.is_none();
        let env = entry.envelope.envelope();
        let author = self.referee.party_of_key(&env.author);
        // The agent answers for the state before the entry; the referee's
        // refusal (a bad signature proves nothing against anyone) is
        // reported first, then a departure from the escrow.
        let escrowed = self
            .escrows
            .check(self.referee.awaiting(), author, &env.body);
        let accepted = if verified {
            self.referee.accept_verified(&entry.envelope)
        } else {
            self.referee.accept(&entry.envelope)
        }
        .map_err(|e| refusal(seq, e))?;
        escrowed.map_err(|e| fault(Blame::Server, seq, FaultKind::Escrow(e)))?;
        // The referee accepted any escrow only after building its agent.
        self.escrows
            .follow(&self.referee, &accepted)
            .map_err(|e| fault(blame_of(accepted.author), seq, FaultKind::Escrow(e)))?;
        match &accepted.body {
            Body::Ruling(_) => self.rulings += 1,
            Body::Roll(_) => self.rolls += 1,
            _ => {}
        }
        self.ledger.record(seq, accepted.author, &accepted.body);
        if let (Body::Reveal(reveal), Some(side)) = (&accepted.body, side_of(accepted.author)) {
            self.ledger
                .audit_side(self.referee.game_id(), &self.referee, side, reveal)
                .map_err(|f| fault(Blame::Side(side), seq, FaultKind::Reveal(f)))?;
        }
        if let Some(f) = accepted.faults.first() {
            let what = match &accepted.body {
                Body::BadAnswer(_) => FaultKind::BadAnswer(f.what.clone()),
                _ => FaultKind::ProvenByReveal(f.what.clone()),
            };
            return Err(fault(Blame::Side(f.side), f.seq, what));
        }
        Ok(accepted)
    }

    /// The referee (its state after the entries checked so far).
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// What the entries checked so far add up to.
    pub fn summary(&self) -> Summary {
        let (audited, unaudited) = [Side::A, Side::B]
            .into_iter()
            .partition(|s| self.ledger.sides[side_index(*s)].revealed);
        Summary {
            game_id: self.referee.game_id(),
            entries: self.referee.log().next_seq(),
            head: self.referee.log().head(),
            rulings: self.rulings,
            rolls: self.rolls,
            end: self.referee.result().cloned(),
            audited,
            unaudited,
            next: self.referee.awaiting().describe(),
            complete: matches!(self.referee.awaiting(), Awaiting::Closed),
            server: self.server,
            tables: self
                .referee
                .scenario()
                .supplied_tables()
                .0
                .iter()
                .filter_map(|(name, t)| {
                    t.csv
                        .as_deref()
                        .map(|csv| (name.clone(), Digest::sha256(csv.as_bytes())))
                })
                .collect(),
        }
    }
}

/// What one side committed and released.
#[derive(Clone, Debug, Default)]
struct SideBook {
    roots: Vec<RootStatement>,
    pads: Vec<PadStatement>,
    entries: Vec<PadEntry>,
    notes: Vec<(u64, Salt)>,
    revealed: bool,
}

/// What the reveal audit needs from the accepted bodies: each side's
/// committed roots and pads, released pad entries and opened notes (its
/// public setup and setup rolls are the referee's).
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    sides: [SideBook; 2],
}

fn side_index(s: Side) -> usize {
    match s {
        Side::A => 0,
        Side::B => 1,
    }
}

impl Ledger {
    /// Records what the audit needs from an accepted entry.
    pub fn record(&mut self, _seq: u64, party: Party, body: &Body) {
        let Some(side) = side_of(party) else {
            return;
        };
        let book = &mut self.sides[side_index(side)];
        match body {
            Body::Pad(st) => book.pads.push(*st),
            Body::Setup(setup) => book.roots = setup.roots.clone(),
            Body::Entry(e) => book.entries.push(e.clone()),
            Body::Entries(es) => book.entries.extend(es.iter().cloned()),
            Body::Open(facts) => book.notes.extend(notes_of(facts)),
            Body::OpenAhead(ahead) => {
                book.notes.extend(notes_of(&ahead.openings));
                book.entries.extend(ahead.entries.iter().cloned());
            }
            Body::Reveal(_) => book.revealed = true,
            _ => {}
        }
    }

    /// Audits a side's reveal against what it committed (G1, G2, G5).
    pub fn audit_side(
        &self,
        game_id: GameId,
        referee: &Referee,
        side: Side,
        reveal: &RevealBody,
    ) -> Result<(), RevealFault> {
        let book = &self.sides[side_index(side)];
        audit::audit_layers(game_id, side, &book.roots, reveal)?;
        audit::audit_pad(game_id, side, &reveal.pad_seed, &book.pads, &book.entries)?;
        audit::audit_notes(game_id, side, &NotesSeed(reveal.notes_seed), &book.notes)?;
        let scenario = referee.scenario().as_ref();
        audit::check_setup_legality(scenario, reveal)?;
        let public = referee
            .public_setup(side)
            .ok_or_else(|| RevealFault::PublicSetup("the side never sent a setup".into()))?;
        audit::check_ob_legality(scenario, public.as_ref(), reveal, referee.setup_rolls(side))
    }
}

/// The (opportunity, salt) of every note among openings.
fn notes_of(facts: &[OpenedFact]) -> impl Iterator<Item = (u64, Salt)> + '_ {
    facts.iter().filter_map(|f| match f {
        OpenedFact::Note { opening, .. } => Some((opening.seq, opening.salt)),
        OpenedFact::Leaf(_) => None,
    })
}
