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
use crate::identity::Identity;
use crate::keeper::{Keeper, KeeperError};
use crate::message::{
    encode, party_of, Body, Declare, EscrowBody, LayerReveal, Mode, OpenAhead, Prompt, RevealBody,
    SetupBody, Update, MAX_WINDOW,
};
use crate::note::NotesSeed;
use crate::pad::{Pad, PadSeed};
use crate::roll_count::RollCount;
use hexveil_core::{Layer, Ruleset, Side};
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
    /// The last (seq, head) seen: the next entry goes on top of it.
    head: Option<(u64, Digest)>,
    /// The last prompt answered, so a repeated update is not answered twice.
    answered: Option<u64>,
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
    /// The scenario, for the length of a window (`Scenario::rolls_ahead`).
    scenario: std::sync::Arc<dyn hexveil_core::Scenario>,
    /// The roll numbers as the public updates tell them: pad entries are
    /// released only for the roll the referee is at (G2).
    rolls: RollCount,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("side", &self.side)
            .field("head", &self.head)
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
            head: None,
            answered: None,
            ruleset: (ruleset.id().to_string(), ruleset.version()),
            scenario_hash: Digest::sha256(scenario_toml.as_bytes()),
            pad_len,
            terms_checked: false,
            refused: None,
            message_version: crate::message::MESSAGE_VERSION,
            scenario,
            rolls: RollCount::default(),
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
    /// prompt, if the prompt is a machine answer (anything but an action).
    pub fn on_update(&mut self, update: &Update) -> Result<Option<SignedEnvelope>, PlayerError> {
        if let Some(why) = &self.refused {
            return Err(PlayerError::CannotAnswer(format!(
                "this player refused the game's terms: {why}"
            )));
        }
        if let Some(genesis) = &update.genesis {
            if let Err(why) = self.check_terms(genesis) {
                self.refused = Some(why.clone());
                return Err(PlayerError::CannotAnswer(why));
            }
            self.terms_checked = true;
            self.message_version = genesis.message_version;
        }
        self.head = Some((update.seq, update.head));
        if let Some(declared) = &update.action {
            self.keeper.observe(declared.by, &declared.action);
        }
        self.rolls
            .observe(update, self.scenario.as_ref(), self.pad_len);
        if self.answered == Some(update.seq) {
            return Ok(None);
        }
        if let Some(why) = self
            .rolls
            .refuse(&update.prompt, self.scenario.as_ref(), self.pad_len)
        {
            return Err(PlayerError::CannotAnswer(format!(
                "{why}: no pad entry is released (G2, PROTOCOL.md 7.1)"
            )));
        }
        let body = match &update.prompt {
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
            Prompt::Open(requests) => Some(Body::Open(self.keeper.open(requests).map_err(cannot)?)),
            Prompt::Entry { k } => Some(Body::Entry(self.pad_entry(*k)?)),
            Prompt::Window { k, count } => Some(Body::Entries(self.window(*k, *count)?)),
            Prompt::OpenAhead { requests, k, count } => Some(Body::OpenAhead(OpenAhead {
                openings: self.keeper.open(requests).map_err(cannot)?,
                entries: self.window(*k, *count)?,
            })),
            Prompt::RenewPad { epoch } => Some(Body::Pad(self.pad_for(*epoch)?.statement())),
            Prompt::Transitions(list) => Some(Body::Transitions(
                self.keeper.transitions(list).map_err(cannot)?,
            )),
            Prompt::Reveal => Some(Body::Reveal(self.reveal())),
            Prompt::Act | Prompt::Wait => None,
        };
        Ok(body.map(|b| {
            self.answered = Some(update.seq);
            self.sign(&b)
        }))
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
        let (seq, head) = self.head.unwrap_or((0, Digest::ZERO));
        Envelope {
            version: ENVELOPE_VERSION,
            game_id: self.game_id,
            author: self.identity.public_key(),
            seq: seq + 1,
            prev_head: head,
            body: encode(body),
        }
        .sign(&self.identity)
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
}
