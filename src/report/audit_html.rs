//! `report.html` of an audit: the verdict, the row checks with the first findings, nonce
//! integrity, a line per player, and every test. Self-contained like the sweep's report.

use super::html::{page_start, tests_table, warnings};
use super::svg::{escape, visible};
use crate::audit::{Audit, Finding};
use crate::stats::battery::{Battery, Verdict};
use std::fmt::Write;

/// Findings shown in the page; `findings.csv` holds them all.
pub const FINDINGS_SHOWN: usize = 200;
/// Players listed in the page; `summary.json` holds them all.
pub const PLAYERS_SHOWN: usize = 1000;

/// Who made a report and when: `fairaudit VERSION (rev REVISION) · WHEN`.
pub fn made_by(version: &str, revision: &str, when: &str) -> String {
    format!("fairaudit {version} (rev {revision}) · {when}")
}

/// Everything the audit report shows.
pub struct AuditReport<'a> {
    /// The audit.
    pub audit: &'a Audit,
    /// Its battery.
    pub battery: &'a Battery,
    /// The first findings (at most [`FINDINGS_SHOWN`]).
    pub findings: &'a [Finding],
    /// The audited file's name.
    pub source: &'a str,
    /// What Keno payouts were judged against.
    pub paytable: &'a str,
    /// fairaudit's version and when the audit ran.
    pub made_by: &'a str,
}

impl AuditReport<'_> {
    /// The overall verdict: FAIL on any finding, any replay mismatch or any failed test;
    /// INSUFFICIENT when neither a row nor the battery could judge ([`audit_verdict`]).
    pub fn verdict(&self) -> Verdict {
        audit_verdict(
            self.audit.findings.iter().map(|(_, n)| n).sum(),
            self.battery,
            self.audit.has_row_checks(),
        )
    }

    /// The page.
    pub fn render(&self) -> String {
        let audit = self.audit;
        let mut html = String::new();
        let subtitle = format!(
            "{} &middot; {} &middot; {} &middot; {} rounds, {} {}",
            escape(self.made_by),
            visible(self.source),
            audit.game,
            audit.rounds,
            audit.players.len(),
            if audit.has_players { "players" } else { "history" }
        );
        page_start(&mut html, "fairaudit audit", &subtitle, self.battery, self.verdict().as_str());
        warnings(&mut html, &audit.warnings);
        let findings: u64 = audit.findings.iter().map(|(_, n)| n).sum();
        let _ = write!(
            html,
            "<h2 id=\"checks\">Row checks</h2><p>{} rounds replayed against the chain, {} with a different outcome. {findings} findings{}</p>",
            audit.verified,
            audit.mismatches,
            if findings == 0 { "." } else { ", listed in findings.csv:" }
        );
        findings_tables(&mut html, audit.findings.iter().map(|(check, n)| (*check, *n)), self.findings);
        let n = audit.nonce_integrity;
        let _ = write!(
            html,
            "<h2 id=\"nonces\">Nonce integrity</h2><p>{} seed pairs; {} gaps in their nonces ({} nonces missing, listed in nonce_gaps.csv); {} rounds at skipped nonces replayed for the skipped-rounds test. Keno payouts judged against: {}.</p>",
            n.seed_pairs,
            n.gaps,
            n.missing_nonces,
            n.replayed,
            escape(self.paytable)
        );
        html.push_str("<h2 id=\"players\">Players</h2><table id=\"players-table\"><tr><th>player</th><th>rounds</th><th>seed pairs</th><th>findings</th><th>staked</th><th>returned</th><th>expected return</th></tr>");
        for p in audit.players.iter().take(PLAYERS_SHOWN) {
            let _ = write!(
                html,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4}</td></tr>",
                escape(&p.player),
                p.rounds,
                p.seed_pairs,
                p.findings,
                p.bets.staked,
                p.bets.returned,
                p.bets.expected_return
            );
        }
        html.push_str("</table>");
        if audit.players.len() > PLAYERS_SHOWN {
            let _ = write!(
                html,
                "<p class=\"note\">The first {PLAYERS_SHOWN} players; summary.json lists all {}.</p>",
                audit.players.len()
            );
        }
        tests_table(&mut html, self.battery, if audit.has_players { "player" } else { "group" });
        html.push_str("</body></html>\n");
        html
    }
}

/// An audit's verdict: FAIL on any finding or any failed test. Otherwise an audit is
/// judged by its rows: PASS when some row was checked on its own (`row_checks`: replayed
/// against the chain, a payout checked) or the battery could judge, INSUFFICIENT when
/// neither (bare outcomes too few for any test).
pub fn audit_verdict<G: PartialEq>(findings: u64, battery: &Battery<G>, row_checks: bool) -> Verdict {
    match battery.overall() {
        Verdict::Fail => Verdict::Fail,
        _ if findings > 0 => Verdict::Fail,
        Verdict::Insufficient if !row_checks => Verdict::Insufficient,
        _ => Verdict::Pass,
    }
}

/// The findings per check and the first findings, as tables (nothing when there are
/// none), with a note when findings.csv holds more than are shown.
pub(crate) fn findings_tables<'a>(
    html: &mut String,
    by_check: impl Iterator<Item = (&'a str, u64)> + Clone,
    shown: &[Finding],
) {
    let findings: u64 = by_check.clone().map(|(_, n)| n).sum();
    if findings == 0 {
        return;
    }
    html.push_str("<table id=\"findings-by-check\"><tr><th>check</th><th>findings</th></tr>");
    for (check, count) in by_check {
        let _ = write!(html, "<tr class=\"FAIL\"><td>{check}</td><td class=\"num\">{count}</td></tr>");
    }
    html.push_str("</table><table id=\"findings\"><tr><th>line</th><th>player</th><th>check</th><th>expected</th><th>found</th></tr>");
    for f in shown {
        html.push_str(&finding_row(f));
    }
    html.push_str("</table>");
    if findings as usize > shown.len() {
        let _ = write!(
            html,
            "<p class=\"note\">The first {} findings; findings.csv has all {findings}.</p>",
            shown.len()
        );
    }
}

/// One finding as a table row: line, player, check, what the chain or paytable gives,
/// what the history has (text from the history made visible, see [`visible`]).
pub fn finding_row(f: &Finding) -> String {
    format!(
        "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
        f.line,
        visible(&f.player),
        f.check,
        visible(&f.expected),
        visible(&f.found)
    )
}
