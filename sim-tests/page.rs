//! The page of one seed (`amnesia run --html FILE`): its structure, parsed as XML, and its
//! rendering in headless Chromium (Debian's `chromium`, which `.ci/run` installs).

use amnesia::internal::runner::page;
use amnesia::{Builder, Store};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A failing seed of a catalogue variant: write-behind's first.
fn failing_report() -> amnesia::internal::runner::RunReport {
    let report = Builder::new()
        .store(Store::named("write-behind").expect("a known store"))
        .run(1);
    assert!(!report.verdict.is_pass(), "write-behind seed 1 fails");
    report
}

fn classes(node: &roxmltree::Node<'_, '_>) -> Vec<String> {
    node.attribute("class")
        .unwrap_or_default()
        .split(' ')
        .map(str::to_string)
        .collect()
}

#[test]
fn the_page_draws_every_operation_and_marks_the_violations() {
    let report = failing_report();
    let html = page::render(&report);
    // Well-formed XML once the HTML doctype is set aside.
    let xml = html.replacen("<!DOCTYPE html>", "", 1);
    let doc = roxmltree::Document::parse(&xml).expect("the page parses");
    let ops: Vec<roxmltree::Node<'_, '_>> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("data-op").is_some())
        .collect();
    let drawn: BTreeSet<usize> = ops
        .iter()
        .map(|n| n.attribute("data-op").unwrap().parse().unwrap())
        .collect();
    let recorded: BTreeSet<usize> = report.history.ops.iter().map(|op| op.index).collect();
    assert_eq!(drawn, recorded, "every operation has its span");
    assert_eq!(ops.len(), report.history.ops.len());
    // Every operation that proves a violation is marked, and only those.
    let proving: BTreeSet<usize> = report
        .verdict
        .violations
        .iter()
        .flat_map(|v| v.op_indexes.iter().copied())
        .collect();
    let marked: BTreeSet<usize> = ops
        .iter()
        .filter(|n| classes(n).iter().any(|c| c == "violation"))
        .map(|n| n.attribute("data-op").unwrap().parse().unwrap())
        .collect();
    assert!(!proving.is_empty());
    assert_eq!(marked, proving);
    // One list item per violation, naming its operations.
    let items: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("li") && n.attribute("data-ops").is_some())
        .collect();
    assert_eq!(items.len(), report.verdict.violations.len());
    // A band per fault, arrows for the bytes on the wire, details on every element.
    let bands = doc
        .descendants()
        .filter(|n| classes(n).iter().any(|c| c == "fault"))
        .count();
    assert_eq!(bands, report.plan.faults.len());
    let hops = doc
        .descendants()
        .filter(|n| classes(n).iter().any(|c| c == "hop"))
        .count();
    assert!(hops > report.history.ops.len(), "{hops} arrows");
    // A mark per key Redis expired (sessions idle past their TTL).
    let expiries = doc
        .descendants()
        .filter(|n| classes(n).iter().any(|c| c == "expiry"))
        .count();
    assert!(!report.history.expiries.is_empty());
    assert_eq!(expiries, report.history.expiries.len());
    // On the run's clock, like the operations: seconds since the world started, not since
    // the unix epoch (the Redis model's clock).
    let last_op_s = report
        .history
        .ops
        .iter()
        .filter_map(|op| op.complete_us)
        .max()
        .unwrap() as f64
        / 1e6;
    for mark in doc
        .descendants()
        .filter(|n| classes(n).iter().any(|c| c == "expiry"))
    {
        let detail = mark.attribute("data-detail").unwrap();
        let seconds: f64 = detail.split('s').next().unwrap().parse().unwrap();
        assert!(
            seconds <= last_op_s,
            "{detail} after the last op ({last_op_s} s)"
        );
    }
    assert!(ops.iter().all(|n| n.attribute("data-detail").is_some()));
    // Self-contained: nothing is fetched.
    for remote in ["http://", "https://", "src=", "<link"] {
        let uses = xml.matches(remote).count();
        let svg_namespace = usize::from(remote == "http://");
        assert_eq!(uses, svg_namespace, "{remote}");
    }
}

