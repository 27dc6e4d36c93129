//! Fair shares of what protects the server (issue 31, G6): every total
//! (connections, event streams, watched games, unfinished games, rebuilds
//! of finished games) is shared among the parties that can be told apart
//! at the cost an attacker pays for another one. A key costs nothing, so a
//! key's share of anything costly is also bounded by its address's; an
//! IPv4 address costs something, a whole IPv4 /24 more; an IPv6 host gets
//! a /64 for free and a site a /48, so those are IPv6's address and
//! network ([`Grouping`]).
//!
//! A client's [`Party`] is its address and its network, each a [`Prefix`].
//! A [`Shares`] table counts what each address and each network holds and
//! refuses a party whose address or network already holds its cap, or
//! when the total is reached: one address (or one /64) can never take a
//! whole table, one network never more than its share, and filling a
//! table takes `total / per_network` networks. A [`Budget`] is the same
//! idea over time: token buckets per key, per address and per network, all
//! three paid at once.
//!
//! The defaults and the policy are in docs/DEPLOYMENT.md ("Sharing the
//! server fairly").

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use thiserror::Error;

use crate::rate::{RateLimit, TokenBucket};
use crate::wire::PublicKey;

/// Default prefix of an IPv4 client's network: a /24.
pub const DEFAULT_IPV4_NETWORK: u8 = 24;
/// Default prefix of an IPv6 client's address: the /64 every IPv6 host
/// is given.
pub const DEFAULT_IPV6_ADDRESS: u8 = 64;
/// Default prefix of an IPv6 client's network: the /48 of a site.
pub const DEFAULT_IPV6_NETWORK: u8 = 48;

/// An IP prefix: an address with every bit past `len` cleared. IPv4
/// addresses mapped into IPv6 (`::ffff:a.b.c.d`, as a dual-stack socket
/// reports them) are IPv4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Prefix {
    addr: IpAddr,
    len: u8,
}

impl Prefix {
    /// The prefix of `len` bits holding `ip` (`len` is capped at the
    /// address's width).
    pub fn of(ip: IpAddr, len: u8) -> Prefix {
        match plain(ip) {
            IpAddr::V4(v4) => {
                let len = len.min(32);
                let mask = u32::MAX.checked_shl(u32::from(32 - len)).unwrap_or(0);
                Prefix {
                    addr: IpAddr::V4(Ipv4Addr::from(u32::from(v4) & mask)),
                    len,
                }
            }
            IpAddr::V6(v6) => {
                let len = len.min(128);
                let mask = u128::MAX.checked_shl(u32::from(128 - len)).unwrap_or(0);
                Prefix {
                    addr: IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask)),
                    len,
                }
            }
        }
    }

    /// Whether `ip` is inside this prefix.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = plain(ip);
        ip.is_ipv4() == self.addr.is_ipv4() && Prefix::of(ip, self.len) == *self
    }

    /// The prefix's first address.
    pub fn addr(&self) -> IpAddr {
        self.addr
    }

    /// Its length in bits.
    pub fn len(&self) -> u8 {
        self.len
    }

    /// Whether it is a whole address family (length 0).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

/// `ip`, with an IPv4 address mapped into IPv6 turned back into IPv4.
pub fn plain(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

/// One client as the shares see it: its address (an IPv4 /32, an IPv6
/// /64 by default) and its network (an IPv4 /24, an IPv6 /48 by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Party {
    /// The client's address.
    pub address: Prefix,
    /// The client's network.
    pub network: Prefix,
}

/// How client addresses are grouped into parties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grouping {
    ipv4_network: u8,
    ipv6_address: u8,
    ipv6_network: u8,
}

impl Default for Grouping {
    /// IPv4: the address (/32) and its /24; IPv6: the /64 and its /48.
    fn default() -> Self {
        Grouping {
            ipv4_network: DEFAULT_IPV4_NETWORK,
            ipv6_address: DEFAULT_IPV6_ADDRESS,
            ipv6_network: DEFAULT_IPV6_NETWORK,
        }
    }
}

