//! Passengers, Riders and Crew of a vehicle hit by mines (B28.43, B28.52).
//!
//! PRC are immune to minefield attacks unless their vehicle is eliminated
//! (they roll for survival) or immobilized (Vulnerable PRC are attacked
//! Collaterally). Riders are always Vulnerable; Passengers are Vulnerable in
//! an open-topped vehicle or one that counts as unarmored (B28.43). The
//! vehicle's own crew is not a unit in this engine.
//!
//! Project readings (docs/RULINGS.md R31-R33):
//! - Collateral attack after an A-P attack immobilizes the vehicle: the
//!   Vulnerable PRC take the same IFT result that attack produced (same
//!   column, same Final DR), as Collateral Attacks use the attack's DR (R31).
//! - After an A-T immobilization: the Vulnerable Passengers/Riders are
//!   attacked on the 16 FP column with the A-T attack's Final DR (B28.52;
//!   B28.43 limits the Collateral attack to Vulnerable PRC; R32).
//! - Survival of PRC of an eliminated vehicle (B28.43, B28.52 "roll for
//!   survival normally"): the survival numbers (D5.6/D6.9) are not in the
//!   seeds nor in the rules data (`data/prc_survival.csv` has no rows). A
//!   league supplies them as `[tables.prc_survival]` ([`SurvivalTable`]);
//!   then each Passenger and Rider unit rolls one dr and survives at or
//!   below its number, and the survivors Bail Out into the hex, where A-P
//!   mines attack them as if entering (B28.43, R71). Without the table a
//!   move that could eliminate a vehicle with PRC aboard is refused before
//!   anything is asked (ruleset version 3, [`check_survival_data`]);
//!   version 2 refused the ruling after its dice (R33, a void ruling).

use crate::a::ift::IftResult;
use crate::a::tables::{bad_cell, expect_header, missing_cell, records};
use crate::b28::minefield::{agreed, emit, MinefieldEvent, VehicleOutcome};
use crate::board::hex::Hex;
use crate::model::action::MoveMode;
use crate::model::error::RuleError;
use crate::model::event::Visibility;
use crate::model::resolve::{Ctx, Interrupt, Res};
use crate::model::scenario::Scenario;
use crate::model::unit::{Unit, UnitId, UnitKind};
use serde::{Deserialize, Serialize};

/// The name a scenario supplies the PRC survival table under
/// (`[tables.prc_survival]`, R12).
pub const SURVIVAL_NAME: &str = "prc_survival";
/// Its file name, as refusals cite it.
pub const SURVIVAL_CSV: &str = "prc_survival.csv";
const SURVIVAL_SRC: &str = include_str!("../../data/prc_survival.csv");

/// How a PRC unit rode its vehicle (B28.43).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Inside the vehicle.
    Passenger,
    /// On the outside: always Vulnerable.
    Rider,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Passenger => "passenger",
            Role::Rider => "rider",
        }
    }
}

/// The D5.6/D6.9 survival numbers a league supplies (R12, R71): the dr at
/// or below which a PRC unit of an eliminated vehicle survives, by how the
/// vehicle went (eliminated, or a Burning Wreck) and how the unit rode.
/// Every cell must be given: a supplied table is read whole at load, so no
/// ruling needs a cell it lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurvivalTable {
    /// `[eliminated, burning_wreck][passenger, rider]`.
    pub survival_dr_max: [[u8; 2]; 2],
}

impl SurvivalTable {
    /// The dr at or below which a PRC unit of `role` survives its
    /// vehicle's `outcome` (Eliminated or Burning Wreck).
    pub fn max(&self, outcome: VehicleOutcome, role: Role) -> u8 {
        let o = usize::from(outcome == VehicleOutcome::BurningWreck);
        let r = usize::from(role == Role::Rider);
        self.survival_dr_max[o][r]
    }
}

const OUTCOMES: [&str; 2] = ["eliminated", "burning_wreck"];

