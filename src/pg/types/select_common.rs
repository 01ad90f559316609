//! The type a column takes where rows of several types meet (UNION, INTERSECT, EXCEPT,
//! VALUES, a recursive CTE's branches): PostgreSQL's `select_common_type` over the types
//! the model resolves, left first.

use crate::pg::error::*;
use crate::pg::types::pg_type::Type;

/// A type's category, as `pg_type.typcategory` gives it, for the types the model
/// resolves in a set operation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Category {
    Boolean,
    Numeric,
    String,
    DateTime,
    Timespan,
    User,
    Array,
}

/// The type a column of `left op right` takes (PostgreSQL's `select_common_type` over
/// the two sides, left first).
pub(crate) fn common_type(op: &str, left: Type, right: Type) -> PgResult<Type> {
    let (l, r) = (category(left), category(right));
    match (left, right) {
        (a, b) if a == b => Ok(if a == Type::Unknown { Type::Text } else { a }),
        (Type::Unknown, t) | (t, Type::Unknown) => Ok(t),
        _ => match (l, r) {
            (Some(a), Some(b)) if a != b => Err(PgError::new(
                DATATYPE_MISMATCH,
                format!(
                    "{op} types {} and {} cannot be matched",
                    left.name(),
                    right.name()
                ),
            )),
            (Some(Category::Numeric), Some(_)) => {
                crate::pg::types::numeric_cast::common_type(left, right)
                    .ok_or_else(|| PgError::unsupported("this numeric pair in a set operation"))
            }
            (Some(Category::DateTime), Some(_)) => {
                Ok(datetime_rank(left).max(datetime_rank(right)).1)
            }
            // text, varchar and name cast to each other implicitly: the left one stays.
            (Some(Category::String), Some(_)) => Ok(left),
            // No implicit cast joins two of these: the left one stays and the right one
            // cannot be converted to it.
            (Some(Category::User), Some(_)) => Err(PgError::new(
                CANNOT_COERCE,
                format!(
                    "{op} could not convert type {} to {}",
                    right.name(),
                    left.name()
                ),
            )),
            _ => Err(PgError::unsupported(format!(
                "{op} of types {} and {}",
                left.name(),
                right.name()
            ))),
        },
    }
}

/// date casts implicitly to timestamp, both to timestamptz (the preferred type).
fn datetime_rank(t: Type) -> (u8, Type) {
    match t {
        Type::Date => (0, t),
        Type::Timestamp => (1, t),
        _ => (2, t),
    }
}

fn category(t: Type) -> Option<Category> {
    use Type::*;
    Some(match t {
        Bool => Category::Boolean,
        Int2 | Int4 | Int8 | Numeric | Float4 | Float8 => Category::Numeric,
        Text | Varchar | Name => Category::String,
        Date | Timestamp | Timestamptz => Category::DateTime,
        Interval => Category::Timespan,
        Uuid | Json | Jsonb | Bytea | Vector | Halfvec | Sparsevec | Tsvector | Tsquery => {
            Category::User
        }
        BoolArray | Int4Array | Int8Array | Float4Array | Float8Array | TextArray | ByteaArray
        | UuidArray | JsonbArray | NumericArray | OidArray | JsonArray | VectorArray
        | HalfvecArray | SparsevecArray | TimestampArray | DateArray => Category::Array,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::common_type;
    use crate::pg::error::{CANNOT_COERCE, DATATYPE_MISMATCH, FEATURE_NOT_SUPPORTED};
    use crate::pg::types::pg_type::Type::*;

    #[test]
    fn column_types_resolve_as_select_common_type_does() {
        let resolved = |l, r| common_type("UNION", l, r).map_err(|e| e.code);
        assert_eq!(resolved(Int4, Int8), Ok(Int8));
        assert_eq!(resolved(Int8, Numeric), Ok(Numeric));
        assert_eq!(resolved(Numeric, Float4), Ok(Float4));
        assert_eq!(resolved(Unknown, Int2), Ok(Int2));
        assert_eq!(resolved(Unknown, Unknown), Ok(Text));
        // Text and varchar cast to each other implicitly: the left one stays.
        assert_eq!(resolved(Varchar, Text), Ok(Varchar));
        assert_eq!(resolved(Text, Varchar), Ok(Text));
        assert_eq!(resolved(Date, Timestamptz), Ok(Timestamptz));
        assert_eq!(resolved(Timestamp, Date), Ok(Timestamp));
        assert_eq!(resolved(Int4, Text), Err(DATATYPE_MISMATCH));
        assert_eq!(resolved(Bool, Int4), Err(DATATYPE_MISMATCH));
        assert_eq!(resolved(Jsonb, Json), Err(CANNOT_COERCE));
        assert_eq!(resolved(Int4Array, Int8Array), Err(FEATURE_NOT_SUPPORTED));
        assert_eq!(resolved(Int4, Oid), Err(FEATURE_NOT_SUPPORTED));
    }
}
