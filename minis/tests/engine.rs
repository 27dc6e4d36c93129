//! Refusals, G3 (a hidden field that does not go off looks exactly like
//! empty ground), determinism, turns, the example scenario, the kernel
//! boundary.

mod common;
use common::*;
use hexveil_core::{ActionError, Engine, Ruleset, Scenario, Side};
use hexveil_minis::{Action, MineKind, Minis, MinisEvent, MinisScenario};
use proptest::prelude::*;
use std::sync::Arc;

fn inf() -> String {
    fig("inf", "A", "infantry", "10.5,13", "")
}

#[test]
fn refused_path_off_the_table_names_the_point_and_changes_nothing() {
    let mut g = Game::new(scenario_with(SAVES, &inf()));
    let before = g.engine.state().clone();
    let e = g
        .mv(Side::A, "inf", &["10.5,10", "-0.5,10"], &[])
        .unwrap_err();
    assert!(e.to_string().contains("-0.5,10"), "{e}");
    assert_eq!(g.engine.state(), &before);
    assert!(!g.engine.is_pending());
}

#[test]
fn refused_path_over_the_allowance_changes_nothing() {
    let mut g = Game::new(scenario_with(SAVES, &inf()));
    let before = g.engine.state().clone();
    // 12 in allowance: 12.1 in refused, exactly 12 (a 3-4-5 diagonal x 2.4) fine.
    let e = g.mv(Side::A, "inf", &["10.5,0.9"], &[]).unwrap_err();
    assert!(e.to_string().contains("allowance"), "{e}");
    assert_eq!(g.engine.state(), &before);
    assert!(g.mv(Side::A, "inf", &["17.7,3.4"], &[99]).is_ok());
}

#[test]
fn refused_when_not_the_actors_turn_or_figure_already_moved() {
    let figs = format!("{}{}", inf(), fig("sov", "B", "infantry", "5.5,30", ""));
    let mut g = Game::new(scenario_with(SAVES, &figs));
    assert!(g.mv(Side::B, "sov", &["5.5,31"], &[]).is_err());
    assert!(g.mv(Side::A, "sov", &["5.5,31"], &[]).is_err());
    g.mv(Side::A, "inf", &["10.5,12"], &[]).unwrap();
    let before = g.engine.state().clone();
    assert!(g.mv(Side::A, "inf", &["10.5,11"], &[]).is_err());
    assert_eq!(g.engine.state(), &before);
}

#[test]
fn refused_path_longer_than_the_table_through_possible_mines_r12() {
    // 13 in through B's area (y 14..24) on public data: nothing is asked.
    let t =
        "[[figures]]\nname = \"t\"\nside = \"A\"\nkind = \"soft\"\nmove = 18\nat = \"0.5,14.5\"\n";
    let mut g = Game::new(scenario_with(SAVES, t));
    let e = g
        .mv(Side::A, "t", &["0.5,23.5", "4.5,23.5"], &[])
        .unwrap_err();
    let s = e.to_string();
    assert!(
        s.contains("R12") && s.contains("minis_mine_detonation.csv"),
        "{s}"
    );
}

#[test]
fn refused_density_the_table_lacks_at_setup_and_at_laying_r12() {
    let sc = MinisScenario::from_toml(&ex("scenario.toml")).unwrap();
    for d in [10, 11, 12] {
        let e = sc
            .public_setup(
                Side::B,
                &format!("[[open]]\ncells = [\"c1x15\"]\nap = {d}\n"),
            )
            .unwrap_err();
        assert!(
            e.contains("R12") && e.contains("minis_mine_detonation.csv"),
            "{e}"
        );
    }
    // A combined A-P + A-T density of 10 in one cell (vehicles roll vs it).
    let b = public_setup(&sc, Side::B, "");
    let e = sc
        .sealed_contents(&b, "[[hidden]]\ncells = [\"c1x15\"]\nap = 5\nat = 5\n")
        .unwrap_err();
    assert!(
        e.contains("combined density 10") && e.contains("R12"),
        "{e}"
    );
    // Laying a tenth A-P mine in a cell.
    let text = "[[open]]\ncells = [\"c1x15\"]\nap = 9\n";
    let b = public_setup(&sc, Side::B, text);
    let s2 = scenario_with(SAVES, &fig("sap", "B", "infantry", "1.5,15.5", ""));
    let b2 = public_setup(&s2, Side::B, text);
    let _ = b;
    let mut g = Game::with_setups(s2, empty(Side::A), b2);
    g.end_turn(Side::A);
    let before = g.engine.state().clone();
    let e = g
        .play(
            Side::B,
            Action::Lay {
                figure: "sap".into(),
                cell: c("c1x15"),
                kind: MineKind::AntiPersonnel,
            },
            &[],
        )
        .unwrap_err();
    assert!(e.to_string().contains("R12"), "{e}");
    assert_eq!(g.engine.state(), &before);
}

