//! The game the bots play, and the bot that plays it.
//!
//! The game is ASL's example scenario ("Mine Alley", `examples/`), compiled
//! into the tool with `include_str!`: the scenario, side B's public and
//! sealed setups (hidden A-P 12 in 3E4, A-T mines in 3E5 and 3E6, Known
//! minefields, a Booby Trap level) are the repository's example files, so
//! the load is the game a player would set up from them. Three changes, all
//! public, to make it a stream of moves:
//!
//! - side A may also set up on board 3 (as the test fixtures allow), so
//!   its squad and leader start among the hexes side B may have mined;
//! - without `--daisy-chains` side B holds no Daisy Chain (the issue's
//!   figures are "the opponent without Daisy Chains unless said"); with it,
//!   every movement step also opens B's note for the opportunity (B28.531);
//! - side A's own setup ([`setup_a`]) is the tool's: the tank (with its
//!   Rider) on board 4, the squad and leader on board 4 (all moves
//!   untriggered) or on board 3 (moves that are mine steps).
//!
//! The test fixtures (`hexveil-fixtures`) hold the same game with fixed
//! seeds; they are test code, kept out of every release build by design,
//! and this tool is built in release mode. So the tool reads the example
//! files itself and makes each player's secrets as a real client does
//! ([`Secrets::generate`]: seeds from the system's random generator), which
//! also keeps fixed-seed secrets out of a binary.
//!
//! **What a move costs.** A move into a hex no sealed layer may hold is
//! *untriggered*: the action and its ruling, nothing asked. A step of
//! Infantry into or out of a hex where side B may have A-P mines (an
//! eligible hex of B's `ap` layer, DESIGN 3.1) is a *mine step*: B's
//! machine opens each such hex the first time the referee needs it (the
//! hex left, then the hex entered, B28.412) and each potential attack rolls
//! its DR in a beacon round (A's pad entry, B's, the server's roll), mined
//! or not (G3, ruling R28). The squad and leader walk a route of hexes
//! never entered before ([`mine_route`]), so every step opens the hex it
//! enters, through hexes that this sealed setup leaves unmined, so the
//! squad is never hurt and can always step again. That is the least a step
//! among hidden minefields costs: a step that meets mines adds the attack's
//! own rolls (the IFT result's Morale and Task Checks, B28.41, B28.9),
//! which these steps do not have.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hexveil::driver::{DriverError, GameEvent, RemotePlayer, Spectator};
use hexveil_asl::board::hex::Hex;
use hexveil_asl::board::terrain::HexInfo;
use hexveil_asl::model::scenario::Scenario as AslScenarioData;
use hexveil_asl::model::sealed::{Layer as AslLayer, Location as AslLocation};
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::ruleset::{AslPublic, AslScenario};
use hexveil_asl::setup::{eligible_locations, PublicSetup, SealedSetup};
use hexveil_asl::standing_orders::{self, DaisyOrder};
use hexveil_asl::turn::{phase_allows, Phase, TurnEvent, Who};
use hexveil_asl::{Action, EventKind, MoveMode, Side};
use hexveil_core::Ruleset;
use hexveil_net::wire::ErrorCode;
use hexveil_protocol::message::Update;
use hexveil_protocol::player::Secrets;
use thiserror::Error;
use tokio::sync::Notify;

/// The example scenario (`examples/scenario.toml`).
pub const EXAMPLE_SCENARIO: &str = include_str!("../../examples/scenario.toml");
/// Side B's public setup (`examples/setup-b.toml`).
pub const SETUP_B: &str = include_str!("../../examples/setup-b.toml");
/// Side B's sealed setup (`examples/sealed-b.toml`).
pub const SEALED_B: &str = include_str!("../../examples/sealed-b.toml");
/// Side A's sealed setup (`examples/sealed-a.toml`: A hides nothing).
pub const SEALED_A: &str = include_str!("../../examples/sealed-a.toml");

/// ger-squad-1 (scenario order).
pub const GER_SQUAD: UnitId = UnitId(0);
/// ger-leader.
pub const GER_LEADER: UnitId = UnitId(1);
/// ger-pz, with its Rider ger-hs-1.
pub const GER_PZ: UnitId = UnitId(2);
/// brit-squad-1, side B's Daisy Chain holder.
pub const BRIT_SQUAD: UnitId = UnitId(4);

