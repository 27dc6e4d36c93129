//! A player's side of the protocol, sans-IO: it keeps the player's secrets
//! and answers every machine prompt of the referee by itself (pad
//! statement, setup, openings, pad entries, transitions, Daisy Chain notes
//! from standing orders, the final reveal), so that neither the size, the
//! count nor the timing of its answers depends on what it hides (G3,
//! DESIGN 3.2). Openings and transitions come from its [`Keeper`], the same
//! code the server runs for an owner who escrowed its secrets (DESIGN 3.6).
//! Actions are the human's (or a bot's) to choose: [`Player::act`].
//!
//! The CLI, the demo's bots and the end-to-end tests all use this type.

use crate::encoding::{Digest, GameId, Party};
use crate::envelope::{Envelope, SignedEnvelope, ENVELOPE_VERSION};
use crate::envelope::{Receipt, Refusal};
use crate::evidence::{Evidence, Shown, ViewProof};
use crate::guard::Guard;
use crate::identity::Identity;
use crate::keeper::{Keeper, KeeperError};
use crate::message::{
    encode, party_of, side_of, Body, Declare, EscrowBody, LayerReveal, Logged, LoggedEntry, Mode,
    OpenAhead, OpenedFact, Prompt, RevealBody, SetupBody, Update, MAX_WINDOW,
};
use crate::note::NotesSeed;
use crate::pad::{Pad, PadSeed};
use crate::reading::LogReading;
use crate::witness::{Breach, Checked, Seen, Witness};
use hexveil_core::{FactRequest, Layer, Ruleset, Side};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything a player must keep to play and to prove its play; written to
/// disk by the client before any commitment is sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Secrets {
    /// The player's side.
    pub side: Side,
    /// The public setup, as TOML.
    pub public_setup_toml: String,
    /// The sealed setup, as TOML.
    pub sealed_setup_toml: String,
    /// One seed per sealed layer, by layer name.
    pub layout_seeds: BTreeMap<String, [u8; 32]>,
    /// The notes seed (Daisy Chain notes).
    pub notes_seed: [u8; 32],
    /// The pad seed.
    pub pad_seed: [u8; 32],
    /// Standing orders for the side's notes, in the ruleset's encoding
    /// (ASL: Daisy Chain orders, B28.531); empty for none.
    pub orders: Vec<u8>,
}

impl Secrets {
    /// Fresh secrets with seeds from the system's random generator: one
    /// layout seed for each of `layers` (the scenario's sealed layers).
    pub fn generate(
        side: Side,
        layers: &[Layer],
        public_setup_toml: String,
        sealed_setup_toml: String,
        orders: Vec<u8>,
    ) -> Result<Secrets, PlayerError> {
        let mut layout_seeds = BTreeMap::new();
        for layer in layers {
            layout_seeds.insert(layer.name().to_string(), random32()?);
        }
        Ok(Secrets {
            side,
            public_setup_toml,
            sealed_setup_toml,
            layout_seeds,
            notes_seed: random32()?,
            pad_seed: random32()?,
            orders,
        })
    }
}

fn cannot(e: KeeperError) -> PlayerError {
    PlayerError::CannotAnswer(e.to_string())
}

/// 32 bytes from the system's random generator (ring `SystemRandom`).
pub fn random32() -> Result<[u8; 32], PlayerError> {
    use ring::rand::SecureRandom;
    let mut out = [0u8; 32];
    ring::rand::SystemRandom::new()
        .fill(&mut out)
        .map_err(|_| PlayerError::Random)?;
    Ok(out)
}

/// Why a player could not be set up or could not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The system's random generator failed.
    #[error("the system random generator failed")]
    Random,
    /// The scenario does not parse.
    #[error("scenario: {0}")]
    Scenario(String),
    /// The public or sealed setup does not parse or is illegal.
    #[error("setup: {0}")]
    Setup(String),
    /// A layout could not be sealed or opened.
    #[error("layout: {0}")]
    Layout(String),
    /// The referee asked for something this player cannot answer.
    #[error("cannot answer: {0}")]
    CannotAnswer(String),
    /// The server sent what this player cannot bind to the log: a fork,
    /// an unsigned or contradicted view, a gap (issue 24).
    #[error("{0}")]
    Breach(Breach),
}

