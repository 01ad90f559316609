//! WATCH bookkeeping as Redis 7.0.15 keeps it (`multi.c`): which clients watch which keys,
//! in watch order, and which clients' transactions a change has already doomed.
//!
//! A watch remembers whether its key was already logically expired when it was made. Such
//! a stale watch is not broken when the stale key is deleted (lazily, actively, by DEL or
//! FLUSHDB): logically nothing changed. Redis's `touchWatchedKey` stops walking a key's
//! watchers at a stale watch whose key still exists; that walk is reproduced as it is.

use crate::model::data::keyspace::Touch;
use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet};

/// One client's watch on one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KeyWatch {
    client: u64,
    /// The key was logically expired when watched, and has not been deleted since.
    expired: bool,
}

/// Every watch of a node.
#[derive(Debug, Default)]
pub(crate) struct Watches {
    /// (db, key) -> its watches, oldest first.
    by_key: BTreeMap<(usize, Bytes), Vec<KeyWatch>>,
    /// client -> the keys it watches.
    by_client: BTreeMap<u64, Vec<(usize, Bytes)>>,
    /// Clients whose EXEC must fail (`CLIENT_DIRTY_CAS`).
    dirty: BTreeSet<u64>,
}

impl Watches {
    pub(crate) fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// WATCH of `key` in `db` by `client`; a key already watched keeps its first watch.
    pub(crate) fn watch(&mut self, client: u64, db: usize, key: Bytes, expired: bool) {
        let keys = self.by_client.entry(client).or_default();
        if keys.iter().any(|(d, k)| *d == db && *k == key) {
            return;
        }
        keys.push((db, key.clone()));
        let watch = KeyWatch { client, expired };
        self.by_key.entry((db, key)).or_default().push(watch);
    }

    /// Drop every watch of `client` (UNWATCH, EXEC, DISCARD, or doomed by a change). The
    /// doomed mark stays until [`Watches::forget`].
    fn unwatch_keys(&mut self, client: u64) {
        for slot in self.by_client.remove(&client).unwrap_or_default() {
            if let Some(watches) = self.by_key.get_mut(&slot) {
                watches.retain(|w| w.client != client);
                if watches.is_empty() {
                    self.by_key.remove(&slot);
                }
            }
        }
    }

    /// Forget `client` entirely: its watches and its doomed mark.
    pub(crate) fn forget(&mut self, client: u64) {
        self.unwatch_keys(client);
        self.dirty.remove(&client);
    }

    /// A change of a key (`touchWatchedKey`).
    pub(crate) fn touch(&mut self, db: usize, touch: &Touch) {
        let Some(watches) = self.by_key.get_mut(&(db, touch.key.clone())) else {
            return;
        };
        let mut doomed = Vec::new();
        for watch in watches.iter_mut() {
            if watch.expired {
                if !touch.exists_after {
                    watch.expired = false; // the stale key is gone: no logical change
                    continue;
                }
                break; // Redis 7.0.15 stops here, sparing the later watchers
            }
            doomed.push(watch.client);
        }
        for client in doomed {
            self.dirty.insert(client);
            self.unwatch_keys(client);
        }
    }

    /// SWAPDB's view of database `emptied`, whose contents become those of
    /// `replaced_with` (`touchAllWatchedKeysInDb`). `exists(db, key)` and
    /// `expired(db, key)` read the databases before the swap.
    pub(crate) fn touch_swapped(
        &mut self,
        emptied: usize,
        replaced_with: usize,
        exists: impl Fn(usize, &[u8]) -> bool,
        expired: impl Fn(usize, &[u8]) -> bool,
    ) {
        let mut doomed = Vec::new();
        for ((db, key), watches) in self.by_key.iter_mut() {
            if *db != emptied {
                continue;
            }
            let in_emptied = exists(emptied, key);
            let in_replacement = exists(replaced_with, key);
            if !in_emptied && !in_replacement {
                continue;
            }
            for watch in watches.iter_mut() {
                if watch.expired {
                    if !in_replacement {
                        watch.expired = false;
                        continue;
                    } else if expired(replaced_with, key) {
                        continue;
                    }
                } else if !in_emptied && expired(replaced_with, key) {
                    watch.expired = true;
                    continue;
                }
                // Redis marks the client here without unwatching it.
                doomed.push(watch.client);
            }
        }
        self.dirty.extend(doomed);
    }

