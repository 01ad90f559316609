//! One run as a page: a self-contained HTML file (inline SVG, CSS and a little script, no
//! network assets) that draws the seed as a sequence diagram. Time runs down; a lane per
//! host (each app client, the Redis node). Each operation is a span from invoke to
//! complete in its client's lane, coloured by outcome; each chunk on the wire an arrow
//! between the client and Redis with its latency; faults are shaded bands on the lanes
//! they hit; buggify firings, world events, key expiries and evictions are marks; the violations are listed on top
//! and their operations outlined. Hover shows an element's details, a click pins them in
//! the side panel, a filter narrows to one session or user.
//!
//! The markup is well-formed XML (the script and style sit in CDATA sections), so tests
//! parse it with an XML parser. Elements are plain SVG shapes, a few per operation, so
//! a plan of 10,000 operations stays a page the browser scrolls.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::run::RunReport;
use super::text::verdict_text;
use crate::history::{Op, OpKind};
use crate::plan::FaultKind;

/// Lane width and the left margin for the time axis, in pixels.
const LANE_PX: u64 = 240;
const AXIS_PX: u64 = 80;
/// The header band above the first lane event.
const TOP_PX: u64 = 40;
/// The page's height bound: time is scaled so a run fits in it.
const HEIGHT_PX_MAX: u64 = 16_000;
/// The finest scale, in virtual microseconds per pixel (1 ms per pixel).
const US_PER_PX_MIN: u64 = 1_000;
/// Concurrent operations one lane draws side by side before they share a column.
const SLOTS_MAX: usize = 8;

/// The page of `report`: the whole HTML document.
pub fn render(report: &RunReport) -> String {
    let layout = Layout::of(report);
    let mut svg = String::with_capacity(report.history.ops.len() * 400 + 4096);
    layout.lanes(&mut svg);
    layout.axis(&mut svg);
    faults(report, &layout, &mut svg);
    hops(report, &layout, &mut svg);
    marks(report, &layout, &mut svg);
    expiries(report, &layout, &mut svg);
    evictions(report, &layout, &mut svg);
    ops(report, &layout, &mut svg);
    document(report, &layout, &svg)
}

/// Where things go: the time scale and each host's lane.
struct Layout {
    us_per_px: u64,
    end_us: u64,
    /// Lane index per host name; clients first, then the server's (`server`).
    lanes: Vec<String>,
    /// The lane of the server the fault schedule strikes: `redis` or `postgres`.
    server: &'static str,
}

impl Layout {
    fn of(report: &RunReport) -> Layout {
        let op_end_us = report
            .history
            .ops
            .iter()
            .map(|op| op.complete_us.unwrap_or(op.invoke_us))
            .max()
            .unwrap_or(0);
        let end_us = op_end_us.max(report.plan.end_ms() * 1_000) + 500_000;
        let us_per_px = (end_us / HEIGHT_PX_MAX).max(US_PER_PX_MIN);
        let mut lanes: Vec<String> = (0..report.plan.clients)
            .map(|c| format!("client-{c}"))
            .collect();
        let server = match report.plan.backend {
            crate::domain::Backend::Pgvector => "postgres",
            _ => "redis",
        };
        lanes.push(server.to_string());
        Layout {
            us_per_px,
            end_us,
            lanes,
            server,
        }
    }

    fn y(&self, at_us: u64) -> u64 {
        TOP_PX + at_us / self.us_per_px
    }

    fn height(&self) -> u64 {
        self.y(self.end_us) + 20
    }

    fn width(&self) -> u64 {
        AXIS_PX + LANE_PX * self.lanes.len() as u64
    }

    fn lane_x(&self, host: &str) -> Option<u64> {
        let at = self.lanes.iter().position(|lane| lane == host)?;
        Some(AXIS_PX + LANE_PX * at as u64)
    }

    /// The x of the lane's centre line, where arrows start and end.
    fn lane_mid(&self, host: &str) -> Option<u64> {
        self.lane_x(host).map(|x| x + LANE_PX / 2)
    }

