//! Sweeps read back from a dossier: a default-scheme sweep's tallies and its files made
//! again, a crash chain played again and linked to its published game, a sweep of the
//! HMAC-SHA256 family swept again in full from its recorded command.

use super::loaded::{
    at, compare_folder, named_paytable, Expected, LoadedChain, LoadedStakeSweep, LoadedSweep,
};
use super::recorded::{scheme_sweep, ChainCommand, RecordedRun, SchemeSweep, StakeSource};
use crate::cli::args::load_claims;
use crate::cli::input::{self, STOP};
use crate::cli::output::read_tally;
use anyhow::{bail, Context, Result};
use fairaudit::app::chain_sweep::result_files;
use fairaudit::app::keyed_sweep::{complete_file, folder_files};
use fairaudit::certify::{ChainRecord, Mismatch, SweepRecord};
use fairaudit::report::crash::CrashPlan;
use fairaudit::report::stake::StakeRun;
use fairaudit::report::{RunInfo, RunReport};
use fairaudit::results::RunResults;
use fairaudit::rtp::Paytable;
use fairaudit::scheme::crash::CrashVariant;
use fairaudit::scheme::keyed::KeyedScheme;
use fairaudit::sweep::crash::{play_range, ChainLink, PlayedChain};
use fairaudit::sweep::DEFAULT_CHUNK;
use fairaudit::tally::file::{TallyFile, TALLY_FILE};
use fairaudit::tally::stake_file::STAKE_TALLY_FILE;
use std::path::{Path, PathBuf};

pub(super) fn load_sweep(
    root: &Path,
    record: &SweepRecord,
    paytable: &Paytable,
    claims: &[fairaudit::rtp::claims::Claim],
    alpha: f64,
) -> Result<LoadedSweep> {
    let rel = record.dir.as_str();
    let dir = at(root, rel);
    let tallies = read_tally(&dir.join(TALLY_FILE)).with_context(|| format!("{rel}/{TALLY_FILE}"))?;
    // Its files made again, and its plan swept again, hold each seed pair's results in
    // memory, as sweep does: bounded before any of it (a merge's command names folders, not
    // a plan that was bounded when its command was read).
    let pairs = tallies.plan.seed_pairs.len() as u64;
    crate::cli::memory::check_pair_memory(
        pairs,
        crate::cli::sweep::plan_pair_bytes(&tallies.plan.games),
        &format!("{rel}: its {pairs} seed pairs"),
        "run it where more memory is available",
    )?;
    if !tallies.complete {
        let plan = &tallies.plan;
        let planned = plan.rounds_per_sequence() * plan.games.len() as u64 * plan.seed_pairs.len() as u64;
        bail!(
            "{rel}: the sweep is not complete ({} of {planned} rounds tallied: it was interrupted), and a partial sweep cannot be certified; finish it with 'fairaudit sweep --resume' and the same arguments first",
            tallies.rounds()
        );
    }
    if tallies.partial.is_some() {
        bail!("{rel}: a partial merge of shards (--allow-partial), which speaks only for the shards it holds, cannot be certified; sweep the missing shards and merge them all");
    }
    let Ok(bytes) = std::fs::read(dir.join("run.json")) else {
        bail!("{rel}: no readable run.json: a sweep's folder is certified as sweep wrote it, with the run.json that records the command, level, paytable and claims its files were made with");
    };
    let run: RunInfo = serde_json::from_slice(&bytes)
        .with_context(|| format!("{rel}/run.json: not the run.json of a sweep or merge"))?;
    let (differing, unchecked, own) = sweep_files_mismatch(root, record, &tallies, &run)?;
    // The certificate's paytable, claims and alpha are most often the sweep's own: its
    // results are then those its files were made again from.
    let results = if own.paytable == *paytable && own.claims == claims && own.alpha == alpha {
        own.results
    } else {
        RunResults::compute(&tallies, paytable, claims, alpha)
    };
    Ok(LoadedSweep { tallies, results, command_line: run.command_line, differing, unchecked })
}

