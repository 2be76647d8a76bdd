//! `fairaudit sweep`: arguments → a validated request (plan, inputs, a claimed output
//! folder, what to resume) → the sweep → the results → the folder's files, written as a
//! unit → the terminal.

use super::args::{
    command_line, load_claims, load_paytable, parse_game, parse_range, parse_threads, ReportArgs,
};
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::input::{install_stop_handler, STOP};
use super::output::read_tally;
use super::progress::{Progress, Unit};
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::chain::seeds::{default_seed_pair, derive_seed_pairs, SeedPair, DEFAULT_MASTER_SEED};
use fairaudit::chain::{Kernel, REFERENCE_MAX_NONCE};
use fairaudit::games::GameId;
use fairaudit::report::{RunInfo, RunReport};
use fairaudit::results::RunResults;
use fairaudit::rtp::claims::Claim;
use fairaudit::rtp::Paytable;
use fairaudit::sweep::{self, rounds_remaining, SweepControl, DEFAULT_CHUNK};
use fairaudit::tally::file::{NonceRange, Plan, SeedSource, TallyFile, TALLY_FILE};
use std::path::PathBuf;
use std::time::{Instant, SystemTime};

/// Default nonce range: 10 million rounds per game.
const DEFAULT_NONCES: &str = "0..10000000";

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Game to sweep (repeat for several): keno, roulette-european, roulette-american. Default: all three.
    #[arg(long = "game", value_name = "G", value_parser = parse_game)]
    games: Vec<GameId>,
    /// Half-open nonce range A..B (plain decimal u64).
    #[arg(long, value_name = "A..B", default_value = DEFAULT_NONCES, value_parser = parse_range)]
    nonces: NonceRange,
    /// Server seed of the one seed pair to sweep (with --client-seed).
    #[arg(long, value_name = "S", requires = "client_seed", allow_hyphen_values = true)]
    server_seed: Option<String>,
    /// Client seed of the one seed pair to sweep (with --server-seed).
    #[arg(long, value_name = "C", requires = "server_seed", allow_hyphen_values = true)]
    client_seed: Option<String>,
    /// Sweep K seed pairs derived from --master-seed (see docs/sweep.md for the derivation).
    #[arg(long, value_name = "K", conflicts_with = "server_seed", value_parser = clap::value_parser!(u32).range(1..))]
    seed_pairs: Option<u32>,
    /// Master seed for --seed-pairs.
    #[arg(long, value_name = "X", requires = "seed_pairs", allow_hyphen_values = true)]
    master_seed: Option<String>,
    /// Worker threads, 1 to 512 (default: all cores); results do not depend on it.
    #[arg(long, value_name = "T", value_parser = parse_threads)]
    threads: Option<u32>,
    /// Nonces per work chunk (does not change results).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CHUNK, value_parser = clap::value_parser!(u64).range(1..))]
    chunk_size: u64,
    /// Output folder.
    #[arg(long, value_name = "DIR", default_value = "reports")]
    out: PathBuf,
    /// Continue an interrupted sweep in --out (same arguments).
    #[arg(long)]
    resume: bool,
    /// Replace another run's output in --out.
    #[arg(long, conflicts_with = "resume")]
    force: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    keccak: super::args::KeccakArgs,
    #[command(flatten)]
    report: ReportArgs,
}

/// A sweep ready to run: every input read and checked, the output folder claimed.
struct SweepRequest {
    plan: Plan,
    paytable: Paytable,
    claims: Vec<Claim>,
    alpha: f64,
    threads: usize,
    chunk: u64,
    kernel: Kernel,
    quiet: bool,
    folder: OutputFolder,
    prior: Option<TallyFile>,
}

impl SweepRequest {
    fn new(args: SweepArgs) -> Result<SweepRequest> {
        let plan = plan_of(&args);
        let paytable = load_paytable(args.report.paytable.as_deref())?;
        let claims = load_claims(args.report.claims.as_deref())?;
        let (folder, existing) = OutputFolder::claim(&args.out)?;
        let prior = earlier_sweep(&folder, existing, &plan, args.resume, args.force)?;
        // All cores by default. Not `rayon::current_num_threads`: that starts rayon's global
        // pool, which panics when threads cannot be spawned (a process limit).
        let threads = args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            |t| t as usize,
        );
        let kernel = args.keccak.kernel()?;
        Ok(SweepRequest {
            plan,
            paytable,
            claims,
            alpha: args.report.alpha,
            threads,
            chunk: args.chunk_size,
            kernel,
            quiet: args.quiet,
            folder,
            prior,
        })
    }
}

