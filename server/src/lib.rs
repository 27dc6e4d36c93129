//! hexveil-server: the QUIC shell around the sans-IO game session.
