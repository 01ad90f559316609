//! README's figures are computed, not remembered: the write-behind sweep sample (its
//! summary line, its JSON summary, its first class) and the share of acknowledged messages
//! the reference's sweep excuses are recomputed here and must be what README prints. A
//! change that moves them fails with the line to write.

use amnesia::{Builder, Store};
use std::path::Path;

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(path).expect("README.md reads")
}

fn assert_readme_has(line: &str, what: &str) {
    assert!(
        readme().contains(line),
        "README's {what} drifted: it should read\n{line}"
    );
}

#[test]
fn the_write_behind_sweep_sample_is_todays() {
    let report = Builder::new()
        .store(Store::named("write-behind").expect("built in"))
        .seeds(0..200)
        .sweep();
    let s = &report.summary;
    assert_readme_has(
        &format!(
            "pass {} · fail {} · stuck {} · panic {} · nondeterministic {}",
            s.pass, s.fail, s.stuck, s.panic, s.nondeterministic
        ),
        "sweep sample (## Sweeps)",
    );
    assert_readme_has(
        &format!(
            "\"summary\": {{\"seeds\": {}, \"pass\": {}, \"fail\": {}, \"stuck\": {}, \"panic\": {},",
            s.seeds, s.pass, s.fail, s.stuck, s.panic
        ),
        "JSON report sample",
    );
    let excused = &s.excused;
    assert_readme_has(
        &format!(
            "expected loss: {} of {} acked messages excused across restarts ({:.2} %)",
            excused.excused_messages,
            excused.acked_messages,
            excused.excused_messages as f64 * 100.0 / excused.acked_messages as f64
        ),
        "sweep sample's expected loss",
    );
    let first = s.by_class.first().expect("write-behind fails");
    assert_readme_has(
        &format!(
            "{} ({} seeds):\n  seed {}: amnesia replay --seed {} --store write-behind --engine event",
            first.class,
            first.seeds.len(),
            first.seeds[0],
            first.seeds[0]
        ),
        "sweep sample's first class",
    );
}

#[test]
fn the_excused_share_is_todays() {
    let report = Builder::new().seeds(0..1000).sweep();
    assert!(report.is_pass(), "{}", report.text());
    let excused = &report.summary.excused;
    let percent = excused.excused_messages as f64 * 100.0 / excused.acked_messages as f64;
    assert_readme_has(
        &format!("standard scenario: {percent:.2} %"),
        "excused share (## How it works, Checker)",
    );
}
