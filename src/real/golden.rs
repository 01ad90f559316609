//! The golden set: a fixed, versioned corpus of historical memories (generated from a
//! fixed seed by the plans' own fact generator), loaded into a store on a real server
//! and replayed whole: every memory recalled by its own text, and recall@k measured
//! against an exact search (every memory of the user scored by the same embedder). The
//! incident suite did this after each change; a spot check of 20 conversations had
//! missed the 21st.
//!
//! ```no_run
//! use amnesia::real::{golden_corpus, run_golden, Provider};
//! use amnesia::Store;
//! let corpus = golden_corpus(amnesia::real::GOLDEN_VERSION);
//! let store = Store::named("pgvector-reference").unwrap();
//! let report = run_golden(&store, &corpus, 5, &Provider::from_env()?)?;
//! assert_eq!(report.own_text_missed, Vec::<String>::new());
//! println!("recall@5 against exact search: {:.3}", report.recall_at_k);
//! # Ok::<(), amnesia::real::RealError>(())
//! ```

use crate::connect::{BoxStream, ConnectorConfig, DialFuture, Dialer};
use crate::contract::{MemoryStore, StoreContext};
use crate::domain::{Memory, UserKey};
use crate::embed::{cosine, embed};
use crate::real::server::{Provider, RealError};
use crate::runner::store::Store;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::sync::Arc;

/// The corpus version [`golden_corpus`] generates; bump it when the generator or the
/// embedder changes (the committed corpus file is checked against it).
pub const GOLDEN_VERSION: u32 = 1;
/// Users in the corpus.
const USERS: usize = 40;
/// Memories per user: more than any recall's `k`, so a short result shows.
const MEMORIES_PER_USER: usize = 12;
/// The largest `k` a golden replay may ask for.
pub const GOLDEN_K_MAX: usize = 10;

/// One historical memory of the corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldenMemory {
    /// Its user.
    pub user: UserKey,
    /// The memory.
    pub memory: Memory,
}

/// The versioned golden corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldenCorpus {
    /// [`GOLDEN_VERSION`] when generated.
    pub version: u32,
    /// Every memory, in load order.
    pub memories: Vec<GoldenMemory>,
}

/// The corpus of `version` (only [`GOLDEN_VERSION`] exists): each user's memories have
/// distinct texts, so the exact search's ranking of a memory by its own text is certain.
pub fn golden_corpus(version: u32) -> GoldenCorpus {
    assert_eq!(
        version, GOLDEN_VERSION,
        "only version {GOLDEN_VERSION} exists"
    );
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x601d_0000 + u64::from(version));
    let mut memories = Vec::with_capacity(USERS * MEMORIES_PER_USER);
    for u in 0..USERS {
        let user = UserKey {
            tenant: format!("t{}", u % 4),
            user: format!("u{u}"),
        };
        let mut texts = std::collections::BTreeSet::new();
        while texts.len() < MEMORIES_PER_USER {
            texts.insert(crate::plan::memory::fact(&mut rng));
        }
        for (n, text) in texts.into_iter().enumerate() {
            let memory = Memory {
                id: format!("g{u}-{n}"),
                text,
            };
            memories.push(GoldenMemory {
                user: user.clone(),
                memory,
            });
        }
    }
    GoldenCorpus { version, memories }
}

/// What a golden replay measured.
#[derive(Clone, Debug, PartialEq)]
pub struct GoldenReport {
    /// Memories replayed.
    pub memories: usize,
    /// The `k` every recall asked for.
    pub k: usize,
    /// The memories a recall by their own text did not return.
    pub own_text_missed: Vec<String>,
    /// Mean over the replayed recalls of |returned ∩ exact top-k| / k (a memory tied
    /// with the exact k-th counts as exact).
    pub recall_at_k: f64,
    /// Recalls that failed outright.
    pub errors: usize,
}

/// Load `corpus` into `store` on a fresh server of `provider`, replay every memory with
/// `k` (1..=[`GOLDEN_K_MAX`]), and compare with the exact search.
pub fn run_golden(
    store: &Store,
    corpus: &GoldenCorpus,
    k: usize,
    provider: &Provider,
) -> Result<GoldenReport, RealError> {
    assert!(
        (1..=GOLDEN_K_MAX).contains(&k),
        "k {k} outside 1..={GOLDEN_K_MAX}"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RealError::Environment(format!("cannot build a tokio runtime: {e}")))?;
    let backend = store.backend();
    if backend.servers().len() != 1 {
        return Err(RealError::Environment(format!(
            "the golden replay loads one server; {} runs two",
            store.label()
        )));
    }
    runtime.block_on(async {
        let server = provider
            .start(backend, crate::domain::Persistence::AofAlways)
            .await?;
        let address = server.address().await?;
        let report = replay(build(store, address), corpus, k).await;
        server.remove().await;
        report
    })
}

