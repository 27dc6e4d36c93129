//! A transcript read: its verdict and exit code (G5), the referee after its
//! genesis, and the whole game told with everything revealed.

use crate::narrate::{Narrator, Reader};
use hexveil_core::{Content, CONTENT_LEN};
use hexveil_protocol::encoding::Party;
use hexveil_protocol::identity::PublicKey;
use hexveil_protocol::message::{side_of, Body, OpenedFact};
use hexveil_protocol::referee::{Accepted, Referee};
use hexveil_protocol::transcript::{EntryReader, Transcript};
use hexveil_protocol::verifier::{
    genesis_server_key, verify_trusting, Blame, FaultKind, Status, Verdict,
};

/// Exit code of a complete, clean transcript (every audit ran).
pub const CLEAN: u8 = 0;
/// Exit code of a transcript with a fault.
pub const FAULT: u8 = 1;
/// Exit code of a file that cannot be read, is no transcript at all, or
/// holds an entry that does not decode.
pub const UNREADABLE: u8 = 2;
/// Exit code of a transcript clean so far but not complete (cut before
/// the end and the reveals): the end-of-game audits have not run (G5).
pub const INCOMPLETE: u8 = 3;

/// The verdict on `bytes` and the exit code that goes with it (see
/// [`exit_code`]), with the server key the genesis names.
pub fn judge(bytes: &[u8]) -> (Verdict, u8) {
    judge_trusting(bytes, None)
}

/// [`judge`], trusting only the server key `trusted` if one is given.
pub fn judge_trusting(bytes: &[u8], trusted: Option<&PublicKey>) -> (Verdict, u8) {
    let verdict = verify_trusting(bytes, &hexveil_rulesets::all(), trusted);
    let code = exit_code(&verdict);
    (verdict, code)
}

/// 0 complete and clean, 1 a fault (the side, server or nobody to blame,
/// and the entry), 2 unreadable (not a transcript file, or an entry that
/// does not decode), 3 clean so far but incomplete (audits not run).
pub fn exit_code(verdict: &Verdict) -> u8 {
    match (verdict.status(), verdict.fault()) {
        (Status::Clean, _) => CLEAN,
        (Status::Incomplete, _) => INCOMPLETE,
        (_, Some(f)) if matches!(f.what, FaultKind::Unreadable(_) | FaultKind::Empty) => UNREADABLE,
        _ => FAULT,
    }
}

/// The server key entry 0 of `bytes` names, if it is readable.
pub fn named_server_key(bytes: &[u8]) -> Option<PublicKey> {
    let mut reader = EntryReader::new(bytes).ok()?;
    genesis_server_key(&reader.next()?.ok()?)
}

/// The verdict as one JSON object (`hexveil verify --json`).
pub fn verdict_json(
    verdict: &Verdict,
    code: u8,
    server_key: Option<PublicKey>,
    pinned: bool,
) -> serde_json::Value {
    let status = match code {
        CLEAN => "clean",
        INCOMPLETE => "incomplete",
        UNREADABLE => "unreadable",
        _ => "fault",
    };
    let mut v = serde_json::json!({
        "status": status,
        "complete": verdict.status() == Status::Clean,
        "exit_code": code,
        "server_key": server_key.map(|k| k.to_string()),
        "server_key_trusted": pinned,
        "verdict": verdict.to_string(),
    });
    match verdict {
        Verdict::Clean(s) => {
            v["summary"] = serde_json::json!({
                "game": s.game_id.to_string(),
                "entries": s.entries,
                "rulings": s.rulings,
                "rolls": s.rolls,
                "head": s.head.to_string(),
                "end": s.end.as_ref().map(|e| serde_json::json!({
                    "winner": e.winner.map(|w| w.to_string()),
                    "reason": e.reason,
                })),
                "audited": s.audited.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
                "unaudited": s.unaudited.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
                "next": s.next,
                "supplied_tables": s.tables.iter().map(|(name, hash)| serde_json::json!({
                    "name": name,
                    "sha256": hash.to_string(),
                })).collect::<Vec<_>>(),
            });
        }
        Verdict::Fault(f) => {
            v["fault"] = serde_json::json!({
                "blame": match f.blame {
                    Blame::Side(s) => format!("side {s}"),
                    Blame::Server => "server".into(),
                    Blame::Undetermined => "undetermined".into(),
                },
                "entry": f.entry,
                "what": f.what.to_string(),
            });
        }
    }
    v
}

/// The referee of a transcript's game after its genesis, and the entries
/// that follow; `None` for a transcript without entries.
pub fn referee_of(
    t: &Transcript,
) -> Option<Result<(Referee, &[hexveil_protocol::message::LoggedEntry]), String>> {
    let (first, rest) = t.entries.split_first()?;
    Some(
        Referee::new(&first.envelope, &hexveil_rulesets::all())
            .map(|(referee, _)| (referee, rest))
            .map_err(|e| format!("entry 0 is not a genesis the referee accepts: {e}")),
    )
}

