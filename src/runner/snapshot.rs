//! Reviewed snapshots: one run as the stable text a reviewer reads in a diff (the plan
//! summary, the operation timeline, the verdict), with a description naming what
//! produced it. [`crate::assert_seed_snapshot!`] hands it to `insta` in the caller's crate.
//!
//! The text holds nothing that varies between runs or machines: virtual time only, no
//! wall clock, no paths, no ports, no hash-map order, and no log events (`RUST_LOG` must
//! not change a snapshot). The trace hash is left out: it changes with any event, and the
//! timeline already shows which.

use super::run::{replay_command, RunReport};
use super::text::{timeline_of, verdict_text};
use crate::runner::store::Store;
use crate::trace::TimelineKind;
use std::path::Path;

/// One run, ready for a snapshot assertion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The snapshot's name: store and seed (`reference__seed-3`), or store and plan file.
    pub name: String,
    /// What produced it: seed, scenario, store, engine, and how to replay it.
    pub description: String,
    /// The reviewed text: plan summary, operation timeline, verdict.
    pub text: String,
}

impl Snapshot {
    /// The snapshot of `report`, a run of `store`; `plan_file` is the file a replayed
    /// run came from (its stem names the snapshot instead of the seed).
    pub fn of(report: &RunReport, store: &Store, plan_file: Option<&Path>) -> Snapshot {
        let plan = &report.plan;
        let scenario = &plan.scenario.name;
        let label = store.label();
        let built_in = replay_command(plan.seed, &plan.scenario, store, report.engine);
        let (name, replay) = match plan_file {
            Some(path) => {
                let stem = path
                    .file_stem()
                    .map_or("plan".into(), |s| s.to_string_lossy());
                let replay = match built_in {
                    Some(_) => format!(
                        "amnesia replay --plan {} --store {label} --engine {}",
                        path.display(),
                        report.engine.name()
                    ),
                    None => format!("Builder::replay({:?}) with this store", path.display()),
                };
                (format!("{label}__{stem}"), replay)
            }
            None => {
                let name = if scenario == "standard" {
                    format!("{label}__seed-{}", plan.seed)
                } else {
                    format!("{label}__{scenario}-seed-{}", plan.seed)
                };
                let replay = built_in
                    .unwrap_or_else(|| format!("Builder::run({}) with this store", plan.seed));
                (name, replay)
            }
        };
        let description = format!(
            "seed {seed}, scenario {scenario}, store {label}, engine {engine}; replay: {replay}",
            seed = plan.seed,
            engine = report.engine.name(),
        );
        let text = format!(
            "{summary}\n--- timeline ---\n{timeline}--- verdict ---\n{verdict}\n",
            summary = plan.summary(),
            timeline = timeline_of(&report.trace, &report.history, TimelineKind::Review),
            verdict = verdict_text(&report.verdict).trim_end(),
        );
        Snapshot {
            name,
            description,
            text,
        }
    }
}

/// Assert that one seed of a [`Builder`](crate::Builder) (or a saved plan) still runs as
/// its reviewed snapshot says, with [insta](https://insta.rs) in the calling crate (add
/// `insta` to your dev-dependencies). The snapshot is named after store and seed, and its
/// description says which seed, scenario, store and engine produced it. Review changes
/// with `cargo insta review`; in CI (`CI=true`) a difference fails and nothing is written.
///
/// ```no_run
/// // In a #[test] of your crate, with your own store in place of the reference.
/// let builder = amnesia::Builder::new().store(amnesia::Store::named("reference").unwrap());
/// amnesia::assert_seed_snapshot!(builder, 3); // one pinned seed
/// amnesia::assert_seed_snapshot!(builder, [3, 17, 42]); // a pinned-seed list
/// amnesia::assert_seed_snapshot!(builder, plan "tests/plans/race.json"); // a saved plan
/// ```
#[macro_export]
macro_rules! assert_seed_snapshot {
    ($builder:expr, [$($seed:expr),+ $(,)?]) => {{
        $( $crate::assert_seed_snapshot!($builder, $seed); )+
    }};
    ($builder:expr, plan $file:expr) => {{
        let snapshot = $builder
            .snapshot_plan($file)
            .unwrap_or_else(|error| panic!("{error}"));
        $crate::__assert_snapshot!(snapshot);
    }};
    ($builder:expr, $seed:expr) => {{
        let snapshot = $builder.snapshot($seed);
        $crate::__assert_snapshot!(snapshot);
    }};
}

/// The insta call of [`assert_seed_snapshot!`], expanded in the caller's crate.
#[doc(hidden)]
#[macro_export]
macro_rules! __assert_snapshot {
    ($snapshot:expr) => {{
        let snapshot: $crate::internal::runner::snapshot::Snapshot = $snapshot;
        let mut settings = ::insta::Settings::clone_current();
        settings.set_description(snapshot.description.clone());
        settings.set_omit_expression(true);
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| {
            ::insta::assert_snapshot!(snapshot.name.as_str(), snapshot.text.as_str());
        });
    }};
}
