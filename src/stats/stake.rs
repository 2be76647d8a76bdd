//! The battery of a sweep of one game of the HMAC-SHA256 family: each view of
//! [`crate::scheme::stake::cells`] tested against its exact law, per seed pair, on the pairs summed, and across them,
//! adjusted for multiplicity by [`crate::stats::battery::assess`] (the same verdicts as
//! the default scheme's battery).
//!
//! - `outcome_frequency`: the outcome cells (dice's rolls, roulette's pockets, limbo's
//!   bands, plinko's buckets) against their exact law: over many sparse cells (dice's
//!   10,001 rolls) Pearson's `X²` against the gamma law of its exact three cumulants, the
//!   cells kept ([`super::sparse`]); over few, Cressie–Read goodness of fit, sparse cells
//!   merged with their neighbours.
//! - `rarest_outcomes`: the rounds in the top prizes' cells (dice's 0.00 and 100.00,
//!   plinko's end buckets, limbo's 10,000x and up; [`top_prize_cells`]) against their exact
//!   binomial law, one-sided (a shortfall; [`super::rarest`]).
//! - `draw_steps`: each draw step's index against the exact law of `floor(float * left)`;
//!   the steps are independent (distinct floats), so the statistics add, and so do their
//!   degrees of freedom.
//! - `pairs`: the coarse classes of rounds `2k` and `2k + 1`: dependence between
//!   consecutive rounds. A sweep plays every nonce, so its pairs (which do not overlap)
//!   are multinomial over the product of the exact coarse law with itself. An audited
//!   history is not a sweep: whether round `2k + 1` is in it, as the same game of the same
//!   seed pair, is the player's choice made after seeing round `2k` (a new seed pair after
//!   a big win, another game after a low roll), so the first rounds of the pairs recorded
//!   are a filtered sample and the product law is wrong (fair histories FAILed at p 1e-180).
//!   What no choice can filter is the second round: it is drawn after the choice, so under
//!   fairness its class has the exact coarse law `p` whatever came before. The audit's
//!   `pairs` therefore tests round `2k + 1`'s class *given* round `2k`'s: each row `i` of
//!   the table (the `nᵢ` pairs whose first round is of class `i`) against `nᵢ · p`, the
//!   rows' statistics summed, `Σ (bins − 1)` degrees of freedom over the rows with pairs
//!   ([`pairs_given_first`]). The first round's own law is the outcome test's.

use super::battery::{assess, with_across, Battery};
use super::bets::{bet_return, chance_bet_wins, keno_bet_hits, roulette_bet_wins, skipped_wins};
use super::chisquare::goodness_of_fit;
use super::frequency::{ordered_fit, outcome_fit, SummedFits};
use super::outcome::TestOutcome;
use super::rarest::top_prize_test;
use crate::scheme::keyed::KeyedScheme;
use crate::scheme::stake::cells::{coarse_law, outcome_law, step_laws, top_prize_cells};
use crate::scheme::stake::StakeGame;
use crate::tally::bets::BetTally;
use crate::tally::stake::StakeTally;

/// The tests of one tally of `game` swept over every nonce (`pairs` against the product
/// law).
pub fn tests(scheme: KeyedScheme, game: &StakeGame, tally: &StakeTally) -> Vec<TestOutcome> {
    let mut tests = single_round_tests(scheme, game, tally);
    let law = coarse_law(scheme, game);
    let product: Vec<f64> = law.iter().flat_map(|a| law.iter().map(move |b| a * b)).collect();
    tests.push(ordered_fit(
        "pairs",
        &tally.pairs,
        &product,
        "chi-square (Cressie-Read) of rounds 2k and 2k+1 by coarse class against the product of its exact law",
    ));
    tests
}

/// The tests of one game's recorded results in an audited history (`pairs` given the
/// first round's class: the player chose which pairs exist).
pub fn log_tests(scheme: KeyedScheme, game: &StakeGame, tally: &StakeTally) -> Vec<TestOutcome> {
    let mut tests = single_round_tests(scheme, game, tally);
    tests.push(pairs_given_first(scheme, game, tally));
    tests
}

