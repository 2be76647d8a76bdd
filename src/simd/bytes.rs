//! Byte comparisons into bit masks: one 64-byte row compared with each of `N` values.

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
