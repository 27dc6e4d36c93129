//! The FP of ordnance and the Effects DRM of its hits on the IFT
//! (C3.5-C3.53, C3.71). The IFT itself and what its results do are the
//! same code as every other fire ([`crate::a::ift`], [`crate::a::morale`]).

use crate::model::action::TargetType;

/// The IFT FP of an HE hit (C3.5-C3.53, C3.71): the weapon's HE FP, never
/// doubled for PBF/TPBF (C3.51) nor halved for a concealed target, a
/// pinned firer or the AFPh (C3.53); halved on the Area Target Type
/// (C3.33) and halved again into a marsh (C3.53); a Critical Hit uses the
/// full HE FP doubled with no prior halving (C3.71).
pub fn he_fp(full: u8, target_type: TargetType, critical: bool, into_marsh: bool) -> u8 {
    if critical {
        return full.saturating_mul(2);
    }
    let mut fp = full;
    if matches!(target_type, TargetType::Area) {
        fp /= 2;
    }
    if into_marsh {
        fp /= 2;
    }
    fp
}

/// The TEM DRM of an Effects DR (C3.331, C3.71): on the Infantry Target
/// Type the TEM already modified the To Hit DR (Case Q), so none; on the
/// Area Target Type the hex's TEM applies. A Critical Hit reverses a
/// positive TEM into a negative DRM; a negative TEM still applies.
pub fn effects_tem(tem: i8, target_type: TargetType, critical: bool) -> i8 {
    if critical {
        return if tem > 0 { -tem } else { tem };
    }
    match target_type {
        TargetType::Area => tem,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c3_5_ordnance_fp_is_not_doubled_or_halved_but_area_and_marsh_halve() {
        let i = TargetType::Infantry;
        let a = TargetType::Area;
        assert_eq!(he_fp(8, i, false, false), 8); // C3.51, C3.53
        assert_eq!(he_fp(8, a, false, false), 4); // C3.33
        assert_eq!(he_fp(8, i, false, true), 4); // C3.53 marsh
        assert_eq!(he_fp(8, a, false, true), 2); // C3.53: halved twice
        assert_eq!(he_fp(8, a, true, true), 16); // C3.71: full FP doubled
    }

    #[test]
    fn c3_71_positive_tem_reversed_negative_kept() {
        assert_eq!(effects_tem(2, TargetType::Infantry, false), 0);
        assert_eq!(effects_tem(2, TargetType::Area, false), 2);
        assert_eq!(effects_tem(2, TargetType::Area, true), -2);
        assert_eq!(effects_tem(2, TargetType::Infantry, true), -2);
        assert_eq!(effects_tem(-1, TargetType::Infantry, true), -1);
    }
}
