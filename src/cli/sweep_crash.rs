//! `fairaudit sweep --scheme bustabit-v1|roobet --game crash`: a range of games of a crash
//! chain played from its highest game's hash down, every crash point computed and counted
//! on every core, the range then linked to the game the operator published when it seeded
//! the chain, the battery run against the crash point's exact law, and the folder written
//! as a unit (tests.csv, summary.json, crash_cells.csv, run.json).
//!
//! `--server-seed` is the hash of game B − 1 for `--nonces A..B`, `--client-seed` the
//! salt. What the default scheme's sweep has and this one has not yet (checkpoints and
//! --resume, --shards, the HTML report, paytables and claims) is refused by name.

use super::args::command_line;
use super::args::SweepArgs;
use super::battery::print_battery;
use super::folder::OutputFolder;
use super::input::{install_stop_handler, STOP};
use super::print::ShownPath;
use super::progress::{Progress, Unit};
use super::Verdict;
use anyhow::{bail, Result};
use fairaudit::app::chain_sweep::result_files;
use fairaudit::fields::Excerpt;
use fairaudit::report::crash::{CrashPlan, CrashRun};
use fairaudit::report::run_info::RUN_FORMAT;
use fairaudit::scheme::crash::{is_game_hash, CrashVariant};
use fairaudit::scheme::SchemeId;
use fairaudit::sweep::crash::{play_range, ChainLink, MAX_LINK_WALK};
use std::time::Instant;

/// The range of a chain a crash sweep's arguments name, checked: the game hash to start
/// from, the salt, a range that starts at or above the published chain's first game and
/// lies within [`MAX_LINK_WALK`] links of its published game. `certify` reads a sweep's
/// recorded command through this too.
pub(super) fn chain_plan(args: &SweepArgs, scheme: SchemeId, variant: CrashVariant) -> Result<CrashPlan> {
    super::sweep_stake::refuse_unsupported(args, scheme)?;
    if args.seed_pairs.is_some() {
        bail!("--seed-pairs derives seed pairs of scheme sha3; a sweep of scheme {scheme} takes one chain: --server-seed (the hash of game B-1 of --nonces A..B) and --client-seed (the salt)");
    }
    if args.params.is_some() {
        bail!("--params gives a game's parameters in scheme stake; crash of scheme {scheme} takes none");
    }
    match args.games.as_slice() {
        [] => {}
        [name] if name == "crash" => {}
        [name] => bail!("unknown game '{}' of scheme {scheme} (expected crash)", Excerpt(name)),
        _ => bail!("scheme {scheme} has one game: pass --game crash once"),
    }
    let (Some(top), Some(salt)) = (args.server_seed.clone(), args.client_seed.clone()) else {
        bail!("a sweep of scheme {scheme} needs the chain: --server-seed (the hash of game B-1 of --nonces A..B) and --client-seed (the salt)");
    };
    if !is_game_hash(&top) {
        bail!(
            "--server-seed '{}' is not a game hash of scheme {scheme}: 64 lowercase hex digits, the hash of game B-1 of --nonces A..B",
            Excerpt(&top)
        );
    }
    let range = args.nonces.start..args.nonces.end;
    if range.end - range.start > MAX_LINK_WALK {
        bail!(
            "--nonces {}..{} is {} games, more than {MAX_LINK_WALK} (longer than any real chain): check the game numbers",
            range.start,
            range.end,
            range.end - range.start
        );
    }
    if let Some(published) = variant.published_game(&salt) {
        if range.start < published.first_played {
            bail!(
                "--nonces {}..{} starts below game {}, the first game of {scheme}'s published chain (no game below it was played)",
                range.start,
                range.end,
                published.first_played
            );
        }
        let steps = published.game.abs_diff(range.start - 1);
        if steps > MAX_LINK_WALK {
            bail!(
                "--nonces {}..{} is {steps} links from {scheme}'s published game {}, more than {MAX_LINK_WALK} (longer than any real chain): check the game numbers",
                range.start,
                range.end,
                published.game
            );
        }
    }
    Ok(CrashPlan {
        scheme: scheme.name(),
        game: "crash",
        games: [range.start, range.end],
        top_hash: top,
        salt,
    })
}

