//! Daisy Chains (B28.531, DESIGN 3.2): one sealed note per opportunity,
//! placement legality and secrecy, the immediate roll, one attack only, and
//! the public reveal when a Good Order enemy unit has LOS.

mod scenario_support;
use hexveil_asl::b28::daisy_chain::{
    exposed, fire_phase_opportunity, opportunity, vehicle_entered, DaisyEvent,
};
use hexveil_asl::model::resolve::{Ctx, Res};
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::DaisyNote;
use hexveil_asl::model::state::GameState;
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::turn::Phase;
use hexveil_asl::{Content, EventKind, Hex, Layer, Location, Roll, Side, Visibility};
use scenario_support::*;

struct Setting {
    sc: Scenario,
    st: GameState,
    pz: UnitId,
    squad: UnitId,
    holder: UnitId,
}

/// A's MPh. British squad with the chain in 3F4 (ADJACENT to the road hex
/// 3E5). German units off the map unless a test puts them on it.
fn setting() -> Setting {
    let sc = scenario();
    let mut st = state(&sc);
    st.phase = Phase::Movement;
    st.phasing = Side::A;
    for u in st.units.values_mut() {
        if u.side == Side::A {
            u.hex = None;
        }
    }
    let pz = sc.unit_named("ger-pz").unwrap();
    let squad = sc.unit_named("ger-squad-1").unwrap();
    let holder = sc.unit_named("brit-squad-1").unwrap();
    Setting {
        sc,
        st,
        pz,
        squad,
        holder,
    }
}

impl Setting {
    /// B's sealed note: the British holder places its chain in `at`.
    fn placed(&self, at: &str) -> DaisyNote {
        DaisyNote::Placed {
            holder: self.holder,
            hex: hex(at),
        }
    }

    /// Runs `f` for `actor` over this setting, B's sealed note `n`
    /// answering every Daisy Chain request, dice from `dice`.
    fn run(
        &self,
        actor: Side,
        n: DaisyNote,
        dice: &[Roll],
        f: &dyn Fn(&mut Ctx) -> Res<()>,
    ) -> CtxRun {
        drive_ctx(&self.sc, &self.st, actor, &|_| Content::Daisy(n), dice, f)
    }
}

/// The [`blind_step`] and the one Daisy Chain opportunity it gives B,
/// answered by `n` (no dice).
fn blind_opportunity(s: &mut Setting, n: DaisyNote) -> CtxRun {
    let (moved, into) = blind_step(s);
    s.run(Side::A, n, &[], &move |ctx| opportunity(ctx, &moved, into))
}

fn daisy_events(r: &CtxRun) -> Vec<(Visibility, DaisyEvent)> {
    picked(&r.events, |e| match &e.kind {
        EventKind::DaisyChain(d) => Some((e.to, d.clone())),
        _ => None,
    })
}

/// The broken German squad steps into 3C5: it can see nothing (not Good
/// Order), so any reveal would be a bug.
fn blind_step(s: &mut Setting) -> (Vec<UnitId>, Hex) {
    let u = s.st.units.get_mut(&s.squad).unwrap();
    u.hex = Some(hex("3C5"));
    u.status.broken = true;
    (vec![s.squad], hex("3C5"))
}

#[test]
fn b28_531_no_ssr_no_opportunity() {
    let text = SCENARIO.replace("daisy_chains = true", "daisy_chains = false");
    let sc = Scenario::from_toml(&text).unwrap();
    let mut s = setting();
    s.sc = sc;
    let r = blind_opportunity(&mut s, DaisyNote::Nothing);
    assert!(r.asked.is_empty());
    assert_eq!(r.state.opportunities, 0);
}

#[test]
fn b28_531_every_enemy_step_is_an_opportunity_answered_by_a_note() {
    let mut s = setting();
    let (moved, into) = blind_step(&mut s);
    let r = s.run(Side::A, DaisyNote::Nothing, &[], &move |ctx| {
        opportunity(ctx, &moved, into)?;
        opportunity(ctx, &moved, into)
    });
    assert_eq!(r.state.opportunities, 2);
    assert_eq!(r.asked.len(), 2);
    assert_eq!(r.asked[1].owner, Side::B);
    assert_eq!(r.asked[1].layer, Layer::DaisyChain);
    assert_eq!(r.asked[1].location, Location::Opportunity(2));
    assert!(daisy_events(&r).is_empty());
}

