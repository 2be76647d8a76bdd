//! Keccak-f\[1600\] on several states at once in x86-64 vector registers: eight states
//! in the eight 64-bit lanes of AVX-512 registers, or four in AVX2 registers.
//!
//! The states are interleaved ([`Lanes`]: lane `i` of state `s` at `[i][s]`), so each
//! of the 25 lanes of all states is one contiguous load. The permutation is the FIPS 202
//! round function written once ([`keccak_rounds!`]) over the operations each instruction
//! set provides; AVX-512 has a native 64-bit rotate and a three-input logic instruction
//! (θ's five-way XOR in two, χ in one), AVX2 composes them from shifts, AND-NOT and XOR.
//! Why written here rather than taken from a crate: see `docs/performance.md`.

use super::Lanes;
use core::arch::x86_64::*;

/// The 24 round constants of Keccak-f\[1600\] (FIPS 202, ι step).
const ROUND_CONSTANTS: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808A,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808B,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008A,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000A,
    0x0000_0000_8000_808B,
    0x8000_0000_0000_008B,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800A,
    0x8000_0000_8000_000A,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// The 24 rounds over `$a: [V; 25]` (lane `x + 5y`), given the vector operations:
/// `$xor(a, b)`, `$xor5(a, b, c, d, e)`, `$rol::<n, 64 - n>(v)` (rotate left by `n`),
/// `$chi(a, b, c)` = `a ^ (!b & c)`, and `$splat(u64)`.
///
/// θ: `C[x]` is the parity of column `x`, `D[x] = C[x-1] ^ rot(C[x+1], 1)`, added to every
/// lane of column `x`. ρ and π together: lane `(x, y)` rotated by its offset moves to
/// `(y, 2x + 3y)`; the table lists, for each destination in order, the source lane, its
/// column (for `D`), and the rotation. χ works along rows, ι adds the round constant.
macro_rules! keccak_rounds {
    ($a:ident, $xor:ident, $xor5:ident, $rol:ident, $chi:ident, $splat:ident) => {
        for &round_constant in &ROUND_CONSTANTS {
            keccak_rounds!(@round $a, round_constant, $xor, $xor5, $rol, $chi, $splat);
        }
    };
    // One round, with round constant `$rc`.
    (@round $a:ident, $rc:expr, $xor:ident, $xor5:ident, $rol:ident, $chi:ident, $splat:ident) => {
        let d = keccak_rounds!(@theta $a, $xor, $xor5, $rol);
        keccak_rounds!(@rho_pi $a, d, b, $xor, $rol;
            (0, 0, 0), (6, 1, 44), (12, 2, 43), (18, 3, 21), (24, 4, 14),
            (3, 3, 28), (9, 4, 20), (10, 0, 3), (16, 1, 45), (22, 2, 61),
            (1, 1, 1), (7, 2, 6), (13, 3, 25), (19, 4, 8), (20, 0, 18),
            (4, 4, 27), (5, 0, 36), (11, 1, 10), (17, 2, 15), (23, 3, 56),
            (2, 2, 62), (8, 3, 55), (14, 4, 39), (15, 0, 41), (21, 1, 2));
        for row in [0, 5, 10, 15, 20] {
            $a[row] = $chi(b[row], b[row + 1], b[row + 2]);
            $a[row + 1] = $chi(b[row + 1], b[row + 2], b[row + 3]);
            $a[row + 2] = $chi(b[row + 2], b[row + 3], b[row + 4]);
            $a[row + 3] = $chi(b[row + 3], b[row + 4], b[row]);
            $a[row + 4] = $chi(b[row + 4], b[row], b[row + 1]);
        }
        $a[0] = $xor($a[0], $splat($rc));
    };
    // The fused kernels' middle, on `$a` (a signature's last block, padded but for the
    // final bit): the final bit, the signature permutation (its last round for the digest
    // alone), the digest's hex (`$hex_halves`) padded as SHAKE256's block, and that
    // permuted with its first round apart, so that the compiler drops the operations on
    // the lanes known to be zero (14 of 25). Evaluates to the stream's state.
    (@signature_then_stream $a:ident, $padding:expr, $hex_halves:path, $zero:expr,
        $xor:ident, $xor5:ident, $rol:ident, $chi:ident, $splat:ident) => {{
        $a[LAST_RATE_LANE] = $xor($a[LAST_RATE_LANE], $splat($padding.final_bit));
        let (last, rounds) = ROUND_CONSTANTS.split_last().expect("24 rounds");
        for &round_constant in rounds {
            keccak_rounds!(@round $a, round_constant, $xor, $xor5, $rol, $chi, $splat);
        }
        let digest = keccak_rounds!(@digest_round $a, *last, $xor, $xor5, $rol, $chi, $splat);
        let mut stream = [$zero; 25];
        for (d, &row) in digest.iter().enumerate() {
            [stream[2 * d], stream[2 * d + 1]] = $hex_halves(row);
        }
        stream[8] = $splat($padding.shake_domain);
        stream[LAST_RATE_LANE] = $splat($padding.final_bit);
        keccak_rounds!(@round stream, ROUND_CONSTANTS[0], $xor, $xor5, $rol, $chi, $splat);
        for &round_constant in &ROUND_CONSTANTS[1..] {
            keccak_rounds!(@round stream, round_constant, $xor, $xor5, $rol, $chi, $splat);
        }
        stream
    }};
    // The last round of a permutation whose output is read in lanes 0..4 only (a
    // SHA3-256 digest): θ needs every lane, but ρ and π only the five that move to the
    // first row, and χ only its first four lanes.
    (@digest_round $a:ident, $rc:expr, $xor:ident, $xor5:ident, $rol:ident, $chi:ident, $splat:ident) => {{
        let d = keccak_rounds!(@theta $a, $xor, $xor5, $rol);
        keccak_rounds!(@rho_pi $a, d, b, $xor, $rol;
            (0, 0, 0), (6, 1, 44), (12, 2, 43), (18, 3, 21), (24, 4, 14));
        [
            $xor($chi(b[0], b[1], b[2]), $splat($rc)),
            $chi(b[1], b[2], b[3]),
            $chi(b[2], b[3], b[4]),
            $chi(b[3], b[4], b[0]),
        ]
    }};
    // θ's `D`, from the parities of the columns.
    (@theta $a:ident, $xor:ident, $xor5:ident, $rol:ident) => {{
        let c = [
            $xor5($a[0], $a[5], $a[10], $a[15], $a[20]),
            $xor5($a[1], $a[6], $a[11], $a[16], $a[21]),
            $xor5($a[2], $a[7], $a[12], $a[17], $a[22]),
            $xor5($a[3], $a[8], $a[13], $a[18], $a[23]),
            $xor5($a[4], $a[9], $a[14], $a[19], $a[24]),
        ];
        [
            $xor(c[4], $rol::<1, 63>(c[1])),
            $xor(c[0], $rol::<1, 63>(c[2])),
            $xor(c[1], $rol::<1, 63>(c[3])),
            $xor(c[2], $rol::<1, 63>(c[4])),
            $xor(c[3], $rol::<1, 63>(c[0])),
        ]
    }};
    (@rho_pi $a:ident, $d:ident, $b:ident, $xor:ident, $rol:ident;
        $(($source:literal, $column:literal, $rotation:literal)),*) => {
        let $b = [$($rol::<$rotation, { 64 - $rotation }>($xor($a[$source], $d[$column]))),*];
    };
}

