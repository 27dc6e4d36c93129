//! A scenario: map, both sides' OBs and the SSRs these rules name, with its
//! file form (TOML, or the same structure as JSON for the rules oracle).
//!
//! The format is documented in `docs/SCENARIO.md`, with an example in
//! `examples/scenario.toml`. Loading checks everything that can be checked
//! without play: hex names, terrain, unit strengths, names referred to.
//! Data whose absence only matters in play (an AFV's Aerial AF, R4) may be
//! missing; the rule that needs it refuses then.

use crate::board::hex::{Direction, Hex, Spine};
use crate::board::map::Map;
use crate::board::terrain::HexInfo;
use crate::model::unit::{
    Ammo, Class, Facing, Gun, HullArmor, Infantry, InfantrySize, Leader, Ordnance, Status,
    Strength, Suffix, ThColour, Trait, Unit, UnitId, UnitKind, Vehicle,
};
use crate::side::Side;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Special Scenario Rules the engine applies.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ssr {
    /// Deep Snow (B28.3, B28.51).
    pub deep_snow: bool,
    /// Daisy Chains allowed (B28.531).
    pub daisy_chains: bool,
}

/// Where a side may set up: whole boards and single hexes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupArea {
    /// Boards the side may set up anywhere on (half hexes included).
    pub boards: Vec<u16>,
    /// Further single hexes.
    pub hexes: Vec<Hex>,
}

impl SetupArea {
    /// Whether `hex` (under any of its names on `map`) lies in the area.
    pub fn contains(&self, map: &Map, hex: Hex) -> bool {
        self.boards.contains(&hex.board)
            || map
                .names(hex)
                .iter()
                .any(|n| self.boards.contains(&n.board))
            || self.hexes.iter().any(|h| map.same_hex(*h, hex))
    }
}

/// One side's Order of Battle, as far as these rules look at it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideOb {
    /// Nationality (`German`, `Russian`, ...).
    pub nationality: String,
    /// ELR of the OB (A19.1), 0..=5.
    pub elr: u8,
    /// Whether the ELR was assigned by SSR (A19.132).
    pub elr_by_ssr: bool,
    /// Ammunition Shortage by SSR (A19.131).
    pub ammunition_shortage: bool,
    /// Hidden minefield factors (B28.1), spent on A-P, A-T (3 for 1, B28.5)
    /// and Booby Traps (B28.9).
    pub minefield_factors: u32,
    /// Known A-P minefield factors (B28.45).
    pub known_factors: u32,
    /// Known A-T mine factors (B28.45: never exchanged with A-P ones).
    pub known_at_factors: u32,
    /// Dummy Minefield counters printed in the OB (B28.47); `None` when the
    /// OB allots none (then one per 24 Known factors set up).
    pub dummy_allotment: Option<u8>,
    /// Boards on which an SSR lets this side buy Booby Trap capability
    /// (B28.9).
    pub booby_trap_boards: Vec<u16>,
    /// Declared: this side need not capture terrain nor exit via a
    /// non-friendly edge to win, so it may buy Booby Traps on every board
    /// it may set up anywhere on (B28.9, ruling R15 in docs/RULINGS.md).
    pub booby_traps_as_defender: bool,
    /// Where the side sets up.
    pub setup_area: SetupArea,
}

impl SideOb {
    /// Boards on which this side may buy Booby Trap capability (B28.9),
    /// sorted.
    pub fn booby_boards(&self) -> Vec<u16> {
        let mut boards: BTreeSet<u16> = self.booby_trap_boards.iter().copied().collect();
        if self.booby_traps_as_defender {
            boards.extend(self.setup_area.boards.iter().copied());
        }
        boards.into_iter().collect()
    }
}

