//! The `hexveil` command-line client.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

// The connection layer; the CLI subcommands that use it are not written yet.
#[allow(dead_code)]
mod net;
mod rules_cmd;

/// hexveil: a referee nobody has to trust.
#[derive(Parser)]
#[command(name = "hexveil", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Rules oracle: reads a situation as JSON on stdin, prints the rulings
    /// as JSON (docs/RULES-ORACLE.md).
    Rules,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Rules => rules_cmd::run(),
    }
}
