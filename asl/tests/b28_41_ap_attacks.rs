//! A-P minefield attacks on moving Infantry, driven through the Engine
//! (B28.1, B28.2, B28.3, B28.4, B28.41, B28.411, B28.412, B28.413, B28.44,
//! B28.48, R13).

mod mines_common;
use hexveil_asl::a::ift::IftResult;
use hexveil_asl::b28::minefield::{Crossing, MinefieldEvent};
use hexveil_asl::b28::movement::{MoveEvent, StayReason};
use hexveil_asl::board::terrain::{HexInfo, Terrain};
use hexveil_asl::dice::DiceKind;
use hexveil_asl::model::event::Visibility;
use hexveil_asl::model::sealed::{ApStrength, Layer};
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, Engine, MoveMode, Side};
use mines_common::*;

/// A's MPh: squad 1 in 4E4, on open ground.
fn one_squad() -> Engine {
    one_squad_in(&[])
}

/// A's MPh: squad 1 in 4E4, on board 4 with this terrain.
fn one_squad_in(terrain: &[(&str, HexInfo)]) -> Engine {
    engine(scenario(&[squad(1, Side::A, "4E4")], terrain, false))
}

/// A's RtPh: squad 1, broken, in 4E4.
fn broken_squad_routing() -> Engine {
    let mut s = squad(1, Side::A, "4E4");
    s.status.broken = true;
    engine_in(scenario(&[s], &[], false), Phase::Rout)
}

/// Unit 1 routs into `to`.
fn rout(to: &str) -> Action {
    Action::Rout {
        unit: UnitId(1),
        to: hex(to),
    }
}

/// B28.41, B28.1, R13: an entry attack with no effect tells everybody that
/// A-P mines are there, but the strength only to the referee.
#[test]
fn b28_41_no_effect_attack_reveals_presence_not_strength() {
    let mut e = one_squad();
    let run = step_onto_ap(&mut e, 8, &[dr(6, 6)]);
    // B28.412: exit leaf of the hex left, then the entry leaf.
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
    let public = run.public_mines();
    assert!(public.contains(&MinefieldEvent::ApPresent {
        hex: hex("4E5"),
        owner: Side::B
    }));
    assert!(public.contains(&MinefieldEvent::ApAttack {
        hex: hex("4E5"),
        crossing: Crossing::Entry,
        targets: vec![UnitId(1)],
        final_dr: 12,
        strength: None,
        result: None,
    }));
    let sealed: Vec<_> = run
        .mine_events()
        .into_iter()
        .filter(|(v, _)| *v == Visibility::Referee)
        .map(|(_, m)| m)
        .collect();
    assert!(sealed.contains(&MinefieldEvent::ApAttackSealed {
        hex: hex("4E5"),
        strength: 8,
        fp: 8
    }));
    // B28.48: the hex is now marked Known-mined, strength unknown.
    assert_eq!(e.state().markers(hex("4E5")).ap_revealed, Some(None));
    assert_eq!(unit(&e, 1).hex, Some(hex("4E5")));
}

/// B28.41, R13: an attack with an effect reveals the strength; the result
/// is applied by the morale rules (PTC failed: pinned).
#[test]
fn b28_41_effective_attack_reveals_strength_and_pins() {
    let mut e = one_squad();
    // 8 FP, DR 9: PTC; TC DR 12 > 7: pinned.
    let run = step_onto_ap(&mut e, 8, &[dr(4, 5), dr(6, 6)]);
    assert!(run.public_mines().contains(&MinefieldEvent::ApAttack {
        hex: hex("4E5"),
        crossing: Crossing::Entry,
        targets: vec![UnitId(1)],
        final_dr: 9,
        strength: Some(8),
        result: Some(IftResult::Ptc),
    }));
    assert_eq!(
        e.state().markers(hex("4E5")).ap_revealed,
        Some(Some(ApStrength::Eight))
    );
    assert!(unit(&e, 1).status.pinned);
    // B28.1: A-P strength never drops from its own attack.
    assert_eq!(e.state().referee_knows[&ap_b("4E5")], ap(8));
}