    fn lanes(&self, out: &mut String) {
        for (at, lane) in self.lanes.iter().enumerate() {
            let x = AXIS_PX + LANE_PX * at as u64;
            let _ = write!(
                out,
                r#"<rect class="lane" x="{x}" y="{TOP_PX}" width="{LANE_PX}" height="{}"/><text class="lane-name" x="{}" y="24">{}</text>"#,
                self.height() - TOP_PX,
                x + LANE_PX / 2,
                escape(lane)
            );
        }
    }

    fn axis(&self, out: &mut String) {
        let step_us = 1_000_000;
        let mut at_us = 0;
        while at_us <= self.end_us {
            let y = self.y(at_us);
            let _ = write!(
                out,
                r#"<line class="tick" x1="{}" y1="{y}" x2="{}" y2="{y}"/><text class="tick-label" x="4" y="{}">{} s</text>"#,
                AXIS_PX - 6,
                self.width(),
                y + 4,
                at_us / 1_000_000
            );
            at_us += step_us;
        }
    }
}

/// `&`, `<`, `>` and quotes escaped, for text and attribute values alike.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no place for most control characters, even escaped.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Fault bands: on the client lane they hit, or on the server's.
fn faults(report: &RunReport, layout: &Layout, out: &mut String) {
    for (nth, fault) in report.plan.faults.iter().enumerate() {
        let host = match fault.kind.client() {
            Some(client) => format!("client-{client}"),
            None => layout.server.to_string(),
        };
        let Some(x) = layout.lane_x(&host) else {
            continue;
        };
        let (top, bottom) = (
            layout.y(fault.at_ms * 1_000),
            layout.y(fault.end_ms() * 1_000),
        );
        let class = fault.kind.class().name();
        let what = match &fault.kind {
            FaultKind::Partition { direction, .. } => format!(
                "{class} {direction:?}, tcp gives up after {} ms",
                report.plan.tcp.give_up_ms
            ),
            FaultKind::Clog { direction, .. } => format!("{class} {direction:?}"),
            FaultKind::ClockSkew { offset_ms, .. } => format!("{class} {offset_ms:+} ms"),
            FaultKind::ErrorReply { error } => format!("{class} {error:?}"),
            _ => class.to_string(),
        };
        let detail = format!(
            "fault {nth}: {what} on {host}, {} ms from {}",
            fault.duration_ms,
            crate::trace::seconds_text(fault.at_ms * 1_000)
        );
        let _ = write!(
            out,
            r#"<g class="fault {class}" data-detail="{d}"><rect x="{x}" y="{top}" width="{LANE_PX}" height="{h}"/><text x="{tx}" y="{ty}">{w}</text><title>{d}</title></g>"#,
            d = escape(&detail),
            h = (bottom - top).max(2),
            tx = x + 4,
            ty = top + 12,
            w = escape(&what),
        );
    }
}

/// An arrow per chunk between a client lane and the server's.
fn hops(report: &RunReport, layout: &Layout, out: &mut String) {
    let redis = layout.lane_mid(layout.server).expect("a server lane");
    for hop in report.trace.hops() {
        let Some(client) = layout.lane_mid(&hop.host) else {
            continue;
        };
        let (x1, x2, class) = if hop.to_redis {
            (client, redis, "hop command")
        } else {
            (redis, client, "hop reply")
        };
        let latency_us = hop.delivered_us.saturating_sub(hop.sent_us);
        let detail = format!(
            "{} {} {} at {} ({} us on the wire): {}",
            hop.host,
            if hop.to_redis { "→" } else { "←" },
            layout.server,
            crate::trace::seconds_text(hop.sent_us),
            latency_us,
            hop.text
        );
        let _ = write!(
            out,
            r#"<line class="{class}" x1="{x1}" y1="{}" x2="{x2}" y2="{}" data-detail="{d}"><title>{d}</title></line>"#,
            layout.y(hop.sent_us),
            layout.y(hop.delivered_us),
            d = escape(&detail),
        );
    }
}

