//! `certify` of the HMAC-SHA256 family: sweeps (`certify --sweep DIR` of a
//! `sweep --scheme stake`) and bet histories (`certify --audit DIR` of an
//! `audit --scheme stake`). The certificate states each sweep's battery against its game's
//! exact law and the exact RTP beside the advertised one, and works the sweep's first
//! round through, which for a sweep starting at a published round is that round's
//! published result; `--check` sweeps it again, so a count, a verdict or a command
//! rewritten (with the manifest's hashes rewritten to match) is named; a sweep beyond
//! `--resweep-limit` or whose files are not its sweep's is refused; a history's finding
//! makes the certificate FINDINGS and a history rewritten to hide it is named; and beside
//! the default scheme and a crash chain its sections are numbered in order.

mod common;

use assert_cmd::Command;
use common::dossier::{assert_forgery_named, edit_manifest, manifest, rehash, verdict};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// The seed pair of the public verifier's test cases (data/vectors/stake.csv): at nonce
/// 20 its dice roll is 93.08 and its roulette pocket 34
/// (Kyran121/provably-fair-verifierform-stake, tests/lib/games, @9e0e62a).
const SERVER: &str = "735249f062ac025044a8523aa92e034803f02d6b75129abc97e8b1be19aab9b4";
const CLIENT: &str = "ec75fca98de6f2d9";

/// A sweep of `game` of the family over `nonces` of the verifier's seed pair.
fn sweep_stake(out: &Path, game: &str, nonces: &str) {
    sweep_stake_exits(out, game, nonces, 0);
}

/// [`sweep_stake`], exiting with `code` (3 for a sweep too short for any test).
fn sweep_stake_exits(out: &Path, game: &str, nonces: &str, code: i32) {
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", game, "--quiet", "--nonces", nonces])
        .args(["--server-seed", SERVER, "--client-seed", CLIENT, "--out"])
        .arg(out)
        .assert()
        .code(code);
}

fn certify(sweeps: &[&Path], out: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    let mut command = fairaudit();
    command.args(["certify", "--no-pdf", "--operator", "Stake"]).args(extra).arg("--out").arg(out);
    for dir in sweeps {
        command.arg("--sweep").arg(dir);
    }
    command.assert()
}

/// `certify` of one Stake audit folder, into `out`.
fn certify_audit(audit: &Path, out: &Path) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["certify", "--no-pdf", "--operator", "Stake", "--audit"])
        .arg(audit)
        .arg("--out")
        .arg(out)
        .assert()
}

fn check(dir: &Path) -> assert_cmd::assert::Assert {
    fairaudit().args(["certify", "--check"]).arg(dir).assert()
}

/// What a check says of a file of a sweep's copy that sweeping it again does not give.
const SWEEP_DIFFERS: &str = "differs from what the sweep its run.json names gives";

fn stdout(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

/// A certificate of a dice sweep and a roulette sweep from the published round at nonce
/// 20 on: (tempdir, certificate folder, what certify printed).
fn certified() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let (dice, roulette, cert) =
        (dir.path().join("dice"), dir.path().join("roulette"), dir.path().join("cert"));
    sweep_stake(&dice, "dice", "20..40020");
    sweep_stake(&roulette, "roulette", "20..40020");
    let text = stdout(&certify(&[&dice, &roulette], &cert, &[]).code(0));
    (dir, cert, text)
}

