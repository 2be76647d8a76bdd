//! Is a sample Uniform(0, 1)? The second-level tests of the battery: a fair game turns
//! every first-level test's p-value into a Uniform(0, 1) draw, so a set of p-values that
//! is not uniform betrays a bias no single test flagged.
//!
//! * [`kolmogorov_smirnov`]: largest gap between the empirical and the uniform cdf;
//!   p-value exact or very accurate for every `n` (see [`kolmogorov_smirnov_sf`]).
//! * [`anderson_darling`]: the same gap weighted towards the tails; p-value from
//!   Marsaglia & Marsaglia (2004), good to about 1e-5 absolute.
//! * [`proportion_passing`]: NIST SP 800-22 §4.2.1, the share of p-values at or above
//!   `alpha` against its 3-sigma band.
//!
//! All three assume a *continuous* null distribution. p-values of discrete tests (exact
//! binomial tests on small counts, two-sided p-values capped at 1) are not uniform even
//! for a fair game and must not be fed in unmodified: a single p-value of exactly 0 or 1
//! makes the Anderson–Darling statistic infinite.

use super::distributions::binomial_pmf;

/// Why a sample cannot be tested.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UniformityError {
    /// No values at all.
    #[error("the sample is empty")]
    Empty,
    /// A value outside [0, 1], or NaN.
    #[error("value {value} at index {index} is not in [0, 1]")]
    OutOfRange {
        /// Position in the input.
        index: usize,
        /// The offending value.
        value: f64,
    },
}

/// A test statistic and its p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TestResult {
    /// The statistic (`D_n` or `A²`).
    pub statistic: f64,
    /// Probability, under uniformity, of a statistic at least this large.
    pub p_value: f64,
}

fn check_unit_values(values: &[f64]) -> Result<(), UniformityError> {
    if values.is_empty() {
        return Err(UniformityError::Empty);
    }
    match values.iter().enumerate().find(|(_, v)| !(0.0..=1.0).contains(*v)) {
        Some((index, &value)) => Err(UniformityError::OutOfRange { index, value }),
        None => Ok(()),
    }
}

fn sorted_unit_values(sample: &[f64]) -> Result<Vec<f64>, UniformityError> {
    check_unit_values(sample)?;
    let mut sorted = sample.to_vec();
    sorted.sort_by(f64::total_cmp);
    Ok(sorted)
}

/// One-sample Kolmogorov–Smirnov test of `sample` against Uniform(0, 1).
///
/// # Statistic
/// ```text
/// D_n = sup_x |F_n(x) − x| = max_i max(i/n − u_(i), u_(i) − (i−1)/n)
/// ```
/// over the sorted sample `u_(1) ≤ … ≤ u_(n)`; the p-value is [`kolmogorov_smirnov_sf`].
///
/// # Errors
/// If the sample is empty or has a value outside [0, 1].
pub fn kolmogorov_smirnov(sample: &[f64]) -> Result<TestResult, UniformityError> {
    let sorted = sorted_unit_values(sample)?;
    let n = sorted.len() as f64;
    let statistic = sorted
        .iter()
        .enumerate()
        .map(|(i, &u)| ((i + 1) as f64 / n - u).max(u - i as f64 / n))
        .fold(0.0, f64::max);
    Ok(TestResult { statistic, p_value: kolmogorov_smirnov_sf(sorted.len() as u64, statistic) })
}

