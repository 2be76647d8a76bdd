//! Roulette: one pocket drawn uniformly, European (37 pockets) or American (38, where
//! pocket 37 is shown as "00"), SPEC §5.

use super::{Game, GameId, OutcomeSpace};
use crate::chain::{RoundBatch, WordSource, ROUNDS_PER_BATCH};
use crate::sampler::{limit, PickRule, Rejection};

/// Which wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wheel {
    /// 0..=36.
    European,
    /// 0..=36 and 00 (pocket index 37).
    American,
}

/// Words the operator's published verifier generates per roulette round (SPEC §4).
pub const REFERENCE_WORDS: u64 = 2;

/// The pocket index that American roulette shows as "00".
pub const DOUBLE_ZERO: u8 = 37;

/// The red numbers (SPEC §5); the other non-zero numbers are black.
pub const RED: [u8; 18] = [1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36];

/// Whether a pocket is red (0 and 00 are neither red nor black).
pub const fn is_red(pocket: u8) -> bool {
    let mut i = 0;
    while i < RED.len() {
        if RED[i] == pocket {
            return true;
        }
        i += 1;
    }
    false
}

/// The groups of pockets that the outside bets cover (SPEC §5), plus `green` (0, and 00
/// on a 38-pocket wheel), each with its pockets: the categories of the bet-group tests.
pub fn outside_groups(pockets: usize) -> Vec<(&'static str, Vec<u8>)> {
    let numbers = 1..=36u8;
    vec![
        ("red", numbers.clone().filter(|&n| is_red(n)).collect()),
        ("black", numbers.clone().filter(|&n| !is_red(n)).collect()),
        ("odd", numbers.clone().filter(|n| n % 2 == 1).collect()),
        ("even", numbers.clone().filter(|n| n % 2 == 0).collect()),
        ("low", (1..=18).collect()),
        ("high", (19..=36).collect()),
        ("dozen_1", (1..=12).collect()),
        ("dozen_2", (13..=24).collect()),
        ("dozen_3", (25..=36).collect()),
        ("column_1", numbers.clone().filter(|n| n % 3 == 1).collect()),
        ("column_2", numbers.clone().filter(|n| n % 3 == 2).collect()),
        ("column_3", numbers.filter(|n| n % 3 == 0).collect()),
        ("green", if pockets == 38 { vec![0, DOUBLE_ZERO] } else { vec![0] }),
    ]
}

/// The roulette game on one wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roulette {
    /// The wheel.
    pub wheel: Wheel,
}

impl Roulette {
    /// European roulette.
    pub const EUROPEAN: Roulette = Roulette { wheel: Wheel::European };
    /// American roulette.
    pub const AMERICAN: Roulette = Roulette { wheel: Wheel::American };

    /// Pockets on the wheel (37 or 38).
    pub const fn pockets(&self) -> u32 {
        match self.wheel {
            Wheel::European => 37,
            Wheel::American => 38,
        }
    }

    /// How the operator shows a pocket: "0".."36", or "00" for pocket 37.
    pub fn label(pocket: u8) -> String {
        if pocket == DOUBLE_ZERO {
            "00".to_owned()
        } else {
            pocket.to_string()
        }
    }
}

/// One roulette spin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spin {
    /// The pocket index, 0..=36, or 37 for "00".
    pub pocket: u8,
    /// Words rejected before the accepted one.
    pub rejected: u32,
}

impl Game for Roulette {
    type Outcome = Spin;
    type Drawn = SpinColumns;

    fn id(&self) -> GameId {
        match self.wheel {
            Wheel::European => GameId::RouletteEuropean,
            Wheel::American => GameId::RouletteAmerican,
        }
    }

    fn space(&self) -> OutcomeSpace {
        OutcomeSpace {
            outcomes: self.pockets() as usize,
            draws_per_round: 1,
            reference_words: REFERENCE_WORDS,
        }
    }

    #[inline]
    fn draw<W: WordSource + ?Sized>(&self, words: &mut W, spin: &mut Spin) {
        *spin = spin_wheel::<Rejection, W>(words, self.wheel);
    }

