//! Players' display names (issue 27 item 8). A player may give its name
//! as a top-level `name = "..."` of its public setup (`join --name`): its
//! key signs it inside its Setup entry, so no server can put another name
//! in its mouth, and it is public from the setup on (spectators, the live
//! page, the transcript). Rulesets read past it: a name never changes a
//! ruling or a verdict, and a setup without one (every older transcript)
//! is read as before. A league's roster may pin a name to a key instead
//! (the server's web view shows it, marked as the league's).
//!
//! A name is 1 to [`MAX_NAME_CHARS`] characters of one line of text: no
//! control characters (nor the Unicode line and paragraph separators), no
//! bidirectional formatting characters (which could make one name read as
//! another) and no invisible zero-width ones, and no space at either end.

/// The longest name, in characters (Unicode scalar values).
pub const MAX_NAME_CHARS: usize = 32;

/// Why a name is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Empty.
    #[error("a name may not be empty")]
    Empty,
    /// Too long.
    #[error("the name {name:?} has {chars} characters; a name has at most {MAX_NAME_CHARS}")]
    TooLong {
        /// The name.
        name: String,
        /// Its length in characters.
        chars: usize,
    },
    /// A space (or other white space) at either end.
    #[error("the name {0:?} begins or ends with white space")]
    Spaces(String),
    /// A character a name may not hold.
    #[error("the name {name:?} holds U+{code:04X}, {what}; a name is one line of visible text")]
    Character {
        /// The name.
        name: String,
        /// The character's code point.
        code: u32,
        /// What kind of character it is.
        what: &'static str,
    },
    /// The public setup's `name` is not a string.
    #[error("the setup's `name` must be a string")]
    NotText,
}

/// What kind of forbidden character `c` is, if it is one.
fn forbidden(c: char) -> Option<&'static str> {
    match c {
        '\u{2028}' | '\u{2029}' => Some("a line or paragraph separator"),
        c if c.is_control() => Some("a control character"),
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => Some("a bidirectional formatting character"),
        '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => Some("an invisible character"),
        _ => None,
    }
}

/// `text` from the server (its unsigned words: errors, presence) as it may
/// reach a terminal: every character a name may not hold (controls,
/// escape sequences, bidi overrides, invisibles) replaced by U+FFFD, so a
/// dishonest server cannot rewrite what the screen already shows.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if forbidden(c).is_some() {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

/// Checks a name against the bounds above.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(NameError::TooLong {
            name: name.to_string(),
            chars,
        });
    }
    if let Some((c, what)) = name.chars().find_map(|c| forbidden(c).map(|w| (c, w))) {
        return Err(NameError::Character {
            name: name.to_string(),
            code: u32::from(c),
            what,
        });
    }
    if name.trim() != name {
        return Err(NameError::Spaces(name.to_string()));
    }
    Ok(())
}

/// The name a public setup gives its player, if any: `Ok(None)` for a
/// setup without one (or text that is not TOML, which no setup is), an
/// error for a name out of bounds.
pub fn name_in_setup(public_setup_toml: &str) -> Result<Option<String>, NameError> {
    let Ok(table) = public_setup_toml.parse::<toml::Table>() else {
        return Ok(None);
    };
    match table.get("name") {
        None => Ok(None),
        Some(toml::Value::String(name)) => check_name(name).map(|()| Some(name.clone())),
        Some(_) => Err(NameError::NotText),
    }
}

/// The side a public setup names (`side = "A"`), if it names one.
pub fn side_in_setup(public_setup_toml: &str) -> Option<String> {
    let table = public_setup_toml.parse::<toml::Table>().ok()?;
    table.get("side")?.as_str().map(str::to_uppercase)
}

/// A public setup with `name` as its player's name: a `name = ...` line
/// put first (a top-level key must come before any table). Refused when
/// the name is out of bounds or the setup already names another player.
pub fn with_name(public_setup_toml: &str, name: &str) -> Result<String, String> {
    check_name(name).map_err(|e| e.to_string())?;
    match name_in_setup(public_setup_toml).map_err(|e| e.to_string())? {
        Some(given) if given == name => Ok(public_setup_toml.to_string()),
        Some(given) => Err(format!(
            "the setup already names its player {given:?}, and --name says {name:?}; give one of them"
        )),
        None => {
            let quoted = toml::Value::String(name.to_string()).to_string();
            Ok(format!("name = {quoted}\n{public_setup_toml}"))
        }
    }
}

