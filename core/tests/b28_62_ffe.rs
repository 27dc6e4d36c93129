//! HE Concentration FFE and aerial bombs vs mines (B28.62, B28.45, B28.47,
//! R6, DESIGN 3.1 null transitions).

mod mines_common;
use hexveil_core::action::FfeKind;
use hexveil_core::event::Visibility;
use hexveil_core::ift::IftResult;
use hexveil_core::minefield::MinefieldEvent;
use hexveil_core::sealed::{Content, Layer};
use hexveil_core::turn::Phase;
use hexveil_core::{Action, Engine, EventKind, Side};
use mines_common::*;

fn ffe(fp: u8) -> Action {
    Action::Ffe {
        hex: hex("4E5"),
        fp,
        kind: FfeKind::HeConcentration,
    }
}

fn transitions(run: &Run) -> Vec<(Visibility, hexveil_core::FactRequest, Content)> {
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

fn all_four() -> Vec<hexveil_core::FactRequest> {
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
/// counter of that strength, which B28.48 treats as Known mines).
fn prep_fire_with_shown_ap(shown: u8) -> Engine {
    let sc = scenario(&[], &[], false);
    let mut st = state_in(&sc, Phase::PrepFire);
    let s = hexveil_core::sealed::ApStrength::from_factors(shown).unwrap();
    st.markers.entry(hex("4E5")).or_default().ap_revealed = Some(Some(s));
    Engine::with_state(sc, st)
}

/// B28.45, B28.48 (found by the random-games soak): an FFE that lowers a
/// minefield whose strength is shown replaces its counter by one showing
/// the new strength, publicly; before, the marker kept showing 12 over 8.
#[test]
fn b28_45_ffe_k_on_a_shown_strength_shows_the_new_strength() {
    let mut e = prep_fire_with_shown_ap(12);
    let lay = layout(&[(ap_b("4E5"), ap(12))]);
    // DR 3 on 8 FP: K/2.
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], ap(8));
    assert_eq!(
        e.state().markers(hex("4E5")).ap_revealed,
        Some(hexveil_core::sealed::ApStrength::from_factors(8)),
        "the public counter shows the new strength"
    );
    assert!(run.public_mines().contains(&MinefieldEvent::FfeChanged {
        hex: hex("4E5"),
        request: ap_b("4E5"),
        before: ap(12),
        after: ap(8),
    }));
}

/// B28.45, B28.47, B28.48: an FFE that eliminates a minefield whose
/// strength is shown leaves no strength counter; one whose strength was
/// never shown keeps its public face (B28.62: the owner need not tell).
#[test]
fn b28_45_ffe_eliminating_a_shown_strength_removes_its_counter() {
    let mut e = prep_fire_with_shown_ap(6);
    let lay = layout(&[(ap_b("4E5"), ap(6))]);
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], Content::Empty);
    assert_eq!(e.state().markers(hex("4E5")).ap_revealed, None);
    assert_eq!(run.public_mines().len(), 2, "the FFE and the change");
    // Presence shown, strength not: nothing public changes.
    let sc = scenario(&[], &[], false);
    let mut st = state_in(&sc, Phase::PrepFire);
    st.markers.entry(hex("4E5")).or_default().ap_revealed = Some(None);
    let mut e = Engine::with_state(sc, st.clone());
    let run = drive(&mut e, Side::A, ffe(8), &lay, &[dr(1, 2)]);
    assert_eq!(e.state().markers(hex("4E5")), st.markers(hex("4E5")));
    assert_eq!(run.public_mines().len(), 1, "only the FFE's own result");
}
