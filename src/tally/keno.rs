//! Keno tallies: numbers, draw position × number, pairs within a round, hits for fixed
//! pick sets, and the overlap between rounds n and n + L for lags L = 1..=10.

use super::stream::StreamTally;
use super::window::{Window, MAX_LAG};
use super::{check_len, check_sum, set_bits, SequenceTally, TallyError};
use crate::chain::ROUNDS_PER_BATCH;
use crate::games::keno::{KenoColumns, DRAWN, GRID, REFERENCE_WORDS};
use crate::games::{Keno, KenoRound};
use crate::simd::{equal_byte_masks, shared_count_masks};
use serde::{Deserialize, Serialize};

/// The documented pick sets: a player picking `k` numbers picks the first `k` of these.
/// Any fixed set has the same hypergeometric law under fairness; these are spread over
/// the grid's rows and columns so a bias confined to one region shows in some pick set.
pub const PICK_ORDER: [u8; DRAWN] = [7, 13, 22, 29, 36, 2, 18, 25, 33, 40];

/// Unordered pairs of distinct Keno numbers: 40 · 39 / 2.
pub const PAIRS: usize = GRID * (GRID - 1) / 2;

/// Index of the pair `{a, b}` (numbers 1..=40, `a != b`) in the pair table, ordered
/// (1,2), (1,3), …, (1,40), (2,3), …, (39,40).
pub const fn pair_index(a: u8, b: u8) -> usize {
    let (lo, hi) = if a < b { (a as usize - 1, b as usize - 1) } else { (b as usize - 1, a as usize - 1) };
    lo * (2 * GRID - lo - 1) / 2 + (hi - lo - 1)
}

const fn pair_table() -> [[u16; GRID + 1]; GRID + 1] {
    let mut table = [[0u16; GRID + 1]; GRID + 1];
    let mut a = 1;
    while a <= GRID {
        let mut b = 1;
        while b <= GRID {
            if a != b {
                table[a][b] = pair_index(a as u8, b as u8) as u16;
            }
            b += 1;
        }
        a += 1;
    }
    table
}

/// `PAIR_INDEX[a][b]` is [`pair_index`]`(a, b)` for distinct numbers `a`, `b` of 1..=40:
/// looked up rather than computed, since a round counts 45 pairs.
const PAIR_INDEX: [[u16; GRID + 1]; GRID + 1] = pair_table();

const fn pick_masks() -> [u64; DRAWN] {
    let mut masks = [0u64; DRAWN];
    let mut mask = 0u64;
    let mut k = 0;
    while k < DRAWN {
        mask |= 1 << PICK_ORDER[k];
        masks[k] = mask;
        k += 1;
    }
    masks
}

/// `PICK_MASKS[k - 1]` is the bit set of the pick set with `k` numbers.
pub const PICK_MASKS: [u64; DRAWN] = pick_masks();

/// Bits 1..=40: the numbers a drawn-set mask may hold.
const GRID_MASK: u64 = ((1u64 << GRID) - 1) << 1;

/// Whether a drawn-number bit set holds ten numbers of 1..=40, as every real draw does.
#[inline(always)]
pub fn is_ten_distinct(mask: u64) -> bool {
    mask & !GRID_MASK == 0 && mask.count_ones() as usize == DRAWN
}

/// Lags counted beside lag 1: 2..=[`MAX_LAG`].
pub const LAGGED: usize = MAX_LAG - 1;

#[inline]
fn count_overlap(overlap: &mut [u64], lag_overlap: &mut [u64], lag: usize, shared: u64) {
    let shared = shared.count_ones() as usize;
    if lag == 1 {
        overlap[shared] += 1;
    } else {
        lag_overlap[(lag - 2) * (DRAWN + 1) + shared] += 1;
    }
}

