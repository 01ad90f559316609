//! The madsim engine: the shared world (the Redis model, the links and their
//! faults, the driver, the recorder) on madsim's seeded executor, so a store that was
//! never written for amnesia runs unchanged. Only in a `--cfg madsim` build whose `tokio`
//! is amnesia's `madsim/tokio` (docs/madsim.md): there the store's own
//! `redis::Client::open(url)`, `tokio::spawn` and `tokio::time::sleep` reach this module's
//! [`MadsimSimulator`], and madsim answers `clock_gettime` and `getrandom`, so
//! `chrono::Utc::now()` and `uuid::Uuid::new_v4()` are the seed's.
//!
//! A store's URL names its client process (`redis://client-3-gen-1.redis.amnesia:6379`,
//! and in a `pg` build `postgres://amnesia@client-3-gen-1.pg.amnesia:5432/postgres` for
//! the world's PostgreSQL): the connect goes through that client's link, as the
//! connector's dial does, and a URL of a crashed process refuses as its connector would.

use crate::contract::StoreFactory;
use crate::domain::Backend;
use crate::plan::Plan;
use crate::world::assemble::{WorldHooks, WorldOptions};
use crate::world::node::ServerNode;
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
/// The port of the simulated PostgreSQL.
pub const POSTGRES_PORT: u16 = 5432;
/// The first segment of a simulated address (a unique local IPv6 prefix); the server, the
/// client and the generation follow.
const ADDRESS_PREFIX: u16 = 0xfd00;

/// A server of the world a simulated name names: its domain, its port and its segment
/// of the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Service {
    Redis,
    Postgres,
}

impl Service {
    const ALL: [Service; 2] = [Service::Redis, Service::Postgres];

    fn domain(self) -> &'static str {
        match self {
            Service::Redis => ".redis.amnesia",
            Service::Postgres => ".pg.amnesia",
        }
    }

    fn port(self) -> u16 {
        match self {
            Service::Redis => REDIS_PORT,
            Service::Postgres => POSTGRES_PORT,
        }
    }

    /// The address segment after the prefix.
    fn segment(self) -> u16 {
        match self {
            Service::Redis => 0,
            Service::Postgres => 1,
        }
    }

    fn of_segment(segment: u16) -> Option<Service> {
        Service::ALL.into_iter().find(|s| s.segment() == segment)
    }

    /// The world's node of this service: nothing listens for a server the run lacks.
    fn node(self, world: &World) -> Option<Arc<dyn ServerNode>> {
        match (self, world.server.backend()) {
            (Service::Redis, Backend::Pgvector) => None,
            (Service::Redis, _) => Some(world.server.clone()),
            (Service::Postgres, Backend::Pgvector) => Some(world.server.clone()),
            (Service::Postgres, _) => world.postgres.clone(),
        }
    }
}

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
                postgres_url_of: postgres_url_of(),
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
    let host = host_of(Service::Redis, client, generation);
    format!("redis://{host}:{REDIS_PORT}")
}

/// [`postgres_url`] in a build that simulates PostgreSQL (the `pg` feature).
fn postgres_url_of() -> Option<fn(u32, u64) -> String> {
    #[cfg(feature = "pg")]
    return Some(postgres_url);
    #[cfg(not(feature = "pg"))]
    None
}

/// The PostgreSQL URL of `generation` of `client`'s process: the role and database every
/// amnesia PostgreSQL has (trust authentication).
#[cfg(feature = "pg")]
pub fn postgres_url(client: u32, generation: u64) -> String {
    let host = host_of(Service::Postgres, client, generation);
    let (user, database) = (crate::postgres::PG_USER, crate::postgres::PG_DATABASE);
    format!("postgres://{user}@{host}:{POSTGRES_PORT}/{database}")
}

fn host_of(service: Service, client: u32, generation: u64) -> String {
    format!("client-{client}-gen-{generation}{}", service.domain())
}

