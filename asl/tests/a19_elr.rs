//! A19.1-A19.132 driven through the real Engine: a Russian Fire Group
//! (two 4-4-7, 8 FP) in 4E2 fires at German units two hexes away in 4E4 (Open Ground).

mod fire_common;
use fire_common::*;
use hexveil_asl::a::morale::MoraleEvent;
use hexveil_asl::model::scenario::SideOb;
use hexveil_asl::model::unit::{Class, InfantrySize, Trait, Unit, UnitId, UnitKind};
use hexveil_asl::Side;

/// German unit 2 in the target hex: an underscored 6-5-8 Elite squad.
fn elite_658() -> Unit {
    underscored(squad(2, Side::B, "German", "6-5-8", Class::Elite, TARGET))
}

/// German unit 2 in the target hex: an underscored 3-4-8 Elite half-squad.
fn elite_348_hs() -> Unit {
    let hs = InfantrySize::HalfSquad;
    underscored(inf(2, Side::B, "German", "3-4-8", hs, Class::Elite, TARGET))
}

/// German unit 2 in the target hex: a 4-3-6 Conscript squad (no lower
/// quality to be Replaced by, A19.12).
fn conscript() -> Unit {
    squad(2, Side::B, "German", "4-3-6", Class::Conscript, TARGET)
}

/// IFT DR 4 (1,3) on the 8 FP column: 2MC.
const TWO_MC: fn() -> hexveil_asl::Roll = || dr(1, 3);

#[test]
fn a19_1_failure_not_beyond_elr_only_breaks() {
    let mut e = russians_vs(vec![german(2)], 3);
    // MC 8 + 2 = 10 vs ML 7: failed by 3, not more than ELR 3.
    let ev = group_fires(&mut e, &[TWO_MC(), dr(4, 4)]).unwrap();
    let u = unit(&e, 2);
    assert!(u.status.broken && u.in_play());
    assert_eq!(e.state().units.len(), 3, "no new unit");
    assert!(morale_events(&ev).contains(&MoraleEvent::Broken { unit: UnitId(2) }));
}

#[test]
fn a19_1_a19_13_fire_breaks_squad_beyond_elr_and_replaces_it() {
    let mut e = russians_vs(vec![german(2)], 3);
    // MC 10 + 2 = 12 vs ML 7: failed by 5 > ELR 3 -> Replaced by a broken 4-4-7.
    let ev = group_fires(&mut e, &[TWO_MC(), dr(5, 5)]).unwrap();
    let old = unit(&e, 2);
    assert!(!old.in_play());
    let new = unit(&e, 3);
    assert_eq!(new.side, Side::B);
    assert_eq!(new.hex, Some(hex(TARGET)));
    assert!(new.status.broken);
    let inf = new.infantry().unwrap();
    assert_eq!(inf.strength.to_string(), "4-4-7");
    assert_eq!(inf.class, Class::SecondLine, "A19.13: class must drop");
    assert!(morale_events(&ev).iter().any(|m| matches!(m,
        MoraleEvent::Replaced { old, new, .. } if *old == UnitId(2) && new == &vec![UnitId(3)])));
}

#[test]
fn a19_1_elr_is_the_obs_current_value() {
    // The same failure by 5 with ELR 5 only breaks the squad.
    let mut e = russians_vs(vec![german(2)], 5);
    group_fires(&mut e, &[TWO_MC(), dr(5, 5)]).unwrap();
    assert!(unit(&e, 2).in_play() && unit(&e, 2).status.broken);
    assert_eq!(e.state().units.len(), 3);
}

