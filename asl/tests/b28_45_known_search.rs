//! Known Minefield counters, Dummies, hidden-mine markers and Searching
//! (B28.1, B28.45, B28.46, B28.47, B28.48).

mod mines_common;
use hexveil_asl::b28::known::known_splits;
use hexveil_asl::b28::minefield::{FoundBy, MinefieldEvent};
use hexveil_asl::model::sealed::{ApStrength, AtFactors, Content, Layer};
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::{Leader, Unit, UnitId, UnitKind};
use hexveil_asl::turn::Phase;
use hexveil_asl::{ActionError, Engine, Side};
use mines_common::*;

/// A's MPh with `units` on open ground and the markers `f` places.
fn with_markers(units: &[Unit], f: impl Fn(&mut GameState)) -> Engine {
    engine_where(scenario(units, &[], false), Phase::Movement, f)
}

/// B28.47: a Dummy Known counter is announced and removed when a ground
/// unit enters; no attack; later entries announce nothing. G3: each step
/// still rolls the DR of its potential A-P attacks (exit 4E4, entry 4E5),
/// unused, as for any eligible hex.
#[test]
fn b28_47_dummy_announced_and_removed_on_entry() {
    let mut e = with_markers(
        &[squad(1, Side::A, "4E4"), squad(2, Side::A, "4E4")],
        |st| st.markers.entry(hex("4E5")).or_default().known_counter = Some(Side::B),
    );
    let lay = layout(&[(ap_b("4E5"), Content::Dummy)]);
    let run = step(&mut e, &[1], "4E5", &lay, &quiet_step());
    assert_eq!(run.dice.len(), 2);
    assert_eq!(
        run.public_mines(),
        vec![MinefieldEvent::DummyFound {
            hex: hex("4E5"),
            owner: Side::B,
            by: FoundBy::Entry,
            marked: false
        }]
    );
    let m = e.state().markers(hex("4E5"));
    assert_eq!(m.known_counter, None);
    assert!(!m.dummy_marker);
    // The referee holds the leaf: not asked again, nothing announced again.
    let run = step(
        &mut e,
        &[2],
        "4E5",
        &lay,
        // G3: the leaves are eligible still; their DRs are rolled, unused.
        &quiet_step(),
    );
    assert_eq!(
        run.requests,
        vec![],
        "both leaves already held by the referee"
    );
    assert!(run.public_mines().is_empty());
}

/// B28.47 EXC, B28.46: an unmined hex of a multi-hex Known line gets a Dummy
/// marker instead.
#[test]
fn b28_46_b28_47_exc_line_hex_gets_dummy_marker() {
    let mut e = with_markers(&[squad(1, Side::A, "4E4")], |st| {
        let m = st.markers.entry(hex("4E5")).or_default();
        m.known_counter = Some(Side::B);
        m.known_line = true;
    });
    let lay = layout(&[(ap_b("4E5"), Content::Dummy)]);
    let run = step(&mut e, &[1], "4E5", &lay, &quiet_step());
    assert!(run.public_mines().contains(&MinefieldEvent::DummyFound {
        hex: hex("4E5"),
        owner: Side::B,
        by: FoundBy::Entry,
        marked: true
    }));
    assert!(e.state().markers(hex("4E5")).dummy_marker);
}

/// B28.45: a Known counter is flipped (strength shown) only once an attack
/// needs the strength (R13).
#[test]
fn b28_45_known_counter_flipped_only_when_strength_needed() {
    let known = |st: &mut GameState| {
        st.markers.entry(hex("4E5")).or_default().known_counter = Some(Side::B)
    };
    let lay = layout(&[(ap_b("4E5"), ap(12))]);
    let mut e = with_markers(&[squad(1, Side::A, "4E4")], known);
    step(&mut e, &[1], "4E5", &lay, &[unused_dr(), dr(6, 6)]);
    assert_eq!(e.state().markers(hex("4E5")).ap_revealed, Some(None));
    let mut e = with_markers(&[squad(1, Side::A, "4E4")], known);
    // DR 10 on 12 FP: PTC; TC 2 passes.
    step(
        &mut e,
        &[1],
        "4E5",
        &lay,
        &[unused_dr(), dr(4, 6), dr(1, 1)],
    );
    assert_eq!(
        e.state().markers(hex("4E5")).ap_revealed,
        Some(Some(ApStrength::Twelve))
    );
}

/// B28.45 EX: 24 Known factors may be 2x12, 3x8, 4x6 or 2x6 + 1x12.
#[test]
fn b28_45_ex_twenty_four_known_factors() {
    let s = known_splits(24);
    for want in [(0, 0, 2), (0, 3, 0), (4, 0, 0), (2, 0, 1)] {
        assert!(s.contains(&want), "{want:?} missing from {s:?}");
    }
    assert!(s.iter().all(|(a, b, c)| 6 * a + 8 * b + 12 * c == 24));
    assert!(known_splits(10).is_empty());
}

