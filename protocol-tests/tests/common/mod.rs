//! Game logs for the transcript and verifier tests and benches: honest games
//! played by the live [`Session`] and two protocol [`Player`]s (so every
//! entry is what the real server and clients write), and a [`Game`] builder
//! that appends hand-made entries on top of such a log (to play a cheating
//! player or a misbehaving server).

#![allow(dead_code)]

pub mod forge;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use hexveil_asl::{Action, Side};
use hexveil_protocol::encoding::{Digest, GameId, Party};
use hexveil_protocol::envelope::{
    next_head, Appended, Envelope, LogState, Receipt, SignedEnvelope, ENVELOPE_VERSION,
};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{self, Body, Mode, ToClient, Update};
use hexveil_protocol::pad::PadSeed;
use hexveil_protocol::player::{Player, Secrets};
use hexveil_protocol::referee::Awaiting;
use hexveil_protocol::referee::{Referee, RefereeError};
use hexveil_protocol::session::{GameParams, Output, Session, SessionError};
use hexveil_protocol::transcript::{LoggedEntry, Transcript};

pub use hexveil_fixtures::{
    scenario_toml_lasting, secrets, PAD_LEN, SEALED_A, SEALED_B, SETUP_A, SETUP_B,
};

/// The game id of the test games.
pub const GAME: GameId = GameId([7; 16]);

/// The server's pad seed in the test games.
pub const SERVER_PAD: PadSeed = PadSeed([9; 32]);

/// How a test game is set up: the example game unless a test changes it.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The scenario both players and the server agree on.
    pub scenario_toml: String,
    /// Side A's public setup.
    pub setup_a: String,
    /// Side B's sealed setup (its minefields).
    pub sealed_b: String,
    /// The seed fill of side A's secrets (its pad decides the dice too).
    pub a_fill: u8,
    /// Entries per pad epoch.
    pub pad_len: u32,
    /// Live or escrow (both players agree to it).
    pub mode: Mode,
    /// Whether side B's machine holds its Daisy Chain order (brit-squad-1
    /// pulls its chain across 3E5 when an enemy vehicle enters it); the
    /// scenario must allow Daisy Chains for it.
    pub daisy_order: bool,
    /// The ASL ruleset version the game is made at (the newest unless a
    /// test plays an older version's rules).
    pub ruleset_version: u32,
}

impl Setup {
    /// The example game of `turns` Game Turns, live, in which B seals
    /// `sealed_b`.
    pub fn example(turns: u32, sealed_b: &str) -> Setup {
        Setup {
            scenario_toml: scenario_toml_lasting(turns),
            setup_a: SETUP_A.to_string(),
            sealed_b: sealed_b.to_string(),
            a_fill: 20,
            pad_len: PAD_LEN,
            mode: Mode::Live,
            daisy_order: true,
            ruleset_version: hexveil_asl::ruleset::VERSION,
        }
    }

    /// As [`Setup::example`], with no Daisy Chain at all: the scenario
    /// gives side B none (B28.531 does not apply) and B's machine holds no
    /// order.
    pub fn without_daisy_chains(turns: u32, sealed_b: &str) -> Setup {
        let scenario = scenario_toml_lasting(turns);
        let without = scenario
            .replacen("daisy_chains = true", "daisy_chains = false", 1)
            .replacen(
                "daisy_chains = [{ holder = \"brit-squad-1\", factors = 2 }]",
                "",
                1,
            );
        assert_ne!(
            without, scenario,
            "the example scenario allows Daisy Chains"
        );
        Setup {
            scenario_toml: without,
            daisy_order: false,
            ..Setup::example(turns, sealed_b)
        }
    }
}

