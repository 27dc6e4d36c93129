//! What a step could need of the rules data, judged before anything is
//! asked (ruleset version 3, R72): an action whose resolution could need
//! data the game lacks is refused before any opening or die, so no ruling
//! is voided after its dice and no side gets a second roll at the same
//! question (G2). Public data only (G3): which hexes may hold whose mines
//! (eligible leaves, [`minefield::may_attack`]), which Daisy Chains may
//! still be pulled, the vehicle's own data and the tables supplied.
//!
//! A vehicle crossing a hexside is checked for:
//! - the Aerial AF of an AFV any A-T attack could reach (R4): A-T mines of
//!   either owner in the hex left or entered, or a Daisy Chain in the hex
//!   entered in the MPh (B28.531);
//! - the Vehicle line Kill Numbers of every strength an A-P minefield may
//!   have (6, 8, 12; halved in Deep Snow, B28.3), for a vehicle attacked
//!   on the Vehicle line (B28.42, R12): the strength is hidden, so every
//!   column it could need is asked for, and the refusal tells nothing;
//! - the PRC survival numbers when any of these attacks could eliminate a
//!   vehicle with Passengers or Riders aboard (B28.43, R71).
//!
//! Exemptions a crossing may have (Trail Break, trench, B28.44 hexsides)
//! are not weighed: the check stays on the safe side.

use crate::a::ift;
use crate::a::tables::{missing_cell, vehicle_line_of, IFT_COLUMNS, VEHICLE_LINE_CSV};
use crate::b28::at_mine;
use crate::b28::daisy_chain;
use crate::b28::minefield::{self, may_attack};
use crate::b28::movement::MoveKind;
use crate::b28::prc;
use crate::board::hex::Hex;
use crate::model::error::RuleError;
use crate::model::resolve::{Ctx, Interrupt, Res};
use crate::model::sealed::{ApStrength, Layer};
use crate::model::unit::UnitId;

/// Refuses a step of `units` from `from` into `to` whose attacks could
/// need data the game lacks (module doc).
pub fn check_step(ctx: &Ctx<'_>, kind: MoveKind, units: &[UnitId], from: Hex, to: Hex) -> Res<()> {
    for id in units {
        let Some(u) = ctx.state.unit(*id).filter(|u| u.in_play()) else {
            continue;
        };
        let Some(v) = u.vehicle() else {
            continue;
        };
        let mover = u.side;
        let owners = minefield::attacking_owners(ctx, mover);
        let reach = |layer: Layer| -> Option<Hex> {
            [from, to]
                .into_iter()
                .find(|h| owners.iter().any(|o| may_attack(ctx, *o, layer, *h, mover)))
        };
        let at_mines = reach(Layer::AntiTank).filter(|_| at_mine::triggers_at_mines(u));
        let daisy = kind == MoveKind::Move
            && at_mine::triggers_at_mines(u)
            && daisy_chain::may_attack_entering(ctx, mover, to);
        let at_hex = at_mines.or(daisy.then_some(to));
        if let Some(h) = at_hex {
            if !v.counts_as_unarmored() && v.aerial_af.is_none() {
                return Err(Interrupt::Refuse(RuleError {
                    reason: format!(
                        "AFV {} ({}) has no Aerial AF (vehicle field aerial_af) and A-T mines or a Daisy Chain may attack it in {h}",
                        u.id, u.name
                    ),
                    cite: vec!["R4".into(), "R72".into()],
                }));
            }
        }
        let ap_hex = reach(Layer::AntiPersonnel);
        let on_vehicle_line = ap_hex.is_some() && v.counts_as_unarmored();
        if let (true, Some(h)) = (on_vehicle_line, ap_hex) {
            check_vehicle_line(ctx, u.id, &u.name, h)?;
        }
        prc::check_survival_data(ctx, u, at_hex.is_some() || on_vehicle_line)?;
    }
    Ok(())
}

/// B28.42, R12, R72: a vehicle attacked on the Vehicle line by A-P mines of
/// a strength it cannot know needs the Kill Number of the column of every
/// strength (halved in Deep Snow, B28.3).
fn check_vehicle_line(ctx: &Ctx<'_>, unit: UnitId, name: &str, hex: Hex) -> Res<()> {
    let table = vehicle_line_of(ctx.scenario).map_err(Interrupt::Refuse)?;
    for s in [ApStrength::Six, ApStrength::Eight, ApStrength::Twelve] {
        let fp = if ctx.scenario.ssr.deep_snow {
            s.factors() / 2
        } else {
            s.factors()
        };
        let Some(c) = ift::column_index(fp) else {
            continue;
        };
        if table.kill[c].is_none() {
            let mut e = missing_cell(VEHICLE_LINE_CSV, &IFT_COLUMNS[c].to_string(), "kill_number");
            e.reason = format!(
                "vehicle {unit} ({name}) is attacked on the Vehicle line if A-P mines in {hex} attack it, and their strength may be 6, 8 or 12: {}",
                e.reason
            );
            e.cite.extend(["B28.42".to_string(), "R72".to_string()]);
            return Err(Interrupt::Refuse(e));
        }
    }
    Ok(())
}
