//! Error replies for a real server: the plan's `error-reply` fault answers the next data
//! command (from any client) with an error instead of running it, as the model does. A
//! real server cannot be told to, so the proxy does it between a connection's server end
//! and the server: it reads the commands, keeps the one it rejects from the server,
//! answers it itself in its place among the replies, and inside `MULTI` turns the
//! transaction's `EXEC` into a `DISCARD` answered with `EXECABORT`, as Redis does with a
//! command it rejected while queueing.

use crate::model::commands::table::{lookup, Flags};
use crate::model::protocol::request::{next_request, Request, RequestLimits};
use bytes::{Bytes, BytesMut};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Bytes read per call from either side.
const READ_BYTES: usize = 16 * 1024;
/// Replies a connection may owe at once; past this the relay closes it.
const OWED_MAX: usize = 1 << 20;
/// What Redis answers an `EXEC` after a rejected queued command.
const EXECABORT: &str = "EXECABORT Transaction discarded because of previous errors.";

/// The error the next data command of any connection gets, when one is pending.
#[derive(Default)]
pub(crate) struct PendingError {
    error: Mutex<Option<String>>,
}

impl PendingError {
    pub(crate) fn set(&self, error: &str) {
        *self.error.lock().expect("never poisoned") = Some(error.to_string());
    }

    pub(crate) fn take(&self) -> Option<String> {
        self.error.lock().expect("never poisoned").take()
    }
}

/// A reply the client is owed, in order.
enum Owed {
    /// The server's next reply.
    Server,
    /// The server's next reply is replaced by this error (an `EXEC` sent as `DISCARD`).
    ServerAs(String),
    /// This error, from the proxy.
    Proxy(String),
}

/// One connection's state between its two directions.
#[derive(Default)]
struct Relay {
    owed: VecDeque<Owed>,
    in_multi: bool,
    multi_failed: bool,
}

/// Carry one connection between `client` (its server end) and `server` until either side
/// closes, answering a pending error in place of the next data command.
pub(crate) async fn relay<C, S>(client: C, server: S, pending: Arc<PendingError>)
where
    C: AsyncRead + AsyncWrite + Unpin,
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (mut client_read, client_write) = tokio::io::split(client);
    let (mut server_read, mut server_write) = tokio::io::split(server);
    let relay = Mutex::new(Relay::default());
    let client_write = tokio::sync::Mutex::new(client_write);
    let requests = async {
        let mut input = BytesMut::new();
        loop {
            input.reserve(READ_BYTES);
            if !matches!(client_read.read_buf(&mut input).await, Ok(n) if n > 0) {
                return;
            }
            // The writer's lock first: what is computed in order is written in order.
            let mut writer = client_write.lock().await;
            let taken = take_requests(
                &mut relay.lock().expect("never poisoned"),
                &mut input,
                &pending,
            );
            let Some((forward, answers)) = taken else {
                return;
            };
            if writer.write_all(&answers).await.is_err() {
                return;
            }
            drop(writer);
            if server_write.write_all(&forward).await.is_err() {
                return;
            }
        }
    };
    let replies = async {
        let mut input = Vec::new();
        let mut chunk = vec![0u8; READ_BYTES];
        loop {
            let read = match server_read.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => read,
            };
            input.extend_from_slice(&chunk[..read]);
            let mut writer = client_write.lock().await;
            let Some(out) = take_replies(&mut relay.lock().expect("never poisoned"), &mut input)
            else {
                return;
            };
            if writer.write_all(&out).await.is_err() {
                return;
            }
        }
    };
    tokio::select! {
        () = requests => {}
        () = replies => {}
    }
}

/// The whole requests of `input`: the bytes to send the server, and the proxy's own
/// answers due now. `None`: a protocol error or too many replies owed (close).
fn take_requests(
    relay: &mut Relay,
    input: &mut BytesMut,
    pending: &PendingError,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let limits = RequestLimits {
        bulk_bytes_max: i64::MAX,
        authenticated: true,
    };
    let mut forward = Vec::new();
    loop {
        match next_request(input, limits) {
            Request::Incomplete => break,
            Request::ProtocolError(_) => return None,
            Request::Command(args) => route(relay, args, pending, &mut forward),
        }
        if relay.owed.len() > OWED_MAX {
            return None;
        }
    }
    Some((forward, due_answers(relay)))
}

