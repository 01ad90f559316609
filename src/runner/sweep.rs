//! Sweeps: many seeds on worker threads, each seed a self-contained run on its own
//! current-thread runtime, guarded by a wall-clock limit ([`super::guard`]). Results are
//! ordered by seed, so a sweep's verdicts and hashes are the same whatever the job count.

use crate::check::{Excused, Subject, Verdict, Violation, ViolationClass};
use crate::coverage::Coverage;
use crate::plan::{Plan, ScenarioConfig};
use crate::runner::determinism::{first_divergence, Divergence};
use crate::runner::guard::{run_guarded, Guarded, SEED_TIMEOUT_MS_DEFAULT};
use crate::runner::log::LogFilter;
use crate::runner::run::{replay_command, run_plan_with, EngineKind, RunOptions};
use crate::runner::seeds::{SeedRange, Shard};
use crate::runner::store::Store;
use crate::trace::TraceEvent;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Worker threads of a sweep at most.
pub const JOBS_MAX: usize = 1_024;

/// What to sweep and how.
#[derive(Clone, Debug)]
pub struct SweepConfig {
    /// The seeds to run.
    pub seeds: SeedRange,
    /// Only this shard of the range; `None`: every seed.
    pub shard: Option<Shard>,
    /// Worker threads; each runs whole seeds.
    pub jobs: usize,
    /// The store under test.
    pub store: Store,
    /// The engine each seed runs on.
    pub engine: EngineKind,
    /// The scenario plans are generated from.
    pub scenario: ScenarioConfig,
    /// Run every seed twice and compare trace hashes.
    pub check_determinism: bool,
    /// Wall-clock limit of one run.
    pub seed_timeout: Duration,
    /// Which of the store's log events the trace records.
    pub log: LogFilter,
    /// How a failing seed is replayed where the `amnesia` binary cannot regenerate it.
    pub replay: Replay,
    /// The store's `sometimes!` points a sweep should reach: the report names those no
    /// run reached (a point is otherwise known only once reached).
    pub sometimes_declared: Vec<String>,
}

/// How to replay a seed the `amnesia` binary cannot regenerate (a user's store, or a
/// scenario the binary does not know by name), or a user's own wording.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Replay {
    /// Through the library: `Builder::run(seed)` with the same scenario and store.
    #[default]
    Library,
    /// The test that ran the sweep, alone, on that seed: the test binary itself
    /// (`AMNESIA_SEED=N <test binary> --exact NAME`, the profile and features it was built
    /// with), and beside it, after `#`, the `cargo test` form in the binary's profile.
    CargoTest {
        /// The test's name, as `cargo test -- --exact` takes it.
        test: String,
    },
    /// A user's own wording (`Builder::replay_hint`): `{seed}` becomes the seed. It
    /// replaces every other line, the `amnesia` command of a built-in store's included.
    Hint {
        /// The line, with `{seed}` where the seed goes.
        template: String,
    },
}

impl Replay {
    /// The one line that reproduces `seed` of `config`.
    pub fn command(&self, seed: u64, config: &SweepConfig) -> String {
        if let Replay::Hint { template } = self {
            return template.replace("{seed}", &seed.to_string());
        }
        if let Some(command) = replay_command(seed, &config.scenario, &config.store, config.engine)
        {
            return command;
        }
        match self {
            Replay::Library | Replay::Hint { .. } => format!(
                "Builder::run({seed}) with scenario '{}', store '{}', engine {}",
                config.scenario.name,
                config.store.label(),
                config.engine.name()
            ),
            Replay::CargoTest { test } => {
                cargo_test_replay(seed, test, std::env::current_exe().ok().as_deref())
            }
        }
    }
}

/// The line that reruns `test` on `seed`: the test binary `exe` itself when it is known
/// (it has the profile and features it was built with; the line runs as it is in `sh`),
/// then after `#` the `cargo test` form in the profile the binary's path shows.
fn cargo_test_replay(seed: u64, test: &str, exe: Option<&std::path::Path>) -> String {
    let Some(exe) = exe else {
        return format!(
            "AMNESIA_SEED={seed} cargo test -- --exact {test} (with the profile and features of this run)"
        );
    };
    let cargo = match cargo_profile(exe) {
        Some(flags) => format!(
            "AMNESIA_SEED={seed} cargo test{flags} -- --exact {test}, with the features of this run"
        ),
        None => format!(
            "AMNESIA_SEED={seed} cargo test -- --exact {test}, with the profile and features of this run"
        ),
    };
    format!(
        "AMNESIA_SEED={seed} {} --exact {test}  # or: {cargo}",
        shell_word(&exe.display().to_string())
    )
}

