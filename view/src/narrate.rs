//! Words for what happened: one [`Narrator`] turns each [`Update`] a
//! player or spectator receives (and each event of a replay) into lines a
//! player understands, each led by the rules it applies, e.g.
//! `[B28.41, R13] A-P minefield in 3E4 attacks ger-squad-1, ger-leader: DR 9, no effect (strength stays hidden)`.
//! Unit names come from the scenario (file order is the unit id).

use hexveil_asl::a::fire::FireEvent;
use hexveil_asl::a::morale::MoraleEvent;
use hexveil_asl::b28::booby_trap::BoobyTrapEvent;
use hexveil_asl::b28::daisy_chain::DaisyEvent;
use hexveil_asl::b28::flail::FlailOutcome;
use hexveil_asl::b28::minefield::{Crossing, FoundBy, MinefieldEvent, VehicleOutcome};
use hexveil_asl::b28::movement::{MoveEvent, MoveKind};
use hexveil_asl::model::action::FfeKind;
use hexveil_asl::model::scenario::Scenario;
use hexveil_asl::model::sealed::{BoobyLevel, Content, DaisyNote, Layer};
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::turn::{Phase, TurnEvent};
use hexveil_asl::{Action, EventKind, MoveMode, Side, Visibility};
use hexveil_core as kernel;
use hexveil_protocol::message::{Logged, Prompt, Update};
use std::collections::BTreeMap;

mod ordnance;

/// Who is reading: a player of one side, a spectator, or a replay reader
/// who sees everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// A player (sees its own side's private events).
    Player(Side),
    /// A spectator (public events only).
    Spectator,
    /// A replay after the game (every event, with its audience marked).
    Everything,
}

/// Whether `reader` may see an event told to `to` (G3): a spectator the
/// public ones, a player those and its own side's, a replay everything.
pub fn shown_to(reader: Reader, to: hexveil_core::Visibility) -> bool {
    match reader {
        Reader::Everything => true,
        Reader::Player(side) => to.shown_to(side),
        Reader::Spectator => to == hexveil_core::Visibility::Public,
    }
}

/// Turns updates and events into text, with unit names from the scenario.
#[derive(Clone, Debug)]
pub struct Narrator {
    names: BTreeMap<UnitId, String>,
    /// The miniatures scenario, in a game of the miniatures rules (seed
    /// 004): its events, actions and contents are told its own way.
    minis: Option<hexveil_minis::MinisScenario>,
    /// Game turn, phasing side and phase, as last announced.
    pub phase: Option<(u16, Side, Phase)>,
    /// Show machine entries (pads, openings, pad entries, rolls) too.
    pub verbose: bool,
    /// Say when the reader is to act.
    pub prompts: bool,
    /// The seats' keys, from the genesis once seen: who signed an entry.
    seats: Option<[hexveil_protocol::identity::PublicKey; 2]>,
}

impl Narrator {
    /// A narrator for a game of `scenario`, as its ruleset loaded it.
    pub fn for_game(scenario: &dyn kernel::Scenario) -> Narrator {
        let any = scenario.as_any();
        if let Some(asl) = any.downcast_ref::<hexveil_asl::ruleset::AslScenario>() {
            return Narrator::new(&asl.scenario);
        }
        let mut n = Narrator::new(&Scenario::default());
        n.minis = any.downcast_ref::<hexveil_minis::MinisScenario>().cloned();
        n
    }

