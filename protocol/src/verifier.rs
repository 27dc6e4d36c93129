//! The offline verifier: `hexveil verify FILE` (DESIGN 3.5, G5).
//!
//! [`verify`] reads a transcript file and either says it is clean, with a
//! [`Summary`], or names the first fault: which party is to blame (a side,
//! the server, or nobody provably, for a file that is merely damaged or
//! forged), the entry, and what is wrong. The stages are separate functions:
//!
//! 1. [`read_genesis`]: entry 0 is the server's genesis; it fixes the game,
//!    the players' and the server's keys;
//! 2. [`check_entry`]: every entry's receipt (server key from the genesis),
//!    author signature, seq and head chain (G5, G6). A bit flipped anywhere
//!    in the file makes one of these fail at the entry it hit;
//! 3. [`Ledger`]: what the audit needs from the bodies (each side's
//!    commitments, released pad entries, the end, the reveals);
//! 4. [`audit`]: after the end, each side's revealed secrets are checked
//!    against its commitments and the rules of setup (G1, G2, G5).

pub mod audit;

use std::fmt;

use hexveil_core::scenario::Scenario;
use hexveil_core::setup::PublicSetup;
use hexveil_core::Side;
use thiserror::Error;

use crate::encoding::{Digest, GameId, Party};
use crate::envelope::{next_head, EnvelopeError, LogState, Receipt, SignedEnvelope};
use crate::identity::PublicKey;
use crate::layout::RootStatement;
use crate::message::{
    side_of, Body, EndRecord, Genesis, MessageError, RevealBody, MESSAGE_VERSION,
};
use crate::pad::{PadEntry, PadStatement};
use crate::transcript::{EntryReader, FormatError, LoggedEntry};

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

/// What is wrong with the genesis entry.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GenesisProblem {
    /// Entry 0's body is not a genesis.
    #[error("entry 0 is a {0}, not a genesis")]
    NotGenesis(&'static str),
    /// The genesis is not signed by the server key it names.
    #[error("the genesis is authored by {author}, not by the server key {server} it names")]
    NotByServer {
        /// The envelope's author.
        author: PublicKey,
        /// The server key in the body.
        server: PublicKey,
    },
    /// Two of the three keys are equal, so authorship could not be told apart.
    #[error("the genesis gives two parties the same key")]
    SharedKey,
    /// A message version this verifier does not know.
    #[error("message version {got} is not supported (this verifier knows {MESSAGE_VERSION})")]
    MessageVersion {
        /// The genesis's version.
        got: u16,
    },
    /// The scenario hash does not match the scenario text.
    #[error("the scenario hash does not match the scenario text")]
    ScenarioHash,
    /// The server's pad statement is not the server's or not this game's.
    #[error("the server's pad statement is for another party or game")]
    ServerPad,
    /// The scenario text is not a valid scenario.
    #[error("the scenario does not parse: {0}")]
    Scenario(String),
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
    /// The genesis is not valid.
    #[error("bad genesis: {0}")]
    Genesis(GenesisProblem),
    /// The receipt's signature does not verify under the genesis's server
    /// key: forged or damaged (G5).
    #[error("the receipt does not verify under the server's transcript key (forged or damaged)")]
    ForgedReceipt,
    /// A genuine receipt for another game, seq or entry than the one it is
    /// stored with: the entry was altered or swapped after it was receipted.
    #[error("the receipt is for another game, seq or entry than the one stored with it")]
    ReceiptForOtherEntry,
    /// The author's signature does not verify (forged or damaged, G5).
    #[error("the author's signature does not verify under {author}")]
    BadSignature {
        /// The claimed author.
        author: PublicKey,
    },
    /// The server countersigned an entry the log must refuse (unknown
    /// author, other game, replayed or skipped seq, stale head: G6).
    #[error("the server receipted an entry it had to refuse: {0}")]
    AcceptedBadEntry(EnvelopeError),
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
    /// A receipted body that does not decode.
    #[error("the body does not decode: {0}")]
    MalformedBody(MessageError),
    /// A body written by a party that may not write it.
    #[error("a {body} entry may only be written by {expected}, it is by {got}")]
    WrongAuthor {
        /// The body's kind.
        body: &'static str,
        /// Who may write it.
        expected: &'static str,
        /// Who wrote it.
        got: Party,
    },
    /// A second setup, end or reveal, or a reveal before the end.
    #[error("out of place: {0}")]
    OutOfPlace(&'static str),
    /// A player's revealed secrets do not match its commitments or break
    /// the rules of setup (G1, G5).
    #[error("reveal audit: {0}")]
    Reveal(RevealFault),
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
    /// The end record, if the game is over.
    pub end: Option<EndRecord>,
    /// Sides whose secrets were revealed and audited.
    pub audited: Vec<Side>,
    /// Sides whose secrets are not (yet) in the file: their hidden facts
    /// could not be audited.
    pub unaudited: Vec<Side>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CLEAN: game {}, {} entries, head {}",
            self.game_id, self.entries, self.head
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
        Ok(())
    }
}

