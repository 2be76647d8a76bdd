//! `fairaudit verify`: one round from its seeds, or a whole bet history from a file.

use super::args::{parse_commitment, parse_nonce_arg, parse_scheme, LayoutArgs};
use super::input::{self, install_stop_handler, STOP};
use super::output::AtomicFile;
use super::progress::{Progress, Unit};
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::chain::beyond_reference;
use fairaudit::columns::CsvLayout;
use fairaudit::fields::Shown;
use fairaudit::games::GameId;
use fairaudit::report::{csv_writer, spreadsheet_safe};
use fairaudit::scheme::crash::{self, CrashVariant};
use fairaudit::scheme::keyed::KeyedScheme;
use fairaudit::scheme::stake;
use fairaudit::scheme::SchemeId;
use fairaudit::sweep::crash::{link_to_published, ChainLink, MAX_LINK_WALK};
use fairaudit::verify::published::MAX_WALK;
use fairaudit::verify::published::{walk_budget, walk_rows, MAX_ROWS, MAX_WALKERS};
use fairaudit::verify::schemes::PARAMS_COLUMN;
use fairaudit::verify::{replay, Mismatch, Rounds, ALL_FIELDS, CASE_COLUMN, NO_CASE, REQUIRED};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The provably-fair scheme: sha3 (SPEC.md, the default), stake (the HMAC-SHA256
    /// family), duel (Duel's dice), bustabit-v1 or roobet (crash games from a hash chain: the server seed is
    /// the game hash, the client seed the salt, the nonce the game number). With
    /// --rounds: the scheme of a file without a `scheme` column.
    #[arg(long, value_name = "NAME", value_parser = parse_scheme)]
    scheme: Option<SchemeId>,
    /// The game: keno, roulette-european or roulette-american; with --scheme stake: dice,
    /// limbo, keno, roulette, plinko or mines; with a crash scheme: crash.
    #[arg(long, value_name = "G", required_unless_present = "rounds")]
    game: Option<String>,
    /// The game's parameters as compact JSON (--scheme stake): {"variant":"fair"} for
    /// limbo, {"rows":16,"risk":"high"} for plinko, {"mines":3} for mines.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    params: Option<String>,
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
    #[arg(long, value_name = "HEX", value_parser = parse_commitment)]
    commitment: Option<String>,
    /// Check every round of a CSV bet history (SPEC §7 columns); `-` reads stdin.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["game", "server_seed", "client_seed", "nonce", "commitment", "params"])]
    rounds: Option<PathBuf>,
    /// With --rounds: the file must answer the conformance challenge for this game (repeat,
    /// or separate by commas): each of its cases no row answers fails, where a game no
    /// row answers is otherwise only named as not judged. The stake challenge's games are
    /// its groups (limbo-fair, not limbo). For CI jobs gating an adapter.
    #[arg(long = "expect-game", value_name = "G", requires = "rounds", value_delimiter = ',')]
    expect_games: Vec<String>,
    /// With --rounds: also write the mismatches as CSV to this file.
    #[arg(long, value_name = "FILE", requires = "rounds")]
    out: Option<PathBuf>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// With --rounds: no progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    layout: LayoutArgs,
}

pub fn run(args: VerifyArgs) -> Result<Verdict> {
    match args.rounds.clone() {
        Some(path) => {
            let layout = args.layout.layout(&ALL_FIELDS)?;
            let file = FileCheck { scheme: args.scheme, expect_games: args.expect_games, quiet: args.quiet };
            verify_file(path, &layout, &file, args.out, args.force)
        }
        None if args.layout.given() => {
            bail!("--column, --columns and --delimiter describe a --rounds file; there is none")
        }
        None => verify_one(args),
    }
}

const BEYOND_REFERENCE_NOTE: &str = "note: nonce above 2^53 - 1: the operator's reference \
verifier cannot represent it, so there is no reference behaviour to compare with";

