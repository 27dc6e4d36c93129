//! A real game (the protocol's live session behind the shell) over QUIC on
//! loopback: two protocol players log in, join their sides, answer every
//! machine prompt, one concedes at its first action prompt, both reveal; the
//! stored transcript verifies clean offline (G5), spectators see only padded
//! messages (G3), and a wrong key cannot take a seat (G6).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use hexveil_asl::Side;
use hexveil_fixtures::{scenario_toml, secrets_a, secrets_b, PAD_LEN};
use hexveil_net::login::LoginKey;
use hexveil_net::new_game::NewGame;
use hexveil_net::wire::{ClientMessage, ErrorCode, GameAssembler, GameId, Role, ServerMessage};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{
    decode_padded, encode, Mode, Prompt, ToClient, ToServer, PAD_BUCKET,
};
use hexveil_protocol::player::Player;
use hexveil_protocol::verifier::{verify, Verdict};
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::Server;

struct Seat {
    client: RawClient,
    player: Player,
    assembler: GameAssembler,
    /// Concede at the first action prompt (else just note it).
    concede_at_act: bool,
    conceded: bool,
    saw_act: bool,
    /// Seq of the last update seen.
    last_seq: u64,
}

impl Seat {
    fn new(client: RawClient, player: Player) -> Seat {
        Seat {
            client,
            player,
            assembler: GameAssembler::default(),
            concede_at_act: true,
            conceded: false,
            saw_act: false,
            last_seq: 0,
        }
    }

    async fn join(&mut self, game_id: GameId, side: Side, resume_from: u64) {
        self.client
            .send(&ClientMessage::Join {
                game_id,
                role: Role::Player(side),
                resume_from,
            })
            .await;
        match self.client.recv().await {
            ServerMessage::Joined { .. } => {}
            other => panic!("expected Joined, got {other:?}"),
        }
    }

    /// Handle one server message: answer machine prompts; at an action
    /// prompt, concede if allowed and nobody conceded yet.
    async fn on_message(&mut self, game_id: GameId, msg: ServerMessage, conceded: &mut bool) {
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
                self.last_seq = u.seq;
                let answer = self.player.on_update(&u).unwrap();
                let env = match (answer, &u.prompt) {
                    (Some(env), _) => Some(env),
                    (None, Prompt::Act) => {
                        self.saw_act = true;
                        if self.concede_at_act && !*conceded {
                            *conceded = true;
                            self.conceded = true;
                            Some(self.player.concede())
                        } else {
                            None
                        }
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
            ToClient::Rejected(r) => panic!("entry refused: {}", r.reason),
            _ => {}
        }
    }
}

/// When to stop driving the players.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Until {
    /// A side was prompted for an action.
    ActionPrompt,
    /// The game's transcript is stored.
    Transcript,
}

/// Deliver messages to both players (and count a spectator's) until `until`;
/// returns the stored transcript for [`Until::Transcript`].
async fn drive(
    server: &Server,
    game_id: GameId,
    seats: &mut [Seat; 2],
    mut spectator: Option<&mut RawClient>,
    conceded: &mut bool,
    until: Until,
) -> (Option<Vec<u8>>, usize) {
    let mut spectator_messages = 0;
    let result = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let [sa, sb] = &mut *seats;
            let watch = async {
                match spectator.as_deref_mut() {
                    Some(s) => s.try_recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                m = sa.client.try_recv() => sa.on_message(game_id, m.expect("A's stream open"), conceded).await,
                m = sb.client.try_recv() => sb.on_message(game_id, m.expect("B's stream open"), conceded).await,
                m = watch => match m.expect("spectator stream open") {
                    ServerMessage::Game { payload, .. } => {
                        assert_eq!(payload.len() % PAD_BUCKET, 0, "G3: padded sizes only");
                        spectator_messages += 1;
                    }
                    other => panic!("spectator got {other:?}"),
                },
                _ = tokio::time::sleep(Duration::from_millis(100)) => match until {
                    Until::ActionPrompt if seats.iter().any(|s| s.saw_act) => return None,
                    Until::Transcript => {
                        if let Some(t) = server.lobby().store().load_transcript(game_id).await.unwrap() {
                            return Some(t);
                        }
                    }
                    Until::ActionPrompt => {}
                },
            }
        }
    })
    .await
    .expect("the game reaches the expected point");
    (result, spectator_messages)
}

fn players(game_id: GameId, docs: &[Vec<u8>; 2], toml: &str) -> [Player; 2] {
    [
        Player::new(
            Identity::from_pkcs8(&docs[0]).unwrap(),
            game_id,
            hexveil_fixtures::ruleset().as_ref(),
            toml,
            PAD_LEN,
            Mode::Live,
            secrets_a(),
        )
        .unwrap(),
        Player::new(
            Identity::from_pkcs8(&docs[1]).unwrap(),
            game_id,
            hexveil_fixtures::ruleset().as_ref(),
            toml,
            PAD_LEN,
            Mode::Live,
            secrets_b(),
        )
        .unwrap(),
    ]
}

async fn start_live(dir: &std::path::Path) -> Server {
    let (server_secrets, _) = ServerSecrets::load_or_create(dir).unwrap();
    Server::start(
        settings(dir),
        Arc::new(LiveGameFactory::new(Arc::new(server_secrets))),
    )
    .await
    .unwrap()
}

