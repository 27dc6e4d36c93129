//! A-T mines (B28.5, B28.51, B28.52, B28.53, R2-R5), driven through the
//! Engine (and, for the end-of-MPh hook, over a Ctx as the turn code does).

mod mines_common;
use hexveil_asl::b28::minefield::{self, MinefieldEvent, VehicleOutcome};
use hexveil_asl::model::event::Visibility;
use hexveil_asl::model::sealed::AtFactors;
use hexveil_asl::model::unit::{HullArmor, Unit, UnitId};
use hexveil_asl::turn::Phase;
use hexveil_asl::{b28::at_mine, Action, ActionError, Engine, Side};
use mines_common::*;

fn at_attack(run: &Run) -> Option<(i16, VehicleOutcome)> {
    run.public_mines().into_iter().find_map(|m| match m {
        MinefieldEvent::AtAttack {
            final_dr, outcome, ..
        } => Some((final_dr, outcome)),
        _ => None,
    })
}

/// Moves unit 1 from 4E4 into 4E5 holding 3 A-T factors, with the given
/// trigger dr and attack DR. 4E4 and 4E5 are eligible for A-P mines too, so
/// each step also rolls the DR of a potential A-P attack, unused here (G3):
/// exit A-P DR and trigger dr 6 in the empty 4E4, then the entry A-P DR.
fn enter_at(unit: Unit, deep_snow: bool, trigger: u8, attack: Option<(u8, u8)>) -> (Engine, Run) {
    let mut sc = scenario(&[unit], &[], deep_snow);
    supply(&mut sc, &[("ift_vehicle_line", EXAMPLE_VEHICLE_LINE)]);
    let mut e = engine(sc);
    let lay = layout(&[(at_b("4E5"), at(3))]);
    let mut entry = vec![unused_dr(), d(trigger)];
    entry.extend(attack.map(|(a, b)| dr(a, b)));
    let run = vehicle_step(&mut e, &lay, &entry);
    (e, run)
}

/// An engine in A's MPh with `mover` on board 4, where 4E5 is a paved road
/// holding side B's A-T mines in full view (B28.53).
fn full_view_mines_beside(mover: Unit) -> Engine {
    let mut sc = scenario(&[mover], &[("4E5", paved_road())], false);
    supply(&mut sc, &[("ift_vehicle_line", EXAMPLE_VEHICLE_LINE)]);
    engine_where(sc, Phase::Movement, |st| {
        st.markers.entry(hex("4E5")).or_default().at_in_view = Some(Side::B)
    })
}

/// Infantry `unit` declares it spends the extra MF to remove A-T mines in
/// full view (B28.53).
fn clear_full_view(unit: u16) -> Action {
    Action::ClearFullViewMines { unit: UnitId(unit) }
}

/// B28.52, R2: vs an AFV a 4KIA or better (Aerial AF DRM included) is a
/// Burning Wreck.
#[test]
fn b28_52_r2_four_kia_or_better_is_burning_wreck() {
    // DR 2 + Aerial AF 1 = 3 on 36+: 4KIA.
    let (e, run) = enter_at(afv(1, Side::A, "4E4", Some(1)), false, 3, Some((1, 1)));
    assert_eq!(at_attack(&run), Some((2, VehicleOutcome::BurningWreck)));
    assert!(!unit(&e, 1).in_play());
    assert!(e.state().mines.burning_wrecks.contains_key(&UnitId(1)));
    // B28.51: presence and factors public once it attacked.
    assert_eq!(
        e.state().markers(hex("4E5")).at_revealed,
        Some(Some(AtFactors::new(3).unwrap()))
    );
}

/// B28.52, R2: 1KIA-3KIA eliminates.
#[test]
fn b28_52_r2_lesser_kia_eliminates() {
    // DR 5 + 1 = 6: 1KIA.
    let (e, run) = enter_at(afv(1, Side::A, "4E4", Some(1)), false, 1, Some((2, 3)));
    assert_eq!(at_attack(&run), Some((5, VehicleOutcome::Eliminated)));
    assert!(!unit(&e, 1).in_play());
    assert!(!e.state().mines.burning_wrecks.contains_key(&UnitId(1)));
}

/// B28.52 (found by the random-games soak): a vehicle the A-T mines
/// eliminate leaves the map like any eliminated unit (`Unit::hex` is `None`
/// once eliminated); a Burning Wreck's hex is kept with the wreck.
#[test]
fn b28_52_vehicle_eliminated_by_a_t_mines_leaves_the_map() {
    let (e, _) = enter_at(afv(1, Side::A, "4E4", Some(1)), false, 1, Some((2, 3)));
    assert!(unit(&e, 1).status.eliminated);
    assert_eq!(unit(&e, 1).hex, None);
    let (e, _) = enter_at(afv(1, Side::A, "4E4", Some(1)), false, 3, Some((1, 1)));
    assert_eq!(unit(&e, 1).hex, None);
    assert_eq!(
        e.state().mines.burning_wrecks.get(&UnitId(1)),
        Some(&hex("4E5"))
    );
}

