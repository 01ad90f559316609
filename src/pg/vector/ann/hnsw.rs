//! pgvector's HNSW index as a graph built insert by insert, searched as `hnswgettuple`
//! searches it (read from pgvector's `src/hnswutils.c`, `src/hnswinsert.c`,
//! `src/hnswbuild.c` and `src/hnswscan.c`).
//!
//! What the model keeps from pgvector, because a memory store's failures come from it:
//! - a scan without iterative search returns at most `hnsw.ef_search` tuples, then none:
//!   `LIMIT 50` with `ef_search = 40` returns 40 rows, and a `WHERE` filter applied after
//!   the scan starves;
//! - the graph keeps deleted tuples (vacuum is not modelled): the caller drops dead tids
//!   after the scan, and they have used up the `ef_search` budget;
//! - equal vectors share one element (up to 10 heap tids), returned newest first;
//! - `strict_order` drops a tuple nearer than one already returned, `relaxed_order`
//!   returns it late; both search on from the discarded candidates until
//!   `hnsw.max_scan_tuples` elements were visited, then return what is left.
//!
//! Levels come from a seeded `ChaCha8Rng`, not PostgreSQL's generator, so a graph has the
//! shape of pgvector's, not its exact layout. Ties between equal distances break by
//! insertion position (pgvector's pairing heaps break them by memory layout).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Candidate, IterativeScan, Metric};

/// `HNSW_MIN_M` and `HNSW_MAX_M`: the range of the `m` storage parameter.
pub(crate) const M_MIN: u32 = 2;
pub(crate) const M_MAX: u32 = 100;
/// `HNSW_MIN_EF_CONSTRUCTION` and `HNSW_MAX_EF_CONSTRUCTION`.
pub(crate) const EF_CONSTRUCTION_MIN: u32 = 4;
pub(crate) const EF_CONSTRUCTION_MAX: u32 = 1000;
/// `HNSW_MIN_EF_SEARCH` and `HNSW_MAX_EF_SEARCH`: the range of `hnsw.ef_search`.
pub(crate) const EF_SEARCH_MIN: u32 = 1;
pub(crate) const EF_SEARCH_MAX: u32 = 1000;
/// `hnsw.ef_search`'s default.
#[cfg(test)]
const EF_SEARCH_DEFAULT: u32 = 40;
/// `hnsw.max_scan_tuples`'s default.
#[cfg(test)]
const MAX_SCAN_TUPLES_DEFAULT: u64 = 20_000;
/// `HNSW_HEAPTIDS`: the heap tids one element holds for equal vectors.
const HEAP_TIDS_MAX: usize = 10;
/// The most elements a graph holds: element ids are `u32`.
const ELEMENTS_MAX: usize = 1 << 30;

/// `HnswGetMaxLevel`: a neighbour tuple (m ids per upper layer, 2m at layer 0, 6 bytes
/// each) must fit on an 8 kB page, and the level fits in a `u8` capped at 63.
fn level_max(m: u32) -> u8 {
    // BLCKSZ − page header (24) − special space (8) − neighbour tuple header (4) − line
    // pointer (4), in 6-byte item pointers, per m, less the two of layer 0.
    let slots = (8192 - 24 - 8 - 4 - 4) / 6;
    let level = (slots / m).saturating_sub(2).min(63);
    u8::try_from(level).expect("capped at 63")
}

/// `HnswGetLayerM`: layer 0 has twice the connections.
fn layer_m(m: u32, layer: usize) -> usize {
    if layer == 0 {
        2 * m as usize
    } else {
        m as usize
    }
}

/// A connection, with the distance between its two ends narrowed to `f32` as pgvector
/// stores it (`HnswCandidate`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Neighbor {
    element: u32,
    distance: f32,
}

/// A graph node: one indexed value and the heap tids that hold it.
#[derive(Clone, Debug, PartialEq)]
struct Element {
    tids: Vec<u64>,
    value: Vec<f32>,
    level: u8,
    /// `layers[l]`: the connections at layer `l`, at most `layer_m(l)`, in pgvector's order.
    layers: Vec<Vec<Neighbor>>,
}

