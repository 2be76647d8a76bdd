//! The sweep's round kernel as the accelerator would run it (`kernel.c`), compiled here for
//! the CPU by build.rs: the same C source a GPU build compiles, so its logic (the round
//! signature, the SHAKE256 words, rejection sampling, the Keno draw and the roulette spin)
//! is tested against the Rust path (`verify::replay`) on every machine, with a
//! GPU or without (`tests/device_kernel.rs`: every published vector, rejection rounds,
//! random seeds and nonces).
//!
//! The device sweep: an [`Accelerator`] tallies the Keno rounds of a range of nonces in
//! runs, one per device thread, each counted in nonce order with its edge state kept; a
//! block's runs are joined into a segment on the device, and the host joins the segments
//! as the CPU sweep joins its chunks ([`keno`]), so the tally is the CPU's, field for
//! field. [`KernelOnCpu`] runs the kernel's run and join on the CPU's threads: the device
//! path end to end on any machine, which the tests hold equal to the CPU sweep;
//! [`EmulatedGpu`] runs the GPU's own `__global__` entry point on CPU threads, blocks,
//! shared memory and atomics included. [`choice`] picks the device a sweep asked for
//! (`--device`); `cuda` (feature `gpu`) is the GPU.

pub mod choice;
pub mod cpu;
#[cfg(feature = "gpu")]
pub mod cuda;
pub mod emulated;
pub mod keno;

pub use choice::DeviceChoice;
pub use cpu::KernelOnCpu;
pub use emulated::EmulatedGpu;
pub use keno::{keno_segment, KenoCounts, KenoEdges, KenoLaunch};

use std::ops::Range;

/// Why a device cannot sweep, or did not sweep as it should.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// No usable device: the build lacks the `gpu` feature, or there is no driver, no
    /// runtime compiler or no device.
    #[error("no usable GPU: {0}")]
    Unavailable(String),
    /// A call to the device failed.
    #[error("the GPU failed: {0}")]
    Failed(String),
    /// The device returned counts no real sweep gives.
    #[error("the device returned a faulty tally: {0}")]
    Faulty(String),
}

/// How a device cuts a launch: `runs` runs (threads) of `per_run` nonces each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Nonces per run: each run is one thread's, tallied in nonce order.
    pub per_run: u64,
    /// Runs per launch.
    pub runs: u64,
}

/// Something that tallies Keno rounds in runs: a GPU, or [`KernelOnCpu`].
pub trait Accelerator: Sync {
    /// What it is, for messages and `run.json` ("NVIDIA H200", "the device kernel on 2
    /// CPU threads").
    fn name(&self) -> String;

    /// How it cuts a launch.
    fn shape(&self) -> LaunchShape;

    /// Tallies the Keno rounds `nonces` of the seed pair `server`, `client` in runs of
    /// `per_run`: their counts added up and the edges of each segment the runs are joined
    /// into ([`KenoLaunch`]).
    fn keno(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
    ) -> Result<KenoLaunch, DeviceError>;
}

mod ffi;

/// The kernel's round signature of `server:client:nonce` (lowercase hex).
pub fn round_signature(server: &str, client: &str, nonce: u64) -> String {
    let mut hex = [0u8; 64];
    // SAFETY: the pointers and lengths are those of live strings, which the kernel only
    // reads within their lengths; it writes the 64 bytes of `hex` and nothing else.
    unsafe {
        ffi::fa_round_signature(
            server.as_ptr(),
            server.len(),
            client.as_ptr(),
            client.len(),
            nonce,
            hex.as_mut_ptr(),
        );
    }
    hex.iter().map(|&b| char::from(b)).collect()
}

/// A round the kernel drew: the draw order (Keno's ten numbers, or the roulette value) and
/// the 32-bit words it consumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRound {
    /// Keno: the numbers 1..40 in draw order; roulette: the one value (37 is "00").
    pub draw: Vec<u8>,
    /// Words consumed, rejected ones included.
    pub words_used: u32,
}

/// The kernel's Keno round.
pub fn keno_round(server: &str, client: &str, nonce: u64) -> KernelRound {
    let (mut draw, mut used) = ([0u8; 10], 0u32);
    // SAFETY: as in `round_signature`; the kernel writes the 10 bytes of `draw` and `used`.
    unsafe {
        ffi::fa_keno_round(
            server.as_ptr(),
            server.len(),
            client.as_ptr(),
            client.len(),
            nonce,
            draw.as_mut_ptr(),
            &mut used,
        );
    }
    KernelRound { draw: draw.to_vec(), words_used: used }
}

/// The kernel's roulette spin among `pockets` (37 European, 38 American).
pub fn roulette_round(server: &str, client: &str, nonce: u64, pockets: u32) -> KernelRound {
    assert!(pockets == 37 || pockets == 38, "a wheel has 37 or 38 pockets");
    let (mut pocket, mut used) = (0u32, 0u32);
    // SAFETY: as in `round_signature`; the kernel writes `pocket` and `used`.
    unsafe {
        ffi::fa_roulette_round(
            server.as_ptr(),
            server.len(),
            client.as_ptr(),
            client.len(),
            nonce,
            pockets,
            &mut pocket,
            &mut used,
        );
    }
    KernelRound { draw: vec![pocket as u8], words_used: used }
}
