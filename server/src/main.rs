//! The `hexveil-server` binary.
//!
//! Prints, as its first stdout lines, `fingerprint <hex>` and
//! `listening <addr>` so scripts and end-to-end tests can start it and
//! connect. Logs go to stderr (`RUST_LOG` filters them).

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use hexveil_server::config::{init_logging, Cli};
use hexveil_server::game::HexveilFactory;
use hexveil_server::Server;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let settings = match cli.settings() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hexveil-server: {e}");
            return ExitCode::from(2);
        }
    };
    let timeout_ms = u64::try_from(settings.answer_timeout.as_millis()).unwrap_or(u64::MAX);
    let factory = match HexveilFactory::open(&settings.data_dir, timeout_ms) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("hexveil-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = match Server::start(settings, Arc::new(factory)).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hexveil-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    {
        let mut out = std::io::stdout().lock();
        let printed = writeln!(out, "fingerprint {}", server.fingerprint())
            .and_then(|_| writeln!(out, "listening {}", server.local_addr()))
            .and_then(|_| out.flush());
        if printed.is_err() {
            eprintln!("hexveil-server: cannot write to stdout");
        }
    }
    if let Err(e) = tokio::signal::ctrl_c().await {
        eprintln!("hexveil-server: cannot wait for Ctrl-C: {e}");
    }
    server.shutdown().await;
    ExitCode::SUCCESS
}
