//! Values a process holds once while anyone holds them: every game of one
//! scenario shares its parse and its text (issue 16), and the last game to
//! let go of one frees it. Weak, so nothing is kept for a scenario no game
//! plays any more. A shared value is never changed after it is made, so a
//! holder rules with it exactly as with its own copy (G5).

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};

/// Values by key, held weakly (see the module's documentation). Made with
/// [`Shared::new`] in a `static`.
pub struct Shared<K, V: ?Sized> {
    held: OnceLock<Mutex<HashMap<K, Weak<V>>>>,
}

impl<K: Eq + Hash, V: ?Sized> Shared<K, V> {
    /// An empty store.
    pub const fn new() -> Self {
        Shared {
            held: OnceLock::new(),
        }
    }

    fn map(&self) -> MutexGuard<'_, HashMap<K, Weak<V>>> {
        self.held
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The value held under `key`, if anyone still holds it.
    pub fn get<Q>(&self, key: &Q) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.map().get(key).and_then(Weak::upgrade)
    }

    /// Holds `value` under `key`, or gives back the value held there
    /// already (made meanwhile by another caller): one copy either way.
    /// Keys whose values nobody holds any more are dropped.
    pub fn keep(&self, key: K, value: Arc<V>) -> Arc<V> {
        let mut map = self.map();
        if let Some(held) = map.get(&key).and_then(Weak::upgrade) {
            return held;
        }
        map.retain(|_, v| v.strong_count() > 0);
        map.insert(key, Arc::downgrade(&value));
        value
    }
}

impl<K: Eq + Hash, V: ?Sized> Default for Shared<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_copy_while_held_none_after() {
        static TEXTS: Shared<u8, str> = Shared::new();
        let a: Arc<str> = Arc::from("text");
        assert!(Arc::ptr_eq(&TEXTS.keep(1, a.clone()), &a));
        let b: Arc<str> = Arc::from("text");
        assert!(Arc::ptr_eq(&TEXTS.keep(1, b), &a), "the held copy wins");
        assert!(Arc::ptr_eq(&TEXTS.get(&1).unwrap(), &a));
        let weak = Arc::downgrade(&a);
        drop(a);
        assert!(weak.upgrade().is_none(), "the store keeps nothing alive");
        assert!(TEXTS.get(&1).is_none());
    }
}
