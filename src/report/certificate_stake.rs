//! The HMAC-SHA256 family in `certificate.html`: sweeps (`certify --sweep DIR` of a
//! `sweep --scheme stake`) and bet histories (`certify --audit DIR` of an
//! `audit --scheme stake`). Each one's scope (a sweep's game, seed pairs with their
//! commitments and nonces; a history's rows and games), the method (the keyed byte
//! stream, the floats, the games' use of them, the exact laws counted over the 2³²
//! floats, the row checks), the results (the row checks and first findings, the battery,
//! and a sweep's exact RTP per bet beside the advertised one where the game's payouts are
//! published), a sweep's first round and a history's first replayed row worked through,
//! and what they cannot show. Formats only, like the rest of the certificate.

use super::certificate_parts::{
    battery_sentence, count, findings_table, test_notes, test_rows, verdict_span, AuditShown,
    SEED_PAIRS_LISTED,
};
use super::svg::{escape, visible};
use crate::audit::stake::why_unchecked;
use crate::certify::{battery_key, stake_rows_key, stake_rows_text, StakeAuditPart, StakeSweepPart};
use crate::report::stake::StakePlan;
use crate::rtp::decimal::{format_fixed, format_trimmed, Percent};
use crate::rtp::stake::StakeBetRtp;
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::{LimboFormula, StakeGame, UnitFloat};
use crate::scheme::worked::RoundSteps;
use num_rational::BigRational;
use std::fmt::Write;

/// A sweep of the family as the certificate shows it.
pub struct StakeSweepShown<'a> {
    /// The sweep's folder, as given.
    pub dir: &'a str,
    /// What was swept: the game, its parameters, the nonces, the seed pairs.
    pub plan: &'a StakePlan,
    /// The game.
    pub game: StakeGame,
    /// Rounds swept.
    pub rounds: u64,
    /// The exact RTP of each bet of the game, or why none is stated (its payout rule is
    /// not sourced): computed by the caller, the certificate only shows it.
    pub rtp: Result<Vec<StakeBetRtp>, String>,
    /// Its first round (seed pair 0, its first nonce) laid open, or why it has none; `None`
    /// without seed pairs.
    pub worked: Option<Result<RoundSteps, String>>,
    /// The largest relative deviation of the game's outcomes from uniform, where it is
    /// advertised as uniform and is not exactly
    /// ([`crate::scheme::stake::exact::deviation_from_uniform`]).
    pub deviation_from_uniform: Option<f64>,
}

impl StakeSweepShown<'_> {
    fn scheme(&self) -> KeyedScheme {
        self.plan.keyed_scheme()
    }
}

/// The certificate's words for a keyed scheme.
struct Wording {
    /// What its sweeps and histories are called: `Stake sweep 1`, `Duel bet history 2`.
    runs: &'static str,
    /// The scheme, as a scope names it.
    family: &'static str,
    /// The commitment column's heading.
    commitment: &'static str,
    /// The scheme in a sentence: `the HMAC-SHA256 family`.
    short: &'static str,
    /// How a bet history's scope names the scheme.
    history: &'static str,
    /// What the method says of a bet history's row checks.
    row_checks: &'static str,
}

/// What the certificate calls the keyed schemes of its sweeps and bet histories together:
/// `the HMAC-SHA256 family` (Stake's), `Duel's dice`, or both named.
pub(super) fn family(shown: &[StakeSweepShown], audits: &[StakeAuditPart]) -> String {
    let names: Vec<&str> =
        schemes_of(shown, audits).into_iter().map(|scheme| wording(scheme).short).collect();
    match names.as_slice() {
        [] => wording(KeyedScheme::Stake).short.to_owned(),
        [one] => (*one).to_owned(),
        _ => format!("the keyed schemes ({})", names.join(" and ")),
    }
}

/// What the certificate calls a keyed scheme's sweeps and bet histories: `Stake sweep 1`.
pub(super) fn runs(scheme: KeyedScheme) -> &'static str {
    wording(scheme).runs
}

