//! The files of a sweep of a game of the HMAC-SHA256 family (`sweep --scheme stake`):
//! `outcome_counts.csv` (every count beside its exact expectation) and `run.json`; its
//! `tests.csv` and `summary.json` are the battery's ([`super::results`]).

use super::table::{csv_writer, format_number, Cell, Table};
use crate::rtp::stake_realised::RealisedReturn;
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::cells::GameLaws;
use crate::scheme::stake::StakeGame;
use crate::tally::stake::StakeTally;
use serde::{Deserialize, Serialize};

/// `outcome_counts.csv`: per seed pair, every cell of every view with its count and the
/// count its exact law expects. Columns: `seed_pair, view, cell, observed, expected,
/// exact_probability`; views `outcome`, `step_1`…, `pairs` (cell `a:b`, the coarse
/// classes of rounds 2k and 2k+1).
///
/// Its rows are written as they are made ([`OutcomeCounts::to_csv`]) rather than kept as a
/// [`Table`]: dice has 10,101 rows per seed pair, and held as cells they took about 3 MB
/// per pair, which made a sweep of a few thousand seed pairs run out of memory.
pub fn counts_table<'a>(laws: &'a GameLaws, per_pair: &'a [StakeTally]) -> OutcomeCounts<'a> {
    OutcomeCounts { laws, per_pair }
}

/// `outcome_counts.csv` of some tallies, made when written ([`counts_table`]).
pub struct OutcomeCounts<'a> {
    laws: &'a GameLaws,
    per_pair: &'a [StakeTally],
}

impl OutcomeCounts<'_> {
    /// The file's name.
    pub const FILE_NAME: &'static str = "outcome_counts.csv";

    /// The CSV bytes, as [`Table::to_csv`] writes a table of these rows.
    pub fn to_csv(&self) -> Vec<u8> {
        let mut writer = csv_writer(Vec::new());
        let header = ["seed_pair", "view", "cell", "observed", "expected", "exact_probability"];
        writer.write_record(header).expect("writing to memory");
        let GameLaws { outcome: outcomes, steps, coarse } = self.laws;
        for (pair, tally) in self.per_pair.iter().enumerate() {
            let mut push = |view: &str, cell: &str, observed: u64, p: f64, trials: u64| {
                let (pair, observed) = (pair.to_string(), observed.to_string());
                let (expected, p) = (format_number(p * trials as f64), format_number(p));
                writer
                    .write_record([&pair, view, cell, &observed, &expected, &p])
                    .expect("writing to memory");
            };
            for (cell, (&observed, &p)) in tally.outcomes.iter().zip(outcomes).enumerate() {
                push("outcome", &cell.to_string(), observed, p, tally.rounds);
            }
            for (step, (counts, law)) in tally.steps.iter().zip(steps).enumerate() {
                let view = format!("step_{}", step + 1);
                for (index, (&observed, &p)) in counts.iter().zip(law).enumerate() {
                    push(&view, &index.to_string(), observed, p, tally.rounds);
                }
            }
            let pairs: u64 = tally.pairs.iter().sum();
            for (cell, &observed) in tally.pairs.iter().enumerate() {
                let (first, second) = (cell / coarse.len(), cell % coarse.len());
                let p = coarse[first] * coarse[second];
                push("pairs", &format!("{first}:{second}"), observed, p, pairs);
            }
        }
        writer.into_inner().expect("writing to memory")
    }
}

/// `rtp.csv` of a sweep or an audit of the family: per group of rounds of a game (a seed
/// pair, their sum `all`, a history's rounds of the game) the realised return of each bet
/// whose return the tallies give beside its exact RTP, at confidence 1 − `alpha`
/// ([`crate::rtp::stake_realised::realised_returns`]). The columns of the default scheme's
/// `rtp.csv` ([`super::results::rtp_table`]); the `game` column names the game with its
/// parameters. Dice, Keno and mines, whose payout rules are not sourced, have no rows.
pub fn rtp_table(returns: &[RealisedReturn], alpha: f64) -> Table {
    let mut table = super::results::rtp_table(&[]);
    for RealisedReturn { game, group, exact, estimate } in returns {
        let (bet_type, which) = exact.bet.split_once(' ').unwrap_or((&exact.bet, ""));
        let names = [
            Cell::Text(game.to_string()),
            Cell::User(group.clone()),
            Cell::Text(bet_type.to_owned()),
            Cell::Text(which.to_owned()),
        ];
        let note = Cell::Text(match game {
            StakeGame::Plinko { .. } => {
                "the published multiplier table (docs/schemes.md); exact over the 2^32 floats".into()
            }
            _ => format!("pays {} per unit stake; exact over the 2^32 floats", decimal(&exact.pays)),
        });
        table.push(super::results::rtp_cells(names, estimate, 1.0 - alpha, note));
    }
    table
}

/// A rational as a short decimal (`36`, `18`, `2`, `1.01`).
fn decimal(x: &num_rational::BigRational) -> String {
    use num_traits::ToPrimitive;
    let value = x.to_f64().unwrap_or(f64::NAN);
    let text = format!("{value:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What `run.json` says of a sweep of the family: enough to run it again and to know what
/// was swept (a later run into the folder compares `plan`). `certify` reads it back to
/// make the sweep's `report.html` again.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StakeRun {
    /// [`super::run_info::RUN_FORMAT`].
    pub format: String,
    /// `sweep`, or `merge` for a merge of a sweep's shards.
    pub kind: String,
    /// The fairaudit version.
    pub fairaudit_version: String,
    /// The source revision of the build ([`crate::REVISION`]).
    pub fairaudit_revision: String,
    /// What was swept.
    pub plan: StakePlan,
    /// The command line.
    pub command_line: Vec<String>,
    /// Worker threads (none for a merge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Rounds tallied: all of the plan's when complete.
    pub rounds: u64,
    /// Whether every round of the plan is tallied; an interrupted sweep's folder holds its
    /// tallies (`stake_tally.json`) and no results.
    #[serde(default = "complete_by_default")]
    pub complete: bool,
    /// Which shard of which cut, for a shard (its plan holds the shard's own nonces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::tally::shards::ShardOf>,
    /// For a merge lacking some shards (`merge --allow-partial`): which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<crate::tally::shards::PartialOf>,
    /// Seconds this run took.
    pub elapsed_seconds: f64,
}

/// Folders written before `complete` was recorded hold complete sweeps only.
fn complete_by_default() -> bool {
    true
}

/// The plan of a sweep of the family.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Debug)]
pub struct StakePlan {
    /// The keyed scheme's name (`stake`, ...).
    pub scheme: String,
    /// The game's name.
    pub game: String,
    /// Its parameters (compact JSON, empty where none).
    pub params: String,
    /// The half-open nonce range.
    pub nonces: [u64; 2],
    /// The seed pairs: server seed, client seed, and the commitment (SHA-256 of the
    /// server seed, lowercase hex).
    pub seed_pairs: Vec<[String; 3]>,
}

impl StakePlan {
    /// The keyed scheme the plan names (checked where the plan is made or read; the
    /// HMAC-SHA256 family for a name that is none).
    pub fn keyed_scheme(&self) -> KeyedScheme {
        self.scheme.parse().ok().and_then(KeyedScheme::of).unwrap_or_default()
    }
}

impl StakeRun {
    /// The file's bytes.
    pub fn to_json(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("run.json serialises");
        bytes.push(b'\n');
        bytes
    }
}
