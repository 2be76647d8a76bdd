//! `fairaudit certify`: the audit certificate of complete sweeps and audited bet
//! histories, written as a relocatable dossier (`certificate.html`, `certificate.pdf`
//! through headless Chromium where it is installed, `manifest.json`, its signature
//! `manifest.json.sig` when signed, and copies of every input under `inputs/`), and
//! `certify --check DIR`, which checks a dossier strictly from any working directory:
//! exactly the listed files, every hash, every verdict and figure recomputed from the
//! copies, the document re-rendered and compared byte for byte, the signature. The
//! document is the library's (`report::certificate`), the hashes, verdict keys and
//! signatures too (`certify`); this file reads the inputs, runs Chromium, writes the
//! folder, prints and chooses the exit status (0 matches, 1 mismatch, 2 cannot check).

use super::args::{command_line, load_claims, parse_alpha, ReportArgs};
use super::audit::{AuditArgs, FirstFindings};
use super::folder::{Existing, OutputFolder, OUR_FILES};
use super::input::{self, install_stop_handler, STOP};
use super::output::read_tally;
use super::{Cli, Command, Verdict};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, ValueEnum};
use fairaudit::audit::audit_history;
use fairaudit::certify::signature::{self, AllowedSigner, SIGNATURE_FILE};
use fairaudit::certify::worked::{choose_rounds, read_vectors, work_round, WorkedRound};
use fairaudit::certify::{
    compare_hashes, compare_verdicts, hash_file, open_regular, pdf_page_count, sha256_hex, unlisted_entries,
    AuditPart, AuditRecord, ChainPart, ChainRecord, Conclusions, CrashAuditPart, FileHash, Manifest,
    Mismatch, Signer, StakeAuditPart, StakeSweepPart, SweepRecord, Unreadable, INPUTS_DIR, MANIFEST_FILE,
    MANIFEST_FORMAT, MANIFEST_LIMIT, MANIFEST_VERSION,
};
use fairaudit::chain::{KeccakRequest, Kernel};
use fairaudit::games::GameId;
use fairaudit::report::certificate::{
    AuditShown, CertificateDoc, ChainShown, CrashAuditShown, Paper, StakeSweepShown, SweepPart,
};
use fairaudit::report::crash::{cells_table, chain_summary_json, CrashPlan};
use fairaudit::report::results::tests_table;
use fairaudit::report::results::{summary_json, RowChecks};
use fairaudit::report::stake::{counts_table, rtp_table as stake_rtp_table, StakePlan, StakeRun};
use fairaudit::report::stake_html::StakeHtmlReport;
use fairaudit::report::{RunInfo, RunReport};
use fairaudit::results::RunResults;
use fairaudit::rtp::claims::ClaimVerdict;
use fairaudit::rtp::paytable::PaytableOrigin;
use fairaudit::rtp::{check_claim, exact_rtp, ExactRtp, Paytable};
use fairaudit::scheme::crash::CrashVariant;
use fairaudit::scheme::stake::StakeGame;
use fairaudit::stats::battery::Battery;
use fairaudit::stats::crash::CrashGame;
use fairaudit::sweep::crash::{play_range, ChainLink, PlayedChain};
use fairaudit::sweep::{self, SweepControl, DEFAULT_CHUNK};
use fairaudit::tally::file::{TallyFile, TALLY_FILE};
use fairaudit::tally::stake_file::STAKE_TALLY_FILE;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

