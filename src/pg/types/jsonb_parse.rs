//! The JSON grammar PostgreSQL's lexer and parser accept, shared by `jsonb` and `json`:
//! RFC 8259 (whitespace is space, tab, newline and carriage return only), a scalar allowed
//! at the top level. What a parse makes is its [`Build`]'s: jsonb's value (`\u` escapes
//! joined into surrogate pairs, `\u0000` refused: jsonb stores text, which cannot hold it;
//! numbers as numeric's text), or `json`'s validation and spans (`json.rs`), which, as
//! PostgreSQL's `json_in`, check escapes only for their four hex digits. Bounded: nesting
//! depth ([`DEPTH_MAX`]) and the printed size of jsonb's numbers, so a hostile input fails
//! at once instead of stalling or exhausting memory.

use crate::pg::error::{
    PgError, PgResult, INVALID_TEXT_REPRESENTATION, PROGRAM_LIMIT_EXCEEDED,
    UNTRANSLATABLE_CHARACTER,
};
use crate::pg::types::json_number;
use crate::pg::types::jsonb::{object, Json, DEPTH_MAX};
use crate::pg::types::pg_type::VALUE_BYTES_MAX;
use std::ops::Range;

/// What a parse makes of each value it reads; `span` is the value's bytes in the input.
pub(crate) trait Build {
    type Node;
    /// Whether strings are unescaped (PostgreSQL's `need_escapes`): surrogates joined and
    /// `\u0000` refused. Without it an escape is only checked for its hex digits.
    const UNESCAPE: bool;
    /// `null`, `true`, `false` or a string.
    fn scalar(&mut self, json: Json, span: Range<usize>) -> PgResult<Self::Node>;
    /// A number, as written.
    fn number(&mut self, text: &str, span: Range<usize>) -> PgResult<Self::Node>;
    fn array(&mut self, items: Vec<Self::Node>, span: Range<usize>) -> Self::Node;
    /// The pairs in input order, duplicates kept.
    fn object(&mut self, pairs: Vec<(String, Self::Node)>, span: Range<usize>) -> Self::Node;
}

/// jsonb's value: objects sorted and unique, numbers normalised and their size bounded.
#[derive(Default)]
struct Jsonb {
    /// The numbers' printed size so far: `1e100000` prints 100001 digits.
    number_bytes: usize,
}

impl Build for Jsonb {
    type Node = Json;
    const UNESCAPE: bool = true;

    fn scalar(&mut self, json: Json, _: Range<usize>) -> PgResult<Json> {
        Ok(json)
    }

    fn number(&mut self, text: &str, _: Range<usize>) -> PgResult<Json> {
        let normalised = json_number::normalise(text)?;
        self.number_bytes += normalised.len();
        if self.number_bytes > VALUE_BYTES_MAX {
            return Err(PgError::new(
                PROGRAM_LIMIT_EXCEEDED,
                format!("jsonb numbers longer than the model's {VALUE_BYTES_MAX} bytes"),
            ));
        }
        Ok(Json::Number(normalised))
    }

    fn array(&mut self, items: Vec<Json>, _: Range<usize>) -> Json {
        Json::Array(items)
    }

    fn object(&mut self, pairs: Vec<(String, Json)>, _: Range<usize>) -> Json {
        object(pairs)
    }
}

/// `text` as jsonb.
pub(crate) fn parse(text: &str) -> PgResult<Json> {
    parse_with(text, &mut Jsonb::default())
}

/// `text` read by the grammar into what `build` makes of it.
pub(crate) fn parse_with<B: Build>(text: &str, build: &mut B) -> PgResult<B::Node> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
        depth: 0,
        build,
    };
    let value = parser.value()?;
    parser.skip_whitespace();
    if parser.at < parser.bytes.len() {
        return Err(parser.unexpected());
    }
    Ok(value)
}
/// The error of any input the JSON grammar refuses.
pub(crate) fn invalid(detail: impl Into<String>) -> PgError {
    PgError::new(
        INVALID_TEXT_REPRESENTATION,
        "invalid input syntax for type json",
    )
    .with_detail(detail)
}

struct Parser<'t, 'b, B: Build> {
    bytes: &'t [u8],
    at: usize,
    depth: usize,
    build: &'b mut B,
}

