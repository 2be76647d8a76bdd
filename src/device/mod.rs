//! The sweep's round kernel as the accelerator would run it (`kernel.c`), compiled here for
//! the CPU by build.rs: the same C source a GPU build compiles, so its logic (the round
//! signature, the SHAKE256 words, rejection sampling, the Keno draw and the roulette spin)
//! is tested against the Rust path (`verify::replay`) on every machine, with a
//! GPU or without (`tests/device_kernel.rs`: every published vector, rejection rounds,
//! random seeds and nonces).
//!
//! The device sweep: an [`Accelerator`] tallies the Keno rounds or roulette spins of a
//! range of nonces in runs, one per device thread, each counted in nonce order with its
//! edge state kept; a block's runs are joined into a segment on the device, and the host
//! joins the segments as the CPU sweep joins its chunks ([`keno`], [`roulette`]), so the
//! tally is the CPU's, field for field. [`KernelOnCpu`] runs the kernel's runs and joins
//! on the CPU's threads: the device path end to end on any machine, which the tests hold
//! equal to the CPU sweep; [`EmulatedGpu`] runs the GPU's own `__global__` entry points on
//! CPU threads, blocks, shared memory and atomics included. [`choice`] picks the device a
//! sweep asked for (`--device`); `cuda` (feature `gpu`) is the GPU.

pub mod choice;
pub mod cpu;
#[cfg(feature = "gpu")]
pub mod cuda;
pub mod emulated;
pub mod keno;
pub mod roulette;

pub use choice::DeviceChoice;
pub use cpu::KernelOnCpu;
pub use emulated::EmulatedGpu;
pub use keno::{keno_segment, KenoCounts, KenoEdges, KenoLaunch};
pub use roulette::{roulette_segment, RouletteCounts, RouletteEdges, RouletteLaunch};

use crate::games::Roulette;
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

/// The nonces `nonces` cut into pieces of `per_piece` (a launch's runs or segments), in
/// order; the last may be shorter.
pub fn pieces(nonces: Range<u64>, per_piece: u64) -> impl Iterator<Item = Range<u64>> {
    assert!(per_piece > 0, "a run or segment holds at least one round");
    let (start, end) = (nonces.start, nonces.end.max(nonces.start));
    let count = (end - start).div_ceil(per_piece);
    (0..count).map(move |i| {
        let first = start + i * per_piece;
        first..first.saturating_add(per_piece).min(end)
    })
}

/// A launch's segments: `nonces` cut into pieces of `per_segment`, one for each of the
/// `edges` edge states it handed back; refused as faulty when the two differ in number.
pub fn launch_segments(
    nonces: &Range<u64>,
    per_segment: u64,
    edges: usize,
) -> Result<Vec<Range<u64>>, DeviceError> {
    let segments: Vec<Range<u64>> = pieces(nonces.clone(), per_segment).collect();
    if segments.len() != edges {
        return Err(DeviceError::Faulty(format!(
            "{edges} segments' edges for the {} segments of nonces {}..{}",
            segments.len(),
            nonces.start,
            nonces.end
        )));
    }
    Ok(segments)
}

/// Adds `theirs` to `mine`, cell by cell: counts of other runs, or a launch's counts into
/// a tally's.
pub(crate) fn add_cells(mine: &mut [u64], theirs: &[u64]) {
    mine.iter_mut().zip(theirs).for_each(|(m, t)| *m += t);
}

/// Checks that a launch handed back what it was asked for: the nonces `asked`, in
/// segments of at least one nonce. A device is not trusted to say which nonces its counts
/// are of.
pub fn check_launch(asked: &Range<u64>, nonces: &Range<u64>, per_segment: u64) -> Result<(), DeviceError> {
    if nonces != asked || per_segment == 0 {
        return Err(DeviceError::Faulty(format!(
            "asked for nonces {}..{}, it returned a launch of nonces {}..{} in segments of {per_segment}",
            asked.start, asked.end, nonces.start, nonces.end
        )));
    }
    Ok(())
}

/// Something that tallies Keno rounds and roulette spins in runs: a GPU, or [`KernelOnCpu`].
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

    /// Tallies the spins `nonces` of `wheel` likewise ([`RouletteLaunch`]).
    fn roulette(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
        wheel: Roulette,
    ) -> Result<RouletteLaunch, DeviceError>;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_nonces_in_order_with_a_short_last_one() {
        let runs: Vec<_> = pieces(5..28, 10).collect();
        assert_eq!(runs, vec![5..15, 15..25, 25..28]);
        assert_eq!(pieces(3..3, 10).count(), 0);
        let top: Vec<_> = pieces(u64::MAX - 5..u64::MAX, 4).collect();
        assert_eq!(top, vec![u64::MAX - 5..u64::MAX - 1, u64::MAX - 1..u64::MAX]);
    }
}
