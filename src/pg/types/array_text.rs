//! An array's text form read as PostgreSQL's `array_in` reads it: `{a, "b c", NULL}`,
//! elements quoted or bare with backslash escapes, blank space around them ignored, and
//! everything else PostgreSQL calls a malformed array literal (22P02) failed as it fails
//! it. The model's arrays have one dimension and a lower bound of 1: a literal with
//! sub-arrays or explicit bounds (`[0:2]={…}`) is refused, never read as something else.

use crate::pg::error::{PgError, PgResult, FEATURE_NOT_SUPPORTED, INVALID_TEXT_REPRESENTATION};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::Value;

/// PostgreSQL's `MAXDIM`: dimensions an array may have.
const DIMENSIONS_MAX: usize = 6;

/// One element or sub-array of a literal: an element's text (`None`: NULL).
enum Node {
    Element(Option<String>),
    List(Vec<Node>),
}

/// `text` as an array of `t` (an array type), its elements read by `element_of`.
pub(crate) fn parse(
    text: &str,
    t: Type,
    element_of: impl Fn(&str, Type) -> PgResult<Value>,
) -> PgResult<Value> {
    let element = t.element().ok_or_else(|| malformed(text))?;
    let rest = text.trim_start_matches(is_blank);
    if rest.starts_with('[') {
        return Err(PgError::new(
            FEATURE_NOT_SUPPORTED,
            format!(
                "an array literal with explicit bounds, \"{text}\" (the model's arrays start at 1)"
            ),
        ));
    }
    let mut reader = Reader {
        chars: rest
            .strip_prefix('{')
            .ok_or_else(|| malformed(text))?
            .chars()
            .peekable(),
        text,
    };
    let items = reader.list(1)?;
    if reader.chars.any(|c| !is_blank(c)) {
        return Err(malformed(text));
    }
    match shape(&items, text)? {
        0 | 1 => {}
        _ if leaves_empty(&items) => return Ok(Value::Array(Vec::new())),
        _ => {
            return Err(PgError::new(
                FEATURE_NOT_SUPPORTED,
                format!(
                    "a multidimensional array, \"{text}\" (the model's arrays have one dimension)"
                ),
            ))
        }
    }
    let values = items.into_iter().map(|node| match node {
        Node::Element(None) => Ok(Value::Null),
        Node::Element(Some(item)) => element_of(&item, element),
        Node::List(_) => unreachable!("a one-dimensional array holds elements"),
    });
    values.collect::<PgResult<Vec<_>>>().map(Value::Array)
}

/// `array_in`'s blank space (`scanner_isspace`).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}')
}

fn malformed(text: &str) -> PgError {
    PgError::new(
        INVALID_TEXT_REPRESENTATION,
        format!("malformed array literal: \"{text}\""),
    )
}

struct Reader<'t> {
    chars: std::iter::Peekable<std::str::Chars<'t>>,
    text: &'t str,
}

impl Reader<'_> {
    fn skip_blank(&mut self) {
        while self.chars.next_if(|c| is_blank(*c)).is_some() {}
    }

    /// The items of a list whose `{` was read, through its `}`.
    fn list(&mut self, depth: usize) -> PgResult<Vec<Node>> {
        if depth > DIMENSIONS_MAX {
            return Err(PgError::new(
                crate::pg::error::PROGRAM_LIMIT_EXCEEDED,
                format!(
                    "number of array dimensions exceeds the maximum allowed ({DIMENSIONS_MAX})"
                ),
            ));
        }
        let mut items = Vec::new();
        self.skip_blank();
        if self.chars.next_if_eq(&'}').is_some() {
            return Ok(items);
        }
        loop {
            self.skip_blank();
            let item = match self.chars.peek() {
                Some('{') => {
                    self.chars.next();
                    Node::List(self.list(depth + 1)?)
                }
                Some('"') => Node::Element(Some(self.quoted()?)),
                Some('}' | ',') | None => return Err(malformed(self.text)),
                Some(_) => Node::Element(self.bare()?),
            };
            items.push(item);
            self.skip_blank();
            match self.chars.next() {
                Some(',') => continue,
                Some('}') => return Ok(items),
                _ => return Err(malformed(self.text)),
            }
        }
    }

    /// A quoted element: its text, escapes undone.
    fn quoted(&mut self) -> PgResult<String> {
        self.chars.next();
        let mut item = String::new();
        loop {
            match self.chars.next() {
                Some('"') => return Ok(item),
                Some('\\') => item.push(self.chars.next().ok_or_else(|| malformed(self.text))?),
                Some(c) => item.push(c),
                None => return Err(malformed(self.text)),
            }
        }
    }

    /// A bare element: its text without the blank space that ends it (escaped blank space
    /// stays); `None` for an unescaped `NULL` in any case.
    fn bare(&mut self) -> PgResult<Option<String>> {
        let (mut item, mut kept_len, mut escaped) = (String::new(), 0, false);
        while let Some(&c) = self.chars.peek() {
            match c {
                ',' | '}' => break,
                '{' | '"' => return Err(malformed(self.text)),
                '\\' => {
                    self.chars.next();
                    item.push(self.chars.next().ok_or_else(|| malformed(self.text))?);
                    (kept_len, escaped) = (item.len(), true);
                    continue;
                }
                c => {
                    item.push(c);
                    if !is_blank(c) {
                        kept_len = item.len();
                    }
                }
            }
            self.chars.next();
        }
        item.truncate(kept_len);
        let null = !escaped && item.eq_ignore_ascii_case("null");
        Ok((!null).then_some(item))
    }
}