fn wording(scheme: KeyedScheme) -> Wording {
    match scheme {
        KeyedScheme::Stake => Wording {
            runs: "Stake",
            family: "The HMAC-SHA256 family (Stake and its copies)",
            commitment: "SHA-256(server seed)",
            short: "the HMAC-SHA256 family",
            history: "The HMAC-SHA256 family",
            row_checks: "<li><b>Bet histories</b>: each row's result replayed from its revealed seeds, its commitment against SHA-256 of the revealed server seed, no nonce played twice with one seed pair, and its payout against stake × the published multiplier where the game's payout rule is sourced (roulette, limbo, plinko; docs/audit.md); the recorded results, revealed or not, are tested per game (group <code>log</code>).</li>",
        },
        KeyedScheme::Duel => Wording {
            runs: "Duel",
            family: "Duel's dice (HMAC-SHA256 keyed by the hex-decoded server seed, a rejection pick)",
            commitment: "SHA-256(the server seed's bytes)",
            short: "Duel's dice",
            history: "Duel's dice (HMAC-SHA256 keyed by the hex-decoded server seed, a rejection pick)",
            row_checks: "<li><b>Duel's bet histories</b>: each row's result replayed from its revealed seeds, its commitment against SHA-256 of the revealed server seed's bytes, no nonce played twice with one seed pair; payouts are not checked row by row yet (Duel publishes its multiplier, 0.999 / chance, but not how its page rounds it; docs/audit.md); the recorded results, revealed or not, are tested per game (group <code>log</code>).</li>",
        },
    }
}

/// The cover's row of sweep `n` (from 1); `section` is where its results are.
pub fn cover_rows(
    html: &mut String,
    n: usize,
    shown: &StakeSweepShown,
    part: &StakeSweepPart,
    section: &str,
) {
    let _ = write!(
        html,
        "<tr><td>{} sweep {n} ({}, {} rounds, {} seed pair(s)): outcome tests against the exact law</td><td>{}</td><td>§{section}</td></tr>",
        wording(shown.scheme()).runs,
        escape(&shown.game.to_string()),
        count(shown.rounds),
        shown.plan.seed_pairs.len(),
        verdict_span(&battery_key("stake sweep", n), part.battery.overall().as_str()),
    );
}

/// The cover's rows of bet history `n` of the family (from 1); `section` is where its
/// results are.
pub fn audit_cover_rows(
    html: &mut String,
    n: usize,
    shown: &AuditShown,
    part: &StakeAuditPart,
    section: &str,
) {
    let runs = wording(part.audit.scheme).runs;
    let _ = write!(
        html,
        "<tr><td>{runs} bet history {n} ({}, {} rows): row checks</td><td>{}</td><td>§{section}</td></tr>\
         <tr><td>{runs} bet history {n}: outcome tests against the exact laws</td><td>{}</td><td>§{section}</td></tr>",
        visible(shown.outcomes),
        count(part.audit.rows),
        verdict_span(&stake_rows_key(n), stake_rows_text(part.audit)),
        verdict_span(&battery_key("stake audit", n), part.battery.overall().as_str()),
    );
}

/// `1 round`, `2 rounds`.
fn plural(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", count(n), if n == 1 { "" } else { "s" })
}

/// The games of a history of the family with their rounds counted, as text.
fn games_played(part: &StakeAuditPart) -> String {
    let games: Vec<String> = part
        .audit
        .tallies
        .iter()
        .map(|(game, tally)| format!("{game} ({})", plural(tally.rounds, "round")))
        .collect();
    games.join(", ")
}

/// The scope of bet history `n` of the family, as subsection `number`.
pub fn audit_scope(html: &mut String, number: &str, n: usize, shown: &AuditShown, part: &StakeAuditPart) {
    let a = part.audit;
    let words = wording(a.scheme);
    let family = words.history;
    let _ = write!(
        html,
        "<h3>{number} {} bet history {n} (<code>{}</code>, audit folder <code>{}</code>)</h3><p>{family}: {} rows; games {}; {} rows replayed from their revealed seeds, {} not (no revealed server seed, or no client seeds in the history).</p>",
        words.runs,
        visible(shown.outcomes),
        visible(shown.dir),
        count(a.rows),
        escape(&games_played(part)),
        count(a.replayed),
        count(a.rows - a.replayed),
    );
}

