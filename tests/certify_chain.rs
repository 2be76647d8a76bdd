//! `certify` of a crash chain (`certify --sweep DIR` of a sweep of a crash scheme): the
//! certificate states the chain's link to the operator's published game and its battery;
//! `--check` plays the chain again and walks it to the published game, so a chain
//! numbered wrong stays BROKEN, a verdict or a count rewritten (with the manifest's hashes
//! rewritten to match) is named, a chain no published game anchors is refused, and a
//! certificate of a chain beside a sweep of the default scheme numbers its sections in
//! order.

mod common;

use assert_cmd::Command;
use common::dossier::{edit_manifest, manifest, rehash, verdict};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// Roobet's salt (Bitcoin block 610546) and the hash of its game 1,273,935 (from
/// `data/vectors/crash.csv`, with its source).
const SALT: &str = "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c";
const GAME_1273935: &str = "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4";

/// A sweep of Roobet's games `nonces` below game 1,273,935's hash (numbered by `nonces`).
fn sweep_chain(out: &Path, nonces: &str, salt: &str) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["sweep", "--scheme", "roobet", "--game", "crash", "--quiet", "--nonces", nonces])
        .args(["--server-seed", GAME_1273935, "--client-seed", salt, "--out"])
        .arg(out)
        .assert()
}

fn certify(sweeps: &[&Path], out: &Path) -> assert_cmd::assert::Assert {
    let mut command = fairaudit();
    command.args(["certify", "--no-pdf", "--operator", "Roobet", "--out"]).arg(out);
    for dir in sweeps {
        command.arg("--sweep").arg(dir);
    }
    command.assert()
}

fn check(dir: &Path) -> assert_cmd::assert::Assert {
    fairaudit().args(["certify", "--check"]).arg(dir).assert()
}