/// A sweep's results under its own paytable, claims and alpha: what its files were made
/// from.
pub(super) struct OwnResults {
    paytable: Paytable,
    claims: Vec<fairaudit::rtp::claims::Claim>,
    alpha: f64,
    results: RunResults,
}

/// A sweep's (or merge's) own files in the dossier, made again as `sweep` wrote them: from
/// its tallies, what its run.json records of the run (`run`: who, when, on what), and its own
/// options (its level, and its paytable and claims files, from the dossier's copies). A
/// rewritten test, figure, table or page is named, not only pinned by hash; so is a
/// run.json whose plan, or whose sweep command's plan, is not the tallies'. Also returns
/// what could not be made again, and why: a certificate written before certify copied a
/// sweep's own paytable and claims files holds none, and its rtp.csv and report.html are
/// then pinned by hash only. And the results its files were made again from.
pub(super) fn sweep_files_mismatch(
    root: &Path,
    record: &SweepRecord,
    tallies: &TallyFile,
    run: &RunInfo,
) -> Result<(Vec<Mismatch>, Option<String>, OwnResults)> {
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
    // certify copied them. What depends on them is not made again, and so not vouched for:
    // rtp.csv on the paytable, report.html on both (it states the claims' verdicts).
    let paytable_unheld = report.paytable.is_some() && record.paytable.is_none();
    let claims_unheld = report.claims.is_some() && record.claims.is_none();
    let not_made = |name: &str| match name {
        "rtp.csv" => paytable_unheld,
        "report.html" => paytable_unheld || claims_unheld,
        _ => false,
    };
    let paytable = match (&record.paytable, &report.paytable) {
        (Some(copy), Some(named)) => named_paytable(root, copy, named)?,
        _ => Paytable::example(),
    };
    let claims = load_claims(record.claims.as_deref().map(|copy| at(root, copy)).as_deref())?;
    let results = RunResults::compute(tallies, &paytable, &claims, report.alpha);
    let made = RunReport { tallies, run, results: Some(&results) }.files();
    let given: Vec<(&str, Vec<u8>)> = made
        .iter()
        .filter(|(name, _)| name != "run.json" && !not_made(name))
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
                crate::cli::sweep::plan_of(args).with_context(|| format!("{rel}: its recorded command"))?;
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
    // A run.json that records the hash of a file its command read was written after certify
    // began copying such files, so a dossier without the copy had it removed.
    for (unheld, named) in [(paytable_unheld, &report.paytable), (claims_unheld, &report.claims)] {
        let recorded =
            |path: &&PathBuf| run.inputs.iter().any(|input| input.path == path.display().to_string());
        if let Some(path) = named.as_ref().filter(|path| unheld && recorded(path)) {
            differing.push(format!(
                "{rel}: its run.json records the hash of {}, which its command read, but the dossier holds no copy of it (a certificate written before certify copied such files records no hash)",
                path.display()
            ));
        }
    }
    let not_made: Vec<&str> = ["rtp.csv", "report.html"].into_iter().filter(|name| not_made(name)).collect();
    let unchecked = (!not_made.is_empty()).then(|| {
        format!("{rel}: {} not made again and not vouched for, only pinned by hash (its command names a paytable or claims file that this certificate, written before certify copied them, does not hold)", not_made.join(" and "))
    });
    let own = OwnResults { paytable, claims, alpha: report.alpha, results };
    Ok((differing, unchecked, own))
}

/// The most links one certificate's crash chains walk in all, ranges and walks to their
/// published games together (minutes of hashing; each chain alone walks at most twice
/// [`fairaudit::sweep::crash::MAX_LINK_WALK`]): a manifest naming more, forged or not, is
/// refused rather than walked for hours.
pub(super) const CHAIN_LINKS_CHECKED: u64 = 10 * fairaudit::sweep::crash::MAX_LINK_WALK;

