//! The replay page (issue 12): one self-contained HTML file (inline CSS
//! and JavaScript, no network, no external font) that steps back and
//! forth through a game's transcript, one step per log entry: the board
//! picture after it ([`crate::svg`]), the entry in words with its rule
//! citations ([`crate::transcript::entry_lines`]), the dice of a beacon
//! round it completes with every party's pad entry and the seed they give
//! (PROTOCOL.md 7 and 8), and the verdict on the whole transcript at the
//! top. `hexveil replay FILE --html OUT` writes it; the server's web view
//! serves it at `/game/{id}/replay`.
//!
//! # What a page may show (G3)
//!
//! The page verifies the bytes itself ([`crate::transcript::judge`]). Only
//! a complete, clean transcript (the game ended, every side revealed, every
//! audit ran) is shown with everything revealed: every event, referee-only
//! ones included, and the sides' sealed contents drawn on the board
//! ([`SvgView::All`]). Any other transcript (cut before the end, or with a
//! fault) is shown as a spectator saw it ([`SvgView::Public`]): the public
//! events only, no opening, transition or reveal in words, no Secret dr
//! that was not public, no sealed content drawn.
//!
//! # The page
//!
//! Stable ids for people and browser tests: `#verdict` (class and
//! `data-status`: `clean`, `incomplete`, `fault` or `unreadable`),
//! `#board` (the current step's SVG), `#narrative`, `#dice`, `#step`
//! (`step N / LAST`, N the log entry's seq, 0 the genesis), buttons
//! `#first`, `#prev`, `#next`, `#last`, `#prev-change`, `#next-change`,
//! and `#slider`. Keys: Left and Right step, Home and End go to the ends,
//! Shift+Left and Shift+Right jump to the previous or next step whose
//! picture differs. The URL fragment `#step=N` follows the step shown and
//! opens the page there.
//!
//! The page holds one `<template class="step" data-seq data-pic>` per log
//! entry and one `<template id="pic-P">` per distinct picture: an entry
//! that changes nothing on the board (a pad entry, a roll, an opening)
//! shows the picture of the last entry that did. The hexes (or the table),
//! the same at every step, are drawn once (`#hv-ground`) and every picture
//! uses them, so a long game stays a small file. The transcript is folded
//! once, in one pass.

use crate::board::Folder;
use crate::narrate::{Narrator, Reader};
use crate::svg::{board_svg_parts, escape, sealed_facts, SvgParts, SvgView};
use crate::transcript::{
    entry_lines, genesis_line, judge, referee_of, refused_line, CLEAN, INCOMPLETE, UNREADABLE,
};
use crate::viewer::{legend_html, viewer_html, LegendFor, VIEWER_SCRIPT, VIEWER_STYLE};
use hexveil_core::{Roll, Side};
use hexveil_protocol::beacon::{nonce_roll_seed, roll_seed, secret_roll_seed, RollSeed};
use hexveil_protocol::encoding::{tag, Digest, GameId, Party};
use hexveil_protocol::message::{side_of, Body, RevealBody, RollRecord};
use hexveil_protocol::pad::{PadEntry, PadPosition, PadValue};
use hexveil_protocol::referee::{Accepted, Referee};
use hexveil_protocol::transcript::Transcript;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The replay page of `transcript` (the bytes of a transcript file), as
/// one self-contained HTML document. Never fails: a transcript that does
/// not verify still gets a page that says so and shows what may be shown
/// (see the module documentation).
pub fn replay_html(transcript: &[u8]) -> String {
    replay(transcript).html()
}

/// A transcript read for its replay page: the verdict, the view shown, one
/// [`Step`] per log entry, the pictures they show.
#[derive(Clone, Debug)]
pub struct Replay {
    /// `clean`, `incomplete`, `fault` or `unreadable`.
    pub status: &'static str,
    /// The exit code `hexveil verify` gives the transcript.
    pub exit_code: u8,
    /// The verdict in words.
    pub verdict: String,
    /// The scenario's name, when the genesis could be read.
    pub title: Option<String>,
    /// Who played (issue 27 item 8): `side A (German): Alice` for each
    /// side, the name its key signed in its setup, or `no name given`.
    pub players: Vec<String>,
    /// The view the page shows: everything for a complete, clean game,
    /// the public view otherwise (G3).
    pub view: SvgView,
    /// What could not be shown, in words (damage that stops the replay, a
    /// setup this build cannot read).
    pub notes: Vec<String>,
    /// The ground every picture is drawn on (see [`SvgParts::ground`]).
    pub ground: String,
    /// The distinct pictures, each without its ground: `(head, tail)`.
    pub pictures: Vec<(String, String)>,
    /// One step per log entry, in log order, up to the first entry the
    /// referee refuses (that one included, as the last step).
    pub steps: Vec<Step>,
}

