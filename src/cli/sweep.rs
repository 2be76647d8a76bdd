//! `fairaudit sweep` and `fairaudit merge`.

use super::output::{check_output_dir, read_tally, write_files, TALLY_FILE};
use super::rtp::{load_claims, load_paytable};
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::chain::{KeccakPath, KeccakRequest, Kernel, REFERENCE_MAX_NONCE};
use fairaudit::games::GameId;
use fairaudit::report::{RunInfo, RunReport};
use fairaudit::stats::battery::{p_value_text, run_battery, Battery, Verdict as TestVerdict};
use fairaudit::sweep::file::{NonceRange, Plan, SeedSource, TallyFile};
use fairaudit::sweep::seeds::{default_seed_pair, derive_seed_pairs, SeedPair, DEFAULT_MASTER_SEED};
use fairaudit::sweep::{self, rounds_remaining, SweepControl, DEFAULT_CHUNK};
use fairaudit::verify::parse_nonce;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};

/// Default nonce range: 10 million rounds per game.
const DEFAULT_NONCES: &str = "0..10000000";

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Game to sweep (repeat for several): keno, roulette-european, roulette-american. Default: all three.
    #[arg(long = "game", value_name = "G", value_parser = super::verify::parse_game)]
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
    /// Sweep K seed pairs derived from --master-seed (see the README for the derivation).
    #[arg(long, value_name = "K", conflicts_with = "server_seed", value_parser = clap::value_parser!(u32).range(1..))]
    seed_pairs: Option<u32>,
    /// Master seed for --seed-pairs.
    #[arg(long, value_name = "X", requires = "seed_pairs", allow_hyphen_values = true)]
    master_seed: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..))]
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
    /// Replace another sweep's output in --out.
    #[arg(long, conflicts_with = "resume")]
    force: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    keccak: KeccakArgs,
    #[command(flatten)]
    report: ReportArgs,
}

/// Which Keccak implementation hashes the rounds (shared by `sweep` and `stream`).
#[derive(Debug, Args)]
pub struct KeccakArgs {
    /// Keccak path: auto (the widest this CPU has), scalar, avx2 or avx512. Results are
    /// identical on every path.
    #[arg(long = "keccak", value_name = "PATH", env = "FAIRAUDIT_KECCAK", default_value = "auto")]
    request: KeccakRequest,
}

/// Undocumented in `--help`: paths to treat as missing from the CPU (comma-separated), so
/// that the refusal of a forced path the CPU lacks can be tested on a CPU that has it.
const HIDE_PATHS_VARIABLE: &str = "FAIRAUDIT_KECCAK_HIDE";

impl KeccakArgs {
    /// The kernel asked for, or an error (exit 2) if the CPU lacks the forced path.
    pub fn kernel(&self) -> Result<Kernel> {
        let hidden: Vec<KeccakPath> = std::env::var(HIDE_PATHS_VARIABLE)
            .unwrap_or_default()
            .split(',')
            .filter_map(|name| KeccakPath::ALL.into_iter().find(|path| path.name() == name.trim()))
            .collect();
        Ok(Kernel::select_without(self.request, &hidden)?)
    }
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Output folders of sweeps over disjoint nonce ranges (same games and seed pairs).
    #[arg(value_name = "DIR", required = true)]
    inputs: Vec<PathBuf>,
    /// Folder for the merged output.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Replace another run's output in --out.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    report: ReportArgs,
}

/// How the battery and the report are made (shared by `sweep` and `merge`).
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Level of the statistical battery (family-wise, Holm-adjusted).
    #[arg(long, value_name = "A", default_value_t = 0.01, value_parser = parse_alpha)]
    alpha: f64,
    /// The operator's Keno paytable for rtp.csv (default: the illustrative example).
    #[arg(long, value_name = "FILE")]
    paytable: Option<PathBuf>,
    /// The operator's published claims for report.html (default: the built-in SPEC claims).
    #[arg(long, value_name = "FILE")]
    claims: Option<PathBuf>,
}

/// Parses a significance level: a number strictly between 0 and 1.
pub fn parse_alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(alpha) if alpha > 0.0 && alpha < 1.0 => Ok(alpha),
        _ => Err(format!("alpha must be a number between 0 and 1 (exclusive), got '{text}'")),
    }
}

/// Parses a half-open nonce range `A..B` of plain decimal `u64`, refusing an empty one.
pub(crate) fn parse_range(text: &str) -> Result<NonceRange, String> {
    let (a, b) = text.split_once("..").ok_or_else(|| format!("'{text}' is not a range A..B"))?;
    let start = parse_nonce(a).map_err(|e| e.to_string())?;
    let end = parse_nonce(b).map_err(|e| e.to_string())?;
    if start >= end {
        return Err(format!("range {text} is empty (A must be below B)"));
    }
    Ok(NonceRange { start, end })
}

fn plan_of(args: &SweepArgs) -> Plan {
    let games = if args.games.is_empty() {
        GameId::ALL.to_vec()
    } else {
        GameId::ALL.into_iter().filter(|g| args.games.contains(g)).collect()
    };
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
    Plan { games, nonces: vec![args.nonces], seed_source, seed_pairs }
}

fn command_line() -> Vec<String> {
    std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect()
}

static STOP: AtomicBool = AtomicBool::new(false);

