//! The runner end to end, mostly through the `amnesia` binary: sweeps and their reports,
//! shards, exit codes, bad input, shrinking, the wall-clock guard, the store's log events
//! in the timeline, the guided search (`sweep --explore`), and the `cargo test` entry point.

use amnesia::internal::check::ViolationClass;
use amnesia::internal::plan::{Plan, ScenarioConfig};
use amnesia::internal::runner::{
    edit, run_plan_with, shrink, EngineKind, LogFilter, RunOptions, SeedStatus, ShrinkConfig,
    SweepReport,
};
use amnesia::sweep::{ExploreReport, ExploreRun, Origin};
use amnesia::{Builder, Store};
use std::path::PathBuf;
use std::process::{Command, Output};

/// A built-in store.
fn named(name: &str) -> Store {
    Store::named(name).expect("built in")
}

const EXIT_PASS: i32 = 0;
const EXIT_VIOLATION: i32 = 1;
const EXIT_USAGE: i32 = 2;
const EXIT_NONDETERMINISM: i32 = 3;

/// Run the binary. A sweep keeps no regression corpus unless the test names one: the
/// tests' sweeps of buggy stores must not replay each other's seeds, nor write into the
/// package.
fn amnesia(args: &[&str]) -> Output {
    let corpus_named = args
        .iter()
        .any(|a| matches!(*a, "--regressions" | "--no-regressions"));
    let no_corpus = (args.first() == Some(&"sweep") && !corpus_named).then_some("--no-regressions");
    Command::new(env!("CARGO_BIN_EXE_amnesia"))
        .args(args)
        .args(no_corpus)
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited, not killed")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8")
}

/// A fresh scratch directory for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("amnesia-runner-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn path_str(path: &std::path::Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn sweep_json(args: &[&str], dir: &std::path::Path, name: &str) -> (Output, SweepReport) {
    let json = dir.join(format!("{name}.json"));
    let mut all = vec!["sweep"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", path_str(&json)]);
    let output = amnesia(&all);
    let text = std::fs::read_to_string(&json).expect("the JSON report was written");
    let report: SweepReport = serde_json::from_str(&text).expect("the report parses");
    (output, report)
}

