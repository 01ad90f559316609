//! The model's types as `pg_type` lists them: each one's OID, name, SQL spelling,
//! element and array type, category, and the limits and input errors every type shares.
//! The values of these types are `value.rs`'s.

use crate::pg::error::{
    PgError, PgResult, INVALID_TEXT_REPRESENTATION, NUMERIC_VALUE_OUT_OF_RANGE,
};

/// The OID the model gives pgvector's `vector` type (a real server assigns one at
/// `CREATE EXTENSION`; clients look it up by OID, so any fixed one serves).
pub(crate) const VECTOR_OID: u32 = 16_390;

/// The OID the model gives pgvector's `_vector` (`vector[]`), fixed as `vector`'s is.
pub(crate) const VECTOR_ARRAY_OID: u32 = VECTOR_OID + 5;

/// The OID the model gives pgvector's `halfvec`, fixed as `vector`'s is.
pub(crate) const HALFVEC_OID: u32 = VECTOR_OID + 10;

/// The OID the model gives pgvector's `_halfvec` (`halfvec[]`).
pub(crate) const HALFVEC_ARRAY_OID: u32 = HALFVEC_OID + 5;

/// The OID the model gives pgvector's `sparsevec`, fixed as `vector`'s is.
pub(crate) const SPARSEVEC_OID: u32 = VECTOR_OID + 20;

/// The OID the model gives pgvector's `_sparsevec` (`sparsevec[]`).
pub(crate) const SPARSEVEC_ARRAY_OID: u32 = SPARSEVEC_OID + 5;

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
pub(crate) const PG_EPOCH_UNIX_US: i64 = 946_684_800_000_000;

/// The longest text or bytea value the model stores (PostgreSQL's is 1 GB).
pub(crate) const VALUE_BYTES_MAX: usize = 1 << 20;

/// A column's or an expression's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Type {
    Bool,
    Int2,
    Int4,
    Int8,
    Float4,
    Float8,
    /// PostgreSQL's arbitrary-precision decimal (`numeric.rs`).
    Numeric,
    Text,
    Varchar,
    Bytea,
    Timestamptz,
    /// `timestamp` (without time zone) and `date` (`datetime.rs`).
    Timestamp,
    Date,
    Interval,
    Vector,
    /// pgvector's `halfvec`: held as `Value::Vector`, each element a half (`vector/half.rs`).
    Halfvec,
    /// pgvector's `sparsevec`: held as `Value::Sparse` (`vector/sparse.rs`).
    Sparsevec,
    /// `bit(n)`: held as `Value::Bit` (`bit.rs`).
    Bit,
    Uuid,
    Jsonb,
    /// `json`: its text as written, held as `Value::Text` (`json.rs`).
    Json,
    Void,
    /// A literal or parameter whose type the context has not fixed yet.
    Unknown,
    BoolArray,
    Int4Array,
    Int8Array,
    /// `real[]`: pgvector's casts read and write it.
    Float4Array,
    Float8Array,
    TextArray,
    ByteaArray,
    UuidArray,
    JsonbArray,
    NumericArray,
    OidArray,
    /// The text-search types (`tsearch.rs`) and the configuration's type.
    Tsvector,
    Tsquery,
    Regconfig,
    JsonArray,
    VectorArray,
    HalfvecArray,
    SparsevecArray,
    /// The catalog's types, for a client's type lookup.
    Oid,
    /// An OID naming a type (`'vector'::regtype`): sqlx's type lookups.
    Regtype,
    Name,
    Char,
    TimestampArray,
    DateArray,
}

impl Type {
    pub(crate) fn oid(self) -> u32 {
        match self {
            Type::Bool => 16,
            Type::Bytea => 17,
            Type::Int8 => 20,
            Type::Int2 => 21,
            Type::Int4 => 23,
            Type::Text => 25,
            Type::Float4 => 700,
            Type::Float8 => 701,
            Type::Unknown => 705,
            Type::Varchar => 1043,
            Type::Timestamptz => 1184,
            Type::Timestamp => 1114,
            Type::Date => 1082,
            Type::TimestampArray => 1115,
            Type::DateArray => 1182,
            Type::Interval => 1186,
            Type::Numeric => 1700,
            Type::Void => 2278,
            Type::Vector => VECTOR_OID,
            Type::Halfvec => HALFVEC_OID,
            Type::Sparsevec => SPARSEVEC_OID,
            Type::Bit => 1560,
            Type::Uuid => 2950,
            Type::Jsonb => 3802,
            Type::Json => 114,
            Type::JsonArray => 199,
            Type::UuidArray => 2951,
            Type::JsonbArray => 3807,
            Type::NumericArray => 1231,
            Type::OidArray => 1028,
            Type::Tsvector => 3614,
            Type::Tsquery => 3615,
            Type::Regconfig => 3734,
            Type::VectorArray => VECTOR_ARRAY_OID,
            Type::HalfvecArray => HALFVEC_ARRAY_OID,
            Type::SparsevecArray => SPARSEVEC_ARRAY_OID,
            Type::BoolArray => 1000,
            Type::ByteaArray => 1001,
            Type::Int4Array => 1007,
            Type::TextArray => 1009,
            Type::Int8Array => 1016,
            Type::Float4Array => 1021,
            Type::Float8Array => 1022,
            Type::Oid => 26,
            Type::Regtype => 2206,
            Type::Name => 19,
            Type::Char => 18,
        }
    }

