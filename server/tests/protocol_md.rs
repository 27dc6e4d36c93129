//! The transport test vectors of PROTOCOL.md section 10.6 are the encoder's
//! output (G6: a second client is written from the document, so the
//! document must not drift from the code). Every row of the table is
//! re-encoded here, and every message encoded here must have a row.

use std::path::Path;

use hexveil_net::wire::{
    ClientMessage, ErrorCode, FinishedGame, FinishedRow, GameId, GameOwner, GameSummary, PublicKey,
    Role, ServerMessage, Side,
};

/// The rows of the section 10.6 table: (message label, hex bytes).
fn documented_rows() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../PROTOCOL.md");
    let text = std::fs::read_to_string(&path).expect("PROTOCOL.md at the workspace root");
    let start = text
        .find("### 10.6 Test vectors")
        .expect("PROTOCOL.md has section 10.6");
    let section = &text[start..];
    let end = section[1..].find("\n## ").map_or(section.len(), |i| i + 1);
    section[..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| message"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 2, "row {l:?} has two cells");
            (cells[0].trim().to_string(), expand(cells[1]))
        })
        .collect()
}

/// Expands the cell notation: backticked hex groups, `xx`×N repeats.
fn expand(cell: &str) -> String {
    let mut out = String::new();
    let mut rest = cell.trim();
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let close = after.find('`').expect("closing backtick");
        let group = &after[..close];
        rest = &after[close + 1..];
        match rest.strip_prefix('×') {
            Some(tail) => {
                let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
                rest = &tail[digits.len()..];
                out.push_str(&group.repeat(digits.parse().expect("repeat count")));
            }
            None => out.push_str(group),
        }
    }
    out
}

fn client(label: &str) -> Option<ClientMessage> {
    Some(match label {
        "Hello{1}" => ClientMessage::Hello {
            protocol_version: 1,
        },
        "Login{11×32, 22×64}" => ClientMessage::Login {
            public_key: PublicKey([0x11; 32]),
            signature: vec![0x22; 64],
        },
        "Ping{300}" => ClientMessage::Ping { nonce: 300 },
        "CreateGame{\"ab\"}" => ClientMessage::CreateGame {
            scenario: b"ab".to_vec(),
        },
        "ListGames" => ClientMessage::ListGames,
        // Issue 27 item 8: appended after version 1.
        "ListOpenGames" => ClientMessage::ListOpenGames,
        "ListOpenGamesNamed" => ClientMessage::ListOpenGamesNamed,
        "ListFinished{300}" => ClientMessage::ListFinished { limit: 300 },
        "Join{ab×16, Player(B), 0}" => ClientMessage::Join {
            game_id: GameId([0xab; 16]),
            role: Role::Player(Side::B),
            resume_from: 0,
        },
        "Join{ab×16, Spectator, 300}" => ClientMessage::Join {
            game_id: GameId([0xab; 16]),
            role: Role::Spectator,
            resume_from: 300,
        },
        "Game{00×16, [09], more=false}" => ClientMessage::Game {
            game_id: GameId([0; 16]),
            payload: vec![9],
            more: false,
        },
        // Issue 25: appended after version 1.
        "Locate{04×16}" => ClientMessage::Locate {
            game_id: GameId([4; 16]),
        },
        _ => return None,
    })
}

fn server(label: &str) -> Option<ServerMessage> {
    Some(match label {
        "Challenge{1, 33×32}" => ServerMessage::Challenge {
            protocol_version: 1,
            challenge: [0x33; 32],
        },
        "Error{RateLimited, \"x\"}" => ServerMessage::error(ErrorCode::RateLimited, "x"),
        "Games[{01×16, true, false, 2, false}]" => ServerMessage::Games {
            games: vec![GameSummary {
                game_id: GameId([1; 16]),
                side_a_seated: true,
                side_b_seated: false,
                spectators: 2,
                finished: false,
            }],
        },
        "FinishedGames[{01×16, Refused{\"x\"}}]" => ServerMessage::FinishedGames {
            games: vec![FinishedGame {
                game_id: GameId([1; 16]),
                row: FinishedRow::Refused { why: "x".into() },
            }],
        },
        // Issue 13: appended after version 1.
        "ServedElsewhere{02×16, \"a:1\"}" => ServerMessage::ServedElsewhere {
            game_id: GameId([2; 16]),
            address: "a:1".into(),
        },
        // Issue 25: appended after version 1.
        "Located{05×16, OtherNode{\"n\", \"a:1\", 300}, [\"b:2\"]}" => ServerMessage::Located {
            game_id: GameId([5; 16]),
            owner: GameOwner::OtherNode {
                node: "n".into(),
                address: "a:1".into(),
                lease_left_ms: 300,
            },
            nodes: vec!["b:2".into()],
        },
        _ => return None,
    })
}

#[test]
fn protocol_md_transport_vectors_match_the_encoder_g6() {
    let rows = documented_rows();
    assert_eq!(rows.len(), 18, "section 10.6 lists 18 messages: {rows:?}");
    for (label, doc) in &rows {
        let code = match (client(label), server(label)) {
            (Some(m), None) => hex::encode(m.encode().unwrap()),
            (None, Some(m)) => hex::encode(m.encode().unwrap()),
            _ => panic!("PROTOCOL.md 10.6 documents an unknown message {label:?}"),
        };
        assert_eq!(&code, doc, "PROTOCOL.md 10.6 row {label}");
        // The documented bytes decode back to the message (strict decoder).
        let bytes = hex::decode(doc).unwrap();
        match (client(label), server(label)) {
            (Some(m), _) => assert_eq!(ClientMessage::decode(&bytes).unwrap(), m),
            (_, Some(m)) => assert_eq!(ServerMessage::decode(&bytes).unwrap(), m),
            _ => unreachable!(),
        }
    }
}

#[test]
fn cell_notation_expands() {
    assert_eq!(expand("`05` `ab`×2 `01`"), "05abab01");
    assert_eq!(expand("`02ac02`"), "02ac02");
}