#[test]
fn sweep_reports_parse_and_carry_the_failing_seeds() {
    let dir = scratch("reports");
    let junit = dir.join("junit.xml");
    let (output, report) = sweep_json(
        &[
            "--seeds",
            "0..16",
            "--store",
            "write-behind",
            "--jobs",
            "2",
            "--junit",
            path_str(&junit),
        ],
        &dir,
        "jobs2",
    );
    assert_eq!(code(&output), EXIT_VIOLATION, "{}", stderr(&output));
    assert_eq!(report.schema, "amnesia-sweep-report");
    assert_eq!(report.version, 1);
    assert_eq!(report.results.len(), 16);
    let seeds: Vec<u64> = report.results.iter().map(|r| r.seed).collect();
    assert_eq!(seeds, (0..16).collect::<Vec<_>>(), "ordered by seed");
    let seed4 = &report.results[4];
    assert_eq!(seed4.status, SeedStatus::Fail);
    assert!(seed4.classes.contains(&ViolationClass::Lost));
    assert_eq!(seed4.trace_hash.as_deref().map(str::len), Some(16));
    assert!(seed4
        .replay
        .contains("replay --seed 4 --store write-behind"));
    let lost = report
        .summary
        .by_class
        .iter()
        .find(|g| g.class == ViolationClass::Lost);
    assert!(lost.expect("a lost group").seeds.contains(&4));
    // The terminal summary groups by class, each failing seed with its command.
    let text = stdout(&output);
    assert!(text.contains("lost ("), "{text}");
    assert!(text.contains("seed 4: amnesia replay --seed 4 --store write-behind --engine event"));

    // JUnit, read by a real XML parser: one test case per seed, failures with text.
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report was written");
    let document = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let cases: Vec<_> = document
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 16);
    let failing: Vec<&str> = cases
        .iter()
        .filter(|case| case.children().any(|c| c.has_tag_name("failure")))
        .map(|case| case.attribute("name").expect("a name"))
        .collect();
    let expected: Vec<String> = report
        .results
        .iter()
        .filter(|r| !r.is_pass())
        .map(|r| format!("seed {}", r.seed))
        .collect();
    assert_eq!(failing, expected);
    let case4 = cases
        .iter()
        .find(|c| c.attribute("name") == Some("seed 4"))
        .expect("seed 4");
    let failure = case4
        .children()
        .find(|c| c.has_tag_name("failure"))
        .expect("a failure");
    assert!(failure.attribute("type").expect("a type").contains("lost"));
    let body = failure.text().expect("failure text");
    assert!(
        body.contains("lost on session") && body.contains("reproduce: amnesia replay --seed 4")
    );

    // The same verdicts and hashes whatever --jobs is.
    let (_, one_job) = sweep_json(
        &["--seeds", "0..16", "--store", "write-behind", "--jobs", "1"],
        &dir,
        "jobs1",
    );
    let strip = |report: &SweepReport| {
        report
            .results
            .iter()
            .map(|r| {
                (
                    r.seed,
                    r.status,
                    r.classes.clone(),
                    r.violations.clone(),
                    r.trace_hash.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&report), strip(&one_job));
}

#[test]
fn shards_split_a_sweep_disjointly_and_cover_it() {
    let dir = scratch("shards");
    let mut seen = Vec::new();
    for shard in ["1/3", "2/3", "3/3"] {
        let (output, report) = sweep_json(
            &["--seeds", "5..17", "--shard", shard],
            &dir,
            &shard.replace('/', "-"),
        );
        assert_eq!(code(&output), EXIT_PASS, "{}", stdout(&output));
        let k: u64 = shard[..1].parse().unwrap();
        assert!(
            report.results.iter().all(|r| r.seed % 3 == k - 1),
            "shard {shard}"
        );
        seen.extend(report.results.iter().map(|r| r.seed));
    }
    seen.sort_unstable();
    assert_eq!(seen, (5..17).collect::<Vec<_>>());
}

#[test]
fn exit_codes_follow_design() {
    let pass = amnesia(&["sweep", "--seeds", "0..4"]);
    assert_eq!(code(&pass), EXIT_PASS, "{}", stdout(&pass));
    let violation = amnesia(&["sweep", "--seeds", "4..5", "--store", "write-behind"]);
    assert_eq!(code(&violation), EXIT_VIOLATION);
    let run_violation = amnesia(&["run", "--seed", "4", "--store", "write-behind"]);
    assert_eq!(code(&run_violation), EXIT_VIOLATION);
    let deterministic = amnesia(&["sweep", "--seeds", "0..3", "--check-determinism"]);
    assert_eq!(
        code(&deterministic),
        EXIT_PASS,
        "{}",
        stdout(&deterministic)
    );

    // Exit 3 needs a nondeterministic run: the hidden `test-nondeterministic` store
    // changes its append delay with every store the process builds, on purpose.
    let broken = amnesia(&[
        "sweep",
        "--seeds",
        "0..2",
        "--store",
        "test-nondeterministic",
        "--check-determinism",
    ]);
    assert_eq!(code(&broken), EXIT_NONDETERMINISM, "{}", stdout(&broken));
    let text = stdout(&broken);
    assert!(text.contains("first divergence at event"), "{text}");
    assert!(
        text.contains("run 1: [") && text.contains("run 2: ["),
        "{text}"
    );
    let run_broken = amnesia(&[
        "run",
        "--seed",
        "1",
        "--store",
        "test-nondeterministic",
        "--check-determinism",
    ]);
    assert_eq!(code(&run_broken), EXIT_NONDETERMINISM);
    assert!(stdout(&run_broken).contains("determinism BROKEN"));
    // The hidden stores stay out of the list users see.
    let unknown = amnesia(&["run", "--seed", "1", "--store", "nope"]);
    assert!(!stderr(&unknown).contains("test-"), "{}", stderr(&unknown));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = scratch("bad-input");
    let corrupt = dir.join("corrupt.json");
    std::fs::write(&corrupt, "{\"version\": 1, \"seed\": ").unwrap();
    let other_version = dir.join("v99.json");
    let mut plan: serde_json::Value =
        serde_json::from_str(&Plan::generate(1, &ScenarioConfig::standard()).to_json_pretty())
            .unwrap();
    plan["version"] = 99.into();
    std::fs::write(&other_version, plan.to_string()).unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["sweep", "--seeds", "5..2"],
        vec!["sweep", "--seeds", "x"],
        vec!["sweep", "--seeds", "0..4", "--shard", "3/2"],
        vec!["sweep", "--seeds", "0..4", "--shard", "0/2"],
        vec!["sweep", "--seeds", "0..4", "--store", "nope"],
        vec!["sweep", "--seeds", "0..4", "--jobs", "0"],
        vec!["replay", "--plan", path_str(&corrupt)],
        vec!["replay", "--plan", path_str(&other_version)],
        vec!["replay", "--plan", "/nonexistent/plan.json"],
        vec!["replay", "--seed", "1", "--store", "nope"],
        vec!["run", "--seed", "1", "--store", "nope"],
        vec!["shrink", "--seed", "4", "--store", "nope"],
    ];
    for args in cases {
        let output = amnesia(&args);
        let error = one_line_usage_error(&args, &output);
        assert!(!error.contains("panicked"), "{args:?}: {error}");
    }
    let version = stderr(&amnesia(&["replay", "--plan", path_str(&other_version)]));
    assert!(version.contains("version 99"), "{version}");
}

