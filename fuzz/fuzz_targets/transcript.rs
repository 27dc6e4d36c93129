//! The transcript reader and the whole verifier over arbitrary files: a
//! verdict for every input, never a panic (G5, G6).
#![no_main]
use hexveil_protocol::transcript::{StreamReader, Transcript};
use hexveil_protocol::verifier::verify;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = Transcript::parse(data);
    // The streaming reader agrees with the in-memory one.
    let mut streamed = Vec::new();
    let stream_ok = match StreamReader::new(data) {
        Ok(mut r) => loop {
            match r.next_entry() {
                Ok(Some(e)) => streamed.push(e),
                Ok(None) => break true,
                Err(_) => break false,
            }
        },
        Err(_) => false,
    };
    assert_eq!(parsed.is_ok(), stream_ok);
    if let Ok(t) = &parsed {
        assert_eq!(t.entries.len(), streamed.len());
        assert_eq!(t.to_bytes().expect("re-encodes"), data);
    }
    let _ = verify(data, &hexveil_rulesets::all());
});