/// B28.1, B28.48: an MMC Searching its hex and the ADJACENT hexes opens
/// both enemy layers there and makes presence (not strength) public.
#[test]
fn b28_1_search_reveals_presence_not_strength() {
    let mut e = engine_with(&[squad(1, Side::A, "4E5")]);
    let lay = layout(&[(ap_b("4E6"), ap(12)), (at_b("4E4"), at(2))]);
    let run = drive(&mut e, Side::A, search(1), &lay, &[]);
    let mut hexes: Vec<_> = e.scenario().map.neighbors(hex("4E5"));
    hexes.push(hex("4E5"));
    hexes.sort();
    let expected: Vec<_> = hexes
        .iter()
        .flat_map(|h| {
            [
                req(Side::B, Layer::AntiPersonnel, &h.to_string()),
                req(Side::B, Layer::AntiTank, &h.to_string()),
            ]
        })
        .collect();
    assert_eq!(run.requests, expected);
    let found = run.public_mines();
    assert!(found.contains(&MinefieldEvent::SearchFound {
        hex: hex("4E6"),
        owner: Side::B,
        layer: Layer::AntiPersonnel
    }));
    assert!(found.contains(&MinefieldEvent::SearchFound {
        hex: hex("4E4"),
        owner: Side::B,
        layer: Layer::AntiTank
    }));
    assert_eq!(found.len(), 2);
    assert_eq!(e.state().markers(hex("4E6")).ap_revealed, Some(None));
    assert_eq!(e.state().markers(hex("4E4")).at_revealed, Some(None));
    // Strength and factors appear nowhere in public events.
    assert!(run
        .events()
        .iter()
        .filter(|ev| ev.to == hexveil_asl::Visibility::Public)
        .all(|ev| !format!("{:?}", ev.kind).contains("Twelve")));
    let _ = AtFactors::new(2);
}

/// B28.47: a Search finds a Dummy (announced, removed); B28.47 EXC: an
/// unmined Known-line hex gets a Dummy marker.
#[test]
fn b28_47_search_finds_dummies() {
    let mut e = with_markers(&[squad(1, Side::A, "4E5")], |st| {
        st.markers.entry(hex("4E6")).or_default().known_counter = Some(Side::B);
        let m = st.markers.entry(hex("4E4")).or_default();
        m.known_counter = Some(Side::B);
        m.known_line = true;
    });
    let lay = layout(&[(ap_b("4E6"), Content::Dummy)]);
    let run = drive(&mut e, Side::A, search(1), &lay, &[]);
    let found = run.public_mines();
    assert!(found.contains(&MinefieldEvent::DummyFound {
        hex: hex("4E6"),
        owner: Side::B,
        by: FoundBy::Search,
        marked: false
    }));
    assert!(found.contains(&MinefieldEvent::DummyFound {
        hex: hex("4E4"),
        owner: Side::B,
        by: FoundBy::Search,
        marked: true
    }));
    assert_eq!(e.state().markers(hex("4E6")).known_counter, None);
    assert!(e.state().markers(hex("4E4")).dummy_marker);
}

/// B28.1: only an MMC Searches (a leader may not), and only once per MPh.
#[test]
fn b28_1_only_an_mmc_searches() {
    let mut l = squad(2, Side::A, "4E5");
    l.kind = UnitKind::Leader(Leader {
        morale: 8,
        leadership: -1,
    });
    let mut e = engine_with(&[squad(1, Side::A, "4E5"), l]);
    let run = drive(&mut e, Side::A, search(2), &Layout::new(), &[]);
    run.assert_refused_asking_nothing();
    drive(&mut e, Side::A, search(1), &Layout::new(), &[]);
    let run = drive(&mut e, Side::A, search(1), &Layout::new(), &[]);
    assert!(matches!(run.result, Err(ActionError::Refused(_))));
    // Issue 27: the refusal names the unit, not its id (`#0 already ...`).
    let said = run.result.unwrap_err().to_string();
    let name = e.state().unit(UnitId(1)).unwrap().name.clone();
    assert!(
        said.contains(&format!("{name} already moved or Searched")) && !said.contains('#'),
        "{said}"
    );
}

/// B28.48: a mine attack DR marks the hidden mines' hex as Known (presence
/// only); a later Search of it adds nothing new to the public markers.
#[test]
fn b28_48_attack_dr_marks_hidden_mines_as_known() {
    let mut e = engine_with(&[squad(1, Side::A, "4E4")]);
    step_onto_ap(&mut e, 8, &[dr(6, 6)]);
    let before = e.state().markers(hex("4E5"));
    assert_eq!(before.ap_revealed, Some(None));
    let mut st = e.state().clone();
    st.mines.moved_at.clear();
    let mut e = Engine::with_state(e.scenario().clone(), st);
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    drive(&mut e, Side::A, search(1), &lay, &[]);
    assert_eq!(e.state().markers(hex("4E5")), before);
}
