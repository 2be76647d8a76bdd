//! The longest run of red or black (of low or high) against its exact law.
//!
//! A rigged wheel that breaks up long streaks, or lets them run on, can leave the number
//! of runs and even the lag-1 transitions close to fair; the longest streak is what a
//! player remembers and what such a rig moves first.
//!
//! # Formula
//!
//! The sequence is i.i.d. with probabilities `p₀, p₁` (red, black) and `p₂` (the zeros,
//! which end any streak). Whether a run of symbol 0 or 1 reaches length `L` within `m`
//! spins is a Markov chain on the states "the current run is symbol `s` ∈ {0, 1} of
//! length `j` < `L`", "the last spin was a zero" and the absorbing "a run reached `L`".
//! `P(longest ≥ L)` is the absorbed mass after `m` steps, computed exactly by raising the
//! transition matrix to the `m`-th power (repeated squaring; the absorbed mass is tracked
//! on its own, so small tail probabilities keep their digits). Sequences are independent:
//! `P(longest of all < L) = Π P(longest of sequence i < L)`.
//!
//! The test is two-sided: `p = 2 · min(P(longest ≥ observed), P(longest ≤ observed))`,
//! capped at 1. The run tally caps lengths at 32; an observed longest run in the capped
//! bucket only gives the upper tail, `P(longest ≥ 32)`.
//!
//! # Power
//!
//! The alternative is a streak-prone (or streak-averse) wheel: after a red or black spin,
//! the same colour follows with probability `pₛ(1 + δ)`, the other outcomes shrinking in
//! proportion. The detectable bias is the smallest `δ > 0` at which the test, at the
//! battery's level, rejects with 80% probability, computed with the same exact chain.

use super::outcome::TestOutcome;
use super::power::{LongestRunLaw, Power, POWER};
use crate::tally::runs::RunLengths;
use crate::tally::SequenceLengths;

type LawKey = ([u64; 3], [u64; 2], usize, u64);

thread_local! {
    /// Laws already computed on this thread: the seed pairs of a sweep share their length,
    /// so a battery of thousands of pairs computes each law once.
    static KNOWN: std::cell::RefCell<std::collections::HashMap<LawKey, (f64, f64)>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// [`one_sequence_uncached`], remembered per thread.
fn one_sequence(p: &[f64; 3], stay: [f64; 2], limit: usize, m: u64) -> (f64, f64) {
    let key = (p.map(f64::to_bits), stay.map(f64::to_bits), limit, m);
    if let Some(known) = KNOWN.with(|known| known.borrow().get(&key).copied()) {
        return known;
    }
    let law = one_sequence_uncached(p, stay, limit, m);
    KNOWN.with(|known| {
        let mut known = known.borrow_mut();
        if known.len() >= 1 << 14 {
            known.clear();
        }
        known.insert(key, law);
    });
    law
}

/// `(P(longest < limit), P(longest ≥ limit))` for one sequence of `m` spins, when after a
/// streak symbol the same symbol follows with probability `stay[s]` (the fair law has
/// `stay[s] = p[s]`).
fn one_sequence_uncached(p: &[f64; 3], stay: [f64; 2], limit: usize, m: u64) -> (f64, f64) {
    if m == 0 {
        return (1.0, 0.0);
    }
    if limit <= 1 {
        // Every streak symbol is already a run of length 1: only all-zero sequences stay below.
        let log_none = m as f64 * p[2].ln();
        return (log_none.exp(), -log_none.exp_m1());
    }
    // States: (s, j) for s in 0..2, j in 1..limit → index s*(limit-1) + j-1; zero; absorbed.
    let run_states = 2 * (limit - 1);
    let zero = run_states;
    let absorbed = run_states + 1;
    let n = run_states + 2;
    let mut step = vec![0.0f64; n * n]; // step[from * n + to]
    let index = |s: usize, j: usize| s * (limit - 1) + j - 1;
    let enter = |from_row: &mut [f64], s: usize, probability: f64| from_row[index(s, 1)] += probability;
    for s in 0..2 {
        let other = 1 - s;
        // Leaving a streak of s: the non-staying mass goes to the other outcomes in
        // proportion to their fair probabilities.
        let leave = (1.0 - stay[s]).max(0.0);
        let rest = p[other] + p[2];
        for j in 1..limit {
            let row = &mut step[index(s, j) * n..(index(s, j) + 1) * n];
            if j + 1 < limit {
                row[index(s, j + 1)] += stay[s];
            } else {
                row[absorbed] += stay[s];
            }
            enter(row, other, leave * p[other] / rest);
            row[zero] += leave * p[2] / rest;
        }
    }
    {
        let row = &mut step[zero * n..(zero + 1) * n];
        enter(row, 0, p[0]);
        enter(row, 1, p[1]);
        row[zero] += p[2];
    }
    step[absorbed * n + absorbed] = 1.0;
    // The first spin's distribution, then m − 1 steps.
    let mut start = vec![0.0; n];
    enter(&mut start, 0, p[0]);
    enter(&mut start, 1, p[1]);
    start[zero] += p[2];
    let mut vector = start;
    let mut power = step;
    let mut remaining = m - 1;
    while remaining > 0 {
        if remaining & 1 == 1 {
            vector = vector_times(&vector, &power, n);
        }
        remaining >>= 1;
        if remaining > 0 {
            power = matrix_square(&power, n);
        }
    }
    let absorbed_mass = vector[absorbed];
    let alive: f64 = vector[..absorbed].iter().sum();
    (alive, absorbed_mass)
}

fn vector_times(vector: &[f64], matrix: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    for (i, &v) in vector.iter().enumerate() {
        if v != 0.0 {
            for (o, &m) in out.iter_mut().zip(&matrix[i * n..(i + 1) * n]) {
                *o += v * m;
            }
        }
    }
    out
}

fn matrix_square(matrix: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..n {
            let a = matrix[i * n + k];
            if a != 0.0 {
                for (o, &b) in out[i * n..(i + 1) * n].iter_mut().zip(&matrix[k * n..(k + 1) * n]) {
                    *o += a * b;
                }
            }
        }
    }
    out
}