/// Why prefix lengths are not a grouping.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum GroupingError {
    /// `ipv4_network_prefix` is not between 8 and 32.
    #[error("ipv4_network_prefix = {0} is out of range: must be between 8 and 32 (24: a /24 is one network; 32: every address is its own)")]
    Ipv4Network(u8),
    /// `ipv6_address_prefix` is not between 32 and 128.
    #[error("ipv6_address_prefix = {0} is out of range: must be between 32 and 128 (64: the /64 every IPv6 host is given)")]
    Ipv6Address(u8),
    /// `ipv6_network_prefix` is not between 16 and the address prefix.
    #[error("ipv6_network_prefix = {network} is out of range: must be between 16 and ipv6_address_prefix = {address}")]
    Ipv6Network {
        /// The network prefix given.
        network: u8,
        /// The address prefix.
        address: u8,
    },
}

impl Grouping {
    /// A grouping: IPv4 networks of `ipv4_network` bits (an IPv4 address
    /// is always its /32), IPv6 addresses of `ipv6_address` bits in
    /// networks of `ipv6_network` bits.
    pub fn new(
        ipv4_network: u8,
        ipv6_address: u8,
        ipv6_network: u8,
    ) -> Result<Self, GroupingError> {
        if !(8..=32).contains(&ipv4_network) {
            return Err(GroupingError::Ipv4Network(ipv4_network));
        }
        if !(32..=128).contains(&ipv6_address) {
            return Err(GroupingError::Ipv6Address(ipv6_address));
        }
        if !(16..=ipv6_address).contains(&ipv6_network) {
            return Err(GroupingError::Ipv6Network {
                network: ipv6_network,
                address: ipv6_address,
            });
        }
        Ok(Grouping {
            ipv4_network,
            ipv6_address,
            ipv6_network,
        })
    }

    /// The party of a client at `ip`.
    pub fn party(&self, ip: IpAddr) -> Party {
        match plain(ip) {
            ip @ IpAddr::V4(_) => Party {
                address: Prefix::of(ip, 32),
                network: Prefix::of(ip, self.ipv4_network),
            },
            ip @ IpAddr::V6(_) => Party {
                address: Prefix::of(ip, self.ipv6_address),
                network: Prefix::of(ip, self.ipv6_network),
            },
        }
    }

    /// The IPv4 network prefix length.
    pub fn ipv4_network(&self) -> u8 {
        self.ipv4_network
    }

    /// The IPv6 address prefix length.
    pub fn ipv6_address(&self) -> u8 {
        self.ipv6_address
    }

    /// The IPv6 network prefix length.
    pub fn ipv6_network(&self) -> u8 {
        self.ipv6_network
    }
}

/// The caps of one shared total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareCaps {
    /// What all parties together may hold.
    pub total: usize,
    /// What one address may hold.
    pub per_address: usize,
    /// What one network may hold.
    pub per_network: usize,
}

/// The names of a table's settings, for the words of a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareNames {
    /// What is counted, plural (`connections`, `event streams`).
    pub what: &'static str,
    /// The setting of the total.
    pub total: &'static str,
    /// The setting of an address's share.
    pub per_address: &'static str,
    /// The setting of a network's share.
    pub per_network: &'static str,
}

/// A party was refused a place in a [`Shares`] table: what was full.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum Refused {
    /// The table is full.
    #[error("this server already holds {held} {what}, its {setting} = {limit}; try again later")]
    Total {
        /// What is counted.
        what: &'static str,
        /// How many are held.
        held: usize,
        /// The cap.
        limit: usize,
        /// Its setting.
        setting: &'static str,
    },
    /// The party's address holds its share.
    #[error("address {prefix} already holds {held} {what}, this server's {setting} = {limit}; close one first")]
    Address {
        /// The address.
        prefix: Prefix,
        /// What is counted.
        what: &'static str,
        /// How many it holds.
        held: usize,
        /// The cap.
        limit: usize,
        /// Its setting.
        setting: &'static str,
    },
    /// The party's network holds its share.
    #[error("network {prefix} already holds {held} {what}, this server's {setting} = {limit}; close one first")]
    Network {
        /// The network.
        prefix: Prefix,
        /// What is counted.
        what: &'static str,
        /// How many it holds.
        held: usize,
        /// The cap.
        limit: usize,
        /// Its setting.
        setting: &'static str,
    },
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    by_address: HashMap<Prefix, usize>,
    by_network: HashMap<Prefix, usize>,
}

