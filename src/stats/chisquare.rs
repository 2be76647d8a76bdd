//! Pearson's chi-square for counts against expected counts, with sparse bins merged.
//!
//! # Formula
//!
//! `X² = Σ (Oᵢ − Eᵢ)² / Eᵢ`. When the counts are multinomial (independent rounds, each
//! landing in exactly one bin with fixed probabilities) `X²` is asymptotically χ² with
//! `bins − 1` degrees of freedom. The approximation is used only when every expected
//! count is at least [`MIN_EXPECTED`]; bins at the ends of an ordered histogram (hits,
//! gaps, overlaps) are merged until they are. Designs whose counts are not multinomial
//! (Keno numbers, positions and pairs, which are drawn without replacement) scale the
//! statistic as derived where they are computed.

use super::distributions::chi_square_sf;

/// The smallest expected count per bin at which the chi-square approximation is used
/// (Cochran's rule of thumb; the calibration tests check it at the sizes they run).
pub const MIN_EXPECTED: f64 = 5.0;

/// `Σ (O − E)² / E` over bins with a positive expectation; a count in a bin whose
/// expectation is zero makes the statistic infinite (an impossible outcome occurred).
pub fn pearson(observed: &[u64], expected: &[f64]) -> f64 {
    observed
        .iter()
        .zip(expected)
        .map(|(&o, &e)| {
            let o = o as f64;
            if e > 0.0 {
                (o - e) * (o - e) / e
            } else if o > 0.0 {
                f64::INFINITY
            } else {
                0.0
            }
        })
        .sum()
}

/// Merges adjacent bins of an ordered histogram so that every merged bin expects at least
/// `min_expected`: greedily from the left, with a short remainder folded into the last
/// bin. Returns the merged observed and expected counts.
pub fn merge_sparse(observed: &[u64], expected: &[f64], min_expected: f64) -> (Vec<u64>, Vec<f64>) {
    let (mut merged_o, mut merged_e) = (Vec::new(), Vec::new());
    let (mut o_acc, mut e_acc) = (0u64, 0.0);
    for (&o, &e) in observed.iter().zip(expected) {
        o_acc += o;
        e_acc += e;
        if e_acc >= min_expected {
            merged_o.push(o_acc);
            merged_e.push(e_acc);
            (o_acc, e_acc) = (0, 0.0);
        }
    }
    if e_acc > 0.0 || o_acc > 0 {
        match (merged_o.last_mut(), merged_e.last_mut()) {
            (Some(lo), Some(le)) => {
                *lo += o_acc;
                *le += e_acc;
            }
            _ => {
                merged_o.push(o_acc);
                merged_e.push(e_acc);
            }
        }
    }
    (merged_o, merged_e)
}

/// Row and column sums of a table with `cols` columns stored row by row.
pub fn margins(table: &[u64], cols: usize) -> (Vec<f64>, Vec<f64>) {
    let rows = table.chunks_exact(cols).map(|row| row.iter().sum::<u64>() as f64).collect();
    let columns = (0..cols).map(|j| table.iter().skip(j).step_by(cols).sum::<u64>() as f64).collect();
    (rows, columns)
}

/// Pearson's statistic of independence for a `rows × cols` table stored row by row:
/// `Σ (Nᵢⱼ − rᵢcⱼ/T)² / (rᵢcⱼ/T)` with `rᵢ`, `cⱼ` the margins and `T` the total. Returns
/// the statistic and the smallest expected cell count (cells expecting 0 are skipped).
pub fn independence(table: &[u64], rows: usize, cols: usize) -> (f64, f64) {
    let (row_sums, col_sums) = margins(table, cols);
    debug_assert_eq!(row_sums.len(), rows);
    let total: f64 = row_sums.iter().sum();
    let (mut statistic, mut min_expected) = (0.0, f64::INFINITY);
    for (row, &row_sum) in table.chunks_exact(cols).zip(&row_sums) {
        for (&count, &col_sum) in row.iter().zip(&col_sums) {
            let expected = row_sum * col_sum / total;
            if expected > 0.0 {
                let diff = count as f64 - expected;
                statistic += diff * diff / expected;
                min_expected = min_expected.min(expected);
            }
        }
    }
    (statistic, if total > 0.0 { min_expected } else { 0.0 })
}

/// A goodness-of-fit result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoodnessOfFit {
    /// `X²` (already scaled, where the design needs it).
    pub statistic: f64,
    /// Degrees of freedom.
    pub df: f64,
    /// Upper-tail p-value.
    pub p_value: f64,
    /// For a relative bias `δ` on the hardest single bin: noncentrality / `δ²`, i.e.
    /// `min over bins of Eᵢ / (1 − πᵢ)` (the other bins absorbing the difference in
    /// proportion; see [`crate::stats::power`]).
    pub noncentrality_per_unit_bias: f64,
}

/// Chi-square goodness of fit of `observed` to `probabilities` (which sum to 1), after
/// merging sparse bins. `None` when fewer than two bins remain.
pub fn goodness_of_fit(observed: &[u64], probabilities: &[f64]) -> Option<GoodnessOfFit> {
    let total: u64 = observed.iter().sum();
    let expected: Vec<f64> = probabilities.iter().map(|p| p * total as f64).collect();
    let (o, e) = merge_sparse(observed, &expected, MIN_EXPECTED);
    if o.len() < 2 || e.iter().any(|&x| x < MIN_EXPECTED) {
        return None;
    }
    let statistic = pearson(&o, &e);
    let df = (o.len() - 1) as f64;
    let noncentrality_per_unit_bias =
        e.iter().map(|&ei| ei / (1.0 - ei / total as f64)).fold(f64::INFINITY, f64::min);
    Some(GoodnessOfFit { statistic, df, p_value: chi_square_sf(statistic, df), noncentrality_per_unit_bias })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_tails_are_merged_into_neighbours() {
        let (o, e) = merge_sparse(&[1, 10, 20, 10, 1, 0], &[2.0, 9.0, 20.0, 9.0, 2.0, 0.5], 5.0);
        assert_eq!(o, vec![11, 20, 11]);
        assert_eq!(e, vec![11.0, 20.0, 11.5]);
        let total: u64 = o.iter().sum();
        assert_eq!(total, 42);
    }

    #[test]
    fn perfect_fit_has_statistic_zero_and_p_one() {
        let fit = goodness_of_fit(&[25, 25, 25, 25], &[0.25; 4]).unwrap();
        assert_eq!(fit.statistic, 0.0);
        assert_eq!(fit.df, 3.0);
        assert!((fit.p_value - 1.0).abs() < 1e-12);
    }

    #[test]
    fn independence_of_a_product_table_is_zero_and_of_a_diagonal_one_is_large() {
        let (product, min) = independence(&[10, 20, 30, 60], 2, 2);
        assert!(product.abs() < 1e-12);
        assert_eq!(min, 10.0);
        let (diagonal, _) = independence(&[50, 0, 0, 50], 2, 2);
        assert!((diagonal - 100.0).abs() < 1e-9, "{diagonal}");
    }

    #[test]
    fn an_impossible_count_is_infinitely_unlikely() {
        assert_eq!(pearson(&[1, 9], &[0.0, 10.0]), f64::INFINITY);
    }
}
