//! The sweep report: one versioned JSON document, and the terminal summary.
//!
//! # JSON schema, version 1
//!
//! ```text
//! {
//!   "schema": "amnesia-sweep-report",     constant
//!   "version": 1,                          bumped on any incompatible change
//!   "store": "write-behind",  "engine": "event",  "scenario": "standard",
//!   "seeds": {"start": 0, "end": 1000},    the half-open range asked for
//!   "shard": {"index": 1, "count": 4},     or null; shard K/N runs seed % N == K-1
//!   "jobs": 2,  "check_determinism": false,  "seed_timeout_ms": 60000,
//!   "wall_ms": 3120,                       wall time of the whole sweep
//!   "summary": {
//!     "seeds": 250, "pass": 240, "fail": 10, "stuck": 0, "panic": 0, "nondeterministic": 0,
//!     "by_class": [{"class": "lost", "seeds": [4, 12]}],   failing seeds per class
//!     "excused": {"acked_messages": 9120, "excused_messages": 31}, expected loss, all seeds
//!     "coverage": {"points": [{"point": "session.ops-in-flight", "runs": 212}, ...],
//!                  "sometimes": [{"point": "mystore.exec-aborted", "runs": 3}]}
//!   },                                     runs per coverage point (0: never reached)
//!   "results": [                           one per seed, ordered by seed
//!     {"seed": 4,
//!      "status": "fail",                   pass | fail | stuck | panic | nondeterministic
//!      "classes": ["lost"],                violation classes (kebab-case, ViolationClass's names)
//!      "violations": [{"class": "lost", "subject": {"kind": "session", "tenant": "t0",
//!                      "session": "s0"}, "op_indexes": [47], "message_ids": ["m26"],
//!                      "explanation": "..."}],
//!      "trace_hash": "3ef2641c1668a3e6",   16 hex digits, or null if the run never ended
//!      "wall_us": 2345,                    wall time of the seed
//!      "replay": "amnesia replay --seed 4 --store write-behind --engine event",
//!      "divergence": {"index": 12, "first": "...", "second": "..."},  only if nondeterministic
//!      "panic": "...",                     only if the run panicked
//!      "excused": {"acked_messages": 96, "excused_messages": 2},
//!      "coverage": {"points": {"session.ops-in-flight": 3, ...},   each point reached, times
//!                   "sometimes": {"mystore.exec-aborted": 1}}}     the store's own points
//!   ]
//! }
//! ```
//!
//! Everything but the wall times is the same whatever `--jobs` is.

use crate::check::{Excused, ViolationClass};
use crate::coverage::{points_for, Coverage};
use crate::domain::Backend;
use crate::runner::seeds::{SeedRange, Shard};
use crate::runner::sweep::{SeedResult, SeedStatus, SweepConfig};
use crate::runner::text::class_name;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The `schema` field of every sweep report.
pub const REPORT_SCHEMA: &str = "amnesia-sweep-report";
/// The report format version.
pub const REPORT_VERSION: u32 = 1;
/// Failing seeds listed per class in the terminal summary; the JSON report has them all.
pub const SEEDS_SHOWN_PER_CLASS_MAX: usize = 10;
/// Reached coverage points shown as the rarest in the terminal summary.
pub const RARE_POINTS_SHOWN_MAX: usize = 5;

/// A whole sweep, as written by `--json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepReport {
    /// Always [`REPORT_SCHEMA`].
    pub schema: String,
    /// Always [`REPORT_VERSION`] when written by this version.
    pub version: u32,
    /// The store's label.
    pub store: String,
    /// The engine's name, as `--engine` takes it.
    pub engine: String,
    /// The scenario's name.
    pub scenario: String,
    /// The seed range asked for.
    pub seeds: SeedRange,
    /// The shard swept; `None`: every seed of the range.
    pub shard: Option<Shard>,
    /// Worker threads the sweep ran on.
    pub jobs: usize,
    /// Whether every seed ran twice to compare trace hashes.
    pub check_determinism: bool,
    /// Wall-clock limit of one run, in milliseconds.
    pub seed_timeout_ms: u64,
    /// Wall time of the whole sweep, in milliseconds.
    pub wall_ms: u64,
    /// Counts by status and failing seeds per class.
    pub summary: Summary,
    /// One result per seed, ordered by seed.
    pub results: Vec<SeedResult>,
}

/// Counts by status, and the failing seeds of each class.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Seeds run.
    pub seeds: usize,
    /// Seeds that passed.
    pub pass: usize,
    /// Seeds whose verdict had violations.
    pub fail: usize,
    /// Seeds whose run hit the wall-clock limit.
    pub stuck: usize,
    /// Seeds whose run panicked.
    pub panic: usize,
    /// Seeds whose two runs produced different traces.
    pub nondeterministic: usize,
    /// For each violation class found, the seeds that showed it, in class order.
    pub by_class: Vec<ClassSeeds>,
    /// Acked messages over all seeds, and those excused as expected loss.
    #[serde(default)]
    pub excused: Excused,
    /// How many runs reached each coverage point; the points no run reached.
    #[serde(default)]
    pub coverage: CoverageSummary,
}