/// The scope of sweep `n`, as subsection `number`.
pub fn scope(html: &mut String, number: &str, n: usize, shown: &StakeSweepShown) {
    let plan = shown.plan;
    let words = wording(shown.scheme());
    let _ = write!(
        html,
        "<h3>{number} {} sweep {n} (folder <code>{}</code>)</h3><p>{}, game {}; nonces {}..{} (half-open) per seed pair: {} rounds per seed pair, {} rounds in all.</p>\
         <table><thead><tr><th>seed pair</th><th>server seed (revealed)</th><th>client seed</th><th>commitment = {}</th></tr></thead>",
        words.runs,
        visible(shown.dir),
        words.family,
        escape(&shown.game.to_string()),
        plan.nonces[0],
        plan.nonces[1],
        count(plan.nonces[1] - plan.nonces[0]),
        count(shown.rounds),
        words.commitment,
    );
    for (k, [server, client, commitment]) in plan.seed_pairs.iter().enumerate().take(SEED_PAIRS_LISTED) {
        let _ = write!(
            html,
            "<tr><td>{k}</td><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td></tr>",
            escape(server),
            escape(client),
            escape(commitment)
        );
    }
    html.push_str("</table>");
    if plan.seed_pairs.len() > SEED_PAIRS_LISTED {
        let _ = write!(
            html,
            "<p class=\"note\">{} more seed pairs are listed in the sweep's run.json (pinned in §6).</p>",
            plan.seed_pairs.len() - SEED_PAIRS_LISTED
        );
    }
}

/// How `game` turns the scheme's words into its outcome.
fn game_rule(scheme: KeyedScheme, game: &StakeGame) -> String {
    match (scheme, game) {
        (KeyedScheme::Stake, _) => stake_game_rule(game),
        (KeyedScheme::Duel, StakeGame::Dice) => format!(
            "dice: roll = (w mod 10001) / 100 (0.00 to 100.00) for the first word w below {} = 0xFFFFFFFF − (0xFFFFFFFF mod 10001); a round whose eight words are all rejected (chance about 1.2 · 10⁻⁴⁶) has no result",
            count(scheme.words_of_law(10_001))
        ),
        (KeyedScheme::Duel, _) => format!("{game}: not a game of scheme duel"),
    }
}

/// How a game of the HMAC-SHA256 family turns floats into its outcome.
fn stake_game_rule(game: &StakeGame) -> String {
    match game {
        StakeGame::Dice => "dice: roll = ⌊f · 10001⌋ / 100 (0.00 to 100.00)".into(),
        StakeGame::Roulette => "roulette: pocket = ⌊f · 37⌋".into(),
        StakeGame::Limbo(formula) => format!(
            "limbo: the multiplier by the formula named <code>{}</code>, {}, truncated to two decimals",
            formula.name(),
            match formula {
                LimboFormula::StakePage => "max(⌊10⁸ / (f · 10⁸) · 0.99 · 100⌋ / 100, 1) (stake.com's page)",
                LimboFormula::Verifierform => {
                    "⌊2²⁴ / (⌊f · 2²⁴⌋ + 1) · 0.99 · 100⌋ / 100 (the public verifier verifierform-stake)"
                }
                LimboFormula::Fair => "⌊10⁸ / (⌊f · 10⁸⌋ + 1) · 0.99 · 100⌋ / 100 (the <code>fair</code> crate)",
            }
        ),
        StakeGame::Keno => "Keno: ten numbers drawn without replacement from 1..40 kept in order; draw i (from 0) takes the number at index ⌊f_i · (40 − i)⌋ of those left, in draw order".into(),
        StakeGame::Mines { mines } => format!("mines: {mines} tiles drawn without replacement from 0..24 (row-major) kept in order; draw i (from 0) takes the tile at index ⌊f_i · (25 − i)⌋ of those left"),
        StakeGame::Plinko { rows, risk } => format!("plinko, {rows} rows, {} risk: one float per row, ⌊f · 2⌋ = 1 goes right; the bucket counts the rights (0 = leftmost)", risk.name()),
    }
}

