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
//! becomes a Dummy (B28.45). Its public face changes only where it showed
//! a strength (B28.45, B28.48, R42): that counter shows the new strength,
//! which follows from the shown one and the public Original result, so
//! nothing hidden is told; a counter becomes a shown Dummy only if every
//! leaf its owner has in the hex had its strength shown (G3).

use crate::a::ift::IftResult;
use crate::b28::minefield::{agreed, emit, leaf_exists, request, MinefieldEvent};
use crate::board::hex::Hex;
use crate::model::action::FfeKind;
use crate::model::event::Visibility;
use crate::model::resolve::{refuse, Ctx, Res};
use crate::model::sealed::{AtFactors, Content, Layer};
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
        let shown: Vec<bool> = asked
            .iter()
            .map(|(req, _, _)| shown_strength(ctx, owner, req.layer, hex))
            .collect();
        for (&(req, before, after), &shown) in asked.iter().zip(&shown) {
            if before != after {
                emit(
                    ctx,
                    Visibility::Referee,
                    MinefieldEvent::FfeChanged {
                        hex,
                        request: req,
                        before,
                        after,
                    },
                    &["B28.62", "B28.45"],
                );
                if shown {
                    show_new_strength(ctx, owner, req.layer, hex, after);
                }
            }
            ctx.transition(req, after, &["B28.62", "DESIGN 3.1"]);
        }
        // B28.45, B28.47, R42: every leaf of the owner here showed its
        // strength and none is left: the counter is a Dummy, shown as such.
        let all_shown_gone = !asked.is_empty()
            && shown.iter().all(|s| *s)
            && asked
                .iter()
                .all(|(_, _, a)| !matches!(a, Content::ApMines(_) | Content::AtMines(_)));
        if all_shown_gone && had_mines {
            crate::b28::known::dummy_found(ctx, owner, hex, crate::b28::minefield::FoundBy::Ffe);
        }
    }
    Ok(())
}

/// Whether the public counters of `hex` show the strength of `owner`'s
/// `layer` mines there (B28.41, R13). The markers are per hex, so a hex
/// where the other side could have mines of that type too (a seam hex of
/// both setup areas) is never read as showing `owner`'s (G3).
fn shown_strength(ctx: &Ctx<'_>, owner: Side, layer: Layer, hex: Hex) -> bool {
    let m = ctx.state.markers(hex);
    let shows = match layer {
        Layer::AntiPersonnel => matches!(m.ap_revealed, Some(Some(_))),
        Layer::AntiTank => matches!(m.at_revealed, Some(Some(_))),
        _ => false,
    };
    shows && !leaf_exists(ctx, owner.opponent(), layer, hex)
}

/// B28.45, B28.48, R42: the counter of a minefield whose strength was
/// shown now shows the new strength, or no mines of that type.
fn show_new_strength(ctx: &mut Ctx<'_>, owner: Side, layer: Layer, hex: Hex, after: Content) {
    let m = ctx.state.markers.entry(hex).or_default();
    let now = match (layer, after) {
        (Layer::AntiPersonnel, Content::ApMines(s)) => {
            m.ap_revealed = Some(Some(s));
            after
        }
        (Layer::AntiTank, Content::AtMines(f)) => {
            m.at_revealed = Some(Some(f));
            after
        }
        (Layer::AntiPersonnel, _) => {
            m.ap_revealed = None;
            Content::Empty
        }
        (Layer::AntiTank, _) => {
            m.at_revealed = None;
            Content::Empty
        }
        _ => return,
    };
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::ShownStrengthChanged {
            hex,
            owner,
            layer,
            now,
        },
        &["B28.45", "B28.48", "R42"],
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sealed::ApStrength;

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
