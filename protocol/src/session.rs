//! The live game session: the sans-IO shell the server drives.
//!
//! The [`Session`] owns a [`Referee`] and the server's secrets for one game
//! (transcript key, pad). It takes the players' signed entries and the time,
//! and answers with [`Output`]s: entries to make durable, then messages for
//! each party. It never does IO: the server's game task persists and sends.
//!
//! Order is the contract: an [`Output::Persist`] must be durable before any
//! output after it is sent, so nothing acknowledged is ever lost (G6).
//! Every message a player receives is one padded [`ToClient`] per log entry,
//! so the count and sizes of messages depend only on the sequence of entries,
//! which the rules fix from public facts (G3).

use crate::encoding::Digest;
use crate::encoding::{GameId, Party};
use crate::envelope::Appended;
use crate::envelope::{Envelope, Receipt, Refusal, SignedEnvelope, ENVELOPE_VERSION};
use crate::escrow_agents::{EscrowAgents, EscrowError};
use crate::identity::{Identity, PublicKey};
use crate::message::{
    encode, party_of, side_of, Body, Declared, Genesis, Logged, LoggedEntry, Mode, Prompt,
    ToClient, Update, MESSAGE_VERSION,
};
use crate::pad::Pad;
use crate::referee::{Accepted, Awaiting, Fault, Referee, RefereeError};
use crate::transcript::{decode_entry, encode_entry};
use crate::view_receipt::ViewReceipt;
use hexveil_core::{Event, Registry, Roll, Side, Visibility};

/// What the views of one logged entry need beyond the entry itself (its
/// body, author and place in the log are in the [`LoggedEntry`]): the
/// dice it completed, whether they were a Secret dr, and what the referee
/// awaited after it, as each side's prompt. A resync rebuilds each party's
/// view from these and the log entry ([`view_of`]), exactly as it was sent,
/// so no copy of a view is kept (issue 16: three views an entry, each with
/// its own copy of the genesis or setup text, held most of a game's log in
/// memory twice over).
#[derive(Clone, Debug)]
struct EntryFacts {
    dice: Vec<Roll>,
    secret_dice: bool,
    /// Side A's and side B's prompts after the entry.
    prompts: [Prompt; 2],
    closed: bool,
}

impl EntryFacts {
    fn of(referee: &Referee, accepted: &Accepted) -> EntryFacts {
        let awaiting = referee.awaiting();
        EntryFacts {
            dice: accepted.dice.clone(),
            secret_dice: accepted.secret_dice,
            prompts: [Side::A, Side::B].map(|s| prompt_for(awaiting, s)),
            closed: matches!(awaiting, Awaiting::Closed),
        }
    }
}

/// Parameters of a new game.
#[derive(Clone, Debug)]
pub struct GameParams {
    /// The ruleset's id (`asl`, `minis`).
    pub ruleset: String,
    /// The ruleset's version.
    pub ruleset_version: u32,
    /// The scenario text (TOML).
    pub scenario_toml: String,
    /// Side A's and side B's keys.
    pub players: [PublicKey; 2],
    /// Live or escrow.
    pub mode: Mode,
    /// Entries per pad.
    pub pad_len: u32,
    /// Time allowed for a machine answer (openings, pad entries,
    /// transitions), in milliseconds.
    pub answer_timeout_ms: u64,
}

/// What the server must do, in order.
#[derive(Clone, Debug)]
pub enum Output {
    /// Make this entry durable before sending anything that follows.
    Persist(LoggedEntry),
    /// Send this to a player.
    ToPlayer(Side, ToClient),
    /// The public view of entry `seq` is due to spectators. It is built
    /// only if someone is there to see it, by [`Session::public_view`]
    /// (issue 16: no view is built or encoded while no one watches).
    ToSpectators {
        /// The entry's seq.
        seq: u64,
    },
}

/// Why a session could not be made or restored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The referee refused an entry.
    #[error("{0}")]
    Referee(#[from] RefereeError),
    /// The server's pad could not be built.
    #[error("server pad: {0}")]
    Pad(String),
    /// A stored log does not replay.
    #[error("stored entry {seq} does not replay: {reason}")]
    Replay {
        /// The entry.
        seq: u64,
        /// Why.
        reason: String,
    },
    /// A submission from someone who is not a player of this game.
    #[error("only the two players may submit entries")]
    NotAPlayer,
}

/// The genesis entry's envelope (seq 0, on the genesis head), signed by
/// the server: written at creation, and rebuilt byte for byte from the
/// referee's genesis when the log is read ([`Session::genesis_entry`]).
fn sign_genesis(server: &Identity, game_id: GameId, genesis: Genesis) -> SignedEnvelope {
    Envelope {
        version: ENVELOPE_VERSION,
        game_id,
        author: server.public_key(),
        seq: 0,
        prev_head: crate::envelope::genesis_head(&game_id),
        body: encode(&Body::Genesis(genesis)),
    }
    .sign(server)
}

