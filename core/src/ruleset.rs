//! The plug-in interface: everything the referee, the session, the keeper,
//! the verifier, the oracle and the client need from a ruleset, and
//! nothing else of the game.
//!
//! A [`Ruleset`] parses a scenario into a [`Scenario`]; the scenario knows
//! its sealed layers, the public eligible locations of each (one leaf each,
//! DESIGN 3.1), how to read a side's public and sealed setup, whether a
//! revealed layout is legal, and starts the [`Engine`]. Actions, events of
//! the ruleset's own, and standing orders travel as the ruleset's bytes;
//! the protocol never reads them. Like a Rally the Troops rules module or
//! a boardgame.io game object: the referee knows nothing else of the game.

use crate::dice::{DiceSpec, Roll};
use crate::engine::Engine;
use crate::fact::{Content, ContentError, FactRequest, Layer, Location};
use crate::observer::Observer;
use crate::side::Side;
use crate::tables::SuppliedTables;
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

/// A ruleset: a game's rules, named in every genesis so that the verifier
/// re-runs the same rules (G5).
pub trait Ruleset: Send + Sync + 'static {
    /// The ruleset's id in the genesis (`asl`, `minis`): lower-case ASCII.
    fn id(&self) -> &'static str;

    /// The ruleset's version: a new version whenever a ruling could change.
    fn version(&self) -> u32;

    /// What it is, in words (`ASL B28 minefields and A19`).
    fn title(&self) -> &'static str;

    /// Parses a scenario text (TOML), with its rules data.
    fn load(&self, scenario_text: &str) -> Result<Arc<dyn Scenario>, String>;
}

/// A side's public setup, parsed and checked by its ruleset. The protocol
/// keeps it and hands it back; only the ruleset reads it.
pub trait PublicSetup: Send + Sync + Debug {
    /// Whose setup it is.
    fn side(&self) -> Side;

    /// The ruleset's own type.
    fn as_any(&self) -> &dyn Any;
}

/// Every sealed layer's content at every eligible location, in eligible
/// order: what a side seals at setup.
pub type SealedContents = Vec<(Layer, Vec<(Location, Content)>)>;

/// A loaded scenario of one ruleset.
pub trait Scenario: Send + Sync + Debug {
    /// The scenario's name.
    fn name(&self) -> &str;

    /// The layers each side seals as layouts at setup, in commit order.
    fn sealed_layers(&self) -> Vec<Layer>;

    /// The layer answered by sealed notes, one per opportunity (ASL:
    /// Daisy Chains, B28.531), if the ruleset has one.
    fn note_layer(&self) -> Option<Layer>;

    /// A sealed fact in words for players, without its owner (`A-T mine
    /// record for 3E6`, `Daisy Chain opportunity 1`): what prompts, the
    /// wait line and timeout reasons name (issue 27). The default names the
    /// layer by its key ([`FactRequest::generic_words`]).
    fn fact_words(&self, request: &FactRequest) -> String {
        request.generic_words()
    }

    /// Whether `content` is a legal content of `layer` in this ruleset's
    /// encoding; if not, why. The referee refuses an opening whose content
    /// fails this and blames its author.
    fn check_content(&self, layer: Layer, content: &Content) -> Result<(), ContentError>;

    /// Parses `side`'s public setup text and checks it is that side's and
    /// legal.
    fn public_setup(&self, side: Side, text: &str) -> Result<Arc<dyn PublicSetup>, String>;

    /// The rolls a side makes once its pad is committed and before any
    /// setup (ASL: the Secret dr for extra Dummies, B28.47). Each is made
    /// in its own beacon round; their values reach [`Scenario::start`] and
    /// [`Scenario::layout_problems`].
    fn setup_rolls(&self, side: Side) -> Vec<DiceSpec>;

    /// Every location that could legally hold `layer` for the side of
    /// `public`, without repeats, in sealing order: its sealed layout has
    /// exactly one leaf for each (DESIGN 3.1). Public data only.
    fn eligible(&self, public: &dyn PublicSetup, layer: Layer) -> Vec<Location>;

    /// Whether `location` is one of [`Scenario::eligible`]'s, exactly (the
    /// same key, not an alias of it). The referee asks this for every fact
    /// request and keeps no list per game (issue 16: the lists were the
    /// largest part of an idle game's memory), so a ruleset answers it from
    /// its public data without building the whole list; this default
    /// builds it.
    fn is_eligible(&self, public: &dyn PublicSetup, layer: Layer, location: &Location) -> bool {
        self.eligible(public, layer).contains(location)
    }

    /// Reads a side's sealed setup text: every sealed layer with a content
    /// for each eligible location (in [`Scenario::eligible`] order), or
    /// what is wrong with the text.
    fn sealed_contents(
        &self,
        public: &dyn PublicSetup,
        sealed_text: &str,
    ) -> Result<SealedContents, String>;