/// The run's stderr, asserted to be a usage error: exit 2, one line, `amnesia: …`.
fn one_line_usage_error(args: &[&str], output: &Output) -> String {
    let error = stderr(output);
    assert_eq!(code(output), EXIT_USAGE, "{args:?}: {error}");
    assert_eq!(
        error.trim_end().lines().count(),
        1,
        "{args:?}: not one line: {error}"
    );
    assert!(error.starts_with("amnesia: "), "{args:?}: {error}");
    error
}

/// A report path that cannot be written fails before any seed runs: one line, exit 2, in
/// far less time than the sweep it would have waited for.
#[test]
fn an_unwritable_output_path_fails_before_the_work() {
    let unwritable = "/nonexistent/dir/x.json";
    let cases: Vec<Vec<&str>> = vec![
        vec!["sweep", "--seeds", "0..100000", "--json", unwritable],
        vec!["sweep", "--seeds", "0..100000", "--junit", unwritable],
        vec!["run", "--seed", "1", "--html", unwritable],
        vec![
            "shrink",
            "--seed",
            "7",
            "--store",
            "write-behind",
            "-o",
            unwritable,
        ],
    ];
    for args in cases {
        let started = std::time::Instant::now();
        let output = amnesia(&args);
        let error = one_line_usage_error(&args, &output);
        assert!(
            error.starts_with("amnesia: cannot write /nonexistent/dir/x.json: "),
            "{args:?}: {error}"
        );
        assert!(stdout(&output).is_empty(), "{args:?}: work was done");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{args:?}: took {:?}",
            started.elapsed()
        );
    }
}

/// An unknown store name lists the built-in ones and points a store of one's own to the
/// library, in one line; `--help` lists the stores and the engines.
#[test]
fn store_names_and_engines_are_listed() {
    let error = stderr(&amnesia(&["run", "--seed", "1", "--store", "mine"]));
    assert_eq!(error.trim_end().lines().count(), 1, "{error}");
    assert!(
        error.contains("unknown store 'mine' (known: reference, ")
            && error.contains("amnesia::Builder"),
        "{error}"
    );
    for command in ["run", "replay", "sweep", "shrink"] {
        let help = stdout(&amnesia(&[command, "--help"]));
        for name in amnesia::internal::store::STORE_NAMES {
            assert!(help.contains(name), "{command} --help lacks store {name}");
        }
        assert!(
            help.contains("event (") && help.contains("turmoil ("),
            "{command} --help lacks the engines:\n{help}"
        );
    }
}

#[test]
fn shrinking_write_behind_gives_a_small_plan_that_replays() {
    // Seed 7: write-behind's acknowledged writes die in a Redis restart.
    let plan = Plan::generate(7, &ScenarioConfig::standard());
    let before = edit::operations_total(&plan);
    let shrunk = shrink(plan, &ShrinkConfig::new(named("write-behind"))).expect("seed 7 fails");
    eprintln!(
        "write-behind seed 7: {before} → {} operations in {} runs",
        shrunk.operations_after, shrunk.runs
    );
    assert_eq!(shrunk.class, ViolationClass::Lost);
    assert!(
        shrunk.operations_after <= 10,
        "{} operations",
        shrunk.operations_after
    );
    shrunk.plan.validate().expect("a shrunk plan is valid");

    // Saved, loaded and replayed through the binary: the same class.
    let dir = scratch("shrink");
    let file = dir.join("shrunk.json");
    let output = amnesia(&[
        "shrink",
        "--seed",
        "7",
        "--store",
        "write-behind",
        "-o",
        path_str(&file),
    ]);
    assert_eq!(code(&output), EXIT_VIOLATION, "{}", stderr(&output));
    let saved = Plan::from_json(&std::fs::read_to_string(&file).unwrap()).expect("valid plan file");
    assert_eq!(saved, shrunk.plan, "the CLI and the library shrink alike");
    let replay = amnesia(&[
        "replay",
        "--plan",
        path_str(&file),
        "--store",
        "write-behind",
    ]);
    assert_eq!(code(&replay), EXIT_VIOLATION);
    let text = stdout(&replay);
    assert!(text.contains("violations: lost"), "{text}");
    assert!(text.contains("reproduce: amnesia replay --plan"), "{text}");
    // The reference store passes the same plan: the bug, not the plan, fails it.
    let reference = amnesia(&["replay", "--plan", path_str(&file)]);
    assert_eq!(code(&reference), EXIT_PASS);
    let passing = amnesia(&["shrink", "--seed", "1"]);
    assert_eq!(code(&passing), EXIT_PASS);
}

