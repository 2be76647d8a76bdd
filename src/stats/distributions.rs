//! Null distributions of the battery: survival functions that stay accurate far into the
//! upper tail, exact discrete tails for huge counts, the Keno hypergeometric pmf, and the
//! non-central chi-square used for power.
//!
//! Every p-value comes from a survival function (`sf`), never from `1 - cdf`: a p-value of
//! 1e-50 is invisible in `1 - cdf`, which cannot go below 1.1e-16. Each routine is tested
//! against 60-digit values from `reference_values.py` (see the tests for the bounds).
//!
//! # What comes from where, and why
//! * Chi-square: statrs 0.19's `ChiSquared::sf`, whose tail the tests show accurate.
//! * Normal: the `libm` crate's `erfc` (FreeBSD's). statrs 0.19's `erfc` is only good to
//!   about 1e-10 relative (measured: 1e-10 near 0, 4e-8 near 26.5, and 0 from 27 on, where
//!   the true value is 5e-319; pinned by `statrs_erfc_is_only_good_to_about_1e_10`). Its
//!   per-interval offsets are Boost's single-precision literals written as doubles
//!   (0.3440242112 where Boost means 0.3440242112f = 0.34402421116828918), an error of
//!   9e-11 relative that matches the one measured.
//! * Binomial and Poisson: our own. statrs 0.19's `Binomial::cdf`/`sf` go through
//!   `beta_reg`, whose prefactor `exp(lnΓ(a+b) − lnΓ(a) − lnΓ(b) + …)` cancels terms of
//!   size `n ln n` (and whose continued fraction stops after 140 iterations): measured
//!   relative errors 5e-6 at n = 1e9 and 3e-3 at n = 1e12 (pinned by
//!   `statrs_binomial_sf_is_wrong_for_large_n`). Here the pmfs use Loader's saddle-point
//!   form (C. Loader, *Fast and accurate computation of binomial probabilities*, 2000; the
//!   algorithm of R's `dbinom`), whose exponent is a small deviance computed without
//!   cancellation, and the tails sum the pmf away from the mode with a rigorous bound on
//!   what is left.

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// `ln(2π)`.
const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// Relative size below which the rest of a series is dropped: half an ulp of the sum.
const NEGLIGIBLE: f64 = f64::EPSILON / 2.0;

/// Upper tail `P(X > x)` of the chi-square distribution with `df` degrees of freedom.
///
/// # Formula
/// ```text
/// P(X > x) = Q(df/2, x/2) = Γ(df/2, x/2) / Γ(df/2)
/// ```
/// the regularized upper incomplete gamma function, evaluated by statrs 0.19 (a Legendre
/// continued fraction for `x > df`). Measured against 60-digit references for df = 1, 2,
/// 36 and 1369 down to 1e-300: relative error below 1e-12. Below the normal double range
/// (2.2e-308) the values are subnormal and imprecise, and exactly 0 once `ln` of the
/// prefactor `x^a e^-x / Γ(a)` is below −709.78; [`super::PValue`] prints all of those as
/// `< 1e-300`.
///
/// # Panics
/// If `df` is not positive and finite, or `x` is NaN.
pub fn chi_square_sf(x: f64, df: f64) -> f64 {
    assert!(df > 0.0 && df.is_finite(), "chi-square needs df > 0, got {df}");
    assert!(!x.is_nan(), "chi-square sf of NaN");
    if x <= 0.0 {
        return 1.0;
    }
    ChiSquared::new(df).expect("df checked above").sf(x)
}

/// The critical value `x` with `P(X > x) = alpha` for a chi-square with `df` degrees of
/// freedom, by bisection on [`chi_square_sf`] down to adjacent doubles.
///
/// Bisection on the survival function rather than statrs' `inverse_cdf`: that one solves
/// `cdf(x) = 1 − alpha`, which cannot resolve an `alpha` below 1.1e-16.
///
/// # Panics
/// If `df` is not positive and finite, or `alpha` is not in (0, 1).
pub fn chi_square_critical(df: f64, alpha: f64) -> f64 {
    assert!(alpha > 0.0 && alpha < 1.0, "alpha must be in (0, 1), got {alpha}");
    let mut hi = df + 1.0;
    while chi_square_sf(hi, df) > alpha {
        hi *= 2.0;
    }
    bisect(0.0, hi, |x| chi_square_sf(x, df) > alpha)
}

/// Bisection for the boundary of a predicate that holds on `[lo, t)` and fails on
/// `[t, hi]`: returns a point within one ulp of `t`.
fn bisect(mut lo: f64, mut hi: f64, below: impl Fn(f64) -> bool) -> f64 {
    // 2100 halvings take any bracket of finite doubles down to adjacent values.
    for _ in 0..2100 {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            break;
        }
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + (hi - lo) / 2.0
}