    pub(crate) fn from_oid(oid: u32) -> Option<Type> {
        ALL.iter().copied().find(|t| t.oid() == oid)
    }

    /// Every type the model knows, for the catalog's `pg_type` rows.
    pub(crate) fn all() -> &'static [Type] {
        &ALL
    }

    /// The name PostgreSQL's messages use (`bigint`, `text`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Type::Bool => "boolean",
            Type::Int2 => "smallint",
            Type::Int4 => "integer",
            Type::Int8 => "bigint",
            Type::Float4 => "real",
            Type::Float8 => "double precision",
            Type::Numeric => "numeric",
            Type::Text => "text",
            Type::Varchar => "character varying",
            Type::Bytea => "bytea",
            Type::Timestamptz => "timestamp with time zone",
            Type::Timestamp => "timestamp without time zone",
            Type::Date => "date",
            Type::TimestampArray => "timestamp without time zone[]",
            Type::DateArray => "date[]",
            Type::Interval => "interval",
            Type::Vector => "vector",
            Type::Halfvec => "halfvec",
            Type::Sparsevec => "sparsevec",
            Type::Bit => "bit",
            Type::Uuid => "uuid",
            Type::Jsonb => "jsonb",
            Type::Json => "json",
            Type::Void => "void",
            Type::Unknown => "unknown",
            Type::BoolArray => "boolean[]",
            Type::Int4Array => "integer[]",
            Type::Int8Array => "bigint[]",
            Type::Float4Array => "real[]",
            Type::Float8Array => "double precision[]",
            Type::TextArray => "text[]",
            Type::ByteaArray => "bytea[]",
            Type::UuidArray => "uuid[]",
            Type::JsonbArray => "jsonb[]",
            Type::NumericArray => "numeric[]",
            Type::OidArray => "oid[]",
            Type::Tsvector => "tsvector",
            Type::Tsquery => "tsquery",
            Type::Regconfig => "regconfig",
            Type::JsonArray => "json[]",
            Type::VectorArray => "vector[]",
            Type::HalfvecArray => "halfvec[]",
            Type::SparsevecArray => "sparsevec[]",
            Type::Oid => "oid",
            Type::Regtype => "regtype",
            Type::Name => "name",
            Type::Char => "\"char\"",
        }
    }

    /// `pg_type.typname` (what a client's type lookup reads).
    pub(crate) fn typname(self) -> &'static str {
        match self {
            Type::Bool => "bool",
            Type::Int2 => "int2",
            Type::Int4 => "int4",
            Type::Int8 => "int8",
            Type::Float4 => "float4",
            Type::Float8 => "float8",
            Type::Varchar => "varchar",
            Type::Timestamptz => "timestamptz",
            Type::Timestamp => "timestamp",
            Type::UuidArray => "_uuid",
            Type::JsonbArray => "_jsonb",
            Type::NumericArray => "_numeric",
            Type::OidArray => "_oid",
            Type::JsonArray => "_json",
            Type::VectorArray => "_vector",
            Type::HalfvecArray => "_halfvec",
            Type::SparsevecArray => "_sparsevec",
            other => other.name(),
        }
    }

    /// `pg_type.typlen`: the fixed size, or -1.
    pub(crate) fn size(self) -> i16 {
        match self {
            Type::Bool => 1,
            Type::Int2 => 2,
            Type::Int4
            | Type::Float4
            | Type::Void
            | Type::Oid
            | Type::Regconfig
            | Type::Regtype => 4,
            Type::Name => 64,
            Type::Char => 1,
            Type::Date => 4,
            Type::Int8 | Type::Float8 | Type::Timestamptz | Type::Timestamp => 8,
            Type::Interval | Type::Uuid => 16,
            _ => -1,
        }
    }

    pub(crate) fn element(self) -> Option<Type> {
        match self {
            Type::BoolArray => Some(Type::Bool),
            Type::Int4Array => Some(Type::Int4),
            Type::Int8Array => Some(Type::Int8),
            Type::Float4Array => Some(Type::Float4),
            Type::Float8Array => Some(Type::Float8),
            Type::TextArray => Some(Type::Text),
            Type::ByteaArray => Some(Type::Bytea),
            Type::UuidArray => Some(Type::Uuid),
            Type::JsonbArray => Some(Type::Jsonb),
            Type::NumericArray => Some(Type::Numeric),
            Type::OidArray => Some(Type::Oid),
            Type::JsonArray => Some(Type::Json),
            Type::VectorArray => Some(Type::Vector),
            Type::HalfvecArray => Some(Type::Halfvec),
            Type::SparsevecArray => Some(Type::Sparsevec),
            Type::TimestampArray => Some(Type::Timestamp),
            Type::DateArray => Some(Type::Date),
            _ => None,
        }
    }

    pub(crate) fn array_of(self) -> Option<Type> {
        ALL.iter().copied().find(|t| t.element() == Some(self))
    }

    pub(crate) fn is_integer(self) -> bool {
        matches!(self, Type::Int2 | Type::Int4 | Type::Int8)
    }

    pub(crate) fn is_numeric(self) -> bool {
        self.is_integer() || matches!(self, Type::Float4 | Type::Float8 | Type::Numeric)
    }

    /// pgvector's dense type this is, if it is one (`vector`, `halfvec`).
    pub(crate) fn vector_kind(self) -> Option<crate::pg::vector::kind::Kind> {
        match self {
            Type::Vector => Some(crate::pg::vector::kind::Kind::Vector),
            Type::Halfvec => Some(crate::pg::vector::kind::Kind::Halfvec),
            _ => None,
        }
    }

    /// Whether this is one of pgvector's types (`vector`, `halfvec`, `sparsevec`).
    pub(crate) fn is_pgvector(self) -> bool {
        self.vector_kind().is_some() || self == Type::Sparsevec
    }

    pub(crate) fn is_text(self) -> bool {
        matches!(self, Type::Text | Type::Varchar | Type::Name | Type::Char)
    }

    /// The type a column declared as `name` (lower case) has, and whether it is serial.
    pub(crate) fn from_sql_name(name: &str) -> Option<(Type, bool)> {
        let t = match name {
            "bool" | "boolean" => Type::Bool,
            "smallint" | "int2" => Type::Int2,
            "int" | "integer" | "int4" => Type::Int4,
            "bigint" | "int8" => Type::Int8,
            "real" | "float4" => Type::Float4,
            "double precision" | "float8" | "float" => Type::Float8,
            "text" => Type::Text,
            "varchar" | "character varying" => Type::Varchar,
            "bytea" => Type::Bytea,
            "timestamptz" | "timestamp with time zone" => Type::Timestamptz,
            "timestamp" | "timestamp without time zone" => Type::Timestamp,
            "date" => Type::Date,
            "interval" => Type::Interval,
            "vector" => Type::Vector,
            "halfvec" => Type::Halfvec,
            "sparsevec" => Type::Sparsevec,
            "bit" => Type::Bit,
            "uuid" => Type::Uuid,
            "jsonb" => Type::Jsonb,
            "numeric" | "decimal" => Type::Numeric,
            "tsvector" => Type::Tsvector,
            "tsquery" => Type::Tsquery,
            "regconfig" => Type::Regconfig,
            "oid" => Type::Oid,
            "regtype" => Type::Regtype,
            "json" => Type::Json,
            "serial" | "serial4" => return Some((Type::Int4, true)),
            "bigserial" | "serial8" => return Some((Type::Int8, true)),
            _ => return None,
        };
        Some((t, false))
    }
}

