//! The shim's own items, outside and inside a simulation: `fs` and `process` are tokio's
//! outside one and refuse inside, naming the call, without touching the file system or
//! starting a process; `io`'s `bytes` methods take crates.io's buffers.
//! `cargo test --features full` (scripts/test runs it).

use bytes::Buf;
use std::cell::Cell;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::simulation::{BoxFuture, SimStream, SimTask, Simulator};

thread_local! {
    /// Whether this test thread is "inside a simulation".
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

/// A simulator that is active on the threads that say so and is asked nothing else: a
/// refusal must come before any of these.
struct Inside;

impl Simulator for Inside {
    fn active(&self) -> bool {
        INSIDE.with(Cell::get)
    }
    fn spawn(&self, _: BoxFuture<()>) -> Arc<dyn SimTask> {
        panic!("a refused call spawned a task")
    }
    fn sleep_until(&self, _: std::time::Instant) -> BoxFuture<()> {
        panic!("a refused call slept")
    }
    fn resolve(&self, _: &str, _: u16) -> io::Result<Vec<SocketAddr>> {
        panic!("a refused call resolved a name")
    }
    fn connect(&self, _: SocketAddr) -> BoxFuture<io::Result<Box<dyn SimStream>>> {
        panic!("a refused call connected")
    }
}

static INSIDE_SIMULATOR: Inside = Inside;

/// `future` to its end on a current-thread tokio runtime, inside a simulation or not.
fn run<F: std::future::Future>(inside: bool, future: F) -> F::Output {
    tokio::simulation::install(&INSIDE_SIMULATOR);
    INSIDE.with(|flag| flag.set(inside));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let output = runtime.block_on(future);
    INSIDE.with(|flag| flag.set(false));
    output
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("madsim-tokio-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn assert_refused(error: io::Error, call: &str) {
    assert_eq!(error.kind(), io::ErrorKind::Unsupported, "{error}");
    let text = error.to_string();
    assert!(text.contains(call), "{text}");
    assert!(text.contains("inside a simulation"), "{text}");
    assert!(text.contains("madsim engine"), "{text}");
}

#[test]
fn files_are_tokios_outside_a_simulation() {
    let dir = scratch("outside");
    let path = dir.join("new");
    run(false, async {
        // tokio 1.38's `create_new`, which fs-err 3.1 calls.
        let mut file = tokio::fs::File::create_new(&path).await.expect("created");
        file.write_all(b"kept").await.unwrap();
        file.flush().await.unwrap();
        let again = tokio::fs::File::create_new(&path).await.unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(tokio::fs::read(&path).await.unwrap(), b"kept");
        let mut options = tokio::fs::OpenOptions::new();
        let mut file = options.read(true).open(&path).await.unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "kept");
    });
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn files_refuse_inside_a_simulation_and_touch_nothing() {
    let dir = scratch("inside");
    let path = dir.join("never");
    run(true, async {
        let error = tokio::fs::File::create_new(&path).await.unwrap_err();
        assert_refused(error, "tokio::fs::File::create_new");
        let error = tokio::fs::File::create(&path).await.unwrap_err();
        assert_refused(error, "tokio::fs::File::create");
        let error = tokio::fs::write(&path, b"x").await.unwrap_err();
        assert_refused(error, "tokio::fs::write");
        let error = tokio::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .await
            .unwrap_err();
        assert_refused(error, "tokio::fs::OpenOptions::open");
        let error = tokio::fs::DirBuilder::new()
            .create(dir.join("sub"))
            .await
            .unwrap_err();
        assert_refused(error, "tokio::fs::DirBuilder::create");
        let error = tokio::fs::read_dir(&dir).await.unwrap_err();
        assert_refused(error, "tokio::fs::read_dir");
        // A file opened before the run refuses its operations inside it.
        let mut file = tokio::fs::File::from_std(std::fs::File::open(&dir).unwrap());
        let error = file.metadata().await.unwrap_err();
        assert_refused(error, "tokio::fs::File::metadata");
        let error = file.read_u8().await.unwrap_err();
        assert_refused(error, "reading a tokio::fs::File");
    });
    assert!(!path.exists(), "a refused call created the file");
    assert!(
        !dir.join("sub").exists(),
        "a refused call created the directory"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn processes_run_outside_a_simulation_and_never_start_inside() {
    let dir = scratch("process");
    let marker = dir.join("ran");
    let touch = |marker: &PathBuf| {
        let mut command = tokio::process::Command::new("touch");
        command.arg(marker);
        command
    };
    run(true, async {
        let error = touch(&marker).status().await.unwrap_err();
        assert_refused(error, "tokio::process::Command::status");
        let error = touch(&marker).output().await.unwrap_err();
        assert_refused(error, "tokio::process::Command::output");
        let error = touch(&marker).spawn().unwrap_err();
        assert_refused(error, "tokio::process::Command::spawn");
    });
    assert!(!marker.exists(), "a refused command started");
    run(false, async {
        let status = touch(&marker).status().await.expect("touch runs");
        assert!(status.success());
    });
    assert!(marker.exists(), "the command ran outside a simulation");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn read_buf_and_write_buf_take_the_graphs_bytes() {
    run(false, async {
        let mut input: &[u8] = b"hello world";
        let mut buffer = bytes::BytesMut::with_capacity(5);
        let read = input.read_buf(&mut buffer).await.unwrap();
        assert_eq!((read, &buffer[..]), (5, &b"hello"[..]));
        let mut rest = Vec::new();
        input.read_to_end(&mut rest).await.unwrap();
        assert_eq!(rest, b" world");

        let mut output: Vec<u8> = Vec::new();
        let mut source = bytes::Bytes::from_static(b"abc").chain(&b"def"[..]);
        output.write_all_buf(&mut source).await.unwrap();
        let mut more = bytes::Bytes::from_static(b"gh");
        let written = output.write_buf(&mut more).await.unwrap();
        output.write_u16(0x0102).await.unwrap();
        assert_eq!(written, 2);
        assert_eq!(output, b"abcdefgh\x01\x02");
    });
}
