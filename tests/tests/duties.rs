//! Duty coverage: every row of the B28, C3 and A19 tables of
//! `shared/rules/DUTIES.md` is cited by at least one test of the ASL
//! ruleset (an `asl/tests` source, or a `#[cfg(test)]` module of
//! `asl/src`), and every section of the seed 004 table by a test of the
//! miniatures ruleset (`minis/`), named `seed004_<section>` (e.g.
//! `seed004_who_triggers_...`).

use std::path::{Path, PathBuf};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// Set to a path, the one `DUTIES.md` to read (and no other).
const DUTIES_ENV: &str = "HEXVEIL_DUTIES_MD";

/// `shared/rules/DUTIES.md`: beside the project root (`<root>/../shared`),
/// else beside any further ancestor (a git worktree nests the root deeper),
/// or exactly the file `HEXVEIL_DUTIES_MD` names. Without it (a fresh clone
/// of this repository alone) the check cannot run: it is skipped with a
/// notice that cargo's output capture does not hide ([`skip_notice`]),
/// except under CI (`CI` set), which always has `shared/` beside the clone
/// and must check.
fn duties_text() -> Option<String> {
    let tried: Vec<PathBuf> = match std::env::var_os(DUTIES_ENV) {
        Some(p) => vec![PathBuf::from(p)],
        None => std::iter::once(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/rules/DUTIES.md"
        )))
        .chain(
            Path::new(MANIFEST)
                .ancestors()
                .skip(1)
                .map(|d| d.join("shared/rules/DUTIES.md")),
        )
        .collect(),
    };
    if let Some(t) = tried.iter().find_map(|p| std::fs::read_to_string(p).ok()) {
        return Some(t);
    }
    let looked = tried
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        std::env::var_os("CI").is_none(),
        "DUTIES.md not found under CI; looked for it at: {looked}"
    );
    skip_notice(&format!(
        "duty coverage NOT checked: DUTIES.md not found (looked at: {looked})"
    ));
    None
}

/// A skipped check must not pass unseen ([`hexveil_fixtures::skip_notice`]).
fn skip_notice(text: &str) {
    hexveil_fixtures::skip_notice(text);
}

/// The skip of the duty check shows under cargo's default output capture:
/// this test runs this very test binary again (capture on, as `cargo test`
/// runs it) with `DUTIES.md` pointed at nothing and without `CI`, and looks
/// for the notice in what the process printed.
#[test]
fn a_skipped_duty_check_says_so_through_the_capture() {
    if std::env::var_os(DUTIES_ENV).is_some() {
        return; // the child run below
    }
    let printed = hexveil_fixtures::rerun_capturing(
        "every_b28_c3_and_a19_duty_is_cited_by_a_test",
        DUTIES_ENV,
        "/nonexistent/shared/rules/DUTIES.md",
    );
    assert!(
        printed.contains("SKIPPED duty coverage NOT checked"),
        "the skip notice was hidden: {printed}"
    );
}

/// The chapters whose DUTIES.md rows the ASL tests must cite.
const ASL_CHAPTERS: [&str; 3] = ["B28", "C3", "A19"];

/// The rule ids (first column) of the tables under the `###` headings that
/// name one of [`ASL_CHAPTERS`]: `B28.41`, `C3.331`, `A19.12` ...
fn duty_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            in_table = ASL_CHAPTERS.iter().any(|c| h.contains(&format!("{c} ")));
            continue;
        }
        if line.starts_with("## ") {
            in_table = false;
        }
        if !in_table {
            continue;
        }
        let Some(rest) = line.strip_prefix('|') else {
            continue;
        };
        let cell = rest.split('|').next().unwrap_or("").trim();
        let is_id = ASL_CHAPTERS.iter().any(|c| {
            cell.strip_prefix(c)
                .and_then(|r| r.strip_prefix('.'))
                .is_some_and(|n| !n.is_empty() && n.chars().all(|d| d.is_ascii_digit()))
        });
        if is_id {
            ids.push(cell.to_string());
        }
    }
    ids
}

/// Every Rust file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The sections (first column) of the seed 004 table: `detonation roll`,
/// `who triggers`, ...
fn seed004_sections(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            in_table = h.contains("Seed 004");
            continue;
        }
        if line.starts_with("## ") {
            in_table = false;
        }
        let Some(rest) = line.strip_prefix('|').filter(|_| in_table) else {
            continue;
        };
        let cell = rest.split('|').next().unwrap_or("").trim();
        if !cell.is_empty() && cell != "section" && !cell.starts_with('-') {
            out.push(cell.to_string());
        }
    }
    out
}

/// The test text of a ruleset crate (`asl`, `minis`): whole files of its
/// `tests/`, and for its `src/` files what follows their first
/// `#[cfg(test)]`.
fn test_sources(krate: &str) -> Vec<(PathBuf, String)> {
    let root = Path::new(MANIFEST).join("..").join(krate);
    let mut out = Vec::new();
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    for f in files {
        // This file lists no rule ids of its own.
        if f.file_name().is_some_and(|n| n == "duties.rs") {
            continue;
        }
        let t = std::fs::read_to_string(&f).unwrap();
        out.push((f, t));
    }
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for f in files {
        let t = std::fs::read_to_string(&f).unwrap();
        if let Some(i) = t.find("#[cfg(test)]") {
            out.push((f, t[i..].to_string()));
        }
    }
    out
}

