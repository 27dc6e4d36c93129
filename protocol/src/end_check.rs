//! Whether the log gives the end of the game that the server wrote (G3,
//! G5; PROTOCOL.md 16.2, "What a client must check").
//!
//! The referee writes a game's end record at exactly two kinds of places
//! (PROTOCOL.md 13): right after a side's concession or the server's
//! timeout of a side, with that side's opponent the winner; and right
//! after the ruling whose public game-over event ended the game, with the
//! winner and reason of that event. An end anywhere else, or with another
//! result, or signed by a player, is the server's invention.
//!
//! [`EndCheck`] is the one place that rule is written. It follows the
//! checked log ([`crate::witness::Witness`]) and folds the public state of
//! the game with the ruleset's [`Observer`] (the public setups, the
//! declarations, the events the party was shown, which is all
//! [`Observer::outcome`] reads). The player's guard uses it before it
//! reveals anything; the spectators' [`PublicWitness`] uses it before a
//! result is shown. So a player and a spectator cannot judge one end
//! differently.

use crate::encoding::GameId;
use crate::message::{side_of, Body, EndRecord, Genesis, Update};
use crate::witness::{Breach, Checked, Seen, Witness};
use hexveil_core::{Observer, Registry, Scenario, Side};
use std::sync::Arc;

/// How the entry before an end record ended the game.
#[derive(Clone, Copy, Debug)]
enum EndedBy {
    /// This side conceded.
    Concession(Side),
    /// The server timed this side out.
    Timeout(Side),
}

/// One party's fold of the public game, and the end of the game once the
/// log gives it.
#[derive(Clone, Debug)]
pub struct EndCheck {
    scenario: Arc<dyn Scenario>,
    observer: Box<dyn Observer>,
    /// What the previous entry of the log ended the game by: a side's
    /// concession, or the server's timeout of a side. The end record
    /// follows.
    ended_by: Option<EndedBy>,
    /// The end of the game, once logged and grounded.
    end: Option<EndRecord>,
}

impl EndCheck {
    /// The check of a game of `scenario`, folding what `viewer` is shown
    /// (a spectator, shown only public events, may fold as either side:
    /// the game-over event is public).
    pub fn new(scenario: Arc<dyn Scenario>, viewer: Side) -> EndCheck {
        EndCheck {
            observer: scenario.observer(viewer),
            scenario,
            ended_by: None,
            end: None,
        }
    }

    /// The check of the game `genesis` begins, under the ruleset it names,
    /// which `rulesets` must have, for a spectator (shown public events
    /// only). An error says in words why this build cannot check it.
    pub fn of_genesis(genesis: &Genesis, rulesets: &Registry) -> Result<EndCheck, String> {
        let ruleset = rulesets
            .find(&genesis.ruleset, genesis.ruleset_version)
            .map_err(|e| e.to_string())?;
        let scenario = ruleset
            .load(&genesis.scenario_toml)
            .map_err(|e| format!("the genesis's scenario does not load: {e}"))?;
        Ok(EndCheck::new(scenario, Side::A))
    }

    /// The scenario.
    pub fn scenario(&self) -> &Arc<dyn Scenario> {
        &self.scenario
    }

    /// The public state folded so far (before the entry being followed).
    pub fn observer(&self) -> &dyn Observer {
        self.observer.as_ref()
    }

    /// The end of the game, once the log holds it and gives it.
    pub fn end(&self) -> Option<&EndRecord> {
        self.end.as_ref()
    }

    /// Follows one checked entry of the log, in order. An end record that
    /// the log before it does not give is [`Breach::FalseEnd`]: nothing of
    /// it may be shown (its signed entry stays in the witness that checked
    /// it, as evidence).
    pub fn follow(&mut self, c: &Checked) -> Result<(), Breach> {
        let u = &c.update;
        let author = side_of(c.author);
        let ended_by = self.ended_by.take();
        // The game ends once: a second end record (after a reveal timed
        // out, say) would change the result shown.
        let over = self.end.is_some();
        match (&c.body, author) {
            (Some(Body::Setup(_)), Some(side)) | (None, Some(side)) if u.public_setup.is_some() => {
                // A Live setup is read whole; an Escrow one's public part
                // comes with the server's view receipt. Both are what the
                // referee accepted, so they parse.
                if let Some(public) = u
                    .public_setup
                    .as_deref()
                    .and_then(|text| self.scenario.public_setup(side, text).ok())
                {
                    self.observer.setup(public.as_ref());
                }
            }
            (Some(body), Some(actor)) if body.declared_action().is_some() => {
                let action = body.declared_action().expect("checked");
                self.observer.declared(actor, action);
            }
            (Some(Body::End(end)), author) => {
                self.grounded(end, author, ended_by, over)
                    .map_err(|why| Breach::FalseEnd {
                        seq: u.seq,
                        what: format!("the end of the game logged at entry {}: {why}", u.seq),
                    })?;
                self.end = Some(end.clone());
            }
            (Some(Body::Concede), Some(side)) if !over => {
                self.ended_by = Some(EndedBy::Concession(side))
            }
            (Some(Body::Timeout { party, .. }), None) if !over => {
                self.ended_by = side_of(*party).map(EndedBy::Timeout)
            }
            _ => {}
        }
        for e in &u.events {
            self.observer.event(e);
        }
        Ok(())
    }

