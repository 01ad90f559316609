//! `key-scheme-v2`: a deploy changes the session key layout (`chat:v1:…` to
//! `chat2:{tenant}:…`, to group a tenant's keys) and the new code reads and writes only the
//! new keys. Nobody migrated the sessions written before the deploy: the next turn of
//! every live conversation starts from an empty history (`lost`).

use crate::connect::Connector;
use crate::store::reference::{session_keys_v2, KeyLayout};
use crate::store::{ChatStoreConfig, KeyScheme, RedisChatStore};
use std::sync::Arc;

/// The reference store, whose v2 code forgot the migration.
pub fn build(
    connector: Arc<Connector>,
    config: ChatStoreConfig,
    key_scheme: KeyScheme,
) -> RedisChatStore {
    let store = RedisChatStore::new(connector, config);
    match key_scheme {
        KeyScheme::V1 => store,
        // The bug: the new layout, with nothing migrated from the old one.
        KeyScheme::V2 => store.with_layout(KeyLayout {
            keys: session_keys_v2,
            migrate_from: None,
        }),
    }
}
