//! Shared by the integration tests: for the calibration and mutant tests, an independent,
//! known-good generator behind the same `WordSource` seam the chain uses; for the tests
//! that run on every Keccak path, the list of paths this machine supports; for the tests of
//! certificates, reading and forging a dossier ([`dossier`]).

#![allow(dead_code)]

use fairaudit::chain::{KeccakPath, Kernel, WordSource};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// ChaCha8 words: independent of SHA-3, so calibration does not test the chain with itself.
pub struct ChaChaWords(pub ChaCha8Rng);

impl ChaChaWords {
    pub fn seeded(seed: u64) -> Self {
        ChaChaWords(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A uniform number in 0..n (n small), for mutants' own choices.
    pub fn below(&mut self, n: u32) -> u32 {
        fairaudit::sampler::sample(self, n).index
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < p
    }
}

impl WordSource for ChaChaWords {
    fn next_word(&mut self) -> u32 {
        self.0.next_u32()
    }
}

/// Whether Node with SHA3 in its crypto (Node ≥ 12.8 on OpenSSL ≥ 1.1.1) can run the Node
/// examples. Without it a test skips with a note naming `what`, unless
/// `FAIRAUDIT_REQUIRE_NODE` is set (as `.ci/run` sets it): then it fails.
pub fn node_available(what: &str) -> bool {
    let probe = std::process::Command::new("node")
        .args(["-e", "require('crypto').createHash('shake256', { outputLength: 4 }).update('').digest()"])
        .output();
    let ok = matches!(&probe, Ok(output) if output.status.success());
    if !ok {
        assert!(
            std::env::var_os("FAIRAUDIT_REQUIRE_NODE").is_none(),
            "FAIRAUDIT_REQUIRE_NODE is set but node (with sha3-256/shake256) cannot run: {probe:?}"
        );
        eprintln!("note: node with SHA3 not found; skipping {what} (install nodejs to run it)");
    }
    ok
}

pub mod calibration;
pub mod dossier;
pub mod history;
pub mod stake_history;
pub mod stake_tally;

/// The kernels of every Keccak path this machine supports, scalar first; prints a note for
/// each path skipped because the CPU lacks it (so a run on a smaller CPU says what it did
/// not check).
pub fn keccak_kernels() -> Vec<Kernel> {
    KeccakPath::ALL
        .into_iter()
        .filter_map(|path| match Kernel::new(path) {
            Ok(kernel) => Some(kernel),
            Err(error) => {
                eprintln!("note: {path} skipped: {error}");
                None
            }
        })
        .collect()
}

/// A tally file's JSON, doctored by a test, sealed again with the checksum the reader
/// expects (computed as `TallyFile::to_bytes` does), so that the test reaches the checks
/// behind the checksum: a forger can do the same. JSON that is not a tally file's shape
/// is returned unsealed (the reader refuses it before any checksum).
pub fn sealed_tally(value: &serde_json::Value) -> Vec<u8> {
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        object.remove(fairaudit::tally::file::CHECKSUM_FIELD);
    }
    if let Ok(file) = serde_json::from_value::<fairaudit::tally::file::TallyFile>(value.clone()) {
        value[fairaudit::tally::file::CHECKSUM_FIELD] = file.checksum().into();
    }
    serde_json::to_vec(&value).unwrap()
}

/// Every number of a JSON value, as a path of keys and indices.
pub fn number_paths(
    value: &serde_json::Value,
    path: &mut Vec<serde_json::Value>,
    out: &mut Vec<Vec<serde_json::Value>>,
) {
    match value {
        serde_json::Value::Number(_) => out.push(path.clone()),
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(serde_json::Value::from(i));
                number_paths(item, path, out);
                path.pop();
            }
        }
        serde_json::Value::Object(fields) => {
            for (key, item) in fields {
                path.push(serde_json::Value::from(key.as_str()));
                number_paths(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The value at `path` (from [`number_paths`]).
pub fn at<'a>(value: &'a mut serde_json::Value, path: &[serde_json::Value]) -> &'a mut serde_json::Value {
    path.iter().fold(value, |v, step| match step {
        serde_json::Value::String(key) => &mut v[key.as_str()],
        index => &mut v[index.as_u64().unwrap() as usize],
    })
}

/// Every `.rs` file under `dir`, recursively.
pub fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Runs `command` under an address-space cap of `cap` bytes (`ulimit -v`), as a container
/// or a shell's limit would.
#[cfg(target_os = "linux")]
pub fn with_address_space_cap(command: &mut std::process::Command, cap: u64) {
    use std::os::unix::process::CommandExt;
    let limit = libc::rlimit { rlim_cur: cap, rlim_max: cap };
    // SAFETY: setrlimit is async-signal-safe and changes only the child's own limits.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}