/// B28.52, R3, R4: anything but a KIA immobilizes; the Aerial AF DRM
/// counts for the KIA test only (DR 6 would be 1KIA, +1 makes it K/4).
#[test]
fn b28_52_r3_r4_aerial_af_turns_kia_into_immobilization() {
    let (e, run) = enter_at(afv(1, Side::A, "4E4", Some(1)), false, 2, Some((3, 3)));
    assert_eq!(at_attack(&run), Some((6, VehicleOutcome::Immobilized)));
    let u = unit(&e, 1);
    assert!(u.in_play() && u.vehicle().unwrap().immobilized);
    // Without Aerial AF DRM (0), the same DR eliminates.
    let (_, run) = enter_at(afv(1, Side::A, "4E4", Some(0)), false, 2, Some((3, 3)));
    assert_eq!(at_attack(&run), Some((6, VehicleOutcome::Eliminated)));
}

/// B28.52: an unarmored vehicle is always eliminated; Burning Wreck only on
/// a Final DR <= 6.
#[test]
fn b28_52_unarmored_always_eliminated_burning_on_six_or_less() {
    let (e, run) = enter_at(truck(1, Side::A, "4E4"), false, 3, Some((3, 3)));
    assert_eq!(at_attack(&run), Some((6, VehicleOutcome::BurningWreck)));
    assert!(e.state().mines.burning_wrecks.contains_key(&UnitId(1)));
    let (e, run) = enter_at(truck(1, Side::A, "4E4"), false, 3, Some((6, 6)));
    assert_eq!(at_attack(&run), Some((12, VehicleOutcome::Eliminated)));
    assert!(!unit(&e, 1).in_play());
}

/// B28.42/B28.52: an AFV with a 0 hull AF is attacked as unarmored.
#[test]
fn b28_52_zero_hull_af_counts_as_unarmored() {
    let mut v = vehicle_data();
    v.hull = Some(HullArmor {
        front: 1,
        side: Some(0),
        rear: Some(0),
    });
    v.fully_tracked = true;
    let (_, run) = enter_at(vehicle(1, Side::A, "4E4", v), false, 1, Some((6, 6)));
    // An AFV would be immobilized at DR 12; unarmored: eliminated.
    assert_eq!(at_attack(&run), Some((12, VehicleOutcome::Eliminated)));
}

/// B28.51, G3: a trigger dr above the factors attacks nothing and reveals
/// nothing publicly; an empty leaf gets the same dr.
#[test]
fn b28_51_trigger_dr_above_factors_reveals_nothing() {
    let (e, run) = enter_at(afv(1, Side::A, "4E4", Some(1)), false, 4, None);
    assert!(run.public_mines().is_empty());
    assert!(run.mine_events().contains(&(
        Visibility::Referee,
        MinefieldEvent::AtNotTriggered {
            hex: hex("4E5"),
            unit: UnitId(1),
            factors: 3
        }
    )));
    assert_eq!(e.state().markers(hex("4E5")).at_revealed, None);
    // Same dice traffic with an empty hex.
    let mut e2 = engine_with(&[afv(1, Side::A, "4E4", Some(1))]);
    let run2 = vehicle_step(&mut e2, &Layout::new(), &[unused_dr(), d(4)]);
    let kinds = |r: &Run| {
        r.dice
            .iter()
            .map(|s| (s.kind, s.purpose.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&run), kinds(&run2));
    assert_eq!(run.requests, run2.requests);
}

/// B28.51: Deep Snow: factors one less (3 -> 2: dr 3 no longer triggers)
/// and +1 DRM on the attack.
#[test]
fn b28_51_deep_snow_factors_minus_one_and_plus_one_drm() {
    let (_, run) = enter_at(truck(1, Side::A, "4E4"), true, 3, None);
    assert!(at_attack(&run).is_none());
    // dr 2 triggers; DR 6 + 1 = 7: eliminated, not a Burning Wreck.
    let (_, run) = enter_at(truck(1, Side::A, "4E4"), true, 2, Some((3, 3)));
    assert_eq!(at_attack(&run), Some((7, VehicleOutcome::Eliminated)));
}

/// R4: an AFV without Aerial AF may not enter/leave a hex that can hold
/// A-T mines: refused before any fact is asked.
#[test]
fn r4_missing_aerial_af_refused_before_any_fact() {
    let mut e = engine_with(&[afv(1, Side::A, "4E4", None)]);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &[]);
    match run.result {
        Err(ActionError::Refused(err)) => {
            assert!(err.reason.contains("u1") && err.reason.contains("aerial_af"));
            assert_eq!(err.cite, vec!["R4".to_string(), "R72".to_string()]);
        }
        other => panic!("expected R4 refusal, got {other:?}"),
    }
    assert!(run.requests.is_empty() && run.dice.is_empty());
    // Between hexes that cannot hold hidden mines (paved road), it moves.
    let road = paved_road();
    let mut e = engine(scenario(
        &[afv(1, Side::A, "4E4", None)],
        &[("4E4", road), ("4E5", road)],
        false,
    ));
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &[]);
    assert!(run.result.is_ok() && run.requests.is_empty());
}

