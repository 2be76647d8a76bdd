//! Far tails of a sum of independent, identically distributed finite-valued trials, by
//! the saddlepoint (Lugannani–Rice, 1980).
//!
//! The max-type tests read one cell's residual at four to six standard deviations, where
//! Holm sets the bar. A cell's residual is a sum over rounds of a variable with a few
//! values (the cell was hit, a number it shares was hit, neither), and its law is skewed:
//! at 500 expected per cell the normal tail at 5.2 standard deviations is 1.5 times too
//! small on the heavy side and the two sides do not cancel. The saddlepoint tail keeps
//! its relative error of order `1/n` uniformly in the tail, which an Edgeworth series
//! does not, and needs only the cumulant generating function, known in closed form here:
//! `K(t) = n · ln Σ pᵢ e^{t vᵢ}`.
//!
//! Written by hand: no maintained crate offers saddlepoint tails (statrs has none).
//!
//! # Formula
//!
//! For `x` above the mean, solve `K'(t̂) = x` (one root, `K` is convex), then with
//! `w = √(2(t̂x − K(t̂)))` and `u = t̂ √K''(t̂)`:
//! `P(S ≥ x) ≈ Q(w) + φ(w)(1/u − 1/w)`, `Q` the standard normal survival function.
//! The lower tail is the upper tail of the negated trial. Near the mean (`w` < 0.5) the
//! formula's removable singularity is avoided by the normal tail, whose error there is
//! irrelevant to a verdict. The lattice of the sums is ignored: the tests' lattice steps
//! are at most a hundredth of a standard deviation, and the unit tests check the result
//! against exact trinomial tails.

use super::distributions::normal_sf;

/// A sum of `trials` independent copies of a variable taking `values[i]` with
/// probability `probabilities[i]`.
#[derive(Debug, Clone)]
pub struct TrialSum {
    values: Vec<f64>,
    probabilities: Vec<f64>,
    trials: f64,
}

/// The per-trial cumulant generating function and its first two derivatives at `t`.
fn cumulants(values: &[f64], probabilities: &[f64], t: f64) -> (f64, f64, f64) {
    let shift = values.iter().map(|v| t * v).fold(f64::NEG_INFINITY, f64::max);
    let (mut m0, mut m1, mut m2) = (0.0, 0.0, 0.0);
    for (&v, &p) in values.iter().zip(probabilities) {
        let e = p * (t * v - shift).exp();
        m0 += e;
        m1 += e * v;
        m2 += e * v * v;
    }
    let mean = m1 / m0;
    (shift + m0.ln(), mean, (m2 / m0 - mean * mean).max(0.0))
}

impl TrialSum {
    /// The sum of `trials` copies of the variable `outcomes` (value, probability) describes.
    /// Outcomes of zero probability are dropped; the probabilities must sum to 1.
    pub fn new(outcomes: &[(f64, f64)], trials: f64) -> TrialSum {
        let (values, probabilities) = outcomes.iter().filter(|(_, p)| *p > 0.0).copied().unzip();
        TrialSum { values, probabilities, trials }
    }

    /// The number of trials summed.
    pub fn trials(&self) -> f64 {
        self.trials
    }

    /// `E[S]`.
    pub fn mean(&self) -> f64 {
        self.trials * cumulants(&self.values, &self.probabilities, 0.0).1
    }

    /// The standard deviation of `S`.
    pub fn sd(&self) -> f64 {
        (self.trials * cumulants(&self.values, &self.probabilities, 0.0).2).sqrt()
    }

    /// `P(S ≥ x)`.
    pub fn upper_tail(&self, x: f64) -> f64 {
        upper_tail(&self.values, &self.probabilities, self.trials, x)
    }

    /// `P(S ≤ x)`.
    pub fn lower_tail(&self, x: f64) -> f64 {
        let negated: Vec<f64> = self.values.iter().map(|v| -v).collect();
        upper_tail(&negated, &self.probabilities, self.trials, -x)
    }

