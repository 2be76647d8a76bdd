//! The pieces every part of the certificate is made of, whichever scheme it is about:
//! verdicts marked with their keys, counts, a battery's sentence, tables of tests and of
//! findings. The sections of one kind of input (`certificate` for the default scheme,
//! `certificate_chain` for crash chains, `certificate_stake` for the HMAC-SHA256 family)
//! all use them, and none uses another's.

use super::audit_html::finding_row;
use super::html::test_figures;
use super::svg::{escape, visible};
use crate::audit::Finding;
use crate::certify::{battery_key, test_key};
use crate::stats::battery::{Battery, TestResult};
use std::fmt::Write;

/// Seed pairs listed in the scope, per sweep or bet history (the rest are counted).
pub(super) const SEED_PAIRS_LISTED: usize = 20;

/// An audited bet history as the certificate shows it.
pub struct AuditShown<'a> {
    /// The audit's folder, as given.
    pub dir: &'a str,
    /// The history file.
    pub outcomes: &'a str,
    /// The audit folder's copy in the dossier (where its findings.csv is).
    pub copy: &'a str,
    /// The first findings of its row checks.
    pub findings: &'a [Finding],
}

/// A verdict, marked with its key for `certify --check`.
pub(super) fn verdict_span(key: &str, verdict: &str) -> String {
    format!(
        "<span class=\"v-{}\" data-verdict=\"{}\">{}</span>",
        verdict.replace(' ', "-"),
        visible(key),
        escape(verdict)
    )
}

pub(super) fn percent(x: f64) -> String {
    if x >= 1.0 {
        format!("{}%", count((x * 100.0).round() as u64))
    } else if x >= 0.1 {
        format!("{:.2}%", x * 100.0)
    } else {
        format!("{:.3}%", x * 100.0)
    }
}

pub(super) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A battery's counts and verdict, the verdict under its key (`kind index battery`):
/// "12 tests, 11 PASS, 1 WEAK, 0 FAIL, 0 INSUFFICIENT: **PASS**"; an INSUFFICIENT one says
/// why (which games it does not judge).
pub(super) fn battery_sentence<G: PartialEq + std::fmt::Display>(
    battery: &Battery<G>,
    kind: &str,
    index: usize,
) -> String {
    let counts = battery.counts();
    let judgement = battery.judgement();
    let why =
        judgement.insufficient_reason().map(|reason| format!(" ({})", escape(&reason))).unwrap_or_default();
    format!(
        "{} tests, {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: <b>{}</b>{why}",
        battery.results.len(),
        counts.pass,
        counts.weak,
        counts.fail,
        counts.insufficient,
        verdict_span(&battery_key(kind, index), judgement.verdict.as_str())
    )
}

/// The first findings of an audited bet history (of `total`), when it has any: the rest
/// are in its pinned findings.csv.
pub(super) fn findings_table(html: &mut String, shown: &AuditShown, total: u64) {
    if shown.findings.is_empty() {
        return;
    }
    let _ = write!(
        html,
        "<p>Rows that did not check out: the first {} of {} (all of them are in <code>{}/findings.csv</code>, pinned in §6).</p>\
         <table><thead><tr><th>line</th><th>player</th><th>check</th><th>expected</th><th>found</th></tr></thead>",
        shown.findings.len(),
        count(total),
        escape(shown.copy)
    );
    for f in shown.findings {
        html.push_str(&finding_row(f));
    }
    html.push_str("</table>");
}

/// One list item per test `results` name (the first of each name), with its note.
pub(super) fn test_notes<'r, G: 'r>(html: &mut String, results: impl Iterator<Item = &'r TestResult<G>>) {
    let mut seen: Vec<&str> = Vec::new();
    for r in results {
        if !seen.contains(&r.outcome.test.as_str()) {
            seen.push(&r.outcome.test);
            let _ = write!(
                html,
                "<li><code>{}</code>: {}</li>",
                escape(&r.outcome.test),
                escape(&r.outcome.note)
            );
        }
    }
}

/// A table of test results, each verdict under its key (`kind index game group test`).
pub(super) fn test_rows<'r, G: std::fmt::Display + 'r>(
    html: &mut String,
    kind: &str,
    index: usize,
    rows: impl Iterator<Item = &'r TestResult<G>>,
) {
    html.push_str("<table><thead><tr><th>game</th><th>group</th><th>test</th><th>statistic</th><th>df</th><th>p</th><th>adjusted p</th><th>verdict</th><th>detectable bias</th></tr></thead>");
    for r in rows {
        let [statistic, df, p, adjusted] = test_figures(r);
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td><code class=\"t\">{}</code></td><td class=\"num\">{statistic}</td><td class=\"num\">{df}</td><td class=\"num\">{p}</td><td class=\"num\">{adjusted}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            r.game,
            visible(&r.seed_pair),
            escape(&r.outcome.test),
            verdict_span(&test_key(kind, index, &r.game, &r.seed_pair, &r.outcome.test), r.verdict.as_str()),
            r.detectable_bias.map_or(String::new(), detectable),
        );
    }
    html.push_str("</table>");
}

/// A detectable relative bias: a percentage, or, beyond 100%, what it means.
fn detectable(bias: f64) -> String {
    if bias >= 1.0 {
        "not detectable at this size".into()
    } else {
        percent(bias)
    }
}
