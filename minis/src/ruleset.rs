//! The miniatures rules as a plug-in of the referee: the kernel's
//! [`Scenario`](hexveil_core::Scenario) trait for a [`MinisScenario`],
//! which starts the [`MinisEngine`]. Apart from the scenario so that the
//! scenario needs no engine (the engine reads the scenario).

use crate::content::CellMines;
use crate::engine::MinisEngine;
use crate::geom::Cell;
use crate::scenario::{mines_layer, MinisPublicSetup, MinisScenario, PublicFile, SealedFile};
use hexveil_core::{
    Content, DiceSpec, Engine, Layer, Location, NoOrders, Orders, PublicSetup, Roll,
    Scenario as CoreScenario, SealedContents, Side,
};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

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
