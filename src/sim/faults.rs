//! Carrying out the plan's fault schedule on the world at virtual times.

use crate::plan::{Fault, FaultKind};
use crate::sim::clock::WorldClock;
use crate::sim::net::Link;
use crate::trace::Trace;
use std::sync::Arc;

/// Start and end every fault of the plan at its time.
pub async fn run_schedule(
    faults: Vec<Fault>,
    links: Vec<Arc<Link>>,
    clock: WorldClock,
    trace: Trace,
) {
    let mut tasks = tokio::task::JoinSet::new();
    for fault in faults {
        let (links, clock, trace) = (links.clone(), clock.clone(), trace.clone());
        tasks.spawn(async move { run_fault(fault, &links, &clock, &trace).await });
    }
    while tasks.join_next().await.is_some() {}
}

async fn run_fault(fault: Fault, links: &[Arc<Link>], clock: &WorldClock, trace: &Trace) {
    clock.sleep_until_ms(fault.at_ms).await;
    match fault.kind {
        FaultKind::Partition { client, direction } => {
            let link = &links[client as usize];
            link.set_partition(Some(direction));
            trace.record(
                clock.now_us(),
                "faults",
                format!(
                    "partition client-{client} {direction:?} for {}ms",
                    fault.duration_ms
                ),
            );
            clock.sleep_until_ms(fault.end_ms()).await;
            link.set_partition(None);
            trace.record(
                clock.now_us(),
                "faults",
                format!("partition client-{client} healed"),
            );
        }
    }
}
