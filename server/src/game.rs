//! The hexveil game as a [`GameSession`]: the protocol's sans-IO
//! [`Session`] (referee, beacon, rulings) behind the shell's seam.
//!
//! A game waits until both seats are taken; then the session writes its
//! genesis naming both players' keys, and every entry after it is a
//! [`LoggedEntry`] the shell stores before it sends anything that follows
//! (G6). Players receive padded [`ToClient`] messages (G3); spectators the
//! public view. The server's transcript key and the master secret its pad
//! seeds derive from live in the data directory and survive restarts.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use hexveil_core::Side as CoreSide;
use hexveil_protocol::encoding::{GameId as ProtoGameId, TupleEncoder};
use hexveil_protocol::identity::{Identity, PublicKey};
use hexveil_protocol::message::{
    decode_limited, decode_to_server, encode, encode_padded, LoggedEntry, Mode, ToClient, ToServer,
    MAX_MESSAGE_LEN,
};
use hexveil_protocol::pad::{PadSeed, DEFAULT_PAD_LEN};
use hexveil_protocol::rules;
use hexveil_protocol::session::{GameParams, Output, Session};
use hexveil_protocol::transcript;

use crate::session::{Effect, GameSession, Participant, Recipient, Rejection, SessionFactory};
use crate::wire::{GameId, PlayerKey, Role, Side};

/// File names in the data directory.
const TRANSCRIPT_KEY_FILE: &str = "transcript-key.pk8";
const PAD_MASTER_FILE: &str = "pad-master.key";

