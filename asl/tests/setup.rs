//! Setup legality: B28.1, B28.45 (+EX), B28.46, B28.47, B28.5, B28.53,
//! B28.9, and the Secret dr for extra Dummies.

mod scenario_support;
use hexveil_asl::setup::{
    check_layout, check_public, eligible_locations, initial_state, SealedSetup,
};
use hexveil_asl::{Action, DiceKind, Engine, Layer, Location, Roll, Side, Step, Visibility};
use scenario_support::*;

fn violations(sealed: &SealedSetup, extra: u8) -> Vec<String> {
    let s = scenario();
    let (_, b) = setups(&s);
    match check_layout(&s, &b, sealed, extra) {
        Ok(()) => Vec::new(),
        Err(v) => v.iter().map(|v| v.to_string()).collect(),
    }
}

fn has(v: &[String], hex: &str, rule: &str) -> bool {
    v.iter().any(|x| x.starts_with(hex) && x.contains(rule))
}

#[test]
fn example_layout_is_legal() {
    assert_eq!(violations(&sealed_b(), 0), Vec::<String>::new());
}

#[test]
fn b28_1_ap_strength_must_be_6_8_or_12() {
    let mut s = sealed_b();
    s.ap[3].1 = 10;
    let v = violations(&s, 0);
    assert!(has(&v, "3E4", "B28.1"), "{v:?}");
    assert!(v.iter().any(|x| x.contains("strength 10")), "{v:?}");
}

#[test]
fn b28_1_no_hidden_mines_in_marsh_or_paved_road() {
    let mut s = sealed_b();
    s.ap.push((hex("3G5"), 6)); // marsh
    s.ap.push((hex("3E6"), 6)); // paved road: A-P never, even beside full-view A-T
    let v = violations(&s, 0);
    assert!(
        has(&v, "3G5", "B28.1") && v.iter().any(|x| x.contains("marsh")),
        "{v:?}"
    );
    assert!(
        has(&v, "3E6", "B28.1") && v.iter().any(|x| x.contains("paved road")),
        "{v:?}"
    );
}

#[test]
fn b28_1_no_mines_outside_the_setup_area() {
    let mut s = sealed_b();
    s.ap.push((hex("4E3"), 6));
    let v = violations(&s, 0);
    assert!(has(&v, "4E3", "B28.1"), "{v:?}");
}

#[test]
fn b28_53_at_on_paved_road_only_in_full_view() {
    let sc = scenario();
    let (_, mut b) = setups(&sc);
    b.at_in_view.clear();
    let v = check_layout(&sc, &b, &sealed_b(), 0).unwrap_err();
    assert!(
        v.iter()
            .any(|x| x.location == "3E6" && x.rule.contains("B28.53")),
        "{v:?}"
    );
}

#[test]
fn b28_53_full_view_marker_needs_sealed_factors() {
    let mut s = sealed_b();
    s.at.retain(|(at, _)| *at != hex("3E6"));
    let v = violations(&s, 0);
    assert!(has(&v, "3E6", "B28.53"), "{v:?}");
}

#[test]
fn b28_5_at_factors_1_to_5() {
    let mut s = sealed_b();
    s.at[0].1 = 6;
    let v = violations(&s, 0);
    assert!(has(&v, "3E5", "B28.5"), "{v:?}");
}

#[test]
fn b28_5_each_at_factor_costs_three_hidden_factors() {
    // Example spends 12 + 3*5 + 10 = 37 of 48; 4 more A-T factors -> 49.
    let mut s = sealed_b();
    s.at.push((hex("3A2"), 4));
    let v = violations(&s, 0);
    assert!(
        v.iter()
            .any(|x| x.starts_with("budget") && x.contains("49") && x.contains("B28.5")),
        "{v:?}"
    );
    // 3 more A-T factors -> exactly 46: legal.
    let mut s = sealed_b();
    s.at.push((hex("3A2"), 3));
    assert_eq!(violations(&s, 0), Vec::<String>::new());
}

