//! An arrowed Known minefield line in a real game (B28.46, B28.47 EXC):
//! the real server, both players' machines answering from their sealed
//! setups, QUIC on loopback. Side B's public setup (the example's) lays the
//! line 3H2-3H5; its sealed setup leaves 3H4 unmined. A German squad that
//! starts beside it (3I4) steps into 3H4: everyone is told the hex is
//! unmined and it is marked with a Dummy counter, not cleared.

use hexveil_asl::b28::minefield::{FoundBy, MinefieldEvent};
use hexveil_asl::turn::Phase;
use hexveil_asl::{EventKind, Side};
use hexveil_tests::{
    move_into, secrets, secrets_b, start_server, units, Table, Who, PAD_LEN, SEALED_A, WAIT,
};

/// Side A's public setup: the squad and leader beside the line, in 3I4.
const SETUP_A_BY_THE_LINE: &str = r#"
side = "A"
[positions]
ger-squad-1 = "3I4"
ger-leader = "3I4"
ger-pz = "4E6"
"#;

/// The minefield events `who` was shown after log position `from`.
fn mines_seen(t: &Table, from: usize, who: Who) -> Vec<MinefieldEvent> {
    t.asl_seen(from, who, |k| match k {
        EventKind::Minefield(m) => Some(m),
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b28_47_unmined_hex_of_a_setup_line_is_announced_in_a_real_game() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let a = secrets(Side::A, SETUP_A_BY_THE_LINE, SEALED_A, 20);
    let mut t = Table::open(&ep, a, secrets_b(), PAD_LEN, true).await;
    t.end_phase_until(Side::A, Phase::Movement).await;
    let before = t.log.len();
    t.act(Side::A, move_into(&[units::GER_SQUAD], "3H4")).await;
    let found = MinefieldEvent::DummyFound {
        hex: "3H4".parse().unwrap(),
        owner: Side::B,
        by: FoundBy::Entry,
        marked: true,
    };
    for who in [Who::A, Who::B, Who::Spectator] {
        let seen = mines_seen(&t, before, who);
        assert!(seen.contains(&found), "{who:?} saw {seen:?}");
    }
    for who in [Who::A, Who::B, Who::Spectator] {
        assert_eq!(t.rejections(who), Vec::<String>::new(), "{who:?}");
    }
    server.shutdown().await;
}