fn stdout(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

/// A certified range of Roobet's chain: (tempdir, certificate folder).
fn certified(nonces: &str) -> (tempfile::TempDir, PathBuf, assert_cmd::assert::Assert) {
    let dir = tempfile::tempdir().unwrap();
    let (chain, cert) = (dir.path().join("chain"), dir.path().join("cert"));
    sweep_chain(&chain, nonces, SALT);
    let made = certify(&[&chain], &cert);
    (dir, cert, made)
}

#[test]
fn a_linked_chain_is_certified_and_checks_by_playing_it_again() {
    let (_dir, cert, made) = certified("1200000..1273936");
    let made = made.code(0);
    let text = stdout(&made);
    assert!(text.contains("certificate for Roobet: PASS"), "{text}");
    assert!(text.contains("chain 1 (") && text.contains("LINKED to the published game"), "{text}");
    let m = manifest(&cert);
    assert_eq!(m["chains"][0]["games"], 73_936);
    assert_eq!(m["chains"][0]["dir"], "inputs/chain-1");
    assert_eq!(m["vectors"], serde_json::Value::Null, "a chain alone needs no vectors of the default scheme");
    assert_eq!(verdict(&m, "chain 1 link"), "LINKED");
    assert_eq!(verdict(&m, "chain 1 battery"), "PASS");
    assert_eq!(verdict(&m, "chain 1 crash chain instant_crash_rate"), "PASS");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    // The worked game: HMAC-SHA256(key = game 1,273,935's hash, message = the salt), its
    // remainder mod 25 and crash point, and the next link, as Python's hmac and hashlib
    // compute them (an implementation independent of fairaudit's).
    for figure in [
        "89956e631fc39183a4da1ffb712ab899d2b82325042552606392404cc639ce4f",
        "d mod 25 = 13",
        "2420398321957945",
        "<b>2.15x</b>",
        "fa0bd7818e238aa613426eba7422ca364369c0ec55767c8e023ba6d3ba161aeb",
    ] {
        assert!(html.contains(figure), "{figure}");
    }
    assert!(html.contains("<h3>3.1 Crash games</h3>") && html.contains("<h3>2.1 Crash games"), "sections");
    assert!(!html.contains("Rejection sampling"), "a chain alone shows no part of the default scheme");
    let checked = check(&cert).code(0);
    let text = stdout(&checked);
    assert!(
        text.contains("played 73936 crash games again and walked them to their published games"),
        "{text}"
    );
    assert!(text.contains("every file, hash, figure and verdict"), "{text}");
}

#[test]
fn a_chain_numbered_one_game_off_is_certified_broken_and_a_rewritten_verdict_is_named() {
    let (_dir, cert, made) = certified("1273001..1273937");
    let text = stdout(&made.code(1));
    assert!(text.contains("certificate for Roobet: FINDINGS"), "{text}");
    let m = manifest(&cert);
    assert_eq!(verdict(&m, "chain 1 link"), "BROKEN");
    assert_eq!(verdict(&m, "certificate"), "FINDINGS");
    check(&cert).code(0);
    // A forger rewrites the verdicts to a PASS and the document to match, and rehashes.
    let mut forged = m.clone();
    for v in forged["verdicts"].as_array_mut().unwrap() {
        if v["key"] == "chain 1 link" {
            v["verdict"] = "LINKED".into();
        }
        if v["key"] == "certificate" {
            v["verdict"] = "PASS".into();
        }
    }
    std::fs::write(cert.join("manifest.json"), serde_json::to_vec_pretty(&forged).unwrap()).unwrap();
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    std::fs::write(
        cert.join("certificate.html"),
        html.replace(">BROKEN<", ">LINKED<").replace(">FINDINGS<", ">PASS<"),
    )
    .unwrap();
    rehash(&cert, "certificate.html");
    let text = stdout(&check(&cert).code(1));
    assert!(
        text.contains("MISMATCH manifest.json: verdict 'chain 1 link' reads LINKED, recomputed BROKEN"),
        "{text}"
    );
    assert!(text.contains("MISMATCH certificate.html: differs"), "{text}");
}

#[test]
fn a_rewritten_count_or_range_is_named_by_playing_the_chain_again() {
    let (_dir, cert, made) = certified("1250000..1273936");
    made.code(0);
    // One count of crash_cells.csv changed, the manifest rehashed to match.
    let cells = cert.join("inputs/chain-1/crash_cells.csv");
    let text = std::fs::read_to_string(&cells).unwrap();
    let changed = text.replacen("\"crash_point\",\"instant\",", "\"crash_point\",\"instant\",1", 1);
    assert_ne!(changed, text);
    std::fs::write(&cells, changed).unwrap();
    rehash(&cert, "inputs/chain-1/crash_cells.csv");
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains(
            "MISMATCH inputs/chain-1/crash_cells.csv: differs from what the chain its run.json names gives"
        ),
        "{out}"
    );
    // A file no sweep of a chain writes, added to the folder and listed in the manifest.
    std::fs::write(&cells, &text).unwrap();
    rehash(&cert, "inputs/chain-1/crash_cells.csv");
    let extra = "inputs/chain-1/report.html";
    std::fs::write(cert.join(extra), "<p>every game fair</p>").unwrap();
    let mut m = manifest(&cert);
    m["inputs"].as_array_mut().unwrap().push(serde_json::json!({
        "path": extra,
        "sha256": fairaudit::certify::sha256_hex(b"<p>every game fair</p>"),
        "bytes": 21,
    }));
    std::fs::write(cert.join("manifest.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains("MISMATCH inputs/chain-1/report.html: not a file a sweep of a crash chain writes"),
        "{out}"
    );
    std::fs::remove_file(cert.join(extra)).unwrap();
    m["inputs"].as_array_mut().unwrap().pop();
    std::fs::write(cert.join("manifest.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    check(&cert).code(0);
    // The recorded range moved one game (the run.json's command and plan, and the
    // manifest's copy of the command), everything rehashed: the chain no longer links.
    let run_path = cert.join("inputs/chain-1/run.json");
    let run = std::fs::read_to_string(&run_path).unwrap();
    std::fs::write(&run_path, run.replace("1250000..1273936", "1250001..1273937")).unwrap();
    rehash(&cert, "inputs/chain-1/run.json");
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains("MISMATCH manifest.json: verdict 'chain 1 link' reads LINKED, recomputed BROKEN"),
        "{out}"
    );
    assert!(out.contains("inputs/chain-1/run.json: its plan is not what the chain it names gives"), "{out}");
}

#[test]
fn a_chain_no_published_game_anchors_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let chain = dir.path().join("chain");
    sweep_chain(&chain, "100..1100", "another salt").code(0);
    certify(&[&chain], &dir.path().join("cert"))
        .code(2)
        .stderr(predicate::str::contains("its salt seeds no chain whose published game fairaudit holds"));
    assert!(!dir.path().join("cert").exists(), "a refused certificate writes nothing");
}

#[test]
fn a_chain_beside_a_sweep_of_the_default_scheme_numbers_its_sections_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (chain, roulette, cert) =
        (dir.path().join("chain"), dir.path().join("roulette"), dir.path().join("cert"));
    sweep_chain(&chain, "1260000..1273936", SALT).code(0);
    fairaudit()
        .args(["sweep", "--game", "roulette-european", "--nonces", "0..3000", "--quiet", "--out"])
        .arg(&roulette)
        .assert()
        .code(0);
    certify(&[&chain, &roulette], &cert).code(0);
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    for heading in
        ["<h3>2.1 The chain (SPEC", "<h3>2.4 Crash games", "<h3>3.1 Outcome tests", "<h3>3.7 Crash games"]
    {
        assert!(html.contains(heading), "{heading}");
    }
    let m = manifest(&cert);
    assert_eq!(m["sweeps"][0]["dir"], "inputs/sweep-1");
    assert_eq!(m["chains"][0]["dir"], "inputs/chain-1");
    check(&cert).code(0);
    // A later sweep of the default scheme into the chain's folder replaces all its files.
    fairaudit()
        .args(["sweep", "--game", "roulette-european", "--nonces", "0..100", "--quiet", "--force", "--out"])
        .arg(&chain)
        .assert()
        .code(0);
    assert!(!chain.join("crash_cells.csv").exists(), "an output folder holds the files of one run");
}