/// The vector operations of the AVX-512 rounds, eight 64-bit lanes a register.
mod avx512 {
    use core::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn xor(a: __m512i, b: __m512i) -> __m512i {
        _mm512_xor_si512(a, b)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn xor5(a: __m512i, b: __m512i, c: __m512i, d: __m512i, e: __m512i) -> __m512i {
        // 0x96: the truth table of a ^ b ^ c.
        let abc = _mm512_ternarylogic_epi64::<0x96>(a, b, c);
        _mm512_ternarylogic_epi64::<0x96>(abc, d, e)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn rol<const LEFT: i32, const RIGHT: i32>(v: __m512i) -> __m512i {
        _mm512_rol_epi64::<LEFT>(v)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn chi(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        // 0xD2: the truth table of a ^ (!b & c) (a = 0xF0, b = 0xCC, c = 0xAA).
        _mm512_ternarylogic_epi64::<0xD2>(a, b, c)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn splat(value: u64) -> __m512i {
        _mm512_set1_epi64(value as i64)
    }

    /// The eight lowercase hex characters of the four bytes in the low half of each lane
    /// (little-endian), as one little-endian lane: `chain::hex_word` on every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn hex_words(bytes: __m512i) -> __m512i {
        let and = |v, mask| _mm512_and_si512(v, splat(mask));
        let spread = and(_mm512_or_si512(bytes, _mm512_slli_epi64::<16>(bytes)), 0x0000_FFFF_0000_FFFF);
        let spread = and(_mm512_or_si512(spread, _mm512_slli_epi64::<8>(spread)), 0x00FF_00FF_00FF_00FF);
        let nibbles = _mm512_or_si512(
            and(_mm512_srli_epi64::<4>(spread), 0x000F_000F_000F_000F),
            _mm512_slli_epi64::<8>(and(spread, 0x000F_000F_000F_000F)),
        );
        // '0' + n, plus 39 more where n >= 10 (n + 6 carries into bit 4): 39 = 32 + 8 − 1.
        let letters = and(
            _mm512_srli_epi64::<4>(_mm512_add_epi64(nibbles, splat(0x0606_0606_0606_0606))),
            0x0101_0101_0101_0101,
        );
        let digits = _mm512_add_epi64(nibbles, splat(0x3030_3030_3030_3030));
        let letters39 = _mm512_sub_epi64(
            _mm512_add_epi64(_mm512_slli_epi64::<5>(letters), _mm512_slli_epi64::<3>(letters)),
            letters,
        );
        _mm512_add_epi64(digits, letters39)
    }

    /// Loads a row of eight lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn load(row: &[u64; 8]) -> __m512i {
        // SAFETY: `row` is a `[u64; 8]`, 64 readable bytes, exactly one register; the
        // unaligned load has no alignment requirement.
        unsafe { _mm512_loadu_si512(row.as_ptr().cast()) }
    }

    /// Stores a row of eight lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn store(row: &mut [u64; 8], vector: __m512i) {
        // SAFETY: `row` is a `[u64; 8]`, 64 writable bytes, exactly one register.
        unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), vector) }
    }
}