/// A sweep too short for any test judges nothing: its battery, and a certificate holding
/// it with no finding, say INSUFFICIENT rather than PASS and exit 3 (nothing found, nothing
/// judged), and the certificate checks (exit 0: its check judges the dossier, not the
/// games). Beside a sweep long enough, the certificate is still INSUFFICIENT: it does not
/// pass what it could not judge.
#[test]
fn a_sweep_too_short_for_any_test_certifies_insufficient_not_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (short, long) = (dir.path().join("short"), dir.path().join("long"));
    sweep_stake_exits(&short, "dice", "20..21", 3);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(short.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["verdict"], "INSUFFICIENT");
    let cert = dir.path().join("cert");
    let text = stdout(&certify(&[&short], &cert, &[]).code(3));
    assert!(text.contains("certificate for Stake: INSUFFICIENT"), "{text}");
    assert!(text.contains("3 INSUFFICIENT: INSUFFICIENT"), "{text}");
    let page = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(page.contains("INSUFFICIENT means: nothing above fails"), "the cover says what it means");
    assert!(
        page.contains("(no test is valid at this size, so the battery judges nothing)"),
        "the sweep's battery says why"
    );
    assert_eq!(verdict(&manifest(&cert), "stake sweep 1 battery"), "INSUFFICIENT");
    check(&cert).code(0);

    sweep_stake(&long, "dice", "20..40020");
    let both = dir.path().join("both");
    let text = stdout(&certify(&[&long, &short], &both, &[]).code(3));
    assert!(text.contains("certificate for Stake: INSUFFICIENT"), "{text}");
    let page = std::fs::read_to_string(both.join("certificate.html")).unwrap();
    assert!(!page.contains(">PASS</span></div>"), "the cover's verdict is not PASS");

    // An audit is judged by its rows: three clean rows, too few for any test, PASS (exit
    // 0) with the battery's INSUFFICIENT beside it, and certify PASS saying so.
    let history = dir.path().join("three-rows.csv");
    let rows = std::fs::read_to_string("tests/data/stake-history.csv").unwrap();
    std::fs::write(&history, rows.lines().take(4).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let audit = dir.path().join("audit");
    fairaudit()
        .args(["audit", "--scheme", "stake", "--quiet", "--outcomes"])
        .arg(&history)
        .arg("--out")
        .arg(&audit)
        .assert()
        .code(0);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(audit.join("summary.json")).unwrap()).unwrap();
    assert_eq!((&summary["verdict"], &summary["battery_verdict"]), (&"PASS".into(), &"INSUFFICIENT".into()));
    let page = std::fs::read_to_string(audit.join("report.html")).unwrap();
    assert!(page.contains("class=\"verdict PASS\""), "the audit's page reads PASS");
    let audited = dir.path().join("audited");
    let text = stdout(&certify(&[&long], &audited, &["--audit", audit.to_str().unwrap()]).code(0));
    assert!(text.contains("certificate for Stake: PASS"), "{text}");
    let page = std::fs::read_to_string(audited.join("certificate.html")).unwrap();
    assert!(page.contains("judged by its rows alone"), "the cover says how the history was judged");
    check(&audited).code(0);
}

#[test]
fn a_stake_sweep_is_certified_works_its_published_first_round_and_checks_by_sweeping_again() {
    let (_dir, cert, text) = certified();
    assert!(text.contains("certificate for Stake: PASS"), "{text}");
    assert!(text.contains("stake sweep 1 (") && text.contains("dice, 40000 rounds"), "{text}");
    let m = manifest(&cert);
    assert_eq!(m["stake_sweeps"][0]["rounds"], 40_000);
    assert_eq!(m["stake_sweeps"][1]["dir"], "inputs/stake-sweep-2");
    assert_eq!(m["vectors"], serde_json::Value::Null, "no vectors of the default scheme are needed");
    assert_eq!(verdict(&m, "stake sweep 1 battery"), "PASS");
    assert_eq!(verdict(&m, "stake sweep 2 roulette 0 outcome_frequency"), "PASS");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    // The worked rounds are the published results of nonce 20, computed the verifier's way.
    for figure in [
        "at nonce 20 of seed pair 0",
        "<b>93.08</b>",
        "<b>34</b>",
        &format!("{CLIENT}:20:0"),
        // Roulette's exact RTP beside the advertised 36/37; dice's has no published rule.
        "<td>straight 0</td>",
        "the exact RTP of dice needs its payout rule",
        "<h3>2.1 The HMAC-SHA256 family",
        "<h3>2.2 Statistical tests</h3>",
        "<h3>3.1 Sweeps of the HMAC-SHA256 family</h3>",
    ] {
        assert!(html.contains(figure), "{figure}");
    }
    assert!(
        !html.contains("Rejection sampling"),
        "sweeps of the family alone show no part of the default scheme"
    );
    let checked = stdout(&check(&cert).code(0));
    assert!(checked.contains("re-swept 80000 rounds"), "{checked}");
    assert!(checked.contains("every file, hash, figure and verdict"), "{checked}");
}

