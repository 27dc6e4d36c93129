//! The dice beacon: one roll's release order and seed (DESIGN 3.4, G2).
//!
//! A public roll k bound to the sequenced action `action_hash`:
//!
//! 1. the actor's entry comes with the action;
//! 2. then the other player's;
//! 3. then the server's, **last**.
//!
//! ```text
//! seed_k = SHA-256(tuple("hexveil/v1/roll", game_id, k, action_hash, r_A, r_B, r_S))
//! ```
//!
//! Nobody reveals while knowing the outcome, and the server, which reveals
//! last, can only stall. The entries always enter the hash in the order A, B,
//! server, whoever acts.
//!
//! A **Secret dr** (B28.47) withholds the roller's entry: the opponent and
//! then the server release theirs, the roller computes
//!
//! ```text
//! secret_k = SHA-256(tuple("hexveil/v1/secret-roll", game_id, k, action_hash, r_A, r_B, r_S))
//! ```
//!
//! privately, and opens its entry (with proof) when the rules reveal the roll,
//! at the latest at game end.
//!
//! [`BeaconRound`] is a pure state machine for one roll that enforces that
//! order and checks each entry against its party's [`PadStatement`].

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::encoding::{byte_newtype, tag, Digest, GameId, Party, TupleEncoder};
use crate::pad::{verify_pad_entry, PadEntry, PadEntryError, PadPosition, PadStatement, PadValue};

byte_newtype!(
    /// The 32-byte seed of one roll; dice are drawn from it by [`crate::dice`].
    RollSeed,
    32
);

fn seed_with(
    domain: &'static str,
    game_id: &GameId,
    k: u64,
    action_hash: &Digest,
    r: [&PadValue; 3],
) -> RollSeed {
    RollSeed(
        TupleEncoder::new(domain)
            .game_id(game_id)
            .u64(k)
            .digest(action_hash)
            .array(&r[0].0)
            .array(&r[1].0)
            .array(&r[2].0)
            .sha256()
            .0,
    )
}

/// The seed of public roll `k` from the entries of A, B and the server.
pub fn roll_seed(game_id: &GameId, k: u64, action_hash: &Digest, r: [&PadValue; 3]) -> RollSeed {
    seed_with(tag::ROLL, game_id, k, action_hash, r)
}

/// The seed of Secret dr `k` (B28.47) from the entries of A, B and the server.
pub fn secret_roll_seed(
    game_id: &GameId,
    k: u64,
    action_hash: &Digest,
    r: [&PadValue; 3],
) -> RollSeed {
    seed_with(tag::SECRET_ROLL, game_id, k, action_hash, r)
}

/// The seed of public roll `k` of message version 4 (PROTOCOL.md 7.1): the
/// actor's slot holds the nonce of its declaration, the other two the pad
/// values of the opponent and the server; always in the order A, B, server.
pub fn nonce_roll_seed(
    game_id: &GameId,
    k: u64,
    action_hash: &Digest,
    r: [&PadValue; 3],
) -> RollSeed {
    seed_with(tag::NONCE_ROLL, game_id, k, action_hash, r)
}

/// Public roll or Secret dr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RollKind {
    /// Everyone sees the result.
    Public,
    /// Only the roller knows the result until the rules reveal it (B28.47).
    Secret,
}

/// What one roll is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RollRequest {
    /// The game.
    pub game_id: GameId,
    /// The roll number (selects the pad position).
    pub k: u64,
    /// The entry hash of the sequenced action the roll serves.
    pub action_hash: Digest,
    /// The acting player (for a Secret dr: the roller).
    pub actor: Party,
    /// Public or secret.
    pub kind: RollKind,
}

