//! The rules: public checks before anything is asked, and the resolution
//! of each action over the answers given so far (seed 004 and rulings R8,
//! R9, R10, R12, R45-R50 proposed in the crate README).

use crate::action::{Action, MineKind};
use crate::content::CellMines;
use crate::event::{encode_event, MinisEvent, VehicleResult};
use crate::geom::{
    at_most, path_length_in, path_pieces, stretch_length_in, strip_touches, whole_inches_up, Cell,
    Piece, Point, TENTHS,
};
use crate::scenario::{mines_layer, si, FigureKind, MinisScenario};
use crate::state::{GameState, Laying, Status};
use hexveil_core::{
    Answers, Content, DiceKind, DiceSpec, Event, EventKind, Fact, FactRequest, Interrupt, Location,
    Outcome, Roll, RuleError, Side, Visibility,
};
use std::collections::{BTreeMap, BTreeSet};

/// Cite of the turn sequence (a design decision, docs/SCENARIO.md).
pub const TURNS: &str = "minis turn sequence";

type Res<T> = Result<T, Interrupt<FactRequest>>;

/// A resolution in progress: a copy of the state, the answers, the events.
pub struct Ctx<'a> {
    sc: &'a MinisScenario,
    state: GameState,
    actor: Side,
    answers: Answers<'a, Fact>,
    events: Vec<Event>,
}

impl<'a> Ctx<'a> {
    /// A resolution over these answers.
    pub fn new(
        sc: &'a MinisScenario,
        state: GameState,
        actor: Side,
        answers: Answers<'a, Fact>,
    ) -> Ctx<'a> {
        Ctx {
            sc,
            state,
            actor,
            answers,
            events: Vec::new(),
        }
    }

    /// Whether every answer was used.
    pub fn all_used(&self) -> bool {
        self.answers.all_used()
    }

    /// The new state and the events.
    pub fn finish(self) -> (GameState, Vec<Event>) {
        (self.state, self.events)
    }

    fn emit(&mut self, to: Visibility, e: MinisEvent, cite: &[&str]) {
        self.events.push(Event {
            to,
            kind: EventKind::Rules(encode_event(&e)),
            cite: cite.iter().map(|s| s.to_string()).collect(),
        });
    }

    fn public(&mut self, e: MinisEvent, cite: &[&str]) {
        self.emit(Visibility::Public, e, cite);
    }

    fn open(&mut self, reqs: Vec<FactRequest>) -> Res<Vec<Content>> {
        if reqs.is_empty() {
            return Ok(Vec::new());
        }
        let facts = self.answers.facts(reqs)?;
        let mut out = Vec::new();
        for f in facts {
            self.events.push(Event {
                to: Visibility::Referee,
                kind: EventKind::FactOpened {
                    request: f.request,
                    content: f.content,
                },
                cite: vec!["G4".into()],
            });
            out.push(f.content);
        }
        Ok(out)
    }

    fn roll(&mut self, specs: Vec<DiceSpec>) -> Res<Vec<Roll>> {
        if specs.is_empty() {
            return Ok(Vec::new());
        }
        let rolls = self.answers.dice(&specs)?;
        for (s, r) in specs.iter().zip(rolls) {
            self.events.push(Event {
                to: Visibility::Public,
                kind: EventKind::Dice {
                    purpose: s.purpose.clone(),
                    roll: *r,
                },
                cite: vec![s.cite.clone()],
            });
        }
        Ok(rolls.to_vec())
    }
}

fn refuse(reason: impl Into<String>, cite: &str) -> RuleError {
    RuleError::new(reason, cite)
}

fn spec(kind: DiceKind, purpose: String, cite: &str) -> DiceSpec {
    DiceSpec {
        kind,
        purpose,
        cite: cite.into(),
    }
}

