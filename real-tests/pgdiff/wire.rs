//! A minimal PostgreSQL wire-protocol client (protocol 3.0, trust authentication): the
//! simple query protocol with each reply's command tag, column type OIDs and transaction
//! status kept exactly as the server sent them (tokio-postgres drops the tag and the
//! OIDs), and the extended protocol in the messages tokio-postgres's `query` sends: a
//! named statement prepared and described, bound with binary parameters, executed with
//! binary results, and closed.

use super::outcome::{Outcome, Reply};
use super::types::{decode_binary, encode_param, Param};
use bytes::{Buf, BufMut, BytesMut};
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// OIDs below this are PostgreSQL's own (`FirstNormalObjectId`); an extension's are past it.
const FIRST_EXTENSION_OID: u32 = 16_384;

/// One connection to a server.
pub struct Wire {
    stream: TcpStream,
    inbox: BytesMut,
    /// Statements prepared so far, to name the next (`s1`, `s2`, …).
    statements: u32,
}

/// One backend message: its type byte and body.
struct Message {
    kind: u8,
    body: BytesMut,
}

/// The result set or error a statement is building while its messages arrive.
#[derive(Default)]
struct Building {
    columns: Vec<(String, u32)>,
    rows: Vec<Vec<Option<String>>>,
    tags: Vec<String>,
    error: Option<(String, String)>,
    /// The parameter types of a ParameterDescription.
    param_types: Vec<u32>,
    binary: bool,
}

impl Wire {
    /// Connect to `address` as `user` on `database` and wait for the first ReadyForQuery.
    pub async fn connect(address: SocketAddr, user: &str, database: &str) -> Result<Wire, String> {
        let stream = TcpStream::connect(address)
            .await
            .map_err(|e| format!("connect {address}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut wire = Wire {
            stream,
            inbox: BytesMut::new(),
            statements: 0,
        };
        let mut body = BytesMut::new();
        body.put_i32(0x0003_0000);
        for (key, value) in [("user", user), ("database", database)] {
            put_cstr(&mut body, key);
            put_cstr(&mut body, value);
        }
        body.put_u8(0);
        let mut out = BytesMut::new();
        out.put_i32(body.len() as i32 + 4);
        out.extend_from_slice(&body);
        wire.send(&out).await?;
        let reply = wire.read_reply().await?;
        match reply.outcome {
            Outcome::Error { sqlstate, message } => Err(format!("startup: {sqlstate} {message}")),
            _ => Ok(wire),
        }
    }

    /// Run `sql` with the simple query protocol.
    pub async fn simple(&mut self, sql: &str) -> Result<Reply, String> {
        let mut out = BytesMut::new();
        put_message(&mut out, b'Q', |b| put_cstr(b, sql));
        self.send(&out).await?;
        self.read_reply().await
    }

    /// Run `sql` as tokio-postgres's `query` does: prepare a named statement (Parse with
    /// no parameter types, Describe, Sync), check the types the server inferred against
    /// the parameters' (tokio-postgres refuses a mismatch before binding), bind and
    /// execute it (parameters and results in binary, Sync), then close it (Close, Sync).
    /// With `declared`, Parse names the parameters' types, as sqlx's does.
    pub async fn extended(
        &mut self,
        sql: &str,
        params: &[Param],
        declared: bool,
    ) -> Result<Reply, String> {
        self.statements += 1;
        let name = format!("s{}", self.statements);
        let mut out = BytesMut::new();
        put_message(&mut out, b'P', |b| {
            put_cstr(b, &name);
            put_cstr(b, sql);
            let types: &[Param] = if declared { params } else { &[] };
            b.put_i16(types.len() as i16);
            for param in types {
                b.put_u32(param.oid);
            }
        });
        put_message(&mut out, b'D', |b| {
            b.put_u8(b'S');
            put_cstr(b, &name);
        });
        put_message(&mut out, b'S', |_| {});
        self.send(&out).await?;
        let (prepared, tx) = self.read_building(Building::binary()).await?;
        if prepared.error.is_some() {
            return Ok(prepared.finish(tx));
        }
        let declared: Vec<u32> = params.iter().map(|param| param.oid).collect();
        // A declared 0 (`vector[]`) is an extension's type, whose OID each database
        // assigns (the client looks it up by name): any OID past the built-in ones.
        let agree = prepared.param_types.len() == declared.len()
            && prepared.param_types.iter().zip(&declared).all(
                |(inferred, declared)| match declared {
                    0 => *inferred >= FIRST_EXTENSION_OID,
                    _ => inferred == declared,
                },
            );
        let reply = if agree {
            self.execute(&name, params, prepared.columns).await?
        } else {
            let sqlstate = format!("client: the server infers {:?}", prepared.param_types);
            let message = format!("the case binds {declared:?}");
            let outcome = Outcome::Error { sqlstate, message };
            Reply {
                outcome,
                tx: Some(tx),
            }
        };
        self.close(&name).await?;
        Ok(reply)
    }

    /// Bind the prepared statement `name` to the unnamed portal and execute it.
    async fn execute(
        &mut self,
        name: &str,
        params: &[Param],
        columns: Vec<(String, u32)>,
    ) -> Result<Reply, String> {
        let mut out = BytesMut::new();
        put_message(&mut out, b'B', |b| put_bind(b, name, params));
        put_message(&mut out, b'E', |b| {
            put_cstr(b, "");
            b.put_i32(0);
        });
        put_message(&mut out, b'S', |_| {});
        self.send(&out).await?;
        let building = Building {
            columns,
            ..Building::binary()
        };
        let (executed, tx) = self.read_building(building).await?;
        Ok(executed.finish(tx))
    }

    /// Close the prepared statement `name`.
    async fn close(&mut self, name: &str) -> Result<(), String> {
        let mut out = BytesMut::new();
        put_message(&mut out, b'C', |b| {
            b.put_u8(b'S');
            put_cstr(b, name);
        });
        put_message(&mut out, b'S', |_| {});
        self.send(&out).await?;
        self.read_building(Building::binary()).await.map(|_| ())
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|e| format!("send: {e}"))
    }

