//! C3 ordnance in a real game: the real server, both players' machines,
//! QUIC on loopback, beacon dice. A German Gun fires HE at British
//! Infantry on the Infantry Target Type, a second fires AP at a British
//! truck on the Vehicle Target Type, with the Vehicle row of the To Hit
//! Table supplied by the scenario (R12, test data, pinned by its SHA-256).
//! Everyone sees the To Hit DR's coloured and white dice; the transcript
//! verifies, names the supplied table and its hash (G5).

use hexveil_asl::c3::ordnance::OrdnanceEvent;
use hexveil_asl::model::unit::{Ammo, UnitId};
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, EventKind, Side};
use hexveil_protocol::encoding::Digest;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_tests::{secrets, start_server, Game, Table, Who, PAD_LEN, SEALED_A, SEALED_B, WAIT};

/// The supplied To Hit table: test data standing in for a league's.
const TO_HIT: &str = "# test data, not the printed chart\n\
target_type,colour,range_band,basic_th\n\
infantry,black,3-6,8\n\
vehicle,black,3-6,8\n";

/// Test data standing in for a league's To Kill table (C7 is not in the
/// seeds, R77): the Guns' AP at any range they reach.
const TO_KILL: &str = "# test data, not the printed TK tables\n\
ammo,calibre_mm,suffix,range_min,range_max,basic_tk\n\
AP,75,,0,20,10\n";

/// The example scenario with two German Guns (and crews) and a British
/// truck, and the supplied To Hit table pinned by its hash.
fn scenario() -> String {
    let pin = Digest::sha256(TO_HIT.as_bytes()).to_string();
    let mut s = hexveil_fixtures::scenario_toml();
    let (head, tail) = s.split_at(s.find("[[units]]").expect("units"));
    let kill_pin = Digest::sha256(TO_KILL.as_bytes()).to_string();
    let tables = format!(
        "[tables.to_hit]\nfile = \"league/to_hit.csv\"\nsha256 = \"{pin}\"\ncsv = \"\"\"\n{TO_HIT}\"\"\"\n\n\
         [tables.to_kill]\nsha256 = \"{kill_pin}\"\ncsv = \"\"\"\n{TO_KILL}\"\"\"\n\n"
    );
    let gun = |name: &str| {
        format!(
            "[[units]]\nname = \"{name}\"\nside = \"A\"\nkind = \"gun\"\nca = \"sse\"\n\
             [units.gun]\ncalibre_mm = 75\ncolour = \"black\"\nhe_fp = 8\nammo = [\"HE\", \"AP\"]\nmax_range = 20\n\n"
        )
    };
    let crew = |name: &str| {
        format!(
            "[[units]]\nname = \"{name}\"\nside = \"A\"\nkind = \"crew\"\nstrength = \"2-2-8\"\n\n"
        )
    };
    s = format!(
        "{head}{tables}{tail}\n{}{}{}{}\
         [[units]]\nname = \"brit-truck\"\nside = \"B\"\nkind = \"vehicle\"\n[units.vehicle]\nprinted_mp = 10\n",
        gun("ger-gun-1"),
        crew("ger-crew-1"),
        gun("ger-gun-2"),
        crew("ger-crew-2"),
    );
    s
}

const SETUP_A: &str = r#"
side = "A"
[positions]
ger-squad-1 = "4E6"
ger-leader = "4E6"
ger-pz = "4E7"
ger-gun-1 = "3E1"
ger-crew-1 = "3E1"
ger-gun-2 = "3D1"
ger-crew-2 = "3D1"
"#;

fn unit(name: &str) -> UnitId {
    let sc = hexveil_asl::model::scenario::Scenario::from_toml(&scenario()).expect("scenario");
    sc.unit_named(name).expect("unit")
}

fn shot(gun: &str, target: &str, tt: hexveil_asl::model::action::TargetType, ammo: Ammo) -> Action {
    Action::OrdnanceFire {
        gun: unit(gun),
        target: target.parse().unwrap(),
        target_type: tt,
        ammo,
        change_ca: None,
        extra_drm: 0,
    }
}

