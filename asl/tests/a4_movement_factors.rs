//! Movement Factors (A4.1, A19.31, A4.134 as R57 reads it): each unit's MF
//! spent in its MPh, a step costing more than the MF left refused before
//! anything is asked (naming the unit, the cost and the MF left), the
//! terrain costs of R57, vehicles' MP, the reset at the start of each MPh
//! and `mf_left` for clients.

mod mines_common;
use hexveil_asl::a::movement_factors::{Mf, DEFAULT_VEHICLE_MP};
use hexveil_asl::board::terrain::{HexInfo, Terrain};
use hexveil_asl::model::unit::{Leader, UnitId, UnitKind};
use hexveil_asl::turn::Phase;
use hexveil_asl::{mf_left, Action, Engine, MoveMode, Side};
use mines_common::*;

fn left(e: &Engine, id: u16) -> Option<Mf> {
    mf_left(e.state(), UnitId(id))
}

fn refusal(run: &Run) -> String {
    run.assert_refused_asking_nothing();
    run.result.as_ref().unwrap_err().to_string()
}

fn leader(id: u16, side: Side, at: &str) -> hexveil_asl::model::unit::Unit {
    let mut u = squad(id, side, at);
    u.kind = UnitKind::Leader(Leader {
        morale: 8,
        leadership: -1,
    });
    u
}

#[test]
fn a4_1_r57_a_squad_has_four_mf_of_open_ground_then_is_refused() {
    let mut e = engine_with(&[squad(1, Side::A, "4E2")]);
    assert_eq!(left(&e, 1), Some(Mf::whole(4)));
    let none = layout(&[]);
    for (to, after) in [("4E3", 3), ("4E4", 2), ("4E5", 1), ("4E6", 0)] {
        step(&mut e, &[1], to, &none, &quiet_step()).events();
        assert_eq!(left(&e, 1), Some(Mf::whole(after)), "after {to}");
    }
    let run = step(&mut e, &[1], "4E7", &none, &[]);
    let msg = refusal(&run);
    assert!(
        msg.contains("u1 cannot enter 4E7 (open): it costs 1 MF and it has 0 MF left"),
        "{msg}"
    );
    assert!(msg.contains("A4.1"), "{msg}");
    assert_eq!(e.state().unit(UnitId(1)).unwrap().hex, Some(hex("4E6")));
}

#[test]
fn r57_woods_cost_two_mf_and_a_fresh_unit_may_always_move_one_hex() {
    let sc = scenario(
        &[squad(1, Side::A, "4E2")],
        &[
            ("4E5", HexInfo::of(Terrain::Woods)),
            ("4E3", HexInfo::of(Terrain::Water)),
            ("4D2", HexInfo::of(Terrain::StoneRubble)),
        ],
        false,
    );
    let none = layout(&[]);
    // A19.31/A4.134 as R57 reads it: Water costs all MF, entered only as
    // the first move of the MPh.
    // Water and rubble hold no mines (B28.1): only the exit rolls.
    let mut e = engine(sc.clone());
    step(&mut e, &[1], "4E3", &none, &[unused_dr()]).events();
    assert_eq!(left(&e, 1), Some(Mf(0)));
    // Spent 1 MF: Water refused, rubble (3) allowed, then nothing left.
    let mut e = engine_where(sc.clone(), Phase::Movement, |st| {
        st.mf_spent.insert(UnitId(1), Mf::whole(1).0);
    });
    let msg = refusal(&step(&mut e, &[1], "4E3", &none, &[]));
    assert!(
        msg.contains("cannot enter 4E3 (water): it costs all its MF and it has 3 MF left"),
        "{msg}"
    );
    step(&mut e, &[1], "4D2", &none, &[unused_dr()]).events();
    assert_eq!(left(&e, 1), Some(Mf(0)));
    // Woods: 2 MF, refused with 1 left.
    let mut e = engine_where(sc, Phase::Movement, |st| {
        st.units.get_mut(&UnitId(1)).unwrap().hex = Some(hex("4E4"));
        st.mf_spent.insert(UnitId(1), Mf::whole(3).0);
    });
    let msg = refusal(&step(&mut e, &[1], "4E5", &none, &[]));
    assert!(
        msg.contains("cannot enter 4E5 (woods): it costs 2 MF and it has 1 MF left"),
        "{msg}"
    );
}

#[test]
fn a4_1_a19_31_leaders_have_six_mf_and_lend_two_to_their_stack() {
    let e = engine_with(&[
        squad(1, Side::A, "4E2"),
        leader(2, Side::A, "4E2"),
        squad(3, Side::A, "4E8"),
    ]);
    assert_eq!(left(&e, 2), Some(Mf::whole(6)));
    assert_eq!(left(&e, 1), Some(Mf::whole(6)));
    assert_eq!(left(&e, 3), Some(Mf::whole(4)));
}

