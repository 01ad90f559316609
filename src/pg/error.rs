//! A PostgreSQL error as the model raises it: its SQLSTATE, message and the optional
//! fields PostgreSQL fills (detail, constraint, table), sent as an `ErrorResponse`.
//! Statement execution returns [`Flow`]: an error, or "wait for that backend" when a row
//! lock, a unique check or an advisory lock is held by another open transaction.

/// An error the model reports to the client, as PostgreSQL would.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PgError {
    /// The five-character SQLSTATE (`23505`).
    pub code: &'static str,
    pub message: String,
    pub detail: Option<String>,
    pub constraint: Option<String>,
    pub table: Option<String>,
    /// `FATAL` ends the connection; every other error is an `ERROR`.
    pub fatal: bool,
}

impl PgError {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> PgError {
        assert_eq!(code.len(), 5, "a SQLSTATE has five characters");
        PgError {
            code,
            message: message.into(),
            detail: None,
            constraint: None,
            table: None,
            fatal: false,
        }
    }

    pub(crate) fn syntax(message: impl Into<String>) -> PgError {
        PgError::new(SYNTAX_ERROR, message)
    }

    /// What the model leaves out of PostgreSQL: refused, never answered wrongly.
    pub(crate) fn unsupported(what: impl std::fmt::Display) -> PgError {
        PgError::new(
            FEATURE_NOT_SUPPORTED,
            format!("{what} is not supported by amnesia's PostgreSQL model"),
        )
    }

    pub(crate) fn with_detail(mut self, detail: impl Into<String>) -> PgError {
        self.detail = Some(detail.into());
        self
    }

    pub(crate) fn with_constraint(mut self, table: &str, constraint: &str) -> PgError {
        self.table = Some(table.to_string());
        self.constraint = Some(constraint.to_string());
        self
    }

    /// The `ErrorResponse` fields, in PostgreSQL's order.
    pub(crate) fn fields(&self) -> Vec<(u8, String)> {
        let severity = if self.fatal { "FATAL" } else { "ERROR" };
        let mut fields = vec![
            (b'S', severity.to_string()),
            (b'V', severity.to_string()),
            (b'C', self.code.to_string()),
            (b'M', self.message.clone()),
        ];
        if let Some(detail) = &self.detail {
            fields.push((b'D', detail.clone()));
        }
        if let Some(table) = &self.table {
            fields.push((b't', table.clone()));
        }
        if let Some(constraint) = &self.constraint {
            fields.push((b'n', constraint.clone()));
        }
        fields
    }
}

