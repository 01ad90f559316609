//! Reviewed snapshots (insta) of a pinned set of runs, kept in `snapshots/`: reference
//! seeds chosen for what they exercise, and each catalogue variant's shrunk failing plan
//! (`snapshots/plans/<variant>/shrunk.json`). Each holds the plan summary, the operation timeline and the
//! verdict; its description names seed, scenario, store and engine. A behaviour change
//! shows as a difference a reviewer reads event by event (`cargo insta review`); in CI
//! (`CI=true`) any difference fails and nothing is written.

use amnesia::{assert_seed_snapshot, Builder, Store};
use std::path::{Path, PathBuf};

/// Reference seeds of the standard scenario (event engine), each for what it exercises.
const REFERENCE_SEEDS: &[(u64, &str)] = &[
    (
        4,
        "partition, reset, Redis pause, client crash, clock skew, error replies under \
         everysec; overlapping turns, retries, clears, deletes, memory updates and forgets",
    ),
    (
        7,
        "a Redis restart under everysec (expected loss); a canonical twin; shared users",
    ),
    (
        10,
        "a deploy and a Redis restart under always; shared users, edits",
    ),
    (14, "clogs and every network fault on a polite workload"),
    (
        25,
        "a deploy and a Redis restart without persistence; a Kelvin-sign twin; edits",
    ),
];

/// Every catalogue variant: the stores with a bug whose classes the registry states.
fn variants() -> impl Iterator<Item = &'static str> {
    amnesia::internal::store::STORE_NAMES
        .iter()
        .copied()
        .filter(|name| {
            !amnesia::internal::store::expected_classes(name)
                .unwrap_or_default()
                .is_empty()
        })
}

fn named(name: &str) -> Store {
    Store::named(name).expect("a known store")
}

fn plan_file(variant: &str) -> PathBuf {
    Path::new("snapshots/plans")
        .join(variant)
        .join("shrunk.json")
}

/// Snapshots live in the repository's `snapshots/`, not next to this file.
fn in_snapshots(test: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.bind(test);
}

#[test]
fn pinned_reference_seeds() {
    in_snapshots(|| {
        for &(seed, _why) in REFERENCE_SEEDS {
            assert_seed_snapshot!(Builder::new(), seed);
        }
    });
}

#[test]
fn every_variant_s_shrunk_failing_plan() {
    in_snapshots(|| {
        for variant in variants() {
            let builder = Builder::new().store(named(variant));
            let report = builder.replay(plan_file(variant)).expect("a pinned plan");
            assert!(
                !report.verdict.is_pass(),
                "{variant}: its pinned plan passes"
            );
            assert_seed_snapshot!(builder, plan plan_file(variant));
        }
    });
}

/// The content of a committed snapshot file: what follows insta's metadata header.
fn committed(name: &str) -> String {
    let path = Path::new("snapshots").join(format!("{name}.snap"));
    let file = std::fs::read_to_string(&path).expect("a committed snapshot");
    let body = file
        .splitn(3, "---\n")
        .nth(2)
        .expect("an insta header between two --- lines");
    body.to_string()
}

/// The review loop for real: the reference store with one behaviour changed (its append
/// acknowledges before Redis applied the write: `write-behind`) fails the pinned
/// snapshot, and the difference names the events that changed and the new verdict.
#[test]
fn a_behaviour_change_shows_as_a_difference_naming_the_changed_events() {
    let seed = REFERENCE_SEEDS[0].0;
    let name = format!("reference__seed-{seed}");
    let changed = Builder::new().store(named("write-behind")).snapshot(seed);
    // insta rejects it, against a copy of the pinned file (nothing is written beside the
    // committed snapshots).
    let scratch = std::env::temp_dir().join(format!("amnesia-review-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch dir");
    let pinned = Path::new("snapshots").join(format!("{name}.snap"));
    std::fs::copy(&pinned, scratch.join(format!("{name}.snap"))).expect("copied");
    let text = changed.text.clone();
    let rejected = std::panic::catch_unwind(|| {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(&scratch);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!(name.as_str(), text.as_str()));
    });
    std::fs::remove_dir_all(&scratch).ok();
    assert!(
        rejected.is_err(),
        "the changed behaviour matched the snapshot"
    );
    // What a reviewer reads: removed and inserted lines.
    let before = committed(&name);
    let diff = similar::TextDiff::from_lines(before.as_str(), changed.text.as_str());
    let (mut removed, mut inserted) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Delete => removed.push(change.value().trim_end().to_string()),
            similar::ChangeTag::Insert => inserted.push(change.value().trim_end().to_string()),
            similar::ChangeTag::Equal => {}
        }
    }
    assert!(removed.iter().any(|l| l == "verdict: PASS"), "{removed:?}");
    assert!(
        inserted.iter().any(|l| l.starts_with("verdict: FAIL")),
        "{inserted:?}"
    );
    // The timeline's changed events are named: an append acknowledged at another instant.
    let acked_append = |l: &&String| l.contains("] client-") && l.contains(" ok #");
    assert!(removed.iter().any(|l| acked_append(&l)), "{removed:?}");
    assert!(inserted.iter().any(|l| acked_append(&l)), "{inserted:?}");
    // The violation says which messages and operations prove it.
    assert!(
        inserted
            .iter()
            .any(|l| l.trim_start().starts_with("proven by ops: #")),
        "{inserted:?}"
    );
    // The plan is the same: the difference starts in the timeline, at the first event
    // the changed behaviour moved (later events move with it: a simulation is causal).
    let first = diff
        .iter_all_changes()
        .find(|c| c.tag() != similar::ChangeTag::Equal)
        .expect("a difference");
    assert!(first.value().starts_with('['), "{:?}", first.value());
    let summary_end = before.find("--- timeline ---").expect("a timeline");
    assert!(changed.text.starts_with(&before[..summary_end]));
}

#[test]
fn a_snapshot_is_stable_text() {
    let snapshot = Builder::new().snapshot(REFERENCE_SEEDS[1].0);
    assert_eq!(snapshot, Builder::new().snapshot(REFERENCE_SEEDS[1].0));
    assert!(
        snapshot
            .description
            .contains("seed 7, scenario standard, store reference, engine event"),
        "{}",
        snapshot.description
    );
    for unstable in ["/work", "/tmp", "127.0.0.1", "trace hash"] {
        assert!(!snapshot.text.contains(unstable), "{unstable}");
    }
}
