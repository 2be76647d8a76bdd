//! `fairaudit sweep`: arguments → a validated request (plan, inputs, a claimed output
//! folder, what to continue) → the sweep, checkpointed into the folder as it goes → the
//! results → the folder's files, written as a unit → the terminal. With `--shards` the
//! sweep is one shard of a larger one ([`super::shards`]).

use super::args::{
    command_line, load_claims, load_paytable, parse_range, parse_scheme, parse_threads, ReportArgs,
};
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::input::{install_stop_handler, STOP};
use super::output::read_tally;
use super::print::ShownPath;
use super::progress::{Progress, Unit};
use super::shards::{ClusterArgs, ShardTask};
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::chain::seeds::{default_seed_pair, derive_seed_pairs, SeedPair, DEFAULT_MASTER_SEED};
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
use fairaudit::sweep::{
    rounds_remaining, run_with_checkpoints, CheckpointError, SweepControl, DEFAULT_CHUNK,
};
use fairaudit::tally::file::{NonceRange, Plan, SeedSource, TallyFile, TALLY_FILE};
use fairaudit::tally::{counter_cells, KenoTally, RouletteTally, SequenceTally};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Default nonce range: 10 million rounds per game.
const DEFAULT_NONCES: &str = "0..10000000";

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The provably-fair scheme: sha3 (SPEC.md, the default), stake (the HMAC-SHA256
    /// family; one --game per run), or bustabit-v1 and roobet (a range of games of a crash
    /// chain); see docs/schemes.md.
    #[arg(long, value_name = "NAME", value_parser = parse_scheme)]
    pub(super) scheme: Option<SchemeId>,
    /// Game to sweep (repeat for several): keno, roulette-european, roulette-american. Default: all three.
    /// With --scheme stake: dice, limbo, keno, roulette, plinko or mines; with a crash
    /// scheme: crash.
    #[arg(long = "game", value_name = "G")]
    pub(super) games: Vec<String>,
    /// The game's parameters as compact JSON (--scheme stake): {"variant":"fair"} for
    /// limbo, {"rows":16,"risk":"high"} for plinko, {"mines":3} for mines.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub(super) params: Option<String>,
    /// Half-open nonce range A..B (plain decimal u64); with a crash scheme, the game
    /// numbers.
    #[arg(long, value_name = "A..B", default_value = DEFAULT_NONCES, value_parser = parse_range)]
    pub(super) nonces: NonceRange,
    /// Server seed of the one seed pair to sweep (with --client-seed); with a crash
    /// scheme, the hash of game B-1 of --nonces A..B, where the walk down the chain starts.
    #[arg(long, value_name = "S", requires = "client_seed", allow_hyphen_values = true)]
    pub(super) server_seed: Option<String>,
    /// Client seed of the one seed pair to sweep (with --server-seed); with a crash
    /// scheme, the salt.
    #[arg(long, value_name = "C", requires = "server_seed", allow_hyphen_values = true)]
    pub(super) client_seed: Option<String>,
    /// Sweep K seed pairs derived from --master-seed (see docs/sweep.md for the derivation).
    #[arg(long, value_name = "K", conflicts_with = "server_seed", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) seed_pairs: Option<u32>,
    /// Master seed for --seed-pairs.
    #[arg(long, value_name = "X", requires = "seed_pairs", allow_hyphen_values = true)]
    master_seed: Option<String>,
    /// Worker threads, 1 to 512 (default: all cores); results do not depend on it.
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    pub(super) threads: Option<u32>,
    /// Nonces per work chunk (does not change results).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CHUNK, value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) chunk_size: u64,
    /// Output folder (with --shards, the folder of the shard folders).
    #[arg(long, value_name = "DIR", default_value = "reports")]
    pub(super) out: PathBuf,
    /// Continue the interrupted sweep in --out, and fail if there is none (the same command
    /// without --resume also continues one).
    #[arg(long)]
    pub(super) resume: bool,
    /// Replace another run's output in --out.
    #[arg(long, conflicts_with = "resume")]
    pub(super) force: bool,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    /// Where the rounds are swept: cpu (the default), gpu (an NVIDIA GPU; a build with the `gpu`
    /// feature), auto (a usable GPU, else the CPU, saying why), or cpu-kernel (the device
    /// kernel on the CPU's threads, for testing the device path); results do not depend on
    /// it. See docs/gpu.md.
    #[arg(long, value_name = "D", default_value = "cpu", value_parser = parse_device)]
    pub(super) device: DeviceChoice,
    #[command(flatten)]
    pub(super) keccak: super::args::KeccakArgs,
    #[command(flatten)]
    pub(super) report: ReportArgs,
    #[command(flatten)]
    pub(super) cluster: ClusterArgs,
}

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

