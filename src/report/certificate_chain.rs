//! The crash games of `certificate.html`: crash chains (`certify --sweep DIR` of a sweep of
//! a crash chain) and bet histories of crash games (`certify --audit DIR` of an audit of
//! one): each one's scope (a chain's range, top and bottom hashes, salt, the operator's
//! published game it links to; a history's rows and games), the method (the chain rule,
//! the crash point, the link, the tests), the results, one game of each worked through
//! step by step, and what they cannot show. Formats only, like the rest of the
//! certificate.

use super::certificate_parts::{
    battery_sentence, count, findings_table, test_notes, test_rows, verdict_span, AuditShown,
};
use super::svg::{escape, visible};
use crate::certify::{
    battery_key, crash_rows_key, crash_rows_text, link_key, link_text, ChainPart, CrashAuditPart,
};
use crate::report::crash::CrashPlan;
use crate::scheme::crash::{
    digest_mod, formula_hundredths, game_digest, hash_text, point_of_digest, top_bits, CrashVariant,
};
use crate::sweep::crash::{ChainLink, PlayedChain};
use std::fmt::Write;

/// A crash chain as the certificate shows it.
pub struct ChainShown<'a> {
    /// The sweep's folder, as given.
    pub dir: &'a str,
    /// What was played: scheme, range, top hash, salt.
    pub plan: &'a CrashPlan,
    /// The scheme's variant.
    pub variant: CrashVariant,
    /// What playing it found (the games' counts, the hash below the range).
    pub played: &'a PlayedChain,
}

/// A bet history of a crash game as the certificate shows it.
pub struct CrashAuditShown<'a> {
    /// The audit's folder, history, dossier copy and first findings.
    pub shown: AuditShown<'a>,
    /// The scheme's variant.
    pub variant: CrashVariant,
}

/// The scheme's name on the command line.
pub fn scheme_name(variant: CrashVariant) -> &'static str {
    match variant {
        CrashVariant::BustabitV1 => "bustabit-v1",
        CrashVariant::Roobet => "roobet",
    }
}

/// A scheme's name as a reader knows it.
fn scheme_title(variant: CrashVariant) -> &'static str {
    match variant {
        CrashVariant::BustabitV1 => "bustabit v1",
        CrashVariant::Roobet => "Roobet",
    }
}

/// The cover's rows of chain `n` (from 1); `section` is where its results are.
pub fn cover_rows(html: &mut String, n: usize, shown: &ChainShown, part: &ChainPart, section: &str) {
    let plan = shown.plan;
    let published = match part.link {
        ChainLink::Linked { game, .. } | ChainLink::Broken { game, .. } => format!("game {}", count(*game)),
        ChainLink::Unanchored => "no published game".to_owned(),
    };
    let _ = write!(
        html,
        "<tr><td>Crash chain {n} ({}, games {}–{}): linked to the operator's published {published}</td><td>{}</td><td>§{section}</td></tr>\
         <tr><td>Crash chain {n}: crash-point tests ({} games)</td><td>{}</td><td>§{section}</td></tr>",
        scheme_title(shown.variant),
        count(plan.games[0]),
        count(plan.games[1] - 1),
        verdict_span(&link_key(n), link_text(part.link)),
        count(shown.played.tally.games),
        verdict_span(&battery_key("chain", n), part.battery.overall().as_str()),
    );
}

/// The cover's rows of crash bet history `n` (from 1); `section` is where its results are.
pub fn audit_cover_rows(
    html: &mut String,
    n: usize,
    shown: &CrashAuditShown,
    part: &CrashAuditPart,
    section: &str,
) {
    let _ = write!(
        html,
        "<tr><td>Crash bet history {n} ({}, {}, {} bets on {} games): row checks</td><td>{}</td><td>§{section}</td></tr>\
         <tr><td>Crash bet history {n}: crash-point tests</td><td>{}</td><td>§{section}</td></tr>",
        scheme_title(shown.variant),
        visible(shown.shown.outcomes),
        count(part.audit.rows),
        count(part.audit.games),
        verdict_span(&crash_rows_key(n), crash_rows_text(part.audit)),
        verdict_span(&battery_key("crash audit", n), part.battery.overall().as_str()),
    );
}

