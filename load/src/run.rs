//! One load run: start (or reach) the server, open the games and measure
//! them idle, drive them for the time asked, measure the floor, and sum up.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use hexveil::driver::{Client, SeatSetup};
use hexveil_asl::Side;
use hexveil_core::Ruleset;
use hexveil_net::new_game::NewGame;
use hexveil_net::rate::RateLimit;
use hexveil_net::tls::{Fingerprint, ServerTrust};
use hexveil_net::wire::{ClientMessage, Role, ServerMessage};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{Mode, PAD_BUCKET};
use thiserror::Error;

use crate::floor::{self, FloorError};
use crate::game::{Bot, BotError, GameError, Kind, LoadGame, Mix, Outcome};
use crate::report::{Floor, Latency, Ratios, ServerLatency, Summary};
use crate::server::{self, Buckets, MetricsProbe, ServerError, ServerProcess, Spawn};

/// Games opened at once while the run starts (handshakes, logins, pads).
pub const OPEN_AT_ONCE: usize = 16;

/// How long the idle games are left before their memory is read.
pub const IDLE_SETTLE: Duration = Duration::from_secs(1);

/// How long the SQLite floor commits.
pub const SQLITE_FLOOR_TIME: Duration = Duration::from_secs(1);

/// Refusals in a row after which a bot gives its game up as stuck.
pub const MAX_REFUSALS_IN_A_ROW: u32 = 20;

/// Error and refusal messages kept for the summary.
pub const SAMPLES: usize = 5;

/// Which server the load runs against.
#[derive(Clone, Debug)]
pub enum Target {
    /// Start this `hexveil-server` binary with a temporary data directory
    /// under `data_parent`.
    Spawn {
        /// The binary.
        bin: PathBuf,
        /// Where the data directory goes.
        data_parent: PathBuf,
    },
    /// A server already running; its process id (on this machine) for the
    /// CPU and memory figures, if given.
    Connect {
        /// Its address.
        addr: SocketAddr,
        /// Its certificate fingerprint.
        fingerprint: Fingerprint,
        /// Its process id.
        pid: Option<u32>,
        /// Where the SQLite floor writes.
        data_parent: PathBuf,
    },
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Concurrent games.
    pub games: usize,
    /// Seconds to drive them.
    pub secs: f64,
    /// The server.
    pub target: Target,
    /// The moves.
    pub mix: Mix,
    /// Entries per pad epoch in each game.
    pub pad_len: u32,
    /// Whether side B holds a Daisy Chain.
    pub daisy_chains: bool,
    /// Game Turns a game lasts (`None`: the example's five).
    pub turns: Option<u16>,
    /// Whether to measure the floor.
    pub floor: bool,
    /// Frames per second each connection may send (client pace; the
    /// spawned server's rate limit too).
    pub pace: u32,
    /// Whether to print a progress line every second on stderr.
    pub progress: bool,
    /// Delay each way on the path to the server (zero: none).
    pub delay: Duration,
    /// Whether the tool adds that delay itself, through the user-space
    /// relay ([`crate::relay`]); otherwise it is already on the path.
    pub relay: bool,
    /// Actions a second across all games at most (`None`: as fast as the
    /// bots go).
    pub rate: Option<f64>,
    /// Split an idle game's memory into its connections and the rest
    /// instead of driving the games ([`memory_split`]).
    pub memory_split: bool,
    /// With `memory_split`: games each pair of players holds (one key a
    /// side), then joined again on one connection a player.
    pub games_per_connection: usize,
    /// Play game i of N through i x [`STAGGER_SPAN`] / N actions before
    /// the drive, untimed.
    pub stagger: bool,
}

/// About the actions a load game lasts (the example scenario's Game
/// Turns, side A's moves and the ends of phases): `--stagger` spreads the
/// games over this many actions. Without it, games opened together and
/// driven at one `--rate` all end within a fraction of a second (two
/// reveals and a stored transcript each), a burst that only a load tool
/// makes (issue 30: it was most of the p99 at half the peak rate).
pub const STAGGER_SPAN: usize = 180;