/// One log entry of a replay.
#[derive(Clone, Debug)]
pub struct Step {
    /// The entry's seq.
    pub seq: u64,
    /// The picture shown (an index into [`Replay::pictures`]).
    pub picture: usize,
    /// The entry in words ([`entry_lines`] for the page's reader).
    pub lines: Vec<String>,
    /// The beacon rounds to show with this entry: the one it completes,
    /// or for a ruling every round of the action it rules on.
    pub rolls: Vec<RollShown>,
    /// The move it belongs to (issue 27): 0 for the setup (the genesis,
    /// pads and setups), then one per action, concession, timeout or end,
    /// each with the openings, pad entries, rolls and ruling that follow
    /// it (see [`starts_move`]).
    pub r#move: usize,
}

/// Whether an entry with `body` starts a move of the replay: a player's
/// action (either message version), a concession, a timeout, the end.
/// Everything else (openings, pad entries, rolls, transitions, rulings,
/// reveals, refused answers) belongs to the move under way.
pub fn starts_move(body: &Body) -> bool {
    matches!(
        body,
        Body::Act(_) | Body::Declare(_) | Body::Concede | Body::Timeout { .. } | Body::End(_)
    )
}

/// A beacon round as the transcript holds it: the dice, each party's pad
/// entry and the seed they give (PROTOCOL.md 7, 8).
#[derive(Clone, Debug)]
pub struct RollShown {
    /// The roll number.
    pub k: u64,
    /// The log entry the roll is bound to (the action, or for a setup
    /// roll the roller's pad statement).
    pub action_seq: u64,
    /// That entry's hash, which the seed binds.
    pub action_hash: Option<Digest>,
    /// A Secret dr (B28.47).
    pub secret: bool,
    /// A public roll of message version 4: the actor's part is the nonce
    /// it declared its action with (PROTOCOL.md 7.1).
    pub nonce: bool,
    /// The dice, in request order; empty when withheld (a Secret dr the
    /// page's reader may not see).
    pub dice: Vec<Roll>,
    /// The pad entries in hash order: side A's, side B's, the server's.
    pub entries: Vec<PadShown>,
    /// The seed, when the page's reader may know it.
    pub seed: Option<RollSeed>,
}

/// One party's pad entry in a beacon round.
#[derive(Clone, Debug)]
pub struct PadShown {
    /// Whose.
    pub party: Party,
    /// The log entry that carried it (the server's: its roll record).
    pub seq: u64,
    /// Pad epoch.
    pub epoch: u32,
    /// Index in the epoch's pad.
    pub index: u32,
    /// The value, `None` when withheld (the roller's entry of a Secret dr,
    /// for a reader that may not see it).
    pub value: Option<PadValue>,
    /// Not a pad entry but the nonce of the actor's declaration (message
    /// version 4, PROTOCOL.md 7.1): no pad position.
    pub nonce: bool,
}

