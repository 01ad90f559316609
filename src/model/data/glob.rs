//! Redis's glob-style pattern matching (`stringmatchlen`), for KEYS and SCAN MATCH.

/// True if `text` matches `pattern`: `*`, `?`, `[abc]`, `[^a-z]`, and `\` escapes.
pub fn matches(pattern: &[u8], text: &[u8]) -> bool {
    matches_counting(pattern, text).0
}

/// [`matches`], and the steps it took (one per pattern element tried at one text
/// position): tests bound it for hostile patterns.
pub(crate) fn matches_counting(pattern: &[u8], text: &[u8]) -> (bool, u64) {
    let mut search = Search {
        skip_longer: false,
        steps: 0,
    };
    let matched = search.match_from(pattern, text, 0);
    (matched, search.steps)
}

/// Nesting bound for `*` backtracking, as Redis's own (it gives up past 1000).
const STAR_DEPTH_MAX: usize = 1000;

/// One match's state: Redis's `skipLongerMatches` and a step count.
struct Search {
    /// The rest of the pattern after some `*` matched nowhere in the rest of the text:
    /// no earlier `*` can help by matching more (Redis's fix for exponential nested
    /// `*` patterns, CVE-2022-36021), so every enclosing `*` gives up at once.
    skip_longer: bool,
    steps: u64,
}

impl Search {
    fn match_from(&mut self, mut pattern: &[u8], mut text: &[u8], depth: usize) -> bool {
        if depth > STAR_DEPTH_MAX {
            return false;
        }
        while let Some(&p) = pattern.first() {
            self.steps += 1;
            match p {
                b'*' => {
                    while pattern.len() > 1 && pattern[1] == b'*' {
                        pattern = &pattern[1..];
                    }
                    if pattern.len() == 1 {
                        return true;
                    }
                    for skip in 0..=text.len() {
                        if self.match_from(&pattern[1..], &text[skip..], depth + 1) {
                            return true;
                        }
                        if self.skip_longer {
                            return false;
                        }
                    }
                    self.skip_longer = true;
                    return false;
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
        assert!(matches(b"a*b*c", b"axxbyyc"));
        assert!(!matches(b"a*b*c", b"axxbyy"));
        assert!(matches(b"*a*", b"xxa"));
    }

    /// Nested `*` against a text that almost matches: exponential without Redis's
    /// `skipLongerMatches`, a few thousand steps with it.
    #[test]
    fn nested_stars_cost_linear_steps() {
        let text = vec![b'a'; 40];
        let mut pattern = b"a*".repeat(20);
        pattern.push(b'b');
        let (matched, steps) = super::matches_counting(&pattern, &text);
        assert!(!matched);
        assert!(steps < 10_000, "{steps} steps");
        // The same with a text ten times longer: the bound grows with the input, no faster.
        let long = vec![b'a'; 400];
        let (_, long_steps) = super::matches_counting(&pattern, &long);
        assert!(long_steps < 20 * steps, "{long_steps} steps");
        // And what does match still matches.
        let mut hit = text.clone();
        hit.push(b'b');
        assert!(super::matches_counting(&pattern, &hit).0);
    }
}