/// `P(D_n ≥ d)` for the two-sided one-sample Kolmogorov–Smirnov statistic of `n` iid
/// Uniform(0, 1) values: the distribution is the same for any continuous null.
///
/// # Method (after Simard & L'Ecuyer 2011), with `w = n d²`
/// * `n d ≤ ½`: exactly 1; `d ≥ 1`: exactly 0.
/// * `d ≥ ½` or `w ≥ 4` (p below ~7e-4): `2 P(D_n⁺ ≥ d)` with the exact one-sided
///   Smirnov–Birnbaum–Tingey sum
///   `P(D_n⁺ ≥ d) = d Σ_{j=0}^{⌊n(1−d)⌋} C(n,j) (d + j/n)^(j−1) (1 − d − j/n)^(n−j)`,
///   whose terms (binomial pmfs divided by `d + j/n`) are all positive, so it keeps full
///   relative accuracy down to 1e-300. `P(D_n ≥ d) = 2P(D_n⁺ ≥ d) − P(D_n⁺ ≥ d, D_n⁻ ≥ d)`
///   and the joint term is 0 for `d ≥ ½` and about `e^(−6w)` ≤ 4e-11 of the total for
///   `w ≥ 4` (measured against exact values: at most 3e-11 relative, at w = 4). Cost O(n)
///   binomial pmfs (0.1 s for n = 1e6).
/// * otherwise, `n ≤ 1000`: `1 − P(D_n < d)` with Durbin's matrix as in Marsaglia, Tsang &
///   Wang (2003): `P(D_n < d) = n!/n^n (H^n)_{kk}`, `k = ⌊nd⌋ + 1`, `H` of order
///   `2k − 1 ≤ 127`. Exact up to rounding (measured: at most 1.4e-11 relative).
/// * otherwise (`n > 1000`, `w < 4`): `1 − ` the Pelz–Good (1976) asymptotic expansion of
///   the cdf to order `n^(−3/2)`, whose error shrinks like `n^(−2)` (measured against
///   exact values at n = 1001 and 5000: at most 7e-8 absolute, 9e-7 relative).
///
/// # Panics
/// If `n` is 0 or `d` is NaN.
pub fn kolmogorov_smirnov_sf(n: u64, d: f64) -> f64 {
    assert!(n > 0, "Kolmogorov-Smirnov needs n > 0");
    assert!(!d.is_nan(), "Kolmogorov-Smirnov statistic is NaN");
    let nf = n as f64;
    if d >= 1.0 {
        return 0.0;
    }
    if nf * d <= 0.5 {
        return 1.0;
    }
    let w = nf * d * d;
    let p = if d >= 0.5 || w >= 4.0 {
        2.0 * smirnov_sf(n, d)
    } else if n <= 1000 {
        1.0 - durbin_cdf(n, d)
    } else {
        1.0 - pelz_good_cdf(n, d)
    };
    p.clamp(0.0, 1.0)
}

/// `P(D_n⁺ ≥ d)`, the exact one-sided Smirnov–Birnbaum–Tingey sum (see
/// [`kolmogorov_smirnov_sf`]): term `j` is `b(j; n, x_j) / x_j` with `x_j = d + j/n` and
/// `b` the binomial pmf.
fn smirnov_sf(n: u64, d: f64) -> f64 {
    let nf = n as f64;
    let last = ((nf * (1.0 - d)).floor() as u64).min(n);
    let mut sum = 0.0;
    for j in 0..=last {
        let x = d + j as f64 / nf;
        if x >= 1.0 {
            break;
        }
        sum += binomial_pmf(j, n, x) / x;
    }
    d * sum
}

