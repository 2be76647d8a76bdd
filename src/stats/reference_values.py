#!/usr/bin/env python3
"""High-precision reference values for the tests in src/stats/.

Regenerate (from the repository root; needs only Python 3 and mpmath, tested with
mpmath 1.3.0; takes about a minute):

    python3 src/stats/reference_values.py > src/stats/reference_values.rs && cargo fmt

The output is a test-only Rust module of constant tables. Every value is computed at
60 significant digits and printed as the correctly rounded f64 (shortest round-trip
form), so a test's error is the routine's error, not the table's. Every *input* is an exactly representable f64 (integers, dyadic
fractions, or `float(...)` of a decimal, which is converted exactly with mpf(float)),
so the reference is the true value at exactly the argument the Rust code receives.

Methods are deliberately independent of the Rust code where possible (direct sums in
60-digit arithmetic instead of the saddle-point pmf; mpmath's incomplete gamma and
quadrature; exact closed forms). Where the only practical method is the same algorithm
(the Durbin/Marsaglia-Tsang-Wang matrix for Kolmogorov-Smirnov), it runs in exact
integer fixed-point arithmetic with 400 fraction bits instead of f64, and it is checked
against closed forms and the value published by Marsaglia, Tsang and Wang (2003).
"""

import sys
from fractions import Fraction

import mpmath as mp
from mpmath import mpf

mp.mp.dps = 60
INF = mp.inf


def r(x):
    """A reference value as a Rust f64 literal: the correctly rounded double, printed in
    the shortest form that parses back to it (values below 4.9e-324 become 0.0)."""
    return f(float(mpf(x)))


def f(x):
    """An exactly representable f64 input as a Rust literal (repr round-trips)."""
    x = float(x)
    s = repr(x)
    return s if ("." in s or "e" in s or "inf" in s) else s + ".0"


out = []


def emit(line=""):
    out.append(line)


def table(name, doc, ty, rows):
    emit(f"/// {doc}")
    emit(f"pub const {name}: &[{ty}] = &[")
    for row in rows:
        emit("    (" + ", ".join(row) + "),")
    emit("];")
    emit()


def dyadic(x, bits=6):
    """Rounds x to a multiple of 2^-bits, so it is an exact f64."""
    return float(mp.nint(mpf(x) * 2**bits)) / 2**bits


# ---------------------------------------------------------------------------------------
# Chi-square survival function Q(df/2, x/2), and its inverse.


def chi2_sf(x, df):
    return mp.gammainc(mpf(df) / 2, mpf(x) / 2, INF, regularized=True)