#[test]
fn a_rewritten_count_verdict_or_command_is_named_by_sweeping_again() {
    let (_dir, cert, _) = certified();
    // One count of outcome_counts.csv changed, the manifest rehashed to match.
    let count_added = |counts: &str| {
        let mut lines: Vec<String> = counts.lines().map(str::to_owned).collect();
        let mut cells: Vec<String> = lines[1].split(',').map(str::to_owned).collect();
        cells[3] = (cells[3].parse::<u64>().unwrap() + 1).to_string();
        lines[1] = cells.join(",");
        lines.join("\n") + "\n"
    };
    assert_forgery_named(&cert, "inputs/stake-sweep-1/outcome_counts.csv", count_added, SWEEP_DIFFERS);
    check(&cert).code(0);
    // The tallies a continued sweep or a merge would read, rewritten: the check sweeps
    // again rather than trusting them.
    assert_forgery_named(
        &cert,
        "inputs/stake-sweep-1/stake_tally.json",
        |tallies| tallies.replacen("\"rounds\": 40000", "\"rounds\": 40001", 1),
        SWEEP_DIFFERS,
    );
    // Its rtp.csv with one realised figure nudged (sweep 1 is dice: sweep 2, roulette,
    // has rows), and its report page stating another verdict.
    assert_forgery_named(
        &cert,
        "inputs/stake-sweep-2/rtp.csv",
        |rtp| rtp.replacen(",40000,", ",40001,", 1),
        SWEEP_DIFFERS,
    );
    // run.json made to say the sweep is a shard (the page would then say it speaks for a
    // slice only), rehashed.
    let shard = "\"complete\": true,\n  \"shard\": {\"index\": 0, \"count\": 2, \"nonces\": {\"start\": 20, \"end\": 80020}},";
    assert_forgery_named(
        &cert,
        "inputs/stake-sweep-1/run.json",
        |run| run.replacen("\"complete\": true,", shard, 1),
        "its kind, complete, shard or partial is not",
    );
    // Or to be a partial merge, naming a shard its cut does not have.
    let partial = "\"complete\": true,\n  \"partial\": {\"count\": 4, \"nonces\": {\"start\": 20, \"end\": 80020}, \"missing\": [9]},";
    assert_forgery_named(
        &cert,
        "inputs/stake-sweep-1/run.json",
        |run| run.replacen("\"complete\": true,", partial, 1),
        "its kind, complete, shard or partial is not",
    );
    assert_forgery_named(
        &cert,
        "inputs/stake-sweep-1/report.html",
        |page| page.replace("PASS", "FAIL"),
        SWEEP_DIFFERS,
    );
    // A verdict rewritten in the manifest.
    edit_manifest(&cert, |m| {
        for v in m["verdicts"].as_array_mut().unwrap() {
            if v["key"] == "stake sweep 2 battery" {
                v["verdict"] = "FAIL".into();
            }
        }
    });
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains("MISMATCH manifest.json: verdict 'stake sweep 2 battery' reads FAIL, recomputed PASS"),
        "{out}"
    );
    edit_manifest(&cert, |m| {
        for v in m["verdicts"].as_array_mut().unwrap() {
            if v["key"] == "stake sweep 2 battery" {
                v["verdict"] = "PASS".into();
            }
        }
    });
    // The recorded command moved to other nonces (in run.json and in the manifest's copy):
    // the sweep it names is not the one whose files are pinned.
    let run_rel = "inputs/stake-sweep-1/run.json";
    let run = std::fs::read_to_string(cert.join(run_rel)).unwrap();
    std::fs::write(cert.join(run_rel), run.replace("\"20..40020\"", "\"21..40021\"")).unwrap();
    rehash(&cert, run_rel);
    edit_manifest(&cert, |m| {
        let command = m["stake_sweeps"][0]["command_line"].as_array_mut().unwrap();
        for arg in command.iter_mut() {
            if arg == "20..40020" {
                *arg = "21..40021".into();
            }
        }
    });
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains(&format!("MISMATCH {run_rel}: its plan is not what the sweep it names gives")),
        "{out}"
    );
    assert!(
        out.contains("inputs/stake-sweep-1/tests.csv: differs")
            || out.contains("outcome_counts.csv: differs"),
        "{out}"
    );
}

