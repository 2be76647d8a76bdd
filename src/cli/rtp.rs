//! `fairaudit rtp`: the exact RTP of every bet type, and the published claims checked
//! against it. The figures come from the library (`fairaudit::rtp`); this file parses the
//! arguments, reads the input files, prints and chooses the exit status.

use super::args::{load_claims, load_paytable, parse_scheme, sha3_games};
use super::Verdict;
use anyhow::{bail, Result};
use clap::Args;
use fairaudit::games::GameId;
use fairaudit::rtp::claims::{Claim, ClaimVerdict, BUILTIN_CLAIMS_PATH};
use fairaudit::rtp::crash::{cash_out_rtp, TARGETS};
use fairaudit::rtp::decimal::{format_fixed, format_fraction, format_trimmed, Percent};
use fairaudit::rtp::paytable::ILLUSTRATIVE_LABEL;
use fairaudit::rtp::{check_claim, exact_rtp, ExactRtp, Paytable};
use fairaudit::scheme::crash::exact::instant_probability;
use fairaudit::scheme::crash::CrashVariant;
use fairaudit::scheme::keyed::KeyedScheme;
use fairaudit::scheme::stake::StakeGame;
use fairaudit::scheme::SchemeId;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct RtpArgs {
    /// The provably-fair scheme: sha3 (SPEC.md, the default), stake (the HMAC-SHA256
    /// family: roulette, limbo and plinko, one --game a run), duel (Duel's dice: its
    /// roll-over targets), or bustabit-v1 or roobet (crash: each cash-out target).
    #[arg(long, value_name = "NAME", value_parser = parse_scheme)]
    scheme: Option<SchemeId>,
    /// The game: keno, roulette-european or roulette-american; repeat for several
    /// (default: all three). With --scheme stake: roulette, limbo or plinko.
    #[arg(long = "game", value_name = "G")]
    games: Vec<String>,
    /// The game's parameters as compact JSON (--scheme stake): {"variant":"fair"} for
    /// limbo, {"rows":16,"risk":"high"} for plinko.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    params: Option<String>,
    /// The Keno paytable, CSV `picks,hits,multiplier` (multiplier = total return per unit
    /// stake). Default: the ILLUSTRATIVE example, NOT the operator's.
    #[arg(long, value_name = "FILE")]
    paytable: Option<PathBuf>,
    /// The published claims, CSV `game,metric,figure,tolerance,source`. Default: the
    /// built-in data/claims.csv (SPEC §6).
    #[arg(long, value_name = "FILE")]
    claims: Option<PathBuf>,
}

/// Digits after the point for percentages, percentage points and variances.
const PLACES: usize = 6;

pub fn run(args: RtpArgs) -> Result<Verdict> {
    if let Some(keyed) = args.scheme.and_then(KeyedScheme::of) {
        return run_keyed(&args, keyed);
    }
    if let Some(variant) = args.scheme.and_then(SchemeId::crash_variant) {
        return run_crash(&args, variant);
    }
    if args.params.is_some() {
        bail!("--params gives a game's parameters in scheme stake; the games of scheme sha3 take none");
    }
    let games = sha3_games(&args.games)?;
    let games = if games.is_empty() { GameId::ALL.to_vec() } else { dedup(games) };
    let paytable = load_paytable(args.paytable.as_deref())?;
    let claims = load_claims(args.claims.as_deref())?;
    let claims_name = match &args.claims {
        Some(path) => path.display().to_string(),
        None => format!("{BUILTIN_CLAIMS_PATH} (SPEC §6, built in)"),
    };
    let illustrative = games.contains(&GameId::Keno) && paytable.is_illustrative();
    if illustrative {
        errln!(
            "warning: Keno uses the {ILLUSTRATIVE_LABEL}; pass the operator's paytable with --paytable FILE"
        );
    }

    let mut all_bets = Vec::new();
    for (i, &game) in games.iter().enumerate() {
        if i > 0 {
            outln!();
        }
        let bets = exact_rtp(game, &paytable);
        print_game(game, &bets, &paytable);
        all_bets.extend(bets);
    }

    let relevant: Vec<&Claim> = claims.iter().filter(|claim| games.contains(&claim.game)).collect();
    outln!();
    outln!("claims: {claims_name}");
    if relevant.is_empty() {
        // Nothing was checked, which a CI gate must not read as every claim holding: an
        // empty claims file, or one about other games only.
        outln!("no claims about the games shown: no claim was checked (not a pass)");
        return Ok(Verdict::Insufficient);
    }
    let verdicts: Vec<ClaimVerdict> = relevant.iter().map(|claim| check_claim(claim, &all_bets)).collect();
    for verdict in &verdicts {
        print_verdict(verdict, verdict.claim.game == GameId::Keno && paytable.is_illustrative());
    }
    let failed: Vec<&ClaimVerdict> = verdicts.iter().filter(|v| !v.holds()).collect();
    if failed.is_empty() {
        outln!("verdict: every claim holds ({} of {})", verdicts.len(), verdicts.len());
    } else {
        let names: Vec<String> =
            failed.iter().map(|v| format!("{} rtp {}%", v.claim.game, v.claim.figure_text)).collect();
        outln!("verdict: {} of {} claims DO NOT HOLD: {}", failed.len(), verdicts.len(), names.join(", "));
    }
    if illustrative {
        outln!("(Keno figures: {ILLUSTRATIVE_LABEL})");
    }
    Ok(if failed.is_empty() { Verdict::Clean } else { Verdict::Finding })
}

