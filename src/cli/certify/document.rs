//! The certificate document rendered from a manifest and what its dossier concludes:
//! `certify` writes it, `--check` renders it again and compares the bytes.

use super::loaded::Loaded;
use fairaudit::certify::{AuditRecord, Manifest};
use fairaudit::report::certificate::{
    AuditShown, CertificateDoc, ChainShown, CrashAuditShown, StakeSweepShown, SweepPart,
};

/// A bet history as the certificate shows it: where it was, its copy, its first findings.
pub(super) fn audit_shown<'a>(
    record: &'a AuditRecord,
    findings: &'a [fairaudit::audit::Finding],
) -> AuditShown<'a> {
    AuditShown { dir: &record.source, outcomes: &record.outcomes_source, copy: &record.dir, findings }
}

/// The certificate document for `manifest` (as it stands before its outputs are known)
/// and what its dossier concludes: `certify` writes it, `--check` renders it again and
/// compares the bytes.
pub(super) fn render(manifest: &Manifest, loaded: &Loaded) -> String {
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
                rtp: fairaudit::rtp::stake::exact_rtp(s.plan.keyed_scheme(), &s.game),
                worked: s.plan.seed_pairs.first().map(|[server, client, _]| {
                    s.plan.keyed_scheme().worked(server, client, &s.game, s.plan.nonces[0])
                }),
                deviation_from_uniform: fairaudit::scheme::stake::exact::deviation_from_uniform(
                    s.plan.keyed_scheme(),
                    &s.game,
                ),
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
