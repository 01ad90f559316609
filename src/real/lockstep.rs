//! Lockstep: the commands the model executed for a plan, replayed in the same order on a
//! real server, one real connection per model connection, each reply compared byte for
//! byte with the model's.
//!
//! Reality is replayed without its clock being controlled, so the plan is first made
//! time-proof ([`lockstep_plan`]): the world starts at the real time (absolute expiry
//! times mean the same on both sides), sessions live a day (nothing expires within a run,
//! on virtual time or real), an `everysec` log becomes `always` (the model's fsync
//! instant has no real counterpart) and injected error replies are dropped (a real server
//! cannot be told to answer one). Replies that read the clock or the process (`TIME`,
//! `INFO`) are sent but not compared. A reply that differs only in order where the real
//! server's order follows a hash table (`SMEMBERS`, `SINTER`, `SUNION`, `SDIFF`, `KEYS`;
//! `HGETALL`, `HKEYS`, `HVALS` of a hash past its listpack limits; also inside an
//! `EXEC`) is compared as a set (of field-value pairs for `HGETALL`): the table's hash
//! seed is random per process, so no model can match that order; such replies are
//! counted apart. Every other reply is compared byte for byte. A restart of the model is a
//! kill and start of the real server, whose connections start anew.

use crate::domain::Persistence;
use crate::engine::event::run_with;
use crate::model::{Journaled, Protocol, JOURNAL_ENTRIES_MAX};
use crate::plan::{FaultKind, Plan};
use crate::real::server::{Provider, RealError, Server};
use crate::runner::store::Store;
use crate::world::assemble::WorldOptions;
use redis_protocol::resp2::types::{OwnedFrame, Resp2Frame};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Session TTL of a lockstep plan: longer than any run, so nothing expires in one.
const LOCKSTEP_TTL_MS: u64 = 24 * 60 * 60 * 1_000;
/// How long the real server may take to answer one replayed command.
const REPLY_MS_MAX: u64 = 5_000;
/// Mismatches a report keeps (the count goes on); see [`Lockstep::mismatched`].
const MISMATCHES_KEPT_MAX: usize = 16;
/// Commands whose replies read the clock or the process, not the keyspace.
const UNCOMPARED: [&[u8]; 2] = [b"TIME", b"INFO"];
/// Commands whose replies may be in an order of the server's hash table.
const UNORDERED: [&[u8]; 8] = [
    b"SMEMBERS",
    b"SINTER",
    b"SUNION",
    b"SDIFF",
    b"KEYS",
    b"HGETALL",
    b"HKEYS",
    b"HVALS",
];

/// What a lockstep replay found.
#[derive(Clone, Debug, Default)]
pub struct Lockstep {
    /// Commands replayed.
    pub commands: usize,
    /// Of them, replies compared byte for byte.
    pub compared: usize,
    /// Of the compared, replies compared as sets (their order is the server's own).
    pub compared_as_sets: usize,
    /// Replies that differed (the first 16 are kept in `mismatches`).
    pub mismatched: usize,
    /// Restarts replayed as a kill and start of the real server.
    pub restarts: usize,
    /// Model connections replayed.
    pub connections: usize,
    /// The first mismatches.
    pub mismatches: Vec<Mismatch>,
}

impl Lockstep {
    /// Every compared reply was identical.
    pub fn agrees(&self) -> bool {
        self.mismatched == 0
    }
}

/// One reply that differed.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Position of the command in the model's journal.
    pub index: usize,
    /// The command, escaped.
    pub command: String,
    /// The model's reply bytes, escaped.
    pub model: String,
    /// The real server's reply bytes, escaped (or why none came).
    pub real: String,
}

/// `plan` made time-proof for a replay without clock control (see the module docs).
pub fn lockstep_plan(mut plan: Plan) -> Plan {
    plan.session_ttl_ms = LOCKSTEP_TTL_MS;
    if plan.persistence == Persistence::AofEverysec {
        plan.persistence = Persistence::AofAlways;
    }
    plan.faults
        .retain(|fault| !matches!(fault.kind, FaultKind::ErrorReply { .. }));
    plan
}

