//! What a loaded dossier is (each input run again from its copies, and the conclusions a
//! certificate states from them), where its files are, and the comparison of an input's
//! copied files with what running it again gives. [`super::load`] loads one.

use crate::cli::input;
use anyhow::{Context, Result};
use fairaudit::certify::worked::WorkedRound;
use fairaudit::certify::{
    AuditPart, AuditRecord, ChainPart, ChainRecord, Conclusions, CrashAuditPart, Mismatch, StakeAuditPart,
    StakeSweepPart, SweepRecord,
};
use fairaudit::games::GameId;
use fairaudit::report::crash::CrashPlan;
use fairaudit::report::stake::StakePlan;
use fairaudit::results::RunResults;
use fairaudit::rtp::claims::ClaimVerdict;
use fairaudit::rtp::paytable::PaytableOrigin;
use fairaudit::rtp::{ExactRtp, Paytable};
use fairaudit::scheme::crash::CrashVariant;
use fairaudit::scheme::stake::StakeGame;
use fairaudit::stats::battery::Battery;
use fairaudit::stats::crash::CrashGame;
use fairaudit::sweep::crash::{ChainLink, PlayedChain};
use fairaudit::tally::file::TallyFile;
use std::path::{Path, PathBuf};

/// A sweep read back from the dossier and concluded.
pub(super) struct LoadedSweep {
    pub(super) tallies: TallyFile,
    pub(super) results: RunResults,
    pub(super) command_line: Vec<String>,
    /// The sweep's files in the dossier that its tallies, run.json and own options do not
    /// give again, byte for byte.
    pub(super) differing: Vec<Mismatch>,
    /// Its files that could not be made again, and why (a certificate written before
    /// certify copied a sweep's own paytable and claims files).
    pub(super) unchecked: Option<String>,
}

/// A bet history audited again from the dossier.
pub(super) struct LoadedAudit {
    pub(super) command_line: Vec<String>,
    pub(super) audit: fairaudit::audit::Audit,
    pub(super) battery: Battery,
    /// The first findings, as the certificate lists them.
    pub(super) findings: Vec<fairaudit::audit::Finding>,
    /// Its findings.csv, when auditing the history again does not give it.
    pub(super) differing: Vec<Mismatch>,
}

/// A bet history of a crash game audited again from the dossier.
pub(super) struct LoadedCrashAudit {
    pub(super) command_line: Vec<String>,
    pub(super) variant: CrashVariant,
    pub(super) audit: fairaudit::audit::crash::CrashAudit,
    pub(super) battery: Battery<CrashGame>,
    /// The first findings, as the certificate lists them.
    pub(super) findings: Vec<fairaudit::audit::Finding>,
    /// The audit's files in the dossier that auditing the history again does not give.
    pub(super) differing: Vec<Mismatch>,
}

/// A bet history of the HMAC-SHA256 family audited again from the dossier.
pub(super) struct LoadedStakeAudit {
    pub(super) command_line: Vec<String>,
    pub(super) audit: fairaudit::audit::stake::StakeAudit,
    pub(super) battery: Battery<StakeGame>,
    /// The first findings, as the certificate lists them.
    pub(super) findings: Vec<fairaudit::audit::Finding>,
    /// The audit's files in the dossier that auditing the history again does not give.
    pub(super) differing: Vec<Mismatch>,
}

/// A crash chain played again from the command its sweep recorded.
pub(super) struct LoadedChain {
    pub(super) command_line: Vec<String>,
    pub(super) plan: CrashPlan,
    pub(super) variant: CrashVariant,
    pub(super) played: PlayedChain,
    pub(super) link: ChainLink,
    /// At the certificate's level.
    pub(super) battery: Battery<CrashGame>,
    /// The sweep's files in the dossier that the chain does not give again, byte for byte.
    pub(super) differing: Vec<Mismatch>,
}

/// A sweep of a game of the HMAC-SHA256 family swept again from the command it recorded.
pub(super) struct LoadedStakeSweep {
    pub(super) command_line: Vec<String>,
    pub(super) plan: StakePlan,
    pub(super) game: StakeGame,
    pub(super) rounds: u64,
    /// At the certificate's level.
    pub(super) battery: Battery<StakeGame>,
    /// The sweep's files in the dossier that sweeping it again does not give byte for byte.
    pub(super) differing: Vec<Mismatch>,
}

