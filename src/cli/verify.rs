//! `fairaudit verify`: one round from its seeds, or a whole bet history from a file.

use super::output::AtomicFile;
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::chain::beyond_reference;
use fairaudit::conformance::Case;
use fairaudit::games::GameId;
use fairaudit::report::spreadsheet_safe;
use fairaudit::verify::{parse_nonce, replay, RoundsChecker, REQUIRED};
use std::io::{self, Read};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The game: keno, roulette-european or roulette-american.
    #[arg(long, value_name = "G", value_parser = parse_game, required_unless_present = "rounds")]
    game: Option<GameId>,
    /// The revealed server seed (any string).
    #[arg(long, value_name = "S", required_unless_present = "rounds", allow_hyphen_values = true)]
    server_seed: Option<String>,
    /// The client seed (any string, may be empty).
    #[arg(long, value_name = "C", required_unless_present = "rounds", allow_hyphen_values = true)]
    client_seed: Option<String>,
    /// The round's nonce: plain decimal, 0 to 2^64 − 1.
    #[arg(long, value_name = "N", value_parser = parse_nonce_arg, required_unless_present = "rounds", allow_hyphen_values = true)]
    nonce: Option<u64>,
    /// The commitment shown before play (64 hex characters); a mismatch exits 1.
    #[arg(long, value_name = "HEX")]
    commitment: Option<String>,
    /// Check every round of a CSV bet history (SPEC §7 columns); `-` reads stdin.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["game", "server_seed", "client_seed", "nonce", "commitment"])]
    rounds: Option<PathBuf>,
    /// With --rounds: also write the mismatches as CSV to this file.
    #[arg(long, value_name = "FILE", requires = "rounds")]
    out: Option<PathBuf>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
}

pub fn parse_game(text: &str) -> Result<GameId, String> {
    text.parse().map_err(|e: fairaudit::games::UnknownGame| e.to_string())
}

fn parse_nonce_arg(text: &str) -> Result<u64, String> {
    parse_nonce(text).map_err(|e| e.to_string())
}

pub fn run(args: VerifyArgs) -> Result<Verdict> {
    match args.rounds.clone() {
        Some(path) => verify_file(path, args.out, args.force),
        None => verify_one(args),
    }
}

const BEYOND_REFERENCE_NOTE: &str = "note: nonce above 2^53 - 1: the operator's reference \
verifier cannot represent it, so there is no reference behaviour to compare with";

fn verify_one(args: VerifyArgs) -> Result<Verdict> {
    let (Some(game), Some(server), Some(client), Some(nonce)) =
        (args.game, args.server_seed, args.client_seed, args.nonce)
    else {
        bail!("--game, --server-seed, --client-seed and --nonce are all needed");
    };
    if let Some(given) = &args.commitment {
        if given.len() != 64 || !given.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("--commitment must be 64 hex characters, got '{given}'");
        }
    }
    let round = replay(game, &server, &client, nonce);
    if beyond_reference(nonce) {
        eprintln!("{BEYOND_REFERENCE_NOTE}");
    }
    println!("game:            {game}");
    println!("nonce:           {nonce}");
    println!("commitment:      {}", round.commitment);
    println!("round signature: {}", round.round_signature);
    if game == GameId::Keno {
        println!("draw order:      {}", round.draw_order);
    }
    println!("result:          {}", round.result);
    println!("u32 used:        {}", round.u32_used);
    match args.commitment {
        Some(given) if !given.eq_ignore_ascii_case(&round.commitment) => {
            println!(
                "commitment check: MISMATCH: given {given}, the server seed hashes to {}",
                round.commitment
            );
            Ok(Verdict::Finding)
        }
        Some(_) => {
            println!("commitment check: OK");
            Ok(Verdict::Clean)
        }
        None => Ok(Verdict::Clean),
    }
}

