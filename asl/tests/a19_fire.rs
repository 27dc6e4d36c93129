//! Infantry fire through the real Engine: IFT results (A7.301-A7.305, R7),
//! Cowering (A7.9, A19.33), Ammunition Shortage (A19.131), TEM and
//! leadership, concealment (A12.14, B28.411) and refusals.

mod fire_common;
use fire_common::*;
use hexveil_asl::a::fire::FireEvent;
use hexveil_asl::a::ift::IftResult;
use hexveil_asl::a::morale::{self, AttackInfo, MoraleEvent};
use hexveil_asl::board::terrain::Terrain;
use hexveil_asl::model::resolve::{Ctx, Interrupt};
use hexveil_asl::model::scenario::SideOb;
use hexveil_asl::model::unit::{Class, InfantrySize, Trait, Unit, UnitId};
use hexveil_asl::Side;

#[test]
fn a7_302_r7_k_result_reduces_by_random_selection_then_everyone_takes_the_mc() {
    let mut e = russians_vs(vec![german(2), german(3)], 5);
    // 8 FP DR 3 = K/2; Random Selection dr 5 vs 2 -> unit 2 Reduced; then
    // both (the Reduced HS too) take a 2MC: 2+2 and 4+2, both pass.
    let ev = group_fires(&mut e, &[dr(1, 2), d(5), d(2), dr(1, 1), dr(2, 2)]).unwrap();
    assert_eq!(unit(&e, 2).label(), "2-4-7 HS");
    assert_eq!(unit(&e, 3).label(), "4-6-7 squad");
    let checks: Vec<UnitId> = morale_events(&ev)
        .iter()
        .filter_map(|m| match m {
            MoraleEvent::MoraleCheck { unit, drm: 2, .. } => Some(*unit),
            _ => None,
        })
        .collect();
    assert_eq!(
        checks,
        vec![UnitId(2), UnitId(3)],
        "R7: the Reduced unit takes the MC too"
    );
}

#[test]
fn r7_k_result_ties_at_the_cut_reduce_every_tied_unit() {
    let mut e = russians_vs(vec![german(2), german(3)], 5);
    group_fires(&mut e, &[dr(1, 2), d(4), d(4), dr(1, 1), dr(2, 1)]).unwrap();
    assert_eq!(unit(&e, 2).label(), "2-4-7 HS");
    assert_eq!(unit(&e, 3).label(), "2-4-7 HS");
}

#[test]
fn a7_301_r7_kia_eliminates_selected_ties_included_and_breaks_the_rest_without_mc() {
    let mut e = russians_vs(vec![german(2), german(3), german(4)], 5);
    // DR 3 - 1 = 2 on 8 FP = 1KIA; dr 4, 4, 1: units 2 and 3 tie at the cut.
    let ev = run(
        &mut e,
        Side::A,
        fire_drm(&[0, 1], TARGET, -1),
        &[dr(1, 2), d(4), d(4), d(1)],
    )
    .unwrap();
    assert!(!unit(&e, 2).in_play() && !unit(&e, 3).in_play());
    assert!(unit(&e, 4).in_play() && unit(&e, 4).status.broken);
    assert!(!morale_events(&ev)
        .iter()
        .any(|m| matches!(m, MoraleEvent::MoraleCheck { .. })));
}

#[test]
fn a7_301_kia_of_more_than_the_targets_eliminates_all_without_rolling() {
    let mut e = russians_vs(vec![german(2)], 5);
    // DR 3 - 3 = 0 on 8 FP = 3KIA: one target, no Random Selection dice.
    run(&mut e, Side::A, fire_drm(&[0, 1], TARGET, -3), &[dr(1, 2)]).unwrap();
    assert!(!unit(&e, 2).in_play());
}

#[test]
fn a7_305_ptc_pins_and_never_breaks() {
    let mut e = russians_vs(vec![german(2)], 5);
    // 8 FP DR 9 = PTC; TC 4+4 = 8 > 7: pinned.
    let ev = group_fires(&mut e, &[dr(3, 6), dr(4, 4)]).unwrap();
    let u = unit(&e, 2);
    assert!(u.status.pinned && !u.status.broken);
    assert!(morale_events(&ev).contains(&MoraleEvent::Pinned { unit: UnitId(2) }));
}