/// How many runs of a sweep reached each coverage point.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoverageSummary {
    /// amnesia's points that the store's backend can reach, in
    /// [`POINTS`](crate::coverage::POINTS)' order, each with the runs that reached it (0:
    /// none did).
    pub points: Vec<PointRuns>,
    /// The store's `sometimes!` points that some run reached or that the sweep was told
    /// to expect ([`SweepConfig::sometimes_declared`]), by name, each with its runs.
    pub sometimes: Vec<PointRuns>,
}

/// One coverage point and how many runs reached it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointRuns {
    /// The point's name.
    pub point: String,
    /// Runs that reached it at least once.
    pub runs: usize,
}

impl CoverageSummary {
    /// The summary of the runs of a store of `backend` whose coverage `runs` yields.
    pub(crate) fn of<'a>(
        runs: impl Iterator<Item = &'a Coverage>,
        declared: &[String],
        backend: Backend,
    ) -> CoverageSummary {
        let mut own: BTreeMap<&str, usize> =
            points_for(backend).map(|(name, _)| (*name, 0)).collect();
        let mut sometimes: BTreeMap<String, usize> =
            declared.iter().map(|name| (name.clone(), 0)).collect();
        for coverage in runs {
            for point in coverage.points.keys() {
                if let Some(runs) = own.get_mut(point.as_str()) {
                    *runs += 1;
                }
            }
            for point in coverage.sometimes.keys() {
                *sometimes.entry(point.clone()).or_default() += 1;
            }
        }
        let runs = |point: &str, runs: usize| PointRuns {
            point: point.to_string(),
            runs,
        };
        CoverageSummary {
            points: points_for(backend)
                .map(|(name, _)| runs(name, own[name]))
                .collect(),
            sometimes: sometimes.iter().map(|(name, n)| runs(name, *n)).collect(),
        }
    }

    /// The terminal lines: points no run reached, the rarest reached, the store's points.
    pub fn text(&self) -> String {
        let never: Vec<&str> = self
            .points
            .iter()
            .filter(|p| p.runs == 0)
            .map(|p| p.point.as_str())
            .collect();
        let reached = self.points.len() - never.len();
        let mut out = format!(
            "coverage: {reached} of {} points reached",
            self.points.len()
        );
        if !never.is_empty() {
            let _ = write!(out, "; never reached: {}", never.join(", "));
        }
        out.push('\n');
        let mut rare: Vec<&PointRuns> = self.points.iter().filter(|p| p.runs > 0).collect();
        rare.sort_by_key(|p| (p.runs, p.point.clone()));
        if !rare.is_empty() {
            let shown: Vec<String> = rare
                .iter()
                .take(RARE_POINTS_SHOWN_MAX)
                .map(|p| format!("{} {}", p.point, p.runs))
                .collect();
            let _ = writeln!(out, "rarest (runs): {}", shown.join(", "));
        }
        let (reached, never): (Vec<&PointRuns>, Vec<&PointRuns>) =
            self.sometimes.iter().partition(|p| p.runs > 0);
        if !reached.is_empty() {
            let shown: Vec<String> = reached
                .iter()
                .map(|p| format!("{} {}", p.point, p.runs))
                .collect();
            let _ = writeln!(out, "sometimes! reached (runs): {}", shown.join(", "));
        }
        if !never.is_empty() {
            let shown: Vec<&str> = never.iter().map(|p| p.point.as_str()).collect();
            let _ = writeln!(out, "sometimes! never reached: {}", shown.join(", "));
        }
        out
    }
}

/// The seeds that showed one violation class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassSeeds {
    /// The violation class.
    pub class: ViolationClass,
    /// The seeds that showed it, ascending.
    pub seeds: Vec<u64>,
}

impl Summary {
    /// The summary of `results` of a store of `backend`; `declared` names the store's
    /// `sometimes!` points listed even when no run reached them.
    pub(crate) fn of(results: &[SeedResult], declared: &[String], backend: Backend) -> Summary {
        let mut summary = Summary {
            seeds: results.len(),
            ..Summary::default()
        };
        let mut by_class: BTreeMap<ViolationClass, Vec<u64>> = BTreeMap::new();
        for result in results {
            *match result.status {
                SeedStatus::Pass => &mut summary.pass,
                SeedStatus::Fail => &mut summary.fail,
                SeedStatus::Stuck => &mut summary.stuck,
                SeedStatus::Panic => &mut summary.panic,
                SeedStatus::Nondeterministic => &mut summary.nondeterministic,
            } += 1;
            summary.excused = summary.excused.plus(result.excused);
            for class in &result.classes {
                by_class.entry(*class).or_default().push(result.seed);
            }
        }
        let coverages = results.iter().map(|r| &r.coverage);
        summary.coverage = CoverageSummary::of(coverages, declared, backend);
        summary.by_class = by_class
            .into_iter()
            .map(|(class, seeds)| ClassSeeds { class, seeds })
            .collect();
        summary
    }
}

