//! Rounds hashed in batches of consecutive nonces, with the shared first block of their
//! messages absorbed once (the cached midstate).
//!
//! [`BatchHasher::hash`] takes up to [`ROUNDS_PER_BATCH`] consecutive nonces of one seed
//! pair and returns, in a [`RoundBatch`], each round's SHAKE256 state after its first
//! squeeze: the first 34 words of each round's stream, and the state from which any
//! later block is permuted. [`RoundBatch::words`] reads a round as a [`WordSource`]; a
//! round that needs more than 34 words (rejections) continues exactly on the scalar path
//! from that state ([`ShakeWords::after_first_block`]).
//!
//! Per round, three permutations become at most two, batched:
//!
//! 1. **The shared block.** The signature message is `S:C:n`. [`RoundHasher`] absorbs
//!    `S:C:` once per seed pair; if the nonce's digits then complete a 136-byte block
//!    (the prefix fills `f` bytes of its last block and the nonce has at least
//!    `136 − f` digits), that block holds the prefix's tail and the nonce's first
//!    `136 − f` digits only. Consecutive nonces with the same digits there share it: with
//!    64-character seeds (`f` = 130) the first 6 digits, so 10 consecutive nonces at 7
//!    digits, 100 at 8. The state after permuting that block (the midstate) is computed
//!    once per distinct leading digits, in batches when a batch has enough of them, and
//!    kept from one batch to the next. Short seeds complete no block: nothing is cached.
//! 2. **The last block of the signature**: the midstate (or the prefix state), XOR the
//!    nonce's remaining digits and SHA3's padding, permuted in lanes of the kernel.
//! 3. **The stream's first block**: the 64 hex characters of the signature, with
//!    SHAKE256's padding, permuted in lanes of the kernel.
//!
//! The nonce is formatted once per batch and then counted up in decimal, so a round
//! formats nothing and allocates nothing.

use super::kernel::{BatchState, Kernel, BATCH_LANES};
use super::sponge::{permute, KeccakState, RATE_BYTES, RATE_LANES, SHA3_DOMAIN, SHAKE_DOMAIN};
use super::words::{ShakeWords, WordSource, WORDS_PER_BLOCK};
use super::{hex_word, RoundHasher};
use std::ops::Range;

/// Rounds per [`BatchHasher::hash`] call: eight kernel batches. Large enough that the
/// midstates of a batch (7 at 7-digit nonces with 64-character seeds) fill a kernel batch
/// of their own, small enough that a batch stays in the L1 cache (about 13 KB).
pub const ROUNDS_PER_BATCH: usize = 8 * BATCH_LANES;

const GROUPS: usize = ROUNDS_PER_BATCH / BATCH_LANES;

/// The most decimal digits of a `u64`.
const MAX_DIGITS: usize = 20;

/// A nonce in decimal that counts up without formatting.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    digits: [u8; MAX_DIGITS],
    len: usize,
}

impl Decimal {
    fn new(value: u64) -> Self {
        let mut buffer = itoa::Buffer::new();
        let text = buffer.format(value).as_bytes();
        let mut digits = [b'0'; MAX_DIGITS];
        digits[..text.len()].copy_from_slice(text);
        Self { digits, len: text.len() }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.digits[..self.len]
    }

    /// Adds one, and returns the position of the leftmost digit that changed (0 when the
    /// number gains a digit). The caller never counts past `u64::MAX` (20 digits).
    #[inline]
    fn increment(&mut self) -> usize {
        for (position, digit) in self.digits[..self.len].iter_mut().enumerate().rev() {
            if *digit != b'9' {
                *digit += 1;
                return position;
            }
            *digit = b'0';
        }
        // All nines: 10…0 with one digit more (the tail is already zeros).
        self.digits[0] = b'1';
        self.digits[self.len] = b'0';
        self.len += 1;
        0
    }
}

/// Up to [`ROUNDS_PER_BATCH`] rounds of consecutive nonces: each round's SHAKE256 state
/// after its first squeeze. Filled by [`BatchHasher::hash`].
#[derive(Clone, Debug)]
pub struct RoundBatch {
    /// Round `r` is state `r % BATCH_LANES` of group `r / BATCH_LANES`.
    groups: [BatchState; GROUPS],
    first_nonce: u64,
    len: usize,
}

impl Default for RoundBatch {
    fn default() -> Self {
        Self { groups: [BatchState::default(); GROUPS], first_nonce: 0, len: 0 }
    }
}

impl RoundBatch {
    /// How many rounds the batch holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The nonce of round 0.
    pub fn first_nonce(&self) -> u64 {
        self.first_nonce
    }