#[test]
fn b28_9_ptc_immune_units_roll_only_for_booby_traps() {
    let mut e = russians_vs(vec![with(german(2), Trait::Berserk)], 5);
    let ev = group_fires(&mut e, &[dr(3, 6), dr(6, 5)]).unwrap();
    assert!(!unit(&e, 2).status.pinned);
    assert!(morale_events(&ev).iter().any(|m| matches!(
        m,
        MoraleEvent::TaskCheck {
            booby_trap_only: true,
            passed: false,
            ..
        }
    )));
}

#[test]
fn a7_3_no_effect_is_a_public_event_too() {
    let mut e = russians_vs(vec![german(2)], 5);
    // 8 FP DR 11: no effect.
    let ev = group_fires(&mut e, &[dr(5, 6)]).unwrap();
    assert!(morale_events(&ev).iter().any(|m| matches!(
        m,
        MoraleEvent::IftResult {
            result: IftResult::NoEffect,
            ..
        }
    )));
    assert_eq!(unit(&e, 2), &german(2));
}

#[test]
fn a7_3_tem_of_the_target_hex_is_added() {
    let mut units = russian_group();
    units.extend([german(2)]);
    let mut e = engine(scenario(
        sides("Russian", 3, "German", 5),
        &units,
        &[(TARGET, Terrain::StoneBuilding)],
    ));
    // DR 4 + 3 = 7 on 8 FP = 1MC.
    let ev = group_fires(&mut e, &[dr(1, 3), dr(1, 2)]).unwrap();
    assert!(fire_events(&ev).iter().any(|f| matches!(
        f,
        FireEvent::Attack {
            tem: 3,
            final_dr: 7,
            result: IftResult::Mc(1),
            fp: 8,
            ..
        }
    )));
}

#[test]
fn a10_leadership_helps_other_units_in_the_location_and_leader_checks_first() {
    let mut e = russians_vs(
        vec![german(2), leader(3, Side::B, "German", 8, -1, TARGET)],
        5,
    );
    // 8 FP DR 8 = NMC. Leader first (no own leadership), then the squad at -1.
    let ev = group_fires(&mut e, &[dr(3, 5), dr(4, 4), dr(4, 4)]).unwrap();
    let checks: Vec<(UnitId, i8, bool)> = morale_events(&ev)
        .iter()
        .filter_map(|m| match m {
            MoraleEvent::MoraleCheck {
                unit,
                leadership,
                passed,
                ..
            } => Some((*unit, *leadership, *passed)),
            _ => None,
        })
        .collect();
    assert_eq!(checks, vec![(UnitId(3), 0, true), (UnitId(2), -1, true)]);
}

/// An engine in A's PFPh: American `units` (side A, ELR 3) and German ones
/// (side B, ELR 5) on open ground.
fn americans_vs(units: &[Unit]) -> hexveil_asl::Engine {
    engine(scenario(sides("American", 3, "German", 5), units, &[]))
}

/// The fire events of an attack by the American group (ids 0 and 1) among
/// `units` on doubles (DR 2,2), its MC rolled 1,1: Cowering's case (A7.9).
fn fire_on_doubles(units: &[Unit]) -> Vec<FireEvent> {
    let mut e = americans_vs(units);
    fire_events(&group_fires(&mut e, &[dr(2, 2), dr(1, 1)]).unwrap())
}

/// An American squad of side A in [`FIRERS`].
fn american(id: u16, strength: &str, class: Class) -> Unit {
    squad(id, Side::A, "American", strength, class, FIRERS)
}

#[test]
fn a7_9_cowering_on_doubles_without_a_leader_shifts_one_column() {
    let units = vec![
        american(0, "5-4-6", Class::SecondLine),
        american(1, "5-4-6", Class::SecondLine),
        german(2),
    ];
    // 10 FP -> 8 column; doubles 2,2 = 4: cowers to 6 column: 2MC.
    let f = fire_on_doubles(&units);
    assert!(f.contains(&FireEvent::Cowered { shift: -1 }));
    assert!(f.iter().any(|x| matches!(
        x,
        FireEvent::Attack {
            column: 6,
            cowering_shift: -1,
            ..
        }
    )));
}

#[test]
fn a19_33_fire_group_with_inexperienced_personnel_cowers_two_columns() {
    let units = vec![
        american(0, "5-3-6", Class::Green),
        american(1, "5-4-6", Class::SecondLine),
        german(2),
    ];
    // 10 FP, doubles 4: two columns left -> 4 FP column DR 4 = 1MC.
    let f = fire_on_doubles(&units);
    assert!(f.contains(&FireEvent::Cowered { shift: -2 }));
    assert!(f.iter().any(|x| matches!(
        x,
        FireEvent::Attack {
            column: 4,
            result: IftResult::Mc(1),
            ..
        }
    )));
}

