//! A query string parsed as PostgreSQL's dialect ([`parse`]), bounded in bytes and
//! nesting, its syntax errors in PostgreSQL's class; the highest `$n` it names.
//!
//! sqlparser knows `FOR UPDATE` and `FOR SHARE` but not PostgreSQL's `FOR NO KEY UPDATE`
//! and `FOR KEY SHARE`: their tokens are rewritten before parsing into the known clause
//! with an `OF` whose first name part is [`KEY_LOCK_MARKER`], which the executor reads
//! back as the weaker lock.

use crate::pg::error::{self, PgError, PgResult};
use sqlparser::ast::Statement;
use std::sync::Arc;

/// Bytes of SQL one statement string may have.
const SQL_BYTES_MAX: usize = 1 << 20;

/// Parameters one statement may have (PostgreSQL's protocol limit).
pub(crate) const PARAMS_MAX: usize = 65_535;

/// A query string's statements, shared by every connection that sends it.
pub(crate) type Parsed = Arc<ParsedSql>;

/// What parsing a query string gives.
pub(crate) struct ParsedSql {
    pub statements: Vec<Arc<Statement>>,
    /// The highest `$n` the string names.
    pub placeholders: usize,
}

/// `sql` parsed as PostgreSQL's dialect, its syntax errors as PostgreSQL's class.
pub(crate) fn parse(sql: &str) -> PgResult<Vec<Statement>> {
    if sql.len() > SQL_BYTES_MAX {
        return Err(PgError::new(
            error::PROGRAM_LIMIT_EXCEEDED,
            "statement longer than the model accepts",
        ));
    }
    let rewritten = crate::pg::sql::maintenance::rewrite(sql)?;
    let sql = rewritten.as_deref().unwrap_or(sql);
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    if sql.to_ascii_lowercase().contains("interval") && interval_precision_literal(sql) {
        return Err(PgError::unsupported(
            "an interval(p) '…' literal (its precision would be lost)",
        ));
    }
    let parser = sqlparser::parser::Parser::new(&dialect).with_recursion_limit(64);
    let (has_key, has_l1) = (
        sql.to_ascii_lowercase().contains("key"),
        sql.contains("<+>"),
    );
    let tokens = match has_key || has_l1 {
        true => sqlparser::tokenizer::Tokenizer::new(&dialect, sql)
            .tokenize_with_location()
            .ok()
            .map(|tokens| if has_l1 { l1_operator(tokens) } else { tokens })
            .and_then(|tokens| match has_key {
                true => key_locks(tokens.clone()).or(has_l1.then_some(tokens)),
                false => Some(tokens),
            }),
        false => None,
    };
    let parser = match tokens {
        Some(tokens) => Ok(parser.with_tokens_with_locations(tokens)),
        None => parser.try_with_sql(sql),
    };
    parser
        .and_then(|mut parser| parser.parse_statements())
        .map_err(|e| syntax_error(sql, e))
}

/// A parse failure: PostgreSQL's syntax error where PostgreSQL certainly fails the text
/// too (a token it cannot read, or a first word that begins none of its statements);
/// otherwise a refusal, since sqlparser does not read all of PostgreSQL's grammar and
/// answering 42601 to a statement PostgreSQL runs would fail a correct store.
fn syntax_error(sql: &str, e: sqlparser::parser::ParserError) -> PgError {
    use sqlparser::parser::ParserError;
    if let Some(op) = ["<+>", "<~>", "<%>"].iter().find(|op| sql.contains(**op)) {
        return PgError::unsupported(format!("the operator {op}"));
    }
    if let Some(what) = unparsed_syntax(sql) {
        return PgError::unsupported(what);
    }
    match e {
        ParserError::TokenizerError(_) => PgError::syntax(format!("syntax error: {e}")),
        _ if !begins_a_statement(sql) => PgError::syntax(format!("syntax error: {e}")),
        _ => PgError::unsupported(format!(
            "a statement amnesia's SQL parser cannot read ({e}); PostgreSQL may run it or \
             fail it as a syntax error"
        )),
    }
}

/// The words PostgreSQL's grammar (`gram.y`'s `stmt`) begins a statement with.
const STATEMENT_WORDS: [&str; 53] = [
    "abort",
    "alter",
    "analyse",
    "analyze",
    "begin",
    "call",
    "checkpoint",
    "close",
    "cluster",
    "comment",
    "commit",
    "copy",
    "create",
    "deallocate",
    "declare",
    "delete",
    "discard",
    "do",
    "drop",
    "end",
    "execute",
    "explain",
    "fetch",
    "grant",
    "import",
    "insert",
    "listen",
    "load",
    "lock",
    "merge",
    "move",
    "notify",
    "prepare",
    "reassign",
    "refresh",
    "reindex",
    "release",
    "reset",
    "revoke",
    "rollback",
    "savepoint",
    "security",
    "select",
    "set",
    "show",
    "start",
    "table",
    "truncate",
    "unlisten",
    "update",
    "vacuum",
    "values",
    "with",
];

