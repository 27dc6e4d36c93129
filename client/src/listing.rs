//! `hexveil list` in words (issue 27 item 8): each open game's scenario,
//! ruleset, sides and who holds them, its creation date and who it waits
//! for. All of it is the server's word (an open game's log is not the
//! client's to read until it joins), so every text is shown through
//! [`visible`]: a server cannot rewrite the terminal with it.

use hexveil_net::wire::{
    date_words, forfeit_words, FinishedGame, FinishedRow, GameSummary, ListedGame, NamedGame,
};
use hexveil_view::names::visible;

/// The lines `hexveil list` prints for `game` at `now_ms` (Unix
/// milliseconds): a head line, one line per side, and the wait.
pub fn listed_lines(named: &NamedGame, now_ms: u64) -> Vec<String> {
    let game = &named.listed;
    let s = &game.summary;
    let what = if game.scenario.is_empty() {
        "a game this client cannot describe".to_string()
    } else {
        format!(
            "{} ({} v{}, {})",
            visible(&game.scenario),
            visible(&game.ruleset),
            game.ruleset_version,
            visible(&game.mode)
        )
    };
    let created = match game.created_ms {
        Some(ms) => format!("created {}", date_words(ms)),
        None => "created at an unknown time".into(),
    };
    let mut lines = vec![format!(
        "{}  {what}, {created}, {} spectator{}",
        hex::encode(s.game_id.0),
        s.spectators,
        if s.spectators == 1 { "" } else { "s" }
    )];
    for (i, side) in ["A", "B"].into_iter().enumerate() {
        lines.push(side_line(game, &named.signed_names[i], s, i, side));
    }
    lines.push(match &game.awaited {
        Some(a) => {
            let mut w = format!("  waiting for {}", visible(&a.what));
            if let Some(at) = a.forfeits_at_ms {
                w.push_str("; ");
                w.push_str(&forfeit_words(at, now_ms));
            }
            w.push_str(" (the server's word)");
            w
        }
        None => "  waiting for nobody, or not said (the server's word; under a spectator \
                 delay the list does not say)"
            .into(),
    });
    lines
}

/// `  side A (German): key 1a2b3c4d5e6f7a8b, "Alice" (league's name),
/// "Al" (the name its key signed), connected`.
/// The line `hexveil list --finished` prints first: every row after it
/// is the server's word (it verified the transcripts it stores; the client
/// checked none of them).
pub const FINISHED_HEADER: &str = "finished games, as the server says it verified their transcripts (the server's word: `hexveil watch --game GAME --out FILE` fetches one, and `hexveil results FILE` or `hexveil verify FILE` checks it)";

/// One finished game as `hexveil list --finished` prints it, under
/// [`FINISHED_HEADER`]: its row's fields (the server's words, each as
/// [`visible`] lets it reach a terminal), or why the server refused its
/// transcript.
pub fn finished_line(g: &FinishedGame) -> String {
    match &g.row {
        FinishedRow::Verified(r) => format!(
            "{}  \"{}\" ({} v{}, {})  {}: {}  {} actions  {}",
            visible(&r.game),
            visible(&r.scenario),
            visible(&r.ruleset),
            r.ruleset_version,
            visible(&r.mode),
            visible(&r.result),
            visible(&r.reason),
            r.actions,
            visible(&r.verdict)
        ),
        FinishedRow::Refused { why } => format!(
            "{}  not a result: {}",
            hex::encode(g.game_id.0),
            visible(why)
        ),
    }
}

