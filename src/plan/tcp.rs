//! TCP's retransmission, as a plan states it: a segment a partition swallows is sent
//! again after a retransmission timeout that starts at `rto_ms_min` and doubles up to
//! `rto_ms_max`, and the connection is given up (reset) once a segment has gone
//! unacknowledged for `give_up_ms`. Every engine and the real tier's proxy deliver held
//! bytes at these moments, so a partition that heals in time leaves its connections
//! alive, as on a real network; only one that outlasts the budget ends them.

use serde::{Deserialize, Serialize};

use super::prng::{between, chance, stream, Stream};
use super::scenario::ScenarioConfig;

/// Largest retransmission timeout or give-up budget a plan may state: an hour.
pub const TCP_MS_MAX: u64 = 3_600_000;
/// Transmissions of one segment considered at most: past this the budget has long run
/// out (the doubling reaches any cap within 32).
const ATTEMPTS_MAX: u32 = 64;
/// Share of swarm seeds whose connections give up early, as with `TCP_USER_TIMEOUT`.
pub const USER_TIMEOUT_SEEDS_PPM: u32 = 500_000;
/// The user timeouts those seeds draw from, in milliseconds: some shorter than a
/// partition window, some longer.
const USER_TIMEOUT_MS_MIN: u64 = 1_000;
const USER_TIMEOUT_MS_MAX: u64 = 10_000;

/// How a connection retransmits through a partition, and when it gives up.
///
/// ```
/// use amnesia::internal::plan::Retransmission;
/// let linux = Retransmission::LINUX;
/// // Sent at 0, lost, sent again at 200, 600, 1400, 3000 ms…
/// assert_eq!(linux.attempt_offset_ms(4), 3_000);
/// // A 2 s partition from the first send: the segment lands with the 3 s retransmission.
/// assert_eq!(linux.settled_ms(0, 2_000), 3_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retransmission {
    /// The first retransmission timeout (Linux's `TCP_RTO_MIN`: 200 ms); it doubles after
    /// every loss.
    pub rto_ms_min: u64,
    /// The timeout's cap (Linux's `TCP_RTO_MAX`: 120 s).
    pub rto_ms_max: u64,
    /// A segment unacknowledged this long ends the connection: a reset both ends see
    /// (`TCP_USER_TIMEOUT`; Linux's `tcp_retries2 = 15` gives up after 924.6 s).
    pub give_up_ms: u64,
}

impl Default for Retransmission {
    fn default() -> Self {
        Retransmission::LINUX
    }
}

impl Retransmission {
    /// Linux's defaults: 200 ms doubling to 120 s, giving up after `tcp_retries2 = 15`
    /// retransmissions (924.6 s).
    pub const LINUX: Retransmission = Retransmission {
        rto_ms_min: 200,
        rto_ms_max: 120_000,
        give_up_ms: 924_600,
    };

    /// When the segment's `attempt`-th transmission goes out, counted from its first
    /// (attempt 0, at 0 ms).
    pub fn attempt_offset_ms(&self, attempt: u32) -> u64 {
        let mut offset_ms: u64 = 0;
        let mut rto_ms = self.rto_ms_min;
        for _ in 0..attempt.min(ATTEMPTS_MAX) {
            offset_ms = offset_ms.saturating_add(rto_ms);
            rto_ms = rto_ms.saturating_mul(2).min(self.rto_ms_max);
        }
        offset_ms
    }

    /// The first transmission at or after `offset_ms` (from the first send): its
    /// attempt number and offset; `None` once the budget has run out before it.
    pub fn next_attempt(&self, offset_ms: u64) -> Option<(u32, u64)> {
        (0..ATTEMPTS_MAX)
            .map(|attempt| (attempt, self.attempt_offset_ms(attempt)))
            .find(|&(_, at_ms)| at_ms >= offset_ms)
            .filter(|&(_, at_ms)| at_ms < self.give_up_ms)
    }