/// The keyed schemes of the certificate's sweeps and bet histories, each once, in
/// [`KeyedScheme::ALL`]'s order.
fn schemes_of(shown: &[StakeSweepShown], audits: &[StakeAuditPart]) -> Vec<KeyedScheme> {
    let present: Vec<KeyedScheme> =
        shown.iter().map(StakeSweepShown::scheme).chain(audits.iter().map(|a| a.audit.scheme)).collect();
    KeyedScheme::ALL.into_iter().filter(|scheme| present.contains(scheme)).collect()
}

/// The steps by which `scheme` makes its outcomes, as list items, with the rules of
/// `games`.
fn scheme_steps(scheme: KeyedScheme, games: &[StakeGame]) -> String {
    let mut rules: Vec<String> = Vec::new();
    for rule in games.iter().map(|game| game_rule(scheme, game)) {
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    let games =
        format!("<li><b>The game{}</b>: {}.</li>", if rules.len() > 1 { "s" } else { "" }, rules.join("; "));
    match scheme {
        KeyedScheme::Stake => format!(
            "<li><b>Commitment</b> = lowercase hex SHA-256 of the server seed's UTF-8 bytes.</li>\
             <li><b>Bytes</b>: block r of nonce n = HMAC-SHA256(key = the server seed's UTF-8 bytes, message = <code>client_seed:n:r</code>) for r = 0, 1, …; a round reads its blocks in order through a cursor.</li>\
             <li><b>Floats</b>: four bytes b₀..b₃ make f = Σ bᵢ / 256^(i+1) = k / 2³² for the big-endian 32-bit k; eight floats a block. Every ⌊f · n⌋ is computed exactly as (k · n) ≫ 32; limbo's formulas run in 64-bit floating point, in their sources' own order of operations.</li>\
             {games}\
             <li><b>Exact laws, not the advertised ones</b>: f takes 2³² equally likely values, so ⌊f · n⌋ is not exactly uniform; each outcome's probability is its count of preimages among the 2³² floats, and every test is against these exact laws (docs/schemes.md).</li>"
        ),
        KeyedScheme::Duel => format!(
            "<li><b>Commitment</b> = lowercase hex SHA-256 of the server seed's bytes (the seed is hex text, decoded; a seed that is not hex text is refused).</li>\
             <li><b>Bytes</b>: the digest of nonce n = HMAC-SHA256(key = the server seed's bytes, message = <code>client_seed:n</code>), one digest a round.</li>\
             <li><b>Words</b>: the digest's 32 bytes read as eight big-endian 32-bit words w₀..w₇, in order.</li>\
             {games}\
             <li><b>Exact law</b>: the {} accepted words are a whole number of cycles of 10,001, so each roll is w mod 10001 for exactly {} of them and has probability exactly 1/10,001; the tests are against this law (docs/schemes.md).</li>",
            count(scheme.words_of_law(10_001)),
            count(scheme.words_of_law(10_001) / 10_001),
        ),
    }
}

/// The method of the keyed schemes' sweeps and bet histories, as subsection `number`.
pub fn method(
    html: &mut String,
    number: &str,
    shown: &[StakeSweepShown],
    parts: &[StakeSweepPart],
    audits: &[StakeAuditPart],
) {
    let schemes = schemes_of(shown, audits);
    let games_of = |scheme: KeyedScheme| -> Vec<StakeGame> {
        let swept = shown.iter().filter(|s| s.scheme() == scheme).map(|s| s.game);
        let audited = audits
            .iter()
            .filter(|a| a.audit.scheme == scheme)
            .flat_map(|a| a.audit.tallies.iter().map(|(game, _)| *game));
        swept.chain(audited).collect()
    };
    match schemes.as_slice() {
        [KeyedScheme::Stake] => {
            let _ = write!(
                html,
                "<h3>{number} The HMAC-SHA256 family (Stake and its copies), recomputed bit for bit</h3><ol>"
            );
        }
        [scheme] => {
            let _ = write!(html, "<h3>{number} {}, recomputed bit for bit</h3><ol>", wording(*scheme).family);
        }
        _ => {
            let names: Vec<&str> = schemes.iter().map(|&scheme| wording(scheme).family).collect();
            let _ = write!(
                html,
                "<h3>{number} The keyed schemes, recomputed bit for bit</h3><p>{}.</p><ol>",
                names.join("; ")
            );
        }
    }
    for &scheme in &schemes {
        let steps = scheme_steps(scheme, &games_of(scheme));
        match schemes.len() {
            1 => html.push_str(&steps),
            _ => {
                let _ = write!(html, "<li><b>{}</b><ol>{steps}</ol></li>", wording(scheme).runs);
            }
        }
    }
    html.push_str("<li><b>Tests</b>, Holm-adjusted at α = the certificate's level:<ul>");
    for scheme in &schemes {
        if audits.iter().any(|a| a.audit.scheme == *scheme) {
            html.push_str(wording(*scheme).row_checks);
        }
    }
    // The tests across seed pairs carry their run's figures in their notes: they are
    // described once, not per test.
    let results = || {
        parts.iter().flat_map(|p| &p.battery.results).chain(audits.iter().flat_map(|a| &a.battery.results))
    };
    test_notes(html, results().filter(|r| r.seed_pair != "across"));
    if results().any(|r| r.seed_pair == "across") {
        html.push_str("<li><code>TEST:dispersion_across_pairs</code>: each test's per-pair statistics summed, against the sum's exact null mean and variance (a scaled chi-square): whether the seed pairs differ more than fair ones do.</li>");
    }
    html.push_str("</ul></li></ol>");
    for scheme in schemes {
        html.push_str(match scheme {
            KeyedScheme::Stake => "<p>fairaudit's test suite reproduces every published round of <code>data/vectors/stake.csv</code> (each with its public source) on every change to fairaudit (tests/schemes.rs); §5 works each sweep's first round through.</p><p><b>Calibration</b> (tests/scheme_sweeps.rs): fair sweeps of many short seed pairs and of one long sequence give p-values uniform at the levels Holm reads; a float built from 16 bits, rounds repeating the one before, a Keno step that never picks its last number, a plinko ball leaning right and a shaved limbo multiplier each FAIL.</p>",
            KeyedScheme::Duel => "<p>fairaudit's test suite reproduces every round of <code>data/vectors/duel.csv</code> (Duel's verifier's cases, recorded bets and oracle rounds, each with its source) on every change to fairaudit (tests/duel.rs); §5 works each sweep's first round through.</p><p><b>Calibration</b> (tests/duel_calibration.rs), under Duel's own uniform law: on one long sequence, <code>outcome_frequency</code> (300 to 100,000 rolls) gives p-values below 10⁻², 10⁻³ and 10⁻⁴, and <code>rarest_outcomes</code> (60,000 rolls) below 10⁻² and 10⁻³, no more often than those levels; the whole battery FAILs fair rolls no more often than α on one sequence of 100,000 rolls, over 50 seed pairs of 2,000 rolls and on histories of 300 and 2,000 rows; over 1,000 seed pairs swept through Duel's own HMAC stream, each test's p-values fall below 0.5, 0.05 and 0.01 as often as those levels. Rolls above 99.00 moved down one time in two FAIL (tests/duel.rs).</p>",
        });
    }
}

/// The results of the family's sweeps, as subsection `number`.
pub fn results(
    html: &mut String,
    number: &str,
    shown: &[StakeSweepShown],
    parts: &[StakeSweepPart],
    audits: &[AuditShown],
    audit_parts: &[StakeAuditPart],
) {
    let _ = write!(
        html,
        "<h3>{number} {} of {}</h3>",
        match (shown.is_empty(), audits.is_empty()) {
            (false, true) => "Sweeps",
            (true, false) => "Bet histories",
            _ => "Sweeps and bet histories",
        },
        family(shown, audit_parts)
    );
    for (i, (s, part)) in shown.iter().zip(parts).enumerate() {
        let n = i + 1;
        let _ = write!(
            html,
            "<p>{} sweep {n} ({}): {}. Every count beside its exact expectation is in the sweep's outcome_counts.csv (pinned in §6).</p>",
            wording(s.scheme()).runs,
            escape(&s.game.to_string()),
            battery_sentence(part.battery, "stake sweep", n),
        );
        test_rows(html, "stake sweep", n, part.battery.results.iter());
        rtp_table(html, s.scheme(), &s.game, &s.rtp);
    }
    for (i, (shown, part)) in audits.iter().zip(audit_parts).enumerate() {
        audit_results(html, i + 1, shown, part);
    }
}

/// The results of bet history `n` of the family: what its row checks found, its first
/// findings, its battery.
fn audit_results(html: &mut String, n: usize, shown: &AuditShown, part: &StakeAuditPart) {
    let a = part.audit;
    let findings: Vec<String> = a.findings.iter().map(|(check, k)| format!("{check}: {k}")).collect();
    let unchecked: Vec<String> = a
        .payouts_unchecked
        .iter()
        .map(|(game, rows)| format!("{game} ({}: {})", plural(*rows, "row"), why_unchecked(a.scheme, game)))
        .collect();
    let _ = write!(
        html,
        "<p>{} bet history {n} (<code>{}</code>): {} rows read, {} replayed from their revealed seeds, {} payouts checked against {}{}; row checks: {} ({}).</p>",
        wording(a.scheme).runs,
        visible(shown.outcomes),
        count(a.rows),
        count(a.replayed),
        count(a.payouts_checked),
        escape(&a.payouts_judged_by()),
        if unchecked.is_empty() {
            String::new()
        } else {
            format!(", payouts not checked: {}", escape(&unchecked.join(", ")))
        },
        verdict_span(&stake_rows_key(n), stake_rows_text(a)),
        if findings.is_empty() { "no findings".to_owned() } else { escape(&findings.join(", ")) },
    );
    findings_table(html, shown, a.findings.values().sum());
    let _ = write!(
        html,
        "<p>Its battery on the recorded results, per game: {}.</p>",
        battery_sentence(part.battery, "stake audit", n)
    );
    test_rows(html, "stake audit", n, part.battery.results.iter());
}

/// The exact RTP of each bet of `game` beside the advertised one, or why there is none.
fn rtp_table(
    html: &mut String,
    scheme: KeyedScheme,
    game: &StakeGame,
    rtp: &Result<Vec<StakeBetRtp>, String>,
) {
    let bets = match rtp {
        Ok(bets) => bets,
        Err(why) => {
            let _ = write!(html, "<p>Return to player: not stated: {}.</p>", escape(why));
            return;
        }
    };
    let _ = write!(
        html,
        "<p>Return to player of {}, exact over {} (rational arithmetic, no simulation), beside the RTP the operator advertises{}:</p>\
         <table><thead><tr><th>bet</th><th>pays</th><th>win %</th><th>exact RTP %</th><th>advertised %</th><th>deviation (pp)</th></tr></thead>",
        escape(&game.to_string()),
        match scheme {
            KeyedScheme::Stake => "the 2³² equally likely floats",
            KeyedScheme::Duel => "the 4,294,959,453 equally likely accepted words",
        },
        if let StakeGame::Plinko { .. } = game {
            " (multipliers: Stake's published table, provably-fair-betting paylines @855fd22; docs/schemes.md)"
        } else {
            ""
        }
    );
    let hundred = BigRational::from_integer(100.into());
    for bet in bets {
        let _ = write!(
            html,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&bet.bet),
            format_trimmed(&bet.pays, 12),
            Percent::of_fraction(&bet.win_probability).text(),
            Percent::of_fraction(&bet.rtp).text(),
            Percent::of_fraction(&bet.advertised).text(),
            format_fixed(&(bet.deviation() * &hundred), 10),
        );
    }
    html.push_str("</table>");
}