/// B28.1: no mines, no attack, no minefield event. G3: the exit and the
/// entry are potential attacks (both hexes are eligible), so each still rolls
/// its DR, unused: the dice traffic is the same as with mines.
#[test]
fn b28_1_empty_leaf_means_no_attack() {
    let mut e = one_squad();
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &quiet_step());
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
    let dice: Vec<_> = run
        .dice
        .iter()
        .map(|s| (s.kind, s.purpose.as_str()))
        .collect();
    assert_eq!(
        dice,
        vec![
            (DiceKind::DR, "A-P minefield attack in 4E4"),
            (DiceKind::DR, "A-P minefield attack in 4E5")
        ]
    );
    assert!(run.mine_events().is_empty());
    assert_eq!(unit(&e, 1).hex, Some(hex("4E5")));
}

/// B28.1: a hex where hidden mines may not lie (paved road) has no leaf and
/// is never asked.
#[test]
fn b28_1_forbidden_terrain_is_never_asked() {
    let road = paved_road();
    let mut e = one_squad_in(&[("4E5", road)]);
    let run = step(&mut e, &[1], "4E5", &Layout::new(), &[unused_dr()]);
    assert_eq!(run.requests, vec![ap_b("4E4")]);
}

/// B28.411: only the moving unit is attacked; a friendly unit already in
/// the Location is not.
#[test]
fn b28_411_units_already_in_the_hex_are_not_attacked() {
    let mut e = engine_with(&[squad(1, Side::A, "4E4"), squad(2, Side::A, "4E5")]);
    // DR 8 on 8 FP: NMC for the mover only; MC DR 9 > 7 breaks it (not by
    // more than its ELR 3).
    let run = step_onto_ap(&mut e, 8, &[dr(4, 4), dr(4, 5)]);
    let attack = run
        .public_mines()
        .into_iter()
        .find_map(|m| match m {
            MinefieldEvent::ApAttack { targets, .. } => Some(targets),
            _ => None,
        })
        .unwrap();
    assert_eq!(attack, vec![UnitId(1)]);
    assert!(unit(&e, 1).status.broken);
    assert!(!unit(&e, 2).status.broken && !unit(&e, 2).status.pinned);
}

/// B28.411: a concealed unit is attacked at full FP and keeps its "?" when
/// only pinned.
#[test]
fn b28_411_concealed_unit_full_fp_keeps_concealment_when_pinned() {
    let mut s = squad(1, Side::A, "4E4");
    s.status.concealed = true;
    let mut e = engine_with(&[s]);
    // DR 9 on the full 8 FP column is a PTC (half FP, 4, would be no
    // effect at 9); TC 12: pinned.
    let run = step_onto_ap(&mut e, 8, &[dr(4, 5), dr(6, 6)]);
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack {
            result: Some(IftResult::Ptc),
            ..
        }
    )));
    let u = unit(&e, 1);
    assert!(u.status.pinned && u.status.concealed);
}

/// B28.411: a concealed unit broken by the attack loses its "?".
#[test]
fn b28_411_concealed_unit_broken_loses_concealment() {
    let mut s = squad(1, Side::A, "4E4");
    s.status.concealed = true;
    let mut e = engine_with(&[s]);
    step_onto_ap(&mut e, 8, &[dr(4, 4), dr(4, 5)]);
    let u = unit(&e, 1);
    assert!(u.status.broken && !u.status.concealed);
}

/// B28.412 EX, B28.4: from one minefield hex directly to another, an exit
/// attack then an entry attack.
#[test]
fn b28_412_ex_exit_then_entry_attack() {
    let mut e = one_squad();
    let lay = layout(&[(ap_b("4E4"), ap(6)), (ap_b("4E5"), ap(12))]);
    let run = step(&mut e, &[1], "4E5", &lay, &[dr(6, 6), dr(5, 6)]);
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
    let crossings: Vec<(Crossing, _)> = run
        .public_mines()
        .into_iter()
        .filter_map(|m| match m {
            MinefieldEvent::ApAttack { crossing, hex, .. } => Some((crossing, hex)),
            _ => None,
        })
        .collect();
    assert_eq!(
        crossings,
        vec![(Crossing::Exit, hex("4E4")), (Crossing::Entry, hex("4E5"))]
    );
    assert_eq!(unit(&e, 1).hex, Some(hex("4E5")));
}

