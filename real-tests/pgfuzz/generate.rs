//! The statement generator: one seed, one sequence (ChaCha8 from the seed, nothing else
//! random), over the grammar the PostgreSQL model claims (README, "SQL"): a schema of up
//! to [`TABLES_MAX`] tables with the types it models (int, bigint, text, boolean, float8,
//! numeric, jsonb, timestamptz, uuid, and vector(3) after `CREATE EXTENSION vector`),
//! primary keys, UNIQUE, NOT NULL, foreign keys and indexes; then a body of queries
//! (expressions with NULLs, joins, aggregates, GROUP BY/HAVING, DISTINCT, ORDER BY with
//! LIMIT/OFFSET, scalar/EXISTS/IN subqueries, subqueries in FROM, CTEs), writes (INSERT …
//! ON CONFLICT, UPDATE, DELETE, each with RETURNING) and transactions (BEGIN at either
//! isolation level, savepoints, COMMIT, ROLLBACK) on connection 1, and reads on
//! connection 2, in transactions of their own too.
//!
//! Two rules keep both targets comparable whatever a statement does: nothing waits on a
//! lock (connection 2 only reads, DDL runs only while no transaction is open on either
//! connection, so no lock a statement needs is ever held by the other), and nothing
//! depends on the order or time a target picks (no `now()`; LIMIT and OFFSET only under an
//! ORDER BY of every output column; float values exact in binary, so sums do not depend
//! on the order they are added in; a vector shown only as text, its OID differing per
//! database). The sequence depends on the seed alone, never on the replies, so a seed
//! replays exactly and a shrunk sequence is a list of the same statements.

use super::ast::{Expr, Join, Select, Stmt};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Tables a sequence creates, at most.
pub const TABLES_MAX: usize = 3;
/// Columns besides `id`, at most.
const COLUMNS_MAX: usize = 5;
/// Rows an INSERT writes, at most.
const ROWS_MAX: u32 = 4;
/// How deep an expression nests.
const DEPTH_MAX: u32 = 3;
/// Statements a sequence has, at most (a bound on a run, not a target).
pub const STATEMENTS_MAX: usize = 100_000;

/// A column type the model claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    BigInt,
    Text,
    Bool,
    Float,
    Numeric,
    Jsonb,
    Ts,
    Uuid,
    Vector,
}

const COLUMN_TYPES: [Ty; 10] = [
    Ty::Int,
    Ty::BigInt,
    Ty::Text,
    Ty::Bool,
    Ty::Float,
    Ty::Numeric,
    Ty::Jsonb,
    Ty::Ts,
    Ty::Uuid,
    Ty::Vector,
];

impl Ty {
    /// The type's name in DDL.
    fn ddl(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::BigInt => "bigint",
            Ty::Text => "text",
            Ty::Bool => "boolean",
            Ty::Float => "float8",
            Ty::Numeric => "numeric(12,2)",
            Ty::Jsonb => "jsonb",
            Ty::Ts => "timestamptz",
            Ty::Uuid => "uuid",
            Ty::Vector => "vector(3)",
        }
    }

    /// The type's name in a cast.
    fn cast(self) -> &'static str {
        match self {
            Ty::Numeric => "numeric",
            Ty::Vector => "vector",
            other => other.ddl(),
        }
    }

    /// Whether `<`, `min`, `ORDER BY` apply (jsonb's order is PostgreSQL's own and
    /// modelled; a vector's is too, but shown only as text).
    fn ordered(self) -> bool {
        !matches!(self, Ty::Vector)
    }

    fn numeric(self) -> bool {
        matches!(self, Ty::Int | Ty::BigInt | Ty::Float | Ty::Numeric)
    }
}

/// A column of a table.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: Ty,
    pub not_null: bool,
    pub unique: bool,
    /// `REFERENCES t<n> (id)`.
    pub references: Option<usize>,
}

/// A table: `id int PRIMARY KEY` and its other columns.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub cols: Vec<Column>,
    /// Indexes created on it (their names), for DROP INDEX.
    pub indexes: Vec<String>,
}

/// A column in scope: its qualified name and type.
#[derive(Clone, Debug)]
struct InScope {
    name: String,
    ty: Ty,
}

/// A generated statement and the connection (1-based) it runs on.
#[derive(Clone, Debug)]
pub struct Item {
    pub conn: usize,
    pub stmt: Stmt,
}

