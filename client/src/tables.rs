//! Supplied data tables named by file (R12, [`hexveil_core::tables`]): the
//! one place the client turns a scenario's `[tables.<name>] file = "..."`
//! into the table's text and its pinned hash, for a scenario file and for
//! a `hexveil rules` question alike.
//!
//! The engine reads no files: a scenario that reaches it (and the genesis
//! that carries the scenario text) holds each supplied table whole, as
//! `csv`, with its `sha256`. [`inline_table_files`] does that on the
//! scenario's structure as JSON; [`inline_table_files_toml`] does the same
//! on a parsed TOML scenario file.

use std::path::Path;

/// SHA-256 of `bytes` in lower-case hex: the form of a table's `sha256`.
/// Written as the protocol writes every digest, so a pin the client fills
/// is the hash the referee checks at genesis.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hexveil_protocol::encoding::Digest::sha256(bytes).to_string()
}

/// Reads in the supplied tables of a scenario given as JSON (the scenario
/// file's structure: its top level holds `tables`).
///
/// For each entry of `tables` (an object keyed by table name):
///
/// - `file` and no `csv`: the file is read as UTF-8 text, relative to
///   `base_dir` unless absolute (the scenario file's or the question file's
///   directory), and its text is put in `csv`. `file` is kept, for people.
/// - `csv` already present: used as it is; `file`, if any, is not read
///   again (so the function can run twice over the same value).
/// - then `sha256`: computed from `csv` (lower-case hex) when absent; when
///   given and different, an error naming the table and both hashes.
///
/// An entry with neither `file` nor `csv` is left as it is: the ruleset's
/// check names it. A scenario without `tables` is unchanged. Errors name
/// the table (`tables.to_hit: ...`) and, for a file, its path.
pub fn inline_table_files(scenario: &mut serde_json::Value, base_dir: &Path) -> Result<(), String> {
    use serde_json::Value;
    let Some(tables) = scenario.get_mut("tables") else {
        return Ok(());
    };
    let Value::Object(tables) = tables else {
        return Err(format!(
            "tables: must be a table of named tables (tables.<name>), not {tables}"
        ));
    };
    for (name, entry) in tables.iter_mut() {
        let Value::Object(entry) = entry else {
            return Err(format!(
                "tables.{name}: must be a table with `file` or `csv`, not {entry}"
            ));
        };
        let text_of = |key: &str| -> Result<Option<String>, String> {
            match entry.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!(
                    "tables.{name}.{key}: must be a string, not {other}"
                )),
            }
        };
        let file = text_of("file")?;
        let mut csv = text_of("csv")?;
        let pinned = text_of("sha256")?;
        if let (None, Some(file)) = (&csv, &file) {
            let path = base_dir.join(file);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "tables.{name}: cannot read file {file:?} ({}): {e}",
                    path.display()
                )
            })?;
            entry.insert("csv".into(), Value::String(text.clone()));
            csv = Some(text);
        }
        let Some(csv) = csv else {
            continue;
        };
        let actual = sha256_hex(csv.as_bytes());
        match pinned {
            None => {
                entry.insert("sha256".into(), Value::String(actual));
            }
            Some(pinned) if pinned == actual => {}
            Some(pinned) => {
                let from = file.map_or_else(String::new, |f| format!(" (file {f:?})"));
                return Err(format!(
                    "tables.{name}{from}: its text hashes to {actual}, not to the pinned sha256 {pinned}"
                ));
            }
        }
    }
    Ok(())
}