    /// Round `r`'s word stream (the round of nonce `first_nonce() + r`).
    ///
    /// # Panics
    /// If `r` is not below [`RoundBatch::len`].
    #[inline]
    pub fn words(&self, r: usize) -> BlockWords<'_> {
        assert!(r < self.len, "round {r} of a batch of {}", self.len);
        BlockWords { group: &self.groups[r / BATCH_LANES], lane: r % BATCH_LANES, next: 0, later: None }
    }

    /// Word `k` of every round at once (`k` below 34: within the first block): `out[r]` is
    /// the word that [`RoundBatch::words`]`(r)` gives as its `k`-th, for each round `r`
    /// below [`RoundBatch::len`]; the entries from `len()` on are left over from earlier
    /// batches and mean nothing. The games' batch draws read a batch this way, a draw of
    /// every round at a time in vector lanes: word `k` of eight rounds is one row of their
    /// interleaved states.
    ///
    /// # Panics
    /// If `k` is not below 34.
    #[inline(always)]
    pub fn word_column(&self, k: usize, out: &mut [u32; ROUNDS_PER_BATCH]) {
        assert!(k < WORDS_PER_BLOCK, "word {k} is not in the first block");
        let shift = 32 * (k % 2);
        for (words, group) in out.chunks_exact_mut(BATCH_LANES).zip(&self.groups) {
            for (word, &lane) in words.iter_mut().zip(&group.0[k / 2]) {
                *word = ((lane >> shift) as u32).swap_bytes();
            }
        }
    }

    /// A batch whose rounds have the given stream states (each a round's SHAKE256 state
    /// after its first squeeze), for tests that need crafted words: the words of round `r`
    /// are read from `states[r]` exactly as from a hashed round's.
    #[cfg(test)]
    pub(crate) fn from_states(first_nonce: u64, states: &[KeccakState]) -> Self {
        assert!((1..=ROUNDS_PER_BATCH).contains(&states.len()));
        let mut batch = Self { first_nonce, len: states.len(), ..Self::default() };
        for (r, state) in states.iter().enumerate() {
            batch.groups[r / BATCH_LANES].set(r % BATCH_LANES, state);
        }
        batch
    }

    /// Round `r`'s first 136 stream bytes (its first 34 words, big-endian), into `out`.
    ///
    /// # Panics
    /// If `r` is not below [`RoundBatch::len`].
    #[inline]
    pub fn first_block(&self, r: usize, out: &mut [u8; RATE_BYTES]) {
        assert!(r < self.len, "round {r} of a batch of {}", self.len);
        let (group, lane) = (&self.groups[r / BATCH_LANES], r % BATCH_LANES);
        for (bytes, row) in out.chunks_exact_mut(8).zip(&group.0) {
            bytes.copy_from_slice(&row[lane].to_le_bytes());
        }
    }

    /// Round `r`'s stream after its first block: the next word read is its 35th.
    pub fn after_first_block(&self, r: usize) -> ShakeWords {
        assert!(r < self.len, "round {r} of a batch of {}", self.len);
        ShakeWords::after_first_block(self.groups[r / BATCH_LANES].get(r % BATCH_LANES))
    }
}

/// One round of a [`RoundBatch`] as a [`WordSource`]: the first 34 words straight from the
/// batch, later ones from the scalar path, exactly as [`ShakeWords`] would give them.
#[derive(Clone, Debug)]
pub struct BlockWords<'a> {
    group: &'a BatchState,
    lane: usize,
    /// Index of the next word within the first block (0..=WORDS_PER_BLOCK).
    next: usize,
    /// The stream after the first block, once a word beyond it was read.
    later: Option<ShakeWords>,
}

impl BlockWords<'_> {
    #[cold]
    #[inline(never)]
    fn later_word(&mut self) -> u32 {
        let (group, lane) = (self.group, self.lane);
        self.later.get_or_insert_with(|| ShakeWords::after_first_block(group.get(lane))).next_word()
    }
}

impl WordSource for BlockWords<'_> {
    #[inline]
    fn next_word(&mut self) -> u32 {
        if self.next == WORDS_PER_BLOCK {
            return self.later_word();
        }
        let lane = self.group.0[self.next / 2][self.lane];
        // As in ShakeWords: a word is the byte-swapped low or high half of a lane.
        let half = if self.next.is_multiple_of(2) { lane as u32 } else { (lane >> 32) as u32 };
        self.next += 1;
        half.swap_bytes()
    }

    #[inline(always)]
    fn fill_words(&mut self, out: &mut [u32]) {
        if self.next == 0 && out.len() <= WORDS_PER_BLOCK {
            // A round's first words, the common case: straight from its lanes, with no
            // per-word check of where the block ends (the length is known at the call).
            for (i, word) in out.iter_mut().enumerate() {
                let lane = self.group.0[i / 2][self.lane];
                *word = if i % 2 == 0 { lane as u32 } else { (lane >> 32) as u32 }.swap_bytes();
            }
            self.next = out.len();
        } else {
            out.iter_mut().for_each(|word| *word = self.next_word());
        }
    }
}