/// Where a session finds the log entries it released
/// ([`Session::release_log`]): entry `seq`, or `None` if not there. The
/// server reads them from its store; `&|_| None` for a session that holds
/// its whole log.
pub type Stored<'a> = &'a dyn Fn(usize) -> Option<LoggedEntry>;

/// One game's live session.
pub struct Session {
    referee: Referee,
    server: Identity,
    server_pad: Pad,
    server_pad_seed: crate::pad::PadSeed,
    /// The server's pads of epochs after 0, built when renewal needs them.
    later_pads: std::collections::BTreeMap<u32, Pad>,
    /// The log, each entry as its transcript encoding (an entry decoded
    /// holds its body twice: the signed bytes and the parsed envelope),
    /// but the genesis: it is left empty when [`Session::genesis_entry`]
    /// rebuilds it exactly (the scenario's text is then held once, by the
    /// referee, not twice: issue 16).
    /// Entries `released..` only: [`Session::release_log`] drops those
    /// before, which the store holds (issue 16).
    log: Vec<Box<[u8]>>,
    /// How many entries from the start the session no longer holds.
    released: usize,
    /// What each party's view of each entry needs beyond the entry, in log
    /// order: a resync rebuilds the views from these and the log, not by a
    /// replay of the log (a join never stalls the game).
    facts: Vec<EntryFacts>,
    /// Who owes a machine answer, and by when (ms).
    deadline: Option<(Party, u64)>,
    timeout_ms: u64,
    /// The escrow agents: the keepers of the owners who escrowed their
    /// secrets at setup (Escrow mode, DESIGN 3.6).
    escrows: EscrowAgents,
    /// The view receipts of the entries the session still holds, by seq:
    /// the spectators' view of an entry is built later than the players'
    /// (when someone watches, after the delay) and carries the same one.
    attests: std::collections::BTreeMap<u64, ViewReceipt>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("game_id", &self.referee.game_id())
            .field("entries", &self.log_len())
            .field("awaiting", self.referee.awaiting())
            .finish()
    }
}

impl Session {
    /// Creates a game: writes its genesis (seq 0) and prompts both players.
    pub fn create(
        game_id: GameId,
        params: GameParams,
        rulesets: &Registry,
        server: Identity,
        server_pad_seed: crate::pad::PadSeed,
        now_ms: u64,
    ) -> Result<(Session, Vec<Output>), SessionError> {
        let server_pad = Pad::new(server_pad_seed, game_id, Party::Server, 0, params.pad_len)
            .map_err(|e| SessionError::Pad(e.to_string()))?;
        let genesis = Genesis {
            message_version: MESSAGE_VERSION,
            ruleset: params.ruleset,
            ruleset_version: params.ruleset_version,
            scenario_hash: Digest::sha256(params.scenario_toml.as_bytes()),
            scenario_toml: params.scenario_toml.into(),
            players: params.players,
            server: server.public_key(),
            mode: params.mode,
            pad_len: params.pad_len,
            answer_timeout_ms: params.answer_timeout_ms,
            server_pad: server_pad.statement(),
        };
        let env = sign_genesis(&server, game_id, genesis);
        let (referee, accepted) = Referee::new(&env, rulesets)?;
        let mut session = Session {
            referee,
            server,
            server_pad,
            server_pad_seed,
            later_pads: Default::default(),
            log: Vec::new(),
            released: 0,
            facts: Vec::new(),
            deadline: None,
            timeout_ms: params.answer_timeout_ms,
            escrows: EscrowAgents::default(),
            attests: Default::default(),
        };
        let mut out = Vec::new();
        // Nothing of the server's follows the genesis: the players are
        // asked for their pads.
        let next = session.record(env, accepted, now_ms, &mut out);
        session.run_server(next, now_ms, &mut out);
        Ok((session, out))
    }

