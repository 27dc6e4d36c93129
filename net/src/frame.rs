//! Length-prefixed frames on the session's bidirectional stream (DESIGN
//! section 5, G6).
//!
//! A frame is a `u32` big-endian length followed by that many bytes. The
//! length is checked against a hard maximum ([`MAX_FRAME_LEN`], or a smaller
//! configured one) *before* anything is allocated, so a peer claiming 1 GiB
//! costs the server four bytes of buffer. Every read that waits on the peer
//! has a timeout: the wait for the next frame is bounded by the idle timeout,
//! and once a frame has started, all of it must arrive within the body
//! timeout.

use std::time::Duration;

use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::{timeout, timeout_at, Instant};

/// Hard maximum frame length: 256 KiB. No configuration can raise it.
pub const MAX_FRAME_LEN: u32 = 256 * 1024;

/// Default wait for the next frame on a logged-in connection: 24 hours.
pub const DEFAULT_FRAME_IDLE_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// Length of the frame header (the `u32` length prefix).
pub const FRAME_HEADER_LEN: usize = 4;

/// Limits applied to reading and writing frames on one stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLimits {
    /// Largest accepted frame length (at most [`MAX_FRAME_LEN`]).
    max_len: u32,
    /// How long to wait for the first byte of the next frame. Long by
    /// default: a spectator or a player waiting for his opponent may send
    /// nothing for a long time, and a dead peer is found sooner by the QUIC
    /// idle timeout (10 s for a client, whose keep-alives go every 3 s).
    pub idle_timeout: Duration,
    /// How long a started frame (rest of header and body) may take, and how
    /// long one frame write may take.
    pub transfer_timeout: Duration,
}

impl FrameLimits {
    /// Limits with the given maximum frame length; `None` if it is zero or
    /// above [`MAX_FRAME_LEN`].
    pub fn new(max_len: u32, idle_timeout: Duration, transfer_timeout: Duration) -> Option<Self> {
        if max_len == 0 || max_len > MAX_FRAME_LEN {
            return None;
        }
        Some(FrameLimits {
            max_len,
            idle_timeout,
            transfer_timeout,
        })
    }

    /// The largest accepted frame length.
    pub fn max_len(&self) -> u32 {
        self.max_len
    }
}

impl Default for FrameLimits {
    /// [`MAX_FRAME_LEN`], [`DEFAULT_FRAME_IDLE_TIMEOUT`] idle, 10 seconds
    /// per frame.
    fn default() -> Self {
        FrameLimits {
            max_len: MAX_FRAME_LEN,
            idle_timeout: DEFAULT_FRAME_IDLE_TIMEOUT,
            transfer_timeout: Duration::from_secs(10),
        }
    }
}

/// Why a frame could not be read or written.
#[derive(Debug, Error)]
pub enum FrameError {
    /// The length prefix exceeds the limit; nothing was allocated.
    #[error("frame claims {claimed} bytes, the maximum is {max}")]
    TooLarge {
        /// The length the peer claimed.
        claimed: u32,
        /// The limit in force.
        max: u32,
    },
    /// No frame started within the idle timeout.
    #[error("peer sent no frame for {0:?}")]
    Idle(Duration),
    /// A frame started but was not complete within the transfer timeout.
    #[error("frame of {len} bytes not complete after {after:?}")]
    Stalled {
        /// The frame's claimed length (0 if the header itself stalled).
        len: u32,
        /// The timeout that expired.
        after: Duration,
    },
    /// The stream ended inside a frame.
    #[error("stream ended inside a frame ({got} of {expected} bytes)")]
    Truncated {
        /// Bytes received of the header or body.
        got: usize,
        /// Bytes expected.
        expected: usize,
    },
    /// A frame to send is longer than the limit.
    #[error("outgoing frame of {len} bytes exceeds the maximum {max}")]
    OutgoingTooLarge {
        /// The payload length.
        len: usize,
        /// The limit in force.
        max: u32,
    },
    /// Writing a frame took longer than the transfer timeout.
    #[error("writing a frame did not finish within {0:?}")]
    WriteTimeout(Duration),
    /// The underlying stream failed.
    #[error("stream I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Read one frame. `Ok(None)` means the peer finished the stream cleanly
/// between frames.
pub async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    limits: &FrameLimits,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut header = [0u8; FRAME_HEADER_LEN];
    let first = timeout(limits.idle_timeout, reader.read(&mut header))
        .await
        .map_err(|_| FrameError::Idle(limits.idle_timeout))??;
    if first == 0 {
        return Ok(None);
    }
    let deadline = Instant::now() + limits.transfer_timeout;
    let stalled = |len| FrameError::Stalled {
        len,
        after: limits.transfer_timeout,
    };
    let mut got = first;
    while got < FRAME_HEADER_LEN {
        let n = timeout_at(deadline, reader.read(&mut header[got..]))
            .await
            .map_err(|_| stalled(0))??;
        if n == 0 {
            return Err(FrameError::Truncated {
                got,
                expected: FRAME_HEADER_LEN,
            });
        }
        got += n;
    }
    let len = u32::from_be_bytes(header);
    // G6: the claim is checked before any allocation.
    if len > limits.max_len {
        return Err(FrameError::TooLarge {
            claimed: len,
            max: limits.max_len,
        });
    }
    let mut body = vec![0u8; len as usize];
    let mut got = 0;
    while got < body.len() {
        let n = timeout_at(deadline, reader.read(&mut body[got..]))
            .await
            .map_err(|_| stalled(len))??;
        if n == 0 {
            return Err(FrameError::Truncated {
                got,
                expected: body.len(),
            });
        }
        got += n;
    }
    Ok(Some(body))
}