pub fn run(args: SweepArgs, scheme: SchemeId, variant: CrashVariant) -> Result<Verdict> {
    let plan = chain_plan(&args, scheme, variant)?;
    let (top, salt) = (plan.top_hash.clone(), plan.salt.clone());
    let range = plan.games[0]..plan.games[1];
    if variant.published_game(&salt).is_none() {
        if variant.published_salts().contains(&salt.as_str()) {
            errln!("note: fairaudit holds no published game of the chain this salt seeds: nothing ties the chain below --server-seed to an operator's commitment");
        } else {
            errln!(
                "note: the salt is none of {scheme}'s published seeding events' ({}): nothing ties the chain below --server-seed to an operator's commitment",
                variant.published_salts().join(", ")
            );
        }
    }
    let (folder, existing) = OutputFolder::claim(&args.out)?;
    super::sweep_stake::check_earlier_run(&folder, existing, &plan, args.force)?;
    let (threads, pool) = super::sweep_stake::worker_pool(args.threads)?;
    install_stop_handler()?;

    let games = range.end - range.start;
    // The links the walk to the published game adds, for the bar's total.
    let extra = variant.published_game(&salt).map_or(0, |published| published.game.abs_diff(range.start - 1));
    let bar = Progress::new(Some(games + extra), Unit::Links, args.quiet);
    let started = Instant::now();
    let progress = |done: u64| bar.inc(done);
    let played = pool.install(|| play_range(variant, &top, &salt, range.clone(), &STOP, &progress));
    drop(bar);
    let Some((swept, link)) = played else {
        errln!(
            "interrupted: a sweep of scheme {scheme} is not saved part-way; {} is as it was",
            ShownPath(folder.target())
        );
        return Ok(Verdict::Interrupted);
    };
    let elapsed = started.elapsed().as_secs_f64();

    let (mut files, battery) = result_files(variant, &swept.tally, &link, args.report.alpha);
    let command = command_line();
    let run = CrashRun {
        format: RUN_FORMAT,
        kind: "sweep",
        fairaudit_version: env!("CARGO_PKG_VERSION"),
        fairaudit_revision: fairaudit::REVISION,
        plan,
        end_hash: &swept.end,
        chain: &link,
        command_line: &command,
        threads,
        games,
        elapsed_seconds: elapsed,
    };
    files.push(("run.json".to_owned(), run.to_json()));
    folder.write_all(&files)?;
    let dir = folder.target().to_owned();
    folder.commit()?;

    outln!(
        "swept {scheme} crash games {}..{}: {games} games in {elapsed:.1} s ({:.0} games/s, {threads} threads)",
        range.start,
        range.end,
        if elapsed > 0.0 { games as f64 / elapsed } else { 0.0 },
    );
    outln!("output: {}", ShownPath(&dir));
    let linked = match &link {
        ChainLink::Unanchored => {
            outln!("chain: not linked to a published game (the salt seeds no published chain)");
            true
        }
        ChainLink::Linked { game, steps, .. } => {
            outln!("chain: linked to the published game {game} ({steps} more links walked)");
            true
        }
        ChainLink::Broken { game, hash, steps, reached, expected } => {
            outln!(
                "FAIL chain: games {}..{} below --server-seed do not reach the published game {game} ({hash}): {steps} links walked reached {reached}, not {expected} (the range is numbered wrong, or it is not the chain the operator committed to)",
                range.start,
                range.end
            );
            false
        }
    };
    let verdict = print_battery(&battery, "chains");
    Ok(if linked { verdict } else { Verdict::Finding })
}