/// Permutes all [`STATES`](super::STATES) states of `states`.
#[target_feature(enable = "avx512f")]
pub(super) fn permute_avx512(states: &mut Lanes) {
    use avx512::{chi, rol, splat, xor, xor5};
    let mut a = [_mm512_setzero_si512(); 25];
    for (vector, row) in a.iter_mut().zip(states.iter()) {
        *vector = avx512::load(row);
    }
    keccak_rounds!(a, xor, xor5, rol, chi, splat);
    for (vector, row) in a.iter().zip(states.iter_mut()) {
        avx512::store(row, *vector);
    }
}

/// Where the fused kernel's two sponges put their padding: SHA3-256 and SHAKE256 share the
/// rate (136 bytes: 17 lanes), so pad10*1's final bit is the top bit of lane 16 in both;
/// SHAKE256's first block is the 64 hex characters of the digest (lanes 0..8), then its
/// domain byte.
///
/// The lane is a constant, not a field: indexed by a run-time value, the 25 registers of
/// the state became an array in memory, zeroed at the start (a `memset` of 1,600 bytes a
/// group) and stored through it at the end (a `memcpy`), about 3% of a sweep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Padding {
    /// pad10*1's final bit, in lane [`LAST_RATE_LANE`].
    pub(crate) final_bit: u64,
    /// SHAKE256's domain byte (with pad10*1's first bit), in lane 8.
    pub(crate) shake_domain: u64,
}

/// The last lane of the rate of SHA3-256 and SHAKE256 (136 bytes: lanes 0..17).
pub(crate) const LAST_RATE_LANE: usize = 16;

/// Eight rounds' last signature blocks and their streams' first blocks, fused: the states
/// built in registers from their midstates (`sources`: each midstate with the lanes that
/// start from it), XORed with `first_rows` (the rest of each message and SHA3's domain
/// byte, in lanes 0..3) and the final padding bit, permuted; the digests turned into hex
/// (by `$hex_halves`, giving the hex of a row's low and high four bytes) and padded as
/// SHAKE256's block in registers, permuted again; stored once into `out`. The same states
/// as writing the blocks, permuting, writing the stream blocks and permuting again through
/// memory, without the round trips.
macro_rules! hash_on_midstates {
    ($sources:ident, $first_rows:ident, $padding:ident, $out:ident, $hex_halves:path) => {{
        use avx512::{chi, rol, splat, xor, xor5};
        let mut a = [_mm512_setzero_si512(); 25];
        for &(lanes, state) in $sources {
            for (vector, &value) in a.iter_mut().zip(state) {
                *vector = _mm512_mask_mov_epi64(*vector, lanes, splat(value));
            }
        }
        for (vector, row) in a.iter_mut().zip($first_rows) {
            *vector = xor(*vector, avx512::load(row));
        }
        let a = keccak_rounds!(@signature_then_stream a, $padding, $hex_halves, _mm512_setzero_si512(),
            xor, xor5, rol, chi, splat);
        for (vector, row) in a.iter().zip($out.iter_mut()) {
            avx512::store(row, *vector);
        }
    }};
}