    /// Whether the log before an end record gives it (G3, G5): written by
    /// the server, once, right after a concession or a timeout of a side,
    /// with the record the referee writes for it (that side's opponent the
    /// winner, [`EndRecord::conceded`], [`EndRecord::timed_out`]); or after
    /// the ruling whose public game-over event ended the game, with its
    /// winner and reason (`Observer::outcome`). The referee writes an end
    /// at no other point (PROTOCOL.md 13).
    fn grounded(
        &self,
        end: &EndRecord,
        author: Option<Side>,
        ended_by: Option<EndedBy>,
        over: bool,
    ) -> Result<(), String> {
        if let Some(side) = author {
            return Err(format!(
                "it is signed by side {side}; only the server writes one"
            ));
        }
        let said = end_words(end.winner, &end.reason);
        if over {
            return Err(format!("it says {said}, but the game had already ended"));
        }
        let against = |loser: Side, by: &str| {
            format!(
                "it says {said}, but the entry before it ends the game against side {loser} ({by})"
            )
        };
        match (ended_by, self.observer.outcome()) {
            (Some(EndedBy::Concession(loser)), _) if *end == EndRecord::conceded(loser) => Ok(()),
            (Some(EndedBy::Concession(loser)), _) => Err(against(loser, "its concession")),
            (Some(EndedBy::Timeout(loser)), _) if end.is_timeout_of(loser) => Ok(()),
            (Some(EndedBy::Timeout(loser)), _) => Err(against(loser, "its timeout")),
            (None, Some(o)) if o.winner == end.winner && o.reason == end.reason => Ok(()),
            (None, Some(o)) => Err(format!(
                "it says {said}, but the game-over event in the log says {}",
                end_words(o.winner, &o.reason)
            )),
            (None, None) => Err(format!(
                "it says {said}, but no concession, timeout or game-over event in the log ends the game"
            )),
        }
    }
}

/// An end record in words, its reason (the server's) quoted as data.
fn end_words(winner: Option<Side>, reason: &str) -> String {
    match winner {
        Some(w) => format!("side {w} wins ({reason:?})"),
        None => format!("nobody wins ({reason:?})"),
    }
}

/// Why a spectator cannot go on with an update.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unwatched {
    /// What the server did: nothing of the update is shown.
    #[error(transparent)]
    Breach(#[from] Breach),
    /// The genesis names a ruleset or scenario this build cannot play, so
    /// it cannot check the game's end: nothing past the genesis is shown.
    #[error("this client cannot check the end of this game: {0}")]
    Ruleset(String),
}

/// The spectators' check of a game's public log (PROTOCOL.md 16): every
/// update through the [`Witness`] (its place, signatures, what it shows),
/// then through the [`EndCheck`] of the ruleset the genesis names, so a
/// spectator shows the end of a game only where the log gives it, exactly
/// as a player does.
#[derive(Clone)]
pub struct PublicWitness {
    witness: Witness,
    rulesets: Registry,
    /// The check of the ruleset the genesis names, or why there is none.
    ends: Result<EndCheck, String>,
}

impl std::fmt::Debug for PublicWitness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PublicWitness")
            .field("witness", &self.witness)
            .field("ends", &self.ends)
            .finish_non_exhaustive()
    }
}

impl PublicWitness {
    /// A spectator's check of game `game_id`, whose ruleset `rulesets`
    /// must have.
    pub fn new(game_id: GameId, rulesets: Registry) -> PublicWitness {
        PublicWitness {
            witness: Witness::new(game_id, None),
            rulesets,
            ends: Err("no genesis was seen yet".into()),
        }
    }

    /// The log as checked so far (the server's statements it holds,
    /// including a false end's signed entry).
    pub fn witness(&self) -> &Witness {
        &self.witness
    }

    /// The end of the game, once the log holds it and gives it.
    pub fn end(&self) -> Option<&EndRecord> {
        self.ends.as_ref().ok().and_then(EndCheck::end)
    }

    /// Checks an update; on success it may be shown.
    pub fn check(&mut self, u: &Update) -> Result<Seen, Unwatched> {
        let seen = self.witness.check(u)?;
        if let Seen::New(new) = &seen {
            for c in new {
                if let Some(Body::Genesis(g)) = &c.body {
                    self.ends = EndCheck::of_genesis(g, &self.rulesets);
                }
                match &mut self.ends {
                    Ok(ends) => ends.follow(c)?,
                    Err(why) => return Err(Unwatched::Ruleset(why.clone())),
                }
            }
        }
        Ok(seen)
    }
}
