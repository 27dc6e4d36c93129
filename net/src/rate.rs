//! Per-connection rate limit: a token bucket over incoming frames (G6).

use std::num::NonZeroU32;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A rate: a sustained number of frames per second and a burst allowance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimit {
    /// Frames per second refilled.
    pub frames_per_second: NonZeroU32,
    /// Largest number of frames accepted at once after a quiet period.
    pub burst: NonZeroU32,
}

impl Default for RateLimit {
    /// 50 frames per second, bursts of 100.
    fn default() -> Self {
        RateLimit {
            frames_per_second: NonZeroU32::new(50).expect("non-zero"),
            burst: NonZeroU32::new(100).expect("non-zero"),
        }
    }
}

/// A frame arrived while the bucket was empty.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[error(
    "rate limit exceeded: at most {} frames per second (bursts of {}); frame dropped",
    .0.frames_per_second,
    .0.burst
)]
pub struct RateLimited(pub RateLimit);

/// A token bucket. Time is passed in, so the bucket is deterministic.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    limit: RateLimit,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(limit: RateLimit, now: Instant) -> Self {
        TokenBucket {
            limit,
            tokens: f64::from(limit.burst.get()),
            last: now,
        }
    }

    /// Whether the bucket is whole again at `now` (forgetting it would
    /// lose its owner nothing).
    pub fn is_full(&self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens + elapsed * f64::from(self.limit.frames_per_second.get())
            >= f64::from(self.limit.burst.get())
    }

    /// Take one token for a frame arriving at `now`.
    pub fn try_take(&mut self, now: Instant) -> Result<(), RateLimited> {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = self.last.max(now);
        self.tokens = (self.tokens + elapsed * f64::from(self.limit.frames_per_second.get()))
            .min(f64::from(self.limit.burst.get()));
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(RateLimited(self.limit))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn limit(fps: u32, burst: u32) -> RateLimit {
        RateLimit {
            frames_per_second: NonZeroU32::new(fps).unwrap(),
            burst: NonZeroU32::new(burst).unwrap(),
        }
    }

    #[test]
    fn burst_then_refill() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(limit(10, 3), t0);
        for _ in 0..3 {
            b.try_take(t0).unwrap();
        }
        assert_eq!(b.try_take(t0), Err(RateLimited(limit(10, 3))));
        // 100 ms at 10 frames/s refills one token.
        b.try_take(t0 + Duration::from_millis(100)).unwrap();
        assert!(b.try_take(t0 + Duration::from_millis(100)).is_err());
        // A long pause refills only up to the burst.
        let later = t0 + Duration::from_secs(60);
        for _ in 0..3 {
            b.try_take(later).unwrap();
        }
        assert!(b.try_take(later).is_err());
    }

    #[test]
    fn error_names_the_limit() {
        let msg = RateLimited(limit(5, 7)).to_string();
        assert!(msg.contains("5 frames per second"), "{msg}");
        assert!(msg.contains("bursts of 7"), "{msg}");
    }
}
