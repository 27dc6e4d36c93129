//! Messages: the bodies of log entries and the live wire messages.
//!
//! Log entries are [`SignedEnvelope`]s whose `body` is a postcard-encoded
//! [`Body`]. The envelope's signature covers the exact body bytes, and the
//! log keeps those bytes, so nothing is re-serialized to verify (DESIGN 3.5).
//! Live messages between client and server ([`ToServer`], [`ToClient`]) are
//! postcard-encoded frames. Every decoder here checks sizes before it
//! allocates and rejects trailing bytes.

use crate::encoding::{Digest, Party};
use crate::envelope::{Receipt, Refusal, SignedEnvelope};
use crate::identity::PublicKey;
use crate::layout::{Opening, RootStatement, Transition};
use crate::note::{NoteCommitment, NoteOpening};
use crate::pad::{PadEntry, PadSeed, PadStatement};
use crate::view_receipt::ViewReceipt;
use hexveil_core::{Content, Event, FactRequest, Roll, Side};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// Version of the message layer a new game's Genesis names: 6, a player's
/// entry that the server's own entry follows carries no receipt: the
/// server's entry, signed on the head after it, places it (PROTOCOL.md 6).
/// The referee also plays games of version 5 (every player's entry
/// receipted, the server's own entries their own countersignature), 4
/// (windowed public rolls, section 7.1, every entry receipted) and 3 (one
/// pad entry of each player per roll, section 7), so their transcripts
/// still verify.
pub const MESSAGE_VERSION: u16 = 6;
/// The message versions the referee plays.
pub const MESSAGE_VERSIONS: [u16; 4] = [3, 4, 5, MESSAGE_VERSION];
/// The most pad entries one window may hold (PROTOCOL.md 7.1).
pub const MAX_WINDOW: u32 = 16;
/// Largest encoded [`Body`] accepted (a setup with its roots, or the end
/// reveal of a large layout, is the biggest).
pub const MAX_BODY_LEN: usize = 4 * 1024 * 1024;
/// Largest live message accepted by a decoder.
pub const MAX_MESSAGE_LEN: usize = 8 * 1024 * 1024;
/// Every message a player receives during play is padded to a multiple of
/// this many bytes, so sizes do not tell a mined hex from an empty one (G3).
/// 1 KiB (issue 30; 2 KiB before): every message of play measured is under
/// 800 bytes, and a padded update with its framing fits one QUIC datagram;
/// PROTOCOL.md 14.2 says why no hidden fact moves a message across a
/// bucket. [`decode_padded`] takes any length, so messages padded to the
/// former 2 KiB still decode.
pub const PAD_BUCKET: usize = 1024;

/// Why bytes are not a valid message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// Longer than the limit for this kind of message.
    #[error("{what} is {len} bytes, more than the limit of {max}")]
    TooLong {
        /// Which message.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Not a valid encoding.
    #[error("{what} does not decode: {reason}")]
    Malformed {
        /// Which message.
        what: &'static str,
        /// The decoder's reason.
        reason: String,
    },
    /// A valid encoding of a value, but not its canonical one (a
    /// non-minimal varint, say): refused so that one entry has one byte
    /// string (PROTOCOL.md 11).
    #[error(
        "{what} is not canonically encoded (a non-minimal varint or another non-canonical form)"
    )]
    NotCanonical {
        /// Which message.
        what: &'static str,
    },
    /// Bytes left after a complete message.
    #[error("{what} has {extra} trailing bytes")]
    Trailing {
        /// Which message.
        what: &'static str,
        /// How many.
        extra: usize,
    },
}

/// Decodes a postcard value with a size limit, no trailing bytes, and only
/// in its canonical form: the bytes must be exactly the value's re-encoding
/// (no non-minimal varint, no other encoding of the same value), so no two
/// byte strings decode to the same message or log entry (PROTOCOL.md 11,
/// G5).
pub fn decode_limited<T: Serialize + DeserializeOwned>(
    bytes: &[u8],
    max: usize,
    what: &'static str,
) -> Result<T, MessageError> {
    if bytes.len() > max {
        return Err(MessageError::TooLong {
            what,
            len: bytes.len(),
            max,
        });
    }
    hexveil_core::canonical::decode(bytes).map_err(|e| match e {
        hexveil_core::canonical::CanonicalError::Trailing(extra) => {
            MessageError::Trailing { what, extra }
        }
        hexveil_core::canonical::CanonicalError::Malformed(reason) => {
            MessageError::Malformed { what, reason }
        }
        hexveil_core::canonical::CanonicalError::NotCanonical => {
            MessageError::NotCanonical { what }
        }
    })
}