/// The tank's two hexes on board 4 (Open Ground, 1 MP each, R57): nothing
/// sealed there, so every move is untriggered.
pub const TANK_ROUTE: [&str; 2] = ["4E6", "4E7"];
/// The squad and leader's two hexes on board 4 when their moves are
/// untriggered (Open Ground, 1 MF each).
pub const QUIET_ROUTE: [&str; 2] = ["4E5", "4E4"];
/// Where the squad and leader's route of mine steps starts ([`mine_route`]).
pub const MINE_ROUTE_START: &str = "3J7";
/// Hexes in the route of mine steps; a game's squad takes at most
/// [`STACK_STEPS`] a Game Turn, so the route outlasts the scenario's five
/// turns (the bot walks it back if a longer game reaches its end).
pub const MINE_ROUTE_LEN: usize = 64;

/// The tank's MP in its MPh (its `printed_mp`), 1 MP per step.
pub const TANK_STEPS: u32 = 14;
/// The squad's MF in its MPh when it starts stacked with the leader (A4.1:
/// 6), 1 MF per step.
pub const STACK_STEPS: u32 = 6;

/// How long a spectator waits for the next public update, and how long
/// [`Bot::spectator_arrival`] waits for one entry's.
pub const SPECTATOR_WAIT: Duration = Duration::from_secs(20);

/// Why the example game could not be made.
#[derive(Debug, Error)]
pub enum GameError {
    /// An example file no longer has the text the tool changes.
    #[error("examples/scenario.toml no longer contains `{0}`: update hexveil-load's game.rs")]
    ExampleChanged(&'static str),
    /// The ruleset refused the scenario or a setup.
    #[error("the load game does not load: {0}")]
    Load(String),
    /// No route of mine steps could be laid.
    #[error("the route of mine steps: {0}")]
    Route(String),
    /// The player's secrets could not be made.
    #[error("secrets: {0}")]
    Secrets(String),
}

/// What kind of action a bot declared (the summary counts each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A move into a hex nothing sealed may hold.
    Move,
    /// A step of Infantry between hexes side B may have mined.
    MineStep,
    /// The end of a phase.
    EndPhase,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 3] = [Kind::Move, Kind::MineStep, Kind::EndPhase];

    /// The name in the summary.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Move => "move",
            Kind::MineStep => "mine_step",
            Kind::EndPhase => "end_phase",
        }
    }
}

/// Which moves the bots make: the share of side A's moves that are mine
/// steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// No mine steps: the squad and leader stay on board 4.
    Untriggered,
    /// Only mine steps: the tank stays put.
    Mined,
    /// This percentage (0-100) of the moves are mine steps, the rest the
    /// tank's untriggered moves.
    Percent(u8),
}

impl Mix {
    /// Whether the squad and leader start on board 3 (among B's eligible
    /// hexes).
    pub fn stack_on_board_3(self) -> bool {
        !matches!(self, Mix::Untriggered | Mix::Percent(0))
    }

    /// The share of moves that are mine steps, 0 to 100.
    pub fn percent(self) -> u8 {
        match self {
            Mix::Untriggered => 0,
            Mix::Mined => 100,
            Mix::Percent(p) => p,
        }
    }
}

impl std::str::FromStr for Mix {
    type Err = String;
    fn from_str(s: &str) -> Result<Mix, String> {
        match s {
            "untriggered" => Ok(Mix::Untriggered),
            "mined" => Ok(Mix::Mined),
            other => match other.trim_end_matches('%').parse::<u8>() {
                Ok(p) if p <= 100 => Ok(Mix::Percent(p)),
                _ => Err(format!(
                    "`{other}` is not `untriggered`, `mined` or a percentage of mine steps from 0 to 100"
                )),
            },
        }
    }
}

impl std::fmt::Display for Mix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mix::Untriggered => f.write_str("untriggered"),
            Mix::Mined => f.write_str("mined"),
            Mix::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// The load game: scenario text and both sides' public setups.