/// The verifier's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No fault found.
    Clean(Summary),
    /// The first fault, in log order.
    Fault(Fault),
}

impl Verdict {
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

/// Verifies a transcript file (G5). Never panics on any input.
pub fn verify(bytes: &[u8]) -> Verdict {
    match verify_inner(bytes) {
        Ok(s) => Verdict::Clean(s),
        Err(f) => Verdict::Fault(*f),
    }
}

fn unreadable(e: FormatError) -> Box<Fault> {
    Box::new(Fault {
        blame: Blame::Undetermined,
        entry: e.entry_index(),
        what: FaultKind::Unreadable(e),
    })
}

fn verify_inner(bytes: &[u8]) -> Checked<Summary> {
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
    let (_genesis, scenario, mut chain) = read_genesis(&first)?;
    let mut ledger = Ledger::new(scenario);
    for entry in reader {
        let entry = entry.map_err(unreadable)?;
        let seq = chain.log.next_seq();
        let (party, body) = check_entry(&mut chain, &entry)?;
        ledger.record(seq, party, &body)?;
    }
    let (audited, unaudited) = ledger.audit(chain.log.game_id())?;
    Ok(Summary {
        game_id: chain.log.game_id(),
        entries: chain.log.next_seq(),
        head: chain.log.head(),
        end: ledger.end.clone(),
        audited,
        unaudited,
    })
}

/// The authenticity state of the log: the accepted prefix and the keys.
#[derive(Clone, Debug)]
pub struct Chain {
    /// The log's acceptance state (seq, head, authors).
    pub log: LogState,
    /// Keys of A, B and the server.
    pub keys: [PublicKey; 3],
}

impl Chain {
    /// The party of a key of this game.
    pub fn party_of(&self, key: &PublicKey) -> Option<Party> {
        Party::ALL
            .into_iter()
            .find(|p| self.keys[p.index()] == *key)
    }
}

/// Reads and checks entry 0: the server's genesis, signed by the server
/// key it names and receipted by it (G5).
pub fn read_genesis(entry: &LoggedEntry) -> Checked<(Genesis, Scenario, Chain)> {
    let env = entry.envelope.envelope();
    let at0 = |blame, what| Err(fault(blame, 0, what));
    // Nothing in entry 0 is trusted before the server's signatures are
    // checked under the key the genesis itself names.
    let genesis = match Body::decode(&env.body) {
        Ok(Body::Genesis(g)) => g,
        Ok(other) => {
            return at0(
                Blame::Undetermined,
                FaultKind::Genesis(GenesisProblem::NotGenesis(other.name())),
            )
        }
        Err(e) => return at0(Blame::Undetermined, FaultKind::MalformedBody(e)),
    };
    if env.author != genesis.server {
        return at0(
            Blame::Undetermined,
            FaultKind::Genesis(GenesisProblem::NotByServer {
                author: env.author,
                server: genesis.server,
            }),
        );
    }
    let keys = [genesis.players[0], genesis.players[1], genesis.server];
    let mut chain = Chain {
        log: LogState::new(env.game_id, keys.to_vec()),
        keys,
    };
    check_entry_chain(&mut chain, entry)?;
    // From here on the genesis is the server's signed word.
    let problem = if keys[0] == keys[1] || keys[0] == keys[2] || keys[1] == keys[2] {
        Some(GenesisProblem::SharedKey)
    } else if genesis.message_version != MESSAGE_VERSION {
        Some(GenesisProblem::MessageVersion {
            got: genesis.message_version,
        })
    } else if Digest::sha256(genesis.scenario_toml.as_bytes()) != genesis.scenario_hash {
        Some(GenesisProblem::ScenarioHash)
    } else if genesis.server_pad.party != Party::Server || genesis.server_pad.game_id != env.game_id
    {
        Some(GenesisProblem::ServerPad)
    } else {
        None
    };
    if let Some(p) = problem {
        return at0(Blame::Server, FaultKind::Genesis(p));
    }
    let scenario = Scenario::from_toml(&genesis.scenario_toml).map_err(|e| {
        fault(
            Blame::Server,
            0,
            FaultKind::Genesis(GenesisProblem::Scenario(e.to_string())),
        )
    })?;
    Ok((genesis, scenario, chain))
}

/// Checks one entry's authenticity and place in the log: the receipt under
/// the server key, that it covers this exact entry, the author's signature,
/// seq and echoed head, and the head chain (G5, G6). On success the entry
/// is appended to `chain`.
pub fn check_entry_chain(chain: &mut Chain, entry: &LoggedEntry) -> Checked<()> {
    let at = chain.log.next_seq();
    let s: &SignedEnvelope = &entry.envelope;
    let r: &Receipt = &entry.receipt;
    // 1. The receipt must be the server's signature ...
    if r.verify(&chain.keys[Party::Server.index()]).is_err() {
        return Err(fault(Blame::Undetermined, at, FaultKind::ForgedReceipt));
    }
    // 2. ... over this game, this position and these exact bytes.
    if r.game_id != chain.log.game_id() || r.seq != at || r.entry_hash != s.entry_hash() {
        return Err(fault(
            Blame::Undetermined,
            at,
            FaultKind::ReceiptForOtherEntry,
        ));
    }
    // 3. The author's signature (not covered by the receipt, so a bad one
    //    proves nothing about the server or the author).
    if s.verify_signature().is_err() {
        return Err(fault(
            Blame::Undetermined,
            at,
            FaultKind::BadSignature {
                author: s.envelope().author,
            },
        ));
    }
    // 4. The server countersigned these bytes: anything the log must refuse
    //    is the server's fault.
    let prev = chain.log.head();
    chain
        .log
        .append(s)
        .map_err(|e| fault(Blame::Server, at, FaultKind::AcceptedBadEntry(e)))?;
    let expected = next_head(&prev, &r.entry_hash);
    if r.new_head != expected {
        return Err(fault(
            Blame::Server,
            at,
            FaultKind::BrokenHeadChain {
                expected,
                got: r.new_head,
            },
        ));
    }
    Ok(())
}

/// Checks one entry after the genesis ([`check_entry_chain`]) and decodes
/// its body; returns the author's party and the body.
pub fn check_entry(chain: &mut Chain, entry: &LoggedEntry) -> Checked<(Party, Body)> {
    let at = chain.log.next_seq();
    check_entry_chain(chain, entry)?;
    let env = entry.envelope.envelope();
    let party = chain
        .party_of(&env.author)
        .expect("the log accepts only the genesis keys");
    let body = Body::decode(&env.body)
        .map_err(|e| fault(Blame::Server, at, FaultKind::MalformedBody(e)))?;
    Ok((party, body))
}

/// What one side committed and revealed.
#[derive(Clone, Debug, Default)]
struct SideBook {
    setup_at: Option<u64>,
    public: Option<PublicSetup>,
    roots: Vec<RootStatement>,
    pads: Vec<PadStatement>,
    entries: Vec<PadEntry>,
    reveal: Option<(u64, RevealBody)>,
}

/// What the audit needs from the bodies: commitments, released entries,
/// the end, the reveals.
#[derive(Clone, Debug)]
pub struct Ledger {
    scenario: Scenario,
    sides: [SideBook; 2],
    end: Option<EndRecord>,
}

fn side_index(s: Side) -> usize {
    match s {
        Side::A => 0,
        Side::B => 1,
    }
}

const SERVER_ONLY: &str = "the server";
const PLAYERS_ONLY: &str = "a player";

impl Ledger {
    /// An empty ledger for a game of `scenario`.
    pub fn new(scenario: Scenario) -> Ledger {
        Ledger {
            scenario,
            sides: Default::default(),
            end: None,
        }
    }

