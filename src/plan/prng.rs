//! Seeded randomness for plan generation: independent sub-streams per concern, and
//! integer-only draws so a plan is the same on every platform.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::scenario::PPM;

/// A ChaCha stream number per concern. Each concern draws from its own stream, so adding
/// draws to one (a new fault kind, a new content class) never shifts another's: the
/// workload of a seed stays the same when the fault catalogue grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Session TTL, turn placement, clients, think times, context limits.
    Workload,
    /// Message contents.
    Content,
    /// The latency half of the fault mix and the per-link latency models.
    Latency,
    /// One stream per fault kind: its swarm decision and its schedule.
    Fault { stream_id: u32 },
    /// Long-term memory operations mixed into turns.
    Memory,
    /// The key-scheme deploy.
    Deploy,
    /// Adversarial tenant and session names (separators inside names).
    Names,
    /// Canonical twins: names equal under case folding or normalization.
    Twins,
    /// Users with several sessions.
    Users,
    /// Overlapping turns of one session and retried user messages.
    Overlap,
    /// Clears, deletes and memory revisions.
    Edits,
    /// A corpus scenario's preloaded memories, their recalls and revisions.
    Corpus,
    /// Memory pressure: `maxmemory`, the policy, the noisy neighbour.
    Pressure,
}

impl Stream {
    fn id(self) -> u64 {
        match self {
            Stream::Workload => 1,
            Stream::Content => 2,
            Stream::Latency => 3,
            Stream::Fault { stream_id } => 0x1_0000 + u64::from(stream_id),
            Stream::Memory => 4,
            Stream::Deploy => 5,
            Stream::Names => 6,
            Stream::Twins => 7,
            Stream::Users => 8,
            Stream::Overlap => 9,
            Stream::Edits => 10,
            Stream::Corpus => 11,
            Stream::Pressure => 12,
        }
    }
}

/// The generator of one concern of one seed.
pub(crate) fn stream(seed: u64, stream: Stream) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream.id());
    rng
}

/// True with probability `ppm` parts per million.
pub(crate) fn chance(rng: &mut impl Rng, ppm: u32) -> bool {
    assert!(ppm <= PPM);
    rng.random_range(0..PPM) < ppm
}

/// Uniform in `min..=max`.
pub(crate) fn between(rng: &mut impl Rng, min: u64, max: u64) -> u64 {
    assert!(min <= max);
    rng.random_range(min..=max)
}

/// An exponential sample with the given mean, capped at `max`. Uses only IEEE basic
/// operations (no libm `ln`), which are correctly rounded everywhere, so the same seed
/// gives the same sample on every platform.
pub(crate) fn exponential(rng: &mut impl Rng, mean: u64, max: u64) -> u64 {
    // u in (0, 1]: 53 random bits, flipped so zero cannot occur.
    let bits = rng.random::<u64>() >> 11;
    let u = 1.0 - (bits as f64) * (1.0 / (1u64 << 53) as f64);
    assert!(u > 0.0 && u <= 1.0);
    let sample = -(mean as f64) * ln(u);
    assert!(sample >= 0.0);
    // `as` saturates: huge samples become u64::MAX, then the cap applies.
    (sample as u64).min(max)
}

/// Natural logarithm of `x` in (0, 1] from basic operations only.
fn ln(x: f64) -> f64 {
    assert!(x > 0.0 && x <= 1.0 && x.is_normal());
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    // The mantissa as a number in [1, 2).
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    // ln(m) = 2 atanh(s), s = (m - 1) / (m + 1) in [0, 1/3): the series converges fast.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    for k in 0..24 {
        sum += term / f64::from(2 * k + 1);
        term *= s2;
    }
    (exponent as f64) * std::f64::consts::LN_2 + 2.0 * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_matches_libm() {
        for x in [
            1.0,
            0.5,
            0.25,
            0.1,
            1e-9,
            0.999_999,
            1.0 / 3.0,
            2f64.powi(-53),
        ] {
            let error = (ln(x) - x.ln()).abs();
            assert!(error < 1e-12, "ln({x}) off by {error}");
        }
    }

    #[test]
    fn exponential_has_the_mean_and_cap() {
        let mut rng = stream(7, Stream::Workload);
        let samples: Vec<u64> = (0..20_000)
            .map(|_| exponential(&mut rng, 1_000, 5_000))
            .collect();
        assert!(samples.iter().all(|&s| s <= 5_000));
        let mean = samples.iter().sum::<u64>() / samples.len() as u64;
        // The cap at 5x the mean removes about 0.7% of the mass above it.
        assert!((900..1_050).contains(&mean), "mean {mean}");
    }

    #[test]
    fn streams_are_independent_and_reproducible() {
        let mut a = stream(1, Stream::Workload);
        let mut b = stream(1, Stream::Workload);
        let mut c = stream(1, Stream::Content);
        let x: u64 = a.random();
        assert_eq!(x, b.random::<u64>());
        assert_ne!(x, c.random::<u64>());
    }
}