#[derive(Clone, Debug)]
pub struct LoadGame {
    /// The scenario TOML.
    pub scenario_toml: String,
    /// Side A's public setup.
    pub setup_a: String,
    /// Whether side B holds its Daisy Chain (and orders it placed).
    pub daisy_chains: bool,
    /// The mix of moves.
    pub mix: Mix,
    /// The hexes the squad and leader walk through, in order (mine steps,
    /// or two hexes on board 4 back and forth when untriggered).
    pub stack_route: Vec<String>,
    /// Side B's sealed setup ([`SEALED_B`], or the probe's with its own
    /// hidden minefields: `crate::probe`).
    pub sealed_b: String,
}

fn replace_once(text: &str, from: &'static str, to: &str) -> Result<String, GameError> {
    if !text.contains(from) {
        return Err(GameError::ExampleChanged(from));
    }
    Ok(text.replacen(from, to, 1))
}

/// Side A's public setup: the tank on board 4, the squad and leader on
/// `stack` (the first hex of their route).
pub fn setup_a(stack: &str) -> String {
    format!(
        "side = \"A\"\n[positions]\nger-squad-1 = \"{stack}\"\nger-leader = \"{stack}\"\nger-pz = \"{}\"\n",
        TANK_ROUTE[0]
    )
}

impl LoadGame {
    /// The game for `mix`, with or without side B's Daisy Chain; checked
    /// by loading it with the ASL ruleset.
    pub fn new(mix: Mix, daisy_chains: bool) -> Result<LoadGame, GameError> {
        let mut scenario = replace_once(
            EXAMPLE_SCENARIO,
            "setup_area = { boards = [4] }",
            "setup_area = { boards = [3, 4] }",
        )?;
        if !daisy_chains {
            scenario = replace_once(&scenario, "daisy_chains = true", "daisy_chains = false")?;
            scenario = replace_once(
                &scenario,
                "daisy_chains = [{ holder = \"brit-squad-1\", factors = 2 }]",
                "",
            )?;
        }
        let s = hexveil_asl::ruleset::Asl
            .load(&scenario)
            .map_err(GameError::Load)?;
        let public_b = s.public_setup(Side::B, SETUP_B).map_err(GameError::Load)?;
        let stack_route = if mix.stack_on_board_3() {
            let asl = s
                .as_any()
                .downcast_ref::<AslScenario>()
                .ok_or_else(|| GameError::Load("not an ASL scenario".into()))?;
            let public_b = public_b
                .as_any()
                .downcast_ref::<AslPublic>()
                .ok_or_else(|| GameError::Load("not an ASL setup".into()))?;
            mine_route(&asl.scenario, &public_b.0)?
        } else {
            QUIET_ROUTE.iter().map(|h| h.to_string()).collect()
        };
        let game = LoadGame {
            setup_a: setup_a(&stack_route[0]),
            scenario_toml: scenario,
            daisy_chains,
            mix,
            stack_route,
            sealed_b: SEALED_B.to_string(),
        };
        s.public_setup(Side::A, &game.setup_a)
            .map_err(GameError::Load)?;
        Ok(game)
    }

    /// The same game lasting `turns` Game Turns instead of the example's
    /// five (issue 30: a drive in which no game ends or starts, so that
    /// the CPU an action is the action's, not its game's); checked by
    /// loading it with the ASL ruleset.
    pub fn with_turns(mut self, turns: u16) -> Result<LoadGame, GameError> {
        self.scenario_toml = replace_once(
            &self.scenario_toml,
            "turns = 5 ",
            &format!("turns = {turns} "),
        )?;
        hexveil_asl::ruleset::Asl
            .load(&self.scenario_toml)
            .map_err(GameError::Load)?;
        Ok(self)
    }

