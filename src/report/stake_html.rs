//! `report.html` of a sweep of the HMAC-SHA256 family, and of a merge of its shards: the
//! verdict, the counts of each view of the game (all seed pairs together) against their
//! exact laws, every test, each bet's realised return, and how to reproduce the run. Self-contained (inline CSS and
//! SVG) like the default scheme's report; it computes nothing but the charts' deviations.

use super::html::{page_start, partial_banner, tests_table_marked, Z99};
use super::results::overall_label;
use super::stake::StakeRun;
use super::svg::{escape, BandChart, HeatMap};
use super::table::format_number;
use crate::rtp::stake_realised::RealisedReturn;
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::cells::{GameLaws, LIMBO_BANDS};
use crate::scheme::stake::StakeGame;
use crate::stats::battery::Battery;
use crate::tally::stake::StakeTally;
use num_traits::ToPrimitive;
use std::fmt::Write;

/// The most bars a chart of the outcome view draws: dice's 10,001 rolls are drawn in
/// consecutive groups of about a hundred.
const MOST_BARS: usize = 101;

/// Everything the report shows.
pub struct StakeHtmlReport<'a> {
    /// How the run was made (its plan names the game, nonces and seed pairs).
    pub run: &'a StakeRun,
    /// The game swept.
    pub game: &'a StakeGame,
    /// The counts, one tally per seed pair.
    pub tallies: &'a [StakeTally],
    /// The battery.
    pub battery: &'a Battery<StakeGame>,
    /// The game's exact laws, which the charts draw the counts against.
    pub laws: &'a GameLaws,
    /// Each bet's realised return over every seed pair's rounds (group `all`).
    pub returns: &'a [RealisedReturn],
}

/// How far a count is from its expectation, in standard deviations (`None` where the
/// cell cannot occur or nothing was counted).
fn z_score(observed: u64, trials: u64, p: f64) -> Option<f64> {
    let n = trials as f64;
    let variance = n * p * (1.0 - p);
    (variance > 0.0).then(|| (observed as f64 - n * p) / variance.sqrt())
}

/// The outcome cell's value as the game shows it.
fn cell_label(game: &StakeGame, cell: usize) -> String {
    match game {
        StakeGame::Dice => format!("{}.{:02}", cell / 100, cell % 100),
        StakeGame::Limbo(_) => {
            let start = LIMBO_BANDS[cell];
            format!("{}.{:02}x", start / 100, start % 100)
        }
        _ => cell.to_string(),
    }
}

