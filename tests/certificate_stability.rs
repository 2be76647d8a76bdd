//! Value stability of certificates: one certificate of each kind, written by `certify
//! --no-pdf` from small fixed inputs, is byte-compared with files committed under
//! `tests/expected/certificate-KIND/`, as `tests/value_stability.rs` does for every other
//! command (same machinery: `tests/common/pins.rs`; same regeneration:
//! `FAIRAUDIT_BLESS=1 cargo test --release --test value_stability --test
//! certificate_stability`, then review `git diff tests/expected/`).
//!
//! | pin (`tests/expected/…`) | the certificate of |
//! |---|---|
//! | `certificate-sweep` | a sha3 sweep (3 games × 2 seed pairs × 3,000 nonces), with the shared vectors' worked rounds |
//! | `certificate-merge` | the merge of that sweep's 3 shards |
//! | `certificate-audit` | an audit of `tests/data/roulette-history.csv` |
//! | `certificate-chain` | a sweep of Roobet's chain linked to its game 1 |
//! | `certificate-crash-audit` | an audit of `tests/data/crash-history.csv` |
//! | `certificate-stake` | a Stake sweep (roulette, 2 seed pairs) and an audit of `tests/data/stake-history.csv` |
//! | `certificate-mixed` | all of these at once, and a merge of adjacent Stake sweeps |
//! | `certificate-unanchored` | a bustabit chain of another salt: refused (the terminal only) |
//!
//! Each pin holds `manifest.json`, `certificate.html` (by digest when over 64 KiB), the
//! terminal of `certify` (`terminal.txt`) and of `certify --check` on the certificate
//! (`check.txt`). Every command runs at `SOURCE_DATE_EPOCH` (so `created_at`, the
//! "Written" line and the inputs' `started_at`/`finished_at` are fixed) in a scratch
//! folder, given relative paths (so the command lines and `source` paths recorded are the
//! same everywhere) and `--threads 2`.
//!
//! What is normalised, beyond what `pins.rs` replaces everywhere (paths, the revision,
//! seconds and rates, the binary's path, SHA-256 and size):
//!
//! - the SHA-256 and byte count of each dossier file that holds such a value: every
//!   `run.json` (revision, working folder, elapsed seconds, rates, Keccak path),
//!   `report.html` (revision, seconds, rates) and `certificate.html` itself (revision,
//!   binary). They become `<sha256 of PATH>` and `<bytes of PATH>` in `manifest.json`,
//!   `certificate.html` and the terminals. Those files' contents are pinned, normalised,
//!   by `tests/value_stability.rs` (the same sweeps and audits), and `certify --check`
//!   here recomputes every hash;
//! - the SHA-256 of `manifest.json` that `certify` and `--check` print, since the
//!   manifest records the binary (`<sha256 of manifest.json>`).
//!
//! Every other digest (the results, the histories, the vectors) stays literal, so it is
//! pinned.

#[path = "common/pins.rs"]
mod pins;

use pins::{check, repo, Ran, Scratch, EPOCH};
use std::collections::BTreeMap;

const ROOBET_SALT: &str = "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c";
const ROOBET_GAME_1273935: &str = "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4";
const BUSTABIT_ORACLE: &str = "45c7aac99b649ed50b255430e66e63e0c581e199702d3cd25f94284be3a10b29";

/// The dossier files whose contents hold values no test can fix.
const VOLATILE: [&str; 3] = ["run.json", "report.html", "certificate.html"];

/// The inputs a certificate is made of, each written into the scratch folder under its
/// name by [`make`].
#[derive(Clone, Copy, PartialEq)]
enum Input {
    Sweep,
    Merge,
    Audit,
    Chain,
    CrashAudit,
    StakeSweep,
    StakeMerge,
    StakeAudit,
    Unanchored,
}

const SHA3_SWEEP: [&str; 8] =
    ["sweep", "--nonces", "0..3000", "--seed-pairs", "2", "--quiet", "--threads", "2"];

