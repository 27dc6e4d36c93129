//! Daisy Chain standing orders (B28.531, DESIGN 3.2): what a side's machine
//! (or the server's escrow agent, DESIGN 3.6) seals at each placement
//! opportunity, decided by orders the player gave beforehand, so that the
//! note is written at constant latency whatever it holds.

use crate::board::hex::Hex;
use crate::board::map::Map;
use crate::content;
use crate::model::action::Action;
use crate::model::scenario::Scenario;
use crate::model::sealed::{Content, DaisyNote};
use crate::model::unit::UnitId;
use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A standing order for a Daisy Chain (B28.531): when an enemy vehicle
/// moves into `hex`, `holder` pulls its chain across that hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaisyOrder {
    /// The Infantry unit holding the Daisy Chain.
    pub holder: UnitId,
    /// The hex to watch.
    pub hex: Hex,
}

/// The protocol's bytes of a list of orders (postcard; empty list = no
/// bytes at all, as every ruleset's "no orders").
pub fn encode(orders: &[DaisyOrder]) -> Vec<u8> {
    if orders.is_empty() {
        return Vec::new();
    }
    postcard::to_stdvec(orders).expect("postcard into a Vec cannot fail")
}

/// Orders from the protocol's bytes.
pub fn decode(bytes: &[u8]) -> Result<Vec<DaisyOrder>, String> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    // Canonical only (PROTOCOL.md 11, G5).
    match hexveil_core::canonical::decode::<Vec<DaisyOrder>>(bytes) {
        Ok(orders) if !orders.is_empty() => Ok(orders),
        Ok(_) => Err("an empty list of standing orders is written as no bytes".into()),
        Err(hexveil_core::canonical::CanonicalError::Trailing(n)) => {
            Err(format!("standing orders have {n} trailing bytes"))
        }
        Err(e) => Err(format!("standing orders {e}")),
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

/// A side's standing orders at work: it watches enemy actions and decides
/// each note. Its `Debug` shows no order (they are the owner's secret).
#[derive(Clone)]
pub struct DaisyOrders {
    side: Side,
    orders: Vec<DaisyOrder>,
    /// Units of the scenario that are vehicles (a Daisy Chain is pulled
    /// only across a vehicle, B28.531).
    vehicles: BTreeSet<UnitId>,
    /// The map, to compare hexes by their canonical names: a seam hex has
    /// two names, and an enemy must not dodge a standing order by naming
    /// its move's hex by the other board.
    map: Map,
    /// The last enemy action observed.
    last_enemy_action: Option<Action>,
}

impl std::fmt::Debug for DaisyOrders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DaisyOrders")
            .field("side", &self.side)
            .finish_non_exhaustive()
    }
}

impl DaisyOrders {
    /// `side`'s orders (checked with [`order_problems`] first).
    pub fn new(scenario: &Scenario, side: Side, orders: &[DaisyOrder]) -> DaisyOrders {
        let vehicles = scenario
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.vehicle().is_some())
            .filter_map(|(i, _)| u16::try_from(i).ok().map(UnitId))
            .collect();
        DaisyOrders {
            side,
            orders: orders
                .iter()
                .map(|o| DaisyOrder {
                    holder: o.holder,
                    hex: scenario.map.canonical(o.hex),
                })
                .collect(),
            vehicles,
            map: scenario.map.clone(),
            last_enemy_action: None,
        }
    }

    /// The orders not yet carried out (hexes by canonical name).
    pub fn pending(&self) -> &[DaisyOrder] {
        &self.orders
    }

    /// The standing orders' answer at a Daisy Chain opportunity: place on
    /// the first enemy vehicle moving into a watched hex (B28.531). An
    /// order is carried out once.
    fn decision(&mut self) -> DaisyNote {
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

impl hexveil_core::Orders for DaisyOrders {
    fn observe(&mut self, actor: Side, action: &[u8]) {
        if actor != self.side {
            // An action that does not decode was refused by the engine and
            // is not in the game; it changes nothing here either.
            self.last_enemy_action = crate::model::action::decode_action(action).ok();
        }
    }

    fn note(&mut self, _n: u32) -> hexveil_core::Content {
        content::to_kernel(&Content::Daisy(self.decision()))
    }

    fn clone_box(&self) -> Box<dyn hexveil_core::Orders> {
        Box::new(self.clone())
    }
}