/// An HNSW index on one `vector` column.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Hnsw {
    dimensions: usize,
    metric: Metric,
    m: u32,
    ef_construction: u32,
    /// `HnswGetMl`: 1 / ln(m), the level distribution's scale.
    ml: f64,
    level_max: u8,
    rng: ChaCha8Rng,
    elements: Vec<Element>,
    entry_point: Option<u32>,
    tid_last: Option<u64>,
    /// A memo of the neighbour heuristic's distances between elements.
    pairs: PairDistances,
}

/// Distances between two elements of the graph the neighbour heuristic already computed.
/// An element's value never changes and every metric is symmetric bit for bit (the same
/// products summed in the same order), so a remembered distance is the one computing it
/// again would give: the memo changes the cost of an insert, never its result. Inserts
/// meet the same pairs again and again: a full neighbour list is re-judged whole each
/// time a new element joins it.
#[derive(Clone, Debug, Default)]
struct PairDistances {
    known: rustc_hash::FxHashMap<u64, f32>,
}

/// Pairs the memo holds before it starts over (16 bytes and change each).
const PAIRS_MAX: usize = 1 << 20;

impl PairDistances {
    fn distance(&mut self, a: u32, b: u32, compute: impl FnOnce() -> f64) -> f64 {
        let key = (u64::from(a.min(b)) << 32) | u64::from(a.max(b));
        if let Some(known) = self.known.get(&key) {
            return f64::from(*known);
        }
        let distance = compute();
        let narrowed = distance as f32;
        assert_eq!(
            f64::from(narrowed),
            distance,
            "a metric's distance is an f32's"
        );
        if self.known.len() >= PAIRS_MAX {
            self.known.clear();
        }
        self.known.insert(key, narrowed);
        distance
    }
}

/// The memo is not part of what an index is: two graphs are equal whatever they remember.
impl PartialEq for PairDistances {
    fn eq(&self, _: &PairDistances) -> bool {
        true
    }
}

/// The elements a search has met: a scan keeps its set across batches. One bit per
/// element id up to the largest met (ids are dense: the graph's positions), so a search
/// costs a bit per element of the graph at most, and a mark is a shift and a mask.
#[derive(Clone, Debug, Default)]
struct Visited {
    words: Vec<u64>,
}

impl Visited {
    /// Marks `element`; true when it was not marked before.
    fn insert(&mut self, element: u32) -> bool {
        let (word, bit) = (element as usize / 64, 1u64 << (element % 64));
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let fresh = self.words[word] & bit == 0;
        self.words[word] |= bit;
        fresh
    }
}

/// What one layer search shares with the scan around it (`HnswSearchLayer`'s `v`,
/// `discarded` and `tuples`).
struct Frontier<'a> {
    visited: &'a mut Visited,
    discarded: Option<&'a mut BinaryHeap<Reverse<Candidate>>>,
    tuples: &'a mut u64,
    /// `initVisited`: a fresh search marks and counts its entry points, a resumed one does
    /// not (they were met before).
    count_entry_points: bool,
}

impl Hnsw {
    /// An empty index, as `CREATE INDEX ... USING hnsw (embedding <opclass>) WITH (m,
    /// ef_construction)` on an empty table. The caller validates the storage parameters
    /// (pgvector's errors); here they are invariants.
    pub(crate) fn new(
        dimensions: usize,
        metric: Metric,
        m: u32,
        ef_construction: u32,
        seed: u64,
    ) -> Hnsw {
        assert!((1..=super::dimensions_max(super::Kind::Halfvec)).contains(&dimensions));
        assert!((M_MIN..=M_MAX).contains(&m));
        assert!((EF_CONSTRUCTION_MIN..=EF_CONSTRUCTION_MAX).contains(&ef_construction));
        assert!(
            ef_construction >= 2 * m,
            "pgvector: ef_construction must be >= 2 * m"
        );
        Hnsw {
            dimensions,
            metric,
            m,
            ef_construction,
            ml: 1.0 / f64::from(m).ln(),
            level_max: level_max(m),
            rng: ChaCha8Rng::seed_from_u64(seed),
            elements: Vec::new(),
            entry_point: None,
            tid_last: None,
            pairs: PairDistances::default(),
        }
    }

