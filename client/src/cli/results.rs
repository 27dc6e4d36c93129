//! `hexveil results FILES... --csv|--json`: league data. Each transcript is
//! verified exactly as `hexveil verify` verifies it ([`super::transcript`]),
//! and only a complete, clean one (every audit ran, G5) becomes a row. One
//! refused file fails the whole run: every refused file is named on stderr
//! with why, and nothing at all is written to stdout, so a league never
//! imports half a batch (README.md, "League data: `hexveil results`").

use super::transcript::{self, CLEAN, FAULT, INCOMPLETE, UNREADABLE};
use hexveil_protocol::identity::PublicKey;
use hexveil_protocol::message::{Body, Mode};
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{Status, Verdict};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// CSV with a header line (RFC 4180 quoting).
    Csv,
    /// One JSON array of objects.
    Json,
}

/// One verified game: one CSV row or JSON object. The transcript records
/// no time and no player names (only keys), so neither is a field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The transcript file, as given.
    pub file: String,
    /// The game id (32 hex digits).
    pub game: String,
    /// The scenario's name.
    pub scenario: String,
    /// The ruleset's id (`asl`, `minis`).
    pub ruleset: String,
    /// The ruleset's version.
    pub ruleset_version: u32,
    /// `live` or `escrow`.
    pub mode: String,
    /// Side A as the scenario names it (`[sides.A] nationality`), empty if
    /// it does not.
    pub side_a: String,
    /// Side B likewise.
    pub side_b: String,
    /// Side A's player key (64 hex digits).
    pub key_a: String,
    /// Side B's player key.
    pub key_b: String,
    /// `A`, `B`, or empty when the end names no winner.
    pub winner: String,
    /// `A wins`, `B wins` or `no winner`.
    pub result: String,
    /// Why the game ended, in the referee's words.
    pub reason: String,
    /// Log entries, genesis included.
    pub entries: u64,
    /// Players' actions (action entries).
    pub actions: u64,
    /// Rulings re-derived by the verifier.
    pub rulings: u64,
    /// Beacon rolls re-derived by the verifier.
    pub rolls: u64,
    /// Always `clean`: only complete, clean transcripts are exported.
    pub verdict: String,
    /// The server's transcript key every receipt was checked against.
    pub server_key: String,
    /// The log head after the last entry (identifies the transcript).
    pub head: String,
}

/// A file refused, with the exit code that goes with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The file, as given.
    pub file: String,
    /// Why, in words.
    pub why: String,
    /// [`transcript::exit_code`]'s code for it (1, 2 or 3).
    pub code: u8,
}

