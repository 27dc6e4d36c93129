//! One test (at least) per DUTIES row of seed 004, miniatures minefields.

mod common;
use common::*;
use hexveil_core::{DiceKind, EventKind, Side, Visibility};
use hexveil_minis::{Action, MineKind, MinisEvent, Status, VehicleResult};

fn inf_a() -> String {
    fig("inf", "A", "infantry", "10.5,13", "")
}

#[test]
fn seed004_detonation_roll_one_percentile_read_at_distance_and_density() {
    // 2 in through hidden A-P density 2: the table gives 38 (seed 004
    // detonation roll, R9).
    let sc = scenario_with(SAVES, &inf_a());
    let mut g = Game::new(sc);
    g.hide(Side::B, &["c10x14", "c10x15"], mines(2, 0, false));
    let r = g.mv(Side::A, "inf", &["10.5,16"], &[39]).unwrap();
    assert_eq!(r.specs.len(), 1);
    assert_eq!(r.specs[0].kind, DiceKind::Percentile);
    assert!(r.rules().contains(&MinisEvent::NoDetonation {
        figure: "inf".into()
    }));

    let sc = scenario_with(SAVES, &inf_a());
    let mut g = Game::new(sc);
    g.hide(Side::B, &["c10x14", "c10x15"], mines(2, 0, false));
    let r = g.mv(Side::A, "inf", &["10.5,16"], &[38, 6]).unwrap();
    assert!(r.rules().iter().any(|e| matches!(
        e,
        MinisEvent::Detonation {
            mine: MineKind::AntiPersonnel,
            ..
        }
    )));
}

#[test]
fn seed004_detonation_roll_distance_rounds_up_r9() {
    // 1.5 in inside the field reads the 2 in row (density 1: 28).
    let sc = scenario_with(SAVES, &inf_a());
    let mut g = Game::new(sc);
    g.hide(Side::B, &["c10x14", "c10x15"], mines(1, 0, false));
    let r = g.mv(Side::A, "inf", &["10.5,15.5"], &[29]).unwrap();
    assert!(r.rules().contains(&MinisEvent::NoDetonation {
        figure: "inf".into()
    }));
    let sc = scenario_with(SAVES, &inf_a());
    let mut g = Game::new(sc);
    g.hide(Side::B, &["c10x14", "c10x15"], mines(1, 0, false));
    let r = g.mv(Side::A, "inf", &["10.5,15.5"], &[28, 6]).unwrap();
    assert!(r
        .rules()
        .iter()
        .any(|e| matches!(e, MinisEvent::Detonation { .. })));
}

#[test]
fn seed004_who_triggers_infantry_never_trigger_at_mines() {
    let sc = scenario_with(SAVES, &inf_a());
    let mut g = Game::new(sc);
    g.hide(Side::B, &["c10x14", "c10x15"], mines(0, 3, false));
    // Even a roll of 01 sets nothing off: there is no A-P density.
    let r = g.mv(Side::A, "inf", &["10.5,16"], &[1]).unwrap();
    assert!(r.rules().contains(&MinisEvent::NoDetonation {
        figure: "inf".into()
    }));
    assert_eq!(g.status("inf"), Status::Active);
}

#[test]
fn seed004_who_triggers_infantry_in_mixed_field_roll_vs_ap_density_only() {
    // A-P 1 + A-T 3, 1 in: Infantry read density 1 (26), a vehicle 4 (56).
    let figs = format!("{}{}", inf_a(), fig("pz", "A", "afv", "20.5,13", ""));
    let mut g = Game::new(scenario_with(SAVES, &figs));
    g.hide(Side::B, &["c10x14", "c20x14"], mines(1, 3, false));
    let r = g.mv(Side::A, "inf", &["10.5,15"], &[27]).unwrap();
    assert!(r.rules().contains(&MinisEvent::NoDetonation {
        figure: "inf".into()
    }));
    // The vehicle triggers any mine; 27 <= 56 detonates; second roll 25 <=
    // 100*3/4 picks the A-T mine (R45); D6 6: no damage.
    let r = g.mv(Side::A, "pz", &["20.5,15"], &[27, 25, 6]).unwrap();
    assert!(r.rules().iter().any(|e| matches!(
        e,
        MinisEvent::Detonation {
            mine: MineKind::AntiTank,
            ..
        }
    )));
    assert_eq!(r.specs[1].cite, "R45");
}

#[test]
fn seed004_who_triggers_ap_mine_does_not_harm_a_vehicle() {
    let mut g = Game::new(scenario_with(SAVES, &fig("pz", "A", "afv", "20.5,13", "")));
    g.hide(Side::B, &["c20x14"], mines(2, 0, false));
    let r = g.mv(Side::A, "pz", &["20.5,15"], &[1]).unwrap();
    assert!(r.rules().contains(&MinisEvent::VehicleHit {
        figure: "pz".into(),
        result: VehicleResult::NoDamage
    }));
    assert_eq!(g.status("pz"), Status::Active);
}

