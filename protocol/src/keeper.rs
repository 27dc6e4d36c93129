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
use crate::encoding::Party;
use crate::layout::{LayoutSeed, RootStatement, SealedLayout, Transition};
use crate::message::{party_of, side_of, Body, EscrowBody, LayerReveal, OpenedFact, SetupBody};
use crate::note::{NoteBook, NoteContent, NotesSeed, NOTE_LEN};
use crate::referee::{Accepted, Awaiting, Referee, SEALED_LAYERS};
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

/// One side's sealed facts and the means to answer for them. Its `Debug`
/// shows no secret (seeds, contents, orders), so a log line or a panic
/// message never carries an owner's escrow (G3, G4).
#[derive(Clone)]
pub struct Keeper {
    side: Side,
    layouts: BTreeMap<Layer, SealedLayout>,
    notes: NoteBook,
    orders: Vec<DaisyOrder>,
    /// Units of the scenario that are vehicles (a Daisy Chain is pulled
    /// only across a vehicle, B28.531).
    vehicles: BTreeSet<UnitId>,
    /// The map, to compare hexes by their canonical names: a seam hex has
    /// two names, and an enemy must not dodge a standing order by naming
    /// its move's hex by the other board.
    map: hexveil_core::map::Map,
    /// The last enemy action observed, for standing orders.
    last_enemy_action: Option<Action>,
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
        scenario: &Scenario,
        side: Side,
        escrow: &EscrowBody,
    ) -> Result<Keeper, KeeperError> {
        Keeper::new(
            game_id,
            scenario,
            side,
            &escrow.layers,
            NotesSeed(escrow.notes_seed),
            escrow.daisy_orders.clone(),
        )
    }

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
        let orders = orders
            .into_iter()
            .map(|o| DaisyOrder {
                holder: o.holder,
                hex: scenario.map.canonical(o.hex),
            })
            .collect();
        Ok(Keeper {
            side,
            layouts,
            notes,
            orders,
            vehicles,
            map: scenario.map.clone(),
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

    /// The standing orders not yet carried out (hexes by canonical name).
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
        let to = self.map.canonical(*to);
        let Some(i) = self.orders.iter().position(|o| o.hex == to) else {
            return DaisyNote::Nothing;
        };
        let order = self.orders.remove(i);
        DaisyNote::Placed {
            holder: order.holder,
            hex: order.hex,
        }
    }
}

/// What is wrong with `side`'s Daisy Chain standing orders (B28.531): each
/// must name one of `side`'s own units that holds a Daisy Chain and a hex
/// of the map, and no order may be given twice. Checked by the referee when
/// an escrow is sent (DESIGN 3.6) and by the owner's machine when it is
/// made, so a mistyped order is a clear error at once rather than a chain
/// that silently never moves.
pub fn order_problems(scenario: &Scenario, side: Side, orders: &[DaisyOrder]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen: BTreeSet<(UnitId, Hex)> = BTreeSet::new();
    for order in orders {
        match scenario.units.get(usize::from(order.holder.0)) {
            None => problems.push(format!(
                "side {side}'s standing order for unit {}: no such unit in the scenario",
                order.holder
            )),
            Some(u) if u.side != side => problems.push(format!(
                "side {side}'s standing order for {}: not side {side}'s unit (B28.531)",
                u.name
            )),
            Some(u) if u.daisy_chain.is_none() => problems.push(format!(
                "side {side}'s standing order for {}: it holds no Daisy Chain (B28.531)",
                u.name
            )),
            Some(_) => {}
        }
        if scenario.map.names(order.hex).is_empty() {
            problems.push(format!(
                "side {side}'s standing order for hex {}: not a hex of the map",
                order.hex
            ));
        }
        if !seen.insert((order.holder, scenario.map.canonical(order.hex))) {
            problems.push(format!(
                "side {side}'s standing order for unit {} in {} is given twice",
                order.holder, order.hex
            ));
        }
    }
    problems
}

