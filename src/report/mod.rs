//! Output: every file a run writes, produced as bytes behind one trait ([`Export`]) so
//! each format is tested without the disk; the CLI writes them atomically.

pub mod audit_html;
pub mod certificate;
pub mod certificate_chain;
mod certificate_parts;
pub mod certificate_stake;
pub mod challenge;
pub mod coverage;
pub mod crash;
pub mod html;
pub mod results;
pub mod run_info;
pub mod stake;
pub mod stake_audit_html;
pub mod stake_html;
pub mod svg;
pub mod table;
pub mod tallies;

use crate::results::RunResults;
use crate::stats::battery::Battery;
use crate::tally::file::TallyFile;
use crate::tally::shards::PartialOf;
pub use html::HtmlReport;
pub use run_info::RunInfo;
pub use table::{csv_writer, format_number, spreadsheet_safe, Cell, Table};

/// A file fairaudit writes: its name in the output folder and its bytes.
pub trait Export {
    /// The file name, e.g. `tests.csv`.
    fn file_name(&self) -> String;
    /// The file's complete contents.
    fn to_bytes(&self) -> Vec<u8>;
}

impl<T: Export + ?Sized> Export for &T {
    fn file_name(&self) -> String {
        (**self).file_name()
    }
    fn to_bytes(&self) -> Vec<u8> {
        (**self).to_bytes()
    }
}

impl Export for Table {
    fn file_name(&self) -> String {
        self.file_name.clone()
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.to_csv()
    }
}

impl Export for TallyFile {
    fn file_name(&self) -> String {
        "tally.json".into()
    }
    fn to_bytes(&self) -> Vec<u8> {
        TallyFile::to_bytes(self)
    }
}

impl Export for RunInfo {
    fn file_name(&self) -> String {
        "run.json".into()
    }
    fn to_bytes(&self) -> Vec<u8> {
        RunInfo::to_bytes(self)
    }
}

/// `summary.json` of a battery, with the run's warnings (of a merge lacking the shards
/// named, if any).
pub struct Summary<'a>(pub &'a Battery, pub &'a [String], pub Option<&'a PartialOf>);

impl Export for Summary<'_> {
    fn file_name(&self) -> String {
        "summary.json".into()
    }
    fn to_bytes(&self) -> Vec<u8> {
        results::summary_json_of(self.0, self.1, self.2)
    }
}

impl Export for HtmlReport<'_> {
    fn file_name(&self) -> String {
        "report.html".into()
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.render().into_bytes()
    }
}

/// Everything one sweep or merge writes.
pub struct RunReport<'a> {
    /// The tallies.
    pub tallies: &'a TallyFile,
    /// How the run was made.
    pub run: &'a RunInfo,
    /// What it concluded (complete runs only).
    pub results: Option<&'a RunResults>,
}

impl RunReport<'_> {
    /// The files, by name. An interrupted sweep writes only `tally.json` and `run.json`;
    /// a complete one also the tally tables, `tests.csv`, `summary.json`, `rtp.csv` and
    /// `report.html`.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut exports: Vec<Box<dyn Export + '_>> = vec![Box::new(self.tallies), Box::new(self.run)];
        if let (true, Some(results)) = (self.tallies.complete, self.results) {
            exports.extend(
                tallies::tally_tables(self.tallies, results)
                    .into_iter()
                    .map(|t| Box::new(t) as Box<dyn Export>),
            );
            let partial = self.tallies.partial.as_ref();
            exports.push(Box::new(results::tests_table_of(&results.battery, partial)));
            exports.push(Box::new(Summary(&results.battery, &results.warnings, partial)));
            exports.push(Box::new(results::rtp_table(&results.rtp)));
            exports.push(Box::new(HtmlReport { run: self.run, tallies: self.tallies, results }));
        }
        exports.iter().map(|e| (e.file_name(), e.to_bytes())).collect()
    }
}
