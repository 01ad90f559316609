//! The front door: a [`Builder`] names what to test (a [`Store`], a scenario, seeds, an
//! engine) and runs it: [`Builder::check`] from `cargo test`, [`Builder::sweep`] for a
//! report, [`Builder::run`] for one seed, [`Builder::replay`] for a saved plan and
//! [`Builder::shrink`] for a minimal failing plan.

mod check;
mod regressions;
mod validate;

pub use crate::runner::store::Store;
pub use crate::store::UnknownStore;
pub use validate::BuildError;

use std::path::{Path, PathBuf};

use regressions::Regressions;

use crate::plan::{Plan, PlanError, ScenarioConfig};
use crate::runner::explore::{explore, ExploreConfig, ExploreReport};
use crate::runner::log::LogFilter;
use crate::runner::report::SweepReport;
use crate::runner::run::{run_plan_with, EngineKind, RunOptions, RunReport};
use crate::runner::seeds::SeedRange;
use crate::runner::shrink::{shrink, ShrinkConfig, ShrinkError, Shrunk};
use crate::runner::sweep::{jobs_default, Replay, SweepConfig};

/// Seeds [`Builder::check`] and [`Builder::sweep`] run unless told otherwise.
pub const SEEDS_DEFAULT: SeedRange = SeedRange { start: 0, end: 64 };

