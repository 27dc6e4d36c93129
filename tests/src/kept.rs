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
    let mut shown = Vec::new();
    for who in [Who::A, Who::B] {
        for e in t.events_of(who) {
            if let GameEvent::Update(u) | GameEvent::Replayed(u) = e {
                shown.push((u.seq, u.head));
            }
        }
    }
    let receipts: Vec<(u64, Digest)> =
        t.a.receipts()
            .iter()
            .chain(t.b.receipts())
            .map(|r| (r.seq, r.entry_hash))
            .collect();
    assert_kept(&receipts, &shown, log)
}

/// G6, for any clients (`hexveil join --record` files among them): in
/// `log`, no entry and no roll twice; every receipt `(seq, entry hash)` is
/// the log's entry at that seq; every head shown `(seq, head)` (never two
/// for one seq) is the log's head after that entry.
pub fn assert_kept(receipts: &[(u64, Digest)], shown: &[(u64, Digest)], log: &Transcript) -> Kept {
    let mut heads: BTreeMap<u64, Digest> = BTreeMap::new();
    for (seq, head) in shown {
        let old = heads.insert(*seq, *head);
        assert!(
            old.is_none_or(|h| h == *head),
            "two heads shown for seq {seq}"
        );
    }
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
    for (seq, hash) in receipts {
        let entry = log
            .entries
            .get(*seq as usize)
            .unwrap_or_else(|| panic!("receipted entry {seq} is missing from the log"));
        assert_eq!(
            entry.envelope.entry_hash(),
            *hash,
            "receipted entry {seq} kept"
        );
    }
    for (seq, head) in &heads {
        let after = head_after
            .get(*seq as usize)
            .unwrap_or_else(|| panic!("entry {seq}, shown, is missing from the log"));
        assert_eq!(after, head, "entry {seq} as a player was shown it");
    }
    Kept {
        entries: log.entries.len(),
        receipts: receipts.len(),
        heads: heads.len(),
        rolls: rolls.len(),
    }
}
