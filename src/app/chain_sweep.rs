//! A sweep of a crash chain (`sweep --scheme bustabit-v1|roobet`): its battery and the
//! result files its folder holds beside run.json, chosen and made here, so that `sweep`
//! writes them and `certify` (which plays the range again and compares) expects them from
//! one place.

use crate::report::crash::{cells_table, chain_summary_json};
use crate::report::results::tests_table;
use crate::scheme::crash::CrashVariant;
use crate::stats::battery::Battery;
use crate::stats::crash::{battery, CrashGame, CrashLaws};
use crate::sweep::crash::ChainLink;
use crate::tally::crash::CrashTally;

/// The battery of a range of `variant`'s chain at `alpha`, and the files it gives:
/// `tests.csv`, `summary.json` (the battery with how the range reached the published
/// game) and `crash_cells.csv`, as (name, bytes).
pub fn result_files(
    variant: CrashVariant,
    tally: &CrashTally,
    link: &ChainLink,
    alpha: f64,
) -> (Vec<(String, Vec<u8>)>, Battery<CrashGame>) {
    let battery = battery(variant, tally, alpha);
    let tests = tests_table(&battery);
    let cells = cells_table(&CrashLaws::of(variant), tally);
    let files = vec![
        (tests.file_name.clone(), tests.to_csv()),
        ("summary.json".to_owned(), chain_summary_json(&battery, link)),
        (cells.file_name.clone(), cells.to_csv()),
    ];
    (files, battery)
}