/// A mark per key Redis evicted under a pressure plan, naming the policy.
#[test]
fn the_page_marks_every_eviction() {
    let report = Builder::new()
        .store(Store::named("reference").expect("a known store"))
        .scenario(amnesia::ScenarioConfig::pressure())
        .run(0);
    assert!(
        !report.history.evictions.is_empty(),
        "pressure seed 0 evicts"
    );
    let html = page::render(&report);
    let xml = html.replacen("<!DOCTYPE html>", "", 1);
    let doc = roxmltree::Document::parse(&xml).expect("the page parses");
    let marks: Vec<_> = doc
        .descendants()
        .filter(|n| classes(n).iter().any(|c| c == "eviction"))
        .collect();
    assert_eq!(marks.len(), report.history.evictions.len());
    let first = &report.history.evictions[0];
    let detail = marks[0].attribute("data-detail").unwrap();
    assert!(
        detail.contains(&first.key) && detail.contains(&first.policy),
        "{detail}"
    );
}

#[test]
fn the_page_is_the_same_for_the_same_seed() {
    assert_eq!(
        page::render(&failing_report()),
        page::render(&failing_report())
    );
}

/// Debian's chromium, or the one `AMNESIA_CHROMIUM` names.
fn chromium() -> PathBuf {
    let path = std::env::var_os("AMNESIA_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.exists(),
        "{} is missing: install Debian's chromium (`apt-get install chromium`; .ci/run does)",
        path.display()
    );
    path
}

/// The RGB pixels of a PNG file.
fn pixels(path: &Path) -> (Vec<[u8; 3]>, u32, u32) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("a screenshot"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let step = info.color_type.samples();
    let rgb = buf[..info.buffer_size()]
        .chunks(step)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (rgb, info.width, info.height)
}

#[test]
fn headless_chromium_renders_the_page() {
    let dir = std::env::temp_dir().join(format!("amnesia-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch dir");
    let page_file = dir.join("seed.html");
    std::fs::write(&page_file, page::render(&failing_report())).expect("written");
    let shot = dir.join("shot.png");
    let output = std::process::Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1400,1000",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page_file.display()))
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success() && shot.exists(),
        "chromium: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (rgb, width, height) = pixels(&shot);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!((width, height), (1400, 1000));
    // Not blank: the lanes (#f1f3f8) fill a good part of the view, apart from the page
    // background (#fbfbfd), and the text and spans bring many colours.
    let count = |colour: [u8; 3]| rgb.iter().filter(|&&p| p == colour).count();
    let lanes = count([0xf1, 0xf3, 0xf8]);
    let background = count([0xfb, 0xfb, 0xfd]);
    assert!(
        lanes * 50 > rgb.len(),
        "lanes cover {lanes} of {} pixels",
        rgb.len()
    );
    assert!(background > 0 && lanes != background);
    let colours: BTreeSet<[u8; 3]> = rgb.iter().copied().collect();
    assert!(colours.len() > 20, "{} colours", colours.len());
}

/// A plan of about 10,000 operations: the page grows linearly, a few hundred bytes and a
/// few elements per operation and chunk, and still parses.
#[test]
fn a_ten_thousand_operation_plan_gives_a_linear_page() {
    let scenario = amnesia::ScenarioConfig {
        name: "large".to_string(),
        turns: 3_200,
        tenants: 8,
        sessions_per_tenant: 8,
        duration_ms: 300_000,
        ..amnesia::ScenarioConfig::standard()
    };
    let report = Builder::new().scenario(scenario).run(1);
    let ops = report.history.ops.len();
    assert!(ops >= 10_000, "{ops} operations");
    let html = page::render(&report);
    let xml = html.replacen("<!DOCTYPE html>", "", 1);
    let doc = roxmltree::Document::parse(&xml).expect("the page parses");
    let elements = doc.descendants().filter(|n| n.is_element()).count();
    let hops = report.trace.hops().len();
    assert!(elements < 4 * (ops + hops) + 10_000, "{elements} elements");
    assert!(html.len() < 1_000 * (ops + hops), "{} bytes", html.len());
}