/// Reads `transcript` for its replay page (see [`replay_html`]).
pub fn replay(transcript: &[u8]) -> Replay {
    let (verdict, exit_code) = judge(transcript);
    let status = match exit_code {
        CLEAN => "clean",
        INCOMPLETE => "incomplete",
        UNREADABLE => "unreadable",
        _ => "fault",
    };
    // G3: everything is revealed only once the game is over, its reveals
    // audited: a complete, clean transcript.
    let clean = exit_code == CLEAN;
    let view = if clean { SvgView::All } else { SvgView::Public };
    let mut replay = Replay {
        status,
        exit_code,
        verdict: verdict.to_string(),
        title: None,
        players: Vec::new(),
        view,
        notes: Vec::new(),
        ground: String::new(),
        pictures: Vec::new(),
        steps: Vec::new(),
    };
    let t = match Transcript::parse(transcript) {
        Ok(t) => t,
        Err(e) => {
            replay
                .notes
                .push(format!("the transcript cannot be replayed: {e}"));
            return replay;
        }
    };
    let (mut referee, rest) = match referee_of(&t) {
        None => {
            replay.notes.push("the transcript has no entries".into());
            return replay;
        }
        Some(Err(e)) => {
            replay.notes.push(e);
            return replay;
        }
        Some(Ok(r)) => r,
    };
    replay.title = Some(referee.scenario().name().to_string());
    let genesis = referee.genesis();
    let sides = crate::league::side_names(&genesis.scenario_toml);
    let names = crate::league::names_signed_in(&t, &genesis.players);
    replay.players = crate::names::players(
        &sides,
        names
            .each_ref()
            .map(|n| n.as_deref().unwrap_or(crate::names::NO_NAME)),
    );
    let reveals = if clean {
        reveals_of(&referee, rest)
    } else {
        Vec::new()
    };
    let sealed = sealed_facts(view, &reveals, clean);
    let reader = view.reader();
    let scenario = std::sync::Arc::clone(referee.scenario());
    let mut folder = Folder::new(scenario.as_ref(), reader);
    let mut narrator = Narrator::for_game(scenario.as_ref());
    let picture = |replay: &mut Replay, folder: &Folder, seq: u64| {
        let SvgParts { head, ground, tail } = board_svg_parts(folder.board(), view, seq, &sealed);
        if replay.ground.is_empty() {
            replay.ground = ground;
        }
        replay.pictures.push((head, tail));
        replay.pictures.len() - 1
    };
    let first = picture(&mut replay, &folder, 0);
    replay.steps.push(Step {
        seq: 0,
        picture: first,
        lines: vec![genesis_line(&referee)],
        rolls: Vec::new(),
        r#move: 0,
    });
    let mut moves = 0;
    let mut round = RoundSoFar::default();
    let mut rounds_of: BTreeMap<u64, Vec<RollShown>> = BTreeMap::new();
    let mut hashes: BTreeMap<u64, Digest> = BTreeMap::new();
    let game = referee.game_id();
    for entry in rest {
        let seq = entry.envelope.envelope().seq;
        let shown = replay.pictures.len() - 1;
        let accepted = match referee.accept(&entry.envelope) {
            Ok(a) => a,
            Err(e) => {
                replay.steps.push(Step {
                    seq,
                    picture: shown,
                    lines: vec![refused_line(seq, &e)],
                    rolls: Vec::new(),
                    r#move: moves,
                });
                replay.notes.push(format!(
                    "the replay stops at entry {seq}, which the referee refuses"
                ));
                break;
            }
        };
        hashes.insert(seq, accepted.appended.entry_hash);
        let changed = folder.fold(&accepted).unwrap_or_else(|note| {
            replay.notes.push(note);
            true
        });
        let picture = if changed {
            picture(&mut replay, &folder, seq)
        } else {
            shown
        };
        let lines = entry_lines(&mut narrator, &accepted, reader);
        let rolls = match (
            round.take(&accepted, &hashes, &game, reader),
            &accepted.body,
        ) {
            (Some(r), _) => {
                rounds_of.entry(r.action_seq).or_default().push(r.clone());
                vec![r]
            }
            (None, Body::Ruling(r)) => rounds_of.get(&r.action_seq).cloned().unwrap_or_default(),
            (None, _) => Vec::new(),
        };
        if starts_move(&accepted.body) {
            moves += 1;
        }
        replay.steps.push(Step {
            seq,
            picture,
            lines,
            rolls,
            r#move: moves,
        });
    }
    replay
}

/// The sides' Reveal entries (read from the bodies, for a transcript the
/// verifier already found clean).
fn reveals_of(
    referee: &Referee,
    rest: &[hexveil_protocol::message::LoggedEntry],
) -> Vec<(Side, RevealBody)> {
    rest.iter()
        .filter_map(|entry| {
            let env = entry.envelope.envelope();
            let side = referee.party_of_key(&env.author).and_then(side_of)?;
            match Body::decode(&env.body).ok()? {
                Body::Reveal(r) => Some((side, r)),
                _ => None,
            }
        })
        .collect()
}

/// The pad entries and the server's record of the beacon round under way.
#[derive(Default)]
struct RoundSoFar {
    entries: Vec<(u64, PadEntry)>,
    record: Option<(u64, RollRecord)>,
    /// Message version 4 (PROTOCOL.md 7.1): the current action's nonce
    /// (its entry and author) and the opponent's windows of entries.
    nonce: Option<(u64, Party, [u8; 32])>,
    window: Vec<(u64, PadEntry)>,
}

