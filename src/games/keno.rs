//! Keno: 10 numbers drawn one by one, without repetition, from 1..=40 (SPEC §4).
//!
//! The not-yet-drawn numbers are kept ascending; each draw samples an index among the
//! `P` that remain (P = 40, 39, …, 31) and removes that element, keeping the order.

use super::{Game, GameId, OutcomeSpace};
use crate::chain::{RoundBatch, WordSource, ROUNDS_PER_BATCH};
use crate::sampler::{limit, PickRule, Rejection};

/// Numbers on the Keno grid.
pub const GRID: usize = 40;
/// Numbers drawn per round.
pub const DRAWN: usize = 10;
/// Words the operator's published verifier generates per Keno round (SPEC §4).
pub const REFERENCE_WORDS: u64 = 80;

/// The Keno game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keno;

/// One Keno round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KenoRound {
    /// The drawn numbers (1..=40) in draw order.
    pub order: [u8; DRAWN],
    /// Words rejected at each draw; draw `k` sampled among `40 - k` numbers.
    pub rejected: [u32; DRAWN],
}

impl KenoRound {
    /// The drawn numbers as a bit set: bit `n` is set when number `n` was drawn.
    #[inline]
    pub fn mask(&self) -> u64 {
        self.order.iter().fold(0, |mask, &n| mask | 1 << n)
    }

    /// The drawn numbers ascending, as the operator shows the result.
    pub fn sorted(&self) -> [u8; DRAWN] {
        let mut sorted = self.order;
        sorted.sort_unstable();
        sorted
    }
}

/// Numbers a Keno draw samples among at draw `k` (0-based).
pub const fn choices_at_draw(k: usize) -> u32 {
    (GRID - k) as u32
}

impl Game for Keno {
    type Outcome = KenoRound;
    type Drawn = KenoColumns;

    fn id(&self) -> GameId {
        GameId::Keno
    }

    fn space(&self) -> OutcomeSpace {
        OutcomeSpace { outcomes: GRID, draws_per_round: DRAWN, reference_words: REFERENCE_WORDS }
    }

    // Always inlined: into the sweep's loop compiled for the kernel's path.
    #[inline(always)]
    fn draw<W: WordSource + ?Sized>(&self, words: &mut W, round: &mut KenoRound) {
        draw_numbers::<Rejection, W>(words, round);
    }

    /// By column: word `k` of all rounds is sampled at once (its P a constant, `% P` a
    /// multiplication), the indices decoded into grid positions row by row as in
    /// `positions_in_grid`, and the few rounds that reject one of their first ten words
    /// (about one in 10⁸) drawn again one by one, from their own stream, afterwards. One
    /// round at a time, the draw cost a sixth of the whole Keno sweep on the AVX-512 path
    /// (profiled): per-round work that vector lanes do for 32 or 64 rounds at once.
    // Always inlined: into the sweep's loop compiled for the kernel's path.
    #[inline(always)]
    fn draw_batch(&self, batch: &RoundBatch, out: &mut KenoColumns) {
        let mut indices = [[0u8; ROUNDS_PER_BATCH]; DRAWN];
        let mut rejects = [0u8; ROUNDS_PER_BATCH];
        // One call per draw, so that each draw's P is a constant.
        sample_column::<0>(batch, &mut indices[0], &mut rejects);
        sample_column::<1>(batch, &mut indices[1], &mut rejects);
        sample_column::<2>(batch, &mut indices[2], &mut rejects);
        sample_column::<3>(batch, &mut indices[3], &mut rejects);
        sample_column::<4>(batch, &mut indices[4], &mut rejects);
        sample_column::<5>(batch, &mut indices[5], &mut rejects);
        sample_column::<6>(batch, &mut indices[6], &mut rejects);
        sample_column::<7>(batch, &mut indices[7], &mut rejects);
        sample_column::<8>(batch, &mut indices[8], &mut rejects);
        sample_column::<9>(batch, &mut indices[9], &mut rejects);
        // The decode of `positions_in_grid`, a row of rounds at a time: draw `k`'s index
        // moves up one past each earlier draw's, from the last earlier draw back.
        out.positions[0] = indices[0];
        for k in 1..DRAWN {
            let (earlier, later) = indices.split_at(k);
            let mut positions = later[0];
            for removed in earlier.iter().rev() {
                for (position, &removed) in positions.iter_mut().zip(removed) {
                    *position += u8::from(*position >= removed);
                }
            }
            out.positions[k] = positions;
        }
        out.len = batch.len();
        out.rejecting = 0;
        if rejects.iter().fold(0, |any, &reject| any | reject) != 0 {
            self.redraw_rejecting(batch, &rejects, out);
        }
    }

