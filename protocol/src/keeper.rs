//! The keeper of one side's sealed facts: its sealed layouts, its notes
//! (ASL: Daisy Chains) and the standing orders that write them. It answers
//! the referee's requests for openings and transitions (DESIGN 3.1, 3.2).
//!
//! The owner's [`Player`](crate::player::Player) runs a keeper in Live mode.
//! In Escrow mode (DESIGN 3.6) the server's session runs one built from the
//! owner's [`EscrowBody`](crate::message::EscrowBody). Both run the same
//! code, so an escrowed game's answers are the ones the owner would have
//! given. The keeper is deterministic: answers depend only on the secrets,
//! the requests and the enemy actions it has observed. A session restored
//! after a crash therefore reaches the same state by replaying the log.

use crate::encoding::GameId;
use crate::layout::{LayoutSeed, RootStatement, SealedLayout, Transition};
use crate::message::{party_of, EscrowBody, LayerReveal, OpenedFact};
use crate::note::{NoteBook, NoteContent, NotesSeed};
use hexveil_core::{Content, FactRequest, Layer, Orders, Scenario, Side};
use std::collections::BTreeMap;

/// Why a keeper could not be built or could not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeeperError {
    /// A layer name is not one of the ruleset's sealed layers.
    #[error("{0:?} is not a sealed layer of this ruleset")]
    UnknownLayer(String),
    /// The same layer was given twice.
    #[error("layer {0} is given twice")]
    RepeatedLayer(Layer),
    /// A layout could not be sealed, opened or changed.
    #[error("layer {layer}: {reason}")]
    Layout {
        /// The layer.
        layer: Layer,
        /// What the layout said.
        reason: String,
    },
    /// A request is for the other side's facts.
    #[error("{0} is not this side's to open")]
    NotOurs(String),
    /// A request is for a layer this side did not seal.
    #[error("this side sealed no layout for layer {0}")]
    NoLayout(Layer),
    /// A note asked for a location that is not an opportunity.
    #[error("a note is asked for {0}, which is not an opportunity")]
    NotAnOpportunity(String),
    /// The standing orders are not valid for the ruleset.
    #[error("standing orders: {}", .0.join("; "))]
    Orders(Vec<String>),
    /// The server holds no escrow for this side (DESIGN 3.6).
    #[error("the server holds no escrow for side {0}")]
    NoEscrow(Side),
    /// The keeper is for a server party.
    #[error("only a player's facts can be kept")]
    ServerSide,
}

/// One side's sealed facts and the means to answer for them. Its `Debug`
/// shows no secret (seeds, contents, orders), so a log line or a panic
/// message never carries an owner's escrow (G3, G4).
#[derive(Clone)]
pub struct Keeper {
    side: Side,
    layouts: BTreeMap<Layer, SealedLayout>,
    notes: NoteBook,
    /// The layer answered by notes, if the ruleset has one.
    note_layer: Option<Layer>,
    /// The standing orders that decide each note (the ruleset's).
    orders: Box<dyn Orders>,
}