#[test]
fn a_hanging_seed_is_reported_stuck_and_the_sweep_completes() {
    let dir = scratch("stuck");
    let hang = amnesia::internal::store::testing::HANG_SEED;
    let (output, report) = sweep_json(
        &[
            "--seeds",
            "0..6",
            "--store",
            "test-hang",
            "--jobs",
            "2",
            "--seed-timeout-ms",
            "3000",
        ],
        &dir,
        "stuck",
    );
    assert_eq!(code(&output), EXIT_VIOLATION, "{}", stdout(&output));
    assert_eq!(report.results.len(), 6);
    for result in &report.results {
        if result.seed == hang {
            assert_eq!(result.status, SeedStatus::Stuck);
            assert_eq!(result.classes, vec![ViolationClass::Stuck]);
            assert_eq!(result.trace_hash, None);
        } else {
            assert_eq!(result.status, SeedStatus::Pass, "seed {}", result.seed);
        }
    }
    assert!(stdout(&output).contains("stuck ("), "{}", stdout(&output));
}

#[test]
fn store_log_events_appear_in_the_replayed_timeline() {
    let plan = Plan::generate(1, &ScenarioConfig::standard());
    let options = RunOptions {
        log: LogFilter::new("amnesia::store=debug").unwrap(),
    };
    let reference = named("reference");
    let with_logs = run_plan_with(plan.clone(), &reference, EngineKind::Event, &options);
    let quiet = run_plan_with(plan, &reference, EngineKind::Event, &RunOptions::default());
    let logs: Vec<_> = with_logs
        .trace
        .events()
        .into_iter()
        .filter(|e| e.log)
        .collect();
    assert!(!logs.is_empty());
    let event = &logs[0];
    assert!(event.host.starts_with("client-"), "{event:?}");
    assert!(
        event
            .text
            .starts_with("log DEBUG amnesia::store::reference: append"),
        "{event:?}"
    );
    assert!(
        !quiet.trace.events().iter().any(|e| e.log),
        "info hides debug"
    );
    assert_eq!(
        with_logs.trace.hash(),
        quiet.trace.hash(),
        "logs never change the hash"
    );

    // Through the binary, with RUST_LOG, stamped with virtual time beside the op.
    let output = Command::new(env!("CARGO_BIN_EXE_amnesia"))
        .args(["replay", "--seed", "1"])
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    let text = stdout(&output);
    let line = text
        .lines()
        .find(|l| l.contains("log DEBUG amnesia::store::reference: append"))
        .expect("the store's debug event in the timeline");
    assert!(
        line.starts_with('[') && line.contains("] client-"),
        "{line}"
    );
    assert!(
        line.contains("session=t") && line.contains("id=m"),
        "{line}"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_amnesia"))
        .args(["run", "--seed", "1"])
        .env("RUST_LOG", "amnesia=[")
        .output()
        .unwrap();
    assert_eq!(code(&bad), EXIT_USAGE, "{}", stderr(&bad));
}

#[test]
fn check_seeds_passes_and_panics_with_the_replay_command() {
    let env = |name: &str| (name == "AMNESIA_JOBS").then(|| "2".to_string());
    Builder::new().seeds(0..4).check_env(&env);
    let seed_env = |name: &str| (name == "AMNESIA_SEED").then(|| "4".to_string());
    let panic = std::panic::catch_unwind(|| {
        Builder::new()
            .store(named("write-behind"))
            .seeds(100..200)
            .check_env(&seed_env)
    })
    .expect_err("write-behind fails seed 4");
    let message = panic.downcast_ref::<String>().expect("a formatted panic");
    assert!(
        message.contains("replay: amnesia replay --seed 4 --store write-behind"),
        "{message}"
    );
    assert!(message.contains("lost on session"), "{message}");
    // Short: the count, the first seeds' first violations, where everything is.
    assert!(
        message.starts_with("amnesia: 1 of 1 seeds failed (store write-behind"),
        "{message}"
    );
    let saved = message
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("everything (each failing seed, each violation): "))
        .and_then(|l| l.split(" (or rerun").next())
        .expect("the path of the whole report");
    let everything = std::fs::read_to_string(saved).unwrap();
    assert!(
        everything.contains("sweep 4..5: store write-behind"),
        "{everything}"
    );
    assert!(
        everything.contains("replay: amnesia replay --seed 4 --store write-behind"),
        "{everything}"
    );
}

/// A failing check of many seeds panics with a few of them, not every violation of every
/// seed; `AMNESIA_VERBOSE=1` gives the whole report in the panic.
#[test]
fn a_failing_check_is_short_unless_verbose() {
    let builder = Builder::new()
        .store(named("write-behind"))
        .scenario(ScenarioConfig::smoke())
        .seeds(0..16)
        .jobs(2)
        .no_regressions();
    let message = |env: &dyn Fn(&str) -> Option<String>| {
        let panic =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder.check_env(env)))
                .expect_err("fails");
        panic
            .downcast_ref::<String>()
            .expect("a formatted panic")
            .clone()
    };
    let short = message(&|_| None);
    let seeds = short.lines().filter(|l| l.starts_with("seed ")).count();
    let replays = short
        .lines()
        .filter(|l| l.starts_with("  replay: "))
        .count();
    assert_eq!((seeds, replays), (3, 3), "{short}");
    assert!(short.lines().count() < 40, "{short}");
    assert!(short.contains("more failing seeds ("), "{short}");
    let verbose = message(&|name| (name == "AMNESIA_VERBOSE").then(|| "1".to_string()));
    assert!(verbose.lines().count() > short.lines().count(), "{verbose}");
    assert!(
        verbose.contains("sweep 0..16: store write-behind"),
        "{verbose}"
    );
    let failing = verbose.lines().filter(|l| l.starts_with("seed ")).count();
    assert!(failing > 3, "{verbose}");
}

