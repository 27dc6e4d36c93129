//! HE Concentration FFE and aerial bombs vs mines (B28.62, B28.45, B28.47,
//! R6, DESIGN 3.1 null transitions).

mod mines_common;
use hexveil_asl::a::ift::IftResult;
use hexveil_asl::b28::minefield::MinefieldEvent;
use hexveil_asl::model::action::FfeKind;
use hexveil_asl::model::event::Visibility;
use hexveil_asl::model::sealed::{Content, Layer};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, Engine, EventKind, Side};
use mines_common::*;

fn ffe(fp: u8) -> Action {
    Action::Ffe {
        hex: hex("4E5"),
        fp,
        kind: FfeKind::HeConcentration,
    }
}

fn transitions(run: &Run) -> Vec<(Visibility, hexveil_asl::FactRequest, Content)> {
    picked(run.events(), |e| match &e.kind {
        EventKind::Transition {
            request,
            new_content,
        } => Some((e.to, *request, *new_content)),
        _ => None,
    })
}

/// Side A's PFPh (FFE is resolved there, turn::phase_allows).
fn prep_fire() -> Engine {
    engine_in(scenario(&[], &[], false), Phase::PrepFire)
}

fn all_four() -> Vec<hexveil_asl::FactRequest> {
    vec![
        req(Side::A, Layer::AntiPersonnel, "4E5"),
        req(Side::A, Layer::AntiTank, "4E5"),
        ap_b("4E5"),
        at_b("4E5"),
    ]
}

/// B28.62, R6: a result other than K/KIA does nothing to mines and asks
/// nothing.
#[test]
fn b28_62_no_k_asks_nothing() {
    let mut e = prep_fire();
    let run = drive(&mut e, Side::A, ffe(8), &Layout::new(), &[dr(3, 3)]);
    assert!(run.requests.is_empty());
    assert_eq!(
        run.public_mines(),
        vec![MinefieldEvent::FfeAttack {
            hex: hex("4E5"),
            fp: 8,
            original: IftResult::Mc(1)
        }]
    );
}

/// B28.62, R6: an Original K lowers A-P one column and A-T one factor; both
/// layers of every side with a leaf there are asked and each gets a
/// transition, changed or not; the FFE player is told nothing (all
/// referee-only).
#[test]
fn b28_62_original_k_lowers_both_layers_with_null_transitions() {
    let mut e = prep_fire();
    let lay = layout(&[(ap_b("4E5"), ap(12)), (at_b("4E5"), at(3))]);
    // DR 3 on 8 FP: K/2.
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(run.requests, all_four());
    let t = transitions(&run);
    assert_eq!(
        t,
        vec![
            (Visibility::Referee, all_four()[0], Content::Empty),
            (Visibility::Referee, all_four()[1], Content::Empty),
            (Visibility::Referee, ap_b("4E5"), ap(8)),
            (Visibility::Referee, at_b("4E5"), at(2)),
        ]
    );
    assert_eq!(run.public_mines().len(), 1, "only the FFE's own result");
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], ap(8));
    assert_eq!(e.state().markers(hex("4E5")), Default::default());
}

/// B28.62: an A-P field of 6 is eliminated by an Original K; an Original
/// KIA removes everything.
#[test]
fn b28_62_six_eliminated_by_k_and_kia_clears_all() {
    let mut e = prep_fire();
    let lay = layout(&[(ap_b("4E5"), ap(6)), (at_b("4E5"), at(1))]);
    drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], Content::Empty);
    assert_eq!(e.state().referee_knows[&at_b("4E5")], Content::Empty);
    let mut e = prep_fire();
    let lay = layout(&[(ap_b("4E5"), ap(12)), (at_b("4E5"), at(5))]);
    // DR 2 on 8 FP: 1KIA.
    drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 1)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], Content::Empty);
    assert_eq!(e.state().referee_knows[&at_b("4E5")], Content::Empty);
}

/// B28.47: a Dummy is immune to FFE; B28.45: a Known counter whose mines are
/// all gone becomes a Dummy and its public face does not change.
#[test]
fn b28_47_dummy_immune_and_b28_45_known_counter_becomes_dummy() {
    let sc = scenario(&[], &[], false);
    let mut st = state_in(&sc, Phase::PrepFire);
    st.markers.entry(hex("4E5")).or_default().known_counter = Some(Side::B);
    let mut e = Engine::with_state(sc.clone(), st.clone());
    let lay = layout(&[(ap_b("4E5"), Content::Dummy)]);
    drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 1)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], Content::Dummy);
    let mut e = Engine::with_state(sc, st.clone());
    let lay = layout(&[(ap_b("4E5"), ap(6))]);
    drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], Content::Dummy);
    assert_eq!(e.state().markers(hex("4E5")), st.markers(hex("4E5")));
}

/// An engine in A's PFPh whose 4E5 shows side B's A-P mines of `shown`
/// strength (revealed by an earlier attack: B28.41 marks the hex with a
/// counter of that strength, which B28.48 treats as Known mines); only B
/// sets up on board 4 (`a_too`: A may set up there as well, so the per-hex
/// marker cannot say whose strength it shows). `known`: the hex also holds
/// B's Known counter, so B has an A-T leaf there too (B28.45).
fn shown_ap_in_4e5(shown: u8, a_too: bool, known: bool) -> Engine {
    let mut sc = scenario(&[], &[], false);
    if !a_too {
        sc.sides
            .get_mut(&Side::A)
            .unwrap()
            .setup_area
            .boards
            .clear();
    }
    let mut st = state_in(&sc, Phase::PrepFire);
    let s = hexveil_asl::model::sealed::ApStrength::from_factors(shown).unwrap();
    let m = st.markers.entry(hex("4E5")).or_default();
    m.ap_revealed = Some(Some(s));
    if known {
        m.known_counter = Some(Side::B);
    }
    Engine::with_state(sc, st)
}

