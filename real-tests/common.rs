//! What the real-tier test binaries share: the provider the environment names, and
//! runs in parallel (each waits on real time, so runs overlap rather than queue).

use amnesia::real::{Provider, RealOptions};

/// The environment's provider (`AMNESIA_REAL_PROVIDER`), plans on real time.
pub fn options() -> RealOptions {
    RealOptions {
        provider: Provider::from_env().expect("AMNESIA_REAL_PROVIDER names a provider"),
        time_scale: 1.0,
    }
}

/// Run `work` for every item on a thread of its own, in order of the items.
pub fn in_parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .iter()
            .map(|item| scope.spawn(|| work(item)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a real run never panics"))
            .collect()
    })
}
