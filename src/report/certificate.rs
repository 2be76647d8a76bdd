//! `certificate.html`: the audit certificate, one document that stands on its own and
//! prints: a cover with the verdicts, then scope, method, results, a numbered limitations
//! register, worked recomputations of rounds of the games in scope and the pinned inputs, each section on
//! a new page, with a running header and page numbers (CSS paged media, which headless
//! Chromium renders into `certificate.pdf`).
//!
//! It formats; it computes nothing, and the same inputs always give the same bytes:
//! `certify --check` renders the document again from the dossier's pinned inputs and
//! compares it byte for byte (scanning a document for verdict words could be evaded by
//! markup). Every verdict it shows carries its key (`data-verdict="KEY"`, the keys of
//! [`crate::certify`]) for readers and tools.

pub use super::certificate_chain::{ChainShown, CrashAuditShown};
pub use super::certificate_parts::AuditShown;
use super::certificate_parts::{
    battery_sentence, count, findings_table, percent, test_rows, verdict_span, SEED_PAIRS_LISTED,
};
pub use super::certificate_stake::StakeSweepShown;
use super::svg::{escape, visible};
use crate::certify::signature::NAMESPACE as SIGNATURE_NAMESPACE;
use crate::certify::worked::WorkedRound;
use crate::certify::{
    battery_key, claim_key, rows_key, rows_text, worked_key, worked_text, Conclusions, Manifest, OVERALL_KEY,
};
use crate::games::GameId;
use crate::results::{RejectionRow, RunResults};
use crate::rtp::claims::ClaimVerdict;
use crate::rtp::decimal::format_trimmed;
use crate::rtp::exact::ExactRtp;
use crate::rtp::paytable::{Paytable, ILLUSTRATIVE_LABEL};
use crate::sampler::rejected_values;
use crate::stats::battery::{p_value_text, Battery, TestResult, Verdict};
use crate::tally::file::{SeedSource, TallyFile};
use std::fmt::Write;

/// Paper size the print style is laid out for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    /// ISO A4, 210 × 297 mm.
    A4,
    /// US Letter, 8.5 × 11 in.
    Letter,
}

impl Paper {
    /// The CSS `size` value and the name the manifest records.
    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "Letter",
        }
    }
}

/// A sweep as the certificate shows it.
pub struct SweepPart<'a> {
    /// Its folder, as given.
    pub dir: &'a str,
    /// Its tallies.
    pub tallies: &'a TallyFile,
    /// What they conclude.
    pub results: &'a RunResults,
}

/// Everything the certificate shows.
pub struct CertificateDoc<'a> {
    /// The manifest so far: operator, dates, binary, inputs, commands (its outputs and
    /// verdicts are filled in after the document is written).
    pub manifest: &'a Manifest,
    /// The sweeps.
    pub sweeps: Vec<SweepPart<'a>>,
    /// The audits' folders and histories, in the order of `conclusions.audits`.
    pub audits: Vec<AuditShown<'a>>,
    /// The crash chains, in the order of `conclusions.chains`.
    pub chains: Vec<ChainShown<'a>>,
    /// The bet histories of crash games, in the order of `conclusions.crash_audits`.
    pub crash_audits: Vec<CrashAuditShown<'a>>,
    /// The sweeps of the HMAC-SHA256 family, in the order of `conclusions.stake_sweeps`.
    pub stake_sweeps: Vec<StakeSweepShown<'a>>,
    /// The bet histories of the HMAC-SHA256 family, in the order of
    /// `conclusions.stake_audits`.
    pub stake_audits: Vec<AuditShown<'a>>,
    /// The verdicts.
    pub conclusions: &'a Conclusions<'a>,
    /// The exact RTP of every bet type of the games in scope.
    pub exact: &'a [ExactRtp],
    /// The paytable Keno's figures use.
    pub paytable: &'a Paytable,
    /// Games no sweep or audit covered.
    pub not_examined: Vec<GameId>,
    /// Sweeps of at most this many rounds are re-swept by `certify --check`.
    pub resweep_limit: u64,
}

/// The print style: paged media with a running header and page numbers; each section
/// opens a page. The layout fits both A4 and Letter (content width of A4, height of
/// Letter); `size` picks the sheet.
fn style(paper: Paper, operator: &str) -> String {
    format!(
        "@page{{size:{size};margin:20mm 16mm 18mm 16mm;\
         @top-left{{content:\"fairaudit audit certificate\";font:8pt system-ui,sans-serif;color:#555}}\
         @top-right{{content:\"{op}\";font:8pt system-ui,sans-serif;color:#555}}\
         @bottom-right{{content:\"page \" counter(page) \" of \" counter(pages);font:8pt system-ui,sans-serif;color:#555}}}}\
         body{{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;line-height:1.35;font-size:10pt;margin:0}}\
         @media screen{{body{{max-width:178mm;margin:24px auto;padding:0 12px}}section{{border-top:2px solid #999;margin-top:28px}}}}\
         h1{{font-size:22pt;margin:0 0 4px}}h2{{font-size:15pt;border-bottom:1px solid #ccc;padding-bottom:3px}}h3{{font-size:11.5pt;margin:14px 0 4px}}\
         section{{break-before:page}}h2,h3{{break-after:avoid}}\
         table{{border-collapse:collapse;font-size:8.5pt;margin:6px 0;width:100%}}thead{{display:table-header-group}}tr{{break-inside:avoid}}\
         td,th{{border:1px solid #ccc;padding:2px 5px;text-align:left;vertical-align:top}}th{{background:#f0f2f4}}td.num{{text-align:right;font-variant-numeric:tabular-nums}}\
         code,.mono{{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:7.8pt;word-break:break-all}}\
         .verdict{{display:inline-block;font-size:20pt;font-weight:700;padding:4px 16px;border-radius:5px;color:#fff}}\
         .verdict span{{color:#fff!important}}td code.t{{white-space:nowrap}}.PASS{{background:#1e8449}}.FINDINGS,.FAIL{{background:#c0392b}}.WEAK{{background:#d68910}}.INSUFFICIENT{{background:#7f8c8d}}\
         .v-PASS,.v-HOLDS,.v-CLEAN,.v-MATCHES,.v-LINKED{{color:#1e6b3a;font-weight:700}}.v-FAIL,.v-DOES-NOT-HOLD,.v-FINDINGS,.v-DIFFERS,.v-BROKEN,.v-UNANCHORED{{color:#b03a2e;font-weight:700}}.v-WEAK{{color:#b9770e;font-weight:700}}.v-INSUFFICIENT{{color:#616a6b;font-weight:700}}\
         .illustrative{{background:#fcebcf;border-left:4px solid #d68910;padding:4px 8px}}\
         .signature{{border:1px solid #999;padding:4px 8px;margin:8px 0;font-size:9pt}}.unsigned{{border-color:#b03a2e;background:#fbeeee}}.note{{color:#555;font-size:8.5pt}}\
         ol.register li{{margin-bottom:5px}}.keep{{break-inside:avoid}}b.rej{{color:#b03a2e}}",
        size = paper.name(),
        op = css_string(operator),
    )
}

/// Text inside a CSS string: everything but letters, digits and spaces as a hex escape,
/// so no name can close the string or the style element.
fn css_string(text: &str) -> String {
    text.chars()
        .map(
            |c| {
                if c.is_ascii_alphanumeric() || c == ' ' {
                    c.to_string()
                } else {
                    format!("\\{:x} ", c as u32)
                }
            },
        )
        .collect()
}