/// The figure an action names, checked to be the actor's, able to act
/// this turn, and (for laying and clearing) Infantry.
fn actor_figure(
    sc: &MinisScenario,
    st: &GameState,
    actor: Side,
    name: &str,
    infantry_only: Option<&str>,
) -> Result<usize, RuleError> {
    let (id, f) = sc
        .figure_named(name)
        .ok_or_else(|| refuse(format!("no figure is named {name:?}"), TURNS))?;
    if st.active != actor {
        return Err(refuse(format!("it is side {}'s turn", st.active), TURNS));
    }
    if f.side != actor {
        return Err(refuse(format!("{name} is side {}'s figure", f.side), TURNS));
    }
    let fs = &st.figures[id];
    match fs.status {
        Status::Active => {}
        Status::Immobilized if infantry_only.is_none() => {
            return Err(refuse(
                format!("{name} is immobilized (tracks damaged)"),
                "seed 004 AFV vs A-T mine",
            ))
        }
        s => return Err(refuse(format!("{name} is out of action ({s:?})"), TURNS)),
    }
    if fs.moved {
        return Err(refuse(format!("{name} has already acted this turn"), TURNS));
    }
    if let Some(section) = infantry_only {
        if f.kind != FigureKind::Infantry {
            return Err(refuse(
                format!("only Infantry figures do this: {name} is not Infantry"),
                section,
            ));
        }
    }
    Ok(id)
}

/// The full path of a move: where the figure stands, then the waypoints
/// (a first waypoint equal to its position is left out).
pub(crate) fn full_path(from: Point, path: &[Point]) -> Vec<Point> {
    let mut v = vec![from];
    let skip = usize::from(path.first() == Some(&from));
    v.extend_from_slice(&path[skip..]);
    v
}

/// Whether a cell may hold mines, on public data: eligible for either
/// side's sealed layer, or holding open mines.
fn may_be_mined(sc: &MinisScenario, st: &GameState, c: Cell) -> bool {
    sc.is_eligible(Side::A, c)
        || sc.is_eligible(Side::B, c)
        || st.open.get(&c).is_some_and(|o| !o.is_empty())
}

