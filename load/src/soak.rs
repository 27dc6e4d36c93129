//! The soak (`hexveil-load --soak N`): N games played to their end, G at a
//! time (`--games`), every finished transcript verified offline as
//! `hexveil verify` does (G5), and the server's resident memory read
//! before (after one login, no game) and after (every game over, every
//! connection closed, the finished-game linger over): a server that keeps
//! anything per finished game shows it here (issue 16: back within 10 %).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hexveil_net::tls::ServerTrust;
use hexveil_protocol::verifier::{self, Status};
use serde::Serialize;

use crate::game::{Bot, LoadGame};
use crate::run::{
    play, rate_limit, reach, rss_with_no_game, Ctx, RunError, Stats, Target, SAMPLES,
};
use crate::server;

/// The longest a soak runs: games still unfinished then are errors.
pub const SOAK_CAP: Duration = Duration::from_secs(3600);

/// How long the server is left alone by default before its memory is read
/// after: the
/// server's finished-game linger (its default; a `--connect` server's own
/// may differ), then a few seconds.
pub const SETTLE_AFTER: Duration =
    Duration::from_secs(hexveil_server::lobby::DEFAULT_FINISHED_LINGER.as_secs() + 3);

/// The most the server's memory may grow over a soak (issue 16).
pub const MEMORY_GROWTH_ALLOWED: f64 = 0.10;

/// What to soak.
#[derive(Clone, Debug)]
pub struct SoakOptions {
    /// Games to play to their end.
    pub games_total: u64,
    /// Games in play at once.
    pub concurrent: usize,
    /// The server.
    pub target: Target,
    /// The load game's moves.
    pub mix: crate::game::Mix,
    /// Whether side B holds its Daisy Chain.
    pub daisy_chains: bool,
    /// Entries per pad epoch.
    pub pad_len: u32,
    /// Frames per second each connection may send.
    pub pace: u32,
    /// Progress lines on stderr.
    pub progress: bool,
    /// How long the server is left alone before its memory is read after.
    pub settle: Duration,
}

/// The soak's summary (`--json`).
#[derive(Clone, Debug, Serialize)]
pub struct SoakSummary {
    /// Games asked for.
    pub games_total: u64,
    /// Games in play at once.
    pub concurrent: usize,
    /// The load game's moves.
    pub mix: String,
    /// Whether side B held a Daisy Chain.
    pub daisy_chains: bool,
    /// Games opened.
    pub games_opened: u64,
    /// Games played to their end (the end, both reveals, the transcript).
    pub games_finished: u64,
    /// Finished transcripts that verified clean and complete (G5).
    pub transcripts_clean: u64,
    /// Finished transcripts that did not (or were missing).
    pub transcripts_not_clean: u64,
    /// The first few verdicts that were not clean.
    pub not_clean_samples: Vec<String>,
    /// Log entries in the clean transcripts.
    pub entries_verified: u64,
    /// Seconds the games took.
    pub secs: f64,
    /// Server resident memory before (one login, no game), KiB.
    pub server_rss_kib_before: Option<u64>,
    /// Server resident memory after (every game over), KiB.
    pub server_rss_kib_after: Option<u64>,
    /// After over before.
    pub server_rss_after_over_before: Option<f64>,
    /// Whether the memory came back within 10 % of before.
    pub memory_back_within_10_percent: Option<bool>,
    /// Driver and server errors (a game given up, one not finished in
    /// time).
    pub errors: u64,
    /// The first few.
    pub error_samples: Vec<String>,
    /// The started server's SQLite WAL after every game, KiB (`None` for
    /// `--connect`): a WAL that never starts over grows with every commit
    /// (issue 30).
    pub server_wal_kib_after: Option<f64>,
    /// `/proc/loadavg` before.
    pub loadavg_start: Option<String>,
    /// `/proc/loadavg` after.
    pub loadavg_end: Option<String>,
}

impl SoakSummary {
    /// Whether the soak passed: every game finished, every transcript
    /// clean, no error.
    pub fn passed(&self) -> bool {
        self.errors == 0
            && self.games_finished == self.games_total
            && self.transcripts_clean == self.games_total
    }

    /// The summary as text.
    pub fn text(&self) -> String {
        let mem = match (self.server_rss_kib_before, self.server_rss_kib_after) {
            (Some(b), Some(a)) => format!(
                "server RSS {b} KiB before, {a} KiB after ({:.3}x): {}",
                a as f64 / b.max(1) as f64,
                if self.memory_back_within_10_percent == Some(true) {
                    "back within 10 %"
                } else {
                    "NOT back within 10 %"
                }
            ),
            _ => "server memory not measured".into(),
        };
        let mem = match self.server_wal_kib_after {
            Some(wal) => format!("{mem}; the WAL {wal:.0} KiB after"),
            None => mem,
        };
        let mut t = format!(
            "soak: {} games ({} at a time, mix {}{}) in {:.1} s: {} opened, {} finished, {} transcripts clean ({} entries), {} not clean; {mem}; errors {}\n",
            self.games_total,
            self.concurrent,
            self.mix,
            if self.daisy_chains { ", Daisy Chains" } else { "" },
            self.secs,
            self.games_opened,
            self.games_finished,
            self.transcripts_clean,
            self.entries_verified,
            self.transcripts_not_clean,
            self.errors
        );
        for e in self.not_clean_samples.iter().chain(&self.error_samples) {
            t.push_str(&format!("  {e}\n"));
        }
        t
    }
}