impl<B: Build> Parser<'_, '_, B> {
    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// The error at the current position: the token there, or the input's end.
    fn unexpected(&self) -> PgError {
        if self.at >= self.bytes.len() {
            return invalid("The input string ended unexpectedly.");
        }
        let end = self.bytes[self.at..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .map_or(self.bytes.len(), |n| self.at + n.max(1));
        let token = String::from_utf8_lossy(&self.bytes[self.at..end]);
        invalid(format!("Token \"{token}\" is invalid."))
    }

    fn value(&mut self) -> PgResult<B::Node> {
        self.skip_whitespace();
        let start = self.at;
        let scalar = match self.peek() {
            Some(b'{') => return self.nested(Self::object),
            Some(b'[') => return self.nested(Self::array),
            Some(b'"') => Json::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => return self.number(),
            Some(b't') => self.keyword("true", Json::Bool(true))?,
            Some(b'f') => self.keyword("false", Json::Bool(false))?,
            Some(b'n') => self.keyword("null", Json::Null)?,
            _ => return Err(self.unexpected()),
        };
        self.build.scalar(scalar, start..self.at)
    }

    fn nested(&mut self, parse: fn(&mut Self, usize) -> PgResult<B::Node>) -> PgResult<B::Node> {
        if self.depth >= DEPTH_MAX {
            // PostgreSQL goes deeper (to its stack depth, then 54001): beyond the model's
            // bound the value is refused, not answered with an error PostgreSQL would not raise.
            return Err(PgError::unsupported(format!(
                "jsonb nested deeper than {DEPTH_MAX} levels"
            )));
        }
        self.depth += 1;
        let start = self.at;
        self.at += 1;
        let value = parse(self, start);
        self.depth -= 1;
        value
    }

    fn keyword(&mut self, word: &str, value: Json) -> PgResult<Json> {
        let end = self.at + word.len();
        let follows_ok = !self.bytes.get(end).is_some_and(u8::is_ascii_alphanumeric);
        if self.bytes.get(self.at..end) != Some(word.as_bytes()) || !follows_ok {
            return Err(self.unexpected());
        }
        self.at = end;
        Ok(value)
    }

    /// After the `[` at `start`.
    fn array(&mut self, start: usize) -> PgResult<B::Node> {
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(self.build.array(items, start..self.at));
        }
        loop {
            items.push(self.value()?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(self.build.array(items, start..self.at));
                }
                _ => return Err(self.expected("\",\" or \"]\"")),
            }
        }
    }

    /// After the `{` at `start`.
    fn object(&mut self, start: usize) -> PgResult<B::Node> {
        let mut pairs = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(self.build.object(pairs, start..self.at));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.expected("string"));
            }
            let key = self.string()?;
            self.skip_whitespace();
            if self.peek() != Some(b':') {
                return Err(self.expected("\":\""));
            }
            self.at += 1;
            pairs.push((key, self.value()?));
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(self.build.object(pairs, start..self.at));
                }
                _ => return Err(self.expected("\",\" or \"}\"")),
            }
        }
    }

    fn expected(&self, what: &str) -> PgError {
        match self.at >= self.bytes.len() {
            true => self.unexpected(),
            false => invalid(format!("Expected {what}, but found something else.")),
        }
    }

    /// A number by the JSON grammar, handed over as written.
    fn number(&mut self) -> PgResult<B::Node> {
        let start = self.at;
        self.at += usize::from(self.peek() == Some(b'-'));
        let integer = self.digits();
        let leading_zero = integer > 1 && self.bytes[self.at - integer] == b'0';
        if integer == 0 || leading_zero {
            return Err(self.token_from(start));
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.token_from(start));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            self.at += usize::from(matches!(self.peek(), Some(b'+' | b'-')));
            if self.digits() == 0 {
                return Err(self.token_from(start));
            }
        }
        if self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
        {
            return Err(self.token_from(start));
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).expect("ASCII");
        self.build.number(text, start..self.at)
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    /// The invalid token that starts at `start` (PostgreSQL names the whole run).
    fn token_from(&mut self, start: usize) -> PgError {
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
        {
            self.at += 1;
        }
        let token = String::from_utf8_lossy(&self.bytes[start..self.at]);
        invalid(format!("Token \"{token}\" is invalid."))
    }

    /// A string after its opening quote's position, unescaped.
    fn string(&mut self) -> PgResult<String> {
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.unexpected());
            };
            self.at += 1;
            match byte {
                b'"' => break,
                b'\\' => self.escape(&mut out)?,
                byte if byte < 0x20 => {
                    return Err(invalid(format!(
                        "Character with value 0x{byte:02x} must be escaped."
                    )))
                }
                byte => out.push(byte),
            }
        }
        // The input was UTF-8 and escapes push whole characters.
        Ok(String::from_utf8(out).expect("UTF-8 in, UTF-8 out"))
    }

    /// After a backslash in a string.
    fn escape(&mut self, out: &mut Vec<u8>) -> PgResult<()> {
        let Some(byte) = self.peek() else {
            return Err(self.unexpected());
        };
        self.at += 1;
        let plain = match byte {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let c = self.unicode_escape()?;
                out.extend(c.encode_utf8(&mut [0; 4]).as_bytes());
                return Ok(());
            }
            other => {
                let shown = String::from_utf8_lossy(&[other]).into_owned();
                return Err(invalid(format!(
                    "Escape sequence \"\\{shown}\" is invalid."
                )));
            }
        };
        out.push(plain);
        Ok(())
    }

    /// After `\u`: four hex digits, a high surrogate's low half joined to it (only checked
    /// for its digits when not unescaping: U+FFFD stands in for the character).
    fn unicode_escape(&mut self) -> PgResult<char> {
        let first = self.hex4()?;
        if !B::UNESCAPE {
            return Ok(char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
        if first == 0 {
            return Err(PgError::new(
                UNTRANSLATABLE_CHARACTER,
                "unsupported Unicode escape sequence",
            )
            .with_detail("\\u0000 cannot be converted to text."));
        }
        let surrogate_error = || invalid("Unicode low surrogate must follow a high surrogate.");
        let code = match first {
            0xD800..=0xDBFF => {
                if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                    return Err(surrogate_error());
                }
                self.at += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(surrogate_error());
                }
                0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(surrogate_error()),
            code => code,
        };
        Ok(char::from_u32(code).expect("not a surrogate"))
    }

    fn hex4(&mut self) -> PgResult<u32> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| invalid("\"\\u\" must be followed by four hexadecimal digits."))?;
        self.at += 4;
        let text = std::str::from_utf8(digits).expect("hex digits");
        Ok(u32::from_str_radix(text, 16).expect("hex digits"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::error::FEATURE_NOT_SUPPORTED;
    use crate::pg::types::jsonb::format;

    fn round(text: &str) -> String {
        format(&parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}")))
    }

    #[test]
    fn input_is_normalised() {
        assert_eq!(
            round(r#" {"b":[1,2], "a" : 1.50 }"#),
            r#"{"a": 1.50, "b": [1, 2]}"#
        );
        assert_eq!(round(r#"{"a":1,"a":2}"#), r#"{"a": 2}"#);
        assert_eq!(round("\"\\u00e9\\ud83d\\ude00\\/\""), "\"é😀/\"");
        assert_eq!(round("-0"), "0");
        assert_eq!(round("[]"), "[]");
        assert_eq!(round("{}"), "{}");
        assert_eq!(round(" null "), "null");
    }

    #[test]
    fn malformed_input_is_refused() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\"}",
            "01",
            "1.",
            ".5",
            "+1",
            "tru",
            "truex",
            "1x",
            "\"\t\"",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "[1] 2",
            "{'a':1}",
            "\"\\u12\"",
        ] {
            let error = parse(bad).expect_err(bad);
            assert_eq!(error.code, INVALID_TEXT_REPRESENTATION, "{bad}");
        }
        assert_eq!(
            parse("\"\\u0000\"").unwrap_err().code,
            UNTRANSLATABLE_CHARACTER
        );
    }

    #[test]
    fn hostile_input_fails_fast() {
        let deep = "[".repeat(100_000);
        assert_eq!(parse(&deep).unwrap_err().code, FEATURE_NOT_SUPPORTED);
        let wide = format!("[{}1]", "1e131071,".repeat(10));
        assert_eq!(parse(&wide).unwrap_err().code, PROGRAM_LIMIT_EXCEEDED);
        let ok = format!("{}{}", "[".repeat(DEPTH_MAX), "]".repeat(DEPTH_MAX));
        assert!(parse(&ok).is_ok());
    }
}