/// The links playing the chain a record names walks: its range, then on to the published
/// game; from the recorded command alone, before anything is walked.
pub(super) fn chain_links(root: &Path, record: &ChainRecord) -> Result<u64> {
    let Some(SchemeSweep::Chain(ChainCommand { args, scheme, variant, .. })) =
        scheme_sweep(&at(root, &record.dir), &record.dir)?
    else {
        bail!("{}: its run.json records no sweep of a crash chain", record.dir);
    };
    let plan = crate::cli::sweep_crash::chain_plan(&args, scheme, variant)
        .with_context(|| format!("{}: its recorded command", record.dir))?;
    let walk =
        variant.published_game(&plan.salt).map_or(0, |published| published.game.abs_diff(plan.games[0] - 1));
    Ok(walk.saturating_add(plan.games[1] - plan.games[0]))
}

/// The files of a sweep of a crash chain: what its dossier copy must hold, each compared
/// with what the chain gives again.
pub(super) const CHAIN_FILES: [&str; 4] = ["tests.csv", "summary.json", "crash_cells.csv", "run.json"];

/// The crash chain a record names, played again on every core from the command its
/// sweep recorded, linked to its operator's published game, and tested at `alpha`; the
/// sweep's files in the dossier are compared with what the chain gives ([`chain_files`]).
pub(super) fn load_chain(root: &Path, record: &ChainRecord, alpha: f64) -> Result<LoadedChain> {
    let dir = at(root, &record.dir);
    let Some(SchemeSweep::Chain(ChainCommand { command_line, args, scheme, variant })) =
        scheme_sweep(&dir, &record.dir)?
    else {
        bail!("{}: its run.json records no sweep of a crash chain", record.dir);
    };
    let plan = crate::cli::sweep_crash::chain_plan(&args, scheme, variant)
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
    let differing = chain_files(&dir, &record.dir, variant, &plan, &played, &link, args.report.alpha)?;
    let battery = fairaudit::stats::crash::battery(variant, &played.tally, alpha);
    Ok(LoadedChain { command_line, plan, variant, played, link, battery, differing })
}