/// Checks an action on public data only; a refusal here asks nothing.
pub fn check(
    sc: &MinisScenario,
    st: &GameState,
    actor: Side,
    action: &Action,
) -> Result<(), RuleError> {
    match action {
        Action::Move { figure, path } => {
            let id = actor_figure(sc, st, actor, figure, None)?;
            let f = &sc.figures[id];
            if let Some(p) = path.iter().find(|p| !sc.on_table(**p)) {
                return Err(refuse(
                    format!(
                        "the path leaves the {} x {} in table at {p}",
                        sc.width, sc.depth
                    ),
                    TURNS,
                ));
            }
            let pts = full_path(st.figures[id].pos, path);
            if pts.len() < 2 {
                return Err(refuse("a move needs a point to go to", TURNS));
            }
            let len = path_length_in(&pts);
            let allowance = f64::from(f.allowance) / f64::from(TENTHS);
            if !at_most(len, allowance) {
                return Err(refuse(
                    format!(
                        "{figure}'s path is {len:.2} in long; its move allowance is {} in",
                        crate::geom::fmt_tenths(i64::from(f.allowance))
                    ),
                    TURNS,
                ));
            }
            let pieces = path_pieces(&pts);
            let mined_len =
                stretch_length_in(pieces.iter().filter(|p| may_be_mined(sc, st, p.cell)));
            let max = sc.table().max_distance();
            if !at_most(mined_len, f64::from(max)) {
                return Err(refuse(
                    format!(
                        "the path runs {mined_len:.2} in through cells that may be mined; the detonation table ({}) has no row beyond {max} in",
                        crate::table::TABLE_FILE
                    ),
                    "R12",
                ));
            }
            if mined_len > 0.0 {
                let needs: &[(&str, Option<u8>)] = if f.kind.is_vehicle() {
                    &[("ap", sc.blast_saves.ap), ("at", sc.blast_saves.at)]
                } else {
                    &[("ap", sc.blast_saves.ap)]
                };
                if let Some((k, _)) = needs.iter().find(|(_, v)| v.is_none()) {
                    return Err(refuse(
                        format!(
                            "the scenario gives no blast save blast_saves.{k}, which a detonation on this path may need"
                        ),
                        "R10",
                    ));
                }
            }
            Ok(())
        }
        Action::Lay { figure, cell, kind } => {
            let id = actor_figure(sc, st, actor, figure, Some("seed 004 laying"))?;
            if !sc.cell_on_table(*cell) {
                return Err(refuse(
                    format!("{cell} is off the table"),
                    "seed 004 laying",
                ));
            }
            let pos = st.figures[id].pos;
            let (x0, y0) = (i32::from(cell.x) * TENTHS, i32::from(cell.y) * TENTHS);
            let near = (x0 - TENTHS..=x0 + 2 * TENTHS).contains(&pos.x)
                && (y0 - TENTHS..=y0 + 2 * TENTHS).contains(&pos.y);
            if !near {
                return Err(refuse(
                    format!("{figure} at {pos} is not in or next to {cell}"),
                    "R48",
                ));
            }
            let info = sc.side(actor);
            if *kind == MineKind::SMine && !info.german {
                return Err(refuse(
                    format!(
                        "side {actor} is {}: only German troops may lay S-mines",
                        info.nationality
                    ),
                    "seed 004 S-mines",
                ));
            }
            if let Some(stock) = info.stock {
                let laid = st.laid[si(actor)];
                let (used, have) = match kind {
                    MineKind::AntiPersonnel => (laid.ap, stock.ap),
                    MineKind::AntiTank => (laid.at, stock.at),
                    MineKind::SMine => (laid.s, stock.s),
                };
                if used >= have {
                    return Err(refuse(
                        format!(
                            "side {actor} has no {} left to lay ({have} in its stock)",
                            kind.words()
                        ),
                        "seed 004 laying",
                    ));
                }
            }
            let mut o = st.open.get(cell).copied().unwrap_or_default();
            match kind {
                MineKind::AntiPersonnel => o.ap += 1,
                MineKind::SMine => o.s += 1,
                MineKind::AntiTank => o.at += 1,
            }
            // R78 (version 2): the hidden mines either side may have in
            // the cell, the open ones laid there so far and this one must
            // stay within the densities the table answers.
            if sc.version >= 2 {
                let start = sc.start_cap(*cell);
                let laid = u32::from(st.laid_cells.get(cell).copied().unwrap_or(0));
                let limit = sc.table().safe_limit();
                if start > 0 && start + laid + 1 > limit {
                    return Err(refuse(
                        format!(
                            "laying it could make {cell} hold {} mines per square inch (the hidden mines its mine areas allow, {laid} laid in play and this one); the detonation table ({}) answers densities 1 to {limit} only (R12)",
                            start + laid + 1,
                            crate::table::TABLE_FILE
                        ),
                        "R78",
                    ));
                }
            }
            for d in [o.ap + o.s, o.at, o.ap + o.s + o.at] {
                if d > 0 {
                    sc.table()
                        .density_usable(u32::from(d))
                        .map_err(|e| RuleError {
                            reason: format!(
                                "laying it would make {cell}'s open density {d}: {}",
                                e.reason
                            ),
                            cite: e.cite,
                        })?;
                }
            }
            Ok(())
        }
        Action::Clear { figure, to } => {
            let id = actor_figure(sc, st, actor, figure, Some("seed 004 clearing"))?;
            if !sc.on_table(*to) {
                return Err(refuse(
                    format!("{to} is off the table"),
                    "seed 004 clearing",
                ));
            }
            let from = st.figures[id].pos;
            let d2 = from.dist2(*to);
            if d2 == 0 || d2 > i64::from(TENTHS * TENTHS) {
                return Err(refuse(
                    format!("clearing moves more than 0 and at most 1 in in a straight line ({from} to {to})"),
                    "seed 004 clearing",
                ));
            }
            Ok(())
        }
        Action::EndTurn => {
            if st.active != actor {
                return Err(refuse(format!("it is side {}'s turn", st.active), TURNS));
            }
            Ok(())
        }
        Action::Concede => Ok(()),
    }
}