fn ordnance_seen(t: &Table, from: usize, who: Who) -> Vec<OrdnanceEvent> {
    t.asl_seen(from, who, |k| match k {
        EventKind::Ordnance(o) => Some(o),
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_a_gun_fires_at_infantry_and_at_a_vehicle_with_beacon_dice_and_the_game_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let game = Game {
        ruleset: hexveil_fixtures::ruleset(),
        scenario: scenario(),
    };
    let setup_b = format!(
        "{}brit-truck = \"3D4\"\n",
        include_str!("../../examples/setup-b.toml")
    );
    let a = secrets(Side::A, SETUP_A, SEALED_A, 20);
    let b = secrets(Side::B, &setup_b, SEALED_B, 40);
    let mut t = Table::open_for(&ep, &game, [a, b], PAD_LEN, true).await;
    t.end_phase_until(Side::A, Phase::PrepFire).await;
    let before = t.log.len();
    // Gun 1 in 3E1 at brit-squad-1 in 3F4, Infantry Target Type.
    t.act(
        Side::A,
        shot(
            "ger-gun-1",
            "3F4",
            hexveil_asl::model::action::TargetType::Infantry,
            Ammo::He,
        ),
    )
    .await;
    // Gun 2 in 3D1 at the truck in 3D4 (with brit-squad-2), Vehicle Target
    // Type: its To Kill from the supplied table (R77).
    t.act(
        Side::A,
        shot(
            "ger-gun-2",
            "3D4",
            hexveil_asl::model::action::TargetType::Vehicle(unit("brit-truck")),
            Ammo::Ap,
        ),
    )
    .await;
    for who in [Who::A, Who::B, Who::Spectator] {
        assert_eq!(t.rejections(who), Vec::<String>::new(), "{who:?}");
        let seen = ordnance_seen(&t, before, who);
        let shots: Vec<(u8, u8)> = seen
            .iter()
            .filter_map(|o| match o {
                OrdnanceEvent::ToHit {
                    coloured, white, ..
                } => Some((*coloured, *white)),
                _ => None,
            })
            .collect();
        assert_eq!(shots.len(), 2, "{who:?} saw both To Hit DRs: {seen:?}");
        assert!(shots
            .iter()
            .all(|(c, w)| (1..=6).contains(c) && (1..=6).contains(w)));
    }
    t.a.concede().unwrap();
    t.pump(|t| t.over())
        .await
        .unwrap_or_else(|(w, e)| panic!("{w:?}: {e}"));
    let file = t.transcript().await;
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => {
            assert!(s.complete, "{s}");
            let pin = Digest::sha256(TO_HIT.as_bytes());
            let kill_pin = Digest::sha256(TO_KILL.as_bytes());
            assert!(
                s.tables.contains(&("to_hit".to_string(), pin)),
                "{:?}",
                s.tables
            );
            assert!(
                s.tables.contains(&("to_kill".to_string(), kill_pin)),
                "{:?}",
                s.tables
            );
            assert!(s.to_string().contains(&pin.to_string()));
        }
        Verdict::Fault(f) => panic!("fault: {f}"),
    }
    server.shutdown().await;
}

/// R12, G5: a genesis whose supplied table does not hash to its pin is
/// refused: the game cannot start on data other than what was pinned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r12_a_supplied_table_that_does_not_match_its_pin_is_refused_at_creation() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let bad = scenario().replace("vehicle,black,3-6,8", "vehicle,black,3-6,9");
    let mut c = ep.client().await;
    let other = ep.client().await;
    let players = [c.public_key().unwrap(), other.public_key().unwrap()];
    let r = c
        .create_game(&hexveil_net::new_game::NewGame {
            ruleset: "asl".into(),
            ruleset_version: hexveil_asl::ruleset::VERSION,
            scenario_toml: bad,
            players,
            mode: hexveil_protocol::message::Mode::Live,
            pad_len: PAD_LEN,
            answer_timeout_secs: None,
        })
        .await;
    let e = r.expect_err("a mismatched pin is refused").to_string();
    assert!(e.contains("to_hit") && e.contains("pinned"), "{e}");
    server.shutdown().await;
}
