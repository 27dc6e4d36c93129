//! `hexveil results` (issue 12, league data) on real transcripts: two
//! demo games, one per ruleset, exported as CSV and JSON; a cut
//! (incomplete), a tampered and a missing transcript refused by name with
//! nothing written to stdout.

mod common;
use common::*;

#[test]
fn issue12_results_exports_verified_games_as_csv_and_json_and_refuses_bad_files_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let asl = demo(dir.path(), "asl");
    let minis = demo(dir.path(), "minis");

    // JSON: one object per game, in the order given, with what the
    // transcript holds.
    let out = hexveil(&["results", "--json", &asl, &minis]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let (a, m) = (&rows[0], &rows[1]);
    assert_eq!(a["file"], asl.as_str());
    assert_eq!(a["scenario"], "Mine Alley (demo)");
    assert_eq!(a["ruleset"], "asl");
    assert_eq!(m["ruleset"], "minis");
    assert_eq!(a["side_a"], "German");
    assert_eq!(a["side_b"], "British");
    assert_eq!(m["side_b"], "Soviet");
    assert_eq!(a["mode"], "live");
    assert_eq!(a["verdict"], "clean");
    // Issue 27 item 8: the demo's bots give no names (signed in a setup).
    assert_eq!(a["name_a"], "");
    assert_eq!(m["name_b"], "");
    // The demo's victory conditions name a winner either way (R56), and so
    // do the miniatures demo's (R79): its German figures never reach the
    // village, and the Soviet figures they could put out of action are
    // worth less than the 5 points A needs, so B wins.
    assert!(a["winner"] == "A" || a["winner"] == "B", "{a}");
    assert_eq!(m["result"], "B wins", "{m}");
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .starts_with("no victory condition holds at the end of turn 6"),
        "{m}"
    );
    for r in rows {
        assert_eq!(r["key_a"].as_str().unwrap().len(), 64, "{r}");
        assert_eq!(r["key_b"].as_str().unwrap().len(), 64, "{r}");
        assert_ne!(r["key_a"], r["key_b"]);
        match r["winner"].as_str().unwrap() {
            "" => assert_eq!(r["result"], "no winner", "{r}"),
            w @ ("A" | "B") => assert_eq!(r["result"], format!("{w} wins")),
            other => panic!("winner {other}: {r}"),
        }
        assert!(!r["reason"].as_str().unwrap().is_empty(), "{r}");
        assert!(r["actions"].as_u64().unwrap() > 0, "{r}");
        assert!(r["entries"].as_u64().unwrap() > r["actions"].as_u64().unwrap());
        assert!(r["ruleset_version"].as_u64().unwrap() >= 1);
    }
    // The same game id and entries as `verify --json` says.
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&hexveil(&["verify", "--json", &asl]))).unwrap();
    assert_eq!(a["game"], v["summary"]["game"]);
    assert_eq!(a["entries"], v["summary"]["entries"]);
    assert_eq!(a["head"], v["summary"]["head"]);
    assert_eq!(a["server_key"], v["server_key"]);

    // CSV: a header, one row per game, fields quoted where they must be
    // (the reasons hold commas and parentheses); read back equal.
    let out = hexveil(&["results", "--csv", &asl, &minis]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("file,game,scenario,ruleset,ruleset_version,mode,side_a,side_b,key_a,key_b,winner,result,reason,entries,actions,"),
        "{text}"
    );
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(records.len(), 2, "{text}");
    for (rec, json) in records.iter().zip(rows) {
        for (h, field) in headers.iter().zip(rec.iter()) {
            let want = match &json[h] {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(field, want, "column {h}");
        }
    }

    // A transcript cut before the end (incomplete), one with a byte
    // changed (a fault), and a missing file: each named with why, nothing
    // on stdout, the exit code of the first refused file.
    let bytes = std::fs::read(&asl).unwrap();
    let starts = entry_starts(&bytes);
    let cut = dir.path().join("cut.transcript");
    std::fs::write(&cut, &bytes[..starts[starts.len() / 2]]).unwrap();
    let cut = cut.to_str().unwrap();
    let mut t = bytes.clone();
    let mid = t.len() / 2;
    t[mid] ^= 0x01;
    let tampered = dir.path().join("tampered.transcript");
    std::fs::write(&tampered, &t).unwrap();
    let tampered = tampered.to_str().unwrap();
    let missing = dir.path().join("missing.transcript");
    let missing = missing.to_str().unwrap();

    let out = hexveil(&["results", "--csv", &asl, cut]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "nothing half-written");
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{cut}: refused: not complete")),
        "{err}"
    );
    assert!(!err.contains(&format!("{asl}: refused")), "{err}");

    // The flipped byte makes the file a fault (a bad signature, exit 1) or
    // unreadable (an entry that no longer decodes, exit 2), depending on
    // where it lands in this run's transcript: `results` exits as `verify`
    // does on it.
    let verify_code = hexveil(&["verify", tampered]).status.code();
    assert!(matches!(verify_code, Some(1) | Some(2)), "{verify_code:?}");
    let out = hexveil(&["results", "--json", tampered, &asl, cut, missing]);
    assert_eq!(out.status.code(), verify_code, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.contains(&format!("{tampered}: refused: ")), "{err}");
    assert!(
        err.contains(&format!("{cut}: refused: not complete")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{missing}: refused: cannot read it")),
        "{err}"
    );
    assert!(
        err.contains("3 of 4 files refused; nothing written"),
        "{err}"
    );

    let out = hexveil(&["results", "--json", missing]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");

    // A format must be chosen, and only one.
    assert_eq!(hexveil(&["results", &asl]).status.code(), Some(2));
    assert_eq!(
        hexveil(&["results", "--csv", "--json", &asl]).status.code(),
        Some(2)
    );
}