impl StakeHtmlReport<'_> {
    /// The page.
    pub fn render(&self) -> String {
        let mut html = String::new();
        let total = StakeTally::sum(self.game, self.tallies);
        let subtitle = format!(
            "fairaudit {} (rev {}) &middot; scheme {} &middot; {} &middot; {} rounds of {} seed pair(s)",
            escape(&self.run.fairaudit_version),
            escape(&self.run.fairaudit_revision),
            self.run.plan.keyed_scheme(),
            escape(&self.game.to_string()),
            total.rounds,
            self.tallies.len()
        );
        let partial = self.run.partial.as_ref();
        page_start(
            &mut html,
            "fairaudit report",
            &subtitle,
            self.battery,
            overall_label(self.battery, partial),
        );
        if let Some(partial) = partial {
            partial_banner(&mut html, partial);
        }
        self.outcomes(&mut html, &total);
        self.steps(&mut html, &total);
        self.pairs(&mut html, &total);
        tests_table_marked(&mut html, self.battery, "seed pair", partial);
        returns_table(
            &mut html,
            self.run.plan.keyed_scheme(),
            std::slice::from_ref(self.game),
            self.returns,
            self.battery.alpha,
            "Every seed pair's rounds (rtp.csv has each seed pair's).",
        );
        self.reproduce(&mut html);
        html.push_str("</body></html>\n");
        html
    }

    /// The outcome view as bars against the exact expectation and its 99% band; cells in
    /// groups where there are more than [`MOST_BARS`].
    fn outcomes(&self, html: &mut String, total: &StakeTally) {
        if total.outcomes.is_empty() {
            return;
        }
        let law = &self.laws.outcome;
        let group = total.outcomes.len().div_ceil(MOST_BARS);
        let n = total.rounds as f64;
        let mut chart = BandChart {
            title: "Outcomes, every seed pair: counts, the exact expectation and its 99% band",
            labels: Vec::new(),
            observed: Vec::new(),
            expected: Vec::new(),
            band: Vec::new(),
        };
        for (first, (counts, probabilities)) in
            total.outcomes.chunks(group).zip(law.chunks(group)).enumerate().map(|(i, c)| (i * group, c))
        {
            let p: f64 = probabilities.iter().sum();
            let last = first + counts.len() - 1;
            chart.labels.push(if first == last {
                cell_label(self.game, first)
            } else {
                format!("{}–{}", cell_label(self.game, first), cell_label(self.game, last))
            });
            chart.observed.push(counts.iter().sum::<u64>() as f64);
            chart.expected.push(n * p);
            chart.band.push(Z99 * (n * p * (1.0 - p)).sqrt());
        }
        let scheme = self.run.plan.keyed_scheme();
        let law = match scheme.is_stake() {
            true => "the exact law counted over the 2<sup>32</sup> floats, not the advertised uniform one"
                .to_owned(),
            false => format!("the exact law of the scheme's pick ({})", scheme.law_source()),
        };
        let _ = write!(
            html,
            "<h2 id=\"outcomes\">Outcomes</h2><p class=\"note\">The expectation is {law}{}.</p>",
            if group > 1 { format!("; each bar is {group} consecutive values") } else { String::new() }
        );
        html.push_str(&chart.svg());
    }

    /// The draw steps (Keno, mines, plinko's rows): each index's deviation from its exact
    /// law, in standard deviations.
    fn steps(&self, html: &mut String, total: &StakeTally) {
        if total.steps.is_empty() {
            return;
        }
        let laws = &self.laws.steps;
        let widest = laws.iter().map(Vec::len).max().unwrap_or(0);
        let map = HeatMap {
            title:
                "Draw steps, every seed pair: each index's deviation from its exact law (standard deviations)",
            rows: (1..=laws.len()).map(|step| format!("step {step}")).collect(),
            cols: (0..widest).map(|index| index.to_string()).collect(),
            z: total
                .steps
                .iter()
                .zip(laws)
                .map(|(counts, law)| {
                    (0..widest).map(|i| z_score(*counts.get(i)?, total.rounds, *law.get(i)?)).collect()
                })
                .collect(),
        };
        html.push_str("<h2 id=\"steps\">Draw steps</h2><p class=\"note\">Step j picks index floor(float &times; what is left) among what is left; the steps use distinct floats, so together they are the whole law of the draw.</p>");
        html.push_str(&map.svg());
    }

    /// Pairs of rounds (nonces 2k, 2k + 1) by the coarse class of each.
    fn pairs(&self, html: &mut String, total: &StakeTally) {
        let law = &self.laws.coarse;
        let k = law.len();
        let pairs: u64 = total.pairs.iter().sum();
        let map = HeatMap {
            title: "Pairs of rounds 2k, 2k + 1, every seed pair: deviation of each (first, second) class from the exact law (standard deviations)",
            rows: (0..k).map(|c| c.to_string()).collect(),
            cols: (0..k).map(|c| c.to_string()).collect(),
            z: (0..k)
                .map(|first| (0..k).map(|second| z_score(total.pairs[first * k + second], pairs, law[first] * law[second])).collect())
                .collect(),
        };
        let _ = write!(html, "<h2 id=\"pairs\">Pairs of rounds</h2><p class=\"note\">{pairs} pairs; rows are the first round's class, columns the second's (outcome_counts.csv names the classes).</p>");
        html.push_str(&map.svg());
    }

    fn reproduce(&self, html: &mut String) {
        let run = self.run;
        let plan = &run.plan;
        let timing = match run.threads {
            Some(threads) => format!("Threads: {threads}; {:.1} s.", run.elapsed_seconds),
            None => format!(
                "Merged from the shards' tally files: no rounds swept by this run ({:.1} s).",
                run.elapsed_seconds
            ),
        };
        let shard = run.shard.map_or(String::new(), |s| {
            format!(" Shard {} of {} of nonces {}..{}: this page speaks for its slice only; merge the shards for the sweep's verdict.", s.index, s.count, s.nonces.start, s.nonces.end)
        });
        let _ = write!(
            html,
            "<h2 id=\"reproduce\">Reproduce this run</h2><p>Command: <code>fairaudit {}</code></p><p>Nonces {}..{}. {timing}{shard}</p>\
             <table><tr><th>seed pair</th><th>server seed</th><th>client seed</th><th>{}</th></tr>",
            escape(&run.command_line.join(" ")),
            plan.nonces[0],
            plan.nonces[1],
            plan.keyed_scheme().commitment_text().trim_start_matches("a "),
        );
        for (i, [server, client, commitment]) in plan.seed_pairs.iter().enumerate() {
            let _ = write!(
                html,
                "<tr><td>{i}</td><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                escape(server),
                escape(client),
                escape(commitment)
            );
        }
        html.push_str(if run.partial.is_some() {
            "</table><p class=\"note\">A partial merge: its files hold the merged shards' rounds only; stake_tally.json holds every count.</p>"
        } else {
            "</table><p class=\"note\">Every file in this folder except run.json and this report is identical, byte for byte, whatever the thread count, chunk size, interruptions or sharding; stake_tally.json holds every count.</p>"
        });
    }
}

