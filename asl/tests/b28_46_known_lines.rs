//! Arrowed multi-hex Known minefields laid by the setup itself (B28.46)
//! and what finding their hexes does (B28.47 EXC): the example's side B
//! line 3H2-3H5 holds A-P 8 in 3H2 and 3H3, nothing in 3H4 and a Dummy in
//! 3H5 (`examples/setup-b.toml`, `examples/sealed-b.toml`). No test here
//! sets a marker by hand: the state is the one `setup::initial_state`
//! builds from the public setups.

mod mines_common;
use hexveil_asl::b28::minefield::{FoundBy, MinefieldEvent};
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::{Content, DaisyNote, FactRequest, Layer, Location};
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::setup::{initial_state, PublicSetup, SealedSetup};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Engine, Side};
use mines_common::*;

const SCENARIO: &str = include_str!("../../examples/scenario.toml");
const SETUP_A: &str = include_str!("../../examples/setup-a.toml");
const SETUP_B: &str = include_str!("../../examples/setup-b.toml");
const SEALED_B: &str = include_str!("../../examples/sealed-b.toml");

/// Side B's sealed setup of the example as the facts its machine answers
/// (its Daisy Chain placement opportunities, B28.531, left unused).
fn layout_b() -> Layout {
    let s = SealedSetup::from_toml(SEALED_B).unwrap();
    let mut l = Layout::new();
    for (h, f) in &s.ap {
        l.insert(req(Side::B, Layer::AntiPersonnel, &h.to_string()), ap(*f));
    }
    for (h, f) in &s.at {
        l.insert(req(Side::B, Layer::AntiTank, &h.to_string()), at(*f));
    }
    for h in &s.dummies {
        l.insert(
            req(Side::B, Layer::AntiPersonnel, &h.to_string()),
            Content::Dummy,
        );
    }
    for n in 1..=4 {
        l.insert(
            FactRequest {
                owner: Side::B,
                layer: Layer::DaisyChain,
                location: Location::Opportunity(n),
            },
            Content::Daisy(DaisyNote::Nothing),
        );
    }
    l
}

/// The example after both public setups, in side A's MPh, with the German
/// squad moved (by the test, as if it had walked there) to `squad_at`.
fn example_game(squad_at: &str) -> (Engine, UnitId) {
    let sc = Scenario::from_toml(SCENARIO).unwrap();
    let a = PublicSetup::from_toml(&sc, SETUP_A).unwrap();
    let b = PublicSetup::from_toml(&sc, SETUP_B).unwrap();
    let mut st = initial_state(&sc, &[a, b]).unwrap();
    st.phasing = Side::A;
    st.phase = Phase::Movement;
    let squad = sc.unit_named("ger-squad-1").unwrap();
    st.units.get_mut(&squad).unwrap().hex = Some(hex(squad_at));
    (Engine::with_state(sc, st), squad)
}

fn line_hexes() -> Vec<&'static str> {
    vec!["3H2", "3H3", "3H4", "3H5"]
}

/// B28.46: every hex between (and inclusive of) the two arrowed counters is
/// part of the line from the start of play; a single Known counter is not.
#[test]
fn b28_46_setup_marks_every_hex_of_an_arrowed_line() {
    let (e, _) = example_game("3I4");
    for h in line_hexes() {
        let m = e.state().markers(hex(h));
        assert!(m.known_line, "{h} is a hex of the arrowed line 3H2-3H5");
        assert_eq!(m.known_counter, Some(Side::B), "{h}");
        assert!(!m.dummy_marker, "{h}");
    }
    assert!(!e.state().markers(hex("3C3")).known_line, "single counter");
    assert!(!e.state().markers(hex("3H6")).known_line, "beyond the line");
}