#[test]
fn a19_13_underscored_squad_is_replaced_by_two_broken_half_squads() {
    let ss = elite_658();
    let mut e = russians_vs(vec![ss], 5);
    // Even with ELR 5: MC 12 (6,5 -> 11 + 2 = 13) vs 8 fails by 5 -> not beyond 5.
    // Use 6,6? That is a Casualty MC; take 5,6 = 11 + 2 = 13: by 5, not > 5.
    group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
    assert!(
        unit(&e, 2).in_play(),
        "failed by exactly the ELR: only broken"
    );
    let ss = elite_658();
    let mut e = russians_vs(vec![ss], 2);
    let ev = group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
    assert!(!unit(&e, 2).in_play());
    for id in [3, 4] {
        let hs = unit(&e, id);
        assert!(hs.status.broken);
        assert_eq!(hs.label(), "3-4-8 HS");
        assert_eq!(hs.hex, Some(hex(TARGET)));
    }
    assert!(morale_events(&ev).iter().any(|m| matches!(m,
        MoraleEvent::Replaced { new, .. } if new == &vec![UnitId(3), UnitId(4)])));
}

#[test]
fn a19_13_r11_underscored_half_squad_is_disrupted_instead() {
    let hs = elite_348_hs();
    let mut e = russians_vs(vec![hs], 2);
    // 11 + 2 = 13 vs 8: by 5 > ELR 2.
    let ev = group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
    let u = unit(&e, 2);
    assert!(u.in_play() && u.status.broken && u.status.disrupted);
    assert_eq!(
        u.label(),
        "3-4-8 HS",
        "not replaced by the table's 2-3-7 (R11)"
    );
    assert_eq!(e.state().units.len(), 3);
    assert!(morale_events(&ev).contains(&MoraleEvent::Disrupted { unit: UnitId(2) }));
}

#[test]
fn a19_12_no_lower_unit_breaks_and_disrupts() {
    let c = conscript();
    let mut e = russians_vs(vec![c], 1);
    // 4 + 2 + ... MC (4,4) 8 + 2 = 10 vs 6: by 4 > 1.
    group_fires(&mut e, &[TWO_MC(), dr(4, 4)]).unwrap();
    let u = unit(&e, 2);
    assert!(u.status.broken && u.status.disrupted && u.in_play());
    assert!(
        !hexveil_asl::a::elr::may_self_rally(u),
        "A19.12: no Self-Rally"
    );
}

#[test]
fn a19_12_exempt_units_are_only_broken() {
    // SS opposed by Russians, Fanatic, Japanese: never Disrupted.
    let cases = vec![
        with(elite_348_hs(), Trait::Ss),
        with(conscript(), Trait::Fanatic),
        with(conscript(), Trait::Partisan),
    ];
    for u in cases {
        let mut e = russians_vs(vec![u], 0);
        group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
        let u = unit(&e, 2);
        assert!(u.status.broken && !u.status.disrupted, "{}", u.label());
    }
    // SS not opposed by Russians are Disrupted.
    let ss = with(elite_348_hs(), Trait::Ss);
    let units = vec![
        squad(0, Side::A, "American", "6-6-6", Class::FirstLine, FIRERS),
        ss,
    ];
    let mut e = engine(scenario(sides("American", 3, "German", 0), &units, &[]));
    // 6 FP column DR 4 = 2MC.
    run(&mut e, Side::A, fire(&[0], TARGET), &[dr(1, 3), dr(5, 6)]).unwrap();
    assert!(unit(&e, 2).status.disrupted);
}

#[test]
fn a19_11_crews_heroes_and_broken_units_are_never_replaced() {
    let crew = crew(2, Side::B, "German", "2-2-8", Class::Elite, TARGET);
    let mut e = russians_vs(vec![crew], 0);
    group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
    assert!(unit(&e, 2).in_play() && unit(&e, 2).status.broken);
    assert_eq!(e.state().units.len(), 3);

    let hero = with(german(2), Trait::Hero);
    let mut e = russians_vs(vec![hero], 0);
    group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
    assert!(unit(&e, 2).in_play() && unit(&e, 2).status.broken);

    // An already broken unit failing an MC is Casualty Reduced (A10.3), not Replaced.
    let mut broken = german(2);
    broken.status.broken = true;
    let mut e = russians_vs(vec![broken], 0);
    group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
    assert_eq!(unit(&e, 2).label(), "2-4-7 HS");
    assert_eq!(e.state().units.len(), 3);
}

