//! Vector code for x86-64, chosen at run time: the only module of fairaudit with `unsafe`
//! code.
//!
//! What is here: the Keccak-f\[1600\] kernels that permute eight or four states at once,
//! and on AVX-512 and AVX2 one that hashes eight (or four) rounds' last signature blocks
//! and stream blocks in registers (`keccak`, behind the `Avx512` and `Avx2` tokens,
//! reached through `chain::Kernel`); the runs of the sweep's per-thread loop compiled for the instructions
//! a token proves ([`CompiledForPath`]); and the one byte comparison the sweep's tallies
//! need that the compiler does not generate from plain Rust ([`equal_byte_masks`],
//! [`shared_count_masks`]). Kept
//! in one module so that every `unsafe` block of the program can be audited in one place.
//!
//! There are two kinds of `unsafe`, each block with its own `SAFETY` comment:
//! - calling a `#[target_feature]` function, which is sound only on a CPU that has the
//!   feature. The tokens can only be made by run-time detection
//!   (`is_x86_feature_detected!`), and the kernels and compiled runs are reached only
//!   through a token; [`equal_byte_masks`] and [`shared_count_masks`] check the CPU (the standard library caches
//!   the answer) before each call. So code for an instruction set the CPU lacks is never
//!   executed;
//! - loading and storing vector registers from arrays, through pointers to arrays whose
//!   size is checked by their types.
//!
//! On other architectures only the portable parts exist: [`CompiledForPath`] and the
//! plain-Rust [`equal_byte_masks`] and [`shared_count_masks`].

#[cfg(target_arch = "x86_64")]
mod bytes;
#[cfg(target_arch = "x86_64")]
mod keccak;

/// States a kernel call permutes at once: the 64-bit lanes of an AVX-512 register.
pub const STATES: usize = 8;

/// [`STATES`] Keccak-f\[1600\] states, interleaved: `[i][s]` is lane `i` of state `s`, so
/// one lane of every state is one contiguous 64-byte row (one AVX-512 register).
pub type Lanes = [[u64; STATES]; 25];

/// Work that runs compiled for the instructions of a Keccak path (see
/// `chain::Kernel::run_compiled_for_path`).
///
/// A trait rather than a closure: only code inlined into the path's function is compiled
/// for its instructions, and a closure's body is inlined only where the compiler judges it
/// worth it. When the sweep's loop grew, it stopped inlining it, and the loop ran as
/// baseline x86-64 (bit counts as shifts and adds) on every path: a third slower.
pub trait CompiledForPath {
    /// What the work returns.
    type Output;

    /// Does the work. Implementations must be `#[inline(always)]`, and so must everything
    /// they call that should be compiled for the path.
    fn run(self) -> Self::Output;
}

/// `masks[v]`: bit `i` set where `bytes[i] == v`, for each `v` below `N` (bytes of `N` or
/// more are in no mask).
///
/// One compare of all 64 bytes and one mask per value, where plain Rust (which has no
/// vector-compare-to-bitmask operation the compiler reliably finds) sets one bit per byte
/// in memory: that scatter was a third of the Keno tally's time (profiled).
#[inline]
pub fn equal_byte_masks<const N: usize>(bytes: &[u8; 64], masks: &mut [u64; N]) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512bw") {
            // SAFETY: AVX-512BW (and so AVX-512F) was detected on this CPU just now.
            return unsafe { bytes::equal_masks_avx512(bytes, masks) };
        }
        if is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected on this CPU just now.
            return unsafe { bytes::equal_masks_avx2(bytes, masks) };
        }
    }
    equal_byte_masks_portable(bytes, masks);
}

/// `masks[v]`: bit `i` set where `a[i] & b[i]` has `v` bits set, for each `v` below `N`.
///
/// [`equal_byte_masks`] of the row of those counts, which plain Rust builds in memory with
/// eight 8-byte stores that the row's 64-byte load then waits on (a store does not
/// forward into a wider load): with AVX-512 the counts are gathered in a register instead.
/// Keno's overlaps of each lag (about a third of its tally, measured by leaving them out).
#[inline]
pub fn shared_count_masks<const N: usize>(a: &[u64; 64], b: &[u64; 64], masks: &mut [u64; N]) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512vpopcntdq") {
            // SAFETY: AVX-512BW and VPOPCNTDQ (and so AVX-512F) were detected on this CPU
            // just now.
            return unsafe { bytes::shared_count_masks_avx512(a, b, masks) };
        }
    }
    shared_count_masks_portable(a, b, masks);
}