impl RoundSoFar {
    /// Notes `accepted` if it belongs to a round; the round, once this
    /// entry completes it.
    fn take(
        &mut self,
        accepted: &Accepted,
        hashes: &BTreeMap<u64, Digest>,
        game: &GameId,
        reader: Reader,
    ) -> Option<RollShown> {
        let seq = accepted.appended.seq;
        match &accepted.body {
            Body::Declare(d) => {
                self.nonce = Some((seq, accepted.author, d.nonce));
                self.window.clear();
                return None;
            }
            Body::Act(_) => {
                self.nonce = None;
                self.window.clear();
                return None;
            }
            Body::Entries(es) => {
                self.window.extend(es.iter().map(|e| (seq, e.clone())));
                return None;
            }
            Body::OpenAhead(a) => {
                self.window
                    .extend(a.entries.iter().map(|e| (seq, e.clone())));
                return None;
            }
            Body::Entry(e) => self.entries.push((seq, e.clone())),
            Body::Roll(r) => self.record = Some((seq, r.clone())),
            Body::Timeout { .. } => {
                *self = RoundSoFar::default();
                return None;
            }
            _ => return None,
        }
        if accepted.dice.is_empty() {
            return None;
        }
        let (record_seq, record) = self.record.take()?;
        // (log entry, party, pad position, value) of each part of the seed.
        let part = |seq: u64, e: &PadEntry| (seq, e.party, e.position, e.value);
        let mut entries: Vec<(u64, Party, PadPosition, PadValue)> =
            std::mem::take(&mut self.entries)
                .iter()
                .map(|(seq, e)| part(*seq, e))
                .collect();
        let secret = accepted.secret_dice;
        // Message version 4: the actor's nonce and the opponent's entry at
        // this roll's pad position, from its window.
        let nonce = self
            .nonce
            .filter(|(seq, _, _)| *seq == record.action_seq && !secret);
        let mut nonce_party = None;
        if let Some((seq, party, value)) = nonce {
            nonce_party = Some(party);
            entries.push((seq, party, record.server_entry.position, PadValue(value)));
            if let Some((seq, e)) = self
                .window
                .iter()
                .find(|(_, e)| e.party != party && e.position == record.server_entry.position)
            {
                entries.push(part(*seq, e));
            }
        }
        entries.push(part(record_seq, &record.server_entry));
        entries.sort_by_key(|(_, party, _, _)| party.index());
        // B28.47: a Secret dr is its roller's (the author of the entry that
        // completes it) until the end; a reader who may not see it gets
        // neither the roller's entry, nor the seed, nor the dice.
        let withheld = secret
            && match reader {
                Reader::Everything => false,
                Reader::Player(side) => side_of(accepted.author) != Some(side),
                Reader::Spectator => true,
            };
        let action_hash = hashes.get(&record.action_seq).copied();
        let seed = match (withheld, action_hash, values(&entries)) {
            (false, Some(hash), Some([a, b, s])) => Some(if secret {
                secret_roll_seed(game, record.k, &hash, [&a, &b, &s])
            } else if nonce.is_some() {
                nonce_roll_seed(game, record.k, &hash, [&a, &b, &s])
            } else {
                roll_seed(game, record.k, &hash, [&a, &b, &s])
            }),
            _ => None,
        };
        Some(RollShown {
            k: record.k,
            action_seq: record.action_seq,
            action_hash,
            secret,
            nonce: nonce.is_some(),
            dice: if withheld {
                Vec::new()
            } else {
                accepted.dice.clone()
            },
            entries: entries
                .iter()
                .map(|(seq, party, position, value)| PadShown {
                    party: *party,
                    seq: *seq,
                    epoch: position.epoch,
                    index: position.index,
                    value: (!(withheld && *party == accepted.author)).then_some(*value),
                    nonce: nonce_party == Some(*party),
                })
                .collect(),
            seed,
        })
    }
}

/// The values of A's, B's and the server's parts, in that order.
fn values(entries: &[(u64, Party, PadPosition, PadValue)]) -> Option<[PadValue; 3]> {
    let of = |p: Party| {
        entries
            .iter()
            .find(|(_, party, _, _)| *party == p)
            .map(|(_, _, _, v)| *v)
    };
    Some([of(Party::A)?, of(Party::B)?, of(Party::Server)?])
}

fn party_words(p: Party) -> &'static str {
    match p {
        Party::A => "side A",
        Party::B => "side B",
        Party::Server => "server",
    }
}

impl Replay {
    /// The picture `index` as a standalone SVG (its ground included).
    pub fn picture_svg(&self, index: usize) -> Option<String> {
        let (head, tail) = self.pictures.get(index)?;
        Some(format!("{head}{}{tail}", self.ground))
    }

