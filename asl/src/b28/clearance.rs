//! Infantry Minefield Clearance (B28.6 per B24.74) and Sappers (B28.8).
//!
//! The B24.74 procedure and numbers are not in the seeds nor in the rules
//! data (`b24_74_clearance.csv` has no rows), so per R12 a clearance is
//! refused with an error naming the table and the item it needs. A league
//! that supplies the data passes it as a [`ClearanceTable`] to
//! [`resolve_with_table`]: then one Clearance DR, with the Sapper DRM of
//! B28.8 (-2 per Sapper squad, -1 per Sapper half-squad, as the clearing
//! units), creates a TB through the hex on a Final DR <= the table's number.
//!
//! B28.8: laying hidden minefields during play is not allowed; no action of
//! this engine adds mines (only transitions that lower or remove them exist).

use crate::b28::minefield::{emit, MinefieldEvent};
use crate::b28::trail_break;
use crate::board::hex::Hex;
use crate::model::error::RuleError;
use crate::model::event::Visibility;
use crate::model::resolve::{each_unit_once, refuse, Ctx, Interrupt, Res};
use crate::model::state::GameState;
use crate::model::unit::{InfantrySize, Trait, UnitId};

/// The item of `b24_74_clearance.csv` a clearance needs.
pub const SUCCESS_ITEM: &str = "success_final_dr_max";

/// B24.74 clearance data a league supplies (R12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClearanceTable {
    /// A Clearance Final DR at or below this creates the TB.
    pub success_final_dr_max: i16,
}

/// The name a scenario supplies the clearance table under.
pub const SUPPLIED_NAME: &str = "b24_74_clearance";

/// Reads the shipped `b24_74_clearance.csv`; an error naming table, row and
/// column when the number is missing (R12).
pub fn shipped_table() -> Result<ClearanceTable, RuleError> {
    parse_table(include_str!("../../data/b24_74_clearance.csv"))
}

/// The clearance table a scenario uses: its supplied
/// `[tables.b24_74_clearance]` (R12) or the shipped one.
pub fn table_of(scenario: &crate::model::scenario::Scenario) -> Result<ClearanceTable, RuleError> {
    match scenario.tables.csv(SUPPLIED_NAME) {
        Some(text) => parse_table(text),
        None => shipped_table(),
    }
}

/// Reads a `b24_74_clearance.csv` text (`clearance_item,value` rows).
pub fn parse_table(text: &str) -> Result<ClearanceTable, RuleError> {
    let value = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(','))
        .find(|(item, _)| *item == SUCCESS_ITEM)
        .and_then(|(_, v)| v.trim().parse().ok());
    match value {
        Some(v) => Ok(ClearanceTable {
            success_final_dr_max: v,
        }),
        None => Err(RuleError {
            reason: format!(
                "rules data b24_74_clearance.csv has no row {SUCCESS_ITEM} (column value): the B24.74 clearance numbers are not found"
            ),
            cite: vec!["B28.6".into(), "B24.74".into(), "R12".into()],
        }),
    }
}

/// The B28.8 Sapper DRM of the clearing units: -2 per Sapper squad, -1 per
/// Sapper half-squad.
pub fn sapper_drm(state: &GameState, units: &[UnitId]) -> i16 {
    units
        .iter()
        .filter_map(|id| state.unit(*id))
        .filter(|u| u.has(Trait::Sapper))
        .map(|u| match u.infantry().map(|i| i.size) {
            Some(InfantrySize::Squad) => -2,
            Some(InfantrySize::HalfSquad) => -1,
            _ => 0,
        })
        .sum()
}

/// Resolves `Action::InfantryClearance` with the shipped data (R12).
pub fn resolve(ctx: &mut Ctx<'_>, units: &[UnitId]) -> Res<()> {
    let table = table_of(ctx.scenario).map_err(Interrupt::Refuse)?;
    resolve_with_table(ctx, units, table)
}

/// Resolves an Infantry clearance with league-supplied B24.74 data.
pub fn resolve_with_table(ctx: &mut Ctx<'_>, units: &[UnitId], table: ClearanceTable) -> Res<()> {
    let mut hex: Option<Hex> = None;
    if units.is_empty() {
        return refuse("no units given", "B28.6");
    }
    // B28.8: each Sapper counts once, so each unit is named once.
    each_unit_once(units, "B28.6")?;
    for id in units {
        let Some(u) = ctx.state.unit(*id) else {
            return refuse(format!("unit {id} is not in this game"), "B28.6");
        };
        if u.side != ctx.actor || u.infantry().is_none() || !u.good_order() || u.status.pinned {
            return refuse(
                format!("unit {id} is not your Good Order, unpinned Infantry"),
                "B28.6",
            );
        }
        let Some(h) = u.hex else {
            return refuse(format!("unit {id} is not on the map"), "B28.6");
        };
        if *hex.get_or_insert(h) != h {
            return refuse("clearing units must share one hex", "B28.6");
        }
    }
    let hex = hex.expect("units is not empty");
    let drm = sapper_drm(&ctx.state, units);
    let roll = ctx.roll_dr2(format!("Minefield Clearance in {hex}"), "B28.6")?;
    let final_dr = roll.total() as i16 + drm;
    let cleared = final_dr <= table.success_final_dr_max;
    if cleared {
        let from = ctx.state.mines.entered_from.get(&units[0]).copied();
        if let Some(from) = from.filter(|f| ctx.scenario.map.adjacent(*f, hex)) {
            if let Some(to) = trail_break::opposite(hex, from) {
                trail_break::place(&mut ctx.state, hex, from, to);
            }
        }
    }
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::Clearance {
            hex,
            units: units.to_vec(),
            final_dr,
            sapper_drm: drm,
            cleared,
        },
        &["B28.6", "B28.8", "B24.74"],
    );
    Ok(())
}
