//! Following a game to the node that serves it (issue 25).
//!
//! A league runs several server nodes on one database; each live game is
//! leased to one node. When a seat's or a spectator's node goes away
//! (killed, paused, drained, cut off) or says the game moved, the client
//! finds the game's current owner by itself: it asks every node of the
//! league's node list at once ([`Follower::find`]: the addresses it was
//! given, every address of each name, and the live nodes any node names
//! in its answer), and
//!
//! - joins the node that answers that it serves the game or will take it
//!   over (no other node's lease runs); when several do (a lease just ran
//!   out), every member of the game picks the same one ([`pick`]);
//! - waits, saying so with the time left, while the game's lease is held
//!   by a node that does not answer (a dead or paused node's lease runs
//!   out, then the next node asked takes the game over);
//! - tries again, after a pause that doubles up to [`MAX_PAUSE`] with
//!   jitter ([`Backoff`]), while no node answers at all;
//!
//! for up to [`GIVE_UP_AFTER`]. Each step is said in words through the
//! caller's `say`, once (the same words are not repeated). A server that
//! predates [`Client::locate`] (it answers `Malformed`) is joined as it
//! is: its `ServedElsewhere` still leads to the owner.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use hexveil_net::tls::ServerTrust;
use hexveil_net::wire::{ErrorCode, GameId, GameOwner};
use ring::rand::SecureRandom;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::driver::{Client, DriverError, Location};
use crate::net::NetError;
use hexveil_view::names::visible;

/// How long one node may take to connect and answer where a game is
/// before it counts as not answering.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a client looks for its game's node before it gives up: the
/// server's default answer timeout (after it, a side that owes an answer
/// has lost anyway).
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(600);

/// The first pause before trying again; it doubles up to [`MAX_PAUSE`].
pub const FIRST_PAUSE: Duration = Duration::from_millis(250);

/// The longest pause between two tries (before jitter).
pub const MAX_PAUSE: Duration = Duration::from_secs(8);

/// How long the other nodes may still answer once one said it takes the
/// game.
const GRACE: Duration = Duration::from_millis(300);

/// The longest wait for a silent owner's lease in one go: the nodes are
/// asked again at least this often.
const MAX_LEASE_WAIT: Duration = Duration::from_secs(5);

/// Pauses between tries: from [`FIRST_PAUSE`], doubling up to
/// [`MAX_PAUSE`], each one a random 50 to 100 % of that (so that the
/// clients of a node that died do not all come back at once), for at most
/// [`GIVE_UP_AFTER`] in all.
#[derive(Debug)]
pub struct Backoff {
    start: Instant,
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new()
    }
}

impl Backoff {
    /// Starts counting now.
    pub fn new() -> Backoff {
        Backoff {
            start: Instant::now(),
            next: FIRST_PAUSE,
        }
    }

    /// The next pause (with its jitter), and the one after it doubled.
    pub fn next_pause(&mut self) -> Duration {
        let pause = jitter(self.next);
        self.next = (self.next * 2).min(MAX_PAUSE);
        pause
    }

    /// Waits the next pause.
    pub async fn pause(&mut self) {
        tokio::time::sleep(self.next_pause()).await;
    }

    /// Whether there is time left to try again.
    pub fn time_left(&self) -> bool {
        self.start.elapsed() < GIVE_UP_AFTER
    }

