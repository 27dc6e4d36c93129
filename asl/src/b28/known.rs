//! Known Minefield counters, Dummies and the markers of found mines
//! (B28.45-B28.48).
//!
//! Public marker state lives in [`crate::model::state::HexMarkers`]: a Known
//! counter (`known_counter`), revealed presence and strength (`ap_revealed`,
//! `at_revealed`), and a Dummy marker on an unmined hex of a multi-hex Known
//! line (`dummy_marker`, B28.47 EXC). Whether a Known counter is a Dummy is
//! the A-P leaf's content [`crate::model::sealed::Content::Dummy`].

use crate::b28::minefield::{emit, request, FoundBy, MinefieldEvent};
use crate::board::hex::Hex;
use crate::model::event::Visibility;
use crate::model::resolve::{Ctx, Res};
use crate::model::sealed::{Content, Layer};
use crate::side::Side;

/// A Dummy Known Minefield was found in `hex` by a ground unit entering or
/// leaving it, or by a Search (B28.47): announced and removed; on a
/// multi-hex Known line the hex is marked with a Dummy marker instead.
/// Nothing is announced when the counter is already gone (found earlier).
pub fn dummy_found(ctx: &mut Ctx<'_>, owner: Side, hex: Hex, by: FoundBy) {
    // Every Known hex, lines included, carries the owner's counter until
    // it is found out (B28.45, B28.46).
    if ctx.state.markers(hex).known_counter != Some(owner) {
        return;
    }
    let entry = ctx.state.markers.entry(hex).or_default();
    entry.known_counter = None;
    entry.ap_revealed = None;
    entry.dummy_marker = entry.known_line;
    let marked = entry.dummy_marker;
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::DummyFound {
            hex,
            owner,
            by,
            marked,
        },
        &["B28.47"],
    );
}

/// Whether `hex` is a hex of an arrowed multi-hex Known line of `owner`
/// whose counter still stands (B28.46): public markers only.
pub fn on_known_line(ctx: &Ctx<'_>, owner: Side, hex: Hex) -> bool {
    let m = ctx.state.markers(hex);
    m.known_line && m.known_counter == Some(owner)
}

/// A ground unit entered or left a hex of `owner`'s arrowed Known line
/// (B28.46), as [`on_known_line`] said before the crossing's attacks:
/// whether the hex is unmined must be announced (B28.47), and an unmined
/// hex of a line is marked with a Dummy marker (B28.47 EXC). Both layers
/// are asked whatever the A-P leaf held (even a Dummy found just now), so
/// the openings depend on public facts only (G3); the referee already
/// holds any leaf opened for an attack, which is not asked again.
pub fn line_hex_crossed(ctx: &mut Ctx<'_>, owner: Side, hex: Hex) -> Res<()> {
    let held = ctx.open(&[
        request(owner, Layer::AntiPersonnel, hex),
        request(owner, Layer::AntiTank, hex),
    ])?;
    let mined = held
        .iter()
        .any(|c| matches!(c, Content::ApMines(_) | Content::AtMines(_)));
    if !mined {
        // Nothing more is said if the A-P leaf was a Dummy, found already.
        dummy_found(ctx, owner, hex, FoundBy::Entry);
    }
    Ok(())
}

/// Mines found in `hex` by a Search: presence and type are public, the hex
/// is marked Known-mined, the strength stays sealed (B28.1, B28.48).
pub fn mark_found(ctx: &mut Ctx<'_>, hex: Hex, layer: crate::model::sealed::Layer) {
    let m = ctx.state.markers.entry(hex).or_default();
    match layer {
        crate::model::sealed::Layer::AntiPersonnel if m.ap_revealed.is_none() => {
            m.ap_revealed = Some(None)
        }
        crate::model::sealed::Layer::AntiTank if m.at_revealed.is_none() => {
            m.at_revealed = Some(None)
        }
        _ => {}
    }
}

/// Known Minefield factor allotments: the ways `known_factors` can be split
/// into counters of 6, 8 and 12 factors (B28.45 EX: 24 factors make 2x12,
/// 3x8, 4x6, 2x6+1x12, ...). Each split is (sixes, eights, twelves).
pub fn known_splits(known_factors: u32) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for twelves in 0..=known_factors / 12 {
        let rest = known_factors - 12 * twelves;
        for eights in 0..=rest / 8 {
            let rest = rest - 8 * eights;
            if rest.is_multiple_of(6) {
                out.push((rest / 6, eights, twelves));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// B28.45 EX: 24 Known factors.
    #[test]
    fn b28_45_ex_splits_of_24_known_factors() {
        let s = known_splits(24);
        assert!(s.contains(&(0, 0, 2)), "2 x 12");
        assert!(s.contains(&(0, 3, 0)), "3 x 8");
        assert!(s.contains(&(4, 0, 0)), "4 x 6");
        assert!(s.contains(&(2, 0, 1)), "2 x 6 + 1 x 12");
        assert!(s.iter().all(|(a, b, c)| 6 * a + 8 * b + 12 * c == 24));
        assert!(known_splits(7).is_empty(), "7 factors cannot be split");
    }
}
