//! `hexveil demo --http ADDR` (issue 12): the demo serves the server's web
//! view and keeps it up after the game until Ctrl-C (SIGINT), printing the
//! game's page and replay; the page is there after the end, the finished
//! game is listed by `hexveil list --finished` with the fields of `hexveil
//! results`, then the process stops cleanly on SIGINT.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::*;

/// `GET path` on `addr` over plain HTTP/1.1: the status code and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("the web view listens");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).expect("an answer");
    let answer = String::from_utf8_lossy(&bytes);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn issue12_demo_http_keeps_the_web_view_up_until_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo.hexveil");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexveil"))
        .args(["demo", "--http", "127.0.0.1:0", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("hexveil demo runs");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    let page = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("the demo printed its page: {printed:#?}"))
            .unwrap();
        printed.push(line.clone());
        if let Some(url) = line.trim().strip_prefix("the game's page: ") {
            break url.to_string();
        }
    };
    assert!(
        printed
            .iter()
            .any(|l| l.starts_with("watch it live in a browser: http://")),
        "{printed:#?}"
    );
    assert!(out.exists(), "the transcript is written before the wait");
    let rest = page.strip_prefix("http://").expect("an http URL");
    let (addr, path) = rest.split_at(rest.find('/').unwrap());
    let (status, body) = get(addr, path);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("id=\"board\"") && body.contains("<svg "),
        "{body}"
    );
    let (status, _) = get(addr, &format!("{path}/transcript"));
    assert_eq!(status, 200, "the finished demo's transcript is served");

    // `hexveil list --finished --json`: the row `hexveil results` prints
    // for the transcript the demo wrote (G5: verified by the server).
    let quic = printed
        .iter()
        .find_map(|l| l.strip_prefix("server listening on "))
        .expect("the server's address");
    let (server, fingerprint) = quic
        .split_once(" (QUIC), certificate fingerprint ")
        .unwrap();
    let key = dir.path().join("k.pk8");
    let key = key.to_str().unwrap();
    assert!(hexveil(&["keygen", "--out", key]).status.success());
    let listed = hexveil(&[
        "list",
        "--finished",
        "--json",
        "--server",
        server,
        "--fingerprint",
        fingerprint,
        "--key",
        key,
    ]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&listed)).unwrap();
    let results = hexveil(&["results", "--json", out.to_str().unwrap()]);
    let mut want: serde_json::Value = serde_json::from_str(&stdout(&results)).unwrap();
    want[0].as_object_mut().unwrap().remove("file");
    // Issue 27 item 8: the signed names are read from the transcript by
    // `results`; the server's finished row (its wire layout as published)
    // does not carry them.
    for name in ["name_a", "name_b"] {
        assert_eq!(want[0][name], "", "the demo's bots give no names");
        want[0].as_object_mut().unwrap().remove(name);
    }
    assert_eq!(rows, want);

    // Ctrl-C: the process stops by itself, cleanly.
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}
