//! A chat relay session for tests and smoke runs of the shell.
//!
//! This is NOT the hexveil game: it has no rules and no hidden information.
//! It exists so the shell (connections, lobby, storage, spectators, restart)
//! can be exercised end to end before the real session from
//! `hexveil-protocol` is plugged in. Behaviour:
//!
//! - A seat goes to the first key that asks for it and back to that key only;
//!   each seating is appended as an event (`seat <A|B> <key hex>`), so a
//!   restart restores seats.
//! - A seated player's payload is appended, then relayed to the other seat
//!   and to spectators, and acknowledged to the sender with `ack <seq>`.
//! - The payload `finish` ends the game.

use crate::session::{
    Effect, GameSession, Participant, Recipient, Rejection, SessionContext, SessionFactory,
    StoredEvents,
};
use crate::wire::{PublicKey, Role, Side};

/// Factory for [`RelaySession`]s; accepts any scenario bytes.
#[derive(Debug, Default, Clone, Copy)]
pub struct RelayFactory;

/// The relay session (see module docs; not the game).
#[derive(Debug, Default)]
pub struct RelaySession {
    seats: [Option<PublicKey>; 2],
    events: u64,
    log: Vec<Vec<u8>>,
}

fn seat_index(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

impl RelaySession {
    /// The logged events that were relayed (all but the seatings).
    fn relayed(&self) -> impl Iterator<Item = &Vec<u8>> {
        self.log.iter().filter(|e| !e.starts_with(b"seat "))
    }

    fn apply(&mut self, event: &[u8]) -> Result<(), Rejection> {
        if let Some(rest) = event.strip_prefix(b"seat ") {
            let text = std::str::from_utf8(rest).map_err(|_| Rejection("bad seat event".into()))?;
            let (side, key) = text
                .split_once(' ')
                .ok_or_else(|| Rejection("bad seat event".into()))?;
            let side = match side {
                "A" => Side::A,
                "B" => Side::B,
                _ => return Err(Rejection(format!("bad side {side:?}"))),
            };
            let key: [u8; 32] = hex::decode(key)
                .ok()
                .and_then(|k| k.try_into().ok())
                .ok_or_else(|| Rejection("bad key in seat event".into()))?;
            self.seats[seat_index(side)] = Some(PublicKey(key));
        }
        self.events += 1;
        self.log.push(event.to_vec());
        Ok(())
    }

    fn append(&mut self, event: Vec<u8>, out: &mut Vec<Effect>) {
        self.events += 1;
        self.log.push(event.clone());
        out.push(Effect::Append(event));
    }
}

impl GameSession for RelaySession {
    fn admit(
        &mut self,
        who: &Participant,
        _resume_from: u64,
        _now_ms: u64,
    ) -> Result<Vec<Effect>, Rejection> {
        let mut out = Vec::new();
        if let Role::Player(side) = who.role {
            match self.seats[seat_index(side)] {
                Some(k) if k == who.key => {}
                Some(_) => return Err(Rejection(format!("seat {side:?} belongs to another key"))),
                None => {
                    self.seats[seat_index(side)] = Some(who.key);
                    let name = if side == Side::A { "A" } else { "B" };
                    self.append(format!("seat {name} {}", who.key).into_bytes(), &mut out);
                }
            }
        }
        out.push(Effect::Send {
            to: Recipient::Connection(who.connection),
            payload: format!("welcome {}", self.events).into_bytes(),
        });
        Ok(out)
    }

    /// The relayed payloads are the public messages: every logged event
    /// but the seat events (a payload that itself starts with `seat ` is
    /// not supported: a restore would read it as a seating).
    fn public_len(&self) -> usize {
        self.relayed().count()
    }

    fn public_message(&self, index: usize, _stored: &StoredEvents) -> Option<Vec<u8>> {
        self.relayed().nth(index).cloned()
    }

    /// The relay welcomes a joining player itself; it asks for no resync.
    fn resync(&self, _: Side, _: u64, _: &StoredEvents) -> Option<Vec<Vec<u8>>> {
        None
    }

    /// Every logged event, concatenated.
    fn transcript(&self, _stored: &StoredEvents) -> Option<Vec<u8>> {
        Some(self.log.concat())
    }

    fn handle(
        &mut self,
        from: &Participant,
        payload: &[u8],
        _now_ms: u64,
    ) -> Result<Vec<Effect>, Rejection> {
        let Role::Player(side) = from.role else {
            return Err(Rejection("spectators cannot act".into()));
        };
        if self.seats[seat_index(side)] != Some(from.key) {
            return Err(Rejection("not seated".into()));
        }
        if payload == b"finish" {
            return Ok(vec![Effect::Finish {
                result: b"finished by request".to_vec(),
            }]);
        }
        let mut out = Vec::new();
        let seq = self.events;
        self.append(payload.to_vec(), &mut out);
        out.push(Effect::Send {
            to: Recipient::Player(side.opponent()),
            payload: payload.to_vec(),
        });
        out.push(Effect::Publish);
        out.push(Effect::Send {
            to: Recipient::Connection(from.connection),
            payload: format!("ack {seq}").into_bytes(),
        });
        Ok(out)
    }
}

impl SessionFactory for RelayFactory {
    fn create(
        &self,
        _ctx: &SessionContext,
        _scenario: &[u8],
    ) -> Result<Box<dyn GameSession>, Rejection> {
        Ok(Box::new(RelaySession::default()))
    }

    fn restore(
        &self,
        _ctx: &SessionContext,
        _scenario: &[u8],
        events: &[Vec<u8>],
    ) -> Result<Box<dyn GameSession>, Rejection> {
        let mut s = RelaySession::default();
        for e in events {
            s.apply(e)?;
        }
        Ok(Box::new(s))
    }
}