    /// The page, as one self-contained HTML document.
    pub fn html(&self) -> String {
        let mut out = String::new();
        let title = match &self.title {
            Some(t) => format!("{t}: replay"),
            None => "hexveil replay".to_string(),
        };
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"generator\" content=\"hexveil\">\n<title>{}</title>\n<style>{STYLE}{VIEWER_STYLE}</style>\n</head>\n<body>\n",
            escape(&title)
        );
        // The ground, drawn once; every picture <use>s it.
        let _ = writeln!(
            out,
            "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" \
             xmlns=\"http://www.w3.org/2000/svg\"><defs><g id=\"hv-ground\">\n{}</g></defs></svg>",
            self.ground
        );
        let _ = writeln!(out, "<header>\n<h1>{}</h1>", escape(&title));
        let players = crate::names::players_html(&self.players);
        if !players.is_empty() {
            let _ = writeln!(out, "{players}");
        }
        let shown = match (self.view, self.status) {
            (SvgView::All, _) => {
                "Everything is shown: the game is over and every side's secrets were revealed and audited.".to_string()
            }
            (_, "unreadable") => "Nothing can be shown past the damage.".to_string(),
            _ => "Public view only: no sealed fact is shown until the transcript is complete and clean (G3).".to_string(),
        };
        // The status word once: a verdict that starts with it ("CLEAN:
        // ...") is not headed by it again (a new user's trial, issue 27).
        let heading = if self
            .verdict
            .to_uppercase()
            .starts_with(&self.status.to_uppercase())
        {
            String::new()
        } else {
            format!("<strong>{}</strong> ", self.status)
        };
        let _ = writeln!(
            out,
            "<div id=\"verdict\" class=\"verdict {status}\" data-status=\"{status}\" \
             data-exit-code=\"{code}\">{heading}<span class=\"text\">{}</span>\
             <p class=\"shown\">{}</p>",
            escape(&self.verdict),
            escape(&shown),
            status = self.status,
            code = self.exit_code,
        );
        for n in &self.notes {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(n));
        }
        out.push_str("</div>\n</header>\n");
        let last = self.steps.len().saturating_sub(1);
        let last_seq = self.steps.last().map_or(0, |s| s.seq);
        let _ = writeln!(
            out,
            "<nav>\
             <button id=\"first\" type=\"button\" title=\"first step (Home)\">|&#x25C0;</button>\
             <button id=\"prev-change\" type=\"button\" title=\"previous change of the board (Shift+Left)\">&#x25C0;&#x25C0;</button>\
             <button id=\"prev\" type=\"button\" title=\"previous step (Left)\">&#x25C0;</button>\
             <span id=\"step\">step 0 / {last_seq}</span>\
             <button id=\"next\" type=\"button\" title=\"next step (Right)\">&#x25B6;</button>\
             <button id=\"next-change\" type=\"button\" title=\"next change of the board (Shift+Right)\">&#x25B6;&#x25B6;</button>\
             <button id=\"last\" type=\"button\" title=\"last step (End)\">&#x25B6;|</button>\
             <input id=\"slider\" type=\"range\" min=\"0\" max=\"{last}\" value=\"0\" aria-label=\"step\">\
             <button id=\"mode\" type=\"button\" title=\"step by move, or by log entry for auditors (URL ?entries)\">by log entry</button>\
             <span class=\"keys\">keys: &#x2190; &#x2192; step, Shift+&#x2190; &#x2192; next change, Home, End</span>\
             </nav>"
        );
        // The first step is written in place, for a reader without scripts.
        let first = self.steps.first();
        let _ = writeln!(
            out,
            "<main>\n{}",
            viewer_html(
                &format!(" data-pic=\"{}\"", first.map_or(0, |s| s.picture)),
                &first
                    .and_then(|s| self.picture_html(s.picture))
                    .unwrap_or_default()
            )
        );
        let _ = writeln!(
            out,
            "<aside>\n<h2>Moves</h2>\n{}<h2>What happened</h2>\n<div id=\"narrative\">{}</div>\n\
             <h2>Dice</h2>\n<div id=\"dice\">{}</div>\n{}</aside>\n</main>",
            self.moves_html(),
            first.map(lines_html).unwrap_or_default(),
            first.map(roll_html).unwrap_or_default(),
            legend_html(if self.ground.contains("class=\"hex\"") {
                LegendFor::Asl
            } else {
                LegendFor::Minis
            })
        );
        for (i, _) in self.pictures.iter().enumerate() {
            let _ = writeln!(
                out,
                "<template id=\"pic-{i}\">{}</template>",
                self.picture_html(i).unwrap_or_default()
            );
        }
        for s in &self.steps {
            let _ = writeln!(
                out,
                "<template class=\"step\" data-seq=\"{}\" data-move=\"{}\" data-pic=\"{}\">\
                 <div class=\"lines\">{}</div><div class=\"roll\">{}</div></template>",
                s.seq,
                s.r#move,
                s.picture,
                lines_html(s),
                roll_html(s)
            );
        }
        let _ = write!(
            out,
            "<script>{VIEWER_SCRIPT}{SCRIPT}</script>\n</body>\n</html>\n"
        );
        out
    }

    /// The moves in words (issue 27): the first line of each move's first
    /// entry, its `#seq` left off (`0. setup`, `1. side A: ...`).
    pub fn move_labels(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.steps {
            if s.r#move < out.len() {
                continue;
            }
            let label = if s.r#move == 0 {
                "setup: the scenario, the pads and the sides' setups".to_string()
            } else {
                let l = s.lines.first().map(String::as_str).unwrap_or("");
                let l = match l.strip_prefix('#') {
                    Some(rest) => rest.split_once(' ').map_or(rest, |(_, r)| r),
                    None => l,
                };
                // The declaration's nonce is for auditors: the entry shows it.
                match l.find(" (nonce ") {
                    Some(at) => l[..at].to_string(),
                    None => l.to_string(),
                }
            };
            out.push(label);
        }
        out
    }

    /// The clickable list of moves beside the board, like lichess's.
    fn moves_html(&self) -> String {
        let mut out = String::from("<ol id=\"moves\" start=\"0\">");
        for (i, label) in self.move_labels().iter().enumerate() {
            let _ = write!(
                out,
                "<li data-move=\"{i}\"><button type=\"button\" data-move=\"{i}\">{}</button></li>",
                escape(label)
            );
        }
        out.push_str("</ol>");
        out
    }

    /// Picture `index` as the page holds it: its ground by reference.
    fn picture_html(&self, index: usize) -> Option<String> {
        let (head, tail) = self.pictures.get(index)?;
        Some(format!("{head}<use href=\"#hv-ground\"/>\n{tail}"))
    }
}

