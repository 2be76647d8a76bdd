//! `fairaudit sweep`: arguments → a validated request (plan, inputs, a claimed output
//! folder, what to continue) → the sweep, checkpointed into the folder as it goes → the
//! results → the folder's files, written as a unit → the terminal. With `--shards` the
//! sweep is one shard of a larger one ([`super::shards`]).

use super::args::{command_line, load_claims, load_paytable, seed_pairs_of, SweepArgs};
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::input::{install_stop_handler, STOP};
use super::memory::check_seed_pair_memory;
use super::output::read_tally;
use super::print::ShownPath;
use super::progress::{Progress, Unit};
use super::resume::continue_earlier;
use super::shards::ShardTask;
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::chain::seeds::SeedPair;
use fairaudit::chain::{Kernel, REFERENCE_MAX_NONCE};
use fairaudit::device::choice::Opened;
use fairaudit::device::{Accelerator, DeviceChoice};
use fairaudit::games::{GameId, Keno, Roulette};
use fairaudit::report::run_info::ShardRun;
use fairaudit::report::{RunInfo, RunReport};
use fairaudit::results::RunResults;
use fairaudit::rtp::claims::Claim;
use fairaudit::rtp::Paytable;
use fairaudit::scheme::SchemeId;
use fairaudit::sweep::{rounds_remaining, run_with_checkpoints, CheckpointError, SweepControl};
use fairaudit::tally::file::{Plan, TallyFile, TALLY_FILE};
use fairaudit::tally::{counter_cells, KenoTally, RouletteTally, SequenceTally};
use std::time::{Duration, Instant, SystemTime};

/// A sweep ready to run: every input read and checked (the output folder, claimed, comes
/// beside it).
struct SweepRequest {
    plan: Plan,
    paytable: Paytable,
    claims: Vec<Claim>,
    alpha: f64,
    threads: usize,
    chunk: u64,
    kernel: Kernel,
    quiet: bool,
    prior: Option<TallyFile>,
    shard: Option<ShardTask>,
    checkpoint_every: Duration,
    /// The SHA-256 of its paytable and claims files, as they were read, for run.json.
    inputs: Vec<fairaudit::report::run_info::InputHash>,
}

impl SweepRequest {
    fn new(args: SweepArgs) -> Result<(SweepRequest, OutputFolder)> {
        let mut plan = plan_of(&args)?;
        let paytable = load_paytable(args.report.paytable.as_deref())?;
        let claims = load_claims(args.report.claims.as_deref())?;
        let shard = match args.cluster.shards {
            Some(count) => {
                let sharding = super::shards::sharding(plan.nonces[0], count)?;
                Some(super::shards::require_index(&sharding, args.cluster.shard_index)?)
            }
            None => None,
        };
        let out = match &shard {
            Some(task) => {
                let range = task.shard.sharding().range(task.shard.index);
                plan.nonces = vec![range];
                task.folder(&args.out)
            }
            None => args.out.clone(),
        };
        let (folder, existing) = OutputFolder::claim(&out)?;
        let prior = earlier_sweep(&folder, existing, &plan, shard.as_ref(), args.resume, args.force)?;
        // All cores by default. Not `rayon::current_num_threads`: that starts rayon's global
        // pool, which panics when threads cannot be spawned (a process limit).
        let threads = args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            |t| t as usize,
        );
        let kernel = args.keccak.kernel()?;
        let request = SweepRequest {
            plan,
            paytable,
            claims,
            alpha: args.report.alpha,
            threads,
            chunk: args.chunk_size,
            kernel,
            quiet: args.quiet,
            prior,
            shard,
            checkpoint_every: args.cluster.checkpoint_interval(),
            inputs: super::args::input_hashes(&[
                args.report.paytable.as_deref(),
                args.report.claims.as_deref(),
            ]),
        };
        Ok((request, folder))
    }

    /// How the run was made, for `run.json` (a checkpoint's or the final one).
    fn run_info(
        &self,
        tallies: &TallyFile,
        started: (SystemTime, Instant),
        rounds: u64,
        device: Option<&str>,
    ) -> RunInfo {
        let mut info = RunInfo::for_tallies("sweep", tallies, command_line());
        info.working_dir = super::args::working_dir();
        info.inputs = self.inputs.clone();
        info.threads = Some(self.threads);
        info.chunk_size = Some(self.chunk);
        info.keccak_path = Some(self.kernel.path());
        info.checkpoint_every_seconds = Some(self.checkpoint_every.as_secs_f64());
        info.device = device.map(str::to_owned);
        info.shard = self
            .shard
            .as_ref()
            .map(|task| ShardRun { shard: task.shard, index_from: task.index_from.clone() });
        fill_timing(&mut info, started, rounds);
        info
    }
}