/// [`shared_count_masks`] in plain Rust (and [`equal_byte_masks`]): every CPU.
fn shared_count_masks_portable<const N: usize>(a: &[u64; 64], b: &[u64; 64], masks: &mut [u64; N]) {
    let mut counts = [0u8; 64];
    for ((count, &a), &b) in counts.iter_mut().zip(a).zip(b) {
        *count = (a & b).count_ones() as u8;
    }
    equal_byte_masks(&counts, masks);
}

/// [`equal_byte_masks`] in plain Rust: every CPU.
fn equal_byte_masks_portable<const N: usize>(bytes: &[u8; 64], masks: &mut [u64; N]) {
    *masks = [0; N];
    for (i, &byte) in bytes.iter().enumerate() {
        if let Some(mask) = masks.get_mut(usize::from(byte)) {
            *mask |= 1 << i;
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use tokens::{Avx2, Avx512, Padding, LAST_RATE_LANE};

#[cfg(target_arch = "x86_64")]
mod tokens {
    use super::keccak::{
        hash_on_midstates_avx2, hash_on_midstates_avx512, hash_on_midstates_avx512bw, permute_avx2,
        permute_avx512,
    };
    pub(crate) use super::keccak::{Padding, LAST_RATE_LANE};
    use super::{CompiledForPath, Lanes, STATES};

    /// Proof that this CPU has AVX-512F (and AVX2 and POPCNT); only [`Avx512::detect`]
    /// makes one.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Avx512 {
        /// Whether the CPU also has the AVX-512 extensions the sweep's loop is compiled
        /// for when it can be (BW, VL, DQ and VPOPCNTDQ: byte compares into masks, and
        /// bit counts of eight 64-bit words at once).
        extensions: bool,
        /// Whether the CPU has AVX-512BW, for the fused kernel's hex by byte shuffles
        /// (CPUs with BW but not all of `extensions`, such as Skylake-SP, have it too).
        bw: bool,
    }

    impl Avx512 {
        /// The token, if the CPU running this process has AVX-512F.
        pub(crate) fn detect() -> Option<Self> {
            let bw = is_x86_feature_detected!("avx512bw");
            let extensions = bw
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vpopcntdq");
            (is_x86_feature_detected!("avx512f") && has_avx2_and_popcnt()).then_some(Self { extensions, bw })
        }

        /// Runs `work` with the code inlined into it compiled for AVX-512 with its BW, VL,
        /// DQ and VPOPCNTDQ extensions where the CPU has them (the bit counts of the Keno
        /// tally's columns, eight words an instruction), else for AVX2 and POPCNT.
        #[inline]
        pub(crate) fn run<W: CompiledForPath>(self, work: W) -> W::Output {
            if self.extensions {
                // SAFETY: `self.extensions` is set only if those extensions were detected,
                // and `self` exists only if AVX-512F, AVX2 and POPCNT were (see `detect`).
                unsafe { run_with_avx512(work) }
            } else {
                // SAFETY: `self` exists only if AVX2 and POPCNT were detected.
                unsafe { run_with_avx2_and_popcnt(work) }
            }
        }

        /// Permutes all [`STATES`] states of `states` (eight: one register per lane).
        #[inline]
        pub(crate) fn permute(self, states: &mut Lanes) {
            // SAFETY: `self` exists only if AVX-512F was detected at run time (see `detect`).
            unsafe { permute_avx512(states) }
        }

        /// Eight rounds' last signature blocks and stream blocks, fused in registers (see
        /// `keccak::hash_on_midstates!`): the build with AVX-512BW's byte shuffles for the
        /// hex where the CPU has BW, else the AVX-512F-only build.
        #[inline]
        pub(crate) fn hash_on_midstates(
            self,
            sources: &[(u8, &[u64; 25])],
            first_rows: &[[u64; STATES]; 3],
            padding: Padding,
            out: &mut Lanes,
        ) {
            if self.bw {
                // SAFETY: `self.bw` is set only if AVX-512BW was detected, and `self`
                // exists only if AVX-512F was (see `detect`).
                unsafe { hash_on_midstates_avx512bw(sources, first_rows, padding, out) }
            } else {
                // SAFETY: `self` exists only if AVX-512F was detected (see `detect`).
                unsafe { hash_on_midstates_avx512(sources, first_rows, padding, out) }
            }
        }
    }

    /// Whether this CPU has AVX2 and POPCNT (every CPU with AVX2 has POPCNT; checked all
    /// the same, since the tokens promise both).
    fn has_avx2_and_popcnt() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt")
    }

    /// Runs `work`; whatever is inlined into it is compiled for AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn run_with_avx2_and_popcnt<W: CompiledForPath>(work: W) -> W::Output {
        work.run()
    }

    /// Runs `work`; whatever is inlined into it is compiled for AVX-512 (F, BW, VL, DQ,
    /// VPOPCNTDQ), AVX2 and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vpopcntdq,avx2,popcnt")]
    unsafe fn run_with_avx512<W: CompiledForPath>(work: W) -> W::Output {
        work.run()
    }

    /// Proof that this CPU has AVX2 and POPCNT; only [`Avx2::detect`] makes one.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        /// The token, if the CPU running this process has AVX2.
        pub(crate) fn detect() -> Option<Self> {
            has_avx2_and_popcnt().then_some(Self(()))
        }

        /// Runs `work` with the code inlined into it compiled for AVX2 and POPCNT: the
        /// sweep's per-thread loop runs this way, so that its draws and tallies count bits
        /// with one instruction and use 256-bit vectors, where the baseline x86-64 build
        /// has neither.
        #[inline]
        pub(crate) fn run<W: CompiledForPath>(self, work: W) -> W::Output {
            // SAFETY: `self` exists only if AVX2 and POPCNT were detected (see `detect`).
            unsafe { run_with_avx2_and_popcnt(work) }
        }

        /// Permutes the first `used` states of `states`, four at a time (one or two calls).
        #[inline]
        pub(crate) fn permute(self, states: &mut Lanes, used: usize) {
            for half in 0..used.div_ceil(4).min(STATES / 4) {
                // SAFETY: `self` exists only if AVX2 was detected at run time (see `detect`).
                unsafe { permute_avx2(states, half) }
            }
        }

        /// Eight rounds' last signature blocks and stream blocks, fused in registers as on
        /// AVX-512 (see `keccak::hash_on_midstates_avx2`), four states a call.
        #[inline]
        pub(crate) fn hash_on_midstates(
            self,
            sources: &[(u8, &[u64; 25])],
            first_rows: &[[u64; STATES]; 3],
            padding: Padding,
            out: &mut Lanes,
        ) {
            for half in 0..STATES / 4 {
                // SAFETY: `self` exists only if AVX2 was detected at run time (see `detect`).
                unsafe { hash_on_midstates_avx2(sources, first_rows, padding, out, half) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of random bytes below 48 (every value of a 40-mask and some beyond it), and
    /// rows of one value.
    fn rows() -> Vec<[u8; 64]> {
        let mut x = 5u64;
        let mut rows: Vec<[u8; 64]> = (0..500)
            .map(|_| {
                std::array::from_fn(|_| {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    ((x >> 33) % 48) as u8
                })
            })
            .collect();
        rows.extend([[0; 64], [39; 64], [40; 64], [255; 64]]);
        rows
    }

    #[test]
    fn portable_byte_masks_mark_each_byte_in_its_values_mask() {
        for row in rows() {
            let mut masks = [0u64; 40];
            equal_byte_masks_portable(&row, &mut masks);
            for (i, &byte) in row.iter().enumerate() {
                for (v, mask) in masks.iter().enumerate() {
                    assert_eq!(mask >> i & 1 == 1, usize::from(byte) == v, "byte {i} = {byte}, mask {v}");
                }
            }
        }
    }

    /// The fused kernel's two builds (the hex by AVX-512F shifts, and by AVX-512BW
    /// shuffles) give the same states on random midstates and rows, with one to eight
    /// sources. The BW build is the one the batch tests check against the plain sponge on
    /// a CPU with BW; this carries that check to the F-only build, which runs only on
    /// AVX-512 CPUs without BW.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn both_builds_of_the_fused_kernel_give_the_same_states() {
        if !(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")) {
            eprintln!("note: fused kernel builds not compared: this CPU lacks AVX-512F or BW");
            return;
        }
        let mut x = 1u64;
        let mut next = move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x ^ (x >> 29)
        };
        let padding = Padding { final_bit: 0x80 << 56, shake_domain: 0x1F };
        for trial in 0..200 {
            let midstates: Vec<[u64; 25]> = (0..STATES).map(|_| std::array::from_fn(|_| next())).collect();
            // Lane `l` starts from midstate `l % count`.
            let count = trial % STATES + 1;
            let sources: Vec<(u8, &[u64; 25])> = (0..count)
                .map(|m| {
                    ((0..STATES).filter(|l| l % count == m).fold(0u8, |mask, l| mask | 1 << l), &midstates[m])
                })
                .collect();
            let rows: [[u64; STATES]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
            let (mut f, mut bw) = ([[0u64; STATES]; 25], [[1u64; STATES]; 25]);
            // SAFETY: AVX-512F and BW were detected on this CPU just now.
            unsafe {
                keccak::hash_on_midstates_avx512(&sources, &rows, padding, &mut f);
                keccak::hash_on_midstates_avx512bw(&sources, &rows, padding, &mut bw);
            }
            assert_eq!(f, bw, "trial {trial}, {count} sources");
        }
    }

    #[test]
    fn shared_count_masks_mark_each_pair_in_its_counts_mask_on_every_path() {
        let mut x = 7u64;
        let mut next = move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x ^ (x >> 29)
        };
        for trial in 0..300 {
            // Sparse words (counts of a few bits, as Keno's drawn sets) and dense ones.
            let word = |next: &mut dyn FnMut() -> u64| {
                if trial % 2 == 0 {
                    next() & next() & next()
                } else {
                    next()
                }
            };
            let a: [u64; 64] = std::array::from_fn(|_| word(&mut next));
            let b: [u64; 64] = std::array::from_fn(|_| word(&mut next));
            let mut expected = [0u64; 12];
            for (i, (&a, &b)) in a.iter().zip(&b).enumerate() {
                if let Some(mask) = expected.get_mut((a & b).count_ones() as usize) {
                    *mask |= 1 << i;
                }
            }
            let (mut dispatched, mut portable) = ([u64::MAX; 12], [u64::MAX; 12]);
            shared_count_masks(&a, &b, &mut dispatched);
            shared_count_masks_portable(&a, &b, &mut portable);
            assert_eq!(dispatched, expected, "trial {trial}");
            assert_eq!(portable, expected, "trial {trial}");
        }
        #[cfg(target_arch = "x86_64")]
        if !(is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512vpopcntdq")) {
            eprintln!("note: avx512 shared count masks skipped: this CPU lacks BW or VPOPCNTDQ");
        }
    }

    #[test]
    fn every_supported_byte_mask_path_equals_the_portable_one() {
        // The vector paths this CPU has, each called directly, and the dispatcher.
        type Path = fn(&[u8; 64], &mut [u64; 40]);
        let mut paths: Vec<(&str, Path)> = vec![("dispatch", equal_byte_masks)];
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 was detected on this CPU just now.
                paths.push(("avx2", |bytes, masks| unsafe { bytes::equal_masks_avx2(bytes, masks) }));
            }
            if is_x86_feature_detected!("avx512bw") {
                // SAFETY: AVX-512BW was detected on this CPU just now.
                paths.push(("avx512", |bytes, masks| unsafe { bytes::equal_masks_avx512(bytes, masks) }));
            }
        }
        for row in rows() {
            let mut expected = [0u64; 40];
            equal_byte_masks_portable(&row, &mut expected);
            for (name, path) in &paths {
                let mut masks = [u64::MAX; 40];
                path(&row, &mut masks);
                assert_eq!(masks, expected, "{name}, {row:?}");
            }
        }
        for name in ["avx2", "avx512"] {
            if !paths.iter().any(|(checked, _)| *checked == name) {
                eprintln!("note: {name} byte masks skipped: this CPU lacks the instructions");
            }
        }
    }
}
