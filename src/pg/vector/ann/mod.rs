//! pgvector's approximate nearest-neighbour indexes, HNSW ([`hnsw`]) and IVFFlat
//! ([`ivfflat`]), modelled insert by insert so that their failure shapes are real: a scan
//! that returns at most `hnsw.ef_search` rows, dead tuples that use up that budget, lists
//! built on an empty table that put every row in the wrong place.
//!
//! Both indexes hold heap tuple ids (`u64`, given by the caller, increasing in insertion
//! order) and return them with the index's ordering distance: the value the index sorts
//! by, not the operator's result (L2 orders by the squared distance, cosine by the
//! negative inner product of normalized vectors, as pgvector's support functions do). The
//! executor computes the operator itself from the heap row.

pub(crate) mod hnsw;
pub(crate) mod ivfflat;

use std::cmp::Ordering;

use crate::pg::vector::kind::Kind;
use crate::pg::vector::value as vector;

/// The operator class an index was created with: which operator it serves and which
/// distance it orders by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Metric {
    /// `vector_l2_ops` (`halfvec_l2_ops`), `<->`: ordered by the squared L2 distance.
    L2,
    /// `vector_cosine_ops`, `<=>`: values and queries normalized, ordered by the negative
    /// inner product (the same order as the cosine distance, for non-zero vectors).
    Cosine,
    /// `vector_ip_ops`, `<#>`: ordered by the negative inner product.
    InnerProduct,
    /// `vector_l1_ops`, `<+>` (HNSW only): ordered by the L1 distance.
    L1,
}

impl Metric {
    /// The type and metric of an operator class name, as `CREATE INDEX ... (embedding
    /// vector_cosine_ops)` names it (`halfvec_cosine_ops` for a halfvec).
    pub(crate) fn from_opclass(opclass: &str) -> Option<(Kind, Metric)> {
        let (kind, metric) = opclass.split_once('_')?;
        let kind = [Kind::Vector, Kind::Halfvec]
            .into_iter()
            .find(|k| k.name() == kind)?;
        let metric = match metric {
            "l2_ops" => Metric::L2,
            "cosine_ops" => Metric::Cosine,
            "ip_ops" => Metric::InnerProduct,
            "l1_ops" => Metric::L1,
            _ => return None,
        };
        Some((kind, metric))
    }

    /// pgvector defines no `vector_l1_ops` for ivfflat: `CREATE INDEX` refuses it.
    pub(crate) fn ivfflat_supported(&self) -> bool {
        !matches!(self, Metric::L1)
    }

    /// The value as the index stores it (`HnswFormIndexValue`, ivfflat's insert): cosine
    /// normalizes, and a zero vector, which has no direction, is not indexed at all (`None`:
    /// the row exists but no index scan ever returns it).
    pub(crate) fn index_form(&self, values: &[f32]) -> Option<Vec<f32>> {
        match self {
            Metric::Cosine => {
                if vector::vector_norm(values) > 0.0 {
                    vector::l2_normalize(vector::Kind::Vector, values).ok()
                } else {
                    None
                }
            }
            Metric::L2 | Metric::InnerProduct | Metric::L1 => Some(values.to_vec()),
        }
    }

    /// The query as a scan uses it: cosine normalizes (a zero query stays zero, every
    /// distance is then 0 and the order is the index's own).
    pub(crate) fn query_form(&self, query: &[f32]) -> Vec<f32> {
        match self {
            Metric::Cosine => vector::l2_normalize(vector::Kind::Vector, query)
                .unwrap_or_else(|_| vec![0.0; query.len()]),
            Metric::L2 | Metric::InnerProduct | Metric::L1 => query.to_vec(),
        }
    }

    /// The distance the index orders by (support function 1), on values in index form:
    /// L2 squared, the negative inner product (cosine and inner product), or L1, each
    /// accumulated in `f32` as pgvector does.
    pub(crate) fn distance(&self, a: &[f32], b: &[f32]) -> f64 {
        assert_eq!(a.len(), b.len(), "an index holds one dimension count");
        match self {
            Metric::L2 => f64::from(vector::l2_squared_f32(a, b)),
            Metric::Cosine | Metric::InnerProduct => f64::from(-vector::inner_product_f32(a, b)),
            Metric::L1 => f64::from(vector::l1_f32(a, b)),
        }
    }
}

/// The widest column pgvector's HNSW and IVFFlat index (`HNSW_MAX_DIM`,
/// `IVFFLAT_MAX_DIM`): 2000 for `vector`, twice that for `halfvec`'s half-width elements.
pub(crate) fn dimensions_max(kind: Kind) -> usize {
    match kind {
        Kind::Vector => 2_000,
        Kind::Halfvec => 4_000,
    }
}