/// Run [`lockstep_plan`] of `plan` in the simulator with `store`, keeping the model's
/// journal, and replay the journal on a real server of `provider`.
pub fn lockstep(plan: Plan, store: &Store, provider: &Provider) -> Result<Lockstep, RealError> {
    let plan = Arc::new(lockstep_plan(plan));
    let options = WorldOptions {
        epoch_unix_ms: Some(crate::real::run::unix_now_ms()),
        journal: true,
        // The journal replays on a real server: the model answers as the 7.0 it is
        // compared with.
        client_commands_7_2: false,
    };
    let (_, journal) = run_with(plan.clone(), store.factory(), &options);
    if journal.len() >= JOURNAL_ENTRIES_MAX {
        return Err(RealError::Server(format!(
            "the model's journal is full ({JOURNAL_ENTRIES_MAX} entries): the plan is too long to replay"
        )));
    }
    if let Some(Journaled::Blocked { conn }) = journal
        .iter()
        .find(|entry| matches!(entry, Journaled::Blocked { .. }))
    {
        return Err(RealError::Server(format!(
            "connection {conn} ran a blocking command: its reply came out of order, which a \
             replay in order cannot reproduce"
        )));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RealError::Environment(format!("cannot build a tokio runtime: {e}")))?;
    runtime.block_on(async {
        let server: Arc<dyn Server> = provider
            .start(crate::contract::Backend::Redis, plan.persistence)
            .await?
            .into();
        let replayed = replay(&journal, server.as_ref()).await;
        server.remove().await;
        replayed
    })
}

/// A real connection standing for one model connection, with what it read ahead.
struct RealConnection {
    stream: TcpStream,
    input: Vec<u8>,
    /// The names of the commands queued since `MULTI`, for reading `EXEC`'s reply.
    queued: Option<Vec<bytes::Bytes>>,
}

/// The names of the commands whose replies `reply_of` is: the command itself, or for an
/// `EXEC`, the commands it ran. Keeps `connection`'s transaction state in step.
fn reply_names(connection: &mut RealConnection, name: &bytes::Bytes) -> Vec<bytes::Bytes> {
    let upper = name.to_ascii_uppercase();
    match upper.as_slice() {
        b"MULTI" => connection.queued = Some(Vec::new()),
        b"EXEC" => return connection.queued.take().unwrap_or_default(),
        b"DISCARD" => connection.queued = None,
        _ => {
            if let Some(queued) = &mut connection.queued {
                queued.push(name.clone());
            }
        }
    }
    vec![name.clone()]
}

async fn replay(journal: &[Journaled], server: &dyn Server) -> Result<Lockstep, RealError> {
    let mut report = Lockstep::default();
    let mut connections: BTreeMap<u64, RealConnection> = BTreeMap::new();
    for (index, entry) in journal.iter().enumerate() {
        match entry {
            Journaled::Restart => {
                connections.clear();
                server.kill().await?;
                server.start_again().await?;
                crate::real::server::wait_ready(server, crate::contract::Backend::Redis).await?;
                report.restarts += 1;
            }
            Journaled::Blocked { .. } => unreachable!("refused before the replay"),
            Journaled::Command {
                conn,
                args,
                reply,
                protocol,
            } => {
                if !connections.contains_key(conn) {
                    let stream = open(server).await?;
                    let connection = RealConnection {
                        stream,
                        input: Vec::new(),
                        queued: None,
                    };
                    connections.insert(*conn, connection);
                    report.connections += 1;
                }
                let connection = connections.get_mut(conn).expect("inserted above");
                let real = exchange(connection, args, *protocol).await;
                let names = reply_names(connection, &args[0]);
                report.commands += 1;
                if is_one_of(&args[0], &UNCOMPARED) {
                    continue;
                }
                report.compared += 1;
                let same = match &real {
                    Ok(real) if real == reply => true,
                    Ok(real) if names.iter().any(|name| is_one_of(name, &UNORDERED)) => {
                        report.compared_as_sets += 1;
                        same_as_sets(reply, real, &names, *protocol)
                    }
                    _ => false,
                };
                if !same {
                    report.mismatched += 1;
                    if report.mismatches.len() < MISMATCHES_KEPT_MAX {
                        report.mismatches.push(Mismatch {
                            index,
                            command: escape_command(args),
                            model: reply.escape_ascii().to_string(),
                            real: real
                                .map_or_else(|why| why, |bytes| bytes.escape_ascii().to_string()),
                        });
                    }
                }
            }
        }
    }
    Ok(report)
}

