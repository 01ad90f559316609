//! The store contract: what a memory store promises ([`MemoryStore`], the [`Policy`] it
//! declares, the [`StoreError`]s it may return) and what it is built from
//! ([`StoreContext`], [`StoreFactory`]). The checker judges against this contract and the
//! world builds stores through it; neither ever names a store implementation.

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use crate::connect::{Connector, ConnectorConfig, DialFuture, Dialer};
use crate::domain::{IndexedEmbedding, Memory, Message, SessionKey, Summary, UserKey};
use crate::postgres::PgConnector;

// The failures a store returns are defined beside the connector that produces most of
// them, so that the connectors depend on nothing of the contract built on them.
pub use crate::connect::StoreError;
pub use crate::domain::Backend;

/// How a store expires a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum TtlPolicy {
    /// Sessions never expire.
    None,
    /// Every append pushes the session's expiry to `append time + ttl_ms` (a sliding window).
    Sliding {
        /// How long a session lives after its last append, in milliseconds.
        ttl_ms: u64,
    },
}

/// What a store promises to keep across a server restart, on top of what the server's
/// own durability keeps. The world records what each restart really kept (Redis's durable
/// point; PostgreSQL's WAL flush point); the checker excuses the loss of an acknowledged
/// write only when that, or a weaker promise declared here, allows it. A declaration can
/// only weaken the bound.
///
/// A Redis store declares one of the first three. A PostgreSQL store declares
/// [`Durability::Postgres`] with the `synchronous_commit` its sessions run with; the
/// Redis terms are mapped for it: `AsRedis` means `Postgres(SynchronousCommit::On)` (it
/// adds no loss of its own to what the server's configuration keeps), `Volatile` and
/// `AofEverysec` keep their bounds.
///
/// ```
/// use amnesia::{Durability, SynchronousCommit};
/// // Redis's terms: the last 2 s before a restart at 10 s may be lost.
/// assert_eq!(Durability::AofEverysec.may_lose_from_us(10_000_000), Some(8_000_000));
/// // PostgreSQL's: a store whose sessions commit asynchronously may lose what the WAL
/// // had not flushed; one that commits synchronously promises every acknowledged commit.
/// let lossy = Durability::Postgres(SynchronousCommit::Off);
/// assert!(lossy.loses_unflushed_commits());
/// assert!(!Durability::Postgres(SynchronousCommit::On).loses_unflushed_commits());
/// assert!(!Durability::AsRedis.loses_unflushed_commits());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    /// Promises nothing across a restart: everything written before it may be gone (a
    /// cache, a store that rebuilds sessions from elsewhere).
    Volatile,
    /// May lose the writes acknowledged in the last 2 s before a restart (Redis's
    /// documented bound for AOF `everysec`), even where Redis itself kept them.
    AofEverysec,
    /// Loses nothing Redis's persistence kept: the store acknowledges only writes Redis
    /// applied and adds no loss of its own. What the reference store declares.
    AsRedis,
    /// A PostgreSQL store's promise: its sessions run with this `synchronous_commit`. The
    /// server runs with PostgreSQL's default (`on`); a store that turns it off for its
    /// sessions must say so, or a commit a crash takes back is `lost`.
    Postgres(SynchronousCommit),
}

/// PostgreSQL's `synchronous_commit`, as a store's sessions run with it: whether a commit
/// is acknowledged before its WAL record is flushed to disk.
///
/// ```
/// use amnesia::{Durability, SynchronousCommit};
/// let declared = Durability::Postgres(SynchronousCommit::Local);
/// assert!(!declared.loses_unflushed_commits());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SynchronousCommit {
    /// `on`, PostgreSQL's default: a commit is acknowledged once its WAL is flushed; a
    /// crash loses no acknowledged commit.
    On,
    /// `local`: as `on` for a server without synchronous standbys (every server amnesia
    /// runs).
    Local,
    /// `off`: a commit is acknowledged before its WAL is flushed; a crash loses the
    /// commits the WAL writer had not flushed yet (at most three `wal_writer_delay`s).
    Off,
}

impl Durability {
    /// From when on the writes applied before a restart at `restart_at_us` may be lost by
    /// the store's own doing; `None`: it adds no loss to what the server loses.
    pub fn may_lose_from_us(self, restart_at_us: u64) -> Option<u64> {
        match self {
            Durability::Volatile => Some(0),
            Durability::AofEverysec => {
                Some(restart_at_us.saturating_sub(crate::domain::EVERYSEC_LOSS_US_MAX))
            }
            Durability::AsRedis | Durability::Postgres(_) => None,
        }
    }