/// Encodes a postcard value.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_stdvec(value).expect("postcard encoding into a Vec cannot fail")
}

/// How hidden facts reach the referee (DESIGN 3.6). Public in the genesis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Owners answer every request live (lazy reveal, G4).
    Live,
    /// Owners give the referee their openings at setup (correspondence play).
    Escrow,
}

/// The first entry of every log, written by the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Genesis {
    /// [`MESSAGE_VERSION`].
    pub message_version: u16,
    /// The ruleset the game is played under (`asl`, `minis`): the verifier
    /// re-runs the same one (G5).
    pub ruleset: String,
    /// The ruleset's version.
    pub ruleset_version: u32,
    /// The scenario, as the text (TOML) both players agreed to; encoded
    /// as a string (postcard's `str`). Shared: the referee holds one copy
    /// for every game of the same text ([`Genesis::share_scenario_text`]).
    pub scenario_toml: std::sync::Arc<str>,
    /// SHA-256 of `scenario_toml`.
    pub scenario_hash: Digest,
    /// Player keys: side A, side B.
    pub players: [PublicKey; 2],
    /// The server's transcript key.
    pub server: PublicKey,
    /// Live or escrow.
    pub mode: Mode,
    /// Entries per pad epoch.
    pub pad_len: u32,
    /// How long a party may take to answer a request, in milliseconds.
    pub answer_timeout_ms: u64,
    /// The server's first pad statement.
    pub server_pad: PadStatement,
}

impl Genesis {
    /// Makes this genesis hold the copy of its scenario text that any
    /// other genesis with the same text holds (a process keeps one copy of
    /// each text while a game holds it): a league plays many games of one
    /// scenario, and each referee kept its own (issue 16: about 2 KiB of
    /// every live game). The text is the same bytes, so nothing signed,
    /// hashed or ruled changes.
    pub fn share_scenario_text(&mut self) {
        static TEXTS: hexveil_core::Shared<Digest, str> = hexveil_core::Shared::new();
        // By the hash the genesis carries (the referee checked it); a text
        // held under it is taken only if it is this very text.
        match TEXTS.get(&self.scenario_hash) {
            Some(held) if *held == *self.scenario_toml => self.scenario_toml = held,
            Some(_) => {}
            None => {
                TEXTS.keep(self.scenario_hash, self.scenario_toml.clone());
            }
        }
    }

    /// Whether the server receipts its own entries (message versions 3 and
    /// 4). From version 5 on, an entry the server authored carries no
    /// receipt: its envelope signature, over its seq and the head before
    /// it, is already the server's signed word on it (PROTOCOL.md 6).
    pub fn receipts_server_entries(&self) -> bool {
        self.message_version < 5
    }

    /// Whether a player's entry that the server's own entry follows at
    /// once goes without a receipt (message version 6 on): the server's
    /// entry, signed on the head after the player's, is the server's
    /// signed word on its place (PROTOCOL.md 6). Before version 6 every
    /// player's entry is receipted.
    pub fn places_by_next(&self) -> bool {
        self.message_version >= 6
    }
}

/// A player's setup: its public setup and its commitments to its sealed
/// layers. Sent after both pads are committed and any Secret dr for extra
/// Dummies is made (B28.47), so the owner knows how many Dummies it has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupBody {
    /// The public setup (unit positions, Known counters, A-T in full view),
    /// as TOML text.
    pub public_setup_toml: String,
    /// One root per sealed layer of the ruleset (ASL: `ap`, `at`, `booby`;
    /// miniatures: `mines`) that has eligible locations, each over exactly
    /// those locations.
    pub roots: Vec<RootStatement>,
    /// In an Escrow game, the owner's secrets for the referee (DESIGN 3.6);
    /// `None` in a Live game.
    pub escrow: Option<EscrowBody>,
}

