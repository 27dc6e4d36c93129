//! G6 after a crash or a failover: nothing acknowledged lost, nothing
//! twice. Checks a finished game's log against what its two players were
//! shown while it ran (`crash_random.rs`, `failover.rs`).

use std::collections::{BTreeMap, BTreeSet};

use hexveil::driver::GameEvent;
use hexveil_protocol::encoding::Digest;
use hexveil_protocol::envelope::next_head;
use hexveil_protocol::message::Body;
use hexveil_protocol::transcript::Transcript;

use crate::{Table, Who};

/// What [`assert_acknowledged_kept`] checked.
#[derive(Clone, Copy, Debug)]
pub struct Kept {
    /// Entries in the log.
    pub entries: usize,
    /// Receipts the players hold (each entry's hash checked).
    pub receipts: usize,
    /// Seqs whose head a player was shown (each checked).
    pub heads: usize,
    /// Roll entries in the log.
    pub rolls: usize,
}

/// G6: in `log`, no entry and no roll twice; every entry a player holds a
/// receipt for is at its seq with its hash; every head a player was shown
/// (live or replayed, never two for one seq) is the log's head after that
/// entry.
pub fn assert_acknowledged_kept(t: &Table, log: &Transcript) -> Kept {
    let mut heads: BTreeMap<u64, Digest> = BTreeMap::new();
    for who in [Who::A, Who::B] {
        for e in t.events_of(who) {
            if let GameEvent::Update(u) | GameEvent::Replayed(u) = e {
                let old = heads.insert(u.seq, u.head);
                assert!(
                    old.is_none_or(|h| h == u.head),
                    "two heads shown for seq {}",
                    u.seq
                );
            }
        }
    }
    let receipts: Vec<(u64, Digest)> =
        t.a.receipts()
            .iter()
            .chain(t.b.receipts())
            .map(|r| (r.seq, r.entry_hash))
            .collect();
    let mut head_after = Vec::new();
    let mut hashes = BTreeSet::new();
    let mut rolls = BTreeSet::new();
    for e in &log.entries {
        let env = e.envelope.envelope();
        assert!(
            hashes.insert(e.envelope.entry_hash()),
            "entry {} is in the log twice",
            env.seq
        );
        head_after.push(next_head(&env.prev_head, &e.envelope.entry_hash()));
        if let Ok(Body::Roll(r)) = Body::decode(&env.body) {
            assert!(rolls.insert(r.k), "roll {} is in the log twice", r.k);
        }
    }
    for (seq, hash) in &receipts {
        assert_eq!(
            log.entries[*seq as usize].envelope.entry_hash(),
            *hash,
            "receipted entry {seq} kept"
        );
    }
    for (seq, head) in &heads {
        assert_eq!(
            head_after[*seq as usize], *head,
            "entry {seq} as a player was shown it"
        );
    }
    Kept {
        entries: log.entries.len(),
        receipts: receipts.len(),
        heads: heads.len(),
        rolls: rolls.len(),
    }
}
