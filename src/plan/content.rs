//! Adversarial message content. Stores break on bytes their authors did not picture:
//! multi-byte UTF-8, separators, protocol-looking text, escapes, NULs, size. Every draw
//! is a valid Rust `String` and must round-trip through the store byte for byte.

use std::fmt::Write;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::scenario::CONTENT_BYTES_MAX;

/// Size range of `Large` contents, in bytes.
pub const LARGE_BYTES_MIN: usize = 8 * 1024;
/// Upper end of that range.
pub const LARGE_BYTES_MAX: usize = 40 * 1024;
const _: () = assert!(LARGE_BYTES_MIN <= LARGE_BYTES_MAX && LARGE_BYTES_MAX <= CONTENT_BYTES_MAX);

/// Bytes a non-large content stays under (its fragments are bounded).
const SMALL_BYTES_MAX: usize = 4 * 1024;

/// The kinds of content the generator draws, each aimed at a different way to lose bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContentClass {
    /// Plain sentences: the happy path.
    Ascii,
    /// Chinese, Japanese and Korean text: multi-byte, no spaces.
    Cjk,
    /// Emoji, skin tones, flags, ZWJ sequences: four-byte chars and grapheme clusters.
    Emoji,
    /// Letters with stacked combining marks: one grapheme, many code points.
    Combining,
    /// LF, CRLF and lone CR line breaks, blank lines, trailing breaks.
    Newlines,
    /// Text that looks like RESP frames (`\r\n$5\r\nhello\r\n*3\r\n`).
    Resp,
    /// Nested JSON with escapes (`{"a":"\"\\u00e9"}`): double-encoding bugs.
    Json,
    /// The empty string.
    Empty,
    /// Whitespace only, ASCII and Unicode (trimming bugs).
    Whitespace,
    /// Embedded NUL bytes (C-string truncation).
    Nul,
    /// Several of the small classes concatenated.
    Mixed,
    /// 8 to 40 KB of mixed text (buffer and bulk-length bugs).
    Large,
}

impl ContentClass {
    /// Every class, in a fixed order.
    pub const ALL: [ContentClass; 12] = [
        ContentClass::Ascii,
        ContentClass::Cjk,
        ContentClass::Emoji,
        ContentClass::Combining,
        ContentClass::Newlines,
        ContentClass::Resp,
        ContentClass::Json,
        ContentClass::Empty,
        ContentClass::Whitespace,
        ContentClass::Nul,
        ContentClass::Mixed,
        ContentClass::Large,
    ];

    /// Relative draw weight: mostly ordinary chat, every class regularly, large rarely.
    fn weight(self) -> u32 {
        match self {
            ContentClass::Ascii => 30,
            ContentClass::Cjk => 8,
            ContentClass::Emoji => 8,
            ContentClass::Combining => 6,
            ContentClass::Newlines => 8,
            ContentClass::Resp => 8,
            ContentClass::Json => 8,
            ContentClass::Empty => 4,
            ContentClass::Whitespace => 4,
            ContentClass::Nul => 4,
            ContentClass::Mixed => 10,
            ContentClass::Large => 2,
        }
    }

    /// The classes `Mixed` and `Large` are built from.
    const FRAGMENTS: [ContentClass; 9] = [
        ContentClass::Ascii,
        ContentClass::Cjk,
        ContentClass::Emoji,
        ContentClass::Combining,
        ContentClass::Newlines,
        ContentClass::Resp,
        ContentClass::Json,
        ContentClass::Whitespace,
        ContentClass::Nul,
    ];
}

/// Draws a class by weight, then a content of that class (the tests' form of
/// [`draw_with`]).
#[cfg(test)]
pub fn draw<R: Rng + ?Sized>(rng: &mut R) -> (ContentClass, String) {
    let class = draw_class(rng);
    let content = generate(rng, class);
    (class, content)
}

/// `draw`, built in `scratch` and copied out at its exact size: a content grows in
/// many small steps, and reallocating one buffer once per plan beats reallocating
/// every message.
pub(crate) fn draw_with<R: Rng + ?Sized>(
    rng: &mut R,
    scratch: &mut String,
) -> (ContentClass, String) {
    let class = draw_class(rng);
    scratch.clear();
    generate_into(rng, class, scratch);
    (class, scratch.as_str().to_owned())
}

fn draw_class<R: Rng + ?Sized>(rng: &mut R) -> ContentClass {
    let total: u32 = ContentClass::ALL.iter().map(|c| c.weight()).sum();
    let mut pick = rng.random_range(0..total);
    for candidate in ContentClass::ALL {
        if pick < candidate.weight() {
            return candidate;
        }
        pick -= candidate.weight();
    }
    ContentClass::Ascii
}

