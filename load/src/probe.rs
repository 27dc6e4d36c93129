//! The probe (`hexveil-load --probe N`): single actions one at a time, on
//! an idle server, each timed at the actor and at a spectator. It answers
//! two questions of issue 16:
//!
//! - **Round trips.** With a delay on the path (`--delay-ms D`: the
//!   user-space relay, [`crate::relay`]; or `tc netem` in a network
//!   namespace, `scripts/round-trips.sh`), an action's latency over 2 D is
//!   the number of round trips it needs: a move with nothing to trigger,
//!   a step among hexes side B may have mined, a mine attack.
//! - **Timing (G3).** Is a step into a hidden minefield that has no effect
//!   told apart from the same step into an empty hex by *when* the mover's
//!   ruling and the spectator's update arrive? Each game makes one of each,
//!   in alternating order (interleaved), and the two samples of arrival
//!   times are compared with a two-sample Kolmogorov-Smirnov test
//!   ([`crate::ks`]).
//!
//! **The probe's game** is the load game ([`crate::game`]) with side B's
//! sealed setup given two more hidden minefields around one hub hex of
//! board 3 ([`Site`]): A-T mines in one neighbour (Infantry never sets A-T
//! mines off, B28.5: a hidden minefield whose entry has no effect and
//! stays hidden), 12 A-P factors in another (the attack, B28.41), and a
//! third neighbour eligible for B's A-P mines and empty. Side A's squad and
//! leader set up next to the hub. In side A's first Movement Phase:
//!
//! 1. the tank moves on board 4 (**move**: nothing to trigger);
//! 2. the stack steps into the hub (not timed: it opens the hub's leaf, so
//!    the steps timed next all start from a hex already opened);
//! 3. into the empty hex and back, into the A-T hex and back, in turn
//!    first one then the other game after game (**step_empty**,
//!    **step_hidden_at**: each a first entry, B's machine opens the hex's
//!    leaves and each potential A-P attack rolls its DR, R28);
//! 4. into the A-P hex (**attack**: the opening, the attack's DR, the IFT
//!    result's checks).
//!
//! That is the stack's 6 MF (A4.1). Then the game is left (its seats
//! closed) and the next one opened; games run one after another, so no
//! action queues behind another.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use hexveil_asl::board::hex::Hex;
use hexveil_asl::model::sealed::{Layer as AslLayer, Location as AslLocation};
use hexveil_asl::ruleset::{AslPublic, AslScenario};
use hexveil_asl::setup::eligible_locations;
use hexveil_asl::Side;
use hexveil_core::Ruleset;
use hexveil_net::rate::RateLimit;
use hexveil_net::tls::ServerTrust;
use serde::Serialize;

use crate::game::{
    move_to, quiet_mine_hexes, setup_a, Bot, BotError, GameError, LoadGame, Mix, Outcome,
    GER_LEADER, GER_PZ, GER_SQUAD, SEALED_B, TANK_ROUTE,
};
use crate::ks::{self, KsTest};
use crate::relay::Relay;
use crate::report::Latency;
use crate::run::{open_game_at, rate_limit, reach, RunError, Target};
use crate::server;

/// The hexes of the probe's game (board 3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Site {
    /// Where side A's squad and leader set up.
    pub start: String,
    /// The hub: every timed step starts here.
    pub hub: String,
    /// A neighbour of the hub eligible for side B's A-P mines, empty.
    pub empty: String,
    /// A neighbour holding side B's hidden A-T mines (2 factors).
    pub hidden_at: String,
    /// A neighbour holding side B's hidden A-P mines (12 factors).
    pub hidden_ap: String,
}

/// What each timed action is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    /// The tank's move on board 4: nothing to trigger.
    Move,
    /// The stack's first entry into the empty eligible hex.
    StepEmpty,
    /// The stack's first entry into the hidden A-T minefield (no effect).
    StepHiddenAt,
    /// The stack's entry into the hidden A-P minefield: an attack.
    Attack,
}

impl Step {
    /// Every step, in report order.
    pub const ALL: [Step; 4] = [
        Step::Move,
        Step::StepEmpty,
        Step::StepHiddenAt,
        Step::Attack,
    ];