const ALL: [Type; 47] = [
    Type::Bool,
    Type::Int2,
    Type::Int4,
    Type::Int8,
    Type::Float4,
    Type::Float8,
    Type::Numeric,
    Type::Text,
    Type::Varchar,
    Type::Bytea,
    Type::Timestamptz,
    Type::Interval,
    Type::Vector,
    Type::Uuid,
    Type::Jsonb,
    Type::Json,
    Type::Void,
    Type::Unknown,
    Type::BoolArray,
    Type::Int4Array,
    Type::Int8Array,
    Type::Float4Array,
    Type::Float8Array,
    Type::TextArray,
    Type::ByteaArray,
    Type::UuidArray,
    Type::JsonbArray,
    Type::NumericArray,
    Type::OidArray,
    Type::Tsvector,
    Type::Tsquery,
    Type::Regconfig,
    Type::JsonArray,
    Type::VectorArray,
    Type::Halfvec,
    Type::HalfvecArray,
    Type::Sparsevec,
    Type::SparsevecArray,
    Type::Bit,
    Type::Oid,
    Type::Regtype,
    Type::Name,
    Type::Char,
    Type::Timestamp,
    Type::Date,
    Type::TimestampArray,
    Type::DateArray,
];

/// `value` as `to` (an integer's range checked), for a value already of a compatible kind.
pub(crate) fn fit_integer(value: i64, to: Type) -> PgResult<i64> {
    let (min, max, name) = match to {
        Type::Int2 => (i16::MIN as i64, i16::MAX as i64, "smallint"),
        Type::Int4 => (i32::MIN as i64, i32::MAX as i64, "integer"),
        _ => (i64::MIN, i64::MAX, "bigint"),
    };
    if value < min || value > max {
        return Err(PgError::new(
            NUMERIC_VALUE_OUT_OF_RANGE,
            format!("{name} out of range"),
        ));
    }
    Ok(value)
}

pub(crate) fn invalid_input(t: Type, text: &str) -> PgError {
    PgError::new(
        INVALID_TEXT_REPRESENTATION,
        format!("invalid input syntax for type {}: \"{text}\"", t.name()),
    )
}