fn make(scratch: &Scratch, input: Input) -> Vec<&'static str> {
    let run = |command: &[&str], code| {
        scratch.run(command, code);
    };
    let with = |fixed: &[&'static str], more: &[&'static str]| -> Vec<&'static str> {
        fixed.iter().chain(more).copied().collect()
    };
    let stake = [
        "sweep",
        "--scheme",
        "stake",
        "--game",
        "roulette",
        "--seed-pairs",
        "2",
        "--quiet",
        "--threads",
        "2",
    ];
    match input {
        Input::Sweep => {
            run(&with(&SHA3_SWEEP, &["--out", "sweep"]), 0);
            vec!["--sweep", "sweep"]
        }
        Input::Merge => {
            for index in ["0", "1", "2"] {
                run(&with(&SHA3_SWEEP, &["--shards", "3", "--shard-index", index, "--out", "shards"]), 0);
            }
            run(&["merge", "shards", "--quiet", "--out", "merge"], 0);
            vec!["--sweep", "merge"]
        }
        Input::Audit => {
            scratch.copy_in(&repo().join("tests/data/roulette-history.csv"), "roulette-history.csv");
            let audit = ["audit", "--game", "roulette-european", "--outcomes", "roulette-history.csv"];
            run(&with(&audit, &["--quiet", "--out", "audit"]), 1);
            vec!["--audit", "audit"]
        }
        Input::Chain => {
            let chain = ["sweep", "--scheme", "roobet", "--game", "crash", "--nonces", "1273000..1273936"];
            let seeds = ["--server-seed", ROOBET_GAME_1273935, "--client-seed", ROOBET_SALT];
            run(&with(&with(&chain, &seeds), &["--quiet", "--threads", "2", "--out", "chain"]), 0);
            vec!["--sweep", "chain"]
        }
        Input::CrashAudit => {
            scratch.copy_in(&repo().join("tests/data/crash-history.csv"), "crash-history.csv");
            run(
                &[
                    "audit",
                    "--scheme",
                    "roobet",
                    "--outcomes",
                    "crash-history.csv",
                    "--quiet",
                    "--out",
                    "crash-audit",
                ],
                1,
            );
            vec!["--audit", "crash-audit"]
        }
        Input::StakeSweep => {
            run(&with(&stake, &["--nonces", "0..3000", "--out", "stake-sweep"]), 0);
            vec!["--sweep", "stake-sweep"]
        }
        Input::StakeMerge => {
            run(&with(&stake, &["--nonces", "0..1501", "--out", "stake-low"]), 0);
            run(&with(&stake, &["--nonces", "1501..3000", "--out", "stake-high"]), 0);
            run(&["merge", "stake-low", "stake-high", "--quiet", "--out", "stake-merge"], 0);
            vec!["--sweep", "stake-merge"]
        }
        Input::StakeAudit => {
            scratch.copy_in(&repo().join("tests/data/stake-history.csv"), "stake-history.csv");
            run(
                &[
                    "audit",
                    "--scheme",
                    "stake",
                    "--outcomes",
                    "stake-history.csv",
                    "--quiet",
                    "--out",
                    "stake-audit",
                ],
                1,
            );
            vec!["--audit", "stake-audit"]
        }
        Input::Unanchored => {
            let chain = ["sweep", "--scheme", "bustabit-v1", "--game", "crash", "--nonces", "0..5000"];
            let seeds = ["--server-seed", BUSTABIT_ORACLE, "--client-seed", "fairaudit pins"];
            run(&with(&with(&chain, &seeds), &["--quiet", "--threads", "2", "--out", "unanchored"]), 0);
            vec!["--sweep", "unanchored"]
        }
    }
}

/// Makes `inputs`, certifies them into `cert` (exit `code`), checks the certificate, and
/// pins it as `name`.
fn certify_and_check(name: &str, inputs: &[Input], code: i32) {
    let scratch = Scratch::default();
    let mut command = vec!["certify", "--no-pdf", "--operator", "Pinned Operator"];
    if inputs.iter().any(|i| matches!(i, Input::Sweep | Input::Merge | Input::Audit)) {
        scratch.copy_in(&repo().join("../shared/vectors"), "vectors");
        command.extend(["--vectors", "vectors"]);
    }
    for &input in inputs {
        command.extend(make(&scratch, input));
    }
    command.extend(["--out", "cert"]);
    let certified = scratch.run(&command, code);
    let checked = scratch.run(&["certify", "--check", "cert"], 0);
    check(name, certificate_pin(&scratch, &certified, &checked));
}

