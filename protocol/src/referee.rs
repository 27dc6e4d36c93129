//! The referee: a pure state machine over a game's log.
//!
//! This file holds what the referee awaits ([`Awaiting`]), its errors and
//! faults, and the [`Referee`] itself with every entry kind's check (genesis,
//! pads, setups and escrow, the beacon's rolls, openings, transitions,
//! rulings, the end), plus the dice draw from a beacon seed ([`draw`]).
//!
//! [`Referee::accept`] takes the log's signed envelopes in order, checks each
//! one completely (signature, sequence and head chain, who may write it now,
//! every opening against its owner's signed root, every pad entry against its
//! pad, every roll and ruling by re-deriving it) and drives the rules engine.
//! [`Referee::awaiting`] says who must write the next entry.
//!
//! The live server session and the offline verifier both run this code: a
//! ruling is computed by one code path (DESIGN 2, G5). The session writes the
//! server's own entries when the referee awaits them; the verifier reads them
//! from the transcript and the referee checks them the same way.

use crate::beacon::{BeaconError, BeaconRound, RollKind, RollRequest, RoundStatus};
use crate::dice::DiceStream;
use crate::encoding::{Digest, GameId, Party};
use crate::envelope::{Appended, EnvelopeError, LogState, SignedEnvelope, SignedHere};
use crate::identity::PublicKey;
use crate::layout::{self, RootStatement, SealedLayout};
use crate::message::{
    party_of, side_of, Body, EndRecord, EscrowBody, Genesis, LayerReveal, Mode, OpenedFact,
    RevealBody, RollRecord, SetupBody, MAX_WINDOW, MESSAGE_VERSIONS,
};
use crate::note;
use crate::pad::{Pad, PadSchedule, PadStatement, PadValue};
use hexveil_core::{
    Content, DiceKind, DiceSpec, Engine, Event, EventKind, Fact, FactRequest, Layer, Location,
    PublicSetup, Registry, Roll, Scenario, Side, Step,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Who must write the next entry, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Awaiting {
    /// These players have not sent their pad statement yet.
    Pads {
        /// The sides still missing.
        missing: Vec<Side>,
    },
    /// The pads run out at this epoch: these parties (in order, one at a
    /// time) must commit their next pad before the pending roll goes on.
    Renewal {
        /// The epoch to commit.
        epoch: u32,
        /// The parties still missing, A, B, then the server.
        missing: Vec<Party>,
    },
    /// These players have not sent their setup yet.
    Setups {
        /// The sides still missing.
        missing: Vec<Side>,
    },
    /// Nothing is pending: a player may declare an action. `actor` is the
    /// side whose move it is (who ends the current phase: the phasing side,
    /// or the defender in its Defensive Fire Phase); the engine decides
    /// whether an action of either side is legal now.
    Action {
        /// The side to act.
        actor: Side,
    },
    /// `owner` must open these facts, in order (or the server, holding the
    /// owner's escrow, DESIGN 3.6).
    Openings {
        /// The owner.
        owner: Side,
        /// The facts.
        requests: Vec<FactRequest>,
        /// Whether the server answers for the owner (Escrow mode).
        escrowed: bool,
        /// Message version 4: the owner, the current action's opponent,
        /// also releases its window of pad entries with these openings
        /// (PROTOCOL.md 7.1).
        window: Option<WindowAsk>,
    },
    /// Message version 4: `party`, the current action's opponent, must
    /// release its pad entries for the `count` rolls from roll `k` on
    /// (PROTOCOL.md 7.1).
    Window {
        /// The opponent.
        party: Party,
        /// The first roll of the window.
        k: u64,
        /// How many entries.
        count: u32,
    },
    /// `party` must release its pad entry for roll `k`.
    Entry {
        /// The player.
        party: Party,
        /// The roll.
        k: u64,
    },
    /// The server must write its pad entry (and the dice) for roll `k`.
    ServerRoll {
        /// The roll.
        k: u64,
    },
    /// The server must write the engine's ruling.
    Ruling {
        /// The events the ruling must hold.
        events: Vec<Event>,
    },
    /// `owner` must commit these new contents, in order (or the server,
    /// holding the owner's escrow, DESIGN 3.6).
    Transitions {
        /// The owner.
        owner: Side,
        /// The facts and their new contents.
        list: Vec<(FactRequest, Content)>,
        /// Whether the server answers for the owner (Escrow mode).
        escrowed: bool,
    },
    /// The server must write the end of the game.
    End {
        /// The result it must record.
        result: EndRecord,
    },
    /// These players have not published their secrets yet.
    Reveals {
        /// The sides still missing.
        missing: Vec<Side>,
    },
    /// The log is complete.
    Closed,
}

impl Awaiting {
    /// The party that must write the next entry, if one party must.
    pub fn party(&self) -> Option<Party> {
        match self {
            Awaiting::Action { actor } => Some(party_of(*actor)),
            Awaiting::Openings {
                owner, escrowed, ..
            }
            | Awaiting::Transitions {
                owner, escrowed, ..
            } => Some(if *escrowed {
                Party::Server
            } else {
                party_of(*owner)
            }),
            Awaiting::Entry { party, .. } | Awaiting::Window { party, .. } => Some(*party),
            Awaiting::Renewal { missing, .. } => missing.first().copied(),
            // Either side may reveal; the first missing one is prompted and
            // is the one a deadline runs against.
            Awaiting::Reveals { missing } => missing.first().map(|s| party_of(*s)),
            Awaiting::ServerRoll { .. } | Awaiting::Ruling { .. } | Awaiting::End { .. } => {
                Some(Party::Server)
            }
            Awaiting::Pads { .. } | Awaiting::Setups { .. } | Awaiting::Closed => None,
        }
    }

    /// Whether a party owes a machine answer (openings, pad entry,
    /// transitions, a pad renewal, its reveal) that a timeout may punish
    /// (G2, G5).
    pub fn is_machine_answer(&self) -> bool {
        matches!(
            self,
            Awaiting::Openings { .. }
                | Awaiting::Entry { .. }
                | Awaiting::Window { .. }
                | Awaiting::Transitions { .. }
                | Awaiting::Renewal { .. }
                | Awaiting::Reveals { .. }
        )
    }

    /// What is awaited, in words for players, to follow "waiting for"
    /// (issue 27): `side B's machine to answer its Daisy Chain opportunity
    /// 1, with its dice pad entries for rolls 1 to 5`, `side A to move`.
    /// The facts are named by the scenario ([`Scenario::fact_words`]). The
    /// session writes it as a timeout's reason; [`Awaiting::describe`] is
    /// the technical form of refusals.
    pub fn in_words(&self, scenario: &dyn Scenario) -> String {
        let facts = |requests: &mut dyn Iterator<Item = &FactRequest>| {
            let words: Vec<String> = requests.map(|r| scenario.fact_words(r)).collect();
            list_in_words(&words)
        };
        let machine = |owner: Side, escrowed: bool| {
            if escrowed {
                format!("the server (holding side {owner}'s escrow)")
            } else {
                format!("side {owner}'s machine")
            }
        };
        match self {
            Awaiting::Pads { missing } => format!("{} to send a dice pad", sides(missing)),
            Awaiting::Setups { missing } => format!("{} to send a setup", sides(missing)),
            Awaiting::Action { actor } => format!("side {actor} to move"),
            Awaiting::Openings {
                owner,
                requests,
                escrowed,
                window,
            } => {
                let ahead = match window {
                    Some(w) => format!(", with its dice pad entries for {}", w.describe()),
                    None => String::new(),
                };
                let what = facts(&mut requests.iter());
                format!("{} to answer its {what}{ahead}", machine(*owner, *escrowed))
            }
            Awaiting::Entry { party, k } => {
                format!(
                    "{}'s machine to release its dice pad entry for roll {k}",
                    party_words(*party)
                )
            }
            Awaiting::Window { party, k, count } => format!(
                "{}'s machine to release its dice pad entries for {}",
                party_words(*party),
                WindowAsk {
                    k: *k,
                    count: *count
                }
                .describe()
            ),
            Awaiting::Renewal { epoch, missing } => match missing.first() {
                Some(p) => format!(
                    "{}'s machine to commit its next dice pad (epoch {epoch})",
                    party_words(*p)
                ),
                None => format!("the dice pads of epoch {epoch}"),
            },
            Awaiting::ServerRoll { k } => format!("the server to roll (roll {k})"),
            Awaiting::Ruling { .. } => "the server's ruling".into(),
            Awaiting::Transitions {
                owner,
                list,
                escrowed,
            } => {
                let what = facts(&mut list.iter().map(|(r, _)| r));
                format!(
                    "{} to record the change to its {what}",
                    machine(*owner, *escrowed)
                )
            }
            Awaiting::End { .. } => "the server to record the end of the game".into(),
            Awaiting::Reveals { missing } => {
                format!(
                    "{} to publish the secrets of the finished game",
                    machines(missing)
                )
            }
            Awaiting::Closed => "nothing: the game is over".into(),
        }
    }

    /// What is awaited, in words.
    pub fn describe(&self) -> String {
        match self {
            Awaiting::Pads { missing } => format!("pad statement from side(s) {missing:?}"),
            Awaiting::Setups { missing } => format!("setup from side(s) {missing:?}"),
            Awaiting::Action { actor } => format!("an action (side {actor} is to act)"),
            Awaiting::Openings {
                owner,
                requests,
                escrowed,
                window,
            } => {
                let list: Vec<String> = requests.iter().map(|r| r.to_string()).collect();
                let by = if *escrowed {
                    "the server (escrow) for "
                } else {
                    ""
                };
                let ahead = match window {
                    Some(w) => format!(", with its pad entries for {}", w.describe()),
                    None => String::new(),
                };
                format!("{by}side {owner} to open {}{ahead}", list.join("; "))
            }
            Awaiting::Entry { party, k } => format!("{party}'s pad entry for roll {k}"),
            Awaiting::Window { party, k, count } => format!(
                "{party}'s pad entries for {}",
                WindowAsk {
                    k: *k,
                    count: *count
                }
                .describe()
            ),
            Awaiting::Renewal { epoch, missing } => {
                format!("pad epoch {epoch} from {missing:?}")
            }
            Awaiting::ServerRoll { k } => format!("the server's entry for roll {k}"),
            Awaiting::Ruling { .. } => "the server's ruling".into(),
            Awaiting::Transitions {
                owner,
                list,
                escrowed,
            } => {
                let by = if *escrowed {
                    "the server (escrow) for "
                } else {
                    ""
                };
                format!("{by}side {owner} to commit {} transition(s)", list.len())
            }
            Awaiting::End { .. } => "the server's end record".into(),
            Awaiting::Reveals { missing } => format!("the reveal of side(s) {missing:?}"),
            Awaiting::Closed => "nothing: the log is closed".into(),
        }
    }
}

/// `side A`, `sides A and B`.
pub(crate) fn sides(missing: &[Side]) -> String {
    match missing {
        [one] => format!("side {one}"),
        _ => {
            let names: Vec<String> = missing.iter().map(|s| s.to_string()).collect();
            format!("sides {}", list_in_words(&names))
        }
    }
}

/// `side A's machine`, `the machines of sides A and B`.
pub(crate) fn machines(missing: &[Side]) -> String {
    match missing {
        [one] => format!("side {one}'s machine"),
        _ => format!("the machines of {}", sides(missing)),
    }
}

/// `side A`, `the server`.
fn party_words(party: Party) -> String {
    match party {
        Party::Server => "the server".into(),
        p => format!("side {p}"),
    }
}

/// `x`, `x and y`, `x, y and z`.
fn list_in_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Message version 4: the window of public rolls whose pad entries the
/// current action's opponent is asked to release at once (PROTOCOL.md 7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowAsk {
    /// The first roll number.
    pub k: u64,
    /// How many rolls.
    pub count: u32,
}