/// The `cargo test` flags of the profile a test binary was built in, from its path
/// (`<target>/<profile>/deps/<name>-<hash>`): `""` for `debug`, ` --release`, or
/// ` --profile NAME`; `None` when the path is not a cargo build's.
fn cargo_profile(exe: &std::path::Path) -> Option<String> {
    let dir = exe.parent()?;
    if !matches!(dir.file_name()?.to_str()?, "deps" | "examples") {
        return None;
    }
    Some(match dir.parent()?.file_name()?.to_str()? {
        "debug" => String::new(),
        "release" => " --release".to_string(),
        profile => format!(" --profile {profile}"),
    })
}

/// `word` as one `sh` word: as it is when it needs no quoting, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl SweepConfig {
    /// Defaults: every core, the default scenario of the store's backend
    /// ([`ScenarioConfig::default_for`]), the event engine, no determinism check.
    pub fn new(seeds: SeedRange, store: Store) -> SweepConfig {
        SweepConfig {
            scenario: ScenarioConfig::default_for(store.backend()),
            seeds,
            shard: None,
            jobs: jobs_default(),
            store,
            engine: EngineKind::Event,
            check_determinism: false,
            seed_timeout: Duration::from_millis(SEED_TIMEOUT_MS_DEFAULT),
            log: LogFilter::default(),
            replay: Replay::default(),
            sometimes_declared: Vec::new(),
        }
    }
}

/// One worker per core.
pub fn jobs_default() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How one seed ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeedStatus {
    /// The checker found no violation.
    Pass,
    /// The checker found violations.
    Fail,
    /// The run did not finish within the wall-clock limit.
    Stuck,
    /// The run panicked.
    Panic,
    /// Two runs of the seed produced different traces.
    Nondeterministic,
}

impl SeedStatus {
    /// The lower-case word of reports.
    pub fn name(self) -> &'static str {
        match self {
            SeedStatus::Pass => "pass",
            SeedStatus::Fail => "fail",
            SeedStatus::Stuck => "stuck",
            SeedStatus::Panic => "panic",
            SeedStatus::Nondeterministic => "nondeterministic",
        }
    }
}

/// The result of one seed, as the reports carry it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedResult {
    /// The seed.
    pub seed: u64,
    /// How the seed ended.
    pub status: SeedStatus,
    /// The distinct violation classes, in `ViolationClass`'s order (`stuck` for a run that
    /// hit the wall-clock limit).
    pub classes: Vec<ViolationClass>,
    /// The violations found, sorted.
    pub violations: Vec<Violation>,
    /// The trace hash as 16 hex digits; absent when the run did not finish.
    pub trace_hash: Option<String>,
    /// Wall-clock microseconds of the seed (both runs with `--check-determinism`).
    pub wall_us: u64,
    /// The one command that reproduces the seed.
    pub replay: String,
    /// With `--check-determinism`: the first event where two runs diverged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// A panic's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panic: Option<String>,
    /// Acked messages, and those excused as expected loss across restarts.
    #[serde(default)]
    pub excused: Excused,
    /// The coverage points the run reached (the first run with `--check-determinism`).
    #[serde(default)]
    pub coverage: Coverage,
}

/// What a sweep reports as it goes (to draw progress).
pub enum SweepEvent<'a> {
    /// A worker is about to run this seed.
    Start(u64),
    /// The seed finished with this result.
    Done(&'a SeedResult),
}

