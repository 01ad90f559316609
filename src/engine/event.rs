//! The event engine: the shared world around the model ([`crate::world::assemble`]) on one
//! `current_thread` tokio runtime with a paused, seeded clock. When every task waits,
//! tokio jumps to the next timer, so idle virtual time costs nothing. Hosts are sets of
//! tasks; the network is in-memory connections ([`crate::world::net`]).

use crate::contract::StoreFactory;
use crate::model::Journaled;
use crate::plan::Plan;
use crate::world::assemble::{world, WorldHooks, WorldOptions};
use crate::world::{Engine, SimOutput};
use std::sync::Arc;

/// The default engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventEngine;

impl Engine for EventEngine {
    fn name(&self) -> &'static str {
        "event"
    }

    fn run(&self, plan: Arc<Plan>, store: &StoreFactory) -> SimOutput {
        run_with(plan, store, &WorldOptions::default()).0
    }
}

/// Run `plan` on the event-driven engine with `options`; the model's journal (empty
/// unless asked for) comes back beside the output.
pub fn run_with(
    plan: Arc<Plan>,
    store: &StoreFactory,
    options: &WorldOptions,
) -> (SimOutput, Vec<Journaled>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .rng_seed(tokio::runtime::RngSeed::from_bytes(
            &plan.seed.to_le_bytes(),
        ))
        .build()
        .expect("a current-thread runtime always builds");
    runtime.block_on(world(plan, store.clone(), options, &WorldHooks::default()))
}
