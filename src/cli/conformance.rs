//! `fairaudit conformance`: writes the conformance challenge for another implementation
//! of a scheme to fill, or lists its cases. `verify --rounds` judges the filled file.

use super::args::{parse_scheme, sha3_games};
use super::output::AtomicFile;
use super::print::ShownPath;
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::conformance::stake;
use fairaudit::conformance::{challenge, ChallengeCase, CHALLENGE_FILE};
use fairaudit::games::GameId;
use fairaudit::report::challenge::{challenge_table, stake_challenge_table};
use fairaudit::report::Table;
use fairaudit::scheme::SchemeId;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// Write challenge.csv into this folder (created when missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    out: Option<PathBuf>,
    /// Replace challenge.csv in --out if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// The provably-fair scheme whose challenge to write: sha3 (SPEC.md, the default) or
    /// stake (the HMAC-SHA256 family, docs/schemes.md).
    #[arg(long, value_name = "NAME", value_parser = parse_scheme)]
    scheme: Option<SchemeId>,
    /// Only this game's cases; repeat for several (default: every game of the scheme;
    /// with --scheme stake, limbo is its three formulas, limbo-fair one of them).
    #[arg(long = "game", value_name = "G")]
    games: Vec<String>,
    /// Print the cases (kind, nonce, seed lengths, label) instead of writing them.
    #[arg(long, conflicts_with = "out")]
    list: bool,
}

pub fn run(args: ConformanceArgs) -> Result<Verdict> {
    let (table, counts, rows) = match args.scheme.unwrap_or_default() {
        SchemeId::Sha3 => {
            let chosen = sha3_games(&args.games)?;
            let games: Vec<GameId> =
                GameId::ALL.into_iter().filter(|game| chosen.is_empty() || chosen.contains(game)).collect();
            let cases = challenge(&games);
            let count = |name: &str| cases.iter().filter(|case| case.game.name() == name).count();
            let counts: Vec<(&str, usize)> =
                games.iter().map(|game| (game.name(), count(game.name()))).collect();
            (challenge_table(&cases), counts, rows(&cases))
        }
        SchemeId::Stake => {
            let groups = stake_groups(&args.games)?;
            let cases = stake::challenge(&groups);
            let count =
                |group: &str| cases.iter().filter(|case| stake::group_of(&case.game) == group).count();
            let counts: Vec<(&str, usize)> = groups.iter().map(|&group| (group, count(group))).collect();
            (stake_challenge_table(&cases), counts, rows(&cases))
        }
        scheme => {
            bail!("scheme {scheme} has no conformance challenge yet: verify its games with verify --rounds (docs/schemes.md)")
        }
    };
    match args.out {
        Some(dir) => write_challenge(&dir, args.force, &table, &counts)?,
        None => list(&rows),
    }
    Ok(Verdict::Clean)
}

/// The stake challenge's groups that `--game` names, in the challenge's order: every
/// group when none is named.
fn stake_groups(names: &[String]) -> Result<Vec<&'static str>> {
    let mut chosen = Vec::new();
    for name in names {
        let groups = stake::groups_of_game(name);
        if groups.is_empty() {
            bail!(
                "invalid value for --game: '{}' is no game of scheme stake (expected {}, or {})",
                fairaudit::fields::Excerpt(name),
                fairaudit::scheme::stake::GAMES.join(", "),
                stake::GROUPS
                    .iter()
                    .filter(|g| g.starts_with("limbo-"))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        chosen.extend(groups);
    }
    Ok(stake::GROUPS.into_iter().filter(|group| chosen.is_empty() || chosen.contains(group)).collect())
}

fn write_challenge(dir: &Path, force: bool, table: &Table, counts: &[(&str, usize)]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let target = dir.join(CHALLENGE_FILE);
    let mut file = AtomicFile::create(&target, force)?;
    file.write_all(&table.to_csv())?;
    file.commit()?;
    let total: usize = counts.iter().map(|(_, count)| count).sum();
    let counts: Vec<String> = counts.iter().map(|(group, count)| format!("{group} {count}")).collect();
    outln!("wrote {}: {total} cases ({})", ShownPath(&target), counts.join(", "));
    outln!(
        "fill its outcome columns with the implementation under test, then: fairaudit verify --rounds FILE"
    );
    Ok(())
}

/// One listed case: kind, nonce, server and client seed lengths in bytes, label.
type Row = (&'static str, u64, usize, usize, String);

/// The listing of a challenge's cases.
fn rows<C: ChallengeCase>(cases: &[C]) -> Vec<Row> {
    cases
        .iter()
        .map(|c| {
            let (server, client) = c.seeds();
            (c.kind_name(), c.nonce(), server.len(), client.len(), c.label().to_owned())
        })
        .collect()
}

fn list(rows: &[Row]) {
    outln!("{:<11}  {:>16}  {:>6}  {:>6}  case", "kind", "nonce", "server", "client");
    for (kind, nonce, server, client, label) in rows {
        outln!("{kind:<11}  {nonce:>16}  {server:>6}  {client:>6}  {label}");
    }
}
