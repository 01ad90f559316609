//! pgvector's IVFFlat index: k-means centres computed once, at `CREATE INDEX`, from the
//! rows present then; every row, then and later, goes to the list of its nearest centre;
//! a scan reads the `ivfflat.probes` nearest lists (read from pgvector's `src/ivfbuild.c`,
//! `src/ivfkmeans.c`, `src/ivfinsert.c` and `src/ivfscan.c`).
//!
//! The failure this keeps is the `ivfflat-before-load` pitfall: an index created on an
//! empty table has random centres (each value uniform in [0, 1)), which never move, so the
//! rows loaded afterwards fall into lists that have nothing to do with their neighbours and
//! a `probes = 1` scan misses most of them.
//!
//! The centres come from k-means++ then Lloyd iterations, which reach the same assignment
//! as pgvector's Elkan iterations (Elkan only skips distance computations), up to `f32`
//! bound rounding; sampling uses a plain reservoir where pgvector samples blocks. Random
//! draws come from a seeded `ChaCha8Rng`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Candidate, IterativeScan, Metric};
use crate::pg::vector::value as vector;

/// `IVFFLAT_MIN_LISTS` and `IVFFLAT_MAX_LISTS`: the range of `lists`, `ivfflat.probes` and
/// `ivfflat.max_probes`.
pub(crate) const LISTS_MIN: u32 = 1;
pub(crate) const LISTS_MAX: u32 = 32_768;
/// k-means gives up converging after this many iterations.
const ITERATIONS_MAX: usize = 500;
/// pgvector samples 50 rows per list, and at least 10000.
const SAMPLES_PER_LIST: usize = 50;
const SAMPLES_MIN: usize = 10_000;

/// A row in a list: its heap tid and its value in index form.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    tid: u64,
    value: Vec<f32>,
}

/// An IVFFlat index on one `vector` column.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IvfFlat {
    dimensions: usize,
    metric: Metric,
    centers: Vec<Vec<f32>>,
    lists: Vec<Vec<Entry>>,
    tid_last: Option<u64>,
    /// The rows k-means sampled at build time.
    samples_count: usize,
}

impl IvfFlat {
    /// `CREATE INDEX ... USING ivfflat (embedding <opclass>) WITH (lists = n)` on a table
    /// holding `rows` (in heap order): sample, k-means (random centres when no row can be
    /// sampled), then every row into its nearest list. The caller validates the
    /// parameters (pgvector's errors); here they are invariants.
    pub(crate) fn build(
        dimensions: usize,
        metric: Metric,
        lists: u32,
        rows: &[(u64, Vec<f32>)],
        seed: u64,
    ) -> IvfFlat {
        assert!(
            metric.ivfflat_supported(),
            "pgvector has no vector_l1_ops for ivfflat"
        );
        assert!((1..=super::dimensions_max(super::Kind::Halfvec)).contains(&dimensions));
        assert!((LISTS_MIN..=LISTS_MAX).contains(&lists));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let kmeans = KMeans {
            metric,
            lists: lists as usize,
            dimensions,
        };
        let samples = kmeans.sample(rows, &mut rng);
        let centers = if samples.is_empty() {
            kmeans.random_centers(&mut rng)
        } else {
            kmeans.run(&samples, &mut rng)
        };
        assert_eq!(
            centers.len(),
            lists as usize,
            "pgvector: not enough centers"
        );
        assert!(centers.iter().flatten().all(|value| value.is_finite()));
        let mut index = IvfFlat {
            dimensions,
            metric,
            centers,
            lists: vec![Vec::new(); lists as usize],
            tid_last: None,
            samples_count: samples.len(),
        };
        for (tid, values) in rows {
            index.insert(*tid, values);
        }
        index
    }

