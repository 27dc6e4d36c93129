//! `hexveil results FILES... --csv|--json`: league data. Each transcript is
//! verified exactly as `hexveil verify` verifies it ([`super::transcript`]),
//! and only a complete, clean one (every audit ran, G5) becomes a row. One
//! refused file fails the whole run: every refused file is named on stderr
//! with why, and nothing at all is written to stdout, so a league never
//! imports half a batch (README.md, "League data: `hexveil results`").

use super::transcript::{CLEAN, UNREADABLE};
use hexveil_protocol::identity::PublicKey;
use hexveil_view::league::{self, Row};
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

/// One verified game as `hexveil results` prints it: the file it was read
/// from, then the fields of [`hexveil_view::league::Row`] (the same the
/// server lists for its finished games).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileRow {
    /// The transcript file, as given.
    pub file: String,
    /// The game's row.
    #[serde(flatten)]
    pub row: Row,
    /// The name side A's player gave itself, signed in its setup (issue 27
    /// item 8; empty if none): a column after the row's, so the row's
    /// columns keep their places.
    pub name_a: String,
    /// Side B's likewise.
    pub name_b: String,
}

/// The columns [`FileRow`] adds after the row's.
const NAME_COLUMNS: [&str; 2] = ["name_a", "name_b"];

/// A file refused, with the exit code that goes with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The file, as given.
    pub file: String,
    /// Why, in words.
    pub why: String,
    /// [`hexveil_view::transcript::exit_code`]'s code for it (1, 2 or 3).
    pub code: u8,
}

/// The row of one transcript file, or why it is refused.
pub fn row_of(path: &Path, trusted: Option<&PublicKey>) -> Result<FileRow, Refused> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Refused {
        file: file.clone(),
        why: format!("cannot read it: {e}"),
        code: UNREADABLE,
    })?;
    match league::row_and_names(&bytes, trusted) {
        Ok((row, names)) => {
            let [name_a, name_b] = names.map(Option::unwrap_or_default);
            Ok(FileRow {
                file,
                row,
                name_a,
                name_b,
            })
        }
        Err(r) => Err(Refused {
            file,
            why: r.why,
            code: r.code,
        }),
    }
}

/// The rows as CSV text, header first (nothing at all for no rows).
pub fn to_csv(rows: &[FileRow]) -> Result<String, String> {
    if rows.is_empty() {
        return Ok(String::new());
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = std::iter::once("file")
        .chain(league::COLUMNS)
        .chain(NAME_COLUMNS);
    w.write_record(header).map_err(|e| e.to_string())?;
    for r in rows {
        let record = std::iter::once(r.file.clone())
            .chain(r.row.values())
            .chain([r.name_a.clone(), r.name_b.clone()]);
        w.write_record(record).map_err(|e| e.to_string())?;
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