#[test]
fn b28_45_ex_24_known_factors_any_split() {
    // B28.45 EX: 2x12, 3x8, 4x6, 2x6+1x12 are all legal.
    let sc = scenario();
    let (_, mut b) = setups(&sc);
    b.known_lines.clear();
    for split in [
        vec![12, 12],
        vec![8, 8, 8],
        vec![6, 6, 6, 6],
        vec![6, 6, 12],
    ] {
        let hexes = ["3A2", "3A4", "3A6", "3A8"];
        b.known = hexes[..split.len()].iter().map(|x| hex(x)).collect();
        let mut s = sealed_b();
        s.ap.retain(|(at, _)| *at == hex("3E4"));
        s.dummies.clear();
        for (at, st) in hexes.iter().zip(&split) {
            s.ap.push((hex(at), *st));
        }
        assert_eq!(check_layout(&sc, &b, &s, 0), Ok(()), "split {split:?}");
    }
    // 25 factors would exceed the Known budget.
    b.known = vec![hex("3A2"), hex("3A4"), hex("3A6")];
    let mut s = sealed_b();
    s.ap.retain(|(at, _)| *at == hex("3E4"));
    s.dummies.clear();
    s.ap.extend([(hex("3A2"), 12), (hex("3A4"), 6), (hex("3A6"), 8)]);
    let v = check_layout(&sc, &b, &s, 0).unwrap_err();
    assert!(v.iter().any(|x| x.rule.contains("B28.45")), "{v:?}");
}

#[test]
fn b28_45_known_factors_are_not_exchanged_for_at_mines() {
    let mut s = sealed_b();
    s.at.push((hex("3C3"), 2)); // A-T in a Known hex, but no Known A-T factors
    let v = violations(&s, 0);
    assert!(
        v.iter()
            .any(|x| x.starts_with("budget") && x.contains("B28.45")),
        "{v:?}"
    );
}

#[test]
fn b28_45_hidden_factors_do_not_pay_for_known_mines() {
    // The OB has 24 Known factors; 24 are used; one more Known 6 is over.
    let sc = scenario();
    let (_, mut b) = setups(&sc);
    b.known.push(hex("3A2"));
    let mut s = sealed_b();
    s.ap.push((hex("3A2"), 6));
    let v = check_layout(&sc, &b, &s, 0).unwrap_err();
    assert!(v.iter().any(|x| x.rule.contains("B28.45")), "{v:?}");
}

#[test]
fn b28_46_arrowed_counters_cover_the_grain_between() {
    let map = scenario().map;
    let grain_line = |a, b| map.grain_line(a, b);
    assert_eq!(
        grain_line(hex("3H2"), hex("3H5")).unwrap(),
        vec![hex("3H2"), hex("3H3"), hex("3H4"), hex("3H5")]
    );
    // A diagonal hex grain: 3C2 -> 3D2 -> 3E3 (doubled coordinates).
    let diag = grain_line(hex("3C2"), hex("3E3")).unwrap();
    assert_eq!(diag.len(), 3);
    assert!(grain_line(hex("3C2"), hex("3F9")).is_none());
    let sc = scenario();
    let (_, mut b) = setups(&sc);
    b.known_lines.push((hex("3C2"), hex("3F9")));
    let v = check_public(&sc, &b);
    assert!(v.iter().any(|x| x.rule == "B28.46"), "{v:?}");
}

#[test]
fn b28_46_one_minefield_per_known_hex() {
    let mut s = sealed_b();
    s.ap.push((hex("3H2"), 6)); // 3H2 already holds 8
    let v = violations(&s, 0);
    assert!(has(&v, "3H2", "B28.46"), "{v:?}");
}