/// Bad setup of a round: the statements do not fit the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RoundSetupError {
    /// Only a player acts; the server never rolls.
    #[error("only a player can be the actor of a roll")]
    ServerActor,
    /// Statement `i` is not party `i`'s (order A, B, server).
    #[error("pad statement for {expected} is {got}'s")]
    StatementParty {
        /// The party whose statement belongs in that slot.
        expected: Party,
        /// The statement's party.
        got: Party,
    },
    /// A statement is for another game.
    #[error("{0}'s pad statement is for another game")]
    StatementGame(Party),
    /// A statement is for another epoch than the roll's position.
    #[error("{party}'s pad statement is epoch {got}, roll needs epoch {expected}")]
    StatementEpoch {
        /// Whose statement.
        party: Party,
        /// The roll's epoch.
        expected: u32,
        /// The statement's epoch.
        got: u32,
    },
    /// The roll's index is not in a party's pad.
    #[error("roll index {index} is outside {party}'s pad of {n} entries")]
    IndexOutsidePad {
        /// Whose pad.
        party: Party,
        /// The roll's index.
        index: u32,
        /// Entries in the pad.
        n: u32,
    },
}

/// Why an entry submitted to a round was refused; the round does not change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BeaconError {
    /// The round is complete.
    #[error("the roll is already complete")]
    AlreadyComplete,
    /// This party's entry was already accepted.
    #[error("{0} already released its entry for this roll")]
    Duplicate(Party),
    /// Another party must release first (the server is always last).
    #[error("{got} released out of order: waiting for {expected}")]
    OutOfOrder {
        /// The party whose turn it is.
        expected: Party,
        /// The party that sent.
        got: Party,
    },
    /// The entry is at another pad position than this roll's.
    #[error("{party}'s entry is at {got:?}, roll needs {expected:?}")]
    WrongIndex {
        /// Whose entry.
        party: Party,
        /// This roll's position.
        expected: PadPosition,
        /// The entry's position.
        got: PadPosition,
    },
    /// The entry does not verify against its party's statement.
    #[error("{party}'s entry does not verify: {error}")]
    BadEntry {
        /// Whose entry.
        party: Party,
        /// What is wrong with it.
        error: PadEntryError,
    },
}

/// Where a round stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoundStatus {
    /// Waiting for this party's entry.
    Awaiting(Party),
    /// Secret dr: opponent and server have released; the roller can compute
    /// the value privately and will open its entry later.
    SecretPending {
        /// The roller.
        roller: Party,
    },
    /// All entries are in: the seed.
    Complete(RollSeed),
}

/// One roll's release-order state machine (G2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BeaconRound {
    req: RollRequest,
    position: PadPosition,
    statements: [PadStatement; 3],
    order: [Party; 3],
    next: usize,
    entries: [Option<PadValue>; 3],
    /// Message version 4: the actor's slot holds its declaration's nonce.
    nonce: bool,
}

impl BeaconRound {
    /// Starts a round for `req` at pad `position`, with the pad statements
    /// of A, B and the server (in that order) for the position's epoch.
    pub fn new(
        req: RollRequest,
        position: PadPosition,
        statements: [PadStatement; 3],
    ) -> Result<BeaconRound, RoundSetupError> {
        let other = req.actor.opponent().ok_or(RoundSetupError::ServerActor)?;
        for (slot, st) in statements.iter().enumerate() {
            let expected = Party::ALL[slot];
            if st.party != expected {
                return Err(RoundSetupError::StatementParty {
                    expected,
                    got: st.party,
                });
            }
            if st.game_id != req.game_id {
                return Err(RoundSetupError::StatementGame(expected));
            }
            if st.epoch != position.epoch {
                return Err(RoundSetupError::StatementEpoch {
                    party: expected,
                    expected: position.epoch,
                    got: st.epoch,
                });
            }
            if position.index >= st.n {
                return Err(RoundSetupError::IndexOutsidePad {
                    party: expected,
                    index: position.index,
                    n: st.n,
                });
            }
        }
        let order = match req.kind {
            RollKind::Public => [req.actor, other, Party::Server],
            RollKind::Secret => [other, Party::Server, req.actor],
        };
        Ok(BeaconRound {
            req,
            position,
            statements,
            order,
            next: 0,
            entries: [None; 3],
            nonce: false,
        })
    }

