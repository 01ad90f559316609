//! Scripts as `amnesia serve-model` runs them (real time, real sockets): a script runs as
//! long as it runs, off the event loop; other connections are answered meanwhile (they
//! wait, then get BUSY past `busy-reply-threshold`); SCRIPT KILL stops a script that has
//! not written, SHUTDOWN NOSAVE one that has; no bound on a script's memory but the
//! host's; DEBUG SLEEP holds the node. Thresholds are lowered to keep each test short.

use crate::serve_model::start_model;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::time::{Duration, Instant};

/// A RESP2 connection reading one simple reply (a line, or a bulk string) at a time.
struct Conn(TcpStream, Vec<u8>);

impl Conn {
    fn open(port: u16) -> Self {
        let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        Self(stream, Vec::new())
    }

    fn send(&mut self, args: &[&str]) {
        let mut request = format!("*{}\r\n", args.len());
        for arg in args {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        self.0.write_all(request.as_bytes()).expect("write");
    }

    /// The next reply's first line, with a bulk string's payload in place of its length.
    fn recv(&mut self) -> String {
        let line = self.line();
        match line.strip_prefix('$') {
            Some(len) if len != "-1" => self.line(),
            _ => line,
        }
    }

    fn line(&mut self) -> String {
        loop {
            if let Some(end) = self.1.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8_lossy(&self.1[..end]).into_owned();
                self.1.drain(..end + 2);
                return line;
            }
            let mut chunk = [0u8; 4096];
            let read = self.0.read(&mut chunk).expect("read a reply");
            assert!(read > 0, "the connection closed");
            self.1.extend_from_slice(&chunk[..read]);
        }
    }

    fn call(&mut self, args: &[&str]) -> String {
        self.send(args);
        self.recv()
    }

    /// True once the server closed the connection.
    fn closed(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.0.read(&mut byte), Ok(0) | Err(_))
    }
}

const BUSY: &str =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

#[test]
fn a_script_past_the_simulations_instruction_budget_finishes() {
    let (port, _server) = start_model();
    let mut conn = Conn::open(port);
    // 60 million instructions: three times the simulation's budget. Before, its caller
    // never got a reply.
    let script = "local i = 0 while i < 20000000 do i = i + 1 end return i";
    assert_eq!(conn.call(&["EVAL", script, "0"]), ":20000000");
    // No memory bound but the host's, as in Redis (it was 256 MiB).
    let big = "return #string.rep('x', 300 * 1024 * 1024)";
    assert_eq!(conn.call(&["EVAL", big, "0"]), ":314572800");
}

#[test]
fn other_clients_wait_then_get_busy_and_script_kill_stops_the_script() {
    let (port, _server) = start_model();
    let mut caller = Conn::open(port);
    assert_eq!(
        caller.call(&["CONFIG", "SET", "lua-time-limit", "200"]),
        "+OK"
    );
    let started = Instant::now();
    caller.send(&["EVAL", "while true do end", "0"]);
    std::thread::sleep(Duration::from_millis(20));
    // Accepted while the script holds the node; its first command waits for the threshold.
    let mut other = Conn::open(port);
    assert_eq!(other.call(&["GET", "k"]), BUSY);
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "BUSY only past the threshold"
    );
    assert_eq!(other.call(&["PING"]), BUSY);
    assert_eq!(other.call(&["MULTI"]), "+OK");
    assert_eq!(other.call(&["SET", "k", "v"]), BUSY);
    assert!(other
        .call(&["EXEC"])
        .starts_with("-EXECABORT Transaction discarded"));
    assert_eq!(other.call(&["SCRIPT", "KILL"]), "+OK");
    let killed = caller.recv();
    assert!(
        killed.starts_with("-ERR Script killed by user with SCRIPT KILL"),
        "{killed}"
    );
    assert_eq!(other.call(&["PING"]), "+PONG");
    assert_eq!(caller.call(&["PING"]), "+PONG");
    assert_eq!(
        other.call(&["SCRIPT", "KILL"]),
        "-NOTBUSY No scripts in execution right now."
    );
}

#[test]
fn a_script_that_wrote_is_unkillable_and_shutdown_nosave_stops_the_server() {
    let (port, server) = start_model();
    let mut caller = Conn::open(port);
    assert_eq!(
        caller.call(&["CONFIG", "SET", "busy-reply-threshold", "50"]),
        "+OK"
    );
    caller.send(&["EVAL", "redis.call('set', 'w', '1') while true do end", "0"]);
    std::thread::sleep(Duration::from_millis(100));
    let mut other = Conn::open(port);
    assert!(other.call(&["SCRIPT", "KILL"]).starts_with("-UNKILLABLE "));
    assert_eq!(other.call(&["SHUTDOWN"]), BUSY, "without NOSAVE");
    other.send(&["SHUTDOWN", "NOSAVE"]);
    assert!(other.closed(), "SHUTDOWN NOSAVE answers by closing");
    server.join().expect("serve_tcp returned");
}

#[test]
fn debug_sleep_holds_the_node() {
    let (port, _server) = start_model();
    let mut conn = Conn::open(port);
    let started = Instant::now();
    assert_eq!(conn.call(&["DEBUG", "SLEEP", "0.2"]), "+OK");
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(conn.call(&["DEBUG", "SLEEP", "0"]), "+OK");
    assert_eq!(conn.call(&["DEBUG", "SET-ACTIVE-EXPIRE", "0"]), "+OK");
}