pub(super) fn plan_of(args: &SweepArgs) -> Result<Plan> {
    if args.params.is_some() {
        bail!("--params gives a game's parameters in scheme stake; the games of scheme sha3 take none");
    }
    let games = super::args::games_or_all(&super::args::sha3_games(&args.games)?);
    check_seed_pair_memory(args, plan_pair_bytes(&games))?;
    let (seed_source, seed_pairs) = seed_pairs_of(args);
    Ok(Plan { games, nonces: vec![args.nonces], seed_source, seed_pairs })
}

/// The memory one seed pair of a default-scheme sweep of `games` holds until its folder is
/// written ([`game_pair_bytes`] summed over the games).
pub(super) fn plan_pair_bytes(games: &[GameId]) -> u64 {
    games
        .iter()
        .map(|&game| match game {
            GameId::Keno => counter_cells(&KenoTally::new(Keno)),
            GameId::RouletteEuropean => counter_cells(&RouletteTally::new(Roulette::EUROPEAN)),
            GameId::RouletteAmerican => counter_cells(&RouletteTally::new(Roulette::AMERICAN)),
        })
        .map(game_pair_bytes)
        .sum()
}

/// The memory a sweep of the default scheme holds per seed pair and game until its folder
/// is written, and `certify --check` while it sweeps one again, for a game whose tally has
/// `cells_per_pair` numbers: far more than the tally's eight bytes a number, since each
/// pair's results (its battery, its rows of every CSV file and of report.html, its lines
/// of tally.json) are made in memory, and the check reads the folder's copies back beside
/// them. Measured (peak resident memory of sweeps of 20 and 120 seed pairs, per seed pair;
/// tests/sweep.rs measures it again on every run): Keno (1,455 numbers) 113 kB to sweep and
/// 129 kB to check, European roulette (18,700) 408 and 659 kB, the three games 950 kB and
/// 1.5 MB; this estimate is above each by a third or more (189 kB, 875 kB, 1.98 MB).
pub(super) fn game_pair_bytes(cells_per_pair: u64) -> u64 {
    /// Per number of the tally: the number, its copies, and its share of the rows made of it.
    const CELL_BYTES: u64 = 40;
    /// Per seed pair and game beside its numbers: its seeds, battery and their rows.
    const PAIR_BYTES: u64 = 128 * 1024;
    cells_per_pair.saturating_mul(CELL_BYTES).saturating_add(PAIR_BYTES)
}

/// What the output folder's earlier sweep means for this one: the tallies to continue
/// (a checkpoint or an interrupted sweep of the same plan; `--resume`; a shard already
/// complete), nothing (a fresh start, `--force`, or a finished run of the same plan being
/// reproduced), or a refusal that says what to do.
fn earlier_sweep(
    folder: &OutputFolder,
    existing: Existing,
    plan: &Plan,
    shard: Option<&ShardTask>,
    resume: bool,
    force: bool,
) -> Result<Option<TallyFile>> {
    let dir = folder.target().display();
    let tally_path = folder.target().join(TALLY_FILE);
    match existing {
        Existing::Nothing if resume => bail!("{dir}: nothing to resume (no {TALLY_FILE})"),
        Existing::Nothing => Ok(None),
        Existing::Run { .. } if force => Ok(None),
        Existing::Run { kind } if kind == "sweep" && earlier_scheme(folder).as_deref() == Some("stake") => {
            bail!("{dir} holds a sweep of scheme stake; choose another --out, or pass --force to replace it")
        }
        // Files named as fairaudit names its own (a user's tests.csv, say), but no sweep's.
        Existing::Run { kind } if kind.is_empty() && !tally_path.exists() => bail!(
            "{dir} holds files named as fairaudit names its outputs, but no {TALLY_FILE} or run.json of a sweep; choose another --out, or pass --force to replace them"
        ),
        Existing::Run { kind } if kind.is_empty() || kind == "sweep" => {
            let existing = read_tally(&tally_path).with_context(|| {
                format!("{dir} holds a {TALLY_FILE} fairaudit cannot use; pass --force to replace it")
            })?;
            let same = existing.plan == *plan && existing.shard == shard.map(|task| task.shard);
            let continues = continue_earlier(folder, same, existing.complete, shard.is_some(), resume)?;
            Ok(continues.then_some(existing))
        }
        Existing::Run { kind } => {
            bail!("{dir} holds the output of a fairaudit {kind}; choose another --out, or pass --force to replace it")
        }
    }
}

