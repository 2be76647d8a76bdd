//! The dossier planned and written: which files of each input are copied where, the
//! records naming the copies, and the copies hashed.

use super::loaded::Records;
use super::recorded::{audit_command, scheme_sweep, ChainCommand, RecordedRun, RunJson, SchemeSweep};
use super::{display, CertifyArgs};
use crate::cli::args::AuditArgs;
use crate::cli::folder::{OutputFolder, OUR_FILES};
use anyhow::{anyhow, bail, Context, Result};
use fairaudit::certify::{hash_file, AuditRecord, ChainRecord, FileHash, SweepRecord, INPUTS_DIR};
use fairaudit::tally::file::TALLY_FILE;
use std::path::{Path, PathBuf};

/// fairaudit's files in an output folder, each with its path in the dossier under `rel`.
pub(super) fn folder_copies(dir: &Path, rel: &str) -> Vec<(PathBuf, String)> {
    let files = OUR_FILES.iter().map(|name| dir.join(name)).filter(|p| p.is_file());
    files
        .map(|file| {
            let name = plain_name(&file, "file");
            (file, format!("{rel}/{name}"))
        })
        .collect()
}

/// A file name safe to keep in the dossier: the original when it is plain, else `fallback`.
pub(super) fn plain_name(path: &Path, fallback: &str) -> String {
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
pub(super) struct Dossier {
    /// (source, path in the dossier) of each file copied.
    pub(super) copies: Vec<(PathBuf, String)>,
    /// Histories left where they are (absolute paths).
    pub(super) in_place: Vec<PathBuf>,
    pub(super) sweeps: Vec<SweepRecord>,
    pub(super) audits: Vec<AuditRecord>,
    pub(super) chains: Vec<ChainRecord>,
    pub(super) crash_audits: Vec<AuditRecord>,
    pub(super) stake_sweeps: Vec<SweepRecord>,
    pub(super) stake_audits: Vec<AuditRecord>,
    pub(super) paytable: Option<String>,
    pub(super) claims: Option<String>,
    pub(super) vectors: Option<String>,
}

impl Dossier {
    pub(super) fn records(&self) -> Records<'_> {
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
pub(super) fn plan_dossier(args: &CertifyArgs) -> Result<Dossier> {
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
        let rel = format!("{INPUTS_DIR}/sweep-{}", sweeps.len() + 1);
        sweeps.push(sweep_record(dir, rel, &mut copies)?);
    }
    let mut audits = Vec::new();
    let mut crash_audits = Vec::new();
    let mut stake_audits = Vec::new();
    for dir in &args.audits {
        let (run, audit) = audit_command(dir, &display(dir))?;
        // Which list the history goes to, and its folder's name in the dossier.
        let (list, name) = match audit.scheme {
            Some(scheme) if scheme.crash_variant().is_some() => (&mut crash_audits, "crash-audit"),
            Some(scheme) if fairaudit::scheme::keyed::KeyedScheme::of(scheme).is_some() => {
                (&mut stake_audits, "stake-audit")
            }
            _ => (&mut audits, "audit"),
        };
        let rel = format!("{INPUTS_DIR}/{name}-{}", list.len() + 1);
        list.push(audit_record(dir, run, &audit, rel, args.no_copy_histories, &mut copies, &mut in_place)?);
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
    for name in fairaudit::certify::VECTOR_FILES {
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

/// The record of a sweep (or merge) of the default scheme at `dir`, copied to `rel`: its
/// folder, and its own paytable and claims files, so that its rtp.csv and report.html can
/// be made again from the dossier.
fn sweep_record(dir: &Path, rel: String, copies: &mut Vec<(PathBuf, String)>) -> Result<SweepRecord> {
    let run = RunJson::read(dir).unwrap_or_default();
    let kind = &run.kind;
    if !kind.is_empty() && kind != "sweep" && kind != "merge" {
        bail!(
            "{}: holds the output of a fairaudit {kind}, not of a sweep (pass it with --audit?)",
            dir.display()
        );
    }
    copies.extend(folder_copies(dir, &rel));
    // Its own paytable and claims files, copied as an audit's are, so that its rtp.csv
    // and report.html can be made again from the dossier.
    // (A folder without a run.json names none; loading it says what it lacks.)
    let (paytable_file, claims_file) = if kind.is_empty() {
        (None, None)
    } else {
        let recorded = RecordedRun::parse(&run.command_line, &display(dir))?;
        let named = |file: &Option<PathBuf>| -> Result<Option<(PathBuf, PathBuf)>> {
            file.as_deref()
                .map(|file| Ok((file.to_path_buf(), run.named_file(file).with_context(|| display(dir))?)))
                .transpose()
        };
        (named(&recorded.report().paytable)?, named(&recorded.report().claims)?)
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
                run.not_found_hint()
            );
        }
        let to = format!("{rel}/{what}/{}", plain_name(&from, what));
        copies.push((from, to.clone()));
        Ok(Some(to))
    };
    let paytable = own(paytable_file, "paytable")?;
    let claims = own(claims_file, "claims")?;
    Ok(SweepRecord {
        dir: rel,
        source: display(dir),
        command_line: run.command_line,
        rounds: 0,
        paytable,
        claims,
    })
}

/// The record of the audit at `dir` (its `run.json` and command), copied to `rel`: its
/// folder, its history (or, with `no_copy_histories`, the history's absolute path, kept in
/// `in_place`) and its paytable and columns files.
fn audit_record(
    dir: &Path,
    run: RunJson,
    audit: &AuditArgs,
    rel: String,
    no_copy_histories: bool,
    copies: &mut Vec<(PathBuf, String)>,
    in_place: &mut Vec<PathBuf>,
) -> Result<AuditRecord> {
    let (named_outcomes, paytable, columns) = audit.files();
    if named_outcomes.as_os_str() == "-" {
        bail!("{}: the audit read its history from standard input, which cannot be read again: audit the file itself to certify it", dir.display());
    }
    let outcomes = run.named_file(&named_outcomes).with_context(|| display(dir))?;
    if !outcomes.is_file() {
        bail!(
            "{}: its bet history {} (from run.json) is not found: {}",
            dir.display(),
            named_outcomes.display(),
            run.not_found_hint()
        );
    }
    let (paytable, columns) = (
        paytable.map(|file| run.named_file(&file)).transpose().with_context(|| display(dir))?,
        columns.map(|file| run.named_file(&file)).transpose().with_context(|| display(dir))?,
    );
    copies.extend(folder_copies(dir, &rel));
    let history = if no_copy_histories {
        let absolute = outcomes.canonicalize().with_context(|| display(&outcomes))?;
        in_place.push(absolute.clone());
        absolute.to_str().ok_or_else(|| anyhow!("{}: the path is not UTF-8", absolute.display()))?.to_owned()
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
    Ok(AuditRecord {
        dir: rel,
        source: display(dir),
        command_line: run.command_line,
        outcomes_source: display(&named_outcomes),
        outcomes: history,
        paytable,
        columns,
        rows: 0,
    })
}

/// The first entry of the claimed folder (when it exists) that fairaudit cannot prove it
/// wrote ([`OutputFolder::is_ours`]: a user's `inputs/` or `manifest.json` is not), shown
/// as its name.
pub(super) fn foreign_entry(folder: &OutputFolder) -> Result<Option<String>> {
    let dir = folder.target();
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|entry| entry.map(|e| e.file_name()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("cannot read {}", dir.display()))?;
    names.sort();
    Ok(names
        .into_iter()
        .find(|name| !folder.is_ours(name))
        .map(|name| fairaudit::fields::Excerpt(&name.to_string_lossy()).to_string()))
}

/// Copies the dossier's files into the staged folder and hashes the copies (and the
/// histories left in place).
pub(super) fn write_dossier(folder: &OutputFolder, dossier: &Dossier) -> Result<Vec<FileHash>> {
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
