//! The madsim engine: the shared world (the Redis model, the links and their
//! faults, the driver, the recorder) on madsim's seeded executor, so a store that was
//! never written for amnesia runs unchanged. Only in a `--cfg madsim` build whose `tokio`
//! is amnesia's `madsim/tokio` (docs/madsim.md): there the store's own
//! `redis::Client::open(url)`, `tokio::spawn` and `tokio::time::sleep` reach this module's
//! [`MadsimSimulator`], and madsim answers `clock_gettime` and `getrandom`, so
//! `chrono::Utc::now()` and `uuid::Uuid::new_v4()` are the seed's.
//!
//! A store's URL names its client process (`redis://client-3-gen-1.redis.amnesia:6379`):
//! the connect goes through that client's link, as the connector's dial does, and a URL
//! of a crashed process refuses as its connector would.

use crate::contract::StoreFactory;
use crate::plan::Plan;
use crate::world::assemble::{WorldHooks, WorldOptions};
use crate::world::shared::World;
use crate::world::{Engine, SimOutput};
use std::cell::RefCell;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
// This is `madsim/tokio`'s seam: "could not find `simulation` in `tokio`" means the build
// lacks `[patch.crates-io] tokio = { path = ".../madsim/tokio" }` (docs/madsim.md).
use tokio::simulation::{BoxFuture, SimStream, SimTask, Simulator};

/// The port of the simulated Redis.
pub const REDIS_PORT: u16 = 6379;
/// The domain of the names the simulation resolves.
const DOMAIN: &str = ".redis.amnesia";
/// The first segment of a simulated Redis address (a unique local IPv6 prefix); the
/// client and generation follow.
const ADDRESS_PREFIX: u16 = 0xfd00;

/// The engine of unmodified stores.
#[derive(Clone, Copy, Debug, Default)]
pub struct MadsimEngine;

