//! The result of one statistical test before the battery adjusts it for multiplicity.

/// One test's raw result.
#[derive(Clone, Debug, PartialEq)]
pub struct TestOutcome {
    /// The test's name, e.g. `pocket_frequency`.
    pub test: String,
    /// The statistic (chi-square value, z, or a count, as `note` says).
    pub statistic: f64,
    /// Degrees of freedom of the null distribution, for chi-square tests.
    pub df: Option<f64>,
    /// The p-value; `None` when the test is not valid at this size.
    pub p_value: Option<f64>,
    /// Why the test could not be run validly (verdict INSUFFICIENT), if so.
    pub insufficient: Option<String>,
    /// For frequency-type tests: the noncentrality a relative bias `δ` on the hardest to
    /// detect single outcome produces, divided by `δ²` (see [`crate::stats::power`]).
    pub noncentrality_per_unit_bias: Option<f64>,
    /// Whether the null distribution of the p-value is continuous (uniform under the
    /// null). Only such tests are combined across seed pairs by a uniformity test;
    /// exact tests on tiny counts have lumpy p-values.
    pub continuous: bool,
    /// What the statistic is and anything a reader needs.
    pub note: String,
}

impl TestOutcome {
    /// A test that cannot run validly at this size.
    pub fn insufficient(test: &str, reason: String) -> Self {
        TestOutcome {
            test: test.to_owned(),
            statistic: f64::NAN,
            df: None,
            p_value: None,
            insufficient: Some(reason.clone()),
            noncentrality_per_unit_bias: None,
            continuous: true,
            note: reason,
        }
    }
}
