//! Properties of setup legality: any sealed layout, however wrong, gets a
//! list of violations (never a panic), each naming a hex, a board or the
//! budget and citing a rule.

mod scenario_support;
use hexveil_asl::model::sealed::BoobyLevel;
use hexveil_asl::setup::{check_layout, SealedSetup};
use hexveil_asl::{Hex, Side};
use proptest::prelude::*;
use scenario_support::*;

fn hex() -> impl Strategy<Value = Hex> {
    (prop_oneof![Just(3u16), Just(4u16)], 0u8..33, 1u8..=10)
        .prop_map(|(b, c, r)| Hex::new(b, c, r).unwrap())
}

fn level() -> impl Strategy<Value = BoobyLevel> {
    prop_oneof![
        Just(BoobyLevel::A),
        Just(BoobyLevel::B),
        Just(BoobyLevel::C)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_layout_gets_named_cited_violations(
        ap in proptest::collection::vec((hex(), 0u8..20), 0..6),
        at in proptest::collection::vec((hex(), 0u8..8), 0..4),
        dummies in proptest::collection::vec(hex(), 0..3),
        booby in proptest::collection::vec((2u16..6, level()), 0..3),
        extra in 0u8..4,
    ) {
        let sc = scenario();
        let (_, b) = setups(&sc);
        let sealed = SealedSetup { side: Side::B, ap, at, dummies, booby };
        if let Err(v) = check_layout(&sc, &b, &sealed, extra) {
            prop_assert!(!v.is_empty());
            for x in v {
                prop_assert!(!x.location.is_empty(), "{}", x);
                prop_assert!(x.rule.starts_with("B28."), "{}", x);
            }
        }
    }
}