/// Integer counters for a run of Keno rounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KenoTally {
    /// `numbers[n - 1]`: rounds in which number `n` was drawn.
    pub numbers: Vec<u64>,
    /// `positions[k * 40 + n - 1]`: rounds whose draw `k` (0-based) was number `n`.
    pub positions: Vec<u64>,
    /// Rounds in which both numbers of a pair were drawn, indexed by [`pair_index`].
    pub pairs: Vec<u64>,
    /// `hits[(k - 1) * 11 + h]`: rounds in which the `k`-number pick set had `h` hits.
    pub hits: Vec<u64>,
    /// `overlap[c]`: consecutive round pairs (n, n+1) sharing `c` drawn numbers.
    pub overlap: Vec<u64>,
    /// `lag_overlap[(L - 2) * 11 + c]`: round pairs (n, n+L), L = 2..=10, sharing `c`
    /// drawn numbers.
    pub lag_overlap: Vec<u64>,
    /// The drawn-number bit sets of the segment's first and last ten rounds.
    pub edges: Window<u64>,
    /// Stream consumption.
    pub stream: StreamTally,
}

impl Default for KenoTally {
    fn default() -> Self {
        Self {
            numbers: vec![0; GRID],
            positions: vec![0; DRAWN * GRID],
            pairs: vec![0; PAIRS],
            hits: vec![0; DRAWN * (DRAWN + 1)],
            overlap: vec![0; DRAWN + 1],
            lag_overlap: vec![0; LAGGED * (DRAWN + 1)],
            edges: Window::default(),
            stream: StreamTally::new(DRAWN),
        }
    }
}

impl SequenceTally for KenoTally {
    type Game = Keno;
    /// Keno counts every batch in full.
    type Pending = ();

    fn new(_game: Keno) -> Self {
        Self::default()
    }

    #[inline]
    fn record(&mut self, round: &KenoRound) {
        let mask = round.mask();
        self.record_draw_counts(round, mask);
        if is_ten_distinct(mask) {
            // Numbers and pairs straight from the draw order, 45 pairs by a table lookup
            // each, in a loop of fixed length (a loop over the set bits mispredicted its
            // exit on every number).
            for (i, &a) in round.order.iter().enumerate() {
                self.numbers[usize::from(a) - 1] += 1;
                for &b in &round.order[i + 1..] {
                    self.pairs[usize::from(PAIR_INDEX[usize::from(a)][usize::from(b)])] += 1;
                }
            }
        } else {
            self.record_numbers_and_pairs(mask);
        }
        let (overlap, lag_overlap) = (&mut self.overlap, &mut self.lag_overlap);
        self.edges.push(mask, |lag, earlier| count_overlap(overlap, lag_overlap, lag, earlier & mask));
    }

    /// Records the rounds of one batch, given by column: exactly what
    /// [`SequenceTally::record`] on each of them in order would do.
    ///
    /// Counted by columns of bits, one bit per round: bit `r` of column `(k, p)` says
    /// whether round `r` drew grid position `p` at draw `k`, and the OR over the draws
    /// whether it drew `p` at all. Then a number was drawn in `popcount(column)` rounds, a
    /// pair in `popcount(column a & column b)`, the pick sets' hits are sums of columns in
    /// bit-sliced counters, and only the overlaps between rounds are counted round by
    /// round. Counting round by round, a round cost 45 pair increments, ten hit and ten
    /// position increments in tables in memory: on the AVX-512 path, the tallies took as
    /// long as hashing the round (profiled).
    ///
    /// A round that repeats a number (only a broken draw does) is counted as the set of
    /// numbers it holds, as [`SequenceTally::record`] counts it.
    #[inline(always)]
    fn record_drawn(&mut self, columns: &KenoColumns, _pending: &mut ()) {
        let len = columns.len;
        assert!((1..=ROUNDS_PER_BATCH).contains(&len), "a batch holds 1 to {ROUNDS_PER_BATCH} rounds");
        // Bits from `len` on (stale rounds) are cleared with `live`.
        let live = u64::MAX >> (ROUNDS_PER_BATCH - len);
        // `drawn[p]`: bit `r` set when round `r` drew grid position `p`.
        let mut drawn = [0u64; GRID];
        for (counts, positions) in self.positions.chunks_exact_mut(GRID).zip(&columns.positions) {
            // `at[p]`: bit `r` set when round `r` drew position `p` at this draw. One draw
            // at a time (all ten at once were a 3 KB array zeroed for every batch).
            let mut at = [0u64; GRID];
            equal_byte_masks(positions, &mut at);
            for ((count, any), &column) in counts.iter_mut().zip(&mut drawn).zip(&at) {
                *count += u64::from((column & live).count_ones());
                *any |= column & live;
            }
        }
        self.add_numbers_and_pairs(&drawn);
        self.add_hits(&drawn, live);
        self.add_overlaps(&columns.masks()[..len]);
        let rejecting = columns.rejecting & live;
        let plain = len as u64 - u64::from(rejecting.count_ones());
        self.stream.record_without_rejections(plain, DRAWN, REFERENCE_WORDS);
        for r in set_bits(rejecting) {
            self.stream.record(&columns.rejected[r], REFERENCE_WORDS);
        }
    }