fn side_line(
    game: &ListedGame,
    signed: &Option<String>,
    s: &GameSummary,
    i: usize,
    side: &str,
) -> String {
    let name = if game.sides[i].is_empty() {
        String::new()
    } else {
        format!(" ({})", visible(&game.sides[i]))
    };
    let key = match game.keys[i].get(..16) {
        Some(k) => format!("key {}", visible(k)),
        None => "no key".into(),
    };
    let mut roster = match &game.roster_names[i] {
        Some(n) => format!(", \"{}\" (league's name)", visible(n)),
        None => String::new(),
    };
    if let Some(n) = signed {
        roster.push_str(&format!(
            ", \"{}\" (the name its key signed, the server says)",
            visible(n)
        ));
    }
    let seated = if i == 0 {
        s.side_a_seated
    } else {
        s.side_b_seated
    };
    let seat = if seated { "connected" } else { "NOT connected" };
    format!("  side {side}{name}: {key}{roster}, {seat}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexveil_net::wire::{Awaited, GameId};

    fn mine_alley() -> NamedGame {
        NamedGame {
            listed: mine_alley_listed(),
            signed_names: [None, Some("Bob the Sapper".into())],
        }
    }

    fn mine_alley_listed() -> ListedGame {
        ListedGame {
            summary: GameSummary {
                game_id: GameId([0xab; 16]),
                side_a_seated: true,
                side_b_seated: false,
                spectators: 1,
                finished: false,
            },
            scenario: "Mine Alley".into(),
            ruleset: "asl".into(),
            ruleset_version: 3,
            mode: "live".into(),
            sides: ["German".into(), "British".into()],
            keys: ["1a".repeat(32), "2b".repeat(32)],
            roster_names: [Some("Alice".into()), None],
            created_ms: Some(1_795_000_000_000),
            awaited: Some(Awaited {
                side: Some(hexveil_asl::Side::B),
                what: "side B's machine to answer its Daisy Chain opportunity 1".into(),
                forfeits_at_ms: Some(1_795_000_540_000),
            }),
        }
    }

    // Issue 27 items 1 and 8: `hexveil list` names the scenario, the
    // ruleset, the sides and who holds them, the creation date, the
    // connections and the wait with its forfeit time, as the server's word.
    #[test]
    fn issue27_item8_list_says_what_each_open_game_is_and_waits_for() {
        let lines = listed_lines(&mine_alley(), 1_795_000_000_000);
        let text = lines.join("\n");
        println!("{text}");
        assert_eq!(
            text,
            format!(
                "{}  Mine Alley (asl v3, live), created 2026-11-18 11:06 UTC, 1 spectator\n  \
                 side A (German): key 1a1a1a1a1a1a1a1a, \"Alice\" (league's name), connected\n  \
                 side B (British): key 2b2b2b2b2b2b2b2b, \"Bob the Sapper\" (the name its key signed, the server says), NOT connected\n  \
                 waiting for side B's machine to answer its Daisy Chain opportunity 1; \
                 forfeits at 11:15 UTC, in 9 min (the server's word)",
                "ab".repeat(16)
            )
        );
    }

    // G2 (issue 27): the list is the server's word; a server's control
    // characters, escape sequences and bidi overrides do not reach the
    // terminal, and an unknown date or wait is said, not invented.
    #[test]
    fn g2_a_servers_list_cannot_write_to_the_terminal() {
        let mut named = mine_alley();
        named.signed_names[1] = Some("B\u{1b}[31mob".into());
        let g = &mut named.listed;
        g.scenario = "Mine\u{1b}[2J Alley\u{202e}".into();
        g.roster_names[0] = Some("Al\u{7}ice".into());
        g.created_ms = None;
        g.awaited = None;
        let text = listed_lines(&named, 0).join("\n");
        println!("{text}");
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{7}'));
        assert!(
            text.contains("Mine\u{fffd}[2J Alley\u{fffd} (asl v3, live)"),
            "{text}"
        );
        assert!(text.contains("created at an unknown time"), "{text}");
        assert!(text.contains("waiting for nobody, or not said"), "{text}");
    }

    // G5: `list --finished` shows results the server says it verified; the
    // client checked none, so they come under a line that says they are
    // the server's word, and a server's words cannot add lines or rewrite
    // the screen.
    #[test]
    fn g5_finished_games_are_the_servers_word_and_cannot_write_to_the_terminal() {
        let s = |t: &str| t.to_string();
        let row = hexveil_view::league::Row {
            game: "ab".repeat(16),
            scenario: s("Mine Alley"),
            ruleset: s("asl"),
            ruleset_version: 3,
            mode: s("live"),
            side_a: s("German"),
            side_b: s("British"),
            key_a: "1a".repeat(32),
            key_b: "2b".repeat(32),
            winner: s("B"),
            result: s("side B wins"),
            reason: s("side A conceded\nCLEAN: game cd, side A wins\u{1b}[2J"),
            entries: 101,
            actions: 40,
            rulings: 30,
            rolls: 12,
            verdict: s("CLEAN"),
            server_key: "3c".repeat(32),
            head: "4d".repeat(32),
        };
        let verified = FinishedGame {
            game_id: GameId([0xab; 16]),
            row: FinishedRow::Verified(Box::new(row)),
        };
        let refused = FinishedGame {
            game_id: GameId([0xcd; 16]),
            row: FinishedRow::Refused {
                why: s("damaged\nRESULT: side A wins"),
            },
        };
        let text = [verified, refused]
            .iter()
            .map(finished_line)
            .collect::<Vec<_>>()
            .join("\n");
        println!("{FINISHED_HEADER}\n{text}");
        assert!(FINISHED_HEADER.contains("the server's word"));
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(
            text.starts_with(&format!(
                "{}  \"Mine Alley\" (asl v3, live)  side B wins: side A conceded\u{fffd}CLEAN",
                "ab".repeat(16)
            )),
            "{text}"
        );
        assert!(
            text.ends_with(&format!(
                "{}  not a result: damaged\u{fffd}RESULT: side A wins",
                "cd".repeat(16)
            )),
            "{text}"
        );
    }
}