    /// A narrator for a game of `scenario`.
    pub fn new(scenario: &Scenario) -> Narrator {
        let names = scenario
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| (UnitId(i as u16), u.name.clone()))
            .collect();
        Narrator {
            names,
            minis: None,
            phase: None,
            verbose: false,
            prompts: true,
            seats: None,
        }
    }

    /// A unit's name (a Replacement is named after its predecessor, with
    /// the `id:N` a command uses for it; an unknown id shows as `id:N`).
    pub fn name(&self, id: UnitId) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("id:{}", id.0))
    }

    /// The units' names, then the verb agreeing with how many they are:
    /// `("ger-squad-2", "moves", "move")` gives "ger-squad-2 moves".
    fn subject(&self, ids: &[UnitId], one: &str, many: &str) -> String {
        let verb = if ids.len() == 1 { one } else { many };
        format!("{} {verb}", self.names_of(ids))
    }

    /// `text` with every unit id the engine wrote (`#3`) given the unit's
    /// name (`ger-hs-1`); a `#` not followed by a known id stays as it is.
    fn with_names(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('#') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            match after[..digits].parse::<u16>().ok().map(UnitId) {
                Some(id) if self.names.contains_key(&id) => out.push_str(&self.name(id)),
                _ => out.push_str(&rest[at..at + 1 + digits]),
            }
            rest = &after[digits..];
        }
        out.push_str(rest);
        out
    }

    fn names_of(&self, ids: &[UnitId]) -> String {
        ids.iter()
            .map(|u| self.name(*u))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The side whose key signed `u`'s entry, where `reader` can tell
    /// (issue 27 item 7): a whole entry's author among the genesis's seats,
    /// or the reader itself for its own entry; `None` for the server's
    /// entries, sealed ones, and before the genesis was seen.
    fn author(&self, u: &Update, reader: Reader) -> Option<Side> {
        match &u.logged {
            Logged::Full { envelope, .. } => {
                let author = &envelope.envelope().author;
                let seats = self.seats.as_ref()?;
                [Side::A, Side::B]
                    .into_iter()
                    .zip(seats)
                    .find(|(_, key)| *key == author)
                    .map(|(side, _)| side)
            }
            Logged::Own(_) | Logged::OwnPlacedByNext { .. } => match reader {
                Reader::Player(side) => Some(side),
                Reader::Spectator | Reader::Everything => None,
            },
            Logged::Sealed { .. } => None,
        }
    }

    /// A sealed fact in a player's words (issue 27 item 7: "side B's A-T
    /// mine record for 3E6", not the layer key `side B at at 3E6`), as its
    /// ruleset names it.
    fn fact_words(&self, request: &kernel::FactRequest) -> String {
        let words = match &self.minis {
            Some(minis) => kernel::Scenario::fact_words(minis, request),
            None => hexveil_asl::model::sealed::FactRequest::from_kernel(request)
                .map_or_else(|| request.generic_words(), |r| r.words()),
        };
        format!("side {}'s {words}", request.owner)
    }

    /// The lines for one update as `reader` sees it.
    pub fn update(&mut self, u: &Update, reader: Reader) -> Vec<String> {
        if let Some(genesis) = &u.genesis {
            self.seats = Some(genesis.players);
        }
        let mut out = Vec::new();
        if let Some(declared) = &u.action {
            out.push(format!(
                "side {}: {}",
                declared.by,
                self.action_bytes(&declared.action)
            ));
        } else if self.verbose {
            let dice = if u.dice.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    u.dice
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            out.push(format!("  log #{}: {}{dice}", u.seq, u.entry));
        } else if let Some(words) = entry_words(&u.entry, self.author(u, reader)) {
            out.push(format!("log #{}: {words}", u.seq));
        }
        if let Some(setup) = &u.public_setup {
            // Issue 27 item 8: the player's name, signed with its setup.
            let side = crate::names::side_in_setup(setup).unwrap_or_default();
            // Read whole (or the reader's own), the setup is the player's
            // signed entry; an Escrow setup comes sealed, its public part
            // in the server's signed view only, checked after the game (G5).
            let whose = match u.logged {
                Logged::Sealed { .. } => "the name in its setup as the server's signed view gives it: an Escrow setup is checked after the game",
                _ => "the name its key signed in its setup",
            };
            match crate::names::name_in_setup(setup) {
                Ok(Some(name)) => out.push(format!("side {side} is played by {name} ({whose})")),
                Ok(None) => {}
                Err(e) => out.push(format!("side {side}'s setup gives no usable name: {e}")),
            }
        }
        for e in &u.events {
            out.extend(self.event(e, reader));
        }
        if let Some(end) = &u.end {
            out.push(format!(
                "RESULT: {}",
                crate::board::result_words(end.winner, &end.reason)
            ));
        }
        if u.closed {
            out.push(
                "the log is closed (every side revealed its secrets or ran out of time): the transcript is ready"
                    .into(),
            );
        }
        if let Reader::Player(me) = reader {
            // What the referee asks of the owner's client (G4, G1): its
            // client answers only what the rules can ask now, and says
            // so when it refuses (a dishonest server's request), so the
            // line says what is asked, not what was released.
            match &u.prompt {
                Prompt::Open(requests) | Prompt::OpenAhead { requests, .. } => out.push(format!(
                    "[G4] the referee asks your client to open, to it only: {}",
                    requests
                        .iter()
                        .filter(|r| r.owner == me)
                        .map(|r| format!("{} {}", r.layer, r.location))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                Prompt::Transitions(list) => out.push(format!(
                    "[G1] the referee asks your client to commit new contents (referee only): {}",
                    list.iter()
                        .map(|(r, c)| format!(
                            "{} {} now holds {}",
                            r.layer,
                            r.location,
                            self.content(c)
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                _ => {}
            }
        }
        if let (true, Reader::Player(_), Prompt::Act) = (self.prompts, reader, &u.prompt) {
            let when = match (self.phase, &self.minis) {
                // The miniatures rules have no Setup phase: each turn a
                // side moves its figures, then `end` passes the turn.
                (_, Some(_)) => {
                    " (move, lay or clear with your figures; `end` ends your turn)".into()
                }
                (Some((turn, side, phase)), None) => {
                    format!(" (Game Turn {turn}, side {side}'s {})", phase.abbrev())
                }
                (None, None) => " (Setup: `end` starts the game)".into(),
            };
            out.push(format!(">> your move{when}"));
        }
        out
    }

    /// An action, in the ruleset's bytes, in words.
    pub fn action_bytes(&self, bytes: &[u8]) -> String {
        if self.minis.is_some() {
            return match hexveil_minis::decode_action(bytes) {
                Ok(a) => minis_action(&a),
                Err(e) => format!("an action this client cannot read ({e})"),
            };
        }
        match hexveil_asl::model::action::decode_action(bytes) {
            Ok(a) => self.action(&a),
            Err(e) => format!("an action this client cannot read ({e})"),
        }
    }

    /// An action in words.
    pub fn action(&self, a: &Action) -> String {
        match a {
            Action::Move { units, to, mode } => {
                let how = match mode {
                    MoveMode::Normal => String::new(),
                    m => format!(" ({})", mode_word(*m)),
                };
                format!("moves {} into {to}{how}", self.names_of(units))
            }
            Action::Rout { unit, to } => format!("routs {} to {to}", self.name(*unit)),
            Action::Advance { units, to } => {
                format!("advances {} into {to}", self.names_of(units))
            }
            Action::Fire {
                firers,
                target,
                extra_drm,
            } => format!(
                "{} fire at {target}{}",
                self.names_of(firers),
                if *extra_drm != 0 {
                    format!(" with {extra_drm:+} DRM")
                } else {
                    String::new()
                }
            ),
            Action::Ffe { hex, fp, kind } => format!(
                "{} of {fp} FP on {hex}",
                match kind {
                    FfeKind::HeConcentration => "HE Concentration FFE",
                    FfeKind::AerialBomb => "aerial bomb attack",
                }
            ),
            Action::Search { unit } => format!("{} searches", self.name(*unit)),
            Action::ClearFullViewMines { unit } => format!(
                "{} spends an extra MF to remove the A-T mines in full view in its hex",
                self.name(*unit)
            ),
            Action::InfantryClearance { units } => {
                format!(
                    "{} Minefield Clearance",
                    self.subject(units, "attempts", "attempt")
                )
            }
            Action::Disembark { vehicle, units } => {
                format!(
                    "{} {}",
                    self.subject(units, "leaves", "leave"),
                    self.name(*vehicle)
                )
            }
            Action::EndPhase => "ends the phase".into(),
            Action::DummyDr => "makes the Secret dr for extra Dummy minefields".into(),
            Action::Concede => "concedes".into(),
            other => self
                .ordnance_action(other)
                .unwrap_or_else(|| format!("{other:?}")),
        }
    }

    /// The lines for one event. `reader` decides whether the audience is
    /// marked (a replay marks what was not public).
    pub fn event(&mut self, e: &kernel::Event, reader: Reader) -> Vec<String> {
        let text = self.event_text(e);
        let Some(text) = text else {
            return Vec::new();
        };
        let cite = if e.cite.is_empty() {
            String::new()
        } else {
            format!("[{}] ", e.cite.join(", "))
        };
        let audience = match (reader, e.to) {
            (Reader::Everything, Visibility::Referee) => " (referee only)".to_string(),
            (Reader::Everything, Visibility::Side(s)) => format!(" (side {s} only)"),
            (Reader::Player(_), Visibility::Side(s)) => format!(" (only side {s} sees this)"),
            _ => String::new(),
        };
        vec![format!("{cite}{text}{audience}")]
    }

    fn event_text(&mut self, e: &kernel::Event) -> Option<String> {
        Some(match &e.kind {
            kernel::EventKind::Dice { purpose, roll } => {
                format!("{roll} for {}", self.with_names(purpose))
            }
            kernel::EventKind::FactOpened { request, content } => format!(
                "the referee opened {}: {}",
                self.fact_words(request),
                self.content(content)
            ),
            kernel::EventKind::Transition {
                request,
                new_content,
            } => format!(
                "{} must now hold {}",
                self.fact_words(request),
                self.content(new_content)
            ),
            kernel::EventKind::Void { reason } => {
                format!("the action is void: no effect, its rolls are spent ({reason})")
            }
            kernel::EventKind::Rules(bytes) if self.minis.is_some() => {
                let scenario = self.minis.as_ref().expect("checked");
                match hexveil_minis::decode_event(bytes) {
                    Ok(m) => hexveil_minis::describe_event(scenario, &m),
                    Err(why) => format!("an event this client cannot read ({why})"),
                }
            }
            kernel::EventKind::Rules(_) => match hexveil_asl::ruleset::event_from_kernel(e) {
                Ok(asl) => self.asl_event_text(&asl.kind)?,
                Err(why) => format!("an event this client cannot read ({why})"),
            },
        })
    }

    fn asl_event_text(&mut self, kind: &EventKind) -> Option<String> {
        Some(match kind {
            EventKind::Dice { .. }
            | EventKind::FactOpened { .. }
            | EventKind::Transition { .. }
            | EventKind::Void { .. } => return None,
            EventKind::Move(m) => self.movement(m),
            EventKind::Minefield(m) => self.minefield(m),
            EventKind::Fire(f) => self.fire(f),
            EventKind::Morale(m) => self.morale(m),
            EventKind::BoobyTrap(b) => self.booby(b),
            EventKind::DaisyChain(d) => self.daisy(d),
            EventKind::Turn(t) => self.turn(t),
            EventKind::Ordnance(o) => self.ordnance(o),
        })
    }

    /// A sealed content (the ruleset's 8 bytes) in words.
    pub fn content(&self, c: &kernel::Content) -> String {
        if self.minis.is_some() {
            return match hexveil_minis::CellMines::decode(c) {
                Ok(m) if m.is_empty() => "no mines".into(),
                Ok(m) => format!(
                    "{} A-P{} and {} A-T mines per square inch",
                    m.ap,
                    if m.s { " (S-mines)" } else { "" },
                    m.at
                ),
                Err(e) => format!("{c:?} ({e})"),
            };
        }
        match hexveil_asl::content::from_kernel(c) {
            Ok(c) => self.asl_content(&c),
            Err(e) => format!("{c:?} ({e})"),
        }
    }

    /// An ASL sealed content in words.
    pub fn asl_content(&self, c: &Content) -> String {
        match c {
            Content::Empty => "nothing".into(),
            Content::ApMines(s) => format!("{}-factor A-P mines", s.factors()),
            Content::Dummy => "a Dummy".into(),
            Content::AtMines(f) => format!("{} A-T mine factors", f.get()),
            Content::BoobyTraps(l) => format!("Booby Traps level {}", level(*l)),
            Content::Daisy(DaisyNote::Nothing) => "no Daisy Chain placement".into(),
            Content::Daisy(DaisyNote::Placed { holder, hex }) => {
                format!("{}'s Daisy Chain placed in {hex}", self.name(*holder))
            }
        }
    }

    fn movement(&self, m: &MoveEvent) -> String {
        match m {
            MoveEvent::Moved {
                kind,
                units,
                from,
                to,
                mode,
            } => {
                let (one, many) = match kind {
                    MoveKind::Move => ("moves", "move"),
                    MoveKind::Rout => ("routs", "rout"),
                    MoveKind::Advance => ("advances", "advance"),
                    MoveKind::Disembark => ("disembarks", "disembark"),
                };
                let how = match mode {
                    MoveMode::Normal => String::new(),
                    m => format!(" ({})", mode_word(*m)),
                };
                format!(
                    "{} from {from} into {to}{how}",
                    self.subject(units, one, many)
                )
            }
            MoveEvent::Stayed { units, hex, .. } => format!(
                "{} in {hex}: the exit attack stopped {}",
                self.subject(units, "stays", "stay"),
                if units.len() == 1 { "it" } else { "them" }
            ),
            MoveEvent::Disembarked {
                vehicle,
                units,
                hex,
            } => format!(
                "{} {} in {hex}",
                self.subject(units, "leaves", "leave"),
                self.name(*vehicle)
            ),
            MoveEvent::TrailBreakPlaced { hex, ends } => format!(
                "a Trail Break now crosses the minefield in {hex} (between {} and {})",
                ends[0], ends[1]
            ),
            MoveEvent::FlailEntered { unit, hex } => {
                format!("{} enters {hex} flailing for mines", self.name(*unit))
            }
            MoveEvent::FlailBroken { unit, hex } => {
                format!("{}'s flail is destroyed entering {hex}", self.name(*unit))
            }
        }
    }

    fn minefield(&self, m: &MinefieldEvent) -> String {
        match m {
            MinefieldEvent::ApPresent { hex, owner } => format!(
                "{hex} holds side {owner}'s A-P mines: it is now marked as a Known minefield"
            ),
            MinefieldEvent::ApAttack {
                hex,
                crossing,
                targets,
                final_dr,
                strength,
                result,
            } => {
                let which = match (crossing, targets.len()) {
                    (Crossing::Exit, 1) => "as it leaves",
                    (Crossing::Exit, _) => "as they leave",
                    (Crossing::Entry, 1) => "as it enters",
                    (Crossing::Entry, _) => "as they enter",
                };
                let what = match (strength, result) {
                    (Some(s), Some(r)) => format!("{s}-factor minefield, result {r}"),
                    (Some(s), None) => format!("{s}-factor minefield, no effect"),
                    (None, Some(r)) => format!("result {r}"),
                    (None, None) => "no effect (the minefield's strength stays hidden)".into(),
                };
                format!(
                    "A-P minefield in {hex} attacks {} {which}: Final DR {final_dr}, {what}",
                    self.names_of(targets)
                )
            }
            MinefieldEvent::PrcSurvival {
                vehicle,
                unit,
                dr,
                needed,
                survived,
                ..
            } => format!(
                "{} aboard the eliminated {} rolls {dr} for survival (needs {needed} or less): {}",
                self.name(*unit),
                self.name(*vehicle),
                if *survived {
                    "it survives and Bails Out"
                } else {
                    "it is lost with the vehicle"
                }
            ),
            MinefieldEvent::ApAttackSealed { hex, strength, fp } => format!(
                "the no-effect attack in {hex} was made by {strength}-factor mines on the {fp} FP column"
            ),
            MinefieldEvent::VehicleHit { unit, hex, outcome } => format!(
                "the mines in {hex} hit {}: {}",
                self.name(*unit),
                vehicle_outcome(*outcome)
            ),
            MinefieldEvent::DummyFound {
                hex,
                owner,
                by,
                marked,
            } => format!(
                "side {owner}'s Known Minefield counter in {hex} is a Dummy, found by {}{}",
                match by {
                    FoundBy::Entry => "entering it",
                    FoundBy::Search => "Search",
                    FoundBy::Ffe => "the FFE that removed every mine it showed",
                },
                if *marked {
                    "; a Dummy marker now marks the hex"
                } else {
                    "; the counter is removed"
                }
            ),
            MinefieldEvent::SearchFound { hex, owner, layer } => format!(
                "Search finds side {owner}'s {} mines in {hex}",
                mine_kind(*layer)
            ),
            MinefieldEvent::AtAttack {
                hex,
                unit,
                factors,
                trigger_dr,
                final_dr,
                aerial_af,
                outcome,
            } => format!(
                "{factors} A-T mine factors in {hex} go off under {}: trigger dr {trigger_dr}, Final DR {final_dr}{}: {}",
                self.name(*unit),
                aerial_af
                    .map(|a| format!(" (Aerial AF {a})"))
                    .unwrap_or_default(),
                vehicle_outcome(*outcome)
            ),
            MinefieldEvent::AtNotTriggered { hex, unit, factors } => format!(
                "the trigger dr under {} in {hex} set off nothing ({factors} A-T factors there)",
                self.name(*unit)
            ),
            MinefieldEvent::ConcealmentLost { unit } => {
                format!("{} loses its concealment to the mines", self.name(*unit))
            }
            MinefieldEvent::FullViewClearanceDeclared { unit, hex } => format!(
                "{} will remove the A-T mines in full view in {hex} at the end of the MPh",
                self.name(*unit)
            ),
            MinefieldEvent::FullViewMinesRemoved { hex, unit } => format!(
                "{} removed the A-T mines in full view in {hex}",
                self.name(*unit)
            ),
            MinefieldEvent::FullViewClearanceFailed { hex, unit } => format!(
                "{} could not remove the A-T mines in {hex}",
                self.name(*unit)
            ),
            MinefieldEvent::FfeChanged {
                hex,
                request,
                before,
                after,
            } => format!(
                "the FFE in {hex} changed {request} from {} to {}",
                self.asl_content(before),
                self.asl_content(after)
            ),
            MinefieldEvent::Flail(f) => format!(
                "{}'s Mine Clearance in {}{}: {}",
                self.name(f.unit),
                f.hex,
                f.original_dr
                    .map(|d| format!(" (Original DR {d})"))
                    .unwrap_or_default(),
                match f.outcome {
                    FlailOutcome::TrailBreak => "a Trail Break is made",
                    FlailOutcome::FlailBroken => "the flail breaks",
                    FlailOutcome::Destroyed => "the tank is destroyed",
                    FlailOutcome::Immobilized => "the tank is Immobilized",
                    FlailOutcome::NotAttempted => "not attempted",
                }
            ),
            MinefieldEvent::Clearance {
                hex,
                units,
                final_dr,
                sapper_drm,
                cleared,
            } => format!(
                "{} to clear the mines in {hex}: Final DR {final_dr}{}, {}",
                self.subject(units, "tries", "try"),
                if *sapper_drm != 0 {
                    format!(" (Sapper DRM {sapper_drm:+})")
                } else {
                    String::new()
                },
                if *cleared {
                    "a Trail Break is made"
                } else {
                    "no success"
                }
            ),
            MinefieldEvent::ShownStrengthChanged {
                hex,
                owner,
                layer,
                now,
            } => format!(
                "the FFE in {hex} changed side {owner}'s shown {} minefield: its counter now shows {}",
                mine_kind(*layer),
                match now {
                    Content::Empty => "no such mines".to_string(),
                    c => self.asl_content(c),
                }
            ),
            MinefieldEvent::FfeAttack { hex, fp, original } => {
                format!("the {fp} FP attack on {hex} rolls {original} against mines")
            }
        }
    }

    fn fire(&self, f: &FireEvent) -> String {
        match f {
            FireEvent::Attack {
                firers,
                target,
                fp,
                column,
                original,
                tem,
                leadership,
                extra_drm,
                final_dr,
                result,
                ..
            } => format!(
                "{} {fp} FP at {target} on the {column} column: Original DR {original}, TEM {tem:+}, leadership {leadership:+}, other {extra_drm:+}, Final DR {final_dr}: {result}",
                self.subject(firers, "fires", "fire")
            ),
            FireEvent::Cowered { shift } => format!("the Fire Group cowers ({shift} columns)"),
            FireEvent::AmmunitionShortage { unit } => {
                format!("{} runs short of ammunition", self.name(*unit))
            }
        }
    }

    fn morale(&mut self, m: &MoraleEvent) -> String {
        match m {
            MoraleEvent::IftResult {
                result,
                hex,
                targets,
                ..
            } => {
                let place = hex.map(|h| format!(" in {h}")).unwrap_or_default();
                if targets.is_empty() {
                    // Issue 27 item 7: no empty list, no double space.
                    format!("{result}{place}: no unit there to take it")
                } else {
                    format!("{result} applies to {}{place}", self.names_of(targets))
                }
            }
            MoraleEvent::MoraleCheck {
                unit,
                why,
                morale_level,
                original,
                final_dr,
                passed,
                casualty_mc,
                ..
            } => format!(
                "{} takes a Morale Check ({why}) against {morale_level}: Original DR {original}, Final DR {final_dr}: {}{}",
                self.name(*unit),
                if *passed { "passed" } else { "failed" },
                if *casualty_mc { ", Casualty MC" } else { "" }
            ),
            MoraleEvent::TaskCheck {
                unit,
                why,
                morale_level,
                original,
                final_dr,
                passed,
                booby_trap_only,
                ..
            } => format!(
                "{} takes a Task Check ({why}) against {morale_level}: Original DR {original}, Final DR {final_dr}: {}{}",
                self.name(*unit),
                if *passed { "passed" } else { "failed: pinned" },
                if *booby_trap_only {
                    " (for Booby Traps only)"
                } else {
                    ""
                }
            ),
            MoraleEvent::Broken { unit } => format!("{} breaks", self.name(*unit)),
            MoraleEvent::Pinned { unit } => format!("{} is pinned", self.name(*unit)),
            MoraleEvent::Disrupted { unit } => format!("{} is Disrupted", self.name(*unit)),
            MoraleEvent::CasualtyReduced { unit, from, to } => format!(
                "{} is Casualty Reduced from {from} to {to}",
                self.name(*unit)
            ),
            MoraleEvent::Eliminated { unit, what, why } => {
                format!("{} ({what}) is eliminated: {why}", self.name(*unit))
            }
            MoraleEvent::Replaced { old, from, new, to } => {
                let old_name = self.name(*old);
                for (i, (id, what)) in new.iter().zip(to).enumerate() {
                    let suffix = if new.len() > 1 {
                        format!("-{}", i + 1)
                    } else {
                        String::new()
                    };
                    self.names
                        .insert(*id, format!("{old_name}{suffix} ({what}, id:{})", id.0));
                }
                format!(
                    "{old_name} ({from}) is Replaced by {}",
                    self.names_of(new)
                )
            }
            MoraleEvent::ConcealmentLost { unit } => {
                format!("{} loses its concealment", self.name(*unit))
            }
            MoraleEvent::RandomSelection {
                why,
                candidates,
                rolls,
                selected,
            } => format!(
                "Random Selection for {why}: {} {}; selected {}",
                self.subject(candidates, "rolls", "roll"),
                rolls
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                self.names_of(selected)
            ),
        }
    }

    fn booby(&self, b: &BoobyTrapEvent) -> String {
        match b {
            BoobyTrapEvent::NotTriggered {
                unit,
                hex,
                original_dr,
                level: l,
            } => format!(
                "{}'s Task Check Original DR {original_dr} in {hex} set off no Booby Trap ({})",
                self.name(*unit),
                match l {
                    Some(l) => format!("level {} there does not trigger on it", level(*l)),
                    None => "none were bought on that board".into(),
                }
            ),
            BoobyTrapEvent::Triggered {
                owner,
                unit,
                hex,
                original_dr,
                level: l,
            } => format!(
                "BOOBY TRAP: {}'s Task Check Original DR {original_dr} in {hex} sets off side {owner}'s level {} Booby Traps",
                self.name(*unit),
                level(*l)
            ),
            BoobyTrapEvent::Casualty { unit } => format!(
                "the Booby Trap Casualty Reduces {}",
                self.name(*unit)
            ),
        }
    }

    fn daisy(&self, d: &DaisyEvent) -> String {
        match d {
            DaisyEvent::Placed {
                owner,
                holder,
                hex,
                factors,
                opportunity,
            } => format!(
                "side {owner}'s {} secretly pulls its {factors}-factor Daisy Chain across {hex} (opportunity {opportunity})",
                self.name(*holder)
            ),
            DaisyEvent::IllegalPlacement {
                opportunity,
                reason,
            } => format!("the Daisy Chain note of opportunity {opportunity} is illegal and ignored: {reason}"),
            DaisyEvent::Revealed { owner, hex, seen_by } => format!(
                "side {owner}'s Daisy Chain in {hex} is revealed{}",
                seen_by
                    .map(|u| format!(": {} sees it", self.name(u)))
                    .unwrap_or_default()
            ),
            DaisyEvent::Attacks {
                owner,
                hex,
                vehicle,
                factors,
                immediate,
            } => format!(
                "side {owner}'s Daisy Chain ({factors} A-T factors) in {hex} attacks {}{}",
                self.name(*vehicle),
                if *immediate {
                    ", pulled across as it entered"
                } else {
                    ""
                }
            ),
        }
    }

    fn turn(&mut self, t: &TurnEvent) -> String {
        match t {
            TurnEvent::PhaseBegins {
                turn,
                phasing,
                phase,
            } => {
                self.phase = Some((*turn, *phasing, *phase));
                format!(
                    "-- Game Turn {turn}, side {phasing}'s {} ({}) begins --",
                    phase_name(*phase),
                    phase.abbrev()
                )
            }
            TurnEvent::Surrendered { unit, to } => {
                format!("{} surrenders to side {to}", self.name(*unit))
            }
            TurnEvent::DummyDrMade { side } => {
                format!("side {side} made its Secret dr for extra Dummy minefields")
            }
            TurnEvent::ExtraDummies { side, count } => {
                format!("side {side} receives {count} extra Dummy minefield counters")
            }
            TurnEvent::Conceded { side } => format!("side {side} concedes"),
            TurnEvent::GameOver { winner, reason } => match winner {
                Some(w) => format!("GAME OVER: side {w} wins ({reason})"),
                None => format!("GAME OVER: {reason}"),
            },
            TurnEvent::Consumed { side, units } => format!(
                "side {side}'s action is consumed: its ruling needs rules data the game lacks, its dice stand, and {} act no more this phase",
                self.names_of(units)
            ),
            TurnEvent::ConsumedWhy { reason } => format!("the action was consumed because {reason}"),
        }
    }
}

/// The log entries a reader is told about even when they carry no event;
/// `author` names the side that signed it where the reader can tell.
fn entry_words(entry: &str, author: Option<Side>) -> Option<String> {
    let who = author.map_or_else(|| "a side".to_string(), |s| format!("side {s}"));
    Some(match entry {
        "concession" => format!("{who} concedes"),
        "end" => {
            "the game is over; both sides now reveal their secrets (seeds and sealed contents)"
                .into()
        }
        "reveal" => format!(
            "{who} revealed its secrets; the verifier checks them against its commitments (G5)"
        ),
        // A server entry: the end line that follows names the side.
        "timeout" => "a side did not answer the referee within the answer timeout (G2)".into(),
        _ => return None,
    })
}

fn level(l: BoobyLevel) -> &'static str {
    match l {
        BoobyLevel::A => "A",
        BoobyLevel::B => "B",
        BoobyLevel::C => "C",
    }
}

fn vehicle_outcome(o: VehicleOutcome) -> &'static str {
    match o {
        VehicleOutcome::NoEffect => "no effect",
        VehicleOutcome::Immobilized => "Immobilized",
        VehicleOutcome::Eliminated => "eliminated",
        VehicleOutcome::BurningWreck => "a Burning Wreck",
    }
}

/// A miniatures action in words.
fn minis_action(a: &hexveil_minis::Action) -> String {
    use hexveil_minis::Action as A;
    match a {
        A::Move { figure, path } => format!(
            "moves {figure} through {}",
            path.iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        A::Lay { figure, cell, kind } => {
            format!(
                "{figure} lays an {} in {cell} (seed 004 laying)",
                kind.words()
            )
        }
        A::Clear { figure, to } => {
            format!("{figure} clears a 1 in wide path to {to} (seed 004 clearing)")
        }
        A::EndTurn => "ends the turn".into(),
        A::Concede => "concedes".into(),
    }
}

/// The command-language word for a movement mode.
pub fn mode_word(m: MoveMode) -> &'static str {
    match m {
        MoveMode::Normal => "normal",
        MoveMode::Bypass => "bypass",
        MoveMode::Trench => "trench",
        MoveMode::TowerStairwell => "stairs",
        MoveMode::TrailBreak => "tb",
        MoveMode::VehicularBypass => "vbm",
        MoveMode::FlailClearance => "flail",
    }
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Setup => "Setup",
        Phase::Rally => "Rally Phase",
        Phase::PrepFire => "Prep Fire Phase",
        Phase::Movement => "Movement Phase",
        Phase::DefensiveFire => "Defensive Fire Phase",
        Phase::AdvancingFire => "Advancing Fire Phase",
        Phase::Rout => "Rout Phase",
        Phase::Advance => "Advance Phase",
        Phase::CloseCombat => "Close Combat Phase",
    }
}

/// "A-T" for the A-T layer, "A-P" otherwise (the minefield layers, B28).
fn mine_kind(layer: Layer) -> &'static str {
    match layer {
        Layer::AntiTank => "A-T",
        _ => "A-P",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexveil_asl::b28::minefield::MinefieldEvent;
    use hexveil_asl::Event;

    /// An ASL event as the protocol carries it.
    fn k(e: &Event) -> kernel::Event {
        hexveil_asl::ruleset::event_to_kernel(e)
    }

    fn narrator() -> Narrator {
        Narrator::new(
            &hexveil_asl::model::scenario::Scenario::from_toml(include_str!(
                "../../examples/scenario.toml"
            ))
            .unwrap(),
        )
    }

    /// An update of a sealed entry named `entry`, asking `prompt`.
    fn sealed(seq: u64, entry: &str, prompt: Prompt) -> Update {
        let zero = hexveil_protocol::encoding::Digest::ZERO;
        Update {
            seq,
            head: zero,
            entry: entry.into(),
            action: None,
            genesis: None,
            public_setup: None,
            end: None,
            closed: false,
            events: Vec::new(),
            dice: Vec::new(),
            prompt,
            logged: Logged::Sealed { entry_hash: zero },
            attest: None,
        }
    }

    fn attack(strength: Option<u8>) -> Event {
        Event {
            to: Visibility::Public,
            kind: EventKind::Minefield(MinefieldEvent::ApAttack {
                hex: "3E4".parse().unwrap(),
                crossing: Crossing::Entry,
                targets: vec![UnitId(0), UnitId(1)],
                final_dr: 9,
                strength,
                result: strength.map(|_| hexveil_asl::a::ift::IftResult::Nmc),
            }),
            cite: vec!["B28.41".into(), "R13".into()],
        }
    }

    #[test]
    fn seed004_a_miniatures_prompt_never_speaks_of_a_setup_phase() {
        // Found by a new user: `end` at the old "Setup" prompt gave away
        // side A's first turn.
        let scenario = hexveil_minis::MinisScenario::from_toml(include_str!(
            "../../examples/minis/scenario.toml"
        ))
        .unwrap();
        let mut n = Narrator::for_game(&scenario);
        let lines = n.update(&sealed(9, "ruling", Prompt::Act), Reader::Player(Side::A));
        let prompt = lines.last().unwrap();
        assert!(prompt.starts_with(">> your move"), "{lines:?}");
        assert!(!prompt.contains("Setup"), "{prompt}");
        assert!(prompt.contains("`end` ends your turn"), "{prompt}");
    }

    // G5, issue 27 item 8: a name is "the name its key signed" only where
    // the reader holds the signed setup. An Escrow setup comes to the
    // other side sealed: its public part, and the name in it, are the
    // server's signed view until the transcript is checked.
    #[test]
    fn g5_a_name_in_a_sealed_escrow_setup_is_not_said_to_be_signed() {
        let setup = crate::names::with_name(
            include_str!("../../examples/demo/setup-b.toml"),
            "Bob the Sapper",
        )
        .unwrap();
        let digest = hexveil_protocol::encoding::Digest::ZERO;
        let shown = |logged: Logged| {
            let u = Update {
                public_setup: Some(setup.clone()),
                logged,
                ..sealed(4, "setup", Prompt::Wait)
            };
            narrator()
                .update(&u, Reader::Player(Side::A))
                .into_iter()
                .find(|l| l.contains("Bob the Sapper"))
                .unwrap()
        };
        let escrowed = shown(Logged::Sealed { entry_hash: digest });
        assert_eq!(
            escrowed,
            "side B is played by Bob the Sapper (the name in its setup as the server's signed view gives it: an Escrow setup is checked after the game)"
        );
        // A setup held whole (here by its receipt, as its own author holds
        // it): the name its key signed.
        let server = hexveil_protocol::identity::Identity::from_pkcs8(
            &hexveil_protocol::identity::Identity::generate_pkcs8().unwrap(),
        )
        .unwrap();
        let receipt = hexveil_protocol::envelope::Receipt::issue(
            &server,
            hexveil_protocol::encoding::GameId([7; 16]),
            &hexveil_protocol::envelope::Appended {
                seq: 4,
                entry_hash: digest,
                new_head: digest,
            },
        );
        let signed = shown(Logged::Own(Box::new(receipt)));
        assert_eq!(
            signed,
            "side B is played by Bob the Sapper (the name its key signed in its setup)"
        );
    }

    // G4, G5: an owner's client opens only what the rules can ask now (its
    // guard refuses a dishonest server's request, with a line of its own
    // saying nothing was released), so the narrative of a prompt says what
    // the referee asks, never that the client opened it.
    #[test]
    fn g4_g5_a_prompt_to_open_is_told_as_asked_not_as_opened() {
        let request = kernel::FactRequest {
            owner: Side::B,
            layer: kernel::Layer::named("ap").unwrap(),
            location: kernel::Location::key_of("3E3").unwrap(),
        };
        let u = sealed(20, "ruling", Prompt::Open(vec![request]));
        let lines = narrator().update(&u, Reader::Player(Side::B));
        println!("{lines:?}");
        assert!(
            lines.contains(
                &"[G4] the referee asks your client to open, to it only: ap 3E3".to_string()
            ),
            "{lines:?}"
        );
        assert!(!lines.iter().any(|l| l.contains("opens")), "{lines:?}");
    }

    #[test]
    fn r13_a_no_effect_attack_says_the_strength_stays_hidden() {
        let mut n = narrator();
        let lines = n.event(&k(&attack(None)), Reader::Player(Side::A));
        assert_eq!(
            lines,
            vec!["[B28.41, R13] A-P minefield in 3E4 attacks ger-squad-1, ger-leader as they enter: Final DR 9, no effect (the minefield's strength stays hidden)".to_string()]
        );
        let lines = n.event(&k(&attack(Some(8))), Reader::Spectator);
        assert!(
            lines[0].contains("8-factor minefield, result NMC"),
            "{lines:?}"
        );
    }

    // Issue 27 item 7: an IFT result on a Location with nobody to take it
    // reads as words, with no empty list nor double space.
    #[test]
    fn a7_an_ift_result_with_no_target_names_no_empty_list() {
        let mut n = narrator();
        let result = |targets: Vec<UnitId>| Event {
            to: Visibility::Public,
            kind: EventKind::Morale(MoraleEvent::IftResult {
                result: hexveil_asl::a::ift::IftResult::Mc(1),
                hex: Some("3E5".parse().unwrap()),
                cause: hexveil_asl::a::morale::AttackCause::Fire,
                targets,
            }),
            cite: vec!["A7".into()],
        };
        let none = n.event(&k(&result(vec![])), Reader::Spectator);
        println!("{none:?}");
        assert!(
            none[0].contains("1MC in 3E5: no unit there to take it"),
            "{none:?}"
        );
        assert!(!none[0].contains("  "), "{none:?}");
        let one = n.event(&k(&result(vec![UnitId(0)])), Reader::Spectator);
        assert!(
            one[0].contains("1MC applies to ger-squad-1 in 3E5"),
            "{one:?}"
        );
    }

    // Issue 27 item 7 (G4): an opened fact and a transition are named in
    // words, never by their layer key ("side B at at 3E6").
    #[test]
    fn g4_an_opened_fact_is_named_in_words() {
        let mut n = narrator();
        let request = hexveil_asl::model::sealed::FactRequest {
            owner: Side::B,
            layer: Layer::AntiTank,
            location: hexveil_asl::model::sealed::Location::Hex("3E6".parse().unwrap()),
        };
        let opened = Event {
            to: Visibility::Public,
            kind: EventKind::FactOpened {
                request,
                content: Content::AtMines(hexveil_asl::model::sealed::AtFactors::new(3).unwrap()),
            },
            cite: vec!["B28.53".into(), "DESIGN 3.1".into()],
        };
        let lines = n.event(&k(&opened), Reader::Everything);
        println!("{lines:?}");
        assert!(
            lines[0].starts_with(
                "[B28.53, DESIGN 3.1] the referee opened side B's A-T mine record for 3E6: "
            ),
            "{lines:?}"
        );
        assert!(!lines[0].contains("at at"), "{lines:?}");
    }

    // Issue 27 item 7: a concession and a reveal name their side where the
    // reader can tell who signed them; a server's entry does not guess.
    #[test]
    fn g5_a_concession_and_a_reveal_name_their_side() {
        let c = entry_words("concession", Some(Side::B)).unwrap();
        println!("{c}");
        assert_eq!(c, "side B concedes");
        let r = entry_words("reveal", Some(Side::A)).unwrap();
        assert!(r.starts_with("side A revealed its secrets"), "{r}");
        assert_eq!(
            entry_words("concession", None).unwrap(),
            "a side concedes",
            "unknown author: no side is guessed"
        );
        assert!(entry_words("move", Some(Side::A)).is_none());
    }

    #[test]
    fn b28_41_one_unit_gets_a_singular_verb_and_dice_name_their_units() {
        let mut n = narrator();
        let mut e = attack(None);
        if let EventKind::Minefield(MinefieldEvent::ApAttack { targets, .. }) = &mut e.kind {
            targets.truncate(1);
        }
        let lines = n.event(&k(&e), Reader::Player(Side::A));
        assert!(
            lines[0].contains("attacks ger-squad-1 as it enters"),
            "{lines:?}"
        );
        let dice = Event {
            to: Visibility::Public,
            kind: EventKind::Dice {
                purpose: "MC of 9-1 leader #1 (NMC Minefield), not #99 nor #".into(),
                roll: hexveil_asl::Roll::DR {
                    coloured: 2,
                    white: 1,
                },
            },
            cite: vec!["A10".into()],
        };
        let lines = n.event(&k(&dice), Reader::Player(Side::A));
        assert!(
            lines[0].ends_with("for MC of 9-1 leader ger-leader (NMC Minefield), not #99 nor #"),
            "{lines:?}"
        );
    }

    #[test]
    fn a_replay_marks_what_was_hidden_and_a_player_what_only_it_sees() {
        let mut n = narrator();
        let mut e = attack(None);
        e.to = Visibility::Referee;
        assert!(n.event(&k(&e), Reader::Everything)[0].ends_with("(referee only)"));
        e.to = Visibility::Side(Side::B);
        assert!(n.event(&k(&e), Reader::Everything)[0].ends_with("(side B only)"));
        assert!(n.event(&k(&e), Reader::Player(Side::B))[0].ends_with("(only side B sees this)"));
    }
}
