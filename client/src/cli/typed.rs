//! The one source of typed commands for a seat (issue 27 item 1): a
//! thread reads stdin all the time, one line after another (edited with
//! `prompt::read_line` on a terminal), and hands each line over a channel,
//! so a command typed while the game waits for the opponent or a machine
//! is received at once: the seat queues it with a note, or refuses it with
//! a note, never drops it silently. At the end of a session ([`finish`])
//! the lines read and never used are given back to be named, and a
//! terminal is put back as it was with its unread typing discarded, so
//! nothing is left for the shell to read after the client exits.

use super::prompt::Completions;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

/// The prompt the reader shows and what its tab key completes.
type Shown = Arc<Mutex<(String, Arc<Completions>)>>;

/// The process's stdin reader.
struct Reader {
    /// Each line read; `None` at end of input.
    lines: tokio::sync::Mutex<UnboundedReceiver<Option<String>>>,
    /// The prompt for the next line.
    shown: Shown,
    /// The terminal's settings before the first line was read.
    #[cfg(unix)]
    saved: Option<Mutex<nix::sys::termios::Termios>>,
}

static READER: OnceLock<Reader> = OnceLock::new();

/// A new reader showing `first` before its first line (set before the
/// thread starts: it must not read with an empty prompt).
fn spawn(first: (String, Arc<Completions>)) -> Reader {
    #[cfg(unix)]
    let saved = super::prompt::interactive()
        .then(|| nix::sys::termios::tcgetattr(std::io::stdin()).ok())
        .flatten()
        .map(Mutex::new);
    let shown: Shown = Arc::new(Mutex::new(first));
    let (tx, rx) = unbounded_channel();
    let for_thread = shown.clone();
    // Piped input shows no prompt here: the seat prints it when it
    // asks (`prompt`), as before.
    let terminal = super::prompt::interactive();
    std::thread::spawn(move || loop {
        let (mut prompt, words) = for_thread.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if !terminal {
            prompt.clear();
        }
        let line = super::prompt::read_line(&prompt, words, true);
        let end = line.is_none();
        // The seat is gone (the process is ending): stop reading.
        if tx.send(line).is_err() || end {
            return;
        }
    });
    Reader {
        lines: tokio::sync::Mutex::new(rx),
        shown,
        #[cfg(unix)]
        saved,
    }
}

/// Starts the reader (once per process) and sets the prompt it shows from
/// its next line on.
pub fn start(prompt: String, completions: Arc<Completions>) {
    let mut started = false;
    let r = READER.get_or_init(|| {
        started = true;
        spawn((prompt.clone(), completions.clone()))
    });
    if !started {
        *r.shown.lock().unwrap_or_else(|e| e.into_inner()) = (prompt, completions);
    }
}

/// Prints the prompt for piped input, where the reader shows none (a
/// terminal's line editor shows its own).
pub fn prompt(prompt: &str) {
    if !super::prompt::interactive() {
        use std::io::Write;
        print!("{prompt}");
        let _ = std::io::stdout().flush();
    }
}

/// The next typed line, as soon as it is typed; `None` at end of input
/// (and ever after). Cancel-safe: a line not yet taken stays for the
/// next call.
/// Without [`start`], there is no input: `None`.
pub async fn next() -> Option<String> {
    let r = READER.get()?;
    let mut lines = r.lines.lock().await;
    lines.recv().await.flatten()
}

/// Ends a session's reading: the lines read and not yet taken (to be
/// named to the player, never dropped silently); on a terminal, its
/// settings as they were before the first line and its unread typing
/// discarded (what the reader thread would otherwise leave for the shell).
pub fn finish() -> Vec<String> {
    let Some(r) = READER.get() else {
        return Vec::new();
    };
    let mut left = Vec::new();
    if let Ok(mut lines) = r.lines.try_lock() {
        while let Ok(Some(line)) = lines.try_recv() {
            if !line.trim().is_empty() {
                left.push(line.trim().to_string());
            }
        }
    }
    #[cfg(unix)]
    if let Some(saved) = &r.saved {
        use nix::sys::termios::{tcflush, tcsetattr, FlushArg, SetArg};
        let saved = saved.lock().unwrap_or_else(|e| e.into_inner());
        let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, &saved);
        let _ = tcflush(std::io::stdin(), FlushArg::TCIFLUSH);
        // The reader's prompt is left mid-line.
        println!();
    }
    left
}