/// A content of the given class.
#[cfg(test)]
pub fn generate<R: Rng + ?Sized>(rng: &mut R, class: ContentClass) -> String {
    let mut out = String::new();
    generate_into(rng, class, &mut out);
    out
}

/// Appends a content of the given class to `out`. Writing into the caller's buffer
/// spares `Mixed` and `Large` a `String` per fragment; the draws are those of `generate`.
fn generate_into<R: Rng + ?Sized>(rng: &mut R, class: ContentClass, out: &mut String) {
    let start = out.len();
    match class {
        ContentClass::Ascii => ascii(rng, out),
        ContentClass::Cjk => cjk(rng, out),
        ContentClass::Emoji => emoji(rng, out),
        ContentClass::Combining => combining(rng, out),
        ContentClass::Newlines => newlines(rng, out),
        ContentClass::Resp => resp(rng, out),
        ContentClass::Json => json(rng, out),
        ContentClass::Empty => {}
        ContentClass::Whitespace => whitespace(rng, out),
        ContentClass::Nul => nul(rng, out),
        ContentClass::Mixed => mixed(rng, out),
        ContentClass::Large => large(rng, out),
    }
    let len = out.len() - start;
    if class == ContentClass::Large {
        assert!((LARGE_BYTES_MIN..=LARGE_BYTES_MAX).contains(&len));
    } else {
        assert!(len <= SMALL_BYTES_MAX);
    }
    assert!(len <= CONTENT_BYTES_MAX);
}

fn pick<'a, R: Rng + ?Sized>(rng: &mut R, items: &[&'a str]) -> &'a str {
    items[rng.random_range(0..items.len())]
}

const WORDS: &[&str] = &[
    "the", "memory", "store", "keeps", "what", "you", "said", "about", "redis", "session",
    "please", "remember", "my", "order", "number", "is", "and", "ship", "it", "to", "Berlin",
    "tomorrow", "why", "did", "forget", "context", "again", "summary", "of", "our", "chat",
];

fn ascii<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    let sentences = rng.random_range(1..=3);
    for i in 0..sentences {
        if i > 0 {
            out.push(' ');
        }
        let words = rng.random_range(3..=15);
        for w in 0..words {
            let word = pick(rng, WORDS);
            if w == 0 {
                // The words are ASCII: the ASCII upper case is the Unicode one.
                debug_assert!(word.is_ascii() && !word.is_empty());
                out.push(char::from(word.as_bytes()[0].to_ascii_uppercase()));
                out.push_str(&word[1..]);
            } else {
                out.push(' ');
                out.push_str(word);
            }
        }
        out.push_str(pick(rng, &[".", "?", "!", "...", ","]));
    }
}

fn cjk<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    // CJK ideographs, hiragana, katakana, hangul syllables, full-width punctuation.
    const RANGES: [(u32, u32); 4] = [
        (0x4E00, 0x9FFF),
        (0x3041, 0x3096),
        (0x30A1, 0x30FA),
        (0xAC00, 0xD7A3),
    ];
    let chars = rng.random_range(1..=60);
    // Every char drawn here is three bytes in UTF-8.
    out.reserve(3 * chars);
    for _ in 0..chars {
        if rng.random_range(0..10) == 0 {
            out.push_str(pick(rng, &["。", "、", "！", "？", "「", "」", "　"]));
            continue;
        }
        let (lo, hi) = RANGES[rng.random_range(0..RANGES.len())];
        let c = char::from_u32(rng.random_range(lo..=hi)).expect("the ranges hold no surrogates");
        out.push(c);
    }
}

fn emoji<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    const EMOJI: &[&str] = &[
        "😀",
        "🙂",
        "🤖",
        "🧠",
        "💾",
        "🔥",
        "✅",
        "❤️",
        "👍🏽",
        "👋🏿",
        "👩\u{200D}💻",
        "👨\u{200D}👩\u{200D}👧\u{200D}👦",
        "🏳️\u{200D}🌈",
        "🧑🏼\u{200D}🚀",
        "🇯🇵",
        "🇩🇪",
        "1️⃣",
        "#️⃣",
        "\u{1F9D1}\u{200D}\u{1F91D}\u{200D}\u{1F9D1}",
    ];
    let n = rng.random_range(1..=12);
    for _ in 0..n {
        out.push_str(pick(rng, EMOJI));
        if rng.random_range(0..3) == 0 {
            out.push_str(pick(rng, &[" ", "ok", " done ", "\u{200D}", "\u{FE0F}"]));
        }
    }
}