async fn create(client: &mut RawClient, toml: &str, logins: &[LoginKey; 2]) -> GameId {
    client
        .send(&ClientMessage::CreateGame {
            scenario: NewGame {
                ruleset: hexveil_asl::ruleset::ID.into(),
                ruleset_version: hexveil_asl::ruleset::VERSION,
                scenario_toml: toml.to_string(),
                players: [logins[0].public_key(), logins[1].public_key()],
                mode: Mode::Live,
                pad_len: PAD_LEN,
                answer_timeout_secs: None,
            }
            .encode(),
        })
        .await;
    match client.recv().await {
        ServerMessage::GameCreated { game_id } => game_id,
        other => panic!("expected GameCreated, got {other:?}"),
    }
}

fn winner_of(transcript: &[u8]) -> Option<Side> {
    match verify(transcript, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(summary) => {
            summary
                .end
                .as_ref()
                .expect("the transcript has its end record")
                .winner
        }
        Verdict::Fault(f) => panic!("transcript does not verify: {f:?}"),
    }
}

#[tokio::test]
async fn a_real_game_over_quic_closes_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_live(dir.path()).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let docs = [
        Identity::generate_pkcs8().unwrap(),
        Identity::generate_pkcs8().unwrap(),
    ];
    let logins = docs.each_ref().map(|d| LoginKey::from_pkcs8(d).unwrap());
    let toml = scenario_toml();
    let mut a = RawClient::logged_in(addr, fp, &logins[0]).await;
    let game_id = create(&mut a, &toml, &logins).await;

    // G6: another key cannot take side B's seat.
    let mut intruder = RawClient::logged_in(addr, fp, &new_key()).await;
    assert_eq!(
        intruder.join_refusal(game_id, Role::Player(Side::B)).await,
        Some(ErrorCode::Rejected)
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
    let [pa, pb] = players(game_id, &docs, &toml);
    let mut seats = [Seat::new(a, pa), Seat::new(b, pb)];
    seats[0].join(game_id, Side::A, 0).await;
    seats[1].join(game_id, Side::B, 0).await;

    let mut conceded = false;
    let (transcript, spectator_messages) = drive(
        &server,
        game_id,
        &mut seats,
        Some(&mut spectator),
        &mut conceded,
        Until::Transcript,
    )
    .await;
    let transcript = transcript.expect("stored transcript");
    assert!(conceded, "a side reached its first action and conceded");
    assert!(spectator_messages > 0, "spectators see the public view");
    let loser = if seats[0].conceded { Side::A } else { Side::B };
    assert_eq!(winner_of(&transcript), Some(loser.opponent()));

    // Anyone can fetch the same transcript over the wire.
    let mut fetched = Vec::new();
    loop {
        match intruder.fetch_chunk(game_id, fetched.len() as u64).await {
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

// DESIGN 5 / G6: a game in progress survives a server restart: it is rebuilt
// from its durable log through the engine, the players reconnect, resume
// from the last update they saw, and finish; the transcript verifies.
#[tokio::test]
async fn a_game_survives_a_server_restart() {
    let dir = tempfile::tempdir().unwrap();
    let docs = [
        Identity::generate_pkcs8().unwrap(),
        Identity::generate_pkcs8().unwrap(),
    ];
    let logins = docs.each_ref().map(|d| LoginKey::from_pkcs8(d).unwrap());
    let toml = scenario_toml();

    let server = start_live(dir.path()).await;
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    let mut a = RawClient::logged_in(addr, fp, &logins[0]).await;
    let game_id = create(&mut a, &toml, &logins).await;
    let b = RawClient::logged_in(addr, fp, &logins[1]).await;
    let [pa, pb] = players(game_id, &docs, &toml);
    let mut seats = [Seat::new(a, pa), Seat::new(b, pb)];
    for s in seats.iter_mut() {
        s.concede_at_act = false;
    }
    seats[0].join(game_id, Side::A, 0).await;
    seats[1].join(game_id, Side::B, 0).await;
    let mut conceded = false;
    drive(
        &server,
        game_id,
        &mut seats,
        None,
        &mut conceded,
        Until::ActionPrompt,
    )
    .await;
    let entries_before = server
        .lobby()
        .store()
        .load_events(game_id)
        .await
        .unwrap()
        .len();
    assert!(entries_before > 3, "pads and setups are in the log");
    server.shutdown().await;

    let server = start_live(dir.path()).await;
    assert_eq!(server.restored_games(), 1);
    let (addr, fp) = (server.local_addr(), server.fingerprint());
    for (i, side) in [Side::A, Side::B].into_iter().enumerate() {
        let seat = &mut seats[i];
        seat.client = RawClient::logged_in(addr, fp, &logins[i]).await;
        seat.assembler = GameAssembler::default();
        seat.concede_at_act = true;
        // Resume with the last update seen, so the pending prompt comes again.
        let from = seat.last_seq;
        seat.join(game_id, side, from).await;
    }
    let (transcript, _) = drive(
        &server,
        game_id,
        &mut seats,
        None,
        &mut conceded,
        Until::Transcript,
    )
    .await;
    let transcript = transcript.expect("stored transcript");
    let loser = if seats[0].conceded { Side::A } else { Side::B };
    assert_eq!(winner_of(&transcript), Some(loser.opponent()));
    server.shutdown().await;
}