#[test]
fn refused_cell_outside_the_sides_mine_area() {
    let sc = MinisScenario::from_toml(&ex("scenario.toml")).unwrap();
    let b = public_setup(&sc, Side::B, "");
    let e = sc
        .sealed_contents(&b, "[[hidden]]\ncells = [\"c1x1\"]\nap = 1\n")
        .unwrap_err();
    assert!(e.contains("outside side B's mine area"), "{e}");
    let e = sc
        .public_setup(Side::A, "[[open]]\ncells = [\"c1x30\"]\nap = 1\n")
        .unwrap_err();
    assert!(e.contains("outside side A's mine area"), "{e}");
}

#[test]
fn refused_budget_overrun() {
    let sc = MinisScenario::from_toml(&ex("scenario.toml")).unwrap();
    let b = public_setup(&sc, Side::B, "");
    let e = sc
        .sealed_contents(&b, "[[hidden]]\nrect = [0, 14, 48, 15]\nat = 1\n")
        .unwrap_err();
    assert!(e.contains("budget is 16"), "{e}");
}

#[test]
fn malformed_action_bytes_are_malformed() {
    let mut g = Game::new(scenario_with(SAVES, &inf()));
    assert!(matches!(
        g.engine.apply(Side::A, &[0xff, 0xff]),
        Err(ActionError::Malformed(_))
    ));
}

#[test]
fn detonating_vehicle_stops_where_it_leaves_the_last_mined_cell_r46() {
    let mut g = Game::new(scenario_with(SAVES, &fig("t", "A", "afv", "20.5,13", "")));
    g.hide(Side::B, &["c20x15"], mines(0, 1, false));
    g.mv(Side::A, "t", &["20.5,19"], &[1, 6]).unwrap();
    assert_eq!(g.pos("t"), p("20.5,16"));
}

#[test]
fn the_last_turn_ends_the_game_and_a_concession_too() {
    let mut g = Game::new(scenario_with(SAVES, &inf()));
    for _ in 0..3 {
        g.end_turn(Side::A);
        g.end_turn(Side::B);
    }
    let o = g.engine.outcome().unwrap();
    assert_eq!(
        (o.winner, o.reason.as_str()),
        (None, "the last turn is over")
    );
    assert!(g.mv(Side::A, "inf", &["10.5,12"], &[]).is_err());
    let mut g = Game::new(scenario_with(SAVES, &inf()));
    g.play(Side::B, Action::Concede, &[]).unwrap();
    assert_eq!(g.engine.outcome().unwrap().winner, Some(Side::A));
}