/// `P(D_n < d)` by Durbin's matrix method as organised by Marsaglia, Tsang & Wang (2003).
///
/// With `k = ⌊nd⌋ + 1`, `h = k − nd ∈ (0, 1]` and `m = 2k − 1`, `H` is the `m × m` matrix
/// with `H_ij = 1/(i − j + 1)!` for `i − j + 1 ≥ 0` (else 0), except that the first column
/// and the last row lose `h^r / r!` (`r` = the distance from the far corner, 1..m), and the
/// bottom-left corner gains `(2h − 1)^m / m!` when `2h > 1`. Then
/// `P(D_n < d) = n!/n^n · (H^n)_{k,k}`. Powers of `H` grow like `e^n`, so they are kept as
/// a matrix times a power of two (exact rescaling) and `n!/n^n` is applied step by step.
fn durbin_cdf(n: u64, d: f64) -> f64 {
    let nf = n as f64;
    let nd = nf * d;
    let k = nd.floor() as usize + 1;
    let h = k as f64 - nd;
    let m = 2 * k - 1;
    let mut inv_factorial = vec![1.0; m + 1];
    for i in 1..=m {
        inv_factorial[i] = inv_factorial[i - 1] / i as f64;
    }
    let mut matrix = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=(i + 1).min(m - 1) {
            matrix[i * m + j] = inv_factorial[i + 1 - j];
        }
    }
    let mut h_power = 1.0;
    for r in 1..=m {
        h_power *= h;
        matrix[(r - 1) * m] -= h_power * inv_factorial[r];
        matrix[(m - 1) * m + (m - r)] -= h_power * inv_factorial[r];
    }
    if 2.0 * h > 1.0 {
        matrix[(m - 1) * m] += (2.0 * h - 1.0).powi(m as i32) * inv_factorial[m];
    }
    let (power, mut exponent) = matrix_power(&matrix, m, n);
    let mut value = power[(k - 1) * m + (k - 1)];
    for i in 1..=n {
        value *= i as f64 / nf;
        if value < RESCALE_DOWN {
            value *= RESCALE_UP;
            exponent -= RESCALE_BITS;
        }
    }
    times_power_of_two(value, exponent)
}

const RESCALE_BITS: i64 = 256;
/// 2^256 and 2^-256: scaling by them is exact.
const RESCALE_UP: f64 = 1.157_920_892_373_162e77;
const RESCALE_DOWN: f64 = 8.636_168_555_094_445e-78;

/// `a^n` for an `m × m` row-major matrix, as `(matrix, e)` meaning `matrix · 2^e`.
fn matrix_power(a: &[f64], m: usize, mut n: u64) -> (Vec<f64>, i64) {
    let multiply = |x: &[f64], y: &[f64]| {
        let mut out = vec![0.0; m * m];
        for i in 0..m {
            for l in 0..m {
                let xil = x[i * m + l];
                if xil != 0.0 {
                    for j in 0..m {
                        out[i * m + j] += xil * y[l * m + j];
                    }
                }
            }
        }
        out
    };
    let rescale = |x: &mut Vec<f64>, e: &mut i64| {
        if x.iter().fold(0.0f64, |mx, v| mx.max(v.abs())) > RESCALE_UP {
            x.iter_mut().for_each(|v| *v *= RESCALE_DOWN);
            *e += RESCALE_BITS;
        }
    };
    let mut result: Vec<f64> = (0..m * m).map(|i| if i % (m + 1) == 0 { 1.0 } else { 0.0 }).collect();
    let (mut result_exp, mut base, mut base_exp) = (0i64, a.to_vec(), 0i64);
    while n > 0 {
        if n & 1 == 1 {
            result = multiply(&result, &base);
            result_exp += base_exp;
            rescale(&mut result, &mut result_exp);
        }
        n >>= 1;
        if n > 0 {
            base = multiply(&base, &base);
            base_exp *= 2;
            rescale(&mut base, &mut base_exp);
        }
    }
    (result, result_exp)
}

/// `x · 2^e`, in steps that cannot overflow the intermediate.
fn times_power_of_two(mut x: f64, mut e: i64) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e as i32)
}

