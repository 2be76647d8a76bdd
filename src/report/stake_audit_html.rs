//! `report.html` of an audit of a bet history of the HMAC-SHA256 family: the verdict, the
//! row checks with the first findings, each game's bets realised on the recorded results,
//! and every test. Self-contained like the other reports; `certify --check` makes it again
//! from the history and what run.json records of the run.

use super::audit_html::{audit_verdict, findings_tables, FINDINGS_SHOWN};
use super::html::{page_start, tests_table};
use super::stake_html::returns_table;
use super::svg::{escape, visible};
use crate::audit::stake::StakeAudit;
use crate::audit::Finding;
use crate::rtp::stake_realised::RealisedReturn;
use crate::scheme::stake::StakeGame;
use crate::stats::battery::{Battery, Verdict};
use std::fmt::Write;

/// Everything the report shows.
pub struct StakeAuditReport<'a> {
    /// The audit.
    pub audit: &'a StakeAudit,
    /// Its battery.
    pub battery: &'a Battery<StakeGame>,
    /// The first findings (at most [`FINDINGS_SHOWN`]).
    pub findings: &'a [Finding],
    /// The history's name, as the command named it.
    pub source: &'a str,
    /// fairaudit's version and when the audit ended ([`super::audit_html::made_by`]).
    pub made_by: &'a str,
    /// Each game's bets realised on its recorded results (group `history`).
    pub returns: &'a [RealisedReturn],
}

impl StakeAuditReport<'_> {
    /// FAIL on any finding or any failed test, PASS otherwise (also when the battery is
    /// INSUFFICIENT, some game's outcomes too few for its tests: an audit is judged by its
    /// rows), INSUFFICIENT when no row was checked either ([`audit_verdict`]).
    pub fn verdict(&self) -> Verdict {
        audit_verdict(self.audit.findings.values().sum(), self.battery, self.audit.has_row_checks())
    }

    /// The page.
    pub fn render(&self) -> String {
        let audit = self.audit;
        let mut html = String::new();
        let subtitle = format!(
            "{} &middot; scheme {} &middot; {} &middot; {} rows",
            escape(self.made_by),
            audit.scheme,
            visible(self.source),
            audit.rows
        );
        page_start(&mut html, "fairaudit audit", &subtitle, self.battery, self.verdict().as_str());
        let findings: u64 = audit.findings.values().sum();
        let _ = write!(
            html,
            "<h2 id=\"checks\">Row checks</h2><p>{} rows read; {} replayed from their revealed seeds; {} payouts checked against {}. {findings} findings{}</p>",
            audit.rows,
            audit.replayed,
            audit.payouts_checked,
            escape(&audit.payouts_judged_by()),
            if findings == 0 { "." } else { ", listed in findings.csv:" }
        );
        for (game, rows) in &audit.payouts_unchecked {
            let _ = write!(
                html,
                "<p class=\"note\">Payouts of {game} not checked on {rows} row{}: {}.</p>",
                if *rows == 1 { "" } else { "s" },
                escape(crate::audit::stake::why_unchecked(audit.scheme, game))
            );
        }
        let shown = &self.findings[..self.findings.len().min(FINDINGS_SHOWN)];
        findings_tables(&mut html, audit.findings.iter().map(|(check, n)| (*check, *n)), shown);
        tests_table(&mut html, self.battery, "group");
        let games: Vec<StakeGame> = audit.tallies.iter().map(|(game, _)| *game).collect();
        returns_table(
            &mut html,
            audit.scheme,
            &games,
            self.returns,
            self.battery.alpha,
            "Each game's recorded results, as if every round were the bet; the stakes and payouts the rows record are checked row by row above.",
        );
        html.push_str("</body></html>\n");
        html
    }
}
