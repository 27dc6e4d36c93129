//! The prompt a person types at (docs/PLAYING.md): on a terminal, line
//! editing, history and tab completion of command words, unit or figure
//! names and hexes (rustyline), and a confirmation before `concede`.
//! Piped stdin and `--script` are read as before, one plain line at a
//! time: rustyline is used only when stdin is a terminal.

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

/// Whether stdin is a terminal (a person typing), not a pipe or a file.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal()
}

/// What the tab key may complete: the first word from `verbs`, the others
/// from `names` (units, figures), `places` (hexes) and `keywords`
/// (movement modes, FFE kinds, mine types). Matching ignores case.
#[derive(Clone, Debug, Default)]
pub struct Completions {
    /// Command words.
    pub verbs: Vec<String>,
    /// Unit or figure names.
    pub names: Vec<String>,
    /// Hex names of the scenario's map.
    pub places: Vec<String>,
    /// Other argument words.
    pub keywords: Vec<String>,
}

impl Completions {
    /// The start of the word under the cursor and the candidates for it.
    /// A word starts after a space, or after a comma in a list of units
    /// (`ger-squad-1,ger-l` completes `ger-l`).
    pub fn complete(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let pos = pos.min(line.len());
        let before = &line[..pos];
        let word_start = before
            .rfind(|c: char| c.is_whitespace() || c == ',')
            .map_or(0, |i| i + 1);
        let first = before[..word_start].trim().is_empty();
        let prefix = before[word_start..].to_ascii_lowercase();
        let pool: Vec<&String> = if first {
            self.verbs.iter().collect()
        } else {
            self.names
                .iter()
                .chain(&self.places)
                .chain(&self.keywords)
                .collect()
        };
        let mut out: Vec<String> = pool
            .into_iter()
            .filter(|c| c.to_ascii_lowercase().starts_with(&prefix))
            .cloned()
            .collect();
        out.sort();
        out.dedup();
        if first && out.len() == 1 {
            out[0].push(' ');
        }
        (word_start, out)
    }
}

/// Whether an answer to a `[y/N]` question is yes (`y` or `yes`, any
/// case); anything else, an empty line included, is no.
pub fn confirmed(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// The question asked before an interactive `concede`.
pub const CONCEDE_QUESTION: &str = "concede the game? [y/N] ";

/// rustyline's helper: completion only.
struct PromptHelper(Arc<Completions>);

impl Completer for PromptHelper {
    type Candidate = String;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(self.0.complete(line, pos))
    }
}

impl Hinter for PromptHelper {
    type Hint = String;
}
impl Highlighter for PromptHelper {}
impl Validator for PromptHelper {}
impl Helper for PromptHelper {}

type LineEditor = Editor<PromptHelper, DefaultHistory>;

/// One editor for the process, so the history lasts across prompts.
static EDITOR: Mutex<Option<LineEditor>> = Mutex::new(None);

/// Reads one line at `prompt` (blocking); `None` at end of input. On a
/// terminal the line is edited with history and completion from
/// `completions`; otherwise it is one plain line of stdin, as ever.
/// `history`: whether the line goes into the history (not for a `y/N`
/// answer).
pub fn read_line(prompt: &str, completions: Arc<Completions>, history: bool) -> Option<String> {
    if interactive() {
        let mut guard = EDITOR.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            let config = Config::builder()
                .completion_type(CompletionType::List)
                .auto_add_history(false)
                .build();
            match Editor::with_config(config) {
                Ok(e) => *guard = Some(e),
                Err(_) => return plain_line(prompt),
            }
        }
        let editor = guard.as_mut().expect("set above");
        editor.set_helper(Some(PromptHelper(completions)));
        return match editor.readline(prompt) {
            Ok(line) => {
                if history && !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                Some(line)
            }
            // Ctrl-C drops the line being typed, as in a shell.
            Err(ReadlineError::Interrupted) => Some(String::new()),
            Err(_) => None,
        };
    }
    plain_line(prompt)
}

/// One line of stdin after printing `prompt`, as before rustyline.
fn plain_line(prompt: &str) -> Option<String> {
    use std::io::Write;
    print!("{prompt}");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn completions() -> Completions {
        Completions {
            verbs: ["move", "board", "help", "concede", "clear", "clearance"]
                .map(String::from)
                .to_vec(),
            names: ["ger-squad-1", "ger-leader", "brit-squad-1"]
                .map(String::from)
                .to_vec(),
            places: ["3E4", "3E5", "4E4"].map(String::from).to_vec(),
            keywords: ["bypass"].map(String::from).to_vec(),
        }
    }

    #[test]
    fn the_first_word_completes_to_a_command() {
        let c = completions();
        assert_eq!(c.complete("bo", 2), (0, vec!["board ".to_string()]));
        assert_eq!(
            c.complete("cle", 3),
            (0, vec!["clear".to_string(), "clearance".to_string()])
        );
        assert_eq!(c.complete("  mo", 4), (2, vec!["move ".to_string()]));
        assert_eq!(c.complete("xyz", 3).1, Vec::<String>::new());
    }

    #[test]
    fn arguments_complete_to_units_hexes_and_keywords_ignoring_case() {
        let c = completions();
        assert_eq!(
            c.complete("move ger-", 9),
            (5, vec!["ger-leader".to_string(), "ger-squad-1".to_string()])
        );
        // After a comma in a list of units.
        assert_eq!(
            c.complete("move ger-squad-1,ger-l", 22),
            (17, vec!["ger-leader".to_string()])
        );
        // Hexes, typed in lower case.
        assert_eq!(
            c.complete("move ger-leader 3e", 18),
            (16, vec!["3E4".to_string(), "3E5".to_string()])
        );
        assert_eq!(
            c.complete("move ger-leader 3E4 by", 22).1,
            vec!["bypass".to_string()]
        );
        // The cursor in the middle of the line completes the word before it.
        assert_eq!(c.complete("move brit 3E4", 9).1, vec!["brit-squad-1"]);
    }

    #[test]
    fn only_y_or_yes_confirms() {
        for yes in ["y", "Y", "yes", "YES\n", "  y  "] {
            assert!(confirmed(yes), "{yes:?}");
        }
        for no in ["", "\n", "n", "no", "yy", "sure", "y es"] {
            assert!(!confirmed(no), "{no:?}");
        }
    }
}