/// The tests of the rounds one by one: the outcomes, the top prizes, the draw steps.
fn single_round_tests(scheme: KeyedScheme, game: &StakeGame, tally: &StakeTally) -> Vec<TestOutcome> {
    let mut tests = Vec::new();
    if !tally.outcomes.is_empty() {
        let law = outcome_law(scheme, game);
        tests.push(outcome_fit(
            "outcome_frequency",
            &tally.outcomes,
            &law,
            &format!("against the exact law of the outcomes ({})", scheme.law_source()),
        ));
        let top = top_prize_cells(game);
        if !top.is_empty() {
            let count = top.iter().map(|&cell| tally.outcomes[cell]).sum();
            let probability = top.iter().map(|&cell| law[cell]).sum();
            let rounds = tally.outcomes.iter().sum();
            tests.push(top_prize_test("rarest_outcomes", count, rounds, probability, &top_prize_names(game)));
        }
    }
    if !tally.steps.is_empty() {
        tests.push(draw_steps(scheme, game, tally));
    }
    tests
}

/// The top prizes' cells of `game`, as the note of `rarest_outcomes` names them.
fn top_prize_names(game: &StakeGame) -> String {
    match game {
        StakeGame::Dice => "rolls 0.00 and 100.00".to_owned(),
        StakeGame::Plinko { rows, .. } => format!("buckets 0 and {rows} (the top multiplier)"),
        StakeGame::Limbo(_) => "the top band (10,000x and up)".to_owned(),
        _ => "the top prizes".to_owned(),
    }
}

/// Round `2k + 1`'s coarse class given round `2k`'s, against its exact law (module docs).
///
/// # Formula
///
/// Under fairness round `2k + 1` is independent of everything before it, the player's
/// choices included, so given the first classes each row `i` of the pair table is a
/// multinomial of `nᵢ` rounds over the exact coarse law `p`: `Eᵢⱼ = nᵢ pⱼ`. Rows (first
/// classes, in their order) with too few pairs for a fit of their own are pooled with
/// the rows after them (a pool of rows is the same multinomial over `p`, with `Σ nᵢ`
/// rounds), a remainder into the last pool; each pool is a Cressie–Read fit (sparse
/// second classes merged), and the fits are summed: χ² with `Σ (bins − 1)` degrees of
/// freedom. One pool is the single fit, exact where it has two bins.
pub fn pairs_given_first(scheme: KeyedScheme, game: &StakeGame, tally: &StakeTally) -> TestOutcome {
    const TEST: &str = "pairs";
    let law = coarse_law(scheme, game);
    let mut pools: Vec<Vec<u64>> = Vec::new();
    let mut pool = vec![0; law.len()];
    for row in tally.pairs.chunks(law.len()) {
        pool.iter_mut().zip(row).for_each(|(a, b)| *a += b);
        if goodness_of_fit(&pool, &law).is_some() {
            pools.push(std::mem::replace(&mut pool, vec![0; law.len()]));
        }
    }
    if pool.iter().any(|&n| n > 0) {
        if let Some(last) = pools.last_mut() {
            last.iter_mut().zip(&pool).for_each(|(a, b)| *a += b);
        }
    }
    let note = "chi-square (Cressie-Read) of round 2k+1's coarse class given round 2k's: each first class's pairs against the exact law";
    match pools.as_slice() {
        [] | [_] => ordered_fit(TEST, pools.first().unwrap_or(&pool), &law, note),
        _ => {
            let mut sum = SummedFits::new();
            for pool in &pools {
                sum.add(&goodness_of_fit(pool, &law).expect("each pool has a fit"));
            }
            sum.outcome(TEST, format!("{note} ({} pools of first classes, summed)", pools.len()))
        }
    }
}