/// Shrinking is generic: two more variants shrink to a handful of operations that still
/// fail with the same class when the saved plan is replayed.
#[test]
fn shrinking_other_variants_gives_small_plans_that_replay() {
    for (store, seed, class) in [
        ("key-scheme-v2", 1, ViolationClass::Lost),
        ("lossy-serde", 0, ViolationClass::Corrupt),
    ] {
        let plan = Plan::generate(seed, &ScenarioConfig::standard());
        let shrunk = shrink(plan, &ShrinkConfig::new(named(store))).expect("the seed fails");
        assert_eq!(shrunk.class, class, "{store}");
        assert!(
            shrunk.operations_after <= 10,
            "{store}: {} operations",
            shrunk.operations_after
        );
        let json = shrunk.plan.to_json_pretty();
        let replayed = amnesia::internal::runner::run_plan(
            Plan::from_json(&json).expect("valid"),
            &named(store),
            EngineKind::Event,
        );
        assert!(
            replayed.verdict.classes().contains(&class),
            "{store}: {:?}",
            replayed.verdict
        );
    }
}

/// Runs a sweep's first failing seed again by the command it printed, which must name
/// `scenario`, and asserts the very trace the sweep saw.
fn assert_first_failure_replays(report: &SweepReport, scenario: &str) {
    let failing = report
        .results
        .iter()
        .find(|r| !r.is_pass())
        .expect("the sweep has a failing seed");
    assert!(
        failing.replay.contains(&format!("--scenario {scenario}")),
        "{}",
        failing.replay
    );
    let args: Vec<&str> = failing.replay.split(' ').skip(1).collect();
    let replayed = stdout(&amnesia(&args));
    let hash = failing.trace_hash.as_deref().expect("the run ended");
    assert!(
        replayed.contains(&format!("trace hash: {hash}")),
        "{} gave another run:\n{replayed}",
        failing.replay
    );
}

/// The reproduction key is (scenario, seed, store, engine): a sweep over the smoke
/// scenario prints replay commands that regenerate the smoke scenario, and replaying one
/// gives the very trace the sweep saw.
#[test]
fn a_sweep_of_another_scenario_prints_replays_that_reproduce_it() {
    let dir = scratch("scenario-sweep");
    let json = dir.join("sweep.json");
    let output = amnesia(&[
        "sweep",
        "--seeds",
        "0..20",
        "--store",
        "write-behind",
        "--scenario",
        "smoke",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code(&output), 1, "{}", stdout(&output));
    let report: SweepReport =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report.scenario, "smoke");
    assert_first_failure_replays(&report, "smoke");
}

/// With no `--scenario`, a sweep of a pgvector store runs its backend's default
/// (`replay`, every memory recalled at quiescence), and the replay command a failing seed
/// prints names that scenario and reproduces the very trace; a pgvector store asked for
/// the standard scenario gets a command that names it too.
#[test]
fn a_pgvector_sweep_runs_its_backends_default_scenario_and_replays_it() {
    let dir = scratch("pgvector-default-scenario");
    let json = dir.join("sweep.json");
    let store = "pgvector-ef-search-below-k";
    let output = amnesia(&[
        "sweep",
        "--seeds",
        "1..3",
        "--store",
        store,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code(&output), EXIT_VIOLATION, "{}", stdout(&output));
    let report: SweepReport =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report.scenario, "replay");
    assert_first_failure_replays(&report, "replay");
    let standard = amnesia(&[
        "run",
        "--seed",
        "1",
        "--store",
        store,
        "--scenario",
        "standard",
    ]);
    let text = stdout(&standard);
    assert!(text.contains("scenario standard"), "{text}");
    if code(&standard) == EXIT_VIOLATION {
        assert!(text.contains("--scenario standard"), "{text}");
    }
}