/// One player's protocol state.
pub struct Player {
    identity: Identity,
    side: Side,
    game_id: GameId,
    secrets: Secrets,
    /// Live or Escrow: what this player agreed to (DESIGN 3.6).
    mode: Mode,
    /// The sealed layouts, notes and standing orders; answers openings and
    /// transitions in a Live game.
    keeper: Keeper,
    /// Every sealed layer's seed and setup contents: the end-of-game reveal,
    /// and the escrow of an Escrow game.
    layers: Vec<LayerReveal>,
    pad: Pad,
    /// Pads of epochs after 0 (renewal).
    later_pads: BTreeMap<u32, Pad>,
    /// The log as this player checked it: the next entry goes on top of
    /// its head (issue 24).
    witness: Witness,
    /// What the rules can ask of this player now (issue 24).
    guard: Guard,
    /// Who the checked log says is awaited (issue 27 item 1).
    reading: LogReading,
    /// The answer sent last and not yet seen in the log, with what it
    /// changes once the log shows it accepted (commit after acceptance).
    pending: Option<Pending>,
    /// The ruleset (id, version) this player set up for.
    ruleset: (String, u32),
    /// SHA-256 of the scenario text this player set up for.
    scenario_hash: Digest,
    /// The pad length this player's pad was built with.
    pad_len: u32,
    /// Whether the game's genesis was seen and its terms (scenario, pad
    /// length, mode) found to be the ones agreed to.
    terms_checked: bool,
    /// Why the game's terms were refused, if they were: nothing is
    /// answered in such a game, ever.
    refused: Option<String>,
    /// The game's message version, from its genesis: 4 declares actions
    /// with a nonce and rolls in windows (PROTOCOL.md 7.1).
    message_version: u16,
}

/// An answer sent and not yet seen in the log.
#[derive(Debug)]
struct Pending {
    /// Its seq and hash.
    seq: u64,
    entry_hash: Digest,
    /// The keeper as it is once the answer is accepted (a note decided by
    /// the standing orders, a leaf changed), if the answer changes it.
    keeper: Option<Keeper>,
    /// The facts it opens.
    opened: Vec<FactRequest>,
}

/// What a player made of one update.
#[derive(Debug)]
pub struct Heard {
    /// The update as checked against the log ([`Witness`]), to show: what
    /// it says of an entry the player holds is read from the entry.
    pub update: Update,
    /// A player's entry that came before this update without a receipt
    /// (message version 6), held until this update placed it: new too,
    /// and shown first.
    pub placed: Option<Update>,
    /// Whether the entry was seen before (a resync sends some again):
    /// nothing new to act on.
    pub again: bool,
    /// The entry that answers its prompt, to send, if the prompt asks a
    /// machine answer the rules can ask now.
    pub answer: Option<SignedEnvelope>,
    /// A prompt this player refused: the rules cannot ask it now.
    pub refused: Option<RefusedPrompt>,
}

/// A prompt a player refused, with nothing released (issue 24).
#[derive(Debug, Clone)]
pub struct RefusedPrompt {
    /// The entry whose update asked it.
    pub seq: u64,
    /// What the server asked and why the rules cannot ask it, in words.
    pub reason: String,
    /// The server's signed prompt: with the game's transcript, it proves
    /// what the server asked against it (`hexveil verify --proof`).
    pub evidence: Option<Evidence>,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("side", &self.side)
            .field("next_seq", &self.witness.next_seq())
            .finish_non_exhaustive()
    }
}