    fn count_pending(&mut self, _pending: &mut ()) {}

    fn append(&mut self, later: Self) {
        self.add_counters(&later);
        self.join_edges(later.edges);
    }

    fn close(&mut self) {
        self.edges = Window::default();
    }

    fn add_closed(&mut self, other: &Self) {
        self.add_counters(other);
    }

    fn validate(&self) -> Result<(), TallyError> {
        check_len("numbers", &self.numbers, GRID)?;
        check_len("positions", &self.positions, DRAWN * GRID)?;
        check_len("pairs", &self.pairs, PAIRS)?;
        check_len("hits", &self.hits, DRAWN * (DRAWN + 1))?;
        check_len("overlap", &self.overlap, DRAWN + 1)?;
        check_len("lag_overlap", &self.lag_overlap, LAGGED * (DRAWN + 1))?;
        let rounds = self.rounds();
        let times = |k: u64| rounds.checked_mul(k).ok_or_else(|| TallyError::Shape("too many rounds".into()));
        check_sum("numbers", &self.numbers, times(DRAWN as u64)?)?;
        for (k, row) in self.positions.chunks_exact(GRID).enumerate() {
            check_sum(&format!("positions of draw {}", k + 1), row, rounds)?;
        }
        check_sum("pairs", &self.pairs, times((DRAWN * (DRAWN - 1) / 2) as u64)?)?;
        for (k, row) in self.hits.chunks_exact(DRAWN + 1).enumerate() {
            check_sum(&format!("hits of {} picks", k + 1), row, rounds)?;
        }
        check_sum("overlap", &self.overlap, rounds.saturating_sub(1))?;
        for (i, row) in self.lag_overlap.chunks_exact(DRAWN + 1).enumerate() {
            check_sum(&format!("overlap at lag {}", i + 2), row, rounds.saturating_sub(i as u64 + 2))?;
        }
        self.stream.validate(rounds, DRAWN, REFERENCE_WORDS)?;
        // A drawn set holds ten numbers of 1..=40.
        let draws = self.edges.head.iter().chain(&self.edges.tail).all(|&mask| is_ten_distinct(mask));
        if !self.edges.is_consistent(rounds) || !draws {
            return Err(TallyError::Shape("edges do not match the rounds tallied".into()));
        }
        self.check_relations()
    }

    fn rounds(&self) -> u64 {
        self.stream.rounds
    }

    fn edge_reach(&self) -> (u64, u64) {
        (MAX_LAG as u64, MAX_LAG as u64)
    }

    fn check_edges(&self, front: &Self, back: &Self) -> Result<(), TallyError> {
        if self.edges.head == front.edges.head && self.edges.tail == back.edges.tail {
            Ok(())
        } else {
            Err(TallyError::Shape("edges are not the rounds the seeds give".into()))
        }
    }
}

impl KenoTally {
    /// Joins `later`, the edges of the rounds that directly follow this tally's, counting
    /// the overlaps of the round pairs that straddle the join: what [`SequenceTally::append`]
    /// does beside adding the counters. The device sweep joins its threads' runs with it
    /// (their counters already added up on the device).
    pub fn join_edges(&mut self, later: Window<u64>) {
        let (overlap, lag_overlap) = (&mut self.overlap, &mut self.lag_overlap);
        self.edges.join(later, |lag, a, b| count_overlap(overlap, lag_overlap, lag, a & b));
    }