#[derive(Debug, Args)]
pub struct CertifyArgs {
    /// A complete sweep's (or merge's) output folder; repeat for several.
    #[arg(long = "sweep", value_name = "DIR")]
    sweeps: Vec<PathBuf>,
    /// An audit's output folder (`fairaudit audit --out DIR`); the bet history is read
    /// again from the path its run.json records. Repeat for several.
    #[arg(long = "audit", value_name = "DIR")]
    audits: Vec<PathBuf>,
    /// The operator's Keno paytable (default: the ILLUSTRATIVE example, said wherever a
    /// Keno figure or claim appears).
    #[arg(long, value_name = "FILE")]
    paytable: Option<PathBuf>,
    /// The operator's published claims (default: the built-in claims of SPEC.md).
    #[arg(long, value_name = "FILE")]
    claims: Option<PathBuf>,
    /// The operator's name, as the certificate states it.
    #[arg(long, value_name = "NAME", required_unless_present = "check")]
    operator: Option<String>,
    /// Output folder: the certificate and its dossier (see docs/certify.md).
    #[arg(long, value_name = "DIR", required_unless_present = "check")]
    out: Option<PathBuf>,
    /// Replace an earlier certificate in --out.
    #[arg(long)]
    force: bool,
    /// Level of the statistical battery (family-wise, Holm-adjusted).
    #[arg(long, value_name = "A", default_value_t = 0.01, value_parser = parse_alpha)]
    alpha: f64,
    /// Paper size of the print layout.
    #[arg(long, value_enum, default_value = "a4")]
    paper: PaperArg,
    /// The operator's reference vectors (reference-rounds.csv, rejection-rounds.csv),
    /// from which the worked rounds are taken; copied into the dossier.
    #[arg(long, value_name = "DIR", default_value = "../shared/vectors")]
    vectors: PathBuf,
    /// Do not render certificate.pdf (even where Chromium exists).
    #[arg(long)]
    no_pdf: bool,
    /// The auditor, as the certificate names them on its first page and signature block.
    #[arg(long, value_name = "NAME")]
    auditor: Option<String>,
    /// The identity an allowed-signers file lists for the auditor's key (no spaces, e.g.
    /// an e-mail address); default: --auditor, when it has no spaces.
    #[arg(long, value_name = "ID", requires = "auditor")]
    auditor_id: Option<String>,
    /// Sign manifest.json with this OpenSSH private key (manifest.json.sig, SSHSIG,
    /// namespace fairaudit-certificate); a key with a passphrase: use --signer-key.
    #[arg(long, value_name = "KEY", requires = "auditor", conflicts_with = "signer_key")]
    sign: Option<PathBuf>,
    /// The public key that will sign manifest.json with `ssh-keygen -Y sign` afterwards
    /// (for a key fairaudit should not read); the certificate names it.
    #[arg(long, value_name = "PUBKEY", requires = "auditor")]
    signer_key: Option<PathBuf>,
    /// Leave the bet histories out of the dossier: they are pinned by hash at their
    /// absolute path, and the dossier checks only where they are.
    #[arg(long)]
    no_copy_histories: bool,
    /// Check the certificate in DIR: exactly its files, every hash, every verdict and
    /// figure recomputed, the document re-rendered, the signature.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sweeps", "audits", "paytable", "claims", "operator", "out", "force", "paper", "no_pdf", "auditor", "sign", "signer_key", "no_copy_histories"])]
    check: Option<PathBuf>,
    /// With --check: the SHA-256 of manifest.json the auditor published; another manifest
    /// is a mismatch.
    #[arg(long, value_name = "SHA256", requires = "check")]
    expect_manifest: Option<String>,
    /// With --check: an OpenSSH allowed-signers file; the signature must verify with a key
    /// it lists for the certificate's auditor.
    #[arg(long, value_name = "FILE", requires = "check")]
    allowed_signers: Option<PathBuf>,
    /// Sweeps of at most this many rounds are re-swept in full by --check (and the
    /// certificate says which are not).
    #[arg(long, value_name = "N", default_value_t = 100_000_000)]
    resweep_limit: u64,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PaperArg {
    A4,
    Letter,
}

/// Where Chromium is looked for, in order, unless `FAIRAUDIT_CHROMIUM` names it.
const CHROMIUM_NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// How long Chromium may take to print the certificate.
const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(180);

/// Findings listed on the certificate's page, per bet history (all are in its pinned
/// findings.csv).
const FINDINGS_LISTED: usize = 50;

/// The largest signature file `--check` reads.
const SIGNATURE_LIMIT: u64 = 64 << 10;

pub fn run(args: CertifyArgs) -> Result<Verdict> {
    match args.check.clone() {
        Some(dir) => check(&dir, &args),
        None => certify(args),
    }
}

/// A sweep read back from the dossier and concluded.
struct LoadedSweep {
    tallies: TallyFile,
    results: RunResults,
    command_line: Vec<String>,
    /// The sweep's files in the dossier that its tallies, run.json and own options do not
    /// give again, byte for byte.
    differing: Vec<Mismatch>,
    /// Its files that could not be made again, and why (a certificate written before
    /// certify copied a sweep's own paytable and claims files).
    unchecked: Option<String>,
}

/// A bet history audited again from the dossier.
struct LoadedAudit {
    command_line: Vec<String>,
    audit: fairaudit::audit::Audit,
    battery: Battery,
    /// The first findings, as the certificate lists them.
    findings: Vec<fairaudit::audit::Finding>,
    /// Its findings.csv, when auditing the history again does not give it.
    differing: Vec<Mismatch>,
}

/// A bet history of a crash game audited again from the dossier.
struct LoadedCrashAudit {
    command_line: Vec<String>,
    variant: CrashVariant,
    audit: fairaudit::audit::crash::CrashAudit,
    battery: Battery<CrashGame>,
    /// The first findings, as the certificate lists them.
    findings: Vec<fairaudit::audit::Finding>,
    /// The audit's files in the dossier that auditing the history again does not give.
    differing: Vec<Mismatch>,
}

/// A bet history of the HMAC-SHA256 family audited again from the dossier.
struct LoadedStakeAudit {
    command_line: Vec<String>,
    audit: fairaudit::audit::stake::StakeAudit,
    battery: Battery<StakeGame>,
    /// The first findings, as the certificate lists them.
    findings: Vec<fairaudit::audit::Finding>,
    /// The audit's files in the dossier that auditing the history again does not give.
    differing: Vec<Mismatch>,
}

/// A crash chain played again from the command its sweep recorded.
struct LoadedChain {
    command_line: Vec<String>,
    plan: CrashPlan,
    variant: CrashVariant,
    played: PlayedChain,
    link: ChainLink,
    /// At the certificate's level.
    battery: Battery<CrashGame>,
    /// The sweep's files in the dossier that the chain does not give again, byte for byte.
    differing: Vec<Mismatch>,
}

/// A sweep of a game of the HMAC-SHA256 family swept again from the command it recorded.
struct LoadedStakeSweep {
    command_line: Vec<String>,
    plan: StakePlan,
    game: StakeGame,
    rounds: u64,
    /// At the certificate's level.
    battery: Battery<StakeGame>,
    /// The sweep's files in the dossier that sweeping it again does not give byte for byte.
    differing: Vec<Mismatch>,
}

/// Everything a certificate concludes, computed from its dossier (the same way for
/// `certify`, from the copies it has just made, and for `--check`).
struct Loaded {
    sweeps: Vec<LoadedSweep>,
    audits: Vec<LoadedAudit>,
    chains: Vec<LoadedChain>,
    crash_audits: Vec<LoadedCrashAudit>,
    stake_sweeps: Vec<LoadedStakeSweep>,
    stake_audits: Vec<LoadedStakeAudit>,
    paytable: Paytable,
    claims: Vec<ClaimVerdict>,
    exact: Vec<ExactRtp>,
    worked: Vec<WorkedRound>,
    not_examined: Vec<GameId>,
}

impl Loaded {
    fn conclusions(&self) -> Conclusions<'_> {
        Conclusions {
            sweeps: self.sweeps.iter().map(|s| &s.results).collect(),
            audits: self.audits.iter().map(|a| AuditPart { audit: &a.audit, battery: &a.battery }).collect(),
            chains: self.chains.iter().map(|c| ChainPart { link: &c.link, battery: &c.battery }).collect(),
            crash_audits: self
                .crash_audits
                .iter()
                .map(|a| CrashAuditPart { audit: &a.audit, battery: &a.battery })
                .collect(),
            stake_sweeps: self.stake_sweeps.iter().map(|s| StakeSweepPart { battery: &s.battery }).collect(),
            stake_audits: self
                .stake_audits
                .iter()
                .map(|a| StakeAuditPart { audit: &a.audit, battery: &a.battery })
                .collect(),
            claims: &self.claims,
            worked: &self.worked,
            illustrative_keno: self.paytable.is_illustrative(),
        }
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// `run.json`'s kind and command line, when it has them.
fn run_json(dir: &Path) -> Option<(String, Vec<String>)> {
    let bytes = std::fs::read(dir.join("run.json")).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or_default().to_owned();
    let command = value
        .get("command_line")
        .and_then(|c| c.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    Some((kind, command))
}

/// The directory the run whose output `dir` holds ran in, as its run.json records it
/// (none for folders written before it was recorded).
fn ran_in(dir: &Path) -> Option<PathBuf> {
    let bytes = std::fs::read(dir.join("run.json")).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    value.get("working_dir")?.as_str().map(PathBuf::from)
}

/// Where a file that a run's command `named` is now. A relative name is read from the
/// directory the run ran in (`ran_in`) when the file is there: two sweeps run in
/// different directories can each name their own `paytable.csv`. Otherwise it is read
/// from here, as for folders written before the directory was recorded, or moved since.
/// Either way the copy is what the certificate pins, and a file other than the one the
/// run read shows as a mismatch of the files made from it.
fn named_file(ran_in: Option<&Path>, named: &Path) -> PathBuf {
    match ran_in {
        Some(dir) if named.is_relative() && dir.join(named).is_file() => dir.join(named),
        _ => named.to_path_buf(),
    }
}

/// The end of the message for a file a run's command named that is not found.
fn not_found_hint(ran_in: Option<&Path>, kind: &str) -> String {
    match ran_in {
        Some(dir) => format!("neither in {}, where the {kind} ran, nor here", dir.display()),
        None => format!("run certify from the directory the {kind} ran in"),
    }
}

/// A command line a run.json records, parsed as fairaudit parses its arguments; `name`
/// names the folder.
fn recorded_command(command_line: &[String], name: &str) -> Result<Cli> {
    Cli::try_parse_from(std::iter::once("fairaudit".to_owned()).chain(command_line.iter().cloned())).map_err(
        |e| {
            anyhow!(
                "{name}: its run.json records a command fairaudit cannot parse: {}",
                e.render().to_string().lines().next().unwrap_or_default()
            )
        },
    )
}

/// The audit command recorded in `dir`'s run.json, parsed; `name` names the folder.
fn audit_command(dir: &Path, name: &str) -> Result<(Vec<String>, AuditArgs)> {
    let Some((kind, command_line)) = run_json(dir) else {
        bail!("{name}: not an audit's output folder (no readable run.json)");
    };
    if kind != "audit" {
        bail!(
            "{name}: holds the output of a fairaudit {}, not of an audit",
            if kind.is_empty() { "run" } else { &kind }
        );
    }
    let parsed = recorded_command(&command_line, name)?;
    let Command::Audit(args) = parsed.command else {
        bail!("{name}: its run.json records a command that is not an audit");
    };
    if let Some(scheme) = args.scheme.filter(|&scheme| scheme != fairaudit::scheme::SchemeId::Sha3) {
        if scheme.crash_variant().is_none() && scheme != fairaudit::scheme::SchemeId::Stake {
            bail!("{name}: an audit of scheme {scheme} cannot be certified yet (docs/schemes.md)");
        }
    }
    Ok((command_line, args))
}

/// A sweep of a scheme other than the default, as its run.json records it.
enum SchemeSweep {
    /// Of a crash chain.
    Chain(ChainCommand),
    /// Of a game of the HMAC-SHA256 family: a sweep, or a complete merge.
    Stake { command_line: Vec<String>, source: StakeSource },
}

/// What a sweep of the HMAC-SHA256 family is swept again from.
enum StakeSource {
    /// A sweep: its recorded command.
    Sweep(Box<super::sweep::SweepArgs>),
    /// A complete merge (of shards, or of adjacent sweeps): what its run.json records it
    /// merged (its plan; the commitments are computed again) and the `--alpha` of its
    /// recorded command. A complete merge writes the files of one sweep of the whole
    /// range, so it is checked against that sweep.
    Merge { plan: StakePlan, alpha: f64 },
}

/// A sweep of a crash chain as its run.json records it.
struct ChainCommand {
    command_line: Vec<String>,
    args: super::sweep::SweepArgs,
    scheme: fairaudit::scheme::SchemeId,
    variant: CrashVariant,
}

/// The sweep of a scheme other than the default recorded in `dir`'s run.json, when it
/// holds one; an error when it holds a sweep's command fairaudit cannot parse, or a sweep
/// of a scheme that cannot be certified. `name` names the folder.
fn scheme_sweep(dir: &Path, name: &str) -> Result<Option<SchemeSweep>> {
    let Some((kind, command_line)) = run_json(dir) else { return Ok(None) };
    let recorded: serde_json::Value = std::fs::read(dir.join("run.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    if kind == "merge" && recorded["plan"]["scheme"] == "stake" {
        let Command::Merge(merge) = recorded_command(&command_line, name)?.command else {
            bail!("{name}: its run.json records a merge's output but a command that is not a merge");
        };
        let run: StakeRun = serde_json::from_value(recorded)
            .with_context(|| format!("{name}/run.json: not the run.json of a merge of scheme stake"))?;
        if run.partial.is_some() || !run.complete {
            bail!("{name}: a partial merge of shards (--allow-partial), which speaks only for the shards it holds, cannot be certified; sweep the missing shards and merge them all");
        }
        super::merge_stake::refuse_unsupported(&merge)
            .with_context(|| format!("{name}: its run.json records a merge command that merge refuses"))?;
        let source = StakeSource::Merge { plan: run.plan, alpha: merge.report.alpha };
        return Ok(Some(SchemeSweep::Stake { command_line, source }));
    }
    if kind != "sweep" {
        return Ok(None);
    }
    let parsed = recorded_command(&command_line, name)?;
    let Command::Sweep(args) = parsed.command else { return Ok(None) };
    let Some(scheme) = args.scheme.filter(|&scheme| scheme != fairaudit::scheme::SchemeId::Sha3) else {
        return Ok(None);
    };
    if scheme == fairaudit::scheme::SchemeId::Stake {
        if args.cluster.shards.is_some() {
            bail!("{name}: one shard of a sweep of scheme stake, which speaks for its slice of the nonces only; certify the merge of all its shards, or a sweep of the whole range");
        }
        if recorded["complete"] == false {
            bail!("{name}: the sweep is not complete (it was interrupted), and a partial sweep cannot be certified; finish it first (the same command continues it)");
        }
        return Ok(Some(SchemeSweep::Stake { command_line, source: StakeSource::Sweep(Box::new(args)) }));
    }
    let Some(variant) = scheme.crash_variant() else {
        bail!("{name}: a sweep of scheme {scheme} cannot be certified yet (docs/schemes.md)");
    };
    Ok(Some(SchemeSweep::Chain(ChainCommand { command_line, args, scheme, variant })))
}

/// Where a certificate's inputs are: the dossier's records (paths relative to `root`).
struct Records<'a> {
    sweeps: &'a [SweepRecord],
    audits: &'a [AuditRecord],
    chains: &'a [ChainRecord],
    crash_audits: &'a [AuditRecord],
    stake_sweeps: &'a [SweepRecord],
    stake_audits: &'a [AuditRecord],
    paytable: Option<&'a str>,
    claims: Option<&'a str>,
    vectors: Option<&'a str>,
}

/// A file of the dossier: `rel` under `root`, or an absolute path (a history left out).
fn at(root: &Path, rel: &str) -> PathBuf {
    if Path::new(rel).is_absolute() {
        PathBuf::from(rel)
    } else {
        root.join(rel)
    }
}

/// A paytable read from the dossier, named by its path there.
fn paytable_at(root: &Path, rel: &str) -> Result<Paytable> {
    Paytable::parse(input::open(&at(root, rel))?, PaytableOrigin::File(rel.to_owned()))
        .with_context(|| rel.to_owned())
}

fn load_sweep(
    root: &Path,
    record: &SweepRecord,
    paytable: &Paytable,
    claims: &[fairaudit::rtp::claims::Claim],
    alpha: f64,
) -> Result<LoadedSweep> {
    let rel = record.dir.as_str();
    let dir = at(root, rel);
    let tallies = read_tally(&dir.join(TALLY_FILE)).with_context(|| format!("{rel}/{TALLY_FILE}"))?;
    if !tallies.complete {
        let plan = &tallies.plan;
        let planned = plan.rounds_per_sequence() * plan.games.len() as u64 * plan.seed_pairs.len() as u64;
        bail!(
            "{rel}: the sweep is not complete ({} of {planned} rounds tallied: it was interrupted), and a partial sweep cannot be certified; finish it with 'fairaudit sweep --resume' and the same arguments first",
            tallies.rounds()
        );
    }
    let Ok(bytes) = std::fs::read(dir.join("run.json")) else {
        bail!("{rel}: no readable run.json: a sweep's folder is certified as sweep wrote it, with the run.json that records the command, level, paytable and claims its files were made with");
    };
    let run: RunInfo = serde_json::from_slice(&bytes)
        .with_context(|| format!("{rel}/run.json: not the run.json of a sweep or merge"))?;
    let (differing, unchecked) = sweep_files_mismatch(root, record, &tallies, &run)?;
    let results = RunResults::compute(&tallies, paytable, claims, alpha);
    Ok(LoadedSweep { tallies, results, command_line: run.command_line, differing, unchecked })
}

/// The command a default-scheme sweep's or merge's run.json records, parsed.
enum RecordedRun {
    Sweep(Box<super::sweep::SweepArgs>),
    Merge(Box<super::merge::MergeArgs>),
}

impl RecordedRun {
    /// The command `command_line` records; `name` names its folder.
    fn parse(command_line: &[String], name: &str) -> Result<RecordedRun> {
        match recorded_command(command_line, name)?.command {
            Command::Sweep(args) => Ok(RecordedRun::Sweep(Box::new(args))),
            Command::Merge(args) => Ok(RecordedRun::Merge(Box::new(args))),
            _ => bail!("{name}: its run.json records a command that is neither a sweep nor a merge"),
        }
    }

    /// Its level, paytable and claims files.
    fn report(&self) -> &ReportArgs {
        match self {
            RecordedRun::Sweep(args) => &args.report,
            RecordedRun::Merge(args) => &args.report,
        }
    }

    /// `sweep` or `merge`, as run.json's kind names it.
    fn kind(&self) -> &'static str {
        match self {
            RecordedRun::Sweep(_) => "sweep",
            RecordedRun::Merge(_) => "merge",
        }
    }
}

/// A sweep's (or merge's) own files in the dossier, made again as `sweep` wrote them: from
/// its tallies, what its run.json records of the run (`run`: who, when, on what), and its own
/// options (its level, and its paytable and claims files, from the dossier's copies). A
/// rewritten test, figure, table or page is named, not only pinned by hash; so is a
/// run.json whose plan, or whose sweep command's plan, is not the tallies'. Also returns
/// what could not be made again, and why: a certificate written before certify copied a
/// sweep's own paytable and claims files holds none, and its rtp.csv and report.html are
/// then pinned by hash only.
fn sweep_files_mismatch(
    root: &Path,
    record: &SweepRecord,
    tallies: &TallyFile,
    run: &RunInfo,
) -> Result<(Vec<Mismatch>, Option<String>)> {
    let rel = record.dir.as_str();
    let dir = at(root, rel);
    let recorded = RecordedRun::parse(&run.command_line, rel)?;
    let report = recorded.report();
    if (record.paytable.is_some() && report.paytable.is_none())
        || (record.claims.is_some() && report.claims.is_none())
    {
        bail!("{rel}: its command and the dossier disagree on its paytable or claims file");
    }
    // Its command names a file the dossier does not hold: a certificate written before
    // certify copied them. What depends on them is not made again.
    let unheld = (report.paytable.is_some() && record.paytable.is_none())
        || (report.claims.is_some() && record.claims.is_none());
    let paytable = match (&record.paytable, &report.paytable) {
        (Some(copy), Some(named)) => named_paytable(root, copy, named)?,
        _ => Paytable::example(),
    };
    let claims = load_claims(record.claims.as_deref().map(|copy| at(root, copy)).as_deref())?;
    let results = RunResults::compute(tallies, &paytable, &claims, report.alpha);
    let made = RunReport { tallies, run, results: Some(&results) }.files();
    let depends_on_unheld = |name: &str| unheld && (name == "rtp.csv" || name == "report.html");
    let given: Vec<(&str, Vec<u8>)> = made
        .iter()
        .filter(|(name, _)| name != "run.json" && !depends_on_unheld(name))
        .map(|(name, bytes)| (name.as_str(), bytes.clone()))
        .collect();
    let mut files: Vec<&str> = made.iter().map(|(name, _)| name.as_str()).collect();
    files.extend(record.paytable.as_ref().map(|_| "paytable"));
    files.extend(record.claims.as_ref().map(|_| "claims"));
    let expected = Expected { files: &files, optional: &[], writer: "a sweep", origin: "sweep" };
    let mut differing = compare_folder(&dir, rel, &expected, &given, &[])?;
    if record.paytable.is_some() || record.claims.is_some() {
        // They were read from the paths its run.json records: a file changed there since
        // the sweep ran gives other returns, not only a rewritten folder.
        let depends = |m: &String| m.contains("/rtp.csv: ") || m.contains("/report.html: ");
        for mismatch in differing.iter_mut().filter(|m| depends(m)) {
            mismatch.push_str(" (or the paytable or claims file its command names has changed since it ran)");
        }
    }
    // What the command itself gives: a sweep's arguments name its plan (and whether it is
    // a shard), so a command rewritten in run.json (report.html shows it) is named.
    let commanded = match &recorded {
        RecordedRun::Sweep(args) => {
            let mut plan =
                super::sweep::plan_of(args).with_context(|| format!("{rel}: its recorded command"))?;
            match (args.cluster.shards, tallies.shard) {
                (None, None) => plan == tallies.plan,
                // A shard's tallies hold its slice of the range the command names.
                (Some(count), Some(shard)) => {
                    let cut = count == shard.count && plan.nonces == [shard.nonces];
                    plan.nonces.clone_from(&tallies.plan.nonces);
                    cut && plan == tallies.plan
                }
                _ => false,
            }
        }
        RecordedRun::Merge(_) => true,
    };
    let planned = RunInfo::for_tallies("sweep", tallies, Vec::new());
    let same_run = run.format == fairaudit::report::run_info::RUN_FORMAT
        && run.kind == recorded.kind()
        && commanded
        && run.games == planned.games
        && run.nonces == planned.nonces
        && run.seed_source == planned.seed_source
        && run.seed_pairs == planned.seed_pairs
        && run.complete == planned.complete
        && run.partial == planned.partial
        && run.shard.as_ref().map(|s| s.shard) == tallies.shard;
    if !same_run {
        differing.push(format!(
            "{rel}/run.json: its format, kind, command, games, nonces, seed pairs, shard or completeness are not those of its {TALLY_FILE}"
        ));
    }
    let unchecked = unheld.then(|| {
        format!("{rel}: rtp.csv and report.html pinned by hash only (its command names a paytable or claims file that this certificate, written before certify copied them, does not hold)")
    });
    Ok((differing, unchecked))
}

/// The audit a record names, run again from the dossier's copies of its files.
fn load_audit(root: &Path, record: &AuditRecord, alpha: f64) -> Result<LoadedAudit> {
    let (command_line, args) = audit_command(&at(root, &record.dir), &record.dir)?;
    let (_, paytable_file, columns_file) = args.files();
    if paytable_file.is_some() != record.paytable.is_some()
        || columns_file.is_some() != record.columns.is_some()
    {
        bail!("{}: its command and the dossier disagree on its paytable or --columns file", record.dir);
    }
    let paytable = record.paytable.as_deref().map(|rel| paytable_at(root, rel)).transpose()?;
    let columns = record.columns.as_deref().map(|rel| at(root, rel));
    let (game, options) =
        args.replay_with(paytable, columns.as_deref()).with_context(|| record.dir.clone())?;
    let history = at(root, &record.outcomes);
    let mut findings = AuditFindings::new()?;
    let revealed = fairaudit::audit::revealed_seeds(game, input::open(&history)?, &options.layout)
        .with_context(|| record.outcomes.clone())?;
    let audit = audit_history(game, input::open(&history)?, &revealed, &options, &mut findings)
        .with_context(|| record.outcomes.clone())?;
    // The audit's own files, made again at its own level from the audit, the paytable
    // named as its command named it, and who made it when as its run.json records: a
    // rewritten verdict, test, return or page is named, not only pinned by hash.
    let dir = at(root, &record.dir);
    let made_by = recorded_made_by(&dir)?;
    let report_paytable = match (&record.paytable, &paytable_file) {
        (Some(rel), Some(named)) => named_paytable(root, rel, named)?,
        _ => Paytable::example(),
    };
    let own_battery = audit.battery(args.alpha);
    let given = super::audit::audit_files(
        &audit,
        &own_battery,
        &findings.shown.kept,
        &args.outcomes.display().to_string(),
        &report_paytable,
        &made_by,
    );
    let mut files = DEFAULT_AUDIT_FILES.to_vec();
    if record.paytable.is_some() {
        files.push("paytable");
    }
    if record.columns.is_some() {
        files.push("columns");
    }
    let expected = Expected { files: &files, optional: &[], writer: "an audit", origin: "history" };
    let mut differing = compare_folder(&dir, &record.dir, &expected, &given, &[])?;
    differing.extend(findings.findings_csv_mismatch(&dir, &record.dir)?);
    differing.extend(findings.gaps_csv_mismatch(&dir, &record.dir)?);
    let battery = audit.battery(alpha);
    Ok(LoadedAudit { command_line, audit, battery, findings: findings.first.kept, differing })
}

/// Who made the audit folder `dir` and when, as its run.json records it (its report.html
/// says so, and is made again from the same).
fn recorded_made_by(dir: &Path) -> Result<String> {
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("run.json"))?).unwrap_or_default();
    let text = |field: &str| run[field].as_str().unwrap_or_default().to_owned();
    Ok(fairaudit::report::audit_html::made_by(
        &text("fairaudit_version"),
        &text("fairaudit_revision"),
        &text("finished_at"),
    ))
}