async fn open(server: &dyn Server) -> Result<TcpStream, RealError> {
    let address = server.address().await?;
    let stream = TcpStream::connect(address)
        .await
        .map_err(|e| RealError::Server(format!("cannot connect to {address}: {e}")))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// Send `args` on `connection` and read one whole reply frame; `Err` says why none came.
async fn exchange(
    connection: &mut RealConnection,
    args: &[bytes::Bytes],
    protocol: Protocol,
) -> Result<Vec<u8>, String> {
    let mut command = redis::Cmd::new();
    args.iter().for_each(|arg| {
        command.arg(&arg[..]);
    });
    connection
        .stream
        .write_all(&command.get_packed_command())
        .await
        .map_err(|e| format!("write failed: {e}"))?;
    let read = async {
        loop {
            if let Some(length) = frame_length(&connection.input, protocol)? {
                return Ok(connection.input.drain(..length).collect());
            }
            let mut chunk = [0u8; 16 * 1024];
            match connection.stream.read(&mut chunk).await {
                Ok(0) => return Err("the server closed the connection".to_string()),
                Ok(read) => connection.input.extend_from_slice(&chunk[..read]),
                Err(e) => return Err(format!("read failed: {e}")),
            }
        }
    };
    tokio::time::timeout(Duration::from_millis(REPLY_MS_MAX), read)
        .await
        .map_err(|_| format!("no reply within {REPLY_MS_MAX} ms"))?
}

/// The length of the first whole frame of `input`, if there is one.
fn frame_length(input: &[u8], protocol: Protocol) -> Result<Option<usize>, String> {
    let decoded = match protocol {
        Protocol::Resp2 => redis_protocol::resp2::decode::decode(input).map(|f| f.map(|(_, n)| n)),
        Protocol::Resp3 => {
            redis_protocol::resp3::decode::complete::decode(input).map(|f| f.map(|(_, n)| n))
        }
    };
    decoded.map_err(|e| format!("not a reply: {e}"))
}

fn is_one_of(name: &[u8], names: &[&[u8]]) -> bool {
    names.iter().any(|one| name.eq_ignore_ascii_case(one))
}

/// Equal once every reply of an [`UNORDERED`] command in them is sorted: `names` are the
/// commands the reply answers (one, or an `EXEC`'s).
fn same_as_sets(model: &[u8], real: &[u8], names: &[bytes::Bytes], protocol: Protocol) -> bool {
    if protocol != Protocol::Resp2 {
        return false;
    }
    let decode = |bytes: &[u8]| match redis_protocol::resp2::decode::decode(bytes) {
        Ok(Some((frame, _))) => Some(frame),
        _ => None,
    };
    let (Some(model), Some(real)) = (decode(model), decode(real)) else {
        return false;
    };
    sorted_sets(model, names) == sorted_sets(real, names)
}

fn sorted_sets(frame: OwnedFrame, names: &[bytes::Bytes]) -> OwnedFrame {
    match (frame, names) {
        (frame, [name]) => sorted_if_set(frame, name),
        (OwnedFrame::Array(replies), names) if replies.len() == names.len() => OwnedFrame::Array(
            replies
                .into_iter()
                .zip(names)
                .map(|(reply, name)| sorted_if_set(reply, name))
                .collect(),
        ),
        (frame, _) => frame,
    }
}

fn sorted_if_set(frame: OwnedFrame, name: &[u8]) -> OwnedFrame {
    match frame {
        OwnedFrame::Array(members) if name.eq_ignore_ascii_case(b"HGETALL") => {
            let mut pairs: Vec<Vec<OwnedFrame>> =
                members.chunks(2).map(<[OwnedFrame]>::to_vec).collect();
            pairs.sort_by_key(|pair| pair.iter().flat_map(encoded).collect::<Vec<u8>>());
            OwnedFrame::Array(pairs.into_iter().flatten().collect())
        }
        OwnedFrame::Array(mut members) if is_one_of(name, &UNORDERED) => {
            members.sort_by_key(encoded);
            OwnedFrame::Array(members)
        }
        frame => frame,
    }
}

/// A frame's wire bytes: a total order for sorting members.
fn encoded(frame: &OwnedFrame) -> Vec<u8> {
    let mut bytes = vec![0; frame.encode_len(false)];
    let _ = redis_protocol::resp2::encode::encode(&mut bytes, frame, false);
    bytes
}

fn escape_command(args: &[bytes::Bytes]) -> String {
    let shown: Vec<String> = args
        .iter()
        .map(|arg| arg.escape_ascii().to_string())
        .collect();
    shown.join(" ")
}
