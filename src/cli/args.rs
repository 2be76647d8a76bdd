//! The command line's shared pieces: value parsers (one per kind of value, all built on
//! the library's [`fairaudit::fields`]), the argument groups several commands share, and
//! the loaders of the input files they name. Commands turn their arguments into a
//! validated request with these before any work starts.

use super::input;
use super::shards::ClusterArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::audit::money::Money;
use fairaudit::audit::AuditOptions;
use fairaudit::chain::seeds::{default_seed_pair, derive_seed_pairs, SeedPair, DEFAULT_MASTER_SEED};
use fairaudit::chain::{KeccakPath, KeccakRequest, Kernel};
use fairaudit::columns::{ColumnMap, CsvLayout};
use fairaudit::device::DeviceChoice;
use fairaudit::fields::parse_nonce;
use fairaudit::games::GameId;
use fairaudit::rtp::claims::{builtin_claims, parse_claims, Claim};
use fairaudit::rtp::{Paytable, PaytableOrigin};
use fairaudit::scheme::SchemeId;
use fairaudit::sweep::DEFAULT_CHUNK;
use fairaudit::tally::file::{NonceRange, SeedSource};
use std::path::{Path, PathBuf};

/// The most worker threads a command starts: far more than any machine fairaudit runs on
/// has cores (results never depend on the count), few enough that a typo cannot exhaust
/// the machine (`--threads 4294967295` once spawned 9,357 threads before it was stopped).
pub const MAX_THREADS: u32 = 512;

/// A scheme name: `sha3` or `stake`.
pub fn parse_scheme(text: &str) -> Result<fairaudit::scheme::SchemeId, String> {
    text.parse().map_err(|e: fairaudit::scheme::UnknownScheme| e.to_string())
}

/// A game name: `keno`, `roulette-european` or `roulette-american`.
pub fn parse_game(text: &str) -> Result<GameId, String> {
    text.parse().map_err(|e: fairaudit::games::UnknownGame| e.to_string())
}

/// Games named with `--game` for the default scheme: an unknown name is an input error,
/// and a game of scheme stake says to pass `--scheme stake` (its names are read after the
/// scheme is known, so `--game` is parsed here rather than by clap).
pub fn sha3_games(names: &[String]) -> Result<Vec<GameId>> {
    names
        .iter()
        .map(|name| {
            parse_game(name).map_err(|error| {
                match fairaudit::scheme::stake::GAMES.contains(&name.as_str()) && name != "keno" {
                    true => anyhow::anyhow!("--game {name} is a game of scheme stake; pass --scheme stake"),
                    false => anyhow::anyhow!("invalid value for --game: {error}"),
                }
            })
        })
        .collect()
}

/// A nonce: plain decimal, 0 to 2^64 − 1.
pub fn parse_nonce_arg(text: &str) -> Result<u64, String> {
    parse_nonce(text).map_err(|e| e.to_string())
}

/// A half-open nonce range `A..B` of nonces, refusing an empty one.
pub fn parse_range(text: &str) -> Result<NonceRange, String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("'{}' is not a range A..B", fairaudit::fields::Excerpt(text)))?;
    let start = parse_nonce(a).map_err(|e| e.to_string())?;
    let end = parse_nonce(b).map_err(|e| e.to_string())?;
    if start >= end {
        return Err(format!("range {text} is empty (A must be below B)"));
    }
    Ok(NonceRange { start, end })
}

/// A significance level strictly between 0 and 1, and not below
/// [`fairaudit::stats::battery::MIN_ALPHA`].
pub fn parse_alpha(text: &str) -> Result<f64, String> {
    use fairaudit::stats::battery::MIN_ALPHA;
    match text.parse::<f64>() {
        Ok(alpha) if alpha > 0.0 && alpha < MIN_ALPHA => {
            Err(format!("alpha {alpha:e} is below {MIN_ALPHA:e}, the lowest level a battery is run at"))
        }
        Ok(alpha) if alpha > 0.0 && alpha < 1.0 => Ok(alpha),
        _ => Err(format!(
            "alpha must be a number between 0 and 1 (exclusive), got '{}'",
            fairaudit::fields::Excerpt(text)
        )),
    }
}

/// A thread count, 1 to [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<u32, String> {
    fairaudit::fields::parse_small(text, 1..=u64::from(MAX_THREADS), "a thread count").map(|t| t as u32)
}

