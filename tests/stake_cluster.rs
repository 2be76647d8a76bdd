//! Sweeps of the HMAC-SHA256 family (`sweep --scheme stake`) that are stopped, killed,
//! continued and cut into shards give exactly the files of one uninterrupted sweep: the
//! tallies (`stake_tally.json`), the battery (`tests.csv`, `summary.json`) and the counts
//! (`outcome_counts.csv`), byte for byte. A merge names every shard it lacks; a tally
//! file that does not add up is refused rather than continued; `--allow-partial` merges
//! the complete shards and says PARTIAL everywhere; and `certify` refuses what it cannot
//! certify (an interrupted sweep, a shard, a partial merge) by name.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// The files that must not depend on how the sweep was run (run.json records how).
const RESULTS: [&str; 4] = ["stake_tally.json", "tests.csv", "summary.json", "outcome_counts.csv"];

fn assert_same_results(a: &Path, b: &Path) {
    for name in RESULTS {
        let (x, y) = (std::fs::read(a.join(name)).unwrap(), std::fs::read(b.join(name)).unwrap());
        assert!(x == y, "{name} differs between {} and {}", a.display(), b.display());
    }
}

/// `certify --sweep INPUT --out OUT` (no PDF), asserted by the caller.
fn certify(
    input: impl AsRef<std::ffi::OsStr>,
    out: impl AsRef<std::ffi::OsStr>,
) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["certify", "--no-pdf", "--operator", "X", "--sweep"])
        .arg(input)
        .arg("--out")
        .arg(out)
        .assert()
}

fn tally(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("stake_tally.json")).unwrap()).unwrap()
}

fn rounds_of(tally: &serde_json::Value) -> u64 {
    tally["seed_pairs"].as_array().unwrap().iter().map(|p| p["tally"]["rounds"].as_u64().unwrap()).sum()
}

/// Dice over 10^7 nonces of two derived seed pairs: seconds on one thread.
const SWEEP: [&str; 10] = [
    "sweep",
    "--scheme",
    "stake",
    "--game",
    "dice",
    "--nonces",
    "3..10000003",
    "--seed-pairs",
    "2",
    "--quiet",
];

/// Starts the sweep into `out` and sends `signal` after `after`.
fn start_and_signal(out: &Path, extra: &[&str], signal: &str, after: Duration) -> Option<i32> {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fairaudit"))
        .args(SWEEP)
        .args(extra)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    child.wait().unwrap().code()
}

#[test]
fn a_stake_sweep_stopped_or_killed_and_continued_equals_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    fairaudit().args(SWEEP).arg("--out").arg(&whole).assert().code(0);
    let total = rounds_of(&tally(&whole));
    assert_eq!(total, 2 * 10_000_000);

    // SIGTERM: the chunks in flight finish, the tallies are saved, exit 130. Two threads
    // and odd chunks leave holes whose ranges end between the rounds of a pair.
    let stopped = dir.path().join("stopped");
    let odd_chunks = ["--threads", "2", "--chunk-size", "999"];
    assert_eq!(start_and_signal(&stopped, &odd_chunks, "-TERM", Duration::from_millis(400)), Some(130));
    let saved = tally(&stopped);
    assert_eq!(saved["complete"], false);
    assert!(rounds_of(&saved) > 0 && rounds_of(&saved) < total, "{}", rounds_of(&saved));
    assert!(!stopped.join("tests.csv").exists(), "an interrupted sweep has no results");
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(stopped.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["complete"], false);
    certify(&stopped, dir.path().join("cert"))
        .code(2)
        .stderr(predicate::str::contains("the sweep is not complete"));
    // The same command continues it, with other threads and chunks.
    fairaudit()
        .args(SWEEP)
        .args(["--chunk-size", "1000"])
        .arg("--out")
        .arg(&stopped)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("continuing the sweep saved"));
    assert_same_results(&whole, &stopped);

    // SIGKILL, which saves nothing: the last checkpoint is what is continued.
    let killed = dir.path().join("killed");
    let extra = ["--threads", "1", "--chunk-size", "8192", "--checkpoint-every", "50ms"];
    let code = start_and_signal(&killed, &extra, "-KILL", Duration::from_millis(700));
    assert_eq!(code, None, "killed by the signal");
    let checkpoint = tally(&killed);
    assert_eq!(checkpoint["complete"], false);
    assert!(rounds_of(&checkpoint) > 0, "a checkpoint was saved before the kill");
    fairaudit().args(SWEEP).arg("--out").arg(&killed).arg("--resume").assert().code(0);
    assert_same_results(&whole, &killed);
}

/// Shard `index` of 4 of a Keno sweep (pairs of rounds straddle the odd cuts).
fn shard(out: &Path, index: &str) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "keno", "--nonces", "4..200005", "--seed-pairs", "2"])
        .args(["--quiet", "--shards", "4", "--shard-index", index, "--out"])
        .arg(out)
        .assert()
}

