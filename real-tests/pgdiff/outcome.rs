//! What one step did on one target, and when two targets agree: the same columns (names
//! and type OIDs), rows and command tag, or the same SQLSTATE (the message is kept for
//! the report only), the same transaction status after it (`I` idle, `T` in a
//! transaction, `E` in a failed one), and the same blocking: Blocked on both, and then
//! the same completion. Rows are compared in order only when the statement's top level
//! has an `ORDER BY`; otherwise as sorted multisets.

use std::fmt;

/// The reply to one statement.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A result (no columns and no rows for a command without RETURNING).
    Rows {
        columns: Vec<(String, u32)>,
        rows: Vec<Vec<Option<String>>>,
        tag: String,
    },
    /// An ErrorResponse.
    Error { sqlstate: String, message: String },
    /// No reply within the harness's wait: the statement waits on a lock.
    Blocked,
    /// The connection failed (closed, malformed message): never agrees.
    Broken(String),
}

/// An outcome and the transaction status of the ReadyForQuery after it.
#[derive(Clone, Debug)]
pub struct Reply {
    pub outcome: Outcome,
    pub tx: Option<char>,
}

/// A step's observation on one target: its first reply (perhaps Blocked) and, when it
/// was Blocked, the reply it completed with later (`None`: it never did).
#[derive(Clone, Debug)]
pub struct Observed {
    pub first: Reply,
    pub later: Option<Reply>,
}

impl Reply {
    pub fn blocked() -> Reply {
        Reply {
            outcome: Outcome::Blocked,
            tx: None,
        }
    }

    pub fn broken(why: String) -> Reply {
        Reply {
            outcome: Outcome::Broken(why),
            tx: None,
        }
    }

    /// Rows sorted, unless `sql` orders them at its top level.
    pub fn normalised(mut self, sql: &str) -> Reply {
        if let Outcome::Rows { rows, .. } = &mut self.outcome {
            if !orders_at_top_level(sql) {
                rows.sort();
            }
        }
        self
    }

    /// The short form a case's `-- expect` line names: the tag, the SQLSTATE, `blocked`.
    pub fn summary(&self) -> String {
        match &self.outcome {
            Outcome::Rows { tag, .. } => tag.clone(),
            Outcome::Error { sqlstate, .. } => sqlstate.clone(),
            Outcome::Blocked => "blocked".into(),
            Outcome::Broken(why) => format!("broken ({why})"),
        }
    }
}

impl PartialEq for Reply {
    fn eq(&self, other: &Reply) -> bool {
        let same = match (&self.outcome, &other.outcome) {
            (
                Outcome::Rows { columns, rows, tag },
                Outcome::Rows {
                    columns: columns_b,
                    rows: rows_b,
                    tag: tag_b,
                },
            ) => columns == columns_b && rows == rows_b && tag == tag_b,
            (Outcome::Error { sqlstate: a, .. }, Outcome::Error { sqlstate: b, .. }) => a == b,
            (Outcome::Blocked, Outcome::Blocked) => true,
            _ => false,
        };
        same && self.tx == other.tx
    }
}

impl Observed {
    /// `UPDATE 1`, `23505`, `blocked, then UPDATE 0`.
    pub fn summary(&self) -> String {
        match &self.later {
            Some(later) => format!("{}, then {}", self.first.summary(), later.summary()),
            None => self.first.summary(),
        }
    }

    pub fn agrees(&self, other: &Observed) -> bool {
        self.first == other.first && self.later == other.later
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Rows { columns, rows, tag } => {
                write!(f, "{tag:?} columns {columns:?} rows {rows:?}")?
            }
            Outcome::Error { sqlstate, message } => write!(f, "ERROR {sqlstate} ({message})")?,
            Outcome::Blocked => write!(f, "Blocked")?,
            Outcome::Broken(why) => write!(f, "BROKEN {why}")?,
        }
        match self.tx {
            Some(tx) => write!(f, " [tx {tx}]"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first)?;
        if let Some(later) = &self.later {
            write!(f, "; then {later}")?;
        }
        Ok(())
    }
}

/// Whether `sql` has `ORDER BY` outside parentheses and string literals.
pub fn orders_at_top_level(sql: &str) -> bool {
    let mut top = String::with_capacity(sql.len());
    let (mut depth, mut quoted) = (0usize, false);
    for c in sql.chars() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth = depth.saturating_sub(1),
            _ if !quoted && depth == 0 => top.push(c.to_ascii_uppercase()),
            _ => {}
        }
    }
    let words: Vec<&str> = top.split_whitespace().collect();
    words.windows(2).any(|pair| pair == ["ORDER", "BY"])
}
