//! Byte comparisons into bit masks: one 64-byte row compared with each of `N` values, and
//! the same for the bit counts of 64 pairs of words.

use core::arch::x86_64::*;

/// [`super::equal_byte_masks`] with AVX-512BW: one compare into a mask register per value.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn equal_masks_avx512<const N: usize>(bytes: &[u8; 64], masks: &mut [u64; N]) {
    // SAFETY: `bytes` is a `[u8; 64]`, 64 readable bytes, exactly one register; the
    // unaligned load has no alignment requirement.
    let row = unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) };
    for (value, mask) in masks.iter_mut().enumerate() {
        *mask = _mm512_cmpeq_epi8_mask(row, _mm512_set1_epi8(value as i8));
    }
}

/// [`super::equal_byte_masks`] with AVX2: two 32-byte compares and their sign bits per
/// value.
#[target_feature(enable = "avx2")]
pub(super) fn equal_masks_avx2<const N: usize>(bytes: &[u8; 64], masks: &mut [u64; N]) {
    let (low, high) = bytes.split_at(32);
    // SAFETY: `low` and `high` are 32 readable bytes each, exactly one register; the
    // unaligned loads have no alignment requirement.
    let (low, high) =
        unsafe { (_mm256_loadu_si256(low.as_ptr().cast()), _mm256_loadu_si256(high.as_ptr().cast())) };
    for (value, mask) in masks.iter_mut().enumerate() {
        let needle = _mm256_set1_epi8(value as i8);
        let low = _mm256_movemask_epi8(_mm256_cmpeq_epi8(low, needle)) as u32;
        let high = _mm256_movemask_epi8(_mm256_cmpeq_epi8(high, needle)) as u32;
        *mask = u64::from(low) | u64::from(high) << 32;
    }
}

/// [`super::shared_count_masks`] with AVX-512 (BW for the byte compares, VPOPCNTDQ for the
/// bit counts): the 64 counts gathered into one register of bytes, never through memory.
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq")]
pub(super) fn shared_count_masks_avx512<const N: usize>(a: &[u64; 64], b: &[u64; 64], masks: &mut [u64; N]) {
    let counts: [__m128i; 8] = std::array::from_fn(|i| {
        // SAFETY: `a` and `b` are `[u64; 64]`; words `8i..8i + 8` (i < 8) are 64 readable
        // bytes each, exactly one register; the unaligned loads need no alignment.
        let (a, b) = unsafe {
            (_mm512_loadu_si512(a[8 * i..].as_ptr().cast()), _mm512_loadu_si512(b[8 * i..].as_ptr().cast()))
        };
        // Eight counts of at most 64, each truncated to its low byte: 8 bytes.
        _mm512_cvtepi64_epi8(_mm512_popcnt_epi64(_mm512_and_si512(a, b)))
    });
    let quarter = |i: usize| _mm_unpacklo_epi64(counts[2 * i], counts[2 * i + 1]);
    let half =
        |i: usize| _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(quarter(2 * i)), quarter(2 * i + 1));
    let row = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(0)), half(1));
    for (value, mask) in masks.iter_mut().enumerate() {
        *mask = _mm512_cmpeq_epi8_mask(row, _mm512_set1_epi8(value as i8));
    }
}
