//! The keeper of one side's sealed facts: its sealed layouts, its Daisy
//! Chain notes and its standing orders. It answers the referee's requests
//! for openings and transitions (DESIGN 3.1, 3.2).
//!
//! The owner's [`Player`](crate::player::Player) runs a keeper in Live mode.
//! In Escrow mode (DESIGN 3.6) the server's session runs one built from the
//! owner's [`EscrowBody`](crate::message::EscrowBody). Both run the same
//! code, so an escrowed game's answers are the ones the owner would have
//! given. The keeper is deterministic: answers depend only on the secrets,
//! the requests and the enemy actions it has observed. A session restored
//! after a crash therefore reaches the same state by replaying the log.

use crate::content::{self, CONTENT_LEN};
use crate::encoding::GameId;
use crate::layout::{LayoutSeed, RootStatement, SealedLayout, Transition};
use crate::message::{party_of, LayerReveal, OpenedFact};
use crate::note::{NoteBook, NoteContent, NotesSeed, NOTE_LEN};
use crate::referee::SEALED_LAYERS;
use hexveil_core::hex::Hex;
use hexveil_core::scenario::Scenario;
use hexveil_core::sealed::DaisyNote;
use hexveil_core::unit::UnitId;
use hexveil_core::{Action, Content, FactRequest, Layer, Location, Side};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A standing order for a Daisy Chain (B28.531): when an enemy vehicle
/// moves into `hex`, `holder` pulls its chain across that hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaisyOrder {
    /// The Infantry unit holding the Daisy Chain.
    pub holder: UnitId,
    /// The hex to watch.
    pub hex: Hex,
}

/// Why a keeper could not be built or could not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeeperError {
    /// A layer name is not one of the sealed layers.
    #[error("{0:?} is not a sealed layer (ap, at, booby)")]
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
    /// The server holds no escrow for this side (DESIGN 3.6).
    #[error("the server holds no escrow for side {0}")]
    NoEscrow(Side),
    /// The keeper is for a server party.
    #[error("only a player's facts can be kept")]
    ServerSide,
}

/// One side's sealed facts and the means to answer for them.
#[derive(Clone, Debug)]
pub struct Keeper {
    side: Side,
    layouts: BTreeMap<Layer, SealedLayout>,
    notes: NoteBook,
    orders: Vec<DaisyOrder>,
    /// Units of the scenario that are vehicles (a Daisy Chain is pulled
    /// only across a vehicle, B28.531).
    vehicles: BTreeSet<UnitId>,
    /// The last enemy action observed, for standing orders.
    last_enemy_action: Option<Action>,
}

impl Keeper {
    /// Seals `side`'s layers of game `game_id` from their seeds and setup
    /// contents (one [`LayerReveal`] per sealed layer that has eligible
    /// locations), with the notes seed and the standing orders.
    pub fn new(
        game_id: GameId,
        scenario: &Scenario,
        side: Side,
        layers: &[LayerReveal],
        notes_seed: NotesSeed,
        orders: Vec<DaisyOrder>,
    ) -> Result<Keeper, KeeperError> {
        let party = party_of(side);
        let mut layouts = BTreeMap::new();
        for reveal in layers {
            let layer = SEALED_LAYERS
                .into_iter()
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
        let vehicles = scenario
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.vehicle().is_some())
            .filter_map(|(i, _)| u16::try_from(i).ok().map(UnitId))
            .collect();
        Ok(Keeper {
            side,
            layouts,
            notes,
            orders,
            vehicles,
            last_enemy_action: None,
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

    /// The standing orders not yet carried out.
    pub fn orders(&self) -> &[DaisyOrder] {
        &self.orders
    }

    /// Takes note of an action declared by `actor`; an enemy action is what
    /// the standing orders react to.
    pub fn observe(&mut self, actor: Side, action: &Action) {
        if actor != self.side {
            self.last_enemy_action = Some(action.clone());
        }
    }

    /// Opens the requested facts, in order: a leaf of a sealed layout, or a
    /// Daisy Chain note for an opportunity (real or null, decided by the
    /// standing orders).
    pub fn open(&mut self, requests: &[FactRequest]) -> Result<Vec<OpenedFact>, KeeperError> {
        requests
            .iter()
            .map(|r| {
                if r.owner != self.side {
                    return Err(KeeperError::NotOurs(r.to_string()));
                }
                match (r.layer, r.location) {
                    (Layer::DaisyChain, Location::Opportunity(n)) => {
                        let content = Content::Daisy(self.daisy_decision());
                        let mut bytes = [0u8; NOTE_LEN];
                        bytes[..CONTENT_LEN].copy_from_slice(&content::encode(&content));
                        let (commitment, opening) =
                            self.notes.seal(u64::from(n), NoteContent(bytes));
                        Ok(OpenedFact::Note {
                            commitment,
                            opening,
                        })
                    }
                    (layer, location) => self
                        .layout(layer)?
                        .open(&location.key())
                        .map(OpenedFact::Leaf)
                        .map_err(|e| KeeperError::Layout {
                            layer,
                            reason: e.to_string(),
                        }),
                }
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
                    .transition(&r.location.key(), content::encode(new))
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

    /// The standing orders' answer at a Daisy Chain opportunity: place on
    /// the first enemy vehicle moving into a watched hex (B28.531). An
    /// order is carried out once.
    fn daisy_decision(&mut self) -> DaisyNote {
        let Some(Action::Move { units, to, .. }) = &self.last_enemy_action else {
            return DaisyNote::Nothing;
        };
        if !units.iter().any(|u| self.vehicles.contains(u)) {
            return DaisyNote::Nothing;
        }
        let Some(i) = self.orders.iter().position(|o| o.hex == *to) else {
            return DaisyNote::Nothing;
        };
        let order = self.orders.remove(i);
        DaisyNote::Placed {
            holder: order.holder,
            hex: order.hex,
        }
    }
}
