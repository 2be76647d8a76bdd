//! A game's top prizes counted against their exact law: the test of the rarest outcomes.
//!
//! An omnibus goodness-of-fit test spreads its power over every cell and, where cells are
//! sparse, merges them: plinko's two 1,000x buckets (one ball in 32,768) were merged with
//! their neighbours, so an operator who never paid them (3 points of return) moved no
//! merged count at all, and even unmerged they would add their expected count, 3 at
//! 100,000 balls, to a statistic with 16 degrees of freedom. Here the rounds landing in
//! the top prizes' cells are counted on their own.
//!
//! # Formula
//!
//! Under fairness rounds are independent and each lands in the top cells with their exact
//! probability `p`, so the count `X` of `n` rounds is `Binomial(n, p)`. The test is
//! one-sided, `p = P(X ≤ x)`: what it is for is the shortfall (a top prize withheld or
//! made rarer), and where the count is small a one-sided test judges from fewer rounds (an
//! empty count at `np = 6.1`, 200,000 plinko balls, has `P = 0.0022`; doubled, it would not
//! pass Holm's bar for plinko's four tests at 0.01). An excess
//! of top prizes is left to the goodness-of-fit tests (it is the operator's loss, not the
//! player's). The law is exact, so the p-value is right however small; it is discrete,
//! so the test is conservative, and its smallest p-value at a size, `(1 − p)^n`, is
//! reported: where it is above the level (fewer than about `4.6/p` rounds at 0.01) the
//! battery calls the test INSUFFICIENT rather than PASS.

use super::distributions::binomial_at_most;
use super::outcome::TestOutcome;
use super::power::Power;

/// The test `test` of `count` rounds in the top prizes' cells, out of `rounds`, against
/// their exact probability `probability`; `what` names the cells in the note.
pub fn top_prize_test(test: &str, count: u64, rounds: u64, probability: f64, what: &str) -> TestOutcome {
    if rounds == 0 {
        return TestOutcome::insufficient(test, "no rounds".into());
    }
    let expected = rounds as f64 * probability;
    TestOutcome::valid(
        test,
        count as f64,
        None,
        binomial_at_most(count, rounds, probability),
        format!("{count} rounds in {what}, {expected:.2} expected: exact one-sided binomial (a shortfall)"),
    )
    .with_power(Power::Shortfall { expected })
    .with_exact_p()
    .with_smallest_p(binomial_at_most(0, rounds, probability))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_count_is_as_unlikely_as_the_law_says() {
        // Plinko's end buckets, 2 of 65,536, over 1,000,000 balls: 30.5 expected.
        let p = 2.0 / 65_536.0;
        let none = top_prize_test("rarest_outcomes", 0, 1_000_000, p, "the end buckets");
        let exact = (1.0 - p).powf(1e6);
        assert!((none.p_value.unwrap() / exact - 1.0).abs() < 1e-9, "{none:?}");
        assert_eq!(none.smallest_p, Some(none.p_value.unwrap()));
        assert!(none.exact);
        // An excess is not this test's finding.
        let many = top_prize_test("rarest_outcomes", 60, 1_000_000, p, "the end buckets");
        assert!(many.p_value.unwrap() > 0.99);
        assert!(top_prize_test("rarest_outcomes", 0, 0, p, "x").p_value.is_none());
    }
}
