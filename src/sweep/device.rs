//! The sweep of one nonce range of Keno or roulette on a device: launch after launch, each
//! launch's segments checked against the seeds and joined into one segment
//! ([`crate::device::keno_segment`], [`crate::device::roulette_segment`]), the segments
//! joined as the CPU sweep's chunks are. A stop is honoured between launches; the result
//! then covers the launches done, and continues like any interrupted sweep.

use super::runner::tally_rounds;
use crate::chain::seeds::SeedPair;
use crate::chain::{Kernel, RoundHasher};
use crate::device::{
    check_launch, keno_segment, roulette_segment, Accelerator, DeviceError, KenoLaunch, LaunchShape,
};
use crate::games::{Keno, Roulette};
use crate::tally::window::MAX_LAG;
use crate::tally::{anchor, KenoTally, RouletteTally, Segment, Segments, SequenceTally, TallyError};
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
    let hasher = RoundHasher::new(&seeds.server_seed, &seeds.client_seed);
    launch_by_launch(device.shape(), range, stop, progress, |nonces, per_run| {
        let launch = device.keno(&seeds.server_seed, &seeds.client_seed, nonces.clone(), per_run)?;
        check_launch(&nonces, &launch.nonces, launch.per_segment)?;
        check_against_seeds(&launch, &hasher, kernel)?;
        keno_segment(launch)
    })
}

/// Tallies the spins `range` of `wheel` for `seeds` on `device`, as [`sweep_keno`] tallies
/// Keno. Each returned segment's edge state (its first and last spins, its open runs, where
/// each pocket first and last fell) is checked against the spins the seeds give at its ends
/// ([`anchor::check_segment`], a few hundred spins a segment) before it is joined.
pub fn sweep_roulette(
    device: &dyn Accelerator,
    wheel: Roulette,
    seeds: &SeedPair,
    range: Range<u64>,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Segments<RouletteTally>, DeviceError> {
    let hasher = RoundHasher::new(&seeds.server_seed, &seeds.client_seed);
    launch_by_launch(device.shape(), range, stop, progress, |nonces, per_run| {
        let launch =
            device.roulette(&seeds.server_seed, &seeds.client_seed, nonces.clone(), per_run, wheel)?;
        check_launch(&nonces, &launch.nonces, launch.per_segment)?;
        roulette_segment(launch, wheel, |segment| {
            anchor::check_segment(wheel, &hasher, segment).map_err(|error| match error {
                TallyError::Shape(what) => DeviceError::Faulty(format!("its {what}")),
                other => DeviceError::Faulty(other.to_string()),
            })
        })
    })
}

/// Runs `launch` on the nonces `range` a launch at a time, each cut into the device's
/// runs, and joins the segments it returns in order.
fn launch_by_launch<T: SequenceTally>(
    shape: LaunchShape,
    range: Range<u64>,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
    mut launch: impl FnMut(Range<u64>, u64) -> Result<Segment<T>, DeviceError>,
) -> Result<Segments<T>, DeviceError> {
    let mut segments = Segments::default();
    let mut start = range.start;
    while start < range.end && !stop.load(Ordering::Relaxed) {
        // Shorter runs for what is left when it is short, so that it still fills the
        // device's threads.
        let left = range.end - start;
        let per_run = shape.per_run.min(left.div_ceil(shape.runs.max(1))).max(1);
        let end = start.saturating_add(per_run.saturating_mul(shape.runs.max(1))).min(range.end);
        segments.extend_after(Segments(vec![launch(start..end, per_run)?]));
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
    let segments = crate::device::pieces(launch.nonces.clone(), launch.per_segment);
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
