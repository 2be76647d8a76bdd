//! `report.html`: one self-contained page (inline CSS and SVG; no scripts, fonts, images
//! or network references) that a person reads in a minute: the verdict first, then the
//! charts per game, the tests, RTP and claims, rejections, and how to reproduce the run.

use super::results::{overall_label, verdict_label, PARTIAL};
use super::svg::{escape, p_value_histogram, BandChart, HeatMap};
use super::table::format_number;
use super::RunInfo;
use crate::games::keno::{DRAWN, GRID};
use crate::games::{GameId, Roulette};
use crate::results::{Charts, RunResults};
use crate::stats::battery::{p_value_text, Battery, TestResult, Verdict};
use crate::tally::file::TallyFile;
use crate::tally::keno::pair_index;
use crate::tally::shards::PartialOf;
use std::fmt::Write;

/// z for a two-sided 99% band.
pub(crate) const Z99: f64 = 2.575_829_303_548_901;

/// Everything the report shows: it formats, it computes nothing.
pub struct HtmlReport<'a> {
    /// How the run was made.
    pub run: &'a RunInfo,
    /// The tallies' plan.
    pub tallies: &'a TallyFile,
    /// What the run concluded.
    pub results: &'a RunResults,
}

/// The report pages' style sheet (shared by the sweep and audit reports).
pub(crate) const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:960px;color:#222;line-height:1.4}\
h1{margin-bottom:4px}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}\
.verdict{display:inline-block;font-size:28px;font-weight:700;padding:6px 18px;border-radius:6px;color:#fff}\
.PASS{background:#1e8449}.FAIL{background:#c0392b}.WEAK{background:#d68910}.INSUFFICIENT{background:#7f8c8d}.PARTIAL{background:#6c3483}\
p.partial{border-left:6px solid #6c3483;background:#f4ecf7;padding:8px 12px}\
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}\
th{background:#f4f6f8}td.num{text-align:right;font-variant-numeric:tabular-nums}\
tr.FAIL td{background:#f9d6d2}tr.WEAK td{background:#fcebcf}tr.INSUFFICIENT td{background:#eceff1}\
.warning{background:#fcebcf;border-left:4px solid #d68910;padding:6px 10px}.chart{width:100%;height:auto;margin:8px 0}.note{color:#555;font-size:13px}code{font-size:12px;word-break:break-all}";

impl HtmlReport<'_> {
    /// The page.
    pub fn render(&self) -> String {
        let mut html = String::new();
        let battery = &self.results.battery;
        let subtitle = format!(
            "fairaudit {} (rev {}) &middot; {} &middot; {} rounds per game and seed pair",
            escape(&self.run.fairaudit_version),
            escape(&self.run.fairaudit_revision),
            escape(&self.run.finished_at),
            self.tallies.plan.rounds_per_sequence()
        );
        let partial = self.tallies.partial.as_ref();
        page_start(&mut html, "fairaudit report", &subtitle, battery, overall_label(battery, partial));
        self.partial_banner(&mut html);
        warnings(&mut html, &self.results.warnings);
        self.claims_summary(&mut html);
        for charts in &self.results.charts {
            match charts {
                Charts::Keno { group, rounds, numbers, positions, pairs } => {
                    let _ = write!(html, "<h2 id=\"keno\">keno</h2>");
                    keno_charts(&mut html, group, *rounds, numbers, positions, pairs);
                }
                Charts::Roulette { game, group, spins, pockets, serial } => {
                    let _ = write!(html, "<h2 id=\"{g}\">{g}</h2>", g = game.name());
                    roulette_charts(&mut html, *game, group, *spins, pockets, serial);
                }
            }
        }
        tests_table_marked(&mut html, battery, "seed pair", partial);
        self.across_pairs(&mut html);
        self.rtp_section(&mut html);
        self.rejections(&mut html);
        self.reproduce(&mut html);
        html.push_str("</body></html>\n");
        html
    }

    /// For a merge lacking some shards: which, so that no one reads its verdicts as the
    /// whole sweep's.
    fn partial_banner(&self, html: &mut String) {
        if let Some(partial) = &self.tallies.partial {
            partial_banner(html, partial);
        }
    }

    fn illustrative_note(&self, game: GameId) -> &'static str {
        if game == GameId::Keno && self.results.paytable.is_illustrative() {
            " (against the ILLUSTRATIVE example paytable, not the operator's)"
        } else {
            ""
        }
    }

    fn claims_summary(&self, html: &mut String) {
        if self.results.claims.is_empty() {
            return;
        }
        html.push_str("<p>Published RTP claims: ");
        let parts: Vec<String> = self
            .results
            .claims
            .iter()
            .map(|verdict| {
                format!(
                    "{} {}%: <b>{}</b>{}",
                    verdict.claim.game,
                    escape(&verdict.claim.figure_text),
                    if verdict.holds() { "holds" } else { "does not hold" },
                    self.illustrative_note(verdict.claim.game)
                )
            })
            .collect();
        html.push_str(&parts.join("; "));
        html.push_str(" (see RTP below).</p>");
    }

    fn across_pairs(&self, html: &mut String) {
        if self.tallies.plan.seed_pairs.len() < 2 {
            return;
        }
        let per_pair: Vec<_> =
            self.results.battery.results.iter().filter(|r| r.seed_pair.parse::<usize>().is_ok()).collect();
        let p_values: Vec<f64> = per_pair.iter().filter_map(|r| r.outcome.p_value).collect();
        // A reader counting the bars must not take the tests too short to judge for
        // passes: they are said, not drawn.
        let undrawn = match per_pair.len() - p_values.len() {
            0 => String::new(),
            n => format!(
                " {n} of the {} per-pair tests had too few rounds to be judged (INSUFFICIENT) and are not drawn.",
                per_pair.len()
            ),
        };
        html.push_str(&format!("<h2 id=\"across\">Across seed pairs</h2><p class=\"note\">The p-values of every valid test on every seed pair. With many rounds per pair they are uniform under fairness and the bars level; with few, they take few distinct values and the bars are uneven even for a fair game. The verdicts across pairs are the dispersion and smallest-p tests in the table above; each pair's own rows are diagnostics.{undrawn}</p>"));
        html.push_str(&p_value_histogram("p-values of all tests on all seed pairs", &p_values));
    }

    fn rtp_section(&self, html: &mut String) {
        html.push_str("<h2 id=\"rtp\">Return to player (exact) and claims</h2>");
        if self.results.paytable.is_illustrative() && self.tallies.plan.games.contains(&GameId::Keno) {
            html.push_str("<p class=\"note\"><b>Keno figures use the ILLUSTRATIVE example paytable, NOT THE OPERATOR'S.</b> Their RTP is the operator's only once its paytable is given.</p>");
        }
        for verdict in &self.results.claims {
            let claim = &verdict.claim;
            let failing: Vec<String> = verdict
                .failures()
                .map(|check| format!("{} ({}%)", check.bet_type, check.rtp_percent.text()))
                .collect();
            let _ = write!(
                html,
                "<p class=\"claim\">Claim: {} RTP {}% (tolerance {} pp): <b>{}</b>{}{}</p>",
                claim.game,
                escape(&claim.figure_text),
                claim.tolerance.text(),
                if verdict.holds() { "holds for every bet type" } else { "does not hold" },
                self.illustrative_note(claim.game),
                if failing.is_empty() {
                    String::new()
                } else {
                    format!("; outside: {}", escape(&failing.join(", ")))
                }
            );
        }
        html.push_str("<table id=\"rtp-table\"><tr><th>game</th><th>bet type</th><th>pays</th><th>RTP %</th><th>house edge %</th><th>hit frequency %</th></tr>");
        for bet in &self.results.exact {
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                bet.game,
                escape(&bet.bet_type),
                escape(&bet.pays),
                bet.rtp_percent().text(),
                bet.house_edge_percent().text(),
                bet.hit_frequency_percent().text()
            );
        }
        html.push_str("</table><p class=\"note\">Exact, in rational arithmetic. The realised RTP per bet type with 99% intervals is in rtp.csv.</p>");
    }

    fn rejections(&self, html: &mut String) {
        html.push_str("<h2 id=\"rejections\">Rejection sampling</h2><table id=\"rejection-table\"><tr><th>game</th><th>seed pair</th><th>P</th><th>draws</th><th>rejected words</th><th>expected</th><th>rounds beyond the verifier's words</th></tr>");
        for row in &self.results.rejections {
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                row.game,
                escape(&row.group),
                row.outcomes,
                row.draws,
                row.rejected,
                format_number(row.expected),
                row.beyond_reference_words
            );
        }
        html.push_str("</table>");
    }

    fn reproduce(&self, html: &mut String) {
        let run = self.run;
        let _ = write!(
            html,
            "<h2 id=\"reproduce\">Reproduce this run</h2><p>Command: <code>fairaudit {}</code></p><p>Nonce ranges: {}. {}</p>\
             <table><tr><th>seed pair</th><th>server seed</th><th>client seed</th><th>commitment</th></tr>",
            escape(&run.command_line.join(" ")),
            run.nonces.iter().map(|r| format!("{}..{}", r.start, r.end)).collect::<Vec<_>>().join(", "),
            run_timing(run)
        );
        for (i, pair) in run.seed_pairs.iter().enumerate() {
            let _ = write!(
                html,
                "<tr><td>{i}</td><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                escape(&pair.server_seed),
                escape(&pair.client_seed),
                escape(&pair.commitment)
            );
        }
        html.push_str(if self.tallies.partial.is_some() {
            "</table><p class=\"note\">A partial merge: its files hold the merged shards' rounds only; tally.json holds every counter.</p>"
        } else {
            "</table><p class=\"note\">Every file in this folder except run.json and this report is identical, byte for byte, whatever the thread count, chunk size or sharding; tally.json holds every counter.</p>"
        });
    }
}

/// The banner of a merge lacking some shards: which, so that no one reads its verdicts as
/// the whole sweep's.
pub(crate) fn partial_banner(html: &mut String, partial: &PartialOf) {
    let sharding = partial.sharding();
    let missing: Vec<String> = partial
        .missing
        .iter()
        .map(|&i| match (i < partial.count).then(|| sharding.range(i)) {
            Some(range) => format!("{i} (nonces {}..{})", range.start, range.end),
            None => i.to_string(),
        })
        .collect();
    let _ = write!(
        html,
        "<p id=\"partial\" class=\"partial\"><b>{PARTIAL}:</b> this merge holds {} of the {} shards of nonces {}..{}; \
         every verdict here speaks only for them. Missing or interrupted: shard{} {}.</p>",
        partial.count as usize - partial.missing.len(),
        partial.count,
        partial.nonces.start,
        partial.nonces.end,
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", ")
    );
}

