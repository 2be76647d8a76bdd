//! `fairaudit audit` and the battery's exit status through the real binary.

mod common;

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

fn log() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/american-log.csv")
}

fn audit(game: &str, file: &Path) -> assert_cmd::assert::Assert {
    fairaudit().args(["audit", "--game", game, "--outcomes"]).arg(file).assert()
}

/// [`audit`], writing its folder `out`.
fn audit_into(game: &str, file: &Path, out: &Path) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["audit", "--quiet", "--game", game, "--outcomes"])
        .arg(file)
        .arg("--out")
        .arg(out)
        .assert()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_fair_log_verified_against_the_chain_passes() {
    audit("roulette-american", &log())
        .code(0)
        .stdout(predicate::str::contains("3000 rounds read; 3000 replayed against the chain, 0 mismatches"))
        .stdout(predicate::str::contains("0 FAIL, 3 INSUFFICIENT: PASS"));
}

#[test]
fn a_tampered_round_is_listed_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(log()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let original = lines[5].to_owned();
    let (prefix, result) = original.rsplit_once(',').unwrap();
    let changed = format!("{prefix},{}", if result == "7" { "8" } else { "7" });
    lines[5] = &changed;
    let file = write(dir.path(), "log.csv", &(lines.join("\n") + "\n"));
    audit("roulette-american", &file)
        .code(1)
        .stdout(predicate::str::contains("line 6: result: file has '"))
        .stdout(predicate::str::contains("1 mismatches"));
}

