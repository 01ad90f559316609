//! Function calls: the time functions on the server's clock, `coalesce` and its kin,
//! `hashtext`, the advisory locks (which may make the statement wait), the vector
//! functions, `gen_random_uuid()` (from the model's seed), the jsonb functions
//! (`types/jsonb_build.rs`), `ARRAY(subquery)`, and the aggregates' results read back.

use crate::pg::error::*;
use crate::pg::exec::context::{Exec, Frame};
use crate::pg::sql::names::object_name;
use crate::pg::storage::db::{AdvisoryKey, Holder, Undo};
use crate::pg::types::cast::{cast, coerce_pair};
use crate::pg::types::pg_type::Type;
use crate::pg::types::value::{Typed, Value};
use sqlparser::ast::{Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments};

impl Exec<'_> {
    pub(crate) fn function(&mut self, f: &Function, frame: &Frame<'_>) -> FlowResult<Typed> {
        let name = object_name(&f.name);
        let name = match name.as_slice() {
            [n] | [_, n] => n.clone(),
            _ => return Err(PgError::unsupported(format!("the function {}", f.name)).into()),
        };
        if let FunctionArguments::Subquery(query) = &f.args {
            return self.array_subquery(&name, query, frame);
        }
        crate::pg::exec::window::refuse_without_over(f, &name)?;
        refuse_row_constructor(&name)?;
        if name == "coalesce" {
            return self.coalesce_lazily(f, frame);
        }
        let args = self.arguments(f, frame)?;
        self.call(&name, args)
    }

    /// `coalesce` evaluates its arguments left to right and stops at the first that is
    /// not null, as PostgreSQL's executor does: a later argument that would fail (an
    /// overflow, a bad cast) is never evaluated. It reads on only while no argument so far
    /// has a type (all untyped literals), to type the result.
    fn coalesce_lazily(&mut self, f: &Function, frame: &Frame<'_>) -> FlowResult<Typed> {
        let exprs = argument_exprs(f)?;
        let mut evaluated: Vec<Typed> = Vec::with_capacity(exprs.len());
        for e in exprs.iter() {
            let arg = self.eval(e, frame)?;
            let not_null = !arg.v.is_null();
            evaluated.push(arg);
            if not_null && evaluated.iter().any(|a| a.t != Type::Unknown) {
                break;
            }
        }
        // The arguments not evaluated still type the result (their common type): each
        // stands in as a NULL of its type, which COALESCE passes over.
        for e in &exprs[evaluated.len()..] {
            let t = self.infer(e, frame.sources, frame.parent)?;
            evaluated.push(Typed::null(t));
        }
        self.call("coalesce", evaluated)
    }

    /// A window function call's result for the row being projected; PostgreSQL allows
    /// window functions only in a SELECT list and ORDER BY, where they were computed.
    pub(crate) fn window_result(&self, call: &Expr) -> FlowResult<Typed> {
        let address = call as *const Expr as usize;
        match self.windows.iter().find(|(at, _)| *at == address) {
            Some((_, value)) => Ok(value.clone()),
            None => Err(PgError::new(
                WINDOWING_ERROR,
                format!("window functions are not allowed here: {call}"),
            )
            .into()),
        }
    }

    /// An aggregate call's result for the group being projected.
    pub(crate) fn aggregate_result(&self, call: &Expr) -> FlowResult<Typed> {
        let address = call as *const Expr as usize;
        match self.aggregates.iter().find(|(at, _)| *at == address) {
            Some((_, value)) => Ok(value.clone()),
            None => Err(PgError::new(
                GROUPING_ERROR,
                format!("aggregate functions are not allowed here: {call}"),
            )
            .into()),
        }
    }

    fn array_subquery(
        &mut self,
        name: &str,
        query: &sqlparser::ast::Query,
        frame: &Frame<'_>,
    ) -> FlowResult<Typed> {
        if name != "array" {
            return Err(PgError::unsupported(format!("{name}(subquery)")).into());
        }
        let rows = self.subquery(query, frame, None)?;
        let element = rows.single_column_type()?;
        let t = element
            .array_of()
            .ok_or_else(|| PgError::unsupported(format!("an array of {}", element.name())))?;
        let items = rows
            .rows
            .into_iter()
            .map(|mut row| row.swap_remove(0))
            .collect();
        Ok(Typed::new(Value::Array(items), t))
    }

    fn arguments(&mut self, f: &Function, frame: &Frame<'_>) -> FlowResult<Vec<Typed>> {
        let exprs = argument_exprs(f)?;
        let mut args = Vec::with_capacity(exprs.len());
        for e in exprs {
            args.push(self.eval(e, frame)?);
        }
        Ok(args)
    }

    /// `name(args)` of the functions the model knows.
    pub(crate) fn call(&mut self, name: &str, args: Vec<Typed>) -> FlowResult<Typed> {
        let timestamp = |us: i64| Ok(Typed::new(Value::Timestamptz(us), Type::Timestamptz));
        match (name, args.len()) {
            ("now" | "current_timestamp" | "transaction_timestamp", 0) => timestamp(self.now_us),
            ("statement_timestamp", 0) => timestamp(self.clock_us),
            (name, n) if crate::pg::types::datetime_fn::knows(name, n) => Ok(
                crate::pg::types::datetime_fn::call(name, args, self.now_us)?,
            ),
            ("clock_timestamp", 0) => timestamp(self.clock_timestamp_us()),
            ("to_timestamp", 1) => match cast(one(args), Type::Float8, None)?.v {
                Value::Float(seconds) if seconds.is_finite() => {
                    let unix_us = (seconds * 1e6).round_ties_even() as i64;
                    timestamp(unix_us - crate::pg::types::pg_type::PG_EPOCH_UNIX_US)
                }
                Value::Float(_) => {
                    Err(PgError::new(DATETIME_OVERFLOW, "timestamp out of range").into())
                }
                _ => Ok(Typed::null(Type::Timestamptz)),
            },
            // The unit tests' way to make a statement panic (`server.rs`'s isolation).
            #[cfg(test)]
            ("amnesia_test_panic", 0) => panic!("amnesia_test_panic() was called"),
            ("coalesce", n) if n > 0 => coalesce(args),
            ("nullif", 2) => nullif(args),
            ("greatest" | "least", n) if n > 0 => extreme(name == "greatest", args),
            ("hashtext", 1) => {
                let text = cast(one(args), Type::Text, None)?;
                Ok(match text.v {
                    Value::Text(s) => Typed::new(
                        Value::Int(crate::pg::types::hash::hashtext(&s) as i64),
                        Type::Int4,
                    ),
                    _ => Typed::null(Type::Int4),
                })
            }
            (name, n) if crate::pg::types::text_fn::knows(name, n) => {
                Ok(crate::pg::types::text_fn::call(name, args)?)
            }
            (
                "lower" | "upper" | "length" | "char_length" | "character_length" | "octet_length",
                1,
            ) => text_function(name, one(args)),
            (name, _) if crate::pg::types::tsearch_fn::knows(name) => {
                Ok(crate::pg::types::tsearch_fn::call(name, args)?)
            }
            (name, _) if crate::pg::types::numeric_fn::knows(name, &args) => {
                Ok(crate::pg::types::numeric_fn::call(name, args)?)
            }
            ("abs", 1) => abs(one(args)),
            (name, _) if name.starts_with("pg_advisory") || name.starts_with("pg_try_advisory") => {
                self.advisory(name, args)
            }
            ("current_setting", 1) => {
                let Value::Text(setting) = cast(one(args), Type::Text, None)?.v else {
                    return Ok(Typed::null(Type::Text));
                };
                Ok(Typed::new(
                    Value::Text(self.settings.show(&setting)?),
                    Type::Text,
                ))
            }
            // The connection's process id, as BackendKeyData gave it (the cancel key's pid).
            ("pg_backend_pid", 0) => {
                Ok(Typed::new(Value::Int(i64::from(self.backend)), Type::Int4))
            }
            ("version", 0) => Ok(Typed::new(
                Value::Text(crate::pg::settings::SERVER_VERSION_TEXT.into()),
                Type::Text,
            )),
            ("array_length", 2) => array_length(args),
            ("cardinality", 1) => cardinality(args),
            ("gen_random_uuid" | "uuidv4", 0) => {
                let draw = self.db.uuid_draws;
                self.db.uuid_draws += 1;
                let uuid = crate::pg::types::uuid::random(self.seed, draw);
                Ok(Typed::new(Value::Uuid(uuid), Type::Uuid))
            }
            (name, _) if crate::pg::types::jsonb_build::knows(name) => {
                let zone = self.settings.get("timezone");
                Ok(crate::pg::types::jsonb_build::call(name, args, zone)?)
            }
            (name, _) if crate::pg::types::json_build::knows(name) => {
                let zone = self.settings.get("timezone");
                Ok(crate::pg::types::json_build::call(name, args, zone)?)
            }
            (name, _) if crate::pg::types::vector_fn::knows(name) => {
                Ok(crate::pg::types::vector_fn::call(name, args)?)
            }
            (name, _) if crate::pg::types::bit_fn::knows(name) => {
                Ok(crate::pg::types::bit_fn::call(name, args)?)
            }
            (name, _) if crate::pg::types::builtin_names::is_function(name) => {
                Err(PgError::unsupported(format!("the function {name}")).into())
            }
            (name, n) => Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!(
                    "function {name}({}) does not exist",
                    vec!["unknown"; n].join(", ")
                ),
            )
            .into()),
        }
    }

    /// pg_advisory_lock and its kin: take, try or release a session- or
    /// transaction-level lock; a lock another backend holds makes the statement wait.
    fn advisory(&mut self, name: &str, args: Vec<Typed>) -> FlowResult<Typed> {
        let key = advisory_key(args)?;
        let session = !name.contains("xact");
        let trying = name.starts_with("pg_try");
        if name == "pg_advisory_unlock_all" {
            // The one unlock that returns nothing (`void`): it cannot fail.
            self.db.release_advisory(self.backend, true);
            return Ok(Typed::new(Value::Text(String::new()), Type::Void));
        }
        if name.contains("unlock") {
            return Ok(Typed::new(
                Value::Bool(self.advisory_unlock(key)),
                Type::Bool,
            ));
        }
        let holder = self.db.advisory.get(&key).cloned();
        match holder {
            Some(h) if h.backend != self.backend => match trying {
                true => Ok(Typed::new(Value::Bool(false), Type::Bool)),
                false => Err(Flow::Wait { backend: h.backend }),
            },
            _ => {
                let entry = self.db.advisory.entry(key).or_insert(Holder {
                    backend: self.backend,
                    ..Holder::default()
                });
                match session {
                    true => entry.session += 1,
                    false => entry.xact += 1,
                }
                self.undo.push(Undo::Advisory { key, session });
                let t = if trying { Type::Bool } else { Type::Void };
                Ok(Typed::new(
                    if trying {
                        Value::Bool(true)
                    } else {
                        Value::Text(String::new())
                    },
                    t,
                ))
            }
        }
    }

    /// `clock_timestamp()`: the clock as it reads during the statement, which PostgreSQL's
    /// reads after the statement began and afresh at every call. The server's clock holds
    /// still within a statement (virtual time), so each call is a microsecond after the
    /// later of the statement's start and the server's last such reading: always after
    /// `now()` and `statement_timestamp()`, and increasing, as PostgreSQL's is.
    fn clock_timestamp_us(&mut self) -> i64 {
        let us = (self.clock_us + 1).max(self.db.clock_timestamp_last_us + 1);
        self.db.clock_timestamp_last_us = us;
        us
    }

    fn advisory_unlock(&mut self, key: AdvisoryKey) -> bool {
        let backend = self.backend;
        let Some(holder) = self
            .db
            .advisory
            .get_mut(&key)
            .filter(|h| h.backend == backend && h.session > 0)
        else {
            return false;
        };
        holder.session -= 1;
        if holder.session == 0 && holder.xact == 0 {
            self.db.advisory.remove(&key);
        }
        true
    }
}