/// Hashes batches of consecutive rounds of one seed pair with one [`Kernel`]; keeps the
/// latest midstate from one batch to the next. Build one per run of consecutive nonces
/// (per sweep chunk, per stream chunk): it is not shared between threads.
#[derive(Clone, Debug)]
pub struct BatchHasher {
    kernel: Kernel,
    /// The sponge after `server:client:`, and how many bytes of its block that filled.
    prefix: KeccakState,
    filled: usize,
    /// How many leading digits of a nonce complete the prefix's block (`136 − filled`);
    /// nonces with fewer digits share no block.
    split: usize,
    /// Midstates: slot 0 holds the latest of the previous batch (if `cached_key` is set),
    /// slots 1.. the new ones of the current batch. Held in place (13 KB), not boxed: on
    /// the heap, their distance to the batch being filled on the stack changed from one
    /// process to the next, and in some processes the bare hasher ran at half its speed
    /// (loads of midstates falsely waiting on stores into the batch 4 KiB apart; measured
    /// by shifting the stack with the environment's size under `setarch -R`).
    midstates: [KeccakState; ROUNDS_PER_BATCH + 1],
    /// The leading digits of slot 0's midstate (the first `split` of its nonces), as a
    /// number.
    cached_key: Option<u64>,
    /// The leading digits of each new midstate of the batch (slots 1..), as rows XORed
    /// onto the prefix from row `filled / 8` on.
    new_digits: [[u64; TAIL_ROWS]; ROUNDS_PER_BATCH + 1],
    /// Each round's tail ([`tail_rows`]): `tails[g][k][lane]` is row `k` of round
    /// `8g + lane`, so a group's rows are one array for the kernel. Kept between batches
    /// (every round of a batch writes its own) rather than zeroed for each.
    tails: [[[u64; BATCH_LANES]; TAIL_ROWS]; GROUPS],
    /// Where new midstates are permuted in kernel batches.
    scratch: BatchState,
    /// Whether rows 1.. of every tail are zero, as [`Self::plan_uniform`] leaves them
    /// (it writes row 0 only).
    short_tails: bool,
}

/// What pass 1 of [`BatchHasher::hash`] found: how many new midstates (slots
/// `1..=new_count`), the slot of the batch's last round that starts from one, and the
/// leading digits of the latest midstate.
struct Plan {
    new_count: usize,
    latest: Option<u8>,
    latest_key: Option<u64>,
}

impl BatchHasher {
    /// A batch hasher for the seed pair of `hasher`, permuting with `kernel`.
    pub fn new(hasher: &RoundHasher, kernel: Kernel) -> Self {
        let (prefix, filled) = hasher.prefix().parts();
        Self {
            kernel,
            prefix: *prefix,
            filled,
            split: RATE_BYTES - filled,
            midstates: [[0; 25]; ROUNDS_PER_BATCH + 1],
            cached_key: None,
            new_digits: [[0; TAIL_ROWS]; ROUNDS_PER_BATCH + 1],
            tails: [[[0; BATCH_LANES]; TAIL_ROWS]; GROUPS],
            scratch: BatchState::default(),
            short_tails: false,
        }
    }