#[test]
fn a_complete_merge_of_shards_is_certified_as_its_whole_sweep_and_a_forged_plan_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (shards, merged, cert) =
        (dir.path().join("shards"), dir.path().join("merged"), dir.path().join("cert"));
    for index in ["2", "0", "1"] {
        fairaudit()
            .args(["sweep", "--scheme", "stake", "--game", "dice", "--quiet", "--nonces", "20..30021"])
            .args(["--server-seed", SERVER, "--client-seed", CLIENT, "--shards", "3", "--shard-index", index])
            .arg("--out")
            .arg(&shards)
            .assert()
            .code(0);
    }
    let merge =
        || fairaudit().arg("merge").arg(&shards).args(["--alpha", "0.001", "--out"]).arg(&merged).assert();
    merge().code(0);
    let text = stdout(&certify(&[&merged], &cert, &[]).code(0));
    assert!(text.contains("certificate for Stake: PASS"), "{text}");
    let m = manifest(&cert);
    assert_eq!(m["stake_sweeps"][0]["rounds"], 30_001);
    assert_eq!(m["stake_sweeps"][0]["command_line"][0], "merge", "the command shown is the merge's");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(html.contains("at nonce 20 of seed pair 0") && html.contains("<b>93.08</b>"));
    let checked = stdout(&check(&cert).code(0));
    assert!(checked.contains("re-swept 30001 rounds"), "{checked}");
    // The merge's --alpha sets the level of its own files: a summary at another level is
    // named.
    let summary = "inputs/stake-sweep-1/summary.json";
    assert!(std::fs::read_to_string(cert.join(summary)).unwrap().contains("\"alpha\": 0.001,"));
    assert_forgery_named(
        &cert,
        summary,
        |t| t.replace("\"alpha\": 0.001,", "\"alpha\": 0.01,"),
        SWEEP_DIFFERS,
    );
    // The plan a merge is swept again from is its run.json's: a commitment rewritten there
    // is named (it is computed again from the server seed)...
    let run_rel = "inputs/stake-sweep-1/run.json";
    assert_forgery_named(
        &cert,
        run_rel,
        |run| {
            let mut value: serde_json::Value = serde_json::from_str(run).unwrap();
            value["plan"]["seed_pairs"][0][2] = "00".repeat(32).into();
            String::from_utf8(serde_json::to_vec_pretty(&value).unwrap()).unwrap() + "\n"
        },
        "its plan is not what the sweep it names gives",
    );
    // ... and another seed pair's plan sweeps another sweep, whose tallies are not pinned.
    let run = std::fs::read_to_string(cert.join(run_rel)).unwrap();
    std::fs::write(cert.join(run_rel), run.replace(CLIENT, "another client seed")).unwrap();
    rehash(&cert, run_rel);
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains(&format!("MISMATCH inputs/stake-sweep-1/stake_tally.json: {SWEEP_DIFFERS}")),
        "{out}"
    );
    std::fs::write(cert.join(run_rel), run).unwrap();
    rehash(&cert, run_rel);
    check(&cert).code(0);
    // A merge whose run.json says it is partial, or a shard, is refused by name.
    let run = std::fs::read_to_string(merged.join("run.json")).unwrap();
    let partial = "\"complete\": false,\n  \"partial\": {\"count\": 3, \"nonces\": {\"start\": 20, \"end\": 30021}, \"missing\": [1]},";
    std::fs::write(merged.join("run.json"), run.replacen("\"complete\": true,", partial, 1)).unwrap();
    certify(&[&merged], &dir.path().join("cert2"), &[])
        .code(2)
        .stderr(predicate::str::contains("a partial merge of shards (--allow-partial), which speaks only for the shards it holds, cannot be certified"));
    // A plan of no nonces (which no merge writes) and a recorded merge command that merge
    // refuses are refused too, not certified.
    let forged = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut value: serde_json::Value = serde_json::from_str(&run).unwrap();
        edit(&mut value);
        std::fs::write(merged.join("run.json"), serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    };
    forged(&|v| v["plan"]["nonces"] = serde_json::json!([5, 5]));
    certify(&[&merged], &dir.path().join("cert2"), &[])
        .code(2)
        .stderr(predicate::str::contains("its plan's nonces 5..5 are an empty range, which no merge writes"));
    forged(&|v| v["command_line"].as_array_mut().unwrap().extend(["--claims".into(), "x.csv".into()]));
    certify(&[&merged], &dir.path().join("cert2"), &[]).code(2).stderr(predicate::str::contains(
        "its run.json records a merge command that merge refuses: --claims is not available",
    ));
    certify(&[&shards.join("shard-0001-of-0003")], &dir.path().join("cert2"), &[])
        .code(2)
        .stderr(predicate::str::contains("one shard of a sweep of scheme stake, which speaks for its slice of the nonces only; certify the merge of all its shards"));
}

