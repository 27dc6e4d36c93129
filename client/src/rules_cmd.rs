//! `hexveil rules`: the rules oracle on the command line. Reads a rules
//! question as JSON on stdin, prints the rulings as JSON on stdout
//! (docs/RULES-ORACLE.md). Bad input: a message on stderr and exit code 1.

use std::io::Read;
use std::process::ExitCode;

/// Runs the oracle over stdin.
pub fn run() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("hexveil rules: cannot read stdin: {e}");
        return ExitCode::from(2);
    }
    match hexveil_core::oracle::run(&input) {
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