/// B28.412 EX: pinned by the exit attack, the unit stays; the entry hex is
/// never asked (G4) and no entry attack happens.
#[test]
fn b28_412_exit_attack_pins_so_no_entry_attack() {
    let mut e = one_squad();
    let lay = layout(&[(ap_b("4E4"), ap(8)), (ap_b("4E5"), ap(12))]);
    // Exit: DR 9 on 8 FP = PTC; TC 12 pins.
    let run = step(&mut e, &[1], "4E5", &lay, &[dr(4, 5), dr(6, 6)]);
    assert_eq!(run.requests, vec![ap_b("4E4")]);
    assert_eq!(unit(&e, 1).hex, Some(hex("4E4")));
    assert!(run.moves().contains(&MoveEvent::Stayed {
        units: vec![UnitId(1)],
        hex: hex("4E4"),
        reason: StayReason::ExitAttack
    }));
    assert!(!e.state().referee_knows.contains_key(&ap_b("4E5")));
}

/// B28.412: in a stack, a unit broken by the exit attack stays while the
/// others go on and take the entry attack alone.
#[test]
fn b28_412_stack_splits_after_exit_attack() {
    let mut e = engine_with(&[squad(1, Side::A, "4E4"), squad(2, Side::A, "4E4")]);
    let lay = layout(&[(ap_b("4E4"), ap(8)), (ap_b("4E5"), ap(8))]);
    // Exit DR 6 on 8: 1MC: unit 1 DR 8+1 breaks, unit 2 DR 2+1 passes.
    // Entry DR 12: no effect vs unit 2.
    let run = step(
        &mut e,
        &[1, 2],
        "4E5",
        &lay,
        &[dr(3, 3), dr(4, 4), dr(1, 1), dr(6, 6)],
    );
    assert_eq!(unit(&e, 1).hex, Some(hex("4E4")));
    assert_eq!(unit(&e, 2).hex, Some(hex("4E5")));
    let entry_targets = run.public_mines().into_iter().find_map(|m| match m {
        MinefieldEvent::ApAttack {
            crossing: Crossing::Entry,
            targets,
            ..
        } => Some(targets),
        _ => None,
    });
    assert_eq!(entry_targets, Some(vec![UnitId(2)]));
}

/// B28.3: Deep Snow halves the A-P FP and adds +1: 12 factors attack on the
/// 6 column; DR 8 +1 = 9 is no effect there (it would be 1MC on 12).
#[test]
fn b28_3_deep_snow_half_fp_and_plus_one() {
    let mut e = engine(scenario(&[squad(1, Side::A, "4E4")], &[], true));
    let run = step_onto_ap(&mut e, 12, &[dr(4, 4)]);
    let ev = run.mine_events();
    assert!(ev.iter().any(|(_, m)| matches!(
        m,
        MinefieldEvent::ApAttack {
            final_dr: 9,
            result: None,
            ..
        }
    )));
    assert!(ev.contains(&(
        Visibility::Referee,
        MinefieldEvent::ApAttackSealed {
            hex: hex("4E5"),
            strength: 12,
            fp: 6
        }
    )));
}

/// B28.3: no TEM: a squad entering mined woods is attacked at the plain
/// DR (DR 9 on 8 FP is a PTC; with the woods' +1 it would be no effect).
#[test]
fn b28_3_no_tem_for_minefield_attacks() {
    let mut e = one_squad_in(&[("4E5", HexInfo::of(Terrain::Woods))]);
    let run = step_onto_ap(&mut e, 8, &[dr(4, 5), dr(1, 1)]);
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack {
            final_dr: 9,
            result: Some(IftResult::Ptc),
            ..
        }
    )));
}

/// B28.413: a routing unit is attacked on entry like any mover.
#[test]
fn b28_413_routing_unit_is_attacked() {
    let mut e = broken_squad_routing();
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let run = drive(&mut e, Side::A, rout("4E5"), &lay, &[unused_dr(), dr(6, 6)]);
    assert_eq!(unit(&e, 1).hex, Some(hex("4E5")));
    assert!(run
        .public_mines()
        .iter()
        .any(|m| matches!(m, MinefieldEvent::ApAttack { .. })));
}

/// B28.411: advancing units are attacked too.
#[test]
fn b28_411_advancing_unit_is_attacked() {
    let mut e = engine_in(
        scenario(&[squad(1, Side::A, "4E4")], &[], false),
        Phase::Advance,
    );
    let lay = layout(&[(ap_b("4E5"), ap(6))]);
    let run = drive(
        &mut e,
        Side::A,
        Action::Advance {
            units: vec![UnitId(1)],
            to: hex("4E5"),
        },
        &lay,
        &[unused_dr(), dr(6, 6)],
    );
    assert!(run
        .public_mines()
        .iter()
        .any(|m| matches!(m, MinefieldEvent::ApAttack { .. })));
}