pub fn run_sweep(args: SweepArgs) -> Result<Verdict> {
    let plan = plan_of(&args);
    let paytable = load_paytable(args.report.paytable.as_deref())?;
    let claims = load_claims(args.report.claims.as_deref())?;
    let prior = check_output_dir(&args.out, &plan, args.resume, args.force)?;
    if args.nonces.end - 1 > REFERENCE_MAX_NONCE {
        eprintln!(
            "note: nonces above 2^53 - 1 have no reference behaviour (the operator's verifier cannot represent them)"
        );
    }
    let kernel = args.keccak.kernel()?;
    let threads = args.threads.map_or_else(rayon::current_num_threads, |t| t as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst)).context("cannot install the Ctrl-C handler")?;

    let remaining = rounds_remaining(&plan, prior.as_ref());
    let bar = progress_bar(remaining, args.quiet);
    let started = (SystemTime::now(), Instant::now());
    let progress = |rounds: u64| bar.inc(rounds);
    let control = SweepControl { chunk: args.chunk_size, stop: &STOP, progress: &progress, kernel };
    let tallies = pool.install(|| sweep::run(&plan, prior, &control))?;
    bar.finish_and_clear();

    let mut info = RunInfo::for_tallies(&tallies, command_line());
    info.threads = Some(threads);
    info.chunk_size = Some(args.chunk_size);
    info.keccak_path = Some(kernel.path());
    let done = bar.position();
    fill_timing(&mut info, started, done);
    let battery = tallies.complete.then(|| run_battery(&tallies, args.report.alpha));
    let report = RunReport {
        tallies: &tallies,
        run: &info,
        battery: battery.as_ref(),
        paytable: &paytable,
        claims: &claims,
    };
    write_files(&args.out, &report.files())?;

    if !tallies.complete {
        eprintln!(
            "interrupted: {done} of {remaining} rounds tallied and saved in {}; \
             run the same command with --resume to continue",
            args.out.join(TALLY_FILE).display()
        );
        return Ok(Verdict::Interrupted);
    }
    println!(
        "swept {} game(s) x {} seed pair(s) x {} nonces: {done} rounds in {:.1} s ({:.0} rounds/s, {threads} threads)",
        plan.games.len(),
        plan.seed_pairs.len(),
        plan.rounds_per_sequence(),
        info.elapsed_seconds,
        info.rounds_per_second,
    );
    println!("output: {}", args.out.display());
    Ok(print_battery(battery.as_ref().expect("complete sweeps run the battery")))
}

/// Prints the battery's verdict line and every test that did not pass; the verdict.
pub fn print_battery(battery: &Battery) -> Verdict {
    let counts = battery.counts();
    let overall = battery.overall();
    println!(
        "battery at alpha {}: {} tests, {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
        battery.alpha,
        battery.results.len(),
        counts.pass,
        counts.weak,
        counts.fail,
        counts.insufficient,
        overall.as_str()
    );
    for result in battery.results.iter().filter(|r| r.verdict != TestVerdict::Pass) {
        let which = format!("{} {} {}", result.game, result.seed_pair, result.outcome.test);
        match (result.outcome.p_value, result.adjusted_p) {
            (Some(p), Some(adjusted)) => println!(
                "  {:<12} {which}: p {}, adjusted {} ({})",
                result.verdict.as_str(),
                p_value_text(p),
                p_value_text(adjusted),
                result.outcome.note
            ),
            _ => println!("  {:<12} {which}: {}", result.verdict.as_str(), result.outcome.note),
        }
    }
    if overall == TestVerdict::Fail {
        Verdict::Finding
    } else {
        Verdict::Clean
    }
}

fn fill_timing(info: &mut RunInfo, started: (SystemTime, Instant), rounds: u64) {
    let elapsed = started.1.elapsed().as_secs_f64();
    info.started_at = humantime::format_rfc3339_seconds(started.0).to_string();
    info.finished_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    info.elapsed_seconds = elapsed;
    info.rounds_this_run = rounds;
    info.rounds_per_second = if elapsed > 0.0 { rounds as f64 / elapsed } else { 0.0 };
}

fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {percent}% {human_pos}/{human_len} rounds, {per_sec}, ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

pub fn run_merge(args: MergeArgs) -> Result<Verdict> {
    let started = (SystemTime::now(), Instant::now());
    let paytable = load_paytable(args.report.paytable.as_deref())?;
    let claims = load_claims(args.report.claims.as_deref())?;
    let mut files = Vec::new();
    for dir in &args.inputs {
        files.push(read_tally(&dir.join(TALLY_FILE))?);
    }
    let merged: TallyFile = sweep::merge(files)?;
    if args.out.join(TALLY_FILE).exists() && !args.force {
        let existing = read_tally(&args.out.join(TALLY_FILE))?;
        if existing.plan != merged.plan || !existing.complete {
            bail!(
                "{} holds the output of a different run; choose another --out, or pass --force to replace it",
                args.out.display()
            );
        }
    }
    let mut info = RunInfo::for_tallies(&merged, command_line());
    fill_timing(&mut info, started, 0);
    let battery = run_battery(&merged, args.report.alpha);
    let report = RunReport {
        tallies: &merged,
        run: &info,
        battery: Some(&battery),
        paytable: &paytable,
        claims: &claims,
    };
    write_files(&args.out, &report.files())?;
    println!(
        "merged {} inputs: {} nonces per game and seed pair; output: {}",
        args.inputs.len(),
        merged.plan.rounds_per_sequence(),
        args.out.display()
    );
    Ok(print_battery(&battery))
}