    /// `CREATE INDEX` on a table with rows: pgvector inserts them one by one in heap order,
    /// exactly as later inserts go.
    pub(crate) fn build(
        dimensions: usize,
        metric: Metric,
        m: u32,
        ef_construction: u32,
        rows: &[(u64, Vec<f32>)],
        seed: u64,
    ) -> Hnsw {
        let mut index = Hnsw::new(dimensions, metric, m, ef_construction, seed);
        for (tid, values) in rows {
            index.insert(*tid, values);
        }
        index
    }

    /// The graph's elements (equal vectors share one).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.elements.len()
    }

    /// `hnswinsert`: a zero vector under cosine is not indexed; an equal vector already
    /// among the new element's nearest takes the tid; otherwise the element joins the
    /// graph, its neighbours gain a connection to it (pruning their farthest by the
    /// heuristic when full), and it becomes the entry point if it is the highest.
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
        assert!(self.elements.len() < ELEMENTS_MAX);
        self.tid_last = Some(tid);
        let Some(value) = self.metric.index_form(values) else {
            return;
        };
        let level = self.draw_level();
        let layers = vec![Vec::new(); usize::from(level) + 1];
        let mut element = Element {
            tids: vec![tid],
            value,
            level,
            layers,
        };
        let mut pairs = std::mem::take(&mut self.pairs);
        if let Some(entry) = self.entry_point {
            self.find_neighbors(&mut element, entry, &mut pairs);
        }
        if self.add_duplicate(&element) {
            self.pairs = pairs;
            return;
        }
        let id = u32::try_from(self.elements.len()).expect("under ELEMENTS_MAX");
        self.elements.push(element);
        self.update_neighbors(id, &mut pairs);
        self.pairs = pairs;
        let entry_level = self
            .entry_point
            .map(|entry| self.elements[entry as usize].level);
        if entry_level.is_none_or(|entry_level| level > entry_level) {
            self.entry_point = Some(id);
        }
    }

    /// `HnswInitElement`: ⌊−ln(U) · ml⌋ for U uniform in [0, 1), capped (U = 0 gives the
    /// cap, as C's infinite level does).
    fn draw_level(&mut self) -> u8 {
        let uniform: f64 = self.rng.random::<f64>();
        let level = (-uniform.ln() * self.ml).floor();
        if level >= f64::from(self.level_max) {
            self.level_max
        } else {
            level as u8
        }
    }

    /// `HnswFindElementNeighbors`: greedy descent to the element's level, then at each
    /// layer an `ef_construction` search and the heuristic's choice of neighbours.
    fn find_neighbors(&self, element: &mut Element, entry: u32, pairs: &mut PairDistances) {
        let query = element.value.clone();
        let entry_level = self.elements[entry as usize].level;
        let mut entry_points = vec![self.candidate(&query, entry)];
        for layer in (usize::from(element.level) + 1..=usize::from(entry_level)).rev() {
            entry_points = self.search_layer_alone(&query, entry_points, 1, layer);
        }
        let top = element.level.min(entry_level);
        let ef = self.ef_construction as usize;
        for layer in (0..=usize::from(top)).rev() {
            let found = self.search_layer_alone(&query, entry_points, ef, layer);
            let candidates = found
                .iter()
                .map(|c| Neighbor {
                    element: c.element,
                    distance: c.distance as f32,
                })
                .collect();
            let lm = layer_m(self.m, layer);
            let (chosen, _) = self.select_neighbors(candidates, lm, false, pairs);
            element.layers[layer] = chosen;
            entry_points = found;
        }
    }

    /// `FindDuplicate*`: the nearest connections, in order, while their values are equal
    /// bit for bit; the first with room for a tid takes it.
    fn add_duplicate(&mut self, element: &Element) -> bool {
        let tid = element.tids[0];
        for neighbor in &element.layers[0] {
            let other = &mut self.elements[neighbor.element as usize];
            let equal = other
                .value
                .iter()
                .zip(&element.value)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            if !equal {
                return false;
            }
            if other.tids.len() < HEAP_TIDS_MAX {
                other.tids.push(tid);
                return true;
            }
        }
        false
    }

    /// `HnswUpdateNeighbors*`: each new connection is made both ways.
    fn update_neighbors(&mut self, id: u32, pairs: &mut PairDistances) {
        let element = &self.elements[id as usize];
        let layers: Vec<(usize, Vec<Neighbor>)> =
            element.layers.iter().cloned().enumerate().rev().collect();
        for (layer, neighbors) in layers {
            for neighbor in neighbors {
                let change = (neighbor.element, layer, id, neighbor.distance);
                self.update_connection(change, pairs);
            }
        }
    }

    /// `HnswUpdateConnection`: append while there is room; when full, the heuristic over
    /// the old connections and the new one names one to prune, whose slot the new one
    /// takes (nothing changes when the pruned one is the new one).
    fn update_connection(
        &mut self,
        (target, layer, new, distance): (u32, usize, u32, f32),
        pairs: &mut PairDistances,
    ) {
        let lm = layer_m(self.m, layer);
        let connections = &self.elements[target as usize].layers[layer];
        assert!(connections.len() <= lm);
        if connections.iter().any(|neighbor| neighbor.element == new) {
            return;
        }
        let incoming = Neighbor {
            element: new,
            distance,
        };
        if connections.len() < lm {
            self.elements[target as usize].layers[layer].push(incoming);
            return;
        }
        let mut candidates = connections.clone();
        candidates.push(incoming);
        let (_, pruned) = self.select_neighbors(candidates, lm, true, pairs);
        let Some(pruned) = pruned else {
            return;
        };
        let connections = &mut self.elements[target as usize].layers[layer];
        if let Some(slot) = connections.iter_mut().find(|n| n.element == pruned.element) {
            *slot = incoming;
        }
    }

    /// `SelectNeighbors` (the paper's algorithm 4, keeping pruned connections): from
    /// `candidates` ordered farthest first, take the nearest while it is nearer to the
    /// new element than to every one taken, then fill up with the rejected. Returns the
    /// chosen and the one to prune. pgvector caches the "closer" flags between calls; this
    /// recomputes them.
    fn select_neighbors(
        &self,
        mut candidates: Vec<Neighbor>,
        lm: usize,
        sort: bool,
        pairs: &mut PairDistances,
    ) -> (Vec<Neighbor>, Option<Neighbor>) {
        if candidates.len() <= lm {
            return (candidates, None);
        }
        if sort {
            // Farthest first, the larger id first among equals: pgvector's pointer order.
            // The ids are distinct, so no two keys are equal and an unstable sort is exact.
            candidates.sort_unstable_by(|a, b| {
                (b.distance + 0.0)
                    .total_cmp(&(a.distance + 0.0))
                    .then(b.element.cmp(&a.element))
            });
        }
        let (mut chosen, mut rejected) = (Vec::with_capacity(lm), Vec::new());
        while chosen.len() < lm {
            let Some(candidate) = candidates.pop() else {
                break;
            };
            if self.is_closer(&candidate, &chosen, pairs) {
                chosen.push(candidate);
            } else {
                rejected.push(candidate);
            }
        }
        let mut kept = 0;
        while kept < rejected.len() && chosen.len() < lm {
            chosen.push(rejected[kept]);
            kept += 1;
        }
        let pruned = rejected
            .get(kept)
            .copied()
            .or_else(|| candidates.first().copied());
        assert_eq!(chosen.len(), lm);
        (chosen, pruned)
    }

    /// `CheckElementCloser`: nearer (in `f32`) to the element than to any chosen one.
    fn is_closer(
        &self,
        candidate: &Neighbor,
        chosen: &[Neighbor],
        pairs: &mut PairDistances,
    ) -> bool {
        let value = &self.elements[candidate.element as usize].value;
        chosen.iter().all(|other| {
            let between = pairs.distance(candidate.element, other.element, || {
                let other_value = &self.elements[other.element as usize].value;
                self.metric.distance(value, other_value)
            });
            (between as f32) > candidate.distance
        })
    }

    fn candidate(&self, query: &[f32], element: u32) -> Candidate {
        let distance = self
            .metric
            .distance(query, &self.elements[element as usize].value);
        Candidate { distance, element }
    }

    /// A layer search with its own visited set and no discarded heap (inserts, and a
    /// scan's descent through the upper layers).
    fn search_layer_alone(
        &self,
        query: &[f32],
        entry_points: Vec<Candidate>,
        ef: usize,
        layer: usize,
    ) -> Vec<Candidate> {
        let (mut visited, mut tuples) = (Visited::default(), 0);
        let mut frontier = Frontier {
            visited: &mut visited,
            discarded: None,
            tuples: &mut tuples,
            count_entry_points: true,
        };
        self.search_layer(query, entry_points, ef, layer, &mut frontier)
    }

    /// `HnswSearchLayer` (the paper's algorithm 2): the `ef` nearest found from the entry
    /// points, farthest first. Candidates not kept go to the discarded heap when there is
    /// one (iterative scans resume from it).
    fn search_layer(
        &self,
        query: &[f32],
        entry_points: Vec<Candidate>,
        ef: usize,
        layer: usize,
        frontier: &mut Frontier<'_>,
    ) -> Vec<Candidate> {
        assert!(ef >= 1 && !entry_points.is_empty());
        let (mut nearest, mut farthest) = (BinaryHeap::new(), BinaryHeap::new());
        for candidate in entry_points {
            if frontier.count_entry_points {
                frontier.visited.insert(candidate.element);
                *frontier.tuples += 1;
            }
            nearest.push(Reverse(candidate));
            farthest.push(candidate);
        }
        let mut kept = farthest.len();
        while let Some(Reverse(current)) = nearest.pop() {
            let bound = *farthest
                .peek()
                .expect("the entry points stay until ef is reached");
            if current.distance > bound.distance {
                break;
            }
            let unvisited = self.unvisited(current.element, layer, frontier.visited);
            *frontier.tuples += unvisited.len() as u64;
            for element in unvisited {
                let bound = *farthest.peek().expect("never empty");
                let candidate = self.candidate(query, element);
                if !(candidate.distance < bound.distance || kept < ef) {
                    if let Some(discarded) = frontier.discarded.as_deref_mut() {
                        discarded.push(Reverse(candidate));
                    }
                    continue;
                }
                if usize::from(self.elements[element as usize].level) < layer {
                    continue;
                }
                nearest.push(Reverse(candidate));
                farthest.push(candidate);
                kept += 1;
                if kept > ef {
                    let dropped = farthest.pop().expect("more than ef");
                    if let Some(discarded) = frontier.discarded.as_deref_mut() {
                        discarded.push(Reverse(dropped));
                    }
                }
            }
        }
        let mut found = Vec::with_capacity(farthest.len());
        while let Some(candidate) = farthest.pop() {
            found.push(candidate);
        }
        found
    }

    /// The connections of `element` at `layer` not met before, in stored order, marked.
    fn unvisited(&self, element: u32, layer: usize, visited: &mut Visited) -> Vec<u32> {
        let node = &self.elements[element as usize];
        assert!(layer <= usize::from(node.level));
        node.layers[layer]
            .iter()
            .map(|neighbor| neighbor.element)
            .filter(|neighbor| visited.insert(*neighbor))
            .collect()
    }

    /// Starts an index scan ordered by distance to `query` (`ORDER BY embedding <op>
    /// query`), with the session's `hnsw.ef_search`, `hnsw.iterative_scan` and
    /// `hnsw.max_scan_tuples`. The search runs at the first [`HnswScan::next`].
    pub(crate) fn scan(
        &self,
        query: &[f32],
        ef_search: u32,
        iterative: IterativeScan,
        max_scan_tuples: u64,
    ) -> HnswScan {
        assert_eq!(
            query.len(),
            self.dimensions,
            "the caller checks the query's dimensions"
        );
        assert!((EF_SEARCH_MIN..=EF_SEARCH_MAX).contains(&ef_search));
        assert!((1..=i32::MAX as u64).contains(&max_scan_tuples));
        HnswScan {
            query: self.metric.query_form(query),
            ef_search: ef_search as usize,
            iterative,
            max_scan_tuples,
            started: false,
            found: Vec::new(),
            discarded: None,
            visited: Visited::default(),
            tuples: 0,
            distance_previous: f64::NEG_INFINITY,
        }
    }
}

