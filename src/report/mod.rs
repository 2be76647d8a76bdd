//! Output: tables written as CSV, run facts as JSON, everything as bytes (the CLI writes
//! them to disk atomically).

pub mod run_info;
pub mod table;
pub mod tallies;

use crate::rtp::empirical::rtp_table;
use crate::rtp::paytable::Paytable;
use crate::stats::battery::Battery;
use crate::sweep::file::TallyFile;
pub use run_info::RunInfo;
pub use table::{format_number, spreadsheet_safe, Cell, Table};

/// The files derived from a tally file, by name: `tally.json`, every tally table, and
/// with a battery `tests.csv` and `summary.json`, with a paytable `rtp.csv` (empirical RTP
/// per bet type). `run.json` is separate because it records timing, which differs
/// between runs.
pub fn output_files(
    tallies: &TallyFile,
    battery: Option<&Battery>,
    paytable: Option<&Paytable>,
) -> Vec<(String, Vec<u8>)> {
    let mut files = vec![("tally.json".to_owned(), tallies.to_bytes())];
    if tallies.complete {
        files.extend(tallies::tally_tables(tallies).into_iter().map(|t| (t.file_name.clone(), t.to_csv())));
    }
    if let Some(battery) = battery {
        files.push(("tests.csv".to_owned(), battery.tests_table().to_csv()));
        files.push(("summary.json".to_owned(), battery.summary_json()));
    }
    if let (Some(paytable), true) = (paytable, tallies.complete) {
        let table = rtp_table(tallies, paytable, battery.map_or(0.01, |b| b.alpha));
        files.push((table.file_name.clone(), table.to_csv()));
    }
    files
}
