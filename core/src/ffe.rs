//! HE Concentration FFE and HE aerial bombs vs mines (B28.62, R6).
//!
//! One DR; the Original result (the Original DR read on the FFE's column,
//! no DRM, R6) decides: Original KIA removes all mines in the hex; Original
//! K lowers A-P one column (6 -> gone) and A-T one factor. Dummies are
//! immune (B28.47). Only on K/KIA are the layers asked, for every side and
//! layer that has a leaf in the hex (public eligibility), and every asked
//! location gets a transition, changed or not (DESIGN 3.1: null
//! transitions). The FFE player is not told what happened to mines (B28.62):
//! those events are referee-only. A Known counter whose mines are all gone
//! becomes a Dummy (B28.45); its public face does not change, so its
//! strength (or emptiness) stays hidden.

use crate::action::FfeKind;
use crate::event::Visibility;
use crate::hex::Hex;
use crate::ift::IftResult;
use crate::minefield::{agreed, emit, leaf_exists, request, MinefieldEvent};
use crate::resolve::{refuse, Ctx, Res};
use crate::sealed::{AtFactors, Content, Layer};
use crate::side::Side;

/// What an Original result does to one content (B28.62, B28.47).
pub fn after_ffe(content: Content, original: IftResult) -> Content {
    match (original, content) {
        (_, Content::Dummy) => Content::Dummy,
        (IftResult::Kia(_), Content::ApMines(_) | Content::AtMines(_)) => Content::Empty,
        (IftResult::K(_), Content::ApMines(s)) => {
            s.lowered().map_or(Content::Empty, Content::ApMines)
        }
        (IftResult::K(_), Content::AtMines(f)) => {
            AtFactors::new(f.get() - 1).map_or(Content::Empty, Content::AtMines)
        }
        (_, c) => c,
    }
}

/// Resolves `Action::Ffe`.
pub fn resolve(ctx: &mut Ctx<'_>, hex: Hex, fp: u8, kind: FfeKind) -> Res<()> {
    if !ctx.scenario.map.contains(hex) {
        return refuse(format!("{hex} is not on the map"), "B28.62");
    }
    let hex = ctx.scenario.map.canonical(hex);
    if fp == 0 {
        return refuse("an FFE/bomb attack needs FP > 0", "B28.62");
    }
    let what = match kind {
        FfeKind::HeConcentration => "HE Concentration FFE",
        FfeKind::AerialBomb => "HE aerial bomb",
    };
    let roll = ctx.roll_dr2(format!("{what} vs minefields in {hex}"), "B28.62")?;
    // R6: the Original DR on the FFE's column, no DRM.
    let original = agreed::ift_lookup(fp, roll.total() as i16)?;
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::FfeAttack { hex, fp, original },
        &["B28.62", "R6"],
    );
    if !matches!(original, IftResult::K(_) | IftResult::Kia(_)) {
        return Ok(());
    }
    for owner in [Side::A, Side::B] {
        let mut asked = Vec::new();
        for layer in [Layer::AntiPersonnel, Layer::AntiTank] {
            if leaf_exists(ctx, owner, layer, hex) {
                let req = request(owner, layer, hex);
                let before = ctx.open_one(req)?;
                asked.push((req, before, after_ffe(before, original)));
            }
        }
        // B28.45: a Known counter whose mines are all gone becomes a Dummy.
        let known_here = ctx.state.markers(hex).known_counter == Some(owner);
        let had_mines = asked
            .iter()
            .any(|(_, b, _)| matches!(b, Content::ApMines(_) | Content::AtMines(_)));
        let all_gone = asked
            .iter()
            .all(|(_, _, a)| matches!(a, Content::Empty | Content::Dummy));
        if known_here && had_mines && all_gone {
            for (req, _, after) in asked.iter_mut() {
                if req.layer == Layer::AntiPersonnel {
                    *after = Content::Dummy;
                }
            }
        }
        for (req, before, after) in asked {
            // B28.45, B28.48, R42: a minefield whose strength is shown publicly
            // gets a counter showing its new strength; an unshown strength
            // stays hidden (B28.62: the owner need not tell).
            let shown = before != after && shown_strength(ctx, req.layer, hex);
            if shown {
                show_new_strength(ctx, owner, req.layer, hex, after);
            }
            if before != after {
                emit(
                    ctx,
                    if shown {
                        Visibility::Public
                    } else {
                        Visibility::Referee
                    },
                    MinefieldEvent::FfeChanged {
                        hex,
                        request: req,
                        before,
                        after,
                    },
                    &["B28.62", "B28.45"],
                );
            }
            ctx.transition(req, after, &["B28.62", "DESIGN 3.1"]);
        }
    }
    Ok(())
}

/// Whether the public markers of `hex` show the strength of `layer`'s
/// mines there (B28.41, R13).
fn shown_strength(ctx: &Ctx<'_>, layer: Layer, hex: Hex) -> bool {
    let m = ctx.state.markers(hex);
    match layer {
        Layer::AntiPersonnel => matches!(m.ap_revealed, Some(Some(_))),
        Layer::AntiTank => matches!(m.at_revealed, Some(Some(_))),
        _ => false,
    }
}

/// B28.45 (with B28.48 for a revealed normal minefield): an FFE-reduced
/// minefield whose strength was shown is replaced by a counter showing the
/// new strength; if none is left it is replaced by a Dummy, shown as such,
/// which is removed as a found Dummy is (B28.47: a Dummy marker on a
/// multi-hex Known line).
fn show_new_strength(ctx: &mut Ctx<'_>, owner: Side, layer: Layer, hex: Hex, after: Content) {
    let m = ctx.state.markers.entry(hex).or_default();
    match (layer, after) {
        (Layer::AntiPersonnel, Content::ApMines(s)) => m.ap_revealed = Some(Some(s)),
        (Layer::AntiPersonnel, _) => {
            m.ap_revealed = None;
            if after == Content::Dummy && m.known_counter == Some(owner) {
                m.known_counter = None;
                m.dummy_marker = m.known_line;
            }
        }
        (Layer::AntiTank, Content::AtMines(f)) => m.at_revealed = Some(Some(f)),
        (Layer::AntiTank, _) => m.at_revealed = None,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sealed::ApStrength;

    #[test]
    fn b28_62_original_k_lowers_one_step_and_kia_clears() {
        let k = IftResult::K(2);
        let ap = |s| Content::ApMines(s);
        let at = |f| Content::AtMines(AtFactors::new(f).unwrap());
        assert_eq!(after_ffe(ap(ApStrength::Twelve), k), ap(ApStrength::Eight));
        assert_eq!(after_ffe(ap(ApStrength::Eight), k), ap(ApStrength::Six));
        assert_eq!(after_ffe(ap(ApStrength::Six), k), Content::Empty);
        assert_eq!(after_ffe(at(3), k), at(2));
        assert_eq!(after_ffe(at(1), k), Content::Empty);
        assert_eq!(after_ffe(at(5), IftResult::Kia(1)), Content::Empty);
        assert_eq!(
            after_ffe(ap(ApStrength::Twelve), IftResult::Kia(3)),
            Content::Empty
        );
        assert_eq!(after_ffe(at(4), IftResult::Mc(2)), at(4));
        // B28.47: Dummies are immune.
        assert_eq!(after_ffe(Content::Dummy, IftResult::Kia(5)), Content::Dummy);
        assert_eq!(after_ffe(Content::Empty, k), Content::Empty);
    }
}
