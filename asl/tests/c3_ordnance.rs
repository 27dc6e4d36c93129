//! C3 ordnance through the Engine: every C3 row of DUTIES.md, with the
//! seed's examples where the shipped data allows and the clear refusal
//! (table, row, column) where it does not. Supplied tables in these tests
//! are test data, marked so, standing in for a league's (R12).

#[path = "fire_common/mod.rs"]
mod fire_common;
use fire_common::*;

use hexveil_asl::a::morale::MoraleEvent;
use hexveil_asl::b28::minefield::VehicleOutcome;
use hexveil_asl::board::hex::{Direction, Spine};
use hexveil_asl::board::terrain::Terrain;
use hexveil_asl::c3::covered_arc::ca_hexes;
use hexveil_asl::c3::hit::{Aspect, HitOutcome};
use hexveil_asl::c3::ordnance::{Drm, OrdnanceEvent};
use hexveil_asl::dice::Roll;
use hexveil_asl::model::action::TargetType;
use hexveil_asl::model::event::Event;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::unit::{
    Ammo, Class, Facing, Gun, HullArmor, Ordnance, Suffix, ThColour, Unit, UnitId, UnitKind,
    Vehicle,
};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, ActionError, Engine, EventKind, Side};
use hexveil_core::{SuppliedTable, SuppliedTables};

// ---------------------------------------------------------------------------
// Fixtures.

fn ordnance(mm: u16, suffix: Suffix, colour: ThColour, he_fp: u8) -> Ordnance {
    Ordnance {
        calibre_mm: mm,
        suffix,
        colour,
        he_fp: Some(he_fp),
        ammo: [Ammo::He, Ammo::Ap, Ammo::Wp].into_iter().collect(),
        mortar: false,
        turreted: false,
        max_range: 40,
        multi_tk: false,
    }
}

/// A German 75mm Gun (black TH#, 8 FP HE).
fn gun75() -> Ordnance {
    ordnance(75, Suffix::None, ThColour::Black, 8)
}

fn gun(id: u16, side: Side, nat: &str, at: &str, o: Ordnance, facing: Facing) -> Unit {
    let mut u = new_unit(id, side, nat, at, UnitKind::Gun(Gun { ordnance: o }));
    u.status.facing = Some(facing);
    u
}

fn truck(id: u16, side: Side, at: &str, size_drm: i8) -> Unit {
    let v = Vehicle {
        size_drm,
        ..Vehicle::default()
    };
    new_unit(id, side, "Russian", at, UnitKind::Vehicle(v))
}

fn tank(id: u16, side: Side, at: &str, o: Option<Ordnance>, hd: bool) -> Unit {
    let mut u = truck(id, side, at, 0);
    if let UnitKind::Vehicle(v) = &mut u.kind {
        v.hull = Some(HullArmor {
            front: 8,
            side: Some(4),
            rear: Some(4),
        });
        v.turret = Some(HullArmor {
            front: 6,
            side: Some(3),
            rear: Some(3),
        });
        v.fully_tracked = true;
        v.ordnance = o;
        v.hull_down = hd;
    }
    u.status.facing = Some(Facing::Spine(Spine::SSE));
    u
}

/// A German Gun (id 0) in 4E2 facing SSE with its crew (id 1), and the
/// targets given (side B, Russian); terrain as given; A's PFPh.
fn setup(o: Ordnance, targets: Vec<Unit>, terrain: &[(&str, Terrain)]) -> Scenario {
    let mut units = vec![
        gun(0, Side::A, "German", "4E2", o, Facing::Spine(Spine::SSE)),
        crew(1, Side::A, "German", "2-2-8", Class::FirstLine, "4E2"),
    ];
    units.extend(targets);
    scenario(sides("German", 3, "Russian", 3), &units, terrain)
}

fn rsquad(id: u16, at: &str) -> Unit {
    squad(id, Side::B, "Russian", "4-4-7", Class::FirstLine, at)
}

fn shoot(gun: u16, target: &str, tt: TargetType, ammo: Ammo) -> Action {
    Action::OrdnanceFire {
        gun: UnitId(gun),
        target: hex(target),
        target_type: tt,
        ammo,
        change_ca: None,
        extra_drm: 0,
    }
}

fn ord(events: &[Event]) -> Vec<OrdnanceEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Ordnance(o) => Some(o.clone()),
            _ => None,
        })
        .collect()
}

fn outcomes(events: &[Event]) -> Vec<(u16, HitOutcome)> {
    ord(events)
        .into_iter()
        .filter_map(|o| match o {
            OrdnanceEvent::Target { unit, outcome, .. } => Some((unit.0, outcome)),
            _ => None,
        })
        .collect()
}

/// Basic TH#, Modified TH#, modifications and common DRM of the shot.
fn to_hit(events: &[Event]) -> (i8, i8, Vec<Drm>, Vec<Drm>) {
    ord(events)
        .into_iter()
        .find_map(|o| match o {
            OrdnanceEvent::ToHit {
                basic_th,
                modified_th,
                modifications,
                drm,
                ..
            } => Some((basic_th, modified_th, modifications, drm)),
            _ => None,
        })
        .expect("a To Hit event")
}

fn effects(events: &[Event]) -> Vec<(Vec<u16>, u8, bool, i8, i16)> {
    ord(events)
        .into_iter()
        .filter_map(|o| match o {
            OrdnanceEvent::Effects {
                targets,
                fp,
                critical,
                drm,
                final_dr,
                ..
            } => Some((
                targets.iter().map(|u| u.0).collect(),
                fp,
                critical,
                drm,
                final_dr,
            )),
            _ => None,
        })
        .collect()
}

fn refusal(r: Result<Vec<Event>, ActionError>) -> String {
    match r {
        Err(e) => e.to_string(),
        Ok(ev) => panic!("expected a refusal, got {ev:?}"),
    }
}

fn plain_hit() -> HitOutcome {
    HitOutcome::Hit {
        critical: false,
        aspect: None,
        improbable: false,
    }
}

/// Test data standing in for a league's complete To Hit table (R12).
const LEAGUE_TO_HIT: &str = "# test data, not the printed chart\n\
target_type,colour,range_band,basic_th\n\
infantry,black,2,8\n\
area,red,2,7\n\
infantry,black,3-6,8\n\
infantry,red,3-6,8\n\
area,red,3-6,7\n\
vehicle,black,3-6,8\n\
vehicle,red,3-6,8\n";

/// Test data: the C4 rows the C3.32 EX implies (LL and <=57mm sum to 0
/// at 3-6).
const LEAGUE_MODS: &str = "# test data\nmodification,range_band,value\n\
LL,3-6,+1\n\
<=57mm,3-6,-1\n\
<=40mm,3-6,0\n";

