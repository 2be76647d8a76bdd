//! `fairaudit sweep --scheme stake`: one game of the HMAC-SHA256 family swept over the
//! nonces of each seed pair on every core, its battery run against the game's exact laws,
//! the folder written as a unit (tests.csv, summary.json, outcome_counts.csv, rtp.csv,
//! report.html, run.json and the tallies, stake_tally.json).
//!
//! Like the default scheme's sweep, it saves its tallies every `--checkpoint-every` and
//! when stopped, and the same command continues it; `--shards` makes it one shard of a
//! larger sweep, which `merge` joins ([`super::merge_stake`]). What it has not yet:
//! paytables and claims, refused by name rather than ignored.

use super::args::command_line;
use super::args::{seed_pairs_of, SweepArgs};
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::input::{install_stop_handler, stopped, STOP};
use super::print::ShownPath;
use super::progress::{Progress, Unit};
use super::resume::continue_earlier;
use super::shards::PlanShape;
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::app::keyed_sweep::{empty_file, folder_files};
use fairaudit::report::run_info::RUN_FORMAT;
use fairaudit::report::stake::{StakePlan, StakeRun};
use fairaudit::scheme::keyed::{KeyedPair, KeyedScheme};
use fairaudit::scheme::stake::StakeGame;
use fairaudit::scheme::SchemeId;
use fairaudit::sweep::stake::{sweep, sweep_ranges};
use fairaudit::tally::counter_cells;
use fairaudit::tally::stake::StakeTally;
use fairaudit::tally::stake_file::{StakeTallyFile, STAKE_TALLY_FILE};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What a sweep's arguments name: the game, the seed pairs prepared, and the plan its
/// run.json records. `certify` reads a sweep's recorded command through this too.
pub(super) fn stake_plan(args: &SweepArgs) -> Result<(StakeGame, Vec<KeyedPair>, StakePlan)> {
    let scheme = args.scheme.and_then(KeyedScheme::of).context("a sweep of a keyed scheme needs --scheme")?;
    refuse_unsupported(args, scheme.id())?;
    let game = match args.games.as_slice() {
        [name] => scheme.game(name, args.params.as_deref().unwrap_or("")).map_err(anyhow::Error::msg)?,
        [] => bail!("--scheme {scheme} sweeps one game: pass --game ({})", either_of(scheme.games())),
        _ => bail!("--scheme {scheme} sweeps one game per run: pass --game once"),
    };
    super::memory::check_seed_pair_memory(args, pair_bytes(&game))?;
    let (_, pairs) = seed_pairs_of(args);
    if (args.nonces.end - args.nonces.start).checked_mul(pairs.len() as u64).is_none() {
        bail!(
            "--nonces {}..{} over {} seed pairs is more rounds than fairaudit counts (2^64)",
            args.nonces.start,
            args.nonces.end,
            pairs.len()
        );
    }
    let keyed = pairs
        .iter()
        .map(|p| scheme.pair(&p.server_seed, &p.client_seed))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    let plan = StakePlan {
        scheme: scheme.name().into(),
        game: game.name().into(),
        params: game.params(),
        nonces: [args.nonces.start, args.nonces.end],
        seed_pairs: pairs
            .iter()
            .map(|p| Ok([p.server_seed.clone(), p.client_seed.clone(), scheme.commitment(&p.server_seed)?]))
            .collect::<Result<_, String>>()
            .map_err(anyhow::Error::msg)?,
    };
    Ok((game, keyed, plan))
}

