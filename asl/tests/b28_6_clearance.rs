//! Infantry clearance (B28.6 per B24.74, R12), Sappers (B28.8) and the ban
//! on laying hidden mines during play (B28.8).

mod mines_common;
use hexveil_asl::b28::clearance::{self, ClearanceTable};
use hexveil_asl::b28::minefield::MinefieldEvent;
use hexveil_asl::model::unit::{Trait, UnitId};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, ActionError, EventKind, Side};
use mines_common::*;

/// B28.6, R12: the B24.74 numbers are not found: refused with an error
/// naming the table and item; nothing asked.
#[test]
fn b28_6_infantry_clearance_refused_without_b24_74_data() {
    let mut e = engine_with(&[squad(1, Side::A, "4E5")]);
    let run = drive(
        &mut e,
        Side::A,
        Action::InfantryClearance {
            units: vec![UnitId(1)],
        },
        &Layout::new(),
        &[],
    );
    match run.result {
        Err(ActionError::Refused(err)) => {
            assert!(err.reason.contains("b24_74_clearance"), "{err}");
            assert!(err.reason.contains(clearance::SUCCESS_ITEM));
            assert!(err.cite.iter().any(|c| c == "R12"));
        }
        other => panic!("expected R12 refusal, got {other:?}"),
    }
    assert!(run.requests.is_empty() && run.dice.is_empty());
}

fn cleared(units: Vec<hexveil_asl::model::unit::Unit>, ids: &[u16], roll: (u8, u8)) -> (bool, i16) {
    let sc = scenario(&units, &[], false);
    let st = state_in(&sc, Phase::Movement);
    let ids: Vec<UnitId> = ids.iter().map(|i| UnitId(*i)).collect();
    let done = run_ctx(
        &sc,
        &st,
        Side::A,
        &Layout::new(),
        &[dr(roll.0, roll.1)],
        |ctx| {
            clearance::resolve_with_table(
                ctx,
                &ids,
                ClearanceTable {
                    success_final_dr_max: 8,
                },
            )
        },
    );
    let (_, ev) = done.finished();
    ev.iter()
        .find_map(|e| match &e.kind {
            EventKind::Minefield(MinefieldEvent::Clearance {
                cleared,
                sapper_drm,
                ..
            }) => Some((*cleared, *sapper_drm)),
            _ => None,
        })
        .unwrap()
}

/// B28.8: Sappers deduct two (one per Sapper HS) from the Clearance DR,
/// applied where the Clearance DR is made (with league-supplied data).
#[test]
fn b28_8_sapper_drm_on_clearance_dr() {
    let plain = squad(1, Side::A, "4E5");
    assert_eq!(cleared(vec![plain.clone()], &[1], (5, 5)), (false, 0));
    let mut sapper = plain;
    sapper.traits.insert(Trait::Sapper);
    assert_eq!(cleared(vec![sapper], &[1], (5, 5)), (true, -2));
    let mut hs = half_squad(1, Side::A, "4E5");
    hs.traits.insert(Trait::Sapper);
    assert_eq!(cleared(vec![hs.clone()], &[1], (5, 5)), (false, -1));
    assert_eq!(cleared(vec![hs], &[1], (4, 5)), (true, -1));
}

/// B28.8 (found reviewing a soak finding, the same flaw as a Disembark
/// naming a unit twice): a Sapper squad named twice counts once; the
/// clearance is refused before the DR instead of taking -4.
#[test]
fn b28_8_a_sapper_named_twice_is_refused_not_counted_twice() {
    let mut sapper = squad(1, Side::A, "4E5");
    sapper.traits.insert(Trait::Sapper);
    let sc = scenario(&[sapper], &[], false);
    let st = state_in(&sc, Phase::Movement);
    let done = run_ctx(&sc, &st, Side::A, &Layout::new(), &[], |ctx| {
        clearance::resolve_with_table(
            ctx,
            &[UnitId(1), UnitId(1)],
            ClearanceTable {
                success_final_dr_max: 8,
            },
        )
    });
    let err = done.result.expect_err("a unit named twice is refused");
    assert!(err.reason.contains("twice"), "{err}");
    assert_eq!(done.rolls_used, 0);
}

/// What an action can do to sealed mines. Exhaustive on purpose: a new
/// Action variant does not compile here until someone decides (B28.8: no
/// hidden mines are laid during play).
fn effect_on_mines(a: &Action) -> &'static str {
    match a {
        Action::Move { .. } | Action::Rout { .. } | Action::Advance { .. } => "reveals",
        Action::Disembark { .. } | Action::Search { .. } => "reveals",
        Action::Ffe { .. } | Action::ClearFullViewMines { .. } => "lowers or removes",
        Action::InfantryClearance { .. } => "clears a path",
        Action::Fire { .. } | Action::EndPhase | Action::Concede => "none",
        // B28.47: extra Dummy counters for setup, never mines.
        Action::DummyDr => "none",
        // C3.73: ordnance (even a CH) has no effect on terrain or mines.
        Action::OrdnanceFire { .. } | Action::ChangeCa { .. } | Action::ChooseCa { .. } => "none",
    }
}

/// B28.8: no Action lays mines; the only transitions the engine issues
/// (FFE, full-view clearance) never turn an empty leaf into a mined one.
#[test]
fn b28_8_no_action_lays_mines() {
    let acts = [Action::EndPhase, Action::Concede, search(1)];
    assert!(acts.iter().all(|a| effect_on_mines(a) != "lays"));
    // FFE with K and KIA over empty leaves: every transition stays Empty.
    for roll in [dr(1, 1), dr(1, 2)] {
        let mut e = engine_in(scenario(&[], &[], false), Phase::PrepFire);
        let run = drive(
            &mut e,
            Side::A,
            Action::Ffe {
                hex: hex("4E5"),
                fp: 8,
                kind: hexveil_asl::model::action::FfeKind::AerialBomb,
            },
            &Layout::new(),
            &[roll],
        );
        let mut n = 0;
        for ev in run.events() {
            if let EventKind::Transition { new_content, .. } = ev.kind {
                n += 1;
                assert_eq!(new_content, hexveil_asl::Content::Empty);
            }
        }
        assert_eq!(n, 4);
    }
}