/// The first round of sweep `n` (its first seed pair, its first nonce) worked through,
/// as subsection `number`.
pub fn worked_round(html: &mut String, number: &str, n: usize, shown: &StakeSweepShown) {
    let plan = shown.plan;
    let (Some([server, _, _]), Some(steps)) = (plan.seed_pairs.first(), &shown.worked) else { return };
    let nonce = plan.nonces[0];
    let runs = wording(shown.scheme()).runs;
    let title = format!("{number} {runs} sweep {n}: {} at nonce {nonce} of seed pair 0", shown.game);
    worked(html, &title, shown.scheme(), &shown.game, server, steps.as_ref(), None);
}

/// The first row of bet history `n` replayed from its seeds worked through, as subsection
/// `number`; nothing when no row was replayed.
pub fn worked_audit_row(html: &mut String, number: &str, n: usize, part: &StakeAuditPart) {
    if let (Some(row), Some(worked_row)) = (&part.audit.first_replayed, &part.worked) {
        let title = format!(
            "{number} {} bet history {n}: line {} ({} at nonce {}), the first row replayed",
            wording(part.audit.scheme).runs,
            row.line,
            row.game,
            row.nonce
        );
        let (steps, recorded) = match worked_row {
            Ok((steps, same)) => (Ok(steps), Some((row.result.as_str(), *same))),
            Err(why) => (Err(why), None),
        };
        worked(html, &title, part.audit.scheme, &row.game, &row.server_seed, steps, recorded);
    }
}

