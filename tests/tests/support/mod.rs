//! The `hexveil-server` binary as a child process with any flags, for the
//! tests that kill it or measure it (crash, flood). The binary is
//! `HEXVEIL_SERVER_BIN` if set (e.g. a release build:
//! `cargo build --release -p hexveil-server` then
//! `HEXVEIL_SERVER_BIN=$CARGO_TARGET_DIR/release/hexveil-server`), else the
//! one the harness builds ([`hexveil_tests::server_binary`]).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use hexveil_server::tls::Fingerprint;
use hexveil_tests::Endpoint;

/// The server binary these tests run.
pub fn binary() -> PathBuf {
    match std::env::var_os("HEXVEIL_SERVER_BIN") {
        Some(p) => PathBuf::from(p),
        None => hexveil_tests::server_binary(),
    }
}

/// A running server process; SIGKILLed when dropped.
pub struct Proc {
    child: Child,
    /// Where it listens.
    pub endpoint: Endpoint,
}

impl Proc {
    /// Starts the binary on `listen` with `data_dir` and `flags`; returns
    /// once it printed its address.
    pub fn spawn(data_dir: &Path, listen: &str, flags: &[&str]) -> Proc {
        let mut child = Command::new(binary())
            .arg("--listen")
            .arg(listen)
            .arg("--data-dir")
            .arg(data_dir)
            .args(flags)
            .env("RUST_LOG", "error")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn hexveil-server");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut next = |prefix: &str| -> String {
            let line = lines
                .next()
                .expect("the server prints its first lines")
                .expect("readable stdout");
            line.strip_prefix(prefix)
                .unwrap_or_else(|| panic!("expected `{prefix}...`, got `{line}`"))
                .trim()
                .to_string()
        };
        let fingerprint: Fingerprint = next("fingerprint ").parse().expect("a fingerprint");
        let addr: SocketAddr = next("listening ").parse().expect("an address");
        Proc {
            child,
            endpoint: Endpoint { addr, fingerprint },
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory (VmRSS) in KiB, from /proc (Linux).
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// SIGKILL: no shutdown, nothing flushed beyond what is durable.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}
