//! `hexveil board` (the starting board, offline) and `hexveil replay
//! --board`: the text board of [`hexveil_view::board`] printed.

use hexveil_asl::Side;
use hexveil_view::board::{fold_transcript, side_named, Board, View};
use std::process::ExitCode;

/// `hexveil board --scenario FILE [--setup-a FILE] [--setup-b FILE]`: the
/// starting board, offline. Exit 0, or 2 when a file cannot be read or
/// does not parse.
pub fn board_file(scenario: &std::path::Path, setups: [Option<&std::path::Path>; 2]) -> ExitCode {
    let fail = |e: String| {
        eprintln!("hexveil board: {e}");
        ExitCode::from(2)
    };
    let loaded = match super::play::load_scenario(scenario) {
        Ok(l) => l,
        Err(e) => return fail(e.to_string()),
    };
    let mut board = Board::for_game(loaded.scenario.as_ref());
    for (side, path) in [Side::A, Side::B].into_iter().zip(setups) {
        let Some(path) = path else { continue };
        let text = match super::files::read_text(path) {
            Ok(t) => t,
            Err(e) => return fail(e.to_string()),
        };
        match side_named(&text) {
            Ok(s) if s == side => {}
            Ok(s) => {
                return fail(format!(
                    "{}: a setup of side {s}, given for side {side}",
                    path.display()
                ))
            }
            Err(e) => return fail(format!("{}: {e}", path.display())),
        }
        if let Err(e) = board.setup(&text) {
            return fail(format!("{}: {e}", path.display()));
        }
    }
    print!("{}", board.show(View::Board));
    print!("{}", board.units_apart());
    ExitCode::SUCCESS
}

/// `hexveil replay FILE --board [--step N]`: the board after log entry N
/// (default: the last) of a finished game, everything revealed. Exit codes
/// as `hexveil verify`'s.
pub fn replay_board(path: &std::path::Path, step: Option<u64>) -> ExitCode {
    let (t, code) = match super::transcript::verified_transcript(path) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let folded = match fold_transcript(&t, step, hexveil_view::narrate::Reader::Everything) {
        None => return ExitCode::from(code),
        Some(Ok(f)) => f,
        Some(Err(e)) => {
            println!("{e}");
            return ExitCode::from(code);
        }
    };
    for n in &folded.notes {
        println!("{n}");
    }
    let board = folded.board;
    println!(
        "the board after log entry #{} (everything revealed):",
        folded.at
    );
    print!("{}", board.show(View::Board));
    print!("{}", board.units_apart());
    ExitCode::from(code)
}
