//! An NVIDIA GPU through the CUDA driver (feature `gpu`): `kernel.c` compiled at run time
//! by NVRTC (with `__CUDACC__` defined, so its counters are atomics and its entry points
//! the `__global__ fa_keno_sweep` and `fa_roulette_sweep`), launched with one run of
//! nonces per device thread.
//!
//! The driver and NVRTC are loaded when a sweep asks for the GPU, so the build needs no
//! CUDA and a machine without it gets a named reason rather than a failed start. cudarc
//! panics where a library or one of its symbols is missing: those panics are caught and
//! named here too.

use super::roulette::PAIR_CELLS;
use super::{
    Accelerator, DeviceError, KenoCounts, KenoEdges, KenoLaunch, LaunchShape, RouletteCounts, RouletteEdges,
    RouletteLaunch,
};
use crate::games::Roulette;
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

/// The kernel source, compiled on the device's machine.
const SOURCE: &str = include_str!("kernel.c");

/// Threads per block: each block shares one block of counters (11 KB of shared memory for
/// Keno, 41 KB for roulette). kernel.c's `__launch_bounds__(256, 2)` on its entry points
/// says the same.
const THREADS_PER_BLOCK: u32 = 256;

/// Resident threads per multiprocessor a launch aims at: the kernel is bounded to 128
/// registers a thread (ptxas for sm_90 meets it), so a multiprocessor's 65,536 registers
/// hold 512 of its threads.
const THREADS_PER_MULTIPROCESSOR: u64 = 512;

/// The most nonces one device thread tallies in a launch: long enough that joining its
/// block's runs costs little beside the device's work.
const MAX_PER_RUN: u64 = 4096;

/// The first CUDA device, with the kernel compiled and loaded.
pub struct Cuda {
    name: String,
    stream: Arc<CudaStream>,
    keno: CudaFunction,
    roulette: CudaFunction,
    multiprocessors: u64,
}

impl Cuda {
    /// Opens device 0: the driver, NVRTC, the device, the kernel compiled for it.
    pub fn open() -> Result<Cuda, DeviceError> {
        let unavailable = |what: String| DeviceError::Unavailable(what);
        // cudarc loads every symbol of CUDA 13's API when it loads a library, and panics on
        // one missing: a driver older than CUDA 13.0 (R580) lacks some. Caught, and named.
        caught(|| {
            // SAFETY: each only tries to load the library (dlopen and its symbols), calling
            // nothing in it.
            if !unsafe { cudarc::driver::sys::is_culib_present() } {
                return Err(unavailable("no CUDA driver library (libcuda.so) could be loaded".into()));
            }
            if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
                return Err(unavailable(
                    "no NVRTC library (libnvrtc.so of CUDA 13) could be loaded; add its folder to LD_LIBRARY_PATH"
                        .into(),
                ));
            }
            let count =
                CudaContext::device_count().map_err(|e| unavailable(format!("the CUDA driver: {e}")))?;
            if count < 1 {
                return Err(unavailable("the CUDA driver sees no device".into()));
            }
            let context = CudaContext::new(0).map_err(|e| unavailable(format!("device 0: {e}")))?;
            let name = context.name().map_err(failed)?;
            let multiprocessors = context
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(failed)?;
            let options = CompileOptions { name: Some("kernel.c".into()), ..Default::default() };
            let ptx = compile_ptx_with_opts(SOURCE, options)
                .map_err(|e| DeviceError::Failed(format!("NVRTC cannot compile the kernel: {e}")))?;
            let module = context.load_module(ptx).map_err(|e| {
                DeviceError::Failed(format!(
                    "the driver cannot load the kernel NVRTC compiled ({e}); the driver must be at least as new as NVRTC"
                ))
            })?;
            let keno = module.load_function("fa_keno_sweep").map_err(failed)?;
            let roulette = module.load_function("fa_roulette_sweep").map_err(failed)?;
            Ok(Cuda {
                name,
                stream: context.default_stream(),
                keno,
                roulette,
                multiprocessors: u64::try_from(multiprocessors).unwrap_or(1).max(1),
            })
        })
    }
}

/// Runs `body`, turning a panic inside cudarc (a library, or a symbol of CUDA 13's API,
/// missing) into a named error rather than a crash, without printing the panic.
fn caught<T>(body: impl FnOnce() -> Result<T, DeviceError>) -> Result<T, DeviceError> {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(body));
    panic::set_hook(hook);
    result.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("a CUDA library call failed");
        let why = why.lines().next().unwrap_or(why);
        Err(DeviceError::Unavailable(if why.contains("symbol") {
            format!("a CUDA library lacks a function of CUDA 13 (the driver must be CUDA 13.0 or newer, R580 or later): {why}")
        } else {
            why.to_owned()
        }))
    })
}

impl Accelerator for Cuda {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn shape(&self) -> LaunchShape {
        LaunchShape { per_run: MAX_PER_RUN, runs: self.multiprocessors * THREADS_PER_MULTIPROCESSOR }
    }