/// Everything a certificate concludes, computed from its dossier (the same way for
/// `certify`, from the copies it has just made, and for `--check`).
pub(super) struct Loaded {
    pub(super) sweeps: Vec<LoadedSweep>,
    pub(super) audits: Vec<LoadedAudit>,
    pub(super) chains: Vec<LoadedChain>,
    pub(super) crash_audits: Vec<LoadedCrashAudit>,
    pub(super) stake_sweeps: Vec<LoadedStakeSweep>,
    pub(super) stake_audits: Vec<LoadedStakeAudit>,
    pub(super) paytable: Paytable,
    pub(super) claims: Vec<ClaimVerdict>,
    pub(super) exact: Vec<ExactRtp>,
    pub(super) worked: Vec<WorkedRound>,
    pub(super) not_examined: Vec<GameId>,
}

impl Loaded {
    pub(super) fn conclusions(&self) -> Conclusions<'_> {
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
                .map(|a| StakeAuditPart::new(&a.audit, &a.battery))
                .collect(),
            claims: &self.claims,
            worked: &self.worked,
            illustrative_keno: self.paytable.is_illustrative(),
        }
    }
}

/// Where a certificate's inputs are: the dossier's records (paths relative to `root`).
pub(super) struct Records<'a> {
    pub(super) sweeps: &'a [SweepRecord],
    pub(super) audits: &'a [AuditRecord],
    pub(super) chains: &'a [ChainRecord],
    pub(super) crash_audits: &'a [AuditRecord],
    pub(super) stake_sweeps: &'a [SweepRecord],
    pub(super) stake_audits: &'a [AuditRecord],
    pub(super) paytable: Option<&'a str>,
    pub(super) claims: Option<&'a str>,
    pub(super) vectors: Option<&'a str>,
}

/// A file of the dossier: `rel` under `root`, or an absolute path (a history left out).
pub(super) fn at(root: &Path, rel: &str) -> PathBuf {
    if Path::new(rel).is_absolute() {
        PathBuf::from(rel)
    } else {
        root.join(rel)
    }
}

/// A paytable read from the dossier, named by its path there.
pub(super) fn paytable_at(root: &Path, rel: &str) -> Result<Paytable> {
    Paytable::parse(input::open(&at(root, rel))?, PaytableOrigin::File(rel.to_owned()))
        .with_context(|| rel.to_owned())
}

/// The dossier's copy `rel` of an audit's paytable, named as the audit's command named it
/// (`named`: its report says which paytable it judged by).
pub(super) fn named_paytable(root: &Path, rel: &str, named: &Path) -> Result<Paytable> {
    Paytable::parse(input::open(&at(root, rel))?, PaytableOrigin::File(named.display().to_string()))
        .with_context(|| rel.to_owned())
}

/// What an input folder's copy must be: the files `writer` writes, and `origin` (the
/// `chain` or the `sweep` its run.json names), which gave its files again.
pub(super) struct Expected<'a> {
    pub(super) files: &'a [&'a str],
    /// Files that earlier versions of the writer did not write: compared where present.
    pub(super) optional: &'a [&'a str],
    pub(super) writer: &'a str,
    pub(super) origin: &'a str,
}

/// Each file of an input's dossier copy `dir` (named `rel`) that is not what running it
/// again gives: a file of `given` that differs byte for byte, a field of its run.json that
/// differs from `recorded`, and each file there that `expected.writer` does not write.
pub(super) fn compare_folder(
    dir: &Path,
    rel: &str,
    expected: &Expected,
    given: &[(impl AsRef<str>, Vec<u8>)],
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
        let name = name.as_ref();
        let path = dir.join(name);
        if !path.exists() {
            // A file an earlier fairaudit did not write is checked where it is there, so
            // that older folders and certificates still check; any other is named.
            if !expected.optional.contains(&name) {
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

/// Where two documents first differ, as a line number.
pub(super) fn first_difference(a: &[u8], b: &[u8]) -> usize {
    let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    a[..at].iter().filter(|&&c| c == b'\n').count() + 1
}
