//! `recall-miss` by rank, under the plan's embedder (plans with a history corpus): a
//! recall that returned a memory whose text is not the query's and does not tie with it
//! (cosine similarity below `1 - TIE_SIMILARITY` by [`crate::embed`]) has ranked that
//! memory above any memory whose text is the query's: an exact match scores 1, which no
//! other text reaches. With hundreds of memories a full answer is the common case, and
//! the exact-text rule (which otherwise judges only an answer that is short or holds only
//! the query's text) needs this to see an exact match pushed out by lesser ones.
//!
//! The tolerance for approximate indexes: an ANN search (HNSW, IVFFlat) may return any
//! near neighbours in any order and miss any of them; it may not miss a memory whose
//! embedding is the query's own (distance 0) while returning lesser ones. The reference
//! pgvector store (HNSW, iterative scan `relaxed_order`, re-sorted) meets it on 0..5,000
//! corpus seeds; with `strict_order`, which drops a nearer row found late, seed 4852 of
//! 0..5,000 returns fewer than `k` rows although the user holds more (`recall-miss`).

use super::index::{Index, Recall};
use crate::embed::{cosine, embed, DIMENSIONS};
use std::collections::BTreeSet;

/// Two texts whose embeddings' cosine similarity is within this of 1 tie (texts equal
/// but for case, or for the order of words that hash alike).
pub(crate) const TIE_SIMILARITY: f32 = 1e-4;

/// True when `recall` returned a memory that an exact match of its query outranks, and
/// at most `k` of the user's memories (remembered by the recall's end, in any form) tie
/// with the query: then every exact match had a place in the answer.
pub(crate) fn outranked(idx: &Index<'_>, recall: &Recall<'_>) -> bool {
    let query = embed(recall.query);
    // An empty query embeds to nothing: no text, its own included, scores 1.
    let below = |text: &str| !ties(&query, text);
    if query.iter().all(|&x| x == 0.0) || !recall.memories.iter().any(|m| below(&m.text)) {
        return false;
    }
    let Some(by_text) = idx.remembers_by_text.get(recall.user) else {
        return false;
    };
    let mut tied: BTreeSet<&str> = BTreeSet::new();
    for (text, positions) in by_text {
        if !ties(&query, text) {
            continue;
        }
        let remembers = positions.iter().map(|&p| &idx.remembers[p]);
        for r in remembers.filter(|r| r.write.invoke_us <= recall.complete_us) {
            tied.insert(r.memory.id.as_str());
        }
        if tied.len() > recall.k {
            return false;
        }
    }
    true
}

/// True when `text`'s embedding ties with the query's.
fn ties(query: &[f32; DIMENSIONS], text: &str) -> bool {
    cosine(query, &embed(text)) >= 1.0 - TIE_SIMILARITY
}