#[test]
fn a19_13_leaders_step_down_the_ladder() {
    let l = leader(2, Side::B, "German", 9, -2, TARGET);
    let mut e = russians_vs(vec![l], 0);
    // MC 5 + 2 = 7... need > 9 + 0: (5,5) = 10 + 2 = 12 vs 9: by 3 > 0.
    group_fires(&mut e, &[TWO_MC(), dr(5, 5)]).unwrap();
    let new = unit(&e, 3);
    assert_eq!(new.label(), "9-1 leader");
    assert!(new.status.broken);
    assert!(!unit(&e, 2).in_play());
    // A 6+1 has no lower leader: broken and Disrupted (A19.12).
    let l = leader(2, Side::B, "German", 6, 1, TARGET);
    let mut e = russians_vs(vec![l], 0);
    group_fires(&mut e, &[TWO_MC(), dr(3, 3)]).unwrap();
    let u = unit(&e, 2);
    assert!(u.status.broken && u.status.disrupted);
}

/// R41 with R72 (ruleset version 3): a leader off the Replacement ladder
/// would need rules data the first time it failed a MC beyond its ELR, so
/// its scenario is refused at load; version 2 refused the MC after its
/// dice (a void ruling, R36).
#[test]
fn a19_13_a_leader_off_the_ladder_is_refused_at_load_from_version_3() {
    use hexveil_asl::model::scenario::{check_for_version, Version};
    let mut units = russian_group();
    units.push(leader(2, Side::B, "German", 10, -3, TARGET));
    let mut sc = scenario(sides("Russian", 3, "German", 0), &units, &[]);
    let err = check_for_version(&sc).unwrap_err().to_string();
    assert!(err.contains("10-3") && err.contains("R41"), "{err}");
    sc.version = Version(2);
    check_for_version(&sc).unwrap();
    // Version 2: the MC's refusal after its dice, changing nothing.
    let mut e = engine(sc);
    let before = e.state().clone();
    let err = group_fires(&mut e, &[TWO_MC(), dr(6, 5)]).unwrap_err();
    assert!(err.to_string().contains("10-3"), "{err}");
    assert_eq!(e.state(), &before);
}

/// R73 (ruleset version 3), G2: a refusal that still comes after dice (an
/// engine given a scenario that skipped the load check above) consumes the
/// action: its dice stand as rolled, nothing of its effects applies, and
/// its units may not fire again this phase, so the same question is never
/// rolled twice. The public record says which units; the words of the
/// refusal go to the referee only (G3).
#[test]
fn a19_13_r73_a_late_refusal_consumes_the_action_and_no_unit_retries() {
    use hexveil_asl::model::event::{EventKind, Visibility};
    use hexveil_asl::turn::TurnEvent;
    let l = leader(2, Side::B, "German", 10, -3, TARGET);
    let mut e = russians_vs(vec![l], 0);
    let before = e.state().clone();
    let ev = group_fires(&mut e, &[TWO_MC(), dr(6, 5)]).unwrap();
    let dice = ev
        .iter()
        .filter(|x| matches!(x.kind, EventKind::Dice { .. }))
        .count();
    assert_eq!(dice, 2, "both rolls stand: {ev:?}");
    let consumed = ev
        .iter()
        .find_map(|x| match &x.kind {
            EventKind::Turn(TurnEvent::Consumed { side, units }) => {
                Some((x.to, *side, units.clone()))
            }
            _ => None,
        })
        .expect("a Consumed event");
    assert_eq!(
        consumed,
        (Visibility::Public, Side::A, vec![UnitId(0), UnitId(1)])
    );
    let why = ev
        .iter()
        .find_map(|x| match &x.kind {
            EventKind::Turn(TurnEvent::ConsumedWhy { reason }) => Some((x.to, reason.clone())),
            _ => None,
        })
        .expect("the referee's record of why");
    assert_eq!(why.0, Visibility::Referee);
    assert!(why.1.contains("10-3"), "{}", why.1);
    assert!(
        ev.iter()
            .filter(|x| x.to == Visibility::Public && !matches!(x.kind, EventKind::Dice { .. }))
            .all(|x| !format!("{:?}", x.kind).contains("ladder")),
        "the refusal's words are not public: {ev:?}"
    );
    // Nothing of the attack applies: the leader is as it was.
    assert_eq!(unit(&e, 2), &before.units[&UnitId(2)]);
    assert!(!unit(&e, 2).status.broken);
    // The same Fire Group, or either of its units, may not fire again this
    // phase: refused before any die.
    for firers in [&[0u16, 1][..], &[0], &[1]] {
        let err = run(&mut e, Side::A, fire(firers, TARGET), &[]).unwrap_err();
        assert!(err.to_string().contains("R73"), "{err}");
    }
}