    /// Records the parts of an entry the audit needs; refuses bodies by the
    /// wrong kind of author and out-of-place setups, ends and reveals.
    pub fn record(&mut self, seq: u64, party: Party, body: &Body) -> Checked<()> {
        let server_only = matches!(
            body,
            Body::Genesis(_)
                | Body::Roll(_)
                | Body::Ruling(_)
                | Body::Timeout { .. }
                | Body::End(_)
        );
        let blame = match side_of(party) {
            Some(s) => Blame::Side(s),
            None => Blame::Server,
        };
        if server_only != (party == Party::Server) {
            return Err(fault(
                blame,
                seq,
                FaultKind::WrongAuthor {
                    body: body.name(),
                    expected: if server_only {
                        SERVER_ONLY
                    } else {
                        PLAYERS_ONLY
                    },
                    got: party,
                },
            ));
        }
        let out_of_place = |what| Err(fault(blame, seq, FaultKind::OutOfPlace(what)));
        match body {
            Body::Genesis(_) => return out_of_place("a second genesis"),
            Body::End(end) => {
                if self.end.is_some() {
                    return out_of_place("a second end record");
                }
                self.end = Some(end.clone());
            }
            _ => {}
        }
        let Some(side) = side_of(party) else {
            return Ok(());
        };
        let ended = self.end.is_some();
        let book = &mut self.sides[side_index(side)];
        match body {
            Body::Setup(setup) => {
                if book.setup_at.is_some() {
                    return out_of_place("a second setup");
                }
                let public = PublicSetup::from_toml(&self.scenario, &setup.public_setup_toml)
                    .ok()
                    .filter(|p| p.side == side)
                    .ok_or_else(|| {
                        fault(
                            blame,
                            seq,
                            FaultKind::OutOfPlace(
                                "a public setup that does not parse, or is for the other side",
                            ),
                        )
                    })?;
                book.public = Some(public);
                book.setup_at = Some(seq);
                book.roots = setup.roots.clone();
            }
            Body::Pad(st) => book.pads.push(*st),
            Body::Entry(e) => book.entries.push(e.clone()),
            Body::Reveal(r) => {
                if !ended {
                    return out_of_place("a reveal before the end of the game");
                }
                if book.reveal.is_some() {
                    return out_of_place("a second reveal");
                }
                book.reveal = Some((seq, r.clone()));
            }
            _ => {}
        }
        Ok(())
    }

