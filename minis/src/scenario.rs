//! Scenario, public setup and sealed setup files (docs/SCENARIO.md,
//! "Miniatures scenarios"), and the kernel's [`Scenario`] trait for them.

use crate::content::CellMines;
use crate::engine::MinisEngine;
use crate::geom::{Cell, Point, TENTHS};
use crate::table::DetonationTable;
use hexveil_core::{
    Content, DiceSpec, Engine, Layer, Location, NoOrders, Orders, PublicSetup, Roll,
    Scenario as CoreScenario, SealedContents, Side,
};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The one sealed layer of each side.
pub const MINES_LAYER: &str = "mines";

/// The `mines` layer.
pub fn mines_layer() -> Layer {
    Layer::named(MINES_LAYER).expect("a short name")
}

/// A rectangle of whole inches `[x0, y0, x1, y1]`: the cells x0..x1 by
/// y0..y1 (x1, y1 excluded), or the closed area x0..=x1 by y0..=y1 for a
/// deployment area.
pub type Rect = [u16; 4];

/// What kind of figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FigureKind {
    /// An Infantry figure.
    Infantry,
    /// A soft (unarmoured) vehicle.
    Soft,
    /// An armoured fighting vehicle.
    Afv,
}

impl FigureKind {
    /// Whether it is a vehicle.
    pub fn is_vehicle(self) -> bool {
        !matches!(self, FigureKind::Infantry)
    }
}

/// A length in inches as written: `6`, `6.5` or `"6.5"`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Inches {
    /// Whole inches.
    Whole(i64),
    /// Decimal inches.
    Decimal(f64),
    /// Decimal inches as text.
    Text(String),
}

impl Inches {
    /// In tenths of an inch, if it is a length with at most one decimal.
    pub fn tenths(&self) -> Result<i32, String> {
        match self {
            Inches::Whole(v) if (0..=100_000).contains(v) => Ok(*v as i32 * TENTHS),
            Inches::Decimal(f) if f.is_finite() && (0.0..=100_000.0).contains(f) => {
                let t = (f * 10.0).round();
                if (t - f * 10.0).abs() > 1e-6 {
                    return Err(format!("{f} has more than one decimal"));
                }
                Ok(t as i32)
            }
            Inches::Text(s) => crate::geom::parse_tenths(s),
            other => Err(format!("{other:?} is not a length in inches")),
        }
    }
}

/// Mines counted as density x cells, per type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Plain A-P mines.
    #[serde(default)]
    pub ap: u32,
    /// A-T mines.
    #[serde(default)]
    pub at: u32,
    /// German S-mines (A-P).
    #[serde(default)]
    pub s: u32,
}

/// The D6 saves of Infantry caught in a blast (R10): a roll of at least
/// this saves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlastSaves {
    /// Save within 1.5 in of an A-T detonation.
    pub at: Option<u8>,
    /// Save within 1 in of an A-P detonation.
    pub ap: Option<u8>,
}

/// One side in the scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SideFile {
    /// Nationality (`German`, `Soviet`, ...); only a German side has or
    /// lays S-mines (seed 004 S-mines).
    pub nationality: String,
    /// Pre-laid mines (open and hidden together).
    #[serde(default)]
    pub budget: Budget,
    /// Mines carried for laying in play; none given: no limit.
    #[serde(default)]
    pub stock: Option<Budget>,
    /// Where the side may pre-lay mines: cell rectangles.
    #[serde(default)]
    pub mine_area: Vec<Rect>,
    /// Where its figures set up: closed rectangles in inches.
    #[serde(default)]
    pub deployment: Vec<Rect>,
}

/// One figure in the scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FigureFile {
    /// Its unique name.
    pub name: String,
    /// Its side.
    pub side: Side,
    /// Infantry, soft vehicle or AFV.
    pub kind: FigureKind,
    /// Move allowance in inches.
    #[serde(rename = "move")]
    pub move_allowance: Inches,
    /// Start position; else the public setup places it.
    #[serde(default)]
    pub at: Option<Point>,
    /// The vehicle model (`KV-I`, `KV-II` are never destroyed by A-T mines).
    #[serde(default)]
    pub model: Option<String>,
    /// A soft vehicle's attached trailer or towed weapon.
    #[serde(default)]
    pub towing: Option<String>,
}

