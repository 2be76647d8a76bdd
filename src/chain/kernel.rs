//! The batch permutation seam: which Keccak-f\[1600\] implementation permutes a batch of
//! states, chosen at run time.
//!
//! The sweep and the stream hash rounds in batches of consecutive nonces
//! ([`super::batch`]); every permutation of a batch goes through [`Kernel::permute`], which
//! permutes up to [`BATCH_LANES`] independent states per call:
//!
//! | path | states per instruction | needs |
//! |---|---|---|
//! | `avx512` | 8 (one AVX-512 register per lane) | x86-64 with AVX-512F |
//! | `avx2` | 4 (two calls per batch) | x86-64 with AVX2 |
//! | `scalar` | 1 (`keccak::f1600`, state by state) | nothing |
//!
//! `auto` takes the widest the CPU has. A [`Kernel`] can only be made for a path the CPU
//! has been checked to support, so forcing a missing path is an error
//! ([`KernelError::Unsupported`]), never an illegal instruction. Single states outside
//! batches (the commitment, `verify`, a round's later blocks) still go through
//! [`super::sponge::permute`]. All paths give identical bytes; the tests check every path
//! this machine supports against the `sha3` crate and the reference vectors.

use crate::simd::CompiledForPath;
use std::fmt;
use std::str::FromStr;

/// States permuted per [`Kernel::permute`] call.
pub const BATCH_LANES: usize = crate::simd::STATES;

/// [`BATCH_LANES`] Keccak-f\[1600\] states, interleaved: lane `i` of state `s` is
/// `self.0[i][s]`, so one lane of every state is one contiguous 64-byte row (one AVX-512
/// register). Aligned to 64 bytes so that no row straddles a cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct BatchState(pub [[u64; BATCH_LANES]; 25]);

impl Default for BatchState {
    fn default() -> Self {
        Self([[0; BATCH_LANES]; 25])
    }
}

impl BatchState {
    /// State `s` as an ordinary 25-lane state.
    #[inline]
    pub fn get(&self, s: usize) -> super::sponge::KeccakState {
        std::array::from_fn(|i| self.0[i][s])
    }

    /// Replaces state `s` with `state`.
    #[inline]
    pub fn set(&mut self, s: usize, state: &super::sponge::KeccakState) {
        for (row, &lane) in self.0.iter_mut().zip(state) {
            row[s] = lane;
        }
    }
}

/// A Keccak implementation, as named on the command line and in `run.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeccakPath {
    /// One state at a time (`keccak::f1600`); every CPU.
    Scalar,
    /// Four states at a time in AVX2 registers.
    Avx2,
    /// Eight states at a time in AVX-512 registers.
    Avx512,
}

impl KeccakPath {
    /// Every path, narrowest first.
    pub const ALL: [KeccakPath; 3] = [KeccakPath::Scalar, KeccakPath::Avx2, KeccakPath::Avx512];

    /// The name used on the command line, in `FAIRAUDIT_KECCAK` and in `run.json`.
    pub const fn name(self) -> &'static str {
        match self {
            KeccakPath::Scalar => "scalar",
            KeccakPath::Avx2 => "avx2",
            KeccakPath::Avx512 => "avx512",
        }
    }

    /// The CPU feature the path needs, as a person would name it.
    const fn needs(self) -> &'static str {
        match self {
            KeccakPath::Scalar => "nothing",
            KeccakPath::Avx2 => "AVX2",
            KeccakPath::Avx512 => "AVX-512F",
        }
    }

    /// Whether the CPU running this process supports the path.
    pub fn is_supported(self) -> bool {
        Kernel::new(self).is_ok()
    }

    /// The paths this CPU supports, narrowest first (always starts with `Scalar`).
    pub fn supported() -> Vec<KeccakPath> {
        Self::ALL.into_iter().filter(|path| path.is_supported()).collect()
    }
}

impl fmt::Display for KeccakPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which path to use: the widest the CPU has, or one forced (for tests and comparisons).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeccakRequest {
    /// The widest path the CPU supports.
    #[default]
    Auto,
    /// Exactly this path; an error if the CPU lacks it.
    Force(KeccakPath),
}

/// A name that is none of `auto`, `scalar`, `avx2`, `avx512`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown Keccak path '{0}' (expected auto, scalar, avx2 or avx512)")]
pub struct UnknownPath(pub String);

impl FromStr for KeccakRequest {
    type Err = UnknownPath;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "auto" {
            return Ok(KeccakRequest::Auto);
        }
        KeccakPath::ALL
            .into_iter()
            .find(|path| path.name() == text)
            .map(KeccakRequest::Force)
            .ok_or_else(|| UnknownPath(text.to_owned()))
    }
}

