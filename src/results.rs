//! What a sweep or a merge concluded, computed once: the closed tallies of every game,
//! the battery, the exact RTP with every claim's verdict, the empirical RTP, the rejection
//! table and the residuals the heat maps show. Every exporter (CSV, JSON, HTML, the
//! terminal) only formats this value, so a figure is computed in one place and shown the
//! same everywhere.

use crate::chain::seeds::{SeedPair, AMBIGUOUS_SEEDS};
use crate::fields::Excerpt;
use crate::games::GameId;
use crate::rtp::claims::{check_claim, Claim, ClaimVerdict};
use crate::rtp::empirical::{rtp_rows_of, GameTallies, RtpRow};
use crate::rtp::exact::{exact_rtp, ExactRtp};
use crate::rtp::paytable::Paytable;
use crate::sampler::{expected_rejections, rejected_values};
use crate::stats::battery::{assess, keno_tests, roulette_tests, with_across, Battery};
use crate::stats::chisquare::margins;
use crate::stats::keno_structure::{
    pair_interaction_variance, pair_residuals, position_residual_variance, position_residuals, PAIR_DF,
};
use crate::tally::file::{GameTotals, TallyFile};
use crate::tally::keno::PAIRS;
use crate::tally::{KenoTally, RouletteTally};

/// The tallies of one game, closed per seed pair and summed (`all`).
pub enum Totals {
    /// Keno.
    Keno(GameTotals<KenoTally>),
    /// One roulette wheel.
    Roulette(GameTotals<RouletteTally>),
}

impl Totals {
    /// The game.
    pub fn game(&self) -> GameId {
        match self {
            Totals::Keno(t) => t.game,
            Totals::Roulette(t) => t.game,
        }
    }
}

/// One row of the rejection table: rejected words at one P over one group's rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct RejectionRow {
    /// The game.
    pub game: GameId,
    /// The seed pair, or `all`.
    pub group: String,
    /// The number of outcomes sampled among.
    pub outcomes: u32,
    /// Draws at this P.
    pub draws: u64,
    /// Words rejected.
    pub rejected: u64,
    /// Words rejected in expectation under fairness.
    pub expected: f64,
    /// `2^32 mod P`: the rejected values out of 2^32.
    pub rejected_values: u64,
    /// Rounds that needed more words than the operator's verifier generates.
    pub beyond_reference_words: u64,
}

/// A chart's data: observed counts against their expectation and a band, and the
/// standardised residuals of the heat maps.
#[derive(Clone, Debug, PartialEq)]
pub enum Charts {
    /// Keno.
    Keno {
        /// The group shown (`all`, or the one seed pair).
        group: String,
        /// Rounds.
        rounds: u64,
        /// Draws of each number.
        numbers: Vec<u64>,
        /// Position × number interaction residuals, standardised, `k * 40 + n − 1`.
        positions: Vec<f64>,
        /// Pair residuals (number totals removed), standardised, by pair index.
        pairs: Vec<f64>,
    },
    /// Roulette.
    Roulette {
        /// The game.
        game: GameId,
        /// The group shown.
        group: String,
        /// Spins.
        spins: u64,
        /// Spins on each pocket.
        pockets: Vec<u64>,
        /// Consecutive-spin residuals `(N − e)/√e`, `a * P + b`; `None` where `e` is 0.
        serial: Vec<Option<f64>>,
    },
}

/// Everything a complete sweep or merge concluded.
pub struct RunResults {
    /// The closed tallies, per game of the plan.
    pub totals: Vec<Totals>,
    /// The battery.
    pub battery: Battery,
    /// The exact RTP of every bet type of the plan's games.
    pub exact: Vec<ExactRtp>,
    /// The published claims about the plan's games, each with its verdict.
    pub claims: Vec<ClaimVerdict>,
    /// The paytable Keno's figures use.
    pub paytable: Paytable,
    /// The empirical RTP rows.
    pub rtp: Vec<RtpRow>,
    /// The rejection table.
    pub rejections: Vec<RejectionRow>,
    /// The charts, per game of the plan.
    pub charts: Vec<Charts>,
    /// Warnings every output repeats (a seed pair holding `:`).
    pub warnings: Vec<String>,
}

