//! ASL as a plug-in of the referee: the kernel's [`hexveil_core::Ruleset`]
//! traits over this crate's scenario, setups, layouts, standing orders and
//! [`Engine`]. Everything the protocol needs of ASL passes here, in the
//! kernel's terms: layer names, location keys, 8-byte contents
//! ([`crate::content`]), actions and events in postcard bytes.

use crate::content;
use crate::engine::{Engine, Step};
use crate::model::action::{decode_action, Action};
use crate::model::error::{ActionError, ProvideError};
use crate::model::event::{Event, EventKind};
use crate::model::scenario::Scenario;
use crate::model::sealed::{Fact, FactRequest, Layer, Location};
use crate::setup::{self, PublicSetup, SealedSetup};
use crate::side::Side;
use crate::standing_orders::{self, DaisyOrders};
use hexveil_core as kernel;
use hexveil_core::{DiceKind, DiceSpec, Roll};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The ruleset's id in a genesis.
pub const ID: &str = "asl";
/// The ruleset's version: bumped whenever a ruling could change. Version 3:
/// rulings R71-R80 (an action that could need rules data the game lacks is
/// refused before anything is asked, a late refusal consumes the action,
/// PRC survival and To Kill data a league supplies, a unit's own minefields
/// attack it, no move into an enemy-occupied hex nor fire into a friendly
/// one); version 2 ([`AslV2`]): ruling R70 (a step out of a hex that cannot
/// attack asks the hex entered before the exit's roll); version 1
/// ([`AslV1`]). The older versions are still played, for the games and
/// transcripts made with them.
pub const VERSION: u32 = crate::model::scenario::LATEST_VERSION;

/// ASL (B28 minefields, A19, the IFT), as the referee plugs it in.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asl;

impl kernel::Ruleset for Asl {
    fn id(&self) -> &'static str {
        ID
    }

    fn version(&self) -> u32 {
        VERSION
    }

    fn title(&self) -> &'static str {
        "Advanced Squad Leader: B28 minefields, A19 ELR, the IFT, C3 ordnance"
    }

    /// Every game of one scenario text shares one parse while any of them
    /// holds it ([`shared_scenario`]).
    fn load(&self, text: &str) -> Result<Arc<dyn kernel::Scenario>, String> {
        Ok(shared_scenario(text)?)
    }
}

/// ASL at ruleset version 2: the rules before rulings R71-R80, for the
/// games made before them (their logs hold void rulings where version 3
/// refuses before any die; the referee replays a log with the engine its
/// genesis names, G5).
#[derive(Clone, Copy, Debug, Default)]
pub struct AslV2;

impl kernel::Ruleset for AslV2 {
    fn id(&self) -> &'static str {
        ID
    }

    fn version(&self) -> u32 {
        2
    }

    fn title(&self) -> &'static str {
        "Advanced Squad Leader, version 2 (before rulings R71-R80)"
    }

    fn load(&self, text: &str) -> Result<Arc<dyn kernel::Scenario>, String> {
        Ok(shared_scenario_of(text, 2)?)
    }
}

/// ASL at ruleset version 1: the rules of [`AslV2`] but ruling R70, for the
/// games made before it (their logs ask the exit's roll first; the
/// referee replays a log with the engine its genesis names, G5).
#[derive(Clone, Copy, Debug, Default)]
pub struct AslV1;

impl kernel::Ruleset for AslV1 {
    fn id(&self) -> &'static str {
        ID
    }

    fn version(&self) -> u32 {
        1
    }

    fn title(&self) -> &'static str {
        "Advanced Squad Leader, version 1 (before ruling R70)"
    }

    fn load(&self, text: &str) -> Result<Arc<dyn kernel::Scenario>, String> {
        Ok(shared_scenario_of(text, 1)?)
    }
}

/// Scenarios parsed and still held by someone, by the ruleset version they
/// are played under and their text.
static SHARED: kernel::Shared<(u32, Box<str>), AslScenario> = kernel::Shared::new();

/// The scenario of `text`, parsed and checked, shared with every other
/// holder of the same text (issue 16: a server parsed the scenario once
/// per game, about 3 KiB a live game, the same for every game of a
/// league). A parse depends on the text alone and is never changed after
/// it, so a shared one rules exactly as its own copy would (G5).
pub fn shared_scenario(text: &str) -> Result<Arc<AslScenario>, String> {
    shared_scenario_of(text, VERSION)
}

