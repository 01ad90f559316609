//! The string functions teams' stores send (`varlena.c`, `oracle_compat.c`): `substr`
//! (and `substring`'s integer forms), the `trim` family, `split_part`, `replace`,
//! `concat[_ws]`, `left`/`right`, `lpad`/`rpad`, `starts_with`, `md5`, `repeat`, `reverse`,
//! `strpos` (and `position`), `initcap`. Text is UTF-8 under the C collation: lengths and
//! positions count characters, case maps ASCII letters only. Every function but `concat`
//! and `concat_ws` is strict (a NULL argument makes a NULL result). Arguments must be of
//! the types PostgreSQL's signatures accept by implicit cast (a string type, an int4 or
//! narrower): anything else is 42883 as PostgreSQL reports it.

use crate::pg::error::*;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};

/// The largest result PostgreSQL allocates (`AllocSizeIsValid`, less the varlena header).
const RESULT_BYTES_MAX: i64 = 0x3fff_ffff - 4;

/// Whether `name` with `count` arguments is one of this file's functions.
pub(crate) fn knows(name: &str, count: usize) -> bool {
    matches!(
        (name, count),
        ("substr" | "substring", 2 | 3)
            | ("btrim" | "ltrim" | "rtrim", 1 | 2)
            | ("split_part" | "replace", 3)
            | ("concat", 1..)
            | ("concat_ws", 2..)
            | ("left" | "right" | "starts_with" | "repeat" | "strpos", 2)
            | ("lpad" | "rpad", 2 | 3)
            | ("md5" | "reverse" | "initcap", 1)
    )
}

/// Whether PostgreSQL marks `name` immutable (the planner folds it on constants):
/// `concat` and `concat_ws` are only stable (their arguments' output may read settings).
pub(crate) fn immutable(name: &str) -> bool {
    !name.starts_with("concat") && (knows(name, 3) || knows(name, 2) || knows(name, 1))
}

/// The result type of `name`, `None` for a function this file does not know.
pub(crate) fn return_type(name: &str) -> Option<Type> {
    match name {
        "starts_with" => Some(Type::Bool),
        "strpos" => Some(Type::Int4),
        n if knows(n, 1) || knows(n, 2) || knows(n, 3) => Some(Type::Text),
        _ => None,
    }
}

/// The types `name`'s arguments take (a parameter's inferred type).
pub(crate) fn argument_types(name: &str, count: usize) -> Vec<Option<Type>> {
    let t = Some(Type::Text);
    let i = Some(Type::Int4);
    match name {
        "substr" | "substring" => vec![t, i, i],
        "split_part" => vec![t, t, i],
        "left" | "right" | "repeat" => vec![t, i],
        "lpad" | "rpad" => vec![t, i, t],
        "concat" => Vec::new(),
        _ => vec![t; count],
    }
}

/// `name(args)`.
pub(crate) fn call(name: &str, args: Vec<Typed>) -> PgResult<Typed> {
    match name {
        "concat" => return concat(None, args),
        "concat_ws" => {
            let mut args = args.into_iter();
            let separator = text_arg(name, args.next().expect("a separator"))?;
            return match separator {
                None => Ok(Typed::null(Type::Text)),
                Some(sep) => concat(Some(sep), args.collect()),
            };
        }
        "md5" if args[0].t == Type::Bytea => return md5_bytea(args),
        _ => {}
    }
    let t = return_type(name).expect("a string function");
    let mut texts = Vec::with_capacity(args.len());
    let mut ints = Vec::with_capacity(args.len());
    let mut null = false;
    for (arg, want) in args.into_iter().zip(argument_types(name, 3)) {
        if want == Some(Type::Int4) {
            let i = int_arg(name, arg)?;
            null |= i.is_none();
            ints.push(i.unwrap_or(0));
        } else {
            let s = text_arg(name, arg)?;
            null |= s.is_none();
            texts.push(s.unwrap_or_default());
        }
    }
    if null {
        return Ok(Typed::null(t));
    }
    let value = compute(name, &texts, &ints)?;
    Ok(Typed::new(value, t))
}

