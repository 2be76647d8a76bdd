//! `fairaudit merge`: the tally files of sweeps over disjoint ranges, or the shard folders
//! of one sweep cut with `--shards` → one tally file → the results → the folder's files,
//! written as a unit → the terminal. Shards are checked for coverage: every missing or
//! interrupted one is named, and a partial merge is made only with `--allow-partial`, and
//! then says PARTIAL in every file and on the terminal.

use super::args::{command_line, load_claims, load_paytable, MergeArgs};
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::input::{install_stop_handler, stopped, Interrupted};
use super::output::read_tally;
use super::print::ShownPath;
use super::progress::{Progress, Unit};
use super::shards::{check_folder_name, print_coverage, print_partial_verdict, shard_folders};
use super::sweep::fill_timing;
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::report::{RunInfo, RunReport};
use fairaudit::results::RunResults;
use fairaudit::sweep::shards::{merge_shards, Coverage, ShardInput};
use fairaudit::sweep::{self, MergeError};
use fairaudit::tally::file::{TallyFile, TALLY_FILE};
use fairaudit::tally::shards::PartialOf;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One tally file to merge, and the folder it came from.
struct Input {
    dir: PathBuf,
    tallies: TallyFile,
}

/// The tally files the arguments name: a folder holding a tally file is one input; a
/// folder holding shard folders gives one input per shard folder that holds a tally file
/// (one that holds none yet is a shard not started, which the coverage check names).
fn read_inputs(dirs: &[PathBuf], bar: &Progress) -> Result<Vec<Input>> {
    let mut inputs = Vec::new();
    for dir in dirs {
        if dir.join(TALLY_FILE).exists() || !dir.is_dir() {
            inputs.push(read_input(dir)?);
            bar.inc(1);
            continue;
        }
        let shards = shard_folders(dir)?;
        if shards.is_empty() {
            bail!(
                "{}: holds neither a {TALLY_FILE} nor shard folders (shard-IIII-of-NNNN, written by 'sweep --shards')",
                dir.display()
            );
        }
        let before = inputs.len();
        for (shard_dir, _) in &shards {
            stop_point()?;
            if shard_dir.join(TALLY_FILE).exists() {
                inputs.push(read_input(shard_dir)?);
            }
        }
        if inputs.len() == before {
            bail!(
                "{}: none of its {} shard folders holds a {TALLY_FILE} yet (no shard has saved anything): nothing to merge",
                dir.display(),
                shards.len()
            );
        }
        bar.inc(1);
    }
    Ok(inputs)
}

/// One folder's tally file; a shard folder's name must agree with the shard its file
/// records (a renamed folder would otherwise be merged as another shard).
fn read_input(dir: &Path) -> Result<Input> {
    let tallies = read_tally(&dir.join(TALLY_FILE))?;
    check_folder_name(dir, tallies.shard.map(|s| (s.index, s.count)), TALLY_FILE)?;
    Ok(Input { dir: dir.to_owned(), tallies })
}

/// The merged tallies, and for shards which were found (the coverage).
fn merge_inputs(inputs: Vec<Input>, allow_partial: bool) -> Result<(TallyFile, Option<Coverage>)> {
    if inputs.iter().any(|i| i.tallies.shard.is_some() || i.tallies.partial.is_some()) {
        let inputs: Vec<ShardInput> = inputs
            .into_iter()
            .map(|i| ShardInput { label: i.dir.display().to_string(), tallies: i.tallies })
            .collect();
        let merged = merge_shards(inputs, allow_partial)?;
        return Ok((merged.tallies, Some(merged.coverage)));
    }
    let dirs: Vec<PathBuf> = inputs.iter().map(|i| i.dir.clone()).collect();
    let merged =
        sweep::merge(inputs.into_iter().map(|i| i.tallies).collect()).map_err(|error| match error {
            MergeError::Incomplete(i) => anyhow::anyhow!(
                "{}: {error}: finish it (the same sweep command continues it) before merging",
                dirs[i - 1].display()
            ),
            other => other.into(),
        })?;
    Ok((merged, None))
}

