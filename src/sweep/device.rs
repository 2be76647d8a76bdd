//! The sweep of one nonce range of Keno on a device: launch after launch, each launch's
//! runs joined into one segment ([`crate::device::keno_segment`]), the segments joined as
//! the CPU sweep's chunks are. A stop is honoured between launches; the result then
//! covers the launches done, and continues like any interrupted sweep.

use crate::chain::seeds::SeedPair;
use crate::device::{keno_segment, Accelerator, DeviceError};
use crate::tally::{KenoTally, Segments};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Tallies the Keno rounds `range` of `seeds` on `device`. Calls `progress(rounds)` after
/// each launch and starts none once `stop` is set.
pub fn sweep_keno(
    device: &dyn Accelerator,
    seeds: &SeedPair,
    range: Range<u64>,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Segments<KenoTally>, DeviceError> {
    let shape = device.shape();
    // Shorter runs for a short range, so that it still fills the device's threads.
    let len = range.end.saturating_sub(range.start);
    let per_run = shape.per_run.min(len.div_ceil(shape.runs.max(1))).max(1);
    let per_launch = per_run.saturating_mul(shape.runs.max(1));
    let mut segments = Segments::default();
    let mut start = range.start;
    while start < range.end && !stop.load(Ordering::Relaxed) {
        let end = start.saturating_add(per_launch).min(range.end);
        let launch = device.keno(&seeds.server_seed, &seeds.client_seed, start..end, per_run)?;
        segments.extend_after(Segments(vec![keno_segment(launch)?]));
        progress(end - start);
        start = end;
    }
    Ok(segments)
}