/// A changed copy of a named scenario is not that scenario: no command may claim to
/// regenerate it. The replay line names the library call, or the test, instead.
#[test]
fn a_custom_scenario_never_prints_a_command_for_the_standard_one() {
    let custom = ScenarioConfig {
        turns: 12,
        ..ScenarioConfig::standard()
    };
    assert_eq!(custom.name, "standard");
    let report = Builder::new()
        .store(named("write-behind"))
        .scenario(custom.clone())
        .seeds(0..10)
        .jobs(1)
        .sweep();
    let failing = report
        .results
        .iter()
        .find(|r| !r.is_pass())
        .expect("a failure");
    assert!(
        !failing.replay.starts_with("amnesia "),
        "{}",
        failing.replay
    );
    assert!(
        failing.replay.contains("Builder::run"),
        "{}",
        failing.replay
    );
    // And the library call it names reproduces the run exactly.
    let again = Builder::new()
        .store(named("write-behind"))
        .scenario(custom)
        .run(failing.seed);
    assert_eq!(
        format!("{:016x}", again.trace.hash()),
        failing.trace_hash.clone().unwrap()
    );
    // Inside a test, `check` names the test to rerun with the seed.
    let seed_env = |name: &str| (name == "AMNESIA_SEED").then(|| failing.seed.to_string());
    let panic = std::panic::catch_unwind(|| {
        Builder::new()
            .store(named("write-behind"))
            .scenario(ScenarioConfig {
                turns: 12,
                ..ScenarioConfig::standard()
            })
            .check_env(&seed_env)
    })
    .expect_err("the seed fails");
    let message = panic.downcast_ref::<String>().expect("a formatted panic");
    // The test binary itself (its profile and features), then the cargo form after `#`.
    let test = "a_custom_scenario_never_prints_a_command_for_the_standard_one";
    let exe = std::env::current_exe().unwrap();
    assert!(
        message.contains(&format!(
            "replay: AMNESIA_SEED={seed} {} --exact {test}  # or: AMNESIA_SEED={seed} cargo test",
            exe.display(),
            seed = failing.seed,
        )),
        "{message}"
    );
    assert!(
        message.contains(&format!("-- --exact {test}, with the features of this run")),
        "{message}"
    );
    assert!(
        message.contains(&format!("trace {}", failing.trace_hash.clone().unwrap())),
        "{message}"
    );
}

/// A user's own store runs through the same front door as the built-in ones.
#[test]
fn a_users_store_runs_checks_and_shrinks_through_the_builder() {
    use amnesia::{ChatStoreConfig, RedisChatStore, StoreContext};
    let mine = Store::new("mine", |context: StoreContext| {
        let config = ChatStoreConfig {
            messages_max: 16,
            ttl_ms: context.session_ttl_ms,
        };
        RedisChatStore::new(context.connector, config)
    });
    assert!(!mine.is_builtin());
    let builder = Builder::new().store(mine).seeds(0..16).jobs(2);
    builder.check_env(&|_| None);
    let report = builder.sweep();
    assert!(report.is_pass(), "{}", report.text());
    assert_eq!(report.store, "mine");
    assert!(matches!(
        builder.shrink(0),
        Err(amnesia::internal::runner::shrink::ShrinkError::Passes { .. })
    ));
}

/// Timing-dependent failures no longer keep the other sessions' traffic: write-behind's
/// first failing seed (0 until the impolite workload, 1 since) shrank to 58 operations
/// over 6 sessions with removals alone, and to 17 once links are quieted and turns pulled
/// against each other (measured with `scripts/shrink-figures`). The result still fails
/// with the class on replay, and is still 1-minimal: no single turn or session can go.
#[test]
fn shrinking_a_timing_dependent_failure_drops_the_other_traffic() {
    let store = named("write-behind");
    let plan = Plan::generate(1, &ScenarioConfig::standard());
    let shrunk = shrink(plan, &ShrinkConfig::new(store.clone())).expect("seed 1 fails");
    eprintln!(
        "write-behind seed 1: {} → {} operations in {} runs",
        shrunk.operations_before, shrunk.operations_after, shrunk.runs
    );
    assert_eq!(shrunk.class, ViolationClass::Lost);
    assert!(
        shrunk.operations_after <= 20,
        "{} operations",
        shrunk.operations_after
    );
    assert!(
        shrunk.plan.sessions.len() <= 2,
        "{:?}",
        shrunk.plan.sessions
    );
    shrunk.plan.validate().expect("a shrunk plan is valid");
    let fails = |plan: Plan| {
        amnesia::internal::runner::run_plan(plan, &store, EngineKind::Event)
            .verdict
            .classes()
            .contains(&shrunk.class)
    };
    let json = shrunk.plan.to_json_pretty();
    assert!(fails(Plan::from_json(&json).expect("valid")), "replays");
    let all = |n: usize| (0..n).collect::<std::collections::BTreeSet<usize>>();
    for turn in 0..shrunk.plan.turns.len() {
        let mut keep = all(shrunk.plan.turns.len());
        keep.remove(&turn);
        assert!(
            !fails(edit::keep_turns(&shrunk.plan, &keep)),
            "turn {turn} can go"
        );
    }
    for session in 0..shrunk.plan.sessions.len() {
        let mut keep = all(shrunk.plan.sessions.len());
        keep.remove(&session);
        let without = edit::keep_sessions(&shrunk.plan, &keep);
        assert!(
            without.validate().is_err() || !fails(without),
            "session {session} can go"
        );
    }
}

