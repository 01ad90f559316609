//! Redis's glob-style pattern matching (`stringmatchlen`), for KEYS and SCAN MATCH.

/// True if `text` matches `pattern`: `*`, `?`, `[abc]`, `[^a-z]`, and `\` escapes.
pub fn matches(pattern: &[u8], text: &[u8]) -> bool {
    match_from(pattern, text, 0)
}

/// Nesting bound for `*` backtracking, as Redis's own (it gives up past 1000).
const STAR_DEPTH_MAX: usize = 1000;

fn match_from(mut pattern: &[u8], mut text: &[u8], depth: usize) -> bool {
    if depth > STAR_DEPTH_MAX {
        return false;
    }
    while let Some(&p) = pattern.first() {
        match p {
            b'*' => {
                while pattern.len() > 1 && pattern[1] == b'*' {
                    pattern = &pattern[1..];
                }
                if pattern.len() == 1 {
                    return true;
                }
                return (0..=text.len())
                    .any(|skip| match_from(&pattern[1..], &text[skip..], depth + 1));
            }
            b'?' => {
                if text.is_empty() {
                    return false;
                }
                text = &text[1..];
            }
            b'[' => {
                let Some((&c, rest)) = text.split_first() else {
                    return false;
                };
                let (matched, after) = match_class(&pattern[1..], c);
                if !matched {
                    return false;
                }
                pattern = after;
                text = rest;
                continue;
            }
            b'\\' if pattern.len() >= 2 => {
                pattern = &pattern[1..];
                if text.first() != Some(&pattern[0]) {
                    return false;
                }
                text = &text[1..];
            }
            _ => {
                if text.first() != Some(&p) {
                    return false;
                }
                text = &text[1..];
            }
        }
        pattern = &pattern[1..];
    }
    text.is_empty()
}

/// Match `c` against a class body (after `[`); returns the verdict and the pattern after `]`.
fn match_class(mut pattern: &[u8], c: u8) -> (bool, &[u8]) {
    let negate = pattern.first() == Some(&b'^');
    if negate {
        pattern = &pattern[1..];
    }
    let mut matched = false;
    loop {
        match pattern {
            [] => break,
            [b']', rest @ ..] => {
                pattern = rest;
                return (matched != negate, pattern);
            }
            [b'\\', escaped, rest @ ..] => {
                matched |= *escaped == c;
                pattern = rest;
            }
            [start, b'-', end, rest @ ..] if *end != b']' => {
                let (low, high) = if start <= end {
                    (*start, *end)
                } else {
                    (*end, *start)
                };
                matched |= (low..=high).contains(&c);
                pattern = rest;
            }
            [single, rest @ ..] => {
                matched |= *single == c;
                pattern = rest;
            }
        }
    }
    // Unterminated class: Redis treats the end of the pattern as the end of the class.
    (matched != negate, pattern)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn glob_patterns() {
        assert!(matches(b"*", b"anything"));
        assert!(matches(b"h?llo", b"hello"));
        assert!(!matches(b"h?llo", b"hllo"));
        assert!(matches(b"h[ae]llo", b"hallo"));
        assert!(!matches(b"h[^e]llo", b"hello"));
        assert!(matches(b"h[a-b]llo", b"hbllo"));
        assert!(matches(b"chat:*:s1", b"chat:t0:s1"));
        assert!(matches(b"a\\*b", b"a*b"));
        assert!(!matches(b"a\\*b", b"axb"));
        assert!(matches(b"**a", b"bba"));
    }
}
