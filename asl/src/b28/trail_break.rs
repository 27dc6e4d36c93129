//! Trail Breaks through minefields (B28.61, B28.7).
//!
//! A TB is a path through a hex between two of its hexsides, each named by
//! the ADJACENT hex across it ([`crate::model::state::TrailBreak`]). A unit leaving
//! a minefield hex across a TB hexside is not attacked; a unit entering
//! across a TB hexside is not attacked only when it pays twice the cost,
//! which it declares with [`crate::model::action::MoveMode::TrailBreak`] (B28.61
//! EX). The engine does not track MF/MP, so the doubled cost is the mover's
//! declared mode.

use crate::board::hex::Hex;
use crate::model::state::{GameState, TrailBreak};

/// Whether a TB in `hex` crosses the hexside shared with `neighbour`.
pub fn crosses(state: &GameState, hex: Hex, neighbour: Hex) -> bool {
    state
        .mines
        .trail_breaks
        .get(&hex)
        .is_some_and(|tbs| tbs.iter().any(|tb| tb.crosses(neighbour)))
}

/// Places a TB in `hex` between the hexsides shared with `a` and `b`
/// (idempotent). Returns whether it is new.
pub fn place(state: &mut GameState, hex: Hex, a: Hex, b: Hex) -> bool {
    let mut ends = [a, b];
    ends.sort();
    let tb = TrailBreak { ends };
    let list = state.mines.trail_breaks.entry(hex).or_default();
    if list.contains(&tb) {
        false
    } else {
        list.push(tb);
        true
    }
}

/// The hex straight across `hex` from `from` (the hexside opposite the one
/// crossed), on the same board, if it exists.
pub fn opposite(hex: Hex, from: Hex) -> Option<Hex> {
    let (x, y) = hex.local_xy();
    let (fx, fy) = from.local_xy();
    let (nx, ny) = (2 * x - fx, 2 * y - fy);
    if !(0..=32).contains(&nx) {
        return None;
    }
    let col = nx as u8;
    let ny = ny + if col.is_multiple_of(2) { 1 } else { 0 };
    if ny < 0 || ny % 2 != 0 {
        return None;
    }
    Hex::new(hex.board, col, (ny / 2) as u8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b28_61_tb_crosses_its_two_hexsides_only() {
        let mut s = crate::model::state::GameState {
            turn: 1,
            phasing: crate::side::Side::A,
            phase: crate::model::phase::Phase::Movement,
            units: Default::default(),
            elr: Default::default(),
            markers: Default::default(),
            referee_knows: Default::default(),
            mines: Default::default(),
            extra_dummies: Default::default(),
            daisy_chains: Vec::new(),
            control: Default::default(),
            mf_spent: Default::default(),
            ordnance: Default::default(),
            consumed: Default::default(),
            opportunities: 0,
            result: None,
        };
        let h: Hex = "4E5".parse().unwrap();
        let a: Hex = "4E4".parse().unwrap();
        let b: Hex = "4E6".parse().unwrap();
        assert_eq!(opposite(h, a), Some(b));
        assert!(place(&mut s, h, a, b));
        assert!(!place(&mut s, h, b, a), "same TB twice");
        assert!(crosses(&s, h, a) && crosses(&s, h, b));
        assert!(!crosses(&s, h, "4D5".parse().unwrap()));
    }
}