    /// Its name in the summary.
    pub fn name(self) -> &'static str {
        match self {
            Step::Move => "move",
            Step::StepEmpty => "step_empty",
            Step::StepHiddenAt => "step_hidden_at",
            Step::Attack => "attack",
        }
    }
}

/// Finds the probe's site: the first hub (in hex order) of
/// [`quiet_mine_hexes`] with four such neighbours, one of them also
/// eligible for side B's A-T mines.
pub fn site(game: &LoadGame) -> Result<Site, GameError> {
    let s = hexveil_asl::ruleset::Asl
        .load(&game.scenario_toml)
        .map_err(GameError::Load)?;
    let public_b = s
        .public_setup(Side::B, crate::game::SETUP_B)
        .map_err(GameError::Load)?;
    let asl = s
        .as_any()
        .downcast_ref::<AslScenario>()
        .ok_or_else(|| GameError::Load("not an ASL scenario".into()))?;
    let public_b = &public_b
        .as_any()
        .downcast_ref::<AslPublic>()
        .ok_or_else(|| GameError::Load("not an ASL setup".into()))?
        .0;
    let scenario = &asl.scenario;
    let map = &scenario.map;
    let quiet = quiet_mine_hexes(scenario, public_b)?;
    let at_ok: std::collections::BTreeSet<Hex> =
        eligible_locations(scenario, public_b, Side::B, AslLayer::AntiTank)
            .into_iter()
            .filter_map(|l| match l {
                AslLocation::Hex(h) => Some(map.canonical(h)),
                _ => None,
            })
            .collect();
    for &hub in &quiet {
        let mut around: Vec<Hex> = map
            .neighbors(hub)
            .into_iter()
            .map(|n| map.canonical(n))
            .filter(|n| quiet.contains(n))
            .collect();
        around.sort();
        around.dedup();
        let Some(&at) = around.iter().find(|n| at_ok.contains(n)) else {
            continue;
        };
        let rest: Vec<Hex> = around.into_iter().filter(|n| *n != at).collect();
        if let [start, empty, ap, ..] = rest[..] {
            return Ok(Site {
                start: start.to_string(),
                hub: hub.to_string(),
                empty: empty.to_string(),
                hidden_at: at.to_string(),
                hidden_ap: ap.to_string(),
            });
        }
    }
    Err(GameError::Route(
        "no hub of board 3 with four quiet eligible neighbours, one eligible for A-T mines".into(),
    ))
}

/// The probe's game: the untriggered load game's scenario (no Daisy
/// Chain), side A's stack set up on the site's start, side B's sealed
/// setup with the site's two hidden minefields added.
pub fn probe_game() -> Result<(LoadGame, Site), GameError> {
    let mut game = LoadGame::new(Mix::Mined, false)?;
    let site = site(&game)?;
    let with = |text: &str, from: &'static str, to: String| {
        if !text.contains(from) {
            return Err(GameError::ExampleChanged(from));
        }
        Ok(text.replacen(from, &to, 1))
    };
    let sealed = with(
        SEALED_B,
        "ap = [\n",
        format!(
            "ap = [\n  {{ hex = \"{}\", strength = 12 }},  # the probe's hidden A-P\n",
            site.hidden_ap
        ),
    )?;
    game.sealed_b = with(
        &sealed,
        "at = [\n",
        format!(
            "at = [\n  {{ hex = \"{}\", factors = 2 }},  # the probe's hidden A-T\n",
            site.hidden_at
        ),
    )?;
    game.setup_a = setup_a(&site.start);
    game.stack_route = vec![site.start.clone(), site.hub.clone()];
    Ok((game, site))
}

/// What to probe.
#[derive(Clone, Debug)]
pub struct ProbeOptions {
    /// Games, one after another (one trial of each step each).
    pub trials: usize,
    /// Delay each way on the path to the server (zero: none).
    pub delay: Duration,
    /// Whether the tool adds that delay itself, through the user-space
    /// relay; otherwise it is already on the path (`tc netem`).
    pub relay: bool,
    /// The server.
    pub target: Target,
    /// Entries per pad epoch.
    pub pad_len: u32,
    /// Frames per second each connection may send.
    pub pace: u32,
    /// Progress lines on stderr.
    pub progress: bool,
}

