//! A table's vector index as the database keeps it: its column, its metric and its
//! approximate structure (`vector::ann`), and a running scan of it with the session's
//! search settings (`hnsw.ef_search`, `ivfflat.probes`, iterative scans).

use crate::pg::vector::ann::hnsw::Hnsw;
use crate::pg::vector::ann::ivfflat::IvfFlat;
use crate::pg::vector::ann::{IterativeScan, Metric};

/// A vector index's search structure.
#[derive(Clone, Debug)]
pub(crate) enum Ann {
    Hnsw(Box<Hnsw>),
    IvfFlat(IvfFlat),
}

/// A vector index of a table (which holds it): its column and structure. The structure
/// is shared: a scan holds it while WHERE runs (whose subqueries may scan it too), and a
/// kept copy of the table (a schema change's undo) shares it until either side writes.
#[derive(Clone, Debug)]
pub(crate) struct VectorIndex {
    pub column: usize,
    pub metric: Metric,
    pub ann: std::sync::Arc<Ann>,
}

/// A running scan of either kind of vector index.
pub(crate) enum IndexScan {
    Hnsw(crate::pg::vector::ann::hnsw::HnswScan),
    IvfFlat(crate::pg::vector::ann::ivfflat::IvfScan),
}

impl IndexScan {
    pub(crate) fn start(
        ann: &Ann,
        query: &[f32],
        settings: &crate::pg::settings::Settings,
    ) -> IndexScan {
        let iterative = |setting: &str| match settings.get(setting) {
            "strict_order" => IterativeScan::StrictOrder,
            "relaxed_order" => IterativeScan::RelaxedOrder,
            _ => IterativeScan::Off,
        };
        match ann {
            Ann::Hnsw(h) => IndexScan::Hnsw(h.scan(
                query,
                settings.number("hnsw.ef_search") as u32,
                iterative("hnsw.iterative_scan"),
                settings.number("hnsw.max_scan_tuples"),
            )),
            Ann::IvfFlat(i) => {
                let lists = i.list_sizes().len().max(1) as u32;
                let probes = (settings.number("ivfflat.probes") as u32).clamp(1, lists);
                let max_probes = (settings.number("ivfflat.max_probes") as u32).clamp(1, lists);
                IndexScan::IvfFlat(i.scan(
                    query,
                    probes,
                    iterative("ivfflat.iterative_scan"),
                    max_probes,
                ))
            }
        }
    }

    pub(crate) fn next(&mut self, ann: &Ann) -> Option<u64> {
        match (self, ann) {
            (IndexScan::Hnsw(scan), Ann::Hnsw(h)) => scan.next(h).map(|(tid, _)| tid),
            (IndexScan::IvfFlat(scan), Ann::IvfFlat(i)) => scan.next(i).map(|(tid, _)| tid),
            _ => None,
        }
    }
}
