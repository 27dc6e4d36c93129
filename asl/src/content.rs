//! Fixed-width encodings of ASL's sealed contents (PROTOCOL.md 12.4).
//!
//! Every leaf of a sealed layout holds [`CONTENT_LEN`] bytes whatever it
//! contains, so an opening's size says nothing about what it opens (DESIGN
//! 3.1, G3). Layout (all other bytes zero):
//!
//! | byte 0 | meaning | byte 1 | bytes 2..8 |
//! |---|---|---|---|
//! | 0 | empty | 0 | 0 |
//! | 1 | A-P mines (B28.1) | strength 6, 8 or 12 | 0 |
//! | 2 | Dummy (B28.47) | 0 | 0 |
//! | 3 | A-T mines (B28.5) | factors 1..=5 | 0 |
//! | 4 | Booby Traps (B28.9) | level 1 = C, 2 = B, 3 = A | 0 |
//! | 5 | Daisy Chain note (B28.531) | 0 nothing, 1 placed | holder u16 BE, board u16 BE, column u8, row u8 |

use crate::board::hex::Hex;
use crate::model::sealed::{ApStrength, AtFactors, BoobyLevel, Content, DaisyNote};
use crate::model::unit::UnitId;

/// Width of every encoded content (the kernel's, for every ruleset).
pub use hexveil_core::CONTENT_LEN;

/// Why bytes are not a valid content.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    /// The first byte names no content kind.
    #[error("unknown content tag {0}")]
    UnknownTag(u8),
    /// The value byte is not legal for that kind.
    #[error("content tag {tag} has an illegal value {value}")]
    BadValue {
        /// The kind.
        tag: u8,
        /// The value found.
        value: u8,
    },
    /// Padding bytes that must be zero are not.
    #[error("content padding is not zero")]
    NonZeroPadding,
    /// A Daisy Chain note names a hex that does not exist.
    #[error("Daisy Chain note names no valid hex")]
    BadHex,
}

/// Encodes a content into its fixed-width form.
pub fn encode(content: &Content) -> [u8; CONTENT_LEN] {
    let mut out = [0u8; CONTENT_LEN];
    match *content {
        Content::Empty => {}
        Content::ApMines(s) => {
            out[0] = 1;
            out[1] = s.factors();
        }
        Content::Dummy => out[0] = 2,
        Content::AtMines(f) => {
            out[0] = 3;
            out[1] = f.get();
        }
        Content::BoobyTraps(level) => {
            out[0] = 4;
            out[1] = match level {
                BoobyLevel::C => 1,
                BoobyLevel::B => 2,
                BoobyLevel::A => 3,
            };
        }
        Content::Daisy(DaisyNote::Nothing) => out[0] = 5,
        Content::Daisy(DaisyNote::Placed { holder, hex }) => {
            out[0] = 5;
            out[1] = 1;
            out[2..4].copy_from_slice(&holder.0.to_be_bytes());
            out[4..6].copy_from_slice(&hex.board.to_be_bytes());
            out[6] = hex.col;
            out[7] = hex.row;
        }
    }
    out
}

/// The kernel's form of a content, as the protocol seals it.
pub fn to_kernel(content: &Content) -> hexveil_core::Content {
    hexveil_core::Content(encode(content))
}

/// An ASL content from the kernel's form.
pub fn from_kernel(content: &hexveil_core::Content) -> Result<Content, ContentError> {
    decode(&content.0)
}

/// Decodes a fixed-width content, rejecting anything not produced by
/// [`encode`].
pub fn decode(bytes: &[u8; CONTENT_LEN]) -> Result<Content, ContentError> {
    let (tag, value) = (bytes[0], bytes[1]);
    let zero_from = |i: usize| {
        if bytes[i..].iter().all(|b| *b == 0) {
            Ok(())
        } else {
            Err(ContentError::NonZeroPadding)
        }
    };
    let bad = || ContentError::BadValue { tag, value };
    let content = match tag {
        0 => {
            zero_from(1)?;
            Content::Empty
        }
        1 => {
            zero_from(2)?;
            Content::ApMines(ApStrength::from_factors(value).ok_or_else(bad)?)
        }
        2 => {
            zero_from(1)?;
            Content::Dummy
        }
        3 => {
            zero_from(2)?;
            Content::AtMines(AtFactors::new(value).ok_or_else(bad)?)
        }
        4 => {
            zero_from(2)?;
            Content::BoobyTraps(match value {
                1 => BoobyLevel::C,
                2 => BoobyLevel::B,
                3 => BoobyLevel::A,
                _ => return Err(bad()),
            })
        }
        5 => match value {
            0 => {
                zero_from(2)?;
                Content::Daisy(DaisyNote::Nothing)
            }
            1 => {
                let holder = UnitId(u16::from_be_bytes([bytes[2], bytes[3]]));
                let board = u16::from_be_bytes([bytes[4], bytes[5]]);
                let hex = Hex::new(board, bytes[6], bytes[7]).map_err(|_| ContentError::BadHex)?;
                Content::Daisy(DaisyNote::Placed { holder, hex })
            }
            _ => return Err(bad()),
        },
        other => return Err(ContentError::UnknownTag(other)),
    };
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_contents() -> Vec<Content> {
        let mut v = vec![
            Content::Empty,
            Content::Dummy,
            Content::Daisy(DaisyNote::Nothing),
        ];
        for s in [ApStrength::Six, ApStrength::Eight, ApStrength::Twelve] {
            v.push(Content::ApMines(s));
        }
        for f in 1..=5 {
            v.push(Content::AtMines(AtFactors::new(f).unwrap()));
        }
        for l in [BoobyLevel::C, BoobyLevel::B, BoobyLevel::A] {
            v.push(Content::BoobyTraps(l));
        }
        v.push(Content::Daisy(DaisyNote::Placed {
            holder: UnitId(7),
            hex: "4E6".parse().unwrap(),
        }));
        v
    }

    #[test]
    fn every_content_round_trips_at_fixed_width_g3() {
        for c in all_contents() {
            let bytes = encode(&c);
            assert_eq!(bytes.len(), CONTENT_LEN);
            assert_eq!(decode(&bytes), Ok(c));
        }
    }

    #[test]
    fn illegal_bytes_are_refused_b28_1_b28_5() {
        assert_eq!(
            decode(&[1, 10, 0, 0, 0, 0, 0, 0]),
            Err(ContentError::BadValue { tag: 1, value: 10 })
        );
        assert_eq!(
            decode(&[3, 6, 0, 0, 0, 0, 0, 0]),
            Err(ContentError::BadValue { tag: 3, value: 6 })
        );
        assert_eq!(
            decode(&[0, 0, 0, 0, 0, 0, 0, 1]),
            Err(ContentError::NonZeroPadding)
        );
        assert_eq!(
            decode(&[9, 0, 0, 0, 0, 0, 0, 0]),
            Err(ContentError::UnknownTag(9))
        );
        assert_eq!(decode(&[5, 1, 0, 1, 0, 4, 0, 0]), Err(ContentError::BadHex));
    }
}