fn verify_one(args: VerifyArgs) -> Result<Verdict> {
    // clap requires all four unless --rounds is given, and --rounds took the other branch.
    let name = args.game.as_deref().expect("clap requires --game");
    let (server, client) = (
        args.server_seed.as_deref().expect("clap requires it"),
        args.client_seed.as_deref().expect("clap requires it"),
    );
    let nonce = args.nonce.expect("clap requires --nonce");
    let scheme = args.scheme.unwrap_or_default();
    if let Some(keyed) = KeyedScheme::of(scheme) {
        return verify_one_keyed(&args, keyed, name, server, client, nonce);
    }
    if let Some(variant) = scheme.crash_variant() {
        return verify_one_crash(&args, scheme, variant, name, server, client, nonce);
    }
    let game: GameId =
        name.parse().map_err(|error: fairaudit::games::UnknownGame| match stake::GAMES.contains(&name) {
            true => anyhow::anyhow!("--game {name} is a game of scheme stake; pass --scheme stake"),
            false => error.into(),
        })?;
    if args.params.is_some() {
        bail!("--params gives a game's parameters in scheme stake; {game} of scheme sha3 takes none");
    }
    let round = replay(game, server, client, nonce);
    if fairaudit::chain::seeds::seeds_are_ambiguous(server, client) {
        errln!("warning: this seed pair {}", fairaudit::chain::seeds::AMBIGUOUS_SEEDS);
    }
    if beyond_reference(nonce) {
        errln!("{BEYOND_REFERENCE_NOTE}");
    }
    outln!("game:            {game}");
    outln!("nonce:           {nonce}");
    outln!("commitment:      {}", round.commitment);
    outln!("round signature: {}", round.round_signature);
    if game == GameId::Keno {
        outln!("draw order:      {}", round.draw_order);
    }
    outln!("result:          {}", round.result);
    outln!("u32 used:        {}", round.u32_used);
    Ok(check_commitment(args.commitment.as_deref(), &round.commitment))
}

/// One round of a keyed scheme (`--scheme stake`, ...).
fn verify_one_keyed(
    args: &VerifyArgs,
    scheme: KeyedScheme,
    name: &str,
    server: &str,
    client: &str,
    nonce: u64,
) -> Result<Verdict> {
    let game = scheme.game(name, args.params.as_deref().unwrap_or("")).map_err(anyhow::Error::msg)?;
    let pair = scheme.pair(server, client).map_err(anyhow::Error::msg)?;
    let commitment = scheme.commitment(server).map_err(anyhow::Error::msg)?;
    let (outcome, used) = pair.round(&game, nonce).map_err(anyhow::Error::msg)?;
    if beyond_reference(nonce) {
        errln!("note: nonce above 2^53 - 1: the operators' JavaScript cannot represent it, so there is no reference behaviour to compare with");
    }
    outln!("scheme:          {scheme}");
    match game.params() {
        params if params.is_empty() => outln!("game:            {}", game.name()),
        params => outln!("game:            {} {params}", game.name()),
    }
    outln!("nonce:           {nonce}");
    outln!("commitment:      {commitment}");
    outln!("result:          {}", game.result_text(&outcome));
    outln!("{:<17}{used}", format!("{} used:", scheme.word_name()));
    Ok(check_commitment(args.commitment.as_deref(), &commitment))
}