/// The seed pairs to sweep: the one given, K derived from the master seed, or the default.
/// How many seed pairs [`seed_pairs_of`] makes, without deriving them (a recorded command
/// read by `certify` is bounded before any work).
pub(super) fn seed_pair_count(args: &SweepArgs) -> u64 {
    match (&args.server_seed, &args.client_seed, args.seed_pairs) {
        (Some(_), Some(_), _) => 1,
        (_, _, Some(count)) => u64::from(count),
        _ => 1,
    }
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

/// Refuses a sweep whose seed pairs cannot fit in this machine's memory, each holding
/// `pair_bytes` ([`game_pair_bytes`] summed over the games, or a scheme's own figure) until the results are
/// written, so that `--seed-pairs` in the billions would otherwise abort on an allocation
/// (or, in the thousands, be killed for memory after hours of sweeping).
pub(super) fn check_seed_pair_memory(args: &SweepArgs, pair_bytes: u64) -> Result<()> {
    let pairs = seed_pair_count(args);
    check_pair_memory(pairs, pair_bytes, &format!("--seed-pairs {pairs}"), FEWER_PAIRS)
}

/// What a sweep refused for its seed pairs' memory can do.
pub(super) const FEWER_PAIRS: &str = "sweep fewer seed pairs";

/// [`check_seed_pair_memory`] for `pairs` seed pairs, however they were named (`what`
/// starts the error: the flag, or the file that lists them, and their number; `advice` ends it).
pub(super) fn check_pair_memory(pairs: u64, pair_bytes: u64, what: &str, advice: &str) -> Result<()> {
    let needed = pairs.saturating_mul(pair_bytes);
    if let Some((memory, source)) = memory_limit().filter(|&(memory, _)| needed > memory) {
        bail!(
            "{what}: their seed pairs need about {} of memory, more than the {} this process may use ({source}); {advice}",
            human_bytes(needed),
            human_bytes(memory)
        );
    }
    Ok(())
}

/// The memory this process may use, and what limits it: the least of the machine's
/// physical memory, its cgroup's limit and its address-space limit. Physical memory alone
/// let a sweep under a 2 GB container or `ulimit -v` start and abort on an allocation
/// (exit 134) instead of being refused (issue 59).
fn memory_limit() -> Option<(u64, &'static str)> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|membership| cgroup_memory_limit(&membership, |path| std::fs::read_to_string(path).ok()));
    [
        physical_memory().map(|m| (m, "this machine's memory")),
        cgroup.map(|m| (m, "its cgroup's memory limit")),
        address_space_limit().map(|m| (m, "its address-space limit, ulimit -v")),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|&(memory, _)| memory)
}

/// The machine's physical memory, if the system says.
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf reads a system value and touches no memory of ours.
    let (pages, page_size) =
        unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    let (pages, page_size) = (u64::try_from(pages).ok()?, u64::try_from(page_size).ok()?);
    pages.checked_mul(page_size)
}

/// The process's `RLIMIT_AS` (`ulimit -v`, `prlimit --as`), when it has one.
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes only the struct it is given, which is ours.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(limit.rlim_cur)
}

/// The least memory limit of the process's cgroup and of each above it (a parent's limit
/// binds its children), from `membership` (`/proc/self/cgroup`) and the files `read`
/// returns: cgroup v2's `memory.max` (`max` is none) and v1's `memory.limit_in_bytes`
/// (an unlimited one reads as a number near 2^63, which never wins). Where the process
/// sees its cgroup as the root (a cgroup namespace), the root's files are its own.
fn cgroup_memory_limit(membership: &str, read: impl Fn(&Path) -> Option<String>) -> Option<u64> {
    let mut least: Option<u64> = None;
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let (mount, file) = match controllers {
            "" => ("/sys/fs/cgroup", "memory.max"),
            list if list.split(',').any(|c| c == "memory") => {
                ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
            }
            _ => continue,
        };
        let mut at = Some(Path::new(path));
        while let Some(dir) = at {
            let relative = dir.strip_prefix("/").unwrap_or(dir);
            let limit = read(&Path::new(mount).join(relative).join(file))
                .and_then(|text| text.trim().parse::<u64>().ok());
            if let Some(limit) = limit {
                least = Some(least.map_or(limit, |l| l.min(limit)));
            }
            at = dir.parent();
        }
    }
    least
}

fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "kB", "MB", "GB", "TB", "PB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

pub(super) fn seed_pairs_of(args: &SweepArgs) -> (SeedSource, Vec<SeedPair>) {
    match (&args.server_seed, &args.client_seed, args.seed_pairs) {
        (Some(server), Some(client), _) => {
            (SeedSource::Given, vec![SeedPair::new(server.as_str(), client.as_str())])
        }
        (_, _, Some(count)) => {
            let master = args.master_seed.clone().unwrap_or_else(|| DEFAULT_MASTER_SEED.to_owned());
            let pairs = derive_seed_pairs(&master, count as usize);
            (SeedSource::Derived { master_seed: master }, pairs)
        }
        _ => (SeedSource::Default, vec![default_seed_pair()]),
    }
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

/// Whether a sweep continues from the tallies an earlier sweep left in its folder (`same`:
/// of the same plan and shard): an interrupted one or `--resume` continues, and so does a
/// shard already complete; a finished sweep of the same plan is swept again (reproduced);
/// another plan is refused, saying what to do.
pub(super) fn continue_earlier(
    folder: &OutputFolder,
    same: bool,
    complete: bool,
    shard: bool,
    resume: bool,
) -> Result<bool> {
    let dir = folder.target().display();
    if !same && (resume || !complete) {
        bail!("{dir} holds an interrupted sweep of a different plan (games, nonces, seed pairs or shard); run it with its own arguments, choose another --out, or pass --force to start over");
    }
    if !same {
        bail!("{dir} holds the output of a different sweep; choose another --out, or pass --force to replace it");
    }
    // A shard is a scheduler's task, run again after a requeue or a resubmitted array: a
    // complete one is not swept again (its results are recomputed from its tallies),
    // unless another version of fairaudit made it.
    let finished_shard = shard && made_by_this_version(folder);
    Ok(resume || !complete || finished_shard)
}

/// The scheme of the sweep whose `run.json` the folder holds, where it names one (a sweep
/// of the default scheme does not).
fn earlier_scheme(folder: &OutputFolder) -> Option<String> {
    folder.earlier_run()?["plan"]["scheme"].as_str().map(str::to_owned)
}

/// Whether the folder's `run.json` was written by this version of fairaudit.
fn made_by_this_version(folder: &OutputFolder) -> bool {
    folder.earlier_run().is_some_and(|run| run["fairaudit_version"] == env!("CARGO_PKG_VERSION"))
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

fn parse_device(text: &str) -> Result<DeviceChoice, String> {
    text.parse()
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
    if args.scheme == Some(SchemeId::Stake) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_cgroup_limit_of_the_process_and_its_parents_is_read_for_v1_and_v2() {
        let files = [
            ("/sys/fs/cgroup/a/memory.max", "max\n"),
            ("/sys/fs/cgroup/a/b/memory.max", "3000000000\n"),
            ("/sys/fs/cgroup/memory/x/memory.limit_in_bytes", "2000000000\n"),
            ("/sys/fs/cgroup/memory/x/y/memory.limit_in_bytes", "9223372036854771712\n"),
        ];
        let read = |path: &Path| files.iter().find(|(p, _)| Path::new(p) == path).map(|(_, t)| t.to_string());
        assert_eq!(cgroup_memory_limit("0::/a/b\n", read), Some(3_000_000_000));
        assert_eq!(cgroup_memory_limit("4:memory:/x/y\n1:cpu:/\n", read), Some(2_000_000_000));
        assert_eq!(cgroup_memory_limit("0::/a\n", read), None);
        assert_eq!(cgroup_memory_limit("1:cpu,cpuacct:/x/y\n", read), None);
    }
}
