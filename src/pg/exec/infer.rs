//! Types without values: what a statement's result columns are and what its parameters
//! must be, as `Describe` answers before anything runs. A parameter takes its type from
//! where it stands (a column it is compared with or assigned to, a function's argument,
//! `LIMIT`), as PostgreSQL's parser gives it one.

use crate::pg::error::*;
use crate::pg::exec::aggregate;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::{ident, object_name};
use crate::pg::sql::scope::Source;
use crate::pg::types::cast::number_literal;
use crate::pg::types::ops::result_type;
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Query, SetExpr,
    Value as Literal,
};

impl Exec<'_> {
    /// The type of `e` over rows of `sources` (inside `parent`'s), settling parameters.
    pub(crate) fn infer(
        &mut self,
        e: &Expr,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        self.tick()?;
        let t = match e {
            Expr::Identifier(i) => column_type(sources, parent, &[ident(i)])?,
            Expr::CompoundIdentifier(parts) => column_type(
                sources,
                parent,
                &parts.iter().map(ident).collect::<Vec<_>>(),
            )?,
            Expr::Value(v) => self.literal_type(&v.value)?,
            Expr::Nested(inner) => self.infer(inner, sources, parent)?,
            Expr::BinaryOp { left, op, right } => {
                self.infer_binary(left, op, right, sources, parent)?
            }
            Expr::UnaryOp { expr, op } => {
                match (op, crate::pg::sql::names::negated_number(op, expr)) {
                    (_, Some(negative)) => number_literal(&negative)?.t,
                    (sqlparser::ast::UnaryOperator::Not, None) => self
                        .infer_condition(expr, "NOT", sources, parent)
                        .map(|_| Type::Bool)?,
                    _ => self.infer(expr, sources, parent)?,
                }
            }
            Expr::IsNull(x) | Expr::IsNotNull(x) | Expr::IsTrue(x) | Expr::IsFalse(x) => {
                self.infer(x, sources, parent)?;
                Type::Bool
            }
            Expr::IsDistinctFrom(a, b) | Expr::IsNotDistinctFrom(a, b) => {
                self.infer_pair(a, b, sources, parent)?;
                Type::Bool
            }
            Expr::Cast {
                expr, data_type, ..
            } => {
                let (t, _) = self.sql_type(data_type)?;
                if !crate::pg::exec::expr::is_empty_array(expr) {
                    self.infer_as(expr, t, sources, parent)?;
                }
                if quoted_text(expr).is_some() {
                    self.literal_cast(e)?;
                }
                t
            }
            Expr::TypedString(typed) => {
                let (t, _) = self.sql_type(&typed.data_type)?;
                self.literal_cast(e)?;
                t
            }
            Expr::Interval(_) => Type::Interval,
            Expr::Extract { expr, .. } => {
                self.infer(expr, sources, parent)?;
                Type::Numeric
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                self.infer_pair(expr, low, sources, parent)?;
                self.infer_pair(expr, high, sources, parent)?;
                Type::Bool
            }
            Expr::In { expr, target, .. } => self.infer_in(expr, target, sources, parent)?,
            Expr::AnyOp { left, right, .. } => {
                let t = self.infer(left, sources, parent)?;
                if let Some(array) = t.array_of() {
                    self.infer_as(right, array, sources, parent)?;
                }
                Type::Bool
            }
            Expr::Like {
                expr,
                pattern,
                escape_char,
                any: false,
                negated,
                ..
            }
            | Expr::ILike {
                expr,
                pattern,
                escape_char,
                any: false,
                negated,
                ..
            } => {
                let operator = match (matches!(e, Expr::ILike { .. }), *negated) {
                    (false, false) => "~~",
                    (false, true) => "!~~",
                    (true, false) => "~~*",
                    (true, true) => "!~~*",
                };
                let l = self.infer(expr, sources, parent)?;
                let r = match self.infer(pattern, sources, parent)? {
                    // With ESCAPE the pattern is `like_escape(pattern, escape)`: text.
                    Type::Unknown if escape_char.is_some() => Type::Text,
                    r => r,
                };
                like_operands(operator, l, r)?;
                self.hint(expr, Type::Text);
                self.hint(pattern, Type::Text);
                if let Some(e) = escape_char {
                    self.infer_as(e, Type::Text, sources, parent)?;
                }
                Type::Bool
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.infer_case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                sources,
                parent,
            )?,
            Expr::Function(f) => self.infer_function(f, sources, parent)?,
            Expr::Substring { .. } | Expr::Trim { .. } | Expr::Position { .. } => {
                let (name, args) =
                    crate::pg::exec::string_syntax::lowered(e).expect("a standard string form")?;
                let wants = crate::pg::types::text_fn::argument_types(name, args.len());
                for (arg, t) in args.iter().zip(wants) {
                    self.infer_as(arg, t.unwrap_or(Type::Text), sources, parent)?;
                }
                crate::pg::types::text_fn::return_type(name).expect("a string function")
            }
            Expr::Exists { subquery, .. } => {
                self.describe_query(subquery, &frame_of(sources, parent))?;
                Type::Bool
            }
            Expr::Subquery(q) => single(&self.describe_query(q, &frame_of(sources, parent))?)?,
            Expr::Array(array) if array.elem.is_empty() => {
                return Err(crate::pg::exec::expr::empty_array_error().into())
            }
            Expr::Array(array) => {
                let mut element = Type::Unknown;
                for item in &array.elem {
                    let t = self.infer(item, sources, parent)?;
                    element = crate::pg::types::numeric_cast::common_type(element, t)
                        .unwrap_or(if element == Type::Unknown { t } else { element });
                }
                let element = if element == Type::Unknown {
                    Type::Text
                } else {
                    element
                };
                element.array_of().ok_or_else(|| {
                    PgError::unsupported(format!("an array of {}", element.name()))
                })?
            }
            other => return Err(PgError::unsupported(format!("the expression `{other}`")).into()),
        };
        Ok(t)
    }

    /// A quoted literal's cast (`'x'::date`, `date 'x'`) is read where parse analysis
    /// meets it, so its error comes in PostgreSQL's order among analysis's others.
    fn literal_cast(&mut self, e: &Expr) -> PgResult<()> {
        match self.eval(e, &Frame::EMPTY) {
            Err(Flow::Error(error)) => Err(error),
            _ => Ok(()),
        }
    }

    /// Infer `e`, and give it `t` if it is an untyped parameter.
    pub(crate) fn infer_as(
        &mut self,
        e: &Expr,
        t: Type,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        let found = self.infer(e, sources, parent)?;
        if found == Type::Unknown {
            self.hint(e, t);
            return Ok(t);
        }
        Ok(found)
    }

    /// Infer a condition of `clause` (WHERE, AND, CASE/WHEN, …): PostgreSQL's
    /// `coerce_to_boolean` at parse analysis, so a condition of another type fails with
    /// 42804 before any row is read, and an untyped literal is read as a boolean there.
    pub(crate) fn infer_condition(
        &mut self,
        e: &Expr,
        clause: &str,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        let t = self.infer_as(e, Type::Bool, sources, parent)?;
        match t {
            Type::Bool => {
                if let Some(text) = quoted_text(e) {
                    let literal = Typed::new(Value::Text(text.to_string()), Type::Unknown);
                    crate::pg::types::cast::cast(literal, Type::Bool, None)?;
                }
                Ok(t)
            }
            // Not known to the model (an unmodelled function's result): left to the run.
            Type::Unknown => Ok(t),
            other => Err(PgError::new(
                DATATYPE_MISMATCH,
                format!(
                    "argument of {clause} must be type boolean, not type {}",
                    other.name()
                ),
            )
            .into()),
        }
    }

    fn infer_pair(
        &mut self,
        a: &Expr,
        b: &Expr,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<(Type, Type)> {
        let (ta, tb) = (
            self.infer(a, sources, parent)?,
            self.infer(b, sources, parent)?,
        );
        // varchar has no comparison operators of its own: PostgreSQL compares it as text,
        // so a parameter beside it is text.
        let beside = |t: Type| if t == Type::Varchar { Type::Text } else { t };
        match (ta, tb) {
            (Type::Unknown, t) if t != Type::Unknown => (self.hint(a, beside(t)), Ok((t, t))).1,
            (t, Type::Unknown) if t != Type::Unknown => (self.hint(b, beside(t)), Ok((t, t))).1,
            pair => Ok(pair),
        }
    }

    /// A parameter `$n` standing at `e` gets type `t`.
    pub(crate) fn hint(&mut self, e: &Expr, t: Type) {
        let e = match e {
            Expr::Nested(inner) => inner,
            other => other,
        };
        let Expr::Value(v) = e else { return };
        let Literal::Placeholder(p) = &v.value else {
            return;
        };
        let Some(n) = p
            .strip_prefix('$')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n >= 1)
        else {
            return;
        };
        if n > crate::pg::sql::parse::PARAMS_MAX {
            return;
        }
        if self.param_hints.len() < n {
            self.param_hints.resize(n, Type::Unknown);
        }
        if self.param_hints[n - 1] == Type::Unknown {
            self.param_hints[n - 1] = t;
        }
    }

    fn literal_type(&mut self, literal: &Literal) -> PgResult<Type> {
        match literal {
            Literal::Number(n, _) => Ok(number_literal(n)?.t),
            Literal::Boolean(_) => Ok(Type::Bool),
            Literal::SingleQuotedByteStringLiteral(_) => Ok(Type::Bit),
            Literal::Placeholder(p) => {
                let n: usize = p.trim_start_matches('$').parse().unwrap_or(0);
                let bound = self
                    .params
                    .get(n.wrapping_sub(1))
                    .map(|p| p.t)
                    .filter(|t| *t != Type::Unknown);
                let hinted = self.param_hints.get(n.wrapping_sub(1)).copied();
                Ok(bound.or(hinted).unwrap_or(Type::Unknown))
            }
            _ => Ok(Type::Unknown),
        }
    }

    fn infer_binary(
        &mut self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        match op {
            BinaryOperator::And | BinaryOperator::Or => {
                let clause = if *op == BinaryOperator::And {
                    "AND"
                } else {
                    "OR"
                };
                self.infer_condition(left, clause, sources, parent)?;
                self.infer_condition(right, clause, sources, parent)?;
                Ok(Type::Bool)
            }
            op if crate::pg::sql::names::is_comparison(op) => self
                .infer_pair(left, right, sources, parent)
                .map(|_| Type::Bool),
            BinaryOperator::StringConcat => {
                let (l, r) = (
                    self.infer(left, sources, parent)?,
                    self.infer(right, sources, parent)?,
                );
                // jsonb || jsonb and vector || vector are their types' concatenations
                // (an untyped side takes the other's type); anything else concatenates text.
                let vectors = crate::pg::types::vector_fn::operand_type(l, r);
                let t = match (l, r) {
                    _ if vectors.is_some() => vectors.expect("vector operands"),
                    (t @ (Type::Jsonb | Type::Vector | Type::Halfvec), u)
                    | (u, t @ (Type::Jsonb | Type::Vector | Type::Halfvec))
                        if u == t || u == Type::Unknown =>
                    {
                        t
                    }
                    _ => Type::Text,
                };
                for (e, found) in [(left, l), (right, r)] {
                    if found == Type::Unknown {
                        self.hint(e, t);
                    }
                }
                Ok(t)
            }
            op => {
                let (l, r) = (
                    self.infer(left, sources, parent)?,
                    self.infer(right, sources, parent)?,
                );
                let want = |other: Type| crate::pg::types::ops::unknown_operand_type(op, other);
                let (l, r) = match (l, r) {
                    (Type::Unknown, Type::Unknown) => return Ok(Type::Unknown),
                    (Type::Unknown, t) => (self.hint_to(left, want(t)), t),
                    (t, Type::Unknown) => (t, self.hint_to(right, want(t))),
                    pair => pair,
                };
                Ok(result_type(op, l, r)?)
            }
        }
    }

    fn hint_to(&mut self, e: &Expr, t: Type) -> Type {
        self.hint(e, t);
        t
    }

    fn infer_in(
        &mut self,
        expr: &Expr,
        target: &sqlparser::ast::InTarget,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        match target {
            sqlparser::ast::InTarget::List(list) => {
                for item in list {
                    self.infer_pair(expr, item, sources, parent)?;
                }
            }
            sqlparser::ast::InTarget::Subquery(q) => {
                let t = single(&self.describe_query(q, &frame_of(sources, parent))?)?;
                self.infer_as(expr, t, sources, parent)?;
            }
            _ => return Err(PgError::unsupported("IN of this form").into()),
        }
        Ok(Type::Bool)
    }

    fn infer_case(
        &mut self,
        operand: Option<&Expr>,
        conditions: &[sqlparser::ast::CaseWhen],
        otherwise: Option<&Expr>,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        let mut t = Type::Unknown;
        for when in conditions {
            match operand {
                Some(o) => self
                    .infer_pair(o, &when.condition, sources, parent)
                    .map(|_| ())?,
                None => self
                    .infer_condition(&when.condition, "CASE/WHEN", sources, parent)
                    .map(|_| ())?,
            }
            let result = self.infer(&when.result, sources, parent)?;
            t = crate::pg::types::cast::common_type(t, result);
        }
        if let Some(e) = otherwise {
            let result = self.infer(e, sources, parent)?;
            t = crate::pg::types::cast::common_type(t, result);
        }
        Ok(if t == Type::Unknown { Type::Text } else { t })
    }

    fn infer_function(
        &mut self,
        f: &sqlparser::ast::Function,
        sources: &[Source],
        parent: Option<&Frame<'_>>,
    ) -> FlowResult<Type> {
        let name = object_name(&f.name).last().cloned().unwrap_or_default();
        if f.over.is_some() {
            return self.infer_window(f, sources, parent);
        }
        crate::pg::exec::window::refuse_without_over(f, &name)?;
        crate::pg::exec::functions::refuse_row_constructor(&name)?;
        if let FunctionArguments::Subquery(q) = &f.args {
            let t = single(&self.describe_query(q, &frame_of(sources, parent))?)?;
            return Ok(t
                .array_of()
                .ok_or_else(|| PgError::unsupported(format!("an array of {}", t.name())))?);
        }
        let args: Vec<&Expr> = match &f.args {
            FunctionArguments::List(list) => list
                .args
                .iter()
                .filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if let FunctionArguments::List(list) = &f.args {
            polymorphic_unknown(&name, &list.args)?;
        }
        if aggregate::is_aggregate(&Expr::Function(f.clone())) {
            let mut types = Vec::with_capacity(args.len());
            for arg in &args {
                types.push(self.infer(arg, sources, parent)?);
            }
            return Ok(aggregate::result_type(&name, &types)?);
        }
        let wants = argument_types(&name, args.len());
        let mut types = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            types.push(match wants.get(i).copied().flatten() {
                Some(t) => self.infer_as(arg, t, sources, parent)?,
                None => self.infer(arg, sources, parent)?,
            });
        }
        let first_known = types
            .iter()
            .copied()
            .find(|t| *t != Type::Unknown)
            .unwrap_or(Type::Text);
        if matches!(name.as_str(), "coalesce" | "nullif" | "greatest" | "least") {
            for arg in &args {
                self.hint(arg, first_known);
            }
        }
        Ok(return_type(&name, &types, first_known))
    }

    /// The columns `query` returns, its parameters settled, nothing run.
    pub(crate) fn describe_query(
        &mut self,
        query: &Query,
        parent: &Frame<'_>,
    ) -> FlowResult<Vec<(String, Type)>> {
        self.with_ctes(query, Some(parent), true, |exec| {
            exec.describe_body(query, parent)
        })
    }

    fn describe_body(
        &mut self,
        query: &Query,
        parent: &Frame<'_>,
    ) -> FlowResult<Vec<(String, Type)>> {
        if let Some(statement) = crate::pg::exec::dml_cte::statement_of(&query.body) {
            return Ok(self.describe(statement)?.unwrap_or_default());
        }
        let SetExpr::Select(select) = &*query.body else {
            return self.describe_set(query, parent);
        };
        let (sources, columns) = self.describe_select(select, parent)?;
        let parent = Some(parent);
        if let Some(sqlparser::ast::OrderBy {
            kind: sqlparser::ast::OrderByKind::Expressions(keys),
            ..
        }) = &query.order_by
        {
            for key in keys {
                let output = matches!(&key.expr, Expr::Identifier(i) if columns.iter().any(|(n, _)| *n == ident(i)));
                if !output && !matches!(&key.expr, Expr::Value(_)) {
                    self.infer(&key.expr, &sources, parent)?;
                }
            }
        }
        if let Some(sqlparser::ast::LimitClause::LimitOffset { limit, offset, .. }) =
            &query.limit_clause
        {
            for e in limit.iter().chain(offset.iter().map(|o| &o.value)) {
                self.infer_as(e, Type::Int8, &sources, parent)?;
            }
        }
        Ok(columns)
    }

    /// A SELECT's sources and output columns, its WHERE and HAVING typed.
    pub(crate) fn describe_select(
        &mut self,
        select: &sqlparser::ast::Select,
        parent: &Frame<'_>,
    ) -> FlowResult<(Vec<Source>, Columns)> {
        let sources = self.describe_from(&select.from, parent)?;
        // PostgreSQL's order (`transformSelectStmt`): the target list, WHERE, HAVING.
        let columns = self.output_columns(&select.projection, &sources, Some(parent))?;
        if let Some(e) = &select.selection {
            self.infer_condition(e, "WHERE", &sources, Some(parent))?;
        }
        if let Some(e) = &select.having {
            self.infer_condition(e, "HAVING", &sources, Some(parent))?;
        }
        self.describe_group_by(select, &sources, parent)?;
        Ok((sources, columns))
    }

    /// GROUP BY's keys typed (a position or an output column's name read as its select
    /// item): a key naming no column fails here.
    fn describe_group_by(
        &mut self,
        select: &sqlparser::ast::Select,
        sources: &[Source],
        parent: &Frame<'_>,
    ) -> FlowResult<()> {
        if !matches!(&select.group_by, sqlparser::ast::GroupByExpr::Expressions(keys, _) if !keys.is_empty())
        {
            return Ok(());
        }
        for key in aggregate::group_keys(select, sources)? {
            self.infer(key, sources, Some(parent))?;
        }
        Ok(())
    }

    pub(crate) fn describe_from(
        &mut self,
        from: &[sqlparser::ast::TableWithJoins],
        parent: &Frame<'_>,
    ) -> FlowResult<Vec<Source>> {
        let mut sources = Vec::new();
        for item in from {
            for join in &item.joins {
                crate::pg::exec::query::join_shape(&join.join_operator)?;
            }
            let factors =
                std::iter::once(&item.relation).chain(item.joins.iter().map(|j| &j.relation));
            for factor in factors {
                let offset = sources.iter().map(|s: &Source| s.columns.len()).sum();
                let series = crate::pg::exec::series::Series::of(factor);
                let source = match crate::pg::exec::unnest::Unnest::of(factor) {
                    Some(unnest) => self.describe_unnest(&unnest?, parent, &sources)?,
                    None if series.is_some() => {
                        let series = series.expect("checked")?;
                        self.describe_series(&series, parent, &sources)?
                    }
                    // A LATERAL subquery reads the items before it.
                    None if crate::pg::exec::lateral::is_lateral(factor) => {
                        let frame = frame_of(&sources, Some(parent));
                        self.describe_factor(factor, &frame, offset)?
                    }
                    None => self.describe_factor(factor, parent, offset)?,
                };
                crate::pg::exec::query::check_alias(&sources, &source)?;
                sources.push(source);
            }
            for join in &item.joins {
                if let sqlparser::ast::JoinOperator::Join(sqlparser::ast::JoinConstraint::On(e))
                | sqlparser::ast::JoinOperator::Inner(sqlparser::ast::JoinConstraint::On(e))
                | sqlparser::ast::JoinOperator::Left(sqlparser::ast::JoinConstraint::On(e))
                | sqlparser::ast::JoinOperator::LeftOuter(
                    sqlparser::ast::JoinConstraint::On(e),
                ) = &join.join_operator
                {
                    self.infer_condition(e, "JOIN/ON", &sources, Some(parent))?;
                }
            }
        }
        Ok(sources)
    }

    fn describe_factor(
        &mut self,
        factor: &sqlparser::ast::TableFactor,
        parent: &Frame<'_>,
        offset: usize,
    ) -> FlowResult<Source> {
        match factor {
            sqlparser::ast::TableFactor::Table { args: Some(_), .. } => {
                Err(PgError::unsupported(format!("the FROM item `{factor}`")).into())
            }
            sqlparser::ast::TableFactor::Table { name, alias, .. } => {
                let parts = crate::pg::sql::names::object_name(name);
                let cte = self.cte(&parts).map(|c| c.rows.columns.clone());
                let catalog =
                    || crate::pg::exec::catalog::relation(self.db, &parts).map(|r| r.columns);
                if let Some(mut columns) = cte.or_else(catalog) {
                    if let Some(alias) = alias {
                        crate::pg::exec::cte::rename_columns(alias, "table", &mut columns)?;
                    }
                    let alias = alias.as_ref().map_or_else(
                        || parts.last().cloned().unwrap_or_default(),
                        |a| ident(&a.name),
                    );
                    return Ok(Source {
                        alias,
                        columns,
                        offset,
                    });
                }
                let name = crate::pg::sql::names::table_name(name)?;
                let mut columns: Columns = self
                    .db
                    .table(&name)?
                    .columns
                    .iter()
                    .map(|c| (c.name.clone(), c.ty))
                    .collect();
                if let Some(alias) = alias {
                    crate::pg::exec::cte::rename_columns(alias, "table", &mut columns)?;
                }
                let alias = alias.as_ref().map_or(name, |a| ident(&a.name));
                Ok(Source {
                    alias,
                    columns,
                    offset,
                })
            }
            sqlparser::ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                let mut columns = self.describe_query(subquery, parent)?;
                if let Some(alias) = alias {
                    let rows = crate::pg::exec::context::Rows {
                        columns,
                        rows: Vec::new(),
                    };
                    columns = crate::pg::exec::cte::renamed_by(alias, "table", rows)?.columns;
                }
                let alias = alias
                    .as_ref()
                    .map_or(crate::pg::sql::scope::UNNAMED.to_string(), |a| {
                        ident(&a.name)
                    });
                Ok(Source {
                    alias,
                    columns,
                    offset,
                })
            }
            other => Err(PgError::unsupported(format!("the FROM item `{other}`")).into()),
        }
    }
}

