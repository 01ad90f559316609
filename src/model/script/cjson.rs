//! The `cjson` library scripts see: `cjson.encode` and `cjson.decode` with lua-cjson
//! 2.1.0's rules as Redis embeds it, over `serde_json` for the parsing.
//!
//! Encoding follows lua-cjson byte for byte in the common cases: numbers as `%.14g`
//! (NaN and infinities refused), `/` escaped as `\/`, control bytes as `\u00XX`, bytes
//! from 0x80 passed through; a table is an array when every key is a positive integer
//! and it is not excessively sparse (more than 10 and more than twice its element count),
//! an object otherwise, and the empty table is `{}`; object members in `next` order.
//! Decoding builds tables in document order (`null` becomes `cjson.null`, the NULL light
//! userdata). What differs: decode error messages are `serde_json`'s, nesting deeper
//! than `serde_json`'s 128 levels is refused (lua-cjson allows 1000), lua-cjson's
//! non-standard number forms (`inf`, `nan`, hex) are refused, and the configuration
//! functions (`encode_sparse_array`, `encode_keep_buffer`, ...) are absent.

use crate::model::data::number::format_g;
use mlua::{LightUserData, Lua, Table, Value};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// lua-cjson's default `encode_max_depth`.
const ENCODE_DEPTH_MAX: usize = 1000;
/// lua-cjson's default sparse-array rule: `encode_sparse_ratio` and `encode_sparse_safe`.
const SPARSE_RATIO: usize = 2;
const SPARSE_SAFE: usize = 10;

/// `cjson.null`.
pub(crate) fn null() -> Value {
    Value::LightUserData(LightUserData(std::ptr::null_mut()))
}

/// `cjson.encode(value)`: the JSON text, or lua-cjson's message.
pub(crate) fn encode(value: &Value) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    append(&mut out, value, 1)?;
    Ok(out)
}

fn unsupported(value: &Value) -> String {
    format!("Cannot serialise {}: type not supported", value.type_name())
}

fn append(out: &mut Vec<u8>, value: &Value, depth: usize) -> Result<(), String> {
    match value {
        Value::Nil => out.extend_from_slice(b"null"),
        Value::Boolean(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Integer(i) => append_number(out, *i as f64)?,
        Value::Number(n) => append_number(out, *n)?,
        Value::String(s) => append_string(out, &s.as_bytes()),
        Value::LightUserData(ud) if ud.0.is_null() => out.extend_from_slice(b"null"),
        Value::Table(table) => append_table(out, table, depth)?,
        other => return Err(unsupported(other)),
    }
    Ok(())
}

fn append_number(out: &mut Vec<u8>, number: f64) -> Result<(), String> {
    if !number.is_finite() {
        return Err("Cannot serialise number: must not be NaN or Inf".into());
    }
    out.extend_from_slice(format_g(number, 14).as_bytes());
    Ok(())
}

fn append_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    for &byte in bytes {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'/' => out.extend_from_slice(b"\\/"),
            b'\x08' => out.extend_from_slice(b"\\b"),
            b'\x0c' => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f | 0x7f => out.extend_from_slice(format!("\\u{byte:04x}").as_bytes()),
            _ => out.push(byte),
        }
    }
    out.push(b'"');
}

/// lua-cjson's `lua_array_length`: `Some(max key)` for an array, `None` for an object.
fn array_length(table: &Table) -> Result<Option<usize>, String> {
    let (mut max, mut items) = (0usize, 0usize);
    for pair in table.pairs::<Value, Value>() {
        let (key, _) = pair.map_err(|e| e.to_string())?;
        let number = match key {
            Value::Integer(i) => i as f64,
            Value::Number(n) => n,
            _ => return Ok(None),
        };
        if number < 1.0 || number.floor() != number {
            return Ok(None);
        }
        max = max.max(number as usize);
        items += 1;
    }
    if max > items * SPARSE_RATIO && max > SPARSE_SAFE {
        return Err("Cannot serialise table: excessively sparse array".into());
    }
    Ok(Some(max))
}

fn append_table(out: &mut Vec<u8>, table: &Table, depth: usize) -> Result<(), String> {
    if depth > ENCODE_DEPTH_MAX {
        return Err(format!("Cannot serialise, excessive nesting ({depth})"));
    }
    match array_length(table)? {
        Some(len) if len > 0 => {
            out.push(b'[');
            for index in 1..=len {
                if index > 1 {
                    out.push(b',');
                }
                let item: Value = table.raw_get(index).map_err(|e| e.to_string())?;
                append(out, &item, depth + 1)?;
            }
            out.push(b']');
        }
        _ => {
            out.push(b'{');
            let mut first = true;
            for pair in table.pairs::<Value, Value>() {
                let (key, item) = pair.map_err(|e| e.to_string())?;
                if !first {
                    out.push(b',');
                }
                first = false;
                match &key {
                    Value::String(s) => append_string(out, &s.as_bytes()),
                    Value::Integer(_) | Value::Number(_) => {
                        out.push(b'"');
                        let number = match key {
                            Value::Integer(i) => i as f64,
                            Value::Number(n) => n,
                            _ => unreachable!(),
                        };
                        append_number(out, number)?;
                        out.push(b'"');
                    }
                    other => {
                        return Err(format!(
                            "Cannot serialise {}: table key must be a number or string",
                            other.type_name()
                        ))
                    }
                }
                out.push(b':');
                append(out, &item, depth + 1)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

/// `cjson.decode(text)`: the Lua value, or the parse error.
pub(crate) fn decode(lua: &Lua, text: &[u8]) -> Result<Value, String> {
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    let value = LuaSeed(lua)
        .deserialize(&mut deserializer)
        .map_err(|e| e.to_string())?;
    deserializer.end().map_err(|e| e.to_string())?;
    Ok(value)
}

/// Builds Lua values straight from the JSON tokens, so objects fill their tables in
/// document order, as lua-cjson does.
#[derive(Clone, Copy)]
struct LuaSeed<'a>(&'a Lua);

impl<'de> DeserializeSeed<'de> for LuaSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

fn lua_error<E: de::Error>(error: mlua::Error) -> E {
    E::custom(error.to_string())
}

impl<'de> Visitor<'de> for LuaSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(null())
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Boolean(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v as f64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Number(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.0
            .create_string(v)
            .map(Value::String)
            .map_err(lua_error)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let table = self.0.create_table().map_err(lua_error)?;
        let mut index = 1;
        while let Some(item) = seq.next_element_seed(self)? {
            table.raw_set(index, item).map_err(lua_error)?;
            index += 1;
        }
        Ok(Value::Table(table))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let table = self.0.create_table().map_err(lua_error)?;
        while let Some(key) = map.next_key::<String>()? {
            let item = map.next_value_seed(self)?;
            table.raw_set(key, item).map_err(lua_error)?;
        }
        Ok(Value::Table(table))
    }
}
