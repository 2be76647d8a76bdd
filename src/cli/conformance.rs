//! `fairaudit conformance`: writes the conformance challenge for another implementation
//! of the chain to fill, or lists its cases. `verify --rounds` judges the filled file.

use super::args::parse_game;
use super::output::AtomicFile;
use super::Verdict;
use anyhow::{Context, Result};
use clap::Args;
use fairaudit::conformance::{challenge, Case, CHALLENGE_FILE};
use fairaudit::games::GameId;
use fairaudit::report::challenge::challenge_table;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// Write challenge.csv into this folder (created when missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    out: Option<PathBuf>,
    /// Replace challenge.csv in --out if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// Only this game's cases; repeat for several (default: all three).
    #[arg(long = "game", value_name = "G", value_parser = parse_game)]
    games: Vec<GameId>,
    /// Print the cases (kind, nonce, seed lengths, label) instead of writing them.
    #[arg(long, conflicts_with = "out")]
    list: bool,
}

pub fn run(args: ConformanceArgs) -> Result<Verdict> {
    let games: Vec<GameId> =
        GameId::ALL.into_iter().filter(|game| args.games.is_empty() || args.games.contains(game)).collect();
    let cases = challenge(&games);
    match args.out {
        Some(dir) => write_challenge(&dir, args.force, &games, &cases)?,
        None => list(&cases),
    }
    Ok(Verdict::Clean)
}

fn write_challenge(dir: &std::path::Path, force: bool, games: &[GameId], cases: &[Case]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let target = dir.join(CHALLENGE_FILE);
    let mut file = AtomicFile::create(&target, force)?;
    file.write_all(&challenge_table(cases).to_csv())?;
    file.commit()?;
    let counts: Vec<String> = games
        .iter()
        .map(|&game| format!("{game} {}", cases.iter().filter(|case| case.game == game).count()))
        .collect();
    outln!("wrote {}: {} cases ({})", target.display(), cases.len(), counts.join(", "));
    outln!(
        "fill its outcome columns with the implementation under test, then: fairaudit verify --rounds FILE"
    );
    Ok(())
}

fn list(cases: &[Case]) {
    outln!("{:<11}  {:>16}  {:>6}  {:>6}  case", "kind", "nonce", "server", "client");
    for case in cases {
        outln!(
            "{:<11}  {:>16}  {:>6}  {:>6}  {}",
            case.kind.name(),
            case.nonce,
            case.server_seed.len(),
            case.client_seed.len(),
            case.label
        );
    }
}