/// Returns [`Interrupted`] once Ctrl-C or SIGTERM has arrived.
fn stop_point() -> Result<()> {
    if stopped() {
        return Err(Interrupted.into());
    }
    Ok(())
}

pub fn run(args: MergeArgs) -> Result<Verdict> {
    if super::merge_stake::holds_stake_sweeps(&args.inputs) {
        return super::merge_stake::run(&args);
    }
    let started = (super::clock::now(), Instant::now());
    let paytable = load_paytable(args.report.paytable.as_deref())?;
    let claims = load_claims(args.report.claims.as_deref())?;
    // Ctrl-C and SIGTERM stop the merge between its steps: exit 130, the staging folder
    // removed (the folder's guard), the output folder as it was.
    install_stop_handler()?;
    let (folder, existing) = OutputFolder::claim(&args.out)?;
    // One step per folder named on the command line (a folder of shards is one step).
    let bar = Progress::new(Some(args.inputs.len() as u64), Unit::Inputs, args.quiet);
    let inputs = read_inputs(&args.inputs, &bar)?;
    drop(bar);
    stop_point()?;
    let count = inputs.len();
    let (merged, coverage) = merge_inputs(inputs, args.allow_partial)?;
    stop_point()?;
    match existing {
        Existing::Nothing => {}
        Existing::Run { .. } if args.force => {}
        Existing::Run { kind } if kind == "merge" || kind.is_empty() => {
            // The same merge again, or a merge of more shards of the same cut than an
            // earlier partial one held: what a merge job run again after the rest of its
            // array finished does.
            let same = read_tally(&args.out.join(TALLY_FILE)).is_ok_and(|earlier| {
                let same_merge = earlier.plan == merged.plan && earlier.partial == merged.partial;
                // The same sweep (its games and seed pairs) cut the same way: another
                // sweep that happens to share the range and shard count is another run.
                let same_sweep = earlier.plan.games == merged.plan.games
                    && earlier.plan.seed_source == merged.plan.seed_source
                    && earlier.plan.seed_pairs == merged.plan.seed_pairs;
                // ... and holding every shard the earlier merge held (a merge of fewer would
                // lose what it merged).
                let same_cut = |p: &PartialOf| {
                    coverage.as_ref().is_some_and(|c| c.sharding == p.sharding())
                        && merged
                            .partial
                            .as_ref()
                            .is_none_or(|now| now.missing.iter().all(|m| p.missing.contains(m)))
                };
                (same_merge && earlier.complete)
                    || (same_sweep && earlier.partial.as_ref().is_some_and(same_cut))
            });
            if !same {
                bail!(
                    "{} holds the output of a different run; choose another --out, or pass --force to replace it",
                    args.out.display()
                );
            }
        }
        Existing::Run { kind } => bail!(
            "{} holds the output of a fairaudit {kind}; choose another --out, or pass --force to replace it",
            args.out.display()
        ),
    }
    let mut info = RunInfo::for_tallies("merge", &merged, command_line());
    info.working_dir = super::args::working_dir();
    info.inputs =
        super::args::input_hashes(&[args.report.paytable.as_deref(), args.report.claims.as_deref()]);
    fill_timing(&mut info, started, 0);
    let results = RunResults::compute(&merged, &paytable, &claims, args.report.alpha);
    stop_point()?;
    let report = RunReport { tallies: &merged, run: &info, results: Some(&results) };
    folder.write_all(&report.files())?;
    stop_point()?;
    folder.commit().context("cannot write the merged output")?;
    if let Some(c) = &coverage {
        print_coverage(c);
    }
    outln!(
        "merged {count} inputs: {} nonces per game and seed pair; output: {}",
        merged.plan.rounds_per_sequence(),
        ShownPath(&args.out)
    );
    let verdict = print_battery(&results.battery, "seed pairs");
    if let Some(partial) = &merged.partial {
        print_partial_verdict(partial);
    }
    Ok(verdict)
}