/// The scope of crash bet history `n`, as subsection `number`.
pub fn audit_scope(
    html: &mut String,
    number: &str,
    n: usize,
    shown: &CrashAuditShown,
    part: &CrashAuditPart,
) {
    let a = part.audit;
    let _ = write!(
        html,
        "<h3>{number} Crash bet history {n} (<code>{}</code>, audit folder <code>{}</code>)</h3><p>{} crash: {} bets on {} games; {} games replayed from their hashes, {} given without one and checked through the link across them, {} given without one and neither replayed nor linked; {} games walked to their chain's published game; {} games missing between the first and the last.</p>",
        visible(shown.shown.outcomes),
        visible(shown.shown.dir),
        scheme_title(shown.variant),
        count(a.rows),
        count(a.games),
        count(a.replayed),
        count(a.derived),
        count(a.hashless),
        count(a.on_published),
        count(a.missing_games),
    );
}

/// The scope of chain `n`, as subsection `number`. A certified chain is anchored, so its
/// range starts at or above its published chain's first game, which is at least 1: the
/// game below the range (`games[0] - 1`) exists.
pub fn scope(html: &mut String, number: &str, n: usize, shown: &ChainShown, part: &ChainPart) {
    let plan = shown.plan;
    let _ = write!(
        html,
        "<h3>{number} Crash chain {n} (folder <code>{}</code>)</h3><p>{} crash games {}–{} ({} games), played from the hash of game {} down the chain, every link hashed and every crash point recomputed.</p>\
         <table><tbody><tr><th>salt</th><td><code>{}</code></td></tr><tr><th>hash of game {}</th><td><code>{}</code></td></tr><tr><th>hash of game {} (below the range)</th><td><code>{}</code></td></tr>",
        visible(shown.dir),
        scheme_title(shown.variant),
        count(plan.games[0]),
        count(plan.games[1] - 1),
        count(shown.played.tally.games),
        count(plan.games[1] - 1),
        escape(&plan.salt),
        count(plan.games[1] - 1),
        escape(&plan.top_hash),
        count(plan.games[0] - 1),
        escape(&shown.played.end),
    );
    match part.link {
        ChainLink::Linked { game, hash, steps } | ChainLink::Broken { game, hash, steps, .. } => {
            let _ = write!(
                html,
                "<tr><th>operator's published game {}</th><td><code>{}</code> ({} more links walked to reach it)</td></tr>",
                count(*game),
                escape(hash),
                count(*steps)
            );
        }
        ChainLink::Unanchored => {}
    }
    html.push_str("</tbody></table>");
}

/// The method of the crash chains, as subsection `number`.
pub fn method(
    html: &mut String,
    number: &str,
    chains: &[ChainShown],
    parts: &[ChainPart],
    audits: &[CrashAuditShown],
    audit_parts: &[CrashAuditPart],
) {
    let mut variants: Vec<CrashVariant> =
        chains.iter().map(|c| c.variant).chain(audits.iter().map(|a| a.variant)).collect();
    variants.sort();
    variants.dedup();
    let rules: Vec<String> = variants
        .iter()
        .map(|&v| {
            format!(
                "{}: 1 in {}, shown {}",
                scheme_title(v),
                v.instant_divisor(),
                crate::scheme::crash::hundredths_text(v.instant_shown())
            )
        })
        .collect();
    let _ = write!(
        html,
        "<h3>{number} Crash games, recomputed link by link</h3><ol>\
         <li><b>Chain</b>: each game's hash is the lowercase hex SHA-256 of the next game's hash written as its 64 hex characters; games are played from the top of the chain down. The operator published one game's hash when it seeded the chain, before play.</li>\
         <li><b>Crash point</b>: d = HMAC-SHA256(key = the game hash as its 64 hex characters, message = the salt as text). When d, read as a 256-bit big-endian number, is a multiple of the instant-crash divisor, the game crashes at once ({}). Otherwise, with h the top 52 bits of d and e = 2⁵², the crash point is ⌊(100e − h)/(e − h)⌋ hundredths, computed in 64-bit floating point as the operators' JavaScript computes it.</li>\
         <li><b>Link</b>: after the range's lowest game, the walk goes on down the chain to the published game (or starts from the published game's hash when that lies above the range) and must meet the other end's hash exactly. A range numbered wrong, or a chain that is not the one the operator committed to, does not meet it: BROKEN, a finding.</li>\
         <li><b>Bet histories</b>: each bet's crash point replayed from its game's hash, the bets of one game against each other, consecutive games' hashes linked, every game with a hash walked to its chain's published game, and the payout: stake × the cash-out target when the target is at or below the crash point (an instant crash beats every target), else nothing (docs/audit.md).</li>\
         <li><b>Tests</b>, against the crash point's exact law counted over the 2²⁵⁶ digests (docs/schemes.md), Holm-adjusted at α = the certificate's level:<ul>",
        escape(&rules.join("; "))
    );
    let results = parts
        .iter()
        .flat_map(|p| &p.battery.results)
        .chain(audit_parts.iter().flat_map(|p| &p.battery.results));
    test_notes(html, results);
    html.push_str("</ul></li></ol><p><b>Calibration</b> (tests/crash_law.rs): thousands of fair chains from seeds fairaudit chose, short and long, through the same tally and battery; the discrete tests (the instant-crash rate, the runs) are judged against their own exact size at each level, which is at or below the level. A million games of a chain match the exact law; a chain rigged to crash at once 1 game in 50 FAILs; instant crashes bunched in pairs at the right rate FAIL the runs test.</p>");
}