impl fmt::Display for KeccakRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeccakRequest::Auto => f.write_str("auto"),
            KeccakRequest::Force(path) => f.write_str(path.name()),
        }
    }
}

/// Why a path cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    /// The CPU lacks the instructions the path needs.
    #[error(
        "the {path} Keccak path needs {needs}, which this CPU does not have (supported here: {supported})",
        needs = path.needs(),
        supported = supported_names(&KeccakPath::supported())
    )]
    Unsupported {
        /// The path asked for.
        path: KeccakPath,
    },
}

fn supported_names(paths: &[KeccakPath]) -> String {
    paths.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

/// A Keccak path that this CPU has been checked to support: the batch permutation seam.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    engine: Engine,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2(crate::simd::Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512(crate::simd::Avx512),
}

impl Kernel {
    /// The kernel for `path`, if this CPU supports it.
    pub fn new(path: KeccakPath) -> Result<Self, KernelError> {
        let engine = match path {
            KeccakPath::Scalar => Some(Engine::Scalar),
            #[cfg(target_arch = "x86_64")]
            KeccakPath::Avx2 => crate::simd::Avx2::detect().map(Engine::Avx2),
            #[cfg(target_arch = "x86_64")]
            KeccakPath::Avx512 => crate::simd::Avx512::detect().map(Engine::Avx512),
            #[cfg(not(target_arch = "x86_64"))]
            KeccakPath::Avx2 | KeccakPath::Avx512 => None,
        };
        engine.map(|engine| Self { engine }).ok_or(KernelError::Unsupported { path })
    }

    /// The scalar kernel (every CPU).
    pub fn scalar() -> Self {
        Self { engine: Engine::Scalar }
    }

    /// The widest kernel this CPU supports.
    pub fn best() -> Self {
        KeccakPath::ALL.into_iter().rev().find_map(|path| Self::new(path).ok()).unwrap_or_else(Self::scalar)
    }

    /// The kernel `request` asks for: the widest for `Auto`, else the forced path if the
    /// CPU supports it.
    pub fn select(request: KeccakRequest) -> Result<Self, KernelError> {
        Self::select_without(request, &[])
    }

    /// As [`Kernel::select`], treating the paths in `hidden` as unsupported, so that the
    /// refusal of a missing path can be tested on a CPU that has every path.
    pub fn select_without(request: KeccakRequest, hidden: &[KeccakPath]) -> Result<Self, KernelError> {
        match request {
            KeccakRequest::Force(path) if hidden.contains(&path) => Err(KernelError::Unsupported { path }),
            KeccakRequest::Force(path) => Self::new(path),
            KeccakRequest::Auto => Ok(KeccakPath::ALL
                .into_iter()
                .rev()
                .filter(|path| !hidden.contains(path))
                .find_map(|path| Self::new(path).ok())
                .unwrap_or_else(Self::scalar)),
        }
    }

    /// Runs `work` with the code inlined into its [`CompiledForPath::run`] compiled for the
    /// instructions this kernel's path was checked for: AVX2 and POPCNT on the `avx2` and
    /// `avx512` paths, the baseline on `scalar`. The sweep's per-thread loop runs this way
    /// (its draws and tallies count bits and compare bytes in vectors); it changes no
    /// result, only the instructions.
    #[inline]
    pub fn run_compiled_for_path<W: CompiledForPath>(self, work: W) -> W::Output {
        match self.engine {
            Engine::Scalar => work.run(),
            #[cfg(target_arch = "x86_64")]
            Engine::Avx2(token) => token.run(work),
            #[cfg(target_arch = "x86_64")]
            Engine::Avx512(token) => token.run(work),
        }
    }

    /// Which path this kernel runs.
    pub fn path(self) -> KeccakPath {
        match self.engine {
            Engine::Scalar => KeccakPath::Scalar,
            #[cfg(target_arch = "x86_64")]
            Engine::Avx2(_) => KeccakPath::Avx2,
            #[cfg(target_arch = "x86_64")]
            Engine::Avx512(_) => KeccakPath::Avx512,
        }
    }

    /// Whether the path has a fused kernel for [`Kernel::hash_on_midstates`].
    #[inline]
    pub fn fuses_hashing(self) -> bool {
        match self.engine {
            #[cfg(target_arch = "x86_64")]
            Engine::Avx512(_) | Engine::Avx2(_) => true,
            _ => false,
        }
    }

