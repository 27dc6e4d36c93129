//! The one source of typed commands for a seat (issue 27 item 1): a
//! thread reads stdin all the time, one line after another (edited with
//! `prompt::read_line` on a terminal), and hands each line over a channel,
//! so a command typed while the game waits for the opponent or a machine
//! is received at once: the seat queues it with a note, or refuses it with
//! a note, never drops it silently. At the end of a session ([`finish`])
//! the lines read and never used are given back to be named, and a
//! terminal is put back as it was with its unread typing discarded, so
//! nothing is left for the shell to read after the client exits.
//!
//! The player's page (`join --ui`, issue 29, [`super::page`]) is the
//! other source of the same channel: a command given on the page arrives
//! here as a [`Line`] from [`From::Page`] and goes through the same parser
//! and checks as a typed one.

use super::prompt::Completions;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// Where a command line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum From {
    /// Typed on stdin.
    Stdin,
    /// Given on the player's page (`--ui`).
    Page,
}

/// One command line and its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The words as given.
    pub text: String,
    /// Where they came from.
    pub from: From,
}

/// Whether a page gives commands too: then the end of a piped stdin (a
/// page started with no terminal) does not end the session.
static PAGE_SOURCE: AtomicBool = AtomicBool::new(false);
/// Whether the end of input was read (ever after, [`next`] says so).
static INPUT_ENDED: AtomicBool = AtomicBool::new(false);

/// The prompt the reader shows and what its tab key completes.
type Shown = Arc<Mutex<(String, Arc<Completions>)>>;

/// The process's stdin reader.
struct Reader {
    /// Each line read; `None` at end of input.
    lines: tokio::sync::Mutex<UnboundedReceiver<Option<Line>>>,
    /// The channel's sending end, for the page's commands.
    tx: UnboundedSender<Option<Line>>,
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
    let page_tx = tx.clone();
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
        // A page started without a terminal (stdin closed or piped) goes
        // on giving commands after stdin's end; at a terminal, Ctrl-D
        // still leaves.
        if end && !terminal && PAGE_SOURCE.load(Ordering::SeqCst) {
            return;
        }
        let line = line.map(|text| Line {
            text,
            from: From::Stdin,
        });
        // The seat is gone (the process is ending): stop reading.
        if tx.send(line).is_err() || end {
            return;
        }
    });
    Reader {
        lines: tokio::sync::Mutex::new(rx),
        tx: page_tx,
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

/// Says a page gives commands too (before [`start`]): the end of a piped
/// stdin then ends nothing.
pub fn page_gives_commands() {
    PAGE_SOURCE.store(true, Ordering::SeqCst);
}

/// Why a page's command was not handed to the seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotHanded {
    /// The seat takes no commands yet (it reads its `--script` first) or
    /// any more (the session ended).
    NotReading,
}

impl std::fmt::Display for NotHanded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotHanded::NotReading => f.write_str(
                "the seat takes no commands now (it reads its --script first, or the session ended)",
            ),
        }
    }
}

/// Hands a command given on the page to the seat, on the channel typed
/// lines take.
pub fn from_page(text: String) -> Result<(), NotHanded> {
    let r = READER.get().ok_or(NotHanded::NotReading)?;
    r.tx.send(Some(Line {
        text,
        from: From::Page,
    }))
    .map_err(|_| NotHanded::NotReading)
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
pub async fn next() -> Option<Line> {
    let r = READER.get()?;
    if INPUT_ENDED.load(Ordering::SeqCst) {
        return None;
    }
    let mut lines = r.lines.lock().await;
    let line = lines.recv().await.flatten();
    if line.is_none() {
        // The channel stays open (the page's end holds it): remember.
        INPUT_ENDED.store(true, Ordering::SeqCst);
    }
    line
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
            if !line.text.trim().is_empty() {
                left.push(line.text.trim().to_string());
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