/// What a page says for a side whose setup gave no name.
pub const NO_NAME: &str = "no name given";

/// Who plays each side, side A first, as the replay page and the live
/// page head them (issue 27 item 8): `side A (German): Alice`. `sides` are
/// the scenario's nationalities (empty where it names none); `names` the
/// names the players' keys signed in their setups, or the words to show
/// instead (`no name given`). Each name goes through [`visible`]: a name
/// passed [`check_name`] already, but a page never trusts that.
pub fn players(sides: &[String; 2], names: [&str; 2]) -> Vec<String> {
    ["A", "B"]
        .iter()
        .zip(sides.iter().zip(names))
        .map(|(side, (nation, name))| {
            let nation = if nation.is_empty() {
                String::new()
            } else {
                format!(" ({nation})")
            };
            format!("side {side}{nation}: {}", visible(name))
        })
        .collect()
}

/// [`players`] as the pages' header line, `<p id="players">`, escaped
/// (a name is its player's own text); empty for no players.
pub fn players_html(players: &[String]) -> String {
    if players.is_empty() {
        return String::new();
    }
    let players: Vec<String> = players.iter().map(|p| crate::svg::escape(p)).collect();
    format!(
        "<p id=\"players\">{} <span class=\"muted\">(the names their keys signed)</span></p>",
        players.join(" &middot; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 27 item 8: names are bounded in length and characters, and
    // each refusal says what is wrong.
    #[test]
    fn issue27_item8_names_are_bounded_and_a_bad_name_says_why() {
        assert_eq!(check_name("Alice"), Ok(()));
        assert_eq!(check_name("Jürgen von Möller"), Ok(()));
        assert_eq!(check_name(&"é".repeat(32)), Ok(()));
        assert_eq!(check_name(""), Err(NameError::Empty));
        let e = check_name(&"x".repeat(33)).unwrap_err().to_string();
        assert!(
            e.contains("33 characters") && e.contains("at most 32"),
            "{e}"
        );
        let e = check_name("Bob\u{202E}ecilA").unwrap_err().to_string();
        assert!(e.contains("U+202E") && e.contains("bidirectional"), "{e}");
        let e = check_name("Bob\nAlice").unwrap_err().to_string();
        assert!(
            e.contains("U+000A") && e.contains("control character"),
            "{e}"
        );
        let e = check_name("Bo\u{200B}b").unwrap_err().to_string();
        assert!(e.contains("invisible"), "{e}");
        let e = check_name(" Bob").unwrap_err().to_string();
        assert!(e.contains("white space"), "{e}");
    }

    // Issue 27 item 8: the name goes first in the public setup and is read
    // back from it; a setup without one has none; two names are refused.
    #[test]
    fn issue27_item8_a_name_is_carried_in_the_public_setup() {
        let setup = "side = \"B\"\n\n[positions]\nbrit-squad-1 = \"3F4\"\n";
        assert_eq!(name_in_setup(setup), Ok(None));
        let named = with_name(setup, "Bob \"the Mole\"").unwrap();
        assert!(named.ends_with(setup));
        assert_eq!(name_in_setup(&named), Ok(Some("Bob \"the Mole\"".into())));
        assert_eq!(side_in_setup(&named).as_deref(), Some("B"));
        assert_eq!(with_name(&named, "Bob \"the Mole\"").unwrap(), named);
        let e = with_name(&named, "Carol").unwrap_err();
        assert!(
            e.contains("already names its player") && e.contains("Carol"),
            "{e}"
        );
        assert!(with_name(setup, "").unwrap_err().contains("empty"));
        assert_eq!(
            name_in_setup("name = 3\nside = \"A\"\n"),
            Err(NameError::NotText)
        );
    }
}
