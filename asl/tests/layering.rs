//! The crate's chapters import one way: board < model < a < b28 < (c3) <
//! the top (the files at the root of `src/`). This test reads the sources
//! of each chapter folder and fails on an import of a chapter above it that
//! is not one of the justified back edges listed in `src/lib.rs` (and
//! here). A listed edge that is no longer used fails too, so the list stays
//! true.

use std::path::Path;

/// Chapter folders, lowest first. Anything else under `crate::` that is not
/// the kernel is the top.
const CHAPTERS: [&str; 5] = ["board", "model", "a", "b28", "c3"];
/// Kernel re-exports at the crate root, usable from every chapter.
const KERNEL: [&str; 2] = ["dice", "side"];
const TOP: usize = CHAPTERS.len();

/// The back edges the rules need, as (file under `src/`, imported module
/// path), each with its reason in `src/lib.rs`.
const BACK_EDGES: [(&str, &str); 11] = [
    // The event record is one closed enum of every chapter's events, and
    // Ctx (model) owns it.
    ("model/event.rs", "a::fire"),
    ("model/event.rs", "a::morale"),
    ("model/event.rs", "b28::booby_trap"),
    ("model/event.rs", "b28::daisy_chain"),
    ("model/event.rs", "b28::minefield"),
    ("model/event.rs", "b28::movement"),
    ("model/event.rs", "turn"),
    ("model/event.rs", "c3::ordnance"),
    // A scenario is refused when a unit has no ELR row (A19.1).
    ("model/scenario.rs", "a::elr"),
    // A Task Check by a unit in a booby-trapped hex can set it off (B28.9).
    ("a/morale.rs", "b28::booby_trap"),
    // A found Dummy marks its hex only if setup could have put the layer
    // there (B28.47 EXC): the same test setup uses.
    ("b28/minefield.rs", "setup"),
];

fn level(module: &str) -> Option<usize> {
    if KERNEL.contains(&module) {
        return None;
    }
    Some(CHAPTERS.iter().position(|c| *c == module).unwrap_or(TOP))
}

/// `crate::` paths in a source text, comments left out, as their first two
/// segments (`a::morale`) or one for the top (`turn`).
fn imports(src: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in src.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let segs: Vec<&str> = rest
                .split("::")
                .take(2)
                .map(|s| {
                    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("")
                })
                .collect();
            let first = segs[0];
            assert!(
                !first.is_empty(),
                "write `crate::` imports one path each (no `crate::{{...}}`): {line}"
            );
            let path = if CHAPTERS.contains(&first) && segs.len() > 1 && !segs[1].is_empty() {
                format!("{first}::{}", segs[1])
            } else {
                first.to_string()
            };
            found.push(path);
        }
    }
    found
}

#[test]
fn chapters_import_only_chapters_below_them_or_a_listed_back_edge() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut violations = Vec::new();
    let mut used = vec![false; BACK_EDGES.len()];
    let mut files = 0;
    for (own, chapter) in CHAPTERS.iter().enumerate() {
        let Ok(dir) = std::fs::read_dir(src.join(chapter)) else {
            continue;
        };
        for entry in dir {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            files += 1;
            let name = format!("{chapter}/{}", path.file_name().unwrap().to_str().unwrap());
            let text = std::fs::read_to_string(&path).unwrap();
            for import in imports(&text) {
                let first = import.split("::").next().unwrap();
                let Some(to) = level(first) else { continue };
                if to <= own {
                    continue;
                }
                match BACK_EDGES.iter().position(|(f, m)| {
                    *f == name && (import == *m || import.starts_with(&format!("{m}::")))
                }) {
                    Some(i) => used[i] = true,
                    None => violations.push(format!("{name} imports crate::{import}")),
                }
            }
        }
    }
    assert!(
        files > 30,
        "read only {files} files: is the layout still src/<chapter>/?"
    );
    violations.sort();
    violations.dedup();
    assert!(
        violations.is_empty(),
        "imports of a chapter above (list and justify a real back edge in lib.rs and here):\n{}",
        violations.join("\n")
    );
    let stale: Vec<_> = BACK_EDGES
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(e, _)| e)
        .collect();
    assert!(
        stale.is_empty(),
        "listed back edges no longer used: {stale:?}"
    );
}

#[test]
fn the_scanner_sees_a_back_edge() {
    assert_eq!(
        imports("use crate::b28::booby_trap;\n// crate::turn in a comment\nlet x = crate::turn::Phase::Setup;"),
        vec!["b28::booby_trap".to_string(), "turn".to_string()]
    );
}
