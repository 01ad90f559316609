//! The one table of amnesia's built-in stores: each name with its backend, whether
//! `amnesia` lists it, how it is built and, for a catalogue variant, the violation classes
//! its bug shows. Every list of names, the lookup by name and the tests' expectations read
//! this table, so a store is added in one place.

use crate::check::ViolationClass::{self, *};
use crate::contract::{Backend, MemoryStore, StoreContext};
use crate::store::variants::update_keeps_embedding::UpdateKeepsEmbeddingStore;
use crate::store::variants::*;
use crate::store::{testing, ChatStoreConfig, KeyScheme, RedisChatStore, MESSAGES_MAX};
use std::sync::Arc;

/// Where a built-in store keeps its data, and who it is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Redis: the reference store and the catalogue's Redis variants.
    Redis,
    /// PostgreSQL with pgvector (real tier only).
    #[cfg_attr(not(feature = "pg"), allow(dead_code))]
    Pgvector,
    /// Redis before the deploy, PostgreSQL with pgvector after it (real tier only).
    #[cfg_attr(not(feature = "pg"), allow(dead_code))]
    Migration,
    /// A Redis store that misbehaves to test amnesia itself: accepted, never listed.
    Test,
}

impl Kind {
    pub(crate) fn backend(self) -> Backend {
        match self {
            Kind::Redis | Kind::Test => Backend::Redis,
            Kind::Pgvector => Backend::Pgvector,
            Kind::Migration => Backend::RedisThenPgvector,
        }
    }

    pub(crate) fn listed(self) -> bool {
        self != Kind::Test
    }
}

/// What a built-in store is built from: the run's context, and the reference store's
/// configuration and key layout derived from it once for every constructor.
pub(crate) struct Parts {
    pub context: StoreContext,
    pub config: ChatStoreConfig,
    pub key_scheme: KeyScheme,
}

impl Parts {
    fn of(context: StoreContext) -> Parts {
        let config = ChatStoreConfig {
            messages_max: MESSAGES_MAX,
            ttl_ms: context.session_ttl_ms,
        };
        let key_scheme = KeyScheme::of_version(context.code_version);
        Parts {
            context,
            config,
            key_scheme,
        }
    }

    /// The reference store of this client, which most variants wrap.
    fn reference(&self) -> RedisChatStore {
        RedisChatStore::new(self.connector(), self.config).with_key_scheme(self.key_scheme)
    }

    /// The `plain-list` store of this client (not idempotent, untrimmed).
    fn plain_list(&self) -> crate::store::plain_list::PlainListStore {
        crate::store::plain_list::PlainListStore {
            connector: self.connector(),
            ttl_ms: self.config.ttl_ms,
        }
    }

    /// The reference chat store with vector-keeping memories (`update-keeps-embedding`).
    fn vector_index(&self, reembed_on_update: bool) -> UpdateKeepsEmbeddingStore {
        update_keeps_embedding::UpdateKeepsEmbeddingStore {
            inner: self.reference(),
            connector: self.connector(),
            reembed_on_update,
        }
    }

    /// `plain-list` on cached connections of `scope` (`cached-connection`,
    /// `session-connection`); `replaces_broken`: without their bug.
    fn cached_connection(
        &self,
        scope: cached_connection::Scope,
        replaces_broken: bool,
    ) -> cached_connection::CachedConnectionStore {
        let ttl_ms = self.config.ttl_ms;
        cached_connection::CachedConnectionStore::new(
            self.connector(),
            ttl_ms,
            scope,
            replaces_broken,
        )
    }

    fn connector(&self) -> Arc<crate::connect::Connector> {
        self.context.connector.clone()
    }

    /// The reference configuration and layout, for a variant with commands of its own.
    fn layout(&self) -> Layout {
        Layout {
            connector: self.connector(),
            config: self.config,
        }
    }
}

/// One built-in store.
pub(crate) struct Entry {
    pub name: &'static str,
    pub kind: Kind,
    /// The classes the variant's bug shows (any one counts); empty for a store without a
    /// catalogued bug.
    pub expected: &'static [ViolationClass],
    pub build: fn(Parts) -> Arc<dyn MemoryStore>,
}

impl Entry {
    /// Builds one client's store from its context.
    pub(crate) fn build(&self, context: StoreContext) -> Arc<dyn MemoryStore> {
        (self.build)(Parts::of(context))
    }
}