/// The scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The ruleset the file is for: `minis` (a scenario file names its
    /// ruleset; without the key a client reads it as ASL).
    #[serde(default)]
    pub ruleset: Option<String>,
    /// Its name.
    pub name: String,
    /// Table width and depth in whole inches.
    pub table: [u16; 2],
    /// Number of turns (each: side A, then side B).
    pub turns: u16,
    /// Blast saves (R10).
    #[serde(default)]
    pub blast_saves: BlastSaves,
    /// Sides `A` and `B`.
    pub sides: BTreeMap<String, SideFile>,
    /// Every figure.
    #[serde(default)]
    pub figures: Vec<FigureFile>,
    /// Rules-data tables supplied in place of the shipped ones
    /// (`[tables.minis_mine_detonation]`, R12; [`hexveil_core::tables`]).
    #[serde(
        default,
        skip_serializing_if = "hexveil_core::SuppliedTables::is_empty"
    )]
    pub tables: hexveil_core::SuppliedTables,
    /// Victory conditions (ruleset version 2, R79); none: the game ends
    /// after the last turn without a winner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victory: Option<crate::victory::VictoryFile>,
}

/// A side, as loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideInfo {
    /// Nationality.
    pub nationality: String,
    /// Whether German (may have and lay S-mines).
    pub german: bool,
    /// Pre-laid budget.
    pub budget: Budget,
    /// Mines for laying in play (None: no limit).
    pub stock: Option<Budget>,
    /// Deployment rectangles (closed, inches).
    pub deployment: Vec<Rect>,
}

/// A figure, as loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// Name.
    pub name: String,
    /// Side.
    pub side: Side,
    /// Kind.
    pub kind: FigureKind,
    /// Model, if given.
    pub model: Option<String>,
    /// Whether a KV-I or KV-II (seed 004 AFV vs A-T mine exception).
    pub kv: bool,
    /// Attached trailer or towed weapon.
    pub towing: Option<String>,
    /// Move allowance, tenths of an inch.
    pub allowance: i32,
    /// Start position from the scenario.
    pub start: Option<Point>,
}

/// A loaded miniatures scenario.
#[derive(Clone, Debug)]
pub struct MinisScenario {
    /// Name.
    pub name: String,
    /// Table width, whole inches.
    pub width: u16,
    /// Table depth, whole inches.
    pub depth: u16,
    /// Number of turns.
    pub turns: u16,
    /// Blast saves (R10).
    pub blast_saves: BlastSaves,
    /// Sides A and B.
    pub sides: [SideInfo; 2],
    /// Figures, in file order (their ids).
    pub figures: Vec<Figure>,
    eligible: [Vec<Cell>; 2],
    eligible_set: [BTreeSet<Cell>; 2],
    /// The supplied tables, as the scenario gave them.
    pub tables: hexveil_core::SuppliedTables,
    detonation: std::sync::Arc<DetonationTable>,
    /// The ruleset version the game is played under (PROTOCOL.md 12.6):
    /// 1 before rulings R78 and R79, 2 the newest ([`crate::VERSION`]).
    pub version: u32,
    /// Victory conditions (ruleset version 2, R79).
    pub victory: Option<crate::victory::Victory>,
}

/// Index of a side in `[A, B]` arrays.
pub fn si(side: Side) -> usize {
    usize::from(side.code())
}

fn cells_of(rect: &Rect) -> impl Iterator<Item = Cell> + '_ {
    (rect[1]..rect[3]).flat_map(move |y| (rect[0]..rect[2]).map(move |x| Cell::new(x, y)))
}

