//! The protocol's live game session ([`hexveil_protocol::session::Session`])
//! plugged into the shell: glue only, no rules. It maps the session's
//! outputs onto [`Effect`]s (persist = [`Effect::Append`] of the encoded log
//! entry, messages = padded [`ToClient`] bytes) and client payloads
//! (postcard [`ToServer`]) onto the session's calls. When the log closes,
//! the transcript file is stored with the end record as the result.
//!
//! A new game is asked for with [`NewGame`] (postcard) as the scenario bytes
//! of `CreateGame`. The server's transcript key and pad seed come from
//! [`ServerSecrets`].

use hexveil_core::Registry;
use std::sync::Arc;

use hexveil_protocol::message::{
    decode_to_server, encode, encode_padded, Body, LoggedEntry, ToClient, ToServer,
};
use hexveil_protocol::referee::Awaiting;
use hexveil_protocol::session::{GameParams, Output, Session};
use hexveil_protocol::transcript::{decode_entry, encode_entry, file_version_for, Transcript};
use hexveil_protocol::Party;

use crate::at_rest::StorageKey;
use crate::secrets::ServerSecrets;
use crate::session::{
    Effect, GameSession, Observation, Participant, Recipient, Rejection, SessionContext,
    SessionFactory, StoredEvents,
};
use crate::wire::{Role, Side};
use hexveil_net::new_game::NewGame;

/// Makes [`LiveGame`]s with the server's secrets.
#[derive(Debug, Clone)]
pub struct LiveGameFactory {
    secrets: Arc<ServerSecrets>,
    rulesets: Registry,
}

impl LiveGameFactory {
    /// A factory signing with these secrets, playing every ruleset of this
    /// build ([`hexveil_rulesets::all`]).
    pub fn new(secrets: Arc<ServerSecrets>) -> Self {
        Self::with_rulesets(secrets, hexveil_rulesets::all())
    }

    /// A factory playing only the rulesets of `rulesets` (a league that
    /// offers one game): a game naming another is refused at creation.
    pub fn with_rulesets(secrets: Arc<ServerSecrets>, rulesets: Registry) -> Self {
        LiveGameFactory { secrets, rulesets }
    }
}

/// The protocol session of one game, as a [`GameSession`].
#[derive(Debug)]
pub struct LiveGame {
    session: Session,
    at_start: Vec<Output>,
    finished: bool,
    /// Seals every entry before it goes to the store (`at_rest`).
    at_rest: StorageKey,
    /// The names the players' keys signed in their setups (issue 27 item
    /// 8), side A first, and whether each side's setup was seen.
    names: [(bool, Option<String>); 2],
}

fn side_index(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

/// The metrics' word for an entry's kind ([`Observation`]).
pub fn kind_label(body: &Body) -> &'static str {
    match body {
        Body::Genesis(_) => "genesis",
        Body::Pad(_) => "pad",
        Body::Setup(_) => "setup",
        // An action, declared with or without a nonce (message version 4 or
        // 3): one kind for the operator's dashboards.
        Body::Act(_) | Body::Declare(_) => "act",
        Body::Open(_) => "open",
        Body::Entry(_) => "entry",
        Body::Transitions(_) => "transitions",
        Body::Roll(_) => "roll",
        Body::Ruling(_) => "ruling",
        Body::Timeout { .. } => "timeout",
        Body::Concede => "concede",
        Body::End(_) => "end",
        Body::Reveal(_) => "reveal",
        Body::BadAnswer(_) => "bad_answer",
        Body::Entries(_) => "entries",
        Body::OpenAhead(_) => "open_ahead",
    }
}

impl LiveGame {
    /// An operator's line for each answer timeout the session wrote
    /// (issue 27): who did not answer what.
    fn log_timeouts(&self, outputs: &[Output]) {
        for o in outputs {
            let Output::Persist(entry) = o else { continue };
            let env = entry.envelope.envelope();
            if let Ok(Body::Timeout { party, request }) = Body::decode(&env.body) {
                tracing::info!(
                    game_id = %env.game_id,
                    seq = env.seq,
                    party = %party,
                    waited_for = %request,
                    "answer timeout"
                );
            }
        }
    }