/// Upper tail `P(Z > z)` of the standard normal distribution.
///
/// # Formula
/// ```text
/// P(Z > z) = erfc(z / √2) / 2
/// ```
/// with `libm`'s `erfc`. The rounding of `z/√2` (half an ulp) moves the result by about
/// `z² · 1.1e-16` relative, so the tests bound the relative error by 2e-13 down to 1e-300
/// (z = 37). It returns 0 from z ≈ 38.6 on, where the true value is below 5e-324.
pub fn normal_sf(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// Two-sided normal p-value `P(|Z| ≥ |z|) = erfc(|z| / √2)`, same accuracy as
/// [`normal_sf`].
pub fn normal_two_sided(z: f64) -> f64 {
    libm::erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// `P(X ≥ k)` for `X ~ Binomial(n, p)`, accurate for any `n` a `u64` holds.
///
/// # Formula
/// ```text
/// P(X ≥ k) = Σ_{j=k}^{n} C(n, j) p^j (1−p)^(n−j)       (= I_p(k, n−k+1))
/// ```
/// If `k > np` the terms fall from `j = k` on and are summed directly; otherwise the value
/// is `1 − P(X ≤ k−1)`, whose sum again runs away from the mode, so no sum ever cancels.
/// The sum stops once the geometric bound on the terms left (their ratio only shrinks away
/// from the mode) is below half an ulp of the sum; it costs about 9 standard deviations
/// of terms from near the mode (1.4e6 for n = 1e12, p = 1/37), a handful from the tail.
/// Measured relative error against 60-digit sums: below 1e-12 (n up to 1e12, p down to
/// 1e-10). Values below ~1e-308 come out as 0 or subnormal.
///
/// # Panics
/// If `p` is not in [0, 1].
pub fn binomial_at_least(k: u64, n: u64, p: f64) -> f64 {
    assert!((0.0..=1.0).contains(&p), "binomial p must be in [0, 1], got {p}");
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    if (k as f64) > n as f64 * p {
        let q = 1.0 - p;
        let up = |j: u64| (n - j) as f64 / (j + 1) as f64 * (p / q);
        tail_sum(k, n, |j| binomial_pmf(j, n, p), up)
    } else {
        1.0 - binomial_at_most(k - 1, n, p)
    }
}

/// `P(X ≤ k)` for `X ~ Binomial(n, p)`; the mirror of [`binomial_at_least`], with the same
/// method and accuracy.
///
/// # Formula
/// ```text
/// P(X ≤ k) = Σ_{j=0}^{k} C(n, j) p^j (1−p)^(n−j)
/// ```
///
/// # Panics
/// If `p` is not in [0, 1].
pub fn binomial_at_most(k: u64, n: u64, p: f64) -> f64 {
    assert!((0.0..=1.0).contains(&p), "binomial p must be in [0, 1], got {p}");
    if k >= n {
        return 1.0;
    }
    if (k as f64) < n as f64 * p {
        let q = 1.0 - p;
        let down = |j: u64| j as f64 / (n - j + 1) as f64 * (q / p);
        tail_sum(k, 0, |j| binomial_pmf(j, n, p), down)
    } else {
        1.0 - binomial_at_least(k + 1, n, p)
    }
}

/// `P(X ≥ k)` for `X ~ Poisson(lambda)`.
///
/// # Formula
/// ```text
/// P(X ≥ k) = Σ_{j≥k} e^(−λ) λ^j / j!  =  P(k, λ)   (regularized lower incomplete gamma)
/// ```
/// For `k > λ` this is the power series of `P(k, λ)`, i.e. the pmf summed upward from `k`
/// (summed and stopped as for the binomial); otherwise `1 − P(X ≤ k−1)`. Relative error
/// against mpmath's `gammainc`: below 1e-12 in the tests (λ from 1e-10 to 1e6).
///
/// # Panics
/// If `lambda` is negative or not finite.
pub fn poisson_at_least(k: u64, lambda: f64) -> f64 {
    assert!(lambda >= 0.0 && lambda.is_finite(), "Poisson mean must be >= 0, got {lambda}");
    if k == 0 {
        return 1.0;
    }
    if (k as f64) > lambda {
        tail_sum(k, u64::MAX, |j| poisson_pmf(j, lambda), |j| lambda / (j + 1) as f64)
    } else {
        1.0 - poisson_at_most(k - 1, lambda)
    }
}

/// `P(X ≤ k)` for `X ~ Poisson(lambda)`: `Q(k+1, λ)`, the regularized upper incomplete
/// gamma function. Same method and accuracy as [`poisson_at_least`].
///
/// # Formula
/// ```text
/// P(X ≤ k) = Σ_{j=0}^{k} e^(−λ) λ^j / j!
/// ```
///
/// # Panics
/// If `lambda` is negative or not finite.
pub fn poisson_at_most(k: u64, lambda: f64) -> f64 {
    assert!(lambda >= 0.0 && lambda.is_finite(), "Poisson mean must be >= 0, got {lambda}");
    if (k as f64) < lambda {
        tail_sum(k, 0, |j| poisson_pmf(j, lambda), |j| j as f64 / lambda)
    } else {
        1.0 - poisson_at_least(k + 1, lambda)
    }
}

/// Exact two-sided p-value of a binomial count `k` out of `n` against probability `p`.
///
/// # Convention
/// Doubling the smaller tail, capped at 1 (the "central" or equal-tailed test, the one
/// that inverts to Clopper–Pearson intervals):
/// ```text
/// p = min(1, 2 · min(P(X ≤ k), P(X ≥ k)))
/// ```
/// Both tails include `k`, so the test is conservative for discrete counts. This differs
/// from R's `binom.test`, which sums every outcome no likelier than `k` (minimum
/// likelihood); the two agree closely for symmetric cases and differ most for skewed ones
/// such as rejection counts with `np ≈ 1`.
///
/// # Panics
/// If `p` is not in [0, 1].
pub fn binomial_two_sided(k: u64, n: u64, p: f64) -> f64 {
    double_smaller_tail(binomial_at_most(k, n, p), binomial_at_least(k, n, p))
}

/// The smallest p-value [`binomial_two_sided`] can give over `n` trials, whatever the
/// count: the doubled smaller tail is smallest at an end of the range (`P(X ≤ k)` grows
/// with `k`, `P(X ≥ k)` shrinks), so at `k = 0` or `k = n`.
pub fn binomial_two_sided_smallest(n: u64, p: f64) -> f64 {
    binomial_two_sided(0, n, p).min(binomial_two_sided(n, n, p))
}

/// Exact two-sided p-value of a Poisson count `k` against mean `lambda`, with the same
/// doubling convention as [`binomial_two_sided`]:
/// `p = min(1, 2 · min(P(X ≤ k), P(X ≥ k)))`.
///
/// # Panics
/// If `lambda` is negative or not finite.
pub fn poisson_two_sided(k: u64, lambda: f64) -> f64 {
    double_smaller_tail(poisson_at_most(k, lambda), poisson_at_least(k, lambda))
}

fn double_smaller_tail(at_most: f64, at_least: f64) -> f64 {
    (2.0 * at_most.min(at_least)).min(1.0)
}

/// Two-sided mid-p-value of `runs`, the number of runs of ones (maximal stretches of
/// consecutive ones) in a 0/1 sequence of `n` terms holding `ones` ones, under the exact
/// law of the runs when every arrangement of the ones is equally likely (as for
/// independent, identically distributed terms, given how many ones they hold):
/// ```text
/// P(R = r) = C(ones − 1, r − 1) · C(n − ones + 1, r) / C(n, ones),   1 ≤ r ≤ min(ones, n − ones + 1)
/// ```
/// (the `r` runs take `r` of the `n − ones + 1` places around the zeros, and the ones split
/// into `r` non-empty runs), and
/// `p = min(1, 2 · min(P(R < r) + P(R = r)/2, P(R > r) + P(R = r)/2))`.
///
/// Why the mid-p: with rare ones the law is lumpy (`R` is about `ones` minus a Poisson
/// count of adjacent ones), and doubling the tail that includes `r`, as
/// [`binomial_two_sided`] does, rejects far less often than its level says (0.037 at
/// 0.05 with 16 adjacent pairs expected); the mid-p's size, computed from this law at the
/// shapes the crash tests run, stays at or below its level and close to it
/// (`crate::stats::crash`'s tests).
///
/// Written here because no crate we use has this law. The terms are walked once from
/// `r = 1` by the ratio of consecutive terms, `(ones − r)(n − ones + 1 − r) / (r (r + 1))`,
/// in logarithms, and summed against the largest term seen so far (a running log-sum-exp),
/// so no factorial is formed and any `n` a `u64` holds works; `min(ones, n − ones + 1)`
/// steps.
///
/// ```
/// use fairaudit::stats::distributions::runs_of_ones_mid_p;
/// // Ten ones in a hundred terms, all in one run: far fewer runs than chance gives.
/// assert!(runs_of_ones_mid_p(1, 10, 100) < 1e-9);
/// assert_eq!(runs_of_ones_mid_p(0, 0, 100), 1.0);
/// ```
pub fn runs_of_ones_mid_p(runs: u64, ones: u64, n: u64) -> f64 {
    assert!(ones <= n, "{ones} ones in {n} terms");
    let zeros = n - ones;
    if ones == 0 || zeros == 0 {
        return 1.0;
    }
    let most = ones.min(zeros + 1);
    if runs == 0 || runs > most {
        return 0.0;
    }
    // Running sums of exp(l(r) - top): all terms, those with r < runs, those with r > runs,
    // and the term of r = runs.
    let (mut top, mut all, mut lower, mut upper, mut here) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut log_term = 0.0f64;
    for r in 1..=most {
        if r > 1 {
            let k = (r - 1) as f64;
            log_term += ((ones as f64 - k) / k).ln() + ((zeros as f64 + 1.0 - k) / (k + 1.0)).ln();
        }
        if log_term > top {
            let scale = (top - log_term).exp();
            (all, lower, upper, here) = (all * scale, lower * scale, upper * scale, here * scale);
            top = log_term;
        }
        let term = (log_term - top).exp();
        all += term;
        match r.cmp(&runs) {
            std::cmp::Ordering::Less => lower += term,
            std::cmp::Ordering::Equal => here = term,
            std::cmp::Ordering::Greater => upper += term,
        }
    }
    double_smaller_tail((lower + here / 2.0) / all, (upper + here / 2.0) / all)
}

/// `P(X = k)` for the hypergeometric distribution: `k` successes in `draws` draws without
/// replacement from a population of `population` items of which `successes` are successes.
/// For Keno 10-of-40 with `s` spots picked, the hits are `hypergeometric_pmf(k, 40, s, 10)`.
///
/// # Formula
/// ```text
/// P(X = k) = C(K, k) C(N−K, n−k) / C(N, n)
///          = b(k; K, π) · b(n−k; N−K, π) / b(n; N, π),   π = n/N
/// ```
/// with `b(j; m, π)` the binomial pmf in Loader's log-space saddle-point form (as R's
/// `dhyper` does): no factorial is ever formed, so any `N` a `u64` holds works, and over
/// all `k` the pmf sums to 1 within 1e-15 in the tests.
///
/// # Panics
/// If `successes > population` or `draws > population`.
pub fn hypergeometric_pmf(k: u64, population: u64, successes: u64, draws: u64) -> f64 {
    assert!(
        successes <= population && draws <= population,
        "hypergeometric needs K <= N and n <= N (N = {population}, K = {successes}, n = {draws})"
    );
    let failures = population - successes;
    if k > successes || k > draws || draws - k > failures {
        return 0.0;
    }
    if draws == 0 || draws == population {
        return 1.0;
    }
    let pi = draws as f64 / population as f64;
    binomial_pmf(k, successes, pi) * binomial_pmf(draws - k, failures, pi)
        / binomial_pmf(draws, population, pi)
}

/// Upper tail `P(X > x)` of the non-central chi-square with `df` degrees of freedom and
/// non-centrality `lambda` (`X = Σ (Z_i + μ_i)²`, `λ = Σ μ_i²`).
///
/// # Formula
/// A Poisson(λ/2) mixture of central chi-squares:
/// ```text
/// P(X > x) = Σ_{j≥0} w_j · Q_{df+2j}(x),   w_j = e^(−λ/2) (λ/2)^j / j!
/// ```
/// The sum starts at the largest weight, `j₀ = ⌊λ/2⌋`, and walks both ways.
///
/// # Truncation bound
/// Upward (`j > j₀`): each `Q ≤ 1` and the weights fall faster than a geometric series of
/// ratio `r = (λ/2)/(j+2) < 1`, so everything past `j` is at most `w_{j+1} / (1 − r)`.
/// Downward: `Q_{df+2i}(x)` grows with `i`, so everything below `j` is at most
/// `w_j Q_j · r/(1 − r)` with `r = j/(λ/2)`. Each walk stops once its bound is below
/// 2^-53 of the partial sum, so truncation adds at most ~2e-16 relative error; the rest is
/// the error of [`chi_square_sf`] (tests: below 1e-12 relative against 60-digit sums).
///
/// # Panics
/// If `df` is not positive and finite, `lambda` is negative or not finite, or `x` is NaN.
pub fn noncentral_chi_square_sf(x: f64, df: f64, lambda: f64) -> f64 {
    assert!(lambda >= 0.0 && lambda.is_finite(), "non-centrality must be >= 0, got {lambda}");
    if lambda == 0.0 || x <= 0.0 {
        return chi_square_sf(x, df);
    }
    let mu = lambda / 2.0;
    let start = mu.floor() as u64;
    let w_start = poisson_pmf(start, mu);
    let q = |j: u64| chi_square_sf(x, df + 2.0 * j as f64);

    let mut sum = 0.0;
    let (mut j, mut w) = (start, w_start);
    loop {
        sum += w * q(j);
        let w_next = w * mu / (j + 1) as f64;
        let rest = w_next / (1.0 - mu / (j + 2) as f64);
        if w_next == 0.0 || rest <= NEGLIGIBLE * sum {
            break;
        }
        j += 1;
        w = w_next;
    }
    let (mut j, mut w) = (start, w_start);
    while j > 0 {
        w *= j as f64 / mu;
        j -= 1;
        let term = w * q(j);
        sum += term;
        let r = j as f64 / mu;
        if term == 0.0 || term * r / (1.0 - r) <= NEGLIGIBLE * sum {
            break;
        }
    }
    sum.min(1.0)
}

/// The non-centrality `λ` at which a chi-square test with `df` degrees of freedom and level
/// `alpha` has power `power`: the root of
/// ```text
/// P(X > c_α) = power,   X ~ χ²(df, λ),   c_α = chi_square_critical(df, alpha)
/// ```
/// found by bisection on [`noncentral_chi_square_sf`], which increases with `λ`, to a
/// relative width of 1e-14. For a goodness-of-fit test with cell probabilities `p_i` and
/// `N` observations, an alternative `p_i'` gives `λ = N Σ (p_i' − p_i)² / p_i`, so the
/// detectable effect at sample size `N` follows from this `λ`.
///
/// # Panics
/// Unless `0 < alpha < power < 1`, or if `df` is not positive and finite.
pub fn noncentrality_for_power(df: f64, alpha: f64, power: f64) -> f64 {
    assert!(
        0.0 < alpha && alpha < power && power < 1.0,
        "need 0 < alpha < power < 1, got alpha = {alpha}, power = {power}"
    );
    let critical = chi_square_critical(df, alpha);
    let power_at = |lambda: f64| noncentral_chi_square_sf(critical, df, lambda);
    let (mut lo, mut hi) = (0.0, 1.0);
    while power_at(hi) < power {
        lo = hi;
        hi *= 2.0;
    }
    while hi - lo > 1e-14 * hi {
        let mid = lo + (hi - lo) / 2.0;
        if power_at(mid) < power {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + (hi - lo) / 2.0
}

/// Sums the pmf from `start` towards `end` (either direction), away from the mode.
///
/// `ratio(j)` is `pmf(next) / pmf(j)`. Away from the mode of a binomial or Poisson the
/// ratios are below 1 and shrink at every step, so after a term `t` with ratio `r` the
/// rest is at most `t·r/(1−r)`; the sum stops once that bound is below half an ulp of the
/// sum (or at `end`, or when the terms underflow). The ratio recurrence is re-anchored on
/// the directly computed pmf every 1024 steps so that rounding cannot accumulate.
///
/// Cost: from a `start` near the mode, about 9 standard deviations of terms (e.g. 1.4e6
/// for n = 1e12, p = 1/37); from the far tail, a handful.
fn tail_sum(start: u64, end: u64, pmf: impl Fn(u64) -> f64, ratio: impl Fn(u64) -> f64) -> f64 {
    let mut j = start;
    let mut term = pmf(j);
    let mut sum = 0.0;
    let mut steps = 0u32;
    loop {
        sum += term;
        if term == 0.0 || j == end {
            return sum;
        }
        let r = ratio(j);
        if r < 1.0 && term * r / (1.0 - r) <= NEGLIGIBLE * sum {
            return sum;
        }
        j = if end > start { j + 1 } else { j - 1 };
        steps += 1;
        term = if steps.is_multiple_of(1024) { pmf(j) } else { term * r };
    }
}

/// The Stirling-formula error `ln n! − (n + ½) ln n + n − ½ ln 2π` for n ≤ 15, from
/// mpmath (`STIRLING_ERROR` in `reference_values.py`; the tests check the two agree). The
/// n = 0 entry is unused (n = 0 is handled separately) and set to 0.
const STIRLING_ERROR: [f64; 16] = [
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
];

/// The error of Stirling's formula for `ln n!` (`δ(n)` in Loader 2000): a table up to 15,
/// then the asymptotic series `1/(12n) − 1/(360n³) + 1/(1260n⁵) − …`, truncated where the
/// next term is below about 1e-16 in absolute value (what matters, as `δ` enters an
/// exponent).
fn stirling_error(n: u64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n <= 15 {
        return STIRLING_ERROR[n as usize];
    }
    let n = n as f64;
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// The deviance `x ln(x/m) + m − x ≥ 0` (`bd0` in Loader 2000), given `diff = x − m`
/// computed by the caller to full relative precision.
///
/// Near `x = m` the direct formula cancels; there Loader's series in `v = (x−m)/(x+m)`,
/// `(x−m)v + 2x Σ_{j≥1} v^(2j+1)/(2j+1)`, is used, with only `diff` carrying the small
/// difference. (For the binomial, `diff` on the failure side is `np − k`, which is exact,
/// whereas `(n−k) − n(1−p)` would inherit the rounding of `1 − p`.)
fn deviance(x: f64, m: f64, diff: f64) -> f64 {
    if diff.abs() < 0.1 * (x + m) {
        let mut v = diff / (x + m);
        let mut s = diff * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let next = s + ej / f64::from(2 * j + 1);
            if next == s {
                break;
            }
            s = next;
        }
        s
    } else {
        x * (x / m).ln() - diff
    }
}

/// The binomial pmf `C(n, k) p^k (1−p)^(n−k)` in Loader's saddle-point form:
/// ```text
/// b(k; n, p) = √(n / (2π k (n−k))) · exp(δ(n) − δ(k) − δ(n−k) − D(k, np) − D(n−k, n(1−p)))
/// ```
/// with `δ` the Stirling error and `D` the `deviance`; every piece is small or computed
/// without cancellation, so the relative error is a few ulps times `|ln b|`.
pub fn binomial_pmf(k: u64, n: u64, p: f64) -> f64 {
    if k > n {
        return 0.0;
    }
    if p == 0.0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    if p == 1.0 {
        return if k == n { 1.0 } else { 0.0 };
    }
    let nf = n as f64;
    if k == 0 {
        // ln1p keeps the precision of a tiny p that 1 − p would round away.
        return (nf * (-p).ln_1p()).exp();
    }
    if k == n {
        return (nf * p.ln()).exp();
    }
    let kf = k as f64;
    let rest = (n - k) as f64;
    let np = nf * p;
    // k − np with a single rounding: `kf - np` would carry np's rounding error, up to
    // ulp(np), which the deviance amplifies by (k − np)/np (2e-12 at n = 1e9, p = 1/37).
    let diff = (-nf).mul_add(p, kf);
    let exponent = stirling_error(n)
        - stirling_error(k)
        - stirling_error(n - k)
        - deviance(kf, np, diff)
        - deviance(rest, nf - np, -diff);
    let ln_scale = LN_2PI + kf.ln() + (-kf / nf).ln_1p();
    (exponent - 0.5 * ln_scale).exp()
}

/// The Poisson pmf `e^−λ λ^k / k!` in the same form:
/// `(2πk)^(−½) exp(−δ(k) − D(k, λ))`.
pub(crate) fn poisson_pmf(k: u64, lambda: f64) -> f64 {
    if lambda == 0.0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    if k == 0 {
        return (-lambda).exp();
    }
    let kf = k as f64;
    (-stirling_error(k) - deviance(kf, lambda, kf - lambda) - 0.5 * (LN_2PI + kf.ln())).exp()
}

#[cfg(test)]
mod tests {
    /// The smallest p-value stated is the smallest over every count, at every size from
    /// none to 60 trials and chances even, rare and lopsided.
    #[test]
    fn the_binomial_tests_smallest_p_value_is_the_smallest_any_count_gives() {
        for p in [0.5, 1.0 / 37.0, 2.0 / 38.0, 0.3, 0.9] {
            for n in 0..=60u64 {
                let seen = (0..=n).map(|k| binomial_two_sided(k, n, p)).fold(f64::INFINITY, f64::min);
                let stated = binomial_two_sided_smallest(n, p);
                assert!((stated - seen).abs() <= 1e-12 * seen, "n {n} p {p}: {stated} vs {seen}");
            }
        }
        // Three fair coin flips cannot reach 0.01; eight can.
        assert!((binomial_two_sided_smallest(3, 0.5) - 0.25).abs() < 1e-12);
        assert!(binomial_two_sided_smallest(8, 0.5) < 0.01);
    }

    use super::*;
    use crate::stats::reference_values as reference;

    /// Asserts `got` is within `bound` relative error of `want`, and returns the error.
    fn relative(got: f64, want: f64, bound: f64, what: &str) -> f64 {
        let err = if want == 0.0 { got.abs() } else { ((got - want) / want).abs() };
        assert!(err <= bound, "{what}: got {got:e}, want {want:e}, relative error {err:e}");
        err
    }

    #[test]
    fn stirling_table_matches_mpmath() {
        // The table for n <= 15 and every branch of the series beyond it. Absolute error,
        // since δ(n) is added into an exponent.
        for &(n, want) in reference::STIRLING_ERROR {
            let err = (stirling_error(n) - want).abs();
            assert!(err < 2e-16, "stirling_error({n}): {err:e}");
        }
    }

    #[test]
    fn chi_square_sf_matches_mpmath_down_to_1e_300() {
        let mut worst = 0.0f64;
        for &(x, df, want) in reference::CHI_SQUARE_SF {
            let err = relative(chi_square_sf(x, df), want, 1e-12, &format!("chi2 sf({x}, {df})"));
            worst = worst.max(err);
        }
        assert!(worst > 0.0);
    }

    #[test]
    fn chi_square_sf_below_the_double_range_is_tiny_or_zero() {
        // Pinned statrs behaviour behind PValue's "< 1e-300": subnormal (imprecise) values,
        // then exactly 0 once the prefactor underflows; never a spurious larger value.
        for &(x, df, want) in reference::CHI_SQUARE_SF_BEYOND_DOUBLES {
            let got = chi_square_sf(x, df);
            assert!(got < 1e-300, "chi2 sf({x}, {df}) = {got:e}, true {want:e}");
            if want < 1e-325 {
                assert_eq!(got, 0.0);
            }
        }
    }

    #[test]
    fn chi_square_critical_matches_mpmath() {
        for &(df, alpha, want) in reference::CHI_SQUARE_CRITICAL {
            let got = chi_square_critical(df, alpha);
            relative(got, want, 1e-12, &format!("chi2 critical({df}, {alpha})"));
        }
    }

    #[test]
    fn normal_sf_matches_mpmath() {
        for &(z, want) in reference::NORMAL_SF {
            relative(normal_sf(z), want, 2e-13, &format!("normal sf({z})"));
            if z >= 0.0 {
                relative(normal_two_sided(-z), (2.0 * want).min(1.0), 2e-13, "two-sided");
            }
        }
    }

    #[test]
    fn statrs_erfc_is_only_good_to_about_1e_10() {
        // Why normal_sf uses libm: the same formula with statrs' erfc misses the references
        // by far more than rounding explains.
        let statrs_worst = reference::NORMAL_SF
            .iter()
            .map(|&(z, want)| {
                (0.5 * statrs::function::erf::erfc(z / std::f64::consts::SQRT_2) - want).abs() / want
            })
            .fold(0.0, f64::max);
        assert!(statrs_worst > 1e-11, "statrs worst {statrs_worst:e}");
    }

    #[test]
    fn binomial_tails_match_mpmath() {
        for &(k, n, p, at_least, at_most, two) in reference::BINOMIAL_TAILS {
            let what = format!("k = {k}, n = {n}, p = {p}");
            relative(binomial_at_least(k, n, p), at_least, 1e-12, &format!("P(X >= k), {what}"));
            relative(binomial_at_most(k, n, p), at_most, 1e-12, &format!("P(X <= k), {what}"));
            relative(binomial_two_sided(k, n, p), two, 1e-12, &format!("two-sided, {what}"));
        }
    }

    #[test]
    fn statrs_binomial_sf_is_wrong_for_large_n() {
        // Why binomial_at_least exists: statrs 0.19's Binomial::sf(k − 1) = P(X >= k)
        // comes from beta_reg, whose prefactor cancels ln-gammas of size n ln n.
        use statrs::distribution::{Binomial, DiscreteCDF};
        let case = |k: u64, n: u64, p: f64| {
            let &(.., want, _, _) = reference::BINOMIAL_TAILS
                .iter()
                .find(|row| row.0 == k && row.1 == n && row.2 == p)
                .expect("case in the reference table");
            let statrs = Binomial::new(p, n).unwrap().sf(k - 1);
            (((statrs - want) / want).abs(), ((binomial_at_least(k, n, p) - want) / want).abs())
        };
        let (statrs_err, our_err) = case(300, 1_000_000_000_000, 1e-10);
        assert!(statrs_err > 1e-3, "statrs error {statrs_err:e}");
        assert!(our_err < 1e-12);
        let (statrs_err, our_err) = case(10, 1_000_000_000, 1.6e-9);
        assert!(statrs_err > 1e-6, "statrs error {statrs_err:e}");
        assert!(our_err < 1e-12);
    }

    #[test]
    fn poisson_tails_match_mpmath() {
        for &(k, lambda, at_least, at_most, two) in reference::POISSON_TAILS {
            let what = format!("k = {k}, lambda = {lambda}");
            relative(poisson_at_least(k, lambda), at_least, 1e-12, &format!("P(X >= k), {what}"));
            relative(poisson_at_most(k, lambda), at_most, 1e-12, &format!("P(X <= k), {what}"));
            relative(poisson_two_sided(k, lambda), two, 1e-12, &format!("two-sided, {what}"));
        }
    }

    #[test]
    fn degenerate_parameters_give_exact_answers() {
        assert_eq!(binomial_at_least(0, 10, 0.3), 1.0);
        assert_eq!(binomial_at_least(11, 10, 0.3), 0.0);
        assert_eq!(binomial_at_least(1, 10, 0.0), 0.0);
        assert_eq!(binomial_at_most(9, 10, 1.0), 0.0);
        assert_eq!(binomial_at_least(10, 10, 1.0), 1.0);
        assert_eq!(poisson_at_least(1, 0.0), 0.0);
        assert_eq!(poisson_at_most(0, 0.0), 1.0);
        assert_eq!(binomial_two_sided(5, 10, 0.5), 1.0);
    }

    #[test]
    fn far_tails_underflow_quickly_instead_of_looping() {
        // k far beyond the mean: the first term underflows and the sum stops at once.
        assert_eq!(binomial_at_least(100_000_000_000, 1_000_000_000_000, 1e-10), 0.0);
        assert_eq!(poisson_at_least(1 << 40, 5.0), 0.0);
    }

    #[test]
    fn hypergeometric_pmf_matches_mpmath() {
        for &(k, big_n, big_k, n, want) in reference::HYPERGEOMETRIC_PMF {
            let got = hypergeometric_pmf(k, big_n, big_k, n);
            relative(got, want, 1e-13, &format!("hypergeometric({k}; {big_n}, {big_k}, {n})"));
        }
    }

    #[test]
    fn hypergeometric_pmf_sums_to_one() {
        for (big_n, big_k, n) in
            [(40, 10, 10), (40, 1, 10), (40, 20, 20), (40, 40, 10), (1_000_000, 1000, 5000)]
        {
            let total: f64 = (0..=n).map(|k| hypergeometric_pmf(k, big_n, big_k, n)).sum();
            assert!((total - 1.0).abs() < 1e-12, "({big_n}, {big_k}, {n}) sums to {total}");
        }
    }

    #[test]
    fn noncentral_chi_square_sf_matches_mpmath() {
        for &(x, df, lambda, want) in reference::NONCENTRAL_CHI_SQUARE_SF {
            let got = noncentral_chi_square_sf(x, df, lambda);
            relative(got, want, 1e-12, &format!("ncx2 sf({x}, {df}, {lambda})"));
        }
    }

    #[test]
    fn noncentrality_for_power_matches_mpmath() {
        for &(df, alpha, power, want) in reference::NONCENTRALITY_FOR_POWER {
            let got = noncentrality_for_power(df, alpha, power);
            relative(got, want, 1e-10, &format!("lambda({df}, {alpha}, {power})"));
        }
        // df = 1 is a two-sided z-test: λ ≈ (z_{α/2} + z_{power})² = (1.95996 + 0.84162)².
        let lambda = noncentrality_for_power(1.0, 0.05, 0.8);
        assert!((lambda - 7.8489).abs() < 1e-3, "{lambda}");
    }

    #[test]
    fn runs_of_ones_match_every_arrangement_counted() {
        // n = 12: every one of the 4,096 sequences, its runs of ones counted.
        const N: u32 = 12;
        let mut counts = vec![vec![0u64; 8]; N as usize + 1];
        for bits in 0u32..1 << N {
            let ones = bits.count_ones() as usize;
            let runs = (0..N).filter(|&i| bits >> i & 1 == 1 && (i == 0 || bits >> (i - 1) & 1 == 0)).count();
            counts[ones][runs] += 1;
        }
        for (ones, by_runs) in counts.iter().enumerate() {
            let total: u64 = by_runs.iter().sum();
            for (runs, &count) in by_runs.iter().enumerate().filter(|(_, &c)| c > 0) {
                let below: u64 = by_runs[..runs].iter().sum();
                let above: u64 = by_runs[runs + 1..].iter().sum();
                let tail = |beyond: u64| (beyond as f64 + count as f64 / 2.0) / total as f64;
                let expected = (2.0 * tail(below).min(tail(above))).min(1.0);
                let p = runs_of_ones_mid_p(runs as u64, ones as u64, u64::from(N));
                assert!(
                    (p - expected).abs() < 1e-12,
                    "{ones} ones, {runs} runs ({count}): {p} vs {expected}"
                );
            }
        }
        // Large n: the mean of R is ones (n - ones + 1) / n, where p is near 1.
        let (ones, n) = (99_010u64, 10_000_000u64);
        let mean = (ones * (n - ones + 1)) as f64 / n as f64;
        assert!(runs_of_ones_mid_p(mean.round() as u64, ones, n) > 0.9);
        assert!(runs_of_ones_mid_p((mean * 0.99) as u64, ones, n) < 1e-6);
        assert!(runs_of_ones_mid_p((mean * 1.002) as u64, ones, n) < 1e-6);
    }
}