#[test]
fn the_example_scenario_loads_seals_and_starts() {
    let r = Minis;
    assert_eq!((r.id(), r.version()), ("minis", 2));
    let sc = r.load(&ex("scenario.toml")).unwrap();
    assert!(sc.note_layer().is_none());
    assert!(sc.setup_rolls(Side::A).is_empty());
    assert!(sc.orders(Side::A, &[]).is_ok() && sc.orders(Side::A, &[1]).is_err());
    let a = sc.public_setup(Side::A, &ex("setup-a.toml")).unwrap();
    let b = sc.public_setup(Side::B, &ex("setup-b.toml")).unwrap();
    let layer = sc.sealed_layers()[0];
    assert_eq!(sc.eligible(&*b, layer).len(), 48 * 10);
    // G3, issue 16: the referee asks `is_eligible` and keeps no list; it
    // must agree with the list on every cell of the table and beyond it,
    // and on keys that are not canonical.
    for p in [&a, &b] {
        let list = sc.eligible(&**p, layer);
        let mut found = 0;
        for x in 0..70 {
            for y in 0..70 {
                for key in [format!("c{x}x{y}"), format!("c0{x}x{y}")] {
                    let location = hexveil_core::Location::key_of(&key).unwrap();
                    let listed = list.contains(&location);
                    assert_eq!(sc.is_eligible(&**p, layer, &location), listed, "{key}");
                    found += usize::from(listed);
                }
            }
        }
        assert_eq!(found, list.len());
        let other = hexveil_core::Layer::named("other").unwrap();
        assert!(!sc.is_eligible(&**p, other, &list[0]));
    }
    for (p, f) in [(&a, "sealed-a.toml"), (&b, "sealed-b.toml")] {
        let sealed = sc.sealed_contents(&**p, &ex(f)).unwrap();
        let locs: Vec<_> = sealed[0].1.iter().map(|(l, _)| *l).collect();
        assert_eq!(locs, sc.eligible(&**p, layer));
        let contents: Vec<_> = sealed[0].1.iter().map(|(l, c)| (layer, *l, *c)).collect();
        assert!(sc.layout_problems(&**p, &contents, &[]).is_empty());
        assert!(sealed[0]
            .1
            .iter()
            .all(|(_, c)| sc.check_content(layer, c).is_ok()));
    }
    let e = sc.start([&*a, &*b], &Default::default()).unwrap();
    assert_eq!(e.to_act(), Side::A);
}

fn g3_game(mined: bool) -> Game {
    let mut g = Game::new(scenario_with(
        SAVES,
        &format!("{}{}", inf(), fig("t", "A", "afv", "30.5,13", "")),
    ));
    if mined {
        g.hide(
            Side::B,
            &["c10x14", "c10x15", "c11x15", "c30x15"],
            mines(1, 2, false),
        );
    }
    g
}

#[test]
fn g3_a_field_that_does_not_go_off_looks_like_empty_ground() {
    for (fig, path) in [
        ("inf", vec!["10.5,16", "11.5,16.5"]),
        ("t", vec!["30.5,18"]),
    ] {
        let mut runs = Vec::new();
        for mined in [true, false] {
            let mut g = g3_game(mined);
            runs.push(g.mv(Side::A, fig, &path, &[99]).unwrap());
        }
        assert_eq!(runs[0].requests, runs[1].requests);
        assert_eq!(runs[0].specs, runs[1].specs);
        assert_eq!(runs[0].public(), runs[1].public());
        assert_ne!(
            runs[0].events, runs[1].events,
            "the referee sees the openings"
        );
        assert!(!runs[0].requests.is_empty());
    }
}

#[test]
fn determinism_same_answers_same_events() {
    let run = || {
        let mut g = g3_game(true);
        let r = g.mv(Side::A, "t", &["30.5,18"], &[1, 50, 6]);
        (r, g.engine.state().clone())
    };
    assert_eq!(run(), run());
}