/// The draw steps' statistics summed: independent chi-squares, degrees of freedom added.
fn draw_steps(scheme: KeyedScheme, game: &StakeGame, tally: &StakeTally) -> TestOutcome {
    const TEST: &str = "draw_steps";
    let mut sum = SummedFits::new();
    for (step, (counts, law)) in tally.steps.iter().zip(step_laws(scheme, game)).enumerate() {
        let Some(fit) = goodness_of_fit(counts, &law) else {
            return TestOutcome::insufficient(
                TEST,
                format!("draw step {} has fewer than two bins expecting 10 or more", step + 1),
            );
        };
        sum.add(&fit);
    }
    let note = format!(
        "sum of {} chi-squares (Cressie-Read), one per draw step, against the exact law of {}",
        tally.steps.len(),
        scheme.step_pick()
    );
    sum.outcome(TEST, note)
}

/// The battery of a sweep of `game`: one tally per seed pair (labelled `0`, `1`, …), and
/// with several pairs their sum (`all`) and the tests across them.
pub fn battery(
    scheme: KeyedScheme,
    game: &StakeGame,
    per_pair: &[StakeTally],
    alpha: f64,
) -> Battery<StakeGame> {
    let mut groups: Vec<(String, Vec<TestOutcome>)> =
        per_pair.iter().enumerate().map(|(i, tally)| (i.to_string(), tests(scheme, game, tally))).collect();
    if per_pair.len() > 1 {
        groups.push(("all".to_owned(), tests(scheme, game, &StakeTally::sum(game, per_pair))));
    }
    assess(with_across(*game, groups, alpha), alpha)
}

/// The battery of an audited history: each game's tests on its recorded results and, where
/// the history records bets, on the bets as placed (`bets`, one per game of `tallies`; rows
/// labelled `log`), adjusted for multiplicity together. Where `players` (each one's bets
/// per game of `tallies`) holds two or more players with bets on a game, that game's
/// pooled rows are labelled `all`, each player's bet tests follow as diagnostics
/// (`player:NAME`), and the tests across players (the smallest exact p-value, Šidák; the
/// dispersion of the others) carry the verdict beside `all`, as in the default scheme's
/// audit: one player rigged alone is diluted in `all`, not across players.
pub fn log_battery(
    scheme: KeyedScheme,
    tallies: &[(StakeGame, StakeTally)],
    bets: &[BetTally],
    players: &[(String, Vec<BetTally>)],
    alpha: f64,
) -> Battery<StakeGame> {
    assert_eq!(tallies.len(), bets.len(), "one bet tally per game");
    let mut rows = Vec::new();
    for (index, ((game, tally), total)) in tallies.iter().zip(bets).enumerate() {
        let mut tests = log_tests(scheme, game, tally);
        tests.extend(bet_tests(game, total));
        let betting: Vec<(String, &BetTally)> = players
            .iter()
            .filter_map(|(name, games)| games.get(index).map(|bets| (format!("player:{name}"), bets)))
            .filter(|(_, bets)| !bets.is_empty())
            .collect();
        if betting.len() < 2 {
            rows.extend(tests.into_iter().map(|t| (*game, "log".to_owned(), t)));
            continue;
        }
        let mut groups: Vec<(String, Vec<TestOutcome>)> =
            betting.into_iter().map(|(label, bets)| (label, bet_tests_shaped(game, bets, total))).collect();
        groups.push(("all".to_owned(), tests));
        rows.extend(with_across(*game, groups, alpha));
    }
    assess(rows, alpha)
}