/// Result columns: names and types.
type Columns = Vec<(String, Type)>;

/// A frame of `sources` (no values: only their types are read) inside `parent`.
fn frame_of<'f>(sources: &'f [Source], parent: Option<&'f Frame<'f>>) -> Frame<'f> {
    Frame {
        sources,
        values: &[],
        parent,
        depth: 0,
    }
}

/// `to_jsonb(anyelement)` and `to_json`: a polymorphic argument cannot take its type from
/// an untyped literal (a quoted one or NULL), which parse analysis finds (42804).
pub(crate) fn polymorphic_unknown(name: &str, args: &[FunctionArg]) -> PgResult<()> {
    if !matches!(name, "to_jsonb" | "to_json") {
        return Ok(());
    }
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] = args else {
        return Ok(());
    };
    let mut arg = arg;
    while let Expr::Nested(inner) = arg {
        arg = inner;
    }
    match arg {
        Expr::Value(v) if matches!(v.value, Literal::SingleQuotedString(_) | Literal::Null) => {
            Err(PgError::new(
                DATATYPE_MISMATCH,
                "could not determine polymorphic type because input has type unknown",
            ))
        }
        _ => Ok(()),
    }
}

/// LIKE's operators (`~~` and its kin) take text (or bytea) on both sides: a side of
/// another type has no implicit cast to text, so parse analysis finds no operator (42883).
fn like_operands(operator: &str, l: Type, r: Type) -> PgResult<()> {
    let fits = |t: Type| t.is_text() || matches!(t, Type::Unknown | Type::Bytea);
    match fits(l) && fits(r) {
        true => Ok(()),
        false => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!(
                "operator does not exist: {} {operator} {}",
                l.name(),
                r.name()
            ),
        )),
    }
}

