//! Multiple-testing correction: the battery runs many tests on the same rounds, and the
//! smallest of many honest p-values is small by chance alone.

/// Holm–Bonferroni step-down adjusted p-values, in the input order.
///
/// Holm's procedure controls the family-wise error rate (the chance of any false
/// rejection) at `α` under any dependence between the tests, and rejects at least
/// whatever Bonferroni rejects: reject hypothesis `i` iff its adjusted p-value is `≤ α`.
///
/// # Formula
/// With the p-values sorted, `p_(1) ≤ … ≤ p_(m)`:
/// ```text
/// adj_(i) = max_{j ≤ i} min(1, (m − j + 1) · p_(j))
/// ```
/// The running maximum makes the adjusted values monotone in the raw ones; ties keep their
/// input order, which does not change the result.
///
/// # Panics
/// If a p-value is outside [0, 1] or NaN.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    if let Some(bad) = p_values.iter().find(|p| !(0.0..=1.0).contains(*p)) {
        panic!("p-value {bad} is not in [0, 1]");
    }
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running_max = 0.0f64;
    for (rank, &index) in order.iter().enumerate() {
        running_max = running_max.max(((m - rank) as f64 * p_values[index]).min(1.0));
        adjusted[index] = running_max;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example() {
        // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max 0.06.
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        let want = [0.03, 0.06, 0.06, 0.02];
        for (got, want) in adjusted.iter().zip(want) {
            assert!((got - want).abs() < 1e-15, "{adjusted:?}");
        }
    }

    #[test]
    fn running_maximum_is_not_needed_when_products_already_rise() {
        // Sorted 0.001·5, 0.012·4, 0.04·3, 0.2·2, 0.5·1 = 0.005, 0.048, 0.12, 0.4, 0.5.
        let adjusted = holm(&[0.2, 0.001, 0.04, 0.5, 0.012]);
        let want = [0.4, 0.005, 0.12, 0.5, 0.048];
        for (got, want) in adjusted.iter().zip(want) {
            assert!((got - want).abs() < 1e-15, "{adjusted:?}");
        }
    }

    #[test]
    fn capped_at_one_monotone_and_ties() {
        let raw = [0.9, 0.3, 0.3, 0.0, 1.0];
        let adjusted = holm(&raw);
        assert_eq!(adjusted[3], 0.0);
        assert_eq!(adjusted[1], adjusted[2]);
        assert!(adjusted.iter().all(|&p| p <= 1.0));
        for i in 0..raw.len() {
            for j in 0..raw.len() {
                if raw[i] <= raw[j] {
                    assert!(adjusted[i] <= adjusted[j]);
                }
            }
        }
        assert!(holm(&[]).is_empty());
        assert_eq!(holm(&[0.2]), vec![0.2]);
    }

    #[test]
    #[should_panic(expected = "not in [0, 1]")]
    fn nan_is_a_programming_error() {
        holm(&[0.1, f64::NAN]);
    }
}