fn one(mut args: Vec<Typed>) -> Typed {
    args.pop().expect("one argument")
}

fn advisory_key(args: Vec<Typed>) -> PgResult<AdvisoryKey> {
    let int = |t: Typed, to: Type| -> PgResult<i64> {
        match cast(t, to, None)?.v {
            Value::Int(i) => Ok(i),
            _ => Err(PgError::new(
                NULL_VALUE_NOT_ALLOWED,
                "null value for an advisory lock key",
            )),
        }
    };
    let mut args = args.into_iter();
    match (args.next(), args.next(), args.next()) {
        (None, _, _) => Ok(AdvisoryKey::Big(0)),
        (Some(k), None, None) => Ok(AdvisoryKey::Big(int(k, Type::Int8)?)),
        (Some(a), Some(b), None) => Ok(AdvisoryKey::Pair(
            int(a, Type::Int4)? as i32,
            int(b, Type::Int4)? as i32,
        )),
        _ => Err(PgError::new(
            UNDEFINED_FUNCTION,
            "function pg_advisory_lock with three arguments does not exist",
        )),
    }
}

/// A plain call's argument expressions; other forms (DISTINCT, ORDER BY, FILTER, named
/// arguments) are refused.
fn argument_exprs(f: &Function) -> FlowResult<Vec<&Expr>> {
    let list = match &f.args {
        FunctionArguments::None => return Ok(Vec::new()),
        FunctionArguments::List(list) => list,
        FunctionArguments::Subquery(_) => unreachable!("handled by the caller"),
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() || f.filter.is_some() {
        return Err(PgError::unsupported(format!("this form of {}()", f.name)).into());
    }
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e),
            _ => Err(PgError::unsupported(format!("the argument {arg}")).into()),
        })
        .collect()
}

