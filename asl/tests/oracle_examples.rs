//! Every example rules question in `examples/rules/*.json` runs through
//! `oracle::run` and gives exactly its `*.expected.json` (an input error is
//! expected as `{"error": "<message>"}`; `BLESS=1` rewrites the expected
//! outputs: review the diff). Also: input errors never panic.
//!
//! A supplied table an example names by `file` is read here relative to
//! the example, as `hexveil rules` does (the command also checks its
//! `sha256`: `client/tests/rules_cmd.rs` runs every example through it).

use hexveil_asl::oracle::{run, OracleError};
use serde_json::{json, Value};
use std::path::PathBuf;

fn examples() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/rules");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.ends_with(".json") && !n.ends_with(".expected.json") && !n.starts_with("minis-")
        })
        .collect();
    v.sort();
    v
}

/// The question with each `scenario.tables.<name>.file` read into `csv`
/// (relative to `dir`).
fn with_files(input: &str, dir: &std::path::Path) -> String {
    let mut q: Value = serde_json::from_str(input).expect("examples are JSON");
    if let Some(Value::Object(tables)) = q.get_mut("scenario").and_then(|s| s.get_mut("tables")) {
        for t in tables.values_mut() {
            if let (Some(f), None) = (t.get("file").and_then(Value::as_str), t.get("csv")) {
                let text = std::fs::read_to_string(dir.join(f)).unwrap();
                t["csv"] = json!(text);
            }
        }
    }
    q.to_string()
}

fn answer(input: &str) -> Value {
    match run(input) {
        Ok(out) => serde_json::from_str(&out).expect("the oracle prints JSON"),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

#[test]
fn every_example_gives_its_expected_output() {
    let list = examples();
    assert!(
        list.len() >= 5,
        "examples/rules has {} questions",
        list.len()
    );
    let bless = std::env::var_os("BLESS").is_some();
    for path in list {
        let input = with_files(
            &std::fs::read_to_string(&path).unwrap(),
            path.parent().unwrap(),
        );
        let expected_path = path.with_extension("expected.json");
        if bless {
            let mut text = serde_json::to_string_pretty(&answer(&input)).unwrap();
            text.push('\n');
            std::fs::write(&expected_path, text).unwrap();
            continue;
        }
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(&expected_path)
                .unwrap_or_else(|_| panic!("{} has no expected output", path.display())),
        )
        .unwrap();
        assert_eq!(answer(&input), expected, "{}", path.display());
    }
}

#[test]
fn input_errors_are_named() {
    assert!(matches!(run("not json"), Err(OracleError::Input(_))));
    assert!(matches!(run("{}"), Err(OracleError::Input(_))));
    let ex = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/rules/b28-41-ap-entry.json"),
    )
    .unwrap();
    let mut q: Value = serde_json::from_str(&ex).unwrap();
    // R4: a vehicle without Aerial AF loads fine.
    q["scenario"]["units"][2]["vehicle"]
        .as_object_mut()
        .unwrap()
        .remove("aerial_af");
    assert!(run(&q.to_string()).is_ok());
    // An unknown unit name in an action.
    q["actions"][0]["action"]["Move"]["units"][0] = json!("nobody");
    let e = run(&q.to_string()).unwrap_err();
    assert!(e.to_string().contains("nobody"), "{e}");
    // A strength that is no strength.
    let mut q: Value = serde_json::from_str(&ex).unwrap();
    q["scenario"]["units"][0]["strength"] = json!("4-6");
    let e = run(&q.to_string()).unwrap_err();
    assert!(e.to_string().contains("units[0].strength"), "{e}");
    // A die of 7.
    let mut q: Value = serde_json::from_str(&ex).unwrap();
    q["dice"][0] = json!([7, 1]);
    let e = run(&q.to_string()).unwrap_err();
    assert!(matches!(e, OracleError::BadDie { index: 0, .. }), "{e}");
}

/// C3: the Gun of an ordnance shot and the vehicle of a Vehicle Target
/// Type are named like any unit; an unknown name is named back; a supplied
/// table that cannot be read is refused naming the table (R12).
#[test]
fn c3_ordnance_questions_name_units_and_tables() {
    let ex = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/rules/c3-31-vehicle-target.json"),
    )
    .unwrap();
    let base: Value = serde_json::from_str(&ex).unwrap();
    // The names resolve to the ids of the `units` table.
    let out = answer(&ex);
    assert_eq!(
        out["rulings"][0]["events"][1]["kind"]["Ordnance"]["ToHit"]["target_type"],
        json!({ "Vehicle": 2 })
    );
    assert_eq!(out["units"][2]["name"], "rus-t34");
    assert_eq!(
        base["actions"][0]["action"]["OrdnanceFire"]["gun"],
        "ger-75-gun"
    );
    for (path, name) in [("gun", "no-gun"), ("target_type", "no-tank")] {
        let mut q = base.clone();
        let fire = &mut q["actions"][0]["action"]["OrdnanceFire"];
        if path == "gun" {
            fire["gun"] = json!(name);
        } else {
            fire["target_type"] = json!({ "Vehicle": name });
        }
        let e = run(&q.to_string()).unwrap_err();
        assert!(
            matches!(e, OracleError::BadAction { index: 0, .. }) && e.to_string().contains(name),
            "{e}"
        );
    }
    // A supplied To Hit table whose number is no number.
    let mut q = base.clone();
    q["scenario"]["tables"]["to_hit"] =
        json!({ "csv": "target_type,colour,range_band,basic_th\nvehicle,black,3-6,eight\n" });
    let e = run(&q.to_string()).unwrap_err().to_string();
    assert!(e.contains("tables.to_hit"), "{e}");
    // Without the supplied table the shot is refused, naming the cell (R12).
    let mut q = base;
    q["scenario"].as_object_mut().unwrap().remove("tables");
    let out = answer(&q.to_string());
    let why = out["input_errors"][0].as_str().unwrap_or_default();
    assert!(
        why.contains("to_hit.csv") && why.contains("vehicle") && why.contains("R12"),
        "{out}"
    );
}

/// Every leaf of an example question replaced by each of a few wrong
/// values: the oracle answers or names the error, and never panics.
#[test]
fn mutated_questions_never_panic() {
    fn leaves(v: &Value, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    let mut p = path.clone();
                    p.push(k.clone());
                    leaves(x, p, out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(i.to_string());
                    leaves(x, p, out);
                }
            }
            _ => out.push(path),
        }
    }
    fn at<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
        path.iter().fold(v, |v, k| match v {
            Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
            other => &mut other[k.as_str()],
        })
    }
    for name in [
        "b28-531-daisy-immediate",
        "a19-12-surrender",
        "c3-31-vehicle-target",
    ] {
        let text = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../examples/rules/{name}.json")),
        )
        .unwrap();
        let base: Value = serde_json::from_str(&text).unwrap();
        let mut paths = Vec::new();
        leaves(&base, Vec::new(), &mut paths);
        assert!(paths.len() > 50, "{name}: only {} leaves", paths.len());
        for path in &paths {
            for wrong in [
                json!(-1),
                json!(0),
                json!(7),
                json!(70000),
                json!("x"),
                Value::Null,
                json!([]),
            ] {
                let mut q = base.clone();
                *at(&mut q, path) = wrong.clone();
                let input = q.to_string();
                let r = std::panic::catch_unwind(|| run(&input));
                assert!(r.is_ok(), "{name}: {path:?} = {wrong} panicked");
            }
        }
    }
}