/// The server's escrow agents (DESIGN 3.6): the keeper of every owner who
/// escrowed its secrets, kept in step with the log. The live session asks
/// them for the answers the server writes; a restored session and the
/// offline verifier check every answer the server wrote against theirs, so
/// a server that departs from an owner's escrow (a Daisy Chain note its
/// standing orders did not give, G1) is caught (G5).
#[derive(Clone, Debug, Default)]
pub struct EscrowAgents {
    keepers: BTreeMap<Side, Keeper>,
}

/// A server entry that is not what the escrow agent answers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EscrowError {
    /// The agent could not answer at all.
    #[error("the escrow agent of side {side} cannot answer: {reason}")]
    Agent {
        /// The owner.
        side: Side,
        /// The keeper's reason.
        reason: KeeperError,
    },
    /// The server wrote something else than the agent's answer.
    #[error("the server's {body} for side {side} is not what side {side}'s escrow gives (G1)")]
    Departed {
        /// The owner.
        side: Side,
        /// What the server wrote.
        body: &'static str,
    },
}

impl EscrowAgents {
    /// Keeps the agents in step with an accepted entry: a setup's escrow
    /// starts its owner's agent, an action is seen by every agent (standing
    /// orders react to enemy moves, B28.531).
    pub fn follow(&mut self, referee: &Referee, accepted: &Accepted) -> Result<(), EscrowError> {
        match (&accepted.body, side_of(accepted.author)) {
            (
                Body::Setup(SetupBody {
                    escrow: Some(escrow),
                    ..
                }),
                Some(side),
            ) => {
                let keeper =
                    Keeper::from_escrow(referee.game_id(), referee.scenario(), side, escrow)
                        .map_err(|reason| EscrowError::Agent { side, reason })?;
                self.keepers.insert(side, keeper);
            }
            (Body::Act(action), Some(actor)) => {
                for keeper in self.keepers.values_mut() {
                    keeper.observe(actor, action);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The owner the referee awaits the server's answer for, if it awaits
    /// an escrowed opening or transition.
    fn owner(awaiting: &Awaiting) -> Option<Side> {
        match awaiting {
            Awaiting::Openings {
                owner,
                escrowed: true,
                ..
            }
            | Awaiting::Transitions {
                owner,
                escrowed: true,
                ..
            } => Some(*owner),
            _ => None,
        }
    }

    /// The agent's answer to what the referee awaits, if it awaits the
    /// server for an escrowed owner. The agent moves on (an order carried
    /// out, a leaf changed): call this once per answer written.
    pub fn answer(&mut self, awaiting: &Awaiting) -> Option<Result<Body, EscrowError>> {
        let side = Self::owner(awaiting)?;
        let agent = |reason| EscrowError::Agent { side, reason };
        let Some(keeper) = self.keepers.get_mut(&side) else {
            return Some(Err(agent(KeeperError::NoEscrow(side))));
        };
        match awaiting {
            Awaiting::Openings { requests, .. } => {
                Some(keeper.open(requests).map(Body::Open).map_err(agent))
            }
            Awaiting::Transitions { list, .. } => Some(
                keeper
                    .transitions(list)
                    .map(Body::Transitions)
                    .map_err(agent),
            ),
            _ => None,
        }
    }

    /// Checks an entry by `author` with `body_bytes`, about to be given to
    /// the referee that awaits `awaiting`: if it is the server's openings
    /// or transitions for an escrowed owner, it must be exactly the agent's
    /// answer (the agent is deterministic, so an honest server's answer is
    /// the same). The agent moves on as it answers. Anything else (a body
    /// that does not decode, an entry out of turn) is left to the referee.
    pub fn check(
        &mut self,
        awaiting: &Awaiting,
        author: Option<Party>,
        body_bytes: &[u8],
    ) -> Result<(), EscrowError> {
        let Some(side) = Self::owner(awaiting) else {
            return Ok(());
        };
        if author != Some(Party::Server) {
            return Ok(());
        }
        let Ok(body) = Body::decode(body_bytes) else {
            return Ok(());
        };
        if !matches!(body, Body::Open(_) | Body::Transitions(_)) {
            return Ok(());
        }
        match self.answer(awaiting) {
            Some(Ok(expected)) if expected == body => Ok(()),
            Some(Err(e)) => Err(e),
            _ => Err(EscrowError::Departed {
                side,
                body: body.name(),
            }),
        }
    }
}