    /// Hashes a group of rounds that all start from midstates in one fused call where the
    /// path has a kernel for it (`avx512`, `avx2`): `sources` lists each midstate with the lanes
    /// (bits of a mask) that start from it, `first_rows` the rest of each lane's message
    /// and SHA3's domain byte from sponge byte 0 on. Leaves in `out` what writing those
    /// last blocks, permuting, writing the stream blocks (the hex of the digests, padded)
    /// and permuting again would. Returns `false`, doing nothing, on paths without one.
    #[inline]
    pub fn hash_on_midstates(
        self,
        sources: &[(u8, &super::sponge::KeccakState)],
        first_rows: &[[u64; BATCH_LANES]; 3],
        out: &mut BatchState,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        let padding = {
            use super::sponge::{RATE_LANES, SHAKE_DOMAIN};
            // The fused kernels pad in a fixed lane: the rate's last.
            const _: () = assert!(RATE_LANES - 1 == crate::simd::LAST_RATE_LANE);
            crate::simd::Padding { final_bit: 0x80 << 56, shake_domain: u64::from(SHAKE_DOMAIN) }
        };
        match self.engine {
            #[cfg(target_arch = "x86_64")]
            Engine::Avx512(avx512) => {
                avx512.hash_on_midstates(sources, first_rows, padding, &mut out.0);
                true
            }
            #[cfg(target_arch = "x86_64")]
            Engine::Avx2(avx2) => {
                avx2.hash_on_midstates(sources, first_rows, padding, &mut out.0);
                true
            }
            _ => false,
        }
    }

    /// Whether permuting `states` states in one batch call is cheaper than permuting them
    /// one by one with [`super::sponge::permute`] (measured: an AVX-512 call of eight
    /// costs about one scalar permutation, an AVX2 call of four a little more than one).
    pub fn worth_batching(self, states: usize) -> bool {
        match self.path() {
            KeccakPath::Scalar => false,
            KeccakPath::Avx2 | KeccakPath::Avx512 => states >= 2,
        }
    }

