//! The result of one statistical test before the battery adjusts it for multiplicity.

use super::power::Power;

/// A value computed from a test's statistic and its first two moments under fairness, at
/// the size it was computed: what the test across seed pairs ([`super::across_pairs`])
/// sums (the χ² itself, or `z²` for a z-test).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NullMoments {
    /// The value pooled across seed pairs.
    pub value: f64,
    /// `E[value]` under fairness.
    pub mean: f64,
    /// `Var[value]` under fairness.
    pub variance: f64,
    /// Whether `mean` is exact at this size (true for Pearson statistics with known
    /// probabilities and fixed quadratic forms); false when it is the asymptotic value
    /// (statistics with estimated margins), which is then only used where the test itself
    /// is valid.
    pub exact_mean: bool,
}

/// One test's raw result.
#[derive(Clone, Debug, PartialEq)]
pub struct TestOutcome {
    /// The test's name, e.g. `pocket_frequency`.
    pub test: String,
    /// The statistic (chi-square value, z, a count or a maximum, as `note` says); NaN when
    /// it could not be computed at all.
    pub statistic: f64,
    /// Degrees of freedom of the null distribution, for chi-square tests.
    pub df: Option<f64>,
    /// The p-value; `None` when the test is not valid at this size.
    pub p_value: Option<f64>,
    /// Why the test could not be run validly (verdict INSUFFICIENT), if so.
    pub insufficient: Option<String>,
    /// How the test's power is computed, for the detectable bias it states.
    pub power: Option<Power>,
    /// The statistic's moments under fairness at this size, where they are known: the
    /// test across seed pairs sums statistics and these moments.
    pub moments: Option<NullMoments>,
    /// What the statistic is and anything a reader needs.
    pub note: String,
    /// Whether the p-value comes from the statistic's exact law (or is exactly
    /// conservative, as a discrete test's is), so that it is accurate however small: the
    /// tests across seed pairs may then take the smallest of the pairs' p-values
    /// ([`super::across_pairs`]).
    pub exact: bool,
    /// The smallest p-value the test can give at this size, whatever the data, where its
    /// discrete law makes it computable (the exact tests): the battery calls a test whose
    /// smallest p-value is above its level INSUFFICIENT, since it cannot fail. `None`: it
    /// can give any p-value (a continuous law, or a count without bound).
    pub smallest_p: Option<f64>,
    /// Whether the test judges the game's outcomes (true for every test but the count of
    /// rejected words, which judges the sampler's stream). A battery passes a game only
    /// when some test of its outcomes could judge it ([`super::battery::Battery::overall`]):
    /// the rejection count alone can be valid at one round, where nothing about the
    /// outcomes is known.
    pub judges_outcomes: bool,
}

impl TestOutcome {
    /// A test with a valid p-value.
    pub fn valid(test: &str, statistic: f64, df: Option<f64>, p_value: f64, note: String) -> Self {
        TestOutcome {
            test: test.to_owned(),
            statistic,
            df,
            p_value: Some(p_value),
            insufficient: None,
            power: None,
            moments: None,
            note,
            exact: false,
            smallest_p: None,
            judges_outcomes: true,
        }
    }

    /// A test that cannot run validly at this size.
    pub fn insufficient(test: &str, reason: String) -> Self {
        TestOutcome {
            test: test.to_owned(),
            statistic: f64::NAN,
            df: None,
            p_value: None,
            insufficient: Some(reason.clone()),
            power: None,
            moments: None,
            note: reason,
            exact: false,
            smallest_p: None,
            judges_outcomes: true,
        }
    }

    /// The same result, its p-value marked exact (see [`TestOutcome::exact`]).
    pub fn with_exact_p(mut self) -> Self {
        self.exact = true;
        self
    }

    /// The same result, with the smallest p-value it can give at this size (see
    /// [`TestOutcome::smallest_p`]).
    pub fn with_smallest_p(mut self, smallest: f64) -> Self {
        self.smallest_p = Some(smallest);
        self
    }

    /// The same result, marked as a test of the sampler's stream rather than of the
    /// outcomes (see [`TestOutcome::judges_outcomes`]).
    pub fn of_the_stream(mut self) -> Self {
        self.judges_outcomes = false;
        self
    }

    /// The same result, with its power model.
    pub fn with_power(mut self, power: Power) -> Self {
        self.power = Some(power);
        self
    }

    /// The same result, with its statistic's null moments; a NaN `value` means the
    /// statistic itself is the value pooled.
    pub fn with_moments(mut self, mut moments: NullMoments) -> Self {
        if moments.value.is_nan() {
            moments.value = self.statistic;
        }
        self.moments = Some(moments);
        self
    }

    /// Declares the test invalid at this size (p-value dropped) while keeping its
    /// statistic and moments, which the test across seed pairs can still pool.
    pub fn make_insufficient(mut self, reason: String) -> Self {
        self.p_value = None;
        self.power = None;
        self.note = reason.clone();
        self.insufficient = Some(reason);
        self
    }
}