/// What an owner gives the referee at setup in an Escrow game (DESIGN 3.6),
/// so that the server answers openings, transitions and Daisy Chain notes
/// for it. It holds no pad seed: the owner still releases its own pad
/// entries, so the dice stay out of the server's hands (G2).
///
/// It is part of the Setup entry, which no party's view shows during the
/// game (only the entry's name is), and the transcript publishes it after
/// the end, as the reveal would.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EscrowBody {
    /// Every sealed layer with its seed and setup contents, exactly as the
    /// end-of-game reveal gives them.
    pub layers: Vec<LayerReveal>,
    /// The notes seed (Daisy Chain notes).
    pub notes_seed: [u8; 32],
    /// The standing orders the server carries out for the owner's notes,
    /// in the ruleset's encoding (ASL: Daisy Chain orders, B28.531).
    #[serde(with = "serde_bytes")]
    pub orders: Vec<u8>,
}

/// An opened sealed fact, answering one request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpenedFact {
    /// A leaf of a sealed layout.
    Leaf(Opening),
    /// A sealed note (Daisy Chain opportunity), committed and opened.
    Note {
        /// The commitment.
        commitment: NoteCommitment,
        /// Its opening.
        opening: NoteOpening,
    },
}

/// One layer's secrets, published at the end of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerReveal {
    /// The layer name.
    pub layer: String,
    /// The layout seed.
    pub seed: [u8; 32],
    /// Every location's content at setup, in the order sealed.
    pub contents: Vec<(String, [u8; hexveil_core::CONTENT_LEN])>,
}

/// A player's secrets, published at the end (DESIGN 3.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevealBody {
    /// Every sealed layer.
    pub layers: Vec<LayerReveal>,
    /// The notes seed.
    pub notes_seed: [u8; 32],
    /// The pad seed (epoch 0; later epochs derive from it).
    pub pad_seed: PadSeed,
}

/// A completed beacon round, written by the server (DESIGN 3.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollRecord {
    /// The roll number.
    pub k: u64,
    /// The seq of the action the roll serves.
    pub action_seq: u64,
    /// The server's own entry (released last).
    pub server_entry: PadEntry,
    /// The dice drawn, as the engine receives them.
    pub dice: Vec<Roll>,
}

/// The engine's ruling on an action, written by the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulingRecord {
    /// The seq of the action ruled on.
    pub action_seq: u64,
    /// Every event, with its audience.
    pub events: Vec<Event>,
}

/// The end of a game, written by the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndRecord {
    /// The winner, if any.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub reason: String,
}

impl EndRecord {
    /// The end a concession of `side` gives: the referee writes it, and a
    /// client holds the server's end record to it (G5).
    pub fn conceded(side: Side) -> EndRecord {
        EndRecord {
            winner: Some(side.opponent()),
            reason: format!("side {side} conceded"),
        }
    }

    /// The end a timeout of `side` gives, `awaited` what it did not answer
    /// (the referee's description of it).
    pub fn timed_out(side: Side, awaited: &str) -> EndRecord {
        EndRecord {
            winner: Some(side.opponent()),
            reason: format!("side {side} did not answer in time ({awaited})"),
        }
    }

    /// Whether this is an end a timeout of `side` gives, whatever was
    /// awaited ([`EndRecord::timed_out`]).
    pub fn is_timeout_of(&self, side: Side) -> bool {
        let prefix = format!("side {side} did not answer in time (");
        self.winner == Some(side.opponent())
            && self
                .reason
                .strip_prefix(&prefix)
                .is_some_and(|awaited| awaited.ends_with(')'))
    }
}