impl Player {
    /// A player of `side` in game `game_id` of `scenario_toml` under
    /// `ruleset`, in a game of `mode` with pads of `pad_len` entries: the
    /// terms this player agreed to, checked against the game's genesis
    /// before anything is committed.
    pub fn new(
        identity: Identity,
        game_id: GameId,
        ruleset: &dyn Ruleset,
        scenario_toml: &str,
        pad_len: u32,
        mode: Mode,
        secrets: Secrets,
    ) -> Result<Player, PlayerError> {
        let side = secrets.side;
        let party = party_of(side);
        let scenario = ruleset.load(scenario_toml).map_err(PlayerError::Scenario)?;
        let public = scenario
            .public_setup(side, &secrets.public_setup_toml)
            .map_err(PlayerError::Setup)?;
        let sealed = scenario
            .sealed_contents(public.as_ref(), &secrets.sealed_setup_toml)
            .map_err(PlayerError::Setup)?;
        // Orders that cannot mean anything (ASL: no such unit, a hex off
        // the map, the same order twice) are refused here rather than by
        // the referee at setup, when the escrow would be refused (B28.531,
        // DESIGN 3.6).
        if let Err(problems) = scenario.orders(side, &secrets.orders) {
            return Err(PlayerError::Setup(problems.join("; ")));
        }
        let mut layers = Vec::new();
        for (layer, contents) in sealed {
            if contents.is_empty() {
                continue;
            }
            let seed = secrets
                .layout_seeds
                .get(layer.name())
                .ok_or_else(|| PlayerError::Layout(format!("no seed for layer {layer}")))?;
            layers.push(LayerReveal {
                layer: layer.name().to_string(),
                seed: *seed,
                contents: contents
                    .into_iter()
                    .map(|(loc, c)| (loc.key().to_string(), c.0))
                    .collect(),
            });
        }
        let keeper = Keeper::new(
            game_id,
            scenario.as_ref(),
            side,
            &layers,
            NotesSeed(secrets.notes_seed),
            &secrets.orders,
        )
        .map_err(|e| PlayerError::Layout(e.to_string()))?;
        let pad = Pad::new(PadSeed(secrets.pad_seed), game_id, party, 0, pad_len)
            .map_err(|e| PlayerError::Layout(e.to_string()))?;
        Ok(Player {
            identity,
            side,
            game_id,
            secrets,
            mode,
            keeper,
            layers,
            pad,
            later_pads: BTreeMap::new(),
            witness: Witness::new(game_id, Some(side)),
            guard: Guard::new(side, mode, scenario, pad_len),
            reading: LogReading::new(),
            pending: None,
            ruleset: (ruleset.id().to_string(), ruleset.version()),
            scenario_hash: Digest::sha256(scenario_toml.as_bytes()),
            pad_len,
            terms_checked: false,
            refused: None,
            message_version: crate::message::MESSAGE_VERSION,
        })
    }

    /// The player's side.
    pub fn side(&self) -> Side {
        self.side
    }

    /// The secrets (to write to disk).
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// Takes an update from the server; returns the entry that answers its
    /// prompt, if the prompt asks a machine answer (anything but an
    /// action). A prompt the rules cannot ask now is an error
    /// ([`PlayerError::CannotAnswer`]); see [`Player::hear`] for the
    /// checked update and the evidence.
    pub fn on_update(&mut self, update: &Update) -> Result<Option<SignedEnvelope>, PlayerError> {
        let Some(heard) = self.hear(update)? else {
            return Ok(None);
        };
        match heard.refused {
            Some(r) => Err(PlayerError::CannotAnswer(r.reason)),
            None => Ok(heard.answer),
        }
    }

    /// Takes an update from the server: checks it against the log this
    /// player holds ([`Witness`]) before anything else, follows it, and
    /// answers its prompt only if the rules, replayed over that log and
    /// this player's own facts, can ask it now ([`Guard`], issue 24).
    /// `None` while the update is held ([`Seen::Held`]): nothing of it
    /// is shown or answered until the next update places it.
    pub fn hear(&mut self, update: &Update) -> Result<Option<Heard>, PlayerError> {
        if let Some(why) = &self.refused {
            return Err(PlayerError::CannotAnswer(format!(
                "this player refused the game's terms: {why}"
            )));
        }
        let mut new = match self.witness.check(update).map_err(PlayerError::Breach)? {
            // Seen before. Its prompt is answered again only if it is the
            // latest and nothing of this player's is pending: the server
            // shows it again after refusing an answer (one it asked
            // falsely, say), and the guard decides from the state after
            // it, which is the current one.
            Seen::Again(c) => {
                let latest = c.update.seq + 1 == self.witness.next_seq();
                let mut heard = if latest && self.pending.is_none() {
                    self.prompted(c.update)?
                } else {
                    Heard {
                        update: c.update,
                        placed: None,
                        answer: None,
                        refused: None,
                        again: true,
                    }
                };
                heard.again = true;
                return Ok(Some(heard));
            }
            Seen::Held { .. } => return Ok(None),
            Seen::New(new) => new,
        };
        let last = new.pop().expect("a new update gives its entry");
        // The entry this update placed: followed like any, its prompt (a
        // wait: the server's entry followed it) not answered.
        let placed = match new.pop() {
            Some(held) => {
                self.follow(&held)?;
                Some(held.update)
            }
            None => None,
        };
        self.follow(&last)?;
        let mut heard = self.prompted(last.update)?;
        heard.placed = placed;
        Ok(Some(heard))
    }