/// `sweep --explore` on JSON: the report of the guided search, and the output.
fn explore_json(args: &[&str], dir: &std::path::Path, name: &str) -> (Output, ExploreReport) {
    let json = dir.join(format!("{name}.json"));
    let plans = dir.join("plans");
    let mut all = vec!["sweep", "--explore", "--plans-dir", path_str(&plans)];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", path_str(&json)]);
    let output = amnesia(&all);
    let text = std::fs::read_to_string(&json).expect("the JSON report was written");
    let report: ExploreReport = serde_json::from_str(&text).expect("the report parses");
    (output, report)
}

/// The guided search is seeded: the same command gives the same runs whatever the job
/// count; it reaches the rare background resend within its budget; and every failing
/// run's printed line (a seed, or a mutant's plan file) replays that very run.
#[test]
fn guided_search_is_deterministic_and_its_replays_reproduce_each_run() {
    let dir = scratch("explore");
    let args = ["--seeds", "0..160", "--store", "background-resend"];
    let (output, report) = explore_json(&[&args[..], &["--jobs", "2"]].concat(), &dir, "two");
    assert_eq!(code(&output), EXIT_VIOLATION, "{}", stdout(&output));
    assert!(
        stdout(&output).contains("\ncoverage: "),
        "{}",
        stdout(&output)
    );
    let (_, again) = explore_json(&[&args[..], &["--jobs", "1"]].concat(), &dir, "one");
    let runs = |r: &ExploreReport| -> Vec<_> {
        r.runs
            .iter()
            .map(|run| (run.origin.clone(), run.result.trace_hash.clone()))
            .collect()
    };
    assert_eq!(
        runs(&report),
        runs(&again),
        "the same command gave other runs"
    );
    let first = report
        .first_failure
        .expect("the guided search fails the variant");
    assert!(first < 160, "first failure at run {first}");
    let failing: Vec<&ExploreRun> = report.runs.iter().filter(|r| !r.result.is_pass()).collect();
    assert!(
        failing
            .iter()
            .any(|r| matches!(r.origin, Origin::Mutant { .. })),
        "a mutant fails too"
    );
    for run in failing.iter().take(4) {
        let line = &run.result.replay;
        assert!(line.starts_with("amnesia replay --"), "{line}");
        let replayed = stdout(&amnesia(&line.split(' ').skip(1).collect::<Vec<_>>()));
        let hash = run.result.trace_hash.as_deref().expect("the run ended");
        assert!(
            replayed.contains(&format!("trace hash: {hash}")),
            "run {}: {line} gave another run:\n{replayed}",
            run.run
        );
    }
}

#[test]
fn guided_search_on_the_reference_store_passes() {
    let dir = scratch("explore-reference");
    let (output, report) = explore_json(&["--seeds", "0..160"], &dir, "reference");
    assert_eq!(code(&output), EXIT_PASS, "{}", stdout(&output));
    assert!(
        report.mutants > 0 && report.corpus > 0,
        "{}",
        stdout(&output)
    );
}

/// The panic message of a check that must fail.
fn check_panic(builder: &Builder) -> String {
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        builder.check_env(&|_| None)
    }))
    .expect_err("the check fails");
    panic
        .downcast_ref::<String>()
        .expect("a formatted panic")
        .clone()
}