#[test]
fn a19_13_casualty_mc_beyond_elr_reduces_squad_to_a_lesser_broken_hs() {
    let mut e = russians_vs(vec![german(2)], 3);
    // Original 12 (A10.31): 12 + 2 = 14 vs 7, by 7 > 3: 4-6-7 -> 2-4-7 -> 2-3-7 broken.
    group_fires(&mut e, &[TWO_MC(), dr(6, 6)]).unwrap();
    let new = unit(&e, 3);
    assert_eq!(new.label(), "2-3-7 HS");
    assert!(new.status.broken);
    assert!(!unit(&e, 2).in_play());
}

#[test]
fn a10_31_casualty_mc_within_elr_reduces_and_breaks() {
    let mut e = russians_vs(vec![german(2)], 5);
    // NMC: 8 FP DR 8 (3,5) = NMC. Original 12 vs 7: by 5, not > 5.
    group_fires(&mut e, &[dr(3, 5), dr(6, 6)]).unwrap();
    let u = unit(&e, 2);
    assert_eq!(u.label(), "2-4-7 HS");
    assert!(u.status.broken);
    assert_eq!(e.state().units.len(), 3);
}

#[test]
fn a19_132_ssr_elr_of_4_or_less_replaces_underscored_squads_normally() {
    let ss = elite_658();
    let mut units = russian_group();
    units.extend([ss]);
    let mut s = sides("Russian", 3, "German", 3);
    s.insert(
        Side::B,
        SideOb {
            nationality: "German".into(),
            elr: 3,
            elr_by_ssr: true,
            ..SideOb::default()
        },
    );
    let mut e = engine(scenario(s, &units, &[]));
    // 11 + 2 = 13 vs 8: by 5 > 3.
    let ev = group_fires(&mut e, &[TWO_MC(), dr(5, 6)]).unwrap();
    let new = unit(&e, 3);
    assert_eq!(new.label(), "4-4-7 squad", "A19.132: 6-5-8 -> 4-4-7");
    assert!(new.status.broken);
    assert!(e.state().unit(UnitId(4)).is_none(), "one squad, not two HS");
    assert!(ev.iter().any(|x| x.cite.iter().any(|c| c == "A19.132")));
}

#[test]
fn a19_13_replacement_ids_are_deterministic_max_plus_one() {
    // Two German squads replaced by the same attack get ids 4 then 5.
    let mut e = russians_vs(vec![german(2), german(3)], 0);
    group_fires(&mut e, &[TWO_MC(), dr(5, 5), dr(4, 5)]).unwrap();
    assert_eq!(unit(&e, 4).name, "u2>4-4-7");
    assert_eq!(unit(&e, 5).name, "u3>4-4-7");
    assert!(matches!(unit(&e, 5).kind, UnitKind::Infantry(_)));
}