    /// When a segment first sent at `sent_ms`, into a partition that heals at `heal_ms`,
    /// is delivered (its first transmission after the heal), or its connection given up
    /// if that comes first: the moment the partition's effects end.
    pub fn settled_ms(&self, sent_ms: u64, heal_ms: u64) -> u64 {
        let since_ms = heal_ms.saturating_sub(sent_ms);
        match self.next_attempt(since_ms) {
            Some((_, at_ms)) => sent_ms + at_ms,
            None => sent_ms + self.give_up_ms,
        }
    }

    /// One line for the plan summary.
    pub fn describe(&self) -> String {
        let give_up = if *self == Retransmission::LINUX {
            " (Linux's tcp_retries2 = 15)".to_string()
        } else {
            " (TCP_USER_TIMEOUT)".to_string()
        };
        format!(
            "tcp retransmits from {} ms doubling to {} ms, gives up after {} ms{give_up}",
            self.rto_ms_min, self.rto_ms_max, self.give_up_ms
        )
    }

    /// Checks the limits; the error is one line.
    pub fn validate(&self) -> Result<(), String> {
        let Retransmission {
            rto_ms_min,
            rto_ms_max,
            give_up_ms,
        } = *self;
        if !(1..=TCP_MS_MAX).contains(&rto_ms_min) {
            return Err(format!(
                "tcp rto_ms_min = {rto_ms_min} is outside 1..={TCP_MS_MAX}"
            ));
        }
        if !(rto_ms_min..=TCP_MS_MAX).contains(&rto_ms_max) {
            return Err(format!(
                "tcp rto_ms_max = {rto_ms_max} is outside rto_ms_min..={TCP_MS_MAX}"
            ));
        }
        if !(1..=TCP_MS_MAX).contains(&give_up_ms) {
            return Err(format!(
                "tcp give_up_ms = {give_up_ms} is outside 1..={TCP_MS_MAX}"
            ));
        }
        Ok(())
    }
}

/// Linux's defaults without a swarm; under one, half the seeds give up early, as a
/// connection with `TCP_USER_TIMEOUT` set does. Its own stream, so it moves nothing else.
pub(crate) fn generate_retransmission(seed: u64, scenario: &ScenarioConfig) -> Retransmission {
    const TCP_STREAM_ID: u32 = 101;
    if !scenario.swarm {
        return Retransmission::LINUX;
    }
    let mut rng = stream(
        seed,
        Stream::Fault {
            stream_id: TCP_STREAM_ID,
        },
    );
    if !chance(&mut rng, USER_TIMEOUT_SEEDS_PPM) {
        return Retransmission::LINUX;
    }
    Retransmission {
        give_up_ms: between(&mut rng, USER_TIMEOUT_MS_MIN, USER_TIMEOUT_MS_MAX),
        ..Retransmission::LINUX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_gives_up_after_its_fifteen_retransmissions() {
        let linux = Retransmission::LINUX;
        // Linux's own arithmetic (tcp_timeout.c: retransmits_timed_out with boundary 15).
        let linear = (2u64 << 9) - 1;
        assert_eq!(linear * 200 + (15 - 9) * 120_000, linux.give_up_ms);
        // The 15th retransmission's timeout runs out at the 16th transmission's moment.
        assert_eq!(linux.attempt_offset_ms(16), linux.give_up_ms);
        assert_eq!(linux.next_attempt(linux.give_up_ms), None);
        assert_eq!(linux.next_attempt(1), Some((1, 200)));
    }

    #[test]
    fn a_partition_settles_at_the_next_retransmission_or_the_give_up() {
        let short = Retransmission {
            give_up_ms: 2_500,
            ..Retransmission::LINUX
        };
        assert_eq!(short.settled_ms(1_000, 1_000), 1_000);
        assert_eq!(short.settled_ms(1_000, 2_000), 2_400);
        // 0, 200, 600, 1400 ms; the next (3000) is past the budget: given up at 2500.
        assert_eq!(short.settled_ms(0, 2_000), 2_500);
        assert!(short.validate().is_ok());
        let broken = Retransmission {
            rto_ms_max: 10,
            ..Retransmission::LINUX
        };
        assert!(broken.validate().unwrap_err().contains("rto_ms_max"));
    }
}