impl WindowAsk {
    fn describe(&self) -> String {
        if self.count == 1 {
            format!("roll {}", self.k)
        } else {
            format!("rolls {} to {}", self.k, self.k + u64::from(self.count) - 1)
        }
    }
}

/// A rule of the game a side broke with hidden information, proven by its
/// reveal, or an answer of a side that does not match its own commitment,
/// proven by the server's record of it ([`Body::BadAnswer`]) (G5): it
/// decides the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The side at fault.
    pub side: Side,
    /// The seq of the entry that proves it.
    pub seq: u64,
    /// What is wrong, with the rule.
    pub what: String,
}

/// Why an entry was refused. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RefereeError {
    /// The envelope itself is bad (signature, seq, head, game, author).
    #[error("envelope: {0}")]
    Envelope(#[from] EnvelopeError),
    /// The body does not decode.
    #[error("body: {0}")]
    Body(#[from] crate::message::MessageError),
    /// The first entry must be the server's genesis.
    #[error("the first entry must be the server's genesis: {0}")]
    BadGenesis(String),
    /// The entry is not what is awaited from that author now.
    #[error("{author} may not send a {body} now: waiting for {awaiting}")]
    OutOfTurn {
        /// Who sent it.
        author: Party,
        /// What it was.
        body: &'static str,
        /// What the referee waits for.
        awaiting: String,
    },
    /// A `Declare` in a game of message version 3, which knows only
    /// `Act`.
    #[error("a `{body}` declares an action only in a game of message version 4 (PROTOCOL.md 7.1); this game is of version {version}: send an `{expected}`")]
    WrongVersion {
        /// What was sent.
        body: &'static str,
        /// The game's message version.
        version: u16,
        /// The body that declares an action in this game.
        expected: &'static str,
    },
    /// Plain openings where the prompt asked for openings with a window of
    /// pad entries (message version 4).
    #[error("openings without the window of pad entries asked: waiting for {awaiting}")]
    WindowAsked {
        /// What the referee waits for.
        awaiting: String,
    },
    /// Openings with a window of pad entries where none was asked.
    #[error("a window of pad entries was not asked: waiting for {awaiting}")]
    NoWindowAsked {
        /// What the referee waits for.
        awaiting: String,
    },
    /// A setup that does not fit the scenario.
    #[error("setup of side {side}: {reason}")]
    BadSetup {
        /// Whose setup.
        side: Side,
        /// What is wrong.
        reason: String,
    },
    /// A setup's escrow is missing, not allowed, or does not match the
    /// roots or the rules (DESIGN 3.6); every problem is named.
    #[error("side {side}'s escrow is refused: {}", problems.join("; "))]
    BadEscrow {
        /// Whose setup.
        side: Side,
        /// Every problem found.
        problems: Vec<String>,
    },
    /// An opening that does not prove what was asked (G1).
    #[error("opening {index} for {request}: {reason}")]
    BadOpening {
        /// Position in the entry.
        index: usize,
        /// The request it should answer.
        request: FactRequest,
        /// What is wrong.
        reason: String,
    },
    /// An opening or transition that answers another request than the one
    /// awaited: another location, layer, opportunity or kind of fact, or
    /// another new content than the ruled one. It proves nothing against
    /// its author, whom a false prompt may have asked exactly that (issue
    /// 24): the server can show an owner any request, and an honest owner
    /// opens what it is shown. Refused, and never recorded as a
    /// [`Body::BadAnswer`].
    #[error("item {index} answers another request than {request}: {reason}")]
    OtherRequest {
        /// Position in the entry.
        index: usize,
        /// The request it should answer.
        request: FactRequest,
        /// What it answers instead.
        reason: String,
    },
    /// Too few or too many openings or transitions.
    #[error("expected {expected} items, got {got}")]
    WrongCount {
        /// How many were asked.
        expected: usize,
        /// How many were sent.
        got: usize,
    },
    /// A pad entry that does not fit the round (G2).
    #[error("pad entry: {0}")]
    BadEntry(#[from] crate::beacon::BeaconError),
    /// A server roll record that is not what the beacon gives.
    #[error("roll record: {0}")]
    BadRoll(String),
    /// A server ruling that is not what the engine rules (G5).
    #[error("ruling for entry {action_seq} differs from the engine's")]
    BadRuling {
        /// The action ruled on.
        action_seq: u64,
    },
    /// A transition that does not follow the ruling (G1).
    #[error("transition {index} for {request}: {reason}")]
    BadTransition {
        /// Position in the entry.
        index: usize,
        /// The fact.
        request: FactRequest,
        /// What is wrong.
        reason: String,
    },
    /// The engine refused the action (nothing changed).
    #[error("{0}")]
    Refused(#[from] hexveil_core::ActionError),
    /// The genesis names a ruleset this build does not have.
    #[error("{0}")]
    UnknownRuleset(#[from] hexveil_core::UnknownRuleset),
    /// A server end record that is not the game's result.
    #[error("end record does not match the result: {0}")]
    BadEnd(String),
    /// A server record of a refused answer ([`Body::BadAnswer`]) that
    /// does not prove a player's commitment mismatch.
    #[error("refused-answer record: {0}")]
    BadRecord(String),
    /// A timeout record naming a party that owed nothing.
    #[error("timeout names {party}, but {awaiting} is awaited")]
    BadTimeout {
        /// The party named.
        party: Party,
        /// What was awaited.
        awaiting: String,
    },
}

impl RefereeError {
    /// Whether this refusal proves that the answer's signer broke its own
    /// commitment: an opening or transition that does not open against the
    /// owner's root (or holds a content its layer refuses), a pad entry
    /// that does not verify against its pad. Such an answer is recorded
    /// against its author ([`Body::BadAnswer`]).
    pub fn is_commitment_mismatch(&self) -> bool {
        matches!(
            self,
            RefereeError::BadOpening { .. }
                | RefereeError::BadTransition { .. }
                | RefereeError::BadEntry(crate::beacon::BeaconError::BadEntry { .. })
        )
    }
}

/// What an accepted entry did.
#[derive(Clone, Debug)]
pub struct Accepted {
    /// Who wrote it.
    pub author: Party,
    /// Its place in the log.
    pub appended: Appended,
    /// Its body.
    pub body: Body,
    /// Dice this entry completed (a roll), as given to the engine. For a
    /// Secret dr these are for the roller and the referee only.
    pub dice: Vec<Roll>,
    /// Whether `dice` is a Secret dr.
    pub secret_dice: bool,
    /// Faults a reveal proved (G5).
    pub faults: Vec<Fault>,
}

/// A beacon round in progress.
#[derive(Clone, Debug)]
struct Round {
    beacon: BeaconRound,
    specs: Vec<DiceSpec>,
    secret: bool,
}

/// The action being adjudicated.
#[derive(Clone, Copy, Debug)]
struct Current {
    seq: u64,
    actor: Side,
    hash: Digest,
    /// Message version 4: the nonce the action was declared with, the
    /// actor's part of each of its public rolls (PROTOCOL.md 7.1).
    nonce: Option<[u8; 32]>,
    /// Message version 4: the ruleset's estimate of the public rolls this
    /// action may take (`Scenario::rolls_ahead`), which sizes its windows
    /// ([`window_count`]).
    rolls_ahead: u32,
    /// Message version 4: the pad epochs every party had committed when
    /// the action was declared. Only rolls in those epochs take the nonce
    /// and a window: a statement committed after the nonce was public
    /// (a renewal during the action) could have been chosen by the server,
    /// last to commit, knowing it and a colluding opponent's values, so
    /// such a roll is made as in version 3 (PROTOCOL.md 7.1 item 5).
    epochs_at_declare: u32,
}

/// The opponent's window of pad entries for the current action (message
/// version 4, PROTOCOL.md 7.1): each entry checked when released, so only
/// its value is kept (the referee is copied for every entry it takes, G6),
/// used in order.
#[derive(Clone, Debug)]
struct Window {
    first: u64,
    values: Vec<PadValue>,
}

impl Window {
    fn end(&self) -> u64 {
        self.first + self.values.len() as u64
    }

    fn value(&self, k: u64) -> Option<PadValue> {
        k.checked_sub(self.first)
            .and_then(|i| self.values.get(usize::try_from(i).ok()?))
            .copied()
    }
}

/// How many rolls a window from roll `k` covers (PROTOCOL.md 7.1): the
/// action's estimate `rolls_ahead`, kept within 1..=[`MAX_WINDOW`], and no
/// further than the end of `k`'s pad epoch. The referee asks for it; a
/// player's roll count ([`crate::roll_count`]) expects the same.
pub fn window_count(rolls_ahead: u32, k: u64, pad_len: u32) -> u32 {
    let n = u64::from(pad_len.max(1));
    let left = u32::try_from(n - k % n).unwrap_or(u32::MAX);
    rolls_ahead.clamp(1, MAX_WINDOW).min(left)
}

/// One side's accepted setup.
#[derive(Clone, Debug)]
struct SideSetup {
    public: Arc<dyn PublicSetup>,
    setup_roots: BTreeMap<Layer, RootStatement>,
}

/// The referee of one game.
///
/// [`Referee::accept`] works on a clone and keeps it only if the entry is
/// accepted (G6), so cloning must be cheap: what never changes after the
/// genesis or the setups (the genesis, the scenario and the setups) is
/// shared behind an [`Arc`] and written, during setup
/// only, through [`Arc::make_mut`], which copies it if a clone shares it.
/// A clone therefore behaves exactly as a deep copy. The engine's clone
/// ([`Engine::clone_box`]) must be cheap too, and stay so however long
/// the game: a ruleset keeps what grows with the game in a
/// [`hexveil_core::PersistentMap`] (ASL: the facts opened to the referee,
/// one more for each Daisy Chain opportunity), or verifying a transcript
/// would be quadratic in its length (issue 16).
#[derive(Clone, Debug)]
pub struct Referee {
    game_id: GameId,
    genesis: Arc<Genesis>,
    log: LogState,
    players: [PublicKey; 2],
    server: PublicKey,
    scenario: Arc<dyn Scenario>,
    /// Every party's pad statements, by epoch (the server's epoch 0 is in
    /// the genesis).
    pads: BTreeMap<Party, Vec<PadStatement>>,
    /// The dice a roll waits for while the pads are renewed.
    renewal_specs: Option<Vec<DiceSpec>>,
    /// Each side's setup rolls so far (ASL: the Secret dr for extra
    /// Dummies, B28.47), made after the pads and before the setups.
    setup_rolls: BTreeMap<Side, Vec<Roll>>,
    /// Setup rolls still to be made: the roller, its pad entry's seq and
    /// hash (the roll is bound to it), and what to roll.
    setup_rolls_due: Vec<(Side, u64, Digest, DiceSpec)>,
    setups: Arc<BTreeMap<Side, SideSetup>>,
    /// Current roots (moved by transitions).
    roots: BTreeMap<(Side, Layer), RootStatement>,
    engine: Option<Box<dyn Engine>>,
    awaiting: Awaiting,
    current: Option<Current>,
    round: Option<Round>,
    next_roll: u64,
    /// The current action's window of the opponent's pad entries, if it
    /// released one (message version 4).
    window: Option<Window>,
    facts_wanted: Vec<FactRequest>,
    facts_got: Vec<Fact>,
    transitions_due: Vec<(FactRequest, Content)>,
    reveals: BTreeMap<Side, RevealBody>,
    result: Option<EndRecord>,
    faults: Vec<Fault>,
}

impl Referee {
    /// A referee from the genesis entry (seq 0, written by the server),
    /// playing the ruleset the genesis names, which `rulesets` must have.
    pub fn new(
        genesis_env: &SignedEnvelope,
        rulesets: &Registry,
    ) -> Result<(Referee, Accepted), RefereeError> {
        let env = genesis_env.envelope();
        let body = Body::decode(&env.body)?;
        let Body::Genesis(mut genesis) = body.clone() else {
            return Err(RefereeError::BadGenesis(format!("it is a {}", body.name())));
        };
        if env.author != genesis.server {
            return Err(RefereeError::BadGenesis(
                "not signed by the server key it names".into(),
            ));
        }
        // The signature before anything the body says: a damaged genesis
        // proves nothing against the server, whose signature is all that
        // binds it from message version 5 on (no receipt, PROTOCOL.md 6).
        genesis_env.verify_signature()?;
        if !MESSAGE_VERSIONS.contains(&genesis.message_version) {
            return Err(RefereeError::BadGenesis(format!(
                "message version {} is not one this build plays ({MESSAGE_VERSIONS:?})",
                genesis.message_version
            )));
        }
        if Digest::sha256(genesis.scenario_toml.as_bytes()) != genesis.scenario_hash {
            return Err(RefereeError::BadGenesis(
                "scenario hash does not match the scenario".into(),
            ));
        }
        if genesis.players[0] == genesis.players[1] {
            return Err(RefereeError::BadGenesis(
                "both sides have the same key: a game against yourself is not refereed (each player signs with a key of its own; make a second one with `hexveil keygen`)".into(),
            ));
        }
        if genesis.players.contains(&genesis.server) {
            return Err(RefereeError::BadGenesis(
                "a player's key is the server's own: the server cannot referee a game it plays"
                    .into(),
            ));
        }
        for key in genesis.players.iter().chain([&genesis.server]) {
            if let Err(e) = key.check() {
                return Err(RefereeError::BadGenesis(format!(
                    "key {key} is not an Ed25519 key hexveil accepts: {e}"
                )));
            }
        }
        if genesis.server_pad.party != Party::Server
            || genesis.server_pad.epoch != 0
            || genesis.server_pad.n != genesis.pad_len
            || genesis.server_pad.game_id != env.game_id
        {
            return Err(RefereeError::BadGenesis(
                "server pad statement does not fit the game".into(),
            ));
        }
        genesis.share_scenario_text();
        let ruleset = rulesets.find(&genesis.ruleset, genesis.ruleset_version)?;
        let scenario = ruleset
            .load(&genesis.scenario_toml)
            .map_err(|e| RefereeError::BadGenesis(format!("scenario: {e}")))?;
        // Supplied rules-data tables (R12): each pinned hash must be its
        // text's, so the genesis binds the data the game is played with.
        scenario
            .supplied_tables()
            .check_pins(|text| Digest::sha256(text).to_string())
            .map_err(|e| RefereeError::BadGenesis(format!("scenario: {e}")))?;
        let mut log = LogState::new(
            env.game_id,
            vec![genesis.players[0], genesis.players[1], genesis.server],
        );
        let appended = log.append(genesis_env)?;
        let server_pad = genesis.server_pad;
        let referee = Referee {
            game_id: env.game_id,
            players: genesis.players,
            server: genesis.server,
            genesis: Arc::new(genesis),
            log,
            scenario,
            pads: [(Party::Server, vec![server_pad])].into_iter().collect(),
            renewal_specs: None,
            setup_rolls: BTreeMap::new(),
            setup_rolls_due: Vec::new(),
            setups: Arc::default(),
            roots: BTreeMap::new(),
            engine: None,
            awaiting: Awaiting::Pads {
                missing: vec![Side::A, Side::B],
            },
            current: None,
            round: None,
            next_roll: 0,
            window: None,
            facts_wanted: Vec::new(),
            facts_got: Vec::new(),
            transitions_due: Vec::new(),
            reveals: BTreeMap::new(),
            result: None,
            faults: Vec::new(),
        };
        let accepted = Accepted {
            author: Party::Server,
            appended,
            body,
            dice: Vec::new(),
            secret_dice: false,
            faults: Vec::new(),
        };
        Ok((referee, accepted))
    }

    /// The game id.
    pub fn game_id(&self) -> GameId {
        self.game_id
    }

    /// The genesis.
    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// Who must write the next entry.
    pub fn awaiting(&self) -> &Awaiting {
        &self.awaiting
    }

    /// What is awaited, in words for players ([`Awaiting::in_words`]).
    pub fn awaiting_in_words(&self) -> String {
        self.awaiting.in_words(self.scenario.as_ref())
    }

    /// The log's acceptance state (next seq, head).
    pub fn log(&self) -> &LogState {
        &self.log
    }

    /// The engine, once both setups are in.
    pub fn engine(&self) -> Option<&dyn Engine> {
        self.engine.as_deref()
    }

    /// The scenario, as its ruleset loaded it.
    pub fn scenario(&self) -> &Arc<dyn Scenario> {
        &self.scenario
    }

    /// A side's setup rolls (ASL: the Secret dr for extra Dummies, B28.47).
    pub fn setup_rolls(&self, side: Side) -> &[Roll] {
        self.setup_rolls
            .get(&side)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// A side's public setup, once accepted.
    pub fn public_setup(&self, side: Side) -> Option<&Arc<dyn PublicSetup>> {
        self.setups.get(&side).map(|s| &s.public)
    }

    /// The eligible locations of a side's layer (public, DESIGN 3.1), in
    /// sealing order.
    /// Worked out from the scenario and the side's public setup each time:
    /// the referee keeps no list (issue 16).
    pub fn eligible(&self, side: Side, layer: Layer) -> Vec<Location> {
        self.setups
            .get(&side)
            .map(|s| self.scenario.eligible(s.public.as_ref(), layer))
            .unwrap_or_default()
    }

    /// The current root of a side's layer.
    pub fn root(&self, side: Side, layer: Layer) -> Option<&RootStatement> {
        self.roots.get(&(side, layer))
    }

    /// The pad statement of a party.
    pub fn pad(&self, party: Party) -> Option<&PadStatement> {
        match side_of(party) {
            None => Some(&self.genesis.server_pad),
            Some(side) => self.pads.get(&party_of(side)).and_then(|v| v.first()),
        }
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&EndRecord> {
        self.result.as_ref()
    }

    /// The seq of the entry the pending roll or ruling serves.
    pub fn current_seq(&self) -> Option<u64> {
        self.current.map(|c| c.seq)
    }

    /// The pad position of the running round, if any.
    pub fn round_position(&self) -> Option<crate::pad::PadPosition> {
        self.round.as_ref().map(|r| r.beacon.position())
    }

    /// Whether the running round is a Secret dr, and for whom.
    pub fn round_secret_roller(&self) -> Option<Side> {
        self.round
            .as_ref()
            .filter(|r| r.secret)
            .map(|r| side_of(r.beacon.request().actor).expect("rollers are players"))
    }

    /// The roll record the server must write with its own entry: the dice
    /// are those the beacon gives once that entry is in (none yet for a
    /// Secret dr, whose roller releases last).
    pub fn server_roll_record(
        &self,
        server_entry: crate::pad::PadEntry,
    ) -> Result<RollRecord, RefereeError> {
        let (Awaiting::ServerRoll { k }, Some(current), Some(round)) =
            (&self.awaiting, self.current, self.round.as_ref())
        else {
            return Err(RefereeError::BadRoll("no roll awaits the server".into()));
        };
        let mut beacon = round.beacon.clone();
        let dice = match beacon.submit(&server_entry)? {
            RoundStatus::Complete(seed) => draw(&seed, &round.specs),
            _ => Vec::new(),
        };
        Ok(RollRecord {
            k: *k,
            action_seq: current.seq,
            server_entry,
            dice,
        })
    }

    /// Faults proven by reveals so far.
    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    /// The party of a key, if it is one of this game's.
    pub fn party_of_key(&self, key: &PublicKey) -> Option<Party> {
        if *key == self.players[0] {
            Some(Party::A)
        } else if *key == self.players[1] {
            Some(Party::B)
        } else if *key == self.server {
            Some(Party::Server)
        } else {
            None
        }
    }

    /// Accepts the next entry of the log, or refuses it changing nothing.
    pub fn accept(&mut self, env: &SignedEnvelope) -> Result<Accepted, RefereeError> {
        // The envelope's checks, its signature verified once.
        let mut log = self.log.clone();
        let appended = log.append(env)?;
        self.accept_appended(env, log, appended)
    }

    /// [`Referee::accept`] of an entry the live session just signed itself
    /// (the server's own, [`SignedHere`]): the same checks and rules, but
    /// its signature is not verified again (issue 16). Anything read from
    /// a player, the store or a transcript goes through
    /// [`Referee::accept`], and the verifier checks every signature.
    pub(crate) fn accept_signed_here(
        &mut self,
        env: &SignedHere,
    ) -> Result<Accepted, RefereeError> {
        let mut log = self.log.clone();
        let appended = log.append_signed_here(env)?;
        self.accept_appended(env.signed(), log, appended)
    }

    /// [`Referee::accept`] of an entry whose signature the offline verifier
    /// has just verified in its parallel pass (issue 16): the same checks
    /// and rules, the signature not verified a second time. Debug builds
    /// verify it anyway.
    pub(crate) fn accept_verified(
        &mut self,
        env: &SignedEnvelope,
    ) -> Result<Accepted, RefereeError> {
        let mut log = self.log.clone();
        let appended = log.append_verified(env)?;
        self.accept_appended(env, log, appended)
    }

    /// The rules' part of accepting an entry whose envelope `log` has
    /// appended (as `appended`).
    fn accept_appended(
        &mut self,
        env: &SignedEnvelope,
        log: LogState,
        appended: Appended,
    ) -> Result<Accepted, RefereeError> {
        let author = self
            .party_of_key(&env.envelope().author)
            .ok_or(EnvelopeError::UnknownAuthor(env.envelope().author))?;
        let body = Body::decode(&env.envelope().body)?;
        // Work on a copy (a shallow one, see [`Referee`]): any error leaves
        // the referee as it was (G6).
        let mut next = self.clone();
        let (dice, secret_dice) = next.apply(author, appended.seq, appended.entry_hash, &body)?;
        next.log = log;
        let faults = next.faults[self.faults.len()..].to_vec();
        *self = next;
        Ok(Accepted {
            author,
            appended,
            body,
            dice,
            secret_dice,
            faults,
        })
    }

    fn out_of_turn(&self, author: Party, body: &Body) -> RefereeError {
        RefereeError::OutOfTurn {
            author,
            body: body.name(),
            awaiting: self.awaiting.describe(),
        }
    }

    /// Applies one body; returns dice completed by it.
    fn apply(
        &mut self,
        author: Party,
        seq: u64,
        entry_hash: Digest,
        body: &Body,
    ) -> Result<(Vec<Roll>, bool), RefereeError> {
        let open_game = !matches!(
            self.awaiting,
            Awaiting::End { .. } | Awaiting::Reveals { .. } | Awaiting::Closed
        );
        match (body, author) {
            (Body::Concede, Party::A | Party::B) if open_game => {
                let side = side_of(author).expect("player");
                self.end_with(EndRecord::conceded(side));
                return Ok((Vec::new(), false));
            }
            (Body::Timeout { party, .. }, Party::Server)
                if matches!(self.awaiting, Awaiting::Reveals { .. }) =>
            {
                self.reveal_timeout(*party, seq)?;
                return Ok((Vec::new(), false));
            }
            (Body::BadAnswer(answer), Party::Server) => {
                self.record_bad_answer(seq, answer)?;
                return Ok((Vec::new(), false));
            }
            (Body::Timeout { party, .. }, Party::Server) if open_game => {
                // Only a player can lose by timeout (G2). The server owes
                // machine answers too (its pad at a renewal, the escrow
                // agent's openings and transitions, DESIGN 3.6), but a
                // timeout naming it would end the game against no side:
                // refused, like any other timeout naming a party that owes
                // nothing.
                let side = match side_of(*party) {
                    Some(side)
                        if self.awaiting.is_machine_answer()
                            && self.awaiting.party() == Some(*party) =>
                    {
                        side
                    }
                    _ => {
                        return Err(RefereeError::BadTimeout {
                            party: *party,
                            awaiting: self.awaiting.describe(),
                        })
                    }
                };
                self.end_with(EndRecord::timed_out(side, &self.awaiting.describe()));
                return Ok((Vec::new(), false));
            }
            _ => {}
        }
        match (&self.awaiting.clone(), body) {
            (Awaiting::Pads { missing }, Body::Pad(pad)) => {
                let side = side_of(author).ok_or_else(|| self.out_of_turn(author, body))?;
                if !missing.contains(&side) {
                    return Err(self.out_of_turn(author, body));
                }
                self.accept_pad(side, seq, entry_hash, pad)?;
                Ok((Vec::new(), false))
            }
            (Awaiting::Renewal { epoch, missing }, Body::Pad(pad)) => {
                if missing.first() != Some(&author) {
                    return Err(self.out_of_turn(author, body));
                }
                if pad.game_id != self.game_id
                    || pad.party != author
                    || pad.epoch != *epoch
                    || pad.n != self.genesis.pad_len
                {
                    return Err(RefereeError::BadRoll(format!(
                        "{author}'s pad statement is not epoch {epoch} of this game with {} entries",
                        self.genesis.pad_len
                    )));
                }
                self.pads.entry(author).or_default().push(*pad);
                let missing: Vec<Party> = missing[1..].to_vec();
                if missing.is_empty() {
                    let specs = self.renewal_specs.take().expect("a renewal serves a roll");
                    self.start_round(specs)?;
                } else {
                    self.awaiting = Awaiting::Renewal {
                        epoch: *epoch,
                        missing,
                    };
                }
                Ok((Vec::new(), false))
            }
            (Awaiting::Setups { missing }, Body::Setup(setup)) => {
                let side = side_of(author).ok_or_else(|| self.out_of_turn(author, body))?;
                if !missing.contains(&side) {
                    return Err(self.out_of_turn(author, body));
                }
                self.accept_setup(side, setup)?;
                self.accept_escrow(side, setup.escrow.as_ref())?;
                Ok((Vec::new(), false))
            }
            (Awaiting::Action { .. }, Body::Act(_) | Body::Declare(_)) => {
                let side = side_of(author).ok_or_else(|| self.out_of_turn(author, body))?;
                // An Act, in a game of either version, rolls as in
                // version 3 (the actor's pad entry, no window); a Declare,
                // only in a game of version 4, with its nonce (PROTOCOL.md
                // 7.1).
                let nonce = match (self.windowed(), body) {
                    (_, Body::Act(_)) => None,
                    (true, Body::Declare(d)) => Some(d.nonce),
                    _ => {
                        return Err(RefereeError::WrongVersion {
                            body: "Declare",
                            version: self.genesis.message_version,
                            expected: "Act",
                        })
                    }
                };
                let action = body.declared_action().expect("an action");
                self.accept_action(side, seq, entry_hash, action, nonce)?;
                Ok((Vec::new(), false))
            }
            (
                Awaiting::Openings {
                    owner,
                    requests,
                    window,
                    ..
                },
                Body::Open(_) | Body::OpenAhead(_),
            ) => {
                if Some(author) != self.awaiting.party() {
                    return Err(self.out_of_turn(author, body));
                }
                match (window, body) {
                    (None, Body::Open(openings)) => {
                        self.accept_openings(*owner, requests, openings)?
                    }
                    (Some(ask), Body::OpenAhead(ahead)) => {
                        // The window first: the openings may complete the
                        // engine's facts and start a roll that uses it.
                        self.accept_window(author, *ask, &ahead.entries)?;
                        self.accept_openings(*owner, requests, &ahead.openings)?
                    }
                    (Some(_), _) => {
                        return Err(RefereeError::WindowAsked {
                            awaiting: self.awaiting.describe(),
                        })
                    }
                    (None, _) => {
                        return Err(RefereeError::NoWindowAsked {
                            awaiting: self.awaiting.describe(),
                        })
                    }
                }
                Ok((Vec::new(), false))
            }
            (Awaiting::Window { party, k, count }, Body::Entries(entries)) => {
                if author != *party {
                    return Err(self.out_of_turn(author, body));
                }
                let ask = WindowAsk {
                    k: *k,
                    count: *count,
                };
                self.accept_window(author, ask, entries)?;
                let status = self.submit_from_window(*k)?;
                self.after_status(status)
            }
            (Awaiting::Entry { party, k }, Body::Entry(entry)) => {
                if author != *party || entry.party != *party {
                    return Err(self.out_of_turn(author, body));
                }
                self.accept_pad_entry(*k, entry)
            }
            (Awaiting::ServerRoll { k }, Body::Roll(record)) if author == Party::Server => {
                self.accept_server_roll(*k, record)
            }
            (Awaiting::Ruling { events }, Body::Ruling(record)) if author == Party::Server => {
                let current = self.current.expect("a ruling follows an action");
                if record.action_seq != current.seq || &record.events != events {
                    return Err(RefereeError::BadRuling {
                        action_seq: current.seq,
                    });
                }
                self.after_ruling(events);
                Ok((Vec::new(), false))
            }
            (Awaiting::Transitions { owner, list, .. }, Body::Transitions(ts)) => {
                if Some(author) != self.awaiting.party() {
                    return Err(self.out_of_turn(author, body));
                }
                self.accept_transitions(*owner, list, ts)?;
                Ok((Vec::new(), false))
            }
            (Awaiting::End { result }, Body::End(record)) if author == Party::Server => {
                if record != result {
                    return Err(RefereeError::BadEnd(format!(
                        "recorded {record:?}, the game's result is {result:?}"
                    )));
                }
                self.result = Some(record.clone());
                self.awaiting = Awaiting::Reveals {
                    missing: self
                        .setups
                        .keys()
                        .copied()
                        .filter(|s| !self.reveals.contains_key(s))
                        .collect(),
                };
                if let Awaiting::Reveals { missing } = &self.awaiting {
                    if missing.is_empty() {
                        self.awaiting = Awaiting::Closed;
                    }
                }
                Ok((Vec::new(), false))
            }
            (Awaiting::Reveals { missing }, Body::Reveal(reveal)) => {
                let side = side_of(author).ok_or_else(|| self.out_of_turn(author, body))?;
                if !missing.contains(&side) {
                    return Err(self.out_of_turn(author, body));
                }
                self.accept_reveal(side, seq, reveal);
                let missing: Vec<Side> = missing.iter().copied().filter(|s| *s != side).collect();
                self.awaiting = if missing.is_empty() {
                    Awaiting::Closed
                } else {
                    Awaiting::Reveals { missing }
                };
                Ok((Vec::new(), false))
            }
            _ => Err(self.out_of_turn(author, body)),
        }
    }

    /// Checks the server's record of a player's refused answer
    /// ([`Body::BadAnswer`]): the envelope is the awaited player's, signed
    /// for this game at this very seq on top of the current head, holds the
    /// awaited kind of answer (openings, pad entry or transitions the player
    /// owes itself, not through an escrow), and the referee refuses it
    /// because it does not match the player's own commitment (an opening or
    /// transition that does not open against its root, or whose content is
    /// illegal in its layer; a pad entry that does not verify against its
    /// pad). Then it is that side's fault (G1, G2, G5) and nothing else
    /// changes. Anything else is refused, so the server cannot record a
    /// fault against an honest player.
    fn record_bad_answer(&mut self, seq: u64, answer: &SignedEnvelope) -> Result<(), RefereeError> {
        let not = |why: String| RefereeError::BadRecord(why);
        let owed = match &self.awaiting {
            Awaiting::Openings {
                escrowed: false, ..
            }
            | Awaiting::Entry { .. }
            | Awaiting::Window { .. }
            | Awaiting::Transitions {
                escrowed: false, ..
            } => self.awaiting.party(),
            _ => None,
        };
        let Some(side) = owed.and_then(side_of) else {
            return Err(not(format!(
                "no player owes an answer now: waiting for {}",
                self.awaiting.describe()
            )));
        };
        let env = answer.envelope();
        if self.party_of_key(&env.author) != Some(party_of(side)) {
            return Err(not(format!(
                "the recorded answer is not signed by side {side}, who owes it"
            )));
        }
        let mut probe_log = self.log.clone();
        let appended = probe_log
            .append(answer)
            .map_err(|e| not(format!("the recorded answer's envelope: {e}")))?;
        debug_assert_eq!(appended.seq, seq);
        let body =
            Body::decode(&env.body).map_err(|e| not(format!("the recorded answer's body: {e}")))?;
        if !matches!(
            body,
            Body::Open(_)
                | Body::Entry(_)
                | Body::Transitions(_)
                | Body::Entries(_)
                | Body::OpenAhead(_)
        ) {
            return Err(not(format!("a {} is not an answer", body.name())));
        }
        let mut probe = self.clone();
        match probe.apply(party_of(side), seq, appended.entry_hash, &body) {
            Ok(_) => Err(not(
                "the recorded answer is valid: the referee accepts it".into()
            )),
            Err(e) if e.is_commitment_mismatch() => {
                self.faults.push(Fault {
                    side,
                    seq,
                    what: format!(
                        "side {side} signed an answer ({}) that does not match its own commitment: {e}",
                        match body {
                            Body::Open(_) => "openings",
                            Body::Entry(_) => "a pad entry",
                            Body::Entries(_) => "a window of pad entries",
                            Body::OpenAhead(_) => "openings and a window of pad entries",
                            _ => "transitions",
                        }
                    ),
                });
                Ok(())
            }
            Err(e) => Err(not(format!(
                "the recorded answer is refused for another reason than a commitment mismatch: {e}"
            ))),
        }
    }

    /// A side that does not reveal in time cannot be audited: the log
    /// closes without its secrets, and the transcript proves the omission
    /// against it (G5). The result stands.
    fn reveal_timeout(&mut self, party: Party, seq: u64) -> Result<(), RefereeError> {
        let bad = || RefereeError::BadTimeout {
            party,
            awaiting: self.awaiting.describe(),
        };
        let Awaiting::Reveals { missing } = &self.awaiting else {
            return Err(bad());
        };
        let side = side_of(party)
            .filter(|s| missing.first() == Some(s))
            .ok_or_else(bad)?;
        let rest: Vec<Side> = missing.iter().copied().filter(|s| *s != side).collect();
        self.faults.push(Fault {
            side,
            seq,
            what: format!(
                "side {side} did not reveal its secrets within the answer timeout: its setup cannot be audited (G5)"
            ),
        });
        self.awaiting = if rest.is_empty() {
            Awaiting::Closed
        } else {
            Awaiting::Reveals { missing: rest }
        };
        Ok(())
    }

    fn end_with(&mut self, result: EndRecord) {
        self.current = None;
        self.round = None;
        self.facts_wanted.clear();
        self.facts_got.clear();
        self.transitions_due.clear();
        self.awaiting = Awaiting::End { result };
    }

    fn accept_setup(&mut self, side: Side, setup: &SetupBody) -> Result<(), RefereeError> {
        let bad = |reason: String| RefereeError::BadSetup { side, reason };
        let party = party_of(side);
        let public = self
            .scenario
            .public_setup(side, &setup.public_setup_toml)
            .map_err(|e| bad(format!("public setup: {e}")))?;
        let mut setup_roots = BTreeMap::new();
        for layer in self.scenario.sealed_layers() {
            let eligible = self.scenario.eligible(public.as_ref(), layer);
            let root = setup.roots.iter().find(|r| r.layer == layer.name());
            match (eligible.is_empty(), root) {
                (true, None) => {}
                (true, Some(_)) => {
                    return Err(bad(format!(
                        "layer {layer} has no eligible location but a root was sent"
                    )))
                }
                (false, None) => return Err(bad(format!("no root for layer {layer}"))),
                (false, Some(root)) => {
                    if root.game_id != self.game_id || root.side != party {
                        return Err(bad(format!(
                            "root of layer {layer} is for another game or side"
                        )));
                    }
                    if root.n_leaves != eligible.len() as u64 {
                        return Err(bad(format!(
                            "root of layer {layer} has {} leaves, the layer has {} eligible locations (G3: one leaf for every one)",
                            root.n_leaves,
                            eligible.len()
                        )));
                    }
                    setup_roots.insert(layer, root.clone());
                }
            }
        }
        if setup.roots.len() != setup_roots.len() {
            return Err(bad("roots for unknown or repeated layers".into()));
        }
        for (layer, root) in &setup_roots {
            self.roots.insert((side, *layer), root.clone());
        }
        Arc::make_mut(&mut self.setups).insert(
            side,
            SideSetup {
                public,
                setup_roots,
            },
        );
        let missing: Vec<Side> = [Side::A, Side::B]
            .into_iter()
            .filter(|s| !self.setups.contains_key(s))
            .collect();
        if missing.is_empty() {
            let publics = [
                self.setups[&Side::A].public.as_ref(),
                self.setups[&Side::B].public.as_ref(),
            ];
            let engine = self
                .scenario
                .start(publics, &self.setup_rolls)
                .map_err(|e| bad(format!("setups do not combine: {e}")))?;
            self.awaiting = Awaiting::Action {
                actor: engine.to_act(),
            };
            self.engine = Some(engine);
        } else {
            self.awaiting = Awaiting::Setups { missing };
        }
        Ok(())
    }

    fn accept_pad(
        &mut self,
        side: Side,
        seq: u64,
        hash: Digest,
        pad: &PadStatement,
    ) -> Result<(), RefereeError> {
        if pad.game_id != self.game_id
            || pad.party != party_of(side)
            || pad.epoch != 0
            || pad.n != self.genesis.pad_len
        {
            return Err(RefereeError::BadSetup {
                side,
                reason: "pad statement does not fit the game".into(),
            });
        }
        self.pads.insert(party_of(side), vec![*pad]);
        for spec in self.scenario.setup_rolls(side) {
            self.setup_rolls_due.push((side, seq, hash, spec));
        }
        let missing: Vec<Side> = [Side::A, Side::B]
            .into_iter()
            .filter(|s| !self.pads.contains_key(&party_of(*s)))
            .collect();
        if missing.is_empty() {
            self.setup_rolls_due.sort_by_key(|(s, _, _, _)| *s);
            self.next_setup_roll()
        } else {
            self.awaiting = Awaiting::Pads { missing };
            Ok(())
        }
    }

    /// Runs the next setup roll the ruleset asks for (ASL: the Secret dr
    /// for extra Dummies, B28.47), each in its own round bound to the
    /// roller's pad statement entry; then asks for the setups.
    fn next_setup_roll(&mut self) -> Result<(), RefereeError> {
        if self.setup_rolls_due.is_empty() {
            self.awaiting = Awaiting::Setups {
                missing: vec![Side::A, Side::B],
            };
            return Ok(());
        }
        let (side, seq, hash, spec) = self.setup_rolls_due.remove(0);
        self.current = Some(Current {
            seq,
            actor: side,
            hash,
            nonce: None,
            rolls_ahead: 1,
            epochs_at_declare: 0,
        });
        self.start_round(vec![spec])
    }

    fn accept_action(
        &mut self,
        side: Side,
        seq: u64,
        hash: Digest,
        action: &[u8],
        nonce: Option<[u8; 32]>,
    ) -> Result<(), RefereeError> {
        let engine = self.engine.as_mut().expect("actions come after setup");
        let step = engine.apply(side, action)?;
        self.current = Some(Current {
            seq,
            actor: side,
            hash,
            nonce,
            rolls_ahead: self.scenario.rolls_ahead(action),
            epochs_at_declare: self.committed_epochs(),
        });
        // The ruling of the last action burned its window; never carry one.
        debug_assert!(self.window.is_none());
        self.window = None;
        self.advance(step)
    }

    /// How many pad epochs every party has committed.
    fn committed_epochs(&self) -> u32 {
        Party::ALL
            .iter()
            .map(|p| self.pads.get(p).map_or(0, Vec::len))
            .min()
            .unwrap_or(0) as u32
    }

    /// Whether this game rolls in windows (message version 4, PROTOCOL.md
    /// 7.1).
    fn windowed(&self) -> bool {
        self.genesis.message_version >= 4
    }

    /// The window the current action's opponent is asked to release now, if
    /// one is due (PROTOCOL.md 7.1): in a game of message version 4, during
    /// an action whose released window (if any) does not cover the next
    /// roll, when the next roll's epoch was committed by every party before
    /// the action was declared (else that roll is made as in version 3).
    /// It starts at the next roll and covers the action's estimate, at most
    /// [`MAX_WINDOW`], and never crosses into the next epoch.
    fn window_due(&self) -> Option<WindowAsk> {
        let current = self.current?;
        current.nonce?;
        if self
            .window
            .as_ref()
            .is_some_and(|w| w.end() > self.next_roll)
        {
            return None;
        }
        let k = self.next_roll;
        let position = PadSchedule {
            n: self.genesis.pad_len,
            ..PadSchedule::default()
        }
        .position(k)
        .ok()?;
        (position.epoch < current.epochs_at_declare).then(|| WindowAsk {
            k,
            count: window_count(current.rolls_ahead, k, self.genesis.pad_len),
        })
    }

    /// Checks the opponent's window of pad entries: `ask.count` entries of
    /// its pad at the positions of rolls `ask.k`, `ask.k + 1`, ..., each
    /// verifying against its pad statement of that epoch. Kept for the
    /// action's rolls.
    fn accept_window(
        &mut self,
        author: Party,
        ask: WindowAsk,
        entries: &[crate::pad::PadEntry],
    ) -> Result<(), RefereeError> {
        if entries.len() != ask.count as usize {
            return Err(RefereeError::WrongCount {
                expected: ask.count as usize,
                got: entries.len(),
            });
        }
        let schedule = PadSchedule {
            n: self.genesis.pad_len,
            ..PadSchedule::default()
        };
        for (k, entry) in (ask.k..).zip(entries) {
            let position = schedule
                .position(k)
                .map_err(|e| RefereeError::BadRoll(e.to_string()))?;
            if entry.party != author || entry.position != position {
                return Err(BeaconError::WrongIndex {
                    party: entry.party,
                    expected: position,
                    got: entry.position,
                }
                .into());
            }
            let statement = &self.pads[&author][position.epoch as usize];
            crate::pad::verify_pad_entry(statement, entry).map_err(|error| {
                BeaconError::BadEntry {
                    party: author,
                    error,
                }
            })?;
        }
        self.window = Some(Window {
            first: ask.k,
            values: entries.iter().map(|e| e.value).collect(),
        });
        Ok(())
    }

    /// Gives the running round roll `k`'s opponent value from its window,
    /// checked when the window was released ([`Referee::accept_window`]).
    fn submit_from_window(&mut self, k: u64) -> Result<RoundStatus, RefereeError> {
        let value = self
            .window
            .as_ref()
            .and_then(|w| w.value(k))
            .expect("a window covers the roll");
        let current = self.current.expect("a window serves an action");
        let round = self.round.as_mut().expect("a window serves a round");
        Ok(round
            .beacon
            .submit_checked(party_of(current.actor.opponent()), value)?)
    }

    /// Moves to what the engine's step needs next.
    fn advance(&mut self, step: Step) -> Result<(), RefereeError> {
        match step {
            Step::NeedFacts(requests) => {
                self.facts_wanted = requests;
                self.facts_got.clear();
                self.next_openings()
            }
            Step::NeedDice(specs) => self.start_round(specs),
            Step::Done(events) => {
                self.awaiting = Awaiting::Ruling { events };
                Ok(())
            }
        }
    }

    /// Asks the owner of the next unanswered facts; facts of locations that
    /// are not eligible are provably empty and answered at once.
    fn next_openings(&mut self) -> Result<(), RefereeError> {
        loop {
            let done = self.facts_got.len();
            let Some(first) = self.facts_wanted.get(done).copied() else {
                let facts = std::mem::take(&mut self.facts_got);
                self.facts_wanted.clear();
                let step = self
                    .engine
                    .as_mut()
                    .expect("facts are asked during play")
                    .provide_facts(facts);
                return self.advance(void_if_refused(step)?);
            };
            if !self.is_note(&first) && !self.is_eligible(&first) {
                self.facts_got.push(Fact {
                    request: first,
                    content: Content::EMPTY,
                });
                continue;
            }
            let requests: Vec<FactRequest> = self.facts_wanted[done..]
                .iter()
                .take_while(|r| r.owner == first.owner && (self.is_note(r) || self.is_eligible(r)))
                .copied()
                .collect();
            let escrowed = self.escrowed();
            let opponent = self.current.map(|c| c.actor.opponent());
            let window = (!escrowed && opponent == Some(first.owner))
                .then(|| self.window_due())
                .flatten();
            self.awaiting = Awaiting::Openings {
                owner: first.owner,
                requests,
                escrowed,
                window,
            };
            return Ok(());
        }
    }

    /// The escrow of a setup (DESIGN 3.6): required in an Escrow game and
    /// checked at once (it re-seals to the roots just committed and is a
    /// legal setup), refused in a Live game, where it would hand the owner's
    /// secrets to the server against G4.
    fn accept_escrow(
        &mut self,
        side: Side,
        escrow: Option<&EscrowBody>,
    ) -> Result<(), RefereeError> {
        match (self.escrowed(), escrow) {
            (false, None) => Ok(()),
            (false, Some(_)) => Err(RefereeError::BadEscrow {
                side,
                problems: vec![
                    "this game is Live: a setup must not carry an escrow, which would give the server the owner's secrets (G4)".into(),
                ],
            }),
            (true, None) => Err(RefereeError::BadEscrow {
                side,
                problems: vec![
                    "this game is in Escrow mode: the setup must carry the owner's escrow (docs/DESIGN.md, Escrow mode)".into(),
                ],
            }),
            (true, Some(escrow)) => {
                let setup = self.setups.get(&side).expect("the setup was just accepted");
                let mut problems = self.layer_problems(side, setup, &escrow.layers);
                if let Err(orders) = self.scenario.orders(side, &escrow.orders) {
                    problems.extend(orders);
                }
                // The server runs an agent built from this escrow: one that
                // cannot be built would leave the game waiting on the
                // server for ever, with no side to blame (G2). Built only
                // from an escrow that passed every other check, so a bogus
                // one costs no sealing beyond its legal size.
                if problems.is_empty() {
                    if let Err(e) = crate::keeper::Keeper::from_escrow(
                        self.game_id,
                        self.scenario.as_ref(),
                        side,
                        escrow,
                    ) {
                        problems.push(format!("no escrow agent can be built from it: {e}"));
                    }
                }
                if problems.is_empty() {
                    Ok(())
                } else {
                    Err(RefereeError::BadEscrow {
                        side,
                        problems: listed(problems),
                    })
                }
            }
        }
    }

    /// Whether owners' secrets are in the server's escrow (DESIGN 3.6):
    /// then the server, not the owner, answers openings and transitions.
    fn escrowed(&self) -> bool {
        self.genesis.mode == Mode::Escrow
    }

    /// Whether a request names one of its owner's eligible locations
    /// ([`Scenario::is_eligible`], from the public setup: no list is kept
    /// per game, issue 16).
    fn is_eligible(&self, request: &FactRequest) -> bool {
        self.setups.get(&request.owner).is_some_and(|s| {
            self.scenario
                .is_eligible(s.public.as_ref(), request.layer, &request.location)
        })
    }

    /// The other layer of `owner`'s whose current root `opening` opens at
    /// its location, if one does (not `asked`): an honest owner shown a
    /// prompt for that layer opens exactly this, so the opening proves no
    /// commitment mismatch, only that it answers another request (issue
    /// 24). A layout leaf's hash holds its layer's name, so an opening
    /// verifies under at most one layer.
    fn opens_other_layer(
        &self,
        owner: Side,
        asked: Layer,
        opening: &layout::Opening,
    ) -> Option<Layer> {
        self.roots.iter().find_map(|((side, layer), root)| {
            (*side == owner
                && *layer != asked
                && layout::verify_opening(root, &opening.location, opening).is_ok())
            .then_some(*layer)
        })
    }

    /// Whether a request is for a sealed note (answered by a note at an
    /// opportunity, DESIGN 3.2), not a layout leaf.
    fn is_note(&self, request: &FactRequest) -> bool {
        self.scenario.note_layer() == Some(request.layer)
    }

    fn accept_openings(
        &mut self,
        owner: Side,
        requests: &[FactRequest],
        openings: &[OpenedFact],
    ) -> Result<(), RefereeError> {
        if openings.len() != requests.len() {
            return Err(RefereeError::WrongCount {
                expected: requests.len(),
                got: openings.len(),
            });
        }
        for (index, (request, opened)) in requests.iter().zip(openings).enumerate() {
            let bad = |reason: String| RefereeError::BadOpening {
                index,
                request: *request,
                reason,
            };
            let other = |reason: String| RefereeError::OtherRequest {
                index,
                request: *request,
                reason,
            };
            let note = self.is_note(request);
            let content = match (note, opened) {
                (
                    true,
                    OpenedFact::Note {
                        commitment,
                        opening,
                    },
                ) => {
                    let Some(n) = request.location.as_opportunity() else {
                        return Err(bad("a note must be for an opportunity".into()));
                    };
                    if commitment.game_id != self.game_id || commitment.side != party_of(owner) {
                        return Err(bad("note commitment is for another game or side".into()));
                    }
                    if commitment.seq != u64::from(n) || opening.seq != commitment.seq {
                        return Err(other(format!("a note for opportunity {}", commitment.seq)));
                    }
                    note::verify_note(commitment, opening).map_err(|e| bad(e.to_string()))?;
                    note::note_content(opening).map_err(|e| bad(e.to_string()))?
                }
                (true, OpenedFact::Leaf(opening)) => {
                    return Err(other(format!(
                        "a layout leaf at {} (an opportunity is answered by a note)",
                        opening.location
                    )))
                }
                (false, OpenedFact::Leaf(opening)) => {
                    if opening.location != request.location.key() {
                        return Err(other(format!("the leaf at {}", opening.location)));
                    }
                    let root = self
                        .roots
                        .get(&(owner, request.layer))
                        .ok_or_else(|| bad("no root for that layer".into()))?;
                    if let Err(e) = layout::verify_opening(root, request.location.key(), opening) {
                        return Err(
                            match self.opens_other_layer(owner, request.layer, opening) {
                                Some(layer) => {
                                    other(format!("the {layer} leaf at {}", opening.location))
                                }
                                None => bad(e.to_string()),
                            },
                        );
                    }
                    Content(opening.content)
                }
                (false, OpenedFact::Note { commitment, .. }) => {
                    return Err(other(format!(
                        "a note for opportunity {} (a layout fact is answered by a leaf)",
                        commitment.seq
                    )))
                }
            };
            self.scenario
                .check_content(request.layer, &content)
                .map_err(|e| bad(e.to_string()))?;
            self.facts_got.push(Fact {
                request: *request,
                content,
            });
        }
        self.next_openings()
    }

    fn start_round(&mut self, specs: Vec<DiceSpec>) -> Result<(), RefereeError> {
        let current = self.current.expect("dice are asked during an action");
        let secret_roller = specs.iter().find_map(|s| match s.kind {
            DiceKind::SecretDr { roller } => Some(roller),
            _ => None,
        });
        if secret_roller.is_some() && specs.len() != 1 {
            return Err(RefereeError::BadRoll(
                "a Secret dr must be rolled alone".into(),
            ));
        }
        if secret_roller.is_some() {
            // A Secret dr never uses a window (its roller withholds its
            // entry): the window's unused positions are burned first.
            if let Some(w) = self.window.take() {
                self.next_roll = self.next_roll.max(w.end());
            }
        }
        let k = self.next_roll;
        let schedule = PadSchedule {
            n: self.genesis.pad_len,
            ..PadSchedule::default()
        };
        let position = schedule
            .position(k)
            .map_err(|e| RefereeError::BadRoll(e.to_string()))?;
        // The pads of this epoch must all be committed before any entry of
        // it is released: renew first, then roll (DESIGN 3.4).
        let missing: Vec<Party> = Party::ALL
            .into_iter()
            .filter(|p| self.pads.get(p).map_or(0, Vec::len) <= position.epoch as usize)
            .collect();
        if !missing.is_empty() {
            self.renewal_specs = Some(specs);
            self.awaiting = Awaiting::Renewal {
                epoch: position.epoch,
                missing,
            };
            return Ok(());
        }
        let epoch = position.epoch as usize;
        let request = RollRequest {
            game_id: self.game_id,
            k,
            action_hash: current.hash,
            actor: party_of(secret_roller.unwrap_or(current.actor)),
            kind: if secret_roller.is_some() {
                RollKind::Secret
            } else {
                RollKind::Public
            },
        };
        let statements = [
            self.pads[&Party::A][epoch],
            self.pads[&Party::B][epoch],
            self.pads[&Party::Server][epoch],
        ];
        let nonce = current
            .nonce
            .filter(|_| secret_roller.is_none() && position.epoch < current.epochs_at_declare);
        let beacon = match nonce {
            Some(nonce) => BeaconRound::with_nonce(request, position, statements, nonce),
            None => BeaconRound::new(request, position, statements),
        }
        .map_err(|e| RefereeError::BadRoll(e.to_string()))?;
        // Message version 4: the opponent's entry comes from its window,
        // released with its openings or asked for now (PROTOCOL.md 7.1).
        let window_ask = if nonce.is_some() {
            self.window_due()
        } else {
            None
        };
        self.next_roll += 1;
        self.round = Some(Round {
            beacon,
            specs,
            secret: secret_roller.is_some(),
        });
        if let Some(ask) = window_ask {
            self.awaiting = Awaiting::Window {
                party: party_of(current.actor.opponent()),
                k: ask.k,
                count: ask.count,
            };
            return Ok(());
        }
        if nonce.is_some() {
            let status = self.submit_from_window(k)?;
            debug_assert_eq!(status, RoundStatus::Awaiting(Party::Server));
        }
        self.await_round()
    }

    fn await_round(&mut self) -> Result<(), RefereeError> {
        let round = self.round.as_ref().expect("a round is running");
        let k = round.beacon.request().k;
        self.awaiting = match round.beacon.status() {
            RoundStatus::Awaiting(Party::Server) => Awaiting::ServerRoll { k },
            RoundStatus::Awaiting(party) => Awaiting::Entry { party, k },
            RoundStatus::SecretPending { roller } => Awaiting::Entry { party: roller, k },
            RoundStatus::Complete(_) => unreachable!("complete rounds are consumed at once"),
        };
        Ok(())
    }

    fn accept_pad_entry(
        &mut self,
        k: u64,
        entry: &crate::pad::PadEntry,
    ) -> Result<(Vec<Roll>, bool), RefereeError> {
        let round = self
            .round
            .as_mut()
            .expect("entries are asked during a round");
        debug_assert_eq!(round.beacon.request().k, k);
        let status = round.beacon.submit(entry)?;
        self.after_status(status)
    }

    fn accept_server_roll(
        &mut self,
        k: u64,
        record: &RollRecord,
    ) -> Result<(Vec<Roll>, bool), RefereeError> {
        let current = self.current.expect("rolls serve an action");
        if record.k != k || record.action_seq != current.seq {
            return Err(RefereeError::BadRoll(format!(
                "record is for roll {} of entry {}, expected roll {k} of entry {}",
                record.k, record.action_seq, current.seq
            )));
        }
        let round = self.round.as_mut().expect("a round is running");
        let status = round.beacon.submit(&record.server_entry)?;
        let expected = match status {
            RoundStatus::Complete(seed) => draw(&seed, &round.specs),
            _ => Vec::new(),
        };
        if record.dice != expected {
            return Err(RefereeError::BadRoll(format!(
                "record says {:?}, the beacon gives {expected:?}",
                record.dice
            )));
        }
        self.after_status(status)
    }

    fn after_status(&mut self, status: RoundStatus) -> Result<(Vec<Roll>, bool), RefereeError> {
        match status {
            RoundStatus::Complete(seed) => {
                let round = self.round.take().expect("a round is running");
                let dice = draw(&seed, &round.specs);
                if self.engine.is_none() {
                    // A setup roll (ASL: the Secret dr for extra Dummies,
                    // B28.47): the ruleset reads it at start and audit.
                    let current = self.current.take().expect("a roll serves an entry");
                    self.setup_rolls
                        .entry(current.actor)
                        .or_default()
                        .extend(dice.iter().copied());
                    self.next_setup_roll()?;
                    return Ok((dice, round.secret));
                }
                let step = self
                    .engine
                    .as_mut()
                    .expect("rolls happen during play")
                    .provide_dice(dice.clone());
                self.advance(void_if_refused(step)?)?;
                Ok((dice, round.secret))
            }
            _ => {
                self.await_round()?;
                Ok((Vec::new(), false))
            }
        }
    }

    fn after_ruling(&mut self, events: &[Event]) {
        // The window's unused positions are burned: no later roll uses an
        // entry released before its action was declared (PROTOCOL.md 7.1).
        if let Some(w) = self.window.take() {
            self.next_roll = self.next_roll.max(w.end());
        }
        self.transitions_due = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Transition {
                    request,
                    new_content,
                } if self.is_eligible(request) => Some((*request, *new_content)),
                _ => None,
            })
            .collect();
        self.next_transitions();
    }

    fn next_transitions(&mut self) {
        if let Some((first, _)) = self.transitions_due.first().copied() {
            let list: Vec<(FactRequest, Content)> = self
                .transitions_due
                .iter()
                .take_while(|(r, _)| r.owner == first.owner)
                .copied()
                .collect();
            self.awaiting = Awaiting::Transitions {
                owner: first.owner,
                list,
                escrowed: self.escrowed(),
            };
            return;
        }
        self.current = None;
        let engine = self.engine.as_ref().expect("rulings happen during play");
        self.awaiting = match engine.outcome() {
            Some(result) => Awaiting::End {
                result: EndRecord {
                    winner: result.winner,
                    reason: result.reason,
                },
            },
            None => Awaiting::Action {
                actor: engine.to_act(),
            },
        };
    }

    fn accept_transitions(
        &mut self,
        owner: Side,
        list: &[(FactRequest, Content)],
        transitions: &[layout::Transition],
    ) -> Result<(), RefereeError> {
        if transitions.len() != list.len() {
            return Err(RefereeError::WrongCount {
                expected: list.len(),
                got: transitions.len(),
            });
        }
        for (index, ((request, new_content), t)) in list.iter().zip(transitions).enumerate() {
            let bad = |reason: String| RefereeError::BadTransition {
                index,
                request: *request,
                reason,
            };
            let other = |reason: String| RefereeError::OtherRequest {
                index,
                request: *request,
                reason,
            };
            if t.new_content != new_content.0 {
                return Err(other(format!(
                    "a transition to {:?}, not the ruled {new_content:?}",
                    Content(t.new_content)
                )));
            }
            if t.old.location != request.location.key() {
                return Err(other(format!("a transition at {}", t.old.location)));
            }
            let root = self
                .roots
                .get(&(owner, request.layer))
                .ok_or_else(|| bad("no root for that layer".into()))?;
            let new_root = match layout::verify_transition(root, request.location.key(), t) {
                Ok(root) => root,
                Err(e) => {
                    return Err(match self.opens_other_layer(owner, request.layer, &t.old) {
                        Some(layer) => other(format!(
                            "a transition of the {layer} leaf at {}",
                            t.old.location
                        )),
                        None => bad(e.to_string()),
                    })
                }
            };
            self.roots.insert((owner, request.layer), new_root);
        }
        self.transitions_due.drain(..list.len());
        self.next_transitions();
        Ok(())
    }

    /// Checks a side's published secrets against its commitments (G1, G5).
    /// Anything wrong is a fault of that side; the entry stays in the log.
    fn accept_reveal(&mut self, side: Side, seq: u64, reveal: &RevealBody) {
        let party = party_of(side);
        let mut problems = Vec::new();
        if let Some(setup) = self.setups.get(&side) {
            problems = self.layer_problems(side, setup, &reveal.layers);
            for committed in self.pads.get(&party).map(Vec::as_slice).unwrap_or(&[]) {
                match Pad::new(
                    reveal.pad_seed,
                    self.game_id,
                    party,
                    committed.epoch,
                    committed.n,
                ) {
                    Ok(pad) if pad.statement().root == committed.root => {}
                    _ => problems.push(format!(
                        "the revealed pad seed does not give the pad of epoch {} (G2)",
                        committed.epoch
                    )),
                }
            }
        }
        self.reveals.insert(side, reveal.clone());
        self.faults
            .extend(problems.into_iter().map(|what| Fault { side, seq, what }));
    }

    /// What is wrong with `side`'s sealed layers given as seeds and setup
    /// contents (an end-of-game reveal, or an escrow at setup), against the
    /// roots of its setup: every committed layer is given and re-seals to
    /// its root (G1); every content decodes, fits its layer and sits at an
    /// eligible location, every eligible location is given (G3); and the
    /// whole is a legal setup for the OB (B28.1, B28.45-47, B28.5, B28.9).
    fn layer_problems(&self, side: Side, setup: &SideSetup, layers: &[LayerReveal]) -> Vec<String> {
        let party = party_of(side);
        let mut problems = Vec::new();
        for (layer, root) in &setup.setup_roots {
            let Some(lr) = layers.iter().find(|l| l.layer == layer.name()) else {
                problems.push(format!("layer {layer} was not given"));
                continue;
            };
            let sealed = SealedLayout::seal(
                self.game_id,
                party,
                layer.name(),
                lr.contents.clone(),
                crate::layout::LayoutSeed(lr.seed),
            );
            match sealed {
                Ok(sealed) if sealed.statement().root == root.root => {}
                Ok(_) => problems.push(format!(
                    "layer {layer}: the contents and seed do not give the root committed at setup (G1)"
                )),
                Err(e) => problems.push(format!("layer {layer}: {e}")),
            }
        }
        // A leaf that does not decode or does not fit is an illegal setup,
        // never silently dropped (B28.1, B28.5, G3).
        let mut contents: Vec<(Layer, Location, Content)> = Vec::new();
        let mut seen = Vec::new();
        let sealed_layers = self.scenario.sealed_layers();
        for lr in layers {
            let Some(layer) = sealed_layers.iter().copied().find(|l| l.name() == lr.layer) else {
                problems.push(format!("unknown layer {:?}", lr.layer));
                continue;
            };
            if seen.contains(&layer) {
                problems.push(format!("layer {layer} is given twice"));
                continue;
            }
            seen.push(layer);
            let eligible = self.eligible(side, layer);
            let mut keys: Vec<&str> = Vec::with_capacity(lr.contents.len());
            for (key, bytes) in &lr.contents {
                keys.push(key);
                let Ok(location) = Location::key_of(key) else {
                    problems.push(format!("layer {layer}: {key:?} is not a location"));
                    continue;
                };
                let content = Content(*bytes);
                match self.scenario.check_content(layer, &content) {
                    Ok(()) => contents.push((layer, location, content)),
                    Err(e) => problems.push(format!("layer {layer} at {key}: {e}")),
                }
            }
            keys.sort_unstable();
            let mut expected: Vec<&str> = eligible.iter().map(Location::key).collect();
            expected.sort_unstable();
            if keys != expected {
                problems.push(format!(
                    "layer {layer}: the locations given are not exactly the {} eligible ones (G3)",
                    expected.len()
                ));
            }
        }
        let rolls = self
            .setup_rolls
            .get(&side)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for violation in self
            .scenario
            .layout_problems(setup.public.as_ref(), &contents, rolls)
        {
            problems.push(format!("illegal setup: {violation}"));
        }
        problems
    }
}

/// The most problems a refusal lists; the rest are counted. A refusal is
/// one message to its sender, which must fit a frame (G6: a clear error,
/// never one too big to send).
pub const MAX_LISTED_PROBLEMS: usize = 16;

/// `problems`, at most [`MAX_LISTED_PROBLEMS`] of them, each cut to a
/// line's length, then how many more there were.
fn listed(problems: Vec<String>) -> Vec<String> {
    const LINE: usize = 200;
    let more = problems.len().saturating_sub(MAX_LISTED_PROBLEMS);
    let mut out: Vec<String> = problems
        .into_iter()
        .take(MAX_LISTED_PROBLEMS)
        .map(|p| match p.char_indices().nth(LINE) {
            Some((cut, _)) => format!("{}...", &p[..cut]),
            None => p,
        })
        .collect();
    if more > 0 {
        out.push(format!("and {more} more problem(s)"));
    }
    out
}

/// A refusal of the engine after facts or dice were given ends the action
/// as a void ruling: nothing changes in the game, the rolls are spent and
/// the log moves on, so no party is left waiting for an answer that would
/// be refused again (G2, G6). Other errors are the referee's own bugs.
fn void_if_refused(step: Result<Step, hexveil_core::ActionError>) -> Result<Step, RefereeError> {
    match step {
        Ok(step) => Ok(step),
        Err(hexveil_core::ActionError::Refused(e)) => Ok(Step::Done(vec![Event {
            to: hexveil_core::Visibility::Public,
            kind: EventKind::Void {
                reason: e.to_string(),
            },
            cite: e.cite,
        }])),
        Err(other) => Err(other.into()),
    }
}

/// Draws the dice of a round from its seed, in request order (DESIGN 3.4).
pub fn draw(seed: &crate::beacon::RollSeed, specs: &[DiceSpec]) -> Vec<Roll> {
    let mut stream = DiceStream::new(seed);
    specs
        .iter()
        .map(|s| match s.kind {
            DiceKind::Dr | DiceKind::SecretDr { .. } => Roll::Dr(stream.d6()),
            DiceKind::DR => {
                let dr = stream.dr();
                Roll::DR {
                    coloured: dr.coloured,
                    white: dr.white,
                }
            }
            DiceKind::Percentile => {
                let p = stream.percentile();
                Roll::Percentile {
                    tens: p.tens,
                    units: p.units,
                }
            }
        })
        .collect()
}
