//! A19.2-A19.36 Inexperienced Personnel queries, and the A19.12 Disruption
//! restrictions the turn code asks about.

mod fire_common;
use fire_common::*;
use hexveil_asl::a::elr;
use hexveil_asl::a::inexperience::*;
use hexveil_asl::board::terrain::Terrain;
use hexveil_asl::model::unit::{Class, Trait, Unit, UnitId};
use hexveil_asl::Side;

const H: &str = "4E3";

fn st(units: &[Unit]) -> hexveil_asl::model::state::GameState {
    state(&scenario(sides("American", 3, "German", 3), units, &[]))
}

fn green(id: u16) -> Unit {
    squad(id, Side::A, "American", "5-3-6", Class::Green, H)
}

fn conscript(id: u16) -> Unit {
    squad(id, Side::A, "German", "4-3-6", Class::Conscript, H)
}

fn first_line(id: u16) -> Unit {
    squad(id, Side::A, "American", "6-6-6", Class::FirstLine, H)
}

#[test]
fn a19_2_green_and_conscript_are_inexperienced_smc_and_crews_never() {
    let crew = crew(2, Side::A, "American", "2-2-6", Class::Green, H);
    let s = st(&[
        green(0),
        conscript(1),
        crew.clone(),
        leader(3, Side::B, "German", 6, 1, "4E5"),
        first_line(4),
    ]);
    assert!(is_inexperienced_now(&s, UnitId(0)));
    assert!(is_inexperienced_now(&s, UnitId(1)));
    assert!(
        !is_inexperienced_now(&s, UnitId(2)),
        "crews are never Green"
    );
    assert!(!is_inexperienced_now(&s, UnitId(3)), "SMC are never Green");
    assert!(!is_inexperienced_now(&s, UnitId(4)));
    assert!(!may_use_stealth(&green(0)));
    assert!(!may_use_stealth(&conscript(1)));
    assert!(may_use_stealth(&crew));
}

#[test]
fn a19_2_green_never_uses_stealth_even_with_a_leader() {
    // Stealth is refused by class, not by leader presence.
    let s = st(&[green(0), leader(1, Side::A, "American", 8, -1, H)]);
    assert!(!is_inexperienced_now(&s, UnitId(0)));
    assert!(!may_use_stealth(s.unit(UnitId(0)).unwrap()));
}

#[test]
fn a19_3_green_with_unbroken_leader_is_exempt_conscript_and_unarmed_never() {
    let mut broken_leader = leader(9, Side::A, "American", 8, -1, H);
    broken_leader.status.broken = true;
    let s = st(&[green(0), broken_leader.clone()]);
    assert!(
        is_inexperienced_now(&s, UnitId(0)),
        "a broken leader does not exempt"
    );
    let s = st(&[green(0), leader(1, Side::B, "German", 8, -1, H)]);
    assert!(
        is_inexperienced_now(&s, UnitId(0)),
        "an enemy leader does not exempt"
    );
    let unarmed = with(first_line(2), Trait::Unarmed);
    let s = st(&[
        green(0),
        conscript(1),
        unarmed,
        leader(3, Side::A, "American", 9, -2, H),
    ]);
    assert!(!is_inexperienced_now(&s, UnitId(0)));
    assert!(is_inexperienced_now(&s, UnitId(1)));
    assert!(is_inexperienced_now(&s, UnitId(2)));
}

#[test]
fn a19_31_movement_allowances() {
    let s = st(&[
        green(0),
        conscript(1),
        first_line(2),
        with(conscript(3), Trait::Berserk),
    ]);
    assert_eq!(mf_allowance(&s, UnitId(0)), 3);
    assert_eq!(mf_allowance(&s, UnitId(1)), 3);
    assert_eq!(mf_allowance(&s, UnitId(2)), 4);
    assert_eq!(mf_allowance(&s, UnitId(3)), 8, "berserk keeps 8");
    let s = st(&[
        green(0),
        conscript(1),
        first_line(2),
        leader(4, Side::A, "American", 8, 0, H),
    ]);
    assert_eq!(
        mf_allowance(&s, UnitId(0)),
        6,
        "Green with a leader: the normal six"
    );
    assert_eq!(mf_allowance(&s, UnitId(1)), 5, "Conscript: 3 + 2");
    assert_eq!(mf_allowance(&s, UnitId(2)), 6);
    assert_eq!(mf_allowance(&s, UnitId(4)), 6);
}

#[test]
fn a19_32_inexperienced_sw_breakdown_is_one_lower() {
    let s = st(&[green(0), first_line(1)]);
    assert_eq!(sw_breakdown_modifier(&s, UnitId(0)), -1);
    assert_eq!(sw_breakdown_modifier(&s, UnitId(1)), 0);
}