    /// Whether the store may lose, across a PostgreSQL crash, the commits the WAL had
    /// not flushed: only a store whose sessions commit asynchronously, and says so.
    pub fn loses_unflushed_commits(self) -> bool {
        self == Durability::Postgres(SynchronousCommit::Off)
    }

    /// From when on the writes applied before `restart` may be gone, by what the server
    /// kept and what this declaration allows; `None`: none may be. A Redis restart's
    /// durable point is Redis's persistence, the operator's choice; a PostgreSQL crash's
    /// WAL flush point excuses a loss only for a store that declared asynchronous
    /// commits, since the server itself runs `synchronous_commit = on`.
    pub(crate) fn lost_from_us(self, restart: &crate::history::Restart) -> Option<u64> {
        let kept = match restart.backend {
            Backend::Pgvector if !self.loses_unflushed_commits() => None,
            _ => restart.lost_from_us(),
        };
        match (kept, self.may_lose_from_us(restart.at_us)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The retention a store declares; the checker judges reads against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// At most this many messages are kept per session (`None`: unbounded).
    pub messages_max: Option<usize>,
    /// The first message of a session (the system prompt) survives trimming.
    pub keep_first: bool,
    /// Older messages are folded into a summary ([`MemoryStore::summarized_context`])
    /// instead of dropped: a message counts as present in the window or in the summary,
    /// and trimming excuses nothing.
    #[serde(default)]
    pub summarizes: bool,
    /// How the store expires sessions.
    pub ttl: TtlPolicy,
    /// What the store promises to keep across a server restart.
    pub durability: Durability,
    /// Appends are idempotent by message id: a message sent again (a retry whose first
    /// send timed out) is stored once. `false` for a store that stores every send (a plain
    /// `RPUSH`, as most chat-history libraries do): the checker then lets a read show a
    /// message as often as it was sent with an outcome that may have applied it (not a
    /// certain failure), and the plans' retries are only those such an application sends,
    /// after a failed or unknown append (the scenario's `retries`, `Retries::Auto`).
    #[serde(default = "idempotent_default")]
    pub appends_idempotent: bool,
    /// How long a conversation (a session's history, a user's memories) of one client
    /// process may still fail after its first failure once the plan's faults healed (a
    /// reconnect backoff, a circuit breaker that stays open): that first failure is how
    /// the store meets what the faults broke; a later call of the conversation invoked
    /// past the grace that fails or times out is `unavailable`. The built-in stores
    /// declare 0: they replace a broken connection on the next call. At most
    /// [`RECOVERY_GRACE_MS_MAX`]; a run refuses a store that declares more.
    #[serde(default = "recovery_grace_ms_default")]
    pub recovery_grace_ms: u64,
    /// What the store's data may suffer from Redis's `maxmemory` eviction: whether a
    /// message or memory gone because Redis evicted its key breaks a promise.
    #[serde(default, skip_serializing_if = "Eviction::is_forbidden")]
    pub eviction: Eviction,
}

/// Whether a store may lose data to Redis's eviction ([`Policy::eviction`]). A loss is
/// the eviction's when Redis evicted a key naming the session (or user), tenant and
/// name as consecutive key segments, after the lost write was invoked and before the read
/// that missed it completed.
///
/// ```
/// use amnesia::Eviction;
/// assert_eq!(Eviction::default(), Eviction::Forbidden);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Eviction {
    /// The store's data must survive memory pressure (it needs `noeviction`, or a
    /// `volatile-*` policy with its keys persistent): a loss an eviction explains is
    /// `evicted`, a violation naming the key, the policy and the memory figures.
    #[default]
    Forbidden,
    /// The store is a cache its application rebuilds: a loss an eviction explains is
    /// noted (`Info::Evicted`), not judged; every other loss still is.
    Tolerated,
}

impl Eviction {
    fn is_forbidden(&self) -> bool {
        *self == Eviction::Forbidden
    }
}

/// The recovery grace the built-in stores declare ([`Policy::recovery_grace_ms`]).
pub const RECOVERY_GRACE_MS_DEFAULT: u64 = 0;

/// The largest recovery grace a store may declare ([`Policy::recovery_grace_ms`]). The
/// quiet period's second round of final reads starts more than this after the first
/// ended, so a store that never recovers fails it whatever grace it declares; a larger
/// grace would excuse that round too, and a larger bound would lengthen every run.
pub const RECOVERY_GRACE_MS_MAX: u64 = 5_000;

impl Policy {
    /// Checks the declaration against amnesia's limits; the error is one line.
    ///
    /// ```
    /// use amnesia::{Durability, Policy, TtlPolicy, RECOVERY_GRACE_MS_MAX};
    /// let policy = Policy {
    ///     messages_max: None,
    ///     keep_first: false,
    ///     summarizes: false,
    ///     ttl: TtlPolicy::None,
    ///     durability: Durability::AsRedis,
    ///     appends_idempotent: true,
    ///     recovery_grace_ms: RECOVERY_GRACE_MS_MAX,
    ///     eviction: amnesia::Eviction::Forbidden,
    /// };
    /// assert_eq!(policy.validate(), Ok(()));
    /// let patient = Policy { recovery_grace_ms: RECOVERY_GRACE_MS_MAX + 1, ..policy };
    /// assert!(patient.validate().unwrap_err().contains("recovery_grace_ms"));
    /// ```
    pub fn validate(&self) -> Result<(), String> {
        if self.recovery_grace_ms > RECOVERY_GRACE_MS_MAX {
            return Err(format!(
                "recovery_grace_ms = {} exceeds RECOVERY_GRACE_MS_MAX ({RECOVERY_GRACE_MS_MAX} ms): \
                 the quiet period's final reads could not tell a store that never recovers",
                self.recovery_grace_ms
            ));
        }
        Ok(())
    }
}

fn recovery_grace_ms_default() -> u64 {
    RECOVERY_GRACE_MS_DEFAULT
}

fn idempotent_default() -> bool {
    true
}

/// The contract of a chat memory store: conversation history per session and, optionally,
/// long-term memories per user. `append` must return only once the message is stored
/// (read-your-writes across clients); returning earlier is the `write-behind` bug.
///
/// Requests overlap as in production: appends of one session from several clients at
/// once, retries of one message (same id) racing the first send, memory writes of one
/// user from several sessions. An append is idempotent by message id: a message shows at
/// most once in a read however often it was sent (the `retry-dup` bug otherwise), unless
/// the store declares otherwise ([`Policy::appends_idempotent`]).
#[async_trait::async_trait]
pub trait MemoryStore: Send + Sync {
    /// Store `msg` at the end of `session`'s history.
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError>;
    /// The newest at most `limit` messages of `session`, oldest first (plus the first
    /// message when the policy keeps it).
    async fn context(&self, session: &SessionKey, limit: usize)
        -> Result<Vec<Message>, StoreError>;
    /// The context of a summarizing store: its summary of the older messages, and the
    /// newest at most `limit` messages after it. A store without a summary need not
    /// implement it.
    async fn summarized_context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Context, StoreError> {
        let messages = self.context(session, limit).await?;
        Ok(Context {
            summary: None,
            messages,
        })
    }
    /// Delete `session`'s whole history ("new chat", a right-to-erasure request): nothing
    /// appended before may be read afterwards. Optional capability.
    async fn clear(&self, _session: &SessionKey) -> Result<(), StoreError> {
        Err(StoreError::Unsupported)
    }
    /// Delete the message with id `id` from `session`'s history (no error if there is
    /// none): it may not be read afterwards. Optional capability.
    async fn delete(&self, _session: &SessionKey, _id: &str) -> Result<(), StoreError> {
        Err(StoreError::Unsupported)
    }
    /// Store a long-term memory. Optional capability.
    async fn remember(&self, _user: &UserKey, _memory: &Memory) -> Result<(), StoreError> {
        Err(StoreError::Unsupported)
    }
    /// The `k` memories of `user` most similar to `query`. Optional capability.
    async fn recall(
        &self,
        _user: &UserKey,
        _query: &str,
        _k: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        Err(StoreError::Unsupported)
    }
    /// Replace the memory with `memory.id` by `memory` (add it if there is none): recalls
    /// after it see the new text, never the old one. Optional capability.
    async fn update_memory(&self, _user: &UserKey, _memory: &Memory) -> Result<(), StoreError> {
        Err(StoreError::Unsupported)
    }
    /// Delete the memory with id `id` (no error if there is none), from data and index.
    /// Optional capability.
    async fn forget(&self, _user: &UserKey, _id: &str) -> Result<(), StoreError> {
        Err(StoreError::Unsupported)
    }
    /// The memory ids stored and indexed for `user`, read when the system is quiet, so the
    /// checker can see an index that drifted from its data. Optional capability.
    async fn audit_memories(&self, _user: &UserKey) -> Result<MemoryAudit, StoreError> {
        Err(StoreError::Unsupported)
    }
    /// The deploy's one-off job (a data migration), run once by one client of the new
    /// code while the deploy holds requests drained; `Ok(Some(summary))` goes to the
    /// timeline. The default does nothing. Optional capability.
    async fn migrate(&self) -> Result<Option<String>, StoreError> {
        Ok(None)
    }
    /// The retention this store declares.
    fn policy(&self) -> Policy;
}

/// What a context read returned: a summarizing store's summary, and the window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The summary of the messages folded out of the window; `None` for a store that does
    /// not summarize (or has nothing folded yet).
    pub summary: Option<Summary>,
    /// The window: the newest messages, oldest first.
    pub messages: Vec<Message>,
}

