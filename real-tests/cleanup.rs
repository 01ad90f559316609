//! The real tier leaves nothing behind and says what it lacks: a run that panics still
//! removes its container, and without a Docker engine `amnesia real` says what to
//! install in one line and exits 4. A test binary of its own: it counts this process's
//! containers, which no other test may start meanwhile.

use amnesia::plan::{Plan, ScenarioConfig};
use amnesia::real::{run_real, Provider, RealOptions, LABEL, OWNER_LABEL};
use amnesia::{Backend, Store};
use std::sync::atomic::{AtomicBool, Ordering};

/// This process's containers, by amnesia's labels (through the docker CLI, as a user
/// would look).
fn my_containers() -> Vec<String> {
    let output = std::process::Command::new("docker")
        .args(["ps", "-aq", "--filter"])
        .arg(format!("label={LABEL}"))
        .arg("--filter")
        .arg(format!("label={OWNER_LABEL}={}", std::process::id()))
        .output()
        .expect("the docker CLI runs");
    assert!(output.status.success(), "docker ps answers");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_run_that_panics_removes_its_container() {
    // One after the other: each counts this process's containers.
    panics_and_leaves_nothing(Backend::Redis);
    panics_and_leaves_nothing(Backend::Pgvector);
}

/// A store of `backend` that panics while the world starts: its server's container is
/// gone afterwards.
fn panics_and_leaves_nothing(backend: Backend) {
    let provider = Provider::from_env().unwrap();
    if !matches!(provider, Provider::Docker { .. }) {
        panic!("this test checks Docker containers: run it with AMNESIA_REAL_PROVIDER=docker");
    }
    static SEEN_RUNNING: AtomicBool = AtomicBool::new(false);
    SEEN_RUNNING.store(false, Ordering::Relaxed);
    // The store is built once the server runs: it sees the container, then panics.
    let store = Store::new(
        "panics-while-built",
        |_context: amnesia::StoreContext| -> amnesia::RedisChatStore {
            SEEN_RUNNING.store(!my_containers().is_empty(), Ordering::Relaxed);
            panic!("a store that panics while the world starts")
        },
    )
    .with_backend(backend);
    let options = RealOptions {
        provider,
        time_scale: 1.0,
    };
    let plan = Plan::generate(3, &ScenarioConfig::smoke());
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = run_real(plan, &store, &options);
    }));
    assert!(
        panicked.is_err(),
        "{backend:?}: the store's panic reached the caller"
    );
    assert!(
        SEEN_RUNNING.load(Ordering::Relaxed),
        "{backend:?}: the container ran when the store panicked"
    );
    assert_eq!(
        my_containers(),
        Vec::<String>::new(),
        "{backend:?}: no container outlives the panic"
    );
}

/// `amnesia ARGS` with `env`: its exit code and stderr.
fn amnesia(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_amnesia"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn without_postgres_binaries_the_pgvector_backend_says_what_to_install() {
    let env = [
        ("AMNESIA_REAL_PROVIDER", "process"),
        ("AMNESIA_PG_BIN", "/nonexistent/bin"),
    ];
    let (code, stderr) = amnesia(&["real", "--seed", "1", "--backend", "pgvector"], &env);
    assert_eq!(code, Some(4), "stderr: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("scripts/install-pgvector"), "{stderr}");
}

#[test]
fn the_backend_and_store_must_agree_and_the_simulator_refuses_pgvector() {
    let (code, stderr) = amnesia(&["real", "--seed", "1", "--backend", "mysql"], &[]);
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert!(stderr.contains("unknown backend 'mysql'"), "{stderr}");
    let args = [
        "real",
        "--seed",
        "1",
        "--backend",
        "pgvector",
        "--store",
        "reference",
    ];
    let (code, stderr) = amnesia(&args, &[]);
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert!(stderr.contains("keeps its data in redis"), "{stderr}");
    let (code, stderr) = amnesia(
        &["run", "--seed", "1", "--store", "pgvector-reference"],
        &[],
    );
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("amnesia real --store pgvector-reference"),
        "{stderr}"
    );
    let args = [
        "real",
        "--seed",
        "1",
        "--store",
        "pgvector-reference",
        "--lockstep",
    ];
    let (code, stderr) = amnesia(&args, &[]);
    assert_eq!(code, Some(2), "stderr: {stderr}");
}

#[test]
fn without_a_docker_engine_the_real_tier_says_so_and_exits_4() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_amnesia"))
        .args(["real", "--seed", "1", "--scenario", "smoke"])
        .env("AMNESIA_REAL_PROVIDER", "docker")
        .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "stderr: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("install docker.io"),
        "names what to install: {stderr}"
    );
}

#[test]
fn an_unknown_provider_is_refused_in_one_line() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_amnesia"))
        .args(["real", "--seed", "1"])
        .env("AMNESIA_REAL_PROVIDER", "podman")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "stderr: {stderr}");
    assert!(
        stderr.contains("unknown AMNESIA_REAL_PROVIDER 'podman'"),
        "{stderr}"
    );
}
