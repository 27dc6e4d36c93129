//! `hexveil replay FILE --svg STEP`: one board picture of
//! [`hexveil_view::svg`] written out, as SVG or (`--png`) rendered as PNG
//! ([`hexveil_view::png`]).

use hexveil_view::svg::{board_svg, sealed_facts, SvgView};

/// Where `replay --svg` puts its picture.
#[derive(Clone, Copy, Debug)]
pub enum Output<'a> {
    /// SVG on stdout.
    Stdout,
    /// SVG in this file.
    Svg(&'a std::path::Path),
    /// PNG in this file, at this many pixels per SVG pixel.
    Png(&'a std::path::Path, f32),
}

/// `hexveil replay FILE --svg STEP [--view V] [--out FILE | --png FILE
/// [--scale N]]`: the board after log entry STEP as SVG, or rendered as
/// PNG, for the view asked (`all` only for a complete game). Exit codes as
/// `hexveil verify`'s; 2 also for a view the transcript does not allow, an
/// `--out` that names a `.png` file, a scale out of range or a file that
/// cannot be written; nothing is written then.
pub fn replay_svg(
    path: &std::path::Path,
    step: u64,
    view: &str,
    out: Output<'_>,
) -> std::process::ExitCode {
    use super::transcript::{CLEAN, UNREADABLE};
    use std::process::ExitCode;
    if let Output::Svg(file) = out {
        if file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            eprintln!(
                "hexveil replay: --out {} would hold SVG text: use --png {} for a PNG picture",
                file.display(),
                file.display()
            );
            return ExitCode::from(UNREADABLE);
        }
    }
    if let Output::Png(_, scale) = out {
        if !(scale.is_finite() && (0.1..=8.0).contains(&scale)) {
            eprintln!("hexveil replay: --scale must be between 0.1 and 8 (got {scale})");
            return ExitCode::from(UNREADABLE);
        }
    }
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
    let (file, bytes, what) = match out {
        Output::Stdout => {
            print!("{svg}");
            return ExitCode::from(code);
        }
        Output::Svg(file) => (file, svg.into_bytes(), "SVG"),
        Output::Png(file, scale) => match hexveil_view::png::svg_to_png(&svg, scale) {
            Ok(png) => (file, png, "PNG"),
            Err(e) => {
                eprintln!("hexveil replay: cannot render the PNG: {e}");
                return ExitCode::from(UNREADABLE);
            }
        },
    };
    if let Err(e) = std::fs::write(file, bytes) {
        eprintln!("hexveil replay: cannot write {}: {e}", file.display());
        return ExitCode::from(UNREADABLE);
    }
    println!(
        "wrote the board after log entry #{} ({}) to {} ({what})",
        folded.at,
        view.words(),
        file.display()
    );
    ExitCode::from(code)
}