/// A total shared fairly among parties (see the module).
#[derive(Debug)]
pub struct Shares {
    names: ShareNames,
    caps: ShareCaps,
    counts: Mutex<Counts>,
}

/// One place held in a [`Shares`] table; given back when dropped.
#[derive(Debug)]
pub struct Share {
    shares: Arc<Shares>,
    party: Option<Party>,
}

impl Shares {
    /// An empty table with these caps, named for its refusals.
    pub fn new(names: ShareNames, caps: ShareCaps) -> Arc<Shares> {
        Arc::new(Shares {
            names,
            caps,
            counts: Mutex::new(Counts::default()),
        })
    }

    /// The caps.
    pub fn caps(&self) -> ShareCaps {
        self.caps
    }

    /// Takes a place for `party`, unless its address or network holds its
    /// share or the table is full.
    pub fn take(self: &Arc<Self>, party: &Party) -> Result<Share, Refused> {
        self.take_for(Some(party))
    }

    /// Takes a place counted in the total only (a trusted proxy, whose
    /// clients are told apart later).
    pub fn take_unshared(self: &Arc<Self>) -> Result<Share, Refused> {
        self.take_for(None)
    }

    fn take_for(self: &Arc<Self>, party: Option<&Party>) -> Result<Share, Refused> {
        let n = self.names;
        let mut counts = self.counts.lock().expect("shares lock poisoned");
        if let Some(party) = party {
            let held = counts.by_address.get(&party.address).copied().unwrap_or(0);
            if held >= self.caps.per_address {
                return Err(Refused::Address {
                    prefix: party.address,
                    what: n.what,
                    held,
                    limit: self.caps.per_address,
                    setting: n.per_address,
                });
            }
            let held = counts.by_network.get(&party.network).copied().unwrap_or(0);
            if held >= self.caps.per_network {
                return Err(Refused::Network {
                    prefix: party.network,
                    what: n.what,
                    held,
                    limit: self.caps.per_network,
                    setting: n.per_network,
                });
            }
        }
        if counts.total >= self.caps.total {
            return Err(Refused::Total {
                what: n.what,
                held: counts.total,
                limit: self.caps.total,
                setting: n.total,
            });
        }
        counts.total += 1;
        if let Some(party) = party {
            *counts.by_address.entry(party.address).or_insert(0) += 1;
            *counts.by_network.entry(party.network).or_insert(0) += 1;
        }
        Ok(Share {
            shares: self.clone(),
            party: party.copied(),
        })
    }

    /// Places held: in all, by `party`'s address and by its network.
    pub fn held(&self, party: &Party) -> (usize, usize, usize) {
        let counts = self.counts.lock().expect("shares lock poisoned");
        (
            counts.total,
            counts.by_address.get(&party.address).copied().unwrap_or(0),
            counts.by_network.get(&party.network).copied().unwrap_or(0),
        )
    }

    /// Places held in all.
    pub fn total(&self) -> usize {
        self.counts.lock().expect("shares lock poisoned").total
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut counts = self.shares.counts.lock().expect("shares lock poisoned");
        counts.total -= 1;
        if let Some(party) = &self.party {
            release(&mut counts.by_address, &party.address);
            release(&mut counts.by_network, &party.network);
        }
    }
}

fn release(map: &mut HashMap<Prefix, usize>, key: &Prefix) {
    if let Some(n) = map.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            map.remove(key);
        }
    }
}

/// Token buckets a table of parties keeps at most; buckets that are full
/// again (their party lost nothing by being forgotten) go first.
pub const BUDGET_BUCKETS: usize = 4096;

/// The rates of a [`Budget`], per key, per address and per network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetRates {
    /// One key's.
    pub per_key: RateLimit,
    /// One address's.
    pub per_address: RateLimit,
    /// One network's.
    pub per_network: RateLimit,
}

