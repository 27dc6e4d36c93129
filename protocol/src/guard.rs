//! The owner's check: what the rules, replayed over the checked log and
//! this party's own facts, can ask of it now (issue 24; PROTOCOL.md, "What
//! a client must check").
//!
//! The server's prompts are its words, not the rules': a dishonest server
//! could ask an owner to open every leaf of its minefields, release its
//! pad entries for rolls no action has reached yet (and, with the actor,
//! choose the dice), decide its Daisy Chain order on a move that was never
//! made, commit a transition that was never ruled, or publish its secrets
//! before the end. So a player answers a prompt only if the rules could
//! ask it of this party at this point of the log it has checked
//! ([`crate::witness::Witness`]):
//!
//! - openings only while an action is being resolved (a signed,
//!   chained declaration with no ruling after it), only of its own facts
//!   and only those the ruleset's bound for that action allows
//!   ([`hexveil_core::Observer::asks`], from the public state this party
//!   folded from what it was shown); note opportunities in increasing
//!   order and no more than the action may open; never in an Escrow game,
//!   where the server answers them;
//! - pad entries only for the roll the log is at, for a pending action or
//!   a setup roll, and a window only to the opponent of a pending
//!   declaration ([`crate::roll_count`]);
//! - transitions only after the action's ruling, and only of facts this
//!   party already opened to the referee (a transition opens the old leaf);
//! - its reveal only after an end of the game that the log gives
//!   ([`crate::end_check::EndCheck`], the spectator's check too).
//!
//! Anything else is refused: nothing is released, and the player keeps the
//! server's signed prompt as evidence.

use crate::end_check::EndCheck;
use crate::message::{Body, Mode, Prompt, Update};
use crate::roll_count::RollCount;
use crate::witness::{Breach, Checked};
use hexveil_core::{Asks, FactRequest, Layer, Location, Scenario, Side};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The action being resolved.
#[derive(Debug)]
struct Current {
    /// Its seq.
    seq: u64,
    /// Who declared it.
    actor: Side,
    /// What the rules may ask of this party while it is resolved, from the
    /// state before it.
    asks: Asks,
    /// Whether its ruling is in the log.
    ruled: bool,
    /// Whether it was declared with a nonce (`Declare`, message version
    /// 4): its public rolls take no single pad entry (PROTOCOL.md 7.1).
    nonce: bool,
    /// Note opportunities of this party opened in it so far.
    notes: u32,
}

/// What this party may be asked now.
#[derive(Debug)]
pub(crate) struct Guard {
    side: Side,
    mode: Mode,
    pad_len: u32,
    /// The public game folded from the checked log, and its end once the
    /// log gives it ([`EndCheck`], the spectator's check too).
    public: EndCheck,
    /// Players' pad statements of epoch 0 logged.
    pads: u32,
    /// Sides whose setup is logged.
    setups: BTreeSet<Side>,
    current: Option<Current>,
    /// This party's facts the referee holds: opened by this party in an
    /// answer the log accepted.
    opened: BTreeSet<(Layer, Location)>,
    /// The last note opportunity this party opened.
    last_note: Option<u32>,
    rolls: RollCount,
}

impl Guard {
    /// The guard of `side` in a game of `scenario` in `mode`.
    pub(crate) fn new(side: Side, mode: Mode, scenario: Arc<dyn Scenario>, pad_len: u32) -> Guard {
        Guard {
            side,
            mode,
            public: EndCheck::new(scenario, side),
            pad_len,
            pads: 0,
            setups: BTreeSet::new(),
            current: None,
            opened: BTreeSet::new(),
            last_note: None,
            rolls: RollCount::default(),
        }
    }

    /// The scenario.
    fn scenario(&self) -> &dyn Scenario {
        self.public.scenario().as_ref()
    }

    /// Whether the game's end is logged, grounded in the log.
    fn ended(&self) -> bool {
        self.public.end().is_some()
    }

