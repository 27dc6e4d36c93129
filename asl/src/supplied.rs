//! The rules-data tables an ASL scenario may supply in place of the shipped
//! ones (`[tables.<name>]`, R12; the mechanism is the kernel's,
//! [`hexveil_core::tables`]). Each supplied text is read at load with the
//! same reader the rules use, so a bad cell is refused before play, naming
//! the table, the row and the column.

use crate::a::tables::{vehicle_line_of, VEHICLE_LINE_NAME};
use crate::b28::clearance;
use crate::b28::prc;
use crate::c3::to_hit_table::{ToHitTables, SUPPLIED_NAMES};
use crate::model::error::RuleError;
use crate::model::scenario::Scenario;
use hexveil_core::TableError;

/// Every table an ASL scenario may supply.
pub const NAMES: [&str; 7] = [
    "to_hit",
    "to_hit_modifications",
    "to_hit_drm",
    VEHICLE_LINE_NAME,
    clearance::SUPPLIED_NAME,
    prc::SURVIVAL_NAME,
    crate::c3::to_kill::NAME,
];

/// The tables ruleset version 3 brought (R71, R77): a scenario of an older
/// version may not supply them.
pub const SINCE_VERSION_3: [&str; 2] = [prc::SURVIVAL_NAME, crate::c3::to_kill::NAME];

/// Checks the scenario's supplied tables: names, texts, and each text read
/// by its table's reader.
pub fn check(scenario: &Scenario) -> Result<(), TableError> {
    let t = &scenario.tables;
    t.check(&NAMES)?;
    let unreadable = |name: &str| {
        let name = name.to_string();
        move |e: RuleError| TableError::Unreadable {
            name,
            why: e.reason,
        }
    };
    if let Some(name) = SUPPLIED_NAMES.iter().find(|n| t.csv(n).is_some()) {
        ToHitTables::of(scenario).map_err(unreadable(name))?;
    }
    if t.csv(VEHICLE_LINE_NAME).is_some() {
        vehicle_line_of(scenario).map_err(unreadable(VEHICLE_LINE_NAME))?;
    }
    if t.csv(clearance::SUPPLIED_NAME).is_some() {
        clearance::table_of(scenario).map_err(unreadable(clearance::SUPPLIED_NAME))?;
    }
    if !scenario.since(3) {
        if let Some(name) = SINCE_VERSION_3.iter().find(|n| t.0.contains_key(**n)) {
            return Err(TableError::Unknown {
                name: name.to_string(),
                known: NAMES[..NAMES.len() - SINCE_VERSION_3.len()].join(", "),
            });
        }
    }
    // A supplied PRC survival table is read whole: every cell given, so
    // no ruling lacks one (R12, R71).
    if t.csv(prc::SURVIVAL_NAME).is_some() {
        prc::survival_of(scenario).map_err(unreadable(prc::SURVIVAL_NAME))?;
    }
    if t.csv(crate::c3::to_kill::NAME).is_some() {
        crate::c3::to_kill::table_of(scenario).map_err(unreadable(crate::c3::to_kill::NAME))?;
    }
    Ok(())
}