/// [`run_golden`] against amnesia's PostgreSQL model (served on 127.0.0.1 for the
/// replay) instead of a real server: the model's index fidelity, beside the real one's.
pub fn run_golden_on_model(
    store: &Store,
    corpus: &GoldenCorpus,
    k: usize,
) -> Result<GoldenReport, RealError> {
    assert!(
        (1..=GOLDEN_K_MAX).contains(&k),
        "k {k} outside 1..={GOLDEN_K_MAX}"
    );
    if store.backend() != crate::domain::Backend::Pgvector {
        return Err(RealError::Environment(format!(
            "the PostgreSQL model serves pgvector stores; {} is not one",
            store.label()
        )));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RealError::Environment(format!("cannot build a tokio runtime: {e}")))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| RealError::Environment(format!("cannot listen on 127.0.0.1: {e}")))?;
        let address = listener
            .local_addr()
            .map_err(|e| RealError::Environment(e.to_string()))?;
        let server = tokio::spawn(crate::pg::serve_tcp(listener, 0));
        let report = replay(build(store, address), corpus, k).await;
        server.abort();
        report
    })
}

/// One client's store on the server at `address`, dialed directly (no proxy, no faults).
fn build(store: &Store, address: SocketAddr) -> Arc<dyn MemoryStore> {
    let dialer: Arc<dyn Dialer> = Arc::new(TcpDialer(address));
    let config = ConnectorConfig::default();
    let (connector, postgres) =
        crate::contract::connectors((store.backend(), dialer), None, config);
    (store.factory())(StoreContext {
        connector,
        postgres,
        redis_url: None,
        postgres_url: None,
        clock: crate::clock::Clock::system(),
        session_ttl_ms: 60_000,
        code_version: 1,
        seed: 0,
    })
}

async fn replay(
    store: Arc<dyn MemoryStore>,
    corpus: &GoldenCorpus,
    k: usize,
) -> Result<GoldenReport, RealError> {
    for entry in &corpus.memories {
        store
            .remember(&entry.user, &entry.memory)
            .await
            .map_err(|e| RealError::Server(format!("loading {}: {e}", entry.memory.id)))?;
    }
    let mut report = GoldenReport {
        memories: corpus.memories.len(),
        k,
        own_text_missed: Vec::new(),
        recall_at_k: 0.0,
        errors: 0,
    };
    let mut recall_sum = 0.0;
    for entry in &corpus.memories {
        let Ok(found) = store.recall(&entry.user, &entry.memory.text, k).await else {
            report.errors += 1;
            continue;
        };
        if !found.iter().any(|m| m.id == entry.memory.id) {
            report.own_text_missed.push(entry.memory.id.clone());
        }
        recall_sum += overlap_with_exact(corpus, entry, &found, k);
    }
    let replayed = (corpus.memories.len() - report.errors).max(1);
    report.recall_at_k = recall_sum / replayed as f64;
    Ok(report)
}

/// |found ∩ exact top-k| / k for the query `entry`'s text over its user's memories.
fn overlap_with_exact(
    corpus: &GoldenCorpus,
    entry: &GoldenMemory,
    found: &[Memory],
    k: usize,
) -> f64 {
    let query = embed(&entry.memory.text);
    let mut scored: Vec<(f32, &str)> = corpus
        .memories
        .iter()
        .filter(|other| other.user == entry.user)
        .map(|other| {
            (
                cosine(&query, &embed(&other.memory.text)),
                other.memory.id.as_str(),
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let wanted = k.min(scored.len());
    let Some(&(kth, _)) = scored.get(wanted.saturating_sub(1)) else {
        return 1.0;
    };
    // Ties with the k-th count as exact: float noise decides their order.
    let exact = |id: &str| {
        scored
            .iter()
            .any(|(score, other)| *other == id && *score >= kth - 1e-6)
    };
    let hits = found.iter().filter(|m| exact(&m.id)).count().min(wanted);
    hits as f64 / wanted.max(1) as f64
}

/// Dials the server directly over TCP.
struct TcpDialer(SocketAddr);

impl Dialer for TcpDialer {
    fn dial(&self) -> DialFuture<'_> {
        Box::pin(async move {
            let stream = tokio::net::TcpStream::connect(self.0).await?;
            stream.set_nodelay(true)?;
            Ok(Box::new(stream) as BoxStream)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_fixed_and_its_users_texts_distinct() {
        let corpus = golden_corpus(GOLDEN_VERSION);
        assert_eq!(corpus, golden_corpus(GOLDEN_VERSION));
        assert_eq!(corpus.memories.len(), USERS * MEMORIES_PER_USER);
        let mut seen = std::collections::BTreeSet::new();
        for entry in &corpus.memories {
            assert!(seen.insert((&entry.user, &entry.memory.text)));
        }
    }

    #[test]
    fn the_exact_search_scores_its_own_ranking_as_perfect() {
        let corpus = golden_corpus(GOLDEN_VERSION);
        let entry = &corpus.memories[0];
        let query = embed(&entry.memory.text);
        let mut own: Vec<&GoldenMemory> = corpus
            .memories
            .iter()
            .filter(|m| m.user == entry.user)
            .collect();
        own.sort_by(|a, b| {
            let score = |m: &GoldenMemory| cosine(&query, &embed(&m.memory.text));
            score(b).total_cmp(&score(a))
        });
        let top: Vec<Memory> = own.iter().take(5).map(|m| m.memory.clone()).collect();
        assert_eq!(overlap_with_exact(&corpus, entry, &top, 5), 1.0);
        assert_eq!(overlap_with_exact(&corpus, entry, &top[..2], 5), 0.4);
    }
}