/// A commitment: 64 hex characters (compared ignoring case).
pub fn parse_commitment(text: &str) -> Result<String, String> {
    if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(text.to_owned())
    } else {
        Err(format!("a commitment is 64 hex characters, got '{}'", fairaudit::fields::Excerpt(text)))
    }
}

/// An amount of money (`0.01`).
pub fn parse_amount(text: &str) -> Result<Money, String> {
    Money::parse(text).map_err(|e| e.to_string())
}

/// The games named, in report order, each once; all three when none is named.
pub fn games_or_all(named: &[GameId]) -> Vec<GameId> {
    GameId::ALL.into_iter().filter(|game| named.is_empty() || named.contains(game)).collect()
}

/// A column mapping `FIELD=HEADER` (see [`fairaudit::columns`]).
pub fn parse_column(text: &str) -> Result<(String, String), String> {
    ColumnMap::parse_entry(text).map_err(|e| e.to_string())
}

/// A field delimiter: one ASCII character other than a quote or a line break; `tab` or
/// `\t` for a tab.
pub fn parse_delimiter(text: &str) -> Result<u8, String> {
    match text {
        "tab" | "\\t" => Ok(b'\t'),
        _ if text.len() == 1 && text.is_ascii() && !matches!(text, "\"" | "\n" | "\r") => Ok(text.as_bytes()[0]),
        _ => Err(format!(
            "a delimiter is one ASCII character other than a quote or a line break (e.g. ';' or '|', 'tab' for a tab), got '{}'",
            fairaudit::fields::Excerpt(text)
        )),
    }
}

/// How an input CSV is laid out: the fields it names its own way, its delimiter (shared by
/// `audit` and `verify --rounds`).
#[derive(Debug, Args)]
pub struct LayoutArgs {
    /// Read FIELD from the file's column HEADER (repeatable), e.g. --column result=Outcome
    /// --column nonce="Bet nonce"; replaces the --columns file's line for that field.
    #[arg(long = "column", value_name = "FIELD=HEADER", value_parser = parse_column)]
    column: Vec<(String, String)>,
    /// A column mapping file: one FIELD = HEADER per line, '#' comments (see docs/audit.md).
    #[arg(long = "columns", value_name = "FILE")]
    columns: Option<PathBuf>,
    /// The file's field delimiter: one ASCII character, e.g. ';' or '|'; 'tab' for tabs.
    #[arg(long, value_name = "CHAR", default_value = ",", value_parser = parse_delimiter)]
    delimiter: u8,
}

impl LayoutArgs {
    /// Whether any layout option was given.
    pub fn given(&self) -> bool {
        !self.column.is_empty() || self.columns.is_some() || self.delimiter != b','
    }

    /// The `--columns` mapping file, when given.
    pub fn columns_file(&self) -> Option<&Path> {
        self.columns.as_deref()
    }

    /// The layout asked for, its fields checked against `known` (the reader's fields).
    pub fn layout(&self, known: &[&str]) -> Result<CsvLayout> {
        self.layout_from(known, self.columns.as_deref())
    }

    /// The layout asked for with the mapping file read from `columns` instead of the
    /// `--columns` path (a copy of it, for `certify`).
    pub fn layout_from(&self, known: &[&str], columns: Option<&Path>) -> Result<CsvLayout> {
        let from_file = match columns {
            Some(path) => {
                let mut file = input::open(path).map_err(|error| {
                    if path.to_string_lossy().contains('=') {
                        error.context("--columns names a mapping file; one mapping is --column FIELD=HEADER")
                    } else {
                        error
                    }
                })?;
                let mut text = String::new();
                std::io::Read::read_to_string(&mut file, &mut text)
                    .with_context(|| format!("{}: cannot read", path.display()))?;
                ColumnMap::parse(&text).with_context(|| path.display().to_string())?
            }
            None => ColumnMap::default(),
        };
        let mut given = ColumnMap::default();
        for (field, header) in &self.column {
            given.insert(field, header).context("--column")?;
        }
        let columns = from_file.overridden_by(given);
        columns.check_fields(known)?;
        Ok(CsvLayout { delimiter: self.delimiter, columns })
    }
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
    /// Whether the widest path is asked for (the default): no particular path.
    pub fn is_auto(&self) -> bool {
        self.request == KeccakRequest::Auto
    }

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

/// How the battery and the report are made (shared by `sweep` and `merge`).
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Level of the statistical battery (family-wise, Holm-adjusted).
    #[arg(long, value_name = "A", default_value_t = 0.01, value_parser = parse_alpha)]
    pub alpha: f64,
    /// The operator's Keno paytable for rtp.csv (default: the illustrative example).
    #[arg(long, value_name = "FILE")]
    pub paytable: Option<PathBuf>,
    /// The operator's published claims for report.html (default: the built-in SPEC claims).
    #[arg(long, value_name = "FILE")]
    pub claims: Option<PathBuf>,
}

