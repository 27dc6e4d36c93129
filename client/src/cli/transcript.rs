//! `hexveil verify FILE` and `hexveil replay FILE`: a game's transcript
//! checked offline (G5), and the whole game told with everything revealed
//! (the reading itself is [`hexveil_view::transcript`]).

use hexveil_protocol::identity::PublicKey;
use hexveil_protocol::transcript::Transcript;
pub use hexveil_view::transcript::*;
use std::path::Path;
use std::process::ExitCode;

/// `hexveil verify [--server-key KEY] [--json] FILE`.
pub fn verify_file(path: &Path, trusted: Option<&str>, json: bool) -> ExitCode {
    let trusted = match trusted.map(|k| k.trim().parse::<PublicKey>()) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => {
            eprintln!(
                "hexveil verify: --server-key must be the server's transcript key, 64 hex digits (the server prints it as `transcript-key`): {e}"
            );
            return ExitCode::from(UNREADABLE);
        }
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hexveil verify: cannot read {}: {e}", path.display());
            return ExitCode::from(UNREADABLE);
        }
    };
    let (verdict, code) = judge_trusting(&bytes, trusted.as_ref());
    let named = named_server_key(&bytes);
    if json {
        println!("{}", verdict_json(&verdict, code, named, trusted.is_some()));
    } else {
        println!("{verdict}");
        match (named, trusted) {
            (Some(k), Some(_)) => println!("server key {k} (trusted: given with --server-key)"),
            (Some(k), None) => println!(
                "server key {k} (named by the transcript itself: pass --server-key to check it is the server you trust)"
            ),
            (None, _) => println!("server key: none (entry 0 is not a readable genesis)"),
        }
    }
    ExitCode::from(code)
}

/// `hexveil replay FILE`: verifies, then prints every entry with
/// everything revealed (referee-only events, openings, rolls, seeds).
pub fn replay_file(path: &Path) -> ExitCode {
    let (transcript, code) = match verified_transcript(path) {
        Ok(t) => t,
        Err(code) => return code,
    };
    for line in replay_lines(&transcript) {
        println!("{line}");
    }
    ExitCode::from(code)
}

/// What `replay` (and `replay --board`) stand on: the file read, its verdict
/// printed, and the transcript parsed with the verdict's exit code; or the
/// exit code to end with when there is nothing to replay (an unreadable
/// file, or damage that stops the parse: both said on the way).
pub fn verified_transcript(path: &Path) -> Result<(Transcript, u8), ExitCode> {
    verified_transcript_telling(path, false)
}

/// [`verified_transcript`], telling the verdict and any damage on stderr
/// when `to_stderr` (stdout carries something else: `replay --svg`).
pub fn verified_transcript_telling(
    path: &Path,
    to_stderr: bool,
) -> Result<(Transcript, u8), ExitCode> {
    let say = |line: String| {
        if to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hexveil replay: cannot read {}: {e}", path.display());
            return Err(ExitCode::from(UNREADABLE));
        }
    };
    let (verdict, code) = judge(&bytes);
    say(format!("verdict: {verdict}"));
    if code == UNREADABLE {
        return Err(ExitCode::from(code));
    }
    match Transcript::parse(&bytes) {
        Ok(t) => Ok((t, code)),
        Err(e) => {
            say(format!("(cannot replay past the damage: {e})"));
            Err(ExitCode::from(code))
        }
    }
}
