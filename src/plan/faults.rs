//! Faults: the per-seed fault mix (VOPR's swarm testing: each seed enables its own subset
//! of fault kinds at its own rates, so rare combinations get explored), the per-link
//! latency models, and the timed fault schedule.
//!
//! Adding a kind of the fault catalogue (clog, reset, redis crash, pause, client crash,
//! clock skew, error replies, silent drops) takes: a `FaultClass` variant with a new stream id, a
//! `FaultKind` variant, one generator function, and the match arms the compiler asks for.
//! Each class draws from its own seeded stream, so a new class changes no other class's
//! faults and no workload.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::prng::{between, chance, exponential, stream, Stream};
use super::scenario::{ScenarioConfig, FAULTS_MAX, LATENCY_US_MAX, PPM};

/// The direction of a client↔redis link a fault affects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Both ways at once.
    Both,
    /// Client to Redis: commands vanish, replies to earlier commands still arrive.
    ToRedis,
    /// Redis to client: commands are applied but their replies vanish (Unknown outcomes).
    FromRedis,
    /// Client to PostgreSQL: a PostgreSQL plan's [`Direction::ToRedis`].
    ToPostgres,
    /// PostgreSQL to client: a PostgreSQL plan's [`Direction::FromRedis`].
    FromPostgres,
}

impl Direction {
    /// Whether bytes towards the server are affected (both ways, or that way only).
    pub fn to_server(self) -> bool {
        !matches!(self, Direction::FromRedis | Direction::FromPostgres)
    }

    /// Whether bytes from the server are affected (both ways, or that way only).
    pub fn from_server(self) -> bool {
        !matches!(self, Direction::ToRedis | Direction::ToPostgres)
    }

    /// The same direction named for PostgreSQL's server.
    pub(crate) fn for_postgres(self) -> Direction {
        match self {
            Direction::ToRedis => Direction::ToPostgres,
            Direction::FromRedis => Direction::FromPostgres,
            other => other,
        }
    }
}

/// An error reply the Redis node answers to one command instead of running it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorReply {
    /// `OOM`: used memory is over `maxmemory`.
    Oom,
    /// `LOADING`: Redis is still loading its dataset.
    Loading,
    /// `READONLY`: the node is a read-only replica.
    Readonly,
    /// `BUSY`: a script is running.
    Busy,
}

impl ErrorReply {
    /// The exact error line Redis 7.0 sends.
    pub fn text(self) -> &'static str {
        match self {
            ErrorReply::Oom => "OOM command not allowed when used memory > 'maxmemory'.",
            ErrorReply::Loading => "LOADING Redis is loading the dataset in memory",
            ErrorReply::Readonly => "READONLY You can't write against a read only replica.",
            ErrorReply::Busy => {
                "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
            }
        }
    }
}

/// What goes wrong during a fault window. Instant faults (`reset`, `silent-drop`,
/// `error-reply`, `postgres-terminate-backend`) happen
/// at `at_ms`; their window only keeps other faults of the same lane away.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// The link between `client` and Redis loses bytes in `direction` for the window.
    /// TCP sends them again ([`super::Retransmission`]): they land with the first
    /// retransmission after the heal, and a connection whose bytes stay unacknowledged
    /// past the plan's budget is given up (reset at both ends).
    Partition {
        /// The client whose link it is.
        client: u32,
        /// Which way bytes are affected.
        direction: Direction,
    },
    /// The link holds bytes in `direction` for the window, then delivers them in a burst.
    Clog {
        /// The client whose link it is.
        client: u32,
        /// Which way bytes are affected.
        direction: Direction,
    },
    /// Every connection of `client` is reset (both ends closed) at `at_ms`.
    Reset {
        /// The client whose connections are reset.
        client: u32,
    },
    /// Every connection `client` has open at `at_ms` is black-holed for good, both ways,
    /// with no reset (a NAT or load balancer forgot the flow): only a timeout or a
    /// keepalive tells; new connections get through.
    SilentDrop {
        /// The client whose connections are dropped.
        client: u32,
    },
    /// The app client process dies: its in-flight requests and pending async writes are
    /// lost; it starts again, with empty memory, when the window ends.
    ClientCrash {
        /// The client process that crashes.
        client: u32,
    },
    /// The client host's wall clock reads `offset_ms` off for the window (a jump there
    /// and back, as an NTP correction would make).
    ClockSkew {
        /// The client whose host clock is skewed.
        client: u32,
        /// How far the clock reads off, in milliseconds; negative: behind.
        offset_ms: i64,
    },
    /// Redis crashes and restarts when the window ends, recovering what its persistence
    /// model keeps.
    RedisRestart,
    /// The Redis process is frozen for the window: nothing is read, answered or expired.
    RedisPause,
    /// Redis answers the next data command with this error instead of running it.
    ErrorReply {
        /// The error answered.
        error: ErrorReply,
    },
    /// A PostgreSQL plan's [`FaultKind::RedisRestart`]: the server crashes and restarts
    /// when the window ends, recovering what its WAL had flushed (crash recovery).
    PostgresRestart,
    /// A PostgreSQL plan's [`FaultKind::RedisPause`]: the postmaster and its backends
    /// are frozen for the window.
    PostgresPause,
    /// Every connection slot of PostgreSQL (`max_connections`) is taken by the rest of the
    /// fleet for the window: a new connection is refused at startup with FATAL 53300
    /// (`sorry, too many clients already`); open ones go on.
    PostgresTooManyClients,
    /// `pg_terminate_backend` of every backend serving `client` at `at_ms` (an
    /// administrator, a connection reaper): each ends with FATAL 57P01 before it reads
    /// its next message, its open transaction rolled back.
    PostgresTerminateBackend {
        /// The client whose backends are terminated.
        client: u32,
    },
    /// An administrator's migration takes ACCESS EXCLUSIVE locks on every table of the
    /// database at `at_ms` (waiting for their holders, its own `lock_timeout` the window)
    /// and holds them to the window's end: the stores' statements on them wait, or fail
    /// with 55P03 / 57014 where the store set `lock_timeout` / `statement_timeout`.
    PostgresLockTables,
}