/// One step's figures.
#[derive(Clone, Debug, Serialize)]
pub struct StepFigures {
    /// From the signed action out to its ruling back at the actor.
    pub actor_us: Latency,
    /// From the signed action out to the ruling's public update at the
    /// spectator.
    pub spectator_us: Latency,
    /// Log entries from the action to its ruling, both included (mean).
    pub entries_per_action: f64,
    /// The actor's median latency in round trips of the added delay
    /// (`actor_us.p50 / (2 x delay)`), when a delay was added.
    pub round_trips_p50: Option<f64>,
    /// The same of the slowest.
    pub round_trips_max: Option<f64>,
}

/// The probe's summary (`--json`).
#[derive(Clone, Debug, Serialize)]
pub struct ProbeSummary {
    /// Games probed (trials asked).
    pub trials: usize,
    /// Delay each way, in milliseconds (0: none).
    pub delay_ms: f64,
    /// How it was added: `relay` (the tool's user-space relay), `path`
    /// (already on the path: `tc netem`) or `none`.
    pub delay_by: String,
    /// The hexes.
    pub site: Site,
    /// The server binary started, or the address reached.
    pub server: String,
    /// Figures by step (`move`, `step_empty`, `step_hidden_at`, `attack`).
    pub steps: BTreeMap<String, StepFigures>,
    /// `step_hidden_at` against `step_empty`, at the actor.
    pub ks_actor: Option<KsTest>,
    /// `step_hidden_at` against `step_empty`, at the spectator.
    pub ks_spectator: Option<KsTest>,
    /// Errors (each ends its game's trial).
    pub errors: u64,
    /// The first few.
    pub error_samples: Vec<String>,
    /// Actions refused (or ruled void).
    pub refusals: u64,
    /// The first few.
    pub refusal_samples: Vec<String>,
    /// `/proc/loadavg` before.
    pub loadavg_start: Option<String>,
    /// `/proc/loadavg` after.
    pub loadavg_end: Option<String>,
}

impl ProbeSummary {
    /// The summary as text.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut t = String::new();
        let _ = writeln!(
            t,
            "probe: {} games on {}; delay {} ms each way ({}); site: start {}, hub {}, empty {}, hidden A-T {}, hidden A-P {}",
            self.trials,
            self.server,
            self.delay_ms,
            self.delay_by,
            self.site.start,
            self.site.hub,
            self.site.empty,
            self.site.hidden_at,
            self.site.hidden_ap
        );
        for (name, f) in &self.steps {
            let _ = writeln!(
                t,
                "  {name:<15} n {:>4} | actor p50 {:>9.2} ms p99 {:>9.2} ms | spectator p50 {:>9.2} ms | {:.1} entries{}",
                f.actor_us.count,
                f.actor_us.p50 as f64 / 1000.0,
                f.actor_us.p99 as f64 / 1000.0,
                f.spectator_us.p50 as f64 / 1000.0,
                f.entries_per_action,
                f.round_trips_p50
                    .map(|r| format!(" | {r:.2} round trips (p50)"))
                    .unwrap_or_default()
            );
        }
        for (who, k) in [("actor", &self.ks_actor), ("spectator", &self.ks_spectator)] {
            if let Some(k) = k {
                let _ = writeln!(
                    t,
                    "  G3 timing, {who}: step_hidden_at vs step_empty: KS D {:.3}, p {:.3} (n {}, m {}): {}",
                    k.d,
                    k.p_value,
                    k.n,
                    k.m,
                    if k.p_value < 0.01 {
                        "DISTINGUISHABLE"
                    } else {
                        "not distinguishable at 1%"
                    }
                );
            }
        }
        let _ = writeln!(t, "  errors {}, refusals {}", self.errors, self.refusals);
        for e in self.error_samples.iter().chain(&self.refusal_samples) {
            let _ = writeln!(t, "    {e}");
        }
        t
    }
}

/// The samples as they come.
#[derive(Default)]
struct Samples {
    actor: BTreeMap<Step, Vec<u64>>,
    spectator: BTreeMap<Step, Vec<u64>>,
    entries: BTreeMap<Step, u64>,
    errors: Vec<String>,
    error_count: u64,
    refusals: Vec<String>,
    refusal_count: u64,
}