/// B28.51: an A-T attack with an effect strips "?" if a Good Order enemy
/// ground unit has LOS; not otherwise.
#[test]
fn b28_51_concealment_lost_only_in_enemy_los() {
    let mut t = truck(1, Side::A, "4E4");
    t.status.concealed = true;
    let mut e = engine_with_data(&[t.clone(), squad(9, Side::B, "4E8")]);
    let lay = layout(&[(at_b("4E5"), at(3))]);
    let run = vehicle_step(&mut e, &lay, &[unused_dr(), d(1), dr(6, 6)]);
    assert!(run
        .public_mines()
        .contains(&MinefieldEvent::ConcealmentLost { unit: UnitId(1) }));
    assert!(!unit(&e, 1).status.concealed);
    let mut broken = squad(9, Side::B, "4E8");
    broken.status.broken = true;
    let mut e = engine_with_data(&[t, broken]);
    vehicle_step(&mut e, &lay, &[unused_dr(), d(1), dr(6, 6)]);
    assert!(unit(&e, 1).status.concealed, "no Good Order enemy sees it");
}

/// B28.52: Riders of an AFV immobilized by A-T mines are attacked
/// Collaterally at 16 FP (DR 8: 1MC); Passengers of a closed AFV are not.
/// B28.52: the A-T factors do not drop.
#[test]
fn b28_52_riders_collateral_at_16_fp_and_factors_never_drop() {
    let mut units = vec![
        afv(1, Side::A, "4E4", Some(0)),
        squad(2, Side::A, "4E4"),
        squad(3, Side::A, "4E4"),
    ];
    board(&mut units, 1, 2, true);
    board(&mut units, 1, 3, false);
    let mut e = engine_with_data(&units);
    let lay = layout(&[(at_b("4E5"), at(3))]);
    // Attack DR 8 on 36+: 4MC: immobilized. Rider MC: DR 8 + 1 = 9 > 7.
    let run = vehicle_step(&mut e, &lay, &[unused_dr(), d(2), dr(4, 4), dr(4, 4)]);
    assert_eq!(at_attack(&run), Some((8, VehicleOutcome::Immobilized)));
    assert!(unit(&e, 2).status.broken);
    assert!(!unit(&e, 3).status.broken);
    assert_eq!(e.state().referee_knows[&at_b("4E5")], at(3));
}

/// B28.5, B28.41: Infantry never asks the A-T layer, even in a hex with A-T
/// mines in full view (B28.53), which a vehicle does ask.
#[test]
fn b28_5_infantry_ignores_a_t_mines_in_full_view() {
    let mut e = full_view_mines_beside(squad(1, Side::A, "4E4"));
    let lay = layout(&[(at_b("4E5"), at(4))]);
    let run = step(&mut e, &[1], "4E5", &lay, &[unused_dr()]);
    assert_eq!(run.requests, vec![ap_b("4E4")]);
    let mut e = full_view_mines_beside(truck(1, Side::A, "4E4"));
    let run = vehicle_step(&mut e, &lay, &[d(5)]);
    assert_eq!(run.requests, vec![ap_b("4E4"), at_b("4E4"), at_b("4E5")]);
}

/// B28.53, R5: Infantry spending the extra MF removes A-T mines in full view
/// at the end of the MPh if it is still unpinned and unbroken there; the
/// owner commits the emptied leaf.
#[test]
fn b28_53_full_view_mines_removed_at_end_of_mph() {
    let mut e = full_view_mines_beside(squad(1, Side::A, "4E5"));
    let sc = e.scenario().clone();
    let run = drive(&mut e, Side::A, clear_full_view(1), &Layout::new(), &[]);
    assert!(run.requests.is_empty(), "declaring asks nothing");
    let lay = layout(&[(at_b("4E5"), at(2))]);
    let done = run_ctx(
        &sc,
        e.state(),
        Side::A,
        &lay,
        &[],
        minefield::end_of_movement_phase,
    );
    assert_eq!(done.asked, vec![at_b("4E5")]);
    let (st, events) = done.finished();
    assert_eq!(st.markers(hex("4E5")).at_in_view, None);
    assert_eq!(st.referee_knows[&at_b("4E5")], hexveil_asl::Content::Empty);
    assert!(events
        .iter()
        .any(|ev| matches!(ev.kind, hexveil_asl::EventKind::Transition { .. })));
    // Pinned before the end of the MPh: the mines stay.
    let mut pinned = e.state().clone();
    pinned.units.get_mut(&UnitId(1)).unwrap().status.pinned = true;
    let done = run_ctx(
        &sc,
        &pinned,
        Side::A,
        &lay,
        &[],
        minefield::end_of_movement_phase,
    );
    assert!(done.asked.is_empty());
    let (st, _) = done.finished();
    assert_eq!(st.markers(hex("4E5")).at_in_view, Some(Side::B));
}