/// The results of the crash chains, as subsection `number`.
pub fn results(
    html: &mut String,
    number: &str,
    chains: &[ChainShown],
    parts: &[ChainPart],
    audits: &[CrashAuditShown],
    audit_parts: &[CrashAuditPart],
) {
    let _ = write!(html, "<h3>{number} Crash games</h3>");
    for (i, (shown, part)) in audits.iter().zip(audit_parts).enumerate() {
        audit_results(html, i + 1, shown, part);
    }
    for (i, (shown, part)) in chains.iter().zip(parts).enumerate() {
        let n = i + 1;
        let plan = shown.plan;
        let link = match part.link {
            ChainLink::Linked { game, steps, .. } if *game < plan.games[0] => format!(
                "the walk below game {} met the published hash of game {} after {} more links",
                count(plan.games[0]),
                count(*game),
                count(*steps)
            ),
            ChainLink::Linked { game, steps, .. } => format!(
                "the published hash of game {}, walked {} links down, met the hash below game {}",
                count(*game),
                count(*steps),
                count(plan.games[0])
            ),
            ChainLink::Broken { game, reached, expected, steps, .. } => format!(
                "after {} more links the walk reached <code>{}</code> where <code>{}</code> was expected: games {}–{} are not the chain the operator committed to by game {}'s hash under those numbers",
                count(*steps),
                escape(reached),
                escape(expected),
                count(plan.games[0]),
                count(plan.games[1] - 1),
                count(*game)
            ),
            ChainLink::Unanchored => "the salt seeds no published chain".to_owned(),
        };
        let _ = write!(
            html,
            "<p>Crash chain {n}: link {}: {link}. Its battery: {}. Every count beside its exact expectation is in the chain's crash_cells.csv (pinned in §6).</p>",
            verdict_span(&link_key(n), link_text(part.link)),
            battery_sentence(part.battery, "chain", n),
        );
        test_rows(html, "chain", n, part.battery.results.iter());
    }
}

/// The results of crash bet history `n`: what its row checks found, its first findings,
/// its battery.
fn audit_results(html: &mut String, n: usize, shown: &CrashAuditShown, part: &CrashAuditPart) {
    let a = part.audit;
    let findings: Vec<String> = a.findings.iter().map(|(check, k)| format!("{check}: {k}")).collect();
    let _ = write!(
        html,
        "<p>Crash bet history {n} (<code>{}</code>): {} bets on {} games, {} replayed from their hashes, {} links between consecutive games walked, {} games walked to their published game ({} links), {} payouts checked; row checks: {} ({}).</p>",
        visible(shown.shown.outcomes),
        count(a.rows),
        count(a.games),
        count(a.replayed),
        count(a.linked),
        count(a.on_published),
        count(a.published_steps),
        count(a.payouts_checked),
        verdict_span(&crash_rows_key(n), crash_rows_text(a)),
        if findings.is_empty() { "no findings".to_owned() } else { escape(&findings.join(", ")) },
    );
    findings_table(html, &shown.shown, a.findings.values().sum());
    let _ = write!(
        html,
        "<p>Its battery, one count per game: {}.</p>",
        battery_sentence(part.battery, "crash audit", n)
    );
    test_rows(html, "crash audit", n, part.battery.results.iter());
}

