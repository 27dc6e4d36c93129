//! The wait line (issue 27): who a game waits for, on what, whether that
//! side's client is connected, and when the answer timeout forfeits.
//!
//! Who is awaited and on what is this client's own reading of the signed
//! log it checked ([`LogReading`], G2, G5); the server's [`Presence`] is
//! unsigned, and only its connection state and forfeit deadline are shown
//! from it, labelled as the server's word (PROTOCOL.md 16). Where the log
//! does not pin who answers (an action's resolution, the next move), the
//! server's naming of it is shown as its word; where the server's claim
//! contradicts the log, the line follows the log and says so.

pub use hexveil_net::wire::forfeit_words;
use hexveil_net::wire::{Presence, Side};
use hexveil_protocol::reading::LogReading;

/// The wait line of `presence` for `me` (a seat, or `None`: a spectator)
/// at `now_ms` (Unix milliseconds, this machine's clock), with `log`, the
/// client's reading of the log it checked: `waiting for side B to send a
/// setup (the signed log); side B's client is NOT connected (the server's
/// word)`. `None` when neither the log nor the server says the game waits
/// for anyone (it is over).
pub fn wait_line(
    presence: &Presence,
    me: Option<Side>,
    now_ms: u64,
    log: &LogReading,
) -> Option<String> {
    let claimed = presence.awaited.as_ref();
    // Under a spectator delay the server tells a spectator nobody (DESIGN 5:
    // what the game waits for now would run ahead of the delayed log): a
    // withheld answer, not a claim.
    let withheld = me.is_none() && claimed.is_none();
    let contradicts = !withheld && log.contradicts(claimed.is_some(), claimed.and_then(|a| a.side));
    let server_what = claimed.map(|a| hexveil_view::names::visible(&a.what));
    let mut line = match (log.in_words(), &server_what) {
        (None, None) => return None,
        (ours, _) if contradicts => {
            let ours = ours.unwrap_or_else(|| "nobody (the log is complete)".into());
            let theirs = server_what.as_deref().map_or_else(
                || "that it waits for nobody".to_string(),
                |w| format!("to wait for {w}"),
            );
            // A spectator's log may be held back by the league's spectator
            // delay (DESIGN 5) while presence is not: the server may be
            // ahead of it, not lying.
            let why = match me {
                Some(_) => "which the log contradicts",
                None => "which the log shown so far does not show: it may be held back by the spectator delay",
            };
            format!("waiting for {ours} (the signed log; the server claimed {theirs}, {why})")
        }
        (Some(ours), _) => format!("waiting for {ours} (the signed log)"),
        // Before the genesis: the server's word alone.
        (None, Some(theirs)) => format!("waiting for {theirs}"),
    };
    // Whose connection matters: the side the log pins, else the one the
    // server names (its word either way).
    let side = match log.pinned().as_deref() {
        Some([one]) => Some(*one),
        Some(_) => None,
        None if contradicts => None,
        None => claimed.and_then(|a| a.side),
    };
    let mut server = Vec::new();
    // Where the log does not pin who answers, the server's naming of it
    // (who and on what: an owner's machine, the next mover).
    if let (Some(theirs), Some(_), None, false) =
        (&server_what, log.in_words(), log.pinned(), contradicts)
    {
        server.push(theirs.clone());
    }
    match side {
        // The server's naming of the wait, if shown, comes first.
        Some(side) if Some(side) == me => match server.first_mut() {
            Some(naming) => naming.push_str(" (you)"),
            None => line.push_str(" (you)"),
        },
        Some(side) if presence.connected(side) => {
            server.push(format!("side {side}'s client is connected"))
        }
        Some(side) => server.push(format!("side {side}'s client is NOT connected")),
        None => {}
    }
    if let Some(at) = claimed.and_then(|a| a.forfeits_at_ms) {
        server.push(forfeit_words(at, now_ms));
    }
    let servers_alone = log.in_words().is_none() && !contradicts;
    if !server.is_empty() {
        line.push_str(&format!("; {} (the server's word)", server.join("; ")));
    } else if servers_alone {
        line.push_str(" (the server's word)");
    }
    Some(line)
}

/// This machine's clock in Unix milliseconds (0 before 1970).
pub fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexveil_net::wire::Awaited;

    /// Before the genesis is checked the log says nothing: the server's
    /// word alone (a real folded game: protocol-tests/tests/presence_reading.rs).
    fn unread() -> LogReading {
        LogReading::new()
    }

    fn waiting_for_b(connected: bool, forfeits_at_ms: Option<u64>) -> Presence {
        Presence {
            side_a_connected: true,
            side_b_connected: connected,
            spectators: 0,
            awaited: Some(Awaited {
                side: Some(Side::B),
                what: "side B's machine to answer its Daisy Chain opportunity 1".into(),
                forfeits_at_ms,
            }),
        }
    }

    // Issue 27 (G2): the wait says who, on what, the connection and the
    // forfeit time, and that it is the server's word.
    #[test]
    fn g2_the_wait_line_names_the_side_the_question_the_connection_and_the_forfeit() {
        // 14:32:00 UTC on some day, 9 minutes ahead.
        let at = (14 * 3600 + 32 * 60) * 1000 + 20_000 * 86_400_000;
        let line = wait_line(
            &waiting_for_b(false, Some(at)),
            Some(Side::A),
            at - 9 * 60_000,
            &unread(),
        );
        println!("{}", line.as_deref().unwrap_or(""));
        assert_eq!(
            line.as_deref(),
            Some(
                "waiting for side B's machine to answer its Daisy Chain opportunity 1; \
                 side B's client is NOT connected; forfeits at 14:32 UTC, in 9 min \
                 (the server's word)"
            )
        );
        let back = wait_line(&waiting_for_b(true, Some(at)), None, at - 40_000, &unread()).unwrap();
        assert!(back.contains("side B's client is connected; forfeits at 14:32 UTC, in 40 s"));
    }

    #[test]
    fn issue27_a_move_has_no_forfeit_and_a_finished_game_no_wait_line() {
        let mut p = waiting_for_b(true, None);
        p.awaited.as_mut().unwrap().what = "side B to move".into();
        let line = wait_line(&p, Some(Side::B), 0, &unread()).unwrap();
        assert_eq!(line, "waiting for side B to move (you) (the server's word)");
        p.awaited = None;
        assert_eq!(wait_line(&p, Some(Side::A), 0, &unread()), None);
    }

    // Issue 27 with issue 24: the server's words reach the terminal
    // without its control sequences (a dishonest server cannot clear or
    // rewrite the screen through a presence message).
    #[test]
    fn g5_a_servers_escape_sequence_never_reaches_the_terminal() {
        let mut p = waiting_for_b(true, None);
        p.awaited.as_mut().unwrap().what = "side B to move\u{1b}[2J\u{202e}".into();
        let line = wait_line(&p, Some(Side::A), 0, &unread()).unwrap();
        assert!(
            !line.contains('\u{1b}') && !line.contains('\u{202e}'),
            "{line:?}"
        );
        assert!(
            line.starts_with("waiting for side B to move\u{FFFD}[2J\u{FFFD}"),
            "{line:?}"
        );
    }
}