fn is_kv(model: &str) -> bool {
    let m = model.trim().to_ascii_uppercase().replace(' ', "-");
    matches!(
        m.as_str(),
        "KV-I" | "KV-II" | "KV-1" | "KV-2" | "KV1" | "KV2"
    )
}

impl MinisScenario {
    /// Parses scenario TOML, for the newest ruleset version.
    pub fn from_toml(text: &str) -> Result<MinisScenario, String> {
        MinisScenario::from_toml_at(text, crate::VERSION)
    }

    /// Parses scenario TOML for the games of ruleset `version`.
    pub fn from_toml_at(text: &str, version: u32) -> Result<MinisScenario, String> {
        let f: ScenarioFile = toml::from_str(text).map_err(|e| format!("scenario: {e}"))?;
        MinisScenario::from_file_at(f, version)
    }

    /// Checks and loads a parsed scenario file, for the newest version.
    pub fn from_file(f: ScenarioFile) -> Result<MinisScenario, String> {
        MinisScenario::from_file_at(f, crate::VERSION)
    }

    /// Checks and loads a parsed scenario file for the games of ruleset
    /// `version`: version 2 also reads `[victory]` (R79) and refuses a
    /// table or a layout of mine areas whose densities could pass the
    /// table in play (R78); version 1 knows neither.
    pub fn from_file_at(f: ScenarioFile, version: u32) -> Result<MinisScenario, String> {
        if let Some(id) = f.ruleset.as_deref().filter(|id| *id != "minis") {
            return Err(format!(
                "scenario: ruleset = {id:?}: this file is for another ruleset, not the miniatures rules (\"minis\")"
            ));
        }
        f.tables
            .check(&[crate::table::SUPPLIED_NAME])
            .map_err(|e| format!("scenario: {e}"))?;
        let tables = f.tables.clone();
        let detonation = match tables.csv(crate::table::SUPPLIED_NAME) {
            Some(text) => std::sync::Arc::new(DetonationTable::parse(text).map_err(|why| {
                format!(
                    "scenario: {}",
                    hexveil_core::TableError::Unreadable {
                        name: crate::table::SUPPLIED_NAME.into(),
                        why
                    }
                )
            })?),
            None => std::sync::Arc::new(DetonationTable::shipped().clone()),
        };
        let [w, d] = f.table;
        if w == 0 || d == 0 || u32::from(w) * u32::from(d) > 1_000_000 {
            return Err(format!("scenario: table {w} x {d} in is not a table"));
        }
        if f.turns == 0 {
            return Err("scenario: turns must be at least 1".into());
        }
        for (k, v) in [("at", f.blast_saves.at), ("ap", f.blast_saves.ap)] {
            if let Some(n) = v {
                if !(1..=7).contains(&n) {
                    return Err(format!(
                        "scenario: blast_saves.{k} = {n}: a D6 save is 1 to 6 (7: no save)"
                    ));
                }
            }
        }
        let mut sides = Vec::new();
        let mut eligible: [Vec<Cell>; 2] = [Vec::new(), Vec::new()];
        for side in [Side::A, Side::B] {
            let s = f
                .sides
                .get(&side.to_string())
                .ok_or_else(|| format!("scenario: [sides.{side}] is missing"))?;
            let german = s.nationality.trim().eq_ignore_ascii_case("german");
            if !german && (s.budget.s > 0 || s.stock.is_some_and(|st| st.s > 0)) {
                return Err(format!(
                    "scenario: side {side} is {}: only German troops have or lay S-mines (seed 004 S-mines)",
                    s.nationality
                ));
            }
            for (what, r) in s
                .mine_area
                .iter()
                .map(|r| ("mine_area", r))
                .chain(s.deployment.iter().map(|r| ("deployment", r)))
            {
                let ok_cells = r[0] < r[2] && r[1] < r[3];
                let ok_closed = r[0] <= r[2] && r[1] <= r[3];
                if (what == "mine_area" && !ok_cells) || !ok_closed || r[2] > w || r[3] > d {
                    return Err(format!(
                        "scenario: sides.{side}.{what} {r:?} is not a rectangle [x0, y0, x1, y1] on the {w} x {d} in table"
                    ));
                }
            }
            let mut set = BTreeSet::new();
            for r in &s.mine_area {
                set.extend(cells_of(r));
            }
            // Row-major: y, then x.
            let mut v: Vec<Cell> = set.into_iter().collect();
            v.sort_by_key(|c| (c.y, c.x));
            eligible[si(side)] = v;
            sides.push(SideInfo {
                nationality: s.nationality.clone(),
                german,
                budget: s.budget,
                stock: s.stock,
                deployment: s.deployment.clone(),
            });
        }
        if let Some(k) = f.sides.keys().find(|k| *k != "A" && *k != "B") {
            return Err(format!("scenario: sides.{k}: sides are A and B"));
        }
        let mut figures = Vec::new();
        let mut names = BTreeSet::new();
        for (i, g) in f.figures.iter().enumerate() {
            if g.name.is_empty() || !names.insert(g.name.clone()) {
                return Err(format!(
                    "scenario: figures[{i}]: name {:?} is empty or used twice",
                    g.name
                ));
            }
            let allowance = g
                .move_allowance
                .tenths()
                .map_err(|e| format!("scenario: figures[{i}].move: {e}"))?;
            if g.towing.is_some() && g.kind != FigureKind::Soft {
                return Err(format!(
                    "scenario: figures[{i}] ({}): only a soft vehicle tows (seed 004 soft vehicles)",
                    g.name
                ));
            }
            let kv = g.model.as_deref().is_some_and(is_kv);
            if kv && g.kind != FigureKind::Afv {
                return Err(format!(
                    "scenario: figures[{i}] ({}): a KV-I or KV-II is an AFV",
                    g.name
                ));
            }
            let fig = Figure {
                name: g.name.clone(),
                side: g.side,
                kind: g.kind,
                model: g.model.clone(),
                kv,
                towing: g.towing.clone(),
                allowance,
                start: g.at,
            };
            if let Some(p) = g.at {
                if !on_table(w, d, p) {
                    return Err(format!(
                        "scenario: figures[{i}] ({}) at {p} is off the {w} x {d} in table",
                        g.name
                    ));
                }
            }
            figures.push(fig);
        }
        let eligible_set = [
            eligible[0].iter().copied().collect(),
            eligible[1].iter().copied().collect(),
        ];
        let sides: [SideInfo; 2] = sides.try_into().expect("two sides");
        let victory = match (f.victory, version) {
            (None, _) => None,
            (Some(_), 1) => return Err(
                "scenario: victory: the miniatures rules of version 1 have no victory conditions"
                    .into(),
            ),
            (Some(v), _) => Some(crate::victory::parse(v, w, d)?),
        };
        if version >= 2 {
            check_densities(&detonation, &sides, &eligible)?;
        }
        Ok(MinisScenario {
            version,
            victory,
            name: f.name,
            width: w,
            depth: d,
            turns: f.turns,
            blast_saves: f.blast_saves,
            sides,
            figures,
            eligible,
            eligible_set,
            tables,
            detonation,
        })
    }

