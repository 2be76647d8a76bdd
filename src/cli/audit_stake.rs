//! `fairaudit audit --scheme stake`: a bet history of the HMAC-SHA256 family, each row
//! naming its game, checked row by row ([`fairaudit::audit::stake`]) and its recorded
//! results tested against the exact laws; with `--out`, findings.csv, tests.csv,
//! summary.json and run.json.

use super::audit::{claim_output, findings_row, staged_csv, AuditArgs, FINDINGS_HEADER, FINDINGS_PRINTED};
use super::battery::print_battery;
use super::input;
use super::Verdict;
use anyhow::{bail, Context, Result};
use fairaudit::audit::stake::{audit_stake_history, FIELDS};
use fairaudit::audit::Finding;
use fairaudit::fields::Shown;
use fairaudit::report::results::{summary_json, tests_table};
use fairaudit::report::run_info::{RunStamp, RUN_FORMAT};
use fairaudit::stats::battery::Verdict as TestVerdict;
use fairaudit::stats::stake::log_battery;
use std::io::Write;
use std::time::SystemTime;

pub fn run(args: AuditArgs) -> Result<Verdict> {
    let started = SystemTime::now();
    if args.game.is_some() || args.paytable.is_some() || args.max_gap_replay.is_some() {
        bail!("with --scheme stake each row names its game (and its parameters), payouts are judged by the published tables and gaps are not replayed: --game, --paytable and --max-gap-replay are the default scheme's");
    }
    let name = args.outcomes.display().to_string();
    let layout = args.layout.layout(&FIELDS)?;
    // Claimed before reading a possibly huge file: a refusal writes nothing.
    let folder = args.out.as_deref().map(|dir| claim_output(dir, args.force)).transpose()?;
    let mut findings_csv =
        folder.as_ref().map(|folder| staged_csv(folder, "findings.csv", &FINDINGS_HEADER)).transpose()?;
    let (input, bar) = input::open_with_progress(&args.outcomes, args.quiet)?;
    let mut printed = 0;
    let mut write_error = None;
    let audit = audit_stake_history(input, &layout, args.payout_tolerance, |finding: &Finding| {
        if printed < FINDINGS_PRINTED {
            outln!("{}", describe(finding));
            printed += 1;
        }
        if let Some(writer) = findings_csv.as_mut() {
            if let Err(error) = writer.write_record(findings_row(finding)) {
                write_error.get_or_insert(error);
            }
        }
    })
    .with_context(|| name.clone())?;
    drop(bar);
    if let Some(error) = write_error {
        return Err(error).context("cannot write findings.csv");
    }
    let findings: u64 = audit.findings.values().sum();
    if findings as usize > printed {
        outln!(
            "... {} more findings{}",
            findings as usize - printed,
            if args.out.is_some() { " in findings.csv" } else { " (pass --out DIR for findings.csv)" }
        );
    }
    outln!(
        "{} rounds read; {} replayed from their revealed seeds; {} payouts checked against the published tables",
        audit.rows,
        audit.replayed,
        audit.payouts_checked
    );
    for (game, rows) in &audit.payouts_unchecked {
        let rows = if *rows == 1 { "1 row".to_owned() } else { format!("{rows} rows") };
        outln!(
            "payouts of {game} not checked on {rows}: its payout rule is not sourced yet (docs/schemes.md)"
        );
    }
    if findings > 0 {
        let by_check: Vec<String> = audit.findings.iter().map(|(check, n)| format!("{check} {n}")).collect();
        outln!("findings: {findings} ({})", by_check.join(", "));
    }
    let battery = log_battery(&audit.tallies, args.alpha);
    if let Some(folder) = folder {
        if let Some(writer) = findings_csv.take() {
            writer.into_inner().map_err(|e| e.into_error())?.flush()?;
        }
        let stamp = RunStamp {
            format: RUN_FORMAT,
            kind: "audit",
            fairaudit_version: fairaudit::VERSION,
            fairaudit_revision: fairaudit::REVISION,
            command_line: super::args::command_line(),
            started_at: humantime::format_rfc3339_seconds(started).to_string(),
            finished_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        };
        folder.write("tests.csv", &tests_table(&battery).to_csv())?;
        folder.write("summary.json", &summary_json(&battery, &[]))?;
        folder.write("run.json", &stamp.to_bytes())?;
        folder.commit()?;
    }
    let verdict = print_battery(&battery, "games");
    Ok(if findings > 0 || battery.overall() == TestVerdict::Fail { Verdict::Finding } else { verdict })
}

/// A finding as one terminal line; the file's text in it is [`Shown`].
fn describe(f: &Finding) -> String {
    let (found, expected) = (Shown(&f.found), Shown(&f.expected));
    let who = if f.player.is_empty() { String::new() } else { format!(" (player {})", Shown(&f.player)) };
    let what = match f.check {
        "result" => format!("file has '{found}', the seeds give '{expected}'"),
        "payout" => format!("file has {found}, the published multiplier gives {expected}"),
        "commitment" => format!("file has {found}, SHA-256 of the revealed server seed is {expected}"),
        "nonce_reused" => format!("nonce {found} was already played with this seed pair"),
        _ => format!("file has {found}, expected {expected}"),
    };
    format!("line {}{who}: {}: {what}", f.line, f.check)
}