/// What each test computes and its null, by test name (the reference is
/// docs/statistics.md and the code in src/stats/).
fn test_method(name: &str) -> &'static str {
    let base = name.split(':').next().unwrap_or(name);
    if name.ends_with("dispersion_across_pairs") {
        return "the per-pair statistics summed, against their exact summed mean and variance (scaled χ² with the same two moments; Σz² for z-tests)";
    }
    if name.ends_with("min_across_pairs") {
        return "the smallest of the per-pair exact p-values, 1 − (1 − p_min)^K (Šidák, exact for independent pairs)";
    }
    if base.starts_with("hits_") {
        return "hits of the fixed k-number pick set against the hypergeometric law (tail bins merged); Cressie–Read χ²";
    }
    if base.starts_with("rejections") {
        return "rejected words at each P against their exact expectation Σ D·q/(1 − q), q = (2³² mod P)/2³²; exact two-sided Poisson";
    }
    match base {
        "pocket_frequency" => "goodness of fit of the pocket counts to uniform (Cressie–Read λ = 2/3); χ²(P − 1)",
        "zeros" => "spins on 0 (and 00) against Binomial(n, zeros/P); exact two-sided",
        "colour" | "parity" | "low_high" => "among non-zero spins, red (odd, low) against Binomial(n′, ½); exact two-sided",
        "dozens" | "columns" => "among non-zero spins, the three groups against equal thirds; χ²(2)",
        "serial_pairs" => "Anderson–Goodman χ² of independence on the table of consecutive spins; χ²((P − 1)²)",
        "serial_max" => "the largest adjusted residual of that table (Haberman), saddlepoint cell tails, Šidák over its P² cells",
        "serial_lags" => "the same table for spins 2 to 10 apart: the lag with the smallest p, Bonferroni over nine lags",
        "runs_colour" | "runs_low_high" => "z of the number of runs, exact mean and variance of the sequences summed; N(0, 1), two-sided",
        "run_lengths_colour" | "run_lengths_low_high" => "run lengths per symbol against their exact law for the sequences summed; χ²",
        "longest_run_colour" | "longest_run_low_high" => "the longest streak against its exact law (a Markov chain on the current streak); two-sided",
        "gaps" => "spins between repeats of each pocket against their exact censored law; χ² summed over pockets",
        "number_frequency" => "χ² of number counts × 39/30 (ten drawn without replacement); χ²(39)",
        "position_by_number" => "the position × number interaction, number totals removed, (39/R)·Σr²; χ²(351)",
        "position_max" => "the largest standardised interaction residual, saddlepoint cell tails, Šidák over 400 cells",
        "pairs" => "pair co-occurrence with the number totals projected out (Johnson scheme J(40, 2)); χ²(740)",
        "pairs_max" => "the largest standardised pair residual, saddlepoint cell tails, Šidák over 780 pairs",
        "serial_overlap" => "numbers shared by rounds n and n + 1 against the hypergeometric law; χ²",
        "overlap_lags" => "the same for rounds 2 to 10 apart: Bonferroni over nine lags",
        _ => "a bet-conditional test of the audit (wins, return or skipped rounds against their exact law given the bets); see docs/audit.md",
    }
}

/// The name under which a test's method is listed (`hits_3_picks` → `hits_k_picks`).
fn method_name(name: &str) -> String {
    if name.ends_with("dispersion_across_pairs") {
        return "TEST:dispersion_across_pairs".into();
    }
    if name.ends_with("min_across_pairs") {
        return "TEST:min_across_pairs".into();
    }
    if name.starts_with("hits_") {
        return "hits_k_picks".into();
    }
    if name.starts_with("rejections") {
        return "rejections".into();
    }
    name.to_owned()
}

/// The group whose rows a battery's summary shows: `all` when there are several seed
/// pairs (or players), else the one there is.
fn headline_group(battery: &Battery, game: GameId) -> Option<String> {
    let groups: Vec<&str> =
        battery.results.iter().filter(|r| r.game == game).map(|r| r.seed_pair.as_str()).collect();
    if groups.contains(&"all") {
        Some("all".into())
    } else {
        groups.first().map(|g| (*g).to_owned())
    }
}

/// Rows a certificate lists: the headline group's, the tests across pairs, and every row
/// that is not PASS (the rest are in the sweep's tests.csv).
fn shown(result: &TestResult, headline: Option<&str>) -> bool {
    result.seed_pair == "across"
        || Some(result.seed_pair.as_str()) == headline
        || result.verdict != Verdict::Pass
}

/// A claim's tolerance in percentage points, as written in the claims (`0.5`).
fn tolerance(claim: &ClaimVerdict) -> String {
    format_trimmed(&claim.claim.tolerance.0, 12)
}

/// A small positive number with four significant digits, without exponent noise.
fn small(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x >= 0.01 {
        format!("{x:.4}")
    } else {
        format!("{x:.3e}")
    }
}