/// `hnsw.iterative_scan` / `ivfflat.iterative_scan` (pgvector 0.8): whether a scan that
/// ran out of candidates searches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IterativeScan {
    /// The default: a scan returns what its one search found, then nothing.
    Off,
    /// HNSW only: search on, and drop any tuple nearer than one already returned.
    StrictOrder,
    /// Search on, returning each batch in order (a later batch may hold nearer tuples).
    RelaxedOrder,
}

/// A candidate in a search: its distance and its element (or list entry), ordered by
/// distance then by position so that equal distances order the same way on every run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    pub(crate) distance: f64,
    pub(crate) element: u32,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Candidate) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Candidate) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Candidate) -> Ordering {
        // `+ 0.0` makes -0 equal to 0, as C's comparisons have it.
        (self.distance + 0.0)
            .total_cmp(&(other.distance + 0.0))
            .then(self.element.cmp(&other.element))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opclasses_and_ordering_distances() {
        assert_eq!(
            Metric::from_opclass("vector_cosine_ops"),
            Some((Kind::Vector, Metric::Cosine))
        );
        assert_eq!(
            Metric::from_opclass("vector_l1_ops"),
            Some((Kind::Vector, Metric::L1))
        );
        assert_eq!(
            Metric::from_opclass("halfvec_l2_ops"),
            Some((Kind::Halfvec, Metric::L2))
        );
        assert_eq!(Metric::from_opclass("sparsevec_l2_ops"), None);
        assert_eq!(Metric::from_opclass("vector_l3_ops"), None);
        assert!(!Metric::L1.ivfflat_supported());
        let (a, b) = ([3.0, 4.0], [0.0, 1.0]);
        assert_eq!(Metric::L2.distance(&a, &b), 18.0);
        assert_eq!(Metric::InnerProduct.distance(&a, &b), -4.0);
        assert_eq!(Metric::L1.distance(&a, &b), 6.0);
        let stored = Metric::Cosine.index_form(&a).unwrap();
        let query = Metric::Cosine.query_form(&b);
        assert!((Metric::Cosine.distance(&stored, &query) + 0.8).abs() < 1e-6);
        assert_eq!(Metric::Cosine.index_form(&[0.0, 0.0]), None);
        assert_eq!(Metric::L2.index_form(&[0.0, 0.0]), Some(vec![0.0, 0.0]));
    }
}

/// Data and exact answers for the indexes' tests.
#[cfg(test)]
pub(crate) mod tests_support {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::Metric;

    /// `count` rows of `dimensions` values uniform in [-1, 1), tids 1, 2, ...
    pub(crate) fn random_rows(seed: u64, count: usize, dimensions: usize) -> Vec<(u64, Vec<f32>)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (1..=count as u64)
            .map(|tid| {
                (
                    tid,
                    (0..dimensions)
                        .map(|_| rng.random::<f32>() * 2.0 - 1.0)
                        .collect(),
                )
            })
            .collect()
    }

    /// Rows around `clusters` random centres (uniform in [-1, 1)), each value off its
    /// centre by up to ±`spread`: embeddings come in topics.
    pub(crate) fn clustered_rows(
        seed: u64,
        count: usize,
        dimensions: usize,
        clusters: usize,
        spread: f32,
    ) -> Vec<(u64, Vec<f32>)> {
        let centres = random_rows(seed, clusters, dimensions);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        (1..=count as u64)
            .map(|tid| {
                let centre = &centres[rng.random_range(0..clusters)].1;
                let values = centre
                    .iter()
                    .map(|c| c + spread * (rng.random::<f32>() * 2.0 - 1.0));
                (tid, values.collect())
            })
            .collect()
    }

    /// The tids of the `k` rows nearest `query` by the metric's own order.
    pub(crate) fn exact_nearest(
        metric: Metric,
        rows: &[(u64, Vec<f32>)],
        query: &[f32],
        k: usize,
    ) -> Vec<u64> {
        let query = metric.query_form(query);
        let mut scored: Vec<(f64, u64)> = rows
            .iter()
            .filter_map(|(tid, values)| {
                let stored = metric.index_form(values)?;
                Some((metric.distance(&stored, &query), *tid))
            })
            .collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        scored.into_iter().take(k).map(|(_, tid)| tid).collect()
    }

    /// The share of `expected` found in `got`.
    pub(crate) fn recall(got: &[u64], expected: &[u64]) -> f64 {
        assert!(!expected.is_empty());
        let hits = expected.iter().filter(|tid| got.contains(tid)).count();
        hits as f64 / expected.len() as f64
    }
}