/// The literal's dimensions (0 for `{}`), failing a literal whose sub-arrays differ in
/// shape or mix elements with sub-arrays, as `array_in` fails it.
fn shape(items: &[Node], text: &str) -> PgResult<usize> {
    let Some(first) = items.first() else {
        return Ok(0);
    };
    let sub_shape = |node: &Node| -> PgResult<Option<(usize, usize)>> {
        match node {
            Node::Element(_) => Ok(None),
            Node::List(list) => Ok(Some((list.len(), shape(list, text)?))),
        }
    };
    let expected = sub_shape(first)?;
    for item in items {
        if sub_shape(item)? != expected {
            return Err(malformed(text));
        }
    }
    Ok(match expected {
        None => 1,
        Some((_, below)) => 1 + below.max(1),
    })
}

/// True when every sub-array is empty (`{{},{}}`, which PostgreSQL reads as `{}`).
fn leaves_empty(items: &[Node]) -> bool {
    items.iter().all(|node| match node {
        Node::List(list) => leaves_empty(list),
        Node::Element(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<Option<String>>, &'static str> {
        let value = parse(text, Type::TextArray, |item, _| {
            Ok(Value::Text(item.into()))
        });
        match value {
            Ok(Value::Array(items)) => Ok(items
                .into_iter()
                .map(|v| match v {
                    Value::Text(s) => Some(s),
                    _ => None,
                })
                .collect()),
            Ok(_) => unreachable!("an array"),
            Err(e) if e.code == FEATURE_NOT_SUPPORTED => Err("refused"),
            Err(e) if e.code == INVALID_TEXT_REPRESENTATION => Err("malformed"),
            Err(_) => Err("other"),
        }
    }

    fn some(items: &[&str]) -> Result<Vec<Option<String>>, &'static str> {
        Ok(items.iter().map(|s| Some(s.to_string())).collect())
    }

    #[test]
    fn elements_read_as_array_in_reads_them() {
        assert_eq!(read("{}"), Ok(vec![]));
        assert_eq!(read(" { } "), Ok(vec![]));
        assert_eq!(read("{{},{}}"), Ok(vec![]));
        assert_eq!(read("{ ab\\c , \"ab\\\"c\" }"), some(&["abc", "ab\"c"]));
        assert_eq!(
            read("{null,n\\ull,\"null\"}"),
            Ok(vec![None, Some("null".into()), Some("null".into())])
        );
        assert_eq!(read("{a\\ ,b}"), some(&["a ", "b"]));
        assert_eq!(read("{ a b ,c}"), some(&["a b", "c"]));
    }

    #[test]
    fn malformed_literals_fail_as_postgresql_fails_them() {
        for text in [
            "{{1,{2}},{2,3}}",
            "{\"a\"b}",
            "{a\"b\"}",
            "{\"a\"\"b\"}",
            "{}}",
            "{ }}",
            "{foo{}}",
            "{foo,,bar}",
            "{{1},{{2}}}",
            "{{1},{}}",
            "{1,}",
            "{{1,}}",
            "1,2",
            "{1,2",
            "{\"a",
        ] {
            assert_eq!(read(text), Err("malformed"), "{text}");
        }
    }

    #[test]
    fn bounds_and_dimensions_the_model_lacks_are_refused() {
        for text in ["[0:1]={a,b}", "{{a,b},{c,d}}", "{{{1}}}"] {
            assert_eq!(read(text), Err("refused"), "{text}");
        }
        assert_eq!(read("{{{{{{{1}}}}}}}"), Err("other"));
    }
}
