//! A league's roster (`--roster FILE`, issue 31): the keys that may create
//! games on this server, each with the name the league knows its player
//! by. Without a roster any key may create games (under the caps); with
//! one, a key that is not on it is refused at `CreateGame` and changes
//! nothing. Joining and watching are not restricted: a game's seats
//! already belong to the two keys it names.
//!
//! The file is TOML, one `[[player]]` table per key:
//!
//! ```toml
//! [[player]]
//! key = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"
//! name = "Alice"
//!
//! [[player]]
//! key = "a1c4..."   # 64 hex digits: the key `hexveil whoami` prints
//! name = "Bob"
//! ```
//!
//! Every key is 64 hex digits and a valid Ed25519 public key, every name
//! is 1 to 64 printable characters; a key or a name given twice, an
//! unknown field or an empty roster is refused with an error naming the
//! line's entry. [`Roster::name`] looks a key's name up (for whoever shows
//! names: the roster itself shows none).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::wire::PublicKey;

/// Longest name a roster may give a player, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// The keys that may create games, with their players' names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roster {
    names: HashMap<PublicKey, String>,
}

/// Why a roster file is refused.
#[derive(Debug, Error)]
pub enum RosterError {
    /// The file could not be read.
    #[error("cannot read roster file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not TOML of the roster's shape.
    #[error("roster file {path} is not a roster ([[player]] tables with key and name): {detail}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        detail: String,
    },
    /// A player's entry is wrong.
    #[error("roster file {path}, player {index} ({name:?}): {why}")]
    Player {
        /// The file.
        path: PathBuf,
        /// The entry's number, from 1.
        index: usize,
        /// Its name as given.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// The file names no player.
    #[error(
        "roster file {0} names no player: a league whose roster is empty could create no game"
    )]
    Empty(PathBuf),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    player: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    key: String,
    name: String,
}

impl Roster {
    /// Reads and checks the roster file at `path`.
    pub fn load(path: &Path) -> Result<Roster, RosterError> {
        let text = std::fs::read_to_string(path).map_err(|source| RosterError::Read {
            path: path.to_owned(),
            source,
        })?;
        Roster::parse(&text, path)
    }

    /// Parses roster TOML (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Roster, RosterError> {
        let file: File = toml::from_str(text).map_err(|e| RosterError::Parse {
            path: path.to_owned(),
            detail: e.to_string(),
        })?;
        if file.player.is_empty() {
            return Err(RosterError::Empty(path.to_owned()));
        }
        let mut names: HashMap<PublicKey, String> = HashMap::new();
        for (i, entry) in file.player.into_iter().enumerate() {
            let wrong = |why: String| RosterError::Player {
                path: path.to_owned(),
                index: i + 1,
                name: entry.name.clone(),
                why,
            };
            let key: PublicKey =
                entry.key.trim().parse().map_err(|e| {
                    wrong(format!("key {:?} is not 64 hex digits ({e})", entry.key))
                })?;
            key.check()
                .map_err(|e| wrong(format!("key {key} is not a valid Ed25519 key: {e:?}")))?;
            let chars = entry.name.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS || entry.name.chars().any(char::is_control) {
                return Err(wrong(format!(
                    "a name must be 1 to {MAX_NAME_CHARS} printable characters"
                )));
            }
            if let Some(first) = names.get(&key) {
                return Err(wrong(format!(
                    "key {key} is already on the roster, as {first:?}"
                )));
            }
            if names.values().any(|n| *n == entry.name) {
                return Err(wrong("another player already has this name".into()));
            }
            names.insert(key, entry.name);
        }
        Ok(Roster { names })
    }

    /// Whether `key` is on the roster.
    pub fn contains(&self, key: &PublicKey) -> bool {
        self.names.contains_key(key)
    }

    /// The name the roster gives `key`, if it is on it.
    pub fn name(&self, key: &PublicKey) -> Option<&str> {
        self.names.get(key).map(String::as_str)
    }

    /// How many players it names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it names no player (a loaded roster never does).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{Ed25519KeyPair, KeyPair};

    fn key(seed: u8) -> String {
        let pair = Ed25519KeyPair::from_seed_unchecked(&[seed; 32]).unwrap();
        hex::encode(pair.public_key().as_ref())
    }

    fn parse(text: &str) -> Result<Roster, RosterError> {
        Roster::parse(text, Path::new("league.toml"))
    }

    // Issue 31: the roster names keys; a lookup gives a key's name.
    #[test]
    fn issue31_a_roster_names_its_keys() {
        let text = format!(
            "[[player]]\nkey = \"{}\"\nname = \"Alice\"\n\n[[player]]\nkey = \"{}\"\nname = \"Bob\"\n",
            key(1),
            key(2)
        );
        let r = parse(&text).unwrap();
        assert_eq!(r.len(), 2);
        let alice: PublicKey = key(1).parse().unwrap();
        assert!(r.contains(&alice));
        assert_eq!(r.name(&alice), Some("Alice"));
        assert_eq!(r.name(&key(2).parse().unwrap()), Some("Bob"));
        assert_eq!(r.name(&key(3).parse().unwrap()), None);
    }

    // G6: a roster that is wrong is refused, naming the entry and what is
    // wrong with it.
    #[test]
    fn g6_a_bad_roster_is_refused_naming_the_entry() {
        let one = |k: &str, n: &str| format!("[[player]]\nkey = \"{k}\"\nname = \"{n}\"\n");
        let cases = [
            (
                one("zz", "Al"),
                "player 1 (\"Al\"): key \"zz\" is not 64 hex digits",
            ),
            (one(&key(1)[..62], "Al"), "not 64 hex digits"),
            (
                one(&key(1), ""),
                "a name must be 1 to 64 printable characters",
            ),
            (one(&key(1), &"x".repeat(65)), "1 to 64 printable"),
            (
                one(&key(1), "Al") + &one(&key(1), "Bo"),
                "player 2 (\"Bo\"): key",
            ),
            (
                one(&key(1), "Al") + &one(&key(2), "Al"),
                "player 2 (\"Al\"): another player already has this name",
            ),
            (String::new(), "names no player"),
            (
                "[[player]]\nkey = \"00\"\nname = \"a\"\nteam = 1\n".into(),
                "is not a roster",
            ),
            ("players = 3\n".into(), "is not a roster"),
        ];
        for (text, want) in cases {
            let e = parse(&text).unwrap_err().to_string();
            assert!(e.contains(want), "{e} (wanted {want})");
            assert!(e.contains("league.toml"), "{e}");
        }
        // The all-zero key is not a valid Ed25519 key (small order).
        let e = parse(&one(&"00".repeat(32), "Zed"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a valid Ed25519 key"), "{e}");
    }
}