/// B28.53: only unpinned, unbroken Infantry in a hex with enemy A-T mines in
/// full view may declare it.
#[test]
fn b28_53_declaration_checks() {
    let mut e = engine_with(&[squad(1, Side::A, "4E5")]);
    let run = drive(&mut e, Side::A, clear_full_view(1), &Layout::new(), &[]);
    assert!(matches!(run.result, Err(ActionError::Refused(_))));
}

/// B28.531 via B28.51: a Daisy Chain's roll attacks on dr <= its factors.
#[test]
fn b28_51_daisy_attack_uses_the_a_t_roll() {
    let sc = scenario(&[truck(1, Side::A, "4E5")], &[], false);
    let st = state_in(&sc, Phase::Movement);
    let done = run_ctx(
        &sc,
        &st,
        Side::B,
        &Layout::new(),
        &[d(2), dr(5, 5)],
        |ctx| at_mine::daisy_attack(ctx, UnitId(1), hex("4E5"), 2),
    );
    let (st2, _) = done.finished();
    assert!(!st2.unit(UnitId(1)).unwrap().in_play());
    let done = run_ctx(&sc, &st, Side::B, &Layout::new(), &[d(3)], |ctx| {
        at_mine::daisy_attack(ctx, UnitId(1), hex("4E5"), 2)
    });
    let (st3, _) = done.finished();
    assert!(st3.unit(UnitId(1)).unwrap().in_play());
}

/// R4, R71, R72 (ruleset version 3): a Daisy Chain the enemy may still
/// pull (B28.531: its use is not public yet) may attack a vehicle entering
/// any road hex in the MPh, whatever the hex's own mines, so an AFV without
/// Aerial AF, or a vehicle with PRC aboard and no survival data, is refused
/// before anything is asked there; once the SSR allows no chains, or off
/// the road, the same step moves.
#[test]
fn r72_a_daisy_chain_that_may_be_pulled_needs_aerial_af_and_prc_data_up_front() {
    let road = paved_road();
    let mut holder = squad(9, Side::B, "4F5");
    holder.daisy_chain = Some(2);
    let make = |mover: Unit, chains: bool| {
        let mut units = vec![mover, holder.clone()];
        if let Some(prc) = units[0].vehicle().and_then(|v| v.riders.first().copied()) {
            units.push(squad(prc.0, Side::A, "4E4"));
            units.last_mut().unwrap().status.aboard = Some(UnitId(1));
        }
        let mut sc = scenario(&units, &[("4E4", road), ("4E5", road)], false);
        sc.ssr.daisy_chains = chains;
        engine(sc)
    };
    // No Aerial AF: refused before anything, naming the chain's hex.
    let mut e = make(afv(1, Side::A, "4E4", None), true);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &[]);
    run.assert_refused_asking_nothing();
    match &run.result {
        Err(ActionError::Refused(err)) => {
            assert!(
                err.reason.contains("Daisy Chain") && err.reason.contains("4E5"),
                "{err}"
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // A Rider aboard and no survival numbers: refused the same way.
    let mut tank = afv(1, Side::A, "4E4", Some(2));
    if let hexveil_asl::model::unit::UnitKind::Vehicle(v) = &mut tank.kind {
        v.riders.push(UnitId(2));
    }
    let mut e = make(tank.clone(), true);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &[]);
    run.assert_refused_asking_nothing();
    assert!(
        matches!(&run.result, Err(ActionError::Refused(e)) if e.reason.contains("prc_survival"))
    );
    // Without Daisy Chains in the scenario, both move (no leaf, no die:
    // the paved road holds no hidden mines, B28.1).
    for mover in [afv(1, Side::A, "4E4", None), tank] {
        let mut e = make(mover, false);
        let run = step(&mut e, &[1], "4E5", &Layout::new(), &[]);
        assert!(run.result.is_ok(), "{:?}", run.result);
        assert_eq!(unit(&e, 1).hex, Some(hex("4E5")));
    }
}