/// Test data: a complete Vehicle line.
const LEAGUE_VEHICLE_LINE: &str = "# test data\nfp_column,kill_number\n\
1,3\n2,4\n4,5\n6,6\n8,7\n12,8\n16,9\n20,10\n24,11\n30,12\n36,13\n";

/// Test data standing in for a league's To Kill table (C7 is not in the
/// seeds; R77): Basic TK# 10 for the 75mm's AP, 7 for its HE, 6 for the
/// 37mm's AP, at any range up to 10.
const LEAGUE_TO_KILL: &str = "# test data, not the printed TK tables\n\
ammo,calibre_mm,suffix,range_min,range_max,basic_tk\n\
AP,75,,0,10,10\n\
HE,75,,0,10,7\n\
AP,37,,0,10,6\n";

/// What each roll of a shot was for, in order.
fn dice_purposes(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Dice { purpose, .. } => Some(purpose.clone()),
            _ => None,
        })
        .collect()
}

/// The To Kill events of a shot.
fn to_kill(events: &[Event]) -> Vec<OrdnanceEvent> {
    ord(events)
        .into_iter()
        .filter(|o| matches!(o, OrdnanceEvent::ToKill { .. }))
        .collect()
}

fn supply(sc: &mut Scenario, tables: &[(&str, &str)]) {
    sc.tables = SuppliedTables(
        tables
            .iter()
            .map(|(n, t)| {
                (
                    n.to_string(),
                    SuppliedTable {
                        csv: Some(t.to_string()),
                        ..Default::default()
                    },
                )
            })
            .collect(),
    );
}

// ---------------------------------------------------------------------------
// C3.1, C3.3: To Hit, then the effects of a hit.

#[test]
fn c3_1_a_miss_needs_nothing_more_a_hit_goes_to_the_ift() {
    let sc = setup(gun75(), vec![rsquad(2, "4E5")], &[]);
    let mut e = engine(sc.clone());
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(4, 5)],
    )
    .unwrap();
    assert_eq!(outcomes(&ev), vec![(2, HitOutcome::Miss)]);
    assert!(effects(&ev).is_empty());
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(3, 4), dr(6, 6)],
    )
    .unwrap();
    assert_eq!(outcomes(&ev), vec![(2, plain_hit())]);
    assert_eq!(effects(&ev), vec![(vec![2], 8, false, 0, 12)]);
}

#[test]
fn c3_3_modified_th_is_basic_plus_gun_modifications_red_or_black() {
    // A Russian 45L at 14 hexes: red 13-18 Basic TH# 5, L +1, <=57mm -1.
    let sc = setup(
        ordnance(45, Suffix::L, ThColour::Red, 4),
        vec![rsquad(2, "4S2")],
        &[],
    );
    let e = engine(sc);
    let mut s = e.state().clone();
    if let Some(g) = s.units.get_mut(&UnitId(0)) {
        g.status.facing = Some(Facing::Spine(Spine::E));
    }
    let mut e = Engine::with_state(e.scenario().clone(), s);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4S2", TargetType::Infantry, Ammo::He),
        &[dr(2, 4)],
    )
    .unwrap();
    let (basic, modified, mods, _) = to_hit(&ev);
    assert_eq!((basic, modified), (5, 5));
    assert_eq!(mods, vec![("L".into(), 1), ("<=57mm".into(), -1)]);
    assert_eq!(outcomes(&ev), vec![(2, HitOutcome::Miss)]); // Final 6 > 5
}

#[test]
fn c3_3_area_is_red_for_all_and_a_missing_cell_is_named() {
    // A black-TH# German Gun on the Area Target Type reads the red row.
    let sc = setup(gun75(), vec![rsquad(2, "4E5")], &[]);
    let mut e = engine(sc.clone());
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::He),
        &[dr(5, 5)],
    )
    .unwrap();
    assert_eq!(to_hit(&ev).0, 7);
    // The Vehicle row is not in the shipped data: refused, before any die.
    let mut sc2 = sc.clone();
    sc2.units.push(truck(3, Side::B, "4E5", 0));
    let mut e = engine(sc2);
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Vehicle(UnitId(3)), Ammo::Ap),
        &[],
    ));
    assert!(why.contains("to_hit.csv"), "{why}");
    assert!(
        why.contains("target_type vehicle, colour black, range_band 3-6"),
        "{why}"
    );
    assert!(why.contains("basic_th") && why.contains("R12"), "{why}");
}

// ---------------------------------------------------------------------------
// C3.2-C3.22: the Covered Arc.

#[test]
fn c3_2_ex_ca_hexes_and_firing_within_it() {
    // C3.2 EX as read: a Gun in 4E5 facing the hexspine between its S and
    // SW hexsides; E6 is in its CA, and one hex further A8, B8, C9, D9,
    // E10 are.
    let map = hexveil_asl::board::map::Map::new([4]);
    let ca5 = ca_hexes(&map, hex("4E5"), Spine::SSW, 5);
    for h in ["4E6", "4A8", "4B8", "4C9", "4D9", "4E10"] {
        assert!(ca5.contains(&hex(h)), "{h} in CA");
    }
    let ring5: Vec<_> = ca5
        .iter()
        .filter(|h| map.distance(hex("4E5"), **h) == 5)
        .collect();
    assert_eq!(ring5.len(), 5, "{ring5:?}");
    let ca4 = ca_hexes(&map, hex("4E5"), Spine::SSW, 4);
    assert!(!ca4.contains(&hex("4A8")));
    assert!(!ca5.contains(&hex("4F6")));
    // Through the engine: E6 may be fired at, F6 may not (C3.21).
    let units = vec![
        gun(
            0,
            Side::A,
            "German",
            "4E5",
            gun75(),
            Facing::Spine(Spine::SSW),
        ),
        crew(1, Side::A, "German", "2-2-8", Class::FirstLine, "4E5"),
        rsquad(2, "4E6"),
        rsquad(3, "4F6"),
    ];
    let sc = scenario(sides("German", 3, "Russian", 3), &units, &[]);
    let mut e = engine(sc.clone());
    run(
        &mut e,
        Side::A,
        shoot(0, "4E6", TargetType::Infantry, Ammo::He),
        &[dr(6, 6)],
    )
    .unwrap();
    let mut e = engine(sc);
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4F6", TargetType::Infantry, Ammo::He),
        &[],
    ));
    assert!(
        why.contains("outside the CA") && why.contains("C3.21"),
        "{why}"
    );
}

#[test]
fn c3_2_an_ambiguous_facing_is_resolved_by_the_opponent() {
    let mut sc = setup(gun75(), vec![rsquad(2, "4E5")], &[]);
    sc.units[0].status.facing = Some(Facing::Hexside(Direction::S));
    let mut e = engine(sc);
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[],
    ));
    assert!(why.contains("ambiguous") && why.contains("side B"), "{why}");
    // The owner may not pick; the opponent picks one of the two spines.
    let choose = |ca| Action::ChooseCa {
        unit: UnitId(0),
        ca,
    };
    assert!(refusal(run(&mut e, Side::A, choose(Spine::SSE), &[])).contains("opponent"));
    assert!(refusal(run(&mut e, Side::B, choose(Spine::E), &[])).contains("not a hexspine"));
    run(&mut e, Side::B, choose(Spine::SSE), &[]).unwrap();
    run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(6, 6)],
    )
    .unwrap();
}