#[test]
fn a7_9_a19_3_a_leader_in_the_location_prevents_cowering() {
    let units = vec![
        american(0, "5-3-6", Class::Green),
        american(1, "5-3-6", Class::Green),
        leader(2, Side::A, "American", 8, 0, FIRERS),
        german(3),
    ];
    let f = fire_on_doubles(&units);
    assert!(!f.iter().any(|x| matches!(x, FireEvent::Cowered { .. })));
    assert!(f.iter().any(|x| matches!(
        x,
        FireEvent::Attack {
            column: 8,
            result: IftResult::Mc(2),
            ..
        }
    )));
}

fn shortage_side(nat: &str) -> std::collections::BTreeMap<Side, SideOb> {
    let mut s = sides(nat, 3, "Russian", 5);
    s.get_mut(&Side::A).unwrap().ammunition_shortage = true;
    s
}

fn russian(id: u16) -> Unit {
    squad(id, Side::B, "Russian", "4-4-7", Class::FirstLine, TARGET)
}

/// A German squad of side A in [`FIRERS`].
fn german_firer(id: u16, strength: &str, class: Class) -> Unit {
    squad(id, Side::A, "German", strength, class, FIRERS)
}

/// An engine in A's PFPh: German `firers` (side A, ELR 3, under
/// Ammunition Shortage, A19.131) facing a Russian 4-4-7 (side B, ELR 5) in
/// [`TARGET`], whose id follows the firers'.
fn short_of_ammunition(mut firers: Vec<Unit>) -> hexveil_asl::Engine {
    firers.push(russian(firers.len() as u16));
    engine(scenario(shortage_side("German"), &firers, &[]))
}

#[test]
fn a19_131_original_12_with_ammunition_shortage_replaces_the_firer_after_the_attack() {
    let mut e = short_of_ammunition(vec![german_firer(0, "4-6-7", Class::FirstLine)]);
    // 4 FP DR 12: no effect; then the shortage.
    let ev = run(&mut e, Side::A, fire(&[0], TARGET), &[dr(6, 6)]).unwrap();
    assert!(fire_events(&ev).contains(&FireEvent::AmmunitionShortage { unit: UnitId(0) }));
    let new = unit(&e, 2);
    assert_eq!(new.label(), "4-4-7 squad");
    assert!(
        !new.status.broken,
        "ruling: Replacement by shortage does not break"
    );
    assert!(!unit(&e, 0).in_play());
    // The attack came first: its event precedes the shortage's.
    let f = fire_events(&ev);
    let attack = f.iter().position(|x| matches!(x, FireEvent::Attack { .. }));
    let short = f
        .iter()
        .position(|x| matches!(x, FireEvent::AmmunitionShortage { .. }));
    assert!(attack.unwrap() < short.unwrap());
}

#[test]
fn a19_131_fire_group_member_is_chosen_by_random_selection() {
    let mut e = short_of_ammunition(vec![
        german_firer(0, "4-6-7", Class::FirstLine),
        german_firer(1, "4-6-7", Class::FirstLine),
    ]);
    // 8 FP DR 12 no effect; Random Selection dr 2, 5: unit 1.
    group_fires(&mut e, &[dr(6, 6), d(2), d(5)]).unwrap();
    assert!(unit(&e, 0).in_play());
    assert!(!unit(&e, 1).in_play());
    assert_eq!(unit(&e, 3).label(), "4-4-7 squad");
}

#[test]
fn a19_131_mmc_without_lower_quality_breaks_unless_berserk() {
    let mut e = short_of_ammunition(vec![german_firer(0, "4-3-6", Class::Conscript)]);
    run(&mut e, Side::A, fire(&[0], TARGET), &[dr(6, 6)]).unwrap();
    let u = unit(&e, 0);
    assert!(u.status.broken && !u.status.disrupted && u.in_play());

    let berserk = with(german_firer(0, "4-3-6", Class::Conscript), Trait::Berserk);
    let mut e = short_of_ammunition(vec![berserk]);
    run(&mut e, Side::A, fire(&[0], TARGET), &[dr(6, 6)]).unwrap();
    assert!(!unit(&e, 0).status.broken);
}

