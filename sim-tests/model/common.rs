//! Shared helpers: paused runtimes, models on tokio's clock, and connections to them.

use amnesia::internal::model::protocol::client::ClientState;
use amnesia::internal::model::{Model, ModelClock, ModelConfig, Node, Reply};
use bytes::Bytes;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, RedisConnectionInfo, RedisResult};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// Unix time of the model's clock when a test starts.
pub const EPOCH_MS: u64 = 1_700_000_000_000;

/// Response timeout of every client: long in virtual time, so a missing reply fails the
/// test (instead of hanging it) without ever firing on a healthy model.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(30);

/// A single-threaded runtime with tokio's clock paused: time is virtual and advances only
/// when every task is idle (or by `tokio::time::advance`).
pub fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime")
}

/// Run `test` on a fresh paused runtime.
pub fn on_virtual_time<F: std::future::Future>(test: F) -> F::Output {
    paused_runtime().block_on(test)
}

/// A model on tokio's clock; call inside the runtime so its clock is the virtual one.
pub fn model(config: ModelConfig) -> Model {
    Model::new(config, ModelClock::tokio(EPOCH_MS))
}

pub fn client_config() -> AsyncConnectionConfig {
    AsyncConnectionConfig::new()
        .set_connection_timeout(Some(RESPONSE_TIMEOUT))
        .set_response_timeout(Some(RESPONSE_TIMEOUT))
}

/// A `redis` crate connection to `model` over an in-memory duplex stream; the connection's
/// driver and the model's side of the stream run as tasks of the current runtime.
pub async fn connect(
    model: &Model,
    info: &RedisConnectionInfo,
) -> RedisResult<MultiplexedConnection> {
    let (client, server) = tokio::io::duplex(64 * 1024);
    tokio::spawn(model.clone().serve_connection(server));
    let (connection, driver) =
        MultiplexedConnection::new_with_config(info, client, client_config()).await?;
    tokio::spawn(driver);
    Ok(connection)
}

/// A plain RESP2 connection to db 0 without a password.
pub async fn connect_plain(model: &Model) -> MultiplexedConnection {
    connect(model, &RedisConnectionInfo::default())
        .await
        .expect("a plain connection")
}

/// A raw byte connection to a model, for protocol-level tests.
pub fn raw(model: &Model) -> DuplexStream {
    let (client, server) = tokio::io::duplex(64 * 1024);
    tokio::spawn(model.clone().serve_connection(server));
    client
}

/// What the server sent until it closed the connection or stayed silent for a (virtual)
/// second, and whether it closed.
pub async fn read_reply<S: tokio::io::AsyncRead + Unpin>(stream: &mut S) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(1), stream.read(&mut chunk)).await {
            Err(_) => return (out, false),
            Ok(Ok(0)) | Ok(Err(_)) => return (out, true),
            Ok(Ok(n)) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Send `input` on a fresh raw connection and return what came back and whether it closed.
/// A write error (the server closed while we were still sending) counts as closed.
pub async fn exchange(model: &Model, input: &[u8]) -> (Vec<u8>, bool) {
    let mut stream = raw(model);
    let (mut reader, mut writer) = tokio::io::split(&mut stream);
    let write = async {
        let _ = writer.write_all(input).await;
    };
    let (_, result) = tokio::join!(write, read_reply(&mut reader));
    result
}

/// Execute one command directly on a node.
pub fn exec(node: &mut Node, client: &mut ClientState, args: &[&str], now_ms: u64) -> Reply {
    let args = args
        .iter()
        .map(|a| Bytes::copy_from_slice(a.as_bytes()))
        .collect();
    node.execute(client, args, now_ms).reply
}

pub fn bulk(text: &str) -> Reply {
    Reply::Bulk(Bytes::copy_from_slice(text.as_bytes()))
}