/// The mines of one cell, from every source (both sides' hidden mines and
/// the open ones): mines do not choose whom they hit (R50).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Mix {
    plain: u32,
    s: u32,
    at: u32,
}

impl Mix {
    fn add_hidden(&mut self, m: CellMines) {
        if m.s {
            self.s += u32::from(m.ap);
        } else {
            self.plain += u32::from(m.ap);
        }
        self.at += u32::from(m.at);
    }

    /// The density a figure rolls against here (seed 004 who triggers):
    /// vehicles A-P + A-T, Infantry A-P only.
    fn density_for(&self, vehicle: bool) -> u32 {
        if vehicle {
            self.plain + self.s + self.at
        } else {
            self.plain + self.s
        }
    }
}

/// Which mine went off in a cell: one type if only one can trigger, else
/// decided by a second percentile (R45).
fn mine_choices(m: &Mix, vehicle: bool) -> Vec<(MineKind, u32)> {
    let mut v = Vec::new();
    if vehicle && m.at > 0 {
        v.push((MineKind::AntiTank, m.at));
    }
    if m.s > 0 {
        v.push((MineKind::SMine, m.s));
    }
    if m.plain > 0 {
        v.push((MineKind::AntiPersonnel, m.plain));
    }
    v
}

/// Resolves an action checked by [`check`], as far as the answers allow.
pub fn resolve(ctx: &mut Ctx, action: &Action) -> Res<()> {
    match action {
        Action::Move { figure, path } => resolve_move(ctx, figure, path),
        Action::Lay { figure, cell, kind } => {
            resolve_lay(ctx, figure, *cell, *kind);
            Ok(())
        }
        Action::Clear { figure, to } => resolve_clear(ctx, figure, *to),
        Action::EndTurn => {
            let st = &mut ctx.state;
            for f in &mut st.figures {
                f.moved = false;
            }
            let ended = st.active;
            if ended == Side::B {
                st.turn += 1;
            }
            st.active = ended.opponent();
            let (turn, next) = (st.turn, st.active);
            ctx.public(
                MinisEvent::TurnEnded {
                    side: ended,
                    turn,
                    next,
                },
                &[TURNS],
            );
            if turn > ctx.sc.turns {
                // R79: the scenario's victory conditions judge the end.
                let (outcome, cite) = match &ctx.sc.victory {
                    Some(v) => (
                        crate::victory::judge(ctx.sc, &ctx.state, v),
                        &[TURNS, "R79"][..],
                    ),
                    None => (
                        Outcome {
                            winner: None,
                            reason: "the last turn is over".to_string(),
                        },
                        &[TURNS][..],
                    ),
                };
                ctx.state.outcome = Some(outcome.clone());
                ctx.public(
                    MinisEvent::GameOver {
                        winner: outcome.winner,
                        reason: outcome.reason,
                    },
                    cite,
                );
            }
            Ok(())
        }
        Action::Concede => {
            let side = ctx.actor;
            let reason = format!("side {side} conceded");
            ctx.state.outcome = Some(Outcome {
                winner: Some(side.opponent()),
                reason: reason.clone(),
            });
            ctx.public(MinisEvent::Conceded { side }, &[TURNS]);
            ctx.public(
                MinisEvent::GameOver {
                    winner: Some(side.opponent()),
                    reason,
                },
                &[TURNS],
            );
            Ok(())
        }
    }
}

fn request(owner: Side, c: Cell) -> FactRequest {
    FactRequest {
        owner,
        layer: mines_layer(),
        location: Location::key_of(&c.key()).expect("cell keys fit"),
    }
}