/// The generator of one seed's sequence.
pub struct Generator {
    rng: ChaCha8Rng,
    tables: Vec<Table>,
    vector: bool,
    /// Next primary key an INSERT draws around (some collide on purpose).
    next_id: i64,
    /// Whether each connection has a transaction open (as the generator intends it: an
    /// error aborts it on both targets alike, and the COMMIT that ends it then rolls back).
    open: [bool; 2],
    savepoints: u32,
    indexes: u32,
    /// The setup still to come.
    setup: std::collections::VecDeque<Item>,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        let mut g = Generator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            tables: Vec::new(),
            vector: false,
            next_id: 1,
            open: [false; 2],
            savepoints: 0,
            indexes: 0,
            setup: Default::default(),
        };
        g.vector = g.rng.random_bool(0.5);
        if g.vector {
            g.push_setup(Stmt::Raw("CREATE EXTENSION vector".into()));
        }
        let tables = g.rng.random_range(1..=TABLES_MAX);
        for _ in 0..tables {
            let create = g.create_table();
            g.push_setup(create);
        }
        for _ in 0..g.rng.random_range(0..3) {
            if let Some(index) = g.create_index() {
                g.push_setup(index);
            }
        }
        for _ in 0..g.rng.random_range(2..6) {
            let insert = g.insert();
            g.push_setup(insert);
        }
        g
    }

    fn push_setup(&mut self, stmt: Stmt) {
        self.setup.push_back(Item { conn: 1, stmt });
    }

    /// The next statement.
    pub fn next_item(&mut self) -> Item {
        if let Some(item) = self.setup.pop_front() {
            return item;
        }
        let roll = self.rng.random_range(0..100);
        match roll {
            0..=14 => self.conn2(),
            15..=24 => self.control(),
            25..=27 if !self.open.iter().any(|o| *o) => Item {
                conn: 1,
                stmt: self.ddl(),
            },
            28..=59 => Item {
                conn: 1,
                stmt: self.write(),
            },
            _ => Item {
                conn: 1,
                stmt: Stmt::Select(self.select()),
            },
        }
    }

    /// A query a metamorphic check partitions: the FROM clause (with joins), the items,
    /// and a predicate over them.
    pub fn probe(&mut self) -> (Select, Expr) {
        let (mut select, scope) = self.source_clause();
        // Columns only: an item that can fail (a cast, a division) fails on the rows a
        // partition keeps, and the partitions would fail apart for a reason of their own.
        let n = self.rng.random_range(1..=3);
        select.items = (0..n)
            .map(|i| {
                let col = scope[self.rng.random_range(0..scope.len())].clone();
                let e = match col.ty {
                    Ty::Vector => Expr::Cast(Box::new(Expr::Col(col.name)), "text"),
                    _ => Expr::Col(col.name),
                };
                (e, Some(format!("c{i}")))
            })
            .collect();
        let p = self.expr(Ty::Bool, &scope, 0);
        (select, p)
    }

    /// Whether the sequence's transactions are all ended (the end of a run closes them).
    pub fn open_connections(&self) -> Vec<usize> {
        (0..2).filter(|&c| self.open[c]).map(|c| c + 1).collect()
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.rng.random_range(0..items.len())]
    }

    fn percent(&mut self, p: u32) -> bool {
        self.rng.random_range(0..100) < p
    }

    fn create_table(&mut self) -> Stmt {
        let index = self.tables.len();
        let name = format!("t{index}");
        let mut cols = Vec::new();
        let mut defs = vec!["id int PRIMARY KEY".to_string()];
        for c in 0..self.rng.random_range(1..=COLUMNS_MAX) {
            let ty = loop {
                let ty = self.pick(&COLUMN_TYPES);
                if ty != Ty::Vector || self.vector {
                    break ty;
                }
            };
            let references = (ty == Ty::Int && index > 0 && self.percent(30))
                .then(|| self.rng.random_range(0..index));
            let col = Column {
                name: format!("c{c}"),
                ty,
                not_null: self.percent(20),
                unique: ty.ordered() && ty != Ty::Jsonb && self.percent(15),
                references,
            };
            let mut def = format!("{} {}", col.name, ty.ddl());
            if col.not_null {
                def.push_str(" NOT NULL");
            }
            if col.unique {
                def.push_str(" UNIQUE");
            }
            if let Some(t) = references {
                def.push_str(&format!(" REFERENCES t{t} (id)"));
                if self.percent(50) {
                    def.push_str(" ON DELETE CASCADE");
                }
            }
            defs.push(def);
            cols.push(col);
        }
        self.tables.push(Table {
            name: name.clone(),
            cols,
            indexes: Vec::new(),
        });
        Stmt::Raw(format!("CREATE TABLE {name} ({})", defs.join(", ")))
    }

    fn create_index(&mut self) -> Option<Stmt> {
        let t = self.rng.random_range(0..self.tables.len());
        let table = self.tables[t].clone();
        let col = table.cols[self.rng.random_range(0..table.cols.len())].clone();
        self.indexes += 1;
        let name = format!("i{}", self.indexes);
        let sql = match col.ty {
            // An HNSW index changes no answer here: the planner uses it only with
            // `enable_seqscan` off or past 10,000 row versions, never reached.
            Ty::Vector => format!(
                "CREATE INDEX {name} ON {} USING hnsw ({} vector_l2_ops)",
                table.name, col.name
            ),
            Ty::Jsonb | Ty::Bool => return None,
            _ => {
                let unique = if self.percent(20) { "UNIQUE " } else { "" };
                let partial = if self.percent(20) {
                    format!(" WHERE {} IS NOT NULL", col.name)
                } else {
                    String::new()
                };
                format!(
                    "CREATE {unique}INDEX {name} ON {} ({}){partial}",
                    table.name, col.name
                )
            }
        };
        self.tables[t].indexes.push(name);
        Some(Stmt::Raw(sql))
    }

    /// DDL while no transaction is open: an index made or dropped, a table added.
    fn ddl(&mut self) -> Stmt {
        match self.rng.random_range(0..3) {
            0 if self.tables.len() < TABLES_MAX => self.create_table(),
            1 => {
                let t = self.rng.random_range(0..self.tables.len());
                match self.tables[t].indexes.pop() {
                    Some(name) => Stmt::Raw(format!("DROP INDEX {name}")),
                    None => Stmt::Raw(format!("SELECT count(*) FROM {}", self.tables[t].name)),
                }
            }
            _ => self
                .create_index()
                .unwrap_or_else(|| Stmt::Raw("SELECT 1".into())),
        }
    }

    /// Connection 1's transaction control.
    fn control(&mut self) -> Item {
        let sql = if !self.open[0] {
            self.open[0] = true;
            self.savepoints = 0;
            self.pick(&[
                "BEGIN",
                "BEGIN ISOLATION LEVEL REPEATABLE READ",
                "START TRANSACTION",
            ])
            .to_string()
        } else {
            match self.rng.random_range(0..6) {
                0 => {
                    self.savepoints += 1;
                    format!("SAVEPOINT s{}", self.savepoints)
                }
                1 if self.savepoints > 0 => {
                    format!("ROLLBACK TO SAVEPOINT s{}", self.savepoints)
                }
                2 if self.savepoints > 0 => format!("RELEASE SAVEPOINT s{}", self.savepoints),
                3 => {
                    self.open[0] = false;
                    "ROLLBACK".into()
                }
                _ => {
                    self.open[0] = false;
                    "COMMIT".into()
                }
            }
        };
        Item {
            conn: 1,
            stmt: Stmt::Raw(sql),
        }
    }

    /// Connection 2: reads, in a REPEATABLE READ transaction now and then.
    fn conn2(&mut self) -> Item {
        let stmt = match (self.open[1], self.rng.random_range(0..5)) {
            (false, 0) => {
                self.open[1] = true;
                Stmt::Raw("BEGIN ISOLATION LEVEL REPEATABLE READ".into())
            }
            (true, 0) => {
                self.open[1] = false;
                Stmt::Raw("COMMIT".into())
            }
            _ => Stmt::Select(self.select()),
        };
        Item { conn: 2, stmt }
    }

    fn table(&mut self) -> usize {
        self.rng.random_range(0..self.tables.len())
    }

    fn scope_of(&self, t: usize, alias: &str) -> Vec<InScope> {
        let table = &self.tables[t];
        std::iter::once(InScope {
            name: format!("{alias}.id"),
            ty: Ty::Int,
        })
        .chain(table.cols.iter().map(|c| InScope {
            name: format!("{alias}.{}", c.name),
            ty: c.ty,
        }))
        .collect()
    }

    /// A FROM clause: a table, a subquery or a CTE over one, with up to one join.
    fn source_clause(&mut self) -> (Select, Vec<InScope>) {
        let t = self.table();
        let mut select = Select::default();
        let mut scope;
        match self.rng.random_range(0..10) {
            0 | 1 => {
                // A derived table over t: some columns, filtered.
                let inner_scope = self.scope_of(t, "x");
                let mut inner = Select {
                    from: format!("{} x", self.tables[t].name),
                    ..Select::default()
                };
                scope = Vec::new();
                for (i, col) in inner_scope.iter().enumerate() {
                    if i == 0 || self.percent(60) {
                        inner
                            .items
                            .push((Expr::Col(col.name.clone()), Some(format!("k{i}"))));
                        scope.push(InScope {
                            name: format!("s.k{i}"),
                            ty: col.ty,
                        });
                    }
                }
                if self.percent(50) {
                    inner.filter = Some(self.expr(Ty::Bool, &inner_scope, 1));
                }
                if self.percent(50) {
                    select.with = Some(("s".into(), Box::new(inner)));
                    select.from = "s".into();
                } else {
                    select.from = format!("({}) s", inner.render());
                }
            }
            _ => {
                select.from = format!("{} a", self.tables[t].name);
                scope = self.scope_of(t, "a");
            }
        }
        if self.percent(30) {
            let u = self.table();
            let right = self.scope_of(u, "b");
            let mut both = scope.clone();
            both.extend(right.iter().cloned());
            let on = if self.percent(60) {
                // An equi-join on a key or a column of the same type.
                let l = scope[self.rng.random_range(0..scope.len())].clone();
                let same: Vec<&InScope> = right.iter().filter(|c| c.ty == l.ty).collect();
                match same.is_empty() || !l.ty.ordered() {
                    true => self.expr(Ty::Bool, &both, 1),
                    false => {
                        let r = same[self.rng.random_range(0..same.len())].name.clone();
                        Expr::bin("=", Expr::Col(l.name), Expr::Col(r))
                    }
                }
            } else {
                self.expr(Ty::Bool, &both, 1)
            };
            select.joins.push(Join {
                kind: self.pick(&["JOIN", "LEFT JOIN"]),
                item: format!("{} b", self.tables[u].name),
                on,
            });
            scope = both;
        }
        (select, scope)
    }

    /// An expression of any type, made showable (a vector as text).
    fn shown(&mut self, scope: &[InScope]) -> Expr {
        let ty = self.pick(&COLUMN_TYPES);
        let ty = if ty == Ty::Vector && !self.vector {
            Ty::Int
        } else {
            ty
        };
        let e = self.expr(ty, scope, 0);
        match ty {
            Ty::Vector => Expr::Cast(Box::new(e), "text"),
            _ => e,
        }
    }

    /// A SELECT: plain, aggregate or grouped.
    pub fn select(&mut self) -> Select {
        let (mut select, scope) = self.source_clause();
        if self.percent(60) {
            select.filter = Some(self.expr(Ty::Bool, &scope, 0));
        }
        match self.rng.random_range(0..10) {
            0..=5 => {
                let n = self.rng.random_range(1..=4);
                for i in 0..n {
                    let e = self.shown(&scope);
                    let alias = self.percent(70).then(|| format!("c{i}"));
                    select.items.push((e, alias));
                }
                select.distinct = self.percent(15);
            }
            6 | 7 => {
                // Grouped: keys, then aggregates.
                let keys = self.rng.random_range(1..=2);
                for i in 0..keys {
                    let col = scope[self.rng.random_range(0..scope.len())].clone();
                    if !col.ty.ordered() || col.ty == Ty::Jsonb && self.percent(50) {
                        continue;
                    }
                    select.group_by.push(Expr::Col(col.name.clone()));
                    select
                        .items
                        .push((Expr::Col(col.name), Some(format!("g{i}"))));
                }
                self.aggregates(&mut select, &scope);
                if self.percent(40) && !select.group_by.is_empty() {
                    select.having = Some(self.having(&scope));
                }
            }
            _ => self.aggregates(&mut select, &scope),
        }
        if select.items.is_empty() {
            select
                .items
                .push((Expr::Lit("1".into()), Some("one".into())));
        }
        if self.percent(40) {
            // Every output column, so ties are rows alike.
            let mut order: Vec<String> = (1..=select.items.len())
                .map(|i| {
                    let dir = self.pick(&["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]);
                    format!("{i}{dir}")
                })
                .collect();
            if select.items.iter().any(|(e, _)| self.unordered(e, &scope)) {
                order.clear();
            }
            select.order_by = order;
            if !select.order_by.is_empty() && self.percent(60) {
                select.limit = Some(self.rng.random_range(0..5));
                if self.percent(30) {
                    select.offset = Some(self.rng.random_range(0..3));
                }
            }
        }
        select
    }

    /// Whether an output item is one ORDER BY cannot order (a vector shown as text orders
    /// as text, so only a raw vector column would be).
    fn unordered(&self, _e: &Expr, _scope: &[InScope]) -> bool {
        false
    }

    fn aggregates(&mut self, select: &mut Select, scope: &[InScope]) {
        let n = self.rng.random_range(1..=3);
        for i in 0..n {
            let agg = self.aggregate(scope);
            let alias = self.percent(60).then(|| format!("a{i}"));
            select.items.push((agg, alias));
        }
    }

    fn aggregate(&mut self, scope: &[InScope]) -> Expr {
        let col = scope[self.rng.random_range(0..scope.len())].clone();
        let c = Expr::Col(col.name.clone());
        match self.rng.random_range(0..8) {
            0 => Expr::Lit("count(*)".into()),
            1 => Expr::Call("count", vec![c]),
            2 | 3 if col.ty.ordered() => Expr::Call(self.pick(&["min", "max"]), vec![c]),
            4 | 5 if col.ty.numeric() => Expr::Call(self.pick(&["sum", "avg"]), vec![c]),
            6 => {
                let p = self.expr(Ty::Bool, scope, 1);
                Expr::Call(self.pick(&["bool_and", "bool_or"]), vec![p])
            }
            _ => Expr::Call("count", vec![self.expr(Ty::Int, scope, 1)]),
        }
    }

    fn having(&mut self, scope: &[InScope]) -> Expr {
        let agg = self.aggregate(scope);
        let n = self.rng.random_range(0..3);
        match agg {
            Expr::Call(f @ ("bool_and" | "bool_or"), _) if f.starts_with("bool") => agg,
            Expr::Call("min" | "max", _) => Expr::Post(Box::new(agg), "IS NOT NULL"),
            _ => Expr::bin(">", agg, Expr::Lit(n.to_string())),
        }
    }

    /// A literal of type `ty` (NULL now and then).
    fn literal(&mut self, ty: Ty) -> Expr {
        if self.percent(8) {
            return Expr::Lit(format!("NULL::{}", ty.cast()));
        }
        let text = match ty {
            Ty::Int => self
                .pick(&["0", "1", "2", "3", "7", "-1", "-5", "10", "100"])
                .to_string(),
            Ty::BigInt => self
                .pick(&["0::bigint", "1::bigint", "-2::bigint", "9000000000"])
                .to_string(),
            Ty::Text => self
                .pick(&["'a'", "'b'", "'ab'", "'B'", "''", "'a b'", "'x%'", "'10'"])
                .to_string(),
            Ty::Bool => self.pick(&["true", "false"]).to_string(),
            Ty::Float => self
                .pick(&[
                    "0.5::float8",
                    "-1.25::float8",
                    "2::float8",
                    "0::float8",
                    "1e10::float8",
                    "'NaN'::float8",
                    "'Infinity'::float8",
                ])
                .to_string(),
            Ty::Numeric => self
                .pick(&["1.50", "-2.25", "0.00", "100", "3.14159", "0.1"])
                .to_string(),
            Ty::Jsonb => self
                .pick(&[
                    "'{\"a\": 1}'::jsonb",
                    "'{\"a\": \"x\", \"b\": [1, 2]}'::jsonb",
                    "'[1, 2, 3]'::jsonb",
                    "'\"s\"'::jsonb",
                    "'null'::jsonb",
                    "'2.50'::jsonb",
                    "'{\"b\": {\"a\": true}}'::jsonb",
                ])
                .to_string(),
            Ty::Ts => self
                .pick(&[
                    "'2024-01-01 00:00:00+00'::timestamptz",
                    "'2024-06-15 12:30:00+02'::timestamptz",
                    "'1999-12-31 23:59:59.5+00'::timestamptz",
                    "'2024-02-29 08:00:00+00'::timestamptz",
                ])
                .to_string(),
            Ty::Uuid => self
                .pick(&[
                    "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
                    "'00000000-0000-0000-0000-000000000001'::uuid",
                    "'ffffffff-ffff-4fff-bfff-ffffffffffff'::uuid",
                ])
                .to_string(),
            Ty::Vector => self
                .pick(&[
                    "'[1,2,3]'::vector",
                    "'[0,0,1]'::vector",
                    "'[-1,0.5,2]'::vector",
                    "'[3,0,-4]'::vector",
                ])
                .to_string(),
        };
        Expr::Lit(text)
    }

    fn column_of(&mut self, ty: Ty, scope: &[InScope]) -> Option<Expr> {
        let cols: Vec<&InScope> = scope.iter().filter(|c| c.ty == ty).collect();
        (!cols.is_empty())
            .then(|| Expr::Col(cols[self.rng.random_range(0..cols.len())].name.clone()))
    }

    /// A leaf: a column of the type when one is in scope (mostly), else a literal.
    fn leaf(&mut self, ty: Ty, scope: &[InScope]) -> Expr {
        if self.percent(70) {
            if let Some(col) = self.column_of(ty, scope) {
                return col;
            }
        }
        self.literal(ty)
    }

    /// An expression of type `ty`.
    fn expr(&mut self, ty: Ty, scope: &[InScope], depth: u32) -> Expr {
        if depth >= DEPTH_MAX || self.percent(25) {
            return self.leaf(ty, scope);
        }
        let d = depth + 1;
        match ty {
            Ty::Bool => self.predicate(scope, d),
            Ty::Int => match self.rng.random_range(0..12) {
                0 | 1 => {
                    let op = self.pick(&["+", "-", "*"]);
                    Expr::bin(
                        op,
                        self.expr(Ty::Int, scope, d),
                        self.expr(Ty::Int, scope, d),
                    )
                }
                2 => {
                    // A divisor never zero with a column about, so an error never depends
                    // on which rows a plan evaluates (PostgreSQL's order is its own); a
                    // constant one may be zero, and its error comes before any row.
                    let op = self.pick(&["/", "%"]);
                    match self.percent(20) {
                        true => Expr::bin(
                            op,
                            self.literal(Ty::Int),
                            Expr::Lit(self.pick(&["0", "3"]).into()),
                        ),
                        false => {
                            let divisor = Expr::Lit(self.pick(&["1", "2", "3", "-5", "7"]).into());
                            Expr::bin(op, self.expr(Ty::Int, scope, d), divisor)
                        }
                    }
                }
                3 => Expr::Call("abs", vec![self.expr(Ty::Int, scope, d)]),
                4 => Expr::Call("length", vec![self.expr(Ty::Text, scope, d)]),
                5 => self.case(Ty::Int, scope, d),
                6 => {
                    let f = self.pick(&["coalesce", "greatest", "least", "nullif"]);
                    Expr::Call(
                        f,
                        vec![self.expr(Ty::Int, scope, d), self.expr(Ty::Int, scope, d)],
                    )
                }
                7 => Expr::Pre("-", Box::new(self.expr(Ty::Int, scope, d))),
                8 => {
                    let t = self.table();
                    let name = self.tables[t].name.clone();
                    Expr::Raw(format!("(SELECT max(z.id) FROM {name} z)"))
                }
                // Casts that can fail, of constants only (see the divisor above).
                9 => Expr::Cast(Box::new(self.literal(Ty::Float)), "int"),
                10 => Expr::Cast(Box::new(self.expr(Ty::Numeric, scope, d)), "int"),
                11 if self.percent(50) => {
                    Expr::bin("+", Expr::Lit("2147483647".into()), self.literal(Ty::Int))
                }
                _ => Expr::Cast(Box::new(self.literal(Ty::Text)), "int"),
            },
            Ty::BigInt => match self.rng.random_range(0..5) {
                0 => Expr::Cast(Box::new(self.expr(Ty::Int, scope, d)), "bigint"),
                1 => Expr::bin(
                    self.pick(&["+", "*", "-"]),
                    self.expr(Ty::BigInt, scope, d),
                    self.expr(Ty::Int, scope, d),
                ),
                2 => {
                    let t = self.table();
                    let name = self.tables[t].name.clone();
                    let p = self.expr(Ty::Bool, &self.scope_of(t, "z"), d);
                    Expr::Raw(format!(
                        "(SELECT count(*) FROM {name} z WHERE {})",
                        p.render()
                    ))
                }
                3 => self.case(Ty::BigInt, scope, d),
                _ => Expr::Call("abs", vec![self.expr(Ty::BigInt, scope, d)]),
            },
            Ty::Text => match self.rng.random_range(0..8) {
                0 | 1 => Expr::bin(
                    "||",
                    self.expr(Ty::Text, scope, d),
                    self.expr(Ty::Text, scope, d),
                ),
                2 => Expr::Call(
                    self.pick(&["lower", "upper"]),
                    vec![self.expr(Ty::Text, scope, d)],
                ),
                3 => Expr::Call(
                    "coalesce",
                    vec![self.expr(Ty::Text, scope, d), self.literal(Ty::Text)],
                ),
                4 => Expr::bin("->>", self.expr(Ty::Jsonb, scope, d), self.pick_key()),
                5 => {
                    let from = self.pick(&[
                        Ty::Int,
                        Ty::Numeric,
                        Ty::Bool,
                        Ty::Float,
                        Ty::Uuid,
                        Ty::Ts,
                        Ty::Jsonb,
                    ]);
                    Expr::Cast(Box::new(self.expr(from, scope, d)), "text")
                }
                6 => self.case(Ty::Text, scope, d),
                _ => Expr::bin(
                    "||",
                    self.expr(Ty::Text, scope, d),
                    self.expr(Ty::Int, scope, d),
                ),
            },
            Ty::Float => match self.rng.random_range(0..6) {
                0 | 1 => Expr::bin(
                    self.pick(&["+", "-", "*"]),
                    self.expr(Ty::Float, scope, d),
                    self.expr(Ty::Float, scope, d),
                ),
                2 => Expr::Cast(Box::new(self.expr(Ty::Int, scope, d)), "float8"),
                3 => Expr::Call("abs", vec![self.expr(Ty::Float, scope, d)]),
                4 if self.vector => Expr::bin(
                    self.pick(&["<->", "<#>"]),
                    self.expr(Ty::Vector, scope, d),
                    self.literal(Ty::Vector),
                ),
                _ => self.case(Ty::Float, scope, d),
            },
            Ty::Numeric => match self.rng.random_range(0..6) {
                0 | 1 => Expr::bin(
                    self.pick(&["+", "-", "*"]),
                    self.expr(Ty::Numeric, scope, d),
                    self.expr(Ty::Numeric, scope, d),
                ),
                2 => Expr::Cast(Box::new(self.expr(Ty::Int, scope, d)), "numeric"),
                3 => Expr::Call("round", vec![self.expr(Ty::Numeric, scope, d)]),
                4 => Expr::Call("abs", vec![self.expr(Ty::Numeric, scope, d)]),
                _ => self.case(Ty::Numeric, scope, d),
            },
            Ty::Jsonb => match self.rng.random_range(0..5) {
                0 => Expr::bin("->", self.expr(Ty::Jsonb, scope, d), self.pick_key()),
                1 => Expr::Call(
                    "jsonb_build_object",
                    vec![Expr::Lit("'k'".into()), self.expr(Ty::Int, scope, d)],
                ),
                2 => {
                    let from = self.pick(&[Ty::Int, Ty::Text, Ty::Bool, Ty::Numeric]);
                    Expr::Call("to_jsonb", vec![self.expr(from, scope, d)])
                }
                3 => Expr::Call(
                    "coalesce",
                    vec![self.expr(Ty::Jsonb, scope, d), self.literal(Ty::Jsonb)],
                ),
                _ => self.case(Ty::Jsonb, scope, d),
            },
            Ty::Ts => match self.rng.random_range(0..3) {
                0 => Expr::bin(
                    self.pick(&["+", "-"]),
                    self.expr(Ty::Ts, scope, d),
                    Expr::Lit(
                        self.pick(&[
                            "interval '1 day'",
                            "interval '90 minutes'",
                            "interval '1 month'",
                        ])
                        .into(),
                    ),
                ),
                1 => self.case(Ty::Ts, scope, d),
                _ => Expr::Call(
                    "coalesce",
                    vec![self.expr(Ty::Ts, scope, d), self.literal(Ty::Ts)],
                ),
            },
            Ty::Uuid | Ty::Vector => match self.rng.random_range(0..2) {
                0 => self.case(ty, scope, d),
                _ => Expr::Call("coalesce", vec![self.expr(ty, scope, d), self.literal(ty)]),
            },
        }
    }

    fn pick_key(&mut self) -> Expr {
        Expr::Lit(self.pick(&["'a'", "'b'", "'k'", "0", "1"]).into())
    }

    fn case(&mut self, ty: Ty, scope: &[InScope], d: u32) -> Expr {
        Expr::Case(
            Box::new(self.expr(Ty::Bool, scope, d)),
            Box::new(self.expr(ty, scope, d)),
            Box::new(self.expr(ty, scope, d)),
        )
    }

    /// A comparable type for a comparison.
    fn comparable(&mut self) -> Ty {
        self.pick(&[
            Ty::Int,
            Ty::Int,
            Ty::BigInt,
            Ty::Text,
            Ty::Text,
            Ty::Float,
            Ty::Numeric,
            Ty::Ts,
            Ty::Uuid,
            Ty::Bool,
            Ty::Jsonb,
        ])
    }

    fn predicate(&mut self, scope: &[InScope], d: u32) -> Expr {
        match self.rng.random_range(0..16) {
            0..=3 => {
                let ty = self.comparable();
                let op = self.pick(&["=", "<>", "<", "<=", ">", ">="]);
                Expr::bin(op, self.expr(ty, scope, d), self.expr(ty, scope, d))
            }
            4 => {
                let ty = self.pick(&COLUMN_TYPES);
                let ty = if ty == Ty::Vector && !self.vector {
                    Ty::Text
                } else {
                    ty
                };
                let op = self.pick(&["IS NULL", "IS NOT NULL"]);
                Expr::Post(Box::new(self.expr(ty, scope, d)), op)
            }
            5 | 6 => Expr::bin(
                self.pick(&["AND", "OR"]),
                self.expr(Ty::Bool, scope, d),
                self.expr(Ty::Bool, scope, d),
            ),
            7 => Expr::Pre("NOT", Box::new(self.expr(Ty::Bool, scope, d))),
            8 => {
                let ty = self.pick(&[Ty::Int, Ty::Text, Ty::Numeric, Ty::Float]);
                Expr::Between(
                    Box::new(self.expr(ty, scope, d)),
                    Box::new(self.literal(ty)),
                    Box::new(self.literal(ty)),
                )
            }
            9 => {
                let ty = self.pick(&[Ty::Int, Ty::Text, Ty::BigInt]);
                let n = self.rng.random_range(1..4);
                let items = (0..n).map(|_| self.literal(ty)).collect();
                Expr::In(Box::new(self.expr(ty, scope, d)), items)
            }
            10 => {
                let pattern = self.pick(&["'a%'", "'%b'", "'_'", "'%'", "'A%'"]);
                let op = self.pick(&["LIKE", "NOT LIKE", "ILIKE"]);
                Expr::bin(op, self.expr(Ty::Text, scope, d), Expr::Lit(pattern.into()))
            }
            11 => {
                let ty = self.comparable();
                let op = self.pick(&["IS DISTINCT FROM", "IS NOT DISTINCT FROM"]);
                Expr::bin(op, self.expr(ty, scope, d), self.expr(ty, scope, d))
            }
            12 => {
                // A correlated EXISTS or IN over another table.
                let t = self.table();
                let name = self.tables[t].name.clone();
                let inner = self.scope_of(t, "z");
                let mut both = inner.clone();
                both.extend(scope.iter().cloned());
                let p = self.expr(Ty::Bool, &both, d);
                if self.percent(50) {
                    Expr::Raw(format!(
                        "EXISTS (SELECT 1 FROM {name} z WHERE {})",
                        p.render()
                    ))
                } else {
                    let e = self.expr(Ty::Int, scope, d);
                    Expr::Raw(format!(
                        "({} IN (SELECT z.id FROM {name} z WHERE {}))",
                        e.render(),
                        p.render()
                    ))
                }
            }
            13 => {
                let op = self.pick(&["?", "@>"]);
                let right = match op {
                    "?" => Expr::Lit(self.pick(&["'a'", "'b'"]).into()),
                    _ => Expr::Lit(self.pick(&["'{\"a\": 1}'", "'[1]'", "'{}'"]).into()),
                };
                Expr::bin(op, self.expr(Ty::Jsonb, scope, d), right)
            }
            14 => {
                let items: Vec<String> = (0..self.rng.random_range(1..4))
                    .map(|_| self.rng.random_range(-1..5).to_string())
                    .collect();
                Expr::Raw(format!(
                    "({} = ANY(ARRAY[{}]))",
                    self.expr(Ty::Int, scope, d).render(),
                    items.join(", ")
                ))
            }
            _ => self.leaf(Ty::Bool, scope),
        }
    }

    /// A write on connection 1.
    fn write(&mut self) -> Stmt {
        match self.rng.random_range(0..10) {
            0..=4 => self.insert(),
            5..=7 => self.update(),
            _ => self.delete(),
        }
    }

    fn returning(&mut self, t: usize) -> Vec<Expr> {
        if self.percent(50) {
            return vec![];
        }
        let scope = self.scope_of(t, &self.tables[t].name.clone());
        let n = self.rng.random_range(1..=2);
        (0..n)
            .map(|_| {
                let col = scope[self.rng.random_range(0..scope.len())].clone();
                match col.ty {
                    Ty::Vector => Expr::Cast(Box::new(Expr::Col(col.name)), "text"),
                    _ => Expr::Col(col.name),
                }
            })
            .collect()
    }

    fn value_for(&mut self, col: &Column) -> Expr {
        if let Some(t) = col.references {
            let _ = t;
            let id = self.rng.random_range(1..self.next_id.max(2) + 1);
            return Expr::Lit(id.to_string());
        }
        let v = self.literal(col.ty);
        if col.not_null && v.render().starts_with("NULL") && self.percent(70) {
            return self.literal(col.ty);
        }
        v
    }

    pub fn insert(&mut self) -> Stmt {
        let t = self.table();
        let table = self.tables[t].clone();
        let mut cols = vec!["id".to_string()];
        let chosen: Vec<Column> = table
            .cols
            .iter()
            .filter(|c| c.not_null || self.percent(80))
            .cloned()
            .collect();
        cols.extend(chosen.iter().map(|c| c.name.clone()));
        let n = self.rng.random_range(1..=ROWS_MAX);
        let rows = (0..n)
            .map(|_| {
                let id = if self.percent(20) && self.next_id > 1 {
                    self.rng.random_range(1..self.next_id)
                } else {
                    self.next_id += 1;
                    self.next_id - 1
                };
                let mut row = vec![Expr::Lit(id.to_string())];
                row.extend(chosen.iter().map(|c| self.value_for(c)));
                row
            })
            .collect();
        let conflict = match self.rng.random_range(0..6) {
            0 => "ON CONFLICT (id) DO NOTHING".to_string(),
            1 if !chosen.is_empty() => {
                let c = &chosen[self.rng.random_range(0..chosen.len())].name;
                format!("ON CONFLICT (id) DO UPDATE SET {c} = EXCLUDED.{c}")
            }
            2 if !chosen.is_empty() => {
                let c = chosen[self.rng.random_range(0..chosen.len())].clone();
                let p = self.expr(Ty::Bool, &self.scope_of(t, &table.name), 2);
                let set = match c.ty {
                    Ty::Int => format!("{0} = {1}.{0} + 1", c.name, table.name),
                    _ => format!("{0} = EXCLUDED.{0}", c.name),
                };
                format!("ON CONFLICT (id) DO UPDATE SET {set} WHERE {}", p.render())
            }
            _ => String::new(),
        };
        Stmt::Insert {
            table: table.name,
            cols,
            rows,
            conflict,
            returning: self.returning(t),
        }
    }

    fn update(&mut self) -> Stmt {
        let t = self.table();
        let name = self.tables[t].name.clone();
        let scope = self.scope_of(t, &name);
        let cols = self.tables[t].cols.clone();
        let mut sets = Vec::new();
        for _ in 0..self.rng.random_range(1..=2) {
            let col = cols[self.rng.random_range(0..cols.len())].clone();
            if sets.iter().any(|(c, _)| *c == col.name) || col.references.is_some() {
                continue;
            }
            let e = self.expr(col.ty, &scope, 1);
            sets.push((col.name, e));
        }
        if sets.is_empty() || self.percent(5) {
            let e = Expr::bin(
                "+",
                Expr::Col(format!("{name}.id")),
                Expr::Lit("100".into()),
            );
            sets.push(("id".into(), e));
        }
        let filter = self.percent(85).then(|| self.expr(Ty::Bool, &scope, 0));
        Stmt::Update {
            table: name,
            sets,
            filter,
            returning: self.returning(t),
        }
    }

    fn delete(&mut self) -> Stmt {
        let t = self.table();
        let name = self.tables[t].name.clone();
        let scope = self.scope_of(t, &name);
        let filter = self.percent(90).then(|| self.expr(Ty::Bool, &scope, 0));
        Stmt::Delete {
            table: name,
            filter,
            returning: self.returning(t),
        }
    }
}

/// `count` items of seed `seed`'s sequence (setup first), then a COMMIT for each
/// connection still in a transaction.
pub fn sequence(seed: u64, count: usize) -> Vec<Item> {
    assert!(count <= STATEMENTS_MAX, "a sequence of {count} statements");
    let mut g = Generator::new(seed);
    let mut items: Vec<Item> = (0..count).map(|_| g.next_item()).collect();
    for conn in g.open_connections() {
        items.push(Item {
            conn,
            stmt: Stmt::Raw("COMMIT".into()),
        });
    }
    items
}
