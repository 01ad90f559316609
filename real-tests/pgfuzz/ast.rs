//! The fuzzer's statements as small trees rather than text, so a disagreement can be
//! shrunk (a clause dropped, an expression replaced by one of its parts or by NULL) and
//! each candidate rendered again. Every node renders fully parenthesised: a shrink never
//! changes how the rest of the statement parses.

/// An expression. `Lit` and `Raw` are SQL text the generator wrote (a literal, a
/// subquery); the other nodes have parts a shrink can take.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A qualified column, `a.c1`.
    Col(String),
    /// A literal or other leaf, as SQL text.
    Lit(String),
    /// `(l op r)`.
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `(op e)`: `NOT`, `-`.
    Pre(&'static str, Box<Expr>),
    /// `(e op)`: `IS NULL`, `IS NOT TRUE`.
    Post(Box<Expr>, &'static str),
    /// `f(args)`.
    Call(&'static str, Vec<Expr>),
    /// `CASE WHEN c THEN a ELSE b END`.
    Case(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(e)::ty`.
    Cast(Box<Expr>, &'static str),
    /// `(e BETWEEN lo AND hi)`.
    Between(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(e IN (items))`.
    In(Box<Expr>, Vec<Expr>),
    /// A subquery or other text a shrink does not enter.
    Raw(String),
}

/// Shrink candidates per node, at most: a shrink tries them in order and keeps the first
/// that still disagrees, so the list need not be exhaustive.
const SHRINKS_PER_NODE_MAX: usize = 64;

impl Expr {
    pub fn bin(op: &'static str, l: Expr, r: Expr) -> Expr {
        Expr::Bin(op, Box::new(l), Box::new(r))
    }

    pub fn render(&self) -> String {
        match self {
            Expr::Col(s) | Expr::Lit(s) | Expr::Raw(s) => s.clone(),
            Expr::Bin(op, l, r) => format!("({} {op} {})", l.render(), r.render()),
            Expr::Pre(op, e) => format!("({op} {})", e.render()),
            Expr::Post(e, op) => format!("({} {op})", e.render()),
            Expr::Call(f, args) => format!("{f}({})", join(args.iter().map(Expr::render))),
            Expr::Case(c, a, b) => format!(
                "CASE WHEN {} THEN {} ELSE {} END",
                c.render(),
                a.render(),
                b.render()
            ),
            Expr::Cast(e, ty) => format!("({})::{ty}", e.render()),
            Expr::Between(e, lo, hi) => {
                format!(
                    "({} BETWEEN {} AND {})",
                    e.render(),
                    lo.render(),
                    hi.render()
                )
            }
            Expr::In(e, items) => format!(
                "({} IN ({}))",
                e.render(),
                join(items.iter().map(Expr::render))
            ),
        }
    }

    /// Smaller expressions to try in this one's place: NULL, each part, then each part
    /// shrunk in place.
    pub fn shrinks(&self) -> Vec<Expr> {
        let mut out = Vec::new();
        if !matches!(self, Expr::Lit(_) | Expr::Col(_)) {
            out.push(Expr::Lit("NULL".into()));
        }
        let parts: Vec<&Expr> = match self {
            Expr::Col(_) | Expr::Lit(_) | Expr::Raw(_) => vec![],
            Expr::Bin(_, l, r) => vec![l, r],
            Expr::Pre(_, e) | Expr::Post(e, _) | Expr::Cast(e, _) => vec![e],
            Expr::Call(_, args) => args.iter().collect(),
            Expr::Case(c, a, b) | Expr::Between(c, a, b) => vec![c, a, b],
            Expr::In(e, items) => std::iter::once(&**e).chain(items).collect(),
        };
        out.extend(parts.iter().map(|part| (*part).clone()));
        for (index, part) in parts.iter().enumerate() {
            for smaller in part.shrinks() {
                out.push(self.with_part(index, smaller));
                if out.len() >= SHRINKS_PER_NODE_MAX {
                    return out;
                }
            }
        }
        out
    }

    /// This expression with part `index` (in `shrinks`' order) replaced.
    fn with_part(&self, index: usize, part: Expr) -> Expr {
        let mut copy = self.clone();
        let b = Box::new(part.clone());
        match &mut copy {
            Expr::Col(_) | Expr::Lit(_) | Expr::Raw(_) => unreachable!("a leaf has no parts"),
            Expr::Bin(_, l, r) => *[l, r][index] = b,
            Expr::Pre(_, e) | Expr::Post(e, _) | Expr::Cast(e, _) => *e = b,
            Expr::Call(_, args) => args[index] = part,
            Expr::Case(c, a, x) | Expr::Between(c, a, x) => *[c, a, x][index] = b,
            Expr::In(e, items) => match index {
                0 => *e = b,
                _ => items[index - 1] = part,
            },
        }
        copy
    }
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(", ")
}

/// A join onto the first FROM item.
#[derive(Clone, Debug, PartialEq)]
pub struct Join {
    /// `JOIN` or `LEFT JOIN`.
    pub kind: &'static str,
    /// `t1 b`.
    pub item: String,
    pub on: Expr,
}

/// A SELECT, with an optional non-recursive CTE in front.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Select {
    /// `WITH name AS (select)`.
    pub with: Option<(String, Box<Select>)>,
    pub distinct: bool,
    /// Each item and its alias.
    pub items: Vec<(Expr, Option<String>)>,
    /// The first FROM item (`t0 a`, `(SELECT …) s`, a CTE's name), empty for none.
    pub from: String,
    pub joins: Vec<Join>,
    pub filter: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    /// `1`, `2 DESC NULLS FIRST`: output positions, so a shrink of an item keeps them.
    pub order_by: Vec<String>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Select {
    pub fn render(&self) -> String {
        let mut sql = String::new();
        if let Some((name, body)) = &self.with {
            sql.push_str(&format!("WITH {name} AS ({}) ", body.render()));
        }
        sql.push_str("SELECT ");
        if self.distinct {
            sql.push_str("DISTINCT ");
        }
        let items = self.items.iter().map(|(e, alias)| match alias {
            Some(alias) => format!("{} AS {alias}", e.render()),
            None => e.render(),
        });
        sql.push_str(&join(items));
        if !self.from.is_empty() {
            sql.push_str(&format!(" FROM {}", self.from));
        }
        for j in &self.joins {
            sql.push_str(&format!(" {} {} ON {}", j.kind, j.item, j.on.render()));
        }
        if let Some(p) = &self.filter {
            sql.push_str(&format!(" WHERE {}", p.render()));
        }
        if !self.group_by.is_empty() {
            sql.push_str(&format!(
                " GROUP BY {}",
                join(self.group_by.iter().map(Expr::render))
            ));
        }
        if let Some(p) = &self.having {
            sql.push_str(&format!(" HAVING {}", p.render()));
        }
        if !self.order_by.is_empty() {
            sql.push_str(&format!(" ORDER BY {}", self.order_by.join(", ")));
        }
        if let Some(n) = self.limit {
            sql.push_str(&format!(" LIMIT {n}"));
        }
        if let Some(n) = self.offset {
            sql.push_str(&format!(" OFFSET {n}"));
        }
        sql
    }

    /// Smaller SELECTs: a clause dropped, an item dropped, an expression shrunk.
    pub fn shrinks(&self) -> Vec<Select> {
        let mut out = Vec::new();
        let mut push = |f: &dyn Fn(&mut Select)| {
            let mut copy = self.clone();
            f(&mut copy);
            if copy != *self {
                out.push(copy);
            }
        };
        push(&|s| s.with = None);
        push(&|s| s.distinct = false);
        push(&|s| s.filter = None);
        push(&|s| s.having = None);
        push(&|s| s.group_by.clear());
        push(&|s| s.order_by.clear());
        push(&|s| s.limit = None);
        push(&|s| s.offset = None);
        push(&|s| s.joins.clear());
        for index in 0..self.items.len().saturating_sub(1) {
            push(&|s| {
                s.items.remove(index);
            });
        }
        if let Some((name, body)) = &self.with {
            for smaller in body.shrinks() {
                let mut copy = self.clone();
                copy.with = Some((name.clone(), Box::new(smaller)));
                out.push(copy);
            }
        }
        for (index, (e, _)) in self.items.iter().enumerate() {
            for smaller in e.shrinks() {
                let mut copy = self.clone();
                copy.items[index].0 = smaller;
                out.push(copy);
            }
        }
        for smaller in self.filter.iter().flat_map(Expr::shrinks) {
            let mut copy = self.clone();
            copy.filter = Some(smaller);
            out.push(copy);
        }
        for smaller in self.having.iter().flat_map(Expr::shrinks) {
            let mut copy = self.clone();
            copy.having = Some(smaller);
            out.push(copy);
        }
        for (index, j) in self.joins.iter().enumerate() {
            for smaller in j.on.shrinks() {
                let mut copy = self.clone();
                copy.joins[index].on = smaller;
                out.push(copy);
            }
        }
        out
    }
}

/// One statement of a sequence.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// DDL, transaction control: not shrunk.
    Raw(String),
    Select(Select),
    Insert {
        table: String,
        cols: Vec<String>,
        rows: Vec<Vec<Expr>>,
        /// `ON CONFLICT …`, or empty.
        conflict: String,
        returning: Vec<Expr>,
    },
    Update {
        table: String,
        sets: Vec<(String, Expr)>,
        filter: Option<Expr>,
        returning: Vec<Expr>,
    },
    Delete {
        table: String,
        filter: Option<Expr>,
        returning: Vec<Expr>,
    },
}

impl Stmt {
    pub fn render(&self) -> String {
        let returning = |r: &[Expr]| match r.is_empty() {
            true => String::new(),
            false => format!(" RETURNING {}", join(r.iter().map(Expr::render))),
        };
        let filter = |f: &Option<Expr>| match f {
            Some(p) => format!(" WHERE {}", p.render()),
            None => String::new(),
        };
        match self {
            Stmt::Raw(sql) => sql.clone(),
            Stmt::Select(s) => s.render(),
            Stmt::Insert {
                table,
                cols,
                rows,
                conflict,
                returning: r,
            } => {
                let rows = rows
                    .iter()
                    .map(|row| format!("({})", join(row.iter().map(Expr::render))));
                let conflict = match conflict.is_empty() {
                    true => String::new(),
                    false => format!(" {conflict}"),
                };
                format!(
                    "INSERT INTO {table} ({}) VALUES {}{conflict}{}",
                    cols.join(", "),
                    join(rows),
                    returning(r)
                )
            }
            Stmt::Update {
                table,
                sets,
                filter: f,
                returning: r,
            } => {
                let sets = sets.iter().map(|(c, e)| format!("{c} = {}", e.render()));
                format!(
                    "UPDATE {table} SET {}{}{}",
                    join(sets),
                    filter(f),
                    returning(r)
                )
            }
            Stmt::Delete {
                table,
                filter: f,
                returning: r,
            } => format!("DELETE FROM {table}{}{}", filter(f), returning(r)),
        }
    }

    /// Whether it only reads (a refused read outside a transaction leaves both targets'
    /// states alike).
    pub fn reads_only(&self) -> bool {
        matches!(self, Stmt::Select(_))
    }

    /// Smaller statements of the same kind.
    pub fn shrinks(&self) -> Vec<Stmt> {
        let mut out = Vec::new();
        match self {
            Stmt::Raw(_) => {}
            Stmt::Select(s) => out.extend(s.shrinks().into_iter().map(Stmt::Select)),
            Stmt::Insert {
                rows,
                conflict,
                returning,
                ..
            } => {
                let mut push = |f: &dyn Fn(&mut Stmt)| {
                    let mut copy = self.clone();
                    f(&mut copy);
                    out.push(copy);
                };
                if !conflict.is_empty() {
                    push(&|s| set_insert(s, |_, c, _| c.clear()));
                }
                if !returning.is_empty() {
                    push(&|s| set_insert(s, |_, _, r| r.clear()));
                }
                for index in 0..rows.len().saturating_sub(1) {
                    push(&|s| {
                        set_insert(s, |rows, _, _| {
                            rows.remove(index);
                        })
                    });
                }
                for (r, row) in rows.iter().enumerate() {
                    for (c, e) in row.iter().enumerate() {
                        for smaller in e.shrinks().into_iter().take(4) {
                            push(&|s| set_insert(s, |rows, _, _| rows[r][c] = smaller.clone()));
                        }
                    }
                }
            }
            Stmt::Update {
                sets,
                filter,
                returning,
                ..
            } => {
                let with = |f: UpdateEdit<'_>| {
                    let mut copy = self.clone();
                    if let Stmt::Update {
                        sets,
                        filter,
                        returning,
                        ..
                    } = &mut copy
                    {
                        f(sets, filter, returning);
                    }
                    copy
                };
                if filter.is_some() {
                    out.push(with(&|_, f, _| *f = None));
                }
                if !returning.is_empty() {
                    out.push(with(&|_, _, r| r.clear()));
                }
                for index in 0..sets.len().saturating_sub(1) {
                    out.push(with(&|s, _, _| {
                        s.remove(index);
                    }));
                }
                for (index, (_, e)) in sets.iter().enumerate() {
                    for smaller in e.shrinks() {
                        out.push(with(&|s, _, _| s[index].1 = smaller.clone()));
                    }
                }
                for smaller in filter.iter().flat_map(Expr::shrinks) {
                    out.push(with(&|_, f, _| *f = Some(smaller.clone())));
                }
                for (index, e) in returning.iter().enumerate() {
                    for smaller in e.shrinks() {
                        out.push(with(&|_, _, r| r[index] = smaller.clone()));
                    }
                }
            }
            Stmt::Delete {
                table,
                filter,
                returning,
            } => {
                let delete = |filter: Option<Expr>, returning: Vec<Expr>| Stmt::Delete {
                    table: table.clone(),
                    filter,
                    returning,
                };
                if filter.is_some() {
                    out.push(delete(None, returning.clone()));
                }
                if !returning.is_empty() {
                    out.push(delete(filter.clone(), vec![]));
                }
                for smaller in filter.iter().flat_map(Expr::shrinks) {
                    out.push(delete(Some(smaller), returning.clone()));
                }
            }
        }
        out
    }
}

/// An UPDATE's assignments: each column and its expression.
type Sets = Vec<(String, Expr)>;

/// A change to an UPDATE's assignments, WHERE and RETURNING (a shrink's step).
type UpdateEdit<'a> = &'a dyn Fn(&mut Sets, &mut Option<Expr>, &mut Vec<Expr>);

fn set_insert(stmt: &mut Stmt, f: impl FnOnce(&mut Vec<Vec<Expr>>, &mut String, &mut Vec<Expr>)) {
    if let Stmt::Insert {
        rows,
        conflict,
        returning,
        ..
    } = stmt
    {
        f(rows, conflict, returning);
    }
}
