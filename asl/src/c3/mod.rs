//! C3: ordnance fire on the To Hit Table (seed 002).
//!
//! A shot is To Hit, then the effects of a hit (C3.1):
//!
//! - [`covered_arc`]: the CA from a hexspine, firing within it, changing it
//!   with or without fire, the opponent's pick of an ambiguous facing
//!   (C3.2-C3.22);
//! - [`to_hit_table`]: Basic TH#, Gun and Ammo modifications and the TH DRM
//!   cases, read from the shipped or the scenario's supplied tables, every
//!   missing cell a refusal naming table, row and column (C3.3, R12);
//! - [`target_type`]: who may use which Target Type and which units a shot
//!   may hit (C3.31-C3.33, C3.4, C3.41);
//! - [`hit`]: Improbable Hits, Critical Hits, Multiple Hits and the
//!   location of a hit on a vehicle (C3.6-C3.9), as pure functions;
//! - [`effects`]: the FP of ordnance (C3.5-C3.53) and what a hit does on
//!   the IFT, through the same IFT and morale code as all fire (C3.71-C3.74);
//! - [`to_kill`]: what a Vehicle Target Type hit does, from the To Kill
//!   data a league supplies (C7 is not in the seeds; C3.72, C3.8, R77);
//! - [`ordnance`]: `Action::OrdnanceFire` from declaration to effects.

pub mod covered_arc;
pub mod effects;
pub mod hit;
pub mod ordnance;
pub mod target_type;
pub mod to_hit_table;
pub mod to_kill;