/// The scheme of the sweep whose `run.json` the folder holds, where it names one (a sweep
/// of the default scheme does not).
fn earlier_scheme(folder: &OutputFolder) -> Option<String> {
    folder.earlier_run()?["plan"]["scheme"].as_str().map(str::to_owned)
}

/// `--dry-run`: every input checked as for a sweep, then the plan printed; nothing is
/// claimed or written.
fn dry_run(args: &SweepArgs) -> Result<Verdict> {
    let plan = plan_of(args)?;
    load_paytable(args.report.paytable.as_deref())?;
    load_claims(args.report.claims.as_deref())?;
    let cut = match args.cluster.shards {
        Some(count) => {
            let sharding = super::shards::sharding(plan.nonces[0], count)?;
            Some((sharding, super::shards::index(&sharding, args.cluster.shard_index)?))
        }
        None => None,
    };
    super::shards::print_plan(&super::shards::PlanShape::of(&plan), cut, &args.out);
    Ok(Verdict::Clean)
}

/// Opens the device `--device` asks for: `gpu` without a usable GPU is an error (exit 2)
/// naming why, `auto` falls back to the CPU saying why. Only the default scheme's games
/// are swept on a device: other schemes refuse `gpu` and `cpu-kernel`.
fn open_device(args: &SweepArgs) -> Result<Option<Box<dyn Accelerator + Send>>> {
    let other_scheme = args.scheme.filter(|&scheme| scheme != SchemeId::Sha3);
    match (args.device, other_scheme) {
        (DeviceChoice::Cpu, _) => return Ok(None),
        (DeviceChoice::Auto, Some(scheme)) => {
            errln!("note: --device auto: the {} scheme is swept on the CPU (the device sweep covers the sha3 scheme's games)", scheme.name());
            return Ok(None);
        }
        (DeviceChoice::Gpu | DeviceChoice::CpuKernel, Some(scheme)) => {
            bail!(
                "--device {}: the device sweep covers the sha3 scheme's games, not --scheme {}",
                args.device.name(),
                scheme.name()
            )
        }
        _ => {}
    }
    match args.device.open().map_err(|error| anyhow::anyhow!("--device {}: {error}", args.device.name()))? {
        Opened::Cpu(why) => {
            if let Some(why) = why {
                errln!("note: --device auto: {why}; sweeping on the CPU");
            }
            Ok(None)
        }
        Opened::Device(device) => Ok(Some(device)),
    }
}

pub fn run(args: SweepArgs) -> Result<Verdict> {
    if !args.cluster.dry_run && args.device != DeviceChoice::Cpu {
        if let Some(device) = open_device(&args)? {
            return run_default(args, Some(&*device));
        }
    }
    run_default(args, None)
}

