//! `envelope::Envelope::decode` (the signed tuple) and a `SignedEnvelope`
//! through postcard (what arrives on the wire).
#![no_main]
use hexveil_protocol::envelope::{Envelope, SignedEnvelope};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(env) = Envelope::decode(data) {
        // The tuple encoding is canonical.
        assert_eq!(env.signing_bytes(), data);
    }
    if let Ok((s, rest)) = postcard::take_from_bytes::<SignedEnvelope>(data) {
        assert_eq!(s.envelope().signing_bytes(), s.bytes());
        let _ = s.verify_signature();
        let _ = rest;
    }
});
