//! The PostgreSQL wire protocol, server side, over any byte stream: startup (an SSL
//! request answered `N`, trust authentication, the parameters clients read), the simple
//! query protocol, the extended one (named and unnamed statements and portals, text and
//! binary formats, errors skipping to `Sync`), `Terminate`, and a cancel request.
//! Messages are framed and encoded by `pgwire`; this file is the state machine.

use crate::pg::error::*;
use crate::pg::exec::context::{Outcome, Rows};
use crate::pg::server::{PgClock, PgModel};
use crate::pg::session::{Block, Session};
use crate::pg::types::binary;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use bytes::{BufMut, BytesMut};
use pgwire::messages::data::{
    DataRow, FieldDescription, NoData, ParameterDescription, RowDescription,
};
use pgwire::messages::extendedquery::{
    Bind, BindComplete, CloseComplete, Describe, Execute, Parse, ParseComplete,
};
use pgwire::messages::response::{
    CommandComplete, EmptyQueryResponse, ErrorResponse, NoticeResponse, ReadyForQuery,
    TransactionStatus,
};
use pgwire::messages::startup::{Authentication, BackendKeyData, ParameterStatus, SecretKey};
use pgwire::messages::{
    DecodeContext, PgWireBackendMessage, PgWireFrontendMessage, ProtocolVersion,
    SslNegotiationMetaMessage,
};
use sqlparser::ast::Statement;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Prepared statements and portals one connection may hold.
const PREPARED_MAX: usize = 1_024;
/// Bytes one message may have before the connection is refused (PostgreSQL's is 1 GB).
const MESSAGE_BYTES_MAX: usize = 16 << 20;
/// Output held before it is sent without waiting for `Sync` or `Flush`: PostgreSQL's
/// send buffer (`PQ_SEND_BUFFER_SIZE`), written out whenever it fills, so a client that
/// sends Bind/Execute again and again without Sync is answered as it goes (and, when it
/// reads nothing, the server waits on the socket rather than growing without bound).
const OUTPUT_BUFFER_BYTES: usize = 8 << 10;
/// Room a connection's input or output buffer keeps once empty; more is freed.
const BUFFER_KEPT_BYTES: usize = 1 << 20;

/// A parsed, described statement.
#[derive(Clone)]
struct Prepared {
    statement: Option<Arc<Statement>>,
    params: Vec<Type>,
    columns: Option<Vec<(String, Type)>>,
}

#[derive(Clone)]
struct Portal {
    prepared: Prepared,
    params: Vec<Typed>,
    formats: Vec<i16>,
}

/// One connection: the model, its session, its prepared statements and portals.
struct Connection {
    model: PgModel,
    session: Session,
    statements: BTreeMap<String, Prepared>,
    portals: BTreeMap<String, Portal>,
    out: BytesMut,
    /// After an error in the extended protocol, messages are skipped until `Sync`.
    skipping: bool,
}

/// Serve one client connection until it terminates or the stream ends; `owner`: the
/// world's client it serves, whose backends a fault may terminate.
pub(crate) async fn serve<S: AsyncRead + AsyncWrite + Unpin + Send>(
    model: PgModel,
    mut stream: S,
    owner: Option<u32>,
) {
    let mut input = BytesMut::new();
    let Some((backend, settings)) = startup(&model, &mut stream, &mut input).await else {
        return;
    };
    let signal = owner.map(|owner| model.own(backend, owner));
    let mut connection = Connection::new(model, backend);
    connection.session.settings = settings;
    let mut context = DecodeContext::new(ProtocolVersion::PROTOCOL3_0);
    (
        context.awaiting_frontend_ssl,
        context.awaiting_frontend_startup,
    ) = (false, false);
    // Whether the last reply ended with ReadyForQuery: the client's turn.
    let mut ready_sent = true;
    loop {
        let idle_ms = match (ready_sent, connection.session.status()) {
            (true, b'T' | b'E') => connection
                .session
                .settings
                .duration_ms("idle_in_transaction_session_timeout"),
            _ => 0,
        };
        let read = terminable(
            read_checked(&mut stream, &mut input, &context),
            signal.clone(),
        );
        let message = match idle_ms {
            0 => read.await,
            // PostgreSQL ends a session left idle in a transaction that long (in the
            // engine's time: virtual in a simulation), its locks released.
            ms => match tokio::time::timeout(std::time::Duration::from_millis(ms), read).await {
                Ok(message) => message,
                Err(_) => Some(Inbound::Fatal(
                    IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
                    "terminating connection due to idle-in-transaction timeout",
                )),
            },
        };
        let message = match message {
            None => break,
            Some(Inbound::Fatal(code, text)) => {
                let mut error = PgError::new(code, text);
                error.fatal = true;
                connection.error(error);
                let _ = stream.write_all(&connection.out.split()).await;
                break;
            }
            Some(Inbound::Message(message)) => message,
            Some(Inbound::Refused(kind, error)) => {
                ready_sent = connection.refused(kind, error);
                if ready_sent && stream.write_all(&connection.out.split()).await.is_err() {
                    break;
                }
                continue;
            }
        };
        if matches!(message, PgWireFrontendMessage::Terminate(_)) {
            break;
        }
        let flush = connection.handle(message).await;
        ready_sent = flush;
        let full = connection.out.len() >= OUTPUT_BUFFER_BYTES;
        if (flush || full) && stream.write_all(&connection.out.split()).await.is_err() {
            break;
        }
        // A large result or message leaves its buffer's room behind: given back.
        if connection.out.is_empty() && connection.out.capacity() > BUFFER_KEPT_BYTES {
            connection.out = BytesMut::new();
        }
        if input.is_empty() && input.capacity() > BUFFER_KEPT_BYTES {
            input = BytesMut::new();
        }
    }
    connection.model.close_session(&mut connection.session);
    connection.model.disown(backend);
}

