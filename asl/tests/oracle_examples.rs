//! Every example rules question in `examples/rules/*.json` runs through
//! `oracle::run` and gives exactly its `*.expected.json` (an input error is
//! expected as `{"error": "<message>"}`). Also: input errors never panic.

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
    for path in list {
        let input = std::fs::read_to_string(&path).unwrap();
        let expected_path = path.with_extension("expected.json");
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
    for name in ["b28-531-daisy-immediate", "a19-12-surrender"] {
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
