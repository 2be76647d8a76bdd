//! `sweep` of a crash chain: a range of Roobet's real chain below a published game's hash
//! reaches the hash Roobet published for game 1, the same range numbered one game off is
//! a FAIL that names the published game, the files say so, the threads change nothing,
//! and bad input is one line and exit 2.

use assert_cmd::Command;
use fairaudit::scheme::crash::CrashVariant;
use predicates::prelude::*;
use std::path::Path;

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// Roobet's salt (Bitcoin block 610546) and the hash of its game 1,273,935 (from
/// `data/vectors/crash.csv`, with its source).
const SALT: &str = "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c";
const GAME_1273935: &str = "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4";
const GAME_1: &str = "77b271fe12fca03c618f63dfb79d4105726ba9d4a25bb3f1964e435ccf9cb209";

fn sweep(out: &Path, nonces: &str, top: &str, salt: &str) -> Command {
    let mut command = fairaudit();
    command.args(["sweep", "--scheme", "roobet", "--game", "crash", "--quiet", "--nonces", nonces]);
    command.args(["--server-seed", top, "--client-seed", salt, "--out"]).arg(out);
    command
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_whole_of_roobets_chain_below_a_real_game_reaches_its_published_game_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("chain");
    sweep(&out, "1..1273936", GAME_1273935, SALT)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("1273935 games in"))
        .stdout(predicate::str::contains("chain: linked to the published game 1 (1 more links walked)"));
    let run = json(&out.join("run.json"));
    assert_eq!(run["chain"]["status"], "linked");
    assert_eq!(run["plan"]["games"], serde_json::json!([1, 1273936]));
    assert_eq!(run["games"], 1273935);
    // The walk ended on game 0's hash: one link below game 1's.
    assert_eq!(run["end_hash"], fairaudit::scheme::crash::previous_hash(GAME_1));
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["verdict"], "PASS", "{summary}");
    assert_eq!(summary["chain"]["game"], 1);
    let cells = std::fs::read_to_string(out.join("crash_cells.csv")).unwrap();
    // Text cells quoted and CRLF line ends, as every CSV of fairaudit writes them.
    let header = "\"view\",\"cell\",\"observed\",\"expected\",\"exact_probability\"\r\n";
    assert!(cells.starts_with(&format!("{header}\"crash_point\",\"instant\",")), "{cells}");
    let tests = std::fs::read_to_string(out.join("tests.csv")).unwrap();
    for test in ["crash_point_frequency", "instant_crash_rate", "instant_crash_runs", "pairs"] {
        assert!(tests.contains(&format!(",\"{test}\",")), "{test}: {tests}");
    }
}

#[test]
fn a_range_numbered_one_game_off_fails_and_names_the_published_game() {
    let dir = tempfile::tempdir().unwrap();
    // The top hash is game 1,273,935's: the range below claims it is game 1,273,936.
    let out = dir.path().join("off");
    sweep(&out, "1273001..1273937", GAME_1273935, SALT).assert().code(1).stdout(predicate::str::contains(
        "FAIL chain: games 1273001..1273937 below --server-seed do not reach the published game 1",
    ));
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["verdict"], "FAIL");
    assert_eq!(summary["chain"]["status"], "broken");
    assert_eq!(summary["chain"]["expected"], GAME_1);
    // Numbered right, the same hash links.
    let out = dir.path().join("right");
    sweep(&out, "1273000..1273936", GAME_1273935, SALT).assert().code(0).stdout(predicate::str::contains(
        "chain: linked to the published game 1 (1272998 more links walked)",
    ));
}

#[test]
fn the_threads_change_nothing_and_another_salt_is_not_linked() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(threads);
        sweep(&out, "100..70100", GAME_1273935, "another salt")
            .args(["--threads", threads])
            .assert()
            .code(0)
            .stderr(predicate::str::contains(
                "nothing ties the chain below --server-seed to an operator's commitment",
            ))
            .stdout(predicate::str::contains("chain: not linked to a published game"));
        let read = |name: &str| std::fs::read(out.join(name)).unwrap();
        files.push((read("crash_cells.csv"), read("tests.csv"), read("summary.json")));
        assert_eq!(json(&out.join("run.json"))["chain"]["status"], "unanchored");
    }
    assert!(files[0] == files[1], "the files differ between 1 and 2 threads");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bad");
    let refused = |command: &mut Command, message: &str| {
        command.assert().code(2).stderr(predicate::str::contains(message));
    };
    refused(
        &mut sweep(&out, "1..10", &GAME_1273935.to_uppercase(), SALT),
        "is not a game hash of scheme roobet",
    );
    refused(
        &mut sweep(&out, "0..10", GAME_1273935, SALT),
        "starts below game 1, the first game of roobet's published chain",
    );
    refused(
        sweep(&out, "1..10", GAME_1273935, SALT).arg("--resume"),
        "--resume is not available with --scheme roobet yet",
    );
    refused(sweep(&out, "1..10", GAME_1273935, SALT).args(["--game", "dice"]), "pass --game crash once");
    // Numbers no real chain reaches: the walk to the published game is refused, not run.
    refused(
        fairaudit()
            .args(["sweep", "--scheme", "bustabit-v1", "--nonces", "5000000000..5000000010", "--client-seed"])
            .args([CrashVariant::BustabitV1.salt(), "--server-seed", GAME_1273935, "--out"])
            .arg(&out),
        "is 4999000000 links from bustabit-v1's published game 999999, more than 100000000",
    );
    refused(
        &mut sweep(&out, "1..100000002", GAME_1273935, SALT),
        "--nonces 1..100000002 is 100000001 games, more than 100000000",
    );
    refused(
        fairaudit()
            .args(["sweep", "--scheme", "bustabit-v1", "--nonces", "1000000..1000010"])
            .arg("--out")
            .arg(&out),
        "needs the chain: --server-seed",
    );
    refused(
        fairaudit().args(["sweep", "--scheme", "roobet", "--seed-pairs", "3"]).arg("--out").arg(&out),
        "--seed-pairs derives seed pairs of scheme sha3",
    );
    assert!(!out.exists(), "a refused sweep writes nothing");
}
