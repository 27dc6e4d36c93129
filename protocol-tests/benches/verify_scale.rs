//! `hexveil verify` on long transcripts against the sum of its signature
//! checks (issue 16: at most 1.2x, linear in the transcript's length).
//! Run with
//!
//! ```sh
//! cargo bench -p hexveil-protocol-tests --bench verify_scale
//! ```
//!
//! (`-- 2000 20000` are the default lengths in actions; give others after
//! `--`, and `--out DIR` to also write each transcript to `DIR` for
//! `hexveil verify FILE`).
//!
//! Each transcript is an honest game played in process by the live session
//! and two protocol players ([`common::long_game`]): side A's tank drives
//! back and forth for its whole Movement Phase, every other phase ends at
//! once, then A concedes and both sides reveal. Without Daisy Chains an
//! action is 2 log entries (the action, its ruling); with side B's Daisy
//! Chain every step of the tank is also a placement opportunity whose note
//! B's machine opens (B28.531), one more entry and one more fact the
//! referee keeps for the rest of the game.
//!
//! For each transcript, in the same run, alternately: the whole offline
//! verification (`hexveil_protocol::verifier::verify` on the file's bytes,
//! which is what `hexveil verify FILE` does after reading the file), and
//! the Ed25519 verifies it must do: the author's signature over each
//! envelope's exact bytes, and the server's receipt of each entry that has
//! one (every player's; the server's own from message version 5 have
//! none, PROTOCOL.md 6), with ring over
//! the same messages and keys. The few signed statements inside entries
//! (each party's pad statements, each side's layer roots: a handful per
//! game, whatever its length) are left out of that floor, which makes the
//! ratio a little pessimistic. Each figure is the fastest of the runs.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use hexveil_protocol::verifier::{verify, Verdict};

/// Transcript lengths, in actions, when none is given.
const DEFAULT_ACTIONS: [u32; 2] = [2_000, 20_000];

/// Runs of each measurement for a transcript of `entries` entries: the
/// fastest counts.
fn runs(entries: usize) -> usize {
    if entries <= 10_000 {
        5
    } else {
        2
    }
}

fn main() {
    let mut lengths = Vec::new();
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            // cargo bench passes `--bench` to every bench target.
            "--bench" => {}
            "--out" => out = Some(args.next().expect("--out DIR").into()),
            n => lengths.push(
                n.replace([',', '_'], "")
                    .parse::<u32>()
                    .unwrap_or_else(|_| panic!("not a number of actions: {n}")),
            ),
        }
    }
    if lengths.is_empty() {
        lengths = DEFAULT_ACTIONS.to_vec();
    }
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir).expect("--out DIR can be made");
    }
    println!(
        "{:>7} {:>6} {:>8} {:>10} {:>10} {:>10} {:>10} {:>7}",
        "actions", "daisy", "entries", "sig checks", "sigs ms", "verify ms", "us/entry", "ratio"
    );
    for &actions in &lengths {
        for daisy in [false, true] {
            measure(actions, daisy, out.as_deref());
        }
    }
}

fn measure(actions: u32, daisy: bool, out: Option<&std::path::Path>) {
    let made = Instant::now();
    let g = common::long_game(actions, daisy);
    let made = made.elapsed();
    let bytes = g.bytes();
    let acts = (0..g.entries.len())
        .filter(|i| g.body(*i).declared_action().is_some())
        .count();
    let summary = match verify(&bytes, &hexveil_fixtures::rulesets()) {
        Verdict::Clean(s) => s,
        Verdict::Fault(f) => panic!("the honest transcript has a fault: {f}"),
    };
    assert!(summary.complete, "the game ended and both sides revealed");
    if let Some(dir) = out {
        let name = format!(
            "{actions}-{}.hexveil",
            if daisy { "daisy" } else { "plain" }
        );
        std::fs::write(dir.join(&name), &bytes).expect("the transcript is written");
    }
    let server = g.ids[2].public_key();
    let n = g.entries.len();
    let (mut sigs, mut whole) = (Duration::MAX, Duration::MAX);
    for _ in 0..runs(n) {
        let t = Instant::now();
        for e in &g.entries {
            e.envelope.verify_signature().unwrap();
            if let Some(receipt) = e.receipt {
                receipt.verify(&server).unwrap();
            }
        }
        sigs = sigs.min(t.elapsed());
        let t = Instant::now();
        black_box(verify(black_box(&bytes), &hexveil_fixtures::rulesets()));
        whole = whole.min(t.elapsed());
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{:>7} {:>6} {:>8} {:>10} {:>10.1} {:>10.1} {:>10.1} {:>6.2}x",
        acts,
        if daisy { "yes" } else { "no" },
        n,
        n + g.entries.iter().filter(|e| e.receipt.is_some()).count(),
        ms(sigs),
        ms(whole),
        whole.as_secs_f64() * 1e6 / n as f64,
        whole.as_secs_f64() / sigs.as_secs_f64(),
    );
    eprintln!(
        "  ({} bytes; made in {:.1} s; {} rulings)",
        bytes.len(),
        made.as_secs_f64(),
        summary.rulings
    );
}