#[test]
fn b28_47_dummies_only_under_known_counters_and_within_budget() {
    let mut s = sealed_b();
    s.dummies.push(hex("3A2"));
    let v = violations(&s, 0);
    assert!(has(&v, "3A2", "B28.47"), "{v:?}");
    // Two Dummies with an allotment of 1: over, unless the Secret dr gave one more.
    let mut s = sealed_b();
    s.dummies.push(hex("3H4"));
    let v = violations(&s, 0);
    assert!(
        v.iter()
            .any(|x| x.starts_with("budget") && x.contains("B28.47")),
        "{v:?}"
    );
    assert_eq!(violations(&s, 1), Vec::<String>::new());
}

#[test]
fn b28_47_without_allotment_one_dummy_per_24_known_factors() {
    let text = SCENARIO.replace("dummy_allotment = 1", "");
    let sc = hexveil_asl::model::scenario::Scenario::from_toml(&text).unwrap();
    assert_eq!(hexveil_asl::setup::dummy_budget(&sc, Side::B, 24, 0), 1);
    assert_eq!(hexveil_asl::setup::dummy_budget(&sc, Side::B, 23, 0), 0);
    assert_eq!(hexveil_asl::setup::dummy_budget(&sc, Side::B, 48, 2), 4);
}

#[test]
fn b28_9_booby_traps_only_on_permitted_boards() {
    let mut s = sealed_b();
    s.booby.push((4, hexveil_asl::model::sealed::BoobyLevel::C));
    let v = violations(&s, 0);
    assert!(has(&v, "board4", "B28.9"), "{v:?}");
}

#[test]
fn b28_9_booby_levels_cost_10_20_30_from_hidden_factors() {
    use hexveil_asl::model::sealed::BoobyLevel;
    // 12 + 15 = 27 on mines; Level A (30) makes 57 > 48; Level B (20) 47 fits.
    let mut s = sealed_b();
    s.booby = vec![(3, BoobyLevel::A)];
    let v = violations(&s, 0);
    assert!(
        v.iter().any(|x| x.contains("57") && x.contains("B28.9")),
        "{v:?}"
    );
    s.booby = vec![(3, BoobyLevel::B)];
    assert_eq!(violations(&s, 0), Vec::<String>::new());
}

#[test]
fn eligible_locations_are_public_sorted_and_exclude_forbidden_terrain() {
    let sc = scenario();
    let (_, b) = setups(&sc);
    let ap = eligible_locations(&sc, &b, Side::B, Layer::AntiPersonnel);
    let at = eligible_locations(&sc, &b, Side::B, Layer::AntiTank);
    let mut sorted = ap.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(ap, sorted);
    let hx = |s: &str| Location::Hex(hex(s));
    assert!(ap.contains(&hx("3E4")) && ap.contains(&hx("3H4")));
    assert!(!ap.contains(&hx("3G5")), "marsh (B28.1)");
    assert!(!ap.contains(&hx("3E6")), "paved road (B28.1)");
    assert!(at.contains(&hx("3E6")), "full-view A-T (B28.53)");
    // Every eligible hex is on board 3 (seam hexes may carry board 4's name).
    assert!(ap
        .iter()
        .all(|l| matches!(l, Location::Hex(x) if sc.map.names(*x).iter().any(|n| n.board == 3))));
    assert!(
        ap.iter()
            .any(|l| matches!(l, Location::Hex(x) if x.board == 4)),
        "seam hexes"
    );
    assert_eq!(
        eligible_locations(&sc, &b, Side::B, Layer::BoobyTrap),
        vec![Location::Board(3)]
    );
    // The sealed content is independent of the eligible set: the same set
    // for any layout (DESIGN 3.1).
    assert_eq!(
        eligible_locations(&sc, &b, Side::B, Layer::AntiPersonnel).len(),
        ap.len()
    );
}