/// `rtp --scheme stake`: one game's bets, exact over the 2^32 floats, beside the
/// advertised return (claims files name the default scheme's games, so there are none).
fn run_keyed(args: &RtpArgs, scheme: KeyedScheme) -> Result<Verdict> {
    if args.paytable.is_some() || args.claims.is_some() {
        bail!("--paytable and --claims are the default scheme's; --scheme {scheme} uses the published tables (docs/schemes.md)");
    }
    let game = match args.games.as_slice() {
        [name] => scheme.game(name, args.params.as_deref().unwrap_or("")).map_err(anyhow::Error::msg)?,
        _ => bail!("--scheme {scheme} shows one game a run: pass --game once ({})", scheme.rtp_games()),
    };
    let bets = fairaudit::rtp::stake::exact_rtp(scheme, &game).map_err(anyhow::Error::msg)?;
    outln!("{scheme} {game}: exact RTP per bet over {}, beside the advertised RTP", scheme.law_words());
    if let StakeGame::Plinko { .. } = game {
        outln!(
            "multipliers: Stake's published table (provably-fair-betting paylines @855fd22; docs/schemes.md)"
        );
    }
    let header = ["bet", "pays", "win_%", "rtp_%", "advertised_%", "deviation_pp", "rtp_exact"];
    let rows: Vec<Vec<String>> = bets
        .iter()
        .map(|bet| {
            let points = bet.deviation() * BigRational::from_integer(100.into());
            vec![
                bet.bet.clone(),
                format_trimmed(&bet.pays, 12),
                Percent::of_fraction(&bet.win_probability).text(),
                Percent::of_fraction(&bet.rtp).text(),
                Percent::of_fraction(&bet.advertised).text(),
                format_fixed(&points, 10),
                format_fraction(&bet.rtp),
            ]
        })
        .collect();
    for line in aligned(&header, &rows) {
        outln!("{line}");
    }
    Ok(Verdict::Clean)
}

/// `rtp --scheme bustabit-v1|roobet`: each cash-out target's exact return over the 2^256
/// digests, and what each rule takes (docs/schemes.md).
fn run_crash(args: &RtpArgs, variant: CrashVariant) -> Result<Verdict> {
    let scheme = args.scheme.expect("a crash scheme");
    if args.paytable.is_some() || args.claims.is_some() || args.params.is_some() {
        bail!("--paytable, --claims and --params are not for scheme {scheme}: a crash bet pays its cash-out target");
    }
    if args.games.iter().any(|game| game != "crash") {
        bail!("scheme {scheme} has one game, crash");
    }
    let m = variant.instant_divisor();
    outln!("{scheme} crash: exact return of a cash-out at each target over the 2^256 equally likely HMAC digests");
    outln!(
        "a cash-out at T pays T when the crash point reaches T; 1 game in {m} crashes at once (shown {}: {}% of the digests, to six places), and the formula floor((100 e - h) / (e - h)) reaches T for h >= h_T",
        variant.shown(fairaudit::scheme::crash::CrashPoint::Instant),
        Percent::of_fraction(&instant_probability(variant)).text(),
    );
    let header = ["cash_out", "h_T", "win_%", "rtp_%", "house_edge_%"];
    let rows: Vec<Vec<String>> = TARGETS
        .iter()
        .map(|&target| {
            let bet = cash_out_rtp(variant, target);
            let edge = BigRational::from_integer(1.into()) - &bet.rtp;
            vec![
                format!("{}x", fairaudit::scheme::crash::hundredths_text(target)),
                bet.threshold.to_string(),
                Percent::of_fraction(&bet.win_probability).text(),
                Percent::of_fraction(&bet.rtp).text(),
                Percent::of_fraction(&edge).text(),
            ]
        })
        .collect();
    for line in aligned(&header, &rows) {
        outln!("{line}");
    }
    Ok(Verdict::Clean)
}

fn dedup(games: Vec<GameId>) -> Vec<GameId> {
    let mut seen = Vec::new();
    for game in games {
        if !seen.contains(&game) {
            seen.push(game);
        }
    }
    seen
}