    /// True if `client`'s EXEC must abort: a watched key changed, or one that was live when
    /// watched is now logically expired (`isWatchedKeyExpired`).
    pub(crate) fn broken(&self, client: u64, is_expired: impl Fn(usize, &[u8]) -> bool) -> bool {
        if self.dirty.contains(&client) {
            return true;
        }
        let keys = self.by_client.get(&client).map_or(&[][..], Vec::as_slice);
        keys.iter().any(|slot| {
            let stale = self.by_key[slot]
                .iter()
                .any(|w| w.client == client && w.expired);
            !stale && is_expired(slot.0, &slot.1)
        })
    }

    /// A restart: no connection survives, so no watch does.
    pub(crate) fn clear(&mut self) {
        *self = Watches::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(key: &'static str, exists_after: bool) -> Touch {
        Touch {
            key: Bytes::from_static(key.as_bytes()),
            exists_after,
        }
    }

    fn key(k: &'static str) -> Bytes {
        Bytes::from_static(k.as_bytes())
    }

    #[test]
    fn a_change_dooms_every_watcher_and_drops_its_watches() {
        let mut w = Watches::default();
        w.watch(1, 0, key("k"), false);
        w.watch(1, 0, key("j"), false);
        w.watch(2, 0, key("k"), false);
        w.touch(0, &touch("k", true));
        assert!(w.broken(1, |_, _| false) && w.broken(2, |_, _| false));
        assert!(w.is_empty(), "doomed clients keep no watches");
        w.forget(1);
        assert!(!w.broken(1, |_, _| false));
    }

    #[test]
    fn deleting_a_stale_key_breaks_no_stale_watch() {
        let mut w = Watches::default();
        w.watch(1, 0, key("k"), true);
        w.touch(0, &touch("k", false));
        assert!(!w.broken(1, |_, _| false));
        // Deleted, the watch is an ordinary one again: the next change breaks it.
        w.touch(0, &touch("k", true));
        assert!(w.broken(1, |_, _| false));
    }

    #[test]
    fn a_stale_watch_on_a_key_that_still_exists_spares_later_watchers() {
        let mut w = Watches::default();
        w.watch(1, 0, key("k"), false);
        w.watch(2, 0, key("k"), true);
        w.watch(3, 0, key("k"), false);
        w.touch(0, &touch("k", true));
        assert!(w.broken(1, |_, _| false));
        assert!(!w.broken(2, |_, _| false));
        assert!(
            !w.broken(3, |_, _| false),
            "Redis 7.0.15's walk stops at client 2"
        );
    }

    #[test]
    fn expiry_after_watch_breaks_but_expiry_before_does_not() {
        let mut w = Watches::default();
        w.watch(1, 0, key("live"), false);
        w.watch(2, 0, key("stale"), true);
        let expired = |_: usize, _: &[u8]| true;
        assert!(w.broken(1, expired));
        assert!(!w.broken(2, expired));
    }

    #[test]
    fn swapdb_follows_touch_all_watched_keys_in_db() {
        let mut w = Watches::default();
        w.watch(1, 0, key("k"), false);
        w.watch(2, 0, key("gone"), true);
        // db 1 holds an expired "k" only; db 0 holds a stale "gone".
        let exists = |db: usize, k: &[u8]| (db == 1 && k == b"k") || (db == 0 && k == b"gone");
        let expired = |db: usize, k: &[u8]| exists(db, k);
        w.touch_swapped(0, 1, exists, expired);
        assert!(!w.broken(1, |_, _| false), "replaced with an expired key");
        assert!(!w.broken(2, |_, _| false), "a stale key swapped away");
    }
}