#[test]
fn initial_state_places_units_and_known_markers() {
    let sc = scenario();
    let st = state(&sc);
    let pz = sc.unit_named("ger-pz").unwrap();
    let rider = sc.unit_named("ger-hs-1").unwrap();
    assert_eq!(st.units[&pz].hex, Some(hex("4E6")));
    assert_eq!(
        st.units[&rider].hex,
        Some(hex("4E6")),
        "riders go with the vehicle"
    );
    assert_eq!(st.markers(hex("3H3")).known_counter, Some(Side::B));
    assert_eq!(st.markers(hex("3E6")).at_in_view, Some(Side::B));
    assert_eq!(st.markers(hex("3E4")).known_counter, None);
    assert_eq!(st.elr[&Side::A], 3);
    assert_eq!(st.phase, hexveil_asl::turn::Phase::Setup);
}

#[test]
fn initial_state_refuses_units_outside_the_setup_area() {
    let sc = scenario();
    let (mut a, b) = setups(&sc);
    a.positions
        .insert(sc.unit_named("ger-squad-1").unwrap(), hex("3E2"));
    let v = initial_state(&sc, &[a, b]).unwrap_err();
    assert!(v.iter().any(|x| x.location == "3E2"), "{v:?}");
}

#[test]
fn b28_47_secret_dr_is_shown_to_the_roller_only() {
    let sc = scenario();
    let mut e = Engine::with_state(sc.clone(), state(&sc));
    // Side A has no Dummy counter: no Secret dr.
    assert!(e.apply(Side::A, Action::DummyDr).is_err());
    let Step::NeedDice(specs) = e.apply(Side::B, Action::DummyDr).unwrap() else {
        panic!("expected a dice request")
    };
    assert_eq!(specs[0].kind, DiceKind::SecretDr { roller: Side::B });
    let Step::Done(events) = e.provide_dice(vec![Roll::Dr(5)]).unwrap() else {
        panic!("expected done")
    };
    // 5 halved, fractions rounded down: 2 extra Dummies.
    assert_eq!(e.state().extra_dummies[&Side::B], 2);
    for ev in &events {
        let public = ev.to == Visibility::Public;
        let text = format!("{:?}", ev.kind);
        if text.contains("Dice") || text.contains("ExtraDummies") {
            assert_eq!(ev.to, Visibility::Side(Side::B), "{ev:?}");
        }
        if public {
            assert!(!text.contains("count"), "{ev:?}");
        }
    }
    // Only once.
    assert!(e.apply(Side::B, Action::DummyDr).is_err());
}

/// B28.1, B28.45, B28.53, DESIGN 3.1, G3: the leaves the engine asks in play
/// (`leaf_exists`) are exactly the leaves sealed at setup
/// (`eligible_locations`), for every hex of the example map under every one
/// of its names, both sides, both minefield layers; and a seam hex is ONE
/// location, under its canonical name.
#[test]
fn b28_1_leaf_exists_agrees_with_eligible_locations_on_every_hex() {
    let s = scenario();
    let (a, b) = setups(&s);
    let st = state(&s);
    let ctx = hexveil_asl::model::resolve::Ctx::new(&s, st, Side::A, &[], &[]);
    let mut seam_names = 0;
    for (side, public) in [(Side::A, &a), (Side::B, &b)] {
        for layer in [Layer::AntiPersonnel, Layer::AntiTank] {
            let eligible = eligible_locations(&s, public, side, layer);
            for (i, x) in eligible.iter().enumerate() {
                let Location::Hex(hx) = x else {
                    panic!("{x:?} is not a hex")
                };
                assert_eq!(*hx, s.map.canonical(*hx), "{hx} not canonical");
                for y in &eligible[i + 1..] {
                    if let Location::Hex(hy) = y {
                        assert!(!s.map.same_hex(*hx, *hy), "{hx} and {hy} are one hex");
                    }
                }
            }
            let mut yes = 0;
            for hex in s.map.all_hexes() {
                let names = s.map.names(hex);
                seam_names += names.len() - 1;
                for name in names {
                    let exists = hexveil_asl::b28::minefield::leaf_exists(&ctx, side, layer, name);
                    let sealed = eligible.contains(&Location::Hex(s.map.canonical(name)));
                    assert_eq!(exists, sealed, "{side} {layer:?} {name}");
                    yes += usize::from(exists);
                }
            }
            if side == Side::B {
                assert!(yes > 0, "side B has {layer:?} leaves");
            }
        }
    }
    assert!(seam_names > 0, "the example map has seam hexes");
}