/// C3.2: a scenario gives a Gun's facing as any of the six hexspines
/// (definite CA) or the six hexsides (ambiguous), by the names its docs
/// list; an action names a hexspine the same way.
#[test]
fn c3_2_every_facing_name_reads_as_a_spine_or_a_hexside() {
    let with_ca = |ca: &str| {
        Scenario::from_toml(&format!(
            "name = \"ca\"\nfirst = \"A\"\nturns = 1\n\
             [map]\nboards = [4]\nlayout = [{{ board = 4, column = 0, row = 0 }}]\n\
             [sides.A]\nnationality = \"German\"\nelr = 3\n\
             [sides.B]\nnationality = \"Russian\"\nelr = 3\n\
             [[units]]\nname = \"gun\"\nside = \"A\"\nkind = \"gun\"\nhex = \"4E2\"\nca = \"{ca}\"\n\
             [units.gun]\ncalibre_mm = 75\ncolour = \"black\"\nhe_fp = 8\nammo = [\"HE\"]\nmax_range = 40\n"
        ))
        .map(|sc| sc.units[0].status.facing)
    };
    for (name, spine) in [
        ("e", Spine::E),
        ("sse", Spine::SSE),
        ("ssw", Spine::SSW),
        ("w", Spine::W),
        ("nnw", Spine::NNW),
        ("nne", Spine::NNE),
    ] {
        assert_eq!(with_ca(name), Ok(Some(Facing::Spine(spine))), "{name}");
        let json = serde_json::to_value(spine).unwrap();
        assert_eq!(json, serde_json::json!(name));
    }
    for (name, d) in [
        ("n", Direction::N),
        ("ne", Direction::NE),
        ("se", Direction::SE),
        ("s", Direction::S),
        ("sw", Direction::SW),
        ("nw", Direction::NW),
    ] {
        assert_eq!(with_ca(name), Ok(Some(Facing::Hexside(d))), "{name}");
    }
    let why = with_ca("s_s_e").unwrap_err().to_string();
    assert!(why.contains("C3.2") && why.contains("units[0].ca"), "{why}");
    // An action's hexspine, as a rules question writes it.
    let a: Action = serde_json::from_value(serde_json::json!({
        "ChangeCa": { "unit": 0, "ca": "nne" }
    }))
    .unwrap();
    assert_eq!(
        a,
        Action::ChangeCa {
            unit: UnitId(0),
            ca: Spine::NNE
        }
    );
}

#[test]
fn c3_21_changing_ca_to_fire_costs_case_a() {
    let sc = setup(gun75(), vec![rsquad(2, "4E5")], &[]);
    let turned = |sc: &Scenario, from: Spine| {
        let mut s = state(sc);
        s.units.get_mut(&UnitId(0)).unwrap().status.facing = Some(Facing::Spine(from));
        Engine::with_state(sc.clone(), s)
    };
    // Facing NNE, the target to the south is outside the CA.
    let mut e = turned(&sc, Spine::NNE);
    assert!(refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[]
    ))
    .contains("outside the CA"));
    // Turning two hexspines to SSE: +3 +1.
    let change = Action::OrdnanceFire {
        gun: UnitId(0),
        target: hex("4E5"),
        target_type: TargetType::Infantry,
        ammo: Ammo::He,
        change_ca: Some(Spine::SSE),
        extra_drm: 0,
    };
    let ev = run(&mut e, Side::A, change.clone(), &[dr(6, 6)]).unwrap();
    assert_eq!(
        to_hit(&ev).3,
        vec![("A: CA change of 2 hexspine(s)".into(), 4)]
    );
    assert_eq!(
        e.state().unit(UnitId(0)).unwrap().status.facing,
        Some(Facing::Spine(Spine::SSE))
    );
    // In woods, doubled.
    let woods = setup(gun75(), vec![rsquad(2, "4E5")], &[("4E2", Terrain::Woods)]);
    let mut e = turned(&woods, Spine::NNE);
    let ev = run(&mut e, Side::A, change.clone(), &[dr(6, 6)]).unwrap();
    assert_eq!(to_hit(&ev).3[0].1, 8);
    // A turreted weapon's Case A value is not in the data: refused, named.
    let mut t = gun75();
    t.turreted = true;
    let mut e = turned(&setup(t, vec![rsquad(2, "4E5")], &[]), Spine::NNE);
    let why = refusal(run(&mut e, Side::A, change, &[]));
    assert!(
        why.contains("to_hit_drm.csv") && why.contains("case A (turreted weapon)"),
        "{why}"
    );
}

#[test]
fn c3_22_ca_change_without_fire_freezes_the_gun_for_the_phase_and_the_turn() {
    let mut sc = setup(gun75(), vec![rsquad(2, "4E5")], &[]);
    sc.units.push(tank(3, Side::A, "4G2", Some(gun75()), false));
    let change = |u, ca| Action::ChangeCa {
        unit: UnitId(u),
        ca,
    };
    // Not in the MPh.
    let st = state_in(&sc, Phase::Movement);
    let mut e = Engine::with_state(sc.clone(), st);
    assert!(matches!(
        run(&mut e, Side::A, change(3, Spine::E), &[]),
        Err(ActionError::WrongPhase { .. })
    ));
    // In the PFPh: done; it may not fire this phase nor move this turn.
    let mut e = engine(sc.clone());
    run(&mut e, Side::A, change(3, Spine::E), &[]).unwrap();
    run(&mut e, Side::A, change(0, Spine::E), &[]).unwrap();
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(3, "4E5", TargetType::Infantry, Ammo::He),
        &[],
    ));
    assert!(why.contains("C3.22"), "{why}");
    run(&mut e, Side::A, Action::EndPhase, &[]).unwrap();
    let why = refusal(run(
        &mut e,
        Side::A,
        Action::Move {
            units: vec![UnitId(3)],
            to: hex("4G3"),
            mode: hexveil_asl::MoveMode::Normal,
        },
        &[],
    ));
    assert!(
        why.contains("C3.22") && why.contains("may not move"),
        "{why}"
    );
    let why = refusal(run(
        &mut e,
        Side::A,
        Action::Move {
            units: vec![UnitId(1)],
            to: hex("4E3"),
            mode: hexveil_asl::MoveMode::Normal,
        },
        &[],
    ));
    assert!(why.contains("C3.22"), "{why}");
    // A Gun that fired this phase may not change CA without fire.
    let mut e = engine(sc);
    run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(6, 6)],
    )
    .unwrap();
    assert!(refusal(run(&mut e, Side::A, change(0, Spine::E), &[])).contains("fired this phase"));
}

