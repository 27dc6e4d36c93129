//! The wait line (issue 27): who a game waits for, on what, whether that
//! side's client is connected, and when the answer timeout forfeits.
//!
//! Everything here is the server's word ([`Presence`], unsigned): which
//! clients are connected and the deadline cannot be proven to a client
//! (PROTOCOL.md 16). The line says so.

use hexveil_net::wire::{Presence, Side};

/// The wait line of `presence` for `me` (a seat, or `None`: a spectator)
/// at `now_ms` (Unix milliseconds, this machine's clock): `waiting for side
/// B's machine to answer its Daisy Chain opportunity 1; side B's client is
/// NOT connected; forfeits at 14:32 UTC, in 9 min (the server's word)`.
/// `None` when the game waits for nobody (it is over).
pub fn wait_line(presence: &Presence, me: Option<Side>, now_ms: u64) -> Option<String> {
    let awaited = presence.awaited.as_ref()?;
    let mut line = format!(
        "waiting for {}",
        hexveil_view::names::visible(&awaited.what)
    );
    match awaited.side {
        Some(side) if Some(side) == me => line.push_str(" (you)"),
        Some(side) if presence.connected(side) => {
            line.push_str(&format!("; side {side}'s client is connected"))
        }
        Some(side) => line.push_str(&format!("; side {side}'s client is NOT connected")),
        None => {}
    }
    if let Some(at) = awaited.forfeits_at_ms {
        line.push_str(&format!("; {}", forfeit_words(at, now_ms)));
    }
    line.push_str(" (the server's word)");
    Some(line)
}

/// `forfeits at 14:32 UTC, in 9 min` (or `in 40 s`, `now`).
pub fn forfeit_words(at_ms: u64, now_ms: u64) -> String {
    let secs_of_day = (at_ms / 1000) % 86_400;
    let clock = format!("{:02}:{:02} UTC", secs_of_day / 3600, secs_of_day / 60 % 60);
    let left = at_ms.saturating_sub(now_ms) / 1000;
    let when = match left {
        0 => "now".to_string(),
        1..=89 => format!("in {left} s"),
        _ => format!("in {} min", (left + 30) / 60),
    };
    format!("forfeits at {clock}, {when}")
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
        let back = wait_line(&waiting_for_b(true, Some(at)), None, at - 40_000).unwrap();
        assert!(back.contains("side B's client is connected; forfeits at 14:32 UTC, in 40 s"));
    }

    #[test]
    fn issue27_a_move_has_no_forfeit_and_a_finished_game_no_wait_line() {
        let mut p = waiting_for_b(true, None);
        p.awaited.as_mut().unwrap().what = "side B to move".into();
        let line = wait_line(&p, Some(Side::B), 0).unwrap();
        assert_eq!(line, "waiting for side B to move (you) (the server's word)");
        p.awaited = None;
        assert_eq!(wait_line(&p, Some(Side::A), 0), None);
    }

    // Issue 27 with issue 24: the server's words reach the terminal
    // without its control sequences (a dishonest server cannot clear or
    // rewrite the screen through a presence message).
    #[test]
    fn g5_a_servers_escape_sequence_never_reaches_the_terminal() {
        let mut p = waiting_for_b(true, None);
        p.awaited.as_mut().unwrap().what = "side B to move\u{1b}[2J\u{202e}".into();
        let line = wait_line(&p, Some(Side::A), 0).unwrap();
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
