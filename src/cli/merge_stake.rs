//! `fairaudit merge` of sweeps of scheme stake (the shards of one sweep, or whole sweeps
//! of adjacent ranges): their `stake_tally.json` files → one tally file, that of one sweep
//! of the whole range ([`fairaudit::sweep::stake_merge`]) → its results → the folder's
//! files, written as a unit → the terminal. Every missing or interrupted shard is named,
//! and merged around only with `--allow-partial` (then every file and the terminal say
//! PARTIAL).

use super::args::MergeArgs;
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::input::{install_stop_handler, stopped, Interrupted};
use super::print::ShownPath;
use super::shards::{check_folder_name, print_coverage, print_partial_verdict, shard_folders};
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::app::keyed_sweep::folder_files;
use fairaudit::report::run_info::RUN_FORMAT;
use fairaudit::report::stake::{StakePlan, StakeRun};
use fairaudit::scheme::keyed::KeyedScheme;
use fairaudit::sweep::stake_merge::{merge_stake, MergedInputs, StakeShard};
use fairaudit::tally::file::TALLY_FILE;
use fairaudit::tally::stake_file::{StakeTallyFile, STAKE_TALLY_FILE};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Whether the folders `merge` is given hold sweeps of scheme stake (a folder's own
/// tally file, or its shard folders').
pub fn holds_stake_sweeps(inputs: &[PathBuf]) -> bool {
    inputs.iter().any(|dir| {
        dir.join(STAKE_TALLY_FILE).is_file()
            || shard_folders(dir)
                .is_ok_and(|shards| shards.iter().any(|(d, _)| d.join(STAKE_TALLY_FILE).is_file()))
    })
}

/// The shards the arguments name: a folder holding a tally file is one; a folder holding
/// shard folders gives one per shard folder that holds a tally file (one that holds none
/// yet is a shard not started, which the coverage check names).
fn read_shards(dirs: &[PathBuf]) -> Result<Vec<StakeShard>> {
    let mut shards = Vec::new();
    for dir in dirs {
        if dir.join(STAKE_TALLY_FILE).is_file() {
            shards.push(read_shard(dir)?);
            continue;
        }
        if dir.join(TALLY_FILE).is_file() {
            bail!(
                "{}: a sweep of scheme sha3, not of scheme {}: a merge joins sweeps of one scheme",
                dir.display(),
                KeyedScheme::names()
            );
        }
        let found = shard_folders(dir)?;
        let before = shards.len();
        for (shard_dir, _) in &found {
            if stopped() {
                return Err(Interrupted.into());
            }
            if shard_dir.join(STAKE_TALLY_FILE).is_file() {
                shards.push(read_shard(shard_dir)?);
            }
        }
        if shards.len() == before {
            bail!(
                "{}: holds neither a {STAKE_TALLY_FILE} nor shard folders that hold one (shard-IIII-of-NNNN, written by 'sweep --scheme {} --shards')",
                dir.display(),
                KeyedScheme::names().replace(" or ", "|")
            );
        }
    }
    Ok(shards)
}

/// One folder's tally file; a shard folder's name must agree with the shard its file
/// records (a renamed folder would otherwise be merged as another shard).
fn read_shard(dir: &Path) -> Result<StakeShard> {
    let path = dir.join(STAKE_TALLY_FILE);
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let file =
        StakeTallyFile::from_bytes(&bytes).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    check_folder_name(dir, file.shard.map(|s| (s.index, s.count)), STAKE_TALLY_FILE)?;
    Ok(StakeShard { label: dir.display().to_string(), file })
}

/// Refuses the options a merge of scheme stake does not take yet (`certify` refuses a
/// recorded merge command that names them too, as `merge` would).
pub(super) fn refuse_unsupported(args: &MergeArgs) -> Result<()> {
    let unsupported =
        [(args.report.paytable.is_some(), "--paytable"), (args.report.claims.is_some(), "--claims")];
    if let Some((_, option)) = unsupported.iter().find(|(given, _)| *given) {
        bail!(
            "{option} is not available when merging sweeps of scheme {} yet (docs/schemes.md says what its sweep does)",
            KeyedScheme::names()
        );
    }
    Ok(())
}

pub fn run(args: &MergeArgs) -> Result<Verdict> {
    let started = Instant::now();
    refuse_unsupported(args)?;
    install_stop_handler()?;
    let (folder, existing) = OutputFolder::claim(&args.out)?;
    let shards = read_shards(&args.inputs)?;
    let count = shards.len();
    let (merged, merged_inputs) = merge_stake(shards, args.allow_partial)?;
    let out = args.out.display();
    match existing {
        Existing::Nothing => {}
        Existing::Run { .. } if args.force => {}
        Existing::Run { kind } if kind == "merge" || kind.is_empty() => {
            // The same merge again (a merge job run again), or a merge of more shards of
            // the same sweep than an earlier partial one held, may write again; a complete
            // merge is not replaced by a partial one.
            let earlier = std::fs::read(args.out.join(STAKE_TALLY_FILE)).ok();
            let same = earlier.and_then(|bytes| StakeTallyFile::from_bytes(&bytes).ok()).is_some_and(|e| {
                e.same_sweep(&merged) && ((e.complete && e.partial == merged.partial) || e.partial.is_some())
            });
            if !same {
                bail!("{out} holds the output of a different run; choose another --out, or pass --force to replace it");
            }
        }
        Existing::Run { kind } => {
            bail!("{out} holds the output of a fairaudit {kind}; choose another --out, or pass --force to replace it")
        }
    }
    let game = merged.stake_game();
    let command = super::args::command_line();
    let run = StakeRun {
        format: RUN_FORMAT.into(),
        kind: "merge".into(),
        fairaudit_version: env!("CARGO_PKG_VERSION").into(),
        fairaudit_revision: fairaudit::REVISION.into(),
        plan: StakePlan {
            scheme: merged.scheme.name().into(),
            game: game.name().into(),
            params: game.params(),
            nonces: [merged.nonces.start, merged.nonces.end],
            seed_pairs: merged
                .seed_pairs
                .iter()
                .map(|p| {
                    Ok([
                        p.server_seed.clone(),
                        p.client_seed.clone(),
                        merged.scheme.commitment(&p.server_seed)?,
                    ])
                })
                .collect::<Result<_, String>>()
                .map_err(anyhow::Error::msg)?,
        },
        command_line: command,
        threads: None,
        rounds: merged.rounds(),
        complete: merged.complete,
        shard: None,
        partial: merged.partial.clone(),
        elapsed_seconds: started.elapsed().as_secs_f64(),
    };
    let (files, battery) = folder_files(&game, &merged, &run, args.report.alpha);
    if stopped() {
        return Err(Interrupted.into());
    }
    folder.write_all(&files)?;
    folder.commit().context("cannot write the merged output")?;
    if let MergedInputs::Shards(coverage) = &merged_inputs {
        print_coverage(coverage);
    }
    outln!(
        "merged {count} inputs: {} {game} x {} seed pair(s) x {} nonces; output: {}",
        merged.scheme,
        merged.seed_pairs.len(),
        merged.seed_pairs[0].swept.iter().map(|r| r.end - r.start).sum::<u64>(),
        ShownPath(&args.out)
    );
    let verdict = print_battery(&battery.expect("a merge, whole or partial, has results"), "seed pairs");
    if let Some(partial) = &merged.partial {
        print_partial_verdict(partial);
    }
    Ok(verdict)
}