def decreasing_root(fn, target, lo, hi):
    """The t in [lo, hi] with fn(t) = target for a decreasing fn, by bisection (200 steps)."""
    while fn(hi) > target:
        hi *= 2
    lo, hi = mpf(lo), mpf(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        if fn(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def chi2_isf(alpha, df):
    """The x with chi2_sf(x, df) = alpha, solved on the log scale."""
    return decreasing_root(lambda t: mp.log(chi2_sf(t, df)), mp.log(mpf(alpha)), 0, 2 * df + 10)


def chi2_x_for(p, df):
    """A dyadic x (exact in f64) with chi2_sf(x, df) close to p."""
    return dyadic(chi2_isf(p, df))


rows = []
for df in (1, 2, 36, 1369):
    for p in (0.5, 1e-2, 1e-5, 1e-50, 1e-200, 1e-300):
        x = chi2_x_for(p, df)
        rows.append((f(x), f(df), r(chi2_sf(x, df))))
for df, x in ((36, 1.0), (36, 20.0), (1369, 1000.0), (1, 0.0009765625)):
    rows.append((f(x), f(df), r(chi2_sf(x, df))))
table("CHI_SQUARE_SF", "(x, df, P(X > x)) for X ~ chi-square(df).", "(f64, f64, f64)", rows)

# Past the normal double range (subnormal, then not representable at all).
rows = []
for df in (36, 1369):
    for p in ("1e-310", "1e-330"):  # strings: 1e-330 is 0.0 as a Python float
        x = chi2_x_for(p, df)
        rows.append((f(x), f(df), r(chi2_sf(x, df))))
table(
    "CHI_SQUARE_SF_BEYOND_DOUBLES",
    "(x, df, P(X > x)) with true values below the normal f64 range.",
    "(f64, f64, f64)",
    rows,
)

rows = []
for df in (1, 36, 1369):
    for alpha in (0.05, 0.01, 1e-6, 1e-100):
        rows.append((f(df), f(alpha), r(chi2_isf(alpha, df))))
table("CHI_SQUARE_CRITICAL", "(df, alpha, x) with P(X > x) = alpha.", "(f64, f64, f64)", rows)

# ---------------------------------------------------------------------------------------
# Standard normal upper tail.

rows = []
for z in (-5.0, -1.0, 0.0, 0.5, 1.0, 1.959963984540054, 3.0, 5.0, 8.0, 10.0, 20.0, 30.0, 37.0):
    rows.append((f(z), r(mp.ncdf(-mpf(z)))))
table("NORMAL_SF", "(z, P(Z > z)) for Z ~ N(0, 1).", "(f64, f64)", rows)

# ---------------------------------------------------------------------------------------
# Binomial and Poisson tails, by direct summation of the pmf in 60-digit arithmetic.
# Sums stop once the geometric bound on the rest is below 1e-45 of the sum.


def binom_pmf(k, n, p):
    p = mpf(p)
    return mp.binomial(n, k) * p**k * (1 - p) ** (n - k)


def binom_at_least(k, n, p):
    if k <= 0:
        return mpf(1)
    if k > n:
        return mpf(0)
    p = mpf(p)
    q = 1 - p
    if k > n * p:
        t = binom_pmf(k, n, p)
        s = mpf(0)
        j = k
        while True:
            s += t
            if j == n:
                return s
            ratio = (n - j) * p / ((j + 1) * q)
            if ratio < 1 and t * ratio / (1 - ratio) < s * mpf(10) ** -45:
                return s
            t *= ratio
            j += 1
    return 1 - binom_at_most(k - 1, n, p)


def binom_at_most(k, n, p):
    if k >= n:
        return mpf(1)
    if k < 0:
        return mpf(0)
    p = mpf(p)
    q = 1 - p
    if k < n * p:
        t = binom_pmf(k, n, p)
        s = mpf(0)
        j = k
        while True:
            s += t
            if j == 0:
                return s
            ratio = j * q / ((n - j + 1) * p)
            if ratio < 1 and t * ratio / (1 - ratio) < s * mpf(10) ** -45:
                return s
            t *= ratio
            j -= 1
    return 1 - binom_at_least(k + 1, n, p)


# The Poisson tails come from mpmath's regularized incomplete gamma instead (a different
# method from the binomial sums above): P(X >= k) = P(k, lam), P(X <= k) = Q(k + 1, lam).
def pois_at_least(k, lam):
    if k == 0:
        return mpf(1)
    return mp.gammainc(k, 0, mpf(lam), regularized=True)


def pois_at_most(k, lam):
    return mp.gammainc(k + 1, mpf(lam), INF, regularized=True)


def two_sided(lo, hi):
    return min(mpf(1), 2 * min(lo, hi))


P_REJECT = 1.6e-9
binom_cases = []
for k in (0, 1, 2, 3, 5, 10, 20, 50, 100):
    binom_cases.append((k, 10**9, P_REJECT))
for k in (50, 100, 130, 150, 300):
    binom_cases.append((k, 10**12, 1e-10))
for k in (1, 2, 5, 10, 12):
    binom_cases.append((k, 10**10, 1e-10))
for off in (-10000, -3000, -1000, -1, 0, 1, 500, 1000, 3000, 10000, 50000):
    binom_cases.append((500000 + off, 10**6, 0.5))
sigma = mp.sqrt(10**9 * (1 / mpf(37)) * (36 / mpf(37)))
mean = 10**9 / 37
for z in (-10, -3, -0.5, 0.5, 3, 10):
    binom_cases.append((int(mean + z * sigma), 10**9, 1 / 37))
binom_cases.append((3, 10, 0.25))
binom_cases.append((0, 10, 0.25))
binom_cases.append((10, 10, 0.25))

rows = []
for k, n, p in binom_cases:
    lo = binom_at_most(k, n, p)
    hi = binom_at_least(k, n, p)
    rows.append((str(k), str(n), f(p), r(hi), r(lo), r(two_sided(lo, hi))))
table(
    "BINOMIAL_TAILS",
    "(k, n, p, P(X >= k), P(X <= k), two-sided doubling p-value) for X ~ Binomial(n, p).",
    "(u64, u64, f64, f64, f64, f64)",
    rows,
)

pois_cases = []
for k in (0, 1, 2, 5, 10, 20, 50, 100):
    pois_cases.append((k, 1.6))
for k in (0, 1, 3):
    pois_cases.append((k, 1e-10))
for k in (800, 900, 999, 1000, 1001, 1100, 1500, 3000):
    pois_cases.append((k, 1000.0))
for k in (995000, 1000000, 1005000, 1010000):
    pois_cases.append((k, 1e6))
rows = []
for k, lam in pois_cases:
    lo = pois_at_most(k, lam)
    hi = pois_at_least(k, lam)
    rows.append((str(k), f(lam), r(hi), r(lo), r(two_sided(lo, hi))))
table(
    "POISSON_TAILS",
    "(k, lambda, P(X >= k), P(X <= k), two-sided doubling p-value) for X ~ Poisson(lambda).",
    "(u64, f64, f64, f64, f64)",
    rows,
)

# ---------------------------------------------------------------------------------------
# Hypergeometric pmf: exact binomial coefficients.


def hyper(k, N, K, n):
    return mp.binomial(K, k) * mp.binomial(N - K, n - k) / mp.binomial(N, n)


rows = []
for K in (1, 5, 10):
    for k in range(0, min(K, 10) + 1):
        rows.append((str(k), "40", str(K), "10", r(hyper(k, 40, K, 10))))
for k in (0, 5, 20, 50):
    rows.append((str(k), "1000000", "1000", "5000", r(hyper(k, 10**6, 1000, 5000))))
table(
    "HYPERGEOMETRIC_PMF",
    "(k, population N, successes K, draws n, P(X = k)).",
    "(u64, u64, u64, u64, f64)",
    rows,
)

# ---------------------------------------------------------------------------------------
# Non-central chi-square: the Poisson mixture summed in 60-digit arithmetic until the
# Poisson weights left are below 1e-50 of the sum, checked once against quadrature of the
# Bessel-function density.


def ncx2_sf(x, df, lam):
    mu = mpf(lam) / 2
    w = mp.exp(-mu)
    s = mpf(0)
    j = 0
    while True:
        s += w * chi2_sf(x, df + 2 * j)
        j += 1
        w *= mu / j
        if j > mu and w * 2 < s * mpf(10) ** -50:
            return s


def ncx2_sf_quad(x, df, lam):
    df, lam = mpf(df), mpf(lam)

    def pdf(t):
        return (
            mp.exp(-(t + lam) / 2)
            / 2
            * (t / lam) ** (df / 4 - mpf(1) / 2)
            * mp.besseli(df / 2 - 1, mp.sqrt(lam * t))
        )

    return mp.quad(pdf, [x, x + 50, x + 200, INF])


check = (ncx2_sf(60.0, 36, 10.0), ncx2_sf_quad(60.0, 36, 10.0))
assert abs(check[0] / check[1] - 1) < mpf(10) ** -30, check

rows = []
for x, df, lam in (
    (1.0, 1, 1.0),
    (3.841458820694124, 1, 7.84),
    (50.998460165710413, 36, 10.0),
    (60.0, 36, 10.0),
    (150.0, 36, 10.0),
    (400.0, 36, 10.0),
    (10.0, 36, 50.0),
    (1500.0, 1369, 200.0),
    (3000.0, 1369, 1000.0),
    (2000.0, 36, 1000.0),
):
    rows.append((f(x), f(df), f(lam), r(ncx2_sf(x, df, lam))))
table(
    "NONCENTRAL_CHI_SQUARE_SF",
    "(x, df, lambda, P(X > x)) for X ~ non-central chi-square(df, lambda).",
    "(f64, f64, f64, f64)",
    rows,
)

rows = []
for df, alpha, power in ((1, 0.05, 0.8), (36, 0.05, 0.8), (36, 1e-6, 0.9), (1369, 0.01, 0.8)):
    crit = chi2_isf(alpha, df)
    guess = (mp.sqrt(2 * mp.log(1 / mpf(alpha))) + 1) ** 2 + mp.sqrt(df)
    lam = mp.findroot(lambda L: ncx2_sf(crit, df, L) - power, guess, tol=mpf(10) ** -40)
    rows.append((f(df), f(alpha), f(power), r(lam)))
table(
    "NONCENTRALITY_FOR_POWER",
    "(df, alpha, power, lambda): P(X > crit_alpha) = power for X ~ ncx2(df, lambda).",
    "(f64, f64, f64, f64)",
    rows,
)

# ---------------------------------------------------------------------------------------
# Kolmogorov-Smirnov, two-sided: P(D_n >= d) for a Uniform(0,1) sample of size n.
#
# Exact values by Durbin's matrix (Marsaglia, Tsang & Wang 2003) in integer fixed point:
# P(D_n < d) = n!/n^n (H^n)_{kk}, k = floor(nd) + 1, h = k - nd, H of order m = 2k - 1.

FRAC = 400


def ks_cdf_exact(n, d):
    d = Fraction(float(d))
    nd = n * d
    k = int(nd) + 1
    h = k - nd
    m = 2 * k - 1
    fact = [Fraction(1)]
    for i in range(1, m + 1):
        fact.append(fact[-1] * i)
    H = [[Fraction(0)] * m for _ in range(m)]
    for i in range(m):
        for j in range(m):
            if i - j + 1 >= 0:
                H[i][j] = Fraction(1) / fact[i - j + 1]
    for i in range(m):
        H[i][0] -= h ** (i + 1) / fact[i + 1]
        H[m - 1][i] -= h ** (m - i) / fact[m - i]
    if 2 * h - 1 > 0:
        H[m - 1][0] += (2 * h - 1) ** m / fact[m]
    one = 1 << FRAC
    A = [[(x.numerator << FRAC) // x.denominator for x in row] for row in H]

    def mul(X, Y):
        Yt = list(zip(*Y))
        return [[sum(a * b for a, b in zip(row, col)) >> FRAC for col in Yt] for row in X]

    def rescale(X, e):
        big = max(abs(v) for row in X for v in row).bit_length()
        s = big - FRAC - 8
        if s > 0:
            X = [[v >> s for v in row] for row in X]
            e += s
        return X, e

    R = [[one if i == j else 0 for j in range(m)] for i in range(m)]
    er, ea = 0, 0
    e = n
    while e:
        if e & 1:
            R, er = rescale(mul(R, A), er + ea)
        e >>= 1
        if e:
            A, ea = rescale(mul(A, A), 2 * ea)
    val = mpf(R[k - 1][k - 1]) / mpf(2) ** FRAC * mpf(2) ** er
    return val * mp.factorial(n) / mpf(n) ** n


def smirnov_sf(n, d):
    """One-sided P(D_n^+ >= d) by the Smirnov-Birnbaum-Tingey sum (exact, all terms >= 0)."""
    d = mpf(float(d))
    s = mpf(0)
    for j in range(0, int(mp.floor(n * (1 - d))) + 1):
        s += mp.binomial(n, j) * (1 - d - mpf(j) / n) ** (n - j) * (d + mpf(j) / n) ** (j - 1)
    return d * s


# Checks of the exact matrix method against independent closed forms.
assert abs(ks_cdf_exact(10, 0.274) - mpf("0.6284796154565043")) < 1e-15  # MTW 2003
for n, d in ((5, 0.15), (20, 0.04), (7, 0.1)):  # Ruben-Gambino, 1/(2n) < d <= 1/n
    exact = mp.factorial(n) * (2 * mpf(float(d)) - mpf(1) / n) ** n
    assert abs(ks_cdf_exact(n, d) / exact - 1) < 1e-40, (n, d)
for n, d in ((5, 0.6), (30, 0.55)):  # d >= 1/2: P(D_n >= d) = 2 P(D_n^+ >= d)
    assert abs((1 - ks_cdf_exact(n, d)) / (2 * smirnov_sf(n, d)) - 1) < 1e-40, (n, d)
for n, d in ((5, 0.9), (12, 0.95)):  # d >= 1 - 1/n: P(D_n >= d) = 2 (1 - d)^n
    exact = 2 * (1 - mpf(float(d))) ** n
    assert abs((1 - ks_cdf_exact(n, d)) / exact - 1) < 1e-40, (n, d)

rows = []
ks_cases = [(1, 0.75), (10, 0.274), (5, 0.15), (30, 0.55), (12, 0.95)]
for n in (10, 100, 1000, 1001, 5000):
    for w in (0.3, 0.7, 1.0, 1.5, 2.0, 3.0, 3.9, 4.0, 6.0, 20.0):
        if n >= 5000 and w not in (0.7, 1.5):
            continue
        d = float(mp.sqrt(mpf(w) / n))
        if d < 0.5:
            ks_cases.append((n, d))
for n, d in ((100, 0.45), (1000, 0.3), (300, 0.2), (20000, 0.035), (20000, 0.05)):
    ks_cases.append((n, d))
for n, d in ks_cases:
    if n * d * d >= 20.0 and n * d > 150:
        exact = None  # matrix too large; the two-sided p-value is 2P+ within 1e-60 here
    else:
        exact = 1 - ks_cdf_exact(n, d)
    plus = smirnov_sf(n, d)
    if exact is None:
        exact = 2 * plus
    rows.append((str(n), f(d), r(exact), r(plus)))
    print(f"ks n={n} d={d} w={n*d*d:.3f} p={mp.nstr(exact, 8)}", file=sys.stderr)
table(
    "KOLMOGOROV_SMIRNOV_SF",
    "(n, d, P(D_n >= d), P(D_n^+ >= d)) for the one-sample statistic on Uniform(0, 1).",
    "(u64, f64, f64, f64)",
    rows,
)

# ---------------------------------------------------------------------------------------
# Anderson-Darling: the asymptotic null distribution of A^2 (Anderson & Darling 1954),
#   P(A^2 <= z) = sqrt(2 pi)/z sum_j binom(-1/2, j) (4j+1) exp(-(4j+1)^2 pi^2/(8z))
#                 * integral_0^inf exp(z/(8(w^2+1)) - (4j+1)^2 pi^2 w^2/(8z)) dw,
# and the exact n = 1 distribution, A^2 = -1 - ln(u(1-u)):
#   P(A^2 >= z) = 1 - sqrt(1 - 4 exp(-1 - z)) for z >= ln 4 - 1.


def ad_inf_cdf(z):
    z = mpf(z)
    s = mpf(0)
    j = 0
    while True:
        c = mp.binomial(mpf(-1) / 2, j) * (4 * j + 1)
        a = (4 * j + 1) ** 2 * mp.pi**2 / (8 * z)
        integral = mp.quad(lambda w: mp.exp(z / (8 * (w * w + 1)) - a * w * w), [0, 1, INF])
        term = c * mp.exp(-a) * integral
        s += term
        j += 1
        if abs(term) < mpf(10) ** -55 and j > 3:
            break
    return mp.sqrt(2 * mp.pi) / z * s


# The classical asymptotic critical values (5 %: 2.492, 1 %: 3.878) as a formula check.
assert abs(ad_inf_cdf(2.492) - 0.95) < 2e-4 and abs(ad_inf_cdf(3.878) - 0.99) < 1e-4

rows = []
for z in (0.1, 0.3, 0.5, 1.0, 1.5, 1.9, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 10.0):
    rows.append((f(z), r(ad_inf_cdf(z)), r(1 - ad_inf_cdf(z))))
table(
    "ANDERSON_DARLING_ASYMPTOTIC",
    "(z, P(A^2 <= z), P(A^2 > z)) for the limiting (n -> infinity) distribution.",
    "(f64, f64, f64)",
    rows,
)

rows = []
for z in (0.5, 1.0, 2.0, 3.0, 5.0, 8.0):
    zz = mpf(z)
    rows.append((f(z), r(1 - mp.sqrt(1 - 4 * mp.exp(-1 - zz)))))
table("ANDERSON_DARLING_N1_SF", "(z, P(A^2 >= z)) for n = 1, exact.", "(f64, f64)", rows)

# ---------------------------------------------------------------------------------------
# Code constants: Stirling-formula errors used by the saddle-point pmf (Loader 2000).

rows = []
for n in list(range(0, 16)) + [16, 20, 35, 36, 80, 81, 500, 501, 10**6, 10**12]:
    v = mpf(0) if n == 0 else mp.loggamma(n + 1) - (n + mpf(1) / 2) * mp.log(n) + n - mp.log(2 * mp.pi) / 2
    rows.append((str(n), r(v)))
table(
    "STIRLING_ERROR",
    "(n, ln n! - (n + 1/2) ln n + n - ln(2 pi)/2); n <= 15 is the table in distributions.rs.",
    "(u64, f64)",
    rows,
)

print("//! Reference values for the `stats` tests, generated by `reference_values.py` with")
print(f"//! mpmath {mp.__version__} at {mp.mp.dps} significant digits. Do not edit by hand:")
print("//! regenerate with `python3 src/stats/reference_values.py > src/stats/reference_values.rs`")
print("//! and `cargo fmt`.")
print()
print("\n".join(out).rstrip())
