//! The `hexveil-load` binary: parses the flags, runs the load
//! ([`hexveil_load::run::run`]), the probe ([`hexveil_load::probe::run`])
//! or the soak ([`hexveil_load::soak::run`]) and prints the summary (JSON
//! with `--json`, text otherwise) on stdout. Exit code 0 when the run had
//! no error (and a soak passed), 1 when any game had one, 2 when the run
//! could not be made.

use std::process::ExitCode;

use clap::Parser;
use hexveil_load::cli::{Cli, Mode};

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let mode = match cli.mode() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("hexveil-load: {e}");
            return ExitCode::from(2);
        }
    };
    let outcome =
        match &mode {
            Mode::Load(o) => hexveil_load::run::run(o).await.map(|s| {
                print(cli.json, serde_json::to_string_pretty(&s), s.text()).then_some(s.errors)
            }),
            Mode::Probe(o) => hexveil_load::probe::run(o).await.map(|s| {
                print(cli.json, serde_json::to_string_pretty(&s), s.text()).then_some(s.errors)
            }),
            Mode::Soak(o) => hexveil_load::soak::run(o).await.map(|s| {
                print(cli.json, serde_json::to_string_pretty(&s), s.text())
                    .then_some(if s.passed() { 0 } else { s.errors.max(1) })
            }),
        };
    match outcome {
        Err(e) => {
            eprintln!("hexveil-load: {e}");
            ExitCode::from(2)
        }
        Ok(None) => ExitCode::from(2),
        Ok(Some(0)) => ExitCode::SUCCESS,
        Ok(Some(errors)) => {
            eprintln!("hexveil-load: {errors} errors");
            ExitCode::FAILURE
        }
    }
}

/// Prints a summary as JSON (`encoded`) or text; false when it did not
/// encode.
fn print(json: bool, encoded: serde_json::Result<String>, text: String) -> bool {
    if json {
        match encoded {
            Ok(j) => println!("{j}"),
            Err(e) => {
                eprintln!("hexveil-load: the summary does not encode as JSON: {e}");
                return false;
            }
        }
    } else {
        print!("{text}");
    }
    true
}
