//! Canonical postcard: one value, one byte string (PROTOCOL.md section 11).
//!
//! postcard accepts more than one encoding of some values (a varint with
//! redundant `0x80` groups, `300` as `ac 82 00` instead of `ac 02`), so two
//! different byte strings could decode to the same log entry or action. The
//! rule, for every postcard value a hexveil decoder reads (log bodies, live
//! messages, rulesets' actions and orders): decode exactly one value with
//! nothing after it, encode it again, and refuse the bytes unless they are
//! the re-encoding, byte for byte. This refuses non-minimal varints and any
//! other non-canonical form a serde type may accept (a hex name written
//! another way, say), whatever the type, with one rule a second
//! implementation can state and follow (G5: one game, one transcript).

use serde::{de::DeserializeOwned, Serialize};

/// Why bytes are not the canonical encoding of one value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// Not a valid encoding at all.
    #[error("does not decode: {0}")]
    Malformed(String),
    /// Bytes left after a complete value.
    #[error("{0} trailing bytes after the value")]
    Trailing(usize),
    /// A valid encoding, but not the canonical one (for example a
    /// non-minimal varint).
    #[error("is not in canonical form (a non-minimal varint or another non-canonical encoding): the value re-encodes to other bytes")]
    NotCanonical,
}

/// Decodes exactly one postcard value from `bytes` and requires `bytes` to
/// be its canonical encoding (re-encoding gives the same bytes).
pub fn decode<T: Serialize + DeserializeOwned>(bytes: &[u8]) -> Result<T, CanonicalError> {
    let (value, rest) = postcard::take_from_bytes::<T>(bytes)
        .map_err(|e| CanonicalError::Malformed(e.to_string()))?;
    if !rest.is_empty() {
        return Err(CanonicalError::Trailing(rest.len()));
    }
    match postcard::to_stdvec(&value) {
        Ok(again) if again == bytes => Ok(value),
        _ => Err(CanonicalError::NotCanonical),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_minimal_varint_is_refused_g5() {
        // 300 = ac 02; ac 82 00 decodes to 300 too in a lax reader.
        assert_eq!(decode::<u32>(&[0xac, 0x02]), Ok(300));
        assert_eq!(
            decode::<u32>(&[0xac, 0x82, 0x00]),
            Err(CanonicalError::NotCanonical)
        );
        assert_eq!(
            decode::<u32>(&[0x80, 0x00]),
            Err(CanonicalError::NotCanonical)
        );
        assert_eq!(
            decode::<u32>(&[0x01, 0x00]),
            Err(CanonicalError::Trailing(1))
        );
        assert!(matches!(
            decode::<bool>(&[0x02]),
            Err(CanonicalError::Malformed(_))
        ));
    }
}