/// True when `sql` (past blank space, comments and opening parentheses) begins with a
/// word that can begin a PostgreSQL statement, or holds nothing but blank space.
fn begins_a_statement(sql: &str) -> bool {
    let mut rest = sql.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("--") {
            rest = after
                .split_once('\n')
                .map_or("", |(_, next)| next)
                .trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after
                .split_once("*/")
                .map_or("", |(_, next)| next)
                .trim_start();
        } else if let Some(after) = rest.strip_prefix('(') {
            rest = after.trim_start();
        } else {
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    rest.is_empty() || STATEMENT_WORDS.binary_search(&word.as_str()).is_ok()
}

/// The `OF` name part that marks a rewritten `FOR KEY SHARE` / `FOR NO KEY UPDATE`: a
/// quoted name no schema holds.
pub(crate) const KEY_LOCK_MARKER: &str = "amnesia:key";

/// `tokens` with each `FOR KEY SHARE [OF t]` as `FOR SHARE OF "marker"[.t]` and each
/// `FOR NO KEY UPDATE [OF t]` as `FOR UPDATE OF "marker"[.t]`; `None` when there is none.
/// pgvector's `<+>` as one operator, as PostgreSQL's lexer reads it: sqlparser reads
/// `<+` as `<` then `+` (so that `a<+1` compares), leaving `<`, `+`, `>`; three such
/// tokens with nothing between them become the custom operator `<+>`.
fn l1_operator(
    tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Vec<sqlparser::tokenizer::TokenWithSpan> {
    use sqlparser::tokenizer::{Token, TokenWithSpan};
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for token in tokens {
        let n = out.len();
        let merges = n >= 2
            && token.token == Token::Gt
            && out[n - 1].token == Token::Plus
            && out[n - 2].token == Token::Lt;
        if merges {
            let start = out[n - 2].span.start;
            out.truncate(n - 2);
            let span = sqlparser::tokenizer::Span::new(start, token.span.end);
            out.push(TokenWithSpan::new(
                Token::CustomBinaryOperator("<+>".to_string()),
                span,
            ));
        } else {
            out.push(token);
        }
    }
    out
}

fn key_locks(
    tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Option<Vec<sqlparser::tokenizer::TokenWithSpan>> {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::{Token, TokenWithSpan};
    let keyword = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.keyword),
        _ => None,
    };
    // The positions of the significant tokens (whitespace and comments skipped).
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|at| !matches!(tokens[*at].token, Token::Whitespace(_)))
        .collect();
    let word_at = |i: usize| significant.get(i).and_then(|at| keyword(&tokens[*at]));
    // For each rewrite: the tokens dropped, and where the marker goes (and whether an
    // `OF` must be written before it).
    let mut dropped = Vec::new();
    let mut markers: Vec<(usize, bool)> = Vec::new();
    for i in 0..significant.len() {
        if word_at(i) != Some(Keyword::FOR) {
            continue;
        }
        let (words, strength) = match (word_at(i + 1), word_at(i + 2), word_at(i + 3)) {
            (Some(Keyword::NO), Some(Keyword::KEY), Some(Keyword::UPDATE)) => (2, i + 3),
            (Some(Keyword::KEY), Some(Keyword::SHARE), _) => (1, i + 2),
            _ => continue,
        };
        dropped.extend((i + 1..i + 1 + words).map(|k| significant[k]));
        match word_at(strength + 1) {
            Some(Keyword::OF) => markers.push((significant[strength + 1], false)),
            _ => markers.push((significant[strength], true)),
        }
    }
    if markers.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(tokens.len() + 4 * markers.len());
    for (at, token) in tokens.into_iter().enumerate() {
        if dropped.contains(&at) {
            continue;
        }
        out.push(token);
        let Some((_, write_of)) = markers.iter().find(|(after, _)| *after == at) else {
            continue;
        };
        let space =
            || TokenWithSpan::wrap(Token::Whitespace(sqlparser::tokenizer::Whitespace::Space));
        if *write_of {
            out.push(space());
            out.push(TokenWithSpan::wrap(Token::make_keyword("OF")));
        }
        out.push(space());
        out.push(TokenWithSpan::wrap(Token::make_word(
            KEY_LOCK_MARKER,
            Some('"'),
        )));
        if !*write_of {
            // `OF t` follows: the marker becomes the first part of t's name.
            out.push(TokenWithSpan::wrap(Token::Period));
        }
    }
    Some(out)
}

