//! Plan time to real time: the real tier runs a plan with every duration multiplied by a
//! stated factor (1: a plan millisecond is a real millisecond). The scaled plan is the
//! one that runs and the one the checker judges, so TTLs, windows and latencies keep
//! their proportions.

use crate::plan::{FaultKind, Plan};

/// The factors the real tier accepts: slower than 20× or faster than 20× real time
/// loses either the run's point or the host's scheduling precision.
pub const TIME_SCALE_MIN: f64 = 0.05;
/// See [`TIME_SCALE_MIN`].
pub const TIME_SCALE_MAX: f64 = 20.0;

/// Check a factor given on the command line.
///
/// ```
/// use amnesia::real::parse_time_scale;
/// assert_eq!(parse_time_scale("0.5"), Ok(0.5));
/// assert!(parse_time_scale("0").is_err());
/// assert!(parse_time_scale("fast").is_err());
/// ```
pub fn parse_time_scale(text: &str) -> Result<f64, String> {
    let factor: f64 = text
        .parse()
        .map_err(|_| format!("time scale '{text}' is not a number"))?;
    if !(TIME_SCALE_MIN..=TIME_SCALE_MAX).contains(&factor) {
        return Err(format!(
            "time scale {factor} is outside {TIME_SCALE_MIN}..={TIME_SCALE_MAX}"
        ));
    }
    Ok(factor)
}

/// `duration_ms` multiplied by `factor`, at least 1 ms.
pub(crate) fn scale_ms(duration_ms: u64, factor: f64) -> u64 {
    ((duration_ms as f64 * factor).round() as u64).max(1)
}

/// The connector's timeouts multiplied by `factor`.
pub(crate) fn scale_connector(
    config: crate::connect::ConnectorConfig,
    factor: f64,
) -> crate::connect::ConnectorConfig {
    let scale = |duration: std::time::Duration| {
        std::time::Duration::from_millis(scale_ms(duration.as_millis() as u64, factor))
    };
    crate::connect::ConnectorConfig {
        response_timeout: scale(config.response_timeout),
        connect_timeout: scale(config.connect_timeout),
    }
}

/// `plan` with every duration multiplied by `factor`. The real tier scales what is not
/// in the plan with it: buggify delays, the connector's timeouts, the run's grace period
/// and the checker's per-operation budget.
pub fn scale_plan(mut plan: Plan, factor: f64) -> Plan {
    assert!((TIME_SCALE_MIN..=TIME_SCALE_MAX).contains(&factor));
    if factor == 1.0 {
        return plan;
    }
    let ms = |value: u64| (value as f64 * factor).round() as u64;
    plan.session_ttl_ms = ms(plan.session_ttl_ms).max(1);
    plan.duration_ms = ms(plan.duration_ms);
    plan.quiet_ms = ms(plan.quiet_ms);
    plan.deploy_at_ms = plan.deploy_at_ms.map(ms);
    for link in &mut plan.links {
        link.base_us = ms(link.base_us);
        link.jitter_us = ms(link.jitter_us);
        if let Some(tail) = &mut link.tail {
            tail.mean_us = ms(tail.mean_us);
        }
    }
    for turn in &mut plan.turns {
        turn.start_ms = ms(turn.start_ms);
        turn.think_ms = ms(turn.think_ms);
        if let Some(retry) = &mut turn.retry {
            retry.after_ms = ms(retry.after_ms);
        }
    }
    for fault in &mut plan.faults {
        fault.at_ms = ms(fault.at_ms);
        fault.duration_ms = ms(fault.duration_ms);
        if let FaultKind::ClockSkew { offset_ms, .. } = &mut fault.kind {
            *offset_ms = (*offset_ms as f64 * factor).round() as i64;
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ScenarioConfig;

    #[test]
    fn every_duration_scales_and_the_order_stays() {
        let plan = Plan::generate(7, &ScenarioConfig::standard());
        let half = scale_plan(plan.clone(), 0.5);
        assert_eq!(half.duration_ms, plan.duration_ms / 2);
        assert_eq!(
            half.session_ttl_ms,
            (plan.session_ttl_ms as f64 * 0.5).round() as u64
        );
        assert_eq!(half.turns.len(), plan.turns.len());
        for (scaled, turn) in half.turns.iter().zip(&plan.turns) {
            assert_eq!(scaled.start_ms, (turn.start_ms as f64 * 0.5).round() as u64);
            assert_eq!(scaled.user, turn.user, "contents never change");
        }
        assert!(half
            .turns
            .windows(2)
            .all(|w| w[0].start_ms <= w[1].start_ms));
        assert!(half.faults.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
        for (scaled, link) in half.links.iter().zip(&plan.links) {
            assert_eq!(scaled.base_us, (link.base_us as f64 * 0.5).round() as u64);
        }
        assert_eq!(scale_plan(plan.clone(), 1.0), plan, "1 is the identity");
    }
}