pub(crate) const SYNTAX_ERROR: &str = "42601";
pub(crate) const FEATURE_NOT_SUPPORTED: &str = "0A000";
pub(crate) const UNDEFINED_TABLE: &str = "42P01";
pub(crate) const UNDEFINED_COLUMN: &str = "42703";
pub(crate) const UNDEFINED_FUNCTION: &str = "42883";
pub(crate) const AMBIGUOUS_FUNCTION: &str = "42725";
pub(crate) const UNDEFINED_OBJECT: &str = "42704";
pub(crate) const INVALID_SCHEMA_NAME: &str = "3F000";
pub(crate) const DUPLICATE_TABLE: &str = "42P07";
pub(crate) const DUPLICATE_OBJECT: &str = "42710";
pub(crate) const AMBIGUOUS_COLUMN: &str = "42702";
pub(crate) const DATATYPE_MISMATCH: &str = "42804";
pub(crate) const INDETERMINATE_DATATYPE: &str = "42P18";
pub(crate) const GROUPING_ERROR: &str = "42803";
pub(crate) const WINDOWING_ERROR: &str = "42P20";
pub(crate) const WRONG_OBJECT_TYPE: &str = "42809";
pub(crate) const INVALID_PRECEDING_OR_FOLLOWING_SIZE: &str = "22013";
pub(crate) const INVALID_ARGUMENT_FOR_NTILE: &str = "22014";
pub(crate) const INVALID_ARGUMENT_FOR_NTH_VALUE: &str = "22016";
pub(crate) const INVALID_TEXT_REPRESENTATION: &str = "22P02";
pub(crate) const DATA_EXCEPTION: &str = "22000";
pub(crate) const DIVISION_BY_ZERO: &str = "22012";
pub(crate) const NUMERIC_VALUE_OUT_OF_RANGE: &str = "22003";
pub(crate) const STRING_DATA_RIGHT_TRUNCATION: &str = "22001";
pub(crate) const CARDINALITY_VIOLATION: &str = "21000";
pub(crate) const INVALID_PARAMETER_VALUE: &str = "22023";
pub(crate) const UNIQUE_VIOLATION: &str = "23505";
pub(crate) const NOT_NULL_VIOLATION: &str = "23502";
pub(crate) const CHECK_VIOLATION: &str = "23514";
pub(crate) const FOREIGN_KEY_VIOLATION: &str = "23503";
pub(crate) const IN_FAILED_TRANSACTION: &str = "25P02";
pub(crate) const ACTIVE_SQL_TRANSACTION: &str = "25001";
pub(crate) const NO_ACTIVE_SQL_TRANSACTION: &str = "25P01";
pub(crate) const SERIALIZATION_FAILURE: &str = "40001";
pub(crate) const DEADLOCK_DETECTED: &str = "40P01";
pub(crate) const UNDEFINED_PARAMETER: &str = "42704";
pub(crate) const INVALID_SAVEPOINT: &str = "3B001";
pub(crate) const PROGRAM_LIMIT_EXCEEDED: &str = "54000";
pub(crate) const TOO_MANY_COLUMNS: &str = "54011";
pub(crate) const PROTOCOL_VIOLATION: &str = "08P01";
pub(crate) const INVALID_PREPARED_STATEMENT: &str = "26000";
pub(crate) const INVALID_CURSOR_NAME: &str = "34000";
pub(crate) const QUERY_CANCELED: &str = "57014";
/// `admin_shutdown`: the backend was terminated (`pg_terminate_backend`, a shutdown).
pub(crate) const ADMIN_SHUTDOWN: &str = "57P01";
/// `too_many_connections`: every connection slot is taken (`max_connections`).
pub(crate) const TOO_MANY_CONNECTIONS: &str = "53300";
pub(crate) const LOCK_NOT_AVAILABLE: &str = "55P03";
pub(crate) const IDLE_IN_TRANSACTION_SESSION_TIMEOUT: &str = "25P03";
pub(crate) const CHARACTER_NOT_IN_REPERTOIRE: &str = "22021";
pub(crate) const UNTRANSLATABLE_CHARACTER: &str = "22P05";
pub(crate) const DUPLICATE_PREPARED_STATEMENT: &str = "42P05";
pub(crate) const CANT_CHANGE_RUNTIME_PARAM: &str = "55P02";
pub(crate) const DEPENDENT_OBJECTS_STILL_EXIST: &str = "2BP01";
pub(crate) const INVALID_FOREIGN_KEY: &str = "42830";
pub(crate) const INVALID_TABLE_DEFINITION: &str = "42P16";
pub(crate) const DUPLICATE_COLUMN: &str = "42701";
pub(crate) const UNDEFINED_FILE: &str = "58P01";
pub(crate) const NULL_VALUE_NOT_ALLOWED: &str = "22004";
pub(crate) const DUPLICATE_ALIAS: &str = "42712";
pub(crate) const INVALID_ROW_COUNT: &str = "2201W";
pub(crate) const INVALID_ESCAPE_SEQUENCE: &str = "22025";
pub(crate) const SUBSTRING_ERROR: &str = "22011";
pub(crate) const INVALID_COLUMN_REFERENCE: &str = "42P10";
pub(crate) const DATETIME_OVERFLOW: &str = "22008";
pub(crate) const INVALID_DATETIME_FORMAT: &str = "22007";
pub(crate) const CANNOT_COERCE: &str = "42846";
pub(crate) const INVALID_RECURSION: &str = "42P19";
pub(crate) const INTERNAL_ERROR: &str = "XX000";

/// How a statement's execution ends when it does not complete.
#[derive(Debug)]
pub(crate) enum Flow {
    /// It failed: the statement's writes are undone, the transaction is aborted.
    Error(PgError),
    /// It must wait for `backend`'s transaction (or its advisory lock) to end: its writes
    /// so far are undone, and it runs again from the start once something ends.
    Wait { backend: u32 },
}

impl From<PgError> for Flow {
    fn from(error: PgError) -> Flow {
        Flow::Error(error)
    }
}

pub(crate) type PgResult<T> = Result<T, PgError>;
pub(crate) type FlowResult<T> = Result<T, Flow>;