// ---------------------------------------------------------------------------
// C3.31-C3.41: Target Types.

#[test]
fn c3_31_vehicle_target_type_only_at_an_enemy_vehicle_never_a_motorcycle() {
    let mut moto = truck(4, Side::B, "4E5", 0);
    if let UnitKind::Vehicle(v) = &mut moto.kind {
        v.motorcycle = true;
    }
    let mut sc = setup(
        gun75(),
        vec![rsquad(2, "4E5"), truck(3, Side::B, "4E5", 0), moto],
        &[],
    );
    supply(
        &mut sc,
        &[("to_hit", LEAGUE_TO_HIT), ("to_kill", LEAGUE_TO_KILL)],
    );
    let mut e = engine(sc);
    let v = |u| shoot(0, "4E5", TargetType::Vehicle(UnitId(u)), Ammo::Ap);
    assert!(refusal(run(&mut e, Side::A, v(2), &[])).contains("is not a vehicle"));
    assert!(refusal(run(&mut e, Side::A, v(4), &[])).contains("motorcycle"));
    // A hit on the truck touches nothing else in the hex: its To Kill (AF 0,
    // Final TK# 10, TK DR 12: no effect) is the truck's alone.
    let ev = run(&mut e, Side::A, v(3), &[dr(2, 4), dr(6, 6)]).unwrap();
    assert!(matches!(
        to_kill(&ev)[..],
        [OrdnanceEvent::ToKill {
            unit: UnitId(3),
            outcome: VehicleOutcome::NoEffect,
            ..
        }]
    ));
    assert_eq!(outcomes(&ev).len(), 1);
    assert!(ord(&ev).iter().any(|o| matches!(
        o,
        OrdnanceEvent::VehicleHit {
            unit: UnitId(3),
            aspect: Some(Aspect::Turret),
            critical: false,
            hits: 1
        }
    )));
    assert!(effects(&ev).is_empty());
}

#[test]
fn c3_32_ex_infantry_target_type_one_effects_dr_for_all_hit() {
    // C3.32 EX: a Russian 57LL, HE, Infantry Target Type, 6 hexes, at a
    // +1 TEM hex with a truck (size 0), a Kuebelwagen (+2) and a squad.
    let o = ordnance(57, Suffix::Ll, ThColour::Red, 6);
    let targets = vec![
        squad(2, Side::B, "German", "4-6-7", Class::FirstLine, "4E8"),
        truck(3, Side::B, "4E8", 0),
        truck(4, Side::B, "4E8", 2),
        tank(5, Side::B, "4E8", None, false),
    ];
    let mut units = vec![
        gun(0, Side::A, "Russian", "4E2", o, Facing::Spine(Spine::SSE)),
        crew(1, Side::A, "Russian", "2-2-8", Class::FirstLine, "4E2"),
    ];
    units.extend(targets);
    for u in units.iter_mut().skip(2) {
        u.side = Side::B;
    }
    let mut sc = scenario(
        sides("Russian", 3, "German", 3),
        &units,
        &[("4E8", Terrain::Brush)],
    );
    // Shipped data: the LL row at 3-6 is not found.
    let mut e = engine(sc.clone());
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E8", TargetType::Infantry, Ammo::He),
        &[],
    ));
    assert!(
        why.contains("to_hit_modifications.csv") && why.contains("modification LL, range_band 3-6"),
        "{why}"
    );
    supply(
        &mut sc,
        &[
            ("to_hit", LEAGUE_TO_HIT),
            ("to_hit_modifications", LEAGUE_MODS),
            ("ift_vehicle_line", LEAGUE_VEHICLE_LINE),
        ],
    );
    // Original 7: the squad (needs 7) and the truck (8) are hit, the
    // Kuebelwagen (6) is not; the AFV is immune.
    let mut e = engine(sc.clone());
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E8", TargetType::Infantry, Ammo::He),
        &[dr(3, 4), dr(6, 6)],
    )
    .unwrap();
    let hit: Vec<(u16, bool)> = outcomes(&ev)
        .iter()
        .map(|(u, o)| (*u, o.is_hit()))
        .collect();
    assert_eq!(hit, vec![(2, true), (3, true), (4, false)]);
    // Original 6: all three, one Effects DR on the 6 column.
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E8", TargetType::Infantry, Ammo::He),
        &[dr(2, 4), dr(6, 6)],
    )
    .unwrap();
    assert!(outcomes(&ev).iter().all(|(_, o)| o.is_hit()));
    assert_eq!(effects(&ev), vec![(vec![2], 6, false, 0, 12)]);
    let lines: Vec<(u16, u8, i16)> = ord(&ev)
        .into_iter()
        .filter_map(|o| match o {
            OrdnanceEvent::VehicleLine {
                unit, fp, final_dr, ..
            } => Some((unit.0, fp, final_dr)),
            _ => None,
        })
        .collect();
    assert_eq!(lines, vec![(3, 6, 12), (4, 6, 12)]);
}

#[test]
fn c3_33_area_target_type_mortars_friendly_units_half_fp_wp() {
    let mut mortar = ordnance(81, Suffix::None, ThColour::Black, 4);
    mortar.mortar = true;
    let mut friendly = squad(3, Side::A, "German", "4-6-7", Class::FirstLine, "4E5");
    friendly.name = "friend".into();
    let sc = setup(
        mortar.clone(),
        vec![rsquad(2, "4E5"), friendly],
        &[("4E5", Terrain::Woods)],
    );
    let mut e = engine(sc.clone());
    assert!(refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[]
    ))
    .contains("mortar"));
    // Both squads hit, friendly too; 4 FP halved to 2; woods TEM +1 on the
    // Effects DR (not on the TH DR).
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::He),
        &[dr(3, 4), dr(5, 6)],
    )
    .unwrap();
    assert_eq!(outcomes(&ev).len(), 2);
    assert_eq!(effects(&ev), vec![(vec![2, 3], 2, false, 1, 12)]);
    // Not at range 0.
    let mut sc0 = sc.clone();
    sc0.units.push(rsquad(4, "4E2"));
    let mut e = engine(sc0);
    assert!(refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E2", TargetType::Area, Ammo::He),
        &[]
    ))
    .contains("own hex"));
    // WP: every unit hit takes a NMC (A24.31): the TH DR first, then the
    // morale checks.
    let mut wp = gun75();
    wp.ammo.insert(Ammo::Wp);
    let sc = setup(wp, vec![rsquad(2, "4E5")], &[]);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::Wp),
        &[dr(3, 3), dr(2, 3)],
    )
    .unwrap();
    let mc = ev
        .iter()
        .position(|e| matches!(&e.kind, EventKind::Morale(MoraleEvent::MoraleCheck { .. })));
    let th = ev
        .iter()
        .position(|e| matches!(&e.kind, EventKind::Ordnance(OrdnanceEvent::ToHit { .. })));
    assert!(
        th.unwrap() < mc.unwrap(),
        "C3.76: the TH DR precedes the WP NMC"
    );
}