/// What a store holds for a user's memories, data and index side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryAudit {
    /// Memory ids found in the user's memory data.
    pub stored: Vec<String>,
    /// Memory ids found in the user's memory index.
    pub indexed: Vec<String>,
    /// Memory ids an exact search (no index: pgvector's `enable_indexscan = off`) finds
    /// by their own text; `None` for a store without one. Beside `indexed`, it tells an
    /// index that lost an entry from an embedding that is not its text's.
    pub exact: Option<Vec<String>>,
    /// For a store that keeps a vector per memory: for every stored memory, what its index
    /// holds against the embedding of its stored text ([`IndexedEmbedding::compare`]); a
    /// stale or missing vector is `index-drift`. `None` for a store whose index holds no
    /// vectors (one that embeds at query time).
    pub embeddings: Option<Vec<IndexedEmbedding>>,
}

/// What a store is built from in any tier and engine: a connector to its server, the
/// host's wall clock, and the few settings of the run a store needs.
pub struct StoreContext {
    /// Hands out live `redis::aio::MultiplexedConnection`s to the Redis under test (in a
    /// pgvector run there is no Redis: every connect fails as unavailable).
    pub connector: Arc<Connector>,
    /// Hands out connections to the PostgreSQL under test in a pgvector (or
    /// redis-then-pgvector) run; `None` on Redis alone.
    pub postgres: Option<Arc<PgConnector>>,
    /// Where a store that dials its own Redis (`redis::Client::open(url)`, a
    /// `ConnectionManager`) connects: on the madsim engine, a name only the simulation
    /// resolves, one per client process, reaching the same simulated link the connector
    /// does; `None` on engines and tiers where only [`StoreContext::connector`] reaches the
    /// server, and in a run without Redis (backend pgvector).
    pub redis_url: Option<String>,
    /// Where a store that dials its own PostgreSQL (`sqlx::PgPool::connect(url)`,
    /// `tokio_postgres::connect(url, NoTls)`, a pool) connects: on the madsim engine in a
    /// run with a PostgreSQL (backend pgvector or redis-then-pgvector), a URL whose host
    /// only the simulation resolves, one per client process, reaching the same simulated
    /// link [`StoreContext::postgres`] does; `None` on other engines and tiers, and in a
    /// run without PostgreSQL.
    pub postgres_url: Option<String>,
    /// This host's wall clock (skewed and jumped by the simulator): read it instead of the
    /// OS clock.
    pub clock: crate::clock::Clock,
    /// The session TTL the scenario asks for, in milliseconds (a store that takes whole
    /// seconds rounds up, `ttl_ms.div_ceil(1000)`, and must declare what it really applies).
    pub session_ttl_ms: u64,
    /// The version of the code this process runs: 1, then 2 once the plan's deploy
    /// happened. A store without versioned key layouts ignores it.
    pub code_version: u32,
    /// The run's seed, for a store that needs deterministic randomness (never the OS RNG).
    pub seed: u64,
}