#[test]
fn engine_asks_each_cell_once_in_path_order() {
    let mut g = Game::new(scenario_with(SAVES, &inf()));
    let r = g
        .mv(
            Side::A,
            "inf",
            &["10.5,15.5", "10.5,14.5", "11.5,14.5"],
            &[99],
        )
        .unwrap();
    let keys: Vec<&str> = r.requests.iter().map(|q| q.location.key()).collect();
    assert_eq!(keys, ["c10x14", "c10x15", "c11x14"]);
    assert!(r.rules().contains(&MinisEvent::NoDetonation {
        figure: "inf".into()
    }));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random paths from (10.5,13) and random hidden contents: when the
    /// roll (100) does not set anything off, the requests, dice and public
    /// events equal those over empty ground.
    #[test]
    fn g3_random_paths_and_fields(
        pts in proptest::collection::vec((80i32..130, 120i32..220), 1..3),
        cells in proptest::collection::vec((8u16..13, 14u16..22, 1u8..4, 0u8..4), 0..12),
    ) {
        let path: Vec<String> = pts.iter().map(|(x, y)| hexveil_minis::Point::tenths(*x, *y).to_string()).collect();
        let path: Vec<&str> = path.iter().map(|s| s.as_str()).collect();
        let mut runs = Vec::new();
        for mined in [true, false] {
            let mut g = Game::new(scenario_with(SAVES, &format!("{}{}", inf(), fig("t", "A", "afv", "10.5,13", ""))));
            g.strict_dice = false;
            if mined {
                for (x, y, ap, at) in &cells {
                    g.hidden[1].insert(hexveil_minis::Cell::new(*x, *y), mines(*ap, *at, false));
                }
            }
            // Roll 00 = 100: detonates only where the table reads 100 or a blank; skip those.
            runs.push(g.mv(Side::A, "inf", &path, &[100]));
        }
        match (&runs[0], &runs[1]) {
            (Ok(a), Ok(b)) => {
                let detonated = a.rules().iter().any(|e| matches!(e, MinisEvent::Detonation { .. }));
                if !detonated {
                    prop_assert_eq!(&a.requests, &b.requests);
                    prop_assert_eq!(&a.specs, &b.specs);
                    prop_assert_eq!(a.public(), b.public());
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "one refused, one not: {:?} / {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

/// The figures of the G4 games: two Infantry, an AFV and a truck towing a
/// gun for side A (German, S-mines), an Infantry figure and a KV-I for
/// side B; the two Infantry placed by the public setups.
fn g4_scenario() -> MinisScenario {
    let placed = |name: &str, side: &str| {
        format!(
            "[[figures]]\nname = \"{name}\"\nside = \"{side}\"\nkind = \"infantry\"\nmove = 12\n"
        )
    };
    let figures = [
        placed("a-inf", "A"),
        fig("a-sap", "A", "infantry", "20.5,5.5", ""),
        fig("a-afv", "A", "afv", "30.5,9", ""),
        fig("a-truck", "A", "soft", "38.5,10", "towing = \"pak\""),
        placed("b-inf", "B"),
        fig("b-kv", "B", "afv", "25.5,27", "model = \"KV-I\""),
    ]
    .concat();
    scenario_with(SAVES, &figures)
}

/// What a G4 game did: requests checked, and the events of each kind it
/// ruled (what the folds were checked on).
#[derive(Debug, Default)]
struct G4Played {
    requests: usize,
    kinds: std::collections::BTreeMap<String, usize>,
}

/// One random game's inputs (see [`g4_game`]).
type G4Input = (
    (i32, i32),
    (i32, i32),
    Option<(u16, u16)>,
    Vec<(bool, u16, u16, u8, u8, bool)>,
    Vec<(u8, u8, Vec<(i32, i32)>)>,
    Vec<u8>,
);

fn g4_input() -> impl Strategy<Value = G4Input> {
    (
        (50i32..430, 80i32..115),
        (50i32..430, 250i32..330),
        proptest::option::of((0u16..6, 0u16..3)),
        proptest::collection::vec(
            (
                any::<bool>(),
                0u16..48,
                0u16..6,
                0u8..4,
                0u8..3,
                any::<bool>(),
            ),
            0..80,
        ),
        proptest::collection::vec(
            (
                0u8..9,
                0u8..6,
                proptest::collection::vec((-70i32..70, -70i32..70), 1..3),
            ),
            1..40,
        ),
        proptest::collection::vec(any::<u8>(), 1..50),
    )
}

/// A random game of the miniatures rules, each side's client an observer
/// (`asks::MinisObserver`) fed what it is shown (the public setups, the
/// declared actions, the ruling's events); returns how many requests it
/// checked. After every action: every fact the engine asked of an owner
/// is inside that side's bound for it (G4); when the engine asked at all,
/// it asked exactly the bound, the crossed cells each side may mine, its
/// own figures' side included (seed 004 who triggers, R47, R50, R51):
/// no blanket of the whole mine area; and each side's fold is the
/// engine's state.
fn g4_game(input: &G4Input) -> Result<G4Played, TestCaseError> {
    use hexveil_core::{Observer, PublicSetup as _};
    let (a_pos, b_pos, open, hidden, actions, dice) = input;
    let sc = g4_scenario();
    let pt = |(x, y): (i32, i32)| hexveil_minis::Point::tenths(x, y);
    let a_text = format!("[positions]\na-inf = \"{}\"\n", pt(*a_pos));
    let mut a_text = a_text;
    if let Some((x, y)) = open {
        // Open mines beside side A's sapper, who may clear them (R47).
        let (x, y) = (19 + x % 3, 4 + y % 2);
        a_text.push_str(&format!("[[open]]\ncells = [\"c{x}x{y}\"]\nap = 1\n"));
    }
    let b_text = format!("[positions]\nb-inf = \"{}\"\n", pt(*b_pos));
    let a = public_setup(&sc, Side::A, &a_text);
    let b = public_setup(&sc, Side::B, &b_text);
    let mut g = Game::with_setups(sc.clone(), a.clone(), b.clone());
    for (on_b, x, y, ap, at, s) in hidden {
        let (side, y) = if *on_b {
            (Side::B, 14 + y)
        } else {
            (Side::A, y % 6)
        };
        let m = mines(*ap, *at, *s && side == Side::A);
        if !m.is_empty() {
            g.hidden[usize::from(side.code())].insert(hexveil_minis::Cell::new(*x, y), m);
        }
    }
    let sc = Arc::new(sc);
    let mut observers =
        [Side::A, Side::B].map(|v| hexveil_minis::asks::MinisObserver::new(sc.clone(), v));
    for o in &mut observers {
        o.setup(&a as &dyn hexveil_core::PublicSetup);
        o.setup(&b as &dyn hexveil_core::PublicSetup);
    }
    let _ = a.side();
    let mut next = 0usize;
    let mut played = G4Played::default();
    for (n, (kind, who, deltas)) in actions.iter().enumerate() {
        let st = g.engine.state().clone();
        if st.outcome.is_some() {
            break;
        }
        let i = usize::from(*who) % sc.figures.len();
        let f = &sc.figures[i];
        let pos = st.figures[i].pos;
        let clamp = |x: i32, y: i32| pt((x.clamp(0, 480), y.clamp(0, 360)));
        let (side, action) = match kind {
            0..=4 => {
                // Mostly forward, into the enemy's mined ground.
                let ahead = if f.side == Side::A { 1 } else { -1 };
                let mut at = (pos.x, pos.y);
                let path = deltas
                    .iter()
                    .map(|(dx, dy)| {
                        at = (at.0 + dx / 2, at.1 + ahead * (dy.abs() - 10));
                        clamp(at.0, at.1)
                    })
                    .collect();
                (
                    f.side,
                    Action::Move {
                        figure: f.name.clone(),
                        path,
                    },
                )
            }
            5 => {
                // Side A's sapper clears around its open mines (R47).
                let j = if st.active == Side::A { 1 } else { i };
                let (f, pos) = (&sc.figures[j], st.figures[j].pos);
                let (dx, dy) = deltas[0];
                let to = clamp(pos.x + dx / 8, pos.y + dy / 8);
                (
                    f.side,
                    Action::Clear {
                        figure: f.name.clone(),
                        to,
                    },
                )
            }
            6 | 7 => {
                // A figure of the side to act that is laying goes on (its
                // second turn's Lay completes the mine, R48); each figure
                // lays one kind (S-mines by the German side only) in its
                // own cell.
                let j = (0..sc.figures.len())
                    .find(|j| sc.figures[*j].side == st.active && st.figures[*j].laying.is_some())
                    .unwrap_or(i);
                let (f, pos) = (&sc.figures[j], st.figures[j].pos);
                let cell = hexveil_minis::Cell::new((pos.x / 10) as u16, (pos.y / 10) as u16);
                let kind = match j % 3 {
                    1 if f.side == Side::A => MineKind::SMine,
                    2 => MineKind::AntiTank,
                    _ => MineKind::AntiPersonnel,
                };
                (
                    f.side,
                    Action::Lay {
                        figure: f.name.clone(),
                        cell,
                        kind,
                    },
                )
            }
            _ => (st.active, Action::EndTurn),
        };
        let bytes = hexveil_minis::encode_action(&action);
        let asks: Vec<[hexveil_core::Asks; 2]> = observers
            .iter()
            .map(|o| [Side::A, Side::B].map(|owner| o.asks(side, &bytes, owner)))
            .collect();
        let mut run = Run::default();
        let result = g.play_with(
            side,
            action.clone(),
            &mut |s| {
                let b = dice[next % dice.len()];
                next += 1;
                match s.kind {
                    hexveil_core::DiceKind::Percentile => hexveil_core::Roll::Percentile {
                        tens: b % 10,
                        units: (b / 10) % 10,
                    },
                    _ => hexveil_core::Roll::Dr(1 + b % 6),
                }
            },
            &mut run,
        );
        let ctx = format!("action {n}: side {side} {action:?} -> {result:?}");
        for (v, per_owner) in asks.iter().enumerate() {
            for owner in [Side::A, Side::B] {
                let bound = &per_owner[usize::from(owner.code())];
                let asked: std::collections::BTreeSet<_> = run
                    .requests
                    .iter()
                    .filter(|r| r.owner == owner)
                    .map(|r| (r.layer, r.location))
                    .collect();
                prop_assert!(
                    asked.is_subset(&bound.leaves),
                    "G4: side {}'s bound for {owner} misses {:?}; {}",
                    ["A", "B"][v],
                    asked.difference(&bound.leaves).collect::<Vec<_>>(),
                    ctx
                );
                if !run.requests.is_empty() {
                    prop_assert_eq!(&asked, &bound.leaves, "exact bound, {}", &ctx);
                }
                prop_assert_eq!(bound.notes, 0);
                prop_assert!(!bound.secret_roll);
            }
        }
        played.requests += run.requests.len();
        for e in hexveil_minis::engine::rules_events(&run.events) {
            let kind = match &e {
                MinisEvent::Cleared { open_removed, .. } if !open_removed.is_empty() => {
                    "Cleared open mines".to_string()
                }
                e => format!("{e:?}")
                    .split([' ', '{'])
                    .next()
                    .unwrap_or("")
                    .to_string(),
            };
            *played.kinds.entry(kind).or_default() += 1;
        }
        let events = match result {
            Ok(()) => run.events.clone(),
            Err(_) if run.requests.is_empty() && run.specs.is_empty() => Vec::new(),
            Err(e) => vec![hexveil_core::Event {
                to: hexveil_core::Visibility::Public,
                kind: hexveil_core::EventKind::Void {
                    reason: e.to_string(),
                },
                cite: vec!["R12".into()],
            }],
        };
        if !events.is_empty() {
            for o in &mut observers {
                o.declared(side, &bytes);
                let v = o.viewer();
                for e in events.iter().filter(|e| e.to.shown_to(v)) {
                    o.event(e);
                }
            }
        }
        for o in &observers {
            prop_assert_eq!(
                o.public().engine_state(),
                Some(g.engine.state().clone()),
                "side {}'s fold, after {}",
                o.viewer(),
                &ctx
            );
        }
    }
    Ok(played)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// G4 (issue 24), seed 004 who triggers, R47, R50, R51 over random
    /// games (see [`g4_game`]).
    #[test]
    fn g4_r47_r50_random_games_ask_each_owner_within_its_bound(input in g4_input()) {
        g4_game(&input)?;
    }
}

/// The G4 games check real traffic: over a fixed batch many cells are
/// asked (and each was inside its owner's bound), and the folds follow
/// every kind of change.
#[test]
fn g4_random_games_check_real_requests() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut checked = 0;
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..32 {
        let input = g4_input().new_tree(&mut runner).unwrap().current();
        let played = g4_game(&input).unwrap();
        checked += played.requests;
        for (k, n) in played.kinds {
            *kinds.entry(k).or_default() += n;
        }
    }
    assert!(checked >= 50, "only {checked} requests checked");
    // The folds were checked on every change the rules make (seed 004
    // detonation roll, soft vehicles, blast radius, laying, clearing).
    for kind in [
        "Moved",
        "Detonation",
        "VehicleHit",
        "BlastSave",
        "LayingBegun",
        "MineLaid",
        "Cleared open mines",
        "TurnEnded",
    ] {
        assert!(kinds.contains_key(kind), "no {kind} in {kinds:?}");
    }
}
