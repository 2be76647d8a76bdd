//! An audited bet history of a keyed scheme (`audit --scheme stake|duel`): the files its
//! folder holds beside those of every scheme, chosen and made here, so that `audit` writes
//! them and `certify` (which audits the history again and compares) expects them from one
//! place.

use crate::audit::stake::StakeAudit;
use crate::audit::Finding;
use crate::report::stake::rtp_table;
use crate::report::stake_audit_html::StakeAuditReport;
use crate::rtp::stake_realised::realised_returns;
use crate::rtp::RTP_TABLE;
use crate::scheme::stake::StakeGame;
use crate::stats::battery::Battery;

/// The files an audit of the family writes beside those of every scheme: `rtp.csv` (each
/// game's bets realised on the recorded results) and `report.html`, made from the audit,
/// its first findings, the history's name as the command gave it, and who made it when
/// (`made_by`, from its run.json: `certify --check` makes them again from the same).
pub fn stake_audit_files(
    audit: &StakeAudit,
    battery: &Battery<StakeGame>,
    shown: &[Finding],
    source: &str,
    made_by: &str,
) -> Vec<(&'static str, Vec<u8>)> {
    let groups: Vec<_> =
        audit.tallies.iter().map(|(game, tally)| (*game, "history".to_owned(), tally.clone())).collect();
    let returns = realised_returns(audit.scheme, &groups, battery.alpha);
    let report = StakeAuditReport { audit, battery, findings: shown, source, made_by, returns: &returns };
    vec![
        (RTP_TABLE, rtp_table(&returns, battery.alpha).to_csv()),
        ("report.html", report.render().into_bytes()),
    ]
}