/// The Pelz–Good (1976) expansion of `P(D_n ≤ d)`, `z = d√n`:
/// ```text
/// P(D_n ≤ d) ≈ K0(z) + K1(z)/√n + K2(z)/n + K3(z)/n^(3/2)
/// ```
/// where, with `m` over the odd integers, `e_m = exp(−m²π²/(8z²))`, `f_k = exp(−k²π²/(2z²))`,
/// `u = π²m²/4`, and `c = √(2π)`:
/// ```text
/// K0 = c/z Σ e_m
/// K1 = c/(6z⁴) Σ (u − z²) e_m
/// K2 = c/(72z⁷) Σ (6z⁶ + 2z⁴ + u(2z⁴ − 5z²) + u²(1 − 2z²)) e_m − π²c/(36z³) Σ_k k² f_k
/// K3 = c/(6480z¹⁰) Σ (u³(5 − 30z²) + u²(212z⁴ − 60z²) + u(135z⁴ − 96z⁶) − 30z⁶ − 90z⁸) e_m
///      + π²c/(216z⁶) Σ_k (3z² − π²k²) k² f_k
/// ```
/// (the Li-Chien/Korolyuk series, transformed with Jacobi's theta identity so that it
/// converges fast for the small `z` where it is used).
fn pelz_good_cdf(n: u64, d: f64) -> f64 {
    use std::f64::consts::PI;
    let c = (2.0 * PI).sqrt();
    let nf = n as f64;
    let z = d * nf.sqrt();
    let (z2, z4, z6) = (z * z, z.powi(4), z.powi(6));
    let pi2 = PI * PI;
    let (mut s0, mut s1, mut s2, mut s3) = (0.0, 0.0, 0.0, 0.0);
    for m in (1..).step_by(2) {
        let mf = f64::from(m);
        let decay = mf * mf * pi2 / (8.0 * z2);
        // e^-90 times the largest polynomial factor (~1e12 here) is far below 1e-16 of e_1.
        if decay - pi2 / (8.0 * z2) > 90.0 {
            break;
        }
        let e = (-decay).exp();
        let u = pi2 * mf * mf / 4.0;
        s0 += e;
        s1 += (u - z2) * e;
        s2 += (6.0 * z6 + 2.0 * z4 + u * (2.0 * z4 - 5.0 * z2) + u * u * (1.0 - 2.0 * z2)) * e;
        s3 +=
            (u * u * u * (5.0 - 30.0 * z2) + u * u * (212.0 * z4 - 60.0 * z2) + u * (135.0 * z4 - 96.0 * z6)
                - 30.0 * z6
                - 90.0 * z6 * z2)
                * e;
    }
    let (mut t2, mut t3) = (0.0, 0.0);
    for k in 1.. {
        let kf = f64::from(k);
        let decay = kf * kf * pi2 / (2.0 * z2);
        if decay - pi2 / (2.0 * z2) > 90.0 {
            break;
        }
        let f = (-decay).exp();
        t2 += kf * kf * f;
        t3 += (3.0 * z2 - pi2 * kf * kf) * kf * kf * f;
    }
    let k0 = c / z * s0;
    let k1 = c / (6.0 * z4) * s1;
    let k2 = c / (72.0 * z6 * z) * s2 - pi2 * c / (36.0 * z2 * z) * t2;
    let k3 = c / (6480.0 * z6 * z4) * s3 + pi2 * c / (216.0 * z6) * t3;
    k0 + k1 / nf.sqrt() + k2 / nf + k3 / (nf * nf.sqrt())
}

/// Anderson–Darling test of `sample` against Uniform(0, 1).
///
/// # Statistic
/// ```text
/// A² = −n − (1/n) Σ_{i=1}^{n} (2i − 1) [ln u_(i) + ln(1 − u_(n+1−i))]
/// ```
/// over the sorted sample; the p-value is [`anderson_darling_sf`]. A value of exactly 0 or
/// 1 makes `A²` infinite and the p-value 0 (such a value has probability 0 under the null).
///
/// # Errors
/// If the sample is empty or has a value outside [0, 1].
pub fn anderson_darling(sample: &[f64]) -> Result<TestResult, UniformityError> {
    let sorted = sorted_unit_values(sample)?;
    let n = sorted.len();
    let sum: f64 = (0..n).map(|i| (2 * i + 1) as f64 * (sorted[i].ln() + (-sorted[n - 1 - i]).ln_1p())).sum();
    let statistic = -(n as f64) - sum / n as f64;
    Ok(TestResult { statistic, p_value: anderson_darling_sf(n as u64, statistic) })
}