/// The hex of each lane's low and high four bytes with AVX-512F alone.
#[inline]
#[target_feature(enable = "avx512f")]
fn hex_halves_f(row: __m512i) -> [__m512i; 2] {
    use avx512::{hex_words, splat};
    [hex_words(_mm512_and_si512(row, splat(0xFFFF_FFFF))), hex_words(_mm512_srli_epi64::<32>(row))]
}

/// The hex of each lane's low and high four bytes with AVX-512BW's byte shuffles: each
/// byte spread to a 16-bit slot, its two nibbles split into the slot's bytes, and each
/// nibble looked up in "0123456789abcdef" (5 instructions a half, where `hex_halves_f`
/// takes 21: about 3% of the fused kernel's instructions).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn hex_halves_bw(row: __m512i) -> [__m512i; 2] {
    // Byte indices within each 128-bit lane (two 64-bit lanes): byte `i` of the half to
    // the low byte of 16-bit slot `i` of its 64-bit lane, 0x80 (zero) to the high byte.
    let spread = |half: i64| {
        let qword = |base: i64| {
            (0..4).fold(0i64, |word, i| word | (base + half + i) << (16 * i) | 0x80 << (16 * i + 8))
        };
        _mm512_set_epi64(qword(8), qword(0), qword(8), qword(0), qword(8), qword(0), qword(8), qword(0))
    };
    let digits = _mm512_set4_epi64(
        i64::from_le_bytes(*b"89abcdef"),
        i64::from_le_bytes(*b"01234567"),
        i64::from_le_bytes(*b"89abcdef"),
        i64::from_le_bytes(*b"01234567"),
    );
    let hex = |half: i64| {
        let slots = _mm512_shuffle_epi8(row, spread(half));
        // Low byte: the high nibble (slot >> 4); high byte: the low nibble (slot << 8).
        // 0xA8: (a | b) & c (a = 0xF0, b = 0xCC, c = 0xAA).
        let nibbles = _mm512_ternarylogic_epi64::<0xA8>(
            _mm512_srli_epi16::<4>(slots),
            _mm512_slli_epi16::<8>(slots),
            _mm512_set1_epi8(0x0F),
        );
        _mm512_shuffle_epi8(digits, nibbles)
    };
    [hex(0), hex(4)]
}

/// [`hash_on_midstates!`] with AVX-512F alone.
#[target_feature(enable = "avx512f")]
pub(super) fn hash_on_midstates_avx512(
    sources: &[(u8, &[u64; 25])],
    first_rows: &[[u64; 8]; 3],
    padding: Padding,
    out: &mut Lanes,
) {
    hash_on_midstates!(sources, first_rows, padding, out, hex_halves_f)
}

/// [`hash_on_midstates!`] with AVX-512BW's byte shuffles for the hex.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn hash_on_midstates_avx512bw(
    sources: &[(u8, &[u64; 25])],
    first_rows: &[[u64; 8]; 3],
    padding: Padding,
    out: &mut Lanes,
) {
    hash_on_midstates!(sources, first_rows, padding, out, hex_halves_bw)
}