    /// Fresh secrets for `side`, as a real client makes them.
    pub fn secrets(&self, side: Side) -> Result<Secrets, GameError> {
        let scenario = hexveil_asl::ruleset::Asl
            .load(&self.scenario_toml)
            .map_err(GameError::Load)?;
        let layers = scenario.sealed_layers();
        let (public, sealed, orders) = match side {
            Side::A => (self.setup_a.clone(), SEALED_A.to_string(), Vec::new()),
            Side::B => {
                let orders = if self.daisy_chains {
                    standing_orders::encode(&[DaisyOrder {
                        holder: BRIT_SQUAD,
                        hex: "3E5".parse().expect("3E5 is a hex"),
                    }])
                } else {
                    Vec::new()
                };
                (SETUP_B.to_string(), self.sealed_b.clone(), orders)
            }
        };
        Secrets::generate(side, &layers, public, sealed, orders)
            .map_err(|e| GameError::Secrets(e.to_string()))
    }
}

/// The hexes of board 3 a route of quiet mine steps may use: Open Ground
/// with nothing else in it, eligible for side B's A-P mines, not Known,
/// unmined and with no A-T mines or Dummy in [`SEALED_B`], and not next to
/// a unit of side B.
pub fn quiet_mine_hexes(
    scenario: &AslScenarioData,
    public_b: &PublicSetup,
) -> Result<BTreeSet<Hex>, GameError> {
    let map = &scenario.map;
    let sealed = SealedSetup::from_toml(SEALED_B).map_err(|e| GameError::Load(e.to_string()))?;
    let eligible: BTreeSet<Hex> =
        eligible_locations(scenario, public_b, Side::B, AslLayer::AntiPersonnel)
            .into_iter()
            .filter_map(|l| match l {
                AslLocation::Hex(h) => Some(map.canonical(h)),
                _ => None,
            })
            .collect();
    let mut avoid: BTreeSet<Hex> = public_b.known_hexes(map);
    avoid.extend(sealed.ap.iter().map(|(h, _)| map.canonical(*h)));
    avoid.extend(sealed.at.iter().map(|(h, _)| map.canonical(*h)));
    avoid.extend(sealed.dummies.iter().map(|h| map.canonical(*h)));
    for h in public_b.positions.values() {
        avoid.insert(map.canonical(*h));
        avoid.extend(map.neighbors(*h).into_iter().map(|n| map.canonical(n)));
    }
    Ok(eligible
        .into_iter()
        .filter(|h| h.board == 3 && map.info(*h) == HexInfo::default() && !avoid.contains(h))
        .collect())
}

/// The squad and leader's route of mine steps: from [`MINE_ROUTE_START`],
/// [`MINE_ROUTE_LEN`] adjacent hexes of [`quiet_mine_hexes`], each entered
/// once. Walked greedily, always to the next hex with the fewest ways on
/// (Warnsdorff), so the walk does not box itself in.
pub fn mine_route(
    scenario: &AslScenarioData,
    public_b: &PublicSetup,
) -> Result<Vec<String>, GameError> {
    let map = &scenario.map;
    let quiet = quiet_mine_hexes(scenario, public_b)?;
    let fits = |h: Hex| quiet.contains(&h);
    let start: Hex = MINE_ROUTE_START
        .parse()
        .map_err(|e| GameError::Load(format!("{MINE_ROUTE_START}: {e}")))?;
    let start = map.canonical(start);
    if !fits(start) {
        return Err(GameError::Route(format!(
            "{MINE_ROUTE_START} is not an unmined eligible hex of side B"
        )));
    }
    let mut route = vec![start];
    let mut seen: BTreeSet<Hex> = route.iter().copied().collect();
    let ways_on = |h: Hex, seen: &BTreeSet<Hex>| {
        map.neighbors(h)
            .into_iter()
            .map(|n| map.canonical(n))
            .filter(|n| fits(*n) && !seen.contains(n))
            .count()
    };
    while route.len() < MINE_ROUTE_LEN {
        let here = *route.last().expect("the route starts with a hex");
        let next = map
            .neighbors(here)
            .into_iter()
            .map(|n| map.canonical(n))
            .filter(|n| fits(*n) && !seen.contains(n))
            .min_by_key(|n| (ways_on(*n, &seen), *n));
        let Some(next) = next else {
            return Err(GameError::Route(format!(
                "the walk from {MINE_ROUTE_START} boxed itself in after {} hexes",
                route.len()
            )));
        };
        seen.insert(next);
        route.push(next);
    }
    Ok(route.iter().map(|h| h.to_string()).collect())
}