/// What a fault occupies: faults of one lane never overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lane {
    /// One client's links and host.
    Client(u32),
    /// The Redis node.
    Redis,
}

impl FaultKind {
    /// The class this fault belongs to in the mix.
    pub fn class(&self) -> FaultClass {
        match self {
            FaultKind::Partition { .. } => FaultClass::Partition,
            FaultKind::Clog { .. } => FaultClass::Clog,
            FaultKind::Reset { .. } => FaultClass::Reset,
            FaultKind::SilentDrop { .. } => FaultClass::SilentDrop,
            FaultKind::ClientCrash { .. } => FaultClass::ClientCrash,
            FaultKind::ClockSkew { .. } => FaultClass::ClockSkew,
            FaultKind::RedisRestart => FaultClass::RedisRestart,
            FaultKind::RedisPause => FaultClass::RedisPause,
            FaultKind::ErrorReply { .. } => FaultClass::ErrorReply,
            FaultKind::PostgresRestart => FaultClass::PostgresRestart,
            FaultKind::PostgresPause => FaultClass::PostgresPause,
            FaultKind::PostgresTooManyClients => FaultClass::PostgresTooManyClients,
            FaultKind::PostgresTerminateBackend { .. } => FaultClass::PostgresTerminateBackend,
            FaultKind::PostgresLockTables => FaultClass::PostgresLockTables,
        }
    }

    /// The client whose link or host the fault hits, if it hits one.
    pub fn client(&self) -> Option<u32> {
        match self {
            FaultKind::Partition { client, .. }
            | FaultKind::Clog { client, .. }
            | FaultKind::Reset { client }
            | FaultKind::SilentDrop { client }
            | FaultKind::ClientCrash { client }
            | FaultKind::ClockSkew { client, .. }
            | FaultKind::PostgresTerminateBackend { client } => Some(*client),
            FaultKind::RedisRestart
            | FaultKind::RedisPause
            | FaultKind::ErrorReply { .. }
            | FaultKind::PostgresRestart
            | FaultKind::PostgresPause
            | FaultKind::PostgresTooManyClients
            | FaultKind::PostgresLockTables => None,
        }
    }

    /// The client the fault hits, to renumber it (shrinking drops clients).
    pub fn client_mut(&mut self) -> Option<&mut u32> {
        match self {
            FaultKind::Partition { client, .. }
            | FaultKind::Clog { client, .. }
            | FaultKind::Reset { client }
            | FaultKind::SilentDrop { client }
            | FaultKind::ClientCrash { client }
            | FaultKind::ClockSkew { client, .. }
            | FaultKind::PostgresTerminateBackend { client } => Some(client),
            // The server's faults ([`FaultKind::client`] names them all): no client.
            _ => None,
        }
    }

