//! The replay page (issue 12): `hexveil replay FILE --html OUT` through
//! the real binary on the demos' transcripts. The page is one
//! self-contained file with one step per log entry, each showing a
//! picture; its beacon rounds show each party's pad entry and the seed
//! they give; the verdict is at the top; and a transcript that is not
//! complete and clean (cut before the end, or with a fault) is shown in
//! the public view only, with no sealed fact anywhere in the HTML (G3).

mod common;
use common::*;

use std::path::Path;

/// Runs `replay FILE --html OUT`; the exit code, stdout and the page.
fn page(file: &str, out: &Path) -> (Option<i32>, String, String) {
    let run = hexveil(&["replay", file, "--html", out.to_str().unwrap()]);
    let html = std::fs::read_to_string(out).unwrap_or_default();
    (run.status.code(), stdout(&run), html)
}

/// The step templates: `(seq, picture, inner HTML)`.
fn steps(html: &str) -> Vec<(u64, usize, &str)> {
    html.split("<template class=\"step\" ")
        .skip(1)
        .map(|t| {
            let num = |key: &str| -> u64 {
                let at = t.find(key).unwrap() + key.len();
                t[at..].split('"').next().unwrap().parse().unwrap()
            };
            let body = &t[t.find('>').unwrap() + 1..t.find("</template>").unwrap()];
            (num("data-seq=\""), num("data-pic=\"") as usize, body)
        })
        .collect()
}

/// The picture template `pic-P`'s SVG.
fn picture(html: &str, p: usize) -> Option<&str> {
    let key = format!("<template id=\"pic-{p}\">");
    let at = html.find(&key)? + key.len();
    Some(&html[at..at + html[at..].find("</template>")?])
}

/// The opening tags of elements whose class list holds every word of
/// `classes`, and their `data-hex`.
fn marked(html: &str, classes: &[&str]) -> Vec<String> {
    html.split('<')
        .filter(|t| {
            t.split_once(" class=\"").is_some_and(|(_, rest)| {
                let class = rest.split('"').next().unwrap_or("");
                classes.iter().all(|c| class.split(' ').any(|w| w == *c))
            })
        })
        .map(|t| {
            t.split_once("data-hex=\"")
                .map(|(_, r)| r.split('"').next().unwrap_or("").to_string())
                .unwrap_or_default()
        })
        .collect()
}

/// The text between `from` and the next `to` after it.
fn between<'s>(s: &'s str, from: &str, to: &str) -> Option<&'s str> {
    let at = s.find(from)? + from.len();
    Some(&s[at..at + s[at..].find(to)?])
}

/// The verdict as the page escapes it.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