fn at_hit(kind: &str, extra: &str, dice: &[u8]) -> (Game, common::Run) {
    let mut g = Game::new(scenario_with(SAVES, &fig("v", "A", kind, "20.5,13", extra)));
    g.hide(Side::B, &["c20x14"], mines(0, 1, false));
    let r = g.mv(Side::A, "v", &["20.5,15"], dice).unwrap();
    (g, r)
}

#[test]
fn seed004_soft_vehicles_destroyed_towed_weapon_survives_on_4_to_6() {
    for (d6, survived) in [(3, false), (4, true), (6, true), (1, false)] {
        let (g, r) = at_hit("soft", "towing = \"PaK 40\"", &[1, d6]);
        assert_eq!(g.status("v"), Status::Destroyed);
        assert!(r.rules().contains(&MinisEvent::TowedWeapon {
            figure: "v".into(),
            towed: "PaK 40".into(),
            survived
        }));
    }
    // Without a towed weapon: destroyed, no roll.
    let (g, r) = at_hit("soft", "", &[1]);
    assert_eq!(g.status("v"), Status::Destroyed);
    assert_eq!(r.specs.len(), 1);
}

#[test]
fn seed004_afv_vs_at_mine_d6_1_3_destroyed_4_5_immobilized_6_none() {
    for (d6, want) in [
        (1, Status::Destroyed),
        (3, Status::Destroyed),
        (4, Status::Immobilized),
        (5, Status::Immobilized),
        (6, Status::Active),
    ] {
        let (g, _) = at_hit("afv", "", &[1, d6]);
        assert_eq!(g.status("v"), want, "D6 {d6}");
    }
}

#[test]
fn seed004_afv_vs_at_mine_kv_only_ever_immobilized() {
    for (d6, want) in [
        (1, Status::Immobilized),
        (5, Status::Immobilized),
        (6, Status::Active),
    ] {
        let (g, _) = at_hit("afv", "model = \"KV-II\"", &[1, d6]);
        assert_eq!(g.status("v"), want, "D6 {d6}");
    }
}

#[test]
fn seed004_who_triggers_an_immobilized_vehicle_cannot_move() {
    let (mut g, _) = at_hit("afv", "", &[1, 4]);
    g.end_turn(Side::A);
    g.end_turn(Side::B);
    let e = g.mv(Side::A, "v", &["20.5,16"], &[]).unwrap_err();
    assert!(e.to_string().contains("immobilized"), "{e}");
}

#[test]
fn seed004_blast_radius_infantry_advancing_beside_a_vehicle_are_caught() {
    // The seed's example: Infantry advancing alongside a vehicle that sets
    // off an A-T mine. The tank stops at its detonation point 20.5,15 (R46);
    // "near" is 1.4 in away (within 1.5 in), "far" 1.6 in (outside).
    let figs = format!(
        "{}{}{}",
        fig("pz", "A", "afv", "20.5,13", ""),
        fig("near", "A", "infantry", "21.9,15", ""),
        fig("far", "A", "infantry", "18.9,15", "")
    );
    let mut g = Game::new(scenario_with(SAVES, &figs));
    g.hide(Side::B, &["c20x14"], mines(0, 1, false));
    // Percentile 1, tank D6 6 (no damage), near's save D6 3 (< 4: removed).
    let r = g.mv(Side::A, "pz", &["20.5,15"], &[1, 6, 3]).unwrap();
    assert_eq!(g.pos("pz"), p("20.5,15"));
    assert_eq!(g.status("near"), Status::Removed);
    assert_eq!(g.status("far"), Status::Active);
    assert!(r.rules().contains(&MinisEvent::BlastSave {
        figure: "near".into(),
        distance_tenths: 14,
        needs: 4,
        roll: 3,
        saved: false
    }));
}

#[test]
fn seed004_blast_radius_ap_mine_1_in_includes_the_triggering_figure() {
    let figs = format!(
        "{}{}{}",
        fig("inf", "A", "infantry", "10.5,13", ""),
        fig("beside", "A", "infantry", "11.5,14.5", ""),
        fig("behind", "A", "infantry", "10.5,12.9", "")
    );
    let mut g = Game::new(scenario_with(SAVES, &figs));
    g.hide(Side::B, &["c10x14"], mines(1, 0, false));
    // Ends at 10.5,14.5 inside the mined cell: detonation point there.
    // beside is 1.0 in away (within 1 in), behind 1.6 in.
    let r = g.mv(Side::A, "inf", &["10.5,14.5"], &[1, 5, 4]).unwrap();
    assert_eq!(r.specs.len(), 3);
    assert_eq!(g.status("inf"), Status::Active);
    assert_eq!(g.status("beside"), Status::Removed);
    assert_eq!(g.status("behind"), Status::Active);
}

