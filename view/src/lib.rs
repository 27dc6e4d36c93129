//! hexveil-view: what a reader may see of a game, as text and pictures,
//! shared by the `hexveil` CLI and the server's web view.
//!
//! - [`board`]: the public board, folded from the updates a reader was
//!   told (a player, a spectator) or from a finished transcript (G3).
//! - [`league`]: one row of league data per verified, finished game.
//! - [`names`]: players' display names, carried in the public setup their
//!   key signs (issue 27 item 8).
//! - [`narrate`]: log entries and events in words, with rule citations.
//! - [`svg`]: the board drawn as SVG for one view.
//! - `png` (feature `png`): a picture rendered as PNG, its text in a
//!   bundled font.
//! - [`replay`]: the replay page, one self-contained HTML file stepping
//!   through a verified game.
//! - [`viewer`]: the board viewer of the web pages: zoom, pan, stacks,
//!   legend.
//! - [`transcript`]: a transcript's verdict and exit code (G5), the
//!   referee after its genesis, the whole game told.
//!
//! Pure: no IO, no network; the callers read and write the files.

pub mod board;
pub mod league;
pub mod names;
pub mod narrate;
#[cfg(feature = "png")]
pub mod png;
pub mod replay;
pub mod svg;
pub mod transcript;
pub mod viewer;
