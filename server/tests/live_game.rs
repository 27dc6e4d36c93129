//! A real game (the protocol's live session behind the shell) over QUIC on
//! loopback: two protocol players log in, join their sides, answer every
//! machine prompt, one concedes at its first action prompt, both reveal; the
//! stored transcript verifies clean offline (G5), spectators see only padded
//! messages (G3), and a wrong key cannot take a seat (G6).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use hexveil_core::Side;
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{
    decode_padded, encode, Mode, Prompt, ToClient, ToServer, PAD_BUCKET,
};
use hexveil_protocol::player::{DaisyOrder, Player, Secrets};
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_server::live_game::{LiveGameFactory, NewGame};
use hexveil_server::login::LoginKey;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::wire::{ClientMessage, ErrorCode, GameAssembler, GameId, Role, ServerMessage};
use hexveil_server::Server;

const PAD_LEN: u32 = 256;

fn scenario_toml() -> String {
    // The example scenario, with side A allowed to set up on board 3 too.
    include_str!("../../examples/scenario.toml").replace(
        "setup_area = { boards = [4] }",
        "setup_area = { boards = [3, 4] }",
    )
}

const SETUP_A: &str = r#"
side = "A"
[positions]
ger-squad-1 = "3E3"
ger-leader = "3E3"
ger-pz = "4E6"
"#;

fn secrets(side: Side, public: &str, sealed: &str, fill: u8) -> Secrets {
    Secrets {
        side,
        public_setup_toml: public.to_string(),
        sealed_setup_toml: sealed.to_string(),
        layout_seeds: ["ap", "at", "booby"]
            .iter()
            .enumerate()
            .map(|(i, l)| (l.to_string(), [fill + i as u8; 32]))
            .collect(),
        notes_seed: [fill + 10; 32],
        pad_seed: [fill + 11; 32],
        daisy_orders: vec![DaisyOrder {
            holder: hexveil_core::unit::UnitId(4),
            hex: "3E5".parse().unwrap(),
        }],
    }
}

struct Seat {
    client: RawClient,
    player: Player,
    assembler: GameAssembler,
    conceded: bool,
}