#[test]
fn c3_331_area_ignores_case_l_and_q_but_its_effects_take_tem() {
    let mut sc = setup(
        gun75(),
        vec![rsquad(2, "4E4")],
        &[("4E4", Terrain::StoneBuilding)],
    );
    supply(&mut sc, &[("to_hit", LEAGUE_TO_HIT)]);
    let mut e = engine(sc.clone());
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E4", TargetType::Area, Ammo::He),
        &[dr(6, 6)],
    )
    .unwrap();
    assert!(to_hit(&ev).3.is_empty(), "no Case L at range 2 on Area");
    // On the Infantry Target Type both apply.
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E4", TargetType::Infantry, Ammo::He),
        &[dr(6, 6)],
    )
    .unwrap();
    assert_eq!(to_hit(&ev).3, vec![("L: Point Blank".into(), -1)]);
    let q = ord(&ev).into_iter().find_map(|o| match o {
        OrdnanceEvent::Target { drm, .. } => Some(drm),
        _ => None,
    });
    assert_eq!(q, Some(vec![("Q: TEM".into(), 3)]));
}

#[test]
fn c3_332_area_hits_on_vehicles_afv_refused_truck_on_the_vehicle_line_with_tem() {
    let mut sc = setup(
        gun75(),
        vec![tank(2, Side::B, "4E5", None, true)],
        &[("4E5", Terrain::Brush)],
    );
    let mut e = engine(sc.clone());
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::He),
        &[],
    ));
    assert!(why.contains("C1.55") && why.contains("C3.332"), "{why}");
    // A truck: the Vehicle line (here the 4 FP column, half of 8), +1 TEM.
    sc.units[2] = truck(2, Side::B, "4E5", 0);
    supply(&mut sc, &[("ift_vehicle_line", LEAGUE_VEHICLE_LINE)]);
    let mut e = engine(sc.clone());
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::He),
        &[dr(2, 3), dr(2, 2)],
    )
    .unwrap();
    let line = ord(&ev).into_iter().find_map(|o| match o {
        OrdnanceEvent::VehicleLine { fp, final_dr, .. } => Some((fp, final_dr)),
        _ => None,
    });
    assert_eq!(line, Some((4, 4)), "no hex TEM on the Vehicle line (R60)");
    // Shipped Vehicle line: the 16 FP column a CH would need is missing:
    // refused before any die.
    sc.tables = Default::default();
    let mut e = engine(sc);
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::He),
        &[],
    ));
    assert!(
        why.contains("ift_vehicle_line.csv") && why.contains("kill_number"),
        "{why}"
    );
}

#[test]
fn c3_4_one_shot_hits_some_occupants_and_not_others() {
    let mut hidden = rsquad(3, "4E5");
    hidden.status.concealed = true;
    let sc = setup(gun75(), vec![rsquad(2, "4E5"), hidden], &[]);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(3, 5), dr(6, 6)],
    )
    .unwrap();
    assert_eq!(
        outcomes(&ev),
        vec![(2, plain_hit()), (3, HitOutcome::Miss)],
        "Case K +2 makes the concealed squad's Final 10"
    );
    assert_eq!(effects(&ev)[0].0, vec![2]);
}

#[test]
fn c3_41_infantry_target_type_may_attack_an_empty_hex_never_an_afv() {
    let sc = setup(gun75(), vec![tank(2, Side::B, "4E6", None, false)], &[]);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(1, 2)],
    )
    .unwrap();
    assert!(outcomes(&ev).is_empty());
}

#[test]
fn c3_41_infantry_target_type_never_at_an_afv_alone() {
    let sc = setup(gun75(), vec![tank(2, Side::B, "4E5", None, false)], &[]);
    let mut e = engine(sc);
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[],
    ));
    assert!(
        why.contains("never attacks an AFV") && why.contains("C3.41"),
        "{why}"
    );
}

// ---------------------------------------------------------------------------
// C3.5-C3.53: FP.

#[test]
fn c3_51_no_pbf_doubling_case_l_instead() {
    let sc = setup(gun75(), vec![rsquad(2, "4E3")], &[]);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E3", TargetType::Infantry, Ammo::He),
        &[dr(4, 5), dr(6, 6)],
    )
    .unwrap();
    assert_eq!(to_hit(&ev).3, vec![("L: Point Blank".into(), -2)]);
    assert_eq!(effects(&ev), vec![(vec![2], 8, false, 0, 12)]);
}

#[test]
fn c3_5_ordnance_fp_not_doubled_adjacent_nor_halved_for_concealed_pinned_afph() {
    // C3.51: adjacent (range 1) the Effects FP stays 8 (the shipped data
    // has no range-1 red row, so the German black one is used).
    let mut hidden = rsquad(2, "4E3");
    hidden.status.concealed = true;
    let mut sc = setup(gun75(), vec![hidden], &[]);
    sc.units[1].status.pinned = true;
    let mut st = state_in(&sc, Phase::AdvancingFire);
    st.units.get_mut(&UnitId(1)).unwrap().status.pinned = true;
    let mut e = Engine::with_state(sc, st);
    // C3.53: not halved for the concealed target, the pinned crew or the
    // AFPh; their TH DRM (K, D, B) apply instead. Final = 2 -2 +2 +2 +2.
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E3", TargetType::Infantry, Ammo::He),
        &[dr(1, 2), dr(6, 6)],
    )
    .unwrap();
    let drm: Vec<i8> = to_hit(&ev).3.iter().map(|d| d.1).collect();
    assert_eq!(drm, vec![2, 2, -2], "B, D, L");
    assert_eq!(effects(&ev)[0].1, 8);
}

#[test]
fn c3_52_no_long_range_fire() {
    let mut o = gun75();
    o.max_range = 2;
    let sc = setup(o, vec![rsquad(2, "4E5")], &[]);
    let mut e = engine(sc);
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[],
    ));
    assert!(
        why.contains("C3.52") && why.contains("listed range"),
        "{why}"
    );
}

#[test]
fn c3_53_he_halved_into_marsh_twice_on_area() {
    let sc = setup(gun75(), vec![rsquad(2, "4E5")], &[("4E5", Terrain::Marsh)]);
    let mut e = engine(sc.clone());
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(3, 4), dr(6, 6)],
    )
    .unwrap();
    assert_eq!(effects(&ev)[0].1, 4);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::He),
        &[dr(3, 3), dr(6, 6)],
    )
    .unwrap();
    assert_eq!(effects(&ev)[0].1, 2);
}