impl RunResults {
    /// Computes everything from a complete tally file.
    pub fn compute(file: &TallyFile, paytable: &Paytable, claims: &[Claim], alpha: f64) -> RunResults {
        let totals: Vec<Totals> = file
            .plan
            .games
            .iter()
            .map(|&game| match game {
                GameId::Keno => Totals::Keno(file.keno_totals()),
                _ => Totals::Roulette(file.roulette_totals(game)),
            })
            .collect();
        let mut rows = Vec::new();
        for t in &totals {
            let per_pair = match t {
                Totals::Keno(k) => {
                    k.rows.iter().map(|(pair, c)| (pair.clone(), keno_tests(c, true, true))).collect()
                }
                Totals::Roulette(r) => {
                    r.rows.iter().map(|(pair, c)| (pair.clone(), roulette_tests(c, true))).collect()
                }
            };
            rows.extend(with_across(t.game(), per_pair, alpha));
        }
        let battery = assess(rows, alpha);
        let exact: Vec<ExactRtp> = file.plan.games.iter().flat_map(|&g| exact_rtp(g, paytable)).collect();
        let claims = claims
            .iter()
            .filter(|claim| file.plan.games.contains(&claim.game))
            .map(|claim| check_claim(claim, &exact))
            .collect();
        let games: Vec<GameTallies<'_>> = totals
            .iter()
            .map(|t| match t {
                Totals::Keno(k) => GameTallies::Keno(&k.rows),
                Totals::Roulette(r) => GameTallies::Roulette(r.game, &r.rows),
            })
            .collect();
        let rtp = rtp_rows_of(&games, paytable, alpha);
        let rejections = totals.iter().flat_map(rejection_rows).collect();
        let charts = totals.iter().filter_map(charts).collect();
        let warnings = ambiguity_warnings(&file.plan.seed_pairs);
        RunResults {
            totals,
            battery,
            exact,
            claims,
            paytable: paytable.clone(),
            rtp,
            rejections,
            charts,
            warnings,
        }
    }
}

fn rejection_rows(totals: &Totals) -> Vec<RejectionRow> {
    let game = totals.game();
    let streams: Vec<(&String, &crate::tally::stream::StreamTally)> = match totals {
        Totals::Keno(k) => k.rows.iter().map(|(p, c)| (p, &c.tally.stream)).collect(),
        Totals::Roulette(r) => r.rows.iter().map(|(p, c)| (p, &c.tally.stream)).collect(),
    };
    let mut rows = Vec::new();
    for (group, stream) in streams {
        for (draw, &rejected) in stream.rejections.iter().enumerate() {
            let p = game.outcomes_at_draw(draw);
            rows.push(RejectionRow {
                game,
                group: group.clone(),
                outcomes: p,
                draws: stream.rounds,
                rejected,
                expected: expected_rejections(p, stream.rounds),
                rejected_values: rejected_values(p),
                beyond_reference_words: stream.beyond_reference_words,
            });
        }
    }
    rows
}

fn charts(totals: &Totals) -> Option<Charts> {
    match totals {
        Totals::Keno(k) => {
            let (group, closed) = k.rows.last()?;
            let tally = &closed.tally;
            let rounds = tally.stream.rounds;
            let r = rounds as f64;
            let position_sd = (r * position_residual_variance()).sqrt();
            let pair_sd = (r * pair_interaction_variance() * PAIR_DF as f64 / PAIRS as f64).sqrt();
            let scale = |sd: f64| move |x: &f64| if sd > 0.0 { x / sd } else { 0.0 };
            Some(Charts::Keno {
                group: group.clone(),
                rounds,
                numbers: tally.numbers.clone(),
                positions: position_residuals(tally).iter().map(scale(position_sd)).collect(),
                pairs: pair_residuals(tally).iter().map(scale(pair_sd)).collect(),
            })
        }
        Totals::Roulette(t) => {
            let (group, closed) = t.rows.last()?;
            let tally = &closed.tally;
            let p = tally.pockets.len();
            let (rows, cols) = margins(&tally.pairs, p);
            let total: f64 = rows.iter().sum();
            let serial = (0..p * p)
                .map(|cell| {
                    let e = rows[cell / p] * cols[cell % p] / total;
                    (e > 0.0).then(|| (tally.pairs[cell] as f64 - e) / e.sqrt())
                })
                .collect();
            Some(Charts::Roulette {
                game: t.game,
                group: group.clone(),
                spins: tally.stream.rounds,
                pockets: tally.pockets.clone(),
                serial,
            })
        }
    }
}

/// One warning per seed pair that holds `:` (see [`AMBIGUOUS_SEEDS`]), naming it by index
/// and by an excerpt of its seeds.
pub fn ambiguity_warnings(pairs: &[SeedPair]) -> Vec<String> {
    pairs
        .iter()
        .enumerate()
        .filter(|(_, pair)| pair.is_ambiguous())
        .map(|(i, pair)| {
            format!(
                "seed pair {i} ({}/{}) {AMBIGUOUS_SEEDS}",
                Excerpt(&pair.server_seed),
                Excerpt(&pair.client_seed)
            )
        })
        .collect()
}