/// A budget over time (what a party may cause per second) paid by the
/// key, its address and its network at once: a party whose key, address or
/// network has run out pays nothing and is refused.
#[derive(Debug)]
pub struct Budget {
    rates: BudgetRates,
    tables: Mutex<Tables>,
}

#[derive(Debug, Default)]
struct Tables {
    keys: HashMap<PublicKey, TokenBucket>,
    addresses: HashMap<Prefix, TokenBucket>,
    networks: HashMap<Prefix, TokenBucket>,
}

/// Whose budget ran out.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum OverBudget {
    /// The key's.
    #[error("key {key} has used its budget (at most {} a second, bursts of {})", .rate.frames_per_second, .rate.burst)]
    Key {
        /// The key.
        key: PublicKey,
        /// Its rate.
        rate: RateLimit,
    },
    /// The address's.
    #[error("address {prefix} has used its budget (at most {} a second, bursts of {})", .rate.frames_per_second, .rate.burst)]
    Address {
        /// The address.
        prefix: Prefix,
        /// Its rate.
        rate: RateLimit,
    },
    /// The network's.
    #[error("network {prefix} has used its budget (at most {} a second, bursts of {})", .rate.frames_per_second, .rate.burst)]
    Network {
        /// The network.
        prefix: Prefix,
        /// Its rate.
        rate: RateLimit,
    },
    /// Too many parties are spending at once to keep track of them all.
    #[error("too many clients are spending this budget at once; try again later")]
    Crowded,
}

impl Budget {
    /// Full budgets at these rates.
    pub fn new(rates: BudgetRates) -> Budget {
        Budget {
            rates,
            tables: Mutex::new(Tables::default()),
        }
    }

    /// Takes one from `key`'s (if any), `party`'s address's and its
    /// network's (if any) budgets at `now`, or from none of them.
    pub fn take(
        &self,
        key: Option<PublicKey>,
        party: Option<&Party>,
        now: Instant,
    ) -> Result<(), OverBudget> {
        let mut t = self.tables.lock().expect("budget lock poisoned");
        let mut parts = None;
        if let Some(party) = party {
            let network = probe(&mut t.networks, party.network, self.rates.per_network, now)
                .ok_or(OverBudget::Crowded)?
                .ok_or(OverBudget::Network {
                    prefix: party.network,
                    rate: self.rates.per_network,
                })?;
            let address = probe(&mut t.addresses, party.address, self.rates.per_address, now)
                .ok_or(OverBudget::Crowded)?
                .ok_or(OverBudget::Address {
                    prefix: party.address,
                    rate: self.rates.per_address,
                })?;
            parts = Some((network, address));
        }
        let key = match key {
            Some(k) => Some((
                k,
                probe(&mut t.keys, k, self.rates.per_key, now)
                    .ok_or(OverBudget::Crowded)?
                    .ok_or(OverBudget::Key {
                        key: k,
                        rate: self.rates.per_key,
                    })?,
            )),
            None => None,
        };
        if let (Some(party), Some((network, address))) = (party, parts) {
            t.networks.insert(party.network, network);
            t.addresses.insert(party.address, address);
        }
        if let Some((k, bucket)) = key {
            t.keys.insert(k, bucket);
        }
        Ok(())
    }
}

