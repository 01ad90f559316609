//! The guided search (`amnesia sweep --explore`): a sweep that aims at the rare. It
//! spends the sweep's runs (one per seed of the range) partly on the seeds themselves and
//! partly on mutants of plans that reached new or rare coverage ([`crate::coverage`]):
//! a corpus of such plans is kept, a parent drawn from it (the rarer its coverage, the
//! likelier) and changed by [`super::mutate`]; a mutant that reaches new coverage joins
//! the corpus.
//!
//! Deterministic: the randomness is drawn from the range's start, runs go in batches of
//! [`BATCH_RUNS`] whatever the job count, and the corpus changes only between batches, in
//! run order; the same command gives the same runs. Every run is one plan: a seed's run
//! replays from its seed, a failing mutant's plan is written to the plans directory and
//! replays from that file.

use crate::coverage::Coverage;
use crate::plan::Plan;
use crate::runner::mutate::mutate;
use crate::runner::report::Summary;
use crate::runner::sweep::{run_plan_checked, SeedResult, SweepConfig, SweepEvent};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Runs decided together: the corpus changes between batches only.
pub const BATCH_RUNS: usize = 16;
/// Plans the corpus keeps at most.
pub const CORPUS_MAX: usize = 64;
/// A point reached by one run weighs this much as a parent; by `n` runs, this over n².
const RARITY_SCALE: u64 = 1_000_000_000_000;
/// The `schema` field of an explore report.
pub const EXPLORE_SCHEMA: &str = "amnesia-explore-report";
/// The explore report's format version.
pub const EXPLORE_VERSION: u32 = 1;

/// How the guided search runs.
///
/// ```
/// use amnesia::sweep::ExploreConfig;
/// let config = ExploreConfig { corpus_max: 16, ..ExploreConfig::default() };
/// assert_eq!(config.plans_dir, std::path::Path::new("target/amnesia/explore"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploreConfig {
    /// Plans kept in the corpus at most (1..=[`CORPUS_MAX`]).
    pub corpus_max: usize,
    /// Mutations applied to one parent at most (1..=[`super::mutate::MUTATIONS_MAX`]).
    pub mutations_max: usize,
    /// Share of runs, in percent, spent on mutants once the corpus holds a plan.
    pub mutants_percent: u32,
    /// Where failing mutants' plans are written.
    pub plans_dir: PathBuf,
}

impl Default for ExploreConfig {
    fn default() -> ExploreConfig {
        ExploreConfig {
            corpus_max: CORPUS_MAX,
            mutations_max: super::mutate::MUTATIONS_MAX,
            mutants_percent: 75,
            plans_dir: PathBuf::from("target/amnesia/explore"),
        }
    }
}

/// Where a run's plan came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Origin {
    /// The plan of a seed of the range.
    Seed {
        /// The seed.
        seed: u64,
    },
    /// A mutant of an earlier run's plan.
    Mutant {
        /// The run whose plan was mutated.
        parent: usize,
        /// The mutations applied, in order.
        mutations: Vec<String>,
    },
}

/// One run of a guided search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExploreRun {
    /// The run's number, from 0: runs to a failure are its number plus one.
    pub run: usize,
    /// Where its plan came from.
    pub origin: Origin,
    /// Whether its coverage was new, so its plan joined the corpus.
    pub kept: bool,
    /// Its result; `replay` reproduces it.
    pub result: SeedResult,
}

/// A guided search, as `--json` writes it with `--explore`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExploreReport {
    /// Always [`EXPLORE_SCHEMA`].
    pub schema: String,
    /// Always [`EXPLORE_VERSION`] when written by this version.
    pub version: u32,
    /// The store's label.
    pub store: String,
    /// The engine's name.
    pub engine: String,
    /// The scenario's name.
    pub scenario: String,
    /// The seed range: its length is the runs' budget, its start seeds the search.
    pub seeds: crate::runner::SeedRange,
    /// Worker threads.
    pub jobs: usize,
    /// Wall time of the search, in milliseconds.
    pub wall_ms: u64,
    /// Runs spent on mutants.
    pub mutants: usize,
    /// Plans in the corpus at the end.
    pub corpus: usize,
    /// The first failing run's number, if any run failed.
    pub first_failure: Option<usize>,
    /// Counts by status; `by_class` lists run numbers, not seeds.
    pub summary: Summary,
    /// Every run, in run order.
    pub runs: Vec<ExploreRun>,
}