    /// The kernel it permutes with.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Hashes the rounds `nonces` (non-empty, at most [`ROUNDS_PER_BATCH`]) into `out`.
    ///
    /// # Panics
    /// If `nonces` is empty or longer than [`ROUNDS_PER_BATCH`].
    pub fn hash(&mut self, nonces: Range<u64>, out: &mut RoundBatch) {
        let len = usize::try_from(nonces.end.saturating_sub(nonces.start)).unwrap_or(usize::MAX);
        assert!((1..=ROUNDS_PER_BATCH).contains(&len), "a batch holds 1 to {ROUNDS_PER_BATCH} rounds");
        out.first_nonce = nonces.start;
        out.len = len;

        // Pass 1: which midstate each round starts from (slot 0: the one cached from the
        // previous batch; NO_MIDSTATE: its digits complete no block), the new ones' leading
        // digits (`new_digits`, for slots 1..), and the rest of each round's message as
        // rows (`tails`).
        let mut slot = [NO_MIDSTATE; ROUNDS_PER_BATCH];
        let plan = match self.plan_uniform(&nonces, &mut slot) {
            Some(plan) => plan,
            None => self.plan_by_counting(&nonces, &mut slot),
        };
        let Plan { new_count, latest, latest_key } = plan;
        self.permute_midstates(new_count);

        // Pass 2: the last signature block and the stream's first block, in kernel lanes.
        for (g, group) in out.groups.iter_mut().enumerate().take(len.div_ceil(BATCH_LANES)) {
            let rounds = g * BATCH_LANES..(g * BATCH_LANES + BATCH_LANES).min(len);
            let used = rounds.len();
            if self.kernel.fuses_hashing() && slot[rounds.clone()].iter().all(|&slot| slot != NO_MIDSTATE) {
                let (sources, count) = self.midstate_lanes(&slot[rounds.clone()]);
                // A tail on a midstate has at most 19 digits and the domain byte: 3 rows.
                let first_rows = self.tails[g][..3].try_into().expect("three rows");
                if self.kernel.hash_on_midstates(&sources[..count], first_rows, group) {
                    continue;
                }
            }
            for (lane, r) in rounds.enumerate() {
                self.load_last_block(group, lane, &self.tails[g], slot[r]);
            }
            self.kernel.permute(group, used);
            load_stream_blocks(group);
            self.kernel.permute(group, used);
        }
        // Keep the latest midstate for the next batch, once this one no longer reads slot 0.
        if let Some(index) = latest.filter(|&index| index > 0) {
            self.midstates[0] = self.midstates[usize::from(index)];
            self.cached_key = latest_key;
        }
    }

    /// Pass 1 of [`hash`](Self::hash) for any batch: the nonce counted up in decimal,
    /// each round's digits split at the shared block. Consecutive nonces: the leading
    /// digits change only when counting up carries into them (or adds a digit), so only
    /// round 0 compares digits, with the cached key. The counter is counted up in place:
    /// copying it after its byte stores stalled store forwarding.
    fn plan_by_counting(&mut self, nonces: &Range<u64>, slot: &mut [u8; ROUNDS_PER_BATCH]) -> Plan {
        self.short_tails = false;
        let len = (nonces.end - nonces.start) as usize;
        let mut new_count = 0;
        let mut latest: Option<u8> = None;
        let mut latest_key = self.cached_key;
        let mut digits = Decimal::new(nonces.start);
        for (r, slot) in slot.iter_mut().enumerate().take(len) {
            let changed_from = if r == 0 { 0 } else { digits.increment() };
            if digits.len < self.split {
                // No shared block: all the digits go on the prefix's block.
                tail_rows(&mut self.tails, r, self.filled % 8, digits.as_bytes());
                continue;
            }
            let same_key = match latest {
                Some(_) => changed_from >= self.split,
                None => r == 0 && self.is_cached(&digits),
            };
            if !same_key {
                new_count += 1;
                self.new_digits[new_count] = self.key_rows(self.leading_number(&digits));
                latest_key = Some(self.leading_number(&digits));
            }
            *slot = if same_key { latest.unwrap_or(0) } else { new_count as u8 };
            latest = Some(*slot);
            tail_rows(&mut self.tails, r, 0, &digits.as_bytes()[self.split..]);
        }
        Plan { new_count, latest, latest_key }
    }