/// Why the game factory could not start.
#[derive(Debug, thiserror::Error)]
pub enum GameSetupError {
    /// A key file could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A key file is not valid.
    #[error("{path} is not a valid key file: {reason}")]
    BadKey {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Makes hexveil games.
pub struct HexveilFactory {
    server: Identity,
    pkcs8: Vec<u8>,
    pad_master: [u8; 32],
    answer_timeout_ms: u64,
    pad_len: u32,
}

impl HexveilFactory {
    /// Loads (or creates on first start) the transcript key and pad master
    /// secret in `data_dir`. Files are written durably before use.
    pub fn open(data_dir: &Path, answer_timeout_ms: u64) -> Result<HexveilFactory, GameSetupError> {
        fs::create_dir_all(data_dir).map_err(|source| GameSetupError::Io {
            action: "create the data directory",
            path: data_dir.to_path_buf(),
            source,
        })?;
        let key_path = data_dir.join(TRANSCRIPT_KEY_FILE);
        let pkcs8 = load_or_create(&key_path, || {
            Identity::generate_pkcs8().map_err(|e| e.to_string())
        })?;
        let server = Identity::from_pkcs8(&pkcs8).map_err(|e| GameSetupError::BadKey {
            path: key_path.clone(),
            reason: e.to_string(),
        })?;
        let master_path = data_dir.join(PAD_MASTER_FILE);
        let master = load_or_create(&master_path, || {
            hexveil_protocol::player::random32()
                .map(|b| b.to_vec())
                .map_err(|e| e.to_string())
        })?;
        let pad_master: [u8; 32] = master.try_into().map_err(|_| GameSetupError::BadKey {
            path: master_path,
            reason: "not 32 bytes".into(),
        })?;
        Ok(HexveilFactory {
            server,
            pkcs8,
            pad_master,
            answer_timeout_ms,
            pad_len: DEFAULT_PAD_LEN,
        })
    }

    /// Uses shorter pads (tests).
    pub fn with_pad_len(mut self, pad_len: u32) -> HexveilFactory {
        self.pad_len = pad_len;
        self
    }

    /// The server's transcript key (published in every genesis).
    pub fn transcript_key(&self) -> PublicKey {
        self.server.public_key()
    }

    fn identity(&self) -> Identity {
        Identity::from_pkcs8(&self.pkcs8).expect("loaded once already")
    }

    /// The server's pad seed for a game: derived from the master secret, so
    /// a restart rebuilds the same pad (and nobody else can).
    fn pad_seed(&self, game_id: &ProtoGameId) -> PadSeed {
        PadSeed(
            TupleEncoder::new("hexveil/v1/server-pad")
                .game_id(game_id)
                .hmac(&self.pad_master),
        )
    }
}

fn load_or_create(
    path: &Path,
    make: impl FnOnce() -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, GameSetupError> {
    match fs::read(path) {
        Ok(bytes) => return Ok(bytes),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(GameSetupError::Io {
                action: "read",
                path: path.to_path_buf(),
                source: e,
            })
        }
        Err(_) => {}
    }
    let bytes = make().map_err(|reason| GameSetupError::BadKey {
        path: path.to_path_buf(),
        reason,
    })?;
    let io = |action, source| GameSetupError::Io {
        action,
        path: path.to_path_buf(),
        source,
    };
    let tmp = path.with_extension("tmp");
    let mut f = fs::File::create(&tmp).map_err(|e| io("create", e))?;
    f.write_all(&bytes).map_err(|e| io("write", e))?;
    f.sync_all().map_err(|e| io("sync", e))?;
    fs::rename(&tmp, path).map_err(|e| io("rename", e))?;
    if let Some(dir) = path.parent() {
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(bytes)
}

impl SessionFactory for HexveilFactory {
    fn create(&self, game_id: GameId, scenario: &[u8]) -> Result<Box<dyn GameSession>, Rejection> {
        let toml = std::str::from_utf8(scenario)
            .map_err(|_| Rejection("the scenario is not UTF-8 text".into()))?;
        rules::parse_scenario(toml).map_err(|e| Rejection(format!("scenario: {e}")))?;
        Ok(Box::new(HexveilGame {
            game_id: ProtoGameId(game_id.0),
            scenario_toml: toml.to_string(),
            seats: [None, None],
            session: None,
            server_pkcs8: self.pkcs8.clone(),
            pad_seed: self.pad_seed(&ProtoGameId(game_id.0)),
            answer_timeout_ms: self.answer_timeout_ms,
            pad_len: self.pad_len,
        }))
    }

    fn restore(
        &self,
        game_id: GameId,
        scenario: &[u8],
        events: &[Vec<u8>],
    ) -> Result<Box<dyn GameSession>, Rejection> {
        let mut game = self.create(game_id, scenario)?;
        if events.is_empty() {
            return Ok(game);
        }
        let log: Vec<LoggedEntry> = events
            .iter()
            .enumerate()
            .map(|(i, bytes)| {
                decode_limited(bytes, MAX_MESSAGE_LEN, "stored log entry")
                    .map_err(|e| Rejection(format!("stored entry {i}: {e}")))
            })
            .collect::<Result<_, _>>()?;
        let session = Session::restore(
            log,
            self.identity(),
            self.pad_seed(&ProtoGameId(game_id.0)),
            0,
        )
        .map_err(|e| Rejection(e.to_string()))?;
        let players = session.referee().genesis().players;
        // Downcast-free: rebuild the concrete game with its session.
        game = Box::new(HexveilGame {
            game_id: ProtoGameId(game_id.0),
            scenario_toml: String::from_utf8_lossy(scenario).into_owned(),
            seats: [Some(PlayerKey(players[0].0)), Some(PlayerKey(players[1].0))],
            session: Some(session),
            server_pkcs8: self.pkcs8.clone(),
            pad_seed: self.pad_seed(&ProtoGameId(game_id.0)),
            answer_timeout_ms: self.answer_timeout_ms,
            pad_len: self.pad_len,
        });
        Ok(game)
    }
}

/// One hexveil game behind the shell.
pub struct HexveilGame {
    game_id: ProtoGameId,
    scenario_toml: String,
    seats: [Option<PlayerKey>; 2],
    session: Option<Session>,
    server_pkcs8: Vec<u8>,
    pad_seed: PadSeed,
    answer_timeout_ms: u64,
    pad_len: u32,
}

fn core_side(side: Side) -> CoreSide {
    match side {
        Side::First => CoreSide::A,
        Side::Second => CoreSide::B,
    }
}

fn wire_side(side: CoreSide) -> Side {
    match side {
        CoreSide::A => Side::First,
        CoreSide::B => Side::Second,
    }
}

fn seat_index(side: Side) -> usize {
    match side {
        Side::First => 0,
        Side::Second => 1,
    }
}

impl HexveilGame {
    fn effects(&self, outputs: Vec<Output>) -> Vec<Effect> {
        let mut effects = Vec::new();
        for o in outputs {
            match o {
                Output::Persist(entry) => effects.push(Effect::Append(encode(&entry))),
                Output::ToPlayer(side, msg) => effects.push(Effect::Send {
                    to: Recipient::Player(wire_side(side)),
                    payload: encode_padded(&msg),
                }),
                Output::ToSpectators(msg) => effects.push(Effect::Send {
                    to: Recipient::Spectators,
                    payload: encode_padded(&msg),
                }),
            }
        }
        if let Some(session) = &self.session {
            if session.is_closed() {
                let file = transcript::Transcript {
                    entries: session.log().to_vec(),
                }
                .to_bytes()
                .unwrap_or_default();
                let result = session.referee().result().map(encode).unwrap_or_default();
                effects.push(Effect::Send {
                    to: Recipient::Players,
                    payload: encode_padded(&ToClient::Transcript(file.clone())),
                });
                effects.push(Effect::Send {
                    to: Recipient::Spectators,
                    payload: encode_padded(&ToClient::Transcript(file.clone())),
                });
                effects.push(Effect::Finish {
                    result,
                    transcript: file,
                });
            }
        }
        effects
    }

    fn start(&mut self) -> Result<Vec<Effect>, Rejection> {
        let (Some(a), Some(b)) = (self.seats[0], self.seats[1]) else {
            return Ok(Vec::new());
        };
        let params = GameParams {
            scenario_toml: self.scenario_toml.clone(),
            players: [PublicKey(a.0), PublicKey(b.0)],
            mode: Mode::Live,
            pad_len: self.pad_len,
            answer_timeout_ms: self.answer_timeout_ms,
        };
        let server =
            Identity::from_pkcs8(&self.server_pkcs8).map_err(|e| Rejection(e.to_string()))?;
        let (session, out) = Session::create(self.game_id, params, server, self.pad_seed, 0)
            .map_err(|e| Rejection(e.to_string()))?;
        self.session = Some(session);
        Ok(self.effects(out))
    }
}

impl GameSession for HexveilGame {
    fn admit(&mut self, who: &Participant) -> Result<Vec<Effect>, Rejection> {
        match who.role {
            Role::Spectator => {
                let mut effects = Vec::new();
                if let Some(session) = &self.session {
                    for msg in session.public_resync() {
                        effects.push(Effect::Send {
                            to: Recipient::Connection(who.connection),
                            payload: encode_padded(&msg),
                        });
                    }
                }
                Ok(effects)
            }
            Role::Player(side) => {
                let i = seat_index(side);
                match self.seats[i] {
                    Some(key) if key != who.key => {
                        return Err(Rejection(format!("seat {side:?} is taken by another key")))
                    }
                    _ => {}
                }
                if self.seats[1 - i] == Some(who.key) {
                    return Err(Rejection("one key cannot play both sides".into()));
                }
                let returning = self.seats[i].is_some();
                self.seats[i] = Some(who.key);
                if self.session.is_none() {
                    return self.start();
                }
                let mut effects = Vec::new();
                if returning {
                    let session = self.session.as_ref().expect("started");
                    for msg in session.resync(core_side(side), 0) {
                        effects.push(Effect::Send {
                            to: Recipient::Connection(who.connection),
                            payload: encode_padded(&msg),
                        });
                    }
                }
                Ok(effects)
            }
        }
    }

    fn handle(&mut self, from: &Participant, payload: &[u8]) -> Result<Vec<Effect>, Rejection> {
        let Role::Player(side) = from.role else {
            return Err(Rejection("spectators cannot act".into()));
        };
        if self.seats[seat_index(side)] != Some(from.key) {
            return Err(Rejection("you do not hold that seat".into()));
        }
        let Some(session) = self.session.as_mut() else {
            return Err(Rejection(
                "the game has not started: both seats must be taken".into(),
            ));
        };
        let msg = decode_to_server(payload).map_err(|e| Rejection(e.to_string()))?;
        match msg {
            ToServer::Submit(env) => {
                let out = session.submit(core_side(side), env, 0);
                Ok(self.effects(out))
            }
            ToServer::Sync { from_seq } => Ok(session
                .resync(core_side(side), from_seq)
                .into_iter()
                .map(|msg| Effect::Send {
                    to: Recipient::Connection(from.connection),
                    payload: encode_padded(&msg),
                })
                .collect()),
        }
    }

    fn awaiting(&self) -> Option<Side> {
        let session = self.session.as_ref()?;
        let awaiting = session.referee().awaiting();
        if !awaiting.is_machine_answer() {
            return None;
        }
        hexveil_protocol::message::side_of(awaiting.party()?).map(wire_side)
    }

    fn answer_timed_out(&mut self, side: Side) -> Vec<Effect> {
        if self.awaiting() != Some(side) {
            return Vec::new();
        }
        let Some(session) = self.session.as_mut() else {
            return Vec::new();
        };
        let out = session.tick(u64::MAX);
        self.effects(out)
    }
}