/// The parameters the server creates the game of `setup` with.
pub fn params(setup: &Setup) -> GameParams {
    let [a, b, _] = ids();
    GameParams {
        ruleset: hexveil_asl::ruleset::ID.into(),
        ruleset_version: setup.ruleset_version,
        scenario_toml: setup.scenario_toml.clone(),
        players: [a.public_key(), b.public_key()],
        mode: setup.mode,
        pad_len: setup.pad_len,
        answer_timeout_ms: 30_000,
    }
}

/// The three keys: side A, side B, the server.
pub fn ids() -> [Identity; 3] {
    [
        Identity::from_seed(&[1; 32]).unwrap(),
        Identity::from_seed(&[2; 32]).unwrap(),
        Identity::from_seed(&[3; 32]).unwrap(),
    ]
}

/// The server's session restored from `log` (the test games' server key
/// and pad seed), with the entries it still owed.
pub fn restore(log: &[LoggedEntry]) -> Result<(Session, Vec<Output>), SessionError> {
    let [_, _, server] = ids();
    Session::restore(
        log.to_vec(),
        &hexveil_fixtures::rulesets(),
        server,
        SERVER_PAD,
        0,
    )
}

/// A new session of `game` with `params`, by the server of [`ids`], at
/// time 0, and what it output (the genesis).
pub fn create(game: GameId, params: GameParams) -> (Session, Vec<Output>) {
    let [_, _, server] = ids();
    Session::create(
        game,
        params,
        &hexveil_fixtures::rulesets(),
        server,
        SERVER_PAD,
        0,
    )
    .unwrap()
}