/// Everything a trial needs to reach the server.
struct Reach {
    addr: SocketAddr,
    trust: ServerTrust,
    pace: RateLimit,
    pad_len: u32,
}

/// One action; timed when `step` is given.
async fn act(
    bot: &mut Bot,
    side: Side,
    action: hexveil_asl::Action,
    step: Option<Step>,
    samples: &mut Samples,
) -> Result<bool, BotError> {
    match bot.act(side, action).await? {
        Outcome::Ruled {
            latency,
            entries,
            sent_at,
            ruling_seq,
            ..
        } => {
            if let Some(step) = step {
                let seen = bot.spectator_arrival(ruling_seq).await?;
                let us = |d: Duration| d.as_micros().min(u128::from(u64::MAX)) as u64;
                samples.actor.entry(step).or_default().push(us(latency));
                samples
                    .spectator
                    .entry(step)
                    .or_default()
                    .push(us(seen.saturating_duration_since(sent_at)));
                *samples.entries.entry(step).or_default() += entries;
            }
            Ok(true)
        }
        Outcome::Refused(reason) => {
            samples.refusal_count += 1;
            if samples.refusals.len() < crate::run::SAMPLES {
                samples
                    .refusals
                    .push(format!("{}: {reason}", step.map_or("untimed", Step::name)));
            }
            Ok(false)
        }
    }
}

/// One trial: a game opened, watched, and its timed steps.
async fn trial(
    reach: &Reach,
    game: &LoadGame,
    site: &Site,
    empty_first: bool,
    samples: &mut Samples,
) -> Result<(), BotError> {
    let mut bot = open_game_at(
        reach.addr,
        &reach.trust,
        reach.pace,
        game,
        reach.pad_len,
        true,
        None,
    )
    .await?;
    let result = steps(&mut bot, site, empty_first, samples).await;
    tokio::spawn(bot.close());
    result
}

async fn steps(
    bot: &mut Bot,
    site: &Site,
    empty_first: bool,
    samples: &mut Samples,
) -> Result<(), BotError> {
    let mut guard = 0;
    while !bot.in_a_movement() {
        let (side, action) = bot.end_phase();
        act(bot, side, action, None, samples).await?;
        guard += 1;
        if guard > 20 {
            return Err(BotError::Stuck(
                guard,
                "side A's Movement Phase never came".into(),
            ));
        }
    }
    let stack = [GER_SQUAD, GER_LEADER];
    let plan: Vec<(Vec<_>, &str, Option<Step>)> = {
        let (first, second) = if empty_first {
            (
                (&site.empty, Step::StepEmpty),
                (&site.hidden_at, Step::StepHiddenAt),
            )
        } else {
            (
                (&site.hidden_at, Step::StepHiddenAt),
                (&site.empty, Step::StepEmpty),
            )
        };
        vec![
            (vec![GER_PZ], TANK_ROUTE[1], Some(Step::Move)),
            (stack.to_vec(), &site.hub, None),
            (stack.to_vec(), first.0, Some(first.1)),
            (stack.to_vec(), &site.hub, None),
            (stack.to_vec(), second.0, Some(second.1)),
            (stack.to_vec(), &site.hub, None),
            (stack.to_vec(), &site.hidden_ap, Some(Step::Attack)),
        ]
    };
    for (units, hex, step) in plan {
        if !act(bot, Side::A, move_to(&units, hex), step, samples).await? {
            // A refusal: the rest of the plan no longer fits this game.
            return Ok(());
        }
    }
    Ok(())
}

fn latency(us: &[u64]) -> Latency {
    let mut h =
        Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid histogram bounds");
    for v in us {
        h.saturating_record((*v).max(1));
    }
    Latency::of(&h)
}