const fn entry(
    name: &'static str,
    kind: Kind,
    expected: &'static [ViolationClass],
    build: fn(Parts) -> Arc<dyn MemoryStore>,
) -> Entry {
    Entry {
        name,
        kind,
        expected,
        build,
    }
}

use Kind::*;

/// Every built-in store, listed ones in the order `amnesia` lists them.
pub(crate) const REGISTRY: &[Entry] = &[
    entry("reference", Redis, &[], |p| Arc::new(p.reference())),
    entry("write-behind", Redis, &[Lost], |p| {
        Arc::new(write_behind::WriteBehindStore {
            inner: Arc::new(p.reference()),
        })
    }),
    entry("trim-off-by-one", Redis, &[Truncation, Lost], |p| {
        Arc::new(trim_off_by_one::TrimOffByOneStore { base: p.layout() })
    }),
    entry("skewed-expireat", Redis, &[PrematureExpiry, Zombie], |p| {
        Arc::new(skewed_expireat::SkewedExpireAtStore {
            base: p.layout(),
            clock: p.context.clock,
        })
    }),
    entry("expire-separate", Redis, &[Zombie], |p| {
        Arc::new(expire_separate::ExpireSeparateStore { base: p.layout() })
    }),
    entry("retry-dup", Redis, &[Duplicate], |p| {
        Arc::new(retry_dup::RetryDupStore {
            inner: p.reference().without_idempotent_appends(),
        })
    }),
    entry("timestamp-id", Redis, &[Lost], |p| {
        Arc::new(timestamp_id::TimestampIdStore {
            base: p.layout(),
            clock: p.context.clock,
        })
    }),
    entry("client-clock-order", Redis, &[Reorder], |p| {
        Arc::new(client_clock_order::ClientClockOrderStore {
            base: p.layout(),
            clock: p.context.clock,
        })
    }),
    entry("delete-reverses", Redis, &[Reorder], |p| {
        Arc::new(delete_reverses::DeleteReversesStore { base: p.layout() })
    }),
    entry("rebuild-nonatomic", Redis, &[Lost], |p| {
        Arc::new(rebuild_nonatomic::RebuildNonAtomicStore { base: p.layout() })
    }),
    entry("rmw-blob", Redis, &[Lost], |p| {
        Arc::new(rmw_blob::RmwBlobStore { base: p.layout() })
    }),
    entry("pipeline-partial", Redis, &[Lost], |p| {
        Arc::new(pipeline_partial::PipelinePartialStore { base: p.layout() })
    }),
    entry("lossy-serde", Redis, &[Corrupt], |p| {
        Arc::new(lossy_serde::LossySerdeStore { base: p.layout() })
    }),
    entry("prefix-collision", Redis, &[Leak], |p| {
        Arc::new(prefix_collision::PrefixCollisionStore { base: p.layout() })
    }),
    entry("silent-read-cap", Redis, &[Lost], |p| {
        Arc::new(silent_read_cap::SilentReadCapStore {
            inner: p.reference(),
        })
    }),
    entry("index-skip", Redis, &[RecallMiss, IndexDrift], |p| {
        Arc::new(index_skip::IndexSkipStore {
            inner: p.reference(),
            connector: p.connector(),
        })
    }),
    entry("key-scheme-v2", Redis, &[Lost], |p| {
        Arc::new(key_scheme_v2::build(p.connector(), p.config, p.key_scheme))
    }),
    entry("case-folded-ids", Redis, &[Leak], |p| {
        Arc::new(case_folded_ids::CaseFoldedIdsStore {
            inner: p.reference(),
        })
    }),
    entry("retry-check-then-append", Redis, &[Duplicate], |p| {
        Arc::new(retry_check_then_append::CheckThenAppendStore {
            inner: p.reference().without_idempotent_appends(),
            connector: p.connector(),
            config: p.config,
        })
    }),
    entry("forget-keeps-index", Redis, &[IndexDrift], |p| {
        Arc::new(forget_keeps_index::ForgetKeepsIndexStore {
            inner: p.reference(),
            connector: p.connector(),
        })
    }),
    entry("clear-keeps-head", Redis, &[Zombie], |p| {
        Arc::new(clear_keeps_head::ClearKeepsHeadStore {
            inner: p.reference(),
            connector: p.connector(),
        })
    }),
    entry("memory-index-rmw", Redis, &[RecallMiss, IndexDrift], |p| {
        Arc::new(memory_index_rmw::MemoryIndexRmwStore {
            inner: p.reference(),
            connector: p.connector(),
            buggify: true,
        })
    }),
    entry("context-cache", Redis, &[Lost], |p| {
        Arc::new(context_cache::ContextCacheStore {
            inner: p.reference(),
            connector: p.connector(),
            config: p.config,
        })
    }),
    entry("cached-connection", Redis, &[Unavailable], |p| {
        Arc::new(p.cached_connection(cached_connection::Scope::Process, false))
    }),
    entry(
        "update-keeps-embedding",
        Redis,
        &[IndexDrift, RecallMiss],
        |p| Arc::new(p.vector_index(false)),
    ),
    entry("plain-list", Redis, &[], |p| Arc::new(p.plain_list())),
    entry("plain-list-rewrite", Redis, &[Lost], |p| {
        Arc::new(plain_list_rewrite::PlainListRewriteStore {
            inner: p.plain_list(),
        })
    }),
    // Rare races: no buggify point opens their gap (issue 32's measure of guided search).
    entry(
        "memory-index-rmw-plain",
        Redis,
        &[RecallMiss, IndexDrift],
        |p| {
            Arc::new(memory_index_rmw::MemoryIndexRmwStore {
                inner: p.reference(),
                connector: p.connector(),
                buggify: false,
            })
        },
    ),
    entry("background-resend", Redis, &[Zombie, Reorder], |p| {
        Arc::new(background_resend::BackgroundResendStore {
            inner: Arc::new(p.reference()),
            clock: p.context.clock,
        })
    }),
    entry("session-connection", Redis, &[Unavailable], |p| {
        Arc::new(p.cached_connection(cached_connection::Scope::Session, false))
    }),
    // Only a silent drop shows it: every other fault breaks the stream or heals.
    entry("no-response-timeout", Redis, &[Stuck, Unavailable], |p| {
        Arc::new(crate::store::plain_list::PlainListStore {
            connector: Arc::new(p.context.connector.without_response_timeout()),
            ttl_ms: p.config.ttl_ms,
        })
    }),
    #[cfg(feature = "pg")]
    entry("pgvector-reference", Pgvector, &[], |p| {
        super::pgvector::build(p.context, |_, _| {})
    }),
    #[cfg(feature = "pg")]
    entry("pgvector-ef-search-below-k", Pgvector, &[RecallMiss], |p| {
        super::pgvector::build(p.context, |config, _| config.ef_search_fixed = Some(2))
    }),
    #[cfg(feature = "pg")]
    entry("pgvector-no-iterative-scan", Pgvector, &[RecallMiss], |p| {
        super::pgvector::build(p.context, |config, _| config.iterative_scan = false)
    }),
    #[cfg(feature = "pg")]
    entry(
        "pgvector-update-keeps-embedding",
        Pgvector,
        &[RecallMiss],
        |p| {
            super::pgvector::build(p.context, |config, _| {
                config.update_keeps_embedding = true;
                config.audit = false;
            })
        },
    ),
    #[cfg(feature = "pg")]
    entry("pgvector-filter-after-topk", Pgvector, &[RecallMiss], |p| {
        super::pgvector::build(p.context, |config, _| {
            config.filter = super::pgvector::UserFilter::AfterGlobalTopK
        })
    }),
    #[cfg(feature = "pg")]
    entry(
        "pgvector-ivfflat-before-load",
        Pgvector,
        &[RecallMiss],
        |p| {
            super::pgvector::build(p.context, |config, _| {
                config.index = super::pgvector::AnnIndex::IvfflatBeforeLoad
            })
        },
    ),
    #[cfg(feature = "pg")]
    entry("pgvector-embedding-v2", Pgvector, &[IndexDrift], |p| {
        super::pgvector::build(p.context, |config, context| {
            config.model = context.code_version.min(2)
        })
    }),
    // Only a PostgreSQL crash within a WAL writer round of an acknowledged commit shows it.
    #[cfg(feature = "pg")]
    entry("pgvector-async-commit", Pgvector, &[Lost], |p| {
        super::pgvector::build(p.context, |config, _| config.synchronous_commit_off = true)
    }),
    // Only two appends of one session in flight together show it (overlapping turns, a
    // retried user message): the second's 40001 is taken for success.
    #[cfg(feature = "pg")]
    entry("pgvector-conflict-swallowed", Pgvector, &[Lost], |p| {
        super::pgvector::build(p.context, |config, _| {
            let swallow = super::pgvector::OnConflict::AssumeOtherWriterWon;
            config.appends = super::pgvector::AppendSerialization::RepeatableRead(swallow)
        })
    }),
    #[cfg(feature = "pg")]
    entry("migrate-to-pgvector", Migration, &[], |p| {
        super::migrate::build(p.context, true, super::migrate::Vectors::OfText)
    }),
    #[cfg(feature = "pg")]
    entry("migrate-nontransactional", Migration, &[Lost], |p| {
        super::migrate::build(p.context, false, super::migrate::Vectors::OfText)
    }),
    #[cfg(feature = "pg")]
    entry("migrate-old-embedding", Migration, &[IndexDrift], |p| {
        super::migrate::build(p.context, true, super::migrate::Vectors::OldModel)
    }),
    #[cfg(feature = "pg")]
    entry(
        "migrate-placeholder-vectors",
        Migration,
        &[IndexDrift],
        |p| super::migrate::build(p.context, true, super::migrate::Vectors::Placeholder),
    ),
    // `test-hang` blocks its thread for good on `testing::HANG_SEED`;
    // `test-nondeterministic` changes its timing on every build, so no seed replays;
    // `test-amnesiac` flushes Redis whenever it sees a restarted server, losing history
    // that Redis's persistence kept; `test-vector-index` is `update-keeps-embedding`
    // without its bug (a correct store that keeps vectors, for the embedding audit);
    // `test-session-reconnect` is `session-connection` without its bug (a connection per
    // session, replaced once broken: a correct library `unavailable` must not flag).
    entry("test-hang", Test, &[], |p| {
        Arc::new(testing::HangStore::new(p.reference(), p.context.seed))
    }),
    entry("test-nondeterministic", Test, &[], |p| {
        Arc::new(testing::NondeterministicStore::new(p.reference()))
    }),
    entry("test-vector-index", Test, &[], |p| {
        Arc::new(p.vector_index(true))
    }),
    entry("test-amnesiac", Test, &[], |p| {
        Arc::new(testing::AmnesiacStore::new(p.reference(), p.connector()))
    }),
    entry("test-session-reconnect", Test, &[], |p| {
        Arc::new(p.cached_connection(cached_connection::Scope::Session, true))
    }),
];