/// What a merge's `run.json` records it merged (`recorded`, its plan): the game, the seed
/// pairs prepared, and the plan a sweep of the whole range records, each commitment
/// computed again from its server seed rather than copied. `certify` sweeps a merge of
/// shards again through this; `name` names the folder in errors.
pub(super) fn merged_plan(
    recorded: &StakePlan,
    name: &str,
) -> Result<(StakeGame, Vec<KeyedPair>, StakePlan)> {
    let Some(scheme) = recorded.scheme.parse().ok().and_then(KeyedScheme::of) else {
        bail!(
            "{name}/run.json: its plan is of scheme {:?}, not a keyed scheme (stake, duel)",
            recorded.scheme
        );
    };
    let game = scheme
        .game(&recorded.game, &recorded.params)
        .map_err(|error| anyhow::anyhow!("{name}/run.json: its plan's game: {error}"))?;
    let [start, end] = recorded.nonces;
    if start >= end {
        bail!("{name}/run.json: its plan's nonces {start}..{end} are an empty range, which no merge writes");
    }
    if recorded.seed_pairs.is_empty() {
        bail!("{name}/run.json: its plan names no seed pair");
    }
    let pairs = recorded.seed_pairs.len() as u64;
    super::memory::check_pair_memory(
        pairs,
        pair_bytes(&game),
        &format!("{name}/run.json: its {pairs} seed pairs"),
        super::memory::FEWER_PAIRS,
    )?;
    let in_plan = |error: String| anyhow::anyhow!("{name}/run.json: its plan's seed pairs: {error}");
    let plan = StakePlan {
        scheme: scheme.name().into(),
        game: game.name().into(),
        params: game.params(),
        nonces: recorded.nonces,
        seed_pairs: recorded
            .seed_pairs
            .iter()
            .map(|[server, client, _]| Ok([server.clone(), client.clone(), scheme.commitment(server)?]))
            .collect::<Result<_, String>>()
            .map_err(in_plan)?,
    };
    let keyed = plan
        .seed_pairs
        .iter()
        .map(|[server, client, _]| scheme.pair(server, client))
        .collect::<Result<_, _>>()
        .map_err(in_plan)?;
    Ok((game, keyed, plan))
}

/// Names as a sentence lists them: `a, b or c`.
fn either_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The memory a sweep of `game` holds per seed pair until its folder is written, and
/// `certify` while it sweeps one again: far more than the tally, since the results are
/// made in memory and `outcome_counts.csv` has a row of about 63 bytes per cell (dice:
/// 10,101 rows, 640 kB per seed pair), `stake_tally.json` 13 bytes more, and `certify
/// --check` reads the folder's copies back beside the ones it made. Measured (peak
/// resident memory of sweeps of 50 and 200 seed pairs, per seed pair): dice 0.99 MB to
/// sweep and 1.71 MB to check, roulette 0.17 and 0.23 MB, Keno 48 and 76 kB, mines with 1
/// mine 7 and 9 kB; this estimate is above each.
fn pair_bytes(game: &StakeGame) -> u64 {
    /// Per number of the tally: the number itself and its copies, its row of
    /// `outcome_counts.csv` and its line of `stake_tally.json`, each made and read back.
    const CELL_BYTES: u64 = 200;
    /// Per seed pair beside its numbers: its seeds, tests, and their rows and lines.
    const PAIR_BYTES: u64 = 8 * 1024;
    counter_cells(&StakeTally::empty(game)).saturating_mul(CELL_BYTES).saturating_add(PAIR_BYTES)
}