/// A check keeps its new failing seeds in its regression file and replays them before
/// the range on the next run, which fails on them; a passing check, a check that finds
/// nothing new and `no_regressions` write nothing; a corrupt file is one line.
#[test]
fn a_check_keeps_its_failing_seeds_and_replays_them_first() {
    let dir = scratch("check-regressions").join("amnesia-regressions");
    let _ = std::fs::remove_dir_all(&dir);
    let builder = Builder::new()
        .scenario(ScenarioConfig::smoke())
        .seeds(0..8)
        .jobs(2)
        .regressions(&dir);
    builder.check_env(&|_| None);
    assert!(!dir.exists(), "a passing check writes nothing");
    let buggy = builder.store(named("write-behind"));
    let first = check_panic(&buggy);
    assert!(
        first.contains(" seeds failed (store write-behind"),
        "{first}"
    );
    let file = dir.join("a_check_keeps_its_failing_seeds_and_replays_them_first.txt");
    assert!(
        first.contains(&format!("kept in {}: commit it", file.display())),
        "{first}"
    );
    let text = std::fs::read_to_string(&file).expect("the regression file was written");
    assert!(
        text.starts_with("# amnesia regression corpus of "),
        "{text}"
    );
    assert!(text.contains("# Commit this file."), "{text}");
    let seeds: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("seed="))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert!(!seeds.is_empty(), "{text}");
    for line in text.lines().filter(|l| l.starts_with("seed=")) {
        assert!(
            line.contains(" store=write-behind scenario=smoke engine=event plan="),
            "{line}"
        );
    }
    // The next run replays the entries first, and fails on them before the range.
    let second = check_panic(&buggy);
    assert!(
        second.starts_with(&format!(
            "amnesia: {n} of {n} regression entries failed again ({})",
            file.display(),
            n = seeds.len()
        )),
        "{second}"
    );
    // A built-in store's replay line is the `amnesia` command (a user's store's runs
    // the test binary on the seed).
    assert!(
        second.contains(&format!(
            "replay: amnesia replay --seed {} --store write-behind --scenario smoke",
            seeds[0]
        )),
        "{second}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "nothing new");
    // The same test's file seen by another store's check: its entries name write-behind,
    // so they are skipped (a note), not replayed against the wrong store.
    let other = Builder::new()
        .scenario(ScenarioConfig::smoke())
        .seeds(0..8)
        .jobs(2)
        .regressions(&dir);
    other.check_env(&|_| None);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "nothing new");
    // A corrupt file: one line naming the file and the line, before any seed runs.
    std::fs::write(&file, format!("{text}seed=1 scenario=smoke\n")).unwrap();
    let corrupt = check_panic(&buggy);
    let line = text.lines().count() + 1;
    assert!(
        corrupt.starts_with(&format!(
            "amnesia: regression file {}:{line} is corrupt: ",
            file.display()
        )),
        "{corrupt}"
    );
    assert_eq!(corrupt.lines().count(), 1, "{corrupt}");
    // `no_regressions`: the corrupt file is neither read nor written; the range runs.
    let off = check_panic(&buggy.no_regressions());
    assert!(off.contains(" seeds failed (store write-behind"), "{off}");
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .ends_with("seed=1 scenario=smoke\n"));
}

/// `amnesia sweep` keeps a store's failing seeds in `--regressions DIR/<store>.txt`,
/// replays them before the range on the next sweep (exit 1 with their replay lines), and
/// writes nothing for a passing store or with `--no-regressions`; a corrupt file exits 5
/// with one line.
#[test]
fn a_sweep_keeps_its_failing_seeds_and_replays_them_first() {
    let dir = scratch("sweep-regressions").join("corpus");
    let _ = std::fs::remove_dir_all(&dir);
    let sweep = |store: &str, more: &[&str]| {
        let mut args = vec![
            "sweep",
            "--store",
            store,
            "--scenario",
            "smoke",
            "--seeds",
            "0..8",
        ];
        args.extend_from_slice(&["--jobs", "2", "--regressions", path_str(&dir)]);
        args.extend_from_slice(more);
        amnesia(&args)
    };
    let clean = sweep("reference", &[]);
    assert_eq!(code(&clean), EXIT_PASS, "{}", stderr(&clean));
    assert!(!dir.exists(), "a passing sweep writes nothing");
    let first = sweep("write-behind", &[]);
    assert_eq!(code(&first), EXIT_VIOLATION, "{}", stderr(&first));
    let file = dir.join("write-behind.txt");
    assert!(
        stderr(&first).contains(&format!("kept in {}: commit it", file.display())),
        "{}",
        stderr(&first)
    );
    let text = std::fs::read_to_string(&file).expect("the regression file was written");
    let seed = text
        .lines()
        .find_map(|l| l.strip_prefix("seed="))
        .and_then(|l| l.split(' ').next())
        .expect("an entry");
    let second = sweep("write-behind", &[]);
    assert_eq!(code(&second), EXIT_VIOLATION);
    let out = stdout(&second);
    assert!(out.starts_with("amnesia: "), "{out}");
    assert!(out.contains(" regression entries failed again ("), "{out}");
    assert!(
        out.contains(&format!(
            "replay: amnesia replay --seed {seed} --store write-behind --scenario smoke --engine event"
        )),
        "{out}"
    );
    assert!(!out.contains("sweep 0..8"), "the range did not run: {out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "nothing new");
    let off = amnesia(&[
        "sweep",
        "--store",
        "write-behind",
        "--scenario",
        "smoke",
        "--seeds",
        "0..8",
        "--no-regressions",
    ]);
    assert!(
        stdout(&off).contains("sweep 0..8: store write-behind"),
        "{}",
        stdout(&off)
    );
    std::fs::write(&file, format!("{text}seed=1 scenario=smoke\n")).unwrap();
    let corrupt = sweep("write-behind", &[]);
    assert_eq!(code(&corrupt), 5, "{}", stderr(&corrupt));
    let message = stderr(&corrupt);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(
        message.contains("write-behind.txt:") && message.contains(" is corrupt: "),
        "{message}"
    );
}
