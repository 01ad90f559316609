//! The extended protocol's values: a parameter written `type:value` in a case file
//! (`int8:5`, `text:abc`, `bytea:\x0102`, `bool:true`, `int4:null`, `uuid:a0ee…`,
//! `jsonb:{"a":1}` (no spaces: words split there), `timestamp:-1` (microseconds since
//! 2000-01-01, as timestamptz), `date:-1` (days since 2000-01-01), `json:[1,2]` (its text), `uuid[]:a0ee…,b1ff…`; `text[]`, `jsonb[]`
//! and `vector[]` elements split by `|`, `\N` a NULL element, a vector's floats by `,`),
//! encoded in binary as tokio-postgres and sqlx send it (`vector[]` is declared with type
//! OID 0 and element OID 0, so the statement's cast must type it: pgvector's OIDs differ
//! per database, and `array_recv` takes any element OID for an extension's type), and a binary result column rendered as text by its type OID
//! (both targets' columns go through the same rendering, so it need only be exact, not
//! PostgreSQL's own text output).

/// One bound parameter: its type OID and its value (`None` for NULL).
#[derive(Clone, Debug)]
pub struct Param {
    pub oid: u32,
    pub value: Option<String>,
}

/// `vector[]`: declared unspecified (0), as its OID differs per database.
const VECTOR_ARRAY: u32 = 0;

const TYPES: [(&str, u32); 19] = [
    ("bool", 16),
    ("oid", 26),
    ("bytea", 17),
    ("int8", 20),
    ("int2", 21),
    ("int4", 23),
    ("text", 25),
    ("float8", 701),
    ("varchar", 1043),
    ("timestamptz", 1184),
    ("timestamp", 1114),
    ("date", 1082),
    ("uuid", 2950),
    ("jsonb", 3802),
    ("json", 114),
    ("uuid[]", 2951),
    ("text[]", 1009),
    ("jsonb[]", 3807),
    ("vector[]", VECTOR_ARRAY),
];

impl Param {
    /// `type:value`, the value `null` for NULL.
    pub fn parse(word: &str) -> Result<Param, String> {
        let (name, value) = word
            .split_once(':')
            .ok_or_else(|| format!("parameter {word:?} is not type:value"))?;
        let oid = TYPES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, oid)| *oid)
            .ok_or_else(|| format!("parameter type {name:?} is not one of {TYPES:?}"))?;
        let value = (value != "null").then(|| value.to_string());
        let param = Param { oid, value };
        try_encode(&param)?;
        Ok(param)
    }
}

/// The binary encoding of a parameter; `None` for NULL. Checked when a case is read.
pub fn encode_param(param: &Param) -> Option<Vec<u8>> {
    try_encode(param).expect("a parameter checked by Param::parse")
}

fn try_encode(param: &Param) -> Result<Option<Vec<u8>>, String> {
    let Some(value) = param.value.as_deref() else {
        return Ok(None);
    };
    let bad = |e: &dyn std::fmt::Display| format!("{value:?} (type OID {}): {e}", param.oid);
    let bytes = match param.oid {
        16 => vec![u8::from(value.parse::<bool>().map_err(|e| bad(&e))?)],
        17 => hex_bytes(value).ok_or_else(|| bad(&"not \\x and hex digits"))?,
        21 => value
            .parse::<i16>()
            .map_err(|e| bad(&e))?
            .to_be_bytes()
            .to_vec(),
        26 => value
            .parse::<u32>()
            .map_err(|e| bad(&e))?
            .to_be_bytes()
            .to_vec(),
        // int4, and date as days since 2000-01-01.
        23 | 1082 => value
            .parse::<i32>()
            .map_err(|e| bad(&e))?
            .to_be_bytes()
            .to_vec(),
        701 => value
            .parse::<f64>()
            .map_err(|e| bad(&e))?
            .to_be_bytes()
            .to_vec(),
        // int8, and timestamptz and timestamp as microseconds since 2000-01-01 00:00:00
        // (their binary form).
        20 | 1184 | 1114 => value
            .parse::<i64>()
            .map_err(|e| bad(&e))?
            .to_be_bytes()
            .to_vec(),
        2950 => uuid_bytes(value).ok_or_else(|| bad(&"not 32 hex digits"))?,
        // jsonb_send's form: the version byte 1, then the text.
        3802 => [&[1u8][..], value.as_bytes()].concat(),
        2951 => uuid_array(value).ok_or_else(|| bad(&"not uuids split by commas"))?,
        1009 => array(25, value, |item| Some(item.as_bytes().to_vec())).expect("text"),
        3807 => array(3802, value, |item| {
            Some([&[1u8][..], item.as_bytes()].concat())
        })
        .expect("text"),
        VECTOR_ARRAY => array(0, value, vector_bytes).ok_or_else(|| bad(&"not floats"))?,
        _ => value.as_bytes().to_vec(),
    };
    Ok(Some(bytes))
}