fn plan_of(args: &SweepArgs) -> Plan {
    let (seed_source, seed_pairs) = match (&args.server_seed, &args.client_seed, args.seed_pairs) {
        (Some(server), Some(client), _) => {
            (SeedSource::Given, vec![SeedPair::new(server.as_str(), client.as_str())])
        }
        (_, _, Some(count)) => {
            let master = args.master_seed.clone().unwrap_or_else(|| DEFAULT_MASTER_SEED.to_owned());
            let pairs = derive_seed_pairs(&master, count as usize);
            (SeedSource::Derived { master_seed: master }, pairs)
        }
        _ => (SeedSource::Default, vec![default_seed_pair()]),
    };
    Plan { games: super::args::games_or_all(&args.games), nonces: vec![args.nonces], seed_source, seed_pairs }
}

/// What the output folder's earlier sweep means for this one: the tallies to continue
/// (`--resume`), nothing (a fresh start, `--force`, or a finished run of the same plan
/// being reproduced), or a refusal that says what to do.
fn earlier_sweep(
    folder: &OutputFolder,
    existing: Existing,
    plan: &Plan,
    resume: bool,
    force: bool,
) -> Result<Option<TallyFile>> {
    let dir = folder.target().display();
    let tally_path = folder.target().join(TALLY_FILE);
    match existing {
        Existing::Nothing if resume => bail!("{dir}: nothing to resume (no {TALLY_FILE})"),
        Existing::Nothing => Ok(None),
        Existing::Run { .. } if force => Ok(None),
        Existing::Run { kind } if kind.is_empty() || kind == "sweep" => {
            let existing = read_tally(&tally_path).with_context(|| {
                format!("{dir} holds a {TALLY_FILE} fairaudit cannot use; pass --force to replace it")
            })?;
            if resume {
                if existing.plan != *plan {
                    bail!("{dir}: the interrupted sweep there has a different plan (games, nonces or seed pairs); resume with the same arguments");
                }
                return Ok(Some(existing));
            }
            if !existing.complete {
                bail!("{dir} holds an interrupted sweep: pass --resume to continue it, or --force to start over");
            }
            if existing.plan != *plan {
                bail!("{dir} holds the output of a different sweep; choose another --out, or pass --force to replace it");
            }
            Ok(None)
        }
        Existing::Run { kind } => {
            bail!("{dir} holds the output of a fairaudit {kind}; choose another --out, or pass --force to replace it")
        }
    }
}

pub fn run(args: SweepArgs) -> Result<Verdict> {
    let request = SweepRequest::new(args)?;
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
    let bar = Progress::new(Some(remaining), Unit::Rounds, request.quiet);
    let started = (SystemTime::now(), Instant::now());
    let progress = |rounds: u64| bar.inc(rounds);
    let control =
        SweepControl { chunk: request.chunk, stop: &STOP, progress: &progress, kernel: request.kernel };
    let tallies = pool.install(|| sweep::run(plan, request.prior, &control))?;
    drop(bar);

    let mut info = RunInfo::for_tallies("sweep", &tallies, command_line());
    info.threads = Some(request.threads);
    info.chunk_size = Some(request.chunk);
    info.keccak_path = Some(request.kernel.path());
    // The facts come from the tallies, not from the progress bar (which a finished bar
    // reports as full even after an interruption).
    let done = tallies.rounds() - rounds_before;
    fill_timing(&mut info, started, done);
    let results = tallies
        .complete
        .then(|| RunResults::compute(&tallies, &request.paytable, &request.claims, request.alpha));
    let report = RunReport { tallies: &tallies, run: &info, results: results.as_ref() };
    let dir = request.folder.target().to_owned();
    request.folder.write_all(&report.files())?;
    request.folder.commit()?;

    if !tallies.complete {
        errln!(
            "interrupted: {done} of {remaining} rounds tallied and saved in {}; run the same command with --resume to continue",
            dir.join(TALLY_FILE).display()
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
    outln!("output: {}", dir.display());
    Ok(print_battery(&results.expect("complete sweeps have results").battery, "seed pairs"))
}

/// `server:client:nonce` is joined with colons, so a colon inside a seed makes two seed
/// pairs give one message (`a:b` with `c` is `a` with `b:c`). The chain is the operator's;
/// fairaudit reproduces it, and says so.
pub fn warn_about_colons(pairs: &[SeedPair]) {
    for warning in fairaudit::results::ambiguity_warnings(pairs) {
        errln!("warning: {warning}");
    }
}

pub fn fill_timing(info: &mut RunInfo, started: (SystemTime, Instant), rounds: u64) {
    let elapsed = started.1.elapsed().as_secs_f64();
    info.started_at = humantime::format_rfc3339_seconds(started.0).to_string();
    info.finished_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    info.elapsed_seconds = elapsed;
    info.rounds_this_run = rounds;
    info.rounds_per_second = if elapsed > 0.0 { rounds as f64 / elapsed } else { 0.0 };
}
