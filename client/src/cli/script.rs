//! A side's scripted commands (`join --script FILE`, the demo's bots): the
//! lines of a command file, taken one per `Prompt::Act`.

use super::command::{Language, Parsed};
use std::collections::VecDeque;

/// What the next script line asks for.
#[derive(Debug)]
pub enum Next {
    /// Declare this action (the line is kept for messages): its bytes, and
    /// whether it concedes.
    Act(String, Vec<u8>, bool),
    /// A line that does not parse: say so, send nothing, go on.
    Bad(String, String),
    /// `help` in a script: nothing to send.
    Help,
    /// `board`, `status` or `units` in a script: show it, send nothing.
    Show(hexveil_view::board::View),
    /// The script is used up.
    Done,
}

/// The remaining lines of a script.
#[derive(Clone, Debug, Default)]
pub struct Script {
    lines: VecDeque<String>,
    /// How long to wait before each action (`hexveil demo --pace`), so a
    /// person can watch the game live.
    pace: std::time::Duration,
}

impl Script {
    /// A script from text: blank lines and `#` comments are skipped.
    pub fn new(text: &str) -> Script {
        Script {
            lines: text
                .lines()
                .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
                .filter(|l| !l.is_empty())
                .collect(),
            pace: std::time::Duration::ZERO,
        }
    }

    /// The same script, waiting `pace` before each action it declares.
    /// The wait blocks the thread that polls the seat: the demo's bots run
    /// on the thread that called `block_on`, apart from the runtime's
    /// workers, which keep serving the server and the QUIC connections
    /// meanwhile.
    #[cfg_attr(not(feature = "demo"), allow(dead_code))]
    pub fn paced(mut self, pace: std::time::Duration) -> Script {
        self.pace = pace;
        self
    }

    /// The next line, parsed.
    pub fn next(&mut self, language: &Language<'_>) -> Next {
        let Some(line) = self.lines.pop_front() else {
            return Next::Done;
        };
        match language.parse(&line) {
            Ok(Parsed::Act { bytes, concede }) => {
                if !self.pace.is_zero() {
                    std::thread::sleep(self.pace);
                }
                Next::Act(line, bytes, concede)
            }
            Ok(Parsed::Help) => Next::Help,
            Ok(Parsed::Show(v)) => Next::Show(v),
            Err(e) => Next::Bad(line, e),
        }
    }
}