/// The row of one transcript file, or why it is refused.
pub fn row_of(path: &Path, trusted: Option<&PublicKey>) -> Result<Row, Refused> {
    let file = path.display().to_string();
    let refuse = |why: String, code: u8| Refused {
        file: file.clone(),
        why,
        code,
    };
    let bytes =
        std::fs::read(path).map_err(|e| refuse(format!("cannot read it: {e}"), UNREADABLE))?;
    let (verdict, code) = transcript::judge_trusting(&bytes, trusted);
    let summary = match (&verdict, verdict.status()) {
        (Verdict::Clean(s), Status::Clean) => s,
        (_, Status::Incomplete) => {
            return Err(refuse(
                format!("not complete, so not a result: {verdict}"),
                INCOMPLETE,
            ))
        }
        _ if code == UNREADABLE => return Err(refuse(format!("unreadable: {verdict}"), code)),
        _ => return Err(refuse(format!("does not verify: {verdict}"), FAULT)),
    };
    let t =
        Transcript::parse(&bytes).map_err(|e| refuse(format!("unreadable: {e}"), UNREADABLE))?;
    let referee = match transcript::referee_of(&t) {
        Some(Ok((referee, _))) => referee,
        Some(Err(e)) => return Err(refuse(e, FAULT)),
        None => return Err(refuse("no entries".into(), UNREADABLE)),
    };
    let g = referee.genesis();
    let actions = t
        .entries
        .iter()
        .filter(|e| matches!(Body::decode(&e.envelope.envelope().body), Ok(Body::Act(_))))
        .count() as u64;
    let (winner, result, reason) = match &summary.end {
        Some(end) => match end.winner {
            Some(w) => (w.to_string(), format!("{w} wins"), end.reason.clone()),
            None => (String::new(), "no winner".into(), end.reason.clone()),
        },
        // A complete log has ended; kept total rather than trusted.
        None => (String::new(), "not over".into(), String::new()),
    };
    let [side_a, side_b] = side_names(&g.scenario_toml);
    Ok(Row {
        file: file.clone(),
        game: summary.game_id.to_string(),
        scenario: referee.scenario().name().to_string(),
        ruleset: g.ruleset.clone(),
        ruleset_version: g.ruleset_version,
        mode: match g.mode {
            Mode::Live => "live",
            Mode::Escrow => "escrow",
        }
        .into(),
        side_a,
        side_b,
        key_a: g.players[0].to_string(),
        key_b: g.players[1].to_string(),
        winner,
        result,
        reason,
        entries: summary.entries,
        actions,
        rulings: summary.rulings,
        rolls: summary.rolls,
        verdict: "clean".into(),
        server_key: summary.server.to_string(),
        head: summary.head.to_string(),
    })
}

/// The sides as the scenario text names them (`[sides.A] nationality`),
/// empty where it does not.
fn side_names(scenario_toml: &str) -> [String; 2] {
    let v: toml::Value = match toml::from_str(scenario_toml) {
        Ok(v) => v,
        Err(_) => return [String::new(), String::new()],
    };
    ["A", "B"].map(|s| {
        v.get("sides")
            .and_then(|x| x.get(s))
            .and_then(|x| x.get("nationality"))
            .and_then(|x| x.as_str())
            .unwrap_or("")
            .to_string()
    })
}

/// The rows as CSV text, header first.
pub fn to_csv(rows: &[Row]) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(|e| e.to_string())?;
    }
    if rows.is_empty() {
        // serialize writes the header with the first row; none: none.
        return Ok(String::new());
    }
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

/// `hexveil results`: every file verified first; all clean: the rows on
/// stdout, exit 0; any refused: each named on stderr, nothing on stdout,
/// and the exit code of the first refused file (1 fault, 2 unreadable, 3
/// incomplete: the codes of `hexveil verify`).
pub fn main(files: &[std::path::PathBuf], format: Format, trusted: Option<&str>) -> ExitCode {
    let trusted = match trusted.map(|k| k.trim().parse::<PublicKey>()) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => {
            eprintln!(
                "hexveil results: --server-key must be the server's transcript key, 64 hex digits: {e}"
            );
            return ExitCode::from(UNREADABLE);
        }
    };
    let mut rows = Vec::new();
    let mut refused = Vec::new();
    for f in files {
        match row_of(f, trusted.as_ref()) {
            Ok(r) => rows.push(r),
            Err(r) => refused.push(r),
        }
    }
    if let Some(first) = refused.first() {
        for r in &refused {
            eprintln!("hexveil results: {}: refused: {}", r.file, r.why);
        }
        eprintln!(
            "hexveil results: {} of {} files refused; nothing written",
            refused.len(),
            files.len()
        );
        return ExitCode::from(first.code);
    }
    let text = match format {
        Format::Json => match serde_json::to_string_pretty(&rows) {
            Ok(t) => t + "\n",
            Err(e) => return fail(e),
        },
        Format::Csv => match to_csv(&rows) {
            Ok(t) => t,
            Err(e) => return fail(e),
        },
    };
    print!("{text}");
    ExitCode::from(CLEAN)
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("hexveil results: cannot write the output: {e}");
    ExitCode::FAILURE
}