fn shown_changes(run: &Run) -> Vec<MinefieldEvent> {
    run.public_mines()
        .into_iter()
        .filter(|m| !matches!(m, MinefieldEvent::FfeAttack { .. }))
        .collect()
}

/// B28.45, B28.48, R42 (found by the random-games soak): an FFE that lowers
/// a minefield whose strength is shown replaces its counter by one showing
/// the new strength, publicly; before, the marker kept showing 12 over 8.
/// What changed is referee-only as ever (B28.62); the public line follows
/// from the shown strength and the public Original result.
#[test]
fn b28_45_ffe_k_on_a_shown_strength_shows_the_new_strength() {
    let mut e = shown_ap_in_4e5(12, false, false);
    let lay = layout(&[(ap_b("4E5"), ap(12))]);
    // DR 3 on 8 FP: K/2.
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], ap(8));
    assert_eq!(
        e.state().markers(hex("4E5")).ap_revealed,
        Some(hexveil_asl::model::sealed::ApStrength::from_factors(8)),
        "the public counter shows the new strength"
    );
    assert_eq!(
        shown_changes(&run),
        vec![MinefieldEvent::ShownStrengthChanged {
            hex: hex("4E5"),
            owner: Side::B,
            layer: Layer::AntiPersonnel,
            now: ap(8),
        }]
    );
}

/// B28.45, B28.47, B28.48, R42: an FFE that eliminates a minefield whose
/// strength is shown leaves no strength counter; one whose strength was
/// never shown keeps its public face (B28.62: the owner need not tell).
#[test]
fn b28_45_ffe_eliminating_a_shown_strength_removes_its_counter() {
    let mut e = shown_ap_in_4e5(6, false, false);
    let lay = layout(&[(ap_b("4E5"), ap(6))]);
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], Content::Empty);
    assert_eq!(e.state().markers(hex("4E5")).ap_revealed, None);
    assert_eq!(shown_changes(&run).len(), 1, "the shown strength's change");
    // Presence shown, strength not: nothing public changes.
    let sc = scenario(&[], &[], false);
    let mut st = state_in(&sc, Phase::PrepFire);
    st.markers.entry(hex("4E5")).or_default().ap_revealed = Some(None);
    let mut e = Engine::with_state(sc, st.clone());
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().markers(hex("4E5")), st.markers(hex("4E5")));
    assert_eq!(run.public_mines().len(), 1, "only the FFE's own result");
}

/// G3, B28.62, R42: where both sides could have mines (a hex of both setup
/// areas) the per-hex counter cannot say whose strength it shows, so an
/// FFE that changes A's hidden mines there tells B nothing and the shown
/// counter stays as it is.
#[test]
fn g3_ffe_in_a_hex_of_both_setup_areas_tells_nothing_of_either_side() {
    let mut e = shown_ap_in_4e5(12, true, false);
    let before = e.state().markers(hex("4E5"));
    let a_ap = req(Side::A, Layer::AntiPersonnel, "4E5");
    let lay = layout(&[(ap_b("4E5"), ap(12)), (a_ap, ap(8))]);
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&a_ap], ap(6));
    assert_eq!(shown_changes(&run), vec![]);
    assert_eq!(e.state().markers(hex("4E5")), before);
}

/// G3, B28.45, R42: a Known hex showing A-P 6 whose A-T strength was never
/// shown: an FFE K removes the A-P, and what the public sees is the same
/// whether A-T mines are left (2 factors, now 1) or not (1, now none and
/// the counter secretly a Dummy).
#[test]
fn g3_b28_45_a_shown_strength_gone_says_nothing_of_an_unshown_one() {
    let mut seen = Vec::new();
    for at_factors in [1, 2] {
        let mut e = shown_ap_in_4e5(6, false, true);
        let lay = layout(&[(ap_b("4E5"), ap(6)), (at_b("4E5"), at(at_factors))]);
        let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
        seen.push((run.public_mines(), e.state().markers(hex("4E5"))));
    }
    assert_eq!(seen[0], seen[1]);
    let (public, markers) = &seen[0];
    assert_eq!(markers.known_counter, Some(Side::B), "the counter stays");
    assert!(
        public.contains(&MinefieldEvent::ShownStrengthChanged {
            hex: hex("4E5"),
            owner: Side::B,
            layer: Layer::AntiPersonnel,
            now: Content::Empty,
        }),
        "{public:?}"
    );
}

/// B28.45, B28.47, R42: every minefield of a Known hex had its strength
/// shown and the FFE removed them all: the counter is a Dummy, removed as a
/// found one.
#[test]
fn b28_45_every_shown_minefield_gone_makes_the_counter_a_found_dummy() {
    let shown = shown_ap_in_4e5(6, false, true);
    let mut st = shown.state().clone();
    st.markers.entry(hex("4E5")).or_default().at_revealed =
        Some(Some(hexveil_asl::model::sealed::AtFactors::new(1).unwrap()));
    let mut e = Engine::with_state(shown.scenario().clone(), st);
    let lay = layout(&[(ap_b("4E5"), ap(6)), (at_b("4E5"), at(1))]);
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], Content::Dummy);
    assert_eq!(e.state().markers(hex("4E5")).known_counter, None);
    assert!(
        run.public_mines().iter().any(|m| matches!(
            m,
            MinefieldEvent::DummyFound {
                by: hexveil_asl::b28::minefield::FoundBy::Ffe,
                ..
            }
        )),
        "{:?}",
        run.public_mines()
    );
}