impl SweepReport {
    /// Sweep `config` ([`crate::runner::sweep()`], `observe` seeing each seed) and report it,
    /// with the sweep's wall time.
    pub fn sweep(
        config: &SweepConfig,
        observe: &(dyn Fn(crate::runner::sweep::SweepEvent<'_>) + Sync),
    ) -> SweepReport {
        let started = std::time::Instant::now(); // wall time for the report only
        let results = crate::runner::sweep::sweep(config, observe);
        SweepReport::new(config, results, started.elapsed().as_millis() as u64)
    }

    /// The report of `results` (ordered by seed) swept with `config`.
    pub fn new(config: &SweepConfig, results: Vec<SeedResult>, wall_ms: u64) -> SweepReport {
        SweepReport {
            schema: REPORT_SCHEMA.into(),
            version: REPORT_VERSION,
            store: config.store.label().to_string(),
            engine: config.engine.name().into(),
            scenario: config.scenario.name.clone(),
            seeds: config.seeds,
            shard: config.shard,
            jobs: config.jobs,
            check_determinism: config.check_determinism,
            seed_timeout_ms: config.seed_timeout.as_millis() as u64,
            wall_ms,
            summary: Summary::of(&results, &config.sometimes_declared, config.store.backend()),
            results,
        }
    }

    /// Pretty JSON, newline-terminated.
    pub fn to_json_pretty(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("a report always serializes");
        json.push('\n');
        json
    }

    /// Every seed passed.
    pub fn is_pass(&self) -> bool {
        self.results.iter().all(SeedResult::is_pass)
    }

    /// Some seed ran differently twice.
    pub fn is_nondeterministic(&self) -> bool {
        self.summary.nondeterministic > 0
    }

    /// The terminal summary: counts, then failing seeds grouped by class, each with the
    /// command that replays it.
    pub fn text(&self) -> String {
        let s = &self.summary;
        let shard = self
            .shard
            .map(|s| format!(" shard {s}"))
            .unwrap_or_default();
        let per_second = s.seeds as f64 * 1_000.0 / (self.wall_ms.max(1) as f64);
        let mut out = format!(
            "sweep {}{shard}: store {}, engine {}, {} jobs: {} seeds in {:.1} s ({per_second:.0} seeds/s)\n\
             pass {} · fail {} · stuck {} · panic {} · nondeterministic {}\n",
            self.seeds, self.store, self.engine, self.jobs, s.seeds,
            self.wall_ms as f64 / 1_000.0, s.pass, s.fail, s.stuck, s.panic, s.nondeterministic,
        );
        if s.excused.excused_messages > 0 {
            let _ = writeln!(
                out,
                "expected loss: {} of {} acked messages excused across restarts ({:.2} %)",
                s.excused.excused_messages,
                s.excused.acked_messages,
                s.excused.excused_messages as f64 * 100.0 / s.excused.acked_messages.max(1) as f64
            );
        }
        out.push_str(&s.coverage.text());
        for group in &s.by_class {
            let _ = writeln!(
                out,
                "{} ({} seeds):",
                class_name(group.class),
                group.seeds.len()
            );
            for seed in group.seeds.iter().take(SEEDS_SHOWN_PER_CLASS_MAX) {
                let _ = writeln!(out, "  seed {seed}: {}", self.result(*seed).replay);
            }
            if group.seeds.len() > SEEDS_SHOWN_PER_CLASS_MAX {
                let more = group.seeds.len() - SEEDS_SHOWN_PER_CLASS_MAX;
                let _ = writeln!(out, "  ... and {more} more (all of them in --json)");
            }
        }
        for result in &self.results {
            if let Some(divergence) = &result.divergence {
                let _ = writeln!(
                    out,
                    "nondeterministic seed {}: {}",
                    result.seed, result.replay
                );
                let _ = writeln!(out, "{}", divergence.text());
            }
            if let Some(panic) = &result.panic {
                let _ = writeln!(
                    out,
                    "panic on seed {}: {panic}\n  {}",
                    result.seed, result.replay
                );
            }
        }
        out
    }

    fn result(&self, seed: u64) -> &SeedResult {
        let at = self
            .results
            .binary_search_by_key(&seed, |r| r.seed)
            .expect("a summarized seed has a result");
        &self.results[at]
    }
}