/// Why a bot stopped playing its game (every one counts as an error).
#[derive(Debug, Error)]
pub enum BotError {
    /// The driver failed (connection, decoding, a wait that ran out...).
    #[error("side {side}: {source}")]
    Driver {
        /// The seat.
        side: Side,
        /// What failed.
        source: DriverError,
    },
    /// The server reported an error on a seat's connection.
    #[error("side {side}: the server said {code:?}: {message}")]
    Server {
        /// The seat.
        side: Side,
        /// Its code.
        code: ErrorCode,
        /// Its message.
        message: String,
    },
    /// The server removed a seat from the game.
    #[error("side {0}: the server removed the seat from the game")]
    Left(Side),
    /// Opening a game failed before both seats were taken.
    #[error("opening a game: {what}: {source}")]
    Open {
        /// The step that failed.
        what: &'static str,
        /// What failed.
        source: DriverError,
    },
    /// The game or a player's secrets could not be made.
    #[error(transparent)]
    Game(#[from] GameError),
    /// The spectator's task stopped, or saw no update in time.
    #[error("the spectator: {0}")]
    SpectatorStopped(String),
    /// A spectator's arrival was asked of a bot without one.
    #[error("no spectator watches this game")]
    NoSpectator,
    /// Refusal after refusal: the bot's plan no longer fits the game.
    #[error("stuck: {0} refusals in a row, the last: {1}")]
    Stuck(u32, String),
}

/// How one declared action went.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Ruled: from the signed action out to its ruling back at the actor,
    /// and how many log entries it took (the action, openings, pad
    /// entries, rolls, the ruling).
    Ruled {
        /// The latency.
        latency: Duration,
        /// Log entries from the action to its ruling, both included.
        entries: u64,
        /// Length of the action's signed bytes (what the server verifies).
        signed_len: usize,
        /// When the bot signed the action.
        sent_at: Instant,
        /// The ruling's seq.
        ruling_seq: u64,
    },
    /// Refused (nothing logged), or ruled void after its dice: the reason.
    Refused(String),
}

/// Both seats of one game, pumped together, and side A's plan of moves.
pub struct Bot {
    a: RemotePlayer,
    b: RemotePlayer,
    /// (turn, phasing, phase) from the public phase events.
    phase: Option<(u16, Side, Phase)>,
    mix: Mix,
    stack_route: Vec<String>,
    stack_steps_left: u32,
    tank_steps_left: u32,
    /// Index of the stack's hex in its route, and whether it walks it
    /// forward.
    stack_at: usize,
    stack_forward: bool,
    tank_at: usize,
    /// Bresenham accumulator of the mix's percentage.
    mix_acc: u32,
    /// What the spectator's own task ([`Bot::watch_with`]) saw.
    spectator: Option<Arc<SpectatorLog>>,
    /// That task.
    spectator_task: Option<tokio::task::JoinHandle<()>>,
}

/// What a spectator's task saw: when each public update reached it, by
/// seq, and why it stopped, if it did.
#[derive(Default)]
pub struct SpectatorLog {
    seen: Mutex<(BTreeMap<u64, Instant>, Option<String>)>,
    news: Notify,
}

impl Bot {
    /// A bot over two seats just taken in a game of `game`.
    pub fn new(a: RemotePlayer, b: RemotePlayer, game: &LoadGame) -> Bot {
        Bot {
            a,
            b,
            phase: None,
            mix: game.mix,
            stack_route: game.stack_route.clone(),
            stack_steps_left: 0,
            tank_steps_left: 0,
            stack_at: 0,
            stack_forward: true,
            tank_at: 0,
            mix_acc: 0,
            spectator: None,
            spectator_task: None,
        }
    }

    /// The game's id.
    pub fn game_id(&self) -> hexveil_protocol::encoding::GameId {
        self.a.game_id()
    }

    /// Each side's first log seq not yet seen (a `Join`'s `resume_from`:
    /// taking the seat again re-sends nothing already seen).
    pub fn resume_from(&self) -> [(Side, u64); 2] {
        [&self.a, &self.b].map(|p| (p.side(), p.last_seq().map_or(0, |s| s + 1)))
    }