    /// Pass 1 of [`hash`](Self::hash) in the common case, or `None` where it does not
    /// apply: every nonce of the batch has the same number of digits, enough to complete
    /// the shared block, and the `t` digits after it (with SHA3's domain byte) fit in one
    /// row (with 64-character seeds: 6 to 13 digits). Then round `r`'s midstate and tail
    /// follow from arithmetic on the nonce (`n / 10^t` and `n % 10^t`) instead of a
    /// decimal counter and byte loops per round, and rows 1.. of the tails stay zero.
    /// Measured (`benches/share.rs`, `avx512`): skipping pass 1 altogether, as an
    /// experiment, took the bare hasher from 91% to 96% of the permutations' rate; this
    /// plan took it to 93%.
    fn plan_uniform(&mut self, nonces: &Range<u64>, slot: &mut [u8; ROUNDS_PER_BATCH]) -> Option<Plan> {
        let digits = nonces.start.checked_ilog10().map_or(1, |log| log as usize + 1);
        let tail_digits = digits.checked_sub(self.split).filter(|&t| t < 8)?;
        let last = nonces.end - 1;
        if 10u64.checked_pow(digits as u32).is_some_and(|limit| last >= limit) {
            return None;
        }
        if !self.short_tails {
            for group in &mut self.tails {
                group[1..].iter_mut().for_each(|row| *row = [0; BATCH_LANES]);
            }
            self.short_tails = true;
        }
        let len = (nonces.end - nonces.start) as usize;
        // Nonces per midstate (`m`), and where in its run of `m` the first nonce falls.
        let m = 10u64.pow(tail_digits as u32);
        let cached = self.cached_key == Some(nonces.start / m);
        let mut midstates = 0usize;
        if !cached {
            self.new_digits[1] = self.key_rows(nonces.start / m);
            midstates = 1;
        }
        // Round r's tail: its last digit added onto the row of the digits before it
        // (`base`: the row of `tens`, the tail less its last digit, made again every ten
        // rounds). With no tail digits, a run is one nonce and the row the domain byte.
        let domain = u64::from(SHA3_DOMAIN) << (8 * tail_digits);
        let last_digit_shift = 8 * tail_digits.saturating_sub(1) as u32;
        let run = m.min(10);
        let mut last_digit = nonces.start % run;
        let mut tens = nonces.start % m - last_digit;
        let mut base = ascii_row(tens, tail_digits) | domain;
        for (r, slot) in slot.iter_mut().enumerate().take(len) {
            self.tails[r / BATCH_LANES][0][r % BATCH_LANES] = base + (last_digit << last_digit_shift);
            // `midstates` counts the new ones: 0 while still on the cached one.
            *slot = midstates as u8;
            last_digit += 1;
            if last_digit == run {
                last_digit = 0;
                tens += run;
                if tens == m {
                    tens = 0;
                    // The next nonce starts a new midstate (if the batch goes on).
                    if r + 1 < len {
                        midstates += 1;
                        let key = (nonces.start + r as u64 + 1) / m;
                        self.new_digits[midstates] = match midstates {
                            // The key before is the one just made: add one to its last digit,
                            // unless that carries.
                            2.. if !key.is_multiple_of(10) => {
                                self.next_key_rows(self.new_digits[midstates - 1])
                            }
                            _ => self.key_rows(key),
                        };
                    }
                }
                base = ascii_row(tens, tail_digits) | domain;
            }
        }
        let latest_key = if midstates > 0 { Some(last / m) } else { self.cached_key };
        Some(Plan { new_count: midstates, latest: Some(slot[len - 1]), latest_key })
    }

    /// Whether `digits` complete the shared block with the leading digits of the
    /// midstate cached from the previous batch.
    fn is_cached(&self, digits: &Decimal) -> bool {
        self.cached_key == Some(self.leading_number(digits))
    }

    /// The number that the leading digits of `digits` (the first `split`) spell: below
    /// `u64::MAX`, since they lead a `u64`.
    fn leading_number(&self, digits: &Decimal) -> u64 {
        digits.as_bytes()[..self.split].iter().fold(0, |number, &digit| number * 10 + u64::from(digit - b'0'))
    }

    /// The leading digits of a nonce (the first `split`, which complete the shared block),
    /// given as the number `key`, as the rows XORed onto the prefix from row `filled / 8`
    /// on: gathered in two 128-bit registers (the digits span at most 27 bytes).
    #[inline]
    fn key_rows(&self, mut key: u64) -> [u64; TAIL_ROWS] {
        let (mut low, mut high) = (0u128, 0u128);
        let offset = self.filled % 8;
        for position in (offset..offset + self.split).rev() {
            let digit = u128::from(b'0') + u128::from(key % 10);
            key /= 10;
            if position < 16 {
                low |= digit << (8 * position);
            } else {
                high |= digit << (8 * (position - 16));
            }
        }
        [low as u64, (low >> 64) as u64, high as u64, (high >> 64) as u64]
    }

    /// The rows of [`Self::key_rows`] for the key one above that of `rows`, whose last
    /// digit is not a 9 (no carry): that digit's byte plus one.
    #[inline]
    fn next_key_rows(&self, mut rows: [u64; TAIL_ROWS]) -> [u64; TAIL_ROWS] {
        let last = self.filled % 8 + self.split - 1;
        rows[last / 8] += 1 << (8 * (last % 8));
        rows
    }

    /// Makes the midstates of slots `1..=count`: the prefix with each one's leading digits
    /// (`new_digits`), permuted in kernel batches where that is cheaper, else one by one.
    fn permute_midstates(&mut self, count: usize) {
        let first_row = self.filled / 8;
        for first in (1..=count).step_by(BATCH_LANES) {
            let slots = first..(first + BATCH_LANES).min(count + 1);
            if !self.kernel.worth_batching(slots.len()) {
                for s in slots {
                    let state = &mut self.midstates[s];
                    *state = self.prefix;
                    for (lane, &digits) in state[first_row..].iter_mut().zip(&self.new_digits[s]) {
                        *lane ^= digits;
                    }
                    permute(state);
                }
                continue;
            }
            // Every lane the prefix, a row at a time, then each one's digits.
            for (row, &value) in self.scratch.0.iter_mut().zip(&self.prefix) {
                *row = [value; BATCH_LANES];
            }
            for (lane, digits) in self.new_digits[slots.clone()].iter().enumerate() {
                for (row, &value) in self.scratch.0[first_row..].iter_mut().zip(digits) {
                    row[lane] ^= value;
                }
            }
            self.kernel.permute(&mut self.scratch, slots.len());
            for (lane, state) in self.midstates[slots].iter_mut().enumerate() {
                *state = self.scratch.get(lane);
            }
        }
    }