    /// Rebuilds a session from its stored log after a restart: every entry
    /// is replayed through the referee, and the escrow agents' answers must
    /// come out identical (they are deterministic). The server then writes
    /// whatever it still owed when the log was cut (a roll, a ruling, an
    /// escrowed opening, the end): those are the returned outputs, to be
    /// made durable and sent like any others, so a crash between a player's
    /// entry and the server's answer never stalls the game (G6).
    pub fn restore(
        log: Vec<LoggedEntry>,
        rulesets: &Registry,
        server: Identity,
        server_pad_seed: crate::pad::PadSeed,
        now_ms: u64,
    ) -> Result<(Session, Vec<Output>), SessionError> {
        let mut entries = log.into_iter();
        let first = entries.next().ok_or(SessionError::Replay {
            seq: 0,
            reason: "the log is empty".into(),
        })?;
        let (referee, genesis_entry) = Referee::new(&first.envelope, rulesets)?;
        if referee.genesis().server != server.public_key() {
            return Err(SessionError::Replay {
                seq: 0,
                reason: "the log was written with another server key".into(),
            });
        }
        let genesis = referee.genesis().clone();
        let server_pad = Pad::new(
            server_pad_seed,
            referee.game_id(),
            Party::Server,
            0,
            genesis.pad_len,
        )
        .map_err(|e| SessionError::Pad(e.to_string()))?;
        if server_pad.statement() != genesis.server_pad {
            return Err(SessionError::Replay {
                seq: 0,
                reason: "the server pad seed does not match the genesis".into(),
            });
        }
        let mut session = Session {
            referee,
            server,
            server_pad,
            server_pad_seed,
            later_pads: Default::default(),
            log: Vec::new(),
            released: 0,
            facts: Vec::new(),
            deadline: None,
            timeout_ms: genesis.answer_timeout_ms,
            escrows: EscrowAgents::default(),
            attests: Default::default(),
        };
        session.push_log(&first);
        session
            .facts
            .push(EntryFacts::of(&session.referee, &genesis_entry));
        for entry in entries {
            let env = entry.envelope.envelope();
            let seq = env.seq;
            let replay = |reason: String| SessionError::Replay { seq, reason };
            // The escrow agents answer again where the server answered
            // before: the same answers from the same secrets, which also
            // brings them to the state they had (orders carried out, leaves
            // changed). The verifier runs the same check (G5).
            let author = session.referee.party_of_key(&env.author);
            session
                .escrows
                .check(session.referee.awaiting(), author, &env.body)
                .map_err(|e| replay(e.to_string()))?;
            let accepted = session
                .referee
                .accept(&entry.envelope)
                .map_err(|e| replay(e.to_string()))?;
            session
                .keep(&entry, &accepted)
                .map_err(|e| replay(e.to_string()))?;
        }
        session.set_deadline(now_ms);
        let mut out = Vec::new();
        let next = session.next_server_body();
        session.run_server(next, now_ms, &mut out);
        Ok((session, out))
    }

    /// The referee (read-only).
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// The whole log so far, decoded from the encodings the session
    /// holds: for a session that never released its log (tests, tools;
    /// the server uses [`Session::log_with`]).
    ///
    /// # Panics
    ///
    /// If [`Session::release_log`] was called.
    pub fn log(&self) -> Vec<LoggedEntry> {
        self.log_with(&|_| None)
            .expect("the session holds its whole log (release_log was not called)")
    }

    /// The whole log so far: the entries the session holds, and from
    /// `stored` those it released (`None` if one is missing).
    pub fn log_with(&self, stored: Stored<'_>) -> Option<Vec<LoggedEntry>> {
        (0..self.log_len()).map(|i| self.entry(i, stored)).collect()
    }

    /// Drops the encodings of every entry so far: the server calls it once
    /// they are durable and sent, and gives them back from its store
    /// (`stored` of the `_with` methods) when a resync, a late spectator or
    /// the transcript needs one (issue 16: no game's log in memory).
    pub fn release_log(&mut self) {
        self.release_log_before(self.log_len());
    }

    /// [`Session::release_log`] for the entries before `seq` only: those
    /// from `seq` on stay held (for example while they wait out the
    /// spectator delay).
    pub fn release_log_before(&mut self, seq: usize) {
        let drop = seq.min(self.log_len()).saturating_sub(self.released);
        self.log.drain(..drop);
        self.released += drop;
        let kept = self.attests.split_off(&(self.released as u64));
        self.attests = kept;
        if self.log.is_empty() {
            self.log = Vec::new();
        }
    }

    /// Bytes of log encodings the session holds in memory (the genesis
    /// is rebuilt, not held: [`Session::log`] gives it all the same).
    pub fn log_bytes(&self) -> usize {
        self.log.iter().map(|e| e.len()).sum()
    }

    /// Entries in the log so far (held or released).
    pub fn log_len(&self) -> usize {
        self.released + self.log.len()
    }

    /// Log entry `i`, decoded: one the session holds (it encoded it
    /// itself), or a released one from `stored`.
    fn entry(&self, i: usize, stored: Stored<'_>) -> Option<LoggedEntry> {
        let Some(held) = i.checked_sub(self.released) else {
            return stored(i);
        };
        let bytes = self.log.get(held)?;
        if bytes.is_empty() {
            return Some(self.genesis_entry());
        }
        Some(decode_entry(bytes).expect("the session's own encoding decodes"))
    }

    /// The genesis entry, rebuilt from the referee's genesis: the server
    /// wrote it, and Ed25519 signatures are deterministic, so signing the
    /// same envelope and receipt again gives the same bytes. [`Session::keep`]
    /// drops the stored genesis only after checking that this rebuilds it
    /// byte for byte.
    fn genesis_entry(&self) -> LoggedEntry {
        let game_id = self.referee.game_id();
        let envelope = sign_genesis(&self.server, game_id, self.referee.genesis().clone());
        let mut entry = LoggedEntry {
            envelope,
            receipt: None,
        };
        entry.receipt = self.receipt_for(Party::Server, &entry.appended(), false);
        entry
    }

