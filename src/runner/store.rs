//! The store under test as a value: one of amnesia's built-in stores by name, or a
//! factory of the user's own. Every path that runs seeds takes a [`Store`].

use std::sync::Arc;

use crate::contract::{Backend, MemoryStore, StoreContext, StoreFactory};
use crate::store::UnknownStore;

/// The store under test: a built-in store by name ([`Store::named`]) or the user's own
/// ([`Store::new`]). Cloning shares the factory.
///
/// ```
/// use amnesia::{Store, StoreContext};
///
/// // A built-in store: the reference store or a catalogue variant.
/// let reference = Store::named("reference").unwrap();
/// assert!(reference.is_builtin());
/// assert!(Store::named("no-such-store").is_err());
///
/// // Your own: a closure that builds one client's store from its context.
/// let mine = Store::new("my-store", |context: StoreContext| {
///     let config = amnesia::ChatStoreConfig {
///         messages_max: 16,
///         ttl_ms: context.session_ttl_ms,
///     };
///     amnesia::RedisChatStore::new(context.connector, config)
/// });
/// assert_eq!(mine.label(), "my-store");
/// ```
#[derive(Clone)]
pub struct Store {
    label: String,
    builtin: bool,
    backend: Backend,
    factory: StoreFactory,
}

impl Store {
    /// A built-in store: `reference` or a variant of the bug catalogue
    /// ([`crate::store::STORE_NAMES`]).
    pub fn named(name: &str) -> Result<Store, UnknownStore> {
        Ok(Store {
            label: name.to_string(),
            builtin: true,
            backend: crate::store::backend_of(name),
            factory: crate::store::factory(name)?,
        })
    }

    /// The user's own store: `build` makes one client's store whenever a client process
    /// (re)starts. `label` names it in reports.
    pub fn new<S, F>(label: impl Into<String>, build: F) -> Store
    where
        S: MemoryStore + 'static,
        F: Fn(StoreContext) -> S + Send + Sync + 'static,
    {
        Store::from_factory(label, Arc::new(move |context| Arc::new(build(context))))
    }

    /// The user's own store from a factory that returns shared trait objects: for a
    /// factory that builds different store types (`Arc<dyn MemoryStore>` in each branch).
    pub fn from_factory(label: impl Into<String>, factory: StoreFactory) -> Store {
        Store {
            label: label.into(),
            builtin: false,
            backend: Backend::Redis,
            factory,
        }
    }

    /// The same store, keeping its data in `backend` (default Redis). A pgvector store
    /// reads [`StoreContext::postgres`] (or, on the madsim engine, dials
    /// [`StoreContext::postgres_url`] itself); it runs in the simulator on the PostgreSQL
    /// model (amnesia's `pg` feature, the event and madsim engines) and in the real tier.
    ///
    /// ```
    /// use amnesia::{Backend, Store};
    /// let store = Store::named("pgvector-reference").unwrap();
    /// assert_eq!(store.backend(), Backend::Pgvector);
    /// let mine = Store::from_factory("mine", store.factory().clone()).with_backend(Backend::Pgvector);
    /// assert_eq!(mine.backend(), Backend::Pgvector);
    /// ```
    pub fn with_backend(mut self, backend: Backend) -> Store {
        self.backend = backend;
        self
    }

    /// The server this store keeps its data in.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The name reports and replay commands give it.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// True for a store the `amnesia` binary can build by name (`--store`).
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// The factory the world builds each client's store with.
    pub fn factory(&self) -> &StoreFactory {
        &self.factory
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("label", &self.label)
            .field("builtin", &self.builtin)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}