    /// `ivfflatinsert`: into the list of the nearest centre (the first on a tie); a zero
    /// vector under cosine is not indexed.
    pub(crate) fn insert(&mut self, tid: u64, values: &[f32]) {
        assert_eq!(
            values.len(),
            self.dimensions,
            "the caller checks the column's dimensions"
        );
        assert!(
            values.iter().all(|value| value.is_finite()),
            "a vector holds finite values"
        );
        assert!(self.tid_last.is_none_or(|last| tid > last), "tids increase");
        self.tid_last = Some(tid);
        let Some(value) = self.metric.index_form(values) else {
            return;
        };
        let mut nearest = (0, f64::MAX);
        for (list, center) in self.centers.iter().enumerate() {
            let distance = self.metric.distance(&value, center);
            if distance < nearest.1 {
                nearest = (list, distance);
            }
        }
        self.lists[nearest.0].push(Entry { tid, value });
    }

    /// Whether `CREATE INDEX` sampled fewer rows than lists, when pgvector says `NOTICE:
    /// ivfflat index created with little data` (`DETAIL: This will cause low recall.`,
    /// `HINT: Drop the index until the table has more data.`).
    #[cfg(test)]
    pub(crate) fn little_data(&self) -> bool {
        self.samples_count < self.centers.len()
    }

    /// How many rows each list holds, in list order.
    pub(crate) fn list_sizes(&self) -> Vec<usize> {
        self.lists.iter().map(Vec::len).collect()
    }

    /// Starts an index scan ordered by distance to `query`, with the session's
    /// `ivfflat.probes`, `ivfflat.iterative_scan` (off or relaxed order: pgvector has no
    /// strict order for ivfflat) and `ivfflat.max_probes`.
    pub(crate) fn scan(
        &self,
        query: &[f32],
        probes: u32,
        iterative: IterativeScan,
        max_probes: u32,
    ) -> IvfScan {
        assert_eq!(
            query.len(),
            self.dimensions,
            "the caller checks the query's dimensions"
        );
        assert!((LISTS_MIN..=LISTS_MAX).contains(&probes));
        assert!((LISTS_MIN..=LISTS_MAX).contains(&max_probes));
        assert_ne!(
            iterative,
            IterativeScan::StrictOrder,
            "ivfflat.iterative_scan has no strict_order"
        );
        let lists = self.centers.len();
        let probes_max = match iterative {
            IterativeScan::Off => probes,
            IterativeScan::StrictOrder | IterativeScan::RelaxedOrder => max_probes.max(probes),
        };
        let query = self.metric.query_form(query);
        let mut order: Vec<Candidate> = self
            .centers
            .iter()
            .enumerate()
            .map(|(list, center)| Candidate {
                distance: self.metric.distance(center, &query),
                element: u32::try_from(list).expect("at most 32768 lists"),
            })
            .collect();
        order.sort();
        order.truncate((probes_max as usize).min(lists));
        IvfScan {
            query,
            probes: (probes as usize).min(lists),
            lists_order: order
                .into_iter()
                .map(|candidate| candidate.element)
                .collect(),
            lists_done: 0,
            batch: Vec::new(),
        }
    }
}

/// An IVFFlat index scan in progress (`IvfflatScanOpaque`).
#[derive(Clone, Debug)]
pub(crate) struct IvfScan {
    query: Vec<f32>,
    probes: usize,
    /// The lists the scan may read, nearest centre first (`probes`, or `max_probes` with
    /// iterative scan).
    lists_order: Vec<u32>,
    lists_done: usize,
    /// The current batch's rows, farthest first: `next` takes from the end.
    batch: Vec<(f64, u64)>,
}

impl IvfScan {
    /// `ivfflatgettuple`: the next heap tid and its ordering distance. Each batch reads
    /// the next `probes` lists and sorts their rows; with iterative scan a new batch
    /// starts when one runs out, until `max_probes` lists were read (a later batch may hold
    /// nearer rows: relaxed order).
    pub(crate) fn next(&mut self, index: &IvfFlat) -> Option<(u64, f64)> {
        assert_eq!(self.query.len(), index.dimensions);
        loop {
            if let Some((distance, tid)) = self.batch.pop() {
                return Some((tid, distance));
            }
            if self.lists_done == self.lists_order.len() {
                return None;
            }
            self.load_batch(index);
        }
    }

    /// The lists read so far.
    #[cfg(test)]
    pub(crate) fn lists_read(&self) -> usize {
        self.lists_done
    }