// ---------------------------------------------------------------------------
// C3.6-C3.9: Improbable, Critical and Multiple Hits, hit location.

/// Test data making the C3.6 EX's Modified TH# of 3 at short range.
const TH3: &str = "target_type,colour,range_band,basic_th\ninfantry,black,3-6,3\n";

#[test]
fn c3_6_ex_improbable_hit() {
    // The EX's 37 hexes: the shipped data has no row there.
    let t = hexveil_asl::c3::to_hit_table::ToHitTables::shipped();
    let e = t.basic_th("infantry", ThColour::Black, 37).unwrap_err();
    assert!(e.reason.contains("range_band 37+"), "{e:?}");
    // Modified TH# 3, TH DRM +2: only an Original 2, then dr 1-3.
    let mut sc = setup(gun75(), vec![rsquad(2, "4E5")], &[]);
    supply(&mut sc, &[("to_hit", TH3)]);
    let fire = Action::OrdnanceFire {
        gun: UnitId(0),
        target: hex("4E5"),
        target_type: TargetType::Infantry,
        ammo: Ammo::He,
        change_ca: None,
        extra_drm: 2,
    };
    for (sub, hit) in [(1, true), (3, true), (4, false)] {
        let mut e = engine(sc.clone());
        let dice: Vec<Roll> = if hit {
            vec![dr(1, 1), d(sub), dr(6, 6)]
        } else {
            vec![dr(1, 1), d(sub)]
        };
        let ev = run(&mut e, Side::A, fire.clone(), &dice).unwrap();
        let o = outcomes(&ev)[0].1;
        assert_eq!(o.is_hit(), hit, "dr {sub}");
        assert_eq!(o.is_critical(), sub == 1);
        if hit {
            assert!(matches!(
                o,
                HitOutcome::Hit {
                    improbable: true,
                    ..
                }
            ));
        }
    }
    let mut e = engine(sc);
    let ev = run(&mut e, Side::A, fire, &[dr(1, 2)]).unwrap();
    assert_eq!(outcomes(&ev)[0].1, HitOutcome::Miss);
}

#[test]
fn c3_7_ex_acquisition_widens_the_critical_hit() {
    // C3.7 EX: ITT at 2 hexes, a wooden building: L -1, Q +2. The shipped
    // table has no black row at range 2: refused, named.
    let mut o = gun75();
    o.he_fp = Some(4);
    let mut sc = setup(
        o,
        vec![rsquad(2, "4E4")],
        &[("4E4", Terrain::WoodenBuilding)],
    );
    let mut e = engine(sc.clone());
    let why = refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E4", TargetType::Infantry, Ammo::He),
        &[],
    ));
    assert!(why.contains("colour black, range_band 2"), "{why}");
    supply(&mut sc, &[("to_hit", LEAGUE_TO_HIT)]);
    // Shot 1 (DRM +1): Original 3 (Final 4) hits but is no CH; an
    // Original 2 would be.
    let mut e = engine(sc.clone());
    let shot = shoot(0, "4E4", TargetType::Infantry, Ammo::He);
    let ev = run(&mut e, Side::A, shot.clone(), &[dr(1, 2), dr(6, 6)]).unwrap();
    assert_eq!(outcomes(&ev)[0].1, plain_hit());
    // Shot 2, next turn (N -1, DRM 0): Original 3 is a CH: 8 FP (4
    // doubled), the building's +2 reversed to -2.
    let next_turn = |e: &Engine| {
        let mut s = e.state().clone();
        s.turn += 1;
        Engine::with_state(sc.clone(), s)
    };
    let mut e = next_turn(&e);
    let ev = run(&mut e, Side::A, shot.clone(), &[dr(1, 2), dr(6, 6)]).unwrap();
    assert!(outcomes(&ev)[0].1.is_critical());
    assert_eq!(
        to_hit(&ev).3.last().unwrap(),
        &("N: Acquisition".to_string(), -1)
    );
    assert_eq!(effects(&ev), vec![(vec![2], 8, true, -2, 10)]);
    // Shot 3 (N -2, DRM -1): Original 4 (Final 3) is a CH.
    let mut e = next_turn(&e);
    let ev = run(&mut e, Side::A, shot, &[dr(2, 2), dr(6, 6)]).unwrap();
    assert!(outcomes(&ev)[0].1.is_critical());
}

#[test]
fn c3_71_a_critical_hit_destroys_a_gun_and_its_crew() {
    let enemy = gun(
        2,
        Side::B,
        "Russian",
        "4E5",
        gun75(),
        Facing::Spine(Spine::NNW),
    );
    let enemy_crew = crew(3, Side::B, "Russian", "2-2-8", Class::FirstLine, "4E5");
    let sc = setup(gun75(), vec![enemy, enemy_crew], &[]);
    let mut e = engine(sc);
    // Original 2 on the ITT (Final 2 < 4): a CH vs both; Random Selection
    // (the Gun rolls higher) gives it to the Gun.
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(1, 1), d(6), d(2), dr(6, 6)],
    )
    .unwrap();
    assert!(ord(&ev)
        .iter()
        .any(|o| matches!(o, OrdnanceEvent::GunDestroyed { gun: UnitId(2), .. })));
    assert!(e.state().unit(UnitId(2)).unwrap().status.eliminated);
    assert!(e.state().unit(UnitId(3)).unwrap().status.eliminated);
    // The crew dies with its Gun even when the same shot's normal attack
    // broke it first (it manned the Gun when the shot was fired); a squad
    // merely stacked with the Gun is not its crew.
    let enemy = gun(
        2,
        Side::B,
        "Russian",
        "4E5",
        gun75(),
        Facing::Spine(Spine::NNW),
    );
    let enemy_crew = crew(3, Side::B, "Russian", "2-2-8", Class::FirstLine, "4E5");
    let sc = setup(gun75(), vec![enemy, enemy_crew, rsquad(4, "4E5")], &[]);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        // TH 2: a CH vs all three; Random Selection gives it to the Gun;
        // one Effects DR 5 (2MC on 8 FP) for crew and squad; their MC DRs.
        &[dr(1, 1), d(6), d(2), d(2), dr(2, 3), dr(4, 5), dr(1, 1)],
    )
    .unwrap();
    assert!(ord(&ev).iter().any(|o| matches!(
        o,
        OrdnanceEvent::GunDestroyed { gun: UnitId(2), crew } if crew == &vec![UnitId(3)]
    )));
    assert!(e.state().unit(UnitId(3)).unwrap().status.eliminated);
    assert!(!e.state().unit(UnitId(4)).unwrap().status.eliminated);
}