/// Reads a `prc_survival.csv` text (`outcome,role,survival_dr_max` rows,
/// outcome `eliminated` or `burning_wreck`, role `passenger` or `rider`,
/// a dr 0..=6). Every one of the four cells must be there: an error names
/// the first missing or bad one (R12).
pub fn parse_survival(text: &str) -> Result<SurvivalTable, RuleError> {
    let recs = records(SURVIVAL_CSV, text)?;
    let want = ["outcome", "role", "survival_dr_max"];
    expect_header(SURVIVAL_CSV, &recs, &want)?;
    let mut out = [[None; 2]; 2];
    for rec in &recs[1..] {
        let cell = |i: usize| rec.get(i).map(str::trim).unwrap_or("");
        let (o, r) = (cell(0), cell(1));
        let row = format!("{o} {r}");
        let oi = OUTCOMES
            .iter()
            .position(|x| *x == o)
            .ok_or_else(|| bad_cell(SURVIVAL_CSV, &row, "outcome", o))?;
        let ri = [Role::Passenger, Role::Rider]
            .iter()
            .position(|x| x.name() == r)
            .ok_or_else(|| bad_cell(SURVIVAL_CSV, &row, "role", r))?;
        let v = cell(2);
        let n: u8 = v
            .parse()
            .ok()
            .filter(|n| *n <= 6)
            .ok_or_else(|| bad_cell(SURVIVAL_CSV, &row, "survival_dr_max", v))?;
        if out[oi][ri].replace(n).is_some() {
            return Err(bad_cell(SURVIVAL_CSV, &row, "outcome", "a second row"));
        }
    }
    let mut table = [[0u8; 2]; 2];
    for (oi, o) in OUTCOMES.iter().enumerate() {
        for (ri, r) in [Role::Passenger, Role::Rider].iter().enumerate() {
            table[oi][ri] = out[oi][ri].ok_or_else(|| {
                missing_cell(
                    SURVIVAL_CSV,
                    &format!("{o} {}", r.name()),
                    "survival_dr_max",
                )
            })?;
        }
    }
    Ok(SurvivalTable {
        survival_dr_max: table,
    })
}

/// The survival table a scenario uses: its supplied one, or the shipped
/// file, which has no rows (an error naming the table and the first cell).
pub fn survival_of(scenario: &Scenario) -> Result<SurvivalTable, RuleError> {
    let mut e = match scenario.tables.csv(SURVIVAL_NAME) {
        Some(text) => return parse_survival(text),
        None => match parse_survival(SURVIVAL_SRC) {
            Ok(t) => return Ok(t),
            Err(e) => e,
        },
    };
    e.cite = vec!["B28.43".into(), "B28.52".into(), "R12".into(), "R71".into()];
    e.reason = format!(
        "{}: the D5.6/D6.9 survival numbers of a vehicle's Passengers and Riders are not in the rules data; a league supplies them as [tables.{SURVIVAL_NAME}]",
        e.reason
    );
    Err(e)
}

/// R71 (ruleset version 3), before anything is asked: a step of `unit`
/// that could eliminate it (`could_eliminate`, judged from public data
/// by the movement code) is refused when it carries PRC and the scenario
/// has no survival table. Names the vehicle, its PRC and the table.
pub fn check_survival_data(ctx: &Ctx<'_>, unit: &Unit, could_eliminate: bool) -> Res<()> {
    if !could_eliminate {
        return Ok(());
    }
    let prc = aboard(ctx, unit.id);
    if prc.is_empty() {
        return Ok(());
    }
    match survival_of(ctx.scenario) {
        Ok(_) => Ok(()),
        Err(mut e) => {
            e.reason = format!(
                "vehicle {} ({}) carries PRC {prc:?} and this move could eliminate it: {}",
                unit.id, unit.name, e.reason
            );
            Err(Interrupt::Refuse(e))
        }
    }
}

/// What the Vulnerable PRC of an immobilized vehicle are attacked with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collateral {
    /// The A-P attack's own IFT result (B28.43).
    SameAttack(IftResult),
    /// The 16 FP column at this Final DR (A-T mines, B28.52).
    Column16(i16),
}

