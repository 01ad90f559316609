//! `regtype`, an OID that names a type: how sqlx finds a type's OID by name
//! (`SELECT $1::regtype::oid`, `WHERE oid = $1::regtype::oid`) and names a type it met by
//! OID (`SELECT oid::regtype::text … FROM pg_catalog.pg_type`). Input reads what
//! `regtypein` reads, for the model's types: digits (an OID as is), a `pg_type.typname`
//! (`int4`, `_vector`, `"text"` quoted), or SQL's spelling of a type (`integer`,
//! `character varying(10)`, `text[]`), optionally in schema `pg_catalog` or `public`.
//! Output is `format_type`'s name, `-` for OID 0 and the digits for an OID no type has.
//! Comparisons and ordering are the oid's (regtype has no operators of its own).

use crate::pg::error::*;
use crate::pg::types::pg_type::Type;
use crate::pg::types::tsearch::{refused, SIMPLE_OID};
use crate::pg::types::value::Value;
use crate::pg::vector::kind::Kind;

/// The longest type name the model reads (PostgreSQL's identifiers are 63 bytes; a
/// spelled type with modifiers and `[]` is a little longer).
const NAME_BYTES_MAX: usize = 256;

/// `regtypein`: the OID `text` names.
pub(crate) fn parse(text: &str) -> PgResult<Value> {
    let name = text.trim();
    if name.is_empty() || name.len() > NAME_BYTES_MAX {
        return Err(PgError::syntax(format!("invalid type name \"{text}\"")));
    }
    if name.bytes().all(|b| b.is_ascii_digit()) {
        let oid: u32 = name.parse().map_err(|_| {
            PgError::new(
                NUMERIC_VALUE_OUT_OF_RANGE,
                format!("value \"{name}\" is out of range for type oid"),
            )
        })?;
        return Ok(Value::Int(i64::from(oid)));
    }
    let unqualified = without_schema(name)?;
    let oid = match by_typname(unqualified) {
        Some(oid) => oid,
        None => by_spelling(unqualified)?,
    };
    Ok(Value::Int(i64::from(oid)))
}

/// `format_type`'s name of `oid`.
pub(crate) fn format(oid: i64) -> String {
    let Ok(oid) = u32::try_from(oid) else {
        return oid.to_string();
    };
    match (oid, Type::from_oid(oid)) {
        (0, _) => "-".into(),
        (_, Some(t)) => t.name().into(),
        (_, None) => oid.to_string(),
    }
}

/// `name` without a leading `pg_catalog.` or `public.` (the search path's schemas);
/// another schema does not exist in the model, as in a fresh database.
fn without_schema(name: &str) -> PgResult<&str> {
    if name.starts_with('"') {
        return Ok(name);
    }
    let Some((schema, rest)) = name.split_once('.') else {
        return Ok(name);
    };
    match schema.trim().to_ascii_lowercase().as_str() {
        "pg_catalog" | "public" => Ok(rest.trim()),
        other => Err(PgError::new(
            INVALID_SCHEMA_NAME,
            format!("schema \"{other}\" does not exist"),
        )),
    }
}

/// A `pg_type.typname`: folded to lower case unless quoted, as an identifier is.
fn by_typname(name: &str) -> Option<u32> {
    let folded = match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
        Some(quoted) => quoted.to_string(),
        None => name.to_ascii_lowercase(),
    };
    Type::all()
        .iter()
        .find(|t| crate::pg::types::regtype::typname(**t) == folded)
        .map(|t| t.oid())
}

/// SQL's spelling of a type, parsed as a type name is in a cast.
fn by_spelling(name: &str) -> PgResult<u32> {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let syntax = |e: sqlparser::parser::ParserError| {
        PgError::syntax(format!("invalid type name \"{name}\": {e}"))
    };
    let mut parser = sqlparser::parser::Parser::new(&dialect)
        .with_recursion_limit(8)
        .try_with_sql(name)
        .map_err(syntax)?;
    let data_type = parser.parse_data_type().map_err(syntax)?;
    if parser.peek_token().token != sqlparser::tokenizer::Token::EOF {
        return Err(PgError::syntax(format!("invalid type name \"{name}\"")));
    }
    let spelled = data_type.to_string().to_lowercase();
    let undefined = || PgError::new(UNDEFINED_OBJECT, format!("type \"{name}\" does not exist"));
    // serial is a column shorthand, not a type.
    if spelled.contains("serial") {
        return Err(undefined());
    }
    let (t, _) = crate::pg::types::regtype::sql_type(&data_type)?;
    Ok(t.oid())
}

/// `pg_type.typname`: an array type's is its element's with a leading `_`.
pub(crate) fn typname(t: Type) -> String {
    match (t, t.element()) {
        (_, Some(e)) => format!("_{}", typname(e)),
        (Type::Vector, None) => "vector".into(),
        (Type::Char, None) => "char".into(),
        (t, None) => t.typname().into(),
    }
}