    /// Checks what the counters fix about each other, so that a tally read from a file is
    /// one a sweep could have produced (every single changed counter breaks one of these):
    /// number `n` is drawn in as many rounds as it is drawn at some position, pairs with
    /// the other nine numbers of each of those rounds, and the hits of each pick set add up
    /// to the draws of its numbers. The edges are re-derived from the seeds when a file is
    /// read ([`super::anchor`]); the overlaps between rounds are checked by their sums.
    fn check_relations(&self) -> Result<(), TallyError> {
        let bad = |what: String| Err(TallyError::Shape(what));
        let mut partners = [0u128; GRID];
        for a in 1..=GRID as u8 {
            for b in a + 1..=GRID as u8 {
                let count = u128::from(self.pairs[pair_index(a, b)]);
                partners[usize::from(a) - 1] += count;
                partners[usize::from(b) - 1] += count;
            }
        }
        for (i, &drawn) in self.numbers.iter().enumerate() {
            let at_positions: u128 = (0..DRAWN).map(|k| u128::from(self.positions[k * GRID + i])).sum();
            if at_positions != u128::from(drawn) {
                return bad(format!(
                    "number {} is drawn {drawn} times but {at_positions} times at a position",
                    i + 1
                ));
            }
            if partners[i] != u128::from(drawn) * (DRAWN as u128 - 1) {
                return bad(format!("number {}: pairs do not add up to its {drawn} draws", i + 1));
            }
        }
        let mut picked_draws = 0u128;
        for (k, row) in self.hits.chunks_exact(DRAWN + 1).enumerate() {
            picked_draws += u128::from(self.numbers[usize::from(PICK_ORDER[k]) - 1]);
            let hits: u128 = row.iter().enumerate().map(|(h, &c)| h as u128 * u128::from(c)).sum();
            if hits != picked_draws {
                return bad(format!(
                    "hits of {} picks add up to {hits}, the draws of its numbers to {picked_draws}",
                    k + 1
                ));
            }
        }
        Ok(())
    }

    /// What a round adds beside numbers, pairs and overlaps: positions, hits, the stream.
    #[inline(always)]
    fn record_draw_counts(&mut self, round: &KenoRound, mask: u64) {
        for (k, &n) in round.order.iter().enumerate() {
            self.positions[k * GRID + usize::from(n) - 1] += 1;
        }
        // The `k`-number pick set's hits are the drawn numbers among the first `k` picks:
        // a running sum over the pick order.
        let mut hits = 0;
        for (k, &pick) in PICK_ORDER.iter().enumerate() {
            hits += (mask >> pick) as usize & 1;
            self.hits[k * (DRAWN + 1) + hits] += 1;
        }
        self.stream.record(&round.rejected, REFERENCE_WORDS);
    }

    /// Adds the numbers and pairs of a batch from its columns (`drawn[p]`: the rounds that
    /// drew grid position `p`).
    #[inline(always)]
    fn add_numbers_and_pairs(&mut self, drawn: &[u64; GRID]) {
        let mut row = 0;
        for (a, &column) in drawn.iter().enumerate() {
            self.numbers[a] += u64::from(column.count_ones());
            let partners = &drawn[a + 1..];
            for (count, &other) in self.pairs[row..row + partners.len()].iter_mut().zip(partners) {
                *count += u64::from((column & other).count_ones());
            }
            row += partners.len();
        }
    }