/// Write one frame (header and payload) within the transfer timeout.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    payload: &[u8],
    limits: &FrameLimits,
) -> Result<(), FrameError> {
    if payload.len() > limits.max_len as usize {
        return Err(FrameError::OutgoingTooLarge {
            len: payload.len(),
            max: limits.max_len,
        });
    }
    let mut buf = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
    buf.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    buf.extend_from_slice(payload);
    timeout(limits.transfer_timeout, writer.write_all(&buf))
        .await
        .map_err(|_| FrameError::WriteTimeout(limits.transfer_timeout))??;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> FrameLimits {
        FrameLimits::new(1024, Duration::from_secs(5), Duration::from_secs(5)).unwrap()
    }

    #[tokio::test]
    async fn round_trip() {
        let (mut a, mut b) = tokio::io::duplex(4096);
        write_frame(&mut a, b"hello", &limits()).await.unwrap();
        write_frame(&mut a, b"", &limits()).await.unwrap();
        drop(a);
        assert_eq!(
            read_frame(&mut b, &limits()).await.unwrap().unwrap(),
            b"hello"
        );
        assert_eq!(read_frame(&mut b, &limits()).await.unwrap().unwrap(), b"");
        assert!(read_frame(&mut b, &limits()).await.unwrap().is_none());
    }

    // G6: a 1 GiB claim is refused from the header alone.
    #[tokio::test]
    async fn oversized_claim_rejected_before_body() {
        let (mut a, mut b) = tokio::io::duplex(64);
        a.write_all(&(1u32 << 30).to_be_bytes()).await.unwrap();
        let err = read_frame(&mut b, &limits()).await.unwrap_err();
        assert!(matches!(
            err,
            FrameError::TooLarge {
                claimed: 1_073_741_824,
                max: 1024
            }
        ));
    }

    #[tokio::test]
    async fn truncated_body_reported() {
        let (mut a, mut b) = tokio::io::duplex(64);
        a.write_all(&[0, 0, 0, 10, 1, 2, 3]).await.unwrap();
        drop(a);
        let err = read_frame(&mut b, &limits()).await.unwrap_err();
        assert!(matches!(
            err,
            FrameError::Truncated {
                got: 3,
                expected: 10
            }
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn stalled_body_times_out() {
        let (mut a, mut b) = tokio::io::duplex(64);
        a.write_all(&[0, 0, 0, 10, 1]).await.unwrap();
        let err = read_frame(&mut b, &limits()).await.unwrap_err();
        assert!(matches!(err, FrameError::Stalled { len: 10, .. }));
        drop(a);
    }

    #[tokio::test(start_paused = true)]
    async fn silent_peer_hits_idle_timeout() {
        let (a, mut b) = tokio::io::duplex(64);
        let err = read_frame(&mut b, &limits()).await.unwrap_err();
        assert!(matches!(err, FrameError::Idle(_)));
        drop(a);
    }

    #[tokio::test]
    async fn outgoing_limit_enforced() {
        let (mut a, _b) = tokio::io::duplex(64);
        let err = write_frame(&mut a, &[0; 1025], &limits())
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            FrameError::OutgoingTooLarge { len: 1025, .. }
        ));
    }

    #[test]
    fn limits_cannot_exceed_hard_maximum() {
        assert!(FrameLimits::new(MAX_FRAME_LEN + 1, Duration::ZERO, Duration::ZERO).is_none());
        assert!(FrameLimits::new(0, Duration::ZERO, Duration::ZERO).is_none());
    }
}