    /// `GetScanItems`: every row of the next `probes` lists, sorted by distance (stable:
    /// ties keep list order).
    fn load_batch(&mut self, index: &IvfFlat) {
        assert!(self.batch.is_empty() && self.probes >= 1);
        let end = (self.lists_done + self.probes).min(self.lists_order.len());
        for &list in &self.lists_order[self.lists_done..end] {
            for entry in &index.lists[list as usize] {
                let distance = index.metric.distance(&entry.value, &self.query);
                self.batch.push((distance, entry.tid));
            }
        }
        self.lists_done = end;
        self.batch
            .sort_by(|a, b| (a.0 + 0.0).total_cmp(&(b.0 + 0.0)));
        self.batch.reverse();
    }
}

/// pgvector's k-means (`ivfkmeans.c`): L2 clusters by the L2 distance, inner product and
/// cosine by the angular distance on normalized vectors (spherical k-means).
struct KMeans {
    metric: Metric,
    lists: usize,
    dimensions: usize,
}

impl KMeans {
    /// Spherical for inner product and cosine (`IVFFLAT_KMEANS_NORM_PROC`).
    fn spherical(&self) -> bool {
        matches!(self.metric, Metric::InnerProduct | Metric::Cosine)
    }

    /// `IVFFLAT_KMEANS_DISTANCE_PROC`: `l2_distance`, or `vector_spherical_distance`.
    fn distance(&self, a: &[f32], b: &[f32]) -> f64 {
        if self.spherical() {
            let product = f64::from(vector::inner_product_f32(a, b)).clamp(-1.0, 1.0);
            product.acos() / std::f64::consts::PI
        } else {
            f64::from(vector::l2_squared_f32(a, b)).sqrt()
        }
    }

    fn normalize(&self, values: &[f32]) -> Vec<f32> {
        vector::l2_normalize(vector::Kind::Vector, values)
            .unwrap_or_else(|_| vec![0.0; values.len()])
    }

    /// `SampleRows`: up to max(50 · lists, 10000) rows (all of them when fewer), zero
    /// vectors skipped and the rest normalized for spherical k-means.
    fn sample(&self, rows: &[(u64, Vec<f32>)], rng: &mut ChaCha8Rng) -> Vec<Vec<f32>> {
        let target = (self.lists * SAMPLES_PER_LIST).max(SAMPLES_MIN);
        let mut samples: Vec<Vec<f32>> = Vec::with_capacity(target.min(rows.len()));
        let mut seen = 0usize;
        for (_, values) in rows {
            if self.spherical() && vector::vector_norm(values) <= 0.0 {
                continue;
            }
            seen += 1;
            if samples.len() < target {
                samples.push(values.clone());
            } else {
                let slot = rng.random_range(0..seen);
                if slot < target {
                    samples[slot] = values.clone();
                }
            }
        }
        if self.spherical() {
            samples = samples
                .iter()
                .map(|values| self.normalize(values))
                .collect();
        }
        assert!(samples.len() <= target);
        samples
    }

    /// `RandomCenters`: with no sample, each value uniform in [0, 1) (normalized for
    /// spherical k-means). These centres stay: pgvector never recomputes them.
    fn random_centers(&self, rng: &mut ChaCha8Rng) -> Vec<Vec<f32>> {
        (0..self.lists)
            .map(|_| {
                let center: Vec<f32> = (0..self.dimensions)
                    .map(|_| rng.random::<f64>() as f32)
                    .collect();
                if self.spherical() {
                    self.normalize(&center)
                } else {
                    center
                }
            })
            .collect()
    }

    /// k-means++ seeding, then iterations of assignment and mean until no sample changes
    /// list (after the first) or 500 iterations.
    fn run(&self, samples: &[Vec<f32>], rng: &mut ChaCha8Rng) -> Vec<Vec<f32>> {
        assert!(!samples.is_empty());
        let (mut centers, mut assignment) = self.initial_centers(samples, rng);
        for iteration in 0..ITERATIONS_MAX {
            let changes = self.reassign(samples, &centers, &mut assignment);
            centers = self.new_centers(samples, &assignment, rng);
            if changes == 0 && iteration != 0 {
                break;
            }
        }
        centers
    }

