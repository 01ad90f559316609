//! amnesia inside a team's own turmoil simulation (docs/turmoil.md).
//!
//! The team already simulates its chat service in turmoil: two app hosts, `chat-a` and
//! `chat-b`, behind a load balancer without session affinity, so both append to the same
//! sessions; their own fault script crashes Redis mid-run and brings it back, and
//! partitions `chat-b` for a while. They add amnesia's Redis model as the `redis` host,
//! build their store on amnesia's connector, record every call, and ask amnesia's checker.
//!
//! `cargo run --example turmoil_embedding` prints the verdicts of a few seeds for the
//! reference store and for `rmw-blob` (a store that rewrites a session as one JSON blob:
//! two hosts appending at once lose one append). `cargo test --example turmoil_embedding`
//! asserts them: the reference passes every seed, the blob store is caught as `lost`.

use amnesia::history::{OpKind, OpValue};
use amnesia::turmoil::{epoch, Recorder, RedisModel};
use amnesia::{Message, Persistence, Role, SessionKey, Store, Verdict};
use std::time::Duration;

/// The app hosts of the team's simulation.
const APP_HOSTS: [&str; 2] = ["chat-a", "chat-b"];
/// Messages each app host appends.
const APPENDS_PER_HOST: u64 = 24;
/// Sessions both hosts share.
const SESSIONS: u64 = 3;

/// What one run of the team's simulation leaves.
struct Run {
    verdict: Verdict,
    /// When the Redis crashes the model recorded as facts for the checker happened, in
    /// microseconds of the simulation.
    restarts_us: Vec<u64>,
}

/// One run of the team's simulation of seed `seed`, with the store amnesia names `store`.
fn simulate(store: &str, seed: u64) -> Run {
    let redis = RedisModel::new(Persistence::AofAlways, seed);
    let recorder = Recorder::new();
    let mut sim = turmoil::Builder::new()
        .rng_seed(seed)
        .epoch(epoch())
        .simulation_duration(Duration::from_secs(60))
        .build();
    sim.host("redis", redis.software());
    let store = Store::named(store).expect("a built-in store");
    let mut policy = None;
    for (client, host) in APP_HOSTS.into_iter().enumerate() {
        let context = redis.store_context("redis:6379", 60_000, seed);
        let chat = (store.factory())(context);
        policy.get_or_insert(chat.policy());
        let recorder = recorder.clone();
        sim.client(host, async move {
            let client = client as u32;
            for n in 0..APPENDS_PER_HOST {
                let session = SessionKey::new("team", format!("s{}", n % SESSIONS));
                let msg = Message {
                    id: format!("{host}-{n}"),
                    role: Role::User,
                    content: format!("message {n} from {host}"),
                    seq: u64::from(client) * 1_000 + n,
                };
                let kind = OpKind::Append {
                    session: session.clone(),
                    msg: msg.clone(),
                };
                let append = chat.append(&session, &msg);
                recorder
                    .record(client, kind, append, |_| OpValue::None)
                    .await;
                tokio::time::sleep(Duration::from_millis(3 + n % 4)).await;
            }
            // Once the faults are over, every session is read back in full.
            tokio::time::sleep(Duration::from_millis(2_000)).await;
            for s in 0..SESSIONS {
                let session = SessionKey::new("team", format!("s{s}"));
                let kind = OpKind::Context {
                    session: session.clone(),
                    limit: 1_000,
                };
                let read = chat.context(&session, 1_000);
                recorder.record(client, kind, read, OpValue::Messages).await;
            }
            Ok(())
        });
    }
    run_with_faults(&mut sim);
    Run {
        verdict: recorder.verdict(&redis, &policy.expect("two app hosts")),
        restarts_us: recorder
            .history(&redis)
            .restarts
            .iter()
            .map(|restart| restart.at_us)
            .collect(),
    }
}

/// The team's own fault script: Redis crashes at 40 ms and is back at 70 ms; `chat-b`
/// is cut off from Redis from 90 ms to 120 ms.
fn run_with_faults(sim: &mut turmoil::Sim<'_>) {
    loop {
        match sim.elapsed().as_millis() {
            40 => sim.crash("redis"),
            70 => sim.bounce("redis"),
            90 => sim.partition("chat-b", "redis"),
            120 => sim.repair("chat-b", "redis"),
            _ => {}
        }
        if sim.step().expect("the simulation runs") {
            return;
        }
    }
}

fn main() {
    for store in ["reference", "rmw-blob"] {
        for seed in 0..4 {
            let run = simulate(store, seed);
            let (classes, restarts) = (run.verdict.classes(), run.restarts_us);
            println!("{store:10} seed {seed}: restarts at {restarts:?} us, classes {classes:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amnesia::ViolationClass;

    #[test]
    fn the_reference_store_passes_the_teams_simulation() {
        for seed in 0..8 {
            let run = simulate("reference", seed);
            assert!(run.verdict.is_pass(), "seed {seed}: {:?}", run.verdict);
            // The crash happens between the steps at 40 ms, after the one that ended there.
            assert_eq!(
                run.restarts_us,
                [40_000],
                "seed {seed}: the crash is a recorded fact"
            );
        }
    }

    #[test]
    fn a_blob_rewriting_store_is_caught_losing_appends() {
        let caught = (0..8).filter(|&seed| {
            simulate("rmw-blob", seed)
                .verdict
                .classes()
                .contains(&ViolationClass::Lost)
        });
        assert!(caught.count() > 0, "rmw-blob never caught as lost in 0..8");
    }

    #[test]
    fn a_seed_is_one_execution() {
        // Several times in one thread: nothing of an earlier run (tokio's task ids count
        // across the process) changes a later one.
        let first = format!("{:?}", simulate("rmw-blob", 3).verdict);
        for _ in 0..3 {
            assert_eq!(first, format!("{:?}", simulate("rmw-blob", 3).verdict));
        }
    }
}
