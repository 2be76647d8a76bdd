//! `fairaudit audit --scheme bustabit-v1|roobet`: a bet history of a crash game checked
//! row by row ([`fairaudit::audit::crash`]), the games it skips named, and its games'
//! crash points tested against the exact law; with `--out`, findings.csv, tests.csv,
//! summary.json and run.json.

use super::args::AuditArgs;
use super::audit_output::{
    audit_stamp, claim_output, conclude_scheme_audit, finding_line, written_inputs, FindingSink,
};
use super::input;
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::audit::crash::{audit_crash_history, FIELDS};
use fairaudit::audit::Finding;
use fairaudit::fields::Shown;
use fairaudit::scheme::crash::CrashVariant;
use fairaudit::scheme::SchemeId;
use fairaudit::stats::crash::battery;
use fairaudit::sweep::crash::MAX_LINK_WALK;
use fairaudit::verify::published::MAX_WALK;

pub fn run(args: AuditArgs, scheme: SchemeId, variant: CrashVariant) -> Result<Verdict> {
    let started = super::clock::now();
    if args.game.is_some() || args.paytable.is_some() || args.max_gap_replay.is_some() {
        bail!("an audit of scheme {scheme} is of its one game, crash, paid by the cash-out target: --game, --paytable and --max-gap-replay are the default scheme's");
    }
    let name = args.outcomes.display().to_string();
    let layout = args.layout.layout(&FIELDS)?;
    let folder = args.out.as_deref().map(|dir| claim_output(dir, args.force)).transpose()?;
    let inputs = written_inputs(&args);
    let mut sink = FindingSink::new(folder.as_ref(), describe)?;
    let (input, bar) = input::open_with_progress(&args.outcomes, args.quiet)?;
    let audit =
        audit_crash_history(input, &layout, variant, scheme.name(), args.payout_tolerance, |finding| {
            sink.take(finding)
        })
        .with_context(|| name.clone())?;
    drop(bar);
    let findings: u64 = audit.findings.values().sum();
    let findings_csv = sink.finish(findings)?;
    outln!(
        "{} bets on {} games read; {} games replayed from their hashes, {} links between consecutive games walked; {} payouts checked",
        audit.rows,
        audit.games,
        audit.replayed,
        audit.linked,
        audit.payouts_checked
    );
    if audit.derived > 0 {
        outln!(
            "games given without their hash, checked through the link across them (its walk gives their hashes): {}",
            audit.derived
        );
    }
    if audit.missing_games > 0 {
        let named: Vec<String> = audit
            .missing
            .iter()
            .map(|r| {
                if r.start() == r.end() {
                    r.start().to_string()
                } else {
                    format!("{}..={}", r.start(), r.end())
                }
            })
            .collect();
        let named_games: u64 = audit.missing.iter().map(|r| r.end() - r.start() + 1).sum();
        let more = if named_games < audit.missing_games { ", ..." } else { "" };
        outln!(
            "games missing between the first and the last: {} ({}{more})",
            audit.missing_games,
            named.join(", ")
        );
    }
    if audit.on_published > 0 || audit.not_walked > 0 || audit.findings.contains_key("published") {
        outln!(
            "published chain: {} games walked to their chain's published game ({} links){}",
            audit.on_published,
            audit.published_steps,
            if audit.not_walked > 0 {
                format!("; {} not walked (more than {MAX_LINK_WALK} links from it, hashes disagreeing with too many others, or past the walk's budget for the file)", audit.not_walked)
            } else {
                String::new()
            }
        );
    }
    if audit.unlinked > 0 {
        outln!(
            "note: {} consecutive games with hashes not linked (another salt, or more than {MAX_WALK} games apart)",
            audit.unlinked
        );
    }
    if audit.hashless > 0 {
        outln!(
            "note: {} without a hash: their crash points are neither replayed nor linked",
            if audit.hashless == 1 { "1 game".to_owned() } else { format!("{} games", audit.hashless) }
        );
    }
    if audit.other_salts > 0 {
        outln!(
            "note: {} rows use a salt that is none of {scheme}'s published seeding events' ({}): replayed with it, nothing ties it to the operator's commitment",
            audit.other_salts,
            variant.published_salts().join(", ")
        );
    }
    if audit.uncounted > 0 {
        outln!(
            "note: {} games without their hash are not tested: Roobet shows an instant crash and a 1.00x crash alike",
            audit.uncounted
        );
    }
    let battery = battery(variant, &audit.tally, args.alpha);
    let stamp = audit_stamp(started, inputs);
    conclude_scheme_audit(
        audit.has_row_checks(),
        &audit.findings,
        folder.map(|folder| (folder, findings_csv)),
        &battery,
        "chains",
        &stamp,
        Vec::new(),
    )
}

/// A finding as one terminal line; the file's text in it is [`Shown`].
fn describe(f: &Finding) -> String {
    let (found, expected) = (Shown(&f.found), Shown(&f.expected));
    let what = match f.check {
        "result" => format!("file has '{found}', the game's hash gives '{expected}'"),
        "payout" => format!("file has {found}, the cash-out rule gives {expected}"),
        "link" | "published" => format!("file has {found}, the chain link needs {expected}"),
        "game_order" => format!("game {found} where the history's order needs {expected}"),
        "uncommitted" => format!("{found}"),
        _ => format!("file has {found}, expected {expected}"),
    };
    finding_line(f, &what)
}