/// Passengers and Riders aboard `vehicle` that are in play.
pub fn aboard(ctx: &Ctx<'_>, vehicle: UnitId) -> Vec<UnitId> {
    match ctx.state.unit(vehicle).map(|u| &u.kind) {
        Some(UnitKind::Vehicle(v)) => v
            .passengers
            .iter()
            .chain(&v.riders)
            .copied()
            .filter(|id| ctx.state.unit(*id).is_some_and(|u| u.in_play()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Vulnerable PRC of `vehicle` (B28.43): Riders always; Passengers of an
/// open-topped vehicle or one counting as unarmored (B28.42).
pub fn vulnerable(ctx: &Ctx<'_>, vehicle: UnitId) -> Vec<UnitId> {
    let Some(UnitKind::Vehicle(v)) = ctx.state.unit(vehicle).map(|u| &u.kind) else {
        return Vec::new();
    };
    let passengers_too = v.open_topped || v.counts_as_unarmored();
    let mut out: Vec<UnitId> = v.riders.clone();
    if passengers_too {
        out.extend(v.passengers.iter().copied());
    }
    out.retain(|id| ctx.state.unit(*id).is_some_and(|u| u.in_play()));
    out.sort();
    out
}

/// Applies an attack's outcome to a vehicle itself (B28.42, B28.52, and
/// an ordnance hit, C3.32, C7): eliminated units leave the map, a Burning
/// Wreck keeps its hex, an immobilized vehicle stays. Its PRC are the
/// caller's ([`vehicle_hit`] rolls their survival). Ruleset version 2
/// refused (R12, R33) when an eliminated vehicle carried PRC.
pub fn apply_outcome(
    ctx: &mut Ctx<'_>,
    vehicle: UnitId,
    hex: Hex,
    outcome: VehicleOutcome,
) -> Res<()> {
    match outcome {
        VehicleOutcome::NoEffect => {}
        VehicleOutcome::Eliminated | VehicleOutcome::BurningWreck => {
            let prc = aboard(ctx, vehicle);
            if !prc.is_empty() && !ctx.scenario.since(3) {
                // B28.43, B28.52, R12: survival numbers not in the data.
                return Err(Interrupt::Refuse(RuleError {
                    reason: format!(
                        "vehicle {vehicle} is eliminated with PRC {prc:?} aboard: their survival roll needs rules data prc_survival (D5.6/D6.9 survival numbers), which is not given"
                    ),
                    cite: vec!["B28.43".into(), "B28.52".into(), "R12".into()],
                }));
            }
            // Eliminated units leave the map (`Unit::hex`, as A10/A19 casualties
            // do in morale.rs); a Burning Wreck's hex is kept (B28.52).
            if let Some(u) = ctx.state.units.get_mut(&vehicle) {
                u.status.eliminated = true;
                u.hex = None;
            }
            if outcome == VehicleOutcome::BurningWreck {
                ctx.state.mines.burning_wrecks.insert(vehicle, hex);
            }
        }
        VehicleOutcome::Immobilized => {
            if let Some(UnitKind::Vehicle(v)) =
                ctx.state.units.get_mut(&vehicle).map(|u| &mut u.kind)
            {
                v.immobilized = true;
            }
        }
    }
    Ok(())
}

/// Applies a minefield attack's outcome to a vehicle and its PRC.
pub fn vehicle_hit(
    ctx: &mut Ctx<'_>,
    vehicle: UnitId,
    hex: Hex,
    outcome: VehicleOutcome,
    collateral: Collateral,
) -> Res<()> {
    if outcome == VehicleOutcome::NoEffect {
        return Ok(());
    }
    let prc = aboard(ctx, vehicle);
    apply_outcome(ctx, vehicle, hex, outcome)?;
    emit(
        ctx,
        Visibility::Public,
        MinefieldEvent::VehicleHit {
            unit: vehicle,
            hex,
            outcome,
        },
        &["B28.42", "B28.52"],
    );
    if matches!(
        outcome,
        VehicleOutcome::Eliminated | VehicleOutcome::BurningWreck
    ) && !prc.is_empty()
    {
        survival(ctx, vehicle, hex, outcome, &prc)?;
    }
    if outcome == VehicleOutcome::Immobilized {
        let targets = vulnerable(ctx, vehicle);
        if !targets.is_empty() {
            let result = match collateral {
                Collateral::SameAttack(r) => r,
                Collateral::Column16(dr) => agreed::ift_lookup(16, dr)?,
            };
            if result != IftResult::NoEffect {
                agreed::apply_personnel(ctx, hex, &targets, result, true)?;
            }
        }
    }
    Ok(())
}

/// B28.43, B28.52, R71: each Passenger and Rider unit of a vehicle just
/// eliminated rolls one dr (in the vehicle's order: Passengers, then
/// Riders) and survives at or below the supplied number; the others are
/// eliminated with it. The survivors Bail Out into the hex, unloaded, and
/// A-P mines there attack them as if they entered it (B28.43).
pub fn survival(
    ctx: &mut Ctx<'_>,
    vehicle: UnitId,
    hex: Hex,
    outcome: VehicleOutcome,
    prc: &[UnitId],
) -> Res<()> {
    let table = survival_of(ctx.scenario).map_err(Interrupt::Refuse)?;
    let riders: Vec<UnitId> = match ctx.state.unit(vehicle).map(|u| &u.kind) {
        Some(UnitKind::Vehicle(v)) => v.riders.clone(),
        _ => Vec::new(),
    };
    let mut survivors = Vec::new();
    for id in prc {
        let role = if riders.contains(id) {
            Role::Rider
        } else {
            Role::Passenger
        };
        let needed = table.max(outcome, role);
        let dr = ctx.roll_dr1(
            format!("PRC survival dr for {id} ({}) of {vehicle}", role.name()),
            "B28.43",
        )?;
        let survived = dr <= needed;
        emit(
            ctx,
            Visibility::Public,
            MinefieldEvent::PrcSurvival {
                vehicle,
                unit: *id,
                role,
                dr,
                needed,
                survived,
            },
            &["B28.43", "B28.52", "R71"],
        );
        if survived {
            if let Some(u) = ctx.state.units.get_mut(id) {
                u.status.aboard = None;
                u.hex = Some(hex);
            }
            survivors.push(*id);
        } else {
            crate::a::morale::eliminate(
                ctx,
                *id,
                "did not survive its vehicle's elimination",
                &["B28.43", "B28.52", "R71"],
            );
        }
    }
    if let Some(UnitKind::Vehicle(d)) = ctx.state.units.get_mut(&vehicle).map(|u| &mut u.kind) {
        d.passengers.clear();
        d.riders.clear();
    }
    if survivors.is_empty() {
        return Ok(());
    }
    crate::b28::minefield::crossing_attacks(
        ctx,
        &survivors,
        hex,
        hex,
        MoveMode::Normal,
        crate::b28::minefield::Crossing::Entry,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b28_43_r71_a_supplied_survival_table_is_read_whole() {
        let head = "outcome,role,survival_dr_max\n";
        let full = format!(
            "{head}eliminated,passenger,3\neliminated,rider,4\nburning_wreck,passenger,2\nburning_wreck,rider,1\n"
        );
        let t = parse_survival(&full).unwrap();
        assert_eq!(t.max(VehicleOutcome::Eliminated, Role::Rider), 4);
        assert_eq!(t.max(VehicleOutcome::BurningWreck, Role::Rider), 1);
        assert_eq!(t.max(VehicleOutcome::BurningWreck, Role::Passenger), 2);
        // A cell missing, a dr of 7, a role unknown, a wrong header.
        let e = parse_survival(&full.replace("burning_wreck,rider,1\n", "")).unwrap_err();
        assert!(e.reason.contains("burning_wreck rider"), "{e}");
        let e = parse_survival(&full.replace("rider,4", "rider,7")).unwrap_err();
        assert!(e.reason.contains("survival_dr_max"), "{e}");
        let e =
            parse_survival(&full.replace("eliminated,passenger", "eliminated,crew")).unwrap_err();
        assert!(e.reason.contains("column role"), "{e}");
        let e = parse_survival("outcome,survival\n").unwrap_err();
        assert!(e.reason.contains("header"), "{e}");
        // The shipped file has no rows: not found.
        assert!(parse_survival(SURVIVAL_SRC).is_err());
    }
}