    /// Permutes states `0..used` of `states` (at most [`BATCH_LANES`]); the others may be
    /// permuted too, or left alone.
    #[inline]
    pub fn permute(self, states: &mut BatchState, used: usize) {
        debug_assert!(used <= BATCH_LANES);
        match self.engine {
            Engine::Scalar => {
                for s in 0..used {
                    let mut state = states.get(s);
                    super::sponge::permute(&mut state);
                    states.set(s, &state);
                }
            }
            #[cfg(target_arch = "x86_64")]
            Engine::Avx2(avx2) => avx2.permute(&mut states.0, used),
            #[cfg(target_arch = "x86_64")]
            Engine::Avx512(avx512) => avx512.permute(&mut states.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::sponge::KeccakState;

    /// A deterministic stream of 64-bit values (splitmix64), for random states.
    fn random_states(seed: u64) -> [KeccakState; BATCH_LANES] {
        let mut x = seed;
        std::array::from_fn(|_| {
            std::array::from_fn(|_| {
                x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            })
        })
    }

    #[test]
    fn every_supported_kernel_equals_keccak_f1600_on_random_states() {
        for path in KeccakPath::supported() {
            let kernel = Kernel::new(path).unwrap();
            for seed in 0..200 {
                let states = random_states(seed);
                for used in [BATCH_LANES, 1, 3, 4, 5] {
                    let mut batch = BatchState::default();
                    for (s, state) in states.iter().enumerate() {
                        batch.set(s, state);
                    }
                    kernel.permute(&mut batch, used);
                    for (s, state) in states.iter().enumerate().take(used) {
                        let mut expected = *state;
                        keccak::f1600(&mut expected);
                        assert_eq!(batch.get(s), expected, "{path}, seed {seed}, state {s} of {used}");
                    }
                }
            }
        }
    }

    /// SHA3-256 or SHAKE256 (per `domain`) of eight messages at once, absorbed and squeezed
    /// through `kernel` alone: the first `RATE_BYTES * 2` output bytes of each.
    fn batch_sponge(kernel: Kernel, messages: &[Vec<u8>], domain: u8) -> Vec<Vec<u8>> {
        use crate::chain::sponge::RATE_BYTES;
        let padded: Vec<Vec<u8>> = messages
            .iter()
            .map(|message| {
                let mut block = message.clone();
                block.push(domain);
                block.resize(block.len().div_ceil(RATE_BYTES) * RATE_BYTES, 0);
                *block.last_mut().unwrap() ^= 0x80;
                block
            })
            .collect();
        let mut batch = BatchState::default();
        let mut finished = [[0u64; 25]; BATCH_LANES];
        let most = padded.iter().map(|p| p.len() / RATE_BYTES).max().unwrap();
        for b in 0..most {
            for (s, message) in padded.iter().enumerate() {
                for (i, chunk) in
                    message.chunks_exact(8).skip(b * RATE_BYTES / 8).take(RATE_BYTES / 8).enumerate()
                {
                    batch.0[i][s] ^= u64::from_le_bytes(chunk.try_into().unwrap());
                }
            }
            kernel.permute(&mut batch, BATCH_LANES);
            for (s, message) in padded.iter().enumerate() {
                if message.len() / RATE_BYTES == b + 1 {
                    finished[s] = batch.get(s);
                }
            }
        }
        for (s, state) in finished.iter().enumerate() {
            batch.set(s, state);
        }
        let mut out = vec![Vec::new(); BATCH_LANES];
        for squeeze in 0..2 {
            if squeeze > 0 {
                kernel.permute(&mut batch, BATCH_LANES);
            }
            for (s, bytes) in out.iter_mut().enumerate() {
                bytes.extend((0..RATE_BYTES).map(|i| (batch.0[i / 8][s] >> (8 * (i % 8))) as u8));
            }
        }
        out
    }

    #[test]
    fn every_supported_kernel_hashes_random_messages_as_the_sha3_crate_does() {
        use sha3::digest::{ExtendableOutput, Update, XofReader};
        use sha3::{Digest, Sha3_256, Shake256};
        for path in KeccakPath::supported() {
            let kernel = Kernel::new(path).unwrap();
            for seed in 0..40 {
                let randomness = random_states(1000 + seed);
                let messages: Vec<Vec<u8>> = randomness
                    .iter()
                    .map(|lanes| {
                        let len = (lanes[0] % 700) as usize;
                        (0..len).map(|i| (lanes[1 + i % 24] >> (8 * (i / 24 % 8))) as u8 ^ i as u8).collect()
                    })
                    .collect();
                let sha3 = batch_sponge(kernel, &messages, crate::chain::sponge::SHA3_DOMAIN);
                let shake = batch_sponge(kernel, &messages, crate::chain::sponge::SHAKE_DOMAIN);
                for (s, message) in messages.iter().enumerate() {
                    let digest = Sha3_256::digest(message);
                    assert_eq!(
                        &sha3[s][..32],
                        digest.as_slice(),
                        "{path}: SHA3-256 of {} bytes",
                        message.len()
                    );
                    let mut reader = Shake256::default().chain(message).finalize_xof();
                    let mut expected = vec![0u8; shake[s].len()];
                    reader.read(&mut expected);
                    assert_eq!(shake[s], expected, "{path}: SHAKE256 of {} bytes", message.len());
                }
            }
        }
    }

    #[test]
    fn the_zero_state_permutes_to_the_published_value() {
        // Keccak-f[1600] of the all-zero state: first lane F1258F7940E1DDE7 (Keccak team's
        // KeccakF-1600-IntermediateValues.txt).
        for path in KeccakPath::supported() {
            let mut batch = BatchState::default();
            Kernel::new(path).unwrap().permute(&mut batch, BATCH_LANES);
            for s in 0..BATCH_LANES {
                assert_eq!(batch.0[0][s], 0xF125_8F79_40E1_DDE7, "{path}, state {s}");
            }
        }
    }

    #[test]
    fn requests_parse_from_their_names_and_nothing_else() {
        assert_eq!("auto".parse(), Ok(KeccakRequest::Auto));
        for path in KeccakPath::ALL {
            assert_eq!(path.name().parse(), Ok(KeccakRequest::Force(path)));
            assert_eq!(KeccakRequest::Force(path).to_string(), path.name());
        }
        assert!("AVX512".parse::<KeccakRequest>().is_err());
        assert!("neon".parse::<KeccakRequest>().unwrap_err().to_string().contains("expected auto"));
    }

    #[test]
    fn a_hidden_path_is_refused_when_forced_and_skipped_by_auto() {
        let error = Kernel::select_without(KeccakRequest::Force(KeccakPath::Avx512), &[KeccakPath::Avx512])
            .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("avx512 Keccak path needs AVX-512F"), "{message}");
        assert_eq!(message.lines().count(), 1);
        let auto =
            Kernel::select_without(KeccakRequest::Auto, &[KeccakPath::Avx512, KeccakPath::Avx2]).unwrap();
        assert_eq!(auto.path(), KeccakPath::Scalar);
        assert_eq!(
            Kernel::select(KeccakRequest::Force(KeccakPath::Scalar)).unwrap().path(),
            KeccakPath::Scalar
        );
    }

    #[test]
    fn auto_takes_the_widest_supported_path() {
        let widest = *KeccakPath::supported().last().unwrap();
        assert_eq!(Kernel::select(KeccakRequest::Auto).unwrap().path(), widest);
        assert_eq!(Kernel::best().path(), widest);
    }
}
