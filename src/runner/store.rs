//! The store under test as a value: one of amnesia's built-in stores by name, or a
//! factory of the user's own. Every path that runs seeds takes a [`Store`].

use std::sync::Arc;

use crate::contract::{Backend, MemoryStore, StoreFactory, StoreInput};
use crate::store::UnknownStore;

/// The store under test: a built-in store by name ([`Store::named`]) or the user's own
/// ([`Store::new`]). Cloning shares the factory. Its backend is said in one place: the
/// argument its factory takes ([`StoreContext`](crate::StoreContext): Redis;
/// [`PgContext`](crate::PgContext): PostgreSQL + pgvector).
///
/// ```
/// use amnesia::{Backend, Store, StoreContext};
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
/// assert_eq!(mine.backend(), Backend::Redis);
/// ```
#[derive(Clone)]
pub struct Store {
    label: String,
    builtin: bool,
    backend: Backend,
    /// The server its factory's input needs: a [`PgContext`](crate::PgContext) needs a run
    /// with PostgreSQL whatever [`Store::with_backend`] says.
    needs: Option<Backend>,
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
            needs: None,
            factory: crate::store::factory(name)?,
        })
    }

    /// The user's own store: `build` makes one client's store whenever a client process
    /// (re)starts. `label` names it in reports. What `build` takes says the backend: a
    /// [`StoreContext`](crate::StoreContext) Redis (another with [`Store::with_backend`]),
    /// a [`PgContext`](crate::PgContext) PostgreSQL + pgvector. A closure names its
    /// argument's type (`|context: StoreContext| ..`) unless its body only passes it on
    /// (`|context| Adapter::new(context)`, or `Adapter::new` itself): Rust infers it from
    /// the body, not from `Store::new`.
    ///
    /// ```
    /// use amnesia::{Backend, Builder, PgContext, Store};
    /// # struct Mine;
    /// # #[async_trait::async_trait]
    /// # impl amnesia::MemoryStore for Mine {
    /// #     async fn append(&self, _: &amnesia::SessionKey, _: &amnesia::Message) -> Result<(), amnesia::StoreError> { Ok(()) }
    /// #     async fn context(&self, _: &amnesia::SessionKey, _: usize) -> Result<Vec<amnesia::Message>, amnesia::StoreError> { Ok(vec![]) }
    /// #     fn policy(&self) -> amnesia::Policy { unimplemented!() }
    /// # }
    /// let mine = Store::new("mine", |_context: PgContext| Mine);
    /// assert_eq!(mine.backend(), Backend::Pgvector);
    /// // Its runs default to the pgvector backend's scenario.
    /// assert_eq!(Builder::new().store(mine.clone()).scenario_config().name, "replay");
    /// // A run without PostgreSQL is refused in one line before anything runs.
    /// let refused = Builder::new().store(mine.with_backend(Backend::Redis)).validate();
    /// assert!(refused.unwrap_err().to_string().contains("PgContext"));
    /// ```
    pub fn new<C, S, F>(label: impl Into<String>, build: F) -> Store
    where
        C: StoreInput,
        S: MemoryStore + 'static,
        F: Fn(C) -> S + Send + Sync + 'static,
    {
        let factory: StoreFactory = Arc::new(move |context| match C::from_context(context) {
            Ok(input) => Arc::new(build(input)),
            // Refused by `Builder::validate` before a run; a path around it meets a store
            // that fails every call, never a panic.
            Err(why) => Arc::new(crate::store::Unserved::new(why)),
        });
        Store {
            needs: C::NEEDS,
            backend: C::BACKEND,
            ..Store::from_factory(label, factory)
        }
    }

    /// The user's own store from a factory that returns shared trait objects: for a
    /// factory that builds different store types (`Arc<dyn MemoryStore>` in each branch).
    pub fn from_factory(label: impl Into<String>, factory: StoreFactory) -> Store {
        Store {
            label: label.into(),
            builtin: false,
            backend: Backend::Redis,
            needs: None,
            factory,
        }
    }

    /// The same store, keeping its data in `backend`: for a factory that takes the whole
    /// [`StoreContext`](crate::StoreContext) (a trait-object factory, a store that migrates
    /// from Redis to PostgreSQL and reads both connectors); a store built from a
    /// [`PgContext`](crate::PgContext) says pgvector by its argument. A pgvector store runs
    /// in the simulator on the PostgreSQL model (amnesia's `pg` feature, the event and
    /// madsim engines) and in the real tier.
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

    /// Why this store cannot run on its backend, in one line: a factory that takes a
    /// [`PgContext`](crate::PgContext) on a backend without PostgreSQL.
    pub(crate) fn input_refusal(&self) -> Option<String> {
        let needs = self.needs?;
        (!self.backend.servers().contains(&needs)).then(|| {
            format!(
                "its factory takes a PgContext (PostgreSQL), which the {} backend does not \
                 run: drop .with_backend(Backend::{:?})",
                self.backend.name(),
                self.backend
            )
        })
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