#[test]
fn a19_131_no_shortage_or_no_12_means_no_replacement() {
    let units = vec![
        squad(0, Side::A, "German", "4-6-7", Class::FirstLine, FIRERS),
        russian(1),
    ];
    let mut e = engine(scenario(sides("German", 3, "Russian", 5), &units, &[]));
    run(&mut e, Side::A, fire(&[0], TARGET), &[dr(6, 6)]).unwrap();
    assert!(unit(&e, 0).in_play());
    let mut e = engine(scenario(shortage_side("German"), &units, &[]));
    run(&mut e, Side::A, fire(&[0], TARGET), &[dr(6, 5)]).unwrap();
    assert!(unit(&e, 0).in_play());
}

#[test]
fn a19_131_shortage_queries() {
    use hexveil_asl::a::ammunition::*;
    let sc = scenario(shortage_side("German"), &[], &[]);
    assert_eq!(sw_breakdown_modifier(&sc, Side::A, false), -1);
    assert_eq!(sw_breakdown_modifier(&sc, Side::A, true), 0, "EXC: DC");
    assert_eq!(sw_breakdown_modifier(&sc, Side::B, false), 0);
    assert_eq!(depletion_modifier(&sc, Side::A), -1);
    assert_eq!(
        circled_breakdown(&sc, Side::A, 12, false),
        Some(CircledBreakdown {
            number: 11,
            starts_low_ammo: false
        })
    );
    assert_eq!(
        circled_breakdown(&sc, Side::A, 11, true),
        Some(CircledBreakdown {
            number: 10,
            starts_low_ammo: true
        })
    );
    assert_eq!(circled_breakdown(&sc, Side::B, 12, false), None);
    assert!(!fire_lanes_allowed(&sc, Side::A));
    assert!(fire_lanes_allowed(&sc, Side::B));
    assert!(!original_12_replaces(&sc, Side::A, AttackKind::ToHit));
    assert!(!original_12_replaces(&sc, Side::A, AttackKind::CloseCombat));
    assert!(!original_12_replaces(&sc, Side::A, AttackKind::Sniper));
    assert!(!original_12_replaces(&sc, Side::A, AttackKind::Residual));
    assert!(original_12_replaces(&sc, Side::A, AttackKind::InherentFp));
}

#[test]
fn a12_14_fire_that_pins_a_concealed_unit_reveals_it() {
    let mut g = german(2);
    g.status.concealed = true;
    let mut e = russians_vs(vec![g], 5);
    let ev = group_fires(&mut e, &[dr(3, 6), dr(4, 4)]).unwrap();
    assert!(!unit(&e, 2).status.concealed);
    assert!(morale_events(&ev).contains(&MoraleEvent::ConcealmentLost { unit: UnitId(2) }));
}

/// Applies `result` with minefield AttackInfo over a Ctx with these dice.
fn minefield_attack(u: Unit, result: IftResult, dice: &[hexveil_asl::Roll]) -> Unit {
    let sc = scenario(
        sides("Russian", 3, "German", 5),
        std::slice::from_ref(&u),
        &[],
    );
    let info = AttackInfo::minefield(hex(TARGET));
    let no_facts = |r| panic!("a minefield attack's result asked for facts {r:?}");
    let run = drive_ctx(&sc, &state(&sc), Side::A, &no_facts, dice, &|ctx| {
        morale::apply_ift_result(ctx, &[u.id], result, &info)
    });
    assert_eq!(run.rolls_used, dice.len(), "dice left over");
    let (st, _) = run.finished();
    st.unit(u.id).unwrap().clone()
}

#[test]
fn b28_411_minefield_concealment_lost_only_on_break_or_casualty_reduction() {
    let mut g = german(2);
    g.status.concealed = true;
    // PTC failed: pinned, still concealed.
    let u = minefield_attack(g.clone(), IftResult::Ptc, &[dr(4, 4)]);
    assert!(u.status.pinned && u.status.concealed);
    // NMC failed: broken, concealment lost.
    let u = minefield_attack(g.clone(), IftResult::Nmc, &[dr(4, 4)]);
    assert!(u.status.broken && !u.status.concealed);
    // K/1 on a lone unit: reduced (no dice for Random Selection), MC passed: lost.
    let u = minefield_attack(g, IftResult::K(1), &[dr(1, 1)]);
    assert!(!u.status.broken && !u.status.concealed && u.label() == "2-4-7 HS");
}

