//! `report.html`: one self-contained page (inline CSS and SVG; no scripts, fonts, images
//! or network references) that a person reads in a minute: the verdict first, then the
//! charts per game, the tests, RTP and claims, rejections, and how to reproduce the run.

use super::svg::{escape, p_value_histogram, BandChart, HeatMap};
use super::RunInfo;
use crate::games::keno::{DRAWN, GRID};
use crate::games::{GameId, Roulette};
use crate::rtp::claims::{check_claim, Claim};
use crate::rtp::decimal::format_fixed;
use crate::rtp::exact::exact_rtp;
use crate::rtp::paytable::Paytable;
use crate::sampler::expected_rejections;
use crate::stats::battery::{p_value_text, Battery, Verdict};
use crate::stats::chisquare::margins;
use crate::stats::keno_structure::{pair_interaction_variance, pair_residuals, PAIR_DF};
use crate::sweep::file::TallyFile;
use crate::tally::keno::{pair_index, PAIRS};
use crate::tally::{KenoTally, RouletteTally};
use num_rational::BigRational;
use std::fmt::Write;

/// z for a two-sided 99% band.
const Z99: f64 = 2.575_829_303_548_901;

/// Everything the report shows.
pub struct HtmlReport<'a> {
    /// How the run was made.
    pub run: &'a RunInfo,
    /// The tallies.
    pub tallies: &'a TallyFile,
    /// The battery's results.
    pub battery: &'a Battery,
    /// The Keno paytable used for RTP.
    pub paytable: &'a Paytable,
    /// The published claims to check.
    pub claims: &'a [Claim],
}

