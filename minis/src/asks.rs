//! What the rules may ask of an owner during an action, from the public
//! state one side knows (issue 24, [`hexveil_core::Observer`]).
//!
//! Interim bound, being tightened: every eligible leaf of the owner.

use crate::scenario::{MinisPublicSetup, MinisScenario};
use hexveil_core as kernel;
use hexveil_core::Side;
use std::sync::Arc;

/// One side's picture of a miniatures game (interim: the public setups).
#[derive(Clone, Debug)]
pub struct MinisObserver {
    scenario: MinisScenario,
    publics: Vec<Arc<MinisPublicSetup>>,
}

/// A fresh observer for `viewer`.
pub fn observer(scenario: &MinisScenario, _viewer: Side) -> Box<dyn kernel::Observer> {
    Box::new(MinisObserver {
        scenario: scenario.clone(),
        publics: Vec::new(),
    })
}

impl kernel::Observer for MinisObserver {
    fn setup(&mut self, public: &dyn kernel::PublicSetup) {
        if let Some(p) = public.as_any().downcast_ref::<MinisPublicSetup>() {
            self.publics.retain(|q| q.side != p.side);
            self.publics.push(Arc::new(p.clone()));
        }
    }
    fn declared(&mut self, _: Side, _: &[u8]) {}
    fn event(&mut self, _: &kernel::Event) {}
    fn asks(&self, _: Side, _: &[u8], owner: Side) -> kernel::Asks {
        let mut asks = kernel::Asks {
            notes: u32::MAX,
            secret_roll: false,
            ..kernel::Asks::none()
        };
        for p in self.publics.iter().filter(|p| p.side == owner) {
            for layer in kernel::Scenario::sealed_layers(&self.scenario) {
                for loc in kernel::Scenario::eligible(&self.scenario, p.as_ref(), layer) {
                    asks.add(layer, loc);
                }
            }
        }
        asks
    }
    fn clone_box(&self) -> Box<dyn kernel::Observer> {
        Box::new(self.clone())
    }
}