    /// The first words of all rounds are sampled at once;
    /// the rounds that reject theirs (about one in 10⁹) are drawn again one by one.
    // Always inlined: into the sweep's loop compiled for the kernel's path.
    #[inline(always)]
    fn draw_batch(&self, batch: &RoundBatch, out: &mut SpinColumns) {
        // One arm per wheel so that P is a constant and `% P` a multiplication.
        let rejects = match self.wheel {
            Wheel::European => sample_pockets::<37>(batch, &mut out.pockets),
            Wheel::American => sample_pockets::<38>(batch, &mut out.pockets),
        };
        out.len = batch.len();
        out.rejecting = 0;
        if rejects {
            self.redraw_rejecting(batch, out);
        }
    }

    fn drawn_from(spins: &[Spin]) -> SpinColumns {
        SpinColumns::from_spins(spins)
    }

    fn draw_order_text(&self, spin: &Spin) -> String {
        spin.pocket.to_string()
    }

    fn result_text(&self, spin: &Spin) -> String {
        Roulette::label(spin.pocket)
    }

    fn words_consumed(&self, spin: &Spin) -> u64 {
        1 + u64::from(spin.rejected)
    }
}

/// Spins `wheel` from `words` by the pick rule `R`: a pick among its 37 or 38 pockets.
/// Every scheme's roulette is this function over its own rule (`SPEC.md`'s
/// [`Rejection`] here, the HMAC family's floor of a float in [`crate::scheme::stake`]).
#[inline]
pub fn spin_wheel<R: PickRule, W: WordSource + ?Sized>(words: &mut W, wheel: Wheel) -> Spin {
    // One arm per wheel so that P is a constant and `% P` a multiplication.
    let pick = match wheel {
        Wheel::European => R::pick(words, Roulette::EUROPEAN.pockets()),
        Wheel::American => R::pick(words, Roulette::AMERICAN.pockets()),
    };
    Spin { pocket: pick.index as u8, rejected: pick.rejected }
}

/// The spins of one batch ([`RoundBatch`], up to [`ROUNDS_PER_BATCH`] consecutive
/// rounds) side by side: what [`Roulette::draw_batch`] fills and the sweep's roulette
/// tally reads.
#[derive(Clone, Debug)]
pub struct SpinColumns {
    /// `pockets[r]`: round `r`'s pocket. Entries from `len` on mean nothing.
    pub pockets: [u8; ROUNDS_PER_BATCH],
    /// Rounds held: 1..=[`ROUNDS_PER_BATCH`].
    pub len: usize,
    /// Bit `r` set: round `r` rejected at least one word.
    pub rejecting: u64,
    /// `rejected[r]`: the words round `r` rejected, where `rejecting` has bit `r`.
    pub rejected: [u32; ROUNDS_PER_BATCH],
}

impl Default for SpinColumns {
    fn default() -> Self {
        Self { pockets: [0; ROUNDS_PER_BATCH], len: 0, rejecting: 0, rejected: [0; ROUNDS_PER_BATCH] }
    }
}

impl SpinColumns {
    /// Up to [`ROUNDS_PER_BATCH`] spins drawn one by one, side by side.
    ///
    /// # Panics
    /// If `spins` is empty or longer than [`ROUNDS_PER_BATCH`].
    pub fn from_spins(spins: &[Spin]) -> Self {
        assert!((1..=ROUNDS_PER_BATCH).contains(&spins.len()), "1 to {ROUNDS_PER_BATCH} spins");
        let mut column = Self { len: spins.len(), ..Self::default() };
        for (r, spin) in spins.iter().enumerate() {
            column.set_spin(r, spin);
        }
        column
    }

    /// Spin `r` as drawn one by one.
    pub fn spin(&self, r: usize) -> Spin {
        assert!(r < self.len, "spin {r} of {}", self.len);
        let rejected = if self.rejecting >> r & 1 == 1 { self.rejected[r] } else { 0 };
        Spin { pocket: self.pockets[r], rejected }
    }

    fn set_spin(&mut self, r: usize, spin: &Spin) {
        self.pockets[r] = spin.pocket;
        self.rejected[r] = spin.rejected;
        if spin.rejected > 0 {
            self.rejecting |= 1 << r;
        } else {
            self.rejecting &= !(1 << r);
        }
    }
}