/// A seam hex is one location (DESIGN 3.1): a unit placed under the other
/// name of a seam hex is held under the canonical one, and an action naming
/// the other name is read as the canonical hex.
#[test]
fn seam_hex_names_are_canonicalized_where_they_enter() {
    let s = scenario();
    let seam = s
        .map
        .all_hexes()
        .into_iter()
        .find(|h| s.map.names(*h).len() > 1)
        .expect("the example map has a seam");
    let other = *s.map.names(seam).iter().find(|n| **n != seam).unwrap();
    assert_ne!(other, seam);
    let mut st = state(&s);
    let id = *st.units.keys().next().unwrap();
    st.units.get_mut(&id).unwrap().hex = Some(other);
    let e = Engine::with_state(s.clone(), st);
    assert_eq!(e.state().unit(id).unwrap().hex, Some(seam));
    let a = Action::Fire {
        firers: vec![id],
        target: other,
        extra_drm: 0,
    };
    assert_eq!(
        a.canonical(&s.map),
        Action::Fire {
            firers: vec![id],
            target: seam,
            extra_drm: 0
        }
    );
}

#[test]
fn g3_is_eligible_answers_exactly_the_eligible_list_for_every_hex_alias_and_board() {
    // The referee keeps no eligible list per game and asks the ruleset's
    // `is_eligible` for every fact request (issue 16); a request it wrongly
    // thinks not eligible would be answered "empty" without the owner
    // (G1), one it wrongly thinks eligible would ask the owner for a leaf
    // that does not exist (G3, DESIGN 3.1). So the two must agree on every
    // key: every hex of every board of the map and each alias of a seam hex
    // (`eligible` lists canonical names only), boards, opportunities and
    // keys that name nothing.
    use hexveil_asl::board::hex::{COLUMNS, MAX_ROW};
    use hexveil_core::ruleset::Scenario as _;
    let sc = hexveil_asl::ruleset::shared_scenario(SCENARIO).unwrap();
    let mut keys: Vec<String> = Vec::new();
    for board in 0..=8u16 {
        for col in 0..COLUMNS {
            for row in 0..=MAX_ROW {
                if let Ok(h) = hexveil_asl::Hex::new(board, col, row) {
                    keys.push(h.to_string());
                    keys.push(h.to_string().to_lowercase());
                }
            }
        }
        keys.push(format!("board{board}"));
        keys.push(format!("board0{board}"));
        keys.push(format!("opp{board}"));
    }
    keys.extend(["3E", "3E31", "E4", "board", "3E04", "x"].map(String::from));
    let mut checked = 0;
    for (side, text) in [(Side::A, SETUP_A), (Side::B, SETUP_B)] {
        let public = sc.public_setup(side, text).unwrap();
        for layer in sc.sealed_layers() {
            let list = sc.eligible(public.as_ref(), layer);
            let mut found = 0;
            for key in &keys {
                let Ok(location) = hexveil_core::Location::key_of(key) else {
                    continue;
                };
                let listed = list.contains(&location);
                assert_eq!(
                    sc.is_eligible(public.as_ref(), layer, &location),
                    listed,
                    "side {side}, layer {layer}, {key}"
                );
                found += usize::from(listed);
                checked += 1;
            }
            assert_eq!(found, list.len(), "side {side}, layer {layer}");
        }
    }
    assert!(checked > 1_000, "{checked} keys checked");
}