/// The bet-conditional tests of [`crate::stats::bets`] on one game's bets: `bet_wins` on
/// roulette's bets (a bet covering `c` of 37 pockets wins with chance `c/37`; the float
/// law's preimage counts differ from it by less than 2^-32 a pocket) and on dice's and low
/// limbo targets (their exact chance over the 2^32 floats, [`chance_bet_wins`]), `bet_hits` on Keno's
/// picks (the hits on `k` numbers picked are hypergeometric whatever the numbers; each
/// pick-and-remove step is within 2^-32 of uniform) and `bet_return` wherever stakes and
/// payouts of bets with an exact law were recorded, and `skipped_wins` where rounds at
/// skipped nonces were replayed with the bet after them ([`crate::audit::stake`]). An
/// operator who turns winning spins into losing ones, draws around the numbers a player
/// picked, or burns the nonces of rounds a large bet would win, keeping every pocket or
/// number as frequent, passes every outcome test and fails these.
pub fn bet_tests(game: &StakeGame, bets: &BetTally) -> Vec<TestOutcome> {
    bet_tests_shaped(game, bets, bets)
}

/// [`bet_tests`] on `bets`, the tests chosen by `shape` (the bets of every player): each
/// player gets the same tests in the same order, INSUFFICIENT where they have no such bets,
/// so that the tests across players line up.
fn bet_tests_shaped(game: &StakeGame, bets: &BetTally, shape: &BetTally) -> Vec<TestOutcome> {
    let mut tests = Vec::new();
    if *game == StakeGame::Roulette && shape.bet_rounds() > 0 {
        tests.push(roulette_bet_wins(bets, 37));
    }
    if *game == StakeGame::Keno && shape.bet_rounds() > 0 {
        tests.push(keno_bet_hits(bets));
    }
    if !shape.chance_wins.is_empty() {
        tests.push(chance_bet_wins(bets));
    }
    if shape.staked_rounds > 0 {
        tests.push(bet_return(bets));
    }
    if !shape.skipped.is_empty() {
        tests.push(skipped_wins(bets));
    }
    tests
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dice pair tables of 10 × 10 first and second classes (tenths of the roll).
    fn dice_pairs(cell: impl Fn(usize, usize) -> u64) -> StakeTally {
        let mut tally = StakeTally::empty(&StakeGame::Dice);
        for (i, count) in tally.pairs.iter_mut().enumerate() {
            *count = cell(i / 10, i % 10);
        }
        tally
    }

    #[test]
    fn pairs_whose_first_rounds_were_chosen_are_judged_by_their_second_rounds() {
        // Only pairs whose first roll was in the top tenth (a player who plays on after a
        // big win only), the second rounds spread exactly as the law says: a perfect fit
        // given the first, a glaring misfit of the product law.
        let tally = dice_pairs(|first, _| if first == 9 { 100 } else { 0 });
        let given = pairs_given_first(KeyedScheme::Stake, &StakeGame::Dice, &tally);
        assert!(given.p_value.unwrap() > 0.99, "{given:?}");
        assert_eq!(given.df, Some(9.0));
        let product = tests(KeyedScheme::Stake, &StakeGame::Dice, &tally).pop().unwrap();
        assert!(product.p_value.unwrap() < 1e-100, "{product:?}");
        // The second round repeating the first's tenth: a FAIL either way.
        let tally = dice_pairs(|first, second| if first == second { 100 } else { 0 });
        assert!(pairs_given_first(KeyedScheme::Stake, &StakeGame::Dice, &tally).p_value.unwrap() < 1e-100);
    }

    #[test]
    fn rows_with_few_pairs_are_pooled_with_the_rows_after_them() {
        // Six pairs per first class: no row has a fit of its own (two bins of 10 need
        // more than 20 pairs), so rows are pooled four at a time (24 pairs), the last two
        // into the second pool.
        let tally = dice_pairs(|_, second| u64::from(second % 5 == 0) * 3);
        let outcome = pairs_given_first(KeyedScheme::Stake, &StakeGame::Dice, &tally);
        assert!(outcome.note.contains("2 pools"), "{}", outcome.note);
        assert!(outcome.df.unwrap() >= 2.0, "{outcome:?}");
        // Too few pairs in all: INSUFFICIENT, as the outcome test says it.
        let tally = dice_pairs(|first, second| u64::from(first == 0 && second < 3));
        assert!(pairs_given_first(KeyedScheme::Stake, &StakeGame::Dice, &tally).p_value.is_none());
    }
}
