//! A regression suite's `.sql` file cut into the statements psql would send, as `pg_regress`
//! runs it (`psql -a -q`): a statement ends at a `;` outside quotes, dollar quotes,
//! comments and parentheses; psql's meta-commands are not SQL. Of those, the harness
//! follows the ones the suites use to build statements (`\set`, `\getenv`, and `:name`,
//! `:'name'`, `:"name"` substituted outside quotes, as psql does) and skips the others,
//! counted. A `COPY … FROM '<file>'` of the suite's data files, and a `COPY … FROM
//! STDIN` with its data lines (up to `\.`), become plain INSERTs
//! (see [`copy_as_inserts`]): the model has no server-side files, and the rows, not the
//! loading, are what later statements read.

use std::collections::BTreeMap;
use std::path::Path;

/// The most statements one file may hold (a suite file is thousands at most).
const STATEMENTS_MAX: usize = 20_000;
/// Rows per INSERT a copied data file becomes.
const INSERT_ROWS_MAX: usize = 200;

/// A file's statements, in order, and how many meta-commands it skipped.
#[derive(Default, Debug)]
pub struct Script {
    pub statements: Vec<String>,
    pub skipped: usize,
}

/// Where the lexer is between characters.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Lex {
    Plain,
    /// In a quoted string; `escape`: an `E'…'` string, where a backslash escapes;
    /// `pending`: the character before was such a backslash.
    Single {
        escape: bool,
        pending: bool,
    },
    Double,
    Dollar,
    LineComment,
    BlockComment(usize),
}

/// `text` cut into statements, with psql's variables: `getenv` answers `\getenv`.
pub fn split(text: &str, getenv: &dyn Fn(&str) -> Option<String>) -> Script {
    let mut script = Script::default();
    let mut variables: BTreeMap<String, String> = BTreeMap::new();
    let mut cutter = Cutter::default();
    // A `COPY … FROM STDIN`'s target and the data lines read so far (until `\.`).
    let mut copying: Option<((String, String), Vec<String>)> = None;
    for line in text.lines() {
        if let Some(((target, null), rows)) = &mut copying {
            match line {
                "\\." => {
                    script
                        .statements
                        .extend(rows_as_inserts(target, rows, null));
                    copying = None;
                }
                _ => rows.push(line.to_string()),
            }
            continue;
        }
        let meta = cutter.at_start() && line.trim_start().starts_with('\\');
        let (sql, command) = match meta {
            true => ("", Some(line.trim_start())),
            false => cutter.meta_at(line),
        };
        for statement in cutter.feed(&substitute(sql, &variables)) {
            match copy_from_stdin(&statement) {
                Some(target) => copying = Some((target, Vec::new())),
                None => script.statements.push(statement),
            }
        }
        if let Some(command) = command {
            if !follow(command, &mut variables, getenv) {
                script.skipped += 1;
            }
            // `\g` and its kin send the statement typed so far.
            if let Some(statement) = cutter.flush_on(command) {
                script.statements.push(statement);
            }
        }
        cutter.end_line();
        assert!(
            script.statements.len() <= STATEMENTS_MAX,
            "a file of too many statements"
        );
    }
    script.statements.extend(cutter.rest());
    script
}