#[test]
fn a_folder_of_an_earlier_version_still_certifies_and_a_missing_result_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (old, cert) = (dir.path().join("old"), dir.path().join("cert"));
    sweep_stake(&old, "roulette", "0..3000");
    // What sweeps of scheme stake wrote before they kept their tallies, rtp.csv and
    // report.html: the other files are checked as ever, and the folder certifies.
    for name in ["stake_tally.json", "rtp.csv", "report.html"] {
        std::fs::remove_file(old.join(name)).unwrap();
    }
    certify(&[&old], &cert, &[]).code(0);
    check(&cert).code(0);
    // A file every version writes, missing, is named rather than failing to read.
    std::fs::remove_file(old.join("tests.csv")).unwrap();
    certify(&[&old], &dir.path().join("cert2"), &[])
        .code(2)
        .stderr(predicate::str::contains("tests.csv: missing (a sweep of scheme stake writes it)"));
}

#[test]
fn a_forged_command_or_a_small_limit_cannot_make_the_check_sweep_for_hours() {
    let (_dir, cert, _) = certified();
    // The checker's own --resweep-limit bounds the sweeps of the family, all together.
    let out = fairaudit()
        .args(["certify", "--check"])
        .arg(&cert)
        .args(["--resweep-limit", "79999"])
        .assert()
        .code(2);
    let text = stdout(&out);
    assert!(text.contains("CANNOT CHECK cannot recompute the verdicts: inputs/stake-sweep-2: its 40000 rounds are more than the 39999 left of --resweep-limit"), "{text}");
    // A recorded command of four billion seed pairs is refused before a pair is derived.
    let run_rel = "inputs/stake-sweep-1/run.json";
    let run = std::fs::read_to_string(cert.join(run_rel)).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&run).unwrap();
    let command = value["command_line"].as_array_mut().unwrap();
    let at = command.iter().position(|a| a == "--server-seed").unwrap();
    command.splice(at..at + 4, ["--seed-pairs".into(), "4294967295".into()]);
    let command = value["command_line"].clone();
    std::fs::write(cert.join(run_rel), serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    rehash(&cert, run_rel);
    edit_manifest(&cert, |m| m["stake_sweeps"][0]["command_line"] = command);
    let out = check(&cert).code(2);
    let text = stdout(&out);
    assert!(
        text.contains("its 171798691800000 rounds are more than the 100000000 left of --resweep-limit"),
        "{text}"
    );
}

#[test]
fn a_sweep_beyond_the_resweep_limit_or_whose_files_changed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (dice, cert) = (dir.path().join("dice"), dir.path().join("cert"));
    sweep_stake(&dice, "dice", "0..5000");
    certify(&[&dice], &cert, &["--resweep-limit", "4999"])
        .code(2)
        .stderr(predicate::str::contains("its 5000 rounds are more than the 4999 left of --resweep-limit"));
    assert!(!cert.exists(), "a refused certificate writes nothing");
    let tests = dice.join("tests.csv");
    let text = std::fs::read_to_string(&tests).unwrap();
    // The first test's verdict turned into a FAIL, whatever it was.
    let (header, rows) = text.split_once('\n').unwrap();
    let forged = rows.replacen("\"PASS\"", "\"FAIL\"", 1).replacen("\"WEAK\"", "\"FAIL\"", 1);
    assert_ne!(forged, rows);
    std::fs::write(&tests, format!("{header}\n{forged}")).unwrap();
    certify(&[&dice], &cert, &[]).code(2).stderr(predicate::str::contains(
        "tests.csv: differs from what the sweep its run.json names gives, from line 2: the folder's files are not those of the sweep its run.json records",
    ));
    assert!(!cert.exists(), "a refused certificate writes nothing");
}

