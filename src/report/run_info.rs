//! `run.json`: how a run was made, so anyone can reproduce it.

use crate::chain::seeds::SeedPair;
use crate::chain::KeccakPath;
use crate::games::GameId;
use crate::tally::file::{NonceRange, SeedSource, TallyFile};
use crate::tally::shards::{PartialOf, ShardOf};
use serde::{Deserialize, Serialize};

/// The `format` field of every `run.json`: it marks a folder as fairaudit's output.
pub const RUN_FORMAT: &str = "fairaudit-run";

/// The facts of one run. Read back too: `certify` makes a sweep's report.html again from
/// what its run.json records.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    /// Always [`RUN_FORMAT`].
    pub format: String,
    /// `sweep` or `merge`.
    pub kind: String,
    /// fairaudit's version.
    pub fairaudit_version: String,
    /// The source revision of the build ([`crate::REVISION`]).
    pub fairaudit_revision: String,
    /// The command, as typed (arguments after the program name).
    pub command_line: Vec<String>,
    /// The directory it ran in, against which the command's relative paths (its paytable
    /// and claims files) are read again by `certify` (absent from folders written before
    /// it was recorded, and where the directory is not UTF-8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<String>,
    /// The SHA-256 of each file the command named (its paytable and claims files), by
    /// which `certify` finds the file the run read (absent where it named none, and from
    /// folders written before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<InputHash>,
    /// Games swept.
    pub games: Vec<GameId>,
    /// Nonce ranges (half-open).
    pub nonces: Vec<NonceRange>,
    /// Where the seed pairs came from.
    pub seed_source: SeedSource,
    /// The seed pairs with their commitments.
    pub seed_pairs: Vec<SeedPair>,
    /// Worker threads (absent for `merge`).
    pub threads: Option<usize>,
    /// Nonces per chunk (absent for `merge`).
    pub chunk_size: Option<u64>,
    /// The Keccak path that hashed the rounds (absent for `merge`); results do not depend on it.
    pub keccak_path: Option<KeccakPath>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// When it ended.
    pub finished_at: String,
    /// Wall-clock seconds.
    pub elapsed_seconds: f64,
    /// Rounds tallied by this run (a resumed run counts only its own).
    pub rounds_this_run: u64,
    /// `rounds_this_run / elapsed_seconds`.
    pub rounds_per_second: f64,
    /// Whether the tallies cover the whole plan (false for a partial merge of shards).
    pub complete: bool,
    /// For one shard of a sweep: which, and where its index came from (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardRun>,
    /// For a merge that lacks some shards: which (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialOf>,
    /// Seconds between checkpoints (sweeps only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_every_seconds: Option<f64>,
    /// The device that swept Keno, when not the CPU (`--device`); results do not depend on
    /// it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// A file a run's command named, and its SHA-256 when the run read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputHash {
    /// The path as the command named it.
    pub path: String,
    /// Lowercase hex SHA-256 of its bytes.
    pub sha256: String,
}

/// A shard's record in `run.json`: the tally file's, and where the index came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardRun {
    /// Which shard of which cut.
    #[serde(flatten)]
    pub shard: ShardOf,
    /// `--shard-index`, `SLURM_ARRAY_TASK_ID` or `JOB_COMPLETION_INDEX`.
    pub index_from: String,
}

impl RunInfo {
    /// Run facts for a tally file; timing and threads are the caller's to fill in.
    pub fn for_tallies(kind: &'static str, tallies: &TallyFile, command_line: Vec<String>) -> Self {
        RunInfo {
            format: RUN_FORMAT.into(),
            kind: kind.into(),
            fairaudit_version: crate::VERSION.into(),
            fairaudit_revision: crate::REVISION.into(),
            command_line,
            working_dir: None,
            inputs: Vec::new(),
            games: tallies.plan.games.clone(),
            nonces: tallies.plan.nonces.clone(),
            seed_source: tallies.plan.seed_source.clone(),
            seed_pairs: tallies.plan.seed_pairs.clone(),
            threads: None,
            chunk_size: None,
            keccak_path: None,
            started_at: String::new(),
            finished_at: String::new(),
            elapsed_seconds: 0.0,
            rounds_this_run: 0,
            rounds_per_second: 0.0,
            complete: tallies.complete && tallies.partial.is_none(),
            shard: None,
            partial: tallies.partial.clone(),
            checkpoint_every_seconds: None,
            device: None,
        }
    }

    /// Pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("run info serialises");
        bytes.push(b'\n');
        bytes
    }
}

/// `run.json` of a run that is not a sweep (an audit, a conformance challenge): what made
/// it, and when.
#[derive(Clone, Debug, Serialize)]
pub struct RunStamp {
    /// Always [`RUN_FORMAT`].
    pub format: &'static str,
    /// `audit` or `conformance`.
    pub kind: &'static str,
    /// fairaudit's version.
    pub fairaudit_version: &'static str,
    /// The source revision of the build ([`crate::REVISION`]).
    pub fairaudit_revision: &'static str,
    /// The command, as typed.
    pub command_line: Vec<String>,
    /// The directory it ran in, against which the command's relative paths (an audit's
    /// history, paytable and `--columns` file) are read again by `certify`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<String>,
    /// The SHA-256 of each file the command named (an audit's history, paytable and
    /// `--columns` file), by which `certify` finds the file the run read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<InputHash>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// When it ended.
    pub finished_at: String,
}

impl RunStamp {
    /// Pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("run stamp serialises");
        bytes.push(b'\n');
        bytes
    }
}