/// The dossier's copy `rel` of an audit's paytable, named as the audit's command named it
/// (`named`: its report says which paytable it judged by).
fn named_paytable(root: &Path, rel: &str, named: &Path) -> Result<Paytable> {
    Paytable::parse(input::open(&at(root, rel))?, PaytableOrigin::File(named.display().to_string()))
        .with_context(|| rel.to_owned())
}

/// The files an audit of the default scheme writes, beside the copies of its history
/// (and of its paytable and `--columns` file, where it names them).
const DEFAULT_AUDIT_FILES: [&str; 8] = [
    "findings.csv",
    "nonce_gaps.csv",
    "tests.csv",
    "summary.json",
    "rtp.csv",
    "report.html",
    "run.json",
    "history",
];

/// A crash game's bet history a record names, audited again from the dossier's copies.
fn load_crash_audit(root: &Path, record: &AuditRecord, alpha: f64) -> Result<LoadedCrashAudit> {
    let (command_line, args) = audit_command(&at(root, &record.dir), &record.dir)?;
    let Some((scheme, variant)) = args.scheme.and_then(|s| Some((s, s.crash_variant()?))) else {
        bail!("{}: its run.json records no audit of a crash game", record.dir);
    };
    let (layout, history) = history_reader(root, &args, record, &fairaudit::audit::crash::FIELDS, false)?;
    let mut findings = AuditFindings::new()?;
    let audit = fairaudit::audit::crash::audit_crash_history(
        history,
        &layout,
        variant,
        scheme.name(),
        args.payout_tolerance,
        |finding| findings.take(finding),
    )
    .with_context(|| record.outcomes.clone())?;
    let own_battery = fairaudit::stats::crash::battery(variant, &audit.tally, args.alpha);
    let rows = RowChecks { findings: &audit.findings, any: audit.has_row_checks() };
    let differing = findings.compare(root, record, &own_battery, rows, Vec::new())?;
    let battery = fairaudit::stats::crash::battery(variant, &audit.tally, alpha);
    Ok(LoadedCrashAudit { command_line, variant, audit, battery, findings: findings.first.kept, differing })
}

/// A bet history of the HMAC-SHA256 family a record names, audited again from the
/// dossier's copies.
fn load_stake_audit(root: &Path, record: &AuditRecord, alpha: f64) -> Result<LoadedStakeAudit> {
    let (command_line, args) = audit_command(&at(root, &record.dir), &record.dir)?;
    if args.scheme != Some(fairaudit::scheme::SchemeId::Stake) {
        bail!("{}: its run.json records no audit of scheme stake", record.dir);
    }
    // The Keno paytable: the dossier's copy, named as the audit's command named it (its
    // report says which paytable it judged by).
    let (_, paytable_file, _) = args.files();
    if paytable_file.is_some() != record.paytable.is_some() {
        bail!("{}: its command and the dossier disagree on its paytable or --columns file", record.dir);
    }
    let paytable = match (&record.paytable, paytable_file) {
        (Some(rel), Some(named)) => Some(named_paytable(root, rel, &named)?),
        _ => None,
    };
    let (layout, history) = history_reader(root, &args, record, &fairaudit::audit::stake::FIELDS, true)?;
    let revealed = fairaudit::audit::stake::stake_revealed_seeds(history, &layout)
        .with_context(|| record.outcomes.clone())?;
    let history = input::open(&at(root, &record.outcomes))?;
    let mut findings = AuditFindings::new()?;
    let audit = fairaudit::audit::stake::audit_stake_history(
        history,
        &revealed,
        &layout,
        args.payout_tolerance,
        paytable.as_ref(),
        |finding| findings.take(finding),
    )
    .with_context(|| record.outcomes.clone())?;
    if audit.rows == 0 {
        bail!("{}: the history holds no rows: there is nothing to certify", record.outcomes);
    }
    let own_battery = fairaudit::stats::stake::log_battery(&audit.tallies, args.alpha);
    // rtp.csv and report.html, made again from the audit and what its run.json records
    // of who made it when (the history's name as its command gave it).
    let made_by = recorded_made_by(&at(root, &record.dir))?;
    let source = args.outcomes.display().to_string();
    let more =
        super::audit_stake::stake_audit_files(&audit, &own_battery, &findings.shown.kept, &source, &made_by);
    let rows = RowChecks { findings: &audit.findings, any: audit.has_row_checks() };
    let differing = findings.compare(root, record, &own_battery, rows, more)?;
    let battery = fairaudit::stats::stake::log_battery(&audit.tallies, alpha);
    Ok(LoadedStakeAudit { command_line, audit, battery, findings: findings.first.kept, differing })
}

/// The files of an audit of a scheme other than the default (its `conclude_scheme_audit`),
/// beside the copies of its history and `--columns` file (and of its paytable, where it
/// names one).
const SCHEME_AUDIT_FILES: [&str; 6] =
    ["findings.csv", "tests.csv", "summary.json", "run.json", "history", "columns"];

/// The findings of a history audited again: the first ones, as the certificate lists
/// them, and findings.csv as the audit writes it, hashed as the findings come rather than
/// held (a history can have millions).
struct AuditFindings {
    first: FirstFindings,
    /// The first findings as an audit's report.html shows them.
    shown: FirstFindings,
    csv: csv::Writer<HashingWriter>,
    /// nonce_gaps.csv as an audit of the default scheme writes it (other schemes' audits
    /// report no gaps and write no such file).
    gaps: csv::Writer<HashingWriter>,
    error: Option<csv::Error>,
}

/// A writer that keeps only the SHA-256 of what it is given.
#[derive(Default)]
struct HashingWriter(sha2::Sha256);