/// One crash game (`--scheme bustabit-v1|roobet --game crash`): the server seed is the
/// game's hash, the client seed the salt, the nonce the game's number.
fn verify_one_crash(
    args: &VerifyArgs,
    scheme: SchemeId,
    variant: CrashVariant,
    name: &str,
    hash: &str,
    salt: &str,
    game: u64,
) -> Result<Verdict> {
    if name != "crash" {
        bail!("unknown game '{}' of scheme {scheme} (expected crash)", fairaudit::fields::Excerpt(name));
    }
    if args.params.is_some() {
        bail!("--params gives a game's parameters in scheme stake; crash of scheme {scheme} takes none");
    }
    if !crash::is_game_hash(hash) {
        bail!("--server-seed '{}' is not a game hash of scheme {scheme}: 64 lowercase hex digits, as the chain writes them", fairaudit::fields::Excerpt(hash));
    }
    if !variant.published_salts().contains(&salt) {
        errln!("note: the salt is none of {scheme}'s published seeding events' ({}); the crash point is computed with the salt given", variant.published_salts().join(", "));
    }
    let digest = crash::game_digest(hash, salt);
    let divisor = variant.instant_divisor();
    let rest = crash::digest_mod(&digest, divisor);
    let point = crash::point_of_digest(variant, &digest);
    let previous = crash::previous_hash(hash);
    outln!("scheme:          {scheme}");
    outln!("game:            crash");
    outln!("game number:     {game}");
    outln!("game hash:       {hash}");
    // The hash before it in the chain: game n - 1's, or the published hash at the end.
    outln!("hashes to:       {previous} (SHA-256 of the game hash's text)");
    outln!("HMAC-SHA256:     {}", String::from_utf8_lossy(&fairaudit::chain::hex_lower(&digest)));
    match point {
        crash::CrashPoint::Instant => outln!("instant crash:   yes (the digest is a multiple of {divisor})"),
        crash::CrashPoint::Hundredths(_) => {
            outln!(
                "instant crash:   no (the digest is {rest} modulo {divisor}); top 52 bits h = {}",
                crash::top_bits(&digest)
            )
        }
    }
    outln!("result:          {}", variant.shown(point));
    let linked = link_one_game(variant, salt, game, (hash, &previous), args.quiet)?;
    let committed = check_commitment(args.commitment.as_deref(), &previous);
    Ok(match linked {
        None => Verdict::Interrupted,
        Some(false) => Verdict::Finding,
        Some(true) => committed,
    })
}

/// The `chain:` line of one crash game: its hash (and the one it hashes to, `previous`)
/// walked down to the published game of its salt's chain. `Some(false)` when the walk
/// misses the published hash, `None` when stopped.
fn link_one_game(
    variant: CrashVariant,
    salt: &str,
    game: u64,
    (hash, previous): (&str, &str),
    quiet: bool,
) -> Result<Option<bool>> {
    let Some(published) = variant.published_game(salt) else {
        outln!("chain:           not checked (the salt seeds no published chain)");
        return Ok(Some(true));
    };
    if game == published.game {
        let same = hash == published.hash;
        match same {
            true => outln!("chain:           the published hash of game {game}"),
            false => outln!("chain:           MISMATCH: game {game}'s published hash is {}", published.hash),
        }
        return Ok(Some(same));
    }
    if game < published.first_played {
        outln!(
            "chain:           not checked (game {game} was never played: the published chain's first game is {})",
            published.first_played
        );
        return Ok(Some(true));
    }
    let steps = published.game.abs_diff(game - 1);
    if steps > MAX_LINK_WALK {
        outln!("chain:           not checked ({steps} links to the published game {}, more than {MAX_LINK_WALK})", published.game);
        return Ok(Some(true));
    }
    install_stop_handler()?;
    let bar = Progress::new(Some(steps), Unit::Links, quiet);
    let link = link_to_published(variant, salt, game..game + 1, previous, &STOP, &|n| bar.inc(n));
    drop(bar);
    Ok(link.map(|link| match link {
        ChainLink::Linked { game: published, steps, .. } => {
            outln!("chain:           reaches the published hash of game {published} ({} links walked)", steps + 1);
            true
        }
        ChainLink::Broken { game: published, hash, steps, reached, .. } => {
            outln!(
                "chain:           MISMATCH: {} links walked reach {reached}, not the published hash of game {published}, {hash} (the game number is wrong, or the hash is not of the committed chain)",
                steps + 1
            );
            false
        }
        ChainLink::Unanchored => true,
    }))
}

