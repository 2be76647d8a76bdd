//! Rejected words against their exact expectation, pooled over every P a game samples
//! among.
//!
//! # Formula
//!
//! At a draw among `P` outcomes each word is rejected with probability
//! `q = (2³² mod P) / 2³²`, independently; the rejections before acceptance are geometric
//! with mean `q / (1 − q)`, so over `D` draws the total is negative binomial with mean
//! `μ_P = D q / (1 − q)`. With `q` below 10⁻⁸ this is Poisson(μ_P) to within a relative
//! `q`, far below anything measurable. The draws at different `P` (Keno's ten draws, P =
//! 40..31) are independent, so the total over all of them is Poisson with mean
//! `Σ μ_P`: one exact two-sided Poisson test per game. One test, not one per `P`: with
//! about 0.04 rejections expected per 10⁷ Keno rounds at each `P`, ten separate tests would
//! add nine to the battery's multiplicity and weaken every other test's stated power,
//! while a P-specific excess still raises the total. The per-P counts and expectations
//! stay in `rejections.csv`.
//!
//! Counts are tiny at ordinary sizes: the test catches a sampler that rejects far too
//! often (or at all, for P a power of two, where nothing may be rejected), and cannot see
//! one that never rejects; the reference vectors catch that one.

use super::distributions::poisson_two_sided;
use super::outcome::TestOutcome;
use super::power::Power;
use crate::sampler::expected_rejections;

/// The pooled test over the draws of one game: `draws_by_p` lists, for each draw of a
/// round, the outcomes it samples among, and `rejected` the words rejected at it, over
/// `rounds` rounds.
pub fn rejection_test(outcomes_by_draw: &[u32], rounds: u64, rejected: &[u64]) -> TestOutcome {
    let mean: f64 = outcomes_by_draw.iter().map(|&p| expected_rejections(p, rounds)).sum();
    let total: u64 = rejected.iter().sum();
    let ps: Vec<String> = outcomes_by_draw.iter().map(u32::to_string).collect();
    TestOutcome::valid(
        "rejections",
        total as f64,
        None,
        poisson_two_sided(total, mean),
        format!(
            "{total} rejected words, {mean:.4} expected over {rounds} rounds at P = {} (exact Poisson; per P in rejections.csv)",
            ps.join(",")
        ),
    )
    .with_power(Power::PoissonRate { expected: mean })
    .with_exact_p()
    .of_the_stream()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_mean_is_the_sum_over_draws() {
        let keno: Vec<u32> = (31..=40).rev().collect();
        let outcome = rejection_test(&keno, 10_000_000, &[0; 10]);
        let want: f64 = keno.iter().map(|&p| expected_rejections(p, 10_000_000)).sum();
        assert!(outcome.note.contains(&format!("{want:.4} expected")), "{}", outcome.note);
        assert_eq!(outcome.p_value, Some(1.0));
        // Rejections at P = 32, where none can happen, are an impossible excess.
        let mut rejected = [0; 10];
        rejected[8] = 5;
        assert!(rejection_test(&keno, 1_000, &rejected).p_value.unwrap() < 1e-10);
    }
}