/// The requests for `cells` (in order): each side's eligible cells, A
/// before B in each cell. Public data only (G3).
pub(crate) fn requests_for(sc: &MinisScenario, cells: &[Cell]) -> Vec<FactRequest> {
    let mut v = Vec::new();
    for c in cells {
        for side in [Side::A, Side::B] {
            if sc.is_eligible(side, *c) {
                v.push(request(side, *c));
            }
        }
    }
    v
}

/// Opens `cells`' hidden mines and adds the open ones: the mix per cell.
fn mixes(ctx: &mut Ctx, cells: &[Cell]) -> Res<BTreeMap<Cell, Mix>> {
    let reqs = requests_for(ctx.sc, cells);
    let contents = ctx.open(reqs.clone())?;
    let mut out: BTreeMap<Cell, Mix> = BTreeMap::new();
    for c in cells {
        let m = out.entry(*c).or_default();
        if let Some(o) = ctx.state.open.get(c) {
            m.plain += u32::from(o.ap);
            m.s += u32::from(o.s);
            m.at += u32::from(o.at);
        }
    }
    for (r, content) in reqs.iter().zip(contents) {
        let cell = Cell::from_key(r.location.key()).expect("our own keys");
        let hidden = CellMines::decode(&content)
            .map_err(|e| Interrupt::Refuse(refuse(format!("{r}: {e}"), "G4")))?;
        out.entry(cell).or_default().add_hidden(hidden);
    }
    Ok(out)
}

fn resolve_move(ctx: &mut Ctx, name: &str, path: &[Point]) -> Res<()> {
    let sc = ctx.sc;
    let (id, fig) = sc.figure_named(name).expect("checked");
    let vehicle = fig.kind.is_vehicle();
    let from = ctx.state.figures[id].pos;
    let pts = full_path(from, path);
    let pieces = path_pieces(&pts);
    let mut seen = BTreeSet::new();
    let cells: Vec<Cell> = pieces
        .iter()
        .map(|p| p.cell)
        .filter(|c| seen.insert(*c))
        .collect();
    let crosses_mined = cells.iter().any(|c| may_be_mined(sc, &ctx.state, *c));
    let end = *pts.last().expect("two points");
    let mut stop = end;
    if crosses_mined {
        let mix = mixes(ctx, &cells)?;
        // seed 004 detonation roll, R9: rolled whenever the path crosses a
        // cell that may be mined, mined or not (G3).
        let roll = ctx.roll(vec![spec(
            DiceKind::Percentile,
            format!("detonation roll for {name}"),
            "seed 004 detonation roll",
        )])?[0];
        // seed 004 who triggers: the cells whose mines this figure sets off.
        let triggering: Vec<&Piece> = pieces
            .iter()
            .filter(|p| mix[&p.cell].density_for(vehicle) > 0)
            .collect();
        let distance = whole_inches_up(stretch_length_in(triggering.iter().copied()));
        let detonated = if distance == 0 {
            None
        } else {
            let density = triggering
                .iter()
                .map(|p| mix[&p.cell].density_for(vehicle))
                .max()
                .expect("some");
            let needed = sc
                .table()
                .needed(distance, density)
                .map_err(Interrupt::Refuse)?;
            if needed.detonates(roll.total()) {
                Some(*triggering.last().expect("some"))
            } else {
                None
            }
        };
        match detonated {
            None => {
                ctx.public(
                    MinisEvent::NoDetonation {
                        figure: name.into(),
                    },
                    &["seed 004 detonation roll", "R9"],
                );
            }
            Some(piece) => {
                stop = piece.exit;
                let m = mix[&piece.cell];
                let choices = mine_choices(&m, vehicle);
                let kind = if choices.len() == 1 {
                    choices[0].0
                } else {
                    let total: u32 = choices.iter().map(|c| c.1).sum();
                    let r = ctx.roll(vec![spec(
                        DiceKind::Percentile,
                        format!("which mine {name} set off in {}", piece.cell),
                        "R45",
                    )])?[0];
                    let mut acc = 0;
                    let mut chosen = choices.last().expect("some").0;
                    for (k, w) in &choices {
                        acc += w;
                        if u32::from(r.total()) * total <= 100 * acc {
                            chosen = *k;
                            break;
                        }
                    }
                    chosen
                };
                ctx.public(
                    MinisEvent::Detonation {
                        figure: name.into(),
                        mine: kind,
                        cell: piece.cell,
                        at: stop,
                    },
                    &[
                        "seed 004 detonation roll",
                        "seed 004 who triggers",
                        "R9",
                        "R46",
                    ],
                );
                ctx.public(
                    MinisEvent::Moved {
                        figure: name.into(),
                        from,
                        to: stop,
                    },
                    &["R46"],
                );
                let fs = &mut ctx.state.figures[id];
                fs.pos = stop;
                fs.moved = true;
                fs.laying = None;
                effects(ctx, id, kind, stop)?;
                return Ok(());
            }
        }
    }
    ctx.public(
        MinisEvent::Moved {
            figure: name.into(),
            from,
            to: stop,
        },
        &[TURNS],
    );
    let fs = &mut ctx.state.figures[id];
    fs.pos = stop;
    fs.moved = true;
    fs.laying = None;
    Ok(())
}