#[test]
fn b28_531_placement_is_secret_and_costs_no_concealment() {
    let mut s = setting();
    s.st.units.get_mut(&s.holder).unwrap().status.concealed = true;
    let placed = s.placed("3E5");
    let r = blind_opportunity(&mut s, placed);
    let ev = daisy_events(&r);
    assert_eq!(ev.len(), 1, "{ev:?}");
    // Secret from the enemy: shown to its owner (B) only, never to A.
    assert_eq!(ev[0].0, Visibility::Side(Side::B));
    assert!(!ev[0].0.shown_to(Side::A));
    assert!(matches!(ev[0].1, DaisyEvent::Placed { factors: 2, .. }));
    assert_eq!(r.state.daisy_chains.len(), 1);
    assert!(
        r.state.units[&s.holder].status.concealed,
        "B28.531: no loss of concealment"
    );
}

#[test]
fn b28_531_placement_must_be_adjacent_to_the_holder() {
    let mut s = setting();
    let placed = s.placed("3E7");
    let r = blind_opportunity(&mut s, placed);
    let ev = daisy_events(&r);
    assert!(
        matches!(&ev[0], (Visibility::Side(Side::B), DaisyEvent::IllegalPlacement { reason, .. }) if reason.contains("ADJACENT")),
        "{ev:?}"
    );
    assert!(r.state.daisy_chains.is_empty());
}

#[test]
fn b28_531_a_chain_is_pulled_across_a_road_only() {
    // 3F3 is ADJACENT to the holder in 3F4 but has no road (3E5 has a dirt
    // road): the note is ignored, its reason told to its owner only (R17).
    let mut s = setting();
    let placed = s.placed("3F3");
    let r = blind_opportunity(&mut s, placed);
    let ev = daisy_events(&r);
    assert!(
        matches!(&ev[0], (Visibility::Side(Side::B), DaisyEvent::IllegalPlacement { reason, .. }) if reason.contains("no road")),
        "{ev:?}"
    );
    assert!(r.state.daisy_chains.is_empty());
}

#[test]
fn b28_531_a_pinned_or_broken_holder_cannot_place() {
    for (pinned, broken) in [(true, false), (false, true)] {
        let mut s = setting();
        let u = s.st.units.get_mut(&s.holder).unwrap();
        u.status.pinned = pinned;
        u.status.broken = broken;
        let placed = s.placed("3E5");
        let r = blind_opportunity(&mut s, placed);
        assert!(
            r.state.daisy_chains.is_empty(),
            "pinned {pinned} broken {broken}"
        );
        assert!(matches!(
            daisy_events(&r)[0].1,
            DaisyEvent::IllegalPlacement { .. }
        ));
    }
}

#[test]
fn b28_531_placed_as_a_vehicle_enters_rolls_at_once_and_attacks_only_once() {
    let mut s = setting();
    s.st.units.get_mut(&s.pz).unwrap().hex = Some(hex("3E5"));
    let pz = s.pz;
    let dice = [d(6), d(6), dr(6, 6)];
    let r = s.run(Side::A, s.placed("3E5"), &dice, &move |ctx| {
        opportunity(ctx, &[pz], hex("3E5"))?;
        // The same vehicle (or another) entering later is not attacked again.
        vehicle_entered(ctx, pz, hex("3E5"))
    });
    assert!(r.result.is_ok(), "{:?}", r.result);
    let attacks: Vec<_> = daisy_events(&r)
        .into_iter()
        .filter(|(_, e)| matches!(e, DaisyEvent::Attacks { .. }))
        .collect();
    assert_eq!(attacks.len(), 1, "{attacks:?}");
    assert!(matches!(
        attacks[0],
        (Visibility::Public, DaisyEvent::Attacks { immediate: true, factors: 2, vehicle, .. }) if vehicle == pz
    ));
    assert!(r.state.daisy_chains[0].attacked);
}

#[test]
fn b28_531_a_placed_chain_attacks_a_vehicle_entering_later() {
    let mut s = setting();
    let (moved, into) = blind_step(&mut s);
    let pz = s.pz;
    let dice = [d(6), d(6), dr(6, 6)];
    let r = s.run(Side::A, s.placed("3E5"), &dice, &move |ctx| {
        opportunity(ctx, &moved, into)?;
        vehicle_entered(ctx, pz, hex("3E5"))
    });
    assert!(daisy_events(&r)
        .iter()
        .any(|(to, e)| *to == Visibility::Public
            && matches!(
                e,
                DaisyEvent::Attacks {
                    immediate: false,
                    ..
                }
            )));
}