/// One candidate of a batch: its plan and where it came from.
struct Candidate {
    plan: Plan,
    origin: Origin,
}

/// A corpus plan: its run, its plan and the coverage features it reached.
struct Entry {
    run: usize,
    plan: Arc<Plan>,
    features: Vec<String>,
}

/// The search's state between batches.
struct Search<'a> {
    config: &'a SweepConfig,
    explore: &'a ExploreConfig,
    rng: ChaCha8Rng,
    seeds: Vec<u64>,
    fresh_next: usize,
    corpus: Vec<Entry>,
    /// Per feature, the runs that reached it.
    seen: BTreeMap<String, u64>,
    runs: Vec<ExploreRun>,
}

/// The features of a run's coverage: each point, and each point with the power of two
/// its count reached (AFL's buckets), so "more of a rare race" is new too.
fn features(coverage: &Coverage) -> Vec<String> {
    let mut out = Vec::new();
    for (point, count) in coverage.all() {
        out.push(format!("{point}#{}", u64::BITS - count.leading_zeros()));
        out.push(point);
    }
    out
}

/// Run the guided search `explore` over `config`'s seeds: as many runs as seeds.
/// `observe` sees each run start and finish.
///
/// ```
/// use amnesia::internal::runner::{explore, ExploreConfig, SeedRange, SweepConfig};
/// use amnesia::Store;
/// let config = SweepConfig::new(SeedRange { start: 0, end: 32 }, Store::named("reference").unwrap());
/// let report = explore(&config, &ExploreConfig::default(), &|_| {});
/// assert_eq!(report.runs.len(), 32);
/// assert!(report.is_pass());
/// // Seeded: the same search gives the same runs.
/// let again = explore(&config, &ExploreConfig::default(), &|_| {});
/// assert_eq!(report.runs.iter().map(|r| &r.origin).collect::<Vec<_>>(),
///            again.runs.iter().map(|r| &r.origin).collect::<Vec<_>>());
/// ```
pub fn explore(
    config: &SweepConfig,
    explore: &ExploreConfig,
    observe: &(dyn Fn(SweepEvent<'_>) + Sync),
) -> ExploreReport {
    let started = std::time::Instant::now(); // wall time for the report only
    let seeds = config.seeds.seeds(config.shard);
    let mut search = Search {
        config,
        explore,
        rng: ChaCha8Rng::seed_from_u64(config.seeds.start ^ 0xE8_F10E),
        seeds,
        fresh_next: 0,
        corpus: Vec::new(),
        seen: BTreeMap::new(),
        runs: Vec::new(),
    };
    let budget = search.seeds.len();
    while search.runs.len() < budget {
        let batch: Vec<Candidate> = (0..BATCH_RUNS.min(budget - search.runs.len()))
            .map(|_| search.candidate())
            .collect();
        let first = search.runs.len();
        let results = run_batch(&batch, first, config, explore, observe);
        for (offset, (candidate, result)) in batch.into_iter().zip(results).enumerate() {
            search.absorb(first + offset, candidate, result);
        }
    }
    search.report(started.elapsed().as_millis() as u64)
}

impl Search<'_> {
    /// The next run's plan: a fresh seed, or a mutant of a corpus plan.
    fn candidate(&mut self) -> Candidate {
        let fresh_left = self.fresh_next < self.seeds.len();
        let mutant = !self.corpus.is_empty()
            && (!fresh_left || self.rng.random_range(0..100) < self.explore.mutants_percent);
        if !mutant {
            let seed = self.seeds[self.fresh_next];
            self.fresh_next += 1;
            return Candidate {
                plan: Plan::generate(seed, &self.config.scenario),
                origin: Origin::Seed { seed },
            };
        }
        let parent = self.pick_parent();
        let (plan, applied) = mutate(
            &self.corpus[parent].plan,
            &mut self.rng,
            self.explore.mutations_max,
        );
        Candidate {
            plan,
            origin: Origin::Mutant {
                parent: self.corpus[parent].run,
                mutations: applied.iter().map(|name| name.to_string()).collect(),
            },
        }
    }

    /// How rare an entry's coverage is: the inverse square of the runs that reached its
    /// rarest point (points only: a count's bucket makes a plan new, not rare), so the
    /// search dwells on the plans that reach what few runs reach.
    fn rarity(&self, entry: &Entry) -> u64 {
        let runs = |feature: &String| self.seen.get(feature).copied().unwrap_or(1).max(1);
        entry
            .features
            .iter()
            .filter(|feature| !feature.contains('#'))
            .map(|feature| RARITY_SCALE / (runs(feature) * runs(feature)))
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// A corpus position, drawn with weight [`Search::rarity`].
    fn pick_parent(&mut self) -> usize {
        let weights: Vec<u64> = self.corpus.iter().map(|e| self.rarity(e)).collect();
        let mut ticket = self.rng.random_range(0..weights.iter().sum::<u64>());
        for (position, weight) in weights.iter().enumerate() {
            if ticket < *weight {
                return position;
            }
            ticket -= weight;
        }
        weights.len() - 1
    }

    /// Fold a finished run into the search: the corpus takes it if its coverage is new.
    fn absorb(&mut self, run: usize, candidate: Candidate, result: SeedResult) {
        let features = features(&result.coverage);
        let new = features.iter().any(|f| !self.seen.contains_key(f));
        for feature in &features {
            *self.seen.entry(feature.clone()).or_default() += 1;
        }
        if new {
            if self.corpus.len() >= self.explore.corpus_max.clamp(1, CORPUS_MAX) {
                self.evict();
            }
            self.corpus.push(Entry {
                run,
                plan: Arc::new(candidate.plan),
                features,
            });
        }
        self.runs.push(ExploreRun {
            run,
            origin: candidate.origin,
            kept: new,
            result,
        });
    }

    /// Drop the corpus plan whose coverage is the most common (the oldest of a tie).
    fn evict(&mut self) {
        let commonest = (0..self.corpus.len())
            .min_by_key(|&i| (self.rarity(&self.corpus[i]), i))
            .expect("a full corpus");
        self.corpus.remove(commonest);
    }

    fn report(self, wall_ms: u64) -> ExploreReport {
        let config = self.config;
        let numbered: Vec<SeedResult> = self
            .runs
            .iter()
            .map(|run| SeedResult {
                seed: run.run as u64,
                ..run.result.clone()
            })
            .collect();
        let first_failure = self
            .runs
            .iter()
            .find(|r| !r.result.is_pass())
            .map(|r| r.run);
        ExploreReport {
            schema: EXPLORE_SCHEMA.into(),
            version: EXPLORE_VERSION,
            store: config.store.label().to_string(),
            engine: config.engine.name().into(),
            scenario: config.scenario.name.clone(),
            seeds: config.seeds,
            jobs: config.jobs,
            wall_ms,
            mutants: self.fresh_next.abs_diff(self.runs.len()),
            corpus: self.corpus.len(),
            first_failure,
            summary: Summary::of(
                &numbered,
                &config.sometimes_declared,
                config.store.backend(),
            ),
            runs: self.runs,
        }
    }
}

/// Run one batch on the sweep's workers; results in candidate order. A failing mutant's
/// plan is written to the plans directory and its replay line names the file.
fn run_batch(
    batch: &[Candidate],
    first: usize,
    config: &SweepConfig,
    explore: &ExploreConfig,
    observe: &(dyn Fn(SweepEvent<'_>) + Sync),
) -> Vec<SeedResult> {
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<SeedResult>>> = Mutex::new(vec![None; batch.len()]);
    let jobs = config
        .jobs
        .clamp(1, super::sweep::JOBS_MAX)
        .min(batch.len());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let at = next.fetch_add(1, Ordering::Relaxed);
                let Some(candidate) = batch.get(at) else {
                    return;
                };
                observe(SweepEvent::Start(candidate.plan.seed));
                let result = run_candidate(candidate, first + at, config, explore);
                observe(SweepEvent::Done(&result));
                slots.lock().expect("never poisoned")[at] = Some(result);
            });
        }
    });
    let slots = slots.into_inner().expect("never poisoned");
    slots
        .into_iter()
        .map(|r| r.expect("every run reports"))
        .collect()
}

