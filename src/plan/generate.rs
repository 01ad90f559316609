//! seed → Plan. Each concern draws from its own ChaCha stream of the seed (see `prng`),
//! so the workload of a seed does not move when the fault catalogue grows.

use super::faults::{generate_faults, generate_latency, generate_persistence, FaultMix};
use super::prng::{stream, Stream};
use super::scenario::ScenarioConfig;
use super::workload;
use super::{Plan, PLAN_VERSION};

impl Plan {
    /// The plan of `seed` under `scenario`: a pure function of both. Panics on a scenario
    /// outside the limits ([`Plan::try_generate`] returns the error instead).
    ///
    /// ```
    /// use amnesia::{Plan, ScenarioConfig};
    /// let plan = Plan::generate(7, &ScenarioConfig::standard());
    /// assert_eq!(plan, Plan::generate(7, &ScenarioConfig::standard()));
    /// // A plan file replays without the seed: it round-trips through JSON.
    /// assert_eq!(Plan::from_json(&plan.to_json_pretty()).unwrap(), plan);
    /// ```
    #[track_caller]
    pub fn generate(seed: u64, scenario: &ScenarioConfig) -> Plan {
        match Plan::try_generate(seed, scenario) {
            Ok(plan) => plan,
            Err(error) => panic!("invalid scenario: {error}"),
        }
    }

    /// [`Plan::generate`], refusing a scenario outside the limits with its one-line error.
    ///
    /// ```
    /// use amnesia::{Plan, ScenarioConfig};
    /// let empty = ScenarioConfig { tenants: 0, ..ScenarioConfig::standard() };
    /// assert!(Plan::try_generate(7, &empty).unwrap_err().contains("tenants"));
    /// ```
    pub fn try_generate(seed: u64, scenario: &ScenarioConfig) -> Result<Plan, String> {
        scenario.validate()?;
        Ok(Plan::generate_valid(seed, scenario))
    }

    fn generate_valid(seed: u64, scenario: &ScenarioConfig) -> Plan {
        let mut workload_rng = stream(seed, Stream::Workload);
        let mut content_rng = stream(seed, Stream::Content);
        let mut workload = workload::generate(&mut workload_rng, &mut content_rng, scenario);
        workload::collide_names(&mut stream(seed, Stream::Names), scenario, &mut workload);
        super::twins::rename_twins(&mut stream(seed, Stream::Twins), &mut workload);
        super::users::share_users(&mut stream(seed, Stream::Users), &mut workload);
        super::memory::mix_into(seed, &mut workload.turns);
        super::edits::edit(&mut stream(seed, Stream::Edits), &mut workload.turns);
        let overlap_rng = &mut stream(seed, Stream::Overlap);
        super::overlap::overlap(overlap_rng, scenario, &mut workload.turns);
        let corpus = super::corpus::generate(seed, scenario, &mut workload.turns);
        let (latency, links) = generate_latency(seed, scenario);
        let (classes, faults) = generate_faults(seed, scenario, scenario.duration_ms);
        let persistence = generate_persistence(seed, scenario);
        let tcp = super::tcp::generate_retransmission(seed, scenario);
        let (deploy_at_ms, migration_reset_ms) = generate_deploy(seed, scenario);
        let plan = Plan {
            version: PLAN_VERSION,
            seed,
            mix: FaultMix { latency, classes },
            clients: scenario.clients,
            sessions: workload.sessions,
            session_ttl_ms: workload.session_ttl_ms,
            duration_ms: scenario.duration_ms,
            quiet_ms: scenario.quiet_ms,
            links,
            deploy_at_ms,
            migration_reset_ms,
            persistence,
            pressure: super::pressure::generate(seed, scenario),
            tcp,
            backend: crate::domain::Backend::Redis,
            corpus,
            turns: workload.turns,
            faults,
            scenario: scenario.clone(),
        };
        if let Err(error) = plan.validate() {
            panic!("generated plan of seed {seed} is invalid: {error}");
        }
        plan
    }
}

/// Share of seeds with a key-scheme deploy, in parts per million (under swarm).
pub const DEPLOY_PPM: u32 = 300_000;

/// A deploy in the middle half of the busy phase, for some seeds; its own stream.
/// A migration scenario deploys every seed, and resets the migrating client's
/// connections within this long after its job starts.
pub const MIGRATION_RESET_MS_MAX: u64 = 120;

fn generate_deploy(seed: u64, scenario: &ScenarioConfig) -> (Option<u64>, Option<u64>) {
    use super::prng::{between, chance};
    let mut rng = stream(seed, Stream::Deploy);
    let deploys = scenario.migration || (scenario.swarm && chance(&mut rng, DEPLOY_PPM));
    if !deploys {
        return (None, None);
    }
    let at_ms = between(
        &mut rng,
        scenario.duration_ms / 4,
        scenario.duration_ms * 3 / 4,
    );
    let reset_ms = scenario
        .migration
        .then(|| between(&mut rng, 1, MIGRATION_RESET_MS_MAX));
    (Some(at_ms), reset_ms)
}
