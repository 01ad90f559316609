//! The real tier leaves nothing behind and says what it lacks: a run that panics still
//! removes its container; SIGINT and SIGTERM remove a run's servers (a paused container
//! or a stopped PostgreSQL with its backends included) and exit 130 and 143; what a
//! SIGKILLed run left (a container, a postmaster with its backends, their folder) goes at
//! the next start; a pause of a local PostgreSQL stops every backend; without a Docker
//! engine (or at a `DOCKER_HOST` that does not answer) `amnesia real` says what to do in
//! one line and exits 4; every bad flag is one line and exit 2. A test binary of its own:
//! it counts processes' containers and folders, and its tests that start servers hold
//! [`SERVERS`] so that no start sweeps what another test is about to look at.

use amnesia::internal::plan::{Plan, ScenarioConfig};
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

/// Held by every test that starts servers: a start sweeps what dead owners left, so a
/// test that leaves a killed run's servers to be swept must not overlap another's start.
static SERVERS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn servers_to_myself() -> std::sync::MutexGuard<'static, ()> {
    SERVERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn a_run_that_panics_removes_its_container() {
    let _servers = servers_to_myself();
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
fn the_backend_and_store_must_agree_and_only_the_event_engine_simulates_pgvector() {
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
    assert_eq!(
        code,
        Some(0),
        "the event engine runs it on the PostgreSQL model: {stderr}"
    );
    let args = [
        "run",
        "--seed",
        "1",
        "--store",
        "pgvector-reference",
        "--engine",
        "turmoil",
    ];
    let (code, stderr) = amnesia(&args, &[]);
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert!(stderr.contains("only the event engine"), "{stderr}");
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

/// Seed 50 of the standard scenario pauses Redis 2 ms into the run, for 2.7 s.
const PAUSED_EARLY_SEED: &str = "50";
/// How long a test waits for a run to reach a state (a container up, a server started).
const WAIT_MS_MAX: u64 = 30_000;

/// `amnesia ARGS` started in the background with `env`, stderr piped.
fn spawn_amnesia(args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_amnesia"))
        .args(args)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// The containers process `pid` owns, in `status` (any when `None`).
fn containers_of(pid: u32, status: Option<&str>) -> Vec<String> {
    let mut command = std::process::Command::new("docker");
    command
        .args(["ps", "-aq", "--filter"])
        .arg(format!("label={OWNER_LABEL}={pid}"));
    if let Some(status) = status {
        command.args(["--filter", &format!("status={status}")]);
    }
    let output = command.output().expect("the docker CLI runs");
    assert!(output.status.success(), "docker ps answers");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Wait until process `pid` has a container in `status`.
fn wait_for_container(pid: u32, status: &str) {
    wait_for(&format!("a {status} container of {pid}"), || {
        !containers_of(pid, Some(status)).is_empty()
    });
}

/// Poll `done` every 50 ms until it holds; panics with `what` after [`WAIT_MS_MAX`].
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(
            started.elapsed().as_millis() < u128::from(WAIT_MS_MAX),
            "waited {WAIT_MS_MAX} ms for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn signal(child: &std::process::Child, signal: nix::sys::signal::Signal) {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, signal).expect("the run takes the signal");
}

/// Wait for `child`; its exit code and stderr.
fn finish(child: std::process::Child) -> (Option<i32>, String) {
    let output = child.wait_with_output().expect("the run ends");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn sigterm_while_the_server_is_paused_unpauses_and_removes_its_container() {
    let _servers = servers_to_myself();
    let env = [("AMNESIA_REAL_PROVIDER", "docker")];
    let run = spawn_amnesia(&["real", "--seed", PAUSED_EARLY_SEED], &env);
    let pid = run.id();
    wait_for_container(pid, "paused");
    signal(&run, nix::sys::signal::Signal::SIGTERM);
    let (code, stderr) = finish(run);
    assert_eq!(code, Some(143), "128 + SIGTERM: {stderr}");
    assert!(stderr.contains("removed 1 container"), "{stderr}");
    assert_eq!(containers_of(pid, None), Vec::<String>::new(), "{stderr}");
}

/// A live server process and its live children (a postmaster and its backends, which
/// lead process groups of their own).
fn server_processes(server: u32) -> Vec<u32> {
    let live = |pid: &u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<String> = stat.rsplit_once(')').map_or(vec![], |(_, rest)| {
            rest.split_whitespace().map(str::to_string).collect()
        });
        // fields[0] is the state (a zombie is gone for good), fields[1] the parent.
        (!fields.is_empty() && fields[0] != "Z").then(|| fields[1].clone())
    };
    let entries = std::fs::read_dir("/proc").expect("/proc lists processes");
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            live(pid).is_some_and(|parent| *pid == server || parent == server.to_string())
        })
        .collect()
}

/// The folders a local-server run of `pid` made in the temporary directory.
fn folders_of(pid: u32) -> Vec<std::path::PathBuf> {
    let prefixes = [format!("amnesia-pg-{pid}-"), format!("amnesia-real-{pid}-")];
    std::fs::read_dir(std::env::temp_dir())
        .expect("the temporary directory lists")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            prefixes.iter().any(|prefix| name.starts_with(prefix))
        })
        .collect()
}

/// The server pid a local-server folder records, once it does.
fn recorded_server(folder: &std::path::Path) -> Option<u32> {
    let text = std::fs::read_to_string(folder.join("amnesia-server.pid")).ok()?;
    text.trim().parse().ok()
}