/// Buggify firings and world events (faults, deploys) from the trace, as marks on the
/// right edge of the lane of the host that logged them (the Redis lane for the others).
fn marks(report: &RunReport, layout: &Layout, out: &mut String) {
    for event in report.trace.text_events() {
        if event.log {
            continue;
        }
        let class = if event.host == "buggify" && event.text.contains(" fired") {
            "mark buggify"
        } else if event.host == "deploy" || event.host == "faults" {
            "mark world"
        } else {
            continue;
        };
        let x = layout
            .lane_x(&event.host)
            .unwrap_or_else(|| layout.lane_x(layout.server).expect("a server lane"))
            + LANE_PX
            - 10;
        let detail = format!(
            "{} {}: {}",
            crate::trace::seconds_text(event.at_us),
            event.host,
            event.text
        );
        let _ = write!(
            out,
            r#"<circle class="{class}" cx="{x}" cy="{}" r="3" data-detail="{d}"><title>{d}</title></circle>"#,
            layout.y(event.at_us),
            d = escape(&detail),
        );
    }
}

/// A mark on the Redis lane per key deleted by expiry.
fn expiries(report: &RunReport, layout: &Layout, out: &mut String) {
    for expiry in &report.history.expiries {
        let detail = format!("key {} expired", expiry.key);
        server_mark(layout, "expiry", expiry.at_us, &detail, out);
    }
}

/// A mark on the Redis lane per key deleted by eviction, with the policy and the figures.
fn evictions(report: &RunReport, layout: &Layout, out: &mut String) {
    for eviction in &report.history.evictions {
        let detail = format!(
            "key {} evicted ({}, used_memory {} > maxmemory {})",
            eviction.key, eviction.policy, eviction.used_memory_bytes, eviction.maxmemory_bytes
        );
        server_mark(layout, "eviction", eviction.at_us, &detail, out);
    }
}

/// One fact of the Redis server's own (an expiry, an eviction) as a dot on its lane.
fn server_mark(layout: &Layout, class: &str, at_us: u64, detail: &str, out: &mut String) {
    let x = layout.lane_x(layout.server).expect("a server lane") + 10;
    let detail = format!("{} redis: {detail}", crate::trace::seconds_text(at_us));
    let _ = write!(
        out,
        r#"<circle class="mark {class}" cx="{x}" cy="{}" r="3" data-detail="{d}"><title>{d}</title></circle>"#,
        layout.y(at_us),
        d = escape(&detail),
    );
}

/// The session (or user) an operation is about, for the filter.
fn subject(op: &Op) -> String {
    match &op.kind {
        OpKind::Append { session, .. }
        | OpKind::Context { session, .. }
        | OpKind::Clear { session }
        | OpKind::Delete { session, .. } => session.to_string(),
        OpKind::Remember { user, .. }
        | OpKind::UpdateMemory { user, .. }
        | OpKind::Forget { user, .. }
        | OpKind::Recall { user, .. } => format!("user {user}"),
    }
}

/// Side-by-side columns within each client lane for operations that overlap in time.
fn slots(report: &RunReport) -> Vec<(usize, usize)> {
    let ops = &report.history.ops;
    let mut order: Vec<usize> = (0..ops.len()).collect();
    order.sort_by_key(|&i| (ops[i].client, ops[i].invoke_us, ops[i].index));
    // Per client: each column's end, and per op its column.
    let mut ends: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    let mut slot = vec![0usize; ops.len()];
    for &i in &order {
        let op = &ops[i];
        let end_us = op.complete_us.unwrap_or(u64::MAX);
        let columns = ends.entry(op.client).or_default();
        let free = columns.iter().position(|&e| e < op.invoke_us);
        let column = match free {
            Some(c) => c,
            None if columns.len() < SLOTS_MAX => {
                columns.push(0);
                columns.len() - 1
            }
            None => i % SLOTS_MAX,
        };
        columns[column] = columns[column].max(end_us);
        slot[i] = column;
    }
    (0..ops.len())
        .map(|i| (slot[i], ends[&ops[i].client].len()))
        .collect()
}

