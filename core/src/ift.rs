//! The Infantry Fire Table (A7.3) and its Vehicle line (A7.308).

use serde::{Deserialize, Serialize};

/// A result read on the IFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IftResult {
    /// nKIA (A7.301).
    Kia(u8),
    /// K/n (A7.302).
    K(u8),
    /// nMC (A7.303).
    Mc(u8),
    /// NMC (A7.304).
    Nmc,
    /// PTC (A7.305).
    Ptc,
    /// No effect.
    NoEffect,
}