/// A found element being returned: its candidate and how many of its tids are left.
#[derive(Clone, Copy, Debug)]
struct Found {
    candidate: Candidate,
    tids_left: usize,
}

/// An HNSW index scan in progress (`HnswScanOpaque`): hands out tids one at a time.
#[derive(Clone, Debug)]
pub(crate) struct HnswScan {
    query: Vec<f32>,
    ef_search: usize,
    iterative: IterativeScan,
    max_scan_tuples: u64,
    started: bool,
    /// The current batch, farthest first: `next` takes from the end.
    found: Vec<Found>,
    /// Candidates seen and not returned, nearest first; `None` without iterative scan or
    /// on an empty index.
    discarded: Option<BinaryHeap<Reverse<Candidate>>>,
    visited: Visited,
    /// Elements visited (pgvector counts elements, not tuples, against max_scan_tuples).
    tuples: u64,
    distance_previous: f64,
}

impl HnswScan {
    /// `hnswgettuple`: the next heap tid and its ordering distance, or `None` when the
    /// scan is over. `index` is the index the scan was started on.
    pub(crate) fn next(&mut self, index: &Hnsw) -> Option<(u64, f64)> {
        assert_eq!(self.query.len(), index.dimensions);
        if !self.started {
            self.started = true;
            self.found = self.first_batch(index);
        }
        loop {
            if self.found.is_empty() && !self.refill(index) {
                return None;
            }
            let last = self.found.last_mut().expect("refilled");
            if last.tids_left == 0 {
                self.found.pop();
                continue;
            }
            last.tids_left -= 1;
            let candidate = last.candidate;
            let tid = index.elements[candidate.element as usize].tids[last.tids_left];
            if self.iterative == IterativeScan::StrictOrder {
                if candidate.distance < self.distance_previous {
                    continue;
                }
                self.distance_previous = candidate.distance;
            }
            return Some((tid, candidate.distance));
        }
    }