/// A span per operation in its client's lane; the violations' operations outlined.
fn ops(report: &RunReport, layout: &Layout, out: &mut String) {
    let mut violating: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (nth, violation) in report.verdict.violations.iter().enumerate() {
        for &op in &violation.op_indexes {
            violating.entry(op).or_default().push(nth);
        }
    }
    let slots = slots(report);
    for (i, op) in report.history.ops.iter().enumerate() {
        let host = format!("client-{}", op.client);
        let Some(x) = layout.lane_x(&host) else {
            continue;
        };
        let (slot, columns) = slots[i];
        let width = (LANE_PX - 40) / columns as u64;
        let x = x + 20 + width * slot as u64;
        let top = layout.y(op.invoke_us);
        let bottom = layout.y(op.complete_us.unwrap_or(layout.end_us));
        let mut label = String::new();
        crate::world::recorder::describe(&mut label, &op.kind);
        let word = crate::world::recorder::outcome_word(&op.outcome);
        let mut returned = String::new();
        crate::world::recorder::describe_outcome(&mut returned, &op.outcome);
        let proves = violating.get(&op.index);
        let detail = format!(
            "#{index} {label} on {host}: invoked {inv}, {word} {done} {returned}{proves}",
            index = op.index,
            inv = crate::trace::seconds_text(op.invoke_us),
            done = op
                .complete_us
                .map_or("never".to_string(), crate::trace::seconds_text),
            proves = proves.map_or(String::new(), |v| format!(
                " — proves violation {}",
                v.iter()
                    .map(|n| (n + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
        let marked = if proves.is_some() { " violation" } else { "" };
        let _ = write!(
            out,
            r#"<rect id="op-{index}" class="op {word}{marked}" data-op="{index}" data-subject="{s}" x="{x}" y="{top}" width="{w}" height="{h}" data-detail="{d}"><title>{d}</title></rect>"#,
            index = op.index,
            s = escape(&subject(op)),
            w = width.saturating_sub(2).max(2),
            h = (bottom - top).max(2),
            d = escape(&detail),
        );
    }
}

const STYLE: &str = r#"
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #fbfbfd; }
header { padding: 10px 16px; border-bottom: 1px solid #d8dbe4; background: #fff; }
h1 { font-size: 16px; margin: 0 0 4px; }
pre { margin: 4px 0; white-space: pre-wrap; }
.verdict-pass { color: #176b33; } .verdict-fail { color: #a4161a; }
.violations { max-height: 28vh; overflow: auto; margin: 4px 0; }
.violations li { margin: 2px 0; cursor: pointer; }
.controls { margin-top: 6px; }
#detail { position: fixed; right: 12px; top: 12px; width: 340px; max-height: 60vh; overflow: auto;
  background: #fff; border: 1px solid #c9cdd8; padding: 8px; font-family: ui-monospace, monospace;
  font-size: 12px; white-space: pre-wrap; }
.lane { fill: #f1f3f8; stroke: #d8dbe4; }
.lane-name { text-anchor: middle; font-weight: 600; }
.tick { stroke: #e3e6ee; } .tick-label { fill: #6b7180; font-size: 11px; }
.op { stroke: #2a3040; stroke-width: 0.5; cursor: pointer; }
.op.ok { fill: #4f9d69; } .op.fail { fill: #d1495b; } .op.unknown { fill: #edae49; } .op.pending { fill: #8d6ab8; }
.op.violation { stroke: #a4161a; stroke-width: 3; }
.op.selected { stroke: #0b57d0; stroke-width: 4; }
.hop { stroke-width: 0.6; opacity: 0.45; } .hop.command { stroke: #3465a4; } .hop.reply { stroke: #75507b; }
.fault rect { opacity: 0.18; } .fault text { font-size: 10px; fill: #5a1a1a; }
.fault.partition rect { fill: #c00; } .fault.clog rect { fill: #e08a00; } .fault.reset rect { fill: #8a2be2; }
.fault.client-crash rect { fill: #000; } .fault.clock-skew rect { fill: #0a7ea4; }
.fault.redis-restart rect, .fault.postgres-restart rect { fill: #c00; } .fault.redis-pause rect, .fault.postgres-pause rect { fill: #777; } .fault.error-reply rect { fill: #b5651d; }
.fault.silent-drop rect { fill: #4b0082; }
.mark.buggify { fill: #e08a00; } .mark.expiry { fill: #0a7ea4; } .mark.eviction { fill: #b0306a; } .mark.world { fill: #444; }
.hidden { display: none; }
@media print {
  .controls, #detail { display: none; }
  .violations { max-height: none; overflow: visible; }
  .hop { opacity: 0.25; }
  body { background: #fff; }
}
"#;

const SCRIPT: &str = r#"
(function () {
  var detail = document.getElementById('detail');
  document.addEventListener('click', function (e) {
    var el = e.target.closest('[data-detail]');
    if (!el) { return; }
    detail.textContent = el.getAttribute('data-detail');
    var old = document.querySelector('.op.selected');
    if (old) { old.classList.remove('selected'); }
    if (el.classList.contains('op')) { el.classList.add('selected'); }
  });
  document.querySelectorAll('[data-ops]').forEach(function (li) {
    li.addEventListener('click', function () {
      var first = li.getAttribute('data-ops').split(' ')[0];
      var op = document.getElementById('op-' + first);
      if (op) { op.scrollIntoView({ block: 'center' }); op.dispatchEvent(new MouseEvent('click', { bubbles: true })); }
    });
  });
  var filter = document.getElementById('filter');
  filter.addEventListener('change', function () {
    var want = filter.value;
    document.querySelectorAll('.op').forEach(function (op) {
      var keep = want === '' || op.getAttribute('data-subject') === want;
      op.classList.toggle('hidden', !keep);
    });
  });
})();
"#;

fn subject_text(subject: &crate::check::Subject) -> String {
    match subject {
        crate::check::Subject::Session(session) => format!("session {session}"),
        crate::check::Subject::User(user) => format!("user {user}"),
        crate::check::Subject::Store => "the store".to_string(),
    }
}

fn document(report: &RunReport, layout: &Layout, svg: &str) -> String {
    let plan = &report.plan;
    let verdict = &report.verdict;
    let mut subjects: Vec<String> = report.history.ops.iter().map(subject).collect();
    subjects.sort();
    subjects.dedup();
    let options: String = subjects
        .iter()
        .map(|s| format!(r#"<option value="{0}">{0}</option>"#, escape(s)))
        .collect();
    let violations: String = verdict
        .violations
        .iter()
        .enumerate()
        .map(|(nth, v)| {
            let ops: Vec<String> = v.op_indexes.iter().map(|o| o.to_string()).collect();
            format!(
                r#"<li id="violation-{n}" data-ops="{ops}"><b>{class}</b> on {subject}: {text} (ops #{list}; messages {ids})</li>"#,
                ops = ops.join(" "),
                n = nth + 1,
                class = escape(&super::text::class_name(v.class)),
                subject = escape(&subject_text(&v.subject)),
                text = escape(&v.explanation),
                list = ops.join(" #"),
                ids = escape(&v.message_ids.join(" ")),
            )
        })
        .collect();
    let verdict_class = if verdict.is_pass() {
        "verdict-pass"
    } else {
        "verdict-fail"
    };
    let first_line = verdict_text(verdict);
    let first_line = first_line.lines().next().unwrap_or_default();
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><title>amnesia seed {seed} · {store}</title>
<style>/*<![CDATA[*/{STYLE}/*]]>*/</style></head>
<body>
<header>
<h1>amnesia · seed {seed} · store {store} · engine {engine}</h1>
<pre>{summary}</pre>
<p class="{verdict_class}"><b>{first_line}</b></p>
<ol class="violations">{violations}</ol>
<div class="controls">Show <select id="filter"><option value="">every session and user</option>{options}</select>
 · click an operation, arrow, band or mark for its details · trace hash {hash:016x}</div>
</header>
<div id="detail">Click an element for its details.</div>
<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">{svg}</svg>
<script>//<![CDATA[
{SCRIPT}
//]]></script>
</body></html>
"#,
        seed = plan.seed,
        store = escape(&report.store),
        engine = report.engine.name(),
        summary = escape(&plan.summary()),
        first_line = escape(first_line),
        hash = report.trace.hash(),
        width = layout.width(),
        height = layout.height(),
    )
}