    fn drawn_from(rounds: &[KenoRound]) -> KenoColumns {
        KenoColumns::from_rounds(rounds)
    }

    fn draw_order_text(&self, round: &KenoRound) -> String {
        join_numbers(&round.order)
    }

    fn result_text(&self, round: &KenoRound) -> String {
        join_numbers(&round.sorted())
    }

    fn words_consumed(&self, round: &KenoRound) -> u64 {
        DRAWN as u64 + round.rejected.iter().map(|&r| u64::from(r)).sum::<u64>()
    }
}

/// Words already read from a round's stream, handed out again before the rest of it: the
/// draw of a round that rejected one of its first ten words.
/// Draws one Keno round from `words` by the pick rule `R` into `round`, overwriting it:
/// draw `k` picks an index among the `40 - k` numbers left (kept ascending), and the
/// number there is taken out. Every scheme's Keno is this function over its own rule
/// (`SPEC.md`'s [`Rejection`] here, the HMAC family's floor of a float in
/// [`crate::scheme::stake`]).
// Always inlined: into the sweep's loop compiled for the kernel's path.
#[inline(always)]
pub fn draw_numbers<R: PickRule, W: WordSource + ?Sized>(words: &mut W, round: &mut KenoRound) {
    // Sampling depends only on the words, not on which numbers were drawn, so the ten
    // indices are sampled first, then turned into numbers all at once. Each draw's P
    // is a constant, so the sampler's limit and `% P` compile to multiplications (a
    // loop paid two divisions per draw: a fifth of a sweep's time, profiled).
    //
    // Nearly every round rejects no word (at most 2³² mod P of the 2³² values are
    // rejected: about one round in 10⁸), so the first ten words are read at once and
    // checked together; a round that rejects one is drawn again, word by word, from
    // the same ten words and then the rest of its stream.
    let mut first = [0u32; DRAWN];
    words.fill_words(&mut first);
    let mut indices = [0u8; LANES];
    let all_accepted =
        (0..DRAWN).fold(true, |ok, k| ok & (u64::from(first[k]) < R::limit(choices_at_draw(k))));
    if all_accepted {
        for (k, (index, word)) in indices.iter_mut().zip(first).enumerate() {
            *index = R::index(word, choices_at_draw(k)) as u8;
        }
        round.rejected = [0; DRAWN];
    } else {
        let mut words = Replayed { first, next: 0, rest: words };
        for (k, (index, rejected)) in indices.iter_mut().zip(&mut round.rejected).enumerate() {
            let pick = R::pick(&mut words, choices_at_draw(k));
            *index = pick.index as u8;
            *rejected = pick.rejected;
        }
    }
    let positions = positions_in_grid(indices);
    for (number, position) in round.order.iter_mut().zip(positions) {
        *number = position + 1;
    }
}

struct Replayed<'a, W: ?Sized> {
    first: [u32; DRAWN],
    next: usize,
    rest: &'a mut W,
}

impl<W: WordSource + ?Sized> WordSource for Replayed<'_, W> {
    fn next_word(&mut self) -> u32 {
        match self.first.get(self.next) {
            Some(&word) => {
                self.next += 1;
                word
            }
            None => self.rest.next_word(),
        }
    }
}

/// Width of the index vector: the ten draws padded to a 16-byte vector.
const LANES: usize = 16;

/// Turns the draws' indices into positions in the full grid (0-based): `indices[k]` is the
/// index of draw `k` among the numbers left, ascending (SPEC §4), i.e. a Lehmer code.
///
/// Decoded from the last draw back: an earlier draw at position `p` was removed before the
/// later ones sampled, so each later position at or above `p` moves up one. The same
/// removal as SPEC §4's list, without a list: a short chain of vector compares and adds
/// (where removing from a list, one draw after the other, was a chain of dependent memory
/// moves or bit selects, about a quarter of a Keno sweep's time on the AVX-512 path).
#[inline(always)]
fn positions_in_grid(indices: [u8; LANES]) -> [u8; LANES] {
    let mut positions = indices;
    for earlier in (0..DRAWN - 1).rev() {
        // Only later draws have moved so far: draw `earlier`'s position is still its index,
        // taken from `indices` so that the steps depend on each other only through adds.
        let removed = indices[earlier];
        for (position, &later) in positions.iter_mut().zip(&IS_LATER[earlier]) {
            *position += later & u8::from(*position >= removed);
        }
    }
    positions
}