    /// A side's loaded data.
    pub fn side(&self, side: Side) -> &SideInfo {
        &self.sides[si(side)]
    }

    /// The figure named `name`, with its id.
    pub fn figure_named(&self, name: &str) -> Option<(usize, &Figure)> {
        self.figures
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
    }

    /// Whether `p` is on the table (edges included).
    pub fn on_table(&self, p: Point) -> bool {
        on_table(self.width, self.depth, p)
    }

    /// Whether `cell` is on the table.
    pub fn cell_on_table(&self, c: Cell) -> bool {
        c.x < self.width && c.y < self.depth
    }

    /// The cells `side` may pre-lay hidden mines in, row-major.
    pub fn eligible_cells(&self, side: Side) -> &[Cell] {
        &self.eligible[si(side)]
    }

    /// Whether `side` may have hidden mines in `cell`.
    pub fn is_eligible(&self, side: Side, cell: Cell) -> bool {
        self.eligible_set[si(side)].contains(&cell)
    }

    /// The detonation table: the scenario's supplied one (R12) or the
    /// shipped one.
    pub fn table(&self) -> &DetonationTable {
        &self.detonation
    }

    /// Every problem with the mines `side` pre-lays: hidden ones and the
    /// open ones of its public setup together (seed 004 laying; R12).
    pub fn mine_problems(
        &self,
        side: Side,
        open: &BTreeMap<Cell, CellMines>,
        hidden: &BTreeMap<Cell, CellMines>,
    ) -> Vec<String> {
        let mut v = Vec::new();
        let info = self.side(side);
        let mut used = Budget::default();
        let mut combined: BTreeMap<Cell, (u32, u32)> = BTreeMap::new();
        for (how, map) in [("open", open), ("hidden", hidden)] {
            for (c, m) in map {
                if !self.is_eligible(side, *c) {
                    v.push(format!(
                        "{how} mines in {c}: outside side {side}'s mine area (seed 004 laying)"
                    ));
                }
                if m.s && !info.german {
                    v.push(format!(
                        "{how} S-mines in {c}: side {side} is {}; only German troops have S-mines (seed 004 S-mines)",
                        info.nationality
                    ));
                }
                for (kind, d) in [("A-P", m.ap), ("A-T", m.at)] {
                    if d > 0 {
                        if let Err(e) = self.table().density_usable(u32::from(d)) {
                            v.push(format!("{how} {kind} density {d} in {c}: {e}"));
                        }
                    }
                }
                let e = combined.entry(*c).or_default();
                e.0 += u32::from(m.ap);
                e.1 += u32::from(m.at);
                if m.s {
                    used.s += u32::from(m.ap);
                } else {
                    used.ap += u32::from(m.ap);
                }
                used.at += u32::from(m.at);
            }
        }
        for (c, (ap, at)) in &combined {
            if ap + at > 0 && (*ap > 0 && *at > 0 || open.contains_key(c) && hidden.contains_key(c))
            {
                if let Err(e) = self.table().density_usable(ap + at) {
                    v.push(format!(
                        "combined density {} in {c} (a vehicle rolls against A-P + A-T): {e}",
                        ap + at
                    ));
                }
            }
        }
        for (kind, u, b) in [
            ("A-P", used.ap, info.budget.ap),
            ("A-T", used.at, info.budget.at),
            ("S", used.s, info.budget.s),
        ] {
            if u > b {
                v.push(format!(
                    "side {side} pre-lays {u} {kind} mines (density x cells), its budget is {b}"
                ));
            }
        }
        v
    }
}