    /// Starts a public round of message version 4 (PROTOCOL.md 7.1): the
    /// actor's part is the `nonce` it declared its action with, already
    /// released with the action; the opponent's pad entry comes next, the
    /// server's last.
    pub fn with_nonce(
        req: RollRequest,
        position: PadPosition,
        statements: [PadStatement; 3],
        nonce: [u8; 32],
    ) -> Result<BeaconRound, RoundSetupError> {
        let mut round = BeaconRound::new(
            RollRequest {
                kind: RollKind::Public,
                ..req
            },
            position,
            statements,
        )?;
        round.entries[req.actor.index()] = Some(PadValue(nonce));
        round.next = 1;
        round.nonce = true;
        Ok(round)
    }

    /// The request this round serves.
    pub fn request(&self) -> &RollRequest {
        &self.req
    }

    /// The pad position of this roll.
    pub fn position(&self) -> PadPosition {
        self.position
    }

    /// Where the round stands.
    pub fn status(&self) -> RoundStatus {
        if self.next == 3 {
            return RoundStatus::Complete(self.seed_from([
                self.entries[0].as_ref().expect("complete"),
                self.entries[1].as_ref().expect("complete"),
                self.entries[2].as_ref().expect("complete"),
            ]));
        }
        if self.req.kind == RollKind::Secret && self.next == 2 {
            return RoundStatus::SecretPending {
                roller: self.req.actor,
            };
        }
        RoundStatus::Awaiting(self.order[self.next])
    }

    /// The values released so far (A, B, server), e.g. to forward.
    pub fn released(&self) -> &[Option<PadValue>; 3] {
        &self.entries
    }

    fn seed_from(&self, r: [&PadValue; 3]) -> RollSeed {
        match self.req.kind {
            RollKind::Public if self.nonce => {
                nonce_roll_seed(&self.req.game_id, self.req.k, &self.req.action_hash, r)
            }
            RollKind::Public => roll_seed(&self.req.game_id, self.req.k, &self.req.action_hash, r),
            RollKind::Secret => {
                secret_roll_seed(&self.req.game_id, self.req.k, &self.req.action_hash, r)
            }
        }
    }

    fn check_entry(&self, e: &PadEntry) -> Result<(), BeaconError> {
        if e.position != self.position {
            return Err(BeaconError::WrongIndex {
                party: e.party,
                expected: self.position,
                got: e.position,
            });
        }
        verify_pad_entry(&self.statements[e.party.index()], e).map_err(|error| {
            BeaconError::BadEntry {
                party: e.party,
                error,
            }
        })
    }

    /// Accepts the next entry in release order; on error nothing changes.
    pub fn submit(&mut self, e: &PadEntry) -> Result<RoundStatus, BeaconError> {
        self.release(e.party, e.value, Some(e))
    }

    /// [`Self::submit`] of the value of `party`'s entry that the caller has
    /// already checked at this round's position against the same statement
    /// (the referee, a window of entries when it was released, PROTOCOL.md
    /// 7.1): the release order is enforced, the proof not checked again.
    pub(crate) fn submit_checked(
        &mut self,
        party: Party,
        value: PadValue,
    ) -> Result<RoundStatus, BeaconError> {
        self.release(party, value, None)
    }

    /// Takes `party`'s value next in release order, once its entry, if
    /// given (else checked by the caller), verifies at this round.
    fn release(
        &mut self,
        party: Party,
        value: PadValue,
        entry: Option<&PadEntry>,
    ) -> Result<RoundStatus, BeaconError> {
        if self.next == 3 {
            return Err(BeaconError::AlreadyComplete);
        }
        if self.entries[party.index()].is_some() {
            return Err(BeaconError::Duplicate(party));
        }
        let expected = self.order[self.next];
        if party != expected {
            return Err(BeaconError::OutOfOrder {
                expected,
                got: party,
            });
        }
        if let Some(e) = entry {
            self.check_entry(e)?;
        }
        self.entries[party.index()] = Some(value);
        self.next += 1;
        Ok(self.status())
    }