    /// The server's receipt of an entry `author` wrote, when `followed` by
    /// an entry of the server's own or not (PROTOCOL.md 6): a player's
    /// entry has one but, from message version 6, when the server's entry
    /// follows it (that entry, signed on the head after it, places it);
    /// the server's own only in games of message versions 3 and 4 (from
    /// version 5, its signature stands for it).
    fn receipt_for(&self, author: Party, appended: &Appended, followed: bool) -> Option<Receipt> {
        let genesis = self.referee.genesis();
        let wanted = match author.is_player() {
            true => !(followed && genesis.places_by_next()),
            false => genesis.receipts_server_entries(),
        };
        wanted.then(|| Receipt::issue(&self.server, self.referee.game_id(), appended))
    }

    /// Whether the log is complete (ended and every reveal in).
    pub fn is_closed(&self) -> bool {
        matches!(self.referee.awaiting(), Awaiting::Closed)
    }

    /// Takes a player's signed entry. A refused entry changes nothing and
    /// is answered to its sender only.
    pub fn submit(&mut self, from: Side, env: SignedEnvelope, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        if self.referee.party_of_key(&env.envelope().author) != Some(party_of(from)) {
            out.push(Output::ToPlayer(
                from,
                ToClient::Rejected(Refusal::issue(
                    &self.server,
                    &env,
                    "the entry is not signed with your key for this game".into(),
                )),
            ));
            return out;
        }
        match self.referee.accept(&env) {
            Ok(accepted) => {
                let next = self.record(env, accepted, now_ms, &mut out);
                self.run_server(next, now_ms, &mut out);
            }
            Err(e) => {
                let mismatch = e.is_commitment_mismatch();
                out.push(Output::ToPlayer(
                    from,
                    ToClient::Rejected(Refusal::issue(&self.server, &env, bounded(e.to_string()))),
                ));
                // An answer that does not match the player's own commitment
                // is recorded against it (G1, G2, G5): the referee checks
                // the record; the same answer is still awaited.
                if mismatch {
                    let next = self.write_server(Body::BadAnswer(env), now_ms, &mut out);
                    self.run_server(next, now_ms, &mut out);
                }
            }
        }
        out
    }