#[test]
fn a_biased_log_fails_the_battery_and_writes_its_report() {
    let dir = tempfile::tempdir().unwrap();
    // 3,700 spins where pocket 0 never comes up and 17 comes up twice as often.
    let rows: String = (0..3700).map(|i| format!("{}\n", if i % 37 == 0 { 17 } else { i % 37 })).collect();
    let file = write(dir.path(), "log.csv", &format!("result\n{rows}"));
    let out = dir.path().join("report");
    fairaudit()
        .args(["audit", "--game", "roulette-european", "--outcomes"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL         roulette-european log pocket_frequency"));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["verdict"], "FAIL");
    let mut tests = csv::Reader::from_path(out.join("tests.csv")).unwrap();
    assert!(tests.records().map(Result::unwrap).any(|r| &r[2] == "pocket_frequency" && &r[7] == "FAIL"));
    // The report is not overwritten without --force.
    fairaudit()
        .args(["audit", "--game", "roulette-european", "--outcomes"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds the output of a fairaudit audit"));
}

#[test]
fn keno_logs_enable_the_position_test_only_with_draw_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_order = String::from("draw_order,result\n");
    let mut without = String::from("result\n");
    for nonce in 0..300u64 {
        let round = fairaudit::verify::replay(fairaudit::games::GameId::Keno, "s", "c", nonce);
        with_order.push_str(&format!("{},{}\n", round.draw_order, round.result));
        without.push_str(&format!("{}\n", round.result));
    }
    audit("keno", &write(dir.path(), "a.csv", &with_order)).code(0);
    let out = dir.path().join("with");
    fairaudit()
        .args(["audit", "--game", "keno", "--outcomes"])
        .arg(write(dir.path(), "a.csv", &with_order))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    let tests = std::fs::read_to_string(out.join("tests.csv")).unwrap();
    assert!(tests.contains("position_by_number"));
    let out = dir.path().join("without");
    fairaudit()
        .args(["audit", "--game", "keno", "--outcomes"])
        .arg(write(dir.path(), "b.csv", &without))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    assert!(!std::fs::read_to_string(out.join("tests.csv")).unwrap().contains("position_by_number"));
}

#[test]
fn malformed_rows_exit_2_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("roulette-european", "result\n1\n00\n", "line 3"),
        ("roulette-european", "result\n1\n37\n", "line 3"),
        ("roulette-european", "pocket\n1\n", "missing required column 'result'"),
        ("keno", "result\n1 2 3 4 5 6 7 8 9 10\n1 2 3\n", "has 3 numbers"),
        ("keno", "result\n10 9 8 7 6 5 4 3 2 1\n", "ascending"),
        ("keno", "draw_order,result\n11 2 3 4 5 6 7 8 9 10,1 2 3 4 5 6 7 8 9 10\n", "not the same numbers"),
        ("keno", "game,result\nroulette-european,1\n", "column 'game'"),
    ];
    for (i, (game, text, needle)) in cases.iter().enumerate() {
        let file = write(dir.path(), &format!("{i}.csv"), text);
        let output = fairaudit().args(["audit", "--game", game, "--outcomes"]).arg(&file).output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{text:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    }
}

#[test]
fn a_sweep_whose_tallies_fail_the_battery_exits_1() {
    // Forge a tally a careful forger would: the real spins of a sweep with every spin of
    // pocket 1 away from the segment's ends made pocket 0, tallied again, so that every
    // relation between counters holds and the ends are still the seeds' (a single changed
    // counter is refused: tests/regression.rs). Merged, the battery must FAIL
    // pocket_frequency and the exit status must be 1.
    use fairaudit::games::{Game, Roulette, Spin};
    use fairaudit::tally::{RouletteTally, SequenceTally};
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    fairaudit()
        .args(["sweep", "--game", "roulette-european", "--nonces", "0..20000", "--quiet", "--out"])
        .arg(&run)
        .assert()
        .code(0);
    let path = run.join("tally.json");
    let mut tally: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let pair = &tally["plan"]["seed_pairs"][0];
    let hasher = fairaudit::chain::RoundHasher::new(
        pair["server_seed"].as_str().unwrap(),
        pair["client_seed"].as_str().unwrap(),
    );
    let mut forged = RouletteTally::new(Roulette::EUROPEAN);
    for nonce in 0..20_000u64 {
        let mut spin = Spin::default();
        Roulette::EUROPEAN.draw(&mut hasher.words(nonce), &mut spin);
        if (2_000..18_000).contains(&nonce) && spin.pocket == 1 {
            spin.pocket = 0;
        }
        forged.record(&spin);
    }
    tally["entries"][0]["segments"][0]["tally"] = serde_json::to_value(&forged).unwrap();
    std::fs::write(&path, common::sealed_tally(&tally)).unwrap();
    fairaudit()
        .arg("merge")
        .arg(&run)
        .arg("--out")
        .arg(dir.path().join("merged"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL").and(predicate::str::contains("pocket_frequency")));
}

#[test]
fn the_worked_example_lists_its_findings_and_writes_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("audit");
    let history = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/roulette-history.csv");
    fairaudit()
        .args(["audit", "--game", "roulette-european", "--outcomes"])
        .arg(&history)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("payout: file has 70, the paytable gives 72 (2 x 36)"))
        .stdout(predicate::str::contains("nonce_reused: nonce 11 was already played with this seed pair"))
        .stdout(predicate::str::contains("findings: 2 (payout 1, nonce_reused 1)"));
    let mut findings = csv::Reader::from_path(out.join("findings.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = findings.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!((&rows[0][2], &rows[0][4]), ("payout", "70"));
    assert_eq!(&rows[1][2], "nonce_reused");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["verdict"], "FAIL");
    assert_eq!(summary["findings"]["payout"], 1);
    assert_eq!(summary["players"].as_array().unwrap().len(), 3);
    assert_eq!(summary["battery"]["verdict"], "PASS", "the statistics pass: only the rows are wrong");
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains("id=\"findings\"") && report.contains("nonce_reused"));
    for file in ["tests.csv", "rtp.csv", "nonce_gaps.csv"] {
        assert!(out.join(file).exists(), "{file}");
    }
}

/// Hardening case 1: empty `draw_order` cells were read as "drawn in sorted order" and
/// `position_by_number` FAILed fair rounds at p < 1e-300. A row without a draw order now
/// disables the position tests instead.
#[test]
fn empty_draw_order_cells_do_not_fake_a_position_bias() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("draw_order,result\n");
    for nonce in 0..2000u64 {
        let round = fairaudit::verify::replay(fairaudit::games::GameId::Keno, "s2", "c", nonce);
        let order = if nonce % 3 == 0 { String::new() } else { round.draw_order };
        text.push_str(&format!("{order},{}\n", round.result));
    }
    let file = write(dir.path(), "partial-order.csv", &text);
    audit("keno", &file)
        .code(0)
        .stdout(predicate::str::contains("draw order recorded on 1333 of 2000 rows"))
        .stdout(predicate::str::contains("position_by_number").not());
}

/// Exit 3 means "nothing found, and nothing judged": a CI gate reading only the exit
/// status must not take a run too short for any test for a PASS. Every command that ends
/// on a battery says so: a sweep, a merge, and an audit of outcomes with no row it could
/// check (a certificate: `tests/certify_stake.rs`). A finished shard still exits 0 (its
/// scheduler must run the merge), and an audit whose rows were replayed against the chain
/// is judged by them (exit 0). An exact test that cannot reach the level at this size is
/// INSUFFICIENT, not PASS: three spins cannot make the colour test fail.
#[test]
fn a_run_that_judges_nothing_exits_3_at_every_command() {
    let dir = tempfile::tempdir().unwrap();
    // Three rounds: the roulettes' zeros tests can fail already, but no Keno test can, and
    // the count of rejected words says nothing about the outcomes: Keno is not judged, so
    // the battery does not pass (this once read PASS).
    fairaudit()
        .args(["sweep", "--nonces", "0..3", "--out"])
        .arg(dir.path().join("three"))
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "INSUFFICIENT roulette-european 0 colour: 3 red of 3 non-zero spins, 0 black (exact binomial); p 0.25, but it cannot fail at this size: its smallest possible p-value is 0.25, above alpha 0.01",
        ))
        .stdout(predicate::str::contains(
            "battery at alpha 0.01: 54 tests, 5 PASS, 0 WEAK, 0 FAIL, 49 INSUFFICIENT: INSUFFICIENT",
        ))
        .stdout(predicate::str::contains(
            "no test of the outcomes of keno is valid at this size, so it is not judged (not a PASS)",
        ));
    // One round: only the rejection counts are valid, and no game is judged.
    let one = dir.path().join("one");
    fairaudit()
        .args(["sweep", "--nonces", "0..1", "--quiet", "--out"])
        .arg(&one)
        .assert()
        .code(3)
        .stdout(predicate::str::contains("3 PASS, 0 WEAK, 0 FAIL, 51 INSUFFICIENT: INSUFFICIENT"))
        .stdout(predicate::str::contains(
            "no test of the outcomes of keno, roulette-european, roulette-american is valid at this size, so they are not judged (not a PASS)",
        ));
    // Across seed pairs too: the smallest rejection p-value of five pairs judges no outcome.
    fairaudit()
        .args(["sweep", "--nonces", "0..1", "--seed-pairs", "5", "--master-seed", "1", "--game", "keno"])
        .args(["--quiet", "--out"])
        .arg(dir.path().join("pairs"))
        .assert()
        .code(3)
        .stdout(predicate::str::contains("no test of the outcomes of keno is valid at this size"));
    let tests = std::fs::read_to_string(dir.path().join("pairs/tests.csv")).unwrap();
    assert!(
        tests.contains("\"keno\",\"across\",\"rejections:min_across_pairs\",1,\"\",1,1,\"PASS\""),
        "{tests}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["verdict"], "INSUFFICIENT");
    assert_eq!(
        summary["unjudged_games"],
        serde_json::json!(["keno", "roulette-european", "roulette-american"])
    );
    let page = std::fs::read_to_string(one.join("report.html")).unwrap();
    assert!(page.contains("class=\"verdict INSUFFICIENT\""));
    assert!(page.contains("No test of the outcomes of keno, roulette-european, roulette-american is valid at this size, so they are not judged: more rounds are needed."));
    let dice = dir.path().join("dice");
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "dice", "--nonces", "0..1", "--out"])
        .arg(&dice)
        .assert()
        .code(3)
        .stdout(predicate::str::contains("so the battery judges nothing (not a PASS)"));
    let summary = std::fs::read_to_string(dice.join("summary.json")).unwrap();
    assert!(summary.contains("\"verdict\": \"INSUFFICIENT\""), "{summary}");
    let shards = dir.path().join("shards");
    for index in ["0", "1"] {
        fairaudit()
            .args(["sweep", "--scheme", "stake", "--game", "dice", "--nonces", "0..2", "--shards", "2"])
            .args(["--shard-index", index, "--quiet", "--out"])
            .arg(shards.join(index))
            .assert()
            .code(0);
    }
    fairaudit()
        .args(["merge", "--quiet"])
        .arg(shards.join("0"))
        .arg(shards.join("1"))
        .arg("--out")
        .arg(dir.path().join("merged"))
        .assert()
        .code(3);

    // One outcome alone (no seeds, no payout): nothing but the battery could judge it. Its
    // summary, page and certificate say INSUFFICIENT too, not PASS.
    let outcomes = write(dir.path(), "outcomes.csv", "result\n31\n");
    audit("roulette-american", &outcomes).code(3).stdout(predicate::str::contains("judges nothing"));
    let bare = dir.path().join("bare");
    audit_into("roulette-european", &outcomes, &bare).code(3);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bare.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        (&summary["verdict"], &summary["battery"]["verdict"]),
        (&"INSUFFICIENT".into(), &"INSUFFICIENT".into())
    );
    let page = std::fs::read_to_string(bare.join("report.html")).unwrap();
    assert!(page.contains("class=\"verdict INSUFFICIENT\""), "the page does not read PASS");
    fairaudit()
        .args(["certify", "--no-pdf", "--operator", "Bare", "--audit"])
        .arg(&bare)
        .arg("--out")
        .arg(dir.path().join("bare-cert"))
        .assert()
        .code(3)
        .stdout(predicate::str::contains("certificate for Bare: INSUFFICIENT"))
        .stdout(predicate::str::contains("row checks NONE"));
    // A payout column with no payout in it checks nothing either.
    let unpaid = write(dir.path(), "unpaid.csv", "result,bet,stake,payout\n31,,,\n");
    audit("roulette-american", &unpaid).code(3);
    // The same round with its seeds is replayed against the chain: judged by its row.
    let text = std::fs::read_to_string(log()).unwrap();
    let replayed =
        write(dir.path(), "replayed.csv", &(text.lines().take(2).collect::<Vec<_>>().join("\n") + "\n"));
    audit("roulette-american", &replayed)
        .code(0)
        .stdout(predicate::str::contains("1 replayed against the chain, 0 mismatches"))
        .stdout(predicate::str::contains("judges nothing"));
}