/// B28.44: mines in a building hex do not attack a unit crossing a building
/// hexside (inside the building), unless it Bypasses; entering from open
/// ground is attacked.
#[test]
fn b28_44_building_hexside_attacks_only_bypass_movers() {
    let bld = HexInfo {
        building_id: Some(7),
        ..HexInfo::of(Terrain::StoneBuilding)
    };
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let terrain = [("4E4", bld), ("4E5", bld)];
    let mut e = one_squad_in(&terrain);
    let run = step(&mut e, &[1], "4E5", &lay, &[]);
    assert!(
        run.requests.is_empty(),
        "not even asked: {:?}",
        run.requests
    );
    let mut e = one_squad_in(&terrain);
    let run = step_by(
        &mut e,
        &[1],
        "4E5",
        MoveMode::Bypass,
        &lay,
        &[unused_dr(), dr(6, 6)],
    );
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
    let mut e = one_squad_in(&[("4E5", bld)]);
    let run = step(&mut e, &[1], "4E5", &lay, &[unused_dr(), dr(6, 6)]);
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
}

/// B28.44: no attack on Trench movement or a Tower's stairwell.
#[test]
fn b28_44_trench_and_tower_stairwell_are_not_attacked() {
    let mut tr = HexInfo::of(Terrain::Open);
    tr.features.trench = true;
    let lay = layout(&[(ap_b("4E4"), ap(8)), (ap_b("4E5"), ap(8))]);
    let mut e = one_squad_in(&[("4E4", tr), ("4E5", tr)]);
    let run = step_by(&mut e, &[1], "4E5", MoveMode::Trench, &lay, &[]);
    assert!(run.requests.is_empty());
    assert_eq!(unit(&e, 1).hex, Some(hex("4E5")));
    let mut tw = HexInfo::of(Terrain::Open);
    tw.features.tower = true;
    let mut e = one_squad_in(&[("4E5", tw)]);
    let run = step_by(&mut e, &[1], "4E5", MoveMode::TowerStairwell, &lay, &[]);
    assert!(run.requests.is_empty());
    // Trench movement needs trenches: refused before anything is asked.
    let mut e = one_squad();
    let run = step_by(&mut e, &[1], "4E5", MoveMode::Trench, &lay, &[]);
    run.assert_refused_asking_nothing();
}

/// B28.2: a revealed minefield does not block LOS: an A-T attack in full
/// view of an enemy across a marked minefield hex still strips "?".
#[test]
fn b28_2_minefield_hex_does_not_block_los() {
    // A squad in 4E4 fires across 4E5, a hex marked as mined every way a
    // minefield shows (revealed A-P, a Known counter, A-T in full view),
    // at an enemy squad in 4E6: the LOS the fire needs (A6) is not
    // hindered, so the attack is resolved; a woods hex in between blocks
    // the same fire (the check is real).
    let units = [squad(1, Side::A, "4E4"), squad(2, Side::B, "4E6")];
    let fire = Action::Fire {
        firers: vec![UnitId(1)],
        target: hex("4E6"),
        extra_drm: 0,
    };
    let mined = |st: &mut hexveil_asl::model::state::GameState| {
        let m = st.markers.entry(hex("4E5")).or_default();
        m.ap_revealed = Some(None);
        m.known_counter = Some(Side::B);
        m.at_in_view = Some(Side::B);
    };
    let mut e = engine_where(scenario(&units, &[], false), Phase::PrepFire, mined);
    let run = drive(&mut e, Side::A, fire.clone(), &Layout::new(), &[dr(6, 6)]);
    assert!(run.result.is_ok(), "B28.2: {:?}", run.result);
    let woods = [("4E5", HexInfo::of(Terrain::Woods))];
    let mut e = engine_where(scenario(&units, &woods, false), Phase::PrepFire, mined);
    let run = drive(&mut e, Side::A, fire, &Layout::new(), &[]);
    assert!(
        matches!(&run.result, Err(hexveil_asl::ActionError::Refused(r)) if r.reason.contains("no LOS")),
        "{:?}",
        run.result
    );
}

/// Movement refusals come before any fact is asked (G3): not adjacent,
/// wrong phase, enemy unit.
#[test]
fn refusals_ask_nothing() {
    let mut e = one_squad();
    let run = step(&mut e, &[1], "4E7", &Layout::new(), &[]);
    run.assert_refused_asking_nothing();
    let run = drive(
        &mut e,
        Side::B,
        mv(&[1], "4E5", MoveMode::Normal),
        &Layout::new(),
        &[],
    );
    assert!(run.result.is_err());
    assert!(run.requests.is_empty());
    assert_eq!(unit(&e, 1).hex, Some(hex("4E4")));
}