/// What a detonation does: to the vehicle that set it off, and to every
/// Infantry figure near it (seed 004 soft vehicles, AFV vs A-T mine, blast
/// radius, S-mines; R8, R10).
fn effects(ctx: &mut Ctx, id: usize, kind: MineKind, at: Point) -> Res<()> {
    let sc = ctx.sc;
    let fig = &sc.figures[id];
    let name = fig.name.clone();
    if fig.kind.is_vehicle() {
        if kind == MineKind::AntiTank {
            match fig.kind {
                FigureKind::Soft => {
                    ctx.state.figures[id].status = Status::Destroyed;
                    ctx.public(
                        MinisEvent::VehicleHit {
                            figure: name.clone(),
                            result: VehicleResult::Destroyed,
                        },
                        &["seed 004 soft vehicles"],
                    );
                    if let Some(towed) = &fig.towing {
                        let r = ctx.roll(vec![spec(
                            DiceKind::Dr,
                            format!("does {towed}, towed by {name}, survive"),
                            "seed 004 soft vehicles",
                        )])?[0];
                        let survived = r.total() >= 4;
                        ctx.state.figures[id].towed_lost = !survived;
                        ctx.public(
                            MinisEvent::TowedWeapon {
                                figure: name.clone(),
                                towed: towed.clone(),
                                survived,
                            },
                            &["seed 004 soft vehicles"],
                        );
                    }
                }
                _ => {
                    let r = ctx.roll(vec![spec(
                        DiceKind::Dr,
                        format!("A-T mine damage to {name}"),
                        "seed 004 AFV vs A-T mine",
                    )])?[0];
                    let result = match (fig.kv, r.total()) {
                        (_, 6) => VehicleResult::NoDamage,
                        (true, _) | (false, 4 | 5) => VehicleResult::Immobilized,
                        (false, _) => VehicleResult::Destroyed,
                    };
                    ctx.state.figures[id].status = match result {
                        VehicleResult::Destroyed => Status::Destroyed,
                        VehicleResult::Immobilized => Status::Immobilized,
                        VehicleResult::NoDamage => Status::Active,
                    };
                    ctx.public(
                        MinisEvent::VehicleHit {
                            figure: name.clone(),
                            result,
                        },
                        &["seed 004 AFV vs A-T mine"],
                    );
                }
            }
        } else {
            ctx.public(
                MinisEvent::VehicleHit {
                    figure: name.clone(),
                    result: VehicleResult::NoDamage,
                },
                &["seed 004 who triggers"],
            );
        }
    }
    // Infantry within reach, in figure order, each with its save.
    let mut caught: Vec<(usize, i64, u8)> = Vec::new();
    let (cite, rule): (&str, &str) = match kind {
        MineKind::SMine => ("seed 004 S-mines", "R8"),
        _ => ("seed 004 blast radius", "R10"),
    };
    for (j, f) in sc.figures.iter().enumerate() {
        if f.kind != FigureKind::Infantry || ctx.state.figures[j].status != Status::Active {
            continue;
        }
        let d2 = ctx.state.figures[j].pos.dist2(at);
        let t = i64::from(TENTHS);
        let needs = match kind {
            // R8: a distance on a band's end belongs to the nearer band.
            MineKind::SMine => match d2 {
                d if d <= (5 * t).pow(2) => Some(5),
                d if d <= (10 * t).pow(2) => Some(4),
                d if d <= (15 * t).pow(2) => Some(3),
                d if d <= (20 * t).pow(2) => Some(2),
                _ => None,
            },
            MineKind::AntiTank if d2 * 4 <= (3 * t).pow(2) => Some(blast_save(sc, "at")?),
            MineKind::AntiPersonnel if d2 <= t.pow(2) => Some(blast_save(sc, "ap")?),
            _ => None,
        };
        if let Some(n) = needs {
            caught.push((j, d2, n));
        }
    }
    let specs: Vec<DiceSpec> = caught
        .iter()
        .map(|(j, _, _)| {
            spec(
                DiceKind::Dr,
                format!("{} save for {}", kind.words(), sc.figures[*j].name),
                cite,
            )
        })
        .collect();
    let rolls = ctx.roll(specs)?;
    for ((j, d2, needs), r) in caught.into_iter().zip(rolls) {
        let saved = r.total() >= needs;
        if !saved {
            ctx.state.figures[j].status = Status::Removed;
            ctx.state.figures[j].laying = None;
        }
        ctx.public(
            MinisEvent::BlastSave {
                figure: sc.figures[j].name.clone(),
                distance_tenths: (d2 as f64).sqrt().round() as u32,
                needs,
                roll: r.total(),
                saved,
            },
            &[cite, rule],
        );
    }
    Ok(())
}