    /// Adds the pick sets' hits of the rounds `live` of a batch from its columns.
    ///
    /// A round's hits on the `k`-number pick set are the sum of the columns of its first
    /// `k` picks, added one pick at a time into a counter of four bits per round held as
    /// four bit planes (plane `b`: bit `b` of every round's count); the rounds with `h`
    /// hits are then those whose four bits spell `h`.
    #[inline(always)]
    fn add_hits(&mut self, drawn: &[u64; GRID], live: u64) {
        let mut planes = [0u64; 4];
        for (k, (&pick, row)) in PICK_ORDER.iter().zip(self.hits.chunks_exact_mut(DRAWN + 1)).enumerate() {
            let mut carry = drawn[usize::from(pick) - 1];
            for plane in &mut planes {
                let sum = *plane ^ carry;
                carry &= *plane;
                *plane = sum;
            }
            // After k + 1 picks a round has at most k + 1 hits.
            for (h, count) in row.iter_mut().enumerate().take(k + 2) {
                let rounds = planes
                    .iter()
                    .enumerate()
                    .fold(live, |rounds, (b, &plane)| rounds & if h >> b & 1 == 1 { plane } else { !plane });
                *count += u64::from(rounds.count_ones());
            }
        }
    }

    /// Adds the overlaps of each round of a batch (`masks`: their drawn-number bit sets)
    /// with each of the ten rounds before it in the segment, then moves the window on.
    ///
    /// A lag at a time over the whole batch: the shared counts of the 64 round pairs as a
    /// row of bytes, compared with each count 0..=10 into bit masks
    /// ([`shared_count_masks`]: a histogram incremented pair by pair was 640 dependent
    /// increments a batch), each ANDed with the entries that are pairs at this lag
    /// (marking the others in the row instead, with `fill`, was a `memset` call whose bytes
    /// the row's load then waited on).
    #[inline(always)]
    fn add_overlaps(&mut self, masks: &[u64]) {
        let recent = self.edges.recent(masks);
        for lag in 1..=MAX_LAG {
            // The round pairs of this lag, as bits: entries `pairs` of the row.
            let pairs = recent.pairs_at(lag);
            let below = |n: usize| u64::MAX.checked_shr(ROUNDS_PER_BATCH as u32 - n as u32).unwrap_or(0);
            let in_pairs = below(pairs.end) & !below(pairs.start);
            let row = match lag {
                1 => &mut self.overlap[..],
                _ => &mut self.lag_overlap[(lag - 2) * (DRAWN + 1)..(lag - 1) * (DRAWN + 1)],
            };
            // `sharing[c]`: the rounds that share `c` numbers with the one `lag` before.
            let mut sharing = [0u64; DRAWN + 1];
            shared_count_masks(recent.now(), recent.before(lag), &mut sharing);
            for (count, &rounds) in row.iter_mut().zip(&sharing) {
                *count += u64::from((rounds & in_pairs).count_ones());
            }
        }
        self.edges.advance(masks);
    }

    /// Numbers and pairs from the set of drawn numbers: a broken draw that repeats a
    /// number is counted as what it is (fewer than ten numbers), not twice.
    #[cold]
    fn record_numbers_and_pairs(&mut self, mask: u64) {
        let mut remaining = mask;
        while remaining != 0 {
            let a = remaining.trailing_zeros() as u8;
            remaining &= remaining - 1;
            self.numbers[usize::from(a) - 1] += 1;
            let mut partners = remaining;
            while partners != 0 {
                self.pairs[pair_index(a, partners.trailing_zeros() as u8)] += 1;
                partners &= partners - 1;
            }
        }
    }