    /// Follows a new entry of the checked log: the game's terms at the
    /// genesis, this player's pending answer, standing orders, the guard
    /// and the reading.
    fn follow(&mut self, checked: &Checked) -> Result<(), PlayerError> {
        if let Some(Body::Genesis(genesis)) = &checked.body {
            if let Err(why) = self.check_terms(genesis) {
                self.refused = Some(why.clone());
                return Err(PlayerError::CannotAnswer(why));
            }
            self.terms_checked = true;
            self.message_version = genesis.message_version;
        }
        self.settle(checked);
        if let (Some(body), Some(actor)) = (&checked.body, side_of(checked.author)) {
            if let Some(action) = body.declared_action() {
                // Standing orders react to signed, chained actions only.
                self.keeper.observe(actor, action);
            }
        }
        self.guard.follow(checked).map_err(PlayerError::Breach)?;
        self.reading.follow(checked);
        Ok(())
    }

    /// Answers the prompt of a checked update, if the rules can ask it now.
    fn prompted(&mut self, update: Update) -> Result<Heard, PlayerError> {
        if let Err(reason) = self.guard.allow(&update) {
            let evidence = update.attest.as_deref().map(|receipt| {
                Evidence::View(Box::new(ViewProof {
                    receipt: *receipt,
                    audience: Some(self.side),
                    shown: Some(Shown::of(&update)),
                    entry: match &update.logged {
                        Logged::Full { envelope, receipt } => Some(LoggedEntry {
                            envelope: (**envelope).clone(),
                            receipt: receipt.as_deref().copied(),
                        }),
                        _ => None,
                    },
                }))
            });
            let refused = RefusedPrompt {
                seq: update.seq,
                reason: format!(
                    "the server asked side {} for {}: {reason}; nothing was released",
                    self.side,
                    describe_prompt(&update.prompt)
                ),
                evidence,
            };
            return Ok(Heard {
                update,
                placed: None,
                answer: None,
                refused: Some(refused),
                again: false,
            });
        }
        let answer = self.answer(&update.prompt)?;
        Ok(Heard {
            update,
            placed: None,
            answer,
            refused: None,
            again: false,
        })
    }

    /// The entry answering `prompt`, which the guard allowed; what it
    /// changes of the keeper waits for the log to accept it.
    fn answer(&mut self, prompt: &Prompt) -> Result<Option<SignedEnvelope>, PlayerError> {
        let mut keeper = None;
        let mut opened = Vec::new();
        let body = match prompt {
            Prompt::Pad => Some(Body::Pad(self.pad.statement())),
            // The setup commits the layouts and, in an Escrow game, hands
            // the server the owner's secrets: never before the genesis
            // showed that this is the game agreed to (G4, DESIGN 3.6).
            Prompt::Setup if !self.terms_checked => {
                return Err(PlayerError::CannotAnswer(
                    "asked for a setup before the game's genesis was seen: its mode, scenario and pads are unchecked, so nothing is committed".into(),
                ))
            }
            Prompt::Setup => Some(Body::Setup(self.setup_body())),
            Prompt::Open(requests) => {
                let (openings, next) = self.open(requests)?;
                keeper = next;
                opened = requests.clone();
                Some(Body::Open(openings))
            }
            Prompt::Entry { k } => Some(Body::Entry(self.pad_entry(*k)?)),
            Prompt::Window { k, count } => Some(Body::Entries(self.window(*k, *count)?)),
            Prompt::OpenAhead { requests, k, count } => {
                let (openings, next) = self.open(requests)?;
                keeper = next;
                opened = requests.clone();
                Some(Body::OpenAhead(OpenAhead {
                    openings,
                    entries: self.window(*k, *count)?,
                }))
            }
            Prompt::RenewPad { epoch } => Some(Body::Pad(self.pad_for(*epoch)?.statement())),
            Prompt::Transitions(list) => {
                let mut next = self.keeper.clone();
                let transitions = next.transitions(list).map_err(cannot)?;
                keeper = Some(next);
                Some(Body::Transitions(transitions))
            }
            Prompt::Reveal => Some(Body::Reveal(self.reveal())),
            Prompt::Act | Prompt::Wait => None,
        };
        Ok(body.map(|b| {
            let env = self.sign(&b);
            self.pending = Some(Pending {
                seq: env.envelope().seq,
                entry_hash: env.entry_hash(),
                keeper,
                opened,
            });
            env
        }))
    }