/// `'name'::regconfig`: `simple` only; PostgreSQL's other built-in ones are refused.
pub(crate) fn regconfig(name: &str) -> PgResult<Value> {
    let bare = name.strip_prefix("pg_catalog.").unwrap_or(name);
    match bare {
        "simple" => Ok(Value::Int(SIMPLE_OID)),
        "arabic" | "armenian" | "basque" | "catalan" | "danish" | "dutch" | "english"
        | "finnish" | "french" | "german" | "greek" | "hindi" | "hungarian" | "indonesian"
        | "irish" | "italian" | "lithuanian" | "nepali" | "norwegian" | "portuguese"
        | "romanian" | "russian" | "serbian" | "spanish" | "swedish" | "tamil" | "turkish"
        | "yiddish" => Err(refused(format!("the text search configuration {bare}"))),
        _ => Err(PgError::new(
            UNDEFINED_OBJECT,
            format!("text search configuration \"{name}\" does not exist"),
        )),
    }
}

/// The type a SQL type name spells (`bigint`, `vector(64)`, `text[]`).
/// A type name without its array decoration, and whether it had one: PostgreSQL reads
/// `int[]`, `int[4]`, `int[][]`, `int ARRAY` and `int ARRAY[4]` as one type, `int[]`
/// (the bounds and dimensions are not enforced).
fn array_suffixes(spelled: &str) -> (String, bool) {
    let mut base = spelled.trim_end();
    let mut array = false;
    loop {
        if let Some(rest) = base.strip_suffix(']') {
            let Some((head, bound)) = rest.rsplit_once('[') else {
                break;
            };
            if !bound.trim().chars().all(|c| c.is_ascii_digit()) {
                break;
            }
            base = head.trim_end();
        } else if let Some(head) = base.strip_suffix(" array") {
            base = head.trim_end();
        } else {
            break;
        }
        array = true;
    }
    (base.to_string(), array)
}

pub(crate) fn sql_type(data_type: &sqlparser::ast::DataType) -> PgResult<(Type, Option<u32>)> {
    if let sqlparser::ast::DataType::Interval { fields, precision } = data_type {
        return interval_type(*fields, *precision);
    }
    let spelled = data_type.to_string().to_lowercase();
    let (base, array) = array_suffixes(&spelled);
    let (name, modifier) = match base.split_once('(') {
        // `timestamp(3) with time zone`: the precision inside the name.
        Some((name, rest)) if name.starts_with("timestamp") => match rest.split_once(')') {
            Some((precision, tail)) => (format!("{name}{tail}"), precision.trim().parse().ok()),
            None => (base.trim().to_string(), None),
        },
        Some((name, rest)) => (
            name.trim().to_string(),
            rest.trim_end_matches(')').trim().parse().ok(),
        ),
        None => (base.trim().to_string(), None),
    };
    let name = match name.as_str() {
        "timestamp with time zone" | "timestamptz" => "timestamptz".to_string(),
        "character varying" => "varchar".into(),
        "double" => "double precision".into(),
        other => other.to_string(),
    };
    let unknown = || PgError::new(UNDEFINED_OBJECT, format!("type \"{name}\" does not exist"));
    // A quoted name keeps its case: `"char"` is PostgreSQL's, `"INT4"` no type's.
    let written = data_type.to_string();
    let as_named = match written.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or_default().to_string(),
        None => name.clone(),
    };
    let lacking = || match crate::pg::types::builtin_names::is_type(&as_named) {
        true => PgError::unsupported(format!("the type {name}")),
        false => unknown(),
    };
    let (t, serial) = Type::from_sql_name(&name).ok_or_else(lacking)?;
    if serial && array {
        return Err(unknown());
    }
    let t = if array {
        t.array_of()
            .ok_or_else(|| PgError::unsupported(format!("type {spelled}")))?
    } else {
        t
    };
    let modifier = match (t, base.split_once('(')) {
        (Type::Numeric, Some((_, spelled))) => {
            Some(crate::pg::types::numeric_cast::typmod_spelled(spelled)?)
        }
        (Type::Vector | Type::VectorArray, Some((_, spelled))) => {
            Some(vector_typmod(Kind::Vector, spelled)?)
        }
        (Type::Halfvec | Type::HalfvecArray, Some((_, spelled))) => {
            Some(vector_typmod(Kind::Halfvec, spelled)?)
        }
        (Type::Bit, Some((_, spelled))) => {
            Some(crate::pg::types::bit::typmod_in(single_typmod(spelled)?)?)
        }
        // `bit` alone is `bit(1)`.
        (Type::Bit, None) => Some(1),
        (Type::Sparsevec | Type::SparsevecArray, Some((_, spelled))) => {
            let dimensions = single_typmod(spelled)?;
            Some(
                crate::pg::vector::sparse::typmod_in(dimensions)
                    .map_err(crate::pg::error::PgError::from)?,
            )
        }
        _ => modifier,
    };
    Ok((t, modifier))
}