/// C3.72 (with C3.71's bracket): a CH on the Vehicle Target Type doubles
/// the Basic TK#. The same TK DR 7 against the tank's rear hull (AF 4) from
/// the 75mm's AP (Basic TK# 10): Final TK# 6, no effect, after a normal
/// hit; Final TK# 16, eliminated, after a CH (Original TH DR 2).
#[test]
fn c3_72_a_critical_hit_on_an_afv_doubles_its_basic_tk() {
    use hexveil_asl::c3::to_kill::HitFrom;
    let mut sc = setup(gun75(), vec![tank(2, Side::B, "4E5", None, false)], &[]);
    supply(
        &mut sc,
        &[("to_hit", LEAGUE_TO_HIT), ("to_kill", LEAGUE_TO_KILL)],
    );
    let shot = || shoot(0, "4E5", TargetType::Vehicle(UnitId(2)), Ammo::Ap);
    // A normal hull hit (coloured 4 > white 2), TK DR 7.
    let mut e = engine(sc.clone());
    let ev = run(&mut e, Side::A, shot(), &[dr(4, 2), dr(3, 4)]).unwrap();
    let tk = |ev: &[Event]| match &to_kill(ev)[..] {
        [OrdnanceEvent::ToKill {
            from,
            basic_tk,
            hits,
            outcome,
            ..
        }] => (*from, *basic_tk, hits[0].af, hits[0].final_tk, *outcome),
        other => panic!("one To Kill expected: {other:?}"),
    };
    // The tank faces SSE, away from the Gun in 4E2: a rear hit.
    assert_eq!(tk(&ev), (HitFrom::Rear, 10, 4, 6, VehicleOutcome::NoEffect));
    assert!(unit(&e, 2).in_play());
    // A CH (Original 2; a subsequent dr is not needed at Modified TH# 8).
    let mut e = engine(sc);
    let ev = run(&mut e, Side::A, shot(), &[dr(1, 1), dr(3, 4)]).unwrap();
    assert_eq!(
        tk(&ev),
        (HitFrom::Rear, 20, 4, 16, VehicleOutcome::Eliminated)
    );
    assert!(
        !unit(&e, 2).in_play(),
        "C3.72: eliminated by the doubled TK#"
    );
}

/// C3.3, R77 (ruleset version 3): a Vehicle Target Type hit goes to the TK
/// tables, which the seeds lack: without a league's `to_kill` table the
/// shot is refused before its To Hit DR, naming the table, and so is one
/// at a vehicle without turret AF; version 2 recorded the hit and left the
/// vehicle as it was (R65), silently.
#[test]
fn c3_3_r77_a_vehicle_hit_without_to_kill_data_is_refused_before_any_die() {
    let mut sc = setup(gun75(), vec![tank(2, Side::B, "4E5", None, false)], &[]);
    supply(&mut sc, &[("to_hit", LEAGUE_TO_HIT)]);
    let shot = || shoot(0, "4E5", TargetType::Vehicle(UnitId(2)), Ammo::Ap);
    let mut e = engine(sc.clone());
    let msg = refusal(run(&mut e, Side::A, shot(), &[]));
    assert!(msg.contains("to_kill.csv"), "{msg}");
    // No turret AF: refused, naming it.
    let mut no_turret = sc.clone();
    supply(
        &mut no_turret,
        &[("to_hit", LEAGUE_TO_HIT), ("to_kill", LEAGUE_TO_KILL)],
    );
    if let UnitKind::Vehicle(v) = &mut no_turret.units[2].kind {
        v.turret = None;
    }
    let mut e = engine(no_turret);
    let msg = refusal(run(&mut e, Side::A, shot(), &[]));
    assert!(msg.contains("turret"), "{msg}");
    // A range without a row: refused, naming the row.
    let mut far = sc.clone();
    supply(
        &mut far,
        &[
            ("to_hit", LEAGUE_TO_HIT),
            (
                "to_kill",
                "ammo,calibre_mm,suffix,range_min,range_max,basic_tk\nAP,75,,0,2,10\n",
            ),
        ],
    );
    let mut e = engine(far);
    let msg = refusal(run(&mut e, Side::A, shot(), &[]));
    assert!(msg.contains("AP 75 at range 3"), "{msg}");
    // Version 2: the hit is recorded, the vehicle left as it was.
    sc.version = hexveil_asl::model::scenario::Version(2);
    let mut e = engine(sc);
    let ev = run(&mut e, Side::A, shot(), &[dr(1, 1)]).unwrap();
    assert!(to_kill(&ev).is_empty());
    assert!(unit(&e, 2).in_play());
}

/// C3.73: a CH has no extra effect on terrain; fire and rubble are as for
/// a non-CH. No terrain effect of a hit is modelled (R80), so a CH and a
/// normal hit into the same empty building hex must leave the game in the
/// same state and record nothing beyond the To Hit DR: if a CH ever did
/// more to terrain than a normal hit, the two states would differ.
#[test]
fn c3_73_a_critical_hit_on_terrain_does_what_a_normal_hit_does() {
    let sc = setup(gun75(), vec![], &[("4E5", Terrain::WoodenBuilding)]);
    let after = |th: Roll| {
        let mut e = engine(sc.clone());
        let ev = run(
            &mut e,
            Side::A,
            shoot(0, "4E5", TargetType::Area, Ammo::He),
            &[th],
        )
        .unwrap();
        (e.state().clone(), ord(&ev))
    };
    let (critical, critical_events) = after(dr(1, 1));
    let (normal, normal_events) = after(dr(2, 3));
    assert_eq!(critical, normal, "C3.73: nothing more to terrain");
    assert_eq!(
        critical_events.len(),
        1,
        "only the To Hit record: {critical_events:?}"
    );
    assert_eq!(
        normal_events.len(),
        1,
        "only the To Hit record: {normal_events:?}"
    );
    assert_eq!(e_map(&sc, "4E5"), Terrain::WoodenBuilding);
}

fn e_map(sc: &Scenario, h: &str) -> Terrain {
    sc.map.info(hex(h)).terrain
}

#[test]
fn c3_74_only_the_random_selection_target_gets_the_critical_hit() {
    let sc = setup(gun75(), vec![rsquad(2, "4E5"), rsquad(3, "4E5")], &[]);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(1, 1), d(2), d(5), dr(6, 6)],
    )
    .unwrap();
    let eff = effects(&ev);
    assert_eq!(eff.len(), 2);
    assert_eq!(eff[0], (vec![2], 8, false, 0, 12));
    assert_eq!(eff[1], (vec![3], 16, true, 0, 12));
}

#[test]
fn c3_75_a_critical_hit_doubles_the_full_fp_not_the_lowered_one() {
    // The rule of C3.75 (OBA) as C3.71 states it for ordnance: the full FP
    // doubled, with no prior halving, even where the normal FP is halved.
    use hexveil_asl::c3::effects::he_fp;
    assert_eq!(he_fp(8, TargetType::Area, false, true), 2);
    assert_eq!(he_fp(8, TargetType::Area, true, true), 16);
}