/// [`inline_table_files`] on a parsed TOML scenario file: its `[tables]`
/// goes through JSON and back (only that part of the file is touched).
pub fn inline_table_files_toml(scenario: &mut toml::Table, base_dir: &Path) -> Result<(), String> {
    let Some(tables) = scenario.get("tables") else {
        return Ok(());
    };
    let tables = serde_json::to_value(tables).map_err(|e| format!("tables: {e}"))?;
    let mut wrapped = serde_json::json!({ "tables": tables });
    inline_table_files(&mut wrapped, base_dir)?;
    let back = toml::Value::try_from(&wrapped["tables"]).map_err(|e| format!("tables: {e}"))?;
    scenario.insert("tables".into(), back);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CSV: &str = "# example data\nclearance_item,value\nsuccess_final_dr_max,6\n";

    fn dir_with_table() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("league")).unwrap();
        std::fs::write(d.path().join("league/clear.csv"), CSV).unwrap();
        d
    }

    #[test]
    fn r12_a_file_is_read_relative_to_the_base_dir_and_hashed() {
        let d = dir_with_table();
        let mut v = json!({ "name": "x", "tables": { "b24_74_clearance": { "file": "league/clear.csv" } } });
        inline_table_files(&mut v, d.path()).unwrap();
        let t = &v["tables"]["b24_74_clearance"];
        assert_eq!(t["csv"], CSV);
        assert_eq!(t["file"], "league/clear.csv");
        assert_eq!(t["sha256"], sha256_hex(CSV.as_bytes()));
        assert_eq!(t["sha256"].as_str().unwrap().len(), 64);
        assert_eq!(v["name"], "x");
        // Twice over the same value: unchanged (the file is not read again).
        let once = v.clone();
        std::fs::remove_file(d.path().join("league/clear.csv")).unwrap();
        inline_table_files(&mut v, d.path()).unwrap();
        assert_eq!(v, once);
    }

    #[test]
    fn r12_sha256_of_known_text_is_lower_case_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn r12_a_pin_that_does_not_match_is_refused_naming_both_hashes() {
        let d = dir_with_table();
        let wrong = "0".repeat(64);
        let mut v = json!({ "tables": { "b24_74_clearance": { "file": "league/clear.csv", "sha256": wrong } } });
        let e = inline_table_files(&mut v, d.path()).unwrap_err();
        assert!(e.contains("tables.b24_74_clearance"), "{e}");
        assert!(
            e.contains(&wrong) && e.contains(&sha256_hex(CSV.as_bytes())),
            "{e}"
        );
        // An inline text is checked against its pin as well.
        let mut v = json!({ "tables": { "to_hit": { "csv": "a\n", "sha256": wrong } } });
        assert!(inline_table_files(&mut v, d.path())
            .unwrap_err()
            .contains("tables.to_hit"));
        // A matching pin passes and is kept.
        let right = sha256_hex(CSV.as_bytes());
        let mut v = json!({ "tables": { "b24_74_clearance": { "file": "league/clear.csv", "sha256": right } } });
        inline_table_files(&mut v, d.path()).unwrap();
        assert_eq!(v["tables"]["b24_74_clearance"]["sha256"], right);
    }

    #[test]
    fn r12_a_missing_file_or_bad_shape_is_named() {
        let d = tempfile::tempdir().unwrap();
        let mut v = json!({ "tables": { "to_hit": { "file": "nope.csv" } } });
        let e = inline_table_files(&mut v, d.path()).unwrap_err();
        assert!(e.contains("tables.to_hit") && e.contains("nope.csv"), "{e}");
        let mut v = json!({ "tables": { "to_hit": { "file": 3 } } });
        assert!(inline_table_files(&mut v, d.path())
            .unwrap_err()
            .contains("tables.to_hit.file"));
        let mut v = json!({ "tables": ["to_hit"] });
        assert!(inline_table_files(&mut v, d.path()).is_err());
        // No tables, or an entry with nothing: left for the ruleset's check.
        let mut v = json!({ "name": "x" });
        inline_table_files(&mut v, d.path()).unwrap();
        assert_eq!(v, json!({ "name": "x" }));
        let mut v = json!({ "tables": { "to_hit": {} } });
        inline_table_files(&mut v, d.path()).unwrap();
        assert_eq!(v, json!({ "tables": { "to_hit": {} } }));
    }

    #[test]
    fn r12_a_toml_scenario_gets_the_same_treatment() {
        let d = dir_with_table();
        let mut t: toml::Table =
            "name = \"x\"\nturns = 3\n[tables.b24_74_clearance]\nfile = \"league/clear.csv\"\n"
                .parse()
                .unwrap();
        inline_table_files_toml(&mut t, d.path()).unwrap();
        assert_eq!(t["turns"].as_integer(), Some(3));
        let e = t["tables"]["b24_74_clearance"].as_table().unwrap();
        assert_eq!(e["csv"].as_str(), Some(CSV));
        assert_eq!(
            e["sha256"].as_str(),
            Some(sha256_hex(CSV.as_bytes()).as_str())
        );
        // The text round-trips through TOML.
        let again: toml::Table = toml::to_string(&t).unwrap().parse().unwrap();
        assert_eq!(again, t);
        let mut none: toml::Table = "name = \"x\"\n".parse().unwrap();
        inline_table_files_toml(&mut none, d.path()).unwrap();
        assert_eq!(none.len(), 1);
    }
}