    /// Openings of `requests`, and the keeper as it is once they are
    /// accepted if they change it (a note decided by the standing orders
    /// moves them on).
    fn open(
        &self,
        requests: &[FactRequest],
    ) -> Result<(Vec<OpenedFact>, Option<Keeper>), PlayerError> {
        let notes = self.keeper.note_layer();
        if requests.iter().any(|r| Some(r.layer) == notes) {
            let mut next = self.keeper.clone();
            let openings = next.open(requests).map_err(cannot)?;
            Ok((openings, Some(next)))
        } else {
            let openings = self.keeper.open_leaves(requests).map_err(cannot)?;
            Ok((openings, None))
        }
    }

    /// Commits what this player's pending answer changes once the log shows
    /// that very entry at its seq; drops it if the log shows another.
    fn settle(&mut self, checked: &Checked) {
        let Some(p) = &self.pending else { return };
        if checked.update.seq < p.seq {
            return;
        }
        let p = self.pending.take().expect("checked");
        if checked.update.seq == p.seq && checked.entry_hash == p.entry_hash {
            if let Some(keeper) = p.keeper {
                self.keeper = keeper;
            }
            self.guard.opened(&p.opened);
        }
    }

    /// Takes the server's receipt of one of this player's entries: it must
    /// be for an entry it sent and agree with every head the server gave
    /// before (else a fork proof, [`PlayerError::Breach`]).
    pub fn on_receipt(&mut self, receipt: &Receipt) -> Result<(), PlayerError> {
        self.witness.receipt(receipt).map_err(PlayerError::Breach)
    }

    /// Takes the server's refusal of one of this player's entries, once
    /// checked ([`Witness::refusal`]: signed by the game's server, for an
    /// entry this player sent): an answer refused changes nothing of what
    /// the player holds. A refusal that does not check is a breach, and
    /// changes nothing.
    pub fn on_refusal(&mut self, refusal: &Refusal) -> Result<(), PlayerError> {
        self.witness.refusal(refusal).map_err(PlayerError::Breach)?;
        if self
            .pending
            .as_ref()
            .is_some_and(|p| p.entry_hash == refusal.entry_hash)
        {
            self.pending = None;
        }
        Ok(())
    }

    /// The log as this player checked it: its head, and every statement of
    /// the server's it holds (kept as evidence).
    pub fn witness(&self) -> &Witness {
        &self.witness
    }

    /// Who the log this player checked says is awaited (issue 27 item 1):
    /// its own reading, not the server's word.
    pub fn reading(&self) -> &LogReading {
        &self.reading
    }

    /// Whether a game's genesis names the terms this player agreed to: the
    /// scenario, the pad length and the mode; if not, why.
    fn check_terms(&self, genesis: &crate::message::Genesis) -> Result<(), String> {
        // Commit nothing to a game set up on another ruleset, scenario or
        // pad.
        if (genesis.ruleset.as_str(), genesis.ruleset_version)
            != (self.ruleset.0.as_str(), self.ruleset.1)
        {
            return Err(format!(
                "the game is played under ruleset {} v{}, this player set up for {} v{}",
                genesis.ruleset, genesis.ruleset_version, self.ruleset.0, self.ruleset.1
            ));
        }
        if genesis.scenario_hash != self.scenario_hash {
            return Err(
                "the game's scenario is not the one this player set up for (its hash differs)"
                    .into(),
            );
        }
        if genesis.pad_len != self.pad_len {
            return Err(format!(
                "the game uses pads of {} entries, this player built {}",
                genesis.pad_len, self.pad_len
            ));
        }
        // Escrow weakens hiding from the server (G4): only by consent.
        if genesis.mode != self.mode {
            return Err(format!(
                "the game is in {:?} mode, this player agreed to {:?}",
                genesis.mode, self.mode
            ));
        }
        Ok(())
    }