/// A step's lines, escaped; what only some readers saw is marked.
fn lines_html(s: &Step) -> String {
    let mut out = String::new();
    for l in &s.lines {
        let class = if l.contains("FAULT") || l.contains("refused by the referee") {
            "line fault"
        } else if l.contains(" only)") {
            "line hidden"
        } else if l.starts_with('#') {
            "line head"
        } else {
            "line"
        };
        let _ = write!(out, "<p class=\"{class}\">{}</p>", escape(l));
    }
    out
}

/// A step's beacon round, escaped: the dice, each party's pad entry, the
/// seed and how it is made.
fn roll_html(s: &Step) -> String {
    if s.rolls.is_empty() {
        return "<p class=\"none\">no roll at this step</p>".into();
    }
    s.rolls.iter().map(one_roll_html).collect()
}

/// One beacon round, escaped.
fn one_roll_html(r: &RollShown) -> String {
    let mut out = format!("<div class=\"beacon\" data-k=\"{}\">", r.k);
    let what = if r.secret { "Secret dr" } else { "roll" };
    let _ = write!(
        out,
        "<p class=\"roll-head\">{what} {} for entry #{}: <span class=\"dice\">{}</span></p>",
        r.k,
        r.action_seq,
        if r.dice.is_empty() {
            "withheld: only its roller knows it until the rules reveal it (B28.47)".to_string()
        } else {
            escape(
                &r.dice
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        }
    );
    out.push_str(
        "<table class=\"pads\"><tr><th>pad entry of</th><th>epoch, index</th><th>value r</th><th>log entry</th></tr>",
    );
    for e in &r.entries {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>#{}</td></tr>",
            party_words(e.party),
            if e.nonce {
                "the nonce of its declaration (PROTOCOL.md 7.1)".to_string()
            } else {
                format!("{}, {}", e.epoch, e.index)
            },
            match &e.value {
                Some(v) => v.to_string(),
                None => "withheld (B28.47)".into(),
            },
            e.seq
        );
    }
    out.push_str("</table>");
    let domain = if r.secret {
        tag::SECRET_ROLL
    } else if r.nonce {
        tag::NONCE_ROLL
    } else {
        tag::ROLL
    };
    let hash = r
        .action_hash
        .map(|h| h.to_string())
        .unwrap_or_else(|| "?".into());
    let _ = write!(
        out,
        "<p class=\"seed\">seed = SHA-256(tuple(\"{domain}\", game, k = {}, hash of entry #{} = <code>{hash}</code>, r<sub>A</sub>, r<sub>B</sub>, r<sub>server</sub>)) = <code>{}</code>; the dice are drawn from it with ChaCha20 (PROTOCOL.md 7, 8).</p>",
        r.k,
        r.action_seq,
        match &r.seed {
            Some(seed) => seed.to_string(),
            None => "withheld".into(),
        }
    );
    out.push_str("</div>");
    out
}

