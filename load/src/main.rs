//! The `hexveil-load` binary: parses the flags, runs the load
//! ([`hexveil_load::run::run`]) and prints the summary (JSON with `--json`,
//! text otherwise) on stdout. Exit code 0 when the run had no error, 1 when
//! any game had one, 2 when the run could not be made.

use std::process::ExitCode;

use clap::Parser;
use hexveil_load::cli::Cli;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let opts = match cli.options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("hexveil-load: {e}");
            return ExitCode::from(2);
        }
    };
    let summary = match hexveil_load::run::run(&opts).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hexveil-load: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.json {
        match serde_json::to_string_pretty(&summary) {
            Ok(j) => println!("{j}"),
            Err(e) => {
                eprintln!("hexveil-load: the summary does not encode as JSON: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        print!("{}", summary.text());
    }
    if summary.errors > 0 {
        eprintln!("hexveil-load: {} errors", summary.errors);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