impl std::io::Write for HashingWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        sha2::Digest::update(&mut self.0, bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl fairaudit::audit::AuditObserver for AuditFindings {
    fn finding(&mut self, finding: &fairaudit::audit::Finding) {
        self.take(finding);
    }

    fn gap(&mut self, gap: &fairaudit::audit::Gap) {
        if let Err(error) = self.gaps.write_record(super::audit::gaps_row(gap)) {
            self.error.get_or_insert(error);
        }
    }
}

impl AuditFindings {
    fn new() -> Result<Self> {
        let mut csv = fairaudit::report::csv_writer(HashingWriter::default());
        csv.write_record(super::audit::FINDINGS_HEADER)?;
        let mut gaps = fairaudit::report::csv_writer(HashingWriter::default());
        gaps.write_record(super::audit::GAPS_HEADER)?;
        Ok(Self {
            first: FirstFindings { limit: FINDINGS_LISTED, kept: Vec::new() },
            shown: FirstFindings { limit: fairaudit::report::audit_html::FINDINGS_SHOWN, kept: Vec::new() },
            csv,
            gaps,
            error: None,
        })
    }

    fn take(&mut self, finding: &fairaudit::audit::Finding) {
        fairaudit::audit::AuditObserver::finding(&mut self.first, finding);
        fairaudit::audit::AuditObserver::finding(&mut self.shown, finding);
        if let Err(error) = self.csv.write_record(super::audit::findings_row(finding)) {
            self.error.get_or_insert(error);
        }
    }

    /// Each file of the audit's dossier copy that auditing its history again does not
    /// give: findings.csv, tests.csv and summary.json at the audit's own level
    /// (`battery`), the scheme's `more` files, and each file no such audit writes (those
    /// of every scheme and the names in `more`).
    fn compare<G: serde::Serialize + Copy + Ord + std::fmt::Display>(
        &mut self,
        root: &Path,
        record: &AuditRecord,
        battery: &Battery<G>,
        rows: RowChecks<'_>,
        more: Vec<(&str, Vec<u8>)>,
    ) -> Result<Vec<Mismatch>> {
        let mut given = vec![
            ("tests.csv", tests_table(battery).to_csv()),
            (
                "summary.json",
                fairaudit::report::results::summary_json_with(battery, &[], None, None, Some(rows)),
            ),
        ];
        let mut files = SCHEME_AUDIT_FILES.to_vec();
        if record.paytable.is_some() {
            // The copy of the Keno paytable of an audit of scheme stake.
            files.push("paytable");
        }
        files.extend(more.iter().map(|(name, _)| *name));
        given.extend(more);
        let expected =
            Expected { files: &files, optional: &OPTIONAL_FILES, writer: "an audit", origin: "history" };
        let dir = at(root, &record.dir);
        let mut differing = compare_folder(&dir, &record.dir, &expected, &given, &[])?;
        differing.extend(self.findings_csv_mismatch(&dir, &record.dir)?);
        Ok(differing)
    }

    /// The audit folder `dir`'s findings.csv (named `rel`), when it is not every finding
    /// the history gave again, in the audit's own form.
    fn findings_csv_mismatch(&mut self, dir: &Path, rel: &str) -> Result<Option<Mismatch>> {
        if let Some(error) = self.error.take() {
            return Err(error).context("cannot hash findings.csv");
        }
        let csv = std::mem::replace(&mut self.csv, fairaudit::report::csv_writer(HashingWriter::default()));
        csv_mismatch(csv, dir, rel, "findings.csv")
    }

    /// The same for nonce_gaps.csv (an audit of the default scheme): every gap the history
    /// gave again, in the audit's own form.
    fn gaps_csv_mismatch(&mut self, dir: &Path, rel: &str) -> Result<Option<Mismatch>> {
        if let Some(error) = self.error.take() {
            return Err(error).context("cannot hash nonce_gaps.csv");
        }
        let gaps = std::mem::replace(&mut self.gaps, fairaudit::report::csv_writer(HashingWriter::default()));
        csv_mismatch(gaps, dir, rel, "nonce_gaps.csv")
    }
}

/// The file `name` of the audit folder `dir` (named `rel`), when its SHA-256 is not that
/// of what `csv` was given.
fn csv_mismatch(
    mut csv: csv::Writer<HashingWriter>,
    dir: &Path,
    rel: &str,
    name: &str,
) -> Result<Option<Mismatch>> {
    csv.flush()?;
    let digest = hex_digest(csv.into_inner().map_err(|e| e.into_error())?.0);
    let pinned = hash_file(&dir.join(name), String::new()).with_context(|| format!("{rel}/{name}"))?;
    Ok((pinned.sha256 != digest)
        .then(|| format!("{rel}/{name}: differs from what the history its run.json names gives")))
}

/// A SHA-256 as lowercase hex.
fn hex_digest(hasher: sha2::Sha256) -> String {
    sha2::Digest::finalize(hasher).iter().map(|b| format!("{b:02x}")).collect()
}

/// The layout of the history of an audit of a scheme other than the default (`fields`,
/// mapped by the dossier's copy of its `--columns` file when its command names one), and
/// the history's copy opened; an error when the command and the dossier disagree, or when
/// either names a paytable and the scheme `takes_paytable` not (its caller reads it).
fn history_reader(
    root: &Path,
    args: &AuditArgs,
    record: &AuditRecord,
    fields: &[&str],
    takes_paytable: bool,
) -> Result<(fairaudit::columns::CsvLayout, input::Guarded<Box<dyn Read>>)> {
    let (_, paytable_file, columns_file) = args.files();
    if (!takes_paytable && (paytable_file.is_some() || record.paytable.is_some()))
        || columns_file.is_some() != record.columns.is_some()
    {
        bail!("{}: its command and the dossier disagree on its paytable or --columns file", record.dir);
    }
    let columns = record.columns.as_deref().map(|rel| at(root, rel));
    let layout = args.layout.layout_from(fields, columns.as_deref()).with_context(|| record.dir.clone())?;
    Ok((layout, input::open(&at(root, &record.outcomes))?))
}

/// The most links one certificate's crash chains walk in all, ranges and walks to their
/// published games together (minutes of hashing; each chain alone walks at most twice
/// [`fairaudit::sweep::crash::MAX_LINK_WALK`]): a manifest naming more, forged or not, is
/// refused rather than walked for hours.
const CHAIN_LINKS_CHECKED: u64 = 10 * fairaudit::sweep::crash::MAX_LINK_WALK;

/// The links playing the chain a record names walks: its range, then on to the published
/// game; from the recorded command alone, before anything is walked.
fn chain_links(root: &Path, record: &ChainRecord) -> Result<u64> {
    let Some(SchemeSweep::Chain(ChainCommand { args, scheme, variant, .. })) =
        scheme_sweep(&at(root, &record.dir), &record.dir)?
    else {
        bail!("{}: its run.json records no sweep of a crash chain", record.dir);
    };
    let plan = super::sweep_crash::chain_plan(&args, scheme, variant)
        .with_context(|| format!("{}: its recorded command", record.dir))?;
    let walk =
        variant.published_game(&plan.salt).map_or(0, |published| published.game.abs_diff(plan.games[0] - 1));
    Ok(walk.saturating_add(plan.games[1] - plan.games[0]))
}

/// The files of a sweep of a crash chain: what its dossier copy must hold, each compared
/// with what the chain gives again.
const CHAIN_FILES: [&str; 4] = ["tests.csv", "summary.json", "crash_cells.csv", "run.json"];

/// The crash chain a record names, played again on every core from the command its
/// sweep recorded, linked to its operator's published game, and tested at `alpha`; the
/// sweep's files in the dossier are compared with what the chain gives ([`chain_files`]).
fn load_chain(root: &Path, record: &ChainRecord, alpha: f64) -> Result<LoadedChain> {
    let dir = at(root, &record.dir);
    let Some(SchemeSweep::Chain(ChainCommand { command_line, args, scheme, variant })) =
        scheme_sweep(&dir, &record.dir)?
    else {
        bail!("{}: its run.json records no sweep of a crash chain", record.dir);
    };
    let plan = super::sweep_crash::chain_plan(&args, scheme, variant)
        .with_context(|| format!("{}: its recorded command", record.dir))?;
    if variant.published_game(&plan.salt).is_none() {
        bail!(
            "{}: its salt seeds no chain whose published game fairaudit holds (that of {scheme}'s seeding event is {}): nothing ties the chain to {scheme}'s commitment, and a certificate of it would vouch for nothing",
            record.dir,
            variant.salt()
        );
    }
    let range = plan.games[0]..plan.games[1];
    let (played, link) = play_range(variant, &plan.top_hash, &plan.salt, range, &STOP, &|_| {})
        .ok_or_else(|| anyhow::Error::new(input::Interrupted))?;
    let sweep_battery = fairaudit::stats::crash::battery(variant, &played.tally, args.report.alpha);
    let differing = chain_files(&dir, &record.dir, variant, &plan, &played, &link, &sweep_battery)?;
    let battery = fairaudit::stats::crash::battery(variant, &played.tally, alpha);
    Ok(LoadedChain { command_line, plan, variant, played, link, battery, differing })
}

/// Each file of a chain's dossier copy `dir` (named `rel`) that the chain does not give
/// again byte for byte (its tests at the sweep's own level, its summary and counts, and
/// run.json's plan, end and link), and each file there that no sweep of a chain writes.
fn chain_files(
    dir: &Path,
    rel: &str,
    variant: CrashVariant,
    plan: &CrashPlan,
    played: &PlayedChain,
    link: &ChainLink,
    sweep_battery: &Battery<CrashGame>,
) -> Result<Vec<Mismatch>> {
    let given = [
        ("tests.csv", tests_table(sweep_battery).to_csv()),
        ("summary.json", chain_summary_json(sweep_battery, link)),
        ("crash_cells.csv", cells_table(variant, &played.tally).to_csv()),
    ];
    let recorded = [
        ("plan", serde_json::to_value(plan)?),
        ("end_hash", serde_json::Value::from(played.end.as_str())),
        ("chain", serde_json::to_value(link)?),
    ];
    let expected =
        Expected { files: &CHAIN_FILES, optional: &[], writer: "a sweep of a crash chain", origin: "chain" };
    compare_folder(dir, rel, &expected, &given, &recorded)
}

/// The files that sweeps and audits of the HMAC-SHA256 family write since this version
/// and did not before: compared where they are there, so that folders and certificates
/// made earlier still check.
const OPTIONAL_FILES: [&str; 3] = [STAKE_TALLY_FILE, "rtp.csv", "report.html"];

/// The files of a sweep of the HMAC-SHA256 family: what its dossier copy must hold, each
/// compared with what sweeping it again gives.
const STAKE_FILES: [&str; 7] = [
    "tests.csv",
    "summary.json",
    "outcome_counts.csv",
    "rtp.csv",
    "run.json",
    STAKE_TALLY_FILE,
    "report.html",
];

/// The sweep of the HMAC-SHA256 family a record names, swept again on every core from
/// the command it recorded (its verdicts come from sweeping it, not from the tallies
/// its folder holds, which a forger could rewrite), and tested at `alpha`; the sweep's files in the dossier are compared
/// with what the sweep gives ([`compare_folder`]). `budget` is the rounds the sweeps of
/// the family may still take (the invoking command's `--resweep-limit` for them all): a
/// sweep beyond it is refused, counted before a seed pair is derived, not swept for hours.
fn load_stake_sweep(
    root: &Path,
    record: &SweepRecord,
    alpha: f64,
    budget: &mut u64,
) -> Result<LoadedStakeSweep> {
    let dir = at(root, &record.dir);
    let Some(SchemeSweep::Stake { command_line, source }) = scheme_sweep(&dir, &record.dir)? else {
        bail!("{}: its run.json records no sweep of scheme stake", record.dir);
    };
    // Counted before a seed pair is derived, so that a forged plan cannot make it sweep
    // for hours (or derive a billion seed pairs).
    let rounds = match &source {
        StakeSource::Sweep(args) => {
            (args.nonces.end - args.nonces.start).saturating_mul(super::sweep::seed_pair_count(args))
        }
        StakeSource::Merge { plan, .. } => {
            plan.nonces[1].saturating_sub(plan.nonces[0]).saturating_mul(plan.seed_pairs.len() as u64)
        }
    };
    if rounds > *budget {
        bail!(
            "{}: its {rounds} rounds are more than the {budget} left of --resweep-limit: certifying a sweep of scheme stake (or checking its certificate) sweeps it again in full; pass a larger --resweep-limit",
            record.dir
        );
    }
    *budget -= rounds;
    let what = || format!("{}: its recorded command", record.dir);
    let ((game, pairs, plan), sweep_alpha, chunk, kind) = match &source {
        StakeSource::Sweep(args) => (
            super::sweep_stake::stake_plan(args).with_context(what)?,
            args.report.alpha,
            args.chunk_size,
            "sweep",
        ),
        StakeSource::Merge { plan, alpha } => {
            (super::sweep_stake::merged_plan(plan, &record.dir)?, *alpha, DEFAULT_CHUNK, "merge")
        }
    };
    let nonces = plan.nonces[0]..plan.nonces[1];
    let (_, pool) = super::sweep_stake::worker_pool(None)?;
    let tallies = super::sweep_stake::sweep_pairs(&pool, &game, &pairs, nonces, chunk, &|_| {})
        .ok_or_else(|| anyhow::Error::new(input::Interrupted))?;
    let sweep_battery = fairaudit::stats::stake::battery(&game, &tallies, sweep_alpha);
    // The report states the battery beside what run.json records of the run (its command,
    // threads, time): made again from both, so a page that states other verdicts differs.
    let run: StakeRun = serde_json::from_slice(&std::fs::read(dir.join("run.json"))?)
        .with_context(|| format!("{}/run.json: not the run.json of a sweep of scheme stake", record.dir))?;
    // Rebuilt from what a whole sweep records (a partial note in a forged run.json is named
    // below, not drawn).
    let report_run = StakeRun { partial: None, ..run.clone() };
    let report =
        StakeHtmlReport { run: &report_run, game: &game, tallies: &tallies, battery: &sweep_battery };
    // What the page states of the run beyond its plan and rounds must be what a whole,
    // complete sweep records (a forged shard note would otherwise be drawn as written).
    let mut run_mismatches = Vec::new();
    if run.kind != kind || !run.complete || run.shard.is_some() || run.partial.is_some() {
        run_mismatches.push(format!(
            "{}/run.json: its kind, complete, shard or partial is not what the sweep it names gives",
            record.dir
        ));
    }
    let given = [
        ("tests.csv", tests_table(&sweep_battery).to_csv()),
        ("summary.json", summary_json(&sweep_battery, &[])),
        ("outcome_counts.csv", counts_table(&game, &tallies).to_csv()),
        ("rtp.csv", stake_rtp_table(&super::sweep_stake::rtp_groups(&game, &tallies), sweep_alpha).to_csv()),
        (STAKE_TALLY_FILE, super::sweep_stake::complete_file(&game, &plan, tallies.clone()).to_bytes()),
        ("report.html", report.render().into_bytes()),
    ];
    let recorded = [("plan", serde_json::to_value(&plan)?), ("rounds", serde_json::Value::from(rounds))];
    let expected = Expected {
        files: &STAKE_FILES,
        optional: &OPTIONAL_FILES,
        writer: "a sweep of scheme stake",
        origin: "sweep",
    };
    let mut differing = compare_folder(&dir, &record.dir, &expected, &given, &recorded)?;
    differing.extend(run_mismatches);
    let battery = fairaudit::stats::stake::battery(&game, &tallies, alpha);
    Ok(LoadedStakeSweep { command_line, plan, game, rounds, battery, differing })
}

/// What an input folder's copy must be: the files `writer` writes, and `origin` (the
/// `chain` or the `sweep` its run.json names), which gave its files again.
struct Expected<'a> {
    files: &'a [&'a str],
    /// Files that earlier versions of the writer did not write: compared where present.
    optional: &'a [&'a str],
    writer: &'a str,
    origin: &'a str,
}