    /// `P(|S − E[S]| ≥ deviation)`, the two tails added.
    pub fn two_sided(&self, deviation: f64) -> f64 {
        let mean = self.mean();
        (self.upper_tail(mean + deviation.abs()) + self.lower_tail(mean - deviation.abs())).min(1.0)
    }
}

#[cfg(test)]
impl TrialSum {
    /// The exact `P(|S − E[S]| ≥ deviation)` of a sum of three-valued trials (for tests):
    /// with counts `(N₁, N₂, N₃)` of the three values, `S = v₁N₁ + v₃(n − N₁) + (v₂ − v₃)N₂`,
    /// so each tail is a sum over `N₁` of a conditional binomial tail of `N₂`.
    pub(crate) fn exact_two_sided(&self, deviation: f64) -> f64 {
        use crate::stats::distributions::{binomial_at_least, binomial_at_most, binomial_pmf};
        assert_eq!(self.values.len(), 3, "three-valued trials only");
        let n = self.trials as u64;
        let (v, p) = (&self.values, &self.probabilities);
        let (high, low) = (self.mean() + deviation.abs(), self.mean() - deviation.abs());
        let conditional = p[1] / (1.0 - p[0]);
        let step = v[1] - v[2];
        let centre = self.trials * p[0];
        let reach = 40.0 * (centre * (1.0 - p[0])).sqrt() + 10.0;
        let first = (centre - reach).max(0.0) as u64;
        let last = ((centre + reach) as u64).min(n);
        let mut total = 0.0;
        for k in first..=last {
            let base = v[0] * k as f64 + v[2] * (n - k) as f64;
            let pmf = binomial_pmf(k, n, p[0]);
            // S ≥ high ⇔ step·N₂ ≥ high − base; S ≤ low ⇔ step·N₂ ≤ low − base.
            let (at_least_high, at_most_low) = ((high - base) / step, (low - base) / step);
            let (mut upper, mut lower) = (0.0, 0.0);
            let rest = n - k;
            let count_at_least = |x: f64| {
                let c = (x - 1e-9).ceil().max(0.0);
                if c > rest as f64 {
                    0.0
                } else {
                    binomial_at_least(c as u64, rest, conditional)
                }
            };
            let count_at_most = |x: f64| {
                let c = (x + 1e-9).floor();
                if c < 0.0 {
                    0.0
                } else {
                    binomial_at_most((c as u64).min(rest), rest, conditional)
                }
            };
            if step > 0.0 {
                upper += count_at_least(at_least_high);
                lower += count_at_most(at_most_low);
            } else {
                upper += count_at_most(at_least_high);
                lower += count_at_least(at_most_low);
            }
            total += pmf * (upper + lower);
        }
        total.min(1.0)
    }
}

