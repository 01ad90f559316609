//! Replaying a corpus before a sweep: every entry of the run's store regenerated from its
//! seed, scenario and engine and run as a sweep runs a seed (guarded, with its replay line), in the file's
//! order; an entry this run cannot regenerate is skipped with a note, never an error.

use super::file::{plan_hash, Corpus, Entry};
use crate::plan::{Plan, ScenarioConfig};
use crate::runner::run::EngineKind;
use crate::runner::sweep::{run_plan_checked, SeedResult, SweepConfig};
use crate::runner::text::seed_result_text;

/// Which entries a run can regenerate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Only the run's own scenario and engine (a test: its replay line reruns the test,
    /// which knows no other).
    RunOnly,
    /// Also the scenarios the binary knows by name and every engine it has (the
    /// `amnesia` command line: one file per store, whatever scenario found the seed).
    BuiltIn,
}

/// What replaying a corpus found.
#[derive(Debug, Default)]
pub struct Replayed {
    /// One result per entry replayed, in the file's order.
    pub results: Vec<SeedResult>,
    /// One line per entry skipped or whose plan changed since it was written.
    pub notes: Vec<String>,
}

impl Replayed {
    /// Every replayed entry passed.
    pub fn is_pass(&self) -> bool {
        self.results.iter().all(SeedResult::is_pass)
    }

    /// The failure text: how many entries failed again, then each with its violations
    /// and replay line (as a failing sweep shows a seed).
    pub fn failure_text(&self, corpus: &Corpus, violations_max: usize) -> String {
        let failing: Vec<&SeedResult> = self.results.iter().filter(|r| !r.is_pass()).collect();
        let mut text = format!(
            "amnesia: {} of {} regression entries failed again ({}); the seed range was not run",
            failing.len(),
            self.results.len(),
            corpus.path.display()
        );
        for result in failing {
            text.push('\n');
            text.push_str(&seed_result_text(result, violations_max));
        }
        text
    }
}

/// Replay every entry of `corpus` that `reach` lets this run regenerate, with `config`'s
/// store, guard and replay wording.
pub fn replay(corpus: &Corpus, config: &SweepConfig, reach: Reach) -> Replayed {
    let mut replayed = Replayed::default();
    for entry in &corpus.entries {
        let Some(entry_config) = entry_config(entry, config, reach) else {
            replayed.notes.push(format!(
                "regression entry `seed={} store={} scenario={} engine={}` skipped: this run has \
                 store {}, scenario {} and engine {}",
                entry.seed,
                entry.store,
                entry.scenario,
                entry.engine,
                config.store.label(),
                config.scenario.name,
                config.engine.name()
            ));
            continue;
        };
        let plan = Plan::generate(entry.seed, &entry_config.scenario);
        if plan_hash(&plan) != entry.plan_hash {
            replayed.notes.push(format!(
                "regression entry `seed={}` now generates another plan than when it was written \
                 (the scenario's knobs or amnesia's generator changed): replayed as it is now",
                entry.seed
            ));
        }
        let line = entry_config.replay.command(entry.seed, &entry_config);
        replayed
            .results
            .push(run_plan_checked(plan, line, &entry_config));
    }
    replayed
}

/// The sweep configuration that regenerates `entry`, if this run can.
fn entry_config(entry: &Entry, config: &SweepConfig, reach: Reach) -> Option<SweepConfig> {
    if entry.store != config.store.label() {
        return None;
    }
    let scenario = if entry.scenario == config.scenario.name {
        config.scenario.clone()
    } else if reach == Reach::BuiltIn {
        ScenarioConfig::named(&entry.scenario)?
    } else {
        return None;
    };
    let engine = match reach {
        Reach::BuiltIn => EngineKind::parse(&entry.engine).ok()?,
        Reach::RunOnly => Some(config.engine).filter(|e| e.name() == entry.engine)?,
    };
    Some(SweepConfig {
        scenario,
        engine,
        ..config.clone()
    })
}