/// Runs the probe.
pub async fn run(opts: &ProbeOptions) -> Result<ProbeSummary, RunError> {
    let loadavg_start = server::loadavg();
    let (game, site) = probe_game()?;
    let pace = rate_limit(opts.pace)?;
    let reached = reach(&opts.target, opts.trials, opts.pace, opts.pad_len, false)?;
    let (addr, fingerprint) = (reached.addr, reached.fingerprint);
    let relay = if !opts.relay {
        None
    } else {
        Some(
            Relay::start(addr, opts.delay)
                .await
                .map_err(|e| RunError::Relay(e.to_string()))?,
        )
    };
    let reach = Reach {
        addr: relay.as_ref().map_or(addr, Relay::addr),
        trust: ServerTrust::Pinned(fingerprint),
        pace,
        pad_len: opts.pad_len,
    };
    let mut samples = Samples::default();
    let started = Instant::now();
    let mut last_note = Instant::now();
    for i in 0..opts.trials {
        if let Err(e) = trial(&reach, &game, &site, i % 2 == 0, &mut samples).await {
            samples.error_count += 1;
            if samples.errors.len() < crate::run::SAMPLES {
                samples.errors.push(e.to_string());
            }
        }
        if opts.progress && last_note.elapsed() >= Duration::from_secs(1) {
            last_note = Instant::now();
            eprintln!(
                "[{:>4.0} s] probe: {} of {} games | errors {} refusals {}",
                started.elapsed().as_secs_f64(),
                i + 1,
                opts.trials,
                samples.error_count,
                samples.refusal_count
            );
        }
    }
    drop(relay);
    let two_delays = 2.0 * opts.delay.as_secs_f64() * 1e6;
    let steps = Step::ALL
        .iter()
        .filter_map(|s| {
            let a = samples.actor.get(s)?;
            let l = latency(a);
            let rt = |us: u64| (two_delays > 0.0).then(|| us as f64 / two_delays);
            Some((
                s.name().to_string(),
                StepFigures {
                    round_trips_p50: rt(l.p50),
                    round_trips_max: rt(l.max),
                    entries_per_action: samples.entries.get(s).copied().unwrap_or(0) as f64
                        / a.len().max(1) as f64,
                    spectator_us: latency(samples.spectator.get(s).map_or(&[][..], |v| v)),
                    actor_us: l,
                },
            ))
        })
        .collect();
    let as_f64 = |v: Option<&Vec<u64>>| -> Vec<f64> {
        v.map(|v| v.iter().map(|x| *x as f64).collect())
            .unwrap_or_default()
    };
    let ks_of = |m: &BTreeMap<Step, Vec<u64>>| {
        ks::two_sample(
            &as_f64(m.get(&Step::StepHiddenAt)),
            &as_f64(m.get(&Step::StepEmpty)),
        )
    };
    Ok(ProbeSummary {
        trials: opts.trials,
        delay_ms: opts.delay.as_secs_f64() * 1000.0,
        delay_by: match (opts.delay.is_zero(), opts.relay) {
            (true, _) => "none",
            (false, true) => "relay",
            (false, false) => "path",
        }
        .into(),
        site,
        server: match &opts.target {
            Target::Spawn { bin, .. } => bin.display().to_string(),
            Target::Connect { addr, .. } => addr.to_string(),
        },
        steps,
        ks_actor: ks_of(&samples.actor),
        ks_spectator: ks_of(&samples.spectator),
        errors: samples.error_count,
        error_samples: samples.errors,
        refusals: samples.refusal_count,
        refusal_samples: samples.refusals,
        loadavg_start,
        loadavg_end: server::loadavg(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // B28.5, B28.41: the probe's game loads, its site's hexes are four
    // distinct neighbours of the hub, and both sides' secrets seal (the
    // added minefields are legal placements of side B).
    #[test]
    fn the_probe_game_loads_and_seals() {
        let (game, site) = probe_game().unwrap();
        let hexes = [&site.start, &site.empty, &site.hidden_at, &site.hidden_ap];
        let distinct: std::collections::BTreeSet<_> = hexes.iter().collect();
        assert_eq!(distinct.len(), 4, "{site:?}");
        assert!(!hexes.contains(&&site.hub));
        assert!(game
            .sealed_b
            .contains(&format!("\"{}\", strength = 12", site.hidden_ap)));
        assert!(game
            .sealed_b
            .contains(&format!("\"{}\", factors = 2", site.hidden_at)));
        game.secrets(Side::A).unwrap();
        game.secrets(Side::B).unwrap();
        assert!(game.setup_a.contains(&site.start));
    }
}