/// The body of a log entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// Server: the game's parameters.
    Genesis(Genesis),
    /// Player: its pad statement (first, before any roll).
    Pad(PadStatement),
    /// Player: setup and commitments.
    Setup(SetupBody),
    /// Player: an action for the engine, in the ruleset's encoding.
    Act(#[serde(with = "serde_bytes")] Vec<u8>),
    /// Player: openings answering the referee's request, in its order.
    Open(Vec<OpenedFact>),
    /// Player: a pad entry for a beacon round.
    Entry(PadEntry),
    /// Player: transitions the engine demanded, in its order.
    Transitions(Vec<Transition>),
    /// Server: a completed beacon round.
    Roll(RollRecord),
    /// Server: the engine's ruling.
    Ruling(RulingRecord),
    /// Server: a party did not answer in time and loses (G2).
    Timeout {
        /// Who failed to answer.
        party: Party,
        /// What it was asked, in words.
        request: String,
    },
    /// Player: concedes.
    Concede,
    /// Server: the game is over; players must now reveal.
    End(EndRecord),
    /// Player: its secrets, after the end.
    Reveal(RevealBody),
    /// Server: a player's signed answer (openings, a pad entry or a
    /// window of them, transitions) that the referee refused because it does not match the
    /// player's own commitment, recorded against its author (G1, G2, G5):
    /// the exact envelope the player signed for this seq, on top of this
    /// head. Nothing else changes; the same answer is still awaited (and its
    /// deadline still runs), so repeated attempts are in the transcript.
    BadAnswer(SignedEnvelope),
    /// Player, message version 4: an action for the engine, in the
    /// ruleset's encoding, with the actor's fresh contribution to every
    /// public roll the action takes (PROTOCOL.md 7.1).
    Declare(Declare),
    /// Player, message version 4: the opponent's pad entries for a window
    /// of the action's public rolls, in position order (PROTOCOL.md 7.1).
    Entries(Vec<PadEntry>),
    /// Player, message version 4: openings answering the referee's request,
    /// in its order, and the owner's window of pad entries for the action's
    /// public rolls (PROTOCOL.md 7.1): one answer where two were asked.
    OpenAhead(OpenAhead),
}

/// An action declared in a game of message version 4 (PROTOCOL.md 7.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declare {
    /// The action, in the ruleset's encoding.
    #[serde(with = "serde_bytes")]
    pub action: Vec<u8>,
    /// 32 bytes from the actor's system random generator, fresh for every
    /// declaration: the actor's part of the seed of each public roll the
    /// action takes, in place of its pad entry.
    pub nonce: [u8; 32],
}

/// Openings with the owner's window of pad entries (PROTOCOL.md 7.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenAhead {
    /// One opening per request of the prompt, in its order.
    pub openings: Vec<OpenedFact>,
    /// The owner's pad entries for the window's positions, in order.
    pub entries: Vec<PadEntry>,
}

impl Body {
    /// Decodes a body with the size limit.
    pub fn decode(bytes: &[u8]) -> Result<Body, MessageError> {
        decode_limited(bytes, MAX_BODY_LEN, "log entry body")
    }

    /// A short name for messages and errors ([`entry_name`]).
    pub fn name(&self) -> &'static str {
        use entry_name::*;
        match self {
            Body::Genesis(_) => GENESIS,
            Body::Pad(_) => PAD,
            Body::Setup(_) => SETUP,
            Body::Act(_) | Body::Declare(_) => ACTION,
            Body::Open(_) => OPENINGS,
            Body::Entry(_) => PAD_ENTRY,
            Body::Transitions(_) => TRANSITIONS,
            Body::Roll(_) => ROLL,
            Body::Ruling(_) => RULING,
            Body::Timeout { .. } => TIMEOUT,
            Body::Concede => CONCESSION,
            Body::End(_) => END,
            Body::Reveal(_) => REVEAL,
            Body::BadAnswer(_) => BAD_ANSWER,
            Body::Entries(_) => WINDOW,
            Body::OpenAhead(_) => OPEN_WINDOW,
        }
    }

    /// The action this entry declares, in the ruleset's encoding: an
    /// [`Body::Act`] (message version 3) or a [`Body::Declare`] (4).
    pub fn declared_action(&self) -> Option<&[u8]> {
        match self {
            Body::Act(action) => Some(action),
            Body::Declare(d) => Some(&d.action),
            _ => None,
        }
    }
}