impl LongestRunLaw {
    /// `(ln P(longest < limit), P(longest ≥ limit))` over all sequences, under a wheel whose
    /// streaks continue with probability `stay`.
    fn tails(&self, stay: [f64; 2], limit: usize) -> (f64, f64) {
        let mut log_below = 0.0;
        let mut log_no_reach = 0.0;
        for (m, count) in self.lengths.iter() {
            let (alive, reached) = one_sequence(&self.probabilities, stay, limit, m);
            let count = count as f64;
            log_below += count * if alive < 0.5 { alive.ln() } else { (-reached).ln_1p() };
            log_no_reach += count * if reached < 0.5 { (-reached).ln_1p() } else { alive.ln() };
        }
        (log_below, -log_no_reach.exp_m1())
    }

    fn fair_stay(&self) -> [f64; 2] {
        [self.probabilities[0], self.probabilities[1]]
    }

    /// `P(longest ≥ length)` under fairness.
    pub fn at_least(&self, length: usize) -> f64 {
        self.tails(self.fair_stay(), length).1
    }

    /// `P(longest ≤ length)` under fairness.
    pub fn at_most(&self, length: usize) -> f64 {
        self.tails(self.fair_stay(), length + 1).0.exp()
    }

    /// The smallest relative increase `δ` of the streak probability that the two-sided
    /// test at `level` detects with 80% power (see the module docs).
    pub fn detectable_bias(&self, level: f64) -> f64 {
        // The smallest length whose upper tail alone rejects.
        let mut critical = 1;
        while critical < self.cap && self.at_least(critical) > level / 2.0 {
            critical += 1;
        }
        if self.at_least(critical) > level / 2.0 {
            return f64::INFINITY;
        }
        let reach = |delta: f64| {
            let stay = [
                (self.probabilities[0] * (1.0 + delta)).min(1.0),
                (self.probabilities[1] * (1.0 + delta)).min(1.0),
            ];
            self.tails(stay, critical).1
        };
        let (mut low, mut high) = (0.0f64, 0.05f64);
        while reach(high) < POWER {
            if high > 1.0 / self.probabilities[0] {
                return f64::INFINITY;
            }
            high *= 2.0;
        }
        for _ in 0..40 {
            let mid = 0.5 * (low + high);
            if reach(mid) < POWER {
                low = mid;
            } else {
                high = mid;
            }
        }
        high
    }
}