// Issue 12, G5: the page of a complete, clean demo game has one step per
// log entry (each with a picture), the verdict, the stepping script, and
// nothing from the network; everything is revealed (B's hidden 12-factor
// A-P minefield in 3E4 is drawn from its reveal). A roll's pad entries
// and seed are the transcript's: the seed shown is SHA-256 over the
// entries shown and the hash of the action's entry (PROTOCOL.md 7).
#[test]
fn g5_issue_12_the_replay_page_of_the_demo_shows_every_entry_its_verdict_and_its_dice() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo(dir.path(), "asl");
    let out = dir.path().join("replay.html");
    let (code, said, html) = page(&file, &out);
    assert_eq!(code, Some(0), "{said}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&hexveil(&["verify", "--json", &file]))).unwrap();
    let entries = json["summary"]["entries"].as_u64().unwrap();
    // Issue 27 (a new user's trial): the page steps by move, and says so;
    // the log entries are the auditors' mode.
    assert!(
        said.contains("wrote the replay page: moves 0 to "),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            " (by log entry: {entries} entries) (everything revealed)"
        )),
        "{said}"
    );

    // Self-contained: no fetch of any kind; "http" only as the SVG
    // namespace.
    assert!(html.starts_with("<!DOCTYPE html>"));
    for fetch in ["<link", " src=", "url(", "@import", "@font-face", "fetch("] {
        assert!(!html.contains(fetch), "{fetch}");
    }
    assert_eq!(
        html.matches("http").count(),
        html.matches("http://www.w3.org/2000/svg").count()
    );

    // The verdict at the top, as `verify` gives it.
    let verdict = json["verdict"].as_str().unwrap();
    let top = between(&html, "<div id=\"verdict\"", "</div>").unwrap();
    assert!(top.contains("class=\"verdict clean\" data-status=\"clean\""));
    assert!(top.contains(&escaped(verdict)), "{top}");

    // One step per log entry, in order, each with a picture.
    let steps = steps(&html);
    assert_eq!(steps.len() as u64, entries);
    for (i, (seq, pic, body)) in steps.iter().enumerate() {
        assert_eq!(*seq, i as u64);
        let svg = picture(&html, *pic).unwrap_or_else(|| panic!("step {seq}: picture {pic}"));
        assert!(svg.starts_with("<svg "), "step {seq}");
        assert!(svg.contains("<use href=\"#hv-ground\"/>"), "step {seq}");
        assert!(body.contains(&format!("#{seq} ")), "step {seq}: {body}");
    }
    assert!(html.contains("<g id=\"hv-ground\">"));
    assert!(
        between(&html, "<g id=\"hv-ground\">", "</g></defs>")
            .unwrap()
            .contains("class=\"coord\""),
        "the hexes are drawn once"
    );
    // The rules are cited in the narrative; the board changes over the game.
    assert!(html.contains("[B28.41"), "B28.41 cited");
    assert!(steps.last().unwrap().1 > 3, "pictures change");
    // Everything is revealed: B's hidden minefield in 3E4, from its reveal.
    assert!(marked(&html, &["sealed", "mine", "ap"]).contains(&"3E4".to_string()));

    // The page steps: the controls, the keys and the URL fragment.
    for id in [
        "id=\"board\"",
        "id=\"narrative\"",
        "id=\"dice\"",
        "id=\"step\"",
        "id=\"prev\"",
        "id=\"next\"",
        "id=\"slider\"",
    ] {
        assert!(html.contains(id), "{id}");
    }
    for js in [
        "'ArrowLeft'",
        "'ArrowRight'",
        "'Home'",
        "'End'",
        "'step='",
        "'move='",
        "hashchange",
    ] {
        assert!(html.contains(js), "{js}");
    }
    // Issue 27: the steps by move (the default) and the move list.
    assert!(html.contains("<ol id=\"moves\" start=\"0\">"));
    assert!(html.contains("id=\"mode\""));
    let moves = html.matches("<li data-move=\"").count();
    assert!(moves >= 2 && moves < entries as usize, "{moves} moves");
    assert!(html.contains(&format!("data-move=\"{}\"", moves - 1)));
    assert!(html.contains(&format!(">step 0 / {}</span>", entries - 1)));

    // A public roll: its dice as `replay` tells them, the pad entries of
    // A, B and the server, and the seed they give.
    let story = stdout(&hexveil(&["replay", &file]));
    let (roll_seq, k, action, dice) = story
        .lines()
        .find_map(|l| {
            let (head, rest) = l.strip_prefix('#')?.split_once(" server: roll ")?;
            let (k, rest) = rest.split_once(" for action #")?;
            let (action, dice) = rest.split_once(": ")?;
            Some((
                head.parse::<usize>().ok()?,
                k.parse::<u64>().ok()?,
                action.parse::<usize>().ok()?,
                dice.to_string(),
            ))
        })
        .expect("a public roll in the demo");
    let body = steps[roll_seq].2;
    assert!(
        body.contains(&format!(
            "roll {k} for entry #{action}: <span class=\"dice\">{}</span>",
            escaped(&dice)
        )),
        "{body}"
    );
    let cells: Vec<&str> = body
        .split("<td><code>")
        .skip(1)
        .map(|c| c.split("</code>").next().unwrap())
        .collect();
    assert_eq!(cells.len(), 3, "{body}");
    // Message version 4 (PROTOCOL.md 7.1): the actor's part is the nonce
    // of its declaration, the opponent's an entry of its window; each is
    // in the log as `replay` tells it.
    assert!(body.contains("the nonce of its declaration"), "{body}");
    for (party, value) in ["side A", "side B"].iter().zip(&cells) {
        assert!(
            story
                .lines()
                .any(|l| l.ends_with(&format!("= {value}"))
                    || l.ends_with(&format!("(nonce {value})"))),
            "{party}'s part {value} is in the log"
        );
    }
    let bytes = std::fs::read(&file).unwrap();
    let t = hexveil_protocol::transcript::Transcript::parse(&bytes).unwrap();
    let hash = t.entries[action].envelope.entry_hash();
    let value = |v: &str| v.parse::<hexveil_protocol::pad::PadValue>().unwrap();
    let game: hexveil_protocol::encoding::GameId =
        json["summary"]["game"].as_str().unwrap().parse().unwrap();
    let seed = hexveil_protocol::beacon::nonce_roll_seed(
        &game,
        k,
        &hash,
        [&value(cells[0]), &value(cells[1]), &value(cells[2])],
    );
    assert!(body.contains(&format!("hash of entry #{action} = <code>{hash}</code>")));
    assert!(
        body.contains(&format!(")) = <code>{seed}</code>")),
        "{seed}: {body}"
    );
    // The ruling on that action shows its rounds too.
    let ruling = story
        .lines()
        .find(|l| l.ends_with(&format!(" server: ruling on action #{action}")))
        .and_then(|l| {
            l.strip_prefix('#')?
                .split(' ')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .unwrap();
    assert!(steps[ruling]
        .2
        .contains(&format!("roll {k} for entry #{action}")));
}

// G3: a transcript cut before the end is shown in the public view only
// (exit 3, as `verify`): no sealed content is drawn, nothing told only to
// a side or the referee is written, and B's hidden minefield in 3E4
// (never entered in the demo) and its 12 factors appear nowhere in the
// HTML, though the complete game's page draws them. The same for a
// transcript cut after the first side's reveal (the game over, the log not
// closed) and for one whose last entry is a fault (a broken signature,
// exit 1): a reveal is shown only once the whole transcript is clean.
#[test]
fn g3_issue_12_a_page_of_an_unfinished_or_faulty_transcript_holds_no_sealed_fact() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo(dir.path(), "asl");
    let bytes = std::fs::read(&file).unwrap();
    let starts = entry_starts(&bytes);

    let full = page(&file, &dir.path().join("full.html")).2;
    assert!(full.contains("A-P 12 (sealed)"), "the clean page draws it");

    let middle = dir.path().join("middle.transcript");
    std::fs::write(&middle, &bytes[..starts[starts.len() / 2]]).unwrap();
    let before_last = dir.path().join("before-last.transcript");
    std::fs::write(&before_last, &bytes[..*starts.last().unwrap()]).unwrap();
    let mut broken = bytes.clone();
    let n = broken.len();
    broken[n - 1] ^= 0x01;
    let faulty = dir.path().join("faulty.transcript");
    std::fs::write(&faulty, &broken).unwrap();

    for (what, cut, want_code, status, want_steps) in [
        (
            "cut in the middle",
            &middle,
            3,
            "incomplete",
            starts.len() / 2,
        ),
        (
            "cut before the last reveal",
            &before_last,
            3,
            "incomplete",
            starts.len() - 1,
        ),
        (
            "a broken signature on the last reveal",
            &faulty,
            1,
            "fault",
            starts.len(),
        ),
    ] {
        let (code, said, html) = page(cut.to_str().unwrap(), &dir.path().join("cut.html"));
        assert_eq!(code, Some(want_code), "{what}: {said}");
        assert!(said.contains("(public view)"), "{what}: {said}");
        assert!(
            html.contains(&format!("data-status=\"{status}\"")),
            "{what}"
        );
        assert!(html.contains("Public view only"), "{what}");
        assert_eq!(steps(&html).len(), want_steps, "{what}");
        // No sealed content drawn, in any picture.
        assert!(marked(&html, &["sealed"]).is_empty(), "{what}");
        assert!(!html.contains("(sealed"), "{what}");
        // B's hidden minefield in 3E4: no marker, no strength, no words.
        assert!(
            !marked(&html, &["mine"]).contains(&"3E4".to_string()),
            "{what}: a mine drawn in 3E4"
        );
        for secret in [
            "12-factor",
            "A-P 12",
            "3E4 v0",
            "Booby Traps level",
            "(referee only)",
            "(side A only)",
            "(side B only)",
            "reveals its secrets:",
            "layer ap (seed",
            "daisy-chain placed",
        ] {
            assert!(!html.contains(secret), "{what}: {secret:?} in the page");
        }
        // The public board is still drawn at every step.
        for (seq, pic, _) in steps(&html) {
            assert!(picture(&html, pic).is_some(), "{what}: step {seq}");
        }
        // B28.47: side B's Secret dr for extra Dummies (the demo's first
        // roll) is its own: the page gives neither its entry, nor the
        // seed, nor the dice; the clean page gives all three.
        let secret = |html: &str| {
            steps(html)
                .into_iter()
                .find(|(_, _, body)| body.contains("Secret dr 0 for entry #"))
                .map(|(seq, _, body)| (seq, body.to_string()))
                .expect("the demo's Secret dr")
        };
        let (seq, body) = secret(&html);
        assert!(
            body.contains("withheld: only its roller knows it"),
            "{what}: {body}"
        );
        assert!(body.contains("withheld (B28.47)"), "{what}: {body}");
        assert!(
            body.contains(")) = <code>withheld</code>"),
            "{what}: {body}"
        );
        let (full_seq, full_body) = secret(&full);
        assert_eq!(seq, full_seq);
        assert!(!full_body.contains("withheld"), "{full_body}");
        assert!(full_body.contains("(a Secret dr)"), "{full_body}");
    }
}