    /// Audits every revealed side (G1, G2, G5); returns the sides audited
    /// and those whose secrets are not in the file.
    pub fn audit(&self, game_id: GameId) -> Checked<(Vec<Side>, Vec<Side>)> {
        let mut audited = Vec::new();
        let mut unaudited = Vec::new();
        for side in [Side::A, Side::B] {
            let book = &self.sides[side_index(side)];
            let Some((seq, reveal)) = &book.reveal else {
                unaudited.push(side);
                continue;
            };
            audit_side(game_id, &self.scenario, side, book, reveal)
                .map_err(|f| fault(Blame::Side(side), *seq, FaultKind::Reveal(f)))?;
            audited.push(side);
        }
        Ok((audited, unaudited))
    }
}

/// The most extra Dummies a Secret dr can give (B28.47: a dr halved,
/// fractions dropped). Until the referee's replay gives the side's actual
/// roll, the setup audit allows this many, so it never accuses an honest
/// side (it can miss an excess of at most this many Dummies).
pub const MAX_EXTRA_DUMMIES: u8 = 3;

fn audit_side(
    game_id: GameId,
    scenario: &Scenario,
    side: Side,
    book: &SideBook,
    reveal: &RevealBody,
) -> Result<(), RevealFault> {
    audit::audit_layers(game_id, side, &book.roots, reveal)?;
    audit::audit_pad(game_id, side, &reveal.pad_seed, &book.pads, &book.entries)?;
    audit::check_setup_legality(reveal)?;
    let public = book
        .public
        .as_ref()
        .ok_or_else(|| RevealFault::PublicSetup("the side never sent a setup".into()))?;
    audit::check_ob_legality(scenario, public, side, reveal, MAX_EXTRA_DUMMIES)
}