/// The table of every test, coloured by verdict; `group` names the second column (seed
/// pair, or player).
pub(crate) fn tests_table<G: std::fmt::Display>(html: &mut String, battery: &Battery<G>, group: &str) {
    tests_table_marked(html, battery, group, None);
}

/// [`tests_table`] of a merge that may lack shards: then every verdict says `(PARTIAL)`.
pub(crate) fn tests_table_marked<G: std::fmt::Display>(
    html: &mut String,
    battery: &Battery<G>,
    group: &str,
    partial: Option<&PartialOf>,
) {
    let _ = write!(
        html,
        "<h2 id=\"tests\">Tests</h2><p class=\"note\">Holm-adjusted p below alpha is FAIL; unadjusted p below alpha that does not survive adjustment is WEAK. \
         Detectable bias: the smallest relative bias the test detects with 80% power at this size.</p>\
         <table id=\"tests-table\"><tr><th>game</th><th>{group}</th><th>test</th><th>statistic</th><th>df</th><th>p</th><th>adjusted p</th><th>verdict</th><th>detectable bias</th></tr>"
    );
    for r in &battery.results {
        let [statistic, df, p, adjusted] = test_figures(r);
        let _ = write!(
            html,
            "<tr class=\"{v}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{statistic}</td><td class=\"num\">{df}</td><td class=\"num\">{p}</td><td class=\"num\">{adjusted}</td><td>{label}</td><td class=\"num\">{}</td></tr>",
            escape(&r.game.to_string()),
            escape(&r.seed_pair),
            escape(&r.outcome.test),
            r.detectable_bias.map_or(String::new(), |b| format!("{:.2}%", b * 100.0)),
            v = r.verdict.as_str(),
            label = verdict_label(r.verdict, partial),
        );
    }
    html.push_str("</table>");
}