    /// How long since the first try.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

/// A random 50 to 100 % of `d`.
fn jitter(d: Duration) -> Duration {
    let mut b = [0u8; 2];
    // The jitter needs no secrecy: without randomness, the full pause.
    if ring::rand::SystemRandom::new().fill(&mut b).is_err() {
        return d;
    }
    let fraction = 0.5 + f64::from(u16::from_be_bytes(b)) / f64::from(u16::MAX) / 2.0;
    d.mul_f64(fraction)
}

/// Whether an attempt to reach the game may succeed later: the connection
/// failed or could not be made, the node handed the game over, or it said
/// to come back (busy, an internal error such as its store restarting, a
/// rate limit). A wrong fingerprint, a refused login or version, an
/// unknown game or a refusal of the request itself end the attempts.
pub fn retryable(e: &DriverError) -> bool {
    let later = |code: &ErrorCode| {
        matches!(
            code,
            ErrorCode::Busy | ErrorCode::Internal | ErrorCode::RateLimited
        )
    };
    match e {
        DriverError::Disconnected(_) | DriverError::Timeout(..) | DriverError::Moved { .. } => true,
        DriverError::Server { code, .. } => later(code),
        DriverError::Net(
            NetError::Socket(_)
            | NetError::Connection(_)
            | NetError::Timeout(_)
            | NetError::Frame(_)
            | NetError::Closed,
        ) => true,
        DriverError::Net(NetError::Server { code, .. }) => later(code),
        // Sent from node to node more than the hops allow: the nodes
        // disagree for a moment (a lease changing hands).
        DriverError::Unexpected(_) => true,
        _ => false,
    }
}

/// The node of `nodes` a game goes to when several would take it: the
/// one whose hash with the game is the highest (rendezvous hashing), so
/// that both seats and the spectators of a game pick the same node.
pub fn pick(game_id: GameId, nodes: &[SocketAddr]) -> Option<SocketAddr> {
    nodes.iter().copied().max_by_key(|n| {
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        ctx.update(&game_id.0);
        ctx.update(n.to_string().as_bytes());
        let mut b = [0u8; 8];
        b.copy_from_slice(&ctx.finish().as_ref()[..8]);
        u64::from_be_bytes(b)
    })
}

/// What one node answered.
enum Probe {
    /// It answered where the game is.
    Located(SocketAddr, Client, Location),
    /// It predates [`Client::locate`]: joined as it is.
    Old(SocketAddr, Client),
    /// It could not be reached, or refused.
    Failed(SocketAddr, DriverError),
}

/// Every address of `name` (HOST:PORT; the names of one league's nodes, a
/// DNS name with several records, an IP address), IPv4 first.
pub async fn addresses(name: &str) -> Vec<SocketAddr> {
    if let Ok(addr) = name.parse::<SocketAddr>() {
        return vec![addr];
    }
    let mut found: Vec<SocketAddr> = match tokio::net::lookup_host(name).await {
        Ok(a) => a.collect(),
        Err(_) => Vec::new(),
    };
    found.sort_by_key(|a| a.is_ipv6());
    found.dedup();
    found
}

/// A client's way to its game across a league's nodes (see the module).
#[derive(Clone, Debug)]
pub struct Follower {
    /// The nodes as named (HOST:PORT), given first, then learned.
    nodes: Vec<String>,
    trust: ServerTrust,
    key_pkcs8: Vec<u8>,
}

impl Follower {
    /// A follower over `nodes` (HOST:PORT each, as given: `--server`, the
    /// invite, the config file), trusting the league's certificate by
    /// `trust` and logging in with the Ed25519 PKCS#8 key.
    pub fn new(nodes: Vec<String>, trust: ServerTrust, key_pkcs8: &[u8]) -> Follower {
        let mut f = Follower {
            nodes: Vec::new(),
            trust,
            key_pkcs8: key_pkcs8.to_vec(),
        };
        f.learn(nodes);
        f
    }

    /// The nodes known, as named.
    pub fn nodes(&self) -> &[String] {
        &self.nodes
    }

    /// Adds nodes a node named (the league's live nodes).
    pub fn learn(&mut self, nodes: impl IntoIterator<Item = String>) {
        for n in nodes {
            let n = n.trim().to_owned();
            if !n.is_empty() && !self.nodes.contains(&n) {
                self.nodes.push(n);
            }
        }
    }

    /// Every address of every node known, `first` before the others.
    async fn candidates(&self, first: Option<&str>) -> Vec<SocketAddr> {
        let mut names: Vec<&str> = first.into_iter().collect();
        names.extend(self.nodes.iter().map(String::as_str));
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for name in names {
            for a in addresses(name).await {
                if seen.insert(a) {
                    out.push(a);
                }
            }
        }
        out
    }