/// `P(A² ≥ a2)` for the Anderson–Darling statistic of `n` iid Uniform(0, 1) values,
/// following Marsaglia & Marsaglia, *Evaluating the Anderson–Darling distribution*
/// (J. Stat. Software 9(2), 2004).
///
/// # Formula
/// ```text
/// P(A² ≥ a2) = 1 − x − errfix(n, x),   x = ADinf(a2) = lim_{n→∞} P(A² < a2)
/// ```
/// `ADinf` is their full series (about 15 digits; tests: below 1e-13 absolute against
/// mpmath), not the quick `adinf` fit, which we measured to be off by up to 2e-5 (its
/// comment claims 2e-6). `errfix` is their fitted finite-`n` correction, "off at the 5th,
/// rarely at the 4th, digit" for `n ≥ 7` (3 digits for smaller `n`): so these p-values are
/// good to about 1e-5 *absolute*. In particular the fit does not vanish as `x → 1`
/// (`errfix(n, 1) ≈ −6e-4/n`), so for finite `A²` the p-value never drops below about
/// `6e-4/n`: decide far-tail questions with [`kolmogorov_smirnov`] or a chi-square test.
/// An infinite `A²` gives exactly 0.
///
/// # Panics
/// If `n` is 0 or `a2` is NaN.
pub fn anderson_darling_sf(n: u64, a2: f64) -> f64 {
    assert!(n > 0, "Anderson-Darling needs n > 0");
    assert!(!a2.is_nan(), "Anderson-Darling statistic is NaN");
    if a2 == f64::INFINITY {
        return 0.0;
    }
    let x = anderson_darling_asymptotic_cdf(a2);
    ((1.0 - x) - anderson_darling_errfix(n as f64, x)).clamp(0.0, 1.0)
}

/// The limiting distribution `P(A² < z)` as `n → ∞` (Anderson & Darling 1954):
/// ```text
/// ADinf(z) = (1/z) Σ_{j≥0} C(−½, j) (4j+1) f_j(z),
/// f_j(z) = √(2π) e^(−t) ∫_0^∞ exp(z / (8(w² + 1)) − t w²) dw,   t = (4j+1)² π² / (8z)
/// ```
/// Expanding `exp(z/(8(w²+1)))` in powers of `z/8`, `f_j = Σ_i c_i (z/8)^i / i!` with
/// `c_i = √(2π) e^(−t) ∫ (1+w²)^(−i) e^(−t w²) dw`, which obey
/// `c_{i+1} = ((i − ½ − t) c_i + t c_{i−1}) / i` from `c_0 = (π/√2) e^(−t)/√t` and
/// `c_1 = (π^(3/2)/√2) erfc(√t)` (Marsaglia & Marsaglia 2004).
fn anderson_darling_asymptotic_cdf(z: f64) -> f64 {
    // ADinf(0.01) ≈ 5e-53: below that, 0 avoids exponent limits.
    if z < 0.01 {
        return 0.0;
    }
    let mut coefficient = 1.0 / z;
    let mut sum = coefficient * anderson_darling_term(z, 0);
    for j in 1..100 {
        coefficient *= (0.5 - f64::from(j)) / f64::from(j);
        let next = sum + f64::from(4 * j + 1) * coefficient * anderson_darling_term(z, j);
        if next == sum {
            break;
        }
        sum = next;
    }
    sum
}