/// Compares the commitment given with the server seed's, saying which.
fn check_commitment(given: Option<&str>, computed: &str) -> Verdict {
    match given {
        Some(given) if !given.eq_ignore_ascii_case(computed) => {
            outln!("commitment check: MISMATCH: given {given}, the server seed hashes to {computed}");
            Verdict::Finding
        }
        Some(_) => {
            outln!("commitment check: OK");
            Verdict::Clean
        }
        None => Verdict::Clean,
    }
}

/// How a `--rounds` file is read and judged.
struct FileCheck {
    scheme: Option<SchemeId>,
    /// The games a conformance answer must answer (`--expect-game`).
    expect_games: Vec<String>,
    quiet: bool,
}

fn verify_file(
    path: PathBuf,
    layout: &CsvLayout,
    file: &FileCheck,
    out: Option<PathBuf>,
    force: bool,
) -> Result<Verdict> {
    let quiet = file.quiet;
    let name = path.display().to_string();
    // Refuse an existing --out before reading anything; Ctrl-C then leaves no temporary
    // file behind (the reader stops, the unfinished file is dropped and removed).
    let report_file = out.as_deref().map(|target| AtomicFile::create(target, force)).transpose()?;
    install_stop_handler()?;
    let (input, bar) = input::open_with_progress(&path, quiet)?;
    let mut checker = Rounds::open(input, layout, file.scheme).with_context(|| name.clone())?;
    // `--expect-game "keno, roulette-european"`: the spaces of a list typed by hand.
    let expected: Vec<String> = file.expect_games.iter().map(|game| game.trim().to_owned()).collect();
    checker.expect_games(&expected).context("--expect-game")?;
    let challenge = checker.is_challenge();
    let mut report = match report_file {
        Some(file) => {
            let mut writer = csv_writer(file);
            if challenge {
                writer.write_record(["line", "case", "field", "file_value", "computed_value"])?;
            } else {
                writer.write_record(["line", "field", "file_value", "computed_value"])?;
            }
            Some(writer)
        }
        None => None,
    };

    let (mut rounds, mut cases_answered, mut mismatches, mut beyond) = (0u64, 0u64, 0u64, 0u64);
    // Per challenge case that failed: its label and the fields that disagree.
    let mut failed: Vec<(String, Vec<&'static str>)> = Vec::new();
    for row in checker.by_ref() {
        let row = row.with_context(|| name.clone())?;
        rounds += 1;
        cases_answered += u64::from(row.case.is_some());
        beyond += u64::from(row.beyond_reference);
        for m in &row.mismatches {
            mismatches += 1;
            print_mismatch(m, row.case.as_deref(), challenge, report.as_mut())?;
        }
        if let Some(case) = row.case {
            if !row.mismatches.is_empty() {
                failed.push((case, row.mismatches.iter().map(|m| m.field).collect()));
            }
        }
    }
    drop(bar);
    let walks = walk_to_published(&mut checker, quiet)?;
    for walk in &walks {
        for m in &walk.off {
            mismatches += 1;
            print_mismatch(m, None, challenge, report.as_mut())?;
        }
    }
    let unanswered = checker.unanswered();
    if let Some(writer) = report.as_mut() {
        for case in &unanswered {
            writer.write_record(["", &spreadsheet_safe(case), "case", "", "not answered"])?;
        }
    }
    if let Some(writer) = report {
        writer.into_inner().map_err(|e| e.into_error())?.commit()?;
    }
    if beyond > 0 {
        errln!("{BEYOND_REFERENCE_NOTE} ({beyond} rounds)");
    }
    outln!("{rounds} rounds checked, {mismatches} mismatches");
    if let Some(links) = checker.chain_links().filter(|links| links.rows > 0) {
        outln!(
            "crash games: {} of {} checked against the game on the row before them; the others stand alone (another chain, or more than {MAX_WALK} games away)",
            links.linked,
            links.rows
        );
        if links.other_salts > 0 {
            outln!("note: {} crash rows use a salt that is none of the published seeding events' (docs/schemes.md)", links.other_salts);
        }
        for walk in &walks {
            outln!(
                "crash games on {2}'s published chain: {0} of {1}, walked through its published game {3} ({4} links){5}",
                walk.linked,
                walk.games,
                walk.scheme,
                walk.published,
                walk.steps,
                not_walked(walk)
            );
        }
        if links.not_kept > 0 {
            outln!(
                "note: {} crash games beyond the first {MAX_ROWS} were not walked to their published game",
                links.not_kept
            );
        }
    }
    if let Some(only) = checker.only_cases() {
        // An answer that lost its `case` column and begins with a hand-made seed pair is
        // read as plain rounds; its rounds are right, but the cases it leaves out must be
        // seen (docs/conformance.md).
        outln!(
            "note: every row is the round of a conformance case ({} of them), but the file is checked as plain rounds (no `case` column, and its first row is not one of the challenge's derived rounds): the {} other cases of its games are not judged; pass --expect-game to judge it as an answer",
            only.answered,
            only.left_out
        );
    }
    if challenge {
        print_challenge_summary(&checker.answered_games(), cases_answered, &failed, &unanswered);
        if rounds > cases_answered {
            outln!("  and {} rows that answer no case (each a mismatch above)", rounds - cases_answered);
        }
        // Leaving a game out is a choice (an operator without it, one limbo formula), but
        // it must be seen: a CI job whose adapter skipped a game would otherwise pass.
        let unjudged = checker.unjudged_games();
        if !unjudged.is_empty() {
            outln!("  not judged (no row answers them): {}", unjudged.join(", "));
        }
    }
    // Nothing found, but nothing judged (exit 3): a file with no rounds. (A challenge
    // answer's games left out are named above but exit 0: a challenge written with
    // `conformance --game` holds only the games asked for, and the answer cannot tell;
    // --expect-game says which it must hold.)
    if rounds == 0 {
        outln!("nothing checked: the file holds no rounds");
    }
    Ok(match (mismatches == 0 && unanswered.is_empty(), rounds == 0) {
        (false, _) => Verdict::Finding,
        (true, true) => Verdict::Insufficient,
        (true, false) => Verdict::Clean,
    })
}

/// One mismatch printed, and written to the report when there is one.
fn print_mismatch(
    m: &Mismatch,
    case: Option<&str>,
    challenge: bool,
    report: Option<&mut csv::Writer<AtomicFile>>,
) -> Result<()> {
    let at = match case {
        Some(case) => format!("line {} ({case})", m.line),
        None => format!("line {}", m.line),
    };
    let source = match m.field {
        // In a challenge, an input that differs is compared with the challenge's.
        field if challenge && (REQUIRED.contains(&field) || field == PARAMS_COLUMN) => "the challenge has",
        // Outside one, a crash game's hash is compared with its neighbour's in the chain.
        "server_seed" => "the chain link needs",
        _ => "computed",
    };
    if m.field == CASE_COLUMN {
        outln!("{at}: {NO_CASE} (seeds and nonce must be passed on unchanged)");
    } else {
        // The file's text shown, not acted on: an ESC sequence in a cell must not redraw
        // this line as a fake "0 mismatches".
        let (file_value, computed) = (Shown(&m.file_value), Shown(&m.computed_value));
        outln!("{at}: {}: file has '{file_value}', {source} '{computed}'", m.field);
    }
    if let Some(writer) = report {
        let line = m.line.to_string();
        let (file_value, computed_value) =
            (spreadsheet_safe(&m.file_value), spreadsheet_safe(&m.computed_value));
        if challenge {
            let case = case.map(spreadsheet_safe).unwrap_or_default();
            writer.write_record([line.as_str(), &case, m.field, &file_value, &computed_value])?;
        } else {
            writer.write_record([line.as_str(), m.field, &file_value, &computed_value])?;
        }
    }
    Ok(())
}

/// A chain of a rounds file walked to its published game, as `verify` says it.
struct ChainWalked {
    scheme: SchemeId,
    published: u64,
    games: usize,
    linked: u64,
    too_far: u64,
    unfollowed: u64,
    over_budget: u64,
    steps: u64,
    /// A mismatch for each game not on the chain through the published hash.
    off: Vec<Mismatch>,
}

/// What the walk to a published game left out, for its summary line.
fn not_walked(walk: &ChainWalked) -> String {
    let ChainWalked { too_far, unfollowed, over_budget, games, .. } = *walk;
    let mut said = String::new();
    if too_far > 0 {
        said.push_str(&format!("; {too_far} more than {MAX_LINK_WALK} links from it, not walked"));
    }
    if unfollowed > 0 {
        said.push_str(&format!(
            "; {unfollowed} not walked (their hashes disagree with {MAX_WALKERS} others already followed)"
        ));
    }
    if over_budget > 0 {
        said.push_str(&format!(
            "; {over_budget} not walked (the walk's budget for {games} games, {} links, was spent: docs/verify.md)",
            walk_budget(games)
        ));
    }
    said
}

/// Walks the crash games of each chain the file holds whose published game fairaudit
/// holds to that game, once per chain ([`walk_rows`]), with a progress bar of links.
fn walk_to_published(checker: &mut Rounds<impl std::io::Read>, quiet: bool) -> Result<Vec<ChainWalked>> {
    let mut walked = Vec::new();
    for chain in checker.take_published_chains() {
        let variant = chain.scheme.crash_variant().expect("a crash scheme");
        let published = variant.published_game(&chain.salt).expect("kept for its published game");
        let mut rows = chain.rows;
        let bar = Progress::new(None, Unit::Links, quiet);
        let walk = walk_rows(published, &mut rows, &STOP, &|n| bar.inc(n))
            .ok_or_else(|| anyhow::Error::new(input::Interrupted))?;
        drop(bar);
        let off = walk
            .off
            .iter()
            .map(|row| Mismatch {
                line: row.line,
                field: "server_seed",
                file_value: crash::hash_text(&row.hash),
                computed_value: format!(
                    "a hash on the chain through {}'s published game {} ({}): game {}'s is not on it",
                    chain.scheme, published.game, published.hash, row.game
                ),
            })
            .collect();
        walked.push(ChainWalked {
            scheme: chain.scheme,
            published: published.game,
            games: rows.len(),
            linked: walk.linked,
            too_far: walk.too_far,
            unfollowed: walk.unfollowed,
            over_budget: walk.over_budget,
            steps: walk.steps,
            off,
        });
    }
    Ok(walked)
}

/// The per-case verdict of a conformance answer: how many of the challenge's cases (of
/// the games the file answers) pass, then each failing case with the fields it got
/// wrong, and each case with no row.
fn print_challenge_summary(
    games: &[&str],
    answered: u64,
    failed: &[(String, Vec<&'static str>)],
    unanswered: &[&str],
) {
    let cases = answered + unanswered.len() as u64;
    let failing = (failed.len() + unanswered.len()) as u64;
    let head = format!(
        "conformance challenge of fairaudit {} ({}): {} of {cases} cases pass",
        env!("CARGO_PKG_VERSION"),
        games.join(", "),
        cases - failing
    );
    if failing == 0 {
        outln!("{head}");
        return;
    }
    outln!("{head}, {failing} fail:");
    for (case, fields) in failed {
        outln!("  FAIL {case}: {}", fields.join(", "));
    }
    for case in unanswered {
        outln!("  MISSING {case}: no row answers it");
    }
}
