//! The PRNG behind a script's `math.random`: the 48-bit linear congruential generator of
//! POSIX `lrand48`, which Redis ships as `redisLrand48` so that every platform draws the
//! same sequence. Redis 7.0 never reseeds it between scripts (only `math.randomseed`
//! does), so the state lives in the node for its lifetime and a restart starts it over.

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const INCREMENT: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;
/// The state before any seeding (lrand48's documented initial value).
const INITIAL: u64 = 0x1234_ABCD_330E;
/// `REDIS_LRAND48_MAX`: `INT32_MAX`.
pub(crate) const RAND48_MAX: i64 = i32::MAX as i64;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rand48 {
    state: u64,
}

impl Default for Rand48 {
    fn default() -> Self {
        Self { state: INITIAL }
    }
}

impl Rand48 {
    /// `srand48(seed)`: the seed in the high 32 bits, `0x330E` below.
    pub(crate) fn seed(&mut self, seed: i32) {
        self.state = ((u64::from(seed as u32)) << 16) | 0x330E;
    }

    /// The next value in `[0, 2^31)`.
    pub(crate) fn next(&mut self) -> i64 {
        self.state = (self.state.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT)) & MASK;
        (self.state >> 17) as i64
    }

    /// What Redis's `math.random` draws: a double in `[0, 1)`.
    pub(crate) fn next_unit(&mut self) -> f64 {
        (self.next() % RAND48_MAX) as f64 / RAND48_MAX as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_draws_of_a_fresh_redis() {
        // A fresh redis-server: `EVAL "return {math.random(100), math.random(1,10)}" 0`
        // after one `math.random()` answers 85 and 4 (checked against 7.0.15).
        let mut rand = Rand48::default();
        let _ = rand.next_unit();
        assert_eq!((rand.next_unit() * 100.0).floor() + 1.0, 85.0);
        assert_eq!((rand.next_unit() * 10.0).floor() + 1.0, 4.0);
    }
}