    fn keno(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
    ) -> Result<KenoLaunch, DeviceError> {
        let (runs, blocks) = grid(&nonces, per_run)?;
        let stream = &self.stream;
        let (server_bytes, client_bytes) = (upload(stream, server)?, upload(stream, client)?);
        let mut totals = stream.alloc_zeros::<u64>(KenoCounts::CELLS).map_err(failed)?;
        let mut run_edges = stream.alloc_zeros::<u64>(runs * KenoEdges::CELLS).map_err(failed)?;
        let mut block_edges =
            stream.alloc_zeros::<u64>(blocks as usize * KenoEdges::CELLS).map_err(failed)?;
        let (server_len, client_len) = (server.len() as u64, client.len() as u64);
        let mut launch = stream.launch_builder(&self.keno);
        launch
            .arg(&server_bytes)
            .arg(&server_len)
            .arg(&client_bytes)
            .arg(&client_len)
            .arg(&nonces.start)
            .arg(&nonces.end)
            .arg(&per_run)
            .arg(&mut totals)
            .arg(&mut run_edges)
            .arg(&mut block_edges);
        // SAFETY: the arguments are, in order, those of `fa_keno_sweep` in kernel.c: the
        // seeds' bytes and lengths (each buffer a byte longer), the nonces, the run length,
        // `KenoCounts::CELLS` counters, `KenoEdges::CELLS` cells for each of the `runs`
        // threads that has a run (the grid's other threads write nothing) and as many for
        // each of the `blocks` blocks.
        unsafe { launch.launch(config(blocks)) }.map_err(failed)?;
        stream.synchronize().map_err(failed)?;
        let totals = stream.memcpy_dtov(&totals).map_err(failed)?;
        let edges = stream.memcpy_dtov(&block_edges).map_err(failed)?;
        Ok(KenoLaunch {
            nonces,
            per_segment: per_run.saturating_mul(u64::from(THREADS_PER_BLOCK)),
            counts: Box::new(KenoCounts::from_cells(&totals)),
            edges: edges.chunks_exact(KenoEdges::CELLS).map(KenoEdges::from_cells).collect(),
        })
    }

    fn roulette(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
        wheel: Roulette,
    ) -> Result<RouletteLaunch, DeviceError> {
        let (runs, blocks) = grid(&nonces, per_run)?;
        let stream = &self.stream;
        let (server_bytes, client_bytes) = (upload(stream, server)?, upload(stream, client)?);
        let mut totals = stream.alloc_zeros::<u64>(RouletteCounts::CELLS).map_err(failed)?;
        let mut pairs = stream.alloc_zeros::<u64>(PAIR_CELLS).map_err(failed)?;
        let mut run_edges = stream.alloc_zeros::<u64>(runs * RouletteEdges::CELLS).map_err(failed)?;
        let mut block_edges =
            stream.alloc_zeros::<u64>(blocks as usize * RouletteEdges::CELLS).map_err(failed)?;
        let (server_len, client_len, pockets) = (server.len() as u64, client.len() as u64, wheel.pockets());
        let mut launch = stream.launch_builder(&self.roulette);
        launch
            .arg(&server_bytes)
            .arg(&server_len)
            .arg(&client_bytes)
            .arg(&client_len)
            .arg(&nonces.start)
            .arg(&nonces.end)
            .arg(&per_run)
            .arg(&pockets)
            .arg(&mut totals)
            .arg(&mut pairs)
            .arg(&mut run_edges)
            .arg(&mut block_edges);
        // SAFETY: the arguments are, in order, those of `fa_roulette_sweep` in kernel.c: as
        // for `fa_keno_sweep`, with the wheel's pockets (a u32), `RouletteCounts::CELLS`
        // counters, PAIR_CELLS cells of pairs and `RouletteEdges::CELLS` cells of edges
        // for each run and each block.
        unsafe { launch.launch(config(blocks)) }.map_err(failed)?;
        stream.synchronize().map_err(failed)?;
        let totals = stream.memcpy_dtov(&totals).map_err(failed)?;
        let pairs = stream.memcpy_dtov(&pairs).map_err(failed)?;
        let edges = stream.memcpy_dtov(&block_edges).map_err(failed)?;
        Ok(RouletteLaunch {
            nonces,
            per_segment: per_run.saturating_mul(u64::from(THREADS_PER_BLOCK)),
            counts: Box::new(RouletteCounts::from_cells(&totals)),
            pairs,
            edges: edges.chunks_exact(RouletteEdges::CELLS).map(RouletteEdges::from_cells).collect(),
        })
    }
}

/// A driver call's error, named.
fn failed(error: cudarc::driver::DriverError) -> DeviceError {
    DeviceError::Failed(error.to_string())
}

/// The runs of a launch over `nonces` in runs of `per_run`, and the blocks that hold a
/// thread for each.
fn grid(nonces: &Range<u64>, per_run: u64) -> Result<(usize, u32), DeviceError> {
    let runs = super::pieces(nonces.clone(), per_run).count();
    let blocks = u32::try_from(runs.div_ceil(THREADS_PER_BLOCK as usize))
        .map_err(|_| DeviceError::Failed(format!("{runs} runs are too many for one launch")))?;
    Ok((runs, blocks))
}

/// A seed's bytes in device memory, a byte more than the seed, so that an empty seed is
/// still an allocation.
fn upload(stream: &Arc<CudaStream>, seed: &str) -> Result<CudaSlice<u8>, DeviceError> {
    stream.memcpy_stod(&seed.bytes().chain([0]).collect::<Vec<u8>>()).map_err(failed)
}

/// The launch configuration of `blocks` blocks.
fn config(blocks: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks.max(1), 1, 1),
        block_dim: (THREADS_PER_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}
