//! A sweep of a keyed scheme (`sweep --scheme stake|duel`, a merge of its shards or of
//! adjacent sweeps): the files its folder holds, chosen and made here from its tallies and
//! its run, so that `sweep`, `merge` and `certify` (which sweeps it again and compares)
//! write and expect the same files from one place.

use crate::report::results::{summary_json_of, tests_table_of};
use crate::report::stake::{counts_table, rtp_table, OutcomeCounts, StakePlan, StakeRun};
use crate::report::stake_html::StakeHtmlReport;
use crate::rtp::stake_realised::{realised_returns, RealisedReturn};
use crate::rtp::RTP_TABLE;
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::cells::GameLaws;
use crate::scheme::stake::StakeGame;
use crate::stats::battery::Battery;
use crate::stats::stake::battery;
use crate::tally::file::NonceRange;
use crate::tally::shards::ShardOf;
use crate::tally::stake::{StakeTally, Swept};
use crate::tally::stake_file::{StakeTallyFile, STAKE_TALLY_FILE};

/// The tally file of a sweep of `plan` (its nonces and seed pairs), nothing swept yet.
pub fn empty_file(game: &StakeGame, plan: &StakePlan, shard: Option<ShardOf>) -> StakeTallyFile {
    let seeds: Vec<(String, String)> =
        plan.seed_pairs.iter().map(|[s, c, _]| (s.clone(), c.clone())).collect();
    StakeTallyFile::new(
        plan.keyed_scheme(),
        game,
        NonceRange { start: plan.nonces[0], end: plan.nonces[1] },
        &seeds,
        shard,
    )
}

/// The complete tally file of an unsharded sweep of `plan` whose seed pairs counted
/// `tallies` (what `certify` compares a sweep's file with).
pub fn complete_file(game: &StakeGame, plan: &StakePlan, tallies: Vec<StakeTally>) -> StakeTallyFile {
    let mut file = empty_file(game, plan, None);
    for (i, tally) in tallies.into_iter().enumerate() {
        file.record(i, Swept { tally, nonces: std::iter::once(plan.nonces[0]..plan.nonces[1]).collect() });
    }
    file
}

/// The groups of `rtp.csv` of a sweep: each seed pair by its index, and `all` where there
/// are several.
pub fn rtp_groups(game: &StakeGame, tallies: &[StakeTally]) -> Vec<(StakeGame, String, StakeTally)> {
    let mut groups: Vec<(StakeGame, String, StakeTally)> =
        tallies.iter().enumerate().map(|(i, t)| (*game, i.to_string(), t.clone())).collect();
    if tallies.len() > 1 {
        groups.push((*game, "all".to_owned(), StakeTally::sum(game, tallies)));
    }
    groups
}

/// What a sweep's files show beside its counts, computed once for them (the files and the
/// report only render it).
struct Figures {
    /// The game's exact laws.
    laws: GameLaws,
    /// Each bet's realised return per group of [`rtp_groups`] (`rtp.csv`).
    returns: Vec<RealisedReturn>,
    /// Each bet's realised return over every seed pair's rounds (the report's, group `all`).
    returns_of_all: Vec<RealisedReturn>,
}

impl Figures {
    /// The figures of `tallies` (one per seed pair) of `game`, bets realised at confidence
    /// 1 − `alpha`.
    fn of(scheme: KeyedScheme, game: &StakeGame, tallies: &[StakeTally], alpha: f64) -> Self {
        let all = [(*game, "all".to_owned(), StakeTally::sum(game, tallies))];
        Figures {
            laws: GameLaws::of(scheme, game),
            returns: realised_returns(scheme, &rtp_groups(game, tallies), alpha),
            returns_of_all: realised_returns(scheme, &all, alpha),
        }
    }
}

/// A folder's files: (name, bytes).
pub type Files = Vec<(String, Vec<u8>)>;

/// The files of a sweep's folder: the tallies and run.json, and the results when complete
/// (`tests.csv`, `summary.json`, `outcome_counts.csv`, `rtp.csv`, `report.html`).
pub fn folder_files(
    game: &StakeGame,
    file: &StakeTallyFile,
    run: &StakeRun,
    alpha: f64,
) -> (Files, Option<Battery<StakeGame>>) {
    let mut files =
        vec![(STAKE_TALLY_FILE.to_owned(), file.to_bytes()), ("run.json".to_owned(), run.to_json())];
    // An interrupted sweep writes its tallies only; a partial merge (complete shards, the
    // others named) writes its results, every verdict marked PARTIAL.
    if !file.complete && file.partial.is_none() {
        return (files, None);
    }
    let tallies = file.tallies();
    let battery = battery(file.scheme, game, &tallies, alpha);
    let tests = tests_table_of(&battery, file.partial.as_ref());
    files.push((tests.file_name.clone(), tests.to_csv()));
    files.push(("summary.json".to_owned(), summary_json_of(&battery, &[], file.partial.as_ref())));
    let figures = Figures::of(file.scheme, game, &tallies, alpha);
    files.push((OutcomeCounts::FILE_NAME.to_owned(), counts_table(&figures.laws, &tallies).to_csv()));
    files.push((RTP_TABLE.to_owned(), rtp_table(&figures.returns, alpha).to_csv()));
    let report = StakeHtmlReport {
        run,
        game,
        tallies: &tallies,
        battery: &battery,
        laws: &figures.laws,
        returns: &figures.returns_of_all,
    };
    files.push(("report.html".to_owned(), report.render().into_bytes()));
    (files, Some(battery))
}