#[test]
fn shards_in_any_order_merge_to_the_unsharded_sweep_and_gaps_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, shards, merged) =
        (dir.path().join("whole"), dir.path().join("shards"), dir.path().join("merged"));
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "keno", "--nonces", "4..200005", "--seed-pairs", "2"])
        .args(["--quiet", "--out"])
        .arg(&whole)
        .assert()
        .code(0);
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "keno", "--nonces", "4..200005", "--seed-pairs", "2"])
        .args(["--shards", "4", "--dry-run", "--out"])
        .arg(&shards)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("    1  50005..100005"));
    for index in ["3", "1", "0"] {
        shard(&shards, index).code(0);
    }
    let merge =
        |extra: &[&str]| fairaudit().arg("merge").arg(&shards).args(extra).arg("--out").arg(&merged).assert();
    merge(&[]).code(2).stderr(predicate::str::contains(
        "1 of 4 shards are missing or interrupted: shard 2 (nonces 100005..150005) missing",
    ));
    // With --allow-partial: the complete shards, PARTIAL in every file and on stdout.
    merge(&["--allow-partial"])
        .code(0)
        .stdout(predicate::str::contains(
            "PARTIAL: merged 3 of 4 shards of nonces 4..200005; missing or interrupted: shard 2 (nonces 100005..150005) missing",
        ))
        .stdout(predicate::str::contains("verdict: PARTIAL (1 of 4 shards missing or interrupted"));
    let read = |name: &str| std::fs::read_to_string(merged.join(name)).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&read("summary.json")).unwrap();
    assert_eq!(
        (summary["verdict"].as_str(), summary["partial"]["missing"][0].as_u64()),
        (Some("PARTIAL"), Some(2))
    );
    assert!(
        read("tests.csv").lines().skip(1).all(|row| row.contains(" (PARTIAL)\"")),
        "{}",
        read("tests.csv")
    );
    assert!(read("report.html")
        .contains("<p id=\"partial\" class=\"partial\"><b>PARTIAL:</b> this merge holds 3 of the 4 shards"));
    let run: serde_json::Value = serde_json::from_str(&read("run.json")).unwrap();
    assert_eq!((run["complete"].as_bool(), run["partial"]["count"].as_u64()), (Some(false), Some(4)));
    let held = tally(&merged);
    let quarter = |i: usize| tally(&shards.join(format!("shard-000{i}-of-0004")));
    assert_eq!(rounds_of(&held), rounds_of(&quarter(0)) + rounds_of(&quarter(1)) + rounds_of(&quarter(3)));
    // A partial merge is not merged again, nor certified.
    fairaudit()
        .arg("merge")
        .arg(&merged)
        .arg("--out")
        .arg(dir.path().join("again"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a partial merge; merge the shard folders themselves"));
    certify(&merged, dir.path().join("cert"))
        .code(2)
        .stderr(predicate::str::contains("a partial merge of shards (--allow-partial)"));
    // Nor continued by a sweep, even without its run.json.
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(merged.join("stake_tally.json"), copy.join("stake_tally.json")).unwrap();
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "keno", "--nonces", "4..200005", "--seed-pairs", "2"])
        .args(["--quiet", "--out"])
        .arg(&copy)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds a partial merge of shards, which a sweep does not continue"));
    shard(&shards, "2").code(0);
    // A shard run again (a requeued task) is not swept again.
    shard(&shards, "1").code(0).stderr(predicate::str::contains("already holds this sweep complete"));
    // Once the last shard is done, the merge replaces the partial one without --force.
    merge(&[]).code(0).stdout(predicate::str::contains("merged all 4 shards of nonces 4..200005"));
    assert_same_results(&whole, &merged);
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(merged.join("run.json")).unwrap()).unwrap();
    assert_eq!((run["kind"].as_str(), run["plan"]["nonces"][1].as_u64()), (Some("merge"), Some(200_005)));
    merge(&[]).code(0); // the same merge again
                        // A complete merge is not replaced by a partial one without --force.
    let aside = dir.path().join("aside");
    std::fs::rename(shards.join("shard-0002-of-0004"), &aside).unwrap();
    merge(&["--allow-partial"])
        .code(2)
        .stderr(predicate::str::contains("holds the output of a different run"));
    std::fs::rename(&aside, shards.join("shard-0002-of-0004")).unwrap();

    // A shard is not certified (it speaks for its slice only); the complete merge is
    // (tests/certify_stake.rs).
    certify(shards.join("shard-0002-of-0004"), dir.path().join("cert"))
        .code(2)
        .stderr(predicate::str::contains("one shard of a sweep"));

    // A renamed shard folder, and a sweep of the default scheme among the inputs.
    std::fs::rename(shards.join("shard-0003-of-0004"), dir.path().join("shard-0001-of-0004")).unwrap();
    fairaudit()
        .arg("merge")
        .arg(shards.join("shard-0000-of-0004"))
        .arg(dir.path().join("shard-0001-of-0004"))
        .arg("--out")
        .arg(dir.path().join("other"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the folder's name says shard 1 of 4"));
    let sha3 = dir.path().join("sha3");
    fairaudit().args(["sweep", "--nonces", "0..1000", "--quiet", "--out"]).arg(&sha3).assert().code(0);
    fairaudit()
        .arg("merge")
        .arg(shards.join("shard-0000-of-0004"))
        .arg(&sha3)
        .arg("--out")
        .arg(dir.path().join("other"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a sweep of scheme sha3, not of scheme stake or duel"));
}

#[test]
fn a_tally_file_that_does_not_add_up_or_names_another_sweep_is_not_continued() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let sweep = |nonces: &str, extra: &[&str]| {
        fairaudit()
            .args(["sweep", "--scheme", "stake", "--game", "mines", "--params", "{\"mines\":3}", "--quiet"])
            .args(["--nonces", nonces])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .assert()
    };
    sweep("0..1000", &["--resume"]).code(2).stderr(predicate::str::contains("nothing to resume"));
    sweep("0..1000", &[]).code(0);
    sweep("0..1000", &[]).code(0); // the same sweep again reproduces it
    sweep("0..2000", &[]).code(2).stderr(predicate::str::contains("holds the output of a different sweep"));
    // One count added: the file does not add up, and is refused rather than continued or
    // silently replaced.
    let path = out.join("stake_tally.json");
    let mut file = tally(&out);
    let steps = file["seed_pairs"][0]["tally"]["steps"][0].as_array_mut().unwrap();
    steps[0] = (steps[0].as_u64().unwrap() + 1).into();
    std::fs::write(&path, serde_json::to_vec_pretty(&file).unwrap()).unwrap();
    sweep("0..1000", &[])
        .code(2)
        .stderr(predicate::str::contains("stake_tally.json: seed pair 0: its counts do not add up"));
    sweep("0..1000", &["--force"]).code(0);
    // A sweep of the default scheme's folder is not a stake sweep's to continue, and back.
    let sha3 = dir.path().join("sha3");
    fairaudit().args(["sweep", "--nonces", "0..1000", "--quiet", "--out"]).arg(&sha3).assert().code(0);
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "dice", "--nonces", "0..1000", "--quiet", "--out"])
        .arg(&sha3)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds a sweep of scheme sha3"));
    fairaudit()
        .args(["sweep", "--nonces", "0..1000", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds a sweep of scheme stake"));
}

#[test]
fn whole_sweeps_of_adjacent_ranges_merge_to_the_sweep_of_their_union_and_certify() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = |out: &Path, nonces: &str| {
        fairaudit()
            .args(["sweep", "--scheme", "stake", "--game", "keno", "--seed-pairs", "2", "--quiet"])
            .args(["--nonces", nonces, "--out"])
            .arg(out)
            .assert()
            .code(0);
    };
    let part = |name: &str| dir.path().join(name);
    // Met at an odd nonce (the pair 60000, 60001 is in neither) and at an even one.
    sweep(&part("whole"), "3..100004");
    sweep(&part("a"), "3..60001");
    sweep(&part("b"), "60001..80000");
    sweep(&part("c"), "80000..100004");
    let merged = part("merged");
    fairaudit()
        .arg("merge")
        .args([part("c"), part("a"), part("b")])
        .arg("--out")
        .arg(&merged)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("merged 3 inputs: stake keno x 2 seed pair(s) x 100001 nonces"));
    assert_same_results(&part("whole"), &merged);
    // The merge certifies as the sweep of the whole range, and checks.
    let cert = part("cert");
    certify(&merged, &cert).code(0);
    fairaudit().args(["certify", "--check"]).arg(&cert).assert().code(0);
    // A gap, an overlap, or a shard among whole sweeps is named (exit 2).
    for (inputs, says) in [
        (vec![part("a"), part("c")], "nonces 60001..80000 are in no input"),
        (vec![part("whole"), part("b")], "both hold nonces 60001..80000"),
    ] {
        fairaudit()
            .arg("merge")
            .args(inputs)
            .arg("--out")
            .arg(part("bad"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    let shards = part("shards");
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "keno", "--seed-pairs", "2", "--quiet"])
        .args(["--nonces", "100004..100010", "--shards", "2", "--shard-index", "0", "--out"])
        .arg(&shards)
        .assert()
        .code(0);
    fairaudit()
        .arg("merge")
        .arg(&merged)
        .arg(shards.join("shard-0000-of-0002"))
        .arg("--out")
        .arg(part("bad"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a shard of a sweep cut with --shards and"));
    assert!(!part("bad").exists(), "a refused merge writes nothing");
}