/// `read`, unless the backend is terminated first (checked before each message, so a
/// statement under way ends first).
async fn terminable(
    read: impl std::future::Future<Output = Option<Inbound>>,
    signal: Option<Arc<tokio::sync::Notify>>,
) -> Option<Inbound> {
    let Some(signal) = signal else {
        return read.await;
    };
    tokio::select! {
        biased;
        () = signal.notified() => Some(Inbound::Fatal(
            ADMIN_SHUTDOWN,
            "terminating connection due to administrator command",
        )),
        inbound = read => inbound,
    }
}

/// A message read, or one refused for the text it carries.
enum Inbound {
    /// The session ends with this FATAL error (code, message), then closes: the backend
    /// was terminated (57P01), or sat idle in a transaction too long (25P03).
    Fatal(&'static str, &'static str),
    Message(PgWireFrontendMessage),
    /// A `Query` (`b'Q'`) or `Parse` (`b'P'`) whose text is not valid in the server
    /// encoding, with its error: never decoded (pgwire would replace the bytes).
    Refused(u8, PgError),
}

/// The next message, its text checked first (`refused_text`).
async fn read_checked<S: AsyncRead + Unpin>(
    stream: &mut S,
    input: &mut BytesMut,
    context: &DecodeContext,
) -> Option<Inbound> {
    loop {
        if let Some((kind, length, error)) = refused_text(input) {
            let _ = input.split_to(length);
            return Some(Inbound::Refused(kind, error));
        }
        let complete = input.len() >= 5
            && input.len() > i32::from_be_bytes(input[1..5].try_into().expect("4")) as usize;
        if complete || input.len() > MESSAGE_BYTES_MAX {
            return read_message(stream, input, context)
                .await
                .map(Inbound::Message);
        }
        match stream.read_buf(input).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// The message at the head of `input`, if complete and a `Query` or `Parse` whose text
/// PostgreSQL refuses: its kind, its length, the error (22021 for bytes invalid in UTF8;
/// 08P01 for a query string with a NUL inside, which ends it early).
fn refused_text(input: &[u8]) -> Option<(u8, usize, PgError)> {
    let (&kind, rest) = input.split_first()?;
    let length = i32::from_be_bytes(rest.get(..4)?.try_into().expect("4"));
    let length = 1 + usize::try_from(length).ok().filter(|l| *l >= 4)?;
    let body = input.get(5..length)?;
    let error = match kind {
        b'Q' => {
            let text = body.strip_suffix(b"\0")?;
            match text.contains(&0) {
                true => PgError::new(PROTOCOL_VIOLATION, "invalid message format"),
                false => crate::pg::types::encoding::verify(text).err()?,
            }
        }
        b'P' => {
            let mut strings = body.splitn(3, |b| *b == 0);
            let (name, query) = (strings.next()?, strings.next()?);
            let verify = crate::pg::types::encoding::verify;
            verify(name).and(verify(query)).err()?
        }
        _ => return None,
    };
    Some((kind, length, error))
}

async fn read_message<S: AsyncRead + Unpin>(
    stream: &mut S,
    input: &mut BytesMut,
    context: &DecodeContext,
) -> Option<PgWireFrontendMessage> {
    loop {
        match PgWireFrontendMessage::decode(input, context) {
            Ok(Some(message)) => return Some(message),
            Ok(None) => {}
            Err(_) => return None,
        }
        if input.len() > MESSAGE_BYTES_MAX {
            return None;
        }
        match stream.read_buf(input).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// The run-time settings a startup packet may set (as a parameter of its own, or `-c
/// name=value` in `options`) that change how the model runs statements: a client that
/// asks for SERIALIZABLE there is refused, never run at another level. Others are
/// ignored, as before.
const STARTUP_SETTINGS: [&str; 5] = [
    "default_transaction_isolation",
    "lock_timeout",
    "statement_timeout",
    "idle_in_transaction_session_timeout",
    "deadlock_timeout",
];

/// The session's settings from the startup packet's `parameters`.
fn startup_settings(
    parameters: &BTreeMap<String, String>,
) -> PgResult<crate::pg::settings::Settings> {
    let mut named: Vec<(String, String)> = parameters
        .iter()
        .map(|(name, value)| (name.to_lowercase(), value.clone()))
        .collect();
    let options = parameters.get("options").map_or("", String::as_str);
    let mut words = options.split_whitespace();
    while let Some(word) = words.next() {
        let assignment = match word {
            "-c" => words.next().unwrap_or(""),
            word => word
                .strip_prefix("-c")
                .or_else(|| word.strip_prefix("--"))
                .unwrap_or(""),
        };
        if let Some((name, value)) = assignment.split_once('=') {
            named.push((name.replace('-', "_").to_lowercase(), value.to_string()));
        }
    }
    let mut settings = crate::pg::settings::Settings::default();
    for (name, value) in named {
        if STARTUP_SETTINGS.contains(&name.as_str()) {
            settings.set(&name, value, false)?;
        }
    }
    Ok(settings)
}

/// The startup exchange; the backend id of the new session and its settings, or `None`
/// if the connection ends (a cancel request, a bad packet, a closed stream, a setting
/// refused).
async fn startup<S: AsyncRead + AsyncWrite + Unpin>(
    model: &PgModel,
    stream: &mut S,
    input: &mut BytesMut,
) -> Option<(u32, crate::pg::settings::Settings)> {
    let mut context = DecodeContext::new(ProtocolVersion::PROTOCOL3_0);
    let settings = loop {
        match read_message(stream, input, &context).await? {
            PgWireFrontendMessage::SslNegotiation(SslNegotiationMetaMessage::None) => {
                context.awaiting_frontend_ssl = false
            }
            PgWireFrontendMessage::SslNegotiation(_) => {
                stream.write_all(b"N").await.ok()?;
            }
            PgWireFrontendMessage::CancelRequest(cancel) => {
                let secret_key = match &cancel.secret_key {
                    SecretKey::I32(key) => Some(*key),
                    SecretKey::Bytes(bytes) => bytes[..].try_into().ok().map(i32::from_be_bytes),
                };
                if let Some(secret_key) = secret_key {
                    model.cancel(cancel.pid as u32, secret_key);
                }
                return None;
            }
            PgWireFrontendMessage::Startup(startup) => break startup_settings(&startup.parameters),
            _ => return None,
        }
    };
    let settings = match settings.and_then(|settings| model.admit().map(|()| settings)) {
        Ok(settings) => settings,
        Err(mut error) => {
            error.fatal = true;
            let mut out = BytesMut::new();
            push(
                &mut out,
                PgWireBackendMessage::ErrorResponse(ErrorResponse::new(error.fields())),
            );
            let _ = stream.write_all(&out).await;
            return None;
        }
    };
    let backend = model.new_backend();
    let mut out = BytesMut::new();
    push(
        &mut out,
        PgWireBackendMessage::Authentication(Authentication::Ok),
    );
    for (name, value) in crate::pg::settings::STARTUP_PARAMETERS {
        push(
            &mut out,
            PgWireBackendMessage::ParameterStatus(ParameterStatus::new(
                name.to_string(),
                value.to_string(),
            )),
        );
    }
    push(
        &mut out,
        PgWireBackendMessage::BackendKeyData(BackendKeyData::new(
            backend as i32,
            SecretKey::I32(model.secret_key(backend)),
        )),
    );
    push(&mut out, ready(b'I'));
    stream.write_all(&out).await.ok()?;
    Some((backend, settings))
}

fn push(out: &mut BytesMut, message: PgWireBackendMessage) {
    message
        .encode(out)
        .expect("the model's messages are within pgwire's limits");
}

fn ready(status: u8) -> PgWireBackendMessage {
    let status = match status {
        b'T' => TransactionStatus::Transaction,
        b'E' => TransactionStatus::Error,
        _ => TransactionStatus::Idle,
    };
    PgWireBackendMessage::ReadyForQuery(ReadyForQuery::new(status))
}

impl Connection {
    /// Backend `backend`'s connection, before its first query.
    fn new(model: PgModel, backend: u32) -> Connection {
        let session = Session::new(backend, model.seed());
        Connection {
            model,
            session,
            statements: BTreeMap::new(),
            portals: BTreeMap::new(),
            out: BytesMut::new(),
            skipping: false,
        }
    }

    /// Handle one message; true when the output should be sent now.
    async fn handle(&mut self, message: PgWireFrontendMessage) -> bool {
        match message {
            PgWireFrontendMessage::Query(query) => {
                self.simple_query(&query.query).await;
                true
            }
            PgWireFrontendMessage::Sync(_) => {
                self.skipping = false;
                self.portals.remove("");
                push(&mut self.out, ready(self.session.status()));
                true
            }
            PgWireFrontendMessage::Flush(_) => true,
            _ if self.skipping => false,
            PgWireFrontendMessage::Parse(parse) => self.extended(|c| c.parse(parse)).await,
            PgWireFrontendMessage::Bind(bind) => self.extended(|c| c.bind(bind)).await,
            PgWireFrontendMessage::Describe(describe) => {
                self.extended(|c| c.describe(describe)).await
            }
            PgWireFrontendMessage::Close(close) => {
                let name = close.name.unwrap_or_default();
                match close.target_type {
                    b'S' => self.statements.remove(&name),
                    _ => self.portals.remove(&name).map(|p| p.prepared),
                };
                push(
                    &mut self.out,
                    PgWireBackendMessage::CloseComplete(CloseComplete::new()),
                );
                false
            }
            PgWireFrontendMessage::Execute(execute) => {
                if let Err(error) = self.execute(execute).await {
                    self.error(error);
                    self.skipping = true;
                }
                false
            }
            _ => {
                self.error(PgError::new(PROTOCOL_VIOLATION, "unexpected message"));
                self.skipping = true;
                true
            }
        }
    }

    /// A message refused for its text (`refused_text`): an error as any statement's, the
    /// transaction failed; a query is answered ready, a Parse skips to Sync. True when
    /// the output should be sent now.
    fn refused(&mut self, kind: u8, error: PgError) -> bool {
        if self.skipping && kind != b'Q' {
            return false;
        }
        self.error(error);
        self.model.fail_statement(&mut self.session);
        match kind {
            b'Q' => {
                push(&mut self.out, ready(self.session.status()));
                true
            }
            _ => {
                self.skipping = true;
                false
            }
        }
    }

    async fn extended(&mut self, step: impl FnOnce(&mut Self) -> PgResult<()>) -> bool {
        if let Err(error) = step(self) {
            self.error(error);
            self.skipping = true;
        }
        false
    }

    fn error(&mut self, error: PgError) {
        push(
            &mut self.out,
            PgWireBackendMessage::ErrorResponse(ErrorResponse::new(error.fields())),
        );
    }

    fn warning(&mut self, text: &str) {
        let fields = vec![
            (b'S', "WARNING".to_string()),
            (b'V', "WARNING".to_string()),
            (b'C', "25001".to_string()),
            (b'M', text.to_string()),
        ];
        push(
            &mut self.out,
            PgWireBackendMessage::NoticeResponse(NoticeResponse::new(fields)),
        );
    }

    /// The simple query protocol: every statement of the string in turn, in text.
    async fn simple_query(&mut self, sql: &str) {
        match self.model.parse(sql) {
            Err(error) => self.error(error),
            Ok(parsed) if parsed.statements.is_empty() => push(
                &mut self.out,
                PgWireBackendMessage::EmptyQueryResponse(EmptyQueryResponse::new()),
            ),
            Ok(parsed) => {
                for statement in parsed.statements.iter() {
                    match self.run(statement, &[]).await {
                        Ok(outcome) => self.outcome(outcome, None, true),
                        Err(error) => {
                            self.error(error);
                            break;
                        }
                    }
                }
            }
        }
        push(&mut self.out, ready(self.session.status()));
    }

    /// Run `statement`: DEALLOCATE here (the prepared statements are the connection's),
    /// any other in the model.
    async fn run(&mut self, statement: &Statement, params: &[Typed]) -> PgResult<Outcome> {
        let Statement::Deallocate { name, .. } = statement else {
            return self.model.run(&mut self.session, statement, params).await;
        };
        if self.session.block == Block::Failed {
            return Err(PgError::new(
                IN_FAILED_TRANSACTION,
                "current transaction is aborted, commands ignored until end of transaction block",
            ));
        }
        let deallocated = self.deallocate(name);
        if deallocated.is_err() {
            self.model.fail_statement(&mut self.session);
        }
        deallocated
    }

    /// `DEALLOCATE [PREPARE] name | ALL`: forget a named prepared statement, or all of
    /// them (the unnamed one is not among them, as in PostgreSQL).
    fn deallocate(&mut self, name: &sqlparser::ast::Ident) -> PgResult<Outcome> {
        // `ALL` is a keyword; `"ALL"` names a statement.
        if name.quote_style.is_none() && name.value.eq_ignore_ascii_case("all") {
            self.statements.retain(|name, _| name.is_empty());
            return Ok(Outcome::tag("DEALLOCATE ALL"));
        }
        let name = crate::pg::sql::names::ident(name);
        match self.statements.remove(&name) {
            Some(_) => Ok(Outcome::tag("DEALLOCATE")),
            None => Err(PgError::new(
                INVALID_PREPARED_STATEMENT,
                format!("prepared statement \"{name}\" does not exist"),
            )),
        }
    }

    /// A statement's rows (with their description when `describe`) and its tag.
    fn outcome(&mut self, outcome: Outcome, formats: Option<&[i16]>, describe: bool) {
        if let Some(warning) = &outcome.warning {
            self.warning(warning);
        }
        if let Some(rows) = &outcome.rows {
            if describe {
                push(
                    &mut self.out,
                    row_description(&rows.columns, formats.unwrap_or(&[])),
                );
            }
            self.data_rows(rows, formats.unwrap_or(&[]));
        }
        push(
            &mut self.out,
            PgWireBackendMessage::CommandComplete(CommandComplete::new(outcome.tag)),
        );
    }

    fn data_rows(&mut self, rows: &Rows, formats: &[i16]) {
        for row in &rows.rows {
            let mut data = BytesMut::new();
            for (at, (value, (_, t))) in row.iter().zip(&rows.columns).enumerate() {
                let bytes = match (value, format_of(formats, at)) {
                    (Value::Null, _) => None,
                    (value, 1) => Some(binary::encode(value, *t)),
                    (value, _) => crate::pg::types::text::format(value, *t).map(String::into_bytes),
                };
                match bytes {
                    None => data.put_i32(-1),
                    Some(bytes) => {
                        data.put_i32(bytes.len() as i32);
                        data.put_slice(&bytes);
                    }
                }
            }
            push(
                &mut self.out,
                PgWireBackendMessage::DataRow(DataRow::new(data, row.len() as i16)),
            );
        }
    }

    fn parse(&mut self, parse: Parse) -> PgResult<()> {
        let name = parse.name.unwrap_or_default();
        if !name.is_empty() && self.statements.contains_key(&name) {
            return Err(PgError::new(
                DUPLICATE_PREPARED_STATEMENT,
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        if self.statements.len() >= PREPARED_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                "too many prepared statements for the model",
            ));
        }
        let parsed = self.model.parse(&parse.query)?;
        if parsed.statements.len() > 1 {
            return Err(PgError::syntax(
                "cannot insert multiple commands into a prepared statement",
            ));
        }
        let statement = parsed.statements.first().cloned();
        if self.session.block == Block::Failed
            && !statement.as_deref().is_some_and(ends_transaction)
        {
            return Err(PgError::new(
                IN_FAILED_TRANSACTION,
                "current transaction is aborted, commands ignored until end of transaction block",
            ));
        }
        let declared: Vec<Type> = parse
            .type_oids
            .iter()
            .map(|oid| Type::from_oid(*oid).unwrap_or(Type::Unknown))
            .collect();
        let (params, columns) = match &statement {
            None => (declared, None),
            Some(s) => self
                .model
                .describe(s, &parse.query, parsed.placeholders, declared)?,
        };
        self.statements.insert(
            name,
            Prepared {
                statement,
                params,
                columns,
            },
        );
        push(
            &mut self.out,
            PgWireBackendMessage::ParseComplete(ParseComplete::new()),
        );
        Ok(())
    }

    fn bind(&mut self, bind: Bind) -> PgResult<()> {
        let name = bind.statement_name.unwrap_or_default();
        let prepared = self.statements.get(&name).cloned().ok_or_else(|| {
            PgError::new(
                INVALID_PREPARED_STATEMENT,
                format!("prepared statement \"{name}\" does not exist"),
            )
        })?;
        if bind.parameters.len() != prepared.params.len() {
            return Err(PgError::new(PROTOCOL_VIOLATION, format!("bind message supplies {} parameters, but prepared statement \"{name}\" requires {}", bind.parameters.len(), prepared.params.len())));
        }
        let mut params = Vec::with_capacity(prepared.params.len());
        for (at, (value, t)) in bind.parameters.iter().zip(&prepared.params).enumerate() {
            let value = match (value, format_of(&bind.parameter_format_codes, at)) {
                (None, _) => Value::Null,
                (Some(bytes), 1) => binary::decode(bytes, *t)?,
                (Some(bytes), _) => {
                    crate::pg::types::text::parse(crate::pg::types::encoding::verify(bytes)?, *t)?
                }
            };
            params.push(Typed::new(value, *t));
        }
        if self.portals.len() >= PREPARED_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                "too many portals for the model",
            ));
        }
        self.portals.insert(
            bind.portal_name.unwrap_or_default(),
            Portal {
                prepared,
                params,
                formats: bind.result_column_format_codes,
            },
        );
        push(
            &mut self.out,
            PgWireBackendMessage::BindComplete(BindComplete::new()),
        );
        Ok(())
    }

    fn describe(&mut self, describe: Describe) -> PgResult<()> {
        let name = describe.name.unwrap_or_default();
        let (prepared, formats) = match describe.target_type {
            b'S' => {
                let prepared = self.statements.get(&name).cloned().ok_or_else(|| {
                    PgError::new(
                        INVALID_PREPARED_STATEMENT,
                        format!("prepared statement \"{name}\" does not exist"),
                    )
                })?;
                let oids = prepared.params.iter().map(|t| t.oid()).collect();
                push(
                    &mut self.out,
                    PgWireBackendMessage::ParameterDescription(ParameterDescription::new(oids)),
                );
                (prepared, Vec::new())
            }
            _ => {
                let portal = self.portals.get(&name).cloned().ok_or_else(|| {
                    PgError::new(
                        INVALID_CURSOR_NAME,
                        format!("portal \"{name}\" does not exist"),
                    )
                })?;
                (portal.prepared, portal.formats)
            }
        };
        match &prepared.columns {
            Some(columns) => push(&mut self.out, row_description(columns, &formats)),
            None => push(&mut self.out, PgWireBackendMessage::NoData(NoData::new())),
        }
        Ok(())
    }

    async fn execute(&mut self, execute: Execute) -> PgResult<()> {
        let name = execute.name.unwrap_or_default();
        let portal = self.portals.get(&name).cloned().ok_or_else(|| {
            PgError::new(
                INVALID_CURSOR_NAME,
                format!("portal \"{name}\" does not exist"),
            )
        })?;
        let Some(statement) = &portal.prepared.statement else {
            push(
                &mut self.out,
                PgWireBackendMessage::EmptyQueryResponse(EmptyQueryResponse::new()),
            );
            return Ok(());
        };
        let mut outcome = self.run(statement, &portal.params).await?;
        if let (Some(rows), Some(columns)) = (&mut outcome.rows, &portal.prepared.columns) {
            rows.columns = columns.clone();
        }
        self.outcome(outcome, Some(&portal.formats), false);
        Ok(())
    }
}

fn ends_transaction(statement: &Statement) -> bool {
    matches!(
        statement,
        Statement::Commit { .. } | Statement::Rollback { .. }
    )
}

/// A column's format: one code for all, one per column, or text.
fn format_of(formats: &[i16], at: usize) -> i16 {
    match formats {
        [] => 0,
        [one] => *one,
        many => many.get(at).copied().unwrap_or(0),
    }
}

fn row_description(columns: &[(String, Type)], formats: &[i16]) -> PgWireBackendMessage {
    let fields = columns
        .iter()
        .enumerate()
        .map(|(at, (name, t))| {
            FieldDescription::new(
                name.clone(),
                0,
                0,
                t.oid(),
                t.size(),
                -1,
                format_of(formats, at),
            )
        })
        .collect();
    PgWireBackendMessage::RowDescription(RowDescription::new(fields))
}

impl PgModel {
    pub(crate) async fn serve_connection<S>(self, stream: S)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send,
    {
        serve(self, stream, None).await
    }

    /// [`PgModel::serve_connection`] for the world's client `owner`, whose backends a
    /// fault may terminate ([`PgModel::terminate_owner`]).
    pub(crate) async fn serve_connection_of<S>(self, stream: S, owner: u32)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send,
    {
        serve(self, stream, Some(owner)).await
    }
}

/// Serve every connection `listener` accepts, on the OS clock (`amnesia serve-pg-model`):
/// the model outside a simulation, for psql or a differential test. On a multi-threaded
/// runtime a running statement leaves the runtime's workers, so new connections and
/// cancel requests are read while it runs; on a current-thread runtime it holds the one
/// thread until it ends.
pub async fn serve_tcp(listener: tokio::net::TcpListener, seed: u64) -> std::io::Result<()> {
    let clock: PgClock = Arc::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64)
    });
    let flavor = tokio::runtime::Handle::current().runtime_flavor();
    let model = match flavor {
        tokio::runtime::RuntimeFlavor::MultiThread => PgModel::threaded(seed, clock),
        _ => PgModel::new(seed, clock),
    };
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(model.clone().serve_connection(stream));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgwire::messages::simplequery::Query;

    fn connection() -> Connection {
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let backend = model.new_backend();
        Connection::new(model, backend)
    }

    /// Send `message`; what the connection answered, as bytes.
    fn send(connection: &mut Connection, message: PgWireFrontendMessage) -> Vec<u8> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        runtime.block_on(connection.handle(message));
        connection.out.split().to_vec()
    }

    fn query(connection: &mut Connection, sql: &str) -> Vec<u8> {
        send(
            connection,
            PgWireFrontendMessage::Query(Query::new(sql.into())),
        )
    }

    fn prepare(connection: &mut Connection, name: &str) {
        let parse = Parse::new(Some(name.into()), "SELECT 1".into(), Vec::new());
        send(connection, PgWireFrontendMessage::Parse(parse));
    }

    fn names(connection: &Connection) -> Vec<&str> {
        connection.statements.keys().map(String::as_str).collect()
    }

    fn contains(reply: &[u8], part: &[u8]) -> bool {
        reply.windows(part.len()).any(|w| w == part)
    }

    #[test]
    fn deallocate_forgets_a_named_statement_or_all_but_the_unnamed_one() {
        let mut c = connection();
        for name in ["a", "b", "ALL", ""] {
            prepare(&mut c, name);
        }
        assert!(contains(&query(&mut c, "DEALLOCATE A"), b"DEALLOCATE\0"));
        assert_eq!(names(&c), ["", "ALL", "b"]);
        assert!(contains(
            &query(&mut c, "DEALLOCATE \"ALL\""),
            b"DEALLOCATE\0"
        ));
        assert_eq!(names(&c), ["", "b"]);
        let unknown = query(&mut c, "DEALLOCATE PREPARE a");
        assert!(contains(&unknown, b"C26000\0"));
        assert!(contains(
            &query(&mut c, "DEALLOCATE ALL"),
            b"DEALLOCATE ALL\0"
        ));
        assert_eq!(names(&c), [""]);
        // In a block, an unknown name fails the transaction as any error does.
        query(&mut c, "BEGIN");
        query(&mut c, "DEALLOCATE nothing");
        assert_eq!(c.session.status(), b'E');
        assert!(contains(&query(&mut c, "DEALLOCATE ALL"), b"C25P02\0"));
        query(&mut c, "ROLLBACK");
        assert_eq!(c.session.status(), b'I');
    }

    #[test]
    fn a_session_idle_in_a_transaction_past_its_timeout_is_ended_and_its_locks_released() {
        // A paused runtime: the idle wait costs no real time.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a runtime");
        let model = PgModel::new(1, Arc::new(|| 1_700_000_000_000_000));
        let reply = runtime.block_on(async {
            use tokio::io::AsyncReadExt;
            let (mut client, server) = tokio::io::duplex(1 << 16);
            tokio::spawn(serve(model.clone(), server, None));
            let mut out = Vec::new();
            let mut startup = Vec::new();
            startup.extend_from_slice(&196_608_i32.to_be_bytes());
            startup.extend_from_slice(b"user\0amnesia\0database\0x\0\0");
            out.extend_from_slice(&(startup.len() as i32 + 4).to_be_bytes());
            out.extend_from_slice(&startup);
            for sql in [
                "CREATE TABLE t (id int4 PRIMARY KEY)",
                "INSERT INTO t VALUES (1)",
                "SET idle_in_transaction_session_timeout = 50",
                "BEGIN",
                "SELECT id FROM t FOR UPDATE",
            ] {
                out.push(b'Q');
                out.extend_from_slice(&(sql.len() as i32 + 5).to_be_bytes());
                out.extend_from_slice(sql.as_bytes());
                out.push(0);
            }
            client.write_all(&out).await.expect("written");
            let mut reply = Vec::new();
            client
                .read_to_end(&mut reply)
                .await
                .expect("read to the end");
            reply
        });
        assert!(contains(&reply, b"SFATAL\0"));
        assert!(contains(&reply, b"C25P03\0"));
        assert!(contains(
            &reply,
            b"terminating connection due to idle-in-transaction timeout"
        ));
        // The session's transaction ended with it: its row lock is free.
        let mut other = Session::new(model.new_backend(), 1);
        let sql = "SELECT id FROM t FOR UPDATE NOWAIT";
        let statement = model.parse(sql).expect("parses").statements[0].clone();
        let locked = runtime.block_on(model.run(&mut other, &statement, &[]));
        assert_eq!(locked.expect("not locked").tag, "SELECT 1");
    }

    #[test]
    fn a_startup_packet_sets_the_timeouts_and_cannot_ask_for_serializable() {
        let parameters = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        let settings = startup_settings(&parameters(&[
            ("user", "amnesia"),
            ("client_encoding", "UTF8"),
            ("TimeZone", "Europe/Paris"),
            (
                "options",
                "-c lock_timeout=100 --statement-timeout=2s -cdeadlock_timeout=50",
            ),
        ]))
        .expect("accepted");
        assert_eq!(settings.duration_ms("lock_timeout"), 100);
        assert_eq!(settings.duration_ms("statement_timeout"), 2_000);
        assert_eq!(settings.duration_ms("deadlock_timeout"), 50);
        for refused in [
            ("options", "-c default_transaction_isolation=serializable"),
            ("default_transaction_isolation", "serializable"),
        ] {
            let error = startup_settings(&parameters(&[refused])).unwrap_err();
            assert_eq!(error.code, FEATURE_NOT_SUPPORTED);
        }
        let invalid = startup_settings(&parameters(&[("lock_timeout", "soon")])).unwrap_err();
        assert_eq!(invalid.code, INVALID_PARAMETER_VALUE);
    }

    #[test]
    fn a_query_or_parse_with_text_invalid_in_utf8_is_refused_before_decoding() {
        let frame = |kind: u8, body: &[u8]| {
            let mut out = vec![kind];
            out.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
            out.extend_from_slice(body);
            out
        };
        let refused = |bytes: &[u8]| refused_text(bytes).map(|(k, l, e)| (k, l, e.code));
        let bad = frame(b'Q', b"SELECT '\xff'\0");
        assert_eq!(
            refused(&bad),
            Some((b'Q', bad.len(), CHARACTER_NOT_IN_REPERTOIRE))
        );
        let nul = frame(b'Q', b"SELECT 'a\0b'\0");
        assert_eq!(refused(&nul), Some((b'Q', nul.len(), PROTOCOL_VIOLATION)));
        assert_eq!(refused(&frame(b'Q', "SELECT 'é'\0".as_bytes())), None);
        assert_eq!(refused(&bad[..bad.len() - 1]), None, "incomplete: read on");
        let parse = frame(b'P', b"\0SELECT '\xc3'\0\0\0");
        assert_eq!(
            refused(&parse).map(|r| r.2),
            Some(CHARACTER_NOT_IN_REPERTOIRE)
        );
        // A text parameter: NUL and invalid bytes alike, in either format.
        let mut c = connection();
        let parse = Parse::new(None, "SELECT $1::text".into(), Vec::new());
        send(&mut c, PgWireFrontendMessage::Parse(parse));
        for (value, format) in [(&b"a\0b"[..], 0), (b"\xff", 0), (b"a\0b", 1)] {
            let bind = Bind::new(
                None,
                None,
                vec![format],
                vec![Some(bytes::Bytes::copy_from_slice(value))],
                Vec::new(),
            );
            let reply = send(&mut c, PgWireFrontendMessage::Bind(bind));
            assert!(contains(&reply, b"C22021\0"), "{value:?}");
            c.skipping = false;
        }
    }
}