/// The tallies of every seed pair of a sweep, pair by pair on `pool`; `None` when stopped.
pub(super) fn sweep_pairs(
    pool: &rayon::ThreadPool,
    game: &StakeGame,
    pairs: &[KeyedPair],
    nonces: std::ops::Range<u64>,
    chunk: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<Vec<StakeTally>> {
    pairs
        .iter()
        .map(|pair| pool.install(|| sweep(game, pair, nonces.clone(), chunk, &STOP, progress)))
        .collect()
}

pub fn run(args: SweepArgs) -> Result<Verdict> {
    let (game, pairs, mut plan) = stake_plan(&args)?;
    if !args.keccak.is_auto() {
        errln!("note: --keccak (or FAIRAUDIT_KECCAK) chooses the sha3 scheme's Keccak path; the {} scheme hashes with SHA-256 (SHA-NI where the CPU has it)", plan.scheme);
    }
    if args.nonces.end - 1 > fairaudit::chain::REFERENCE_MAX_NONCE {
        errln!("note: nonces above 2^53 - 1 have no reference behaviour (the operators' JavaScript verifiers cannot represent them)");
    }
    let shape = || PlanShape {
        games: vec![game.name().to_owned()],
        seed_pairs: pairs.len() as u64,
        nonces: args.nonces,
    };
    let (shard, out) = match args.cluster.shards {
        Some(count) => {
            let sharding = super::shards::sharding(args.nonces, count)?;
            if args.cluster.dry_run {
                let task = super::shards::index(&sharding, args.cluster.shard_index)?;
                super::shards::print_plan(&shape(), Some((sharding, task)), &args.out);
                return Ok(Verdict::Clean);
            }
            let task = super::shards::require_index(&sharding, args.cluster.shard_index)?;
            let range = sharding.range(task.shard.index);
            plan.nonces = [range.start, range.end];
            let out = task.folder(&args.out);
            (Some(task), out)
        }
        None if args.cluster.dry_run => {
            super::shards::print_plan(&shape(), None, &args.out);
            return Ok(Verdict::Clean);
        }
        None => (None, args.out.clone()),
    };
    let shard_of = shard.as_ref().map(|task| task.shard);
    let (mut folder, existing) = OutputFolder::claim(&out)?;
    let fresh = empty_file(&game, &plan, shard_of);
    let prior =
        earlier_stake_sweep(&folder, existing, &fresh, &plan, shard_of.is_some(), args.resume, args.force)?;
    let (threads, pool) = worker_pool(args.threads)?;
    install_stop_handler()?;

    let mut file = prior.unwrap_or(fresh);
    let rounds_before = file.rounds();
    let remaining = file.planned_rounds() - rounds_before;
    let dir = folder.target().to_owned();
    if let Some(task) = &shard {
        errln!(
            "shard {} of {} (index from {}): nonces {}..{}, output {}",
            task.shard.index,
            task.shard.count,
            task.index_from,
            plan.nonces[0],
            plan.nonces[1],
            ShownPath(&dir)
        );
    }
    if rounds_before > 0 && !file.complete {
        errln!(
            "continuing the sweep saved in {}: {rounds_before} rounds tallied, {remaining} to go",
            ShownPath(&dir)
        );
    } else if file.complete {
        errln!(
            "{} already holds this sweep complete: nothing to sweep, its results are written again",
            ShownPath(&dir)
        );
    }
    let command = command_line();
    let started = Instant::now();
    let run_of = |file: &StakeTallyFile| StakeRun {
        format: RUN_FORMAT.into(),
        kind: "sweep".into(),
        fairaudit_version: env!("CARGO_PKG_VERSION").into(),
        fairaudit_revision: fairaudit::REVISION.into(),
        plan: plan.clone(),
        command_line: command.clone(),
        threads: Some(threads),
        rounds: file.rounds(),
        complete: file.complete,
        shard: shard_of,
        partial: None,
        elapsed_seconds: started.elapsed().as_secs_f64(),
    };

    let bar = Progress::new(Some(remaining), Unit::Rounds, args.quiet);
    let every = args.cluster.checkpoint_interval();
    let mut due = Instant::now().checked_add(every);
    let end = file.sweep_end();
    'pairs: for (i, pair) in pairs.iter().enumerate() {
        loop {
            let todo = file.todo(i);
            if todo.is_empty() {
                break;
            }
            // A step ends at the next checkpoint (or at a stop): the chunks in flight
            // finish, the others wait for the next step.
            let pause = AtomicBool::new(stopped());
            let progress = |rounds: u64| {
                bar.inc(rounds);
                if STOP.load(Ordering::Relaxed) || due.is_some_and(|due| Instant::now() >= due) {
                    pause.store(true, Ordering::Relaxed);
                }
            };
            let swept =
                pool.install(|| sweep_ranges(&game, pair, &todo, end, args.chunk_size, &pause, &progress));
            file.record(i, swept);
            if stopped() {
                break 'pairs;
            }
            if due.is_some_and(|due| Instant::now() >= due) && !file.complete {
                let (files, _) = folder_files(&game, &file, &run_of(&file), args.report.alpha);
                folder.checkpoint(&files).context("cannot save a checkpoint")?;
                due = Instant::now().checked_add(every);
            }
        }
    }
    drop(bar);
    let elapsed = started.elapsed().as_secs_f64();
    let (files, battery) = folder_files(&game, &file, &run_of(&file), args.report.alpha);
    folder.write_all(&files)?;
    folder.commit()?;
    let done = file.rounds() - rounds_before;
    let Some(battery) = battery else {
        errln!(
            "interrupted: {done} of {remaining} rounds tallied and saved in {}; run the same command to continue",
            ShownPath(&dir.join(STAKE_TALLY_FILE))
        );
        return Ok(Verdict::Interrupted);
    };

    outln!(
        "swept {} {game} x {} seed pair(s) x {} nonces: {done} rounds in {elapsed:.1} s ({:.0} rounds/s, {threads} threads)",
        plan.scheme,
        pairs.len(),
        plan.nonces[1] - plan.nonces[0],
        if elapsed > 0.0 { done as f64 / elapsed } else { 0.0 },
    );
    outln!("output: {}", ShownPath(&dir));
    let verdict = print_battery(&battery, "seed pairs");
    if shard.is_some() {
        // As with the default scheme: a shard's battery speaks for its slice, and a
        // finished shard exits 0 so that the scheduler runs the merge.
        if verdict == Verdict::Finding {
            outln!("note: this shard's battery is not the sweep's verdict; merge the shards for that (exit status 0: the shard is complete)");
        }
        return Ok(Verdict::Clean);
    }
    Ok(verdict)
}