fn run_candidate(
    candidate: &Candidate,
    run: usize,
    config: &SweepConfig,
    explore: &ExploreConfig,
) -> SeedResult {
    let Origin::Seed { seed } = candidate.origin else {
        let path = explore.plans_dir.join(plan_file_name(config, run));
        let mut result =
            run_plan_checked(candidate.plan.clone(), plan_replay(&path, config), config);
        if result.is_pass() {
            result.replay = format!(
                "(a passing mutant: its plan is not written) {}",
                result.replay
            );
        } else if let Err(error) = write_plan(&path, &candidate.plan) {
            result.replay = format!("(plan not written: {error}) {}", result.replay);
        }
        return result;
    };
    super::sweep::run_seed_checked(seed, config)
}

/// `<store>-<start>-<end>[-shard-<k>-of-<n>]-run-<i>.json`: one name per run of one
/// search.
fn plan_file_name(config: &SweepConfig, run: usize) -> String {
    let shard = config
        .shard
        .map(|shard| format!("-shard-{}-of-{}", shard.index, shard.count))
        .unwrap_or_default();
    format!(
        "{}-{}-{}{shard}-run-{run}.json",
        config.store.label(),
        config.seeds.start,
        config.seeds.end
    )
}

fn write_plan(path: &std::path::Path, plan: &Plan) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, plan.to_json_pretty())
}