impl Roulette {
    /// The rounds of `batch` whose first word was rejected, drawn one by one.
    #[cold]
    #[inline(never)]
    fn redraw_rejecting(&self, batch: &RoundBatch, out: &mut SpinColumns) {
        let mut words = [0u32; ROUNDS_PER_BATCH];
        batch.word_column(0, &mut words);
        let largest = (limit(self.pockets()) - 1) as u32;
        let mut spin = Spin::default();
        for r in (0..batch.len()).filter(|&r| words[r] > largest) {
            self.draw(&mut batch.words(r), &mut spin);
            out.set_spin(r, &spin);
        }
    }
}

/// Samples the first word of every round of `batch` among `P` pockets, into `pockets`;
/// whether any word was rejected (those rounds' pockets then mean nothing).
#[inline(always)]
fn sample_pockets<const P: u32>(batch: &RoundBatch, pockets: &mut [u8; ROUNDS_PER_BATCH]) -> bool {
    let largest = (limit(P) - 1) as u32;
    let mut words = [0u32; ROUNDS_PER_BATCH];
    batch.word_column(0, &mut words);
    let mut rejects = 0u8;
    for (pocket, &word) in pockets.iter_mut().zip(&words) {
        *pocket = (word % P) as u8;
        rejects |= u8::from(word > largest);
    }
    rejects != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::FixedWords;

    #[test]
    fn american_pocket_37_is_double_zero_and_european_never_reaches_it() {
        let mut spin = Spin::default();
        Roulette::AMERICAN.draw(&mut FixedWords::new([37]), &mut spin);
        assert_eq!(Roulette::AMERICAN.result_text(&spin), "00");
        assert_eq!(Roulette::AMERICAN.draw_order_text(&spin), "37");
        Roulette::EUROPEAN.draw(&mut FixedWords::new([37]), &mut spin);
        assert_eq!(spin.pocket, 0);
    }

    #[test]
    fn a_batch_draws_each_spin_as_drawn_alone_on_every_path_and_with_rejections() {
        use crate::chain::{BatchHasher, KeccakPath, Kernel, RoundHasher};
        let check = |wheel: Roulette, batch: &RoundBatch, what: &str| {
            let mut out = SpinColumns::default();
            wheel.draw_batch(batch, &mut out);
            let mut spins = Vec::new();
            for r in 0..batch.len() {
                let mut spin = Spin::default();
                wheel.draw(&mut batch.words(r), &mut spin);
                assert_eq!(out.spin(r), spin, "{what}, round {r}");
                spins.push(spin);
            }
            let one_by_one = SpinColumns::from_spins(&spins);
            assert_eq!(out.rejecting, one_by_one.rejecting, "{what}");
            out.rejecting.count_ones()
        };
        for wheel in [Roulette::EUROPEAN, Roulette::AMERICAN] {
            for path in KeccakPath::supported() {
                let mut batcher = BatchHasher::new(&RoundHasher::new("s", "c"), Kernel::new(path).unwrap());
                let mut batch = RoundBatch::default();
                for nonces in [0..64, 999_990..1_000_054, 5..6, 70..103] {
                    batcher.hash(nonces.clone(), &mut batch);
                    check(wheel, &batch, &format!("{wheel:?}, {path}, nonces {nonces:?}"));
                }
            }
            // Rounds whose first words are rejected (u32::MAX at 37 and 38 pockets), once
            // or again in their second word.
            let mut x = 3u64;
            let mut rejecting = 0;
            for case in 0..200 {
                let states: Vec<[u64; 25]> = (0..1 + case % 64)
                    .map(|_| {
                        let mut state: [u64; 25] = std::array::from_fn(|_| {
                            x = x
                                .wrapping_mul(6_364_136_223_846_793_005)
                                .wrapping_add(1_442_695_040_888_963_407);
                            x
                        });
                        match state[1] % 5 {
                            0 => state[0] |= 0xFFFF_FFFF,
                            1 => state[0] = u64::MAX,
                            _ => {}
                        }
                        state
                    })
                    .collect();
                rejecting +=
                    check(wheel, &RoundBatch::from_states(case as u64, &states), &format!("case {case}"));
            }
            assert!(rejecting > 1000, "only {rejecting} spins rejected a word");
        }
    }

    #[test]
    fn eighteen_red_eighteen_black() {
        assert_eq!((1..=36).filter(|&p| is_red(p)).count(), 18);
        assert!(!is_red(0) && !is_red(DOUBLE_ZERO));
    }
}