    /// Every setup rule revealed contents break, in words (empty: legal).
    fn layout_problems(
        &self,
        public: &dyn PublicSetup,
        contents: &[(Layer, Location, Content)],
        setup_rolls: &[Roll],
    ) -> Vec<String>;

    /// The engine at the start of play, from both public setups (A, B) and
    /// each side's setup rolls.
    fn start(
        &self,
        publics: [&dyn PublicSetup; 2],
        setup_rolls: &BTreeMap<Side, Vec<Roll>>,
    ) -> Result<Box<dyn Engine>, String>;

    /// A side's standing orders for its notes (ASL: Daisy Chain orders,
    /// B28.531), from the ruleset's encoding of them; or every problem
    /// with them. Empty bytes are "no orders" in every ruleset.
    fn orders(&self, side: Side, orders: &[u8]) -> Result<Box<dyn Orders>, Vec<String>>;

    /// The rules-data tables the scenario supplies in place of the
    /// ruleset's own ([`crate::tables`], R12): the referee checks their
    /// pinned hashes at genesis and the verifier names them.
    fn supplied_tables(&self) -> &SuppliedTables {
        SuppliedTables::none()
    }

    /// At most how many public rolls `action` (in the ruleset's encoding)
    /// may take, judged from its bytes alone, which are public (G3): the
    /// length of the window of pad entries the action's opponent releases
    /// at once in a game of message version 4 (PROTOCOL.md 7.1). Too few
    /// costs round trips (another window is asked), too many burns pad
    /// entries; neither changes a ruling. The referee keeps it within
    /// 1..=16.
    fn rolls_ahead(&self, action: &[u8]) -> u32 {
        let _ = action;
        4
    }

    /// A fresh picture of a game of this scenario for the side `viewer`
    /// (before any setup): what that side's client folds from the log it
    /// is shown, to bound what the referee may ask of it (issue 24,
    /// [`Observer::asks`]).
    fn observer(&self, viewer: Side) -> Box<dyn Observer>;

    /// The ruleset's own scenario.
    fn as_any(&self) -> &dyn Any;
}

/// Standing orders that decide a side's note at each opportunity, by
/// machine, from what the enemy has done (DESIGN 3.2): deterministic, so
/// the owner's machine and an escrow agent answer the same.
pub trait Orders: Send + Sync + Debug {
    /// Takes note of an action declared by `actor` (the ruleset's bytes).
    fn observe(&mut self, actor: Side, action: &[u8]);

    /// The note to seal at opportunity `n`: a real one or the null one.
    fn note(&mut self, n: u32) -> Content;

    /// A copy.
    fn clone_box(&self) -> Box<dyn Orders>;
}

impl Clone for Box<dyn Orders> {
    fn clone(&self) -> Box<dyn Orders> {
        self.clone_box()
    }
}

/// Orders that never place anything: every note is the null one.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoOrders;

impl Orders for NoOrders {
    fn observe(&mut self, _: Side, _: &[u8]) {}
    fn note(&mut self, _: u32) -> Content {
        Content::EMPTY
    }
    fn clone_box(&self) -> Box<dyn Orders> {
        Box::new(*self)
    }
}

/// The rulesets a build knows, looked up by the id and version a genesis
/// names.
#[derive(Clone, Default)]
pub struct Registry {
    rulesets: Vec<Arc<dyn Ruleset>>,
}

/// A genesis names a ruleset this build does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ruleset {id:?} version {version} is not one this build knows (it knows: {known})")]
pub struct UnknownRuleset {
    /// The id asked for.
    pub id: String,
    /// The version asked for.
    pub version: u32,
    /// What the build has, `id vN` each.
    pub known: String,
}

impl Registry {
    /// A registry of these rulesets.
    pub fn new(rulesets: Vec<Arc<dyn Ruleset>>) -> Registry {
        Registry { rulesets }
    }

    /// The ruleset `id` at `version`.
    pub fn find(&self, id: &str, version: u32) -> Result<Arc<dyn Ruleset>, UnknownRuleset> {
        self.rulesets
            .iter()
            .find(|r| r.id() == id && r.version() == version)
            .cloned()
            .ok_or_else(|| UnknownRuleset {
                id: id.to_string(),
                version,
                known: self.known(),
            })
    }

    /// The newest version of ruleset `id`, for making a new game.
    pub fn latest(&self, id: &str) -> Result<Arc<dyn Ruleset>, UnknownRuleset> {
        self.rulesets
            .iter()
            .filter(|r| r.id() == id)
            .max_by_key(|r| r.version())
            .cloned()
            .ok_or_else(|| UnknownRuleset {
                id: id.to_string(),
                version: 0,
                known: self.known(),
            })
    }

    /// Every ruleset, `id vN`, comma-separated.
    pub fn known(&self) -> String {
        let v: Vec<String> = self
            .rulesets
            .iter()
            .map(|r| format!("{} v{}", r.id(), r.version()))
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    }
}

impl Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Registry({})", self.known())
    }
}

impl Debug for dyn Ruleset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ruleset({} v{})", self.id(), self.version())
    }
}