    /// The lane the fault occupies for its window.
    pub fn lane(&self) -> Lane {
        self.client().map_or(Lane::Redis, Lane::Client)
    }
}

/// One timed fault. It starts at `at_ms` and heals at `at_ms + duration_ms`, inside the
/// busy phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// When the fault starts, in virtual milliseconds since world start.
    pub at_ms: u64,
    /// How long its window lasts, in milliseconds.
    pub duration_ms: u64,
    /// What goes wrong.
    pub kind: FaultKind,
}

impl Fault {
    /// When the fault heals.
    pub fn end_ms(&self) -> u64 {
        self.at_ms + self.duration_ms
    }

    /// When its effects end under `tcp`: the heal, or for a partition the first
    /// retransmission after it of a segment sent at its start (or that connection's give-up).
    pub fn settled_ms(&self, tcp: &super::Retransmission) -> u64 {
        match self.kind {
            FaultKind::Partition { .. } => tcp.settled_ms(self.at_ms, self.end_ms()),
            _ => self.end_ms(),
        }
    }
}

/// A fault kind without its parameters: the unit the swarm enables or disables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultClass {
    /// `partition`: a link loses bytes; TCP retransmits them, or gives up.
    Partition,
    /// `clog`: a link holds bytes, then delivers them in a burst.
    Clog,
    /// `reset`: a client's connections are closed.
    Reset,
    /// `client-crash`: an app client process dies and restarts.
    ClientCrash,
    /// `clock-skew`: a client host's wall clock is off.
    ClockSkew,
    /// `redis-restart`: Redis crashes and recovers what its persistence keeps.
    RedisRestart,
    /// `redis-pause`: the Redis process is frozen.
    RedisPause,
    /// `error-reply`: Redis answers a command with an error.
    ErrorReply,
    /// `silent-drop`: a client's open connections are black-holed for good, unreset.
    SilentDrop,
    /// `postgres-restart`: PostgreSQL crashes and recovers what its WAL flushed (a
    /// PostgreSQL plan's `redis-restart`: drawn from its stream, named for the server).
    PostgresRestart,
    /// `postgres-pause`: the PostgreSQL server is frozen (a PostgreSQL plan's
    /// `redis-pause`).
    PostgresPause,
    /// `postgres-too-many-clients`: new connections are refused with 53300 (drawn for
    /// PostgreSQL plans only, from its own stream).
    PostgresTooManyClients,
    /// `postgres-terminate-backend`: a client's backends are terminated (57P01; drawn for
    /// PostgreSQL plans only, from its own stream).
    PostgresTerminateBackend,
    /// `postgres-lock-tables`: an administrator's migration holds ACCESS EXCLUSIVE locks
    /// on every table (drawn for PostgreSQL plans only, from its own stream).
    PostgresLockTables,
}

impl FaultClass {
    /// Every class, in summary order: the drawn ones ([`FaultClass::DRAWN`]), then the
    /// classes a PostgreSQL plan names them by.
    pub const ALL: [FaultClass; 14] = {
        let mut all = [FaultClass::PostgresRestart; 14];
        let mut i = 0;
        while i < FaultClass::DRAWN.len() {
            all[i] = FaultClass::DRAWN[i];
            i += 1;
        }
        all[9] = FaultClass::PostgresRestart;
        all[10] = FaultClass::PostgresPause;
        all[11] = FaultClass::PostgresTooManyClients;
        all[12] = FaultClass::PostgresTerminateBackend;
        all[13] = FaultClass::PostgresLockTables;
        all
    };

    /// The classes only a PostgreSQL plan draws, each from its own stream, after the
    /// seed's [`FaultClass::DRAWN`] (`Plan::for_backend`).
    pub const POSTGRES_DRAWN: [FaultClass; 3] = [
        FaultClass::PostgresTooManyClients,
        FaultClass::PostgresTerminateBackend,
        FaultClass::PostgresLockTables,
    ];

    /// The classes a seed draws, in schedule order, each from its own stream. A
    /// PostgreSQL plan renames the server's crash and pause and drops the error replies
    /// (`Plan::for_backend`), so its draws, and every Redis seed, stay as they were.
    pub const DRAWN: [FaultClass; 9] = [
        FaultClass::Partition,
        FaultClass::Clog,
        FaultClass::Reset,
        FaultClass::ClientCrash,
        FaultClass::ClockSkew,
        FaultClass::RedisRestart,
        FaultClass::RedisPause,
        FaultClass::ErrorReply,
        FaultClass::SilentDrop,
    ];