#[test]
fn seed004_blast_radius_missing_save_field_is_refused_r10_and_changes_nothing() {
    let mut g = Game::new(scenario_with("", &inf_a()));
    let before = g.engine.state().clone();
    let e = g.mv(Side::A, "inf", &["10.5,16"], &[]).unwrap_err();
    let s = e.to_string();
    assert!(s.contains("blast_saves.ap") && s.contains("R10"), "{s}");
    assert_eq!(g.engine.state(), &before);
    // A path over ground no one may mine needs no save.
    assert!(g.mv(Side::A, "inf", &["10.5,10"], &[]).is_ok());
}

#[test]
fn seed004_s_mines_banded_saves_r8_boundaries_go_to_the_nearer_band() {
    // The S-mine goes off at 20.5,3.5 (path ends there, inside c20x3).
    let figs = format!(
        "{}{}{}{}{}{}{}",
        fig("trig", "B", "infantry", "20.5,8", ""),
        fig("d5", "B", "infantry", "25.5,3.5", ""),
        fig("d5x", "B", "infantry", "25.6,3.5", ""),
        fig("d10", "B", "infantry", "30.5,3.5", ""),
        fig("d15", "B", "infantry", "35.5,3.5", ""),
        fig("d20", "B", "infantry", "40.5,3.5", ""),
        fig("d20x", "B", "infantry", "40.6,3.5", "")
    );
    let mut g = Game::new(scenario_with(SAVES, &figs));
    g.hide(Side::A, &["c20x3"], mines(1, 0, true));
    g.end_turn(Side::A);
    // percentile 1; saves in figure order: trig (0 in: 5+), d5 (5+), d5x
    // (4+), d10 (4+), d15 (3+), d20 (2+); d20x is beyond 20 in.
    let r = g
        .mv(Side::B, "trig", &["20.5,3.5"], &[1, 5, 4, 4, 3, 3, 1])
        .unwrap();
    let needs: Vec<(String, u8, bool)> = r
        .rules()
        .into_iter()
        .filter_map(|e| match e {
            MinisEvent::BlastSave {
                figure,
                needs,
                saved,
                ..
            } => Some((figure, needs, saved)),
            _ => None,
        })
        .collect();
    assert_eq!(
        needs,
        [
            ("trig".to_string(), 5, true),
            ("d5".into(), 5, false),
            ("d5x".into(), 4, true),
            ("d10".into(), 4, false),
            ("d15".into(), 3, true),
            ("d20".into(), 2, false),
        ]
    );
    assert!(r.specs[1..].iter().all(|s| s.cite == "seed 004 S-mines"));
}