fn compute(name: &str, s: &[String], n: &[i64]) -> PgResult<Value> {
    let text = |s: String| Ok(Value::Text(s));
    match name {
        "substr" | "substring" => text(substr(&s[0], n[0], n.get(1).copied())?),
        "btrim" | "ltrim" | "rtrim" => {
            let chars = s.get(1).map_or(" ", String::as_str);
            text(trim(&s[0], chars, name != "rtrim", name != "ltrim"))
        }
        "split_part" => text(split_part(&s[0], &s[1], n[0])?),
        "replace" if s[1].is_empty() => text(s[0].clone()),
        "replace" => text(s[0].replace(&s[1], &s[2])),
        "left" | "right" => text(left_right(&s[0], n[0], name == "left")),
        "lpad" | "rpad" => {
            let fill = s.get(1).map_or(" ", String::as_str);
            text(pad(&s[0], n[0], fill, name == "lpad")?)
        }
        "starts_with" => Ok(Value::Bool(s[0].starts_with(s[1].as_str()))),
        "md5" => text(md5_hex(s[0].as_bytes())),
        "repeat" => text(repeat(&s[0], n[0])?),
        "reverse" => text(s[0].chars().rev().collect()),
        "strpos" => Ok(Value::Int(strpos(&s[0], &s[1]))),
        "initcap" => text(initcap(&s[0])),
        _ => unreachable!("knows() lists {name}"),
    }
}

/// A string argument: the string types and untyped literals; others are 42883.
fn text_arg(name: &str, arg: Typed) -> PgResult<Option<String>> {
    match (arg.t, arg.v) {
        (_, Value::Null) if string_type(arg.t) => Ok(None),
        (t, Value::Text(s)) if string_type(t) => Ok(Some(s)),
        // PostgreSQL has bytea forms of several (`substr`, `btrim`, `position`): refused,
        // not reported missing.
        (Type::Bytea, _) => Err(PgError::unsupported(format!("{name} of a bytea"))),
        (t, _) => Err(no_function(name, t)),
    }
}

fn string_type(t: Type) -> bool {
    matches!(t, Type::Text | Type::Varchar | Type::Unknown | Type::Name)
}

/// An int4 argument: int2, int4 or a literal that reads as one.
fn int_arg(name: &str, arg: Typed) -> PgResult<Option<i64>> {
    match arg.t {
        Type::Int2 | Type::Int4 => Ok(match arg.v {
            Value::Int(i) => Some(i),
            _ => None,
        }),
        Type::Unknown => match crate::pg::types::cast::cast(arg, Type::Int4, None)?.v {
            Value::Int(i) => Ok(Some(i)),
            _ => Ok(None),
        },
        t => Err(no_function(name, t)),
    }
}

fn no_function(name: &str, t: Type) -> PgError {
    PgError::new(
        UNDEFINED_FUNCTION,
        format!(
            "function {name} with an argument of type {} does not exist",
            t.name()
        ),
    )
}

/// `concat` (no separator) or `concat_ws`: each non-NULL argument's text output.
fn concat(separator: Option<String>, args: Vec<Typed>) -> PgResult<Typed> {
    let parts: Vec<String> = args
        .iter()
        .filter_map(|a| crate::pg::types::text::format(&a.v, a.t))
        .collect();
    let joined = parts.join(separator.as_deref().unwrap_or(""));
    Ok(Typed::new(Value::Text(joined), Type::Text))
}

/// Characters `start ..= start + count - 1` (1-based) that exist; no count: to the end.
fn substr(s: &str, start: i64, count: Option<i64>) -> PgResult<String> {
    let end = match count {
        Some(c) if c < 0 => {
            return Err(PgError::new(
                SUBSTRING_ERROR,
                "negative substring length not allowed",
            ))
        }
        Some(c) => start + c,
        None => i64::MAX,
    };
    let first = start.max(1);
    if end <= first {
        return Ok(String::new());
    }
    let taken = (end - first) as usize;
    Ok(s.chars().skip(first as usize - 1).take(taken).collect())
}

fn trim(s: &str, chars: &str, leading: bool, trailing: bool) -> String {
    let set = |c: char| chars.contains(c);
    let s = if leading {
        s.trim_start_matches(set)
    } else {
        s
    };
    let s = if trailing { s.trim_end_matches(set) } else { s };
    s.to_string()
}

