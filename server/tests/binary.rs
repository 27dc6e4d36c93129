//! The `hexveil-server` binary as a process: it creates its certificate,
//! prints `fingerprint <hex>`, `listening <addr>` and `transcript-key <hex>`
//! as its first stdout lines, serves logins, and keeps its identity across
//! restarts.

mod common;

use std::process::Stdio;

use common::*;
use hexveil_net::tls::Fingerprint;
use hexveil_net::wire::ServerMessage;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

async fn launch(dir: &std::path::Path) -> (Child, Fingerprint, std::net::SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexveil-server"))
        .arg("--data-dir")
        .arg(dir)
        .args(["--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("binary starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = async || {
        tokio::time::timeout(WAIT, lines.next_line())
            .await
            .expect("server prints within the test bound")
            .unwrap()
            .expect("a line")
    };
    let fp_line = next().await;
    let addr_line = next().await;
    let key_line = next().await;
    let key = key_line
        .strip_prefix("transcript-key ")
        .expect("third line is the transcript key");
    assert_eq!(key.len(), 64, "{key_line}");
    let fp: Fingerprint = fp_line
        .strip_prefix("fingerprint ")
        .expect("first line is the fingerprint")
        .parse()
        .unwrap();
    let addr = addr_line
        .strip_prefix("listening ")
        .expect("second line is the address")
        .parse()
        .unwrap();
    (child, fp, addr)
}

#[tokio::test]
async fn binary_prints_fingerprint_and_address_and_serves() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, fp, addr) = launch(dir.path()).await;
    assert!(dir.path().join("tls-cert.der").exists());
    let cert = std::fs::read(dir.path().join("tls-cert.der")).unwrap();
    assert_eq!(Fingerprint::of(&cert), fp);
    let mut c = RawClient::connect(addr, fp).await;
    assert!(matches!(
        c.login(&new_key()).await,
        ServerMessage::LoginOk { .. }
    ));
    child.kill().await.unwrap();

    // Restart: same identity, so pinned clients still connect.
    let (mut child, fp2, _) = launch(dir.path()).await;
    assert_eq!(fp, fp2);
    child.kill().await.unwrap();
}
