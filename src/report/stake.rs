//! The files of a sweep of a game of the HMAC-SHA256 family (`sweep --scheme stake`):
//! `outcome_counts.csv` (every count beside its exact expectation) and `run.json`; its
//! `tests.csv` and `summary.json` are the battery's ([`super::results`]).

use super::table::{Cell, Table};
use crate::scheme::stake::cells::{coarse_law, outcome_law, step_laws};
use crate::scheme::stake::StakeGame;
use crate::tally::stake::StakeTally;
use serde::Serialize;

/// `outcome_counts.csv`: per seed pair, every cell of every view with its count and the
/// count its exact law expects. Columns: `seed_pair, view, cell, observed, expected,
/// exact_probability`; views `outcome`, `step_1`…, `pairs` (cell `a:b`, the coarse
/// classes of rounds 2k and 2k+1).
pub fn counts_table(game: &StakeGame, per_pair: &[StakeTally]) -> Table {
    let mut table = Table::new(
        "outcome_counts.csv",
        vec!["seed_pair", "view", "cell", "observed", "expected", "exact_probability"],
    );
    let (outcomes, steps, coarse) = (outcome_law(game), step_laws(game), coarse_law(game));
    for (pair, tally) in per_pair.iter().enumerate() {
        let mut push = |view: String, cell: String, observed: u64, p: f64, trials: u64| {
            table.push(vec![
                Cell::Int(pair as u64),
                view.into(),
                cell.into(),
                Cell::Int(observed),
                Cell::Num(p * trials as f64),
                Cell::Num(p),
            ]);
        };
        for (cell, (&observed, &p)) in tally.outcomes.iter().zip(&outcomes).enumerate() {
            push("outcome".into(), cell.to_string(), observed, p, tally.rounds);
        }
        for (step, (counts, law)) in tally.steps.iter().zip(&steps).enumerate() {
            for (index, (&observed, &p)) in counts.iter().zip(law).enumerate() {
                push(format!("step_{}", step + 1), index.to_string(), observed, p, tally.rounds);
            }
        }
        let pairs: u64 = tally.pairs.iter().sum();
        for (cell, &observed) in tally.pairs.iter().enumerate() {
            let (first, second) = (cell / coarse.len(), cell % coarse.len());
            let p = coarse[first] * coarse[second];
            push("pairs".into(), format!("{first}:{second}"), observed, p, pairs);
        }
    }
    table
}

/// What `run.json` says of a sweep of the family: enough to run it again and to know what
/// was swept (a later run into the folder compares `plan`).
#[derive(Serialize)]
pub struct StakeRun<'a> {
    /// [`super::run_info::RUN_FORMAT`].
    pub format: &'static str,
    /// `sweep`.
    pub kind: &'static str,
    /// The fairaudit version.
    pub fairaudit_version: &'static str,
    /// The source revision of the build ([`crate::REVISION`]).
    pub fairaudit_revision: &'static str,
    /// What was swept.
    pub plan: StakePlan,
    /// The command line.
    pub command_line: &'a [String],
    /// Worker threads.
    pub threads: usize,
    /// Rounds swept.
    pub rounds: u64,
    /// Seconds the sweep took.
    pub elapsed_seconds: f64,
}

/// The plan of a sweep of the family.
#[derive(Serialize, PartialEq, Eq, Debug)]
pub struct StakePlan {
    /// `stake`.
    pub scheme: &'static str,
    /// The game's name.
    pub game: &'static str,
    /// Its parameters (compact JSON, empty where none).
    pub params: String,
    /// The half-open nonce range.
    pub nonces: [u64; 2],
    /// The seed pairs: server seed, client seed, and the commitment (SHA-256 of the
    /// server seed, lowercase hex).
    pub seed_pairs: Vec<[String; 3]>,
}

impl StakeRun<'_> {
    /// The file's bytes.
    pub fn to_json(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("run.json serialises");
        bytes.push(b'\n');
        bytes
    }
}