/// `key`'s bucket after one is taken at `now`, not stored yet: `None` if
/// the table is full of parties still paying back, `Some(None)` if the
/// bucket is empty.
fn probe<K: std::hash::Hash + Eq>(
    table: &mut HashMap<K, TokenBucket>,
    key: K,
    rate: RateLimit,
    now: Instant,
) -> Option<Option<TokenBucket>> {
    if table.len() >= BUDGET_BUCKETS && !table.contains_key(&key) {
        // Forget the parties whose budget is whole again.
        table.retain(|_, b| !b.is_full(now));
        if table.len() >= BUDGET_BUCKETS {
            return None;
        }
    }
    let mut bucket = table
        .get(&key)
        .cloned()
        .unwrap_or_else(|| TokenBucket::new(rate, now));
    Some(bucket.try_take(now).ok().map(|()| bucket))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;
    use std::time::Duration;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    // Issue 31: the prefix arithmetic of both families, the IPv6 /64 and
    // /48 (loopback gives no second IPv6 prefix to test with), and IPv4
    // mapped into IPv6 counted as IPv4.
    #[test]
    fn issue31_prefixes_mask_the_host_bits_of_both_families() {
        let p = Prefix::of(ip("2001:db8:1234:5678:9abc:def0:1234:5678"), 64);
        assert_eq!(p.to_string(), "2001:db8:1234:5678::/64");
        let p = Prefix::of(ip("2001:db8:1234:5678:9abc:def0:1234:5678"), 48);
        assert_eq!(p.to_string(), "2001:db8:1234::/48");
        assert_eq!(Prefix::of(ip("2001:db8::1"), 0).to_string(), "::/0");
        assert_eq!(
            Prefix::of(ip("2001:db8::1"), 128).to_string(),
            "2001:db8::1/128"
        );
        assert_eq!(Prefix::of(ip("2001:db8::1"), 200).len(), 128);
        // Not on a byte boundary.
        assert_eq!(
            Prefix::of(ip("2001:db8:ffff::"), 36).to_string(),
            "2001:db8:f000::/36"
        );
        assert_eq!(
            Prefix::of(ip("203.0.113.77"), 24).to_string(),
            "203.0.113.0/24"
        );
        assert_eq!(
            Prefix::of(ip("203.0.113.77"), 22).to_string(),
            "203.0.112.0/22"
        );
        assert_eq!(
            Prefix::of(ip("203.0.113.77"), 32).to_string(),
            "203.0.113.77/32"
        );
        assert_eq!(Prefix::of(ip("203.0.113.77"), 0).to_string(), "0.0.0.0/0");
        // A dual-stack socket's view of an IPv4 client.
        let mapped = ip("::ffff:203.0.113.77");
        assert_eq!(Prefix::of(mapped, 24).to_string(), "203.0.113.0/24");
        let net = Prefix::of(ip("2001:db8:1:2::"), 48);
        assert!(net.contains(ip("2001:db8:1:ffff::1")));
        assert!(!net.contains(ip("2001:db8:2::1")));
        assert!(!net.contains(ip("32.1.13.184")), "another family");
        assert!(Prefix::of(ip("10.1.2.3"), 24).contains(ip("::ffff:10.1.2.200")));
    }

    // Issue 31: a party is an IPv4 address in its /24 (or /32 as
    // configured), an IPv6 /64 in its /48; every address of one /64 is
    // one party.
    #[test]
    fn issue31_parties_are_ipv6_64s_in_48s_and_ipv4_addresses_in_24s() {
        let g = Grouping::default();
        let a = g.party(ip("2001:db8:aa:1:1::1"));
        let b = g.party(ip("2001:db8:aa:1:ffff:ffff:ffff:ffff"));
        assert_eq!(a, b, "one /64 is one address however many it holds");
        let c = g.party(ip("2001:db8:aa:2::1"));
        assert_ne!(a.address, c.address);
        assert_eq!(a.network, c.network, "two /64s of one /48");
        assert_eq!(a.network.to_string(), "2001:db8:aa::/48");
        let v4 = g.party(ip("198.51.100.7"));
        assert_eq!(v4.address.to_string(), "198.51.100.7/32");
        assert_eq!(v4.network.to_string(), "198.51.100.0/24");
        let exact = Grouping::new(32, 64, 48).unwrap();
        assert_eq!(
            exact.party(ip("198.51.100.7")).network.to_string(),
            "198.51.100.7/32"
        );
        assert_eq!(
            Grouping::new(33, 64, 48),
            Err(GroupingError::Ipv4Network(33))
        );
        assert_eq!(
            Grouping::new(24, 64, 72).unwrap_err().to_string(),
            "ipv6_network_prefix = 72 is out of range: must be between 16 and ipv6_address_prefix = 64"
        );
        assert!(Grouping::new(24, 16, 16).is_err());
    }

    const NAMES: ShareNames = ShareNames {
        what: "connections",
        total: "max_connections",
        per_address: "max_connections_per_address",
        per_network: "max_connections_per_network",
    };

    // G6 (issue 31): one address holds at most its share, one network at
    // most its own, and the total holds; a share given back is free again.
    #[test]
    fn g6_shares_cap_an_address_a_network_and_the_total() {
        let s = Shares::new(
            NAMES,
            ShareCaps {
                total: 5,
                per_address: 2,
                per_network: 3,
            },
        );
        let g = Grouping::default();
        let (a1, a2, b1, c1) = (
            g.party(ip("10.0.0.1")),
            g.party(ip("10.0.0.2")),
            g.party(ip("10.0.1.1")),
            g.party(ip("10.0.2.1")),
        );
        let first = s.take(&a1).unwrap();
        let _second = s.take(&a1).unwrap();
        let e = s.take(&a1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "address 10.0.0.1/32 already holds 2 connections, this server's max_connections_per_address = 2; close one first"
        );
        let _third = s.take(&a2).unwrap();
        let e = s.take(&a2).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("network 10.0.0.0/24 already holds 3 connections"),
            "{e}"
        );
        let _b = s.take(&b1).unwrap();
        let _unshared = s.take_unshared().unwrap();
        assert!(matches!(s.take(&c1), Err(Refused::Total { held: 5, .. })));
        assert_eq!(s.held(&a1), (5, 2, 3));
        drop(first);
        assert_eq!(s.held(&a1), (4, 1, 2));
        let _c = s.take(&c1).unwrap();
    }

    fn rate(per_second: u32, burst: u32) -> RateLimit {
        RateLimit {
            frames_per_second: NonZeroU32::new(per_second).unwrap(),
            burst: NonZeroU32::new(burst).unwrap(),
        }
    }

    // G6 (issue 31): fresh keys do not get around a budget: the address
    // pays too, and its network; a refusal costs none of the three.
    #[test]
    fn g6_a_budget_is_paid_by_the_key_its_address_and_its_network() {
        let b = Budget::new(BudgetRates {
            per_key: rate(1, 2),
            per_address: rate(1, 3),
            per_network: rate(1, 4),
        });
        let g = Grouping::default();
        let t0 = Instant::now();
        let (a, a2, other) = (
            g.party(ip("10.0.0.1")),
            g.party(ip("10.0.0.2")),
            g.party(ip("10.9.0.1")),
        );
        let key = |n: u8| Some(PublicKey([n; 32]));
        b.take(key(1), Some(&a), t0).unwrap();
        b.take(key(1), Some(&a), t0).unwrap();
        assert!(matches!(
            b.take(key(1), Some(&a), t0),
            Err(OverBudget::Key { .. })
        ));
        b.take(key(2), Some(&a), t0).unwrap();
        // A fresh key from the same address: the address's budget is spent.
        let e = b.take(key(3), Some(&a), t0).unwrap_err();
        assert!(matches!(e, OverBudget::Address { .. }), "{e}");
        // Another address of the network has one left, then the network is spent.
        b.take(None, Some(&a2), t0).unwrap();
        assert!(matches!(
            b.take(key(4), Some(&a2), t0),
            Err(OverBudget::Network { .. })
        ));
        // Another network is not affected; time refills.
        b.take(key(3), Some(&other), t0).unwrap();
        b.take(key(3), Some(&a), t0 + Duration::from_secs(1))
            .unwrap();
    }

    // G6: a table full of parties still paying back refuses newcomers
    // rather than forgetting what they owe; whole budgets are forgotten.
    #[test]
    fn g6_a_budget_forgets_only_whole_buckets() {
        let mut table = HashMap::new();
        let t0 = Instant::now();
        for i in 0..BUDGET_BUCKETS as u32 {
            let bucket = probe(&mut table, i, rate(1, 1), t0).unwrap().unwrap();
            table.insert(i, bucket);
        }
        assert!(probe(&mut table, u32::MAX, rate(1, 1), t0).is_none());
        let later = t0 + Duration::from_secs(2);
        assert!(probe(&mut table, u32::MAX, rate(1, 1), later)
            .unwrap()
            .is_some());
        assert!(table.is_empty(), "every bucket was whole again");
    }
}
