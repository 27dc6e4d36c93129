//! The server's escrow agents (DESIGN 3.6): a [`Keeper`] per owner who
//! escrowed its secrets, kept in step with the log the [`Referee`]
//! accepts. Apart from the keeper so that the keeper needs no referee (the
//! referee builds a keeper to check an escrow).

use crate::encoding::Party;
use crate::keeper::{Keeper, KeeperError};
use crate::message::{side_of, Body, SetupBody};
use crate::referee::{Accepted, Awaiting, Referee};
use hexveil_core::Side;
use std::collections::BTreeMap;

/// The server's escrow agents (DESIGN 3.6): the keeper of every owner who
/// escrowed its secrets, kept in step with the log. The live session asks
/// them for the answers the server writes; a restored session and the
/// offline verifier check every answer the server wrote against theirs, so
/// a server that departs from an owner's escrow (a Daisy Chain note its
/// standing orders did not give, G1) is caught (G5).
#[derive(Clone, Debug, Default)]
pub struct EscrowAgents {
    keepers: BTreeMap<Side, Keeper>,
}

/// A server entry that is not what the escrow agent answers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EscrowError {
    /// The agent could not answer at all.
    #[error("the escrow agent of side {side} cannot answer: {reason}")]
    Agent {
        /// The owner.
        side: Side,
        /// The keeper's reason.
        reason: KeeperError,
    },
    /// The server wrote something else than the agent's answer.
    #[error("the server's {body} for side {side} is not what side {side}'s escrow gives (G1)")]
    Departed {
        /// The owner.
        side: Side,
        /// What the server wrote.
        body: &'static str,
    },
}

impl EscrowAgents {
    /// Keeps the agents in step with an accepted entry: a setup's escrow
    /// starts its owner's agent, an action is seen by every agent (standing
    /// orders react to enemy moves, B28.531).
    pub fn follow(&mut self, referee: &Referee, accepted: &Accepted) -> Result<(), EscrowError> {
        match (&accepted.body, side_of(accepted.author)) {
            (
                Body::Setup(SetupBody {
                    escrow: Some(escrow),
                    ..
                }),
                Some(side),
            ) => {
                let keeper = Keeper::from_escrow(
                    referee.game_id(),
                    referee.scenario().as_ref(),
                    side,
                    escrow,
                )
                .map_err(|reason| EscrowError::Agent { side, reason })?;
                self.keepers.insert(side, keeper);
            }
            (body, Some(actor)) if body.declared_action().is_some() => {
                let action = body.declared_action().expect("checked");
                for keeper in self.keepers.values_mut() {
                    keeper.observe(actor, action);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The owner the referee awaits the server's answer for, if it awaits
    /// an escrowed opening or transition.
    fn owner(awaiting: &Awaiting) -> Option<Side> {
        match awaiting {
            Awaiting::Openings {
                owner,
                escrowed: true,
                ..
            }
            | Awaiting::Transitions {
                owner,
                escrowed: true,
                ..
            } => Some(*owner),
            _ => None,
        }
    }

    /// The agent's answer to what the referee awaits, if it awaits the
    /// server for an escrowed owner. The agent moves on (an order carried
    /// out, a leaf changed): call this once per answer written.
    pub fn answer(&mut self, awaiting: &Awaiting) -> Option<Result<Body, EscrowError>> {
        let side = Self::owner(awaiting)?;
        let agent = |reason| EscrowError::Agent { side, reason };
        let Some(keeper) = self.keepers.get_mut(&side) else {
            return Some(Err(agent(KeeperError::NoEscrow(side))));
        };
        match awaiting {
            Awaiting::Openings { requests, .. } => {
                Some(keeper.open(requests).map(Body::Open).map_err(agent))
            }
            Awaiting::Transitions { list, .. } => Some(
                keeper
                    .transitions(list)
                    .map(Body::Transitions)
                    .map_err(agent),
            ),
            _ => None,
        }
    }

    /// Checks an entry by `author` with `body_bytes`, about to be given to
    /// the referee that awaits `awaiting`: if it is the server's openings
    /// or transitions for an escrowed owner, it must be exactly the agent's
    /// answer (the agent is deterministic, so an honest server's answer is
    /// the same). The agent moves on as it answers. Anything else (a body
    /// that does not decode, an entry out of turn) is left to the referee.
    pub fn check(
        &mut self,
        awaiting: &Awaiting,
        author: Option<Party>,
        body_bytes: &[u8],
    ) -> Result<(), EscrowError> {
        let Some(side) = Self::owner(awaiting) else {
            return Ok(());
        };
        if author != Some(Party::Server) {
            return Ok(());
        }
        let Ok(body) = Body::decode(body_bytes) else {
            return Ok(());
        };
        if !matches!(body, Body::Open(_) | Body::Transitions(_)) {
            return Ok(());
        }
        match self.answer(awaiting) {
            Some(Ok(expected)) if expected == body => Ok(()),
            Some(Err(e)) => Err(e),
            _ => Err(EscrowError::Departed {
                side,
                body: body.name(),
            }),
        }
    }
}