/// The longest-run test on closed run tallies of `lengths` sequences: symbols 0 and 1 are
/// the streak symbols (red and black, low and high), symbol 2 the zeros.
pub fn longest_run_test(
    test: &str,
    runs: &RunLengths,
    lengths: &SequenceLengths,
    probabilities: [f64; 3],
) -> TestOutcome {
    let law = LongestRunLaw { lengths: lengths.clone(), probabilities, cap: runs.cap };
    let longest = (1..=runs.cap).rev().find(|&l| runs.count(0, l) + runs.count(1, l) > 0);
    let Some(longest) = longest else {
        return TestOutcome::insufficient(test, "no red or black run".into());
    };
    let capped = longest == runs.cap;
    let upper = law.at_least(longest);
    let lower = if capped { 1.0 } else { law.at_most(longest) };
    let p = (2.0 * upper.min(lower)).min(1.0);
    // The doubled smaller tail is smallest at an end of what can happen: a longest streak
    // of 1, or the longest the tally tells apart (`cap`, or the longest sequence).
    let longest_sequence = lengths.0.keys().next_back().map_or(1, |&l| l as usize);
    let top = runs.cap.min(longest_sequence).max(1);
    let smallest = (2.0 * law.at_most(1).min(law.at_least(1)).min(law.at_least(top))).min(1.0);
    TestOutcome::valid(
        test,
        longest as f64,
        None,
        p,
        format!(
            "longest streak {}{longest} spins; P(>= it) {}, P(<= it) {} over {}",
            if capped { "at least " } else { "" },
            super::PValue(upper),
            super::PValue(lower),
            lengths.describe()
        ),
    )
    .with_power(Power::LongestRun(law))
    .with_exact_p()
    .with_smallest_p(smallest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact law by enumerating every sequence of a short length.
    fn enumerate(m: u32, p: &[f64; 3]) -> Vec<f64> {
        let mut law = vec![0.0; m as usize + 1];
        for code in 0..3u32.pow(m) {
            let symbols: Vec<usize> = (0..m).map(|i| ((code / 3u32.pow(i)) % 3) as usize).collect();
            let weight: f64 = symbols.iter().map(|&s| p[s]).product();
            let (mut longest, mut current, mut last) = (0, 0, 9);
            for &s in &symbols {
                current = if s < 2 && s == last {
                    current + 1
                } else if s < 2 {
                    1
                } else {
                    0
                };
                last = s;
                longest = longest.max(current);
            }
            law[longest] += weight;
        }
        law
    }

    #[test]
    fn the_chain_matches_enumeration() {
        let p = [0.45, 0.35, 0.2];
        for m in 1..=9u32 {
            let law = enumerate(m, &p);
            let exact =
                LongestRunLaw { lengths: SequenceLengths::one(u64::from(m)), probabilities: p, cap: 32 };
            for length in 1..=m as usize + 1 {
                let want: f64 = law[length..].iter().sum();
                assert!((exact.at_least(length) - want).abs() < 1e-12, "m {m} L {length}");
                let below: f64 = law[..=length.min(m as usize)].iter().sum();
                assert!((exact.at_most(length) - below).abs() < 1e-12, "m {m} L {length}");
            }
        }
    }

    /// The smallest p-value the test states is the smallest it gives over every longest
    /// streak that can happen (1 up to the cap or the longest sequence's length), at
    /// lengths short and long, below and above the cap, and over sequences of different
    /// lengths with the cap between them: never above it, or a test that can fail would be
    /// called INSUFFICIENT.
    #[test]
    fn the_smallest_p_value_is_the_smallest_any_streak_gives() {
        // A wheel, where few streaks of 1 are the rarer end, and one of many zeros, where
        // a long streak is.
        for p in [[18.0 / 37.0, 18.0 / 37.0, 1.0 / 37.0], [0.3, 0.3, 0.4]] {
            smallest_p_value_over_every_streak(p);
        }
    }

    fn smallest_p_value_over_every_streak(p: [f64; 3]) {
        let cases: [(&[u64], usize); 9] = [
            (&[1], 32),
            (&[3], 32),
            (&[8], 32),
            (&[8], 4),
            (&[30], 6),
            (&[200], 64),
            (&[3, 8], 5),
            (&[2, 2, 12], 7),
            (&[3, 10], 10),
        ];
        for (sequences, cap) in cases {
            let mut lengths = SequenceLengths::default();
            sequences.iter().for_each(|&m| lengths.add_sequences(m, 1));
            let m = *sequences.iter().max().unwrap();
            let mut smallest_seen = f64::INFINITY;
            let mut stated = None;
            for longest in 1..=m as usize {
                // The streak in the longest sequence; the others all zeros.
                let mut runs = RunLengths::new(3, cap);
                for &length in sequences {
                    let mut one = RunLengths::new(3, cap);
                    let streak = if length == m { longest } else { 0 };
                    let symbols: Vec<u8> =
                        (0..length as usize).map(|i| if i < streak { 0 } else { 2 }).collect();
                    one.record_all(&symbols);
                    one.close();
                    runs.add_closed(&one);
                }
                let outcome = longest_run_test("t", &runs, &lengths, p);
                smallest_seen = smallest_seen.min(outcome.p_value.unwrap());
                let s = outcome.smallest_p.expect("the test states its smallest p-value");
                assert!(stated.is_none_or(|t: f64| (t - s).abs() < 1e-15), "one law, one smallest p-value");
                stated = Some(s);
            }
            let stated = stated.unwrap();
            assert!(
                (stated - smallest_seen).abs() <= 1e-12 * smallest_seen.max(1e-300),
                "{p:?} {sequences:?} cap {cap}: {stated} vs {smallest_seen}"
            );
        }
    }

    #[test]
    fn tail_keeps_its_digits_and_sequences_combine() {
        let p = [18.0 / 37.0, 18.0 / 37.0, 1.0 / 37.0];
        let one = LongestRunLaw { lengths: SequenceLengths::one(1000), probabilities: p, cap: 64 };
        let tiny = one.at_least(60);
        assert!(tiny > 0.0 && tiny < 1e-15, "{tiny}");
        let mut lengths = SequenceLengths::default();
        lengths.add_sequences(1000, 3);
        let three = LongestRunLaw { lengths, probabilities: p, cap: 64 };
        let single = one.at_least(12);
        assert!((three.at_least(12) - (1.0 - (1.0 - single).powi(3))).abs() < 1e-12);
        assert!(three.detectable_bias(0.001) > 0.0);
    }
}
