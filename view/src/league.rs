//! League data: one row per finished game, read from its transcript bytes
//! and verified exactly as `hexveil verify` verifies it (G5). Only a
//! complete, clean transcript (every audit ran) becomes a row; anything
//! else is refused with why and the exit code that goes with it.
//!
//! The `hexveil results` command (files on disk) and the server (its
//! finished games, listed over QUIC and HTTP) both compute their rows here,
//! so a league gets the same fields whichever way it asks.

use crate::transcript::{judge_trusting, referee_of, FAULT, INCOMPLETE, UNREADABLE};
use hexveil_protocol::identity::PublicKey;
use hexveil_protocol::message::{Body, Mode};
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{Status, Verdict};
use serde::{Deserialize, Serialize};

/// One verified game. The transcript records no time and no player names
/// (only keys), so neither is a field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// The game id (32 hex digits).
    pub game: String,
    /// The scenario's name.
    pub scenario: String,
    /// The ruleset's id (`asl`, `minis`).
    pub ruleset: String,
    /// The ruleset's version.
    pub ruleset_version: u32,
    /// `live` or `escrow`.
    pub mode: String,
    /// Side A as the scenario names it (`[sides.A] nationality`), empty if
    /// it does not.
    pub side_a: String,
    /// Side B likewise.
    pub side_b: String,
    /// Side A's player key (64 hex digits).
    pub key_a: String,
    /// Side B's player key.
    pub key_b: String,
    /// `A`, `B`, or empty when the end names no winner.
    pub winner: String,
    /// `A wins`, `B wins` or `no winner`.
    pub result: String,
    /// Why the game ended, in the referee's words.
    pub reason: String,
    /// Log entries, genesis included.
    pub entries: u64,
    /// Players' actions (action entries).
    pub actions: u64,
    /// Rulings re-derived by the verifier.
    pub rulings: u64,
    /// Beacon rolls re-derived by the verifier.
    pub rolls: u64,
    /// Always `clean`: only complete, clean transcripts are rows.
    pub verdict: String,
    /// The server's transcript key every receipt was checked against.
    pub server_key: String,
    /// The log head after the last entry (identifies the transcript).
    pub head: String,
}

/// The column names of [`Row`], in order (a CSV header).
pub const COLUMNS: [&str; 19] = [
    "game",
    "scenario",
    "ruleset",
    "ruleset_version",
    "mode",
    "side_a",
    "side_b",
    "key_a",
    "key_b",
    "winner",
    "result",
    "reason",
    "entries",
    "actions",
    "rulings",
    "rolls",
    "verdict",
    "server_key",
    "head",
];

impl Row {
    /// The values in the order of [`COLUMNS`], as text (a CSV record).
    pub fn values(&self) -> [String; 19] {
        [
            self.game.clone(),
            self.scenario.clone(),
            self.ruleset.clone(),
            self.ruleset_version.to_string(),
            self.mode.clone(),
            self.side_a.clone(),
            self.side_b.clone(),
            self.key_a.clone(),
            self.key_b.clone(),
            self.winner.clone(),
            self.result.clone(),
            self.reason.clone(),
            self.entries.to_string(),
            self.actions.to_string(),
            self.rulings.to_string(),
            self.rolls.to_string(),
            self.verdict.clone(),
            self.server_key.clone(),
            self.head.clone(),
        ]
    }
}

/// Why a transcript is not a row, with the exit code that goes with why
/// ([`crate::transcript::exit_code`]'s: 1 a fault, 2 unreadable, 3
/// incomplete).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{why}")]
pub struct Refused {
    /// Why, in words.
    pub why: String,
    /// The exit code: [`FAULT`], [`UNREADABLE`] or [`INCOMPLETE`].
    pub code: u8,
}

/// The row of one transcript, verified first (trusting only the server key
/// `trusted` if one is given), or why it is refused.
pub fn row_of(bytes: &[u8], trusted: Option<&PublicKey>) -> Result<Row, Refused> {
    row_and_names(bytes, trusted).map(|(row, _)| row)
}