/// A round worked through step by step (its `steps`, laid open by the scheme), each step
/// something a reader can redo with OpenSSL; `recorded` is what a history recorded for it
/// and whether that is the round's result.
fn worked(
    html: &mut String,
    title: &str,
    scheme: KeyedScheme,
    game: &StakeGame,
    server: &str,
    steps: Result<&RoundSteps, &String>,
    recorded: Option<(&str, bool)>,
) {
    let _ = write!(html, "<div class=\"keep\"><h3>{}</h3><ol>", escape(title));
    let steps = match steps {
        Ok(steps) => steps,
        Err(why) => {
            let _ = write!(html, "<li>Not worked through: {}.</li></ol></div>", escape(why));
            return;
        }
    };
    match scheme {
        KeyedScheme::Stake => stake_steps(html, server, steps),
        KeyedScheme::Duel => duel_steps(html, server, steps),
    }
    let result = game.result_text(&steps.outcome);
    let _ = write!(html, "</table></li><li>{}: <b>{}</b>.", game_rule(scheme, game), escape(&result));
    if let Some((recorded, same)) = recorded {
        let _ = write!(
            html,
            " The row records <code>{}</code>: {}.",
            escape(recorded),
            if same { "the same" } else { "<b class=\"rej\">different</b>" }
        );
    }
    html.push_str("</li></ol></div>");
}

