//! `hexveil replay FILE --svg STEP`: one board picture of
//! [`hexveil_view::svg`] written out.

use hexveil_view::svg::{board_svg, sealed_facts, SvgView};

/// `hexveil replay FILE --svg STEP [--view V] [--out FILE]`: the board
/// after log entry STEP as SVG, for the view asked (`all` only for a
/// complete game). Exit codes as `hexveil verify`'s; 2 also for a view
/// the transcript does not allow or a file that cannot be written.
pub fn replay_svg(
    path: &std::path::Path,
    step: u64,
    view: &str,
    out: Option<&std::path::Path>,
) -> std::process::ExitCode {
    use super::transcript::{CLEAN, UNREADABLE};
    use std::process::ExitCode;
    let Some(view) = SvgView::parse(view) else {
        eprintln!("hexveil replay: --view must be public, A, B or all (got {view:?})");
        return ExitCode::from(UNREADABLE);
    };
    // The SVG may go to stdout: the verdict goes to stderr.
    let (t, code) = match super::transcript::verified_transcript_telling(path, true) {
        Ok(t) => t,
        Err(code) => return code,
    };
    // G3: everything is revealed only after the end, and only a complete,
    // clean game has ended with its reveals audited.
    if view == SvgView::All && code != CLEAN {
        eprintln!(
            "hexveil replay: --view all draws every secret, so it needs a complete, clean game; \
             draw --view public, A or B"
        );
        return ExitCode::from(UNREADABLE);
    }
    let folded = match hexveil_view::board::fold_transcript(&t, Some(step), view.reader()) {
        None => return ExitCode::from(code),
        Some(Ok(f)) => f,
        Some(Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(code);
        }
    };
    for n in &folded.notes {
        eprintln!("{n}");
    }
    let sealed = sealed_facts(view, &folded.reveals, code == CLEAN);
    let svg = board_svg(&folded.board, view, folded.at, &sealed);
    match out {
        Some(file) => {
            if let Err(e) = std::fs::write(file, svg) {
                eprintln!("hexveil replay: cannot write {}: {e}", file.display());
                return ExitCode::from(UNREADABLE);
            }
            println!(
                "wrote the board after log entry #{} ({}) to {}",
                folded.at,
                view.words(),
                file.display()
            );
        }
        None => print!("{svg}"),
    }
    ExitCode::from(code)
}