/// Each file of a chain's dossier copy `dir` (named `rel`) that the chain does not give
/// again byte for byte (its tests at the sweep's own level `sweep_alpha`, its summary and
/// counts, and run.json's plan, end and link), and each file there that no sweep of a
/// chain writes.
pub(super) fn chain_files(
    dir: &Path,
    rel: &str,
    variant: CrashVariant,
    plan: &CrashPlan,
    played: &PlayedChain,
    link: &ChainLink,
    sweep_alpha: f64,
) -> Result<Vec<Mismatch>> {
    let (given, _) = result_files(variant, &played.tally, link, sweep_alpha);
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
pub(super) const OPTIONAL_FILES: [&str; 3] = [STAKE_TALLY_FILE, "rtp.csv", "report.html"];

/// The files of a sweep of the HMAC-SHA256 family: what its dossier copy must hold, each
/// compared with what sweeping it again gives.
pub(super) const STAKE_FILES: [&str; 7] = [
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
pub(super) fn load_stake_sweep(
    root: &Path,
    record: &SweepRecord,
    alpha: f64,
    budget: &mut u64,
) -> Result<LoadedStakeSweep> {
    let dir = at(root, &record.dir);
    let Some(SchemeSweep::Stake { command_line, source }) = scheme_sweep(&dir, &record.dir)? else {
        bail!("{}: its run.json records no sweep of a keyed scheme ({})", record.dir, KeyedScheme::names());
    };
    // Counted before a seed pair is derived, so that a forged plan cannot make it sweep
    // for hours (or derive a billion seed pairs).
    let scheme = match &source {
        StakeSource::Sweep(args) => args.scheme.and_then(KeyedScheme::of).unwrap_or_default(),
        StakeSource::Merge { plan, .. } => plan.keyed_scheme(),
    };
    let rounds = match &source {
        StakeSource::Sweep(args) => {
            (args.nonces.end - args.nonces.start).saturating_mul(crate::cli::args::seed_pair_count(args))
        }
        StakeSource::Merge { plan, .. } => {
            plan.nonces[1].saturating_sub(plan.nonces[0]).saturating_mul(plan.seed_pairs.len() as u64)
        }
    };
    if rounds > *budget {
        bail!(
            "{}: its {rounds} rounds are more than the {budget} left of --resweep-limit: certifying a sweep of scheme {scheme} (or checking its certificate) sweeps it again in full; pass a larger --resweep-limit",
            record.dir
        );
    }
    *budget -= rounds;
    let what = || format!("{}: its recorded command", record.dir);
    let ((game, pairs, plan), sweep_alpha, chunk, kind) = match &source {
        StakeSource::Sweep(args) => (
            crate::cli::sweep_stake::stake_plan(args).with_context(what)?,
            args.report.alpha,
            args.chunk_size,
            "sweep",
        ),
        StakeSource::Merge { plan, alpha } => {
            (crate::cli::sweep_stake::merged_plan(plan, &record.dir)?, *alpha, DEFAULT_CHUNK, "merge")
        }
    };
    let nonces = plan.nonces[0]..plan.nonces[1];
    let (_, pool) = crate::cli::sweep_stake::worker_pool(None)?;
    let tallies = crate::cli::sweep_stake::sweep_pairs(&pool, &game, &pairs, nonces, chunk, &|_| {})
        .ok_or_else(|| anyhow::Error::new(input::Interrupted))?;
    let scheme = plan.keyed_scheme();
    // The report states the battery beside what run.json records of the run (its command,
    // threads, time): made again from both, so a page that states other verdicts differs.
    let run: StakeRun = serde_json::from_slice(&std::fs::read(dir.join("run.json"))?).with_context(|| {
        format!("{}/run.json: not the run.json of a sweep of scheme {scheme}", record.dir)
    })?;
    // What the page states of the run beyond its plan and rounds must be what a whole,
    // complete sweep records (a forged shard note would otherwise be drawn as written).
    let mut run_mismatches = Vec::new();
    if run.kind != kind || !run.complete || run.shard.is_some() || run.partial.is_some() {
        run_mismatches.push(format!(
            "{}/run.json: its kind, complete, shard or partial is not what the sweep it names gives",
            record.dir
        ));
    }
    // The files a whole sweep of the plan writes, from the tallies swept again, made by the
    // code `sweep` and `merge` write them with; run.json is compared by its plan and rounds
    // below, and its other fields drawn in the report are rebuilt from what a whole sweep
    // records (a partial note in a forged run.json is named above, not drawn).
    let report_run = StakeRun { partial: None, ..run.clone() };
    let whole = complete_file(&game, &plan, tallies.clone());
    if !whole.complete {
        bail!("{}: its plan sweeps no round, so there is nothing to certify", record.dir);
    }
    let (files, _) = folder_files(&game, &whole, &report_run, sweep_alpha);
    let given: Vec<(String, Vec<u8>)> = files.into_iter().filter(|(name, _)| name != "run.json").collect();
    let recorded = [("plan", serde_json::to_value(&plan)?), ("rounds", serde_json::Value::from(rounds))];
    let expected = Expected {
        files: &STAKE_FILES,
        optional: &OPTIONAL_FILES,
        writer: &format!("a sweep of scheme {scheme}"),
        origin: "sweep",
    };
    let mut differing = compare_folder(&dir, &record.dir, &expected, &given, &recorded)?;
    differing.extend(run_mismatches);
    let battery = fairaudit::stats::stake::battery(scheme, &game, &tallies, alpha);
    Ok(LoadedStakeSweep { command_line, plan, game, rounds, battery, differing })
}