    /// The class's seeded stream. Never reuse or renumber: it would change old seeds.
    fn stream_id(self) -> u32 {
        match self {
            FaultClass::Partition => 1,
            FaultClass::Clog => 2,
            FaultClass::Reset => 3,
            FaultClass::ClientCrash => 4,
            FaultClass::ClockSkew => 5,
            FaultClass::RedisRestart => 6,
            FaultClass::RedisPause => 7,
            FaultClass::ErrorReply => 8,
            FaultClass::SilentDrop => 9,
            FaultClass::PostgresTooManyClients => 10,
            FaultClass::PostgresTerminateBackend => 11,
            FaultClass::PostgresLockTables => 12,
            // Never drawn: a PostgreSQL plan renames the faults stream 6 and 7 drew.
            FaultClass::PostgresRestart | FaultClass::PostgresPause => {
                unreachable!("{} is renamed, not drawn", self.name())
            }
        }
    }

    /// The name in plans and summaries.
    pub fn name(self) -> &'static str {
        match self {
            FaultClass::Partition => "partition",
            FaultClass::Clog => "clog",
            FaultClass::Reset => "reset",
            FaultClass::ClientCrash => "client-crash",
            FaultClass::ClockSkew => "clock-skew",
            FaultClass::RedisRestart => "redis-restart",
            FaultClass::RedisPause => "redis-pause",
            FaultClass::ErrorReply => "error-reply",
            FaultClass::SilentDrop => "silent-drop",
            FaultClass::PostgresRestart => "postgres-restart",
            FaultClass::PostgresPause => "postgres-pause",
            FaultClass::PostgresTooManyClients => "postgres-too-many-clients",
            FaultClass::PostgresTerminateBackend => "postgres-terminate-backend",
            FaultClass::PostgresLockTables => "postgres-lock-tables",
        }
    }

    /// Draws the parameters of one fault of this class.
    fn generate(self, rng: &mut impl Rng, context: &FaultContext) -> FaultKind {
        let client = rng.random_range(0..context.clients);
        match self {
            FaultClass::Partition => FaultKind::Partition {
                client,
                direction: direction(rng),
            },
            FaultClass::Clog => FaultKind::Clog {
                client,
                direction: direction(rng),
            },
            FaultClass::Reset => FaultKind::Reset { client },
            FaultClass::SilentDrop => FaultKind::SilentDrop { client },
            FaultClass::ClientCrash => FaultKind::ClientCrash { client },
            FaultClass::ClockSkew => {
                let magnitude_ms = between(rng, 100, CLOCK_SKEW_MS_MAX) as i64;
                let offset_ms = if rng.random_bool(0.5) {
                    magnitude_ms
                } else {
                    -magnitude_ms
                };
                FaultKind::ClockSkew { client, offset_ms }
            }
            FaultClass::RedisRestart => FaultKind::RedisRestart,
            FaultClass::RedisPause => FaultKind::RedisPause,
            FaultClass::PostgresRestart => FaultKind::PostgresRestart,
            FaultClass::PostgresPause => FaultKind::PostgresPause,
            FaultClass::PostgresTooManyClients => FaultKind::PostgresTooManyClients,
            FaultClass::PostgresTerminateBackend => FaultKind::PostgresTerminateBackend { client },
            FaultClass::PostgresLockTables => FaultKind::PostgresLockTables,
            FaultClass::ErrorReply => {
                let errors = [
                    ErrorReply::Oom,
                    ErrorReply::Loading,
                    ErrorReply::Readonly,
                    ErrorReply::Busy,
                ];
                FaultKind::ErrorReply {
                    error: errors[rng.random_range(0..errors.len())],
                }
            }
        }
    }
}

/// Largest clock skew of a host, either way.
pub const CLOCK_SKEW_MS_MAX: u64 = 30_000;

/// What a fault generator may target.
struct FaultContext {
    clients: u32,
}

/// Half symmetric, a quarter each one-way.
fn direction(rng: &mut impl Rng) -> Direction {
    match rng.random_range(0..4) {
        0 | 1 => Direction::Both,
        2 => Direction::ToRedis,
        _ => Direction::FromRedis,
    }
}

/// How often an enabled class strikes, and how long its windows last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassRate {
    /// The class this rate is for.
    pub class: FaultClass,
    /// Mean faults per minute of busy phase (exponential inter-arrival).
    pub per_minute: u32,
    /// Windows last uniformly between `duration_ms_min` and this.
    pub duration_ms_max: u64,
}