    /// What [`Kernel::hash_on_midstates`] takes for the rounds of a group that all start
    /// from a midstate (`slots`, at most eight): each distinct midstate with the lanes
    /// that start from it (how many). The lanes past `slots` (a partial last group) start
    /// from the first lane's midstate: they are hashed, never read.
    #[inline(always)]
    fn midstate_lanes(&self, slots: &[u8]) -> ([(u8, &KeccakState); BATCH_LANES], usize) {
        let lane_slots: [u8; BATCH_LANES] = std::array::from_fn(|lane| *slots.get(lane).unwrap_or(&slots[0]));
        let mut sources = [(0u8, &self.midstates[0]); BATCH_LANES];
        let mut count = 0;
        let mut left = u8::MAX;
        while left != 0 {
            let slot = lane_slots[left.trailing_zeros() as usize];
            let lanes = lane_slots
                .iter()
                .enumerate()
                .fold(0u8, |lanes, (lane, &s)| lanes | u8::from(s == slot) << lane);
            sources[count] = (lanes, &self.midstates[usize::from(slot)]);
            count += 1;
            left &= !lanes;
        }
        (sources, count)
    }

    /// Puts the last block of a round's signature message, padded, into state `lane` of
    /// `group`: its midstate (or, with no shared block, the prefix) with the round's tail
    /// rows (`tails[k][lane]`, see [`tail_rows`]) and the final padding bit.
    #[inline]
    fn load_last_block(
        &self,
        group: &mut BatchState,
        lane: usize,
        tails: &[[u64; BATCH_LANES]; TAIL_ROWS],
        slot: u8,
    ) {
        let (state, first_row) = if slot == NO_MIDSTATE {
            (&self.prefix, self.filled / 8)
        } else {
            (&self.midstates[usize::from(slot)], 0)
        };
        group.set(lane, state);
        for (k, rows) in tails.iter().enumerate() {
            if let Some(row) = group.0.get_mut(first_row + k) {
                row[lane] ^= rows[lane];
            }
        }
        xor_lane_byte(group, lane, RATE_BYTES - 1, 0x80);
    }
}

/// Rows of a round's tail in [`BatchHasher::hash`]: up to 20 digits and the domain byte
/// from a byte offset of at most 7.
const TAIL_ROWS: usize = 4;

/// Writes round `r`'s tail into `tails[r / 8][..][r % 8]`: `digits` then SHA3's domain
/// byte, from byte `offset` of row 0 on (little-endian lanes).
#[inline(always)]
fn tail_rows(tails: &mut [[[u64; BATCH_LANES]; TAIL_ROWS]; GROUPS], r: usize, offset: usize, digits: &[u8]) {
    let (group, lane) = (&mut tails[r / BATCH_LANES], r % BATCH_LANES);
    let mut rows = [0u64; TAIL_ROWS];
    if offset + digits.len() < 8 {
        // The common case (a few digits after the shared block): one row, gathered in a
        // register.
        let mut row = u64::from(SHA3_DOMAIN) << (8 * (offset + digits.len()));
        for (position, &digit) in (offset..).zip(digits) {
            row |= u64::from(digit) << (8 * position);
        }
        rows[0] = row;
    } else {
        xor_bytes(&mut rows, offset, digits);
        xor_bytes(&mut rows, offset + digits.len(), &[SHA3_DOMAIN]);
    }
    for (column, row) in group.iter_mut().zip(rows) {
        column[lane] = row;
    }
}

/// XORs `bytes` into `lanes` from byte `at` on (little-endian lanes), gathered a lane at a
/// time in a register: byte-wise read-modify-writes of one lane each waited on the one
/// before through memory, and whole lanes loaded from bytes just stored one by one
/// stalled on store forwarding (a third of the batch hasher's time, profiled).
#[inline(always)]
fn xor_bytes(lanes: &mut [u64], at: usize, bytes: &[u8]) {
    let mut lane = at / 8;
    let mut gathered = 0u64;
    for (position, &byte) in (at..).zip(bytes) {
        if position / 8 != lane {
            lanes[lane] ^= gathered;
            gathered = 0;
            lane = position / 8;
        }
        gathered |= u64::from(byte) << (8 * (position % 8));
    }
    if gathered != 0 {
        lanes[lane] ^= gathered;
    }
}

