//! A plan's fault vocabulary per backend. Seeds are drawn without knowing the store (one
//! seed, one workload and one fault schedule whatever runs it); the store's backend then
//! names the faults as its server has them. A PostgreSQL plan's server crash and pause are
//! PostgreSQL's (`postgres-restart`, `postgres-pause`, directions `to-postgres` and
//! `from-postgres`), and it has no Redis error replies (PostgreSQL answers none of them).
//! A Redis plan, and the Redis-then-pgvector migration's (whose faults strike its Redis
//! node), keep Redis's names: every Redis seed stays byte for byte what it was. A
//! PostgreSQL plan also draws PostgreSQL's own faults (`FaultClass::POSTGRES_DRAWN`: all
//! connection slots taken, 53300; a client's backends terminated, 57P01; every table
//! locked by an administrator's migration, where a store's `lock_timeout` gives 55P03),
//! each from a stream of its own.

use super::faults::{ClassRate, Direction, FaultClass, FaultKind};
use super::Plan;
use crate::domain::{Backend, Persistence};

impl Plan {
    /// This plan with the servers of `backend`, its faults named as that server has them.
    /// Idempotent; a Redis plan for a Redis store is returned unchanged.
    ///
    /// ```
    /// use amnesia::{Backend, Plan, ScenarioConfig};
    /// let redis = Plan::generate(8, &ScenarioConfig::replay());
    /// let postgres = redis.clone().for_backend(Backend::Pgvector);
    /// assert_eq!(postgres.backend, Backend::Pgvector);
    /// let names: Vec<_> = postgres.mix.classes.iter().map(|rate| rate.class.name()).collect();
    /// assert!(names.iter().all(|name| !name.contains("redis") && *name != "error-reply"));
    /// assert_eq!(postgres.clone().for_backend(Backend::Pgvector), postgres);
    /// assert_eq!(redis.clone().for_backend(Backend::Redis), redis);
    /// ```
    pub fn for_backend(mut self, backend: Backend) -> Plan {
        let drawn = self.backend == Backend::Pgvector;
        self.backend = backend;
        if backend != Backend::Pgvector {
            return self;
        }
        if !drawn {
            self.draw_postgres_faults();
        }
        // PostgreSQL answers no Redis error reply: such a fault could only be skipped.
        self.mix
            .classes
            .retain(|rate| rate.class != FaultClass::ErrorReply);
        self.faults
            .retain(|fault| !matches!(fault.kind, FaultKind::ErrorReply { .. }));
        self.mix.classes.iter_mut().for_each(rename_rate);
        self.faults
            .iter_mut()
            .for_each(|fault| rename_kind(&mut fault.kind));
        // Redis's persistence means nothing to PostgreSQL: its WAL decides what a crash
        // keeps, and the store's `synchronous_commit` what it acknowledges.
        self.persistence = Persistence::None;
        self
    }
}

impl Plan {
    /// PostgreSQL's own fault classes, each from its own stream of the seed, merged into
    /// the mix (in `FaultClass::ALL` order) and the schedule (by time). Once: a plan
    /// already PostgreSQL's keeps its faults (shrinking removes some).
    fn draw_postgres_faults(&mut self) {
        let (rates, faults) = super::faults::generate_classes(
            &FaultClass::POSTGRES_DRAWN,
            self.seed,
            &self.scenario,
            self.duration_ms,
        );
        let room = super::scenario::FAULTS_MAX.saturating_sub(self.faults.len());
        self.mix.classes.extend(rates);
        self.mix
            .classes
            .sort_by_key(|rate| FaultClass::ALL.iter().position(|c| *c == rate.class));
        self.faults.extend(faults.into_iter().take(room));
        // Stable: the seed's faults keep their order among those of one instant.
        self.faults.sort_by_key(|fault| fault.at_ms);
    }
}

fn rename_rate(rate: &mut ClassRate) {
    rate.class = match rate.class {
        FaultClass::RedisRestart => FaultClass::PostgresRestart,
        FaultClass::RedisPause => FaultClass::PostgresPause,
        other => other,
    };
}

fn rename_kind(kind: &mut FaultKind) {
    *kind = match kind.clone() {
        FaultKind::RedisRestart => FaultKind::PostgresRestart,
        FaultKind::RedisPause => FaultKind::PostgresPause,
        FaultKind::Partition { client, direction } => FaultKind::Partition {
            client,
            direction: direction.for_postgres(),
        },
        FaultKind::Clog { client, direction } => FaultKind::Clog {
            client,
            direction: direction.for_postgres(),
        },
        other => other,
    };
    debug_assert!(!matches!(kind, FaultKind::ErrorReply { .. }));
}

/// Whether `kind` names the server of a plan on `backend`: PostgreSQL's names only in a
/// PostgreSQL plan (a Redis plan's faults strike a Redis node).
pub(crate) fn kind_fits(kind: &FaultKind, backend: Backend) -> bool {
    let postgres = |direction: &Direction| {
        matches!(direction, Direction::ToPostgres | Direction::FromPostgres)
    };
    let names_postgres = match kind {
        FaultKind::PostgresRestart
        | FaultKind::PostgresPause
        | FaultKind::PostgresTooManyClients
        | FaultKind::PostgresTerminateBackend { .. }
        | FaultKind::PostgresLockTables => true,
        FaultKind::Partition { direction, .. } | FaultKind::Clog { direction, .. } => {
            postgres(direction)
        }
        _ => false,
    };
    !names_postgres || backend == Backend::Pgvector
}