fn coalesce(args: Vec<Typed>) -> FlowResult<Typed> {
    let t = crate::pg::types::cast::common_of(args.iter().map(|a| a.t));
    for arg in args {
        if !arg.v.is_null() {
            return Ok(cast(arg, t, None)?);
        }
    }
    Ok(Typed::null(t))
}

fn nullif(args: Vec<Typed>) -> FlowResult<Typed> {
    let mut args = args.into_iter();
    let (a, b) = (args.next().expect("two"), args.next().expect("two"));
    let t = if a.t == Type::Unknown { b.t } else { a.t };
    let (a2, b2) = coerce_pair(a.clone(), b)?;
    let equal = !a2.v.is_null()
        && !b2.v.is_null()
        && crate::pg::types::value::compare(&a2.v, &b2.v).is_eq();
    Ok(if equal {
        Typed::null(t)
    } else {
        cast(a, t, None)?
    })
}

fn extreme(greatest: bool, args: Vec<Typed>) -> FlowResult<Typed> {
    let t = crate::pg::types::cast::common_of(args.iter().map(|a| a.t));
    let mut best: Option<Value> = None;
    for arg in args {
        let v = cast(arg, t, None)?.v;
        if v.is_null() {
            continue;
        }
        let better = best.as_ref().is_none_or(|b| {
            let order = crate::pg::types::value::compare(&v, b);
            if greatest {
                order.is_gt()
            } else {
                order.is_lt()
            }
        });
        if better {
            best = Some(v);
        }
    }
    Ok(Typed::new(best.unwrap_or(Value::Null), t))
}