impl CertificateDoc<'_> {
    /// The document.
    pub fn render(&self) -> String {
        let m = self.manifest;
        let mut html = String::new();
        let _ = write!(
            html,
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Audit certificate: {}</title><style>{}</style></head><body>",
            escape(&m.operator),
            style(self.paper(), &m.operator)
        );
        self.cover(&mut html);
        self.scope(&mut html);
        self.method(&mut html);
        self.results(&mut html);
        self.limitations(&mut html);
        self.worked(&mut html);
        self.pins(&mut html);
        html.push_str("</body></html>\n");
        html
    }

    fn paper(&self) -> Paper {
        if self.manifest.paper == "Letter" {
            Paper::Letter
        } else {
            Paper::A4
        }
    }

    fn illustrative(&self) -> bool {
        self.paytable.is_illustrative()
    }

    fn games(&self) -> Vec<GameId> {
        if !self.default_scheme() {
            return Vec::new();
        }
        GameId::ALL.into_iter().filter(|g| !self.not_examined.contains(g)).collect()
    }

    /// The games examined that no claim is about: their RTP is stated, and nothing checks
    /// it against a published figure.
    fn unclaimed_games(&self) -> Vec<GameId> {
        let games = self.games();
        games
            .into_iter()
            .filter(|game| !self.conclusions.claims.iter().any(|c| c.claim.game == *game))
            .collect()
    }

    /// Whether the certificate covers sweeps or bet histories of the default scheme (its
    /// chain, sampler and games); a certificate of crash chains alone leaves out what
    /// only those have (the chain of SPEC.md, rejection sampling, RTP, worked rounds).
    fn default_scheme(&self) -> bool {
        !self.sweeps.is_empty() || !self.conclusions.audits.is_empty()
    }

    /// The games examined, as the cover and the scope name them.
    fn games_text(&self) -> String {
        let mut games: Vec<String> = self.games().iter().map(|g| g.to_string()).collect();
        let stake_games =
            self.stake_sweeps.iter().map(|shown| (shown.game, shown.plan.keyed_scheme())).chain(
                self.conclusions
                    .stake_audits
                    .iter()
                    .flat_map(|part| part.audit.tallies.iter().map(|(game, _)| (*game, part.audit.scheme))),
            );
        for (game, scheme) in stake_games {
            let name = format!("{game} ({scheme})");
            if !games.contains(&name) {
                games.push(name);
            }
        }
        let schemes =
            self.chains.iter().map(|c| c.variant).chain(self.crash_audits.iter().map(|a| a.variant));
        for variant in schemes {
            let name = format!("crash ({})", super::certificate_chain::scheme_name(variant));
            if !games.contains(&name) {
                games.push(name);
            }
        }
        games.join(", ")
    }

    /// Whether the certificate covers crash chains or bet histories of crash games.
    fn crash_games(&self) -> bool {
        !self.chains.is_empty() || !self.crash_audits.is_empty()
    }

    /// What the certificate calls the keyed schemes it covers: `the HMAC-SHA256 family`
    /// where they are Stake's alone.
    fn keyed_family(&self) -> String {
        super::certificate_stake::family(&self.stake_sweeps, &self.conclusions.stake_audits)
    }

    /// The keyed schemes' sweeps and bet histories, as the verdict's meaning names them.
    fn keyed_runs(&self) -> String {
        match self.keyed_family().as_str() {
            "the HMAC-SHA256 family" => "the HMAC-SHA256 family's sweeps and bet histories".to_owned(),
            family => format!("the sweeps and bet histories of {family}"),
        }
    }

    /// Whether the certificate covers sweeps or bet histories of the HMAC-SHA256 family.
    fn stake_games(&self) -> bool {
        !self.stake_sweeps.is_empty() || !self.stake_audits.is_empty()
    }

    /// The subsection numbers of another scheme's games, their method's and their
    /// results', after the default scheme's: the HMAC-SHA256 family's first, then the
    /// crash games' (`crash`).
    fn scheme_sections(&self, crash: bool) -> (String, String) {
        let (method, results) = if self.default_scheme() { (4, 7) } else { (1, 1) };
        let before = usize::from(crash && self.stake_games());
        (format!("2.{}", method + before), format!("3.{}", results + before))
    }

    /// The subsection numbers of the crash games: their method's and their results'.
    fn chain_sections(&self) -> (String, String) {
        self.scheme_sections(true)
    }

    fn cover(&self, html: &mut String) {
        let m = self.manifest;
        let c = self.conclusions;
        let overall = c.overall();
        let _ = write!(
            html,
            "<header><h1>Audit certificate</h1><p style=\"font-size:14pt;margin:2px 0\">{}</p>\
             <p class=\"note\">Games: {}. Written {} by fairaudit {} (source revision {}). Statistical level α = {}.</p>\
             <div id=\"verdict\" class=\"verdict {overall}\">{}</div>",
            escape(&m.operator),
            escape(&self.games_text()),
            escape(&m.created_at),
            escape(&m.fairaudit_version),
            escape(m.source_revision.as_deref().unwrap_or("unknown")),
            m.alpha,
            verdict_span(OVERALL_KEY, overall),
        );
        self.signature_block(html);
        if self.default_scheme() {
            let chains = if self.chains.is_empty() {
                ""
            } else {
                ", every crash chain links to the game its operator published"
            };
            let _ = write!(html, "<p>PASS means: every outcome test passes, every published claim about the games in scope holds, every audited row checks out{chains}, and every worked round reproduces its vector. FINDINGS means at least one of these does not; each is listed below.</p>");
        } else if !self.stake_games() {
            html.push_str("<p>PASS means: every crash chain links to the game its operator published, every audited bet on a crash game checks out, and every test of the crash points passes. FINDINGS means at least one of these does not; each is listed below.</p>");
        } else if !self.crash_games() {
            let _ = write!(html, "<p>PASS means: every outcome test of {} passes against its game's exact law, and every audited row of them checks out. FINDINGS means at least one of these does not; each is listed below.</p>", self.keyed_runs());
        } else {
            let _ = write!(html, "<p>PASS means: every outcome test of {} passes against its game's exact law, every audited row of them checks out, every crash chain links to the game its operator published, every audited bet on a crash game checks out, and every test of the crash points passes. FINDINGS means at least one of these does not; each is listed below.</p>", self.keyed_runs());
        }
        if c.audit_judged_by_rows_alone() {
            html.push_str("<p>A bet history too short for the tests of some game's outcomes (its battery INSUFFICIENT) is judged by its rows alone.</p>");
        }
        if overall == crate::certify::INSUFFICIENT {
            html.push_str("<p>INSUFFICIENT means: nothing above fails, but a sweep or crash chain below is too short for any test of some game's outcomes to be able to fail at its size, or an audited history below had no row checked against the chain or a paytable and too few rounds of some game for its tests. That game was not judged (each battery below names it), so this certificate does not pass it: more rounds are needed.</p>");
        }
        html.push_str("<table><thead><tr><th>what</th><th>verdict</th><th>where</th></tr></thead>");
        for (i, part) in self.sweeps.iter().enumerate() {
            let _ = write!(
                html,
                "<tr><td>Outcome tests on sweep {n} ({} rounds, {} seed pair(s))</td><td>{}</td><td>§3.1</td></tr>",
                count(part.tallies.rounds()),
                part.tallies.plan.seed_pairs.len(),
                verdict_span(&battery_key("sweep", i + 1), part.results.battery.overall().as_str()),
                n = i + 1
            );
        }
        for (i, (part, shown)) in c.audits.iter().zip(&self.audits).enumerate() {
            let _ = write!(
                html,
                "<tr><td>Bet history {n} ({}, {} rows): row checks</td><td>{}</td><td>§3.5</td></tr>\
                 <tr><td>Bet history {n}: outcome tests</td><td>{}</td><td>§3.5</td></tr>",
                visible(shown.outcomes),
                count(part.audit.rounds),
                verdict_span(&rows_key(i + 1), rows_text(part.audit)),
                verdict_span(&battery_key("audit", i + 1), part.battery.overall().as_str()),
                n = i + 1
            );
        }
        for claim in c.claims {
            let _ = write!(
                html,
                "<tr><td>Claim: {} RTP {}% (± {} pp){}</td><td>{}</td><td>§3.2</td></tr>",
                claim.claim.game,
                escape(&claim.claim.figure_text),
                tolerance(claim),
                self.illustrative_note(claim.claim.game),
                verdict_span(&claim_key(claim), c.claim_text(claim))
            );
        }
        for (i, round) in c.worked.iter().enumerate() {
            let _ = write!(
                html,
                "<tr><td>Worked round {n}: {} nonce {} against {}</td><td>{}</td><td>§5.{n}</td></tr>",
                round.game,
                round.nonce,
                escape(&round.source),
                verdict_span(&worked_key(i + 1), worked_text(round)),
                n = i + 1
            );
        }
        let (_, stake_results) = self.scheme_sections(false);
        for (i, (shown, part)) in self.stake_sweeps.iter().zip(&c.stake_sweeps).enumerate() {
            super::certificate_stake::cover_rows(html, i + 1, shown, part, &stake_results);
        }
        for (i, (shown, part)) in self.stake_audits.iter().zip(&c.stake_audits).enumerate() {
            super::certificate_stake::audit_cover_rows(html, i + 1, shown, part, &stake_results);
        }
        let (_, chain_results) = self.chain_sections();
        for (i, (shown, part)) in self.chains.iter().zip(&c.chains).enumerate() {
            super::certificate_chain::cover_rows(html, i + 1, shown, part, &chain_results);
        }
        for (i, (shown, part)) in self.crash_audits.iter().zip(&c.crash_audits).enumerate() {
            super::certificate_chain::audit_cover_rows(html, i + 1, shown, part, &chain_results);
        }
        html.push_str("</table>");
        if self.illustrative() && self.games().contains(&GameId::Keno) {
            let _ = write!(html, "<p class=\"illustrative\"><b>Keno RTP is judged against the {}</b>: no Keno RTP figure or claim verdict here says anything about the operator's paytable.</p>", escape(ILLUSTRATIVE_LABEL));
        }
        html.push_str("<p class=\"note\">Contents: 1 Scope · 2 Method · 3 Results · 4 Limitations register · 5 Worked recomputations · 6 Inputs, binary and commands. \
            Anyone can re-check this certificate: <code>fairaudit certify --check DIR</code> recomputes every hash in manifest.json and every verdict above from the inputs.</p></header>");
    }

    /// Who vouches for the certificate: the auditor and the key that signs manifest.json,
    /// with the standard command that verifies it; or UNSIGNED, said plainly.
    fn signature_block(&self, html: &mut String) {
        let m = self.manifest;
        let auditor =
            m.auditor.as_deref().map(|a| format!("<b>Auditor:</b> {}. ", escape(a))).unwrap_or_default();
        match &m.signer {
            Some(signer) => {
                let _ = write!(
                    html,
                    "<div class=\"signature\">{auditor}<b>Signed</b>: manifest.json, which pins every file and verdict of this certificate, is signed in manifest.json.sig (OpenSSH signature, namespace <code>{ns}</code>) by the key <code>{fp}</code> of <code>{id}</code>. \
                     This paragraph proves nothing by itself (naming a public key takes only a copy of it): verify the signature with the auditor's published key in an allowed-signers file: <code>ssh-keygen -Y verify -f allowed_signers -I {id} -n {ns} -s manifest.json.sig &lt; manifest.json</code>, or <code>fairaudit certify --check DIR --allowed-signers allowed_signers</code>.</div>",
                    ns = SIGNATURE_NAMESPACE,
                    fp = escape(&signer.fingerprint),
                    id = escape(&signer.identity),
                );
            }
            None => {
                let _ = write!(
                    html,
                    "<div class=\"signature unsigned\">{auditor}<b>UNSIGNED</b>: no key signs this certificate. It is tied to its auditor only by the SHA-256 of its manifest.json, which the auditor publishes: <code>fairaudit certify --check DIR --expect-manifest SHA256</code> compares it.</div>"
                );
            }
        }
    }

    fn illustrative_note(&self, game: GameId) -> String {
        if game == GameId::Keno && self.illustrative() {
            format!(" <b>against the {}</b>", escape(ILLUSTRATIVE_LABEL))
        } else {
            String::new()
        }
    }

    fn scope(&self, html: &mut String) {
        let m = self.manifest;
        let _ = write!(
            html,
            "<section id=\"scope\"><h2>1. Scope</h2><p>Operator: <b>{}</b>. Games examined: {}.</p>",
            escape(&m.operator),
            escape(&self.games_text())
        );
        for (i, part) in self.sweeps.iter().enumerate() {
            let plan = &part.tallies.plan;
            let source = match &plan.seed_source {
                SeedSource::Default => "the documented default seed pair".to_owned(),
                SeedSource::Given => "the seed pair given on the command line".to_owned(),
                SeedSource::Derived { master_seed } => format!(
                    "{} seed pairs derived from master seed <code>{}</code>",
                    plan.seed_pairs.len(),
                    escape(master_seed)
                ),
            };
            let ranges: Vec<String> = plan.nonces.iter().map(|r| format!("{}..{}", r.start, r.end)).collect();
            let _ = write!(
                html,
                "<h3>1.{} Sweep {} (folder <code>{}</code>)</h3><p>Games {}; nonces {} (half-open) per game and seed pair: {} rounds per sequence, {} rounds in all; {}.</p>",
                i + 1,
                i + 1,
                visible(part.dir),
                escape(&plan.games.iter().map(|g| g.to_string()).collect::<Vec<_>>().join(", ")),
                escape(&ranges.join(", ")),
                count(plan.rounds_per_sequence()),
                count(part.tallies.rounds()),
                source
            );
            html.push_str("<table><thead><tr><th>seed pair</th><th>server seed (revealed)</th><th>client seed</th><th>commitment = SHA3-256(server seed)</th></tr></thead>");
            for (k, pair) in plan.seed_pairs.iter().enumerate().take(SEED_PAIRS_LISTED) {
                let _ = write!(html, "<tr><td>{k}</td><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td></tr>", escape(&pair.server_seed), escape(&pair.client_seed), escape(&pair.commitment));
            }
            html.push_str("</table>");
            if plan.seed_pairs.len() > SEED_PAIRS_LISTED {
                let _ = write!(html, "<p class=\"note\">{} more seed pairs are listed in the sweep's seed_pairs.csv (pinned in §6).</p>", plan.seed_pairs.len() - SEED_PAIRS_LISTED);
            }
        }
        for (i, (part, shown)) in self.conclusions.audits.iter().zip(&self.audits).enumerate() {
            let a = part.audit;
            let _ = write!(
                html,
                "<h3>1.{} Bet history {} (<code>{}</code>, audit folder <code>{}</code>)</h3><p>{}: {} rows, {} replayed against the chain (rows with both seeds and a nonce); {} seed pairs; {} player group(s).</p>",
                self.sweeps.len() + i + 1,
                i + 1,
                visible(shown.outcomes),
                visible(shown.dir),
                a.game,
                count(a.rounds),
                count(a.verified),
                a.nonce_integrity.seed_pairs,
                a.players.len()
            );
            if !a.scope.is_empty() {
                html.push_str("<table><thead><tr><th>commitment</th><th>client seed</th><th>nonces played</th></tr></thead>");
                for pair in a.scope.iter().take(SEED_PAIRS_LISTED) {
                    let ranges: Vec<String> = pair
                        .nonces
                        .iter()
                        .take(4)
                        .map(|r| {
                            if r.end - r.start == 1 {
                                r.start.to_string()
                            } else {
                                format!("{}–{}", r.start, r.end - 1)
                            }
                        })
                        .collect();
                    let more = pair.nonces.len().saturating_sub(4);
                    let _ = write!(
                        html,
                        "<tr><td><code class=\"t\">{}</code></td><td>{}</td><td>{}{}</td></tr>",
                        visible(&pair.commitment),
                        visible(&pair.client_seed),
                        ranges.join(", "),
                        if more > 0 { format!(" and {more} more range(s)") } else { String::new() }
                    );
                }
                html.push_str("</table>");
                if a.scope.len() > SEED_PAIRS_LISTED {
                    let _ = write!(html, "<p class=\"note\">{} more seed pairs; the history itself, pinned in §6, holds them all.</p>", a.scope.len() - SEED_PAIRS_LISTED);
                }
            }
        }
        let before = self.sweeps.len() + self.conclusions.audits.len();
        for (i, shown) in self.stake_sweeps.iter().enumerate() {
            super::certificate_stake::scope(html, &format!("1.{}", before + i + 1), i + 1, shown);
        }
        let before = before + self.stake_sweeps.len();
        for (i, (shown, part)) in self.stake_audits.iter().zip(&self.conclusions.stake_audits).enumerate() {
            super::certificate_stake::audit_scope(html, &format!("1.{}", before + i + 1), i + 1, shown, part);
        }
        let before = before + self.stake_audits.len();
        for (i, (shown, part)) in self.chains.iter().zip(&self.conclusions.chains).enumerate() {
            super::certificate_chain::scope(html, &format!("1.{}", before + i + 1), i + 1, shown, part);
        }
        let before = before + self.chains.len();
        for (i, (shown, part)) in self.crash_audits.iter().zip(&self.conclusions.crash_audits).enumerate() {
            super::certificate_chain::audit_scope(html, &format!("1.{}", before + i + 1), i + 1, shown, part);
        }
        html.push_str("<h3>Not examined</h3><ul>");
        for game in &self.not_examined {
            let _ = write!(html, "<li>{game}: no sweep or bet history of this game was given.</li>");
        }
        if self.conclusions.audits.is_empty() && self.default_scheme() {
            html.push_str("<li>Bet histories: none was given. The sweeps test the chain and the sampler on seeds the auditor chose; they do not show which rounds the operator actually served to players, nor that payouts were paid as the paytable says.</li>");
        }
        if !self.chains.is_empty() && self.crash_audits.is_empty() {
            html.push_str("<li>Bets on the crash games: no bet history of them is covered; the chains show every game's crash point, not who cashed out where or what was paid.</li>");
        }
        html.push_str("<li>The operator's server: how server seeds are generated and kept secret, and when commitments were published, are outside what any recomputation can see.</li>");
        if self.default_scheme() || !self.stake_sweeps.is_empty() {
            html.push_str("<li>Rounds outside the nonce ranges and seed pairs listed above.</li>");
        }
        if !self.chains.is_empty() {
            html.push_str(
                "<li>Crash games outside the ranges listed above, and chains other than these.</li>",
            );
        }
        html.push_str("</ul></section>");
    }

    fn method(&self, html: &mut String) {
        html.push_str("<section id=\"method\"><h2>2. Method</h2>");
        let (chain_method, _) = self.chain_sections();
        let (stake_method, _) = self.scheme_sections(false);
        let other_schemes = |html: &mut String| {
            if self.stake_games() {
                super::certificate_stake::method(
                    html,
                    &stake_method,
                    &self.stake_sweeps,
                    &self.conclusions.stake_sweeps,
                    &self.conclusions.stake_audits,
                );
            }
            if self.crash_games() {
                super::certificate_chain::method(
                    html,
                    &chain_method,
                    &self.chains,
                    &self.conclusions.chains,
                    &self.crash_audits,
                    &self.conclusions.crash_audits,
                );
            }
        };
        if !self.default_scheme() {
            other_schemes(html);
        } else {
            self.method_of_the_default_scheme(html);
        }
        self.statistics_method(html);
        if self.default_scheme() {
            self.calibration_method(html);
            other_schemes(html);
        }
        html.push_str("</section>");
    }

    fn method_of_the_default_scheme(&self, html: &mut String) {
        html.push_str("<h3>2.1 The chain (SPEC §1–§5), recomputed bit for bit</h3><ol>\
            <li><b>Commitment</b> = lowercase hex SHA3-256 of the server seed's UTF-8 bytes; it must equal the commitment shown before play.</li>\
            <li><b>Round signature</b> = lowercase hex SHA3-256 of the UTF-8 string <code>server:client:nonce</code> (nonce in plain decimal).</li>\
            <li><b>Stream</b>: SHAKE256 of the 64 ASCII bytes of that hex signature (not the 32 raw digest bytes), read four bytes at a time as big-endian unsigned 32-bit words.</li>\
            <li><b>Fair choice among P</b>: limit = ⌊2³²/P⌋·P (computed in 64 bits); each word ≥ limit is discarded and consumed; the first word below it gives word mod P.</li>\
            <li><b>Keno</b>: the numbers not yet drawn are kept ascending (1..40, P = 40); ten times, the sampled index picks and removes one (P = 40, 39, …, 31); the result is the ten numbers ascending. \
             <b>Roulette</b>: one sample among 37 (European) or 38 (American, 37 shown as 00).</li></ol>\
            <p>fairaudit's test suite reproduces every one of the operator's reference vectors on every change to fairaudit (tests/vectors.rs); this certificate does not re-run them all: it recomputes one or two of each game in scope, step by step, in §5.</p>");
    }

    fn statistics_method(&self, html: &mut String) {
        let stake_groups = format!("Each seed pair of a sweep of {} is tested on its own; <code>all</code> sums them; <code>across</code> tests whether the per-pair statistics are more dispersed than fairness allows; a bet history's recorded results are tested per game (group <code>log</code>). ", self.keyed_family());
        const CRASH_GROUPS: &str = "Each crash chain is tested on its own (group <code>chain</code>). ";
        let groups = if self.default_scheme() {
            "Each seed pair (or player) is tested on its own; <code>all</code> sums them, each closed as its own sequence; <code>across</code> tests whether the per-pair statistics are more dispersed than fairness allows. ".to_owned()
        } else {
            [(self.stake_games(), stake_groups.as_str()), (self.crash_games(), CRASH_GROUPS)]
                .iter()
                .filter(|(present, _)| *present)
                .map(|(_, text)| *text)
                .collect()
        };
        let _ = write!(
            html,
            "<h3>2.{number} Statistical tests</h3><p>{}Verdicts at family-wise level α = {a}: a Holm-adjusted p below α is FAIL; an unadjusted p below α that does not survive Holm's adjustment is WEAK; otherwise PASS. \
             A test not valid at the run's size is INSUFFICIENT (with its reason) and takes no part in the adjustment. Holm's procedure holds the chance that a fair game FAILs anywhere in the battery at or below α, whatever the dependence between tests.</p>",
            groups,
            a = self.manifest.alpha,
            // After the default scheme's chain, or after the other schemes' methods.
            number = if self.default_scheme() {
                2
            } else {
                1 + usize::from(self.stake_games()) + usize::from(self.crash_games())
            },
        );
        if !self.default_scheme() {
            return;
        }
        let mut names: Vec<String> = Vec::new();
        let batteries = self
            .conclusions
            .sweeps
            .iter()
            .map(|r| &r.battery)
            .chain(self.conclusions.audits.iter().map(|a| a.battery));
        for battery in batteries {
            for r in &battery.results {
                let name = method_name(&r.outcome.test);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        html.push_str("<table><thead><tr><th>test</th><th>statistic and null distribution</th></tr></thead>");
        for name in &names {
            let _ =
                write!(html, "<tr><td><code>{}</code></td><td>{}</td></tr>", escape(name), test_method(name));
        }
        html.push_str("</table>");
    }

    fn calibration_method(&self, html: &mut String) {
        html.push_str("<h3>2.3 Calibration and power</h3><p><b>Calibration</b> (tests/calibration.rs, reduced in CI): thousands of fair runs at every shape the battery is applied to (one long sequence, many short seed pairs, merged shards, short logs), driven by ChaCha8 and by the chain itself, through the same tally and battery code; for every test an exact binomial test at 0.001 checks that no more p-values fall below α and below the first Holm threshold α/m than chance allows. \
            The goodness-of-fit tests use the Cressie–Read statistic (λ = 2/3) with at least 10 expected per bin, which stays between 0.84 and 1.1 of nominal at p = 10⁻⁴, where Pearson's X² with 5 per bin gave up to 1.66 times too many (docs/statistics.md). \
            <b>Mutants</b> (tests/mutants.rs): broken samplers at realistic sizes (a modulus off by one, no rejection on the low byte, a favoured pocket or number, repeated rounds, lagged copies, reshaped streaks, forced pairs) are each caught by the test aimed at them. \
            <b>Power</b>: each test states the smallest relative bias it detects with 80% power at this run's size, at level α/m (the first Holm step, so conservatively); §3.4 gives it as sentences.</p>");
    }

    fn results(&self, html: &mut String) {
        html.push_str("<section id=\"results\"><h2>3. Results</h2>");
        if self.default_scheme() {
            self.results_of_the_default_scheme(html);
        }
        if self.stake_games() {
            let (_, number) = self.scheme_sections(false);
            super::certificate_stake::results(
                html,
                &number,
                &self.stake_sweeps,
                &self.conclusions.stake_sweeps,
                &self.stake_audits,
                &self.conclusions.stake_audits,
            );
        }
        if self.crash_games() {
            let (_, number) = self.chain_sections();
            super::certificate_chain::results(
                html,
                &number,
                &self.chains,
                &self.conclusions.chains,
                &self.crash_audits,
                &self.conclusions.crash_audits,
            );
        }
        html.push_str("</section>");
    }

    fn results_of_the_default_scheme(&self, html: &mut String) {
        if !self.sweeps.is_empty() {
            html.push_str("<h3>3.1 Outcome tests</h3>");
        }
        for (i, part) in self.sweeps.iter().enumerate() {
            let battery = &part.results.battery;
            let _ = write!(
                html,
                "<p>Sweep {n}: {}. Listed: the {} rows, the tests across seed pairs and every row that is not PASS; every row is in the sweep's tests.csv.</p>",
                battery_sentence(battery, "sweep", i + 1),
                if part.tallies.plan.seed_pairs.len() > 1 { "all-pairs" } else { "seed pair 0" },
                n = i + 1
            );
            tests_table(html, "sweep", i + 1, battery);
        }
        self.rtp(html);
        html.push_str("<h3>3.3 Rejection sampling against its exact expectation</h3><p>Per draw at P, a word is rejected with probability q = (2³² mod P)/2³², so D draws reject D·q/(1 − q) words in expectation. A sampler that skips rejection rejects nothing; one that rejects wrongly rejects too much. The counts below are tested by the <code>rejections</code> tests of §3.1.</p>");
        for (i, part) in self.sweeps.iter().enumerate() {
            rejection_table(html, i + 1, &part.results.rejections, part.tallies.plan.seed_pairs.len() > 1);
        }
        html.push_str("<h3>3.4 Power, in sentences</h3><ul>");
        for (i, part) in self.sweeps.iter().enumerate() {
            for game in &part.tallies.plan.games {
                let plan = &part.tallies.plan;
                let pairs = if headline_group(&part.results.battery, *game).as_deref() == Some("all") {
                    plan.seed_pairs.len() as u64
                } else {
                    1
                };
                power_sentences(
                    html,
                    &format!("sweep {}", i + 1),
                    *game,
                    &part.results.battery,
                    plan.rounds_per_sequence() * pairs,
                );
            }
        }
        for (i, part) in self.conclusions.audits.iter().enumerate() {
            power_sentences(
                html,
                &format!("bet history {}", i + 1),
                part.audit.game,
                part.battery,
                part.audit.rounds,
            );
        }
        html.push_str("</ul><p class=\"note\">“At 80% power”: a bias of that size would be detected (FAIL) in at least 80% of runs of this size; smaller biases may go unseen (limitation 2).</p>");
        if !self.conclusions.audits.is_empty() {
            html.push_str("<h3>3.5 Bet histories</h3>");
            for (i, (part, shown)) in self.conclusions.audits.iter().zip(&self.audits).enumerate() {
                let a = part.audit;
                let findings: Vec<String> =
                    a.findings.iter().map(|(check, n)| format!("{check}: {n}")).collect();
                let n = &a.nonce_integrity;
                let _ = write!(
                    html,
                    "<p>Bet history {k} (<code>{}</code>): {} rows read, {} replayed against the chain, {} mismatches; row checks: {} ({}). Nonces: {} seed pairs, {} gaps ({} nonces missing), {} rounds at skipped nonces replayed.</p>",
                    visible(shown.outcomes),
                    count(a.rounds),
                    count(a.verified),
                    count(a.mismatches),
                    verdict_span(&rows_key(i + 1), rows_text(a)),
                    if findings.is_empty() { "no findings".to_owned() } else { escape(&findings.join(", ")) },
                    n.seed_pairs,
                    n.gaps,
                    n.missing_nonces,
                    n.replayed,
                    k = i + 1
                );
                findings_table(html, shown, a.findings.iter().map(|(_, n)| n).sum());
                let _ =
                    write!(html, "<p>Its battery: {}.</p>", battery_sentence(part.battery, "audit", i + 1));
                tests_table(html, "audit", i + 1, part.battery);
            }
        }
        self.coverage(html);
    }

    /// The regulators' named tests: which battery tests cover each, and the verdict they
    /// reached here; what is not covered, said plainly.
    fn coverage(&self, html: &mut String) {
        use super::coverage::{verdict_of, CLAUSES, OTHER_CLAUSES, PENNSYLVANIA};
        let batteries: Vec<&Battery> = self
            .conclusions
            .sweeps
            .iter()
            .map(|r| &r.battery)
            .chain(self.conclusions.audits.iter().map(|a| a.battery))
            .collect();
        html.push_str("<h3>3.6 Regulatory coverage</h3><p>The tests regulators name, the battery tests that cover each on the outcomes certified here, and the verdict those reached (the worst of them; docs/statistics.md has the full table, with the tests run on the raw stream in fairaudit's CI).</p>\
            <table><thead><tr><th>regulation</th><th>named test</th><th>battery tests</th><th>verdict here</th><th>otherwise</th></tr></thead>");
        let mut row = |regulation: &str, named: &str, tests: &[&str], otherwise: &str| {
            let verdict = if tests.is_empty() {
                "&ndash;".to_owned()
            } else {
                verdict_of(tests, &batteries).map_or("not run here".to_owned(), |v| v.as_str().to_owned())
            };
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{verdict}</td><td>{}</td></tr>",
                escape(regulation),
                escape(named),
                tests.iter().map(|t| format!("<code class=\"t\">{t}</code>")).collect::<Vec<_>>().join(" "),
                escape(otherwise)
            );
        };
        for clause in CLAUSES {
            row(&format!("{PENNSYLVANIA}{}", clause.clause), clause.named, clause.tests, clause.otherwise);
        }
        for (regulation, named, tests, otherwise) in OTHER_CLAUSES {
            row(regulation, named, tests, otherwise);
        }
        html.push_str("</table><p class=\"note\">Not covered by any statistic: interplay correlation between games or seed pairs played at once; poker, coupon-collector and Kolmogorov–Smirnov tests on outcomes (run on the raw stream only); and the non-statistical clauses (cryptographic strength, seeding, source review), which are outside what fairaudit runs.</p>");
    }

    fn rtp(&self, html: &mut String) {
        html.push_str("<h3>3.2 Return to player per bet type, and the published claims</h3><p>Exact, in rational arithmetic, from the payouts and the game's probabilities (no simulation). A claim holds when every bet type of its game lies within the claim's tolerance.</p>");
        if self.illustrative() && self.games().contains(&GameId::Keno) {
            let _ = write!(html, "<p class=\"illustrative\"><b>Keno figures below use the {}.</b> The operator's paytable was not given (--paytable): the Keno claim is NOT ASSESSED, and the Keno rows and their comparison with it only illustrate the method; they are not findings about the operator.</p>", escape(ILLUSTRATIVE_LABEL));
        } else if self.games().contains(&GameId::Keno) {
            let _ = write!(html, "<p>Keno paytable: {}.</p>", escape(&self.paytable.describe()));
        }
        for claim in self.conclusions.claims {
            let _ = write!(
                html,
                "<p class=\"keep\">Claim: {} RTP {}% (the figure's source: {}; tolerance ± {} pp, {}){}: <b>{}</b>.</p>",
                claim.claim.game,
                escape(&claim.claim.figure_text),
                escape(if claim.claim.source.is_empty() { "not stated" } else { &claim.claim.source }),
                tolerance(claim),
                match &self.manifest.claims {
                    None => "set by fairaudit's built-in claims (data/claims.csv): SPEC.md states no tolerance".to_owned(),
                    Some(file) => format!("as the claims file {} sets it", escape(file)),
                },
                self.illustrative_note(claim.claim.game),
                verdict_span(&claim_key(claim), self.conclusions.claim_text(claim))
            );
        }
        for game in self.unclaimed_games() {
            let _ = write!(html, "<p class=\"keep\">Claim: none about {game}: its RTP below is computed, and no published figure is checked against it.</p>");
        }
        html.push_str("<table id=\"rtp-table\"><thead><tr><th>game</th><th>bet type</th><th>pays</th><th>RTP %</th><th>house edge %</th><th>claim</th><th>deviation (pp)</th><th>within the claim</th></tr></thead>");
        for bet in self.exact {
            let claim = self.conclusions.claims.iter().find(|c| c.claim.game == bet.game);
            let check = claim.and_then(|c| c.checks.iter().find(|k| k.bet_type == bet.bet_type));
            let (figure, deviation, within) = match (claim, check) {
                (Some(c), Some(k)) => (
                    format!("{}%", escape(&c.claim.figure_text)),
                    k.deviation.text(),
                    if !self.conclusions.assessed(c) {
                        "not assessed".to_owned()
                    } else if k.holds() {
                        "yes".to_owned()
                    } else {
                        format!("<b class=\"rej\">no</b> ({} pp beyond)", k.beyond_tolerance.text())
                    },
                ),
                _ => ("none".to_owned(), String::new(), String::new()),
            };
            let illustrative = if bet.game == GameId::Keno && self.illustrative() {
                " <i>(illustrative paytable)</i>"
            } else {
                ""
            };
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}{illustrative}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{figure}</td><td class=\"num\">{deviation}</td><td>{within}</td></tr>",
                bet.game,
                escape(&bet.bet_type),
                escape(&bet.pays),
                bet.rtp_percent().text(),
                bet.house_edge_percent().text()
            );
        }
        html.push_str("</table><p class=\"note\">The realised RTP of the swept rounds, per bet type with its interval, is in each sweep's rtp.csv; with fair draws it converges to the exact figures above.</p>");
    }

    fn limitations(&self, html: &mut String) {
        let mut items: Vec<String> = Vec::new();
        let worked_rejection = self.conclusions.worked.iter().position(|w| w.rejections() > 0);
        let default_scheme = self.default_scheme();
        items.extend(default_scheme.then(|| format!(
            "<b>Reduction without rejection is invisible to statistics.</b> Taking <code>word % P</code> without discarding words at or above the limit biases each outcome by about 10⁻⁹ per draw: no statistic detects that at any practical size. Only the rejection vectors catch it (a sampler without rejection reproduces every other vector){}. Likewise a Keno draw that removes numbers by swapping instead of shifting keeps outcomes exactly uniform and is caught only by the reference vectors.",
            match worked_rejection {
                Some(i) => format!("; worked round {} (§5) shows such a rejection and reproduces its vector", i + 1),
                None => String::new(),
            }
        )));
        items.push(format!("<b>Statistical power is finite.</b> A bias smaller than the detectable bias {} may exist undetected; a PASS means the data are consistent with fairness at this size, not that the game is exactly fair.", match (default_scheme, !self.crash_games()) {
            (true, true) => "of §3.4",
            (true, false) => "of §3.4 (for the crash games, beside each test of §3.7)",
            (false, _) => "beside each test of §3",
        }));
        if self.games().contains(&GameId::Keno) {
            items.push(if self.illustrative() {
                format!("<b>Keno RTP depends on the operator's paytable, which was not given.</b> Every Keno RTP figure and the Keno claim's verdict use the {}; they certify nothing about the operator.", escape(ILLUSTRATIVE_LABEL))
            } else {
                format!("<b>Keno RTP depends on the operator's paytable.</b> The figures use {}; that it is the paytable in production is the operator's statement, not something fairaudit can see.", escape(&self.paytable.describe()))
            });
        }
        items.extend((default_scheme || !self.stake_sweeps.is_empty()).then_some("<b>Seeds.</b> A sweep tests the chain and the sampler on seed pairs the auditor chose (their server seeds are revealed here); it cannot show that the operator's own server seeds were random, secret until rotated, or committed before play. Rounds whose server seed is unrevealed cannot be recomputed at all.".into()));
        let unreplayed: u64 = self.conclusions.audits.iter().map(|a| a.audit.rounds - a.audit.verified).sum();
        if unreplayed > 0 {
            items.push(format!("<b>Unrevealed seeds in the bet histories.</b> {} rows had no revealed seed pair and nonce and were not replayed against the chain; only their outcomes entered the statistics.", count(unreplayed)));
        }
        let mut weak = Vec::new();
        let mut insufficient = Vec::new();
        let batteries = self
            .conclusions
            .sweeps
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("sweep {}", i + 1), &r.battery))
            .chain(
                self.conclusions
                    .audits
                    .iter()
                    .enumerate()
                    .map(|(i, a)| (format!("bet history {}", i + 1), a.battery)),
            );
        for (label, battery) in batteries {
            not_plain(&label, battery, &mut weak, &mut insufficient);
        }
        for (i, (part, shown)) in self.conclusions.stake_sweeps.iter().zip(&self.stake_sweeps).enumerate() {
            let runs = super::certificate_stake::runs(shown.plan.keyed_scheme()).to_lowercase();
            not_plain(&format!("{runs} sweep {}", i + 1), part.battery, &mut weak, &mut insufficient);
        }
        for (i, part) in self.conclusions.stake_audits.iter().enumerate() {
            let runs = super::certificate_stake::runs(part.audit.scheme).to_lowercase();
            not_plain(&format!("{runs} bet history {}", i + 1), part.battery, &mut weak, &mut insufficient);
        }
        for (i, part) in self.conclusions.chains.iter().enumerate() {
            not_plain(&format!("crash chain {}", i + 1), part.battery, &mut weak, &mut insufficient);
        }
        for (i, part) in self.conclusions.crash_audits.iter().enumerate() {
            not_plain(&format!("crash bet history {}", i + 1), part.battery, &mut weak, &mut insufficient);
        }
        if insufficient.is_empty() {
            items.push("<b>INSUFFICIENT tests</b>: none; every test was valid at this size.".into());
        } else {
            const LISTED: usize = 12;
            let more = insufficient.len().saturating_sub(LISTED);
            insufficient.truncate(LISTED);
            items.push(format!(
                "<b>INSUFFICIENT tests</b> ({} in all) did not run and say nothing: {}{}.",
                insufficient.len() + more,
                insufficient.join("; "),
                if more > 0 { format!("; and {more} more (tests.csv)") } else { String::new() }
            ));
        }
        if !weak.is_empty() {
            items.push(format!(
                "<b>WEAK tests</b>: p below α before Holm's adjustment, not after; not a finding, but where to look again with more data: {}.",
                weak.join("; ")
            ));
        }
        for game in &self.not_examined {
            items.push(format!("<b>{game} was not examined</b>: no sweep or bet history of it was given."));
        }
        let unclaimed = self.unclaimed_games();
        if !unclaimed.is_empty() {
            let names: Vec<String> = unclaimed.iter().map(ToString::to_string).collect();
            items.push(format!(
                "<b>No RTP claim about {} was checked</b>: the claims give none, so {} RTP in §3.2 is computed and stated, not certified against a figure the operator published.",
                names.join(", "),
                if names.len() == 1 { "its" } else { "their" }
            ));
        }
        if self.conclusions.audits.is_empty() && default_scheme {
            items.push("<b>No bet history was examined</b>: whether players were served these outcomes, paid per the paytable, or had rounds skipped or repeated is not covered.".into());
        }
        let warnings: Vec<&String> = self.conclusions.sweeps.iter().flat_map(|r| &r.warnings).collect();
        for warning in warnings {
            items.push(format!("<b>Ambiguous seeds.</b> {}", escape(warning)));
        }
        if self
            .sweeps
            .iter()
            .any(|s| s.tallies.plan.nonces.iter().any(|r| r.end - 1 > crate::chain::REFERENCE_MAX_NONCE))
        {
            items.push("<b>Nonces above 2⁵³ − 1</b> were swept; the operator's verifier cannot represent them, so there is no reference behaviour there.".into());
        }
        super::certificate_stake::limitations(&mut items, &self.stake_sweeps, &self.conclusions.stake_audits);
        super::certificate_chain::limitations(
            &mut items,
            &self.chains,
            &self.crash_audits,
            &self.conclusions.crash_audits,
        );
        items.extend(default_scheme.then_some("<b>Timing.</b> That an outcome was fixed before the bet rests on the commitment having been shown before play; fairaudit checks that a revealed seed hashes to its commitment, not when the commitment was published.".into()));
        let beyond: Vec<&SweepPart<'_>> =
            self.sweeps.iter().filter(|s| s.tallies.rounds() > self.resweep_limit).collect();
        items.extend(default_scheme.then(|| if beyond.is_empty() {
            "<b>Re-checking.</b> <code>certify --check</code> re-sweeps every sweep in full and replays every bet history; its results are byte-identical whatever the machine, threads or Keccak path.".into()
        } else {
            format!("<b>Re-checking.</b> {} sweep(s) exceed {} rounds: <code>certify --check</code> recomputes their verdicts from their pinned tallies but does not re-sweep them (pass <code>--resweep-limit</code> to).", beyond.len(), count(self.resweep_limit))
        }));
        items.push(if self.manifest.signer.is_some() {
            "<b>A signature ties the certificate to a key, not to a person.</b> It proves who wrote manifest.json only to a reader who has the auditor's public key from a source they trust (the auditor's own site, a regulator's register); a key taken from this certificate proves nothing.".into()
        } else {
            "<b>The manifest pins, it does not sign.</b> Anyone who can rewrite the whole folder can rewrite the hashes too: publish the SHA-256 of manifest.json (or sign it: <code>certify --sign</code>) where the operator's players can see it.".into()
        });
        html.push_str("<section id=\"limitations\"><h2>4. Limitations register</h2><ol class=\"register\">");
        for item in items {
            let _ = write!(html, "<li>{item}</li>");
        }
        html.push_str("</ol></section>");
    }

    fn worked(&self, html: &mut String) {
        html.push_str("<section id=\"worked\"><h2>5. Worked recomputations</h2>");
        if self.conclusions.worked.is_empty() {
            let keyed = self.keyed_family();
            let _ = write!(
                html,
                "<p>{}, recomputed step by step; each step can be redone with OpenSSL.</p>",
                match (self.stake_games(), self.crash_games()) {
                    (false, _) => "The highest game of each crash chain and the first game of each crash bet history given with its hash".to_owned(),
                    (true, false) => format!("The first round of each sweep of {keyed} and the first row of each of its bet histories replayed from its seeds"),
                    (true, true) => format!("The first round of each sweep of {keyed}, the first row of each of its bet histories replayed from its seeds, the highest game of each crash chain and the first game of each crash bet history given with its hash"),
                }
            );
        } else {
            self.worked_intro(html);
        }
        for (i, round) in self.conclusions.worked.iter().enumerate() {
            worked_round(html, i + 1, round);
        }
        let mut number = self.conclusions.worked.len();
        for (i, shown) in self.stake_sweeps.iter().enumerate() {
            number += 1;
            super::certificate_stake::worked_round(html, &format!("5.{number}"), i + 1, shown);
        }
        for (i, part) in self.conclusions.stake_audits.iter().enumerate() {
            if part.audit.first_replayed.is_some() {
                number += 1;
                super::certificate_stake::worked_audit_row(html, &format!("5.{number}"), i + 1, part);
            }
        }
        for (i, chain) in self.chains.iter().enumerate() {
            number += 1;
            super::certificate_chain::worked_chain_game(html, &format!("5.{number}"), i + 1, chain);
        }
        for (i, (shown, part)) in self.crash_audits.iter().zip(&self.conclusions.crash_audits).enumerate() {
            if part.audit.first_hashed.is_some() {
                number += 1;
                super::certificate_chain::worked_audit_game(html, &format!("5.{number}"), i + 1, shown, part);
            }
        }
        html.push_str("</section>");
    }

    fn worked_intro(&self, html: &mut String) {
        html.push_str("<p>Three rounds from the operator's vectors, recomputed with fairaudit's own chain and sampler and compared with what the vector records. Each step can be redone with any SHA-3 tool, e.g. <code>printf '%s' 'MESSAGE' | openssl dgst -sha3-256</code> and <code>printf '%s' SIGNATURE | openssl dgst -shake256 -xoflen 16</code> (OpenSSL 3), or Python's <code>hashlib.sha3_256</code> and <code>hashlib.shake_256</code>.</p>");
    }

    fn pins(&self, html: &mut String) {
        let m = self.manifest;
        let _ = write!(
            html,
            "<section id=\"pins\"><h2>6. Inputs, binary and commands</h2><p>fairaudit {} (source revision <code>{}</code>); binary <code>{}</code>, SHA-256 <code>{}</code> ({} bytes).</p><p>This certificate: <code>fairaudit {}</code></p>",
            escape(&m.fairaudit_version),
            escape(m.source_revision.as_deref().unwrap_or("unknown")),
            escape(&m.binary.path),
            m.binary.sha256,
            m.binary.bytes,
            visible(&shell_line(&m.command_line))
        );
        for (i, sweep) in m.sweeps.iter().enumerate() {
            let _ = write!(
                html,
                "<p>Sweep {} (<code>{}</code>): <code>{}</code></p>",
                i + 1,
                escape(&sweep.dir),
                if sweep.command_line.is_empty() {
                    "(not recorded)".to_owned()
                } else {
                    visible(&format!("fairaudit {}", shell_line(&sweep.command_line)))
                }
            );
        }
        // Each input's command, in the order the manifest's lists come in.
        let commands = m
            .audits
            .iter()
            .map(|a| ("Bet history".to_owned(), &a.dir, &a.command_line))
            .enumerate()
            .chain(
                m.crash_audits
                    .iter()
                    .map(|a| ("Crash bet history".to_owned(), &a.dir, &a.command_line))
                    .enumerate(),
            )
            .chain(
                m.stake_sweeps
                    .iter()
                    .zip(&self.stake_sweeps)
                    .map(|(s, shown)| {
                        (
                            format!("{} sweep", super::certificate_stake::runs(shown.plan.keyed_scheme())),
                            &s.dir,
                            &s.command_line,
                        )
                    })
                    .enumerate(),
            )
            .chain(
                m.stake_audits
                    .iter()
                    .zip(&self.conclusions.stake_audits)
                    .map(|(a, part)| {
                        (
                            format!("{} bet history", super::certificate_stake::runs(part.audit.scheme)),
                            &a.dir,
                            &a.command_line,
                        )
                    })
                    .enumerate(),
            )
            .chain(m.chains.iter().map(|c| ("Crash chain".to_owned(), &c.dir, &c.command_line)).enumerate());
        for (i, (what, dir, command)) in commands {
            let _ = write!(
                html,
                "<p>{what} {} (<code>{}</code>): <code>fairaudit {}</code></p>",
                i + 1,
                escape(dir),
                visible(&shell_line(command))
            );
        }
        html.push_str("<table><thead><tr><th>input file</th><th>bytes</th><th>SHA-256</th></tr></thead>");
        for file in &m.inputs {
            let _ = write!(
                html,
                "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td><code>{}</code></td></tr>",
                escape(&file.path),
                file.bytes,
                file.sha256
            );
        }
        html.push_str("</table><p class=\"note\">manifest.json holds these hashes, the hashes of this document and of certificate.pdf, and every verdict above under its key. <code>fairaudit certify --check DIR</code>, run from any directory on a copy of this folder, checks that the folder holds exactly these files, recomputes every hash, re-sweeps the sweeps, replays the bet histories and the worked rounds, plays the crash chains again and walks them to their published games from the copies in <code>inputs/</code>, renders this document again and compares it byte for byte, and names each file, figure or verdict that differs.</p></section>");
    }
}