#[test]
fn apply_ift_result_asks_dice_through_the_context() {
    let g = german(2);
    let sc = scenario(
        sides("Russian", 3, "German", 5),
        &[g.clone(), german(3)],
        &[],
    );
    let mut ctx = Ctx::new(&sc, state(&sc), Side::A, &[], &[]);
    let r = morale::apply_ift_result(
        &mut ctx,
        &[UnitId(2), UnitId(3)],
        IftResult::Kia(1),
        &AttackInfo::fire(hex(TARGET)),
    );
    match r {
        Err(Interrupt::Dice(specs)) => {
            assert_eq!(specs.len(), 2, "one dr per candidate");
            assert!(specs.iter().all(|s| s.cite == "A.9"));
        }
        other => panic!("expected a dice request, got {other:?}"),
    }
}

fn pinned(id: u16) -> Unit {
    let mut u = squad(id, Side::A, "Russian", "4-4-7", Class::FirstLine, FIRERS);
    u.status.pinned = true;
    u
}

#[test]
fn a7_refusals_change_nothing() {
    let mut broken = squad(0, Side::A, "Russian", "4-4-7", Class::FirstLine, FIRERS);
    broken.status.broken = true;
    let units = vec![
        broken,
        squad(1, Side::A, "Russian", "4-4-7", Class::FirstLine, "4E9"),
        leader(2, Side::A, "Russian", 8, -1, FIRERS),
        german(3),
        squad(4, Side::A, "Russian", "4-4-7", Class::FirstLine, FIRERS),
        pinned(5),
    ];
    let mut e = engine(scenario(sides("Russian", 3, "German", 5), &units, &[]));
    let before = e.state().clone();
    for (action, side, needle) in [
        (fire(&[0], TARGET), Side::A, "broken"),
        (fire(&[3], FIRERS), Side::A, "belongs to side B"),
        (fire(&[4, 1], TARGET), Side::A, "contiguous"),
        (fire(&[2], TARGET), Side::A, "leader alone"),
        (fire(&[], TARGET), Side::A, "at least one"),
        (fire(&[4, 4], TARGET), Side::A, "twice"),
        (fire(&[4], FIRERS), Side::A, "own Location"),
        (fire(&[4], "7E3"), Side::A, "not on the map"),
        (fire(&[5], TARGET), Side::A, "pinned"),
    ] {
        let err = e.apply(side, action).unwrap_err();
        assert!(
            err.to_string().contains(needle),
            "{err} should mention {needle}"
        );
        assert_eq!(e.state(), &before);
        assert!(!e.is_pending());
    }
    let _ = InfantrySize::Squad;
}

#[test]
fn a10_a_leader_broken_by_the_same_attack_lends_no_leadership() {
    let mut e = russians_vs(
        vec![german(2), leader(3, Side::B, "German", 8, -1, TARGET)],
        5,
    );
    // NMC: the leader fails first (5+5 = 10 > 8, by 2 <= ELR 5) and breaks;
    // the squad then checks without the -1.
    let ev = group_fires(&mut e, &[dr(3, 5), dr(5, 5), dr(4, 4)]).unwrap();
    assert!(unit(&e, 3).status.broken);
    let squad_check = morale_events(&ev).into_iter().find_map(|m| match m {
        MoraleEvent::MoraleCheck {
            unit: UnitId(2),
            leadership,
            final_dr,
            ..
        } => Some((leadership, final_dr)),
        _ => None,
    });
    assert_eq!(squad_check, Some((0, 8)));
    assert!(unit(&e, 2).status.broken, "8 > 7");
}

#[test]
fn a7_21_point_blank_fire_doubles_fp_against_an_adjacent_location() {
    let mut adjacent = german(2);
    adjacent.hex = Some(hex("4E3"));
    let mut e = russians_vs(vec![adjacent], 5);
    // 16 FP DR 4 = K/3 (8 FP would be 2MC); lone target: Reduced, then 3MC 1+1+3 = 5 passes.
    let ev = run(&mut e, Side::A, fire(&[0, 1], "4E3"), &[dr(1, 3), dr(1, 1)]).unwrap();
    assert!(fire_events(&ev).iter().any(|f| matches!(
        f,
        FireEvent::Attack {
            fp: 16,
            result: IftResult::K(3),
            ..
        }
    )));
    assert_eq!(unit(&e, 2).label(), "2-4-7 HS");
}

#[test]
fn a7_22_fire_beyond_normal_range_is_refused() {
    let units = vec![
        squad(0, Side::A, "American", "5-3-6", Class::Green, "4E1"),
        squad(1, Side::B, "German", "4-6-7", Class::FirstLine, "4E5"),
    ];
    let mut e = americans_vs(&units);
    let err = e.apply(Side::A, fire(&[0], "4E5")).unwrap_err();
    assert!(err.to_string().contains("normal range 3"), "{err}");
    assert!(!e.is_pending());
}

