//! [`Builder::check`](super::Builder::check)'s regression corpus: where the file lives
//! (beside the tested crate's `Cargo.toml` unless told otherwise), its replay before the
//! seed range, and what a failing range adds to it.

use crate::runner::regressions::DIR_DEFAULT;
use crate::runner::regressions::{entries_of, replay, Corpus, Reach};
use crate::runner::report::SweepReport;
use crate::runner::sweep::SweepConfig;
use std::io::Write as _;
use std::path::PathBuf;

/// Where a check keeps its corpus, or that it keeps none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Regressions {
    /// `amnesia-regressions/` in the tested crate (`CARGO_MANIFEST_DIR`, which cargo sets
    /// when it runs a test), else in the working directory: proptest's convention, so the
    /// file sits in the repository beside the test that found the seeds.
    #[default]
    BesideCrate,
    /// In this directory.
    In(PathBuf),
    /// Neither read nor written.
    Off,
}

impl Regressions {
    /// The directory of this check's corpus: `None` when it keeps none, and when
    /// `AMNESIA_SEED` asks for one seed alone (a replay line must run that seed, not the
    /// corpus first, and replaying adds nothing to it).
    pub(super) fn dir(&self, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
        if env("AMNESIA_SEED").is_some_and(|v| !v.trim().is_empty()) {
            return None;
        }
        match self {
            Regressions::Off => None,
            Regressions::In(dir) => Some(dir.clone()),
            Regressions::BesideCrate => Some(
                env("CARGO_MANIFEST_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_default()
                    .join(DIR_DEFAULT),
            ),
        }
    }
}

/// Load the corpus and replay it: a corrupt file or an entry that fails again panics
/// with one line or the entries' replay lines.
#[track_caller]
pub(super) fn replay_first(
    dir: PathBuf,
    owner: &str,
    config: &SweepConfig,
    violations_max: usize,
) -> Corpus {
    let corpus = Corpus::load(&dir, owner).unwrap_or_else(|e| panic!("amnesia: {e}"));
    let replayed = replay(&corpus, config, Reach::RunOnly);
    let mut stderr = std::io::stderr().lock();
    for note in &replayed.notes {
        let _ = writeln!(stderr, "amnesia: {note}");
    }
    if !replayed.is_pass() {
        panic!(
            "{}\n(the corpus: {}; Builder::no_regressions skips it)",
            replayed.failure_text(&corpus, violations_max),
            corpus.path.display()
        );
    }
    corpus
}

/// Add a failing range's new seeds to the corpus: the line the check's panic shows.
pub(super) fn record(corpus: &mut Corpus, report: &SweepReport, config: &SweepConfig) -> String {
    match corpus.record(entries_of(&report.results, config)) {
        Ok(added) if added.is_empty() => format!(
            "regression corpus {}: nothing new (its seeds already there)",
            corpus.path.display()
        ),
        Ok(added) => {
            let seeds: Vec<String> = added.iter().map(|e| e.seed.to_string()).collect();
            format!(
                "new failing seeds {} kept in {}: commit it; every later run replays them first",
                seeds.join(", "),
                corpus.path.display()
            )
        }
        Err(e) => e.to_string(),
    }
}