/// The most mines per square inch `side` could have in one cell of its
/// mine area from its setup: what one side may map in a cell (the table's
/// largest usable density), bounded by its whole pre-laid budget.
fn side_cap(table: &DetonationTable, info: &SideInfo) -> u32 {
    let b = info.budget;
    table.max_usable().min(b.ap + b.s + b.at)
}

impl MinisScenario {
    /// The most mines per square inch cell `c` could hold at the start of
    /// play, from public data: each side's cap where its mine area covers
    /// it (its open pre-laid mines there included, R78).
    pub fn start_cap(&self, c: Cell) -> u32 {
        [Side::A, Side::B]
            .into_iter()
            .filter(|s| self.is_eligible(*s, c))
            .map(|s| side_cap(self.table(), self.side(s)))
            .sum()
    }
}

/// R78, R12 (ruleset version 2): every density a cell could reach in play
/// must have an answer at every distance, and the density a move reads is
/// the sum of what both sides hid and mapped open in a cell. A cell both
/// mine areas cover could reach both sides' caps added: if that may pass
/// the densities the table answers, the scenario is refused at load,
/// from public data (mine areas, budgets, the table), so no ruling is
/// refused mid-game, whose words would tell a side the other's hidden
/// density (G3).
fn check_densities(
    table: &DetonationTable,
    sides: &[SideInfo; 2],
    eligible: &[Vec<Cell>; 2],
) -> Result<(), String> {
    table
        .check_answerable()
        .map_err(|e| format!("scenario: tables.{}: {e}", crate::table::SUPPLIED_NAME))?;
    let limit = table.safe_limit();
    let both: BTreeSet<Cell> = eligible[1].iter().copied().collect();
    let overlap: Vec<Cell> = eligible[0]
        .iter()
        .copied()
        .filter(|c| both.contains(c))
        .collect();
    let sum = side_cap(table, &sides[0]) + side_cap(table, &sides[1]);
    if let (Some(first), true) = (overlap.first(), sum > limit) {
        return Err(format!(
            "scenario: the mine areas of sides A and B overlap in {} cells ({first} first), where their budgets could together reach {sum} mines per square inch; the detonation table answers densities 1 to {limit} only ({}; R12, R78): make the areas apart or the budgets smaller",
            overlap.len(),
            crate::table::TABLE_FILE
        ));
    }
    Ok(())
}

