//! The sweep as JUnit XML for CI test-report views: one test case per seed, its
//! violations as the failure's text. Written with quick-xml, which escapes text and
//! attributes; characters XML 1.0 cannot carry at all are replaced by U+FFFD.

use crate::runner::report::SweepReport;
use crate::runner::sweep::{SeedResult, SeedStatus};
use crate::runner::text::{class_name, violation_text};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

/// The report as a JUnit XML document.
pub fn junit_xml(report: &SweepReport) -> String {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    write_document(&mut writer, report).expect("writing to memory cannot fail");
    let mut xml = String::from_utf8(writer.into_inner()).expect("quick-xml writes UTF-8");
    xml.push('\n');
    xml
}

fn write_document(writer: &mut Writer<Vec<u8>>, report: &SweepReport) -> std::io::Result<()> {
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let failures = report.results.iter().filter(|r| !r.is_pass()).count();
    let (tests, failures) = (report.results.len().to_string(), failures.to_string());
    let time = seconds(report.wall_ms * 1_000);
    let suite_name = format!("amnesia sweep {} {}", report.store, report.seeds);
    let counts = [
        ("tests", tests.as_str()),
        ("failures", failures.as_str()),
        ("errors", "0"),
        ("skipped", "0"),
        ("time", time.as_str()),
    ];
    let suites = BytesStart::new("testsuites")
        .with_attributes([("name", "amnesia")].into_iter().chain(counts));
    writer.write_event(Event::Start(suites))?;
    let suite = BytesStart::new("testsuite")
        .with_attributes([("name", suite_name.as_str())].into_iter().chain(counts));
    writer.write_event(Event::Start(suite))?;
    for result in &report.results {
        write_case(writer, report, result)?;
    }
    writer.write_event(Event::End(BytesEnd::new("testsuite")))?;
    writer.write_event(Event::End(BytesEnd::new("testsuites")))?;
    Ok(())
}

fn write_case(
    writer: &mut Writer<Vec<u8>>,
    report: &SweepReport,
    result: &SeedResult,
) -> std::io::Result<()> {
    let name = format!("seed {}", result.seed);
    let classname = format!("amnesia.{}.{}", report.store, report.engine);
    let time = seconds(result.wall_us);
    let case = BytesStart::new("testcase").with_attributes([
        ("name", name.as_str()),
        ("classname", classname.as_str()),
        ("time", time.as_str()),
    ]);
    if result.is_pass() {
        return writer.write_event(Event::Empty(case)).map(|_| ());
    }
    writer.write_event(Event::Start(case))?;
    let kind = failure_type(result);
    let message = xml_safe(&format!("{kind} on seed {}", result.seed));
    let failure = BytesStart::new("failure")
        .with_attributes([("message", message.as_str()), ("type", kind.as_str())]);
    writer.write_event(Event::Start(failure))?;
    let text = xml_safe(&failure_text(result));
    writer.write_event(Event::Text(BytesText::new(&text)))?;
    writer.write_event(Event::End(BytesEnd::new("failure")))?;
    writer.write_event(Event::End(BytesEnd::new("testcase")))?;
    Ok(())
}

/// `lost, reorder`, or the status word when there is no violation class.
fn failure_type(result: &SeedResult) -> String {
    match result.status {
        SeedStatus::Fail | SeedStatus::Stuck => {
            let names: Vec<String> = result.classes.iter().map(|c| class_name(*c)).collect();
            names.join(", ")
        }
        status => status.name().to_string(),
    }
}

fn failure_text(result: &SeedResult) -> String {
    let mut lines: Vec<String> = result.violations.iter().map(violation_text).collect();
    if let Some(divergence) = &result.divergence {
        lines.push(divergence.text());
    }
    if let Some(panic) = &result.panic {
        lines.push(format!("panic: {panic}"));
    }
    lines.push(format!("reproduce: {}", result.replay));
    lines.join("\n")
}

fn seconds(micros: u64) -> String {
    format!("{:.6}", micros as f64 / 1_000_000.0)
}

/// Replace what XML 1.0 forbids even escaped (control characters, U+FFFE, U+FFFF).
fn xml_safe(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::xml_safe;

    #[test]
    fn forbidden_characters_are_replaced() {
        assert_eq!(xml_safe("a\u{0}b\tc\u{FFFF}"), "a\u{FFFD}b\tc\u{FFFD}");
    }
}