fn split_part(s: &str, delimiter: &str, field: i64) -> PgResult<String> {
    if field == 0 {
        return Err(PgError::new(
            INVALID_PARAMETER_VALUE,
            "field position must not be zero",
        ));
    }
    if s.is_empty() {
        return Ok(String::new());
    }
    if delimiter.is_empty() {
        // The whole string is the one field.
        return Ok(match field {
            1 | -1 => s.to_string(),
            _ => String::new(),
        });
    }
    let fields: Vec<&str> = s.split(delimiter).collect();
    let index = match field {
        f if f > 0 => f - 1,
        f => fields.len() as i64 + f,
    };
    let part = usize::try_from(index).ok().and_then(|i| fields.get(i));
    Ok(part.map_or_else(String::new, |p| p.to_string()))
}

/// `left` keeps the first `n` characters (all but the last `-n` when negative); `right`
/// the last `n` (all but the first `-n`).
fn left_right(s: &str, n: i64, left: bool) -> String {
    let length = s.chars().count() as i64;
    let kept = if n < 0 {
        (length + n).max(0)
    } else {
        n.min(length)
    };
    match left {
        true => s.chars().take(kept as usize).collect(),
        false => s.chars().skip((length - kept) as usize).collect(),
    }
}

/// `lpad`/`rpad`: `s` filled to `length` characters with `fill` repeated, or cut to its
/// first `length` characters when longer.
fn pad(s: &str, length: i64, fill: &str, left: bool) -> PgResult<String> {
    let length = length.max(0);
    // PostgreSQL sizes the result for the encoding's longest character (4 bytes in UTF-8).
    if 4 * length > RESULT_BYTES_MAX {
        return Err(too_large());
    }
    let kept: String = s.chars().take(length as usize).collect();
    let missing = length as usize - kept.chars().count();
    if missing == 0 || fill.is_empty() {
        return Ok(kept);
    }
    let filler: String = fill.chars().cycle().take(missing).collect();
    Ok(match left {
        true => filler + &kept,
        false => kept + &filler,
    })
}

fn repeat(s: &str, count: i64) -> PgResult<String> {
    let count = count.max(0);
    if count * s.len() as i64 > RESULT_BYTES_MAX {
        return Err(too_large());
    }
    Ok(s.repeat(count as usize))
}

fn too_large() -> PgError {
    PgError::new(PROGRAM_LIMIT_EXCEEDED, "requested length too large")
}

/// The 1-based character position of `needle`'s first occurrence, 0 if none.
fn strpos(haystack: &str, needle: &str) -> i64 {
    match haystack.find(needle) {
        Some(at) => haystack[..at].chars().count() as i64 + 1,
        None => 0,
    }
}

/// The C locale's `initcap`: an ASCII letter after an ASCII letter or digit is lowered,
/// any other is raised; other characters pass unchanged and end a word.
fn initcap(s: &str) -> String {
    let mut in_word = false;
    s.chars()
        .map(|c| {
            let out = match in_word {
                true => c.to_ascii_lowercase(),
                false => c.to_ascii_uppercase(),
            };
            in_word = c.is_ascii_alphanumeric();
            out
        })
        .collect()
}

fn md5_hex(bytes: &[u8]) -> String {
    use md5::Digest;
    md5::Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn md5_bytea(mut args: Vec<Typed>) -> PgResult<Typed> {
    Ok(match args.pop().expect("an argument").v {
        Value::Bytea(b) => Typed::new(Value::Text(md5_hex(&b)), Type::Text),
        _ => Typed::null(Type::Text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substr_clips_to_the_string() {
        assert_eq!(substr("héllo", 2, Some(3)).unwrap(), "éll");
        assert_eq!(substr("hello", -1, Some(3)).unwrap(), "h");
        assert_eq!(substr("hello", 0, None).unwrap(), "hello");
        assert!(substr("hello", 1, Some(-1)).is_err());
    }

    #[test]
    fn split_part_counts_from_either_end() {
        assert_eq!(split_part("a,b,c", ",", -1).unwrap(), "c");
        assert_eq!(split_part("a,b,c", ",", 4).unwrap(), "");
        assert_eq!(split_part("a,b,c", ",", -4).unwrap(), "");
    }

    #[test]
    fn md5_is_hex() {
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
    }
}
