//! The `bit` library scripts see (LuaBitOp, as Redis embeds it): 32-bit operations on Lua
//! numbers, results as signed 32-bit integers.
//!
//! Each function is a raw Rust function answering `(true, result)` or `(false, message)`;
//! the Lua prelude (`engine`) raises the message at the caller's line, as `luaL_error` does.

use mlua::{Lua, MultiValue, Result, Table, Value};

/// LuaBitOp's `tobit` conversion: the low 32 bits of the double after adding 2^52 + 2^51
/// (round to nearest, then modulo 2^32).
fn to_bits(value: f64) -> u32 {
    (value + 6_755_399_441_055_744.0).to_bits() as u32
}

/// The number argument at `index` (1-based) of `name`, or the `luaL_checknumber` message.
fn number_arg(args: &[Value], index: usize, name: &str) -> std::result::Result<u32, String> {
    let value = match args.get(index - 1) {
        Some(Value::Integer(i)) => *i as f64,
        Some(Value::Number(n)) => *n,
        Some(Value::String(s)) => match s.to_str().ok().and_then(|s| s.trim().parse().ok()) {
            Some(n) => n,
            None => return Err(bad_argument(index, name, "string")),
        },
        Some(other) => return Err(bad_argument(index, name, other.type_name())),
        None => return Err(bad_argument(index, name, "no value")),
    };
    Ok(to_bits(value))
}

fn bad_argument(index: usize, name: &str, got: &str) -> String {
    format!("bad argument #{index} to '{name}' (number expected, got {got})")
}

type Op = fn(&[Value], &str) -> std::result::Result<f64, String>;

fn signed(bits: u32) -> f64 {
    f64::from(bits as i32)
}

fn fold(args: &[Value], name: &str, op: fn(u32, u32) -> u32) -> std::result::Result<f64, String> {
    let mut acc = number_arg(args, 1, name)?;
    for index in 2..=args.len() {
        acc = op(acc, number_arg(args, index, name)?);
    }
    Ok(signed(acc))
}

fn shift(args: &[Value], name: &str, op: fn(u32, u32) -> u32) -> std::result::Result<f64, String> {
    let value = number_arg(args, 1, name)?;
    let by = number_arg(args, 2, name)? & 31;
    Ok(signed(op(value, by)))
}

fn hex(args: &[Value]) -> std::result::Result<String, String> {
    let value = number_arg(args, 1, "tohex")?;
    let digits = if args.len() >= 2 {
        number_arg(args, 2, "tohex")? as i32
    } else {
        8
    };
    let upper = digits < 0;
    let count = digits.unsigned_abs().min(8) as usize;
    let masked = if count == 8 {
        value
    } else {
        value & ((1u32 << (4 * count)) - 1)
    };
    let text = if upper {
        format!("{masked:0count$X}")
    } else {
        format!("{masked:0count$x}")
    };
    Ok(text)
}

const OPS: &[(&str, Op)] = &[
    ("tobit", |a, n| Ok(signed(number_arg(a, 1, n)?))),
    ("bnot", |a, n| Ok(signed(!number_arg(a, 1, n)?))),
    ("band", |a, n| fold(a, n, |x, y| x & y)),
    ("bor", |a, n| fold(a, n, |x, y| x | y)),
    ("bxor", |a, n| fold(a, n, |x, y| x ^ y)),
    ("lshift", |a, n| shift(a, n, |x, b| x << b)),
    ("rshift", |a, n| shift(a, n, |x, b| x >> b)),
    ("arshift", |a, n| {
        shift(a, n, |x, b| ((x as i32) >> b) as u32)
    }),
    ("rol", |a, n| shift(a, n, |x, b| x.rotate_left(b))),
    ("ror", |a, n| shift(a, n, |x, b| x.rotate_right(b))),
    ("bswap", |a, n| {
        Ok(signed(number_arg(a, 1, n)?.swap_bytes()))
    }),
];

/// The raw `bit` functions, by name, for the prelude to wrap.
pub(crate) fn register(lua: &Lua) -> Result<Table> {
    let table = lua.create_table()?;
    for &(name, op) in OPS {
        let function = lua.create_function(move |lua, args: MultiValue| {
            let args: Vec<Value> = args.into_iter().collect();
            Ok(match op(&args, name) {
                Ok(number) => (true, Value::Number(number)),
                Err(message) => (false, Value::String(lua.create_string(message)?)),
            })
        })?;
        table.raw_set(name, function)?;
    }
    let tohex = lua.create_function(|lua, args: MultiValue| {
        let args: Vec<Value> = args.into_iter().collect();
        let (ok, text) = match hex(&args) {
            Ok(text) => (true, text),
            Err(message) => (false, message),
        };
        Ok((ok, lua.create_string(text)?))
    })?;
    table.raw_set("tohex", tohex)?;
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tobit_wraps_and_rounds() {
        assert_eq!(to_bits(-1.0) as i32, -1);
        assert_eq!(to_bits(4_294_967_296.0 + 5.0), 5);
        assert_eq!(to_bits(2.5), 2);
        assert_eq!(to_bits(3.5), 4);
    }
}