/// Why a run could not be made (a game that fails is counted, not this).
#[derive(Debug, Error)]
pub enum RunError {
    /// The server could not be started or read.
    #[error(transparent)]
    Server(#[from] ServerError),
    /// The load game could not be made.
    #[error(transparent)]
    Game(#[from] GameError),
    /// A floor could not be measured.
    #[error(transparent)]
    Floor(#[from] FloorError),
    /// The client pace is zero.
    #[error("--pace must be at least 1 frame per second")]
    Pace,
    /// The delay relay could not start.
    #[error("the delay relay: {0}")]
    Relay(String),
    /// No game could be opened at all.
    #[error("no game could be opened; the first error: {0}")]
    NoGame(String),
}

/// Counters and histograms all game tasks write.
pub(crate) struct Stats {
    actions: AtomicU64,
    pub(crate) errors: AtomicU64,
    refusals: AtomicU64,
    pub(crate) games_opened: AtomicU64,
    pub(crate) games_finished: AtomicU64,
    inner: Mutex<Inner>,
}

#[derive(Clone)]
struct Inner {
    all: Histogram<u64>,
    by_kind: BTreeMap<Kind, Histogram<u64>>,
    entries: BTreeMap<Kind, u64>,
    signed_len: usize,
    errors: Vec<String>,
    refusals: Vec<String>,
}

fn histogram() -> Histogram<u64> {
    // Microseconds, 1 us to 10 min, 3 significant figures.
    Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid histogram bounds")
}

impl Stats {
    pub(crate) fn new() -> Stats {
        Stats {
            actions: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            refusals: AtomicU64::new(0),
            games_opened: AtomicU64::new(0),
            games_finished: AtomicU64::new(0),
            inner: Mutex::new(Inner {
                all: histogram(),
                by_kind: Kind::ALL.iter().map(|k| (*k, histogram())).collect(),
                entries: BTreeMap::new(),
                signed_len: 0,
                errors: Vec::new(),
                refusals: Vec::new(),
            }),
        }
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A task that panicked holding the lock left whole numbers behind.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn error(&self, e: &BotError) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut i = self.inner();
        if i.errors.len() < SAMPLES {
            i.errors.push(e.to_string());
        }
    }

    /// Counts nothing; keeps `e` among the first few errors.
    pub(crate) fn note_error(&self, e: String) {
        let mut i = self.inner();
        if i.errors.len() < SAMPLES {
            i.errors.push(e);
        }
    }

    /// The first few errors.
    pub(crate) fn error_samples(&self) -> Vec<String> {
        self.inner().errors.clone()
    }

    fn refusal(&self, kind: Kind, reason: &str) {
        self.refusals.fetch_add(1, Ordering::Relaxed);
        let mut i = self.inner();
        if i.refusals.len() < SAMPLES {
            i.refusals.push(format!("{}: {reason}", kind.name()));
        }
    }

    fn ruled(&self, kind: Kind, latency: Duration, entries: u64, signed_len: usize) {
        let us = latency.as_micros().min(u128::from(u64::MAX)) as u64;
        let mut i = self.inner();
        i.all.saturating_record(us.max(1));
        if let Some(h) = i.by_kind.get_mut(&kind) {
            h.saturating_record(us.max(1));
        }
        *i.entries.entry(kind).or_default() += entries;
        i.signed_len = i.signed_len.max(signed_len);
        drop(i);
        self.actions.fetch_add(1, Ordering::Relaxed);
    }
}

/// What every game task shares.
pub(crate) struct Ctx {
    pub(crate) addr: SocketAddr,
    pub(crate) trust: ServerTrust,
    pub(crate) pace: RateLimit,
    pub(crate) game: LoadGame,
    pub(crate) pad_len: u32,
    pub(crate) stats: Stats,
    /// Games left to open (the ones open at the start included); `None`:
    /// as many as the time allows.
    pub(crate) quota: Option<AtomicU64>,
    /// Where each finished game's transcript goes, if anywhere.
    pub(crate) finished: Option<tokio::sync::mpsc::UnboundedSender<Vec<u8>>>,
    /// The shared schedule of `--rate`: the gap between actions and the
    /// time the next one may go.
    pub(crate) schedule: Option<(Duration, tokio::sync::Mutex<tokio::time::Instant>)>,
}

impl Ctx {
    /// Waits for the next action's turn on the `--rate` schedule (open
    /// loop: turns are spaced evenly from the start, and a late action
    /// does not move the ones after it).
    pub(crate) async fn turn(&self) {
        let Some((gap, next)) = &self.schedule else {
            return;
        };
        let at = {
            let mut next = next.lock().await;
            let at = *next;
            *next += *gap;
            at
        };
        tokio::time::sleep_until(at).await;
    }

    /// Takes one game from the quota: whether another may be opened.
    pub(crate) fn take_quota(&self) -> bool {
        self.quota.as_ref().is_none_or(|q| {
            q.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
        })
    }
}

/// Opens one game and counts it.
async fn open_game(ctx: &Ctx, keys: Option<&(Vec<u8>, Vec<u8>)>) -> Result<Bot, BotError> {
    let bot = open_game_at(
        ctx.addr,
        &ctx.trust,
        ctx.pace,
        &ctx.game,
        ctx.pad_len,
        false,
        keys,
    )
    .await?;
    ctx.stats.games_opened.fetch_add(1, Ordering::Relaxed);
    Ok(bot)
}

/// Opens one game of `game` on the server at `addr`: the players' keys
/// (side A's, side B's; two fresh ones if `None`), the game created, both
/// seats taken, the pads, the Secret dr and the setups answered, until
/// side A may act. With `watch`, a spectator joins the game as soon as it
/// is created ([`Bot::watch_with`]).
pub async fn open_game_at(
    addr: SocketAddr,
    trust: &ServerTrust,
    pace: RateLimit,
    game: &LoadGame,
    pad_len: u32,
    watch: bool,
    keys: Option<&(Vec<u8>, Vec<u8>)>,
) -> Result<Bot, BotError> {
    let fresh;
    let (key_a, key_b) = match keys {
        Some(keys) => keys,
        None => {
            fresh = (new_key()?, new_key()?);
            &fresh
        }
    };
    let open = |what| move |source| BotError::Open { what, source };
    let mut ca = Client::connect_paced(addr, trust.clone(), key_a, pace)
        .await
        .map_err(open("side A connects"))?;
    let cb = Client::connect_paced(addr, trust.clone(), key_b, pace)
        .await
        .map_err(open("side B connects"))?;
    let players = [
        ca.public_key().map_err(open("side A's key"))?,
        cb.public_key().map_err(open("side B's key"))?,
    ];
    let asl = hexveil_asl::ruleset::Asl;
    let game_id = ca
        .create_game(&NewGame {
            ruleset: asl.id().into(),
            ruleset_version: asl.version(),
            scenario_toml: game.scenario_toml.clone(),
            players,
            mode: Mode::Live,
            pad_len,
            answer_timeout_secs: None,
        })
        .await
        .map_err(open("create the game"))?;
    let watcher = if watch {
        let key = new_key()?;
        let s = Client::connect_paced(addr, trust.clone(), &key, pace)
            .await
            .map_err(open("the spectator connects"))?
            .watch(game_id)
            .await
            .map_err(open("the spectator watches"))?;
        Some(s)
    } else {
        None
    };
    let seat = |side| -> Result<SeatSetup, BotError> {
        Ok(SeatSetup {
            ruleset: Arc::new(hexveil_asl::ruleset::Asl),
            scenario_toml: game.scenario_toml.clone(),
            secrets: game.secrets(side)?,
            pad_len,
            mode: Mode::Live,
        })
    };
    let a = ca
        .join(game_id, seat(Side::A)?)
        .await
        .map_err(open("side A joins"))?;
    let b = cb
        .join(game_id, seat(Side::B)?)
        .await
        .map_err(open("side B joins"))?;
    let mut bot = Bot::new(a, b, game);
    if let Some(s) = watcher {
        bot.watch_with(s);
    }
    bot.settle().await?;
    Ok(bot)
}

/// A fresh player key (PKCS#8).
fn new_key() -> Result<Vec<u8>, GameError> {
    Identity::generate_pkcs8().map_err(|e| GameError::Secrets(format!("a key: {e}")))
}

/// Plays games one after another until `deadline` (or the quota is
/// spent): `first` (if opened), then new ones. Returns the game in play
/// when time ran out, to close.
pub(crate) async fn play(ctx: Arc<Ctx>, first: Option<Bot>, deadline: Instant) -> Option<Bot> {
    let mut current = first;
    while Instant::now() < deadline {
        let mut bot = match current.take() {
            Some(b) => b,
            None if !ctx.take_quota() => break,
            None => match open_game(&ctx, None).await {
                Ok(b) => b,
                Err(e) => {
                    ctx.stats.error(&e);
                    // Not a busy loop against a server that refuses.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let mut refused_in_a_row = 0;
        loop {
            if bot.over() {
                ctx.stats.games_finished.fetch_add(1, Ordering::Relaxed);
                if let Some(tx) = &ctx.finished {
                    match bot.transcript().await {
                        Ok(t) => {
                            let _ = tx.send(t);
                        }
                        Err(e) => ctx.stats.error(&e),
                    }
                }
                tokio::spawn(bot.close());
                break;
            }
            if Instant::now() >= deadline {
                return Some(bot);
            }
            let (side, action, kind) = bot.choose();
            ctx.turn().await;
            match bot.act(side, action).await {
                Ok(Outcome::Ruled {
                    latency,
                    entries,
                    signed_len,
                    ..
                }) => {
                    refused_in_a_row = 0;
                    ctx.stats.ruled(kind, latency, entries, signed_len);
                }
                Ok(Outcome::Refused(reason)) => {
                    ctx.stats.refusal(kind, &reason);
                    refused_in_a_row += 1;
                    if refused_in_a_row >= MAX_REFUSALS_IN_A_ROW {
                        ctx.stats
                            .error(&BotError::Stuck(refused_in_a_row, reason.clone()));
                        tokio::spawn(bot.close());
                        break;
                    }
                }
                Err(e) => {
                    ctx.stats.error(&e);
                    tokio::spawn(bot.close());
                    break;
                }
            }
        }
    }
    current
}

/// The server a run drives: started here (killed when this is dropped)
/// or reached.
pub(crate) struct Reached {
    /// The process started, if the run started one.
    pub(crate) spawned: Option<ServerProcess>,
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    /// Its certificate's fingerprint.
    pub(crate) fingerprint: Fingerprint,
    /// Its process id as a `/proc` name, if known.
    pub(crate) pid: Option<String>,
    /// Where the run's own files (the SQLite floor) go.
    pub(crate) data_parent: PathBuf,
    /// The started server's `/metrics` (for its heap), if asked for.
    pub(crate) metrics: Option<MetricsProbe>,
}

/// Starts the target's server with its limits raised for `games` games,
/// `pace` frames a second and pads of `pad_len`, or reaches it; with
/// `metrics`, a started server serves its `/metrics` too.
pub(crate) fn reach(
    target: &Target,
    games: usize,
    pace: u32,
    pad_len: u32,
    metrics: bool,
) -> Result<Reached, RunError> {
    Ok(match target {
        Target::Spawn { bin, data_parent } => {
            let p = ServerProcess::spawn(&Spawn {
                bin: bin.clone(),
                data_parent: data_parent.clone(),
                games,
                rate: pace,
                pad_len,
                metrics,
            })?;
            Reached {
                addr: p.addr,
                fingerprint: p.fingerprint,
                pid: Some(p.pid().to_string()),
                metrics: p.metrics.clone(),
                spawned: Some(p),
                data_parent: data_parent.clone(),
            }
        }
        Target::Connect {
            addr,
            fingerprint,
            pid,
            data_parent,
        } => Reached {
            spawned: None,
            addr: *addr,
            fingerprint: *fingerprint,
            pid: pid.map(|p| p.to_string()),
            data_parent: data_parent.clone(),
            metrics: None,
        },
    })
}

/// Runs the load and the floor; the summary says what was measured.
pub async fn run(opts: &Options) -> Result<Summary, RunError> {
    let loadavg_start = server::loadavg();
    let mut game = LoadGame::new(opts.mix, opts.daisy_chains)?;
    if let Some(turns) = opts.turns {
        game = game.with_turns(turns)?;
    }
    let pace = rate_limit(opts.pace)?;
    let Reached {
        spawned,
        addr,
        fingerprint,
        pid,
        data_parent,
        metrics,
    } = reach(&opts.target, opts.games, opts.pace, opts.pad_len, true)?;
    let relay = if !opts.relay {
        None
    } else {
        Some(
            crate::relay::Relay::start(addr, opts.delay)
                .await
                .map_err(|e| RunError::Relay(e.to_string()))?,
        )
    };
    let server_addr = addr;
    let addr = relay.as_ref().map_or(addr, crate::relay::Relay::addr);
    let say = |s: String| {
        if opts.progress {
            eprintln!("hexveil-load: {s}");
        }
    };
    say(format!(
        "server at {server_addr}{}{}; {} games, mix {}, pad {}, {} s",
        pid.as_ref()
            .map(|p| format!(" (pid {p})"))
            .unwrap_or_default(),
        relay
            .as_ref()
            .map(|r| format!(
                ", through a relay at {} delaying {} ms each way",
                r.addr(),
                opts.delay.as_secs_f64() * 1000.0
            ))
            .unwrap_or_default(),
        opts.games,
        opts.mix,
        opts.pad_len,
        opts.secs
    ));
    let ctx = Arc::new(Ctx {
        addr,
        trust: ServerTrust::Pinned(fingerprint),
        pace,
        game,
        pad_len: opts.pad_len,
        stats: Stats::new(),
        quota: None,
        finished: None,
        schedule: opts.rate.map(|r| {
            (
                Duration::from_secs_f64(1.0 / r),
                tokio::sync::Mutex::new(tokio::time::Instant::now()),
            )
        }),
    });

    let rss_none = rss_with_no_game(addr, &ctx.trust, ctx.pace, pid.as_deref()).await?;
    let heap_none = heap_kib(metrics.as_ref())?;

    // With --games-per-connection, each pair of players (a key a side)
    // holds that many games.
    let per = if opts.memory_split {
        opts.games_per_connection.max(1)
    } else {
        1
    };
    let players: Vec<Arc<(Vec<u8>, Vec<u8>)>> = if per > 1 {
        (0..opts.games.div_ceil(per))
            .map(|_| Ok(Arc::new((new_key()?, new_key()?))))
            .collect::<Result<_, GameError>>()?
    } else {
        Vec::new()
    };

    // Open every game, OPEN_AT_ONCE at a time, and leave them idle.
    say(format!("opening {} games", opts.games));
    let gate = Arc::new(tokio::sync::Semaphore::new(OPEN_AT_ONCE));
    let opening: Vec<_> = (0..opts.games)
        .map(|i| {
            let (ctx, gate) = (ctx.clone(), gate.clone());
            let keys = players.get(i / per).cloned();
            tokio::spawn(async move {
                let _turn = gate.acquire().await.expect("the gate is never closed");
                open_game(&ctx, keys.as_deref()).await
            })
        })
        .collect();
    let mut bots = Vec::with_capacity(opts.games);
    let mut first_error = None;
    for t in opening {
        match t.await {
            Ok(Ok(bot)) => bots.push(Some(bot)),
            Ok(Err(e)) => {
                ctx.stats.error(&e);
                first_error.get_or_insert_with(|| e.to_string());
                bots.push(None);
            }
            Err(e) => {
                let e = format!("a game task failed: {e}");
                ctx.stats.errors.fetch_add(1, Ordering::Relaxed);
                first_error.get_or_insert(e);
                bots.push(None);
            }
        }
    }
    let idle_games = bots.iter().filter(|b| b.is_some()).count();
    if idle_games == 0 {
        return Err(RunError::NoGame(first_error.unwrap_or_default()));
    }
    tokio::time::sleep(IDLE_SETTLE).await;
    let rss_idle = pid.as_deref().map(server::rss_kib).transpose()?;
    say(format!(
        "{idle_games} games open and idle{}",
        match (rss_none, rss_idle) {
            (Some(n), Some(i)) => format!(
                ": server RSS {n} KiB with none, {i} KiB with them ({:.1} KiB a game)",
                (i as f64 - n as f64) / idle_games as f64
            ),
            _ => String::new(),
        }
    ));

    let split = if opts.memory_split {
        // Each game's player pair and where each seat resumes.
        let seats: Vec<Seats> = bots
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                b.as_ref().map(|b| Seats {
                    pair: i / per,
                    game_id: b.game_id(),
                    resume_from: b.resume_from(),
                })
            })
            .collect();
        let open: Vec<Bot> = bots.iter_mut().filter_map(Option::take).collect();
        match (rss_idle, pid.as_deref()) {
            (Some(idle), Some(pid)) => {
                let at = Readings {
                    rss_none: rss_none.unwrap_or(idle),
                    rss_idle: idle,
                    heap_none,
                    heap_idle: heap_kib(metrics.as_ref())?,
                };
                let shared = Shared {
                    players: &players,
                    seats,
                };
                Some(memory_split(&ctx, open, at, shared, pid, metrics.as_ref()).await?)
            }
            _ => {
                futures_join(open.into_iter().map(Bot::close).collect()).await;
                None
            }
        }
    } else {
        None
    };

    if opts.stagger {
        say("staggering the games".into());
        let n = bots.len();
        let warming: Vec<_> = bots
            .iter_mut()
            .enumerate()
            .map(|(i, bot)| {
                let (ctx, bot) = (ctx.clone(), bot.take());
                tokio::spawn(async move { stagger(&ctx, bot, i * STAGGER_SPAN / n).await })
            })
            .collect();
        for (slot, t) in bots.iter_mut().zip(warming) {
            *slot = t.await.ok().flatten();
        }
    }

    // Drive them (not with --memory-split, whose games are closed).
    let adjudication_before = adjudication(metrics.as_ref())?;
    let cpu_before = pid.as_deref().map(server::cpu_secs).transpose()?;
    let self_before = server::cpu_secs("self")?;
    let start = Instant::now();
    if let Some((_, next)) = &ctx.schedule {
        *next.lock().await = tokio::time::Instant::now();
    }
    let deadline = if opts.memory_split {
        start
    } else {
        start + Duration::from_secs_f64(opts.secs)
    };
    let tasks: Vec<_> = bots
        .into_iter()
        .map(|bot| tokio::spawn(play(ctx.clone(), bot, deadline)))
        .collect();
    let progress = opts.progress.then(|| {
        let ctx = ctx.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.tick().await;
            let mut last = 0;
            loop {
                tick.tick().await;
                let s = &ctx.stats;
                let actions = s.actions.load(Ordering::Relaxed);
                let (p50, p99) = {
                    let i = s.inner();
                    (i.all.value_at_quantile(0.5), i.all.value_at_quantile(0.99))
                };
                eprintln!(
                    "[{:>4.0} s] actions {actions} ({}/s) | p50 {} p99 {} | games opened {} finished {} | errors {} refusals {}",
                    start.elapsed().as_secs_f64(),
                    actions - last,
                    ms(p50),
                    ms(p99),
                    s.games_opened.load(Ordering::Relaxed),
                    s.games_finished.load(Ordering::Relaxed),
                    s.errors.load(Ordering::Relaxed),
                    s.refusals.load(Ordering::Relaxed),
                );
                last = actions;
            }
        })
    });
    let mut left = Vec::new();
    for t in tasks {
        match t.await {
            Ok(Some(bot)) => left.push(bot),
            Ok(None) => {}
            Err(e) => {
                ctx.stats.errors.fetch_add(1, Ordering::Relaxed);
                let mut i = ctx.stats.inner();
                if i.errors.len() < SAMPLES {
                    i.errors.push(format!("a game task failed: {e}"));
                }
            }
        }
    }
    let drive_secs = start.elapsed().as_secs_f64();
    let cpu_after = pid.as_deref().map(server::cpu_secs).transpose()?;
    let self_after = server::cpu_secs("self")?;
    let adjudication = adjudication(metrics.as_ref())?
        .zip(adjudication_before)
        .map(|(after, before)| ServerLatency::of(&after.since(&before)));
    if let Some(p) = progress {
        p.abort();
    }
    futures_join(left.into_iter().map(Bot::close).collect()).await;

    let heap = split.and_then(|s| s.heap);
    let stats = &ctx.stats;
    let actions = stats.actions.load(Ordering::Relaxed);
    let inner = stats.inner().clone();
    let signed_len = inner.signed_len.max(1);
    let entries_total: u64 = inner.entries.values().sum();

    // The floor, with the games' connections closed and the server idle.
    let floor = if opts.floor && !opts.memory_split {
        say("measuring the floor".into());
        let crypto = floor::crypto(signed_len)?;
        // An action goes out as its signed bytes, the signature and a few
        // bytes of framing; a padded update comes back.
        let echo = floor::echo(
            (2 * opts.games).min(512),
            actions.max(1000),
            signed_len + 64 + 16,
            PAD_BUCKET,
        )
        .await?;
        let sqlite = floor::sqlite(&data_parent, signed_len + 64 + 16, SQLITE_FLOOR_TIME)?;
        Some(Floor {
            crypto,
            echo,
            sqlite,
        })
    } else {
        None
    };

    let actions_per_sec = actions as f64 / drive_secs.max(1e-9);
    let server_cpu_secs = cpu_before.zip(cpu_after).map(|(b, a)| a - b);
    let server_cpu_us_per_action =
        server_cpu_secs.and_then(|c| (actions > 0).then(|| c * 1e6 / actions as f64));
    let entries_per_sec = entries_total as f64 / drive_secs.max(1e-9);
    let ratios = floor.as_ref().map(|f| Ratios {
        server_cpu_per_action_over_crypto_floor: server_cpu_us_per_action
            .map(|c| c / f.crypto.per_action_us),
        actions_per_sec_over_echo_round_trips_per_sec: actions_per_sec / f.echo.round_trips_per_sec,
        entries_per_sec_over_sqlite_commits_per_sec: entries_per_sec / f.sqlite.commits_per_sec,
    });
    let per_kind = |f: &dyn Fn(Kind) -> Option<f64>| -> BTreeMap<String, f64> {
        Kind::ALL
            .iter()
            .filter_map(|k| f(*k).map(|v| (k.name().to_string(), v)))
            .collect()
    };
    let count = |k: Kind| inner.by_kind.get(&k).map_or(0, |h| h.len());
    let summary = Summary {
        games: opts.games,
        secs: opts.secs,
        mix: opts.mix.to_string(),
        pad_len: opts.pad_len,
        daisy_chains: opts.daisy_chains,
        rate: opts.rate,
        server: match &opts.target {
            Target::Spawn { bin, .. } => bin.display().to_string(),
            Target::Connect { addr, .. } => addr.to_string(),
        },
        actions,
        actions_by_kind: Kind::ALL
            .iter()
            .map(|k| (k.name().to_string(), count(*k)))
            .collect(),
        drive_secs,
        actions_per_sec,
        latency_us: Latency::of(&inner.all),
        latency_us_by_kind: Kind::ALL
            .iter()
            .filter(|k| count(**k) > 0)
            .map(|k| (k.name().to_string(), Latency::of(&inner.by_kind[k])))
            .collect(),
        entries_per_action: per_kind(&|k| {
            let n = count(k);
            (n > 0).then(|| inner.entries.get(&k).copied().unwrap_or(0) as f64 / n as f64)
        }),
        action_signed_len: signed_len,
        server_cpu_secs,
        server_cpu_us_per_action,
        load_tool_cpu_us_per_action: (actions > 0)
            .then(|| (self_after - self_before) * 1e6 / actions as f64),
        server_wal_kib_end: spawned.as_ref().and_then(ServerProcess::wal_kib),
        server_adjudication: adjudication,
        server_rss_kib_none: rss_none,
        server_rss_kib_idle: rss_idle,
        idle_games,
        server_rss_kib_per_idle_game: rss_none
            .zip(rss_idle)
            .map(|(n, i)| (i as f64 - n as f64) / idle_games as f64),
        server_rss_kib_per_connection: split.map(|s| s.per_connection),
        server_rss_kib_per_game_without_connections: split.map(|s| s.per_game_without_connections),
        server_heap_kib_per_idle_game: heap.map(|h| h.per_idle_game),
        server_heap_kib_per_connection: heap.map(|h| h.per_connection),
        server_heap_kib_per_game_without_connections: heap.map(|h| h.per_game_without_connections),
        games_per_connection: (heap.and_then(|h| h.per_idle_game_shared).is_some())
            .then_some(opts.games_per_connection),
        server_heap_kib_per_idle_game_shared: heap.and_then(|h| h.per_idle_game_shared),
        errors: stats.errors.load(Ordering::Relaxed),
        error_samples: inner.errors.clone(),
        refusals: stats.refusals.load(Ordering::Relaxed),
        refusal_samples: inner.refusals.clone(),
        games_opened: stats.games_opened.load(Ordering::Relaxed),
        games_finished: stats.games_finished.load(Ordering::Relaxed),
        floor,
        ratios,
        loadavg_start,
        loadavg_end: server::loadavg(),
    };
    drop(relay);
    drop(spawned);
    Ok(summary)
}

/// Plays `actions` of `bot`'s game untimed (`--stagger`); a game that
/// errs, is refused or ends meanwhile is closed and counted.
async fn stagger(ctx: &Ctx, bot: Option<Bot>, actions: usize) -> Option<Bot> {
    let mut bot = bot?;
    for _ in 0..actions {
        if bot.over() {
            break;
        }
        let (side, action, _) = bot.choose();
        match bot.act(side, action).await {
            Ok(Outcome::Ruled { .. }) => {}
            Ok(Outcome::Refused(reason)) => {
                ctx.stats.error(&BotError::Stuck(1, reason));
                tokio::spawn(bot.close());
                return None;
            }
            Err(e) => {
                ctx.stats.error(&e);
                tokio::spawn(bot.close());
                return None;
            }
        }
    }
    if bot.over() {
        ctx.stats.games_finished.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(bot.close());
        return None;
    }
    Some(bot)
}

/// An idle game's memory split in two ([`Options::memory_split`]).
#[derive(Clone, Copy, Debug)]
struct Split {
    /// KiB a logged-in connection with no game adds.
    per_connection: f64,
    /// KiB a game adds with its players' connections closed (the game
    /// itself, as an escrow game or a player's game beside others on one
    /// connection costs).
    per_game_without_connections: f64,
    /// The same split by the server's heap in use, if it reports it.
    heap: Option<HeapSplit>,
}

/// [`Split`] by the heap in use (jemalloc's `stats.allocated`, KiB), which
/// falls when a connection's blocks are freed even where the pages they
/// shared with games stay resident.
#[derive(Clone, Copy, Debug)]
struct HeapSplit {
    /// An idle game with its two connections.
    per_idle_game: f64,
    /// A bare logged-in connection.
    per_connection: f64,
    /// A game with its connections closed.
    per_game_without_connections: f64,
    /// With `--games-per-connection` G > 1: an idle game whose players
    /// each hold G games on one connection.
    per_idle_game_shared: Option<f64>,
}

/// The server's memory (KiB) before the split: resident with no game and
/// with the games idle, and the heap in use at the same two points.
struct Readings {
    rss_none: u64,
    rss_idle: u64,
    heap_none: Option<f64>,
    heap_idle: Option<f64>,
}

/// One open game's seats: its pair of players and where each resumes.
struct Seats {
    pair: usize,
    game_id: hexveil_protocol::encoding::GameId,
    resume_from: [(Side, u64); 2],
}

/// The players' keys (side A's, side B's) of each pair that holds several
/// games, and every open game's seats.
struct Shared<'a> {
    players: &'a [Arc<(Vec<u8>, Vec<u8>)>],
    seats: Vec<Seats>,
}

/// The server's `hexveil_adjudication_seconds` now, if it serves its
/// metrics.
fn adjudication(metrics: Option<&MetricsProbe>) -> Result<Option<Buckets>, RunError> {
    Ok(metrics
        .map(|m| m.histogram("hexveil_adjudication_seconds"))
        .transpose()?
        .flatten())
}

/// The server's heap in use (KiB), if it reports it.
fn heap_kib(metrics: Option<&MetricsProbe>) -> Result<Option<f64>, RunError> {
    Ok(metrics.map(MetricsProbe::heap_kib).transpose()?.flatten())
}

/// How long the server is left alone after connections close before its
/// memory is read: the allocator gives freed pages back after
/// `hexveil_server::allocator::DIRTY_DECAY_MS` (1 s), and QUIC's closing
/// state lasts a few of its round trips.
const SPLIT_SETTLE: Duration = Duration::from_secs(3);

/// Splits the memory of `bots`' idle games (issue 30): opens as many bare
/// connections as the games have (each logs in and joins nothing), reads
/// the server's memory (per connection: over the idle games'), closes them
/// and every game's connections (the games stay open on the server, as
/// after their players' machines go away) and reads it again (per game:
/// over none). With players that hold several games each
/// ([`Options::games_per_connection`]), each player then logs in once and
/// takes all its seats again on that one connection (`Join`, PROTOCOL.md
/// 10.4), and the memory is read a third time.
async fn memory_split(
    ctx: &Arc<Ctx>,
    bots: Vec<Bot>,
    at: Readings,
    shared: Shared<'_>,
    pid: &str,
    metrics: Option<&MetricsProbe>,
) -> Result<Split, RunError> {
    let games = bots.len().max(1);
    let n = 2 * bots.len();
    let gate = Arc::new(tokio::sync::Semaphore::new(OPEN_AT_ONCE));
    let opening: Vec<_> = (0..n)
        .map(|_| {
            let (ctx, gate) = (ctx.clone(), gate.clone());
            tokio::spawn(async move {
                let _turn = gate.acquire().await.expect("the gate is never closed");
                let key = Identity::generate_pkcs8().map_err(|e| format!("a key: {e}"))?;
                Client::connect_paced(ctx.addr, ctx.trust.clone(), &key, ctx.pace)
                    .await
                    .map_err(|e| format!("a bare connection: {e}"))
            })
        })
        .collect();
    let conns = gather(ctx, opening).await;
    tokio::time::sleep(IDLE_SETTLE).await;
    let rss_conns = server::rss_kib(pid)?;
    let heap_conns = heap_kib(metrics)?;
    let opened = conns.len().max(1);
    futures_join(conns.into_iter().map(Client::close).collect()).await;
    futures_join(bots.into_iter().map(Bot::close).collect()).await;
    tokio::time::sleep(SPLIT_SETTLE).await;
    let rss_games = server::rss_kib(pid)?;
    let heap_games = heap_kib(metrics)?;
    let heap_shared = if shared.players.is_empty() {
        None
    } else {
        let joined = rejoin_shared(ctx, shared).await;
        tokio::time::sleep(IDLE_SETTLE).await;
        let heap = heap_kib(metrics)?;
        futures_join(joined.into_iter().map(Client::close).collect()).await;
        heap
    };
    let per = |a: f64, b: f64, n: usize| (a - b) / n as f64;
    let heap = match (at.heap_none, at.heap_idle, heap_conns, heap_games) {
        (Some(none), Some(idle), Some(conns), Some(left)) => Some(HeapSplit {
            per_idle_game: per(idle, none, games),
            per_connection: per(conns, idle, opened),
            per_game_without_connections: per(left, none, games),
            per_idle_game_shared: heap_shared.map(|h| per(h, none, games)),
        }),
        _ => None,
    };
    Ok(Split {
        per_connection: per(rss_conns as f64, at.rss_idle as f64, opened),
        per_game_without_connections: per(rss_games as f64, at.rss_none as f64, games),
        heap,
    })
}

/// Every player of `shared` logs in once (one connection a key) and takes
/// its seat in each of its games on that connection, resuming where its
/// game's own connection stopped (nothing re-sent). Returns the
/// connections, open.
async fn rejoin_shared(ctx: &Arc<Ctx>, shared: Shared<'_>) -> Vec<Client> {
    let gate = Arc::new(tokio::sync::Semaphore::new(OPEN_AT_ONCE));
    let mut tasks = Vec::new();
    for (pair, keys) in shared.players.iter().enumerate() {
        for (i, side) in [Side::A, Side::B].into_iter().enumerate() {
            let seats: Vec<_> = shared
                .seats
                .iter()
                .filter(|s| s.pair == pair)
                .map(|s| (s.game_id, s.resume_from[i].1))
                .collect();
            let (ctx, gate, keys) = (ctx.clone(), gate.clone(), keys.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = gate.acquire().await.expect("the gate is never closed");
                let key = if side == Side::A { &keys.0 } else { &keys.1 };
                let mut c = Client::connect_paced(ctx.addr, ctx.trust.clone(), key, ctx.pace)
                    .await
                    .map_err(|e| format!("a player's one connection: {e}"))?;
                for (game_id, resume_from) in seats {
                    c.send(&ClientMessage::Join {
                        game_id,
                        role: Role::Player(side),
                        resume_from,
                    })
                    .map_err(|e| format!("join {game_id}: {e}"))?;
                    loop {
                        match c.recv().await {
                            Ok(ServerMessage::Joined { game_id: g, .. }) if g == game_id => break,
                            Ok(ServerMessage::Error { code, message }) => {
                                return Err(format!("join {game_id}: {code:?}: {message}"))
                            }
                            Ok(_) => {}
                            Err(e) => return Err(format!("join {game_id}: {e}")),
                        }
                    }
                }
                Ok(c)
            }));
        }
    }
    gather(ctx, tasks).await
}

