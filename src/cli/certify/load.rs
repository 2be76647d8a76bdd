//! A dossier loaded: every input run again from its copies (sweeps, audits, chains), the
//! Keno paytable, claims and worked rounds, into the conclusions a certificate states
//! ([`super::loaded::Loaded`]).

use super::audits::{load_audit, load_crash_audit, load_stake_audit};
use super::loaded::{
    at, paytable_at, Loaded, LoadedAudit, LoadedChain, LoadedCrashAudit, LoadedStakeAudit, LoadedStakeSweep,
    LoadedSweep, Records,
};
use super::sweeps::{chain_links, load_chain, load_stake_sweep, load_sweep, CHAIN_LINKS_CHECKED};
use crate::cli::args::load_claims;
use crate::cli::input;
use anyhow::{bail, Context, Result};
use fairaudit::certify::worked::{choose_rounds, read_vectors, work_round, WorkedRound};
use fairaudit::games::GameId;
use fairaudit::rtp::{check_claim, exact_rtp, ExactRtp, Paytable};
use std::path::Path;

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