/// The operator's Keno paytable from `path`, or the illustrative example without one.
pub fn load_paytable(path: Option<&Path>) -> Result<Paytable> {
    Ok(match path {
        Some(path) => {
            let origin = PaytableOrigin::File(path.display().to_string());
            Paytable::parse(input::open(path)?, origin).with_context(|| path.display().to_string())?
        }
        None => Paytable::example(),
    })
}

/// The operator's claims from `path`, or the built-in published claims without one.
pub fn load_claims(path: Option<&Path>) -> Result<Vec<Claim>> {
    Ok(match path {
        Some(path) => parse_claims(input::open(path)?).with_context(|| path.display().to_string())?,
        None => builtin_claims(),
    })
}

/// The command as typed (arguments after the program name), for `run.json`.
pub fn command_line() -> Vec<String> {
    std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect()
}

/// The SHA-256 of each file of `named` (the paths a command named), for `run.json`:
/// `certify` finds by it the file the run read, wherever it is run. Standard input, pipes
/// and files that cannot be read are left out (they cannot be read again either).
pub fn input_hashes(named: &[Option<&Path>]) -> Vec<fairaudit::report::run_info::InputHash> {
    named
        .iter()
        .flatten()
        .filter(|path| path.as_os_str() != "-" && path.is_file())
        .filter_map(|path| {
            let hashed = fairaudit::certify::hash_file(path, String::new()).ok()?;
            Some(fairaudit::report::run_info::InputHash {
                path: path.display().to_string(),
                sha256: hashed.sha256,
            })
        })
        .collect()
}

/// The directory this run runs in, for `run.json`: `certify` reads the files a command
/// named by relative paths from there, wherever it is run itself.
pub fn working_dir() -> Option<String> {
    std::env::current_dir().ok()?.into_os_string().into_string().ok()
}

/// `fairaudit merge`: the folders to merge and where the merge goes.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Output folders of sweeps over disjoint nonce ranges (same games and seed pairs), or
    /// the --out of a sweep cut with --shards (the folder holding its shard-IIII-of-NNNN
    /// folders), or shard folders themselves.
    #[arg(value_name = "DIR", required = true)]
    pub(super) inputs: Vec<PathBuf>,
    /// Folder for the merged output.
    #[arg(long, value_name = "DIR")]
    pub(super) out: PathBuf,
    /// Replace another run's output in --out.
    #[arg(long)]
    pub(super) force: bool,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    /// Merge the complete shards when some are missing or interrupted; the output then
    /// says PARTIAL everywhere and names the shards it lacks.
    #[arg(long)]
    pub(super) allow_partial: bool,
    #[command(flatten)]
    pub(super) report: ReportArgs,
}

/// Default nonce range: 10 million rounds per game.
const DEFAULT_NONCES: &str = "0..10000000";

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The provably-fair scheme: sha3 (SPEC.md, the default), stake (the HMAC-SHA256
    /// family; one --game per run), duel (Duel's dice), or bustabit-v1 and roobet (a range
    /// of games of a crash chain); see docs/schemes.md.
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
    pub(super) keccak: KeccakArgs,
    #[command(flatten)]
    pub(super) report: ReportArgs,
    #[command(flatten)]
    pub(super) cluster: ClusterArgs,
}