/// The server, client and generation a simulated host name names.
fn parse_host(host: &str) -> Option<(Service, u32, u64)> {
    let (service, rest) = Service::ALL
        .into_iter()
        .find_map(|service| Some((service, host.strip_suffix(service.domain())?)))?;
    let (client, generation) = rest.strip_prefix("client-")?.split_once("-gen-")?;
    Some((service, client.parse().ok()?, generation.parse().ok()?))
}

/// The address of (service, client, generation): the service in segment 2, the client in
/// segments 4–5, the generation in 6–7.
fn address_of(service: Service, client: u32, generation: u64, port: u16) -> SocketAddr {
    let [c0, c1] = [(client >> 16) as u16, client as u16];
    let [g0, g1] = [(generation >> 16) as u16, generation as u16];
    let ip = Ipv6Addr::new(ADDRESS_PREFIX, service.segment(), 0, 0, c0, c1, g0, g1);
    SocketAddr::new(IpAddr::V6(ip), port)
}

/// The (service, client, generation) of a simulated address: only at its service's port
/// (a PostgreSQL name dialed at Redis's port reaches nothing).
fn parse_address(addr: SocketAddr) -> Option<(Service, u32, u64)> {
    let IpAddr::V6(ip) = addr.ip() else {
        return None;
    };
    let s = ip.segments();
    let service = Service::of_segment(s[1])?;
    if s[0] != ADDRESS_PREFIX || s[2..4] != [0, 0] || addr.port() != service.port() {
        return None;
    }
    let client = (u32::from(s[4]) << 16) | u32::from(s[5]);
    let generation = (u64::from(s[6]) << 16) | u64::from(s[7]);
    Some((service, client, generation))
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
            Some((service, client, generation)) => {
                Ok(vec![address_of(service, client, generation, port)])
            }
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "'{host}' does not resolve in the simulation: dial StoreContext::redis_url \
                     or StoreContext::postgres_url"
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
        let Some((service, client, generation)) = parse_address(addr) else {
            return Box::pin(async move { Err(refused()) });
        };
        let world = RUN_WORLD.with(|slot| slot.borrow().clone());
        let dialer = world
            .filter(|world| client < world.plan.clients)
            .and_then(|world| {
                let node = service.node(&world)?;
                Some(world.dialer(&node, client, generation))
            });
        Box::pin(async move {
            let dialer = dialer.ok_or_else(refused)?;
            let stream = dialer.dial().await?;
            let local = address_of(service, client, generation, 0);
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
        assert_eq!(parse_host(host), Some((Service::Redis, 3, 70_000)));
        let redis = address_of(Service::Redis, 3, 70_000, REDIS_PORT);
        assert_eq!(parse_address(redis), Some((Service::Redis, 3, 70_000)));
        assert_eq!(parse_host("redis"), None);
        assert_eq!(parse_address(address_of(Service::Redis, 3, 1, 80)), None);
    }

    #[cfg(feature = "pg")]
    #[test]
    fn a_postgres_url_names_its_process_and_only_its_port_reaches_it() {
        let url = postgres_url(3, 70_000);
        assert_eq!(
            url,
            "postgres://amnesia@client-3-gen-70000.pg.amnesia:5432/postgres"
        );
        let host = url
            .strip_prefix("postgres://amnesia@")
            .unwrap()
            .strip_suffix(":5432/postgres")
            .unwrap();
        assert_eq!(parse_host(host), Some((Service::Postgres, 3, 70_000)));
        let postgres = address_of(Service::Postgres, 3, 70_000, POSTGRES_PORT);
        assert_eq!(
            parse_address(postgres),
            Some((Service::Postgres, 3, 70_000))
        );
        // Each name only at its own port: no address is both servers'.
        let crossed = [
            address_of(Service::Postgres, 3, 1, REDIS_PORT),
            address_of(Service::Redis, 3, 1, POSTGRES_PORT),
        ];
        assert_eq!(crossed.map(parse_address), [None, None]);
        assert_ne!(
            address_of(Service::Redis, 3, 1, 0),
            address_of(Service::Postgres, 3, 1, 0)
        );
    }
}
