//! hexveil-protocol: messages, commitments, the dice beacon, the signed
//! transcript and its offline verifier. Pure: no sockets, no tokio.

pub mod content;