/// A piped history is read twice only when it can reveal seeds (a `server_seed` and a
/// `commitment` column); then what the first pass read is kept, in memory up to 8 MiB and
/// past that in a temporary file. One that cannot is read once and never copied: with no
/// usable temporary folder, a large one still audits, while one that must be kept says
/// where it could not keep it, in one line.
#[test]
fn a_piped_history_is_copied_only_when_it_can_reveal_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let no_tmp = dir.path().join("no-such-folder");
    let piped = |history: String| {
        fairaudit()
            .env("TMPDIR", &no_tmp)
            .args(["audit", "--game", "roulette-european", "--quiet", "--outcomes", "-"])
            .write_stdin(history)
            .assert()
    };
    let pockets = |rows: usize, tail: &str| -> String {
        (0..rows).map(|i| format!("{}{tail}\n", (i * 7 + i / 37) % 37)).collect()
    };
    // 11 MB of bare outcomes: past the 8 MiB kept in memory, never copied. (The verdict
    // on these made-up outcomes does not matter here: only that the history was read.)
    let bare = format!("result\n{}", pockets(4_000_000, ""));
    assert!(bare.len() > 8 << 20);
    let read = piped(bare).get_output().clone();
    assert!(matches!(read.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&read.stderr));
    assert!(String::from_utf8_lossy(&read.stdout).contains("4000000 rounds read"));
    // The same outcomes with (empty) seed and commitment columns: kept, which needs the
    // temporary folder.
    let revealing = format!("result,server_seed,commitment\n{}", pockets(3_000_000, ",,"));
    let output = piped(revealing).code(2).get_output().clone();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: -: ")
            && stderr.contains(&format!(
                "cannot keep its copy for the second pass in a temporary file in {}",
                no_tmp.display()
            )),
        "{stderr}"
    );
}

#[test]
fn a_missing_history_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-history.csv");
    for scheme in [&["--game", "roulette-european"][..], &["--scheme", "stake"], &["--scheme", "roobet"]] {
        let output = fairaudit().arg("audit").args(scheme).arg("--outcomes").arg(&missing).output().unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.matches("no-such-history.csv").count(), 1, "{scheme:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains("cannot open") && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
}
