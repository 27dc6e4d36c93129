//! Checks on the repository itself (issue 10, items 17 and 18): the server
//! binary the end-to-end tests spawn is the one `cargo test` built, every
//! crate's declared dependencies are used, and durable file writing exists
//! once.

use hexveil_tests::server_binary;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn toml_of(path: &Path) -> toml::Table {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The workspace members' directories, from the root `Cargo.toml`.
fn members() -> Vec<String> {
    toml_of(&root().join("Cargo.toml"))["workspace"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// G6 (crash tests need a real server process): the binary is the one
/// `cargo test` built with these tests, not a second `cargo build` run from
/// inside a test (which compiled the workspace again in another profile).
#[test]
fn g6_server_binary_is_the_one_cargo_test_built() {
    assert_eq!(
        server_binary(),
        PathBuf::from(env!("CARGO_BIN_EXE_hexveil-server-e2e"))
    );
}

/// Every `[dependencies]` entry of every workspace member is named in the
/// code that the dependency builds: `src/`, `build.rs` and the member's
/// binaries (and, for this harness crate, its tests). A dependency used
/// only by tests belongs in `[dev-dependencies]`.
#[test]
fn every_declared_dependency_is_used() {
    let mut unused = Vec::new();
    for m in members() {
        let dir = root().join(&m);
        let manifest = toml_of(&dir.join("Cargo.toml"));
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        files.push(dir.join("build.rs"));
        if m == "tests" {
            rust_files(&dir.join("tests"), &mut files);
        }
        for bin in manifest
            .get("bin")
            .and_then(|b| b.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(p) = bin.get("path").and_then(|p| p.as_str()) {
                let main = dir.join(p);
                // The modules the binary declares (`mod cli;`: cli.rs or
                // cli/ beside it) are compiled into it too.
                let parent = main.parent().map(Path::to_path_buf).unwrap_or_default();
                let text = std::fs::read_to_string(&main).unwrap_or_default();
                for module in text
                    .lines()
                    .filter_map(|l| l.trim().strip_prefix("mod "))
                    .filter_map(|l| l.strip_suffix(';'))
                {
                    files.push(parent.join(format!("{module}.rs")));
                    rust_files(&parent.join(module), &mut files);
                }
                files.push(main);
            }
        }
        let code: String = files
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .collect();
        let Some(deps) = manifest.get("dependencies").and_then(|d| d.as_table()) else {
            continue;
        };
        for name in deps.keys() {
            let krate = name.replace('-', "_");
            let used = code.match_indices(krate.as_str()).any(|(i, _)| {
                let before = code[..i].chars().next_back();
                let after = &code[i + krate.len()..];
                // A path, an import, or a serde attribute's module
                // (`#[serde(with = "serde_bytes")]`).
                let with = code[..i].ends_with("with = \"") && after.starts_with('"');
                with || !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    && (after.starts_with("::")
                        || after.starts_with(';')
                        || after.starts_with(" as "))
            });
            if !used {
                unused.push(format!("{m}: {name}"));
            }
        }
    }
    assert!(unused.is_empty(), "declared but never used: {unused:?}");
}

/// Atomic, durable file writing (temporary file, fsync, rename, directory
/// fsync) is written once, in `net/src/durable_file.rs`, and the client
/// uses that copy.
#[test]
fn durable_file_writing_is_written_once() {
    let mut defining = Vec::new();
    for m in members() {
        let mut files = Vec::new();
        rust_files(&root().join(&m).join("src"), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            if text.contains("fn write_durably(") {
                defining.push(f.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    assert_eq!(defining, vec!["net/src/durable_file.rs".to_string()]);
}

/// Issue 27 item 7: every `DESIGN n.m` citation in the sources and docs
/// names a section that docs/DESIGN.md's table of section numbers lists,
/// so a reader who meets one in a message can find it.
#[test]
fn every_design_citation_names_a_listed_section() {
    let listed = std::fs::read_to_string(root().join("docs/DESIGN.md")).unwrap();
    let mut files = Vec::new();
    for m in members() {
        rust_files(&root().join(m), &mut files);
    }
    let mut missing = Vec::new();
    let mut seen = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in text.match_indices("DESIGN ") {
            let number: String = text[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let number = number.trim_end_matches('.');
            if number.is_empty() {
                continue;
            }
            seen += 1;
            if !listed.contains(&format!("`DESIGN {number}`")) {
                missing.push(format!("{}: DESIGN {number}", f.display()));
            }
        }
    }
    println!("{seen} DESIGN citations checked");
    assert!(seen > 0, "no DESIGN citation found: the scan is broken");
    assert!(missing.is_empty(), "not in docs/DESIGN.md: {missing:#?}");
}