/// `f_j(z)` of [`anderson_darling_asymptotic_cdf`].
fn anderson_darling_term(z: f64, j: u32) -> f64 {
    use std::f64::consts::{PI, SQRT_2};
    let t = f64::from((4 * j + 1) * (4 * j + 1)) * PI * PI / (8.0 * z);
    if t > 150.0 {
        return 0.0;
    }
    let mut previous = PI / SQRT_2 * (-t).exp() / t.sqrt();
    let mut current = PI * PI.sqrt() / SQRT_2 * libm::erfc(t.sqrt());
    let mut power = z / 8.0;
    let mut sum = previous + current * power;
    for i in 1..200 {
        let fi = f64::from(i);
        let next = ((fi - 0.5 - t) * current + t * previous) / fi;
        previous = current;
        current = next;
        power *= z / (8.0 * fi + 8.0);
        if power.abs() < 1e-40 || next.abs() < 1e-40 {
            break;
        }
        let updated = sum + next * power;
        if updated == sum {
            break;
        }
        sum = updated;
    }
    sum
}

/// Marsaglia & Marsaglia's fitted correction `P_n(A² < z) − ADinf(z)` as a function of
/// `x = ADinf(z)`: three polynomial pieces in `x`, each scaled by powers of `1/n`.
fn anderson_darling_errfix(n: f64, x: f64) -> f64 {
    if x > 0.8 {
        return (-130.2137
            + (745.2337 - (1705.091 - (1950.646 - (1116.360 - 255.7844 * x) * x) * x) * x) * x)
            / n;
    }
    let c = 0.01265 + 0.1757 / n;
    if x < c {
        let t = x / c;
        let t = t.sqrt() * (1.0 - t) * (49.0 * t - 102.0);
        return t * (0.0037 / (n * n) + 0.00078 / n + 0.00006) / n;
    }
    let t = (x - c) / (0.8 - c);
    let t = -0.00022633 + (6.54034 - (14.6538 - (14.458 - (8.259 - 1.91864 * t) * t) * t) * t) * t;
    t * (0.04213 + 0.01365 / n) / n
}

/// The NIST SP 800-22 (§4.2.1) proportion check: how many p-values pass (`p ≥ alpha`), and
/// whether that share lies in the band the binomial null allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProportionCheck {
    /// p-values at or above `alpha`.
    pub passed: usize,
    /// All p-values.
    pub total: usize,
    /// `passed / total`.
    pub proportion: f64,
    /// Lower end of the acceptable band.
    pub lower: f64,
    /// Upper end of the acceptable band (may exceed 1, as in NIST's own tables).
    pub upper: f64,
}

impl ProportionCheck {
    /// Whether the observed proportion lies in `[lower, upper]`.
    pub fn within(&self) -> bool {
        self.lower <= self.proportion && self.proportion <= self.upper
    }
}