/// Run every seed of `config` and return the results ordered by seed. `observe` sees each
/// seed start and finish, from the worker threads.
///
/// ```
/// use amnesia::internal::runner::{sweep, SeedRange, SweepConfig};
/// use amnesia::Store;
/// let config = SweepConfig::new(SeedRange { start: 0, end: 3 }, Store::named("reference").unwrap());
/// let results = sweep(&config, &|_| {});
/// assert_eq!(results.iter().map(|r| r.seed).collect::<Vec<_>>(), [0, 1, 2]);
/// assert!(results.iter().all(|r| r.is_pass()));
/// ```
pub fn sweep(config: &SweepConfig, observe: &(dyn Fn(SweepEvent<'_>) + Sync)) -> Vec<SeedResult> {
    let seeds = config.seeds.seeds(config.shard);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(seeds.len()));
    let jobs = config.jobs.clamp(1, JOBS_MAX).min(seeds.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    return;
                };
                observe(SweepEvent::Start(seed));
                let result = run_seed_checked(seed, config);
                observe(SweepEvent::Done(&result));
                results.lock().expect("never poisoned").push(result);
            });
        }
    });
    let mut results = results.into_inner().expect("never poisoned");
    results.sort_by_key(|result| result.seed);
    results
}

/// What a finished run hands back from its thread.
struct RunDigest {
    verdict: Verdict,
    excused: Excused,
    hash: u64,
    coverage: Coverage,
    /// Kept only to find a divergence.
    events: Option<Vec<TraceEvent>>,
}

/// One seed: a guarded run, and with `check_determinism` a second one to compare.
pub fn run_seed_checked(seed: u64, config: &SweepConfig) -> SeedResult {
    let replay = config.replay.command(seed, config);
    run_plan_checked(Plan::generate(seed, &config.scenario), replay, config)
}

/// One plan as a sweep runs a seed (guarded, twice with `check_determinism`), reported
/// with `replay`, the line that reproduces it.
pub(crate) fn run_plan_checked(plan: Plan, replay: String, config: &SweepConfig) -> SeedResult {
    let started = Instant::now(); // wall time for the report only; see guard.rs
    let mut result = SeedResult {
        seed: plan.seed,
        status: SeedStatus::Pass,
        classes: Vec::new(),
        violations: Vec::new(),
        trace_hash: None,
        wall_us: 0,
        replay,
        divergence: None,
        panic: None,
        excused: Excused::default(),
        coverage: Coverage::default(),
    };
    let again = config.check_determinism.then(|| plan.clone());
    let first = run_digest(plan, config);
    if let (Some(first), Some(plan)) = (result.absorb(first, config), again) {
        if let Some(second) = result.absorb(run_digest(plan, config), config) {
            if second.hash != first.hash {
                result.status = SeedStatus::Nondeterministic;
                result.divergence = first_divergence(
                    first.events.as_deref().unwrap_or_default(),
                    second.events.as_deref().unwrap_or_default(),
                );
            }
        }
    }
    result.wall_us = started.elapsed().as_micros() as u64;
    result
}

fn run_digest(plan: Plan, config: &SweepConfig) -> Guarded<RunDigest> {
    let seed = plan.seed;
    let (store, engine, keep_events) = (
        config.store.clone(),
        config.engine,
        config.check_determinism,
    );
    let options = RunOptions {
        log: config.log.clone(),
    };
    run_guarded(format!("seed-{seed}"), config.seed_timeout, move || {
        let report = run_plan_with(plan, &store, engine, &options);
        RunDigest {
            excused: Excused::of(&report.history, &report.verdict),
            hash: report.trace.hash(),
            events: keep_events.then(|| report.trace.events()),
            coverage: report.coverage,
            verdict: report.verdict,
        }
    })
}

impl SeedResult {
    /// Fold a run into the result; the digest if the run finished.
    fn absorb(&mut self, run: Guarded<RunDigest>, config: &SweepConfig) -> Option<RunDigest> {
        match run {
            Guarded::Done(digest) => {
                if self.trace_hash.is_none() {
                    self.trace_hash = Some(format!("{:016x}", digest.hash));
                    self.classes = digest.verdict.classes();
                    self.violations = digest.verdict.violations.clone();
                    self.excused = digest.excused;
                    self.coverage = digest.coverage.clone();
                    if !digest.verdict.is_pass() {
                        self.status = SeedStatus::Fail;
                    }
                }
                Some(digest)
            }
            Guarded::Stuck => {
                self.status = SeedStatus::Stuck;
                self.violations = vec![stuck_violation(config.seed_timeout)];
                self.classes = vec![ViolationClass::Stuck];
                None
            }
            Guarded::Panicked(message) => {
                self.status = SeedStatus::Panic;
                self.panic = Some(message);
                None
            }
        }
    }