    /// `InitCenters` (k-means++): the first centre a uniformly drawn sample, each next one
    /// drawn with probability proportional to the squared distance to the nearest centre
    /// so far. With fewer samples than lists the draw falls on the first sample again
    /// (all weights zero): duplicate centres, whose lists start empty.
    fn initial_centers(
        &self,
        samples: &[Vec<f32>],
        rng: &mut ChaCha8Rng,
    ) -> (Vec<Vec<f32>>, Vec<usize>) {
        let first = rng.random::<u32>() as usize % samples.len();
        let mut centers = vec![samples[first].clone()];
        let mut weight = vec![f32::MAX; samples.len()];
        let mut nearest = vec![(0usize, f32::MAX); samples.len()];
        loop {
            let i = centers.len() - 1;
            let mut sum = 0.0f64;
            for (j, sample) in samples.iter().enumerate() {
                let distance = self.distance(sample, &centers[i]);
                if (distance as f32) < nearest[j].1 {
                    nearest[j] = (i, distance as f32);
                }
                let squared = distance * distance;
                if squared < f64::from(weight[j]) {
                    weight[j] = squared as f32;
                }
                sum += f64::from(weight[j]);
            }
            if centers.len() == self.lists {
                break;
            }
            let mut choice = sum * rng.random::<f64>();
            let mut chosen = samples.len() - 1;
            for (j, w) in weight.iter().enumerate().take(samples.len() - 1) {
                choice -= f64::from(*w);
                if choice <= 0.0 {
                    chosen = j;
                    break;
                }
            }
            centers.push(samples[chosen].clone());
        }
        (
            centers,
            nearest.into_iter().map(|(center, _)| center).collect(),
        )
    }

    /// Moves each sample to a strictly nearer centre (in `f32`, as Elkan's bounds are);
    /// returns how many moves were made.
    fn reassign(
        &self,
        samples: &[Vec<f32>],
        centers: &[Vec<f32>],
        assignment: &mut [usize],
    ) -> usize {
        let mut changes = 0;
        for (sample, assigned) in samples.iter().zip(assignment.iter_mut()) {
            let current = *assigned;
            let mut best = self.distance(sample, &centers[current]) as f32;
            for (k, center) in centers.iter().enumerate() {
                if k == current {
                    continue;
                }
                let distance = self.distance(sample, center) as f32;
                if distance < best {
                    best = distance;
                    *assigned = k;
                    changes += 1;
                }
            }
        }
        changes
    }