/// Fault rates a class is drawn with, per minute.
pub const PER_MINUTE_MIN: u32 = 1;
pub const PER_MINUTE_MAX: u32 = 12;
/// Fault windows, in milliseconds.
pub const FAULT_DURATION_MS_MIN: u64 = 100;
pub const FAULT_DURATION_MS_MAX: u64 = 5_000;

/// Which latency features the seed's links have.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyMix {
    /// Uniform jitter on top of the base latency.
    pub jitter: bool,
    /// An exponential tail: rare slow chunks.
    pub tail: bool,
}

/// The swarm: which fault kinds this seed enables and at which rates. Printed at the head
/// of the plan so a failing seed says what it was exposed to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultMix {
    /// Which latency features the links have.
    pub latency: LatencyMix,
    /// Enabled classes only, in `FaultClass::ALL` order.
    pub classes: Vec<ClassRate>,
}

impl FaultMix {
    /// The rate of `class`, if the seed enables it.
    pub fn rate(&self, class: FaultClass) -> Option<&ClassRate> {
        self.classes.iter().find(|rate| rate.class == class)
    }

    /// One line: `latency jitter+tail, partition 6/min <=3000 ms`.
    pub fn describe(&self) -> String {
        let mut latency = vec!["base"];
        if self.latency.jitter {
            latency.push("jitter");
        }
        if self.latency.tail {
            latency.push("tail");
        }
        let mut parts = vec![format!("latency {}", latency.join("+"))];
        for rate in &self.classes {
            parts.push(format!(
                "{} {}/min <={} ms",
                rate.class.name(),
                rate.per_minute,
                rate.duration_ms_max
            ));
        }
        if self.classes.is_empty() {
            parts.push("no fault windows".to_string());
        }
        parts.join(", ")
    }
}

/// An exponential latency tail: with `probability_ppm`, a chunk is delayed by an extra
/// exponential sample of mean `mean_us`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpTail {
    /// Chance that a chunk is delayed, in parts per million.
    pub probability_ppm: u32,
    /// Mean of the extra exponential delay, in microseconds.
    pub mean_us: u64,
}

/// One-way latency of one client↔redis link, applied per chunk in both directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyModel {
    /// Fixed one-way latency of every chunk, in microseconds.
    pub base_us: u64,
    /// Uniform extra in `0..=jitter_us`.
    pub jitter_us: u64,
    /// An exponential tail of rare slow chunks; `None`: no tail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<ExpTail>,
}

impl LatencyModel {
    /// The latency of a link with no swarm: fast and fixed.
    pub const CALM: LatencyModel = LatencyModel {
        base_us: 200,
        jitter_us: 0,
        tail: None,
    };

    /// One chunk's latency. Every engine and the real tier's proxy sample through this,
    /// so a plan means the same delays everywhere.
    pub fn sample_us(&self, rng: &mut impl Rng) -> u64 {
        let mut latency_us = self.base_us + between(rng, 0, self.jitter_us);
        if let Some(tail) = self.tail {
            if chance(rng, tail.probability_ppm) {
                latency_us += exponential(rng, tail.mean_us, LATENCY_US_MAX);
            }
        }
        latency_us.min(LATENCY_US_MAX)
    }

    /// Checks the model against the limits; the error is one line.
    pub fn validate(&self) -> Result<(), String> {
        if self.base_us.saturating_add(self.jitter_us) > LATENCY_US_MAX {
            return Err(format!(
                "base_us {} + jitter_us {} exceeds {LATENCY_US_MAX}",
                self.base_us, self.jitter_us
            ));
        }
        if let Some(tail) = self.tail {
            if tail.probability_ppm > PPM {
                return Err(format!(
                    "tail probability_ppm {} exceeds {PPM}",
                    tail.probability_ppm
                ));
            }
            if tail.mean_us > LATENCY_US_MAX {
                return Err(format!(
                    "tail mean_us {} exceeds {LATENCY_US_MAX}",
                    tail.mean_us
                ));
            }
        }
        Ok(())
    }
}

