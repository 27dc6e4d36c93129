//! What the rules may ask of an owner during an action, from the public
//! state one side knows (issue 24, [`hexveil_core::Observer`]).
//!
//! Placeholder while the observer is being written: asks nothing.

use crate::side::Side;
use hexveil_core as kernel;

/// One side's picture of an ASL game (placeholder).
#[derive(Clone, Debug)]
pub struct AslObserver {
    viewer: Side,
}

/// A fresh observer for `viewer`.
pub fn observer(viewer: Side) -> Box<dyn kernel::Observer> {
    Box::new(AslObserver { viewer })
}

impl kernel::Observer for AslObserver {
    fn setup(&mut self, _: &dyn kernel::PublicSetup) {}
    fn declared(&mut self, _: Side, _: &[u8]) {}
    fn event(&mut self, _: &kernel::Event) {}
    fn asks(&self, _: Side, _: &[u8], _: Side) -> kernel::Asks {
        let _ = self.viewer;
        kernel::Asks::none()
    }
    fn clone_box(&self) -> Box<dyn kernel::Observer> {
        Box::new(self.clone())
    }
}
