//! Which recorded Redis keys belong to a session or a user: the facts the history holds
//! about keys (expiries, evictions) are matched to the subjects the checker judges by
//! the key's segments, since a store names its keys as it likes.

use crate::domain::{escape_key_part, SessionKey, UserKey};

/// True when `key`'s segments (split at `:`, `/` and hash-tag braces) hold `tenant` and
/// `name` in a row, as they are or escaped ([`crate::escape_key_part`]):
/// `chat2:{t0}:s1:log` reads `:chat2:t0:s1:log:`.
pub(crate) fn names(key: &str, tenant: &str, name: &str) -> bool {
    let segments = segments(key);
    let escaped = || format!(":{}:{}:", escape_key_part(tenant), escape_key_part(name));
    segments.contains(&format!(":{tenant}:{name}:")) || segments.contains(&escaped())
}

/// `key` with its separators made `:`, between `:`s.
fn segments(key: &str) -> String {
    let mut segments = String::with_capacity(key.len() + 2);
    for c in std::iter::once(':')
        .chain(key.chars())
        .chain(std::iter::once(':'))
    {
        let c = if matches!(c, '{' | '}' | '/') { ':' } else { c };
        if !(c == ':' && segments.ends_with(':')) {
            segments.push(c);
        }
    }
    segments
}

/// [`names`] for a session's keys.
pub(crate) fn names_session(key: &str, session: &SessionKey) -> bool {
    names(key, &session.tenant, &session.session)
}

/// [`names`] for a user's keys.
pub(crate) fn names_user(key: &str, user: &UserKey) -> bool {
    names(key, &user.tenant, &user.user)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_a_subject_by_consecutive_segments() {
        assert!(names("chat2:{t0}:s1:log", "t0", "s1"));
        assert!(names("t0/s1", "t0", "s1"));
        assert!(!names("chat:t0:s10", "t0", "s1"));
        assert!(!names("chat:t0:x:s1", "t0", "s1"));
        assert!(!names("chat:t10:s1", "t0", "s1"));
        assert!(names("chat:v1:t3:s1%3As1:head", "t3", "s1:s1"));
        assert!(!names("chat:v1:t3:s1%3As1:head", "t3", "s1"));
    }
}