// Issue 12: the miniatures demo's page draws its table at every step;
// a file that is no transcript writes no page (exit 2, nothing changed);
// an output that cannot be written is refused (exit 2).
#[test]
fn issue_12_the_miniatures_page_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo(dir.path(), "minis");
    let out = dir.path().join("minis.html");
    let (code, said, html) = page(&file, &out);
    assert_eq!(code, Some(0), "{said}");
    assert!(html.contains("class=\"figure\""));
    assert!(between(&html, "<g id=\"hv-ground\">", "</g></defs>")
        .unwrap()
        .contains("class=\"coord\""));
    assert!(!steps(&html).is_empty());

    let junk = dir.path().join("junk");
    std::fs::write(&junk, b"hello").unwrap();
    let none = dir.path().join("none.html");
    let run = hexveil(&[
        "replay",
        junk.to_str().unwrap(),
        "--html",
        none.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("nothing to replay"),
        "{}",
        stderr(&run)
    );
    assert!(!none.exists());

    let nowhere = dir.path().join("no-such-dir").join("x.html");
    let run = hexveil(&["replay", &file, "--html", nowhere.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("cannot write"), "{}", stderr(&run));
    let both = hexveil(&["replay", &file, "--html", "x.html", "--svg", "3"]);
    assert_eq!(both.status.code(), Some(2), "--html and --svg conflict");
}
