//! `fairaudit audit --scheme stake`: a bet history of the HMAC-SHA256 family, each row
//! naming its game, checked row by row ([`fairaudit::audit::stake`]) and its recorded
//! results tested against the exact laws; with `--out`, findings.csv, tests.csv,
//! summary.json, rtp.csv, report.html and run.json.

use super::args::AuditArgs;
use super::audit_output::{
    audit_stamp, claim_output, conclude_scheme_audit, finding_line, written_inputs, FindingSink,
};
use super::input;
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::app::keyed_audit::stake_audit_files;
use fairaudit::audit::stake::{audit_stake_history, stake_revealed_seeds, why_unchecked, FIELDS};
use fairaudit::audit::Finding;
use fairaudit::fields::Shown;
use fairaudit::report::audit_html::made_by;

pub fn run(args: AuditArgs) -> Result<Verdict> {
    let started = super::clock::now();
    if args.game.is_some() {
        bail!(
            "with --scheme {} each row names its game (and its parameters): --game is the default scheme's",
            args.keyed_scheme()
        );
    }
    // The operator's Keno paytable, which Keno payouts are judged against (Stake publishes
    // none outside the game, so there is no built-in one).
    let paytable = args.paytable.as_deref().map(|path| super::args::load_paytable(Some(path))).transpose()?;
    let name = args.outcomes.display().to_string();
    let layout = args.layout.layout(&FIELDS)?;
    // Claimed before reading a possibly huge file: a refusal writes nothing.
    let folder = args.out.as_deref().map(|dir| claim_output(dir, args.force)).transpose()?;
    let inputs = written_inputs(&args);
    let mut sink = FindingSink::new(folder.as_ref(), describe)?.with_gaps(folder.as_ref())?;
    // Two passes: the seeds the history reveals anywhere, then the audit.
    let mut history = input::history(&args.outcomes)?;
    let revealed = stake_revealed_seeds(history.first_pass()?, &layout, args.keyed_scheme())
        .with_context(|| name.clone())?;
    let (input, bar) = history.second_pass(args.quiet).with_context(|| name.clone())?;
    let audit =
        audit_stake_history(input, &revealed, &layout, &args.stake_options(paytable.as_ref()), &mut sink)
            .with_context(|| name.clone())?;
    drop(bar);
    let findings: u64 = audit.findings.values().sum();
    let findings_csv = sink.finish(findings)?;
    outln!(
        "{} rounds read; {} replayed from their revealed seeds; {} payouts checked against {}",
        audit.rows,
        audit.replayed,
        audit.payouts_checked,
        audit.payouts_judged_by()
    );
    let n = audit.nonce_gaps;
    super::audit_output::print_nonces(n.seed_pairs, n.gaps, n.missing, n.replayed);
    for (game, rows) in &audit.payouts_unchecked {
        let rows = if *rows == 1 { "1 row".to_owned() } else { format!("{rows} rows") };
        outln!("payouts of {game} not checked on {rows}: {}", why_unchecked(audit.scheme, game));
    }
    let battery = audit.battery(args.alpha);
    let stamp = audit_stamp(started, inputs);
    let more_files = match folder {
        Some(_) => {
            let made_by = made_by(stamp.fairaudit_version, stamp.fairaudit_revision, &stamp.finished_at);
            stake_audit_files(&audit, &battery, &sink.shown, &name, &made_by)
        }
        None => Vec::new(),
    };
    conclude_scheme_audit(
        audit.has_row_checks(),
        &audit.findings,
        folder.map(|folder| (folder, findings_csv)),
        &battery,
        "games",
        &stamp,
        more_files,
    )
}

/// A finding as one terminal line; the file's text in it is [`Shown`].
fn describe(f: &Finding) -> String {
    let (found, expected) = (Shown(&f.found), Shown(&f.expected));
    let what = match f.check {
        "result" => format!("file has '{found}', the seeds give '{expected}'"),
        "payout" => format!("file has {found}, the published multiplier gives {expected}"),
        "commitment" => format!("file has {found}, SHA-256 of the revealed server seed is {expected}"),
        "nonce_reused" => format!("nonce {found} was already played with this seed pair"),
        "uncommitted" => format!("{found}; needs {expected}"),
        _ => format!("file has {found}, expected {expected}"),
    };
    finding_line(f, &what)
}