/// The postmaster run `pid` started and recorded, once `ready` holds of it.
fn wait_for_postmaster(pid: u32, what: &str, ready: impl Fn(u32) -> bool) -> u32 {
    let mut postmaster = 0;
    wait_for(&format!("the postmaster of {pid} {what}"), || {
        let folders = folders_of(pid);
        postmaster = folders
            .first()
            .and_then(|f| recorded_server(f))
            .unwrap_or(0);
        postmaster != 0 && ready(postmaster)
    });
    postmaster
}

#[test]
fn what_sigkilled_runs_leave_goes_at_the_next_start_and_sigint_leaves_nothing() {
    let _servers = servers_to_myself();
    // A: a Docker run killed with its container up: the container outlives it.
    let docker = [("AMNESIA_REAL_PROVIDER", "docker")];
    let a = spawn_amnesia(&["real", "--seed", "1"], &docker);
    let a_pid = a.id();
    wait_for_container(a_pid, "running");
    signal(&a, nix::sys::signal::Signal::SIGKILL);
    let _ = finish(a);
    assert_eq!(
        containers_of(a_pid, None).len(),
        1,
        "SIGKILL leaves A's container"
    );

    // B: a local PostgreSQL run killed: the postmaster, its backends and folder outlive it.
    let process = [("AMNESIA_REAL_PROVIDER", "process")];
    let b = spawn_amnesia(&["real", "--seed", "1", "--backend", "pgvector"], &process);
    let b_pid = b.id();
    let postmaster = wait_for_postmaster(b_pid, "with its backends", |postmaster| {
        server_processes(postmaster).len() >= 3
    });
    signal(&b, nix::sys::signal::Signal::SIGKILL);
    let _ = finish(b);
    assert!(
        server_processes(postmaster).len() >= 3,
        "SIGKILL leaves B's postmaster and backends"
    );
    assert_eq!(folders_of(b_pid).len(), 1, "SIGKILL leaves B's folder");

    // C: the next start sweeps what dead owners left; SIGINT then removes C's own.
    let c = spawn_amnesia(&["real", "--seed", "1"], &docker);
    let c_pid = c.id();
    wait_for_container(c_pid, "running");
    signal(&c, nix::sys::signal::Signal::SIGINT);
    let (code, stderr) = finish(c);
    assert_eq!(code, Some(130), "128 + SIGINT: {stderr}");
    assert_eq!(
        containers_of(a_pid, None),
        Vec::<String>::new(),
        "A's container"
    );
    assert_eq!(
        server_processes(postmaster),
        Vec::<u32>::new(),
        "B's servers"
    );
    assert_eq!(
        folders_of(b_pid),
        Vec::<std::path::PathBuf>::new(),
        "B's folder"
    );
    assert_eq!(
        containers_of(c_pid, None),
        Vec::<String>::new(),
        "C's container"
    );
}

#[test]
fn a_tcp_docker_host_that_does_not_answer_is_one_line_naming_it() {
    let (code, stderr) = amnesia(
        &["real", "--seed", "1", "--scenario", "smoke"],
        &[
            ("AMNESIA_REAL_PROVIDER", "docker"),
            ("DOCKER_HOST", "tcp://127.0.0.1:1"),
        ],
    );
    assert_eq!(code, Some(4), "stderr: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("DOCKER_HOST=tcp://127.0.0.1:1"), "{stderr}");
}

#[test]
fn every_bad_flag_is_one_line_and_exit_2() {
    let cases: [&[&str]; 5] = [
        &["real", "--seed", "1", "--backend", "mysql"],
        &["real", "--seed", "1", "--time-scale", "fast"],
        &["real", "--seed", "x"],
        &["sweep", "--seeds", "0..10", "--no-such-flag"],
        &["real"],
    ];
    for args in cases {
        let (code, stderr) = amnesia(args, &[]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("amnesia: "), "{args:?}: {stderr}");
    }
}

/// The state letter of process `pid` (`T` stopped, `Z` zombie), if it exists.
fn state_of(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().next().map(str::to_string)
}

#[test]
fn a_paused_local_postgres_stops_every_backend_and_sigint_removes_it() {
    let _servers = servers_to_myself();
    // The same seed pauses the server 2 ms into the run on the pgvector backend.
    let process = [("AMNESIA_REAL_PROVIDER", "process")];
    let args = ["real", "--seed", PAUSED_EARLY_SEED, "--backend", "pgvector"];
    let run = spawn_amnesia(&args, &process);
    let pid = run.id();
    let postmaster = wait_for_postmaster(pid, "stopped", |postmaster| {
        state_of(postmaster).as_deref() == Some("T")
    });
    // Its children are signalled right after it.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let processes = server_processes(postmaster);
    assert!(
        processes.len() >= 3,
        "a postmaster and its children: {processes:?}"
    );
    let running: Vec<_> = processes
        .iter()
        .filter(|&&p| state_of(p).as_deref() != Some("T"))
        .collect();
    assert!(
        running.is_empty(),
        "a pause stops every backend: {running:?} run on"
    );
    signal(&run, nix::sys::signal::Signal::SIGINT);
    let (code, stderr) = finish(run);
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(server_processes(postmaster), Vec::<u32>::new(), "{stderr}");
    assert_eq!(
        folders_of(pid),
        Vec::<std::path::PathBuf>::new(),
        "{stderr}"
    );
}