/// PostgreSQL syntax sqlparser's tokenizer fails on, found in the text: what to refuse it
/// as (a tokenizer error is otherwise PostgreSQL's syntax error). Any other syntax
/// sqlparser does not read fails its parser, and is refused by `syntax_error`'s rule.
fn unparsed_syntax(sql: &str) -> Option<&'static str> {
    let lower = sql.to_ascii_lowercase();
    if lower.contains("u&'") || lower.contains("u&\"") {
        return Some("Unicode escape strings (U&'…')");
    }
    if lower.contains("e'") && lower.contains("\\u") {
        return Some("Unicode escapes in E'…' strings");
    }
    None
}

/// Whether `sql` holds `interval(p) '…'`: sqlparser reads the literal and drops the
/// precision written before it.
fn interval_precision_literal(sql: &str) -> bool {
    use sqlparser::tokenizer::Token;
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let Ok(tokens) = sqlparser::tokenizer::Tokenizer::new(&dialect, sql).tokenize() else {
        return false;
    };
    let tokens: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    tokens.windows(5).any(|w| {
        matches!(w[0], Token::Word(word) if word.value.eq_ignore_ascii_case("interval"))
            && matches!(w[1], Token::LParen)
            && matches!(w[2], Token::Number(..))
            && matches!(w[3], Token::RParen)
            && matches!(
                w[4],
                Token::SingleQuotedString(_)
                    | Token::EscapedStringLiteral(_)
                    | Token::DollarQuotedString(_)
            )
    })
}

/// The highest `$n` in `sql`, outside strings, quoted names and comments.
pub(crate) fn placeholders(sql: &str) -> usize {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let Ok(tokens) = sqlparser::tokenizer::Tokenizer::new(&dialect, sql).tokenize() else {
        return 0;
    };
    tokens
        .iter()
        .filter_map(|t| match t {
            sqlparser::tokenizer::Token::Placeholder(p) => {
                p.strip_prefix('$')?.parse::<usize>().ok()
            }
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .min(crate::pg::sql::parse::PARAMS_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lock clauses of `sql`'s first statement, as sqlparser prints them back.
    fn locks(sql: &str) -> Vec<String> {
        let statements = parse(sql).expect("parses");
        let Statement::Query(query) = &statements[0] else {
            panic!("a query");
        };
        query.locks.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn l1_distance_is_one_operator() {
        let statements = parse("SELECT a<+>b, c <+> '[1]', d<+1, '<+>' FROM t").expect("parses");
        let printed = statements[0].to_string();
        assert!(printed.contains("a <+> b"), "{printed}");
        assert!(printed.contains("c <+> '[1]'"), "{printed}");
        assert!(printed.contains("d < +1"), "{printed}");
        assert!(printed.contains("'<+>'"), "{printed}");
    }

    #[test]
    fn key_share_and_no_key_update_arrive_marked() {
        assert_eq!(
            locks("SELECT 1 FROM t FOR KEY SHARE"),
            ["FOR SHARE OF \"amnesia:key\""]
        );
        assert_eq!(
            locks("select 1 from t for no key update of t skip locked"),
            ["FOR UPDATE OF \"amnesia:key\".t SKIP LOCKED"]
        );
        assert_eq!(
            locks("SELECT 'for key share' FROM t FOR UPDATE NOWAIT"),
            ["FOR UPDATE NOWAIT"]
        );
        assert_eq!(
            locks("SELECT key FROM t FOR SHARE OF t"),
            ["FOR SHARE OF t"]
        );
        assert!(parse("SELECT 1 FROM t FOR KEY UPDATE").is_err());
    }

    #[test]
    fn a_parse_failure_is_a_syntax_error_only_where_postgresql_fails_it_too() {
        let code = |sql: &str| parse(sql).map(|_| ()).unwrap_err().code;
        assert_eq!(code("SELEC 1"), error::SYNTAX_ERROR);
        assert_eq!(code("/* c */ -- d\n FROM t SELECT 1"), error::SYNTAX_ERROR);
        assert_eq!(code("SELECT 'open"), error::SYNTAX_ERROR);
        assert_eq!(code("SELECT FROM WHERE"), error::FEATURE_NOT_SUPPORTED);
        assert_eq!(
            code("((select 33 * any ('{1,2,3}')))"),
            error::FEATURE_NOT_SUPPORTED
        );
        let sorted = STATEMENT_WORDS.windows(2).all(|pair| pair[0] < pair[1]);
        assert!(sorted, "STATEMENT_WORDS is sorted for its binary search");
    }
}