/// The first line of a replay: the genesis the referee accepted (entry 0),
/// its game, scenario, ruleset and keys. All public.
pub fn genesis_line(referee: &Referee) -> String {
    let g = referee.genesis();
    format!(
        "#0 server: genesis of game {} \"{}\" (ruleset {} v{}); side A key {}, side B key {}, server key {}, scenario hash {}",
        referee.game_id(),
        referee.scenario().name(),
        g.ruleset,
        g.ruleset_version,
        g.players[0],
        g.players[1],
        g.server,
        g.scenario_hash
    )
}

/// Every entry of a transcript in words, everything revealed. Stops at
/// the first entry the referee refuses (the verdict names it).
pub fn replay_lines(t: &Transcript) -> Vec<String> {
    let mut out = Vec::new();
    let (mut referee, rest) = match referee_of(t) {
        None => return out,
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            out.push(e);
            return out;
        }
    };
    let mut narrator = Narrator::for_game(referee.scenario().as_ref());
    out.push(genesis_line(&referee));
    for entry in rest {
        match referee.accept(&entry.envelope) {
            Ok(accepted) => out.extend(entry_lines(&mut narrator, &accepted, Reader::Everything)),
            Err(e) => {
                out.push(refused_line(entry.envelope.envelope().seq, &e));
                break;
            }
        }
    }
    out
}

/// The line for an entry the referee refuses: the replay stops there.
pub fn refused_line(seq: u64, e: &hexveil_protocol::referee::RefereeError) -> String {
    format!("#{seq} refused by the referee: {e} (replay stops)")
}

/// Whether `reader` may be told the secrets `author` holds: its sealed
/// contents, its Secret dr, its reveal (G3). A replay reader may (the
/// game is over); a player its own side's; a spectator nobody's.
fn sees_secrets_of(reader: Reader, author: Party) -> bool {
    match reader {
        Reader::Everything => true,
        Reader::Player(side) => side_of(author) == Some(side),
        Reader::Spectator => false,
    }
}