fn on_table(w: u16, d: u16, p: Point) -> bool {
    (0..=i32::from(w) * TENTHS).contains(&p.x) && (0..=i32::from(d) * TENTHS).contains(&p.y)
}

/// A group of mined cells in a setup file: a cell rectangle or a list.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FieldFile {
    /// Cells x0..x1 by y0..y1 (whole inches, x1 and y1 excluded).
    #[serde(default)]
    pub rect: Option<Rect>,
    /// Cells by key.
    #[serde(default)]
    pub cells: Vec<Cell>,
    /// A-P density (mines per square inch).
    #[serde(default)]
    pub ap: u8,
    /// A-T density.
    #[serde(default)]
    pub at: u8,
    /// Whether the A-P mines are German S-mines.
    #[serde(default)]
    pub s: bool,
}

/// Reads field groups into cells, each mapped once (seed 004 laying: the
/// exact mix of each cell is stated).
pub fn read_fields(
    scenario: &MinisScenario,
    what: &str,
    fields: &[FieldFile],
) -> Result<BTreeMap<Cell, CellMines>, String> {
    let mut out = BTreeMap::new();
    for (i, f) in fields.iter().enumerate() {
        if f.ap == 0 && f.at == 0 {
            return Err(format!("{what}[{i}]: needs an ap or at density"));
        }
        if f.s && f.ap == 0 {
            return Err(format!("{what}[{i}]: s = true needs an A-P density"));
        }
        let mut cells: Vec<Cell> = f.cells.clone();
        if let Some(r) = &f.rect {
            if r[0] >= r[2] || r[1] >= r[3] {
                return Err(format!("{what}[{i}].rect {r:?} is empty"));
            }
            cells.extend(cells_of(r));
        }
        if cells.is_empty() {
            return Err(format!("{what}[{i}]: needs rect or cells"));
        }
        for c in cells {
            if !scenario.cell_on_table(c) {
                return Err(format!("{what}[{i}]: {c} is off the table"));
            }
            let m = CellMines {
                ap: f.ap,
                at: f.at,
                s: f.s,
            };
            if out.insert(c, m).is_some() {
                return Err(format!(
                    "{what}[{i}]: {c} is mapped twice (one mix per cell, seed 004 laying)"
                ));
            }
        }
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublicFile {
    #[serde(default)]
    side: Option<Side>,
    #[serde(default)]
    positions: BTreeMap<String, Point>,
    #[serde(default)]
    open: Vec<FieldFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SealedFile {
    #[serde(default)]
    side: Option<Side>,
    #[serde(default)]
    hidden: Vec<FieldFile>,
}

/// A side's public setup: figure positions and open pre-laid mines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinisPublicSetup {
    /// Whose.
    pub side: Side,
    /// Figure positions by name.
    pub positions: BTreeMap<String, Point>,
    /// Open mines by cell.
    pub open: BTreeMap<Cell, CellMines>,
}

impl PublicSetup for MinisPublicSetup {
    fn side(&self) -> Side {
        self.side
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl MinisScenario {
    /// Reads and checks `side`'s public setup from a parsed value.
    pub fn public_setup_value(
        &self,
        side: Side,
        v: serde_json::Value,
    ) -> Result<MinisPublicSetup, String> {
        let f: PublicFile = serde_json::from_value(v).map_err(|e| format!("setup: {e}"))?;
        self.public_from(side, f)
    }

    fn public_from(&self, side: Side, f: PublicFile) -> Result<MinisPublicSetup, String> {
        if let Some(s) = f.side {
            if s != side {
                return Err(format!("setup says side {s}, expected side {side}"));
            }
        }
        let info = self.side(side);
        for (name, p) in &f.positions {
            let (_, fig) = self
                .figure_named(name)
                .ok_or_else(|| format!("setup: no figure is named {name:?}"))?;
            if fig.side != side {
                return Err(format!("setup: {name} is side {}'s figure", fig.side));
            }
            let inside = info.deployment.iter().any(|r| {
                (i32::from(r[0]) * TENTHS..=i32::from(r[2]) * TENTHS).contains(&p.x)
                    && (i32::from(r[1]) * TENTHS..=i32::from(r[3]) * TENTHS).contains(&p.y)
            });
            if !inside {
                return Err(format!(
                    "setup: {name} at {p} is outside side {side}'s deployment area"
                ));
            }
        }
        let open = read_fields(self, "open", &f.open)?;
        let problems = self.mine_problems(side, &open, &BTreeMap::new());
        if !problems.is_empty() {
            return Err(format!("setup: {}", problems.join("; ")));
        }
        Ok(MinisPublicSetup {
            side,
            positions: f.positions,
            open,
        })
    }

    /// Reads `side`'s hidden mines from a parsed sealed setup.
    pub fn sealed_value(
        &self,
        public: &MinisPublicSetup,
        v: serde_json::Value,
    ) -> Result<BTreeMap<Cell, CellMines>, String> {
        let f: SealedFile = serde_json::from_value(v).map_err(|e| format!("sealed: {e}"))?;
        self.sealed_from(public, f)
    }

    fn sealed_from(
        &self,
        public: &MinisPublicSetup,
        f: SealedFile,
    ) -> Result<BTreeMap<Cell, CellMines>, String> {
        if let Some(s) = f.side {
            if s != public.side {
                return Err(format!(
                    "sealed setup says side {s}, expected side {}",
                    public.side
                ));
            }
        }
        let hidden = read_fields(self, "hidden", &f.hidden)?;
        let problems = self.mine_problems(public.side, &public.open, &hidden);
        if !problems.is_empty() {
            return Err(format!("sealed: {}", problems.join("; ")));
        }
        Ok(hidden)
    }

    /// The sealed layout of hidden mines: a content for every eligible
    /// cell, in eligible order.
    pub fn layout(&self, side: Side, hidden: &BTreeMap<Cell, CellMines>) -> SealedContents {
        let leaves = self
            .eligible_cells(side)
            .iter()
            .map(|c| {
                (
                    Location::key_of(&c.key()).expect("cell keys fit"),
                    hidden.get(c).copied().unwrap_or_default().encode(),
                )
            })
            .collect();
        vec![(mines_layer(), leaves)]
    }
}

fn public_of(p: &dyn PublicSetup) -> Result<&MinisPublicSetup, String> {
    p.as_any()
        .downcast_ref::<MinisPublicSetup>()
        .ok_or_else(|| "not a miniatures public setup".to_string())
}

impl CoreScenario for MinisScenario {
    fn name(&self) -> &str {
        &self.name
    }

    fn sealed_layers(&self) -> Vec<Layer> {
        vec![mines_layer()]
    }

    fn note_layer(&self) -> Option<Layer> {
        None
    }

    fn fact_words(&self, request: &hexveil_core::FactRequest) -> String {
        if request.layer == mines_layer() {
            format!("minefield record for {}", request.location)
        } else {
            request.generic_words()
        }
    }

    fn check_content(
        &self,
        layer: Layer,
        content: &Content,
    ) -> Result<(), hexveil_core::ContentError> {
        use hexveil_core::ContentError;
        if layer != mines_layer() {
            return Err(ContentError::UnknownLayer(layer.to_string()));
        }
        let m = CellMines::decode(content).map_err(ContentError::Malformed)?;
        for d in [m.ap, m.at] {
            if d > 0 {
                self.table()
                    .density_usable(u32::from(d))
                    .map_err(|e| ContentError::Malformed(e.to_string()))?;
            }
        }
        Ok(())
    }

    fn public_setup(&self, side: Side, text: &str) -> Result<Arc<dyn PublicSetup>, String> {
        let f: PublicFile = toml::from_str(text).map_err(|e| format!("setup: {e}"))?;
        Ok(Arc::new(self.public_from(side, f)?))
    }

    fn setup_rolls(&self, _side: Side) -> Vec<DiceSpec> {
        Vec::new()
    }

    fn eligible(&self, public: &dyn PublicSetup, layer: Layer) -> Vec<Location> {
        if layer != mines_layer() {
            return Vec::new();
        }
        self.eligible_cells(public.side())
            .iter()
            .map(|c| Location::key_of(&c.key()).expect("cell keys fit"))
            .collect()
    }

    fn is_eligible(&self, public: &dyn PublicSetup, layer: Layer, location: &Location) -> bool {
        layer == mines_layer()
            && Cell::from_key(location.key())
                .is_some_and(|c| c.key() == location.key() && self.is_eligible(public.side(), c))
    }

    fn sealed_contents(
        &self,
        public: &dyn PublicSetup,
        sealed_text: &str,
    ) -> Result<SealedContents, String> {
        let public = public_of(public)?;
        let f: SealedFile = toml::from_str(sealed_text).map_err(|e| format!("sealed: {e}"))?;
        let hidden = self.sealed_from(public, f)?;
        Ok(self.layout(public.side, &hidden))
    }

    fn layout_problems(
        &self,
        public: &dyn PublicSetup,
        contents: &[(Layer, Location, Content)],
        _setup_rolls: &[Roll],
    ) -> Vec<String> {
        let public = match public_of(public) {
            Ok(p) => p,
            Err(e) => return vec![e],
        };
        let mut v = Vec::new();
        let mut hidden = BTreeMap::new();
        for (layer, loc, content) in contents {
            if *layer != mines_layer() {
                v.push(format!("layer {layer} is not a miniatures layer"));
                continue;
            }
            let Some(cell) = Cell::from_key(loc.key()) else {
                v.push(format!("{loc} is not a cell"));
                continue;
            };
            match CellMines::decode(content) {
                Ok(m) if m.is_empty() => {}
                Ok(m) => {
                    hidden.insert(cell, m);
                }
                Err(e) => v.push(format!("{cell}: {e}")),
            }
        }
        v.extend(self.mine_problems(public.side, &public.open, &hidden));
        v
    }

    fn start(
        &self,
        publics: [&dyn PublicSetup; 2],
        _setup_rolls: &BTreeMap<Side, Vec<Roll>>,
    ) -> Result<Box<dyn Engine>, String> {
        let a = public_of(publics[0])?.clone();
        let b = public_of(publics[1])?.clone();
        Ok(Box::new(MinisEngine::start(
            Arc::new(self.clone()),
            [&a, &b],
        )?))
    }

    fn orders(&self, _side: Side, orders: &[u8]) -> Result<Box<dyn Orders>, Vec<String>> {
        if orders.is_empty() {
            Ok(Box::new(NoOrders))
        } else {
            Err(vec![
                "the miniatures rules have no notes, so no standing orders".into(),
            ])
        }
    }

    fn supplied_tables(&self) -> &hexveil_core::SuppliedTables {
        &self.tables
    }

    fn observer(&self, viewer: hexveil_core::Side) -> Box<dyn hexveil_core::Observer> {
        crate::asks::observer(self, viewer)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