fn text_function(name: &str, arg: Typed) -> FlowResult<Typed> {
    // Only the string types reach text implicitly (`length(42)` has no function).
    let stringish =
        arg.t.is_text() || matches!(arg.t, Type::Unknown | Type::Bytea | Type::Tsvector);
    if !stringish {
        return Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("function {name}({}) does not exist", arg.t.name()),
        )
        .into());
    }
    let t = if arg.t == Type::Bytea {
        Type::Bytea
    } else {
        Type::Text
    };
    let value = cast(arg, t, None)?;
    let result = match (name, value.v) {
        (_, Value::Null) => {
            return Ok(Typed::null(if name.contains("length") {
                Type::Int4
            } else {
                Type::Text
            }))
        }
        // The C locale's case mapping: ASCII letters only (`ß`, `é` stay as they are).
        ("lower", Value::Text(s)) => Typed::new(Value::Text(s.to_ascii_lowercase()), Type::Text),
        ("upper", Value::Text(s)) => Typed::new(Value::Text(s.to_ascii_uppercase()), Type::Text),
        ("length" | "char_length" | "character_length", Value::Text(s)) => {
            Typed::new(Value::Int(s.chars().count() as i64), Type::Int4)
        }
        ("octet_length", Value::Text(s)) => Typed::new(Value::Int(s.len() as i64), Type::Int4),
        ("length" | "octet_length", Value::Bytea(b)) => {
            Typed::new(Value::Int(b.len() as i64), Type::Int4)
        }
        (name, _) => {
            return Err(PgError::new(
                UNDEFINED_FUNCTION,
                format!("function {name}(bytea) does not exist"),
            )
            .into())
        }
    };
    Ok(result)
}