    fn add_counters(&mut self, other: &Self) {
        for (mine, theirs) in [
            (&mut self.numbers, &other.numbers),
            (&mut self.positions, &other.positions),
            (&mut self.pairs, &other.pairs),
            (&mut self.hits, &other.hits),
            (&mut self.overlap, &other.overlap),
            (&mut self.lag_overlap, &other.lag_overlap),
        ] {
            mine.iter_mut().zip(theirs).for_each(|(m, t)| *m += t);
        }
        self.stream.add(&other.stream);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_index_enumerates_all_pairs_once_in_order() {
        let mut expected = 0;
        for a in 1..=40u8 {
            for b in a + 1..=40 {
                assert_eq!(pair_index(a, b), expected);
                assert_eq!(pair_index(b, a), expected);
                expected += 1;
            }
        }
        assert_eq!(expected, PAIRS);
    }

    /// Ten distinct numbers in a random order, from a small test generator (an LCG).
    fn random_draw(state: &mut u64) -> [u8; DRAWN] {
        let mut list: Vec<u8> = (1..=40).collect();
        std::array::from_fn(|k| {
            *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            list.remove((*state >> 33) as usize % (GRID - k))
        })
    }

    #[test]
    fn fast_counts_of_distinct_draws_equal_counts_from_the_drawn_set() {
        // Random rounds of ten distinct numbers: numbers and pairs from the draw order and
        // the pair table, hits by a running sum, against the set-bit loop and popcounts.
        let mut state = 5u64;
        for _ in 0..2_000 {
            let order = random_draw(&mut state);
            let round = KenoRound { order, rejected: [0; DRAWN] };
            let mut fast = KenoTally::default();
            fast.record(&round);
            let mut slow = KenoTally::default();
            slow.record_numbers_and_pairs(round.mask());
            assert_eq!((&fast.numbers, &fast.pairs), (&slow.numbers, &slow.pairs), "{order:?}");
            for (k, pick) in PICK_MASKS.iter().enumerate() {
                let hits = (round.mask() & pick).count_ones() as usize;
                assert_eq!(fast.hits[k * (DRAWN + 1) + hits], 1, "{order:?}, {} picks", k + 1);
            }
        }
    }

    #[test]
    fn counting_a_batch_by_columns_equals_counting_round_by_round() {
        // Rounds of ten distinct numbers, with some broken ones (a repeated number) among
        // them, recorded one by one and in batches of several sizes (across the 64-round
        // columns and the ten-round window), then joined and closed.
        let mut state = 3u64;
        let rounds: Vec<KenoRound> = (0..700)
            .map(|i| {
                let mut order = random_draw(&mut state);
                if i % 97 == 5 {
                    order[3] = order[7];
                }
                KenoRound { order, rejected: std::array::from_fn(|k| u32::from(i % 50 == k)) }
            })
            .collect();
        let mut one_by_one = KenoTally::default();
        rounds.iter().for_each(|round| one_by_one.record(round));
        for batch in [1, 7, 10, 63, 64, 65, 200, 700] {
            let mut batched = KenoTally::default();
            rounds.chunks(batch).for_each(|chunk| batched.record_all(chunk));
            assert_eq!(batched, one_by_one, "batches of {batch}");
        }
        assert!(one_by_one.validate().is_err(), "broken rounds are not ten distinct numbers");
    }

    #[test]
    fn batches_drawn_by_column_tally_as_rounds_drawn_and_recorded_one_by_one() {
        crate::tally::assert_batches_tally_as_rounds_one_by_one::<KenoTally>(Keno);
    }

    #[test]
    fn a_draw_repeating_a_number_counts_the_numbers_it_holds() {
        let round = KenoRound { order: [5, 5, 1, 2, 3, 4, 6, 7, 8, 9], rejected: [0; 10] };
        let mut tally = KenoTally::default();
        tally.record(&round);
        assert_eq!(tally.numbers.iter().sum::<u64>(), 9);
        assert_eq!(tally.numbers[4], 1);
        assert_eq!(tally.pairs.iter().sum::<u64>(), 36);
    }

    #[test]
    fn one_round_counts_ten_numbers_45_pairs_and_one_hit_row_per_pick_count() {
        let round = KenoRound { order: [7, 13, 1, 2, 3, 4, 5, 6, 8, 9], rejected: [0; 10] };
        let mut tally = KenoTally::default();
        tally.record(&round);
        assert_eq!(tally.numbers.iter().sum::<u64>(), 10);
        assert_eq!(tally.pairs.iter().sum::<u64>(), 45);
        assert_eq!(tally.pairs[pair_index(7, 13)], 1);
        assert_eq!(tally.positions[GRID + 12], 1, "13 drawn second");
        // Pick sets {7}, {7,13}, {7,13,22}: 1, 2, 2 hits.
        assert_eq!(tally.hits[1], 1);
        assert_eq!(tally.hits[11 + 2], 1);
        assert_eq!(tally.hits[22 + 2], 1);
        assert_eq!(tally.hits.iter().sum::<u64>(), 10);
        tally.record(&round);
        assert_eq!(tally.overlap[10], 1, "identical consecutive rounds share 10 numbers");
    }
}
