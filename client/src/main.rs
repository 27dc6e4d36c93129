//! The `hexveil` command-line client (docs/PLAYING.md, README.md).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

// Parts of `cli` serve the network subcommands, wired up next.
#[allow(dead_code)]
mod cli;
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
    /// Make a new player key (Ed25519, PKCS#8) in FILE; never overwrites.
    Keygen {
        /// Where to write the key.
        #[arg(long)]
        out: PathBuf,
    },
    /// Print the public key of a key file (hex).
    Whoami {
        /// The key file.
        #[arg(long)]
        key: PathBuf,
    },
    /// Check a transcript file offline: exit 0 clean, 1 fault, 2 unreadable.
    Verify {
        /// The transcript file.
        file: PathBuf,
    },
    /// Verify a transcript, then print the whole game with everything revealed.
    Replay {
        /// The transcript file.
        file: PathBuf,
    },
    /// Play a short scripted game between two bots and verify its transcript.
    Demo {
        /// Where to write the transcript (default: a temporary file).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Rules oracle: reads a situation as JSON on stdin, prints the rulings
    /// as JSON (docs/RULES-ORACLE.md).
    Rules,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Keygen { out } => match cli::keys::keygen(&out) {
            Ok(id) => {
                println!("wrote {}", out.display());
                println!("public key {}", cli::keys::public_hex(&id));
                ExitCode::SUCCESS
            }
            Err(e) => fail("keygen", e),
        },
        Command::Whoami { key } => match cli::keys::load(&key) {
            Ok((_, id)) => {
                println!("{}", cli::keys::public_hex(&id));
                ExitCode::SUCCESS
            }
            Err(e) => fail("whoami", e),
        },
        Command::Verify { file } => cli::transcript::verify_file(&file),
        Command::Replay { file } => cli::transcript::replay_file(&file),
        Command::Demo { out } => cli::demo::main(out),
        Command::Rules => rules_cmd::run(),
    }
}

fn fail(what: &str, e: impl std::fmt::Display) -> ExitCode {
    eprintln!("hexveil {what}: {e}");
    ExitCode::FAILURE
}