/// A scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    /// Its name.
    pub name: String,
    /// The map.
    pub map: Map,
    /// Special Scenario Rules.
    pub ssr: Ssr,
    /// Each side's OB.
    pub sides: BTreeMap<Side, SideOb>,
    /// Every unit, indexed by [`crate::model::unit::UnitId`] (file order).
    pub units: Vec<Unit>,
    /// The side that moves first.
    pub first_phasing: Option<Side>,
    /// Number of Game Turns.
    pub turns: u16,
    /// Victory conditions (`[victory]`), judged at the end of the last
    /// Game Turn; `None`: the game ends without a winner.
    #[serde(default)]
    pub victory: Option<crate::model::victory::Victory>,
    /// Rules-data tables the scenario supplies in place of the shipped
    /// ones (`[tables]`, R12; [`hexveil_core::tables`]).
    #[serde(default)]
    pub tables: hexveil_core::SuppliedTables,
    /// The ruleset version the game is played under (PROTOCOL.md 12.5).
    /// Not read from the file: a scenario loads at the newest version, and
    /// [`crate::ruleset`] sets an older one when a game of that version is
    /// replayed, so its log still verifies (G5, G6). Version 1 asks a
    /// step's exit roll first (before R70); version 2 keeps the rulings
    /// before R71-R80 ([`Scenario::since`]).
    #[serde(skip)]
    pub version: Version,
}

/// Why a scenario file could not be loaded. Each names the field and the
/// value that is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// The text is not TOML (or JSON) of the scenario's shape.
    #[error("scenario is not readable: {0}")]
    Syntax(String),
    /// A field holds a value the rules do not allow.
    #[error("scenario field {field} = {value}: {why}")]
    Invalid {
        /// Path of the field, e.g. `units[3].strength`.
        field: String,
        /// The offending value as written.
        value: String,
        /// What is wrong with it.
        why: String,
    },
}

fn invalid(
    field: impl Into<String>,
    value: impl ToString,
    why: impl Into<String>,
) -> ScenarioError {
    ScenarioError::Invalid {
        field: field.into(),
        value: value.to_string(),
        why: why.into(),
    }
}

