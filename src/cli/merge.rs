//! `fairaudit merge`: the tally files of sweeps over disjoint ranges → one tally file →
//! the results → the folder's files, written as a unit → the terminal.

use super::args::{command_line, load_claims, load_paytable, ReportArgs};
use super::battery::print_battery;
use super::folder::{Existing, OutputFolder};
use super::output::read_tally;
use super::progress::{Progress, Unit};
use super::sweep::fill_timing;
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::report::{RunInfo, RunReport};
use fairaudit::results::RunResults;
use fairaudit::sweep::{self, MergeError};
use fairaudit::tally::file::{TallyFile, TALLY_FILE};
use std::path::PathBuf;
use std::time::{Instant, SystemTime};

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Output folders of sweeps over disjoint nonce ranges (same games and seed pairs).
    #[arg(value_name = "DIR", required = true)]
    inputs: Vec<PathBuf>,
    /// Folder for the merged output.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Replace another run's output in --out.
    #[arg(long)]
    force: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    report: ReportArgs,
}

pub fn run(args: MergeArgs) -> Result<Verdict> {
    let started = (SystemTime::now(), Instant::now());
    let paytable = load_paytable(args.report.paytable.as_deref())?;
    let claims = load_claims(args.report.claims.as_deref())?;
    let (folder, existing) = OutputFolder::claim(&args.out)?;
    let bar = Progress::new(Some(args.inputs.len() as u64), Unit::Inputs, args.quiet);
    let mut files = Vec::new();
    for dir in &args.inputs {
        files.push(read_tally(&dir.join(TALLY_FILE))?);
        bar.inc(1);
    }
    drop(bar);
    let merged: TallyFile = sweep::merge(files).map_err(|error| match error {
        MergeError::Incomplete(i) => anyhow::anyhow!(
            "{}: {error}: finish it with 'fairaudit sweep --resume' before merging",
            args.inputs[i - 1].display()
        ),
        other => other.into(),
    })?;
    match existing {
        Existing::Nothing => {}
        Existing::Run { .. } if args.force => {}
        Existing::Run { kind } if kind == "merge" || kind.is_empty() => {
            let same =
                read_tally(&args.out.join(TALLY_FILE)).is_ok_and(|t| t.plan == merged.plan && t.complete);
            if !same {
                bail!(
                    "{} holds the output of a different run; choose another --out, or pass --force to replace it",
                    args.out.display()
                );
            }
        }
        Existing::Run { kind } => bail!(
            "{} holds the output of a fairaudit {kind}; choose another --out, or pass --force to replace it",
            args.out.display()
        ),
    }
    let mut info = RunInfo::for_tallies("merge", &merged, command_line());
    fill_timing(&mut info, started, 0);
    let results = RunResults::compute(&merged, &paytable, &claims, args.report.alpha);
    let report = RunReport { tallies: &merged, run: &info, results: Some(&results) };
    folder.write_all(&report.files())?;
    folder.commit().context("cannot write the merged output")?;
    outln!(
        "merged {} inputs: {} nonces per game and seed pair; output: {}",
        args.inputs.len(),
        merged.plan.rounds_per_sequence(),
        args.out.display()
    );
    Ok(print_battery(&results.battery, "seed pairs"))
}
