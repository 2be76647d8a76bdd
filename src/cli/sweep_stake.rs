//! `fairaudit sweep --scheme stake`: one game of the HMAC-SHA256 family swept over the
//! nonces of each seed pair on every core, its battery run against the game's exact laws,
//! the folder written as a unit (tests.csv, summary.json, outcome_counts.csv, run.json).
//!
//! What the default scheme's sweep has and this one has not yet: checkpoints and
//! --resume, --shards and merge, the HTML report, paytables and claims. Each is refused
//! by name rather than ignored.

use super::args::command_line;
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::input::{install_stop_handler, STOP};
use super::progress::{Progress, Unit};
use super::sweep::{seed_pairs_of, SweepArgs};
use super::Verdict;
use anyhow::{bail, Result};
use fairaudit::report::results::{summary_json, tests_table};
use fairaudit::report::run_info::RUN_FORMAT;
use fairaudit::report::stake::{counts_table, StakePlan, StakeRun};
use fairaudit::scheme::stake::{commitment, SeedPair, StakeGame};
use fairaudit::scheme::SchemeId;
use fairaudit::stats::stake::battery;
use fairaudit::sweep::stake::sweep;
use fairaudit::tally::stake::StakeTally;
use std::time::Instant;

/// What a sweep's arguments name: the game, the seed pairs prepared, and the plan its
/// run.json records. `certify` reads a sweep's recorded command through this too.
pub(super) fn stake_plan(args: &SweepArgs) -> Result<(StakeGame, Vec<SeedPair>, StakePlan)> {
    refuse_unsupported(args, SchemeId::Stake)?;
    let game = match args.games.as_slice() {
        [name] => StakeGame::new(name, args.params.as_deref().unwrap_or("")).map_err(anyhow::Error::msg)?,
        [] => bail!(
            "--scheme stake sweeps one game: pass --game (dice, limbo, keno, roulette, plinko or mines)"
        ),
        _ => bail!("--scheme stake sweeps one game per run: pass --game once"),
    };
    let (_, pairs) = seed_pairs_of(args);
    let plan = StakePlan {
        scheme: "stake",
        game: game.name(),
        params: game.params(),
        nonces: [args.nonces.start, args.nonces.end],
        seed_pairs: pairs
            .iter()
            .map(|p| [p.server_seed.clone(), p.client_seed.clone(), commitment(&p.server_seed)])
            .collect(),
    };
    let keyed = pairs.iter().map(|p| SeedPair::new(&p.server_seed, &p.client_seed)).collect();
    Ok((game, keyed, plan))
}

/// The tallies of every seed pair of a sweep, pair by pair on `pool`; `None` when stopped.
pub(super) fn sweep_pairs(
    pool: &rayon::ThreadPool,
    game: &StakeGame,
    pairs: &[SeedPair],
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
    let (game, pairs, plan) = stake_plan(&args)?;
    if !args.keccak.is_auto() {
        errln!("note: --keccak (or FAIRAUDIT_KECCAK) chooses the sha3 scheme's Keccak path; the stake scheme hashes with SHA-256 (SHA-NI where the CPU has it)");
    }
    if args.nonces.end - 1 > fairaudit::chain::REFERENCE_MAX_NONCE {
        errln!("note: nonces above 2^53 - 1 have no reference behaviour (the operators' JavaScript verifiers cannot represent them)");
    }
    let nonces = args.nonces.start..args.nonces.end;
    let (folder, existing) = OutputFolder::claim(&args.out)?;
    check_earlier_run(&folder, existing, &plan, args.force)?;
    let (threads, pool) = worker_pool(args.threads)?;
    install_stop_handler()?;

    let rounds = (nonces.end - nonces.start).saturating_mul(pairs.len() as u64);
    let bar = Progress::new(Some(rounds), Unit::Rounds, args.quiet);
    let started = Instant::now();
    let progress = |done: u64| bar.inc(done);
    let Some(tallies) = sweep_pairs(&pool, &game, &pairs, nonces.clone(), args.chunk_size, &progress) else {
        drop(bar);
        errln!(
            "interrupted: a sweep of scheme stake is not saved part-way (checkpoints are the sha3 scheme's so far); {} is as it was",
            folder.target().display()
        );
        return Ok(Verdict::Interrupted);
    };
    drop(bar);
    let elapsed = started.elapsed().as_secs_f64();

    let battery = battery(&game, &tallies, args.report.alpha);
    let command = command_line();
    let run = StakeRun {
        format: RUN_FORMAT,
        kind: "sweep",
        fairaudit_version: env!("CARGO_PKG_VERSION"),
        fairaudit_revision: fairaudit::REVISION,
        plan,
        command_line: &command,
        threads,
        rounds,
        elapsed_seconds: elapsed,
    };
    let tests = tests_table(&battery);
    let counts = counts_table(&game, &tallies);
    folder.write_all(&[
        (tests.file_name.clone(), tests.to_csv()),
        ("summary.json".to_owned(), summary_json(&battery, &[])),
        (counts.file_name.clone(), counts.to_csv()),
        ("run.json".to_owned(), run.to_json()),
    ])?;
    let dir = folder.target().to_owned();
    folder.commit()?;

    outln!(
        "swept stake {game} x {} seed pair(s) x {} nonces: {rounds} rounds in {elapsed:.1} s ({:.0} rounds/s, {threads} threads)",
        pairs.len(),
        nonces.end - nonces.start,
        if elapsed > 0.0 { rounds as f64 / elapsed } else { 0.0 },
    );
    outln!("output: {}", dir.display());
    Ok(print_battery(&battery, "seed pairs"))
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
/// refused by name.
pub(super) fn refuse_unsupported(args: &SweepArgs, scheme: SchemeId) -> Result<()> {
    let given = [
        (args.resume, "--resume"),
        (args.cluster.shards.is_some(), "--shards"),
        (args.cluster.dry_run, "--dry-run"),
        (args.cluster.checkpoint_every.is_some(), "--checkpoint-every"),
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
