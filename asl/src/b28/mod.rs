//! B28 minefields, and the movement that sets them off: A-P and A-T mines,
//! Known minefields and Search, Trail Breaks, FFE, flails, clearance,
//! booby traps (B28.9) and Daisy Chains (B28.531). Depends on [`crate::a`],
//! [`crate::board`] and [`crate::model`].

pub mod at_mine;
pub mod booby_trap;
pub mod clearance;
pub mod daisy_chain;
pub mod data_needs;
pub mod ffe;
pub mod flail;
pub mod known;
pub mod minefield;
pub mod movement;
pub mod prc;
pub mod search;
pub mod trail_break;
