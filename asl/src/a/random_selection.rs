//! Random Selection (A.9) as the IFT uses it (A7.301, A7.302, B28.9).
//!
//! One dr per candidate, in unit-id order (public information only, G3);
//! the highest dr is selected. When `n` units must be selected, the `n`
//! highest are; every candidate tied with the `n`-th highest is selected too
//! (R7: ties at the cut are all selected).

use crate::a::morale::MoraleEvent;
use crate::dice::DiceKind;
use crate::model::event::{EventKind, Visibility};
use crate::model::resolve::{spec, Ctx, Res};
use crate::model::unit::UnitId;

/// Picks at least `n` of `candidates` (more on a tie at the cut, R7).
/// With `n` >= the number of candidates every candidate is selected and no
/// die is rolled; with `n` == 0 or no candidates nothing is.
pub fn select(ctx: &mut Ctx<'_>, candidates: &[UnitId], n: u8, why: &str) -> Res<Vec<UnitId>> {
    let mut cands: Vec<UnitId> = candidates.to_vec();
    cands.sort();
    cands.dedup();
    if n == 0 || cands.is_empty() {
        return Ok(Vec::new());
    }
    if usize::from(n) >= cands.len() {
        return Ok(cands);
    }
    let specs = cands
        .iter()
        .map(|u| {
            spec(
                DiceKind::Dr,
                format!("Random Selection for {why}: unit {u}"),
                "A.9",
            )
        })
        .collect();
    let rolls: Vec<u8> = ctx.roll(specs)?.iter().map(|r| r.total()).collect();
    let selected = pick(&cands, &rolls, n);
    ctx.emit(
        Visibility::Public,
        EventKind::Morale(MoraleEvent::RandomSelection {
            why: why.to_string(),
            candidates: cands.clone(),
            rolls,
            selected: selected.clone(),
        }),
        &["A.9", "R7"],
    );
    Ok(selected)
}

/// The pure part of [`select`]: the `n` highest rolls, ties at the cut all
/// selected (R7). `cands` and `rolls` are parallel.
pub fn pick(cands: &[UnitId], rolls: &[u8], n: u8) -> Vec<UnitId> {
    let mut sorted: Vec<u8> = rolls.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let Some(&cut) = sorted.get(usize::from(n).saturating_sub(1)) else {
        return cands.to_vec();
    };
    cands
        .iter()
        .zip(rolls)
        .filter(|(_, &r)| r >= cut)
        .map(|(u, _)| *u)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u16]) -> Vec<UnitId> {
        v.iter().map(|&i| UnitId(i)).collect()
    }

    proptest::proptest! {
        /// R7 / A.9: at least min(n, len) are selected, and every selected
        /// roll is at least every unselected one; exactly n unless there is
        /// a tie at the cut.
        #[test]
        fn r7_selection_is_the_top_n_with_ties(rolls in proptest::collection::vec(1u8..=6, 1..8), n in 1u8..8) {
            let cands: Vec<UnitId> = (0..rolls.len() as u16).map(UnitId).collect();
            let sel = pick(&cands, &rolls, n);
            let want = usize::from(n).min(rolls.len());
            proptest::prop_assert!(sel.len() >= want);
            let min_sel = sel.iter().map(|u| rolls[u.0 as usize]).min().unwrap();
            for (u, r) in cands.iter().zip(&rolls) {
                if !sel.contains(u) {
                    proptest::prop_assert!(*r < min_sel);
                }
            }
            if sel.len() > want {
                let at_cut = sel.iter().filter(|u| rolls[u.0 as usize] == min_sel).count();
                proptest::prop_assert!(at_cut >= 2);
            }
        }
    }

    #[test]
    fn a_9_highest_dr_is_selected() {
        assert_eq!(pick(&ids(&[1, 2, 3]), &[2, 5, 4], 1), ids(&[2]));
    }

    #[test]
    fn r7_ties_at_the_cut_are_all_selected() {
        assert_eq!(pick(&ids(&[1, 2, 3]), &[5, 5, 4], 1), ids(&[1, 2]));
        assert_eq!(pick(&ids(&[1, 2, 3, 4]), &[6, 3, 3, 1], 2), ids(&[1, 2, 3]));
        assert_eq!(pick(&ids(&[1, 2, 3, 4]), &[6, 3, 2, 1], 2), ids(&[1, 2]));
    }
}
