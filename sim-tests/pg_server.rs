//! The PostgreSQL model served over TCP on the OS clock (`amnesia serve-pg-model`), as
//! psql or a team's own client meets it: a running statement does not keep the server
//! from reading new connections and cancel requests, and a cancel request ends it only
//! with the connection's own secret key (PostgreSQL's rule; issue 54).

use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio_postgres::NoTls;

/// Rows of the table the statement joins with itself.
const SETUP: &str = "CREATE TABLE g (i int4); INSERT INTO g WITH RECURSIVE s(i) AS \
                     (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 2000) SELECT i FROM s";
/// A statement that runs for seconds on the model (4 million joined rows, each judged:
/// about 4 s on a loaded 2-core machine, then the model's work limit) unless cancelled.
const LONG: &str = "SELECT count(*) FROM g a, g b WHERE a.i + b.i < 0";
/// How long the statement is left running after a cancel request with a wrong key.
const WRONG_KEY_GRACE: Duration = Duration::from_millis(400);
/// How soon a cancel request with the right key must end it (the model looks every
/// 4,096 steps; generous for a loaded machine).
const CANCEL_WITHIN: Duration = Duration::from_secs(5);

async fn serve() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port on 127.0.0.1");
    let port = listener.local_addr().expect("bound").port();
    tokio::spawn(amnesia::internal::pg::serve_tcp(listener, 0));
    port
}

async fn connect(port: u16) -> tokio_postgres::Client {
    let url = format!("host=127.0.0.1 port={port} user=amnesia dbname=postgres");
    let (client, connection) = tokio_postgres::connect(&url, NoTls)
        .await
        .expect("the model accepts a connection");
    tokio::spawn(connection);
    client
}

/// A CancelRequest (length, code 80877102, process id, secret key), as a client sends it
/// on a connection of its own.
async fn cancel_request(port: u16, pid: i32, secret_key: i32) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("the model accepts a cancel connection");
    let mut message = Vec::with_capacity(16);
    for word in [16, 80_877_102, pid, secret_key] {
        message.extend_from_slice(&word.to_be_bytes());
    }
    stream.write_all(&message).await.expect("sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_statement_is_cancelled_by_its_own_key_only() {
    let port = serve().await;
    let client = connect(port).await;
    client.batch_execute(SETUP).await.expect("the table");
    let pid: i32 = client
        .query_one("SELECT pg_backend_pid()", &[])
        .await
        .expect("a pid")
        .get(0);
    let token = client.cancel_token();
    let started = Instant::now();
    let running = tokio::spawn(async move { client.simple_query(LONG).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    // While it runs, the server still accepts a connection, whose statement then waits
    // for the database: off the runtime's workers, or with two of them both would be
    // taken and no cancel request could be read.
    let other = connect(port).await;
    let waiting = tokio::spawn(async move { other.simple_query("SELECT 1").await });
    cancel_request(port, pid, 0x5eed).await;
    tokio::time::sleep(WRONG_KEY_GRACE).await;
    assert!(
        !running.is_finished(),
        "a cancel request with a wrong key ended the statement"
    );
    let cancelled_at = Instant::now();
    token.cancel_query(NoTls).await.expect("cancel sent");
    let outcome = tokio::time::timeout(CANCEL_WITHIN, running)
        .await
        .expect("the cancel request ends the running statement")
        .expect("the task");
    let error = outcome.expect_err("cancelled, not completed");
    assert_eq!(
        error.code(),
        Some(&tokio_postgres::error::SqlState::QUERY_CANCELED),
        "{error}"
    );
    assert!(started.elapsed() >= WRONG_KEY_GRACE);
    let answered = tokio::time::timeout(CANCEL_WITHIN, waiting).await;
    assert!(
        matches!(answered, Ok(Ok(Ok(_)))),
        "the other connection's statement is answered once the database is free"
    );
    println!(
        "cancelled {:?} after the request, {:?} after the start",
        cancelled_at.elapsed(),
        started.elapsed()
    );
}
