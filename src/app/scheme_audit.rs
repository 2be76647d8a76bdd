//! An audited bet history of a scheme other than the default (`audit --scheme
//! stake|duel|bustabit-v1|roobet`): the verdict files its folder holds, made here, so that
//! `audit` writes them and `certify` (which audits the history again and compares) expects
//! them from one place.

use crate::report::results::{summary_json_with, tests_table, RowChecks};
use crate::stats::battery::Battery;
use serde::Serialize;

/// `tests.csv` (the battery) and `summary.json` (the battery with the row checks, whose
/// findings make the verdict FAIL), as (name, bytes).
pub fn verdict_files<G: Serialize + Copy + Ord + std::fmt::Display>(
    battery: &Battery<G>,
    rows: RowChecks<'_>,
) -> [(&'static str, Vec<u8>); 2] {
    [
        ("tests.csv", tests_table(battery).to_csv()),
        ("summary.json", summary_json_with(battery, &[], None, None, Some(rows))),
    ]
}
