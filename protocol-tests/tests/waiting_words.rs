//! Issue 27: what the game waits for, in words for players (prompts, the
//! wait line, timeout reasons), not as `side B at at 3E6`.

use hexveil_core::{FactRequest, Layer, Location, Side};
use hexveil_protocol::encoding::Party;
use hexveil_protocol::referee::{Awaiting, WindowAsk};

fn request(layer: &str, location: &str) -> FactRequest {
    FactRequest {
        owner: Side::B,
        layer: Layer::named(layer).unwrap(),
        location: Location::key_of(location).unwrap(),
    }
}

// B28.531 (the Daisy Chain opportunity), B28.5 (A-T mines), G2 (who the
// timeout runs against): each awaited answer in words.
#[test]
fn b28_531_g2_what_the_game_waits_for_in_words() {
    let scenario = hexveil_fixtures::ruleset()
        .load(&hexveil_fixtures::scenario_toml())
        .unwrap();
    let scenario = scenario.as_ref();
    let cases = [
        (
            Awaiting::Openings {
                owner: Side::B,
                requests: vec![request("daisy", "opp1")],
                escrowed: false,
                window: Some(WindowAsk { k: 1, count: 5 }),
            },
            "side B's machine to answer its Daisy Chain opportunity 1, with its dice pad \
             entries for rolls 1 to 5",
        ),
        (
            Awaiting::Openings {
                owner: Side::B,
                requests: vec![
                    request("at", "3E6"),
                    request("ap", "3E6"),
                    request("booby", "board3"),
                ],
                escrowed: true,
                window: None,
            },
            "the server (holding side B's escrow) to answer its A-T mine record for 3E6, \
             A-P minefield record for 3E6 and booby trap record for board 3",
        ),
        (Awaiting::Action { actor: Side::A }, "side A to move"),
        (
            Awaiting::Entry {
                party: Party::B,
                k: 4,
            },
            "side B's machine to release its dice pad entry for roll 4",
        ),
        (
            Awaiting::Setups {
                missing: vec![Side::A, Side::B],
            },
            "sides A and B to send a setup",
        ),
        (
            Awaiting::Reveals {
                missing: vec![Side::B],
            },
            "side B's machine to publish the secrets of the finished game",
        ),
    ];
    for (awaiting, words) in cases {
        let said = awaiting.in_words(scenario);
        println!("waiting for {said}");
        assert_eq!(said, words);
        assert!(!said.contains("at at") && !said.contains("  "), "{said}");
    }
}

// The miniatures name their one layer too.
#[test]
fn issue27_the_miniatures_name_their_minefield_record() {
    let registry = hexveil_rulesets::all();
    let minis = registry.latest("minis").unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/minis/scenario.toml"
    ))
    .unwrap();
    let scenario = minis.load(&text).unwrap();
    let words = scenario.fact_words(&request("mines", "c12x30"));
    println!("{words}");
    assert_eq!(words, "minefield record for c12x30");
}