/// Each file of an input's dossier copy `dir` (named `rel`) that is not what running it
/// again gives: a file of `given` that differs byte for byte, a field of its run.json that
/// differs from `recorded`, and each file there that `expected.writer` does not write.
fn compare_folder(
    dir: &Path,
    rel: &str,
    expected: &Expected,
    given: &[(&str, Vec<u8>)],
    recorded: &[(&str, serde_json::Value)],
) -> Result<Vec<Mismatch>> {
    let mut differing = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("{rel}: cannot list"))? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    for name in names {
        if !expected.files.contains(&name.as_str()) {
            differing.push(format!("{rel}/{name}: not a file {} writes", expected.writer));
        }
    }
    for (name, bytes) in given {
        let path = dir.join(name);
        if !path.exists() {
            // A file an earlier fairaudit did not write is checked where it is there, so
            // that older folders and certificates still check; any other is named.
            if !expected.optional.contains(name) {
                differing.push(format!("{rel}/{name}: missing ({} writes it)", expected.writer));
            }
            continue;
        }
        let pinned = std::fs::read(&path).with_context(|| format!("{rel}/{name}"))?;
        if pinned != *bytes {
            differing.push(format!(
                "{rel}/{name}: differs from what the {} its run.json names gives, from line {}",
                expected.origin,
                first_difference(&pinned, bytes)
            ));
        }
    }
    let run: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("run.json")).with_context(|| format!("{rel}/run.json"))?,
    )
    .with_context(|| format!("{rel}/run.json"))?;
    for (field, value) in recorded {
        if run.get(field) != Some(value) {
            differing.push(format!(
                "{rel}/run.json: its {field} is not what the {} it names gives",
                expected.origin
            ));
        }
    }
    Ok(differing)
}

fn load_worked(root: &Path, vectors: &str, games: &[GameId]) -> Result<Vec<WorkedRound>> {
    let read = |name: &str| {
        let path = at(root, vectors).join(name);
        let file = input::open(&path).with_context(|| format!("{vectors}/{name}"))?;
        read_vectors(file).with_context(|| format!("{vectors}/{name}"))
    };
    let reference = read("reference-rounds.csv")?;
    let rejection = read("rejection-rounds.csv")?;
    let chosen = choose_rounds(&reference, &rejection, games);
    if chosen.is_empty() {
        bail!(
            "{vectors}: the vectors hold no round of the games certified: there is nothing to work through"
        );
    }
    let names = ["reference-rounds.csv", "rejection-rounds.csv"];
    Ok(chosen
        .into_iter()
        .map(|(file, row)| {
            let source = format!("{} line {}", names[file], row.line);
            work_round(row.game, &row.server_seed, &row.client_seed, row.nonce, source, row.recorded.clone())
        })
        .collect())
}

/// Everything the dossier at `root` concludes; sweeps of the HMAC-SHA256 family of more
/// than `stake_limit` rounds in all are refused ([`load_stake_sweep`]).
fn load(root: &Path, records: &Records, alpha: f64, stake_limit: u64) -> Result<Loaded> {
    let paytable = match records.paytable {
        Some(rel) => paytable_at(root, rel)?,
        None => Paytable::example(),
    };
    let claims = load_claims(records.claims.map(|rel| at(root, rel)).as_deref())?;
    let sweeps: Vec<LoadedSweep> = records
        .sweeps
        .iter()
        .map(|s| load_sweep(root, s, &paytable, &claims, alpha))
        .collect::<Result<_>>()?;
    let audits: Vec<LoadedAudit> =
        records.audits.iter().map(|a| load_audit(root, a, alpha)).collect::<Result<_>>()?;
    let mut links = 0u64;
    for record in records.chains {
        links = links.saturating_add(chain_links(root, record)?);
    }
    if links > CHAIN_LINKS_CHECKED {
        bail!(
            "the crash chains would walk {links} links in all, more than the {CHAIN_LINKS_CHECKED} fairaudit walks for one certificate (no real certificate needs more)"
        );
    }
    let chains: Vec<LoadedChain> =
        records.chains.iter().map(|c| load_chain(root, c, alpha)).collect::<Result<_>>()?;
    let crash_audits: Vec<LoadedCrashAudit> =
        records.crash_audits.iter().map(|a| load_crash_audit(root, a, alpha)).collect::<Result<_>>()?;
    let mut budget = stake_limit;
    let stake_sweeps: Vec<LoadedStakeSweep> = records
        .stake_sweeps
        .iter()
        .map(|s| load_stake_sweep(root, s, alpha, &mut budget))
        .collect::<Result<_>>()?;
    let stake_audits: Vec<LoadedStakeAudit> =
        records.stake_audits.iter().map(|a| load_stake_audit(root, a, alpha)).collect::<Result<_>>()?;
    let in_scope: Vec<GameId> = GameId::ALL
        .into_iter()
        .filter(|g| {
            sweeps.iter().any(|s| s.tallies.plan.games.contains(g))
                || audits.iter().any(|a| a.audit.game == *g)
        })
        .collect();
    let exact: Vec<ExactRtp> = in_scope.iter().flat_map(|&g| exact_rtp(g, &paytable)).collect();
    let claims =
        claims.iter().filter(|c| in_scope.contains(&c.game)).map(|c| check_claim(c, &exact)).collect();
    // A certificate of crash chains alone has no game of the default scheme to work
    // through or to say was not examined.
    let default_scheme = !sweeps.is_empty() || !audits.is_empty();
    let worked = match records.vectors {
        Some(vectors) if default_scheme => load_worked(root, vectors, &in_scope)?,
        None if default_scheme => {
            bail!("the certificate records no reference vectors for its sweeps and audits")
        }
        _ => Vec::new(),
    };
    let not_examined = GameId::ALL.into_iter().filter(|g| default_scheme && !in_scope.contains(g)).collect();
    Ok(Loaded {
        sweeps,
        audits,
        chains,
        crash_audits,
        stake_sweeps,
        stake_audits,
        paytable,
        claims,
        exact,
        worked,
        not_examined,
    })
}

/// A bet history as the certificate shows it: where it was, its copy, its first findings.
fn audit_shown<'a>(record: &'a AuditRecord, findings: &'a [fairaudit::audit::Finding]) -> AuditShown<'a> {
    AuditShown { dir: &record.source, outcomes: &record.outcomes_source, copy: &record.dir, findings }
}

/// The certificate document for `manifest` (as it stands before its outputs are known)
/// and what its dossier concludes: `certify` writes it, `--check` renders it again and
/// compares the bytes.
fn render(manifest: &Manifest, loaded: &Loaded) -> String {
    let mut before_outputs = manifest.clone();
    before_outputs.outputs = Vec::new();
    before_outputs.pdf_pages = None;
    let conclusions = loaded.conclusions();
    let doc = CertificateDoc {
        manifest: &before_outputs,
        sweeps: loaded
            .sweeps
            .iter()
            .zip(&manifest.sweeps)
            .map(|(s, record)| SweepPart { dir: &record.source, tallies: &s.tallies, results: &s.results })
            .collect(),
        audits: manifest
            .audits
            .iter()
            .zip(&loaded.audits)
            .map(|(a, l)| audit_shown(a, &l.findings))
            .collect(),
        chains: loaded
            .chains
            .iter()
            .zip(&manifest.chains)
            .map(|(c, record)| ChainShown {
                dir: &record.source,
                plan: &c.plan,
                variant: c.variant,
                played: &c.played,
            })
            .collect(),
        crash_audits: manifest
            .crash_audits
            .iter()
            .zip(&loaded.crash_audits)
            .map(|(a, l)| CrashAuditShown { shown: audit_shown(a, &l.findings), variant: l.variant })
            .collect(),
        stake_sweeps: loaded
            .stake_sweeps
            .iter()
            .zip(&manifest.stake_sweeps)
            .map(|(s, record)| StakeSweepShown {
                dir: &record.source,
                plan: &s.plan,
                game: s.game,
                rounds: s.rounds,
            })
            .collect(),
        stake_audits: manifest
            .stake_audits
            .iter()
            .zip(&loaded.stake_audits)
            .map(|(a, l)| audit_shown(a, &l.findings))
            .collect(),
        conclusions: &conclusions,
        exact: &loaded.exact,
        paytable: &loaded.paytable,
        not_examined: loaded.not_examined.clone(),
        resweep_limit: manifest.resweep_limit,
    };
    doc.render()
}

/// fairaudit's files in an output folder, each with its path in the dossier under `rel`.
fn folder_copies(dir: &Path, rel: &str) -> Vec<(PathBuf, String)> {
    let files = OUR_FILES.iter().map(|name| dir.join(name)).filter(|p| p.is_file());
    files
        .map(|file| {
            let name = plain_name(&file, "file");
            (file, format!("{rel}/{name}"))
        })
        .collect()
}

/// A file name safe to keep in the dossier: the original when it is plain, else `fallback`.
fn plain_name(path: &Path, fallback: &str) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .filter(|n| {
            !n.starts_with('.')
                && n.len() <= 100
                && n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
        .unwrap_or(fallback)
        .to_owned()
}

/// The dossier to write: each input's copy, and the records naming the copies.
struct Dossier {
    /// (source, path in the dossier) of each file copied.
    copies: Vec<(PathBuf, String)>,
    /// Histories left where they are (absolute paths).
    in_place: Vec<PathBuf>,
    sweeps: Vec<SweepRecord>,
    audits: Vec<AuditRecord>,
    chains: Vec<ChainRecord>,
    crash_audits: Vec<AuditRecord>,
    stake_sweeps: Vec<SweepRecord>,
    stake_audits: Vec<AuditRecord>,
    paytable: Option<String>,
    claims: Option<String>,
    vectors: Option<String>,
}

impl Dossier {
    fn records(&self) -> Records<'_> {
        Records {
            sweeps: &self.sweeps,
            audits: &self.audits,
            chains: &self.chains,
            crash_audits: &self.crash_audits,
            stake_sweeps: &self.stake_sweeps,
            stake_audits: &self.stake_audits,
            paytable: self.paytable.as_deref(),
            claims: self.claims.as_deref(),
            vectors: self.vectors.as_deref(),
        }
    }
}