/// B28.47 EXC: a ground unit entering an unmined hex of a line announces it
/// and the hex is marked with a Dummy counter (not cleared); both layers of
/// the hex are asked (G3: whatever the A-P leaf held).
#[test]
fn b28_47_entering_an_unmined_line_hex_announces_and_marks_it() {
    let (mut e, squad) = example_game("3I4");
    let run = step(&mut e, &[squad.0], "3H4", &layout_b(), &quiet_step());
    assert!(run.result.is_ok(), "{:?}", run.result);
    assert!(
        run.requests.contains(&req(Side::B, Layer::AntiTank, "3H4")),
        "{:?}",
        run.requests
    );
    assert_eq!(
        run.public_mines(),
        vec![MinefieldEvent::DummyFound {
            hex: hex("3H4"),
            owner: Side::B,
            by: FoundBy::Entry,
            marked: true
        }]
    );
    let m = e.state().markers(hex("3H4"));
    assert!(m.dummy_marker, "B28.47 EXC: marked with a Dummy counter");
    assert_eq!(m.known_counter, None);
}

/// B28.47 EXC: a Dummy under a counter of a line is marked, not removed.
#[test]
fn b28_47_dummy_found_in_a_line_is_marked_not_removed() {
    let (mut e, squad) = example_game("3I5");
    let run = step(&mut e, &[squad.0], "3H5", &layout_b(), &quiet_step());
    assert!(run.result.is_ok(), "{:?}", run.result);
    assert_eq!(
        run.public_mines(),
        vec![MinefieldEvent::DummyFound {
            hex: hex("3H5"),
            owner: Side::B,
            by: FoundBy::Entry,
            marked: true
        }]
    );
    assert!(e.state().markers(hex("3H5")).dummy_marker);
}

/// B28.46: a mined hex of a line is a Known minefield like any other: its
/// A-P mines attack and nothing is said about Dummies.
#[test]
fn b28_46_mined_line_hex_attacks_and_is_not_marked_dummy() {
    let (mut e, squad) = example_game("3I3");
    // Exit DR unused; entry DR 12 on 8 FP: no effect.
    let run = step(
        &mut e,
        &[squad.0],
        "3H3",
        &layout_b(),
        &[unused_dr(), dr(6, 6)],
    );
    assert!(run.result.is_ok(), "{:?}", run.result);
    let public = run.public_mines();
    assert!(
        public.contains(&MinefieldEvent::ApPresent {
            hex: hex("3H3"),
            owner: Side::B
        }),
        "{public:?}"
    );
    assert!(
        !public
            .iter()
            .any(|m| matches!(m, MinefieldEvent::DummyFound { .. })),
        "{public:?}"
    );
    let m = e.state().markers(hex("3H3"));
    assert!(!m.dummy_marker);
    assert_eq!(m.known_counter, Some(Side::B));
}

/// B28.47 EXC (A12.152 as the project reads it, R30): a Search beside the
/// line reveals its unmined hex and its Dummy, each marked; the mined hexes
/// only show presence.
#[test]
fn b28_47_search_reveals_the_unmined_hexes_of_a_line() {
    let (mut e, squad) = example_game("3I4");
    let searched: Vec<String> = {
        let mut n: Vec<_> = e.scenario().map.neighbors(hex("3I4"));
        n.push(hex("3I4"));
        n.iter().map(|h| h.to_string()).collect()
    };
    let run = drive(&mut e, Side::A, search(squad.0), &layout_b(), &[]);
    assert!(run.result.is_ok(), "{:?}", run.result);
    let public = run.public_mines();
    for h in line_hexes() {
        if !searched.iter().any(|s| s == h) {
            continue;
        }
        let m = e.state().markers(hex(h));
        match h {
            "3H4" | "3H5" => {
                assert!(
                    public.contains(&MinefieldEvent::DummyFound {
                        hex: hex(h),
                        owner: Side::B,
                        by: FoundBy::Search,
                        marked: true
                    }),
                    "{h}: {public:?}"
                );
                assert!(m.dummy_marker, "{h}");
            }
            _ => {
                assert!(!m.dummy_marker, "{h}");
                assert_eq!(m.ap_revealed, Some(None), "{h}");
            }
        }
    }
    assert!(
        searched.iter().any(|s| s == "3H4"),
        "3I4 is ADJACENT to 3H4: {searched:?}"
    );
}