fn upper_tail(values: &[f64], probabilities: &[f64], trials: f64, x: f64) -> f64 {
    let per_trial = x / trials;
    let (_, mean, variance) = cumulants(values, probabilities, 0.0);
    let sd = (trials * variance).sqrt();
    let largest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if per_trial > largest {
        return 0.0;
    }
    if per_trial == largest {
        let p: f64 = values.iter().zip(probabilities).filter(|(v, _)| **v == largest).map(|(_, p)| p).sum();
        return p.powf(trials);
    }
    if sd == 0.0 || x <= mean * trials + 0.5 * sd {
        return normal_sf((x - mean * trials) / sd.max(f64::MIN_POSITIVE));
    }
    // K'(t) rises from the mean to the largest value: bracket the root, then Newton
    // steps kept inside the bracket (bisection where a step would leave it).
    let (mut low, mut high) = (0.0, 1.0 / sd.max(f64::MIN_POSITIVE));
    while cumulants(values, probabilities, high).1 < per_trial {
        low = high;
        high *= 2.0;
    }
    let mut t = 0.5 * (low + high);
    for _ in 0..200 {
        let (_, k1, k2) = cumulants(values, probabilities, t);
        if k1 < per_trial {
            low = t;
        } else {
            high = t;
        }
        let newton = t - (k1 - per_trial) / k2;
        let next = if newton > low && newton < high && k2 > 0.0 { newton } else { 0.5 * (low + high) };
        if (next - t).abs() <= 1e-15 * t.abs().max(f64::MIN_POSITIVE) {
            t = next;
            break;
        }
        t = next;
    }
    let (k, _, k2) = cumulants(values, probabilities, t);
    let w = (2.0 * trials * (t * per_trial - k)).max(0.0).sqrt();
    let u = t * (trials * k2).sqrt();
    if w < 0.5 || u <= 0.0 {
        return normal_sf((x - mean * trials) / sd);
    }
    let density = (-0.5 * w * w).exp() / (2.0 * std::f64::consts::PI).sqrt();
    (normal_sf(w) + density * (1.0 / u - 1.0 / w)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::distributions::{binomial_at_least, binomial_at_most};

    #[test]
    fn a_two_valued_sum_matches_the_exact_binomial_tail_far_out() {
        // Bernoulli(0.025) over 20,000 trials: 500 expected, the max tests' threshold.
        let sum = TrialSum::new(&[(1.0, 0.025), (0.0, 0.975)], 20_000.0);
        assert!((sum.mean() - 500.0).abs() < 1e-9);
        for k in [560u64, 600, 620, 650, 680] {
            let exact = binomial_at_least(k, 20_000, 0.025);
            // Half a lattice step below the atom: the continuous tail of a lattice sum.
            let approx = sum.upper_tail(k as f64 - 0.5);
            assert!((approx / exact - 1.0).abs() < 0.01, "{k}: {approx:e} vs {exact:e}");
        }
        for k in [440u64, 400, 380, 350] {
            let exact = binomial_at_most(k, 20_000, 0.025);
            let approx = sum.lower_tail(k as f64 + 0.5);
            assert!((approx / exact - 1.0).abs() < 0.01, "{k}: {approx:e} vs {exact:e}");
        }
    }

    /// The Keno position residual of one cell at 500 expected per cell: per round 0.9 when
    /// the number is drawn at that position, −0.1 when drawn elsewhere.
    #[test]
    fn the_keno_position_residual_tail_is_accurate_where_holm_reads_it() {
        let n = 20_000u64;
        let hit = (0.9, 1.0 / 40.0);
        let elsewhere = (-0.1, 9.0 / 40.0);
        let sum = TrialSum::new(&[hit, elsewhere, (0.0, 30.0 / 40.0)], n as f64);
        assert!(sum.mean().abs() < 1e-9);
        let sd = sum.sd();
        for z in [3.0, 4.0, 4.5, 5.0, 5.5, 6.0] {
            let exact = sum.exact_two_sided(z * sd);
            let approx = sum.two_sided(z * sd);
            let normal = crate::stats::normal_two_sided(z);
            assert!((approx / exact - 1.0).abs() < 0.03, "z {z}: {approx:e} vs exact {exact:e}");
            if z >= 5.0 {
                // What the saddlepoint replaced: the normal tail is too small here.
                assert!(exact / normal > 1.2, "z {z}: exact {exact:e}, normal {normal:e}");
            }
        }
    }

    #[test]
    fn tails_beyond_the_support_are_zero_and_at_its_edge_are_exact() {
        let sum = TrialSum::new(&[(1.0, 0.5), (0.0, 0.5)], 10.0);
        assert_eq!(sum.upper_tail(11.0), 0.0);
        assert!((sum.upper_tail(10.0) - 0.5f64.powi(10)).abs() < 1e-15);
        assert!((sum.lower_tail(0.0) - 0.5f64.powi(10)).abs() < 1e-15);
        assert!((sum.two_sided(0.0) - 1.0).abs() < 1e-12);
    }
}