#[test]
fn b28_531_revealed_when_a_good_order_enemy_has_los() {
    let mut s = setting();
    // A Good Order German squad steps into 3D5, ADJACENT to 3E5 over open ground.
    s.st.units.get_mut(&s.squad).unwrap().hex = Some(hex("3D5"));
    let squad = s.squad;
    let r = s.run(Side::A, s.placed("3E5"), &[], &move |ctx| {
        opportunity(ctx, &[squad], hex("3D5"))
    });
    let ev = daisy_events(&r);
    assert!(
        ev.iter().any(|(to, e)| *to == Visibility::Public
            && matches!(e, DaisyEvent::Revealed { seen_by: Some(u), .. } if *u == squad)),
        "{ev:?}"
    );
    assert!(r.state.daisy_chains[0].revealed);
    assert!(
        exposed(&r.state, &s.sc.map).is_empty(),
        "nothing left to reveal"
    );
}

#[test]
fn b28_531_exposed_lists_an_unrevealed_chain_in_enemy_los() {
    // The verifier's audit: a chain the referee knows, not yet revealed,
    // while a Good Order enemy unit sees its hex.
    let mut s = setting();
    let placed = s.placed("3E5");
    let r = blind_opportunity(&mut s, placed);
    let mut st = r.state.clone();
    assert!(exposed(&st, &s.sc.map).is_empty());
    let u = st.units.get_mut(&s.squad).unwrap();
    u.status.broken = false;
    u.hex = Some(hex("3D5"));
    let ex = exposed(&st, &s.sc.map);
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0].1, s.squad);
}

#[test]
fn b28_531_owner_may_place_in_his_own_fire_phase() {
    let mut s = setting();
    s.st.phasing = Side::B;
    s.st.phase = Phase::PrepFire;
    let r = s.run(Side::B, s.placed("3E5"), &[], &|ctx| {
        fire_phase_opportunity(ctx, Side::B)
    });
    assert_eq!(r.asked.len(), 1);
    assert_eq!(r.state.daisy_chains.len(), 1);
}

#[test]
fn b28_531_a_chain_is_placed_once() {
    let mut s = setting();
    let (moved, into) = blind_step(&mut s);
    let r = s.run(Side::A, s.placed("3E5"), &[], &move |ctx| {
        opportunity(ctx, &moved, into)?;
        opportunity(ctx, &moved, into)
    });
    assert_eq!(r.state.daisy_chains.len(), 1);
    assert!(daisy_events(&r)
        .iter()
        .any(|(_, e)| matches!(e, DaisyEvent::IllegalPlacement { reason, .. } if reason.contains("already placed"))));
}

#[test]
fn b28_531_engine_move_places_secretly_and_rolls_at_once() {
    // Through the real Engine (via the rules oracle): the AFV enters the
    // road hex 3E5 and B's note places the chain there at that opportunity.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/rules/b28-531-daisy-immediate.json"
    );
    let out = hexveil_asl::oracle::run(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let events = v["rulings"][0]["events"].as_array().unwrap();
    let find = |name: &str| {
        events
            .iter()
            .position(|e| e["kind"]["DaisyChain"].get(name).is_some())
            .unwrap_or_else(|| panic!("no {name} event"))
    };
    let (placed, attacks) = (find("Placed"), find("Attacks"));
    assert_eq!(
        events[placed]["to"], "B",
        "placement is noted secretly: its owner (B) only"
    );
    assert_eq!(events[attacks]["to"], "public");
    assert_eq!(
        events[attacks]["kind"]["DaisyChain"]["Attacks"]["immediate"],
        true
    );
    assert!(placed < attacks);
    // B28.51 roll right after: the dr for the chain's factors.
    let dr = &events[attacks + 1]["kind"]["Dice"]["purpose"];
    assert!(dr.as_str().unwrap().contains("Daisy Chain"), "{dr}");
    // The opponent (A) is told neither the placement nor the opened note.
    let told_a: Vec<u64> = v["rulings"][0]["told"]["A"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert!(!told_a.contains(&(placed as u64)));
}

#[test]
fn b28_531_a_chain_placed_as_an_eliminated_vehicle_entered_waits_for_a_live_one() {
    // The hidden A-T mines of the hex may eliminate the tank before B's
    // opportunity (B28.51); the chain is placed, but it attacks only a
    // vehicle still in play, so it stays unattacked for the next one.
    let mut s = setting();
    let pz = s.pz;
    let tank = s.st.units.get_mut(&pz).unwrap();
    tank.hex = Some(hex("3E5"));
    tank.status.eliminated = true;
    let r = s.run(Side::A, s.placed("3E5"), &[], &move |ctx| {
        opportunity(ctx, &[pz], hex("3E5"))
    });
    assert!(r.result.is_ok(), "{:?}", r.result);
    assert!(
        !daisy_events(&r)
            .iter()
            .any(|(_, e)| matches!(e, DaisyEvent::Attacks { .. })),
        "{:?}",
        daisy_events(&r)
    );
    assert_eq!(r.state.daisy_chains.len(), 1);
    assert!(!r.state.daisy_chains[0].attacked);
}