fn print_game(game: GameId, bets: &[ExactRtp], paytable: &Paytable) {
    let keno = game == GameId::Keno;
    if keno {
        outln!("keno: exact RTP per pick count");
        outln!("paytable: {}", paytable.describe());
        if paytable.is_illustrative() {
            outln!(
                "*** ILLUSTRATIVE, NOT THE OPERATOR'S: these Keno figures certify nothing about the operator; \
                 pass the operator's paytable with --paytable FILE ***"
            );
        }
        outln!("P(h hits | k picks) = C(10,h) C(30,k-h) / C(40,k); multiplier = total return per unit stake");
    } else {
        let pockets = if game == GameId::RouletteEuropean { 37 } else { 38 };
        outln!("{game}: exact RTP per bet type");
        outln!("{pockets} equally likely pockets; a bet paying k:1 returns the stake plus k times it");
    }
    let mut header = vec!["bet_type"];
    header.extend(if keno { vec!["picks"] } else { vec!["bets", "pockets", "pays"] });
    header.extend(["rtp_%", "house_edge_%", "hit_freq_%", "variance", "sd", "max_return", "rtp_exact"]);
    if keno {
        header.push("multipliers_by_hits");
    }
    let rows: Vec<Vec<String>> = bets
        .iter()
        .map(|bet| {
            let mut row = vec![bet.bet_type.clone()];
            if keno {
                row.push(bet.covers.to_string());
            } else {
                row.extend([bet.bets.to_string(), bet.covers.to_string(), bet.pays.clone()]);
            }
            let sd = bet.variance.to_f64().unwrap_or(f64::NAN).sqrt();
            row.extend([
                bet.rtp_percent().text(),
                bet.house_edge_percent().text(),
                bet.hit_frequency_percent().text(),
                format_fixed(&bet.variance, PLACES),
                format!("{sd:.PLACES$}"),
                format_trimmed(&bet.max_return, 12),
                format_fraction(&bet.rtp),
            ]);
            if keno {
                row.push(paytable.row_text(bet.covers));
            }
            row
        })
        .collect();
    for line in aligned(&header, &rows) {
        outln!("{line}");
    }
}

/// Columns padded to their widest cell: text left-aligned, numbers right-aligned; no
/// trailing spaces.
fn aligned(header: &[&str], rows: &[Vec<String>]) -> Vec<String> {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).chain([header[c].len()]).max().unwrap_or(0))
        .collect();
    let numeric: Vec<bool> = (0..header.len())
        .map(|c| rows.iter().all(|r| r[c].starts_with(|ch: char| ch.is_ascii_digit()) && !r[c].contains(' ')))
        .collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if numeric[c] {
                    format!("{cell:>width$}", width = widths[c])
                } else {
                    format!("{cell:<width$}", width = widths[c])
                }
            })
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut lines = vec![line(header.to_vec())];
    lines.extend(rows.iter().map(|row| line(row.iter().map(String::as_str).collect())));
    lines
}

fn print_verdict(verdict: &ClaimVerdict, illustrative: bool) {
    let claim = &verdict.claim;
    let source = if claim.source.is_empty() { String::new() } else { format!(" [{}]", claim.source) };
    outln!(
        "line {}: {} rtp {}% +/- {} pp{source}",
        claim.line,
        claim.game,
        claim.figure_text,
        format_trimmed(&claim.tolerance.0, 12)
    );
    let against = if illustrative { format!(" (against the {ILLUSTRATIVE_LABEL})") } else { String::new() };
    let total = verdict.checks.len();
    let side = |deviation: &Percent| if deviation.is_negative() { "below" } else { "above" };
    if verdict.holds() {
        let furthest = verdict.furthest().expect("a verdict that holds has checks");
        outln!(
            "  HOLDS for all {total} bet types{against}: furthest is {} at {}%, {} pp {} the claim",
            furthest.bet_type,
            furthest.rtp_percent.text(),
            furthest.deviation.abs().text(),
            side(&furthest.deviation),
        );
    } else {
        let failures: Vec<_> = verdict.failures().collect();
        outln!("  DOES NOT HOLD for {} of {total} bet types{against}:", failures.len());
        let rows: Vec<Vec<String>> = failures
            .iter()
            .map(|check| {
                vec![
                    check.bet_type.clone(),
                    format!("{}%", check.rtp_percent.text()),
                    format!(
                        "{} pp {} the claim, {} pp beyond the tolerance",
                        check.deviation.abs().text(),
                        side(&check.deviation),
                        check.beyond_tolerance.text()
                    ),
                ]
            })
            .collect();
        for line in aligned(&["bet_type", "rtp", "deviation"], &rows).into_iter().skip(1) {
            outln!("    {line}");
        }
    }
}
