//! A key's access frequency under an LFU policy (Redis's `evict.c`: `LFULogIncr`,
//! `LFUDecrAndReturn`): an 8-bit counter that grows logarithmically with accesses and
//! decays by one per `lfu-decay-time` minutes of idleness, stamped with the minute of its
//! last decay in 16 bits.

/// A new key's counter (`LFU_INIT_VAL`): it is not evicted at once for being new.
pub(crate) const LFU_INIT: u8 = 5;

/// How an LFU policy counts (`lfu-log-factor`, `lfu-decay-time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LfuParams {
    pub log_factor: u32,
    pub decay_time_min: u32,
}

/// A key's counter and the minute (mod 2^16) it was last updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lfu {
    pub counter: u8,
    pub minute: u16,
}

/// The minute of `now_ms` as Redis keeps it (`LFUGetTimeInMinutes`).
pub(crate) fn minute_of(now_ms: u64) -> u16 {
    ((now_ms / 60_000) & 0xffff) as u16
}

impl Lfu {
    pub(crate) fn new(now_ms: u64) -> Lfu {
        Lfu {
            counter: LFU_INIT,
            minute: minute_of(now_ms),
        }
    }

    /// The counter after its decay to `now_ms` (what OBJECT FREQ answers and eviction ranks).
    pub(crate) fn decayed(self, now_ms: u64, params: LfuParams) -> u8 {
        let now = minute_of(now_ms);
        let elapsed = if now >= self.minute {
            now - self.minute
        } else {
            u16::MAX - self.minute + now
        };
        let periods = match params.decay_time_min {
            0 => 0,
            decay => u32::from(elapsed) / decay,
        };
        self.counter.saturating_sub(periods.min(255) as u8)
    }

    /// An access at `now_ms`: decay, then maybe one more (`draw` uniform in [0, 1) from
    /// the node's seeded stream), the likelier the smaller the counter.
    pub(crate) fn accessed(self, now_ms: u64, params: LfuParams, draw: f64) -> Lfu {
        let mut counter = self.decayed(now_ms, params);
        if counter < u8::MAX {
            let base = f64::from(counter.saturating_sub(LFU_INIT));
            let p = 1.0 / (base * f64::from(params.log_factor) + 1.0);
            if draw < p {
                counter += 1;
            }
        }
        Lfu {
            counter,
            minute: minute_of(now_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: LfuParams = LfuParams {
        log_factor: 10,
        decay_time_min: 1,
    };

    #[test]
    fn the_counter_grows_slowly_and_decays_by_the_minute() {
        let mut lfu = Lfu::new(0);
        for _ in 0..100 {
            lfu = lfu.accessed(0, PARAMS, 0.05);
        }
        // p = 1/(base·10+1) falls under 0.05 once base passes 1.9.
        assert_eq!(lfu.counter, LFU_INIT + 2);
        assert_eq!(lfu.decayed(3 * 60_000, PARAMS), LFU_INIT - 1);
        assert_eq!(lfu.decayed(60 * 60_000, PARAMS), 0);
    }
}