/// C3.7, A24.31 (R65): an ordnance WP hit's To Hit DR comes first, then
/// the NMC of every Personnel unit in the Location.
#[test]
fn c3_7_wp_the_to_hit_dr_precedes_the_nmc() {
    let mut o = gun75();
    o.ammo.insert(Ammo::Wp);
    let sc = setup(o, vec![rsquad(2, "4E5")], &[]);
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Area, Ammo::Wp),
        &[dr(2, 2), dr(6, 6)],
    )
    .unwrap();
    let dice = dice_purposes(&ev);
    assert!(dice[0].starts_with("To Hit DR"), "{dice:?}");
    assert!(dice[1].starts_with("MC of"), "{dice:?}");
    assert_eq!(dice.len(), 2);
}

/// C3.76 is about the resolution DR of a WP Fire For Effect (OBA), its CH
/// and its Flame (A24.32): no WP FFE is adjudicated, so the row is refused
/// (R80). An FFE here is HE only (B28.62: `FfeKind` has two kinds): the
/// encoding of any third kind, WP included, is refused as no action, before
/// anything is asked.
#[test]
fn c3_76_a_wp_fire_for_effect_is_refused() {
    use hexveil_asl::model::action::FfeKind;
    use hexveil_asl::model::action::{decode_action, encode_action};
    let bomb = encode_action(&Action::Ffe {
        hex: hex("4E5"),
        fp: 8,
        kind: FfeKind::AerialBomb,
    });
    assert!(decode_action(&bomb).is_ok());
    let mut wp = bomb.clone();
    let last = wp.len() - 1;
    assert_eq!(wp[last], 1, "the kind is the last byte: AerialBomb");
    wp[last] = 2;
    let e = decode_action(&wp).unwrap_err();
    assert!(e.contains("not an ASL action"), "{e}");
}

#[test]
fn c3_8_multiple_hits_two_effects_dr_the_better_used() {
    let sc = setup(
        ordnance(37, Suffix::None, ThColour::Black, 2),
        vec![rsquad(2, "4E5")],
        &[],
    );
    let mut sc2 = sc.clone();
    supply(&mut sc2, &[("to_hit_modifications", LEAGUE_MODS)]);
    // The shipped data lacks <=57mm at 3-6: refused.
    let mut e = engine(sc);
    assert!(refusal(run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[]
    ))
    .contains("modification <=57mm, range_band 3-6"));
    let mut e = engine(sc2);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Infantry, Ammo::He),
        &[dr(3, 3), dr(6, 6), dr(5, 6)],
    )
    .unwrap();
    assert!(ord(&ev).iter().any(|o| matches!(
        o,
        OrdnanceEvent::MultipleHit {
            originals: [12, 11],
            used: 11
        }
    )));
    assert_eq!(effects(&ev)[0].4, 11);
}

/// C3.8 on the Vehicle Target Type: a 37mm's non-CH hit on an Original
/// doubles TH DR (3,3) is two hits on the tank, so two TK DR, of which the
/// firer uses one (the better for it, R59, R77); the first TK DR (2,5)
/// locates the second hit (coloured below white: the turret, C3.9).
#[test]
fn c3_8_multiple_hits_on_a_vehicle_two_tk_dr_the_first_locating_the_second() {
    use hexveil_asl::c3::ordnance::TkHit;
    let mut sc = setup(
        ordnance(37, Suffix::None, ThColour::Black, 2),
        vec![tank(2, Side::B, "4E5", None, false)],
        &[],
    );
    supply(
        &mut sc,
        &[
            ("to_hit", LEAGUE_TO_HIT),
            ("to_hit_modifications", LEAGUE_MODS),
            ("to_kill", LEAGUE_TO_KILL),
        ],
    );
    let mut e = engine(sc);
    let ev = run(
        &mut e,
        Side::A,
        shoot(0, "4E5", TargetType::Vehicle(UnitId(2)), Ammo::Ap),
        &[dr(3, 3), dr(2, 5), dr(1, 1)],
    )
    .unwrap();
    let dice = dice_purposes(&ev);
    assert_eq!(dice.len(), 3, "To Hit, then two TK DR: {dice:?}");
    let (hits, used, outcome) = match &to_kill(&ev)[..] {
        [OrdnanceEvent::ToKill {
            hits,
            used,
            outcome,
            basic_tk: 6,
            ..
        }] => (hits.clone(), *used, *outcome),
        other => panic!("one To Kill expected: {other:?}"),
    };
    let places: Vec<(Aspect, u8, i16)> = hits
        .iter()
        .map(|h: &TkHit| (h.aspect, h.af, h.final_tk))
        .collect();
    // Rear hull AF 4 (Final TK# 2), then rear turret AF 3 (Final TK# 3).
    assert_eq!(places, vec![(Aspect::Hull, 4, 2), (Aspect::Turret, 3, 3)]);
    assert_eq!(hits[0].outcome, VehicleOutcome::NoEffect, "TK DR 7 > 2");
    assert_eq!(hits[1].outcome, VehicleOutcome::Eliminated, "TK DR 2 < 3");
    assert_eq!((used, outcome), (1, VehicleOutcome::Eliminated));
    assert!(!unit(&e, 2).in_play());
}

#[test]
fn c3_9_hit_location_from_the_coloured_and_white_dice() {
    let mut sc = setup(
        gun75(),
        vec![
            tank(2, Side::B, "4E5", None, false),
            tank(3, Side::B, "4E6", None, true),
        ],
        &[],
    );
    supply(
        &mut sc,
        &[("to_hit", LEAGUE_TO_HIT), ("to_kill", LEAGUE_TO_KILL)],
    );
    let aspect = |ev: &[Event]| {
        ord(ev).into_iter().find_map(|o| match o {
            OrdnanceEvent::VehicleHit { aspect, .. } => Some(aspect),
            _ => None,
        })
    };
    let v = |u| {
        shoot(
            0,
            if u == 2 { "4E5" } else { "4E6" },
            TargetType::Vehicle(UnitId(u)),
            Ammo::Ap,
        )
    };
    let mut e = engine(sc.clone());
    assert_eq!(
        aspect(&run(&mut e, Side::A, v(2), &[dr(2, 5), dr(6, 6)]).unwrap()),
        Some(Some(Aspect::Turret))
    );
    let mut e = engine(sc.clone());
    assert_eq!(
        aspect(&run(&mut e, Side::A, v(2), &[dr(5, 2), dr(6, 6)]).unwrap()),
        Some(Some(Aspect::Hull))
    );
    // Hull Down: a hull hit is no hit.
    let mut e = engine(sc);
    let ev = run(&mut e, Side::A, v(3), &[dr(5, 2)]).unwrap();
    assert_eq!(outcomes(&ev), vec![(3, HitOutcome::Miss)]);
}