/// A round of the HMAC-SHA256 family up to its floats' table (left open).
fn stake_steps(html: &mut String, server: &str, steps: &RoundSteps) {
    let _ = write!(
        html,
        "<li>Commitment: SHA-256 of the server seed = <code>{}</code> (<code>printf '%s' SERVER | openssl dgst -sha256</code>).</li>",
        steps.commitment,
    );
    for (round, digest) in steps.digests.iter().enumerate() {
        let _ = write!(
            html,
            "<li>Block {round} = HMAC-SHA256(key = <code>{}</code>, message = <code>{}</code>) = <code>{}</code> (<code>printf '%s' MESSAGE | openssl dgst -sha256 -mac HMAC -macopt key:SERVER</code>).</li>",
            escape(server),
            escape(&digest.message),
            hex(&digest.bytes),
        );
    }
    html.push_str("<li>Floats, four bytes each: <table><thead><tr><th>float</th><th>bytes</th><th>k</th><th>f = k / 2³²</th></tr></thead>");
    for (i, &k) in steps.words.iter().enumerate() {
        let _ = write!(
            html,
            "<tr><td>{i}</td><td><code>{}</code></td><td class=\"num\">{k}</td><td class=\"num\">{:.12}</td></tr>",
            hex(&k.to_be_bytes()),
            UnitFloat(k).value()
        );
    }
}