/// Follow `\set` and `\getenv`; false for any other meta-command (skipped).
fn follow(
    command: &str,
    variables: &mut BTreeMap<String, String>,
    getenv: &dyn Fn(&str) -> Option<String>,
) -> bool {
    let mut words = command.split_whitespace();
    match words.next() {
        Some("\\set") => {
            let Some(name) = words.next() else {
                return false;
            };
            let value: String = words.map(|word| value_word(word, variables)).collect();
            variables.insert(name.to_string(), value);
            true
        }
        Some("\\getenv") => match (words.next(), words.next().and_then(getenv)) {
            (Some(name), Some(value)) => {
                variables.insert(name.to_string(), value);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// One word of a `\set` value: `'text'`, `:name`, or itself.
fn value_word(word: &str, variables: &BTreeMap<String, String>) -> String {
    if let Some(quoted) = word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
        return quoted.replace("''", "'");
    }
    match word.strip_prefix(':') {
        Some(name) => variables.get(name).cloned().unwrap_or_default(),
        None => word.to_string(),
    }
}

/// `line` with `:name`, `:'name'` and `:"name"` replaced outside quotes (a variable not
/// set is left as written, as psql leaves it). Quote tracking is per line: the suites
/// use variables on lines of their own statements' plain text.
fn substitute(line: &str, variables: &BTreeMap<String, String>) -> String {
    if variables.is_empty() || !line.contains(':') {
        return line.to_string();
    }
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let (mut at, mut quoted) = (0, false);
    while at < chars.len() {
        let c = chars[at];
        if c == '\'' {
            quoted = !quoted;
        }
        let found = match (quoted, c, chars.get(at + 1)) {
            (false, ':', Some(':')) => None,
            (false, ':', Some(_)) if at == 0 || chars[at - 1] != ':' => {
                variable_at(&chars, at + 1, variables)
            }
            _ => None,
        };
        match found {
            Some((text, next)) => {
                out.push_str(&text);
                at = next;
            }
            None => {
                out.push(c);
                at += 1;
            }
        }
    }
    out
}

/// The variable reference starting at `at` (after the colon): its replacement text and
/// where the text after it starts.
fn variable_at(
    chars: &[char],
    at: usize,
    variables: &BTreeMap<String, String>,
) -> Option<(String, usize)> {
    let (quote, start) = match chars[at] {
        '\'' | '"' => (Some(chars[at]), at + 1),
        _ => (None, at),
    };
    let end = (start..chars.len())
        .find(|&i| !(chars[i].is_ascii_alphanumeric() || chars[i] == '_'))
        .unwrap_or(chars.len());
    let name: String = chars[start..end].iter().collect();
    let value = variables.get(&name)?;
    match quote {
        None => Some((value.clone(), end)),
        Some(q) if chars.get(end) == Some(&q) => {
            let doubled = format!("{q}{q}");
            let text = format!("{q}{}{q}", value.replace(q, &doubled));
            Some((text, end + 1))
        }
        Some(_) => None,
    }
}

/// The statement being typed and the lexer's state.
#[derive(Default)]
struct Cutter {
    text: String,
    lex: Option<Lex>,
    depth: usize,
    /// The open dollar quote's tag (`$$`, `$body$`) and where its body starts in `text`.
    tag: String,
    body_start: usize,
}

impl Cutter {
    fn lex(&self) -> Lex {
        self.lex.unwrap_or(Lex::Plain)
    }

    /// Whether nothing but blanks and comments has been typed since the last statement.
    fn at_start(&self) -> bool {
        self.lex() == Lex::Plain && self.text.trim().is_empty()
    }

    /// `line` split at a meta-command's backslash in plain text (psql's `SELECT 1 \gset`).
    fn meta_at<'a>(&self, line: &'a str) -> (&'a str, Option<&'a str>) {
        if self.lex() != Lex::Plain || !line.contains('\\') {
            return (line, None);
        }
        let mut probe = Cutter {
            lex: self.lex,
            depth: self.depth,
            ..Cutter::default()
        };
        for (at, c) in line.char_indices() {
            if c == '\\' && probe.lex() == Lex::Plain {
                return (&line[..at], Some(&line[at..]));
            }
            probe.step(c, line[at + c.len_utf8()..].chars().next());
            probe.text.push(c);
        }
        (line, None)
    }

    /// Type `line` (and its newline); return the statements it ended.
    fn feed(&mut self, line: &str) -> Vec<String> {
        let mut ended = Vec::new();
        let chars: Vec<char> = line.chars().collect();
        for (at, &c) in chars.iter().enumerate() {
            let ends = self.step(c, chars.get(at + 1).copied());
            self.text.push(c);
            if ends {
                ended.extend(self.take());
            }
        }
        ended
    }

    fn end_line(&mut self) {
        if self.lex() == Lex::LineComment {
            self.lex = Some(Lex::Plain);
        }
        if !self.text.is_empty() {
            self.text.push('\n');
        }
    }

    /// The statement typed so far, sent by `\g`, `\gset`, `\gx`, `\gexec`, `\crosstabview`.
    fn flush_on(&mut self, command: &str) -> Option<String> {
        let name = command.split_whitespace().next().unwrap_or("");
        let sends = name.starts_with("\\g") || name == "\\crosstabview";
        match sends {
            true => self.take(),
            false => None,
        }
    }

    fn take(&mut self) -> Option<String> {
        let text = std::mem::take(&mut self.text);
        let statement = text.trim().trim_end_matches(';').trim();
        (!statement.is_empty() && !only_comments(statement)).then(|| statement.to_string())
    }

    fn rest(&mut self) -> Option<String> {
        self.take()
    }

    /// Advance the lexer over `c` (`next` is the character after it); true when `c` is a
    /// `;` ending a statement.
    fn step(&mut self, c: char, next: Option<char>) -> bool {
        let lex = self.lex();
        let (new, ends) = match lex {
            Lex::Plain => self.plain(c, next),
            Lex::Single { escape, pending } => match (c, pending) {
                (_, true) => (
                    Lex::Single {
                        escape,
                        pending: false,
                    },
                    false,
                ),
                ('\\', false) if escape => (
                    Lex::Single {
                        escape,
                        pending: true,
                    },
                    false,
                ),
                ('\'', false) => (Lex::Plain, false),
                _ => (Lex::Single { escape, pending }, false),
            },
            Lex::Double => (if c == '"' { Lex::Plain } else { Lex::Double }, false),
            Lex::Dollar => (self.dollar(c), false),
            Lex::LineComment => (Lex::LineComment, false),
            Lex::BlockComment(depth) => (self.block(c, next, depth), false),
        };
        self.lex = Some(new);
        ends
    }

    fn plain(&mut self, c: char, next: Option<char>) -> (Lex, bool) {
        match (c, next) {
            ('\'', _) => {
                let mut before = self.text.chars().rev();
                let escape = matches!(before.next(), Some('E' | 'e'))
                    && !before
                        .next()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
                (
                    Lex::Single {
                        escape,
                        pending: false,
                    },
                    false,
                )
            }
            ('"', _) => (Lex::Double, false),
            ('-', Some('-')) => (Lex::LineComment, false),
            ('/', Some('*')) => (Lex::BlockComment(0), false),
            ('(', _) => {
                self.depth += 1;
                (Lex::Plain, false)
            }
            (')', _) => {
                self.depth = self.depth.saturating_sub(1);
                (Lex::Plain, false)
            }
            ('$', _) => self.dollar_open(),
            (';', _) => (Lex::Plain, self.depth == 0),
            _ => (Lex::Plain, false),
        }
    }

    /// A `$` in plain text: the end of a dollar quote's opening tag (`$$`, `$body$`) when
    /// the text typed since the previous `$` is a tag.
    fn dollar_open(&mut self) -> (Lex, bool) {
        let typed = &self.text;
        let Some(start) = typed.rfind('$') else {
            return (Lex::Plain, false);
        };
        let tag = &typed[start + 1..];
        let before = typed[..start].chars().next_back();
        let is_tag = tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !tag.starts_with(|c: char| c.is_ascii_digit())
            && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        match is_tag {
            true => {
                self.tag = format!("${tag}$");
                self.body_start = self.text.len() + 1;
                (Lex::Dollar, false)
            }
            false => (Lex::Plain, false),
        }
    }

    /// Inside a dollar quote: it ends where its tag appears again.
    fn dollar(&self, c: char) -> Lex {
        let closes = c == '$' && {
            let body = &self.text[self.body_start..];
            format!("{body}$").ends_with(&self.tag)
        };
        if closes {
            Lex::Plain
        } else {
            Lex::Dollar
        }
    }

    fn block(&self, c: char, next: Option<char>, depth: usize) -> Lex {
        let last = self.text.chars().next_back();
        match (c, next, last) {
            ('/', Some('*'), _) => Lex::BlockComment(depth + 1),
            ('/', _, Some('*')) if depth == 0 => Lex::Plain,
            ('/', _, Some('*')) => Lex::BlockComment(depth - 1),
            _ => Lex::BlockComment(depth),
        }
    }
}

/// Whether `text` holds nothing but `--` comments and blanks.
fn only_comments(text: &str) -> bool {
    text.lines()
        .all(|line| line.trim().is_empty() || line.trim_start().starts_with("--"))
}

/// `COPY <table> [(<columns>)] FROM STDIN [[WITH] NULL '<marker>']` (text format): its
/// target, as an INSERT names it, and the field that stands for NULL (`\N` unless given).
fn copy_from_stdin(statement: &str) -> Option<(String, String)> {
    let upper = statement.to_ascii_uppercase();
    let copy = upper.strip_prefix("COPY ")?;
    // The server reads `FROM STDOUT` as `FROM STDIN` (the grammar's copy_file_name).
    let (target, tail) = ["FROM STDIN", "FROM STDOUT"]
        .iter()
        .find_map(|source| copy.split_once(&format!(" {source}")))?;
    let tail = tail.trim();
    let tail = tail.strip_prefix("WITH").map_or(tail, str::trim_start);
    let null = match tail.strip_prefix("NULL") {
        _ if tail.is_empty() => "\\N".to_string(),
        Some(marker) => {
            let at = statement.len() - marker.len();
            let marker = statement[at..].trim();
            marker.strip_prefix('\'')?.strip_suffix('\'')?.to_string()
        }
        None => return None,
    };
    let target_at = "COPY ".len();
    let target = statement[target_at..target_at + target.len()].trim();
    Some((target.to_string(), null))
}

/// COPY text-format lines as INSERTs into `target`, `null` the field that is NULL.
fn rows_as_inserts(target: &str, lines: &[String], null: &str) -> Vec<String> {
    let rows: Vec<String> = lines
        .iter()
        .map(|line| {
            format!(
                "({})",
                line.split('\t')
                    .map(|field| copy_literal(field, null))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    rows.chunks(INSERT_ROWS_MAX)
        .map(|chunk| format!("INSERT INTO {target} VALUES {}", chunk.join(", ")))
        .collect()
}

/// `COPY <table> FROM '<file>'` (text format, the suites' data files) as INSERTs of the
/// file's rows; `None` for any other statement or an unreadable file.
pub fn copy_as_inserts(statement: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = statement.split_whitespace().collect();
    let [copy, table, from, file] = words.as_slice() else {
        return None;
    };
    let quoted = file.strip_prefix('\'')?.strip_suffix('\'')?;
    if !copy.eq_ignore_ascii_case("copy") || !from.eq_ignore_ascii_case("from") {
        return None;
    }
    let text = std::fs::read_to_string(Path::new(quoted)).ok()?;
    let lines: Vec<String> = text
        .lines()
        .take_while(|line| *line != "\\.")
        .map(String::from)
        .collect();
    Some(rows_as_inserts(table, &lines, "\\N"))
}

/// One field of COPY's text format as an SQL literal: `\N` is NULL; backslash escapes
/// decoded.
fn copy_literal(field: &str, null: &str) -> String {
    if field == null {
        return "NULL".into();
    }
    let mut value = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('t') => value.push('\t'),
                Some('n') => value.push('\n'),
                Some('r') => value.push('\r'),
                Some(other) => value.push(other),
                None => value.push('\\'),
            },
            _ => value.push(c),
        }
    }
    format!("'{}'", value.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statements(text: &str) -> Vec<String> {
        split(text, &|_| None).statements
    }

    #[test]
    fn statements_end_at_semicolons_outside_quotes_comments_and_dollar_quotes() {
        let text = "SELECT 'a;b', \"c;\" -- d;\n;\nCREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\n/* x; /* y; */ */ SELECT (1;\n2);";
        assert_eq!(
            statements(text),
            vec![
                "SELECT 'a;b', \"c;\" -- d;",
                "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql",
                "/* x; /* y; */ */ SELECT (1;\n2)",
            ]
        );
    }

    #[test]
    fn meta_commands_are_skipped_or_followed() {
        let script = split(
            "\\set x 'abc' :y\n\\d t\nSELECT :'x', :x;\nSELECT 1 \\gset\nSELECT ':x';",
            &|_| None,
        );
        assert_eq!(
            script.statements,
            vec!["SELECT 'abc', abc", "SELECT 1", "SELECT ':x'"]
        );
        assert_eq!(script.skipped, 2, "\\d and \\gset");
    }

    #[test]
    fn an_escape_string_keeps_its_quote_open_past_a_backslash_quote() {
        assert_eq!(statements("SELECT E'a\\';b';"), vec!["SELECT E'a\\';b'"]);
    }

    #[test]
    fn copy_from_stdin_becomes_inserts_of_its_lines() {
        let script = split(
            "COPY t (a, b) FROM STDIN;\n1\tx\n2\t\\N\n\\.\nSELECT 1;",
            &|_| None,
        );
        assert_eq!(
            script.statements,
            vec![
                "INSERT INTO t (a, b) VALUES ('1', 'x'), ('2', NULL)",
                "SELECT 1"
            ]
        );
    }

    #[test]
    fn copy_literals_decode_nulls_and_escapes() {
        assert_eq!(copy_literal("\\N", "\\N"), "NULL");
        assert_eq!(copy_literal("a\\tb'c", "\\N"), "'a\tb''c'");
        assert_eq!(copy_literal("null", "null"), "NULL");
        let null = |s: &str| copy_from_stdin(s).map(|(_, null)| null);
        assert_eq!(
            null("COPY t FROM STDIN NULL 'null'").as_deref(),
            Some("null")
        );
        assert_eq!(null("copy t from stdout").as_deref(), Some("\\N"));
        assert_eq!(null("COPY t FROM STDIN WITH CSV"), None);
    }
}
