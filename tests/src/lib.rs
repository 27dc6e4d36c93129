//! End-to-end test helpers for hexveil.