    /// Passed: no violation, no panic, no divergence.
    pub fn is_pass(&self) -> bool {
        self.status == SeedStatus::Pass
    }
}

/// The synthetic verdict of a run that hit the wall-clock limit.
fn stuck_violation(timeout: Duration) -> Violation {
    Violation {
        class: ViolationClass::Stuck,
        subject: Subject::Store,
        op_indexes: Vec::new(),
        message_ids: Vec::new(),
        explanation: format!(
            "the run did not finish within {} ms of wall-clock time (a store that blocks \
             its thread or busy-loops); its thread was left behind",
            timeout.as_millis()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{cargo_profile, cargo_test_replay, SeedStatus};
    use crate::contract::{MemoryStore, Policy, StoreContext, StoreError};
    use crate::domain::{Message, SessionKey};
    use std::path::Path;
    use std::sync::Arc;

    /// A store whose appends make the Redis model's handler panic (a test-only `ECHO`).
    struct PanicsTheModel {
        connector: Arc<crate::connect::Connector>,
    }

    #[async_trait::async_trait]
    impl MemoryStore for PanicsTheModel {
        async fn append(&self, _session: &SessionKey, _msg: &Message) -> Result<(), StoreError> {
            self.connector
                .run(|mut connection| async move {
                    redis::cmd("ECHO")
                        .arg("amnesia-test-panic")
                        .query_async::<()>(&mut connection)
                        .await
                })
                .await
        }

        async fn context(
            &self,
            _session: &SessionKey,
            _limit: usize,
        ) -> Result<Vec<Message>, StoreError> {
            Ok(Vec::new())
        }

        fn policy(&self) -> Policy {
            let config = crate::ChatStoreConfig {
                messages_max: 16,
                ttl_ms: 60_000,
            };
            crate::store::variants::reference_policy(&config)
        }
    }

    #[test]
    fn a_model_panic_is_the_seed_s_own_status_never_a_verdict() {
        let store = crate::Store::new("panics-the-model", |context: StoreContext| PanicsTheModel {
            connector: context.connector.clone(),
        });
        let report = crate::Builder::new().store(store).seeds(0..2).sweep();
        for result in &report.results {
            assert_eq!(result.status, SeedStatus::Panic, "{result:?}");
            let panic = result.panic.as_deref().expect("the panic's message");
            assert!(panic.contains("the Redis model panicked"), "{panic}");
            assert!(result.violations.is_empty(), "not judged: {result:?}");
            assert!(
                result.replay.contains("panics-the-model"),
                "{}",
                result.replay
            );
        }
    }

    #[test]
    fn the_profile_of_a_test_binary_is_read_from_its_path() {
        let profile = |p: &str| cargo_profile(Path::new(p));
        assert_eq!(
            profile("/p/target/debug/deps/chat-0a1b").as_deref(),
            Some("")
        );
        assert_eq!(
            profile("/p/target/release/deps/chat-0a1b").as_deref(),
            Some(" --release")
        );
        assert_eq!(
            profile("/p/target/test-release/deps/chat-0a1b").as_deref(),
            Some(" --profile test-release")
        );
        assert_eq!(
            profile("/p/target/release/examples/demo-0a1b").as_deref(),
            Some(" --release")
        );
        assert_eq!(profile("/tmp/rustdoctest/rust_out"), None);
    }

    #[test]
    fn the_replay_line_runs_the_binary_and_names_the_cargo_form() {
        let exe = Path::new("/p/target/release/deps/chat-0a1b");
        assert_eq!(
            cargo_test_replay(17, "survives", Some(exe)),
            "AMNESIA_SEED=17 /p/target/release/deps/chat-0a1b --exact survives  \
             # or: AMNESIA_SEED=17 cargo test --release -- --exact survives, with the features of this run"
        );
        let spaced = Path::new("/my dir/target/debug/deps/it's-0a1b");
        assert!(cargo_test_replay(1, "t", Some(spaced))
            .starts_with("AMNESIA_SEED=1 '/my dir/target/debug/deps/it'\\''s-0a1b' --exact t  # or: AMNESIA_SEED=1 cargo test -- --exact t,"));
    }
}