/// What the referee needs from a party now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Prompt {
    /// Send your pad statement.
    Pad,
    /// Send your setup.
    Setup,
    /// Declare an action (you are the phasing player and nothing is pending).
    Act,
    /// Open these facts (to the referee only), in this order.
    Open(Vec<FactRequest>),
    /// Release your pad entry for roll `k`.
    Entry {
        /// The roll number.
        k: u64,
    },
    /// Commit these new contents (transitions), in this order.
    Transitions(Vec<(FactRequest, Content)>),
    /// The game is over: publish your secrets.
    Reveal,
    /// Nothing is wanted from you; wait.
    Wait,
    /// Commit your pad of this epoch: the pads committed so far run out
    /// (DESIGN 3.4 renewal).
    RenewPad {
        /// The epoch.
        epoch: u32,
    },
    /// Message version 4: release your pad entries for the `count` rolls
    /// from roll `k` on, in one [`Body::Entries`] (PROTOCOL.md 7.1).
    Window {
        /// The first roll number of the window.
        k: u64,
        /// How many entries.
        count: u32,
    },
    /// Message version 4: open these facts, in this order, and release
    /// your pad entries for the `count` rolls from roll `k` on, in one
    /// [`Body::OpenAhead`] (PROTOCOL.md 7.1).
    OpenAhead {
        /// The facts to open.
        requests: Vec<FactRequest>,
        /// The first roll number of the window.
        k: u64,
        /// How many entries.
        count: u32,
    },
}

/// What a party is shown after an entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Update {
    /// Seq of the entry that caused the update.
    pub seq: u64,
    /// The log head after it (sign your next envelope on top of it).
    pub head: Digest,
    /// What the entry was, in words.
    pub entry: String,
    /// The action and the side that declared it, if the entry declared one
    /// (actions and their authors are public).
    pub action: Option<Declared>,
    /// The game's parameters, on the genesis entry (seq 0) only, so a
    /// player who did not create the game can check the scenario hash,
    /// the keys, the pad length and the answer timeout before committing.
    pub genesis: Option<Box<Genesis>>,
    /// The public setup (TOML text) of a Setup entry, on that entry's
    /// update only: its author's unit positions and public markers are
    /// public, so each party (and the spectators) can draw the board. An
    /// Escrow body is never shown.
    pub public_setup: Option<String>,
    /// Events this party may see.
    pub events: Vec<Event>,
    /// Dice published by the entry, if it was a roll.
    pub dice: Vec<Roll>,
    /// What the referee needs from this party now.
    pub prompt: Prompt,
    /// The game's result, on the end entry only (public: who won and why,
    /// so every client learns at once how the game ended, whatever ended
    /// it: the rules, a concession or a timeout).
    pub end: Option<EndRecord>,
    /// Whether the log is closed after this entry (ended and every reveal
    /// in or timed out): the server has the transcript; fetch it.
    pub closed: bool,
    /// The log entry itself, in the form this party may check against
    /// the head chain it holds (issue 24): the whole signed entry, the
    /// party's own (its receipt), or sealed (its hash only, bound by
    /// `attest`). A client shows nothing it has not checked this way.
    pub logged: Logged,
    /// The server's signed word on this entry's place in the log and on
    /// what each audience was shown of it, prompt included: present when
    /// some audience may not read the whole entry, or when the update asks
    /// a player for something that releases a secret
    /// ([`Prompt::releases`]).
    pub attest: Option<Box<ViewReceipt>>,
}

/// How an [`Update`] carries its log entry (issue 24).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Logged {
    /// The whole entry, exactly as logged: its signed envelope and the
    /// server's receipt for it, if it has one (PROTOCOL.md 6).
    Full {
        /// The signed envelope.
        envelope: Box<SignedEnvelope>,
        /// The server's receipt (every player's entry; a server entry only
        /// in games of message versions 3 and 4).
        receipt: Option<Box<Receipt>>,
    },
    /// The party's own entry, which it signed and holds: the server's
    /// receipt for it.
    Own(Box<Receipt>),
    /// An entry this party may not read yet: its hash. The update's
    /// `attest` binds it to its place and author.
    Sealed {
        /// SHA-256 of the entry's signed bytes.
        entry_hash: Digest,
    },
    /// The party's own entry, which it signed and holds, without a receipt
    /// (message version 6): the server's entry that follows it places it
    /// ([`Genesis::places_by_next`]). A witness shows nothing of it until
    /// that entry comes.
    OwnPlacedByNext {
        /// SHA-256 of the entry's signed bytes.
        entry_hash: Digest,
    },
}