    /// This player's pad entry for roll `k`.
    fn pad_entry(&mut self, k: u64) -> Result<crate::pad::PadEntry, PlayerError> {
        let position = crate::pad::PadSchedule {
            n: self.pad_len,
            ..crate::pad::PadSchedule::default()
        }
        .position(k)
        .map_err(|e| PlayerError::CannotAnswer(e.to_string()))?;
        self.pad_for(position.epoch)?
            .entry(position.index)
            .map_err(|e| PlayerError::CannotAnswer(e.to_string()))
    }

    /// This player's pad entries for the `count` rolls from roll `k` on
    /// (message version 4, PROTOCOL.md 7.1); at most [`MAX_WINDOW`].
    fn window(&mut self, k: u64, count: u32) -> Result<Vec<crate::pad::PadEntry>, PlayerError> {
        let last = k
            .checked_add(u64::from(count) - 1)
            .filter(|_| (1..=MAX_WINDOW).contains(&count));
        let epoch = |k: u64| k / u64::from(self.pad_len.max(1));
        match last {
            Some(last) if epoch(last) == epoch(k) => (k..=last).map(|k| self.pad_entry(k)).collect(),
            _ => Err(PlayerError::CannotAnswer(format!(
                "a window of {count} pad entries from roll {k} is asked; a window holds 1 to {MAX_WINDOW} entries of one epoch"
            ))),
        }
    }

    /// Signs an action (in the ruleset's encoding) on top of the last head
    /// seen: a [`Body::Declare`] with a fresh nonce in a game of message
    /// version 4 (PROTOCOL.md 7.1), a [`Body::Act`] in one of version 3.
    pub fn act(&mut self, action: impl Into<Vec<u8>>) -> Result<SignedEnvelope, PlayerError> {
        Ok(self.act_with_nonce(action, random32()?))
    }

    /// [`Player::act`] with a nonce of the caller's choosing, for drivers
    /// that must replay a game exactly (tests, benchmarks). Choosing it
    /// gains the actor nothing: the opponent's and the server's parts of
    /// each roll are released only after the action is declared (G2).
    pub fn act_with_nonce(
        &mut self,
        action: impl Into<Vec<u8>>,
        nonce: [u8; 32],
    ) -> SignedEnvelope {
        let action = action.into();
        let body = if self.message_version >= 4 {
            Body::Declare(Declare { action, nonce })
        } else {
            Body::Act(action)
        };
        self.sign(&body)
    }

    /// Signs a concession.
    pub fn concede(&mut self) -> SignedEnvelope {
        self.sign(&Body::Concede)
    }

    /// Signs any body on top of the last head seen (tests use this to
    /// misbehave on purpose).
    pub fn sign(&mut self, body: &Body) -> SignedEnvelope {
        let env = Envelope {
            version: ENVELOPE_VERSION,
            game_id: self.game_id,
            author: self.identity.public_key(),
            seq: self.witness.next_seq(),
            prev_head: self.witness.head(),
            body: encode(body),
        }
        .sign(&self.identity);
        self.witness.sent(&env);
        env
    }

    /// This player's pad of an epoch (epoch 0 built at the start, later
    /// ones from the same seed when renewal asks for them).
    fn pad_for(&mut self, epoch: u32) -> Result<&Pad, PlayerError> {
        if epoch == 0 {
            return Ok(&self.pad);
        }
        if !self.later_pads.contains_key(&epoch) {
            let pad = Pad::new(
                PadSeed(self.secrets.pad_seed),
                self.game_id,
                party_of(self.side),
                epoch,
                self.pad_len,
            )
            .map_err(|e| PlayerError::Layout(e.to_string()))?;
            self.later_pads.insert(epoch, pad);
        }
        Ok(&self.later_pads[&epoch])
    }

    fn setup_body(&self) -> SetupBody {
        SetupBody {
            public_setup_toml: self.secrets.public_setup_toml.clone(),
            roots: self.keeper.roots(),
            escrow: (self.mode == Mode::Escrow).then(|| EscrowBody {
                layers: self.layers.clone(),
                notes_seed: self.secrets.notes_seed,
                orders: self.secrets.orders.clone(),
            }),
        }
    }

    fn reveal(&self) -> RevealBody {
        RevealBody {
            layers: self.layers.clone(),
            notes_seed: self.secrets.notes_seed,
            pad_seed: PadSeed(self.secrets.pad_seed),
        }
    }

