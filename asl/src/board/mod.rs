//! The map (chapter B terrain, boards and LOS): hexes, boards, terrain,
//! hex grain and line of sight. Depends on nothing else of ASL.

pub mod grain;
pub mod hex;
pub mod los;
pub mod map;
pub mod terrain;