    /// Advances the clock: a party that owes a machine answer past its
    /// deadline loses the game (G2: refusing to answer is attributed).
    pub fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        if let Some((party, deadline)) = self.deadline {
            if now_ms >= deadline {
                // In words (issue 27): the reason every reader is shown.
                let request = self.referee.awaiting_in_words();
                let next = self.write_server(Body::Timeout { party, request }, now_ms, &mut out);
                self.run_server(next, now_ms, &mut out);
            }
        }
        out
    }

    /// The earliest time [`Session::tick`] has something to do, if any.
    pub fn next_deadline(&self) -> Option<u64> {
        self.deadline.map(|(_, t)| t)
    }

    /// What `side` was shown of every entry from `from_seq` on, to resume
    /// after a reconnection (each with the prompt it carried then), for a
    /// session that holds those entries ([`Session::resync_with`]).
    ///
    /// # Panics
    ///
    /// If an entry from `from_seq` on was released.
    pub fn resync(&self, side: Side, from_seq: u64) -> Vec<ToClient> {
        self.resync_with(side, from_seq, &|_| None)
            .expect("the session holds the entries (release_log was not called)")
    }

    /// [`Session::resync`], the released entries from `stored` (`None` if
    /// one is missing).
    pub fn resync_with(
        &self,
        side: Side,
        from_seq: u64,
        stored: Stored<'_>,
    ) -> Option<Vec<ToClient>> {
        self.views_from(Some(side), from_seq, stored)
    }

    /// The public view of every entry so far, for a spectator who joins
    /// (a session that holds its whole log).
    ///
    /// # Panics
    ///
    /// If [`Session::release_log`] was called.
    pub fn public_resync(&self) -> Vec<ToClient> {
        self.views_from(None, 0, &|_| None)
            .expect("the session holds its whole log (release_log was not called)")
    }

    /// The public view of entry `seq` (what [`Output::ToSpectators`] asks
    /// for), or `None` past the log's end or if it was released and is
    /// not in `stored`: byte for byte what a spectator is sent of it, live
    /// or in a late join's history.
    pub fn public_view(&self, seq: u64, stored: Stored<'_>) -> Option<ToClient> {
        let i = usize::try_from(seq).ok().filter(|i| *i < self.log_len())?;
        self.view_at(None, i, stored)
    }

    fn views_from(
        &self,
        side: Option<Side>,
        from_seq: u64,
        stored: Stored<'_>,
    ) -> Option<Vec<ToClient>> {
        let from = usize::try_from(from_seq).unwrap_or(usize::MAX);
        (from..self.log_len())
            .map(|i| self.view_at(side, i, stored))
            .collect()
    }

    /// What `side` (a spectator if `None`) was shown of entry `i`, rebuilt
    /// from the entry and the facts kept for it. A player's own entries
    /// come whole (a client that resumes may no longer hold them).
    fn view_at(&self, side: Option<Side>, i: usize, stored: Stored<'_>) -> Option<ToClient> {
        let entry = self.entry(i, stored)?;
        let env = entry.envelope.envelope();
        let body = Body::decode(&env.body).expect("a logged body decodes");
        let author = self
            .referee
            .party_of_key(&env.author)
            .expect("a logged entry's author is a party");
        let facts = &self.facts[i];
        let view = |audience| self.view_for(audience, &entry, &body, author, facts, false);
        let [a, b] = [view(Some(Side::A)), view(Some(Side::B))];
        let attest = self.attest_for(&entry, &body, author, facts, &a, &b);
        let mut u = match side {
            Some(Side::A) => a,
            Some(Side::B) => b,
            None => view(None),
        };
        u.attest = attest.map(Box::new);
        Some(ToClient::Update(u))
    }

    /// What `audience` (a side, or the spectators) is shown of a logged
    /// entry of `body` by `author` ([`view_of`]), with the entry in the form
    /// it may check ([`logged_for`]; `live`: the author is sent its own
    /// entry as [`Logged::Own`], a resync sends its choices whole). The view
    /// receipt is [`Session::attest_for`]'s.
    fn view_for(
        &self,
        audience: Option<Side>,
        entry: &LoggedEntry,
        body: &Body,
        author: Party,
        facts: &EntryFacts,
        live: bool,
    ) -> Update {
        let prompt = match audience {
            Some(Side::A) => facts.prompts[0].clone(),
            Some(Side::B) => facts.prompts[1].clone(),
            None => Prompt::Wait,
        };
        let mut u = view_of(
            body,
            author,
            &entry.appended(),
            &facts.dice,
            facts.secret_dice,
            prompt,
            facts.closed,
            audience,
        );
        u.logged = logged_for(entry, body, author, audience, live);
        u
    }

    /// The server's view receipt of an entry whose players were shown `a`
    /// and `b`, if one is due: some audience may not read the entry whole
    /// or a player is asked for something that releases a secret
    /// ([`Prompt::releases`]). The spectators never read more than a
    /// player, so their view is built, for its digest, only then; the
    /// receipt is the same for the three audiences, signed once while the
    /// session holds the entry.
    fn attest_for(
        &self,
        entry: &LoggedEntry,
        body: &Body,
        author: Party,
        facts: &EntryFacts,
        a: &Update,
        b: &Update,
    ) -> Option<ViewReceipt> {
        let due = [a, b]
            .iter()
            .any(|u| matches!(u.logged, Logged::Sealed { .. }) || u.prompt.releases());
        if !due {
            return None;
        }
        let env = entry.envelope.envelope();
        if let Some(held) = self.attests.get(&env.seq) {
            return Some(*held);
        }
        let spectators = self.view_for(None, entry, body, author, facts, true);
        Some(ViewReceipt::issue(
            &self.server,
            self.referee.game_id(),
            env.seq,
            env.prev_head,
            entry.envelope.entry_hash(),
            author,
            [
                a.shown_digest(),
                b.shown_digest(),
                spectators.shown_digest(),
            ],
        ))
    }

    /// Writes the server's own entries while the referee awaits them,
    /// starting with `next` ([`Session::next_server_body`] after the last
    /// entry).
    fn run_server(&mut self, mut next: Option<Body>, now_ms: u64, out: &mut Vec<Output>) {
        while let Some(body) = next {
            next = self.write_server(body, now_ms, out);
        }
    }

    /// The entry the server writes next, if the referee awaits one of the
    /// server's now (a pad, a roll, an escrowed answer, a ruling, the end).
    fn next_server_body(&mut self) -> Option<Body> {
        Some(match self.referee.awaiting().clone() {
            Awaiting::Renewal { epoch, missing } if missing.first() == Some(&Party::Server) => {
                Body::Pad(self.server_pad_for(epoch)?.statement())
            }
            Awaiting::ServerRoll { .. } => {
                let position = self.referee.round_position()?;
                let entry = self
                    .server_pad_for(position.epoch)?
                    .entry(position.index)
                    .ok()?;
                Body::Roll(self.referee.server_roll_record(entry).ok()?)
            }
            // An escrow is accepted only if its agent builds (DESIGN 3.6),
            // and it holds every committed layer: it always answers.
            Awaiting::Openings { escrowed: true, .. }
            | Awaiting::Transitions { escrowed: true, .. } => {
                self.escrows.answer(self.referee.awaiting())?.ok()?
            }
            Awaiting::Ruling { events } => Body::Ruling(crate::message::RulingRecord {
                action_seq: self.referee.current_seq().unwrap_or_default(),
                events,
            }),
            Awaiting::End { result } => Body::End(result),
            _ => return None,
        })
    }

    /// The server's pad of an epoch (built from its seed when first needed).
    fn server_pad_for(&mut self, epoch: u32) -> Option<&Pad> {
        if epoch == 0 {
            return Some(&self.server_pad);
        }
        if !self.later_pads.contains_key(&epoch) {
            let pad = Pad::new(
                self.server_pad_seed,
                self.referee.game_id(),
                Party::Server,
                epoch,
                self.referee.genesis().pad_len,
            )
            .ok()?;
            self.later_pads.insert(epoch, pad);
        }
        self.later_pads.get(&epoch)
    }

    /// Signs, accepts and records a server entry; answers the entry the
    /// server writes after it, if any ([`Session::record`]). `None` too if
    /// refused (a bug: the server only writes what the referee awaits).
    fn write_server(&mut self, body: Body, now_ms: u64, out: &mut Vec<Output>) -> Option<Body> {
        let env = Envelope {
            version: ENVELOPE_VERSION,
            game_id: self.referee.game_id(),
            author: self.server.public_key(),
            seq: self.referee.log().next_seq(),
            prev_head: self.referee.log().head(),
            body: encode(&body),
        }
        .sign_here(&self.server);
        // Signed here and held in memory since: the referee skips only the
        // signature check (issue 16; PROTOCOL.md says why G4 and G5 hold).
        match self.referee.accept_signed_here(&env) {
            Ok(accepted) => self.record(env.into_signed(), accepted, now_ms, out),
            Err(_) => None,
        }
    }

    /// Logs an accepted entry and emits the receipt and everyone's view;
    /// answers the entry the server writes next, if it owes one now
    /// ([`Session::next_server_body`]): a player's entry it follows goes
    /// without a receipt in a game of message version 6 (that entry
    /// places it, PROTOCOL.md 6).
    fn record(
        &mut self,
        env: SignedEnvelope,
        accepted: Accepted,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> Option<Body> {
        // The referee accepted any escrow only after building its agent
        // from it, so following cannot fail here.
        let followed = self.follow(&accepted);
        debug_assert!(followed.is_ok(), "{followed:?}");
        // What the server owes next is known once the escrow agents
        // followed the entry (an escrowed opening answers it).
        let next = self.next_server_body();
        let receipt = self.receipt_for(accepted.author, &accepted.appended, next.is_some());
        let entry = LoggedEntry {
            envelope: env,
            receipt,
        };
        self.push_log(&entry);
        let facts = self.facts.last().expect("the entry's facts were just kept");
        let (body, author) = (&accepted.body, accepted.author);
        let mut a = self.view_for(Some(Side::A), &entry, body, author, facts, true);
        let mut b = self.view_for(Some(Side::B), &entry, body, author, facts, true);
        if let Some(attest) = self.attest_for(&entry, body, author, facts, &a, &b) {
            // The spectators' view is built when someone watches
            // (`public_view`): its view receipt is kept until then, so it
            // is signed once.
            self.attests.insert(accepted.appended.seq, attest);
            a.attest = Some(Box::new(attest));
            b.attest = Some(Box::new(attest));
        }
        out.push(Output::Persist(entry));
        if let (Some(side), Some(receipt)) = (side_of(accepted.author), receipt) {
            out.push(Output::ToPlayer(side, ToClient::Receipt(receipt)));
        }
        out.push(Output::ToPlayer(Side::A, ToClient::Update(a)));
        out.push(Output::ToPlayer(Side::B, ToClient::Update(b)));
        out.push(Output::ToSpectators {
            seq: accepted.appended.seq,
        });
        self.set_deadline(now_ms);
        next
    }

    /// Appends an accepted entry to the log with what the views each party
    /// was shown of it need (one per entry: a resync rebuilds them by seq),
    /// after the escrow agents followed it.
    fn keep(&mut self, entry: &LoggedEntry, accepted: &Accepted) -> Result<(), EscrowError> {
        self.follow(accepted)?;
        self.push_log(entry);
        Ok(())
    }

    /// The escrow agents follow an accepted entry, and what the views of
    /// it need is kept.
    fn follow(&mut self, accepted: &Accepted) -> Result<(), EscrowError> {
        self.escrows.follow(&self.referee, accepted)?;
        self.facts.push(EntryFacts::of(&self.referee, accepted));
        Ok(())
    }

    /// Appends an entry's encoding to the log; the genesis's only if
    /// [`Session::genesis_entry`] does not rebuild it exactly.
    fn push_log(&mut self, entry: &LoggedEntry) {
        let encoded = encode_entry(entry);
        let rebuilt = self.log_len() == 0
            && entry.envelope.envelope().author == self.server.public_key()
            && encode_entry(&self.genesis_entry()) == encoded;
        self.log.push(if rebuilt {
            Box::default()
        } else {
            encoded.into_boxed_slice()
        });
    }

    fn set_deadline(&mut self, now_ms: u64) {
        let awaiting = self.referee.awaiting();
        self.deadline = match (awaiting.is_machine_answer(), awaiting.party()) {
            (true, Some(party)) if party.is_player() => {
                let keep = matches!(self.deadline, Some((p, _)) if p == party);
                if keep {
                    self.deadline
                } else {
                    Some((party, now_ms + self.timeout_ms))
                }
            }
            _ => None,
        };
    }

    /// Faults proven so far by reveals (G5).
    pub fn faults(&self) -> &[Fault] {
        self.referee.faults()
    }
}