/// The worker threads asked for (all cores by default) and their pool.
pub(super) fn worker_pool(threads: Option<u32>) -> Result<(usize, rayon::ThreadPool)> {
    let threads = threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |t| t as usize,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| anyhow::anyhow!("cannot start {threads} worker threads: {error}"))?;
    Ok((threads, pool))
}

/// The options of the default scheme's sweep that the sweeps of `scheme` do not have,
/// refused by name: a crash chain's sweep has neither checkpoints nor shards (a walk down
/// the chain is one sequence); neither scheme takes paytables or claims yet.
pub(super) fn refuse_unsupported(args: &SweepArgs, scheme: SchemeId) -> Result<()> {
    let chain = KeyedScheme::of(scheme).is_none();
    let given = [
        (chain && args.resume, "--resume"),
        (chain && args.cluster.shards.is_some(), "--shards"),
        (chain && args.cluster.dry_run, "--dry-run"),
        (chain && args.cluster.checkpoint_every.is_some(), "--checkpoint-every"),
        (args.report.paytable.is_some(), "--paytable"),
        (args.report.claims.is_some(), "--claims"),
    ];
    match given.iter().find(|(given, _)| *given) {
        Some((_, option)) => bail!(
            "{option} is not available with --scheme {scheme} yet (docs/schemes.md says what its sweep does)"
        ),
        None => Ok(()),
    }
}

/// What the output folder's earlier run means for a sweep of the family: its tallies to
/// continue (an interrupted sweep of the same plan; `--resume`; a shard already complete,
/// which is not swept again), nothing (a fresh start, `--force`, or a finished run of the
/// same plan being reproduced), or a refusal that says what to do.
fn earlier_stake_sweep(
    folder: &OutputFolder,
    existing: Existing,
    fresh: &StakeTallyFile,
    plan: &StakePlan,
    shard: bool,
    resume: bool,
    force: bool,
) -> Result<Option<StakeTallyFile>> {
    let dir = folder.target().display();
    let path = folder.target().join(STAKE_TALLY_FILE);
    match existing {
        Existing::Nothing if resume => bail!("{dir}: nothing to resume (no {STAKE_TALLY_FILE})"),
        Existing::Nothing => Ok(None),
        Existing::Run { .. } if force => Ok(None),
        Existing::Run { kind } if (kind == "sweep" || kind.is_empty()) && path.exists() => {
            let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let existing = StakeTallyFile::from_bytes(&bytes).map_err(|error| {
                anyhow::anyhow!("{}: {error}; pass --force to replace it", path.display())
            })?;
            if existing.partial.is_some() {
                bail!("{dir} holds a partial merge of shards, which a sweep does not continue; choose another --out, or pass --force to replace it");
            }
            let continues =
                continue_earlier(folder, existing.same_sweep(fresh), existing.complete, shard, resume)?;
            Ok(continues.then_some(existing))
        }
        Existing::Run { .. } if folder.target().join(fairaudit::tally::file::TALLY_FILE).exists() => {
            bail!("{dir} holds a sweep of scheme sha3; choose another --out, or pass --force to replace it")
        }
        Existing::Run { .. } if resume => bail!("{dir}: nothing to resume (no {STAKE_TALLY_FILE})"),
        // A folder of an earlier version (no tally file): the same sweep may write again.
        existing => check_earlier_run(folder, existing, plan, false).map(|()| None),
    }
}