/// Arguments joined for display, each quoted when the shell would need it.
pub fn shell_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c)) {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn tests_table(html: &mut String, kind: &str, index: usize, battery: &Battery) {
    let rows = GameId::ALL.into_iter().flat_map(|game| {
        let headline = headline_group(battery, game);
        battery.results.iter().filter(move |r| r.game == game && shown(r, headline.as_deref()))
    });
    test_rows(html, kind, index, rows);
}

/// The WEAK and INSUFFICIENT rows of a battery, labelled, for the limitations register.
fn not_plain<G: std::fmt::Display>(
    label: &str,
    battery: &Battery<G>,
    weak: &mut Vec<String>,
    insufficient: &mut Vec<String>,
) {
    for r in battery.results.iter().filter(|r| r.verdict == Verdict::Weak) {
        weak.push(format!(
            "{label} {} {} <code>{}</code> (p {})",
            r.game,
            visible(&r.seed_pair),
            escape(&r.outcome.test),
            r.outcome.p_value.map_or(String::new(), |p| escape(&p_value_text(p)))
        ));
    }
    for r in battery.results.iter().filter(|r| r.verdict == Verdict::Insufficient) {
        insufficient.push(format!(
            "{label} {} {} <code>{}</code>: {}",
            r.game,
            visible(&r.seed_pair),
            escape(&r.outcome.test),
            escape(r.outcome.insufficient.as_deref().unwrap_or(&r.outcome.note))
        ));
    }
}

fn rejection_table(html: &mut String, index: usize, rows: &[RejectionRow], several: bool) {
    let _ = write!(html, "<p>Sweep {index}{}:</p><table><thead><tr><th>game</th><th>P</th><th>2³² mod P</th><th>draws</th><th>rejected words</th><th>expected</th><th>rejected per draw</th><th>exact q/(1 − q)</th><th>rounds beyond the verifier's words</th></tr></thead>", if several { ", all seed pairs" } else { "" });
    for row in rows.iter().filter(|r| !several || r.group == "all") {
        let q = rejected_values(row.outcomes) as f64 / (1u64 << 32) as f64;
        let _ = write!(
            html,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            row.game,
            row.outcomes,
            row.rejected_values,
            count(row.draws),
            count(row.rejected),
            small(row.expected),
            if row.draws > 0 { small(row.rejected as f64 / row.draws as f64) } else { "&ndash;".into() },
            small(q / (1.0 - q)),
            row.beyond_reference_words
        );
    }
    html.push_str("</table>");
}

/// The power of the headline group's frequency, serial and rejection tests, as sentences.
fn power_sentences(html: &mut String, label: &str, game: GameId, battery: &Battery, rounds: u64) {
    let Some(group) = headline_group(battery, game) else { return };
    let rows: Vec<&TestResult> =
        battery.results.iter().filter(|r| r.game == game && r.seed_pair == group).collect();
    let find = |names: &[&str]| rows.iter().find(|r| names.contains(&r.outcome.test.as_str())).copied();
    let what = if game == GameId::Keno { "rounds" } else { "spins" };
    let size = format!("with {} {what}, ", count(rounds));
    let mut say = |test: Option<&TestResult>, text: &str| {
        if let Some(r) = test {
            match (r.verdict, r.detectable_bias) {
                (Verdict::Insufficient, _) => {
                    let _ = write!(html, "<li>{label}, {game}: <code>{}</code> is INSUFFICIENT at this size, so this certificate states no bound of that kind.</li>", escape(&r.outcome.test));
                }
                (_, Some(bias)) if bias >= 1.0 => {
                    let _ = write!(html, "<li>{label}, {game}: <code>{}</code> could not detect even a doubling at this size (80% power), so this certificate states no bound of that kind.</li>", escape(&r.outcome.test));
                }
                (_, Some(bias)) => {
                    let _ = write!(
                        html,
                        "<li>{label}, {game} (group {}): {}{text} {}, at 80% power (<code>{}</code>).</li>",
                        escape(&group),
                        size,
                        percent(bias),
                        escape(&r.outcome.test)
                    );
                }
                _ => {}
            }
        }
    };
    if game == GameId::Keno {
        say(
            find(&["number_frequency"]),
            "no single number is drawn more or less often than fair by more than",
        );
        say(
            find(&["pairs"]),
            "no single pair of numbers is drawn together more or less often than fair by more than",
        );
        say(
            find(&["serial_overlap"]),
            "the overlap of consecutive rounds departs from its fair law by no more than",
        );
    } else {
        say(
            find(&["pocket_frequency"]),
            "no single pocket comes up more or less often than fair by more than",
        );
        say(
            find(&["serial_pairs"]),
            "no single transition from one pocket to the next departs from fair by more than",
        );
        say(find(&["colour"]), "red (against black) is not favoured by more than");
    }
    let rejections: Vec<&TestResult> =
        rows.iter().filter(|r| r.outcome.test.starts_with("rejections")).copied().collect();
    if let Some(r) = rejections
        .iter()
        .filter(|r| r.detectable_bias.is_some())
        .min_by(|a, b| a.detectable_bias.partial_cmp(&b.detectable_bias).expect("finite"))
    {
        let at = match r.outcome.test.strip_prefix("rejections_p") {
            Some(p) => format!("at P = {}", escape(p)),
            None => "(every P together)".to_owned(),
        };
        let _ = write!(html, "<li>{label}, {game}: the rejection rate {at} would have to rise by {} to be detected at 80% power (<code>{}</code>): so few rejections are expected that only a sampler rejecting far too often is seen this way; one that never rejects is seen only by the vectors (limitation 1).</li>", percent(r.detectable_bias.expect("filtered")), escape(&r.outcome.test));
    }
}

fn worked_round(html: &mut String, n: usize, w: &WorkedRound) {
    let tick = |ok: bool| {
        if ok {
            "<span class=\"v-MATCHES\">= vector</span>"
        } else {
            "<span class=\"v-DIFFERS\">≠ vector</span>"
        }
    };
    let message_hex: String = w.message.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    let _ = write!(
        html,
        "<h3>5.{n} {} nonce {} ({}){}</h3><table><tbody>\
         <tr><th>server seed</th><td><code>{}</code></td></tr><tr><th>client seed</th><td><code>{}</code></td></tr><tr><th>nonce</th><td><code>{}</code></td></tr>\
         <tr><th>1. commitment = SHA3-256(server seed)</th><td><code>{}</code> {}</td></tr>\
         <tr><th>2. message <code>server:client:nonce</code></th><td><code>{}</code><br>{} bytes (UTF-8, hex): <code>{}</code></td></tr>\
         <tr><th>3. signature = SHA3-256(message)</th><td><code>{}</code> {}</td></tr>\
         <tr><th>4. SHAKE256(the 64 ASCII bytes of the signature), first words (big-endian u32)</th><td><code>{}</code></td></tr>\
         </tbody></table>",
        w.game,
        w.nonce,
        escape(&w.source),
        if w.rejections() > 0 { format!(": <b class=\"rej\">{} rejected word(s)</b>", w.rejections()) } else { String::new() },
        escape(&w.server_seed),
        escape(&w.client_seed),
        w.nonce,
        w.commitment,
        tick(w.commitment == w.recorded.commitment),
        escape(&w.message),
        w.message.len(),
        message_hex,
        w.signature,
        tick(w.signature == w.recorded.signature),
        w.first_words.iter().map(|x| format!("0x{x:08x} = {x}")).collect::<Vec<_>>().join(", ")
    );
    html.push_str("<p>5. Rejection sampling, draw by draw (limit = ⌊2³²/P⌋·P; a word at or above it is discarded):</p><table><thead><tr><th>draw</th><th>P</th><th>limit</th><th>word(s) read (stream position: value)</th><th>index = word mod P</th><th>chosen</th></tr></thead>");
    for (k, draw) in w.draws.iter().enumerate() {
        let words: Vec<String> = draw
            .words
            .iter()
            .map(|s| {
                if s.accepted {
                    format!("#{}: {} &lt; limit, accepted", s.position, s.word)
                } else {
                    format!("<b class=\"rej\">#{}: {} ≥ limit, rejected</b>", s.position, s.word)
                }
            })
            .collect();
        let chosen = if draw.list.is_empty() {
            format!("pocket {}", escape(&draw.chosen))
        } else {
            let list: Vec<String> = draw
                .list
                .iter()
                .enumerate()
                .map(|(i, x)| if i as u32 == draw.index { format!("<b>{x}</b>") } else { x.to_string() })
                .collect();
            format!(
                "number {} = list[{}] of <span class=\"mono\">{}</span>",
                escape(&draw.chosen),
                draw.index,
                list.join(" ")
            )
        };
        let _ = write!(
            html,
            "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{chosen}</td></tr>",
            k + 1,
            draw.outcomes,
            draw.limit,
            words.join("<br>"),
            draw.index
        );
    }
    let _ = write!(
        html,
        "</table><p>6. Outcome: draw order <code>{}</code> {}, result <code>{}</code> {}, {} words used {}. Recomputation: <b>{}</b>.</p>",
        escape(&w.draw_order),
        tick(w.draw_order == w.recorded.draw_order),
        escape(&w.result),
        tick(w.result == w.recorded.result),
        w.u32_used,
        tick(w.u32_used == w.recorded.u32_used),
        verdict_span(&worked_key(n), worked_text(w))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_carries_its_key_escaped() {
        assert_eq!(
            verdict_span("audit 1 keno player:\"x\" & <y> pairs", "DOES NOT HOLD"),
            "<span class=\"v-DOES-NOT-HOLD\" data-verdict=\"audit 1 keno player:&quot;x&quot; &amp; &lt;y&gt; pairs\">DOES NOT HOLD</span>"
        );
    }

    #[test]
    fn an_operator_name_cannot_leave_the_css_string() {
        let text = css_string("Evil\" } </style><script>");
        assert!(!text.contains('"') && !text.contains('<') && !text.contains('}'), "{text}");
        assert!(text.starts_with("Evil"));
    }

    #[test]
    fn shell_line_quotes_what_the_shell_would_split() {
        let args = ["certify", "--operator", "Big Casino's", "--out", "a/b"].map(String::from);
        assert_eq!(shell_line(&args), "certify --operator 'Big Casino'\\''s' --out a/b");
    }
}