/// The line that replays a plan file: the `amnesia` command for a built-in store, else
/// the library call.
fn plan_replay(path: &std::path::Path, config: &SweepConfig) -> String {
    let shown = path.display();
    if config.store.is_builtin() {
        format!(
            "amnesia replay --plan {shown} --store {} --engine {}",
            config.store.label(),
            config.engine.name()
        )
    } else {
        format!(
            "Builder::replay(\"{shown}\") with store '{}', engine {}",
            config.store.label(),
            config.engine.name()
        )
    }
}

impl ExploreReport {
    /// Pretty JSON, newline-terminated.
    pub fn to_json_pretty(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("a report always serializes");
        json.push('\n');
        json
    }

    /// Every run passed.
    pub fn is_pass(&self) -> bool {
        self.runs.iter().all(|run| run.result.is_pass())
    }

    /// Some run ran differently twice.
    pub fn is_nondeterministic(&self) -> bool {
        self.summary.nondeterministic > 0
    }

    /// The terminal summary: counts, the first failure, coverage, the failing runs by
    /// class with the line that replays each.
    pub fn text(&self) -> String {
        let s = &self.summary;
        let per_second = s.seeds as f64 * 1_000.0 / (self.wall_ms.max(1) as f64);
        let mut out = format!(
            "explore {}: store {}, engine {}, {} jobs: {} runs ({} seeds, {} mutants) in {:.1} s ({per_second:.0} runs/s), corpus {} plans\n\
             pass {} · fail {} · stuck {} · panic {} · nondeterministic {}\n",
            self.seeds, self.store, self.engine, self.jobs, s.seeds, s.seeds - self.mutants,
            self.mutants, self.wall_ms as f64 / 1_000.0, self.corpus, s.pass, s.fail, s.stuck,
            s.panic, s.nondeterministic,
        );
        if let Some(run) = self.first_failure {
            let _ = writeln!(out, "first failure: run {run} ({} runs)", run + 1);
        }
        out.push_str(&s.coverage.text());
        for group in &s.by_class {
            let runs = &group.seeds;
            let _ = writeln!(out, "{} ({} runs):", group.class, runs.len());
            for run in runs.iter().take(super::report::SEEDS_SHOWN_PER_CLASS_MAX) {
                let _ = writeln!(
                    out,
                    "  run {run}: {}",
                    self.runs[*run as usize].result.replay
                );
            }
            if runs.len() > super::report::SEEDS_SHOWN_PER_CLASS_MAX {
                let more = runs.len() - super::report::SEEDS_SHOWN_PER_CLASS_MAX;
                let _ = writeln!(out, "  ... and {more} more (all of them in --json)");
            }
        }
        out
    }
}