    /// Reads `spectator` on a task of its own from now on, noting when
    /// each public update reaches it ([`Bot::spectator_arrival`]); the task
    /// ends with the connection.
    pub fn watch_with(&mut self, mut spectator: Spectator) {
        let log = Arc::new(SpectatorLog::default());
        self.spectator = Some(log.clone());
        // An idle spectator waits as long as the game lasts.
        spectator.set_wait(SPECTATOR_WAIT);
        self.spectator_task = Some(tokio::spawn(async move {
            let stop = loop {
                match spectator.next_event().await {
                    Ok(GameEvent::Update(u)) => {
                        let now = Instant::now();
                        log.seen
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .0
                            .entry(u.seq)
                            .or_insert(now);
                        log.news.notify_waiters();
                    }
                    Ok(GameEvent::ServerError { code, message }) => {
                        break format!("the server said {code:?}: {message}")
                    }
                    Ok(GameEvent::Left) => break "removed from the game".to_string(),
                    Ok(_) => {}
                    Err(e) => break e.to_string(),
                }
                if spectator.is_closed() {
                    break "the log is closed".to_string();
                }
            };
            log.seen.lock().unwrap_or_else(|p| p.into_inner()).1 = Some(stop);
            log.news.notify_waiters();
            spectator.close().await;
        }));
    }

    /// When the public update of entry `seq` (or the first after it)
    /// reached the spectator: pumps until it has (the spectator must be
    /// watching).
    pub async fn spectator_arrival(&self, seq: u64) -> Result<Instant, BotError> {
        let log = self.spectator.as_ref().ok_or(BotError::NoSpectator)?;
        let deadline = tokio::time::Instant::now() + SPECTATOR_WAIT;
        loop {
            let news = log.news.notified();
            {
                let seen = log.seen.lock().unwrap_or_else(|p| p.into_inner());
                // The first public update at or after `seq` (one update
                // may carry several entries' views).
                if let Some((_, t)) = seen.0.range(seq..).next() {
                    return Ok(*t);
                }
                if let Some(why) = &seen.1 {
                    return Err(BotError::SpectatorStopped(why.clone()));
                }
            }
            if tokio::time::timeout_at(deadline, news).await.is_err() {
                let last = log
                    .seen
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .0
                    .keys()
                    .next_back()
                    .copied();
                return Err(BotError::SpectatorStopped(format!(
                    "no public update of entry {seq} within {} s (the last: {last:?})",
                    SPECTATOR_WAIT.as_secs()
                )));
            }
        }
    }