/// The pinned form of the certificate in `cert` (module docs).
fn certificate_pin(scratch: &Scratch, certified: &Ran, checked: &Ran) -> BTreeMap<String, Vec<u8>> {
    let read = |file: &str| std::fs::read_to_string(scratch.join("cert").join(file)).unwrap();
    let (mut manifest, mut html) = (read("manifest.json"), read("certificate.html"));
    let parsed: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let manifest_sha = fairaudit::certify::sha256_hex(manifest.as_bytes());
    for file in ["inputs", "outputs"].iter().flat_map(|list| parsed[list].as_array().unwrap()) {
        let path = file["path"].as_str().unwrap();
        if !VOLATILE.iter().any(|v| path.rsplit('/').next() == Some(v)) {
            continue;
        }
        let (sha, bytes) = (file["sha256"].as_str().unwrap(), file["bytes"].as_u64().unwrap());
        let (sha_placeholder, bytes_placeholder) =
            (format!("<sha256 of {path}>"), format!("<bytes of {path}>"));
        manifest = manifest.replace(sha, &sha_placeholder);
        html = html.replace(sha, &sha_placeholder);
        let row = |size: &str| format!("<code>{path}</code></td><td class=\"num\">{size}</td>");
        html = html.replace(&row(&bytes.to_string()), &row(&bytes_placeholder));
        manifest = hide_number_after(&manifest, &format!("\"path\": \"{path}\""), &bytes_placeholder);
    }
    manifest = hide_number_after(&scratch.normalise(&manifest), "\"binary\": {", "<binary bytes>");
    let terminal = |ran: &Ran| {
        let text = String::from_utf8(scratch.terminal(ran)).unwrap();
        text.replace(&manifest_sha, "<sha256 of manifest.json>").into_bytes()
    };
    BTreeMap::from([
        ("manifest.json".to_owned(), manifest.into_bytes()),
        ("certificate.html".to_owned(), scratch.normalise(&html).into_bytes()),
        ("terminal.txt".to_owned(), terminal(certified)),
        ("check.txt".to_owned(), terminal(checked)),
    ])
}

/// `text` with the number of the first `"bytes": N` after `anchor` replaced.
fn hide_number_after(text: &str, anchor: &str, placeholder: &str) -> String {
    const KEY: &str = "\"bytes\": ";
    let at = text.find(anchor).unwrap_or_else(|| panic!("no {anchor} in the manifest"));
    let start = at + text[at..].find(KEY).expect("a byte count after it") + KEY.len();
    let len = text[start..].find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len() - start);
    assert!(len > 0, "no byte count after {anchor}");
    format!("{}{placeholder}{}", &text[..start], &text[start + len..])
}

#[test]
fn a_certificate_of_a_sweep_writes_the_same_bytes() {
    certify_and_check("certificate-sweep", &[Input::Sweep], 1);
}

#[test]
fn a_certificate_of_a_merge_writes_the_same_bytes() {
    certify_and_check("certificate-merge", &[Input::Merge], 1);
}

#[test]
fn a_certificate_of_an_audit_writes_the_same_bytes() {
    certify_and_check("certificate-audit", &[Input::Audit], 1);
}

#[test]
fn a_certificate_of_a_crash_chain_writes_the_same_bytes() {
    certify_and_check("certificate-chain", &[Input::Chain], 0);
}

#[test]
fn a_certificate_of_a_crash_audit_writes_the_same_bytes() {
    certify_and_check("certificate-crash-audit", &[Input::CrashAudit], 1);
}

#[test]
fn a_certificate_of_stake_runs_writes_the_same_bytes() {
    certify_and_check("certificate-stake", &[Input::StakeSweep, Input::StakeAudit], 1);
}

#[test]
fn a_certificate_of_every_kind_at_once_writes_the_same_bytes() {
    use Input::*;
    certify_and_check(
        "certificate-mixed",
        &[Sweep, Merge, Audit, Chain, CrashAudit, StakeSweep, StakeMerge, StakeAudit],
        1,
    );
}

#[test]
fn a_certificate_of_an_unanchored_chain_is_refused_in_the_same_words() {
    let scratch = Scratch::default();
    let mut command = vec!["certify", "--no-pdf", "--operator", "Pinned Operator"];
    command.extend(make(&scratch, Input::Unanchored));
    let ran = scratch.run(&[command, vec!["--out", "cert"]].concat(), 2);
    assert!(!scratch.join("cert").exists());
    check("certificate-unanchored", BTreeMap::from([("terminal.txt".to_owned(), scratch.terminal(&ran))]));
}

#[test]
fn the_placeholder_of_a_byte_count_replaces_only_the_first_after_its_anchor() {
    let text = "{\n \"path\": \"a\",\n \"bytes\": 12\n}, {\n \"path\": \"b\",\n \"bytes\": 12\n}, {\n \"bytes\": 12\n}";
    assert_eq!(
        hide_number_after(text, "\"path\": \"a\"", "<a>"),
        "{\n \"path\": \"a\",\n \"bytes\": <a>\n}, {\n \"path\": \"b\",\n \"bytes\": 12\n}, {\n \"bytes\": 12\n}"
    );
}

