//! `fairaudit certify`: the audit certificate of complete sweeps and audited bet
//! histories (`certificate.html`, `certificate.pdf` through headless Chromium where it is
//! installed, `manifest.json`), and `certify --check DIR`, which recomputes every hash and
//! verdict a certificate records. The document is the library's
//! (`report::certificate`), the hashes and verdict keys too (`certify`); this file reads
//! the inputs, runs Chromium, writes the folder, prints and chooses the exit status.

use super::args::{command_line, load_claims, load_paytable, parse_alpha};
use super::audit::Quiet;
use super::folder::{Existing, OutputFolder, OUR_FILES};
use super::input::{self, install_stop_handler, STOP};
use super::output::read_tally;
use super::{Cli, Command, Verdict};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, ValueEnum};
use fairaudit::audit::{audit_history, Audit};
use fairaudit::certify::worked::{choose_rounds, read_vectors, work_round, WorkedRound};
use fairaudit::certify::{
    compare_hashes, compare_verdicts, hash_file, pdf_page_count, AuditPart, AuditRecord, Conclusions,
    FileHash, Manifest, Mismatch, SweepRecord, MANIFEST_FILE, MANIFEST_FORMAT,
};
use fairaudit::chain::{KeccakRequest, Kernel};
use fairaudit::games::GameId;
use fairaudit::report::certificate::{verdicts_in, AuditShown, CertificateDoc, Paper, SweepPart};
use fairaudit::results::RunResults;
use fairaudit::rtp::claims::ClaimVerdict;
use fairaudit::rtp::{check_claim, exact_rtp, ExactRtp, Paytable};
use fairaudit::stats::battery::Battery;
use fairaudit::sweep::{self, SweepControl, DEFAULT_CHUNK};
use fairaudit::tally::file::{TallyFile, TALLY_FILE};
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
    /// The operator's published claims (default: the built-in SPEC §6 claims).
    #[arg(long, value_name = "FILE")]
    claims: Option<PathBuf>,
    /// The operator's name, as the certificate states it.
    #[arg(long, value_name = "NAME", required_unless_present = "check")]
    operator: Option<String>,
    /// Output folder: certificate.html, certificate.pdf, manifest.json.
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
    /// from which the worked rounds are taken.
    #[arg(long, value_name = "DIR", default_value = "../shared/vectors")]
    vectors: PathBuf,
    /// Do not render certificate.pdf (even where Chromium exists).
    #[arg(long)]
    no_pdf: bool,
    /// Check the certificate in DIR: recompute every hash and verdict it records.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sweeps", "audits", "paytable", "claims", "operator", "out", "force", "paper", "no_pdf"])]
    check: Option<PathBuf>,
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

pub fn run(args: CertifyArgs) -> Result<Verdict> {
    match args.check.clone() {
        Some(dir) => check(&dir, &args),
        None => certify(args),
    }
}

/// A sweep read back and concluded.
struct LoadedSweep {
    dir: String,
    tallies: TallyFile,
    results: RunResults,
    command_line: Vec<String>,
}

/// A bet history audited again.
struct LoadedAudit {
    dir: String,
    outcomes: String,
    command_line: Vec<String>,
    audit: Audit,
    battery: Battery,
}

/// Everything a certificate concludes, computed from its inputs (the same way for
/// `certify` and for `--check`).
struct Loaded {
    sweeps: Vec<LoadedSweep>,
    audits: Vec<LoadedAudit>,
    paytable: Paytable,
    claims: Vec<ClaimVerdict>,
    exact: Vec<ExactRtp>,
    worked: Vec<WorkedRound>,
    not_examined: Vec<GameId>,
    /// Extra input files besides the folders' (audit paytables).
    extra_inputs: Vec<PathBuf>,
}

