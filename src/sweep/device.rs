//! The sweep of one nonce range of Keno on a device: launch after launch, each launch's
//! segments checked against the seeds and joined into one segment
//! ([`crate::device::keno_segment`]), the segments joined as the CPU sweep's chunks are. A
//! stop is honoured between launches; the result then covers the launches done, and
//! continues like any interrupted sweep.

use super::runner::tally_rounds;
use crate::chain::seeds::SeedPair;
use crate::chain::{Kernel, RoundHasher};
use crate::device::{keno_segment, Accelerator, DeviceError, KenoLaunch};
use crate::games::Keno;
use crate::tally::window::MAX_LAG;
use crate::tally::{KenoTally, Segments};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Tallies the Keno rounds `range` of `seeds` on `device`, re-deriving each returned
/// segment's first and last rounds on the CPU with `kernel`. Calls `progress(rounds)` after
/// each launch and starts none once `stop` is set.
pub fn sweep_keno(
    device: &dyn Accelerator,
    seeds: &SeedPair,
    range: Range<u64>,
    kernel: Kernel,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Segments<KenoTally>, DeviceError> {
    let shape = device.shape();
    let hasher = RoundHasher::new(&seeds.server_seed, &seeds.client_seed);
    let mut segments = Segments::default();
    let mut start = range.start;
    while start < range.end && !stop.load(Ordering::Relaxed) {
        // Shorter runs for what is left when it is short, so that it still fills the
        // device's threads.
        let left = range.end - start;
        let per_run = shape.per_run.min(left.div_ceil(shape.runs.max(1))).max(1);
        let end = start.saturating_add(per_run.saturating_mul(shape.runs.max(1))).min(range.end);
        let launch = device.keno(&seeds.server_seed, &seeds.client_seed, start..end, per_run)?;
        check_against_seeds(&launch, &hasher, kernel)?;
        segments.extend_after(Segments(vec![keno_segment(launch)?]));
        progress(end - start);
        start = end;
    }
    Ok(segments)
}

/// Re-derives from the seeds, on the CPU, the first and last ten rounds of each segment a
/// launch hands back, and compares them with the device's edges. The counts' checks
/// ([`keno_segment`]) catch a round lost or counted twice; this catches a device that
/// hashes or draws wrongly but consistently (a miscompiled kernel), for whose rounds no
/// count is inconsistent. About 20 rounds per segment: a device's segment is a block's
/// runs, about a million rounds.
fn check_against_seeds(launch: &KenoLaunch, hasher: &RoundHasher, kernel: Kernel) -> Result<(), DeviceError> {
    let segments = KenoLaunch::pieces(launch.nonces.clone(), launch.per_segment);
    for (segment, edges) in segments.zip(&launch.edges) {
        let held = (segment.end - segment.start).min(MAX_LAG as u64);
        let front = tally_rounds::<KenoTally>(Keno, hasher, kernel, segment.start..segment.start + held);
        let back = tally_rounds::<KenoTally>(Keno, hasher, kernel, segment.end - held..segment.end);
        let held = held as usize;
        if front.edges.head != edges.head[..held] || back.edges.tail != edges.tail[..held] {
            return Err(DeviceError::Faulty(format!(
                "the first or last rounds of its segment of nonces {}..{} are not the rounds the seeds give",
                segment.start, segment.end
            )));
        }
    }
    Ok(())
}