const fn is_later() -> [[u8; LANES]; DRAWN] {
    let mut table = [[0; LANES]; DRAWN];
    let mut earlier = 0;
    while earlier < DRAWN {
        let mut later = earlier + 1;
        while later < LANES {
            table[earlier][later] = 1;
            later += 1;
        }
        earlier += 1;
    }
    table
}

/// `IS_LATER[e][k]` is 1 where draw `k` comes after draw `e`: the lanes a removal moves.
const IS_LATER: [[u8; LANES]; DRAWN] = is_later();

/// The rounds of one batch ([`RoundBatch`], up to [`ROUNDS_PER_BATCH`] consecutive
/// rounds) drawn by draw rather than by round: what [`Keno::draw_batch`] fills and the
/// sweep's Keno tally reads (`KenoTally::record_columns`). A draw of every round of the
/// batch is one row of bytes, so drawing and counting work on whole rows in vector lanes.
#[derive(Clone, Debug)]
pub struct KenoColumns {
    /// `positions[k][r]`: the number round `r` drew at draw `k`, as its place in the grid
    /// (number − 1, so 0..=39). Entries from `len` on mean nothing.
    pub positions: [[u8; ROUNDS_PER_BATCH]; DRAWN],
    /// Rounds held: 1..=[`ROUNDS_PER_BATCH`].
    pub len: usize,
    /// Bit `r` set: round `r` rejected at least one word.
    pub rejecting: u64,
    /// `rejected[r]`: the words round `r` rejected at each draw, where `rejecting` has bit
    /// `r` (elsewhere they mean nothing: every other round rejected none).
    pub rejected: [[u32; DRAWN]; ROUNDS_PER_BATCH],
}

impl Default for KenoColumns {
    fn default() -> Self {
        Self {
            positions: [[0; ROUNDS_PER_BATCH]; DRAWN],
            len: 0,
            rejecting: 0,
            rejected: [[0; DRAWN]; ROUNDS_PER_BATCH],
        }
    }
}

impl KenoColumns {
    /// Up to [`ROUNDS_PER_BATCH`] rounds drawn one by one, by column.
    ///
    /// # Panics
    /// If `rounds` is empty or longer than [`ROUNDS_PER_BATCH`], or a number is not in
    /// 1..=40.
    pub fn from_rounds(rounds: &[KenoRound]) -> Self {
        assert!((1..=ROUNDS_PER_BATCH).contains(&rounds.len()), "1 to {ROUNDS_PER_BATCH} rounds");
        let mut columns = Self { len: rounds.len(), ..Self::default() };
        for (r, round) in rounds.iter().enumerate() {
            columns.set_round(r, round);
        }
        columns
    }

    /// Round `r` as drawn one by one.
    pub fn round(&self, r: usize) -> KenoRound {
        assert!(r < self.len, "round {r} of {}", self.len);
        let rejecting = self.rejecting >> r & 1 == 1;
        KenoRound {
            order: std::array::from_fn(|k| self.positions[k][r] + 1),
            rejected: if rejecting { self.rejected[r] } else { [0; DRAWN] },
        }
    }

    fn set_round(&mut self, r: usize, round: &KenoRound) {
        for (column, &number) in self.positions.iter_mut().zip(&round.order) {
            assert!((1..=GRID as u8).contains(&number), "Keno number {number}");
            column[r] = number - 1;
        }
        if round.rejected.iter().any(|&rejected| rejected > 0) {
            self.rejecting |= 1 << r;
            self.rejected[r] = round.rejected;
        } else {
            self.rejecting &= !(1 << r);
        }
    }

    /// Each round's drawn numbers as a bit set (bit `n` for number `n`, as
    /// [`KenoRound::mask`]); the entries from `len` on mean nothing.
    #[inline(always)]
    pub fn masks(&self) -> [u64; ROUNDS_PER_BATCH] {
        let mut masks = [0u64; ROUNDS_PER_BATCH];
        for column in &self.positions {
            for (mask, &position) in masks.iter_mut().zip(column) {
                // `& 63`: a shift the vector shifts take as it is (positions are below 40).
                *mask |= 1 << ((position + 1) & 63);
            }
        }
        masks
    }
}