/// Send `args` on to the server, or answer it here; note what the client is owed.
fn route(relay: &mut Relay, args: Vec<Bytes>, pending: &PendingError, forward: &mut Vec<u8>) {
    let name = args[0].to_ascii_uppercase();
    let data = lookup(&name).is_some_and(|command| command.flags.contains(Flags::DATA));
    if data {
        if let Some(error) = pending.take() {
            relay.multi_failed |= relay.in_multi;
            relay.owed.push_back(Owed::Proxy(error));
            return;
        }
    }
    let mut sent = args;
    let mut owed = Owed::Server;
    match name.as_slice() {
        b"MULTI" => relay.in_multi = true,
        b"EXEC" | b"DISCARD" => {
            if name == b"EXEC" && relay.multi_failed {
                sent = vec![Bytes::from_static(b"DISCARD")];
                owed = Owed::ServerAs(EXECABORT.to_string());
            }
            relay.in_multi = false;
            relay.multi_failed = false;
        }
        _ => {}
    }
    let mut command = redis::Cmd::new();
    sent.iter().for_each(|arg| {
        command.arg(&arg[..]);
    });
    forward.extend_from_slice(&command.get_packed_command());
    relay.owed.push_back(owed);
}

/// The proxy's own answers at the front of what is owed (nothing of the server's before
/// them).
fn due_answers(relay: &mut Relay) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(Owed::Proxy(_)) = relay.owed.front() {
        if let Some(Owed::Proxy(error)) = relay.owed.pop_front() {
            out.extend_from_slice(format!("-{error}\r\n").as_bytes());
        }
    }
    out
}

/// The whole replies of `input` in the order owed, the proxy's answers among them.
/// `None`: the server sent what is not a reply, or a reply nobody asked for.
fn take_replies(relay: &mut Relay, input: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut out = due_answers(relay);
    while let Some(length) = reply_length(input)? {
        let reply: Vec<u8> = input.drain(..length).collect();
        match relay.owed.pop_front()? {
            Owed::Server => out.extend_from_slice(&reply),
            Owed::ServerAs(error) => out.extend_from_slice(format!("-{error}\r\n").as_bytes()),
            Owed::Proxy(_) => unreachable!("answered before the server's reply"),
        }
        out.extend_from_slice(&due_answers(relay));
    }
    Some(out)
}

/// The length of the first whole reply of `input` (`Some(None)`: incomplete; `None`: not a
/// reply). RESP2 first (its null bulk `$-1` is no RESP3), then RESP3 (after `HELLO 3`).
fn reply_length(input: &[u8]) -> Option<Option<usize>> {
    if let Ok(found) = redis_protocol::resp2::decode::decode(input) {
        return Some(found.map(|(_, length)| length));
    }
    redis_protocol::resp3::decode::complete::decode(input)
        .ok()
        .map(|found| found.map(|(_, length)| length))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requests(relay: &mut Relay, pending: &PendingError, wire: &[u8]) -> (Vec<u8>, Vec<u8>) {
        take_requests(relay, &mut BytesMut::from(wire), pending).expect("whole requests")
    }

    #[test]
    fn the_next_data_command_is_answered_in_place_and_kept_from_the_server() {
        let (mut relay, pending) = (Relay::default(), PendingError::default());
        pending.set("OOM command not allowed");
        let (forward, answers) = requests(&mut relay, &pending, b"PING\r\nGET k\r\nGET j\r\n");
        assert_eq!(
            forward,
            b"*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nj\r\n"
        );
        assert!(answers.is_empty(), "PING's reply comes first");
        let mut replies = b"+PONG\r\n$-1\r\n".to_vec();
        let out = take_replies(&mut relay, &mut replies).expect("replies");
        assert_eq!(out, b"+PONG\r\n-OOM command not allowed\r\n$-1\r\n");
        assert!(relay.owed.is_empty() && replies.is_empty());
    }

    #[test]
    fn a_rejected_queued_command_aborts_the_transaction() {
        let (mut relay, pending) = (Relay::default(), PendingError::default());
        pending.set("LOADING Redis is loading");
        let wire = b"MULTI\r\nSET k v\r\nSET j v\r\nEXEC\r\n";
        let (forward, answers) = requests(&mut relay, &pending, wire);
        let sent = String::from_utf8_lossy(&forward).to_string();
        assert!(
            sent.ends_with("*1\r\n$7\r\nDISCARD\r\n") && !sent.contains("$1\r\nk\r\n"),
            "{sent}"
        );
        assert!(answers.is_empty());
        let mut replies = b"+OK\r\n+QUEUED\r\n+OK\r\n".to_vec();
        let out = take_replies(&mut relay, &mut replies).expect("replies");
        let expected = format!("+OK\r\n-LOADING Redis is loading\r\n+QUEUED\r\n-{EXECABORT}\r\n");
        assert_eq!(String::from_utf8_lossy(&out), expected);
    }

    #[test]
    fn without_a_pending_error_everything_passes_and_a_stray_reply_closes() {
        let (mut relay, pending) = (Relay::default(), PendingError::default());
        let (forward, _) = requests(&mut relay, &pending, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
        assert_eq!(forward, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
        let mut replies = b"$1\r\nv\r\n+OK\r\n".to_vec();
        assert_eq!(
            take_replies(&mut relay, &mut replies),
            None,
            "a reply nobody asked for"
        );
    }
}