/// The connections the tasks made; each failure counted as an error.
async fn gather(
    ctx: &Arc<Ctx>,
    tasks: Vec<tokio::task::JoinHandle<Result<Client, String>>>,
) -> Vec<Client> {
    let mut conns = Vec::with_capacity(tasks.len());
    for t in tasks {
        match t.await {
            Ok(Ok(c)) => conns.push(c),
            Ok(Err(e)) => {
                ctx.stats.errors.fetch_add(1, Ordering::Relaxed);
                ctx.stats.note_error(e);
            }
            Err(e) => {
                ctx.stats.errors.fetch_add(1, Ordering::Relaxed);
                ctx.stats
                    .note_error(format!("a connection task failed: {e}"));
            }
        }
    }
    conns
}

/// Waits for every future (closing connections at once, not in turn).
async fn futures_join(fs: Vec<impl std::future::Future<Output = ()> + Send + 'static>) {
    let handles: Vec<_> = fs.into_iter().map(tokio::spawn).collect();
    for h in handles {
        let _ = h.await;
    }
}

/// The bots' pace: `pace` frames a second, with a burst of as many.
pub(crate) fn rate_limit(pace: u32) -> Result<RateLimit, RunError> {
    let pace = std::num::NonZeroU32::new(pace).ok_or(RunError::Pace)?;
    Ok(RateLimit {
        frames_per_second: pace,
        burst: pace,
    })
}

/// The server's resident memory with no game (KiB, if its pid is known):
/// read after one login, so the TLS and QUIC machinery every connection
/// shares is already in place, and [`IDLE_SETTLE`] of quiet. A warm-up
/// that fails (no key from the system's random generator, a refused login)
/// only skips the warm-up.
pub(crate) async fn rss_with_no_game(
    addr: SocketAddr,
    trust: &ServerTrust,
    pace: RateLimit,
    pid: Option<&str>,
) -> Result<Option<u64>, RunError> {
    if let Ok(key) = Identity::generate_pkcs8() {
        if let Ok(c) = Client::connect_paced(addr, trust.clone(), &key, pace).await {
            c.close().await;
        }
    }
    tokio::time::sleep(IDLE_SETTLE).await;
    Ok(pid.map(server::rss_kib).transpose()?)
}

/// Microseconds as milliseconds, for the progress line.
fn ms(us: u64) -> String {
    format!("{:.1} ms", us as f64 / 1000.0)
}