    /// What the operator counts of the session's outputs: each player's
    /// entry logged, each timeout, and (for a submitted entry of `submitted`
    /// kind) each refusal.
    fn observations(&self, outputs: &[Output], submitted: Option<&'static str>) -> Vec<Effect> {
        let players = self.session.referee().genesis().players;
        outputs
            .iter()
            .filter_map(|o| match o {
                Output::Persist(entry) => {
                    let env = entry.envelope.envelope();
                    let body = Body::decode(&env.body).ok()?;
                    if matches!(body, Body::Timeout { .. }) {
                        Some(Observation::AnswerTimeout)
                    } else if players.contains(&env.author) {
                        Some(Observation::Accepted {
                            kind: kind_label(&body),
                        })
                    } else {
                        None
                    }
                }
                Output::ToPlayer(_, ToClient::Rejected(_)) => Some(Observation::Refused {
                    kind: submitted.unwrap_or("unknown"),
                }),
                _ => None,
            })
            .map(Effect::Observe)
            .collect()
    }

    fn effects(&mut self, outputs: Vec<Output>) -> Vec<Effect> {
        self.effects_of(outputs, None)
    }

    /// The effects of `outputs`, the observations last (after the
    /// `Append` + `Finish` pair the shell stores as one transaction).
    /// Notes the display name a setup among `entries` signed (issue 27
    /// item 8), until both sides' setups were seen (the bodies are decoded
    /// only until then).
    fn note_names<'a>(&mut self, entries: impl Iterator<Item = &'a LoggedEntry>) {
        if self.names.iter().all(|(seen, _)| *seen) {
            return;
        }
        let players = self.session.referee().genesis().players;
        for entry in entries {
            let env = entry.envelope.envelope();
            let Some(i) = players.iter().position(|k| *k == env.author) else {
                continue;
            };
            if let Ok(Body::Setup(setup)) = Body::decode(&env.body) {
                // A name out of bounds (a control character, too long) is
                // no name (the same check the pages and clients make).
                let name = hexveil_view::names::name_in_setup(&setup.public_setup_toml)
                    .ok()
                    .flatten();
                self.names[i] = (true, name);
            }
        }
    }

    fn effects_of(&mut self, outputs: Vec<Output>, submitted: Option<&'static str>) -> Vec<Effect> {
        self.note_names(outputs.iter().filter_map(|o| match o {
            Output::Persist(entry) => Some(entry),
            _ => None,
        }));
        let observed = self.observations(&outputs, submitted);
        self.log_timeouts(&outputs);
        let mut out: Vec<Effect> = outputs
            .into_iter()
            .map(|o| match o {
                Output::Persist(entry) => Effect::Append(
                    self.at_rest
                        .seal(entry.envelope.envelope().seq, &encode_entry(&entry)),
                ),
                Output::ToPlayer(side, msg) => Effect::Send {
                    to: Recipient::Player(side),
                    payload: encode_padded(&msg),
                },
                Output::ToSpectators { .. } => Effect::Publish,
            })
            .collect();
        if !self.finished && self.session.is_closed() {
            self.finished = true;
            // Stored with the last entry and before the closing updates go
            // out, so a player told the log is closed can fetch the
            // transcript at once (the shell asks `transcript` for it).
            let at = out
                .iter()
                .rposition(|e| matches!(e, Effect::Append(_)))
                .map_or(0, |i| i + 1);
            let result = self.session.referee().result();
            match result {
                Some(r) => tracing::info!(
                    game_id = %self.session.referee().game_id(),
                    winner = %r.winner.map_or("none".to_string(), |w| format!("side {w:?}")),
                    reason = %r.reason,
                    "game over"
                ),
                None => tracing::info!(
                    game_id = %self.session.referee().game_id(),
                    "game over without a result record"
                ),
            }
            out.insert(
                at,
                Effect::Finish {
                    result: encode(&result),
                },
            );
        }
        out.extend(observed);
        out
    }

    /// Entry `seq` of the stored events (sealed at rest), decoded.
    fn stored_entry(
        &self,
        stored: &StoredEvents,
        seq: usize,
    ) -> Option<hexveil_protocol::message::LoggedEntry> {
        let seq = seq as u64;
        let opened = self
            .at_rest
            .open(seq, stored.get(seq)?)
            .map_err(|e| e.to_string())
            .and_then(|bytes| decode_entry(&bytes).map_err(|e| e.to_string()));
        opened
            .map_err(|error| tracing::error!(seq, %error, "a stored event does not open"))
            .ok()
    }
}