impl Update {
    /// The digest of what this update shows its party: every field but
    /// `seq`, `head`, `logged` and `attest`, i.e.
    /// `SHA256(tuple("hexveil/v1/shown", bytes postcard(entry, action,
    /// genesis, public_setup, events, dice, prompt, end, closed)))`. A
    /// view receipt signs one per audience (PROTOCOL.md 14.2).
    pub fn shown_digest(&self) -> Digest {
        let shown = encode(&(
            &self.entry,
            &self.action,
            &self.genesis,
            &self.public_setup,
            &self.events,
            &self.dice,
            &self.prompt,
            &self.end,
            self.closed,
        ));
        crate::encoding::TupleEncoder::new(crate::encoding::tag::SHOWN)
            .var_bytes(&shown)
            .sha256()
    }
}

impl Prompt {
    /// Whether answering this prompt releases something the party keeps
    /// secret until then (openings, pad entries, transitions, its setup or
    /// its final reveal): such a prompt always comes with the server's
    /// signature ([`Update::attest`]), so the party can prove what it was
    /// asked (issue 24).
    pub fn releases(&self) -> bool {
        !matches!(
            self,
            Prompt::Act | Prompt::Wait | Prompt::Pad | Prompt::RenewPad { .. }
        )
    }
}

/// An action as declared in the log: by whom, and what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// The side that declared it (the signer of the entry).
    pub by: Side,
    /// The action, in the ruleset's encoding.
    #[serde(with = "serde_bytes")]
    pub action: Vec<u8>,
}

/// Messages from a client to the server during a game.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ToServer {
    /// A signed entry for the game's log.
    Submit(SignedEnvelope),
    /// Send me everything I may see from this seq on (resume).
    Sync {
        /// The first seq wanted.
        from_seq: u64,
    },
}

/// Messages from the server to a client during a game.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ToClient {
    /// Your entry is durable.
    Receipt(Receipt),
    /// Something happened.
    Update(Update),
    /// Your entry was refused; nothing changed. The refusal is signed by
    /// the server's transcript key and bound to the entry's hash, so the
    /// player can show it later (G5).
    Rejected(Refusal),
    /// The game is over; the full transcript file.
    Transcript(#[serde(with = "serde_bytes")] Vec<u8>),
    /// Padding of a padded message (never sent alone).
    Padding(#[serde(with = "serde_bytes")] Vec<u8>),
}

/// Encodes a message for a player, padded to a multiple of [`PAD_BUCKET`]
/// (G3): `u32 BE length of the message || message || zero padding`.
pub fn encode_padded(msg: &ToClient) -> Vec<u8> {
    let body = encode(msg);
    let total = 4 + body.len();
    let padded = total.div_ceil(PAD_BUCKET).max(1) * PAD_BUCKET;
    let mut out = Vec::with_capacity(padded);
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(&body);
    out.resize(padded, 0);
    out
}

/// Decodes a message made by [`encode_padded`]. Any padded length is taken,
/// not only a multiple of [`PAD_BUCKET`]: a message padded to the former
/// 2 KiB bucket (before issue 30) decodes the same.
pub fn decode_padded(bytes: &[u8]) -> Result<ToClient, MessageError> {
    const WHAT: &str = "padded server message";
    if bytes.len() > MAX_MESSAGE_LEN {
        return Err(MessageError::TooLong {
            what: WHAT,
            len: bytes.len(),
            max: MAX_MESSAGE_LEN,
        });
    }
    if bytes.len() < 4 {
        return Err(MessageError::Malformed {
            what: WHAT,
            reason: "shorter than its length prefix".into(),
        });
    }
    let len = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let rest = &bytes[4..];
    if len > rest.len() {
        return Err(MessageError::Malformed {
            what: WHAT,
            reason: format!("claims {len} bytes, has {}", rest.len()),
        });
    }
    if rest[len..].iter().any(|b| *b != 0) {
        return Err(MessageError::Malformed {
            what: WHAT,
            reason: "padding is not zero".into(),
        });
    }
    decode_limited(&rest[..len], MAX_MESSAGE_LEN, WHAT)
}

/// Decodes a client message with the size limit.
pub fn decode_to_server(bytes: &[u8]) -> Result<ToServer, MessageError> {
    decode_limited(bytes, MAX_MESSAGE_LEN, "client message")
}

/// The party of a side.
pub fn party_of(side: Side) -> Party {
    match side {
        Side::A => Party::A,
        Side::B => Party::B,
    }
}

/// The side of a player party (`None` for the server).
pub fn side_of(party: Party) -> Option<Side> {
    match party {
        Party::A => Some(Side::A),
        Party::B => Some(Side::B),
        Party::Server => None,
    }
}

/// One entry of a game's log as stored and published: the exact signed
/// envelope and the server's receipt for it, if it has one. Encoded by
/// [`crate::transcript::encode_entry`] (PROTOCOL.md 15).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedEntry {
    /// The signed envelope, bytes as signed.
    pub envelope: SignedEnvelope,
    /// The server's countersignature ("durable"). `None` for an entry the
    /// server authored in a game of message version 5 or later
    /// ([`Genesis::receipts_server_entries`]): its own signature stands
    /// for it; and for a player's entry that the server's own entry
    /// follows, from version 6 ([`Genesis::places_by_next`]): that entry
    /// places it. The verifier checks the form against the game's version.
    pub receipt: Option<Receipt>,
}

