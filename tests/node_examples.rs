//! The conformance kit against a real client: the Node sampler in `examples/node/` and
//! its deliberately broken variants, through `fairaudit conformance`, the adapter, and
//! `fairaudit verify --rounds` / `fairaudit audit --outcomes -`.
//!
//! - the correct sampler passes the challenge and the statistical gate;
//! - `word % P` without rejection fails exactly the rejection cases, all of them;
//! - swap removal fails every Keno case and no roulette case;
//! - Keno number 17 favoured by 3% fails the gate at 500,000 rounds, the size the
//!   README's mutant table gives for that bias.
//!
//! Needs Node with SHA3 in its crypto (Node ≥ 12.8 on OpenSSL ≥ 1.1.1). Without it the
//! tests skip with a note, except when `FAIRAUDIT_REQUIRE_NODE` is set, as `.ci/run`
//! does, so that CI always runs them.

mod common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fairaudit_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fairaudit")
}

/// Fills `challenge` with the sampler at `sampler` (relative to examples/node).
fn fill(challenge: &Path, sampler: &str, filled: &Path) {
    let output = std::process::Command::new("node")
        .current_dir(root().join("examples/node"))
        .arg("fill-challenge.js")
        .args(["--sampler", sampler])
        .arg(challenge)
        .output()
        .unwrap();
    assert!(output.status.success(), "{sampler}: {}", String::from_utf8_lossy(&output.stderr));
    std::fs::write(filled, output.stdout).unwrap();
}

/// The verdict on one sampler: exit status, and the cases listed as failing.
fn judge(dir: &Path, sampler: &str) -> (i32, Vec<String>) {
    let filled = dir.join(format!("{}.csv", sampler.replace(['/', '.'], "-")));
    fill(&dir.join("challenge.csv"), sampler, &filled);
    let output =
        Command::cargo_bin("fairaudit").unwrap().arg("verify").arg("--rounds").arg(&filled).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let failing = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("  FAIL "))
        .map(|line| line.rsplit_once(": ").map_or(line, |(case, _)| case).to_owned())
        .collect();
    (output.status.code().unwrap(), failing)
}

fn challenge(dir: &Path) -> Vec<(String, String)> {
    Command::cargo_bin("fairaudit").unwrap().arg("conformance").arg("--out").arg(dir).assert().code(0);
    let mut reader = csv::Reader::from_path(dir.join("challenge.csv")).unwrap();
    reader.records().map(|r| r.unwrap()).map(|r| (r[9].to_owned(), r[0].to_owned())).collect()
}

#[test]
fn the_kit_passes_the_correct_sampler_and_names_what_each_broken_one_gets_wrong() {
    if !common::node_available("the Node examples") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases = challenge(dir.path());

    assert_eq!(judge(dir.path(), "sampler.js"), (0, vec![]));

    let rejection_cases: Vec<String> = cases
        .iter()
        .filter(|(label, _)| {
            label.contains(" rejection at P = ") || label.contains(" rejection of the limit word")
        })
        .map(|(l, _)| l.clone())
        .collect();
    // 11 rounds rejecting at every P, and one limit word per wheel.
    assert_eq!(rejection_cases.len(), 13);
    assert_eq!(judge(dir.path(), "broken/no-rejection.js"), (1, rejection_cases));

    let keno: Vec<String> =
        cases.iter().filter(|(_, game)| game == "keno").map(|(label, _)| label.clone()).collect();
    assert_eq!(judge(dir.path(), "broken/swap-removal.js"), (1, keno), "every Keno case, no roulette case");

    // A swap of two pockets: invisible to statistics, caught because every pocket of the
    // wheel has a case (before the pocket cases, the challenge had no European 17 or 31).
    let swapped = vec!["European pocket 17".to_owned(), "European pocket 31".to_owned()];
    assert_eq!(judge(dir.path(), "broken/swap-pockets.js"), (1, swapped));
}

/// `node play.js … | fairaudit audit --game keno --outcomes -`: exit status and stdout.
fn gate(sampler: &str, rounds: u64) -> (i32, String) {
    let mut play = std::process::Command::new("node")
        .current_dir(root().join("examples/node"))
        .args(["play.js", "--sampler", sampler, "--game", "keno", "--server-seed", "fairaudit-gate"])
        .args(["--client-seed", "ci", "--rounds", &rounds.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let audit = std::process::Command::new(fairaudit_bin())
        .args(["audit", "--game", "keno", "--outcomes", "-"])
        .stdin(play.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(play.wait().unwrap().success(), "{sampler}: play.js failed");
    (audit.status.code().unwrap(), String::from_utf8(audit.stdout).unwrap())
}

const GATE_ROUNDS: u64 = 500_000;

#[test]
fn the_statistical_gate_passes_the_correct_sampler() {
    if !common::node_available("the Node examples") {
        return;
    }
    let (status, stdout) = gate("sampler.js", GATE_ROUNDS);
    assert_eq!(status, 0, "{stdout}");
    assert!(stdout.contains(": PASS\n"), "{stdout}");
}

#[test]
fn the_statistical_gate_fails_keno_17_favoured_by_3_percent_at_500_000_rounds() {
    if !common::node_available("the Node examples") {
        return;
    }
    let (status, stdout) = gate("broken/favour-17.js", GATE_ROUNDS);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("FAIL         keno log number_frequency"), "{stdout}");
}
