//! hexveil client library: the QUIC connection to a hexveil server
//! ([`net`]) and the game driver that plays one seat or watches a game over
//! it ([`driver`]). The `hexveil` command-line client, the demo and the
//! end-to-end tests are built on it. [`tables`] reads in the data tables a
//! scenario or a rules question names by file (R12). [`follow`] finds the
//! node of a league that serves a game (issue 25).

pub mod driver;
pub mod ending;
pub mod follow;
pub mod listing;
pub mod net;
pub mod presence;
pub mod tables;