    /// Read messages up to ReadyForQuery and make them one reply.
    async fn read_reply(&mut self) -> Result<Reply, String> {
        let (building, tx) = self.read_building(Building::default()).await?;
        Ok(building.finish(tx))
    }

    /// Read messages into `building` up to ReadyForQuery; return it and the status.
    async fn read_building(&mut self, mut building: Building) -> Result<(Building, char), String> {
        loop {
            let message = self.read_message().await?;
            if message.kind == b'Z' {
                let tx = message.body.first().copied().unwrap_or(b'?') as char;
                return Ok((building, tx));
            }
            building.take(message)?;
        }
    }

    async fn read_message(&mut self) -> Result<Message, String> {
        loop {
            if self.inbox.len() >= 5 {
                let length = i32::from_be_bytes(self.inbox[1..5].try_into().unwrap()) as usize;
                if self.inbox.len() > length {
                    let mut frame = self.inbox.split_to(length + 1);
                    let kind = frame.get_u8();
                    frame.advance(4);
                    return Ok(Message { kind, body: frame });
                }
            }
            let read = self
                .stream
                .read_buf(&mut self.inbox)
                .await
                .map_err(|e| format!("receive: {e}"))?;
            if read == 0 {
                return Err("the server closed the connection".into());
            }
        }
    }
}

impl Building {
    /// For the extended protocol's replies: values in binary.
    fn binary() -> Building {
        Building {
            binary: true,
            ..Building::default()
        }
    }

    /// Take one message other than ReadyForQuery.
    fn take(&mut self, mut message: Message) -> Result<(), String> {
        let body = &mut message.body;
        match message.kind {
            b'R' if body.len() < 4 || body.get_i32() != 0 => {
                return Err("the server asks for a password (trust expected)".into());
            }
            b'T' => self.columns = row_description(body)?,
            b't' => self.param_types = parameter_description(body)?,
            b'D' => self.rows.push(self.data_row(body)?),
            b'C' => self.tags.push(get_cstr(body)?),
            b'I' => self.tags.push(String::new()),
            b'E' => self.error = Some(error_fields(body)?),
            // Authentication ok, parameter status, key data, notices, parse/bind complete,
            // no data, parameter description: nothing to compare.
            _ => {}
        }
        Ok(())
    }