/// Plans the dossier of the inputs `args` names, checking each is there.
fn plan_dossier(args: &CertifyArgs) -> Result<Dossier> {
    if args.sweeps.is_empty() && args.audits.is_empty() {
        bail!("nothing to certify: pass at least one --sweep DIR or --audit DIR");
    }
    let mut copies: Vec<(PathBuf, String)> = Vec::new();
    let mut in_place = Vec::new();
    let mut sweeps = Vec::new();
    let mut chains = Vec::new();
    let mut stake_sweeps = Vec::new();
    for dir in &args.sweeps {
        if !dir.join(TALLY_FILE).is_file() {
            match scheme_sweep(dir, &display(dir))? {
                Some(SchemeSweep::Chain(ChainCommand { command_line, .. })) => {
                    let rel = format!("{INPUTS_DIR}/chain-{}", chains.len() + 1);
                    copies.extend(folder_copies(dir, &rel));
                    chains.push(ChainRecord { dir: rel, source: display(dir), command_line, games: 0 });
                }
                Some(SchemeSweep::Stake { command_line, .. }) => {
                    let rel = format!("{INPUTS_DIR}/stake-sweep-{}", stake_sweeps.len() + 1);
                    copies.extend(folder_copies(dir, &rel));
                    stake_sweeps.push(SweepRecord {
                        dir: rel,
                        source: display(dir),
                        command_line,
                        rounds: 0,
                        paytable: None,
                        claims: None,
                    });
                }
                None => bail!("{}: not a sweep's output folder (no {TALLY_FILE})", dir.display()),
            }
            continue;
        }
        let (kind, command_line) = run_json(dir).unwrap_or_default();
        if !kind.is_empty() && kind != "sweep" && kind != "merge" {
            bail!(
                "{}: holds the output of a fairaudit {kind}, not of a sweep (pass it with --audit?)",
                dir.display()
            );
        }
        let rel = format!("{INPUTS_DIR}/sweep-{}", sweeps.len() + 1);
        copies.extend(folder_copies(dir, &rel));
        // Its own paytable and claims files, copied as an audit's are, so that its rtp.csv
        // and report.html can be made again from the dossier.
        // (A folder without a run.json names none; loading it says what it lacks.)
        let ran_in = ran_in(dir);
        let (paytable_file, claims_file) = if kind.is_empty() {
            (None, None)
        } else {
            let recorded = RecordedRun::parse(&command_line, &display(dir))?;
            let named = |file: &Option<PathBuf>| {
                file.as_deref().map(|file| (file.to_path_buf(), named_file(ran_in.as_deref(), file)))
            };
            (named(&recorded.report().paytable), named(&recorded.report().claims))
        };
        let mut own = |file: Option<(PathBuf, PathBuf)>, what: &str| -> Result<Option<String>> {
            let Some((named, from)) = file else { return Ok(None) };
            if named.as_os_str() == "-" {
                bail!(
                    "{}: its {what} was read from standard input, which cannot be read again: run it again naming the file to certify it",
                    dir.display()
                );
            }
            if !from.is_file() {
                bail!(
                    "{}: its {what} file {} (from run.json) is not found: {}",
                    dir.display(),
                    named.display(),
                    not_found_hint(ran_in.as_deref(), &kind)
                );
            }
            let to = format!("{rel}/{what}/{}", plain_name(&from, what));
            copies.push((from, to.clone()));
            Ok(Some(to))
        };
        let paytable = own(paytable_file, "paytable")?;
        let claims = own(claims_file, "claims")?;
        sweeps.push(SweepRecord {
            dir: rel,
            source: display(dir),
            command_line,
            rounds: 0,
            paytable,
            claims,
        });
    }
    let mut audits = Vec::new();
    let mut crash_audits = Vec::new();
    let mut stake_audits = Vec::new();
    for dir in &args.audits {
        let (command_line, audit) = audit_command(dir, &display(dir))?;
        // Which list the history goes to, and its folder's name in the dossier.
        let (list, name) = match audit.scheme {
            Some(scheme) if scheme.crash_variant().is_some() => (&mut crash_audits, "crash-audit"),
            Some(fairaudit::scheme::SchemeId::Stake) => (&mut stake_audits, "stake-audit"),
            _ => (&mut audits, "audit"),
        };
        let (named_outcomes, paytable, columns) = audit.files();
        if named_outcomes.as_os_str() == "-" {
            bail!("{}: the audit read its history from standard input, which cannot be read again: audit the file itself to certify it", dir.display());
        }
        let ran_in = ran_in(dir);
        let outcomes = named_file(ran_in.as_deref(), &named_outcomes);
        if !outcomes.is_file() {
            bail!(
                "{}: its bet history {} (from run.json) is not found: {}",
                dir.display(),
                named_outcomes.display(),
                not_found_hint(ran_in.as_deref(), "audit")
            );
        }
        let (paytable, columns) = (
            paytable.map(|file| named_file(ran_in.as_deref(), &file)),
            columns.map(|file| named_file(ran_in.as_deref(), &file)),
        );
        let rel = format!("{INPUTS_DIR}/{name}-{}", list.len() + 1);
        copies.extend(folder_copies(dir, &rel));
        let history = if args.no_copy_histories {
            let absolute = outcomes.canonicalize().with_context(|| display(&outcomes))?;
            in_place.push(absolute.clone());
            absolute
                .to_str()
                .ok_or_else(|| anyhow!("{}: the path is not UTF-8", absolute.display()))?
                .to_owned()
        } else {
            let to = format!("{rel}/history/{}", plain_name(&outcomes, "history.csv"));
            copies.push((outcomes.clone(), to.clone()));
            to
        };
        let mut copy = |from: Option<PathBuf>, what: &str| {
            from.map(|from| {
                let to = format!("{rel}/{what}/{}", plain_name(&from, what));
                copies.push((from, to.clone()));
                to
            })
        };
        let paytable = copy(paytable, "paytable");
        let columns = copy(columns, "columns");
        let record = AuditRecord {
            dir: rel,
            source: display(dir),
            command_line,
            outcomes_source: display(&named_outcomes),
            outcomes: history,
            paytable,
            columns,
            rows: 0,
        };
        list.push(record);
    }
    let mut single = |from: &Option<PathBuf>, what: &str| {
        from.as_ref().map(|from| {
            let to = format!("{INPUTS_DIR}/{what}/{}", plain_name(from, what));
            copies.push((from.clone(), to.clone()));
            to
        })
    };
    let paytable = single(&args.paytable, "paytable");
    let claims = single(&args.claims, "claims");
    // The vectors are rounds of the default scheme's games: a certificate of crash chains
    // alone does without them.
    let vectors = (!sweeps.is_empty() || !audits.is_empty()).then(|| format!("{INPUTS_DIR}/vectors"));
    for name in ["reference-rounds.csv", "rejection-rounds.csv"] {
        let Some(vectors) = &vectors else { break };
        let from = args.vectors.join(name);
        if !from.is_file() {
            bail!("{}: not found (the reference vectors: pass --vectors DIR)", from.display());
        }
        copies.push((from, format!("{vectors}/{name}")));
    }
    Ok(Dossier {
        copies,
        in_place,
        sweeps,
        audits,
        chains,
        crash_audits,
        stake_sweeps,
        stake_audits,
        paytable,
        claims,
        vectors,
    })
}

/// The first entry of folder `dir` (when it exists) that is none of the files fairaudit
/// writes, shown as its name.
fn foreign_entry(dir: &Path) -> Result<Option<String>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("cannot read {}", dir.display()))?;
    names.sort();
    Ok(names
        .into_iter()
        .find(|name| !OUR_FILES.contains(&name.as_str()))
        .map(|name| fairaudit::fields::Excerpt(&name).to_string()))
}

/// Copies the dossier's files into the staged folder and hashes the copies (and the
/// histories left in place).
fn write_dossier(folder: &OutputFolder, dossier: &Dossier) -> Result<Vec<FileHash>> {
    let mut hashes = Vec::new();
    for (from, to) in &dossier.copies {
        let staged = folder.staged(to);
        if let Some(parent) = staged.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot write {}", parent.display()))?;
        }
        std::fs::copy(from, &staged)
            .with_context(|| format!("{}: cannot copy into the dossier", from.display()))?;
        hashes.push(hash_file(&staged, to.clone()).with_context(|| format!("{to}: cannot read"))?);
    }
    for path in &dossier.in_place {
        hashes.push(
            hash_file(path, display(path)).with_context(|| format!("{}: cannot read", path.display()))?,
        );
    }
    Ok(hashes)
}

fn binary_hash() -> Result<FileHash> {
    let exe = std::env::current_exe().context("cannot find the fairaudit binary")?;
    hash_file(&exe, display(&exe)).with_context(|| format!("{}: cannot read", exe.display()))
}

fn revision() -> Option<String> {
    // build.rs writes `unknown` when the build had no revision to read.
    let revision = fairaudit::REVISION;
    (!revision.is_empty() && revision != "unknown").then(|| revision.to_owned())
}

/// Characters that reorder or hide text (bidirectional controls, zero-width marks): in a
/// name they could make a FINDINGS certificate's title read PASS.
fn is_hidden_format(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// One line of at most 200 characters, neither control nor reordering characters.
fn check_name(flag: &str, name: &str) -> Result<()> {
    if name.trim().is_empty() {
        bail!("{flag} is empty: name the {} the certificate is for", &flag[2..]);
    }
    if name.chars().count() > 200 || name.chars().any(char::is_control) {
        bail!("{flag} must be one line of at most 200 characters");
    }
    if let Some(c) = name.chars().find(|&c| is_hidden_format(c)) {
        bail!("{flag} holds the invisible formatting character U+{:04X}, which can reorder what a reader sees: remove it", c as u32);
    }
    Ok(())
}

/// The signer the arguments name: the identity and the key (from the private key for
/// --sign, the public key for --signer-key); the private key when fairaudit signs.
fn signer(args: &CertifyArgs) -> Result<(Option<Signer>, Option<ssh_key::PrivateKey>)> {
    let Some(auditor) = &args.auditor else { return Ok((None, None)) };
    let (public, private) = match (&args.sign, &args.signer_key) {
        (Some(path), _) => {
            let key = ssh_key::PrivateKey::read_openssh_file(path)
                .map_err(|e| anyhow!("{}: not an OpenSSH private key ({e})", path.display()))?;
            if key.is_encrypted() {
                bail!("{}: the key has a passphrase, which fairaudit does not ask for: pass its public key with --signer-key and sign manifest.json with ssh-keygen -Y sign (docs/certify.md)", path.display());
            }
            (key.public_key().clone(), Some(key))
        }
        (None, Some(path)) => (
            ssh_key::PublicKey::read_openssh_file(path)
                .map_err(|e| anyhow!("{}: not an OpenSSH public key ({e})", path.display()))?,
            None,
        ),
        (None, None) => return Ok((None, None)),
    };
    let identity = args.auditor_id.clone().unwrap_or_else(|| auditor.clone());
    if identity.is_empty()
        || identity.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, ',' | '"' | '*' | '?'))
    {
        bail!("the signer's identity '{identity}' holds spaces, commas, quotes or wildcards, which an allowed-signers file cannot list: pass --auditor-id, e.g. an e-mail address");
    }
    let signer = Signer {
        identity,
        public_key: public.to_openssh().map_err(|e| anyhow!("cannot encode the public key: {e}"))?,
        fingerprint: signature::fingerprint(&public),
    };
    Ok((Some(signer), private))
}

/// Refuses an input folder whose files are not what running it again gives; `run` is
/// what made it (`sweep`, `audit`).
fn refuse_differing(source: &str, differing: &[Mismatch], run: &str) -> Result<()> {
    match differing.first() {
        Some(first) => bail!(
            "{source}: {first}: the folder's files are not those of the {run} its run.json records (run the {run} again)"
        ),
        None => Ok(()),
    }
}