/// The range's highest game of chain `n` worked through, as subsection `number`.
pub fn worked_chain_game(html: &mut String, number: &str, n: usize, shown: &ChainShown) {
    let plan = shown.plan;
    let title = format!("Crash chain {n}: game {} (the range's highest)", count(plan.games[1] - 1));
    worked_game(html, number, &title, shown.variant, &plan.top_hash, &plan.salt);
}

/// The first game a crash bet history gives with its hash worked through, as subsection
/// `number`; nothing when it gives none.
pub fn worked_audit_game(
    html: &mut String,
    number: &str,
    n: usize,
    shown: &CrashAuditShown,
    part: &CrashAuditPart,
) {
    if let Some((game, hash, salt)) = &part.audit.first_hashed {
        let title = format!("Crash bet history {n}: game {} (the first given with its hash)", count(*game));
        worked_game(html, number, &title, shown.variant, hash, salt);
    }
}

/// A game worked through step by step, as subsection `number`, each step something a
/// reader can redo with OpenSSL.
fn worked_game(html: &mut String, number: &str, title: &str, variant: CrashVariant, hash: &str, salt: &str) {
    let digest = game_digest(hash, salt);
    let divisor = variant.instant_divisor();
    let remainder = digest_mod(&digest, divisor);
    let h = top_bits(&digest);
    let point = variant.shown(point_of_digest(variant, &digest));
    let formula = if remainder == 0 {
        format!("d is a multiple of {divisor}: the game crashes at once, shown {point}")
    } else {
        format!(
            "d mod {divisor} = {remainder}, not 0; h = top 52 bits of d = {h}; ⌊(100·2⁵² − h)/(2⁵² − h)⌋ = {} hundredths: <b>{point}x</b>",
            formula_hundredths(h)
        )
    };
    let below = crate::scheme::crash::previous_hash(hash);
    let _ = write!(
        html,
        "<div class=\"keep\"><h3>{number} {}</h3><ol>\
         <li>d = HMAC-SHA256(key = <code>{}</code>, message = <code>{}</code>) = <code>{}</code> (<code>printf '%s' SALT | openssl dgst -sha256 -mac HMAC -macopt key:HASH</code>).</li>\
         <li>{formula}.</li>\
         <li>The game below it: SHA-256 of the hash's text = <code>{}</code> (<code>printf '%s' HASH | openssl dgst -sha256</code>).</li></ol></div>",
        escape(title),
        escape(hash),
        escape(salt),
        hash_text(&digest),
        escape(&below),
    );
}

/// What the limitations register says of crash chains and bet histories.
pub fn limitations(
    items: &mut Vec<String>,
    chains: &[ChainShown],
    audits: &[CrashAuditShown],
    audit_parts: &[CrashAuditPart],
) {
    if !audits.is_empty() {
        let hashless: u64 = audit_parts.iter().map(|p| p.audit.hashless).sum();
        items.push(format!("<b>A bet history shows the bets it lists.</b> Bets the operator left out of it, and games it skips, are not seen; {} games were given without their hash and were neither replayed nor linked (a Roobet game without its hash is not counted by the tests: its instant crash and a 1.00x crash both show 1.00).", count(hashless)));
    }
    if chains.is_empty() && audits.is_empty() {
        return;
    }
    if audits.is_empty() {
        items.push("<b>A chain shows what its games' crash points were, not what was paid.</b> Every crash point of the range follows from the operator's published hash; whether players were served these games, cashed out as they asked and were paid stake × target is the subject of a bet history (<code>fairaudit audit --scheme …</code>), which this certificate does not cover for crash games.".into());
    }
    items.push("<b>The published game and the salt are fairaudit's record of the operator's seeding event</b> (the terminating or first game's hash and the Bitcoin block hash used as the salt, with their public sources in docs/schemes.md). That the operator published them before the block was mined, and before play, is what makes the chain fair; fairaudit checks the hashes, not the dates.".into());
    if chains.is_empty() {
        return;
    }
    items.push("<b>Crash chains are played again in full</b> by <code>certify --check</code> (a walk of the whole range and on to the published game, 10⁷ games in seconds), whatever <code>--resweep-limit</code> says.".into());
}
