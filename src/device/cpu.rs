//! The device kernel's entry point run on the CPU's threads: each run tallied by the C
//! kernel's `fa_keno_run` (as a device thread tallies it), the runs' counts added up as a
//! device block adds its threads'. Not a fast path (the Rust sweep is several times
//! faster): it is the device path, end to end, on a machine without a GPU.

use super::ffi;
use super::{Accelerator, DeviceError, KenoCounts, KenoEdges, KenoLaunch, LaunchShape};
use rayon::prelude::*;
use std::ops::Range;

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
        // Several runs per thread, so that threads finishing early find work.
        LaunchShape { per_run: self.per_run, runs: 8 * rayon::current_num_threads() as u64 }
    }

    fn keno(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
    ) -> Result<KenoLaunch, DeviceError> {
        let runs: Vec<Range<u64>> = KenoLaunch::runs(nonces.clone(), per_run).collect();
        let mut edges = vec![KenoEdges::default(); runs.len()];
        let counts = edges
            .par_iter_mut()
            .zip(&runs)
            .fold(Box::<KenoCounts>::default, |mut counts, (edge, run)| {
                // SAFETY: the seeds are live strings read within their lengths; the kernel
                // adds into `counts` and writes `edge`, both live and laid out as it expects
                // (`repr(C)` mirrors of its structs), and nothing else.
                unsafe {
                    ffi::fa_keno_tally_run(
                        server.as_ptr(),
                        server.len(),
                        client.as_ptr(),
                        client.len(),
                        run.start,
                        run.end - run.start,
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
        Ok(KenoLaunch { nonces, per_run, counts, edges })
    }
}
