//! Bet histories audited again from a dossier's copies (default scheme, crash games, the
//! HMAC-SHA256 family), with their findings hashed as they come and their files compared
//! with what the audit writes.

use super::loaded::{
    at, compare_folder, named_paytable, paytable_at, Expected, LoadedAudit, LoadedCrashAudit,
    LoadedStakeAudit,
};
use super::recorded::audit_command;
use super::sweeps::OPTIONAL_FILES;
use crate::cli::args::AuditArgs;
use crate::cli::audit::FirstFindings;
use crate::cli::input;
use anyhow::{bail, Context, Result};
use fairaudit::audit::audit_history;
use fairaudit::certify::{hash_file, AuditRecord, Mismatch};
use fairaudit::report::results::RowChecks;
use fairaudit::rtp::Paytable;
use fairaudit::stats::battery::Battery;
use std::path::{Path, PathBuf};

/// Findings listed on the certificate's page, per bet history (all are in its pinned
/// findings.csv).
const FINDINGS_LISTED: usize = 50;

/// The audit a record names, run again from the dossier's copies of its files.
pub(super) fn load_audit(root: &Path, record: &AuditRecord, alpha: f64) -> Result<LoadedAudit> {
    let (run, args) = audit_command(&at(root, &record.dir), &record.dir)?;
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
    let made_by = run.made_by();
    let report_paytable = match (&record.paytable, &paytable_file) {
        (Some(rel), Some(named)) => named_paytable(root, rel, named)?,
        _ => Paytable::example(),
    };
    let own_battery = audit.battery(args.alpha);
    let given = crate::cli::audit::audit_files(
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
    Ok(LoadedAudit {
        command_line: run.command_line,
        audit,
        battery,
        findings: findings.first.kept,
        differing,
    })
}

/// The files an audit of the default scheme writes, beside the copies of its history
/// (and of its paytable and `--columns` file, where it names them).
pub(super) const DEFAULT_AUDIT_FILES: [&str; 8] = [
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
pub(super) fn load_crash_audit(root: &Path, record: &AuditRecord, alpha: f64) -> Result<LoadedCrashAudit> {
    let (run, args) = audit_command(&at(root, &record.dir), &record.dir)?;
    let Some((scheme, variant)) = args.scheme.and_then(|s| Some((s, s.crash_variant()?))) else {
        bail!("{}: its run.json records no audit of a crash game", record.dir);
    };
    let (layout, history) = history_layout(root, &args, record, &fairaudit::audit::crash::FIELDS, false)?;
    let mut findings = AuditFindings::new()?;
    let audit = fairaudit::audit::crash::audit_crash_history(
        input::open(&history)?,
        &layout,
        variant,
        scheme.name(),
        args.payout_tolerance,
        |finding| findings.take(finding),
    )
    .with_context(|| record.outcomes.clone())?;
    let own_battery = fairaudit::stats::crash::battery(variant, &audit.tally, args.alpha);
    let rows = RowChecks { findings: &audit.findings, any: audit.has_row_checks() };
    let differing = findings.compare(root, record, &own_battery, rows, Vec::new(), WithGaps(false))?;
    let battery = fairaudit::stats::crash::battery(variant, &audit.tally, alpha);
    Ok(LoadedCrashAudit {
        command_line: run.command_line,
        variant,
        audit,
        battery,
        findings: findings.first.kept,
        differing,
    })
}

/// A bet history of the HMAC-SHA256 family a record names, audited again from the
/// dossier's copies.
pub(super) fn load_stake_audit(root: &Path, record: &AuditRecord, alpha: f64) -> Result<LoadedStakeAudit> {
    let (run, args) = audit_command(&at(root, &record.dir), &record.dir)?;
    if args.scheme.and_then(fairaudit::scheme::keyed::KeyedScheme::of).is_none() {
        bail!(
            "{}: its run.json records no audit of a keyed scheme ({})",
            record.dir,
            fairaudit::scheme::keyed::KeyedScheme::names()
        );
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
    let (layout, history) = history_layout(root, &args, record, &fairaudit::audit::stake::FIELDS, true)?;
    let revealed =
        fairaudit::audit::stake::stake_revealed_seeds(input::open(&history)?, &layout, args.keyed_scheme())
            .with_context(|| record.outcomes.clone())?;
    let mut findings = AuditFindings::new()?;
    let audit = fairaudit::audit::stake::audit_stake_history(
        input::open(&history)?,
        &revealed,
        &layout,
        &args.stake_options(paytable.as_ref()),
        &mut findings,
    )
    .with_context(|| record.outcomes.clone())?;
    if audit.rows == 0 {
        bail!("{}: the history holds no rows: there is nothing to certify", record.outcomes);
    }
    let own_battery = audit.battery(args.alpha);
    // rtp.csv and report.html, made again from the audit and what its run.json records
    // of who made it when (the history's name as its command gave it).
    let made_by = run.made_by();
    let source = args.outcomes.display().to_string();
    let more = fairaudit::app::keyed_audit::stake_audit_files(
        &audit,
        &own_battery,
        &findings.shown.kept,
        &source,
        &made_by,
    );
    let rows = RowChecks { findings: &audit.findings, any: audit.has_row_checks() };
    let differing = findings.compare(root, record, &own_battery, rows, more, WithGaps(true))?;
    let battery = audit.battery(alpha);
    Ok(LoadedStakeAudit {
        command_line: run.command_line,
        audit,
        battery,
        findings: findings.first.kept,
        differing,
    })
}

/// Whether an audit of a scheme other than the default writes nonce_gaps.csv (scheme
/// stake's does, a crash game's not).
pub(super) struct WithGaps(pub(super) bool);

/// The files of an audit of a scheme other than the default (its `conclude_scheme_audit`),
/// beside the copies of its history and `--columns` file (and of its paytable, where it
/// names one).
pub(super) const SCHEME_AUDIT_FILES: [&str; 6] =
    ["findings.csv", "tests.csv", "summary.json", "run.json", "history", "columns"];

/// The findings of a history audited again: the first ones, as the certificate lists
/// them, and findings.csv as the audit writes it, hashed as the findings come rather than
/// held (a history can have millions).
pub(super) struct AuditFindings {
    pub(super) first: FirstFindings,
    /// The first findings as an audit's report.html shows them.
    pub(super) shown: FirstFindings,
    pub(super) csv: csv::Writer<HashingWriter>,
    /// nonce_gaps.csv as an audit of the default scheme or of scheme stake writes it
    /// (crash audits report no gaps and write no such file).
    pub(super) gaps: csv::Writer<HashingWriter>,
    pub(super) error: Option<csv::Error>,
}

/// A writer that keeps only the SHA-256 of what it is given.
#[derive(Default)]
pub(super) struct HashingWriter(pub(super) sha2::Sha256);

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
        if let Err(error) = self.gaps.write_record(crate::cli::audit_output::gaps_row(gap)) {
            self.error.get_or_insert(error);
        }
    }
}

impl AuditFindings {
    pub(super) fn new() -> Result<Self> {
        let mut csv = fairaudit::report::csv_writer(HashingWriter::default());
        csv.write_record(crate::cli::audit_output::FINDINGS_HEADER)?;
        let mut gaps = fairaudit::report::csv_writer(HashingWriter::default());
        gaps.write_record(crate::cli::audit_output::GAPS_HEADER)?;
        Ok(Self {
            first: FirstFindings { limit: FINDINGS_LISTED, kept: Vec::new() },
            shown: FirstFindings { limit: fairaudit::report::audit_html::FINDINGS_SHOWN, kept: Vec::new() },
            csv,
            gaps,
            error: None,
        })
    }

    pub(super) fn take(&mut self, finding: &fairaudit::audit::Finding) {
        fairaudit::audit::AuditObserver::finding(&mut self.first, finding);
        fairaudit::audit::AuditObserver::finding(&mut self.shown, finding);
        if let Err(error) = self.csv.write_record(crate::cli::audit_output::findings_row(finding)) {
            self.error.get_or_insert(error);
        }
    }

    /// Each file of the audit's dossier copy that auditing its history again does not
    /// give: findings.csv (and nonce_gaps.csv, `gaps`), tests.csv and summary.json at the audit's own level
    /// (`battery`), the scheme's `more` files, and each file no such audit writes (those
    /// of every scheme and the names in `more`).
    pub(super) fn compare<G: serde::Serialize + Copy + Ord + std::fmt::Display>(
        &mut self,
        root: &Path,
        record: &AuditRecord,
        battery: &Battery<G>,
        rows: RowChecks<'_>,
        more: Vec<(&str, Vec<u8>)>,
        gaps: WithGaps,
    ) -> Result<Vec<Mismatch>> {
        let mut given = fairaudit::app::scheme_audit::verdict_files(battery, rows).to_vec();
        let mut files = SCHEME_AUDIT_FILES.to_vec();
        if record.paytable.is_some() {
            // The copy of the Keno paytable of an audit of scheme stake.
            files.push("paytable");
        }
        files.extend(more.iter().map(|(name, _)| *name));
        if gaps.0 {
            files.push("nonce_gaps.csv");
        }
        given.extend(more);
        let expected =
            Expected { files: &files, optional: &OPTIONAL_FILES, writer: "an audit", origin: "history" };
        let dir = at(root, &record.dir);
        let mut differing = compare_folder(&dir, &record.dir, &expected, &given, &[])?;
        differing.extend(self.findings_csv_mismatch(&dir, &record.dir)?);
        if gaps.0 {
            differing.extend(self.gaps_csv_mismatch(&dir, &record.dir)?);
        }
        Ok(differing)
    }

    /// The audit folder `dir`'s findings.csv (named `rel`), when it is not every finding
    /// the history gave again, in the audit's own form.
    pub(super) fn findings_csv_mismatch(&mut self, dir: &Path, rel: &str) -> Result<Option<Mismatch>> {
        if let Some(error) = self.error.take() {
            return Err(error).context("cannot hash findings.csv");
        }
        let csv = std::mem::replace(&mut self.csv, fairaudit::report::csv_writer(HashingWriter::default()));
        csv_mismatch(csv, dir, rel, "findings.csv")
    }

    /// The same for nonce_gaps.csv (an audit of the default scheme): every gap the history
    /// gave again, in the audit's own form.
    pub(super) fn gaps_csv_mismatch(&mut self, dir: &Path, rel: &str) -> Result<Option<Mismatch>> {
        if let Some(error) = self.error.take() {
            return Err(error).context("cannot hash nonce_gaps.csv");
        }
        let gaps = std::mem::replace(&mut self.gaps, fairaudit::report::csv_writer(HashingWriter::default()));
        csv_mismatch(gaps, dir, rel, "nonce_gaps.csv")
    }
}

/// The file `name` of the audit folder `dir` (named `rel`), when its SHA-256 is not that
/// of what `csv` was given.
pub(super) fn csv_mismatch(
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
pub(super) fn hex_digest(hasher: sha2::Sha256) -> String {
    sha2::Digest::finalize(hasher).iter().map(|b| format!("{b:02x}")).collect()
}

/// The layout of the history of an audit of a scheme other than the default (`fields`,
/// mapped by the dossier's copy of its `--columns` file when its command names one), and
/// where the history's copy is; an error when the command and the dossier disagree, or when
/// either names a paytable and the scheme `takes_paytable` not (its caller reads it).
pub(super) fn history_layout(
    root: &Path,
    args: &AuditArgs,
    record: &AuditRecord,
    fields: &[&str],
    takes_paytable: bool,
) -> Result<(fairaudit::columns::CsvLayout, PathBuf)> {
    let (_, paytable_file, columns_file) = args.files();
    if (!takes_paytable && (paytable_file.is_some() || record.paytable.is_some()))
        || columns_file.is_some() != record.columns.is_some()
    {
        bail!("{}: its command and the dossier disagree on its paytable or --columns file", record.dir);
    }
    let columns = record.columns.as_deref().map(|rel| at(root, rel));
    let layout = args.layout.layout_from(fields, columns.as_deref()).with_context(|| record.dir.clone())?;
    Ok((layout, at(root, &record.outcomes)))
}