/// What an earlier run in the folder means: nothing there, `--force`, or the same sweep
/// run again may write; anything else is refused with what to do.
pub(super) fn check_earlier_run(
    folder: &OutputFolder,
    existing: Existing,
    plan: &impl serde::Serialize,
    force: bool,
) -> Result<()> {
    let dir = folder.target().display();
    match existing {
        Existing::Nothing => Ok(()),
        Existing::Run { .. } if force => Ok(()),
        Existing::Run { kind } => {
            let same = folder.earlier_run().is_some_and(|run| {
                kind == "sweep" && run["plan"] == serde_json::to_value(plan).expect("a plan serialises")
            });
            if same {
                return Ok(());
            }
            let what = if kind.is_empty() { "another run".to_owned() } else { format!("a fairaudit {kind}") };
            bail!("{dir} holds the output of {what}; choose another --out, or pass --force to replace it")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairaudit::app::keyed_sweep::complete_file;
    use fairaudit::report::stake::counts_table;
    use fairaudit::scheme::stake::cells::GameLaws;
    use fairaudit::scheme::stake::{LimboFormula, Risk};
    use fairaudit::tally::stake::Counter;

    /// The bytes of the files of a sweep of `game` over nonces 0..2 that grow with its
    /// seed pairs (`outcome_counts.csv` and `stake_tally.json`), for `pairs` seed pairs.
    fn growing_file_bytes(game: &StakeGame, pairs: usize) -> u64 {
        let seeds: Vec<[String; 3]> = (0..pairs)
            .map(|i| {
                let server = format!("{i:064x}");
                [server.clone(), format!("{:064x}", i + pairs), fairaudit::scheme::stake::commitment(&server)]
            })
            .collect();
        let plan = StakePlan {
            scheme: "stake".into(),
            game: game.name().into(),
            params: game.params(),
            nonces: [0, 2],
            seed_pairs: seeds,
        };
        let counter = Counter::new(game);
        let tallies: Vec<StakeTally> = plan
            .seed_pairs
            .iter()
            .map(|[s, c, _]| counter.count(&KeyedScheme::Stake.pair(s, c).unwrap(), 0..2, 2))
            .collect();
        let counts = counts_table(&GameLaws::of(KeyedScheme::Stake, game), &tallies).to_csv().len();
        (counts + complete_file(game, &plan, tallies).to_bytes().len()) as u64
    }

    #[test]
    fn the_memory_guard_of_stake_sweeps_counts_their_results_not_only_their_tallies() {
        // The guard once counted a seed pair's tally alone (81 kB for dice) while a sweep
        // held 3.9 MB per seed pair, its outcome_counts.csv built as cells: certify --check
        // of a plan rewritten to 100,000 seed pairs was killed for memory, not refused.
        // `certify --check` holds both files as made and as read back from the folder.
        for game in [
            StakeGame::Dice,
            StakeGame::Roulette,
            StakeGame::Keno,
            StakeGame::Limbo(LimboFormula::Fair),
            StakeGame::Plinko { rows: 16, risk: Risk::High },
            StakeGame::Mines { mines: 1 },
            StakeGame::Mines { mines: 24 },
        ] {
            let per_pair = (growing_file_bytes(&game, 3) - growing_file_bytes(&game, 1)) / 2;
            assert!(pair_bytes(&game) >= 2 * per_pair, "{game:?}: {} < 2 x {per_pair}", pair_bytes(&game));
        }
    }
}