/// The page's style: no external font, no network.
const STYLE: &str = r#"
:root { color-scheme: light; }
body { margin: 0; font-family: system-ui, sans-serif; background: #f4f3ee; color: #222; }
header { padding: 0.6em 1em; background: #fff; border-bottom: 1px solid #ccc; }
h1 { font-size: 1.2em; margin: 0 0 0.4em 0; overflow-wrap: anywhere; }
h2 { font-size: 1em; margin: 0.8em 0 0.3em 0; }
.verdict { padding: 0.4em 0.6em; border-radius: 4px; border: 1px solid; font-size: 0.9em; overflow-wrap: anywhere; }
.verdict.clean { background: #e6f4e6; border-color: #5a5; }
.verdict.incomplete { background: #fff6d8; border-color: #c90; }
.verdict.fault, .verdict.unreadable { background: #fbe3e3; border-color: #c44; }
.beacon + .beacon { border-top: 1px solid #ddd; margin-top: 0.5em; }
.verdict strong { text-transform: uppercase; margin-right: 0.5em; }
.verdict p { margin: 0.3em 0 0 0; }
nav { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4em; padding: 0.5em 1em; background: #eee; border-bottom: 1px solid #ccc; position: sticky; top: 0; z-index: 1; }
nav button { font-size: 1em; min-width: 2.4em; padding: 0.2em 0.4em; }
#step { font-variant-numeric: tabular-nums; min-width: 8em; text-align: center; font-weight: bold; }
#slider { flex: 1 1 12em; }
.keys { color: #666; font-size: 0.8em; }
main { display: flex; flex-wrap: wrap; gap: 1em; padding: 0.6em; align-items: flex-start; }
.hv-viewer { flex: 2 1 30em; }
aside { flex: 1 1 20em; max-width: 44em; min-width: 0; }
.muted { color: #777; font-size: 0.85em; }
#narrative, #dice { background: #fff; border: 1px solid #ccc; padding: 0.5em; font-size: 0.85em; overflow-wrap: anywhere; }
#narrative p { margin: 0.15em 0; white-space: pre-wrap; font-family: ui-monospace, monospace; }
#narrative .head { font-weight: bold; }
#narrative .move { font-family: system-ui, sans-serif; font-weight: bold; font-size: 1.1em; }
#moves { max-height: 16em; overflow-y: auto; background: #fff; border: 1px solid #ccc; margin: 0; padding: 0.3em 0.3em 0.3em 2.6em; font-size: 0.85em; }
#moves li.current { background: #ffe9a8; }
#moves button { border: 0; background: none; text-align: left; cursor: pointer; padding: 0.1em; font: inherit; vertical-align: top; overflow-wrap: anywhere; }
#narrative .hidden { color: #7a4b00; }
#narrative .fault { color: #a00; font-weight: bold; }
table.pads { border-collapse: collapse; margin: 0.4em 0; }
table.pads td, table.pads th { border: 1px solid #ccc; padding: 0.15em 0.4em; text-align: left; }
code { font-size: 0.85em; overflow-wrap: anywhere; }
.none { color: #777; }
svg.defs { position: absolute; overflow: hidden; }
"#;

/// The page's stepping: the steps and pictures are `<template>`s. By
/// default a step is a move (every entry of one `data-move` at once, the
/// picture after its last entry, the URL fragment `#move=N`); the `#mode`
/// button, `?entries` in the URL or a `#step=N` fragment step by log entry.
const SCRIPT: &str = r#"
(function () {
  'use strict';
  var steps = Array.prototype.slice.call(document.querySelectorAll('template.step'));
  if (steps.length === 0) { return; }
  var board = document.getElementById('board');
  var viewer = null;
  var narrative = document.getElementById('narrative');
  var dice = document.getElementById('dice');
  var counter = document.getElementById('step');
  var slider = document.getElementById('slider');
  var modeButton = document.getElementById('mode');
  var moveList = document.getElementById('moves');
  var byId = function (id) { return document.getElementById(id); };
  // moves[m]: the indices of the steps of move m.
  var moves = [];
  steps.forEach(function (t, i) {
    var m = Number(t.dataset.move) || 0;
    while (moves.length <= m) { moves.push([]); }
    moves[m].push(i);
  });
  moves = moves.filter(function (m) { return m.length > 0; });
  var byMove = !/[?&]entries\b/.test(location.search) && !/^#step=/.test(location.hash);
  var at = 0;
  function units() { return byMove ? moves.length : steps.length; }
  function stepsOf(i) { return byMove ? moves[i] : [i]; }
  function lastStep(i) { var s = stepsOf(i); return s[s.length - 1]; }
  function picOf(i) { return steps[lastStep(i)].dataset.pic; }
  function seqOf(i) { return Number(steps[i].dataset.seq); }
  function name(i) { return byMove ? 'move=' + i : 'step=' + seqOf(i); }
  function fromName(h) {
    var m = /^#move=(\d+)$/.exec(h);
    if (m) { return { move: true, i: Math.min(Number(m[1]), moves.length - 1) }; }
    m = /^#step=(\d+)$/.exec(h);
    if (!m) { return null; }
    for (var i = 0; i < steps.length; i++) { if (seqOf(i) === Number(m[1])) { return { move: false, i: i }; } }
    return null;
  }
  function setHash(i) {
    var h = '#' + name(i);
    if (location.hash === h) { return; }
    try { history.replaceState(null, '', h); } catch (e) { location.hash = h; }
  }
  function show(i, fromHash) {
    var last = units() - 1;
    i = Math.max(0, Math.min(last, i));
    at = i;
    var pic = picOf(i);
    if (board.dataset.pic !== pic || !board.firstElementChild) {
      board.replaceChildren(byId('pic-' + pic).content.cloneNode(true));
      board.dataset.pic = pic;
      if (viewer) { viewer.shown(); }
    }
    var lines = [], rolls = [], ks = {};
    stepsOf(i).forEach(function (s) {
      var c = steps[s].content.cloneNode(true);
      c.querySelector('.lines').childNodes.forEach(function (n) { lines.push(n); });
      c.querySelectorAll('.roll .beacon').forEach(function (b) {
        if (ks[b.dataset.k]) { return; }
        ks[b.dataset.k] = true;
        rolls.push(b);
      });
    });
    if (byMove) {
      var head = document.createElement('p');
      head.className = 'line move';
      var label = moveList && moveList.querySelector('li[data-move="' + i + '"] button');
      head.textContent = i === 0 ? 'setup' : 'move ' + i + (label ? ': ' + label.textContent : '');
      lines.unshift(head);
    }
    narrative.replaceChildren.apply(narrative, lines);
    if (rolls.length === 0) {
      var none = document.createElement('p');
      none.className = 'none';
      none.textContent = 'no roll at this step';
      rolls.push(none);
    }
    dice.replaceChildren.apply(dice, rolls);
    counter.textContent = byMove ? 'move ' + i + ' / ' + last
      : 'step ' + seqOf(i) + ' / ' + seqOf(last);
    slider.max = String(last);
    slider.value = String(i);
    byId('first').disabled = byId('prev').disabled = byId('prev-change').disabled = i === 0;
    byId('last').disabled = byId('next').disabled = byId('next-change').disabled = i === last;
    if (moveList) {
      var current = steps[lastStep(i)].dataset.move;
      moveList.querySelectorAll('li').forEach(function (li) {
        var on = li.dataset.move === current;
        li.classList.toggle('current', on);
        if (on && li.scrollIntoView && moveList.scrollHeight > moveList.clientHeight) {
          moveList.scrollTop = li.offsetTop - moveList.offsetTop - moveList.clientHeight / 2;
        }
      });
    }
    if (modeButton) { modeButton.textContent = byMove ? 'by log entry' : 'by move'; }
    if (!fromHash) { setHash(i); }
  }
  function setMode(move) {
    // Keep the place: the move of the entries shown, or its first entry.
    var first = stepsOf(at)[0];
    byMove = move;
    show(move ? Number(steps[first].dataset.move) || 0 : first);
  }
  function change(dir) {
    var i = at;
    var pic = picOf(at);
    while (i + dir >= 0 && i + dir <= units() - 1) {
      i += dir;
      if (picOf(i) !== pic) { break; }
    }
    show(i);
  }
  byId('first').addEventListener('click', function () { show(0); });
  byId('prev').addEventListener('click', function () { show(at - 1); });
  byId('next').addEventListener('click', function () { show(at + 1); });
  byId('last').addEventListener('click', function () { show(units() - 1); });
  byId('prev-change').addEventListener('click', function () { change(-1); });
  byId('next-change').addEventListener('click', function () { change(1); });
  if (modeButton) { modeButton.addEventListener('click', function () { setMode(!byMove); }); }
  if (moveList) {
    moveList.addEventListener('click', function (e) {
      var b = e.target.closest && e.target.closest('button[data-move]');
      if (!b) { return; }
      var m = Number(b.dataset.move);
      if (byMove) { show(m); } else { show(moves[m][0]); }
    });
  }
  slider.addEventListener('input', function () { show(Number(slider.value)); });
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    if (e.target === slider) { return; }
    switch (e.key) {
      case 'ArrowLeft': if (e.shiftKey) { change(-1); } else { show(at - 1); } break;
      case 'ArrowRight': if (e.shiftKey) { change(1); } else { show(at + 1); } break;
      case 'Home': show(0); break;
      case 'End': show(units() - 1); break;
      default: return;
    }
    e.preventDefault();
  });
  window.addEventListener('hashchange', function () {
    var n = fromName(location.hash);
    if (n === null) { return; }
    if (n.move !== byMove) { byMove = n.move; }
    if (n.i !== at) { show(n.i, true); }
  });
  var start = fromName(location.hash);
  if (start !== null) { byMove = start.move; }
  show(start === null ? 0 : start.i, start !== null);
  viewer = hvBoard(board);
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    // A file that is no transcript still gets a page, which says so and
    // shows nothing else (G5: the verdict is `unreadable`, exit code 2).
    #[test]
    fn g5_bytes_that_are_no_transcript_get_a_page_that_says_so() {
        let page = replay_html(b"not a transcript <script>");
        assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
        assert!(page.contains("id=\"verdict\" class=\"verdict unreadable\""));
        assert!(page.contains("data-exit-code=\"2\""));
        assert!(!page.contains("<template class=\"step\""));
        assert!(!page.contains("<script>\"not"));
        // Nobody to name in bytes that are no transcript.
        assert!(!page.contains("id=\"players\""));
    }

    // Issue 27 item 8: a player's name is its own text (bounded, no
    // control characters: names::check_name), shown escaped.
    #[test]
    fn issue27_item8_names_on_the_replay_page_are_escaped() {
        let mut r = replay(b"");
        r.players = vec![
            "side A (German): Al <b>& \"Co\"".into(),
            "side B: no name given".into(),
        ];
        let page = r.html();
        assert!(
            page.contains(
                "<p id=\"players\">side A (German): Al &lt;b&gt;&amp; &quot;Co&quot; \
                 &middot; side B: no name given"
            ),
            "{page}"
        );
        assert!(!page.contains("Al <b>"));
    }
}