fn abs(arg: Typed) -> FlowResult<Typed> {
    let t = arg.t;
    match arg.v {
        Value::Int(i) => {
            let out_of_range = || {
                PgError::new(
                    NUMERIC_VALUE_OUT_OF_RANGE,
                    format!("{} out of range", t.name()),
                )
            };
            let magnitude = i.checked_abs().ok_or_else(out_of_range)?;
            let fits = crate::pg::types::pg_type::fit_integer(magnitude, t);
            Ok(Typed::new(Value::Int(fits.map_err(|_| out_of_range())?), t))
        }
        Value::Float(f) => Ok(Typed::new(Value::Float(f.abs()), t)),
        Value::Null => Ok(Typed::null(t)),
        _ => Err(PgError::new(
            UNDEFINED_FUNCTION,
            format!("function abs({}) does not exist", t.name()),
        )
        .into()),
    }
}

/// `array_length(a, d)`: the length of dimension `d` of `a`, NULL for an empty array or
/// a dimension it lacks (the model's arrays have the one).
fn array_length(args: Vec<Typed>) -> FlowResult<Typed> {
    let mut args = args.into_iter();
    let (array, dimension) = (
        args.next().expect("an array"),
        args.next().expect("a dimension"),
    );
    let length = match (array.v, dimension.v) {
        (Value::Array(items), Value::Int(1)) if !items.is_empty() => Value::Int(items.len() as i64),
        (Value::Array(_) | Value::Null, _) => Value::Null,
        _ => return Err(non_array("array_length")),
    };
    Ok(Typed::new(length, Type::Int4))
}

/// `cardinality(a)`: how many elements `a` has (0 for an empty array).
fn cardinality(args: Vec<Typed>) -> FlowResult<Typed> {
    let array = args.into_iter().next().expect("an argument");
    let count = match array.v {
        Value::Array(items) => Value::Int(items.len() as i64),
        Value::Null => Value::Null,
        _ => return Err(non_array("cardinality")),
    };
    Ok(Typed::new(count, Type::Int4))
}

fn non_array(name: &str) -> Flow {
    PgError::new(
        UNDEFINED_FUNCTION,
        format!("function {name}(non-array) does not exist"),
    )
    .into()
}

/// `ROW(…)` and `(VALUES (…))` reach the model as calls of functions named `row` and
/// `values` (sqlparser's reading; both are keywords, so no function has either name): a
/// composite value the model has no type for, and a scalar VALUES subquery, refused
/// rather than reported missing.
pub(crate) fn refuse_row_constructor(name: &str) -> PgResult<()> {
    match name {
        "row" => Err(PgError::unsupported("row constructors (ROW(…))")),
        "values" => Err(PgError::unsupported("a VALUES list as a scalar subquery")),
        _ => Ok(()),
    }
}