/// Counts the p-values at or above `alpha` and computes NIST's acceptable band.
///
/// # Formula
/// Under the null, each p-value passes with probability `p̂ = 1 − α`, so the count of
/// passes is Binomial(m, p̂) and the band is its normal-approximation 3-sigma interval:
/// ```text
/// p̂ ± 3 √(p̂ (1 − p̂) / m),   p̂ = 1 − α
/// ```
/// (for m = 1000 and α = 0.01: 0.99 ± 0.0094392, as in SP 800-22).
///
/// # Errors
/// If `p_values` is empty or has a value outside [0, 1].
///
/// # Panics
/// If `alpha` is not in (0, 1).
pub fn proportion_passing(p_values: &[f64], alpha: f64) -> Result<ProportionCheck, UniformityError> {
    assert!(alpha > 0.0 && alpha < 1.0, "alpha must be in (0, 1), got {alpha}");
    check_unit_values(p_values)?;
    let total = p_values.len();
    let passed = p_values.iter().filter(|&&p| p >= alpha).count();
    let expected = 1.0 - alpha;
    let half_width = 3.0 * (expected * alpha / total as f64).sqrt();
    Ok(ProportionCheck {
        passed,
        total,
        proportion: passed as f64 / total as f64,
        lower: expected - half_width,
        upper: expected + half_width,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::reference_values as reference;

    /// SplitMix64: a simple, fixed generator so the calibration tests are deterministic.
    struct SplitMix(u64);

    impl SplitMix {
        fn next_unit(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            // 53 random bits, shifted off 0 so that ln u is finite.
            ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }

        fn sample(&mut self, n: usize) -> Vec<f64> {
            (0..n).map(|_| self.next_unit()).collect()
        }
    }

    #[test]
    fn ks_sf_matches_exact_values() {
        for &(n, d, want, _) in reference::KOLMOGOROV_SMIRNOV_SF {
            let got = kolmogorov_smirnov_sf(n, d);
            let w = n as f64 * d * d;
            let err = ((got - want) / want).abs();
            let pelz_good = n > 1000 && w < 4.0 && d < 0.5;
            let bound = if pelz_good { 2e-6 } else { 1e-10 };
            assert!(err <= bound, "n = {n}, d = {d}: got {got:e}, want {want:e}, error {err:e}");
            if pelz_good {
                assert!((got - want).abs() < 1e-7, "n = {n}, d = {d}: absolute error");
            }
        }
    }

    #[test]
    fn smirnov_one_sided_sum_matches_mpmath() {
        for &(n, d, _, want) in reference::KOLMOGOROV_SMIRNOV_SF {
            let got = smirnov_sf(n, d);
            assert!(((got - want) / want).abs() < 1e-12, "n = {n}, d = {d}: {got:e} vs {want:e}");
        }
    }

    #[test]
    fn ks_sf_closed_forms() {
        // n = 1: D = max(u, 1 − u), so P(D ≥ d) = 2(1 − d) for d ≥ ½.
        assert!((kolmogorov_smirnov_sf(1, 0.75) - 0.5).abs() < 1e-15);
        assert_eq!(kolmogorov_smirnov_sf(10, 0.05), 1.0);
        assert_eq!(kolmogorov_smirnov_sf(10, 1.0), 0.0);
    }

    #[test]
    fn ks_statistic_by_hand() {
        // Sorted 0.1, 0.4, 0.7: gaps i/n − u = 0.233, 0.267, 0.3; u − (i−1)/n = 0.1, 0.067, 0.033.
        let result = kolmogorov_smirnov(&[0.7, 0.1, 0.4]).unwrap();
        assert!((result.statistic - 0.3).abs() < 1e-15);
    }

    #[test]
    fn ad_asymptotic_matches_mpmath() {
        for &(z, cdf, sf) in reference::ANDERSON_DARLING_ASYMPTOTIC {
            let got = anderson_darling_asymptotic_cdf(z);
            assert!((got - cdf).abs() < 1e-13, "z = {z}: {got} vs {cdf}");
            assert!(((1.0 - got) - sf).abs() < 1e-13, "z = {z}: sf");
        }
    }

    #[test]
    fn ad_sf_for_one_value_is_rough() {
        // n = 1 is outside the range of the finite-n fit (Marsaglia & Marsaglia: "not
        // well-suited for n < 7"); pin how rough it is against the exact distribution.
        for &(z, want) in reference::ANDERSON_DARLING_N1_SF {
            let got = anderson_darling_sf(1, z);
            assert!((got - want).abs() < 0.05, "z = {z}: {got} vs {want}");
        }
    }

    #[test]
    fn ad_sf_for_ten_values_matches_simulation() {
        // No closed form for n = 10; a million simulated samples pin the tail
        // probabilities to about ±0.0003 (one standard error at p = 0.1).
        let mut rng = SplitMix(10);
        let trials = 1_000_000;
        let levels = [0.5, 1.0, 2.0, 3.0, 4.0];
        let mut above = [0u32; 5];
        for _ in 0..trials {
            let a2 = anderson_darling(&rng.sample(10)).unwrap().statistic;
            for (count, &z) in above.iter_mut().zip(&levels) {
                *count += u32::from(a2 >= z);
            }
        }
        for (&count, &z) in above.iter().zip(&levels) {
            let simulated = f64::from(count) / f64::from(trials);
            let se = (simulated * (1.0 - simulated) / f64::from(trials)).sqrt();
            let got = anderson_darling_sf(10, z);
            assert!((got - simulated).abs() < 4.0 * se + 1e-4, "z = {z}: {got} vs {simulated} ± {se}");
        }
    }

    #[test]
    fn ad_statistic_by_hand() {
        // n = 1, u = ½: A² = −1 − ln(¼) = 2 ln 2 − 1.
        let result = anderson_darling(&[0.5]).unwrap();
        assert!((result.statistic - (2.0 * std::f64::consts::LN_2 - 1.0)).abs() < 1e-15);
        assert_eq!(anderson_darling(&[0.5, 1.0]).unwrap().p_value, 0.0);
    }

    #[test]
    fn uniform_samples_give_uniform_p_values() {
        let mut rng = SplitMix(20_260_501);
        for n in [5, 50, 2000] {
            let (mut ks, mut ad) = (Vec::new(), Vec::new());
            for _ in 0..400 {
                let sample = rng.sample(n);
                ks.push(kolmogorov_smirnov(&sample).unwrap().p_value);
                ad.push(anderson_darling(&sample).unwrap().p_value);
            }
            for (name, p) in [("KS", &ks), ("AD", &ad)] {
                let mean = p.iter().sum::<f64>() / p.len() as f64;
                let small = p.iter().filter(|&&v| v < 0.05).count();
                // Mean of 400 uniforms: 0.5 ± 0.0144 (1 sd); 5 % of 400 = 20 ± 4.4.
                assert!((mean - 0.5).abs() < 0.06, "{name}, n = {n}: mean p = {mean}");
                assert!((5..=40).contains(&small), "{name}, n = {n}: {small} p-values below 0.05");
                // The p-values themselves must look uniform to the other test.
                assert!(kolmogorov_smirnov(p).unwrap().p_value > 1e-3, "{name}, n = {n}");
            }
        }
    }

    #[test]
    fn non_uniform_samples_give_tiny_p_values() {
        let mut rng = SplitMix(7);
        let skewed: Vec<f64> = rng.sample(500).iter().map(|u| u * u).collect();
        assert!(kolmogorov_smirnov(&skewed).unwrap().p_value < 1e-20);
        // The AD p-value bottoms out near 6e-4/n (see anderson_darling_sf).
        assert!(anderson_darling(&skewed).unwrap().p_value < 1e-5);
        let shifted: Vec<f64> = rng.sample(5000).iter().map(|u| 0.1 + 0.9 * u).collect();
        assert!(kolmogorov_smirnov(&shifted).unwrap().p_value < 1e-20);
    }

    #[test]
    fn bad_samples_are_errors() {
        assert_eq!(kolmogorov_smirnov(&[]), Err(UniformityError::Empty));
        assert_eq!(anderson_darling(&[0.5, 1.5]), Err(UniformityError::OutOfRange { index: 1, value: 1.5 }));
        assert!(matches!(proportion_passing(&[f64::NAN], 0.01), Err(UniformityError::OutOfRange { .. })));
    }

    #[test]
    fn proportion_band_matches_nist_example() {
        // SP 800-22 §4.2.1: m = 1000, α = 0.01 gives 0.99 ± 0.0094392.
        let mut p_values = vec![0.5; 1000];
        p_values[..12].iter_mut().for_each(|p| *p = 0.001);
        let check = proportion_passing(&p_values, 0.01).unwrap();
        assert_eq!((check.passed, check.total), (988, 1000));
        assert!((check.lower - 0.980_560_8).abs() < 1e-7 && (check.upper - 0.999_439_2).abs() < 1e-7);
        assert!(check.within());
        p_values[..25].iter_mut().for_each(|p| *p = 0.001);
        assert!(!proportion_passing(&p_values, 0.01).unwrap().within());
        // p = alpha passes.
        assert_eq!(proportion_passing(&[0.01], 0.01).unwrap().passed, 1);
    }
}