/// B28.413: a broken squad Reduced to a broken HS by the exit attack may
/// go on routing: it leaves and enters the next hex.
#[test]
fn b28_413_reduced_router_continues() {
    let mut e = broken_squad_routing();
    let lay = layout(&[(ap_b("4E4"), ap(8))]);
    // Exit DR 3 on 8 FP: K/2: Casualty Reduction, then 2MC DR 2 + 2 passes.
    let run = drive(
        &mut e,
        Side::A,
        rout("4E5"),
        &lay,
        &[dr(1, 2), dr(1, 1), unused_dr()],
    );
    let u = unit(&e, 1);
    assert_eq!(
        u.infantry().map(|i| i.size),
        Some(hexveil_asl::model::unit::InfantrySize::HalfSquad)
    );
    assert!(u.status.broken);
    assert_eq!(u.hex, Some(hex("4E5")));
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
}

/// B28.4: no extra cost and no refusal to enter a minefield hex; the
/// entry (and a later exit) are what trigger attacks (B28.41).
#[test]
fn b28_4_entry_and_exit_trigger_attacks_at_no_extra_cost() {
    let mut e = one_squad();
    let run = step_onto_ap(&mut e, 6, &[dr(6, 6)]);
    assert_eq!(run.public_mines().len(), 2, "presence + entry attack");
    // Next step out of the minefield: the exit attack (strength held by
    // the referee already: no new request for 4E5).
    let lay = layout(&[(ap_b("4E5"), ap(6))]);
    let run = step(&mut e, &[1], "4E6", &lay, &[dr(6, 5), unused_dr()]);
    assert_eq!(run.requests, vec![ap_b("4E6")]);
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack {
            crossing: Crossing::Exit,
            ..
        }
    )));
    assert_eq!(unit(&e, 1).hex, Some(hex("4E6")));
}

/// Where, among a driven step's events, the referee got the A-P leaf of
/// `opened` and the potential attack of `rolled` rolled its DR.
fn opened_and_rolled(run: &Run, opened: &str, rolled: &str) -> (usize, usize) {
    use hexveil_asl::model::event::EventKind;
    let events = run.events();
    let at = |f: &dyn Fn(&EventKind) -> bool| events.iter().position(|e| f(&e.kind));
    let open =
        at(&|k| matches!(k, EventKind::FactOpened { request, .. } if *request == ap_b(opened)));
    let roll = at(
        &|k| matches!(k, EventKind::Dice { purpose, .. } if purpose == &format!("A-P minefield attack in {rolled}")),
    );
    (
        open.expect("the leaf was opened"),
        roll.expect("the DR was rolled"),
    )
}

/// Issue 16 with B28.412 and G4: a step's entry leaf is opened before the
/// exit's potential-attack DR (so the owner answers it with that roll's
/// window, one round trip) only when the exit cannot attack, the referee
/// holding its leaf as unmined; leaving a hex it holds as mined, the exit
/// attack still comes first and the entry is asked after it, and leaving
/// a hex not opened yet the exit is asked first. The rolls and their use
/// are the same either way (R28).
#[test]
fn b28_412_the_entry_leaf_comes_before_the_exit_roll_only_when_the_exit_cannot_attack() {
    let mut e = one_squad();
    let lay = layout(&[(ap_b("4E6"), ap(6))]);
    // 4E4 (not opened yet) -> 4E5: the exit leaf, its DR, then the entry.
    let run = step(&mut e, &[1], "4E5", &lay, &[dr(6, 6), dr(6, 6)]);
    assert_eq!(run.requests, vec![ap_b("4E4"), ap_b("4E5")]);
    let (open, roll) = opened_and_rolled(&run, "4E5", "4E4");
    assert!(
        roll < open,
        "exit not held yet: its DR before the entry leaf"
    );
    // 4E5 (held, unmined) -> 4E6: the entry leaf first, then the exit DR.
    let run = step(&mut e, &[1], "4E6", &lay, &[dr(6, 6), dr(6, 6)]);
    assert_eq!(run.requests, vec![ap_b("4E6")]);
    let (open, roll) = opened_and_rolled(&run, "4E6", "4E5");
    assert!(open < roll, "exit held unmined: the entry leaf first");
    assert_eq!(
        unit(&e, 1).hex,
        Some(hex("4E6")),
        "DR 12 on 6 FP: no effect"
    );
    // 4E6 (held, mined: the exit attacks, B28.412) -> 4E7: the exit DR first.
    let run = step(&mut e, &[1], "4E7", &lay, &[dr(6, 6), dr(6, 6)]);
    assert_eq!(run.requests, vec![ap_b("4E7")]);
    let (open, roll) = opened_and_rolled(&run, "4E7", "4E6");
    assert!(
        roll < open,
        "exit held mined: its attack before the entry leaf"
    );
}