impl std::fmt::Debug for Keeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keeper")
            .field("side", &self.side)
            .field("layers", &self.layouts.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Keeper {
    /// The escrow agent of `side` (DESIGN 3.6): the keeper built from the
    /// owner's escrow, exactly as the owner's own machine would build it.
    pub fn from_escrow(
        game_id: GameId,
        scenario: &dyn Scenario,
        side: Side,
        escrow: &EscrowBody,
    ) -> Result<Keeper, KeeperError> {
        Keeper::new(
            game_id,
            scenario,
            side,
            &escrow.layers,
            NotesSeed(escrow.notes_seed),
            &escrow.orders,
        )
    }

    /// Seals `side`'s layers of game `game_id` from their seeds and setup
    /// contents (one [`LayerReveal`] per sealed layer that has eligible
    /// locations), with the notes seed and the standing orders (the
    /// ruleset's encoding; empty for none).
    pub fn new(
        game_id: GameId,
        scenario: &dyn Scenario,
        side: Side,
        layers: &[LayerReveal],
        notes_seed: NotesSeed,
        orders: &[u8],
    ) -> Result<Keeper, KeeperError> {
        let party = party_of(side);
        let sealed = scenario.sealed_layers();
        let mut layouts = BTreeMap::new();
        for reveal in layers {
            let layer = sealed
                .iter()
                .copied()
                .find(|l| l.name() == reveal.layer)
                .ok_or_else(|| KeeperError::UnknownLayer(reveal.layer.clone()))?;
            if layouts.contains_key(&layer) {
                return Err(KeeperError::RepeatedLayer(layer));
            }
            let layout = SealedLayout::seal(
                game_id,
                party,
                layer.name(),
                reveal.contents.clone(),
                LayoutSeed(reveal.seed),
            )
            .map_err(|e| KeeperError::Layout {
                layer,
                reason: e.to_string(),
            })?;
            layouts.insert(layer, layout);
        }
        let notes =
            NoteBook::new(game_id, party, notes_seed).map_err(|_| KeeperError::ServerSide)?;
        let orders = scenario.orders(side, orders).map_err(KeeperError::Orders)?;
        Ok(Keeper {
            side,
            layouts,
            notes,
            note_layer: scenario.note_layer(),
            orders,
        })
    }

    /// The side whose facts these are.
    pub fn side(&self) -> Side {
        self.side
    }

    /// The root statements to commit at setup, one per sealed layer.
    pub fn roots(&self) -> Vec<RootStatement> {
        self.layouts.values().map(SealedLayout::statement).collect()
    }

    /// Takes note of an action declared by `actor` (the ruleset's bytes);
    /// an enemy action is what the standing orders react to.
    pub fn observe(&mut self, actor: Side, action: &[u8]) {
        self.orders.observe(actor, action);
    }

    /// The layer answered by notes, if the ruleset has one.
    pub fn note_layer(&self) -> Option<Layer> {
        self.note_layer
    }

    /// Opens requested leaves of the sealed layouts, in order, changing
    /// nothing: a request for a note is refused (see [`Keeper::open`]).
    pub fn open_leaves(&self, requests: &[FactRequest]) -> Result<Vec<OpenedFact>, KeeperError> {
        requests.iter().map(|r| self.open_leaf(r)).collect()
    }

    fn open_leaf(&self, r: &FactRequest) -> Result<OpenedFact, KeeperError> {
        if r.owner != self.side {
            return Err(KeeperError::NotOurs(r.to_string()));
        }
        if Some(r.layer) == self.note_layer {
            return Err(KeeperError::NotAnOpportunity(r.location.to_string()));
        }
        self.layout(r.layer)?
            .open(r.location.key())
            .map(OpenedFact::Leaf)
            .map_err(|e| KeeperError::Layout {
                layer: r.layer,
                reason: e.to_string(),
            })
    }

    /// Opens the requested facts, in order: a leaf of a sealed layout, or a
    /// note for an opportunity (real or null, decided by the standing
    /// orders).
    pub fn open(&mut self, requests: &[FactRequest]) -> Result<Vec<OpenedFact>, KeeperError> {
        requests
            .iter()
            .map(|r| {
                if r.owner != self.side {
                    return Err(KeeperError::NotOurs(r.to_string()));
                }
                if Some(r.layer) == self.note_layer {
                    let n = r
                        .location
                        .as_opportunity()
                        .ok_or_else(|| KeeperError::NotAnOpportunity(r.location.to_string()))?;
                    let content = self.orders.note(n);
                    let (commitment, opening) = self
                        .notes
                        .seal(u64::from(n), NoteContent::from_content(&content));
                    return Ok(OpenedFact::Note {
                        commitment,
                        opening,
                    });
                }
                self.open_leaf(r)
            })
            .collect()
    }

    /// Commits the contents the referee ruled, in order.
    pub fn transitions(
        &mut self,
        list: &[(FactRequest, Content)],
    ) -> Result<Vec<Transition>, KeeperError> {
        list.iter()
            .map(|(r, new)| {
                if r.owner != self.side {
                    return Err(KeeperError::NotOurs(r.to_string()));
                }
                let layer = r.layer;
                self.layouts
                    .get_mut(&layer)
                    .ok_or(KeeperError::NoLayout(layer))?
                    .transition(r.location.key(), new.0)
                    .map_err(|e| KeeperError::Layout {
                        layer,
                        reason: e.to_string(),
                    })
            })
            .collect()
    }

    fn layout(&self, layer: Layer) -> Result<&SealedLayout, KeeperError> {
        self.layouts.get(&layer).ok_or(KeeperError::NoLayout(layer))
    }
}