    /// Follows one checked entry of the log. An end record that nothing
    /// in the log before it gives is [`Breach::FalseEnd`] ([`EndCheck`]).
    pub(crate) fn follow(&mut self, c: &Checked) -> Result<(), Breach> {
        let u = &c.update;
        let author = crate::message::side_of(c.author);
        match (&c.body, author) {
            (Some(Body::Pad(st)), Some(_)) if st.epoch == 0 => self.pads += 1,
            (Some(Body::Setup(_)), Some(side)) | (None, Some(side)) if u.public_setup.is_some() => {
                self.setups.insert(side);
            }
            (Some(body), Some(actor)) if body.declared_action().is_some() => {
                let action = body.declared_action().expect("checked");
                // From the state before the declaration, which `public`
                // folds below.
                self.current = Some(Current {
                    seq: u.seq,
                    actor,
                    asks: self.public.observer().asks(actor, action, self.side),
                    ruled: false,
                    notes: 0,
                    nonce: matches!(body, Body::Declare(_)),
                });
            }
            // A ruling with events for the referee or the other side comes
            // sealed: its words are the server's, signed by its view receipt.
            (Some(Body::Ruling(_)), _) | (None, None)
                if u.entry == crate::message::entry_name::RULING =>
            {
                if let Some(c) = &mut self.current {
                    c.ruled = true;
                }
            }
            _ => {}
        }
        self.public.follow(c)?;
        self.rolls
            .observe(u, self.public.scenario().as_ref(), self.pad_len);
        Ok(())
    }

    /// Takes note of this party's answer the log accepted: the facts it
    /// opened (the referee holds them now).
    pub(crate) fn opened(&mut self, requests: &[FactRequest]) {
        let note_layer = self.scenario().note_layer();
        for r in requests {
            if Some(r.layer) == note_layer {
                if let Some(n) = r.location.as_opportunity() {
                    self.last_note = Some(n);
                    if let Some(c) = &mut self.current {
                        c.notes += 1;
                    }
                }
            } else {
                self.opened.insert((r.layer, r.location));
            }
        }
    }

    /// Whether this party may answer `prompt` now; if not, why, in words.
    pub(crate) fn allow(&self, update: &Update) -> Result<(), String> {
        let prompt = &update.prompt;
        match prompt {
            Prompt::Act | Prompt::Wait | Prompt::Pad | Prompt::RenewPad { .. } | Prompt::Setup => {
                Ok(())
            }
            Prompt::Reveal if self.ended() => Ok(()),
            Prompt::Reveal => {
                Err("asked to publish its secrets, but the game's end is not in the log".into())
            }
            Prompt::Open(requests) => self.openings(requests),
            Prompt::OpenAhead { requests, .. } => {
                self.openings(requests)?;
                self.window(prompt).map_err(g2)
            }
            Prompt::Window { .. } => self.window(prompt).map_err(g2),
            Prompt::Entry { .. } => self.entry(prompt).map_err(g2),
            Prompt::Transitions(list) => self.transitions(list),
        }
    }

    /// The action being resolved, if one is and its ruling is not in yet.
    fn resolving(&self) -> Result<&Current, String> {
        match &self.current {
            Some(c) if !c.ruled => Ok(c),
            Some(c) => Err(format!(
                "no action is being resolved (the last one, entry {}, has its ruling)",
                c.seq
            )),
            None => Err("no action has been declared yet".into()),
        }
    }