/// What a store on PostgreSQL + pgvector is built from: a [`StoreContext`] whose
/// PostgreSQL connector is always there. A factory that takes it declares the pgvector
/// backend by its argument's type (`Store::new("mine", |context: PgContext| ..)`):
/// nothing else to say, and nothing to forget.
///
/// ```
/// use amnesia::{Backend, PgContext, Store};
/// # struct Mine;
/// # #[async_trait::async_trait]
/// # impl amnesia::MemoryStore for Mine {
/// #     async fn append(&self, _: &amnesia::SessionKey, _: &amnesia::Message) -> Result<(), amnesia::StoreError> { Ok(()) }
/// #     async fn context(&self, _: &amnesia::SessionKey, _: usize) -> Result<Vec<amnesia::Message>, amnesia::StoreError> { Ok(vec![]) }
/// #     fn policy(&self) -> amnesia::Policy { unimplemented!() }
/// # }
/// # impl Mine { fn new(_pg: std::sync::Arc<amnesia::PgConnector>) -> Mine { Mine } }
/// let store = Store::new("mine", |context: PgContext| Mine::new(context.postgres));
/// assert_eq!(store.backend(), Backend::Pgvector);
/// ```
pub struct PgContext {
    /// Hands out connections to the PostgreSQL under test: [`PgConnector::run`] for one
    /// operation, [`PgConnector::get`] for a handle kept across awaits and tasks.
    pub postgres: Arc<PgConnector>,
    /// Where a store that dials its own PostgreSQL connects (the madsim engine);
    /// [`StoreContext::postgres_url`].
    pub postgres_url: Option<String>,
    /// This host's wall clock: read it instead of the OS clock.
    pub clock: crate::clock::Clock,
    /// The session TTL the scenario asks for, in milliseconds.
    pub session_ttl_ms: u64,
    /// The version of the code this process runs: 1, then 2 once the plan's deploy happened.
    pub code_version: u32,
    /// The run's seed, for a store that needs deterministic randomness.
    pub seed: u64,
}