fn parse_device(text: &str) -> Result<DeviceChoice, String> {
    text.parse()
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

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The provably-fair scheme: sha3 (SPEC.md, the default), stake (the HMAC-SHA256
    /// family: each row names its game), duel (Duel's dice) or bustabit-v1 and roobet (bets
    /// on crash games); docs/audit.md.
    #[arg(long, value_name = "NAME", value_parser = parse_scheme)]
    pub(super) scheme: Option<SchemeId>,
    /// The game the history belongs to (the default scheme's; required with it).
    #[arg(long, value_name = "G", value_parser = parse_game)]
    pub(super) game: Option<GameId>,
    /// CSV of rounds in play order (`result` required; bets, stakes, payouts, players and
    /// seeds optional; see docs/audit.md); `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub(super) outcomes: PathBuf,
    /// Write tests.csv, summary.json, rtp.csv, findings.csv, nonce_gaps.csv and
    /// report.html to this folder.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Replace those files in --out if they exist.
    #[arg(long, requires = "out")]
    pub(super) force: bool,
    /// Level of the battery (family-wise, Holm-adjusted).
    #[arg(long, value_name = "A", default_value_t = 0.01, value_parser = parse_alpha)]
    pub(super) alpha: f64,
    /// The operator's Keno paytable: payouts are judged against it (required for a Keno
    /// history with payouts), and rtp.csv uses it; with --scheme stake, Keno's payouts are
    /// judged only when it is given.
    #[arg(long, value_name = "FILE")]
    pub(super) paytable: Option<PathBuf>,
    /// A payout within this amount of stake x multiplier is not a finding (default 0:
    /// exact; e.g. 0.01 for payouts rounded to cents).
    #[arg(long, value_name = "AMOUNT", default_value = "0", value_parser = parse_amount)]
    pub(super) payout_tolerance: Money,
    /// Gaps of at most N nonces are replayed for the skipped-rounds test; longer ones are
    /// reported only [default: 10000].
    #[arg(long, value_name = "N")]
    pub(super) max_gap_replay: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) layout: LayoutArgs,
}

/// Gaps replayed for the skipped-rounds test by default (`--max-gap-replay`).
pub(super) const MAX_GAP_REPLAY: u64 = 10_000;

impl AuditArgs {
    /// The files the audit read: the bet history, the paytable and the `--columns`
    /// mapping file (the last two when given).
    pub(super) fn files(&self) -> (PathBuf, Option<PathBuf>, Option<PathBuf>) {
        (self.outcomes.clone(), self.paytable.clone(), self.layout.columns_file().map(PathBuf::from))
    }

    /// What `certify` needs to run this audit again from copies of its files: the game
    /// and the options, with the paytable given and the column mapping read from
    /// `columns` (the copy of its `--columns` file); the `--column` mappings and the
    /// delimiter are the audit's own.
    pub(super) fn replay_with(
        &self,
        paytable: Option<fairaudit::rtp::Paytable>,
        columns: Option<&std::path::Path>,
    ) -> Result<(GameId, AuditOptions)> {
        let game = self.game_of_default_scheme()?;
        let options = AuditOptions {
            paytable,
            payout_tolerance: self.payout_tolerance,
            max_gap_replay: self.max_gap_replay.unwrap_or(MAX_GAP_REPLAY),
            layout: self.layout.layout_from(&fairaudit::audit::fields(game), columns)?,
        };
        Ok((game, options))
    }

    /// The keyed scheme of an audit of one (the HMAC-SHA256 family for another scheme:
    /// only the audits of keyed schemes ask).
    pub(super) fn keyed_scheme(&self) -> fairaudit::scheme::keyed::KeyedScheme {
        self.scheme.and_then(fairaudit::scheme::keyed::KeyedScheme::of).unwrap_or_default()
    }

    /// How an audit of the HMAC-SHA256 family judges a history beside its rows, Keno's
    /// payouts by `keno_paytable` (the copy of the one given, when `certify` runs it).
    pub(super) fn stake_options<'a>(
        &self,
        keno_paytable: Option<&'a fairaudit::rtp::Paytable>,
    ) -> fairaudit::audit::stake::StakeAuditOptions<'a> {
        fairaudit::audit::stake::StakeAuditOptions {
            scheme: self.keyed_scheme(),
            payout_tolerance: self.payout_tolerance,
            keno_paytable,
            max_gap_replay: self.max_gap_replay.unwrap_or(MAX_GAP_REPLAY),
        }
    }

    /// The game of an audit of the default scheme, or why there is none.
    pub(super) fn game_of_default_scheme(&self) -> Result<GameId> {
        if let Some(scheme) = self.scheme.filter(|&scheme| scheme != SchemeId::Sha3) {
            bail!("an audit of scheme {scheme} cannot be certified yet (docs/schemes.md)");
        }
        self.game.context("--game is required: keno, roulette-european or roulette-american (or --scheme stake, whose rows name their games)")
    }
}
