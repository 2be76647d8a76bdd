//! The files of a sweep of a crash chain (`sweep --scheme bustabit-v1|roobet`):
//! `crash_cells.csv` (every count beside its exact expectation), `run.json`, and a
//! `summary.json` that says how the range reached the operator's published game; its
//! `tests.csv` is the battery's ([`super::results`]).

use super::results::summary_json_with;
use super::table::{Cell, Table};
use crate::scheme::crash::hundredths_text;
use crate::stats::battery::Battery;
use crate::stats::crash::{CrashGame, CrashLaws};
use crate::sweep::crash::ChainLink;
use crate::tally::crash::{CrashTally, CLASSES, EDGES};
use serde::Serialize;

/// The names of the coarse classes of the pairs view.
const CLASS_NAMES: [&str; CLASSES] = ["instant", "below_2x", "2x_or_more"];

/// The name of a crash-point cell: `instant`, then `[1.00,1.01)` and on to `[100.00,)`.
pub fn cell_name(cell: usize) -> String {
    match cell {
        0 => "instant".to_owned(),
        _ => {
            let lower = hundredths_text(EDGES[cell - 1]);
            let upper = EDGES.get(cell).map_or_else(String::new, |&edge| hundredths_text(edge));
            format!("[{lower},{upper})")
        }
    }
}

/// `crash_cells.csv`: every cell of the crash points and of the pairs of games, with its
/// count and the count its exact law expects. Columns: `view, cell, observed, expected,
/// exact_probability`; views `crash_point` and `pairs` (cell `first:second`, by class).
pub fn cells_table(laws: &CrashLaws, tally: &CrashTally) -> Table {
    let mut table =
        Table::new("crash_cells.csv", vec!["view", "cell", "observed", "expected", "exact_probability"]);
    let mut push = |view: &str, cell: String, observed: u64, p: f64, trials: u64| {
        table.push(vec![
            view.to_owned().into(),
            cell.into(),
            Cell::Int(observed),
            Cell::Num(p * trials as f64),
            Cell::Num(p),
        ]);
    };
    for (cell, (&observed, &p)) in tally.cells.iter().zip(&laws.cells).enumerate() {
        push("crash_point", cell_name(cell), observed, p, tally.games);
    }
    let classes = laws.classes;
    let pairs: u64 = tally.pairs.iter().sum();
    for (cell, &observed) in tally.pairs.iter().enumerate() {
        let (first, second) = (cell / CLASSES, cell % CLASSES);
        let name = format!("{}:{}", CLASS_NAMES[first], CLASS_NAMES[second]);
        push("pairs", name, observed, classes[first] * classes[second], pairs);
    }
    table
}

/// The plan of a sweep of a chain: enough to run it again (a later run into the folder
/// compares it).
#[derive(Serialize, PartialEq, Eq, Debug)]
pub struct CrashPlan {
    /// `bustabit-v1` or `roobet`.
    pub scheme: &'static str,
    /// `crash`.
    pub game: &'static str,
    /// The half-open range of game numbers swept.
    pub games: [u64; 2],
    /// The hash of the range's highest game (`games[1] - 1`), where the walk starts.
    pub top_hash: String,
    /// The salt.
    pub salt: String,
}

/// What `run.json` says of a sweep of a chain.
#[derive(Serialize)]
pub struct CrashRun<'a> {
    /// [`super::run_info::RUN_FORMAT`].
    pub format: &'static str,
    /// `sweep`.
    pub kind: &'static str,
    /// The fairaudit version.
    pub fairaudit_version: &'static str,
    /// The source revision of the build ([`crate::REVISION`]).
    pub fairaudit_revision: &'static str,
    /// What was swept.
    pub plan: CrashPlan,
    /// The hash of the game below the range (`games[0] - 1`): where the walk ended.
    pub end_hash: &'a str,
    /// How the range reached the published game.
    pub chain: &'a ChainLink,
    /// The command line.
    pub command_line: &'a [String],
    /// Worker threads.
    pub threads: usize,
    /// Games swept.
    pub games: u64,
    /// Seconds the sweep took, the walk to the published game included.
    pub elapsed_seconds: f64,
}

impl CrashRun<'_> {
    /// The file's bytes.
    pub fn to_json(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("run.json serialises");
        bytes.push(b'\n');
        bytes
    }
}

/// `summary.json` of a chain: the battery's summary with `chain` (how the range reached
/// the published game) added; a broken link makes `verdict` FAIL whatever the battery
/// found, which `battery_verdict` then keeps.
pub fn chain_summary_json(battery: &Battery<CrashGame>, chain: &ChainLink) -> Vec<u8> {
    summary_json_with(battery, &[], None, Some(chain), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::crash::{CrashPoint, CrashVariant};

    #[test]
    fn cells_are_named_by_their_edges_and_expected_from_the_exact_law() {
        assert_eq!(cell_name(0), "instant");
        assert_eq!(cell_name(1), "[1.00,1.01)");
        assert_eq!(cell_name(EDGES.len()), "[100.00,)");
        let mut tally = CrashTally::new();
        for point in [CrashPoint::Instant, CrashPoint::Hundredths(100), CrashPoint::Hundredths(250)] {
            tally.add(point);
        }
        let table = cells_table(&CrashLaws::of(CrashVariant::BustabitV1), &tally).to_csv();
        let text = String::from_utf8(table).unwrap();
        assert!(
            text.starts_with("\"view\",\"cell\",\"observed\",\"expected\",\"exact_probability\"\r\n"),
            "{text}"
        );
        assert!(text.contains("\"crash_point\",\"instant\",1,0.0297"), "{text}");
        assert!(text.contains("\"pairs\",\"instant:below_2x\",1,"), "{text}");
        assert_eq!(text.lines().count(), 1 + EDGES.len() + 1 + CLASSES * CLASSES);
    }

    #[test]
    fn a_broken_link_fails_the_summary_whatever_the_battery_says() {
        let tally = CrashTally::new();
        let battery = crate::stats::crash::battery(CrashVariant::Roobet, &tally, 0.01);
        let summary = |chain: &ChainLink| -> serde_json::Value {
            serde_json::from_slice(&chain_summary_json(&battery, chain)).unwrap()
        };
        let linked = summary(&ChainLink::Linked { game: 1, hash: "h", steps: 3 });
        assert_eq!(linked["chain"]["status"], "linked");
        assert!(linked.get("battery_verdict").is_none());
        let broken = summary(&ChainLink::Broken {
            game: 1,
            hash: "h",
            steps: 3,
            reached: "a".to_owned(),
            expected: "b".to_owned(),
        });
        assert_eq!(broken["verdict"], "FAIL");
        assert_eq!(broken["battery_verdict"], linked["verdict"]);
        assert_eq!(broken["chain"]["reached"], "a");
    }
}
