//! What the front door refuses before it runs anything: a scenario outside its limits, or
//! a store whose backend the simulator does not serve. [`Builder::validate`] and the
//! `try_` entry points return the refusal as a value; the panicking entry points panic
//! with the same one line, at the caller's call, never deep inside a run.

use super::Builder;
use crate::contract::Backend;

/// Why a [`Builder`](super::Builder) cannot run as configured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The scenario breaks one of its limits (the message names it).
    #[error("invalid scenario: {0}")]
    Scenario(String),
    /// The store needs a backend this build or engine does not simulate: PostgreSQL +
    /// pgvector needs the `pg` feature and the event engine or the madsim engine.
    #[error("store '{store}' needs the {backend} backend, which {why}", backend = backend.name())]
    Backend {
        /// The store's label.
        store: String,
        /// The backend it declared.
        backend: Backend,
        /// Why it cannot run here.
        why: &'static str,
    },
    /// The store's factory takes an input its backend's runs do not have: a
    /// [`PgContext`](crate::PgContext) on a backend without PostgreSQL.
    #[error("store '{store}' cannot run: {why}")]
    Input {
        /// The store's label.
        store: String,
        /// What is missing, and what to change (one line).
        why: String,
    },
}

impl Builder {
    /// Checks that this builder can run: the scenario within its limits, the store's
    /// backend one the simulator serves, and one its factory's input can be built in.
    ///
    /// ```
    /// use amnesia::{Builder, BuildError, ScenarioConfig};
    ///
    /// assert_eq!(Builder::new().validate(), Ok(()));
    /// // A store on PostgreSQL + pgvector (its factory takes a `PgContext`) validates when amnesia's
    /// // `pg` feature is on; without it, the refusal is `BuildError::Backend`.
    /// let empty = ScenarioConfig { tenants: 0, ..ScenarioConfig::standard() };
    /// assert!(matches!(Builder::new().scenario(empty).validate(), Err(BuildError::Scenario(_))));
    /// ```
    pub fn validate(&self) -> Result<(), BuildError> {
        self.scenario_config()
            .validate()
            .map_err(BuildError::Scenario)?;
        let backend = self.store.backend();
        if let Some(why) = self.store.input_refusal() {
            return Err(BuildError::Input {
                store: self.store.label().to_string(),
                why,
            });
        }
        if backend == Backend::Redis || (cfg!(feature = "pg") && self.engine.hosts_postgres()) {
            return Ok(());
        }
        let why = match cfg!(feature = "pg") {
            false => "this build does not simulate (amnesia's `pg` feature)",
            true => "only the event engine and the madsim engine simulate (--engine event)",
        };
        Err(BuildError::Backend {
            store: self.store.label().to_string(),
            backend,
            why,
        })
    }

    /// [`Builder::run`], refusing an invalid configuration with an error value.
    ///
    /// ```
    /// use amnesia::{Builder, ScenarioConfig};
    /// let empty = ScenarioConfig { tenants: 0, ..ScenarioConfig::standard() };
    /// let builder = Builder::new().scenario(empty);
    /// assert!(builder.try_run(1).unwrap_err().to_string().starts_with("invalid scenario"));
    /// ```
    pub fn try_run(&self, seed: u64) -> Result<crate::RunReport, BuildError> {
        self.validate()?;
        Ok(self.run(seed))
    }

    /// [`Builder::sweep`], refusing an invalid configuration with an error value.
    ///
    /// ```
    /// let report = amnesia::Builder::new().seeds(0..2).jobs(1).try_sweep().unwrap();
    /// assert!(report.is_pass());
    /// ```
    pub fn try_sweep(&self) -> Result<crate::SweepReport, BuildError> {
        self.validate()?;
        Ok(self.sweep())
    }

    /// Panics with the refusal's one line, at the caller's call (`#[track_caller]`).
    #[track_caller]
    pub(crate) fn valid(&self) {
        if let Err(error) = self.validate() {
            panic!("amnesia: {error}");
        }
    }
}
