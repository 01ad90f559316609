//! The run of a world: start the clients, the fault schedule and the deploy, drive every
//! turn and the final reads, audit the memories, cut off what is pending at the deadline.
//! It sits above the driver and the fault schedule, which work on the
//! [`World`] without running it.

use crate::contract::Policy;
use crate::history::{History, Quiescence};
use crate::world::driver::Driver;
use crate::world::shared::World;
use std::sync::Arc;

/// What a finished run leaves for the checker.
pub struct WorldEnd {
    pub history: History,
    pub policy: Policy,
    /// Microseconds from the world's start to its end.
    pub end_us: u64,
    pub quiescence: Option<Quiescence>,
}

impl World {
    /// Run the plan: start the clients, the fault schedule and the deploy, drive every
    /// turn and the final reads, and audit the memories; operations still pending at the
    /// deadline ([`crate::world::deadline_ms`]) are cut off.
    pub async fn run(self: Arc<Self>) -> WorldEnd {
        let (plan, clock, trace) = (&self.plan, &self.clock, &self.trace);
        (0..plan.clients).for_each(|client| self.start_client(client));
        let policy = self.policy();
        tokio::spawn(crate::world::faults::run_schedule(self.clone()));
        tokio::spawn(crate::world::neighbour::run_neighbour(self.clone()));
        if let Some(at_ms) = plan.deploy_at_ms {
            let world = self.clone();
            tokio::spawn(async move { world.deploy(at_ms).await });
        }
        let driver = Driver {
            world: self.clone(),
        };
        let deadline_ms = crate::world::deadline_ms(plan, self.grace_ms);
        let mut quiescence = None;
        let run = async {
            driver.clone().run().await;
            quiescence = driver.audit_memories().await;
        };
        let deadline = std::time::Duration::from_millis(deadline_ms);
        if tokio::time::timeout(deadline, run).await.is_err() {
            let text = "run deadline reached: pending operations cut off";
            trace.record(clock.now_us(), "driver", text);
        }
        trace.record(clock.now_us(), "driver", "world ends");
        WorldEnd {
            history: self.recorder.take_history(),
            policy,
            end_us: clock.now_us(),
            quiescence,
        }
    }
}