fn blast_save(sc: &MinisScenario, which: &str) -> Res<u8> {
    let v = if which == "at" {
        sc.blast_saves.at
    } else {
        sc.blast_saves.ap
    };
    v.ok_or_else(|| {
        Interrupt::Refuse(refuse(
            format!("the scenario gives no blast save blast_saves.{which}"),
            "R10",
        ))
    })
}

fn resolve_lay(ctx: &mut Ctx, name: &str, cell: Cell, kind: MineKind) {
    let (id, _) = ctx.sc.figure_named(name).expect("checked");
    let turn = ctx.state.turn;
    let side = ctx.actor;
    let fs = &mut ctx.state.figures[id];
    fs.moved = true;
    let second = fs
        .laying
        .is_some_and(|l| l.cell == cell && l.kind == kind && l.turn + 1 == turn);
    if !second {
        fs.laying = Some(Laying { cell, kind, turn });
        ctx.public(
            MinisEvent::LayingBegun {
                figure: name.into(),
                cell,
                kind,
            },
            &["seed 004 laying", "R48"],
        );
        return;
    }
    fs.laying = None;
    *ctx.state.laid_cells.entry(cell).or_default() += 1;
    let o = ctx.state.open.entry(cell).or_default();
    let laid = &mut ctx.state.laid[si(side)];
    let density = match kind {
        MineKind::AntiPersonnel => {
            o.ap += 1;
            laid.ap += 1;
            o.ap
        }
        MineKind::SMine => {
            o.s += 1;
            laid.s += 1;
            o.s
        }
        MineKind::AntiTank => {
            o.at += 1;
            laid.at += 1;
            o.at
        }
    };
    ctx.public(
        MinisEvent::MineLaid {
            figure: name.into(),
            cell,
            kind,
            density,
        },
        &["seed 004 laying", "R48"],
    );
}