    fn seat(&mut self, side: Side) -> &mut RemotePlayer {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// Whether both seats have seen the log close (the end and both
    /// reveals).
    pub fn over(&self) -> bool {
        self.a.is_closed() && self.b.is_closed()
    }

    /// The finished game's transcript: as side A's seat received it, or
    /// fetched from the server if it has not come yet.
    pub async fn transcript(&mut self) -> Result<Vec<u8>, BotError> {
        if let Some(t) = self.a.transcript() {
            return Ok(t.to_vec());
        }
        self.a
            .fetch_transcript()
            .await
            .map_err(|source| BotError::Driver {
                side: Side::A,
                source,
            })
    }

    fn seq(&self) -> u64 {
        self.a
            .last_seq()
            .unwrap_or(0)
            .max(self.b.last_seq().unwrap_or(0))
    }

    /// Both seats have seen entry `seq` and the same entries, and a side
    /// may act.
    fn quiet_after(&self, seq: u64) -> bool {
        let a = self.a.last_seq();
        a == self.b.last_seq()
            && a.is_some_and(|s| s >= seq)
            && (self.a.may_act() || self.b.may_act())
    }

    /// One event from whichever seat has one.
    async fn next(&mut self) -> Result<(Side, GameEvent), BotError> {
        let (side, event) = tokio::select! {
            e = self.a.next_event() => (Side::A, e),
            e = self.b.next_event() => (Side::B, e),
        };
        let event = event.map_err(|source| BotError::Driver { side, source })?;
        match &event {
            GameEvent::Update(u) => self.note_phase(u),
            GameEvent::ServerError { code, message } => {
                return Err(BotError::Server {
                    side,
                    code: *code,
                    message: message.clone(),
                })
            }
            GameEvent::Left => return Err(BotError::Left(side)),
            _ => {}
        }
        Ok((side, event))
    }

    /// Keeps the phase from the public phase events; a new MPh of side A
    /// gives its units their MF (MP) again.
    fn note_phase(&mut self, u: &Update) {
        for e in &u.events {
            let Ok(asl) = hexveil_asl::ruleset::event_from_kernel(e) else {
                continue;
            };
            if let EventKind::Turn(TurnEvent::PhaseBegins {
                turn,
                phasing,
                phase,
            }) = asl.kind
            {
                if self.phase != Some((turn, phasing, phase))
                    && phasing == Side::A
                    && phase == Phase::Movement
                {
                    self.stack_steps_left = STACK_STEPS;
                    self.tank_steps_left = if self.mix == Mix::Mined {
                        0
                    } else {
                        TANK_STEPS
                    };
                }
                self.phase = Some((turn, phasing, phase));
            }
        }
    }

    /// Pumps until a side may act and both seats have seen the same
    /// entries, or the game is over.
    pub async fn settle(&mut self) -> Result<(), BotError> {
        let seq = self.seq();
        while !(self.quiet_after(seq) || self.over()) {
            self.next().await?;
        }
        Ok(())
    }

    /// The side whose `EndPhase` ends the current phase: the defender in
    /// the Defensive Fire Phase (A3.5), the phasing side otherwise.
    fn ender(&self) -> Side {
        let Some((_, phasing, phase)) = self.phase else {
            return if self.b.may_act() { Side::B } else { Side::A };
        };
        match phase_allows(&Action::EndPhase, phase) {
            Ok(Who::NonPhasing) => phasing.opponent(),
            _ => phasing,
        }
    }

    /// Whether it is side A's Movement Phase.
    pub fn in_a_movement(&self) -> bool {
        matches!(self.phase, Some((_, Side::A, Phase::Movement)))
    }

    /// The end of the current phase, by the side that ends it.
    pub fn end_phase(&self) -> (Side, Action) {
        (self.ender(), Action::EndPhase)
    }

    /// The next action: in side A's MPh a move while MF (MP) last, chosen
    /// by the mix; otherwise the end of the phase.
    pub fn choose(&mut self) -> (Side, Action, Kind) {
        let in_a_mph = matches!(self.phase, Some((_, Side::A, Phase::Movement)));
        if in_a_mph {
            let want_mine = if self.mix.stack_on_board_3() {
                self.mix_acc += u32::from(self.mix.percent());
                if self.mix_acc >= 100 {
                    self.mix_acc -= 100;
                    true
                } else {
                    false
                }
            } else {
                false
            };
            let stack_ok = self.stack_steps_left > 0;
            let tank_ok = self.tank_steps_left > 0;
            // The stack moves when the mix wants a mine step (or, on board
            // 4, as another untriggered mover); the tank otherwise.
            let use_stack = match (stack_ok, tank_ok) {
                (true, true) => want_mine || !self.mix.stack_on_board_3(),
                (s, _) => s,
            };
            if use_stack && stack_ok {
                self.stack_steps_left -= 1;
                let kind = if self.mix.stack_on_board_3() {
                    Kind::MineStep
                } else {
                    Kind::Move
                };
                return (
                    Side::A,
                    move_to(&[GER_SQUAD, GER_LEADER], self.next_stack_hex()),
                    kind,
                );
            }
            if tank_ok {
                self.tank_steps_left -= 1;
                self.tank_at ^= 1;
                return (
                    Side::A,
                    move_to(&[GER_PZ], TANK_ROUTE[self.tank_at]),
                    Kind::Move,
                );
            }
        }
        (self.ender(), Action::EndPhase, Kind::EndPhase)
    }

    /// The stack's next hex: along its route, and back at either end.
    fn next_stack_hex(&mut self) -> &str {
        let last = self.stack_route.len().saturating_sub(1);
        if self.stack_forward && self.stack_at >= last {
            self.stack_forward = false;
        } else if !self.stack_forward && self.stack_at == 0 {
            self.stack_forward = true;
        }
        self.stack_at = if self.stack_forward {
            (self.stack_at + 1).min(last)
        } else {
            self.stack_at.saturating_sub(1)
        };
        &self.stack_route[self.stack_at]
    }

    /// `side` declares `action`; pumps both seats until its ruling (or
    /// refusal) reached `side` and the game is quiet again (or over).
    pub async fn act(&mut self, side: Side, action: Action) -> Result<Outcome, BotError> {
        let t0 = Instant::now();
        let env = self
            .seat(side)
            .act(action)
            .map_err(|source| BotError::Driver { side, source })?;
        let seq = env.envelope().seq;
        let mut outcome: Option<(Outcome, u64)> = None;
        loop {
            if let Some((o, quiet_at)) = &outcome {
                if self.quiet_after(*quiet_at) || self.over() {
                    return Ok(o.clone());
                }
            }
            let (who, event) = self.next().await?;
            if who != side || outcome.is_some() {
                continue;
            }
            match event {
                GameEvent::Update(u) if u.seq > seq && u.entry == "ruling" => {
                    let latency = t0.elapsed();
                    let void = u.events.iter().find_map(|e| match &e.kind {
                        hexveil_core::EventKind::Void { reason } => Some(reason.clone()),
                        _ => None,
                    });
                    let o = match void {
                        Some(reason) => Outcome::Refused(format!("void ruling: {reason}")),
                        None => Outcome::Ruled {
                            latency,
                            entries: u.seq - seq + 1,
                            signed_len: env.bytes().len(),
                            sent_at: t0,
                            ruling_seq: u.seq,
                        },
                    };
                    outcome = Some((o, u.seq));
                }
                GameEvent::Rejected(r) => {
                    outcome = Some((Outcome::Refused(r.reason), seq.saturating_sub(1)));
                }
                _ => {}
            }
        }
    }

    /// Closes both connections (the seats stay taken on the server until
    /// it notices).
    pub async fn close(self) {
        let Bot {
            a,
            b,
            spectator_task,
            ..
        } = self;
        if let Some(t) = spectator_task {
            t.abort();
        }
        tokio::join!(a.close(), b.close());
    }
}

/// A normal move of `units` into `hex`.
pub fn move_to(units: &[UnitId], hex: &str) -> Action {
    Action::Move {
        units: units.to_vec(),
        to: hex
            .parse()
            .expect("the routes are hexes of the example's map"),
        mode: MoveMode::Normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_game_loads_for_every_mix() {
        for mix in [Mix::Untriggered, Mix::Mined, Mix::Percent(30)] {
            for daisy in [false, true] {
                let g = LoadGame::new(mix, daisy).unwrap();
                let want = if mix.stack_on_board_3() {
                    MINE_ROUTE_LEN
                } else {
                    2
                };
                assert_eq!(g.stack_route.len(), want);
                g.secrets(Side::A).unwrap();
                g.secrets(Side::B).unwrap();
                assert_eq!(g.scenario_toml.contains("holder"), daisy);
            }
        }
    }

    #[test]
    fn a_longer_game_still_loads_with_its_turns() {
        // Issue 30: a drive in which no game ends needs games longer than
        // the example's five Game Turns.
        let g = LoadGame::new(Mix::Untriggered, false)
            .unwrap()
            .with_turns(60)
            .unwrap();
        assert!(
            g.scenario_toml.contains("turns = 60 "),
            "{}",
            g.scenario_toml
        );
        g.secrets(Side::A).unwrap();
    }

    #[test]
    fn mix_parses_and_refuses() {
        assert_eq!("untriggered".parse::<Mix>(), Ok(Mix::Untriggered));
        assert_eq!("mined".parse::<Mix>(), Ok(Mix::Mined));
        assert_eq!("25".parse::<Mix>(), Ok(Mix::Percent(25)));
        assert_eq!("25%".parse::<Mix>(), Ok(Mix::Percent(25)));
        assert!("101".parse::<Mix>().unwrap_err().contains("`101`"));
        assert!("some".parse::<Mix>().is_err());
    }
}