fn verify_file(path: PathBuf, out: Option<PathBuf>, force: bool) -> Result<Verdict> {
    let name = path.display().to_string();
    let input: Box<dyn Read> = if name == "-" {
        Box::new(io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(&path).with_context(|| format!("{name}: cannot open"))?)
    };
    // Refuse an existing --out before reading anything.
    let report_file = out.as_deref().map(|target| AtomicFile::create(target, force)).transpose()?;
    let mut checker = RoundsChecker::new(input).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let challenge = checker.is_challenge();
    let mut report = match report_file {
        Some(file) => {
            let mut writer = csv::Writer::from_writer(file);
            if challenge {
                writer.write_record(["line", "case", "field", "file_value", "computed_value"])?;
            } else {
                writer.write_record(["line", "field", "file_value", "computed_value"])?;
            }
            Some(writer)
        }
        None => None,
    };

    let (mut rounds, mut mismatches, mut beyond) = (0u64, 0u64, 0u64);
    // Per challenge case that failed: its label and the fields that disagree.
    let mut failed: Vec<(String, Vec<&'static str>)> = Vec::new();
    for row in checker.by_ref() {
        let row = row.map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        rounds += 1;
        beyond += u64::from(row.beyond_reference);
        for m in &row.mismatches {
            mismatches += 1;
            let at = match &row.case {
                Some(case) => format!("line {} ({case})", m.line),
                None => format!("line {}", m.line),
            };
            // In a challenge, an input that differs is compared with the challenge's.
            let source = if REQUIRED.contains(&m.field) { "the challenge has" } else { "computed" };
            println!("{at}: {}: file has '{}', {source} '{}'", m.field, m.file_value, m.computed_value);
            if let Some(writer) = report.as_mut() {
                let line = m.line.to_string();
                let (file_value, computed_value) =
                    (spreadsheet_safe(&m.file_value), spreadsheet_safe(&m.computed_value));
                match &row.case {
                    Some(case) => writer.write_record([
                        line.as_str(),
                        &spreadsheet_safe(case),
                        m.field,
                        &file_value,
                        &computed_value,
                    ])?,
                    None => writer.write_record([line.as_str(), m.field, &file_value, &computed_value])?,
                }
            }
        }
        if let Some(case) = row.case {
            if !row.mismatches.is_empty() {
                failed.push((case, row.mismatches.iter().map(|m| m.field).collect()));
            }
        }
    }
    let unanswered = checker.unanswered();
    if let Some(writer) = report.as_mut() {
        for case in &unanswered {
            writer.write_record(["", &spreadsheet_safe(&case.label), "case", "", "not answered"])?;
        }
    }
    if let Some(writer) = report {
        writer.into_inner().map_err(|e| e.into_error())?.commit()?;
    }
    if beyond > 0 {
        eprintln!("{BEYOND_REFERENCE_NOTE} ({beyond} rounds)");
    }
    println!("{rounds} rounds checked, {mismatches} mismatches");
    if challenge {
        print_challenge_summary(&checker.answered_games(), rounds, &failed, &unanswered);
    }
    Ok(if mismatches == 0 && unanswered.is_empty() { Verdict::Clean } else { Verdict::Finding })
}

/// The per-case verdict of a conformance answer: how many of the challenge's cases (of
/// the games the file answers) pass, then each failing case with the fields it got
/// wrong, and each case with no row.
fn print_challenge_summary(
    games: &[GameId],
    answered: u64,
    failed: &[(String, Vec<&'static str>)],
    unanswered: &[&Case],
) {
    let cases = answered + unanswered.len() as u64;
    let failing = (failed.len() + unanswered.len()) as u64;
    let names: Vec<&str> = games.iter().map(|game| game.name()).collect();
    print!(
        "conformance challenge of fairaudit {} ({}): {} of {cases} cases pass",
        env!("CARGO_PKG_VERSION"),
        names.join(", "),
        cases - failing
    );
    if failing == 0 {
        println!();
        return;
    }
    println!(", {failing} fail:");
    for (case, fields) in failed {
        println!("  FAIL {case}: {}", fields.join(", "));
    }
    for case in unanswered {
        println!("  MISSING {}: no row answers it", case.label);
    }
}