/// What a store's factory takes ([`StoreContext`] or [`PgContext`]): its type says the
/// backend a store made by `Store::new` keeps its data in. Implemented by amnesia's
/// contexts only.
///
/// ```
/// use amnesia::{Backend, PgContext, StoreContext, StoreInput};
/// assert_eq!(<StoreContext as StoreInput>::BACKEND, Backend::Redis);
/// assert_eq!(<PgContext as StoreInput>::BACKEND, Backend::Pgvector);
/// ```
pub trait StoreInput: Sized + 'static + sealed::Sealed {
    /// The backend of a store built from this input.
    const BACKEND: Backend;
    /// The server a run must have for this input, whatever backend the store is given;
    /// `None`: any run serves it.
    #[doc(hidden)]
    const NEEDS: Option<Backend>;
    /// This input from a client process's context, or why the run cannot serve it (one
    /// line).
    #[doc(hidden)]
    fn from_context(context: StoreContext) -> Result<Self, String>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::StoreContext {}
    impl Sealed for super::PgContext {}
}

impl StoreInput for StoreContext {
    /// Redis, unless `Store::with_backend` says otherwise: the whole context serves any
    /// backend (a migration reads both connectors).
    const BACKEND: Backend = Backend::Redis;
    const NEEDS: Option<Backend> = None;
    fn from_context(context: StoreContext) -> Result<Self, String> {
        Ok(context)
    }
}

impl StoreInput for PgContext {
    const BACKEND: Backend = Backend::Pgvector;
    const NEEDS: Option<Backend> = Some(Backend::Pgvector);
    fn from_context(context: StoreContext) -> Result<Self, String> {
        let Some(postgres) = context.postgres else {
            return Err(
                "the store is built from a PgContext, but this run has no PostgreSQL".into(),
            );
        };
        Ok(PgContext {
            postgres,
            postgres_url: context.postgres_url,
            clock: context.clock,
            session_ttl_ms: context.session_ttl_ms,
            code_version: context.code_version,
            seed: context.seed,
        })
    }
}

/// Builds one client's store; called again whenever a client process (re)starts.
pub type StoreFactory =
    std::sync::Arc<dyn Fn(StoreContext) -> std::sync::Arc<dyn MemoryStore> + Send + Sync>;

/// The connectors of one client process: `first` reaches the run's first server (Redis,
/// or PostgreSQL in a pgvector run, where the Redis connector reaches nothing);
/// `postgres`, a PostgreSQL beside a Redis one.
pub(crate) fn connectors(
    (backend, first): (Backend, Arc<dyn Dialer>),
    postgres: Option<Arc<dyn Dialer>>,
    config: ConnectorConfig,
) -> (Arc<Connector>, Option<Arc<PgConnector>>) {
    let (redis, postgres) = match backend {
        Backend::Pgvector => (Arc::new(NoRedis) as Arc<dyn Dialer>, Some(first)),
        _ => (first, postgres),
    };
    #[cfg(feature = "pg")]
    let postgres = postgres.map(|dialer| Arc::new(PgConnector::new(dialer, config)));
    // Only the real tier runs a PostgreSQL, and a build without it has none to dial.
    #[cfg(not(feature = "pg"))]
    let postgres = postgres.and(None);
    let info = redis::RedisConnectionInfo::default();
    (Arc::new(Connector::new(redis, info, config)), postgres)
}

/// The Redis dialer of a run without Redis: every connect fails as unavailable.
pub(crate) struct NoRedis;

impl Dialer for NoRedis {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "this run has no Redis (backend pgvector)",
            ))
        })
    }
}