#[test]
fn a19_33_cowering_shift_two_columns_with_any_inexperienced_firer() {
    let s = st(&[green(0), first_line(1)]);
    assert_eq!(cowering_shift(&s, &[UnitId(1)]), -1);
    assert_eq!(cowering_shift(&s, &[UnitId(0), UnitId(1)]), -2);
}

#[test]
fn a19_34_paatc_is_a_1tc_and_ccv_is_one_less() {
    let s = st(&[green(0), first_line(1)]);
    assert_eq!(paatc_drm(&s, UnitId(0)), 1);
    assert_eq!(paatc_drm(&s, UnitId(1)), 0);
    assert_eq!(ccv_modifier(&s, UnitId(0)), -1);
    assert_eq!(ccv_modifier(&s, UnitId(1)), 0);
}

#[test]
fn a19_35_capture_drm_is_minus_one_against_inexperienced() {
    let s = st(&[green(0), first_line(1)]);
    assert_eq!(capture_drm(&s, UnitId(0)), -1);
    assert_eq!(capture_drm(&s, UnitId(1)), 1);
}

#[test]
fn a19_36_inexperienced_are_lax() {
    let s = st(&[green(0), first_line(1)]);
    assert!(is_lax(&s, UnitId(0)));
    assert!(!is_lax(&s, UnitId(1)));
}

fn disrupted(id: u16, at: &str) -> Unit {
    let mut u = squad(id, Side::B, "German", "4-3-6", Class::Conscript, at);
    u.status.broken = true;
    u.status.disrupted = true;
    u
}

#[test]
fn a19_12_disrupted_surrenders_to_adjacent_or_same_location_good_order_known_enemy() {
    let sc = scenario(sides("American", 3, "German", 3), &[], &[]);
    let map = &sc.map;
    // ADJACENT (4E3 - 4E4), Good Order, Known.
    let s = st(&[disrupted(0, H), first_line(1).clone_at("4E4")]);
    assert!(elr::disrupted_must_surrender(&s, map, UnitId(0)));
    assert!(!elr::disrupted_must_surrender_in_location(&s, UnitId(0)));
    // Same Location.
    let s = st(&[disrupted(0, H), first_line(1)]);
    assert!(elr::disrupted_must_surrender_in_location(&s, UnitId(0)));
    // Two hexes away: no.
    let s = st(&[disrupted(0, H), first_line(1).clone_at("4E5")]);
    assert!(!elr::disrupted_must_surrender(&s, map, UnitId(0)));
    // Concealed, broken or in-Melee enemy: no.
    for f in [
        |u: &mut Unit| u.status.concealed = true,
        |u: &mut Unit| u.status.broken = true,
        |u: &mut Unit| u.status.in_melee = true,
    ] {
        let mut e = first_line(1).clone_at("4E4");
        f(&mut e);
        let s = st(&[disrupted(0, H), e]);
        assert!(!elr::disrupted_must_surrender(&s, map, UnitId(0)));
    }
    // A merely broken unit never surrenders by this rule.
    let mut b = disrupted(0, H);
    b.status.disrupted = false;
    let s = st(&[b, first_line(1).clone_at("4E4")]);
    assert!(!elr::disrupted_must_surrender(&s, map, UnitId(0)));
}

#[test]
fn a19_12_disrupted_rout_and_low_crawl_restrictions() {
    let woods = scenario(
        sides("American", 3, "German", 3),
        &[],
        &[(H, Terrain::Woods)],
    );
    let open = scenario(sides("American", 3, "German", 3), &[], &[]);
    let s = st(&[disrupted(0, H), first_line(1).clone_at("4E4")]);
    assert!(!elr::disrupted_may_rout(&s, &woods.map, UnitId(0)));
    assert!(
        elr::disrupted_may_rout(&s, &open.map, UnitId(0)),
        "Open Ground"
    );
    let s = st(&[
        disrupted(0, H),
        with(first_line(1).clone_at("4E4"), Trait::Berserk),
    ]);
    assert!(
        elr::disrupted_may_rout(&s, &woods.map, UnitId(0)),
        "only berserk enemy ADJACENT"
    );
    let d = disrupted(0, H);
    assert!(!elr::may_low_crawl(&d, false));
    assert!(elr::may_low_crawl(&d, true), "EXC: Night");
    assert!(!elr::may_self_rally(&d));
}

trait At {
    fn clone_at(&self, at: &str) -> Unit;
}

impl At for Unit {
    fn clone_at(&self, at: &str) -> Unit {
        let mut u = self.clone();
        u.hex = Some(hex(at));
        u
    }
}