fn certify(args: CertifyArgs) -> Result<Verdict> {
    let started = SystemTime::now();
    let operator = args.operator.clone().expect("clap requires --operator without --check");
    check_name("--operator", &operator)?;
    if let Some(auditor) = &args.auditor {
        check_name("--auditor", auditor)?;
    }
    let out = args.out.clone().expect("clap requires --out without --check");
    for dir in args.sweeps.iter().chain(&args.audits) {
        if dir.canonicalize().ok().is_some_and(|d| out.canonicalize().ok() == Some(d)) {
            bail!("--out {} is one of the input folders: choose another", out.display());
        }
    }
    let (signer, private_key) = signer(&args)?;
    let dossier = plan_dossier(&args)?;
    // Claim the folder before the work: a refusal writes nothing.
    let (folder, existing) = OutputFolder::claim(&out)?;
    if let (Existing::Run { kind }, false) = (existing, args.force) {
        let what = if kind.is_empty() { "an earlier run".to_owned() } else { format!("a fairaudit {kind}") };
        bail!(
            "{} holds the output of {what}; choose another --out, or pass --force to replace it",
            out.display()
        );
    }
    // A folder's own files are carried over by a run (they are the user's), but a
    // certificate holds exactly the files its manifest lists: one carried in would fail
    // its own --check. Refused, even with --force, which replaces only fairaudit's files.
    if let Some(foreign) = foreign_entry(&out)? {
        bail!(
            "{} holds {foreign}, which fairaudit did not write: a certificate's folder holds only its own files (--check refuses any other), so choose another --out or move it",
            out.display()
        );
    }
    install_stop_handler()?;
    let inputs = write_dossier(&folder, &dossier)?;
    let staged_root = folder.staged("");
    let loaded = load(&staged_root, &dossier.records(), args.alpha, args.resweep_limit)?;
    let paper = match args.paper {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    };
    let conclusions = loaded.conclusions();
    let mut sweeps = dossier.sweeps.clone();
    for (record, s) in sweeps.iter_mut().zip(&loaded.sweeps) {
        refuse_differing(&record.source, &s.differing, "sweep")?;
        record.rounds = s.tallies.rounds();
    }
    let mut audits = dossier.audits.clone();
    for (record, a) in audits.iter_mut().zip(&loaded.audits) {
        refuse_differing(&record.source, &a.differing, "audit")?;
        record.rows = a.audit.rounds;
    }
    let mut chains = dossier.chains.clone();
    for (record, c) in chains.iter_mut().zip(&loaded.chains) {
        refuse_differing(&record.source, &c.differing, "sweep")?;
        record.games = c.played.tally.games;
    }
    let mut crash_audits = dossier.crash_audits.clone();
    for (record, a) in crash_audits.iter_mut().zip(&loaded.crash_audits) {
        refuse_differing(&record.source, &a.differing, "audit")?;
        record.rows = a.audit.rows;
    }
    let mut stake_audits = dossier.stake_audits.clone();
    for (record, a) in stake_audits.iter_mut().zip(&loaded.stake_audits) {
        refuse_differing(&record.source, &a.differing, "audit")?;
        record.rows = a.audit.rows;
    }
    let mut stake_sweeps = dossier.stake_sweeps.clone();
    for (record, s) in stake_sweeps.iter_mut().zip(&loaded.stake_sweeps) {
        refuse_differing(&record.source, &s.differing, "sweep")?;
        record.rounds = s.rounds;
    }
    let mut manifest = Manifest {
        format: MANIFEST_FORMAT.into(),
        version: MANIFEST_VERSION,
        fairaudit_version: env!("CARGO_PKG_VERSION").into(),
        source_revision: revision(),
        binary: binary_hash()?,
        created_at: humantime::format_rfc3339_seconds(started).to_string(),
        operator: operator.clone(),
        auditor: args.auditor.clone(),
        signer,
        resweep_limit: args.resweep_limit,
        command_line: command_line(),
        alpha: args.alpha,
        paper: paper.name().into(),
        paytable: dossier.paytable.clone(),
        claims: dossier.claims.clone(),
        vectors: dossier.vectors.clone(),
        sweeps,
        audits,
        chains,
        crash_audits,
        stake_sweeps,
        stake_audits,
        inputs,
        outputs: Vec::new(),
        pdf_pages: None,
        verdicts: conclusions.verdicts(),
    };
    let html = render(&manifest, &loaded);
    folder.write("certificate.html", html.as_bytes())?;
    let mut outputs = vec![hash_file(&folder.staged("certificate.html"), "certificate.html".into())?];
    if !args.no_pdf {
        if let Some(pages) = render_pdf(&folder)? {
            outputs.push(hash_file(&folder.staged("certificate.pdf"), "certificate.pdf".into())?);
            manifest.pdf_pages = Some(pages);
        }
    }
    manifest.outputs = outputs;
    let manifest_bytes = manifest.to_bytes();
    folder.write(MANIFEST_FILE, &manifest_bytes)?;
    if let Some(key) = &private_key {
        let armoured = signature::sign(key, &manifest_bytes).map_err(|e| anyhow!("{e}"))?;
        folder.write(SIGNATURE_FILE, armoured.as_bytes())?;
    }
    folder.commit()?;

    outln!("certificate for {operator}: {}", conclusions.overall());
    for (i, (s, record)) in loaded.sweeps.iter().zip(&manifest.sweeps).enumerate() {
        let counts = s.results.battery.counts();
        outln!(
            "  sweep {} ({}): {} rounds, {} tests: {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
            i + 1,
            record.source,
            s.tallies.rounds(),
            s.results.battery.results.len(),
            counts.pass,
            counts.weak,
            counts.fail,
            counts.insufficient,
            s.results.battery.overall().as_str()
        );
    }
    for (i, (a, record)) in loaded.audits.iter().zip(&manifest.audits).enumerate() {
        outln!(
            "  bet history {} ({}): {} rows, {} mismatches, row checks {}, battery {}",
            i + 1,
            fairaudit::fields::Shown(&record.outcomes_source),
            a.audit.rounds,
            a.audit.mismatches,
            fairaudit::certify::rows_text(&a.audit),
            a.battery.overall().as_str()
        );
    }
    for (i, (c, record)) in loaded.chains.iter().zip(&manifest.chains).enumerate() {
        let counts = c.battery.counts();
        outln!(
            "  chain {} ({}): {} crash games {}..{}, {} to the published game, {} tests: {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
            i + 1,
            fairaudit::fields::Shown(&record.source),
            c.plan.scheme,
            c.plan.games[0],
            c.plan.games[1],
            fairaudit::certify::link_text(&c.link),
            c.battery.results.len(),
            counts.pass,
            counts.weak,
            counts.fail,
            counts.insufficient,
            c.battery.overall().as_str()
        );
    }
    for (i, (s, record)) in loaded.stake_sweeps.iter().zip(&manifest.stake_sweeps).enumerate() {
        let counts = s.battery.counts();
        outln!(
            "  stake sweep {} ({}): {}, {} rounds, {} tests: {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
            i + 1,
            fairaudit::fields::Shown(&record.source),
            s.game,
            s.rounds,
            s.battery.results.len(),
            counts.pass,
            counts.weak,
            counts.fail,
            counts.insufficient,
            s.battery.overall().as_str()
        );
    }
    for (i, (a, record)) in loaded.stake_audits.iter().zip(&manifest.stake_audits).enumerate() {
        outln!(
            "  stake bet history {} ({}): {} rows, {} replayed, row checks {}, battery {}",
            i + 1,
            fairaudit::fields::Shown(&record.outcomes_source),
            a.audit.rows,
            a.audit.replayed,
            fairaudit::certify::stake_rows_text(&a.audit),
            a.battery.overall().as_str()
        );
    }
    for (i, (a, record)) in loaded.crash_audits.iter().zip(&manifest.crash_audits).enumerate() {
        outln!(
            "  crash bet history {} ({}): {} bets on {} games, row checks {}, battery {}",
            i + 1,
            fairaudit::fields::Shown(&record.outcomes_source),
            a.audit.rows,
            a.audit.games,
            fairaudit::certify::crash_rows_text(&a.audit),
            a.battery.overall().as_str()
        );
    }
    let illustrative = loaded.paytable.is_illustrative();
    for claim in &loaded.claims {
        outln!(
            "  claim {} rtp {}%: {}{}",
            claim.claim.game,
            claim.claim.figure_text,
            conclusions.claim_text(claim),
            if claim.claim.game == GameId::Keno && illustrative {
                " (no operator paytable: the ILLUSTRATIVE example's figures are not the operator's)"
            } else {
                ""
            }
        );
    }
    let reproduced = loaded.worked.iter().filter(|w| w.matches()).count();
    let rejections: usize = loaded.worked.iter().map(WorkedRound::rejections).sum();
    if !loaded.worked.is_empty() {
        outln!(
            "  worked rounds: {reproduced} of {} reproduce their vectors ({rejections} rejected word(s) shown)",
            loaded.worked.len()
        );
    }
    let pdf = match manifest.pdf_pages {
        Some(pages) => format!(", certificate.pdf ({pages} pages)"),
        None => String::new(),
    };
    outln!(
        "output: {} (certificate.html{pdf}, {MANIFEST_FILE}; inputs copied to {INPUTS_DIR}/)",
        out.display()
    );
    match (&manifest.signer, &private_key) {
        (Some(s), Some(_)) => {
            outln!("signature: {SIGNATURE_FILE}, by {} with key {}", s.identity, s.fingerprint)
        }
        (Some(s), None) => outln!(
            "signature: not made yet: ssh-keygen -Y sign -f KEY -n {} {} (key {})",
            signature::NAMESPACE,
            out.join(MANIFEST_FILE).display(),
            s.fingerprint
        ),
        (None, _) => outln!(
            "signature: UNSIGNED (publish the manifest's SHA-256, or sign with --sign: docs/certify.md)"
        ),
    }
    outln!("manifest SHA-256: {}", sha256_hex(&manifest_bytes));
    Ok(if conclusions.has_finding() {
        Verdict::Finding
    } else if conclusions.judged_nothing() {
        Verdict::Insufficient
    } else {
        Verdict::Clean
    })
}

/// The Chromium to print with: `FAIRAUDIT_CHROMIUM` when set (a path or a name), else
/// the first of [`CHROMIUM_NAMES`] on the PATH.
fn find_chromium() -> Option<PathBuf> {
    let on_path = |name: &str| -> Option<PathBuf> {
        let candidate = Path::new(name);
        if candidate.components().count() > 1 {
            return candidate.is_file().then(|| candidate.to_owned());
        }
        std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| p.is_file())
    };
    match std::env::var("FAIRAUDIT_CHROMIUM") {
        Ok(name) => on_path(&name),
        Err(_) => CHROMIUM_NAMES.iter().find_map(|name| on_path(name)),
    }
}

/// The name of Chromium's profile folder inside the staging folder: removed after
/// printing, and with the staging folder by the next run when certify is killed.
const CHROMIUM_PROFILE: &str = ".chromium-profile";

/// Stops Chromium and every process it started (its own process group).
fn stop_chromium(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) on the process group this function's caller created for the
        // child; no memory is touched.
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Prints the staged certificate.html to certificate.pdf with headless Chromium; the
/// number of pages, or `None` (said on stderr) when there is no Chromium or it fails.
fn render_pdf(folder: &OutputFolder) -> Result<Option<usize>> {
    let Some(chromium) = find_chromium() else {
        errln!(
            "note: no Chromium found ({}; or set FAIRAUDIT_CHROMIUM): certificate.pdf not written; certificate.html prints from any browser",
            CHROMIUM_NAMES.join(", ")
        );
        return Ok(None);
    };
    let html = folder.staged("certificate.html").canonicalize()?;
    let pdf = folder.staged("certificate.pdf");
    let pdf_abs = html.with_file_name("certificate.pdf");
    let profile = html.with_file_name(CHROMIUM_PROFILE);
    // The flags of scripts/check-report.sh: no sandbox (CI runs as root), no GPU, no
    // network noise; no browser header and footer (the page's own CSS has them).
    let mut command = std::process::Command::new(&chromium);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-pdf-header-footer",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--print-to-pdf={}", pdf_abs.display()))
        .arg(format!("file://{}", html.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so that a stop takes its helpers too.
        command.process_group(0);
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent; it asks
        // the kernel to kill Chromium when fairaudit dies, even by SIGKILL.
        #[cfg(target_os = "linux")]
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    let mut child = command.spawn().with_context(|| format!("cannot start {}", chromium.display()))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            // Helpers of the group may outlive the main process for a moment.
            stop_chromium(&mut child);
            break Some(status);
        }
        if started.elapsed() > CHROMIUM_TIMEOUT || input::stopped() {
            stop_chromium(&mut child);
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = std::fs::remove_dir_all(&profile);
    if input::stopped() {
        return Err(anyhow::Error::new(input::Interrupted));
    }
    let pages = std::fs::read(&pdf).ok().map(|bytes| pdf_page_count(&bytes)).filter(|&n| n > 0);
    match (status, pages) {
        (Some(status), Some(pages)) if status.success() => Ok(Some(pages)),
        (status, _) => {
            let _ = std::fs::remove_file(&pdf);
            errln!(
                "note: {} {}: certificate.pdf not written",
                chromium.display(),
                match status {
                    None => format!("did not finish in {} s", CHROMIUM_TIMEOUT.as_secs()),
                    Some(s) if !s.success() => format!("failed ({s})"),
                    Some(_) => "wrote no readable PDF".to_owned(),
                }
            );
            Ok(None)
        }
    }
}

/// Re-sweeps a sweep's plan and says whether the tallies come out byte for byte.
fn resweep(tallies: &TallyFile, tally_bytes: &[u8]) -> Result<bool> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| anyhow!("cannot start {threads} worker threads: {error}"))?;
    let kernel = Kernel::select(KeccakRequest::Auto)?;
    let progress = |_: u64| {};
    let control =
        SweepControl { chunk: DEFAULT_CHUNK, stop: &STOP, progress: &progress, kernel, device: None };
    let mut again = pool.install(|| sweep::run(&tallies.plan, None, &control))?;
    if !again.complete {
        return Err(anyhow::Error::new(input::Interrupted));
    }
    // Which shard of which cut the tallies are (or which shards a partial merge lacks) is
    // a record about the plan, not a count: the pinned file's, checked when it was read.
    // Without it, a certified shard never matched its own re-sweep.
    again.shard = tallies.shard;
    again.partial.clone_from(&tallies.partial);
    Ok(again.to_bytes() == tally_bytes)
}

/// Reads a regular file of at most `limit` bytes; the error says why not.
fn read_bounded(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    open_regular(path)?.take(limit + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read ({e})"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    Ok(bytes)
}

/// Whether anything under the dossier, or a history it pins in place, is not a regular
/// file or a folder (`unlisted_entries` names each).
fn special_files(dir: &Path, manifest: &Manifest) -> bool {
    fn any_special(path: &Path) -> bool {
        let Ok(entries) = std::fs::read_dir(path) else { return true };
        entries.flatten().any(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => any_special(&entry.path()),
            Ok(t) => !t.is_file(),
            Err(_) => true,
        })
    }
    any_special(dir)
        || manifest
            .histories()
            .any(|a| Path::new(&a.outcomes).is_absolute() && open_regular(Path::new(&a.outcomes)).is_err())
}

/// Where two documents first differ, as a line number.
fn first_difference(a: &[u8], b: &[u8]) -> usize {
    let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    a[..at].iter().filter(|&&c| c == b'\n').count() + 1
}

