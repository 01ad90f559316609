//! The noisy neighbour of a pressure plan ([`crate::Pressure`]): another tenant's cache on
//! the same Redis, writing new keys at the plan's times until its end. The timeline shows
//! when the neighbour starts, when its writes start and stop being refused, and its
//! tally; the evictions it causes are the history's facts.

use crate::world::node::NeighbourWrite;
use crate::world::shared::World;
use std::sync::Arc;

/// Carry out the plan's neighbour writes, if it has any.
pub async fn run_neighbour(world: Arc<World>) {
    let Some(pressure) = world.plan.pressure.clone() else {
        return;
    };
    let n = &pressure.neighbour;
    let note = |text: String| world.trace.record(world.clock.now_us(), "neighbour", text);
    world.clock.sleep_until_ms(n.start_ms).await;
    note(format!(
        "another tenant's cache starts: {}",
        pressure.describe()
    ));
    let (mut stored, mut refused, mut skipped) = (0u64, 0u64, 0u64);
    let mut refusing = false;
    for (number, at_ms) in n.writes_ms().enumerate() {
        world.clock.sleep_until_ms(at_ms).await;
        let key = format!("{}{number}", crate::plan::NEIGHBOUR_KEY_PREFIX);
        match world
            .server
            .neighbour_set(&key, n.value_bytes as usize, n.ttl_ms)
        {
            NeighbourWrite::Stored => {
                stored += 1;
                if std::mem::take(&mut refusing) {
                    note("its writes are stored again".into());
                }
            }
            NeighbourWrite::Refused(error) => {
                refused += 1;
                if !std::mem::replace(&mut refusing, true) {
                    note(format!("its writes are refused: {error}"));
                }
            }
            NeighbourWrite::Unreachable => skipped += 1,
            NeighbourWrite::Unsupported => {
                note("memory pressure not reproduced here: skipped".into());
                return;
            }
        }
    }
    note(format!(
        "its writes end: {stored} stored, {refused} refused, {skipped} skipped (server down or paused)"
    ));
}
