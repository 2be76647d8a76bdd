//! `sweep` as the worker of a scheduler (docs/cluster.md): `--shards N` cuts the nonce
//! range and the index comes from `--shard-index`, or from the variable the scheduler sets
//! per task (`SLURM_ARRAY_TASK_ID`, `JOB_COMPLETION_INDEX`); each shard writes its own
//! folder `shard-IIII-of-NNNN` inside `--out`, where `merge` finds it; `--checkpoint-every`
//! saves the tallies as the sweep goes; `--dry-run` prints the plan and the shard table.

use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::report::results::PARTIAL;
use fairaudit::sweep::shards::Coverage;
use fairaudit::tally::file::{NonceRange, Plan};
use fairaudit::tally::shards::{PartialOf, ShardOf, Sharding, MAX_SHARDS};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The variables a scheduler sets to a task's index, in the order they are read.
pub const INDEX_VARIABLES: [&str; 2] = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"];

/// How often a sweep saves its tallies when not told otherwise: at most five minutes of
/// work lost to a kill, and a checkpoint's cost (a few milliseconds to write a few
/// megabytes) invisible.
pub const DEFAULT_CHECKPOINT_EVERY: &str = "5m";

/// The options that make a sweep one task of many.
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Cut --nonces into N shards and sweep one of them (docs/cluster.md); its output goes
    /// to DIR/shard-IIII-of-NNNN inside --out.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SHARDS)))]
    pub shards: Option<u32>,
    /// The shard to sweep, 0 to N-1 (default: $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX).
    #[arg(long, value_name = "I", requires = "shards", value_parser = parse_index)]
    pub shard_index: Option<u64>,
    /// Save the tallies to --out this often while sweeping (and on Ctrl-C or SIGTERM), so
    /// that the same command started again continues from there: 30s, 5m, 1h [default: 5m].
    #[arg(long, value_name = "DURATION", value_parser = parse_interval)]
    pub checkpoint_every: Option<Duration>,
    /// Print the plan (with --shards, the shard table) and exit without sweeping.
    #[arg(long)]
    pub dry_run: bool,
}

impl ClusterArgs {
    /// The checkpoint interval: the one given, or [`DEFAULT_CHECKPOINT_EVERY`].
    pub fn checkpoint_interval(&self) -> Duration {
        self.checkpoint_every
            .unwrap_or_else(|| parse_interval(DEFAULT_CHECKPOINT_EVERY).expect("the default is an interval"))
    }
}

fn parse_index(text: &str) -> Result<u64, String> {
    fairaudit::fields::parse_small(text, 0..=u64::from(MAX_SHARDS) - 1, "a shard index")
}

/// A checkpoint interval: a duration of at least a millisecond (`250ms`, `30s`, `5m`).
pub fn parse_interval(text: &str) -> Result<Duration, String> {
    match humantime::parse_duration(text) {
        Ok(every) if every >= Duration::from_millis(1) => Ok(every),
        Ok(_) => Err("a checkpoint interval is at least 1ms".to_owned()),
        Err(error) => Err(format!(
            "'{}' is not a duration such as 30s, 5m or 1h ({error})",
            fairaudit::fields::Excerpt(text)
        )),
    }
}

/// This task's shard, and where its index came from.
pub struct ShardTask {
    /// Which shard of which cut.
    pub shard: ShardOf,
    /// `--shard-index`, or the variable read.
    pub index_from: String,
}

impl ShardTask {
    /// The shard's output folder inside `out`.
    pub fn folder(&self, out: &Path) -> PathBuf {
        out.join(folder_name(self.shard.index, self.shard.count))
    }
}

/// The cut `--shards` asks for, over a sweep's range.
pub fn sharding(range: NonceRange, count: u32) -> Result<Sharding> {
    Sharding::new(range, count)
        .with_context(|| format!("--shards {count} --nonces {}..{}", range.start, range.end))
}

