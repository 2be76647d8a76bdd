//! Shared by the integration tests: for the calibration and mutant tests, an independent,
//! known-good generator behind the same `WordSource` seam the chain uses; for the tests
//! that run on every Keccak path, the list of paths this machine supports.

#![allow(dead_code)]

use fairaudit::chain::{KeccakPath, Kernel, WordSource};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// ChaCha8 words: independent of SHA-3, so calibration does not test the chain with itself.
pub struct ChaChaWords(pub ChaCha8Rng);

impl ChaChaWords {
    pub fn seeded(seed: u64) -> Self {
        ChaChaWords(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A uniform number in 0..n (n small), for mutants' own choices.
    pub fn below(&mut self, n: u32) -> u32 {
        fairaudit::sampler::sample(self, n).index
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < p
    }
}

impl WordSource for ChaChaWords {
    fn next_word(&mut self) -> u32 {
        self.0.next_u32()
    }
}

/// The kernels of every Keccak path this machine supports, scalar first; prints a note for
/// each path skipped because the CPU lacks it (so a run on a smaller CPU says what it did
/// not check).
pub fn keccak_kernels() -> Vec<Kernel> {
    KeccakPath::ALL
        .into_iter()
        .filter_map(|path| match Kernel::new(path) {
            Ok(kernel) => Some(kernel),
            Err(error) => {
                eprintln!("note: {path} skipped: {error}");
                None
            }
        })
        .collect()
}
