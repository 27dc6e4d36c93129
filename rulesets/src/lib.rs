//! Every ruleset this build plays. The protocol knows none of them: the
//! server, the client and `hexveil verify` hand it this registry, and a
//! genesis names the ruleset (id and version) to look up in it.

use hexveil_core::{Registry, Ruleset};
use std::sync::Arc;

pub use hexveil_asl::ruleset::{Asl, AslV1, AslV2};
pub use hexveil_minis::{Minis, MinisV1};

/// The registry of every ruleset in this build.
pub fn all() -> Registry {
    Registry::new(vec![
        Arc::new(Asl) as Arc<dyn Ruleset>,
        Arc::new(AslV2) as Arc<dyn Ruleset>,
        Arc::new(AslV1) as Arc<dyn Ruleset>,
        Arc::new(Minis) as Arc<dyn Ruleset>,
        Arc::new(MinisV1) as Arc<dyn Ruleset>,
    ])
}

/// The id of the ruleset a game is made with when none is named.
pub const DEFAULT: &str = hexveil_asl::ruleset::ID;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ruleset_is_found_by_its_id_and_version_g5() {
        let all = all();
        let asl = all.find("asl", 1).unwrap();
        assert_eq!(asl.id(), "asl");
        assert_eq!(all.find("minis", 1).unwrap().id(), "minis");
        assert_eq!(all.find("minis", 2).unwrap().version(), 2);
        assert!(all.find("minis", 3).is_err());
        assert_eq!(all.latest("minis").unwrap().version(), 2);
        let e = all.find("chess", 1).err().unwrap();
        assert!(e.to_string().contains("\"chess\""), "{e}");
        assert!(e.to_string().contains("asl v1"), "{e}");
        // New games take ASL version 3 (rulings R71-R80); the games of
        // versions 2 (AslV2) and 1 (AslV1) still replay.
        assert_eq!(all.latest("asl").unwrap().version(), 3);
        assert_eq!(all.find("asl", 2).unwrap().version(), 2);
        assert_eq!(all.find("asl", 3).unwrap().version(), 3);
    }
}
