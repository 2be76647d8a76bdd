//! Value stability, in the manner of rand's `value_stability` tests and hyperfine's export
//! snapshots: a small fixed sweep, an audit and the `rtp` tables are byte-compared with
//! outputs committed under `tests/expected/`. Any change to a p-value, a statistic, a
//! note, a CSV column or a number's format fails here, so it is made on purpose or not at
//! all. `run.json` and `report.html` are left out: they record the command line, threads
//! and timing. Files over 64 KiB (the sweep's gap and pair tables) are pinned by their
//! SHA3-256 digest (`NAME.sha3-256`) rather than committed whole; the smaller files,
//! among them `tests.csv` and `tally.json`'s summary tables, are committed as they are so
//! that a change shows in `git diff`.
//!
//! To accept a deliberate change, regenerate the expected files and review the diff:
//!
//! ```sh
//! FAIRAUDIT_BLESS=1 cargo test --release --test value_stability
//! git diff tests/expected/
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const REGENERATE: &str = "FAIRAUDIT_BLESS=1 cargo test --release --test value_stability";

fn expected_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/expected").join(name)
}

fn fairaudit(args: &[&str], cwd: &Path) -> Vec<u8> {
    let output =
        Command::new(assert_cmd::cargo::cargo_bin("fairaudit")).args(args).current_dir(cwd).output().unwrap();
    assert!(
        output.status.code().is_some_and(|c| c < 2),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The files a run wrote that are pinned: all but run.json and report.html.
fn pinned_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "run.json" && e.file_name() != "report.html")
        .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// Files larger than this are pinned by digest.
const LARGEST_COMMITTED: usize = 64 << 10;

/// The committed form of a run's files: small files as they are, large ones as
/// `NAME.sha3-256` holding the hex digest.
fn committed_form(files: BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    use sha3::{Digest, Sha3_256};
    files
        .into_iter()
        .map(|(name, bytes)| {
            if bytes.len() <= LARGEST_COMMITTED {
                (name, bytes)
            } else {
                let digest: String = Sha3_256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
                (format!("{name}.sha3-256"), format!("{digest}\n").into_bytes())
            }
        })
        .collect()
}

/// Compares `actual` with the committed files of `name`, or writes them when blessing.
fn check(name: &str, actual: BTreeMap<String, Vec<u8>>) {
    let actual = committed_form(actual);
    let dir = expected_dir(name);
    if std::env::var_os("FAIRAUDIT_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (file, bytes) in &actual {
            std::fs::write(dir.join(file), bytes).unwrap();
        }
        eprintln!("note: wrote {} expected files to {}", actual.len(), dir.display());
        return;
    }
    let expected = pinned_files(&dir);
    assert_eq!(
        actual.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{name}: the set of output files changed; if on purpose, run `{REGENERATE}` and review the diff"
    );
    for (file, bytes) in &actual {
        if bytes != &expected[file] {
            let (new, old) = (String::from_utf8_lossy(bytes), String::from_utf8_lossy(&expected[file]));
            let line = new.lines().zip(old.lines()).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{name}/{file} changed (first difference at line {}):\n  expected: {}\n  actual:   {}\n\
                 If the change is on purpose, run `{REGENERATE}` and review `git diff tests/expected/`.",
                line + 1,
                old.lines().nth(line).unwrap_or("(end of file)"),
                new.lines().nth(line).unwrap_or("(end of file)"),
            );
        }
    }
}

#[test]
fn a_small_sweep_of_every_game_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fairaudit(
        &[
            "sweep",
            "--nonces",
            "0..3000",
            "--seed-pairs",
            "2",
            "--quiet",
            "--threads",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    check("sweep", pinned_files(&out));
}

#[test]
fn an_audit_of_the_american_log_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let log = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/roulette-history.csv");
    let stdout = fairaudit(
        &[
            "audit",
            "--game",
            "roulette-european",
            "--outcomes",
            log.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    let mut files = pinned_files(&out);
    // The terminal's report pinned too, with the temporary folder's name taken out.
    let stdout = String::from_utf8(stdout).unwrap().replace(out.to_str().unwrap(), "OUT");
    files.insert("stdout.txt".into(), stdout.into_bytes());
    check("audit", files);
}

#[test]
fn the_rtp_tables_print_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = BTreeMap::new();
    for game in ["keno", "roulette-european", "roulette-american"] {
        files.insert(format!("rtp-{game}.txt"), fairaudit(&["rtp", "--game", game], dir.path()));
    }
    check("rtp", files);
}