/// As [`shared_scenario`], for the games of ruleset `version`.
fn shared_scenario_of(text: &str, version: u32) -> Result<Arc<AslScenario>, String> {
    let key = (version, Box::<str>::from(text));
    if let Some(s) = SHARED.get(&key) {
        return Ok(s);
    }
    // Parsed without the lock: another game's creation does not wait.
    let mut scenario = Scenario::from_toml(text).map_err(|e| e.to_string())?;
    scenario.version = crate::model::scenario::Version(version);
    crate::supplied::check(&scenario).map_err(|e| e.to_string())?;
    crate::model::scenario::check_for_version(&scenario).map_err(|e| e.to_string())?;
    let parsed = Arc::new(AslScenario {
        scenario: Arc::new(scenario),
    });
    Ok(SHARED.keep(key, parsed))
}

/// The kernel's form of an event: dice, openings, transitions and void
/// rulings in the kernel's own kinds, the rest as postcard bytes of
/// [`EventKind`].
pub fn event_to_kernel(e: &Event) -> kernel::Event {
    let kind = match &e.kind {
        EventKind::Dice { purpose, roll } => kernel::EventKind::Dice {
            purpose: purpose.clone(),
            roll: *roll,
        },
        EventKind::FactOpened { request, content } => kernel::EventKind::FactOpened {
            request: request.to_kernel(),
            content: content::to_kernel(content),
        },
        EventKind::Transition {
            request,
            new_content,
        } => kernel::EventKind::Transition {
            request: request.to_kernel(),
            new_content: content::to_kernel(new_content),
        },
        EventKind::Void { reason } => kernel::EventKind::Void {
            reason: reason.clone(),
        },
        other => kernel::EventKind::Rules(
            postcard::to_stdvec(other).expect("postcard into a Vec cannot fail"),
        ),
    };
    kernel::Event {
        to: e.to,
        kind,
        cite: e.cite.clone(),
    }
}

/// An ASL event from the kernel's form (what a client receives).
pub fn event_from_kernel(e: &kernel::Event) -> Result<Event, String> {
    let request = |r: &kernel::FactRequest| {
        FactRequest::from_kernel(r).ok_or_else(|| format!("{r} is not an ASL fact"))
    };
    let content = |c: &kernel::Content| content::from_kernel(c).map_err(|e| e.to_string());
    let kind = match &e.kind {
        kernel::EventKind::Dice { purpose, roll } => EventKind::Dice {
            purpose: purpose.clone(),
            roll: *roll,
        },
        kernel::EventKind::FactOpened {
            request: r,
            content: c,
        } => EventKind::FactOpened {
            request: request(r)?,
            content: content(c)?,
        },
        kernel::EventKind::Transition {
            request: r,
            new_content,
        } => EventKind::Transition {
            request: request(r)?,
            new_content: content(new_content)?,
        },
        kernel::EventKind::Void { reason } => EventKind::Void {
            reason: reason.clone(),
        },
        kernel::EventKind::Rules(bytes) => match postcard::take_from_bytes::<EventKind>(bytes) {
            Ok((kind, [])) => kind,
            Ok(_) => return Err("trailing bytes after an ASL event".into()),
            Err(e) => return Err(format!("not an ASL event: {e}")),
        },
    };
    Ok(Event {
        to: e.to,
        kind,
        cite: e.cite.clone(),
    })
}

/// A loaded ASL scenario.
#[derive(Clone, Debug)]
pub struct AslScenario {
    /// The scenario.
    pub scenario: Arc<Scenario>,
}

/// A side's checked public setup.
#[derive(Clone, Debug)]
pub struct AslPublic(pub PublicSetup);