    fn openings(&self, requests: &[FactRequest]) -> Result<(), String> {
        if self.mode == Mode::Escrow {
            return Err(
                "asked to open sealed facts in an Escrow game, where the server answers them from the escrow".into(),
            );
        }
        let current = self.resolving()?;
        let note_layer = self.scenario().note_layer();
        let mut last_note = self.last_note;
        let mut notes = current.notes;
        for r in requests {
            if r.owner != self.side {
                return Err(format!("asked to open {r}, a fact of the other side"));
            }
            if Some(r.layer) == note_layer {
                let Some(n) = r.location.as_opportunity() else {
                    return Err(format!("asked to open {r}, which is no note opportunity"));
                };
                if last_note.is_some_and(|last| n <= last) {
                    return Err(format!(
                        "asked to open note opportunity {n}, but opportunity {} was opened already (they come in order)",
                        last_note.unwrap_or_default()
                    ));
                }
                notes += 1;
                if notes > current.asks.notes {
                    return Err(format!(
                        "asked to open note opportunity {n}, but the action of entry {} gives this side at most {} (B28.531, R19)",
                        current.seq, current.asks.notes
                    ));
                }
                last_note = Some(n);
            } else if !current.asks.leaf(r.layer, &r.location) {
                return Err(format!(
                    "asked to open {r}, which the rules cannot ask of side {} while the action of entry {} (by side {}) is resolved",
                    self.side, current.seq, current.actor
                ));
            }
        }
        Ok(())
    }

    fn window(&self, prompt: &Prompt) -> Result<(), String> {
        let current = self.resolving()?;
        if current.actor == self.side {
            return Err(format!(
                "asked for a window of pad entries for its own action (entry {}): the actor's part is its nonce",
                current.seq
            ));
        }
        match self.rolls.refuse(prompt, self.scenario(), self.pad_len) {
            Some(why) => Err(why),
            None => Ok(()),
        }
    }

    fn entry(&self, prompt: &Prompt) -> Result<(), String> {
        if let Some(why) = self.rolls.refuse(prompt, self.scenario(), self.pad_len) {
            return Err(why);
        }
        // A setup roll (ASL: the Secret dr for extra Dummies, B28.47) is
        // made once both pads are in and before the setups; any other
        // roll serves the action being resolved.
        let setup_rolls = self.pads >= 2
            && self.setups.len() < 2
            && [Side::A, Side::B]
                .iter()
                .any(|s| !self.scenario().setup_rolls(*s).is_empty());
        if setup_rolls {
            return Ok(());
        }
        let current = self.resolving().map_err(|why| {
            format!("asked for a pad entry while no roll is due (no setup roll): {why}")
        })?;
        // An action declared with a nonce (message version 4 on) takes the
        // actor's nonce and the opponent's window for its public rolls: a
        // single pad entry is owed only for a Secret dr or a roll in an
        // epoch committed during the action (PROTOCOL.md 7.1 items 4 and
        // 5). A plain `Act` rolls as in version 3, an entry each. Released for any
        // other roll, it would be known to the server before the next
        // action is chosen (G2).
        let Prompt::Entry { k } = prompt else {
            return Ok(());
        };
        if current.nonce && !current.asks.secret_roll && self.rolls.windowed(*k, self.pad_len) {
            return Err(format!(
                "asked for its single pad entry of roll {k}, which the action of entry {} rolls with its declaration's nonce and a window (G2, PROTOCOL.md 7.1)",
                current.seq
            ));
        }
        Ok(())
    }

    fn transitions(&self, list: &[(FactRequest, hexveil_core::Content)]) -> Result<(), String> {
        if self.mode == Mode::Escrow {
            return Err(
                "asked to commit transitions in an Escrow game, where the server commits them from the escrow".into(),
            );
        }
        match &self.current {
            Some(c) if c.ruled => {}
            _ => {
                return Err(
                    "asked to commit transitions, but no ruling that orders them is in the log"
                        .into(),
                )
            }
        }
        for (r, _) in list {
            if r.owner != self.side {
                return Err(format!("asked to change {r}, a fact of the other side"));
            }
            if !self.opened.contains(&(r.layer, r.location)) {
                return Err(format!(
                    "asked to change {r}, which this side never opened to the referee: a transition opens the old leaf (G4)"
                ));
            }
        }
        Ok(())
    }
}

/// A refusal of pad entries, citing why they are kept.
fn g2(why: String) -> String {
    format!("{why}: no pad entry is released (G2, PROTOCOL.md 7.1)")
}