/// The shard index: `--shard-index`, else the first scheduler variable set. `None` when
/// neither is there.
pub fn index(sharding: &Sharding, explicit: Option<u64>) -> Result<Option<ShardTask>> {
    let (index, from) = match explicit {
        Some(index) => (index, "--shard-index".to_owned()),
        None => {
            let Some((name, value)) =
                INDEX_VARIABLES.iter().find_map(|name| std::env::var(name).ok().map(|value| (*name, value)))
            else {
                return Ok(None);
            };
            let index = parse_index(value.trim()).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
            (index, name.to_owned())
        }
    };
    let index = sharding.check_index(index).with_context(|| {
        format!(
            "the index from {from} (submit the array as 0-{last}: Slurm --array=0-{last}, or an Indexed Job of {count} completions)",
            last = sharding.count - 1,
            count = sharding.count
        )
    })?;
    Ok(Some(ShardTask {
        shard: ShardOf { index, count: sharding.count, nonces: sharding.nonces },
        index_from: from,
    }))
}

/// The index needed to sweep, or the error that says where to give it.
pub fn require_index(sharding: &Sharding, explicit: Option<u64>) -> Result<ShardTask> {
    match index(sharding, explicit)? {
        Some(task) => Ok(task),
        None => bail!(
            "--shards {} needs the shard to sweep: --shard-index I, or {} set by the scheduler (submit the array as 0-{}: Slurm --array=0-{}, or an Indexed Job of {} completions; --dry-run prints the shard table)",
            sharding.count,
            INDEX_VARIABLES.join(" or "),
            sharding.count - 1,
            sharding.count - 1,
            sharding.count
        ),
    }
}

/// Digits of the shard numbers in folder names: four, or more for a larger count, the
/// same for every shard of a cut so that names sort in index order.
fn digits(count: u32) -> usize {
    (count - 1).max(1).ilog10() as usize + 1
}

/// `shard-0003-of-0016`: shard 3 of 16.
pub fn folder_name(index: u32, count: u32) -> String {
    let width = digits(count).max(4);
    format!("shard-{index:0width$}-of-{count:0width$}")
}

/// The index and count in a shard folder's name, if it is one.
pub fn parse_folder_name(name: &str) -> Option<(u32, u32)> {
    let (index, count) = name.strip_prefix("shard-")?.split_once("-of-")?;
    let number =
        |text: &str| text.bytes().all(|b| b.is_ascii_digit()).then(|| text.parse::<u32>().ok()).flatten();
    let (index, count) = (number(index)?, number(count)?);
    (index < count && folder_name(index, count) == name).then_some((index, count))
}

/// Checks that a shard folder's name, if it is one, names the shard its tally file `file`
/// records (`recorded`: index and count): a renamed folder would otherwise be merged as
/// another shard.
pub fn check_folder_name(dir: &Path, recorded: Option<(u32, u32)>, file: &str) -> Result<()> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let (Some((index, count)), Some(recorded)) = (parse_folder_name(&name), recorded) {
        if (index, count) != recorded {
            bail!(
                "{}: the folder's name says shard {index} of {count}, its {file} says shard {} of {}",
                dir.display(),
                recorded.0,
                recorded.1
            );
        }
    }
    Ok(())
}