// ---------------------------------------------------------------------------
// File form.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    /// The ruleset the file is for, if it says (`asl`); any other is refused.
    #[serde(default)]
    ruleset: Option<String>,
    name: String,
    map: Value,
    #[serde(default)]
    ssr: Ssr,
    sides: BTreeMap<String, Value>,
    #[serde(default)]
    units: Vec<Value>,
    first: String,
    turns: u16,
    #[serde(default)]
    victory: Option<Value>,
    #[serde(default)]
    tables: hexveil_core::SuppliedTables,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SideFile {
    nationality: String,
    elr: u8,
    #[serde(default)]
    elr_by_ssr: bool,
    #[serde(default)]
    ammunition_shortage: bool,
    #[serde(default)]
    minefield_factors: u32,
    #[serde(default)]
    known_factors: u32,
    #[serde(default)]
    known_at_factors: u32,
    #[serde(default)]
    dummy_allotment: Option<u8>,
    #[serde(default)]
    booby_trap_boards: Vec<u16>,
    #[serde(default)]
    booby_traps_as_defender: bool,
    #[serde(default)]
    daisy_chains: Vec<DaisyFile>,
    #[serde(default)]
    sappers: Vec<String>,
    #[serde(default)]
    setup_area: SetupAreaFile,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SetupAreaFile {
    #[serde(default)]
    boards: Vec<u16>,
    #[serde(default)]
    hexes: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DaisyFile {
    holder: String,
    factors: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitFile {
    name: String,
    side: String,
    kind: String,
    #[serde(default)]
    strength: Option<String>,
    #[serde(default)]
    underscored: bool,
    #[serde(default)]
    class: Option<String>,
    #[serde(default)]
    traits: Vec<String>,
    #[serde(default)]
    nationality: Option<String>,
    #[serde(default)]
    hex: Option<String>,
    #[serde(default)]
    vehicle: Option<VehicleFile>,
    /// A Gun's data (kind `gun`).
    #[serde(default)]
    gun: Option<OrdnanceFile>,
    /// Facing (C3.2): a hexspine `e`, `sse`, `ssw`, `w`, `nnw`, `nne`, or a
    /// hexside `n`, `ne`, `se`, `s`, `sw`, `nw` (ambiguous: the opponent
    /// picks one of its two hexspines).
    #[serde(default)]
    ca: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrdnanceFile {
    calibre_mm: u16,
    #[serde(default)]
    suffix: String,
    colour: String,
    #[serde(default)]
    he_fp: Option<u8>,
    ammo: Vec<String>,
    #[serde(default)]
    mortar: bool,
    #[serde(default)]
    turreted: bool,
    max_range: u16,
    #[serde(default)]
    multi_tk: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VehicleFile {
    #[serde(default)]
    hull: Option<HullArmor>,
    #[serde(default)]
    aerial_af: Option<u8>,
    #[serde(default)]
    fully_tracked: bool,
    #[serde(default)]
    motorcycle: bool,
    #[serde(default)]
    wagon: bool,
    #[serde(default)]
    open_topped: bool,
    #[serde(default)]
    flail: bool,
    #[serde(default)]
    printed_mp: u8,
    #[serde(default)]
    passengers: Vec<String>,
    #[serde(default)]
    riders: Vec<String>,
    #[serde(default)]
    ordnance: Option<OrdnanceFile>,
    #[serde(default)]
    size_drm: i8,
    #[serde(default)]
    hull_down: bool,
    #[serde(default)]
    turret: Option<HullArmor>,
}

/// Reads a Gun's or vehicle's ordnance (C3, C4).
fn parse_ordnance(field: &str, o: OrdnanceFile) -> Result<Ordnance, ScenarioError> {
    let suffix = match o.suffix.as_str() {
        "" => Suffix::None,
        "*" => Suffix::Star,
        "L" => Suffix::L,
        "LL" => Suffix::Ll,
        other => {
            return Err(invalid(
                format!("{field}.suffix"),
                format!("{other:?}"),
                "a barrel suffix is \"\", \"*\", \"L\" or \"LL\" (C4.1)",
            ))
        }
    };
    let colour = match o.colour.as_str() {
        "red" => ThColour::Red,
        "black" => ThColour::Black,
        other => {
            return Err(invalid(
                format!("{field}.colour"),
                format!("{other:?}"),
                "the Basic TH# colour is \"red\" or \"black\" (C3.3, A25)",
            ))
        }
    };
    if o.calibre_mm == 0 {
        return Err(invalid(
            format!("{field}.calibre_mm"),
            0,
            "a calibre is at least 1 mm",
        ));
    }
    if o.max_range == 0 {
        return Err(invalid(
            format!("{field}.max_range"),
            0,
            "a listed range is at least 1 hex (C3.52)",
        ));
    }
    let mut ammo = BTreeSet::new();
    for (j, a) in o.ammo.iter().enumerate() {
        let am = Ammo::parse(a).ok_or_else(|| {
            invalid(
                format!("{field}.ammo[{j}]"),
                format!("{a:?}"),
                "ammunition is one of HE, AP, HEAT, APCR, APDS, SMOKE, WP",
            )
        })?;
        ammo.insert(am);
    }
    if ammo.contains(&Ammo::He) && o.he_fp.is_none_or(|f| f == 0) {
        return Err(invalid(
            format!("{field}.he_fp"),
            "nothing",
            "a weapon firing HE needs the FP of its HE (its IFT column, C3.32)",
        ));
    }
    Ok(Ordnance {
        calibre_mm: o.calibre_mm,
        suffix,
        colour,
        he_fp: o.he_fp,
        ammo,
        mortar: o.mortar,
        turreted: o.turreted,
        max_range: o.max_range,
        multi_tk: o.multi_tk,
    })
}

/// Reads a facing: a hexspine (definite CA) or a hexside (ambiguous, C3.2).
fn parse_facing(field: &str, s: &str) -> Result<Facing, ScenarioError> {
    if let Some(spine) = Spine::parse(s) {
        return Ok(Facing::Spine(spine));
    }
    if let Some(d) = Direction::parse(s) {
        return Ok(Facing::Hexside(d));
    }
    Err(invalid(
        field,
        format!("{s:?}"),
        "a facing is a hexspine (e, sse, ssw, w, nnw, nne) or a hexside (n, ne, se, s, sw, nw) (C3.2)",
    ))
}

/// Reads a side name `A` or `B`.
pub fn parse_side(field: &str, s: &str) -> Result<Side, ScenarioError> {
    match s.trim() {
        "A" | "a" => Ok(Side::A),
        "B" | "b" => Ok(Side::B),
        _ => Err(invalid(field, format!("{s:?}"), "a side is \"A\" or \"B\"")),
    }
}

/// Reads a hex name, naming the field on error.
pub fn parse_hex(field: &str, s: &str) -> Result<Hex, ScenarioError> {
    s.parse::<Hex>()
        .map_err(|e| invalid(field, format!("{s:?}"), e.to_string()))
}

fn from_value<T: serde::de::DeserializeOwned>(field: &str, v: Value) -> Result<T, ScenarioError> {
    serde_json::from_value(v).map_err(|e| ScenarioError::Syntax(format!("{field}: {e}")))
}

fn parse_class(field: &str, s: &str) -> Result<Class, ScenarioError> {
    Ok(match s {
        "elite" => Class::Elite,
        "first_line" => Class::FirstLine,
        "second_line" => Class::SecondLine,
        "green" => Class::Green,
        "conscript" => Class::Conscript,
        _ => {
            return Err(invalid(
                field,
                format!("{s:?}"),
                "class is one of elite, first_line, second_line, green, conscript",
            ))
        }
    })
}

fn parse_trait(field: &str, s: &str) -> Result<Trait, ScenarioError> {
    Ok(match s {
        "ss" => Trait::Ss,
        "gurkha" => Trait::Gurkha,
        "us_marine" => Trait::UsMarine,
        "partisan" => Trait::Partisan,
        "commissar" => Trait::Commissar,
        "hero" => Trait::Hero,
        "fanatic" => Trait::Fanatic,
        "unarmed" => Trait::Unarmed,
        "sapper" => Trait::Sapper,
        "cavalry" => Trait::Cavalry,
        "berserk" => Trait::Berserk,
        _ => {
            return Err(invalid(
                field,
                format!("{s:?}"),
                "trait is one of ss, gurkha, us_marine, partisan, commissar, hero, fanatic, \
                 unarmed, sapper, cavalry, berserk",
            ))
        }
    })
}

/// Reads a leader's rating `9-2`, `8-0`, `6+1` (morale, leadership DRM).
fn parse_leader(field: &str, s: &str) -> Result<Leader, ScenarioError> {
    let bad = || {
        invalid(
            field,
            format!("{s:?}"),
            "a leader is rated like 9-2, 8-0 or 6+1",
        )
    };
    let (m, l, sign) = if let Some((m, l)) = s.split_once('-') {
        (m, l, -1)
    } else if let Some((m, l)) = s.split_once('+') {
        (m, l, 1)
    } else {
        return Err(bad());
    };
    let morale: u8 = m.trim().parse().map_err(|_| bad())?;
    let lead: i8 = l.trim().parse().map_err(|_| bad())?;
    if !(1..=10).contains(&morale) || !(0..=6).contains(&lead) {
        return Err(bad());
    }
    Ok(Leader {
        morale,
        leadership: sign * lead,
    })
}

fn parse_strength(field: &str, s: &str) -> Result<Strength, ScenarioError> {
    let st: Strength = s
        .parse()
        .map_err(|e: String| invalid(field, format!("{s:?}"), e))?;
    if !(1..=10).contains(&st.morale) {
        return Err(invalid(
            field,
            format!("{s:?}"),
            "the Morale Level must be 1..=10",
        ));
    }
    Ok(st)
}

/// What a scenario must hold at its ruleset version beyond what loading
/// checks: from version 3 every leader is on the Replacement ladder
/// (A19.13), since any MC it fails beyond its ELR would need its lower
/// quality and a ruling may not wait until then to find it missing (R41,
/// R72, as R44 does for squads).
pub fn check_for_version(scenario: &Scenario) -> Result<(), ScenarioError> {
    if !scenario.since(3) {
        return Ok(());
    }
    for (i, u) in scenario.units.iter().enumerate() {
        if let Some(l) = u.leader() {
            if let Err(e) = crate::a::elr::lower_leader(*l) {
                return Err(invalid(
                    format!("units[{i}].strength ({})", u.name),
                    l,
                    format!("{} (R41, R72)", e.reason),
                ));
            }
        }
    }
    Ok(())
}

/// The newest ASL ruleset version, which new games are made at
/// ([`crate::ruleset::VERSION`]).
pub const LATEST_VERSION: u32 = 3;

/// A game's ASL ruleset version ([`Scenario::version`]); the newest
/// unless a game of an older one is replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32);

impl Default for Version {
    fn default() -> Version {
        Version(LATEST_VERSION)
    }
}

impl Scenario {
    /// Whether the game's ruleset version is `version` or newer: the rules
    /// a version brought apply to its games and later ones only.
    pub fn since(&self, version: u32) -> bool {
        self.version.0 >= version
    }

    /// Ruleset version 1's order for a step out of a hex that cannot
    /// attack: the exit's potential-attack roll before the entry's leaf,
    /// as before ruling R70.
    pub fn exit_roll_first(&self) -> bool {
        !self.since(2)
    }

    /// Loads a scenario from its TOML form (`docs/SCENARIO.md`).
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let value: Value =
            toml::from_str(text).map_err(|e| ScenarioError::Syntax(e.to_string()))?;
        Scenario::from_value(value)
    }

    /// Loads a scenario from the same structure as JSON (the rules oracle).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ScenarioError::Syntax(e.to_string()))?;
        Scenario::from_value(value)
    }

    /// Loads a scenario from its file structure as a JSON value.
    pub fn from_value(value: Value) -> Result<Scenario, ScenarioError> {
        let file: ScenarioFile = from_value("scenario", value)?;
        if let Some(id) = file.ruleset.as_deref().filter(|id| *id != "asl") {
            return Err(invalid(
                "ruleset",
                id,
                "this scenario is for another ruleset, not ASL (\"asl\")",
            ));
        }

        // Map: the board helper's serde form (docs/SCENARIO.md). Each hex
        // entry is read on its own first, so an error names the hex.
        if let Some(Value::Object(hexes)) = file.map.get("hexes") {
            for (name, entry) in hexes {
                let field = format!("map.hexes.\"{name}\"");
                parse_hex(&field, name)?;
                serde_json::from_value::<HexInfo>(entry.clone())
                    .map_err(|e| invalid(field, entry, e.to_string()))?;
            }
        }
        let map: Map = serde_json::from_value(file.map)
            .map_err(|e| ScenarioError::Syntax(format!("map: {e}")))?;
        map.validate()
            .map_err(|e| invalid("map", "the map", e.to_string()))?;

        // Units, in file order: UnitId = index.
        let mut units: Vec<Unit> = Vec::new();
        let mut vehicle_files: Vec<(usize, VehicleFile)> = Vec::new();
        let mut by_name: BTreeMap<String, UnitId> = BTreeMap::new();
        for (i, raw) in file.units.into_iter().enumerate() {
            let field = format!("units[{i}]");
            let uf: UnitFile = from_value(&field, raw)?;
            let side = parse_side(&format!("{field}.side"), &uf.side)?;
            let id = UnitId(i as u16);
            if by_name.insert(uf.name.clone(), id).is_some() {
                return Err(invalid(
                    format!("{field}.name"),
                    format!("{:?}", uf.name),
                    "two units have this name",
                ));
            }
            let f = |s: &str| format!("{field}.{s} ({})", uf.name);
            let size = match uf.kind.as_str() {
                "squad" => Some(InfantrySize::Squad),
                "half_squad" | "hs" => Some(InfantrySize::HalfSquad),
                "crew" => Some(InfantrySize::Crew),
                "leader" | "vehicle" | "gun" => None,
                other => {
                    return Err(invalid(
                        f("kind"),
                        format!("{other:?}"),
                        "kind is one of squad, half_squad, crew, leader, vehicle, gun",
                    ))
                }
            };
            if uf.gun.is_some() && uf.kind != "gun" {
                return Err(invalid(
                    f("gun"),
                    "a table",
                    "only a unit of kind gun has gun data",
                ));
            }
            if uf.ca.is_some() && uf.kind != "gun" && uf.kind != "vehicle" {
                return Err(invalid(
                    f("ca"),
                    format!("{:?}", uf.ca.as_deref().unwrap_or("")),
                    "only a vehicle or a Gun has a Covered Arc (C3.2)",
                ));
            }
            if uf.vehicle.is_some() && uf.kind != "vehicle" {
                return Err(invalid(
                    f("vehicle"),
                    "a table",
                    "only a unit of kind vehicle has vehicle data",
                ));
            }
            let kind = if let Some(size) = size {
                let s = uf.strength.as_deref().ok_or_else(|| {
                    invalid(
                        f("strength"),
                        "nothing",
                        "Infantry needs a strength like 4-6-7",
                    )
                })?;
                let class = match uf.class.as_deref() {
                    Some(c) => parse_class(&f("class"), c)?,
                    None if size == InfantrySize::Crew => Class::SecondLine,
                    None => {
                        return Err(invalid(
                            f("class"),
                            "nothing",
                            "a squad or half-squad needs its class (A19.1)",
                        ))
                    }
                };
                if size == InfantrySize::Crew && class.inexperienced() {
                    return Err(invalid(
                        f("class"),
                        format!("{class:?}"),
                        "a crew is never Green or Conscript (A19.2)",
                    ));
                }
                UnitKind::Infantry(Infantry {
                    size,
                    strength: parse_strength(&f("strength"), s)?,
                    underscored: uf.underscored,
                    class,
                })
            } else if uf.kind == "leader" {
                let s = uf.strength.as_deref().ok_or_else(|| {
                    invalid(f("strength"), "nothing", "a leader needs a rating like 9-2")
                })?;
                UnitKind::Leader(parse_leader(&f("strength"), s)?)
            } else if uf.kind == "gun" {
                let g = uf.gun.ok_or_else(|| {
                    invalid(f("gun"), "nothing", "a Gun needs a [units.gun] table")
                })?;
                UnitKind::Gun(Gun {
                    ordnance: parse_ordnance(&f("gun"), g)?,
                })
            } else {
                let v = uf.vehicle.ok_or_else(|| {
                    invalid(
                        f("vehicle"),
                        "nothing",
                        "a vehicle needs a [units.vehicle] table",
                    )
                })?;
                let mut v = v;
                let ordnance = match v.ordnance.take() {
                    Some(o) => Some(parse_ordnance(&f("vehicle.ordnance"), o)?),
                    None => None,
                };
                if !(-3..=3).contains(&v.size_drm) {
                    return Err(invalid(
                        f("vehicle.size_drm"),
                        v.size_drm,
                        "a Target Size DRM is -3..=3 (C3.32 EX)",
                    ));
                }
                let kind = UnitKind::Vehicle(Vehicle {
                    ordnance,
                    size_drm: v.size_drm,
                    hull_down: v.hull_down,
                    hull: v.hull,
                    turret: v.turret,
                    aerial_af: v.aerial_af,
                    fully_tracked: v.fully_tracked,
                    motorcycle: v.motorcycle,
                    wagon: v.wagon,
                    open_topped: v.open_topped,
                    flail: v.flail,
                    printed_mp: v.printed_mp,
                    immobilized: false,
                    passengers: Vec::new(),
                    riders: Vec::new(),
                });
                vehicle_files.push((i, v));
                kind
            };
            let mut traits = BTreeSet::new();
            for (j, t) in uf.traits.iter().enumerate() {
                traits.insert(parse_trait(&format!("{field}.traits[{j}]"), t)?);
            }
            let hex = match &uf.hex {
                Some(h) => {
                    let hex = parse_hex(&f("hex"), h)?;
                    if !map.contains(hex) {
                        return Err(invalid(f("hex"), h, "not on a board of the map"));
                    }
                    Some(hex)
                }
                None => None,
            };
            let facing = match &uf.ca {
                Some(c) => Some(parse_facing(&f("ca"), c)?),
                None => None,
            };
            units.push(Unit {
                id,
                name: uf.name.clone(),
                side,
                nationality: uf.nationality.unwrap_or_default(),
                kind,
                traits,
                hex,
                status: Status {
                    facing,
                    ..Status::default()
                },
                daisy_chain: None,
            });
        }
        let lookup = |field: &str, name: &str| {
            by_name
                .get(name)
                .copied()
                .ok_or_else(|| invalid(field, format!("{name:?}"), "no unit has this name"))
        };
        // Passengers and riders (B28.43).
        for (i, v) in vehicle_files {
            let vid = units[i].id;
            let vside = units[i].side;
            let mut carried = (Vec::new(), Vec::new());
            for (list, out, what) in [
                (&v.passengers, &mut carried.0, "passengers"),
                (&v.riders, &mut carried.1, "riders"),
            ] {
                for (j, name) in list.iter().enumerate() {
                    let field = format!("units[{i}].vehicle.{what}[{j}]");
                    let pid = lookup(&field, name)?;
                    let p = &units[pid.0 as usize];
                    if !p.is_personnel() || p.side != vside {
                        return Err(invalid(
                            field,
                            format!("{name:?}"),
                            "must be Personnel of the vehicle's side",
                        ));
                    }
                    if p.status.aboard.is_some() {
                        return Err(invalid(
                            field,
                            format!("{name:?}"),
                            "already aboard a vehicle",
                        ));
                    }
                    out.push(pid);
                    let vhex = units[i].hex;
                    let p = &mut units[pid.0 as usize];
                    p.status.aboard = Some(vid);
                    p.hex = vhex;
                }
            }
            if let UnitKind::Vehicle(veh) = &mut units[i].kind {
                veh.passengers = carried.0;
                veh.riders = carried.1;
            }
        }

        // Sides.
        let mut sides = BTreeMap::new();
        for (key, raw) in file.sides {
            let side = parse_side(&format!("sides.{key}"), &key)?;
            let field = format!("sides.{key}");
            let sf: SideFile = from_value(&field, raw)?;
            if sf.elr > 5 {
                return Err(invalid(
                    format!("{field}.elr"),
                    sf.elr,
                    "an ELR is 0..=5 (A19.1)",
                ));
            }
            for b in sf.booby_trap_boards.iter().chain(&sf.setup_area.boards) {
                if !map.boards.contains(b) {
                    return Err(invalid(field.clone(), b, "board is not in map.boards"));
                }
            }
            let mut area_hexes = Vec::new();
            for (j, h) in sf.setup_area.hexes.iter().enumerate() {
                let f = format!("{field}.setup_area.hexes[{j}]");
                let hex = parse_hex(&f, h)?;
                if !map.contains(hex) {
                    return Err(invalid(f, h, "not on a board of the map"));
                }
                area_hexes.push(hex);
            }
            for (j, d) in sf.daisy_chains.iter().enumerate() {
                let f = format!("{field}.daisy_chains[{j}]");
                let id = lookup(&format!("{f}.holder"), &d.holder)?;
                if crate::model::sealed::AtFactors::new(d.factors).is_none() {
                    return Err(invalid(
                        format!("{f}.factors"),
                        d.factors,
                        "a Daisy Chain holds 1..=5 A-T factors (B28.5, B28.531)",
                    ));
                }
                let u = &mut units[id.0 as usize];
                if u.side != side || u.infantry().is_none() {
                    return Err(invalid(
                        format!("{f}.holder"),
                        format!("{:?}", d.holder),
                        "a Daisy Chain is held by an Infantry unit of its side (B28.531)",
                    ));
                }
                if u.daisy_chain.is_some() {
                    return Err(invalid(
                        format!("{f}.holder"),
                        format!("{:?}", d.holder),
                        "this unit already holds a Daisy Chain",
                    ));
                }
                u.daisy_chain = Some(d.factors);
            }
            for (j, name) in sf.sappers.iter().enumerate() {
                let f = format!("{field}.sappers[{j}]");
                let id = lookup(&f, name)?;
                let u = &mut units[id.0 as usize];
                let mmc = matches!(
                    u.infantry().map(|i| i.size),
                    Some(InfantrySize::Squad | InfantrySize::HalfSquad)
                );
                if u.side != side || !mmc {
                    return Err(invalid(
                        f,
                        format!("{name:?}"),
                        "Sappers are squads or half-squads of their side (B28.8)",
                    ));
                }
                u.traits.insert(Trait::Sapper);
            }
            let ob = SideOb {
                nationality: sf.nationality,
                elr: sf.elr,
                elr_by_ssr: sf.elr_by_ssr,
                ammunition_shortage: sf.ammunition_shortage,
                minefield_factors: sf.minefield_factors,
                known_factors: sf.known_factors,
                known_at_factors: sf.known_at_factors,
                dummy_allotment: sf.dummy_allotment,
                booby_trap_boards: sf.booby_trap_boards,
                booby_traps_as_defender: sf.booby_traps_as_defender,
                setup_area: SetupArea {
                    boards: sf.setup_area.boards,
                    hexes: area_hexes,
                },
            };
            if sides.insert(side, ob).is_some() {
                return Err(invalid(field, key, "side given twice"));
            }
        }
        for side in [Side::A, Side::B] {
            if !sides.contains_key(&side) {
                return Err(invalid(
                    format!("sides.{side}"),
                    "nothing",
                    "both sides A and B must be described",
                ));
            }
        }
        for (i, u) in units.iter_mut().enumerate() {
            if u.nationality.is_empty() {
                u.nationality = sides[&u.side].nationality.clone();
            }
            // Any MC failed by more than the ELR, or a Casualty Reduction,
            // needs the unit's replacement row (A19.13): say at load that
            // it is missing, not as a void ruling mid-game (R12, R44).
            if let Some(inf) = u.infantry().filter(|i| i.size != InfantrySize::Crew) {
                if crate::a::elr::row_of(u, inf).is_err() {
                    return Err(invalid(
                        format!("units[{i}].strength ({})", u.name),
                        inf.strength,
                        format!(
                            "elr_replacement.csv has no row for a {:?} {} {}, so a failed MC could not replace it (A19.13, R12); use a unit of the table",
                            u.nationality,
                            inf.strength,
                            match inf.size {
                                InfantrySize::Squad => "squad",
                                _ => "half-squad",
                            },
                        ),
                    ));
                }
            }
        }
        let first = parse_side("first", &file.first)?;
        if file.turns == 0 {
            return Err(invalid(
                "turns",
                0,
                "a scenario lasts at least one Game Turn",
            ));
        }
        let victory = match file.victory {
            None => None,
            Some(v) => Some(crate::model::victory::parse(&map, v)?),
        };
        Ok(Scenario {
            victory,
            name: file.name,
            map,
            ssr: file.ssr,
            sides,
            units,
            first_phasing: Some(first),
            turns: file.turns,
            tables: file.tables,
            version: Version::default(),
        })
    }

    /// The OB of a side. Every loaded scenario has both.
    pub fn side(&self, side: Side) -> &SideOb {
        static EMPTY: std::sync::OnceLock<SideOb> = std::sync::OnceLock::new();
        self.sides
            .get(&side)
            .unwrap_or_else(|| EMPTY.get_or_init(SideOb::default))
    }

    /// The id of the unit with this name.
    pub fn unit_named(&self, name: &str) -> Option<UnitId> {
        self.units.iter().find(|u| u.name == name).map(|u| u.id)
    }

    /// The side that moves first (A when the scenario does not say).
    pub fn first_side(&self) -> Side {
        self.first_phasing.unwrap_or(Side::A)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../../../examples/scenario.toml");

    #[test]
    fn example_scenario_loads_with_ids_in_file_order() {
        let s = Scenario::from_toml(EXAMPLE).unwrap();
        for (i, u) in s.units.iter().enumerate() {
            assert_eq!(u.id, UnitId(i as u16));
        }
        assert_eq!(s.sides.len(), 2);
        assert!(s.turns >= 1);
    }

    fn with(replace: &str, by: &str) -> Result<Scenario, ScenarioError> {
        assert!(EXAMPLE.contains(replace), "example lacks {replace}");
        Scenario::from_toml(&EXAMPLE.replacen(replace, by, 1))
    }

    #[test]
    fn unknown_terrain_names_hex_and_value() {
        let e = with("terrain = \"woods\"", "terrain = \"swamp\"").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("map.hexes"), "{msg}");
        assert!(msg.contains("swamp"), "{msg}");
    }

    #[test]
    fn bad_strength_names_unit() {
        let e = with("strength = \"4-6-7\"", "strength = \"4-6\"").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("strength"), "{msg}");
        assert!(msg.contains("4-6"), "{msg}");
    }

    #[test]
    fn a19_13_r12_infantry_without_a_replacement_row_is_refused_at_load() {
        let e = with("strength = \"2-4-7\"", "strength = \"2-6-7\"").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("ger-hs-1"), "{msg}");
        assert!(msg.contains("\"German\" 2-6-7 half-squad"), "{msg}");
        assert!(msg.contains("R12"), "{msg}");
        // A nationality the table does not know is the same problem.
        let e = with("nationality = \"German\"", "nationality = \"Martian\"").unwrap_err();
        assert!(e.to_string().contains("\"Martian\" 4-6-7 squad"), "{e}");
    }

    #[test]
    fn r4_missing_aerial_af_loads() {
        let s = with("aerial_af = 2\n", "").unwrap();
        assert!(s
            .units
            .iter()
            .filter_map(|u| u.vehicle())
            .any(|v| v.aerial_af.is_none()));
    }

    #[test]
    fn a19_1_elr_above_five_is_refused() {
        let e = with("elr = 3", "elr = 6").unwrap_err();
        assert!(e.to_string().contains("elr"), "{e}");
    }

    #[test]
    fn leader_ratings_read() {
        assert_eq!(parse_leader("x", "9-2").unwrap().leadership, -2);
        assert_eq!(parse_leader("x", "6+1").unwrap().leadership, 1);
        assert!(parse_leader("x", "9").is_err());
    }
}