impl Loaded {
    fn conclusions(&self) -> Conclusions<'_> {
        Conclusions {
            sweeps: self.sweeps.iter().map(|s| &s.results).collect(),
            audits: self.audits.iter().map(|a| AuditPart { audit: &a.audit, battery: &a.battery }).collect(),
            claims: &self.claims,
            worked: &self.worked,
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

fn load_sweep(
    dir: &Path,
    paytable: &Paytable,
    claims: &[fairaudit::rtp::claims::Claim],
    alpha: f64,
) -> Result<LoadedSweep> {
    let tally_path = dir.join(TALLY_FILE);
    if !tally_path.is_file() {
        bail!("{}: not a sweep's output folder (no {TALLY_FILE})", dir.display());
    }
    let tallies = read_tally(&tally_path)?;
    if !tallies.complete {
        let plan = &tallies.plan;
        let planned = plan.rounds_per_sequence() * plan.games.len() as u64 * plan.seed_pairs.len() as u64;
        bail!(
            "{}: the sweep is not complete ({} of {planned} rounds tallied: it was interrupted), and a partial sweep cannot be certified; finish it with 'fairaudit sweep --resume' and the same arguments first",
            dir.display(),
            tallies.rounds()
        );
    }
    let (kind, command_line) = run_json(dir).unwrap_or_default();
    if !kind.is_empty() && kind != "sweep" && kind != "merge" {
        bail!(
            "{}: holds the output of a fairaudit {kind}, not of a sweep (pass it with --audit?)",
            dir.display()
        );
    }
    let results = RunResults::compute(&tallies, paytable, claims, alpha);
    Ok(LoadedSweep { dir: display(dir), tallies, results, command_line })
}

/// The audit recorded in `dir`'s run.json, run again.
fn load_audit(dir: &Path, alpha: f64) -> Result<(LoadedAudit, Option<PathBuf>)> {
    let Some((kind, command_line)) = run_json(dir) else {
        bail!("{}: not an audit's output folder (no readable run.json)", dir.display());
    };
    if kind != "audit" {
        bail!(
            "{}: holds the output of a fairaudit {}, not of an audit",
            dir.display(),
            if kind.is_empty() { "run" } else { &kind }
        );
    }
    let parsed =
        Cli::try_parse_from(std::iter::once("fairaudit".to_owned()).chain(command_line.iter().cloned()))
            .map_err(|e| {
                anyhow!(
                    "{}: its run.json records a command fairaudit cannot parse: {}",
                    dir.display(),
                    e.render().to_string().lines().next().unwrap_or_default()
                )
            })?;
    let Command::Audit(args) = parsed.command else {
        bail!("{}: its run.json records a command that is not an audit", dir.display());
    };
    let (game, outcomes, options) =
        args.replay().with_context(|| format!("{}: its paytable", dir.display()))?;
    if outcomes.as_os_str() == "-" {
        bail!("{}: the audit read its history from standard input, which cannot be read again: audit the file itself to certify it", dir.display());
    }
    if !outcomes.is_file() {
        bail!(
            "{}: its bet history {} (from run.json) is not found: run certify from the directory the audit ran in",
            dir.display(),
            outcomes.display()
        );
    }
    let name = display(&outcomes);
    let audit =
        audit_history(game, input::open(&outcomes)?, &options, &mut Quiet).with_context(|| name.clone())?;
    let battery = audit.battery(alpha);
    let paytable = args.paytable_file().map(Path::to_owned);
    Ok((LoadedAudit { dir: display(dir), outcomes: name, command_line, audit, battery }, paytable))
}

fn load_worked(vectors: &Path) -> Result<Vec<WorkedRound>> {
    let read = |name: &str| {
        let path = vectors.join(name);
        let file = input::open(&path).context("the reference vectors (pass --vectors DIR)")?;
        read_vectors(file).with_context(|| display(&path))
    };
    let reference = read("reference-rounds.csv")?;
    let rejection = read("rejection-rounds.csv")?;
    let chosen = choose_rounds(&reference, &rejection);
    if chosen.len() < 3 {
        bail!("{}: the vectors hold no Keno round, no American 00 or no rejection: cannot choose three worked rounds", vectors.display());
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

fn load(
    sweeps: &[PathBuf],
    audits: &[PathBuf],
    paytable_file: Option<&Path>,
    claims_file: Option<&Path>,
    vectors: &Path,
    alpha: f64,
) -> Result<Loaded> {
    if sweeps.is_empty() && audits.is_empty() {
        bail!("nothing to certify: pass at least one --sweep DIR or --audit DIR");
    }
    let paytable = load_paytable(paytable_file)?;
    let claims = load_claims(claims_file)?;
    let sweeps: Vec<LoadedSweep> =
        sweeps.iter().map(|dir| load_sweep(dir, &paytable, &claims, alpha)).collect::<Result<_>>()?;
    let mut loaded_audits = Vec::new();
    let mut extra_inputs = Vec::new();
    for dir in audits {
        let (audit, paytable) = load_audit(dir, alpha)?;
        extra_inputs.extend(paytable);
        loaded_audits.push(audit);
    }
    let in_scope: Vec<GameId> = GameId::ALL
        .into_iter()
        .filter(|g| {
            sweeps.iter().any(|s| s.tallies.plan.games.contains(g))
                || loaded_audits.iter().any(|a| a.audit.game == *g)
        })
        .collect();
    let exact: Vec<ExactRtp> = in_scope.iter().flat_map(|&g| exact_rtp(g, &paytable)).collect();
    let claims =
        claims.iter().filter(|c| in_scope.contains(&c.game)).map(|c| check_claim(c, &exact)).collect();
    let worked = load_worked(vectors)?;
    let not_examined = GameId::ALL.into_iter().filter(|g| !in_scope.contains(g)).collect();
    Ok(Loaded { sweeps, audits: loaded_audits, paytable, claims, exact, worked, not_examined, extra_inputs })
}

/// fairaudit's files in an output folder, by name.
fn folder_files(dir: &Path) -> Vec<PathBuf> {
    OUR_FILES.iter().map(|name| dir.join(name)).filter(|p| p.is_file()).collect()
}

fn hash_inputs(args: &CertifyArgs, loaded: &Loaded) -> Result<Vec<FileHash>> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for dir in &args.sweeps {
        paths.extend(folder_files(dir));
    }
    for (dir, audit) in args.audits.iter().zip(&loaded.audits) {
        paths.extend(folder_files(dir));
        paths.push(PathBuf::from(&audit.outcomes));
    }
    paths.extend(loaded.extra_inputs.iter().cloned());
    paths.extend(args.paytable.iter().cloned());
    paths.extend(args.claims.iter().cloned());
    paths.push(args.vectors.join("reference-rounds.csv"));
    paths.push(args.vectors.join("rejection-rounds.csv"));
    let mut hashes: Vec<FileHash> = Vec::new();
    for path in paths {
        let name = display(&path);
        if hashes.iter().any(|h| h.path == name) {
            continue;
        }
        hashes.push(hash_file(&path, name).with_context(|| format!("{}: cannot read", path.display()))?);
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

fn check_operator(name: &str) -> Result<()> {
    if name.trim().is_empty() {
        bail!("--operator is empty: name the operator the certificate is for");
    }
    if name.chars().count() > 200 || name.chars().any(char::is_control) {
        bail!("--operator must be one line of at most 200 characters");
    }
    Ok(())
}

fn certify(args: CertifyArgs) -> Result<Verdict> {
    let started = SystemTime::now();
    let operator = args.operator.clone().expect("clap requires --operator without --check");
    check_operator(&operator)?;
    let out = args.out.clone().expect("clap requires --out without --check");
    for dir in args.sweeps.iter().chain(&args.audits) {
        if dir.canonicalize().ok().is_some_and(|d| out.canonicalize().ok() == Some(d)) {
            bail!("--out {} is one of the input folders: choose another", out.display());
        }
    }
    // Claim the folder before the work: a refusal writes nothing.
    let (folder, existing) = OutputFolder::claim(&out)?;
    if let (Existing::Run { kind }, false) = (existing, args.force) {
        let what = if kind.is_empty() { "an earlier run".to_owned() } else { format!("a fairaudit {kind}") };
        bail!(
            "{} holds the output of {what}; choose another --out, or pass --force to replace it",
            out.display()
        );
    }
    install_stop_handler()?;
    let loaded = load(
        &args.sweeps,
        &args.audits,
        args.paytable.as_deref(),
        args.claims.as_deref(),
        &args.vectors,
        args.alpha,
    )?;
    let paper = match args.paper {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    };
    let conclusions = loaded.conclusions();
    let mut manifest = Manifest {
        format: MANIFEST_FORMAT.into(),
        version: 1,
        fairaudit_version: env!("CARGO_PKG_VERSION").into(),
        source_revision: revision(),
        binary: binary_hash()?,
        created_at: humantime::format_rfc3339_seconds(started).to_string(),
        operator: operator.clone(),
        command_line: command_line(),
        alpha: args.alpha,
        paper: paper.name().into(),
        paytable: args.paytable.as_deref().map(display),
        claims: args.claims.as_deref().map(display),
        vectors: display(&args.vectors),
        sweeps: loaded
            .sweeps
            .iter()
            .map(|s| SweepRecord {
                dir: s.dir.clone(),
                command_line: s.command_line.clone(),
                rounds: s.tallies.rounds(),
            })
            .collect(),
        audits: loaded
            .audits
            .iter()
            .map(|a| AuditRecord {
                dir: a.dir.clone(),
                command_line: a.command_line.clone(),
                outcomes: a.outcomes.clone(),
                rows: a.audit.rounds,
            })
            .collect(),
        inputs: hash_inputs(&args, &loaded)?,
        outputs: Vec::new(),
        pdf_pages: None,
        verdicts: conclusions.verdicts(),
    };
    let doc = CertificateDoc {
        manifest: &manifest,
        sweeps: loaded
            .sweeps
            .iter()
            .map(|s| SweepPart { dir: &s.dir, tallies: &s.tallies, results: &s.results })
            .collect(),
        audits: loaded.audits.iter().map(|a| AuditShown { dir: &a.dir, outcomes: &a.outcomes }).collect(),
        conclusions: &conclusions,
        exact: &loaded.exact,
        paytable: &loaded.paytable,
        not_examined: loaded.not_examined.clone(),
        resweep_limit: args.resweep_limit,
    };
    let html = doc.render();
    folder.write("certificate.html", html.as_bytes())?;
    let mut outputs = vec![hash_file(&folder.staged("certificate.html"), "certificate.html".into())?];
    if !args.no_pdf {
        if let Some(pages) = render_pdf(&folder)? {
            outputs.push(hash_file(&folder.staged("certificate.pdf"), "certificate.pdf".into())?);
            manifest.pdf_pages = Some(pages);
        }
    }
    manifest.outputs = outputs;
    folder.write(MANIFEST_FILE, &manifest.to_bytes())?;
    folder.commit()?;

    outln!("certificate for {operator}: {}", conclusions.overall());
    for (i, s) in loaded.sweeps.iter().enumerate() {
        let counts = s.results.battery.counts();
        outln!(
            "  sweep {} ({}): {} rounds, {} tests: {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
            i + 1,
            s.dir,
            s.tallies.rounds(),
            s.results.battery.results.len(),
            counts.pass,
            counts.weak,
            counts.fail,
            counts.insufficient,
            s.results.battery.overall().as_str()
        );
    }
    for (i, a) in loaded.audits.iter().enumerate() {
        outln!(
            "  bet history {} ({}): {} rows, {} mismatches, row checks {}, battery {}",
            i + 1,
            a.outcomes,
            a.audit.rounds,
            a.audit.mismatches,
            fairaudit::certify::rows_text(&a.audit),
            a.battery.overall().as_str()
        );
    }
    let illustrative = loaded.paytable.is_illustrative();
    for claim in &loaded.claims {
        outln!(
            "  claim {} rtp {}%: {}{}",
            claim.claim.game,
            claim.claim.figure_text,
            fairaudit::certify::claim_text(claim),
            if claim.claim.game == GameId::Keno && illustrative {
                " (against the ILLUSTRATIVE example paytable)"
            } else {
                ""
            }
        );
    }
    let reproduced = loaded.worked.iter().filter(|w| w.matches()).count();
    let rejections: usize = loaded.worked.iter().map(WorkedRound::rejections).sum();
    outln!(
        "  worked rounds: {reproduced} of {} reproduce their vectors ({rejections} rejected word(s) shown)",
        loaded.worked.len()
    );
    let pdf = match manifest.pdf_pages {
        Some(pages) => format!(", certificate.pdf ({pages} pages)"),
        None => String::new(),
    };
    outln!("output: {} (certificate.html{pdf}, manifest.json)", out.display());
    Ok(if conclusions.has_finding() { Verdict::Finding } else { Verdict::Clean })
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
    let profile = tempfile::tempdir()?;
    // The flags of scripts/check-report.sh: no sandbox (CI runs as root), no GPU, no
    // network noise; no browser header and footer (the page's own CSS has them).
    let mut child = std::process::Command::new(&chromium)
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
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--print-to-pdf={}", pdf_abs.display()))
        .arg(format!("file://{}", html.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", chromium.display()))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() > CHROMIUM_TIMEOUT || input::stopped() {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
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
fn resweep(sweep: &LoadedSweep, tally_bytes: &[u8]) -> Result<bool> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| anyhow!("cannot start {threads} worker threads: {error}"))?;
    let kernel = Kernel::select(KeccakRequest::Auto)?;
    let progress = |_: u64| {};
    let control = SweepControl { chunk: DEFAULT_CHUNK, stop: &STOP, progress: &progress, kernel };
    let again = pool.install(|| sweep::run(&sweep.tallies.plan, None, &control))?;
    if !again.complete {
        return Err(anyhow::Error::new(input::Interrupted));
    }
    Ok(again.to_bytes() == tally_bytes)
}

fn check(dir: &Path, args: &CertifyArgs) -> Result<Verdict> {
    let manifest_path = dir.join(MANIFEST_FILE);
    let bytes = std::fs::read(&manifest_path)
        .with_context(|| format!("{}: cannot read (not a certificate folder?)", manifest_path.display()))?;
    let manifest = Manifest::from_bytes(&bytes).map_err(|e| anyhow!("{}: {e}", manifest_path.display()))?;
    install_stop_handler()?;
    let mut mismatches: Vec<Mismatch> = Vec::new();
    mismatches.extend(compare_hashes(&manifest.outputs, |p| dir.join(p)));
    mismatches.extend(compare_hashes(&manifest.inputs, |p| PathBuf::from(p)));
    let files = manifest.outputs.len() + manifest.inputs.len();

    let sweeps: Vec<PathBuf> = manifest.sweeps.iter().map(|s| PathBuf::from(&s.dir)).collect();
    let audits: Vec<PathBuf> = manifest.audits.iter().map(|a| PathBuf::from(&a.dir)).collect();
    let loaded = load(
        &sweeps,
        &audits,
        manifest.paytable.as_deref().map(Path::new),
        manifest.claims.as_deref().map(Path::new),
        Path::new(&manifest.vectors),
        manifest.alpha,
    );
    let mut reswept = 0u64;
    let mut not_reswept = Vec::new();
    match loaded {
        Err(error) if input::is_interrupted(&error) => return Err(error),
        Err(error) => mismatches.push(format!("cannot recompute the verdicts: {error:#}")),
        Ok(loaded) => {
            for sweep in &loaded.sweeps {
                let rounds = sweep.tallies.rounds();
                if rounds > args.resweep_limit {
                    not_reswept.push(format!("{} ({rounds} rounds)", sweep.dir));
                    continue;
                }
                let tally_path = Path::new(&sweep.dir).join(TALLY_FILE);
                let bytes = std::fs::read(&tally_path).with_context(|| display(&tally_path))?;
                if !resweep(sweep, &bytes)? {
                    mismatches.push(format!(
                        "{}: re-sweeping its plan gives different tallies",
                        tally_path.display()
                    ));
                }
                reswept += rounds;
            }
            let recomputed = loaded.conclusions().verdicts();
            mismatches.extend(compare_verdicts(MANIFEST_FILE, &manifest.verdicts, &recomputed, true));
            let html_path = dir.join("certificate.html");
            match std::fs::read_to_string(&html_path) {
                Ok(html) => {
                    let shown = verdicts_in(&html);
                    if shown.is_empty() {
                        mismatches.push("certificate.html: shows no verdict fairaudit can read".into());
                    }
                    mismatches.extend(compare_verdicts("certificate.html", &shown, &recomputed, false));
                }
                Err(error) => mismatches.push(format!("certificate.html: cannot read ({error})")),
            }
            outln!(
                "recomputed {} verdicts from {} sweep(s), {} bet history(ies) and {} worked rounds",
                recomputed.len(),
                loaded.sweeps.len(),
                loaded.audits.len(),
                loaded.worked.len()
            );
        }
    }
    outln!("hashed {files} files; re-swept {reswept} rounds");
    if !not_reswept.is_empty() {
        outln!(
            "not re-swept (beyond --resweep-limit {}): {}; their verdicts were recomputed from their pinned tallies",
            args.resweep_limit,
            not_reswept.join(", ")
        );
    }
    if let Ok(binary) = binary_hash() {
        if binary.sha256 != manifest.binary.sha256 {
            outln!(
                "note: checked with another fairaudit binary ({}, SHA-256 {}) than the one that wrote the certificate ({} {})",
                env!("CARGO_PKG_VERSION"),
                &binary.sha256[..16],
                manifest.fairaudit_version,
                &manifest.binary.sha256[..manifest.binary.sha256.len().min(16)]
            );
        }
    }
    if mismatches.is_empty() {
        outln!("check: every hash and every verdict of {} matches", dir.display());
        return Ok(Verdict::Clean);
    }
    for mismatch in &mismatches {
        outln!("MISMATCH {mismatch}");
    }
    outln!("check: {} mismatch(es) in {}", mismatches.len(), dir.display());
    Ok(Verdict::Finding)
}