/// `value`'s last `digits` decimal digits (at most 8) as ASCII in the bytes of a row,
/// the first digit in byte 0 (little-endian), the bytes after them zero.
#[inline]
fn ascii_row(mut value: u64, digits: usize) -> u64 {
    let mut row = 0;
    for position in (0..digits).rev() {
        row |= (u64::from(b'0') + value % 10) << (8 * position);
        value /= 10;
    }
    row
}

/// Slot value of a round whose nonce completes no block.
const NO_MIDSTATE: u8 = u8::MAX;

/// XORs `byte` into sponge byte `index` of state `lane` of `group`.
#[inline(always)]
fn xor_lane_byte(group: &mut BatchState, lane: usize, index: usize, byte: u8) {
    group.0[index / 8][lane] ^= u64::from(byte) << (8 * (index % 8));
}

/// Replaces every state of `group`, finished SHA3-256 states, with the SHAKE256 input
/// block of its round stream: the 64 hex characters of its digest, padded. Row by row,
/// all lanes at once (the unused lanes of a partial batch too: they are never read), so
/// the compiler vectorises the hex conversion across lanes.
#[inline]
fn load_stream_blocks(group: &mut BatchState) {
    let digest = [group.0[0], group.0[1], group.0[2], group.0[3]];
    for (d, row) in digest.iter().enumerate() {
        group.0[2 * d] = row.map(|lane| hex_word(lane as u32));
        group.0[2 * d + 1] = row.map(|lane| hex_word((lane >> 32) as u32));
    }
    for row in &mut group.0[8..] {
        *row = [0; BATCH_LANES];
    }
    // pad10*1: the SHAKE suffix right after the 64 message bytes, the final bit on the
    // last byte of the block (as in ShakeWords::from_hex_lanes).
    group.0[8] = [u64::from(SHAKE_DOMAIN); BATCH_LANES];
    group.0[RATE_LANES - 1] = [0x80 << 56; BATCH_LANES];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::kernel::KeccakPath;
    use crate::chain::sponge::sha3_256;
    use crate::chain::{hex_lower, ShakeWords};

    #[test]
    fn decimal_counts_like_formatting_across_digit_boundaries() {
        for start in [0u64, 8, 98, 99_990, 999_999_990, 9_999_999_999_999_999_990, u64::MAX - 30] {
            let mut decimal = Decimal::new(start);
            for value in start..start + 25 {
                assert_eq!(decimal.as_bytes(), value.to_string().as_bytes());
                if value < u64::MAX - 1 {
                    decimal.increment();
                }
            }
        }
    }

    /// The words a batch gives for round `nonce`, against SHAKE256 of the hex of SHA3-256 of
    /// the message, both computed by the plain sponge.
    fn assert_batch_matches(server: &str, client: &str, nonces: Range<u64>, kernel: Kernel, words: usize) {
        let hasher = RoundHasher::new(server, client);
        let mut batcher = BatchHasher::new(&hasher, kernel);
        let mut batch = RoundBatch::default();
        let mut start = nonces.start;
        while start < nonces.end {
            let end = start.saturating_add(ROUNDS_PER_BATCH as u64).min(nonces.end);
            batcher.hash(start..end, &mut batch);
            for (r, nonce) in (start..end).enumerate() {
                let message = format!("{server}:{client}:{nonce}");
                let hex = hex_lower(&sha3_256(message.as_bytes()));
                let mut expected = ShakeWords::from_signature_hex(&hex);
                let mut got = batch.words(r);
                for w in 0..words {
                    assert_eq!(
                        got.next_word(),
                        expected.next_word(),
                        "{}: seeds of {} and {} chars, nonce {nonce}, word {w}",
                        kernel.path(),
                        server.len(),
                        client.len()
                    );
                }
            }
            start = end;
        }
    }

    #[test]
    fn batches_equal_the_plain_sponge_around_the_block_boundary_for_seeds_of_every_length() {
        // Prefix lengths from 2 to 370 bytes: every position of the nonce's digits
        // relative to the 136-byte blocks, including ending exactly on a boundary.
        let digit_edges: [Range<u64>; 5] =
            [0..12, 95..105, 99_995..100_007, 9_999_990..10_000_010, u64::MAX - 12..u64::MAX];
        for path in KeccakPath::supported() {
            let kernel = Kernel::new(path).unwrap();
            for len in 0..=300 {
                let server: String = "s".repeat(len);
                for range in &digit_edges {
                    assert_batch_matches(&server, "client-seed-of-some-length", range.clone(), kernel, 35);
                }
            }
        }
    }

    #[test]
    fn batches_on_either_side_of_a_digit_boundary_stay_exact_for_seeds_of_every_length() {
        // Three batches around each 10^k: all k-digit nonces (planned by arithmetic
        // where their digits complete the shared block), then one crossing to k + 1
        // digits (counted), then all k + 1 digits again, in one hasher: the tails and the
        // cached midstate each plan leaves must serve the other. With prefixes of every
        // length, the counted batch's tails reach rows past the first (digits with no
        // shared block, from a late byte of the prefix's last lane).
        for path in KeccakPath::supported() {
            let kernel = Kernel::new(path).unwrap();
            for len in 0..=300 {
                let server: String = "s".repeat(len);
                for k in 2..=19 {
                    let edge = 10u64.pow(k);
                    assert_batch_matches(&server, "c", edge - 96..edge + 96, kernel, 1);
                }
            }
        }
    }

    #[test]
    fn consecutive_batches_reuse_the_midstate_and_stay_exact() {
        let seed = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
        for path in KeccakPath::supported() {
            let kernel = Kernel::new(path).unwrap();
            // Batches of 64 over 7- and 8-digit nonces, and a batch that starts mid-way
            // through a run of shared leading digits.
            assert_batch_matches(seed, seed, 1_000_000..1_000_300, kernel, 3);
            assert_batch_matches(seed, seed, 12_345_677..12_345_999, kernel, 3);
            assert_batch_matches(seed, seed, 99_999_937..100_000_100, kernel, 3);
        }
    }

    #[test]
    fn consecutive_batches_stay_exact_for_every_length_of_shared_digits() {
        // Prefixes that fill 116 to 135 bytes of their block: 20 down to 1 leading digits
        // shared, each over ranges of several batches, so that the midstate cached from
        // one batch to the next, its replacement mid-batch and the tails kept in the
        // hasher are all crossed at every split.
        let client = "client-seed-of-some-length";
        let ranges: [Range<u64>; 3] =
            [9_999_900..10_000_200, 123_456_789_012..123_456_789_400, u64::MAX - 300..u64::MAX];
        for path in KeccakPath::supported() {
            let kernel = Kernel::new(path).unwrap();
            for len in 88..=107 {
                let server: String = "s".repeat(len);
                for range in &ranges {
                    assert_batch_matches(&server, client, range.clone(), kernel, 3);
                }
            }
        }
    }

    #[test]
    fn a_round_needing_more_than_one_block_continues_exactly() {
        for path in KeccakPath::supported() {
            assert_batch_matches("server", "client", 1_000_000..1_000_010, Kernel::new(path).unwrap(), 200);
        }
    }

    #[test]
    fn first_block_bytes_are_the_first_34_words_big_endian() {
        let hasher = RoundHasher::new("s", "c");
        let mut batch = RoundBatch::default();
        BatchHasher::new(&hasher, Kernel::best()).hash(5..9, &mut batch);
        let mut block = [0u8; RATE_BYTES];
        batch.first_block(2, &mut block);
        let mut words = hasher.words(7);
        for chunk in block.chunks_exact(4) {
            assert_eq!(chunk, words.next_word().to_be_bytes());
        }
        let mut later = batch.after_first_block(2);
        assert_eq!(later.next_word(), words.next_word());
    }

    #[test]
    fn word_columns_are_the_words_each_round_reads() {
        let hasher = RoundHasher::new("server", "client");
        for path in KeccakPath::supported() {
            let mut batch = RoundBatch::default();
            let mut batcher = BatchHasher::new(&hasher, Kernel::new(path).unwrap());
            // A full batch, then a partial one over it (its stale rounds are not compared).
            for nonces in [1_000u64..1_064, 7..20] {
                batcher.hash(nonces.clone(), &mut batch);
                let mut columns = [[0u32; ROUNDS_PER_BATCH]; WORDS_PER_BLOCK];
                for (k, column) in columns.iter_mut().enumerate() {
                    batch.word_column(k, column);
                }
                for r in 0..batch.len() {
                    let mut words = batch.words(r);
                    for (k, column) in columns.iter().enumerate() {
                        assert_eq!(
                            column[r],
                            words.next_word(),
                            "{path}, nonces {nonces:?}, round {r}, word {k}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "a batch holds 1 to 64 rounds")]
    fn an_oversized_batch_is_a_programming_error() {
        let hasher = RoundHasher::new("s", "c");
        BatchHasher::new(&hasher, Kernel::scalar()).hash(0..65, &mut RoundBatch::default());
    }
}
