//! Chapter A, infantry fire and morale: the IFT and its tables (A7),
//! morale, Casualty Reduction and Random Selection (A10), ELR and
//! Replacement (A19), ammunition shortage and inexperience, Movement
//! Factors (A4). Depends on
//! [`crate::board`] and [`crate::model`], with the back edges listed in the
//! crate doc.

pub mod ammunition;
pub mod elr;
pub mod fire;
pub mod ift;
pub mod inexperience;
pub mod morale;
pub mod movement_factors;
pub mod random_selection;
pub mod tables;
