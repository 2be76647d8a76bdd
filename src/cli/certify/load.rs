//! A dossier loaded: every input run again from its copies (sweeps, audits, chains), the
//! Keno paytable, claims and worked rounds, into the conclusions a certificate states;
//! and the comparison of an input's copied files with what running it again gives.

use super::audits::{load_audit, load_crash_audit, load_stake_audit};
use super::sweeps::{chain_links, load_chain, load_stake_sweep, load_sweep, CHAIN_LINKS_CHECKED};
use crate::cli::args::load_claims;
use crate::cli::input;
use anyhow::{bail, Context, Result};
use fairaudit::certify::worked::{choose_rounds, read_vectors, work_round, WorkedRound};
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
use fairaudit::rtp::{check_claim, exact_rtp, ExactRtp, Paytable};
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
                .map(|a| StakeAuditPart { audit: &a.audit, battery: &a.battery })
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

pub(super) fn load_worked(root: &Path, vectors: &str, games: &[GameId]) -> Result<Vec<WorkedRound>> {
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
pub(super) fn load(root: &Path, records: &Records, alpha: f64, stake_limit: u64) -> Result<Loaded> {
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

/// Where two documents first differ, as a line number.
pub(super) fn first_difference(a: &[u8], b: &[u8]) -> usize {
    let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    a[..at].iter().filter(|&&c| c == b'\n').count() + 1
}