// ---- SOURCE_DATE_EPOCH ----

fn json(path: std::path::PathBuf) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `fairaudit ARGS` in `dir` with `SOURCE_DATE_EPOCH` set to `epoch`, or unset.
fn at_epoch(dir: &std::path::Path, epoch: Option<&str>, args: &[&str]) -> std::process::Output {
    let mut command = std::process::Command::new(pins::binary());
    command.args(args).current_dir(dir).env_remove("SOURCE_DATE_EPOCH");
    if let Some(epoch) = epoch {
        command.env("SOURCE_DATE_EPOCH", epoch);
    }
    command.output().unwrap()
}

/// With `SOURCE_DATE_EPOCH` set, every timestamp fairaudit writes is that time: the
/// `run.json` of a sweep, a merge and an audit of each scheme, the reports, and a
/// certificate's `created_at` and first page.
#[test]
fn source_date_epoch_fixes_every_timestamp_written() {
    const WHEN: &str = "2026-01-01T00:00:00Z";
    assert_eq!(EPOCH, "1767225600", "{WHEN} is the time of EPOCH");
    let scratch = Scratch::default();
    scratch.copy_in(&repo().join("../shared/vectors"), "vectors");
    let mut certify = vec!["certify", "--no-pdf", "--operator", "Clock", "--vectors", "vectors"];
    for input in [Input::Merge, Input::Audit, Input::StakeAudit, Input::CrashAudit] {
        certify.extend(make(&scratch, input));
    }
    certify.extend(["--out", "cert"]);
    scratch.run(&certify, 1);
    for run in ["shards/shard-0000-of-0003", "merge", "audit", "stake-audit", "crash-audit"] {
        let recorded = json(scratch.join(run).join("run.json"));
        assert_eq!(
            (&recorded["started_at"], &recorded["finished_at"]),
            (&WHEN.into(), &WHEN.into()),
            "{run}"
        );
    }
    for report in ["shards/shard-0000-of-0003", "merge", "audit", "stake-audit"] {
        let html = std::fs::read_to_string(scratch.join(report).join("report.html")).unwrap();
        assert!(html.contains(WHEN), "{report}/report.html does not say {WHEN}");
    }
    assert_eq!(json(scratch.join("cert/manifest.json"))["created_at"], WHEN);
    let html = std::fs::read_to_string(scratch.join("cert/certificate.html")).unwrap();
    assert!(html.contains(&format!("Written {WHEN} by fairaudit")));

    // Another value, another time: the variable sets it, not a coincidence.
    let output =
        at_epoch(scratch.path(), Some("0"), &["sweep", "--nonces", "0..10", "--quiet", "--out", "epoch-0"]);
    // Ten rounds judge nothing: exit 3.
    assert_eq!(output.status.code(), Some(3), "{}", String::from_utf8_lossy(&output.stderr));
    let recorded = json(scratch.join("epoch-0/run.json"));
    assert_eq!(recorded["started_at"], "1970-01-01T00:00:00Z");
}

/// A value that is not decimal seconds is refused before anything is written (exit 2,
/// one line naming it), as the convention asks; unset, the timestamps are the clock's.
#[test]
fn a_malformed_source_date_epoch_is_refused_and_an_unset_one_leaves_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["yesterday", "", "-1", "1.5", "253402300800"] {
        let output =
            at_epoch(dir.path(), Some(bad), &["sweep", "--nonces", "0..10", "--quiet", "--out", "bad"]);
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with(&format!("error: SOURCE_DATE_EPOCH={bad:?} is not a time")), "{stderr}");
        assert!(!dir.path().join("bad").exists(), "{bad:?}: a folder was written");
    }
    let before = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    let output = at_epoch(dir.path(), None, &["sweep", "--nonces", "0..10", "--quiet", "--out", "now"]);
    assert_eq!(output.status.code(), Some(3), "{}", String::from_utf8_lossy(&output.stderr));
    let after = std::time::SystemTime::now() + std::time::Duration::from_secs(1);
    let started = json(dir.path().join("now/run.json"))["started_at"].as_str().unwrap().to_owned();
    let started = humantime::parse_rfc3339(&started).unwrap();
    assert!(before <= started && started <= after, "{started:?} is not now");
}