    /// `ComputeNewCenters`: the `f32` mean of each list's samples; an empty list gets a
    /// random centre; normalized for spherical k-means.
    fn new_centers(
        &self,
        samples: &[Vec<f32>],
        assignment: &[usize],
        rng: &mut ChaCha8Rng,
    ) -> Vec<Vec<f32>> {
        let mut sums = vec![vec![0.0f32; self.dimensions]; self.lists];
        let mut counts = vec![0u32; self.lists];
        for (sample, &list) in samples.iter().zip(assignment) {
            counts[list] += 1;
            for (sum, value) in sums[list].iter_mut().zip(sample) {
                *sum += value;
            }
        }
        for (sum, &count) in sums.iter_mut().zip(&counts) {
            if count > 0 {
                for value in sum.iter_mut() {
                    *value = value.clamp(-f32::MAX, f32::MAX) / count as f32;
                }
            } else {
                for value in sum.iter_mut() {
                    *value = rng.random::<f64>() as f32;
                }
            }
        }
        if self.spherical() {
            sums = sums.iter().map(|center| self.normalize(center)).collect();
        }
        sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::vector::ann::tests_support::{
        clustered_rows, exact_nearest, random_rows, recall,
    };

    const K: usize = 10;

    fn scan_all(
        index: &IvfFlat,
        query: &[f32],
        probes: u32,
        iterative: IterativeScan,
    ) -> Vec<(u64, f64)> {
        let mut scan = index.scan(query, probes, iterative, LISTS_MAX);
        let mut out = Vec::new();
        while let Some(row) = scan.next(index) {
            out.push(row);
        }
        out
    }

    fn mean_recall(
        index: &IvfFlat,
        metric: Metric,
        rows: &[(u64, Vec<f32>)],
        queries: &[Vec<f32>],
    ) -> f64 {
        let total: f64 = queries
            .iter()
            .map(|query| {
                let got: Vec<u64> = scan_all(index, query, 1, IterativeScan::Off)
                    .into_iter()
                    .take(K)
                    .map(|(tid, _)| tid)
                    .collect();
                recall(&got, &exact_nearest(metric, rows, query, K))
            })
            .sum();
        total / queries.len() as f64
    }

    #[test]
    fn index_built_before_load_collapses_recall() {
        // 10 topics in 64 dimensions, each row up to ±1 off its topic's centre per value;
        // the queries are 40 more rows of the same topics.
        let mut rows = clustered_rows(21, 540, 64, 10, 1.0);
        let queries: Vec<Vec<f32>> = rows
            .split_off(500)
            .into_iter()
            .map(|(_, values)| values)
            .collect();
        for metric in [Metric::L2, Metric::Cosine] {
            let mut before = IvfFlat::build(64, metric, 10, &[], 5);
            for (tid, values) in &rows {
                before.insert(*tid, values);
            }
            assert!(before.little_data());
            let after = IvfFlat::build(64, metric, 10, &rows, 5);
            assert!(!after.little_data());
            let recall_before = mean_recall(&before, metric, &rows, &queries);
            let recall_after = mean_recall(&after, metric, &rows, &queries);
            eprintln!(
                "ivfflat {metric:?} recall@10 probes=1: built before load {recall_before:.3} \
                 (lists {:?}), after load {recall_after:.3} (lists {:?})",
                before.list_sizes(),
                after.list_sizes()
            );
            assert!(recall_before < 0.5, "{recall_before}");
            assert!(recall_after > 0.9, "{recall_after}");
        }
    }

    #[test]
    fn probes_bound_a_scan_and_iterative_scan_reads_on() {
        let rows = random_rows(22, 400, 8);
        let index = IvfFlat::build(8, Metric::L2, 8, &rows, 1);
        assert_eq!(index.list_sizes().iter().sum::<usize>(), 400);
        let query = &rows[3].1;
        let one = scan_all(&index, query, 1, IterativeScan::Off);
        assert!(one.len() < 400 && !one.is_empty());
        assert!(one.windows(2).all(|pair| pair[0].1 <= pair[1].1));
        assert_eq!(one[0], (rows[3].0, 0.0));
        let all = scan_all(&index, query, 8, IterativeScan::Off);
        assert_eq!(all.len(), 400);
        let relaxed = scan_all(&index, query, 1, IterativeScan::RelaxedOrder);
        assert_eq!(relaxed.len(), 400, "max_probes reaches every list");
        assert_eq!(&relaxed[..one.len()], &one[..]);
        let mut capped = index.scan(query, 2, IterativeScan::RelaxedOrder, 3);
        while capped.next(&index).is_some() {}
        assert_eq!(capped.lists_read(), 3);
    }

    #[test]
    fn fewer_rows_than_lists_and_determinism() {
        let rows = random_rows(23, 3, 4);
        let index = IvfFlat::build(4, Metric::InnerProduct, 8, &rows, 9);
        assert_eq!(index.list_sizes().len(), 8);
        assert_eq!(index.list_sizes().iter().sum::<usize>(), 3);
        let again = IvfFlat::build(4, Metric::InnerProduct, 8, &rows, 9);
        assert_eq!(index, again);
        let rows = random_rows(24, 300, 8);
        let a = IvfFlat::build(8, Metric::Cosine, 6, &rows, 1);
        assert_eq!(a, IvfFlat::build(8, Metric::Cosine, 6, &rows, 1));
        let query = &rows[0].1;
        let b = IvfFlat::build(8, Metric::Cosine, 6, &rows, 1);
        let relaxed = IterativeScan::RelaxedOrder;
        assert_eq!(
            scan_all(&a, query, 2, relaxed),
            scan_all(&b, query, 2, relaxed)
        );
    }
}