/// A test's statistic, degrees of freedom, p-value and adjusted p-value as the HTML pages
/// show them (escaped; a dash where there is none).
pub(crate) fn test_figures<G>(r: &TestResult<G>) -> [String; 4] {
    let o = &r.outcome;
    // Counts print as integers, moment-matched degrees of freedom to two decimals (their
    // full float would widen the column past the page).
    let number = |x: f64, decimals: usize| {
        if x.fract() == 0.0 && x.abs() < 1e15 {
            format!("{x:.0}")
        } else {
            format!("{x:.decimals$}")
        }
    };
    [
        if o.statistic.is_nan() { String::new() } else { number(o.statistic, 3) },
        o.df.map_or(String::new(), |d| number(d, 2)),
        o.p_value.map_or("&ndash;".to_owned(), |p| escape(&p_value_text(p))),
        r.adjusted_p.map_or("&ndash;".to_owned(), |p| escape(&p_value_text(p))),
    ]
}

/// The run's warnings, in a box under the verdict (nothing when there are none).
pub(crate) fn warnings(html: &mut String, warnings: &[String]) {
    for warning in warnings {
        let _ = write!(html, "<p class=\"warning\"><b>Warning:</b> {}</p>", escape(warning));
    }
}

/// `text` with its first letter in upper case, to start a sentence.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The opening of a report page, its verdict badge (`verdict`: PASS, FAIL, PARTIAL) and
/// the battery's counts.
pub(crate) fn page_start<G: PartialEq + std::fmt::Display>(
    html: &mut String,
    title: &str,
    subtitle: &str,
    battery: &Battery<G>,
    verdict: &str,
) {
    let counts = battery.counts();
    let judgement = battery.judgement();
    let _ = write!(
        html,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title><style>{STYLE}</style></head><body>\
         <h1>{title}</h1><p class=\"note\">{subtitle}</p>\
         <div id=\"verdict\" class=\"verdict {v}\">{v}</div>\
         <p>Statistical battery at alpha {}: {} tests, {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT. {}</p>",
        battery.alpha,
        battery.results.len(),
        counts.pass,
        counts.weak,
        counts.fail,
        counts.insufficient,
        match judgement.verdict {
            Verdict::Fail => "At least one test fails after adjustment for multiplicity: see the tests below.".to_owned(),
            Verdict::Insufficient => format!(
                "{}: more rounds are needed.",
                escape(&capitalised(&judgement.insufficient_reason().unwrap_or_default()))
            ),
            _ => "No test fails after adjustment for multiplicity (Holm).".to_owned(),
        },
        v = verdict,
    );
}