#[test]
fn seed004_s_mines_only_german_troops_have_or_lay_them() {
    // A Soviet S-mine budget is refused at load.
    let text = std::fs::read_to_string(format!(
        "{}/../examples/minis/scenario.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace(
        "budget = { ap = 40, at = 16 }",
        "budget = { ap = 40, at = 16, s = 2 }",
    );
    let e = hexveil_minis::MinisScenario::from_toml(&text).unwrap_err();
    assert!(e.contains("seed 004 S-mines"), "{e}");
    // A Soviet figure may not lay one.
    let mut g = Game::new(scenario_with(
        SAVES,
        &fig("sov", "B", "infantry", "10.5,30.5", ""),
    ));
    g.end_turn(Side::A);
    let before = g.engine.state().clone();
    let e = g
        .play(
            Side::B,
            Action::Lay {
                figure: "sov".into(),
                cell: c("c10x30"),
                kind: MineKind::SMine,
            },
            &[],
        )
        .unwrap_err();
    assert!(e.to_string().contains("seed 004 S-mines"), "{e}");
    assert_eq!(g.engine.state(), &before);
}

#[test]
fn seed004_laying_two_consecutive_moves_lay_one_open_mine() {
    let mut g = Game::new(scenario_with(
        SAVES,
        &fig("sap", "A", "infantry", "30.5,30.5", ""),
    ));
    let lay = || Action::Lay {
        figure: "sap".into(),
        cell: c("c31x30"),
        kind: MineKind::AntiPersonnel,
    };
    let r = g.play(Side::A, lay(), &[]).unwrap();
    assert!(matches!(r.rules()[0], MinisEvent::LayingBegun { .. }));
    // One move per turn: not twice in the same turn.
    assert!(g.play(Side::A, lay(), &[]).is_err());
    g.end_turn(Side::A);
    g.end_turn(Side::B);
    let r = g.play(Side::A, lay(), &[]).unwrap();
    assert!(r.rules().contains(&MinisEvent::MineLaid {
        figure: "sap".into(),
        cell: c("c31x30"),
        kind: MineKind::AntiPersonnel,
        density: 1
    }));
    assert_eq!(g.engine.state().open[&c("c31x30")].ap, 1);
    // Open mines laid in play are public: a later move across rolls.
    g.end_turn(Side::A);
    g.end_turn(Side::B);
    let r = g.mv(Side::A, "sap", &["32.5,30.5"], &[99]).unwrap();
    assert_eq!(r.specs.len(), 1);
    assert!(r.requests.is_empty(), "open mines need no opening");
}

#[test]
fn seed004_laying_interrupted_starts_again() {
    let mut g = Game::new(scenario_with(
        SAVES,
        &fig("sap", "A", "infantry", "30.5,30.5", ""),
    ));
    let lay = || Action::Lay {
        figure: "sap".into(),
        cell: c("c30x30"),
        kind: MineKind::AntiTank,
    };
    g.play(Side::A, lay(), &[]).unwrap();
    g.end_turn(Side::A);
    g.end_turn(Side::B);
    g.end_turn(Side::A); // a turn without laying
    g.end_turn(Side::B);
    let r = g.play(Side::A, lay(), &[]).unwrap();
    assert!(matches!(r.rules()[0], MinisEvent::LayingBegun { .. }));
}

#[test]
fn seed004_laying_a_cell_too_far_is_refused() {
    let mut g = Game::new(scenario_with(
        SAVES,
        &fig("sap", "A", "infantry", "30.5,30.5", ""),
    ));
    let e = g
        .play(
            Side::A,
            Action::Lay {
                figure: "sap".into(),
                cell: c("c32x30"),
                kind: MineKind::AntiPersonnel,
            },
            &[],
        )
        .unwrap_err();
    assert!(e.to_string().contains("not in or next to"), "{e}");
}

#[test]
fn seed004_clearing_makes_every_eligible_cell_on_the_strip_empty() {
    let figs = format!(
        "{}{}",
        fig("sap", "A", "infantry", "10.5,13.8", ""),
        fig("other", "A", "infantry", "10.5,13", "")
    );
    let mut g = Game::new(scenario_with(SAVES, &figs));
    g.hide(Side::B, &["c10x14"], mines(3, 0, false));
    // 1 in north: the strip touches c10x13 (not eligible), c10x14 (mined)
    // and c10x15 (empty, eligible): both eligible cells are opened for the
    // referee and made empty, mined or not; no roll (R47).
    let r = g
        .play(
            Side::A,
            Action::Clear {
                figure: "sap".into(),
                to: p("10.5,14.8"),
            },
            &[],
        )
        .unwrap();
    assert!(r.specs.is_empty());
    let transitions: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Transition {
                request,
                new_content,
            } => {
                assert_eq!(e.to, Visibility::Referee);
                assert!(new_content.is_empty());
                Some(request.location.key().to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(transitions, ["c10x14", "c10x15"]);
    assert!(r
        .events
        .iter()
        .all(|e| !matches!(e.kind, EventKind::FactOpened { .. }) || e.to == Visibility::Referee));
    // The cleared cell no longer sets anything off.
    let r = g.mv(Side::A, "other", &["10.5,14.5"], &[1]).unwrap();
    assert!(r.rules().contains(&MinisEvent::NoDetonation {
        figure: "other".into()
    }));
}

#[test]
fn seed004_clearing_lifts_open_mines_and_moves_at_most_1_in() {
    let sc = scenario_with(SAVES, &fig("sap", "A", "infantry", "30.5,15.5", ""));
    let b = public_setup(&sc, Side::B, "[[open]]\ncells = [\"c30x16\"]\nap = 2\n");
    let mut g = Game::with_setups(sc, empty(Side::A), b);
    let before = g.engine.state().clone();
    let e = g
        .play(
            Side::A,
            Action::Clear {
                figure: "sap".into(),
                to: p("30.5,16.6"),
            },
            &[],
        )
        .unwrap_err();
    assert!(e.to_string().contains("at most 1 in"), "{e}");
    assert_eq!(g.engine.state(), &before);
    let r = g
        .play(
            Side::A,
            Action::Clear {
                figure: "sap".into(),
                to: p("30.5,16.5"),
            },
            &[],
        )
        .unwrap();
    assert!(r.rules().contains(&MinisEvent::Cleared {
        figure: "sap".into(),
        cells: vec![c("c30x15"), c("c30x16")],
        open_removed: vec![c("c30x16")],
    }));
    assert!(!g.engine.state().open.contains_key(&c("c30x16")));
    assert_eq!(g.pos("sap"), p("30.5,16.5"));
}