/// What to test and how. Every knob has a default: the reference store, the default
/// scenario of the store's backend ([`ScenarioConfig::default_for`]), seeds `0..64`, one
/// worker per core, the event-driven engine.
///
/// ```
/// use amnesia::{Builder, Store};
///
/// let report = Builder::new()
///     .store(Store::named("reference").unwrap())
///     .scenario(amnesia::ScenarioConfig::smoke())
///     .seeds(0..4)
///     .jobs(1)
///     .sweep();
/// assert!(report.is_pass());
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    store: Store,
    /// `None`: the default of the store's backend, decided when the builder runs, so the
    /// order of `store` and `scenario` calls does not matter.
    scenario: Option<ScenarioConfig>,
    seeds: SeedRange,
    jobs: usize,
    engine: EngineKind,
    log: LogFilter,
    replay_hint: Option<String>,
    sometimes: Vec<String>,
    regressions: Regressions,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// The defaults: the reference store, the default scenario of the store's backend,
    /// seeds `0..64`, every core, the event-driven engine.
    pub fn new() -> Builder {
        Builder {
            store: Store::named("reference").expect("the reference store is built in"),
            scenario: None,
            seeds: SEEDS_DEFAULT,
            jobs: jobs_default(),
            engine: EngineKind::Event,
            log: LogFilter::default(),
            replay_hint: None,
            sometimes: Vec::new(),
            regressions: Regressions::default(),
        }
    }

    /// The store's [`sometimes!`](crate::sometimes!) points its sweeps should reach: a
    /// sweep's report lists each with the runs that reached it, and names those no run
    /// reached (amnesia knows a point otherwise only once it is reached).
    ///
    /// ```
    /// let report = amnesia::Builder::new()
    ///     .sometimes(["reference.delete.exec-aborted", "mystore.never"])
    ///     .seeds(0..4)
    ///     .sweep();
    /// assert!(report.text().contains("sometimes! never reached: "));
    /// assert!(report.summary.coverage.sometimes.iter().any(|p| p.point == "mystore.never" && p.runs == 0));
    /// ```
    pub fn sometimes<S: Into<String>>(mut self, points: impl IntoIterator<Item = S>) -> Builder {
        self.sometimes = points.into_iter().map(Into::into).collect();
        self
    }

    /// The store under test.
    ///
    /// ```
    /// let builder = amnesia::Builder::new().store(amnesia::Store::named("write-behind").unwrap());
    /// assert!(!builder.run(1).verdict.is_pass());
    /// ```
    pub fn store(mut self, store: Store) -> Builder {
        self.store = store;
        self
    }

    /// The scenario plans are generated from; unless named, the default of the store's
    /// backend ([`ScenarioConfig::default_for`]: `replay` for a pgvector store).
    ///
    /// ```
    /// let smoke = amnesia::ScenarioConfig::smoke();
    /// let report = amnesia::Builder::new().scenario(smoke).run(3);
    /// assert_eq!(report.plan.scenario.name, "smoke");
    /// assert_eq!(amnesia::Builder::new().scenario_config().name, "standard");
    /// ```
    pub fn scenario(mut self, scenario: ScenarioConfig) -> Builder {
        self.scenario = Some(scenario);
        self
    }

    /// The scenario this builder runs: the one named with [`Builder::scenario`], or the
    /// default of the store's backend.
    ///
    /// ```
    /// use amnesia::{Builder, ScenarioConfig, Store};
    /// let pgvector = Builder::new().store(Store::named("pgvector-reference").unwrap());
    /// assert_eq!(pgvector.scenario_config(), ScenarioConfig::replay());
    /// let smoke = pgvector.scenario(ScenarioConfig::smoke());
    /// assert_eq!(smoke.scenario_config().name, "smoke");
    /// ```
    pub fn scenario_config(&self) -> ScenarioConfig {
        let default = || ScenarioConfig::default_for(self.store.backend());
        self.scenario.clone().unwrap_or_else(default)
    }

    /// The seeds of [`Builder::check`] and [`Builder::sweep`], a half-open range
    /// (`AMNESIA_SEED`/`AMNESIA_SEEDS` override it in `check`).
    ///
    /// ```
    /// let report = amnesia::Builder::new().seeds(10..12).jobs(1).sweep();
    /// assert_eq!(report.summary.seeds, 2);
    /// ```
    pub fn seeds(mut self, seeds: std::ops::Range<u64>) -> Builder {
        self.seeds = SeedRange {
            start: seeds.start,
            end: seeds.end,
        };
        self
    }

    /// Worker threads of a sweep (at least 1; `AMNESIA_JOBS` overrides it in `check`).
    ///
    /// ```
    /// let report = amnesia::Builder::new().seeds(0..2).jobs(2).sweep();
    /// assert_eq!(report.jobs, 2);
    /// ```
    pub fn jobs(mut self, jobs: usize) -> Builder {
        self.jobs = jobs.max(1);
        self
    }

    /// The simulation engine.
    ///
    /// ```
    /// let report = amnesia::Builder::new().engine(amnesia::EngineKind::Event).run(1);
    /// assert!(report.verdict.is_pass());
    /// ```
    pub fn engine(mut self, engine: EngineKind) -> Builder {
        self.engine = engine;
        self
    }

    /// Which of the store's own `tracing` events reach the timeline (`RUST_LOG` syntax).
    ///
    /// ```
    /// let log = amnesia::LogFilter::new("amnesia::store=debug").unwrap();
    /// let report = amnesia::Builder::new().log(log).run(1);
    /// assert!(report.trace.timeline().contains("log DEBUG"));
    /// ```
    pub fn log(mut self, log: LogFilter) -> Builder {
        self.log = log;
        self
    }

    /// Your own wording of the line that replays a failing seed (a `just` recipe, a CI
    /// job), `{seed}` standing for the seed: it replaces the line [`Builder::check`] and
    /// [`Builder::sweep`] print otherwise (the test binary and `cargo test` form in a
    /// test, the `amnesia` command for a built-in store).
    ///
    /// ```
    /// let report = amnesia::Builder::new()
    ///     .store(amnesia::Store::named("write-behind").unwrap())
    ///     .replay_hint("AMNESIA_SEED={seed} just test-memory")
    ///     .seeds(0..4)
    ///     .sweep();
    /// let failing = report.results.iter().find(|r| !r.is_pass()).unwrap();
    /// assert_eq!(failing.replay, format!("AMNESIA_SEED={} just test-memory", failing.seed));
    /// ```
    pub fn replay_hint(mut self, template: impl Into<String>) -> Builder {
        self.replay_hint = Some(template.into());
        self
    }

    /// Where [`Builder::check`] keeps its regression corpus (`<dir>/<test>.txt`) instead
    /// of `amnesia-regressions/` beside your crate's `Cargo.toml`: the seeds that failed
    /// once, replayed before the seed range on every later check. Commit the directory.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("amnesia-doc-regressions");
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let builder = amnesia::Builder::new()
    ///     .store(amnesia::Store::named("write-behind").unwrap())
    ///     .seeds(0..4)
    ///     .regressions(&dir);
    /// let check = std::panic::AssertUnwindSafe(|| builder.check());
    /// assert!(std::panic::catch_unwind(check).is_err());
    /// // The failing seeds are kept, one line each, and replayed first next time.
    /// let file = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
    /// let text = std::fs::read_to_string(file).unwrap();
    /// assert!(text.starts_with("# amnesia regression corpus"));
    /// assert!(text.lines().any(|line| line.starts_with("seed=")));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn regressions(mut self, dir: impl Into<PathBuf>) -> Builder {
        self.regressions = Regressions::In(dir.into());
        self
    }

    /// [`Builder::check`] neither replays nor writes a regression corpus (the last of
    /// this and [`Builder::regressions`] wins).
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("amnesia-doc-no-regressions");
    /// let builder = amnesia::Builder::new()
    ///     .store(amnesia::Store::named("write-behind").unwrap())
    ///     .seeds(0..4)
    ///     .regressions(&dir)
    ///     .no_regressions();
    /// let check = std::panic::AssertUnwindSafe(|| builder.check());
    /// assert!(std::panic::catch_unwind(check).is_err());
    /// assert!(!dir.exists());
    /// ```
    pub fn no_regressions(mut self) -> Builder {
        self.regressions = Regressions::Off;
        self
    }

    /// Run one seed: its plan, history, trace and verdict.
    ///
    /// ```
    /// let report = amnesia::Builder::new().run(42);
    /// assert!(report.verdict.is_pass());
    /// // One seed, one execution: the same trace, byte for byte.
    /// assert_eq!(report.trace.hash(), amnesia::Builder::new().run(42).trace.hash());
    /// ```
    ///
    /// Panics with one line if the builder cannot run ([`Builder::validate`];
    /// [`Builder::try_run`] returns it instead).
    #[track_caller]
    pub fn run(&self, seed: u64) -> RunReport {
        self.valid();
        self.run_plan(Plan::generate(seed, &self.scenario_config()))
    }

    /// Run a plan as it is (a shrunk plan, a hand-written one).
    ///
    /// ```
    /// let plan = amnesia::Plan::generate(5, &amnesia::ScenarioConfig::smoke());
    /// assert!(amnesia::Builder::new().run_plan(plan).verdict.is_pass());
    /// ```
    #[track_caller]
    pub fn run_plan(&self, plan: Plan) -> RunReport {
        self.valid();
        let options = RunOptions {
            log: self.log.clone(),
        };
        run_plan_with(plan, &self.store, self.engine, &options)
    }

    /// Replay a plan file (`amnesia shrink -o FILE`, [`Plan::to_json_pretty`]).
    ///
    /// ```
    /// let plan = amnesia::Plan::generate(5, &amnesia::ScenarioConfig::smoke());
    /// let file = std::env::temp_dir().join("amnesia-doc-replay.json");
    /// std::fs::write(&file, plan.to_json_pretty()).unwrap();
    /// let report = amnesia::Builder::new().replay(&file).unwrap();
    /// assert_eq!(report.plan, plan);
    /// ```
    pub fn replay(&self, plan_file: impl AsRef<Path>) -> Result<RunReport, PlanError> {
        let plan = Plan::load(plan_file.as_ref())?;
        Ok(self.run_plan(plan))
    }

    /// One seed's run as a reviewed snapshot: plan summary, operation timeline and verdict
    /// under a name and description (see [`crate::assert_seed_snapshot!`], which hands it
    /// to insta).
    ///
    /// ```
    /// let snapshot = amnesia::Builder::new().snapshot(3);
    /// assert_eq!(snapshot.name, "reference__seed-3");
    /// assert!(snapshot.text.contains("--- verdict ---\nverdict: PASS"));
    /// assert_eq!(snapshot, amnesia::Builder::new().snapshot(3));
    /// ```
    pub fn snapshot(&self, seed: u64) -> crate::runner::Snapshot {
        crate::runner::Snapshot::of(&self.run(seed), &self.store, None)
    }

    /// A saved plan's run as a reviewed snapshot, named after the file's stem.
    pub fn snapshot_plan(
        &self,
        plan_file: impl AsRef<Path>,
    ) -> Result<crate::runner::Snapshot, PlanError> {
        let path = plan_file.as_ref();
        let report = self.replay(path)?;
        Ok(crate::runner::Snapshot::of(
            &report,
            &self.store,
            Some(path),
        ))
    }

    /// Sweep the seeds on the worker threads: a report with every seed's verdict.
    ///
    /// ```
    /// let report = amnesia::Builder::new().seeds(0..4).sweep();
    /// assert!(report.is_pass(), "{}", report.text());
    /// ```
    ///
    /// Panics with one line if the builder cannot run ([`Builder::validate`];
    /// [`Builder::try_sweep`] returns it instead).
    #[track_caller]
    pub fn sweep(&self) -> SweepReport {
        self.valid();
        SweepReport::sweep(&self.sweep_config(self.seeds, self.jobs), &|_| {})
    }

    /// The guided search over the seeds (`amnesia sweep --explore`): as many runs as
    /// seeds, most of them mutants of plans that reached new or rare coverage, the same
    /// runs on every call. A failing mutant's plan is written under
    /// `target/amnesia/explore/` (relative to the working directory) and its replay line
    /// names the file.
    ///
    /// ```
    /// let report = amnesia::Builder::new().seeds(0..32).explore();
    /// assert!(report.is_pass(), "{}", report.text());
    /// assert!(report.mutants > 0);
    /// ```
    #[track_caller]
    pub fn explore(&self) -> ExploreReport {
        self.valid();
        let config = self.sweep_config(self.seeds, self.jobs);
        explore(&config, &ExploreConfig::default(), &|_| {})
    }

    /// Shrink a failing seed to a minimal plan that fails with the same class.
    ///
    /// ```
    /// let builder = amnesia::Builder::new().store(amnesia::Store::named("lossy-serde").unwrap());
    /// let shrunk = builder.shrink(0).unwrap();
    /// assert!(shrunk.operations_after < shrunk.operations_before);
    /// ```
    #[track_caller]
    pub fn shrink(&self, seed: u64) -> Result<Shrunk, ShrinkError> {
        self.valid();
        let config = ShrinkConfig {
            engine: self.engine,
            log: self.log.clone(),
            ..ShrinkConfig::new(self.store.clone())
        };
        shrink(Plan::generate(seed, &self.scenario_config()), &config)
    }

    fn sweep_config(&self, seeds: SeedRange, jobs: usize) -> SweepConfig {
        SweepConfig {
            jobs,
            engine: self.engine,
            scenario: self.scenario_config(),
            log: self.log.clone(),
            replay: match &self.replay_hint {
                Some(template) => Replay::Hint {
                    template: template.clone(),
                },
                None => Replay::default(),
            },
            sometimes_declared: self.sometimes.clone(),
            ..SweepConfig::new(seeds, self.store.clone())
        }
    }
}