impl Keno {
    /// The rounds of `batch` that rejected one of their first ten words, drawn one by one.
    #[cold]
    #[inline(never)]
    fn redraw_rejecting(&self, batch: &RoundBatch, rejects: &[u8; ROUNDS_PER_BATCH], out: &mut KenoColumns) {
        let mut round = KenoRound::default();
        for r in (0..batch.len()).filter(|&r| rejects[r] != 0) {
            self.draw(&mut batch.words(r), &mut round);
            out.set_round(r, &round);
        }
    }
}

/// Samples draw `K` of every round of `batch`: its index among the numbers left, and
/// whether the word was rejected (then the index means nothing; the round is redrawn).
#[inline(always)]
fn sample_column<const K: usize>(
    batch: &RoundBatch,
    indices: &mut [u8; ROUNDS_PER_BATCH],
    rejects: &mut [u8; ROUNDS_PER_BATCH],
) {
    let choices = choices_at_draw(K);
    // The largest accepted word (limit − 1 fits in a u32 where the limit itself may not).
    let largest = (limit(choices) - 1) as u32;
    let mut words = [0u32; ROUNDS_PER_BATCH];
    batch.word_column(K, &mut words);
    for ((index, reject), &word) in indices.iter_mut().zip(rejects.iter_mut()).zip(&words) {
        *index = (word % choices) as u8;
        *reject |= u8::from(word > largest);
    }
}