/// The signature's part of a check: what to print, and the mismatch when it fails.
fn check_signature(
    dir: &Path,
    manifest: &Manifest,
    manifest_bytes: &[u8],
    allowed: Option<&[AllowedSigner]>,
) -> Result<(String, Option<Mismatch>)> {
    let path = dir.join(SIGNATURE_FILE);
    let present = std::fs::symlink_metadata(&path).is_ok();
    let signature = if present {
        Some(read_bounded(&path, SIGNATURE_LIMIT).map_err(|why| anyhow!("{SIGNATURE_FILE}: {why}"))?)
    } else {
        None
    };
    Ok(match (&manifest.signer, signature, allowed) {
        (None, None, None) => ("UNSIGNED: nothing ties this certificate to an auditor; compare the manifest's SHA-256 with the one the auditor published (--expect-manifest)".into(), None),
        (None, None, Some(_)) | (Some(_), None, Some(_)) => (
            "UNSIGNED".into(),
            Some(format!("{SIGNATURE_FILE}: missing, and --allowed-signers asks for a signature")),
        ),
        // The document names the key as the signer's whether or not a signature was ever
        // made (it is rendered before `ssh-keygen -Y sign` runs, and naming a public key
        // takes only a copy of it): without the signature it is not the certificate the
        // manifest describes.
        (Some(s), None, None) => (
            "UNSIGNED".into(),
            Some(format!("{SIGNATURE_FILE}: missing, though the manifest names {}'s key {} as its signer and certificate.html says it is signed (sign it with ssh-keygen -Y sign)", s.identity, s.fingerprint)),
        ),
        (None, Some(_), _) => (
            "signature present, but the manifest names no signer".into(),
            Some(format!("{SIGNATURE_FILE}: the manifest names no signer to check it against")),
        ),
        (Some(s), Some(sig), Some(allowed)) => match signature::verify(&sig, manifest_bytes, allowed, &s.identity) {
            Ok(good) if good.fingerprint == s.fingerprint => {
                (format!("signature: GOOD, by {} with key {}", good.principal, good.fingerprint), None)
            }
            Ok(good) => (
                "signature: BAD".into(),
                Some(format!("{SIGNATURE_FILE}: made with key {}, the manifest names {}", good.fingerprint, s.fingerprint)),
            ),
            Err(why) => ("signature: BAD".into(), Some(format!("{SIGNATURE_FILE}: {why}"))),
        },
        (Some(s), Some(sig), None) => {
            let own = ssh_key::PublicKey::from_openssh(&s.public_key)
                .map_err(|e| anyhow!("{MANIFEST_FILE}: the signer's public key is not readable ({e})"))?;
            let signers = [AllowedSigner { principals: vec![s.identity.clone()], namespaces: None, key: own }];
            match signature::verify(&sig, manifest_bytes, &signers, &s.identity) {
                Ok(good) => (
                    format!("signature: valid for the key the manifest names ({}), which proves nothing about who holds it: pass --allowed-signers FILE with the auditor's published key", good.fingerprint),
                    None,
                ),
                Err(why) => ("signature: BAD".into(), Some(format!("{SIGNATURE_FILE}: {why}"))),
            }
        }
    })
}

/// What an input's dossier copy gives of the count its manifest record states.
struct Recorded<'a> {
    /// `rounds`, `rows` or `games`.
    unit: &'a str,
    /// Where the count comes from, as a phrase: `its tallies hold`.
    holder: &'a str,
    count: u64,
}

/// Where the manifest's record of the input in `dir` disagrees with its dossier copy: the
/// count it records against the one `found`, and its command against the copy's run.json.
fn record_mismatches(
    dir: &str,
    recorded: u64,
    found: &Recorded,
    recorded_command: &[String],
    command: &[String],
) -> Vec<Mismatch> {
    let mut mismatches = Vec::new();
    if found.count != recorded {
        mismatches.push(format!(
            "{MANIFEST_FILE}: {dir} records {recorded} {}, {} {}",
            found.unit, found.holder, found.count
        ));
    }
    if command != recorded_command {
        mismatches.push(format!("{MANIFEST_FILE}: {dir}'s command differs from its run.json"));
    }
    mismatches
}

fn check(dir: &Path, args: &CertifyArgs) -> Result<Verdict> {
    let manifest_path = dir.join(MANIFEST_FILE);
    let bytes = read_bounded(&manifest_path, MANIFEST_LIMIT)
        .map_err(|why| anyhow!("{}: {why} (not a certificate folder?)", manifest_path.display()))?;
    let digest = sha256_hex(&bytes);
    let expected = args
        .expect_manifest
        .as_deref()
        .map(|e| {
            let e = e.trim().to_ascii_lowercase();
            let e = e.strip_prefix("sha256:").unwrap_or(&e).to_owned();
            if e.len() == 64 && e.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(e)
            } else {
                Err(anyhow!("--expect-manifest must be a SHA-256 as 64 hex digits"))
            }
        })
        .transpose()?;
    let allowed = match &args.allowed_signers {
        Some(path) => {
            let text =
                read_bounded(path, MANIFEST_LIMIT).map_err(|why| anyhow!("{}: {why}", path.display()))?;
            let text = String::from_utf8(text).map_err(|_| anyhow!("{}: not UTF-8 text", path.display()))?;
            Some(signature::parse_allowed_signers(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let manifest = Manifest::from_bytes(&bytes).map_err(|e| anyhow!("{}: {e}", manifest_path.display()))?;
    install_stop_handler()?;
    outln!("manifest SHA-256: {digest}");
    let mut mismatches: Vec<Mismatch> = Vec::new();
    if let Some(expected) = &expected {
        if *expected != digest {
            mismatches.push(format!("{MANIFEST_FILE}: SHA-256 {digest}, not the expected {expected}"));
        }
    }
    let (signature_line, signature_mismatch) = check_signature(dir, &manifest, &bytes, allowed.as_deref())?;
    mismatches.extend(signature_mismatch);

    // Exactly the listed files.
    let mut listed: Vec<&str> = manifest
        .outputs
        .iter()
        .chain(&manifest.inputs)
        .map(|f| f.path.as_str())
        .filter(|p| !Path::new(p).is_absolute())
        .collect();
    listed.push(MANIFEST_FILE);
    if std::fs::symlink_metadata(dir.join(SIGNATURE_FILE)).is_ok() {
        listed.push(SIGNATURE_FILE);
    }
    mismatches.extend(unlisted_entries(dir, &listed));
    let mut unreadable: Vec<Unreadable> = Vec::new();
    for files in [&manifest.outputs, &manifest.inputs] {
        let (changed, missing) = compare_hashes(files, |p| at(dir, p));
        mismatches.extend(changed);
        unreadable.extend(missing);
    }
    let files = manifest.outputs.len() + manifest.inputs.len();

    let records = Records {
        sweeps: &manifest.sweeps,
        audits: &manifest.audits,
        chains: &manifest.chains,
        crash_audits: &manifest.crash_audits,
        stake_sweeps: &manifest.stake_sweeps,
        stake_audits: &manifest.stake_audits,
        paytable: manifest.paytable.as_deref(),
        claims: manifest.claims.as_deref(),
        vectors: manifest.vectors.as_deref(),
    };
    let mut reswept = 0u64;
    let mut replayed_games = 0u64;
    let mut not_reswept = Vec::new();
    let mut unchecked: Vec<String> = Vec::new();
    // Recompute only from files known to be regular and of their recorded size: a pinned
    // tally replaced by a link to /dev/zero must be refused, not read.
    let loaded = if unreadable.is_empty() && special_files(dir, &manifest) {
        Err(anyhow!("the dossier holds special files or links (named above); nothing was read from it"))
    } else if unreadable.is_empty() {
        load(dir, &records, manifest.alpha, args.resweep_limit)
    } else {
        Err(anyhow!("pinned files could not be read (named above)"))
    };
    match loaded {
        Err(error) if input::is_interrupted(&error) => return Err(error),
        Err(error) => unreadable.push(Unreadable(format!("cannot recompute the verdicts: {error:#}"))),
        Ok(loaded) => {
            for (sweep, record) in loaded.sweeps.iter().zip(&manifest.sweeps) {
                mismatches.extend(sweep.differing.iter().cloned());
                unchecked.extend(sweep.unchecked.iter().cloned());
                let rounds = sweep.tallies.rounds();
                let found = Recorded { unit: "rounds", holder: "its tallies hold", count: rounds };
                mismatches.extend(record_mismatches(
                    &record.dir,
                    record.rounds,
                    &found,
                    &record.command_line,
                    &sweep.command_line,
                ));
                if rounds > args.resweep_limit {
                    not_reswept.push(format!("{} ({rounds} rounds)", record.source));
                    continue;
                }
                let tally_path = at(dir, &record.dir).join(TALLY_FILE);
                let bytes =
                    std::fs::read(&tally_path).with_context(|| format!("{}/{TALLY_FILE}", record.dir))?;
                if !resweep(&sweep.tallies, &bytes)? {
                    mismatches.push(format!(
                        "{}/{TALLY_FILE}: re-sweeping its plan gives different tallies",
                        record.dir
                    ));
                }
                reswept += rounds;
            }
            for (audit, record) in loaded.audits.iter().zip(&manifest.audits) {
                mismatches.extend(audit.differing.iter().cloned());
                let found = Recorded { unit: "rows", holder: "its history holds", count: audit.audit.rounds };
                mismatches.extend(record_mismatches(
                    &record.dir,
                    record.rows,
                    &found,
                    &record.command_line,
                    &audit.command_line,
                ));
            }
            for (chain, record) in loaded.chains.iter().zip(&manifest.chains) {
                let games = chain.played.tally.games;
                let found = Recorded { unit: "games", holder: "its chain's range holds", count: games };
                mismatches.extend(record_mismatches(
                    &record.dir,
                    record.games,
                    &found,
                    &record.command_line,
                    &chain.command_line,
                ));
                mismatches.extend(chain.differing.iter().cloned());
                replayed_games += games;
            }
            for (audit, record) in loaded.crash_audits.iter().zip(&manifest.crash_audits) {
                mismatches.extend(audit.differing.iter().cloned());
                let found = Recorded { unit: "rows", holder: "its history holds", count: audit.audit.rows };
                mismatches.extend(record_mismatches(
                    &record.dir,
                    record.rows,
                    &found,
                    &record.command_line,
                    &audit.command_line,
                ));
            }
            for (audit, record) in loaded.stake_audits.iter().zip(&manifest.stake_audits) {
                mismatches.extend(audit.differing.iter().cloned());
                let found = Recorded { unit: "rows", holder: "its history holds", count: audit.audit.rows };
                mismatches.extend(record_mismatches(
                    &record.dir,
                    record.rows,
                    &found,
                    &record.command_line,
                    &audit.command_line,
                ));
            }
            for (sweep, record) in loaded.stake_sweeps.iter().zip(&manifest.stake_sweeps) {
                let found =
                    Recorded { unit: "rounds", holder: "its recorded command sweeps", count: sweep.rounds };
                mismatches.extend(record_mismatches(
                    &record.dir,
                    record.rounds,
                    &found,
                    &record.command_line,
                    &sweep.command_line,
                ));
                mismatches.extend(sweep.differing.iter().cloned());
                reswept += sweep.rounds;
            }
            let recomputed = loaded.conclusions().verdicts();
            mismatches.extend(compare_verdicts(MANIFEST_FILE, &manifest.verdicts, &recomputed, true));
            let html = render(&manifest, &loaded);
            match read_bounded(&dir.join("certificate.html"), MANIFEST_LIMIT) {
                Ok(shown) if shown == html.as_bytes() => {}
                Ok(shown) => mismatches.push(format!(
                    "certificate.html: differs from the document its pinned inputs give, from line {}{}",
                    first_difference(&shown, html.as_bytes()),
                    match (&manifest.source_revision, revision()) {
                        (Some(theirs), Some(ours)) if *theirs != ours => format!(
                            " (it was written by fairaudit {theirs}, this is {ours}: a document written by another version is checked with that version)"
                        ),
                        _ => String::new(),
                    }
                )),
                Err(why) => unreadable.push(Unreadable(format!("certificate.html: {why}"))),
            }
            outln!(
                "recomputed {} verdicts from {} sweep(s), {} bet history(ies), {} crash chain(s) and {} worked rounds; certificate.html rendered again",
                recomputed.len(),
                loaded.sweeps.len() + loaded.stake_sweeps.len(),
                loaded.audits.len() + loaded.crash_audits.len() + loaded.stake_audits.len(),
                loaded.chains.len(),
                loaded.worked.len()
            );
        }
    }
    outln!("hashed {files} files; re-swept {reswept} rounds");
    if !manifest.chains.is_empty() {
        outln!("played {replayed_games} crash games again and walked them to their published games");
    }
    if !not_reswept.is_empty() {
        outln!(
            "not re-swept (beyond --resweep-limit {}): {}; their verdicts were recomputed from their pinned tallies",
            args.resweep_limit,
            not_reswept.join(", ")
        );
    }
    for note in &unchecked {
        outln!("note: {note}");
    }
    if let Ok(binary) = binary_hash() {
        if binary.sha256 != manifest.binary.sha256 {
            outln!(
                "note: checked with another fairaudit binary ({}, SHA-256 {}) than the one that wrote the certificate ({} {})",
                env!("CARGO_PKG_VERSION"),
                &binary.sha256[..16],
                manifest.fairaudit_version,
                &manifest.binary.sha256[..16]
            );
        }
    }
    outln!("{signature_line}");
    for mismatch in &mismatches {
        outln!("MISMATCH {mismatch}");
    }
    for Unreadable(why) in &unreadable {
        outln!("CANNOT CHECK {why}");
    }
    if !mismatches.is_empty() {
        outln!("check: {} mismatch(es) in {}", mismatches.len(), dir.display());
        return Ok(Verdict::Finding);
    }
    if !unreadable.is_empty() {
        bail!(
            "{}: {} pinned file(s) or figure(s) could not be checked (listed above)",
            dir.display(),
            unreadable.len()
        );
    }
    outln!("check: every file, hash, figure and verdict of {} matches", dir.display());
    Ok(Verdict::Clean)
}
