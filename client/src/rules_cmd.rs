//! `hexveil rules`: the rules oracle on the command line. Reads a rules
//! question as JSON from a file or stdin, prints the rulings as JSON on
//! stdout (docs/RULES-ORACLE.md). The question's `ruleset` picks the oracle
//! (`asl` when absent, `minis`). Supplied data tables its scenario names by
//! `file` are read relative to the question file's directory (stdin: the
//! current directory) and pinned by hash, as for a scenario file
//! ([`hexveil::tables`]). Bad input: a message on stderr and exit code 1.

use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

/// Reads in the tables the question's scenario names by file, and checks
/// or fills in every table's `sha256` (R12). The scenario is JSON or, for
/// the miniatures oracle, TOML text. Input that is not JSON is passed on
/// untouched: the oracle names what is wrong with it.
fn inline_tables(input: String, base_dir: &Path) -> Result<String, String> {
    let Ok(mut q) = serde_json::from_str::<Value>(&input) else {
        return Ok(input);
    };
    let Some(scenario) = q.get_mut("scenario") else {
        return Ok(input);
    };
    match scenario {
        Value::Object(_) => {
            if scenario.get("tables").is_none() {
                return Ok(input);
            }
            hexveil::tables::inline_table_files(scenario, base_dir)
                .map_err(|e| format!("scenario.{e}"))?;
        }
        Value::String(text) => {
            let Ok(mut t) = text.parse::<toml::Table>() else {
                return Ok(input);
            };
            if !t.contains_key("tables") {
                return Ok(input);
            }
            hexveil::tables::inline_table_files_toml(&mut t, base_dir)
                .map_err(|e| format!("scenario.{e}"))?;
            *text = toml::to_string(&t).map_err(|e| format!("scenario: {e}"))?;
        }
        _ => return Ok(input),
    }
    Ok(q.to_string())
}

/// Runs the oracle over the question file, or stdin when none is given.
pub fn run(question: Option<&Path>) -> ExitCode {
    let (input, base_dir) = match question {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => (
                text,
                path.parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."))
                    .to_path_buf(),
            ),
            Err(e) => {
                eprintln!("hexveil rules: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => {
            let mut input = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut input) {
                eprintln!("hexveil rules: cannot read stdin: {e}");
                return ExitCode::from(2);
            }
            (input, Path::new(".").to_path_buf())
        }
    };
    let input = match inline_tables(input, &base_dir) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("hexveil rules: {e}");
            return ExitCode::from(1);
        }
    };
    // The question names its ruleset (`"ruleset": "minis"`); ASL when it
    // names none, as a scenario file does.
    let ruleset = serde_json::from_str::<Value>(&input)
        .ok()
        .and_then(|v| {
            v.get("ruleset")
                .and_then(|r| r.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| hexveil_rulesets::DEFAULT.to_string());
    let answer = match ruleset.as_str() {
        "asl" => hexveil_asl::oracle::run(&input).map_err(|e| e.to_string()),
        "minis" => hexveil_minis::oracle::run(&input).map_err(|e| e.to_string()),
        other => Err(format!(
            "no oracle for ruleset {other:?}: this build knows {}",
            hexveil_rulesets::all().known()
        )),
    };
    match answer {
        Ok(out) => {
            println!("{out}");
            // Data the situation lacks (Aerial AF, R4; a table cell, R12):
            // the rulings are printed, and the exit code says the input was
            // incomplete.
            let missing = serde_json::from_str::<Value>(&out)
                .ok()
                .and_then(|v| v.get("input_errors").cloned())
                .and_then(|v| v.as_array().cloned())
                .unwrap_or_default();
            if missing.is_empty() {
                ExitCode::SUCCESS
            } else {
                for m in &missing {
                    eprintln!("hexveil rules: {}", m.as_str().unwrap_or_default());
                }
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("hexveil rules: {e}");
            ExitCode::from(1)
        }
    }
}