    fn data_row(&self, body: &mut BytesMut) -> Result<Vec<Option<String>>, String> {
        need(body, 2)?;
        let count = body.get_i16();
        let mut row = Vec::with_capacity(count as usize);
        for index in 0..count as usize {
            need(body, 4)?;
            let length = body.get_i32();
            if length < 0 {
                row.push(None);
                continue;
            }
            need(body, length as usize)?;
            let value = body.split_to(length as usize);
            row.push(Some(if self.binary {
                let oid = self.columns.get(index).map_or(0, |c| c.1);
                decode_binary(oid, &value)
            } else {
                String::from_utf8_lossy(&value).into_owned()
            }));
        }
        Ok(row)
    }

    fn finish(self, tx: char) -> Reply {
        let outcome = match self.error {
            Some((sqlstate, message)) => Outcome::Error { sqlstate, message },
            None => Outcome::Rows {
                columns: self.columns,
                rows: self.rows,
                tag: self.tags.join("; "),
            },
        };
        Reply {
            outcome,
            tx: Some(tx),
        }
    }
}

fn row_description(body: &mut BytesMut) -> Result<Vec<(String, u32)>, String> {
    need(body, 2)?;
    let count = body.get_i16();
    let mut columns = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let name = get_cstr(body)?;
        need(body, 18)?;
        // table oid (4), column number (2), type oid (4), size (2), modifier (4), format (2)
        body.advance(6);
        let oid = body.get_u32();
        body.advance(8);
        columns.push((name, oid));
    }
    Ok(columns)
}

/// The SQLSTATE (field `C`) and message (field `M`) of an ErrorResponse.
fn error_fields(body: &mut BytesMut) -> Result<(String, String), String> {
    let (mut sqlstate, mut message) = (String::new(), String::new());
    while body.has_remaining() {
        let field = body.get_u8();
        if field == 0 {
            break;
        }
        let value = get_cstr(body)?;
        match field {
            b'C' => sqlstate = value,
            b'M' => message = value,
            _ => {}
        }
    }
    Ok((sqlstate, message))
}

fn parameter_description(body: &mut BytesMut) -> Result<Vec<u32>, String> {
    need(body, 2)?;
    let count = body.get_i16().max(0) as usize;
    need(body, 4 * count)?;
    Ok((0..count).map(|_| body.get_u32()).collect())
}

fn put_bind(b: &mut BytesMut, statement: &str, params: &[Param]) {
    put_cstr(b, "");
    put_cstr(b, statement);
    b.put_i16(1);
    b.put_i16(1);
    b.put_i16(params.len() as i16);
    for param in params {
        match encode_param(param) {
            Some(bytes) => {
                b.put_i32(bytes.len() as i32);
                b.extend_from_slice(&bytes);
            }
            None => b.put_i32(-1),
        }
    }
    b.put_i16(1);
    b.put_i16(1);
}

fn put_message(out: &mut BytesMut, kind: u8, body: impl FnOnce(&mut BytesMut)) {
    let mut inner = BytesMut::new();
    body(&mut inner);
    out.put_u8(kind);
    out.put_i32(inner.len() as i32 + 4);
    out.extend_from_slice(&inner);
}

fn put_cstr(b: &mut BytesMut, text: &str) {
    b.extend_from_slice(text.as_bytes());
    b.put_u8(0);
}

fn get_cstr(body: &mut BytesMut) -> Result<String, String> {
    let end = body
        .iter()
        .position(|&byte| byte == 0)
        .ok_or("a string without its terminating zero")?;
    let text = String::from_utf8_lossy(&body[..end]).into_owned();
    body.advance(end + 1);
    Ok(text)
}

/// A malformed message is the server's fault, reported rather than a panic.
fn need(body: &BytesMut, length: usize) -> Result<(), String> {
    if body.len() < length {
        return Err(format!(
            "a message cut short ({} of {length} bytes)",
            body.len()
        ));
    }
    Ok(())
}
