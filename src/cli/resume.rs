//! What an output folder's earlier sweep means for a new one of any scheme: continued
//! (interrupted, `--resume`, a complete shard), reproduced, or refused saying what to do.

use super::folder::OutputFolder;
use anyhow::{bail, Result};

/// Whether a sweep continues from the tallies an earlier sweep left in its folder (`same`:
/// of the same plan and shard): an interrupted one or `--resume` continues, and so does a
/// shard already complete; a finished sweep of the same plan is swept again (reproduced);
/// another plan is refused, saying what to do.
pub(super) fn continue_earlier(
    folder: &OutputFolder,
    same: bool,
    complete: bool,
    shard: bool,
    resume: bool,
) -> Result<bool> {
    let dir = folder.target().display();
    if !same && (resume || !complete) {
        bail!("{dir} holds an interrupted sweep of a different plan (games, nonces, seed pairs or shard); run it with its own arguments, choose another --out, or pass --force to start over");
    }
    if !same {
        bail!("{dir} holds the output of a different sweep; choose another --out, or pass --force to replace it");
    }
    // A shard is a scheduler's task, run again after a requeue or a resubmitted array: a
    // complete one is not swept again (its results are recomputed from its tallies),
    // unless another version of fairaudit made it.
    let finished_shard = shard && made_by_this_version(folder);
    Ok(resume || !complete || finished_shard)
}

/// Whether the folder's `run.json` was written by this version of fairaudit.
fn made_by_this_version(folder: &OutputFolder) -> bool {
    folder.earlier_run().is_some_and(|run| run["fairaudit_version"] == env!("CARGO_PKG_VERSION"))
}