    /// The elements visited so far, what `hnsw.max_scan_tuples` bounds.
    #[cfg(test)]
    pub(crate) fn tuples_visited(&self) -> u64 {
        self.tuples
    }

    /// `GetScanItems`: greedy descent to layer 0, then one `ef_search` search there.
    fn first_batch(&mut self, index: &Hnsw) -> Vec<Found> {
        let Some(entry) = index.entry_point else {
            return Vec::new();
        };
        let mut entry_points = vec![index.candidate(&self.query, entry)];
        let entry_level = usize::from(index.elements[entry as usize].level);
        for layer in (1..=entry_level).rev() {
            entry_points = index.search_layer_alone(&self.query, entry_points, 1, layer);
        }
        if self.iterative != IterativeScan::Off {
            self.discarded = Some(BinaryHeap::new());
        }
        let mut frontier = Frontier {
            visited: &mut self.visited,
            discarded: self.discarded.as_mut(),
            tuples: &mut self.tuples,
            count_entry_points: true,
        };
        let found = index.search_layer(&self.query, entry_points, self.ef_search, 0, &mut frontier);
        found
            .into_iter()
            .map(|candidate| found_element(index, candidate))
            .collect()
    }

    /// The batch ran out: without iterative scan the scan is over; with it, past
    /// `max_scan_tuples` return the discarded one by one, before it resume the search
    /// (`ResumeScanItems`) from the `ef_search` nearest discarded. False when nothing is left.
    fn refill(&mut self, index: &Hnsw) -> bool {
        assert!(self.found.is_empty());
        if self.iterative == IterativeScan::Off {
            return false;
        }
        let Some(discarded) = self.discarded.as_mut() else {
            return false;
        };
        if self.tuples >= self.max_scan_tuples {
            let Some(Reverse(candidate)) = discarded.pop() else {
                return false;
            };
            self.found.push(found_element(index, candidate));
            return true;
        }
        let mut entry_points = Vec::with_capacity(self.ef_search);
        while entry_points.len() < self.ef_search {
            let Some(Reverse(candidate)) = discarded.pop() else {
                break;
            };
            entry_points.push(candidate);
        }
        if entry_points.is_empty() {
            return false;
        }
        let mut frontier = Frontier {
            visited: &mut self.visited,
            discarded: self.discarded.as_mut(),
            tuples: &mut self.tuples,
            count_entry_points: false,
        };
        let found = index.search_layer(&self.query, entry_points, self.ef_search, 0, &mut frontier);
        self.found = found
            .into_iter()
            .map(|candidate| found_element(index, candidate))
            .collect();
        !self.found.is_empty()
    }
}