/// The built-in store called `name`.
pub(crate) fn entry_named(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|entry| entry.name == name)
}

/// The names `amnesia` lists, in its order.
pub(crate) fn listed() -> impl Iterator<Item = &'static str> {
    REGISTRY
        .iter()
        .filter(|entry| entry.kind.listed())
        .map(|entry| entry.name)
}

/// How many stores of `kind` the table holds (the length of [`names`]' array).
pub(crate) const fn count(kind: Kind) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < REGISTRY.len() {
        if REGISTRY[i].kind as u8 == kind as u8 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The names of the stores of `kind`, in table order, as a constant: the public name
/// lists are constants, computed from the table at compile time.
pub(crate) const fn names<const N: usize>(kind: Kind) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut n) = (0, 0);
    while i < REGISTRY.len() {
        if REGISTRY[i].kind as u8 == kind as u8 {
            out[n] = REGISTRY[i].name;
            n += 1;
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_only_variants_state_classes() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|entry| entry.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len(), "a name is listed twice");
        for entry in REGISTRY {
            let plain = entry.name.contains("reference")
                || entry.name == "migrate-to-pgvector"
                || entry.name == "plain-list"
                || entry.kind == Kind::Test;
            assert_eq!(entry.expected.is_empty(), plain, "{}", entry.name);
        }
    }

    #[test]
    fn an_unknown_name_is_an_error_that_lists_the_known_ones() {
        let error = crate::store::factory("no-such-store")
            .err()
            .expect("unknown");
        let message = error.to_string();
        assert!(
            message.starts_with("unknown store 'no-such-store' (known: reference, write-behind,")
        );
        assert!(!message.contains("test-"), "{message}");
    }
}