/// The entries among `out` the server makes durable, in order.
pub fn persisted(out: &[Output]) -> Vec<LoggedEntry> {
    out.iter()
        .filter_map(|o| match o {
            Output::Persist(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// A live session and both players' machines.
pub struct Table {
    /// The server's session.
    pub session: Session,
    /// The players.
    pub players: BTreeMap<Side, Player>,
    /// What the session sent that is not delivered yet.
    pub queue: VecDeque<Output>,
    /// Entries the session refused, with its reason.
    pub rejections: Vec<(Side, String)>,
    /// Every update each side received, in order.
    pub seen: BTreeMap<Side, Vec<Update>>,
    /// Every update the spectators were sent, in order.
    pub spectated: Vec<Update>,
}

impl Table {
    /// Genesis, pads, the Secret dr for Dummies and both setups; B seals
    /// `sealed_b`.
    pub fn new(turns: u32, sealed_b: &str) -> Table {
        Table::with_mode(turns, sealed_b, Mode::Live)
    }

    /// As [`Table::new`], in a game of `mode` (both players agree to it).
    pub fn with_mode(turns: u32, sealed_b: &str, mode: Mode) -> Table {
        Table::open(Setup {
            mode,
            ..Setup::example(turns, sealed_b)
        })
    }

    /// As [`Table::new`], for any [`Setup`].
    pub fn open(setup: Setup) -> Table {
        let t = Table::start_setup(setup);
        assert_eq!(t.rejections, vec![], "an honest setup is accepted");
        t
    }

    /// As [`Table::with_mode`], keeping refusals in [`Table::rejections`]
    /// instead of failing (a side whose setup is refused stays unset).
    pub fn start(turns: u32, sealed_b: &str, mode: Mode) -> Table {
        Table::start_setup(Setup {
            mode,
            ..Setup::example(turns, sealed_b)
        })
    }

    /// As [`Table::open`], keeping refusals in [`Table::rejections`].
    pub fn start_setup(setup: Setup) -> Table {
        let [a, b, _] = ids();
        let (session, out) = create(GAME, params(&setup));
        let player = |id: Identity, secrets: Secrets| {
            Player::new(
                id,
                GAME,
                hexveil_fixtures::rulesets()
                    .find(hexveil_asl::ruleset::ID, setup.ruleset_version)
                    .expect("an ASL version of this build")
                    .as_ref(),
                &setup.scenario_toml,
                setup.pad_len,
                setup.mode,
                secrets,
            )
            .unwrap()
        };
        let pa = player(a, secrets(Side::A, &setup.setup_a, SEALED_A, setup.a_fill));
        let mut secrets_b = secrets(Side::B, SETUP_B, &setup.sealed_b, 40);
        if !setup.daisy_order {
            secrets_b.orders = Vec::new();
        }
        let pb = player(b, secrets_b);
        let mut t = Table {
            session,
            players: [(Side::A, pa), (Side::B, pb)].into_iter().collect(),
            queue: out.into(),
            rejections: Vec::new(),
            seen: BTreeMap::new(),
            spectated: Vec::new(),
        };
        t.run();
        t
    }

    /// Delivers everything queued: each update to its side's machine,
    /// whose answer goes to the session (and what that causes is delivered
    /// in turn); refusals are kept in [`Table::rejections`].
    pub fn run(&mut self) {
        while let Some(o) = self.queue.pop_front() {
            match o {
                Output::ToPlayer(side, ToClient::Update(u)) => {
                    let answer = self.players.get_mut(&side).unwrap().on_update(&u).unwrap();
                    self.seen.entry(side).or_default().push(u);
                    if let Some(env) = answer {
                        self.send(side, env);
                    }
                }
                Output::ToPlayer(side, ToClient::Rejected(r)) => {
                    self.rejections.push((side, r.reason));
                }
                Output::ToSpectators { seq } => match self.session.public_view(seq, &|_| None) {
                    Some(ToClient::Update(u)) => self.spectated.push(u),
                    other => panic!("entry {seq} has no public view: {other:?}"),
                },
                _ => {}
            }
        }
    }

    /// Submits `env` as `side`'s entry and queues what the session sends
    /// (delivered by [`Table::run`]).
    pub fn send(&mut self, side: Side, env: SignedEnvelope) {
        let out = self.session.submit(side, env, 0);
        self.queue.extend(out);
    }

    /// `side`'s machine signs `action` and submits it; what the session
    /// sends back, not delivered.
    pub fn declare(&mut self, side: Side, action: Action) -> Vec<Output> {
        let env = declare(&self.session, self.players.get_mut(&side).unwrap(), action);
        self.session.submit(side, env, 0)
    }

    /// The last update `side` received.
    pub fn last(&self, side: Side) -> &Update {
        self.seen[&side].last().expect("the side received updates")
    }

    /// `side` declares `action`; the machines answer everything it causes.
    pub fn act(&mut self, side: Side, action: Action) {
        let out = self.declare(side, action);
        self.queue.extend(out);
        self.run();
        assert_eq!(self.rejections, vec![], "honest entries are accepted");
    }

    /// Whether the referee waits for an action (the game is on).
    pub fn playing(&self) -> bool {
        matches!(self.session.referee().awaiting(), Awaiting::Action { .. })
    }

    /// The side that may end the phase ends it (A3.5: the defender in the
    /// DFPh, the phasing side otherwise).
    pub fn end_phase(&mut self) {
        let engine = self.session.referee().engine().unwrap();
        let side = hexveil_asl::turn::who_ends_phase(hexveil_fixtures::asl_state(engine));
        self.act(side, Action::EndPhase);
    }

    /// Ends phases until `phase`.
    pub fn end_phase_until(&mut self, phase: hexveil_asl::turn::Phase) {
        for _ in 0..40 {
            if hexveil_fixtures::asl_state(self.session.referee().engine().unwrap()).phase == phase
            {
                return;
            }
            self.end_phase();
        }
        panic!("never reached {phase:?}");
    }

    /// A's squad and leader step from 3E3 into 3E4 (hidden A-P 12): openings,
    /// beacon rolls and a ruling.
    pub fn step_into_the_minefield(&mut self) {
        self.end_phase_until(hexveil_asl::turn::Phase::Movement);
        self.act(Side::A, hexveil_fixtures::step_into_the_minefield());
    }

    /// Side A concedes; the server ends the game; both sides reveal.
    pub fn concede(&mut self) {
        let env = self.players.get_mut(&Side::A).unwrap().concede();
        self.send(Side::A, env);
        self.run();
        assert!(self.session.is_closed());
    }

    /// The log so far, as a [`Game`].
    pub fn game(&self) -> Game {
        Game::from_log(self.session.log().to_vec())
    }
}

/// `player`'s declaration of `action` in `session`'s game, with a nonce
/// from the log's length (PROTOCOL.md 7.1): the same game plays the same
/// dice, so tests can compare runs that differ in one hidden fact (G3) or
/// replay a game exactly.
pub fn declare(session: &Session, player: &mut Player, action: Action) -> SignedEnvelope {
    let n = session.referee().log().next_seq();
    let nonce = Digest::sha256(&n.to_be_bytes()).0;
    player.act_with_nonce(action, nonce)
}

/// A logged game to which hand-made entries can be appended.
pub struct Game {
    /// The game.
    pub game: GameId,
    /// Side A, side B, the server.
    pub ids: [Identity; 3],
    /// The log's state after the last entry.
    pub log: LogState,
    /// The entries.
    pub entries: Vec<LoggedEntry>,
}

impl Game {
    /// A game from a log.
    pub fn from_log(entries: Vec<LoggedEntry>) -> Game {
        let ids = ids();
        let mut g = Game {
            game: GAME,
            log: LogState::new(GAME, ids.iter().map(|i| i.public_key()).collect()),
            ids,
            entries: Vec::new(),
        };
        for e in entries {
            g.log.append(&e.envelope).unwrap();
            g.entries.push(e);
        }
        g
    }

    /// Keeps the first `n` entries.
    pub fn truncate(&self, n: usize) -> Game {
        Game::from_log(self.entries[..n].to_vec())
    }

    /// The index of the first entry whose body matches.
    pub fn find(&self, pred: impl Fn(Party, &Body) -> bool) -> Option<usize> {
        self.entries.iter().position(|e| {
            let env = e.envelope.envelope();
            let party = self
                .ids
                .iter()
                .position(|i| i.public_key() == env.author)
                .map(|i| Party::ALL[i])
                .unwrap();
            Body::decode(&env.body).is_ok_and(|b| pred(party, &b))
        })
    }

    /// The body of entry `i`.
    pub fn body(&self, i: usize) -> Body {
        Body::decode(&self.entries[i].envelope.envelope().body).unwrap()
    }

    /// Signs `body` as `who` on the current head and logs it with a receipt.
    pub fn push(&mut self, who: Party, body: &Body) {
        let env = self.envelope(who, message::encode(body));
        self.push_signed(env);
    }

    /// The envelope `who` would sign next for these body bytes.
    pub fn envelope(&self, who: Party, body: Vec<u8>) -> SignedEnvelope {
        let id = &self.ids[who.index()];
        Envelope {
            version: ENVELOPE_VERSION,
            game_id: self.game,
            author: id.public_key(),
            seq: self.log.next_seq(),
            prev_head: self.log.head(),
            body,
        }
        .sign(id)
    }

    /// Logs a signed envelope with the server's receipt, if the game's form
    /// wants one (PROTOCOL.md 6: not for the server's own entries from
    /// message version 5 on).
    pub fn push_signed(&mut self, env: SignedEnvelope) {
        let appended = self.log.append(&env).expect("test entries are in order");
        let receipt = self.receipt(&env, &appended);
        self.push_entry(env, receipt);
    }

    /// Logs an entry in the form the server writes: from message version
    /// 6 a player's entry the server's own follows has no receipt (the
    /// server's entry places it), and one another player's entry follows
    /// has one.
    fn push_entry(&mut self, env: SignedEnvelope, receipt: Option<Receipt>) {
        let server = self.ids[2].public_key();
        let places_by_next = self.genesis().is_some_and(|g| g.places_by_next());
        let by_server = env.envelope().author == server;
        if let Some(last) = self.entries.last_mut().filter(|_| places_by_next) {
            if last.envelope.envelope().author != server {
                last.receipt = match by_server {
                    true => None,
                    false => Some(Receipt::issue(&self.ids[2], self.game, &last.appended())),
                };
            }
        }
        self.entries.push(LoggedEntry {
            envelope: env,
            receipt,
        });
    }

    /// The genesis of entry 0, if it is one.
    fn genesis(&self) -> Option<hexveil_protocol::message::Genesis> {
        match Body::decode(&self.entries.first()?.envelope.envelope().body) {
            Ok(Body::Genesis(g)) => Some(g),
            _ => None,
        }
    }

    /// The receipt the server writes for `env` at `appended`, if any (a
    /// player's entry loses it if the server's entry follows:
    /// [`Game::push_entry`]).
    fn receipt(&self, env: &SignedEnvelope, appended: &Appended) -> Option<Receipt> {
        let by_server = env.envelope().author == self.ids[2].public_key();
        let receipts_server_entries = self.genesis().is_none_or(|g| g.receipts_server_entries());
        (!by_server || receipts_server_entries)
            .then(|| Receipt::issue(&self.ids[2], self.game, appended))
    }

    /// Logs an entry without any check: the server "receipts" whatever it
    /// is given at the next seq (a misbehaving server).
    pub fn push_unchecked(&mut self, env: SignedEnvelope) {
        let entry_hash = env.entry_hash();
        let seq = self.entries.len() as u64;
        let new_head = next_head(&self.log.head(), &entry_hash);
        let receipt = self.receipt(
            &env,
            &Appended {
                seq,
                entry_hash,
                new_head,
            },
        );
        self.log = LogState::resume(
            self.game,
            self.ids.iter().map(|i| i.public_key()).collect(),
            seq + 1,
            new_head,
        );
        self.push_entry(env, receipt);
    }

    /// The transcript file.
    pub fn bytes(&self) -> Vec<u8> {
        Transcript::new(self.entries.clone()).to_bytes().unwrap()
    }
}

/// An honest game: setup, a step into a minefield, `end_phases` more
/// actions (phase ends, while the game lasts), A's concession, both reveals.
pub fn honest_game(end_phases: u32) -> Game {
    let mut t = Table::new(5 + end_phases / 8, SEALED_B);
    t.step_into_the_minefield();
    for _ in 0..end_phases {
        if !t.playing() {
            break;
        }
        t.end_phase();
    }
    t.concede();
    t.game()
}

/// The tank's two hexes on board 4 (Open Ground, nothing sealed there):
/// [`long_game`] drives it between them.
pub const TANK_ROUTE: [&str; 2] = ["4E6", "4E7"];

/// The tank's MP in an MPh, 1 MP a step.
pub const TANK_STEPS: u32 = 14;

/// A long honest game of `actions` actions (at least; the last Game Turn's
/// phases run to the end of their MPh), for the verify-speed bench
/// (`benches/verify_scale.rs`): in each of side A's MPh the tank (with its
/// Rider) drives back and forth between [`TANK_ROUTE`]'s two hexes, one
/// step an action, for its 14 MP; every other phase ends at once; then A
/// concedes and both sides reveal. With `daisy_chains`, side B holds its
/// Daisy Chain and an order to pull it across 3E5, which the tank never
/// enters: every step of the tank and every end of B's fire phases is a
/// placement opportunity whose note B's machine opens (B28.531), so the
/// referee learns one more fact per opportunity. Without, the scenario
/// gives B no Daisy Chain.
pub fn long_game(actions: u32, daisy_chains: bool) -> Game {
    // About 30 actions a Game Turn (14 steps, 16 phase ends); room to spare.
    let turns = 4 + actions / 20;
    let setup = if daisy_chains {
        Setup::example(turns, SEALED_B)
    } else {
        Setup::without_daisy_chains(turns, SEALED_B)
    };
    let mut t = Table::open(setup);
    let tank = hexveil_fixtures::units::GER_PZ;
    let mut done = 0;
    let mut at = 0;
    while done < actions {
        assert!(t.playing(), "the game lasts {turns} Game Turns");
        let state = hexveil_fixtures::asl_state(t.session.referee().engine().unwrap());
        if state.phasing == Side::A && state.phase == hexveil_asl::turn::Phase::Movement {
            for _ in 0..TANK_STEPS {
                at ^= 1;
                t.act(
                    Side::A,
                    hexveil_fixtures::move_into(&[tank], TANK_ROUTE[at]),
                );
                done += 1;
            }
        }
        t.end_phase();
        done += 1;
    }
    t.concede();
    t.game()
}

/// The log of a game up to the first action (pads, the Secret dr, setups).
pub fn set_up_game() -> Game {
    Table::new(5, SEALED_B).game()
}

/// Every whole transcript among the fuzz seeds (games written by earlier
/// message versions among them), with its genesis.
pub fn seed_games() -> Vec<(
    hexveil_protocol::message::Genesis,
    hexveil_protocol::transcript::Transcript,
    Vec<u8>,
)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/transcript");
    let mut out = Vec::new();
    for f in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(f.unwrap().path()).unwrap();
        let Ok(t) = hexveil_protocol::transcript::Transcript::parse(&bytes) else {
            continue;
        };
        let Some(Ok(Body::Genesis(g))) = t
            .entries
            .first()
            .map(|e| Body::decode(&e.envelope.envelope().body))
        else {
            continue;
        };
        out.push((g, t, bytes));
    }
    out
}

/// Everything the referee shows, and its whole state in `Debug` form (which
/// includes the private state: pending rounds, wanted facts, roots...).
#[derive(Debug, PartialEq)]
pub struct Observed {
    next_seq: u64,
    head: String,
    awaiting: Awaiting,
    faults: String,
    result: String,
    engine_state: String,
    current_seq: Option<u64>,
    round: String,
    whole: String,
}

pub fn observe(r: &Referee) -> Observed {
    Observed {
        next_seq: r.log().next_seq(),
        head: format!("{:?}", r.log().head()),
        awaiting: r.awaiting().clone(),
        faults: format!("{:?}", r.faults()),
        result: format!("{:?}", r.result()),
        engine_state: format!("{:?}", r.engine().map(hexveil_fixtures::asl_state)),
        current_seq: r.current_seq(),
        round: format!("{:?}", r.round_position()),
        whole: format!("{r:?}"),
    }
}

/// The referee after the first `n` entries of `g`.
pub fn replay(g: &Game, n: usize) -> Referee {
    let (mut r, _) = Referee::new(&g.entries[0].envelope, &hexveil_fixtures::rulesets()).unwrap();
    for e in &g.entries[1..n] {
        r.accept(&e.envelope).unwrap();
    }
    r
}

/// The party that signed entry `i`.
fn author(g: &Game, i: usize) -> Party {
    let key = g.entries[i].envelope.envelope().author;
    Party::ALL[g.ids.iter().position(|id| id.public_key() == key).unwrap()]
}

/// `body` signed by `who` as the entry at the end of the first `i` entries.
fn sign_at(g: &Game, i: usize, who: Party, body: Vec<u8>) -> SignedEnvelope {
    let last = g.entries[i - 1].appended().new_head;
    Envelope {
        version: ENVELOPE_VERSION,
        game_id: g.game,
        author: g.ids[who.index()].public_key(),
        seq: i as u64,
        prev_head: last,
        body,
    }
    .sign(&g.ids[who.index()])
}

/// Wrong entries to offer in place of entry `i`.
fn wrong_entries(g: &Game, i: usize) -> Vec<SignedEnvelope> {
    let honest = g.entries[i].envelope.envelope();
    let who = author(g, i);
    let body = honest.body.clone();
    let mut out = vec![
        // A replay of the entry before.
        g.entries[i - 1].envelope.clone(),
    ];
    // A forged signature: the honest envelope signed by another key.
    let forger = Party::ALL[(who.index() + 1) % 3];
    out.push(honest.clone().sign(&g.ids[forger.index()]));
    // The honest body from the other parties.
    for other in Party::ALL.into_iter().filter(|p| *p != who) {
        out.push(sign_at(g, i, other, body.clone()));
    }
    // The honest body with one byte changed, at several places.
    let mut places = vec![0, 1, body.len() / 2, body.len() * 3 / 4, body.len() - 1];
    places.retain(|at| *at < body.len());
    places.dedup();
    for at in places {
        let mut bad = body.clone();
        bad[at] ^= 0x01;
        out.push(sign_at(g, i, who, bad));
    }
    // A list whose first items are right and whose last is not: the
    // referee refuses it only after taking in the first ones.
    match Body::decode(&body) {
        Ok(Body::Open(mut list)) if list.len() > 1 => {
            let first = list[0].clone();
            *list.last_mut().unwrap() = first;
            out.push(sign_at(g, i, who, message::encode(&Body::Open(list))));
        }
        Ok(Body::Transitions(mut list)) if list.len() > 1 => {
            let first = list[0].clone();
            *list.last_mut().unwrap() = first;
            out.push(sign_at(
                g,
                i,
                who,
                message::encode(&Body::Transitions(list)),
            ));
        }
        _ => {}
    }
    // Nearby entries of the log, out of their turn.
    for j in [i.saturating_sub(2), i - 1, i + 1, i + 2] {
        if j == 0 || j >= g.entries.len() {
            continue;
        }
        let (other_who, other_body) = (author(g, j), g.entries[j].envelope.envelope().body.clone());
        if other_who != who || other_body != body {
            out.push(sign_at(g, i, other_who, other_body));
        }
    }
    out
}

fn variant(e: &RefereeError) -> String {
    format!("{e:?}")
        .split(['(', ' ', '{'])
        .next()
        .unwrap()
        .to_string()
}

/// G6, a refused entry changes nothing: at every position of `g`, offers
/// the referee several wrong entries first (a replay, a forged signature,
/// the honest body signed by the other parties, the honest body with a byte
/// changed and re-signed, nearby entries out of their turn); each refusal
/// must leave the referee's whole state as it was, and the honest entry is
/// then accepted. Returns the referee after the whole log and the kinds of
/// refusal seen.
pub fn g6_check_every_position(g: &Game) -> (Referee, BTreeSet<String>) {
    let mut kinds = BTreeSet::new();
    let mut r = replay(g, 1);
    for i in 1..g.entries.len() {
        let mut refused = 0;
        for wrong in wrong_entries(g, i) {
            let before = observe(&r);
            match r.accept(&wrong) {
                Err(e) => {
                    refused += 1;
                    let after = observe(&r);
                    assert!(
                        before == after,
                        "G6: refusing a wrong entry {i} ({e}) changed the referee:\nbefore {before:#?}\nafter {after:#?}"
                    );
                    kinds.insert(variant(&e));
                }
                // Some wrong entries are acceptable (a reveal with a
                // wrong byte is a proven fault, not a refusal): start over.
                Ok(_) => r = replay(g, i),
            }
        }
        assert!(
            refused >= 4,
            "entry {i}: only {refused} wrong entries were refused"
        );
        r.accept(&g.entries[i].envelope)
            .unwrap_or_else(|e| panic!("entry {i} is refused after the wrong ones were: {e}"));
    }
    assert_eq!(
        format!("{r:?}"),
        format!("{:?}", replay(g, g.entries.len())),
        "the referee that refused wrong entries ends where a plain replay does"
    );
    (r, kinds)
}