impl GameSession for LiveGame {
    fn start(&mut self, _now_ms: u64) -> Vec<Effect> {
        let outputs = std::mem::take(&mut self.at_start);
        self.effects(outputs)
    }

    fn admit(
        &mut self,
        who: &Participant,
        resume_from: u64,
        _now_ms: u64,
    ) -> Result<Vec<Effect>, Rejection> {
        match who.role {
            Role::Player(side) => {
                let expected = self.session.referee().genesis().players[side_index(side)];
                if who.key != expected {
                    return Err(Rejection(format!(
                        "side {side}'s seat belongs to key {expected}, not {}",
                        who.key
                    )));
                }
                Ok(vec![Effect::Resync {
                    side,
                    from_seq: resume_from,
                    to: who.connection,
                }])
            }
            // Anyone may watch; the shell sends a late spectator the public
            // messages the others already have (`public_message`, DESIGN 5).
            Role::Spectator => Ok(Vec::new()),
        }
    }

    fn public_len(&self) -> usize {
        // `Session::record` publishes exactly one public view per log entry
        // (`Output::ToSpectators { seq }`), so public message `i` is the
        // view of entry `i`; but for the entries whose outputs wait for
        // `start` (a new game's genesis, what a restored game still owed):
        // those are not published yet.
        let pending = self
            .at_start
            .iter()
            .filter(|o| matches!(o, Output::ToSpectators { .. }))
            .count();
        self.session.log_len().saturating_sub(pending)
    }

    fn public_message(&self, index: usize, stored: &StoredEvents) -> Option<Vec<u8>> {
        let older = |i| self.stored_entry(stored, i);
        let view = self
            .session
            .public_view(u64::try_from(index).ok()?, &older)?;
        Some(encode_padded(&view))
    }

    fn resync(&self, side: Side, from_seq: u64, stored: &StoredEvents) -> Option<Vec<Vec<u8>>> {
        let older = |i| self.stored_entry(stored, i);
        let views = self.session.resync_with(side, from_seq, &older)?;
        Some(views.iter().map(encode_padded).collect())
    }

    fn transcript(&self, stored: &StoredEvents) -> Option<Vec<u8>> {
        let older = |i| self.stored_entry(stored, i);
        let transcript = Transcript {
            version: file_version_for(self.session.referee().genesis()),
            entries: self.session.log_with(&older)?,
        };
        transcript
            .to_bytes()
            .map_err(|e| tracing::error!(error = %e, "could not write the transcript"))
            .ok()
    }

    fn settled(&mut self, public_from: usize) {
        // Everything returned is durable and sent: the store holds the log.
        // Public message `i` is the view of entry `i`: those the delay
        // still holds stay.
        self.session.release_log_before(public_from);
    }

    fn handle(
        &mut self,
        from: &Participant,
        payload: &[u8],
        now_ms: u64,
    ) -> Result<Vec<Effect>, Rejection> {
        let Role::Player(side) = from.role else {
            return Err(Rejection("spectators cannot act".into()));
        };
        match decode_to_server(payload).map_err(|e| Rejection(e.to_string()))? {
            ToServer::Submit(env) => {
                let kind = Body::decode(&env.envelope().body)
                    .map(|b| kind_label(&b))
                    .unwrap_or("unreadable");
                let outputs = self.session.submit(side, env, now_ms);
                Ok(self.effects_of(outputs, Some(kind)))
            }
            ToServer::Sync { from_seq } => Ok(vec![Effect::Resync {
                side,
                from_seq,
                to: from.connection,
            }]),
        }
    }

    fn next_deadline(&self) -> Option<u64> {
        self.session.next_deadline()
    }