    /// The party of this player.
    pub fn party(&self) -> Party {
        party_of(self.side)
    }

    /// Checks these secrets against the commitments this seat made in the
    /// log, as a spectator reads it (issue 27 item 6): every pad statement
    /// the seat signed must be the one its pad seed gives, and its setup
    /// the one its setups and layout seeds give (compared whole when the
    /// entry is readable; an Escrow setup, sealed to spectators, by the
    /// hash of the entry these secrets sign at its place). Pure: nothing
    /// is sent and this player's own state does not move. Returns how many
    /// commitments were found and matched (0: the seat has committed to
    /// nothing the history shows yet).
    pub fn check_commitments(&mut self, history: &[Checked]) -> Result<usize, CommitmentMismatch> {
        let party = self.party();
        let mut matched = 0;
        for c in history.iter().filter(|c| c.author == party) {
            let seq = c.update.seq;
            let mismatch = |what: String| CommitmentMismatch { seq, what };
            match &c.body {
                Some(Body::Pad(logged)) => {
                    let ours = self
                        .pad_for(logged.epoch)
                        .map_err(|e| {
                            mismatch(format!("pad statement of epoch {}: {e}", logged.epoch))
                        })?
                        .statement();
                    if ours != *logged {
                        return Err(mismatch(format!(
                            "pad statement of epoch {}: the log holds root {}, these secrets give root {}",
                            logged.epoch, logged.root, ours.root
                        )));
                    }
                }
                Some(Body::Setup(logged)) => {
                    let ours = self.setup_body();
                    if ours.public_setup_toml != logged.public_setup_toml {
                        return Err(mismatch(
                            "setup: the public setup in the log is not the one in these secrets"
                                .into(),
                        ));
                    }
                    for (l, o) in logged.roots.iter().zip(&ours.roots) {
                        if l != o {
                            return Err(mismatch(format!(
                                "setup: layer {} has root {} in the log, these secrets give {}",
                                l.layer, l.root, o.root
                            )));
                        }
                    }
                    if logged.roots.len() != ours.roots.len() || *logged != ours {
                        return Err(mismatch(
                            "setup: the sealed layers or the escrow in the log are not the ones these secrets give".into(),
                        ));
                    }
                }
                None if c.update.entry == "setup" => {
                    let Some(attest) = c.update.attest.as_deref() else {
                        continue;
                    };
                    let ours = Envelope {
                        version: ENVELOPE_VERSION,
                        game_id: self.game_id,
                        author: self.identity.public_key(),
                        seq,
                        prev_head: attest.prev_head,
                        body: encode(&Body::Setup(self.setup_body())),
                    }
                    .sign(&self.identity)
                    .entry_hash();
                    if ours != c.entry_hash {
                        return Err(mismatch(
                            "setup (sealed to spectators): the entry these secrets sign there is not the one in the log".into(),
                        ));
                    }
                }
                _ => continue,
            }
            matched += 1;
        }
        Ok(matched)
    }
}

/// A commitment of a seat in the log that a player's secrets do not give
/// ([`Player::check_commitments`]): they are not the secrets the seat
/// committed to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("entry #{seq}, the seat's {what}")]
pub struct CommitmentMismatch {
    /// The log entry.
    pub seq: u64,
    /// What differs, in words.
    pub what: String,
}

/// A prompt in words, for a refusal.
fn describe_prompt(prompt: &Prompt) -> String {
    let facts = |requests: &[FactRequest]| {
        requests
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match prompt {
        Prompt::Open(requests) => format!("the openings of {}", facts(requests)),
        Prompt::OpenAhead { requests, k, count } => format!(
            "the openings of {} with its pad entries for rolls {k} to {}",
            facts(requests),
            k + u64::from(*count).saturating_sub(1)
        ),
        Prompt::Window { k, count } => format!(
            "its pad entries for rolls {k} to {}",
            k + u64::from(*count).saturating_sub(1)
        ),
        Prompt::Entry { k } => format!("its pad entry for roll {k}"),
        Prompt::Transitions(list) => format!(
            "transitions of {}",
            list.iter()
                .map(|(r, _)| r.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Prompt::Reveal => "all its secrets (the end-of-game reveal)".into(),
        other => format!("{other:?}"),
    }
}
