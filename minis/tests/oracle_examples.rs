//! Every miniatures rules question in `examples/rules/minis-*.json` runs
//! through `oracle::run` and gives exactly its `*.expected.json` (an input
//! error is expected as `{"error": "<message>"}`). `BLESS=1` rewrites the
//! expected files (review the diff). Also: bad input never panics.

use hexveil_minis::oracle::{run, OracleError};
use serde_json::{json, Value};
use std::path::PathBuf;

fn examples() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/rules");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.starts_with("minis-") && n.ends_with(".json") && !n.ends_with(".expected.json")
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
fn every_minis_example_gives_its_expected_output() {
    let list = examples();
    assert!(
        list.len() >= 4,
        "examples/rules has {} minis questions",
        list.len()
    );
    for path in list {
        let input = std::fs::read_to_string(&path).unwrap();
        let expected_path = path.with_extension("expected.json");
        let got = answer(&input);
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(
                &expected_path,
                serde_json::to_string_pretty(&got).unwrap() + "\n",
            )
            .unwrap();
            continue;
        }
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(&expected_path)
                .unwrap_or_else(|_| panic!("{} has no expected output", path.display())),
        )
        .unwrap();
        assert_eq!(got, expected, "{}", path.display());
    }
}

#[test]
fn input_errors_are_named() {
    assert!(matches!(run("not json"), Err(OracleError::Input(_))));
    assert!(matches!(run("{}"), Err(OracleError::Input(_))));
    let ex = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/rules/minis-seed004-tank-in-mixed-field.json"),
    )
    .unwrap();
    let mut q: Value = serde_json::from_str(&ex).unwrap();
    q["actions"][0]["action"]["Move"]["figure"] = json!("nobody");
    let out = answer(&q.to_string());
    assert!(out.to_string().contains("nobody"), "{out}");
    let mut q: Value = serde_json::from_str(&ex).unwrap();
    q["dice"][0] = json!([10, 1]);
    assert!(matches!(
        run(&q.to_string()),
        Err(OracleError::BadDie { index: 0, .. })
    ));
}

#[test]
fn mutated_questions_never_panic() {
    let ex = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/rules/minis-seed004-tank-in-mixed-field.json"),
    )
    .unwrap();
    let base: Value = serde_json::from_str(&ex).unwrap();
    let mut paths: Vec<Vec<Value>> = Vec::new();
    fn leaves(v: &Value, path: Vec<Value>, out: &mut Vec<Vec<Value>>) {
        match v {
            Value::Object(o) => o.iter().for_each(|(k, x)| {
                let mut p = path.clone();
                p.push(json!(k));
                leaves(x, p, out)
            }),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| {
                let mut p = path.clone();
                p.push(json!(i));
                leaves(x, p, out)
            }),
            _ => out.push(path),
        }
    }
    leaves(&base, Vec::new(), &mut paths);
    for path in &paths {
        for wrong in [
            json!(-1),
            json!(0),
            json!(7),
            json!("x"),
            json!("1e9,1"),
            Value::Null,
        ] {
            let mut q = base.clone();
            let mut at = &mut q;
            for k in path {
                at = match k {
                    Value::Number(n) => &mut at[n.as_u64().unwrap() as usize],
                    Value::String(s) => &mut at[s.as_str()],
                    _ => unreachable!(),
                };
            }
            *at = wrong.clone();
            let input = q.to_string();
            assert!(
                std::panic::catch_unwind(|| run(&input)).is_ok(),
                "{path:?} = {wrong}"
            );
        }
    }
}