/// The vector operations of the AVX2 rounds, four 64-bit lanes a register.
mod avx2 {
    use core::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn xor(a: __m256i, b: __m256i) -> __m256i {
        _mm256_xor_si256(a, b)
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn xor5(a: __m256i, b: __m256i, c: __m256i, d: __m256i, e: __m256i) -> __m256i {
        xor(xor(xor(a, b), xor(c, d)), e)
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn rol<const LEFT: i32, const RIGHT: i32>(v: __m256i) -> __m256i {
        _mm256_or_si256(_mm256_slli_epi64::<LEFT>(v), _mm256_srli_epi64::<RIGHT>(v))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn chi(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
        _mm256_xor_si256(a, _mm256_andnot_si256(b, c))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn splat(value: u64) -> __m256i {
        _mm256_set1_epi64x(value as i64)
    }

    /// Loads lanes `4 * half..4 * half + 4` of a row.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn load(row: &[u64; 8], half: usize) -> __m256i {
        let quarter: &[u64; 4] = row[4 * half..4 * half + 4].try_into().expect("four lanes");
        // SAFETY: `quarter` is a `[u64; 4]`, 32 readable bytes, exactly one register;
        // the unaligned load has no alignment requirement.
        unsafe { _mm256_loadu_si256(quarter.as_ptr().cast()) }
    }

    /// Stores lanes `4 * half..4 * half + 4` of a row.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn store(row: &mut [u64; 8], half: usize, vector: __m256i) {
        let quarter: &mut [u64; 4] = (&mut row[4 * half..4 * half + 4]).try_into().expect("four lanes");
        // SAFETY: `quarter` is a `[u64; 4]`, 32 writable bytes, exactly one register.
        unsafe { _mm256_storeu_si256(quarter.as_mut_ptr().cast(), vector) }
    }

    /// The hex of each lane's low and high four bytes, as `hex_halves_bw` with AVX2's
    /// byte shuffles (which, like AVX-512BW's, work within 128-bit halves).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn hex_halves(row: __m256i) -> [__m256i; 2] {
        let spread = |half: i64| {
            let qword = |base: i64| {
                (0..4).fold(0i64, |word, i| word | (base + half + i) << (16 * i) | 0x80 << (16 * i + 8))
            };
            _mm256_set_epi64x(qword(8), qword(0), qword(8), qword(0))
        };
        let digits = _mm256_set_epi64x(
            i64::from_le_bytes(*b"89abcdef"),
            i64::from_le_bytes(*b"01234567"),
            i64::from_le_bytes(*b"89abcdef"),
            i64::from_le_bytes(*b"01234567"),
        );
        let hex = |half: i64| {
            let slots = _mm256_shuffle_epi8(row, spread(half));
            // Low byte: the high nibble (slot >> 4); high byte: the low nibble (slot << 8).
            let nibbles = _mm256_and_si256(
                _mm256_or_si256(_mm256_srli_epi16::<4>(slots), _mm256_slli_epi16::<8>(slots)),
                _mm256_set1_epi8(0x0F),
            );
            _mm256_shuffle_epi8(digits, nibbles)
        };
        [hex(0), hex(4)]
    }
}

/// Permutes states `4 * half .. 4 * half + 4` of `states` (`half` is 0 or 1).
#[target_feature(enable = "avx2")]
pub(super) fn permute_avx2(states: &mut Lanes, half: usize) {
    use avx2::{chi, rol, splat, xor, xor5};

    // Sixteen AVX2 registers do not hold 25 lanes, so the compiler spills. Left to
    // itself it kept the caller's stack alignment (16 bytes) and spilled unaligned, and
    // where the caller's frame left spills straddling cache lines their reloads stalled:
    // the permutation ran at half its speed in some builds and processes (the roulette
    // sweep on `avx2` at 1.0 M rounds/s against 1.5-2.2 M; profiled, a third of the time
    // on two reloads). A cache-line-aligned local that the compiler must keep makes the
    // function realign its frame, and so align every spill, whatever the caller.
    #[repr(align(64))]
    struct RealignFrame(#[allow(dead_code)] [u8; 64]);
    core::hint::black_box(&mut RealignFrame([0; 64]));

    let mut a = [_mm256_setzero_si256(); 25];
    for (vector, row) in a.iter_mut().zip(states.iter()) {
        *vector = avx2::load(row, half);
    }
    keccak_rounds!(a, xor, xor5, rol, chi, splat);
    for (vector, row) in a.iter().zip(states.iter_mut()) {
        avx2::store(row, half, *vector);
    }
}

/// [`hash_on_midstates_avx512`] for states `4 * half..4 * half + 4` of eight, with AVX2:
/// each lane's midstate selected by a blend, the hex by byte shuffles, and the frame
/// realigned as in [`permute_avx2`].
#[target_feature(enable = "avx2")]
pub(super) fn hash_on_midstates_avx2(
    sources: &[(u8, &[u64; 25])],
    first_rows: &[[u64; 8]; 3],
    padding: Padding,
    out: &mut Lanes,
    half: usize,
) {
    use avx2::{chi, rol, splat, xor, xor5};
    // See permute_avx2: spills aligned whatever the caller's frame.
    #[repr(align(64))]
    struct RealignFrame(#[allow(dead_code)] [u8; 64]);
    core::hint::black_box(&mut RealignFrame([0; 64]));

    let lane_bits = _mm256_set_epi64x(8, 4, 2, 1);
    let mut a = [_mm256_setzero_si256(); 25];
    for &(lanes, state) in sources {
        // All ones in the 64-bit lanes of this half that start from `state`.
        let select =
            _mm256_cmpeq_epi64(_mm256_and_si256(splat(u64::from(lanes >> (4 * half))), lane_bits), lane_bits);
        for (vector, &value) in a.iter_mut().zip(state) {
            *vector = _mm256_blendv_epi8(*vector, splat(value), select);
        }
    }
    for (vector, row) in a.iter_mut().zip(first_rows) {
        *vector = xor(*vector, avx2::load(row, half));
    }
    let a = keccak_rounds!(@signature_then_stream a, padding, avx2::hex_halves, _mm256_setzero_si256(),
        xor, xor5, rol, chi, splat);
    for (vector, row) in a.iter().zip(out.iter_mut()) {
        avx2::store(row, half, *vector);
    }
}