/// The report pages' style sheet (shared by the sweep and audit reports).
pub(crate) const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:960px;color:#222;line-height:1.4}\
h1{margin-bottom:4px}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}\
.verdict{display:inline-block;font-size:28px;font-weight:700;padding:6px 18px;border-radius:6px;color:#fff}\
.PASS{background:#1e8449}.FAIL{background:#c0392b}.WEAK{background:#d68910}.INSUFFICIENT{background:#7f8c8d}\
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}\
th{background:#f4f6f8}td.num{text-align:right;font-variant-numeric:tabular-nums}\
tr.FAIL td{background:#f9d6d2}tr.WEAK td{background:#fcebcf}tr.INSUFFICIENT td{background:#eceff1}\
.chart{width:100%;height:auto;margin:8px 0}.note{color:#555;font-size:13px}code{font-size:12px;word-break:break-all}";

impl HtmlReport<'_> {
    /// The page.
    pub fn render(&self) -> String {
        let mut html = String::new();
        let subtitle = format!(
            "fairaudit {} &middot; {} &middot; {} rounds per game and seed pair",
            escape(self.run.fairaudit_version),
            escape(&self.run.finished_at),
            self.tallies.plan.rounds_per_sequence()
        );
        page_start(&mut html, "fairaudit report", &subtitle, self.battery, self.battery.overall());
        self.claims_summary(&mut html);
        for &game in &self.tallies.plan.games {
            let _ = write!(html, "<h2 id=\"{g}\">{g}</h2>", g = game.name());
            match game {
                GameId::Keno => {
                    if let Some((label, tally)) = self.tallies.keno_totals().rows.last() {
                        keno_charts(&mut html, label, &tally.tally);
                    }
                }
                _ => {
                    if let Some((label, tally)) = self.tallies.roulette_totals(game).rows.last() {
                        roulette_charts(&mut html, game, label, &tally.tally);
                    }
                }
            }
        }
        self.tests_table(&mut html);
        self.across_pairs(&mut html);
        self.rtp_section(&mut html);
        self.rejections(&mut html);
        self.reproduce(&mut html);
        html.push_str("</body></html>\n");
        html
    }

    fn claims_summary(&self, html: &mut String) {
        let verdicts = self.claim_verdicts();
        if verdicts.is_empty() {
            return;
        }
        html.push_str("<p>Published RTP claims: ");
        let parts: Vec<String> = verdicts
            .iter()
            .map(|(claim, holds, _)| {
                format!(
                    "{} {}%: <b>{}</b>{}",
                    claim.game,
                    escape(&claim.figure_text),
                    if *holds { "holds" } else { "does not hold" },
                    if claim.game == GameId::Keno && self.paytable.is_illustrative() {
                        " (against the ILLUSTRATIVE example paytable, not the operator's)"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        html.push_str(&parts.join("; "));
        html.push_str(" (see RTP below).</p>");
    }

    fn claim_verdicts(&self) -> Vec<(&Claim, bool, String)> {
        self.claims
            .iter()
            .filter(|claim| self.tallies.plan.games.contains(&claim.game))
            .map(|claim| {
                let verdict = check_claim(claim, &exact_rtp(claim.game, self.paytable));
                let failing: Vec<String> = verdict
                    .failures()
                    .map(|check| format!("{} ({}%)", check.bet_type, percent(&check.rtp_percent, false)))
                    .collect();
                (claim, verdict.holds(), failing.join(", "))
            })
            .collect()
    }

    fn tests_table(&self, html: &mut String) {
        tests_table(html, self.battery, "seed pair");
    }

    fn across_pairs(&self, html: &mut String) {
        if self.tallies.plan.seed_pairs.len() < 2 {
            return;
        }
        let p_values: Vec<f64> = self
            .battery
            .results
            .iter()
            .filter(|r| r.seed_pair.parse::<usize>().is_ok())
            .filter_map(|r| r.outcome.p_value)
            .collect();
        html.push_str("<h2 id=\"across\">Across seed pairs</h2><p class=\"note\">The p-values of every valid test on every seed pair. With many rounds per pair they are uniform under fairness and the bars level; with few, they take few distinct values and the bars are uneven even for a fair game. The verdicts across pairs are the dispersion tests in the table above.</p>");
        html.push_str(&p_value_histogram("p-values of all tests on all seed pairs", &p_values));
    }

    fn rtp_section(&self, html: &mut String) {
        html.push_str("<h2 id=\"rtp\">Return to player (exact) and claims</h2>");
        if self.paytable.is_illustrative() && self.tallies.plan.games.contains(&GameId::Keno) {
            html.push_str("<p class=\"note\"><b>Keno figures use the ILLUSTRATIVE example paytable, NOT THE OPERATOR'S.</b> Pass the operator's with --paytable.</p>");
        }
        for (claim, holds, failing) in self.claim_verdicts() {
            let _ = write!(
                html,
                "<p>Claim: {} RTP {}% (tolerance {} pp): <b>{}</b>{}</p>",
                claim.game,
                escape(&claim.figure_text),
                percent(&claim.tolerance, true),
                if holds { "holds for every bet type" } else { "does not hold" },
                if failing.is_empty() { String::new() } else { format!("; outside: {}", escape(&failing)) }
            );
        }
        html.push_str("<table id=\"rtp-table\"><tr><th>game</th><th>bet type</th><th>pays</th><th>RTP %</th><th>house edge %</th><th>hit frequency %</th></tr>");
        for &game in &self.tallies.plan.games {
            for bet in exact_rtp(game, self.paytable) {
                let _ = write!(
                    html,
                    "<tr><td>{game}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                    escape(&bet.bet_type),
                    escape(&bet.pays),
                    percent(&bet.rtp, false),
                    percent(&bet.house_edge(), false),
                    percent(&bet.hit_frequency, false)
                );
            }
        }
        html.push_str("</table><p class=\"note\">Exact, in rational arithmetic. The realised RTP per bet type with 99% intervals is in rtp.csv.</p>");
    }

    fn rejections(&self, html: &mut String) {
        html.push_str("<h2 id=\"rejections\">Rejection sampling</h2><table id=\"rejection-table\"><tr><th>game</th><th>seed pair</th><th>P</th><th>draws</th><th>rejected words</th><th>expected</th><th>rounds beyond the verifier's words</th></tr>");
        for &game in &self.tallies.plan.games {
            let rows: Vec<(String, crate::tally::stream::StreamTally)> = match game {
                GameId::Keno => {
                    self.tallies.keno_totals().rows.into_iter().map(|(p, t)| (p, t.tally.stream)).collect()
                }
                _ => self
                    .tallies
                    .roulette_totals(game)
                    .rows
                    .into_iter()
                    .map(|(p, t)| (p, t.tally.stream))
                    .collect(),
            };
            for (pair, stream) in rows {
                for (draw, &rejected) in stream.rejections.iter().enumerate() {
                    let p = game.outcomes_at_draw(draw);
                    let _ = write!(
                        html,
                        "<tr><td>{game}</td><td>{}</td><td class=\"num\">{p}</td><td class=\"num\">{}</td><td class=\"num\">{rejected}</td><td class=\"num\">{:.4}</td><td class=\"num\">{}</td></tr>",
                        escape(&pair),
                        stream.rounds,
                        expected_rejections(p, stream.rounds),
                        stream.beyond_reference_words
                    );
                }
            }
        }
        html.push_str("</table>");
    }

    fn reproduce(&self, html: &mut String) {
        let run = self.run;
        let _ = write!(
            html,
            "<h2 id=\"reproduce\">Reproduce this run</h2><p>Command: <code>fairaudit {}</code></p><p>Nonce ranges: {}. Threads: {}. Started {}, finished {} ({:.1} s, {:.0} rounds/s).</p>\
             <table><tr><th>seed pair</th><th>server seed</th><th>client seed</th><th>commitment</th></tr>",
            escape(&run.command_line.join(" ")),
            run.nonces.iter().map(|r| format!("{}..{}", r.start, r.end)).collect::<Vec<_>>().join(", "),
            run.threads.map_or("-".to_owned(), |t| t.to_string()),
            escape(&run.started_at),
            escape(&run.finished_at),
            run.elapsed_seconds,
            run.rounds_per_second
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
        html.push_str("</table><p class=\"note\">Every file in this folder except run.json and this report is identical, byte for byte, whatever the thread count, chunk size or sharding; tally.json holds every counter.</p>");
    }
}

/// The table of every test, coloured by verdict; `group` names the second column (seed
/// pair, or player).
pub(crate) fn tests_table(html: &mut String, battery: &Battery, group: &str) {
    let _ = write!(
        html,
        "<h2 id=\"tests\">Tests</h2><p class=\"note\">Holm-adjusted p below alpha is FAIL; unadjusted p below alpha that does not survive adjustment is WEAK. \
         Detectable bias: the smallest relative bias the test detects with 80% power at this size.</p>\
         <table id=\"tests-table\"><tr><th>game</th><th>{group}</th><th>test</th><th>statistic</th><th>df</th><th>p</th><th>adjusted p</th><th>verdict</th><th>detectable bias</th></tr>"
    );
    for r in &battery.results {
        let o = &r.outcome;
        let _ = write!(
            html,
            "<tr class=\"{v}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{v}</td><td class=\"num\">{}</td></tr>",
            r.game,
            escape(&r.seed_pair),
            escape(&o.test),
            if o.statistic.is_nan() { String::new() } else { format!("{:.3}", o.statistic) },
            o.df.map_or(String::new(), |d| format!("{d}")),
            o.p_value.map_or("&ndash;".to_owned(), |p| escape(&p_value_text(p))),
            r.adjusted_p.map_or("&ndash;".to_owned(), |p| escape(&p_value_text(p))),
            r.detectable_bias.map_or(String::new(), |b| format!("{:.2}%", b * 100.0)),
            v = r.verdict.as_str(),
        );
    }
    html.push_str("</table>");
}

/// The opening of a report page, its verdict badge and the battery's counts.
pub(crate) fn page_start(
    html: &mut String,
    title: &str,
    subtitle: &str,
    battery: &Battery,
    verdict: Verdict,
) {
    let counts = battery.counts();
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
        if battery.overall() == Verdict::Fail {
            "At least one test fails after adjustment for multiplicity: see the tests below."
        } else {
            "No test fails after adjustment for multiplicity (Holm)."
        },
        v = verdict.as_str(),
    );
}

fn percent(value: &BigRational, already_percent: bool) -> String {
    let scaled = if already_percent { value.clone() } else { value * BigRational::from_integer(100.into()) };
    format_fixed(&scaled, 4)
}

fn keno_charts(html: &mut String, label: &str, tally: &KenoTally) {
    let rounds = tally.stream.rounds as f64;
    let p = DRAWN as f64 / GRID as f64;
    let sd = (rounds * p * (1.0 - p)).sqrt();
    let chart = BandChart {
        title: &format!("Keno number frequency (seed pair {label})"),
        labels: (1..=GRID).map(|n| n.to_string()).collect(),
        observed: tally.numbers.iter().map(|&c| c as f64).collect(),
        expected: vec![rounds * p; GRID],
        band: vec![Z99 * sd; GRID],
    };
    html.push_str(&chart.svg());
    let cell = rounds / GRID as f64;
    let cell_sd = (rounds / GRID as f64 * (1.0 - 1.0 / GRID as f64)).sqrt();
    let positions = HeatMap {
        title: &format!("Keno draw position x number (seed pair {label})"),
        rows: (1..=DRAWN).map(|k| format!("#{k}")).collect(),
        cols: (1..=GRID).map(|n| n.to_string()).collect(),
        z: (0..DRAWN)
            .map(|k| {
                (0..GRID).map(|n| Some((tally.positions[k * GRID + n] as f64 - cell) / cell_sd)).collect()
            })
            .collect(),
    };
    html.push_str(&positions.svg());
    let residuals = pair_residuals(tally);
    let pair_sd = (rounds * pair_interaction_variance() * PAIR_DF as f64 / PAIRS as f64).sqrt();
    let pairs = HeatMap {
        title: &format!("Keno pairs drawn together, number totals removed (seed pair {label})"),
        rows: (1..=GRID).map(|n| n.to_string()).collect(),
        cols: (1..=GRID).map(|n| n.to_string()).collect(),
        z: (1..=GRID as u8)
            .map(|a| {
                (1..=GRID as u8).map(|b| (a != b).then(|| residuals[pair_index(a, b)] / pair_sd)).collect()
            })
            .collect(),
    };
    html.push_str(&pairs.svg());
}

fn roulette_charts(html: &mut String, game: GameId, label: &str, tally: &RouletteTally) {
    let pockets = tally.pockets.len();
    let spins = tally.stream.rounds as f64;
    let p = 1.0 / pockets as f64;
    let labels: Vec<String> = (0..pockets).map(|i| Roulette::label(i as u8)).collect();
    let chart = BandChart {
        title: &format!("{game} pocket frequency (seed pair {label})"),
        labels: labels.clone(),
        observed: tally.pockets.iter().map(|&c| c as f64).collect(),
        expected: vec![spins * p; pockets],
        band: vec![Z99 * (spins * p * (1.0 - p)).sqrt(); pockets],
    };
    html.push_str(&chart.svg());
    let (rows, cols) = margins(&tally.pairs, pockets);
    let total: f64 = rows.iter().sum();
    let serial = HeatMap {
        title: &format!(
            "{game} consecutive spins: pocket at n (rows) x pocket at n+1 (columns) (seed pair {label})"
        ),
        rows: labels.clone(),
        cols: labels,
        z: (0..pockets)
            .map(|a| {
                (0..pockets)
                    .map(|b| {
                        let expected = rows[a] * cols[b] / total;
                        (expected > 0.0)
                            .then(|| (tally.pairs[a * pockets + b] as f64 - expected) / expected.sqrt())
                    })
                    .collect()
            })
            .collect(),
    };
    html.push_str(&serial.svg());
}