fn combining<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    let bases = rng.random_range(1..=20);
    for i in 0..bases {
        out.push(char::from(b'a' + rng.random_range(0..26u8)));
        // The first letter always carries a mark.
        let marks_min = u32::from(i == 0);
        for _ in 0..rng.random_range(marks_min..=5) {
            // Combining diacritical marks block.
            let mark = rng.random_range(0x0300..=0x036F);
            out.push(char::from_u32(mark).expect("combining marks are chars"));
        }
    }
    // A decomposed and a precomposed é side by side: normalisation bugs.
    if rng.random_range(0..2) == 0 {
        out.push_str(" e\u{0301} \u{00E9}");
    }
}

fn newlines<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    let start = out.len();
    let lines = rng.random_range(1..=8);
    for _ in 0..lines {
        if rng.random_range(0..3) != 0 {
            out.push_str(pick(rng, WORDS));
            out.push(' ');
            out.push_str(pick(rng, WORDS));
        }
        out.push_str(pick(rng, &["\n", "\r\n", "\r", "\n\n", "\r\n\r\n"]));
    }
    if rng.random_range(0..2) == 0 {
        out.insert_str(start, pick(rng, &["\n", "\r\n"]));
    }
}

fn resp<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    const FRAMES: &[&str] = &[
        "\r\n$5\r\nhello\r\n*3\r\n",
        "+OK\r\n",
        "-ERR unknown command\r\n",
        ":42\r\n",
        "$-1\r\n",
        "*-1\r\n",
        "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n",
        "*3\r\n$3\r\nDEL\r\n$1\r\n*\r\n",
        "_\r\n",
        "%1\r\n+a\r\n:1\r\n",
        ">2\r\n+pubsub\r\n",
        "PING\r\n",
        "$100000000\r\n",
        "$0\r\n\r\n",
        "QUIT\r\n",
    ];
    let n = rng.random_range(1..=6);
    for _ in 0..n {
        out.push_str(pick(rng, FRAMES));
    }
}

fn json<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    if rng.random_range(0..4) == 0 {
        out.push_str(pick(
            rng,
            &[
                r#"{"a":"\"\\u00e9"}"#,
                r#"{"role":"user","content":"{\"nested\":\"\\\"x\\\"\"}"}"#,
                r#"["\u0000","\ud83d\ude00","\/","\b\f\n\r\t"]"#,
                r#"{"id":"m1","seq":1}"#,
                r#"null"#,
            ],
        ));
        return;
    }
    json_value(rng, 0, out);
}

fn json_value<R: Rng + ?Sized>(rng: &mut R, depth: u32, out: &mut String) {
    const DEPTH_MAX: u32 = 4;
    let kind = if depth >= DEPTH_MAX {
        rng.random_range(0..3)
    } else {
        rng.random_range(0..5)
    };
    match kind {
        0 => json_string(rng, out),
        1 => out.push_str(pick(
            rng,
            &[
                "0",
                "-1.5e3",
                "true",
                "false",
                "null",
                "-0",
                "123456789012345678901234567890",
            ],
        )),
        2 => {
            out.push('"');
            out.push_str(pick(
                rng,
                &["\\u00e9", "\\\"", "\\\\", "\\n", "\\ud83d\\ude00"],
            ));
            out.push('"');
        }
        3 => {
            out.push('[');
            for i in 0..rng.random_range(0..=3) {
                if i > 0 {
                    out.push(',');
                }
                json_value(rng, depth + 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.random_range(0..=3) {
                if i > 0 {
                    out.push(',');
                }
                json_string(rng, out);
                out.push(':');
                json_value(rng, depth + 1, out);
            }
            out.push('}');
        }
    }
}

/// A JSON string literal whose value holds quotes, backslashes, controls and non-ASCII.
fn json_string<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    let raw = pick(
        rng,
        &[
            "a",
            "\"quoted\"",
            "back\\slash",
            "é",
            "line\nbreak",
            "tab\t",
            "\u{1F600}",
            "\u{0}",
            "</script>",
        ],
    );
    out.push('"');
    for c in raw.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                write!(out, "\\u{:04x}", c as u32).expect("writing to a String cannot fail")
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn whitespace<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    const SPACES: &[&str] = &[
        " ", "  ", "\t", "\n", "\r\n", "\u{00A0}", "\u{2003}", "\u{3000}", "\u{200B}", "\u{FEFF}",
        "\u{2028}",
    ];
    let n = rng.random_range(1..=20);
    for _ in 0..n {
        out.push_str(pick(rng, SPACES));
    }
}

fn nul<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    match rng.random_range(0..4) {
        0 => out.push('\0'),
        1 => out.push_str("\0\0\0"),
        2 => {
            out.push_str(pick(rng, WORDS));
            out.push('\0');
            out.push_str(pick(rng, WORDS));
        }
        _ => {
            ascii(rng, out);
            out.push('\0');
        }
    }
}