impl Engine for MadsimEngine {
    fn name(&self) -> &'static str {
        "madsim"
    }

    fn run(&self, plan: Arc<Plan>, store: &StoreFactory) -> SimOutput {
        let store = store.clone();
        // A thread per seed: madsim seeds std's `HashMap` keys once per thread, so only a
        // fresh thread's maps iterate in the seed's order.
        std::thread::scope(|scope| {
            scope
                .spawn(move || run_on_this_thread(plan, store))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }
}

fn run_on_this_thread(plan: Arc<Plan>, store: StoreFactory) -> SimOutput {
    static SIMULATOR: MadsimSimulator = MadsimSimulator;
    tokio::simulation::install(&SIMULATOR);
    let seed = plan.seed;
    let runtime = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    // The thread-local generators no libc override reaches, seeded from the plan. std's
    // `HashMap` keys are madsim's (a fresh thread). fastrand's (backon's reconnect jitter
    // in the redis crate) seeds itself from the thread's id. tokio's (`select!`'s branch
    // order, a `watch` waiter's shard) is seeded, outside a tokio runtime, from a
    // process-wide counter: the run goes inside a tokio runtime seeded from the plan,
    // built on madsim's clock so `tokio::time::Instant` reads it, never driven (every
    // task is madsim's) and unconstrained (tokio's budget resets only between its own
    // tasks' polls).
    fastrand::seed(seed);
    let seeded = runtime.block_on(async move {
        tokio::runtime::Builder::new_current_thread()
            .rng_seed(tokio::runtime::RngSeed::from_bytes(&seed.to_le_bytes()))
            .build()
            .expect("a current-thread runtime without drivers always builds")
    });
    let run = async {
        runtime.block_on(async move {
            let hooks = WorldHooks {
                redis_url_of: Some(redis_url),
                on_world: Some(&|world: &Arc<World>| {
                    RUN_WORLD.with(|slot| *slot.borrow_mut() = Some(world.clone()))
                }),
            };
            // Stores here connect with their own clients (redis-py-like ones included):
            // `CLIENT SETINFO` at connect is answered as Redis 7.2 answers it.
            let options = WorldOptions {
                client_commands_7_2: true,
                ..WorldOptions::default()
            };
            crate::world::assemble::world(plan, store, &options, &hooks)
                .await
                .0
        })
    };
    let output = seeded.block_on(tokio::task::unconstrained(run));
    RUN_WORLD.with(|slot| slot.borrow_mut().take());
    output
}

thread_local! {
    /// The world the simulator's connects reach: the run on this thread.
    static RUN_WORLD: RefCell<Option<Arc<World>>> = const { RefCell::new(None) };
}

/// The Redis URL of `generation` of `client`'s process.
pub fn redis_url(client: u32, generation: u64) -> String {
    format!("redis://client-{client}-gen-{generation}{DOMAIN}:{REDIS_PORT}")
}

/// The (client, generation) a simulated host name names.
fn parse_host(host: &str) -> Option<(u32, u64)> {
    let rest = host.strip_suffix(DOMAIN)?.strip_prefix("client-")?;
    let (client, generation) = rest.split_once("-gen-")?;
    Some((client.parse().ok()?, generation.parse().ok()?))
}

/// The address of (client, generation): the client in segments 4–5, the generation in 6–7.
fn address_of(client: u32, generation: u64, port: u16) -> SocketAddr {
    let [c0, c1] = [(client >> 16) as u16, client as u16];
    let [g0, g1] = [(generation >> 16) as u16, generation as u16];
    SocketAddr::new(
        IpAddr::V6(Ipv6Addr::new(ADDRESS_PREFIX, 0, 0, 0, c0, c1, g0, g1)),
        port,
    )
}

/// The (client, generation) of a simulated address.
fn parse_address(addr: SocketAddr) -> Option<(u32, u64)> {
    let IpAddr::V6(ip) = addr.ip() else {
        return None;
    };
    let s = ip.segments();
    if s[0] != ADDRESS_PREFIX || s[1..4] != [0, 0, 0] || addr.port() != REDIS_PORT {
        return None;
    }
    let client = (u32::from(s[4]) << 16) | u32::from(s[5]);
    let generation = (u64::from(s[6]) << 16) | u64::from(s[7]);
    Some((client, generation))
}

/// madsim behind `madsim/tokio`'s seam.
pub struct MadsimSimulator;

impl Simulator for MadsimSimulator {
    fn active(&self) -> bool {
        madsim::runtime::Handle::try_current().is_ok()
    }

    fn spawn(&self, task: BoxFuture<()>) -> Arc<dyn SimTask> {
        let handle = madsim::task::spawn(task);
        Arc::new(MadsimTask(handle.abort_handle()))
    }

    fn sleep_until(&self, deadline: std::time::Instant) -> BoxFuture<()> {
        Box::pin(madsim::time::sleep_until(deadline))
    }

    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        match parse_host(host) {
            Some((client, generation)) => Ok(vec![address_of(client, generation, port)]),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "'{host}' does not resolve in the simulation: dial StoreContext::redis_url"
                ),
            )),
        }
    }

    fn connect(&self, addr: SocketAddr) -> BoxFuture<io::Result<Box<dyn SimStream>>> {
        let refused = move || {
            io::Error::new(
                io::ErrorKind::ConnectionRefused,
                format!("nothing listens at {addr} in the simulation"),
            )
        };
        let Some((client, generation)) = parse_address(addr) else {
            return Box::pin(async move { Err(refused()) });
        };
        let world = RUN_WORLD.with(|slot| slot.borrow().clone());
        let dialer = world
            .filter(|world| client < world.plan.clients)
            .map(|world| world.dialer(&world.server, client, generation));
        Box::pin(async move {
            let dialer = dialer.ok_or_else(refused)?;
            let stream = dialer.dial().await?;
            let local = address_of(client, generation, 0);
            Ok(Box::new(LinkStream {
                stream: Mutex::new(stream),
                local,
                peer: addr,
            }) as Box<dyn SimStream>)
        })
    }
}

/// A task on madsim's executor.
struct MadsimTask(madsim::task::AbortHandle);

impl SimTask for MadsimTask {
    fn abort(&self) {
        self.0.abort();
    }

    fn is_finished(&self) -> bool {
        self.0.is_finished()
    }
}

/// A connection over a client's link, as `tokio::net::TcpStream` hands it to the store.
/// The mutex is only ever reached through `&mut` (no locking): it makes the stream `Sync`.
struct LinkStream {
    stream: Mutex<crate::connect::BoxStream>,
    local: SocketAddr,
    peer: SocketAddr,
}

impl LinkStream {
    fn inner(self: std::pin::Pin<&mut Self>) -> std::pin::Pin<&mut crate::connect::BoxStream> {
        let stream = self
            .get_mut()
            .stream
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        std::pin::Pin::new(stream)
    }
}

impl SimStream for LinkStream {
    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }

    fn peer_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.peer)
    }
}

impl tokio::io::AsyncRead for LinkStream {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        self.inner().poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for LinkStream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        self.inner().poll_write(cx, buf)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        self.inner().poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        self.inner().poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_its_client_process_and_back() {
        let url = redis_url(3, 70_000);
        let host = url
            .strip_prefix("redis://")
            .unwrap()
            .strip_suffix(":6379")
            .unwrap();
        assert_eq!(parse_host(host), Some((3, 70_000)));
        assert_eq!(
            parse_address(address_of(3, 70_000, REDIS_PORT)),
            Some((3, 70_000))
        );
        assert_eq!(parse_host("redis"), None);
        assert_eq!(parse_address(address_of(3, 1, 80)), None);
    }
}