impl kernel::PublicSetup for AslPublic {
    fn side(&self) -> Side {
        self.0.side
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn public_of(p: &dyn kernel::PublicSetup) -> &PublicSetup {
    &p.as_any()
        .downcast_ref::<AslPublic>()
        .expect("an ASL scenario is given ASL setups")
        .0
}

/// The Secret dr for extra Dummies (B28.47), made at setup.
fn dummy_dr_spec(side: Side) -> DiceSpec {
    DiceSpec {
        kind: DiceKind::SecretDr { roller: side },
        purpose: format!("Secret dr for side {side}'s extra Dummy Minefields"),
        cite: "B28.47".into(),
    }
}

/// Extra Dummies from a side's setup rolls: the Secret dr halved, fractions
/// dropped (B28.47).
fn extra_dummies(rolls: &[Roll]) -> u8 {
    rolls.first().map_or(0, |r| r.total() / 2)
}

fn layer_of(layer: kernel::Layer) -> Option<Layer> {
    Layer::from_name(layer.name())
}

impl kernel::Scenario for AslScenario {
    fn name(&self) -> &str {
        &self.scenario.name
    }

    fn sealed_layers(&self) -> Vec<kernel::Layer> {
        Layer::SEALED.iter().map(|l| l.to_kernel()).collect()
    }

    fn note_layer(&self) -> Option<kernel::Layer> {
        Some(Layer::DaisyChain.to_kernel())
    }

    fn fact_words(&self, request: &kernel::FactRequest) -> String {
        match FactRequest::from_kernel(request) {
            Some(r) => r.words(),
            None => request.generic_words(),
        }
    }

    fn check_content(
        &self,
        layer: kernel::Layer,
        c: &kernel::Content,
    ) -> Result<(), kernel::ContentError> {
        let layer = layer_of(layer)
            .filter(|l| Layer::ALL.contains(l))
            .ok_or_else(|| kernel::ContentError::UnknownLayer(layer.to_string()))?;
        let content =
            content::from_kernel(c).map_err(|e| kernel::ContentError::Malformed(e.to_string()))?;
        if content.fits(layer) {
            Ok(())
        } else {
            Err(kernel::ContentError::WrongLayer(format!(
                "{content:?} cannot be in layer {layer}"
            )))
        }
    }

    fn public_setup(&self, side: Side, text: &str) -> Result<Arc<dyn kernel::PublicSetup>, String> {
        let public = PublicSetup::from_toml(&self.scenario, text).map_err(|e| e.to_string())?;
        if public.side != side {
            return Err(format!("it is side {}'s public setup", public.side));
        }
        let violations = setup::check_public(&self.scenario, &public);
        if !violations.is_empty() {
            let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
            return Err(list.join("; "));
        }
        Ok(Arc::new(AslPublic(public)))
    }

    fn setup_rolls(&self, side: Side) -> Vec<DiceSpec> {
        if setup::may_make_dummy_dr(&self.scenario, side) {
            vec![dummy_dr_spec(side)]
        } else {
            Vec::new()
        }
    }

    fn eligible(
        &self,
        public: &dyn kernel::PublicSetup,
        layer: kernel::Layer,
    ) -> Vec<kernel::Location> {
        let Some(layer) = layer_of(layer) else {
            return Vec::new();
        };
        let public = public_of(public);
        let mut v = setup::eligible_locations(&self.scenario, public, public.side, layer);
        v.sort();
        v.dedup();
        v.into_iter().map(Location::to_kernel).collect()
    }

    fn is_eligible(
        &self,
        public: &dyn kernel::PublicSetup,
        layer: kernel::Layer,
        location: &kernel::Location,
    ) -> bool {
        let (Some(layer), Some(at)) = (layer_of(layer), Location::from_key(location.key())) else {
            return false;
        };
        let public = public_of(public);
        // The same key, not an alias of it (`eligible` lists canonical keys).
        at.key() == location.key()
            && setup::is_eligible_location(&self.scenario, public, public.side, layer, at)
    }

    fn sealed_contents(
        &self,
        public: &dyn kernel::PublicSetup,
        text: &str,
    ) -> Result<kernel::SealedContents, String> {
        let public_setup = public_of(public);
        let sealed = SealedSetup::from_toml(text).map_err(|e| e.to_string())?;
        if sealed.side != public_setup.side {
            return Err(format!(
                "the sealed setup is side {}'s, not side {}'s",
                sealed.side, public_setup.side
            ));
        }
        Ok(Layer::SEALED
            .iter()
            .map(|layer| {
                let k = layer.to_kernel();
                let contents = self
                    .eligible(public, k)
                    .into_iter()
                    .map(|loc| {
                        let asl = Location::from_key(loc.key()).expect("our own keys parse");
                        (
                            loc,
                            content::to_kernel(&sealed.content(&self.scenario.map, *layer, asl)),
                        )
                    })
                    .collect();
                (k, contents)
            })
            .collect())
    }

    fn layout_problems(
        &self,
        public: &dyn kernel::PublicSetup,
        contents: &[(kernel::Layer, kernel::Location, kernel::Content)],
        setup_rolls: &[Roll],
    ) -> Vec<String> {
        let public = public_of(public);
        let mut problems = Vec::new();
        let mut typed = Vec::new();
        for (layer, location, c) in contents {
            let (Some(l), Some(loc)) = (layer_of(*layer), Location::from_key(location.key()))
            else {
                problems.push(format!("{layer} at {location} is not an ASL fact"));
                continue;
            };
            match content::from_kernel(c) {
                Ok(c) => typed.push((l, loc, c)),
                Err(e) => problems.push(format!("{layer} at {location}: {e}")),
            }
        }
        let sealed = SealedSetup::from_contents(public.side, &typed);
        if let Err(violations) =
            setup::check_layout(&self.scenario, public, &sealed, extra_dummies(setup_rolls))
        {
            problems.extend(violations.iter().map(|v| v.to_string()));
        }
        problems
    }

    fn start(
        &self,
        publics: [&dyn kernel::PublicSetup; 2],
        setup_rolls: &BTreeMap<Side, Vec<Roll>>,
    ) -> Result<Box<dyn kernel::Engine>, String> {
        let setups = [public_of(publics[0]).clone(), public_of(publics[1]).clone()];
        let mut state = setup::initial_state(&self.scenario, &setups).map_err(|violations| {
            violations
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        })?;
        state.extra_dummies = setup_rolls
            .iter()
            .filter(|(_, rolls)| !rolls.is_empty())
            .map(|(side, rolls)| (*side, extra_dummies(rolls)))
            .collect();
        Ok(Box::new(AslEngine(Engine::with_state(
            Arc::clone(&self.scenario),
            state,
        ))))
    }

    fn orders(&self, side: Side, bytes: &[u8]) -> Result<Box<dyn kernel::Orders>, Vec<String>> {
        let orders = standing_orders::decode(bytes).map_err(|e| vec![e])?;
        let problems = standing_orders::order_problems(&self.scenario, side, &orders);
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Box::new(DaisyOrders::new(&self.scenario, side, &orders)))
    }

    fn supplied_tables(&self) -> &kernel::SuppliedTables {
        &self.scenario.tables
    }

    fn rolls_ahead(&self, action: &[u8]) -> u32 {
        decode_action(action).map_or(4, |a| rolls_ahead(&a))
    }

    fn observer(&self, viewer: Side) -> Box<dyn kernel::Observer> {
        crate::asks::observer(self, viewer)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// How many public rolls an action may take, from the action alone (the
/// window of pad entries its opponent releases at once, PROTOCOL.md 7.1):
/// an estimate, never a rule. A stack's step may bring the attacks of the
/// hex it leaves and of the hex it enters (B28.41, B28.52, B28.531) and
/// then each unit's Morale or Task Check (A10, B28.43), and a leader's
/// failure may bring more; a fire attack its IFT or To Hit DR and the
/// Morale Checks of what it hits (A7, C3).
pub fn rolls_ahead(action: &Action) -> u32 {
    let per_stack = |units: usize| 2 + 3 * units as u32;
    match action {
        Action::Move { units, .. } | Action::Advance { units, .. } => per_stack(units.len()),
        Action::Disembark { units, .. } => per_stack(units.len() + 1),
        Action::Rout { .. } => per_stack(1),
        Action::InfantryClearance { units } => 1 + 2 * units.len() as u32,
        Action::Fire { .. } | Action::Ffe { .. } | Action::OrdnanceFire { .. } => 6,
        Action::Search { .. } | Action::ClearFullViewMines { .. } => 2,
        Action::EndPhase
        | Action::DummyDr
        | Action::Concede
        | Action::ChangeCa { .. }
        | Action::ChooseCa { .. } => 1,
    }
}

/// The ASL [`Engine`] behind the kernel's interface.
#[derive(Clone, Debug)]
pub struct AslEngine(pub Engine);

fn step_to_kernel(step: Step) -> kernel::Step {
    match step {
        Step::NeedFacts(requests) => {
            kernel::Step::NeedFacts(requests.into_iter().map(FactRequest::to_kernel).collect())
        }
        Step::NeedDice(specs) => kernel::Step::NeedDice(specs),
        Step::Done(events) => kernel::Step::Done(events.iter().map(event_to_kernel).collect()),
    }
}

fn error_to_kernel(e: ActionError) -> kernel::ActionError {
    match e {
        ActionError::Refused(e) => kernel::ActionError::Refused(e),
        ActionError::Provide(p) => kernel::ActionError::Provide(provide_to_kernel(p)),
        other => kernel::ActionError::Illegal(other.to_string()),
    }
}

fn provide_to_kernel(p: ProvideError) -> kernel::ProvideError {
    match p {
        ProvideError::NothingPending => kernel::ProvideError::NothingPending,
        ProvideError::NotWaitingForFacts => kernel::ProvideError::NotWaitingForFacts,
        ProvideError::NotWaitingForDice => kernel::ProvideError::NotWaitingForDice,
        ProvideError::WrongFacts { expected, got } => kernel::ProvideError::WrongFacts {
            expected: expected.into_iter().map(FactRequest::to_kernel).collect(),
            got: got.into_iter().map(FactRequest::to_kernel).collect(),
        },
        ProvideError::ContentDoesNotFit { request, content } => {
            kernel::ProvideError::ContentDoesNotFit {
                request: request.to_kernel(),
                content: content::to_kernel(&content),
                reason: format!("{content:?} cannot be in layer {}", request.layer),
            }
        }
        ProvideError::WrongDiceCount { expected, got } => {
            kernel::ProvideError::WrongDiceCount { expected, got }
        }
        ProvideError::BadRoll { index, spec, roll } => {
            kernel::ProvideError::BadRoll { index, spec, roll }
        }
    }
}

impl kernel::Engine for AslEngine {
    fn apply(&mut self, actor: Side, action: &[u8]) -> Result<kernel::Step, kernel::ActionError> {
        let action = decode_action(action).map_err(kernel::ActionError::Malformed)?;
        self.0
            .apply(actor, action)
            .map(step_to_kernel)
            .map_err(error_to_kernel)
    }

    fn provide_facts(
        &mut self,
        facts: Vec<kernel::Fact>,
    ) -> Result<kernel::Step, kernel::ActionError> {
        let mut typed = Vec::with_capacity(facts.len());
        for f in &facts {
            let not_ours = |reason: String| {
                kernel::ActionError::Provide(kernel::ProvideError::ContentDoesNotFit {
                    request: f.request,
                    content: f.content,
                    reason,
                })
            };
            let request = FactRequest::from_kernel(&f.request)
                .ok_or_else(|| not_ours("not an ASL fact".into()))?;
            let content = content::from_kernel(&f.content).map_err(|e| not_ours(e.to_string()))?;
            typed.push(Fact { request, content });
        }
        self.0
            .provide_facts(typed)
            .map(step_to_kernel)
            .map_err(error_to_kernel)
    }

    fn provide_dice(&mut self, rolls: Vec<Roll>) -> Result<kernel::Step, kernel::ActionError> {
        self.0
            .provide_dice(rolls)
            .map(step_to_kernel)
            .map_err(error_to_kernel)
    }

    fn to_act(&self) -> Side {
        crate::turn::who_ends_phase(self.0.state())
    }

    fn outcome(&self) -> Option<kernel::Outcome> {
        self.0.state().result.as_ref().map(|r| kernel::Outcome {
            winner: r.winner,
            reason: r.reason.clone(),
        })
    }

    fn clone_box(&self) -> Box<dyn kernel::Engine> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexveil_core::Ruleset as _;

    #[test]
    fn g5_old_versions_load_with_their_rules_and_new_games_take_version_3() {
        // R70 changed the order of a step's requests and R71-R80 what a
        // step, a shot or a late refusal does, so a log made under an older
        // version replays only with that version's rules; they share no
        // parse.
        let text = include_str!("../../examples/scenario.toml");
        assert_eq!((Asl.version(), AslV2.version(), AslV1.version()), (3, 2, 1));
        // The tables version 3 brought (R71, R77) are no table of the older
        // versions: a scenario supplying one is not theirs.
        let start = text.find("[tables.prc_survival]").unwrap();
        let end = start + text[start..].find("\"\"\"\n\n").unwrap() + 5;
        let old = format!("{}{}", &text[..start], &text[end..]);
        let e = AslV2.load(text).unwrap_err();
        assert!(e.contains("prc_survival"), "{e}");
        assert!(!shared_scenario_of(text, 3)
            .unwrap()
            .scenario
            .exit_roll_first());
        assert!(shared_scenario_of(&old, 1)
            .unwrap()
            .scenario
            .exit_roll_first());
        assert_eq!(shared_scenario_of(&old, 2).unwrap().scenario.version.0, 2);
        assert!(Asl.load(text).is_ok() && AslV2.load(&old).is_ok() && AslV1.load(&old).is_ok());
    }
}