    fn awaited(&self) -> Option<(Option<Side>, String)> {
        let referee = self.session.referee();
        let awaiting = referee.awaiting();
        if matches!(awaiting, Awaiting::Closed) {
            return None;
        }
        let side = match (awaiting, awaiting.party()) {
            (_, Some(Party::A)) => Some(Side::A),
            (_, Some(Party::B)) => Some(Side::B),
            // Both sides owe these; the first missing one is asked first.
            (Awaiting::Pads { missing } | Awaiting::Setups { missing }, None) => {
                missing.first().copied()
            }
            _ => None,
        };
        Some((side, referee.awaiting_in_words()))
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Effect> {
        let outputs = self.session.tick(now_ms);
        self.effects(outputs)
    }

    fn signed_names(&self) -> Option<[Option<String>; 2]> {
        self.names
            .iter()
            .all(|(seen, _)| *seen)
            .then(|| self.names.clone().map(|(_, name)| name))
    }
}

impl SessionFactory for LiveGameFactory {
    fn league_secrets(&self) -> Option<crate::store::LeagueSecrets> {
        Some(self.secrets.league_secrets())
    }

    fn create(
        &self,
        ctx: &SessionContext,
        scenario: &[u8],
    ) -> Result<Box<dyn GameSession>, Rejection> {
        let req = NewGame::decode(scenario).map_err(|e| Rejection(e.to_string()))?;
        if req.pad_len > ctx.max_pad_len {
            return Err(Rejection(format!(
                "pad_len {} is over this server's max_pad_len = {}",
                req.pad_len, ctx.max_pad_len
            )));
        }
        let params = GameParams {
            ruleset: req.ruleset,
            ruleset_version: req.ruleset_version,
            scenario_toml: req.scenario_toml,
            players: req.players,
            mode: req.mode,
            pad_len: req.pad_len,
            answer_timeout_ms: match req.answer_timeout_secs {
                Some(secs) => secs * 1000,
                None => ctx.answer_timeout.as_millis() as u64,
            },
        };
        let (session, at_start) = Session::create(
            ctx.game_id,
            params,
            &self.rulesets,
            self.secrets.transcript_identity(),
            self.secrets.pad_seed(&ctx.game_id),
            ctx.now_ms,
        )
        .map_err(|e| Rejection(e.to_string()))?;
        Ok(Box::new(LiveGame {
            session,
            at_start,
            finished: false,
            at_rest: self.secrets.storage_key(ctx.game_id),
            names: Default::default(),
        }))
    }

    fn restore(
        &self,
        ctx: &SessionContext,
        _scenario: &[u8],
        events: &[Vec<u8>],
    ) -> Result<Box<dyn GameSession>, Rejection> {
        let at_rest = self.secrets.storage_key(ctx.game_id);
        let log = events
            .iter()
            .zip(0u64..)
            .map(|(e, seq)| {
                let bytes = at_rest
                    .open(seq, e)
                    .map_err(|err| Rejection(err.to_string()))?;
                decode_entry(&bytes).map_err(|err| Rejection(format!("event {seq}: {err}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // The setups, for the names their keys signed (issue 27 item 8).
        let setups: Vec<LoggedEntry> = log
            .iter()
            .filter(|e| {
                matches!(
                    Body::decode(&e.envelope.envelope().body),
                    Ok(Body::Setup(_))
                )
            })
            .take(2)
            .cloned()
            .collect();
        let (session, owed) = Session::restore(
            log,
            &self.rulesets,
            self.secrets.transcript_identity(),
            self.secrets.pad_seed(&ctx.game_id),
            ctx.now_ms,
        )
        .map_err(|e| Rejection(e.to_string()))?;
        // What the server owed when it stopped is written at start; a log
        // that is closed gets its transcript then too (a game stored in
        // two steps by an older version may have been cut between them; the
        // shell stores the result of a game already finished only once).
        let mut game = LiveGame {
            session,
            at_start: owed,
            finished: false,
            at_rest,
            names: Default::default(),
        };
        game.note_names(setups.iter());
        Ok(Box::new(game))
    }
}