/// The section of each bet's realised return over a group's rounds of its game, beside
/// its advertised and exact RTP (`rtp.csv` holds the same figures and more columns); a
/// note where no game of `games` has a sourced payout rule.
pub(crate) fn returns_table(
    html: &mut String,
    scheme: KeyedScheme,
    games: &[StakeGame],
    returns: &[RealisedReturn],
    alpha: f64,
    whose: &str,
) {
    html.push_str("<h2 id=\"rtp\">Return to player</h2>");
    if returns.is_empty() {
        if scheme.dice_returns().is_some() && games.contains(&StakeGame::Dice) {
            let _ = write!(html, "<p class=\"note\">No realised return is stated: a sweep does not count dice's returns per target yet; <code>fairaudit rtp --scheme {scheme} --game dice</code> states their exact RTP (docs/rtp.md).</p>");
        } else {
            html.push_str("<p class=\"note\">No return is stated: the payout rules of dice, Keno and mines are not taken from a primary source yet (docs/schemes.md).</p>");
        }
        return;
    }
    let _ = write!(
        html,
        "<p class=\"note\">{} Exact over the 2<sup>32</sup> floats; the interval at {}% confidence.</p>\
         <table id=\"rtp-table\"><tr><th>game</th><th>group</th><th>bet</th><th>advertised RTP</th><th>exact RTP</th><th>realised RTP</th><th>interval</th><th>z</th></tr>",
        escape(whose),
        format_number(100.0 * (1.0 - alpha))
    );
    let percent = |x: f64| format!("{x:.4}%");
    for RealisedReturn { game, group, exact, estimate: e } in returns {
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} to {}</td><td class=\"num\">{:.2}</td></tr>",
            escape(&game.to_string()),
            escape(group),
            escape(&exact.bet),
            percent(100.0 * exact.advertised.to_f64().unwrap_or(f64::NAN)),
            percent(e.exact_percent),
            percent(e.realised_percent),
            percent(e.low_percent),
            percent(e.high_percent),
            e.z
        );
    }
    html.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_deviations() {
        assert_eq!(cell_label(&StakeGame::Dice, 9_308), "93.08");
        assert_eq!(cell_label(&StakeGame::Limbo(crate::scheme::stake::LimboFormula::Fair), 7), "2.00x");
        assert_eq!(cell_label(&StakeGame::Roulette, 17), "17");
        assert_eq!(z_score(5, 10, 0.5), Some(0.0));
        assert!((z_score(60, 100, 0.5).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(z_score(0, 0, 0.5), None);
        assert_eq!(z_score(0, 10, 0.0), None);
    }
}
