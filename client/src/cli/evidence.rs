//! What a seat keeps against a dishonest server (issue 24), and
//! `hexveil verify --proof FILE`.
//!
//! Every proof of what the server did (a fork of the log, a prompt the
//! rules could not make, a view the log does not give) goes to its own
//! file in the seat's secrets directory, `proofs/<seq>-<what>.hxproof`,
//! with one short line at the prompt; `hexveil verify --proof FILE
//! [TRANSCRIPT]` checks one offline. After the game, everything the seat
//! was shown is checked against the transcript and the result printed
//! ([`hexveil_protocol::evidence::audit`]); the server's statements it
//! holds (receipts, view receipts) are written to `witness.hxlog` beside
//! its secrets.

use super::files;
use hexveil_protocol::evidence::{self, Evidence, Finding, ProofError};
use hexveil_protocol::identity::PublicKey;
use hexveil_protocol::witness::Witness;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where a seat keeps its evidence: a directory, or nowhere (the demo's
/// bots print it).
#[derive(Clone, Debug, Default)]
pub struct Proofs {
    dir: Option<PathBuf>,
}

impl Proofs {
    /// Evidence in `dir` (the seat's secrets directory).
    pub fn in_dir(dir: &Path) -> Proofs {
        Proofs {
            dir: Some(dir.to_path_buf()),
        }
    }

    /// Evidence printed, not kept.
    pub fn nowhere() -> Proofs {
        Proofs::default()
    }

    /// Writes one piece of evidence as `proofs/<seq>-<what>.hxproof`; its
    /// path, or why it could not be written.
    pub fn keep(&self, seq: u64, what: &str, e: &Evidence) -> Result<Option<PathBuf>, String> {
        let Some(dir) = &self.dir else {
            return Ok(None);
        };
        let dir = dir.join("proofs");
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("cannot make {}: {err}", dir.display()))?;
        let path = dir.join(format!("{seq:06}-{what}.hxproof"));
        files::write_durably(&path, &e.to_file()).map_err(|err| err.to_string())?;
        Ok(Some(path))
    }

    /// The line to print for evidence kept (or not).
    pub fn line(&self, seq: u64, what: &str, e: &Evidence) -> String {
        match self.keep(seq, what, e) {
            Ok(Some(path)) => format!(
                "{} kept in {} (check it: hexveil verify --proof {} TRANSCRIPT)",
                e.describe(),
                path.display(),
                path.display()
            ),
            Ok(None) => format!("{} (not kept: no secrets directory)", e.describe()),
            Err(why) => format!("{} could not be kept: {why}", e.describe()),
        }
    }

    /// Writes the server's statements a seat holds (`witness.hxlog`: the
    /// magic `HXWITN\0\0`, then the postcard of every view receipt and
    /// every statement that placed an entry).
    pub fn keep_witness(&self, witness: &Witness) -> Result<Option<PathBuf>, String> {
        let Some(dir) = &self.dir else {
            return Ok(None);
        };
        let path = dir.join("witness.hxlog");
        let mut bytes = b"HXWITN\0\0".to_vec();
        let statements: Vec<_> = witness.attestations().cloned().collect();
        bytes.extend_from_slice(&hexveil_protocol::message::encode(&(
            witness.view_receipts(),
            statements,
        )));
        files::write_durably(&path, &bytes).map_err(|e| e.to_string())?;
        Ok(Some(path))
    }
}

/// What a seat or a spectator was shown, checked against the game's
/// transcript, in words; the proof of each contradiction kept (the
/// demo's bots; a seat and a spectator state it with the verdict,
/// [`hexveil::ending::Ending`]).
#[cfg_attr(not(feature = "demo"), allow(dead_code))]
pub fn audit_line(transcript: &[u8], witness: &Witness, proofs: &Proofs) -> String {
    audit_words(
        &evidence::audit(transcript, &hexveil_rulesets::all(), witness),
        proofs,
    )
}

/// An audit ([`evidence::audit`]) in words; the proof of each
/// contradiction kept.
pub fn audit_words(audit: &Result<evidence::Audit, ProofError>, proofs: &Proofs) -> String {
    match audit {
        Ok(a) => {
            let mut out = a.to_string();
            for (seq, e) in &a.proofs {
                out.push_str(&format!("\n  {}", proofs.line(*seq, e.word(), e)));
            }
            out
        }
        Err(e) => {
            format!("what this client was shown could not be checked against the transcript: {e}")
        }
    }
}

/// A fork proof this seat already holds for its game (`proofs/*-fork.hxproof`
/// in its secrets directory): a seat the server showed two histories
/// does not play on (a fresh client would forget what it was shown and
/// could release again what it released on the other branch, issue 24).
pub fn fork_already_proven(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir.join("proofs"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("-fork.hxproof"))
        })
}

/// `hexveil verify --proof FILE [TRANSCRIPT] [--server-key KEY]`: exit 1
/// when the evidence proves the server at fault, 0 when it proves nothing
/// against anyone, 3 when a view needs the game's transcript, 2 when the
/// file is no evidence or not consistent.
pub fn verify_proof(
    proof: &Path,
    transcript: Option<&Path>,
    server_key: Option<&str>,
    json: bool,
) -> ExitCode {
    let fail = |why: String| {
        eprintln!("hexveil verify --proof: {why}");
        ExitCode::from(2)
    };
    let server = match server_key.map(|k| k.trim().parse::<PublicKey>()) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => return fail(format!("--server-key: {e}")),
    };
    let bytes = match std::fs::read(proof) {
        Ok(b) => b,
        Err(e) => return fail(format!("cannot read {}: {e}", proof.display())),
    };
    let evidence = match Evidence::from_file(&bytes) {
        Ok(e) => e,
        Err(e) => return fail(format!("{}: {e}", proof.display())),
    };
    let transcript = match transcript.map(std::fs::read) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => return fail(format!("cannot read the transcript: {e}")),
    };
    let found = evidence::check(
        &evidence,
        server.as_ref(),
        transcript.as_deref(),
        &hexveil_rulesets::all(),
    );
    let (status, code, text) = match found {
        Ok(Finding::Server(what)) => ("fault", 1, format!("FAULT: server: {what}")),
        Ok(Finding::Nothing(why)) => ("nothing", 0, format!("proves nothing against anyone: {why}")),
        Ok(Finding::NeedsTranscript) => (
            "incomplete",
            3,
            "the view is signed; whether the log gives it can be told only with the game's transcript: hexveil verify --proof FILE TRANSCRIPT".into(),
        ),
        Err(ProofError::Transcript(why)) => return fail(format!("the transcript: {why}")),
        Err(e) => ("unreadable", 2, format!("not a proof: {e}")),
    };
    if json {
        println!(
            "{}",
            serde_json::json!({
                "status": status,
                "exit_code": code,
                "evidence": evidence.describe(),
                "verdict": text,
            })
        );
    } else {
        println!("{}: {text}", evidence.describe());
    }
    ExitCode::from(code)
}
