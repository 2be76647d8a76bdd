//! `fairaudit audit`: the battery on outcomes recorded elsewhere.

use super::output::write_files;
use super::rtp::load_paytable;
use super::sweep::{parse_alpha, print_battery};
use super::verify::parse_game;
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::audit::{audit_outcomes, AuditTallies};
use fairaudit::games::GameId;
use fairaudit::report::results::{rtp_table, summary_json, tests_table};
use fairaudit::rtp::empirical::{rtp_rows_of, GameTallies};
use fairaudit::stats::battery::{assess, keno_tests, roulette_tests};
use std::io::Read;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The game the outcomes belong to.
    #[arg(long, value_name = "G", value_parser = parse_game)]
    game: GameId,
    /// CSV of outcomes in play order (`result` required; see the README); `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    outcomes: PathBuf,
    /// Also write tests.csv and summary.json to this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace tests.csv and summary.json in --out if they exist.
    #[arg(long, requires = "out")]
    force: bool,
    /// Level of the battery (family-wise, Holm-adjusted).
    #[arg(long, value_name = "A", default_value_t = 0.01, value_parser = parse_alpha)]
    alpha: f64,
    /// The operator's Keno paytable for rtp.csv (default: the illustrative example).
    #[arg(long, value_name = "FILE")]
    paytable: Option<PathBuf>,
}

pub fn run(args: AuditArgs) -> Result<Verdict> {
    let name = args.outcomes.display().to_string();
    let paytable = load_paytable(args.paytable.as_deref())?;
    if let Some(dir) = &args.out {
        for file in ["tests.csv", "summary.json", "rtp.csv"] {
            // Check before reading a possibly huge file: refuse early, write nothing.
            if dir.join(file).exists() && !args.force {
                bail!(
                    "{} already exists; refusing to overwrite it (pass --force to replace it)",
                    dir.join(file).display()
                );
            }
        }
    }
    let input: Box<dyn Read> = if name == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(&args.outcomes).with_context(|| format!("{name}: cannot open"))?)
    };
    let audit = audit_outcomes(args.game, input, |m| {
        println!(
            "line {}: {}: file has '{}', the chain gives '{}'",
            m.line, m.field, m.file_value, m.computed_value
        );
    })
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;

    let tests = match &audit.tallies {
        AuditTallies::Keno { tally, has_draw_order } => keno_tests(tally, *has_draw_order, false),
        AuditTallies::Roulette(tally) => roulette_tests(tally, false),
    };
    let rows = tests.into_iter().map(|t| (args.game, "log".to_owned(), t)).collect();
    let battery = assess(rows, args.alpha);
    println!(
        "{} rounds read; {} replayed against the chain, {} mismatches",
        audit.rounds, audit.verified, audit.mismatches
    );
    if let Some(dir) = &args.out {
        let label = "log".to_owned();
        let rtp = match &audit.tallies {
            AuditTallies::Keno { tally, .. } => {
                rtp_rows_of(&[GameTallies::Keno(&[(label, (**tally).clone())])], &paytable, args.alpha)
            }
            AuditTallies::Roulette(tally) => rtp_rows_of(
                &[GameTallies::Roulette(args.game, &[(label, (**tally).clone())])],
                &paytable,
                args.alpha,
            ),
        };
        let rtp = rtp_table(&rtp);
        write_files(
            dir,
            &[
                ("tests.csv".to_owned(), tests_table(&battery).to_csv()),
                ("summary.json".to_owned(), summary_json(&battery)),
                (rtp.file_name.clone(), rtp.to_csv()),
            ],
        )?;
    }
    let verdict = print_battery(&battery);
    Ok(if audit.mismatches > 0 { Verdict::Finding } else { verdict })
}
