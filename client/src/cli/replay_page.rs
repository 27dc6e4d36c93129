//! `hexveil replay FILE --html OUT`: the replay page of
//! [`hexveil_view::replay`] written out.

use hexveil_view::transcript::UNREADABLE;
use std::path::Path;
use std::process::ExitCode;

/// `hexveil replay FILE --html OUT`: verifies the transcript, writes its
/// replay page (one self-contained HTML file: everything revealed for a
/// complete, clean game, the public view otherwise, G3) and prints the
/// verdict. Exit codes as `hexveil verify`'s; 2 also when OUT cannot be
/// written. A file with nothing to replay (unreadable, no entry) writes
/// no page.
pub fn replay_html(path: &Path, out: &Path) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hexveil replay: cannot read {}: {e}", path.display());
            return ExitCode::from(UNREADABLE);
        }
    };
    let replay = hexveil_view::replay::replay(&bytes);
    println!("verdict: {}", replay.verdict);
    for n in &replay.notes {
        println!("({n})");
    }
    if replay.steps.is_empty() {
        eprintln!(
            "hexveil replay: {} has nothing to replay: no page written",
            path.display()
        );
        return ExitCode::from(replay.exit_code.max(UNREADABLE));
    }
    if let Err(e) = std::fs::write(out, replay.html()) {
        eprintln!("hexveil replay: cannot write {}: {e}", out.display());
        return ExitCode::from(UNREADABLE);
    }
    // The page steps by move (issue 27); the log entries are its
    // auditors' mode.
    let moves = replay.steps.last().map_or(0, |s| s.r#move);
    println!(
        "wrote the replay page: moves 0 to {moves} (by log entry: {} entries) ({}) to {}",
        replay.steps.len(),
        replay.view.words(),
        out.display()
    );
    ExitCode::from(replay.exit_code)
}