fn fragment<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    let class = ContentClass::FRAGMENTS[rng.random_range(0..ContentClass::FRAGMENTS.len())];
    generate_into(rng, class, out);
}

fn mixed<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    let start = out.len();
    let n = rng.random_range(2..=4);
    for _ in 0..n {
        // A fragment that does not fit is drawn in full, then dropped.
        let before = out.len();
        fragment(rng, out);
        if out.len() - start > SMALL_BYTES_MAX {
            out.truncate(before);
            break;
        }
    }
}

fn large<R: Rng + ?Sized>(rng: &mut R, out: &mut String) {
    let target = rng.random_range(LARGE_BYTES_MIN..=LARGE_BYTES_MAX);
    let start = out.len();
    out.reserve(target);
    // One buffer for every fragment: a fragment that does not fit is drawn in full,
    // then dropped, and `out` never grows past the target.
    let mut piece = String::new();
    loop {
        piece.clear();
        fragment(rng, &mut piece);
        if out.len() - start + piece.len() > target {
            break;
        }
        out.push_str(&piece);
    }
    // Pad with ASCII to the exact size: one byte per char keeps it valid UTF-8.
    let pad = target - (out.len() - start);
    out.extend(std::iter::repeat_n('x', pad));
    assert_eq!(out.len() - start, target);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::prng::{stream, Stream};
    use std::collections::BTreeMap;

    fn has(s: &str, f: impl Fn(char) -> bool) -> bool {
        s.chars().any(f)
    }

    #[test]
    fn every_class_in_1000_draws_with_its_traits() {
        let mut rng = stream(42, Stream::Content);
        let mut seen: BTreeMap<ContentClass, usize> = BTreeMap::new();
        for _ in 0..1_000 {
            let (class, content) = draw(&mut rng);
            *seen.entry(class).or_default() += 1;
            // A `String` is valid UTF-8 by construction; check the bytes anyway.
            assert!(std::str::from_utf8(content.as_bytes()).is_ok());
            assert!(content.len() <= CONTENT_BYTES_MAX);
            match class {
                ContentClass::Ascii => assert!(content.is_ascii() && !content.is_empty()),
                ContentClass::Cjk => assert!(has(&content, |c| c as u32 >= 0x3000)),
                ContentClass::Emoji => assert!(has(&content, |c| c as u32 >= 0x2600)),
                ContentClass::Combining => {
                    assert!(has(&content, |c| (0x0300..=0x036F).contains(&(c as u32))))
                }
                ContentClass::Newlines => assert!(content.contains('\n') || content.contains('\r')),
                ContentClass::Resp => assert!(content.contains("\r\n")),
                ContentClass::Json => assert!(
                    serde_json::from_str::<serde_json::Value>(&content).is_ok(),
                    "not JSON: {content:?}"
                ),
                ContentClass::Empty => assert!(content.is_empty()),
                ContentClass::Whitespace => {
                    assert!(!content.is_empty());
                    assert!(content
                        .chars()
                        .all(|c| c.is_whitespace() || c == '\u{200B}' || c == '\u{FEFF}'));
                }
                ContentClass::Nul => assert!(content.contains('\0')),
                ContentClass::Mixed => assert!(content.len() <= SMALL_BYTES_MAX),
                ContentClass::Large => {
                    assert!((LARGE_BYTES_MIN..=LARGE_BYTES_MAX).contains(&content.len()))
                }
            }
        }
        for class in ContentClass::ALL {
            assert!(
                seen.get(&class).copied().unwrap_or(0) > 0,
                "{class:?} never drawn"
            );
        }
    }

    #[test]
    fn special_cases_appear() {
        let mut rng = stream(3, Stream::Content);
        let all: Vec<String> = (0..3_000).map(|_| draw(&mut rng).1).collect();
        assert!(all.iter().any(|c| c.contains("\r\n$5\r\nhello\r\n*3\r\n")));
        assert!(all.iter().any(|c| c.contains(r#"{"a":"\"\\u00e9"}"#)));
        assert!(
            all.iter().any(|c| c.contains('\u{200D}')),
            "no ZWJ sequence"
        );
        assert!(all.iter().any(|c| c.contains("\r\n") && !c.contains('$')));
    }
}