fn run_default(args: SweepArgs, device: Option<&(dyn Accelerator + Send)>) -> Result<Verdict> {
    if let Some((scheme, variant)) = args.scheme.and_then(|s| Some((s, s.crash_variant()?))) {
        return super::sweep_crash::run(args, scheme, variant);
    }
    if args.scheme.and_then(fairaudit::scheme::keyed::KeyedScheme::of).is_some() {
        return super::sweep_stake::run(args);
    }
    if args.cluster.dry_run {
        return dry_run(&args);
    }
    let (mut request, mut folder) = SweepRequest::new(args)?;
    let plan = &request.plan;
    if plan.nonces.iter().any(|r| r.end - 1 > REFERENCE_MAX_NONCE) {
        errln!("note: nonces above 2^53 - 1 have no reference behaviour (the operator's verifier cannot represent them)");
    }
    warn_about_colons(&plan.seed_pairs);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(request.threads)
        .build()
        // The build error's message already holds its source: keep it once.
        .map_err(|error| anyhow::anyhow!("cannot start {} worker threads: {error}", request.threads))?;
    install_stop_handler()?;

    let remaining = rounds_remaining(plan, request.prior.as_ref());
    let rounds_before = request.prior.as_ref().map_or(0, TallyFile::rounds);
    let dir = folder.target().to_owned();
    announce(&request, &dir, remaining);
    let device_name = device.map(|device| pool.install(|| device.name()));
    if let Some(name) = &device_name {
        errln!("swept on {name}");
    }
    let bar = Progress::new(Some(remaining), Unit::Rounds, request.quiet);
    let started = (super::clock::now(), Instant::now());
    let progress = |rounds: u64| bar.inc(rounds);
    let control = SweepControl {
        chunk: request.chunk,
        stop: &STOP,
        progress: &progress,
        kernel: request.kernel,
        device: device.map(|d| d as &dyn Accelerator),
    };
    let prior = request.prior.take();
    let mut save = |partial: &TallyFile| -> Result<()> {
        let mut partial = partial.clone();
        partial.shard = request.shard.as_ref().map(|task| task.shard);
        let info =
            request.run_info(&partial, started, partial.rounds() - rounds_before, device_name.as_deref());
        folder.checkpoint(&RunReport { tallies: &partial, run: &info, results: None }.files())
    };
    let swept =
        pool.install(|| run_with_checkpoints(plan, prior, &control, request.checkpoint_every, &mut save));
    let mut tallies = swept.map_err(|error| match error {
        CheckpointError::Sweep(error) => anyhow::Error::from(error),
        CheckpointError::Save(error) => error.context("cannot save a checkpoint"),
    })?;
    drop(bar);
    tallies.shard = request.shard.as_ref().map(|task| task.shard);

    // The facts come from the tallies, not from the progress bar (which a finished bar
    // reports as full even after an interruption).
    let done = tallies.rounds() - rounds_before;
    let info = request.run_info(&tallies, started, done, device_name.as_deref());
    let results = tallies
        .complete
        .then(|| RunResults::compute(&tallies, &request.paytable, &request.claims, request.alpha));
    let report = RunReport { tallies: &tallies, run: &info, results: results.as_ref() };
    folder.write_all(&report.files())?;
    folder.commit()?;

    if !tallies.complete {
        errln!(
            "interrupted: {done} of {remaining} rounds tallied and saved in {}; run the same command to continue",
            ShownPath(&dir.join(TALLY_FILE))
        );
        return Ok(Verdict::Interrupted);
    }
    outln!(
        "swept {} game(s) x {} seed pair(s) x {} nonces: {done} rounds in {:.1} s ({:.0} rounds/s, {} threads)",
        plan.games.len(),
        plan.seed_pairs.len(),
        plan.rounds_per_sequence(),
        info.elapsed_seconds,
        info.rounds_per_second,
        request.threads,
    );
    outln!("output: {}", ShownPath(&dir));
    let verdict = print_battery(&results.expect("complete sweeps have results").battery, "seed pairs");
    if request.shard.is_some() {
        // A shard's battery speaks for its slice of the nonces; the sweep's verdict is the
        // merge's. A finished shard exits 0 whatever it found, so that the scheduler counts
        // it done (Slurm's afterok, a Job's completions) and the merge runs.
        if verdict == Verdict::Finding {
            outln!("note: this shard's battery is not the sweep's verdict; merge the shards for that (exit status 0: the shard is complete)");
        }
        return Ok(Verdict::Clean);
    }
    Ok(verdict)
}

/// Says on stderr which shard this is and where its index came from, and what an earlier
/// run in the folder left to continue.
fn announce(request: &SweepRequest, dir: &std::path::Path, remaining: u64) {
    if let Some(task) = &request.shard {
        let range = &request.plan.nonces[0];
        errln!(
            "shard {} of {} (index from {}): nonces {}..{}, output {}",
            task.shard.index,
            task.shard.count,
            task.index_from,
            range.start,
            range.end,
            ShownPath(dir)
        );
    }
    if let Some(prior) = &request.prior {
        if prior.complete {
            errln!(
                "{} already holds this sweep complete: nothing to sweep, its results are written again",
                ShownPath(dir)
            );
        } else {
            errln!(
                "continuing the sweep saved in {}: {} rounds tallied, {remaining} to go",
                ShownPath(dir),
                prior.rounds()
            );
        }
    }
}

/// `server:client:nonce` is joined with colons, so a colon inside a seed makes two seed
/// pairs give one message (`a:b` with `c` is `a` with `b:c`). The chain is the operator's;
/// fairaudit reproduces it, and says so.
pub fn warn_about_colons(pairs: &[SeedPair]) {
    for warning in fairaudit::results::ambiguity_warnings(pairs) {
        errln!("warning: {}", fairaudit::fields::Shown(&warning));
    }
}

pub fn fill_timing(info: &mut RunInfo, started: (SystemTime, Instant), rounds: u64) {
    let elapsed = started.1.elapsed().as_secs_f64();
    info.started_at = super::clock::rfc3339(started.0);
    info.finished_at = super::clock::rfc3339(super::clock::now());
    info.elapsed_seconds = elapsed;
    info.rounds_this_run = rounds;
    info.rounds_per_second = if elapsed > 0.0 { rounds as f64 / elapsed } else { 0.0 };
}
