//! What the rules may ask of an owner during an action, from the public
//! state one side knows (issue 24, [`hexveil_core::Observer`]).
//!
//! Interim bound, being tightened: every eligible leaf of the owner.

use crate::side::Side;
use hexveil_core as kernel;
use std::sync::Arc;

/// One side's picture of an ASL game (interim: the public setups only).
#[derive(Clone, Debug)]
pub struct AslObserver {
    scenario: crate::ruleset::AslScenario,
    publics: Vec<Arc<dyn kernel::PublicSetup>>,
}

/// A fresh observer for `viewer`.
pub fn observer(
    scenario: &crate::ruleset::AslScenario,
    _viewer: Side,
) -> Box<dyn kernel::Observer> {
    Box::new(AslObserver {
        scenario: scenario.clone(),
        publics: Vec::new(),
    })
}

impl kernel::Observer for AslObserver {
    fn setup(&mut self, public: &dyn kernel::PublicSetup) {
        let side = public.side();
        if let Some(asl) = public.as_any().downcast_ref::<crate::ruleset::AslPublic>() {
            self.publics.retain(|p| p.side() != side);
            self.publics.push(Arc::new(asl.clone()));
        }
    }
    fn declared(&mut self, _: Side, _: &[u8]) {}
    fn event(&mut self, _: &kernel::Event) {}
    fn asks(&self, _: Side, action: &[u8], owner: Side) -> kernel::Asks {
        let mut asks = kernel::Asks {
            notes: u32::MAX,
            // B28.47: the only Secret dr of play.
            secret_roll: matches!(
                crate::ruleset::decode_action(action),
                Ok(crate::model::action::Action::DummyDr)
            ),
            ..kernel::Asks::none()
        };
        for p in self.publics.iter().filter(|p| p.side() == owner) {
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