/// A round of Duel's dice up to its words' table (left open).
fn duel_steps(html: &mut String, server: &str, steps: &RoundSteps) {
    let _ = write!(
        html,
        "<li>Commitment: SHA-256 of the server seed's bytes = <code>{}</code> (<code>printf '%s' SERVER | xxd -r -p | openssl dgst -sha256</code>).</li>",
        steps.commitment,
    );
    for digest in &steps.digests {
        let _ = write!(
            html,
            "<li>Digest = HMAC-SHA256(key = the bytes of <code>{}</code>, message = <code>{}</code>) = <code>{}</code> (<code>printf '%s' MESSAGE | openssl dgst -sha256 -mac HMAC -macopt hexkey:SERVER</code>).</li>",
            escape(server),
            escape(&digest.message),
            hex(&digest.bytes),
        );
    }
    let limit = KeyedScheme::Duel.words_of_law(10_001);
    let _ = write!(
        html,
        "<li>Words, four bytes each, taken until one is below {}: <table><thead><tr><th>word</th><th>bytes</th><th>w</th><th>accepted</th><th>w mod 10001</th></tr></thead>",
        count(limit)
    );
    for (i, &w) in steps.words.iter().enumerate() {
        let _ = write!(
            html,
            "<tr><td>{i}</td><td><code>{}</code></td><td class=\"num\">{w}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            hex(&w.to_be_bytes()),
            if u64::from(w) < limit { "yes" } else { "no (rejected)" },
            w % 10_001
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the limitations register says of the family's sweeps and bet histories.
pub fn limitations(items: &mut Vec<String>, shown: &[StakeSweepShown], audits: &[StakeAuditPart]) {
    if shown.is_empty() && audits.is_empty() {
        return;
    }
    let deviations: Vec<String> = shown
        .iter()
        .filter_map(|s| Some(format!("{}: {:.2e}", s.game.name(), s.deviation_from_uniform?)))
        .collect();
    // Duel's dice is exactly uniform over its accepted words: nothing to say of it here.
    let stake_present = schemes_of(shown, audits).contains(&KeyedScheme::Stake);
    items.extend(stake_present.then(|| format!(
        "<b>The HMAC-SHA256 family's outcomes are not exactly uniform.</b> A float of 32 bits takes 2³² values, so ⌊f · n⌋ favours some outcomes by one preimage in about 2³²/n; the tests are against the exact law, so this is not a finding{}.{}",
        if deviations.is_empty() {
            String::new()
        } else {
            format!(" (largest relative deviation of an outcome's probability from uniform, {})", deviations.join("; "))
        },
        if shown.is_empty() {
            ""
        } else {
            " The RTP figures of §3 are the exact ones; where they differ from the advertised RTP the deviation is stated."
        }
    )));
    if audits.is_empty() {
        let schemes: Vec<&str> = schemes_of(shown, audits).iter().map(|scheme| scheme.name()).collect();
        items.push(format!("<b>A sweep of {} shows outcomes, not payouts.</b> Whether players were served these rounds and paid by the game's tables is the subject of a bet history (<code>fairaudit audit --scheme {}</code>), which this certificate does not cover for these games.", family(shown, audits), schemes.join("|")));
    } else {
        let unrevealed: u64 = audits.iter().map(|a| a.audit.rows - a.audit.replayed).sum();
        let mut unchecked: Vec<&str> =
            audits.iter().flat_map(|a| a.audit.payouts_unchecked.keys().copied()).collect();
        unchecked.sort_unstable();
        unchecked.dedup();
        items.push(format!(
            "<b>A bet history of {} shows the bets it lists.</b> Bets the operator left out of it are not seen; {} rows were not replayed (no revealed server seed, or no client seeds in the history): only the battery and the nonce and payout checks saw them{}.",
            family(shown, audits),
            count(unrevealed),
            if unchecked.is_empty() {
                String::new()
            } else {
                format!("; the payouts of {} were not checked (the history's results say why)", escape(&unchecked.join(", ")))
            }
        ));
    }
    let unpublished: Vec<String> =
        shown.iter().filter(|s| s.rtp.is_err()).map(|s| s.game.name().to_owned()).collect();
    if !unpublished.is_empty() {
        items.push(format!(
            "<b>No RTP is stated for {}</b>: its payout rule (dice's multiplier per chance, Keno's paytable per risk, mines' multiplier per tile) has not been taken from a primary source yet.",
            escape(&unpublished.join(", "))
        ));
    }
    if !shown.is_empty() {
        items.push(format!("<b>Sweeps of {} are swept again in full</b> by <code>certify --check</code> (every seed pair, every nonce), up to its <code>--resweep-limit</code> in all (10⁸ rounds by default): beyond it the check says it cannot check them rather than sweep for hours.", family(shown, audits)));
    }
}
