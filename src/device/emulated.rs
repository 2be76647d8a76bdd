//! The GPU's own entry point (`fa_keno_sweep`, `__global__` in kernel.c) run on CPU
//! threads by `emulator.cpp`: the grid's blocks in turn, each block's threads as real
//! threads sharing its counters. Slow (a thread per device thread); it exists so that
//! the tests run the device's code path, launch geometry and all, on any machine.

use super::ffi;
use super::{Accelerator, DeviceError, KenoCounts, KenoEdges, KenoLaunch, LaunchShape};
use std::ops::Range;

/// A small emulated GPU: `blocks` blocks of `threads` threads per launch at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmulatedGpu {
    /// Threads per block.
    pub threads: u32,
    /// Blocks per launch.
    pub blocks: u32,
    /// Nonces per device thread.
    pub per_run: u64,
}

impl Accelerator for EmulatedGpu {
    fn name(&self) -> String {
        format!(
            "the GPU entry point emulated on the CPU ({} blocks of {} threads)",
            self.blocks, self.threads
        )
    }

    fn shape(&self) -> LaunchShape {
        LaunchShape { per_run: self.per_run, runs: u64::from(self.blocks) * u64::from(self.threads) }
    }

    fn keno(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
    ) -> Result<KenoLaunch, DeviceError> {
        let runs = KenoLaunch::pieces(nonces.clone(), per_run).count();
        let blocks = u32::try_from(runs.div_ceil(self.threads as usize))
            .map_err(|_| DeviceError::Failed(format!("{runs} runs are too many for one launch")))?;
        let mut counts = Box::<KenoCounts>::default();
        let mut edges = vec![KenoEdges::default(); blocks as usize];
        // SAFETY: the seeds are live strings read within their lengths; the kernel adds
        // into `counts` and writes one edge state per block, `blocks` of them, into
        // `edges`: both `repr(C)` mirrors of its structs. The runs' edges are the
        // launcher's own memory.
        unsafe {
            ffi::fa_emulate_keno_sweep(
                blocks,
                self.threads,
                server.as_ptr(),
                server.len(),
                client.as_ptr(),
                client.len(),
                nonces.start,
                nonces.end,
                per_run,
                &mut *counts,
                edges.as_mut_ptr(),
            );
        }
        let per_segment = per_run.saturating_mul(u64::from(self.threads));
        Ok(KenoLaunch { nonces, per_segment, counts, edges })
    }
}