    /// A logged-in client of the first node that answers, all tried at
    /// once (each within twice [`PROBE_TIMEOUT`]): how `create`, `list`
    /// and a first join reach a league whatever node is down. Of the
    /// failures, one that trying again cannot mend (a wrong fingerprint)
    /// is the one reported.
    pub async fn connect_any(&self) -> Result<Client, DriverError> {
        let mut tries = JoinSet::new();
        for addr in self.candidates(None).await {
            let (trust, key) = (self.trust.clone(), self.key_pkcs8.clone());
            tries.spawn(async move {
                Client::connect_within(addr, trust, &key, PROBE_TIMEOUT * 2).await
            });
        }
        let mut last = None;
        while let Some(done) = tries.join_next().await {
            match done {
                Ok(Ok(c)) => {
                    tries.abort_all();
                    return Ok(c);
                }
                Ok(Err(e)) if last.as_ref().is_none_or(retryable) => last = Some(e),
                _ => {}
            }
        }
        Err(last.unwrap_or_else(|| {
            DriverError::Unexpected(format!(
                "no address found for the server(s) {}",
                self.nodes.join(", ")
            ))
        }))
    }

    /// Connects to `addr` and asks it where `game_id` is.
    async fn probe(addr: SocketAddr, trust: ServerTrust, key: Vec<u8>, game_id: GameId) -> Probe {
        let mut client = match Client::connect_within(addr, trust, &key, PROBE_TIMEOUT).await {
            Ok(c) => c,
            Err(e) => return Probe::Failed(addr, e),
        };
        match client.locate(game_id, PROBE_TIMEOUT).await {
            Ok(loc) => Probe::Located(addr, client, loc),
            Err(DriverError::Server {
                code: ErrorCode::Malformed,
                ..
            }) => Probe::Old(addr, client),
            Err(e) => {
                client.close().await;
                Probe::Failed(addr, e)
            }
        }
    }