/// The cells a clearing from `a` to `b` touches, row-major (R47).
pub fn cleared_cells(sc: &MinisScenario, a: Point, b: Point) -> Vec<Cell> {
    let lo = |v: i32| (v.div_euclid(TENTHS) - 1).max(0);
    let hi = |v: i32| v.div_euclid(TENTHS) + 1;
    let mut out = Vec::new();
    for y in lo(a.y.min(b.y))..=hi(a.y.max(b.y)) {
        for x in lo(a.x.min(b.x))..=hi(a.x.max(b.x)) {
            let (Ok(cx), Ok(cy)) = (u16::try_from(x), u16::try_from(y)) else {
                continue;
            };
            let c = Cell::new(cx, cy);
            if sc.cell_on_table(c) && strip_touches(a, b, c) {
                out.push(c);
            }
        }
    }
    out
}

fn resolve_clear(ctx: &mut Ctx, name: &str, to: Point) -> Res<()> {
    let sc = ctx.sc;
    let (id, _) = sc.figure_named(name).expect("checked");
    let from = ctx.state.figures[id].pos;
    let cells = cleared_cells(sc, from, to);
    // The hidden mines of every eligible cell touched, mined or not, are
    // opened for the referee and made empty (the traffic does not tell).
    let reqs = requests_for(sc, &cells);
    ctx.open(reqs.clone())?;
    for r in reqs {
        ctx.events.push(Event {
            to: Visibility::Referee,
            kind: EventKind::Transition {
                request: r,
                new_content: Content::EMPTY,
            },
            cite: vec!["seed 004 clearing".into(), "R47".into()],
        });
    }
    let mut open_removed = Vec::new();
    for c in &cells {
        ctx.state.laid_cells.remove(c);
        if ctx.state.open.remove(c).is_some_and(|o| !o.is_empty()) {
            open_removed.push(*c);
        }
    }
    ctx.public(
        MinisEvent::Cleared {
            figure: name.into(),
            cells,
            open_removed,
        },
        &["seed 004 clearing", "R47"],
    );
    ctx.public(
        MinisEvent::Moved {
            figure: name.into(),
            from,
            to,
        },
        &["seed 004 clearing"],
    );
    let fs = &mut ctx.state.figures[id];
    fs.pos = to;
    fs.moved = true;
    fs.laying = None;
    Ok(())
}

/// R78 (ruleset version 2): a move, lay or clearing refused after facts
/// were opened or dice rolled for it is consumed: nothing of it stands but
/// the rolls (public, as rolled) and the openings (the referee's); its
/// figure has acted this turn, so it cannot ask the same question again.
/// The public event names the figure only; the refusal's words, which may
/// depend on a hidden density, go to the referee's record (G3). `None`
/// for an action without a figure: nothing of theirs refuses after a die.
pub fn consumed(
    sc: &MinisScenario,
    before: &GameState,
    actor: Side,
    action: &Action,
    refusal: &RuleError,
    partial: Vec<Event>,
) -> Option<(GameState, Vec<Event>)> {
    let figure = match action {
        Action::Move { figure, .. } | Action::Lay { figure, .. } | Action::Clear { figure, .. } => {
            figure
        }
        Action::EndTurn | Action::Concede => return None,
    };
    let (id, _) = sc.figure_named(figure)?;
    let mut state = before.clone();
    state.figures[id].moved = true;
    let mut events: Vec<Event> = partial
        .into_iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Dice { .. } | EventKind::FactOpened { .. }
            )
        })
        .collect();
    let mut cite = vec!["R78".to_string()];
    cite.extend(refusal.cite.iter().cloned());
    events.push(Event {
        to: Visibility::Public,
        kind: EventKind::Rules(encode_event(&MinisEvent::Consumed {
            side: actor,
            figure: figure.clone(),
        })),
        cite: cite.clone(),
    });
    events.push(Event {
        to: Visibility::Referee,
        kind: EventKind::Rules(encode_event(&MinisEvent::ConsumedWhy {
            reason: refusal.reason.clone(),
        })),
        cite,
    });
    Some((state, events))
}