impl Seat {
    /// Handle one server message: answer machine prompts, concede at the
    /// first action prompt of the game.
    async fn on_message(&mut self, game_id: GameId, msg: ServerMessage, concede: &mut bool) {
        let (payload, more) = match msg {
            ServerMessage::Game { payload, more, .. } => (payload, more),
            other => panic!("unexpected {other:?}"),
        };
        let Some((_, whole)) = self.assembler.push(game_id, payload, more).unwrap() else {
            return;
        };
        assert_eq!(whole.len() % PAD_BUCKET, 0, "G3: padded sizes only");
        match decode_padded(&whole).unwrap() {
            ToClient::Update(u) => {
                let answer = self.player.on_update(&u).unwrap();
                let env = match (answer, &u.prompt) {
                    (Some(env), _) => Some(env),
                    (None, Prompt::Act) if !*concede => {
                        *concede = true;
                        self.conceded = true;
                        Some(self.player.concede())
                    }
                    _ => None,
                };
                if let Some(env) = env {
                    self.client
                        .send(&ClientMessage::Game {
                            game_id,
                            payload: encode(&ToServer::Submit(env)),
                            more: false,
                        })
                        .await;
                }
            }
            ToClient::Rejected { reason } => panic!("entry refused: {reason}"),
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_real_game_over_quic_closes_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (server_secrets, _) = ServerSecrets::load_or_create(dir.path()).unwrap();
    let server = Server::start(
        settings(dir.path()),
        Arc::new(LiveGameFactory::new(Arc::new(server_secrets))),
    )
    .await
    .unwrap();
    let (addr, fp) = (server.local_addr(), server.fingerprint());

    let docs = [
        Identity::generate_pkcs8().unwrap(),
        Identity::generate_pkcs8().unwrap(),
    ];
    let logins = docs.each_ref().map(|d| LoginKey::from_pkcs8(d).unwrap());
    let toml = scenario_toml();
    let mut a = RawClient::logged_in(addr, fp, &logins[0]).await;
    a.send(&ClientMessage::CreateGame {
        scenario: NewGame {
            scenario_toml: toml.clone(),
            players: [logins[0].public_key(), logins[1].public_key()],
            mode: Mode::Live,
            pad_len: PAD_LEN,
        }
        .encode(),
    })
    .await;
    let game_id = match a.recv().await {
        ServerMessage::GameCreated { game_id } => game_id,
        other => panic!("expected GameCreated, got {other:?}"),
    };

    // G6: another key cannot take side B's seat.
    let mut intruder = RawClient::logged_in(addr, fp, &new_key()).await;
    intruder
        .send(&ClientMessage::Join {
            game_id,
            role: Role::Player(Side::B),
            resume_from: 0,
        })
        .await;
    let refused = intruder.recv().await;
    assert!(
        matches!(
            &refused,
            ServerMessage::Error {
                code: ErrorCode::Rejected,
                ..
            }
        ),
        "{refused:?}"
    );

    let mut spectator = RawClient::logged_in(addr, fp, &new_key()).await;
    spectator
        .send(&ClientMessage::Join {
            game_id,
            role: Role::Spectator,
            resume_from: 0,
        })
        .await;
    assert!(matches!(
        spectator.recv().await,
        ServerMessage::Joined { .. }
    ));

    let b = RawClient::logged_in(addr, fp, &logins[1]).await;
    let player_a = Player::new(
        Identity::from_pkcs8(&docs[0]).unwrap(),
        game_id,
        &toml,
        PAD_LEN,
        secrets(Side::A, SETUP_A, "side = \"A\"\n", 20),
    )
    .unwrap();
    let player_b = Player::new(
        Identity::from_pkcs8(&docs[1]).unwrap(),
        game_id,
        &toml,
        PAD_LEN,
        secrets(
            Side::B,
            include_str!("../../examples/setup-b.toml"),
            include_str!("../../examples/sealed-b.toml"),
            40,
        ),
    )
    .unwrap();
    let mut seats = [
        Seat {
            client: a,
            player: player_a,
            assembler: GameAssembler::default(),
            conceded: false,
        },
        Seat {
            client: b,
            player: player_b,
            assembler: GameAssembler::default(),
            conceded: false,
        },
    ];
    for (seat, side) in seats.iter_mut().zip([Side::A, Side::B]) {
        seat.client
            .send(&ClientMessage::Join {
                game_id,
                role: Role::Player(side),
                resume_from: 0,
            })
            .await;
        match seat.client.recv().await {
            ServerMessage::Joined { .. } => {}
            other => panic!("expected Joined, got {other:?}"),
        }
    }

    // Drive both players until the game's transcript is stored.
    let mut conceded = false;
    let mut spectator_messages = 0;
    let transcript = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let [sa, sb] = &mut seats;
            tokio::select! {
                m = sa.client.try_recv() => sa.on_message(game_id, m.expect("A's stream open"), &mut conceded).await,
                m = sb.client.try_recv() => sb.on_message(game_id, m.expect("B's stream open"), &mut conceded).await,
                m = spectator.try_recv() => {
                    match m.expect("spectator stream open") {
                        ServerMessage::Game { payload, .. } => {
                            assert_eq!(payload.len() % PAD_BUCKET, 0, "G3: padded sizes only");
                            spectator_messages += 1;
                        }
                        other => panic!("spectator got {other:?}"),
                    }
                }
                _ = tokio::time::sleep(Duration::from_millis(100)) => {
                    if let Some(t) = server.lobby().store().load_transcript(game_id).await.unwrap() {
                        break t;
                    }
                }
            }
        }
    })
    .await
    .expect("the game closes");

    assert!(conceded, "a side reached its first action and conceded");
    assert!(spectator_messages > 0, "spectators see the public view");
    let loser = if seats[0].conceded { Side::A } else { Side::B };
    match verify(&transcript) {
        Verdict::Clean(summary) => {
            let end = summary
                .end
                .as_ref()
                .expect("the transcript has its end record");
            assert_eq!(end.winner, Some(loser.opponent()), "{summary:?}")
        }
        Verdict::Fault(f) => panic!("transcript does not verify: {f:?}"),
    }

    // Anyone can fetch the same transcript over the wire.
    let mut fetched = Vec::new();
    loop {
        intruder
            .send(&ClientMessage::FetchTranscript {
                game_id,
                offset: fetched.len() as u64,
            })
            .await;
        match intruder.recv().await {
            ServerMessage::TranscriptChunk {
                total_len, bytes, ..
            } => {
                fetched.extend_from_slice(&bytes);
                if fetched.len() as u64 == total_len {
                    break;
                }
            }
            other => panic!("expected a chunk, got {other:?}"),
        }
    }
    assert_eq!(fetched, transcript);
    server.shutdown().await;
}
