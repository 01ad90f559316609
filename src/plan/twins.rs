//! Canonical twins: two sessions whose names differ byte for byte but read the same once a
//! store canonicalizes an id before it builds a key (lower- or upper-casing, Unicode case
//! folding, NFC/NFKC normalization, trimming). A store that does is one tenant's session
//! away from another's: a leak. A correct store keys by the exact bytes.
//!
//! Drawn from its own stream, for some seeds: only names change, so the rest of a seed's
//! plan stays as it was, and seeds that draw no twins keep their plan unchanged.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::prng::chance;
use super::workload::Workload;
use crate::domain::SessionKey;

/// Share of seeds that rename two sessions into canonical twins, in parts per million.
pub const TWIN_NAMES_PPM: u32 = 250_000;

/// How the two names of a twin pair differ; each is an equivalence some canonical form a
/// store might apply erases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TwinForm {
    /// `s1` / `S1`: ASCII case (`to_lowercase`, `to_uppercase`, case folding).
    AsciiCase,
    /// `s1` / `ｓ１`: fullwidth forms (NFKC).
    Fullwidth,
    /// `s1` / `s1 `: trailing white space (trimming).
    Padded,
    /// `ss1` / `ß1`: the sharp s (full case folding, `to_uppercase`).
    SharpS,
    /// `ks1` / `Ks1` with the Kelvin sign U+212A (`to_lowercase`, NFKC).
    Kelvin,
    /// `ss1` / `ſs1` with the long s U+017F (`to_uppercase`, case folding, NFKC).
    LongS,
    /// `és1` precomposed / decomposed `e` + U+0301 (NFC, NFD).
    Composed,
}

impl TwinForm {
    /// Every form, in declaration order.
    pub const ALL: [TwinForm; 7] = [
        TwinForm::AsciiCase,
        TwinForm::Fullwidth,
        TwinForm::Padded,
        TwinForm::SharpS,
        TwinForm::Kelvin,
        TwinForm::LongS,
        TwinForm::Composed,
    ];

    /// The two names of `name`'s twin pair: different bytes, one canonical form.
    pub fn pair(self, name: &str) -> (String, String) {
        match self {
            TwinForm::AsciiCase => (name.to_string(), name.to_ascii_uppercase()),
            TwinForm::Fullwidth => (name.to_string(), name.chars().map(fullwidth).collect()),
            TwinForm::Padded => (name.to_string(), format!("{name} ")),
            TwinForm::SharpS => (format!("ss{name}"), format!("\u{df}{name}")),
            TwinForm::Kelvin => (format!("k{name}"), format!("\u{212a}{name}")),
            TwinForm::LongS => (format!("s{name}"), format!("\u{17f}{name}")),
            TwinForm::Composed => (format!("\u{e9}{name}"), format!("e\u{301}{name}")),
        }
    }
}

/// The fullwidth form of an ASCII letter or digit; anything else as it is.
fn fullwidth(c: char) -> char {
    if c.is_ascii_alphanumeric() {
        char::from_u32(u32::from(c) - 0x21 + 0xff01).expect("fullwidth ASCII is a char")
    } else {
        c
    }
}

/// The one form every [`TwinForm`] pair shares: the canonical key a careless store
/// might compute (case folded, fullwidth mapped, trimmed, composed). For plan summaries
/// and tests, not a general Unicode normalizer.
pub fn canonical(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars() {
        match c {
            '\u{df}' => out.push_str("ss"),
            '\u{212a}' => out.push('k'),
            '\u{17f}' => out.push('s'),
            '\u{e9}' => out.push('e'),
            '\u{301}' => {}
            '\u{ff01}'..='\u{ff5e}' => out.push(
                char::from_u32(u32::from(c) - 0xff01 + 0x21)
                    .expect("ASCII is a char")
                    .to_ascii_lowercase(),
            ),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// Pairs of sessions whose tenant and session names are canonically equal but not equal:
/// the twins of a plan, as (first, second) in plan order.
pub fn twin_sessions(sessions: &[SessionKey]) -> Vec<(&SessionKey, &SessionKey)> {
    let key = |s: &SessionKey| (canonical(&s.tenant), canonical(&s.session));
    let mut pairs = Vec::new();
    for (i, a) in sessions.iter().enumerate() {
        for b in &sessions[i + 1..] {
            if a != b && key(a) == key(b) {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// With [`TWIN_NAMES_PPM`], rename two sessions into a twin pair: both take one session's
/// tenant, or one session's name, and differ in the other part only by a [`TwinForm`].
pub(crate) fn rename_twins(rng: &mut impl Rng, workload: &mut Workload) {
    let n = workload.sessions.len();
    if n < 2 || !chance(rng, TWIN_NAMES_PPM) {
        return;
    }
    let a = rng.random_range(0..n);
    let b = (a + rng.random_range(1..n)) % n;
    let form = TwinForm::ALL[rng.random_range(0..TwinForm::ALL.len())];
    let first = workload.sessions[a].clone();
    let (renamed_first, renamed_second) = if rng.random_range(0..2) == 0 {
        let (x, y) = form.pair(&first.session);
        (
            SessionKey::new(first.tenant.clone(), x),
            SessionKey::new(first.tenant.clone(), y),
        )
    } else {
        let (x, y) = form.pair(&first.tenant);
        (
            SessionKey::new(x, first.session.clone()),
            SessionKey::new(y, first.session.clone()),
        )
    };
    // The new names must be new: a pair that meets a third session's name is not drawn.
    let taken = |key: &SessionKey| {
        workload
            .sessions
            .iter()
            .enumerate()
            .any(|(i, s)| i != a && i != b && s == key)
    };
    if renamed_first == renamed_second || taken(&renamed_first) || taken(&renamed_second) {
        return;
    }
    workload.rename([(a, renamed_first), (b, renamed_second)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_differs_in_bytes_and_shares_its_canonical_form() {
        for form in TwinForm::ALL {
            for name in ["s1", "t0", "s0:s1"] {
                let (x, y) = form.pair(name);
                assert_ne!(x, y, "{form:?} of {name}");
                assert_eq!(canonical(&x), canonical(&y), "{form:?} of {name}");
            }
        }
        // Names a plan keeps apart without twins are not canonically equal.
        assert_ne!(canonical("s1"), canonical("s2"));
    }

    #[test]
    fn std_lowercase_merges_some_forms_and_not_others() {
        let lower = |form: TwinForm| {
            let (x, y) = form.pair("s1");
            x.to_lowercase() == y.to_lowercase()
        };
        assert!(lower(TwinForm::AsciiCase) && lower(TwinForm::Kelvin));
        assert!(!lower(TwinForm::SharpS) && !lower(TwinForm::Composed));
    }
}