/// The shard folders inside `dir`, by name order.
pub fn shard_folders(dir: &Path) -> Result<Vec<(PathBuf, (u32, u32))>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("{}: cannot read", dir.display()))? {
        let entry = entry.with_context(|| format!("{}: cannot read", dir.display()))?;
        if let Some(shard) = parse_folder_name(&entry.file_name().to_string_lossy()) {
            if entry.path().is_dir() {
                found.push((entry.path(), shard));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// What a sweep's `--dry-run` prints: the games (named), how many seed pairs, the range.
pub struct PlanShape {
    /// The games' names.
    pub games: Vec<String>,
    /// How many seed pairs.
    pub seed_pairs: u64,
    /// The nonces.
    pub nonces: NonceRange,
}

impl PlanShape {
    /// The shape of a sweep of the default scheme.
    pub fn of(plan: &Plan) -> Self {
        PlanShape {
            games: plan.games.iter().map(|g| g.name().to_owned()).collect(),
            seed_pairs: plan.seed_pairs.len() as u64,
            nonces: plan.nonces[0],
        }
    }
}

/// `--dry-run`: the plan, and with `--shards` every shard's range and folder; this task's
/// shard when its index is known.
pub fn print_plan(plan: &PlanShape, cut: Option<(Sharding, Option<ShardTask>)>, out: &Path) {
    let range = plan.nonces;
    let pairs = plan.seed_pairs;
    let games = plan.games.join(", ");
    let rounds = |r: NonceRange| u128::from(r.end - r.start) * u128::from(pairs) * plan.games.len() as u128;
    outln!("games: {games}");
    outln!("seed pairs: {pairs}");
    outln!("nonces: {}..{} ({} rounds in all)", range.start, range.end, rounds(range));
    let Some((sharding, task)) = cut else {
        outln!("output: {}", super::print::ShownPath(out));
        return;
    };
    outln!("shards: {} (each sweeps every game and seed pair over its nonces)", sharding.count);
    let width = |n: u64| n.to_string().len();
    let nonce_width = sharding.ranges().map(|r| width(r.start) + width(r.end) + 2).max().unwrap_or(0);
    outln!("{:>5}  {:<nonce_width$}  {:>12}  folder", "shard", "nonces", "rounds");
    for (index, r) in sharding.ranges().enumerate() {
        let name = folder_name(index as u32, sharding.count);
        let nonces = format!("{}..{}", r.start, r.end);
        outln!(
            "{index:>5}  {nonces:<nonce_width$}  {:>12}  {}",
            rounds(r),
            super::print::ShownPath(&out.join(name))
        );
    }
    outln!("merge: fairaudit merge {} --out MERGED", super::print::ShownPath(out));
    if let Some(task) = task {
        let r = sharding.range(task.shard.index);
        outln!(
            "this task: shard {} (index from {}), nonces {}..{}",
            task.shard.index,
            task.index_from,
            r.start,
            r.end
        );
    }
}

/// The first line a merge of shards prints: all merged, or which are missing.
pub(super) fn print_coverage(coverage: &Coverage) {
    let whole = coverage.sharding.nonces;
    if coverage.is_complete() {
        outln!("merged all {} shards of nonces {}..{}", coverage.sharding.count, whole.start, whole.end);
    } else {
        outln!(
            "{PARTIAL}: merged {} of {} shards of nonces {}..{}; missing or interrupted: {}",
            coverage.complete().len(),
            coverage.sharding.count,
            whole.start,
            whole.end,
            coverage.gaps()
        );
    }
}

/// The last line a partial merge prints, after its battery.
pub(super) fn print_partial_verdict(partial: &PartialOf) {
    outln!(
        "verdict: {PARTIAL} ({} of {} shards missing or interrupted; the verdicts above speak only for the shards merged)",
        partial.missing.len(),
        partial.count
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_sort_by_index_and_read_back() {
        assert_eq!(folder_name(3, 16), "shard-0003-of-0016");
        assert_eq!(folder_name(0, 1), "shard-0000-of-0001");
        assert_eq!(folder_name(12_345, 100_000), "shard-12345-of-100000");
        assert_eq!(folder_name(9_999, 10_000), "shard-9999-of-10000");
        for (index, count) in [(3, 16), (0, 1), (12_345, 100_000), (9_999, 10_000), (999_999, MAX_SHARDS)] {
            assert_eq!(parse_folder_name(&folder_name(index, count)), Some((index, count)));
        }
        for name in ["shard-3-of-16", "shard-0016-of-0016", "shard-000a-of-0016", "shard-0003-of-0016x", "x"]
        {
            assert_eq!(parse_folder_name(name), None, "{name}");
        }
    }

    #[test]
    fn intervals_read_as_durations() {
        assert_eq!(parse_interval("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_interval("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_interval("0s").is_err());
        assert!(parse_interval("often").unwrap_err().contains("not a duration"));
    }
}