#[test]
fn beside_the_default_scheme_and_a_crash_chain_its_sections_follow_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (roulette, dice, chain, cert) = (
        dir.path().join("roulette"),
        dir.path().join("dice"),
        dir.path().join("chain"),
        dir.path().join("cert"),
    );
    fairaudit()
        .args(["sweep", "--game", "roulette-european", "--nonces", "0..3000", "--quiet", "--out"])
        .arg(&roulette)
        .assert()
        .code(0);
    sweep_stake(&dice, "dice", "0..3000");
    // Roobet's games below game 1,273,935 (its salt and hash from data/vectors/crash.csv).
    fairaudit()
        .args(["sweep", "--scheme", "roobet", "--game", "crash", "--quiet", "--nonces", "1270000..1273936"])
        .args(["--server-seed", "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4"])
        .args(["--client-seed", "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c", "--out"])
        .arg(&chain)
        .assert()
        .code(0);
    certify(&[&roulette, &dice, &chain], &cert, &[]).code(0);
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    let order = [
        "<h3>1.1 Sweep 1",
        "<h3>1.2 Stake sweep 1",
        "<h3>1.3 Crash chain 1",
        "<h3>2.1 The chain",
        "<h3>2.2 Statistical tests",
        "<h3>2.3 Calibration",
        "<h3>2.4 The HMAC-SHA256 family",
        "<h3>2.5 Crash games",
        "<h3>3.1 Outcome tests",
        "<h3>3.7 Sweeps of the HMAC-SHA256 family",
        "<h3>3.8 Crash games",
        "Stake sweep 1: dice at nonce 0",
        "Crash chain 1: game",
    ];
    let at: Vec<usize> = order.iter().map(|h| html.find(h).unwrap_or_else(|| panic!("no {h}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "sections out of order: {at:?}");
    assert!(html.contains("§3.7") && html.contains("§3.8"), "the cover points at the sections");
    check(&cert).code(0);
}

#[test]
fn a_stake_bet_history_is_certified_with_its_finding_and_a_rewritten_history_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (audit, dice, cert) = (dir.path().join("audit"), dir.path().join("dice"), dir.path().join("cert"));
    // Four rows, one a roulette payout of 25 where red pays 20 (tests/schemes.rs).
    fairaudit()
        .args([
            "audit",
            "--scheme",
            "stake",
            "--quiet",
            "--outcomes",
            "tests/data/stake-history.csv",
            "--out",
        ])
        .arg(&audit)
        .assert()
        .code(1);
    sweep_stake(&dice, "dice", "0..2000");
    let text = stdout(&certify(&[&dice], &cert, &["--audit", audit.to_str().unwrap()]).code(1));
    assert!(text.contains("certificate for Stake: FINDINGS"), "{text}");
    assert!(
        text.contains(
            "stake bet history 1 (tests/data/stake-history.csv): 4 rows, 4 replayed, row checks FINDINGS"
        ),
        "{text}"
    );
    let m = manifest(&cert);
    assert_eq!(m["stake_audits"][0]["rows"], 4);
    assert_eq!(m["stake_audits"][0]["outcomes"], "inputs/stake-audit-1/history/stake-history.csv");
    assert_eq!(verdict(&m, "stake audit 1 rows"), "FINDINGS");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    for figure in [
        "<h3>3.1 Sweeps and bet histories of the HMAC-SHA256 family</h3>",
        "Stake bet history 1 (tests/data/stake-history.csv, 4 rows): row checks",
        "payout: 1",
        "<td><code>20</code></td><td><code>25</code></td>",
        "Stake bet history 1: line 2 (plinko",
        "The row records <code>9</code>: the same.",
    ] {
        assert!(html.contains(figure), "{figure}");
    }
    check(&cert).code(0);
    // A finding deleted from the audit's findings.csv, rehashed: auditing the copy again
    // gives it back.
    let findings_rel = "inputs/stake-audit-1/findings.csv";
    let findings = std::fs::read_to_string(cert.join(findings_rel)).unwrap();
    let header = findings.lines().next().unwrap().to_owned() + "\n";
    std::fs::write(cert.join(findings_rel), &header).unwrap();
    rehash(&cert, findings_rel);
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains(&format!(
            "MISMATCH {findings_rel}: differs from what the history its run.json names gives"
        )),
        "{out}"
    );
    std::fs::write(cert.join(findings_rel), &findings).unwrap();
    rehash(&cert, findings_rel);
    check(&cert).code(0);
    // The audit's report.html and rtp.csv are made again too.
    for rel in ["inputs/stake-audit-1/report.html", "inputs/stake-audit-1/rtp.csv"] {
        assert_forgery_named(
            &cert,
            rel,
            |text| text.replacen("roulette", "roulettE", 1),
            "differs from what the history its run.json names gives",
        );
    }
    check(&cert).code(0);
    // The history's copy rewritten to pay 20, rehashed: the check audits the copy again.
    let rel = "inputs/stake-audit-1/history/stake-history.csv";
    let history = std::fs::read_to_string(cert.join(rel)).unwrap();
    std::fs::write(cert.join(rel), history.replace(",red,10,25", ",red,10,20")).unwrap();
    rehash(&cert, rel);
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains("MISMATCH manifest.json: verdict 'stake audit 1 rows' reads FINDINGS, recomputed CLEAN"),
        "{out}"
    );
    assert!(out.contains("MISMATCH certificate.html: differs"), "{out}");
}

