//! The `hexveil-server` binary.
//!
//! Prints, as its first stdout lines, `fingerprint <hex>` (the TLS
//! certificate's SHA-256, for pinning), `listening <addr>` and
//! `transcript-key <hex>` (the key that countersigns game logs), then, when
//! the web view is on (`--http ADDR`), `http <addr>`, so scripts and
//! end-to-end tests can start it and connect. Logs go to stderr (`RUST_LOG`
//! filters them; `--log-format json` writes one JSON object a line). Games
//! are the protocol's live session ([`hexveil_server::live_game`]).
//!
//! SIGTERM and SIGINT (Ctrl-C) drain the node (issue 25,
//! [`Server::drain`]): no new connection, every game's write in flight
//! finished, every lease released, the connected clients sent to another
//! node, then exit 0. A second signal during the drain stops at once
//! (exit 1).

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use hexveil_server::config::{init_logging, Cli};
use hexveil_server::live_game::LiveGameFactory;
use hexveil_server::secrets::ServerSecrets;
use hexveil_server::server::DRAIN_WITHIN;
use hexveil_server::Server;
use tokio::signal::unix::{signal, Signal, SignalKind};

/// jemalloc, tuned by [`hexveil_server::allocator::tune`]: glibc's malloc
/// kept the pages of finished games (issue 16; the module says why).
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: hexveil_server::allocator::Jemalloc = hexveil_server::allocator::Jemalloc;

fn main() -> ExitCode {
    // Before the runtime's threads exist, so every arena they get purges
    // the same way.
    #[cfg(not(feature = "system-alloc"))]
    if let Err(e) = hexveil_server::allocator::tune() {
        eprintln!("hexveil-server: {e} (going on with jemalloc's defaults)");
    }
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(serve()),
        Err(e) => {
            eprintln!("hexveil-server: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Waits for SIGTERM or SIGINT; says which.
async fn stop_signal(term: &mut Signal) -> &'static str {
    tokio::select! {
        _ = tokio::signal::ctrl_c() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    }
}

async fn serve() -> ExitCode {
    let cli = Cli::parse();
    // Before anything starts, so that no SIGTERM kills the node outright.
    let mut term = match signal(SignalKind::terminate()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("hexveil-server: cannot handle SIGTERM: {e}");
            return ExitCode::FAILURE;
        }
    };
    let settings = match cli.settings() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hexveil-server: {e}");
            return ExitCode::from(2);
        }
    };
    init_logging(settings.log_format);
    let secrets = match ServerSecrets::load_or_create(&settings.data_dir) {
        Ok((s, _)) => Arc::new(s),
        Err(e) => {
            eprintln!("hexveil-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let transcript_key = secrets.transcript_public_key();
    let factory = Arc::new(LiveGameFactory::new(secrets));
    let server = match Server::start(settings, factory).await {
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
            .and_then(|_| writeln!(out, "transcript-key {transcript_key}"))
            .and_then(|_| match server.http_addr() {
                Some(addr) => writeln!(out, "http {addr}"),
                None => Ok(()),
            })
            .and_then(|_| out.flush());
        if printed.is_err() {
            eprintln!("hexveil-server: cannot write to stdout");
        }
    }
    let why = stop_signal(&mut term).await;
    eprintln!("hexveil-server: {why}: draining (no new connections; each game finishes its write, releases its lease and sends its players to another node)");
    let started = std::time::Instant::now();
    tokio::select! {
        handed = server.drain(DRAIN_WITHIN) => {
            eprintln!(
                "hexveil-server: drained in {:.1} s (games handed over: {handed}); exiting",
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        again = stop_signal(&mut term) => {
            eprintln!("hexveil-server: {again} during the drain: stopping at once (leases run out by themselves)");
            ExitCode::FAILURE
        }
    }
}