/// Draws the latency half of the mix and one model per client link.
pub(crate) fn generate_latency(
    seed: u64,
    scenario: &ScenarioConfig,
) -> (LatencyMix, Vec<LatencyModel>) {
    let mut rng = stream(seed, Stream::Latency);
    if !scenario.swarm {
        let mix = LatencyMix {
            jitter: false,
            tail: false,
        };
        return (mix, vec![LatencyModel::CALM; scenario.clients as usize]);
    }
    let mix = LatencyMix {
        jitter: chance(&mut rng, PPM / 2),
        tail: chance(&mut rng, PPM / 2),
    };
    let links = (0..scenario.clients)
        .map(|_| {
            let base_us = between(&mut rng, 50, 2_000);
            let jitter_us = if mix.jitter {
                between(&mut rng, 0, 5_000)
            } else {
                0
            };
            let tail = mix.tail.then(|| ExpTail {
                probability_ppm: between(&mut rng, 1_000, 50_000) as u32,
                mean_us: between(&mut rng, 2_000, 100_000),
            });
            LatencyModel {
                base_us,
                jitter_us,
                tail,
            }
        })
        .collect();
    (mix, links)
}

/// Draws the mix's classes and the fault schedule of the busy phase `0..duration_ms`.
/// Windows of one class never overlap on one lane (a client, or Redis); every window ends
/// by `duration_ms`.
pub(crate) fn generate_faults(
    seed: u64,
    scenario: &ScenarioConfig,
    duration_ms: u64,
) -> (Vec<ClassRate>, Vec<Fault>) {
    generate_classes(&FaultClass::DRAWN, seed, scenario, duration_ms)
}

/// [`generate_faults`] of `classes` only, each from its own stream.
pub(crate) fn generate_classes(
    classes: &[FaultClass],
    seed: u64,
    scenario: &ScenarioConfig,
    duration_ms: u64,
) -> (Vec<ClassRate>, Vec<Fault>) {
    let context = FaultContext {
        clients: scenario.clients,
    };
    let mut rates = Vec::new();
    let mut faults = Vec::new();
    for &class in classes {
        let mut rng = stream(
            seed,
            Stream::Fault {
                stream_id: class.stream_id(),
            },
        );
        if !scenario.swarm || !chance(&mut rng, PPM / 2) {
            continue;
        }
        let rate = ClassRate {
            class,
            per_minute: rng.random_range(PER_MINUTE_MIN..=PER_MINUTE_MAX),
            duration_ms_max: between(&mut rng, FAULT_DURATION_MS_MIN, FAULT_DURATION_MS_MAX),
        };
        schedule(&mut rng, &rate, &context, duration_ms, &mut faults);
        rates.push(rate);
    }
    // Stable: faults at the same instant keep class order.
    faults.sort_by_key(|fault| fault.at_ms);
    for fault in &faults {
        assert!(fault.duration_ms > 0 && fault.end_ms() <= duration_ms);
    }
    (rates, faults)
}

/// One class's windows over the busy phase, at `rate`, none overlapping on a lane.
fn schedule(
    rng: &mut impl Rng,
    rate: &ClassRate,
    context: &FaultContext,
    duration_ms: u64,
    faults: &mut Vec<Fault>,
) {
    let gap_mean_ms = 60_000 / u64::from(rate.per_minute);
    // Per lane: when its current window heals.
    let mut busy_until_ms: std::collections::BTreeMap<Lane, u64> =
        std::collections::BTreeMap::new();
    let mut at_ms = 0;
    loop {
        at_ms += 1 + exponential(rng, gap_mean_ms, duration_ms);
        if at_ms >= duration_ms || faults.len() >= FAULTS_MAX {
            break;
        }
        let window_ms =
            between(rng, FAULT_DURATION_MS_MIN, rate.duration_ms_max).min(duration_ms - at_ms);
        let kind = rate.class.generate(rng, context);
        let until_ms = busy_until_ms.entry(kind.lane()).or_insert(0);
        if *until_ms > at_ms {
            continue;
        }
        *until_ms = at_ms + window_ms;
        faults.push(Fault {
            at_ms,
            duration_ms: window_ms,
            kind,
        });
    }
}

/// The Redis node's persistence model: one of the three, uniformly, under swarm; none
/// otherwise. Its own stream, so it moves nothing else.
pub(crate) fn generate_persistence(
    seed: u64,
    scenario: &ScenarioConfig,
) -> crate::domain::Persistence {
    use crate::domain::Persistence;
    const PERSISTENCE_STREAM_ID: u32 = 100;
    if !scenario.swarm {
        return Persistence::None;
    }
    let mut rng = stream(
        seed,
        Stream::Fault {
            stream_id: PERSISTENCE_STREAM_ID,
        },
    );
    [
        Persistence::None,
        Persistence::AofEverysec,
        Persistence::AofAlways,
    ][rng.random_range(0..3)]
}