#[test]
fn a4_a_stack_is_refused_if_any_unit_lacks_the_mf() {
    let sc = scenario(
        &[squad(1, Side::A, "4E2"), half_squad(2, Side::A, "4E2")],
        &[],
        false,
    );
    let mut e = engine_where(sc, Phase::Movement, |st| {
        st.mf_spent.insert(UnitId(2), Mf::whole(4).0);
    });
    let msg = refusal(&step(&mut e, &[1, 2], "4E3", &layout(&[]), &[]));
    assert!(msg.contains("u2 cannot enter 4E3"), "{msg}");
    assert!(msg.contains("0 MF left"), "{msg}");
    assert_eq!(left(&e, 1), Some(Mf::whole(4)), "nothing was spent");
}

#[test]
fn a4_a_move_not_to_an_adjacent_hex_names_the_adjacent_hexes() {
    let mut e = engine_with(&[squad(1, Side::A, "4E4")]);
    let msg = refusal(&step(&mut e, &[1], "4E6", &layout(&[]), &[]));
    assert!(msg.contains("4E6 is not ADJACENT to 4E4"), "{msg}");
    for n in ["4E3", "4F3", "4F4", "4E5", "4D4", "4D3"] {
        assert!(msg.contains(n), "{n} in {msg}");
    }
}

#[test]
fn r57_vehicles_spend_mp_roads_cost_half_and_woods_four() {
    let mut v = vehicle_data();
    v.printed_mp = 0;
    let mut sc = scenario(
        &[vehicle(1, Side::A, "4E2", v)],
        &[("4E3", paved_road()), ("4E4", HexInfo::of(Terrain::Woods))],
        false,
    );
    supply(&mut sc, &[("ift_vehicle_line", EXAMPLE_VEHICLE_LINE)]);
    let mut e = engine(sc.clone());
    assert_eq!(left(&e, 1), Some(Mf::whole(DEFAULT_VEHICLE_MP)));
    let rolls = quiet_vehicle_step();
    // The paved road in 4E3 is no place for hidden mines: only the exit
    // rolls (B28.1).
    let run = step(&mut e, &[1], "4E3", &layout(&[]), &rolls[..2]);
    run.events();
    assert_eq!(left(&e, 1), Some(Mf(2 * DEFAULT_VEHICLE_MP - 1)));
    let mut e = engine_where(sc, Phase::Movement, |st| {
        st.units.get_mut(&UnitId(1)).unwrap().hex = Some(hex("4E3"));
        st.mf_spent.insert(UnitId(1), Mf::whole(9).0);
    });
    let msg = refusal(&step(&mut e, &[1], "4E4", &layout(&[]), &[]));
    assert!(
        msg.contains("cannot enter 4E4 (woods): it costs 4 MP and it has 3 MP left"),
        "{msg}"
    );
}

#[test]
fn b28_61_a_trail_break_costs_twice() {
    use hexveil_asl::a::movement_factors::{cost, Cost};
    use hexveil_asl::board::map::Map;
    let map = Map::new([4]).with_hex(hex("4E5"), HexInfo::of(Terrain::Woods));
    let u = squad(1, Side::A, "4E4");
    let c = |mode| cost(&map, &u, hex("4E4"), hex("4E5"), mode);
    assert_eq!(c(MoveMode::Normal), Cost::Mf(Mf::whole(2)));
    assert_eq!(c(MoveMode::TrailBreak), Cost::Mf(Mf::whole(4)));
    assert_eq!(c(MoveMode::Bypass), Cost::Mf(Mf::whole(1)));
}

#[test]
fn a4_1_mf_reset_at_the_start_of_each_mph_and_shown_only_in_it() {
    let mut sc = scenario(&[squad(1, Side::A, "4E2")], &[], false);
    sc.turns = 2;
    let mut e = engine(sc);
    let none = layout(&[]);
    step(&mut e, &[1], "4E3", &none, &quiet_step()).events();
    assert_eq!(left(&e, 1), Some(Mf::whole(3)));
    let mut guard = 0;
    loop {
        let side = hexveil_asl::turn::who_ends_phase(e.state());
        drive(&mut e, side, Action::EndPhase, &none, &[]).events();
        if e.state().phase != Phase::Movement {
            assert_eq!(left(&e, 1), None, "{:?}", e.state().phase);
        }
        if e.state().phase == Phase::Movement && e.state().phasing == Side::A {
            break;
        }
        guard += 1;
        assert!(guard < 20);
    }
    assert_eq!(e.state().turn, 2);
    assert_eq!(left(&e, 1), Some(Mf::whole(4)));
}