fn found_element(index: &Hnsw, candidate: Candidate) -> Found {
    let tids_left = index.elements[candidate.element as usize].tids.len();
    assert!((1..=HEAP_TIDS_MAX).contains(&tids_left));
    Found {
        candidate,
        tids_left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::vector::ann::tests_support::{exact_nearest, random_rows, recall};

    const K: usize = 10;

    fn scan_all(
        index: &Hnsw,
        query: &[f32],
        ef_search: u32,
        iterative: IterativeScan,
    ) -> Vec<(u64, f64)> {
        let mut scan = index.scan(query, ef_search, iterative, MAX_SCAN_TUPLES_DEFAULT);
        let mut out = Vec::new();
        while let Some(row) = scan.next(index) {
            out.push(row);
            assert!(out.len() <= index.len() * HEAP_TIDS_MAX);
        }
        out
    }

    fn mean_recall(index: &Hnsw, rows: &[(u64, Vec<f32>)], queries: &[Vec<f32>], ef: u32) -> f64 {
        let total: f64 = queries
            .iter()
            .map(|query| {
                let got: Vec<u64> = scan_all(index, query, ef, IterativeScan::Off)
                    .into_iter()
                    .take(K)
                    .map(|(tid, _)| tid)
                    .collect();
                recall(&got, &exact_nearest(Metric::L2, rows, query, K))
            })
            .sum();
        total / queries.len() as f64
    }

    #[test]
    fn recall_at_10_with_default_ef_search() {
        let rows = random_rows(1, 1000, 64);
        let queries: Vec<Vec<f32>> = random_rows(2, 50, 64).into_iter().map(|(_, v)| v).collect();
        let index = Hnsw::build(64, Metric::L2, 16, 64, &rows, 7);
        let recall = mean_recall(&index, &rows, &queries, EF_SEARCH_DEFAULT);
        eprintln!("hnsw recall@10, 1000 x 64-dim, ef_search 40: {recall:.3}");
        assert!(recall >= 0.95, "recall {recall}");
    }

    #[test]
    fn ef_search_caps_a_scan_without_iterative_search() {
        let rows = random_rows(3, 300, 16);
        let index = Hnsw::build(16, Metric::L2, 16, 64, &rows, 1);
        let query = &rows[5].1;
        let off = scan_all(&index, query, 5, IterativeScan::Off);
        assert_eq!(off.len(), 5, "LIMIT 10 with ef_search 5 returns 5 rows");
        assert!(off.windows(2).all(|pair| pair[0].1 <= pair[1].1));
        assert_eq!(off[0], (rows[5].0, 0.0));
        let strict = scan_all(&index, query, 5, IterativeScan::StrictOrder);
        assert!(strict.len() >= K, "{}", strict.len());
        assert!(
            strict.windows(2).all(|pair| pair[0].1 <= pair[1].1),
            "strict_order is ordered"
        );
        let relaxed = scan_all(&index, query, 5, IterativeScan::RelaxedOrder);
        assert!(relaxed.len() >= strict.len());
        let mut tids: Vec<u64> = relaxed.iter().map(|(tid, _)| *tid).collect();
        tids.sort_unstable();
        tids.dedup();
        assert_eq!(tids.len(), relaxed.len(), "each tuple once");
    }

    #[test]
    fn strict_order_drops_what_relaxed_order_returns_late() {
        let rows = random_rows(1, 1000, 64);
        let index = Hnsw::build(64, Metric::L2, 16, 64, &rows, 7);
        let query = &random_rows(2, 1, 64)[0].1;
        let strict = scan_all(&index, query, 10, IterativeScan::StrictOrder);
        let relaxed = scan_all(&index, query, 10, IterativeScan::RelaxedOrder);
        let unordered = relaxed
            .windows(2)
            .filter(|pair| pair[0].1 > pair[1].1)
            .count();
        eprintln!(
            "hnsw iterative, 1000 rows: relaxed {} ({unordered} out of order), strict {}",
            relaxed.len(),
            strict.len()
        );
        assert_eq!(
            relaxed.len(),
            1000,
            "max_scan_tuples 20000 lets the search reach every row"
        );
        assert!(unordered > 0, "a resumed search finds nearer rows late");
        assert!(strict.len() < relaxed.len(), "strict_order drops them");
        assert!(strict.windows(2).all(|pair| pair[0].1 <= pair[1].1));
    }

    #[test]
    fn max_scan_tuples_stops_the_search_and_returns_the_discarded() {
        let rows = random_rows(6, 500, 16);
        let index = Hnsw::build(16, Metric::L2, 8, 32, &rows, 2);
        let query = &rows[0].1;
        let mut scan = index.scan(query, 10, IterativeScan::RelaxedOrder, 1);
        let first: Vec<(u64, f64)> = (0..10).map_while(|_| scan.next(&index)).collect();
        assert_eq!(first.len(), 10);
        let visited = scan.tuples_visited();
        assert!(visited > 1, "the first search visits past the limit");
        let rest = std::iter::from_fn(|| scan.next(&index)).count();
        assert!(rest > 0, "the discarded candidates are returned");
        assert_eq!(scan.tuples_visited(), visited, "no search after the limit");
        let unlimited = scan_all(&index, query, 10, IterativeScan::RelaxedOrder);
        assert!(
            unlimited.len() > 10 + rest,
            "{} vs {}",
            unlimited.len(),
            10 + rest
        );
    }

    #[test]
    fn dead_tuples_starve_a_filtered_scan() {
        let rows = random_rows(4, 400, 16);
        let index = Hnsw::build(16, Metric::L2, 16, 64, &rows, 3);
        // The 60 rows nearest the query were deleted: the graph still holds them.
        let query = &rows[0].1;
        let dead = exact_nearest(Metric::L2, &rows, query, 60);
        let live = |tid: &u64| !dead.contains(tid);
        let off: Vec<u64> = scan_all(&index, query, 40, IterativeScan::Off)
            .into_iter()
            .map(|(tid, _)| tid)
            .filter(live)
            .collect();
        assert!(
            off.len() < K,
            "the dead used up ef_search: {} live rows",
            off.len()
        );
        let relaxed = scan_all(&index, query, 40, IterativeScan::RelaxedOrder);
        assert!(
            relaxed
                .iter()
                .map(|(tid, _)| tid)
                .filter(|tid| live(tid))
                .count()
                >= K
        );
    }

    #[test]
    fn same_seed_same_graph_and_scans() {
        let rows = random_rows(5, 300, 8);
        let a = Hnsw::build(8, Metric::Cosine, 4, 16, &rows, 11);
        let b = Hnsw::build(8, Metric::Cosine, 4, 16, &rows, 11);
        let c = Hnsw::build(8, Metric::Cosine, 4, 16, &rows, 12);
        assert_eq!(a, b);
        assert_ne!(a.elements, c.elements, "another seed draws other levels");
        let query = &rows[9].1;
        for iterative in [
            IterativeScan::Off,
            IterativeScan::StrictOrder,
            IterativeScan::RelaxedOrder,
        ] {
            assert_eq!(
                scan_all(&a, query, 10, iterative),
                scan_all(&b, query, 10, iterative)
            );
        }
    }

    #[test]
    fn equal_vectors_share_an_element_and_zero_cosine_is_skipped() {
        let mut index = Hnsw::new(2, Metric::Cosine, 2, 16, 0);
        index.insert(1, &[0.0, 0.0]);
        assert_eq!(index.len(), 0);
        for (i, tid) in (2..=40).enumerate() {
            index.insert(tid, &[1.0 + i as f32, 2.0]);
        }
        for tid in 41..=43 {
            index.insert(tid, &[3.0, 6.0]);
        }
        assert!(index.len() < 42, "{} elements", index.len());
        let rows = scan_all(&index, &[3.0, 6.0], 4, IterativeScan::Off);
        assert_eq!(rows[0].0, 43, "equal vectors return newest first");
        assert!(
            !rows.iter().any(|(tid, _)| *tid == 1),
            "a zero vector is not indexed"
        );
    }

    #[test]
    fn empty_index_scans_nothing_and_levels_are_capped() {
        let index = Hnsw::new(3, Metric::L2, 16, 64, 0);
        assert_eq!(
            index
                .scan(&[1.0, 2.0, 3.0], 40, IterativeScan::StrictOrder, 100)
                .next(&index),
            None
        );
        assert_eq!(level_max(16), 63);
        assert_eq!(level_max(100), 11);
        assert_eq!(layer_m(16, 0), 32);
    }
}
