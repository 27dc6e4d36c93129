//! A whole game over QUIC between two real clients and the real server:
//! pads, the Secret dr for Dummies (B28.47) and setups answered by the
//! players' machines, a move into a hidden A-P minefield (B28.41) with its
//! openings and beacon rolls, every phase of every Game Turn to the end of
//! the last one, both reveals, and the transcript file the server sends at
//! the end, which the offline verifier finds clean (G5).

use hexveil::driver::GameEvent;
use hexveil_asl::a::morale::MoraleEvent;
use hexveil_asl::turn::Phase;
use hexveil_asl::{Action, EventKind, Side};
use hexveil_protocol::message::Prompt;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_tests::{
    secrets_a, secrets_b, start_server, step_into_the_minefield, Table, Who, PAD_LEN, WAIT,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g5_whole_game_over_quic_to_the_last_turn_verifies_clean() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ep) = start_server(dir.path(), WAIT).await;
    let mut t = Table::open(&ep, secrets_a(), secrets_b(), PAD_LEN, true).await;

    t.end_phase_until(Side::A, Phase::Movement).await;
    let before = t.log.len();
    // B28.41: the squad and leader step into 3E4, where B hid A-P 12.
    t.act(Side::A, step_into_the_minefield()).await;
    let step: Vec<_> = t.log[before..].to_vec();
    // B's machine was asked to open the exit hex, the entry hex and its
    // Daisy Chain opportunity (B28.412, B28.531), and answered by itself.
    let b_prompts: Vec<String> = step
        .iter()
        .filter_map(|(w, e)| match (w, e) {
            (Who::B, GameEvent::Update(u)) => match &u.prompt {
                Prompt::Open(r) | Prompt::OpenAhead { requests: r, .. } => Some(format!(
                    "{:?}",
                    r.iter()
                        .map(|r| hexveil_asl::model::sealed::FactRequest::from_kernel(r).unwrap())
                        .collect::<Vec<_>>()
                )),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // The Task Checks the mines force may roll an Original DR of 11 or 12,
    // which opens B's Booby Trap leaf for the board (B28.9, R1): the dice
    // come from the beacon, so that fourth opening is allowed only when a
    // published DR justifies it.
    let (booby, mines): (Vec<&String>, Vec<&String>) =
        b_prompts.iter().partition(|p| p.contains("BoobyTrap"));
    assert_eq!(mines.len(), 3, "{b_prompts:?}");
    for (want, p) in ["row: 3", "row: 4", "DaisyChain"].iter().zip(&mines) {
        assert!(p.contains(want), "{want} expected in {p}: {b_prompts:?}");
    }
    let high_dr = step.iter().any(|(w, e)| match (w, e) {
        (Who::A, GameEvent::Update(u)) => u.events.iter().any(|e| {
            matches!(&hexveil_fixtures::asl(e).kind, EventKind::Morale(MoraleEvent::TaskCheck { original, .. }) if *original >= 11)
        }),
        _ => false,
    });
    assert!(
        booby.len() <= 1 && (booby.is_empty() || high_dr),
        "a Booby Trap leaf is opened only on an Original TC DR of 11 or 12 (B28.9): {b_prompts:?}"
    );
    // The mover learns that A-P mines are there (B28.41), never an opening.
    let a_saw: String = step
        .iter()
        .filter_map(|(w, e)| match (w, e) {
            (Who::A, GameEvent::Update(u)) => Some(hexveil_tests::events_text(u)),
            _ => None,
        })
        .collect();
    assert!(a_saw.contains("ApPresent"), "{a_saw}");
    assert!(
        !a_saw.contains("FactOpened"),
        "openings are for the referee (G3)"
    );
    // Beacon rounds ran: dice were published to both players.
    assert!(step
        .iter()
        .any(|(w, e)| matches!((w, e), (Who::A, GameEvent::Update(u)) if !u.dice.is_empty())));

    // Every remaining phase of every Game Turn, to the end of the game.
    let mut actions = 0;
    while !t.over() {
        let side = t.ender();
        t.act(side, Action::EndPhase).await;
        actions += 1;
        assert!(actions < 400, "the game never ended: {:?}", t.phase);
    }
    let (turn, _, _) = t.phase.expect("phases were announced");
    assert_eq!(turn, 5, "the game ends after the scenario's last turn");

    // Nothing anyone sent was refused.
    for who in [Who::A, Who::B, Who::Spectator] {
        assert_eq!(t.rejections(who), Vec::<String>::new(), "{who:?}");
    }
    // Both players and the spectator fetch the same transcript, and it
    // verifies clean with both sides revealed and audited (G5).
    let file = t.transcript().await;
    match verify(&file, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => {
            assert!(s.end.is_some(), "{s}");
            // G5: the spectator showed the end its game-over event gives,
            // checked against the public log like a player's.
            assert_eq!(
                t.spectator.as_ref().expect("a spectator watches").end(),
                s.end.as_ref(),
                "{s}"
            );
            assert_eq!(s.audited, vec![Side::A, Side::B], "{s}");
            assert!(s.unaudited.is_empty(), "{s}");
            assert!(s.rolls >= 1 && s.rulings > actions, "{s}");
            // Every receipt a player got is for an entry of the file.
            assert!(s.entries > t.a.receipts().last().unwrap().seq);
        }
        Verdict::Fault(f) => panic!("the honest game's transcript has a fault: {f}"),
    }
    server.shutdown().await;
}