    /// Secret dr: the roller's private computation once the opponent and the
    /// server have released, from its own (checked) entry. Does not change
    /// the round: the roller's entry is opened later with [`Self::submit`].
    pub fn private_secret_seed(&self, own: &PadEntry) -> Result<RollSeed, BeaconError> {
        match self.status() {
            RoundStatus::SecretPending { roller } if roller == own.party => {}
            RoundStatus::Complete(_) => return Err(BeaconError::AlreadyComplete),
            RoundStatus::SecretPending { roller } => {
                return Err(BeaconError::OutOfOrder {
                    expected: roller,
                    got: own.party,
                })
            }
            RoundStatus::Awaiting(p) => {
                return Err(BeaconError::OutOfOrder {
                    expected: p,
                    got: own.party,
                })
            }
        }
        self.check_entry(own)?;
        let mut vals = self.entries;
        vals[own.party.index()] = Some(own.value);
        Ok(secret_roll_seed(
            &self.req.game_id,
            self.req.k,
            &self.req.action_hash,
            [
                vals[0].as_ref().expect("all in"),
                vals[1].as_ref().expect("all in"),
                vals[2].as_ref().expect("all in"),
            ],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pad::{Pad, PadSchedule, PadSeed};

    const GAME: GameId = GameId([0x44; 16]);

    fn pads() -> [Pad; 3] {
        Party::ALL.map(|p| Pad::new(PadSeed([10 + p.as_byte(); 32]), GAME, p, 0, 32).unwrap())
    }

    fn round(pads: &[Pad; 3], k: u64, actor: Party, kind: RollKind) -> BeaconRound {
        let req = RollRequest {
            game_id: GAME,
            k,
            action_hash: Digest([7; 32]),
            actor,
            kind,
        };
        let pos = PadSchedule {
            n: 32,
            renew_below: 4,
        }
        .position(k)
        .unwrap();
        BeaconRound::new(req, pos, [0, 1, 2].map(|i| pads[i].statement())).unwrap()
    }

    #[test]
    fn public_roll_releases_actor_then_opponent_then_server_last_g2() {
        let p = pads();
        let mut r = round(&p, 5, Party::B, RollKind::Public);
        assert_eq!(r.status(), RoundStatus::Awaiting(Party::B));
        assert_eq!(
            r.submit(&p[1].entry(5).unwrap()),
            Ok(RoundStatus::Awaiting(Party::A))
        );
        assert_eq!(
            r.submit(&p[0].entry(5).unwrap()),
            Ok(RoundStatus::Awaiting(Party::Server))
        );
        let RoundStatus::Complete(seed) = r.submit(&p[2].entry(5).unwrap()).unwrap() else {
            panic!("complete")
        };
        let v = |i: usize| p[i].entry(5).unwrap().value;
        assert_eq!(
            seed,
            roll_seed(&GAME, 5, &Digest([7; 32]), [&v(0), &v(1), &v(2)])
        );
        assert_eq!(
            r.submit(&p[2].entry(5).unwrap()),
            Err(BeaconError::AlreadyComplete)
        );
    }

    #[test]
    fn server_cannot_release_before_the_players_g2() {
        let p = pads();
        let mut r = round(&p, 0, Party::A, RollKind::Public);
        let before = r.clone();
        assert_eq!(
            r.submit(&p[2].entry(0).unwrap()),
            Err(BeaconError::OutOfOrder {
                expected: Party::A,
                got: Party::Server
            })
        );
        assert_eq!(r, before);
        r.submit(&p[0].entry(0).unwrap()).unwrap();
        assert_eq!(
            r.submit(&p[2].entry(0).unwrap()),
            Err(BeaconError::OutOfOrder {
                expected: Party::B,
                got: Party::Server
            })
        );
    }

    #[test]
    fn duplicate_wrong_index_and_foreign_entries_are_distinct_errors_g2() {
        let p = pads();
        let mut r = round(&p, 3, Party::A, RollKind::Public);
        r.submit(&p[0].entry(3).unwrap()).unwrap();
        assert_eq!(
            r.submit(&p[0].entry(3).unwrap()),
            Err(BeaconError::Duplicate(Party::A))
        );
        assert!(matches!(
            r.submit(&p[1].entry(4).unwrap()),
            Err(BeaconError::WrongIndex { .. })
        ));
        let mut forged = p[1].entry(3).unwrap();
        forged.value.0[3] ^= 1; // B picks a value after seeing A's
        assert!(matches!(
            r.submit(&forged),
            Err(BeaconError::BadEntry {
                party: Party::B,
                error: PadEntryError::NotUnderRoot { index: 3 }
            })
        ));
    }

    #[test]
    fn seed_depends_on_action_and_roll_number_g2() {
        let p = pads();
        let v = |i: usize| p[i].entry(0).unwrap().value;
        let r = [&v(0), &v(1), &v(2)];
        let s = roll_seed(&GAME, 0, &Digest([1; 32]), r);
        assert_ne!(s, roll_seed(&GAME, 0, &Digest([2; 32]), r));
        assert_ne!(s, roll_seed(&GAME, 1, &Digest([1; 32]), r));
        assert_ne!(s, secret_roll_seed(&GAME, 0, &Digest([1; 32]), r));
    }

    #[test]
    fn setup_rejects_server_actor_and_mismatched_statements() {
        let p = pads();
        let req = RollRequest {
            game_id: GAME,
            k: 0,
            action_hash: Digest::ZERO,
            actor: Party::Server,
            kind: RollKind::Public,
        };
        let pos = PadPosition { epoch: 0, index: 0 };
        let sts = [0, 1, 2].map(|i| p[i].statement());
        assert_eq!(
            BeaconRound::new(req, pos, sts).unwrap_err(),
            RoundSetupError::ServerActor
        );
        let req = RollRequest {
            actor: Party::A,
            ..req
        };
        let swapped = [sts[1], sts[0], sts[2]];
        assert!(matches!(
            BeaconRound::new(req, pos, swapped),
            Err(RoundSetupError::StatementParty { .. })
        ));
        assert!(matches!(
            BeaconRound::new(req, PadPosition { epoch: 1, index: 0 }, sts),
            Err(RoundSetupError::StatementEpoch { .. })
        ));
        assert!(matches!(
            BeaconRound::new(
                req,
                PadPosition {
                    epoch: 0,
                    index: 32
                },
                sts
            ),
            Err(RoundSetupError::IndexOutsidePad { .. })
        ));
    }

    #[test]
    fn secret_dr_b28_47_opponent_cannot_derive_it_g3() {
        let p = pads();
        let k = 9;
        // A rolls a Secret dr; B and the server release, A keeps its entry.
        let mut r = round(&p, k, Party::A, RollKind::Secret);
        assert_eq!(
            r.submit(&p[0].entry(k as u32).unwrap()),
            Err(BeaconError::OutOfOrder {
                expected: Party::B,
                got: Party::A
            })
        );
        r.submit(&p[1].entry(k as u32).unwrap()).unwrap();
        assert_eq!(
            r.submit(&p[2].entry(k as u32).unwrap()),
            Ok(RoundStatus::SecretPending { roller: Party::A })
        );
        let own = p[0].entry(k as u32).unwrap();
        let secret = r.private_secret_seed(&own).unwrap();

        // Everything B has seen: its own and the server's entries, A's pad
        // root, every other entry A ever opened, the request.
        let rb = p[1].entry(k as u32).unwrap().value;
        let rs = p[2].entry(k as u32).unwrap().value;
        let st_a = p[0].statement();
        let mut seen: Vec<PadValue> = vec![rb, rs, PadValue(st_a.root.0), PadValue([0; 32])];
        seen.extend(
            (0..32)
                .filter(|&i| i != k as u32)
                .map(|i| p[0].entry(i).unwrap().value),
        );
        seen.extend(own.path.hashes.iter().map(|h| PadValue(h.0)));
        assert!(!seen.contains(&own.value), "A's entry never left A");
        for guess in &seen {
            for tag_fn in [secret_roll_seed, roll_seed] {
                let s = tag_fn(&GAME, k, &Digest([7; 32]), [guess, &rb, &rs]);
                assert_ne!(s, secret, "B derived the Secret dr");
            }
        }

        // A opens later; only the true entry completes the round.
        let mut fake = own.clone();
        fake.value = seen[4];
        assert!(matches!(r.submit(&fake), Err(BeaconError::BadEntry { .. })));
        assert_eq!(r.submit(&own), Ok(RoundStatus::Complete(secret)));
    }
}