    /// A logged-in client of the node that serves `game_id` now, or will
    /// take it over when joined (see the module), looked for from `hint`
    /// (where the last node said the game went) and every node known;
    /// each step said once through `say`. Fails when nothing may come of
    /// trying again (a wrong fingerprint, an unknown game), or after
    /// [`GIVE_UP_AFTER`].
    pub async fn find(
        &mut self,
        game_id: GameId,
        hint: Option<String>,
        say: &mut dyn FnMut(&str),
    ) -> Result<Client, DriverError> {
        let mut backoff = Backoff::new();
        let mut hint = hint;
        let mut said = String::new();
        let mut tell = |text: String, say: &mut dyn FnMut(&str)| {
            if text != said {
                say(&text);
                said = text;
            }
        };
        loop {
            let candidates = self.candidates(hint.as_deref()).await;
            let mut probes = JoinSet::new();
            for addr in &candidates {
                probes.spawn(Self::probe(
                    *addr,
                    self.trust.clone(),
                    self.key_pkcs8.clone(),
                    game_id,
                ));
            }
            let (mut here, mut old, mut failed) = (Vec::new(), Vec::new(), Vec::new());
            let mut holder: Option<(String, String, u64)> = None;
            // Once a node said it takes the game, the others get a moment
            // more to say so too (every member then picks the same one),
            // not the whole probe time of a node that does not answer.
            let mut decide_by: Option<Instant> = None;
            loop {
                let next = match decide_by {
                    Some(at) => match tokio::time::timeout_at(at, probes.join_next()).await {
                        Ok(next) => next,
                        Err(_) => break,
                    },
                    None => probes.join_next().await,
                };
                let Some(done) = next else { break };
                match done {
                    Ok(Probe::Located(addr, client, loc)) => {
                        self.learn(loc.nodes.clone());
                        match loc.owner {
                            GameOwner::ThisNode => {
                                here.push((addr, client));
                                decide_by.get_or_insert(Instant::now() + GRACE);
                            }
                            GameOwner::OtherNode {
                                node,
                                address,
                                lease_left_ms,
                            } => {
                                holder = Some((node, address, lease_left_ms));
                                client.close().await;
                            }
                            GameOwner::Leaving => client.close().await,
                        }
                    }
                    Ok(Probe::Old(addr, client)) => {
                        old.push((addr, client));
                        decide_by.get_or_insert(Instant::now() + GRACE);
                    }
                    Ok(Probe::Failed(addr, e)) => failed.push((addr, e)),
                    Err(_) => {}
                }
            }
            // Probes still running are of nodes too slow to matter now.
            probes.abort_all();
            let addrs: Vec<SocketAddr> = here.iter().map(|(a, _)| *a).collect();
            if let Some(chosen) = pick(game_id, &addrs) {
                let mut client = None;
                for (a, c) in here {
                    if a == chosen {
                        client = Some(c);
                    } else {
                        c.close().await;
                    }
                }
                for (_, c) in old {
                    c.close().await;
                }
                return client.ok_or_else(|| DriverError::Unexpected("chosen node lost".into()));
            }
            if let Some((_, client)) = old.into_iter().next() {
                return Ok(client);
            }
            // Nothing may come of trying again: every node that answered
            // refused for good (a wrong fingerprint, an unknown game).
            if holder.is_none() && !failed.is_empty() && failed.iter().all(|(_, e)| !retryable(e)) {
                let (_, e) = failed.swap_remove(0);
                return Err(e);
            }
            if !backoff.time_left() {
                return Err(match failed.pop() {
                    Some((_, e)) => e,
                    None => DriverError::Unexpected(format!(
                        "no node took game {game_id} over within {} s",
                        GIVE_UP_AFTER.as_secs()
                    )),
                });
            }
            match holder {
                // The game's lease is held by a node that does not answer
                // (else it would have said it serves it): its lease runs
                // out, then the next node asked takes the game over.
                Some((node, address, left_ms)) => {
                    let left = Duration::from_millis(left_ms);
                    tell(
                        format!(
                            "node {} ({}) holds the game and does not answer; waiting for another node to take the game over (lease ends in {} s)",
                            visible(&address),
                            visible(&node),
                            left.as_secs_f64().ceil() as u64
                        ),
                        say,
                    );
                    // It may answer at its address though: asked first.
                    hint = Some(address);
                    tokio::time::sleep(left.min(MAX_LEASE_WAIT) + jitter(FIRST_PAUSE)).await;
                }
                None => {
                    let pause = backoff.next_pause();
                    let tried: Vec<String> = candidates.iter().map(|a| a.to_string()).collect();
                    tell(
                        if tried.is_empty() {
                            format!(
                                "no address found for {}; trying again",
                                self.nodes.join(", ")
                            )
                        } else {
                            format!(
                                "no node answers for the game (tried {}); trying again",
                                tried.join(", ")
                            )
                        },
                        say,
                    );
                    tokio::time::sleep(pause).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_with_jitter_up_to_the_most() {
        let mut b = Backoff::new();
        let mut expected = FIRST_PAUSE;
        for _ in 0..8 {
            let p = b.next_pause();
            assert!(p >= expected / 2 && p <= expected, "{p:?} of {expected:?}");
            expected = (expected * 2).min(MAX_PAUSE);
        }
    }

    // Issue 25: every member of a game picks the same node among those
    // that would take it, and games spread over the nodes.
    #[test]
    fn every_member_of_a_game_picks_the_same_node() {
        let nodes: Vec<SocketAddr> = (1..=3)
            .map(|p| format!("127.0.0.1:{}", 4430 + p).parse().unwrap())
            .collect();
        let mut reversed = nodes.clone();
        reversed.reverse();
        let mut chosen = BTreeSet::new();
        for g in 0..32u8 {
            let game = GameId([g; 16]);
            assert_eq!(pick(game, &nodes), pick(game, &reversed));
            chosen.insert(pick(game, &nodes).unwrap());
        }
        assert_eq!(chosen.len(), 3, "32 games over 3 nodes use all three");
        assert_eq!(pick(GameId([0; 16]), &[]), None);
    }

    #[tokio::test]
    async fn names_resolve_to_every_address() {
        assert_eq!(
            addresses("127.0.0.1:4433").await,
            ["127.0.0.1:4433".parse::<SocketAddr>().unwrap()]
        );
        let local = addresses("localhost:4433").await;
        assert!(
            local.contains(&"127.0.0.1:4433".parse().unwrap()),
            "{local:?}"
        );
        let mut f = Follower::new(
            vec!["a:1".into(), " a:1".into()],
            ServerTrust::Pinned(hexveil_net::tls::Fingerprint([0; 32])),
            b"",
        );
        f.learn(["b:2".to_string(), "a:1".to_string()]);
        assert_eq!(f.nodes(), ["a:1", "b:2"]);
    }
}