/// Whether `text` cites `id` (`B28.41`) either as written or as a test name
/// part (`b28_41`), not as the start of a longer number (`B28.412`).
fn cites(text: &str, id: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let dotted = id.to_ascii_lowercase();
    let snake = dotted.replace('.', "_");
    [dotted, snake].iter().any(|needle| {
        lower.match_indices(needle.as_str()).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + needle.len()..].chars().next();
            !before.is_some_and(|c| c.is_ascii_alphanumeric())
                && !after.is_some_and(|c| c.is_ascii_digit())
        })
    })
}

#[test]
fn cites_matches_whole_ids_only() {
    assert!(cites("// B28.41: entry", "B28.41"));
    assert!(cites("fn b28_41_entry()", "B28.41"));
    assert!(!cites("// B28.412 only", "B28.41"));
    assert!(!cites("fn b28_412_x()", "B28.41"));
    assert!(cites("(B28.4).", "B28.4"));
    assert!(cites("fn c3_331_area()", "C3.331"));
    assert!(!cites("fn c3_331_area()", "C3.33"));
    assert!(!cites("hexveil_asl::c3::hit", "C3.3"));
}

#[test]
fn duty_ids_reads_each_asl_chapter_table_and_nothing_else() {
    let text = "### Seed 000, B28 Minefields\n| rule | duty |\n|---|---|\n| B28.41 | x |\n\
                ### Seed 002, C3 The To Hit Process\n| C3.1 | x |\n| C3.331 | x |\n| C3.x | x |\n\
                ### Seed 003, A19 ELR\n| A19.12 | x |\n\
                ### Seed 004, miniatures\n| who triggers | x |\n| C3.9 | x |\n\
                ## Differences\n| B28.5 | x |\n";
    assert_eq!(duty_ids(text), ["B28.41", "C3.1", "C3.331", "A19.12"]);
}

#[test]
fn every_b28_c3_and_a19_duty_is_cited_by_a_test() {
    let Some(text) = duties_text() else {
        return;
    };
    let ids = duty_ids(&text);
    for chapter in ASL_CHAPTERS {
        assert!(
            ids.iter().any(|i| i.starts_with(&format!("{chapter}."))),
            "no {chapter} rows found in DUTIES.md: {ids:?}"
        );
    }
    assert!(
        ids.iter().filter(|i| i.starts_with("C3.")).count() >= 20,
        "the C3 table of DUTIES.md was not read whole: {ids:?}"
    );
    let sources = test_sources("asl");
    let missing: Vec<&String> = ids
        .iter()
        .filter(|id| !sources.iter().any(|(_, t)| cites(t, id)))
        .collect();
    assert!(
        missing.is_empty(),
        "DUTIES.md rules no test cites (asl/tests or #[cfg(test)] in asl/src): {missing:?}"
    );
    // A row is a behaviour with a test of its own (issue 26): a test
    // function carries its id in its name (`fn c3_72_...`), not only a
    // comment somewhere; what it asserts is the row's behaviour, and a row
    // the engine refuses or cannot reach says why in docs/RULINGS.md (R80).
    let names: Vec<String> = sources.iter().flat_map(|(_, t)| test_fn_names(t)).collect();
    let unnamed: Vec<&String> = ids
        .iter()
        .filter(|id| !names.iter().any(|n| cites(n, id)))
        .collect();
    assert!(
        unnamed.is_empty(),
        "DUTIES.md rules no test function is named after: {unnamed:?}"
    );
}

/// The names of the test functions of a source text: each `fn` whose
/// attributes just before it include `#[test]` (plain, tokio or inside a
/// proptest block).
fn test_fn_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = false;
    for line in text.lines() {
        let l = line.trim_start();
        if l.starts_with("#[test]") || l.starts_with("#[tokio::test") {
            pending = true;
            continue;
        }
        if pending && l.starts_with("#[") {
            continue;
        }
        if pending {
            if let Some(rest) = l
                .strip_prefix("fn ")
                .or_else(|| l.strip_prefix("async fn "))
            {
                let end = rest.find(['(', '<']).unwrap_or(rest.len());
                out.push(rest[..end].to_string());
            }
        }
        pending = false;
    }
    out
}

#[test]
fn test_fn_names_reads_the_functions_marked_as_tests() {
    let text = "#[test]\nfn c3_72_doubled() {}\nfn helper_c3_8() {}\n#[tokio::test(flavor = \"x\")]\n#[ignore]\nasync fn b28_41_e2e() {}\n";
    assert_eq!(test_fn_names(text), ["c3_72_doubled", "b28_41_e2e"]);
}

#[test]
fn every_seed004_duty_has_a_test_named_after_it() {
    let Some(text) = duties_text() else {
        return;
    };
    let sections = seed004_sections(&text);
    assert!(
        sections.len() >= 8 && sections.iter().any(|s| s == "who triggers"),
        "the seed 004 table was not found in DUTIES.md: {sections:?}"
    );
    // Test names, with the separators a name cannot keep dropped:
    // `seed004_afv_vs_at_mine_kv...` names the section "AFV vs A-T mine".
    let squash = |s: &str| -> String {
        s.to_ascii_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect()
    };
    let names: Vec<String> = test_sources("minis")
        .iter()
        .flat_map(|(_, t)| {
            t.match_indices("fn seed004_")
                .map(|(i, _)| {
                    let rest = &t[i + 3..];
                    let end = rest.find('(').unwrap_or(rest.len());
                    squash(&rest[..end])
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let missing: Vec<&String> = sections
        .iter()
        .filter(|s| {
            let want = format!("seed004{}", squash(s));
            !names.iter().any(|n| n.starts_with(&want))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "seed 004 sections of DUTIES.md no minis test is named after (fn seed004_<section>...): {missing:?}"
    );
}
