//! `hexveil rules`: the rules oracle on the command line. Reads a rules
//! question as JSON on stdin, prints the rulings as JSON on stdout
//! (docs/RULES-ORACLE.md). The question's `ruleset` picks the oracle (`asl`
//! when absent, `minis`). Bad input: a message on stderr and exit code 1.

use std::io::Read;
use std::process::ExitCode;

/// Runs the oracle over stdin.
pub fn run() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("hexveil rules: cannot read stdin: {e}");
        return ExitCode::from(2);
    }
    // The question names its ruleset (`"ruleset": "minis"`); ASL when it
    // names none, as a scenario file does.
    let ruleset = serde_json::from_str::<serde_json::Value>(&input)
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
            let missing = serde_json::from_str::<serde_json::Value>(&out)
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
