//! `LIKE` and `ILIKE` as PostgreSQL matches them: `%` is any run of characters, `_` one
//! character, and the escape character (`\` unless `ESCAPE` names another; none with
//! `ESCAPE ''`) makes the next character literal. `ILIKE` lowers both sides first, as the
//! `C` locale the model assumes lowers them: ASCII letters only. A pattern ending in the
//! escape character fails (22025) only when the match reaches that end with text left,
//! as PostgreSQL's does. The match backtracks only to the last `%`, so its steps are
//! bounded by the product of the lengths, and that product is bounded too.

use crate::pg::error::*;

/// The most steps one match may take (the string's length times the pattern's).
const LIKE_STEPS_MAX: usize = 1 << 24;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Token {
    /// `%`
    Any,
    /// `_`
    One,
    Literal(char),
    /// The escape character ending the pattern.
    DanglingEscape,
}

/// The escape character an `ESCAPE` string names: `None` for `''`.
pub(crate) fn escape_char(escape: &str) -> PgResult<Option<char>> {
    let mut chars = escape.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Ok(None),
        (Some(c), None) => Ok(Some(c)),
        _ => Err(PgError::new(
            INVALID_ESCAPE_SEQUENCE,
            "invalid escape string",
        )),
    }
}

fn compile(pattern: &str, escape: Option<char>, lower: bool) -> PgResult<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        let token = match c {
            c if Some(c) == escape => chars.next().map_or(Token::DanglingEscape, Token::Literal),
            '%' => Token::Any,
            '_' => Token::One,
            c => Token::Literal(c),
        };
        // Consecutive `%` match what one does.
        if !(token == Token::Any && tokens.last() == Some(&Token::Any)) {
            tokens.push(token);
        }
    }
    if lower {
        for t in &mut tokens {
            if let Token::Literal(c) = t {
                *t = Token::Literal(lower_char(*c));
            }
        }
    }
    Ok(tokens)
}

/// A character lowered as the `C` locale lowers it.
fn lower_char(c: char) -> char {
    c.to_ascii_lowercase()
}

fn dangling() -> PgError {
    PgError::new(
        INVALID_ESCAPE_SEQUENCE,
        "LIKE pattern must not end with escape character",
    )
}

/// `s LIKE pattern` (or `ILIKE` when `insensitive`), with `escape` as the escape character.
pub(crate) fn like(
    s: &str,
    pattern: &str,
    escape: Option<char>,
    insensitive: bool,
) -> PgResult<bool> {
    let tokens = compile(pattern, escape, insensitive)?;
    let chars: Vec<char> = match insensitive {
        true => s.chars().map(lower_char).collect(),
        false => s.chars().collect(),
    };
    if chars.len().saturating_mul(tokens.len() + 1) > LIKE_STEPS_MAX {
        return Err(PgError::new(
            PROGRAM_LIMIT_EXCEEDED,
            format!(
                "LIKE on strings this long exceeds the model's limit of {LIKE_STEPS_MAX} steps"
            ),
        ));
    }
    matches(&chars, &tokens)
}

/// The greedy wildcard match: on a mismatch, the last `%` takes one more character.
fn matches(s: &[char], p: &[Token]) -> PgResult<bool> {
    let (mut si, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(Token::Any) => {
                dangles_after_star(&p[pi + 1..], s.len() - si)?;
                star = Some((pi, si));
                pi += 1;
            }
            Some(Token::DanglingEscape) => return Err(dangling()),
            Some(Token::One) => (si, pi) = (si + 1, pi + 1),
            Some(Token::Literal(c)) if *c == s[si] => (si, pi) = (si + 1, pi + 1),
            _ => match star {
                Some((sp, ss)) => {
                    star = Some((sp, ss + 1));
                    (si, pi) = (ss + 1, sp + 1);
                }
                None => return Ok(false),
            },
        }
    }
    Ok(p[pi..].iter().all(|t| *t == Token::Any))
}

/// PostgreSQL looks past a `%` (and the `_`s after it, while text is left for them) for
/// the character to search for: a dangling escape there fails the match at once.
fn dangles_after_star(rest: &[Token], left: usize) -> PgResult<()> {
    let ones = rest.iter().take_while(|t| **t == Token::One).count();
    match rest.get(ones) {
        Some(Token::DanglingEscape) if ones <= left => Err(dangling()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_escapes_and_case() {
        let m = |s, p| like(s, p, Some('\\'), false).unwrap();
        assert!(m("pizza_100%", "%pizza\\_100\\%%"));
        assert!(!m("pizzax100%", "%pizza\\_100\\%%"));
        assert!(m("abc", "a%c"));
        assert!(m("ac", "a%c"));
        assert!(!m("ab", "a%c"));
        assert!(m("aXbXc", "a%b%c"));
        assert!(m("é", "_"));
        assert!(!m("", "_"));
        assert!(m("", "%%"));
        assert!(like("VECTOR", "vector", None, true).unwrap());
        assert!(!like("VECTOR", "vector", None, false).unwrap());
        assert!(like("a%", "a!%", Some('!'), false).unwrap());
        assert!(!like("ab", "a!%", Some('!'), false).unwrap());
        assert!(!like("a", "a\\", Some('\\'), false).unwrap());
        assert_eq!(
            like("ab", "a\\", Some('\\'), false).unwrap_err().code,
            INVALID_ESCAPE_SEQUENCE
        );
        assert_eq!(
            like("ab", "a%\\", Some('\\'), false).unwrap_err().code,
            INVALID_ESCAPE_SEQUENCE
        );
        assert!(!like("É", "é", None, true).unwrap());
        assert_eq!(escape_char("ab").unwrap_err().code, INVALID_ESCAPE_SEQUENCE);
    }
}