/// `vector(…)`'s (`halfvec(…)`'s) modifiers as PostgreSQL reads them: each an integer
/// (`ArrayGetIntegerTypmods`; a quoted one too), then exactly one, within pgvector's
/// dimensions (`vector_typmod_in`).
fn vector_typmod(kind: Kind, spelled: &str) -> PgResult<u32> {
    let dimensions = single_typmod(spelled)?;
    crate::pg::vector::value::typmod_in(kind, dimensions)
        .map(|n| n as u32)
        .map_err(|e| PgError::new(e.sqlstate, e.message))
}

/// A pgvector type's one modifier (`ArrayGetIntegerTypmods`, then exactly one).
fn single_typmod(spelled: &str) -> PgResult<i64> {
    let inner = spelled.strip_suffix(')').unwrap_or(spelled);
    let typmods = inner
        .split(',')
        .map(|part| typmod_integer(part.trim().trim_matches('\'')))
        .collect::<PgResult<Vec<i64>>>()?;
    let [dimensions] = typmods.as_slice() else {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "invalid type modifier",
        ));
    };
    Ok(*dimensions)
}

/// A type modifier's integer (`pg_strtoint32`).
fn typmod_integer(text: &str) -> PgResult<i64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PgError::new(
            INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type integer: \"{text}\""),
        ));
    }
    text.parse::<i32>().map(i64::from).map_err(|_| {
        PgError::new(
            NUMERIC_VALUE_OUT_OF_RANGE,
            format!("value \"{text}\" is out of range for type integer"),
        )
    })
}

/// `interval [fields] [(p)]`: its typmod as a type modifier.
fn interval_type(
    fields: Option<sqlparser::ast::IntervalFields>,
    precision: Option<u64>,
) -> PgResult<(Type, Option<u32>)> {
    let spelled = fields.map(|f| f.to_string().to_lowercase());
    let (leading, last) = match spelled.as_deref().map(|s| s.split_once(" to ")) {
        None => (None, None),
        Some(Some((l, t))) => (Some(l), Some(t)),
        Some(None) => (spelled.as_deref(), None),
    };
    let typmod = crate::pg::types::interval::typmod(leading, last, precision)?;
    Ok((Type::Interval, typmod.modifier()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::types::pg_type::VECTOR_ARRAY_OID;

    fn oid(text: &str) -> PgResult<i64> {
        match parse(text)? {
            Value::Int(oid) => Ok(oid),
            other => panic!("an oid, not {other:?}"),
        }
    }

    #[test]
    fn names_in_every_spelling_find_their_type() {
        for (text, expected) in [
            ("int4", 23),
            ("integer", 23),
            ("  INT4 ", 23),
            ("\"int4\"", 23),
            ("pg_catalog.int4", 23),
            ("character varying(10)", 1043),
            ("varchar", 1043),
            ("int8[]", 1016),
            ("_int8", 1016),
            ("_vector", i64::from(VECTOR_ARRAY_OID)),
            ("vector[]", i64::from(VECTOR_ARRAY_OID)),
            ("timestamptz", 1184),
            ("timestamp", 1114),
            ("timestamp(3) without time zone", 1114),
            ("date", 1082),
            ("_date", 1182),
            ("timestamp[]", 1115),
            ("regtype", 2206),
            ("42", 42),
        ] {
            assert_eq!(oid(text).unwrap(), expected, "{text}");
        }
    }

    #[test]
    fn what_names_no_type_fails_with_postgresql_s_class() {
        for (text, sqlstate) in [
            ("", SYNTAX_ERROR),
            ("nosuch", UNDEFINED_OBJECT),
            ("\"INT4\"", UNDEFINED_OBJECT),
            ("serial", UNDEFINED_OBJECT),
            ("int4 x", SYNTAX_ERROR),
            ("x.int4", INVALID_SCHEMA_NAME),
            ("4294967296", NUMERIC_VALUE_OUT_OF_RANGE),
        ] {
            assert_eq!(oid(text).unwrap_err().code, sqlstate, "{text:?}");
        }
    }

    #[test]
    fn oids_print_as_format_type_names() {
        assert_eq!(format(23), "integer");
        assert_eq!(format(1043), "character varying");
        assert_eq!(format(i64::from(VECTOR_ARRAY_OID)), "vector[]");
        assert_eq!(format(18), "\"char\"");
        assert_eq!(format(0), "-");
        assert_eq!(format(99_999), "99999");
    }
}