/// The longest refusal reason sent, in bytes: a refusal is one message to
/// its sender and must fit a frame even when the error echoes a long input
/// (a setup TOML line, say), G6.
pub const MAX_REASON_LEN: usize = 4096;

/// `reason`, cut at a character boundary to at most [`MAX_REASON_LEN`]
/// bytes, saying so.
fn bounded(reason: String) -> String {
    if reason.len() <= MAX_REASON_LEN {
        return reason;
    }
    let mut cut = MAX_REASON_LEN - 32;
    while !reason.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} ... (cut, {} bytes)", &reason[..cut], reason.len())
}

/// What `side` (or a spectator, `None`) may see of one accepted entry, with
/// what the referee needs from it now.
pub fn view(referee: &Referee, accepted: &Accepted, side: Option<Side>) -> Update {
    let awaiting = referee.awaiting();
    let prompt = match side {
        None => Prompt::Wait,
        Some(s) => prompt_for(awaiting, s),
    };
    view_of(
        &accepted.body,
        accepted.author,
        &accepted.appended,
        &accepted.dice,
        accepted.secret_dice,
        prompt,
        matches!(awaiting, Awaiting::Closed),
        side,
    )
}

/// What `side` (or a spectator, `None`) may see of an entry of `body` by
/// `author`, logged at `appended`, that completed `dice` (a Secret dr if
/// `secret_dice`), with the prompt `side` had after it and whether the
/// log was closed then: [`view`] from what a log entry and its facts hold.
#[allow(clippy::too_many_arguments)]
pub(crate) fn view_of(
    body: &Body,
    author: Party,
    appended: &Appended,
    dice: &[Roll],
    secret_dice: bool,
    prompt: Prompt,
    closed: bool,
    side: Option<Side>,
) -> Update {
    let events: Vec<Event> = match body {
        Body::Ruling(r) => r
            .events
            .iter()
            .filter(|e| shown_to(e, side))
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    // A Secret dr is completed by its roller's own entry: only the roller
    // sees its dice (B28.47).
    let author_side = side_of(author);
    let dice_visible = !secret_dice || (side.is_some() && side == author_side);
    let entry = match body {
        // The protocol cannot put a ruleset's action in words: a client
        // reads it from `action` with its ruleset.
        Body::Act(_) | Body::Declare(_) => format!(
            "side {} declares an action",
            author_side.map(|s| s.to_string()).unwrap_or_default()
        ),
        // What a player opens or commits is for the referee only (G3).
        Body::Entry(_) if secret_dice && side != author_side => {
            crate::message::entry_name::SECRET_PAD_ENTRY.into()
        }
        other => other.name().to_string(),
    };
    let action = match (body.declared_action(), author_side) {
        (Some(a), Some(by)) => Some(Declared {
            by,
            action: a.to_vec(),
        }),
        _ => None,
    };
    let genesis = match body {
        Body::Genesis(g) => Some(Box::new(g.clone())),
        _ => None,
    };
    let public_setup = match body {
        Body::Setup(s) => Some(s.public_setup_toml.clone()),
        _ => None,
    };
    Update {
        // Set by the caller ([`Session::views`]); the shown parts are all
        // this function decides.
        logged: Logged::Sealed {
            entry_hash: appended.entry_hash,
        },
        attest: None,
        seq: appended.seq,
        head: appended.new_head,
        entry,
        action,
        genesis,
        public_setup,
        events,
        dice: if dice_visible {
            dice.to_vec()
        } else {
            Vec::new()
        },
        prompt,
        end: match body {
            Body::End(record) => Some(record.clone()),
            _ => None,
        },
        closed,
    }
}

/// What `audience` is shown of an entry it may read whole, from the entry
/// alone (issue 24: a client reads its view from the signed entry): the
/// dice of a roll are in it; the prompt and whether the log is closed are
/// the referee's, given here. Its `logged` is left to the caller.
pub fn view_of_entry(
    body: &Body,
    author: Party,
    appended: &Appended,
    audience: Option<Side>,
    prompt: Prompt,
    closed: bool,
) -> Update {
    let dice = match body {
        Body::Roll(r) => r.dice.clone(),
        _ => Vec::new(),
    };
    view_of(
        body, author, appended, &dice, false, prompt, closed, audience,
    )
}

/// How `audience` may check a logged entry of `body` by `author`
/// (issue 24): its own entry as [`Logged::Own`] (it holds what it signed;
/// a machine answer it computes again from its secrets when a resync sends
/// it the prompt), but whole in a resync when it was the player's choice
/// (an action with its fresh nonce, a concession: `live` false); an entry
/// it may read whole ([`readable`]) as [`Logged::Full`]; any other as
/// [`Logged::Sealed`].
pub fn logged_for(
    entry: &LoggedEntry,
    body: &Body,
    author: Party,
    audience: Option<Side>,
    live: bool,
) -> Logged {
    let own = audience.is_some() && audience == side_of(author);
    let choice = matches!(body, Body::Act(_) | Body::Declare(_) | Body::Concede);
    match (own, live || !choice, entry.receipt) {
        (true, true, Some(receipt)) => Logged::Own(Box::new(receipt)),
        (true, true, None) => Logged::OwnPlacedByNext {
            entry_hash: entry.envelope.entry_hash(),
        },
        _ if own || readable(body, audience) => Logged::Full {
            envelope: Box::new(entry.envelope.clone()),
            receipt: entry.receipt.map(Box::new),
        },
        _ => Logged::Sealed {
            entry_hash: entry.envelope.entry_hash(),
        },
    }
}

/// Whether `audience` (a side, or the spectators) may read the whole of an
/// entry of `body` written by another party (issue 24): whatever its view
/// shows of it anyway. The openings, pad entries and transitions of a
/// player are for the referee until the end (G3, G4); so are a setup's
/// escrow and a ruling's events for the referee or the other side; a
/// recorded refused answer is its signer's own.
pub fn readable(body: &Body, audience: Option<Side>) -> bool {
    match body {
        Body::Genesis(_)
        | Body::Pad(_)
        | Body::Act(_)
        | Body::Declare(_)
        | Body::Roll(_)
        | Body::Timeout { .. }
        | Body::Concede
        | Body::End(_)
        | Body::Reveal(_) => true,
        Body::Setup(s) => s.escrow.is_none(),
        Body::Ruling(r) => r.events.iter().all(|e| shown_to(e, audience)),
        Body::BadAnswer(_)
        | Body::Open(_)
        | Body::OpenAhead(_)
        | Body::Transitions(_)
        | Body::Entry(_)
        | Body::Entries(_) => false,
    }
}

/// Whether `audience` may see an event.
fn shown_to(e: &Event, audience: Option<Side>) -> bool {
    match audience {
        Some(s) => e.to.shown_to(s),
        None => e.to == Visibility::Public,
    }
}

/// What the referee needs from `side` now.
pub fn prompt_for(awaiting: &Awaiting, side: Side) -> Prompt {
    match awaiting {
        // Both sides owe these; they are asked one at a time (A first) so
        // that two answers never race for the same place in the log.
        Awaiting::Pads { missing } if missing.first() == Some(&side) => Prompt::Pad,
        Awaiting::Setups { missing } if missing.first() == Some(&side) => Prompt::Setup,
        Awaiting::Action { actor } if *actor == side => Prompt::Act,
        Awaiting::Openings {
            owner,
            requests,
            escrowed: false,
            window,
        } if *owner == side => match window {
            None => Prompt::Open(requests.clone()),
            Some(w) => Prompt::OpenAhead {
                requests: requests.clone(),
                k: w.k,
                count: w.count,
            },
        },
        Awaiting::Entry { party, k } if *party == party_of(side) => Prompt::Entry { k: *k },
        Awaiting::Window { party, k, count } if *party == party_of(side) => Prompt::Window {
            k: *k,
            count: *count,
        },
        Awaiting::Transitions {
            owner,
            list,
            escrowed: false,
        } if *owner == side => Prompt::Transitions(list.clone()),
        Awaiting::Reveals { missing } if missing.first() == Some(&side) => Prompt::Reveal,
        Awaiting::Renewal { epoch, missing } if missing.first() == Some(&party_of(side)) => {
            Prompt::RenewPad { epoch: *epoch }
        }
        _ => Prompt::Wait,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g6_a_long_refusal_is_cut_to_fit_one_message() {
        let long = "é".repeat(10_000);
        let cut = bounded(long.clone());
        assert!(cut.len() <= MAX_REASON_LEN, "{}", cut.len());
        assert!(cut.ends_with("(cut, 20000 bytes)"), "{cut}");
        assert!(long.starts_with(cut.split(" ... ").next().unwrap()));
        assert_eq!(bounded("short".into()), "short");
    }
}