fn keno_charts(
    html: &mut String,
    label: &str,
    rounds: u64,
    numbers: &[u64],
    positions: &[f64],
    pairs: &[f64],
) {
    let r = rounds as f64;
    let p = DRAWN as f64 / GRID as f64;
    let sd = (r * p * (1.0 - p)).sqrt();
    let chart = BandChart {
        title: &format!("Keno number frequency (seed pair {label})"),
        labels: (1..=GRID).map(|n| n.to_string()).collect(),
        observed: numbers.iter().map(|&c| c as f64).collect(),
        expected: vec![r * p; GRID],
        band: vec![Z99 * sd; GRID],
    };
    html.push_str(&chart.svg());
    let positions = HeatMap {
        title: &format!("Keno draw position x number, number totals removed (seed pair {label})"),
        rows: (1..=DRAWN).map(|k| format!("#{k}")).collect(),
        cols: (1..=GRID).map(|n| n.to_string()).collect(),
        z: positions.chunks_exact(GRID).map(|row| row.iter().map(|&z| Some(z)).collect()).collect(),
    };
    html.push_str(&positions.svg());
    let pairs = HeatMap {
        title: &format!("Keno pairs drawn together, number totals removed (seed pair {label})"),
        rows: (1..=GRID).map(|n| n.to_string()).collect(),
        cols: (1..=GRID).map(|n| n.to_string()).collect(),
        z: (1..=GRID as u8)
            .map(|a| (1..=GRID as u8).map(|b| (a != b).then(|| pairs[pair_index(a, b)])).collect())
            .collect(),
    };
    html.push_str(&pairs.svg());
}

fn roulette_charts(
    html: &mut String,
    game: GameId,
    label: &str,
    spins: u64,
    pockets: &[u64],
    serial: &[Option<f64>],
) {
    let n = pockets.len();
    let s = spins as f64;
    let p = 1.0 / n as f64;
    let labels: Vec<String> = (0..n).map(|i| Roulette::label(i as u8)).collect();
    let chart = BandChart {
        title: &format!("{game} pocket frequency (seed pair {label})"),
        labels: labels.clone(),
        observed: pockets.iter().map(|&c| c as f64).collect(),
        expected: vec![s * p; n],
        band: vec![Z99 * (s * p * (1.0 - p)).sqrt(); n],
    };
    html.push_str(&chart.svg());
    let heat = HeatMap {
        title: &format!(
            "{game} consecutive spins: pocket at n (rows) x pocket at n+1 (columns) (seed pair {label})"
        ),
        rows: labels.clone(),
        cols: labels,
        z: serial.chunks_exact(n).map(|row| row.to_vec()).collect(),
    };
    html.push_str(&heat.svg());
}

/// When the run ran and how fast: a sweep's threads and rounds per second; a merge (no
/// threads) swept nothing, so it says so rather than "0 rounds/s".
fn run_timing(run: &RunInfo) -> String {
    let (started, finished) = (escape(&run.started_at), escape(&run.finished_at));
    match run.threads {
        Some(threads) => format!(
            "Threads: {threads}. Started {started}, finished {finished} ({:.1} s, {:.0} rounds/s).",
            run.elapsed_seconds, run.rounds_per_second
        ),
        None => format!(
            "Merged from tally files: no rounds swept by this run. Started {started}, finished {finished} ({:.1} s).",
            run.elapsed_seconds
        ),
    }
}