/// One accepted log entry in words for `reader`, led by its seq and
/// author (`#25 side A: moves ...`), the lines after the first indented.
/// This is the one way an entry is told: `hexveil replay` tells every
/// entry with [`Reader::Everything`] ([`replay_lines`]); the replay page
/// tells each step with the reader of its view. A reader that may not see
/// the author's secrets (G3) is told that facts were opened, contents
/// committed or secrets revealed, never what they are, nor a Secret dr
/// that is not its own (B28.47).
pub fn entry_lines(narrator: &mut Narrator, accepted: &Accepted, reader: Reader) -> Vec<String> {
    let mut out = Vec::new();
    let seq = accepted.appended.seq;
    let who = match side_of(accepted.author) {
        Some(s) => format!("side {s}"),
        None => "server".into(),
    };
    let sees = sees_secrets_of(reader, accepted.author);
    let head = format!("#{seq} {who}:");
    let dice = |d: &[hexveil_core::Roll]| {
        d.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match &accepted.body {
        Body::Genesis(_) => out.push(format!("{head} a second genesis")),
        Body::Pad(p) => out.push(format!(
            "{head} pad statement: epoch {}, {} entries, root {}",
            p.epoch, p.n, p.root
        )),
        Body::Setup(s) => {
            out.push(format!(
                "{head} setup with {} sealed layer roots",
                s.roots.len()
            ));
            for r in &s.roots {
                out.push(format!("    root {r}"));
            }
            for l in s.public_setup_toml.lines() {
                let l = l.trim();
                if !l.is_empty() && !l.starts_with('#') {
                    out.push(format!("    | {l}"));
                }
            }
        }
        Body::Act(a) => out.push(format!("{head} {}", narrator.action_bytes(a))),
        Body::Declare(d) => out.push(format!(
            "{head} {} (nonce {})",
            narrator.action_bytes(&d.action),
            hex(&d.nonce)
        )),
        Body::Open(list) if sees => opened_list(&mut out, &head, narrator, list),
        Body::Open(_) => out.push(format!(
            "{head} opens sealed facts to the referee (what they hold stays sealed until the end, G3, G4)"
        )),
        Body::OpenAhead(ahead) => {
            if sees {
                opened_list(&mut out, &head, narrator, &ahead.openings);
            } else {
                out.push(format!(
                    "{head} opens sealed facts to the referee (what they hold stays sealed until the end, G3, G4)"
                ));
            }
            window(&mut out, &ahead.entries);
        }
        Body::Entries(entries) => {
            out.push(format!("{head} releases a window of pad entries"));
            window(&mut out, entries);
        }
        Body::Entry(_) if accepted.secret_dice && !sees => out.push(format!(
            "{head} pad entry completing its Secret dr (only its roller knows the roll until the rules reveal it, B28.47)"
        )),
        Body::Entry(e) => {
            let mut line = format!(
                "{head} pad entry (epoch {}, index {}) = {}",
                e.position.epoch, e.position.index, e.value
            );
            if !accepted.dice.is_empty() {
                line.push_str(&format!(
                    "; it completes the roll: {}{}",
                    dice(&accepted.dice),
                    if accepted.secret_dice {
                        " (a Secret dr)"
                    } else {
                        ""
                    }
                ));
            }
            out.push(line);
        }
        Body::Transitions(list) if sees => {
            out.push(format!(
                "{head} commits {}",
                count(list.len(), "transition", "transitions")
            ));
            for t in list {
                out.push(format!(
                    "    {} v{}: {} -> {}",
                    t.old.location,
                    t.old.version,
                    content_words(narrator, &t.old.content),
                    content_words(narrator, &t.new_content),
                ));
            }
        }
        Body::Transitions(_) => out.push(format!(
            "{head} commits new contents of its sealed facts (they stay sealed until the end, G1, G3)"
        )),
        Body::Roll(r) if r.dice.is_empty() => out.push(format!(
            "{head} its pad entry (epoch {}, index {}) = {} for the Secret dr {} of entry #{}: the roller's own entry completes it",
            r.server_entry.position.epoch,
            r.server_entry.position.index,
            r.server_entry.value,
            r.k,
            r.action_seq
        )),
        Body::Roll(r) => out.push(format!(
            "{head} roll {} for action #{}: {}",
            r.k,
            r.action_seq,
            dice(&r.dice)
        )),
        Body::Ruling(r) => {
            out.push(format!("{head} ruling on action #{}", r.action_seq));
            for e in r
                .events
                .iter()
                .filter(|e| crate::narrate::shown_to(reader, e.to))
            {
                for l in narrator.event(e, reader) {
                    out.push(format!("    {l}"));
                }
            }
        }
        Body::Timeout { party, request } => out.push(format!(
            "{head} {party} did not answer in time (the game waited for {request}) and loses"
        )),
        Body::Concede => out.push(format!("{head} concedes")),
        Body::BadAnswer(_) => {
            for f in &accepted.faults {
                out.push(format!(
                    "{head} records a refused answer against side {}: {}",
                    f.side, f.what
                ));
            }
        }
        Body::End(e) => out.push(format!(
            "{head} the game is over: {} ({})",
            match e.winner {
                Some(w) => format!("side {w} wins"),
                None => "no winner named".into(),
            },
            e.reason
        )),
        Body::Reveal(_) if !sees => out.push(format!(
            "{head} reveals its secrets (shown once the transcript is complete and clean, G3)"
        )),
        Body::Reveal(r) => {
            out.push(format!(
                "{head} reveals its secrets: notes seed {}, pad seed {}",
                hex::encode(r.notes_seed),
                r.pad_seed
            ));
            for l in &r.layers {
                let held: Vec<String> = l
                    .contents
                    .iter()
                    .filter(|(_, c)| !Content(*c).is_empty())
                    .map(|(loc, c)| format!("{loc}: {}", narrator.content(&Content(*c))))
                    .collect();
                out.push(format!(
                    "    {who} layer {} (seed {}, {} locations): {}",
                    l.layer,
                    hex::encode(l.seed),
                    l.contents.len(),
                    if held.is_empty() {
                        "all empty".to_string()
                    } else {
                        held.join("; ")
                    }
                ));
            }
        }
    }
    for f in &accepted.faults {
        out.push(format!(
            "    FAULT proven against side {} (entry {}): {}",
            f.side, f.seq, f.what
        ));
    }
    out
}

/// `1 fact`, `2 facts`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn opened(n: &Narrator, f: &OpenedFact) -> String {
    match f {
        OpenedFact::Leaf(o) => format!(
            "{} v{}: {}",
            o.location,
            o.version,
            content_words(n, &o.content)
        ),
        OpenedFact::Note {
            commitment,
            opening,
        } => match hexveil_protocol::note::note_content(opening) {
            Ok(c) => format!(
                "note {} of {}: {}",
                commitment.seq,
                commitment.side,
                n.content(&c)
            ),
            Err(e) => format!("note {} of {}: {e}", commitment.seq, commitment.side),
        },
    }
}

fn content_words(n: &Narrator, c: &[u8; CONTENT_LEN]) -> String {
    n.content(&Content(*c))
}

/// The openings of an entry, for a reader who may see them.
fn opened_list(out: &mut Vec<String>, head: &str, narrator: &Narrator, list: &[OpenedFact]) {
    out.push(format!(
        "{head} opens {} to the referee",
        count(list.len(), "fact", "facts")
    ));
    for f in list {
        out.push(format!("    {}", opened(narrator, f)));
    }
}

/// A window of pad entries (PROTOCOL.md 7.1): one line each.
fn window(out: &mut Vec<String>, entries: &[hexveil_protocol::pad::PadEntry]) {
    for e in entries {
        out.push(format!(
            "    pad entry (epoch {}, index {}) = {}",
            e.position.epoch, e.position.index, e.value
        ));
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