/// A uuid's 16 bytes from its hex digits (hyphens skipped).
fn uuid_bytes(text: &str) -> Option<Vec<u8>> {
    let digits: String = text.chars().filter(|c| *c != '-').collect();
    let bytes = hex_bytes(&format!("\\x{digits}"))?;
    (bytes.len() == 16).then_some(bytes)
}

/// A one-dimensional uuid[] in the array binary form: dimensions, has-null flag,
/// element OID, length and lower bound, then each element's length and bytes.
fn uuid_array(text: &str) -> Option<Vec<u8>> {
    let items: Vec<Vec<u8>> = text.split(',').map(uuid_bytes).collect::<Option<_>>()?;
    let mut out = Vec::new();
    for word in [1i32, 0, 2950, items.len() as i32, 1] {
        out.extend(word.to_be_bytes());
    }
    for item in items {
        out.extend(16i32.to_be_bytes());
        out.extend(item);
    }
    Some(out)
}

/// A one-dimensional array of `|`-separated elements (`\N` for NULL) in the binary form,
/// each element's bytes from `element`; `None` when one has none.
fn array(
    element_oid: u32,
    text: &str,
    element: impl Fn(&str) -> Option<Vec<u8>>,
) -> Option<Vec<u8>> {
    let items: Vec<Option<Vec<u8>>> = text
        .split('|')
        .map(|item| match item {
            "\\N" => Some(None),
            item => element(item).map(Some),
        })
        .collect::<Option<_>>()?;
    let has_null = items.iter().any(Option::is_none);
    let mut out = Vec::new();
    for word in [1i32, i32::from(has_null)] {
        out.extend(word.to_be_bytes());
    }
    out.extend(element_oid.to_be_bytes());
    out.extend((items.len() as i32).to_be_bytes());
    out.extend(1i32.to_be_bytes());
    for item in items {
        match item {
            None => out.extend((-1i32).to_be_bytes()),
            Some(bytes) => {
                out.extend((bytes.len() as i32).to_be_bytes());
                out.extend(bytes);
            }
        }
    }
    Some(out)
}

/// pgvector's binary `vector` from `1,0,0`: dimensions, an unused 0, then each float4.
fn vector_bytes(text: &str) -> Option<Vec<u8>> {
    let floats: Vec<f32> = text
        .split(',')
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let mut out = (floats.len() as u16).to_be_bytes().to_vec();
    out.extend(0u16.to_be_bytes());
    floats.iter().for_each(|f| out.extend(f.to_be_bytes()));
    Some(out)
}

/// `\x0102` as bytes.
fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    let digits = text.strip_prefix("\\x")?;
    (0..digits.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(digits.get(at..at + 2)?, 16).ok())
        .collect()
}

/// A binary result value as text, by its column's type OID.
pub fn decode_binary(oid: u32, bytes: &[u8]) -> String {
    let fixed = |n: usize| bytes.len() == n;
    match oid {
        16 if fixed(1) => if bytes[0] != 0 { "t" } else { "f" }.to_string(),
        20 | 1184 | 1114 if fixed(8) => i64::from_be_bytes(bytes.try_into().unwrap()).to_string(),
        21 if fixed(2) => i16::from_be_bytes(bytes.try_into().unwrap()).to_string(),
        23 | 26 | 2206 | 1082 if fixed(4) => {
            i32::from_be_bytes(bytes.try_into().unwrap()).to_string()
        }
        701 if fixed(8) => f64::from_be_bytes(bytes.try_into().unwrap()).to_string(),
        18 | 19 | 25 | 1043 | 705 => String::from_utf8_lossy(bytes).into_owned(),
        // jsonb: the version byte shown, then the text.
        3802 if !bytes.is_empty() => {
            format!("v{} {}", bytes[0], String::from_utf8_lossy(&bytes[1..]))
        }
        _ => {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            format!("\\x{hex}")
        }
    }
}