impl LoggedEntry {
    /// Where the entry stands in the log: its seq, its hash and the head
    /// after it, from the envelope (an accepted entry's `prev_head` is the
    /// head before it).
    pub fn appended(&self) -> crate::envelope::Appended {
        let env = self.envelope.envelope();
        let entry_hash = self.envelope.entry_hash();
        crate::envelope::Appended {
            seq: env.seq,
            entry_hash,
            new_head: crate::envelope::next_head(&env.prev_head, &entry_hash),
        }
    }
}

/// The names of log entries as [`Body::name`] gives them and an [`Update`]
/// says them, in one place: the crate's readers of updates (the roll count,
/// the log reading, the guard, the witness's sealed-view check) match on
/// these, never on a spelling of their own.
pub(crate) mod entry_name {
    pub const GENESIS: &str = "genesis";
    pub const PAD: &str = "pad statement";
    pub const SETUP: &str = "setup";
    pub const ACTION: &str = "action";
    pub const OPENINGS: &str = "openings";
    pub const PAD_ENTRY: &str = "pad entry";
    /// A pad entry shown to a party that may not read it (another side's
    /// Secret dr).
    pub const SECRET_PAD_ENTRY: &str = "a pad entry";
    pub const TRANSITIONS: &str = "transitions";
    pub const ROLL: &str = "roll";
    pub const RULING: &str = "ruling";
    pub const TIMEOUT: &str = "timeout";
    pub const CONCESSION: &str = "concession";
    pub const END: &str = "end";
    pub const REVEAL: &str = "reveal";
    pub const BAD_ANSWER: &str = "refused answer recorded";
    pub const WINDOW: &str = "pad entries";
    pub const OPEN_WINDOW: &str = "openings and pad entries";

    /// The words of the entries a party may be shown sealed: those of the
    /// bodies [`crate::session::readable`] may keep from another party (an
    /// Escrow setup, a ruling with events for others, a refused answer
    /// recorded, and a player's openings, pad entries and transitions), and
    /// another side's Secret dr entry. Every other entry is read whole by
    /// every party, so a sealed update naming one is the server's invention
    /// (PROTOCOL.md 16.1 item 5).
    pub const SEALED: [&str; 9] = [
        SETUP,
        RULING,
        BAD_ANSWER,
        OPENINGS,
        OPEN_WINDOW,
        TRANSITIONS,
        PAD_ENTRY,
        WINDOW,
        SECRET_PAD_ENTRY,
    ];

    /// Of [`SEALED`], the entries only the server writes.
    pub const SERVERS: [&str; 2] = [RULING, BAD_ANSWER];
}