#[test]
fn a_keno_history_judged_by_the_operators_paytable_certifies_and_a_rewritten_table_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (history, paytable, audit, cert) = (
        dir.path().join("keno.csv"),
        dir.path().join("operator-keno.csv"),
        dir.path().join("audit"),
        dir.path().join("cert"),
    );
    std::fs::write(&history, common::history::stake_keno_history(500)).unwrap();
    std::fs::write(&paytable, fairaudit::rtp::paytable::EXAMPLE_PAYTABLE_CSV).unwrap();
    fairaudit()
        .args(["audit", "--scheme", "stake", "--quiet", "--outcomes"])
        .arg(&history)
        .arg("--paytable")
        .arg(&paytable)
        .arg("--out")
        .arg(&audit)
        .assert()
        .code(0);
    let text = stdout(&certify_audit(&audit, &cert).code(0));
    assert!(text.contains("certificate for Stake: PASS"), "{text}");
    let m = manifest(&cert);
    assert_eq!(m["stake_audits"][0]["paytable"], "inputs/stake-audit-1/paytable/operator-keno.csv");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(
        html.contains("500 payouts checked against the published tables (Keno&#39;s: the paytable"),
        "payouts line"
    );
    check(&cert).code(0);
    // The dossier's paytable with one multiplier lowered, rehashed: the check audits the
    // history again by it, and the payouts it paid are then findings.
    let rel = "inputs/stake-audit-1/paytable/operator-keno.csv";
    let table = std::fs::read_to_string(cert.join(rel)).unwrap();
    std::fs::write(cert.join(rel), table.replace("1,1,3.95", "1,1,3.9")).unwrap();
    rehash(&cert, rel);
    let out = stdout(&check(&cert).code(1));
    assert!(
        out.contains("MISMATCH manifest.json: verdict 'stake audit 1 rows' reads CLEAN, recomputed FINDINGS"),
        "{out}"
    );
}

// Issue 59, rig 2: a Stake history without commitments replayed clean ("400 replayed"), and
// certified PASS without a warning, though a seed ground after play until the large bets
// lose replays as well as a fair one. Each server seed revealed without its commitment on
// any row is now an `uncommitted` finding: exit 1, FAIL in summary.json, FINDINGS on the
// certificate. The same history with its commitments is clean.
#[test]
fn a_stake_history_without_commitments_is_never_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string("tests/data/stake-history.csv").unwrap();
    // The history less its commitment column, its one payout finding mended.
    let mended = full.replace(",red,10,25", ",red,10,20");
    let without: String = mended
        .lines()
        .map(|line| {
            let mut cells: Vec<&str> = line.split(',').collect();
            // plinko's parameters hold a comma: its cells split one further.
            let at = if line.starts_with("plinko") { 3 } else { 2 };
            cells.remove(at);
            cells.join(",") + "\n"
        })
        .collect();
    assert!(!without.contains("commitment") && without.contains("audit server"), "{without}");
    for (name, text, code) in [("with.csv", &mended, 0), ("without.csv", &without, 1)] {
        let history = dir.path().join(name);
        std::fs::write(&history, text).unwrap();
        let audit = dir.path().join(format!("audit-{name}"));
        let assert = fairaudit()
            .args(["audit", "--scheme", "stake", "--quiet", "--outcomes"])
            .arg(&history)
            .arg("--out")
            .arg(&audit)
            .assert()
            .code(code);
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(audit.join("summary.json")).unwrap()).unwrap();
        let cert = dir.path().join(format!("cert-{name}"));
        let text = stdout(&certify_audit(&audit, &cert).code(code));
        if code == 0 {
            assert_eq!(summary["verdict"], "PASS");
            assert!(text.contains("certificate for Stake: PASS"), "{text}");
            continue;
        }
        let out = stdout(&assert);
        assert!(out.contains("line 2: uncommitted: a server seed revealed without its commitment"), "{out}");
        assert_eq!((&summary["verdict"], &summary["findings"]["uncommitted"]), (&"FAIL".into(), &1.into()));
        assert!(text.contains("certificate for Stake: FINDINGS"), "{text}");
        // The certificate itself checks: it says FINDINGS, as the history gives.
        check(&cert).code(0);
    }
}