/// The text of a quoted literal (in parentheses or not).
fn quoted_text(e: &Expr) -> Option<&str> {
    match e {
        Expr::Nested(inner) => quoted_text(inner),
        Expr::Value(v) => match &v.value {
            Literal::SingleQuotedString(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

fn single(columns: &[(String, Type)]) -> PgResult<Type> {
    match columns {
        [(_, t)] => Ok(*t),
        _ => Err(PgError::syntax("subquery must return only one column")),
    }
}

pub(crate) fn column_type(
    sources: &[Source],
    parent: Option<&Frame<'_>>,
    parts: &[String],
) -> PgResult<Type> {
    // The executor's resolution over a frame without values: one set of rules for both.
    frame_of(sources, parent).column(parts).map(|(v, _)| v.t)
}

/// The types a function's arguments take (`None`: from the argument itself).
fn argument_types(name: &str, count: usize) -> Vec<Option<Type>> {
    let advisory = match count {
        1 => vec![Some(Type::Int8)],
        _ => vec![Some(Type::Int4); count],
    };
    match name {
        "hashtext" | "lower" | "upper" | "length" | "char_length" | "character_length"
        | "current_setting" => vec![Some(Type::Text)],
        n if crate::pg::types::text_fn::knows(n, count) => {
            crate::pg::types::text_fn::argument_types(n, count)
        }
        "to_timestamp" => vec![Some(Type::Float8)],
        "jsonb_typeof" | "jsonb_array_length" => vec![Some(Type::Jsonb)],
        n if crate::pg::types::json_build::knows(n) => {
            vec![crate::pg::types::json_build::argument_type(n)]
        }
        n if n.starts_with("pg_advisory") || n.starts_with("pg_try_advisory") => advisory,
        n if crate::pg::types::vector_fn::knows(n) => {
            crate::pg::types::vector_fn::argument_types(n, count)
        }
        n if crate::pg::types::bit_fn::knows(n) => {
            crate::pg::types::bit_fn::argument_types(n, count)
        }
        _ => Vec::new(),
    }
}

fn return_type(name: &str, args: &[Type], first_known: Type) -> Type {
    match name {
        "now"
        | "current_timestamp"
        | "transaction_timestamp"
        | "statement_timestamp"
        | "clock_timestamp"
        | "to_timestamp" => Type::Timestamptz,
        n if crate::pg::types::datetime_fn::return_type(n, args).is_some() => {
            crate::pg::types::datetime_fn::return_type(n, args).expect("a date/time function")
        }
        "coalesce" | "greatest" | "least" => {
            crate::pg::types::cast::common_of(args.iter().copied())
        }
        "nullif" => first_known,
        "hashtext" | "length" | "char_length" | "character_length" | "octet_length"
        | "array_length" | "cardinality" => Type::Int4,
        n if crate::pg::types::text_fn::return_type(n).is_some() => {
            crate::pg::types::text_fn::return_type(n).expect("a string function")
        }
        "lower" | "upper" | "current_setting" | "version" => Type::Text,
        "gen_random_uuid" | "uuidv4" => Type::Uuid,
        n if crate::pg::types::jsonb_build::knows(n) => {
            crate::pg::types::jsonb_build::return_type(n)
        }
        n if crate::pg::types::tsearch_fn::knows(n) => crate::pg::types::tsearch_fn::return_type(n),
        n if crate::pg::types::numeric_fn::return_type(n, args).is_some() => {
            crate::pg::types::numeric_fn::return_type(n, args).expect("a numeric function")
        }
        n if crate::pg::types::json_build::knows(n) => crate::pg::types::json_build::return_type(n),
        "abs" => args.first().copied().unwrap_or(Type::Float8),
        "pg_advisory_unlock_all" => Type::Void,
        "pg_backend_pid" => Type::Int4,
        n if n.starts_with("pg_try_advisory") || n.contains("unlock") => Type::Bool,
        n if n.starts_with("pg_advisory") => Type::Void,
        n if crate::pg::types::vector_fn::knows(n) => {
            crate::pg::types::vector_fn::return_type(n, args)
        }
        n if crate::pg::types::bit_fn::knows(n) => crate::pg::types::bit_fn::return_type(n),
        _ => Type::Unknown,
    }
}