/// `audit --scheme roobet` of `tests/data/crash-history.csv` (Roobet's real games
/// 1,273,935 down to 1,273,929 without 1,273,931; one payout shaved) into `out`, run from
/// the repository root as `certify` reads the history from the path it records.
fn audit_history(out: &Path) {
    fairaudit()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "audit",
            "--scheme",
            "roobet",
            "--quiet",
            "--outcomes",
            "tests/data/crash-history.csv",
            "--out",
        ])
        .arg(out)
        .assert()
        .code(1);
}

#[test]
fn a_crash_bet_history_is_certified_beside_its_chain_and_replayed_by_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let (chain, audit, cert) = (dir.path().join("chain"), dir.path().join("audit"), dir.path().join("cert"));
    sweep_chain(&chain, "1250000..1273936", SALT).code(0);
    audit_history(&audit);
    let made = fairaudit()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["certify", "--no-pdf", "--operator", "Roobet", "--sweep"])
        .arg(&chain)
        .arg("--audit")
        .arg(&audit)
        .arg("--out")
        .arg(&cert)
        .assert()
        .code(1);
    let text = stdout(&made);
    assert!(text.contains("certificate for Roobet: FINDINGS"), "{text}");
    assert!(
        text.contains(
            "crash bet history 1 (tests/data/crash-history.csv): 12 bets on 6 games, row checks FINDINGS"
        ),
        "{text}"
    );
    let m = manifest(&cert);
    assert_eq!(m["crash_audits"][0]["dir"], "inputs/crash-audit-1");
    assert_eq!(m["crash_audits"][0]["rows"], 12);
    assert_eq!(verdict(&m, "crash audit 1 rows"), "FINDINGS");
    assert_eq!(verdict(&m, "chain 1 link"), "LINKED");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    // The shaved payout listed on the page, and the history's first game worked through
    // (game 1,273,935, the same digest as Python's hmac gives).
    assert!(html.contains("19.80") && html.contains("payout"), "the finding row");
    assert!(html.contains("Crash bet history 1: game 1,273,935 (the first given with its hash)"));
    assert!(html.contains("89956e631fc39183a4da1ffb712ab899d2b82325042552606392404cc639ce4f"));
    check(&cert).code(0);
    // The history's copy mended (the payout made right) and rehashed: the recomputed rows
    // are CLEAN where the manifest says FINDINGS.
    let copy = "inputs/crash-audit-1/history/crash-history.csv";
    let history = std::fs::read_to_string(cert.join(copy)).unwrap();
    assert!(history.contains(",19.80"), "{history}");
    std::fs::write(cert.join(copy), history.replace(",19.80", ",20")).unwrap();
    rehash(&cert, copy);
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains("MISMATCH manifest.json: verdict 'crash audit 1 rows' reads FINDINGS, recomputed CLEAN"),
        "{out}"
    );
}

#[test]
fn chains_walking_more_than_a_billion_links_in_all_are_refused_before_any_is_walked() {
    let (_dir, cert, made) = certified("1273001..1273936");
    made.code(0);
    // A forger adds six copies of the chain, each recording games 100,000,001..200,000,000
    // (10^8 games, 10^8 links above the published game 1: each passes on its own), every
    // file pinned: 1.2 * 10^9 links to walk.
    let run = std::fs::read_to_string(cert.join("inputs/chain-1/run.json")).unwrap();
    let far = run.replace("1273001..1273936", "100000001..200000001");
    assert_ne!(far, run);
    let command: serde_json::Value =
        serde_json::from_str::<serde_json::Value>(&far).unwrap()["command_line"].clone();
    edit_manifest(&cert, |m| {
        for k in 2..=7 {
            let dir = format!("inputs/chain-{k}");
            std::fs::create_dir_all(cert.join(&dir)).unwrap();
            for name in ["tests.csv", "summary.json", "crash_cells.csv", "run.json"] {
                let bytes = if name == "run.json" {
                    far.clone().into_bytes()
                } else {
                    std::fs::read(cert.join("inputs/chain-1").join(name)).unwrap()
                };
                std::fs::write(cert.join(&dir).join(name), &bytes).unwrap();
                m["inputs"].as_array_mut().unwrap().push(serde_json::json!({
                    "path": format!("{dir}/{name}"),
                    "sha256": fairaudit::certify::sha256_hex(&bytes),
                    "bytes": bytes.len(),
                }));
            }
            m["chains"].as_array_mut().unwrap().push(serde_json::json!({
                "dir": dir, "source": "forged", "command_line": command, "games": 100_000_000u64,
            }));
        }
    });
    // Refused from the recorded commands, before a link is walked.
    let text = stdout(&check(&cert).code(2));
    assert!(
        text.contains("the crash chains would walk 1201273928 links in all, more than the 1000000000"),
        "{text}"
    );
}