/// Ruleset version 1 (`AslV1`, games made before R70) keeps the exit's
/// roll before the entry leaf in the same steps, so their logs replay (G5).
#[test]
fn b28_412_ruleset_version_1_keeps_the_exit_roll_first() {
    let mut sc = scenario(&[squad(1, Side::A, "4E4")], &[], false);
    sc.version = hexveil_asl::model::scenario::Version(1);
    let mut e = engine(sc);
    let lay = layout(&[(ap_b("4E6"), ap(6))]);
    step(&mut e, &[1], "4E5", &lay, &[dr(6, 6), dr(6, 6)]);
    let run = step(&mut e, &[1], "4E6", &lay, &[dr(6, 6), dr(6, 6)]);
    let (open, roll) = opened_and_rolled(&run, "4E6", "4E5");
    assert!(roll < open, "version 1: the exit DR first");
}

/// B28.41 speaks of "a unit" entering (and B28.9 exempts only Booby Traps
/// from hitting their placer's units; B28.45's Known minefields are marked
/// "so friendly troops would not accidentally enter them"): from ruleset
/// version 3 a side's own minefield attacks its own unit (R74). Side B's
/// squad walks into B's own Known A-P minefield in 4E5: B's leaf is asked
/// after A's (the enemy's first), the minefield attacks it and its
/// presence is announced. Version 2 never asked B's own leaves.
#[test]
fn b28_41_r74_a_sides_own_known_minefield_attacks_its_own_unit() {
    let sc = scenario(&[squad(1, Side::B, "4E4")], &[], false);
    let b_moves = |st: &mut hexveil_asl::model::state::GameState| {
        st.phasing = Side::B;
        st.markers.entry(hex("4E5")).or_default().known_counter = Some(Side::B);
    };
    let lay = layout(&[(ap_b("4E5"), ap(8))]);
    let b_step = |e: &mut hexveil_asl::Engine, rolls: &[hexveil_asl::Roll]| {
        drive(e, Side::B, mv(&[1], "4E5", MoveMode::Normal), &lay, rolls)
    };
    let ap_a = |h: &str| req(Side::A, Layer::AntiPersonnel, h);
    let mut e = engine_where(sc.clone(), Phase::Movement, b_moves);
    // Exit of 4E4: A's leaf and B's own (B has hidden factors), each
    // with its potential DR; entry of 4E5: A's, then B's Known mines, DR
    // 5 on 8 FP: 2MC, MC DR 6 + 2 = 8 > 7, within the ELR: broken.
    let run = b_step(
        &mut e,
        &[unused_dr(), unused_dr(), unused_dr(), dr(2, 3), dr(3, 3)],
    );
    assert_eq!(
        run.requests,
        vec![ap_a("4E4"), ap_b("4E4"), ap_a("4E5"), ap_b("4E5")]
    );
    assert!(run.public_mines().contains(&MinefieldEvent::ApPresent {
        hex: hex("4E5"),
        owner: Side::B
    }));
    assert!(run.public_mines().iter().any(|m| matches!(
        m,
        MinefieldEvent::ApAttack { hex: h, targets, strength: Some(8), .. }
            if *h == hex("4E5") && targets == &vec![UnitId(1)]
    )));
    assert!(unit(&e, 1).status.broken, "{:?}", run.result);
    // Version 2: only the enemy's (A's) leaves were asked.
    let mut sc2 = sc;
    sc2.version = hexveil_asl::model::scenario::Version(2);
    let mut e = engine_where(sc2, Phase::Movement, b_moves);
    let run = b_step(&mut e, &[unused_dr(), unused_dr()]);
    assert_eq!(run.requests, vec![ap_a("4E4"), ap_a("4E5")]);
    assert!(!unit(&e, 1).status.broken);
}