/// Verdicts of the finished transcripts.
#[derive(Default)]
struct Verdicts {
    clean: u64,
    not_clean: u64,
    samples: Vec<String>,
    entries: u64,
}

/// Runs the soak.
pub async fn run(opts: &SoakOptions) -> Result<SoakSummary, RunError> {
    let loadavg_start = server::loadavg();
    let game = LoadGame::new(opts.mix, opts.daisy_chains)?;
    let pace = rate_limit(opts.pace)?;
    let reached = reach(
        &opts.target,
        opts.concurrent,
        opts.pace,
        opts.pad_len,
        false,
    )?;
    let (addr, fingerprint, pid) = (reached.addr, reached.fingerprint, reached.pid.clone());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let ctx = Arc::new(Ctx {
        addr,
        trust: ServerTrust::Pinned(fingerprint),
        pace,
        game,
        pad_len: opts.pad_len,
        stats: Stats::new(),
        quota: Some(AtomicU64::new(opts.games_total)),
        finished: Some(tx),
        schedule: None,
    });

    // Memory before: as the load's "none".
    let rss_before = rss_with_no_game(addr, &ctx.trust, ctx.pace, pid.as_deref()).await?;

    // The verifier: every transcript as it comes, off the runtime's
    // threads (G5: what `hexveil verify` runs).
    let verifying = tokio::spawn(async move {
        let rulesets = Arc::new(hexveil_rulesets::all());
        let mut v = Verdicts::default();
        while let Some(t) = rx.recv().await {
            let r = rulesets.clone();
            let verdict = tokio::task::spawn_blocking(move || {
                let verdict = verifier::verify(&t, &r);
                let entries = match &verdict {
                    verifier::Verdict::Clean(s) => s.entries,
                    _ => 0,
                };
                (verdict.status(), verdict.to_string(), entries)
            })
            .await;
            match verdict {
                Ok((Status::Clean, _, entries)) => {
                    v.clean += 1;
                    v.entries += entries;
                }
                Ok((_, text, _)) => {
                    v.not_clean += 1;
                    if v.samples.len() < SAMPLES {
                        v.samples.push(text);
                    }
                }
                Err(e) => {
                    v.not_clean += 1;
                    if v.samples.len() < SAMPLES {
                        v.samples.push(format!("the verifier task failed: {e}"));
                    }
                }
            }
        }
        v
    });

    let start = Instant::now();
    let deadline = start + SOAK_CAP;
    let tasks: Vec<_> = (0..opts.concurrent)
        .map(|_| tokio::spawn(play(ctx.clone(), None, deadline)))
        .collect();
    let progress = opts.progress.then(|| {
        let ctx = ctx.clone();
        let total = opts.games_total;
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.tick().await;
            loop {
                tick.tick().await;
                let s = &ctx.stats;
                eprintln!(
                    "[{:>4.0} s] soak: games finished {} of {total} (opened {}) | errors {}",
                    start.elapsed().as_secs_f64(),
                    s.games_finished.load(Ordering::Relaxed),
                    s.games_opened.load(Ordering::Relaxed),
                    s.errors.load(Ordering::Relaxed),
                );
            }
        })
    });
    let mut unfinished: Vec<Bot> = Vec::new();
    for t in tasks {
        match t.await {
            Ok(Some(bot)) => unfinished.push(bot),
            Ok(None) => {}
            Err(e) => {
                ctx.stats.errors.fetch_add(1, Ordering::Relaxed);
                ctx.stats.note_error(format!("a game task failed: {e}"));
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if let Some(p) = progress {
        p.abort();
    }
    for bot in unfinished {
        ctx.stats.errors.fetch_add(1, Ordering::Relaxed);
        ctx.stats.note_error(format!(
            "a game not finished after {} s",
            SOAK_CAP.as_secs()
        ));
        bot.close().await;
    }
    let stats = &ctx.stats;
    let (games_opened, games_finished, errors, error_samples) = (
        stats.games_opened.load(Ordering::Relaxed),
        stats.games_finished.load(Ordering::Relaxed),
        stats.errors.load(Ordering::Relaxed),
        stats.error_samples(),
    );
    // Every sender gone: the verifier ends.
    drop(ctx);
    let verdicts = verifying.await.unwrap_or_else(|e| Verdicts {
        not_clean: 1,
        samples: vec![format!("the verifier failed: {e}")],
        ..Verdicts::default()
    });
    tokio::time::sleep(opts.settle).await;
    let rss_after = pid.as_deref().map(server::rss_kib).transpose()?;
    let ratio = rss_before
        .zip(rss_after)
        .map(|(b, a)| a as f64 / b.max(1) as f64);
    let missing = games_finished.saturating_sub(verdicts.clean + verdicts.not_clean);
    Ok(SoakSummary {
        games_total: opts.games_total,
        concurrent: opts.concurrent,
        mix: opts.mix.to_string(),
        daisy_chains: opts.daisy_chains,
        games_opened,
        games_finished,
        transcripts_clean: verdicts.clean,
        transcripts_not_clean: verdicts.not_clean + missing,
        not_clean_samples: verdicts.samples,
        entries_verified: verdicts.entries,
        secs,
        server_rss_kib_before: rss_before,
        server_rss_kib_after: rss_after,
        server_rss_after_over_before: ratio,
        memory_back_within_10_percent: ratio.map(|r| r <= 1.0 + MEMORY_GROWTH_ALLOWED),
        errors,
        error_samples,
        server_wal_kib_after: reached
            .spawned
            .as_ref()
            .and_then(server::ServerProcess::wal_kib),
        loadavg_start,
        loadavg_end: server::loadavg(),
    })
}
