//! The device kernel's code run on the CPU's threads: each run tallied by the C kernel's
//! `fa_keno_run` or `fa_roulette_run` (as a device thread tallies it) and a few
//! consecutive runs joined into a segment by `fa_keno_join` or `fa_roulette_join` (as a
//! device block's first thread joins its threads' runs),
//! the segments' counts added up as a device adds its blocks'. Not a fast path (the Rust
//! sweep is 11 to 13 times faster): it is the device path, end to end, on a machine
//! without a GPU.

use super::ffi;
use super::roulette::PAIR_CELLS;
use super::{
    Accelerator, DeviceError, KenoCounts, KenoEdges, KenoLaunch, LaunchShape, RouletteCounts, RouletteEdges,
    RouletteLaunch,
};
use crate::games::Roulette;
use rayon::prelude::*;
use std::ops::Range;

/// Runs joined into one segment: several, so that the kernel's join is exercised.
const RUNS_PER_SEGMENT: u64 = 4;

/// The device kernel on the current rayon pool's threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelOnCpu {
    /// Nonces per run.
    pub per_run: u64,
}

impl Default for KernelOnCpu {
    fn default() -> Self {
        KernelOnCpu { per_run: 4096 }
    }
}

impl Accelerator for KernelOnCpu {
    fn name(&self) -> String {
        format!("the device kernel on {} CPU threads", rayon::current_num_threads())
    }

    fn shape(&self) -> LaunchShape {
        // Several segments per thread, so that threads finishing early find work.
        LaunchShape {
            per_run: self.per_run,
            runs: 8 * RUNS_PER_SEGMENT * rayon::current_num_threads() as u64,
        }
    }

    fn keno(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
    ) -> Result<KenoLaunch, DeviceError> {
        let per_segment = per_run.saturating_mul(RUNS_PER_SEGMENT);
        let segments: Vec<Range<u64>> = super::pieces(nonces.clone(), per_segment).collect();
        let mut edges = vec![KenoEdges::default(); segments.len()];
        let counts = edges
            .par_iter_mut()
            .zip(&segments)
            .fold(Box::<KenoCounts>::default, |mut counts, (edge, segment)| {
                // SAFETY: the seeds are live strings read within their lengths; the kernel
                // adds into `counts` and writes `edge`, both live and laid out as it expects
                // (`repr(C)` mirrors of its structs), and nothing else.
                unsafe {
                    ffi::fa_keno_tally_runs(
                        server.as_ptr(),
                        server.len(),
                        client.as_ptr(),
                        client.len(),
                        segment.start,
                        segment.end - segment.start,
                        per_run,
                        &mut *counts,
                        edge,
                    );
                }
                counts
            })
            .reduce(Box::<KenoCounts>::default, |mut all, some| {
                all.add(&some);
                all
            });
        Ok(KenoLaunch { nonces, per_segment, counts, edges })
    }

    fn roulette(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
        wheel: Roulette,
    ) -> Result<RouletteLaunch, DeviceError> {
        let per_segment = per_run.saturating_mul(RUNS_PER_SEGMENT);
        let segments: Vec<Range<u64>> = super::pieces(nonces.clone(), per_segment).collect();
        let mut edges = vec![RouletteEdges::default(); segments.len()];
        let empty = || (Box::<RouletteCounts>::default(), vec![0u64; PAIR_CELLS]);
        let (counts, pairs) = edges
            .par_iter_mut()
            .zip(&segments)
            .fold(empty, |(mut counts, mut pairs), (edge, segment)| {
                // SAFETY: as in `keno`; the kernel also adds into `pairs`, PAIR_CELLS cells,
                // within the `10 · P · P` cells of a wheel of `P` pockets.
                unsafe {
                    ffi::fa_roulette_tally_runs(
                        server.as_ptr(),
                        server.len(),
                        client.as_ptr(),
                        client.len(),
                        segment.start,
                        segment.end - segment.start,
                        per_run,
                        wheel.pockets(),
                        &mut *counts,
                        pairs.as_mut_ptr(),
                        edge,
                    );
                }
                (counts, pairs)
            })
            .reduce(empty, |(mut counts, mut pairs), (some, some_pairs)| {
                counts.add(&some);
                pairs.iter_mut().zip(&some_pairs).for_each(|(all, one)| *all += one);
                (counts, pairs)
            });
        Ok(RouletteLaunch { nonces, per_segment, counts, pairs, edges })
    }
}
