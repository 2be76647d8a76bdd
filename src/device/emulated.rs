//! The GPU's own entry points (`fa_keno_sweep` and `fa_roulette_sweep`, `__global__` in
//! kernel.c) run on CPU threads by `emulator.cpp`: the grid's blocks in turn, each block's
//! threads as real threads sharing its counters. Slow (a thread per device thread); it exists so that
//! the tests run the device's code path, launch geometry and all, on any machine.

use super::ffi;
use super::roulette::PAIR_CELLS;
use super::{
    Accelerator, DeviceError, KenoCounts, KenoEdges, KenoLaunch, LaunchShape, RouletteCounts, RouletteEdges,
    RouletteLaunch,
};
use crate::games::Roulette;
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
        let blocks = self.blocks_for(&nonces, per_run)?;
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

    fn roulette(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
        wheel: Roulette,
    ) -> Result<RouletteLaunch, DeviceError> {
        let blocks = self.blocks_for(&nonces, per_run)?;
        let mut counts = Box::<RouletteCounts>::default();
        let mut pairs = vec![0u64; PAIR_CELLS];
        let mut edges = vec![RouletteEdges::default(); blocks as usize];
        // SAFETY: as in `keno`; the kernel also adds into `pairs`, PAIR_CELLS cells.
        unsafe {
            ffi::fa_emulate_roulette_sweep(
                blocks,
                self.threads,
                server.as_ptr(),
                server.len(),
                client.as_ptr(),
                client.len(),
                nonces.start,
                nonces.end,
                per_run,
                wheel.pockets(),
                &mut *counts,
                pairs.as_mut_ptr(),
                edges.as_mut_ptr(),
            );
        }
        let per_segment = per_run.saturating_mul(u64::from(self.threads));
        Ok(RouletteLaunch { nonces, per_segment, counts, pairs, edges })
    }
}

impl EmulatedGpu {
    /// The blocks of a launch over `nonces` in runs of `per_run`: enough for a thread a run.
    fn blocks_for(&self, nonces: &Range<u64>, per_run: u64) -> Result<u32, DeviceError> {
        let runs = super::pieces(nonces.clone(), per_run).count();
        u32::try_from(runs.div_ceil(self.threads as usize))
            .map_err(|_| DeviceError::Failed(format!("{runs} runs are too many for one launch")))
    }
}
