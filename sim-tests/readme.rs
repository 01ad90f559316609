//! README's figures are computed, not remembered: the write-behind sweep sample (its
//! summary line, its JSON summary, its first class, the regression file it keeps) and the
//! share of acknowledged messages the reference's sweep excuses are recomputed here and
//! must be what README prints. A change that moves them fails with the line to write.

use amnesia::internal::runner::regressions::{entries_of, Corpus};
use amnesia::internal::runner::{SeedRange, SweepConfig};
use amnesia::{Builder, Store};
use std::path::{Path, PathBuf};

/// The store of README's sweep samples.
fn report_store() -> Store {
    Store::named("write-behind").expect("built in")
}

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(path).expect("README.md reads")
}

fn assert_readme_has(line: &str, what: &str) {
    assert!(
        readme().contains(line),
        "README's {what} drifted: it should read\n{line}"
    );
}

#[test]
fn the_write_behind_sweep_sample_is_todays() {
    let report = Builder::new().store(report_store()).seeds(0..200).sweep();
    let s = &report.summary;
    assert_readme_has(
        &format!(
            "pass {} · fail {} · stuck {} · panic {} · nondeterministic {}",
            s.pass, s.fail, s.stuck, s.panic, s.nondeterministic
        ),
        "sweep sample (## Sweeps)",
    );
    assert_readme_has(
        &format!(
            "\"summary\": {{\"seeds\": {}, \"pass\": {}, \"fail\": {}, \"stuck\": {}, \"panic\": {},",
            s.seeds, s.pass, s.fail, s.stuck, s.panic
        ),
        "JSON report sample",
    );
    let excused = &s.excused;
    assert_readme_has(
        &format!(
            "expected loss: {} of {} acked messages excused across restarts ({:.2} %)",
            excused.excused_messages,
            excused.acked_messages,
            excused.excused_messages as f64 * 100.0 / excused.acked_messages as f64
        ),
        "sweep sample's expected loss",
    );
    // The regression file that sweep keeps (## Test your own store).
    let config = SweepConfig::new(SeedRange { start: 0, end: 200 }, report_store());
    let entries = entries_of(&report.results, &config);
    let corpus = Corpus::new(PathBuf::from("write-behind.txt"), "write-behind", entries);
    assert_readme_has(
        &format!("```text\n{}```", corpus.text()),
        "regression file sample (## Test your own store)",
    );
    let first = s.by_class.first().expect("write-behind fails");
    assert_readme_has(
        &format!(
            "{} ({} seeds):\n  seed {}: amnesia replay --seed {} --store write-behind --engine event",
            first.class,
            first.seeds.len(),
            first.seeds[0],
            first.seeds[0]
        ),
        "sweep sample's first class",
    );
}

#[test]
fn the_excused_share_is_todays() {
    let report = Builder::new().seeds(0..1000).sweep();
    assert!(report.is_pass(), "{}", report.text());
    let excused = &report.summary.excused;
    let percent = excused.excused_messages as f64 * 100.0 / excused.acked_messages as f64;
    assert_readme_has(
        &format!("standard scenario: {percent:.2} %"),
        "excused share (## How it works, Checker)",
    );
}

/// README's steps for a PostgreSQL store of one's own are the example project's, to the
/// letter: every dependency line of `examples/own-pg-store/Cargo.toml` (amnesia's path
/// aside) is step 1's, its `.cargo/config.toml` sets step 2's flag, and its adapter
/// declares step 3's audit query and builds from a `PgContext` as step 4 does.
/// `scripts/test` builds and runs the project itself.
#[test]
fn the_pgvector_own_store_steps_are_the_example_projects() {
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/own-pg-store");
    let read = |file: &str| std::fs::read_to_string(project.join(file)).expect("the example reads");
    let manifest = read("Cargo.toml");
    let readme = readme();
    let dependencies = manifest
        .lines()
        .skip_while(|line| *line != "[dependencies]")
        .take_while(|line| !line.starts_with("[profile"))
        .filter(|line| line.contains(" = ") && !line.starts_with("amnesia"));
    for line in dependencies {
        assert!(
            readme.contains(line),
            "README's step 1 lacks the example's `{line}`"
        );
    }
    assert!(manifest.contains(r#"amnesia = { path = "../..", features = ["pg"] }"#));
    assert!(read(".cargo/config.toml").contains(r#"rustflags = ["--cfg", "tokio_unstable"]"#));
    let adapter = read("tests/amnesia.rs");
    let audit = adapter
        .lines()
        .find(|line| line.starts_with("const AUDIT: &str = "))
        .expect("the adapter declares its audit query");
    assert_readme_has(
        &format!("`{audit}`"),
        "own pgvector store's audit query (step 3)",
    );
    assert!(adapter.contains("fn new(context: PgContext) -> Adapter"));
    assert!(adapter.contains(r#"Store::new("own-pg-store", Adapter::new)"#));
    assert_readme_has(
        r#"`amnesia::Builder::new().store(Store::new("my-store", Adapter::new)).seeds(0..24).check()`"#,
        "own pgvector store's step 4",
    );
}

/// The two example projects reuse the build of amnesia and its dependencies that
/// amnesia's own tests made (scripts/test runs both with `shared-build`): each version an
/// example's lock names is one amnesia's lock names too, and the two examples agree, or
/// cargo would build those dependencies, and amnesia, again.
#[test]
fn the_example_projects_lock_the_same_versions() {
    use std::collections::BTreeMap;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let versions = |project: &str| {
        let lock = std::fs::read_to_string(root.join(project).join("Cargo.lock"))
            .expect("the example's lock reads");
        let mut versions: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for package in lock.split("[[package]]").skip(1) {
            let field = |key: &str| {
                package
                    .lines()
                    .find_map(|line| line.strip_prefix(key))
                    .expect("a locked package has a name and a version")
                    .to_string()
            };
            versions
                .entry(field("name = "))
                .or_default()
                .push(field("version = "));
        }
        versions
    };
    let root_lock = versions(".");
    let (redis, pg) = (
        versions("examples/own-store"),
        versions("examples/own-pg-store"),
    );
    for (project, lock) in [("own-store", &redis), ("own-pg-store", &pg)] {
        // The real tier's dependencies (hyper, through testcontainers) are locked too:
        // `shared-build` turns them on.
        assert!(lock.contains_key("\"amnesia\"") && lock.contains_key("\"hyper\""));
        for (name, lock_versions) in lock {
            let Some(root_versions) = root_lock.get(name) else {
                continue;
            };
            for version in lock_versions {
                assert!(
                    root_versions.contains(version),
                    "examples/{project}/Cargo.lock locks {name} {version}, which amnesia's \
                     Cargo.lock does not: cargo would build it again (copy amnesia's lock)"
                );
            }
        }
    }
    for (name, redis_versions) in &redis {
        if let Some(pg_versions) = pg.get(name) {
            assert_eq!(
                redis_versions, pg_versions,
                "the example locks disagree on {name}"
            );
        }
    }
}
