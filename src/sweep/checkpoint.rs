//! Periodic checkpoints: a long sweep hands what it has tallied to a `save` function every
//! so often, without stopping, so that a task killed without warning (SIGKILL after a
//! scheduler's grace period, a lost node) loses at most one interval of work.
//!
//! The sweep runs in steps. A step is an ordinary [`run`] whose stop flag is raised when
//! the interval has passed (or when the caller's own stop flag is raised): the chunks in
//! flight finish, the ones not started are skipped, and the step returns an incomplete
//! tally file. That file is saved, and the next step continues from it exactly as
//! `--resume` does, filling the skipped chunks first. Tallies are exact and segments join
//! exactly, so the final file is identical, byte for byte, to an uninterrupted sweep's
//! whatever the interval (the tests prove it).
//!
//! The clock is read after each chunk (in the progress callback the runner already calls),
//! so the stop is honoured within one chunk, as an interruption is.

use super::{run, SweepControl, SweepError};
use crate::tally::file::{Plan, TallyFile};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why a checkpointed sweep stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError<E> {
    /// The sweep failed (tallies that cannot be joined, a failed device).
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// `save` failed.
    #[error("cannot save a checkpoint: {0}")]
    Save(E),
}

/// Runs (or continues, from `prior`) the sweep of `plan` like [`run`], calling `save`
/// with the incomplete tallies every `every` (measured from the end of the previous save).
/// Returns the complete tallies, or, when `control.stop` is raised, what was tallied up to
/// then (not saved: the caller saves it as it saves any interrupted sweep).
pub fn run_with_checkpoints<E>(
    plan: &Plan,
    prior: Option<TallyFile>,
    control: &SweepControl<'_>,
    every: Duration,
    save: &mut dyn FnMut(&TallyFile) -> Result<(), E>,
) -> Result<TallyFile, CheckpointError<E>> {
    let mut current = prior;
    loop {
        let due = Instant::now().checked_add(every);
        let pause = AtomicBool::new(control.stop.load(Ordering::Relaxed));
        let progress = |rounds: u64| {
            (control.progress)(rounds);
            if control.stop.load(Ordering::Relaxed) || due.is_some_and(|due| Instant::now() >= due) {
                pause.store(true, Ordering::Relaxed);
            }
        };
        let step = SweepControl { stop: &pause, progress: &progress, ..*control };
        let tallies = run(plan, current.take(), &step)?;
        if tallies.complete || control.stop.load(Ordering::Relaxed) {
            return Ok(tallies);
        }
        save(&tallies).map_err(CheckpointError::Save)?;
        current = Some(tallies);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::seeds::SeedPair;
    use crate::chain::Kernel;
    use crate::games::GameId;
    use crate::tally::file::SeedSource;
    use std::sync::atomic::AtomicU64;

    fn plan() -> Plan {
        Plan {
            games: GameId::ALL.to_vec(),
            nonces: vec![(0..20_000).into()],
            seed_source: SeedSource::Given,
            seed_pairs: vec![SeedPair::new("checkpoint-server", "checkpoint-client")],
        }
    }

    #[test]
    fn checkpoints_at_every_chunk_end_with_the_uninterrupted_tallies() {
        let never = AtomicBool::new(false);
        let control = SweepControl {
            chunk: 500,
            stop: &never,
            progress: &|_| {},
            kernel: Kernel::best(),
            device: None,
        };
        let whole = run(&plan(), None, &control).unwrap();
        let mut saved: Vec<TallyFile> = Vec::new();
        let mut save = |t: &TallyFile| -> Result<(), ()> {
            saved.push(TallyFile::from_bytes(&t.to_bytes()).expect("every checkpoint is a valid file"));
            Ok(())
        };
        let done = run_with_checkpoints(&plan(), None, &control, Duration::ZERO, &mut save).unwrap();
        assert_eq!(done.to_bytes(), whole.to_bytes());
        assert!(saved.len() >= 3, "a zero interval saves after every step: {} saves", saved.len());
        let rounds: Vec<u64> = saved.iter().map(TallyFile::rounds).collect();
        assert!(rounds.windows(2).all(|w| w[0] < w[1]), "each step tallies something: {rounds:?}");
        assert!(saved.iter().all(|t| !t.complete));

        // Continuing from any checkpoint ends with the same bytes.
        let middle = saved.swap_remove(saved.len() / 2);
        let continued =
            run_with_checkpoints(&plan(), Some(middle), &control, Duration::MAX, &mut |_| Err::<(), ()>(()))
                .unwrap();
        assert_eq!(continued.to_bytes(), whole.to_bytes(), "no save is due with an endless interval");
    }

    #[test]
    fn a_stop_returns_without_saving_and_a_failed_save_is_an_error() {
        let stop = AtomicBool::new(false);
        let chunks = AtomicU64::new(0);
        let count = |_: u64| {
            if chunks.fetch_add(1, Ordering::SeqCst) == 5 {
                stop.store(true, Ordering::SeqCst);
            }
        };
        let control =
            SweepControl { chunk: 500, stop: &stop, progress: &count, kernel: Kernel::best(), device: None };
        let mut saves = 0;
        let stopped = run_with_checkpoints(&plan(), None, &control, Duration::MAX, &mut |_| {
            saves += 1;
            Ok::<(), ()>(())
        })
        .unwrap();
        assert!(!stopped.complete);
        assert_eq!(saves, 0);

        let never = AtomicBool::new(false);
        let control = SweepControl {
            chunk: 500,
            stop: &never,
            progress: &|_| {},
            kernel: Kernel::best(),
            device: None,
        };
        let failed = run_with_checkpoints(&plan(), None, &control, Duration::ZERO, &mut |_| Err("disk full"));
        assert!(matches!(failed, Err(CheckpointError::Save("disk full"))));
    }
}