fn join_numbers(numbers: &[u8]) -> String {
    numbers.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::FixedWords;
    use crate::sampler::sample;

    #[test]
    fn zero_words_draw_the_lowest_remaining_number_each_time() {
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([0]), &mut round);
        assert_eq!(round.order, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn index_is_into_the_remaining_list_not_the_grid() {
        // 39 % 40 = 39 -> 40; then 38 % 39 = 38 -> 39 (the last remaining); then 0 -> 1.
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([39, 38, 0]), &mut round);
        assert_eq!(&round.order[..3], &[40, 39, 1]);
        assert_eq!(round.sorted()[..3], [1, 2, 3]);
    }

    #[test]
    fn a_rejected_word_is_recorded_at_its_draw() {
        // 2^32 - 1 is rejected at P = 40 (limit 4_294_967_280).
        let mut round = KenoRound::default();
        let mut words = FixedWords::new([u32::MAX, 5, 0]);
        Keno.draw(&mut words, &mut round);
        assert_eq!(round.rejected[0], 1);
        assert_eq!(round.order[0], 6);
        assert_eq!(Keno.words_consumed(&round), 11);
        assert_eq!(words.words_used(), 11);
    }

    #[test]
    fn rejections_anywhere_in_a_round_draw_as_word_by_word() {
        // Rounds whose words hold rejected values (u32::MAX is rejected at every P here)
        // at random places among the first ten and beyond: the draw that reads ten words at
        // once must give SPEC §4's word-by-word removal, and consume the same words.
        let mut x = 11u64;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 32) as u32
        };
        for case in 0..5_000 {
            let words: Vec<u32> =
                (0..30).map(|_| if case % 2 == 0 && next() % 6 == 0 { u32::MAX } else { next() }).collect();
            let mut reference = FixedWords::new(words.clone());
            let mut list: Vec<u8> = (1..=40).collect();
            let mut expected = KenoRound::default();
            for k in 0..DRAWN {
                let pick = sample(&mut reference, choices_at_draw(k));
                expected.order[k] = list.remove(pick.index as usize);
                expected.rejected[k] = pick.rejected;
            }
            let mut source = FixedWords::new(words);
            let mut round = KenoRound::default();
            Keno.draw(&mut source, &mut round);
            assert_eq!(round, expected, "case {case}");
            assert_eq!(source.words_used(), reference.words_used(), "case {case}");
        }
    }

    #[test]
    fn decoded_positions_equal_removal_from_an_ascending_list() {
        // Many draw sequences of a round's shape, with a simple generator for the indices,
        // and the extremes (always the first, always the last number left).
        let mut x = 7u64;
        let mut sequences: Vec<[u8; DRAWN]> = vec![[0; DRAWN], std::array::from_fn(|k| (GRID - 1 - k) as u8)];
        for _ in 0..20_000 {
            sequences.push(std::array::from_fn(|k| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                ((x >> 33) % (GRID - k) as u64) as u8
            }));
        }
        for indices in sequences {
            let mut list: Vec<u8> = (1..=40).collect();
            let expected: Vec<u8> = indices.iter().map(|&i| list.remove(usize::from(i))).collect();
            let mut padded = [0u8; LANES];
            padded[..DRAWN].copy_from_slice(&indices);
            let got: Vec<u8> = positions_in_grid(padded)[..DRAWN].iter().map(|p| p + 1).collect();
            assert_eq!(got, expected, "indices {indices:?}");
        }
    }

    /// Keno rounds of `batch` drawn one by one.
    fn drawn_one_by_one(batch: &RoundBatch) -> Vec<KenoRound> {
        (0..batch.len())
            .map(|r| {
                let mut round = KenoRound::default();
                Keno.draw(&mut batch.words(r), &mut round);
                round
            })
            .collect()
    }

    fn assert_batch_draw_matches(batch: &RoundBatch, out: &mut KenoColumns, what: &str) {
        Keno.draw_batch(batch, out);
        assert_eq!(out.len, batch.len(), "{what}");
        for (r, expected) in drawn_one_by_one(batch).iter().enumerate() {
            assert_eq!(&out.round(r), expected, "{what}, round {r}");
            assert_eq!(out.masks()[r], expected.mask(), "{what}, round {r}");
        }
        let one_by_one = KenoColumns::from_rounds(&drawn_one_by_one(batch));
        assert_eq!(out.rejecting, one_by_one.rejecting, "{what}");
        for r in 0..batch.len() {
            assert_eq!(one_by_one.round(r), out.round(r), "{what}, round {r} through from_rounds");
        }
    }

    #[test]
    fn a_batch_draws_each_round_as_drawn_alone_on_every_path() {
        use crate::chain::{BatchHasher, KeccakPath, Kernel, RoundHasher};
        let mut out = KenoColumns::default();
        for path in KeccakPath::supported() {
            for (server, client) in [("s", "c"), (&*"8b".repeat(32), &*"b2".repeat(32))] {
                let mut batcher =
                    BatchHasher::new(&RoundHasher::new(server, client), Kernel::new(path).unwrap());
                let mut batch = RoundBatch::default();
                // Full batches, then partial ones over what they left (stale rounds beyond
                // the batch's length must not count).
                for nonces in [0..64, 999_990..1_000_054, 5..6, 70..103] {
                    batcher.hash(nonces.clone(), &mut batch);
                    assert_batch_draw_matches(&batch, &mut out, &format!("{path}, nonces {nonces:?}"));
                }
            }
        }
    }

    #[test]
    fn rounds_of_a_batch_that_reject_are_redrawn_exactly() {
        // Random stream states with words rejected at every P (u32::MAX; at P = 32 it is
        // accepted) put among a round's first ten words, one or several, in some rounds.
        let mut x = 99u64;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x
        };
        let mut out = KenoColumns::default();
        let mut rejecting = 0;
        for case in 0..300 {
            let len = 1 + (next() % ROUNDS_PER_BATCH as u64) as usize;
            let states: Vec<[u64; 25]> = (0..len)
                .map(|_| {
                    let mut state: [u64; 25] = std::array::from_fn(|_| next());
                    for _ in 0..(next() % 4) * u64::from(next() % 3 == 0) {
                        let k = (next() % DRAWN as u64) as usize;
                        state[k / 2] |= 0xFFFF_FFFF << (32 * (k % 2));
                    }
                    state
                })
                .collect();
            let batch = RoundBatch::from_states(case, &states);
            assert_batch_draw_matches(&batch, &mut out, &format!("case {case}"));
            rejecting += out.rejecting.count_ones();
        }
        assert!(rejecting > 500, "only {rejecting} rounds rejected a word");
    }

    #[test]
    fn mask_has_one_bit_per_drawn_number() {
        let mut round = KenoRound::default();
        Keno.draw(&mut FixedWords::new([17, 3, 29, 0]), &mut round);
        assert_eq!(round.mask().count_ones(), 10);
        assert_eq!(round.mask() & 1, 0, "bit 0 is never a Keno number");
    }
}