/// [`row_of`], with the names the players gave themselves ([`names_signed_in`],
/// issue 27 item 8), side A first, read from the transcript `row_of`
/// parses anyway. Not part of [`Row`]: the row's layout travels in
/// `FinishedRow` and stays as published.
pub fn row_and_names(
    bytes: &[u8],
    trusted: Option<&PublicKey>,
) -> Result<(Row, [Option<String>; 2]), Refused> {
    let refuse = |why: String, code: u8| Refused { why, code };
    let (verdict, code) = judge_trusting(bytes, trusted);
    let summary = match (&verdict, verdict.status()) {
        (Verdict::Clean(s), Status::Clean) => s,
        (_, Status::Incomplete) => {
            return Err(refuse(
                format!("not complete, so not a result: {verdict}"),
                INCOMPLETE,
            ))
        }
        _ if code == UNREADABLE => return Err(refuse(format!("unreadable: {verdict}"), code)),
        _ => return Err(refuse(format!("does not verify: {verdict}"), FAULT)),
    };
    let t = Transcript::parse(bytes).map_err(|e| refuse(format!("unreadable: {e}"), UNREADABLE))?;
    let referee = match referee_of(&t) {
        Some(Ok((referee, _))) => referee,
        Some(Err(e)) => return Err(refuse(e, FAULT)),
        None => return Err(refuse("no entries".into(), UNREADABLE)),
    };
    let g = referee.genesis();
    let actions = t
        .entries
        .iter()
        .filter(|e| {
            Body::decode(&e.envelope.envelope().body).is_ok_and(|b| b.declared_action().is_some())
        })
        .count() as u64;
    let (winner, result, reason) = match &summary.end {
        Some(end) => match end.winner {
            Some(w) => (w.to_string(), format!("{w} wins"), end.reason.clone()),
            None => (String::new(), "no winner".into(), end.reason.clone()),
        },
        // A complete log has ended; kept total rather than trusted.
        None => (String::new(), "not over".into(), String::new()),
    };
    let [side_a, side_b] = side_names(&g.scenario_toml);
    let names = names_signed_in(&t, &g.players);
    let row = Row {
        game: summary.game_id.to_string(),
        scenario: referee.scenario().name().to_string(),
        ruleset: g.ruleset.clone(),
        ruleset_version: g.ruleset_version,
        mode: mode_word(g.mode).into(),
        side_a,
        side_b,
        key_a: g.players[0].to_string(),
        key_b: g.players[1].to_string(),
        winner,
        result,
        reason,
        entries: summary.entries,
        actions,
        rulings: summary.rulings,
        rolls: summary.rolls,
        verdict: "clean".into(),
        server_key: summary.server.to_string(),
        head: summary.head.to_string(),
    };
    Ok((row, names))
}

/// The names the players of a transcript whose genesis names `players`
/// gave themselves (issue 27 item 8), side A first: each is read from the
/// public setup of the Setup entry its own key signed (the genesis key of
/// that side), so no server can name a player; `None` where a setup gives
/// none, or a name out of bounds ([`crate::names::check_name`]).
pub fn names_signed_in(t: &Transcript, players: &[PublicKey; 2]) -> [Option<String>; 2] {
    let mut names = [None, None];
    for e in &t.entries {
        let envelope = e.envelope.envelope();
        let Some(i) = players.iter().position(|k| *k == envelope.author) else {
            continue;
        };
        if let Ok(Body::Setup(setup)) = Body::decode(&envelope.body) {
            names[i] = crate::names::name_in_setup(&setup.public_setup_toml)
                .ok()
                .flatten();
        }
    }
    names
}

/// `live` or `escrow`.
pub fn mode_word(mode: Mode) -> &'static str {
    match mode {
        Mode::Live => "live",
        Mode::Escrow => "escrow",
    }
}

/// The sides as a scenario text names them (`[sides.A] nationality`),
/// empty where it does not (or the text is not TOML).
pub fn side_names(scenario_toml: &str) -> [String; 2] {
    let v: toml::Value = match toml::from_str(scenario_toml) {
        Ok(v) => v,
        Err(_) => return [String::new(), String::new()],
    };
    ["A", "B"].map(|s| {
        v.get("sides")
            .and_then(|x| x.get(s))
            .and_then(|x| x.get("nationality"))
            .and_then(|x| x.as_str())
            .unwrap_or("")
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_match_the_serialized_fields() {
        let row = Row {
            game: "g".into(),
            scenario: "s".into(),
            ruleset: "asl".into(),
            ruleset_version: 3,
            mode: "live".into(),
            side_a: "German".into(),
            side_b: "British".into(),
            key_a: "ka".into(),
            key_b: "kb".into(),
            winner: "A".into(),
            result: "A wins".into(),
            reason: "r".into(),
            entries: 10,
            actions: 4,
            rulings: 4,
            rolls: 2,
            verdict: "clean".into(),
            server_key: "sk".into(),
            head: "h".into(),
        };
        let json = serde_json::to_value(&row).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        let mut columns = COLUMNS.to_vec();
        columns.sort_unstable();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, columns);
        for (name, value) in COLUMNS.iter().zip(row.values()) {
            let field = &json[*name];
            let text = field
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| field.to_string());
            assert_eq!(text, value, "{name}");
        }
    }

    // G5, G6: bytes that are no transcript are refused as unreadable, and
    // nothing is made up.
    #[test]
    fn garbage_is_refused_as_unreadable() {
        let r = row_of(b"not a transcript", None).unwrap_err();
        assert_eq!(r.code, UNREADABLE, "{r}");
        assert_eq!(
            side_names("[sides.A]\nnationality = \"German\"\n"),
            ["German".to_string(), String::new()]
        );
    }
}