#[test]
fn a6_fire_needs_los_from_every_firing_hex() {
    let units = vec![
        squad(0, Side::A, "Russian", "4-4-7", Class::FirstLine, FIRERS),
        german(1),
    ];
    let mut e = engine(scenario(
        sides("Russian", 3, "German", 5),
        &units,
        &[("4E3", Terrain::Woods)],
    ));
    let err = e.apply(Side::A, fire(&[0], TARGET)).unwrap_err();
    assert!(err.to_string().contains("no LOS"), "{err}");
    // Without the woods the same fire is adjudicated.
    let mut e = engine(scenario(sides("Russian", 3, "German", 5), &units, &[]));
    assert!(run(&mut e, Side::A, fire(&[0], TARGET), &[dr(6, 5)]).is_ok());
}

#[test]
fn a10_3_broken_unit_failing_an_mc_is_casualty_reduced_citing_a10_3() {
    let mut g = german(2);
    g.status.broken = true;
    let mut e = russians_vs(vec![g], 0);
    // 8 FP DR 4 = 2MC; MC 6 + 2 = 8 > 7 fails by 1 > ELR 0, but a broken
    // unit is Reduced (A10.3), never Replaced (A19.11).
    let ev = group_fires(&mut e, &[dr(1, 3), dr(3, 3)]).unwrap();
    let cr = ev
        .iter()
        .find(|x| {
            matches!(
                &x.kind,
                hexveil_asl::EventKind::Morale(MoraleEvent::CasualtyReduced { .. })
            )
        })
        .expect("a Casualty Reduction event");
    assert!(cr.cite.iter().any(|c| c == "A10.3"), "{:?}", cr.cite);
    assert_eq!(unit(&e, 2).label(), "2-4-7 HS");
    assert!(unit(&e, 2).status.broken);
    assert_eq!(
        e.state().units.len(),
        3,
        "A19.11: broken units are never Replaced"
    );
}

/// The [`russian_group`] facing `target` (ELR 5) on board 4, where side A
/// may place Booby Traps (B28.9).
fn booby_trapped(target: Unit) -> hexveil_asl::Engine {
    let mut s = sides("Russian", 3, "German", 5);
    s.get_mut(&Side::A).unwrap().booby_trap_boards = vec![4];
    let mut units = russian_group();
    units.push(target);
    engine(scenario(s, &units, &[]))
}

#[test]
fn b28_9_a_ptc_from_fire_gives_its_original_dr_to_the_booby_trap_hook() {
    use hexveil_asl::model::sealed::{BoobyLevel, Content};
    let mut e = booby_trapped(german(2));
    // 8 FP DR 9 = PTC; TC Original 12: pinned, and Level C (12) goes off:
    // the lone German squad is Casualty Reduced.
    let ev = run_with_facts(
        &mut e,
        Side::A,
        fire(&[0, 1], TARGET),
        &[dr(3, 6), dr(6, 6)],
        &[Content::BoobyTraps(BoobyLevel::C)],
    )
    .unwrap();
    let u = unit(&e, 2);
    assert!(u.status.pinned);
    assert_eq!(u.label(), "2-4-7 HS");
    assert!(ev
        .iter()
        .any(|x| matches!(&x.kind, hexveil_asl::EventKind::BoobyTrap(_))));
}

#[test]
fn b28_9_ptc_immune_unit_still_sets_off_booby_traps() {
    use hexveil_asl::model::sealed::{BoobyLevel, Content};
    let mut e = booby_trapped(with(german(2), Trait::Berserk));
    run_with_facts(
        &mut e,
        Side::A,
        fire(&[0, 1], TARGET),
        &[dr(3, 6), dr(6, 6)],
        &[Content::BoobyTraps(BoobyLevel::C)],
    )
    .unwrap();
    let u = unit(&e, 2);
    assert!(!u.status.pinned, "berserk: immune to PTC");
    assert_eq!(
        u.label(),
        "2-4-7 HS",
        "but the TC still set off the Booby Trap"
    );
}

#[test]
fn b28_9_a_tc_below_11_never_opens_the_booby_trap_leaf() {
    let mut e = booby_trapped(german(2));
    // run() panics if facts are asked.
    group_fires(&mut e, &[dr(3, 6), dr(5, 5)]).unwrap();
    assert!(unit(&e, 2).status.pinned);
    assert!(e.state().referee_knows.is_empty());
}
